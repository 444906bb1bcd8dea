/* Masks, pending signals, queueing, sigaction flags, siginfo and ucontext
 * contents, and edits of the saved context honoured by sigreturn.
 *
 *   masks CASE
 */
#include "sigtest.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/time.h>

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1u << 31)
#endif

static volatile int order[16], norder;
static volatile int depth, maxdepth, calls;

static void record(int sig)
{
    if (norder < 16)
        order[norder++] = sig;
}

static void rec_plain(int sig) { record(sig); }

static void rec_info(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    record(sig);
    say("  handler: signal %d code %d value %d\n", sig, si->si_code, si->si_value.sival_int);
}

static void show_order(const char *what)
{
    say("%s:", what);
    for (int i = 0; i < norder; i++)
        say(" %d", order[i]);
    say("\n");
    norder = 0;
}

static void block(int sig, int how)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, sig);
    sigprocmask(how, &s, NULL);
}

/* Raises its own signal until it has run three times in all. */
static void nodefer(int sig)
{
    depth++;
    calls++;
    if (depth > maxdepth)
        maxdepth = depth;
    if (calls < 3)
        raise(sig);
    depth--;
}

static void with_mask(int sig)
{
    say("  USR1 handler: raising USR2 (in sa_mask)\n");
    raise(SIGUSR2);
    say("  USR1 handler: returning, USR2 still pending\n");
    (void)sig;
}

static void usr2(int sig)
{
    (void)sig;
    say("  USR2 handler\n");
}

/* raw rt_sigaction: the kernel's own struct, no libc flags added */
struct ksa {
    unsigned long handler, flags, restorer;
    uint64_t mask;
};

static long raw_sigaction(int sig, const void *act, void *old)
{
#if defined(__x86_64__)
    return syscall(SYS_rt_sigaction, sig, act, old, 8);
#else
    return syscall(SYS_rt_sigaction, sig, act, old, 8);
#endif
}

static void show_ctx(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    (void)si;
    sigset_t *m = &uc->uc_sigmask;
    say("  handler for %d: uc_sigmask has USR2 %d, USR1 %d; uc_stack.ss_flags %d\n", sig,
        sigismember(m, SIGUSR2), sigismember(m, SIGUSR1), uc->uc_stack.ss_flags);
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    say("  blocked in the handler: USR1 %d USR2 %d\n", sigismember(&now, SIGUSR1),
        sigismember(&now, SIGUSR2));
}

static char altstack[65536];

static int on_alt(void)
{
    volatile char here;
    return &here >= altstack && &here < altstack + sizeof(altstack);
}

static void alt_handler(int sig)
{
    stack_t cur;
    sigaltstack(NULL, &cur);
    say("  handler %d: on the alternate stack %d, sigaltstack flags %d\n", sig, on_alt(),
        cur.ss_flags);
    stack_t again = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
    errno = 0;
    int r = sigaltstack(&again, NULL);
    say("  changing it while on it: %d errno %d\n", r, errno);
}

/* Register values the handler checks and edits. */
static void edit_regs(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    (void)sig, (void)si;
#if defined(__x86_64__)
    say("  saved r12 %#llx r15 %#llx\n", (unsigned long long)g[REG_R12],
        (unsigned long long)g[REG_R15]);
    g[REG_R12] = 0x1122334455667788ll;
    g[REG_R15] += 1;
    /* the FXSAVE image: xmm3 */
    struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
    say("  saved xmm3 word 0 %#x, fcw %#x, mxcsr %#x\n", fp->_xmm[3].element[0], fp->cwd,
        fp->mxcsr);
    fp->_xmm[3].element[0] = 0xabcdef01;
#else
    say("  saved esi %#x edi %#x\n", (unsigned)g[REG_ESI], (unsigned)g[REG_EDI]);
    g[REG_ESI] = 0x11223344;
    g[REG_EDI] += 1;
    struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
    say("  saved fcw %#lx, status %#lx\n", fp->cw & 0xffff, fp->status & 0xffff);
#endif
    /* What the handler itself runs with: the FPU as Linux starts it. */
    unsigned short cw;
    unsigned int mx;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    __asm__ volatile("stmxcsr %0" : "=m"(mx));
    say("  handler fcw %#x mxcsr %#x\n", cw, mx);
    /* clobber what the frame must restore */
    __asm__ volatile("pxor %%xmm3, %%xmm3\n fninit" ::: "xmm3");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];

    CASE("pending")
    {
        on_plain(SIGUSR1, rec_plain, 0);
        block(SIGUSR1, SIG_BLOCK);
        raise(SIGUSR1);
        sigset_t p;
        sigpending(&p);
        say("blocked and raised: pending %d, handled %d\n", sigismember(&p, SIGUSR1), norder);
        block(SIGUSR1, SIG_UNBLOCK);
        say("after unblocking: handled %d\n", norder);
        sigpending(&p);
        say("pending now %d\n", sigismember(&p, SIGUSR1));
        return 0;
    }
    CASE("coalesce")
    {
        on_plain(SIGUSR1, rec_plain, 0);
        block(SIGUSR1, SIG_BLOCK);
        raise(SIGUSR1);
        raise(SIGUSR1);
        kill(getpid(), SIGUSR1);
        block(SIGUSR1, SIG_UNBLOCK);
        show_order("a standard signal raised 3 times while blocked, delivered");
        return 0;
    }
    CASE("rt-queue")
    {
        int rt = SIGRTMIN + 1;
        on(rt, rec_info, 0);
        block(rt, SIG_BLOCK);
        for (int i = 1; i <= 3; i++)
            sigqueue(getpid(), rt, (union sigval){ .sival_int = i * 10 });
        block(rt, SIG_UNBLOCK);
        show_order("a real-time signal queued 3 times, delivered");
        return 0;
    }
    CASE("order")
    {
        int sigs[] = { SIGRTMIN + 2, SIGUSR2, SIGTERM, SIGUSR1, SIGHUP };
        sigset_t all;
        sigemptyset(&all);
        for (int i = 0; i < 5; i++) {
            on_plain(sigs[i], rec_plain, 0);
            sigaddset(&all, sigs[i]);
        }
        sigprocmask(SIG_BLOCK, &all, NULL);
        for (int i = 0; i < 5; i++)
            raise(sigs[i]);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        /* lowest first, each in a new frame: the handlers run in reverse */
        show_order("handlers ran in the order");
        return 0;
    }
    CASE("nodefer")
    {
        on_plain(SIGUSR1, nodefer, SA_NODEFER);
        raise(SIGUSR1);
        say("SA_NODEFER: %d runs nested to depth %d\n", calls, maxdepth);
        maxdepth = depth = calls = 0;
        on_plain(SIGUSR1, nodefer, 0);
        raise(SIGUSR1);
        say("without it: %d runs, one after the other: depth %d\n", calls, maxdepth);
        return 0;
    }
    CASE("resethand")
    {
        on_plain(SIGUSR1, rec_plain, SA_RESETHAND);
        raise(SIGUSR1);
        struct sigaction old;
        sigaction(SIGUSR1, NULL, &old);
        say("after one delivery the handler is %s, flags have SA_RESETHAND %d\n",
            old.sa_handler == SIG_DFL ? "SIG_DFL" : "still set", !!(old.sa_flags & SA_RESETHAND));
        raise(SIGUSR1); /* now the default: death by SIGUSR1 */
        say("not reached\n");
        return 0;
    }
    CASE("sa-mask")
    {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = with_mask;
        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, SIGUSR2);
        sigaction(SIGUSR1, &sa, NULL);
        on_plain(SIGUSR2, usr2, 0);
        raise(SIGUSR1);
        say("back in main\n");
        return 0;
    }
    CASE("flags")
    {
        struct ksa act = { (unsigned long)rec_plain,
                           SA_RESTART | SA_ONSTACK | 0x400 /* SA_UNSUPPORTED */ | 0x100000,
                           0, (1ull << (SIGKILL - 1)) | (1ull << (SIGUSR2 - 1)) };
        struct ksa old;
        long r = raw_sigaction(SIGUSR1, &act, NULL);
        r |= raw_sigaction(SIGUSR1, NULL, &old);
        say("set %ld: flags read back %#lx, mask %#llx\n", r, old.flags,
            (unsigned long long)old.mask);
        return 0;
    }
    CASE("errors")
    {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = rec_plain;
        errno = 0;
        say("sigaction(0): %d %d\n", sigaction(0, &sa, NULL), errno);
        errno = 0;
        say("sigaction(65): %ld %d\n", raw_sigaction(65, &sa, NULL), errno);
        errno = 0;
        say("sigaction(SIGKILL, act): %d %d\n", sigaction(SIGKILL, &sa, NULL), errno);
        errno = 0;
        say("sigaction(SIGSTOP, act): %d %d\n", sigaction(SIGSTOP, &sa, NULL), errno);
        errno = 0;
        say("sigaction(SIGKILL, NULL, old): %d %d\n", sigaction(SIGKILL, NULL, &old), errno);
        errno = 0;
        say("rt_sigaction sigsetsize 4: %ld %d\n",
            syscall(SYS_rt_sigaction, SIGUSR1, NULL, &old, 4), errno);
        sigset_t s;
        sigemptyset(&s);
        errno = 0;
        say("sigprocmask(how 7): %ld %d\n", syscall(SYS_rt_sigprocmask, 7, &s, NULL, 8), errno);
        errno = 0;
        say("sigprocmask(how 7, NULL): %ld %d\n",
            syscall(SYS_rt_sigprocmask, 7, NULL, &s, 8), errno);
        errno = 0;
        say("sigprocmask sigsetsize 16: %ld %d\n",
            syscall(SYS_rt_sigprocmask, SIG_BLOCK, &s, NULL, 16), errno);
        errno = 0;
        say("rt_sigpending sigsetsize 16: %ld %d\n", syscall(SYS_rt_sigpending, &s, 16), errno);
        errno = 0;
        say("kill(self, 65): %d %d\n", kill(getpid(), 65), errno);
        errno = 0;
        say("kill(self, 0): %d %d\n", kill(getpid(), 0), errno);
        errno = 0;
        say("kill(0, 0): %d %d\n", kill(0, 0), errno);
        errno = 0;
        say("tkill(-1): %ld %d\n", syscall(SYS_tkill, -1, SIGUSR1), errno);
        errno = 0;
        say("tgkill(0, self): %ld %d\n", syscall(SYS_tgkill, 0, getpid(), SIGUSR1), errno);
        errno = 0;
        say("tgkill(self, self, 99): %ld %d\n", syscall(SYS_tgkill, getpid(), getpid(), 99),
            errno);
        /* blocking SIGKILL and SIGSTOP is silently refused */
        sigfillset(&s);
        sigprocmask(SIG_SETMASK, &s, NULL);
        sigprocmask(SIG_SETMASK, NULL, &s);
        say("all blocked: SIGKILL %d SIGSTOP %d SIGUSR1 %d\n", sigismember(&s, SIGKILL),
            sigismember(&s, SIGSTOP), sigismember(&s, SIGUSR1));
        stack_t ss = { .ss_sp = altstack, .ss_size = 100 };
        errno = 0;
        say("sigaltstack size 100: %d %d\n", sigaltstack(&ss, NULL), errno);
        ss.ss_size = sizeof(altstack);
        ss.ss_flags = 77;
        errno = 0;
        say("sigaltstack flags 77: %d %d\n", sigaltstack(&ss, NULL), errno);
        return 0;
    }
    CASE("siginfo")
    {
        on(SIGUSR1, rec_info, 0);
        on(SIGALRM, rec_info, 0);
        kill(getpid(), SIGUSR1);
        syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
        syscall(SYS_tkill, getpid(), SIGUSR1);
        sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_int = 77 });
        block(SIGALRM, SIG_BLOCK);
        alarm(1);
        sigset_t s;
        sigemptyset(&s);
        sigsuspend(&s);
        show_order("delivered");
        return 0;
    }
    CASE("ucontext")
    {
        on(SIGUSR1, show_ctx, 0);
        block(SIGUSR2, SIG_BLOCK);
        raise(SIGUSR1);
        sigset_t now;
        sigprocmask(SIG_BLOCK, NULL, &now);
        say("after return: USR2 blocked %d, USR1 blocked %d\n", sigismember(&now, SIGUSR2),
            sigismember(&now, SIGUSR1));
        return 0;
    }
    CASE("altstack")
    {
        stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) }, cur;
        sigaltstack(&ss, NULL);
        sigaltstack(NULL, &cur);
        say("registered: flags %d size ok %d\n", cur.ss_flags, cur.ss_size == sizeof(altstack));
        on_plain(SIGUSR1, alt_handler, SA_ONSTACK);
        raise(SIGUSR1);
        on_plain(SIGUSR2, alt_handler, 0);
        raise(SIGUSR2);
        ss.ss_flags = SS_DISABLE;
        sigaltstack(&ss, NULL);
        sigaltstack(NULL, &cur);
        say("disabled: flags %d\n", cur.ss_flags);
        raise(SIGUSR1);
        return 0;
    }
    CASE("autodisarm")
    {
        stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack),
                       .ss_flags = SS_AUTODISARM }, cur;
        sigaltstack(&ss, NULL);
        on_plain(SIGUSR1, alt_handler, SA_ONSTACK);
        raise(SIGUSR1);
        sigaltstack(NULL, &cur);
        say("after the handler: flags %#x\n", cur.ss_flags);
        return 0;
    }
    CASE("regs")
    {
        on(SIGUSR1, edit_regs, 0);
        long pid = getpid(), nr = SYS_kill, sig = SIGUSR1;
#if defined(__x86_64__)
        uint64_t r12 = 0x1234, r15 = 0x5678;
        uint32_t x3 = 0;
        __asm__ volatile("mov %[a], %%r12\n mov %[b], %%r15\n"
                         "movd %[m], %%xmm3\n"
                         "syscall\n"
                         "mov %%r12, %[a]\n mov %%r15, %[b]\n movd %%xmm3, %[x]\n"
                         : [a] "+r"(r12), [b] "+r"(r15), [x] "=r"(x3), "+a"(nr)
                         : "D"(pid), "S"(sig), [m] "r"(0x99u)
                         : "rcx", "r11", "r12", "r15", "xmm3", "memory");
        say("after return: r12 %#llx r15 %#llx xmm3 %#x\n", (unsigned long long)r12,
            (unsigned long long)r15, x3);
#else
        uint32_t esi = 0x1234, edi = 0x5678;
        double d = 1.5, out;
        __asm__ volatile("fldl %[d]\n"
                         "push %%ebx\n mov %[p], %%ebx\n"
                         "int $0x80\n"
                         "pop %%ebx\n"
                         "fstpl %[o]\n"
                         : "+S"(esi), "+D"(edi), "+a"(nr), [o] "=m"(out)
                         : [p] "r"(pid), "c"(sig), [d] "m"(d)
                         : "memory");
        say("after return: esi %#x edi %#x, x87 stack kept %g\n", esi, edi, out);
#endif
        return 0;
    }
    CASE("norestorer")
    {
        /* No SA_RESTORER: i386 returns through the vDSO's sigreturn; x86_64
         * has none, and the kernel refuses to build the frame. */
        struct ksa act = { (unsigned long)rec_plain, 0, 0, 0 };
        raw_sigaction(SIGUSR1, &act, NULL);
        raise(SIGUSR1);
        show_order("returned through the vDSO after");
        return 0;
    }
    CASE("ignore-pending")
    {
        on_plain(SIGUSR1, rec_plain, 0);
        block(SIGUSR1, SIG_BLOCK);
        raise(SIGUSR1);
        signal(SIGUSR1, SIG_IGN); /* discards the pending one */
        sigset_t p;
        sigpending(&p);
        say("pending after SIG_IGN: %d\n", sigismember(&p, SIGUSR1));
        on_plain(SIGUSR1, rec_plain, 0);
        block(SIGUSR1, SIG_UNBLOCK);
        show_order("delivered");
        /* ignored by default, pending while blocked, then dropped */
        block(SIGCHLD, SIG_BLOCK);
        raise(SIGCHLD);
        sigpending(&p);
        say("SIGCHLD pending while blocked: %d\n", sigismember(&p, SIGCHLD));
        block(SIGCHLD, SIG_UNBLOCK);
        raise(SIGWINCH);
        raise(SIGURG);
        say("default-ignored signals did nothing\n");
        return 0;
    }
    CASE("abort-handler")
    {
        on_plain(SIGABRT, rec_plain, 0);
        abort();
    }
    CASE("abort") abort();
    CASE("kill-term") kill(getpid(), SIGTERM);
    CASE("kill-kill") kill(getpid(), SIGKILL);
    CASE("inherited")
    {
        /* What the parent left (sigdiff --parent-ignore/--parent-block):
         * Linux keeps ignores and the mask across execve. */
        sigset_t m, p;
        sigprocmask(SIG_BLOCK, NULL, &m);
        say("ignored:");
        for (int sig = 1; sig < 32; sig++) {
            struct sigaction sa;
            if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
                say(" %d", sig);
        }
        say("\nblocked:");
        for (int sig = 1; sig < 32; sig++)
            if (sigismember(&m, sig))
                say(" %d", sig);
        say("\n");
        raise(SIGXFSZ); /* ignored by the parent: nothing happens */
        raise(SIGPIPE);
        raise(SIGUSR1); /* blocked by the parent: waits */
        sigpending(&p);
        say("after raising: pending USR1 %d XFSZ %d PIPE %d\n", sigismember(&p, SIGUSR1),
            sigismember(&p, SIGXFSZ), sigismember(&p, SIGPIPE));
        block(SIGUSR1, SIG_UNBLOCK); /* the default action: death by SIGUSR1 */
        say("survived unblocking\n");
        return 0;
    }
    CASE("raise-usr2") raise(SIGUSR2);
    CASE("raise-rt") raise(SIGRTMIN + 3);
    CASE("raise-xfsz") raise(SIGXFSZ);
    CASE("raise-stop-ignored")
    {
        /* stop signals are ignored here (no job control): not compared */
        return 0;
    }
    say("still alive\n");
    return 0;
}
