/* The stat family and terminal queries answer what a native run would see
 * for the same host descriptor or granted path, in the guest ABI's
 * layout.  Paths are looked up in the guest's namespace (emu/kernel/vfs.c). */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "abi/bytes_le.h"
#include "abi/linux.h"
#include "abi/stat_linux.h"
#include "emu/kernel/vfile.h"
#include "emu/kernel/vfs.h"
#include "emu/sys/sys.h"
#include "emu/sys/sys_host.h"
#include "emu/xlat.h"

static int64_t fd_kstat(struct task *t, int64_t fd, struct kstat *k)
{
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g)
        return -EBADF_LINUX;
    memset(k, 0, sizeof(*k));
    if (g->kind == GFD_GRANT)
        return ofile_stat(g->ofile, k);
    if (g->kind == GFD_VIRTUAL) {
        vfile_stat(g, &k->mode, &k->rdev_major, &k->rdev_minor);
        k->nlink = 1;
        k->blksize = 4096;
        return 0;
    }
    if (g->kind == GFD_FILE && g->file->ops->stat) {
        uint64_t ino = 0;
        g->file->ops->stat(g->file, &k->mode, &ino);
        k->ino = ino;
        k->nlink = 1;
        k->blksize = 4096;
        k->uid = getuid();
        k->gid = getgid();
        if (g->file->ops->stat_more)
            g->file->ops->stat_more(g->file, k);
        return 0;
    }
    if (g->kind != GFD_HOST) {
        /* An emulated file: empty regular file, owner read/write. */
        k->mode = S_IFREG_LINUX | 0600;
        k->nlink = 1;
        k->blksize = 1024;
        k->dev_minor = 0x16;
        return 0;
    }
    struct stat st;
    if (fstat(g->host, &st) < 0)
        return -xlat_errno_to_linux(errno);
    kstat_from_host(&st, k);
    return 0;
}

/* new_encode_dev(), as dev carries it to user space. */
static uint64_t encode_dev(uint64_t major, uint64_t minor)
{
    return (minor & 0xff) | (major << 8) | ((minor & ~0xffull) << 12);
}

/* x86_64's struct stat. */
static int64_t put_stat64(struct task *t, uint64_t ubuf, const struct kstat *k)
{
    struct stat_64_linux b = { 0 };
    put_le64(b.dev, encode_dev(k->dev_major, k->dev_minor));
    put_le64(b.ino, k->ino);
    put_le64(b.nlink, k->nlink);
    put_le32(b.mode, k->mode);
    put_le32(b.uid, k->uid);
    put_le32(b.gid, k->gid);
    put_le64(b.rdev, encode_dev(k->rdev_major, k->rdev_minor));
    put_le64(b.size, k->size);
    put_le64(b.blksize, k->blksize);
    put_le64(b.blocks, k->blocks);
    put_le64(b.atime, k->atime);
    put_le64(b.atime_nsec, k->atime_ns);
    put_le64(b.mtime, k->mtime);
    put_le64(b.mtime_nsec, k->mtime_ns);
    put_le64(b.ctime, k->ctime);
    put_le64(b.ctime_nsec, k->ctime_ns);
    return mm_write(t->mm, ubuf, &b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

/* i386's struct stat64. */
static int64_t put_stat64_ia32(struct task *t, uint64_t ubuf, const struct kstat *k)
{
    struct stat64_ia32_linux b = { 0 };
    put_le64(b.dev, encode_dev(k->dev_major, k->dev_minor));
    put_le32(b.ino32, (uint32_t)k->ino);
    put_le32(b.mode, k->mode);
    put_le32(b.nlink, (uint32_t)k->nlink);
    put_le32(b.uid, k->uid);
    put_le32(b.gid, k->gid);
    put_le64(b.rdev, encode_dev(k->rdev_major, k->rdev_minor));
    put_le64(b.size, k->size);
    put_le32(b.blksize, (uint32_t)k->blksize);
    put_le64(b.blocks, k->blocks);
    put_le32(b.atime, (uint32_t)k->atime);
    put_le32(b.atime_nsec, (uint32_t)k->atime_ns);
    put_le32(b.mtime, (uint32_t)k->mtime);
    put_le32(b.mtime_nsec, (uint32_t)k->mtime_ns);
    put_le32(b.ctime, (uint32_t)k->ctime);
    put_le32(b.ctime_nsec, (uint32_t)k->ctime_ns);
    put_le64(b.ino, k->ino);
    return mm_write(t->mm, (uint32_t)ubuf, &b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

static int64_t stat_into(struct task *t, int64_t fd, uint64_t ubuf, bool ia32)
{
    struct kstat k;
    int64_t r = fd_kstat(t, fd, &k);
    if (r < 0)
        return r;
    return ia32 ? put_stat64_ia32(t, ubuf, &k) : put_stat64(t, ubuf, &k);
}

SYS(fstat) { return stat_into(t, (int)a[0], a[1], false); }

/* i386's stat, lstat and fstat (106-108): struct compat_stat, 16-bit
 * ids, 32-bit sizes. */
static int64_t put_compat_stat(struct task *t, uint64_t ubuf, const struct kstat *kp)
{
    struct kstat k = *kp;
    if (k.size > UINT32_MAX || k.ino > UINT32_MAX)
        return -EOVERFLOW_LINUX; /* the old structure cannot say it */
    struct stat_ia32_linux b = { 0 };
    put_le32(b.dev, (uint32_t)encode_dev(k.dev_major, k.dev_minor));
    put_le32(b.ino, (uint32_t)k.ino);
    put_le16(b.mode, (uint16_t)k.mode);
    put_le16(b.nlink, (uint16_t)k.nlink);
    put_le16(b.uid, k.uid > 0xffff ? 65534 : (uint16_t)k.uid);
    put_le16(b.gid, k.gid > 0xffff ? 65534 : (uint16_t)k.gid);
    put_le32(b.rdev, (uint32_t)encode_dev(k.rdev_major, k.rdev_minor));
    put_le32(b.size, (uint32_t)k.size);
    put_le32(b.blksize, (uint32_t)k.blksize);
    put_le32(b.blocks, (uint32_t)k.blocks);
    put_le32(b.atime, (uint32_t)k.atime);
    put_le32(b.atime_nsec, (uint32_t)k.atime_ns);
    put_le32(b.mtime, (uint32_t)k.mtime);
    put_le32(b.mtime_nsec, (uint32_t)k.mtime_ns);
    put_le32(b.ctime, (uint32_t)k.ctime);
    put_le32(b.ctime_nsec, (uint32_t)k.ctime_ns);
    return mm_write(t->mm, (uint32_t)ubuf, &b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

SYS(fstat_compat)
{
    struct kstat k;
    int64_t r = fd_kstat(t, (int)a[0], &k);
    return r < 0 ? r : put_compat_stat(t, a[1], &k);
}
SYS(fstat64) { return stat_into(t, (int)a[0], a[1], true); }

/* The path forms.  vfs_fstatat(): the flags first, then the name; "" with
 * AT_EMPTY_PATH is the descriptor itself (the working directory for
 * AT_FDCWD). */
static int64_t path_kstat(struct task *t, int dirfd, uint64_t upath, int flags, struct kstat *k)
{
    if (flags & ~(AT_SYMLINK_NOFOLLOW_LINUX | AT_NO_AUTOMOUNT_LINUX | AT_EMPTY_PATH_LINUX))
        return -EINVAL_LINUX;
    char path[PATH_MAX_LINUX];
    int r = mm_read_string(t->mm, uarg(t, upath), path, sizeof(path));
    if (r < 0)
        return r;
    if (!path[0] && (flags & AT_EMPTY_PATH_LINUX)) {
        if (dirfd == AT_FDCWD_LINUX)
            return ofile_stat(t->cwd, k);
        return fd_kstat(t, dirfd, k);
    }
    return vfs_stat(t, dirfd, path, flags, k);
}

SYS(newfstatat)
{
    struct kstat k;
    int64_t r = path_kstat(t, (int)a[0], a[1], (int)a[3], &k);
    return r < 0 ? r : put_stat64(t, a[2], &k);
}

SYS(fstatat64)
{
    struct kstat k;
    int64_t r = path_kstat(t, (int)a[0], a[1], (int)a[3], &k);
    return r < 0 ? r : put_stat64_ia32(t, a[2], &k);
}

/* stat and lstat: x86_64's struct stat, or i386's stat64 (195, 196) or
 * compat stat (106, 107), as the handler's name says. */
static int64_t path_stat(struct task *t, const uint64_t a[6], int flags, int layout)
{
    struct kstat k;
    int64_t r = path_kstat(t, AT_FDCWD_LINUX, a[0], flags, &k);
    if (r < 0)
        return r;
    return layout == 64 ? put_stat64(t, a[1], &k)
         : layout == 6432 ? put_stat64_ia32(t, a[1], &k) : put_compat_stat(t, a[1], &k);
}

SYS(stat) { return path_stat(t, a, 0, 64); }
SYS(lstat) { return path_stat(t, a, AT_SYMLINK_NOFOLLOW_LINUX, 64); }
SYS(stat64) { return path_stat(t, a, 0, 6432); }
SYS(lstat64) { return path_stat(t, a, AT_SYMLINK_NOFOLLOW_LINUX, 6432); }
SYS(stat_compat) { return path_stat(t, a, 0, 32); }
SYS(lstat_compat) { return path_stat(t, a, AT_SYMLINK_NOFOLLOW_LINUX, 32); }

/* i386's oldstat (18), struct __old_kernel_stat: not served; its path is
 * read (EFAULT as the kernel's getname) and answers as missing. */
SYS(oldstat)
{
    char path[PATH_MAX_LINUX];
    int r = mm_read_string(t->mm, uarg(t, a[0]), path, sizeof(path));
    return r < 0 ? r : -ENOENT_LINUX;
}

SYS(statx)
{
    /* do_statx(): the reserved mask bit and the sync type first. */
    int flags = (int)a[2];
    if ((uint32_t)a[3] & 0x80000000u) /* STATX__RESERVED */
        return -EINVAL_LINUX;
    if ((flags & AT_STATX_SYNC_TYPE_LINUX) == AT_STATX_SYNC_TYPE_LINUX)
        return -EINVAL_LINUX;
    struct kstat k;
    int64_t r = path_kstat(t, (int)a[0], a[1], flags & ~AT_STATX_SYNC_TYPE_LINUX, &k);
    if (r < 0)
        return r;
    struct statx_linux b = { 0 };
    put_le32(b.stx_mask, STATX_BASIC_STATS_LINUX);
    put_le32(b.stx_blksize, (uint32_t)k.blksize);
    put_le32(b.stx_nlink, (uint32_t)k.nlink);
    put_le32(b.stx_uid, k.uid);
    put_le32(b.stx_gid, k.gid);
    put_le16(b.stx_mode, (uint16_t)k.mode);
    put_le64(b.stx_ino, k.ino);
    put_le64(b.stx_size, k.size);
    put_le64(b.stx_blocks, k.blocks);
    put_le64(b.stx_atime.tv_sec, k.atime);
    put_le32(b.stx_atime.tv_nsec, (uint32_t)k.atime_ns);
    put_le64(b.stx_ctime.tv_sec, k.ctime);
    put_le32(b.stx_ctime.tv_nsec, (uint32_t)k.ctime_ns);
    put_le64(b.stx_mtime.tv_sec, k.mtime);
    put_le32(b.stx_mtime.tv_nsec, (uint32_t)k.mtime_ns);
    put_le32(b.stx_rdev_major, k.rdev_major);
    put_le32(b.stx_rdev_minor, k.rdev_minor);
    put_le32(b.stx_dev_major, k.dev_major);
    put_le32(b.stx_dev_minor, k.dev_minor);
    uint64_t ubuf = uarg(t, a[4]);
    return mm_write(t->mm, ubuf, &b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

int64_t host_tty_ioctl(struct task *t, int host, uint32_t cmd, uint64_t arg)
{
    if (!isatty(host))
        return -ENOTTY_LINUX;
    if (cmd == TIOCGWINSZ_LINUX) {
        struct winsize ws;
        if (ioctl(host, TIOCGWINSZ, &ws) < 0)
            return -xlat_errno_to_linux(errno);
        struct winsize_linux w;
        put_le16(w.ws_row, ws.ws_row);
    put_le16(w.ws_col, ws.ws_col);
        put_le16(w.ws_xpixel, ws.ws_xpixel);
    put_le16(w.ws_ypixel, ws.ws_ypixel);
        return mm_write(t->mm, arg, &w, sizeof(w)) ? 0 : -EFAULT_LINUX;
    }
    /* TCGETS: the kernel's struct termios. */
    struct termios tio;
    if (tcgetattr(host, &tio) < 0)
        return -xlat_errno_to_linux(errno);
    struct termios_linux b = { 0 };
#if defined(__linux__)
    /* Same flag values: copy them through. */
    put_le32(b.c_iflag, (uint32_t)tio.c_iflag);
    put_le32(b.c_oflag, (uint32_t)tio.c_oflag);
    put_le32(b.c_cflag, (uint32_t)tio.c_cflag);
    put_le32(b.c_lflag, (uint32_t)tio.c_lflag);
    b.c_line = tio.c_line;
    memcpy(b.c_cc, tio.c_cc, sizeof(b.c_cc));
#else
    /* Other hosts number the flags differently; the guest learns that the
     * descriptor is a terminal in a sane cooked mode. */
    put_le32(b.c_iflag, 0x2d02);  /* ICRNL|IXON|IMAXBEL|IUTF8 ... */
    put_le32(b.c_oflag, 0x5);     /* OPOST|ONLCR */
    put_le32(b.c_cflag, 0xbf);    /* B38400|CS8|CREAD */
    put_le32(b.c_lflag, 0x8a3b);  /* ISIG|ICANON|ECHO|ECHOE|ECHOK|ECHOCTL|ECHOKE|IEXTEN */
#endif
    return mm_write(t->mm, arg, &b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}
