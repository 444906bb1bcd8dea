#include "emu/kernel/unix.h"

#include <string.h>

#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "abi/signal_linux.h"
#include "abi/socket_linux.h"
#include "emu/kernel/iov.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"
#include "emu/kernel/wait.h"

#define RCV_SHUTDOWN 1
#define SEND_SHUTDOWN 2
#define SHUTDOWN_MASK 3

struct unix_sock;

/* One sk_buff: a datagram, or a piece of a stream (`off` read so far). */
struct unix_msg {
    uint8_t *data;
    uint64_t len, off;
    struct unix_rights rights;
    struct unix_sock *from; /* charged to its send buffer until read */
    uint64_t truesize;
};

struct unix_pair;

struct unix_sock {
    struct unix_pair *pair;
    bool open;
    GQueue rx;         /* struct unix_msg *: what the peer sent, oldest first */
    uint64_t rx_bytes; /* unread bytes in rx */
    uint64_t wmem;     /* sk_wmem_alloc: what it sent and nobody read yet */
    unsigned shutdown; /* RCV_SHUTDOWN | SEND_SHUTDOWN */
    int err;           /* sk_err: reported once (sock_error) */
    bool disconnected; /* a datagram end whose dead peer it forgot (unix_peer = NULL) */
};

/* ---- what a message costs the sender's buffer (skb->truesize) ---- */

#define SKB_OVERHEAD 256  /* SKB_DATA_ALIGN(sizeof(struct sk_buff)) */
#define SKB_SHINFO 320    /* SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) */
#define KPAGE 4096u       /* the kernel's page, whatever the host's is */
#define SKB_MAX_HEAD0 (KPAGE - SKB_SHINFO)      /* SKB_MAX_HEAD(0) */
#define SKB_MAX_ALLOC (4 * KPAGE - SKB_SHINFO)  /* SKB_MAX_ORDER(0, 2) */
#define UNIX_SKB_FRAGS_SZ 32768u
#define MAX_SKB_FRAGS 17u

static uint64_t kpage_align(uint64_t n) { return (n + KPAGE - 1) & ~(uint64_t)(KPAGE - 1); }

/* kmalloc's size classes (SLUB), then whole power-of-two page blocks. */
static uint64_t kmalloc_size(uint64_t n)
{
    static const unsigned classes[] = { 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048,
                                        4096, 8192 };
    for (size_t i = 0; i < G_N_ELEMENTS(classes); i++)
        if (n <= classes[i])
            return classes[i];
    uint64_t p = KPAGE;
    while (p < n)
        p <<= 1;
    return p;
}

/* An skb with `head` bytes in its linear part and `data_len` in pages
 * (whole pages count: alloc_skb_with_frags). */
static uint64_t skb_truesize(uint64_t head, uint64_t data_len)
{
    return kmalloc_size(((head + 63) & ~63ull) + SKB_SHINFO) + SKB_OVERHEAD + kpage_align(data_len);
}

/* unix_dgram_sendmsg(): one skb, paged past SKB_MAX_ALLOC. */
static uint64_t dgram_truesize(uint64_t len)
{
    uint64_t data_len = 0;
    if (len > SKB_MAX_ALLOC)
        data_len = kpage_align(MIN(len - SKB_MAX_ALLOC, MAX_SKB_FRAGS * KPAGE));
    return skb_truesize(len - data_len, data_len);
}

/* unix_stream_sendmsg(): the next piece's size and its truesize. */
static uint64_t stream_piece(uint64_t left, uint64_t *truesize)
{
    uint64_t size = MIN(left, SK_SNDBUF_DEFAULT_LINUX / 2 - 64);
    size = MIN(size, SKB_MAX_HEAD0 + UNIX_SKB_FRAGS_SZ);
    uint64_t data_len = size > SKB_MAX_HEAD0 ? size - SKB_MAX_HEAD0 : 0;
    data_len = MIN(size, kpage_align(data_len));
    *truesize = skb_truesize(size - data_len, data_len);
    return size;
}

struct unix_pair {
    int type;
    struct unix_sock end[2];
    struct waitq wait; /* both ends, any change */
};

static struct unix_sock *sock_of(const struct file *f) { return f->priv; }

static struct unix_sock *peer_of(struct unix_sock *s)
{
    struct unix_pair *p = s->pair;
    return s == &p->end[0] ? &p->end[1] : &p->end[0];
}

void unix_rights_clear(struct unix_rights *r)
{
    for (int i = 0; i < r->n; i++)
        gfd_put(r->fds[i]);
    g_free(r->fds);
    *r = (struct unix_rights){ 0 };
}

static void msg_free(struct unix_msg *m)
{
    if (m->from)
        m->from->wmem -= m->truesize;
    unix_rights_clear(&m->rights);
    g_free(m->data);
    g_free(m);
}

static void drop_rx(struct unix_sock *s)
{
    struct unix_msg *m;
    while ((m = g_queue_pop_head(&s->rx)))
        msg_free(m);
    s->rx_bytes = 0;
}

/* sock_error(): the pending error, once. */
static int take_error(struct unix_sock *s)
{
    int e = s->err;
    s->err = 0;
    return e ? -e : 0;
}

/* sock_alloc_send_pskb(): a new skb while the send buffer is not full
 * (the last one may overshoot it).  A pair's own peer is never "full"
 * by queue length (unix_recvq_full is for other senders). */
static bool send_room(const struct unix_sock *s)
{
    return s->wmem < SK_SNDBUF_DEFAULT_LINUX;
}

/* unix_writable(): a quarter of the send buffer in use at most. */
static bool writable(const struct unix_sock *s)
{
    return s->wmem * 4 <= SK_SNDBUF_DEFAULT_LINUX;
}

static bool can_send(struct task *t, void *arg)
{
    (void)t;
    struct unix_sock *s = arg;
    struct unix_sock *p = peer_of(s);
    return !p->open || (p->shutdown & RCV_SHUTDOWN) || (s->shutdown & SEND_SHUTDOWN) ||
           send_room(s);
}

static bool can_recv(struct task *t, void *arg)
{
    (void)t;
    struct unix_sock *s = arg;
    return !g_queue_is_empty(&s->rx) || s->err || (s->shutdown & RCV_SHUTDOWN);
}

static int sock_wait(struct task *t, struct unix_sock *s, bool (*ready)(struct task *, void *),
                     void *arg)
{
    int e = wait_event(t, &(struct wait_for){ .queues = { &s->pair->wait }, .nqueues = 1,
                                             .ready = ready, .arg = arg, .deadline_ns = -1,
                                             .interruptible = true });
    return e == 0 ? 0 : e == -ERESTARTSYS_LINUX ? -ERESTARTSYS_LINUX : -EINTR_LINUX;
}

/* The bytes of a guest vector, read whole (a datagram) or in part. */
static int64_t copy_in(struct task *t, struct iov_cursor *c, uint64_t len, uint8_t **out)
{
    uint8_t *buf = g_malloc(len ? len : 1);
    if (iov_copy(t, c, buf, len, false) < len) {
        g_free(buf);
        return -EFAULT_LINUX;
    }
    *out = buf;
    return 0;
}

static void queue_msg(struct unix_sock *from, uint8_t *data, uint64_t len, uint64_t truesize,
                      struct unix_rights *r)
{
    struct unix_sock *to = peer_of(from);
    struct unix_msg *m = g_new0(struct unix_msg, 1);
    m->data = data;
    m->len = len;
    m->from = from;
    m->truesize = truesize;
    from->wmem += truesize;
    if (r) {
        m->rights = *r;
        *r = (struct unix_rights){ 0 };
    }
    g_queue_push_tail(&to->rx, m);
    to->rx_bytes += len;
    waitq_wake(&to->pair->wait, -1);
}

/* The end of a send the peer cannot take: EPIPE, and SIGPIPE for a
 * stream that sent nothing (unix_stream_sendmsg's out_pipe). */
static int64_t pipe_error(struct task *t, const struct unix_sock *s, unsigned flags)
{
    if (s->pair->type == SOCK_STREAM_LINUX && !(flags & MSG_NOSIGNAL_LINUX))
        signal_post(t, SIGPIPE_LINUX);
    return -EPIPE_LINUX;
}

/* unix_dgram_sendmsg() (and unix_seqpacket_sendmsg() before it) */
static int64_t send_dgram(struct task *t, struct file *f, struct unix_sock *s,
                          const struct guest_iovec *iov, int n, struct unix_rights *rights,
                          unsigned flags)
{
    if (s->pair->type == SOCK_SEQPACKET_LINUX) {
        int e = take_error(s);
        if (e)
            return e;
    }
    if (flags & MSG_OOB_LINUX)
        return -EOPNOTSUPP_LINUX;
    struct iov_cursor c = { iov, n, 0, 0 };
    uint64_t len = iov_left(&c);
    if (len > SK_SNDBUF_DEFAULT_LINUX - 32)
        return -EMSGSIZE_LINUX;
    if (s->shutdown & SEND_SHUTDOWN)
        return -EPIPE_LINUX; /* sock_alloc_send_pskb() */
    uint8_t *data;
    int64_t r = copy_in(t, &c, len, &data);
    if (r)
        return r;
    bool nonblock = (flags & MSG_DONTWAIT_LINUX) || (f->flags & O_NONBLOCK_LINUX);
    for (;;) {
        struct unix_sock *p = peer_of(s);
        if (s->disconnected) {
            g_free(data);
            return -ENOTCONN_LINUX;
        }
        if (!p->open) {
            g_free(data);
            /* SOCK_DEAD: a seqpacket pair's peer is gone; a datagram end
             * forgets its peer (ECONNREFUSED, then ENOTCONN). */
            if (s->pair->type == SOCK_SEQPACKET_LINUX)
                return -EPIPE_LINUX;
            s->disconnected = true;
            return -ECONNREFUSED_LINUX;
        }
        if (p->shutdown & RCV_SHUTDOWN) {
            g_free(data);
            return -EPIPE_LINUX;
        }
        if (send_room(s))
            break;
        if (nonblock) {
            g_free(data);
            return -EAGAIN_LINUX;
        }
        int e = sock_wait(t, s, can_send, s);
        if (e) {
            g_free(data);
            return e;
        }
    }
    queue_msg(s, data, len, dgram_truesize(len), rights);
    return (int64_t)len;
}

/* unix_stream_sendmsg() */
static int64_t send_stream(struct task *t, struct file *f, struct unix_sock *s,
                           const struct guest_iovec *iov, int n, struct unix_rights *rights,
                           unsigned flags)
{
    if (flags & MSG_OOB_LINUX)
        return -EOPNOTSUPP_LINUX; /* CONFIG_AF_UNIX_OOB is not emulated */
    if (s->shutdown & SEND_SHUTDOWN)
        return pipe_error(t, s, flags);
    struct iov_cursor c = { iov, n, 0, 0 };
    uint64_t len = iov_left(&c), sent = 0;
    bool nonblock = (flags & MSG_DONTWAIT_LINUX) || (f->flags & O_NONBLOCK_LINUX);
    while (sent < len) {
        uint64_t truesize;
        uint64_t size = stream_piece(len - sent, &truesize);
        if (!send_room(s)) {
            if (nonblock)
                return sent ? (int64_t)sent : -EAGAIN_LINUX;
            int e = sock_wait(t, s, can_send, s);
            if (e)
                return sent ? (int64_t)sent : e;
            if (s->shutdown & SEND_SHUTDOWN)
                return sent ? (int64_t)sent : pipe_error(t, s, flags);
            continue;
        }
        uint8_t *data;
        int64_t r = copy_in(t, &c, size, &data);
        if (r)
            return sent ? (int64_t)sent : r;
        struct unix_sock *p = peer_of(s);
        if (!p->open || (p->shutdown & RCV_SHUTDOWN)) {
            g_free(data);
            return sent ? (int64_t)sent : pipe_error(t, s, flags);
        }
        /* The descriptors go with the first piece only. */
        queue_msg(s, data, size, truesize, rights->n ? rights : NULL);
        sent += size;
    }
    return (int64_t)sent;
}

int64_t unix_send(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                  struct unix_rights *rights, unsigned flags)
{
    struct unix_sock *s = sock_of(f);
    int64_t r = s->pair->type == SOCK_STREAM_LINUX ? send_stream(t, f, s, iov, n, rights, flags)
                                                   : send_dgram(t, f, s, iov, n, rights, flags);
    if (r > 0)
        waitq_wake(&s->pair->wait, -1);
    return r;
}

/* Copy a message's bytes out; `peek` leaves them. */
static uint64_t copy_out(struct task *t, struct iov_cursor *c, struct unix_msg *m, uint64_t want,
                         int64_t *err)
{
    uint64_t got = iov_copy(t, c, m->data + m->off, want, true);
    if (got < want)
        *err = -EFAULT_LINUX;
    return got;
}

/* Hand the message's descriptors to the receiver: taken, or (MSG_PEEK)
 * copied. */
static void take_rights(struct unix_msg *m, bool peek, struct unix_rights *out)
{
    if (!m->rights.n)
        return;
    if (!peek) {
        *out = m->rights;
        m->rights = (struct unix_rights){ 0 };
        return;
    }
    out->n = m->rights.n;
    out->fds = g_new(struct gfd, out->n);
    for (int i = 0; i < out->n; i++)
        out->fds[i] = gfd_dup(&m->rights.fds[i]);
}

/* __unix_dgram_recvmsg() */
static int64_t recv_dgram(struct task *t, struct file *f, struct unix_sock *s,
                          const struct guest_iovec *iov, int n, unsigned flags,
                          struct unix_rights *rights, unsigned *msg_flags)
{
    if (flags & MSG_OOB_LINUX)
        return -EOPNOTSUPP_LINUX;
    bool nonblock = (flags & MSG_DONTWAIT_LINUX) || (f->flags & O_NONBLOCK_LINUX);
    while (g_queue_is_empty(&s->rx)) {
        int e = take_error(s);
        if (e)
            return e;
        if (s->shutdown & RCV_SHUTDOWN)
            return 0;
        if (nonblock)
            return -EAGAIN_LINUX;
        e = sock_wait(t, s, can_recv, s);
        if (e)
            return e;
    }
    struct unix_msg *m = g_queue_peek_head(&s->rx);
    struct iov_cursor c = { iov, n, 0, 0 };
    uint64_t size = iov_left(&c);
    if (size > m->len)
        size = m->len;
    else if (size < m->len)
        *msg_flags |= MSG_TRUNC_LINUX;
    int64_t err = 0;
    copy_out(t, &c, m, size, &err);
    bool peek = flags & MSG_PEEK_LINUX;
    if (!peek) {
        g_queue_pop_head(&s->rx);
        s->rx_bytes -= m->len;
    }
    if (err) {
        if (!peek)
            msg_free(m);
        return err;
    }
    take_rights(m, peek, rights);
    int64_t r = (flags & MSG_TRUNC_LINUX) ? (int64_t)m->len : (int64_t)size;
    if (!peek) {
        msg_free(m);
        waitq_wake(&s->pair->wait, -1);
    }
    return r;
}

/* unix_stream_read_generic() */
static int64_t recv_stream(struct task *t, struct file *f, struct unix_sock *s,
                           const struct guest_iovec *iov, int n, unsigned flags,
                           struct unix_rights *rights)
{
    if (flags & MSG_OOB_LINUX)
        return -EOPNOTSUPP_LINUX;
    bool nonblock = (flags & MSG_DONTWAIT_LINUX) || (f->flags & O_NONBLOCK_LINUX);
    bool peek = flags & MSG_PEEK_LINUX;
    struct iov_cursor c = { iov, n, 0, 0 };
    uint64_t size = iov_left(&c);
    uint64_t target = (flags & MSG_WAITALL_LINUX) ? size : 1;
    uint64_t copied = 0;
    GList *at = NULL; /* MSG_PEEK walks the queue without taking */
    for (;;) {
        struct unix_msg *m = peek ? (at ? at->data : NULL) : g_queue_peek_head(&s->rx);
        if (peek && !at && copied == 0) {
            at = s->rx.head;
            m = at ? at->data : NULL;
        }
        if (!m) {
            if (copied >= target || (copied && size == copied))
                break;
            int e = take_error(s);
            if (e)
                return copied ? (int64_t)copied : e;
            if (s->shutdown & RCV_SHUTDOWN)
                break;
            if (nonblock)
                return copied ? (int64_t)copied : -EAGAIN_LINUX;
            if (copied && peek)
                break;
            e = sock_wait(t, s, can_recv, s);
            if (e)
                return copied ? (int64_t)copied : e;
            continue;
        }
        /* A piece that carries descriptors is not joined to what came
         * before it (they go with their own bytes). */
        if (copied && m->rights.n)
            break;
        uint64_t chunk = MIN(m->len - m->off, size - copied);
        int64_t err = 0;
        uint64_t got = copy_out(t, &c, m, chunk, &err);
        if (err)
            return copied ? (int64_t)copied : err;
        copied += got;
        bool had_rights = m->rights.n;
        take_rights(m, peek, rights);
        if (peek) {
            at = at->next;
        } else {
            m->off += got;
            s->rx_bytes -= got;
            if (m->off == m->len) {
                g_queue_pop_head(&s->rx);
                msg_free(m);
            }
            waitq_wake(&s->pair->wait, -1);
        }
        if (had_rights || copied >= size)
            break;
    }
    return (int64_t)copied;
}

int64_t unix_recv(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                  unsigned flags, struct unix_rights *rights, unsigned *msg_flags)
{
    struct unix_sock *s = sock_of(f);
    if (s->pair->type == SOCK_STREAM_LINUX)
        return recv_stream(t, f, s, iov, n, flags, rights);
    return recv_dgram(t, f, s, iov, n, flags, rights, msg_flags);
}

/* unix_shutdown(): a stream-like pair's peer learns of it as the mirror
 * image. */
int unix_shutdown(struct file *f, int how)
{
    if (how < SHUT_RD_LINUX || how > SHUT_RDWR_LINUX)
        return -EINVAL_LINUX;
    struct unix_sock *s = sock_of(f);
    unsigned mode = (unsigned)how + 1; /* SHUT_RD -> RCV_SHUTDOWN, ... */
    s->shutdown |= mode;
    struct unix_sock *p = peer_of(s);
    if (s->pair->type != SOCK_DGRAM_LINUX && p->open) {
        unsigned peer_mode = 0;
        if (mode & RCV_SHUTDOWN)
            peer_mode |= SEND_SHUTDOWN;
        if (mode & SEND_SHUTDOWN)
            peer_mode |= RCV_SHUTDOWN;
        p->shutdown |= peer_mode;
    }
    waitq_wake(&s->pair->wait, -1);
    return 0;
}

static int64_t sock_read(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    struct unix_rights r = { 0 };
    unsigned mf = 0;
    int64_t ret = unix_recv(t, f, iov, n, 0, &r, &mf);
    unix_rights_clear(&r); /* read(2) has nowhere to put them: they are closed */
    return ret;
}

static int64_t sock_write(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    struct unix_rights r = { 0 };
    return unix_send(t, f, iov, n, &r, 0);
}

/* unix_poll() and unix_dgram_poll() */
static unsigned sock_poll(struct file *f)
{
    struct unix_sock *s = sock_of(f);
    unsigned mask = 0;
    if (s->err)
        mask |= POLLERR_LINUX;
    if (s->shutdown & RCV_SHUTDOWN)
        mask |= POLLRDHUP_LINUX | POLLIN_LINUX | POLLRDNORM_LINUX;
    if (s->shutdown == SHUTDOWN_MASK)
        mask |= POLLHUP_LINUX;
    if (!g_queue_is_empty(&s->rx))
        mask |= POLLIN_LINUX | POLLRDNORM_LINUX;
    /* Writable by buffer space alone, shut down or not. */
    if (writable(s))
        mask |= POLLOUT_LINUX | POLLWRNORM_LINUX | POLLWRBAND_LINUX;
    return mask;
}

static struct waitq *sock_waitq(struct file *f) { return &sock_of(f)->pair->wait; }

static void sock_stat(struct file *f, uint32_t *mode, uint64_t *ino)
{
    *mode = S_IFSOCK_LINUX | 0777;
    *ino = (uint64_t)(uintptr_t)sock_of(f) >> 4;
}

/* unix_release_sock() */
static void sock_release(struct file *f)
{
    struct unix_sock *s = sock_of(f);
    struct unix_pair *pair = s->pair;
    struct unix_sock *p = peer_of(s);
    bool unread = !g_queue_is_empty(&s->rx);
    s->open = false;
    s->shutdown = SHUTDOWN_MASK;
    drop_rx(s);
    if (p->open && pair->type != SOCK_DGRAM_LINUX) {
        p->shutdown = SHUTDOWN_MASK;
        if (unread)
            p->err = ECONNRESET_LINUX;
    }
    waitq_wake(&pair->wait, -1);
    if (p->open)
        return;
    drop_rx(p);
    g_free(pair);
}

static const struct file_ops unix_ops = {
    .name = "socket",
    .read = sock_read,
    .write = sock_write,
    .poll = sock_poll,
    .waitq = sock_waitq,
    .stat = sock_stat,
    .release = sock_release,
};

bool unix_is_socket(const struct file *f) { return f->ops == &unix_ops; }

int unix_type(const struct file *f) { return sock_of(f)->pair->type; }

/* unix_create() for each end, then unix_socketpair(). */
int unix_pair_new(int type, int protocol, unsigned file_flags, struct file *ends[2])
{
    if (protocol && protocol != AF_UNIX_LINUX)
        return -EPROTONOSUPPORT_LINUX;
    if (type == SOCK_RAW_LINUX)
        type = SOCK_DGRAM_LINUX;
    if (type != SOCK_STREAM_LINUX && type != SOCK_DGRAM_LINUX && type != SOCK_SEQPACKET_LINUX)
        return -ESOCKTNOSUPPORT_LINUX;
    struct unix_pair *p = g_new0(struct unix_pair, 1);
    p->type = type;
    waitq_init(&p->wait);
    for (int i = 0; i < 2; i++) {
        p->end[i] = (struct unix_sock){ .pair = p, .open = true };
        g_queue_init(&p->end[i].rx);
        ends[i] = file_new(&unix_ops, O_RDWR_LINUX | file_flags, &p->end[i]);
    }
    return 0;
}
