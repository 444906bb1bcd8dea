/* The window with POSIX mmap only: every host seccomp-emu builds on.  The
 * Linux part (moving pages without a copy) is window_linux.c. */
#include "emu/engine/window.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "emu/engine/host_tune.h"

#ifdef MAP_NORESERVE
#define WINDOW_NORESERVE MAP_NORESERVE
#else
#define WINDOW_NORESERVE 0 /* the BSDs do not charge PROT_NONE mappings */
#endif

/* Past the span: one host page, so that an access that runs past the top
 * (at most 64 bytes at a time through the window) faults instead of
 * reaching the next mapping. */
#define GUARD_LEN host_page_size()

struct window {
    uint8_t *base;
    uint64_t span;
    size_t len; /* span + the guard */
};

err_t window_reserve(struct window **out, uint64_t span)
{
    if ((uint64_t)SIZE_MAX - GUARD_LEN < span)
        return err_new("a window of 0x%" G_GINT64_MODIFIER "x bytes does not fit this host's "
                       "address space", span);
    size_t len = (size_t)span + GUARD_LEN;
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANON | WINDOW_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return err_new("reserving a window of 0x%" G_GINT64_MODIFIER "x bytes: %s", span,
                       host_strerror(errno));
    struct window *w = g_new(struct window, 1);
    *w = (struct window){ p, span, len };
    *out = w;
    return OK;
}

void window_release(struct window *w)
{
    if (!w)
        return;
    /* The whole reservation at once: no hole is left behind for anyone. */
    munmap(w->base, w->len);
    g_free(w);
}

uint8_t *window_base(const struct window *w) { return w->base; }

size_t window_len(const struct window *w) { return w->len; }

static err_t check_range(const struct window *w, const char *what, uint64_t off, uint64_t len)
{
    uint64_t page = host_page_size();
    if ((off | len) & (page - 1) || off > w->span || len > w->span - off)
        return err_new("window %s of 0x%" G_GINT64_MODIFIER "x+0x%" G_GINT64_MODIFIER
                       "x: not host pages inside the window", what, off, len);
    return OK;
}

/* mmap over [off, off+len) with MAP_FIXED, which replaces what is there in
 * one step (a munmap first would open a hole). */
static err_t map_over(struct window *w, const char *what, uint64_t off, uint64_t len, int prot,
                      int flags)
{
    err_t e = check_range(w, what, off, len);
    if (e || !len)
        return e;
    void *p = mmap(w->base + off, (size_t)len, prot, MAP_PRIVATE | MAP_ANON | MAP_FIXED | flags,
                   -1, 0);
    if (p == MAP_FAILED)
        return err_new("window %s of 0x%" G_GINT64_MODIFIER "x bytes: %s", what, len,
                       host_strerror(errno));
    return OK;
}

err_t window_place(struct window *w, uint64_t off, uint64_t len, int prot)
{
    return map_over(w, "placement", off, len, prot, 0);
}

err_t window_clear(struct window *w, uint64_t off, uint64_t len)
{
    return map_over(w, "clearing", off, len, PROT_NONE, WINDOW_NORESERVE);
}

err_t window_protect(struct window *w, uint64_t off, uint64_t len, int prot)
{
    err_t e = check_range(w, "protection", off, len);
    if (e || !len)
        return e;
    if (mprotect(w->base + off, (size_t)len, prot) != 0)
        return err_new("window protection of 0x%" G_GINT64_MODIFIER "x bytes: %s", len,
                       host_strerror(errno));
    return OK;
}

#ifndef HAVE_WINDOW_MREMAP
err_t window_host_move(uint8_t *from, uint8_t *to, uint64_t len, bool *moved)
{
    (void)from, (void)to, (void)len;
    *moved = false;
    return OK;
}
#endif

err_t window_move(struct window *w, uint64_t from, uint64_t to, uint64_t len, int prot)
{
    err_t e;
    if ((e = check_range(w, "move", from, len)) || (e = check_range(w, "move", to, len)))
        return e;
    if (!len)
        return OK;
    if (from < to + len && to < from + len)
        return err_new("window move onto itself (0x%" G_GINT64_MODIFIER "x to 0x%"
                       G_GINT64_MODIFIER "x)", from, to);
    bool moved;
    e = window_host_move(w->base + from, w->base + to, len, &moved);
    if (moved || e)
        return e;
    /* Fresh zeros at `to`, then only the pages that hold something. */
    if ((e = window_place(w, to, len, prot | PROT_READ | PROT_WRITE)))
        return e;
    host_copy_own_pages(w->base + to, w->base + from, (size_t)len);
    if (!(prot & PROT_WRITE) && (e = window_protect(w, to, len, prot))) {
        err_free(window_clear(w, to, len));
        return e;
    }
    if ((e = window_clear(w, from, len)))
        err_free(window_clear(w, to, len));
    return e;
}
