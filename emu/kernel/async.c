#include "emu/kernel/async.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "abi/signal_linux.h"
#include "emu/engine/host_tune.h"
#include "emu/engine/hostmem.h"
#include "emu/engine/mem.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"
#include "emu/kernel/wait.h"
#include "emu/xlat.h"

#define NS 1000000000ll
#define KICK_RETRY_MS 1 /* a stop that lands between two engine runs is lost */


/* The signals forwarded from seccomp-emu to the guest (their host numbers
 * come from emu/xlat.c). */
static const int forwarded[] = { SIGHUP_LINUX, SIGINT_LINUX, SIGQUIT_LINUX, SIGTERM_LINUX };

/* Job control: the host's own disposition of these follows the guest's
 * (async_job_control), so that the host kernel stops and continues
 * seccomp-emu by its own rules (the stop signal the parent's waitpid sees,
 * orphaned process groups, a background terminal read's EIO), and a
 * guest handler runs as natively, forwarded like the signals above. */
static const int job_control[] = { SIGTSTP_LINUX, SIGTTIN_LINUX, SIGTTOU_LINUX, SIGCONT_LINUX };
enum host_disposition { HOST_UNSET, HOST_DEFAULT, HOST_IGNORE, HOST_FORWARD };


static struct {
    struct thread_group *group; /* the first process: host signals and timers go to it */
    int wake[2]; /* something was posted (drained by async_take) */
    int ctl[2];  /* to the timer thread: timers changed, or a host signal */
    GThread *thread;

    _Atomic bool pending;       /* something for async_take, in some process */
    _Atomic bool kill_timeout;  /* --timeout: the whole guest */
    _Atomic bool kill_host_memory; /* --host-memory: the whole guest */
    _Atomic uint64_t host_memory_seen; /* in use when --host-memory was passed */
    _Atomic bool timers_fired;  /* a POSIX timer has expirations for async_take */
    _Atomic bool rekick;
    _Atomic bool in_io;      /* the CPU holder is in a host read or write */
    _Atomic bool io_despite; /* ... made while a signal is deliverable */
    pthread_t io_thread;     /* its host thread */
    /* Who sent a forwarded signal (written by the host handler). */
    volatile sig_atomic_t from_code[NSIG_LINUX_ALL + 1], from_pid[NSIG_LINUX_ALL + 1],
        from_uid[NSIG_LINUX_ALL + 1];

    GMutex lock; /* the timers below, each process's, and ready */
    GCond ready_cond;
    bool ready; /* the timer thread has its own descriptor table, or cannot */
    GPtrArray *timed; /* struct thread_group *: timers, limits or signals pending */
    int64_t timeout_at; /* monotonic */
    const char *timeout_reason;
    enum host_disposition job_disposition[G_N_ELEMENTS(job_control)];
    GPtrArray *timers; /* struct async_timer *, armed or holding expirations */
} async_state = { .wake = { -1, -1 }, .ctl = { -1, -1 } };

/* seccomp-emu's own CPU time, every guest task's together: a POSIX timer
 * on a CPU clock counts it (a guest of one process, as the timers' tests
 * run, is exact; with several processes each is charged all of it). */
static int64_t host_cpu_time(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return ts.tv_sec * NS + ts.tv_nsec;
}

static int64_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * NS + ts.tv_nsec;
}

static void poke(int fd)
{
    char c = 0;
    /* Non-blocking: a full pipe already says everything. */
    ssize_t n = write(fd, &c, 1);
    (void)n;
}

static void drain(int fd)
{
    char buf[64];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
}

/* A signal for process g, taken by async_take (the lock held, or from
 * the host signal handler for the first process, which is always
 * listed). */
static void post(struct thread_group *g, int sig)
{
    atomic_fetch_or(&g->timers.posted, SIGMASK_LINUX(sig));
    atomic_store(&async_state.pending, true);
    poke(async_state.wake[1]);
}

/* Put g on the timer thread's list (the lock held). */
static void list_group(struct thread_group *g)
{
    if (g->timers.listed)
        return;
    g->timers.listed = true;
    g_ptr_array_add(async_state.timed, thread_group_get(g));
}

/* From the timer thread: stop the engine of the task on the CPU, which
 * takes what was posted at the stop, or with nobody on the CPU wake a
 * sleeping task to take it (sched_kick).  A stop that misses is re-kicked
 * in a millisecond. */
static void kick(void)
{
    sched_kick();
}

/* --host-memory passed (`in_use` bytes): the first process is killed at
 * its next stop, once.  From the timer thread's look, or from a call that
 * faults memory in on the guest's behalf (mm_host_memory_hook), which
 * stops there: the guest must not run on to its exit first. */
static void host_memory_exceeded(uint64_t in_use)
{
    uint64_t none = 0;
    if (!atomic_compare_exchange_strong(&async_state.host_memory_seen, &none, in_use))
        return;
    atomic_store(&async_state.kill_host_memory, true);
    atomic_store(&async_state.pending, true);
    poke(async_state.wake[1]);
}

static void on_mm_host_memory(void)
{
    host_memory_exceeded(hostmem_in_use());
}

/* Host handler: record, wake both threads; the timer thread stops the
 * engine (uc_emu_stop is not async-signal-safe). */
static int guest_signal_of(int hsig)
{
    for (size_t i = 0; i < G_N_ELEMENTS(forwarded); i++)
        if (xlat_signal_to_host(forwarded[i]) == hsig)
            return forwarded[i];
    for (size_t i = 0; i < G_N_ELEMENTS(job_control); i++)
        if (xlat_signal_to_host(job_control[i]) == hsig)
            return job_control[i];
    return 0;
}

static void on_host_signal(int hsig, siginfo_t *si, void *uctx)
{
    (void)uctx;
    int saved = errno;
    int g = guest_signal_of(hsig);
    if (g) {
        int code = SI_KERNEL_LINUX;
        if (si->si_code == SI_USER)
            code = SI_USER_LINUX;
        else if (si->si_code == SI_QUEUE)
            code = SI_QUEUE_LINUX;
#ifdef SI_TKILL
        else if (si->si_code == SI_TKILL)
            code = SI_TKILL_LINUX;
#endif
        async_state.from_code[g] = code;
        async_state.from_pid[g] = code == SI_KERNEL_LINUX ? 0 : si->si_pid;
        async_state.from_uid[g] = code == SI_KERNEL_LINUX ? 0 : (sig_atomic_t)si->si_uid;
        post(async_state.group, g);
    }
    poke(async_state.ctl[1]);
    errno = saved;
}

/* SIGURG interrupts the main thread's blocking read or write (EINTR): no
 * handler work, and no SA_RESTART.  POSIX, ignored by default, and never
 * raised otherwise for the descriptors seccomp-emu holds. */
#define INTERRUPT_SIGNAL SIGURG

static void on_interrupt(int sig) { (void)sig; }

static int ms_until(int64_t ns)
{
    if (ns <= 0)
        return 0;
    int64_t ms = (ns + 999999) / 1000000;
    return ms > 1000 ? 1000 : (int)ms;
}

/* One process's timers; returns how long the thread may sleep (ms). */
static int check_group(struct thread_group *g, int64_t now)
{
    struct group_timers *tm = &g->timers;
    int64_t cpu = sched_group_cputime(g);
    int wait = 1000;
    if (tm->real_at && now >= tm->real_at) {
        post(g, SIGALRM_LINUX);
        if (tm->real_every) {
            /* hrtimer_forward: the next period after now, overruns skipped */
            int64_t behind = (now - tm->real_at) / tm->real_every + 1;
            tm->real_at += behind * tm->real_every;
        } else
            tm->real_at = 0;
    }
    if (tm->virt_at && cpu >= tm->virt_at) {
        post(g, SIGVTALRM_LINUX);
        tm->virt_at = tm->virt_every ? tm->virt_at + tm->virt_every : 0;
    }
    if (tm->prof_at && cpu >= tm->prof_at) {
        post(g, SIGPROF_LINUX);
        tm->prof_at = tm->prof_every ? tm->prof_at + tm->prof_every : 0;
    }
    if (tm->cpu_hard && cpu >= tm->cpu_hard) {
        atomic_store(&tm->kill_cpu, true);
        atomic_store(&async_state.pending, true);
        tm->cpu_hard = 0;
        poke(async_state.wake[1]);
    } else if (tm->cpu_soft && cpu >= tm->cpu_soft) {
        /* check_process_timers(): SIGXCPU, and the soft limit moves on by
         * one second, which the guest's getrlimit shows. */
        post(g, SIGXCPU_LINUX);
        tm->cpu_soft += NS;
        atomic_store(&tm->cpu_soft_now, (uint64_t)(tm->cpu_soft / NS));
        if (tm->cpu_hard && tm->cpu_soft > tm->cpu_hard)
            tm->cpu_soft = 0;
    }
    /* A process's CPU time advances at most as fast as wall time (its
     * tasks take turns on one CPU), so its distance is a safe sleep. */
    if (tm->real_at)
        wait = MIN(wait, ms_until(tm->real_at - now));
    if (tm->virt_at)
        wait = MIN(wait, ms_until(tm->virt_at - cpu));
    if (tm->prof_at)
        wait = MIN(wait, ms_until(tm->prof_at - cpu));
    if (tm->cpu_soft)
        wait = MIN(wait, ms_until(tm->cpu_soft - cpu));
    if (tm->cpu_hard)
        wait = MIN(wait, ms_until(tm->cpu_hard - cpu));
    return wait;
}

/* One pass over the clocks; returns how long the thread may sleep (ms). */
static int check_timers(void)
{
    int64_t now = mono_now();
    int wait = 1000;
    g_mutex_lock(&async_state.lock);
    for (guint i = 0; i < async_state.timed->len; i++)
        wait = MIN(wait, check_group(async_state.timed->pdata[i], now));
    for (guint i = 0; async_state.timers && i < async_state.timers->len; i++) {
        struct async_timer *tm = async_state.timers->pdata[i];
        if (!tm->at)
            continue;
        int64_t clk = async_clock_now(tm->clock);
        if (clk >= tm->at) {
            /* hrtimer_forward: every period that passed counts */
            uint64_t n = 1;
            if (tm->every) {
                n += (uint64_t)((clk - tm->at) / tm->every);
                tm->at += (int64_t)n * tm->every;
            } else
                tm->at = 0;
            tm->fired += n;
            atomic_store(&async_state.timers_fired, true);
            atomic_store(&async_state.pending, true);
            poke(async_state.wake[1]);
        }
        if (tm->at)
            wait = MIN(wait, ms_until(tm->at - clk));
    }
    if (async_state.timeout_at && now >= async_state.timeout_at) {
        atomic_store(&async_state.kill_timeout, true);
        atomic_store(&async_state.pending, true);
        async_state.timeout_at = 0;
        poke(async_state.wake[1]);
    }
    if (async_state.timeout_at)
        wait = MIN(wait, ms_until(async_state.timeout_at - now));
    /* --host-memory: looked at more often the nearer it is. */
    uint64_t in_use = hostmem_in_use();
    if (in_use > hostmem_limit())
        host_memory_exceeded(in_use);
    wait = MIN(wait, hostmem_check_interval_ms(in_use));
    g_mutex_unlock(&async_state.lock);
    bool io_despite = atomic_load(&async_state.io_despite) && atomic_load(&async_state.in_io);
    if (atomic_load(&async_state.pending) || atomic_exchange(&async_state.rekick, false) ||
        io_despite) {
        kick();
        /* Repeated until taken: a kick or interrupt that lands just before
         * the engine starts or the call blocks is lost. */
        if (atomic_load(&async_state.in_io))
            pthread_kill(async_state.io_thread, INTERRUPT_SIGNAL);
        wait = MIN(wait, KICK_RETRY_MS);
    }
    return wait;
}

static gpointer timer_thread(gpointer data)
{
    (void)data;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    /* The two pipe ends it uses, and nothing of the guest's.  Where the
     * host cannot (false), the table stays shared: each guest read and
     * write pays a file reference, and nothing else changes. */
    int keep[2] = { async_state.ctl[0], async_state.wake[1] };
    (void)host_tune_private_fds(keep, 2);
    g_mutex_lock(&async_state.lock);
    async_state.ready = true;
    g_cond_signal(&async_state.ready_cond);
    g_mutex_unlock(&async_state.lock);
    for (;;) {
        int wait = MIN(check_timers(), sched_tick());
        struct pollfd p = { .fd = async_state.ctl[0], .events = POLLIN };
        int n = poll(&p, 1, wait);
        if (n > 0)
            drain(async_state.ctl[0]);
    }
    return NULL;
}

static err_t open_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return err_new("pipe: %s", host_strerror(errno));
    for (int i = 0; i < 2; i++)
        if (fcntl(fds[i], F_SETFL, O_NONBLOCK) != 0 || fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0)
            return err_new("fcntl on a pipe: %s", host_strerror(errno));
    return OK;
}

err_t async_start(struct task *t)
{
    async_state.group = t->group;
    async_state.timed = g_ptr_array_new();
    mm_host_memory_hook = on_mm_host_memory;
    list_group(t->group); /* host signals go to it */
    g_mutex_init(&async_state.lock);
    g_cond_init(&async_state.ready_cond);
    err_t e;
    if ((e = open_pipe(async_state.wake)) || (e = open_pipe(async_state.ctl)))
        return e;
    if ((e = async_host_handler(INTERRUPT_SIGNAL, "SIGURG", on_interrupt)))
        return e;
    GError *gerr = NULL;
    async_state.thread = g_thread_try_new("seccomp-emu timers", timer_thread, NULL, &gerr);
    if (!async_state.thread) {
        e = err_new("timer thread: %s", gerr->message);
        g_error_free(gerr);
        return e;
    }
    /* Before the self-sandbox, which has no close_range, and before the
     * guest's first read. */
    g_mutex_lock(&async_state.lock);
    while (!async_state.ready)
        g_cond_wait(&async_state.ready_cond, &async_state.lock);
    g_mutex_unlock(&async_state.lock);
    return OK;
}

err_t async_host_handler(int sig, const char *name, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) != 0)
        return err_new("sigaction(%s): %s", name, host_strerror(errno));
    if (handler == SIG_DFL || handler == SIG_IGN)
        return OK;
    sigset_t need;
    sigemptyset(&need);
    sigaddset(&need, sig);
    if ((errno = pthread_sigmask(SIG_UNBLOCK, &need, NULL)) != 0)
        return err_new("pthread_sigmask: %s", host_strerror(errno));
    return OK;
}

err_t async_forward_signals(struct task *t)
{
    for (size_t i = 0; i < G_N_ELEMENTS(forwarded); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_host_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigfillset(&sa.sa_mask);
        int host = xlat_signal_to_host(forwarded[i]);
        if (sigaction(host, &sa, NULL) != 0)
            return err_new("sigaction(%d): %s", host, host_strerror(errno));
    }
    err_t e = async_job_control(t);
    if (e)
        return e;
    /* seccomp-emu must hear these even when its parent blocked them; the
     * guest keeps that block in its own mask (signal.c), so a forwarded
     * signal waits there as it would natively.  One that came during
     * set-up, blocked, is delivered here, to the guest. */
    sigset_t need;
    sigemptyset(&need);
    for (size_t i = 0; i < G_N_ELEMENTS(forwarded); i++)
        sigaddset(&need, xlat_signal_to_host(forwarded[i]));
    for (size_t i = 0; i < G_N_ELEMENTS(job_control); i++)
        sigaddset(&need, xlat_signal_to_host(job_control[i]));
    if ((errno = pthread_sigmask(SIG_UNBLOCK, &need, NULL)) != 0)
        return err_new("pthread_sigmask: %s", host_strerror(errno));
    return OK;
}

/* What the host should do with one job-control signal, given the guest's
 * action and mask. */
static enum host_disposition job_disposition_for(const struct task *t, int sig)
{
    const struct ksigaction *ka = &t->sighand->action[sig];
    if (ka->handler == SIG_IGN_LINUX)
        return HOST_IGNORE;
    if (sig == SIGCONT_LINUX)
        /* The host continues seccomp-emu whatever its action; only a
         * handler needs to hear of it. */
        return ka->handler == SIG_DFL_LINUX ? HOST_DEFAULT : HOST_FORWARD;
    if (t->sig.blocked & SIGMASK_LINUX(sig))
        /* Held in the guest's pending set.  A blocked SIGTTIN or SIGTTOU
         * counts as ignored for a background terminal read or write
         * (is_ignored() in the tty layer): the host ignoring it gives the
         * same EIO or pass, where forwarding it would make the host resend
         * it on each restarted read. */
        return sig == SIGTSTP_LINUX ? HOST_FORWARD : HOST_IGNORE;
    return ka->handler == SIG_DFL_LINUX ? HOST_DEFAULT : HOST_FORWARD;
}

err_t async_job_control(struct task *t)
{
    for (size_t i = 0; i < G_N_ELEMENTS(job_control); i++) {
        enum host_disposition want = job_disposition_for(t, job_control[i]);
        if (want == async_state.job_disposition[i])
            continue;
        int host = xlat_signal_to_host(job_control[i]);
        if (!host)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sigfillset(&sa.sa_mask);
        if (want == HOST_FORWARD) {
            sa.sa_sigaction = on_host_signal;
            sa.sa_flags = SA_SIGINFO | SA_RESTART;
        } else
            sa.sa_handler = want == HOST_IGNORE ? SIG_IGN : SIG_DFL;
        if (sigaction(host, &sa, NULL) != 0)
            return err_new("sigaction(%d): %s", host, host_strerror(errno));
        async_state.job_disposition[i] = want;
    }
    return OK;
}

void async_rekick(void)
{
    atomic_store(&async_state.rekick, true);
    poke(async_state.ctl[1]);
}

static const char *timer_why(int sig)
{
    switch (sig) {
    case SIGALRM_LINUX:
        return "alarm or ITIMER_REAL expired";
    case SIGVTALRM_LINUX:
        return "ITIMER_VIRTUAL expired";
    case SIGPROF_LINUX:
        return "ITIMER_PROF expired";
    case SIGXCPU_LINUX:
        return "CPU time soft limit reached (RLIMIT_CPU, --cpu-time)";
    default:
        return NULL;
    }
}

/* A live thread of process g, for its signals; NULL once it has ended. */
static struct task *live_thread(struct thread_group *g)
{
    if (g->leader && !g->leader->exited)
        return g->leader;
    for (GList *l = g->threads.head; l; l = l->next)
        if (!((struct task *)l->data)->exited)
            return l->data;
    return NULL;
}

/* What was posted for one process, turned into its signals. */
static void take_group(struct thread_group *g)
{
    struct task *t = live_thread(g);
    if (!t)
        return;
    uint64_t soft = atomic_exchange(&g->timers.cpu_soft_now, 0);
    if (soft)
        g->rlim[RLIMIT_CPU_LINUX].cur = MIN(soft, g->rlim[RLIMIT_CPU_LINUX].max);
    if (atomic_exchange(&g->timers.kill_cpu, false)) {
        task_kill(t, SIGKILL_LINUX, g_strdup(g->timers.cpu_hard_reason));
        return;
    }
    uint64_t bits = atomic_exchange(&g->timers.posted, 0);
    for (int sig = 1; bits; sig++, bits >>= 1) {
        if (!(bits & 1))
            continue;
        const char *why = timer_why(sig);
        if (why) {
            signal_kernel(t, sig, why);
            continue;
        }
        /* Forwarded from the host: as the sender sent it, to the process. */
        struct ksiginfo info = { .signo = sig, .code = async_state.from_code[sig],
                                 .pid = async_state.from_pid[sig],
                                 .uid = (uint32_t)async_state.from_uid[sig], .shared = true };
        signal_send(t, &info, NULL);
    }
}

/* Hand each timer's expirations to its owner, outside the lock (the owner
 * may re-arm it). */
static void take_timers(void)
{
    if (!atomic_exchange(&async_state.timers_fired, false))
        return;
    g_autoptr(GPtrArray) due = g_ptr_array_new();
    g_autoptr(GArray) counts = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    g_mutex_lock(&async_state.lock);
    for (guint i = 0; i < async_state.timers->len; i++) {
        struct async_timer *tm = async_state.timers->pdata[i];
        if (tm->fired) {
            g_ptr_array_add(due, tm);
            g_array_append_val(counts, tm->fired);
            tm->fired = 0;
        }
    }
    g_mutex_unlock(&async_state.lock);
    for (guint i = 0; i < due->len; i++) {
        struct async_timer *tm = due->pdata[i];
        /* removed meanwhile by an earlier owner's callback? */
        g_mutex_lock(&async_state.lock);
        bool still = tm->listed;
        g_mutex_unlock(&async_state.lock);
        if (still)
            tm->expired(tm, g_array_index(counts, uint64_t, i));
    }
}

void async_take(struct task *holder)
{
    (void)holder;
    /* The common case, on every blocking call: nothing posted, no system
     * call spent. */
    if (!atomic_load_explicit(&async_state.pending, memory_order_relaxed))
        return;
    atomic_store(&async_state.pending, false);
    if (async_state.wake[0] >= 0)
        drain(async_state.wake[0]);
    if (atomic_exchange(&async_state.kill_timeout, false)) {
        struct task *t = live_thread(async_state.group);
        if (t)
            task_kill(t, SIGKILL_LINUX, g_strdup(async_state.timeout_reason));
        return;
    }
    if (atomic_exchange(&async_state.kill_host_memory, false)) {
        struct task *t = live_thread(async_state.group);
        uint64_t seen = atomic_load(&async_state.host_memory_seen);
        if (t)
            task_kill(t, SIGKILL_LINUX,
                      g_strdup_printf("killed by SIGKILL: host memory limit of %" G_GUINT64_FORMAT
                                      " MiB reached (--host-memory): seccomp-emu was using %"
                                      G_GUINT64_FORMAT " MiB",
                                      hostmem_limit() >> 20, seen >> 20));
        return;
    }
    take_timers();
    g_mutex_lock(&async_state.lock);
    g_autoptr(GPtrArray) groups = g_ptr_array_new();
    for (guint i = 0; i < async_state.timed->len; i++)
        g_ptr_array_add(groups, thread_group_get(async_state.timed->pdata[i]));
    g_mutex_unlock(&async_state.lock);
    for (guint i = 0; i < groups->len; i++) {
        take_group(groups->pdata[i]);
        thread_group_put(groups->pdata[i]);
    }
}

void async_group_gone(struct thread_group *g)
{
    g_mutex_lock(&async_state.lock);
    bool listed = g->timers.listed;
    if (listed) {
        g->timers.listed = false;
        g_ptr_array_remove(async_state.timed, g);
    }
    g_mutex_unlock(&async_state.lock);
    if (listed)
        thread_group_put(g);
}

/* Whether a call on fd would return now rather than wait (ready, at
 * end of file, in error, or not a descriptor poll knows: the call itself
 * answers at once). */
static bool io_ready_now(int fd, bool writing)
{
    struct pollfd p = { .fd = fd, .events = writing ? POLLOUT : POLLIN };
    int n;
    do
        n = poll(&p, 1, 0);
    while (n < 0 && errno == EINTR);
    return n != 0;
}

/* Relaxed: the timer thread keeps interrupting every millisecond while
 * something is posted, so an ordering race only delays, never loses. */
bool async_io_begin(struct task *t, int fd, bool writing)
{
    /* With other tasks about, a call that would wait waits first for its
     * descriptor without the CPU, so that they run meanwhile (the call is
     * then made with it: one that still waits, as when a host process
     * took the data first, holds the CPU until it returns). */
    if (task_count() > 1 && !io_ready_now(fd, writing) &&
        async_wait(t, fd, writing, -1, NULL) < 0)
        return false;
    async_state.io_thread = pthread_self();
    atomic_store_explicit(&async_state.in_io, true, memory_order_relaxed);
    async_take(t);
    if (t->state != TASK_RUNNING) {
        atomic_store_explicit(&async_state.in_io, false, memory_order_relaxed);
        return false;
    }
    if (signal_deliverable(t)) {
        /* Linux checks for signals only where a call would wait: a write
         * with room or a read with data completes, and the signal comes
         * on the way out.  The rest restarts.  A call that turns out to
         * wait after all (a pipe write larger than its room) is
         * interrupted by the timer thread, as Linux returns what it wrote
         * so far. */
        if (!io_ready_now(fd, writing)) {
            atomic_store_explicit(&async_state.in_io, false, memory_order_relaxed);
            return false;
        }
        atomic_store(&async_state.io_despite, true);
        poke(async_state.ctl[1]);
    }
    return true;
}

void async_io_end(void)
{
    atomic_store_explicit(&async_state.in_io, false, memory_order_relaxed);
    atomic_store_explicit(&async_state.io_despite, false, memory_order_relaxed);
}

int async_wait_fds(struct task *t, struct pollfd *fds, int nfds, int64_t timeout_ns,
                   int64_t *left)
{
    int64_t until = timeout_ns >= 0 ? wait_deadline_in(timeout_ns) : -1;
    int r = wait_event(t, &(struct wait_for){ .pollfds = nfds > 0 ? fds : NULL, .nfds = nfds,
                                             .deadline_ns = until, .interruptible = true });
    if (left)
        *left = until >= 0 ? MAX(until - wait_clock_now(WAIT_MONOTONIC), 0) : 0;
    return r == 1 ? 1 : r == -ETIMEDOUT_LINUX ? 0 : -1;
}

int async_wait(struct task *t, int fd, bool writing, int64_t timeout_ns, int64_t *left)
{
    struct pollfd p = { .fd = fd, .events = writing ? POLLOUT : POLLIN };
    return async_wait_fds(t, &p, fd >= 0 ? 1 : 0, timeout_ns, left);
}

void async_itimer(struct thread_group *g, int which, const struct async_itimer *set,
                  struct async_itimer *old)
{
    struct group_timers *tm = &g->timers;
    g_mutex_lock(&async_state.lock);
    int64_t now;
    int64_t *at, *every;
    switch (which) {
    case ITIMER_REAL_LINUX:
        now = mono_now();
        at = &tm->real_at;
        every = &tm->real_every;
        break;
    case ITIMER_VIRTUAL_LINUX:
        now = sched_group_cputime(g);
        at = &tm->virt_at;
        every = &tm->virt_every;
        break;
    default:
        now = sched_group_cputime(g);
        at = &tm->prof_at;
        every = &tm->prof_every;
        break;
    }
    if (old) {
        old->interval = *every;
        old->value = 0;
        if (*at) {
            /* A timer at or past its expiry reads as about to fire. */
            int64_t rest = *at - now;
            old->value = rest > 0 ? rest
                         : which == ITIMER_REAL_LINUX ? 1000 : 4000000 /* TICK_NSEC */;
        }
    }
    if (set) {
        /* The interval is kept even while the timer is disarmed. */
        *at = set->value ? now + set->value : 0;
        *every = set->interval;
        if (*at)
            list_group(g);
    }
    g_mutex_unlock(&async_state.lock);
    if (set)
        poke(async_state.ctl[1]);
}

int64_t async_clock_now(enum async_clock clock)
{
    switch (clock) {
    case ASYNC_CLOCK_CPU:
        return host_cpu_time();
    case ASYNC_CLOCK_REALTIME: {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return ts.tv_sec * NS + ts.tv_nsec;
    }
    case ASYNC_CLOCK_MONOTONIC:
        break;
    }
    return mono_now();
}

void async_timer_set(struct async_timer *tm, int64_t at, int64_t every, int64_t *old_at,
                     int64_t *old_every)
{
    g_mutex_lock(&async_state.lock);
    if (old_at)
        *old_at = tm->at;
    if (old_every)
        *old_every = tm->every;
    tm->at = at;
    tm->every = every;
    tm->fired = 0;
    if (!tm->listed) {
        if (!async_state.timers)
            async_state.timers = g_ptr_array_new();
        g_ptr_array_add(async_state.timers, tm);
        tm->listed = true;
    }
    g_mutex_unlock(&async_state.lock);
    if (async_state.ctl[1] >= 0)
        poke(async_state.ctl[1]);
}

void async_timer_get(struct async_timer *tm, int64_t *at, int64_t *every)
{
    g_mutex_lock(&async_state.lock);
    *at = tm->at;
    *every = tm->every;
    g_mutex_unlock(&async_state.lock);
}

void async_timer_remove(struct async_timer *tm)
{
    g_mutex_lock(&async_state.lock);
    if (tm->listed)
        g_ptr_array_remove(async_state.timers, tm);
    tm->listed = false;
    tm->at = 0;
    tm->fired = 0;
    g_mutex_unlock(&async_state.lock);
}

void async_set_cpu_limit(struct thread_group *g, uint64_t soft, uint64_t hard)
{
    struct group_timers *tm = &g->timers;
    /* check_process_timers() looks at RLIMIT_CPU only when the soft limit
     * is finite: an infinite soft limit disables the hard one too. */
    if (soft == UINT64_MAX)
        hard = UINT64_MAX;
    g_mutex_lock(&async_state.lock);
    tm->cpu_soft = soft == UINT64_MAX || soft > (uint64_t)(INT64_MAX / NS) ? 0 : (int64_t)soft * NS;
    tm->cpu_hard = hard == UINT64_MAX || hard > (uint64_t)(INT64_MAX / NS) ? 0 : (int64_t)hard * NS;
    /* Linux checks the hard limit first: with soft == hard, SIGKILL. */
    if (tm->cpu_hard && tm->cpu_soft >= tm->cpu_hard)
        tm->cpu_soft = 0;
    g_snprintf(tm->cpu_hard_reason, sizeof(tm->cpu_hard_reason),
               "killed by SIGKILL: CPU time limit of %" G_GUINT64_FORMAT
               " s reached (RLIMIT_CPU, --cpu-time)", hard);
    if (tm->cpu_soft || tm->cpu_hard)
        list_group(g);
    g_mutex_unlock(&async_state.lock);
    if (async_state.ctl[1] >= 0)
        poke(async_state.ctl[1]);
}

void async_set_timeout(int64_t ns, const char *reason)
{
    g_mutex_lock(&async_state.lock);
    async_state.timeout_at = mono_now() + ns;
    async_state.timeout_reason = reason;
    g_mutex_unlock(&async_state.lock);
    if (async_state.ctl[1] >= 0)
        poke(async_state.ctl[1]);
}
