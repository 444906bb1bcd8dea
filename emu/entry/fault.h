/* Precise page faults (UC_TLB_VIRTUAL and a TLB-fill hook mirroring the
 * VMA table), their exact addresses, and on-demand stack growth. */
#ifndef EMU_FAULT_H
#define EMU_FAULT_H

#include <stdbool.h>
#include <unicorn/unicorn.h>

#include "emu/status.h"
#include "emu/kernel/task.h"

err_t fault_install(struct cpu *c);

/* A CPU exception reached the interrupt hook (trap.c). */
void fault_exception_taken(struct task *t);

/* The run loop, before each engine start. */
err_t fault_before_run(struct task *t);

/* User code ran into seccomp-emu's own page (a jump, a return, a signal
 * handler set there): the fault Linux gives at that address. */
void fault_user_kernel_page(struct task *t, uint64_t addr);

/* The engine stopped with `e`: if a refused TLB fill explains it, grow the
 * stack or raise SIGSEGV, and return true. */
bool fault_take(struct task *t, uc_err e);

#endif
