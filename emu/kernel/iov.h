/* Copying between a guest vector (readv/writev, a message's iovec) and
 * host bytes, for the objects of the emulated kernel (pipes, sockets). */
#ifndef EMU_IOV_H
#define EMU_IOV_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/kernel/fdtable.h"

struct task;

/* A position in a guest vector. */
struct iov_cursor {
    const struct guest_iovec *iov;
    int n, i;
    uint64_t off; /* within iov[i] */
};

/* Bytes left from the cursor to the vector's end. */
uint64_t iov_left(const struct iov_cursor *c);
/* Copy up to `len` bytes from (to_guest: to) the guest at the cursor;
 * returns how many were copied before the first unmapped byte. */
uint64_t iov_copy(struct task *t, struct iov_cursor *c, uint8_t *host, uint64_t len,
                  bool to_guest);

#endif
