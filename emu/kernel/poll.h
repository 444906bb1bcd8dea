/* Readiness and waiting for the poll family (poll, select, epoll): what
 * each kind of guest descriptor is ready for, as its file's ->poll would
 * answer in Linux, and the one place such a call blocks.
 *
 * A granted host descriptor answers through the host's poll() and is
 * waited on as a host descriptor.  An emulated file (struct file) answers
 * through its ops->poll and is waited on through its ops->waitq, which
 * whoever changes it (another guest task) wakes (emu/kernel/wait.h). */
#ifndef EMU_KERNEL_POLL_H
#define EMU_KERNEL_POLL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/kernel/fdtable.h"

struct task;

/* The POLL*_LINUX events that hold now for what `g` names (vfs_poll:
 * DEFAULT_POLLMASK for a file without ->poll). */
unsigned poll_gfd(const struct gfd *g);

/* Whether the file has a ->poll at all (file_can_poll): epoll refuses
 * the others with EPERM.  Regular files, directories, /proc files and
 * /dev/null-like devices have none. */
bool poll_gfd_can_poll(const struct gfd *g);

/* What one blocking call waits on. */
struct poll_wait {
    GArray *host;     /* struct pollfd, one per host descriptor */
    GPtrArray *queues; /* struct waitq *: the emulated files' (ops->waitq) */
};

void poll_wait_init(struct poll_wait *pw);
void poll_wait_clear(struct poll_wait *pw);
/* Wait for `events` (POLL*_LINUX) on what `g` names as well. */
void poll_wait_add(struct poll_wait *pw, const struct gfd *g, unsigned events);
void poll_wait_add_host(struct poll_wait *pw, int host, unsigned events);

/* Now on CLOCK_MONOTONIC, in nanoseconds: deadlines are absolute on it. */
int64_t poll_now(void);

enum poll_block_result {
    POLL_WOKEN,       /* something may be ready: ask again */
    POLL_TIMED_OUT,   /* the deadline passed */
    POLL_INTERRUPTED, /* a signal the task must see, or the task is dying */
};

/* The one place the poll family sleeps: until something in `pw` may be
 * ready, `deadline` (absolute, poll_now(); < 0: none) passes, or a signal
 * the guest must see arrives. */
enum poll_block_result poll_block(struct task *t, struct poll_wait *pw, int64_t deadline);

#endif
