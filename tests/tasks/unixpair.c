/* AF_UNIX socket pairs as guest tasks use them to talk and to pass
 * descriptors (a seccomp listener, in TASKS.md's t06): socketpair's
 * errors, message boundaries per type, MSG_TRUNC/PEEK/DONTWAIT,
 * SCM_RIGHTS (CLOEXEC, a control buffer too small, bad descriptors, bad
 * cmsgs), shutdown, the peer's close (EOF, EPIPE, SIGPIPE, ECONNRESET,
 * ECONNREFUSED), poll, fstat, and how much a full send buffer holds.
 * Run natively and under seccomp-emu by check_tasks.py; every line is
 * the kernel's answer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

static volatile int sigpipes;
static void on_pipe(int s) { (void)s; sigpipes++; }

static void pair(int type, int sv[2])
{
    if (socketpair(AF_UNIX, type, 0, sv) != 0) {
        printf("socketpair(%d): %s\n", type, strerrorname_np(errno));
        exit(1);
    }
}

static void errors(void)
{
    int sv[2];
    printf("bad flags: %s\n", err(socketpair(AF_UNIX, SOCK_STREAM | 0x10000, 0, sv)));
    printf("AF_INET: %s\n", err(socketpair(AF_INET, SOCK_STREAM, 0, sv)));
    printf("family 99: %s\n", err(socketpair(99, SOCK_STREAM, 0, sv)));
    printf("SOCK_RDM: %s\n", err(socketpair(AF_UNIX, SOCK_RDM, 0, sv)));
    printf("type 12: %s\n", err(socketpair(AF_UNIX, 12, 0, sv)));
    printf("protocol 2: %s\n", err(socketpair(AF_UNIX, SOCK_STREAM, 2, sv)));
    int *volatile unmapped = (int *)8;
    printf("bad vector: %s\n", err(socketpair(AF_UNIX, SOCK_STREAM, 0, unmapped)));
    pipe(sv);
    printf("sendmsg on a pipe: %s\n", err(sendmsg(sv[0], &(struct msghdr){ 0 }, 0)));
    close(sv[0]);
    close(sv[1]);
    printf("shutdown how=3: %s\n", (pair(SOCK_STREAM, sv), err(shutdown(sv[0], 3))));
    close(sv[0]);
    close(sv[1]);
}

static void boundaries(int type, const char *name)
{
    int sv[2];
    char b[64];
    pair(type, sv);
    write(sv[0], "hello", 5);
    write(sv[0], "world!", 6);
    long n = read(sv[1], b, 3);
    printf("%s: read 3 of \"hello\",\"world!\" -> %ld \"%.*s\"", name, n, (int)n, b);
    n = read(sv[1], b, sizeof b);
    printf(", then %ld \"%.*s\"", n, (int)n, b);
    n = recv(sv[1], b, sizeof b, MSG_DONTWAIT);
    printf(", then %ld %s\n", n, err(n));
    /* MSG_PEEK, MSG_TRUNC as an input flag and as msg_flags */
    send(sv[0], "abcdefgh", 8, 0);
    n = recv(sv[1], b, 2, MSG_PEEK);
    printf("%s: peek 2 -> %ld \"%.*s\"", name, n, (int)n, b);
    n = recv(sv[1], b, 2, MSG_TRUNC);
    printf(", recv 2 with MSG_TRUNC -> %ld", n);
    struct iovec iov = { b, 3 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    send(sv[0], "12345", 5, 0);
    n = recvmsg(sv[1], &m, 0);
    printf(", recvmsg 3 of 5 -> %ld flags=%#x\n", n, m.msg_flags);
    close(sv[0]);
    /* the peer is gone */
    n = recv(sv[1], b, sizeof b, MSG_DONTWAIT);
    printf("%s: after the peer's close: recv -> %ld %s", name, n, err(n));
    sigpipes = 0;
    errno = 0;
    n = send(sv[1], "x", 1, 0);
    printf(", send -> %ld %s SIGPIPE=%d", n, err(n), sigpipes);
    n = send(sv[1], "x", 1, MSG_NOSIGNAL);
    printf(", again -> %s", err(n));
    struct pollfd p = { sv[1], POLLIN | POLLOUT | POLLRDHUP, 0 };
    poll(&p, 1, 0);
    printf(", poll revents=%#x\n", p.revents);
    close(sv[1]);
}

/* Descriptors in flight. */
static int send_fds(int s, const int *fds, int n, int cmsg_fds)
{
    char c = 'F';
    struct iovec iov = { &c, 1 };
    char ctl[CMSG_SPACE(8 * sizeof(int))] = { 0 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = CMSG_SPACE(cmsg_fds * sizeof(int)) };
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(n * sizeof(int));
    memcpy(CMSG_DATA(cm), fds, n * sizeof(int));
    return (int)sendmsg(s, &m, 0);
}

static void rights(int type, const char *name)
{
    int sv[2], pp[2];
    pair(type, sv);
    pipe(pp);
    int two[2] = { pp[0], pp[1] };
    long r = send_fds(sv[0], two, 2, 2);
    char c;
    struct iovec iov = { &c, 1 };
    char ctl[CMSG_SPACE(8 * sizeof(int))];
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                        .msg_controllen = sizeof ctl };
    long n = recvmsg(sv[1], &m, MSG_CMSG_CLOEXEC);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    int got[2] = { -1, -1 };
    if (cm)
        memcpy(got, CMSG_DATA(cm), sizeof got);
    printf("%s: send 2 fds -> %ld; recvmsg(MSG_CMSG_CLOEXEC) -> %ld flags=%#x controllen=%zu "
           "cmsg_len=%zu level=%d type=%d fds %d,%d cloexec=%d,%d\n",
           name, r, n, m.msg_flags, (size_t)m.msg_controllen, cm ? (size_t)cm->cmsg_len : 0,
           cm ? cm->cmsg_level : -1, cm ? cm->cmsg_type : -1, got[0], got[1],
           fcntl(got[0], F_GETFD), fcntl(got[1], F_GETFD));
    /* The pipe works through the passed ends. */
    write(got[1], "p", 1);
    char pc = 0;
    read(pp[0], &pc, 1);
    printf("%s: a byte through the passed write end arrives: %d\n", name, pc == 'p');
    close(got[0]);
    close(got[1]);
    /* Room for one descriptor only (CMSG_SPACE would hold two on
     * x86_64, whose padding fits another int). */
    send_fds(sv[0], two, 2, 2);
    m.msg_controllen = CMSG_LEN(sizeof(int));
    n = recvmsg(sv[1], &m, 0);
    cm = CMSG_FIRSTHDR(&m);
    printf("%s: room for 1 of 2 -> %ld flags=%#x controllen=%zu cmsg_len=%zu\n", name, n,
           m.msg_flags, (size_t)m.msg_controllen, cm ? (size_t)cm->cmsg_len : 0);
    if (cm) {
        memcpy(got, CMSG_DATA(cm), sizeof(int));
        close(got[0]);
    }
    /* No control buffer at all; read(2) drops them too. */
    send_fds(sv[0], two, 2, 2);
    m.msg_control = NULL;
    m.msg_controllen = 0;
    n = recvmsg(sv[1], &m, 0);
    printf("%s: no control buffer -> %ld flags=%#x", name, n, m.msg_flags);
    send_fds(sv[0], two, 2, 2);
    n = read(sv[1], &c, 1);
    int probe = dup(0);
    printf("; read(2) -> %ld, next free fd %s\n", n, probe == got[0] ? "unchanged" : "moved");
    close(probe);
    /* Bad descriptors and cmsgs. */
    int bad[1] = { 999 };
    r = send_fds(sv[0], bad, 1, 1);
    printf("%s: fd 999 -> %s", name, err(r));
    {
        char cc = 'x';
        struct iovec v = { &cc, 1 };
        char cb[CMSG_SPACE(sizeof(int))] = { 0 };
        struct msghdr mm = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = cb,
                             .msg_controllen = sizeof cb };
        struct cmsghdr *h = CMSG_FIRSTHDR(&mm);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = sizeof cb + 8;
        printf(", cmsg_len past the buffer -> %s", err(sendmsg(sv[0], &mm, 0)));
        h->cmsg_len = CMSG_LEN(sizeof(int));
        h->cmsg_type = 77;
        printf(", SOL_SOCKET type 77 -> %s", err(sendmsg(sv[0], &mm, 0)));
        h->cmsg_level = 6; /* IPPROTO_TCP: not the socket layer's, skipped */
        printf(", level 6 -> %s", err(sendmsg(sv[0], &mm, 0)));
        n = recv(sv[1], &cc, 1, MSG_DONTWAIT);
        printf(" (its byte arrives: %ld)\n", n);
    }
    close(pp[0]);
    close(pp[1]);
    close(sv[0]);
    close(sv[1]);
}

static void endings(void)
{
    int sv[2];
    char b[16];
    /* unread data at close: ECONNRESET for the peer */
    pair(SOCK_STREAM, sv);
    write(sv[1], "zz", 2);
    close(sv[1]);
    long n = read(sv[0], b, sizeof b);
    printf("stream: peer closed with our data unread: read -> %ld %s\n", n, err(n));
    close(sv[0]);
    pair(SOCK_STREAM, sv);
    write(sv[0], "zz", 2);
    close(sv[1]);
    n = read(sv[0], b, sizeof b);
    printf("stream: peer closed with its data unread: read -> %ld %s", n, err(n));
    n = read(sv[0], b, sizeof b);
    printf(", again -> %ld %s\n", n, err(n));
    close(sv[0]);
    pair(SOCK_SEQPACKET, sv);
    write(sv[0], "zz", 2);
    close(sv[1]);
    n = send(sv[0], "y", 1, MSG_NOSIGNAL);
    printf("seqpacket: peer closed with its data unread: send -> %ld %s", n, err(n));
    n = send(sv[0], "y", 1, MSG_NOSIGNAL);
    printf(", again -> %ld %s\n", n, err(n));
    close(sv[0]);
    /* shutdown */
    pair(SOCK_STREAM, sv);
    shutdown(sv[0], SHUT_WR);
    n = read(sv[1], b, sizeof b);
    printf("stream: SHUT_WR: the peer reads %ld", n);
    sigpipes = 0;
    n = write(sv[0], "q", 1);
    printf(", our write -> %s SIGPIPE=%d", err(n), sigpipes);
    n = write(sv[1], "q", 1);
    printf(", the peer's write -> %ld", n);
    n = read(sv[0], b, sizeof b);
    printf(" and we read it: %ld\n", n);
    close(sv[0]);
    close(sv[1]);
    /* nonblocking */
    pair(SOCK_DGRAM | SOCK_NONBLOCK, sv);
    n = read(sv[0], b, 1);
    printf("SOCK_NONBLOCK: read -> %s, F_GETFL O_NONBLOCK=%d", err(n),
           (fcntl(sv[0], F_GETFL) & O_NONBLOCK) != 0);
    struct stat st;
    fstat(sv[0], &st);
    printf(", S_ISSOCK=%d\n", S_ISSOCK(st.st_mode));
    close(sv[0]);
    close(sv[1]);
}

/* How much a full send buffer holds, per type and message size. */
static void fill(void)
{
    static char buf[200000];
    static const int types[3] = { SOCK_DGRAM, SOCK_SEQPACKET, SOCK_STREAM };
    static const char *const names[3] = { "dgram", "seqpacket", "stream" };
    static const int sizes[] = { 1, 1000, 4000, 60000, 200000 };
    for (int ti = 0; ti < 3; ti++) {
        printf("%s fills after:", names[ti]);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int sv[2];
            pair(types[ti] | SOCK_NONBLOCK, sv);
            long n = 0, bytes = 0, r;
            while ((r = send(sv[0], buf, sizes[si], 0)) > 0 && n < 100000) {
                n++;
                bytes += r;
            }
            struct pollfd p = { sv[0], POLLOUT, 0 };
            poll(&p, 1, 0);
            int before = p.revents;
            /* the reader takes one: room again? */
            recv(sv[1], buf, sizeof buf, 0);
            p.revents = 0;
            poll(&p, 1, 0);
            printf(" %d: %ld sends %ld bytes %s POLLOUT=%d,%d;", sizes[si], n, bytes, err(r),
                   (before & POLLOUT) != 0, (p.revents & POLLOUT) != 0);
            close(sv[0]);
            close(sv[1]);
        }
        printf("\n");
    }
    int sv[2];
    pair(SOCK_DGRAM, sv);
    printf("dgram of 212961 bytes -> %s\n", err(send(sv[0], buf, 212961, MSG_DONTWAIT)));
    close(sv[0]);
    close(sv[1]);
}

/* A blocked writer and reader in two processes. */
static void across_fork(void)
{
    int sv[2];
    pair(SOCK_STREAM, sv);
    pid_t c = fork();
    if (c == 0) {
        static char big[300000];
        memset(big, 'b', sizeof big);
        long n = write(sv[1], big, sizeof big); /* blocks until the parent reads */
        _exit(n == (long)sizeof big ? 0 : 1);
    }
    static char in[300000];
    long total = 0, n;
    while (total < (long)sizeof in && (n = read(sv[0], in + total, sizeof in - total)) > 0)
        total += n;
    int st;
    waitpid(c, &st, 0);
    printf("across fork: the child's 300000-byte write arrives whole: %ld, child exit %d\n",
           total, WEXITSTATUS(st));
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, on_pipe);
    errors();
    boundaries(SOCK_STREAM, "stream");
    boundaries(SOCK_SEQPACKET, "seqpacket");
    boundaries(SOCK_DGRAM, "dgram");
    rights(SOCK_STREAM, "stream");
    rights(SOCK_SEQPACKET, "seqpacket");
    rights(SOCK_DGRAM, "dgram");
    endings();
    fill();
    across_fork();
    return 0;
}
