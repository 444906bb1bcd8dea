#include "emu/kernel/sched.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/task.h"
#include "emu/parse.h"

#define NS 1000000000ll
#define SLICE_DEFAULT_NS (10 * 1000000ll)
/* A host thread runs Unicorn's translator and the emulated kernel: it
 * needs a real stack, not the 8 MiB a default thread reserves. */
#define TASK_STACK_SIZE (1024 * 1024)
/* The host signal that interrupts a task's poll() or blocking host call
 * (emu/kernel/async.c installs its handler, which does nothing). */
#define WAKE_SIGNAL SIGURG

static struct {
    GMutex lock;
    struct task *running; /* holds the CPU; NULL: idle */
    GQueue runq;          /* struct task *, waiting for the CPU */
    GQueue sleepers;      /* struct task *, in sched_sleep() */
    int64_t turn_start;   /* monotonic, when `running` got the CPU */
    int64_t turn_cpu;     /* process CPU time then */
    uint64_t turn_left;   /* SCHED_POLICY_RR: instructions left in this turn */
    atomic_bool need_resched; /* read without the lock by the running task */
    uint64_t switches;
    unsigned tasks_made;  /* for each task's park_slot */
    struct sched_config cfg;
    /* SCHED_POLICY_PARALLEL */
    GQueue in_guest;      /* struct task *, running guest code */
    GQueue wake_later;    /* struct task *, sleepers woken while the kernel
                           * lock was held: signalled at its release */
    GCond left_guest;     /* one of them stopped: for mm_stop_others() */
    GCond guest_free;     /* an mm's guest code may run again (code_writable) */
} sched_state = { .cfg = { SCHED_POLICY_SLICE, SLICE_DEFAULT_NS, 0 } };

static char *opt_sched;

static gboolean parse_sched(const char *name, const char *value, gpointer data, GError **error)
{
    (void)name, (void)data;
    g_auto(GStrv) parts = g_strsplit(value, ":", 2);
    err_t e = OK;
    if (!strcmp(parts[0], "slice")) {
        sched_state.cfg.policy = SCHED_POLICY_SLICE;
        uint64_t ms = 10;
        if (parts[1] && !(e = parse_number("sched", parts[1], false, &ms)) &&
            (ms == 0 || ms > 1000))
            e = err_new("--sched=slice:MS takes 1 to 1000 milliseconds");
        sched_state.cfg.slice_ns = (int64_t)ms * 1000000;
    } else if (!strcmp(parts[0], "parallel") && !parts[1]) {
        sched_state.cfg.policy = SCHED_POLICY_PARALLEL;
    } else if (!strcmp(parts[0], "rr")) {
        sched_state.cfg.policy = SCHED_POLICY_RR;
        uint64_t n = 0;
        if (!parts[1])
            e = err_new("--sched=rr:N needs N, the guest instructions of a turn");
        else if (!(e = parse_number("sched", parts[1], true, &n)) && n == 0)
            e = err_new("--sched=rr:N: N must be positive");
        sched_state.cfg.rr_insns = n;
    } else
        e = err_new("--sched must be slice[:MS], rr:N or parallel, not '%s'", value);
    if (!e) {
        opt_sched = g_strdup(value);
        return TRUE;
    }
    g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, e);
    err_free(e);
    return FALSE;
}

static const GOptionEntry entries[] = {
    { "sched", 0, 0, G_OPTION_ARG_CALLBACK, (void *)parse_sched,
      "How guest tasks share the CPU: slice[:MS] (preempted after MS milliseconds, default "
      "10), rr:N (each runs N guest instructions in turn: one reproducible interleaving) or "
      "parallel (each task on an engine of its own, on the host's cores at once)",
      "POLICY" },
    { NULL },
};

GOptionGroup *sched_option_group(void)
{
    /* The default policy, for running a whole test suite under another
     * (--sched, when given, still decides). */
    const char *env = g_getenv("SECCOMP_EMU_SCHED");
    GError *error = NULL;
    if (env && !parse_sched("--sched", env, NULL, &error)) {
        fprintf(stderr, "seccomp-emu: SECCOMP_EMU_SCHED: %s\n", error->message);
        exit(2);
    }
    GOptionGroup *g = g_option_group_new("sched", "Scheduling of guest threads and processes:",
                                         "Show the scheduling options", NULL, NULL);
    g_option_group_add_entries(g, entries);
    return g;
}

const struct sched_config *sched_config(void) { return &sched_state.cfg; }

static int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * NS + ts.tv_nsec;
}

static int64_t thread_cputime(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return ts.tv_sec * NS + ts.tv_nsec;
}

static int64_t process_cputime(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return ts.tv_sec * NS + ts.tv_nsec;
}

void sched_lock(void) { g_mutex_lock(&sched_state.lock); }
void sched_unlock(void) { g_mutex_unlock(&sched_state.lock); }

/* ---- handing the CPU over (the lock held) ---- */

static void enqueue(struct task *t)
{
    if (t->se.on_runq || sched_state.running == t)
        return;
    t->se.on_runq = true;
    g_queue_push_tail(&sched_state.runq, t);
}

bool sched_parallel(void) { return sched_state.cfg.policy == SCHED_POLICY_PARALLEL; }

/* The CPU time since the turn began goes to the task that had the CPU
 * and its process (only it ran guest code meanwhile).  In parallel, each
 * task's own host thread's time since it was last charged: called by
 * the task itself. */
static void charge(struct task *t)
{
    if (sched_parallel()) {
        int64_t now = thread_cputime(), used = now - t->se.cpu_mark;
        t->se.cpu_mark = now;
        if (used > 0) {
            t->cputime_ns += used;
            if (t->group)
                t->group->cputime_ns += used;
        }
        return;
    }
    int64_t now = process_cputime(), used = now - sched_state.turn_cpu;
    sched_state.turn_cpu = now;
    if (!t || used <= 0)
        return;
    t->cputime_ns += used;
    if (t->group)
        t->group->cputime_ns += used;
}

/* In parallel, charged at most each millisecond: the thread's CPU clock
 * is a host system call where the vDSO does not serve it. */
static void charge_now_and_then(struct task *t)
{
    int64_t now = mono_now();
    if (now - t->se.charged_at >= 1000000) {
        charge(t);
        t->se.charged_at = now;
    }
}

/* ---- parallel: parking sleepers ---- */

/* Under --sched=parallel a task asleep in sched_sleep() (without host
 * descriptors) parks on a host futex word shared with other tasks, each
 * waiting for a bit of its own (FUTEX_WAIT_BITSET), rather than on its
 * condition variable: then the wake-ups made while the kernel lock was
 * held (a guest FUTEX_WAKE of a barrier's three waiters) cost one host
 * call at the lock's release, as the guest's one call costs natively,
 * not one each.  Each of those is a host system call of its own, made in
 * turn, and the tasks woken start late by as much: natively, a barrier
 * of four threads that wakes its three waiters one call each took 1.2 to
 * 2 times as long here (docs/performance.md).  The n-th task made parks on word
 * (n / 32) % 16 for bit n % 32: of 512 tasks in a row no two share a
 * (word, bit) pair, and a wake scans only the host waiters of its words.
 *
 * The word is a sequence, bumped before each wake of it: a sleeper reads
 * it under the scheduler's mutex, after finding `woken` false there, and
 * its host wait returns at once if a waker bumped it since, so no wake-up
 * is lost between the mutex's release and the host wait.  Spurious
 * returns (another bit's wake-up, WAKE_SIGNAL) only make sched_sleep()
 * look at `woken` again.  Elsewhere (no host futex) the condition
 * variable, with one signal per task. */
#ifdef __linux__
#define HAVE_PARK 1
#define PARK_WORDS 16
static atomic_uint park_seq[PARK_WORDS];

static unsigned park_word(const struct task *t) { return (t->se.park_slot >> 5) % PARK_WORDS; }
static uint32_t park_bit(const struct task *t) { return 1u << (t->se.park_slot & 31); }

/* Called with the scheduler's mutex held, which it lets go meanwhile. */
static void park(struct task *t, int64_t deadline_ns)
{
    atomic_uint *w = &park_seq[park_word(t)];
    unsigned seq = atomic_load(w);
    struct timespec ts, *tsp = NULL;
    if (deadline_ns >= 0) {
        /* FUTEX_WAIT_BITSET's timeout is absolute, on CLOCK_MONOTONIC */
        ts.tv_sec = deadline_ns / NS;
        ts.tv_nsec = deadline_ns % NS;
        tsp = &ts;
    }
    sched_unlock();
    (void)syscall(SYS_futex, (void *)w, FUTEX_WAIT_BITSET_PRIVATE, seq, tsp, NULL, park_bit(t));
    sched_lock();
}

/* Wake the parked tasks whose bits `bits` holds, word by word. */
static void unpark(const uint32_t bits[PARK_WORDS])
{
    for (int i = 0; i < PARK_WORDS; i++) {
        if (!bits[i])
            continue;
        atomic_fetch_add(&park_seq[i], 1);
        (void)syscall(SYS_futex, (void *)&park_seq[i], FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL,
                      NULL, bits[i]);
    }
}
#endif

/* A sleeper in sched_sleep() woken (parallel): see park(). */
static void wake_sleeper(struct task *t)
{
#ifdef HAVE_PARK
    uint32_t bits[PARK_WORDS] = { 0 };
    bits[park_word(t)] = park_bit(t);
    unpark(bits);
#else
    g_cond_signal(&t->se.cond);
#endif
}

/* The sleepers woken while the kernel lock was held, signalled at its
 * release: by sched_kernel_leave() once it has let go of the scheduler's
 * mutex too (signalled under the mutex, each would wake only to wait for
 * it), by the rarer releases in dispatch() under it.  A reference keeps
 * each task until then (one whose deadline came may run on). */
static void take_woken(GQueue *out)
{
    struct task *woken;
    while ((woken = g_queue_pop_head(&sched_state.wake_later))) {
        woken->se.wake_later = false;
        g_queue_push_tail(out, task_get(woken));
    }
}

static void signal_woken(GQueue *woken)
{
    struct task *t;
#ifdef HAVE_PARK
    /* all with one host call (per word): see park() */
    uint32_t bits[PARK_WORDS] = { 0 };
    bool any = false;
    while ((t = g_queue_pop_head(woken))) {
        bits[park_word(t)] |= park_bit(t);
        any = true;
        task_put(t);
    }
    if (any)
        unpark(bits);
#else
    while ((t = g_queue_pop_head(woken))) {
        g_cond_signal(&t->se.cond);
        task_put(t);
    }
#endif
}

/* The CPU goes to the head of the run queue, or idles.  In parallel the
 * CPU is the kernel lock, and it is released, not handed over: the head
 * is woken to take it, and a task that comes back into the kernel first
 * takes it instead (wait_turn).  Handing a lock held this briefly to a
 * sleeping thread makes every release a host context switch, and tasks
 * that enter the kernel often (futex traffic) queue up behind the one
 * being woken.  A head already woken is not woken again: each signal is
 * a host system call.  So are the wake-ups of sleepers made while the
 * lock was held (wake_locked): now they can take it without waiting. */
static void dispatch(void)
{
    if (sched_parallel()) {
        sched_state.running = NULL;
        GQueue woken = G_QUEUE_INIT;
        take_woken(&woken);
        signal_woken(&woken);
        struct task *head = g_queue_peek_head(&sched_state.runq);
        if (head && head->se.lock_waiting && !head->se.lock_signalled) {
            head->se.lock_signalled = true;
            g_cond_signal(&head->se.cond);
        }
        return;
    }
    struct task *next = g_queue_pop_head(&sched_state.runq);
    sched_state.running = next;
    sched_state.need_resched = false;
    if (!next)
        return;
    next->se.on_runq = false;
    sched_state.turn_start = mono_now();
    sched_state.turn_left = sched_state.cfg.rr_insns;
    g_cond_signal(&next->se.cond);
}

/* Wait for the CPU; the caller is queued or about to be given it. */
static void wait_turn(struct task *t)
{
    if (sched_parallel()) {
        while (sched_state.running && sched_state.running != t) {
            enqueue(t);
            t->se.lock_waiting = true;
            g_cond_wait(&t->se.cond, &sched_state.lock);
            t->se.lock_waiting = t->se.lock_signalled = false;
        }
        if (t->se.on_runq) {
            g_queue_remove(&sched_state.runq, t);
            t->se.on_runq = false;
        }
        sched_state.running = t;
        return;
    }
    if (sched_state.running != t)
        enqueue(t);
    if (!sched_state.running) {
        sched_state.turn_cpu = process_cputime(); /* the CPU was idle */
        dispatch();
    }
    while (sched_state.running != t)
        g_cond_wait(&t->se.cond, &sched_state.lock);
}

/* Load the task's registers into its engine if another task's are there
 * (the CPU held). */
static void switch_to(struct task *t)
{
    struct cpu *c = t->cpu;
    if (!c || c->current == t)
        return;
    struct task *prev = c->current;
    if (prev) {
        /* The engine's state is plain data: a failure here could only be
         * out of memory, which glib's allocator does not return. */
        if (!prev->se.regs && uc_context_alloc(c->uc, &prev->se.regs) != UC_ERR_OK)
            g_error("seccomp-emu: cannot save a task's registers");
        (void)uc_context_save(c->uc, prev->se.regs);
    }
    if (t->se.regs)
        (void)uc_context_restore(c->uc, t->se.regs);
    c->current = t;
    /* CR4.TSD is the task's (__switch_to's TIF_NOTSC): a strict thread's
     * rdtsc faults, its non-strict siblings' runs. */
    cpu_set_tsc_off(c, t->tsc_off);
    cpu_load_tls(c, GDT_ENTRY_TLS_MIN_LINUX, GDT_ENTRY_TLS_ENTRIES_LINUX, t->tls);
    cpu_reload_tls_segments(c);
    /* The registers held the LDTR of when they were saved; the table is
     * the address space's, and may have changed since (switch_ldt()), as
     * may what DS and ES name in it. */
    cpu_load_ldt(c);
    cpu_refresh_ldt_segments(c);
    sched_state.switches++;
}

/* ---- parallel: the kernel lock ---- */

/* Is the caller t's own host thread? */
static bool on_own_thread(const struct task *t)
{
    return t->se.has_thread && pthread_equal(t->se.thread, pthread_self());
}

/* Make a task running guest code come into the kernel: stop its engine
 * (the lock held).  A stop that lands before the engine starts is lost
 * (uc_emu_start clears it), so `kicked` stays set until the task is in,
 * and the timer thread repeats the stop each millisecond (sched_tick). */
static void kick_locked(struct task *t)
{
    t->se.kicked = true;
    if (t->cpu && t->cpu->uc)
        (void)uc_ctl_stop_async(t->cpu->uc);
}

void sched_hook_enter(struct task *t)
{
    if (!sched_parallel())
        return;
    /* Not a running engine of its group while it waits here: another
     * engine's exclusive step would wait for it, and it for the lock that
     * engine's task may be waiting to take (uc_ctl_parallel_idle). */
    (void)uc_ctl_parallel_idle(t->cpu->uc, 1);
    sched_kernel_enter(t);
}

void sched_hook_leave(struct task *t)
{
    if (!sched_parallel())
        return;
    sched_kernel_leave(t);
    (void)uc_ctl_parallel_idle(t->cpu->uc, 0);
}

/* Code that a guest store can change runs on one engine of its mm at a
 * time: the engines translate apart, and an engine sees only its own
 * stores to code it translated.  One that takes over from another drops
 * its translations of such code first.  Called with the lock held, and
 * the kernel lock already given away. */
static void take_guest_code(struct task *t)
{
    struct mm *mm = t->mm;
    while (mm->stopping || (mm->guest_owner && mm->guest_owner != t))
        g_cond_wait(&sched_state.guest_free, &sched_state.lock);
    if (!mm->code_writable || mm->engines->len < 2)
        return;
    mm->guest_owner = t;
    if (mm->last_guest_engine != t->cpu) {
        mm_drop_writable_code(mm, t->cpu->uc);
        mm->last_guest_engine = t->cpu;
    }
}

void sched_kernel_leave(struct task *t)
{
    if (!sched_parallel())
        return;
    GQueue woken = G_QUEUE_INIT;
    sched_lock();
    take_woken(&woken);
    sched_state.running = NULL;
    dispatch();
    take_guest_code(t);
    t->se.in_guest = true;
    t->se.guest_since = mono_now();
    g_queue_push_tail(&sched_state.in_guest, t);
    t->mm->in_guest++;
    /* Asked to stop while it was in the kernel or waited to enter it (a
     * signal, a group exit): a hook's task stops after the hook, as the
     * holder that sends itself a signal does.  A stop made before the
     * engine starts is lost, so `kicked` stays set for the timer thread
     * to repeat it. */
    if (t->se.kicked)
        uc_emu_stop(t->cpu->uc);
    sched_unlock();
    signal_woken(&woken);
}

void sched_kernel_enter(struct task *t)
{
    if (!sched_parallel())
        return;
    sched_lock();
    t->se.in_guest = false;
    t->se.kicked = false;
    g_queue_remove(&sched_state.in_guest, t);
    if (--t->mm->in_guest == 0 && t->mm->stopping)
        g_cond_broadcast(&sched_state.left_guest);
    if (t->mm->guest_owner == t) {
        t->mm->guest_owner = NULL;
        g_cond_broadcast(&sched_state.guest_free);
    }
    wait_turn(t);
    charge_now_and_then(t);
    sched_unlock();
}

/* mm_stop_hook: the holder is about to change the table of `mm` or its
 * engines' maps.  Every other engine of the mm leaves guest code first
 * (its task waits at the kernel lock, which the holder keeps) and none
 * goes back before the change is done: a TLB fill, which reads the table
 * from guest code, never meets it half-made, and no engine runs while
 * another thread changes its regions. */
static void mm_stop_others(struct mm *mm, bool stop)
{
    if (!sched_parallel())
        return;
    sched_lock();
    if (!stop) {
        if (--mm->stopping == 0) {
            mm->code_writable = mm_code_writable(mm);
            g_cond_broadcast(&sched_state.guest_free);
        }
        sched_unlock();
        return;
    }
    /* Only the kernel lock's holder may change an mm: from guest code
     * (a hook that did not take the lock) it would wait for itself. */
    struct task *holder = sched_state.running;
    if (!holder || !on_own_thread(holder)) {
        g_critical("seccomp-emu: an address space changed outside the kernel lock");
        mm->stopping++;
        sched_unlock();
        return;
    }
    if (mm->stopping++ == 0) {
        while (mm->in_guest > 0) {
            for (GList *l = sched_state.in_guest.head; l; l = l->next) {
                struct task *o = l->data;
                if (o->mm == mm)
                    kick_locked(o);
            }
            /* Re-kicked each millisecond: see kick_locked(). */
            gint64 until = g_get_monotonic_time() + 1000;
            (void)g_cond_wait_until(&sched_state.left_guest, &sched_state.lock, until);
        }
    }
    sched_unlock();
}

/* ---- tasks ---- */

static unsigned host_cpus = 1;

unsigned sched_host_cpus(void) { return host_cpus; }

void sched_init(struct task *first)
{
    /* Read now: glibc asks /sys, which Landlock and the self-sandbox
     * later refuse (and it would answer 1 then). */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    host_cpus = n < 1 ? 1 : n > 64 ? 64 : (unsigned)n;
    g_mutex_init(&sched_state.lock);
    g_queue_init(&sched_state.runq);
    g_queue_init(&sched_state.sleepers);
    g_queue_init(&sched_state.in_guest);
    g_queue_init(&sched_state.wake_later);
    g_cond_init(&sched_state.left_guest);
    g_cond_init(&sched_state.guest_free);
    mm_stop_hook = mm_stop_others;
    mm_first_writes_seen(!sched_parallel());
    g_cond_init(&first->se.cond);
    first->se.park_slot = sched_state.tasks_made++;
    first->se.cpu_mark = thread_cputime();
    first->se.thread = pthread_self();
    first->se.has_thread = true;
    sched_state.running = first;
    sched_state.turn_start = mono_now();
    sched_state.turn_cpu = process_cputime();
    sched_state.turn_left = sched_state.cfg.rr_insns;
}

static void *task_thread(void *arg)
{
    struct task *t = arg;
    /* Host signals are the main thread's (async.c); the one that
     * interrupts a blocked call is every task thread's, and so are the
     * faults of the thread's own engine (emu/engine/hostfault.h): a
     * synchronous SIGSEGV that finds itself blocked kills the process. */
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, WAKE_SIGNAL);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    sched_lock();
    wait_turn(t);
    sched_unlock();
    switch_to(t);
    t->se.body(t);
    return NULL;
}

int sched_spawn(struct task *t, void (*body)(struct task *t))
{
    g_cond_init(&t->se.cond);
    t->se.body = body;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, TASK_STACK_SIZE);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sched_lock();
    t->se.park_slot = sched_state.tasks_made++;
    /* Queued before the thread exists: the order of the run queue is the
     * order of the clones, whatever the host does first. */
    enqueue(t);
    int r = pthread_create(&t->se.thread, &attr, task_thread, t);
    if (r == 0)
        t->se.has_thread = true;
    else {
        g_queue_remove(&sched_state.runq, t);
        t->se.on_runq = false;
    }
    sched_unlock();
    pthread_attr_destroy(&attr);
    return r == 0 ? 0 : -EAGAIN_LINUX;
}

#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
#define HAVE_PPOLL 1
#endif

/* Poll the task's host descriptors without the CPU until one is ready, the
 * deadline passes or a wake-up interrupts it. */
static void poll_host(struct task *t, int64_t deadline_ns, struct pollfd *fds, int nfds)
{
#ifdef HAVE_PPOLL
    /* The wake signal is blocked from before the check of `woken` (under
     * the lock) until ppoll() unblocks it atomically: none is lost. */
    sigset_t block, during;
    sigemptyset(&block);
    sigaddset(&block, WAKE_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &block, &during);
    sigdelset(&during, WAKE_SIGNAL);
    sched_lock();
    bool go = !t->se.woken;
    t->se.polling = go;
    sched_unlock();
    if (go) {
        struct timespec ts, *tsp = NULL;
        if (deadline_ns >= 0) {
            int64_t rest = MAX(deadline_ns - mono_now(), 0);
            ts.tv_sec = rest / NS;
            ts.tv_nsec = rest % NS;
            tsp = &ts;
        }
        (void)ppoll(fds, (nfds_t)nfds, tsp, &during);
    }
    sched_lock();
    t->se.polling = false;
    sched_unlock();
    pthread_sigmask(SIG_UNBLOCK, &block, NULL);
#else
    /* No atomic unblock-and-wait (macOS): a wake-up that lands between the
     * check and poll() is seen at the next 10 ms round at the latest. */
    for (;;) {
        sched_lock();
        bool woken = t->se.woken;
        t->se.polling = !woken;
        sched_unlock();
        if (woken)
            break;
        int ms = 10;
        if (deadline_ns >= 0) {
            int64_t rest = deadline_ns - mono_now();
            if (rest <= 0)
                break;
            ms = (int)MIN(ms, (rest + 999999) / 1000000);
        }
        int n = poll(fds, (nfds_t)nfds, ms);
        if (n != 0)
            break;
    }
    sched_lock();
    t->se.polling = false;
    sched_unlock();
#endif
}

void sched_prepare(struct task *t)
{
    sched_lock();
    t->se.woken = false;
    sched_unlock();
}

void sched_sleep(struct task *t, int64_t deadline_ns, void *pollfds, int nfds)
{
    sched_lock();
    if (t->se.woken) {
        t->se.woken = false;
        sched_unlock();
        return;
    }
    t->se.sleeping = true;
    g_queue_push_tail(&sched_state.sleepers, t);
    if (sched_parallel())
        charge_now_and_then(t);
    else
        charge(t);
    sched_state.running = NULL;
    dispatch();
    if (nfds > 0) {
        sched_unlock();
        poll_host(t, deadline_ns, pollfds, nfds);
        sched_lock();
    } else {
        while (!t->se.woken) {
#ifdef HAVE_PARK
            if (sched_parallel()) {
                if (deadline_ns >= 0 && deadline_ns <= mono_now())
                    break;
                park(t, deadline_ns);
                continue;
            }
#endif
            if (deadline_ns < 0) {
                g_cond_wait(&t->se.cond, &sched_state.lock);
                continue;
            }
            int64_t rest = deadline_ns - mono_now();
            if (rest <= 0)
                break;
            /* g_cond_wait_until is on g_get_monotonic_time()'s clock (us),
             * CLOCK_MONOTONIC everywhere GLib runs. */
            gint64 until = g_get_monotonic_time() + (rest + 999) / 1000;
            (void)g_cond_wait_until(&t->se.cond, &sched_state.lock, until);
        }
    }
    t->se.sleeping = false;
    g_queue_remove(&sched_state.sleepers, t);
    if (t->se.wake_later) { /* its deadline came first */
        g_queue_remove(&sched_state.wake_later, t);
        t->se.wake_later = false;
    }
    t->se.woken = false;
    wait_turn(t);
    sched_unlock();
    switch_to(t);
}

static void wake_locked(struct task *t)
{
    t->se.woken = true;
    /* In parallel, one running guest code, or on its way into the
     * kernel, looks at its signals at its next stop, made now. */
    if (sched_parallel() && !t->se.sleeping && sched_state.running != t)
        kick_locked(t);
    if (t->se.sleeping && sched_parallel()) {
        /* It takes the kernel lock itself (wait_turn): woken while another
         * holds it, it would only wait for that one, so it is woken when the
         * holder lets go (dispatch). */
        if (!sched_state.running)
            wake_sleeper(t);
        else if (!t->se.wake_later) {
            t->se.wake_later = true;
            g_queue_push_tail(&sched_state.wake_later, t);
        }
    } else if (t->se.sleeping) {
        /* Queued, it is signalled when the CPU is its: a signal now would
         * only wake it to wait again for the holder. */
        enqueue(t);
        if (!sched_state.running) {
            sched_state.turn_cpu = process_cputime(); /* the CPU was idle */
            dispatch();
        }
    }
    if (t->se.sleeping && t->se.polling && t->se.has_thread)
        pthread_kill(t->se.thread, WAKE_SIGNAL);
}

bool sched_task_sleeping(const struct task *t, bool *uninterruptible)
{
    sched_lock();
    bool sleeping = t->se.sleeping;
    *uninterruptible = t->se.uninterruptible;
    sched_unlock();
    return sleeping;
}

void sched_wake(struct task *t)
{
    sched_lock();
    wake_locked(t);
    sched_unlock();
}

void sched_yield_cpu(struct task *t)
{
    sched_lock();
    if (g_queue_is_empty(&sched_state.runq)) {
        /* Nobody waits: a new turn, on the spot. */
        sched_state.need_resched = false;
        sched_state.turn_start = mono_now();
        sched_state.turn_left = sched_state.cfg.rr_insns;
        sched_unlock();
        return;
    }
    charge(t);
    sched_state.running = NULL;
    enqueue(t);
    dispatch();
    wait_turn(t);
    sched_unlock();
    switch_to(t);
}

void sched_preempt_soon(void)
{
    sched_lock();
    if (!g_queue_is_empty(&sched_state.runq))
        sched_state.need_resched = true;
    sched_unlock();
}

void sched_exit(struct task *t)
{
    sched_lock();
    if (t->cpu && t->cpu->current == t)
        t->cpu->current = NULL;
    if (sched_state.running == t) {
        charge(t);
        sched_state.running = NULL;
        dispatch();
    }
    sched_unlock();
}

void sched_kick(void)
{
    sched_lock();
    if (sched_parallel() && !g_queue_is_empty(&sched_state.in_guest)) {
        for (GList *l = sched_state.in_guest.head; l; l = l->next)
            kick_locked(l->data);
        sched_unlock();
        return;
    }
    struct task *t = sched_state.running;
    if (t && t->cpu && t->cpu->uc)
        (void)uc_ctl_stop_async(t->cpu->uc);
    else if (!t && !g_queue_is_empty(&sched_state.sleepers))
        wake_locked(g_queue_peek_head(&sched_state.sleepers));
    sched_unlock();
}

bool sched_need_resched(void)
{
    return sched_state.need_resched;
}

struct task *sched_current(void) { return sched_state.running; }

int sched_tick(void)
{
    int wait = 1000;
    sched_lock();
    if (sched_parallel()) {
        /* Each task in guest code comes into the kernel once a slice (its
         * CPU time is charged there, for the timers and limits that read
         * it), and at once when kicked. */
        int64_t now = mono_now();
        for (GList *l = sched_state.in_guest.head; l; l = l->next) {
            struct task *o = l->data;
            int64_t used = now - o->se.guest_since;
            if (o->se.kicked || used >= sched_state.cfg.slice_ns) {
                kick_locked(o);
                wait = 1;
            } else
                wait = (int)MIN(wait, MAX(1, (sched_state.cfg.slice_ns - used + 999999) / 1000000));
        }
        sched_unlock();
        return wait;
    }
    struct task *t = sched_state.running;
    if (t && sched_state.cfg.policy == SCHED_POLICY_SLICE && !g_queue_is_empty(&sched_state.runq)) {
        int64_t used = mono_now() - sched_state.turn_start;
        if (used >= sched_state.cfg.slice_ns) {
            sched_state.need_resched = true;
            /* Repeated each millisecond until the holder yields: a stop
             * that lands between two engine runs is lost. */
            if (t->cpu && t->cpu->uc)
                (void)uc_ctl_stop_async(t->cpu->uc);
            wait = 1;
        } else
            wait = (int)MAX(1, (sched_state.cfg.slice_ns - used + 999999) / 1000000);
    }
    sched_unlock();
    return wait;
}

uint64_t sched_turn_left(void)
{
    return sched_state.cfg.policy == SCHED_POLICY_RR ? sched_state.turn_left : UINT64_MAX;
}

void sched_account_insns(uint64_t n)
{
    if (sched_state.cfg.policy != SCHED_POLICY_RR)
        return;
    sched_state.turn_left = n >= sched_state.turn_left ? 0 : sched_state.turn_left - n;
    if (sched_state.turn_left == 0)
        sched_state.need_resched = true;
}

void sched_end_turn(void)
{
    if (sched_state.cfg.policy != SCHED_POLICY_RR)
        return;
    sched_state.turn_left = 0;
    sched_state.need_resched = true;
}

uint64_t sched_switches(void) { return sched_state.switches; }

int64_t sched_group_cputime(struct thread_group *g)
{
    sched_lock();
    int64_t n = g->cputime_ns;
    struct task *r = sched_state.running;
    if (r && r->group == g && !sched_parallel())
        n += process_cputime() - sched_state.turn_cpu;
    sched_unlock();
    return n;
}

int64_t sched_task_cputime(struct task *t)
{
    sched_lock();
    if (sched_parallel() && on_own_thread(t))
        charge(t);
    int64_t n = t->cputime_ns;
    if (sched_state.running == t && !sched_parallel())
        n += process_cputime() - sched_state.turn_cpu;
    sched_unlock();
    return n;
}
