/* Raw Linux system-call interface for the freestanding guests.
 *
 * Numbers come from the kernel's arch/x86/entry/syscalls/syscall_64.tbl and
 * syscall_32.tbl, written out here on purpose: the host's <sys/syscall.h>
 * describes the host, and the guests must not depend on it.  Every guest
 * constant carries _LINUX so it cannot be mistaken for a host macro. */
#ifndef LINUX_SYS_H
#define LINUX_SYS_H

/* x86_64 table (entry: `syscall` from 64-bit code). */
#define NR_read_X86_64_LINUX          0
#define NR_write_X86_64_LINUX         1
#define NR_open_X86_64_LINUX          2
#define NR_mmap_X86_64_LINUX          9
#define NR_munmap_X86_64_LINUX       11
#define NR_rt_sigreturn_X86_64_LINUX 15
#define NR_getpid_X86_64_LINUX       39
#define NR_socket_X86_64_LINUX       41
#define NR_exit_X86_64_LINUX         60
#define NR_prctl_X86_64_LINUX       157
#define NR_exit_group_X86_64_LINUX  231
#define NR_openat_X86_64_LINUX      257
#define NR_seccomp_X86_64_LINUX     317
#define X32_BIT_LINUX        0x40000000

/* ia32 table (entries: int $0x80, sysenter, 32-bit syscall). */
#define NR_exit_I386_LINUX            1
#define NR_read_I386_LINUX            3
#define NR_write_I386_LINUX           4
#define NR_open_I386_LINUX            5
#define NR_chmod_I386_LINUX          15
#define NR_getpid_I386_LINUX         20
#define NR_umask_I386_LINUX          60
#define NR_munmap_I386_LINUX         91
#define NR_sigreturn_I386_LINUX     119
#define NR_prctl_I386_LINUX         172
#define NR_rt_sigreturn_I386_LINUX  173
#define NR_mmap2_I386_LINUX         192
#define NR_exit_group_I386_LINUX    252
#define NR_openat_I386_LINUX        295
#define NR_seccomp_I386_LINUX       354
#define NR_socket_I386_LINUX        359

#define PR_GET_SECCOMP_LINUX          21
#define PR_SET_SECCOMP_LINUX          22
#define SECCOMP_MODE_STRICT_LINUX      1
#define SECCOMP_SET_MODE_STRICT_LINUX  0
#define SECCOMP_SET_MODE_FILTER_LINUX  1

#define EBADF_LINUX    9
#define EFAULT_LINUX  14
#define EINVAL_LINUX  22
#define ENOSYS_LINUX  38

#define PROT_READ_LINUX     1
#define PROT_WRITE_LINUX    2
#define MAP_PRIVATE_LINUX   0x02
#define MAP_ANONYMOUS_LINUX 0x20
#define PAGE_SIZE_LINUX     4096

/* The guest's own ABI, so shared code can say NR_(write) for "write on the
 * native entry of this guest". */
#if defined(__x86_64__)
#define NR_(name) NR_##name##_X86_64_LINUX
#else
#define NR_(name) NR_##name##_I386_LINUX
#endif

/* sys3: the guest's native entry (64-bit `syscall`, or int $0x80 on i386),
 * three arguments, no errno: the raw return value is what we print. */
#if defined(__x86_64__)
static inline long sys3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return r;
}
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c),
                     "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return r;
}
/* int $0x80 from 64-bit code: the kernel only looks at the low 32 bits of
 * rax, rbx, rcx, rdx; we pass full 64-bit values to show the truncation. */
static inline long int80_3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c)
                     : "memory");
    return r;
}
#else
static inline long sys3(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c)
                     : "memory");
    return r;
}
/* mmap2 needs six arguments; ebp is the sixth, saved by hand because gcc
 * may use it as frame pointer.  The arguments go through a block in memory. */
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    long r;
    long blk[2] = { f, nr };
    __asm__ volatile("push %%ebp\n\t"
                     "mov 0(%%eax), %%ebp\n\t"
                     "mov 4(%%eax), %%eax\n\t"
                     "int $0x80\n\t"
                     "pop %%ebp"
                     : "=a"(r) : "a"(blk), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                     : "memory");
    return r;
}
#endif

/* Helpers in mini.c. */
void put_str(const char *s);
void put_dec(long v);
void put_hex(unsigned long v);
void put_kv(const char *label, long v);       /* "label = v\n" */
void put_kvx(const char *label, unsigned long v); /* "label = 0x...\n" */
int str_eq(const char *a, const char *b);
unsigned long str_len(const char *s);
long enter_strict(void);   /* prctl(PR_SET_SECCOMP, 1) on the native entry */
void *map_pages(long n);   /* anonymous RW pages, pre-strict only */
__attribute__((noreturn)) void sys_exit(long code); /* plain exit, not exit_group */

/* Each guest defines this; argv[1] names the case. */
int guest_main(int argc, char **argv);

#endif
