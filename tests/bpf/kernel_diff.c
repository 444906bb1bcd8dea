/* The kernel judges emu/bpf: random classic-BPF programs, each installed
 * natively in a child process (behind a guard that leaves every call but
 * the probe alone and then clears A again) and run by a probe call with
 * random arguments, against what bpf_check() and bpf_run() predict: the
 * same acceptance (0 or the errno) and the same outcome (the call's
 * result, an errno, the TRAP's data, or death by SIGSYS).
 *
 *   bpf-kernel-diff [COUNT [SEED]]     (defaults 3000, 1)
 *
 * Linux x86_64 only: it installs real filters.  Exit 0 when all agree, 1
 * on the first disagreement (printed with the program), 2 on set-up
 * errors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "abi/linux.h"
#include "emu/bpf/bpf.h"

#define PROBE_NR SYS_getppid
#define TRAP_BASE 1000000
#define GUARD 4 /* instructions before the random program */

/* The probe: getppid with six chosen arguments; probe_after is the
 * address the filter sees as instruction_pointer. */
__asm__(".text\n.globl probe\nprobe:\n"
        " mov %rdi, %r11\n mov $" "110" ", %eax\n"
        " mov 0(%r11), %rdi\n mov 8(%r11), %rsi\n mov 16(%r11), %rdx\n"
        " mov 24(%r11), %r10\n mov 32(%r11), %r8\n mov 40(%r11), %r9\n"
        " syscall\n.globl probe_after\nprobe_after:\n ret\n");
long probe(const uint64_t args[6]);
extern char probe_after[];
_Static_assert(PROBE_NR == 110, "the probe's number is written in its code");

static uint64_t rng;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static uint32_t interesting_k(void)
{
    static const uint32_t ks[] = {
        0, 1, 2, 3, 4, 8, 12, 16, 20, 24, 31, 32, 33, 60, 63, 64, 0xffff, 0x10000,
        0x7fffffff, 0x80000000, 0xffffffff, SECCOMP_RET_ALLOW, SECCOMP_RET_LOG,
        SECCOMP_RET_ERRNO | 5, SECCOMP_RET_ERRNO | 4095, SECCOMP_RET_ERRNO | 5000,
        SECCOMP_RET_TRAP | 7, SECCOMP_RET_TRACE, SECCOMP_RET_USER_NOTIF, 0x40000, 0x7ffe0000,
        SECCOMP_RET_KILL_PROCESS, 110, 0xc000003e,
    };
    return rnd() % 4 == 0 ? rnd() : ks[rnd() % (sizeof(ks) / sizeof(ks[0]))];
}

static uint16_t random_code(void)
{
    static const uint16_t codes[] = {
        BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_W | BPF_ABS, BPF_LD | BPF_W | BPF_ABS,
        BPF_LD | BPF_H | BPF_ABS, BPF_LD | BPF_B | BPF_ABS, BPF_LD | BPF_W | BPF_IND,
        BPF_LD | BPF_W | BPF_LEN, BPF_LDX | BPF_W | BPF_LEN, BPF_LD | BPF_IMM, BPF_LDX | BPF_IMM,
        BPF_LD | BPF_MEM, BPF_LDX | BPF_MEM, BPF_ST, BPF_STX, BPF_LDX | BPF_B | BPF_MSH,
        BPF_MISC | BPF_TAX, BPF_MISC | BPF_TXA,
        BPF_ALU | BPF_ADD | BPF_K, BPF_ALU | BPF_ADD | BPF_X, BPF_ALU | BPF_SUB | BPF_K,
        BPF_ALU | BPF_SUB | BPF_X, BPF_ALU | BPF_MUL | BPF_K, BPF_ALU | BPF_MUL | BPF_X,
        BPF_ALU | BPF_DIV | BPF_K, BPF_ALU | BPF_DIV | BPF_X, BPF_ALU | BPF_MOD | BPF_K,
        BPF_ALU | BPF_AND | BPF_K, BPF_ALU | BPF_AND | BPF_X, BPF_ALU | BPF_OR | BPF_K,
        BPF_ALU | BPF_OR | BPF_X, BPF_ALU | BPF_XOR | BPF_K, BPF_ALU | BPF_XOR | BPF_X,
        BPF_ALU | BPF_LSH | BPF_K, BPF_ALU | BPF_LSH | BPF_X, BPF_ALU | BPF_RSH | BPF_K,
        BPF_ALU | BPF_RSH | BPF_X, BPF_ALU | BPF_NEG,
        BPF_JMP | BPF_JA, BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JEQ | BPF_X,
        BPF_JMP | BPF_JGT | BPF_K, BPF_JMP | BPF_JGT | BPF_X, BPF_JMP | BPF_JGE | BPF_K,
        BPF_JMP | BPF_JGE | BPF_X, BPF_JMP | BPF_JSET | BPF_K, BPF_JMP | BPF_JSET | BPF_X,
        BPF_RET | BPF_K, BPF_RET | BPF_A, BPF_RET | BPF_X,
    };
    if (rnd() % 50 == 0)
        return (uint16_t)rnd();
    return codes[rnd() % (sizeof(codes) / sizeof(codes[0]))];
}

static size_t random_program(struct sock_filter_linux *p)
{
    size_t len = 1 + rnd() % 12;
    for (size_t i = 0; i < len; i++) {
        p[i].code = random_code();
        uint32_t k = interesting_k();
        uint16_t cls = BPF_CLASS(p[i].code);
        if (cls == BPF_LD || cls == BPF_LDX || cls == BPF_ST || cls == BPF_STX)
            k = rnd() % 3 ? (rnd() % 18) * (cls == BPF_LD && BPF_MODE(p[i].code) == BPF_ABS ? 4 : 1)
                          : k;
        if (p[i].code == (BPF_JMP | BPF_JA))
            k = rnd() % 4;
        p[i].k = k;
        p[i].jt = (uint8_t)(rnd() % 4);
        p[i].jf = (uint8_t)(rnd() % 4);
    }
    /* Most values of A kill, which hides A: often end by showing its low
     * 16 bits as a TRAP's data instead. */
    bool show_a = rnd() % 2;
    if (!show_a && rnd() % 8)
        p[len - 1] = (struct sock_filter_linux){
            .code = rnd() % 3 ? BPF_RET | BPF_K : BPF_RET | BPF_A, .k = interesting_k()
        };
    if (show_a) {
        p[len++] = (struct sock_filter_linux){ .code = BPF_ALU | BPF_AND | BPF_K, .k = 0xffff };
        p[len++] = (struct sock_filter_linux){ .code = BPF_ALU | BPF_OR | BPF_K,
                                               .k = SECCOMP_RET_TRAP };
        p[len++] = (struct sock_filter_linux){ .code = BPF_RET | BPF_A };
    }
    return len;
}

/* What the call shows for a filter value, as the child reports it. */
struct outcome {
    int signal; /* death by it, else 0 */
    long result;
};

static struct outcome predict(uint32_t ret, long ppid)
{
    uint32_t data = ret & SECCOMP_RET_DATA;
    switch (ret & SECCOMP_RET_ACTION_FULL) {
    case SECCOMP_RET_ALLOW:
    case SECCOMP_RET_LOG:
        return (struct outcome){ 0, ppid };
    case SECCOMP_RET_ERRNO:
        return (struct outcome){ 0, -(long)(data > 4095 ? 4095 : data) };
    case SECCOMP_RET_TRACE:
    case SECCOMP_RET_USER_NOTIF:
        return (struct outcome){ 0, -ENOSYS };
    case SECCOMP_RET_TRAP:
        return (struct outcome){ 0, TRAP_BASE + (long)data };
    default:
        return (struct outcome){ SIGSYS, 0 };
    }
}

static void on_sigsys(int sig, siginfo_t *info, void *uc_)
{
    (void)sig;
    ucontext_t *uc = uc_;
    uc->uc_mcontext.gregs[REG_RAX] = TRAP_BASE + info->si_errno;
}

/* Install (guard + prog) in a child and make the probe; the answer:
 * *installed is 0 or the errno; the outcome if installed. */
static int run_native(const struct sock_filter_linux *prog, size_t len, const uint64_t args[6],
                      int *installed, struct outcome *out)
{
    struct sock_filter all[4096];
    all[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
    all[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROBE_NR, 1, 0);
    all[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    all[3] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0); /* A as the program starts it */
    memcpy(all + GUARD, prog, len * sizeof(*prog));
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
        sigaction(SIGSYS, &sa, NULL);
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        struct sock_fprog fp = { .len = (unsigned short)(len + GUARD), .filter = all };
        long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp);
        long report[2] = { r < 0 ? errno : 0, 0 };
        if (r == 0)
            report[1] = probe(args);
        if (write(fds[1], report, sizeof(report)) != sizeof(report))
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    long report[2];
    ssize_t n = read(fds[0], report, sizeof(report));
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (n == (ssize_t)sizeof(report)) {
        *installed = (int)report[0];
        *out = (struct outcome){ 0, report[1] };
        return 0;
    }
    if (WIFSIGNALED(status)) {
        *installed = 0;
        *out = (struct outcome){ WTERMSIG(status), 0 };
        return 0;
    }
    return -1;
}

static void show(const struct sock_filter_linux *p, size_t len, const uint64_t args[6])
{
    for (size_t i = 0; i < len; i++)
        printf("  { 0x%04x, %u, %u, 0x%08x },\n", p[i].code, p[i].jt, p[i].jf, p[i].k);
    for (int i = 0; i < 6; i++)
        printf("  args[%d] = %#llx\n", i, (unsigned long long)args[i]);
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? strtol(argv[1], NULL, 0) : 3000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    if (!rng)
        rng = 1;
    long ppid = getpid(); /* the child's parent */
    long accepted = 0, outcomes[5] = { 0 };
    for (long i = 0; i < count; i++) {
        struct sock_filter_linux prog[16];
        size_t len = random_program(prog);
        uint64_t args[6];
        for (int j = 0; j < 6; j++)
            args[j] = rnd() % 2 ? ((uint64_t)rnd() << 32 | rnd()) : rnd() % 70;
        int installed;
        struct outcome got;
        if (run_native(prog, len, args, &installed, &got) != 0) {
            fprintf(stderr, "bpf-kernel-diff: the native child failed\n");
            return 2;
        }
        int want_installed = bpf_check(prog, len) == 0 ? 0 : EINVAL;
        if (installed != want_installed) {
            printf("program %ld: kernel %s (%d), bpf_check %s\n", i,
                   installed ? "refuses" : "accepts", installed,
                   want_installed ? "refuses" : "accepts");
            show(prog, len, args);
            printf("RESULT: DIFFER\n");
            return 1;
        }
        if (installed)
            continue;
        accepted++;
        struct seccomp_data_linux sd = { .nr = PROBE_NR, .arch = AUDIT_ARCH_X86_64_LINUX,
                                         .instruction_pointer = (uint64_t)(uintptr_t)probe_after };
        memcpy(sd.args, args, sizeof(sd.args));
        uint32_t ret = bpf_run(prog, len, &sd, NULL, NULL);
        struct outcome want = predict(ret, ppid);
        if (want.signal != got.signal || want.result != got.result) {
            printf("program %ld: bpf_run returned %#x, predicting %s %ld; the kernel: %s %ld\n", i,
                   ret, want.signal ? "signal" : "result", want.signal ? want.signal : want.result,
                   got.signal ? "signal" : "result", got.signal ? got.signal : got.result);
            show(prog, len, args);
            printf("RESULT: DIFFER\n");
            return 1;
        }
        outcomes[got.signal ? 0 : got.result >= TRAP_BASE ? 1 : got.result == ppid ? 2
                 : got.result == -ENOSYS ? 3 : 4]++;
    }
    printf("%ld programs, %ld accepted by both; outcomes: %ld killed, %ld trapped, %ld ran, "
           "%ld ENOSYS, %ld errno\nRESULT: AGREE\n",
           count, accepted, outcomes[0], outcomes[1], outcomes[2], outcomes[3], outcomes[4]);
    return 0;
}
