/* Anonymous files of the emulated kernel (memfd_create(2), mm/memfd.c and
 * shmem): contents in pages allocated on first write, a position,
 * pread/pwrite, lseek with SEEK_DATA/SEEK_HOLE, ftruncate, fstat and the
 * file seals.  They cannot be mapped (mmap answers ENODEV, as for a pipe):
 * seccomp-emu keeps no page shared between a file and a mapping. */
#ifndef EMU_KERNEL_MEMFD_H
#define EMU_KERNEL_MEMFD_H

#include <stdint.h>

struct task;

/* memfd_create(name at `uname`, flags): a descriptor in t's table, or a
 * negative errno_LINUX, with Linux's checks in Linux's order. */
int64_t memfd_file_create(struct task *t, uint64_t uname, unsigned flags);

#endif
