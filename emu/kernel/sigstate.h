/* The kernel's signal state, split as Linux splits it: the actions
 * (sighand_struct, shared by CLONE_SIGHAND), the pending sets (the
 * thread's own in task_struct, the process's in signal_struct), and the
 * rest of task_struct's (blocked, sas_ss_*, the restart and frame state),
 * embedded in struct task.  emu/kernel/signal.c owns it all. */
#ifndef EMU_SIGSTATE_H
#define EMU_SIGSTATE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/abi.h"
#include "emu/engine/uctx.h"

#define NSIG_LINUX_ALL 64

/* One signal's information, as the kernel's kernel_siginfo holds it; the
 * frame code lays it out per ABI. */
struct ksiginfo {
    int signo, errno_, code;
    int32_t pid;
    uint32_t uid;
    int32_t tid, overrun; /* SI_TIMER: the timer's id, expirations while queued */
    int32_t *overrun_last; /* SI_TIMER: its timer's record of the delivered count */
    uint64_t value;       /* sigval: SI_QUEUE, SI_TIMER */
    uint64_t addr;        /* faults; SIGSYS: si_call_addr */
    int32_t syscall;      /* SIGSYS from seccomp: si_syscall */
    int32_t status;       /* SIGCHLD: si_status */
    int64_t utime, stime; /* SIGCHLD: the child's CPU time, in ns */
    uint32_t arch;        /* SIGSYS from seccomp: si_arch */
    bool raw_valid;       /* rt_sigqueueinfo: the sender's own bytes */
    uint8_t raw[128];
    /* Not siginfo: what the fault leaves in thread.trap_nr/error_code/cr2. */
    const char *why; /* static text for the stderr line of a death */
    bool shared;     /* queued on the process, not the thread */
    bool from_guest; /* sent by a guest task (kill, tgkill...) */
    bool is_fault;
    int trapno;
    uint64_t err, cr2;
};

struct ksigaction {
    uint64_t handler; /* SIG_DFL_LINUX, SIG_IGN_LINUX or an address */
    uint64_t flags;
    uint64_t restorer;
    uint64_t mask;
};

/* The actions, shared by the tasks cloned with CLONE_SIGHAND. */
struct sighand {
    unsigned refs;
    struct ksigaction action[NSIG_LINUX_ALL + 1];
};

/* One pending set.  Linux keeps two: the thread's own (tkill, tgkill,
 * faults: private) and the process's (kill, timers: shared).  Each holds
 * a standard signal at most once, so one of each can wait. */
struct sigpending {
    uint64_t set;  /* bit sig-1: at least one queued */
    GArray *queue; /* struct ksiginfo, in arrival order */
};

struct sigstate {
    uint64_t blocked;    /* bit sig-1 */
    struct sigpending pending; /* the thread's own */

    uint64_t ss_sp, ss_size; /* sigaltstack */
    uint32_t ss_flags;

    uint64_t saved_mask; /* sigsuspend's: restored once a handler is set up */
    bool restore_mask;

    /* thread.trap_nr, error_code, cr2 of the last fault: every frame shows
     * them, as Linux's do. */
    int trapno;
    uint64_t err, cr2;

    /* The system call the engine stopped after, for restarts. */
    bool after_call;
    enum entry entry;
    int64_t nr;
    bool sysenter_done; /* stopped on the sysenter stub with its result */

    /* sigreturn's context, installed when the engine has stopped. */
    bool ctx_pending;
    struct uctx ctx;

    bool fault_raised; /* a fault was taken in this run of the engine */
};

#endif
