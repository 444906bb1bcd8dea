#include "emu/fdtable.h"

#include <fcntl.h>
#include <string.h>

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
    /* Host descriptors stay open in the emulator: the guest only loses its
     * name for them, and closing our own stdout would break diagnostics. */
    *g = (struct gfd){ .kind = GFD_NONE };
    return 0;
}
