#include "emu/engine/host_tune.h"

#include <glib.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1u << 1)
#endif
#endif

/* /proc/self/pagemap, opened before the self-sandbox: -1 where the host
 * has none. */
static int pagemap_fd = -1;

err_t host_tune_memory(void)
{
#if defined(__linux__)
    if (pagemap_fd < 0)
        pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
#endif
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
    /* With transparent huge pages set to "always", the first touch of
     * Unicorn's 1 GiB translation buffer and of the guest's 8 MiB stack
     * each made 2 MiB resident: 1.3-2 MiB more peak memory on every job
     * (bench/), for no measurable speed on guests that small.  Kernels
     * before 3.15 lack the option (EINVAL): nothing to turn off there. */
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0 && errno != EINVAL)
        return err_new("prctl(PR_SET_THP_DISABLE): %s", host_strerror(errno));
#endif
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    /* Every guest task runs on a host thread of its own, and glibc gives
     * threads arenas of their own, mmap'd heaps it shrinks by first
     * reading /proc/sys/vm/overcommit_memory: an open the self-sandbox
     * refuses (SIGSYS), met when a task's thread frees a large block (an
     * engine closing).  One arena, grown and trimmed with brk, is enough:
     * the tasks take turns anyway (emu/kernel/sched.c).
     * An allocator that replaces glibc's (a sanitizer's) answers 0: it
     * has no arenas of glibc's, and nothing here to tune. */
    (void)mallopt(M_ARENA_MAX, 1);
#endif
    return OK;
}

size_t host_page_size(void)
{
    static size_t page;
    if (!page) {
        long v = sysconf(_SC_PAGESIZE);
        page = v > 0 ? (size_t)v : 4096;
    }
    return page;
}

err_t host_zero_pages(void *p, size_t len)
{
    if (!len)
        return OK;
#if defined(__linux__)
    if (madvise(p, len, MADV_DONTNEED) != 0)
        return err_new("madvise(MADV_DONTNEED) of %zu bytes: %s", len, host_strerror(errno));
#else
    void *q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON | MAP_FIXED, -1, 0);
    if (q == MAP_FAILED)
        return err_new("mmap(MAP_FIXED) of %zu bytes: %s", len, host_strerror(errno));
#endif
    return OK;
}

bool host_page_resident(const void *p)
{
    uintptr_t page = (uintptr_t)p & ~(uintptr_t)(host_page_size() - 1);
#if defined(__APPLE__)
    char v = 0;
#else
    unsigned char v = 0;
#endif
    if (mincore((void *)page, host_page_size(), &v) != 0)
        return true;
    return v & 1;
}

/* Which host pages from `first` on are pages of their own: up to n
 * answers in own[], 0 where the host will not say (then the caller asks
 * mincore).  Linux's pagemap: bit 63 present, bit 56 mapped exclusively,
 * which the shared zero page a read of untouched memory maps never is. */
static size_t own_pages(uintptr_t first, size_t n, bool *own)
{
#if defined(__linux__)
    uint64_t entries[512];
    n = MIN(n, G_N_ELEMENTS(entries));
    uintptr_t page = host_page_size();
    if (pagemap_fd >= 0 &&
        pread(pagemap_fd, entries, n * sizeof(entries[0]),
              (off_t)(first / page) * (off_t)sizeof(entries[0])) == (ssize_t)(n * sizeof(entries[0]))) {
        for (size_t i = 0; i < n; i++)
            own[i] = (entries[i] >> 63 & 1) && (entries[i] >> 56 & 1);
        return n;
    }
#endif
    (void)first, (void)n, (void)own;
    return 0;
}

bool host_range_has_own_page(const void *p, size_t len)
{
    uintptr_t page = host_page_size();
    uintptr_t at = (uintptr_t)p & ~(page - 1), end = (uintptr_t)p + len;
    bool own[512];
    while (at < end) {
        size_t n = own_pages(at, MIN((end - at + page - 1) / page, G_N_ELEMENTS(own)), own);
        if (!n) {
            n = 1;
            own[0] = host_page_resident((const void *)at);
        }
        for (size_t i = 0; i < n; i++)
            if (own[i])
                return true;
        at += n * page;
    }
    return false;
}

void host_copy_own_pages(uint8_t *dst, const uint8_t *src, size_t len)
{
    uintptr_t page = host_page_size();
    uintptr_t at = (uintptr_t)src & ~(page - 1), end = (uintptr_t)src + len;
    bool own[512];
    while (at < end) {
        size_t want = MIN((end - at + page - 1) / page, G_N_ELEMENTS(own));
        size_t n = own_pages(at, want, own);
        if (!n) {
            n = 1;
            own[0] = host_page_resident((const void *)at);
        }
        for (size_t i = 0; i < n; i++, at += page) {
            if (!own[i])
                continue;
            uintptr_t from = MAX(at, (uintptr_t)src), to = MIN(at + page, end);
            memcpy(dst + (from - (uintptr_t)src), (const void *)from, to - from);
        }
    }
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* While a second thread shares the descriptor table, Linux takes and
 * drops a reference on the file at every read and write (fdget's fast
 * path needs a table with one user): 8 ns of a trapped 1-byte write's
 * 220 on the Intel VM (bench/, null64).  close_range's UNSHARE gives the
 * calling thread a copy and closes the rest of it in one step; the copy
 * must hold nothing else, or a guest's close of a granted socket would
 * not reach the peer. */
bool host_tune_private_fds(const int *keep, int n)
{
#if defined(__linux__) && defined(SYS_close_range)
    int k[8], m = 0;
    if (n < 0 || n > (int)G_N_ELEMENTS(k))
        return false;
    for (int i = 0; i < n; i++)
        if (keep[i] >= 0)
            k[m++] = keep[i];
    qsort(k, (size_t)m, sizeof(int), by_value);
    /* Close each gap between the kept ones, the first call unsharing. */
    unsigned flags = CLOSE_RANGE_UNSHARE, from = 0;
    for (int i = 0; i <= m; i++) {
        if (i == m || (unsigned)k[i] > from) {
            unsigned last = i < m ? (unsigned)k[i] - 1 : ~0u;
            if (syscall(SYS_close_range, from, last, flags) != 0) {
                /* Before Linux 5.9 (ENOSYS) the first call changes
                 * nothing.  A later one, on a private table and a valid
                 * range, cannot fail; if it did, the copy would keep
                 * guest descriptors open. */
                if (flags)
                    return false;
                g_error("close_range on the timer thread's own table: %s", host_strerror(errno));
            }
            flags = 0;
        }
        if (i < m)
            from = (unsigned)k[i] + 1;
    }
    return true;
#else
    (void)keep, (void)n;
    return false;
#endif
}

/* glibc makes read and write cancellation points once a second thread
 * exists: two atomic operations on the thread's cancel state around every
 * call, 7 ns of the 220 above.  seccomp-emu never cancels a thread, so on
 * Linux the system call itself is made. */
ssize_t host_read(int fd, void *buf, size_t len)
{
#ifdef __linux__
    return syscall(SYS_read, fd, buf, len);
#else
    return read(fd, buf, len);
#endif
}

ssize_t host_write(int fd, const void *buf, size_t len)
{
#ifdef __linux__
    return syscall(SYS_write, fd, buf, len);
#else
    return write(fd, buf, len);
#endif
}
