/* memfd_create(2) and kcmp(2), every answer printed, error paths included:
 * the anonymous files supervisors hand to their targets (the kernel's
 * user_notification_addfd selftests), and the comparison of open files
 * across processes that checks which one arrived.
 *
 *   memfd memfd    the flags and name rules, I/O, seeking, fstat,
 *                  ftruncate, the seals and /proc/self/fd's name
 *   memfd kcmp     kcmp's types, its ESRCH/EBADF/EINVAL, a file dup'd,
 *                  inherited, sent over a socket and opened twice */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x1U
#define MFD_ALLOW_SEALING 0x2U
#define MFD_HUGETLB 0x4U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x8U
#define MFD_EXEC 0x10U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x1
#define F_SEAL_SHRINK 0x2
#define F_SEAL_GROW 0x4
#define F_SEAL_WRITE 0x8
#endif
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x10
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x20
#endif
#define KCMP_FILE 0
#define KCMP_VM 1
#define KCMP_FILES 2
#define KCMP_FS 3
#define KCMP_SIGHAND 4
#define KCMP_IO 5
#define KCMP_SYSVSEM 6
#define KCMP_EPOLL_TFD 7
#define KCMP_TYPES 8

static void show(const char *what, long r)
{
    if (r < 0)
        printf("%-44s -> -1 %s\n", what, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
    else
        printf("%-44s -> %ld\n", what, r);
}

static long mfd(const char *name, unsigned flags)
{
    errno = 0;
    return syscall(SYS_memfd_create, name, flags);
}

static void stat_line(const char *what, int fd)
{
    struct stat st;
    if (fstat(fd, &st)) {
        show(what, -1);
        return;
    }
    printf("%-44s -> mode %o nlink %lu size %lld blocks %lld blksize %ld uid-mine %d\n", what,
           (unsigned)st.st_mode, (unsigned long)st.st_nlink, (long long)st.st_size,
           (long long)st.st_blocks, (long)st.st_blksize, st.st_uid == getuid());
}

static void link_line(const char *what, int fd)
{
    char p[64], buf[300];
    snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(p, buf, sizeof(buf) - 1);
    if (n < 0) {
        show(what, -1);
        return;
    }
    buf[n] = 0;
    printf("%-44s -> %s\n", what, buf);
}

static void memfd_case(void)
{
    char name[300];
    /* The flags: unknown bits, HUGETLB's size field, EXEC with NOEXEC_SEAL. */
    show("flags 0x40", mfd("x", 0x40));
    show("flags 0x80000000", mfd("x", 0x80000000u));
    show("EXEC|NOEXEC_SEAL", mfd("x", MFD_EXEC | MFD_NOEXEC_SEAL));
    show("HUGETLB with a size and a stray bit", mfd("x", MFD_HUGETLB | (21u << 26) | 0x40));
    /* The name: 249 bytes is the most (NAME_MAX less "memfd:"). */
    memset(name, 'n', sizeof(name));
    name[249] = 0;
    long fd = mfd(name, MFD_CLOEXEC);
    show("name of 249 bytes", fd >= 0 ? 0 : -1);
    if (fd >= 0)
        close((int)fd);
    name[249] = 'n';
    name[250] = 0;
    show("name of 250 bytes", mfd(name, 0));
    show("name NULL", mfd(NULL, 0));
    show("name at a bad address", mfd((const char *)16, 0));
    show("name empty", fd = mfd("", 0));
    if (fd >= 0) {
        link_line("  its /proc/self/fd link", (int)fd);
        close((int)fd);
    }

    /* Close-on-exec, the lowest free descriptor. */
    int low = dup(0);
    close(low);
    fd = mfd("test", MFD_CLOEXEC);
    printf("%-44s -> %s\n", "MFD_CLOEXEC: the lowest free fd", fd == low ? "yes" : "no");
    show("  F_GETFD", fcntl((int)fd, F_GETFD));
    show("  F_GETFL", fcntl((int)fd, F_GETFL));
    link_line("  its /proc/self/fd link", (int)fd);
    stat_line("  fstat, new", (int)fd);
    show("  F_GET_SEALS (no ALLOW_SEALING)", fcntl((int)fd, F_GET_SEALS));
    show("  F_ADD_SEALS WRITE", fcntl((int)fd, F_ADD_SEALS, F_SEAL_WRITE));

    /* I/O: the position moves, pread/pwrite leave it, holes read zeros. */
    show("  write 5", write((int)fd, "hello", 5));
    show("  lseek CUR 0", lseek((int)fd, 0, SEEK_CUR));
    show("  pwrite 5 at 10", pwrite((int)fd, "world", 5, 10));
    show("  lseek CUR 0 (pwrite left it)", lseek((int)fd, 0, SEEK_CUR));
    stat_line("  fstat, 15 bytes", (int)fd);
    char buf[64] = { 0 };
    show("  lseek SET 0", lseek((int)fd, 0, SEEK_SET));
    long n = read((int)fd, buf, sizeof(buf));
    show("  read all", n);
    printf("%-44s -> %s\n", "  bytes 5-9 (a hole)",
           !memcmp(buf, "hello\0\0\0\0\0world", 15) ? "zeros" : "WRONG");
    show("  read at the end", read((int)fd, buf, sizeof(buf)));
    show("  pread 3 at 1", pread((int)fd, buf, 3, 1));
    printf("%-44s -> %.3s\n", "  its bytes", buf);
    show("  pread at -1", pread((int)fd, buf, 3, -1));
    show("  lseek END -3", lseek((int)fd, -3, SEEK_END));
    show("  lseek SET -1", lseek((int)fd, -1, SEEK_SET));
    show("  lseek whence 7", lseek((int)fd, 0, 7));
    show("  lseek DATA 0", lseek((int)fd, 0, SEEK_DATA));
    show("  lseek HOLE 0", lseek((int)fd, 0, SEEK_HOLE));
    show("  lseek DATA 20 (past the end)", lseek((int)fd, 20, SEEK_DATA));
    struct iovec iov[2] = { { "ab", 2 }, { "cd", 2 } };
    show("  lseek SET 1", lseek((int)fd, 1, SEEK_SET));
    show("  writev 2+2", writev((int)fd, iov, 2));
    show("  pread 6 at 0", pread((int)fd, buf, 6, 0));
    printf("%-44s -> %.6s\n", "  its bytes", buf);

    /* ftruncate: grow (sparse), shrink, negative. */
    show("  ftruncate 100000", ftruncate((int)fd, 100000));
    stat_line("  fstat, grown", (int)fd);
    show("  pread 4 at 99998", pread((int)fd, buf, 4, 99998));
    show("  ftruncate 3", ftruncate((int)fd, 3));
    stat_line("  fstat, shrunk", (int)fd);
    show("  pread 8 at 0", pread((int)fd, buf, 8, 0));
    show("  ftruncate -1", ftruncate((int)fd, -1));
    show("  lseek SET 0", lseek((int)fd, 0, SEEK_SET));
    close((int)fd);

    /* Not a memfd: the seals and ftruncate say so. */
    int p[2];
    if (pipe(p) == 0) {
        show("F_GET_SEALS on a pipe", fcntl(p[0], F_GET_SEALS));
        show("ftruncate on a pipe", ftruncate(p[1], 0));
        show("lseek on a pipe", lseek(p[0], 0, SEEK_SET));
        close(p[0]);
        close(p[1]);
    }
    show("ftruncate on a bad fd", ftruncate(999, 0));

    /* The seals, with ALLOW_SEALING. */
    fd = mfd("sealed", MFD_ALLOW_SEALING);
    show("ALLOW_SEALING", fd >= 0 ? 0 : -1);
    show("  F_GET_SEALS", fcntl((int)fd, F_GET_SEALS));
    show("  write 8", write((int)fd, "12345678", 8));
    show("  F_ADD_SEALS 0x40 (unknown)", fcntl((int)fd, F_ADD_SEALS, 0x40));
    show("  F_ADD_SEALS SHRINK", fcntl((int)fd, F_ADD_SEALS, F_SEAL_SHRINK));
    show("  ftruncate 4 (shrink)", ftruncate((int)fd, 4));
    show("  ftruncate 16 (grow)", ftruncate((int)fd, 16));
    show("  F_ADD_SEALS GROW", fcntl((int)fd, F_ADD_SEALS, F_SEAL_GROW));
    show("  ftruncate 32 (grow)", ftruncate((int)fd, 32));
    show("  ftruncate 16 (same size)", ftruncate((int)fd, 16));
    show("  pwrite 4 at 14 (grows)", pwrite((int)fd, "wxyz", 4, 14));
    show("  pwrite 2 at 14 (inside)", pwrite((int)fd, "wx", 2, 14));
    show("  F_ADD_SEALS WRITE", fcntl((int)fd, F_ADD_SEALS, F_SEAL_WRITE));
    show("  F_GET_SEALS", fcntl((int)fd, F_GET_SEALS));
    show("  write 1", write((int)fd, "x", 1));
    show("  pwrite 1 at 0", pwrite((int)fd, "x", 1, 0));
    show("  writev 2+2", writev((int)fd, iov, 2));
    show("  write 0", write((int)fd, "x", 0));
    show("  read 4 at 0", pread((int)fd, buf, 4, 0));
    show("  F_ADD_SEALS SEAL", fcntl((int)fd, F_ADD_SEALS, F_SEAL_SEAL));
    show("  F_ADD_SEALS FUTURE_WRITE (sealed)", fcntl((int)fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
    show("  F_ADD_SEALS 0 (sealed)", fcntl((int)fd, F_ADD_SEALS, 0));
    show("  F_GET_SEALS", fcntl((int)fd, F_GET_SEALS));
    stat_line("  fstat", (int)fd);
    close((int)fd);

    /* NOEXEC_SEAL: mode 0666 and the exec seal, sealing allowed. */
    fd = mfd("noexec", MFD_NOEXEC_SEAL);
    show("NOEXEC_SEAL", fd >= 0 ? 0 : -1);
    show("  F_GET_SEALS", fcntl((int)fd, F_GET_SEALS));
    stat_line("  fstat", (int)fd);
    close((int)fd);
    fd = mfd("exec", MFD_EXEC | MFD_ALLOW_SEALING);
    show("EXEC|ALLOW_SEALING", fd >= 0 ? 0 : -1);
    show("  F_GET_SEALS", fcntl((int)fd, F_GET_SEALS));
    stat_line("  fstat", (int)fd);
    close((int)fd);

    /* A read-only descriptor cannot write; a memfd is opened O_RDWR. */
    fd = mfd("ro", 0);
    show("  F_SETFL O_NONBLOCK", fcntl((int)fd, F_SETFL, O_NONBLOCK));
    show("  F_GETFL", fcntl((int)fd, F_GETFL));
    close((int)fd);
}

static long kcmp(pid_t a, pid_t b, int type, unsigned long x, unsigned long y)
{
    errno = 0;
    return syscall(SYS_kcmp, a, b, type, x, y);
}

/* 0 equal, 1 or 2 an order the kernel keeps secret: print which. */
static void cmp(const char *what, long r)
{
    if (r < 0)
        show(what, r);
    else
        printf("%-44s -> %s\n", what, r == 0 ? "same" : r == 1 || r == 2 ? "different" : "BAD");
}

static void kcmp_case(void)
{
    pid_t me = getpid();
    int m = (int)mfd("k", 0), m2 = (int)mfd("k", 0);
    int d = dup(m);
    cmp("FILE fd vs itself", kcmp(me, me, KCMP_FILE, m, m));
    cmp("FILE fd vs its dup", kcmp(me, me, KCMP_FILE, m, d));
    cmp("FILE two memfds", kcmp(me, me, KCMP_FILE, m, m2));
    long a = kcmp(me, me, KCMP_FILE, m, m2), b = kcmp(me, me, KCMP_FILE, m2, m);
    printf("%-44s -> %s\n", "FILE the order reversed", a + b == 3 ? "reversed" : "WRONG");
    cmp("FILE a closed fd", kcmp(me, me, KCMP_FILE, m, 999));
    cmp("FILE a huge fd", kcmp(me, me, KCMP_FILE, m, (unsigned long)(1ull << 40)));
    cmp("type 8 (KCMP_TYPES)", kcmp(me, me, KCMP_TYPES, 0, 0));
    cmp("type -1", kcmp(me, me, -1, 0, 0));
    cmp("pid 0", kcmp(0, me, KCMP_FILE, m, m));
    cmp("no such pid", kcmp(me, 0x3fffff00, KCMP_FILE, m, m));
    cmp("no such pid, bad type", kcmp(0x3fffff00, me, 99, 0, 0));
    cmp("VM self", kcmp(me, me, KCMP_VM, 0, 0));
    cmp("FILES self", kcmp(me, me, KCMP_FILES, 0, 0));
    cmp("FS self", kcmp(me, me, KCMP_FS, 0, 0));
    cmp("SIGHAND self", kcmp(me, me, KCMP_SIGHAND, 0, 0));
    cmp("SYSVSEM self", kcmp(me, me, KCMP_SYSVSEM, 0, 0));

    /* Across a fork: the same open files, another mm, fd table and
     * handlers; then a descriptor sent back over a socket, and a memfd the
     * child made itself. */
    int sk[2], p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sk) || pipe(p))
        return;
    pid_t c = fork();
    if (c == 0) {
        int own = (int)mfd("child", 0);
        char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
        char x = (char)own; /* its number in the child */
        struct iovec iov = { &x, 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                              .msg_controllen = sizeof(cbuf) };
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
        int fds[2] = { own, m };
        memcpy(CMSG_DATA(cm), fds, sizeof(fds));
        (void)!sendmsg(sk[1], &msg, 0);
        char w;
        (void)!read(p[0], &w, 1);
        _exit(0);
    }
    int got[2] = { -1, -1 };
    char child_fd = -1;
    {
        char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 };
        struct iovec iov = { &child_fd, 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                              .msg_controllen = sizeof(cbuf) };
        if (recvmsg(sk[0], &msg, 0) == 1 && CMSG_FIRSTHDR(&msg))
            memcpy(got, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(got));
    }
    cmp("child: FILE inherited fd", kcmp(me, c, KCMP_FILE, m, m));
    cmp("child: FILE inherited vs other", kcmp(me, c, KCMP_FILE, m2, m));
    cmp("child's own memfd, received", kcmp(me, c, KCMP_FILE, got[0], child_fd));
    cmp("inherited fd sent back", kcmp(me, me, KCMP_FILE, got[1], m));
    cmp("child: VM", kcmp(me, c, KCMP_VM, 0, 0));
    cmp("child: FILES", kcmp(me, c, KCMP_FILES, 0, 0));
    cmp("child: SIGHAND", kcmp(me, c, KCMP_SIGHAND, 0, 0));
    cmp("child: FILE its closed fd", kcmp(me, c, KCMP_FILE, m, 999));
    (void)!write(p[1], "x", 1);
    int st;
    waitpid(c, &st, 0);
    cmp("reaped child", kcmp(me, c, KCMP_FILE, m, m));
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && !strcmp(argv[1], "memfd"))
        memfd_case();
    else if (argc > 1 && !strcmp(argv[1], "kcmp"))
        kcmp_case();
    else
        return 2;
    return 0;
}
