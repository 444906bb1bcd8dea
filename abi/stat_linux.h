/* The layouts the stat family and the terminal ioctls write to guest
 * memory, as x86 Linux defines them (arch/x86/include/uapi/asm/stat.h,
 * include/uapi/linux/stat.h, include/uapi/asm-generic/termbits.h,
 * include/uapi/asm-generic/termios.h).  Every field is its bytes,
 * little-endian as the guest reads them: written with put_le16/32/64
 * (abi/bytes_le.h), so the structs have no padding of the host's and the
 * host's byte order never shows.  The fields are named without st_: the
 * host's <sys/stat.h> makes st_atime and its kin macros. */
#ifndef ABI_STAT_LINUX_H
#define ABI_STAT_LINUX_H

#include <stddef.h>
#include <stdint.h>

/* x86_64's struct stat (newfstatat, fstat). */
struct stat_64_linux {
    uint8_t dev[8], ino[8], nlink[8];
    uint8_t mode[4], uid[4], gid[4], pad0[4];
    uint8_t rdev[8], size[8], blksize[8], blocks[8];
    uint8_t atime[8], atime_nsec[8], mtime[8], mtime_nsec[8];
    uint8_t ctime[8], ctime_nsec[8];
    uint8_t unused[24];
};
_Static_assert(sizeof(struct stat_64_linux) == 144, "x86_64 struct stat");
_Static_assert(offsetof(struct stat_64_linux, rdev) == 40, "x86_64 stat.rdev");
_Static_assert(offsetof(struct stat_64_linux, atime) == 72, "x86_64 stat.atime");

/* i386's struct stat64 (fstat64, fstatat64, stat64, lstat64), packed:
 * the 32-bit inode number first, the whole one last. */
struct stat64_ia32_linux {
    uint8_t dev[8], pad0[4], ino32[4];
    uint8_t mode[4], nlink[4], uid[4], gid[4];
    uint8_t rdev[8], pad3[4], size[8], blksize[4], blocks[8];
    uint8_t atime[4], atime_nsec[4], mtime[4], mtime_nsec[4];
    uint8_t ctime[4], ctime_nsec[4];
    uint8_t ino[8];
};
_Static_assert(sizeof(struct stat64_ia32_linux) == 96, "i386 struct stat64");
_Static_assert(offsetof(struct stat64_ia32_linux, size) == 44, "i386 stat64.size");
_Static_assert(offsetof(struct stat64_ia32_linux, ino) == 88, "i386 stat64.ino");

/* i386's old struct stat (stat, lstat, fstat: 106-108): 16-bit ids,
 * 32-bit sizes. */
struct stat_ia32_linux {
    uint8_t dev[4], ino[4];
    uint8_t mode[2], nlink[2], uid[2], gid[2];
    uint8_t rdev[4], size[4], blksize[4], blocks[4];
    uint8_t atime[4], atime_nsec[4], mtime[4], mtime_nsec[4];
    uint8_t ctime[4], ctime_nsec[4];
    uint8_t unused4[4], unused5[4];
};
_Static_assert(sizeof(struct stat_ia32_linux) == 64, "i386 struct stat");
_Static_assert(offsetof(struct stat_ia32_linux, rdev) == 16, "i386 stat.rdev");

struct statx_timestamp_linux {
    uint8_t tv_sec[8], tv_nsec[4], reserved[4];
};

/* struct statx, the same for both ABIs. */
struct statx_linux {
    uint8_t stx_mask[4], stx_blksize[4], stx_attributes[8];
    uint8_t stx_nlink[4], stx_uid[4], stx_gid[4], stx_mode[2], spare0[2];
    uint8_t stx_ino[8], stx_size[8], stx_blocks[8], stx_attributes_mask[8];
    struct statx_timestamp_linux stx_atime, stx_btime, stx_ctime, stx_mtime;
    uint8_t stx_rdev_major[4], stx_rdev_minor[4], stx_dev_major[4], stx_dev_minor[4];
    uint8_t rest[112]; /* stx_mnt_id and on: not reported (not in the mask) */
};
_Static_assert(sizeof(struct statx_linux) == 256, "struct statx");
_Static_assert(offsetof(struct statx_linux, stx_atime) == 64, "statx.stx_atime");
_Static_assert(offsetof(struct statx_linux, stx_ctime) == 96, "statx.stx_ctime");
_Static_assert(offsetof(struct statx_linux, stx_rdev_major) == 128, "statx.stx_rdev_major");

/* The kernel's struct termios (TCGETS), not the C library's. */
struct termios_linux {
    uint8_t c_iflag[4], c_oflag[4], c_cflag[4], c_lflag[4];
    uint8_t c_line;
    uint8_t c_cc[19];
};
_Static_assert(sizeof(struct termios_linux) == 36, "struct termios");

/* struct winsize (TIOCGWINSZ). */
struct winsize_linux {
    uint8_t ws_row[2], ws_col[2], ws_xpixel[2], ws_ypixel[2];
};
_Static_assert(sizeof(struct winsize_linux) == 8, "struct winsize");

#endif
