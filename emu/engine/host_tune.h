/* Host-side tuning of seccomp-emu's own process.  Optional: on hosts
 * without the knobs each does nothing, or the plain portable thing. */
#ifndef EMU_HOST_TUNE_H
#define EMU_HOST_TUNE_H

#include <stdbool.h>
#include <sys/types.h>

#include "emu/status.h"

/* Once, before the engine opens. */
err_t host_tune_memory(void);

/* From a helper thread (the timer thread), first thing: give it a
 * descriptor table of its own holding only `keep`, so that the main
 * thread's table is unshared again.  Returns false where the host cannot
 * (the table stays shared: slower, not wrong). */
bool host_tune_private_fds(const int *keep, int n);

/* A guest's read or write on a host descriptor, in one piece: not a
 * thread-cancellation point where the C library makes read(2) one. */
ssize_t host_read(int fd, void *buf, size_t len);
ssize_t host_write(int fd, const void *buf, size_t len);

#endif
