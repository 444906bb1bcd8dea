/* The path calls of the guest's namespace (emu/kernel/vfs.c): access,
 * directory listings and the working directory.  The namespace is
 * read-only; what it holds is only what --ro granted. */
#include <string.h>

#include "abi/linux.h"
#include "emu/kernel/vfs.h"
#include "emu/sys/sys.h"

/* do_faccessat(): flags, then mode, then the name. */
static int64_t do_access(struct task *t, int dirfd, uint64_t upath, uint64_t mode, int flags)
{
    if (flags & ~(AT_EACCESS_LINUX | AT_SYMLINK_NOFOLLOW_LINUX | AT_EMPTY_PATH_LINUX))
        return -EINVAL_LINUX;
    if ((uint32_t)mode & ~7u)
        return -EINVAL_LINUX;
    char path[PATH_MAX_LINUX];
    int r = mm_read_string(t->mm, uarg(t, upath), path, sizeof(path));
    if (r < 0)
        return r;
    return vfs_access(t, dirfd, path, (int)(mode & 7), flags);
}

SYS(access) { return do_access(t, AT_FDCWD_LINUX, a[0], a[1], 0); }
SYS(faccessat) { return do_access(t, (int)a[0], a[1], a[2], 0); }
SYS(faccessat2) { return do_access(t, (int)a[0], a[1], a[2], (int)a[3]); }

static int64_t do_getdents(struct task *t, const uint64_t a[6], bool dirent64)
{
    struct gfd *g = fdtable_get(t->fds, (int)a[0]);
    if (!g)
        return -EBADF_LINUX;
    if (g->kind != GFD_GRANT)
        return -ENOTDIR_LINUX;
    return ofile_getdents(t, g->ofile, uarg(t, a[1]), (uint32_t)a[2], dirent64);
}

SYS(getdents) { return do_getdents(t, a, false); }
SYS(getdents64) { return do_getdents(t, a, true); }

SYS(chdir)
{
    char path[PATH_MAX_LINUX];
    int r = mm_read_string(t->mm, uarg(t, a[0]), path, sizeof(path));
    return r < 0 ? r : vfs_chdir(t, path);
}

SYS(fchdir) { return vfs_fchdir(t, (int)a[0]); }

/* getcwd(2) returns the length with the NUL; ERANGE when it does not fit. */
SYS(getcwd)
{
    const char *cwd = vfs_cwd_path(t);
    uint64_t len = strlen(cwd) + 1;
    if (len > uarg(t, a[1]))
        return -ERANGE_LINUX;
    return mm_write(t->mm, uarg(t, a[0]), cwd, len) ? (int64_t)len : -EFAULT_LINUX;
}
