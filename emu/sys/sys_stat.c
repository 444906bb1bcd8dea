/* The stat family and terminal queries answer what a native run would see
 * for the same host descriptor, in the guest ABI's layout.  Paths do not
 * exist for the guest: only descriptor forms (AT_EMPTY_PATH) answer. */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif

#include "abi/linux.h"
#include "emu/kernel/vfile.h"
#include "emu/sys/sys.h"
#include "emu/sys/sys_host.h"
#include "emu/xlat.h"

/* The host's stat, plus what Linux keeps that POSIX does not name. */
struct kstat {
    uint64_t dev_major, dev_minor, rdev_major, rdev_minor;
    uint64_t ino, nlink, size, blocks, blksize;
    uint32_t mode, uid, gid;
    int64_t atime, mtime, ctime;
    uint32_t atime_ns, mtime_ns, ctime_ns;
};

static uint32_t mode_to_linux(mode_t m)
{
    uint32_t type = S_ISREG(m) ? S_IFREG_LINUX : S_ISDIR(m) ? S_IFDIR_LINUX
                  : S_ISCHR(m) ? S_IFCHR_LINUX : S_ISBLK(m) ? S_IFBLK_LINUX
                  : S_ISFIFO(m) ? S_IFIFO_LINUX : S_ISSOCK(m) ? S_IFSOCK_LINUX : 0;
    return type | (uint32_t)(m & 07777);
}

static int64_t fd_kstat(struct task *t, int64_t fd, struct kstat *k)
{
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g)
        return -EBADF_LINUX;
    memset(k, 0, sizeof(*k));
    if (g->kind == GFD_VIRTUAL) {
        vfile_stat(g, &k->mode, &k->rdev_major, &k->rdev_minor);
        k->nlink = 1;
        k->blksize = 4096;
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
    k->dev_major = major(st.st_dev);
    k->dev_minor = minor(st.st_dev);
    k->rdev_major = major(st.st_rdev);
    k->rdev_minor = minor(st.st_rdev);
    k->ino = st.st_ino;
    k->nlink = st.st_nlink;
    k->size = (uint64_t)st.st_size;
    k->blocks = (uint64_t)st.st_blocks;
    k->blksize = (uint64_t)st.st_blksize;
    k->mode = mode_to_linux(st.st_mode);
    k->uid = st.st_uid;
    k->gid = st.st_gid;
#if defined(__APPLE__)
    k->atime = st.st_atimespec.tv_sec, k->atime_ns = (uint32_t)st.st_atimespec.tv_nsec;
    k->mtime = st.st_mtimespec.tv_sec, k->mtime_ns = (uint32_t)st.st_mtimespec.tv_nsec;
    k->ctime = st.st_ctimespec.tv_sec, k->ctime_ns = (uint32_t)st.st_ctimespec.tv_nsec;
#else
    k->atime = st.st_atim.tv_sec, k->atime_ns = (uint32_t)st.st_atim.tv_nsec;
    k->mtime = st.st_mtim.tv_sec, k->mtime_ns = (uint32_t)st.st_mtim.tv_nsec;
    k->ctime = st.st_ctim.tv_sec, k->ctime_ns = (uint32_t)st.st_ctim.tv_nsec;
#endif
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

/* i386's fstat (108): struct compat_stat, 16-bit ids, 32-bit sizes. */
SYS(fstat_compat)
{
    struct kstat k;
    int64_t r = fd_kstat(t, (int)a[0], &k);
    if (r < 0)
        return r;
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
    return mm_write(t->mm, (uint32_t)a[1], b, sizeof(b)) ? 0 : -EFAULT_LINUX;
}
SYS(fstat64) { return stat_into(t, (int)a[0], a[1], true); }

/* The *at forms: only fd + "" + AT_EMPTY_PATH names something here. */
static int64_t at_form(struct task *t, uint64_t upath, int flags)
{
    char path[4096];
    int r = mm_read_string(t->mm, uarg(t, upath), path, sizeof(path));
    if (r < 0)
        return r;
    if (path[0] == 0)
        return (flags & AT_EMPTY_PATH_LINUX) ? 0 : -ENOENT_LINUX;
    return -ENOENT_LINUX;
}

SYS(newfstatat)
{
    int64_t r = at_form(t, a[1], (int)a[3]);
    return r < 0 ? r : stat_into(t, (int)a[0], a[2], false);
}

SYS(fstatat64)
{
    int64_t r = at_form(t, a[1], (int)a[3]);
    return r < 0 ? r : stat_into(t, (int)a[0], a[2], true);
}

SYS(stat_path)
{
    char path[4096];
    uint64_t upath = uarg(t, a[0]);
    int r = mm_read_string(t->mm, upath, path, sizeof(path));
    return r < 0 ? r : -ENOENT_LINUX;
}

SYS(statx)
{
    int64_t r = at_form(t, a[1], (int)a[2]);
    if (r < 0)
        return r;
    if ((uint32_t)a[3] & 0x80000000u) /* STATX__RESERVED */
        return -EINVAL_LINUX;
    struct kstat k;
    if ((r = fd_kstat(t, (int)a[0], &k)) < 0)
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
