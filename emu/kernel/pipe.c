#include "emu/kernel/pipe.h"

#include <string.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "abi/task_linux.h"
#include "emu/kernel/iov.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"
#include "emu/kernel/wait.h"

#define PIPE_PAGE 4096u
#define PIPE_SLOTS (PIPE_DEF_CAPACITY_LINUX / PIPE_PAGE)

/* ---- pipes ---- */

struct pipe_buf {
    uint8_t *page;
    unsigned offset, len;
    bool packet;    /* O_DIRECT: one write, read whole at once */
    bool can_merge; /* a later small write may append here */
};

struct pipe {
    struct pipe_buf bufs[PIPE_SLOTS];
    unsigned head, tail; /* ring of slots, head - tail in use */
    unsigned readers, writers;
    struct waitq wait;   /* readers and writers both: any change */
};

static bool pipe_empty(const struct pipe *p) { return p->head == p->tail; }
static bool pipe_full(const struct pipe *p) { return p->head - p->tail >= PIPE_SLOTS; }

static uint64_t pipe_bytes(const struct pipe *p)
{
    uint64_t n = 0;
    for (unsigned i = p->tail; i != p->head; i++)
        n += p->bufs[i % PIPE_SLOTS].len;
    return n;
}

static void drop_buf(struct pipe *p)
{
    struct pipe_buf *b = &p->bufs[p->tail % PIPE_SLOTS];
    g_free(b->page);
    *b = (struct pipe_buf){ 0 };
    p->tail++;
}

struct pipe_end {
    struct pipe *pipe;
    bool write;
};

static struct pipe *pipe_of(struct file *f) { return ((struct pipe_end *)f->priv)->pipe; }

static bool pipe_readable(struct task *t, void *arg)
{
    (void)t;
    struct pipe *p = arg;
    return !pipe_empty(p) || !p->writers;
}

static bool pipe_writable(struct task *t, void *arg)
{
    (void)t;
    struct pipe *p = arg;
    return !pipe_full(p) || !p->readers;
}

/* A wait for `ready`; the call's result when it ends without it. */
static int pipe_wait(struct task *t, struct pipe *p, bool (*ready)(struct task *, void *))
{
    int e = wait_event(t, &(struct wait_for){ .queues = { &p->wait }, .nqueues = 1,
                                             .ready = ready, .arg = p, .deadline_ns = -1,
                                             .interruptible = true });
    return e == 0 ? 0 : e == -ERESTARTSYS_LINUX ? -ERESTARTSYS_LINUX : -EINTR_LINUX;
}

/* pipe_read() */
static int64_t pipe_read(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    struct pipe *p = pipe_of(f);
    struct iov_cursor c = { iov, n, 0, 0 };
    uint64_t total = iov_left(&c);
    if (total == 0)
        return 0;
    int64_t ret = 0;
    for (;;) {
        bool was_full = pipe_full(p);
        while (!pipe_empty(p) && total) {
            struct pipe_buf *b = &p->bufs[p->tail % PIPE_SLOTS];
            uint64_t chars = MIN(b->len, total);
            uint64_t got = iov_copy(t, &c, b->page + b->offset, chars, true);
            if (got < chars) {
                if (!ret)
                    ret = -EFAULT_LINUX;
                goto out;
            }
            ret += chars;
            b->offset += chars;
            b->len -= chars;
            if (b->packet) {
                total = chars;
                b->len = 0;
            }
            if (!b->len)
                drop_buf(p);
            total -= chars;
        }
        if (was_full && !pipe_full(p))
            waitq_wake(&p->wait, -1);
        if (!total || ret)
            break;
        if (!p->writers)
            break;
        if (f->flags & O_NONBLOCK_LINUX) {
            ret = -EAGAIN_LINUX;
            break;
        }
        int e = pipe_wait(t, p, pipe_readable);
        if (e) {
            ret = e;
            break;
        }
    }
out:
    if (ret > 0)
        waitq_wake(&p->wait, -1);
    return ret;
}

/* pipe_write() */
static int64_t pipe_write(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    struct pipe *p = pipe_of(f);
    struct iov_cursor c = { iov, n, 0, 0 };
    uint64_t total = iov_left(&c);
    if (total == 0)
        return 0;
    if (!p->readers) {
        signal_post(t, SIGPIPE_LINUX);
        return -EPIPE_LINUX;
    }
    bool packet = f->flags & O_DIRECT_LINUX;
    int64_t ret = 0;
    bool was_empty = pipe_empty(p);
    /* The part of the write past whole pages may go into the last page,
     * if it all fits there. */
    uint64_t chars = total & (PIPE_PAGE - 1);
    if (chars && !was_empty) {
        struct pipe_buf *b = &p->bufs[(p->head - 1) % PIPE_SLOTS];
        if (b->can_merge && b->offset + b->len + chars <= PIPE_PAGE) {
            uint64_t got = iov_copy(t, &c, b->page + b->offset + b->len, chars, false);
            if (got < chars)
                return -EFAULT_LINUX;
            b->len += (unsigned)chars;
            ret = (int64_t)chars;
            total -= chars;
            if (!total)
                goto out;
        }
    }
    for (;;) {
        if (!p->readers) {
            signal_post(t, SIGPIPE_LINUX);
            if (!ret)
                ret = -EPIPE_LINUX;
            break;
        }
        if (!pipe_full(p)) {
            struct pipe_buf *b = &p->bufs[p->head % PIPE_SLOTS];
            *b = (struct pipe_buf){ .page = g_malloc(PIPE_PAGE), .packet = packet,
                                    .can_merge = !packet };
            p->head++;
            uint64_t want = MIN(total, PIPE_PAGE);
            uint64_t got = iov_copy(t, &c, b->page, want, false);
            if (got < want) {
                /* The slot stays, empty, for the reader to skip. */
                if (!ret)
                    ret = -EFAULT_LINUX;
                break;
            }
            b->len = (unsigned)got;
            ret += (int64_t)got;
            total -= got;
            if (!total)
                break;
            continue;
        }
        if (f->flags & O_NONBLOCK_LINUX) {
            if (!ret)
                ret = -EAGAIN_LINUX;
            break;
        }
        /* Full: what was written is for the readers now. */
        waitq_wake(&p->wait, -1);
        int e = pipe_wait(t, p, pipe_writable);
        if (e) {
            if (!ret)
                ret = e;
            break;
        }
    }
out:
    if (ret > 0 || pipe_bytes(p))
        waitq_wake(&p->wait, -1);
    return ret;
}

static unsigned pipe_poll(struct file *f)
{
    struct pipe_end *end = f->priv;
    struct pipe *p = end->pipe;
    unsigned mask = 0;
    if (!end->write) {
        if (!pipe_empty(p) && pipe_bytes(p))
            mask |= POLLIN_LINUX | POLLRDNORM_LINUX;
        if (!p->writers)
            mask |= POLLHUP_LINUX;
    } else {
        if (!pipe_full(p))
            mask |= POLLOUT_LINUX | POLLWRNORM_LINUX;
        if (!p->readers)
            mask |= POLLERR_LINUX;
    }
    return mask;
}

static struct waitq *pipe_waitq(struct file *f) { return &pipe_of(f)->wait; }

static void pipe_stat(struct file *f, uint32_t *mode, uint64_t *ino)
{
    *mode = S_IFIFO_LINUX | 0600;
    *ino = (uint64_t)(uintptr_t)pipe_of(f) >> 4;
}

static void pipe_release(struct file *f)
{
    struct pipe_end *end = f->priv;
    struct pipe *p = end->pipe;
    if (end->write)
        p->writers--;
    else
        p->readers--;
    g_free(end);
    waitq_wake(&p->wait, -1);
    if (p->readers || p->writers)
        return;
    while (!pipe_empty(p))
        drop_buf(p);
    g_free(p);
}

/* Each end refuses the other direction, as Linux's FMODE checks do. */
static int64_t wrong_way(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    (void)t, (void)f, (void)iov, (void)n;
    return -EBADF_LINUX;
}

static const struct file_ops pipe_read_ops = {
    .name = "pipe", .read = pipe_read, .write = wrong_way, .poll = pipe_poll,
    .waitq = pipe_waitq, .stat = pipe_stat, .release = pipe_release,
};
static const struct file_ops pipe_write_ops = {
    .name = "pipe", .read = wrong_way, .write = pipe_write, .poll = pipe_poll,
    .waitq = pipe_waitq, .stat = pipe_stat, .release = pipe_release,
};

int64_t pipe_unread(struct file *f)
{
    if (f->ops != &pipe_read_ops && f->ops != &pipe_write_ops)
        return -1;
    return (int64_t)pipe_bytes(pipe_of(f));
}

int pipe_create(struct task *t, int flags, int fds[2])
{
    if (flags & ~(O_CLOEXEC_LINUX | O_NONBLOCK_LINUX | O_DIRECT_LINUX))
        return -EINVAL_LINUX;
    int r = fdtable_alloc(t->fds);
    if (r < 0)
        return r;
    fds[0] = r;
    /* Reserve the first while looking for the second. */
    t->fds->fd[fds[0]].kind = GFD_FILE;
    r = fdtable_alloc(t->fds);
    t->fds->fd[fds[0]].kind = GFD_NONE;
    if (r < 0)
        return r;
    fds[1] = r;
    struct pipe *p = g_new0(struct pipe, 1);
    p->readers = p->writers = 1;
    waitq_init(&p->wait);
    /* create_pipe_files(): O_DIRECT (packets) is the write end's only. */
    unsigned status = flags & O_NONBLOCK_LINUX, wstatus = flags & (O_NONBLOCK_LINUX | O_DIRECT_LINUX);
    struct pipe_end *rd = g_new(struct pipe_end, 1), *wr = g_new(struct pipe_end, 1);
    *rd = (struct pipe_end){ p, false };
    *wr = (struct pipe_end){ p, true };
    bool cloexec = flags & O_CLOEXEC_LINUX;
    fdtable_install(t->fds, fds[0],
                    (struct gfd){ .kind = GFD_FILE, .cloexec = cloexec,
                                  .file = file_new(&pipe_read_ops, O_RDONLY_LINUX | status, rd) });
    fdtable_install(t->fds, fds[1],
                    (struct gfd){ .kind = GFD_FILE, .cloexec = cloexec,
                                  .file = file_new(&pipe_write_ops, O_WRONLY_LINUX | wstatus, wr) });
    return 0;
}

void pipe_destroy(struct task *t, const int fds[2])
{
    fdtable_close(t->fds, fds[0]);
    fdtable_close(t->fds, fds[1]);
}

/* ---- eventfd ---- */

#define EVENTFD_MAX UINT64_MAX

struct eventfd {
    uint64_t count;
    bool semaphore;
    struct waitq wait;
};

static bool efd_readable(struct task *t, void *arg)
{
    (void)t;
    return ((struct eventfd *)arg)->count > 0;
}

struct efd_add {
    struct eventfd *e;
    uint64_t v;
};

static bool efd_fits(struct task *t, void *arg)
{
    (void)t;
    struct efd_add *a = arg;
    return EVENTFD_MAX - 1 - a->e->count >= a->v;
}

static int efd_wait(struct task *t, struct eventfd *e, bool (*ready)(struct task *, void *),
                    void *arg)
{
    int r = wait_event(t, &(struct wait_for){ .queues = { &e->wait }, .nqueues = 1,
                                             .ready = ready, .arg = arg, .deadline_ns = -1,
                                             .interruptible = true });
    return r == 0 ? 0 : r == -ERESTARTSYS_LINUX ? -ERESTARTSYS_LINUX : -EINTR_LINUX;
}

static int64_t efd_read(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    struct eventfd *e = f->priv;
    struct iov_cursor c = { iov, n, 0, 0 };
    if (iov_left(&c) < 8)
        return -EINVAL_LINUX;
    if (!e->count) {
        if (f->flags & O_NONBLOCK_LINUX)
            return -EAGAIN_LINUX;
        int r = efd_wait(t, e, efd_readable, e);
        if (r)
            return r;
    }
    uint64_t v = e->semaphore ? 1 : e->count;
    if (iov_copy(t, &c, (uint8_t *)&v, 8, true) < 8)
        return -EFAULT_LINUX;
    e->count -= v;
    waitq_wake(&e->wait, -1);
    return 8;
}

static int64_t efd_write(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    struct eventfd *e = f->priv;
    struct iov_cursor c = { iov, n, 0, 0 };
    if (iov_left(&c) < 8)
        return -EINVAL_LINUX;
    uint64_t v;
    if (iov_copy(t, &c, (uint8_t *)&v, 8, false) < 8)
        return -EFAULT_LINUX;
    if (v == EVENTFD_MAX)
        return -EINVAL_LINUX;
    struct efd_add a = { e, v };
    if (!efd_fits(t, &a)) {
        if (f->flags & O_NONBLOCK_LINUX)
            return -EAGAIN_LINUX;
        int r = efd_wait(t, e, efd_fits, &a);
        if (r)
            return r;
    }
    e->count += v;
    if (e->count)
        waitq_wake(&e->wait, -1);
    return 8;
}

static unsigned efd_poll(struct file *f)
{
    struct eventfd *e = f->priv;
    unsigned mask = 0;
    if (e->count > 0)
        mask |= POLLIN_LINUX | POLLRDNORM_LINUX;
    if (e->count == EVENTFD_MAX)
        mask |= POLLERR_LINUX;
    if (EVENTFD_MAX - 1 > e->count)
        mask |= POLLOUT_LINUX | POLLWRNORM_LINUX;
    return mask;
}

static struct waitq *efd_waitq(struct file *f) { return &((struct eventfd *)f->priv)->wait; }

static void efd_stat(struct file *f, uint32_t *mode, uint64_t *ino)
{
    (void)f;
    *mode = 0600; /* the anonymous inode's: no file type bits */
    *ino = 1;
}

static void efd_release(struct file *f) { g_free(f->priv); }

static const struct file_ops eventfd_ops = {
    .name = "eventfd", .read = efd_read, .write = efd_write, .poll = efd_poll,
    .waitq = efd_waitq, .stat = efd_stat, .release = efd_release,
};

int eventfd_create(struct task *t, uint32_t initval, int flags)
{
    if (flags & ~(O_CLOEXEC_LINUX | O_NONBLOCK_LINUX | EFD_SEMAPHORE_LINUX))
        return -EINVAL_LINUX;
    int fd = fdtable_alloc(t->fds);
    if (fd < 0)
        return fd;
    struct eventfd *e = g_new0(struct eventfd, 1);
    e->count = initval;
    e->semaphore = flags & EFD_SEMAPHORE_LINUX;
    waitq_init(&e->wait);
    struct file *f = file_new(&eventfd_ops, O_RDWR_LINUX | (flags & O_NONBLOCK_LINUX), e);
    fdtable_install(t->fds, fd,
                    (struct gfd){ .kind = GFD_FILE, .file = f,
                                  .cloexec = (flags & O_CLOEXEC_LINUX) != 0 });
    return fd;
}
