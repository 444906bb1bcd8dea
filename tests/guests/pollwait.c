/* The poll family on the descriptors a guest has without creating any:
 * stdin (/dev/null or a file), stdout and stderr (pipes to the judge),
 * closed and negative descriptors, and epoll instances.  Every answer the
 * kernel gives is printed: results, errno, revents, fd sets, remaining
 * timeouts, which signal handlers ran with which mask; times only as
 * bounds.
 *   pollwait poll | ppoll | select | pselect | epoll | epoll_order |
 *            epoll_nest | epoll_signal */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "show_result.h"

/* The kernel's structures, whatever the C library makes of them. */
struct kts {
    long sec, nsec; /* i386: the 32-bit calls; x86_64: 64-bit */
};
struct kts64 {
    int64_t sec, nsec;
};
struct ktv {
    long sec, usec;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static volatile sig_atomic_t handled;
static sigset_t mask_in_handler;

static void on_signal(int sig)
{
    handled = sig;
    sigprocmask(SIG_SETMASK, NULL, &mask_in_handler);
}

static void handle(int sig, int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = flags;
    sigaction(sig, &sa, NULL);
}

/* An alarm `ms` from now, through ITIMER_REAL. */
static void alarm_ms(int ms)
{
    struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

static void show_mask(const char *what, const sigset_t *m)
{
    printf("%s: SIGUSR1 %d, SIGUSR2 %d, SIGALRM %d\n", what, sigismember(m, SIGUSR1),
           sigismember(m, SIGUSR2), sigismember(m, SIGALRM));
}

static void show_current_mask(const char *what)
{
    sigset_t m;
    sigprocmask(SIG_SETMASK, NULL, &m);
    show_mask(what, &m);
}

/* A page the kernel can read but not write. */
static void *read_only_page(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p;
}

static void seal(void *p)
{
    mprotect(p, 4096, PROT_READ);
}

/* ---- poll ---- */

static void do_poll(void)
{
    struct pollfd p[6] = {
        { 0, POLLIN | POLLOUT, 0 }, { 1, POLLIN | POLLOUT, 0 }, { 2, POLLOUT | POLLPRI, 0 },
        { -1, POLLIN, 77 },         { 99, 0, 0 },               { 1, 0, 0 },
    };
    show("poll six, timeout 0", syscall(SYS_poll, p, 6, 0));
    for (int i = 0; i < 6; i++)
        printf("  fd %d revents 0x%x\n", p[i].fd, (unsigned)(uint16_t)p[i].revents);
    int64_t t0 = now_ms();
    show("poll none, 30 ms", syscall(SYS_poll, NULL, 0, 30));
    printf("  waited at least 30 ms: %d\n", now_ms() - t0 >= 30);
    t0 = now_ms();
    struct pollfd neg = { -5, POLLIN, 0 };
    show("poll a negative fd, 20 ms", syscall(SYS_poll, &neg, 1, 20));
    printf("  waited at least 20 ms: %d\n", now_ms() - t0 >= 20);
    struct pollfd out = { 1, POLLOUT, 0 };
    show("poll ready, timeout -1", syscall(SYS_poll, &out, 1, -1));

    struct rlimit rl = { 64, 64 };
    setrlimit(RLIMIT_NOFILE, &rl);
    show("poll 65 fds, RLIMIT_NOFILE 64", syscall(SYS_poll, NULL, 65, 0));
    show("poll 64 fds at NULL", syscall(SYS_poll, NULL, 64, 0));
    char *page = read_only_page();
    struct pollfd *at_end = (struct pollfd *)(page + 4096 - sizeof(struct pollfd));
    *at_end = (struct pollfd){ 1, POLLOUT, 0 };
    show("poll running off its page", syscall(SYS_poll, at_end, 2, 0));
    seal(page);
    show("poll with revents read-only", syscall(SYS_poll, at_end, 1, 0));

    for (int restart = 0; restart < 2; restart++) {
        handle(SIGALRM, restart ? SA_RESTART : 0);
        handled = 0;
        alarm_ms(20);
        struct pollfd none = { -1, 0, 0 };
        printf("SA_RESTART %d: ", restart);
        show("poll interrupted", syscall(SYS_poll, &none, 1, 5000));
        printf("  handler ran: %d\n", handled == SIGALRM);
    }
}

/* ---- ppoll ---- */

static long ppoll_raw(struct pollfd *p, unsigned n, void *ts, const sigset_t *m, size_t sz)
{
    return syscall(SYS_ppoll, p, n, ts, m, sz);
}

static void do_ppoll(void)
{
    struct pollfd out = { 1, POLLOUT, 0 };
    struct kts bad = { 0, 1000000000 };
    show("ppoll nsec 1e9", ppoll_raw(&out, 1, &bad, NULL, 8));
    struct kts neg = { -1, 0 };
    show("ppoll sec -1", ppoll_raw(&out, 1, &neg, NULL, 8));
    show("ppoll timespec unmapped", ppoll_raw(&out, 1, (void *)16, NULL, 8));
    sigset_t empty;
    sigemptyset(&empty);
    show("ppoll sigsetsize 4", ppoll_raw(&out, 1, NULL, &empty, 4));
    show("ppoll sigmask unmapped", ppoll_raw(&out, 1, NULL, (void *)16, 8));
    show("ppoll ready, no timeout", ppoll_raw(&out, 1, NULL, NULL, 0));
    struct kts left = { 7, 5 };
    show("ppoll ready, 7 s", ppoll_raw(&out, 1, &left, NULL, 0));
    printf("  time left written: between 6 and 7 s %d\n",
           left.sec == 6 || (left.sec == 7 && left.nsec <= 5));
    struct kts zero = { 0, 0 };
    show("ppoll nothing, zero timeout", ppoll_raw(NULL, 0, &zero, NULL, 0));
    printf("  zero timeout left alone: %d\n", zero.sec == 0 && zero.nsec == 0);
    struct kts short_ts = { 0, 20000000 };
    show("ppoll nothing, 20 ms", ppoll_raw(NULL, 0, &short_ts, NULL, 0));
    printf("  time left: %ld.%09ld\n", short_ts.sec, short_ts.nsec);
    struct kts *ro = read_only_page();
    *ro = (struct kts){ 3, 0 };
    seal(ro);
    show("ppoll ready, timeout read-only", ppoll_raw(&out, 1, ro, NULL, 0));

    /* A pending SIGUSR1, blocked; ppoll's mask lets it in. */
    handle(SIGUSR1, 0);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigaddset(&block, SIGUSR2);
    sigprocmask(SIG_SETMASK, &block, NULL);
    raise(SIGUSR1);
    sigset_t during;
    sigemptyset(&during);
    sigaddset(&during, SIGUSR2);
    sigaddset(&during, SIGALRM);
    handled = 0;
    struct kts five = { 5, 0 };
    show("ppoll with a mask that lets a pending signal in", ppoll_raw(NULL, 0, &five, &during, 8));
    printf("  handler ran: %d\n", handled == SIGUSR1);
    show_mask("  mask in the handler", &mask_in_handler);
    show_current_mask("  mask after");
    printf("  time left between 4 and 5 s: %d\n", five.sec == 4 || (five.sec == 5 && five.nsec == 0));
    raise(SIGUSR1);
    handled = 0;
    struct kts zero2 = { 0, 0 };
    show("ppoll zero timeout, the same mask", ppoll_raw(NULL, 0, &zero2, &during, 8));
    printf("  handler ran: %d\n", handled == SIGUSR1);
    show_current_mask("  mask after");
    sigset_t pend;
    sigpending(&pend);
    printf("  SIGUSR1 still pending: %d\n", sigismember(&pend, SIGUSR1));
    sigprocmask(SIG_SETMASK, &empty, NULL);
    printf("  handler ran once unblocked: %d\n", handled == SIGUSR1);
}

/* ---- select ---- */

#if defined(__i386__)
#define SYS_SELECT_NEW SYS__newselect
#else
#define SYS_SELECT_NEW SYS_select
#endif

static void show_set(const char *what, const fd_set *s, int n)
{
    printf("  %s:", what);
    for (int fd = 0; fd < n; fd++)
        if (FD_ISSET(fd, s))
            printf(" %d", fd);
    printf("\n");
}

static void do_select(void)
{
    fd_set in, out, ex;
    FD_ZERO(&in);
    FD_ZERO(&out);
    FD_ZERO(&ex);
    FD_SET(0, &in);
    FD_SET(1, &out);
    FD_SET(2, &out);
    FD_SET(1, &ex);
    FD_SET(1, &in);
    struct ktv tv = { 0, 0 };
    show("select 0-2, zero timeout", syscall(SYS_SELECT_NEW, 3, &in, &out, &ex, &tv));
    show_set("in", &in, 8);
    show_set("out", &out, 8);
    show_set("ex", &ex, 8);

    FD_ZERO(&in);
    FD_SET(50, &in);
    show("select a closed fd 50", syscall(SYS_SELECT_NEW, 51, &in, NULL, NULL, &tv));
    /* How far select() looks (the table's size) depends on the parent's
     * table at fork: grow it first. */
    dup2(0, 100);
    close(100);
    FD_ZERO(&in);
    FD_SET(100, &in);
    show("select closed fd 100, table grown", syscall(SYS_SELECT_NEW, 101, &in, NULL, NULL, &tv));
    show("select n -1", syscall(SYS_SELECT_NEW, -1, NULL, NULL, NULL, &tv));
    struct ktv norm = { 0, 1500000 };
    FD_ZERO(&out);
    FD_SET(1, &out);
    show("select usec 1500000", syscall(SYS_SELECT_NEW, 2, NULL, &out, NULL, &norm));
    printf("  left: %ld s, below 1.5 s %d\n", norm.sec, norm.sec == 1 && norm.usec <= 500000);
    struct ktv negu = { 1, -1 };
    show("select usec -1", syscall(SYS_SELECT_NEW, 2, NULL, &out, NULL, &negu));
    show("select sets unmapped", syscall(SYS_SELECT_NEW, 2, NULL, (void *)16, NULL, &tv));
    int64_t t0 = now_ms();
    struct ktv wait = { 0, 25000 };
    FD_ZERO(&in);
    FD_SET(2, &in); /* a pipe's write end is never readable */
    show("select nothing ready, 25 ms", syscall(SYS_SELECT_NEW, 3, &in, NULL, NULL, &wait));
    printf("  waited at least 25 ms %d, left %ld.%06ld, set cleared %d\n", now_ms() - t0 >= 25,
           wait.sec, wait.usec, !FD_ISSET(2, &in));
    t0 = now_ms();
    struct ktv sleep = { 0, 20000 };
    show("select as a sleep", syscall(SYS_SELECT_NEW, 0, NULL, NULL, NULL, &sleep));
    printf("  waited at least 20 ms %d\n", now_ms() - t0 >= 20);
    handle(SIGALRM, SA_RESTART);
    handled = 0;
    alarm_ms(20);
    struct ktv longer = { 5, 0 };
    show("select interrupted (SA_RESTART)", syscall(SYS_SELECT_NEW, 0, NULL, NULL, NULL, &longer));
    printf("  handler ran %d, left between 4 and 5 s %d\n", handled == SIGALRM,
           longer.sec == 4 || (longer.sec == 5 && longer.usec == 0));
#if defined(__i386__)
    struct {
        unsigned long n;
        void *in, *out, *ex, *tv;
    } args = { 3, NULL, &out, NULL, &tv };
    FD_ZERO(&out);
    FD_SET(1, &out);
    show("old select(2) through one pointer", syscall(SYS_select, &args));
    show_set("out", &out, 8);
    show("old select(2), the pointer unmapped", syscall(SYS_select, (void *)16));
#endif
}

/* ---- pselect6 ---- */

static void do_pselect(void)
{
    sigset_t empty, block, during;
    sigemptyset(&empty);
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigemptyset(&during);
    sigaddset(&during, SIGUSR2);
    struct {
        const sigset_t *p;
        size_t size;
    } pack = { &during, 8 }, badsize = { &during, 7 };
    struct kts zero = { 0, 0 };
    fd_set out;
    FD_ZERO(&out);
    FD_SET(1, &out);
    show("pselect6 ready, mask", syscall(SYS_pselect6, 2, NULL, &out, NULL, &zero, &pack));
    show("pselect6 sigsetsize 7", syscall(SYS_pselect6, 2, NULL, &out, NULL, &zero, &badsize));
    show("pselect6 argpack unmapped", syscall(SYS_pselect6, 2, NULL, &out, NULL, &zero, (void *)16));
    struct kts bad = { 0, -1 };
    show("pselect6 nsec -1", syscall(SYS_pselect6, 2, NULL, &out, NULL, &bad, &pack));

    handle(SIGUSR1, 0);
    sigprocmask(SIG_SETMASK, &block, NULL);
    raise(SIGUSR1);
    handled = 0;
    /* Unlike poll, select gives way to a pending signal even with a zero
     * timeout and nothing ready (core_sys_select). */
    show("pselect6 zero timeout, a pending signal let in",
         syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &pack));
    printf("  handler ran: %d\n", handled == SIGUSR1);
    show_mask("  mask in the handler", &mask_in_handler);
    show_current_mask("  mask after");
    raise(SIGUSR1);
    handled = 0;
    FD_ZERO(&out);
    FD_SET(1, &out);
    show("pselect6 ready, a pending signal let in",
         syscall(SYS_pselect6, 2, NULL, &out, NULL, &zero, &pack));
    printf("  handler ran: %d\n", handled == SIGUSR1);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    printf("  handler ran once unblocked: %d\n", handled == SIGUSR1);
}

/* ---- epoll ---- */

static int ep_ctl(int ep, int op, int fd, uint32_t events, uint64_t data)
{
    struct epoll_event ev = { .events = events, .data.u64 = data };
    return epoll_ctl(ep, op, fd, &ev);
}

static void show_wait(const char *what, int ep, int max, int timeout)
{
    struct epoll_event ev[8];
    int n = epoll_wait(ep, ev, max, timeout);
    show(what, n);
    for (int i = 0; i < n; i++)
        printf("  events 0x%x data %llu\n", ev[i].events, (unsigned long long)ev[i].data.u64);
}

static uintptr_t argc_zero; /* NULL the compiler cannot see */

static void do_epoll(void)
{
    show("epoll_create 0", syscall(SYS_epoll_create, 0));
    show("epoll_create1 1", syscall(SYS_epoll_create1, 1));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    printf("epoll_create1(EPOLL_CLOEXEC) gives a descriptor: %d, FD_CLOEXEC %d, F_GETFL O_RDWR %d\n",
           ep >= 0, fcntl(ep, F_GETFD), (fcntl(ep, F_GETFL) & O_ACCMODE) == O_RDWR);
    show("ADD stdin (/dev/null or a file)", ep_ctl(ep, EPOLL_CTL_ADD, 0, EPOLLIN, 0));
    show("ADD stdout EPOLLOUT", ep_ctl(ep, EPOLL_CTL_ADD, 1, EPOLLOUT, 1));
    show("ADD stdout again", ep_ctl(ep, EPOLL_CTL_ADD, 1, EPOLLOUT, 1));
    show("MOD stderr, not added", ep_ctl(ep, EPOLL_CTL_MOD, 2, EPOLLOUT, 2));
    show("DEL stderr, not added", epoll_ctl(ep, EPOLL_CTL_DEL, 2, NULL));
    show("ADD the instance to itself", ep_ctl(ep, EPOLL_CTL_ADD, ep, EPOLLIN, 0));
    show("ctl on a descriptor that is no epoll", ep_ctl(1, EPOLL_CTL_ADD, 2, EPOLLOUT, 0));
    show("ctl on a closed epfd", ep_ctl(77, EPOLL_CTL_ADD, 2, EPOLLOUT, 0));
    show("ADD a closed fd", ep_ctl(ep, EPOLL_CTL_ADD, 77, EPOLLOUT, 0));
    show("ADD, event unmapped", epoll_ctl(ep, EPOLL_CTL_ADD, 2, (void *)16));
    show("op 7", ep_ctl(ep, 7, 2, EPOLLOUT, 0));
    show("op 7, event unmapped", epoll_ctl(ep, 7, 2, (void *)16));
    show("ADD stderr EXCLUSIVE|OUT", ep_ctl(ep, EPOLL_CTL_ADD, 2, EPOLLEXCLUSIVE | EPOLLOUT, 2));
    show("MOD it", ep_ctl(ep, EPOLL_CTL_MOD, 2, EPOLLOUT, 2));
    show("MOD stdout with EXCLUSIVE", ep_ctl(ep, EPOLL_CTL_MOD, 1, EPOLLEXCLUSIVE | EPOLLOUT, 1));
    show("DEL stderr", epoll_ctl(ep, EPOLL_CTL_DEL, 2, NULL));
    show("ADD stderr EXCLUSIVE|PRI", ep_ctl(ep, EPOLL_CTL_ADD, 2, EPOLLEXCLUSIVE | EPOLLPRI, 2));
    int inner = epoll_create1(0);
    show("ADD an epoll EXCLUSIVE", ep_ctl(ep, EPOLL_CTL_ADD, inner, EPOLLEXCLUSIVE | EPOLLIN, 9));
    close(inner);

    show("wait maxevents 0", epoll_wait(ep, (struct epoll_event[1]){}, 0, 0));
    show("wait on a closed epfd", epoll_wait(77, (struct epoll_event[1]){}, 1, 0));
    show("wait on stdout", epoll_wait(1, (struct epoll_event[1]){}, 1, 0));
    show("wait, buffer past user space", epoll_wait(ep, (void *)-4096L, 1, 0));
    show("wait, buffer NULL, an event ready", epoll_wait(ep, (void *)(uintptr_t)argc_zero, 1, 0));
    show_wait("level-triggered OUT", ep, 8, 0);
    show_wait("again", ep, 8, 0);
    show("MOD stdout OUT|ET", ep_ctl(ep, EPOLL_CTL_MOD, 1, EPOLLOUT | EPOLLET, 11));
    show_wait("edge-triggered, after MOD", ep, 8, 0);
    show_wait("edge-triggered, again", ep, 8, 0);
    show("MOD stdout OUT|ONESHOT", ep_ctl(ep, EPOLL_CTL_MOD, 1, EPOLLOUT | EPOLLONESHOT, 12));
    show_wait("one-shot", ep, 8, 0);
    show_wait("one-shot, again", ep, 8, 0);
    show("MOD re-arms it", ep_ctl(ep, EPOLL_CTL_MOD, 1, EPOLLOUT | EPOLLONESHOT, 13));
    show_wait("one-shot, re-armed", ep, 8, 0);
    show("MOD stdout IN only", ep_ctl(ep, EPOLL_CTL_MOD, 1, EPOLLIN, 14));
    int64_t t0 = now_ms();
    show_wait("nothing ready, 30 ms", ep, 8, 30);
    printf("  waited at least 30 ms: %d\n", now_ms() - t0 >= 30);
    handle(SIGALRM, SA_RESTART);
    handled = 0;
    alarm_ms(20);
    show_wait("interrupted (SA_RESTART)", ep, 8, -1);
    printf("  handler ran: %d\n", handled == SIGALRM);

    char buf[4];
    show("read the epoll fd", read(ep, buf, sizeof(buf)));
    show("write the epoll fd", write(ep, buf, sizeof(buf)));
    struct pollfd p = { ep, POLLIN | POLLOUT, 0 };
    show("poll the epoll fd, nothing ready", poll(&p, 1, 0));
    show("MOD stdout OUT", ep_ctl(ep, EPOLL_CTL_MOD, 1, EPOLLOUT, 15));
    show("poll the epoll fd, stdout ready", poll(&p, 1, 0));
    printf("  revents 0x%x\n", (unsigned)p.revents);
    close(ep);
}

/* maxevents below what is ready: the ready list goes round. */
static void do_epoll_order(void)
{
    int ep = epoll_create1(0);
    int dup_out = dup(1);
    ep_ctl(ep, EPOLL_CTL_ADD, 1, EPOLLOUT, 100);
    ep_ctl(ep, EPOLL_CTL_ADD, 2, EPOLLOUT, 200);
    ep_ctl(ep, EPOLL_CTL_ADD, dup_out, EPOLLOUT, 300);
    for (int i = 0; i < 4; i++)
        show_wait("wait for one", ep, 1, 0);
    show_wait("wait for two", ep, 2, 0);
    show_wait("wait for eight", ep, 8, 0);
    /* The item names the file, not the number: closing one of two names
     * leaves it, and it still reports the closed number's data. */
    close(dup_out);
    show_wait("after closing the dup", ep, 8, 0);
    show("DEL the closed number", epoll_ctl(ep, EPOLL_CTL_DEL, dup_out, NULL));
    int again = dup(1);
    printf("the dup's number again: %d\n", again == dup_out);
    show("ADD it again", ep_ctl(ep, EPOLL_CTL_ADD, again, EPOLLOUT, 400));
    show_wait("wait for eight", ep, 8, 0);
    close(again);
    close(ep);
}

static void do_epoll_nest(void)
{
    int outer = epoll_create1(0), inner = epoll_create1(0);
    show("ADD inner to outer", ep_ctl(outer, EPOLL_CTL_ADD, inner, EPOLLIN, 1));
    show_wait("outer, inner empty", outer, 8, 0);
    show("ADD stdout to inner", ep_ctl(inner, EPOLL_CTL_ADD, 1, EPOLLOUT, 2));
    show_wait("outer, inner ready", outer, 8, 0);
    show_wait("inner", inner, 8, 0);
    show("ADD outer to inner", ep_ctl(inner, EPOLL_CTL_ADD, outer, EPOLLIN, 3));
    int third = epoll_create1(0);
    show("ADD outer to a third", ep_ctl(third, EPOLL_CTL_ADD, outer, EPOLLIN, 4));
    show("ADD the third to inner", ep_ctl(inner, EPOLL_CTL_ADD, third, EPOLLIN, 5));
    close(inner);
    show_wait("outer, inner closed", outer, 8, 0);
    close(third);
    close(outer);
}

static void do_epoll_signal(void)
{
    int ep = epoll_create1(0);
    sigset_t empty, block, during;
    sigemptyset(&empty);
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigemptyset(&during);
    sigaddset(&during, SIGUSR2);
    struct epoll_event ev[2];
    show("epoll_pwait sigsetsize 4", syscall(SYS_epoll_pwait, ep, ev, 2, 0, &during, 4));
    show("epoll_pwait sigmask unmapped", syscall(SYS_epoll_pwait, ep, ev, 2, 0, (void *)16, 8));
    handle(SIGUSR1, SA_RESTART);
    sigprocmask(SIG_SETMASK, &block, NULL);
    raise(SIGUSR1);
    handled = 0;
    show("epoll_pwait zero timeout, a pending signal let in",
         syscall(SYS_epoll_pwait, ep, ev, 2, 0, &during, 8));
    printf("  handler ran: %d\n", handled == SIGUSR1);
    show_current_mask("  mask after");
    handled = 0;
    show("epoll_pwait 5 s, a pending signal let in",
         syscall(SYS_epoll_pwait, ep, ev, 2, 5000, &during, 8));
    printf("  handler ran: %d\n", handled == SIGUSR1);
    show_mask("  mask in the handler", &mask_in_handler);
    show_current_mask("  mask after");
    sigprocmask(SIG_SETMASK, &empty, NULL);
#ifdef SYS_epoll_pwait2
    struct kts64 bad = { 0, 1000000000 };
    show("epoll_pwait2 nsec 1e9", syscall(SYS_epoll_pwait2, ep, ev, 2, &bad, NULL, 8));
    show("epoll_pwait2 timespec unmapped", syscall(SYS_epoll_pwait2, ep, ev, 2, (void *)16, NULL, 8));
    struct kts64 wait = { 0, 20000000 };
    int64_t t0 = now_ms();
    show("epoll_pwait2 20 ms", syscall(SYS_epoll_pwait2, ep, ev, 2, &wait, NULL, 8));
    printf("  waited at least 20 ms: %d\n", now_ms() - t0 >= 20);
    ep_ctl(ep, EPOLL_CTL_ADD, 1, EPOLLOUT, 1);
    show("epoll_pwait2 no timeout, ready", syscall(SYS_epoll_pwait2, ep, ev, 2, NULL, NULL, 8));
#endif
    close(ep);
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "poll"))
        do_poll();
    else if (!strcmp(c, "ppoll"))
        do_ppoll();
    else if (!strcmp(c, "select"))
        do_select();
    else if (!strcmp(c, "pselect"))
        do_pselect();
    else if (!strcmp(c, "epoll"))
        do_epoll();
    else if (!strcmp(c, "epoll_order"))
        do_epoll_order();
    else if (!strcmp(c, "epoll_nest"))
        do_epoll_nest();
    else if (!strcmp(c, "epoll_signal"))
        do_epoll_signal();
    else
        return 2;
    return 0;
}
