/* POSIX timers, resource usage and limits, as the kernel answers them:
 * ids, errors and their order, SIGEV_SIGNAL / SIGEV_NONE /
 * SIGEV_THREAD_ID, one-shot and periodic timers with their overruns, the
 * siginfo a timer's signal carries; getrusage for self, children and the
 * thread; prlimit64, getrlimit and setrlimit.  Times only as bounds.
 *   ptimers create | signal | overrun | none | usage | limits */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "show_result.h"

/* The kernel's structures: timer_t is an int, sigevent 64 bytes. */
struct ksigevent {
    union {
        int i;
        void *p;
    } value;
    int signo, notify;
    int tid;
    int pad[11];
};
struct kits {
    long isec, insec, vsec, vnsec; /* i386: the 32-bit calls */
};

#define SIGEV_THREAD_ID_ 4

static long tcreate(int clock, struct ksigevent *ev, int *id)
{
    return syscall(SYS_timer_create, clock, ev, id);
}

static long tset(int id, int flags, long vs, long vns, long is, long ins, struct kits *old)
{
    struct kits k = { is, ins, vs, vns };
    return syscall(SYS_timer_settime, id, flags, &k, old);
}

static volatile sig_atomic_t got, got_code, got_timerid, got_overrun, got_value, got_getoverrun;
static volatile int hid;

static volatile sig_atomic_t first_overrun, first_getoverrun;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (++got == 1) {
        first_overrun = si->si_overrun;
        first_getoverrun = (int)syscall(SYS_timer_getoverrun, hid);
    }
    got_code = si->si_code;
    got_timerid = si->si_timerid;
    got_overrun = si->si_overrun;
    got_value = si->si_value.sival_int;
    got_getoverrun = (int)syscall(SYS_timer_getoverrun, hid);
    (void)sig;
}

static void handle(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO;
    sigaction(sig, &sa, NULL);
}

static void wait_for(int n)
{
    for (int i = 0; i < 2000 && got < n; i++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

static void do_create(void)
{
    int id = -1;
    show("create CLOCK_MONOTONIC, default event", tcreate(CLOCK_MONOTONIC, NULL, &id));
    printf("  id %d\n", id);
    show("create CLOCK_REALTIME", tcreate(CLOCK_REALTIME, NULL, &id));
    printf("  id %d\n", id);
    show("create CLOCK_PROCESS_CPUTIME_ID", tcreate(CLOCK_PROCESS_CPUTIME_ID, NULL, &id));
    printf("  id %d\n", id);
    show("create CLOCK_THREAD_CPUTIME_ID", tcreate(CLOCK_THREAD_CPUTIME_ID, NULL, &id));
    show("create CLOCK_BOOTTIME", tcreate(CLOCK_BOOTTIME, NULL, &id));
    show("create CLOCK_TAI", tcreate(11, NULL, &id));
    show("create CLOCK_MONOTONIC_RAW", tcreate(CLOCK_MONOTONIC_RAW, NULL, &id));
    show("create CLOCK_MONOTONIC_COARSE", tcreate(CLOCK_MONOTONIC_COARSE, NULL, &id));
    show("create clock 10", tcreate(10, NULL, &id));
    show("create clock 12", tcreate(12, NULL, &id));
    show("create clock -1 (a clock fd)", tcreate(-1, NULL, &id));
    /* this process's own CPU clock, by pid 0 */
    show("create the CPU clock of pid 0", tcreate((int)(~0u << 3) | 2, NULL, &id));
    show("create the CPU clock of pid 0, which 3", tcreate((int)(~0u << 3) | 3 | 4, NULL, &id));
    show("create the clock of fd 3", tcreate((int)(~3u << 3) | 3, NULL, &id));
    show("create, id unmapped", tcreate(CLOCK_MONOTONIC, NULL, (int *)16));
    show("create, event unmapped", tcreate(CLOCK_MONOTONIC, (void *)16, &id));
    struct ksigevent ev = { .signo = SIGUSR1, .notify = SIGEV_SIGNAL };
    ev.notify = 3;
    show("create notify 3", tcreate(CLOCK_MONOTONIC, &ev, &id));
    ev.notify = SIGEV_THREAD_ID_;
    show("create notify THREAD_ID alone", tcreate(CLOCK_MONOTONIC, &ev, &id));
    ev.notify = SIGEV_SIGNAL;
    ev.signo = 0;
    show("create signo 0", tcreate(CLOCK_MONOTONIC, &ev, &id));
    ev.signo = 65;
    show("create signo 65", tcreate(CLOCK_MONOTONIC, &ev, &id));
    ev.signo = SIGUSR1;
    ev.notify = SIGEV_SIGNAL | SIGEV_THREAD_ID_;
    ev.tid = (int)syscall(SYS_gettid);
    show("create THREAD_ID, this thread", tcreate(CLOCK_MONOTONIC, &ev, &id));
    ev.tid = 0x7ffffff0;
    show("create THREAD_ID, no such thread", tcreate(CLOCK_MONOTONIC, &ev, &id));
    ev.notify = SIGEV_THREAD;
    show("create SIGEV_THREAD", tcreate(CLOCK_MONOTONIC, &ev, &id));
    printf("  last id %d\n", id);
    struct kits cur;
    show("gettime, no such timer", syscall(SYS_timer_gettime, 999, &cur));
    show("settime, no such timer", tset(999, 0, 1, 0, 0, 0, NULL));
    show("settime, new NULL", syscall(SYS_timer_settime, 0, 0, NULL, NULL));
    show("settime nsec 1e9", tset(0, 0, 0, 1000000000, 0, 0, NULL));
    show("settime interval nsec -1", tset(0, 0, 1, 0, 0, -1, NULL));
    show("settime, new unmapped", syscall(SYS_timer_settime, 0, 0, (void *)16, NULL));
    show("getoverrun, no such timer", syscall(SYS_timer_getoverrun, 999));
    show("delete timer 1", syscall(SYS_timer_delete, 1));
    show("delete it again", syscall(SYS_timer_delete, 1));
    show("gettime, buffer unmapped", syscall(SYS_timer_gettime, 0, (void *)16));
    show("gettime timer 0", syscall(SYS_timer_gettime, 0, &cur));
    printf("  disarmed: %d\n", !cur.isec && !cur.insec && !cur.vsec && !cur.vnsec);
    show("arm 0 for 10 s every 3 s", tset(0, 0, 10, 0, 3, 0, NULL));
    struct kits old;
    show("arm 0 for 20 s, the old setting out", tset(0, 0, 20, 0, 0, 0, &old));
    printf("  old: interval %ld.%09ld, value between 9 and 10 s %d\n", old.isec, old.insec,
           old.vsec == 9 || (old.vsec == 10 && old.vnsec == 0));
    show("gettime timer 0", syscall(SYS_timer_gettime, 0, &cur));
    printf("  interval %ld.%09ld, value between 19 and 20 s %d\n", cur.isec, cur.insec,
           cur.vsec == 19 || (cur.vsec == 20 && cur.vnsec == 0));
    show("disarm, the old setting to unmapped memory", tset(0, 0, 0, 0, 0, 0, (void *)16));
    show("gettime timer 0", syscall(SYS_timer_gettime, 0, &cur));
    printf("  disarmed all the same: %d\n", !cur.vsec && !cur.vnsec);
    show("create after a delete", tcreate(CLOCK_MONOTONIC, NULL, &id));
    printf("  id %d\n", id);
}

static void do_signal(void)
{
    handle(SIGALRM);
    handle(SIGUSR1);
    int id;
    tcreate(CLOCK_MONOTONIC, NULL, &id);
    hid = id;
    got = 0;
    show("one-shot, 20 ms, default event", tset(id, 0, 0, 20000000, 0, 0, NULL));
    wait_for(1);
    printf("  signals %d, code SI_TIMER %d, timerid %d, overrun %d, value is the id %d, "
           "getoverrun %d\n",
           got, got_code == SI_TIMER, got_timerid == id, got_overrun, got_value == id,
           got_getoverrun);
    struct kits cur;
    syscall(SYS_timer_gettime, id, &cur);
    printf("  after it fired: value 0 %d\n", !cur.vsec && !cur.vnsec);

    struct ksigevent ev = { .value.i = 4242, .signo = SIGUSR1,
                            .notify = SIGEV_SIGNAL | SIGEV_THREAD_ID_ };
    ev.tid = (int)syscall(SYS_gettid);
    int tid_timer;
    tcreate(CLOCK_MONOTONIC, &ev, &tid_timer);
    hid = tid_timer;
    got = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    show("THREAD_ID timer, absolute 15 ms from now",
         tset(tid_timer, TIMER_ABSTIME, now.tv_sec + (now.tv_nsec + 15000000) / 1000000000,
              (now.tv_nsec + 15000000) % 1000000000, 0, 0, NULL));
    wait_for(1);
    printf("  signals %d, value %d, timerid %d\n", got, got_value, got_timerid == tid_timer);
    got = 0;
    show("absolute time in the past", tset(tid_timer, TIMER_ABSTIME, 1, 0, 0, 0, NULL));
    wait_for(1);
    printf("  fired: %d\n", got);

    /* What the kernel guarantees is an order, not a duration: the timer
     * fires once the process clock has reached its arming sample plus
     * 30 ms, so the clock read after the signal is at least 30 ms past
     * one read before arming.  The last read before the signal proves
     * nothing: the process clock advances in the steps the scheduler
     * accounts (a loaded VM's vCPU comes back with a large one), and a
     * read just before the step that crossed the expiry can be well
     * short of 30 ms. */
    int cpu_timer;
    tcreate(CLOCK_PROCESS_CPUTIME_ID, NULL, &cpu_timer);
    hid = cpu_timer;
    got = 0;
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    show("CPU-time timer, 30 ms", tset(cpu_timer, 0, 0, 30000000, 0, 0, NULL));
    volatile unsigned long spin = 0;
    while (!got) {
        spin++;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        if (c1.tv_sec - c0.tv_sec > 5)
            break;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    int64_t used = (c1.tv_sec - c0.tv_sec) * 1000000000ll + (c1.tv_nsec - c0.tv_nsec);
    printf("  fired %d, the CPU clock after it at least 30 ms past the one before arming %d\n",
           got, used >= 30000000);

    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigaction(SIGALRM, &ign, NULL);
    got = 0;
    int ign_timer;
    tcreate(CLOCK_MONOTONIC, NULL, &ign_timer);
    show("a timer whose signal is ignored", tset(ign_timer, 0, 0, 5000000, 0, 0, NULL));
    struct timespec ts = { 0, 30000000 };
    nanosleep(&ts, NULL);
    handle(SIGALRM);
    printf("  signals %d\n", got);
}

static void do_overrun(void)
{
    handle(SIGALRM);
    int id;
    tcreate(CLOCK_MONOTONIC, NULL, &id);
    hid = id;
    sigset_t block, empty;
    sigemptyset(&empty);
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    got = 0;
    show("every 10 ms, blocked for 105 ms", tset(id, 0, 0, 10000000, 0, 10000000, NULL));
    struct timespec ts = { 0, 105000000 };
    nanosleep(&ts, NULL);
    show("getoverrun while it waits", syscall(SYS_timer_getoverrun, id));
    struct kits cur;
    syscall(SYS_timer_gettime, id, &cur);
    printf("  gettime: interval %ld.%09ld, value in (0, 10 ms] %d\n", cur.isec, cur.insec,
           cur.vsec == 0 && cur.vnsec > 0 && cur.vnsec <= 10000000);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    wait_for(1);
    /* about 9: ten expiries, one of them the signal itself */
    show("disarm", tset(id, 0, 0, 0, 0, 0, NULL));
    printf("  signals %d, the first's overrun 6 to 14: %d, getoverrun in its handler the same %d\n",
           got >= 1, first_overrun >= 6 && first_overrun <= 14, first_getoverrun == first_overrun);
    show("getoverrun after settime", syscall(SYS_timer_getoverrun, id));
    show("delete", syscall(SYS_timer_delete, id));
}

static void do_none(void)
{
    struct ksigevent ev = { .signo = SIGUSR1, .notify = SIGEV_NONE };
    int id;
    show("create SIGEV_NONE", tcreate(CLOCK_MONOTONIC, &ev, &id));
    show("one-shot 20 ms", tset(id, 0, 0, 20000000, 0, 0, NULL));
    struct kits cur;
    syscall(SYS_timer_gettime, id, &cur);
    printf("  value in (0, 20 ms] %d\n", cur.vsec == 0 && cur.vnsec > 0 && cur.vnsec <= 20000000);
    struct timespec ts = { 0, 30000000 };
    nanosleep(&ts, NULL);
    syscall(SYS_timer_gettime, id, &cur);
    printf("  expired: value 0 %d\n", !cur.vsec && !cur.vnsec);
    show("periodic 10 ms", tset(id, 0, 0, 10000000, 0, 10000000, NULL));
    nanosleep(&ts, NULL);
    syscall(SYS_timer_gettime, id, &cur);
    printf("  value in (0, 10 ms] %d, interval %ld.%09ld\n",
           cur.vsec == 0 && cur.vnsec > 0 && cur.vnsec <= 10000000, cur.isec, cur.insec);
    show("getoverrun", syscall(SYS_timer_getoverrun, id));
}

static void show_usage(const char *what, int who)
{
    struct rusage ru;
    memset(&ru, 0x55, sizeof(ru));
    long r = syscall(SYS_getrusage, who, &ru);
    show(what, r);
    if (r)
        return;
    printf("  maxrss > 0 %d, minflt > 0 %d, never filled all 0 %d\n", ru.ru_maxrss > 0,
           ru.ru_minflt > 0,
           !ru.ru_ixrss && !ru.ru_idrss && !ru.ru_isrss && !ru.ru_nswap && !ru.ru_msgsnd &&
               !ru.ru_msgrcv && !ru.ru_nsignals);
    printf("  usec < 1e6 %d\n", ru.ru_utime.tv_usec < 1000000 && ru.ru_stime.tv_usec < 1000000);
}

static void do_usage(void)
{
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    do
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    while ((c1.tv_sec - c0.tv_sec) * 1000000000ll + (c1.tv_nsec - c0.tv_nsec) < 60000000);
    show_usage("getrusage RUSAGE_SELF", RUSAGE_SELF);
    show_usage("getrusage RUSAGE_THREAD", RUSAGE_THREAD);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    int64_t usage = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ll + ru.ru_utime.tv_usec +
                    ru.ru_stime.tv_usec;
    int64_t clock_us = c1.tv_sec * 1000000ll + c1.tv_nsec / 1000;
    printf("  user+system at least 50 ms %d, at most the CPU clock %d\n", usage >= 50000,
           usage <= clock_us + 1000);
    memset(&ru, 0x55, sizeof(ru));
    show("getrusage RUSAGE_CHILDREN, no children", syscall(SYS_getrusage, RUSAGE_CHILDREN, &ru));
    const long *w = (const long *)&ru;
    int zero = 1;
    for (size_t i = 0; i < sizeof(ru) / sizeof(long); i++)
        zero &= w[i] == 0;
    printf("  all zero %d\n", zero);
    show("getrusage 2", syscall(SYS_getrusage, 2, &ru));
    show("getrusage -2", syscall(SYS_getrusage, -2, &ru));
    show("getrusage unmapped", syscall(SYS_getrusage, RUSAGE_SELF, (void *)16));
}

struct rl64 {
    uint64_t cur, max;
};

static void do_limits(void)
{
    int same = 1, ordered = 1;
    for (int r = 0; r < 16; r++) {
        struct rlimit a;
        struct rl64 b;
        long ra = syscall(SYS_getrlimit, r, &a);
        long rb = syscall(SYS_prlimit64, 0, r, NULL, &b);
        uint64_t acur = a.rlim_cur == RLIM_INFINITY ? UINT64_MAX : a.rlim_cur;
        uint64_t amax = a.rlim_max == RLIM_INFINITY ? UINT64_MAX : a.rlim_max;
        same &= ra == 0 && rb == 0 && (sizeof(long) == 4 || (acur == b.cur && amax == b.max));
        ordered &= b.cur <= b.max;
    }
    printf("getrlimit and prlimit64 agree on all 16: %d, cur <= max: %d\n", same, ordered);
    struct rl64 v;
    show("prlimit64 resource 16", syscall(SYS_prlimit64, 0, 16, NULL, &v));
    show("prlimit64 resource 16, new unmapped", syscall(SYS_prlimit64, 0, 16, (void *)16, NULL));
    show("prlimit64 no such pid, resource 16", syscall(SYS_prlimit64, 0x7fffffff, 16, NULL, NULL));
    show("prlimit64 no such pid, new unmapped",
         syscall(SYS_prlimit64, 0x7fffffff, RLIMIT_CORE, (void *)16, NULL));
    show("prlimit64 own pid", syscall(SYS_prlimit64, getpid(), RLIMIT_CORE, NULL, &v));
    struct rl64 bad = { 5, 3 };
    show("prlimit64 cur > max", syscall(SYS_prlimit64, 0, RLIMIT_CORE, &bad, NULL));
    struct rl64 big = { 64, 1ull << 40 };
    show("prlimit64 NOFILE max 2^40", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &big, NULL));
    /* below every hard limit a judge has (the emulator's table: 1024) */
    struct rl64 low = { 200, 500 };
    show("prlimit64 NOFILE 200/500", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &low, NULL));
    struct rl64 lower = { 100, 400 };
    show("prlimit64 lower it, old to unmapped memory",
         syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &lower, (void *)16));
    syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &v);
    printf("  applied all the same: %llu/%llu\n", (unsigned long long)v.cur,
           (unsigned long long)v.max);
    struct rl64 old = { 0, 0 };
    show("prlimit64 swap in 50/400", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &(struct rl64){ 50, 400 }, &old));
    printf("  old %llu/%llu\n", (unsigned long long)old.cur, (unsigned long long)old.max);
    struct rlimit r = { 7, 300 };
    show("setrlimit resource 99", syscall(SYS_setrlimit, 99, &r));
    show("setrlimit resource 99, unmapped", syscall(SYS_setrlimit, 99, (void *)16));
    show("setrlimit NOFILE 7/300", syscall(SYS_setrlimit, RLIMIT_NOFILE, &r));
    show("getrlimit resource 99", syscall(SYS_getrlimit, 99, &r));
    show("getrlimit unmapped", syscall(SYS_getrlimit, RLIMIT_NOFILE, (void *)16));
    syscall(SYS_getrlimit, RLIMIT_NOFILE, &r);
    printf("  NOFILE now %lu/%lu\n", (unsigned long)r.rlim_cur, (unsigned long)r.rlim_max);
    /* (Raising a hard limit is left out: natively root may, the guest
     * never holds CAP_SYS_RESOURCE.) */
#if defined(__i386__)
    /* the old call clamps infinity to 0x7fffffff, ugetrlimit does not */
    syscall(SYS_getrlimit, RLIMIT_AS, &r); /* infinite wherever the judges run */
    printf("  old getrlimit AS: %#lx/%#lx\n", (unsigned long)r.rlim_cur, (unsigned long)r.rlim_max);
    syscall(SYS_ugetrlimit, RLIMIT_AS, &r);
    printf("  ugetrlimit: %#lx/%#lx\n", (unsigned long)r.rlim_cur, (unsigned long)r.rlim_max);
#endif
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "create"))
        do_create();
    else if (!strcmp(c, "signal"))
        do_signal();
    else if (!strcmp(c, "overrun"))
        do_overrun();
    else if (!strcmp(c, "none"))
        do_none();
    else if (!strcmp(c, "usage"))
        do_usage();
    else if (!strcmp(c, "limits"))
        do_limits();
    else
        return 2;
    return 0;
}
