/* Signals from outside the instruction stream: timers firing while the
 * guest spins without system calls (in strict mode too), interrupted and
 * restarted calls, and default-action deaths.
 *
 *   async CASE
 */
#include "sigtest.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t ticks, fired;
static int limit_ticks = 5;

static void tick(int sig)
{
    (void)sig;
    ticks++;
    if (ticks >= limit_ticks)
        fired = 1;
}

static void tick_info(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    say("signal %d code %d pid %d\n", sig, si->si_code, si->si_pid);
    fired = 1;
}

static void set_timer(int which, long first_us, long every_us)
{
    struct itimerval it = { { every_us / 1000000, every_us % 1000000 },
                            { first_us / 1000000, first_us % 1000000 } };
    if (setitimer(which, &it, NULL) != 0) {
        say("setitimer failed: %d\n", errno);
        sys_exit(92);
    }
}

static void restart_tick(int sig)
{
    (void)sig;
    ticks++;
    if (ticks == 2) {
        say("second tick: the read was restarted after the first\n");
        sys_exit(0);
    }
}

/* The first tick installs a filter that answers read with ERRNO 77: the
 * restarted read is a new call to it (FILTER.md 5, issue 24). */
static void filter_tick(int sig)
{
    (void)sig;
    struct sock_filter p[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_read, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 77),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = 4, .filter = p };
    ticks++;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        say("seccomp failed: %d\n", errno);
}

/* Work whose every instruction boundary is an ordinary place for an
 * asynchronous signal to land: direct calls and jumps (blocks the engine
 * chains without storing the pc) and returns (which store it).  Each round
 * must give the same value; a signal taken at a wrong place changes it or
 * crashes. */
static __attribute__((noinline)) unsigned mix(unsigned x, unsigned i)
{
    x ^= x >> 15;
    x *= 0x2c1b3c6du + i;
    return x ^ (x >> 12);
}

static volatile unsigned busy_seed = 1; /* read each round: no round is hoisted */

static __attribute__((noinline)) unsigned busy_round(void)
{
    unsigned x = busy_seed;
    for (unsigned i = 0; i < 2000; i++) {
        x = mix(x, i);
        if (x & 1)
            x = mix(x, x & 7);
    }
    return x;
}

static void busy_until_ticks(int want)
{
    unsigned first = busy_round();
    for (int round = 1; ticks < want; round++) {
        unsigned x = busy_round();
        if (x != first) {
            say("round %d gave %#x, not %#x\n", round, x, first);
            sys_exit(1);
        }
    }
    say("%d ticks, every round %#x\n", want, first);
}

/* A write into a pipe with room (the harness reads stdout) never blocks,
 * so Linux completes it whatever signal is pending (the signal comes on
 * the way out); only a call that would wait gives way to it.  A fixed
 * count of one-byte writes under a 100 us timer, each checked. */
static void write_under_timer(int strict)
{
    on_plain(SIGALRM, tick, 0);
    set_timer(ITIMER_REAL, 100, 100);
    if (strict)
        enter_strict();
    for (long i = 0; i < 20000; i++) {
        long w = syscall(SYS_write, 1, ".", 1);
        if (w != 1) {
            say("\nwrite %ld returned %ld (errno %d)\n", i, w, errno);
            sys_exit(1);
        }
    }
    say("\nevery write complete\n");
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];

    /* alarm(2) while spinning */
    CASE("alarm")
    {
        on(SIGALRM, tick_info, 0);
        alarm(1);
        spin_until(&fired);
        say("spun until the alarm\n");
        return 0;
    }
    CASE("alarm-strict")
    {
        on_plain(SIGALRM, tick, 0);
        limit_ticks = 1;
        alarm(1);
        enter_strict();
        spin_until(&fired);
        say("strict: spun until the alarm, handler returned through sigreturn\n");
        sys_exit(0);
    }
    CASE("alarm-strict-info")
    {
        /* i386: the rt frame's rt_sigreturn is not allowed: SIGKILL */
        on(SIGALRM, tick_info, 0);
        set_timer(ITIMER_REAL, 100000, 0);
        enter_strict();
        spin_until(&fired);
        say("strict: back from an SA_SIGINFO handler\n");
        sys_exit(0);
    }
    CASE("alarm-default")
    {
        set_timer(ITIMER_REAL, 100000, 0);
        spin_until(&fired);
        return 0;
    }
    CASE("alarm-default-strict")
    {
        set_timer(ITIMER_REAL, 100000, 0);
        enter_strict();
        spin_until(&fired);
        sys_exit(0);
    }
    CASE("alarm-return")
    {
        /* alarm() answers the seconds left, rounded as the kernel does */
        alarm(5);
        unsigned left = alarm(0);
        unsigned none = alarm(0);
        say("alarm(5) then alarm(0): %u, then %u\n", left, none);
        return 0;
    }
    /* setitimer with an interval, each clock */
    CASE("real")
    {
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 20000, 20000);
        spin_until(&fired);
        set_timer(ITIMER_REAL, 0, 0);
        say("ITIMER_REAL: %d ticks\n", (int)ticks);
        return 0;
    }
    CASE("real-strict")
    {
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 20000, 20000);
        enter_strict();
        spin_until(&fired);
        say("strict ITIMER_REAL: %d ticks\n", (int)ticks);
        sys_exit(0);
    }
    /* A 1 ms timer interrupting calls, returns and chained jumps; the
     * timer stays armed through the output and exit. */
    CASE("real-busy")
    {
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 1000, 1000);
        busy_until_ticks(200);
        return 0;
    }
    CASE("real-busy-strict")
    {
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 1000, 1000);
        enter_strict();
        busy_until_ticks(200);
        sys_exit(0);
    }
    CASE("write-busy")
    {
        write_under_timer(0);
        return 0;
    }
    CASE("write-busy-strict")
    {
        write_under_timer(1);
        sys_exit(0);
    }
    CASE("virtual")
    {
        on_plain(SIGVTALRM, tick, 0);
        set_timer(ITIMER_VIRTUAL, 20000, 20000);
        spin_until(&fired);
        set_timer(ITIMER_VIRTUAL, 0, 0);
        say("ITIMER_VIRTUAL: %d ticks\n", (int)ticks);
        return 0;
    }
    CASE("virtual-strict")
    {
        on_plain(SIGVTALRM, tick, 0);
        set_timer(ITIMER_VIRTUAL, 20000, 20000);
        enter_strict();
        spin_until(&fired);
        say("strict ITIMER_VIRTUAL: %d ticks\n", (int)ticks);
        sys_exit(0);
    }
    CASE("prof")
    {
        on_plain(SIGPROF, tick, 0);
        set_timer(ITIMER_PROF, 20000, 20000);
        spin_until(&fired);
        set_timer(ITIMER_PROF, 0, 0);
        say("ITIMER_PROF: %d ticks\n", (int)ticks);
        return 0;
    }
    CASE("prof-default")
    {
        set_timer(ITIMER_PROF, 50000, 0);
        spin_until(&fired);
        return 0;
    }
    CASE("getitimer")
    {
        struct itimerval it, cur, old;
        set_timer(ITIMER_REAL, 10 * 1000000, 250000);
        getitimer(ITIMER_REAL, &cur);
        say("interval %ld.%06ld, value in (9, 10]: %d\n", (long)cur.it_interval.tv_sec,
            (long)cur.it_interval.tv_usec,
            cur.it_value.tv_sec * 1000000 + cur.it_value.tv_usec > 9000000 &&
                cur.it_value.tv_sec * 1000000 + cur.it_value.tv_usec <= 10000000);
        memset(&it, 0, sizeof(it));
        setitimer(ITIMER_REAL, &it, &old);
        getitimer(ITIMER_REAL, &cur);
        say("after disarm: value %ld.%06ld interval %ld.%06ld, old interval %ld.%06ld\n",
            (long)cur.it_value.tv_sec, (long)cur.it_value.tv_usec, (long)cur.it_interval.tv_sec,
            (long)cur.it_interval.tv_usec, (long)old.it_interval.tv_sec,
            (long)old.it_interval.tv_usec);
        struct itimerval bad = { { 0, 0 }, { 0, 1000000 } };
        errno = 0;
        int r = setitimer(ITIMER_REAL, &bad, NULL);
        say("tv_usec 1000000: %d errno %d\n", r, errno);
        errno = 0;
        r = setitimer(7, &it, NULL);
        say("which 7: %d errno %d\n", r, errno);
        errno = 0;
        r = getitimer(7, &cur);
        say("getitimer 7: %d errno %d\n", r, errno);
        return 0;
    }
    /* interrupted sleeps and calls */
    CASE("nanosleep")
    {
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 100000, 0);
        struct timespec req = { 2, 0 }, rem = { 0, 0 };
        errno = 0;
        int r = nanosleep(&req, &rem);
        say("nanosleep: %d errno %d, handler ran %d, remaining in (1, 2): %d\n", r, errno,
            (int)ticks, rem.tv_sec == 1);
        return 0;
    }
    CASE("pause")
    {
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 100000, 0);
        errno = 0;
        int r = pause();
        say("pause: %d errno %d, handler ran %d\n", r, errno, (int)ticks);
        return 0;
    }
    CASE("read-eintr")
    {
        /* stdin is a pipe nobody writes to */
        on_plain(SIGALRM, tick, 0);
        set_timer(ITIMER_REAL, 100000, 0);
        char c;
        errno = 0;
        ssize_t r = read(0, &c, 1);
        say("read: %zd errno %d, handler ran %d\n", r, errno, (int)ticks);
        return 0;
    }
    CASE("read-restart")
    {
        on_plain(SIGALRM, restart_tick, SA_RESTART);
        set_timer(ITIMER_REAL, 100000, 100000);
        char c;
        ssize_t r = read(0, &c, 1);
        say("read returned %zd: not restarted\n", r);
        return 1;
    }
    CASE("read-restart-filter")
    {
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        on_plain(SIGALRM, filter_tick, SA_RESTART);
        set_timer(ITIMER_REAL, 100000, 0);
        char c;
        errno = 0;
        ssize_t r = read(0, &c, 1);
        say("read after %d tick(s): %zd errno %d\n", (int)ticks, r, errno);
        return 0;
    }
    CASE("read-default")
    {
        /* no handler: the blocked read must not keep the task alive */
        set_timer(ITIMER_REAL, 100000, 0);
        char c;
        ssize_t r = read(0, &c, 1);
        say("read returned %zd\n", r);
        return 1;
    }
    CASE("read-ignored")
    {
        /* an ignored signal does not interrupt; the next one kills */
        signal(SIGALRM, SIG_IGN);
        set_timer(ITIMER_REAL, 50000, 0);
        struct timespec req = { 0, 200000000 };
        nanosleep(&req, NULL);
        say("slept through an ignored SIGALRM\n");
        signal(SIGALRM, SIG_DFL);
        set_timer(ITIMER_REAL, 50000, 0);
        char c;
        ssize_t r = read(0, &c, 1);
        say("read returned %zd\n", r);
        return 1;
    }
    CASE("sigsuspend")
    {
        on_plain(SIGALRM, tick, 0);
        sigset_t block, empty, now;
        sigemptyset(&block);
        sigaddset(&block, SIGALRM);
        sigprocmask(SIG_BLOCK, &block, NULL);
        set_timer(ITIMER_REAL, 100000, 0);
        sigemptyset(&empty);
        errno = 0;
        int r = sigsuspend(&empty);
        sigprocmask(SIG_BLOCK, NULL, &now);
        say("sigsuspend: %d errno %d, handler ran %d, SIGALRM blocked again: %d\n", r, errno,
            (int)ticks, sigismember(&now, SIGALRM));
        return 0;
    }
    CASE("sigtimedwait")
    {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigprocmask(SIG_BLOCK, &set, NULL);
        struct timespec ts = { 0, 100000000 };
        int64_t t0 = now_ns();
        errno = 0;
        int r = sigtimedwait(&set, NULL, &ts);
        int64_t waited = now_ns() - t0;
        say("nothing pending: %d errno %d, waited >= 90 ms: %d\n", r, errno,
            waited >= 90000000);
        raise(SIGUSR1);
        siginfo_t si;
        r = sigtimedwait(&set, &si, &ts);
        say("pending: %d, si_signo %d si_code %d si_pid ok %d\n", r, si.si_signo, si.si_code,
            si.si_pid == getpid());
        sigaddset(&set, SIGALRM);
        sigprocmask(SIG_BLOCK, &set, NULL);
        set_timer(ITIMER_REAL, 50000, 0);
        r = sigwaitinfo(&set, &si);
        say("sigwaitinfo for a timer: %d code %d\n", r, si.si_code);
        return 0;
    }
    /* a signal while a handler of another one runs */
    CASE("nested-timer")
    {
        on_plain(SIGALRM, tick, 0);
        limit_ticks = 3;
        set_timer(ITIMER_REAL, 10000, 10000);
        spin_until(&fired);
        set_timer(ITIMER_REAL, 0, 0);
        say("three ticks while spinning\n");
        return 0;
    }
    return 2;
}
