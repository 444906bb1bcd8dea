#include "emu/kernel/seccomp_notify.h"

#include <string.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h> /* getentropy */
#endif

#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "abi/signal_linux.h"
#include "emu/kernel/fdtable.h"
#include "emu/kernel/task.h"
#include "emu/kernel/wait.h"
#include "emu/xlat.h"

enum notify_state { NOTIFY_INIT, NOTIFY_SENT, NOTIFY_REPLIED };

/* struct seccomp_knotif: one waiting call, on its task's host stack for
 * as long as the task waits. */
struct knotif {
    struct task *task;
    uint64_t id;
    const struct seccomp_data_linux *data;
    enum notify_state state;
    int32_t error;
    int64_t val;
    uint32_t flags;
    bool addfd_sent; /* completed by ADDFD with FLAG_SEND */
    bool detached;   /* answered by the listener's release */
    int32_t receiver;
    GQueue addfd;    /* struct kaddfd *: descriptors for the task to install */
    struct waitq ready; /* the task waits here for the answer */
};

/* struct seccomp_kaddfd: one ADDFD, on the supervisor's host stack while
 * it waits for the target to install the descriptor in its own table. */
struct kaddfd {
    struct gfd file;  /* the supervisor's srcfd (a reference) */
    uint32_t ioctl_flags;
    bool cloexec, setfd;
    int fd;           /* SETFD's number */
    int ret;          /* the target's answer */
    bool done;
    struct waitq completion;
};

/* struct notification: a listener's side of a filter. */
struct seccomp_notification {
    /* The kernel's semaphore: one up for each notification queued, one
     * down for each RECV that finds it up.  A notification withdrawn
     * before anyone received it leaves it up, so the next RECV does not
     * block and finds nothing: ENOENT (TASKS.md 5.11). */
    uint64_t requests;
    uint32_t flags;    /* SECCOMP_IOCTL_NOTIF_SET_FLAGS */
    uint64_t next_id;  /* random at first, then one up per notification */
    GQueue notifications; /* struct knotif *, oldest first */
};

static struct seccomp_filter *filter_of(const struct file *f) { return f->priv; }

static struct knotif *find_notification(struct seccomp_filter *f, uint64_t id)
{
    for (GList *l = f->notif->notifications.head; l; l = l->next) {
        struct knotif *n = l->data;
        if (n->id == id)
            return n;
    }
    return NULL;
}

/* ---- the listener ---- */

/* seccomp_notify_poll() */
static unsigned notify_poll(struct file *file)
{
    struct seccomp_filter *f = filter_of(file);
    unsigned ret = 0;
    for (GList *l = f->notif->notifications.head; l; l = l->next) {
        const struct knotif *n = l->data;
        if (n->state == NOTIFY_INIT)
            ret |= POLLIN_LINUX | POLLRDNORM_LINUX;
        if (n->state == NOTIFY_SENT)
            ret |= POLLOUT_LINUX | POLLWRNORM_LINUX;
    }
    if (f->users == 0)
        ret |= POLLHUP_LINUX;
    return ret;
}

static struct waitq *notify_waitq(struct file *file) { return &filter_of(file)->wqh; }

static void notify_stat(struct file *file, uint32_t *mode, uint64_t *ino)
{
    (void)file;
    *mode = 0600; /* an anonymous inode: no file type bits */
    *ino = 1;
}

/* seccomp_notify_release() -> seccomp_notify_detach(): every call still
 * waiting is answered -ENOSYS, and the filter has no listener any more
 * (later calls get -ENOSYS at once; a new NEW_LISTENER may follow). */
static void notify_release(struct file *file)
{
    struct seccomp_filter *f = filter_of(file);
    struct seccomp_notification *nf = f->notif;
    for (GList *l = nf->notifications.head; l; l = l->next) {
        struct knotif *n = l->data;
        if (n->state == NOTIFY_REPLIED)
            continue;
        n->state = NOTIFY_REPLIED;
        n->error = -ENOSYS_LINUX;
        n->val = 0;
        n->detached = true;
        waitq_wake(&n->ready, -1);
    }
    g_queue_clear(&nf->notifications);
    g_free(nf);
    f->notif = NULL;
    waitq_wake(&f->wqh, -1);
    seccomp_filter_put(f);
}

/* Has the RECV semaphore a count to take (or does nobody use the filter
 * any more, so that there is nothing to wait for)? recv_wait_event(). */
static bool recv_ready(struct task *t, void *arg)
{
    (void)t;
    const struct seccomp_filter *f = arg;
    return !f->notif || f->notif->requests > 0 || f->users == 0;
}

/* seccomp_notify_recv() */
static int64_t notify_recv(struct task *t, struct seccomp_filter *f, uint64_t ubuf)
{
    /* check_zeroed_user(): the whole struct, so it can grow. */
    struct seccomp_notif_linux un;
    if (!mm_read(t->mm, ubuf, &un, sizeof(un)))
        return -EFAULT_LINUX;
    static const struct seccomp_notif_linux zero;
    if (memcmp(&un, &zero, sizeof(un)))
        return -EINVAL_LINUX;
    if (f->users > 0) {
        struct wait_for w = { .queues = { &f->wqh }, .nqueues = 1, .ready = recv_ready,
                              .arg = f, .deadline_ns = -1, .interruptible = true };
        int r = wait_event(t, &w);
        if (r < 0)
            return r == -EINTR_LINUX ? -ERESTARTSYS_LINUX : r;
        if (f->notif->requests > 0)
            f->notif->requests--;
    }
    struct knotif *n = NULL;
    for (GList *l = f->notif->notifications.head; l; l = l->next) {
        struct knotif *c = l->data;
        if (c->state == NOTIFY_INIT) {
            n = c;
            break;
        }
    }
    if (!n)
        return -ENOENT_LINUX;
    memset(&un, 0, sizeof(un));
    un.id = GUINT64_TO_LE(n->id);
    un.pid = GUINT32_TO_LE((uint32_t)n->task->tid);
    un.data = *n->data; /* already in the guest's byte order */
    if (!mm_write(t->mm, ubuf, &un, sizeof(un))) {
        /* The notification stays INIT, counted again for the next RECV. */
        f->notif->requests++;
        waitq_wake(&f->wqh, -1);
        return -EFAULT_LINUX;
    }
    n->state = NOTIFY_SENT;
    n->receiver = t->tid;
    waitq_wake(&f->wqh, -1);
    return 0;
}

/* seccomp_notify_send() */
static int64_t notify_send(struct task *t, struct seccomp_filter *f, uint64_t ubuf)
{
    struct seccomp_notif_resp_linux resp;
    if (!mm_read(t->mm, ubuf, &resp, sizeof(resp)))
        return -EFAULT_LINUX;
    uint32_t flags = GUINT32_FROM_LE(resp.flags);
    int32_t error = (int32_t)GUINT32_FROM_LE((uint32_t)resp.error);
    int64_t val = (int64_t)GUINT64_FROM_LE((uint64_t)resp.val);
    if (flags & ~SECCOMP_USER_NOTIF_FLAG_CONTINUE_LINUX)
        return -EINVAL_LINUX;
    if ((flags & SECCOMP_USER_NOTIF_FLAG_CONTINUE_LINUX) && (error || val))
        return -EINVAL_LINUX;
    struct knotif *n = find_notification(f, GUINT64_FROM_LE(resp.id));
    if (!n)
        return -ENOENT_LINUX;
    /* Exactly one reply. */
    if (n->state != NOTIFY_SENT)
        return -EINPROGRESS_LINUX;
    n->state = NOTIFY_REPLIED;
    n->error = error;
    n->val = val;
    n->flags = flags;
    waitq_wake(&n->ready, -1);
    return 0;
}

/* seccomp_notify_id_valid() */
static int64_t notify_id_valid(struct task *t, struct seccomp_filter *f, uint64_t ubuf)
{
    uint64_t id;
    if (!mm_read(t->mm, ubuf, &id, sizeof(id)))
        return -EFAULT_LINUX;
    struct knotif *n = find_notification(f, GUINT64_FROM_LE(id));
    return n && n->state == NOTIFY_SENT ? 0 : -ENOENT_LINUX;
}

static bool addfd_done(struct task *t, void *arg)
{
    (void)t;
    return ((const struct kaddfd *)arg)->done;
}

/* seccomp_notify_addfd() */
static int64_t notify_addfd(struct task *t, struct seccomp_filter *f, uint64_t ubuf,
                            unsigned size)
{
    if (size < SECCOMP_NOTIFY_ADDFD_SIZE_VER0_LINUX || size >= 4096)
        return -EINVAL_LINUX;
    /* copy_struct_from_user(): a larger struct's tail must be zero. */
    struct seccomp_notif_addfd_linux a;
    if (!mm_read(t->mm, ubuf, &a, sizeof(a)))
        return -EFAULT_LINUX;
    for (unsigned i = sizeof(a); i < size; i++) {
        uint8_t b;
        if (!mm_read(t->mm, ubuf + i, &b, 1))
            return -EFAULT_LINUX;
        if (b)
            return -E2BIG_LINUX;
    }
    uint32_t flags = GUINT32_FROM_LE(a.flags), newfd_flags = GUINT32_FROM_LE(a.newfd_flags);
    uint32_t newfd = GUINT32_FROM_LE(a.newfd);
    if (newfd_flags & ~(uint32_t)O_CLOEXEC_LINUX)
        return -EINVAL_LINUX;
    if (flags & ~(SECCOMP_ADDFD_FLAG_SETFD_LINUX | SECCOMP_ADDFD_FLAG_SEND_LINUX))
        return -EINVAL_LINUX;
    if (newfd && !(flags & SECCOMP_ADDFD_FLAG_SETFD_LINUX))
        return -EINVAL_LINUX;
    struct gfd *src = fdtable_get(t->fds, (int32_t)GUINT32_FROM_LE(a.srcfd));
    if (!src)
        return -EBADF_LINUX;
    struct knotif *n = find_notification(f, GUINT64_FROM_LE(a.id));
    if (!n)
        return -ENOENT_LINUX;
    /* Not before the notification is received, nor after its reply. */
    if (n->state != NOTIFY_SENT)
        return -EINPROGRESS_LINUX;
    if (flags & SECCOMP_ADDFD_FLAG_SEND_LINUX) {
        /* One atomic install-and-reply, alone in the queue. */
        if (!g_queue_is_empty(&n->addfd))
            return -EBUSY_LINUX;
        n->state = NOTIFY_REPLIED;
    }
    struct kaddfd k = { .file = gfd_dup(src), .ioctl_flags = flags,
                        .cloexec = newfd_flags & O_CLOEXEC_LINUX,
                        .setfd = flags & SECCOMP_ADDFD_FLAG_SETFD_LINUX, .fd = (int)newfd };
    waitq_init(&k.completion);
    g_queue_push_head(&n->addfd, &k);
    waitq_wake(&n->ready, -1);
    /* The target installs it and answers; a signal ends the wait, and an
     * ADDFD not yet handled is taken back. */
    int r = wait_event(t, &(struct wait_for){ .queues = { &k.completion }, .nqueues = 1,
                                             .ready = addfd_done, .arg = &k, .deadline_ns = -1,
                                             .interruptible = true });
    int64_t ret;
    if (r == 0 || k.done)
        ret = k.ret;
    else {
        g_queue_remove(&n->addfd, &k);
        ret = -ERESTARTSYS_LINUX;
    }
    gfd_put(k.file);
    return ret;
}

/* seccomp_notify_ioctl(): the same numbers on both ABIs (compat_ptr_ioctl). */
static int64_t notify_ioctl(struct task *t, struct file *file, uint32_t cmd, uint64_t arg)
{
    struct seccomp_filter *f = filter_of(file);
    switch (cmd) {
    case SECCOMP_IOCTL_NOTIF_RECV_LINUX:
        return notify_recv(t, f, arg);
    case SECCOMP_IOCTL_NOTIF_SEND_LINUX:
        return notify_send(t, f, arg);
    case SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR_LINUX:
    case SECCOMP_IOCTL_NOTIF_ID_VALID_LINUX:
        return notify_id_valid(t, f, arg);
    case SECCOMP_IOCTL_NOTIF_SET_FLAGS_LINUX:
        if (arg & ~(uint64_t)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP_LINUX)
            return -EINVAL_LINUX;
        f->notif->flags = (uint32_t)arg; /* one CPU at a time: a wake-up is always "sync" */
        return 0;
    }
    if (SECCOMP_IOCTL_EA_LINUX(cmd) == SECCOMP_IOCTL_EA_LINUX(SECCOMP_IOCTL_NOTIF_ADDFD_LINUX))
        return notify_addfd(t, f, arg, SECCOMP_IOCTL_SIZE_LINUX(cmd));
    return -EINVAL_LINUX;
}

static const struct file_ops listener_ops = {
    .name = "seccomp notify",
    .link = "anon_inode:seccomp notify", /* anon_inode_getfile("seccomp notify") */
    .poll = notify_poll,
    .waitq = notify_waitq,
    .stat = notify_stat,
    .ioctl = notify_ioctl,
    .release = notify_release,
};

bool seccomp_is_listener(const struct file *f) { return f->ops == &listener_ops; }

/* init_listener() */
void seccomp_notify_listen(struct task *t, struct seccomp_filter *f, int fd)
{
    struct seccomp_notification *nf = g_new0(struct seccomp_notification, 1);
    if (getentropy(&nf->next_id, sizeof(nf->next_id)) != 0)
        g_error("getentropy: %s", host_strerror(errno));
    g_queue_init(&nf->notifications);
    f->notif = nf;
    struct file *file = file_new(&listener_ops, O_RDWR_LINUX, seccomp_filter_get(f));
    fdtable_install(t->fds, fd, (struct gfd){ .kind = GFD_FILE, .file = file, .cloexec = true });
}

/* ---- the caller's side ---- */

/* The answer, or a descriptor to install first. */
static bool replied(struct task *t, void *arg)
{
    (void)t;
    struct knotif *n = arg;
    return n->state == NOTIFY_REPLIED || !g_queue_is_empty(&n->addfd);
}

static void addfd_complete(struct kaddfd *k, int ret)
{
    k->ret = ret;
    k->done = true;
    waitq_wake(&k->completion, -1);
}

/* seccomp_handle_addfd(): receive_fd() or receive_fd_replace() into the
 * caller's own table; with FLAG_SEND the new number is the answer. */
static void handle_addfd(struct task *t, struct knotif *n, struct kaddfd *k)
{
    struct fdtable *ft = t->fds;
    uint64_t limit = MIN(t->group->rlim[RLIMIT_NOFILE_LINUX].cur, (uint64_t)FD_MAX_GUEST);
    int fd;
    if (k->setfd) {
        fd = k->fd;
        if (fd < 0 || (uint64_t)fd >= limit)
            fd = -EBADF_LINUX;
        else if (fdtable_get(ft, fd))
            fdtable_close(ft, fd);
    } else {
        fd = fdtable_alloc(ft);
        if (fd >= 0 && (uint64_t)fd >= limit)
            fd = -EMFILE_LINUX;
    }
    if (fd >= 0) {
        struct gfd g = gfd_dup(&k->file);
        g.cloexec = k->cloexec;
        fdtable_install(ft, fd, g);
    }
    if (k->ioctl_flags & SECCOMP_ADDFD_FLAG_SEND_LINUX) {
        if (fd < 0)
            n->state = NOTIFY_SENT; /* the supervisor may answer again */
        else {
            n->flags = 0;
            n->error = 0;
            n->val = fd;
            n->addfd_sent = true;
        }
    }
    addfd_complete(k, fd);
}

/* should_sleep_killable(): with WAIT_KILLABLE_RECV, once received, only a
 * fatal signal ends the wait. */
static bool sleep_killable(const struct seccomp_filter *f, const struct knotif *n)
{
    return f->wait_killable_recv && n->state != NOTIFY_INIT;
}

bool seccomp_notify_wait(struct task *t, struct seccomp_filter *f,
                         const struct seccomp_data_linux *sd, int64_t *result,
                         struct notify_report *rep)
{
    *rep = (struct notify_report){ .end = NOTIFY_NO_LISTENER };
    struct seccomp_notification *nf = f->notif;
    if (!nf) {
        *result = -ENOSYS_LINUX;
        return false;
    }
    struct knotif n = { .task = t, .id = nf->next_id++, .data = sd, .state = NOTIFY_INIT };
    waitq_init(&n.ready);
    g_queue_push_tail(&nf->notifications, &n);
    nf->requests++;
    waitq_wake(&f->wqh, -1);
    rep->id = n.id;
    g_queue_init(&n.addfd);
    int err;
    for (;;) {
        bool killable = sleep_killable(f, &n);
        struct wait_for w = { .queues = { &n.ready }, .nqueues = 1, .ready = replied, .arg = &n,
                              .deadline_ns = -1, .interruptible = !killable };
        err = wait_event(t, &w);
        if (err) {
            /* Received while a signal was on its way: now only a fatal
             * one counts. */
            if (err == -ERESTARTSYS_LINUX && !killable && sleep_killable(f, &n))
                continue;
            break;
        }
        /* The newest ADDFD first (list_add, list_first_entry). */
        struct kaddfd *k = g_queue_pop_head(&n.addfd);
        if (k)
            handle_addfd(t, &n, k);
        if (n.state == NOTIFY_REPLIED)
            break;
    }
    /* ADDFDs nobody will handle now. */
    struct kaddfd *k;
    while ((k = g_queue_pop_head(&n.addfd)))
        addfd_complete(k, -ESRCH_LINUX);
    rep->receiver = n.receiver;
    /* The listener may have gone meanwhile, and its list with it. */
    if (f->notif)
        g_queue_remove(&f->notif->notifications, &n);
    if (err) {
        rep->end = err == -ERESTARTSYS_LINUX ? NOTIFY_INTERRUPTED : NOTIFY_KILLED;
        *result = -ERESTARTSYS_LINUX;
        return false;
    }
    rep->error = n.error;
    rep->val = n.val;
    if (n.flags & SECCOMP_USER_NOTIF_FLAG_CONTINUE_LINUX) {
        rep->end = NOTIFY_CONTINUED;
        return true;
    }
    rep->end = n.addfd_sent ? NOTIFY_ADDFD_SENT : n.detached ? NOTIFY_DETACHED : NOTIFY_ANSWERED;
    /* syscall_set_return_value(): error ? error : val. */
    *result = n.error ? (int64_t)n.error : n.val;
    return false;
}
