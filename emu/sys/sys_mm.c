/* Memory calls: anonymous memory, and copies of granted files (a guest
 * mapping of a file is filled from it when made: the namespace is
 * read-only, so only the host could change the file after). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "abi/caps_linux.h"
#include "abi/linux.h"
#include "emu/engine/host_tune.h"
#include "emu/kernel/vfs.h"
#include "emu/sys/sys.h"
#include "emu/xlat.h"

SYS(brk) { return (int64_t)mm_brk(t->mm, uarg(t, a[0])); }

#define MAP_SHARED_VALIDATE_LINUX 0x03

/* A mapping of an open file of the namespace: fresh memory, filled from
 * the file at `off`; past its end it stays zero. */
static int64_t map_file(struct task *t, uint64_t addr, uint64_t len, int prot, int flags,
                        struct ofile *f, uint64_t off)
{
    if (f->type != OFILE_REG)
        return -ENODEV_LINUX;
    int type = flags & MAP_TYPE_LINUX;
    bool shared = type == MAP_SHARED_LINUX || type == MAP_SHARED_VALIDATE_LINUX;
    /* do_mmap(): a shared writable mapping needs a descriptor open for
     * writing; these are read-only. */
    if (shared && (prot & PROT_WRITE_LINUX))
        return -EACCES_LINUX;
    if (len && off + PAGE_ALIGN_LINUX(len) < off)
        return -EOVERFLOW_LINUX;
    if (shared)
        flags = (flags & ~MAP_TYPE_LINUX) | MAP_SHARED_LINUX;
    int64_t at = mm_mmap(t->mm, addr, len, prot, flags);
    if (at < 0)
        return at;
    uint64_t plen = PAGE_ALIGN_LINUX(len), done = 0;
    /* The pages may be read-only to the guest, not to the file's copy. */
    mm_fill_begin(t->mm, (uint64_t)at, plen);
    while (done < plen) {
        struct iovec iov[16];
        uint64_t covered;
        int n = mm_iovecs(t->mm, (uint64_t)at + done, plen - done, 0, iov, 16, &covered);
        for (int i = 0; i < n; i++) {
            for (size_t got = 0; got < iov[i].iov_len;) {
                ssize_t r = pread(f->host, (uint8_t *)iov[i].iov_base + got, iov[i].iov_len - got,
                                  (off_t)(off + done + got));
                if (r < 0 && errno == EINTR)
                    continue;
                if (r < 0) {
                    int64_t e = -xlat_errno_to_linux(errno);
                    mm_munmap(t->mm, (uint64_t)at, plen);
                    mm_fill_end(t->mm);
                    return e;
                }
                if (r == 0)
                    break; /* the end of the file: the rest reads as zeros */
                got += (size_t)r;
            }
            done += iov[i].iov_len;
        }
        if (!n)
            break;
    }
    mm_fill_end(t->mm);
    mm_written(t->mm, (uint64_t)at, plen);
    if (shared)
        mm_deny_write(t->mm, (uint64_t)at, plen);
    else
        mm_mark_file_pages(t->mm, (uint64_t)at, plen);
    return at;
}

static int64_t do_mmap(struct task *t, uint64_t addr, uint64_t len, int prot, int flags,
                       int fd, uint64_t off)
{
    if (off & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if (!(flags & MAP_ANONYMOUS_LINUX)) {
        /* do_mmap()'s own checks of the length, a fixed address and the
         * type come before the file's mmap operation. */
        struct gfd *g = fdtable_get(t->fds, fd);
        if (!g)
            return -EBADF_LINUX;
        if (!len)
            return -EINVAL_LINUX;
        if (!PAGE_ALIGN_LINUX(len) || PAGE_ALIGN_LINUX(len) > t->mm->limit)
            return -ENOMEM_LINUX;
        if ((flags & MAP_FIXED_LINUX) && (addr & (PAGE_SIZE_LINUX - 1)))
            return -EINVAL_LINUX;
        int type = flags & MAP_TYPE_LINUX;
        if (type != MAP_PRIVATE_LINUX && type != MAP_SHARED_LINUX &&
            type != MAP_SHARED_VALIDATE_LINUX)
            return -EINVAL_LINUX;
        if (g->kind == GFD_GRANT)
            return map_file(t, addr, len, prot, flags, g->ofile, off);
        /* Any other descriptor the guest holds is a pipe, socket or tty:
         * Linux refuses to map those too (no mmap operation), once it has
         * found the mapping a place. */
        int64_t at = mm_unmapped_area(t->mm, addr, len, flags);
        return at < 0 ? at : -ENODEV_LINUX;
    }
    if (flags & MAP_HUGETLB_LINUX) {
        /* ksys_mmap_pgoff() and hugetlbfs: the page size named in the
         * flags (2 MiB by default, or 1 GiB) must exist, and a fixed address
         * and the offset must be multiples of it; no huge pages are
         * reserved (vm.nr_hugepages 0), so what passes fails with -ENOMEM
         * once the memory calls' own checks are done (mm_mmap). */
        unsigned sizelog = ((unsigned)flags >> MAP_HUGE_SHIFT_LINUX) & MAP_HUGE_MASK_LINUX;
        if (sizelog && sizelog != 21 && sizelog != 30)
            return -EINVAL_LINUX;
        uint64_t huge = sizelog == 30 ? 1ull << 30 : 2ull << 20;
        /* the length rounds up to whole huge pages; past 2^64 it is 0 */
        uint64_t hlen = (len + huge - 1) & ~(huge - 1);
        if (!len || !hlen)
            return -EINVAL_LINUX;
        /* __get_unmapped_area(): longer than user space is -ENOMEM before
         * hugetlbfs looks at the address */
        if (hlen > t->mm->limit)
            return -ENOMEM_LINUX;
        if ((flags & (MAP_FIXED_LINUX | MAP_FIXED_NOREPLACE_LINUX)) && (addr & (huge - 1)))
            return -EINVAL_LINUX;
        /* hugetlb_get_unmapped_area(): a hint rounds up to a huge page (in
         * 64 bits: past 2^64 it is none), and the hole for the whole
         * rounded length is found, or not (-ENOMEM), before do_mmap() goes
         * on to hugetlbfs's mmap, which alone looks at the offset
         * (measured on this host, Linux 6.18, i386 and x86_64: corpus
         * mmap-hugetlb-no-room-before-offset*). */
        if (!(flags & (MAP_FIXED_LINUX | MAP_FIXED_NOREPLACE_LINUX)))
            addr = (addr + huge - 1) & ~(huge - 1);
        int64_t at = mm_unmapped_area(t->mm, addr, hlen, flags);
        if (at < 0)
            return at;
        if (off & (huge - 1))
            return -EINVAL_LINUX;
        len = hlen;
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

/* ---- mlock family ---- */

/* RLIMIT_MEMLOCK as do_mlock() applies it: none with CAP_IPC_LOCK. */
static uint64_t memlock_limit(const struct task *t)
{
    uint64_t cur = t->group->rlim[RLIMIT_MEMLOCK_LINUX].cur;
    if (((t->cap_effective >> CAP_IPC_LOCK_LINUX) & 1) || cur == RLIM_INFINITY_LINUX)
        return UINT64_MAX;
    return cur;
}

SYS(mlock) { return mm_mlock(t->mm, uarg(t, a[0]), uarg(t, a[1]), 0, memlock_limit(t)); }
SYS(mlock2)
{
    return mm_mlock(t->mm, uarg(t, a[0]), uarg(t, a[1]), (int)a[2], memlock_limit(t));
}
SYS(munlock) { return mm_munlock(t->mm, uarg(t, a[0]), uarg(t, a[1])); }
SYS(mlockall) { return mm_mlockall(t->mm, (int)a[0], memlock_limit(t)); }
SYS(munlockall)
{
    (void)a;
    mm_munlockall(t->mm);
    return 0;
}

/* ---- mincore ---- */

/* SYSCALL_DEFINE3(mincore): a chunk at a time, one mapping at a time; a
 * mapping that is no anonymous memory (the vDSO) counts as resident. */
SYS(mincore)
{
    uint64_t addr = uarg(t, a[0]), len = uarg(t, a[1]), vec = uarg(t, a[2]);
    if (addr & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if (addr > TASK_SIZE_64_LINUX || len > TASK_SIZE_64_LINUX - addr)
        return -ENOMEM_LINUX;
    uint64_t pages = len / PAGE_SIZE_LINUX + (len % PAGE_SIZE_LINUX != 0);
    if (vec > TASK_SIZE_64_LINUX || pages > TASK_SIZE_64_LINUX - vec)
        return -EFAULT_LINUX;
    uint8_t buf[4096];
    while (pages) {
        const struct vma *v = mm_find(t->mm, addr);
        if (!v || v->hidden)
            return -ENOMEM_LINUX;
        uint64_t n = MIN(MIN(pages, sizeof(buf)), (v->end - addr) / PAGE_SIZE_LINUX);
        bool special = v->name && !strcmp(v->name, "[vdso]");
        for (uint64_t i = 0; i < n; i++)
            /* A page the guest never touched is not resident, as
             * natively: the host's answer for the page behind it. */
            buf[i] = special ? 1 : host_page_resident(v->host + (addr - v->start) + i * PAGE_SIZE_LINUX);
        if (!mm_write(t->mm, vec, buf, n))
            return -EFAULT_LINUX;
        pages -= n;
        vec += n;
        addr += n * PAGE_SIZE_LINUX;
    }
    return 0;
}

/* ---- membarrier ---- */

enum {
    MEMBARRIER_CMD_QUERY_ = 0,
    MEMBARRIER_CMD_GLOBAL_ = 1 << 0,
    MEMBARRIER_CMD_GLOBAL_EXPEDITED_ = 1 << 1,
    MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED_ = 1 << 2,
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_ = 1 << 3,
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_ = 1 << 4,
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE_ = 1 << 5,
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE_ = 1 << 6,
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ_ = 1 << 7,
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ_ = 1 << 8,
    MEMBARRIER_CMD_GET_REGISTRATIONS_ = 1 << 9,
    MEMBARRIER_CMD_FLAG_CPU_ = 1,
};

/* kernel/sched/membarrier.c on x86 with rseq and without nohz_full: every
 * command.  The barriers themselves hold trivially: the guest's threads
 * take turns on one engine, never running at once. */
SYS(membarrier)
{
    int cmd = (int)a[0];
    unsigned flags = (unsigned)a[1];
    if (cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ_ ? flags && flags != MEMBARRIER_CMD_FLAG_CPU_
                                                      : flags != 0)
        return -EINVAL_LINUX;
    uint32_t *reg = &t->mm->membarrier_registered;
    switch (cmd) {
    case MEMBARRIER_CMD_QUERY_:
        return MEMBARRIER_CMD_GLOBAL_ | MEMBARRIER_CMD_GLOBAL_EXPEDITED_ |
               MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED_ | MEMBARRIER_CMD_PRIVATE_EXPEDITED_ |
               MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_ |
               MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE_ |
               MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE_ |
               MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ_ |
               MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ_ | MEMBARRIER_CMD_GET_REGISTRATIONS_;
    case MEMBARRIER_CMD_GLOBAL_:
    case MEMBARRIER_CMD_GLOBAL_EXPEDITED_:
        return 0;
    case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED_:
    case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_:
    case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE_:
    case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ_:
        *reg |= (uint32_t)cmd;
        return 0;
    case MEMBARRIER_CMD_PRIVATE_EXPEDITED_:
    case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE_:
    case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ_:
        /* each needs its registration: the REGISTER_ command is the next bit */
        return *reg & ((uint32_t)cmd << 1) ? 0 : -EPERM_LINUX;
    case MEMBARRIER_CMD_GET_REGISTRATIONS_:
        return *reg;
    default:
        return -EINVAL_LINUX;
    }
}
