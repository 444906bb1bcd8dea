#include "emu/kernel/fdtable.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "abi/linux.h"

void fdtable_init_std(struct fdtable *ft)
{
    memset(ft, 0, sizeof(*ft));
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
    for (int i = 0; i < FD_MAX_GUEST; i++)
        if (ft->fd[i].kind == GFD_NONE)
            return i;
    return -EMFILE_LINUX;
}

int fdtable_close(struct fdtable *ft, int64_t fd)
{
    struct gfd *g = fdtable_get(ft, fd);
    if (!g)
        return -EBADF_LINUX;
    struct gfd was = *g;
    *g = (struct gfd){ .kind = GFD_NONE };
    /* The guest's last name for a granted endpoint closes it, so a peer
     * sees end-of-file when it would natively.  seccomp-emu's own 0-2 stay
     * open: its diagnostics go there. */
    if (was.kind != GFD_HOST || was.host <= 2)
        return 0;
    for (int i = 0; i < FD_MAX_GUEST; i++)
        if (ft->fd[i].kind == GFD_HOST && ft->fd[i].host == was.host)
            return 0;
    close(was.host);
    return 0;
}
