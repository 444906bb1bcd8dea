/* The stat family and terminal queries answer what a native run would see
 * for the same host descriptor or granted path, in the guest ABI's
 * layout.  Paths are looked up in the guest's namespace (emu/kernel/vfs.c). */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "abi/linux.h"
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

/* new_encode_dev(), as st_dev carries it to user space. */
static uint64_t encode_dev(uint64_t major, uint64_t minor)
{
    return (minor & 0xff) | (major << 8) | ((minor & ~0xffull) << 12);
}

#define P32(o, v) do { uint32_t _v = (uint32_t)(v); memcpy(b + (o), &_v, 4); } while (0)
#define P64(o, v) do { uint64_t _v = (uint64_t)(v); memcpy(b + (o), &_v, 8); } while (0)
#define P16(o, v) do { uint16_t _v = (uint16_t)(v); memcpy(b + (o), &_v, 2); } while (0)

/* struct stat of x86_64 (arch/x86/include/uapi/asm/stat.h), 144 bytes. */
static int64_t put_stat64(struct task *t, uint64_t ubuf, const struct kstat *k)
{
    uint8_t b[144] = { 0 };
    P64(0, encode_dev(k->dev_major, k->dev_minor));
    P64(8, k->ino);
    P64(16, k->nlink);
    P32(24, k->mode);
    P32(28, k->uid);
    P32(32, k->gid);
    P64(40, encode_dev(k->rdev_major, k->rdev_minor));
    P64(48, k->size);
    P64(56, k->blksize);
    P64(64, k->blocks);
    P64(72, k->atime); P64(80, k->atime_ns);
    P64(88, k->mtime); P64(96, k->mtime_ns);
    P64(104, k->ctime); P64(112, k->ctime_ns);
    return mm_write(t->mm, ubuf, b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

/* struct stat64 of i386, 96 bytes, packed. */
static int64_t put_stat64_ia32(struct task *t, uint64_t ubuf, const struct kstat *k)
{
    uint8_t b[96] = { 0 };
    P64(0, encode_dev(k->dev_major, k->dev_minor));
    P32(12, k->ino);
    P32(16, k->mode);
    P32(20, k->nlink);
    P32(24, k->uid);
    P32(28, k->gid);
    P64(32, encode_dev(k->rdev_major, k->rdev_minor));
    P64(44, k->size);
    P32(52, k->blksize);
    P64(56, k->blocks);
    P32(64, k->atime); P32(68, k->atime_ns);
    P32(72, k->mtime); P32(76, k->mtime_ns);
    P32(80, k->ctime); P32(84, k->ctime_ns);
    P64(88, k->ino);
    return mm_write(t->mm, (uint32_t)ubuf, b, sizeof(b)) ? 0 : -EFAULT_LINUX;
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
    uint8_t b[64] = { 0 };
    P32(0, encode_dev(k.dev_major, k.dev_minor));
    P32(4, k.ino);
    P16(8, k.mode);
    P16(10, k.nlink);
    P16(12, k.uid > 0xffff ? 65534 : k.uid);
    P16(14, k.gid > 0xffff ? 65534 : k.gid);
    P32(16, encode_dev(k.rdev_major, k.rdev_minor));
    P32(20, k.size);
    P32(24, k.blksize);
    P32(28, k.blocks);
    P32(32, k.atime); P32(36, k.atime_ns);
    P32(40, k.mtime); P32(44, k.mtime_ns);
    P32(48, k.ctime); P32(52, k.ctime_ns);
    return mm_write(t->mm, (uint32_t)ubuf, b, sizeof(b)) ? 0 : -EFAULT_LINUX;
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
    uint8_t b[256] = { 0 };
    P32(0, STATX_BASIC_STATS_LINUX);
    P32(4, k.blksize);
    P32(16, k.nlink);
    P32(20, k.uid);
    P32(24, k.gid);
    P16(28, k.mode);
    P64(32, k.ino);
    P64(40, k.size);
    P64(48, k.blocks);
    P64(64, k.atime); P32(72, k.atime_ns);
    P64(96, k.ctime); P32(104, k.ctime_ns);
    P64(112, k.mtime); P32(120, k.mtime_ns);
    P32(128, k.rdev_major); P32(132, k.rdev_minor);
    P32(136, k.dev_major); P32(140, k.dev_minor);
    uint64_t ubuf = uarg(t, a[4]);
    return mm_write(t->mm, ubuf, b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}

int64_t host_tty_ioctl(struct task *t, int host, uint32_t cmd, uint64_t arg)
{
    if (!isatty(host))
        return -ENOTTY_LINUX;
    if (cmd == TIOCGWINSZ_LINUX) {
        struct winsize ws;
        if (ioctl(host, TIOCGWINSZ, &ws) < 0)
            return -xlat_errno_to_linux(errno);
        uint16_t w[4] = { ws.ws_row, ws.ws_col, ws.ws_xpixel, ws.ws_ypixel };
        return mm_write(t->mm, arg, w, sizeof(w)) ? 0 : -EFAULT_LINUX;
    }
    /* TCGETS: struct termios of the kernel (not glibc's), 36 bytes. */
    struct termios tio;
    if (tcgetattr(host, &tio) < 0)
        return -xlat_errno_to_linux(errno);
    uint8_t b[36] = { 0 };
#if defined(__linux__)
    /* Same flag values: copy them through. */
    P32(0, tio.c_iflag);
    P32(4, tio.c_oflag);
    P32(8, tio.c_cflag);
    P32(12, tio.c_lflag);
    b[16] = tio.c_line;
    memcpy(b + 17, tio.c_cc, 19);
#else
    /* Other hosts number the flags differently; the guest learns that the
     * descriptor is a terminal in a sane cooked mode. */
    P32(0, 0x2d02);  /* ICRNL|IXON|IMAXBEL|IUTF8 ... */
    P32(4, 0x5);     /* OPOST|ONLCR */
    P32(8, 0xbf);    /* B38400|CS8|CREAD */
    P32(12, 0x8a3b); /* ISIG|ICANON|ECHO|ECHOE|ECHOK|ECHOCTL|ECHOKE|IEXTEN */
#endif
    return mm_write(t->mm, arg, b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}
