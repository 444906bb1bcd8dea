/* The seccomp actions: the one table of the eight values a filter may
 * return, in the order of their precedence, with what each does to the
 * call (kernel/seccomp.c: __seccomp_filter's switch).  The kernel decides
 * with it (emu/kernel/seccomp.c), the trap path applies it
 * (emu/entry/trap.c), the disassembler and the trace print its names. */
#ifndef ABI_SECCOMP_ACTIONS_H
#define ABI_SECCOMP_ACTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/seccomp_linux.h"

/* What an action does to the call that met it. */
enum seccomp_effect {
    SECCOMP_EFFECT_KILL_PROCESS, /* the process dies of SIGSYS */
    SECCOMP_EFFECT_KILL_THREAD,  /* the thread dies; its process only if it is the last */
    SECCOMP_EFFECT_SIGNAL,       /* not run: SIGSYS is forced, the data in si_errno */
    SECCOMP_EFFECT_ERRNO,        /* not run: returns -data, capped at MAX_ERRNO */
    SECCOMP_EFFECT_NOTIFY,       /* waits for the listener's answer; with none, -ENOSYS */
    SECCOMP_EFFECT_TRACE,        /* for a ptracer; with none, not run: -ENOSYS */
    SECCOMP_EFFECT_LOG,          /* runs, logged */
    SECCOMP_EFFECT_ALLOW,        /* runs */
};

struct seccomp_action_linux {
    uint32_t value;             /* SECCOMP_RET_*: the action part of a filter's value */
    const char *name;           /* as the uapi header spells it after SECCOMP_RET_ */
    enum seccomp_effect effect;
    bool takes_data;            /* its data is an argument (errno, si_errno, the tracer's
                                   event message), meaningful even when 0 */
};

/* Most restrictive first: the order of the values as signed 32-bit
 * numbers, by which seccomp_run_filters() ranks them. */
#define SECCOMP_ACTIONS_LINUX 8
extern const struct seccomp_action_linux seccomp_actions_linux[SECCOMP_ACTIONS_LINUX];

/* The action `ret`'s action part names; NULL for an unknown one. */
const struct seccomp_action_linux *seccomp_action_linux(uint32_t ret);

/* The action the kernel takes for `ret`: an unknown one acts as
 * KILL_PROCESS (Linux >= 4.14). */
const struct seccomp_action_linux *seccomp_action_taken_linux(uint32_t ret);

/* A value's precedence: of two values, the lower wins, known or not. */
static inline int32_t seccomp_precedence_linux(uint32_t ret)
{
    return (int32_t)(ret & SECCOMP_RET_ACTION_FULL_LINUX);
}

#endif
