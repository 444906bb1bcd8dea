/* The epoll calls (fs/eventpoll.c's system call layer); the instances
 * themselves are emu/kernel/epoll.c's. */
#include "abi/bytes_le.h"
#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "emu/kernel/epoll.h"
#include "emu/kernel/poll.h"
#include "emu/kernel/signal.h"
#include "emu/sys/sys.h"
#include "emu/sys/timekeeping.h"

SYS(epoll_create)
{
    if ((int)a[0] <= 0)
        return -EINVAL_LINUX;
    return eventpoll_create(t, 0);
}

SYS(epoll_create1) { return eventpoll_create(t, (unsigned)a[0]); }

SYS(epoll_ctl)
{
    int op = (int)a[1];
    uint8_t raw[EPOLL_EVENT_SIZE_LINUX] = { 0 };
    bool ok = op == EPOLL_CTL_DEL_LINUX || mm_read(t->mm, uarg(t, a[3]), raw, sizeof(raw));
    return eventpoll_ctl(t, (int)a[0], op, (int)a[2], ok, get_le32(raw), get_le64(raw + 4));
}

/* do_epoll_wait(): the checks before the instance is looked at.  The
 * buffer only has to lie below the 64-bit kernel's TASK_SIZE_MAX
 * (access_ok, compat tasks too); an unmapped one fails when the first
 * event is written. */
static int64_t do_epoll_wait(struct task *t, const uint64_t a[6], int64_t deadline, bool nowait)
{
    int maxevents = (int)a[2];
    if (maxevents <= 0 || maxevents > EP_MAX_EVENTS_LINUX)
        return -EINVAL_LINUX;
    uint64_t events = uarg(t, a[1]);
    uint64_t size = (uint64_t)maxevents * EPOLL_EVENT_SIZE_LINUX;
    if (events > TASK_SIZE_64_LINUX || size > TASK_SIZE_64_LINUX - events)
        return -EFAULT_LINUX;
    return eventpoll_wait(t, (int)a[0], events, maxevents, deadline, nowait);
}

/* epoll_wait's milliseconds: negative waits for ever, zero not at all. */
static int64_t ms_deadline(int ms, bool *nowait)
{
    *nowait = ms == 0;
    return ms > 0 ? poll_now() + (int64_t)ms * 1000000 : -1;
}

SYS(epoll_wait)
{
    bool nowait;
    int64_t deadline = ms_deadline((int)a[3], &nowait);
    return do_epoll_wait(t, a, deadline, nowait);
}

/* epoll_pwait and epoll_pwait2: the mask for the wait, restored unless a
 * signal interrupted it (then after its handler). */
static int64_t with_sigmask(struct task *t, const uint64_t a[6], int64_t deadline, bool nowait)
{
    uint64_t umask = uarg(t, a[4]);
    if (umask) {
        if (uarg(t, a[5]) != 8)
            return -EINVAL_LINUX;
        uint64_t mask;
        if (!mm_read(t->mm, umask, &mask, sizeof(mask)))
            return -EFAULT_LINUX;
        signal_mask_for_call(t, mask);
    }
    int64_t r = do_epoll_wait(t, a, deadline, nowait);
    if (umask)
        signal_mask_call_done(t, r == -EINTR_LINUX);
    return r;
}

SYS(epoll_pwait)
{
    bool nowait;
    int64_t deadline = ms_deadline((int)a[3], &nowait);
    return with_sigmask(t, a, deadline, nowait);
}

/* A struct __kernel_timespec in both ABIs; NULL waits for ever. */
SYS(epoll_pwait2)
{
    int64_t deadline = -1;
    bool nowait = false;
    uint64_t uts = uarg(t, a[3]);
    if (uts) {
        int64_t sec, nsec;
        if (!guest_get_timespec(t, uts, true, &sec, &nsec))
            return -EFAULT_LINUX;
        if (sec < 0 || nsec < 0 || nsec >= 1000000000)
            return -EINVAL_LINUX;
        nowait = sec == 0 && nsec == 0;
        int64_t now = poll_now();
        deadline = sec >= (INT64_MAX - now) / 1000000000 ? INT64_MAX
                                                         : now + sec * 1000000000 + nsec;
    }
    return with_sigmask(t, a, deadline, nowait);
}
