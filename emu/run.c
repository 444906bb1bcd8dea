#include "emu/run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include <unistd.h>

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/entry/exception.h"
#include "emu/entry/fault.h"
#include "emu/entry/insn_emul.h"
#include "emu/entry/trap.h"
#include "emu/kernel/async.h"
#include "emu/kernel/exit.h"
#include "emu/kernel/limits.h"
#include "emu/kernel/observe.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"
#include "emu/xlat.h"

/* The engine stopped: take what the timer thread and host signals
 * posted, then signal_resume() (*pc, *retry as it says). */
static err_t deliver_pending(struct task *t, uint64_t *pc, bool *retry)
{
    async_take(t);
    return signal_resume(t, pc, retry);
}

err_t run_guest(struct task *t, uint64_t start)
{
    uint64_t pc = start;
    err_t err;
    while (t->state == TASK_RUNNING) {
        /* A preemption point: the time slice (or the rr count) is spent
         * and another task is runnable. */
        if (sched_need_resched()) {
            sched_yield_cpu(t);
            if (t->state != TASK_RUNNING)
                break;
            /* What came in meanwhile is seen before the next instruction. */
            bool retry;
            if ((err = deliver_pending(t, &pc, &retry)))
                return err;
            if (t->state != TASK_RUNNING)
                break;
        }
        if ((err = limits_before_run(t)))
            return err;
        if ((err = fault_before_run(t)))
            return err;
        /* In parallel, guest code runs outside the kernel lock. */
        sched_kernel_leave(t);
        uc_err e = cpu_emu_start(t->cpu, pc, t->mm->layout.halt);
        sched_kernel_enter(t);
        if ((err = limits_after_run(t)))
            return err;
        if (t->state != TASK_RUNNING)
            break;
        /* The engine stops before it fetches from the halt stub, so user
         * code that goes there is faulted here, as anywhere on that page. */
        if (e == UC_ERR_OK && cpu_pc(t->cpu) == t->mm->layout.halt)
            fault_user_kernel_page(t, t->mm->layout.halt);
        /* A fault a hook raised already, a precise page fault, or one that
         * only the engine's error reports (an instruction emulated on #UD
         * just goes on). */
        if (e != UC_ERR_OK && !signal_fault_raised(t) && !fault_take(t, e) &&
            !(e == UC_ERR_INSN_INVALID && insn_emulate_invalid(t, cpu_pc(t->cpu))))
            exception_engine_error(t, e, cpu_pc(t->cpu));
        if (t->state != TASK_RUNNING)
            break;
        /* A call the trap path left for here (it may wait, with the engine
         * free for the other tasks on it). */
        if (t->deferred.active) {
            trap_finish_deferred(t);
            if (t->state != TASK_RUNNING)
                break;
        }
        /* Signals are delivered only here, with the engine stopped. */
        bool retry;
        if ((err = deliver_pending(t, &pc, &retry)))
            return err;
        /* Handlers entered and left, sigreturn: the mask may have changed. */
        if ((err = async_job_control(t)))
            return err;
        if (retry)
            async_rekick();
    }
    return OK;
}

void run_task_body(struct task *t)
{
    err_t e = run_guest(t, cpu_pc(t->cpu));
    if (e) {
        fprintf(stderr, "seccomp-emu: %s\n", e);
        _exit(EXIT_CANNOT_RUN);
    }
    exit_task(t);
}

G_NORETURN void exit_like_guest(struct task *t, int status, const char *reason)
{
    /* The end the observers see is the first process's, told by its
     * leader. */
    if ((status & 0x7f) == 0) {
        t->state = TASK_EXITED;
        t->exit_code = (status >> 8) & 0xff;
    } else {
        t->state = TASK_SIGNALED;
        t->signo = status & 0x7f;
        if (reason && reason != t->reason) {
            g_free(t->reason);
            t->reason = g_strdup(reason);
        }
    }
    observe_end(t);
    fflush(stdout);
    if (t->state == TASK_EXITED)
        _exit(t->exit_code);
    if (!t->quiet && t->reason)
        fprintf(stderr, "seccomp-emu: %s\n", t->reason);
    fflush(stderr);
    int sig = xlat_signal_to_host(t->signo);
    if (!sig)
        sig = SIGKILL; /* no host equivalent: still a death by signal */
    /* No core file of seccomp-emu itself: the guest's death is not ours. */
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
#if defined(__linux__)
    /* glibc's signal() refuses, and its sigprocmask() and raise() filter,
     * the signals it reserves (32 and 33): a guest killed by one of those
     * must still die by it, so ask the kernel directly.  All zeros is
     * SIG_DFL with no flags and no mask whatever the arch's layout. */
    unsigned long dfl[8] = { 0 };
    syscall(SYS_rt_sigaction, sig, dfl, NULL, 8);
    unsigned long long bit = 1ULL << (sig - 1);
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &bit, NULL, 8);
    syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), sig);
#endif
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + t->signo); /* not reached unless the signal was ignored */
}
