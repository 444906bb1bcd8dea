/* Linux's part of the window: moving pages with mremap, no copy. */
#include "emu/engine/window.h"

#include <errno.h>
#include <sys/mman.h>


#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4 /* Linux 5.7 */
#endif

err_t window_host_move(uint8_t *from, uint8_t *to, uint64_t len, bool *moved)
{
    /* MREMAP_DONTUNMAP leaves the source mapped (emptied), so no hole
     * opens in the window even for an instant; the source then goes back
     * to PROT_NONE in one mmap.  Kernels before 5.7 (EINVAL) take the
     * plain move, whose hole lasts until the mmap right after it. */
    void *p = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, to);
    if (p == MAP_FAILED && errno == EINVAL)
        p = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    /* EFAULT: the range is more than one host mapping; ENOMEM: the host's
     * map count.  The caller copies. */
    *moved = p != MAP_FAILED;
    if (!*moved)
        return OK;
    if (mmap(from, len, PROT_NONE, MAP_PRIVATE | MAP_ANON | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
        MAP_FAILED)
        return err_new("window: the source of a move left mapped: %s", host_strerror(errno));
    return OK;
}
