/* A freestanding runtime for the benchmark guests: no libc, the guest's
 * native entry (64-bit `syscall`, i386 `int $0x80`), and strict mode
 * entered by the guest itself with prctl, so that the very same binary runs
 * natively, under QEMU user mode and under seccomp-emu.
 *
 * Each guest prints "checksum <hex>" so the runner can check that the
 * emulated run computed what the native one did, and exits 0 when strict
 * mode was entered, 3 when it was refused (QEMU answers prctl with EINVAL
 * and has no seccomp), so the runner can check that native and seccomp-emu
 * really ran in strict mode. */
#ifndef BENCH_GUEST_H
#define BENCH_GUEST_H

typedef unsigned long ulong;
typedef unsigned long long u64;
typedef unsigned int u32;

#if defined(__x86_64__)
#define NR_read_LINUX 0
#define NR_write_LINUX 1
#define NR_exit_LINUX 60
#define NR_prctl_LINUX 157
#else
#define NR_read_LINUX 3
#define NR_write_LINUX 4
#define NR_exit_LINUX 1
#define NR_prctl_LINUX 172
#endif
#define PR_SET_SECCOMP_LINUX 22
#define SECCOMP_MODE_STRICT_LINUX 1

#define EXIT_NOT_STRICT 3

static inline long sys3(long nr, long a, long b, long c)
{
    long r;
#if defined(__x86_64__)
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
#else
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
#endif
    return r;
}

static inline long g_write(int fd, const void *buf, ulong n)
{
    return sys3(NR_write_LINUX, fd, (long)buf, (long)n);
}

static inline long g_read(int fd, void *buf, ulong n)
{
    return sys3(NR_read_LINUX, fd, (long)buf, (long)n);
}

__attribute__((noreturn)) static inline void g_exit(int code)
{
    for (;;)
        sys3(NR_exit_LINUX, code, 0, 0);
}

/* 0 when strict mode is on. */
static inline long g_enter_strict(void)
{
    return sys3(NR_prctl_LINUX, PR_SET_SECCOMP_LINUX, SECCOMP_MODE_STRICT_LINUX, 0);
}

/* gcc may emit calls to these even in freestanding code. */
__attribute__((used)) void *memset(void *d, int c, ulong n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

__attribute__((used)) void *memcpy(void *d, const void *s, ulong n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

static inline ulong g_strlen(const char *s)
{
    ulong n = 0;
    while (s[n])
        n++;
    return n;
}

static inline void g_puts(int fd, const char *s)
{
    g_write(fd, s, g_strlen(s));
}

static inline ulong g_atoul(const char *s, ulong dflt)
{
    if (!s || !*s)
        return dflt;
    ulong v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (ulong)(*s - '0');
    return v;
}

/* "checksum <16 hex digits>\n" on fd. */
static inline void g_checksum(int fd, u64 v)
{
    char line[] = "checksum 0000000000000000\n";
    for (int i = 0; i < 16; i++)
        line[9 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
    g_write(fd, line, sizeof(line) - 1);
}

/* Each guest defines this; the return value is its exit code. */
int bench_main(int argc, char **argv);

#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n xor %ebp, %ebp\n mov %rsp, %rdi\n and $-16, %rsp\n"
        " call bench_start\n hlt\n");
#else
__asm__(".globl _start\n_start:\n xor %ebp, %ebp\n mov %esp, %eax\n and $-16, %esp\n"
        " sub $12, %esp\n push %eax\n call bench_start\n hlt\n");
#endif

__attribute__((used, noreturn)) void bench_start(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    /* Strict first: everything measured runs under it. */
    int strict = g_enter_strict() == 0;
    int code = bench_main(argc, argv);
    g_exit(code ? code : strict ? 0 : EXIT_NOT_STRICT);
}

#endif
