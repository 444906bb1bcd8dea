#include "emu/kernel/poll.h"

#include <errno.h>
#include <poll.h>
#include <sys/stat.h>
#include <time.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif

#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/wait.h"
#include "emu/xlat.h"

/* Everything a ->poll can answer, asked of the host at once. */
#define ALL_EVENTS_LINUX                                                                     \
    (POLLIN_LINUX | POLLPRI_LINUX | POLLOUT_LINUX | POLLRDNORM_LINUX | POLLRDBAND_LINUX |   \
     POLLWRNORM_LINUX | POLLWRBAND_LINUX | POLLRDHUP_LINUX)

static unsigned poll_host_now(int host)
{
    struct pollfd p = { .fd = host, .events = xlat_poll_to_host(ALL_EVENTS_LINUX) };
    int n;
    do
        n = poll(&p, 1, 0);
    while (n < 0 && errno == EINTR);
    return n > 0 ? xlat_poll_to_linux(p.revents) : 0;
}

unsigned poll_gfd(const struct gfd *g)
{
    switch (g->kind) {
    case GFD_HOST:
        return poll_host_now(g->host);
    case GFD_FILE:
        return g->file->ops->poll ? g->file->ops->poll(g->file) : DEFAULT_POLLMASK_LINUX;
    case GFD_GRANT: /* a granted file or directory: no ->poll */
    case GFD_VIRTUAL:
    case GFD_PROC_SECCOMP:
    case GFD_NONE:
        break;
    }
    return DEFAULT_POLLMASK_LINUX;
}

/* Linux's memory devices without ->poll: /dev/null, /dev/zero, /dev/full. */
static bool host_memory_device(const struct stat *st)
{
#if defined(__linux__)
    if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != 1)
        return false;
    unsigned m = minor(st->st_rdev);
    return m == 3 || m == 5 || m == 7;
#else
    (void)st;
    return false;
#endif
}

bool poll_gfd_can_poll(const struct gfd *g)
{
    switch (g->kind) {
    case GFD_HOST: {
        struct stat st;
        if (fstat(g->host, &st) != 0)
            return true;
        return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !host_memory_device(&st);
    }
    case GFD_FILE:
        return g->file->ops->poll != NULL;
    case GFD_GRANT:        /* regular files and directories of the grants */
    case GFD_VIRTUAL:      /* /proc/self/status, /dev/null, /dev/zero, /dev/urandom */
    case GFD_PROC_SECCOMP: /* the seed's /proc file */
    case GFD_NONE:
        break;
    }
    return false;
}

void poll_wait_init(struct poll_wait *pw)
{
    pw->host = g_array_new(FALSE, FALSE, sizeof(struct pollfd));
    pw->queues = g_ptr_array_new();
}

void poll_wait_clear(struct poll_wait *pw)
{
    if (pw->host)
        g_array_free(pw->host, TRUE);
    pw->host = NULL;
    if (pw->queues)
        g_ptr_array_free(pw->queues, TRUE);
    pw->queues = NULL;
}

void poll_wait_add_host(struct poll_wait *pw, int host, unsigned events)
{
    /* POLLERR and POLLHUP are always reported; asking for them is harmless. */
    short ev = xlat_poll_to_host(events | POLLERR_LINUX | POLLHUP_LINUX);
    for (guint i = 0; i < pw->host->len; i++) {
        struct pollfd *p = &g_array_index(pw->host, struct pollfd, i);
        if (p->fd == host) {
            p->events |= ev;
            return;
        }
    }
    struct pollfd p = { .fd = host, .events = ev };
    g_array_append_val(pw->host, p);
}

void poll_wait_add(struct poll_wait *pw, const struct gfd *g, unsigned events)
{
    switch (g->kind) {
    case GFD_HOST:
        poll_wait_add_host(pw, g->host, events);
        return;
    case GFD_FILE: {
        if (g->file->ops->poll_host)
            g->file->ops->poll_host(g->file, pw, events);
        struct waitq *q = g->file->ops->waitq ? g->file->ops->waitq(g->file) : NULL;
        if (q && !g_ptr_array_find(pw->queues, q, NULL))
            g_ptr_array_add(pw->queues, q);
        return;
    }
    default:
        /* Always ready, or nothing but the caller could change it. */
        return;
    }
}

int64_t poll_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

enum poll_block_result poll_block(struct task *t, struct poll_wait *pw, int64_t deadline)
{
    if (deadline >= 0 && deadline <= poll_now())
        return POLL_TIMED_OUT;
    int r = wait_event(t, &(struct wait_for){
                              .more_queues = (struct waitq *const *)pw->queues->pdata,
                              .nmore = (int)pw->queues->len,
                              .return_on_wake = true,
                              .pollfds = pw->host->len ? pw->host->data : NULL,
                              .nfds = (int)pw->host->len,
                              .deadline_ns = deadline,
                              .clock = WAIT_MONOTONIC,
                              .interruptible = true });
    return r >= 0 ? POLL_WOKEN : r == -ETIMEDOUT_LINUX ? POLL_TIMED_OUT : POLL_INTERRUPTED;
}
