#include "emu/kernel/posix_timer.h"

#include <glib.h>
#include <unistd.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"

#define NSEC_PER_SEC 1000000000ll

struct ptimer {
    struct async_timer at; /* first: the timer thread hands this back */
    struct task *t;        /* whom it signals: a thread (SIGEV_THREAD_ID) or the
                              process through its creator; a reference */
    int32_t id;
    int clock;
    struct sigevent_k ev;
    bool sigev_none;
    /* SIGEV_NONE timers never expire for real (common_timer_arm does not
     * start them): their setting is kept here for timer_gettime. */
    int64_t none_at, none_every;
    int32_t overrun_last; /* it_overrun_last: the count of the last delivered signal */
};

/* The process's timers are its signal_struct's (thread_group's). */
static struct ptimer *find(struct task *t, int32_t id)
{
    GHashTable *timers = t->group->posix_timers;
    return timers ? g_hash_table_lookup(timers, GINT_TO_POINTER(id)) : NULL;
}

/* A live thread of t's process with this tid (0: t itself). */
static struct task *own_thread(struct task *t, int32_t tid)
{
    struct task *o = tid ? task_lookup(tid) : t;
    return o && o->group == t->group && !o->exited ? o : NULL;
}

/* clockid_to_kclock(): 0 when the clock has timers, or why not.  What
 * the clock's own timer_create() refuses comes later (create_error). */
static int64_t timer_clock(int clock, enum async_clock *out)
{
    if (clock < 0) {
        /* a clock device's (fd) clock: those have no timers */
        if ((clock & 7) == CLOCKFD_LINUX)
            return -EOPNOTSUPP_LINUX;
        *out = ASYNC_CLOCK_CPU; /* a process's or thread's CPU clock */
        return 0;
    }
    switch (clock) {
    case CLOCK_REALTIME_LINUX:
    case CLOCK_TAI_LINUX:
    case CLOCK_REALTIME_ALARM_LINUX:
        *out = ASYNC_CLOCK_REALTIME;
        return 0;
    case CLOCK_MONOTONIC_LINUX:
    case CLOCK_BOOTTIME_LINUX:
    case CLOCK_BOOTTIME_ALARM_LINUX:
        *out = ASYNC_CLOCK_MONOTONIC;
        return 0;
    case CLOCK_PROCESS_CPUTIME_ID_LINUX:
    case CLOCK_THREAD_CPUTIME_ID_LINUX:
        *out = ASYNC_CLOCK_CPU;
        return 0;
    case CLOCK_MONOTONIC_RAW_LINUX:
    case CLOCK_REALTIME_COARSE_LINUX:
    case CLOCK_MONOTONIC_COARSE_LINUX:
        return -EOPNOTSUPP_LINUX; /* clocks without timers */
    default:
        return -EINVAL_LINUX;
    }
}

/* The clock's timer_create(), once the id is handed out. */
static int64_t create_error(struct task *t, int clock)
{
    if (clock < 0) {
        /* posix_cpu_timer_create(): a valid CPU clock of this process or
         * of one of its threads (the only ones there are) */
        if ((clock & CPUCLOCK_WHICH_MASK_LINUX) >= CPUCLOCK_MAX_LINUX)
            return -EINVAL_LINUX;
        return own_thread(t, ~(clock >> 3)) ? 0 : -EINVAL_LINUX;
    }
    if (clock == CLOCK_REALTIME_ALARM_LINUX || clock == CLOCK_BOOTTIME_ALARM_LINUX)
        return -EOPNOTSUPP_LINUX; /* alarm timers need an RTC: the machine has none */
    return 0;
}

/* good_sigevent(): whom the signal goes to, or false. */
static bool good_sigevent(struct task *t, const struct sigevent_k *ev)
{
    switch (ev->notify) {
    case SIGEV_SIGNAL_LINUX | SIGEV_THREAD_ID_LINUX:
        /* a live thread of this process, named (find_vpid(0) finds none) */
        if (ev->tid == 0 || !own_thread(t, ev->tid))
            return false;
        /* fall through */
    case SIGEV_SIGNAL_LINUX:
    case SIGEV_THREAD_LINUX:
        return ev->signo > 0 && ev->signo <= NSIG_LINUX_ALL;
    case SIGEV_NONE_LINUX:
        (void)t;
        return true;
    default:
        return false;
    }
}

static void expired(struct async_timer *at, uint64_t count)
{
    struct ptimer *p = (struct ptimer *)at;
    struct task *to = p->t;
    if (to->exited && !(p->ev.notify & SIGEV_THREAD_ID_LINUX)) {
        /* to the process: any of its threads still alive */
        to = NULL;
        for (GList *l = p->t->group->threads.head; l && !to; l = l->next)
            if (!((struct task *)l->data)->exited)
                to = l->data;
    }
    if (!to || to->exited)
        return; /* nobody left to take it */
    struct ksiginfo info = {
        .signo = p->ev.signo,
        .code = SI_TIMER_LINUX,
        .tid = p->id,
        .value = p->ev.value,
        .shared = !(p->ev.notify & SIGEV_THREAD_ID_LINUX),
        .overrun_last = &p->overrun_last,
    };
    signal_send_timer(to, &info, count > UINT32_MAX ? UINT32_MAX : (uint32_t)(count - 1));
}

static void destroy(struct ptimer *p)
{
    async_timer_remove(&p->at);
    /* A signal of its still queued is delivered all the same (6.12's
     * sigqueue_free; later kernels drop it). */
    signal_timer_forget(p->t, &p->overrun_last);
    task_put(p->t);
    g_free(p);
}

int64_t posix_timer_create(struct task *t, int clock, const struct sigevent_k *ev, uint64_t uid)
{
    enum async_clock ac;
    int64_t r = timer_clock(clock, &ac);
    if (r < 0)
        return r;
    struct thread_group *g = t->group;
    if (!g->posix_timers)
        g->posix_timers = g_hash_table_new(NULL, NULL);
    GHashTable *timers = g->posix_timers;
    /* alloc_posix_timer(): each timer holds a preallocated signal, charged
     * against RLIMIT_SIGPENDING. */
    if ((uint64_t)g_hash_table_size(timers) >= t->group->rlim[RLIMIT_SIGPENDING_LINUX].cur)
        return -EAGAIN_LINUX;
    /* posix_timer_add(): the next free id, counting on from the last one
     * handed out, failed creations included. */
    int32_t id = g->posix_timer_next;
    while (find(t, id))
        id = (id + 1) & INT32_MAX;
    g->posix_timer_next = (id + 1) & INT32_MAX;
    struct sigevent_k dflt = { .value = (uint32_t)id, .signo = SIGALRM_LINUX,
                               .notify = SIGEV_SIGNAL_LINUX };
    if (!ev)
        ev = &dflt;
    else if (!good_sigevent(t, ev))
        return -EINVAL_LINUX;
    if (!mm_write(t->mm, uid, &id, sizeof(id)))
        return -EFAULT_LINUX;
    if ((r = create_error(t, clock)) < 0)
        return r;
    struct ptimer *p = g_new0(struct ptimer, 1);
    p->at.clock = ac;
    p->at.expired = expired;
    p->t = task_get(ev->notify == (SIGEV_SIGNAL_LINUX | SIGEV_THREAD_ID_LINUX)
                        ? own_thread(t, ev->tid) : t);
    p->id = id;
    p->clock = clock;
    p->ev = *ev;
    p->sigev_none = ev->notify == SIGEV_NONE_LINUX;
    g_hash_table_insert(timers, GINT_TO_POINTER(id), p);
    return 0;
}

/* The next expiry after `now` of a timer due at `at` every `every` ns. */
static int64_t forward(int64_t at, int64_t every, int64_t now)
{
    if (every > 0 && at <= now)
        at += ((now - at) / every + 1) * every;
    return at;
}

/* common_timer_get(). */
static void get_setting(struct ptimer *p, struct itimerspec_k *cur)
{
    int64_t at, every;
    if (p->sigev_none) {
        at = p->none_at;
        every = p->none_every;
    } else
        async_timer_get(&p->at, &at, &every);
    *cur = (struct itimerspec_k){ .interval = every };
    if (!at)
        return; /* disarmed, or a one-shot that fired */
    int64_t now = async_clock_now(p->at.clock);
    at = forward(at, every, now);
    int64_t remaining = at - now;
    if (remaining > 0)
        cur->value = remaining;
    else if (!p->sigev_none)
        cur->value = 1; /* expired, the signal not yet delivered */
}

int64_t posix_timer_gettime(struct task *t, int32_t id, struct itimerspec_k *cur)
{
    struct ptimer *p = find(t, id);
    if (!p)
        return -EINVAL_LINUX;
    get_setting(p, cur);
    return 0;
}

int64_t posix_timer_settime(struct task *t, int32_t id, int flags, const struct itimerspec_k *new_,
                            struct itimerspec_k *old)
{
    struct ptimer *p = find(t, id);
    if (!p)
        return -EINVAL_LINUX;
    if (old)
        get_setting(p, old);
    p->overrun_last = 0;
    int64_t at = 0;
    if (new_->value) {
        at = new_->value;
        if (!(flags & TIMER_ABSTIME_LINUX)) {
            int64_t now = async_clock_now(p->at.clock);
            at = now > INT64_MAX - at ? INT64_MAX : now + at;
        }
        if (at <= 0)
            at = 1; /* an absolute time already past: due at once */
    }
    int64_t every = at ? new_->interval : 0;
    if (p->sigev_none) {
        p->none_at = at;
        p->none_every = every;
    } else
        async_timer_set(&p->at, at, every, NULL, NULL);
    return 0;
}

int64_t posix_timer_getoverrun(struct task *t, int32_t id)
{
    struct ptimer *p = find(t, id);
    return p ? p->overrun_last : -EINVAL_LINUX;
}

int64_t posix_timer_delete(struct task *t, int32_t id)
{
    struct ptimer *p = find(t, id);
    if (!p)
        return -EINVAL_LINUX;
    g_hash_table_remove(t->group->posix_timers, GINT_TO_POINTER(id));
    destroy(p);
    return 0;
}

void posix_timers_exit(struct thread_group *g)
{
    GHashTable *timers = g->posix_timers;
    if (!timers)
        return;
    g->posix_timers = NULL;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, timers);
    while (g_hash_table_iter_next(&it, &key, &value))
        destroy(value);
    g_hash_table_destroy(timers);
}
