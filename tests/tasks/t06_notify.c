/* t06_notify: SECCOMP_RET_USER_NOTIF.  A forked child C installs a
 * NEW_LISTENER filter on getppid and passes the fd to the parent P over a
 * SOCK_SEQPACKET socket (SCM_RIGHTS).  C reports what it saw back over the
 * socket so that P prints everything in a deterministic order.
 * Build: gcc -O2 -static -pthread [-m32] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

static int sk[2]; /* sk[0]: parent end, sk[1]: child end */

/* ---------- child side helpers ---------- */
static void csay(const char *fmt, ...)
{
    char b[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    write(sk[1], b, strlen(b) + 1);
}
static int install_listener(unsigned flags)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog p = {4, f};
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}
static void send_fd(int fd)
{
    char c = 'F';
    struct iovec iov = {&c, 1};
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
    struct msghdr m = {0};
    m.msg_iov = &iov; m.msg_iovlen = 1;
    m.msg_control = u.b; m.msg_controllen = sizeof u.b;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET; cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    sendmsg(sk[1], &m, 0);
}
#define CALL() syscall(SYS_getppid, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66)
static void say_ret(const char *what, long r)
{
    if (r == -1) csay("%s: ret=-1 errno=%d(%s)", what, errno, strerrorname_np(errno));
    else csay("%s: ret=%ld", what, r);
}
static volatile int hran;
static void h_usr1(int s) { (void)s; hran = 1; }
static void set_usr1(int restart)
{
    struct sigaction sa = {0};
    sa.sa_handler = h_usr1;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGUSR1, &sa, NULL);
}
static void *thr(void *a)
{
    (void)a;
    long r = CALL();
    csay("thread: notif.pid==gettid:%d notif.pid==getpid:%d -> notif.pid is the %s",
         r == syscall(SYS_gettid), r == getpid(),
         r == syscall(SYS_gettid) ? "TID of the calling thread" : "TGID");
    return NULL;
}

static void child_main(void)
{
    pid_t ppid0 = getppid(); /* before the filter exists */
    alarm(15);
    int fd = install_listener(SECCOMP_FILTER_FLAG_NEW_LISTENER);
    csay("listener fd=%d FD_CLOEXEC=%d", fd, (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    int r2 = install_listener(SECCOMP_FILTER_FLAG_NEW_LISTENER);
    csay("second NEW_LISTENER in same chain: %d errno=%s", r2, strerrorname_np(errno));
    send_fd(fd);
    close(fd);

    for (int i = 0; i < 6; i++) {
        errno = 0;
        long r = CALL();
        if (r == ppid0) csay("call: ret == real parent pid");
        else say_ret("call", r);
    }

    /* ADDFD: the pending call is completed by ADDFD|SEND */
    long r = CALL();
    char l1[64] = "", l2[64] = "", l3[64] = "", p[64];
    int fds[3];
    read(sk[1], fds, sizeof fds); /* parent tells us the numbers */
    snprintf(p, sizeof p, "/proc/self/fd/%d", fds[0]); readlink(p, l1, sizeof l1 - 1);
    snprintf(p, sizeof p, "/proc/self/fd/%d", fds[1]); readlink(p, l2, sizeof l2 - 1);
    snprintf(p, sizeof p, "/proc/self/fd/%d", (int)r); readlink(p, l3, sizeof l3 - 1);
    csay("ADDFD: syscall ret=%ld; fd%d->%s CLOEXEC=%d; fd%d->%s CLOEXEC=%d; fd%ld->%s", r,
         fds[0], l1, (fcntl(fds[0], F_GETFD) & 1), fds[1], l2, (fcntl(fds[1], F_GETFD) & 1),
         r, l3);

    /* call from a second thread */
    pthread_t t;
    pthread_create(&t, NULL, thr, NULL);
    pthread_join(t, NULL);

    /* forked grandchild inherits the filter; parent still gets the notif */
    pid_t g = fork();
    if (g == 0) {
        long rr = CALL();
        csay("grandchild: notif.pid==its getpid():%d", rr == getpid());
        _exit(0);
    }
    waitpid(g, NULL, 0);

    /* grandchild killed while its notification is pending */
    g = fork();
    if (g == 0) { CALL(); _exit(0); }
    int st;
    waitpid(g, &st, 0);
    csay("killed grandchild reaped: signaled=%d sig=%d", WIFSIGNALED(st), WTERMSIG(st));

    /* signal while pending, no WAIT_KILLABLE_RECV */
    set_usr1(0);
    hran = 0; errno = 0; r = CALL();
    csay("signal after RECV, no SA_RESTART: ret=%ld errno=%s handler_ran=%d", r,
         strerrorname_np(errno), hran);
    set_usr1(1);
    hran = 0; errno = 0; r = CALL();
    csay("signal after RECV, SA_RESTART: ret=%ld handler_ran=%d", r, hran);

    /* listener closed while pending, then a later call */
    errno = 0; r = CALL();
    csay("listener closed while pending: ret=%ld errno=%s", r, strerrorname_np(errno));
    errno = 0; r = CALL();
    csay("call after listener closed: ret=%ld errno=%s", r, strerrorname_np(errno));
    _exit(0);
}

/* WAIT_KILLABLE_RECV child */
static void child2_main(void)
{
    alarm(15);
    int fd = install_listener(SECCOMP_FILTER_FLAG_NEW_LISTENER |
                              SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
    send_fd(fd);
    close(fd);
    set_usr1(0);
    hran = 0; errno = 0;
    long r = CALL();
    csay("WAIT_KILLABLE: SIGUSR1 after RECV: ret=%ld errno=%d handler_ran(after return)=%d", r,
         errno, hran);
    hran = 0; errno = 0;
    r = CALL();
    csay("WAIT_KILLABLE: SIGUSR1 before RECV: ret=%ld errno=%s handler_ran=%d", r,
         strerrorname_np(errno), hran);
    char go;
    read(sk[1], &go, 1); /* parent finished probing the listener */
    pid_t g = fork();
    if (g == 0) { CALL(); _exit(0); }
    int st;
    waitpid(g, &st, 0);
    csay("WAIT_KILLABLE: SIGKILLed grandchild: signaled=%d sig=%d", WIFSIGNALED(st), WTERMSIG(st));
    _exit(0);
}

/* ---------- parent side helpers ---------- */
static int recv_fd(void)
{
    char c;
    struct iovec iov = {&c, 1};
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
    struct msghdr m = {0};
    m.msg_iov = &iov; m.msg_iovlen = 1;
    m.msg_control = u.b; m.msg_controllen = sizeof u.b;
    if (recvmsg(sk[0], &m, 0) < 0) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fd);
    return fd;
}
static void pget(void)
{
    char b[200];
    ssize_t n = read(sk[0], b, sizeof b - 1);
    b[n > 0 ? n : 0] = 0;
    printf("  C> %s\n", b);
}
static int nrecv(int fd, struct seccomp_notif *n)
{
    memset(n, 0, sizeof *n);
    return ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, n);
}
static int nsend(int fd, unsigned long long id, int error, long long val, unsigned flags)
{
    struct seccomp_notif_resp r = {id, val, error, flags};
    return ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &r);
}
static const char *res(int r) { return r < 0 ? strerrorname_np(errno) : "0"; }
static int id_valid(int fd, unsigned long long id)
{
    return ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
}
static int wait_gone(int fd, unsigned long long id)
{
    int i;
    for (i = 0; i < 200; i++) {
        if (id_valid(fd, id) < 0) return i;
        usleep(5000);
    }
    return -1;
}
static void on_alarm(int s) { (void)s; }

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(15);
    struct seccomp_notif_sizes sz;
    syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz);
    printf("GET_NOTIF_SIZES: seccomp_notif=%u seccomp_notif_resp=%u seccomp_data=%u\n",
           sz.seccomp_notif, sz.seccomp_notif_resp, sz.seccomp_data);

    socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sk);
    pid_t c = fork();
    if (c == 0) { close(sk[0]); child_main(); }
    pget(); pget();
    int fd = recv_fd();
    struct seccomp_notif n;
    int r;

    /* call 1: inspect + reply error */
    r = nrecv(fd, &n);
    unsigned long long id0 = n.id;
    printf("RECV -> %s: id!=0:%d pid==C:%d flags=%u nr=%d arch=%#x ip!=0:%d\n", res(r), n.id != 0,
           n.pid == (unsigned)c, n.flags, n.data.nr, n.data.arch, n.data.instruction_pointer != 0);
    printf("  args=%#llx %#llx %#llx %#llx %#llx %#llx\n", n.data.args[0], n.data.args[1],
           n.data.args[2], n.data.args[3], n.data.args[4], n.data.args[5]);
    printf("ID_VALID(pending) -> %s\n", res(id_valid(fd, n.id)));
    {
        struct seccomp_notif junk;
        memset(&junk, 0, sizeof junk);
        junk.pid = 1;
        r = ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &junk);
        printf("RECV with non-zeroed buffer -> %s\n", res(r));
    }
    r = nsend(fd, n.id, 0, 1, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
    printf("SEND CONTINUE with val=1 -> %s\n", res(r));
    r = nsend(fd, n.id, 0, 0, 2);
    printf("SEND flags=2 -> %s\n", res(r));
    r = nsend(fd, n.id + 1000, 0, 0, 0);
    printf("SEND unknown id -> %s\n", res(r));
    r = nsend(fd, n.id, -EPERM, 0, 0);
    printf("SEND error=-EPERM -> %s\n", res(r));
    pget();
    /* call 2..6 */
    struct { int err; long long val; unsigned fl; const char *d; } rep[5] = {
        {0, 42, 0, "error=0 val=42"},
        {0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE, "CONTINUE (real getppid)"},
        {5, 0, 0, "error=+5 (positive)"},
        {0, -3, 0, "error=0 val=-3"},
        {-EPERM, 99, 0, "error=-EPERM val=99"},
    };
    for (int i = 0; i < 5; i++) {
        nrecv(fd, &n);
        printf("id delta from first=%llu; SEND %s -> %s\n", n.id - id0, rep[i].d,
               res(nsend(fd, n.id, rep[i].err, rep[i].val, rep[i].fl)));
        pget();
    }

    /* ADDFD */
    nrecv(fd, &n);
    int src = open("/dev/null", O_RDONLY);
    struct seccomp_notif_addfd a = {n.id, 0, (unsigned)src, 0, O_CLOEXEC};
    int f1 = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
    printf("ADDFD newfd_flags=O_CLOEXEC -> %d\n", f1);
    struct seccomp_notif_addfd b = {n.id, SECCOMP_ADDFD_FLAG_SETFD, (unsigned)src, 100, 0};
    int f2 = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &b);
    printf("ADDFD SETFD newfd=100 -> %d\n", f2);
    struct seccomp_notif_addfd bad = {n.id, 0, (unsigned)src, 7, 0};
    printf("ADDFD newfd=7 without SETFD -> %s\n", res(ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &bad)));
    struct seccomp_notif_addfd bad2 = {n.id, 0, (unsigned)src, 0, O_NONBLOCK};
    printf("ADDFD newfd_flags=O_NONBLOCK -> %s\n", res(ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &bad2)));
    struct seccomp_notif_addfd bad3 = {n.id, 0, 9999, 0, 0};
    printf("ADDFD srcfd=9999 -> %s\n", res(ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &bad3)));
    struct seccomp_notif_addfd s3 = {n.id, 2 /* SECCOMP_ADDFD_FLAG_SEND */, (unsigned)src, 0, 0};
    int f3 = ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &s3);
    printf("ADDFD FLAG_SEND -> %d (also completes the syscall)\n", f3);
    printf("SEND after ADDFD+SEND -> %s\n", res(nsend(fd, n.id, 0, 0, 0)));
    int fds[3] = {f1, f2, f3};
    write(sk[0], fds, sizeof fds);
    pget();

    /* thread */
    nrecv(fd, &n);
    nsend(fd, n.id, 0, n.pid, 0);
    pget();

    /* grandchild */
    nrecv(fd, &n);
    printf("grandchild notif: pid=%s\n", n.pid != (unsigned)c ? "grandchild's pid (!= C)" : "C");
    nsend(fd, n.id, 0, n.pid, 0);
    pget();

    /* grandchild killed while pending */
    nrecv(fd, &n);
    kill((pid_t)n.pid, SIGKILL);
    pget();
    printf("after target died: ID_VALID -> %s, SEND -> %s\n", res(id_valid(fd, n.id)),
           res(nsend(fd, n.id, 0, 0, 0)));

    /* signal while pending, no SA_RESTART */
    nrecv(fd, &n);
    printf("ID_VALID before signal -> %s\n", res(id_valid(fd, n.id)));
    kill(c, SIGUSR1);
    int ms = wait_gone(fd, n.id);
    printf("after SIGUSR1: ID_VALID became ENOENT (within 1s): %s; SEND -> %s\n", ms >= 0 ? "yes" : "no",
           res(nsend(fd, n.id, 0, 0, 0)));
    pget();
    /* SA_RESTART */
    nrecv(fd, &n);
    unsigned long long old = n.id;
    kill(c, SIGUSR1);
    nrecv(fd, &n);
    printf("SA_RESTART: re-issued notification, new id - old id = %llu, ID_VALID(old) -> %s\n",
           n.id - old, res(id_valid(fd, old)));
    nsend(fd, n.id, 0, 7, 0);
    pget();

    /* close listener while pending */
    nrecv(fd, &n);
    close(fd);
    pget(); pget();
    int st;
    waitpid(c, &st, 0);

    /* ---- WAIT_KILLABLE_RECV ---- */
    c = fork();
    if (c == 0) { close(sk[0]); child2_main(); }
    fd = recv_fd();
    nrecv(fd, &n);
    kill(c, SIGUSR1);
    usleep(100000);
    printf("WAIT_KILLABLE: 100ms after SIGUSR1 (state SENT): ID_VALID -> %s\n", res(id_valid(fd, n.id)));
    printf("WAIT_KILLABLE: SEND val=9 -> %s\n", res(nsend(fd, n.id, 0, 9, 0)));
    pget();
    /* signal before RECV */
    struct pollfd pf = {fd, POLLIN, 0};
    poll(&pf, 1, 2000);
    printf("WAIT_KILLABLE: poll before RECV revents=%#x (POLLIN=%#x)\n", pf.revents, POLLIN);
    kill(c, SIGUSR1);
    pget();
    pf.revents = 0;
    poll(&pf, 1, 100);
    printf("WAIT_KILLABLE: after interrupted INIT notif, poll revents=%#x\n", pf.revents);
    {
        struct sigaction sa = {0};
        sa.sa_handler = on_alarm;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = {{0, 0}, {0, 300000}};
        setitimer(ITIMER_REAL, &it, NULL);
        r = nrecv(fd, &n);
        printf("WAIT_KILLABLE: RECV now (nothing pending) -> %s\n", res(r));
        struct itimerval z = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &z, NULL);
        alarm(15);
    }
    write(sk[0], "g", 1);
    nrecv(fd, &n);
    kill((pid_t)n.pid, SIGKILL);
    pget();
    printf("WAIT_KILLABLE: after SIGKILL: ID_VALID -> %s\n", res(id_valid(fd, n.id)));
    waitpid(c, &st, 0);
    pf.revents = 0;
    poll(&pf, 1, 100);
    printf("all filter users exited: poll revents=%#x (POLLHUP=%#x)\n", pf.revents, POLLHUP);
    close(fd);
    return 0;
}
