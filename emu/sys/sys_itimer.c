/* alarm, setitimer, getitimer (kernel/time/itimer.c): the timers live in
 * the timer thread (emu/kernel/async.c); ITIMER_REAL runs on wall time, VIRTUAL
 * and PROF on the guest's CPU time. */
#include "abi/signal_linux.h"
#include "emu/kernel/async.h"
#include "emu/sys/sys.h"

#define NS 1000000000ll

static bool compat(struct task *t) { return in_compat_syscall(t); }

/* struct __kernel_old_itimerval: {interval, value}, each a timeval. */
static bool get_itimerval(struct task *t, uint64_t addr, int64_t v[4])
{
    if (compat(t)) {
        int32_t w[4];
        if (!mm_read(t->mm, (uint32_t)addr, w, sizeof(w)))
            return false;
        for (int i = 0; i < 4; i++)
            v[i] = w[i];
        return true;
    }
    return mm_read(t->mm, addr, v, 4 * sizeof(int64_t));
}

static bool put_itimerval(struct task *t, uint64_t addr, const struct async_itimer *it)
{
    int64_t v[4] = { it->interval / NS, it->interval % NS / 1000, it->value / NS,
                     it->value % NS / 1000 };
    if (compat(t)) {
        int32_t w[4];
        for (int i = 0; i < 4; i++)
            w[i] = (int32_t)v[i];
        return mm_write(t->mm, (uint32_t)addr, w, sizeof(w));
    }
    return mm_write(t->mm, addr, v, sizeof(v));
}

static bool valid_which(int64_t which)
{
    return which == ITIMER_REAL_LINUX || which == ITIMER_VIRTUAL_LINUX ||
           which == ITIMER_PROF_LINUX;
}

SYS(setitimer)
{
    int which = (int)a[0];
    uint64_t unew = compat(t) ? (uint32_t)a[1] : a[1], uold = compat(t) ? (uint32_t)a[2] : a[2];
    struct async_itimer set = { 0, 0 }, old;
    /* A NULL new value is an old misfeature the kernel still honours:
     * it disarms the timer. */
    if (unew) {
        int64_t v[4];
        if (!get_itimerval(t, unew, v))
            return -EFAULT_LINUX;
        if (v[0] < 0 || v[1] < 0 || v[1] >= 1000000 || v[2] < 0 || v[3] < 0 || v[3] >= 1000000)
            return -EINVAL_LINUX;
        set.interval = v[0] * NS + v[1] * 1000;
        set.value = v[2] * NS + v[3] * 1000;
    }
    if (!valid_which(which))
        return -EINVAL_LINUX;
    async_itimer(t->group, which, &set, &old);
    if (uold && !put_itimerval(t, uold, &old))
        return -EFAULT_LINUX;
    return 0;
}

SYS(getitimer)
{
    int which = (int)a[0];
    if (!valid_which(which))
        return -EINVAL_LINUX;
    struct async_itimer cur;
    async_itimer(t->group, which, NULL, &cur);
    return put_itimerval(t, compat(t) ? (uint32_t)a[1] : a[1], &cur) ? 0 : -EFAULT_LINUX;
}

SYS(alarm)
{
    uint32_t seconds = (uint32_t)a[0];
    struct async_itimer set = { .value = (int64_t)seconds * NS, .interval = 0 }, old;
    async_itimer(t->group, ITIMER_REAL_LINUX, &set, &old);
    /* alarm_setitimer(): never 0 while an alarm was pending, and rounded
     * to the nearest second otherwise. */
    int64_t sec = old.value / NS, ns = old.value % NS;
    if ((!sec && ns) || ns >= 500000000)
        sec++;
    return sec;
}
