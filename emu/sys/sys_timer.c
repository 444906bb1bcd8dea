/* timer_create, timer_settime, timer_gettime, timer_getoverrun,
 * timer_delete: the guest's structures in and out, for both ABIs (i386's
 * 32-bit itimerspec and its *_time64 calls); the timers themselves are
 * emu/kernel/posix_timer.c's. */
#include "abi/bytes_le.h"
#include "abi/linux.h"
#include "emu/kernel/posix_timer.h"
#include "emu/sys/sys.h"
#include "emu/sys/timekeeping.h"

#define NSEC_PER_SEC 1000000000ll

/* struct sigevent: sigval, signo, notify, then the union whose first int
 * is sigev_notify_thread_id; a pointer-sized sigval on x86_64. */
static bool get_sigevent(struct task *t, uint64_t addr, struct sigevent_k *ev)
{
    uint8_t raw[64];
    if (!mm_read(t->mm, addr, raw, sizeof(raw)))
        return false;
    bool compat = in_compat_syscall(t);
    size_t word = compat ? 4 : 8;
    ev->value = compat ? get_le32(raw) : get_le64(raw);
    ev->signo = (int32_t)get_le32(raw + word);
    ev->notify = (int32_t)get_le32(raw + word + 4);
    ev->tid = (int32_t)get_le32(raw + word + 8);
    return true;
}

SYS(timer_create)
{
    uint64_t uev = uarg(t, a[1]);
    struct sigevent_k ev;
    if (uev && !get_sigevent(t, uev, &ev))
        return -EFAULT_LINUX;
    return posix_timer_create(t, (int)a[0], uev ? &ev : NULL, uarg(t, a[2]));
}

/* struct itimerspec: it_interval, then it_value, each a timespec. */
static int64_t get_itimerspec(struct task *t, uint64_t addr, bool wide, struct itimerspec_k *its)
{
    int64_t s[2], ns[2];
    uint64_t half = wide ? 16 : 8;
    if (!guest_get_timespec(t, addr, wide, &s[0], &ns[0]) ||
        !guest_get_timespec(t, addr + half, wide, &s[1], &ns[1]))
        return -EFAULT_LINUX;
    for (int i = 0; i < 2; i++)
        if (s[i] < 0 || ns[i] < 0 || ns[i] >= NSEC_PER_SEC)
            return -EINVAL_LINUX; /* timespec64_valid() */
    /* ktime_set(): seconds past KTIME_SEC_MAX mean "never" */
    int64_t v[2];
    for (int i = 0; i < 2; i++)
        v[i] = s[i] >= INT64_MAX / NSEC_PER_SEC ? INT64_MAX : s[i] * NSEC_PER_SEC + ns[i];
    its->interval = v[0];
    its->value = v[1];
    return 0;
}

static bool put_itimerspec(struct task *t, uint64_t addr, bool wide, const struct itimerspec_k *its)
{
    uint64_t half = wide ? 16 : 8;
    return guest_put_timespec(t, addr, its->interval / NSEC_PER_SEC, its->interval % NSEC_PER_SEC,
                              wide) &&
           guest_put_timespec(t, addr + half, its->value / NSEC_PER_SEC,
                              its->value % NSEC_PER_SEC, wide);
}

static int64_t settime(struct task *t, const uint64_t a[6], bool wide)
{
    uint64_t unew = uarg(t, a[2]), uold = uarg(t, a[3]);
    if (!unew)
        return -EINVAL_LINUX;
    struct itimerspec_k new_, old = { 0 };
    int64_t r = get_itimerspec(t, unew, wide, &new_);
    if (r < 0)
        return r;
    r = posix_timer_settime(t, (int32_t)a[0], (int)a[1], &new_, uold ? &old : NULL);
    if (r == 0 && uold && !put_itimerspec(t, uold, wide, &old))
        return -EFAULT_LINUX;
    return r;
}

SYS(timer_settime) { return settime(t, a, !in_compat_syscall(t)); }
SYS(timer_settime64) { return settime(t, a, true); }

static int64_t gettime(struct task *t, const uint64_t a[6], bool wide)
{
    struct itimerspec_k cur;
    int64_t r = posix_timer_gettime(t, (int32_t)a[0], &cur);
    if (r == 0 && !put_itimerspec(t, uarg(t, a[1]), wide, &cur))
        return -EFAULT_LINUX;
    return r;
}

SYS(timer_gettime) { return gettime(t, a, !in_compat_syscall(t)); }
SYS(timer_gettime64) { return gettime(t, a, true); }
SYS(timer_getoverrun) { return posix_timer_getoverrun(t, (int32_t)a[0]); }
SYS(timer_delete) { return posix_timer_delete(t, (int32_t)a[0]); }
