/* A glibc program that reads files the way programs do (stdio, opendir,
 * stat, mmap, access, chdir) and prints what it saw, one line per step,
 * in a form that does not depend on the ABI: tests/grants judges it by a
 * native run over the same files.  Each argument is one step, OP:PATH[:ARG]:
 *   cat stat lstat statx readlink ls getdents getdents-old access open chdir
 *   fchdir getcwd
 *   mmap seek fcntl at (openat from a directory descriptor)
 *   race:PATH:N     open and read PATH N times; count what was read
 *   dotdot:DIR:N    open DIR once, then N times openat(dir, "../f")
 * (the last two for races against a process renaming things meanwhile)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *err(void)
{
    const char *n = strerrorname_np(errno);
    return n ? n : "E?";
}

static void show_bytes(const unsigned char *p, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = sum * 31 + p[i];
    printf(" %zu bytes sum %08x \"", n, sum);
    for (size_t i = 0; i < n && i < 48; i++)
        putchar(p[i] >= 32 && p[i] < 127 && p[i] != '"' ? p[i] : '.');
    printf("\"\n");
}

static void op_cat(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        printf(" fopen: %s\n", err());
        return;
    }
    static unsigned char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof(buf), f);
    show_bytes(buf, n);
    fclose(f);
}

static const char *type_of(mode_t m)
{
    return S_ISREG(m) ? "reg" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "lnk" : S_ISCHR(m) ? "chr"
         : S_ISFIFO(m) ? "fifo" : S_ISSOCK(m) ? "sock" : "other";
}

static void show_stat(const struct stat *st)
{
    printf(" %s %04o size %lld nlink %lu uid %u gid %u ino %llu dev %llx mtime %lld.%09ld\n",
           type_of(st->st_mode), (unsigned)(st->st_mode & 07777), (long long)st->st_size,
           (unsigned long)st->st_nlink, (unsigned)st->st_uid, (unsigned)st->st_gid,
           (unsigned long long)st->st_ino, (unsigned long long)st->st_dev,
           (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

static void op_stat(const char *path, int nofollow)
{
    struct stat st;
    if ((nofollow ? lstat(path, &st) : stat(path, &st)) < 0) {
        printf(" %s\n", err());
        return;
    }
    show_stat(&st);
}

static void op_statx(const char *path)
{
    struct statx sx;
    if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) < 0) {
        printf(" %s\n", err());
        return;
    }
    printf(" mask-basic %d %s %04o size %llu nlink %u ino %llu\n",
           (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS, type_of(sx.stx_mode),
           sx.stx_mode & 07777, (unsigned long long)sx.stx_size, sx.stx_nlink,
           (unsigned long long)sx.stx_ino);
}

static void op_readlink(const char *path)
{
    char buf[4096];
    ssize_t n = readlink(path, buf, sizeof(buf));
    if (n < 0)
        printf(" %s\n", err());
    else
        printf(" \"%.*s\"\n", (int)n, buf);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void op_ls(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        printf(" opendir: %s\n", err());
        return;
    }
    char *names[4096];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 4096) {
        char *s;
        if (asprintf(&s, "%s/%u", e->d_name, (unsigned)e->d_type) > 0)
            names[n++] = s;
    }
    qsort(names, (size_t)n, sizeof(names[0]), by_name);
    printf(" %d:", n);
    for (int i = 0; i < n; i++) {
        printf(" %s", names[i]);
        free(names[i]);
    }
    /* rewinddir and a second pass see the same count */
    rewinddir(d);
    int again = 0;
    while (readdir(d))
        again++;
    printf(" again %d\n", again);
    closedir(d);
}

/* getdents64 with small buffers: every entry once, a too small buffer is
 * EINVAL, the end is 0. */
static void op_getdents(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        printf(" open: %s\n", err());
        return;
    }
    char buf[80];
    long r = syscall(SYS_getdents64, fd, buf, 10);
    printf(" tiny %s", r < 0 ? err() : "ok");
    int total = 0, calls = 0;
    for (;;) {
        r = syscall(SYS_getdents64, fd, buf, sizeof(buf));
        if (r <= 0)
            break;
        calls++;
        for (long off = 0; off < r;) {
            unsigned short reclen;
            memcpy(&reclen, buf + off + 16, 2);
            total++;
            off += reclen;
        }
    }
    printf(" entries %d end %ld%s", total, r, r < 0 ? err() : "");
    long pos = lseek(fd, 0, SEEK_SET);
    r = syscall(SYS_getdents64, fd, buf, sizeof(buf));
    printf(" rewind %ld again %s\n", pos, r > 0 ? "ok" : "none");
    close(fd);
}

/* The old getdents (struct linux_dirent: longs, the type last): what
 * i386 programs built before getdents64 call. */
static void op_getdents_old(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        printf(" open: %s\n", err());
        return;
    }
    char buf[96];
    int total = 0, dirs = 0;
    long r;
    while ((r = syscall(SYS_getdents, fd, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < r;) {
            unsigned short reclen;
            memcpy(&reclen, buf + off + 2 * sizeof(long), 2);
            total++;
            dirs += buf[off + reclen - 1] == DT_DIR;
            off += reclen;
        }
    }
    printf(" entries %d dirs %d end %ld%s\n", total, dirs, r, r < 0 ? err() : "");
    close(fd);
}

static int mode_of(const char *s)
{
    int m = 0;
    for (; *s; s++)
        m |= *s == 'r' ? R_OK : *s == 'w' ? W_OK : *s == 'x' ? X_OK : 0;
    return m;
}

static void op_access(const char *path, const char *arg)
{
    int r = access(path, arg ? mode_of(arg) : F_OK);
    printf(" %s\n", r < 0 ? err() : "ok");
    r = faccessat(AT_FDCWD, path, arg ? mode_of(arg) : F_OK, AT_EACCESS);
    printf("   eaccess %s\n", r < 0 ? err() : "ok");
}

static int flags_of(const char *s)
{
    int f = O_RDONLY;
    if (!s)
        return f;
    if (strstr(s, "rw"))
        f = O_RDWR;
    else if (strchr(s, 'w'))
        f = O_WRONLY;
    if (strstr(s, "creat"))
        f |= O_CREAT;
    if (strstr(s, "excl"))
        f |= O_EXCL;
    if (strstr(s, "trunc"))
        f |= O_TRUNC;
    if (strstr(s, "dir"))
        f |= O_DIRECTORY;
    if (strstr(s, "nofollow"))
        f |= O_NOFOLLOW;
    return f;
}

static void op_open(const char *path, const char *arg)
{
    int fd = open(path, flags_of(arg), 0644);
    if (fd < 0) {
        printf(" %s\n", err());
        return;
    }
    char c;
    ssize_t n = read(fd, &c, 1);
    printf(" ok read %s\n", n < 0 ? err() : n == 0 ? "eof" : "1");
    close(fd);
}

static void op_chdir(const char *path)
{
    char buf[4096];
    if (chdir(path) < 0) {
        printf(" %s\n", err());
        return;
    }
    printf(" cwd %s\n", getcwd(buf, sizeof(buf)) ? buf : err());
}

static void op_fchdir(const char *path)
{
    char buf[4096];
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fchdir(fd) < 0) {
        printf(" %s\n", err());
        if (fd >= 0)
            close(fd);
        return;
    }
    close(fd);
    printf(" cwd %s\n", getcwd(buf, sizeof(buf)) ? buf : err());
    char small[2];
    printf("   small %s\n", getcwd(small, sizeof(small)) ? "fits" : err());
}

static void op_mmap(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf(" open: %s\n", err());
        return;
    }
    struct stat st;
    fstat(fd, &st);
    size_t len = (size_t)st.st_size ? (size_t)st.st_size : 1;
    unsigned char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        printf(" private: %s\n", err());
    } else {
        printf(" private");
        show_bytes(p, (size_t)st.st_size);
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        if (st.st_size % page)
            printf("   tail zero %d\n", p[st.st_size] == 0 && p[(st.st_size | (page - 1))] == 0);
        munmap(p, len);
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        printf("   private rw: %s\n", err());
    } else {
        p[0] ^= 1;
        printf("   private rw: written\n");
        munmap(p, len);
    }
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    printf("   shared rw: %s\n", p == MAP_FAILED ? err() : "mapped");
    p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        printf("   shared r: %s\n", err());
    } else {
        printf("   shared r: sum matches %d, mprotect rw: %s\n",
               len > 0 && p[0] == (unsigned char)p[0],
               mprotect(p, len, PROT_READ | PROT_WRITE) < 0 ? err() : "ok");
        munmap(p, len);
    }
    p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 1);
    printf("   odd offset: %s\n", p == MAP_FAILED ? err() : "mapped");
    close(fd);
}

/* Offsets: read, lseek, pread, readv, and a dup sharing the offset. */
static void op_seek(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf(" %s\n", err());
        return;
    }
    char a[4] = { 0 }, b[4] = { 0 }, c[4] = { 0 };
    ssize_t n1 = read(fd, a, 3);
    int fd2 = dup(fd);
    ssize_t n2 = read(fd2, b, 3);
    off_t cur = lseek(fd, 0, SEEK_CUR);
    off_t end = lseek(fd, 0, SEEK_END);
    off_t back = lseek(fd, -2, SEEK_END);
    ssize_t n3 = pread(fd, c, 3, 1);
    off_t after = lseek(fd, 0, SEEK_CUR);
    struct iovec iov[2] = { { a, 1 }, { b, 2 } };
    lseek(fd, 0, SEEK_SET);
    ssize_t n4 = readv(fd, iov, 2);
    off_t neg = lseek(fd, -100, SEEK_SET);
    int neg_err = errno;
    printf(" read %zd \"%.3s\" dup %zd \"%.3s\" cur %lld end %lld back %lld pread %zd \"%.3s\" "
           "after %lld readv %zd \"%.1s%.2s\" neg %lld %s\n",
           n1, n1 > 0 ? a : "", n2, n2 > 0 ? b : "", (long long)cur, (long long)end,
           (long long)back, n3, n3 > 0 ? c : "", (long long)after, n4, a, b, (long long)neg,
           neg < 0 ? strerrorname_np(neg_err) : "");
    ssize_t w = write(fd, "x", 1);
    printf("   write %s\n", w < 0 ? err() : "ok");
    close(fd2);
    close(fd);
}

static void op_fcntl(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        printf(" %s\n", err());
        return;
    }
    int fl = fcntl(fd, F_GETFL);
    int fdf = fcntl(fd, F_GETFD);
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 20);
    int dfd = fcntl(d, F_GETFD);
    int s = fcntl(fd, F_SETFL, fl | O_NONBLOCK);
    int fl2 = fcntl(fd, F_GETFL);
    printf(" getfl %#o getfd %d dupfd %d cloexec %d setfl %d getfl %#o\n", fl, fdf, d, dfd, s,
           fl2);
    close(d);
    close(fd);
}

/* openat and fstatat from a directory descriptor: "..", symlinks and
 * AT_EMPTY_PATH are relative to it. */
static void op_at(const char *dir, const char *rel)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd < 0) {
        printf(" %s\n", err());
        return;
    }
    int fd = openat(dfd, rel, O_RDONLY);
    struct stat st;
    int r = fstatat(dfd, rel, &st, 0);
    int e = fstatat(dfd, "", &st, AT_EMPTY_PATH);
    printf(" openat %s fstatat %s empty %s %s\n", fd < 0 ? err() : "ok",
           r < 0 ? strerrorname_np(errno) : "ok", e < 0 ? "err" : "ok", type_of(st.st_mode));
    if (fd >= 0) {
        char buf[64];
        ssize_t n = read(fd, buf, sizeof(buf));
        printf("   read %zd \"%.*s\"\n", n, n > 0 ? (int)(n > 20 ? 20 : n) : 0, buf);
        close(fd);
    }
    close(dfd);
}

/* What one read saw: "inside", "SECRET" or anything else. */
static void tally(int fd, long counts[4])
{
    if (fd < 0) {
        counts[3]++;
        return;
    }
    char buf[16] = { 0 };
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    counts[n > 0 && !strncmp(buf, "inside", 6) ? 0 : n > 0 && !strncmp(buf, "SECRET", 6) ? 1 : 2]++;
}

static void op_race(const char *path, const char *arg, int dotdot)
{
    long n = arg ? atol(arg) : 1000, counts[4] = { 0 };
    int dfd = AT_FDCWD;
    /* The racer may have the directory away when we look: look again. */
    for (int i = 0; dotdot && i < 100000 && (dfd = open(path, O_RDONLY | O_DIRECTORY)) < 0; i++)
        ;
    if (dotdot && dfd < 0) {
        printf(" %s\n", err());
        return;
    }
    for (long i = 0; i < n; i++)
        tally(openat(dfd, dotdot ? "../f" : path, O_RDONLY), counts);
    printf(" inside %ld secret %ld other %ld errors %ld\n", counts[0], counts[1], counts[2],
           counts[3]);
    if (dotdot)
        close(dfd);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        char *op = strdup(argv[i]);
        char *path = strchr(op, ':');
        char *arg = NULL;
        if (path) {
            *path++ = 0;
            char *c = strrchr(path, ':');
            if (c) {
                *c = 0;
                arg = c + 1;
            }
        }
        printf("%s %s%s%s:", op, path ? path : "", arg ? ":" : "", arg ? arg : "");
        errno = 0;
        if (!strcmp(op, "cat"))
            op_cat(path);
        else if (!strcmp(op, "stat"))
            op_stat(path, 0);
        else if (!strcmp(op, "lstat"))
            op_stat(path, 1);
        else if (!strcmp(op, "statx"))
            op_statx(path);
        else if (!strcmp(op, "readlink"))
            op_readlink(path);
        else if (!strcmp(op, "ls"))
            op_ls(path);
        else if (!strcmp(op, "getdents"))
            op_getdents(path);
        else if (!strcmp(op, "getdents-old"))
            op_getdents_old(path);
        else if (!strcmp(op, "access"))
            op_access(path, arg);
        else if (!strcmp(op, "open"))
            op_open(path, arg);
        else if (!strcmp(op, "chdir"))
            op_chdir(path);
        else if (!strcmp(op, "fchdir"))
            op_fchdir(path);
        else if (!strcmp(op, "mmap"))
            op_mmap(path);
        else if (!strcmp(op, "seek"))
            op_seek(path);
        else if (!strcmp(op, "fcntl"))
            op_fcntl(path);
        else if (!strcmp(op, "at"))
            op_at(path, arg);
        else if (!strcmp(op, "race"))
            op_race(path, arg, 0);
        else if (!strcmp(op, "dotdot"))
            op_race(path, arg, 1);
        else
            printf(" unknown op\n");
        free(op);
    }
    return 0;
}
