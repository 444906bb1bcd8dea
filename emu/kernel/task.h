/* The emulated tasks.  The state is split the way Linux splits it, so that
 * clone() can share or copy each part as its flags say:
 *   struct task          one guest thread (task_struct): registers, tid,
 *                        signal mask and private pending set, seccomp
 *                        mode and filters, robust list, TLS, exit state;
 *   struct mm            the address space (emu/engine/mem.h), CLONE_VM;
 *   struct fdtable       the descriptors (emu/kernel/fdtable.h), CLONE_FILES;
 *   struct sighand       the signal actions (sigstate.h), CLONE_SIGHAND;
 *   struct thread_group  the process (signal_struct and the tgid): the
 *                        shared pending set, rlimits, CLONE_THREAD;
 *   struct cpu           the engine the task's registers run on
 *                        (emu/engine/cpu.h), one per mm today.
 * The seccomp mode lives in the task and only ever moves forward. */
#ifndef EMU_TASK_H
#define EMU_TASK_H

#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "abi/abi.h"
#include "abi/linux.h"
#include "abi/seccomp_linux.h"
#include "emu/engine/cpu.h"
#include "emu/engine/mem.h"
#include "emu/kernel/async.h"
#include "emu/kernel/fdtable.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/sigstate.h"
#include "emu/kernel/wait.h"

enum seccomp_mode {
    MODE_DISABLED = 0,
    MODE_STRICT = 1,
    MODE_FILTER = 2,
    MODE_DEAD = 3, /* killed by seccomp: newer kernels report this */
};

/* Where a filter attached before the first instruction came from
 * (--filter, --seccomp-profile), so that a trace can name it and, for a
 * profile, the rule that decided. */
struct filter_origin {
    char *what;       /* "--seccomp-profile default.json" */
    /* The rule that gives `ret` for `d`, in words, or NULL. */
    char *(*explain)(const void *policy, const struct seccomp_data_linux *d, uint32_t ret);
    const void *policy;
};

/* One attached filter (kernel/seccomp.c's struct seccomp_filter): never
 * changed once attached, and shared by the tasks that inherit it
 * (clone, fork, TSYNC), counted by `refs`. */
struct seccomp_filter {
    unsigned refs;   /* task chains, a listener, a waiting notification */
    unsigned users;  /* task chains only: 0 once no task can meet it (POLLHUP) */
    struct sock_filter_linux *prog;
    size_t len;      /* classic instructions */
    size_t ebpf_len; /* what the kernel's path limit counts */
    bool log;        /* SECCOMP_FILTER_FLAG_LOG */
    bool wait_killable_recv; /* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV */
    const struct filter_origin *origin; /* NULL: the guest attached it */
    /* NEW_LISTENER's state (emu/kernel/seccomp_notify.c); NULL without a
     * listener, and again once its last descriptor is closed. */
    struct seccomp_notification *notif;
    struct waitq wqh; /* the listener's readers and pollers */
};

/* Which kernel seccomp-emu plays. */
enum profile {
    PROFILE_LINUX, /* today's kernel */
    PROFILE_2611,  /* the 2005 seed patch: /proc/self/seccomp, list by personality */
};

enum run_state { TASK_RUNNING, TASK_EXITED, TASK_SIGNALED };

/* A process: what Linux keeps in signal_struct, shared by the threads of
 * one thread group (CLONE_THREAD), and its place among the processes. */
struct thread_group {
    /* Atomic, as Linux's refcount_t: an exiting thread drops its own
     * references after it has given up the CPU (exit_task()). */
    _Atomic unsigned refs;
    int32_t tgid;
    struct task *leader;      /* stays, a zombie if need be, until reaped */
    GQueue threads;           /* struct task *, each until it is released */
    int live;                 /* threads that have not exited */
    unsigned curr_target;     /* where complete_signal() looks first */
    bool exiting;             /* SIGNAL_GROUP_EXIT: exit_group or a fatal signal */
    int exit_status;          /* the wait status, once exiting or all gone */
    char *reason;             /* why it died of a signal: the stderr line */
    struct sigpending shared_pending;
    struct { uint64_t cur, max; } rlim[RLIM_NLIMITS_LINUX];

    struct thread_group *parent; /* NULL: seccomp-emu itself is the parent */
    GQueue children;          /* struct thread_group *, alive or zombie */
    int exit_signal;          /* sent to the parent at the end; 0: none */
    int32_t parent_tid;       /* the thread that made it (__WNOTHREAD) */
    bool initial;             /* the first process: its end ends seccomp-emu */
    bool zombie;              /* every thread has exited; not yet reaped */
    bool reaped;
    struct waitq child_exit;  /* its threads waiting in wait4/waitid */
    struct waitq exited;      /* woken at its end (pidfd poll) */
    struct waitq thread_exit; /* woken as each thread exits (de_thread) */
    int64_t cputime_ns;       /* CPU time of all its threads (sched.c) */
    int64_t children_cputime_ns;
    struct group_timers timers;
    GHashTable *posix_timers;   /* timer_create's, by id (emu/kernel/posix_timer.c) */
    int32_t posix_timer_next;   /* the next id to try */
};

/* A system call that must finish outside the engine (it blocks while
 * another task needs the engine, or replaces the engine): trap.c stops the
 * engine and the run loop completes it (emu/entry/trap.c). */
struct deferred_call {
    bool active;
    enum entry entry;
    uint64_t pc;
    int64_t nr;
    uint64_t args[6];
    const struct abi *abi;
    const void *desc; /* struct syscall_desc */
    struct verdict verdict;
    int mode;         /* the seccomp mode it was checked in */
    /* SECCOMP_RET_USER_NOTIF with a listener: the filter that asked (one
     * reference) and what its notification carries; the call waits for
     * the answer before it runs, if it runs at all. */
    struct seccomp_filter *notify;
    struct seccomp_data_linux data;
};

/* The call a task is inside while it may sleep, as its pt_regs hold it
 * at entry: what /proc/<pid>/syscall shows of a blocked task. */
struct call_regs {
    bool active;
    int64_t nr;
    uint64_t args[6];
    uint64_t sp, ip; /* the user stack, and where the call returns */
};

struct task {
    _Atomic unsigned refs;        /* the task table, a zombie's parent, lookups;
                                     atomic, as the thread group's */
    struct sched_entity se;       /* emu/kernel/sched.c */
    struct cpu *cpu;              /* the engine of its address space */
    struct mm *mm;                /* shared: these five hold a reference each */
    struct fdtable *fds;
    struct sighand *sighand;
    struct thread_group *group;
    struct ofile *cwd;            /* the working directory (emu/kernel/vfs.h): Linux's
                                     fs_struct; a clone takes a reference */

    int32_t tid;
    const struct abi *personality; /* the ELF class: TIF_IA32 or not */
    bool is64;                     /* its code runs on a 64-bit engine */
    enum profile profile;
    enum vendor vendor;
    enum seccomp_mode mode;
    GPtrArray *filters;    /* struct seccomp_filter *, oldest first */
    GArray *filter_rets;   /* uint32_t: the last call's values, newest first */
    bool no_new_privs;     /* PR_SET_NO_NEW_PRIVS */
    /* Capabilities (bit n: capability n), --caps: the task's sets as
     * capget shows them; the effective set decides CAP_SYS_ADMIN for
     * filters without no_new_privs. */
    uint64_t cap_effective, cap_permitted, cap_inheritable, cap_bounding;
    unsigned release[3];   /* the kernel release uname reports (--kernel=linux:X.Y.Z) */
    bool tsc_off;          /* CR4.TSD: strict mode turned the time-stamp counter off */
    const struct abi *call_abi; /* ABI of the call being served: compat
                                   structures for int $0x80 from 64-bit code */

    uint64_t clear_child_tid, robust_list, robust_len;
    uint64_t rseq_addr;              /* registered struct rseq (emu/kernel/rseq.c), 0: none */
    uint32_t rseq_len, rseq_sig;
    struct task *vfork_parent;    /* CLONE_VFORK: waiting until we exec or exit */
    struct waitq vfork_done;      /* where that parent waits */
    struct deferred_call deferred;
    struct call_regs call;        /* set for calls that may block (emu/entry/trap.c) */
    bool exception_taken;         /* emu/entry/fault.c: the CPU's #DF state to forget */
    bool exec_done;               /* execve replaced the registers: no result to store */
    uint8_t tls[GDT_ENTRY_TLS_ENTRIES_LINUX][8]; /* set_thread_area's descriptors */
    char comm[TASK_COMM_LEN_LINUX]; /* the name: exec's basename, PR_SET_NAME */
    struct sigstate sig; /* emu/kernel/signal.c */
    bool quiet;

    enum run_state state;  /* anything but TASK_RUNNING: leaving its run loop */
    int exit_code;
    int signo;
    char *reason; /* one line: why the guest died, for stderr */
    bool exited;  /* do_exit() is done; a leader stays a zombie */
    int64_t cputime_ns;           /* its CPU time (emu/kernel/sched.c) */
    int64_t start_ns;             /* when it was made, on CLOCK_MONOTONIC (start_time) */
    bool forked;                  /* PF_FORKNOEXEC: made by clone, no execve since */
};

/* The first task, with an address space, descriptor table, actions and
 * thread group of its own, none of them set up yet (no engine, empty
 * address space, no descriptors). */
struct task *task_new_initial(void);
/* Give it a new, empty address space for a 32- or 64-bit program and
 * the engine to run it on. */
err_t task_open_engine(struct task *t, bool is64);
/* Free a task that never ran, and what only it refers to (unit tests). */
void task_destroy(struct task *t);

/* Is the call being served a 32-bit one (int $0x80, sysenter, or the
 * 32-bit syscall, from 32- or 64-bit code)?  Its structures and arguments
 * are then the compat ones, whatever the task's own width. */
static inline bool in_compat_syscall(const struct task *t)
{
    return t->call_abi->bits == 32;
}

/* exit(2): this thread ends with exit code `code` (0-255). */
void task_exit(struct task *t, int code);
/* exit_group(2): every thread of its process ends; the status is `code`. */
void task_exit_group(struct task *t, int code);
/* A fatal signal: the whole process dies of `signo`; `reason` (owned)
 * becomes the stderr line. */
void task_kill(struct task *t, int signo, char *reason);
/* Only this thread dies of `signo` (strict mode, SECCOMP_RET_KILL_THREAD):
 * the process lives on unless it was the last live thread, which then
 * ends the process with that signal as KILL_PROCESS would. */
void task_kill_thread(struct task *t, int signo, char *reason);
/* de_thread(): kill every other thread of t's process (they leave as at
 * exit_group, but the process goes on), and, once they are gone, make t
 * the leader under the leader's pid. */
void task_zap_others(struct task *t);
void task_take_leader(struct task *t);
/* Resource limits as a native child of seccomp-emu would inherit them. */
void task_init_rlimits(struct task *t);

/* The task with this tid, live or a zombie leader; NULL if none. */
struct task *task_lookup(int32_t tid);
/* Tasks alive (not yet exited), for --max-tasks. */
unsigned task_count(void);
/* One task fewer is alive (do_exit). */
void task_exited(void);
/* Every task of the table, for walks (/proc, TSYNC): n gets the count. */
struct task **task_all(unsigned *n);

/* Take a reference on a task struct / drop it. */
struct task *task_get(struct task *t);
void task_put(struct task *t);
struct thread_group *thread_group_get(struct thread_group *g);
void thread_group_put(struct thread_group *g);
/* A new process, led by `leader`, whose tid it takes as its tgid. */
struct thread_group *thread_group_new(struct task *leader);

/* Add a task to the table under a new tid, or `want` if not 0 (clone3's
 * set_tid, checked free by the caller); the caller checked --max-tasks.
 * Its thread group and the rest are the caller's to set. */
void task_register(struct task *t, int32_t want);
/* The thread is released (reaped, or gone without a zombie): off the
 * table and its group, its references dropped. */
void task_release(struct task *t);

/* --max-tasks: all guest tasks alive at once. */
void task_set_max(unsigned n);
unsigned task_max(void);
#define TASK_MAX_DEFAULT 1024

#endif
