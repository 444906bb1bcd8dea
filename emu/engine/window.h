/* A window: host address space reserved for a span of a guest's address
 * space, plus a guard page past it, in which the host memory of guest
 * address lo + a sits at base + a (docs/linear-mapping.md, "1. The
 * window"): all 4 GiB of an i386 address space, or one 1 TiB slot of an
 * x86_64 one ("8. x86_64 guests").  What is not placed is PROT_NONE, and
 * a range given back is made PROT_NONE again, never unmapped: malloc or
 * the translator could take an unmapped hole, and a direct access through
 * the window must reach nothing but guest memory.  The host-specific parts
 * are here; mem.c decides what goes where. */
#ifndef EMU_WINDOW_H
#define EMU_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/status.h"

/* Guest addresses a window covers: all of a 32-bit space, or a slot of a
 * 64-bit one (UC_LINEAR_SLOT_BITS). */
#define WINDOW_SPAN (1ull << 32)
#define WINDOW_SLOT_SPAN (1ull << 40)

struct window;

/* Reserve a window of `span` bytes (PROT_NONE, no memory, not charged to
 * the commit limit where the host has MAP_NORESERVE).  Fails where the
 * host refuses the address space (RLIMIT_AS, a 32-bit host). */
err_t window_reserve(struct window **out, uint64_t span);
/* Give the whole reservation back; NULL does nothing. */
void window_release(struct window *w);
/* Host address of the span's first guest address. */
uint8_t *window_base(const struct window *w);
/* Bytes the reservation spans from there: the span and the guard. */
size_t window_len(const struct window *w);

/* Ranges are offsets [off, off+len) from the span's start, host-page
 * aligned, inside the span; a range outside is refused, never clipped.
 * `prot` is the host's PROT_* bits. */

/* Fresh anonymous pages reading as zeros at [off, off+len), whatever was
 * there. */
err_t window_place(struct window *w, uint64_t off, uint64_t len, int prot);
/* Change the host protection of placed pages. */
err_t window_protect(struct window *w, uint64_t off, uint64_t len, int prot);
/* Back to PROT_NONE, the pages' memory freed. */
err_t window_clear(struct window *w, uint64_t off, uint64_t len);
/* The pages of [from, from+len), contents and protection, to [to,
 * to+len); the two must not overlap.  `from` is PROT_NONE afterwards.
 * Linux moves the host pages (mremap); elsewhere they are copied (only
 * the pages of their own: host_copy_own_pages). */
err_t window_move(struct window *w, uint64_t from, uint64_t to, uint64_t len, int prot);

/* window_move's host-specific part: *moved true when the host moved the
 * pages (then an error says `from` could not be made PROT_NONE again);
 * false when the caller must copy (the host has no way, or refused: a
 * range over two host mappings).  In window_linux.c on Linux
 * (HAVE_WINDOW_MREMAP), a stub in window_posix.c elsewhere. */
err_t window_host_move(uint8_t *from, uint8_t *to, uint64_t len, bool *moved);

#endif
