/* Everything that happens to the guest from outside its own instruction
 * stream: interval timers (alarm, setitimer), CPU-time and wall-clock
 * limits, and the host signals seccomp-emu forwards (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT).  A timer thread watches the clocks and stops the
 * engine with uc_emu_stop(), so a guest spinning without system calls
 * still gets its signal within a millisecond or two; no per-instruction
 * hook is involved.  Blocking reads and writes are interrupted by a host
 * signal to the main thread, sleeps wait with poll() on a wake-up pipe,
 * so that they give way to a signal the guest must see. */
#ifndef EMU_ASYNC_H
#define EMU_ASYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

struct task;
struct thread_group;

/* A process's timers, kept by the timer thread (its signal_struct's
 * itimers and RLIMIT_CPU): ITIMER_REAL on the monotonic clock, the
 * others and the CPU limit on the process's CPU time (emu/kernel/sched.c
 * accounts it).  Embedded in struct thread_group; the lock is
 * async.c's. */
struct group_timers {
    bool listed;                  /* on the timer thread's list */
    int64_t real_at, real_every;  /* monotonic deadline */
    int64_t virt_at, virt_every;  /* CPU time */
    int64_t prof_at, prof_every;
    int64_t cpu_soft, cpu_hard;   /* CPU time, 0: none */
    _Atomic uint64_t posted;      /* its signals, waiting for async_take */
    _Atomic bool kill_cpu;        /* RLIMIT_CPU's hard limit reached */
    _Atomic uint64_t cpu_soft_now; /* the soft limit after a SIGXCPU */
    char cpu_hard_reason[96];
};

err_t async_start(struct task *t);

/* Last before the guest runs: from here the host signals above reach the
 * guest.  Until then they keep their host actions, so that a SIGTERM or
 * Ctrl-C during set-up (reading the inputs, loading the program) ends
 * seccomp-emu as it would end the process natively during execve. */
err_t async_forward_signals(struct task *t);

/* seccomp-emu's own handler for host signal `sig` (`name` for the error),
 * unblocked in the calling thread; SIG_DFL or SIG_IGN just set.  The
 * timer thread's interrupt and the set-up alarm (limits.c) use it. */
err_t async_host_handler(int sig, const char *name, void (*handler)(int));

/* The task holding the CPU, its engine stopped or inside a hook: turn
 * what was posted, for any process, into guest signals (or a limit's
 * SIGKILL). */
void async_take(struct task *t);

/* Process g has ended: its timers go. */
void async_group_gone(struct thread_group *g);

/* The guest's action or mask of a job-control signal (SIGTSTP, SIGTTIN,
 * SIGTTOU, SIGCONT) may have changed: make the host's disposition follow,
 * so that a stop sent to seccomp-emu stops it as it would stop the guest
 * natively, and a guest handler hears of it.  Cheap when nothing changed. */
err_t async_job_control(struct task *t);

/* Ask for another engine stop soon (the signal could not be delivered at
 * this stop). */
void async_rekick(void);

/* Around a host read or write on fd that may block: begin answers false
 * when a signal the guest must see is already there and the call would
 * wait (the call is not made); while the call runs, the timer thread
 * interrupts it (EINTR) as soon as something is posted, or while it waits
 * despite such a signal. */
bool async_io_begin(struct task *t, int fd, bool writing);
void async_io_end(void);

/* Wait until `fd` is ready (readable, or writable if `writing`; fd < 0: no
 * descriptor), `timeout_ns` passes (< 0: no timeout), or a signal becomes
 * deliverable.  Returns 1 ready, 0 timed out, -1 interrupted.  *left gets
 * the time that remained (may be NULL). */
int async_wait(struct task *t, int fd, bool writing, int64_t timeout_ns, int64_t *left);
/* The same for several host descriptors (struct pollfd, events set by the
 * caller): 1 when one of them has revents, which are filled in. */
struct pollfd;
int async_wait_fds(struct task *t, struct pollfd *fds, int nfds, int64_t timeout_ns,
                   int64_t *left);

/* Interval timers, in nanoseconds (value 0: disarmed). */
struct async_itimer {
    int64_t value, interval;
};
void async_itimer(struct thread_group *g, int which, const struct async_itimer *set,
                  struct async_itimer *old);

/* A timer the timer thread watches for another part of the emulated
 * kernel (POSIX timers): when it expires, async_take() on the main thread
 * calls `expired` with how many times it did since the last call.  `at`
 * and `every` are nanoseconds on `clock`; at 0: disarmed. */
enum async_clock {
    ASYNC_CLOCK_MONOTONIC,
    ASYNC_CLOCK_REALTIME,
    ASYNC_CLOCK_CPU, /* the guest's CPU time */
};
struct async_timer {
    enum async_clock clock;
    void (*expired)(struct async_timer *tm, uint64_t count);
    /* the timer thread's, under its lock */
    int64_t at, every;
    uint64_t fired;
    bool listed;
};
/* Arm (at > 0) or disarm it; *old_at and *old_every (may be NULL) get
 * what it was, as one atomic step against the timer thread. */
void async_timer_set(struct async_timer *tm, int64_t at, int64_t every, int64_t *old_at,
                     int64_t *old_every);
/* What it is set to now (at 0: disarmed or expired, if one-shot). */
void async_timer_get(struct async_timer *tm, int64_t *at, int64_t *every);
/* Forget it entirely (before it is freed): expirations not yet taken are
 * dropped. */
void async_timer_remove(struct async_timer *tm);
/* Now on the clock. */
int64_t async_clock_now(enum async_clock clock);

/* RLIMIT_CPU (seconds, UINT64_MAX: none): SIGXCPU at the soft limit and
 * every second after, SIGKILL at the hard one. */
void async_set_cpu_limit(struct thread_group *g, uint64_t soft, uint64_t hard);

/* Wall-clock limit from now, then SIGKILL of the first process (and so of
 * the guest) with `reason` on stderr. */
void async_set_timeout(int64_t ns, const char *reason);

#endif
