/* Lesson 12: a supervisor cannot trust what it checked (user notification).
 *
 * SECCOMP_RET_USER_NOTIF hands a call to a supervisor, which reads the
 * call's arguments and answers.  An argument that is a pointer (openat's
 * path) points into the caller's memory, and the caller's other threads
 * can still write there: the supervisor checks one string, and with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE the kernel then runs the call, reading
 * the string again, whatever it has become.  This is the time-of-check to
 * time-of-use race the kernel's own documentation warns about
 * (seccomp_unotify(2): CONTINUE "must not be used to make security
 * policy decisions").
 *
 * Three threads of one process: the main thread installs a filter that
 * sends openat to a listener and then opens the path "/dev/zero"; a
 * supervisor thread receives the notification, reads the path from the
 * caller's memory and approves only "/dev/zero"; an attacker thread
 * rewrites the path to "/dev/urandom" after the check and before the
 * answer (pipes order the three, so the race is won every time, natively
 * too).
 *
 *     seccomp-emu --trace build/examples/toctou_notify64
 *     seccomp-emu --trace build/examples/toctou_notify64 addfd
 *
 * The trace's openat line shows the path the kernel read when the call
 * ran, "/dev/urandom", beside the notification the supervisor answered
 * CONTINUE for "/dev/zero".  With `addfd` the supervisor does not let the
 * call run: it opens the path it checked itself and installs that file in
 * the caller with SECCOMP_IOCTL_NOTIF_ADDFD and FLAG_SEND, the safe way,
 * and the caller gets /dev/zero whatever the string says by then. */
#include "filter.h"

#define NR_ioctl 16
#define NR_clone 56
#define NR_readlink 89
#define NR_openat 257
#define NR_pipe2 293
#define NR_seccomp 317

#define SECCOMP_SET_MODE_FILTER 1
#define SECCOMP_FILTER_FLAG_NEW_LISTENER 8
#define SECCOMP_RET_USER_NOTIF 0x7fc00000u
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE 1
#define SECCOMP_ADDFD_FLAG_SEND 2
#define SECCOMP_IOCTL_NOTIF_RECV 0xc0502100u
#define SECCOMP_IOCTL_NOTIF_SEND 0xc0182101u
#define SECCOMP_IOCTL_NOTIF_ADDFD 0x40182103u
#define AT_FDCWD (-100)
#define CLONE_THREAD_FLAGS 0x50f00 /* VM, FS, FILES, SIGHAND, THREAD, SYSVSEM */

struct seccomp_notif {
    unsigned long long id;
    unsigned pid, flags;
    int nr;
    unsigned arch;
    unsigned long long ip, args[6];
};
struct seccomp_notif_resp {
    unsigned long long id;
    long long val;
    int error;
    unsigned flags;
};
struct seccomp_notif_addfd {
    unsigned long long id;
    unsigned flags, srcfd, newfd, newfd_flags;
};

static const struct sock_filter notify_openat[] = {
    LOAD(SD_ARCH),
    JEQ(AUDIT_ARCH_NATIVE, 1, 0),
    RET(SECCOMP_RET_KILL_PROCESS),
    LOAD(SD_NR),
    JEQ(NR_openat, 0, 1),
    RET(SECCOMP_RET_USER_NOTIF),
    RET(SECCOMP_RET_ALLOW),
};

static char path[32] = "/dev/zero"; /* what the main thread opens */
static int listener;
static int checked[2], changed[2], ready[2], done[2]; /* pipes that order the threads */
static char stacks[2][65536] __attribute__((aligned(16)));

static long sys(long nr, long a, long b, long c, long d)
{
    return guest_sys(nr, a, b, c, d, 0, 0);
}

static void copy(char *to, const char *from, unsigned long n)
{
    while (n-- && (*to++ = *from++))
        ;
}

static void say(const char *who, const char *what, const char *arg)
{
    guest_puts(who);
    guest_puts(what);
    guest_puts(arg);
    guest_puts("\"\n");
}

/* A thread that runs fn on its own stack and then exits (clone with
 * CLONE_THREAD: the child starts on `stack`, returns 0 from the call). */
static long spawn(void (*fn)(void), char *stack_top)
{
    long ret;
    register long r10 __asm__("r10") = 0;
    register long r8 __asm__("r8") = 0;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "call *%%rbx\n\t"
                     "mov $60, %%eax\n\t"
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "1:"
                     : "=a"(ret)
                     : "a"(NR_clone), "D"(CLONE_THREAD_FLAGS), "S"(stack_top), "d"(0),
                       "r"(r10), "r"(r8), "b"(fn)
                     : "rcx", "r11", "memory");
    return ret;
}

static void attacker(void)
{
    char c;
    guest_read(checked[0], &c, 1); /* the supervisor has looked */
    copy(path, "/dev/urandom", sizeof(path));
    say("attacker:   ", "rewrote the path to \"", path);
    guest_write(changed[1], "c", 1);
}

static void supervisor(void)
{
    char c, seen[sizeof(path)];
    guest_read(ready[0], &c, 1); /* the listener exists */
    struct seccomp_notif n = { 0 };
    if (sys(NR_ioctl, listener, SECCOMP_IOCTL_NOTIF_RECV, (long)&n, 0) != 0) {
        guest_puts("supervisor: RECV failed\n");
        guest_write(done[1], "d", 1);
        return;
    }
    /* The caller's memory is ours: one address space. */
    copy(seen, (const char *)(unsigned long)n.args[1], sizeof(seen));
    say("supervisor: ", "openat checked: \"", seen);
    int allowed = guest_streq(seen, "/dev/zero");
    guest_write(checked[1], "c", 1);
    guest_read(changed[0], &c, 1); /* the race, won every time */
    if (!allowed) {
        struct seccomp_notif_resp r = { n.id, 0, -13 /* EACCES */, 0 };
        sys(NR_ioctl, listener, SECCOMP_IOCTL_NOTIF_SEND, (long)&r, 0);
        guest_write(done[1], "d", 1);
        return;
    }
    if (guest_streq(guest_arg1(), "addfd")) {
        /* The safe answer: open what was checked, hand over that file. */
        long fd = sys(NR_openat, AT_FDCWD, (long)seen, 0, 0);
        struct seccomp_notif_addfd a = { n.id, SECCOMP_ADDFD_FLAG_SEND, (unsigned)fd, 0, 0 };
        long got = sys(NR_ioctl, listener, SECCOMP_IOCTL_NOTIF_ADDFD, (long)&a, 0);
        guest_puts(got >= 0 ? "supervisor: allowed: ADDFD+SEND of its own open of the checked path\n"
                            : "supervisor: ADDFD failed\n");
    } else {
        struct seccomp_notif_resp r = { n.id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE };
        long sent = sys(NR_ioctl, listener, SECCOMP_IOCTL_NOTIF_SEND, (long)&r, 0);
        guest_puts(sent == 0 ? "supervisor: allowed: SEND CONTINUE\n" : "supervisor: SEND failed\n");
    }
    guest_write(done[1], "d", 1);
}

int guest_main(void)
{
    if (sys(NR_pipe2, (long)checked, 0, 0, 0) || sys(NR_pipe2, (long)changed, 0, 0, 0) ||
        sys(NR_pipe2, (long)ready, 0, 0, 0) || sys(NR_pipe2, (long)done, 0, 0, 0))
        return 1;
    /* The helpers first: a filter attached afterwards is the main
     * thread's alone, so the supervisor's own openat is not notified. */
    if (spawn(supervisor, stacks[0] + sizeof(stacks[0])) < 0 ||
        spawn(attacker, stacks[1] + sizeof(stacks[1])) < 0)
        return 2;
    guest_no_new_privs();
    struct sock_fprog prog = { sizeof(notify_openat) / sizeof(notify_openat[0]), notify_openat };
    listener = (int)sys(NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                        (long)&prog, 0);
    if (listener < 0)
        return 3;
    guest_write(ready[1], "r", 1);
    long fd = sys(NR_openat, AT_FDCWD, (long)path, 0, 0);
    char c;
    guest_read(done[0], &c, 1); /* the supervisor has said what it did */
    char link[64] = { 0 }, proc[32] = "/proc/self/fd/", num[22];
    copy(proc + 14, guest_utoa((unsigned long)fd, num), sizeof(proc) - 14);
    long n = sys(NR_readlink, (long)proc, (long)link, sizeof(link) - 1, 0);
    if (n < 0)
        return 4;
    say("main:       ", "openat returned a descriptor for \"", link);
    return 0;
}
