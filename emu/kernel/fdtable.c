#include "emu/kernel/fdtable.h"

#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "abi/linux.h"
#include "emu/kernel/vfs.h"

/* Every live table: a granted host descriptor is closed when the guest's
 * last name for it goes, in whichever table that was. */
static GPtrArray *all_tables;

struct file *file_new(const struct file_ops *ops, unsigned flags, void *priv)
{
    struct file *f = g_new0(struct file, 1);
    f->refs = 1;
    f->ops = ops;
    f->flags = flags;
    f->priv = priv;
    return f;
}

struct file *file_get(struct file *f)
{
    f->refs++;
    return f;
}

void file_put(struct file *f)
{
    if (!f || --f->refs > 0)
        return;
    while (f->watches) {
        struct file_watch *w = f->watches;
        f->watches = w->next;
        w->next = NULL;
        w->gone(w);
    }
    if (f->ops->release)
        f->ops->release(f);
    g_free(f);
}

struct fdtable *fdtable_new(void)
{
    struct fdtable *ft = g_new0(struct fdtable, 1);
    ft->refs = 1;
    ft->max_fds = 64;
    if (!all_tables)
        all_tables = g_ptr_array_new();
    g_ptr_array_add(all_tables, ft);
    return ft;
}

struct fdtable *fdtable_ref(struct fdtable *ft)
{
    ft->refs++;
    return ft;
}

struct gfd gfd_dup(const struct gfd *g)
{
    struct gfd copy = *g;
    if (copy.kind == GFD_FILE)
        file_get(copy.file);
    if (copy.kind == GFD_GRANT)
        ofile_get(copy.ofile);
    return copy;
}

static bool host_named_anywhere(int host)
{
    for (guint k = 0; k < all_tables->len; k++) {
        const struct fdtable *ft = all_tables->pdata[k];
        for (int i = 0; i < FD_MAX_GUEST; i++)
            if (ft->fd[i].kind == GFD_HOST && ft->fd[i].host == host)
                return true;
    }
    return false;
}

void gfd_put(struct gfd was)
{
    if (was.kind == GFD_FILE) {
        file_put(was.file);
        return;
    }
    if (was.kind == GFD_GRANT) {
        ofile_put(was.ofile);
        return;
    }
    /* The guest's last name for a granted endpoint closes it, so a peer
     * sees end-of-file when it would natively.  seccomp-emu's own 0-2 stay
     * open: its diagnostics go there. */
    if (was.kind != GFD_HOST || was.host <= 2 || host_named_anywhere(was.host))
        return;
    close(was.host);
}

void fdtable_unref(struct fdtable *ft)
{
    if (!ft || --ft->refs > 0)
        return;
    g_ptr_array_remove_fast(all_tables, ft);
    for (int i = 0; i < FD_MAX_GUEST; i++) {
        struct gfd was = ft->fd[i];
        ft->fd[i] = (struct gfd){ .kind = GFD_NONE };
        gfd_put(was);
    }
    g_free(ft);
}

struct fdtable *fdtable_copy(const struct fdtable *src)
{
    struct fdtable *ft = fdtable_new();
    ft->max_fds = src->max_fds; /* dup_fd() copies the parent's size */
    for (int i = 0; i < FD_MAX_GUEST; i++)
        if (src->fd[i].kind != GFD_NONE)
            ft->fd[i] = gfd_dup(&src->fd[i]);
    return ft;
}

void fdtable_close_on_exec(struct fdtable *ft)
{
    for (int i = 0; i < FD_MAX_GUEST; i++)
        if (ft->fd[i].kind != GFD_NONE && ft->fd[i].cloexec)
            fdtable_close(ft, i);
}

void file_watch_add(struct file *f, struct file_watch *w)
{
    w->next = f->watches;
    f->watches = w;
}

void file_watch_remove(struct file *f, struct file_watch *w)
{
    for (struct file_watch **p = &f->watches; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            w->next = NULL;
            return;
        }
}

/* expand_files(): the table starts with BITS_PER_LONG slots and grows to
 * the smallest power of two that holds the descriptor (alloc_fdtable). */
static void note_used(struct fdtable *ft, int fd)
{
    if (ft->max_fds < 64)
        ft->max_fds = 64;
    while (fd >= ft->max_fds)
        ft->max_fds *= 2;
}

void fdtable_init_std(struct fdtable *ft)
{
    memset(ft->fd, 0, sizeof(ft->fd));
    ft->max_fds = 64;
    for (int i = 0; i < 3; i++) {
        /* A descriptor the emulator was started without is closed for the
         * guest too, as it would be for a native child. */
        if (fcntl(i, F_GETFD) != -1)
            ft->fd[i] = (struct gfd){ .kind = GFD_HOST, .host = i };
    }
}

struct gfd *fdtable_get(struct fdtable *ft, int64_t fd)
{
    if (fd < 0 || fd >= FD_MAX_GUEST || ft->fd[fd].kind == GFD_NONE)
        return NULL;
    return &ft->fd[fd];
}

int fdtable_alloc(struct fdtable *ft)
{
    return fdtable_alloc_from(ft, 0);
}

int fdtable_alloc_from(struct fdtable *ft, int min)
{
    for (int i = min < 0 ? 0 : min; i < FD_MAX_GUEST; i++)
        if (ft->fd[i].kind == GFD_NONE) {
            note_used(ft, i);
            return i;
        }
    return -EMFILE_LINUX;
}

void fdtable_install(struct fdtable *ft, int fd, struct gfd g)
{
    note_used(ft, fd);
    ft->fd[fd] = g;
}

bool fdtable_names_host(const struct fdtable *ft, int host)
{
    for (int i = 0; i < FD_MAX_GUEST; i++)
        if (ft->fd[i].kind == GFD_HOST && ft->fd[i].host == host)
            return true;
    return false;
}

int fdtable_close(struct fdtable *ft, int64_t fd)
{
    struct gfd *g = fdtable_get(ft, fd);
    if (!g)
        return -EBADF_LINUX;
    struct gfd was = *g;
    *g = (struct gfd){ .kind = GFD_NONE };
    gfd_put(was);
    return 0;
}
