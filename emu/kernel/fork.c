#include "emu/kernel/fork.h"

#include <string.h>
#include <unistd.h>

#include "abi/caps_linux.h"
#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "abi/task_linux.h"
#include "emu/kernel/limits.h"
#include "emu/kernel/pidfd.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/task.h"
#include "emu/kernel/tls.h"
#include "emu/kernel/wait.h"

err_t (*fork_engine_setup)(struct cpu *c);
void (*fork_task_body)(struct task *t);

/* copy_process()'s checks of the flags, in its order: EINVAL before any
 * other answer. */
static int check_flags(const struct task *t, const struct clone_request *rq)
{
    uint64_t f = rq->flags;
    (void)t;
    if ((f & (CLONE_NEWNS_LINUX | CLONE_FS_LINUX)) == (CLONE_NEWNS_LINUX | CLONE_FS_LINUX))
        return -EINVAL_LINUX;
    if ((f & (CLONE_NEWUSER_LINUX | CLONE_FS_LINUX)) == (CLONE_NEWUSER_LINUX | CLONE_FS_LINUX))
        return -EINVAL_LINUX;
    /* Thread groups share signals; shared handlers imply a shared VM. */
    if ((f & CLONE_THREAD_LINUX) && !(f & CLONE_SIGHAND_LINUX))
        return -EINVAL_LINUX;
    if ((f & CLONE_SIGHAND_LINUX) && !(f & CLONE_VM_LINUX))
        return -EINVAL_LINUX;
    if ((f & CLONE_THREAD_LINUX) && (f & (CLONE_NEWUSER_LINUX | CLONE_NEWPID_LINUX)))
        return -EINVAL_LINUX;
    /* CLONE_DETACHED is kept unusable with CLONE_PIDFD (6.18 allows
     * CLONE_PIDFD with CLONE_THREAD: a thread's pidfd). */
    if ((f & CLONE_PIDFD_LINUX) && (f & CLONE_DETACHED_LINUX))
        return -EINVAL_LINUX;
    return 0;
}

/* The child's TLS (copy_thread's set_new_tls): a 64-bit call sets the FS
 * base, a 32-bit one a GDT entry from a struct user_desc. */
static int check_tls(struct task *t, const struct clone_request *rq, int *index, uint8_t desc[8])
{
    if (!(rq->flags & CLONE_SETTLS_LINUX))
        return 0;
    if (in_compat_syscall(t))
        return tls_read_user_desc(t, rq->tls, false, index, desc);
    /* do_arch_prctl_64(ARCH_SET_FS) */
    return rq->tls >= TASK_SIZE_64_LINUX ? -EPERM_LINUX : 0;
}

/* The child's registers: the caller's as its call returns, with 0 as the
 * result, and the new stack and TLS. */
static err_t child_registers(struct task *t, struct task *c, const struct clone_request *rq)
{
    err_t e = UC_TRY(uc_context_alloc(c->cpu->uc, &c->se.regs));
    if (e)
        return e;
    if ((e = UC_TRY(uc_context_save(t->cpu->uc, c->se.regs))))
        return e;
    bool wide = c->is64;
    uint64_t zero = 0;
    if ((e = UC_TRY(uc_context_reg_write(c->se.regs, wide ? UC_X86_REG_RAX : UC_X86_REG_EAX,
                                         &zero))))
        return e;
    if (rq->stack) {
        uint64_t sp = in_compat_syscall(t) ? (uint32_t)rq->stack : rq->stack;
        if ((e = UC_TRY(uc_context_reg_write(c->se.regs, wide ? UC_X86_REG_RSP : UC_X86_REG_ESP,
                                             &sp))))
            return e;
    }
    if ((rq->flags & CLONE_SETTLS_LINUX) && !in_compat_syscall(t) &&
        (e = UC_TRY(uc_context_reg_write(c->se.regs, UC_X86_REG_FS_BASE, &rq->tls))))
        return e;
    return OK;
}

/* A task struct for the child, with what copy_process() copies from the
 * caller whatever the flags: credentials, seccomp state, the signal mask,
 * the name, the TLS entries. */
static struct task *dup_task(struct task *t, const struct clone_request *rq)
{
    struct task *c = g_new0(struct task, 1);
    c->refs = 1;
    c->start_ns = wait_clock_now(WAIT_MONOTONIC);
    c->forked = true;
    c->personality = t->personality;
    c->is64 = t->is64;
    c->profile = t->profile;
    c->vendor = t->vendor;
    c->quiet = t->quiet;
    c->call_abi = t->call_abi;
    /* copy_seccomp(): mode, filters and NO_NEW_PRIVS of the caller; the
     * TSC setting goes with the thread flags. */
    c->mode = t->mode;
    c->filters = seccomp_filters_copy(t->filters);
    if (c->filters)
        c->filter_rets = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    c->no_new_privs = t->no_new_privs;
    c->cap_effective = t->cap_effective;
    c->cap_permitted = t->cap_permitted;
    c->cap_inheritable = t->cap_inheritable;
    c->cap_bounding = t->cap_bounding;
    c->tsc_off = t->tsc_off;
    memcpy(c->tls, t->tls, sizeof(c->tls));
    memcpy(c->comm, t->comm, sizeof(c->comm));
    c->sig.blocked = t->sig.blocked;
    c->sig.pending.queue = g_array_new(FALSE, FALSE, sizeof(struct ksiginfo));
    /* A thread sharing the VM starts without the caller's alternate stack
     * (a vfork child, which borrows the caller's, keeps it). */
    if ((rq->flags & (CLONE_VM_LINUX | CLONE_VFORK_LINUX)) != CLONE_VM_LINUX) {
        c->sig.ss_sp = t->sig.ss_sp;
        c->sig.ss_size = t->sig.ss_size;
        c->sig.ss_flags = t->sig.ss_flags;
    }
    waitq_init(&c->vfork_done);
    return c;
}

/* An engine for the child's memory, with the hooks every engine after the
 * first gets, in the mm's parallel group if `group`. */
static err_t open_engine(struct task *c, bool group)
{
    c->cpu = g_new0(struct cpu, 1);
    err_t e;
    if ((e = cpu_open(c->cpu, c->mm, c->is64)) || (group && (e = cpu_join_group(c->cpu))) ||
        (e = fork_engine_setup ? fork_engine_setup(c->cpu) : OK)) {
        cpu_close(c->cpu);
        g_free(c->cpu);
        c->cpu = NULL;
        return e;
    }
    c->cpu->users = 1;
    /* Host memory the new engine (and a copy) cost: the hook of
     * --host-memory (emu/kernel/limits.h). */
    return limits_charge_engine(c->cpu);
}

/* The parts the flags share or copy.  On failure, whatever was made is
 * undone by undo(). */
static err_t share_parts(struct task *t, struct task *c, const struct clone_request *rq)
{
    uint64_t f = rq->flags;
    if ((f & CLONE_VM_LINUX) && !sched_parallel()) {
        c->mm = mm_ref(t->mm);
        c->mm->users++;
        c->cpu = t->cpu;
        sched_lock();
        c->cpu->users++;
        sched_unlock();
    } else if (f & CLONE_VM_LINUX) {
        /* An engine of its own over the same memory, beside the caller's
         * in the mm's parallel group (the caller's joins at the first). */
        c->mm = mm_ref(t->mm);
        c->mm->users++;
        err_t e;
        if ((e = t->mm->group ? OK : cpu_join_group(t->cpu)) || (e = open_engine(c, true)))
            return e;
    } else {
        err_t e = mm_copy(t->mm, &c->mm);
        if (e)
            return e;
        c->mm->users = 1;
        if ((e = open_engine(c, false)))
            return e;
    }
    c->fds = (f & CLONE_FILES_LINUX) ? fdtable_ref(t->fds) : fdtable_copy(t->fds);
    if (f & CLONE_SIGHAND_LINUX) {
        c->sighand = t->sighand;
        c->sighand->refs++;
    } else {
        c->sighand = g_new(struct sighand, 1);
        *c->sighand = *t->sighand;
        c->sighand->refs = 1;
        /* clone3's CLONE_CLEAR_SIGHAND: handlers back to the default,
         * ignored signals stay ignored. */
        if (f & CLONE_CLEAR_SIGHAND_LINUX)
            for (int sig = 1; sig <= NSIG_LINUX_ALL; sig++)
                if (c->sighand->action[sig].handler != SIG_IGN_LINUX)
                    c->sighand->action[sig] = (struct ksigaction){ .handler = SIG_DFL_LINUX };
    }
    return OK;
}

static void undo(struct task *c)
{
    if (c->cpu) {
        sched_lock();
        bool last = --c->cpu->users == 0;
        sched_unlock();
        if (last) {
            cpu_close(c->cpu);
            g_free(c->cpu);
        }
    }
    if (c->mm) {
        c->mm->users--;
        mm_unref(c->mm);
    }
    fdtable_unref(c->fds);
    if (c->sighand && --c->sighand->refs == 0)
        g_free(c->sighand);
    c->cpu = NULL;
    c->mm = NULL;
    c->fds = NULL;
    c->sighand = NULL;
    task_put(c);
}

/* The thread group: the caller's (CLONE_THREAD), or a new process whose
 * parent is the caller's process or, with CLONE_PARENT, its parent. */
static void join_group(struct task *t, struct task *c, const struct clone_request *rq)
{
    if (rq->flags & CLONE_THREAD_LINUX) {
        c->group = thread_group_get(t->group);
        c->group->live++;
        g_queue_push_tail(&c->group->threads, c);
        return;
    }
    struct thread_group *g = thread_group_new(c), *pg = t->group;
    c->group = g;
    g->live = 1;
    g_queue_push_tail(&g->threads, c);
    memcpy(g->rlim, pg->rlim, sizeof(g->rlim));
    g->parent_tid = t->tid;
    if (rq->flags & CLONE_PARENT_LINUX) {
        g->parent = pg->parent;
        g->exit_signal = pg->exit_signal;
    } else {
        g->parent = pg;
        g->exit_signal = rq->exit_signal;
    }
    if (g->parent)
        g_queue_push_tail(&g->parent->children, g);
}

static bool vfork_done(struct task *t, void *arg)
{
    (void)t;
    return ((struct task *)arg)->vfork_parent == NULL;
}

int64_t fork_clone(struct task *t, const struct clone_request *rq)
{
    int r = check_flags(t, rq);
    if (r)
        return r;
    /* Namespaces are not emulated: the answer of a caller without the
     * capability (docs/internals.md). */
    if (rq->flags & CLONE_NS_FLAGS_LINUX)
        return -EPERM_LINUX;
    /* RLIMIT_NPROC, threads-max: --max-tasks. */
    if (task_count() >= task_max())
        return -EAGAIN_LINUX;
    if (rq->set_tid) {
        if (!((t->cap_effective >> CAP_SYS_ADMIN_LINUX) & 1))
            return -EPERM_LINUX;
        if (task_lookup(rq->set_tid))
            return -EEXIST_LINUX;
    }
    int tls_index = 0;
    uint8_t tls_desc[8];
    if ((r = check_tls(t, rq, &tls_index, tls_desc)))
        return r;
    if (rq->flags & CLONE_PIDFD_LINUX) {
        /* copy_process() stores the pidfd's number before the child
         * exists: a bad pointer fails the call and no task is made. */
        int32_t fd = (int32_t)fdtable_alloc(t->fds);
        if (fd < 0)
            return -EMFILE_LINUX;
        if (!mm_write(t->mm, rq->pidfd, &fd, 4))
            return -EFAULT_LINUX;
    }

    struct task *c = dup_task(t, rq);
    err_t e = share_parts(t, c, rq);
    if (!e)
        e = child_registers(t, c, rq);
    if (e) {
        err_free(e);
        undo(c);
        return -ENOMEM_LINUX;
    }
    if (tls_index)
        memcpy(c->tls[tls_index - GDT_ENTRY_TLS_MIN_LINUX], tls_desc, 8);
    bool vfork = rq->flags & CLONE_VFORK_LINUX;
    if (vfork)
        c->vfork_parent = t;
    /* Its host thread waits for its first turn, which comes only once
     * the caller gives up the CPU: everything below is done before. */
    if (sched_spawn(c, fork_task_body) < 0) {
        undo(c);
        return -EAGAIN_LINUX;
    }
    task_register(c, rq->set_tid);
    join_group(t, c, rq);
    /* A new process has no interval timers, and its CPU time starts at
     * zero under the RLIMIT_CPU it inherited. */
    if (!(rq->flags & CLONE_THREAD_LINUX))
        limits_rlimit_changed(c, RLIMIT_CPU_LINUX);
    if (rq->flags & CLONE_CHILD_SETTID_LINUX) {
        /* schedule_tail(): written by the child, in its own memory, before
         * its first instruction; a bad address is ignored. */
        uint32_t tid = (uint32_t)c->tid;
        (void)mm_write(c->mm, rq->child_tid, &tid, 4);
    }
    if (rq->flags & CLONE_CHILD_CLEARTID_LINUX)
        c->clear_child_tid = rq->child_tid;
    if (rq->flags & CLONE_PIDFD_LINUX) {
        int32_t fd = (int32_t)pidfd_install(t, c->group);
        if (fd >= 0)
            (void)mm_write(t->mm, rq->pidfd, &fd, 4);
    }
    if (rq->flags & CLONE_PARENT_SETTID_LINUX) {
        uint32_t tid = (uint32_t)c->tid;
        (void)mm_write(t->mm, rq->parent_tid, &tid, 4);
    }
    int32_t tid = c->tid;
    if (vfork) {
        /* wait_for_vfork_done(): killable, not interruptible. */
        task_get(c);
        (void)wait_event(t, &(struct wait_for){ .queues = { &c->vfork_done }, .nqueues = 1,
                                               .ready = vfork_done, .arg = c,
                                               .deadline_ns = -1 });
        task_put(c);
    }
    return tid;
}
