#include "emu/kernel/exit.h"

#include <unistd.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "abi/task_linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/futex.h"
#include "emu/kernel/posix_timer.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"
#include "emu/kernel/wait.h"

/* The first process, whose end ends seccomp-emu (main waits for it). */
static struct {
    GMutex lock;
    GCond cond;
    bool done;
    int status;
    char *reason;
} initial;

/* ---- a process ends ---- */

static bool parent_ignores_sigchld(const struct thread_group *parent, const struct task *p)
{
    const struct ksigaction *ka = &p->sighand->action[SIGCHLD_LINUX];
    (void)parent;
    return ka->handler == SIG_IGN_LINUX || (ka->flags & SA_NOCLDWAIT_LINUX);
}

static void reap(struct thread_group *child);

/* The thread that gets the parent's SIGCHLD first: the one that forked
 * the child while it lives, else the process's leader or any thread. */
static struct task *parent_task(struct thread_group *parent, int32_t tid)
{
    struct task *first = NULL;
    for (GList *l = parent->threads.head; l; l = l->next) {
        struct task *p = l->data;
        if (p->exited)
            continue;
        if (p->tid == tid)
            return p;
        if (!first)
            first = p;
    }
    return first;
}

/* do_notify_parent() */
static void notify_parent(struct thread_group *g)
{
    struct thread_group *parent = g->parent;
    struct task *p = parent_task(parent, g->parent_tid);
    int status = g->exit_status;
    bool autoreap = false;
    if (p) {
        bool sig_ok = g->exit_signal > 0 && g->exit_signal <= NSIG_LINUX_ALL;
        /* An ignored SIGCHLD (or SA_NOCLDWAIT) reaps the child at once:
         * it never becomes a zombie. */
        if (g->exit_signal == SIGCHLD_LINUX && parent_ignores_sigchld(parent, p)) {
            autoreap = true;
            if (p->sighand->action[SIGCHLD_LINUX].handler == SIG_IGN_LINUX)
                sig_ok = false;
        }
        if (sig_ok) {
            struct ksiginfo info = {
                .signo = g->exit_signal,
                .code = (status & 0x7f) == 0 ? CLD_EXITED_LINUX
                        : (status & 0x80)    ? CLD_DUMPED_LINUX
                                             : CLD_KILLED_LINUX,
                .pid = g->tgid,
                .uid = (uint32_t)getuid(),
                .status = (status & 0x7f) == 0 ? (status >> 8) & 0xff : status & 0x7f,
                .utime = g->cputime_ns,
                .shared = true,
            };
            signal_send(p, &info, NULL);
        }
    } else
        autoreap = true;
    waitq_wake(&parent->child_exit, -1);
    if (autoreap)
        reap(g);
}

/* The last thread of `g` has exited. */
static void group_end(struct thread_group *g)
{
    g->zombie = true;
    async_group_gone(g);
    posix_timers_exit(g);
    waitq_wake(&g->exited, -1);
    /* Orphans: no process of the guest can wait for them now (natively
     * they would go to init, outside the guest), so they are reaped by
     * nobody, at their end. */
    while (!g_queue_is_empty(&g->children)) {
        struct thread_group *c = g_queue_pop_head(&g->children);
        c->parent = NULL;
        if (c->zombie)
            reap(c);
    }
    if (g->parent) {
        notify_parent(g);
        return;
    }
    if (g->initial) {
        g_mutex_lock(&initial.lock);
        initial.done = true;
        initial.status = g->exit_status;
        initial.reason = g_strdup(g->reason);
        g_cond_signal(&initial.cond);
        g_mutex_unlock(&initial.lock);
        return;
    }
    reap(g);
}

/* release_task() of a zombie process: its leader leaves the tables. */
static void reap(struct thread_group *g)
{
    if (g->reaped)
        return;
    g->reaped = true;
    if (g->parent) {
        g->parent->children_cputime_ns += g->cputime_ns + g->children_cputime_ns;
        g_queue_remove(&g->parent->children, g);
        g->parent = NULL;
    }
    /* The threads still on the table are zombies: the leader (and any
     * thread whose own exit has not finished: none, as a group ends with
     * its last thread's).  The last one's release drops what may be the
     * last other reference to g. */
    thread_group_get(g);
    while (!g_queue_is_empty(&g->threads))
        task_release(g_queue_peek_head(&g->threads));
    thread_group_put(g);
}

int exit_wait_initial(const char **reason)
{
    g_mutex_lock(&initial.lock);
    while (!initial.done)
        g_cond_wait(&initial.cond, &initial.lock);
    g_mutex_unlock(&initial.lock);
    if (reason)
        *reason = initial.reason;
    return initial.status;
}

/* ---- a thread ends ---- */

void exit_mm_release(struct task *t)
{
    futex_exit_release(t);
    if (t->clear_child_tid) {
        /* Only where someone else can see it (measured: a single-threaded
         * process leaves the word as it was). */
        if (t->mm->users > 1) {
            uint32_t zero = 0;
            if (mm_write(t->mm, t->clear_child_tid, &zero, 4))
                futex_wake_word(t, t->clear_child_tid, 1);
        }
        t->clear_child_tid = 0;
    }
    if (t->vfork_parent) {
        t->vfork_parent = NULL;
        waitq_wake(&t->vfork_done, -1);
    }
}

/* The engine, address space and descriptors go with their last task; the
 * actions stay until the task is released (__exit_signal), as a zombie's
 * /proc/<pid>/stat and status still show them. */
static void release_resources(struct task *t)
{
    struct cpu *c = t->cpu;
    sched_lock();
    t->cpu = NULL;
    if (c->current == t)
        c->current = NULL;
    bool last_on_cpu = --c->users == 0;
    sched_unlock();
    if (last_on_cpu) {
        cpu_close(c);
        g_free(c);
    }
    t->mm->users--;
    mm_unref(t->mm);
    t->mm = NULL;
    fdtable_unref(t->fds);
    t->fds = NULL;
}

void exit_task(struct task *t)
{
    struct thread_group *g = thread_group_get(t->group);
    task_get(t);
    exit_mm_release(t);
    /* synchronize_group_exit(): the last thread's own exit decides the
     * process's status unless a group exit already did. */
    int code = t->state == TASK_EXITED ? (t->exit_code & 0xff) << 8 : t->signo & 0x7f;
    if (--g->live == 0 && !g->exiting) {
        g->exiting = true;
        g->exit_status = code;
        if (t->state == TASK_SIGNALED && !g->reason) {
            g->reason = t->reason;
            t->reason = NULL;
        }
    }
    t->exited = true;
    release_resources(t);
    task_exited();
    waitq_wake(&g->thread_exit, -1);
    bool leader = g->leader == t;
    if (g->live == 0)
        group_end(g);
    /* A thread other than the leader is released at once; the leader
     * stays, a zombie, until its process is reaped. */
    if (!leader && !g->reaped)
        task_release(t);
    sched_exit(t);
    thread_group_put(g);
    task_put(t);
}

/* ---- waiting for children ---- */

static bool eligible(const struct task *t, const struct thread_group *c, const struct wait_opts *wo)
{
    switch (wo->which) {
    case P_PID_LINUX:
        if (c->tgid != wo->id)
            return false;
        break;
    case P_PGID_LINUX:
        /* Every guest process is in seccomp-emu's process group. */
        if (wo->id != (int32_t)getpgrp())
            return false;
        break;
    default:
        break;
    }
    if ((wo->options & __WNOTHREAD_LINUX) && c->parent_tid != t->tid)
        return false;
    /* A "clone" child is one that does not signal SIGCHLD at its end. */
    bool clone_child = c->exit_signal != SIGCHLD_LINUX;
    if (!(wo->options & __WALL_LINUX) && clone_child != !!(wo->options & __WCLONE_LINUX))
        return false;
    return true;
}

struct wait_scan {
    const struct wait_opts *wo;
    struct wait_result *res;
    bool any;    /* an eligible child exists */
    bool found;  /* and one was reported */
};

static void report(struct thread_group *c, struct wait_result *res)
{
    int st = c->exit_status;
    res->pid = c->tgid;
    res->uid = (int32_t)getuid();
    res->status = st;
    res->code = (st & 0x7f) == 0 ? CLD_EXITED_LINUX : (st & 0x80) ? CLD_DUMPED_LINUX
                                                                  : CLD_KILLED_LINUX;
    res->child_status = (st & 0x7f) == 0 ? (st >> 8) & 0xff : st & 0x7f;
    res->utime_ns = c->cputime_ns + c->children_cputime_ns;
    res->stime_ns = 0;
}

static bool scan_children(struct task *t, void *arg)
{
    struct wait_scan *s = arg;
    s->any = false;
    for (GList *l = t->group->children.head; l; l = l->next) {
        struct thread_group *c = l->data;
        if (!eligible(t, c, s->wo))
            continue;
        s->any = true;
        if (c->zombie && (s->wo->options & WEXITED_LINUX)) {
            report(c, s->res);
            if (!(s->wo->options & WNOWAIT_LINUX))
                reap(c);
            s->found = true;
            return true;
        }
    }
    /* Nothing to wait for at all: done, with ECHILD. */
    return !s->any;
}

int64_t exit_wait(struct task *t, const struct wait_opts *wo, struct wait_result *res)
{
    *res = (struct wait_result){ 0 };
    struct wait_scan s = { .wo = wo, .res = res };
    if (wo->options & WNOHANG_LINUX) {
        scan_children(t, &s);
        if (s.found)
            return res->pid;
        return s.any ? 0 : -ECHILD_LINUX;
    }
    int e = wait_event(t, &(struct wait_for){ .queues = { &t->group->child_exit }, .nqueues = 1,
                                             .ready = scan_children, .arg = &s,
                                             .deadline_ns = -1, .interruptible = true });
    if (e == 0)
        return s.found ? res->pid : -ECHILD_LINUX;
    return e == -ERESTARTSYS_LINUX ? -ERESTARTSYS_LINUX : -EINTR_LINUX;
}
