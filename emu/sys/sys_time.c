/* Clocks from the host's clocks.  The vDSO functions (vdso_hook.c) share
 * these so both paths give the same answers. */
#include <time.h>

#include "abi/linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/sched.h"
#include "emu/sys/sys.h"
#include "emu/sys/timekeeping.h"

int guest_clock_gettime(struct task *t, int clk, int64_t *sec, int64_t *nsec)
{
    clockid_t host;
    switch (clk) {
    case CLOCK_REALTIME_LINUX:
    case CLOCK_REALTIME_COARSE_LINUX:
    case 11: /* CLOCK_TAI: the host's realtime is close enough */
        host = CLOCK_REALTIME;
        break;
    case CLOCK_MONOTONIC_LINUX:
    case CLOCK_MONOTONIC_RAW_LINUX:
    case CLOCK_MONOTONIC_COARSE_LINUX:
    case CLOCK_BOOTTIME_LINUX:
        host = CLOCK_MONOTONIC;
        break;
    case CLOCK_PROCESS_CPUTIME_ID_LINUX:
    case CLOCK_THREAD_CPUTIME_ID_LINUX: {
        /* The CPU time the scheduler charged the process or the task. */
        int64_t ns = clk == CLOCK_THREAD_CPUTIME_ID_LINUX ? sched_task_cputime(t)
                                                          : sched_group_cputime(t->group);
        *sec = ns / 1000000000;
        *nsec = ns % 1000000000;
        return 0;
    }
    default:
        return -EINVAL_LINUX;
    }
    struct timespec ts;
    if (clock_gettime(host, &ts) != 0)
        return -EINVAL_LINUX;
    *sec = ts.tv_sec;
    *nsec = ts.tv_nsec;
    return 0;
}

int guest_clock_getres(struct task *t, int clk, int64_t *nsec)
{
    int64_t s, n;
    int r = guest_clock_gettime(t, clk, &s, &n);
    if (r < 0)
        return r;
    /* Coarse clocks tick at HZ (250 on Debian kernels), the rest are hrtimers. */
    *nsec = (clk == CLOCK_REALTIME_COARSE_LINUX || clk == CLOCK_MONOTONIC_COARSE_LINUX) ? 4000000 : 1;
    return 0;
}

bool guest_put_timespec(struct task *t, uint64_t addr, int64_t sec, int64_t nsec, bool wide)
{
    if (wide) {
        int64_t v[2] = { sec, nsec };
        return mm_write(t->mm, addr, v, sizeof(v));
    }
    int32_t v[2] = { (int32_t)sec, (int32_t)nsec };
    return mm_write(t->mm, addr, v, sizeof(v));
}

bool guest_get_timespec(struct task *t, uint64_t addr, bool wide, int64_t *sec, int64_t *nsec)
{
    if (wide) {
        int64_t v[2];
        if (!mm_read(t->mm, addr, v, sizeof(v)))
            return false;
        *sec = v[0], *nsec = v[1];
        return true;
    }
    int32_t v[2];
    if (!mm_read(t->mm, addr, v, sizeof(v)))
        return false;
    *sec = v[0], *nsec = v[1];
    return true;
}

static int64_t clock_get(struct task *t, const uint64_t a[6], bool wide)
{
    int64_t s, n;
    int r = guest_clock_gettime(t, (int)a[0], &s, &n);
    if (r < 0)
        return r;
    return guest_put_timespec(t, uarg(t, a[1]), s, n, wide) ? 0 : -EFAULT_LINUX;
}

SYS(clock_gettime) { return clock_get(t, a, !in_compat_syscall(t)); }
SYS(clock_gettime64) { return clock_get(t, a, true); }

static int64_t clock_res(struct task *t, const uint64_t a[6], bool wide)
{
    int64_t n;
    int r = guest_clock_getres(t, (int)a[0], &n);
    if (r < 0)
        return r;
    if (!a[1])
        return 0;
    return guest_put_timespec(t, uarg(t, a[1]), 0, n, wide) ? 0 : -EFAULT_LINUX;
}

SYS(clock_getres) { return clock_res(t, a, !in_compat_syscall(t)); }
SYS(clock_getres64) { return clock_res(t, a, true); }

SYS(gettimeofday)
{
    int64_t s, n;
    guest_clock_gettime(t, CLOCK_REALTIME_LINUX, &s, &n);
    bool wide = !in_compat_syscall(t);
    if (a[0] && !guest_put_timespec(t, uarg(t, a[0]), s, n / 1000, wide))
        return -EFAULT_LINUX;
    if (a[1]) {
        int32_t tz[2] = { 0, 0 };
        if (!mm_write(t->mm, uarg(t, a[1]), tz, sizeof(tz)))
            return -EFAULT_LINUX;
    }
    return 0;
}

SYS(time)
{
    int64_t s, n;
    guest_clock_gettime(t, CLOCK_REALTIME_LINUX, &s, &n);
    if (a[0]) {
        bool ok = !in_compat_syscall(t) ? mm_write(t->mm, a[0], &s, 8)
                                          : mm_write(t->mm, (uint32_t)a[0], &(int32_t){ (int32_t)s }, 4);
        if (!ok)
            return -EFAULT_LINUX;
    }
    return !in_compat_syscall(t) ? s : (int32_t)s;
}

static int64_t sleep_for(struct task *t, uint64_t ureq, uint64_t urem, bool wide)
{
    int64_t v[2];
    if (wide) {
        if (!mm_read(t->mm, ureq, v, sizeof(v)))
            return -EFAULT_LINUX;
    } else {
        int32_t w[2];
        if (!mm_read(t->mm, ureq, w, sizeof(w)))
            return -EFAULT_LINUX;
        v[0] = w[0];
        v[1] = w[1];
    }
    if (v[0] < 0 || v[1] < 0 || v[1] >= 1000000000)
        return -EINVAL_LINUX;
    int64_t ns = v[0] > INT64_MAX / 1000000000 - 1 ? INT64_MAX : v[0] * 1000000000 + v[1];
    int64_t left;
    /* A signal the guest must see ends the sleep, with the time left. */
    if (async_wait(t, -1, false, ns, &left) >= 0)
        return 0;
    if (urem && !guest_put_timespec(t, urem, left / 1000000000, left % 1000000000, wide))
        return -EFAULT_LINUX;
    return -EINTR_LINUX;
}

SYS(nanosleep) { return sleep_for(t, uarg(t, a[0]), uarg(t, a[1]), !in_compat_syscall(t)); }

SYS(clock_nanosleep)
{
    int clk = (int)a[0];
    int64_t s, n;
    int r = guest_clock_gettime(t, clk, &s, &n);
    if (r < 0 || clk == CLOCK_THREAD_CPUTIME_ID_LINUX)
        return -EINVAL_LINUX;
    bool wide = !in_compat_syscall(t);
    if (!(a[1] & 1)) /* relative */
        return sleep_for(t, uarg(t, a[2]), uarg(t, a[3]), wide);
    /* TIMER_ABSTIME: sleep until the clock reads the target; a signal
     * ends it with -EINTR and no remaining time, as in Linux. */
    int64_t v[2];
    int32_t w[2];
    if (!(wide ? mm_read(t->mm, uarg(t, a[2]), v, sizeof(v))
               : mm_read(t->mm, uarg(t, a[2]), w, sizeof(w))))
        return -EFAULT_LINUX;
    if (!wide)
        v[0] = w[0], v[1] = w[1];
    if (v[0] < 0 || v[1] < 0 || v[1] >= 1000000000)
        return -EINVAL_LINUX;
    int64_t left = (v[0] - s) * 1000000000 + (v[1] - n);
    if (left <= 0)
        return 0;
    int64_t rest;
    return async_wait(t, -1, false, left, &rest) >= 0 ? 0 : -EINTR_LINUX;
}
