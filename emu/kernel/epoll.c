#include "emu/kernel/epoll.h"

#include <glib.h>

#include "abi/bytes_le.h"
#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "emu/kernel/poll.h"
#include "emu/kernel/task.h"

struct eventpoll;

/* One watched (file, descriptor) pair. */
struct epitem {
    struct eventpoll *ep;
    int fd;               /* the descriptor it was added under */
    enum gfd_kind kind;   /* GFD_HOST or GFD_FILE */
    int host;             /* GFD_HOST */
    struct file *file;    /* GFD_FILE: watched, not held (Linux's epitem holds none) */
    struct file_watch watch;
    uint32_t events;      /* as asked, EPOLLERR | EPOLLHUP added; ONESHOT spent: flags only */
    uint64_t data;
    unsigned seen;        /* readiness at the last look, for edge-triggered items */
    bool ready;           /* on the ready list */
};

struct eventpoll {
    struct file *file;
    struct fdtable *ft;   /* whose descriptors name the watched host files */
    GPtrArray *items;     /* struct epitem *, in the order added */
    GQueue ready;         /* struct epitem *, Linux's rdllist order */
};

static const struct file_ops eventpoll_ops;

static bool is_epoll(const struct gfd *g)
{
    return g->kind == GFD_FILE && g->file->ops == &eventpoll_ops;
}

static struct eventpoll *ep_of(struct file *f)
{
    return f->priv;
}

/* ---- items ---- */

static void item_unready(struct epitem *epi)
{
    if (epi->ready) {
        g_queue_remove(&epi->ep->ready, epi);
        epi->ready = false;
    }
}

static void item_ready(struct epitem *epi)
{
    if (!epi->ready) {
        g_queue_push_tail(&epi->ep->ready, epi);
        epi->ready = true;
    }
}

static void item_free(struct epitem *epi)
{
    item_unready(epi);
    if (epi->kind == GFD_FILE)
        file_watch_remove(epi->file, &epi->watch);
    g_ptr_array_remove(epi->ep->items, epi);
    g_free(epi);
}

/* The watched file's last descriptor went: eventpoll_release(). */
static void item_file_gone(struct file_watch *w)
{
    struct epitem *epi = (struct epitem *)((char *)w - offsetof(struct epitem, watch));
    epi->kind = GFD_NONE; /* already off the file's list */
    item_free(epi);
}

/* Is the item's file still open somewhere?  A granted host descriptor
 * stays open while a guest descriptor names it (fdtable_close), and the
 * host never reuses its number for the guest, so the test is exact. */
static bool item_alive(const struct epitem *epi)
{
    switch (epi->kind) {
    case GFD_HOST:
        return fdtable_names_host(epi->ep->ft, epi->host);
    default:
        return true; /* struct file: removed by its watch */
    }
}

static struct gfd item_gfd(const struct epitem *epi)
{
    return (struct gfd){ .kind = epi->kind, .host = epi->host, .file = epi->file };
}

static unsigned ep_poll_depth(struct eventpoll *ep, int depth);

/* ep_item_poll(): the watched file's readiness, as far as the item asks. */
static unsigned item_poll(struct epitem *epi, int depth)
{
    unsigned want = epi->events & ~EP_PRIVATE_BITS_LINUX;
    if (!want)
        return 0;
    if (epi->kind == GFD_FILE && epi->file->ops == &eventpoll_ops)
        return ep_poll_depth(ep_of(epi->file), depth + 1) & want;
    struct gfd g = item_gfd(epi);
    return poll_gfd(&g) & want;
}

/* Drop the items whose file is gone. */
static void ep_drop_dead(struct eventpoll *ep)
{
    for (guint i = 0; i < ep->items->len;) {
        struct epitem *epi = ep->items->pdata[i];
        if (item_alive(epi))
            i++;
        else
            item_free(epi);
    }
}

/* Drop items whose file is gone, and put on the ready list those found
 * ready (or, edge-triggered, newly ready): what Linux's wake-up callbacks
 * would have done since the last look. */
static void ep_scan(struct eventpoll *ep, int depth)
{
    ep_drop_dead(ep);
    for (guint i = 0; i < ep->items->len; i++) {
        struct epitem *epi = ep->items->pdata[i];
        if (epi->ready)
            continue;
        unsigned now = item_poll(epi, depth);
        bool edge = (epi->events & EPOLLET_LINUX) != 0;
        if (edge ? (now & ~epi->seen) != 0 : now != 0)
            item_ready(epi);
        epi->seen = now;
    }
}

/* ep_eventpoll_poll(): readable while an item on the ready list is ready. */
static unsigned ep_poll_depth(struct eventpoll *ep, int depth)
{
    if (depth > EP_MAX_NESTS_LINUX)
        return 0;
    ep_scan(ep, depth);
    for (GList *l = ep->ready.head; l; l = l->next)
        if (item_poll(l->data, depth))
            return POLLIN_LINUX | POLLRDNORM_LINUX;
    return 0;
}

/* ---- the file ---- */

static unsigned eventpoll_poll(struct file *f)
{
    return ep_poll_depth(ep_of(f), 0);
}

static void add_item_waits(struct eventpoll *ep, struct poll_wait *pw, int depth)
{
    if (depth > EP_MAX_NESTS_LINUX)
        return;
    for (guint i = 0; i < ep->items->len; i++) {
        struct epitem *epi = ep->items->pdata[i];
        if (epi->kind == GFD_FILE && epi->file->ops == &eventpoll_ops) {
            add_item_waits(ep_of(epi->file), pw, depth + 1);
            continue;
        }
        struct gfd g = item_gfd(epi);
        poll_wait_add(pw, &g, epi->events & ~EP_PRIVATE_BITS_LINUX);
    }
}

static void eventpoll_poll_host(struct file *f, struct poll_wait *pw, unsigned events)
{
    (void)events;
    add_item_waits(ep_of(f), pw, 0);
}

/* An anonymous inode: owner read and write, no file type (alloc_anon_inode). */
static void eventpoll_stat(struct file *f, uint32_t *mode, uint64_t *ino)
{
    (void)f;
    *mode = 0600;
    *ino = 0;
}

static void eventpoll_release(struct file *f)
{
    struct eventpoll *ep = ep_of(f);
    while (ep->items->len)
        item_free(ep->items->pdata[ep->items->len - 1]);
    g_ptr_array_free(ep->items, TRUE);
    g_free(ep);
}

static const struct file_ops eventpoll_ops = {
    .name = "epoll",
    .link = "anon_inode:[eventpoll]",
    .poll = eventpoll_poll,
    .poll_host = eventpoll_poll_host,
    .stat = eventpoll_stat,
    .release = eventpoll_release,
};

int64_t eventpoll_create(struct task *t, unsigned flags)
{
    if (flags & ~EPOLL_CLOEXEC_LINUX)
        return -EINVAL_LINUX;
    int fd = fdtable_alloc(t->fds);
    if (fd < 0)
        return fd;
    struct eventpoll *ep = g_new0(struct eventpoll, 1);
    ep->ft = t->fds;
    ep->items = g_ptr_array_new();
    g_queue_init(&ep->ready);
    ep->file = file_new(&eventpoll_ops, O_RDWR_LINUX, ep);
    fdtable_install(t->fds, fd,
                    (struct gfd){ .kind = GFD_FILE, .file = ep->file,
                                  .cloexec = (flags & EPOLL_CLOEXEC_LINUX) != 0 });
    return fd;
}

/* ---- epoll_ctl ---- */

static bool same_file(const struct gfd *a, const struct gfd *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case GFD_HOST:
        return a->host == b->host;
    case GFD_FILE:
        return a->file == b->file;
    default:
        return a == b;
    }
}

static struct epitem *ep_find(struct eventpoll *ep, const struct gfd *g, int fd)
{
    for (guint i = 0; i < ep->items->len; i++) {
        struct epitem *epi = ep->items->pdata[i];
        struct gfd ig = item_gfd(epi);
        if (epi->fd == fd && same_file(&ig, g))
            return epi;
    }
    return NULL;
}

/* ep_loop_check(): adding `to` into `ep` must close no loop, nor nest
 * deeper than EP_MAX_NESTS. */
static bool loop_or_too_deep(struct eventpoll *to, struct eventpoll *ep, int depth)
{
    for (guint i = 0; i < to->items->len; i++) {
        struct epitem *epi = to->items->pdata[i];
        if (epi->kind != GFD_FILE || epi->file->ops != &eventpoll_ops)
            continue;
        struct eventpoll *next = ep_of(epi->file);
        if (next == ep || depth > EP_MAX_NESTS_LINUX || loop_or_too_deep(next, ep, depth + 1))
            return true;
    }
    return false;
}

/* ep_insert() and ep_modify() both look at once: a ready file goes on the
 * ready list now. */
static void arm_item(struct epitem *epi)
{
    unsigned now = item_poll(epi, 0);
    epi->seen = now;
    if (now)
        item_ready(epi);
}

int64_t eventpoll_ctl(struct task *t, int epfd, int op, int fd, bool event_ok, uint32_t events,
                      uint64_t data)
{
    bool has_event = op != EPOLL_CTL_DEL_LINUX;
    if (has_event && !event_ok)
        return -EFAULT_LINUX;
    struct gfd *f = fdtable_get(t->fds, epfd);
    if (!f)
        return -EBADF_LINUX;
    struct gfd *tf = fdtable_get(t->fds, fd);
    if (!tf)
        return -EBADF_LINUX;
    if (!poll_gfd_can_poll(tf))
        return -EPERM_LINUX;
    if (same_file(f, tf) || !is_epoll(f))
        return -EINVAL_LINUX;
    if (has_event && (events & EPOLLEXCLUSIVE_LINUX)) {
        if (op == EPOLL_CTL_MOD_LINUX)
            return -EINVAL_LINUX;
        if (op == EPOLL_CTL_ADD_LINUX &&
            (is_epoll(tf) || (events & ~EPOLLEXCLUSIVE_OK_BITS_LINUX)))
            return -EINVAL_LINUX;
    }
    struct eventpoll *ep = ep_of(f->file);
    if (op == EPOLL_CTL_ADD_LINUX && is_epoll(tf)) {
        struct eventpoll *to = ep_of(tf->file);
        if (to == ep || loop_or_too_deep(to, ep, 1))
            return -ELOOP_LINUX;
    }
    ep_drop_dead(ep);
    struct epitem *epi = ep_find(ep, tf, fd);
    switch (op) {
    case EPOLL_CTL_ADD_LINUX:
        if (epi)
            return -EEXIST_LINUX;
        epi = g_new0(struct epitem, 1);
        *epi = (struct epitem){ .ep = ep, .fd = fd, .kind = tf->kind, .host = tf->host,
                                .events = events | POLLERR_LINUX | POLLHUP_LINUX,
                                .data = data };
        if (tf->kind == GFD_FILE) {
            epi->file = tf->file;
            epi->watch.gone = item_file_gone;
            file_watch_add(tf->file, &epi->watch);
        }
        g_ptr_array_add(ep->items, epi);
        arm_item(epi);
        return 0;
    case EPOLL_CTL_DEL_LINUX:
        if (!epi)
            return -ENOENT_LINUX;
        item_free(epi);
        return 0;
    case EPOLL_CTL_MOD_LINUX:
        if (!epi)
            return -ENOENT_LINUX;
        if (epi->events & EPOLLEXCLUSIVE_LINUX)
            return -EINVAL_LINUX;
        epi->events = events | POLLERR_LINUX | POLLHUP_LINUX;
        epi->data = data;
        arm_item(epi);
        return 0;
    default:
        return -EINVAL_LINUX;
    }
}

/* ---- epoll_wait ---- */

static bool put_event(struct task *t, uint64_t at, uint32_t events, uint64_t data)
{
    uint8_t raw[EPOLL_EVENT_SIZE_LINUX];
    put_le32(raw, events);
    put_le64(raw + 4, data);
    return mm_write(t->mm, at, raw, sizeof(raw));
}

/* ep_send_events(): the ready list in order, each item polled again (one
 * no longer ready is dropped); level-triggered items go back on the tail,
 * one-shot ones are disarmed, what was not reached stays at the head. */
static int64_t ep_send_events(struct task *t, struct eventpoll *ep, uint64_t uevents,
                              int maxevents)
{
    GQueue tx = ep->ready;
    g_queue_init(&ep->ready);
    GQueue requeue = G_QUEUE_INIT;
    int64_t res = 0;
    while (res < maxevents && !g_queue_is_empty(&tx)) {
        struct epitem *epi = g_queue_pop_head(&tx);
        epi->ready = false;
        unsigned revents = item_poll(epi, 0);
        if (!revents)
            continue;
        if (!put_event(t, uevents + (uint64_t)res * EPOLL_EVENT_SIZE_LINUX, revents, epi->data)) {
            g_queue_push_head(&tx, epi);
            epi->ready = true;
            if (!res)
                res = -EFAULT_LINUX;
            break;
        }
        res++;
        epi->seen = revents;
        if (epi->events & EPOLLONESHOT_LINUX)
            epi->events &= EP_PRIVATE_BITS_LINUX;
        else if (!(epi->events & EPOLLET_LINUX)) {
            g_queue_push_tail(&requeue, epi);
            epi->ready = true;
        }
    }
    /* ep_done_scan(): what was not reached first, then the re-queued. */
    for (GList *l = requeue.head; l; l = l->next)
        g_queue_push_tail(&tx, l->data);
    g_queue_clear(&requeue);
    for (GList *l = tx.head; l; l = l->next)
        ((struct epitem *)l->data)->ready = true;
    ep->ready = tx;
    return res;
}

int64_t eventpoll_wait(struct task *t, int epfd, uint64_t uevents, int maxevents, int64_t deadline,
                       bool nowait)
{
    struct gfd *f = fdtable_get(t->fds, epfd);
    if (!f)
        return -EBADF_LINUX;
    if (!is_epoll(f))
        return -EINVAL_LINUX;
    struct file *file = file_get(f->file); /* a handler cannot close it mid-wait */
    struct eventpoll *ep = ep_of(file);
    struct poll_wait pw;
    poll_wait_init(&pw);
    bool timed_out = nowait;
    int64_t res;
    for (;;) {
        ep_scan(ep, 0);
        if (!g_queue_is_empty(&ep->ready)) {
            res = ep_send_events(t, ep, uevents, maxevents);
            if (res)
                break;
        }
        if (timed_out) {
            res = 0;
            break;
        }
        g_array_set_size(pw.host, 0);
        add_item_waits(ep, &pw, 0);
        enum poll_block_result r = poll_block(t, &pw, deadline);
        if (r == POLL_INTERRUPTED) {
            res = -EINTR_LINUX;
            break;
        }
        timed_out = r == POLL_TIMED_OUT;
    }
    poll_wait_clear(&pw);
    file_put(file);
    return res;
}
