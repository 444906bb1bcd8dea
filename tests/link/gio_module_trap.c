/* A GIO module that ends the process the moment it is loaded.
 *
 * seccomp-emu links glib and GIO statically (meson.build), while every GIO
 * module on the host links the shared ones: a module loaded into it would
 * bring a second glib, with its own type system.  GIO loads modules only
 * for what seccomp-emu never uses (proxies, TLS, VFS, settings, monitors),
 * and the fds tests run with this module on GIO_EXTRA_MODULES to keep it
 * so; gio_modules_control.c shows that the trap fires when GIO does load. */
#include <unistd.h>

__attribute__((constructor)) static void trap(void)
{
    static const char msg[] = "gio_module_trap: a GIO module was loaded\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* the status says it anyway */
    }
    _exit(99);
}
