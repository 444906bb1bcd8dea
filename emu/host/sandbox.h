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

/* Call last, after every other set-up step and just before the guest's
 * first instruction: nothing that opens, creates or spawns works after it. */
err_t sandbox_enter(void);

#ifdef HAVE_SELF_SANDBOX
/* emu/host/sandbox_linux.c */
err_t sandbox_install_filter(void);
/* The calls that must die, by name, for the test switch. */
long sandbox_try_forbidden(const char *what, bool *known);
#endif

#endif
