/* Processes and the objects they share, as the kernel answers: fork,
 * vfork, wait4 and waitid (WNOHANG, __WCLONE, __WALL, WNOWAIT, ECHILD),
 * exit codes and deaths by signal, SIGCHLD, kill and tgkill across
 * processes, pipes (capacity, O_NONBLOCK, EPIPE and SIGPIPE, end of file,
 * PIPE_BUF atomicity, O_DIRECT packets), eventfd, clone3's own checks,
 * execve of /proc/self/exe, sched_getaffinity's sizes, getcpu.  Every line
 * is deterministic (no pids, no times): the kernel judges it
 * (tests/tasks/check_tasks.py).
 * Build: gcc -O2 -static [-m32] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *E(long r) { return r < 0 ? strerrorname_np(errno) : "ok"; }

static void status(const char *what, int st)
{
    if (WIFEXITED(st))
        printf("%-44s exited %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("%-44s killed by %s\n", what, sigabbrev_np(WTERMSIG(st)));
    else
        printf("%-44s status %#x\n", what, st);
}

static volatile sig_atomic_t chld_code, chld_status, chld_count;
static void on_chld(int s, siginfo_t *si, void *u)
{
    (void)s, (void)u;
    chld_code = si->si_code;
    chld_status = si->si_status;
    chld_count++;
}

static void waits(int argc)
{
    int st;
    pid_t c = fork();
    if (c == 0)
        _exit(42);
    printf("wait4 -> child: %s\n", wait4(c, &st, 0, NULL) == c ? "yes" : "no");
    status("fork, _exit(42):", st);

    c = fork();
    if (c == 0) {
        raise(SIGTERM);
        _exit(1);
    }
    waitpid(c, &st, 0);
    status("fork, raise(SIGTERM):", st);

    c = fork();
    if (c == 0) {
        volatile uintptr_t addr = (uintptr_t)argc;
        *(volatile int *)addr = 1;
        _exit(1);
    }
    waitpid(c, &st, 0);
    status("fork, write to address 8:", st);

    errno = 0;
    printf("wait4 with no child left: %ld %s\n", (long)wait4(-1, &st, 0, NULL), E(-1));
    printf("wait4 with bad options: %s\n", E(wait4(-1, &st, 0x100, NULL)));

    /* WNOHANG while the child still runs, then waitid with WNOWAIT */
    int p[2];
    if (pipe(p))
        return;
    c = fork();
    if (c == 0) {
        char b;
        close(p[1]);
        if (read(p[0], &b, 1) < 0)
            _exit(2);
        _exit(7);
    }
    close(p[0]);
    printf("WNOHANG on a running child: %ld\n", (long)waitpid(c, &st, WNOHANG));
    if (write(p[1], "x", 1) != 1)
        return;
    close(p[1]);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    long r = waitid(P_PID, c, &si, WEXITED | WNOWAIT);
    printf("waitid WNOWAIT: %s si_signo=%d si_code=%d si_status=%d pid ok=%d\n", E(r),
           si.si_signo, si.si_code, si.si_status, si.si_pid == c);
    memset(&si, 0, sizeof si);
    r = waitid(P_ALL, 0, &si, WEXITED);
    printf("waitid again: %s si_code=%d si_status=%d\n", E(r), si.si_code, si.si_status);
    printf("waitid without WEXITED: %s\n", E(waitid(P_ALL, 0, &si, WNOHANG)));

    /* a clone child that signals nothing is seen only with __WCLONE/__WALL */
    c = (pid_t)syscall(SYS_clone, 0L /* no exit signal */, 0L, 0L, 0L, 0L);
    if (c == 0)
        _exit(5);
    printf("clone child, plain wait: %ld %s\n", (long)waitpid(c, &st, WNOHANG), E(-1));
    r = waitpid(c, &st, __WCLONE);
    printf("clone child, __WCLONE: %s", r == c ? "reaped" : E(r));
    status(",", st);

    /* SIGCHLD with its siginfo */
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_chld;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGCHLD, &sa, NULL);
    /* SIGCHLD blocked until sigsuspend: a signal taken between the test
     * of chld_count and a pause() would leave pause() waiting for good. */
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);
    c = fork();
    if (c == 0)
        _exit(9);
    while (!chld_count)
        sigsuspend(&old);
    sigprocmask(SIG_SETMASK, &old, NULL);
    waitpid(c, &st, 0);
    printf("SIGCHLD: si_code=%d (CLD_EXITED=%d) si_status=%d\n", chld_code, CLD_EXITED,
           chld_status);
    signal(SIGCHLD, SIG_DFL);

    /* SIG_IGN reaps: no zombie, wait says ECHILD */
    signal(SIGCHLD, SIG_IGN);
    c = fork();
    if (c == 0)
        _exit(3);
    errno = 0;
    r = waitpid(c, &st, 0);
    printf("SIGCHLD ignored, waitpid: %ld %s\n", r, E(r));
    signal(SIGCHLD, SIG_DFL);
}

static void killing(void)
{
    int st;
    int p[2];
    if (pipe(p))
        return;
    pid_t c = fork();
    if (c == 0) {
        close(p[0]);
        if (write(p[1], "r", 1) != 1)
            _exit(2);
        for (;;)
            pause();
    }
    close(p[1]);
    char b;
    if (read(p[0], &b, 1) != 1)
        return;
    printf("kill(child, 0): %s\n", E(kill(c, 0)));
    printf("kill(child, 99): %s\n", E(kill(c, 99)));
    printf("tgkill(child, child, SIGUSR1): %s\n", E(syscall(SYS_tgkill, c, c, SIGUSR1)));
    waitpid(c, &st, 0);
    status("child after SIGUSR1:", st);
    printf("kill(reaped child, 0): %s\n", E(kill(c, 0)));
    printf("tgkill(self, wrong tid): %s\n", E(syscall(SYS_tgkill, getpid(), c, 0)));
    close(p[0]);
}

static void pipes(void)
{
    int p[2];
    if (pipe2(p, O_NONBLOCK))
        return;
    static char buf[70000];
    long total = 0, r;
    while ((r = write(p[1], buf, 4096)) > 0)
        total += r;
    printf("pipe capacity (O_NONBLOCK, 4096-byte writes): %ld, then %s\n", total, E(r));
    int n = 0;
    ioctl(p[0], FIONREAD, &n);
    printf("FIONREAD: %d; F_GETPIPE_SZ: %d\n", n, fcntl(p[0], F_GETPIPE_SZ));
    printf("read 100: %ld\n", (long)read(p[0], buf, 100));
    printf("write 4096 into 100 free bytes: %ld %s\n", (long)write(p[1], buf, 4096), E(-1));
    printf("write 100 (fits in the last page's room): %ld\n", (long)write(p[1], buf, 100));
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    errno = 0;
    r = write(p[1], buf, 1);
    printf("write with no reader (SIGPIPE ignored): %ld %s\n", r, E(r));
    close(p[1]);
    signal(SIGPIPE, SIG_DFL);

    if (pipe(p))
        return;
    pid_t c = fork();
    if (c == 0) {
        close(p[0]);
        if (write(p[1], "x", 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    int st;
    waitpid(c, &st, 0);
    printf("read after the writer exited: %ld, then %ld (end of file)\n",
           (long)read(p[0], buf, 10), (long)read(p[0], buf, 10));
    close(p[0]);

    /* SIGPIPE's default kills the writer (the read end closed before the
     * fork: whichever runs first, nobody reads) */
    if (pipe(p))
        return;
    close(p[0]);
    c = fork();
    if (c == 0) {
        if (write(p[1], "x", 1) < 0)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    waitpid(c, &st, 0);
    status("write to a pipe with no reader:", st);

    /* writes of up to PIPE_BUF bytes are atomic: two writers, whole chunks */
    if (pipe(p))
        return;
    for (int k = 0; k < 2; k++) {
        if (fork() == 0) {
            close(p[0]);
            char chunk[4096];
            memset(chunk, 'a' + k, sizeof chunk);
            for (int i = 0; i < 40; i++)
                if (write(p[1], chunk, sizeof chunk) != sizeof chunk)
                    _exit(1);
            _exit(0);
        }
    }
    close(p[1]);
    long got = 0, bad = 0, pos = 0;
    char first = 0;
    while ((r = read(p[0], buf, 1000)) > 0) {
        for (long i = 0; i < r; i++, pos++) {
            if (pos % 4096 == 0)
                first = buf[i];
            else if (buf[i] != first)
                bad++;
        }
        got += r;
    }
    while (wait(NULL) > 0)
        ;
    printf("two writers of 4096-byte chunks: %ld bytes, %ld torn\n", got, bad);
    close(p[0]);

    /* packets */
    if (pipe2(p, O_DIRECT))
        return;
    if (write(p[1], "hello", 5) != 5 || write(p[1], "world!", 6) != 6)
        return;
    r = read(p[0], buf, 100);
    printf("O_DIRECT: read %ld (%.*s), ", r, (int)r, buf);
    r = read(p[0], buf, 3);
    printf("then %ld of a 6-byte packet; O_DIRECT in F_GETFL: write end %d, read end %d\n", r,
           (fcntl(p[1], F_GETFL) & O_DIRECT) != 0, (fcntl(p[0], F_GETFL) & O_DIRECT) != 0);
    close(p[0]);
    close(p[1]);
    printf("pipe2 with O_APPEND: %s\n", E(pipe2(p, O_APPEND)));
}

static void eventfds(void)
{
    int e = eventfd(3, EFD_NONBLOCK);
    uint64_t v = 0;
    printf("eventfd read: %ld -> %llu\n", (long)read(e, &v, 8), (unsigned long long)v);
    printf("eventfd read again (empty, O_NONBLOCK): %s\n", E(read(e, &v, 8)));
    v = 5;
    printf("write 5: %ld; read 4 bytes: %s\n", (long)write(e, &v, 8), E(read(e, &v, 4)));
    v = UINT64_MAX;
    printf("write UINT64_MAX: %s\n", E(write(e, &v, 8)));
    v = UINT64_MAX - 1;
    printf("write to overflow (O_NONBLOCK): %s\n", E(write(e, &v, 8)));
    close(e);
    e = eventfd(2, EFD_SEMAPHORE);
    long a = read(e, &v, 8);
    printf("semaphore: read %ld -> %llu", a, (unsigned long long)v);
    a = read(e, &v, 8);
    printf(", again -> %llu\n", (unsigned long long)v);
    close(e);
    printf("eventfd2 bad flags: %s\n", E(syscall(SYS_eventfd2, 0, 0x10)));
    /* a blocked reader woken by another process's write */
    e = eventfd(0, 0);
    pid_t c = fork();
    if (c == 0) {
        uint64_t one = 7;
        usleep(20000);
        if (write(e, &one, 8) != 8)
            _exit(1);
        _exit(0);
    }
    printf("blocking eventfd read woken by a child: %ld ", (long)read(e, &v, 8));
    printf("-> %llu\n", (unsigned long long)v);
    waitpid(c, NULL, 0);
    close(e);
}

static void clone3_checks(void)
{
    struct clone_args ca;
    memset(&ca, 0, sizeof ca);
    printf("clone3 size 8: %s\n", E(syscall(SYS_clone3, &ca, 8)));
    printf("clone3 size 8192: %s\n", E(syscall(SYS_clone3, &ca, 8192)));
    ca.exit_signal = 65;
    printf("clone3 exit_signal 65: %s\n", E(syscall(SYS_clone3, &ca, sizeof ca)));
    ca.exit_signal = 0;
    ca.flags = CLONE_THREAD | CLONE_SIGHAND | CLONE_VM;
    ca.exit_signal = SIGCHLD;
    printf("clone3 thread with an exit signal: %s\n", E(syscall(SYS_clone3, &ca, sizeof ca)));
    memset(&ca, 0, sizeof ca);
    ca.stack_size = 4096;
    printf("clone3 stack_size without stack: %s\n", E(syscall(SYS_clone3, &ca, sizeof ca)));
    memset(&ca, 0, sizeof ca);
    ca.flags = CLONE_SIGHAND | CLONE_CLEAR_SIGHAND | CLONE_VM;
    printf("clone3 SIGHAND+CLEAR_SIGHAND: %s\n", E(syscall(SYS_clone3, &ca, sizeof ca)));
    memset(&ca, 0, sizeof ca);
    ca.flags = 0x400000; /* CLONE_DETACHED */
    printf("clone3 CLONE_DETACHED: %s\n", E(syscall(SYS_clone3, &ca, sizeof ca)));
    char big[sizeof ca + 8];
    memset(big, 0, sizeof big);
    big[sizeof ca + 3] = 1;
    printf("clone3 larger struct, non-zero tail: %s\n",
           E(syscall(SYS_clone3, big, sizeof big)));
    memset(&ca, 0, sizeof ca);
    ca.exit_signal = SIGCHLD;
    long c = syscall(SYS_clone3, &ca, sizeof ca);
    if (c == 0)
        _exit(11);
    int st;
    waitpid((pid_t)c, &st, 0);
    status("clone3 fork-like child:", st);
}

static void misc(int argc, char **argv)
{
    (void)argc;
    unsigned long mask[16];
    long r = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    /* how many bytes depends on the kernel's possible CPUs: only its shape */
    printf("sched_getaffinity: whole longs %d; with 1 byte: %s\n", r > 0 && r % 8 == 0,
           E(syscall(SYS_sched_getaffinity, 0, 1, mask)));
    printf("sched_getaffinity of no task: %s\n",
           E(syscall(SYS_sched_getaffinity, 0x3fffffff, sizeof mask, mask)));
    unsigned cpu = 99, node = 99;
    printf("getcpu: %s\n", E(syscall(SYS_getcpu, &cpu, &node, NULL)));
    printf("sched_yield: %s\n", E(sched_yield()));
    pid_t c = vfork();
    if (c == 0) {
        char *av[] = { argv[0], "exec", NULL };
        execve("/proc/self/exe", av, (char *[]){ "X=1", NULL });
        _exit(127);
    }
    int st;
    waitpid(c, &st, 0);
    status("vfork + execve(/proc/self/exe):", st);
    errno = 0;
    r = execve("/nonexistent", argv, NULL);
    printf("execve of a missing file: %s\n", E(r));
    printf("gettid == getpid in main: %d\n", syscall(SYS_gettid) == getpid());
}

/* The lines of /proc/self/maps in [lo, hi), one per VMA: how the
 * kernel merged the mappings there. */
static void print_vmas(const char *tag, unsigned long lo, unsigned long hi)
{
    char buf[16384];
    int fd = open("/proc/self/maps", O_RDONLY);
    long n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = 0;
    printf("%s:", tag);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned long start, end;
        if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start >= lo && end <= hi)
            printf(" %lx-%lx", start, end);
    }
    printf("\n");
}

/* A fork's child has anon_vmas chained to its parent's: a mapping it
 * inherited written merges with a new neighbour only once that has the
 * same anon_vma, while the parent's still merges (anon_vma_fork(),
 * is_mergeable_anon_vma()). */
static void forked_mappings(void)
{
    const unsigned long base = 0x30000000, page = 4096;
    char *a = mmap((void *)base, 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (a == MAP_FAILED)
        return;
    a[0] = 1;
    pid_t c = fork();
    if (c == 0) {
        /* Copy-on-write: what the parent never touched is not resident in
         * the child either. */
        unsigned char resident[2] = { 9, 9 };
        mincore(a, 2 * page, resident);
        printf("child: the written page resident %d, the untouched one %d\n", resident[0] & 1,
               resident[1] & 1);
        mmap((void *)(base + 2 * page), 2 * page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        print_vmas("child, an untouched neighbour", base, base + 16 * page);
        mmap((void *)(base + 6 * page), 2 * page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        ((char *)base)[6 * page] = 1;
        mmap((void *)(base + 4 * page), 2 * page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        print_vmas("child, two more, the last written", base, base + 16 * page);
        mprotect((void *)(base + page), page, PROT_READ);
        mprotect((void *)(base + page), page, PROT_READ | PROT_WRITE);
        print_vmas("child, split and joined again", base, base + 16 * page);
        fflush(stdout);
        _exit(0);
    }
    waitpid(c, NULL, 0);
    mmap((void *)(base + 2 * page), 2 * page, PROT_READ | PROT_WRITE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    print_vmas("parent, an untouched neighbour", base, base + 16 * page);
    munmap((void *)base, 16 * page);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "exec")) {
        printf("exec'd: argv[1]=%s X=%s\n", argv[1], getenv("X"));
        return 4;
    }
    waits(8 + 0 * argc);
    killing();
    pipes();
    eventfds();
    clone3_checks();
    misc(argc, argv);
    forked_mappings();
    return 0;
}
