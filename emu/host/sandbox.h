/* seccomp-emu sandboxing itself.  Once the guest is set up (program read,
 * memory mapped, descriptors bound, timers armed, trace files open) the
 * emulator needs only a few host calls to run it; on Linux it then installs
 * a seccomp filter allowing just those (emu/host/sandbox_linux.c, the allowlist
 * is one table there), so that even a bug in seccomp-emu or Unicorn that a
 * guest manages to exploit cannot open a file or start a process.  On hosts
 * without it (not Linux, or no libseccomp at build time) nothing happens. */
#ifndef EMU_SANDBOX_H
#define EMU_SANDBOX_H

#include <glib.h>
#include <stdbool.h>

#include "emu/status.h"

/* --no-self-sandbox, and a hidden switch for the tests. */
GOptionGroup *sandbox_option_group(void);

/* With --ro grants, the self-sandbox must let seccomp-emu open files
 * again (read-only, never following a symlink): on Linux, Landlock then
 * keeps those opens inside the granted directories.  Call once the last
 * file seccomp-emu opens for itself is open, and before any thread
 * starts (Landlock binds the calling thread and the threads it starts
 * later).  Refuses, where the kernel has no Landlock, to widen the filter
 * unchecked: --no-self-sandbox is then the user's explicit choice.  Does
 * nothing without grants, with --no-self-sandbox, or off Linux. */
err_t sandbox_confine_files(void);

/* Call last, after every other set-up step and just before the guest's
 * first instruction: nothing that opens, creates or spawns works after it
 * (with grants: nothing but read-only opens Landlock confines). */
err_t sandbox_enter(void);

#ifdef HAVE_SELF_SANDBOX
/* emu/host/sandbox_linux.c */
err_t sandbox_install_filter(void);
err_t sandbox_landlock_grants(void);
/* The calls that must die, by name, for the test switch. */
long sandbox_try_forbidden(const char *what, bool *known);
#endif

#endif
