/* The trap path: every way a guest can enter the kernel ends here.  One
 * function, trap_call(), reads the call per entry convention, asks
 * seccomp_check() once, applies the verdict (makes the call, refuses it,
 * traps, kills, or leaves it to the run loop), and ends in one place that
 * observes the call and writes its result back. */
#ifndef EMU_TRAP_H
#define EMU_TRAP_H

#include "emu/status.h"
#include "emu/kernel/task.h"

struct notify_report;

/* The hooks of the trap path on an engine (each new engine: exec, fork). */
err_t trap_install(struct cpu *c);

/* A call trap_call() left for the run loop (struct deferred_call): make
 * it now, outside the engine, and store its result. */
void trap_finish_deferred(struct task *t);

/* `sysenter` in 64-bit code, which Unicorn's CPU model refuses (#UD) and
 * an Intel CPU takes into Linux's compat entry: the 32-bit call is made
 * and the task resumes in compat mode at its (absent) landing pad.  False
 * on AMD, where the #UD is real. */
bool trap_sysenter_long(struct task *t, uint64_t pc);

/* Observers of the trap path (tracing); NULL when nobody watches, so the
 * cost is one test of a pointer. */
struct trap_event {
    enum entry entry;
    uint64_t pc; /* of the trapping instruction */
    int64_t nr;
    uint64_t args[6];
    int mode;               /* the mode the call was checked in */
    const struct verdict *verdict;
    /* SECCOMP_RET_USER_NOTIF met a listener: the notification's story
     * (emu/kernel/seccomp_notify.h); NULL otherwise. */
    const struct notify_report *notify;
    int64_t result;         /* valid when the call returned */
    bool returned;
};
extern void (*trap_observer)(struct task *t, const struct trap_event *ev);

#endif
