/* Guest descriptors.  Each names either a host descriptor the user granted
 * or a file emulated inside seccomp-emu (the seed's /proc/self/seccomp).
 * Nothing else exists for the guest: it cannot open host files. */
#ifndef EMU_FDTABLE_H
#define EMU_FDTABLE_H

#include <stdbool.h>
#include <stdint.h>

#define FD_MAX_GUEST 1024 /* RLIMIT_NOFILE's usual soft limit */

enum gfd_kind {
    GFD_NONE,
    GFD_HOST,
    GFD_PROC_SECCOMP,
    GFD_SECCOMP_LISTENER, /* SECCOMP_FILTER_FLAG_NEW_LISTENER's descriptor */
    GFD_VIRTUAL,          /* a read-only emulated file (/proc/self/status, /dev/zero) */
};

struct gfd {
    enum gfd_kind kind;
    int host;     /* GFD_HOST */
    uint64_t pos; /* GFD_PROC_SECCOMP, GFD_VIRTUAL */
    int vfile;    /* GFD_VIRTUAL: enum vfile_id (emu/kernel/vfile.h) */
    bool cloexec;
};

struct fdtable {
    struct gfd fd[FD_MAX_GUEST];
};

/* Guest fds 0-2 are the emulator's own, where those are open. */
void fdtable_init_std(struct fdtable *ft);
/* The entry for guest descriptor `fd`, or NULL (EBADF). */
struct gfd *fdtable_get(struct fdtable *ft, int64_t fd);
/* Lowest free guest descriptor, or -EMFILE. */
int fdtable_alloc(struct fdtable *ft);
int fdtable_close(struct fdtable *ft, int64_t fd);

#endif
