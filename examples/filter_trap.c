/* Lesson 9: SECCOMP_RET_TRAP, and a handler that emulates the call.
 *
 * TRAP skips the call and sends SIGSYS with si_code SYS_SECCOMP (1); the
 * siginfo names the call (si_syscall, si_arch, si_call_addr: the address
 * after the trapping instruction) and carries the action's data in
 * si_errno.  In the handler the accumulator holds the call's number, and
 * whatever the handler leaves there is what the call returns: the handler
 * can emulate the call, as sandboxes that broker calls do.
 *
 *     seccomp-emu --trace build/examples/filter_trap64           # getpid: 4242
 *     seccomp-emu --trace build/examples/filter_trap64 blocked   # dies of SIGSYS
 *
 * With `blocked` SIGSYS is blocked first: the kernel unblocks a forced
 * signal's default action instead, and the process dies of SIGSYS. */
#include "filter.h"

#define SIGSYS_LINUX 31
#define SIG_BLOCK_LINUX 0
#define EMULATED_PID 4242

/* Offsets into siginfo (the _sigsys member) and into the ucontext the
 * kernel builds (uc_mcontext's saved accumulator). */
#if defined(__x86_64__)
#define SI_CALL_ADDR 16
#define SI_SYSCALL 24
#define SI_ARCH 28
#define UC_AX 144 /* 40 + REG_RAX (13) * 8 */
#else
#define SI_CALL_ADDR 12
#define SI_SYSCALL 16
#define SI_ARCH 20
#define UC_AX 64 /* 20 + REG_EAX (11) * 4 */
#endif

extern char guest_sys_insn[];

static const struct sock_filter trap_getpid[] = {
    LOAD(SD_ARCH),
    JEQ(AUDIT_ARCH_NATIVE, 1, 0),
    RET(SECCOMP_RET_KILL_PROCESS),
    LOAD(SD_NR),
    JEQ(NR_getpid_LINUX, 0, 1),
    RET(SECCOMP_RET_TRAP | 7),
    RET(SECCOMP_RET_ALLOW),
};

static void on_sigsys(int sig, char *info, char *uc)
{
    (void)sig;
    guest_put_result("SIGSYS si_code", *(int *)(info + 8));
    guest_put_result("si_errno (the action's data)", *(int *)(info + 4));
    guest_put_result("si_syscall", *(int *)(info + SI_SYSCALL));
    guest_put_result("si_arch", (long)*(unsigned *)(info + SI_ARCH));
    char *call_addr = *(char **)(info + SI_CALL_ADDR);
    guest_put_result("si_call_addr - the syscall instruction", call_addr - guest_sys_insn);
    guest_put_result("ax in the handler", *(long *)(uc + UC_AX));
    *(long *)(uc + UC_AX) = EMULATED_PID; /* the call's result */
}

int guest_main(void)
{
    /* An SA_SIGINFO handler takes three arguments; the struct holds one type. */
    guest_on_signal(SIGSYS_LINUX, (void (*)(int))(void (*)(void))on_sigsys, 1);
    if (guest_streq(guest_arg1(), "blocked")) {
        unsigned long set = 1ul << (SIGSYS_LINUX - 1);
        guest_sys(NR_rt_sigprocmask_LINUX, SIG_BLOCK_LINUX, (long)&set, 0, 8, 0, 0);
    }
    guest_no_new_privs();
    guest_put_result("install", INSTALL(trap_getpid));
    guest_put_result("getpid (emulated by the handler)", guest_syscall3(NR_getpid_LINUX, 0, 0, 0));
    return 0;
}
