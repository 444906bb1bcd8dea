#include "emu/kernel/vfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
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
        if (g->vfile == VFILE_PROC_STATUS || g->vfile == VFILE_PROC_MAPS)
            n = snprintf(out, size, "/proc/%d/%s", g->tid,
                         g->vfile == VFILE_PROC_STATUS ? "status" : "maps");
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
    struct task *p = vfile_proc_task(t, path, "status");
    if (p) {
        *tid = p->tid;
        return VFILE_PROC_STATUS;
    }
    p = vfile_proc_task(t, path, "maps");
    if (p) {
        *tid = p->tid;
        return VFILE_PROC_MAPS;
    }
    return -1;
}

int64_t vfile_open(struct task *t, int id, int32_t tid, int flags)
{
    /* The status file is mode 0444: opening it for writing takes root's
     * DAC override, as natively (and a write then fails). */
    if ((id == VFILE_PROC_STATUS || id == VFILE_PROC_MAPS) &&
        (flags & O_ACCMODE_LINUX) != O_RDONLY_LINUX &&
        geteuid() != 0)
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
    return (int64_t)covered;
}

static void sigset_line(GString *s, const char *name, uint64_t set)
{
    g_string_append_printf(s, "%s:\t%016" G_GINT64_MODIFIER "x\n", name, set);
}

/* /proc/<tid>/status of task `t`, as `reader` sees it. */
static char *vfile_proc_status(const struct task *t, const struct task *reader)
{
    GString *s = g_string_new(NULL);
    const struct thread_group *g = t->group;
    const char *state = t->exited ? "Z (zombie)" : t == reader || !t->se.sleeping ? "R (running)"
                                                                                  : "S (sleeping)";
    int ppid = g->initial ? (int)getppid() : g->parent ? g->parent->tgid : 1;
    /* Umask is left out: the guest has no umask of its own here. */
    g_string_append_printf(s, "Name:\t%s\nState:\t%s\n", t->comm, state);
    g_string_append_printf(s, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n",
                           (int)g->tgid, (int)t->tid, ppid);
    g_string_append_printf(s, "Uid:\t%u\t%u\t%u\t%u\n", (unsigned)getuid(),
                           (unsigned)geteuid(), (unsigned)geteuid(), (unsigned)geteuid());
    g_string_append_printf(s, "Gid:\t%u\t%u\t%u\t%u\n", (unsigned)getgid(),
                           (unsigned)getegid(), (unsigned)getegid(), (unsigned)getegid());
    g_string_append_printf(s, "Threads:\t%u\n", g_queue_get_length((GQueue *)&g->threads));
    uint64_t ignored = 0, caught = 0;
    /* An exited task has no actions left to show. */
    for (int sig = 1; t->sighand && sig <= NSIG_LINUX_ALL; sig++) {
        uint64_t h = t->sighand->action[sig].handler;
        if (h == SIG_IGN_LINUX)
            ignored |= 1ull << (sig - 1);
        else if (h != SIG_DFL_LINUX)
            caught |= 1ull << (sig - 1);
    }
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

/* What /proc/PID/maps names a mapping (show_map_vma): the program's own
 * segments by its path, the heap, stack and vDSO by their brackets, and
 * anonymous memory by nothing. */
static const char *maps_name(const struct mm *mm, const struct vma *v)
{
    if (!v->name)
        return NULL;
    if (!strcmp(v->name, "[elf]"))
        return mm->exe_path;
    if (!strcmp(v->name, "[heap]") || !strcmp(v->name, "[vdso]") || vma_is_stack(v))
        return v->name;
    return NULL;
}

/* /proc/PID/maps: one line per mapping as show_vma_header_prefix prints
 * it, the name padded to the column a 64-bit kernel pads to (for compat
 * tasks too).  Neighbours Linux would have merged (same protection,
 * sharing and name) are one line; seccomp-emu's own page is not shown.
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
        uint64_t start = v->start, end = v->end;
        const char *name = maps_name(mm, v);
        const struct vma *n;
        while ((n = mm_next(mm, end)) && n->start == end && !n->hidden && n->prot == v->prot &&
               n->shared == v->shared && g_strcmp0(maps_name(mm, n), name) == 0 &&
               !vma_is_stack(n) && !vma_is_stack(v))
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
            text = g->vfile == VFILE_PROC_MAPS ? vfile_proc_maps(p) : vfile_proc_status(p, t);
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
    if (g->vfile == VFILE_PROC_STATUS || g->vfile == VFILE_PROC_MAPS)
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
    if (g->vfile == VFILE_PROC_STATUS || g->vfile == VFILE_THP_PMD_SIZE ||
        g->vfile == VFILE_PROC_MAPS) {
        *mode = S_IFREG_LINUX | 0444;
        *rdev_major = *rdev_minor = 0;
        return;
    }
    *mode = S_IFCHR_LINUX | 0666;
    *rdev_major = 1;
    *rdev_minor = minor[g->vfile];
}
