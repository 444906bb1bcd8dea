/* Filter mode (FILTER.md), static glibc, both ABIs: each case prints what
 * the kernel answered, so the native run judges the emulated one.
 *   install      the order of seccomp(2)'s checks and errnos, no_new_privs,
 *                GET_ACTION_AVAIL, GET_NOTIF_SIZES, mode after a filter
 *   checker      programs the checker refuses (EINVAL) and one it takes
 *   path_ret, path_jset, path_jeq
 *                how many 4096-instruction filters fit after a one-
 *                instruction one: the limit counts eBPF instructions
 *   ranking      ties (newest wins), TRACE vs ERRNO, LOG vs an unknown action
 *   clamp        ERRNO 5000 -> 4095, ERRNO 0, TRACE and USER_NOTIF (ENOSYS),
 *                exit_group under ERRNO
 *   kill_process, kill_thread, unknown_kill, unknown_above_allow: SIGSYS
 *   trap         the SIGSYS a TRAP sends: siginfo, ax in the handler, the
 *                handler's ax as the result
 *   trap_blocked, trap_ignored: a forced SIGSYS kills
 *   data         seccomp_data as the filter sees it (native entry)
 *   data_x32, data_rax_hi, rax_hi_runs, data_int80 (64-bit only)
 * The data cases read seccomp_data through TRAP: a filter picks one 16-bit
 * half-word (chosen by args[1]) and returns it as the TRAP's data, which
 * the handler hands back as the call's result. */
#include <errno.h>
#include <fcntl.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
#define REG_AX_ REG_RAX
#define REG_IP_ REG_RIP
#else
#define REG_AX_ REG_EAX
#define REG_IP_ REG_EIP
#endif

/* raw_call(nr, a): the guest's native entry with six arguments from a[];
 * the address after the instruction is raw_after. */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl raw_call\nraw_call:\n"
        " mov %rdi, %rax\n mov %rsi, %r11\n"
        " mov 0(%r11), %rdi\n mov 8(%r11), %rsi\n mov 16(%r11), %rdx\n"
        " mov 24(%r11), %r10\n mov 32(%r11), %r8\n mov 40(%r11), %r9\n"
        " syscall\n"
        ".globl raw_after\nraw_after:\n ret\n"
        /* int $0x80 from 64-bit code: the ia32 registers */
        ".globl raw80_64\nraw80_64:\n push %rbx\n push %rbp\n"
        " mov %rdi, %rax\n mov %rsi, %r11\n"
        " mov 0(%r11), %ebx\n mov 8(%r11), %ecx\n mov 16(%r11), %edx\n"
        " mov 24(%r11), %esi\n mov 32(%r11), %edi\n mov 40(%r11), %ebp\n"
        " int $0x80\n"
        ".globl raw80_64_after\nraw80_64_after:\n pop %rbp\n pop %rbx\n ret\n");
long raw80_64(long nr, const long a[6]);
extern char raw80_64_after[];
#else
__asm__(".text\n"
        ".globl raw_call\nraw_call:\n"
        " push %ebp\n push %edi\n push %esi\n push %ebx\n"
        " mov 24(%esp), %eax\n"
        " mov 0(%eax), %ebx\n mov 4(%eax), %ecx\n mov 8(%eax), %edx\n"
        " mov 12(%eax), %esi\n mov 16(%eax), %edi\n mov 20(%eax), %ebp\n"
        " mov 20(%esp), %eax\n"
        " int $0x80\n"
        ".globl raw_after\nraw_after:\n"
        " pop %ebx\n pop %esi\n pop %edi\n pop %ebp\n ret\n"
        /* The same through the vDSO's __kernel_vsyscall (sysenter or the
         * 32-bit syscall): the filter sees the landing pad as ip. */
        ".globl raw_vsys\nraw_vsys:\n"
        " push %ebp\n push %edi\n push %esi\n push %ebx\n"
        " mov 24(%esp), %eax\n"
        " mov 0(%eax), %ebx\n mov 4(%eax), %ecx\n mov 8(%eax), %edx\n"
        " mov 12(%eax), %esi\n mov 16(%eax), %edi\n mov 20(%eax), %ebp\n"
        " mov 20(%esp), %eax\n"
        " call *vsys_entry\n"
        " pop %ebx\n pop %esi\n pop %edi\n pop %ebp\n ret\n");
long raw_vsys(long nr, const long a[6]);
void *vsys_entry;
#endif
long raw_call(long nr, const long a[6]);
extern char raw_after[];

static long call0(long nr)
{
    static const long none[6];
    return raw_call(nr, none);
}

#define STMT(c, k) ((struct sock_filter)BPF_STMT((c), (k)))
#define JUMP(c, k, t, f) ((struct sock_filter)BPF_JUMP((c), (k), (t), (f)))
#define N(a) (sizeof(a) / sizeof((a)[0]))

static long seccomp3(long op, long flags, const void *args)
{
    return syscall(SYS_seccomp, op, flags, args);
}

/* The raw answer: the result or -errno, so both runs print numbers. */
static long answer(long r) { return r < 0 ? -errno : r; }

static long install(struct sock_filter *insns, size_t len, unsigned flags)
{
    struct sock_fprog prog = { .len = (unsigned short)len, .filter = insns };
    return answer(seccomp3(SECCOMP_SET_MODE_FILTER, flags, &prog));
}

/* ret VALUE for call nr, ALLOW for the rest. */
static long install_for(long nr, uint32_t value)
{
    struct sock_filter p[] = {
        STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
        STMT(BPF_RET | BPF_K, value),
        STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    return install(p, N(p), 0);
}

static long nnp(void) { return answer(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)); }

static void case_install(void)
{
    struct sock_filter allow[] = { STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
    struct sock_filter bad[] = { STMT(BPF_LD | BPF_W | BPF_ABS, 1),
                                 STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
    struct sock_fprog zero = { .len = 0, .filter = allow };
    struct sock_fprog big = { .len = 4097, .filter = allow };
    struct sock_fprog null_filter = { .len = 1, .filter = NULL };
    struct sock_fprog wild = { .len = 1, .filter = (void *)16 };
    printf("PR_GET_SECCOMP %ld\n", answer(prctl(PR_GET_SECCOMP, 0, 0, 0, 0)));
    printf("PR_GET_NO_NEW_PRIVS %ld\n", answer(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)));
    printf("flags 0x40 %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0x40, NULL)));
    printf("TSYNC|NEW_LISTENER %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 9, NULL)));
    printf("WAIT_KILLABLE_RECV alone %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0x20, NULL)));
    printf("NULL fprog %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0, NULL)));
    printf("len 0 %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0, &zero)));
    printf("len 4097 %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0, &big)));
    /* Without no_new_privs: EACCES, or on to the checker for root. */
    printf("bad program without NNP %ld\n", install(bad, N(bad), 0));
    printf("prctl(PR_SET_SECCOMP, 2, NULL) %ld\n", answer(prctl(PR_SET_SECCOMP, 2, NULL, 0, 0)));
    printf("PR_SET_NO_NEW_PRIVS 2 %ld\n", answer(prctl(PR_SET_NO_NEW_PRIVS, 2, 0, 0, 0)));
    printf("PR_SET_NO_NEW_PRIVS 1,1 %ld\n", answer(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0)));
    printf("PR_SET_NO_NEW_PRIVS %ld\n", nnp());
    printf("PR_GET_NO_NEW_PRIVS %ld\n", answer(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)));
    printf("PR_GET_NO_NEW_PRIVS 1 %ld\n", answer(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0)));
    printf("filter NULL %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0, &null_filter)));
    printf("filter unreadable %ld\n", answer(seccomp3(SECCOMP_SET_MODE_FILTER, 0, &wild)));
    printf("bad program %ld\n", install(bad, N(bad), 0));
    static const uint32_t actions[] = {
        SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP,
        SECCOMP_RET_ERRNO, SECCOMP_RET_USER_NOTIF, SECCOMP_RET_TRACE, SECCOMP_RET_LOG,
        SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 5, 0x40000, 0x7ffe0000, 0xffffffff,
    };
    for (size_t i = 0; i < N(actions); i++)
        printf("GET_ACTION_AVAIL %#x %ld\n", actions[i],
               answer(seccomp3(SECCOMP_GET_ACTION_AVAIL, 0, &actions[i])));
    printf("GET_ACTION_AVAIL flags 1 %ld\n",
           answer(seccomp3(SECCOMP_GET_ACTION_AVAIL, 1, &actions[0])));
    printf("GET_ACTION_AVAIL NULL %ld\n", answer(seccomp3(SECCOMP_GET_ACTION_AVAIL, 0, NULL)));
    struct seccomp_notif_sizes sizes = { 0 };
    long got = answer(seccomp3(SECCOMP_GET_NOTIF_SIZES, 0, &sizes));
    printf("GET_NOTIF_SIZES %ld: %u %u %u\n", got, sizes.seccomp_notif,
           sizes.seccomp_notif_resp, sizes.seccomp_data);
    printf("GET_NOTIF_SIZES flags 1 %ld\n", answer(seccomp3(SECCOMP_GET_NOTIF_SIZES, 1, &sizes)));
    printf("GET_NOTIF_SIZES NULL %ld\n", answer(seccomp3(SECCOMP_GET_NOTIF_SIZES, 0, NULL)));
    printf("op 4 %ld\n", answer(seccomp3(4, 0, NULL)));
    printf("allow %ld\n", install(allow, N(allow), 0));
    printf("allow again, TSYNC %ld\n", install(allow, N(allow), SECCOMP_FILTER_FLAG_TSYNC));
    printf("allow, LOG|SPEC_ALLOW %ld\n",
           install(allow, N(allow), SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW));
    long listener = install(allow, N(allow), SECCOMP_FILTER_FLAG_NEW_LISTENER);
    printf("NEW_LISTENER %ld, close-on-exec %d\n", listener,
           listener >= 0 ? fcntl((int)listener, F_GETFD) : -1);
    printf("second NEW_LISTENER %ld\n", install(allow, N(allow), SECCOMP_FILTER_FLAG_NEW_LISTENER));
    printf("read on the listener %ld\n", listener >= 0 ? answer(read((int)listener, &got, 1)) : 0L);
    printf("PR_GET_SECCOMP %ld\n", answer(prctl(PR_GET_SECCOMP, 0, 0, 0, 0)));
    printf("strict by prctl %ld\n", answer(prctl(PR_SET_SECCOMP, 1, 0, 0, 0)));
    printf("strict by seccomp %ld\n", answer(seccomp3(SECCOMP_SET_MODE_STRICT, 0, NULL)));
    printf("prctl mode 3 %ld\n", answer(prctl(PR_SET_SECCOMP, 3, 0, 0, 0)));
    printf("prctl filter, 4th/5th args ignored %ld\n",
           answer(prctl(PR_SET_SECCOMP, 2, &(struct sock_fprog){ 1, allow }, 7, 9)));
}

static void case_checker(void)
{
    nnp();
    const struct {
        const char *what;
        struct sock_filter insn;
    } bad[] = {
        { "mod k", STMT(BPF_ALU | BPF_MOD | BPF_K, 3) },
        { "mod x", STMT(BPF_ALU | BPF_MOD | BPF_X, 0) },
        { "ld h abs", STMT(BPF_LD | BPF_H | BPF_ABS, 0) },
        { "ld b abs", STMT(BPF_LD | BPF_B | BPF_ABS, 0) },
        { "ld w ind", STMT(BPF_LD | BPF_W | BPF_IND, 0) },
        { "ldx msh", STMT(BPF_LDX | BPF_B | BPF_MSH, 0) },
        { "ld ancillary", STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PROTOCOL) },
        { "ld w abs 2", STMT(BPF_LD | BPF_W | BPF_ABS, 2) },
        { "ld w abs 64", STMT(BPF_LD | BPF_W | BPF_ABS, 64) },
        { "div k 0", STMT(BPF_ALU | BPF_DIV | BPF_K, 0) },
        { "lsh k 32", STMT(BPF_ALU | BPF_LSH | BPF_K, 32) },
        { "rsh k 32", STMT(BPF_ALU | BPF_RSH | BPF_K, 32) },
        { "st 16", STMT(BPF_ST, 16) },
        { "ldx mem unset", STMT(BPF_LDX | BPF_MEM, 0) },
        { "opcode 0xffff", STMT(0xffff, 0) },
        { "ja past end", STMT(BPF_JMP | BPF_JA, 1) },
        { "jeq jt past end", JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0) },
        { "jset jf past end", JUMP(BPF_JMP | BPF_JSET | BPF_K, 0, 0, 1) },
    };
    for (size_t i = 0; i < N(bad); i++) {
        struct sock_filter p[] = { bad[i].insn, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        printf("%s: %ld\n", bad[i].what, install(p, N(p), 0));
    }
    struct sock_filter ret_x[] = { STMT(BPF_RET | BPF_X, 0) };
    printf("ret x: %ld\n", install(ret_x, N(ret_x), 0));
    struct sock_filter no_ret[] = { STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), STMT(BPF_LD | BPF_IMM, 0) };
    printf("last not ret: %ld\n", install(no_ret, N(no_ret), 0));
    struct sock_filter one_path[] = {
        JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), STMT(BPF_ST, 3), STMT(BPF_LD | BPF_MEM, 3),
        STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    printf("scratch stored on one path: %ld\n", install(one_path, N(one_path), 0));
    /* Accepted, and it runs: A and X start at 0, X & 31 shifts, len is 64. */
    struct sock_filter good[] = {
        STMT(BPF_LD | BPF_W | BPF_LEN, 0),     /* A = 64 */
        STMT(BPF_ST, 0),
        STMT(BPF_LDX | BPF_IMM, 33),
        STMT(BPF_LD | BPF_IMM, 1),
        STMT(BPF_ALU | BPF_LSH | BPF_X, 0),    /* A = 2 */
        STMT(BPF_LDX | BPF_MEM, 0),            /* X = 64 */
        STMT(BPF_ALU | BPF_ADD | BPF_X, 0),    /* A = 66 */
        JUMP(BPF_JMP | BPF_JEQ | BPF_K, 66, 1, 0),
        STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    printf("good: %ld\n", install(good, N(good), 0));
    /* DIV by X == 0 ends the program with 0: KILL_THREAD, but only for getpid. */
    struct sock_filter div0[] = {
        STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 2),
        STMT(BPF_ALU | BPF_DIV | BPF_X, 0),
        STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
        STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    printf("div0: %ld\n", install(div0, N(div0), 0));
    printf("still alive; getppid under div0:\n");
    fflush(stdout);
    call0(SYS_getppid);
    printf("survived getppid\n");
}

/* 4096-instruction filters after a one-instruction one, until ENOMEM. */
static void path_limit(struct sock_filter *body, const char *what)
{
    nnp();
    struct sock_filter one[] = { STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
    printf("first %ld\n", install(one, 1, 0));
    static struct sock_filter p[4096];
    for (size_t i = 0; i + 2 < N(p); i++)
        p[i] = *body;
    p[4094] = p[4095] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    int n = 0;
    long r;
    while ((r = install(p, N(p), 0)) == 0)
        n++;
    printf("%s: %d fit, then %ld\n", what, n, r);
}

static void case_ranking(void)
{
    nnp();
    install_for(SYS_getpid, SECCOMP_RET_ERRNO | 11);
    install_for(SYS_getpid, SECCOMP_RET_ERRNO | 13);
    install_for(SYS_getpid, SECCOMP_RET_ERRNO | 12);
    printf("ERRNO 11, 13, 12: getpid %ld\n", call0(SYS_getpid));
    install_for(SYS_getppid, SECCOMP_RET_TRACE | 5);
    install_for(SYS_getppid, SECCOMP_RET_ERRNO | 7);
    printf("TRACE|5 then ERRNO|7: getppid %ld\n", call0(SYS_getppid));
    install_for(SYS_getuid, 0x7ffe0000);
    install_for(SYS_getuid, SECCOMP_RET_LOG);
    long uid = call0(SYS_getuid);
    printf("0x7ffe0000 then LOG: getuid ran %d\n", uid == (long)getuid());
    install_for(SYS_getgid, SECCOMP_RET_ALLOW);
    install_for(SYS_getgid, SECCOMP_RET_ERRNO | 3);
    install_for(SYS_getgid, SECCOMP_RET_ALLOW);
    printf("ALLOW, ERRNO|3, ALLOW: getgid %ld\n", call0(SYS_getgid));
    /* KILL_PROCESS is the most negative: it beats everything. */
    install_for(SYS_dup, SECCOMP_RET_KILL_PROCESS);
    install_for(SYS_dup, SECCOMP_RET_ERRNO | 1);
    install_for(SYS_dup, SECCOMP_RET_TRAP);
    printf("now dup under KILL_PROCESS, ERRNO, TRAP\n");
    fflush(stdout);
    call0(SYS_dup);
    printf("survived dup\n");
}

static void case_clamp(void)
{
    nnp();
    install_for(SYS_getpid, SECCOMP_RET_ERRNO | 5000);
    install_for(SYS_getppid, SECCOMP_RET_ERRNO | 0);
    install_for(SYS_getuid, SECCOMP_RET_TRACE);
    install_for(SYS_getgid, SECCOMP_RET_USER_NOTIF);
    install_for(SYS_exit_group, SECCOMP_RET_ERRNO | 5);
    printf("ERRNO|5000: getpid %ld\n", call0(SYS_getpid));
    printf("ERRNO|0: getppid %ld\n", call0(SYS_getppid));
    printf("TRACE: getuid %ld\n", call0(SYS_getuid));
    printf("USER_NOTIF: getgid %ld\n", call0(SYS_getgid));
    const long code[6] = { 3 };
    printf("ERRNO|5: exit_group(3) %ld\n", raw_call(SYS_exit_group, code));
    printf("still running\n");
    fflush(stdout);
    raw_call(SYS_exit, code);
}

static void die_by(long nr, uint32_t value, uint32_t older)
{
    nnp();
    if (older)
        install_for(nr, older);
    install_for(nr, value);
    printf("calling %ld under %#x (older %#x)\n", nr, value, older);
    fflush(stdout);
    long r = call0(nr);
    printf("survived: %ld\n", r);
}

/* The last SIGSYS the handler saw. */
static volatile struct {
    int count, signo, code, errno_;
    long call_addr_off, ax, ip_off;
    int syscall_;
    unsigned arch;
} seen;

static void on_sigsys(int sig, siginfo_t *info, void *uc_)
{
    ucontext_t *uc = uc_;
    seen.count++;
    seen.signo = sig;
    seen.code = info->si_code;
    seen.errno_ = info->si_errno;
    seen.call_addr_off = (long)((char *)info->si_call_addr - raw_after);
    seen.syscall_ = info->si_syscall;
    seen.arch = info->si_arch;
    seen.ax = (long)uc->uc_mcontext.gregs[REG_AX_];
    seen.ip_off = (long)((char *)(uintptr_t)uc->uc_mcontext.gregs[REG_IP_] - raw_after);
    /* The handler's ax is the call's result: the TRAP's data. */
    uc->uc_mcontext.gregs[REG_AX_] = info->si_errno;
}

static void handle_sigsys(void)
{
    struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
    sigaction(SIGSYS, &sa, NULL);
}

static void case_trap(void)
{
    handle_sigsys();
    nnp();
    install_for(SYS_getpid, SECCOMP_RET_TRAP | 0x1234);
    long r = call0(SYS_getpid);
    printf("getpid under TRAP|0x1234: %ld\n", r);
    printf("handler ran %d: sig %d code %d errno %#x call_addr-raw_after %ld syscall %d "
           "arch %#x ax in handler %ld ip-raw_after %ld\n",
           seen.count, seen.signo, seen.code, seen.errno_, seen.call_addr_off, seen.syscall_,
           seen.arch, seen.ax, seen.ip_off);
    /* TRAP|0: the result is the number the handler found in ax. */
    install_for(SYS_getppid, SECCOMP_RET_TRAP);
    printf("getppid under TRAP|0: %ld\n", call0(SYS_getppid));
}

static void case_trap_dies(int blocked)
{
    nnp();
    if (blocked) {
        handle_sigsys();
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGSYS);
        sigprocmask(SIG_BLOCK, &set, NULL);
    } else {
        signal(SIGSYS, SIG_IGN);
    }
    install_for(SYS_getpid, SECCOMP_RET_TRAP | 1);
    printf("getpid under TRAP with SIGSYS %s\n", blocked ? "blocked" : "ignored");
    fflush(stdout);
    call0(SYS_getpid);
    printf("survived\n");
}

/* The lines of /proc/self/status a sandbox test reads. */
static void show_status(const char *when)
{
    int fd = open("/proc/self/status", O_RDONLY);
    if (fd < 0) {
        printf("%s: open: %d\n", when, errno);
        return;
    }
    char text[8192];
    size_t len = 0;
    ssize_t n;
    /* Small reads: the file is read in pieces, as seq_file serves it. */
    while (len < sizeof(text) - 1 && (n = read(fd, text + len, MIN(100, sizeof(text) - 1 - len))) > 0)
        len += (size_t)n;
    text[len] = 0;
    close(fd);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "Seccomp", 7) || !strncmp(line, "NoNewPrivs", 10) ||
            !strncmp(line, "Threads", 7) || !strncmp(line, "SigBlk", 6) ||
            !strncmp(line, "SigCgt", 6) || !strncmp(line, "State", 5))
            printf("%s: %s\n", when, line);
}

static void show_device(const char *path)
{
    int fd = open(path, O_RDWR);
    unsigned char buf[64];
    memset(buf, 0xaa, sizeof(buf));
    long r = read(fd, buf, sizeof(buf));
    int zeros = 0, aa = 0;
    for (size_t i = 0; i < sizeof(buf); i++)
        zeros += buf[i] == 0, aa += buf[i] == 0xaa;
    long w = write(fd, "abc", 3);
    struct stat st;
    fstat(fd, &st);
    printf("%s: fd %d read %ld (zeros %d untouched %d) write %ld mode %o rdev %u:%u\n", path,
           fd >= 0, r, zeros == 64, aa == 64, w, (unsigned)st.st_mode, major(st.st_rdev),
           minor(st.st_rdev));
    close(fd);
}

static void case_status(void)
{
    show_status("start");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    handle_sigsys();
    nnp();
    install_for(SYS_getppid, SECCOMP_RET_ERRNO | 1);
    install_for(SYS_getppid, SECCOMP_RET_ERRNO | 2);
    show_status("two filters");
    show_device("/dev/null");
    show_device("/dev/zero");
    show_device("/dev/urandom");
    int fd = open("/proc/self/status", O_WRONLY);
    printf("status for writing: %d", fd < 0 ? errno : 0);
    printf(", write %ld\n", fd < 0 ? 0L : (write(fd, "x", 1) < 0 ? (long)errno : 0L));
}

#define MAGIC 0x5eccd00du

/* The filter that returns half-word args[1] of seccomp_data as TRAP data
 * for calls whose args[0] is MAGIC, and ALLOW for everything else. */
static void install_dump(void)
{
    static struct sock_filter p[256];
    size_t n = 0;
    /* The handler's return: on i386 its ebx is still MAGIC. */
    p[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    p[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigreturn, 0, 1);
    p[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    p[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    p[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, MAGIC, 1, 0);
    p[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    p[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
    p[n++] = STMT(BPF_ST, 0);
    for (uint32_t half = 0; half < 32; half++) {
        int odd = half & 1;
        p[n++] = STMT(BPF_LD | BPF_MEM, 0);
        p[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, half, 0, odd ? 5 : 4);
        p[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, (half / 2) * 4);
        if (odd)
            p[n++] = STMT(BPF_ALU | BPF_RSH | BPF_K, 16);
        p[n++] = STMT(BPF_ALU | BPF_AND | BPF_K, 0xffff);
        p[n++] = STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_TRAP);
        p[n++] = STMT(BPF_RET | BPF_A, 0);
    }
    p[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1);
    long r = install(p, n, 0);
    if (r)
        printf("install_dump: %ld\n", r);
}

typedef long (*entry_fn)(long nr, const long a[6]);

/* seccomp_data of call `nr` through `entry`, field by field. */
static void dump(entry_fn entry, long nr, const char *after)
{
    uint8_t bytes[64];
    for (long half = 0; half < 32; half++) {
        long a[6] = { (long)MAGIC, half, (long)0x33333333, (long)0x44444444, (long)0x55555555,
                      (long)0x66666666 };
        long v = entry(nr, a);
        bytes[2 * half] = (uint8_t)v;
        bytes[2 * half + 1] = (uint8_t)(v >> 8);
    }
    struct seccomp_data d;
    memcpy(&d, bytes, sizeof(d));
    printf("nr %#x arch %#x ip-after %lld\n", (unsigned)d.nr, d.arch,
           (long long)(d.instruction_pointer - (uint64_t)(uintptr_t)after));
    for (int i = 0; i < 6; i++)
        printf("args[%d] %#llx\n", i, (unsigned long long)d.args[i]);
    printf("traps %d, last si_syscall %#x si_arch %#x\n", seen.count, (unsigned)seen.syscall_,
           seen.arch);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "install"))
        case_install();
    else if (!strcmp(c, "checker"))
        case_checker();
    else if (!strcmp(c, "path_ret"))
        path_limit(&STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), "ret k");
    else if (!strcmp(c, "path_jset"))   /* jf != 0: two eBPF jumps each */
        path_limit(&JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 1), "jset k, 0, 1");
    else if (!strcmp(c, "path_jeq"))    /* inverted into one jump */
        path_limit(&JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1), "jeq k, 0, 1");
    else if (!strcmp(c, "path_jeq_neg")) /* negative immediate: through a register */
        path_limit(&JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x80000000u, 0, 0), "jeq 0x80000000, 0, 0");
    else if (!strcmp(c, "ranking"))
        case_ranking();
    else if (!strcmp(c, "clamp"))
        case_clamp();
    else if (!strcmp(c, "kill_process"))
        die_by(SYS_getpid, SECCOMP_RET_KILL_PROCESS, 0);
    else if (!strcmp(c, "kill_thread"))
        die_by(SYS_getpid, SECCOMP_RET_KILL_THREAD, 0);
    else if (!strcmp(c, "unknown_kill"))       /* 0x40000 ranks below ERRNO */
        die_by(SYS_getpid, 0x40000, SECCOMP_RET_ERRNO | 1);
    else if (!strcmp(c, "unknown_above_allow")) /* and 0x7ffe0000 below ALLOW */
        die_by(SYS_getpid, 0x7ffe0000, SECCOMP_RET_ALLOW);
    else if (!strcmp(c, "trap"))
        case_trap();
    else if (!strcmp(c, "trap_blocked"))
        case_trap_dies(1);
    else if (!strcmp(c, "trap_ignored"))
        case_trap_dies(0);
    else if (!strcmp(c, "status"))
        case_status();
    else if (!strcmp(c, "data")) {
        handle_sigsys();
        nnp();
        install_dump();
        dump(raw_call, SYS_getpid, raw_after);
    }
#if defined(__i386__)
    else if (!strcmp(c, "data_vsyscall")) {
        /* ip-after is the landing pad's offset in __kernel_vsyscall */
        vsys_entry = (void *)getauxval(AT_SYSINFO);
        handle_sigsys();
        nnp();
        install_dump();
        dump(raw_vsys, SYS_getpid, vsys_entry);
    }
#endif
#if defined(__x86_64__)
    else if (!strcmp(c, "data_x32")) {
        handle_sigsys();
        nnp();
        install_dump();
        dump(raw_call, 0x40000000 | SYS_getpid, raw_after);
    } else if (!strcmp(c, "data_rax_hi")) {
        handle_sigsys();
        nnp();
        install_dump();
        dump(raw_call, 0x100000000L | SYS_getpid, raw_after);
    } else if (!strcmp(c, "rax_hi_runs")) {
        nnp();
        install_for(SYS_getppid, SECCOMP_RET_ERRNO | 9);
        printf("rax 0x1_00000027 is getpid: %d\n", call0(0x100000000L | SYS_getpid) == getpid());
        printf("rax 0x1_0000006e is getppid: %ld\n", call0(0x100000000L | SYS_getppid));
    } else if (!strcmp(c, "trap_rax_hi")) {
        /* The handler's ax is the entry's orig_ax: all 64 bits of rax. */
        handle_sigsys();
        nnp();
        install_for(SYS_getpid, SECCOMP_RET_TRAP | 3);
        long r = call0(0x100000000L | SYS_getpid);
        printf("result %ld, ax in handler %#lx, syscall %d\n", r, seen.ax, seen.syscall_);
    } else if (!strcmp(c, "data_int80")) {
        handle_sigsys();
        nnp();
        install_dump();
        dump(raw80_64, 20 /* ia32 getpid */, raw80_64_after);
    }
#endif
    else {
        printf("unknown case\n");
        return 99;
    }
    return 0;
}
