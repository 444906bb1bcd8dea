/* POSIX interval timers (kernel/time/posix-timers.c): timer_create and
 * friends, per process, with ids handed out in order from 0.  Expiry is
 * the timer thread's (emu/kernel/async.c, struct async_timer); the signal
 * is queued as send_sigqueue() queues it: once, with further expiries
 * counted in its si_overrun until it is delivered, which is what
 * timer_getoverrun() then reports. */
#ifndef EMU_KERNEL_POSIX_TIMER_H
#define EMU_KERNEL_POSIX_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* struct sigevent as the call gave it (sigev_notify_thread_id for
 * SIGEV_THREAD_ID). */
struct sigevent_k {
    uint64_t value;
    int32_t signo, notify, tid;
};

/* struct itimerspec, in nanoseconds. */
struct itimerspec_k {
    int64_t interval, value;
};

/* timer_create(): `ev` NULL for the default (SIGALRM to the process, the
 * id as value); the id is written to guest address `uid`. */
int64_t posix_timer_create(struct task *t, int clock, const struct sigevent_k *ev, uint64_t uid);
/* timer_settime(): `old` (may be NULL) gets what timer_gettime() would
 * have said. */
int64_t posix_timer_settime(struct task *t, int32_t id, int flags, const struct itimerspec_k *new_,
                            struct itimerspec_k *old);
int64_t posix_timer_gettime(struct task *t, int32_t id, struct itimerspec_k *cur);
int64_t posix_timer_getoverrun(struct task *t, int32_t id);
int64_t posix_timer_delete(struct task *t, int32_t id);

/* exit_itimers(): the process ends or execs; its timers go. */
struct thread_group;
void posix_timers_exit(struct thread_group *g);

#endif
