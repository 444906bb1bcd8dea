/* Tasks and processes: clone and its relatives, exit, wait, futex, the
 * robust list, identities, CPU affinity, pipes and eventfds.  The kernel
 * side is in emu/kernel/ (fork.c, exit.c, futex.c, pipe.c); here are the
 * system calls' argument handling per ABI, in the kernel's order. */
#include <string.h>
#include <unistd.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "abi/task_linux.h"
#include "emu/kernel/exec.h"
#include "emu/kernel/exit.h"
#include "emu/kernel/fork.h"
#include "emu/kernel/futex.h"
#include "emu/kernel/memfd.h"
#include "emu/kernel/pidfd.h"
#include "emu/kernel/pipe.h"
#include "emu/kernel/sched.h"
#include "emu/sys/sys.h"

/* ---- clone and friends ---- */

/* The legacy clone: x86_64 takes (flags, stack, ptid, ctid, tls), i386
 * (CLONE_BACKWARDS) (flags, stack, ptid, tls, ctid); only the low 32 bits
 * of the flags count, the low byte being the exit signal, unchecked. */
SYS(clone)
{
    uint32_t flags = (uint32_t)a[0];
    bool compat = in_compat_syscall(t);
    struct clone_request rq = {
        .flags = flags & ~CSIGNAL_LINUX,
        .exit_signal = (int)(flags & CSIGNAL_LINUX),
        .stack = uarg(t, a[1]),
        .parent_tid = uarg(t, a[2]),
        .child_tid = uarg(t, compat ? a[4] : a[3]),
        .tls = uarg(t, compat ? a[3] : a[4]),
    };
    rq.pidfd = rq.parent_tid;
    /* kernel_clone(): the pidfd and the parent's tid would share one
     * word. */
    if ((rq.flags & CLONE_PIDFD_LINUX) && (rq.flags & CLONE_PARENT_SETTID_LINUX))
        return -EINVAL_LINUX;
    return fork_clone(t, &rq);
}

SYS(fork)
{
    (void)a;
    return fork_clone(t, &(struct clone_request){ .exit_signal = SIGCHLD_LINUX });
}

SYS(vfork)
{
    (void)a;
    return fork_clone(t, &(struct clone_request){
                             .flags = CLONE_VFORK_LINUX | CLONE_VM_LINUX,
                             .exit_signal = SIGCHLD_LINUX });
}

/* clone3(struct clone_args *, size_t): its own checks, in
 * copy_clone_args_from_user() and clone3_args_valid() order. */
SYS(clone3)
{
    uint64_t uargs = uarg(t, a[0]), size = a[1];
    if (size > PAGE_SIZE_LINUX)
        return -E2BIG_LINUX;
    if (size < CLONE_ARGS_SIZE_VER0_LINUX)
        return -EINVAL_LINUX;
    uint64_t args[11] = { 0 };
    size_t known = sizeof(args);
    if (!mm_read(t->mm, uargs, args, MIN(size, known)))
        return -EFAULT_LINUX;
    if (size > known) {
        /* copy_struct_from_user(): a larger struct's extra bytes must be 0. */
        uint8_t extra[PAGE_SIZE_LINUX];
        if (!mm_read(t->mm, uargs + known, extra, size - known))
            return -EFAULT_LINUX;
        for (size_t i = 0; i < size - known; i++)
            if (extra[i])
                return -E2BIG_LINUX;
    }
    uint64_t flags = args[0], pidfd = args[1], child_tid = args[2], parent_tid = args[3],
             exit_signal = args[4], stack = args[5], stack_size = args[6], tls = args[7],
             set_tid = args[8], set_tid_size = args[9], cgroup = args[10];
    if ((exit_signal & ~(uint64_t)CSIGNAL_LINUX) || exit_signal > NSIG_LINUX_ALL)
        return -EINVAL_LINUX;
    if ((flags & CLONE_INTO_CGROUP_LINUX) &&
        (cgroup > INT32_MAX || size < CLONE_ARGS_SIZE_VER2_LINUX))
        return -EINVAL_LINUX;
    if (set_tid_size > MAX_PID_NS_LEVEL_LINUX || (!set_tid && set_tid_size) ||
        (set_tid && !set_tid_size))
        return -EINVAL_LINUX;
    int32_t want_tid = 0;
    if (set_tid_size) {
        int32_t tids[MAX_PID_NS_LEVEL_LINUX];
        if (!mm_read(t->mm, set_tid, tids, set_tid_size * 4))
            return -EFAULT_LINUX;
        /* One pid namespace here: only one level can be asked for. */
        if (set_tid_size > 1)
            return -EINVAL_LINUX;
        if (tids[0] <= 0)
            return -EINVAL_LINUX;
        want_tid = tids[0];
    }
    /* clone3_args_valid() */
    if (flags & ~(CLONE_LEGACY_FLAGS_LINUX | CLONE_CLEAR_SIGHAND_LINUX | CLONE_INTO_CGROUP_LINUX))
        return -EINVAL_LINUX;
    if (flags & (CLONE_DETACHED_LINUX | (CSIGNAL_LINUX & ~CLONE_NEWTIME_LINUX)))
        return -EINVAL_LINUX;
    if ((flags & (CLONE_SIGHAND_LINUX | CLONE_CLEAR_SIGHAND_LINUX)) ==
        (CLONE_SIGHAND_LINUX | CLONE_CLEAR_SIGHAND_LINUX))
        return -EINVAL_LINUX;
    if ((flags & (CLONE_THREAD_LINUX | CLONE_PARENT_LINUX)) && exit_signal)
        return -EINVAL_LINUX;
    /* clone3_stack_valid(): both or neither; the stack grows down from
     * stack + stack_size. */
    if (stack) {
        if (!stack_size)
            return -EINVAL_LINUX;
        if (stack + stack_size < stack || stack + stack_size > TASK_SIZE_64_LINUX)
            return -EFAULT_LINUX;
    } else if (stack_size)
        return -EINVAL_LINUX;
    if (flags & CLONE_INTO_CGROUP_LINUX)
        return -EBADF_LINUX; /* no cgroup directory can be open here */
    if ((flags & CLONE_PIDFD_LINUX) && (flags & CLONE_PARENT_SETTID_LINUX) && pidfd == parent_tid)
        return -EINVAL_LINUX;
    struct clone_request rq = {
        .flags = flags,
        .exit_signal = (int)exit_signal,
        .stack = stack ? stack + stack_size : 0,
        .parent_tid = parent_tid,
        .child_tid = child_tid,
        .pidfd = pidfd,
        .tls = tls,
        .set_tid = want_tid,
    };
    return fork_clone(t, &rq);
}

/* ---- execve ---- */

static int64_t do_execve(struct task *t, uint64_t upath, uint64_t uargv, uint64_t uenvp)
{
    char path[4096];
    int r = mm_read_string(t->mm, upath, path, sizeof(path));
    if (r < 0)
        return r;
    return exec_task(t, path, uargv, uenvp);
}

SYS(execve) { return do_execve(t, uarg(t, a[0]), uarg(t, a[1]), uarg(t, a[2])); }

SYS(execveat)
{
    int flags = (int)a[4];
    if (flags & ~(AT_SYMLINK_NOFOLLOW_LINUX | AT_EMPTY_PATH_LINUX))
        return -EINVAL_LINUX;
    /* No directory descriptor names anything a program could be in: only
     * absolute paths (and /proc's) resolve. */
    return do_execve(t, uarg(t, a[1]), uarg(t, a[2]), uarg(t, a[3]));
}

/* ---- exit ---- */

SYS(exit)
{
    task_exit(t, (int)(a[0] & 0xff));
    return 0;
}

SYS(exit_group)
{
    task_exit_group(t, (int)(a[0] & 0xff));
    return 0;
}

/* ---- wait ---- */

static bool put_rusage(struct task *t, uint64_t uru, const struct wait_result *r)
{
    if (!uru)
        return true;
    int64_t us = r->utime_ns / 1000, ss = r->stime_ns / 1000;
    if (in_compat_syscall(t)) {
        int32_t ru[18] = { 0 };
        ru[0] = (int32_t)(us / 1000000);
        ru[1] = (int32_t)(us % 1000000);
        ru[2] = (int32_t)(ss / 1000000);
        ru[3] = (int32_t)(ss % 1000000);
        return mm_write(t->mm, uru, ru, sizeof(ru));
    }
    int64_t ru[18] = { 0 };
    ru[0] = us / 1000000;
    ru[1] = us % 1000000;
    ru[2] = ss / 1000000;
    ru[3] = ss % 1000000;
    return mm_write(t->mm, uru, ru, sizeof(ru));
}

/* kernel_wait4() */
static int64_t do_wait4(struct task *t, int32_t upid, uint64_t ustatus, int options, uint64_t uru)
{
    if (options & ~(WNOHANG_LINUX | WUNTRACED_LINUX | WCONTINUED_LINUX | __WNOTHREAD_LINUX |
                    (int)__WCLONE_LINUX | __WALL_LINUX))
        return -EINVAL_LINUX;
    /* -INT_MIN is not a process group */
    if (upid == INT32_MIN)
        return -ESRCH_LINUX;
    struct wait_opts wo = { .options = options | WEXITED_LINUX };
    if (upid == -1)
        wo.which = P_ALL_LINUX;
    else if (upid < 0) {
        wo.which = P_PGID_LINUX;
        wo.id = -upid;
    } else if (upid == 0) {
        wo.which = P_PGID_LINUX;
        wo.id = (int32_t)getpgrp();
    } else {
        wo.which = P_PID_LINUX;
        wo.id = upid;
    }
    struct wait_result r;
    int64_t pid = exit_wait(t, &wo, &r);
    if (pid > 0) {
        int32_t st = r.status;
        if (ustatus && !mm_write(t->mm, ustatus, &st, 4))
            return -EFAULT_LINUX;
        if (!put_rusage(t, uru, &r))
            return -EFAULT_LINUX;
    }
    return pid;
}

SYS(wait4) { return do_wait4(t, (int32_t)a[0], uarg(t, a[1]), (int)a[2], uarg(t, a[3])); }
SYS(waitpid) { return do_wait4(t, (int32_t)a[0], uarg(t, a[1]), (int)a[2], 0); }

SYS(waitid)
{
    int which = (int)a[0];
    int32_t id = (int32_t)a[1];
    uint64_t uinfo = uarg(t, a[2]), uru = uarg(t, a[4]);
    int options = (int)a[3];
    if (options & ~(WNOHANG_LINUX | WNOWAIT_LINUX | WEXITED_LINUX | WSTOPPED_LINUX |
                    WCONTINUED_LINUX | __WNOTHREAD_LINUX | (int)__WCLONE_LINUX | __WALL_LINUX))
        return -EINVAL_LINUX;
    if (!(options & (WEXITED_LINUX | WSTOPPED_LINUX | WCONTINUED_LINUX)))
        return -EINVAL_LINUX;
    struct wait_opts wo = { .which = which, .id = id, .options = options };
    switch (which) {
    case P_ALL_LINUX:
        break;
    case P_PID_LINUX:
        if (id <= 0)
            return -EINVAL_LINUX;
        break;
    case P_PGID_LINUX:
        if (id < 0)
            return -EINVAL_LINUX;
        if (id == 0)
            wo.id = (int32_t)getpgrp();
        break;
    case P_PIDFD_LINUX: {
        if (id < 0)
            return -EINVAL_LINUX;
        struct thread_group *g = pidfd_group(t, id);
        if (!g)
            return fdtable_get(t->fds, id) ? -EINVAL_LINUX : -EBADF_LINUX;
        wo.which = P_PID_LINUX;
        wo.id = g->tgid;
        break;
    }
    default:
        return -EINVAL_LINUX;
    }
    struct wait_result r;
    int64_t pid = exit_wait(t, &wo, &r);
    if (pid < 0)
        return pid;
    if (!put_rusage(t, uru, &r))
        return -EFAULT_LINUX;
    if (uinfo) {
        /* siginfo of SIGCHLD; all zero when WNOHANG found nothing. */
        struct ksiginfo info = { .signo = pid ? SIGCHLD_LINUX : 0, .code = pid ? r.code : 0,
                                 .pid = (int32_t)pid, .uid = pid ? (uint32_t)r.uid : 0,
                                 .status = pid ? r.child_status : 0 };
        uint8_t raw[128] = { 0 };
        bool wide = !in_compat_syscall(t);
        unsigned u = wide ? 16 : 12;
        memcpy(raw, &info.signo, 4);
        memcpy(raw + 8, &info.code, 4);
        memcpy(raw + u, &info.pid, 4);
        memcpy(raw + u + 4, &info.uid, 4);
        memcpy(raw + u + 8, &info.status, 4);
        if (!mm_write(t->mm, uinfo, raw, sizeof(raw)))
            return -EFAULT_LINUX;
    }
    return 0;
}

/* ---- identities ---- */

SYS(getpid) { (void)a; return t->group->tgid; }
SYS(gettid) { (void)a; return t->tid; }

SYS(getppid)
{
    (void)a;
    /* The first process's parent is seccomp-emu's; an orphan's is init,
     * where Linux reparents it. */
    if (t->group->initial)
        return getppid();
    return t->group->parent ? t->group->parent->tgid : 1;
}

SYS(set_tid_address)
{
    t->clear_child_tid = uarg(t, a[0]);
    return t->tid;
}

SYS(set_robust_list)
{
    size_t want = !in_compat_syscall(t) ? ROBUST_LIST_HEAD_SIZE_64_LINUX
                                        : ROBUST_LIST_HEAD_SIZE_32_LINUX;
    if (a[1] != want)
        return -EINVAL_LINUX;
    t->robust_list = uarg(t, a[0]);
    t->robust_len = a[1];
    return 0;
}

SYS(get_robust_list)
{
    int32_t pid = (int32_t)a[0];
    struct task *p = pid ? task_lookup(pid) : t;
    if (!p || p->exited)
        return -ESRCH_LINUX;
    bool compat = in_compat_syscall(t);
    uint64_t head = p->robust_list, len = compat ? ROBUST_LIST_HEAD_SIZE_32_LINUX
                                                 : ROBUST_LIST_HEAD_SIZE_64_LINUX;
    bool ok = compat ? mm_write(t->mm, uarg(t, a[2]), &(uint32_t){ (uint32_t)len }, 4) &&
                           mm_write(t->mm, uarg(t, a[1]), &(uint32_t){ (uint32_t)head }, 4)
                     : mm_write(t->mm, a[2], &len, 8) && mm_write(t->mm, a[1], &head, 8);
    return ok ? 0 : -EFAULT_LINUX;
}

/* ---- futex ---- */

SYS(futex)
{
    /* i386's futex takes an old_timespec32; x86_64's and int $0x80's
     * from 64-bit code the same (the compat entry is i386's). */
    return futex_syscall(t, uarg(t, a[0]), (int)a[1], (uint32_t)a[2], uarg(t, a[3]),
                         uarg(t, a[4]), (uint32_t)a[5], in_compat_syscall(t));
}

SYS(futex_time64)
{
    return futex_syscall(t, uarg(t, a[0]), (int)a[1], (uint32_t)a[2], uarg(t, a[3]),
                         uarg(t, a[4]), (uint32_t)a[5], false);
}

/* ---- scheduling ---- */

SYS(sched_yield)
{
    (void)a;
    sched_yield_cpu(t);
    return 0;
}

/* The CPUs the guest is told about: the host's, so that programs size
 * their thread pools as they would natively (they run one at a time). */
static unsigned nr_cpus(void)
{
    return sched_host_cpus();
}

/* find_process_by_pid(), as the scheduler's calls look their target up:
 * 0 is the caller, any other id a live task. */
static bool sched_target_exists(int32_t pid)
{
    if (pid == 0)
        return true;
    struct task *p = pid > 0 ? task_lookup(pid) : NULL;
    return p && !p->exited;
}

static int64_t affinity_target(struct task *t, int32_t pid)
{
    (void)t;
    return sched_target_exists(pid) ? 0 : -ESRCH_LINUX;
}

SYS(sched_getaffinity)
{
    int64_t r = affinity_target(t, (int32_t)a[0]);
    if (r)
        return r;
    uint64_t len = (uint32_t)a[1];
    unsigned word = in_compat_syscall(t) ? 4 : 8;
    if (len * 8 < nr_cpus() || (len & (word - 1)))
        return -EINVAL_LINUX;
    uint64_t mask = nr_cpus() >= 64 ? UINT64_MAX : (1ull << nr_cpus()) - 1;
    size_t ret = MIN(len, 8); /* cpumask_size() */
    if (!mm_write(t->mm, uarg(t, a[2]), &mask, ret))
        return -EFAULT_LINUX;
    return (int64_t)ret;
}

/* Every guest task is SCHED_NORMAL at priority 0: the policy calls that
 * read it answer so, after the kernel's checks (a negative id first). */
static int64_t policy_target(int32_t pid)
{
    if (pid < 0)
        return -EINVAL_LINUX;
    return sched_target_exists(pid) ? 0 : -ESRCH_LINUX;
}

SYS(sched_getscheduler)
{
    (void)t;
    int64_t r = policy_target((int32_t)a[0]);
    return r ? r : SCHED_NORMAL_LINUX;
}

SYS(sched_getparam)
{
    /* struct sched_param: one int, sched_priority, 0 for SCHED_NORMAL. */
    if (!a[1])
        return -EINVAL_LINUX;
    int64_t r = policy_target((int32_t)a[0]);
    if (r)
        return r;
    const uint8_t zero[4] = { 0 };
    return mm_write(t->mm, uarg(t, a[1]), zero, sizeof(zero)) ? 0 : -EFAULT_LINUX;
}

SYS(sched_setaffinity)
{
    int64_t r = affinity_target(t, (int32_t)a[0]);
    uint64_t len = (uint32_t)a[1], mask = 0;
    /* get_user_cpu_mask() comes first: shorter is zero-filled */
    if (!mm_read(t->mm, uarg(t, a[2]), &mask, MIN(len, 8)))
        return -EFAULT_LINUX;
    if (r)
        return r;
    if (len < 8)
        mask &= (1ull << (len * 8)) - 1;
    uint64_t online = nr_cpus() >= 64 ? UINT64_MAX : (1ull << nr_cpus()) - 1;
    return (mask & online) ? 0 : -EINVAL_LINUX;
}

SYS(getcpu)
{
    uint32_t zero = 0;
    if (a[0] && !mm_write(t->mm, uarg(t, a[0]), &zero, 4))
        return -EFAULT_LINUX;
    if (a[1] && !mm_write(t->mm, uarg(t, a[1]), &zero, 4))
        return -EFAULT_LINUX;
    return 0;
}

/* ---- pipes and eventfds ---- */

static int64_t do_pipe2(struct task *t, uint64_t ufds, int flags)
{
    int fds[2];
    int r = pipe_create(t, flags, fds);
    if (r < 0)
        return r;
    int32_t out[2] = { fds[0], fds[1] };
    if (!mm_write(t->mm, ufds, out, sizeof(out))) {
        pipe_destroy(t, fds);
        return -EFAULT_LINUX;
    }
    return 0;
}

SYS(pipe) { return do_pipe2(t, uarg(t, a[0]), 0); }
SYS(pipe2) { return do_pipe2(t, uarg(t, a[0]), (int)a[1]); }
SYS(eventfd) { return eventfd_create(t, (uint32_t)a[0], 0); }
SYS(eventfd2) { return eventfd_create(t, (uint32_t)a[0], (int)a[1]); }

/* ---- capabilities (kernel/capability.c), per task ---- */

#define CAP_V1_LINUX 0x19980330u
#define CAP_V2_LINUX 0x20071026u
#define CAP_V3_LINUX 0x20080522u


/* ---- memfd_create, kcmp ---- */

SYS(memfd_create)
{
    return memfd_file_create(t, uarg(t, a[0]), (unsigned)a[1]);
}

/* What descriptor `fd` of task p names, as one address per open file
 * description (NULL: none).  A descriptor dup'd or inherited names the
 * same; a granted host descriptor is known by its host number (two host
 * numbers for one description look different here). */
static const void *kcmp_file(struct task *p, uint32_t fd)
{
    const struct gfd *g = p->exited || !p->fds ? NULL : fdtable_get(p->fds, fd);
    if (!g)
        return NULL;
    switch (g->kind) {
    case GFD_FILE:
        return g->file;
    case GFD_GRANT:
        return g->ofile;
    case GFD_HOST:
        return (const void *)(uintptr_t)(g->host + 1);
    default:
        return g; /* an emulated device or /proc file: its descriptor */
    }
}

/* kcmp_ptr(): 0 the same, 1 or 2 an order (Linux obfuscates it with a
 * random key per type; only its consistency is promised). */
static int64_t kcmp_order(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y ? 1 : x > y ? 2 : 0;
}

SYS(kcmp)
{
    (void)t;
    /* Both tasks first (ESRCH), then the type; every guest task may look
     * at every other (one user: ptrace_may_access holds). */
    struct task *p1 = task_lookup((int32_t)a[0]), *p2 = task_lookup((int32_t)a[1]);
    if (!p1 || !p2)
        return -ESRCH_LINUX;
    switch ((int)a[2]) {
    case KCMP_FILE_LINUX: {
        /* The indices are unsigned int fds: the high bits go. */
        const void *f1 = kcmp_file(p1, (uint32_t)a[3]), *f2 = kcmp_file(p2, (uint32_t)a[4]);
        if (!f1 || !f2)
            return -EBADF_LINUX;
        return kcmp_order(f1, f2);
    }
    case KCMP_VM_LINUX:
        return kcmp_order(p1->exited ? NULL : p1->mm, p2->exited ? NULL : p2->mm);
    case KCMP_FILES_LINUX:
        return kcmp_order(p1->exited ? NULL : p1->fds, p2->exited ? NULL : p2->fds);
    case KCMP_SIGHAND_LINUX:
        return kcmp_order(p1->exited ? NULL : p1->sighand, p2->exited ? NULL : p2->sighand);
    case KCMP_FS_LINUX:
        /* fs_struct is not kept apart here: the threads of a process share
         * it (pthread_create's CLONE_FS), processes do not. */
        return kcmp_order(p1->exited ? NULL : p1->group, p2->exited ? NULL : p2->group);
    case KCMP_IO_LINUX:
    case KCMP_SYSVSEM_LINUX:
        /* No io_context (block I/O) and no SysV semaphore undo list exist
         * here: both NULL, the same. */
        return 0;
    case KCMP_EPOLL_TFD_LINUX:
        /* Not emulated: what a kernel without CONFIG_EPOLL answers. */
        return -EOPNOTSUPP_LINUX;
    default:
        return -EINVAL_LINUX;
    }
}
