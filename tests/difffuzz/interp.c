/* difffuzz interpreter guest (issue 25, differential fuzzing).
 *
 * One freestanding program per ABI that executes a compact op list given
 * as argv[1] and prints every result on fd 1, so a native run under the
 * real kernel and a run under seccomp-emu can be compared byte for byte
 * (stdout, stderr, wait status).  tests/difffuzz/difffuzz.py generates the
 * op lists.  Ops are separated by ';', fields by ',':
 *
 *   c,M,NR,a0..a5  raw system call on the native entry; M = x prints the
 *                  exact result, c prints the result class (-errno or ok)
 *   w,OFF,VAL,SZ   store VAL (SZ = 1, 2, 4 or 8 bytes) at arena + OFF
 *   h,SIG,FLAGS    rt_sigaction(SIG) to our handler, SA_SIGINFO|SA_RESTORER
 *                  added, with our rt_sigreturn restorer; prints the result
 *   f,KIND         raise a fault (see raise_fault)
 *   s,HOW          enter strict mode: 0 prctl(PR_SET_SECCOMP, 1),
 *                  1 seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL)
 *   m,ADDR,N       probe N pages from ADDR: per page "-" unreadable, "r"
 *                  readable, "w" writable, then "0" if its first byte is 0
 *                  else "x" (faults are caught and skipped, nothing kept)
 *   y,ADDR,VAL     store the byte VAL at ADDR; prints "y ok" or "y fault"
 *   r,OFF,RT       sigreturn with the stack pointer at arena + OFF, so the
 *                  frame is bytes the program wrote (w ops) over the
 *                  arena's fixed pattern, the same in both runs (a bare
 *                  c,x,15 read the initial stack above the C frames, whose
 *                  auxv and environment differ between the runs by design);
 *                  RT: rt_sigreturn, else i386's sigreturn.  Whatever the
 *                  kernel does with the context decides what runs next
 *                  (L: a landing that prints "landed" and exits 42)
 *
 * Argument tokens: a number (decimal, 0x hex, leading '-'), or
 *   aOFF  arena + OFF (the arena is mapped at a fixed address)
 *   h     our handler, r our restorer, t this program's text, z a string
 *   P     our pid, T our tid (asked once at start)
 *   L     the landing, reached by a sigreturn that restored it as ip
 *   M     the memory calls' region (0x30000000), V the vDSO (AT_SYSINFO_EHDR),
 *   B     the initial program break, S the page of the initial stack pointer
 *   pN    path number N from paths[] below
 * Handlers print "sig N code C" (and the fault address for kernel-sent
 * SIGSEGV/SIGBUS); a kernel-sent fault signal ends the program with
 * exit(100 + N), since the faulting instruction cannot be resumed. */
#include "../guests/linux_sys.h"

#define ARENA 0x20000000UL
#define ARENA_RW 0x10000UL          /* then one read-only page, then a hole */
#define SA_SIGINFO_LINUX   4UL
#define SA_RESTORER_LINUX  0x04000000UL

static const char *const paths[] = {
    "/dev/null", "/", "/nonexistent/x", "", "/proc/self/exe",
    "/dev/zero", ".", "/proc/self/fd/1", "/etc/hostname", "/tmp",
};
#define NPATHS (sizeof paths / sizeof paths[0])

static long my_pid, my_tid;
static long opno;

void fuzz_restorer(void);
void fuzz_landing(void);
void fuzz_sigreturn(unsigned long sp, unsigned long nr);
#if defined(__x86_64__)
__asm__(".text\n.globl fuzz_restorer\nfuzz_restorer:\n"
        "mov $15, %eax\nsyscall\nhlt\n");
/* No stack: the restored rsp can be anything. */
__asm__(".text\n.globl fuzz_landing\nfuzz_landing:\n"
        "mov $1, %eax\nmov $1, %edi\nlea landed_msg(%rip), %rsi\nmov $7, %edx\nsyscall\n"
        "mov $60, %eax\nmov $42, %edi\nsyscall\nhlt\n"
        ".globl fuzz_sigreturn\nfuzz_sigreturn:\n"
        "mov %rdi, %rsp\nmov %rsi, %rax\nsyscall\nhlt\n"
        ".section .rodata\nlanded_msg: .ascii \"landed\\n\"\n.text\n");
#define NR_RT_SIGACTION 13
#define NR_GETTID 186
#define NR_SECCOMP 317
/* Probes whose fault the probe handler skips (faulting instruction, its
 * length): the result in eax, 0 done, 1 faulted. */
__asm__(".text\n.globl probe_read, probe_rmw, probe_write\n"
        "probe_read: xor %eax, %eax\nprobe_r_at: movb (%rdi), %cl\nret\n"
        "probe_rmw: xor %eax, %eax\nprobe_x_at: lock addb $0, (%rdi)\nret\n"
        "probe_write: xor %eax, %eax\nmov %esi, %ecx\nprobe_w_at: movb %cl, (%rdi)\nret\n");
#define UC_IP_OFF 168 /* ucontext: uc_mcontext (40) + rip */
#define UC_AX_OFF 144 /* ... + rax */
typedef unsigned long greg_t_;
#else
__asm__(".text\n.globl fuzz_restorer\nfuzz_restorer:\n"
        "mov $173, %eax\nint $0x80\nhlt\n");
__asm__(".text\n.globl fuzz_landing\nfuzz_landing:\n"
        "mov $4, %eax\nmov $1, %ebx\nmov $landed_msg, %ecx\nmov $7, %edx\nint $0x80\n"
        "mov $1, %eax\nmov $42, %ebx\nint $0x80\nhlt\n"
        ".globl fuzz_sigreturn\nfuzz_sigreturn:\n"
        "mov 8(%esp), %eax\nmov 4(%esp), %esp\nint $0x80\nhlt\n"
        ".section .rodata\nlanded_msg: .ascii \"landed\\n\"\n.text\n");
#define NR_RT_SIGACTION 174
#define NR_GETTID 224
#define NR_SECCOMP 354
__asm__(".text\n.globl probe_read, probe_rmw, probe_write\n"
        "probe_read: mov 4(%esp), %edx\nxor %eax, %eax\nprobe_r_at: movb (%edx), %cl\nret\n"
        "probe_rmw: mov 4(%esp), %edx\nxor %eax, %eax\nprobe_x_at: lock addb $0, (%edx)\nret\n"
        "probe_write: mov 4(%esp), %edx\nmov 8(%esp), %ecx\nxor %eax, %eax\n"
        "probe_w_at: movb %cl, (%edx)\nret\n");
#define UC_IP_OFF 76 /* ucontext_ia32: uc_mcontext (20) + eip */
#define UC_AX_OFF 64 /* ... + eax */
typedef unsigned int greg_t_;
#endif

long probe_read(unsigned long addr);
long probe_rmw(unsigned long addr);
long probe_write(unsigned long addr, unsigned long byte);
extern char probe_r_at[], probe_x_at[], probe_w_at[];
static unsigned long region_base = 0x30000000UL, vdso_base, brk_base, stack_page;

/* SIGSEGV and SIGBUS while a probe runs: skip the probing instruction and
 * say it faulted; anything else is the program's own fault. */
static void probe_handler(int sig, void *si, void *uc)
{
    greg_t_ *ip = (greg_t_ *)((char *)uc + UC_IP_OFF), *ax = (greg_t_ *)((char *)uc + UC_AX_OFF);
    (void)si;
    unsigned long at = *ip;
    if (at == (unsigned long)probe_r_at || at == (unsigned long)probe_w_at) {
        *ip += 2;
        *ax = 1;
        return;
    }
    if (at == (unsigned long)probe_x_at) {
        *ip += 4;
        *ax = 1;
        return;
    }
    put_str("  unexpected sig ");
    put_dec(sig);
    put_str("\n");
    sys_exit(100 + sig);
}

static void probe_handlers(int on)
{
    unsigned long act[5] = { on ? (unsigned long)probe_handler : 0,
                             on ? SA_SIGINFO_LINUX | SA_RESTORER_LINUX | 0x40000000UL /* NODEFER */ : 0,
                             on ? (unsigned long)fuzz_restorer : 0, 0, 0 };
    sys6(NR_RT_SIGACTION, 11, (long)act, 0, 8, 0, 0);
    sys6(NR_RT_SIGACTION, 7, (long)act, 0, 8, 0, 0);
}

static void put_num(long r)
{
    put_dec(r);
}

static void handler(int sig, void *si, void *uc)
{
    int code = ((int *)si)[2];
    (void)uc;
    put_str("  sig ");
    put_dec(sig);
    put_str(" code ");
    put_dec(code);
    if ((sig == 11 || sig == 7) && code > 0) {
        put_str(" addr ");
        put_hex(*(unsigned long *)((char *)si + (sizeof(long) == 8 ? 16 : 12)));
    }
    put_str("\n");
    if (code > 0 && (sig == 4 || sig == 5 || sig == 7 || sig == 8 || sig == 11))
        sys_exit(100 + sig);
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static unsigned long parse_num(const char **sp)
{
    const char *s = *sp;
    int neg = 0;
    unsigned long v = 0;
    if (*s == '-')
        neg = 1, s++;
    if (s[0] == '0' && s[1] == 'x') {
        s += 2;
        for (;;) {
            char c = *s;
            if (is_digit(c)) v = v * 16 + (unsigned long)(c - '0');
            else if (c >= 'a' && c <= 'f') v = v * 16 + (unsigned long)(c - 'a' + 10);
            else break;
            s++;
        }
    } else {
        while (is_digit(*s))
            v = v * 10 + (unsigned long)(*s++ - '0');
    }
    *sp = s;
    return neg ? 0UL - v : v;
}

static unsigned long parse_tok(const char **sp)
{
    const char *s = *sp;
    unsigned long v;
    switch (*s) {
    case 'a': s++; v = ARENA + parse_num(&s); break;
    case 'h': s++; v = (unsigned long)handler; break;
    case 'r': s++; v = (unsigned long)fuzz_restorer; break;
    case 't': s++; v = (unsigned long)guest_main; break;
    case 'z': s++; v = (unsigned long)paths[2]; break;
    case 'P': s++; v = (unsigned long)my_pid; break;
    case 'T': s++; v = (unsigned long)my_tid; break;
    case 'L': s++; v = (unsigned long)fuzz_landing; break;
    case 'M': s++; v = region_base; break;
    case 'V': s++; v = vdso_base; break;
    case 'B': s++; v = brk_base; break;
    case 'S': s++; v = stack_page; break;
    case 'p': s++; v = parse_num(&s); v = (unsigned long)paths[v % NPATHS]; break;
    default: v = parse_num(&s); *sp = s; return v;
    }
    /* A symbol may be followed by an offset: M+4096, V-8192. */
    if (*s == '+') {
        s++;
        v += parse_num(&s);
    } else if (*s == '-')
        v += parse_num(&s);
    *sp = s;
    return v;
}

static void skip_sep(const char **sp)
{
    if (**sp == ',')
        (*sp)++;
}

static void raise_fault(long kind)
{
    switch (kind) {
    case 0: (void)*(volatile int *)0; break;
    case 1: *(volatile char *)(unsigned long)guest_main = 0; break;
    case 2: __asm__ volatile("ud2"); break;
    case 3: __asm__ volatile("int3"); break;
    case 4: { volatile int z = 0; volatile int x = 1; x = x / z; } break;
    case 5: __asm__ volatile("hlt"); break;
    case 6: (void)*(volatile int *)(0UL - 8); break;
    case 7: (void)*(volatile int *)(ARENA + ARENA_RW + 0x1000); break;
    case 8: *(volatile int *)(ARENA + ARENA_RW) = 1; break;
    default: __asm__ volatile("int $0x81"); break;
    }
}

static void put_result(char mode, long r)
{
    if (mode == 'c' && !((unsigned long)r > -4096UL))
        put_str("ok");
    else
        put_num(r);
    put_str("\n");
}

int guest_main(int argc, char **argv)
{
    const char *s;
    if (argc < 2) {
        put_str("usage: difffuzz PROGRAM\n");
        return 2;
    }
#if defined(__x86_64__)
    long mm = NR_mmap_X86_64_LINUX;
#else
    long mm = NR_mmap2_I386_LINUX;
#endif
    long r = sys6(mm, (long)ARENA, (long)ARENA_RW, PROT_READ_LINUX | PROT_WRITE_LINUX,
                  MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | 0x10, -1, 0);
    long r2 = sys6(mm, (long)(ARENA + ARENA_RW), PAGE_SIZE_LINUX, PROT_READ_LINUX,
                   MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | 0x10, -1, 0);
    if (r != (long)ARENA || r2 != (long)(ARENA + ARENA_RW)) {
        put_str("arena mmap failed\n");
        return 3;
    }
    for (unsigned long i = 0; i < ARENA_RW; i++)
        ((unsigned char *)ARENA)[i] = (unsigned char)(i * 7 + 1);
    {
        /* auxv after argv's and envp's NULLs */
        char **e = argv + argc + 1;
        while (*e)
            e++;
        for (unsigned long *av = (unsigned long *)(e + 1); av[0]; av += 2)
            if (av[0] == 33) /* AT_SYSINFO_EHDR */
                vdso_base = av[1];
        stack_page = (unsigned long)argv & ~4095UL;
#if defined(__x86_64__)
        brk_base = (unsigned long)sys3(12, 0, 0, 0);
#else
        brk_base = (unsigned long)sys3(45, 0, 0, 0);
#endif
    }
    my_pid = sys3(NR_(getpid), 0, 0, 0);
    my_tid = sys3(NR_GETTID, 0, 0, 0);

    s = argv[1];
    while (*s) {
        char op = *s++;
        unsigned long a[8] = {0};
        int n = 0;
        while (*s && *s != ';') {
            skip_sep(&s);
            if (op == 'c' && n == 0) {
                a[n++] = (unsigned long)(unsigned char)*s++;
                continue;
            }
            if (n < 8)
                a[n++] = parse_tok(&s);
            else
                s++;
            if (*s && *s != ',' && *s != ';') {
                put_str("bad token\n");
                return 2;
            }
        }
        if (*s == ';')
            s++;
        put_dec(opno++);
        put_str(": ");
        switch (op) {
        case 'c':
            put_str("c ");
            put_dec((long)a[1]);
            put_str(" = ");
            put_result((char)a[0], sys6((long)a[1], (long)a[2], (long)a[3], (long)a[4],
                                        (long)a[5], (long)a[6], (long)a[7]));
            break;
        case 'w': {
            unsigned char *p = (unsigned char *)(ARENA + (a[0] % ARENA_RW));
            unsigned long v = a[1];
            for (unsigned long i = 0; i < a[2] && i < 8 && p + i < (unsigned char *)(ARENA + ARENA_RW); i++)
                p[i] = (unsigned char)(v >> (8 * i));
            put_str("w\n");
            break;
        }
        case 'h': {
            /* handler, flags, restorer, mask (8 bytes: two words on i386) */
            unsigned long act[5] = { (unsigned long)handler,
                                     a[1] | SA_SIGINFO_LINUX | SA_RESTORER_LINUX,
                                     (unsigned long)fuzz_restorer, 0, 0 };
            put_str("h = ");
            put_result('x', sys6(NR_RT_SIGACTION, (long)a[0], (long)act, 0, 8, 0, 0));
            break;
        }
        case 'f':
            put_str("f\n");
            raise_fault((long)a[0]);
            break;
        case 'm': {
            put_str("m ");
            probe_handlers(1);
            for (unsigned long i = 0; i < a[1] && i < 64; i++) {
                unsigned long pg = (a[0] & ~4095UL) + i * 4096;
                char st[3] = { '-', '-', 0 };
                if (!probe_read(pg)) {
                    st[0] = probe_rmw(pg) ? 'r' : 'w';
                    st[1] = *(volatile unsigned char *)pg ? 'x' : '0';
                }
                put_str(st);
            }
            probe_handlers(0);
            put_str("\n");
            break;
        }
        case 'y':
            put_str("y ");
            probe_handlers(1);
            put_str(probe_write(a[0], a[1]) ? "fault\n" : "ok\n");
            probe_handlers(0);
            break;
        case 'r':
            put_str("r\n");
#if defined(__x86_64__)
            fuzz_sigreturn(ARENA + (a[0] % ARENA_RW), 15);
#else
            fuzz_sigreturn(ARENA + (a[0] % ARENA_RW), a[1] ? 173 : 119);
#endif
            break;
        case 's':
            put_str("s = ");
            if (a[0] == 0)
                r = enter_strict();
            else
                r = sys3(NR_SECCOMP, SECCOMP_SET_MODE_STRICT_LINUX, 0, 0);
            put_result('x', r);
            break;
        default:
            put_str("bad op\n");
            return 2;
        }
    }
    return 0;
}
