#include "emu/signal.h"

#include "abi/linux.h"
#include "emu/observe.h"
#include "emu/sys.h"

const char *signal_name(int sig)
{
    static const char *const names[] = {
        [SIGHUP_LINUX] = "SIGHUP",   [SIGINT_LINUX] = "SIGINT",   [SIGQUIT_LINUX] = "SIGQUIT",
        [SIGILL_LINUX] = "SIGILL",   [SIGTRAP_LINUX] = "SIGTRAP", [SIGABRT_LINUX] = "SIGABRT",
        [SIGBUS_LINUX] = "SIGBUS",   [SIGFPE_LINUX] = "SIGFPE",   [SIGKILL_LINUX] = "SIGKILL",
        [SIGUSR1_LINUX] = "SIGUSR1", [SIGSEGV_LINUX] = "SIGSEGV", [SIGUSR2_LINUX] = "SIGUSR2",
        [SIGPIPE_LINUX] = "SIGPIPE", [SIGALRM_LINUX] = "SIGALRM", [SIGTERM_LINUX] = "SIGTERM",
        [SIGSYS_LINUX] = "SIGSYS",
    };
    if (sig > 0 && sig < (int)G_N_ELEMENTS(names) && names[sig])
        return names[sig];
    return "signal";
}

static const char *fault_text(int sig, int code)
{
    switch (sig) {
    case SIGSEGV_LINUX:
        return code == SEGV_MAPERR_LINUX   ? "access to unmapped memory"
               : code == SEGV_ACCERR_LINUX ? "access violating the memory protection"
                                           : "general protection fault";
    case SIGILL_LINUX:
        return "invalid instruction";
    case SIGFPE_LINUX:
        return "divide error";
    case SIGTRAP_LINUX:
        return "breakpoint";
    case SIGBUS_LINUX:
        return "bus error";
    default:
        return "fault";
    }
}

void signal_fault(struct task *t, int sig, int si_code, uint64_t addr)
{
    observe_signal(t, &(struct signal_event){ .what = SIGNAL_FAULT, .sig = sig,
                                              .si_code = si_code, .addr = addr });
    task_kill(t, sig,
              g_strdup_printf("killed by %s: %s at 0x%" G_GINT64_MODIFIER "x", signal_name(sig),
                              fault_text(sig, si_code), addr));
}

void signal_post(struct task *t, int sig)
{
    observe_signal(t, &(struct signal_event){ .what = SIGNAL_SENT, .sig = sig });
    /* Every signal the kernel sends here (SIGPIPE) terminates by default. */
    task_kill(t, sig, g_strdup_printf("killed by %s: write to a pipe or socket with no reader",
                                      signal_name(sig)));
}

/* Without handlers there is no frame to return through: the kernel finds
 * garbage where the frame should be and the task dies of SIGSEGV. */
static int64_t no_frame(struct task *t)
{
    task_kill(t, SIGSEGV_LINUX,
              g_strdup("killed by SIGSEGV: sigreturn without a signal frame"));
    return 0;
}

SYS(rt_sigreturn) { (void)a; return no_frame(t); }
SYS(sigreturn) { (void)a; return no_frame(t); }
