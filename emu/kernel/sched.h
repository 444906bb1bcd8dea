/* The scheduler: which guest task holds the CPU.
 *
 * Every guest task runs on a host thread of its own, and one lock, "the
 * CPU", lets only one of them run guest code or touch the emulated
 * kernel's state at a time (a big kernel lock).  The lock is handed over
 * explicitly, never raced for: the holder gives it to the head of a FIFO
 * run queue when it blocks (wait.c), exits, or is preempted, and wakers
 * (who hold it) put the tasks they wake at the tail.  So the order in
 * which tasks run depends only on the guest and on the preemption points:
 *
 *   --sched=slice[:MS]  (default, 10 ms) the timer thread stops the engine
 *                       once the holder has run a time slice while
 *                       another task is runnable;
 *   --sched=rr:N        each task runs N guest instructions (counted as
 *                       --max-insns counts them) and then yields: with
 *                       guest-only synchronisation, one reproducible
 *                       interleaving for differential tests.
 *
 * A task that gets the CPU and finds another task's registers in its
 * engine switches them (Unicorn's context save/restore) and reloads its
 * TLS descriptors into the GDT, as Linux's __switch_to and load_TLS do. */
#ifndef EMU_SCHED_H
#define EMU_SCHED_H

#include <glib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "emu/status.h"

struct task;
struct thread_group;

/* A task's part of the scheduler's state, embedded in struct task and
 * protected by the scheduler's lock. */
struct sched_entity {
    pthread_t thread;
    bool has_thread;
    GCond cond;        /* its turn has come, or it was woken */
    bool on_runq;
    bool sleeping;     /* in sched_sleep(), not runnable */
    bool uninterruptible; /* ... in a wait no signal ends (TASK_KILLABLE: 'D') */
    bool woken;        /* a wake-up came since its last sleep began */
    bool polling;      /* sleeping in poll(): a wake-up interrupts it */
    uc_context *regs;  /* its registers while another task's are loaded */
    void (*body)(struct task *t);
    /* --sched=parallel */
    bool in_guest;     /* running guest code, outside the kernel lock */
    bool kicked;       /* ... and asked to come into the kernel */
    bool lock_waiting;   /* waiting for the kernel lock (wait_turn) */
    bool lock_signalled; /* ... and woken to take it: not woken twice */
    bool wake_later;     /* on the list of sleepers woken at the lock's release */
    int64_t charged_at; /* monotonic, when its CPU time was last charged */
    int64_t guest_since; /* monotonic, when it last left the kernel */
    int64_t cpu_mark;  /* its host thread's CPU time when last charged */
    unsigned park_slot; /* its word and bit where it parks (sched.c, park()) */
};

enum sched_policy {
    SCHED_POLICY_SLICE, /* time slices, preempted by the timer thread */
    SCHED_POLICY_RR,    /* a fixed count of guest instructions per turn */
    SCHED_POLICY_PARALLEL, /* every task on an engine of its own, at once */
};

struct sched_config {
    enum sched_policy policy;
    int64_t slice_ns;  /* SCHED_POLICY_SLICE */
    uint64_t rr_insns; /* SCHED_POLICY_RR */
};

/* --sched */
GOptionGroup *sched_option_group(void);
const struct sched_config *sched_config(void);

/* --sched=parallel: tasks run guest code at the same time, each on an
 * engine of its own (those of one mm in one Unicorn parallel group), and
 * "the CPU" above is only the kernel lock: a task holds it while it is in
 * the emulated kernel (a call, a fault, a signal's delivery), never while
 * it runs guest code.  sched_kernel_leave() before each engine start and
 * sched_kernel_enter() after it, and around each hook that acts as the
 * kernel; no-ops under the other policies, where the holder runs guest
 * code too. */
bool sched_parallel(void);
void sched_kernel_enter(struct task *t);
void sched_kernel_leave(struct task *t);
/* The same from a hook, inside the engine, which meanwhile steps out of
 * its group's running engines. */
void sched_hook_enter(struct task *t);
void sched_hook_leave(struct task *t);

/* The guest's first task takes the CPU on the calling thread (main). */
void sched_init(struct task *first);

/* Start a new task on a host thread of its own; `body` runs there once
 * the task first holds the CPU.  -EAGAIN_LINUX when the host refuses a
 * thread. */
int sched_spawn(struct task *t, void (*body)(struct task *t));

/* A sleep is coming: forget earlier wake-ups.  Called before the caller
 * checks what it waits for, so that a wake-up after the check makes the
 * sleep return at once. */
void sched_prepare(struct task *t);

/* The holder blocks: give the CPU away until sched_wake() (or the
 * deadline, or a host descriptor in `fds`) wakes the task, then take it
 * back.  Returns with the CPU held and the task's registers loaded.
 * `deadline_ns` is on CLOCK_MONOTONIC (< 0: none); with fds, the host
 * poll()s them (struct pollfd) and a wake interrupts the poll. */
void sched_sleep(struct task *t, int64_t deadline_ns, void *pollfds, int nfds);

/* Is `t` asleep in sched_sleep() (and in a wait no signal ends), as
 * another task reads it: under the scheduler's lock, which sched_sleep()
 * writes it under. */
bool sched_task_sleeping(const struct task *t, bool *uninterruptible);

/* Make `t` runnable if it sleeps (a waker holds the CPU, or the timer
 * thread); a running task keeps running.  Wake-ups are never lost: one
 * that comes before the task sleeps makes its next sleep return at once. */
void sched_wake(struct task *t);

/* The holder gives the CPU to the next runnable task, if any, and waits
 * for its turn again (sched_yield(2), preemption). */
void sched_yield_cpu(struct task *t);

/* The holder woke a task that Linux would let run first (a vfork parent
 * released by exec: on Linux it runs at once, on another CPU or by wakeup
 * preemption, while the child is still starting): the holder yields at
 * its next preemption point, if anyone is runnable. */
void sched_preempt_soon(void);

/* The holder is done for good (exit): hand the CPU over, never take it
 * back.  The caller's host thread then ends. */
void sched_exit(struct task *t);

/* The timer thread posted something: stop the holder's engine, or, with
 * the CPU idle, wake a sleeping task, which takes it (async_take). */
void sched_kick(void);

/* Should the holder yield at its next stop (its slice or count is spent
 * and another task is runnable)? */
bool sched_need_resched(void);

/* The timer thread's part: preempt the holder when its slice is over;
 * returns how long it may sleep before checking again (ms). */
int sched_tick(void);

/* The holder, for the timer thread's kicks (NULL when idle). */
struct task *sched_current(void);

/* Before each engine start (SCHED_POLICY_RR): the instruction count the holder
 * may still run in this turn, UINT64_MAX when it is not counted. */
uint64_t sched_turn_left(void);
/* After each engine stop: the holder ran `n` guest instructions. */
void sched_account_insns(uint64_t n);

/* SCHED_RR: the next block does not fit in what the turn has left: the
 * turn ends here. */
void sched_end_turn(void);

/* CPU time (ns) of a process (all its threads) and of one task: charged
 * each time a task gives up the CPU, plus the turn of the one on it. */
int64_t sched_group_cputime(struct thread_group *g);
int64_t sched_task_cputime(struct task *t);

/* The host's online CPUs (1 to 64), which sched_getaffinity shows. */
unsigned sched_host_cpus(void);

/* Context switches so far (a bench and trace figure). */
uint64_t sched_switches(void);

/* Run `fn` with the scheduler's own lock held: for state read by host
 * threads that do not hold the CPU (the timer thread). */
void sched_lock(void);
void sched_unlock(void);

#endif
