/* The run loop and the end of the process: seccomp-emu leaves the way the
 * guest left, by the same exit code or the same signal. */
#ifndef EMU_RUN_H
#define EMU_RUN_H

#include <stdint.h>

#include "emu/status.h"
#include "emu/kernel/task.h"

/* Runs until the guest exits or dies; an err_t only for emulator faults. */
err_t run_guest(struct task *t, uint64_t start);

/* What a task's host thread runs (emu/kernel/fork.c starts it): the run
 * loop, then the task's exit. */
void run_task_body(struct task *t);

/* End seccomp-emu as the first process ended: `status` is its wait
 * status; the reason of a death by signal goes to stderr unless quiet.
 * `t` is its leader, whose observers see the end. */
G_NORETURN void exit_like_guest(struct task *t, int status, const char *reason);

#endif
