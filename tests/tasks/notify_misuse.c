/* The seccomp listener used badly (bad input: never a crash, a hang or a
 * wrong answer): unmapped and read-only buffers for RECV, SEND, ID_VALID
 * and ADDFD, ADDFD's size rules, unknown ioctls, read/write/fstat on the
 * listener, SET_FLAGS, RECV interrupted by a signal, epoll on it, and a
 * second listener once the first is closed.  A forked child is the
 * notified task; its calls are getppid.  Run natively and under
 * seccomp-emu by check_tasks.py. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS /* Linux 6.6; Debian 12's headers are 6.1's */
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static const char *res(long r) { return r < 0 ? strerrorname_np(errno) : "0"; }

static int install(unsigned flags)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog p = { 4, f };
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

static void on_alarm(int s) { (void)s; }

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    int go[2], back[2];
    pipe(go);
    pipe(back);

    int l = install(SECCOMP_FILTER_FLAG_NEW_LISTENER);
    printf("listener: %s\n", l >= 0 ? "made" : res(l));
    /* The listener as a file. */
    char b[8];
    struct stat st;
    fstat(l, &st);
    printf("read -> %s, write -> %s, fstat mode=%#o\n", res(read(l, b, 1)), res(write(l, "x", 1)),
           st.st_mode);
    int avail;
    printf("FIONREAD -> %s, FIONBIO -> %s, ioctl 0x1234 -> %s\n",
           res(ioctl(l, FIONREAD, &avail)), res(ioctl(l, FIONBIO, &(int){ 0 })),
           res(ioctl(l, 0x1234, 0)));
    printf("SET_FLAGS 2 -> %s, SET_FLAGS 1 -> %s\n",
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 2UL)),
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 1UL)));
    ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 0UL);

    /* Unmapped and read-only buffers with nothing pending. */
    void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("RECV(unmapped) -> %s, SEND(unmapped) -> %s, ID_VALID(unmapped) -> %s, "
           "ADDFD(unmapped) -> %s\n",
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, none)),
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, none)),
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_ID_VALID, none)),
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_ADDFD, none)));
    /* RECV with nothing pending, interrupted (no SA_RESTART). */
    struct sigaction sa = { 0 };
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct seccomp_notif n;
    memset(&n, 0, sizeof n);
    alarm(1);
    long r = ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &n);
    printf("RECV with nothing pending, SIGALRM -> %s\n", res(r));

    /* A notified task: a child that inherited the filter. */
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 7 };
    printf("epoll_ctl ADD listener -> %s\n", res(epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev)));
    pid_t c = fork();
    if (c == 0) {
        /* The notified task: it inherited the filter; what its calls
         * returned goes back to the parent, which prints it in order. */
        close(l); /* the parent's copy must be the last */
        close(ep);
        char x;
        read(go[0], &x, 1);
        long v[4];
        errno = 0;
        v[0] = syscall(SYS_getppid);
        v[1] = errno;
        errno = 0;
        v[2] = syscall(SYS_getppid);
        v[3] = errno;
        write(back[1], v, sizeof v);
        _exit(0);
    }
    struct epoll_event got;
    printf("epoll_wait before the call -> %d\n", epoll_wait(ep, &got, 1, 0));
    write(go[1], "g", 1);
    int k = epoll_wait(ep, &got, 1, 5000);
    printf("epoll_wait after the call -> %d events=%#x data=%u\n", k, k > 0 ? got.events : 0,
           k > 0 ? got.data.u32 : 0);
    /* RECV into a read-only (zeroed) buffer: EFAULT, and the notification
     * stays queued for the next RECV. */
    printf("RECV(read-only) -> %s\n", res(ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, ro)));
    struct pollfd p = { l, POLLIN | POLLOUT, 0 };
    poll(&p, 1, 0);
    printf("poll after it: revents=%#x\n", p.revents);
    memset(&n, 0, sizeof n);
    r = ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &n);
    printf("RECV -> %s (pid is the child: %d)\n", res(r), n.pid == (unsigned)c);
    p.revents = 0;
    poll(&p, 1, 0);
    printf("poll while received: revents=%#x\n", p.revents);
    /* ADDFD's size rules: the extensible ioctl, its size in the number. */
    struct {
        struct seccomp_notif_addfd a;
        unsigned long long tail;
    } big = { { n.id, 0, 0, 0, 0 }, 0 };
    unsigned long small = _IOW('!', 3, __u64);
    unsigned long larger = _IOW('!', 3, big);
    printf("ADDFD size 8 -> %s", res(ioctl(l, small, &big)));
    big.tail = 1;
    printf(", size 32 with a non-zero tail -> %s", res(ioctl(l, larger, &big)));
    big.tail = 0;
    long fd = ioctl(l, larger, &big);
    printf(", size 32 zero tail -> %s\n", fd >= 0 ? "a descriptor" : res(fd));
    printf("ADDFD SETFD newfd=-1 -> %s\n",
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_ADDFD,
                     &(struct seccomp_notif_addfd){ n.id, SECCOMP_ADDFD_FLAG_SETFD, 0, -1, 0 })));
    printf("ADDFD SETFD newfd=1000000 -> %s\n",
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_ADDFD,
                     &(struct seccomp_notif_addfd){ n.id, SECCOMP_ADDFD_FLAG_SETFD, 0, 1000000, 0 })));
    printf("ADDFD flags=4 -> %s\n",
           res(ioctl(l, SECCOMP_IOCTL_NOTIF_ADDFD,
                     &(struct seccomp_notif_addfd){ n.id, 4, 0, 0, 0 })));
    /* SEND from a read-only copy works (SEND only reads). */
    struct seccomp_notif_resp *rr = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *rr = (struct seccomp_notif_resp){ n.id, 41, 0, 0 };
    mprotect(rr, 4096, PROT_READ);
    printf("SEND from read-only memory -> %s\n", res(ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, rr)));
    /* (A second SEND races the child's return: EINPROGRESS or ENOENT.) */
    /* The second call: the listener is closed while it waits. */
    memset(&n, 0, sizeof n);
    ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &n);
    close(l);
    waitpid(c, NULL, 0);
    long v[4] = { 0 };
    read(back[0], v, sizeof v);
    printf("child: first call -> %ld errno=%s, second (listener closed meanwhile) -> %ld errno=%s\n",
           v[0], v[1] ? strerrorname_np((int)v[1]) : "0", v[2], v[3] ? strerrorname_np((int)v[3]) : "0");
    /* A new listener in the same chain, now that the first is closed. */
    int l2 = install(SECCOMP_FILTER_FLAG_NEW_LISTENER);
    printf("NEW_LISTENER after the first was closed: %s\n", l2 >= 0 ? "made" : res(l2));
    int l3 = install(SECCOMP_FILTER_FLAG_NEW_LISTENER);
    printf("and a third: %s\n", l3 >= 0 ? "made" : res(l3));
    return 0;
}
