/* The run loop and the end of the process: seccomp-emu leaves the way the
 * guest left, by the same exit code or the same signal. */
#ifndef EMU_RUN_H
#define EMU_RUN_H

#include <stdint.h>

#include "emu/status.h"
#include "emu/kernel/task.h"

/* Runs until the guest exits or dies; an err_t only for emulator faults. */
err_t run_guest(struct task *t, uint64_t start);

/* Print the reason (unless quiet) and end the process like the guest. */
G_NORETURN void exit_like_guest(struct task *t);

#endif
