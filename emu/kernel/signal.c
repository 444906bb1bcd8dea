#include "emu/kernel/signal.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "abi/signal_names.h"
#include "emu/kernel/rseq.h"
#include "emu/kernel/sigframe.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/observe.h"
#include "emu/kernel/sched.h"
#include "emu/xlat.h"

/* The standard signals whose default action is to ignore them.  The stop
 * signals are ignored too when the emulated kernel delivers them (the guest
 * sending them to itself): a stop sent from outside stops seccomp-emu
 * through the host kernel itself (async_job_control), and a guest that
 * could stop itself would stop --timeout with it. */
#define IGNORE_MASK                                                                            \
    (SIGMASK_LINUX(SIGCHLD_LINUX) | SIGMASK_LINUX(SIGCONT_LINUX) | SIGMASK_LINUX(SIGURG_LINUX) | \
     SIGMASK_LINUX(SIGWINCH_LINUX) | SIGMASK_LINUX(SIGSTOP_LINUX) | SIGMASK_LINUX(SIGTSTP_LINUX) | \
     SIGMASK_LINUX(SIGTTIN_LINUX) | SIGMASK_LINUX(SIGTTOU_LINUX))
/* The faults the kernel dequeues before anything else. */
#define SYNCHRONOUS_MASK                                                                       \
    (SIGMASK_LINUX(SIGSEGV_LINUX) | SIGMASK_LINUX(SIGBUS_LINUX) | SIGMASK_LINUX(SIGILL_LINUX) | \
     SIGMASK_LINUX(SIGTRAP_LINUX) | SIGMASK_LINUX(SIGFPE_LINUX) | SIGMASK_LINUX(SIGSYS_LINUX))
#define UNBLOCKABLE (SIGMASK_LINUX(SIGKILL_LINUX) | SIGMASK_LINUX(SIGSTOP_LINUX))
#define STOP_MASK                                                                              \
    (SIGMASK_LINUX(SIGSTOP_LINUX) | SIGMASK_LINUX(SIGTSTP_LINUX) | SIGMASK_LINUX(SIGTTIN_LINUX) | \
     SIGMASK_LINUX(SIGTTOU_LINUX))
/* RLIMIT_SIGPENDING is per user and large; a bound keeps a flood of
 * real-time signals from growing the emulator without limit. */
#define MAX_QUEUED 4096

const char *signal_name(int sig)
{
    const char *name = signal_name_linux(sig);
    if (name)
        return name;
    return sig >= SIGRTMIN_LINUX && sig <= NSIG_LINUX_ALL ? "a real-time signal" : "signal";
}

/* Linux signal numbers to the host's: they differ on macOS and the BSDs. */
/* Linux keeps ignored signals ignored, and the signal mask, across
 * execve, so a guest inherits both from whoever started seccomp-emu (a
 * shell's `trap '' PIPE`, a supervisor that ignores SIGXFSZ).  Read first
 * thing in main: GLib ignores SIGPIPE itself once GSocket is set up
 * (--fd), and seccomp-emu sets actions of its own (async.c, main). */
static struct {
    uint64_t ignored, blocked;
} inherited;

void signal_read_inherited(void)
{
    sigset_t mask;
    bool have_mask = pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0;
    for (int sig = 1; sig <= NSIG_LINUX_ALL; sig++) {
        int h = xlat_signal_to_host(sig);
        if (!h || sig == SIGKILL_LINUX || sig == SIGSTOP_LINUX)
            continue;
        struct sigaction old;
        if (sigaction(h, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
            old.sa_handler == SIG_IGN)
            inherited.ignored |= SIGMASK_LINUX(sig);
        if (have_mask && sigismember(&mask, h) == 1)
            inherited.blocked |= SIGMASK_LINUX(sig);
    }
}

err_t signal_setup(struct task *t)
{
    struct sigstate *s = &t->sig;
    GArray *queue = s->pending.queue;
    memset(s, 0, sizeof(*s));
    s->pending.queue = queue;
    for (int sig = 1; sig <= NSIG_LINUX_ALL; sig++)
        if (inherited.ignored & SIGMASK_LINUX(sig))
            t->sighand->action[sig].handler = SIG_IGN_LINUX;
    s->blocked = inherited.blocked;
    /* No alternate stack: size 0; the flags a frame records are 0 until
     * sigaltstack(2) sets them. */
    s->ss_flags = 0;
    /* Unicorn starts the FPU zeroed (FCW 0: all exceptions unmasked,
     * single precision); Linux starts every program from fpstate_init. */
    uctx_fpu_reset(t->cpu);
    return OK;
}

static bool handler_ignored(const struct ksigaction *ka, int sig)
{
    return ka->handler == SIG_IGN_LINUX ||
           (ka->handler == SIG_DFL_LINUX && (IGNORE_MASK & SIGMASK_LINUX(sig)));
}

uint64_t signal_pending_set(const struct task *t)
{
    return t->sig.pending.set | t->group->shared_pending.set;
}

/* The thread's own pending set, or its process's. */
static struct sigpending *pending_of(struct task *t, bool shared)
{
    return shared ? &t->group->shared_pending : &t->sig.pending;
}

/* The next signal of one pending set next_signal() would take:
 * synchronous faults first, then the lowest number; 0 if none. */
static int next_signal(uint64_t pending, uint64_t blocked)
{
    uint64_t x = pending & ~blocked;
    if (!x)
        return 0;
    if (x & SYNCHRONOUS_MASK)
        x &= SYNCHRONOUS_MASK;
    return __builtin_ctzll(x) + 1;
}

bool signal_deliverable(struct task *t)
{
    uint64_t x = signal_pending_set(t) & ~t->sig.blocked;
    for (int sig = 1; x; sig++, x >>= 1)
        if ((x & 1) && !handler_ignored(&t->sighand->action[sig], sig))
            return true;
    return false;
}

/* collect_signal(): the first queued instance of `sig` in one set. */
static void collect(struct sigpending *p, int sig, bool shared, struct ksiginfo *info)
{
    bool found = false, more = false;
    for (guint i = 0; i < p->queue->len; i++) {
        struct ksiginfo *q = &g_array_index(p->queue, struct ksiginfo, i);
        if (q->signo != sig)
            continue;
        if (!found) {
            *info = *q;
            g_array_remove_index(p->queue, i);
            found = true;
            i--;
        } else {
            more = true;
            break;
        }
    }
    if (!found)
        *info = (struct ksiginfo){ .signo = sig, .code = SI_KERNEL_LINUX, .shared = shared };
    /* posixtimer_rearm(): what timer_getoverrun() reports from now on */
    if (info->overrun_last)
        *info->overrun_last = info->overrun;
    if (!more)
        p->set &= ~SIGMASK_LINUX(sig);
}

int signal_dequeue(struct task *t, uint64_t allowed, struct ksiginfo *info)
{
    struct sigpending *own = &t->sig.pending, *shared = &t->group->shared_pending;
    uint64_t blocked = ~allowed;
    /* dequeue_synchronous_signal(): the first fault the thread queued */
    if (own->set & allowed & SYNCHRONOUS_MASK) {
        for (guint i = 0; i < own->queue->len; i++) {
            const struct ksiginfo *q = &g_array_index(own->queue, struct ksiginfo, i);
            if (q->code > SI_USER_LINUX && (SIGMASK_LINUX(q->signo) & allowed) &&
                (SIGMASK_LINUX(q->signo) & SYNCHRONOUS_MASK)) {
                int sig = q->signo;
                collect(own, sig, false, info);
                return sig;
            }
        }
    }
    int sig = next_signal(own->set, blocked);
    if (sig) {
        collect(own, sig, false, info);
        return sig;
    }
    sig = next_signal(shared->set, blocked);
    if (sig)
        collect(shared, sig, true, info);
    return sig;
}

static void flush_from(struct sigpending *p, int sig)
{
    for (guint i = p->queue->len; i-- > 0;)
        if (g_array_index(p->queue, struct ksiginfo, i).signo == sig)
            g_array_remove_index(p->queue, i);
    p->set &= ~SIGMASK_LINUX(sig);
}

void signal_flush(struct task *t, int sig)
{
    flush_from(&t->sig.pending, sig);
    flush_from(&t->group->shared_pending, sig);
}

bool signal_fault_raised(struct task *t) { return t->sig.fault_raised; }

static void queue(struct task *t, const struct ksiginfo *info)
{
    int sig = info->signo;
    struct sigpending *p = pending_of(t, info->shared);
    /* legacy_queue(): a standard signal is pending at most once per set. */
    if (sig < SIGRTMIN_LINUX && (p->set & SIGMASK_LINUX(sig)))
        return;
    if (p->queue->len >= MAX_QUEUED && sig >= SIGRTMIN_LINUX)
        return;
    g_array_append_val(p->queue, *info);
    p->set |= SIGMASK_LINUX(sig);
}

/* signal_wake_up(): the task looks at its signals soon.  The task holding
 * the CPU (the caller) stops its engine; another wakes if it sleeps, and
 * a queued one looks when its turn comes. */
static void wake_up(struct task *t)
{
    if (t == sched_current()) {
        if (signal_deliverable(t) && t->cpu)
            uc_emu_stop(t->cpu->uc);
        return;
    }
    sched_wake(t);
}

/* wants_signal(): a thread that can take a process's signal now. */
static bool wants_signal(const struct task *t, int sig)
{
    if (t->sig.blocked & SIGMASK_LINUX(sig))
        return false;
    if (t->state != TASK_RUNNING || t->exited)
        return false;
    if (sig == SIGKILL_LINUX)
        return true;
    /* task_curr() || !task_sigpending(): one already told of a signal
     * (other than this one, just queued) is left for another thread. */
    return t == sched_current() ||
           !(t->sig.pending.set & ~t->sig.blocked & ~SIGMASK_LINUX(sig));
}

static char *death_reason(int sig, const struct ksiginfo *info);

/* The signals whose default action dumps core (sig_kernel_coredump):
 * those die in get_signal() on the thread that takes them. */
#define COREDUMP_MASK                                                                          \
    (SIGMASK_LINUX(SIGQUIT_LINUX) | SIGMASK_LINUX(SIGILL_LINUX) | SIGMASK_LINUX(SIGTRAP_LINUX) | \
     SIGMASK_LINUX(SIGABRT_LINUX) | SIGMASK_LINUX(SIGBUS_LINUX) | SIGMASK_LINUX(SIGFPE_LINUX) |   \
     SIGMASK_LINUX(SIGSEGV_LINUX) | SIGMASK_LINUX(SIGXCPU_LINUX) | SIGMASK_LINUX(SIGXFSZ_LINUX) | \
     SIGMASK_LINUX(SIGSYS_LINUX))

/* complete_signal(): which thread of the process takes a signal queued on
 * the process.  The target itself if it can, else the next thread that
 * can, from where the last search stopped (a signal sent to one thread
 * goes to it alone); a fatal signal nobody handles starts the process's
 * exit at once, whichever thread it was sent to (tgkill included). */
static void complete_signal(struct task *p, const struct ksiginfo *info)
{
    int sig = info->signo;
    struct thread_group *g = p->group;
    struct task *t = NULL;
    if (wants_signal(p, sig))
        t = p;
    else if (!info->shared) {
        /* Sent to this thread, which does not want it now: it looks at
         * its signals soon, whatever it is doing. */
        wake_up(p);
        return;
    } else {
        unsigned n = g_queue_get_length(&g->threads);
        for (unsigned k = 0; k < n && !t; k++) {
            struct task *c = g_queue_peek_nth(&g->threads, (g->curr_target + k) % n);
            if (wants_signal(c, sig)) {
                t = c;
                g->curr_target = (g->curr_target + k) % n;
            }
        }
    }
    if (!t)
        return;
    const struct ksigaction *ka = &t->sighand->action[sig];
    /* The task on the CPU meets it at its next stop (a call it is making
     * returns first), as everywhere else. */
    if (ka->handler == SIG_DFL_LINUX && !(IGNORE_MASK & SIGMASK_LINUX(sig)) &&
        !(COREDUMP_MASK & SIGMASK_LINUX(sig)) && !g->exiting && t != sched_current()) {
        task_kill(t, sig, death_reason(sig, info));
        return;
    }
    wake_up(t);
}

void signal_send(struct task *t, const struct ksiginfo *info, const char *why)
{
    struct sigstate *s = &t->sig;
    int sig = info->signo;
    struct ksiginfo copy = *info;
    copy.why = why;
    if (t->exited)
        return; /* an exited task has no signal state left */
    if (sig == SIGKILL_LINUX) {
        task_kill(t, SIGKILL_LINUX, death_reason(sig, &copy));
        return;
    }
    /* prepare_signal(): a stop signal discards a pending SIGCONT, and
     * SIGCONT every pending stop signal, blocked or not. */
    if (STOP_MASK & SIGMASK_LINUX(sig))
        signal_flush(t, SIGCONT_LINUX);
    else if (sig == SIGCONT_LINUX)
        for (int stop = 1; stop <= NSIG_LINUX_ALL; stop++)
            if (STOP_MASK & SIGMASK_LINUX(stop))
                signal_flush(t, stop);
    /* Ignored and not blocked: discarded at once (prepare_signal). */
    if (!(s->blocked & SIGMASK_LINUX(sig)) && handler_ignored(&t->sighand->action[sig], sig))
        return;
    if (t->group->exiting)
        return; /* a dying process takes no more signals */
    queue(t, &copy);
    complete_signal(t, &copy);
}

void signal_send_timer(struct task *t, const struct ksiginfo *info, uint32_t more)
{
    int sig = info->signo;
    if (!(t->sig.blocked & SIGMASK_LINUX(sig)) && handler_ignored(&t->sighand->action[sig], sig))
        return;
    struct sigpending *p = pending_of(t, info->shared);
    for (guint i = 0; i < p->queue->len; i++) {
        struct ksiginfo *q = &g_array_index(p->queue, struct ksiginfo, i);
        if (q->code == SI_TIMER_LINUX && q->overrun_last == info->overrun_last) {
            int64_t n = (int64_t)q->overrun + 1 + more;
            q->overrun = n > INT32_MAX ? INT32_MAX : (int32_t)n;
            return;
        }
    }
    struct ksiginfo copy = *info;
    copy.overrun = more > INT32_MAX ? INT32_MAX : (int32_t)more;
    g_array_append_val(p->queue, copy);
    p->set |= SIGMASK_LINUX(sig);
    if (signal_deliverable(t))
        uc_emu_stop(t->cpu->uc);
}

static void timer_forget_in(struct sigpending *p, const int32_t *overrun_last)
{
    for (guint i = 0; i < p->queue->len; i++) {
        struct ksiginfo *q = &g_array_index(p->queue, struct ksiginfo, i);
        if (q->overrun_last == overrun_last)
            q->overrun_last = NULL;
    }
}

void signal_timer_forget(struct task *t, const int32_t *overrun_last)
{
    timer_forget_in(&t->sig.pending, overrun_last);
    timer_forget_in(&t->group->shared_pending, overrun_last);
}

void signal_post(struct task *t, int sig)
{
    observe_signal(t, &(struct signal_event){ .what = SIGNAL_SENT, .sig = sig });
    /* send_sig(): to the process, the caller first (PIDTYPE_TGID). */
    struct ksiginfo info = { .signo = sig, .code = SI_USER_LINUX, .pid = t->group->tgid,
                             .uid = (uint32_t)getuid(), .shared = true };
    const char *why = sig == SIGPIPE_LINUX ? "write to a pipe or socket with no reader"
                      : sig == SIGXFSZ_LINUX ? "output limit exceeded (--output-limit)"
                                             : "sent by the kernel";
    signal_send(t, &info, why);
}

void signal_kernel(struct task *t, int sig, const char *why)
{
    /* timers and RLIMIT_CPU signal the process (PIDTYPE_TGID) */
    struct ksiginfo info = { .signo = sig, .code = SI_KERNEL_LINUX, .shared = true };
    signal_send(t, &info, why);
}

void signal_fault_trap(struct task *t, int sig, int si_code, uint64_t addr, int trapno,
                       uint64_t err)
{
    signal_fault_why(t, sig, si_code, addr, trapno, err, NULL);
}

void signal_fault_why(struct task *t, int sig, int si_code, uint64_t addr, int trapno,
                      uint64_t err, const char *why)
{
    struct sigstate *s = &t->sig;
    observe_signal(t, &(struct signal_event){ .what = SIGNAL_FAULT, .sig = sig,
                                              .si_code = si_code, .addr = addr });
    s->fault_raised = true;
    s->trapno = trapno;
    s->err = err;
    if (trapno == X86_TRAP_PF_LINUX)
        s->cr2 = addr;
    /* force_sig_info_to_task(): a fault the task blocks or ignores cannot
     * be held back; its action becomes the default, and it is unblocked. */
    struct ksigaction *ka = &t->sighand->action[sig];
    bool blocked = s->blocked & SIGMASK_LINUX(sig);
    if (blocked || ka->handler == SIG_IGN_LINUX) {
        ka->handler = SIG_DFL_LINUX;
        s->blocked &= ~SIGMASK_LINUX(sig);
    }
    struct ksiginfo info = { .signo = sig, .code = si_code, .addr = addr, .is_fault = true,
                             .trapno = trapno, .err = err, .why = why };
    /* SI_KERNEL faults (#GP, int3) carry no address in the siginfo. */
    if (si_code == SI_KERNEL_LINUX)
        info.addr = 0;
    info.cr2 = addr;
    queue(t, &info);
    uc_emu_stop(t->cpu->uc);
}

void signal_force_seccomp(struct task *t, uint64_t call_addr, int32_t nr, uint32_t arch,
                          int data, const char *why)
{
    struct sigstate *s = &t->sig;
    observe_signal(t, &(struct signal_event){ .what = SIGNAL_SENT, .sig = SIGSYS_LINUX,
                                              .si_code = SYS_SECCOMP_LINUX, .addr = call_addr });
    /* force_sig_info_to_task(HANDLER_CURRENT), as for a fault; the
     * thread's trap number and error code stay what they were. */
    struct ksigaction *ka = &t->sighand->action[SIGSYS_LINUX];
    if ((s->blocked & SIGMASK_LINUX(SIGSYS_LINUX)) || ka->handler == SIG_IGN_LINUX) {
        ka->handler = SIG_DFL_LINUX;
        s->blocked &= ~SIGMASK_LINUX(SIGSYS_LINUX);
    }
    struct ksiginfo info = { .signo = SIGSYS_LINUX, .errno_ = data, .code = SYS_SECCOMP_LINUX,
                             .addr = call_addr, .syscall = nr, .arch = arch, .why = why };
    queue(t, &info);
    uc_emu_stop(t->cpu->uc);
}

void signal_set_blocked(struct task *t, uint64_t mask)
{
    t->sig.blocked = mask & ~UNBLOCKABLE;
    if (signal_deliverable(t))
        uc_emu_stop(t->cpu->uc);
}

void signal_set_return_context(struct task *t, const struct uctx *c)
{
    t->sig.ctx = *c;
    t->sig.ctx_pending = true;
    uc_emu_stop(t->cpu->uc);
}

void signal_syscall_exit(struct task *t, enum entry e, int64_t nr, int64_t result)
{
    struct sigstate *s = &t->sig;
    /* Cleared again when the landing pad runs (trap.c's vDSO hook) or the
     * context is rewritten: see uctx_at_sysexit(). */
    s->sysenter_done = e == ENTRY_SYSENTER32;
    bool restart = result <= -ERESTARTSYS_LINUX && result >= -ERESTARTNOHAND_LINUX;
    if (restart || s->ctx_pending || signal_deliverable(t)) {
        s->after_call = true;
        s->entry = e;
        s->nr = nr;
        uc_emu_stop(t->cpu->uc);
    }
}

void signal_syscall_exit_answer(struct task *t, enum entry e, int64_t nr, int64_t result)
{
    bool restart_code = result <= -ERESTARTSYS_LINUX && result >= -ERESTARTNOHAND_LINUX;
    signal_syscall_exit(t, e, nr, restart_code && !signal_deliverable(t) ? 0 : result);
}

/* ---- delivery ---- */

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

static char *death_reason(int sig, const struct ksiginfo *info)
{
    const char *name = signal_name(sig);
    if (info->is_fault && info->why)
        return g_strdup_printf("killed by %s: %s at 0x%" G_GINT64_MODIFIER "x (%s)", name,
                               fault_text(sig, info->code), info->cr2, info->why);
    if (info->is_fault)
        return g_strdup_printf("killed by %s: %s at 0x%" G_GINT64_MODIFIER "x", name,
                               fault_text(sig, info->code), info->cr2);
    if (info->why)
        return g_strdup_printf("killed by %s: %s", name, info->why);
    if (info->code == SI_USER_LINUX || info->code == SI_TKILL_LINUX ||
        info->code == SI_QUEUE_LINUX) {
        if (info->from_guest)
            return g_strdup_printf("killed by %s: sent by the guest to itself", name);
        return g_strdup_printf("killed by %s: sent to seccomp-emu by process %d", name,
                               (int)info->pid);
    }
    return g_strdup_printf("killed by %s", name);
}

/* The interrupted call's result, as the frame or the resumed code sees
 * it: restarted (ip back on the call, ax the number again) or -EINTR. */
static void fix_restart(struct task *t, struct uctx *r, const struct ksigaction *ka)
{
    struct sigstate *s = &t->sig;
    int64_t ret = t->is64 && s->entry == ENTRY_SYSCALL64 ? (int64_t)r->r[UR_AX]
                                                         : (int64_t)(int32_t)r->r[UR_AX];
    bool restart;
    switch (-ret) {
    case ERESTARTNOHAND_LINUX:
        restart = !ka;
        break;
    case ERESTARTSYS_LINUX:
        restart = !ka || (ka->flags & SA_RESTART_LINUX);
        break;
    case ERESTARTNOINTR_LINUX:
        restart = true;
        break;
    default:
        return;
    }
    int64_t v = restart ? s->nr : -EINTR_LINUX;
    /* A 64-bit task sees compat results sign-extended, a 32-bit one in eax. */
    r->r[UR_AX] = t->is64 ? (uint64_t)v : (uint32_t)v;
    if (restart)
        r->ip -= 2; /* every entry instruction is two bytes: syscall, int $0x80 */
}

static bool setup_frame(struct task *t, int sig, const struct ksiginfo *info,
                        struct uctx *regs)
{
    struct sigstate *s = &t->sig;
    const struct ksigaction *ka = &t->sighand->action[sig];
    struct sigframe_in in = {
        .sig = sig,
        .info = info,
        .ka = ka,
        .regs = regs,
        .mask = s->restore_mask ? s->saved_mask : s->blocked,
        .ss = { s->ss_sp, s->ss_size, s->ss_flags },
        .trapno = s->trapno,
        .err = s->err,
        .cr2 = s->cr2,
        .vdso_sigreturn = t->mm->layout.vdso_sigreturn,
        .vdso_rt_sigreturn = t->mm->layout.vdso_rt_sigreturn,
        .xcr0 = t->cpu->xcr0,
    };
    /* A critical section the handler would interrupt is aborted first:
     * the frame returns to its abort handler (rseq_signal_deliver). */
    rseq_signal_deliver(t, regs);
    struct uctx entry;
    bool ok = t->is64 ? sigframe_x86_64_setup(t->mm, &in, &entry)
                      : sigframe_ia32_setup(t->mm, &in, (ka->flags & SA_SIGINFO_LINUX) != 0,
                                            &entry);
    if (!ok)
        return false;
    observe_signal(t, &(struct signal_event){ .what = SIGNAL_DELIVER, .sig = sig,
                                              .handler = ka->handler, .frame = entry.r[UR_SP],
                                              .rt = t->is64 || (ka->flags & SA_SIGINFO_LINUX) });
    *regs = entry;
    /* signal_delivered() */
    s->restore_mask = false;
    s->blocked |= ka->mask;
    if (!(ka->flags & SA_NODEFER_LINUX))
        s->blocked |= SIGMASK_LINUX(sig);
    s->blocked &= ~UNBLOCKABLE;
    if (s->ss_flags & SS_AUTODISARM_LINUX) {
        s->ss_sp = s->ss_size = 0;
        s->ss_flags = SS_DISABLE_LINUX;
    }
    if (ka->flags & SA_RESETHAND_LINUX)
        t->sighand->action[sig].handler = SIG_DFL_LINUX;
    return true;
}

/* get_signal() and handle_signal() for every deliverable signal; false
 * when the task died. */
static bool deliver(struct task *t, struct uctx *regs, bool restart_pending, bool *changed)
{
    struct sigstate *s = &t->sig;
    bool handled = false;
    /* Each frame blocks at least its own signal unless SA_NODEFER; the
     * bound only stops a NODEFER flood from filling the stack forever. */
    for (int rounds = 0; rounds < 4 * NSIG_LINUX_ALL; rounds++) {
        struct ksiginfo info;
        int sig = signal_dequeue(t, ~s->blocked, &info);
        if (!sig)
            break;
        const struct ksigaction *ka = &t->sighand->action[sig];
        if (ka->handler == SIG_IGN_LINUX)
            continue;
        if (ka->handler == SIG_DFL_LINUX) {
            if (IGNORE_MASK & SIGMASK_LINUX(sig))
                continue;
            task_kill(t, sig, death_reason(sig, &info));
            return false;
        }
        if (restart_pending && !handled)
            fix_restart(t, regs, ka);
        if (!setup_frame(t, sig, &info, regs)) {
            /* force_sigsegv(): a SIGSEGV that cannot be delivered kills. */
            if (sig == SIGSEGV_LINUX)
                t->sighand->action[SIGSEGV_LINUX].handler = SIG_DFL_LINUX;
            signal_fault_trap(t, SIGSEGV_LINUX, SI_KERNEL_LINUX, 0, s->trapno, s->err);
            if (t->state != TASK_RUNNING)
                return false;
            continue;
        }
        handled = true;
        *changed = true;
    }
    if (restart_pending && !handled) {
        fix_restart(t, regs, NULL);
        *changed = true;
    }
    if (s->restore_mask && !handled && !restart_pending) {
        s->blocked = s->saved_mask;
        s->restore_mask = false;
    }
    return true;
}

static err_t resume(struct task *t, uint64_t *pc, bool *retry);

err_t signal_resume(struct task *t, uint64_t *pc, bool *retry)
{
    *retry = false;
    err_t e = resume(t, pc, retry);
    /* Faults raised while delivering are queued; the next run starts
     * clean, so that its own engine errors are mapped to faults. */
    t->sig.fault_raised = false;
    return e;
}

static err_t resume(struct task *t, uint64_t *pc, bool *retry)
{
    struct sigstate *s = &t->sig;
    bool after_call = s->after_call;
    s->after_call = false;
    *pc = cpu_pc(t->cpu);
    if (t->state != TASK_RUNNING)
        return OK;
    bool at_user = (cpu_reg(t->cpu, UC_X86_REG_CS) & 3) == 3 || uctx_at_sysexit(t->cpu);
    if (!at_user) {
        /* On a CPL 0 stub between entry and return: not an instruction
         * boundary of the guest.  Resume and try again shortly. */
        *retry = signal_deliverable(t);
        return OK;
    }
    if (!s->ctx_pending && !after_call && !signal_deliverable(t))
        return OK;

    struct uctx regs;
    bool changed = false;
    bool restart_pending = false;
    if (s->ctx_pending) {
        regs = s->ctx;
        s->ctx_pending = false;
        changed = true;
    } else {
        uctx_read(t->cpu, &regs);
        if (after_call) {
            int64_t ret = t->is64 && s->entry == ENTRY_SYSCALL64
                              ? (int64_t)regs.r[UR_AX]
                              : (int64_t)(int32_t)regs.r[UR_AX];
            restart_pending = ret <= -ERESTARTSYS_LINUX && ret >= -ERESTARTNOHAND_LINUX;
        }
    }
    if (!deliver(t, &regs, restart_pending, &changed))
        return OK;
    if (!changed)
        return OK;
    err_t e = uctx_write(t->cpu, &regs, pc);
    s->sysenter_done = false;
    if (e) {
        /* A selector the handler left in the frame and the CPU refuses:
         * what the kernel's iret does with it is a SIGSEGV. */
        err_free(e);
        signal_fault_trap(t, SIGSEGV_LINUX, SI_KERNEL_LINUX, 0, X86_TRAP_GP_LINUX, 0);
        return resume(t, pc, retry);
    }
    return OK;
}

void signal_mask_for_call(struct task *t, uint64_t mask)
{
    struct sigstate *s = &t->sig;
    s->saved_mask = s->blocked;
    s->restore_mask = true;
    s->blocked = mask & ~UNBLOCKABLE;
}

void signal_mask_call_done(struct task *t, bool interrupted)
{
    struct sigstate *s = &t->sig;
    if (interrupted || !s->restore_mask)
        return;
    s->blocked = s->saved_mask;
    s->restore_mask = false;
}
