/* The emulated task: one guest thread and the kernel state Linux keeps for
 * it.  The seccomp mode lives here and only ever moves forward. */
#ifndef EMU_TASK_H
#define EMU_TASK_H

#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "abi/abi.h"
#include "abi/linux.h"
#include "abi/seccomp_linux.h"
#include "abi/vdso.h"
#include "emu/kernel/fdtable.h"
#include "emu/engine/mem.h"
#include "emu/kernel/sigstate.h"

enum seccomp_mode {
    MODE_DISABLED = 0,
    MODE_STRICT = 1,
    MODE_FILTER = 2,
    MODE_DEAD = 3, /* killed by seccomp: newer kernels report this */
};

/* One attached filter (kernel/seccomp.c's struct seccomp_filter). */
struct seccomp_filter {
    struct sock_filter_linux *prog;
    size_t len;      /* classic instructions */
    size_t ebpf_len; /* what the kernel's path limit counts */
    bool log;        /* SECCOMP_FILTER_FLAG_LOG */
};

/* Which kernel seccomp-emu plays. */
enum profile {
    PROFILE_LINUX, /* today's kernel */
    PROFILE_2611,  /* the 2005 seed patch: /proc/self/seccomp, list by personality */
};

enum vendor { VENDOR_INTEL, VENDOR_AMD };

enum run_state { TASK_RUNNING, TASK_EXITED, TASK_SIGNALED };

/* Where seccomp-emu's own pages sit in the guest address space. */
struct kernel_layout {
    uint64_t kpage;          /* GDT and entry stubs; never user memory */
    uint64_t halt;           /* emulation never legitimately reaches it */
    uint64_t vdso;           /* AT_SYSINFO_EHDR */
    uint64_t vsyscall;       /* AT_SYSINFO (i386 __kernel_vsyscall) */
    uint64_t int80_pad;      /* where fast 32-bit entries return */
    uint64_t vdso_sigreturn, vdso_rt_sigreturn; /* ia32 default restorers */
    uint64_t vdso_code, vdso_code_end; /* hooked for the time functions */
    uint64_t vdso_fn[VDSO_NFN];        /* entry of each emulated function */
    uint64_t vdso_fn_done[VDSO_NFN];   /* its `ret`, where a served call resumes */
};

struct task {
    uc_engine *uc;
    struct mm mm;
    struct fdtable fds;
    const struct abi *personality; /* the ELF class: TIF_IA32 or not */
    bool is64;                     /* Unicorn runs in 64-bit mode */
    enum profile profile;
    enum vendor vendor;
    enum seccomp_mode mode;
    GPtrArray *filters;    /* struct seccomp_filter *, oldest first */
    GArray *filter_rets;   /* uint32_t: the last call's values, newest first */
    bool no_new_privs;     /* PR_SET_NO_NEW_PRIVS */
    bool cap_sys_admin;    /* the capability a native run would have */
    bool has_listener;     /* a NEW_LISTENER filter is attached */
    bool tsc_off;
  /* CR4.TSD: strict mode turned the time-stamp counter off */
    struct kernel_layout layout;
    const struct abi *call_abi; /* ABI of the call being served: compat
                                   structures for int $0x80 from 64-bit code */

    uint64_t clear_child_tid, robust_list, robust_len;
    struct { uint64_t cur, max; } rlim[RLIM_NLIMITS_LINUX];
    uint8_t tls[3][8]; /* the three TLS descriptors of set_thread_area */
    char *exe_path;    /* what /proc/self/exe resolves to */
    char comm[TASK_COMM_LEN_LINUX]; /* the name: exec's basename, PR_SET_NAME */
    struct sigstate sig; /* emu/kernel/signal.c */
    bool quiet;

    enum run_state state;
    int exit_code;
    int signo;
    char *reason; /* one line: why the guest died, for stderr */
};

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
