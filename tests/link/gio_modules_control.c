/* The control for gio_module_trap.c: asking GIO for its proxy resolver
 * makes it load its modules, so under GIO_EXTRA_MODULES=<the trap's
 * directory> this program must end with the trap's status 99, linked with
 * glib and GIO exactly as seccomp-emu is. */
#include <gio/gio.h>

int main(void)
{
    GProxyResolver *r = g_proxy_resolver_get_default();
    return r ? 0 : 1;
}
