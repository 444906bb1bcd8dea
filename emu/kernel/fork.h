/* New tasks (kernel/fork.c): clone, clone3, fork and vfork make a guest
 * thread or process inside seccomp-emu, sharing or copying each part of
 * the caller's state as the flags say.  A new process gets a copy of the
 * address space and an engine of its own; the guest never gets a host
 * process. */
#ifndef EMU_FORK_H
#define EMU_FORK_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

struct task;
struct cpu;

/* kernel_clone_args */
struct clone_request {
    uint64_t flags;
    int exit_signal;
    uint64_t stack;      /* the child's stack pointer; 0: the caller's */
    uint64_t parent_tid; /* CLONE_PARENT_SETTID */
    uint64_t child_tid;  /* CLONE_CHILD_SETTID, CLONE_CHILD_CLEARTID */
    uint64_t pidfd;      /* CLONE_PIDFD: where the descriptor goes */
    uint64_t tls;        /* CLONE_SETTLS */
    int32_t set_tid;     /* clone3's set_tid (one level); 0: any */
};

/* The caller's clone: the new task's tid, or a negative errno.  The
 * caller's registers are on its engine as the call returns them; the
 * child's are those, with 0 as the result. */
int64_t fork_clone(struct task *t, const struct clone_request *rq);

/* Set by the run loop's owner (emu/main.c): the hooks a new engine needs
 * (the trap path, faults), and what a new task's host thread runs. */
extern err_t (*fork_engine_setup)(struct cpu *c);
extern void (*fork_task_body)(struct task *t);

#endif
