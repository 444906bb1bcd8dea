#include "emu/kernel/task.h"

void task_exit(struct task *t, int code)
{
    if (t->state != TASK_RUNNING)
        return;
    t->state = TASK_EXITED;
    t->exit_code = code;
    uc_emu_stop(t->uc);
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
    uc_emu_stop(t->uc);
}
