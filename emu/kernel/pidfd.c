#include "emu/kernel/pidfd.h"

#include "abi/linux.h"
#include "abi/task_linux.h"
#include "emu/kernel/task.h"

static unsigned pidfd_poll(struct file *f)
{
    const struct thread_group *g = f->priv;
    return g->zombie || g->reaped ? POLLIN_LINUX | POLLRDNORM_LINUX : 0;
}

static struct waitq *pidfd_waitq(struct file *f)
{
    return &((struct thread_group *)f->priv)->exited;
}

static int64_t pidfd_read(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    (void)t, (void)f, (void)iov, (void)n;
    return -EINVAL_LINUX;
}

static void pidfd_stat(struct file *f, uint32_t *mode, uint64_t *ino)
{
    (void)f;
    *mode = 0600; /* an anonymous inode: no file type bits */
    *ino = 1;
}

static void pidfd_release(struct file *f)
{
    thread_group_put(f->priv);
}

static const struct file_ops pidfd_ops = {
    .name = "pidfd",
    .read = pidfd_read,
    .write = pidfd_read,
    .poll = pidfd_poll,
    .waitq = pidfd_waitq,
    .stat = pidfd_stat,
    .release = pidfd_release,
};

int pidfd_install(struct task *t, struct thread_group *g)
{
    int fd = fdtable_alloc(t->fds);
    if (fd < 0)
        return fd;
    struct file *f = file_new(&pidfd_ops, O_RDWR_LINUX, thread_group_get(g));
    fdtable_install(t->fds, fd, (struct gfd){ .kind = GFD_FILE, .file = f, .cloexec = true });
    return fd;
}

struct thread_group *pidfd_group(struct task *t, int fd)
{
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g || g->kind != GFD_FILE || g->file->ops != &pidfd_ops)
        return NULL;
    return g->file->priv;
}
