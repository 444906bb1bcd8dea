#include "emu/kernel/wait.h"

#include <poll.h>
#include <time.h>

#include "abi/linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"

#define NS 1000000000ll

void waitq_init(struct waitq *q) { g_queue_init(&q->waiters); }

bool waitq_empty(const struct waitq *q) { return q->waiters.head == NULL; }

void waitq_add(struct waitq *q, struct waiter *w)
{
    w->q = q;
    w->woken = false;
    g_queue_push_tail(&q->waiters, w);
}

void waitq_remove(struct waiter *w)
{
    if (!w->q)
        return;
    g_queue_remove(&w->q->waiters, w);
    w->q = NULL;
}

int waitq_wake_match(struct waitq *q, int n, bool (*match)(const struct waiter *w, void *arg),
                     void *arg)
{
    int woken = 0;
    GList *l = q->waiters.head;
    while (l && (n < 0 || woken < n)) {
        GList *next = l->next;
        struct waiter *w = l->data;
        if (!match || match(w, arg)) {
            g_queue_delete_link(&q->waiters, l);
            w->q = NULL;
            w->woken = true;
            sched_wake(w->t);
            woken++;
        }
        l = next;
    }
    return woken;
}

int64_t wait_clock_now(enum wait_clock clock)
{
    struct timespec ts;
    clock_gettime(clock == WAIT_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * NS + ts.tv_nsec;
}

int64_t wait_deadline_in(int64_t rel_ns)
{
    int64_t now = wait_clock_now(WAIT_MONOTONIC);
    return rel_ns > INT64_MAX - now ? INT64_MAX : now + rel_ns;
}

/* Are any of the host descriptors ready now? */
static bool host_ready(const struct wait_for *w)
{
    if (w->nfds <= 0)
        return false;
    int n;
    do
        n = poll(w->pollfds, (nfds_t)w->nfds, 0);
    while (n < 0 && errno == EINTR);
    /* poll itself refusing a descriptor: let the call made next say why */
    return n != 0;
}

int wait_event(struct task *t, const struct wait_for *w)
{
    g_assert(w->nqueues <= WAIT_MAX_QUEUES && w->nmore >= 0);
    int n = w->nqueues + w->nmore;
    g_autofree struct waiter *ws = n ? g_new(struct waiter, n) : NULL;
    for (;;) {
        sched_prepare(t);
        /* What the timer thread posted (it may have woken us for it):
         * timers, limits, host signals. */
        async_take(t);
        if (w->ready && w->ready(t, w->arg))
            return 0;
        if (t->state != TASK_RUNNING)
            return -EINTR_LINUX;
        if (w->interruptible && signal_deliverable(t))
            return -ERESTARTSYS_LINUX;
        if (host_ready(w))
            return 1;
        int64_t deadline = -1;
        if (w->deadline_ns >= 0) {
            int64_t now = wait_clock_now(w->clock);
            if (now >= w->deadline_ns)
                return -ETIMEDOUT_LINUX;
            /* A realtime deadline becomes a monotonic one for each sleep;
             * the loop converts again after any wake-up. */
            deadline = wait_deadline_in(w->deadline_ns - now);
        }
        for (int i = 0; i < n; i++) {
            ws[i] = (struct waiter){ .t = t };
            waitq_add(i < w->nqueues ? w->queues[i] : w->more_queues[i - w->nqueues], &ws[i]);
        }
        sched_lock(); /* /proc's state letter reads it (sched_task_sleeping) */
        t->se.uninterruptible = !w->interruptible;
        sched_unlock();
        sched_sleep(t, deadline, w->pollfds, w->nfds);
        bool woken = false;
        for (int i = 0; i < n; i++) {
            woken |= ws[i].woken;
            waitq_remove(&ws[i]);
        }
        if (woken && w->return_on_wake)
            return 0;
    }
}
