#include "emu/kernel/iov.h"

#include "abi/linux.h"
#include "emu/kernel/task.h"

uint64_t iov_left(const struct iov_cursor *c)
{
    uint64_t n = 0;
    for (int k = c->i; k < c->n; k++)
        n += c->iov[k].len - (k == c->i ? c->off : 0);
    return n;
}

uint64_t iov_copy(struct task *t, struct iov_cursor *c, uint8_t *host, uint64_t len,
                  bool to_guest)
{
    uint64_t done = 0;
    while (done < len && c->i < c->n) {
        const struct guest_iovec *v = &c->iov[c->i];
        uint64_t chunk = MIN(len - done, v->len - c->off);
        if (!chunk) {
            c->i++;
            c->off = 0;
            continue;
        }
        uint64_t at = v->base + c->off;
        uint64_t ok =
            mm_user_prefix(t->mm, at, chunk, to_guest ? PROT_WRITE_LINUX : PROT_READ_LINUX);
        if (ok) {
            if (to_guest)
                mm_write(t->mm, at, host + done, ok);
            else
                mm_read(t->mm, at, host + done, ok);
        }
        done += ok;
        c->off += ok;
        if (ok < chunk)
            break;
    }
    return done;
}
