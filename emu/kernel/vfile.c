#include "emu/kernel/vfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h> /* getentropy */
#endif

#include <glib.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/kernel/vfs.h"
#include "emu/kernel/task.h"

/* HPAGE_PMD_SIZE: a PMD maps 2 MiB on every x86 kernel with 4-level or
 * 5-level paging, whatever the host's own page size. */
#define THP_PMD_SIZE_TEXT "2097152\n"

/* A decimal pid at *p, advanced past it; 0 if none. */
static int32_t pid_at(const char **p)
{
    int64_t v = 0;
    const char *s = *p;
    if (*s < '1' || *s > '9')
        return 0;
    while (*s >= '0' && *s <= '9' && v < INT32_MAX)
        v = v * 10 + (*s++ - '0');
    *p = s;
    return v <= INT32_MAX ? (int32_t)v : 0;
}

/* The task a /proc path's directory part names for t (/proc/self,
 * /proc/thread-self, /proc/<tid>, any of them followed by /task/<tid>),
 * with *rest at what follows it; NULL if none. */
static struct task *proc_dir_task(struct task *t, const char *path, const char **rest)
{
    if (strncmp(path, "/proc/", 6))
        return NULL;
    const char *p = path + 6;
    struct task *dir;
    if (!strncmp(p, "self", 4) && (p[4] == '/' || !p[4])) {
        dir = t->group->leader;
        p += 4;
    } else if (!strncmp(p, "thread-self", 11) && (p[11] == '/' || !p[11])) {
        dir = t;
        p += 11;
    } else {
        /* /proc/<tid> works for any thread, listed or not. */
        dir = task_lookup(pid_at(&p));
    }
    if (!dir || (*p && *p != '/'))
        return NULL;
    if (!strncmp(p, "/task/", 6)) {
        /* /proc/<pid>/task/<tid>: a thread of that process. */
        p += 6;
        struct task *th = task_lookup(pid_at(&p));
        if (!th || th->group != dir->group || (*p && *p != '/'))
            return NULL;
        dir = th;
    }
    *rest = p;
    return dir;
}

/* The files of a /proc/<pid> directory (and of task/<tid>), with their
 * modes: syscall is the tracer's (0400, a ptrace access check natively). */
static const struct {
    const char *leaf;
    enum vfile_id id;
    uint32_t mode;
} proc_leaves[] = {
    { "status", VFILE_PROC_STATUS, 0444 },
    { "maps", VFILE_PROC_MAPS, 0444 },
    { "stat", VFILE_PROC_STAT, 0444 },
    { "syscall", VFILE_PROC_SYSCALL, 0400 },
};

bool vfile_is_proc(int id)
{
    for (size_t i = 0; i < G_N_ELEMENTS(proc_leaves); i++)
        if ((int)proc_leaves[i].id == id)
            return true;
    return id == VFILE_PROC_TASK_STAT;
}

static const char *proc_leaf(int id)
{
    for (size_t i = 0; i < G_N_ELEMENTS(proc_leaves); i++)
        if ((int)proc_leaves[i].id == id)
            return proc_leaves[i].leaf;
    return "stat"; /* VFILE_PROC_TASK_STAT */
}

struct task *vfile_proc_task(struct task *t, const char *path, const char *leaf)
{
    const char *rest;
    struct task *dir = proc_dir_task(t, path, &rest);
    return dir && rest[0] == '/' && !strcmp(rest + 1, leaf) ? dir : NULL;
}

int64_t vfile_fd_link(struct task *t, const char *path, char *out, size_t size)
{
    const char *rest;
    struct task *dir = proc_dir_task(t, path, &rest);
    if (!dir || strncmp(rest, "/fd/", 4) || !g_ascii_isdigit(rest[4]))
        return 0;
    const char *p = rest + 4;
    int32_t fd = pid_at(&p);
    if (*p)
        return 0;
    const struct gfd *g = dir->fds ? fdtable_get(dir->fds, fd) : NULL;
    if (!g)
        return -ENOENT_LINUX;
    int n;
    switch (g->kind) {
    case GFD_VIRTUAL: {
        static const char *const paths[] = {
            [VFILE_NULL] = "/dev/null", [VFILE_ZERO] = "/dev/zero",
            [VFILE_URANDOM] = "/dev/urandom", [VFILE_THP_PMD_SIZE] = THP_PMD_SIZE_PATH,
        };
        if (vfile_is_proc(g->vfile))
            n = snprintf(out, size, "/proc/%d/%s", g->tid, proc_leaf(g->vfile));
        else
            n = snprintf(out, size, "%s", paths[g->vfile]);
        break;
    }
    case GFD_FILE: {
        uint32_t mode = 0;
        uint64_t ino = 0;
        if (g->file->ops->stat)
            g->file->ops->stat(g->file, &mode, &ino);
        if ((mode & S_IFMT_LINUX) == S_IFIFO_LINUX || (mode & S_IFMT_LINUX) == S_IFSOCK_LINUX)
            n = snprintf(out, size, "%s:[%" PRIu64 "]",
                         (mode & S_IFMT_LINUX) == S_IFIFO_LINUX ? "pipe" : "socket", ino);
        else if (g->file->ops->link_name)
            n = g->file->ops->link_name(g->file, out, size);
        else if (g->file->ops->link)
            n = snprintf(out, size, "%s", g->file->ops->link);
        else
            n = snprintf(out, size, "anon_inode:[%s]", g->file->ops->name);
        break;
    }
    case GFD_GRANT:
        n = snprintf(out, size, "%s", g->ofile->path);
        break;
    case GFD_PROC_SECCOMP:
        n = snprintf(out, size, "/proc/%d/seccomp", dir->group->tgid);
        break;
    default:
        /* A granted host descriptor: its host name is not the guest's. */
        return -ENOENT_LINUX;
    }
    return MIN(n, (int)size - 1);
}

bool vfile_proc_dir(struct task *t, const char *path)
{
    const char *rest;
    return proc_dir_task(t, path, &rest) && (!*rest || !strcmp(rest, "/task"));
}

/* Every emulated file at its places; PID stands for the guest's process
 * id.  /proc has more names for the same files (a tid, task/<tid>), which
 * vfile_lookup() resolves and the drawn tree does not list. */
static const struct {
    const char *path;
    enum vfile_id id;
} places[] = {
    { "/dev/null", VFILE_NULL },
    { "/dev/zero", VFILE_ZERO },
    { "/dev/urandom", VFILE_URANDOM },
    { "/proc/self/status", VFILE_PROC_STATUS },
    { "/proc/thread-self/status", VFILE_PROC_STATUS },
    { "/proc/PID/status", VFILE_PROC_STATUS },
    { "/proc/self/maps", VFILE_PROC_MAPS },
    { "/proc/thread-self/maps", VFILE_PROC_MAPS },
    { "/proc/PID/maps", VFILE_PROC_MAPS },
    { "/proc/self/stat", VFILE_PROC_STAT },
    { "/proc/thread-self/stat", VFILE_PROC_TASK_STAT },
    { "/proc/PID/stat", VFILE_PROC_STAT },
    { "/proc/self/syscall", VFILE_PROC_SYSCALL },
    { "/proc/thread-self/syscall", VFILE_PROC_SYSCALL },
    { "/proc/PID/syscall", VFILE_PROC_SYSCALL },
    { THP_PMD_SIZE_PATH, VFILE_THP_PMD_SIZE },
};

size_t vfile_place_count(void)
{
    return G_N_ELEMENTS(places);
}

const char *vfile_place(size_t i, char *buf, size_t len, enum vfile_id *id)
{
    const char *path = places[i].path, *pid = strstr(path, "/PID/");
    *id = places[i].id;
    if (!pid)
        return path;
    g_snprintf(buf, len, "%.*s/%d/%s", (int)(pid - path), path, (int)getpid(), pid + 5);
    return buf;
}

GPtrArray *vfile_proc_task_entries(struct task *t, const char *path)
{
    const char *rest;
    struct task *dir = proc_dir_task(t, path, &rest);
    if (!dir || strcmp(rest, "/task"))
        return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const struct thread_group *g = dir->group;
    g_ptr_array_add(names, g_strdup_printf("%d", g->leader->tid));
    for (GList *l = g->threads.head; l; l = l->next) {
        const struct task *th = l->data;
        if (th != g->leader)
            g_ptr_array_add(names, g_strdup_printf("%d", th->tid));
    }
    return names;
}

int vfile_lookup(struct task *t, const char *path, int32_t *tid)
{
    /* The files outside /proc have one name each. */
    for (size_t i = 0; i < G_N_ELEMENTS(places); i++)
        if (strncmp(places[i].path, "/proc/", 6) && !strcmp(path, places[i].path))
            return (int)places[i].id;
    for (size_t i = 0; i < G_N_ELEMENTS(proc_leaves); i++) {
        struct task *p = vfile_proc_task(t, path, proc_leaves[i].leaf);
        if (!p)
            continue;
        *tid = p->tid;
        /* /proc/<pid>/stat sums the process; task/<tid>/stat and
         * thread-self's are the thread's own (do_task_stat's `whole`). */
        if (proc_leaves[i].id == VFILE_PROC_STAT &&
            (strstr(path, "/task/") || !strncmp(path, "/proc/thread-self/", 18)))
            return VFILE_PROC_TASK_STAT;
        return (int)proc_leaves[i].id;
    }
    return -1;
}

int64_t vfile_open(struct task *t, int id, int32_t tid, int flags)
{
    /* The status file is mode 0444: opening it for writing takes root's
     * DAC override, as natively (and a write then fails). */
    if (vfile_is_proc(id) && (flags & O_ACCMODE_LINUX) != O_RDONLY_LINUX && geteuid() != 0)
        return -EACCES_LINUX;
    /* A sysfs attribute without a store method: kernfs_fop_open refuses
     * writing, even to root. */
    if (id == VFILE_THP_PMD_SIZE && (flags & O_ACCMODE_LINUX) != O_RDONLY_LINUX)
        return -EACCES_LINUX;
    int fd = fdtable_alloc(t->fds);
    if (fd < 0)
        return fd;
    fdtable_install(t->fds, fd,
                    (struct gfd){ .kind = GFD_VIRTUAL, .vfile = id, .tid = tid,
                                  .cloexec = (flags & O_CLOEXEC_LINUX) != 0 });
    return fd;
}

int64_t vfile_fill(struct task *t, uint64_t buf, uint64_t count, bool random)
{
    if (count > MAX_RW_COUNT_LINUX)
        count = MAX_RW_COUNT_LINUX;
    if (count == 0)
        return 0;
    struct iovec iov[64];
    uint64_t covered;
    (void)mm_user_prefix(t->mm, buf, count, PROT_WRITE_LINUX); /* a stack grows first */
    mm_will_write(t->mm, buf, count);
    int n = mm_iovecs(t->mm, buf, count, PROT_WRITE_LINUX, iov, 64, &covered);
    if (n == 0)
        return -EFAULT_LINUX;
    for (int i = 0; i < n; i++) {
        uint8_t *p = iov[i].iov_base;
        if (!random) {
            memset(p, 0, iov[i].iov_len);
            continue;
        }
        for (size_t left = iov[i].iov_len; left;) {
            size_t k = MIN(left, 256); /* getentropy's limit */
            if (getentropy(p, k) != 0)
                return -EIO_LINUX;
            p += k;
            left -= k;
        }
    }
    mm_written(t->mm, buf, covered);
    mm_anon_write(t->mm, buf, covered);
    return (int64_t)covered;
}

static void sigset_line(GString *s, const char *name, uint64_t set)
{
    g_string_append_printf(s, "%s:\t%016" G_GINT64_MODIFIER "x\n", name, set);
}

/* get_task_state(): the letter ps shows.  There is no stopped task here
 * (group stop is not emulated), so no 'T'. */
static char task_state(const struct task *t, const struct task *reader)
{
    if (t->exited)
        return 'Z';
    bool uninterruptible;
    if (t == reader || !sched_task_sleeping(t, &uninterruptible))
        return 'R';
    /* TASK_KILLABLE counts as uninterruptible: 'D'. */
    return uninterruptible ? 'D' : 'S';
}

/* The session of every guest process: seccomp-emu's own (the guest's
 * processes are all in its process group, as getpgrp answers). */
static pid_t proc_session(void)
{
    return getsid(0);
}

/* The process's parent as /proc shows it: seccomp-emu's own parent for the
 * first process, init for an orphan. */
static int proc_ppid(const struct task *t)
{
    const struct thread_group *g = t->group;
    return g->initial ? (int)getppid() : g->parent ? g->parent->tgid : 1;
}

/* The signals t ignores and catches (collect_sigign_sigcatch). */
static void sig_actions(const struct task *t, uint64_t *ignored, uint64_t *caught)
{
    *ignored = *caught = 0;
    for (int sig = 1; t->sighand && sig <= NSIG_LINUX_ALL; sig++) {
        uint64_t h = t->sighand->action[sig].handler;
        if (h == SIG_IGN_LINUX)
            *ignored |= 1ull << (sig - 1);
        else if (h != SIG_DFL_LINUX)
            *caught |= 1ull << (sig - 1);
    }
}

/* /proc/<tid>/status of task `t`, as `reader` sees it. */
static char *vfile_proc_status(const struct task *t, const struct task *reader)
{
    GString *s = g_string_new(NULL);
    const struct thread_group *g = t->group;
    static const char *const states[] = { ['R'] = "R (running)", ['S'] = "S (sleeping)",
                                          ['D'] = "D (disk sleep)", ['Z'] = "Z (zombie)" };
    const char *state = states[(unsigned char)task_state(t, reader)];
    int ppid = proc_ppid(t);
    /* Umask is left out: the guest has no umask of its own here. */
    g_string_append_printf(s, "Name:\t%s\nState:\t%s\n", t->comm, state);
    g_string_append_printf(s, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n",
                           (int)g->tgid, (int)t->tid, ppid);
    g_string_append_printf(s, "Uid:\t%u\t%u\t%u\t%u\n", (unsigned)getuid(),
                           (unsigned)geteuid(), (unsigned)geteuid(), (unsigned)geteuid());
    g_string_append_printf(s, "Gid:\t%u\t%u\t%u\t%u\n", (unsigned)getgid(),
                           (unsigned)getegid(), (unsigned)getegid(), (unsigned)getegid());
    g_string_append_printf(s, "Threads:\t%u\n", g_queue_get_length((GQueue *)&g->threads));
    uint64_t ignored, caught;
    sig_actions(t, &ignored, &caught);
    sigset_line(s, "SigPnd", t->sig.pending.set);
    sigset_line(s, "ShdPnd", t->group->shared_pending.set);
    sigset_line(s, "SigBlk", t->sig.blocked);
    sigset_line(s, "SigIgn", ignored);
    sigset_line(s, "SigCgt", caught);
    sigset_line(s, "CapInh", t->cap_inheritable);
    sigset_line(s, "CapPrm", t->cap_permitted);
    sigset_line(s, "CapEff", t->cap_effective);
    sigset_line(s, "CapBnd", t->cap_bounding);
    sigset_line(s, "CapAmb", 0);
    /* Mode 3 (dead) shows on a leader seccomp killed while its threads
     * live on: a zombie. */
    g_string_append_printf(s, "NoNewPrivs:\t%d\nSeccomp:\t%d\nSeccomp_filters:\t%u\n",
                           t->no_new_privs ? 1 : 0, (int)t->mode, t->filters ? t->filters->len : 0);
    return g_string_free(s, FALSE);
}

/* task->flags as a user task has them (PF_*): PF_RANDOMIZE, PF_FORKNOEXEC
 * until an execve, and what do_exit leaves on a zombie. */
#define PF_EXITING_LINUX 0x4u
#define PF_POSTCOREDUMP_LINUX 0x8u
#define PF_FORKNOEXEC_LINUX 0x40u
#define PF_SIGNALED_LINUX 0x400u
#define PF_NOFREEZE_LINUX 0x8000u
#define PF_RANDOMIZE_LINUX 0x400000u

static uint64_t task_flags(const struct task *t)
{
    uint64_t f = PF_RANDOMIZE_LINUX | (t->forked ? PF_FORKNOEXEC_LINUX : 0);
    if (t->exited)
        f |= PF_EXITING_LINUX | PF_POSTCOREDUMP_LINUX | PF_NOFREEZE_LINUX |
             (t->state == TASK_SIGNALED ? PF_SIGNALED_LINUX : 0);
    return f;
}

/* USER_HZ clock ticks, as nsec_to_clock_t() gives them. */
static uint64_t clock_ticks(int64_t ns)
{
    return ns > 0 ? (uint64_t)ns / (1000000000 / USER_HZ_LINUX) : 0;
}

/* /proc/<tid>/stat (do_task_stat): `whole` for /proc/<pid>/stat, which
 * speaks for the process (its CPU time, and no wait channel once it has
 * threads), else for the thread alone.  seccomp-emu keeps no page-fault
 * counts, resident set or the ELF's code, argument and environment
 * bounds: those fields read as natively for a reader without ptrace
 * access (rss 0, start/end code 1, the rest 0); CPU number 0, no
 * controlling terminal (tty 0, its group -1), nice 0, SCHED_NORMAL. */
static char *vfile_proc_stat(const struct task *t, const struct task *reader, bool whole)
{
    const struct thread_group *g = t->group;
    char state = task_state(t, reader);
    unsigned threads = g_queue_get_length((GQueue *)&g->threads);
    int64_t cpu = whole ? g->cputime_ns : t->cputime_ns;
    uint64_t vsize = 0;
    for (const struct vma *v = t->exited || !t->mm ? NULL : mm_next(t->mm, 0); v;
         v = mm_next(t->mm, v->end))
        if (!v->hidden)
            vsize += v->end - v->start;
    uint64_t ignored, caught;
    sig_actions(t, &ignored, &caught);
    /* A leader's exit signal is its process's; a thread's is -1. */
    int exit_signal = t != g->leader ? -1 : g->initial ? SIGCHLD_LINUX : g->exit_signal;
    /* The wait status a zombie leaves (task->exit_code): the process's
     * once every thread is gone, else the leader's own exit. */
    int exit_code = !t->exited ? 0
                    : g->zombie ? g->exit_status
                    : t->state == TASK_EXITED ? (t->exit_code & 0xff) << 8 : t->signo & 0x7f;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "%d (%s) %c %d %d %d 0 -1 %" PRIu64 " 0 0 0 0 ", (int)t->tid, t->comm,
                           state, proc_ppid(t), (int)getpgrp(), (int)proc_session(), task_flags(t));
    /* The guest runs at seccomp-emu's own nice value, as it would natively
     * in its place (priority: 20 + nice for SCHED_NORMAL). */
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    if (errno)
        nice = 0;
    g_string_append_printf(s, "%" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %d %d %u 0 %" PRIu64 " ",
                           clock_ticks(cpu), clock_ticks(whole ? g->children_cputime_ns : 0),
                           (uint64_t)0, 20 + nice, nice, threads, clock_ticks(t->start_ns));
    g_string_append_printf(s, "%" PRIu64 " 0 %" PRIu64 " %d %d 0 0 0 ", vsize,
                           (uint64_t)RLIM_INFINITY_LINUX, t->exited ? 0 : 1, t->exited ? 0 : 1);
    g_string_append_printf(s, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " ",
                           t->sig.pending.set & 0x7fffffff, t->sig.blocked & 0x7fffffff,
                           ignored & 0x7fffffff, caught & 0x7fffffff);
    /* wchan: 1 while it sleeps (and there is one task to speak of). */
    bool wchan = state != 'R' && (!whole || threads < 2);
    /* CPU, rt_priority, policy, blkio ticks, guest times, then the
     * seven data, brk, argument and environment bounds. */
    g_string_append_printf(s, "%d 0 0 %d 0 0 0 0 0 0 0 0 0 0 0 0 0 %d\n", wchan ? 1 : 0,
                           exit_signal, exit_code);
    return g_string_free(s, FALSE);
}

/* /proc/<tid>/syscall (proc_pid_syscall): the call a blocked task is in,
 * with its six arguments, user stack and return address; "running" for a
 * task on or waiting for a CPU; a zombie has no registers left. */
static char *vfile_proc_syscall(const struct task *t, const struct task *reader)
{
    if (t->exited)
        return g_strdup("-1 0x0 0x0\n");
    bool uninterruptible;
    if ((t != reader && !sched_task_sleeping(t, &uninterruptible)) ||
        !t->call.active)
        return g_strdup("running\n");
    const struct call_regs *c = &t->call;
    return g_strdup_printf("%d 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
                           " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
                           (int)c->nr, c->args[0], c->args[1], c->args[2], c->args[3], c->args[4],
                           c->args[5], c->sp, c->ip);
}

/* What /proc/PID/maps names a mapping (show_map_vma): the program's own
 * segments by its path, the heap, stack, vDSO and its data pages by their
 * brackets, and anonymous memory by nothing. */
static const char *maps_name(const struct mm *mm, const struct vma *v)
{
    if (!v->name)
        return NULL;
    /* The program's pages past its file's, .bss beyond the last page that
     * holds file data, are anonymous memory (the ELF loader's
     * vm_brk_flags()). */
    if (!strcmp(v->name, "[elf]"))
        return v->file ? mm->exe_path : NULL;
    if (!strcmp(v->name, "[heap]") || !strcmp(v->name, "[vdso]") || !strcmp(v->name, "[vvar]") ||
        !strcmp(v->name, "[vvar_vclock]") || vma_is_stack(v))
        return v->name;
    return NULL;
}

/* /proc/PID/maps: one line per mapping as show_vma_header_prefix prints
 * it, the name padded to the column a 64-bit kernel pads to (for compat
 * tasks too).  One line per VMA as Linux would have merged them
 * (mm_vma_end), split where the names differ (the heap and the .bss
 * before it); seccomp-emu's own page is not shown.
 * No mapping is file-backed here: offsets, devices and inodes are 0. */
static char *vfile_proc_maps(const struct task *t)
{
    const struct mm *mm = t->mm;
    GString *s = g_string_new(NULL);
    const struct vma *v = mm_next(mm, 0);
    while (v) {
        if (v->hidden) {
            v = mm_next(mm, v->end);
            continue;
        }
        uint64_t start = v->start, vma_end = mm_vma_end(mm, v), end = v->end;
        const char *name = maps_name(mm, v);
        const struct vma *n;
        while (end < vma_end && (n = mm_next(mm, end)) && g_strcmp0(maps_name(mm, n), name) == 0)
            end = n->end;
        size_t line = s->len;
        g_string_append_printf(s, "%08" G_GINT64_MODIFIER "x-%08" G_GINT64_MODIFIER "x %c%c%c%c "
                               "00000000 00:00 0 ",
                               start, end, v->prot & PROT_READ_LINUX ? 'r' : '-',
                               v->prot & PROT_WRITE_LINUX ? 'w' : '-',
                               v->prot & PROT_EXEC_LINUX ? 'x' : '-', v->shared ? 's' : 'p');
        if (name) {
            while (s->len - line < 73) /* seq_pad: 25 + 6 * sizeof(long) - 1 */
                g_string_append_c(s, ' ');
            g_string_append(s, name);
        }
        g_string_append_c(s, '\n');
        v = mm_next(mm, end);
    }
    return g_string_free(s, FALSE);
}

int64_t vfile_read(struct task *t, struct gfd *g, uint64_t buf, uint64_t count, int64_t offset)
{
    switch (g->vfile) {
    case VFILE_NULL:
        return 0;
    case VFILE_ZERO:
        return vfile_fill(t, buf, count, false);
    case VFILE_URANDOM:
        return vfile_fill(t, buf, count, true);
    default: {
        g_autofree char *text = NULL;
        if (g->vfile == VFILE_THP_PMD_SIZE) {
            text = g_strdup(THP_PMD_SIZE_TEXT);
        } else {
            /* The task the file was opened for; gone once it is reaped. */
            struct task *p = task_lookup(g->tid);
            if (!p)
                return -ESRCH_LINUX;
            switch (g->vfile) {
            case VFILE_PROC_MAPS:
                text = vfile_proc_maps(p);
                break;
            case VFILE_PROC_STAT:
            case VFILE_PROC_TASK_STAT:
                text = vfile_proc_stat(p, t, g->vfile == VFILE_PROC_STAT);
                break;
            case VFILE_PROC_SYSCALL:
                text = vfile_proc_syscall(p, t);
                break;
            default:
                text = vfile_proc_status(p, t);
            }
        }
        size_t len = strlen(text);
        uint64_t at = offset >= 0 ? (uint64_t)offset : g->pos;
        if (at >= len)
            return 0;
        uint64_t n = MIN(count, len - at);
        if (!mm_write(t->mm, buf, text + at, n))
            return -EFAULT_LINUX;
        if (offset < 0)
            g->pos = at + n;
        return (int64_t)n;
    }
    }
}

int64_t vfile_write(struct task *t, struct gfd *g, uint64_t buf, uint64_t count)
{
    (void)t, (void)buf;
    if (vfile_is_proc(g->vfile))
        return -EINVAL_LINUX; /* a proc file without a write method */
    if (g->vfile == VFILE_THP_PMD_SIZE)
        return -EBADF_LINUX; /* opened read-only: open refuses writing */
    /* The devices take everything (urandom mixes it in). */
    return (int64_t)MIN(count, 0x7ffff000);
}

void vfile_stat(const struct gfd *g, uint32_t *mode, uint64_t *rdev_major,
                uint64_t *rdev_minor)
{
    static const unsigned minor[] = { [VFILE_NULL] = 3, [VFILE_ZERO] = 5, [VFILE_URANDOM] = 9 };
    if (vfile_is_proc(g->vfile) || g->vfile == VFILE_THP_PMD_SIZE) {
        *mode = S_IFREG_LINUX | (g->vfile == VFILE_PROC_SYSCALL ? 0400 : 0444);
        *rdev_major = *rdev_minor = 0;
        return;
    }
    *mode = S_IFCHR_LINUX | 0666;
    *rdev_major = 1;
    *rdev_minor = minor[g->vfile];
}
