/* Signals in strict mode (SPEC section 4), static glibc, both ABIs.
 * Handlers installed before strict still run; the handler edits the saved
 * context (resume address, eax/rax = 42) and the return through glibc's
 * restorer must honour the edit:
 *   x86_64: rt frame, rt_sigreturn (15), allowed.
 *   i386 without SA_SIGINFO: sigframe, sigreturn (119), allowed.
 *   i386 with SA_SIGINFO: rt frame, rt_sigreturn (173), SIGKILL after the
 *   handler has run. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
#define AX "%rax"
#define REG_IP_ REG_RIP
#define REG_AX_ REG_RAX
#else
#define AX "%eax"
#define REG_IP_ REG_EIP
#define REG_AX_ REG_EAX
#endif

/* Each fault sits between two labels: *_at faults, *_resume returns eax. */
__asm__(".text\n"
        "do_segv: xor %eax, %eax\n"
        "segv_at: mov (" AX "), %eax\n"
        "segv_resume: ret\n"
        "do_ill: xor %eax, %eax\n"
        "ill_at: ud2\n"
        "ill_resume: ret\n"
        "do_fpe: xor %eax, %eax\n xor %edx, %edx\n xor %ecx, %ecx\n"
        "fpe_at: div %ecx\n"
        "fpe_resume: ret\n"
        "do_trap: mov $7, %eax\n int3\n ret\n"   /* IP is already past int3 */
        "do_rdtsc: xor %eax, %eax\n"
        "rdtsc_at: rdtsc\n"
        "rdtsc_resume: ret\n");
int do_segv(void), do_ill(void), do_fpe(void), do_trap(void), do_rdtsc(void);
extern char segv_at[], segv_resume[], ill_at[], ill_resume[], fpe_at[], fpe_resume[],
    rdtsc_at[], rdtsc_resume[];

static char *resume_to;          /* where the handler sends the task, or NULL */
static volatile sig_atomic_t alarms;

static void say(const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);   /* no system call */
    va_end(ap);
    if (write(1, b, (size_t)n) < 0)
        _exit(97);
}

static void on_siginfo(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    say("handler (SA_SIGINFO) for signal %d, si_code %d\n", sig, si->si_code);
    if (resume_to)
        uc->uc_mcontext.gregs[REG_IP_] = (greg_t)resume_to;
    uc->uc_mcontext.gregs[REG_AX_] = 42;
}

#if !defined(__x86_64__)
/* Without SA_SIGINFO the i386 kernel's sigframe is: return address (the
 * restorer), signal number, struct sigcontext.  With a frame pointer that
 * is ebp+4, ebp+8, ebp+12; editing the sigcontext there edits the frame.
 */
static void on_plain(int sig)
{
    /* volatile: to gcc this is its own dead argument area */
    volatile struct sigcontext *sc =
        (volatile struct sigcontext *)(void *)((char *)__builtin_frame_address(0) + 12);
    say("handler (plain) for signal %d\n", sig);
    if (resume_to)
        sc->eip = (unsigned long)resume_to;
    sc->eax = 42;
}
#endif

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

static void install(int sig, int siginfo)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
#if defined(__x86_64__)
    siginfo = 1;                  /* x86_64 has only rt frames anyway */
#else
    if (!siginfo)
        sa.sa_handler = on_plain;
#endif
    if (siginfo) {
        sa.sa_sigaction = on_siginfo;
        sa.sa_flags = SA_SIGINFO;
    }
    sigaction(sig, &sa, NULL);
}

static void strict(void)
{
    say("prctl = %d\n", prctl(PR_SET_SECCOMP, 1, 0, 0, 0));
}

static int fault_case(int sig, int (*fn)(void), char *resume, int siginfo)
{
    install(sig, siginfo);
    resume_to = resume;
    strict();
    int r = fn();
    say("resumed, eax = %d\n", r);
    syscall(SYS_exit, 0);
    return 1;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (!strcmp(c, "segv"))
        return fault_case(SIGSEGV, do_segv, segv_resume, 0);
    if (!strcmp(c, "segv_siginfo"))   /* i386: SIGKILL after the handler */
        return fault_case(SIGSEGV, do_segv, segv_resume, 1);
    if (!strcmp(c, "ill"))
        return fault_case(SIGILL, do_ill, ill_resume, 0);
    if (!strcmp(c, "fpe"))
        return fault_case(SIGFPE, do_fpe, fpe_resume, 0);
    if (!strcmp(c, "trap"))
        return fault_case(SIGTRAP, do_trap, NULL, 0);
    if (!strcmp(c, "rdtsc"))          /* #GP from the disabled TSC */
        return fault_case(SIGSEGV, do_rdtsc, rdtsc_resume, 0);
    if (!strcmp(c, "segv_nohandler")) {
        strict();
        do_segv();
        say("survived\n");
        return 1;
    }
    if (!strcmp(c, "alarm")) {        /* armed before strict, fires inside */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
        alarm(1);
        strict();
        for (unsigned long long spins = 0; !alarms && spins < (1ULL << 34); spins++)
            ;
        say("alarms seen = %d\n", (int)alarms);
        syscall(SYS_exit, 0);
        return 1;
    }
    say("unknown case\n");
    return 99;
}
