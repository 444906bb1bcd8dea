/* A freestanding runtime for hostile guests: no libc, raw system calls on
 * the ABI's native entry (64-bit `syscall`, i386 `int $0x80`), argv, and a
 * few printing helpers.  The same source runs natively and under
 * seccomp-emu; the kernel's answer is the reference.  Numbers are the
 * kernel's, spelled _LINUX so no host header stands in for them. */
#ifndef TESTS_HOSTILE_HGUEST_H
#define TESTS_HOSTILE_HGUEST_H

#if defined(__x86_64__)
#define NR(n64, n32) (n64)
#else
#define NR(n64, n32) (n32)
#endif
#define NR_read_LINUX NR(0, 3)
#define NR_write_LINUX NR(1, 4)
#define NR_open_LINUX NR(2, 5)
#define NR_exit_LINUX NR(60, 1)
#define NR_getpid_LINUX NR(39, 20)
#define NR_prctl_LINUX NR(157, 172)
#define NR_mmap_LINUX NR(9, 192) /* mmap2 on i386: offset in pages */
#define NR_munmap_LINUX NR(11, 91)
#define NR_mprotect_LINUX NR(10, 125)
#define NR_madvise_LINUX NR(28, 219)
#define NR_mremap_LINUX NR(25, 163)
#define NR_brk_LINUX NR(12, 45)
#define NR_writev_LINUX NR(20, 146)
#define NR_readv_LINUX NR(19, 145)
#define PR_SET_SECCOMP_LINUX 22
#define PROT_READ_LINUX 1
#define PROT_WRITE_LINUX 2
#define PROT_EXEC_LINUX 4
#define MAP_PRIVATE_LINUX 2
#define MAP_FIXED_LINUX 0x10
#define MAP_ANONYMOUS_LINUX 0x20
#define MREMAP_MAYMOVE_LINUX 1
#define MREMAP_FIXED_LINUX 2
#define MADV_DONTNEED_LINUX 4

/* Where seccomp-emu keeps its own page: just above user space. */
#if defined(__x86_64__)
#define EMU_KPAGE 0x0000800000000000ul
#else
#define EMU_KPAGE 0xfffff000ul
#endif

typedef unsigned long ulong;

long raw_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
#define SYS0(n) raw_syscall((n), 0, 0, 0, 0, 0, 0)
#define SYS1(n, a) raw_syscall((n), (long)(a), 0, 0, 0, 0, 0)
#define SYS2(n, a, b) raw_syscall((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define SYS3(n, a, b, c) raw_syscall((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define SYS4(n, a, b, c, d) raw_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define SYS5(n, a, b, c, d, e) \
    raw_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define SYS6(n, a, b, c, d, e, f) \
    raw_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

#if defined(__x86_64__)
__asm__(".text\n.globl raw_syscall\nraw_syscall:\n"
        " mov %rdi, %rax\n mov %rsi, %rdi\n mov %rdx, %rsi\n mov %rcx, %rdx\n"
        " mov %r8, %r10\n mov %r9, %r8\n mov 8(%rsp), %r9\n syscall\n ret\n");
__asm__(".globl _start\n_start:\n xor %ebp, %ebp\n mov %rsp, %rdi\n and $-16, %rsp\n"
        " call guest_start\n hlt\n");
#else
__asm__(".text\n.globl raw_syscall\nraw_syscall:\n"
        " push %ebp\n push %edi\n push %esi\n push %ebx\n"
        " mov 20(%esp), %eax\n mov 24(%esp), %ebx\n mov 28(%esp), %ecx\n mov 32(%esp), %edx\n"
        " mov 36(%esp), %esi\n mov 40(%esp), %edi\n mov 44(%esp), %ebp\n int $0x80\n"
        " pop %ebx\n pop %esi\n pop %edi\n pop %ebp\n ret\n");
__asm__(".globl _start\n_start:\n xor %ebp, %ebp\n mov %esp, %eax\n and $-16, %esp\n"
        " sub $12, %esp\n push %eax\n call guest_start\n hlt\n");
#endif

static inline ulong h_strlen(const char *s)
{
    ulong n = 0;
    while (s[n])
        n++;
    return n;
}

static inline int h_streq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static inline void out(const char *s) { SYS3(NR_write_LINUX, 1, s, h_strlen(s)); }

static inline void out_num(long v)
{
    char b[24];
    int n = 23;
    ulong u = v < 0 ? -(ulong)v : (ulong)v;
    b[n] = 0;
    do {
        b[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        b[--n] = '-';
    out(b + n);
}

static inline void out_hex(ulong v)
{
    char b[24];
    int n = 23;
    b[n] = 0;
    do {
        b[--n] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    b[--n] = 'x';
    b[--n] = '0';
    out(b + n);
}

/* "label -> value\n": the line every probe prints. */
static inline void report(const char *label, long v)
{
    out(label);
    out(" -> ");
    out_num(v);
    out("\n");
}

static inline long h_atol(const char *s)
{
    long v = 0;
    int neg = *s == '-';
    if (neg)
        s++;
    if (s[0] == '0' && s[1] == 'x') {
        for (s += 2; *s; s++)
            v = v * 16 + (*s <= '9' ? *s - '0' : (*s | 32) - 'a' + 10);
    } else
        for (; *s >= '0' && *s <= '9'; s++)
            v = v * 10 + (*s - '0');
    return neg ? -v : v;
}

__attribute__((noreturn)) static inline void h_exit(int code)
{
    for (;;)
        SYS1(NR_exit_LINUX, code);
}

static inline void enter_strict(void)
{
    long r = SYS2(NR_prctl_LINUX, PR_SET_SECCOMP_LINUX, 1);
    if (r != 0) {
        report("prctl(PR_SET_SECCOMP) failed", r);
        h_exit(99);
    }
}

static inline void *h_mmap(ulong len, int prot)
{
    return (void *)SYS6(NR_mmap_LINUX, 0, len, prot, MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX,
                        -1, 0);
}

/* Read stdin to its end: the runner looks at the host while the guest waits. */
static inline void hold(void)
{
    char c;
    while (SYS3(NR_read_LINUX, 0, &c, 1) > 0)
        ;
}

int guest_main(int argc, char **argv);

__attribute__((used, noreturn)) void guest_start(long *sp)
{
    h_exit(guest_main((int)sp[0], (char **)(sp + 1)));
}

#endif
