/* Signals for the guest.  The core delivers only default actions: a fault
 * or a signal whose default is to terminate ends the guest by that signal,
 * which seccomp-emu then reproduces on itself. */
#ifndef EMU_SIGNAL_H
#define EMU_SIGNAL_H

#include <stdint.h>

#include "emu/task.h"

/* si_code values of the faults (asm-generic/siginfo.h) */
#define SEGV_MAPERR_LINUX 1
#define SEGV_ACCERR_LINUX 2
#define ILL_ILLOPN_LINUX 2
#define FPE_INTDIV_LINUX 1
#define TRAP_BRKPT_LINUX 1
#define SI_KERNEL_LINUX 0x80

/* A synchronous fault at the current instruction. */
void signal_fault(struct task *t, int sig, int si_code, uint64_t addr);
/* A signal the kernel sends the task as a side effect (SIGPIPE). */
void signal_post(struct task *t, int sig);

const char *signal_name(int sig);

#endif
