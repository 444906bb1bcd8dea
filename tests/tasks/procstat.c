/* procstat: /proc/<pid>/stat and /proc/<pid>/syscall of tasks in each state
 * a program can put them in: running, asleep in a call (S), in a killable
 * wait (D: a vfork parent; a seccomp user notification once received and
 * signalled, with WAIT_KILLABLE_RECV), a zombie (exited, killed, a leader
 * whose thread lives on), and the threads of a process.  What supervisors
 * and the kernel's seccomp selftests poll (user_notification_fifo,
 * user_notification_wait_killable*).  It prints the fields two runs of the
 * same kernel agree on, and relations for the others (a pid against
 * getpid(), an argument against the buffer passed, the stack and return
 * address against where they must be).
 * Build: gcc -O2 -static -pthread [-m32] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define NFIELDS 52

/* The fields of /proc/<path>, split at spaces after the ")" of the name. */
struct stat_line {
    int n;
    char comm[64];
    char state;
    long long f[NFIELDS + 1]; /* f[i]: field i (1-based), numbers only */
};

static int read_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    ssize_t r = read(fd, buf, size - 1);
    int e = errno;
    close(fd);
    if (r < 0)
        return -e;
    buf[r] = 0;
    return (int)r;
}

static int read_stat(const char *path, struct stat_line *s)
{
    char buf[1024];
    memset(s, 0, sizeof(*s));
    if (read_file(path, buf, sizeof(buf)) < 0)
        return -1;
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren)
        return -1;
    snprintf(s->comm, sizeof(s->comm), "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
    s->f[1] = atoll(buf);
    s->n = 2;
    char *p = close_paren + 2;
    s->state = *p;
    s->n = 3;
    p++;
    while (*p == ' ') {
        p++;
        s->n++;
        if (s->n <= NFIELDS)
            s->f[s->n] = (long long)strtoull(p, &p, 10); /* -1 too, as ULLONG_MAX */
        else
            strtoull(p, &p, 10);
    }
    return *p == '\n' ? 0 : -1;
}

static char state_of(int pid)
{
    char path[64];
    struct stat_line s;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    return read_stat(path, &s) ? '?' : s.state;
}

/* Wait (10 s at most) until pid's state letter is `want`. */
static int wait_state(int pid, char want)
{
    for (int i = 0; i < 1000; i++) {
        if (state_of(pid) == want)
            return 1;
        struct timespec d = { 0, 10000000 };
        nanosleep(&d, NULL);
    }
    printf("  timeout: %d never showed state %c (last %c)\n", pid, want, state_of(pid));
    return 0;
}

static struct stat_line self;

/* The fields every run agrees on, and the relations for the others. */
static void show_stat(const char *who, const char *path, int pid)
{
    struct stat_line s;
    if (read_stat(path, &s)) {
        printf("  %s: %s unreadable\n", who, path);
        return;
    }
    printf("  %s: fields=%d comm=%s state=%c pid=%s ppid=%s pgrp=%s session=%s tty=%s tpgid=%s\n",
           who, s.n, s.comm, s.state, s.f[1] == pid ? "ok" : "WRONG",
           s.f[4] == getpid() ? "me" : s.f[4] == getppid() ? "mine" : "other",
           s.f[5] == getpgrp() ? "mine" : "other", s.f[6] == self.f[6] ? "mine" : "other",
           s.f[7] == self.f[7] ? "mine" : "other", s.f[8] == self.f[8] ? "mine" : "other");
    /* rss is left out: seccomp-emu keeps no count of resident pages. */
    /* PF_SUPERPRIV (0x100) says the task used a capability: it depends on
     * who runs the test (root sets it), not on what it does. */
    /* The nice value is the runner's (meson under nice -n 10, the judge VM
     * at 0): priority less nice is 20 for SCHED_NORMAL whatever it is. */
    printf("    flags=%#llx priority-nice=%lld threads=%lld itreal=%lld vsize=%s "
           "rsslim=%llu\n",
           s.f[9] & ~0x100ull, s.f[18] - s.f[19], s.f[20], s.f[21], s.f[23] ? "some" : "0",
           (unsigned long long)s.f[25]);
    printf("    esp=%lld eip=%lld signal=%lld blocked=%lld sigignore=%lld sigcatch=%lld wchan=%lld "
           "%lld %lld exit_signal=%lld\n",
           s.f[29], s.f[30], s.f[31], s.f[32], s.f[33], s.f[34], s.f[35], s.f[36], s.f[37],
           s.f[38]);
    printf("    rt_priority=%lld policy=%lld blkio=%lld guest=%lld cguest=%lld exit_code=%lld\n",
           s.f[40], s.f[41], s.f[42], s.f[43], s.f[44], s.f[52]);
    if (s.state == 'Z')
        printf("    zombie: vsize=%lld rss=%lld startcode=%lld endcode=%lld startstack=%lld "
               "start_data..env_end=%lld %lld %lld %lld %lld %lld %lld\n",
               s.f[23], s.f[24], s.f[26], s.f[27], s.f[28], s.f[45], s.f[46], s.f[47], s.f[48],
               s.f[49], s.f[50], s.f[51]);
}

/* /proc/<pid>/syscall: the number and the arguments that say which call,
 * whether the stack is the task's and the return address follows a
 * system call instruction (the task's memory is a copy of ours). */
static void show_syscall(const char *who, const char *path, long nr, const unsigned long *args,
                         int nargs)
{
    char buf[512];
    int r = read_file(path, buf, sizeof(buf));
    if (r < 0) {
        printf("  %s: %s: error %d\n", who, path, -r);
        return;
    }
    if (!strcmp(buf, "running\n") || !strcmp(buf, "-1 0x0 0x0\n")) {
        printf("  %s: syscall: %s", who, buf);
        return;
    }
    long n = strtol(buf, NULL, 10);
    unsigned long long v[8] = { 0 };
    char *p = strchr(buf, ' ');
    int got = 0;
    while (p && got < 8) {
        v[got++] = strtoull(p + 1, &p, 16);
        if (*p != ' ')
            break;
    }
    printf("  %s: syscall: words=%d nr=%s", who, got + 1, n == nr ? "expected" : "OTHER");
    for (int i = 0; i < nargs; i++)
        printf(" arg%d=%s", i, v[i] == (unsigned long long)args[i] ? "expected" : "other");
    int local;
    unsigned long long sp = v[6], pc = v[7];
    unsigned long long here = (uintptr_t)&local; /* no wrap near 4 GiB (i386) */
    const unsigned char *insn = (const unsigned char *)(uintptr_t)(pc - 2);
    printf(" sp=%s pc=%s\n",
           sp < here + (1 << 20) && sp + (1 << 20) > here ? "on-the-stack" : "elsewhere",
           (insn[0] == 0x0f && insn[1] == 0x05) || (insn[0] == 0xcd && insn[1] == 0x80)
               ? "after-a-syscall-insn" : "elsewhere");
}

static char pipe_buf[16];
static int pipe_fds[2];

static void *reader_thread(void *arg)
{
    (void)arg;
    char c;
    (void)!read(pipe_fds[0], &c, 1);
    return NULL;
}

static void on_usr1(int sig) { (void)sig; }

static int notify_filter(unsigned flags)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_NEW_LISTENER | flags, &prog);
}

static void reap(int pid, const char *who)
{
    int st;
    if (waitpid(pid, &st, 0) != pid)
        printf("  %s: waitpid failed\n", who);
    else if (WIFEXITED(st))
        printf("  %s: exited %d\n", who, WEXITSTATUS(st));
    else
        printf("  %s: killed by signal %d\n", who, WTERMSIG(st));
}

int main(void)
{
    char path[96];
    setvbuf(stdout, NULL, _IONBF, 0);
    /* The dispositions this program inherits are its runner's (a shell's
     * background job ignores SIGINT and SIGQUIT): every one the default. */
    for (int sig = 1; sig < 32; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    if (read_stat("/proc/self/stat", &self)) {
        printf("no /proc/self/stat\n");
        return 1;
    }
    if (pipe(pipe_fds))
        return 1;

    printf("this process:\n");
    show_stat("self", "/proc/self/stat", getpid());
    {
        /* The reader's own call: this read(2). */
        int fd = open("/proc/self/syscall", O_RDONLY);
        char buf[256];
        ssize_t r = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[r > 0 ? r : 0] = 0;
        long n = strtol(buf, NULL, 10);
        unsigned long long a0 = strtoull(strchr(buf, ' ') + 1, NULL, 16);
        printf("  self: syscall: nr=%s arg0=%s\n", n == SYS_read ? "read" : "OTHER",
               a0 == (unsigned long long)fd ? "the fd" : "other");
    }

    printf("a child asleep in read(2) on a pipe:\n");
    int pid = fork();
    if (pid == 0) {
        signal(SIGUSR1, on_usr1);
        signal(SIGPIPE, SIG_IGN);
        (void)!read(pipe_fds[0], pipe_buf, sizeof(pipe_buf));
        _exit(0);
    }
    if (wait_state(pid, 'S')) {
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("reader", path, pid);
        snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
        unsigned long args[3] = { (unsigned long)pipe_fds[0], (unsigned long)pipe_buf,
                                  sizeof(pipe_buf) };
        show_syscall("reader", path, SYS_read, args, 3);
    }
    (void)!write(pipe_fds[1], "x", 1);
    reap(pid, "reader");

    printf("a child running (a loop):\n");
    pid = fork();
    if (pid == 0)
        for (;;)
            __asm__ volatile("" ::: "memory");
    if (wait_state(pid, 'R')) {
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("spinner", path, pid);
        snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
        show_syscall("spinner", path, 0, NULL, 0);
    }
    kill(pid, SIGKILL);
    reap(pid, "spinner");

    printf("a vfork parent (killable wait) while its child sleeps:\n");
    pid = fork();
    if (pid == 0) {
        if (vfork() == 0) {
            char c;
            (void)!read(pipe_fds[0], &c, 1);
            _exit(0);
        }
        _exit(0);
    }
    if (wait_state(pid, 'D')) {
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("vfork parent", path, pid);
        snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
        show_syscall("vfork parent", path, SYS_vfork, NULL, 0);
    }
    (void)!write(pipe_fds[1], "x", 1);
    reap(pid, "vfork parent");

    printf("a child waiting for a seccomp supervisor (WAIT_KILLABLE_RECV):\n");
    int sk[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sk))
        return 1;
    pid = fork();
    if (pid == 0) {
        close(sk[0]);
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        int listener = notify_filter(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
        if (listener < 0)
            _exit(2);
        /* The listener goes to the parent. */
        char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
        char c = 'l';
        struct iovec iov = { &c, 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof(cbuf) };
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &listener, sizeof(int));
        if (sendmsg(sk[1], &m, 0) != 1)
            _exit(3);
        close(listener);
        struct sigaction sa = { .sa_handler = on_usr1 };
        sigaction(SIGUSR1, &sa, NULL);
        long r = syscall(SYS_getppid);
        _exit(r == 42 ? 0 : 4);
    }
    close(sk[1]);
    int listener = -1;
    {
        char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
        char c;
        struct iovec iov = { &c, 1 };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof(cbuf) };
        if (recvmsg(sk[0], &m, 0) == 1 && CMSG_FIRSTHDR(&m))
            memcpy(&listener, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
    }
    snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
    if (listener >= 0 && wait_state(pid, 'S')) {
        /* Asleep in the notification: the call shows, not yet run. */
        printf("  before RECV: state=%c\n", state_of(pid));
        show_syscall("notified", path, SYS_getppid, NULL, 0);
        struct seccomp_notif req = { 0 };
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req))
            printf("  RECV failed: %d\n", errno);
        /* Received, no signal yet: still an interruptible sleep. */
        struct timespec d = { 0, 100000000 };
        nanosleep(&d, NULL);
        printf("  after RECV: state=%c\n", state_of(pid));
        kill(pid, SIGUSR1);
        if (wait_state(pid, 'D')) {
            snprintf(path, sizeof(path), "/proc/%d/stat", pid);
            show_stat("notified, signalled", path, pid);
            snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
            show_syscall("notified, signalled", path, SYS_getppid, NULL, 0);
        }
        struct seccomp_notif_resp resp = { .id = req.id, .val = 42 };
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp))
            printf("  SEND failed: %d\n", errno);
    }
    reap(pid, "notified");
    close(listener);

    printf("zombies:\n");
    pid = fork();
    if (pid == 0)
        _exit(3);
    if (wait_state(pid, 'Z')) {
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("exited 3", path, pid);
        snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
        show_syscall("exited 3", path, 0, NULL, 0);
    }
    reap(pid, "exited 3");
    pid = fork();
    if (pid == 0)
        raise(SIGKILL);
    if (wait_state(pid, 'Z')) {
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("killed", path, pid);
    }
    reap(pid, "killed");

    printf("a process of two threads, both asleep in read(2):\n");
    pid = fork();
    if (pid == 0) {
        pthread_t th;
        pthread_create(&th, NULL, reader_thread, NULL);
        reader_thread(NULL);
        pthread_join(th, NULL);
        _exit(0);
    }
    if (wait_state(pid, 'S')) {
        snprintf(path, sizeof(path), "/proc/%d/task", pid);
        /* The other thread's tid: the process's, plus what it made since. */
        int tid = 0;
        for (int t = pid + 1; t < pid + 64 && !tid; t++) {
            char tp[96];
            snprintf(tp, sizeof(tp), "/proc/%d/task/%d/stat", pid, t);
            if (access(tp, F_OK) == 0)
                tid = t;
        }
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("process", path, pid);
        snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, pid);
        show_stat("leader thread", path, pid);
        if (tid && wait_state(tid, 'S')) {
            snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
            show_stat("second thread", path, tid);
        } else
            printf("  second thread not found\n");
    }
    (void)!write(pipe_fds[1], "xx", 2);
    reap(pid, "two threads");

    printf("a zombie leader whose thread lives on:\n");
    pid = fork();
    if (pid == 0) {
        pthread_t th;
        pthread_create(&th, NULL, reader_thread, NULL);
        syscall(SYS_exit, 0);
    }
    if (wait_state(pid, 'Z')) {
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        show_stat("zombie leader", path, pid);
        snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
        show_syscall("zombie leader", path, 0, NULL, 0);
    }
    (void)!write(pipe_fds[1], "x", 1);
    reap(pid, "zombie leader");
    return 0;
}
