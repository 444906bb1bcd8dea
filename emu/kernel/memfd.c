#include "emu/kernel/memfd.h"

#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "abi/linux.h"
#include "emu/engine/mem.h"
#include "emu/kernel/task.h"
#include "emu/kernel/vfs.h"

/* shmem's page: contents live in pages of the guest's size, allocated on
 * the first write, so that a file grown by ftruncate costs nothing until
 * written (st_blocks counts the pages, SEEK_DATA/SEEK_HOLE find them). */
#define PAGE PAGE_SIZE_LINUX
/* MAX_LFS_FILESIZE */
#define MAX_SIZE ((uint64_t)INT64_MAX)

struct memfd {
    GTree *pages; /* uint64_t index -> uint8_t[PAGE] */
    uint64_t size;
    uint64_t pos; /* one open file description per memfd: /proc/<pid>/fd
                     cannot be reopened here */
    unsigned seals;
    uint32_t mode; /* 0777, or 0666 with MFD_NOEXEC_SEAL */
    uint64_t ino;
    char name[6 + MFD_NAME_MAX_LEN_LINUX + 1]; /* "memfd:" and the guest's name */
};

static gint index_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
    (void)unused;
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint8_t *page_at(struct memfd *m, uint64_t index)
{
    return g_tree_lookup(m->pages, &index);
}

static uint8_t *page_make(struct memfd *m, uint64_t index)
{
    uint8_t *p = page_at(m, index);
    if (!p) {
        uint64_t *key = g_new(uint64_t, 1);
        *key = index;
        p = g_malloc0(PAGE);
        g_tree_insert(m->pages, key, p);
    }
    return p;
}

/* The first page at or after `index`, or false. */
static bool page_next(struct memfd *m, uint64_t index, uint64_t *found)
{
    GTreeNode *n = g_tree_lower_bound(m->pages, &index);
    if (!n)
        return false;
    *found = *(const uint64_t *)g_tree_node_key(n);
    return true;
}

/* Walks a guest vector `len` bytes at a time. */
struct iov_walk {
    const struct guest_iovec *iov;
    int n, i;
    uint64_t off;
};

/* The next piece of at most `max` bytes: its guest address and length (0
 * at the end). */
static uint64_t walk_next(struct iov_walk *w, uint64_t max, uint64_t *addr)
{
    while (w->i < w->n && w->off == w->iov[w->i].len) {
        w->i++;
        w->off = 0;
    }
    if (w->i == w->n)
        return 0;
    uint64_t len = MIN(max, w->iov[w->i].len - w->off);
    *addr = w->iov[w->i].base + w->off;
    w->off += len;
    return len;
}

static uint64_t iov_total(const struct guest_iovec *iov, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].len;
    return total;
}

static int64_t memfd_read_at(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                             uint64_t pos)
{
    static const uint8_t zeros[PAGE];
    struct memfd *m = f->priv;
    struct iov_walk w = { iov, n, 0, 0 };
    uint64_t done = 0;
    while (pos < m->size) {
        uint64_t addr, in_page = PAGE - pos % PAGE;
        uint64_t len = walk_next(&w, MIN(in_page, m->size - pos), &addr);
        if (!len)
            break;
        const uint8_t *p = page_at(m, pos / PAGE);
        const uint8_t *src = p ? p + pos % PAGE : zeros;
        if (!mm_write(t->mm, addr, src, len)) {
            /* copy_to_user() copies up to the first byte it cannot write,
             * and shmem_file_read_iter() counts those bytes. */
            uint64_t ok = mm_user_prefix(t->mm, addr, len, PROT_WRITE_LINUX);
            if (ok && mm_write(t->mm, addr, src, ok))
                done += ok;
            return done ? (int64_t)done : -EFAULT_LINUX;
        }
        done += len;
        pos += len;
    }
    return (int64_t)done;
}

/* shmem_write_begin(): the seals are checked for each page's piece of the
 * write, so a write that reaches past a GROW seal stops there. */
static int64_t memfd_write_at(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                              uint64_t pos)
{
    struct memfd *m = f->priv;
    uint64_t count = iov_total(iov, n);
    if (!count)
        return 0;
    /* generic_write_checks(): up to the largest file size. */
    if (pos >= MAX_SIZE)
        return -EFBIG_LINUX;
    count = MIN(count, MAX_SIZE - pos);
    struct iov_walk w = { iov, n, 0, 0 };
    uint64_t done = 0;
    while (done < count) {
        uint64_t chunk = MIN(PAGE - pos % PAGE, count - done);
        int64_t err = 0;
        if (m->seals & (F_SEAL_WRITE_LINUX | F_SEAL_FUTURE_WRITE_LINUX))
            err = -EPERM_LINUX;
        else if ((m->seals & F_SEAL_GROW_LINUX) && pos + chunk > m->size)
            err = -EPERM_LINUX;
        if (err)
            return done ? (int64_t)done : err;
        uint8_t *p = page_make(m, pos / PAGE);
        uint64_t got = 0, addr, len;
        while (got < chunk && (len = walk_next(&w, chunk - got, &addr))) {
            if (!mm_read(t->mm, addr, p + pos % PAGE + got, len))
                break;
            got += len;
        }
        done += got;
        pos += got;
        if (pos > m->size)
            m->size = pos;
        if (got < chunk)
            return done ? (int64_t)done : -EFAULT_LINUX;
    }
    return (int64_t)done;
}

/* read(2) and write(2): at the position, which moves by what was done. */
static int64_t memfd_rw(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                        bool writing)
{
    struct memfd *m = f->priv;
    int64_t r = writing ? memfd_write_at(t, f, iov, n, m->pos) : memfd_read_at(t, f, iov, n, m->pos);
    if (r > 0)
        m->pos += (uint64_t)r;
    return r;
}

static int64_t memfd_read(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    return memfd_rw(t, f, iov, n, false);
}

static int64_t memfd_write(struct task *t, struct file *f, const struct guest_iovec *iov, int n)
{
    return memfd_rw(t, f, iov, n, true);
}

/* shmem_file_llseek(): SEEK_DATA and SEEK_HOLE by the pages written;
 * the rest as generic_file_llseek_size() with MAX_LFS_FILESIZE. */
static int64_t memfd_llseek(struct file *f, int64_t off, int whence)
{
    struct memfd *m = f->priv;
    int64_t to;
    switch (whence) {
    case SEEK_SET_LINUX:
        to = off;
        break;
    case SEEK_CUR_LINUX:
        if (off == 0)
            return (int64_t)m->pos;
        to = (int64_t)m->pos + off;
        break;
    case SEEK_END_LINUX:
        to = (int64_t)m->size + off;
        break;
    case SEEK_DATA_LINUX:
    case SEEK_HOLE_LINUX: {
        /* mapping_seek_hole_data() */
        if (off < 0 || (uint64_t)off >= m->size)
            return -ENXIO_LINUX;
        uint64_t at = (uint64_t)off, index;
        if (whence == SEEK_DATA_LINUX) {
            if (!page_next(m, at / PAGE, &index) || index * PAGE >= m->size)
                return -ENXIO_LINUX;
            to = (int64_t)MAX(at, index * PAGE);
        } else {
            uint64_t i = at / PAGE;
            while (page_at(m, i))
                i++;
            to = (int64_t)MIN(MAX(at, i * PAGE), m->size);
        }
        break;
    }
    default:
        return -EINVAL_LINUX;
    }
    if (to < 0)
        return -EINVAL_LINUX;
    m->pos = (uint64_t)to;
    return to;
}

/* shmem_setattr(): the size seals, then the pages past the end go and
 * the last one's tail is zeroed. */
static int64_t memfd_truncate(struct file *f, uint64_t length)
{
    struct memfd *m = f->priv;
    if ((length < m->size && (m->seals & F_SEAL_SHRINK_LINUX)) ||
        (length > m->size && (m->seals & F_SEAL_GROW_LINUX)))
        return -EPERM_LINUX;
    if (length < m->size) {
        uint64_t first = (length + PAGE - 1) / PAGE, index;
        while (page_next(m, first, &index))
            g_tree_remove(m->pages, &index);
        uint8_t *last = length % PAGE ? page_at(m, length / PAGE) : NULL;
        if (last)
            memset(last + length % PAGE, 0, PAGE - length % PAGE);
    }
    m->size = length;
    return 0;
}

static void memfd_stat(struct file *f, uint32_t *mode, uint64_t *ino)
{
    const struct memfd *m = f->priv;
    *mode = S_IFREG_LINUX | m->mode;
    *ino = m->ino;
}

static void memfd_stat_more(struct file *f, struct kstat *k)
{
    const struct memfd *m = f->priv;
    k->size = m->size;
    k->blocks = (uint64_t)g_tree_nnodes(m->pages) * (PAGE / 512);
    k->nlink = 0; /* an unlinked file of the internal shmem mount */
}

/* memfd_add_seals() and memfd_get_seals(). */
static int64_t memfd_seals(struct file *f, bool add, unsigned seals)
{
    struct memfd *m = f->priv;
    if (!add)
        return m->seals;
    if (seals & ~F_ALL_SEALS_LINUX)
        return -EINVAL_LINUX;
    if (m->seals & F_SEAL_SEAL_LINUX)
        return -EPERM_LINUX;
    /* SEAL_EXEC on an executable file implies the write seals: W^X. */
    if ((seals & F_SEAL_EXEC_LINUX) && (m->mode & 0111))
        seals |= F_SEAL_SHRINK_LINUX | F_SEAL_GROW_LINUX | F_SEAL_WRITE_LINUX |
                 F_SEAL_FUTURE_WRITE_LINUX;
    m->seals |= seals;
    return 0;
}

static int memfd_link_name(struct file *f, char *out, size_t size)
{
    const struct memfd *m = f->priv;
    int n = snprintf(out, size, "/%s (deleted)", m->name);
    return MIN(n, (int)size - 1);
}

static void memfd_release(struct file *f)
{
    struct memfd *m = f->priv;
    g_tree_destroy(m->pages);
    g_free(m);
}

static const struct file_ops memfd_ops = {
    .name = "memfd",
    .read = memfd_read,
    .write = memfd_write,
    .stat = memfd_stat,
    .release = memfd_release,
    .read_at = memfd_read_at,
    .write_at = memfd_write_at,
    .llseek = memfd_llseek,
    .truncate = memfd_truncate,
    .stat_more = memfd_stat_more,
    .seals = memfd_seals,
    .link_name = memfd_link_name,
};

int64_t memfd_file_create(struct task *t, uint64_t uname, unsigned flags)
{
    /* sanitize_flags(): a HUGETLB page size may sit in the high bits. */
    unsigned allowed = MFD_ALL_FLAGS_LINUX | (flags & MFD_HUGETLB_LINUX ? MFD_HUGE_MASK_LINUX : 0);
    if (flags & ~allowed)
        return -EINVAL_LINUX;
    if ((flags & MFD_EXEC_LINUX) && (flags & MFD_NOEXEC_SEAL_LINUX))
        return -EINVAL_LINUX;
    /* vm.memfd_noexec = 0, its default: neither flag means MFD_EXEC. */
    if (!(flags & (MFD_EXEC_LINUX | MFD_NOEXEC_SEAL_LINUX)))
        flags |= MFD_EXEC_LINUX;
    /* strncpy_from_user() of MFD_NAME_MAX_LEN + 1 bytes at most: no NUL
     * among them is a name too long. */
    char name[MFD_NAME_MAX_LEN_LINUX + 1];
    int r = mm_read_string(t->mm, uname, name, sizeof(name));
    if (r < 0)
        return r == -EFAULT_LINUX ? -EFAULT_LINUX : -EINVAL_LINUX;
    /* A kernel without hugetlbfs answers this (hugetlb_file_setup). */
    if (flags & MFD_HUGETLB_LINUX)
        return -ENOSYS_LINUX;
    int fd = fdtable_alloc(t->fds);
    if (fd < 0)
        return fd;
    static uint64_t next_ino = 1;
    struct memfd *m = g_new0(struct memfd, 1);
    m->pages = g_tree_new_full(index_cmp, NULL, g_free, g_free);
    m->mode = flags & MFD_NOEXEC_SEAL_LINUX ? 0666 : 0777;
    m->ino = next_ino++;
    /* Sealing is refused (F_SEAL_SEAL) unless asked for; NOEXEC_SEAL
     * allows it and seals exec. */
    m->seals = flags & MFD_NOEXEC_SEAL_LINUX     ? F_SEAL_EXEC_LINUX
               : flags & MFD_ALLOW_SEALING_LINUX ? 0
                                                 : F_SEAL_SEAL_LINUX;
    g_snprintf(m->name, sizeof(m->name), "memfd:%s", name);
    struct file *f = file_new(&memfd_ops, O_RDWR_LINUX | O_LARGEFILE_LINUX, m);
    fdtable_install(t->fds, fd,
                    (struct gfd){ .kind = GFD_FILE, .file = f,
                                  .cloexec = (flags & MFD_CLOEXEC_LINUX) != 0 });
    return fd;
}
