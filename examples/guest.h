/* A freestanding runtime for example guests: no libc, only raw system
 * calls, so that every call a lesson talks about is one instruction you can
 * find in the binary (and in the trace).  Numbers are the kernel's, spelled
 * _LINUX so the host's headers never stand in for them.
 *
 * Each entry path has its own out-of-line stub with a global label on the
 * trapping instruction (`nm` finds it, and the tests compare it with the
 * address the trace prints):
 *   guest_sys     the ABI's native entry: `syscall` on x86_64, `int $0x80`
 *                 on i386 (label guest_sys_insn)
 *   guest_int80   `int $0x80` with ia32 numbers and registers, from either
 *                 ABI (label guest_int80_insn; on i386 the same stub)
 *   guest_vsys    i386 only: through the vDSO's __kernel_vsyscall, which the
 *                 kernel gives in AT_SYSINFO (sysenter on Intel, syscall on
 *                 AMD; the trapping instruction is in the vDSO) */
#ifndef EXAMPLES_GUEST_H
#define EXAMPLES_GUEST_H

#if defined(__x86_64__)
#define NR_read_LINUX 0
#define NR_write_LINUX 1
#define NR_open_LINUX 2
#define NR_rt_sigaction_LINUX 13
#define NR_rt_sigreturn_LINUX 15
#define NR_getpid_LINUX 39
#define NR_exit_LINUX 60
#define NR_prctl_LINUX 157
#define NR_exit_group_LINUX 231
#else
#define NR_exit_LINUX 1
#define NR_read_LINUX 3
#define NR_write_LINUX 4
#define NR_open_LINUX 5
#define NR_getpid_LINUX 20
#define NR_sigreturn_LINUX 119
#define NR_prctl_LINUX 172
#define NR_rt_sigreturn_LINUX 173
#define NR_rt_sigaction_LINUX 174
#define NR_exit_group_LINUX 252
#endif

/* ia32 numbers, for int $0x80 from either ABI */
#define NR32_exit_LINUX 1
#define NR32_write_LINUX 4
#define NR32_chmod_LINUX 15
#define NR32_getpid_LINUX 20
#define NR32_umask_LINUX 60

#define PR_SET_SECCOMP_LINUX 22
#define SECCOMP_MODE_STRICT_LINUX 1
#define AT_SYSINFO_LINUX 32
#define EFAULT_LINUX 14

long guest_sys(long nr, long a, long b, long c, long d, long e, long f);
long guest_int80(long nr, long a, long b, long c);
#if !defined(__x86_64__)
long guest_vsys(long nr, long a, long b, long c);
unsigned long guest_vsyscall; /* AT_SYSINFO */
#endif

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl guest_sys\n"
        "guest_sys:\n"
        "  mov %rdi, %rax\n"
        "  mov %rsi, %rdi\n"
        "  mov %rdx, %rsi\n"
        "  mov %rcx, %rdx\n"
        "  mov %r8, %r10\n"
        "  mov %r9, %r8\n"
        "  mov 8(%rsp), %r9\n"
        ".globl guest_sys_insn\n"
        "guest_sys_insn:\n"
        "  syscall\n"
        "  ret\n"
        /* The ia32 convention from 64-bit code: eax, ebx, ecx, edx.  The
         * kernel keeps only the low 32 bits of each register. */
        ".globl guest_int80\n"
        "guest_int80:\n"
        "  push %rbx\n"
        "  mov %rdi, %rax\n"
        "  mov %rsi, %rbx\n"
        "  mov %rcx, %r8\n"
        "  mov %rdx, %rcx\n"
        "  mov %r8, %rdx\n"
        ".globl guest_int80_insn\n"
        "guest_int80_insn:\n"
        "  int $0x80\n"
        "  pop %rbx\n"
        "  ret\n");
#else
__asm__(".text\n"
        ".globl guest_sys\n"
        ".globl guest_int80\n"
        "guest_sys:\n"
        "guest_int80:\n"
        "  push %ebx\n"
        "  push %esi\n"
        "  push %edi\n"
        "  push %ebp\n"
        "  mov 20(%esp), %eax\n"
        "  mov 24(%esp), %ebx\n"
        "  mov 28(%esp), %ecx\n"
        "  mov 32(%esp), %edx\n"
        "  mov 36(%esp), %esi\n"
        "  mov 40(%esp), %edi\n"
        "  mov 44(%esp), %ebp\n"
        ".globl guest_sys_insn\n"
        ".globl guest_int80_insn\n"
        "guest_sys_insn:\n"
        "guest_int80_insn:\n"
        "  int $0x80\n"
        "  pop %ebp\n"
        "  pop %edi\n"
        "  pop %esi\n"
        "  pop %ebx\n"
        "  ret\n"
        /* glibc's way when the kernel offers a vDSO: call AT_SYSINFO. */
        ".globl guest_vsys\n"
        "guest_vsys:\n"
        "  push %ebx\n"
        "  mov 8(%esp), %eax\n"
        "  mov 12(%esp), %ebx\n"
        "  mov 16(%esp), %ecx\n"
        "  mov 20(%esp), %edx\n"
        "  call *guest_vsyscall\n"
        "  pop %ebx\n"
        "  ret\n");
#endif

static inline long guest_syscall3(long nr, long a, long b, long c)
{
    return guest_sys(nr, a, b, c, 0, 0, 0);
}

static inline long guest_write(int fd, const void *buf, unsigned long n)
{
    return guest_syscall3(NR_write_LINUX, fd, (long)buf, (long)n);
}

static inline long guest_read(int fd, void *buf, unsigned long n)
{
    return guest_syscall3(NR_read_LINUX, fd, (long)buf, (long)n);
}

/* exit, not exit_group: only exit is in the strict list. */
__attribute__((noreturn)) static inline void guest_exit(int code)
{
    for (;;)
        guest_syscall3(NR_exit_LINUX, code, 0, 0);
}

/* Today's interface: prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT). */
static inline long guest_enter_strict(void)
{
    return guest_syscall3(NR_prctl_LINUX, PR_SET_SECCOMP_LINUX, SECCOMP_MODE_STRICT_LINUX, 0);
}

static inline unsigned long guest_strlen(const char *s)
{
    unsigned long n = 0;
    while (s[n])
        n++;
    return n;
}

static inline int guest_streq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static inline void guest_puts(const char *s)
{
    guest_write(1, s, guest_strlen(s));
}

/* Decimal text of v into buf (at least 21 bytes); returns buf. */
static inline char *guest_utoa(unsigned long long v, char *buf)
{
    char tmp[21];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return buf;
}

/* "label: -14\n", in one write so that a trace shows it as one call. */
static inline void guest_put_result(const char *label, long v)
{
    char line[128], num[22];
    unsigned long n = 0;
    for (const char *p = label; *p && n < sizeof(line) - 26; p++)
        line[n++] = *p;
    line[n++] = ':';
    line[n++] = ' ';
    if (v < 0)
        line[n++] = '-';
    for (const char *p = guest_utoa(v < 0 ? -(unsigned long)v : (unsigned long)v, num); *p; p++)
        line[n++] = *p;
    line[n++] = '\n';
    guest_write(1, line, n);
}

/* Signal handlers, installed with rt_sigaction before strict mode.  The
 * kernel returns from a handler to `sa_restorer`, which makes the return
 * call: rt_sigreturn on x86_64 (always an rt frame); on i386 sigreturn
 * after a plain sigframe, rt_sigreturn after an rt_sigframe (SA_SIGINFO). */
#define SIGTRAP_LINUX 5
#define SA_SIGINFO_LINUX 0x4
#define SA_RESTORER_LINUX 0x04000000

void guest_restore(void), guest_restore_rt(void);
#if defined(__x86_64__)
__asm__(".text\n.globl guest_restore\n.globl guest_restore_rt\n"
        "guest_restore:\nguest_restore_rt:\n"
        "  mov $15, %eax\n" /* rt_sigreturn */
        "  syscall\n");
#else
__asm__(".text\n.globl guest_restore\n"
        "guest_restore:\n"
        "  pop %eax\n" /* the signal number the kernel left for the handler */
        "  mov $119, %eax\n" /* sigreturn */
        "  int $0x80\n"
        ".globl guest_restore_rt\n"
        "guest_restore_rt:\n"
        "  mov $173, %eax\n" /* rt_sigreturn */
        "  int $0x80\n");
#endif

/* The kernel's struct sigaction for rt_sigaction (not libc's). */
struct guest_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    unsigned int mask[2];
};

static inline long guest_on_signal(int sig, void (*handler)(int), int siginfo)
{
    struct guest_sigaction sa = {
        .handler = handler,
        .flags = SA_RESTORER_LINUX | (siginfo ? SA_SIGINFO_LINUX : 0),
        .restorer = siginfo ? guest_restore_rt : guest_restore,
    };
    return guest_sys(NR_rt_sigaction_LINUX, sig, (long)&sa, 0, sizeof(sa.mask), 0, 0);
}

/* The program's arguments, as the kernel put them on the initial stack. */
int guest_argc;
char **guest_argv;

/* argv[1], or "" when there is none. */
static inline const char *guest_arg1(void)
{
    return guest_argc > 1 ? guest_argv[1] : "";
}

/* Each example defines guest_main(); its value is the exit code. */
int guest_main(void);

/* The program's entry: the kernel jumps here with argc, argv, envp and the
 * auxiliary vector on the stack (raw bytecode gets zero words there: no
 * arguments, no environment, an empty auxv).  It is first in its own section
 * so that a raw-bytecode link (examples/raw/raw.ld) puts it at the start of
 * the text, where --raw starts by default. */
#if defined(__x86_64__)
__asm__(".pushsection .text.start,\"ax\",@progbits\n.globl _start\n_start:\n xor %ebp, %ebp\n"
        " mov %rsp, %rdi\n and $-16, %rsp\n call guest_start\n hlt\n.popsection\n");
#else
__asm__(".pushsection .text.start,\"ax\",@progbits\n.globl _start\n_start:\n xor %ebp, %ebp\n"
        " mov %esp, %eax\n and $-16, %esp\n sub $12, %esp\n push %eax\n call guest_start\n"
        " hlt\n.popsection\n");
#endif

__attribute__((used, noreturn)) void guest_start(long *sp)
{
    guest_argc = (int)sp[0];
    guest_argv = (char **)(sp + 1);
#if !defined(__x86_64__)
    long *p = sp + 1 + guest_argc + 1; /* envp */
    while (*p)
        p++;
    for (p++; p[0]; p += 2) /* auxv: type, value */
        if (p[0] == AT_SYSINFO_LINUX)
            guest_vsyscall = (unsigned long)p[1];
#endif
    guest_exit(guest_main());
}

#endif
