/* Wait queues and the one way a task blocks.
 *
 * An object a task can wait for (a futex bucket, a pipe, an eventfd, a
 * process's children, a vfork) owns a struct waitq.  A blocking call
 * fills a struct wait_for and calls wait_event(), which re-checks the
 * condition each time the task is woken, with the CPU held, and returns
 * when it holds, when a deadline passes, when one of the host descriptors
 * given is ready, or when a signal the task must see arrives.  Whoever
 * changes the object (holding the CPU) calls waitq_wake().  There is no
 * other way to block: timeouts, signal interruption and the release of
 * the CPU are written once, here (sleeps, pause, sigsuspend, futex, wait4,
 * pipes and the poll family all come through it).
 *
 * Because only the task holding the CPU changes kernel state, "check the
 * condition, then sleep" loses no wake-up: a waker cannot run between the
 * two. */
#ifndef EMU_WAIT_H
#define EMU_WAIT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct task;

struct waitq {
    GQueue waiters; /* struct waiter *, in arrival order */
};

/* One task on one queue.  `key` and `bitset` are for callers that share
 * a queue among several objects (futex buckets). */
struct waiter {
    struct task *t;
    struct waitq *q;  /* where it is now (FUTEX_REQUEUE moves it) */
    const void *key;
    uint64_t key2;
    uint32_t bitset;
    bool woken;       /* taken off the queue by a waker */
    /* futex: a FUTEX_WAIT_REQUEUE_PI waiter (Linux's rt_waiter), and the
     * PI futex it may be requeued to */
    bool requeue_pi;
    const void *pi_key;
    uint64_t pi_key2;
};

void waitq_init(struct waitq *q);
bool waitq_empty(const struct waitq *q);
void waitq_add(struct waitq *q, struct waiter *w);
void waitq_remove(struct waiter *w); /* if still queued */

/* Wake up to `n` waiters (n < 0: all) that `match` accepts (NULL: any),
 * oldest first: each is taken off the queue, marked woken and made
 * runnable.  Returns how many. */
int waitq_wake_match(struct waitq *q, int n, bool (*match)(const struct waiter *w, void *arg),
                     void *arg);
static inline int waitq_wake(struct waitq *q, int n)
{
    return waitq_wake_match(q, n, NULL, NULL);
}

enum wait_clock { WAIT_MONOTONIC, WAIT_REALTIME };

#define WAIT_MAX_QUEUES 4

struct wait_for {
    /* Queues to sit on while asleep (the caller may also have queued
     * waiters of its own, as futex does). */
    struct waitq *queues[WAIT_MAX_QUEUES];
    int nqueues;
    /* As many more as a poll family call watches (NULL: none). */
    struct waitq *const *more_queues;
    int nmore;
    /* A wake-up on one of the queues ends the wait (returns 0): for
     * callers that re-check readiness themselves (poll, epoll). */
    bool return_on_wake;
    /* Checked first and after each wake-up; NULL: only a signal, the
     * deadline or a descriptor ends the wait. */
    bool (*ready)(struct task *t, void *arg);
    void *arg;
    /* Host descriptors (struct pollfd) to wait on as well; their
     * revents say which is ready when wait_event() returns 1. */
    void *pollfds;
    int nfds;
    /* Absolute, on `clock`, in nanoseconds; < 0: none. */
    int64_t deadline_ns;
    enum wait_clock clock;
    /* A signal the task must see (deliverable: not blocked, not
     * ignored) ends the wait.  A dying task always stops waiting. */
    bool interruptible;
};

/* 0 the condition holds, 1 a host descriptor is ready, -ETIMEDOUT_LINUX,
 * -ERESTARTSYS_LINUX for a signal (the caller maps it to EINTR or a
 * restart), -EINTR_LINUX when the task is being killed. */
int wait_event(struct task *t, const struct wait_for *w);

/* The absolute deadline `rel_ns` from now on CLOCK_MONOTONIC. */
int64_t wait_deadline_in(int64_t rel_ns);
/* Now on the clock, in nanoseconds. */
int64_t wait_clock_now(enum wait_clock clock);

#endif
