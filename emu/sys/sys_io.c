/* read, write and their vector forms go to the host descriptor directly
 * from guest memory, so the guest gets exactly the host's partial counts. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/engine/host_tune.h"
#include "emu/kernel/async.h"
#include "abi/task_linux.h"
#include "emu/kernel/limits.h"
#include "emu/kernel/pipe.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/vfile.h"
#include "emu/kernel/vfs.h"
#include "emu/sys/sys.h"
#include "emu/sys/sys_host.h"
#include "emu/xlat.h"

#define MAX_HOST_IOV 64

static int64_t host_result(struct task *t, ssize_t n)
{
    if (n >= 0)
        return n;
    int e = xlat_errno_to_linux(errno);
    if (e == EPIPE_LINUX)
        signal_post(t, SIGPIPE_LINUX); /* the kernel sends it with -EPIPE */
    return -e;
}

/* The stacks grown ahead of one host transfer (guest_iov), each with
 * where in the transfer the copy first reaches its hole. */
struct grown_ahead {
    unsigned n;
    struct {
        uint64_t at;
        struct mm_growth g;
    } g[8];
};

/* Host iovecs for a guest buffer: its mapped pieces, then the guard for
 * whatever is not mapped, so the host kernel meets the fault where Linux
 * would and answers with its own rules.  Returns the count of iovecs.
 * Pieces that fill all `max` slots end the buffer there: the transfer
 * stops short, as at a fault, never with a guard over mapped memory.
 * `at`: where the buffer starts in the transfer. */
static int guest_iov(struct task *t, uint64_t buf, uint64_t len, bool writing, struct iovec *iov,
                     int max, struct grown_ahead *ahead, uint64_t at)
{
    uint64_t covered = 0;
    int n = 0;
    int prot = writing ? PROT_READ_LINUX : PROT_WRITE_LINUX;
    /* The host's copy cannot fault through the guest's page-fault handler:
     * a stack grows first, as the kernel's copy grows it at its first
     * byte in the hole (mm_user_prefix), and grown_settle takes it back
     * if the host's copy stops short of that byte. */
    if (len) {
        struct mm_growths gr = { 0 };
        (void)mm_user_prefix_ahead(t->mm, buf, len, prot, &gr);
        for (unsigned k = 0; k < gr.n && ahead->n < G_N_ELEMENTS(ahead->g); k++) {
            ahead->g[ahead->n].at = at + (gr.g[k].fault - buf);
            ahead->g[ahead->n++].g = gr.g[k];
        }
    }
    if (len && !writing)
        mm_will_write(t->mm, buf, len); /* the host writes the guest's buffer */
    if (len)
        n = mm_iovecs(t->mm, buf, len, prot, iov, max, &covered);
    if (covered < len && n < max) {
        iov[n].iov_base = mm_guard();
        iov[n].iov_len = len - covered;
        n++;
    }
    return n;
}

/* The host moved `r` bytes (none if it failed): a stack grown for a hole
 * its copy never reached had no fault on Linux, and is as it was (a read
 * at a pipe's or file's end, EAGAIN, an error found before the copy). */
static void grown_settle(struct task *t, const struct grown_ahead *ahead, ssize_t r)
{
    uint64_t moved = r > 0 ? (uint64_t)r : 0;
    for (unsigned k = ahead->n; k-- > 0;)
        if (ahead->g[k].at >= moved)
            mm_ungrow(t->mm, ahead->g[k].g.low, ahead->g[k].g.high);
}

/* A descriptor open only the other way answers EBADF before anything else
 * (vfs_read/vfs_write check f_mode first).  The host call itself says so;
 * this is asked only where seccomp-emu answers before making one: a bad
 * range (EFAULT) and the output limit (SIGXFSZ).  Not on every call: the
 * fcntl cost a quarter of a microsecond per write. */
static bool wrong_direction(int host, bool writing)
{
    int fl = fcntl(host, F_GETFL);
    return fl >= 0 && (fl & O_ACCMODE) == (writing ? O_RDONLY : O_WRONLY);
}

/* The host call for a guest read or write, retried on EINTR.  A blocking
 * descriptor must still give way to a signal the guest handles or dies of
 * (SA_RESTART decides on delivery): the timer thread interrupts the call.
 * False when a signal came before the call started and the call would
 * wait: it restarts. */
static bool host_io(struct task *t, int host, const struct iovec *iov, int n, bool writing,
                    int64_t offset, ssize_t *result)
{
    ssize_t r;
    for (;;) {
        if (!async_io_begin(t, host, writing))
            return false;
        if (n == 1) {
            /* One piece, nearly every call: the plain calls spare the
             * kernel its iovec import, a fifth of a one-byte write's
             * cost (bench/). */
            void *p = iov[0].iov_base;
            size_t len = iov[0].iov_len;
            if (offset >= 0)
                r = writing ? pwrite(host, p, len, offset) : pread(host, p, len, offset);
            else
                r = writing ? host_write(host, p, len) : host_read(host, p, len);
        } else if (offset >= 0)
            r = writing ? pwritev(host, iov, n, offset) : preadv(host, iov, n, offset);
        else
            r = writing ? writev(host, iov, n) : readv(host, iov, n);
        int err = errno;
        async_io_end();
        errno = err;
        if (!(r < 0 && err == EINTR))
            break;
    }
    *result = r;
    return true;
}

static int64_t rw_host(struct task *t, int host, uint64_t buf, uint64_t count, bool writing,
                       int64_t offset)
{
    if (!access_ok(buf, count))
        return wrong_direction(host, writing) ? -EBADF_LINUX : -EFAULT_LINUX;
    if (count > MAX_RW_COUNT_LINUX)
        count = MAX_RW_COUNT_LINUX;
    if (writing && count) {
        /* RLIMIT_FSIZE, applied to everything the guest writes. */
        if (limits_output_left(t) == 0 && wrong_direction(host, writing))
            return -EBADF_LINUX;
        int64_t allow = limits_output_allow(t, count);
        if (allow < 0)
            return -EFBIG_LINUX;
        count = (uint64_t)allow;
    }
    struct iovec iov[MAX_HOST_IOV];
    struct grown_ahead ahead = { 0 };
    int n = guest_iov(t, buf, count, writing, iov, MAX_HOST_IOV, &ahead, 0);
    ssize_t r;
    if (n == 0) {
        char dummy;
        r = writing ? write(host, &dummy, 0) : read(host, &dummy, 0);
    } else {
        bool started = host_io(t, host, iov, n, writing, offset, &r);
        grown_settle(t, &ahead, started ? r : 0);
        if (!started)
            return -ERESTARTSYS_LINUX;
    }
    if (!writing && r > 0) {
        mm_written(t->mm, buf, (uint64_t)r);
        mm_anon_write(t->mm, buf, (uint64_t)r);
    }
    if (writing && r > 0)
        limits_output_done(t, r);
    return host_result(t, r);
}

/* vfs_read()/vfs_write(): an end open only the other way is EBADF. */
static int64_t file_check(const struct file *f, bool writing)
{
    unsigned acc = f->flags & O_ACCMODE_LINUX;
    if (acc == (writing ? O_RDONLY_LINUX : O_WRONLY_LINUX))
        return -EBADF_LINUX;
    /* vfs_read()/vfs_write(): a file without the operation (epoll) */
    if (!(writing ? f->ops->write : f->ops->read))
        return -EINVAL_LINUX;
    return 0;
}

static int64_t do_rw(struct task *t, const uint64_t a[6], bool writing, int64_t offset)
{
    struct gfd *g = fdtable_get(t->fds, (int)a[0]);
    if (!g)
        return -EBADF_LINUX;
    uint64_t buf = a[1], count = a[2];
    if (in_compat_syscall(t)) {
        buf = (uint32_t)buf;
        count = (uint32_t)count;
    }
    if (g->kind == GFD_PROC_SECCOMP) {
        if (offset >= 0)
            return -ESPIPE_LINUX;
        if (writing)
            return seccomp_proc_write(t, buf, count);
        return seccomp_proc_read(t, &g->pos, buf, count);
    }
    if (g->kind == GFD_VIRTUAL) {
        if (offset >= 0 && g->vfile == VFILE_PROC_STATUS)
            return -ESPIPE_LINUX; /* seq_file reads only in order here */
        return writing ? vfile_write(t, g, buf, count) : vfile_read(t, g, buf, count, offset);
    }
    if (g->kind == GFD_GRANT) {
        /* Opened read-only; its offset is the guest's own, so reads are
         * positioned whatever else shares the host descriptor. */
        struct ofile *f = g->ofile;
        if (writing)
            return -EBADF_LINUX;
        if (f->type != OFILE_REG)
            return -EISDIR_LINUX;
        int64_t r = rw_host(t, f->host, buf, count, false, offset >= 0 ? offset : (int64_t)f->pos);
        if (r > 0 && offset < 0)
            f->pos += (uint64_t)r;
        return r;
    }
    if (g->kind == GFD_FILE) {
        const struct file_ops *ops = g->file->ops;
        /* ksys_pread64(): a pipe cannot seek, before anything else. */
        if (offset >= 0 && !(writing ? ops->write_at : ops->read_at))
            return -ESPIPE_LINUX;
        int64_t r = file_check(g->file, writing);
        if (r)
            return r;
        if (!access_ok(buf, count))
            return -EFAULT_LINUX;
        struct guest_iovec v = { buf, MIN(count, MAX_RW_COUNT_LINUX) };
        if (offset >= 0)
            return writing ? ops->write_at(t, g->file, &v, 1, (uint64_t)offset)
                           : ops->read_at(t, g->file, &v, 1, (uint64_t)offset);
        return writing ? ops->write(t, g->file, &v, 1) : ops->read(t, g->file, &v, 1);
    }
    return rw_host(t, g->host, buf, count, writing, offset);
}

SYS(read) { return do_rw(t, a, false, -1); }
SYS(write) { return do_rw(t, a, true, -1); }

static int64_t pos_arg(struct task *t, const uint64_t a[6])
{
    /* i386 passes the 64-bit offset in two registers, low word first. */
    if (in_compat_syscall(t))
        return (int64_t)((uint32_t)a[3] | ((uint64_t)(uint32_t)a[4] << 32));
    return (int64_t)a[3];
}

SYS(pread64)
{
    int64_t off = pos_arg(t, a);
    if (off < 0)
        return -EINVAL_LINUX;
    return do_rw(t, a, false, off);
}

SYS(pwrite64)
{
    int64_t off = pos_arg(t, a);
    if (off < 0)
        return -EINVAL_LINUX;
    return do_rw(t, a, true, off);
}

/* One iovec segment as the guest gave it, after the kernel's clamping. */
struct guest_range {
    uint64_t base, len;
};

/* readv/writev on an emulated file: import_iovec()'s checks, then the
 * file's own read or write of the whole vector. */
int64_t iovec_from_guest(const uint8_t *raw, uint64_t cnt, bool compat, struct guest_iovec *v)
{
    for (uint64_t i = 0; i < cnt; i++) {
        if (compat) {
            uint32_t w[2];
            memcpy(w, raw + i * 8, 8);
            v[i] = (struct guest_iovec){ w[0], w[1] };
            if ((int32_t)w[1] < 0)
                return -EINVAL_LINUX;
        } else {
            memcpy(&v[i].base, raw + i * 16, 8);
            memcpy(&v[i].len, raw + i * 16 + 8, 8);
            if ((int64_t)v[i].len < 0)
                return -EINVAL_LINUX;
        }
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < cnt; i++) {
        if (!access_ok(v[i].base, v[i].len))
            return -EFAULT_LINUX;
        if (v[i].len > MAX_RW_COUNT_LINUX - total)
            v[i].len = MAX_RW_COUNT_LINUX - total;
        total += v[i].len;
    }
    return 0;
}

static int64_t file_rwv(struct task *t, struct file *f, const uint8_t *raw, uint64_t cnt,
                        bool compat, bool writing)
{
    g_autofree struct guest_iovec *v = g_new(struct guest_iovec, cnt);
    int64_t r = iovec_from_guest(raw, cnt, compat, v);
    if (r)
        return r;
    return writing ? f->ops->write(t, f, v, (int)cnt) : f->ops->read(t, f, v, (int)cnt);
}

static int64_t do_rwv(struct task *t, const uint64_t a[6], bool writing)
{
    struct gfd *g = fdtable_get(t->fds, (int)a[0]);
    if (!g)
        return -EBADF_LINUX;
    if (g->kind == GFD_GRANT && writing)
        return -EBADF_LINUX; /* vfs_writev(): not open for writing */
    uint64_t vec = a[1];
    uint64_t cnt = (uint32_t)a[2];
    bool compat = in_compat_syscall(t);
    if (compat)
        vec = (uint32_t)vec;
    if (cnt == 0)
        return 0;
    if (cnt > UIO_MAXIOV_LINUX)
        return -EINVAL_LINUX;
    size_t esz = compat ? 8 : 16;
    if (g->kind == GFD_FILE) {
        int64_t r = file_check(g->file, writing);
        if (r)
            return r;
    }
    g_autofree uint8_t *raw = g_malloc(cnt * esz);
    if (!mm_read(t->mm, vec, raw, cnt * esz))
        return -EFAULT_LINUX;
    if (g->kind == GFD_FILE)
        return file_rwv(t, g->file, raw, cnt, compat, writing);
    int host = g->host;
    int64_t offset = -1;
    if (g->kind == GFD_GRANT) {
        if (g->ofile->type != OFILE_REG)
            return -EISDIR_LINUX;
        host = g->ofile->host;
        offset = (int64_t)g->ofile->pos;
    } else if (g->kind != GFD_HOST) {
        return -EINVAL_LINUX;
    }

    /* import_iovec: copying the vector refuses a negative length in any
     * segment (-EINVAL) before any segment's range is checked (-EFAULT);
     * then each range is checked as given, and only after that the total
     * is clamped; each segment becomes its mapped pieces plus the guard
     * for the rest. */
    for (uint64_t i = 0; i < cnt; i++) {
        if (compat) {
            uint32_t w[2];
            memcpy(w, raw + i * 8, 8);
            if ((int32_t)w[1] < 0)
                return -EINVAL_LINUX;
        } else {
            uint64_t len;
            memcpy(&len, raw + i * 16 + 8, 8);
            if ((int64_t)len < 0)
                return -EINVAL_LINUX;
        }
    }
    uint64_t total = 0, budget = writing ? limits_output_left(t) : UINT64_MAX;
    bool over_budget = false;
    struct iovec iovs[UIO_MAXIOV_LINUX];
    struct grown_ahead ahead = { 0 };
    int n = 0;
    g_autofree struct guest_range *seg = g_new(struct guest_range, cnt);
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t base, len;
        if (compat) {
            uint32_t w[2];
            memcpy(w, raw + i * 8, 8);
            base = w[0];
            len = w[1];
            if ((int32_t)len < 0)
                return -EINVAL_LINUX;
        } else {
            memcpy(&base, raw + i * 16, 8);
            memcpy(&len, raw + i * 16 + 8, 8);
            if ((int64_t)len < 0)
                return -EINVAL_LINUX;
        }
        if (!access_ok(base, len))
            return -EFAULT_LINUX;
        if (len > MAX_RW_COUNT_LINUX - total)
            len = MAX_RW_COUNT_LINUX - total;
        if (len > budget - total) {
            /* RLIMIT_FSIZE: a write stops short at the limit. */
            len = budget - total;
            over_budget = true;
        }
        total += len;
        seg[i] = (struct guest_range){ base, len };
        if (len && n < UIO_MAXIOV_LINUX)
            n += guest_iov(t, base, len, writing, iovs + n, UIO_MAXIOV_LINUX - n, &ahead,
                           total - len);
    }
    if (over_budget && total == 0) {
        if (wrong_direction(host, writing))
            return -EBADF_LINUX;
        if (limits_output_allow(t, 1) < 0)
            return -EFBIG_LINUX;
    }
    if (n == 0)
        return rw_host(t, host, 0, 0, writing, offset);
    ssize_t r;
    bool started = host_io(t, host, iovs, n, writing, offset, &r);
    grown_settle(t, &ahead, started ? r : 0);
    if (!started)
        return -ERESTARTSYS_LINUX;
    if (offset >= 0 && r > 0)
        g->ofile->pos += (uint64_t)r;
    if (writing && r > 0)
        limits_output_done(t, r);
    /* The host wrote behind the CPU's back: translations made from the
     * bytes it filled must go, segment by segment as the kernel fills them. */
    for (uint64_t i = 0, left = !writing && r > 0 ? (uint64_t)r : 0; i < cnt && left; i++) {
        uint64_t filled = MIN(seg[i].len, left);
        mm_written(t->mm, seg[i].base, filled);
        mm_anon_write(t->mm, seg[i].base, filled);
        left -= filled;
    }
    return host_result(t, r);
}

SYS(readv) { return do_rwv(t, a, false); }
SYS(writev) { return do_rwv(t, a, true); }

static bool is_proc_seccomp(struct task *t, const char *path)
{
    char pid_path[64];
    g_snprintf(pid_path, sizeof(pid_path), "/proc/%d/seccomp", (int)getpid());
    return !strcmp(path, "/proc/self/seccomp") || !strcmp(path, pid_path) ||
           !strcmp(path, "/proc/thread-self/seccomp");
    (void)t;
}

static int64_t do_open(struct task *t, int dirfd, uint64_t upath, int flags)
{
    char path[PATH_MAX_LINUX];
    int r = mm_read_string(t->mm, uarg(t, upath), path, sizeof(path));
    if (r < 0)
        return r;
    /* Under the 2.6.11 profile the seed's /proc/self/seccomp exists,
     * emulated, and nothing else; today's kernels have no such file. */
    if (t->profile == PROFILE_2611) {
        if (!is_proc_seccomp(t, path))
            return -ENOENT_LINUX;
        if (flags & O_CREAT_LINUX)
            return -EACCES_LINUX;
        int fd = fdtable_alloc(t->fds);
        if (fd < 0)
            return fd;
        fdtable_install(t->fds, fd, (struct gfd){ .kind = GFD_PROC_SECCOMP });
        return fd;
    }
    /* The namespace: grants, the emulated files, the tree that leads to
     * them (emu/kernel/vfs.c). */
    return vfs_open(t, dirfd, path, flags);
}

SYS(open) { return do_open(t, AT_FDCWD_LINUX, a[0], (int)a[1]); }

SYS(openat) { return do_open(t, (int)a[0], a[1], (int)a[2]); }

/* creat(2) is open(O_CREAT|O_WRONLY|O_TRUNC): in a read-only namespace,
 * EROFS where the directory exists. */
SYS(creat)
{
    return do_open(t, AT_FDCWD_LINUX, a[0], O_CREAT_LINUX | O_WRONLY_LINUX | O_TRUNC_LINUX);
}

SYS(close) { return fdtable_close(t->fds, (int)a[0]); }

static int64_t do_lseek(struct task *t, int fd, int64_t off, int whence)
{
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g)
        return -EBADF_LINUX;
    if (g->kind == GFD_GRANT)
        return ofile_lseek(g->ofile, off, whence);
    if (whence < SEEK_SET_LINUX || whence > SEEK_MAX_LINUX)
        return -EINVAL_LINUX;
    if (g->kind == GFD_PROC_SECCOMP) {
        /* 2.6.11 had no SEEK_DATA or SEEK_HOLE. */
        if (whence > SEEK_END_LINUX)
            return -EINVAL_LINUX;
        /* The seed's file used the default llseek: any position >= 0. */
        int64_t base = whence == SEEK_SET_LINUX ? 0 : whence == SEEK_CUR_LINUX ? (int64_t)g->pos : -1;
        if (base < 0 || base + off < 0)
            return -EINVAL_LINUX;
        g->pos = (uint64_t)(base + off);
        return (int64_t)g->pos;
    }
    if (g->kind == GFD_FILE && g->file->ops->llseek)
        return g->file->ops->llseek(g->file, off, whence);
    if (g->kind != GFD_HOST)
        return -ESPIPE_LINUX;
    return host_lseek(g->host, off, whence);
}

SYS(lseek)
{
    int64_t off = in_compat_syscall(t) ? (int64_t)(int32_t)a[1] : (int64_t)a[1];
    /* No -EOVERFLOW for an i386 caller past 2 GiB: the compat entry shares
     * ksys_lseek, whose off_t is 64 bits on x86_64, so the position moves
     * and the caller reads the low 32 bits of it in eax. */
    return do_lseek(t, (int)a[0], off, (int)a[2]);
}

SYS(llseek)
{
    int64_t off = (int64_t)(((uint64_t)(uint32_t)a[1] << 32) | (uint32_t)a[2]);
    int64_t r = do_lseek(t, (int)a[0], off, (int)a[4]);
    if (r < 0)
        return r;
    if (!mm_write(t->mm, (uint32_t)a[3], &r, 8))
        return -EFAULT_LINUX;
    return 0;
}

SYS(ioctl)
{
    struct gfd *g = fdtable_get(t->fds, (int)a[0]);
    if (!g)
        return -EBADF_LINUX;
    uint32_t cmd = (uint32_t)a[1];
    uint64_t arg = uarg(t, a[2]);
    /* The kernel answers these for every descriptor (do_vfs_ioctl). */
    if (cmd == FIOCLEX_LINUX || cmd == FIONCLEX_LINUX) {
        g->cloexec = cmd == FIOCLEX_LINUX;
        return 0;
    }
    if (g->kind == GFD_FILE) {
        switch (cmd) {
        case FIONBIO_LINUX: {
            int32_t on;
            if (!mm_read(t->mm, arg, &on, 4))
                return -EFAULT_LINUX;
            g->file->flags = on ? g->file->flags | O_NONBLOCK_LINUX
                                : g->file->flags & ~(unsigned)O_NONBLOCK_LINUX;
            return 0;
        }
        case FIONREAD_LINUX: {
            int64_t n = pipe_unread(g->file);
            if (n < 0)
                break;
            int32_t v = (int32_t)n;
            return mm_write(t->mm, arg, &v, 4) ? 0 : -EFAULT_LINUX;
        }
        default:
            break;
        }
        /* The file's own (vfs_ioctl), which may wait: it keeps the file
         * for the call, as fdget does, whoever closes the descriptor. */
        struct file *f = g->file;
        if (!f->ops->ioctl)
            return -ENOTTY_LINUX;
        file_get(f);
        int64_t r = f->ops->ioctl(t, f, cmd, arg);
        file_put(f);
        return r;
    }
    if (g->kind != GFD_HOST)
        return -ENOTTY_LINUX;
    switch (cmd) {
    case TCGETS_LINUX:
    case TIOCGWINSZ_LINUX:
        return host_tty_ioctl(t, g->host, cmd, arg);
    default:
        return -ENOTTY_LINUX;
    }
}

static int64_t dup_to(struct task *t, int64_t oldfd, int64_t newfd);

SYS(fcntl)
{
    struct gfd *g = fdtable_get(t->fds, (int)a[0]);
    if (!g)
        return -EBADF_LINUX;
    switch ((int)a[1]) {
    case F_GETFD_LINUX:
        return g->cloexec ? 1 : 0;
    case F_SETFD_LINUX:
        g->cloexec = a[2] & 1;
        return 0;
    case F_DUPFD_LINUX:
    case F_DUPFD_CLOEXEC_LINUX: {
        /* The lowest free descriptor at or above the argument. */
        uint64_t min = uarg(t, a[2]);
        if (min >= t->group->rlim[RLIMIT_NOFILE_LINUX].cur || min >= FD_MAX_GUEST)
            return -EINVAL_LINUX;
        int fd = fdtable_alloc_from(t->fds, (int)min);
        if (fd < 0)
            return fd;
        dup_to(t, (int)a[0], fd);
        t->fds->fd[fd].cloexec = (int)a[1] == F_DUPFD_CLOEXEC_LINUX;
        return fd;
    }
    case F_SETFL_LINUX: {
        /* setfl(): only these flags change; the rest stay as opened. */
        const int settable = O_APPEND_LINUX | O_NONBLOCK_LINUX | O_DIRECT_LINUX |
                             O_NOATIME_LINUX | O_FASYNC_LINUX;
        if (g->kind == GFD_GRANT) {
            g->ofile->flags = (g->ofile->flags & ~settable) | ((int)a[2] & settable);
            return 0;
        }
        /* An emulated file's are the emulator's to keep (O_NONBLOCK,
         * O_DIRECT for a pipe). */
        if (g->kind != GFD_FILE)
            return -EINVAL_LINUX;
        g->file->flags = (g->file->flags & ~(unsigned)(O_NONBLOCK_LINUX | O_DIRECT_LINUX)) |
                         ((unsigned)a[2] & (O_NONBLOCK_LINUX | O_DIRECT_LINUX));
        return 0;
    }
    case F_GETFL_LINUX: {
        if (g->kind == GFD_GRANT)
            return g->ofile->flags;
        else if (g->kind == GFD_FILE)
            return g->file->flags;
        if (g->kind != GFD_HOST)
            return O_RDWR_LINUX;
        int fl = fcntl(g->host, F_GETFL);
        if (fl < 0)
            return -xlat_errno_to_linux(errno);
        int acc = fl & O_ACCMODE;
        return acc == O_RDONLY ? O_RDONLY_LINUX : acc == O_WRONLY ? O_WRONLY_LINUX : O_RDWR_LINUX;
    }
    case F_ADD_SEALS_LINUX:
    case F_GET_SEALS_LINUX: {
        /* memfd_fcntl(): only a memfd has seals; adding them takes a
         * descriptor open for writing. */
        bool add = (int)a[1] == F_ADD_SEALS_LINUX;
        if (g->kind == GFD_FILE && g->file->ops->seals) {
            if (add && (g->file->flags & O_ACCMODE_LINUX) == O_RDONLY_LINUX)
                return -EPERM_LINUX;
            return g->file->ops->seals(g->file, add, (unsigned)a[2]);
        }
        if (add && g->kind == GFD_FILE && (g->file->flags & O_ACCMODE_LINUX) == O_RDONLY_LINUX)
            return -EPERM_LINUX;
        if (add && g->kind == GFD_GRANT)
            return -EPERM_LINUX; /* opened read-only */
        return -EINVAL_LINUX;
    }
    case F_GETPIPE_SZ_LINUX:
        if (g->kind != GFD_FILE || pipe_unread(g->file) < 0)
            return -EBADF_LINUX;
        return PIPE_DEF_CAPACITY_LINUX;
    default:
        return -EINVAL_LINUX;
    }
}

/* do_sys_ftruncate(): a negative length first, then the descriptor,
 * then whether it is a regular file open for writing. */
static int64_t do_ftruncate(struct task *t, int64_t fd, int64_t length)
{
    if (length < 0)
        return -EINVAL_LINUX;
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g)
        return -EBADF_LINUX;
    if (g->kind == GFD_FILE && g->file->ops->truncate)
        return g->file->ops->truncate(g->file, (uint64_t)length);
    /* A granted host descriptor's file is the host's, never changed: the
     * call is not emulated for it. */
    if (g->kind == GFD_HOST)
        return -ENOSYS_LINUX;
    /* Pipes, sockets, devices, and files the grants opened read-only. */
    return -EINVAL_LINUX;
}

SYS(ftruncate)
{
    /* compat_off_t: i386's length is a signed 32-bit value. */
    int64_t length = in_compat_syscall(t) ? (int64_t)(int32_t)a[1] : (int64_t)a[1];
    return do_ftruncate(t, (uint32_t)a[0], length);
}

SYS(ftruncate64)
{
    /* i386: the 64-bit length in two registers, low word first. */
    return do_ftruncate(t, (uint32_t)a[0], (int64_t)((uint32_t)a[1] | ((uint64_t)(uint32_t)a[2] << 32)));
}

static int64_t dup_to(struct task *t, int64_t oldfd, int64_t newfd)
{
    struct gfd *g = fdtable_get(t->fds, oldfd);
    if (!g)
        return -EBADF_LINUX;
    if (newfd < 0 || newfd >= FD_MAX_GUEST)
        return -EBADF_LINUX;
    /* A dup is a second name for the same thing. */
    struct gfd copy = gfd_dup(g);
    copy.cloexec = false;
    /* An open newfd is closed first, silently, as dup2 does. */
    if (fdtable_get(t->fds, newfd))
        fdtable_close(t->fds, newfd);
    fdtable_install(t->fds, (int)newfd, copy);
    return newfd;
}

SYS(dup)
{
    int fd = fdtable_alloc(t->fds);
    if (!fdtable_get(t->fds, (int)a[0]))
        return -EBADF_LINUX;
    if (fd < 0)
        return fd;
    return dup_to(t, (int)a[0], fd);
}

SYS(dup2)
{
    if (!fdtable_get(t->fds, (int)a[0]))
        return -EBADF_LINUX;
    if ((int)a[0] == (int)a[1])
        return (int)a[1];
    return dup_to(t, (int)a[0], (int)a[1]);
}

SYS(dup3)
{
    if ((int)a[0] == (int)a[1] || (a[2] & ~02000000u))
        return -EINVAL_LINUX;
    int64_t r = dup_to(t, (int)a[0], (int)a[1]);
    if (r >= 0)
        t->fds->fd[r].cloexec = (a[2] & 02000000u) != 0;
    return r;
}
