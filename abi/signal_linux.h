/* Guest-side constants of Linux's signal ABI (asm-generic/signal-defs.h,
 * asm/signal.h, asm-generic/siginfo.h, asm/sigcontext.h, asm/ucontext.h),
 * for x86_64 and ia32.  Like abi/linux.h, every name ends in _LINUX: the
 * host's <signal.h> may disagree (macOS numbers SIGBUS 10, SA_RESTART 2). */
#ifndef ABI_SIGNAL_LINUX_H
#define ABI_SIGNAL_LINUX_H

#include "abi/linux.h"

/* The signals abi/linux.h does not name. */
#define SIGSTKFLT_LINUX 16
#define SIGCHLD_LINUX 17
#define SIGCONT_LINUX 18
#define SIGSTOP_LINUX 19
#define SIGTSTP_LINUX 20
#define SIGTTIN_LINUX 21
#define SIGTTOU_LINUX 22
#define SIGURG_LINUX 23
#define SIGXCPU_LINUX 24
#define SIGXFSZ_LINUX 25
#define SIGVTALRM_LINUX 26
#define SIGPROF_LINUX 27
#define SIGWINCH_LINUX 28
#define SIGIO_LINUX 29
#define SIGPWR_LINUX 30
#define SIGRTMIN_LINUX 32 /* the kernel's; glibc keeps 32 and 33 for itself */

#define SIG_DFL_LINUX 0
#define SIG_IGN_LINUX 1

/* sa_flags */
#define SA_NOCLDSTOP_LINUX 0x00000001u
#define SA_NOCLDWAIT_LINUX 0x00000002u
#define SA_SIGINFO_LINUX 0x00000004u
#define SA_UNSUPPORTED_LINUX 0x00000400u
#define SA_EXPOSE_TAGBITS_LINUX 0x00000800u
#define SA_RESTORER_LINUX 0x04000000u
#define SA_ONSTACK_LINUX 0x08000000u
#define SA_RESTART_LINUX 0x10000000u
#define SA_NODEFER_LINUX 0x40000000u
#define SA_RESETHAND_LINUX 0x80000000u

/* sigprocmask(2) */
#define SIG_BLOCK_LINUX 0
#define SIG_UNBLOCK_LINUX 1
#define SIG_SETMASK_LINUX 2

/* sigaltstack(2) */
#define SS_ONSTACK_LINUX 1
#define SS_DISABLE_LINUX 2
#define SS_AUTODISARM_LINUX (1u << 31)
#define MINSIGSTKSZ_LINUX 2048

/* si_code: who sent the signal */
#define SI_USER_LINUX 0
#define SI_KERNEL_LINUX 0x80
#define SI_QUEUE_LINUX (-1)
#define SI_TIMER_LINUX (-2)
#define SI_MESGQ_LINUX (-3)
#define SI_ASYNCIO_LINUX (-4)
#define SI_SIGIO_LINUX (-5)
#define SI_TKILL_LINUX (-6)

/* si_code of the faults */
#define SEGV_MAPERR_LINUX 1
#define SEGV_ACCERR_LINUX 2
#define ILL_ILLOPN_LINUX 2
#define FPE_INTDIV_LINUX 1
#define TRAP_BRKPT_LINUX 1
#define BUS_ADRALN_LINUX 1
#define BUS_ADRERR_LINUX 2

/* itimers */
#define ITIMER_REAL_LINUX 0
#define ITIMER_VIRTUAL_LINUX 1
#define ITIMER_PROF_LINUX 2

/* uc_flags */
#define UC_FP_XSTATE_LINUX 0x1
#define UC_SIGCONTEXT_SS_LINUX 0x2
#define UC_STRICT_RESTORE_SS_LINUX 0x4

/* x86 trap numbers, for sigcontext.trapno */
#define X86_TRAP_DE_LINUX 0
#define X86_TRAP_DB_LINUX 1
#define X86_TRAP_BP_LINUX 3
#define X86_TRAP_UD_LINUX 6
#define X86_TRAP_TS_LINUX 10
#define X86_TRAP_NP_LINUX 11
#define X86_TRAP_SS_LINUX 12
#define X86_TRAP_GP_LINUX 13
#define X86_TRAP_PF_LINUX 14
#define X86_TRAP_MF_LINUX 16
#define X86_TRAP_AC_LINUX 17
#define X86_TRAP_XF_LINUX 19

/* page-fault error code bits (sigcontext.err for #PF) */
#define X86_PF_PROT_LINUX 0x1
#define X86_PF_WRITE_LINUX 0x2
#define X86_PF_USER_LINUX 0x4
#define X86_PF_INSTR_LINUX 0x10

/* #GP's error code for a gate `int $n` may not use: the IDT bit and the entry */
#define X86_GP_IDT_ERR_LINUX(n) ((uint64_t)(n) << 3 | 2)

/* Kernel-internal returns of an interrupted call (include/linux/errno.h):
 * never seen by the guest; turned into a restart or -EINTR on delivery. */
#define ERESTARTSYS_LINUX 512
#define ERESTARTNOINTR_LINUX 513
#define ERESTARTNOHAND_LINUX 514

/* eflags bits sigreturn takes from the frame (FIX_EFLAGS), and those it
 * clears for the handler */
#define X86_EFLAGS_CF_LINUX 0x0001u
#define X86_EFLAGS_PF_LINUX 0x0004u
#define X86_EFLAGS_AF_LINUX 0x0010u
#define X86_EFLAGS_ZF_LINUX 0x0040u
#define X86_EFLAGS_SF_LINUX 0x0080u
#define X86_EFLAGS_TF_LINUX 0x0100u
#define X86_EFLAGS_IF_LINUX 0x0200u
#define X86_EFLAGS_DF_LINUX 0x0400u
#define X86_EFLAGS_OF_LINUX 0x0800u
#define X86_EFLAGS_RF_LINUX 0x10000u
#define X86_EFLAGS_AC_LINUX 0x40000u
#define FIX_EFLAGS_LINUX                                                                   \
    (X86_EFLAGS_AC_LINUX | X86_EFLAGS_OF_LINUX | X86_EFLAGS_DF_LINUX | X86_EFLAGS_TF_LINUX | \
     X86_EFLAGS_SF_LINUX | X86_EFLAGS_ZF_LINUX | X86_EFLAGS_AF_LINUX | X86_EFLAGS_PF_LINUX | \
     X86_EFLAGS_CF_LINUX | X86_EFLAGS_RF_LINUX)

#endif
