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
#include "emu/kernel/fdtable.h"
#include "emu/kernel/sigstate.h"

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
    unsigned refs;
    struct sock_filter_linux *prog;
    size_t len;      /* classic instructions */
    size_t ebpf_len; /* what the kernel's path limit counts */
    bool log;        /* SECCOMP_FILTER_FLAG_LOG */
    const struct filter_origin *origin; /* NULL: the guest attached it */
};

/* Which kernel seccomp-emu plays. */
enum profile {
    PROFILE_LINUX, /* today's kernel */
    PROFILE_2611,  /* the 2005 seed patch: /proc/self/seccomp, list by personality */
};

enum run_state { TASK_RUNNING, TASK_EXITED, TASK_SIGNALED };

/* A process: what Linux keeps in signal_struct, shared by the threads of
 * one thread group (CLONE_THREAD). */
struct thread_group {
    unsigned refs;
    int32_t tgid;
    struct sigpending shared_pending;
    struct { uint64_t cur, max; } rlim[RLIM_NLIMITS_LINUX];
};

struct task {
    struct cpu *cpu;              /* the engine of its address space */
    struct mm *mm;                /* shared: these four hold a reference each */
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
    bool has_listener;     /* a NEW_LISTENER filter is attached */
    bool tsc_off;          /* CR4.TSD: strict mode turned the time-stamp counter off */
    const struct abi *call_abi; /* ABI of the call being served: compat
                                   structures for int $0x80 from 64-bit code */

    uint64_t clear_child_tid, robust_list, robust_len;
    uint64_t rseq_addr;              /* registered struct rseq (emu/kernel/rseq.c), 0: none */
    uint32_t rseq_len, rseq_sig;
    uint8_t tls[GDT_ENTRY_TLS_ENTRIES_LINUX][8]; /* set_thread_area's descriptors */
    char comm[TASK_COMM_LEN_LINUX]; /* the name: exec's basename, PR_SET_NAME */
    struct sigstate sig; /* emu/kernel/signal.c */
    bool quiet;

    enum run_state state;
    int exit_code;
    int signo;
    char *reason; /* one line: why the guest died, for stderr */
    bool exception_taken; /* emu/entry/fault.c: the CPU's #DF state to forget */
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

/* End the guest with exit code `code` (exit/exit_group). */
void task_exit(struct task *t, int code);
/* Resource limits as a native child of seccomp-emu would inherit them. */
void task_init_rlimits(struct task *t);
/* End the guest by signal `signo`; `reason` becomes the stderr line. */
void task_kill(struct task *t, int signo, char *reason);

#endif
