#include "emu/kernel/exec.h"

#include <string.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "abi/task_linux.h"
#include "emu/engine/uctx.h"
#include "emu/kernel/exit.h"
#include "emu/kernel/fork.h"
#include "emu/kernel/limits.h"
#include "emu/kernel/posix_timer.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"
#include "emu/kernel/vfile.h"
#include "emu/kernel/wait.h"

err_t (*exec_load)(struct task *t, const char *path, char **argv, char **envp, const char *execfn,
                   uint64_t *entry, uint64_t *sp);
bool (*exec_known)(const char *path);

#define MAX_ARG_STRLEN (32 * PAGE_SIZE_LINUX)
#define MAX_ARG_STRINGS 0x7fffffff

/* The program a path names for t: /proc/<pid>/exe of a guest task, or a
 * program seccomp-emu knows by its path; NULL if none (ENOENT). */
static char *resolve(struct task *t, const char *path)
{
    struct task *p = vfile_proc_task(t, path, "exe");
    if (p)
        return p->mm ? g_strdup(p->mm->exe_path) : NULL;
    if (path[0] == '/' && exec_known && exec_known(path))
        return g_strdup(path);
    return NULL;
}

/* count() and copy_strings(): the guest's NULL-terminated array of
 * strings, or -EFAULT / -E2BIG; *bytes adds up what they take. */
static int64_t copy_strv(struct task *t, uint64_t uarr, GPtrArray *out, uint64_t *bytes)
{
    if (!uarr)
        return 0;
    unsigned ptr = in_compat_syscall(t) ? 4 : 8;
    for (uint64_t i = 0;; i++) {
        if (i >= MAX_ARG_STRINGS)
            return -E2BIG_LINUX;
        uint64_t p = 0;
        if (!mm_read(t->mm, uarr + i * ptr, &p, ptr))
            return -EFAULT_LINUX;
        if (!p)
            return 0;
        char *s = g_malloc(MAX_ARG_STRLEN + 1);
        int r = mm_read_string(t->mm, p, s, MAX_ARG_STRLEN + 1);
        if (r < 0) {
            g_free(s);
            return r == -ENAMETOOLONG_LINUX ? -E2BIG_LINUX : r;
        }
        size_t n = strlen(s) + 1;
        *bytes += n + ptr;
        g_ptr_array_add(out, g_realloc(s, n));
        /* The limit of the whole: a quarter of the stack limit (at least
         * what 32 pages hold), as bprm_stack_limits() sets it. */
        uint64_t stack = t->group->rlim[RLIMIT_STACK_LINUX].cur;
        uint64_t limit = MAX(stack / 4, (uint64_t)MAX_ARG_STRLEN);
        if (*bytes > limit)
            return -E2BIG_LINUX;
    }
}

static bool others_gone(struct task *t, void *arg)
{
    (void)arg;
    return t->group->live == 1;
}

/* de_thread(): the other threads die, and the caller, if not the leader,
 * takes the leader's place.  -EINTR if the caller is killed meanwhile. */
static int de_thread(struct task *t)
{
    struct thread_group *g = t->group;
    if (g->live == 1 && g->leader == t)
        return 0;
    task_zap_others(t);
    int e = wait_event(t, &(struct wait_for){ .queues = { &g->thread_exit }, .nqueues = 1,
                                             .ready = others_gone, .deadline_ns = -1 });
    if (e)
        return -EINTR_LINUX;
    task_take_leader(t);
    return 0;
}

/* The old address space and engine go; the new ones are the task's
 * alone. */
static err_t new_address_space(struct task *t)
{
    struct mm *mm = mm_new(TASK_SIZE_LINUX(t->is64));
    mm->users = 1;
    mm->mmap_base = TASK_SIZE_LINUX(t->is64) - (128u << 20);
    struct cpu *c = g_new0(struct cpu, 1);
    err_t e = cpu_open(c, mm, t->is64);
    mm_unref(mm); /* the engine holds it now */
    if (e) {
        cpu_close(c);
        g_free(c);
        return e;
    }
    c->users = 1;
    struct cpu *old = t->cpu;
    sched_lock();
    if (old->current == t)
        old->current = NULL;
    bool last = --old->users == 0;
    t->cpu = c;
    c->current = t;
    sched_unlock();
    if (last) {
        cpu_close(old);
        g_free(old);
    }
    t->mm->users--;
    mm_unref(t->mm);
    t->mm = mm_ref(mm);
    /* The limits the mm applies itself are the process's, which execve
     * keeps: the new mm starts with none. */
    limits_rlimit_changed(t, RLIMIT_AS_LINUX);
    limits_rlimit_changed(t, RLIMIT_DATA_LINUX);
    limits_rlimit_changed(t, RLIMIT_STACK_LINUX);
    if (t->se.regs) {
        /* saved for another engine's layout; the task starts afresh */
        uc_context_free(t->se.regs);
        t->se.regs = NULL;
    }
    return OK;
}

/* flush_signal_handlers(), after unsharing the actions from any other
 * process: caught signals go back to the default; ignored stay ignored. */
static void flush_handlers(struct task *t)
{
    if (t->sighand->refs > 1) {
        struct sighand *own = g_new(struct sighand, 1);
        *own = *t->sighand;
        own->refs = 1;
        t->sighand->refs--;
        t->sighand = own;
    }
    for (int sig = 1; sig <= NSIG_LINUX_ALL; sig++) {
        struct ksigaction *ka = &t->sighand->action[sig];
        if (ka->handler != SIG_IGN_LINUX)
            ka->handler = SIG_DFL_LINUX;
        ka->flags = 0;
        ka->restorer = 0;
        ka->mask = 0;
    }
}

int64_t exec_task(struct task *t, const char *filename, uint64_t uargv, uint64_t uenvp)
{
    g_autofree char *path = resolve(t, filename);
    if (!path)
        return -ENOENT_LINUX;
    g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) envp = g_ptr_array_new_with_free_func(g_free);
    uint64_t bytes = strlen(filename) + 1;
    int64_t r;
    if ((r = copy_strv(t, uargv, argv, &bytes)) || (r = copy_strv(t, uenvp, envp, &bytes)))
        return r;
    g_ptr_array_add(argv, NULL);
    g_ptr_array_add(envp, NULL);
    if ((r = de_thread(t)))
        return r;

    /* The point of no return: from here a failure kills the task. */
    bool vforked = t->vfork_parent != NULL;
    exit_mm_release(t);
    t->robust_list = 0;
    t->clear_child_tid = 0;
    err_t e = new_address_space(t);
    uint64_t entry = 0, sp = 0, start = 0;
    if (!e)
        e = exec_load(t, path, (char **)argv->pdata, (char **)envp->pdata, filename, &entry, &sp);
    t->mm->exe_path = g_strdup(path);
    if (!e && fork_engine_setup)
        e = fork_engine_setup(t->cpu);
    if (!e)
        e = cpu_prepare_user(t->cpu, entry, sp, &start);
    if (e) {
        task_kill(t, SIGSEGV_LINUX, g_strdup_printf("killed by SIGSEGV: execve failed "
                                                    "after the point of no return: %s", e));
        err_free(e);
        return 0;
    }
    cpu_set_pc(t->cpu, start);
    uctx_fpu_reset(t->cpu);
    if (t->tsc_off)
        cpu_set_tsc_off(t->cpu, true);
    memset(t->tls, 0, sizeof(t->tls));
    t->sig.ss_sp = t->sig.ss_size = 0;
    t->sig.ss_flags = 0;
    posix_timers_exit(t->group); /* begin_new_exec: exit_itimers */
    flush_handlers(t);
    if (t->fds->refs > 1) {
        struct fdtable *own = fdtable_copy(t->fds);
        fdtable_unref(t->fds);
        t->fds = own;
    }
    fdtable_close_on_exec(t->fds);
    g_autofree char *base = g_path_get_basename(filename);
    g_strlcpy(t->comm, base, sizeof(t->comm));
    t->forked = false;
    t->exec_done = true;
    if (vforked)
        sched_preempt_soon();
    return 0;
}
