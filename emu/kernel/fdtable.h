/* Guest descriptors.  Each names a host descriptor the user granted, a
 * file emulated inside seccomp-emu (/proc/self/status, /dev/null, the
 * seed's /proc/self/seccomp), or an object of the emulated kernel that
 * guest tasks share (a pipe end, an eventfd, an epoll instance: struct
 * file), or an open file of the guest's namespace (emu/kernel/vfs.h: what
 * --ro grants, opened read-only by a walk seccomp-emu makes). */
#ifndef EMU_FDTABLE_H
#define EMU_FDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FD_MAX_GUEST 1024 /* RLIMIT_NOFILE's usual soft limit */

struct task;
struct waitq;
struct kstat;
struct poll_wait;

enum gfd_kind {
    GFD_NONE,
    GFD_HOST,
    GFD_PROC_SECCOMP,
    GFD_VIRTUAL,          /* a read-only emulated file (/proc/self/status, /dev/zero) */
    GFD_FILE,             /* an emulated kernel object: struct file */
    GFD_GRANT,            /* an open file of the namespace: struct ofile */
};

struct ofile;

struct file;

/* Told when the file it watches goes (its last descriptor closed), before
 * the file's own release: epoll forgets its items this way, as Linux's
 * __fput calls eventpoll_release. */
struct file_watch {
    struct file_watch *next;
    void (*gone)(struct file_watch *w);
};

/* A guest buffer, or one segment of a readv/writev vector. */
struct guest_iovec {
    uint64_t base, len;
};

/* What an emulated kernel object does.  Results are Linux's: a count or
 * a negative errno_LINUX; a call that would block waits itself (through
 * emu/kernel/wait.h), unless the file is O_NONBLOCK.  read and write take
 * the guest's buffers as a vector (one segment for read(2)), already
 * clamped to MAX_RW_COUNT. */
struct file_ops {
    const char *name; /* for diagnostics and traces: "pipe", "eventfd", "epoll" */
    /* What /proc/<pid>/fd/<n> shows for an anonymous inode, where it is
     * not "anon_inode:[<name>]"; pipes and sockets show their inode. */
    const char *link;
    int64_t (*read)(struct task *t, struct file *f, const struct guest_iovec *iov, int n);
    int64_t (*write)(struct task *t, struct file *f, const struct guest_iovec *iov, int n);
    /* Readiness, for the poll family: the POLL*_LINUX events that hold
     * now, and the queue that is woken whenever they may have changed
     * (a waiter sits on it, then asks poll() again). */
    unsigned (*poll)(struct file *f);
    struct waitq *(*waitq)(struct file *f);
    /* The granted host descriptors its readiness follows (an epoll set
     * watching them): added to `pw` for a waiter (NULL: none). */
    void (*poll_host)(struct file *f, struct poll_wait *pw, unsigned events);
    /* fstat's st_mode and st_ino (a pipe is S_IFIFO, an eventfd an
     * anonymous inode). */
    void (*stat)(struct file *f, uint32_t *mode, uint64_t *ino);
    /* ioctl(2) commands of its own (NULL: -ENOTTY); `arg` is already
     * cut to the caller's ABI. */
    int64_t (*ioctl)(struct task *t, struct file *f, uint32_t cmd, uint64_t arg);
    /* The last descriptor for this open file is gone. */
    void (*release)(struct file *f);

    /* A file with contents and a position of its own (a memfd); NULL for
     * the streams (pipes, sockets), which cannot seek (ESPIPE) or be
     * truncated (EINVAL).  read and write above work at the position and
     * move it; these work at `pos` and leave it (pread, pwrite). */
    int64_t (*read_at)(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                       uint64_t pos);
    int64_t (*write_at)(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                        uint64_t pos);
    int64_t (*llseek)(struct file *f, int64_t off, int whence);
    int64_t (*truncate)(struct file *f, uint64_t length);
    /* What fstat shows beyond `stat` (size, blocks, links). */
    void (*stat_more)(struct file *f, struct kstat *k);
    /* F_ADD_SEALS (`add`) and F_GET_SEALS: NULL for a file without seals. */
    int64_t (*seals)(struct file *f, bool add, unsigned seals);
    /* What /proc/<pid>/fd/<n> shows, where the file has a name of its own
     * (into out, its length). */
    int (*link_name)(struct file *f, char *out, size_t size);
};

/* An open file description of the emulated kernel, shared by dup() and
 * fork(); freed with its last descriptor. */
struct file {
    unsigned refs;
    const struct file_ops *ops;
    unsigned flags; /* O_ACCMODE and O_NONBLOCK, as F_GETFL shows them */
    void *priv;
    struct file_watch *watches;
};

struct file *file_new(const struct file_ops *ops, unsigned flags, void *priv);
struct file *file_get(struct file *f);
void file_put(struct file *f);
void file_watch_add(struct file *f, struct file_watch *w);
void file_watch_remove(struct file *f, struct file_watch *w);

struct gfd {
    enum gfd_kind kind;
    int host;     /* GFD_HOST */
    uint64_t pos; /* GFD_PROC_SECCOMP, GFD_VIRTUAL */
    int vfile;    /* GFD_VIRTUAL: enum vfile_id (emu/kernel/vfile.h) */
    int32_t tid;  /* GFD_VIRTUAL, /proc/<tid>/status: whose */
    struct file *file; /* GFD_FILE */
    struct ofile *ofile; /* GFD_GRANT: one reference, shared by dups */
    bool cloexec;
};

/* A descriptor table (files_struct), shared by the tasks cloned with
 * CLONE_FILES. */
struct fdtable {
    unsigned refs;
    struct gfd fd[FD_MAX_GUEST];
    /* fdtable->max_fds: how far Linux's table has grown (it never
     * shrinks); select() looks no further. */
    int max_fds;
};

struct fdtable *fdtable_new(void);
struct fdtable *fdtable_ref(struct fdtable *ft);
/* The last reference closes every descriptor. */
void fdtable_unref(struct fdtable *ft);
/* fork() without CLONE_FILES: every descriptor names the same thing. */
struct fdtable *fdtable_copy(const struct fdtable *ft);
/* execve(): the descriptors marked close-on-exec go. */
void fdtable_close_on_exec(struct fdtable *ft);

/* Guest fds 0-2 are the emulator's own, where those are open. */
void fdtable_init_std(struct fdtable *ft);
/* The entry for guest descriptor `fd`, or NULL (EBADF). */
struct gfd *fdtable_get(struct fdtable *ft, int64_t fd);
/* Lowest free guest descriptor, or -EMFILE. */
int fdtable_alloc(struct fdtable *ft);
/* Lowest free guest descriptor at or above `min`, or -EMFILE. */
int fdtable_alloc_from(struct fdtable *ft, int min);
/* Put `g` at `fd` (free), taking over the caller's reference to what it
 * names. */
void fdtable_install(struct fdtable *ft, int fd, struct gfd g);
/* A second name for what `g` names (dup): the copy holds its own
 * reference. */
struct gfd gfd_dup(const struct gfd *g);
/* What a name held goes with it (a name no table holds: one in flight in
 * an SCM_RIGHTS message). */
void gfd_put(struct gfd was);
int fdtable_close(struct fdtable *ft, int64_t fd);
/* Is host descriptor `host` still a guest descriptor's? */
bool fdtable_names_host(const struct fdtable *ft, int host);

#endif
