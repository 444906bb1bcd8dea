#include "emu/kernel/seccomp_notify.h"

#include <string.h>
#include <unistd.h>

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
    struct waitq ready; /* the task waits here for the answer */
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
    if (!mm_write(t->mm, ubuf, &un, sizeof(un)))
        return -EFAULT_LINUX; /* the notification stays INIT, as the kernel resets it */
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

/* seccomp_handle_addfd(), made at once: the target is stopped in its
 * wait, and only the task holding the CPU changes kernel state, so
 * installing into its table here is what the target would do when woken.
 * receive_fd() / receive_fd_replace(). */
static int addfd_install(struct knotif *n, const struct gfd *src, bool setfd, int newfd,
                         bool cloexec)
{
    struct task *target = n->task;
    struct fdtable *ft = target->fds;
    int fd;
    if (setfd) {
        if (newfd < 0 || newfd >= (int64_t)target->group->rlim[RLIMIT_NOFILE_LINUX].cur ||
            newfd >= FD_MAX_GUEST)
            return -EBADF_LINUX;
        if (fdtable_get(ft, newfd))
            fdtable_close(ft, newfd);
        fd = newfd;
    } else {
        fd = fdtable_alloc(ft);
        if (fd < 0)
            return fd;
        if ((uint64_t)fd >= target->group->rlim[RLIMIT_NOFILE_LINUX].cur)
            return -EMFILE_LINUX;
    }
    struct gfd g = gfd_dup(src);
    g.cloexec = cloexec;
    fdtable_install(ft, fd, g);
    return fd;
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
    int fd = addfd_install(n, src, flags & SECCOMP_ADDFD_FLAG_SETFD_LINUX, (int)newfd,
                           newfd_flags & O_CLOEXEC_LINUX);
    if ((flags & SECCOMP_ADDFD_FLAG_SEND_LINUX) && fd >= 0) {
        n->state = NOTIFY_REPLIED;
        n->flags = 0;
        n->error = 0;
        n->val = fd;
        n->addfd_sent = true;
        waitq_wake(&n->ready, -1);
    }
    return fd;
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

static bool replied(struct task *t, void *arg)
{
    (void)t;
    return ((const struct knotif *)arg)->state == NOTIFY_REPLIED;
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
    int err;
    do {
        bool killable = sleep_killable(f, &n);
        struct wait_for w = { .queues = { &n.ready }, .nqueues = 1, .ready = replied, .arg = &n,
                              .deadline_ns = -1, .interruptible = !killable };
        err = wait_event(t, &w);
        /* Received while a signal was on its way: now only a fatal one
         * counts. */
        if (err == -ERESTARTSYS_LINUX && !killable && sleep_killable(f, &n))
            continue;
    } while (!err && n.state != NOTIFY_REPLIED);
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
