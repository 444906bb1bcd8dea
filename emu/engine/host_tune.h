/* Host-side tuning of seccomp-emu's own process.  Optional: on hosts
 * without the knobs each does nothing, or the plain portable thing. */
#ifndef EMU_HOST_TUNE_H
#define EMU_HOST_TUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/status.h"

/* Once, before the engine opens and before the file system closes
 * (sandbox_confine_files): it opens /proc/self/pagemap where there is one. */
err_t host_tune_memory(void);

/* From a helper thread (the timer thread), first thing: give it a
 * descriptor table of its own holding only `keep`, so that the main
 * thread's table is unshared again.  Returns false where the host cannot
 * (the table stays shared: slower, not wrong). */
bool host_tune_private_fds(const int *keep, int n);

/* The host's page size (4 KiB, 16 KiB on Apple Silicon, 64 KiB on some
 * arm64 and POWER kernels). */
size_t host_page_size(void);

/* Private anonymous host memory [p, p+len), host-page aligned, reads back
 * as zeros from now on and holds nothing resident: Linux's MADV_DONTNEED
 * means exactly that there; elsewhere a fresh mapping goes over the range
 * (mmap with MAP_FIXED), which every POSIX host has. */
err_t host_zero_pages(void *p, size_t len);

/* Whether the host page holding `p` is resident (mincore); true where the
 * host will not say. */
bool host_page_resident(const void *p);

/* Whether any host page of [p, p+len) is a page of its own: resident and
 * not the zero page that a read of untouched memory maps.  Linux says so
 * in /proc/self/pagemap; elsewhere a resident page counts, the zero page
 * included. */
bool host_range_has_own_page(const void *p, size_t len);
/* Copy [src, src+len) to dst, which reads as zeros, page by page: only the
 * host pages of src that are pages of their own (as above); the rest read
 * as zeros in both.  A fork's copy then costs what the parent touched, as
 * copy-on-write does. */
void host_copy_own_pages(uint8_t *dst, const uint8_t *src, size_t len);

/* A guest's read or write on a host descriptor, in one piece: not a
 * thread-cancellation point where the C library makes read(2) one. */
ssize_t host_read(int fd, void *buf, size_t len);
ssize_t host_write(int fd, const void *buf, size_t len);

#endif
