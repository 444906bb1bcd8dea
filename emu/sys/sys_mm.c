/* Memory calls: anonymous memory only; the guest has no files to map. */
#include "abi/linux.h"
#include "emu/sys/sys.h"

SYS(brk) { return (int64_t)mm_brk(t->mm, uarg(t, a[0])); }

static int64_t do_mmap(struct task *t, uint64_t addr, uint64_t len, int prot, int flags,
                       int fd, uint64_t off)
{
    if (off & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if (!(flags & MAP_ANONYMOUS_LINUX)) {
        /* A descriptor the guest holds is a pipe, socket or tty: Linux
         * refuses to map those too. */
        return fdtable_get(t->fds, fd) ? -ENODEV_LINUX : -EBADF_LINUX;
    }
    return mm_mmap(t->mm, addr, len, prot, flags);
}

SYS(mmap)
{
    return do_mmap(t, uarg(t, a[0]), uarg(t, a[1]), (int)a[2], (int)a[3], (int)a[4], a[5]);
}

SYS(mmap2)
{
    return do_mmap(t, (uint32_t)a[0], (uint32_t)a[1], (int)a[2], (int)a[3], (int)a[4],
                   (uint64_t)(uint32_t)a[5] * PAGE_SIZE_LINUX);
}

/* i386's old mmap takes one pointer to six 32-bit words. */
SYS(old_mmap)
{
    uint32_t w[6];
    if (!mm_read(t->mm, (uint32_t)a[0], w, sizeof(w)))
        return -EFAULT_LINUX;
    return do_mmap(t, w[0], w[1], (int)w[2], (int)w[3], (int)w[4], w[5]);
}

SYS(munmap) { return mm_munmap(t->mm, uarg(t, a[0]), uarg(t, a[1])); }
SYS(mprotect) { return mm_mprotect(t->mm, uarg(t, a[0]), uarg(t, a[1]), (int)a[2]); }

SYS(mremap)
{
    return mm_mremap(t->mm, uarg(t, a[0]), uarg(t, a[1]), uarg(t, a[2]), (int)a[3],
                     uarg(t, a[4]));
}

SYS(madvise) { return mm_madvise(t->mm, uarg(t, a[0]), uarg(t, a[1]), (int)a[2]); }
