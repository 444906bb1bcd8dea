#include "emu/kernel/vfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif

#include <glib.h>

#include "abi/errno_names.h"
#include "abi/linux.h"
#include "emu/kernel/task.h"
#include "emu/kernel/vfile.h"
#include "emu/xlat.h"

/* ---- grants ---------------------------------------------------------- */

struct grant {
    char *guest; /* canonical: "/" or "/a/b", no trailing slash */
    int host;
    bool dir;
};

static GArray *grants; /* struct grant, in the order given */

static const struct grant *grant_at(int i)
{
    return &g_array_index(grants, struct grant, i);
}

static unsigned grant_count(void)
{
    return grants ? grants->len : 0;
}

bool vfs_has_grants(void)
{
    return grant_count() > 0;
}

int vfs_grant_dir_fd(unsigned i)
{
    for (unsigned k = 0, seen = 0; k < grant_count(); k++)
        if (grant_at((int)k)->dir && seen++ == i)
            return grant_at((int)k)->host;
    return -1;
}

/* The canonical form of an absolute guest path given on the command line:
 * no empty, "." or ".." components, no trailing slash. */
static char *canonical_option_path(const char *p, char **why)
{
    if (p[0] != '/') {
        *why = g_strdup("must be absolute");
        return NULL;
    }
    GString *s = g_string_new(NULL);
    g_auto(GStrv) parts = g_strsplit(p, "/", -1);
    for (char **c = parts; *c; c++) {
        if (!**c || !strcmp(*c, "."))
            continue;
        if (!strcmp(*c, "..")) {
            *why = g_strdup("has a \"..\" component");
            g_string_free(s, TRUE);
            return NULL;
        }
        if (strlen(*c) > NAME_MAX_LINUX) {
            *why = g_strdup("has a component longer than 255 bytes");
            g_string_free(s, TRUE);
            return NULL;
        }
        g_string_append_c(s, '/');
        g_string_append(s, *c);
    }
    if (!s->len)
        g_string_append_c(s, '/');
    if (s->len >= PATH_MAX_LINUX) {
        *why = g_strdup("is longer than PATH_MAX");
        g_string_free(s, TRUE);
        return NULL;
    }
    return g_string_free(s, FALSE);
}

/* Is `a` the path `b` or one of its ancestors ("/" is everybody's)? */
static bool path_covers(const char *a, const char *b)
{
    if (!strcmp(a, "/"))
        return true;
    size_t n = strlen(a);
    return !strncmp(a, b, n) && (b[n] == 0 || b[n] == '/');
}

err_t vfs_grant_add(const char *guest, int host_fd, bool is_dir)
{
    char *why = NULL;
    char *canon = canonical_option_path(guest, &why);
    if (!canon) {
        err_t e = err_new("the guest path %s %s", guest, why);
        g_free(why);
        return e;
    }
    if (!grants)
        grants = g_array_new(FALSE, FALSE, sizeof(struct grant));
    for (unsigned i = 0; i < grant_count(); i++) {
        const struct grant *g = grant_at((int)i);
        if (!strcmp(g->guest, canon)) {
            err_t e = err_new("%s is granted twice", canon);
            g_free(canon);
            return e;
        }
        /* Nothing can lie below a file. */
        if ((!g->dir && path_covers(g->guest, canon)) || (!is_dir && path_covers(canon, g->guest))) {
            err_t e = err_new("%s and %s: a grant cannot lie below a file", g->guest, canon);
            g_free(canon);
            return e;
        }
    }
    struct grant g = { canon, host_fd, is_dir };
    g_array_append_val(grants, g);
    return OK;
}

/* The innermost grant at or above `path`, or -1. */
static int grant_covering(const char *path)
{
    int best = -1;
    size_t best_len = 0;
    for (unsigned i = 0; i < grant_count(); i++) {
        const struct grant *g = grant_at((int)i);
        size_t n = strlen(g->guest);
        if (path_covers(g->guest, path) && (best < 0 || n > best_len)) {
            best = (int)i;
            best_len = n;
        }
    }
    return best;
}

/* The grant whose root is exactly `path`, or -1. */
static int grant_rooted_at(const char *path)
{
    for (unsigned i = 0; i < grant_count(); i++)
        if (!strcmp(grant_at((int)i)->guest, path))
            return (int)i;
    return -1;
}

/* ---- the drawn tree -------------------------------------------------- */

/* Which emulated file `place` of the drawn tree is (enum vfile_id), or -1. */
static int drawn_vfile(const char *place)
{
    char buf[64];
    enum vfile_id id;
    const char *path;
    for (size_t i = 0; i < vfile_place_count(); i++)
        if ((path = vfile_place(i, buf, sizeof(buf), &id)) && !strcmp(path, place))
            return (int)id;
    return -1;
}

/* The leaves of the drawn tree: grant roots and emulated files.  A place
 * of the tree is a directory when a leaf lies below it and no grant
 * covers it. */
static bool drawn_leaf(size_t i, char *buf, size_t len, const char **path)
{
    size_t nv = vfile_place_count();
    enum vfile_id id;
    if (i < nv) {
        *path = vfile_place(i, buf, len, &id);
        return true;
    }
    if (i - nv < grant_count()) {
        *path = grant_at((int)(i - nv))->guest;
        return true;
    }
    return false;
}

static bool is_drawn_dir(const char *path)
{
    if (grant_covering(path) >= 0)
        return false;
    if (!strcmp(path, "/"))
        return true;
    char buf[64];
    const char *leaf;
    for (size_t i = 0; drawn_leaf(i, buf, sizeof(buf), &leaf); i++)
        if (strcmp(leaf, path) && path_covers(path, leaf))
            return true;
    return false;
}

static char *path_join(const char *dir, const char *name)
{
    return strcmp(dir, "/") ? g_strconcat(dir, "/", name, NULL) : g_strconcat("/", name, NULL);
}

static char *path_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return g_strdup("/");
    return g_strndup(path, (gsize)(slash - path));
}

/* An inode number for a place of the drawn tree: stable, never 0. */
static uint64_t drawn_ino(const char *path)
{
    return (uint64_t)g_str_hash(path) | 0x100000000ull;
}

static void drawn_dir_kstat(const char *path, struct kstat *k)
{
    memset(k, 0, sizeof(*k));
    k->mode = S_IFDIR_LINUX | 0555;
    k->nlink = 2;
    k->ino = drawn_ino(path);
    k->blksize = 4096;
    k->dev_minor = 0x3e; /* an anonymous device, as tmpfs would have */
}

/* ---- host stat ------------------------------------------------------- */

void kstat_from_host(const struct stat *st, struct kstat *k)
{
    memset(k, 0, sizeof(*k));
    k->dev_major = major(st->st_dev);
    k->dev_minor = minor(st->st_dev);
    k->rdev_major = major(st->st_rdev);
    k->rdev_minor = minor(st->st_rdev);
    k->ino = st->st_ino;
    k->nlink = st->st_nlink;
    k->size = (uint64_t)st->st_size;
    k->blocks = (uint64_t)st->st_blocks;
    k->blksize = (uint64_t)st->st_blksize;
    k->mode = xlat_mode_to_linux(st->st_mode);
    k->uid = st->st_uid;
    k->gid = st->st_gid;
#if defined(__APPLE__)
    k->atime = st->st_atimespec.tv_sec, k->atime_ns = (uint32_t)st->st_atimespec.tv_nsec;
    k->mtime = st->st_mtimespec.tv_sec, k->mtime_ns = (uint32_t)st->st_mtimespec.tv_nsec;
    k->ctime = st->st_ctimespec.tv_sec, k->ctime_ns = (uint32_t)st->st_ctimespec.tv_nsec;
#else
    k->atime = st->st_atim.tv_sec, k->atime_ns = (uint32_t)st->st_atim.tv_nsec;
    k->mtime = st->st_mtim.tv_sec, k->mtime_ns = (uint32_t)st->st_mtim.tv_nsec;
    k->ctime = st->st_ctim.tv_sec, k->ctime_ns = (uint32_t)st->st_ctim.tv_nsec;
#endif
}

static int64_t host_errno(void)
{
    return -xlat_errno_to_linux(errno);
}

/* Every host open of the walk: one name, never a symlink followed, never
 * a terminal taken over, never blocking (a FIFO is refused after). */
#define WALK_OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* ---- the walk -------------------------------------------------------- */

/* Where a walk stands: a directory of the drawn tree (grant -1) or of a
 * grant, with the host descriptors it opened on its way down (the last
 * one is the current directory), so that ".." inside one walk pops one. */
struct walk {
    int grant;
    GString *path;   /* canonical guest path */
    GArray *fds;     /* int: host directories, fds[0] borrowed */
    GArray *owned;   /* gboolean per fds entry */
    int links;       /* symlinks followed so far */
    struct task *t;  /* whose walk: /proc/<pid> names a task it can see */
};

static void walk_drop_fds(struct walk *w)
{
    for (guint i = 0; i < w->fds->len; i++)
        if (g_array_index(w->owned, gboolean, i))
            close(g_array_index(w->fds, int, i));
    g_array_set_size(w->fds, 0);
    g_array_set_size(w->owned, 0);
}

static void walk_push(struct walk *w, int fd, gboolean owned)
{
    g_array_append_val(w->fds, fd);
    g_array_append_val(w->owned, owned);
}

static int walk_fd(const struct walk *w)
{
    return g_array_index(w->fds, int, w->fds->len - 1);
}

static void walk_init(struct walk *w)
{
    w->grant = -1;
    w->path = g_string_new("/");
    w->fds = g_array_new(FALSE, FALSE, sizeof(int));
    w->owned = g_array_new(FALSE, FALSE, sizeof(gboolean));
    w->links = 0;
}

static void walk_free(struct walk *w)
{
    walk_drop_fds(w);
    g_array_free(w->fds, TRUE);
    g_array_free(w->owned, TRUE);
    g_string_free(w->path, TRUE);
}

/* Stand at the canonical guest directory `path`, walking down from the
 * innermost grant covering it by name (the way ".." is taken: the parent
 * a guest path names, not whatever the host's ".." is now). */
static int64_t walk_place(struct walk *w, const char *path)
{
    walk_drop_fds(w);
    g_string_assign(w->path, path);
    int g = grant_covering(path);
    w->grant = g;
    if (g < 0)
        return is_drawn_dir(path) ? 0 : -ENOENT_LINUX;
    const struct grant *gr = grant_at(g);
    if (!gr->dir)
        return -ENOTDIR_LINUX;
    walk_push(w, gr->host, FALSE);
    const char *rest = path + (strcmp(gr->guest, "/") ? strlen(gr->guest) : 0);
    g_auto(GStrv) parts = g_strsplit(rest, "/", -1);
    for (char **c = parts; *c; c++) {
        if (!**c)
            continue;
        int fd = openat(walk_fd(w), *c, WALK_OPEN_FLAGS | O_DIRECTORY);
        if (fd < 0)
            return errno == ENOTDIR || errno == ELOOP || errno == EMLINK ? -ENOENT_LINUX
                                                                         : host_errno();
        walk_push(w, fd, TRUE);
    }
    return 0;
}

static int64_t walk_up(struct walk *w)
{
    if (!strcmp(w->path->str, "/"))
        return 0;
    g_autofree char *parent = path_parent(w->path->str);
    bool at_grant_root = w->grant >= 0 && !strcmp(grant_at(w->grant)->guest, w->path->str);
    if (w->grant >= 0 && !at_grant_root && w->fds->len > 1) {
        guint top = w->fds->len - 1;
        if (g_array_index(w->owned, gboolean, top))
            close(g_array_index(w->fds, int, top));
        g_array_set_size(w->fds, top);
        g_array_set_size(w->owned, top);
        g_string_assign(w->path, parent);
        return 0;
    }
    return walk_place(w, parent);
}

/* What the last component names. */
enum node_kind {
    NODE_DIR,        /* the walk's own position: a drawn or host directory */
    NODE_HOST,       /* `name` in the walk's directory (a grant's) */
    NODE_VFILE,      /* an emulated file */
    NODE_GRANT_FILE, /* a granted file */
};

struct node {
    enum node_kind kind;
    struct walk w;  /* its directory (NODE_HOST) or itself (NODE_DIR) */
    char name[NAME_MAX_LINUX + 1];
    struct stat st; /* NODE_HOST, NODE_GRANT_FILE: what fstatat saw */
    int vfile;
    int32_t vfile_tid; /* NODE_VFILE of /proc: the task it is about */
    int grant;      /* NODE_GRANT_FILE */
    char *path;     /* canonical guest path of the node */
};

static void node_free(struct node *n)
{
    walk_free(&n->w);
    g_free(n->path);
}

/* Resolution flags. */
#define LOOKUP_FOLLOW 1u    /* follow a symlink in the last component */
#define LOOKUP_EMPTY 2u     /* "" names the start (AT_EMPTY_PATH) */
#define LOOKUP_DIRECTORY 4u /* the last component must be a directory */

static int64_t walk_start(struct task *t, struct walk *w, int dirfd, const char *path)
{
    w->t = t;
    if (path[0] == '/')
        return walk_place(w, "/");
    struct ofile *base;
    if (dirfd == AT_FDCWD_LINUX) {
        base = t->cwd;
    } else {
        struct gfd *g = fdtable_get(t->fds, dirfd);
        if (!g)
            return -EBADF_LINUX;
        if (g->kind != GFD_GRANT || g->ofile->type == OFILE_REG)
            return -ENOTDIR_LINUX;
        base = g->ofile;
    }
    if (!base)
        return walk_place(w, "/");
    g_string_assign(w->path, base->path);
    w->grant = base->grant;
    if (base->type == OFILE_DIR)
        walk_push(w, base->host, FALSE);
    return 0;
}

/* The body of symlink `name` in the walk's directory, for the walk to
 * follow: 1, or a negative errno. */
static int64_t read_link(const struct walk *w, const char *name, char **target)
{
    char buf[PATH_MAX_LINUX];
    ssize_t n = readlinkat(walk_fd(w), name, buf, sizeof(buf) - 1);
    if (n < 0)
        return host_errno();
    buf[n] = 0;
    *target = g_strdup(buf);
    return 1;
}

/* Stand at directory grant `g`'s root, the guest path `path`. */
static void enter_grant(struct walk *w, int g, const char *path)
{
    walk_drop_fds(w);
    walk_push(w, grant_at(g)->host, FALSE);
    w->grant = g;
    g_string_assign(w->path, path);
}

/* One component that must be a directory, from a directory.  Returns 1
 * with the link's target in *target when it is a symlink to follow. */
static int64_t step_dir(struct walk *w, const char *name, char **target)
{
    g_autofree char *next = path_join(w->path->str, name);
    /* A grant's root shadows whatever its place holds (a mount point). */
    int g = grant_rooted_at(next);
    if (g >= 0) {
        if (!grant_at(g)->dir)
            return -ENOTDIR_LINUX;
        enter_grant(w, g, next);
        return 0;
    }
    if (w->grant < 0) {
        if (is_drawn_dir(next) || vfile_proc_dir(w->t, next)) {
            g_string_assign(w->path, next);
            return 0;
        }
        char buf[64];
        const char *leaf;
        for (size_t i = 0; drawn_leaf(i, buf, sizeof(buf), &leaf); i++)
            if (!strcmp(leaf, next))
                return -ENOTDIR_LINUX;
        return -ENOENT_LINUX;
    }
    int fd = openat(walk_fd(w), name, WALK_OPEN_FLAGS | O_DIRECTORY);
    if (fd >= 0) {
        walk_push(w, fd, TRUE);
        g_string_assign(w->path, next);
        return 0;
    }
    int err = errno;
    if (err != ENOTDIR && err != ELOOP && err != EMLINK) {
        errno = err;
        return host_errno();
    }
    /* Not a directory: a symlink to follow, or the answer is ENOTDIR. */
    struct stat st;
    if (fstatat(walk_fd(w), name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return host_errno();
    if (!S_ISLNK(st.st_mode))
        return -ENOTDIR_LINUX;
    return read_link(w, name, target);
}

/* The last component, not "." or "..": 1 and *target for a symlink to
 * follow, else 0 with the node filled. */
static int64_t step_last(struct walk *w, const char *name, bool follow, struct node *n,
                         char **target)
{
    g_autofree char *next = path_join(w->path->str, name);
    int g = grant_rooted_at(next);
    if (g >= 0) {
        const struct grant *gr = grant_at(g);
        if (gr->dir) {
            enter_grant(w, g, next);
            n->kind = NODE_DIR;
        } else {
            n->kind = NODE_GRANT_FILE;
            n->grant = g;
            if (fstat(gr->host, &n->st) < 0)
                return host_errno();
        }
        n->path = g_steal_pointer(&next);
        return 0;
    }
    /* The emulated files sit over whatever a grant has there, as
     * /dev and /proc are mounted over a container's root. */
    int32_t tid = 0;
    int vf = vfile_lookup(w->t, next, &tid);
    if (vf >= 0) {
        n->kind = NODE_VFILE;
        n->vfile = vf;
        n->vfile_tid = tid;
        n->path = g_steal_pointer(&next);
        return 0;
    }
    if (w->grant < 0) {
        if (is_drawn_dir(next) || vfile_proc_dir(w->t, next)) {
            g_string_assign(w->path, next);
            n->kind = NODE_DIR;
        } else {
            return -ENOENT_LINUX;
        }
        n->path = g_steal_pointer(&next);
        return 0;
    }
    if (fstatat(walk_fd(w), name, &n->st, AT_SYMLINK_NOFOLLOW) < 0)
        return host_errno();
    if (S_ISLNK(n->st.st_mode) && follow)
        return read_link(w, name, target);
    n->kind = NODE_HOST;
    g_strlcpy(n->name, name, sizeof(n->name));
    n->path = g_steal_pointer(&next);
    return 0;
}

/* path_lookupat(): the node `path` names from `dirfd`.  On success the
 * caller frees the node. */
static int64_t resolve(struct task *t, int dirfd, const char *path, unsigned how, struct node *n)
{
    memset(n, 0, sizeof(*n));
    walk_init(&n->w);
    g_autoptr(GString) rest = NULL;
    int64_t r;
    if (!*path && !(how & LOOKUP_EMPTY)) {
        r = -ENOENT_LINUX;
        goto fail;
    }
    if ((r = walk_start(t, &n->w, dirfd, path)) < 0)
        goto fail;
    /* The components still to walk: the path, with link bodies put in
     * front as they are met. */
    rest = g_string_new(path);
    for (;;) {
        size_t skip = 0;
        while (skip < rest->len && rest->str[skip] == '/')
            skip++;
        g_string_erase(rest, 0, (gssize)skip);
        if (!rest->len) {
            /* "/", "dir/", "" (AT_EMPTY_PATH): the place itself. */
            n->kind = NODE_DIR;
            n->path = g_strdup(n->w.path->str);
            break;
        }
        const char *slash = strchr(rest->str, '/');
        size_t len = slash ? (size_t)(slash - rest->str) : rest->len;
        if (len > NAME_MAX_LINUX) {
            r = -ENAMETOOLONG_LINUX;
            goto fail;
        }
        char name[NAME_MAX_LINUX + 1];
        memcpy(name, rest->str, len);
        name[len] = 0;
        g_string_erase(rest, 0, (gssize)len);
        bool last = true;
        for (size_t i = 0; i < rest->len; i++)
            if (rest->str[i] != '/')
                last = false;
        bool trailing = last && rest->len > 0;
        g_autofree char *target = NULL;
        if (!strcmp(name, ".") || !strcmp(name, "..")) {
            if (!strcmp(name, "..") && (r = walk_up(&n->w)) < 0)
                goto fail;
            if (last) {
                n->kind = NODE_DIR;
                n->path = g_strdup(n->w.path->str);
                break;
            }
            continue;
        }
        if (!last || trailing || (how & LOOKUP_DIRECTORY)) {
            r = step_dir(&n->w, name, &target);
            if (r < 0)
                goto fail;
            if (r == 0) {
                if (last) {
                    n->kind = NODE_DIR;
                    n->path = g_strdup(n->w.path->str);
                    break;
                }
                continue;
            }
        } else {
            r = step_last(&n->w, name, (how & LOOKUP_FOLLOW) != 0, n, &target);
            if (r < 0)
                goto fail;
            if (r == 0)
                break;
        }
        /* A symlink to follow: its body goes in front of what is left. */
        if (++n->w.links > MAXSYMLINKS_LINUX) {
            r = -ELOOP_LINUX;
            goto fail;
        }
        if (!*target) {
            r = -ENOENT_LINUX;
            goto fail;
        }
        if (target[0] == '/' && (r = walk_place(&n->w, "/")) < 0)
            goto fail;
        if (rest->len + strlen(target) + 1 > 16 * PATH_MAX_LINUX) {
            r = -ENAMETOOLONG_LINUX;
            goto fail;
        }
        if (rest->len)
            g_string_prepend(rest, "/");
        g_string_prepend(rest, target);
    }
    return 0;
fail:
    node_free(n);
    return r;
}

/* fstatat's answer for a node. */
static int64_t node_kstat(const struct node *n, struct kstat *k)
{
    switch (n->kind) {
    case NODE_DIR:
        if (n->w.grant < 0) {
            drawn_dir_kstat(n->path, k);
            return 0;
        }
        {
            struct stat st;
            if (fstat(walk_fd(&n->w), &st) < 0)
                return host_errno();
            kstat_from_host(&st, k);
        }
        return 0;
    case NODE_HOST:
    case NODE_GRANT_FILE:
        kstat_from_host(&n->st, k);
        return 0;
    case NODE_VFILE: {
        memset(k, 0, sizeof(*k));
        struct gfd g = { .kind = GFD_VIRTUAL, .vfile = n->vfile, .tid = n->vfile_tid };
        vfile_stat(&g, &k->mode, &k->rdev_major, &k->rdev_minor);
        k->nlink = 1;
        k->blksize = 4096;
        return 0;
    }
    }
    return -ENOENT_LINUX;
}

/* ---- permission ------------------------------------------------------ */

/* generic_permission() for the caller's ids and `mask` (R_OK, W_OK,
 * X_OK): the host's mode bits and owners, as a native run by the same
 * user would meet them (ACLs are not consulted).  `real`: access(2)'s
 * real ids instead of the effective ones. */
static GArray *groups; /* gid_t: the supplementary groups, read before the sandbox */

static void read_groups(void)
{
    if (groups)
        return;
    groups = g_array_new(FALSE, FALSE, sizeof(gid_t));
    int n = getgroups(0, NULL);
    if (n > 0) {
        g_array_set_size(groups, (guint)n);
        n = getgroups(n, (gid_t *)(void *)groups->data);
        g_array_set_size(groups, n > 0 ? (guint)n : 0);
    }
}

static bool dac_allows(const struct kstat *k, int mask, bool real)
{
    uid_t uid = real ? getuid() : geteuid();
    gid_t gid = real ? getgid() : getegid();
    bool dir = (k->mode & S_IFMT_LINUX) == S_IFDIR_LINUX;
    if (uid == 0) {
        /* CAP_DAC_OVERRIDE: everything but executing a file that no one
         * may execute. */
        return !(mask & X_OK_LINUX) || dir || (k->mode & 0111);
    }
    unsigned bits;
    if (k->uid == uid) {
        bits = (k->mode >> 6) & 7;
    } else {
        bool member = k->gid == gid;
        for (guint i = 0; !member && groups && i < groups->len; i++)
            member = g_array_index(groups, gid_t, i) == k->gid;
        bits = member ? (k->mode >> 3) & 7 : k->mode & 7;
    }
    return ((unsigned)mask & ~bits) == 0;
}

/* ---- open file descriptions ------------------------------------------ */

struct ofile *ofile_get(struct ofile *f)
{
    f->refs++;
    return f;
}

void ofile_put(struct ofile *f)
{
    if (!f || --f->refs > 0)
        return;
    if (f->type == OFILE_DIR)
        closedir(f->dir); /* closes `host` */
    else if (f->type == OFILE_REG && !f->borrowed)
        close(f->host);
    g_free(f->path);
    g_free(f);
}

static struct ofile *ofile_new(enum ofile_type type, int grant, const char *path, int flags)
{
    struct ofile *f = g_new0(struct ofile, 1);
    f->refs = 1;
    f->type = type;
    f->host = -1;
    f->grant = grant;
    f->path = g_strdup(path);
    f->flags = flags;
    return f;
}

int64_t ofile_stat(struct ofile *f, struct kstat *k)
{
    if (f->type == OFILE_SYNTH_DIR) {
        drawn_dir_kstat(f->path, k);
        return 0;
    }
    struct stat st;
    if (fstat(f->host, &st) < 0)
        return host_errno();
    kstat_from_host(&st, k);
    return 0;
}

/* SEEK_DATA and SEEK_HOLE on a host without them: what Linux's
 * generic_file_llseek answers for a file system that keeps no holes (the
 * whole file is data, its end the only hole); whatever cannot seek still
 * says so first. */
static int64_t seek_data_hole(int host, int64_t off, int whence)
{
    struct stat st;
    if (lseek(host, 0, SEEK_CUR) < 0 || fstat(host, &st) != 0)
        return host_errno();
    if (off < 0 || off >= (int64_t)st.st_size)
        return -ENXIO_LINUX;
    off_t to = whence == SEEK_DATA_LINUX ? (off_t)off : st.st_size;
    if (lseek(host, to, SEEK_SET) < 0)
        return host_errno();
    return (int64_t)to;
}

int64_t host_lseek(int host, int64_t off, int whence)
{
    if (whence < SEEK_SET_LINUX || whence > SEEK_MAX_LINUX)
        return -EINVAL_LINUX;
    int host_whence = xlat_whence_to_host(whence);
    if (host_whence < 0)
        return seek_data_hole(host, off, whence);
    off_t r = lseek(host, (off_t)off, host_whence);
    if (r < 0)
        return host_errno();
    return (int64_t)r;
}

int64_t ofile_lseek(struct ofile *f, int64_t off, int whence)
{
    if (f->type == OFILE_REG) {
        int64_t base;
        if (whence == SEEK_SET_LINUX) {
            base = 0;
        } else if (whence == SEEK_CUR_LINUX) {
            base = (int64_t)f->pos;
        } else if (whence == SEEK_END_LINUX) {
            struct stat st;
            if (fstat(f->host, &st) < 0)
                return host_errno();
            base = (int64_t)st.st_size;
        } else {
            /* SEEK_DATA, SEEK_HOLE: the host knows the holes.  Its own
             * offset is never used (reads are positioned). */
            int64_t r = host_lseek(f->host, off, whence);
            if (r >= 0)
                f->pos = (uint64_t)r;
            return r;
        }
        if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
            return -EINVAL_LINUX;
        f->pos = (uint64_t)(base + off);
        return (int64_t)f->pos;
    }
    /* Directories: positions are the cookies getdents hands out (d_off);
     * SEEK_SET to one of them, or 0, and SEEK_CUR by 0 (telldir). */
    if (whence == SEEK_CUR_LINUX && off == 0)
        return f->type == OFILE_DIR ? (int64_t)telldir(f->dir) : (int64_t)f->pos;
    if (whence != SEEK_SET_LINUX || off < 0)
        return -EINVAL_LINUX;
    if (f->type == OFILE_DIR) {
        if (off == 0)
            rewinddir(f->dir);
        else
            seekdir(f->dir, (long)off);
    } else {
        f->pos = (uint64_t)off;
    }
    return off;
}

/* One directory entry in the caller's layout: bytes written, 0 if it does
 * not fit, -EOVERFLOW if the old layout cannot hold it. */
static int64_t put_dirent(uint8_t *out, size_t room, bool dirent64, bool compat, uint64_t ino,
                          int64_t off, unsigned type, const char *name)
{
    size_t nlen = strlen(name);
    if (dirent64) {
        /* struct linux_dirent64: ino, off, reclen, type, name, NUL; 8-aligned. */
        size_t reclen = (19 + nlen + 1 + 7) & ~(size_t)7;
        if (reclen > room)
            return 0;
        memset(out, 0, reclen);
        memcpy(out, &ino, 8);
        memcpy(out + 8, &off, 8);
        uint16_t rl = (uint16_t)reclen;
        memcpy(out + 16, &rl, 2);
        out[18] = (uint8_t)type;
        memcpy(out + 19, name, nlen);
        return (int64_t)reclen;
    }
    /* struct linux_dirent: ino, off (longs), reclen, name, NUL, type. */
    size_t word = compat ? 4 : 8;
    size_t reclen = (2 * word + 2 + nlen + 2 + word - 1) & ~(word - 1);
    if (compat && ino > UINT32_MAX)
        return -EOVERFLOW_LINUX;
    if (reclen > room)
        return 0;
    memset(out, 0, reclen);
    if (compat) {
        uint32_t i32 = (uint32_t)ino, o32 = (uint32_t)off;
        memcpy(out, &i32, 4);
        memcpy(out + 4, &o32, 4);
    } else {
        memcpy(out, &ino, 8);
        memcpy(out + 8, &off, 8);
    }
    uint16_t rl = (uint16_t)reclen;
    memcpy(out + 2 * word, &rl, 2);
    memcpy(out + 2 * word + 2, name, nlen);
    out[reclen - 1] = (uint8_t)type;
    return (int64_t)reclen;
}

/* The names of a drawn directory, in a fixed order: ".", "..", then its
 * children as the leaves below it give them, without repeats. */
static GPtrArray *drawn_children(const char *dir)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    char buf[64];
    const char *leaf;
    size_t base = strcmp(dir, "/") ? strlen(dir) : 0;
    for (size_t i = 0; drawn_leaf(i, buf, sizeof(buf), &leaf); i++) {
        if (!strcmp(leaf, dir) || !path_covers(dir, leaf))
            continue;
        const char *start = leaf + base + 1;
        const char *end = strchr(start, '/');
        g_autofree char *name = end ? g_strndup(start, (gsize)(end - start)) : g_strdup(start);
        bool seen = false;
        for (guint k = 0; k < names->len && !seen; k++)
            seen = !strcmp(names->pdata[k], name);
        if (!seen)
            g_ptr_array_add(names, g_steal_pointer(&name));
    }
    return names;
}

int64_t ofile_getdents(struct task *t, struct ofile *f, uint64_t buf, uint64_t count,
                       bool dirent64)
{
    if (f->type == OFILE_REG)
        return -ENOTDIR_LINUX;
    bool compat = in_compat_syscall(t);
    if (count > 1u << 20)
        count = 1u << 20; /* a bounded bounce buffer; the guest calls again */
    g_autofree uint8_t *out = g_malloc(count ? count : 1);
    size_t used = 0;
    /* The answer when nothing was written: 0 at the end, -EINVAL when the
     * first entry does not fit, or the error met. */
    int64_t r = 0;
    uint64_t start_pos = f->pos;
    long start_cookie = f->type == OFILE_DIR ? telldir(f->dir) : 0;
    if (f->type == OFILE_SYNTH_DIR) {
        g_autoptr(GPtrArray) kids = vfile_proc_task_entries(t, f->path);
        if (!kids)
            kids = drawn_children(f->path);
        while (f->pos < 2 + (uint64_t)kids->len) {
            uint64_t i = f->pos;
            const char *name = i == 0 ? "." : i == 1 ? ".." : kids->pdata[i - 2];
            g_autofree char *place = i == 0 ? g_strdup(f->path)
                                   : i == 1 ? path_parent(f->path) : path_join(f->path, name);
            uint64_t ino = drawn_ino(place);
            unsigned type = DT_DIR_LINUX;
            int g = i >= 2 ? grant_rooted_at(place) : -1;
            int vf = i >= 2 ? drawn_vfile(place) : -1;
            struct stat st;
            if (g >= 0 && fstat(grant_at(g)->host, &st) == 0) {
                ino = st.st_ino;
                type = xlat_dtype_of_mode(xlat_mode_to_linux(st.st_mode));
            } else if (vf >= 0) {
                type = vf == VFILE_NULL || vf == VFILE_ZERO || vf == VFILE_URANDOM ? DT_CHR_LINUX
                                                                                : DT_REG_LINUX;
            }
            int64_t n = put_dirent(out + used, count - used, dirent64, compat, ino,
                                   (int64_t)i + 1, type, name);
            if (n <= 0) {
                r = n < 0 ? n : -EINVAL_LINUX;
                break;
            }
            used += (size_t)n;
            f->pos = i + 1;
        }
    } else {
        for (;;) {
            long before = telldir(f->dir);
            errno = 0;
            struct dirent *d = readdir(f->dir);
            if (!d) {
                r = errno ? host_errno() : 0;
                break;
            }
            unsigned type = DT_UNKNOWN_LINUX;
            switch (d->d_type) {
            case DT_REG: type = DT_REG_LINUX; break;
            case DT_DIR: type = DT_DIR_LINUX; break;
            case DT_LNK: type = DT_LNK_LINUX; break;
            case DT_CHR: type = DT_CHR_LINUX; break;
            case DT_BLK: type = DT_BLK_LINUX; break;
            case DT_FIFO: type = DT_FIFO_LINUX; break;
            case DT_SOCK: type = DT_SOCK_LINUX; break;
            default: break;
            }
            int64_t n = put_dirent(out + used, count - used, dirent64, compat,
                                   (uint64_t)d->d_ino, (int64_t)telldir(f->dir), type, d->d_name);
            if (n <= 0) {
                seekdir(f->dir, before); /* handed out next time */
                r = n < 0 ? n : -EINVAL_LINUX;
                break;
            }
            used += (size_t)n;
        }
    }
    if (!used)
        return r;
    if (!mm_write(t->mm, buf, out, used)) {
        /* Nothing was delivered: the position stays. */
        if (f->type == OFILE_DIR)
            seekdir(f->dir, start_cookie);
        else
            f->pos = start_pos;
        return -EFAULT_LINUX;
    }
    return (int64_t)used;
}

/* ---- the calls ------------------------------------------------------- */

/* Install `f` as the lowest free guest descriptor. */
static int64_t install(struct task *t, struct ofile *f, bool cloexec)
{
    int fd = fdtable_alloc(t->fds);
    if (fd < 0) {
        ofile_put(f);
        return fd;
    }
    t->fds->fd[fd] = (struct gfd){ .kind = GFD_GRANT, .ofile = f, .cloexec = cloexec };
    return fd;
}

/* What F_GETFL shows of an open: do_dentry_open() drops the creation
 * flags; a 64-bit caller always has O_LARGEFILE (force_o_largefile). */
static int shown_flags(const struct task *t, int flags)
{
    flags &= ~(O_CREAT_LINUX | O_EXCL_LINUX | O_NOCTTY_LINUX | O_TRUNC_LINUX | O_CLOEXEC_LINUX);
    /* Before the first call (--cwd), the task's own width. */
    bool compat = t->call_abi ? in_compat_syscall(t) : t->personality->bits == 32;
    if (!compat)
        flags |= O_LARGEFILE_LINUX;
    return flags;
}

/* An open directory over host descriptor `fd` (taken), or the error. */
static int64_t dir_ofile(struct task *t, int fd, int grant, const char *path, int flags,
                         struct ofile **out)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        int64_t r = host_errno();
        close(fd);
        return r;
    }
    struct ofile *f = ofile_new(OFILE_DIR, grant, path, shown_flags(t, flags));
    f->host = fd;
    f->dir = d;
    *out = f;
    return 0;
}

/* The directory a NODE_DIR stands for (its walk's position), opened. */
static int64_t open_dir_node(struct task *t, struct node *n, int flags, struct ofile **out)
{
    if (n->w.grant < 0) {
        *out = ofile_new(OFILE_SYNTH_DIR, -1, n->path, shown_flags(t, flags));
        return 0;
    }
    int fd = openat(walk_fd(&n->w), ".", WALK_OPEN_FLAGS | O_DIRECTORY);
    if (fd < 0)
        return host_errno();
    return dir_ofile(t, fd, n->w.grant, n->path, flags, out);
}

/* The object a NODE_HOST names, opened read-only; directories come back
 * through open_dir_node.  The inode opened must be the one fstatat saw:
 * a rename between the two starts the last step over. */
static int64_t open_host_node(struct task *t, struct node *n, int flags)
{
    if (S_ISDIR(n->st.st_mode)) {
        int fd = openat(walk_fd(&n->w), n->name, WALK_OPEN_FLAGS | O_DIRECTORY);
        if (fd < 0)
            return errno == ELOOP || errno == EMLINK || errno == ENOTDIR ? -EAGAIN_LINUX
                                                                         : host_errno();
        struct ofile *f = NULL;
        int64_t r = dir_ofile(t, fd, n->w.grant, n->path, flags, &f);
        return r < 0 ? r : install(t, f, flags & O_CLOEXEC_LINUX);
    }
    if (S_ISCHR(n->st.st_mode) || S_ISBLK(n->st.st_mode) || S_ISFIFO(n->st.st_mode))
        return -EACCES_LINUX; /* a nodev grant; FIFOs are not served */
    if (S_ISSOCK(n->st.st_mode))
        return -ENXIO_LINUX;
    int fd = openat(walk_fd(&n->w), n->name, WALK_OPEN_FLAGS);
    if (fd < 0)
        return errno == ELOOP || errno == EMLINK ? -EAGAIN_LINUX : host_errno();
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_dev != n->st.st_dev || st.st_ino != n->st.st_ino ||
        !S_ISREG(st.st_mode)) {
        close(fd);
        return -EAGAIN_LINUX;
    }
    struct ofile *f = ofile_new(OFILE_REG, n->w.grant, n->path, shown_flags(t, flags));
    f->host = fd;
    return install(t, f, flags & O_CLOEXEC_LINUX);
}

int64_t vfs_open(struct task *t, int dirfd, const char *path, int flags)
{
    int acc = flags & O_ACCMODE_LINUX;
    bool tmpfile = (flags & O_TMPFILE_LINUX) == O_TMPFILE_LINUX;
    bool creat = (flags & O_CREAT_LINUX) && !tmpfile;
    bool writing = acc == O_WRONLY_LINUX || acc == O_RDWR_LINUX;
    if (tmpfile && !writing)
        return -EINVAL_LINUX;
    unsigned how = 0;
    if (!(flags & O_NOFOLLOW_LINUX) && !(creat && (flags & O_EXCL_LINUX)))
        how |= LOOKUP_FOLLOW;
    if ((flags & O_DIRECTORY_LINUX) || tmpfile)
        how |= LOOKUP_DIRECTORY;
    /* A rename on the host between a look and an open starts it over; a
     * path that keeps changing under the walk answers as a missing one. */
    for (int attempt = 0; attempt < 16; attempt++) {
        struct node n;
        int64_t r = resolve(t, dirfd, path, how, &n);
        if (r == -ENOENT_LINUX && creat && *path && path[strlen(path) - 1] != '/') {
            /* O_CREAT of a name whose directory exists: a read-only
             * namespace cannot make it. */
            const char *slash = strrchr(path, '/');
            g_autofree char *parent = !slash ? g_strdup(".")
                                    : slash == path ? g_strdup("/")
                                                    : g_strndup(path, (gsize)(slash - path));
            struct node p;
            if (resolve(t, dirfd, parent, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p) == 0) {
                node_free(&p);
                return -EROFS_LINUX;
            }
            return r;
        }
        if (r < 0)
            return r;
        bool dir = n.kind == NODE_DIR || (n.kind == NODE_HOST && S_ISDIR(n.st.st_mode));
        if (n.kind == NODE_HOST && S_ISLNK(n.st.st_mode)) {
            node_free(&n);
            return -ELOOP_LINUX; /* O_NOFOLLOW, or O_CREAT|O_EXCL, on a symlink */
        }
        if (creat && (flags & O_EXCL_LINUX)) {
            node_free(&n);
            return -EEXIST_LINUX;
        }
        if (creat && dir) {
            node_free(&n);
            return -EISDIR_LINUX;
        }
        if ((how & LOOKUP_DIRECTORY) && !dir) {
            node_free(&n);
            return -ENOTDIR_LINUX;
        }
        if (n.kind == NODE_VFILE) {
            node_free(&n);
            return vfile_open(t, n.vfile, n.vfile_tid, flags);
        }
        if (tmpfile || (writing && dir)) {
            node_free(&n);
            return tmpfile ? -EROFS_LINUX : -EISDIR_LINUX;
        }
        if (writing || (flags & O_TRUNC_LINUX)) {
            /* may_open(): permission first, then the read-only mount. */
            struct kstat k;
            r = node_kstat(&n, &k);
            node_free(&n);
            if (r < 0)
                return r;
            if ((k.mode & S_IFMT_LINUX) == S_IFREG_LINUX || (k.mode & S_IFMT_LINUX) == S_IFDIR_LINUX) {
                int mask = (writing ? W_OK_LINUX : 0) | (acc != O_WRONLY_LINUX ? R_OK_LINUX : 0);
                if (!dac_allows(&k, mask ? mask : W_OK_LINUX, false))
                    return -EACCES_LINUX;
                return -EROFS_LINUX;
            }
            return -EACCES_LINUX;
        }
        switch (n.kind) {
        case NODE_DIR: {
            struct ofile *f = NULL;
            r = open_dir_node(t, &n, flags, &f);
            if (r == 0)
                r = install(t, f, flags & O_CLOEXEC_LINUX);
            break;
        }
        case NODE_GRANT_FILE: {
            struct ofile *f = ofile_new(OFILE_REG, n.grant, n.path, shown_flags(t, flags));
            f->host = grant_at(n.grant)->host;
            f->borrowed = true;
            r = install(t, f, flags & O_CLOEXEC_LINUX);
            break;
        }
        default:
            r = open_host_node(t, &n, flags);
            break;
        }
        node_free(&n);
        if (r != -EAGAIN_LINUX)
            return r;
    }
    return -ENOENT_LINUX;
}

/* Resolve for the stat family and friends: AT_EMPTY_PATH with "" names
 * the descriptor itself (handled by the caller), AT_SYMLINK_NOFOLLOW the
 * link. */
int64_t vfs_stat(struct task *t, int dirfd, const char *path, int atflags, struct kstat *k)
{
    unsigned how = (atflags & AT_SYMLINK_NOFOLLOW_LINUX) ? 0 : LOOKUP_FOLLOW;
    struct node n;
    int64_t r = resolve(t, dirfd, path, how, &n);
    if (r < 0)
        return r;
    r = node_kstat(&n, k);
    node_free(&n);
    return r;
}

int64_t vfs_readlink(struct task *t, int dirfd, const char *path, char *buf, size_t size)
{
    struct node n;
    int64_t r = resolve(t, dirfd, path, 0, &n);
    if (r < 0)
        return r;
    if (n.kind != NODE_HOST || !S_ISLNK(n.st.st_mode)) {
        node_free(&n);
        return -EINVAL_LINUX;
    }
    ssize_t len = readlinkat(walk_fd(&n.w), n.name, buf, size);
    r = len < 0 ? host_errno() : (int64_t)len;
    node_free(&n);
    return r;
}

int64_t vfs_access(struct task *t, int dirfd, const char *path, int mode, int atflags)
{
    if (mode & ~(R_OK_LINUX | W_OK_LINUX | X_OK_LINUX))
        return -EINVAL_LINUX;
    struct kstat k;
    bool drawn = false, vfile = false;
    int64_t r;
    if (!*path && (atflags & AT_EMPTY_PATH_LINUX)) {
        /* The descriptor itself (the working directory for AT_FDCWD). */
        struct ofile *f = t->cwd;
        if (dirfd != AT_FDCWD_LINUX) {
            struct gfd *g = fdtable_get(t->fds, dirfd);
            if (!g)
                return -EBADF_LINUX;
            if (g->kind != GFD_GRANT)
                return 0; /* a granted endpoint or emulated file: the caller's own */
            f = g->ofile;
        }
        if ((r = ofile_stat(f, &k)) < 0)
            return r;
        drawn = f->type == OFILE_SYNTH_DIR;
    } else {
        unsigned how = (atflags & AT_SYMLINK_NOFOLLOW_LINUX) ? 0 : LOOKUP_FOLLOW;
        struct node n;
        if ((r = resolve(t, dirfd, path, how, &n)) < 0)
            return r;
        r = node_kstat(&n, &k);
        drawn = n.kind == NODE_DIR && n.w.grant < 0;
        vfile = n.kind == NODE_VFILE;
        node_free(&n);
        if (r < 0)
            return r;
    }
    if (mode == 0)
        return 0; /* F_OK */
    if (!dac_allows(&k, mode, !(atflags & AT_EACCESS_LINUX)))
        return -EACCES_LINUX;
    /* SuS: a writable file on a read-only file system is EROFS.  The
     * emulated devices are writable; the drawn tree is not. */
    uint32_t type = k.mode & S_IFMT_LINUX;
    if ((mode & W_OK_LINUX) && !vfile &&
        (drawn || type == S_IFREG_LINUX || type == S_IFDIR_LINUX || type == S_IFLNK_LINUX))
        return -EROFS_LINUX;
    return 0;
}

static int64_t set_cwd(struct task *t, struct ofile *dir)
{
    ofile_put(t->cwd);
    t->cwd = dir;
    return 0;
}

/* The working directory as an open directory: look up, then search
 * permission (MAY_EXEC) on it. */
static int64_t open_cwd(struct task *t, int dirfd, const char *path, struct ofile **out)
{
    struct node n;
    int64_t r = resolve(t, dirfd, path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &n);
    if (r < 0)
        return r;
    struct kstat k;
    if ((r = node_kstat(&n, &k)) < 0 || !dac_allows(&k, X_OK_LINUX, false)) {
        node_free(&n);
        return r < 0 ? r : -EACCES_LINUX;
    }
    r = open_dir_node(t, &n, O_RDONLY_LINUX | O_DIRECTORY_LINUX, out);
    node_free(&n);
    return r;
}

int64_t vfs_chdir(struct task *t, const char *path)
{
    struct ofile *dir = NULL;
    int64_t r = open_cwd(t, AT_FDCWD_LINUX, path, &dir);
    return r < 0 ? r : set_cwd(t, dir);
}

int64_t vfs_fchdir(struct task *t, int fd)
{
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g)
        return -EBADF_LINUX;
    if (g->kind != GFD_GRANT || g->ofile->type == OFILE_REG)
        return -ENOTDIR_LINUX;
    struct kstat k;
    int64_t r = ofile_stat(g->ofile, &k);
    if (r < 0)
        return r;
    if (!dac_allows(&k, X_OK_LINUX, false))
        return -EACCES_LINUX;
    return set_cwd(t, ofile_get(g->ofile));
}

const char *vfs_cwd_path(struct task *t)
{
    return t->cwd ? t->cwd->path : "/";
}

err_t vfs_task_init(struct task *t, const char *path)
{
    read_groups();
    struct ofile *dir = NULL;
    int64_t r = open_cwd(t, AT_FDCWD_LINUX, path ? path : "/", &dir);
    if (r < 0) {
        const struct errno_name *en = errno_name_linux(-r);
        return err_new("--cwd %s: %s", path ? path : "/", en ? en->message : "cannot be entered");
    }
    set_cwd(t, dir);
    return OK;
}
