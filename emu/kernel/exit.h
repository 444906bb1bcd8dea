/* The end of tasks and processes (kernel/exit.c): a thread's do_exit(),
 * the process that ends with its last thread, the parent's SIGCHLD, and
 * the wait4/waitid side that reaps it. */
#ifndef EMU_EXIT_H
#define EMU_EXIT_H

#include <stdint.h>

struct task;

/* The run loop has returned (the task's state is no longer running):
 * its robust list, clear_child_tid, the vfork parent, the resources it
 * held; the process's end if it was the last thread; then the CPU goes
 * to the next task for good.  Nothing of `t` may be used after. */
void exit_task(struct task *t);

/* What a task's leaving its address space does, at exit and at exec
 * (exit_mm_release, exec_mm_release): its robust list and PI locks,
 * clear_child_tid (only where others share the memory), and the vfork
 * parent goes on. */
void exit_mm_release(struct task *t);

struct wait_opts {
    int which;   /* P_ALL_LINUX, P_PID_LINUX, P_PGID_LINUX */
    int32_t id;
    int options; /* W*_LINUX */
};

struct wait_result {
    int32_t pid;    /* 0: WNOHANG and nothing to report */
    int32_t uid;
    int status;     /* the wait status (wait4) */
    int code;       /* CLD_EXITED_LINUX... (waitid's si_code) */
    int child_status;  /* exit code or signal (waitid) */
    int64_t utime_ns, stime_ns;
};

/* do_wait(): the pid of a child reaped (or only seen, with WNOWAIT), 0
 * with WNOHANG and none ready, or a negative errno (-ECHILD,
 * -ERESTARTSYS). */
int64_t exit_wait(struct task *t, const struct wait_opts *wo, struct wait_result *res);

/* The main thread: wait until the first process has ended, then its wait
 * status and, when a signal killed it, why (for stderr; may be NULL). */
int exit_wait_initial(const char **reason);

#endif
