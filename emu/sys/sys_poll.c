/* poll, ppoll, select, pselect6 (fs/select.c), on every kind of guest
 * descriptor; readiness and the wait itself are emu/kernel/poll.c's. */
#include <string.h>

#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/poll.h"
#include "emu/kernel/signal.h"
#include "emu/sys/sys.h"
#include "emu/sys/timekeeping.h"

#define NSEC_PER_SEC 1000000000ll

/* The call's timeout as poll_select_set_timeout() keeps it: none (NULL),
 * zero (do not wait at all), or an end on CLOCK_MONOTONIC. */
struct call_timeout {
    bool set;
    bool zero;
    int64_t end;
};

static int64_t set_timeout(struct call_timeout *to, int64_t sec, int64_t nsec)
{
    if (sec < 0 || nsec < 0 || nsec >= NSEC_PER_SEC)
        return -EINVAL_LINUX;
    to->set = true;
    to->zero = sec == 0 && nsec == 0;
    int64_t now = poll_now();
    /* timespec64_add_safe: a far end saturates */
    to->end = sec >= (INT64_MAX - now) / NSEC_PER_SEC ? INT64_MAX : now + sec * NSEC_PER_SEC + nsec;
    return 0;
}

static int64_t deadline_of(const struct call_timeout *to)
{
    return to->set ? to->end : -1;
}

/* Read a timespec (or, `usec`, a timeval normalised as kern_select does)
 * and set the timeout from it. */
static int64_t read_timeout(struct task *t, uint64_t addr, bool wide, bool usec,
                            struct call_timeout *to)
{
    int64_t sec, frac;
    if (!guest_get_timespec(t, addr, wide, &sec, &frac))
        return -EFAULT_LINUX;
    if (usec) {
        int64_t carry = frac / 1000000;
        sec = sec > INT64_MAX - carry ? INT64_MAX : sec + carry;
        frac = (frac % 1000000) * 1000;
    }
    return set_timeout(to, sec, frac);
}

enum time_kind { TIME_TIMEVAL, TIME_TIMESPEC };

/* poll_select_finish(): the saved mask back unless the call was
 * interrupted, and the time left written where the timeout came from (if
 * that fails, the call can no longer be restarted). */
static int64_t finish(struct task *t, const struct call_timeout *to, uint64_t addr,
                      enum time_kind kind, bool wide, int64_t ret)
{
    signal_mask_call_done(t, ret == -ERESTARTNOHAND_LINUX);
    if (!addr || to->zero)
        return ret;
    int64_t rest = to->end - poll_now();
    if (rest < 0)
        rest = 0;
    int64_t sec = rest / NSEC_PER_SEC, nsec = rest % NSEC_PER_SEC;
    if (guest_put_timespec(t, addr, sec, kind == TIME_TIMEVAL ? nsec / 1000 : nsec, wide))
        return ret;
    return ret == -ERESTARTNOHAND_LINUX ? -EINTR_LINUX : ret;
}

/* set_user_sigmask(): NULL keeps the mask; a size other than sigset_t's
 * is EINVAL. */
static int64_t use_sigmask(struct task *t, uint64_t umask, uint64_t size)
{
    if (!umask)
        return 0;
    if (size != 8)
        return -EINVAL_LINUX;
    uint64_t mask;
    if (!mm_read(t->mm, umask, &mask, sizeof(mask)))
        return -EFAULT_LINUX;
    signal_mask_for_call(t, mask);
    return 0;
}

/* Would a signal end a wait now?  (signal_pending() in the kernel.) */
static bool signal_waiting(struct task *t)
{
    async_take(t);
    return t->state != TASK_RUNNING || signal_deliverable(t);
}

/* ---- poll ---- */

struct upollfd {
    int32_t fd;
    uint16_t events, revents;
};

static unsigned pollfd_revents(struct task *t, const struct upollfd *p, struct poll_wait *pw)
{
    if (p->fd < 0)
        return 0;
    struct gfd *g = fdtable_get(t->fds, p->fd);
    if (!g)
        return POLLNVAL_LINUX;
    unsigned want = p->events | POLLERR_LINUX | POLLHUP_LINUX;
    if (pw)
        poll_wait_add(pw, g, want);
    return poll_gfd(g) & want;
}

static int64_t do_sys_poll(struct task *t, uint64_t ufds, uint32_t nfds,
                           const struct call_timeout *to)
{
    if (nfds > t->group->rlim[RLIMIT_NOFILE_LINUX].cur)
        return -EINVAL_LINUX;
    g_autofree struct upollfd *fds = g_new0(struct upollfd, nfds ? nfds : 1);
    if (nfds && !mm_read(t->mm, ufds, fds, (size_t)nfds * POLLFD_SIZE_LINUX))
        return -EFAULT_LINUX;
    struct poll_wait pw;
    poll_wait_init(&pw);
    bool timed_out = to->zero, first = true;
    int64_t count;
    for (;;) {
        count = 0;
        for (uint32_t i = 0; i < nfds; i++) {
            fds[i].revents = (uint16_t)pollfd_revents(t, &fds[i], first ? &pw : NULL);
            count += fds[i].revents != 0;
        }
        first = false;
        /* do_poll(): a signal ends a call that found nothing, even one
         * with a zero timeout. */
        if (!count && signal_waiting(t))
            count = -ERESTARTNOHAND_LINUX;
        if (count || timed_out)
            break;
        enum poll_block_result r = poll_block(t, &pw, deadline_of(to));
        if (r == POLL_INTERRUPTED) {
            count = -ERESTARTNOHAND_LINUX;
            break;
        }
        timed_out = r == POLL_TIMED_OUT;
    }
    poll_wait_clear(&pw);
    /* Every revents is written back, whatever the result. */
    for (uint32_t i = 0; i < nfds; i++)
        if (!mm_write(t->mm, ufds + (uint64_t)i * POLLFD_SIZE_LINUX + POLLFD_REVENTS_OFF_LINUX,
                      &fds[i].revents, 2))
            return -EFAULT_LINUX;
    return count;
}

SYS(poll)
{
    struct call_timeout to = { 0 };
    int timeout_ms = (int)a[2];
    if (timeout_ms >= 0)
        set_timeout(&to, timeout_ms / 1000, (int64_t)(timeout_ms % 1000) * 1000000);
    return do_sys_poll(t, uarg(t, a[0]), (uint32_t)a[1], &to);
}

static int64_t do_ppoll(struct task *t, const uint64_t a[6], bool wide)
{
    struct call_timeout to = { 0 };
    uint64_t tsp = uarg(t, a[2]);
    if (tsp) {
        int64_t r = read_timeout(t, tsp, wide, false, &to);
        if (r < 0)
            return r;
    }
    int64_t r = use_sigmask(t, uarg(t, a[3]), uarg(t, a[4]));
    if (r < 0)
        return r;
    r = do_sys_poll(t, uarg(t, a[0]), (uint32_t)a[1], &to);
    return finish(t, &to, tsp, TIME_TIMESPEC, wide, r);
}

SYS(ppoll) { return do_ppoll(t, a, !in_compat_syscall(t)); }
SYS(ppoll_time64) { return do_ppoll(t, a, true); }

/* ---- select ---- */

struct fd_sets {
    uint64_t *in, *out, *ex;          /* asked */
    uint64_t *res_in, *res_out, *res_ex;
};

static bool bit(const uint64_t *set, int fd)
{
    return (set[fd / 64] >> (fd % 64)) & 1;
}

static void set_bit(uint64_t *set, int fd)
{
    set[fd / 64] |= 1ull << (fd % 64);
}

/* max_select_fd(): every descriptor named must be open; the highest + 1. */
static int64_t max_select_fd(struct task *t, int n, const struct fd_sets *s)
{
    int max = 0;
    for (int fd = 0; fd < n; fd++) {
        if (!bit(s->in, fd) && !bit(s->out, fd) && !bit(s->ex, fd))
            continue;
        if (!fdtable_get(t->fds, fd))
            return -EBADF_LINUX;
        max = fd + 1;
    }
    return max;
}

static int64_t do_select(struct task *t, int n, struct fd_sets *s, const struct call_timeout *to)
{
    int64_t max = max_select_fd(t, n, s);
    if (max < 0)
        return max;
    n = (int)max;
    struct poll_wait pw;
    poll_wait_init(&pw);
    bool timed_out = to->zero, first = true;
    int64_t count;
    for (;;) {
        count = 0;
        for (int fd = 0; fd < n; fd++) {
            bool in = bit(s->in, fd), out = bit(s->out, fd), ex = bit(s->ex, fd);
            if (!in && !out && !ex)
                continue;
            struct gfd *g = fdtable_get(t->fds, fd);
            unsigned mask = g ? poll_gfd(g) : 0;
            if (g && first)
                poll_wait_add(&pw, g, (in ? POLLIN_SET_LINUX : 0) | (out ? POLLOUT_SET_LINUX : 0) |
                                          (ex ? POLLEX_SET_LINUX : 0));
            if ((mask & POLLIN_SET_LINUX) && in) {
                set_bit(s->res_in, fd);
                count++;
            }
            if ((mask & POLLOUT_SET_LINUX) && out) {
                set_bit(s->res_out, fd);
                count++;
            }
            if ((mask & POLLEX_SET_LINUX) && ex) {
                set_bit(s->res_ex, fd);
                count++;
            }
        }
        first = false;
        if (count || timed_out)
            break;
        enum poll_block_result r = poll_block(t, &pw, deadline_of(to));
        if (r == POLL_INTERRUPTED)
            break;
        timed_out = r == POLL_TIMED_OUT;
    }
    poll_wait_clear(&pw);
    return count;
}

/* One of the three sets in guest memory: n bits in words of the ABI's
 * long (compat: 32 bits), rounded up to whole words. */
static size_t set_bytes(int n, bool compat)
{
    size_t word = compat ? 4 : 8;
    return ((size_t)n + word * 8 - 1) / (word * 8) * word;
}

static int64_t core_sys_select(struct task *t, int64_t n, uint64_t inp, uint64_t outp,
                               uint64_t exp, const struct call_timeout *to, bool compat)
{
    if (n < 0)
        return -EINVAL_LINUX;
    if (n > t->fds->max_fds)
        n = t->fds->max_fds;
    size_t bytes = set_bytes((int)n, compat);
    size_t words = ((size_t)n + 63) / 64 + 1;
    g_autofree uint64_t *mem = g_new0(uint64_t, 6 * words);
    struct fd_sets s = { mem, mem + words, mem + 2 * words,
                         mem + 3 * words, mem + 4 * words, mem + 5 * words };
    /* Bits past n in the last word are the guest's, not the call's. */
    const uint64_t ptr[3] = { inp, outp, exp };
    uint64_t *const sets[3] = { s.in, s.out, s.ex };
    for (int i = 0; i < 3; i++) {
        if (ptr[i] && bytes && !mm_read(t->mm, ptr[i], sets[i], bytes))
            return -EFAULT_LINUX;
        for (int64_t fd = n; fd < (int64_t)(words * 64); fd++)
            sets[i][fd / 64] &= ~(1ull << (fd % 64));
    }
    int64_t ret = do_select(t, (int)n, &s, to);
    if (ret < 0)
        return ret;
    if (!ret && signal_waiting(t))
        return -ERESTARTNOHAND_LINUX;
    uint64_t *const res[3] = { s.res_in, s.res_out, s.res_ex };
    for (int i = 0; i < 3; i++)
        if (ptr[i] && bytes && !mm_write(t->mm, ptr[i], res[i], bytes))
            ret = -EFAULT_LINUX;
    return ret;
}

static int64_t kern_select(struct task *t, int64_t n, uint64_t inp, uint64_t outp, uint64_t exp,
                           uint64_t tvp, bool compat)
{
    struct call_timeout to = { 0 };
    if (tvp) {
        int64_t r = read_timeout(t, tvp, !compat, true, &to);
        if (r < 0)
            return r;
    }
    int64_t r = core_sys_select(t, n, inp, outp, exp, &to, compat);
    return finish(t, &to, tvp, TIME_TIMEVAL, !compat, r);
}

SYS(select)
{
    bool compat = in_compat_syscall(t);
    return kern_select(t, (int32_t)a[0], uarg(t, a[1]), uarg(t, a[2]), uarg(t, a[3]),
                       uarg(t, a[4]), compat);
}

/* i386's old select(2): one pointer to the five arguments. */
SYS(old_select)
{
    uint32_t w[5];
    if (!mm_read(t->mm, (uint32_t)a[0], w, sizeof(w)))
        return -EFAULT_LINUX;
    return kern_select(t, (int32_t)w[0], w[1], w[2], w[3], w[4], true);
}

static int64_t do_pselect(struct task *t, const uint64_t a[6], bool wide)
{
    bool compat = in_compat_syscall(t);
    uint64_t sigp = 0, sigsize = 0, sig = uarg(t, a[5]);
    if (sig) {
        /* struct sigset_argpack { sigset_t *p; size_t size; } */
        if (compat) {
            uint32_t w[2];
            if (!mm_read(t->mm, sig, w, sizeof(w)))
                return -EFAULT_LINUX;
            sigp = w[0], sigsize = w[1];
        } else {
            uint64_t w[2];
            if (!mm_read(t->mm, sig, w, sizeof(w)))
                return -EFAULT_LINUX;
            sigp = w[0], sigsize = w[1];
        }
    }
    struct call_timeout to = { 0 };
    uint64_t tsp = uarg(t, a[4]);
    if (tsp) {
        int64_t r = read_timeout(t, tsp, wide, false, &to);
        if (r < 0)
            return r;
    }
    int64_t r = use_sigmask(t, sigp, sigsize);
    if (r < 0)
        return r;
    r = core_sys_select(t, (int32_t)a[0], uarg(t, a[1]), uarg(t, a[2]), uarg(t, a[3]), &to,
                        compat);
    return finish(t, &to, tsp, TIME_TIMESPEC, wide, r);
}

SYS(pselect6) { return do_pselect(t, a, !in_compat_syscall(t)); }
SYS(pselect6_time64) { return do_pselect(t, a, true); }
