/* The signal system calls of both ABIs (kernel/signal.c, the compat
 * versions, arch/x86/kernel/signal*.c).  kill and its relatives reach only
 * the guest itself: no other process exists for it, and nothing is ever
 * sent to the host. */
#include <string.h>
#include <unistd.h>

#include "emu/kernel/sigframe.h"
#include "abi/signal_linux.h"
#include "emu/kernel/async.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/signal.h"
#include "emu/sys/sys.h"

#define UNBLOCKABLE (SIGMASK_LINUX(SIGKILL_LINUX) | SIGMASK_LINUX(SIGSTOP_LINUX))
/* UAPI_SA_FLAGS: the bits sigaction keeps; unknown ones read back as 0. */
#define UAPI_SA_FLAGS                                                                          \
    (SA_NOCLDSTOP_LINUX | SA_NOCLDWAIT_LINUX | SA_SIGINFO_LINUX | SA_ONSTACK_LINUX |             \
     SA_RESTART_LINUX | SA_NODEFER_LINUX | SA_RESETHAND_LINUX | SA_EXPOSE_TAGBITS_LINUX |        \
     SA_RESTORER_LINUX)

static bool compat(struct task *t) { return in_compat_syscall(t); }
static uint64_t uptr(struct task *t, uint64_t v) { return compat(t) ? (uint32_t)v : v; }
static bool valid_sig(int64_t sig) { return sig >= 1 && sig <= NSIG_LINUX_ALL; }

static bool get_u64(struct task *t, uint64_t addr, uint64_t *v)
{
    return mm_read(t->mm, addr, v, 8);
}

/* The guest's stack pointer at the call (sysenter leaves it in ebp). */
static uint64_t user_sp(struct task *t)
{
    if ((cpu_reg(t->cpu, UC_X86_REG_CS) & 3) == 0)
        return (uint32_t)cpu_reg(t->cpu, UC_X86_REG_EBP);
    return cpu_reg(t->cpu, t->is64 ? UC_X86_REG_RSP : UC_X86_REG_ESP);
}

/* The host's handling of the job-control signals follows the guest's
 * actions and mask (async.c). */
static void follow_job_control(struct task *t)
{
    err_t e = async_job_control(t);
    if (e) {
        task_kill(t, SIGKILL_LINUX, g_strdup_printf("internal error: %s", e));
        err_free(e);
    }
}

/* ---- sigaction ---- */

static int64_t do_sigaction(struct task *t, int64_t sig, const struct ksigaction *act,
                            struct ksigaction *oact)
{
    if (!valid_sig(sig) || (act && (sig == SIGKILL_LINUX || sig == SIGSTOP_LINUX)))
        return -EINVAL_LINUX;
    struct ksigaction *ka = &t->sighand->action[sig];
    if (oact) {
        *oact = *ka;
        oact->flags &= UAPI_SA_FLAGS;
    }
    if (act) {
        *ka = *act;
        ka->flags &= UAPI_SA_FLAGS;
        ka->mask &= ~UNBLOCKABLE;
        /* POSIX 3.3.1.3: setting an action to ignore discards the pending
         * signal, blocked or not. */
        bool ignored = ka->handler == SIG_IGN_LINUX ||
                       (ka->handler == SIG_DFL_LINUX &&
                        (sig == SIGCHLD_LINUX || sig == SIGCONT_LINUX || sig == SIGURG_LINUX ||
                         sig == SIGWINCH_LINUX));
        if (ignored)
            signal_flush(t, (int)sig);
        follow_job_control(t);
    }
    return 0;
}

SYS(rt_sigaction)
{
    if (a[3] != 8)
        return -EINVAL_LINUX;
    uint64_t uact = uptr(t, a[1]), uoact = uptr(t, a[2]);
    struct ksigaction act, old;
    if (uact) {
        if (compat(t)) {
            uint32_t w[5];
            if (!mm_read(t->mm, uact, w, sizeof(w)))
                return -EFAULT_LINUX;
            act = (struct ksigaction){ w[0], w[1], w[2], w[3] | ((uint64_t)w[4] << 32) };
        } else {
            uint64_t w[4];
            if (!mm_read(t->mm, uact, w, sizeof(w)))
                return -EFAULT_LINUX;
            act = (struct ksigaction){ w[0], w[1], w[2], w[3] };
        }
    }
    int64_t r = do_sigaction(t, (int64_t)(int32_t)a[0], uact ? &act : NULL, uoact ? &old : NULL);
    if (r < 0 || !uoact)
        return r;
    bool ok;
    if (compat(t)) {
        uint32_t w[5] = { (uint32_t)old.handler, (uint32_t)old.flags, (uint32_t)old.restorer,
                          (uint32_t)old.mask, (uint32_t)(old.mask >> 32) };
        ok = mm_write(t->mm, uoact, w, sizeof(w));
    } else {
        uint64_t w[4] = { old.handler, old.flags, old.restorer, old.mask };
        ok = mm_write(t->mm, uoact, w, sizeof(w));
    }
    return ok ? 0 : -EFAULT_LINUX;
}

/* i386's old sigaction: handler, a one-word mask, flags, restorer. */
SYS(sigaction)
{
    uint64_t uact = uptr(t, a[1]), uoact = uptr(t, a[2]);
    struct ksigaction act, old;
    if (uact) {
        uint32_t w[4];
        if (!mm_read(t->mm, uact, w, sizeof(w)))
            return -EFAULT_LINUX;
        act = (struct ksigaction){ w[0], w[2], w[3], w[1] };
    }
    int64_t r = do_sigaction(t, (int64_t)(int32_t)a[0], uact ? &act : NULL, uoact ? &old : NULL);
    if (r < 0 || !uoact)
        return r;
    uint32_t w[4] = { (uint32_t)old.handler, (uint32_t)old.mask, (uint32_t)old.flags,
                      (uint32_t)old.restorer };
    return mm_write(t->mm, uoact, w, sizeof(w)) ? 0 : -EFAULT_LINUX;
}

/* signal(2) as the kernel has it: a one-shot handler that does not block
 * its own signal; returns the old handler. */
SYS(signal)
{
    struct ksigaction act = { .handler = (uint32_t)a[1],
                              .flags = SA_RESETHAND_LINUX | SA_NODEFER_LINUX };
    struct ksigaction old;
    int64_t r = do_sigaction(t, (int64_t)(int32_t)a[0], &act, &old);
    return r < 0 ? r : (int64_t)(uint32_t)old.handler;
}

/* ---- masks ---- */

static int64_t apply_how(struct task *t, int how, uint64_t set)
{
    uint64_t b = t->sig.blocked;
    switch (how) {
    case SIG_BLOCK_LINUX:
        b |= set;
        break;
    case SIG_UNBLOCK_LINUX:
        b &= ~set;
        break;
    case SIG_SETMASK_LINUX:
        b = set;
        break;
    default:
        return -EINVAL_LINUX;
    }
    signal_set_blocked(t, b);
    follow_job_control(t);
    return 0;
}

SYS(rt_sigprocmask)
{
    if (a[3] != 8)
        return -EINVAL_LINUX;
    uint64_t uset = uptr(t, a[1]), uold = uptr(t, a[2]);
    uint64_t old = t->sig.blocked;
    if (uset) {
        uint64_t set;
        if (!get_u64(t, uset, &set))
            return -EFAULT_LINUX;
        int64_t r = apply_how(t, (int)a[0], set & ~UNBLOCKABLE);
        if (r < 0)
            return r;
    }
    if (uold && !mm_write(t->mm, uold, &old, 8))
        return -EFAULT_LINUX;
    return 0;
}

/* i386's sigprocmask: one word; SIG_SETMASK replaces the whole first
 * sigset word, which on a 64-bit kernel holds the real-time signals too. */
SYS(sigprocmask)
{
    uint64_t uset = uptr(t, a[1]), uold = uptr(t, a[2]);
    uint32_t old = (uint32_t)t->sig.blocked;
    if (uset) {
        uint32_t set;
        if (!mm_read(t->mm, uset, &set, 4))
            return -EFAULT_LINUX;
        int64_t r = apply_how(t, (int)a[0], set & ~(uint32_t)UNBLOCKABLE);
        if (r < 0)
            return r;
    }
    if (uold && !mm_write(t->mm, uold, &old, 4))
        return -EFAULT_LINUX;
    return 0;
}

SYS(rt_sigpending)
{
    if (a[1] > 8)
        return -EINVAL_LINUX;
    uint64_t set = signal_pending_set(t) & t->sig.blocked;
    return mm_write(t->mm, uptr(t, a[0]), &set, (size_t)a[1]) ? 0 : -EFAULT_LINUX;
}

SYS(sigpending)
{
    uint32_t set = (uint32_t)(signal_pending_set(t) & t->sig.blocked);
    return mm_write(t->mm, uptr(t, a[0]), &set, 4) ? 0 : -EFAULT_LINUX;
}

/* ---- waiting ---- */

static int64_t suspend(struct task *t, uint64_t mask)
{
    struct sigstate *s = &t->sig;
    s->saved_mask = s->blocked;
    s->restore_mask = true;
    s->blocked = mask & ~UNBLOCKABLE;
    follow_job_control(t);
    while (async_wait(t, -1, false, -1, NULL) >= 0)
        ;
    return -ERESTARTNOHAND_LINUX;
}

SYS(rt_sigsuspend)
{
    if (a[1] != 8)
        return -EINVAL_LINUX;
    uint64_t mask;
    if (!get_u64(t, uptr(t, a[0]), &mask))
        return -EFAULT_LINUX;
    return suspend(t, mask);
}

/* i386's sigsuspend(int, int, old_sigset_t): the mask is the third
 * argument and the real-time signals end up unblocked. */
SYS(sigsuspend) { return suspend(t, (uint32_t)a[2]); }

SYS(pause)
{
    (void)a;
    while (async_wait(t, -1, false, -1, NULL) >= 0)
        ;
    return -ERESTARTNOHAND_LINUX;
}

static int take_from(struct task *t, uint64_t set, struct ksiginfo *info)
{
    return signal_dequeue(t, set, info);
}

SYS(rt_sigtimedwait)
{
    if (a[3] != 8)
        return -EINVAL_LINUX;
    uint64_t set;
    if (!get_u64(t, uptr(t, a[0]), &set))
        return -EFAULT_LINUX;
    set &= ~UNBLOCKABLE;
    int64_t timeout = -1;
    uint64_t uts = uptr(t, a[2]);
    if (uts) {
        int64_t sec, nsec;
        if (compat(t)) {
            int32_t w[2];
            if (!mm_read(t->mm, uts, w, 8))
                return -EFAULT_LINUX;
            sec = w[0];
            nsec = w[1];
        } else {
            int64_t w[2];
            if (!mm_read(t->mm, uts, w, 16))
                return -EFAULT_LINUX;
            sec = w[0];
            nsec = w[1];
        }
        if (sec < 0 || nsec < 0 || nsec >= 1000000000)
            return -EINVAL_LINUX;
        timeout = sec * 1000000000 + nsec;
    }
    struct ksiginfo info;
    int sig = take_from(t, set, &info);
    if (!sig) {
        /* Wait with the awaited signals unblocked (do_sigtimedwait). */
        struct sigstate *s = &t->sig;
        uint64_t saved = s->blocked;
        s->blocked &= ~set;
        int w = async_wait(t, -1, false, timeout, NULL);
        s->blocked = saved;
        sig = take_from(t, set, &info);
        if (!sig)
            return w == 0 ? -EAGAIN_LINUX : -EINTR_LINUX;
    }
    uint64_t uinfo = uptr(t, a[1]);
    if (uinfo) {
        uint8_t raw[128];
        sigframe_siginfo(&info, !compat(t), raw);
        if (!mm_write(t->mm, uinfo, raw, sizeof(raw)))
            return -EFAULT_LINUX;
    }
    return sig;
}

/* ---- sending ---- */

/* prepare_kill_siginfo() */
static struct ksiginfo kill_info(struct task *t, int64_t sig, int code, bool shared)
{
    return (struct ksiginfo){ .signo = (int)sig, .code = code, .pid = t->group->tgid,
                              .uid = (uint32_t)getuid(), .shared = shared, .from_guest = true };
}

/* group_send_sig_info(): to the process of `p`, which takes it first if
 * it can. */
static int64_t send_to_process(struct task *p, int64_t sig, const struct ksiginfo *info)
{
    if (sig < 0 || sig > NSIG_LINUX_ALL)
        return -EINVAL_LINUX;
    if (sig == 0 || p->group->exiting)
        return 0;
    /* A zombie leader's process still takes signals, through its live
     * threads; a process all zombie takes nothing, and says so with
     * success. */
    if (p->exited) {
        struct task *live = NULL;
        for (GList *l = p->group->threads.head; l && !live; l = l->next)
            if (!((struct task *)l->data)->exited)
                live = l->data;
        if (!live)
            return 0;
        p = live;
    }
    struct ksiginfo copy = *info;
    copy.shared = true;
    signal_send(p, &copy, NULL);
    return 0;
}

/* __kill_pgrp_info() over the processes of the guest (all in seccomp-emu's
 * process group), or kill(-1)'s "everyone but us". */
static int64_t kill_many(struct task *t, int64_t sig, bool others_only)
{
    unsigned n;
    g_autofree struct task **all = task_all(&n);
    bool any = false;
    int64_t ret = -ESRCH_LINUX;
    for (unsigned i = 0; i < n; i++) {
        struct task *p = all[i];
        if (p->group->leader != p || p->group->zombie)
            continue;
        if (others_only && p->group == t->group)
            continue;
        struct ksiginfo info = kill_info(t, sig, SI_USER_LINUX, true);
        int64_t r = send_to_process(p, sig, &info);
        if (!any || r == 0)
            ret = r;
        any = true;
    }
    return ret;
}

SYS(kill)
{
    int32_t pid = (int32_t)a[0];
    int64_t sig = (int32_t)a[1];
    if (pid > 0) {
        /* kill_proc_info(): any task of the process names it. */
        struct task *p = task_lookup(pid);
        if (!p)
            return -ESRCH_LINUX;
        struct ksiginfo info = kill_info(t, sig, SI_USER_LINUX, true);
        return send_to_process(p, sig, &info);
    }
    /* INT_MIN has no process group to negate into; Linux's
     * kill_something_info answers ESRCH before looking. */
    if (pid == INT32_MIN)
        return -ESRCH_LINUX;
    if (pid == -1)
        return kill_many(t, sig, true);
    if (pid != 0 && -pid != (int32_t)getpgrp())
        return -ESRCH_LINUX;
    return kill_many(t, sig, false);
}

/* do_send_specific(): one thread, of process tgid if tgid > 0. */
static int64_t send_specific(struct task *t, int32_t tgid, int32_t tid, int64_t sig,
                             struct ksiginfo *info)
{
    struct task *p = task_lookup(tid);
    if (!p || (tgid > 0 && p->group->tgid != tgid))
        return -ESRCH_LINUX;
    if (sig < 0 || sig > NSIG_LINUX_ALL)
        return -EINVAL_LINUX;
    (void)t;
    if (sig == 0 || p->exited || p->group->exiting)
        return 0;
    info->shared = false;
    signal_send(p, info, NULL);
    return 0;
}

SYS(tkill)
{
    int32_t tid = (int32_t)a[0];
    int64_t sig = (int32_t)a[1];
    if (tid <= 0)
        return -EINVAL_LINUX;
    struct ksiginfo info = kill_info(t, sig, SI_TKILL_LINUX, false);
    return send_specific(t, 0, tid, sig, &info);
}

SYS(tgkill)
{
    int32_t tgid = (int32_t)a[0], tid = (int32_t)a[1];
    int64_t sig = (int32_t)a[2];
    if (tid <= 0 || tgid <= 0)
        return -EINVAL_LINUX;
    struct ksiginfo info = kill_info(t, sig, SI_TKILL_LINUX, false);
    return send_specific(t, tgid, tid, sig, &info);
}

static int64_t queue_info(struct task *t, int32_t tgid, int32_t pid, int64_t sig, uint64_t uinfo)
{
    /* rt_sigqueueinfo signals the process, rt_tgsigqueueinfo the thread */
    struct ksiginfo info = { .signo = (int)sig, .raw_valid = true, .shared = tgid == 0,
                             .from_guest = true };
    if (!mm_read(t->mm, uptr(t, uinfo), info.raw, sizeof(info.raw)))
        return -EFAULT_LINUX;
    memcpy(&info.code, info.raw + 8, 4);
    /* Not allowed to pose as the kernel or as kill(), except to itself. */
    if ((info.code >= 0 || info.code == SI_TKILL_LINUX) && t->tid != pid)
        return -EPERM_LINUX;
    memcpy(&info.pid, info.raw + (compat(t) ? 12 : 16), 4);
    memcpy(&info.uid, info.raw + (compat(t) ? 16 : 20), 4);
    if (tgid)
        return send_specific(t, tgid, pid, sig, &info);
    struct task *p = task_lookup(pid);
    if (!p)
        return -ESRCH_LINUX;
    return send_to_process(p, sig, &info);
}

SYS(rt_sigqueueinfo) { return queue_info(t, 0, (int32_t)a[0], (int32_t)a[1], a[2]); }
SYS(rt_tgsigqueueinfo)
{
    if ((int32_t)a[0] <= 0 || (int32_t)a[1] <= 0)
        return -EINVAL_LINUX;
    return queue_info(t, (int32_t)a[0], (int32_t)a[1], (int32_t)a[2], a[3]);
}

/* ---- the alternate stack ---- */

static int64_t do_sigaltstack(struct task *t, const struct sigaltstack_k *ss,
                              struct sigaltstack_k *oss, uint64_t sp)
{
    struct sigstate *s = &t->sig;
    struct sigaltstack_k cur = { s->ss_sp, s->ss_size, s->ss_flags };
    if (oss) {
        oss->sp = s->ss_sp;
        oss->size = s->ss_size;
        oss->flags = (s->ss_size ? (sigframe_on_altstack(&cur, sp) ? SS_ONSTACK_LINUX : 0)
                                 : SS_DISABLE_LINUX) |
                     (s->ss_flags & SS_AUTODISARM_LINUX);
    }
    if (!ss)
        return 0;
    if (sigframe_on_altstack(&cur, sp))
        return -EPERM_LINUX;
    uint32_t mode = ss->flags & ~SS_AUTODISARM_LINUX;
    if (mode != SS_DISABLE_LINUX && mode != SS_ONSTACK_LINUX && mode != 0)
        return -EINVAL_LINUX;
    if (s->ss_sp == ss->sp && s->ss_size == ss->size && s->ss_flags == ss->flags)
        return 0;
    uint64_t sp_new = ss->sp, size = ss->size;
    if (mode == SS_DISABLE_LINUX)
        sp_new = size = 0;
    else if (size < MINSIGSTKSZ_LINUX)
        return -ENOMEM_LINUX;
    s->ss_sp = sp_new;
    s->ss_size = size;
    s->ss_flags = ss->flags;
    return 0;
}

SYS(sigaltstack)
{
    uint64_t uss = uptr(t, a[0]), uoss = uptr(t, a[1]);
    struct sigaltstack_k ss, oss;
    if (uss) {
        if (compat(t)) {
            uint32_t w[3];
            if (!mm_read(t->mm, uss, w, sizeof(w)))
                return -EFAULT_LINUX;
            ss = (struct sigaltstack_k){ w[0], w[2], w[1] };
        } else {
            uint8_t b[24];
            if (!mm_read(t->mm, uss, b, sizeof(b)))
                return -EFAULT_LINUX;
            memcpy(&ss.sp, b, 8);
            memcpy(&ss.flags, b + 8, 4);
            memcpy(&ss.size, b + 16, 8);
        }
    }
    int64_t r = do_sigaltstack(t, uss ? &ss : NULL, uoss ? &oss : NULL, user_sp(t));
    if (r < 0 || !uoss)
        return r;
    bool ok;
    if (compat(t)) {
        uint32_t w[3] = { (uint32_t)oss.sp, oss.flags, (uint32_t)oss.size };
        ok = mm_write(t->mm, uoss, w, sizeof(w));
    } else {
        uint8_t b[24] = { 0 };
        memcpy(b, &oss.sp, 8);
        memcpy(b + 8, &oss.flags, 4);
        memcpy(b + 16, &oss.size, 8);
        ok = mm_write(t->mm, uoss, b, sizeof(b));
    }
    return ok ? 0 : -EFAULT_LINUX;
}

/* ---- returning from a handler ---- */

static int64_t do_sigreturn(struct task *t, bool rt)
{
    struct uctx cur;
    uctx_read(t->cpu, &cur);
    cur.r[UR_SP] = user_sp(t);
    struct sigreturn_out out = { .force_valid_ss = false };
    bool ok = compat(t) ? sigframe_ia32_restore(t->mm, &cur, rt, t->cpu->xcr0, &out)
                        : sigframe_x86_64_restore(t->mm, &cur, t->cpu->xcr0, &out);
    if (out.mask_read)
        signal_set_blocked(t, out.mask);
    if (out.regs_read && out.force_valid_ss && !cpu_valid_user_data(t->cpu, out.regs.ss))
        out.regs.ss = SEL_USER_DS_LINUX;
    if (!ok) {
        /* badframe: the kernel's signal_fault() forces SIGSEGV, delivered
         * from the registers the frame gave if it got that far (a stack
         * pointer it cannot push the handler's frame on kills), with the
         * FPU reset (fpu__clear_user_states) and 0 the call's result. */
        if (out.regs_read) {
            uctx_fpu_init(&out.regs.fpu);
            out.regs.r[UR_AX] = 0;
            signal_set_return_context(t, &out.regs);
        }
        signal_fault_trap(t, SIGSEGV_LINUX, SI_KERNEL_LINUX, 0, t->sig.trapno, t->sig.err);
        return 0;
    }
    /* restore_altstack(): as sigaltstack(2) would, errors ignored.  The
     * kernel judges "in use" by the handler's stack pointer at the call
     * (measured: a handler that re-registered the stack it runs on keeps
     * its own settings). */
    if (out.has_ss)
        (void)do_sigaltstack(t, &out.ss, NULL, cur.r[UR_SP]);
    signal_set_return_context(t, &out.regs);
    return (int64_t)out.regs.r[UR_AX];
}

SYS(rt_sigreturn) { (void)a; return do_sigreturn(t, true); }
SYS(sigreturn) { (void)a; return do_sigreturn(t, false); }
