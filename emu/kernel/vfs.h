/* The guest's file namespace: read-only grants of host files and
 * directories (--ro HOSTPATH[:GUESTPATH]), the emulated files of vfile.c,
 * and the directories that lead to them, which seccomp-emu draws itself.
 *
 * Every host object a guest reaches is reached by a walk seccomp-emu makes
 * one component at a time, downward from a grant's root descriptor (opened
 * before the self-sandbox), each step an openat(2) or fstatat(2) of a
 * single name with O_NOFOLLOW.  Symlinks are read and followed here, in the
 * guest's namespace (an absolute target starts at the guest's root, not
 * the host's); ".." is taken by name, from the guest path, never on the
 * host.  So no "..", symlink, /proc entry or host rename leads outside a
 * grant, on any host: this is the boundary; the Linux self-sandbox's
 * Landlock rules only repeat it (docs/threat-model.md).  A path outside
 * every grant answers as Linux answers a missing one.  The namespace is
 * read-only, like a read-only bind mount: writes answer EROFS. */
#ifndef EMU_KERNEL_VFS_H
#define EMU_KERNEL_VFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "emu/status.h"

struct task;

/* A host stat as Linux keeps it, whatever the host's struct stat is. */
struct kstat {
    uint64_t dev_major, dev_minor, rdev_major, rdev_minor;
    uint64_t ino, nlink, size, blocks, blksize;
    uint32_t mode, uid, gid; /* mode in Linux's bits */
    int64_t atime, mtime, ctime;
    uint32_t atime_ns, mtime_ns, ctime_ns;
};

void kstat_from_host(const struct stat *st, struct kstat *k);

/* Grants, added before the guest runs (emu/host/grants.c opens them).
 * `guest` is an absolute path; `host_fd` a read-only descriptor of a
 * directory or regular file, kept for the whole run.  The error says why
 * a grant cannot stand (a second grant at the same place, ...). */
err_t vfs_grant_add(const char *guest, int host_fd, bool is_dir);
bool vfs_has_grants(void);
/* Descriptor of grant i's root directory, -1 past the last directory
 * grant: what the self-sandbox's Landlock rules name. */
int vfs_grant_dir_fd(unsigned i);

/* An open file description (Linux's struct file) of something in the
 * namespace: a regular file, a granted directory or a directory of the
 * drawn tree.  Shared by dup and by the working directory. */
enum ofile_type { OFILE_REG, OFILE_DIR, OFILE_SYNTH_DIR };
struct ofile {
    int refs;
    enum ofile_type type;
    int host;      /* OFILE_REG: the file; OFILE_DIR: the directory */
    bool borrowed; /* `host` is a file grant's own descriptor: never closed */
    void *dir;     /* OFILE_DIR: the host's DIR stream on `host` */
    uint64_t pos;  /* OFILE_REG: the offset; OFILE_SYNTH_DIR: next entry */
    int flags;     /* what F_GETFL shows, in Linux's bits */
    int grant;     /* index, or -1 for the drawn tree */
    char *path;    /* canonical guest path (getcwd, "..") */
};

struct ofile *ofile_get(struct ofile *f);
void ofile_put(struct ofile *f);
int64_t ofile_stat(struct ofile *f, struct kstat *k);
int64_t ofile_lseek(struct ofile *f, int64_t off, int whence);
/* lseek(2) on a host descriptor with Linux's whence (SEEK_DATA and SEEK_HOLE
 * included, answered as Linux would where the host lacks them). */
int64_t host_lseek(int host, int64_t off, int whence);
/* getdents64 (`dirent64`) or the old getdents in the caller's ABI. */
int64_t ofile_getdents(struct task *t, struct ofile *f, uint64_t buf, uint64_t count,
                       bool dirent64);

/* The calls, for sys/: a guest descriptor or 0, or a negative errno. */
int64_t vfs_open(struct task *t, int dirfd, const char *path, int flags);
/* stat, lstat, fstatat: AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH in `atflags`. */
int64_t vfs_stat(struct task *t, int dirfd, const char *path, int atflags, struct kstat *k);
int64_t vfs_readlink(struct task *t, int dirfd, const char *path, char *buf, size_t size);
/* faccessat2: R_OK/W_OK/X_OK in `mode`, AT_EACCESS, AT_SYMLINK_NOFOLLOW. */
int64_t vfs_access(struct task *t, int dirfd, const char *path, int mode, int atflags);
int64_t vfs_chdir(struct task *t, const char *path);
int64_t vfs_fchdir(struct task *t, int fd);
/* The working directory's guest path. */
const char *vfs_cwd_path(struct task *t);
/* The task starts in `path` (--cwd; "/" when NULL). */
err_t vfs_task_init(struct task *t, const char *path);

#endif
