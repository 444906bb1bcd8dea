/* A freestanding runtime for example guests: no libc, only the four calls
 * strict mode allows, made on the guest's native entry (64-bit `syscall`,
 * or `int $0x80` on i386).  Numbers are the kernel's, spelled _LINUX so the
 * host's headers never stand in for them. */
#ifndef EXAMPLES_GUEST_H
#define EXAMPLES_GUEST_H

#if defined(__x86_64__)
#define NR_read_LINUX 0
#define NR_write_LINUX 1
#define NR_exit_LINUX 60
#define NR_getpid_LINUX 39
#define NR_open_LINUX 2
#else
#define NR_read_LINUX 3
#define NR_write_LINUX 4
#define NR_exit_LINUX 1
#define NR_getpid_LINUX 20
#define NR_open_LINUX 5
#endif

static inline long guest_syscall3(long nr, long a, long b, long c)
{
    long r;
#if defined(__x86_64__)
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
#else
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
#endif
    return r;
}

static inline long guest_write(int fd, const void *buf, unsigned long n)
{
    return guest_syscall3(NR_write_LINUX, fd, (long)buf, (long)n);
}

static inline long guest_read(int fd, void *buf, unsigned long n)
{
    return guest_syscall3(NR_read_LINUX, fd, (long)buf, (long)n);
}

__attribute__((noreturn)) static inline void guest_exit(int code)
{
    for (;;)
        guest_syscall3(NR_exit_LINUX, code, 0, 0);
}

static inline unsigned long guest_strlen(const char *s)
{
    unsigned long n = 0;
    while (s[n])
        n++;
    return n;
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

/* The program's entry: the kernel jumps here with the stack as argc, argv.
 * It is first in its own section so that a raw-bytecode link
 * (examples/raw/raw.ld) puts it at the start of the text, where --raw
 * starts by default.  Each example defines guest_main(). */
int guest_main(void);

static long guest_argc;
static char **guest_argv;

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
    guest_argc = sp[0];
    guest_argv = (char **)(sp + 1);
    guest_exit(guest_main());
}

#endif
