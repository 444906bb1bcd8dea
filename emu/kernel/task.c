#include "emu/kernel/task.h"

#include <unistd.h>

struct task *task_new_initial(void)
{
    struct task *t = g_new0(struct task, 1);
    t->cpu = g_new0(struct cpu, 1);
    t->fds = fdtable_new();
    t->sighand = g_new0(struct sighand, 1);
    t->sighand->refs = 1;
    t->group = g_new0(struct thread_group, 1);
    t->group->refs = 1;
    t->group->shared_pending.queue = g_array_new(FALSE, FALSE, sizeof(struct ksiginfo));
    t->sig.pending.queue = g_array_new(FALSE, FALSE, sizeof(struct ksiginfo));
    /* The guest's process is seccomp-emu's: the same pid a native run of
     * the program in its place would show. */
    t->group->tgid = t->tid = (int32_t)getpid();
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

void task_exit(struct task *t, int code)
{
    if (t->state != TASK_RUNNING)
        return;
    t->state = TASK_EXITED;
    t->exit_code = code;
    uc_emu_stop(t->cpu->uc);
}

void task_kill(struct task *t, int signo, char *reason)
{
    if (t->state != TASK_RUNNING) {
        g_free(reason);
        return;
    }
    t->state = TASK_SIGNALED;
    t->signo = signo;
    t->reason = reason;
    uc_emu_stop(t->cpu->uc);
}
