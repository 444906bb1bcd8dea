/* Checks a real CPU makes at CPL 3 that Unicorn does not (port I/O). */
#ifndef EMU_GUARD_H
#define EMU_GUARD_H

#include "emu/status.h"
#include "emu/kernel/task.h"

err_t guard_install(struct task *t);

#endif
