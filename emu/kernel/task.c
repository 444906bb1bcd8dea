#include "emu/kernel/task.h"

#include <unistd.h>

#include "abi/signal_linux.h"
#include "emu/kernel/wait.h"

/* The tasks by tid: live ones and zombie leaders, as Linux's pid table
 * has them.  Changed and read with the CPU held. */
static struct {
    GHashTable *by_tid; /* int32_t tid -> struct task * */
    unsigned alive;     /* registered and not yet exited */
    unsigned max;
    int32_t next_tid;
    int32_t first_tid;
} tasks = { .max = TASK_MAX_DEFAULT };

/* Linux's pid_max default on a 64-bit kernel with many CPUs is 4194304;
 * tids wrap back above the first one, skipping those in use. */
#define PID_MAX 4194304

void task_set_max(unsigned n) { tasks.max = n; }
unsigned task_max(void) { return tasks.max; }

static GHashTable *table(void)
{
    if (!tasks.by_tid)
        tasks.by_tid = g_hash_table_new(NULL, NULL);
    return tasks.by_tid;
}

struct thread_group *thread_group_new(struct task *leader)
{
    struct thread_group *g = g_new0(struct thread_group, 1);
    g->refs = 1;
    g->tgid = leader->tid;
    g->leader = leader;
    g_queue_init(&g->threads);
    g_queue_init(&g->children);
    waitq_init(&g->child_exit);
    waitq_init(&g->exited);
    waitq_init(&g->thread_exit);
    g->shared_pending.queue = g_array_new(FALSE, FALSE, sizeof(struct ksiginfo));
    return g;
}

struct task *task_new_initial(void)
{
    struct task *t = g_new0(struct task, 1);
    t->refs = 1;
    t->start_ns = wait_clock_now(WAIT_MONOTONIC);
    t->cpu = g_new0(struct cpu, 1);
    t->fds = fdtable_new();
    t->sighand = g_new0(struct sighand, 1);
    t->sighand->refs = 1;
    t->sig.pending.queue = g_array_new(FALSE, FALSE, sizeof(struct ksiginfo));
    waitq_init(&t->vfork_done);
    /* The guest's process is seccomp-emu's: the same pid a native run of
     * the program in its place would show. */
    t->tid = (int32_t)getpid();
    tasks.first_tid = tasks.next_tid = t->tid;
    t->group = thread_group_new(t);
    t->group->initial = true;
    t->group->live = 1;
    g_queue_push_tail(&t->group->threads, t);
    g_hash_table_insert(table(), GINT_TO_POINTER(t->tid), t);
    tasks.alive = 1;
    return t;
}

err_t task_open_engine(struct task *t, bool is64)
{
    t->is64 = is64;
    t->personality = is64 ? &abi_x86_64 : &abi_ia32;
    t->mm = mm_new(TASK_SIZE_LINUX(is64));
    t->mm->users = 1;
    err_t e = cpu_open(t->cpu, t->mm, is64);
    t->cpu->current = t;
    t->cpu->users = 1;
    return e;
}

void task_destroy(struct task *t)
{
    if (!t)
        return;
    g_hash_table_remove(table(), GINT_TO_POINTER(t->tid));
    tasks.alive--;
    cpu_close(t->cpu);
    g_free(t->cpu);
    mm_unref(t->mm);
    fdtable_unref(t->fds);
    g_free(t->sighand);
    g_array_free(t->group->shared_pending.queue, TRUE);
    g_free(t->group);
    g_array_free(t->sig.pending.queue, TRUE);
    if (t->filters)
        g_ptr_array_unref(t->filters);
    if (t->filter_rets)
        g_array_unref(t->filter_rets);
    g_free(t->reason);
    g_free(t);
}

struct task *task_get(struct task *t)
{
    t->refs++;
    return t;
}

void task_put(struct task *t)
{
    if (!t || --t->refs > 0)
        return;
    g_array_free(t->sig.pending.queue, TRUE);
    if (t->filters)
        g_ptr_array_unref(t->filters);
    if (t->filter_rets)
        g_array_unref(t->filter_rets);
    if (t->se.regs)
        uc_context_free(t->se.regs);
    g_cond_clear(&t->se.cond);
    g_free(t->reason);
    g_free(t);
}

void task_register(struct task *t, int32_t want)
{
    int32_t tid = want;
    if (!tid) {
        tid = tasks.next_tid;
        do {
            tid = tid >= PID_MAX - 1 ? tasks.first_tid + 1 : tid + 1;
        } while (g_hash_table_contains(table(), GINT_TO_POINTER(tid)));
        tasks.next_tid = tid;
    }
    t->tid = tid;
    g_hash_table_insert(table(), GINT_TO_POINTER(tid), t);
    tasks.alive++;
}

struct thread_group *thread_group_get(struct thread_group *g)
{
    g->refs++;
    return g;
}

void thread_group_put(struct thread_group *g)
{
    if (!g || --g->refs > 0)
        return;
    g_array_free(g->shared_pending.queue, TRUE);
    g_free(g->reason);
    g_free(g);
}

void task_release(struct task *t)
{
    seccomp_filter_release(t);
    if (t->sighand && --t->sighand->refs == 0)
        g_free(t->sighand);
    t->sighand = NULL;
    g_hash_table_remove(table(), GINT_TO_POINTER(t->tid));
    struct thread_group *g = t->group;
    g_queue_remove(&g->threads, t);
    /* The timer thread reads the running task's group under the
     * scheduler's lock (sched_group_cputime). */
    sched_lock();
    t->group = NULL;
    sched_unlock();
    thread_group_put(g);
    task_put(t);
}

struct task *task_lookup(int32_t tid)
{
    if (tid <= 0)
        return NULL;
    return g_hash_table_lookup(table(), GINT_TO_POINTER(tid));
}

unsigned task_count(void) { return tasks.alive; }

void task_exited(void)
{
    tasks.alive--;
}

struct task **task_all(unsigned *n)
{
    GList *values = g_hash_table_get_values(table());
    guint len = g_list_length(values);
    struct task **all = g_new(struct task *, len + 1);
    guint i = 0;
    for (GList *l = values; l; l = l->next)
        all[i++] = l->data;
    all[i] = NULL;
    g_list_free(values);
    *n = len;
    return all;
}

/* Stop the engine if this task is the caller: it leaves its run loop at
 * the next stop; a task elsewhere (asleep, queued, or in parallel running
 * guest code, whose engine sched_wake() stops) leaves when it next looks. */
static void leave_run_loop(struct task *t)
{
    if (t == sched_current() && t->cpu && t->cpu->uc)
        uc_emu_stop(t->cpu->uc);
    sched_wake(t);
}

void task_exit(struct task *t, int code)
{
    if (t->state != TASK_RUNNING)
        return;
    t->state = TASK_EXITED;
    t->exit_code = code;
    leave_run_loop(t);
}

/* zap_other_threads(): the others die with the process, whatever they
 * were doing; they leave their run loops as killed. */
static void zap_group(struct task *self)
{
    for (GList *l = self->group->threads.head; l; l = l->next) {
        struct task *o = l->data;
        if (o == self || o->state != TASK_RUNNING)
            continue;
        if (o == sched_current()) {
            /* The task making a call (that sent the signal) finishes it,
             * then meets the SIGKILL on its way out. */
            struct ksiginfo kill = { .signo = SIGKILL_LINUX, .code = SI_KERNEL_LINUX };
            g_array_append_val(o->sig.pending.queue, kill);
            o->sig.pending.set |= 1ull << (SIGKILL_LINUX - 1);
            continue;
        }
        o->state = TASK_SIGNALED;
        o->signo = SIGKILL_LINUX;
        leave_run_loop(o);
    }
}

void task_zap_others(struct task *t)
{
    zap_group(t);
}

void task_take_leader(struct task *t)
{
    struct thread_group *g = t->group;
    struct task *old = g->leader;
    if (old == t)
        return;
    /* The old leader is a zombie by now (de_thread waited): it goes, and
     * the exec'ing thread lives on under its pid. */
    task_release(old);
    g_hash_table_remove(table(), GINT_TO_POINTER(t->tid));
    t->tid = g->tgid;
    g_hash_table_insert(table(), GINT_TO_POINTER(t->tid), t);
    g->leader = t;
    g_queue_remove(&g->threads, t);
    g_queue_push_head(&g->threads, t);
}

void task_exit_group(struct task *t, int code)
{
    struct thread_group *g = t->group;
    if (!g->exiting) {
        g->exiting = true;
        g->exit_status = (code & 0xff) << 8;
        zap_group(t);
    }
    task_exit(t, code);
}

void task_kill(struct task *t, int signo, char *reason)
{
    struct thread_group *g = t->group;
    if (g->exiting) {
        /* Already dying (an exit_group, another fatal signal): that one
         * decides the status. */
        g_free(reason);
        if (t->state == TASK_RUNNING) {
            t->state = TASK_SIGNALED;
            t->signo = signo;
            leave_run_loop(t);
        }
        return;
    }
    g->exiting = true;
    g->exit_status = signo & 0x7f;
    g->reason = reason;
    zap_group(t);
    if (t->state == TASK_RUNNING) {
        t->state = TASK_SIGNALED;
        t->signo = signo;
        leave_run_loop(t);
    }
}

void task_kill_thread(struct task *t, int signo, char *reason)
{
    if (t->group->live <= 1 || t->group->exiting) {
        task_kill(t, signo, reason);
        return;
    }
    /* do_exit(signo) on this thread alone: no signal, no handler. */
    if (t->state != TASK_RUNNING) {
        g_free(reason);
        return;
    }
    t->state = TASK_SIGNALED;
    t->signo = signo;
    g_free(t->reason);
    t->reason = reason;
    leave_run_loop(t);
}
