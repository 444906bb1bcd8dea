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
 *   T,K,KIND       start thread K (0-3) with clone as pthread_create does
 *                  (CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID into tidw[K]),
 *                  all signals blocked; it waits (KIND 0) for word[K] to
 *                  change, FUTEX_WAIT in a loop; (1) in ppoll for its pipe,
 *                  with no signal blocked, then reads a byte; (2) in ppoll
 *                  for a signal alone; (3) not at all.  It records what
 *                  ended the wait and exits (exit, not exit_group); threads
 *                  never print, so the output is the main thread's alone
 *   U,K,V          word[K] = V and FUTEX_WAKE it
 *   W,K,BYTE       write BYTE into thread K's pipe
 *   K,K,SIG[,1]    tgkill thread K (a signal that arrives before its ppoll
 *                  stays pending until the ppoll unblocks it, so the outcome
 *                  does not depend on timing); with 1, a signal that will
 *                  kill the process: say so first, then wait for it (Linux
 *                  kills the sender too before tgkill returns when the
 *                  thread is in its ppoll, later when it is not yet)
 *   q,SIG          a quiet handler for SIG (records which thread got it)
 *   J,K            join thread K (FUTEX_WAIT on tidw[K] until the kernel
 *                  clears it) and print what it recorded
 *   F,KIND,ARG     fork; the child exits with ARG (KIND 0), sends itself
 *                  signal ARG (1), or writes ARG bytes into a pipe and exits
 *                  0 (2); the parent waits with wait4 and prints the status
 *                  (and, for 2, what it reads from the pipe)
 *   Z              wait for signals forever (a fatal one is on its way)
 *   r,OFF,RT       sigreturn with the stack pointer at arena + OFF, so the
 *                  frame is bytes the program wrote (w ops) over the
 *                  arena's fixed pattern, the same in both runs (a bare
 *                  c,x,15 read the initial stack above the C frames, whose
 *                  auxv and environment differ between the runs by design);
 *                  RT: rt_sigreturn, else i386's sigreturn.  Whatever the
 *                  kernel does with the context decides what runs next
 *                  (L: a landing that prints "landed" and exits 42)
 *
 *   d,OFF,N        print N arena bytes from OFF in hex (more than 64: a
 *                  64-bit FNV-1a hash of them)
 *   g,REG,SEL,OFF,F  load SEL into REG (0 ds, 1 es, 2 fs, 3 gs, 4 ss), then
 *                  read 4 bytes through it at OFF (64-bit: fs and gs only)
 *                  and print them, or the fault (seg_handler); F bit 0:
 *                  keep the selector loaded, bit 1: do not load, only read
 *                  through the register as it is.  64-bit restores fs and
 *                  gs with arch_prctl (their base after a null selector is
 *                  the vendor's), i386 with the selectors it had
 *   j,KIND,SEL,OFF far call (KIND 0) or far jump (1) to SEL:OFF, whose code
 *                  (X, Y below) returns with a far return; prints its eax
 *                  (1 when it ran as 32- or 16-bit code, 0 as 64-bit) or the
 *                  fault.  64-bit runs it on a stack below 4 GiB (the arena):
 *                  compatibility mode addresses the stack with esp
 *   v,SEL,CPU      lar, lsl, verr and verw of SEL: lar's bits 19:16, which
 *                  Intel leaves undefined, masked; with CPU 1 lsl is not
 *                  shown (the CPU-number segment's limit is the CPU's)
 *   G              print the selectors in ds, es, fs, gs and ss
 * Argument tokens: a number (decimal, 0x hex, leading '-'), or
 *   aOFF  arena + OFF (the arena is mapped at a fixed address)
 *   h     our handler, r our restorer, t this program's text, z a string
 *   P     our pid, T our tid (asked once at start)
 *   L     the landing, reached by a sigreturn that restored it as ip
 *   M     the memory calls' region (0x30000000), V the vDSO (AT_SYSINFO_EHDR),
 *   B     the initial program break, S the page of the initial stack pointer
 *   X     code that far-returns: xor eax,eax; inc eax; nop; lret (as
 *         64-bit code the inc is a REX prefix); Y the same ending in o16 lret
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

/* ---- segment descriptors (the ldt family) ---- */
/* seg_load(reg, sel, off, flags) and seg_far(kind, sel, off): the g and j
 * ops.  Both save the stack pointer in seg_sp; seg_handler resumes a
 * faulting one at seg_recover, which takes it back and returns. */
#if defined(__x86_64__)
#define NR_ARCH_PRCTL 158
#define SEG_STACK "0x2000f000"   /* ARENA + 0xf000: the 'out' half */
__asm__(".text\n.globl seg_stub, seg_stub16, seg_load, seg_far, seg_recover\n"
        "seg_stub: .byte 0x31, 0xc0, 0x40, 0x90, 0xcb\n"
        "seg_stub16: .byte 0x31, 0xc0, 0x40, 0x90, 0x66, 0xcb\n"
        "seg_load:\npush %rbx\npush %rbp\npush %r12\npush %r13\npush %r14\npush %r15\n"
        "mov %rsp, seg_sp(%rip)\nmov %rdx, %rbx\nmov %esi, %eax\nxor %edx, %edx\n"
        "test $2, %ecx\njnz 5f\n"
        "cmp $1, %edi\nje 11f\ncmp $2, %edi\nje 12f\ncmp $3, %edi\nje 13f\ncmp $4, %edi\nje 14f\n"
        "mov %eax, %ds\njmp 9f\n"
        "11: mov %eax, %es\njmp 9f\n"
        "12: mov %eax, %fs\njmp 5f\n"
        "13: mov %eax, %gs\njmp 5f\n"
        "14: mov %ss, %ecx\nmov %eax, %ss\nmov %ecx, %ss\njmp 9f\n"
        "5: cmp $3, %edi\nje 6f\nmov %fs:(%rbx), %edx\njmp 9f\n"
        "6: mov %gs:(%rbx), %edx\n"
        "9: mov %edx, %eax\njmp seg_recover\n"
        "seg_far:\npush %rbx\npush %rbp\npush %r12\npush %r13\npush %r14\npush %r15\n"
        "mov %rsp, seg_sp(%rip)\nmov %edx, far_ptr(%rip)\nmov %si, far_ptr+4(%rip)\n"
        "mov $" SEG_STACK ", %esp\nmov $-1, %eax\n"
        "test %edi, %edi\njnz 1f\nlcall *far_ptr(%rip)\njmp seg_recover\n"
        "1: sub $8, %rsp\nmovl $seg_recover, (%rsp)\nmovl $0x33, 4(%rsp)\nljmp *far_ptr(%rip)\n"
        "seg_recover:\nmov seg_sp(%rip), %rsp\n"
        "pop %r15\npop %r14\npop %r13\npop %r12\npop %rbp\npop %rbx\nret\n"
        ".data\nfar_ptr: .long 0\n.word 0\n.balign 8\nseg_sp: .quad 0\n.text\n");
#define UC_CS_OFF 184  /* csgsfs: cs, gs, fs, ss */
#define UC_SS_OFF 190
#define UC_ERR_OFF 192
#define UC_TRAP_OFF 200
#define UC_SP_OFF 160
#define SEL_CS 0x33
#define SEL_DS 0x2b
#else
__asm__(".text\n.globl seg_stub, seg_stub16, seg_load, seg_far, seg_recover\n"
        "seg_stub: .byte 0x31, 0xc0, 0x40, 0x90, 0xcb\n"
        "seg_stub16: .byte 0x31, 0xc0, 0x40, 0x90, 0x66, 0xcb\n"
        "seg_load:\npush %ebx\npush %ebp\npush %esi\npush %edi\nmov %esp, seg_sp\n"
        "mov 20(%esp), %edi\nmov 24(%esp), %eax\nmov 28(%esp), %ebx\nmov 32(%esp), %ecx\n"
        "xor %edx, %edx\ntest $2, %ecx\njnz 5f\n"
        "cmp $1, %edi\nje 11f\ncmp $2, %edi\nje 12f\ncmp $3, %edi\nje 13f\ncmp $4, %edi\nje 14f\n"
        "mov %ds, %esi\nmov %eax, %ds\nmov %ds:(%ebx), %edx\nmov %esi, %ds\njmp 9f\n"
        "11: mov %es, %esi\nmov %eax, %es\nmov %es:(%ebx), %edx\nmov %esi, %es\njmp 9f\n"
        "12: mov %eax, %fs\njmp 5f\n"
        "13: mov %eax, %gs\njmp 5f\n"
        "14: mov %ss, %esi\nmov %eax, %ss\nmov %ss:(%ebx), %edx\nmov %esi, %ss\njmp 9f\n"
        "5: cmp $3, %edi\nje 6f\nmov %fs:(%ebx), %edx\njmp 9f\n"
        "6: mov %gs:(%ebx), %edx\n"
        "9: mov %edx, %eax\njmp seg_recover\n"
        "seg_far:\npush %ebx\npush %ebp\npush %esi\npush %edi\nmov %esp, seg_sp\n"
        "mov 20(%esp), %ecx\nmov 24(%esp), %eax\nmov 28(%esp), %edx\n"
        "mov %edx, far_ptr\nmov %ax, far_ptr+4\nmov $-1, %eax\n"
        "test %ecx, %ecx\njnz 1f\nlcall *far_ptr\njmp seg_recover\n"
        "1: push %cs\npush $seg_recover\nljmp *far_ptr\n"
        "seg_recover:\nmov seg_sp, %esp\npop %edi\npop %esi\npop %ebp\npop %ebx\nret\n"
        ".data\nfar_ptr: .long 0\n.word 0\n.balign 4\nseg_sp: .long 0\n.text\n");
#define UC_CS_OFF 80
#define UC_SS_OFF 92
#define UC_DS_OFF 32
#define UC_ES_OFF 28
#define UC_ERR_OFF 72
#define UC_TRAP_OFF 68
#define SEL_CS 0x23   /* a 64-bit kernel's compat selectors */
#define SEL_DS 0x2b
#endif
extern char seg_stub[], seg_stub16[], seg_recover[];
long seg_load(long reg, long sel, long off, long flags);
long seg_far(long kind, long sel, long off);
static volatile int seg_faulted;

static void put_hex32(unsigned long v)
{
    static const char digits[] = "0123456789abcdef";
    char b[9];
    for (int i = 0; i < 8; i++)
        b[i] = digits[(v >> (28 - 4 * i)) & 15];
    b[8] = 0;
    put_str(b);
}

/* A fault in seg_load or seg_far: say what the kernel said (the signal,
 * si_code, si_addr for SIGSEGV and SIGBUS, the trap and its error code,
 * which holds the selector a #GP, #NP or #SS refused), then resume at
 * seg_recover in the flat segments. */
static void seg_handler(int sig, void *si, void *uc)
{
    int code = ((int *)si)[2];
    put_str("  sig ");
    put_dec(sig);
    put_str(" code ");
    put_dec(code);
    if (sig == 11 || sig == 7) {
        put_str(" addr ");
        put_hex(*(unsigned long *)((char *)si + (sizeof(long) == 8 ? 16 : 12)));
    }
    put_str(" trap ");
    put_dec((long)*(greg_t_ *)((char *)uc + UC_TRAP_OFF));
    put_str(" err ");
    put_hex(*(greg_t_ *)((char *)uc + UC_ERR_OFF));
    put_str("\n");
    *(greg_t_ *)((char *)uc + UC_IP_OFF) = (greg_t_)(unsigned long)seg_recover;
    *(greg_t_ *)((char *)uc + UC_AX_OFF) = (greg_t_)-1;
    *(unsigned short *)((char *)uc + UC_CS_OFF) = SEL_CS;
    *(unsigned short *)((char *)uc + UC_SS_OFF) = SEL_DS;
#if !defined(__x86_64__)
    *(greg_t_ *)((char *)uc + UC_DS_OFF) = SEL_DS;
    *(greg_t_ *)((char *)uc + UC_ES_OFF) = SEL_DS;
#endif
    seg_faulted = 1;
}

static void seg_handlers(int on)
{
    static const int sigs[] = { 4, 5, 7, 8, 11 };
    unsigned long act[5] = { on ? (unsigned long)seg_handler : 0,
                             on ? SA_SIGINFO_LINUX | SA_RESTORER_LINUX | 0x40000000UL : 0,
                             on ? (unsigned long)fuzz_restorer : 0, 0, 0 };
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sys6(NR_RT_SIGACTION, sigs[i], (long)act, 0, 8, 0, 0);
}

#define SEG_READ(reg, v) __asm__ volatile("mov %%" #reg ", %k0" : "=r"(v))
#define SEG_WRITE(reg, v) __asm__ volatile("mov %k0, %%" #reg : : "r"(v))

static void seg_op(char op, const unsigned long *a)
{
    unsigned long v = 0;
    seg_faulted = 0;
    switch (op) {
    case 'g': {
        unsigned reg = (unsigned)(a[0] % 5);
        unsigned long fs = 0, gs = 0;
#if defined(__x86_64__)
        sys3(NR_ARCH_PRCTL, 0x1003 /* ARCH_GET_FS */, (long)&fs, 0);
        sys3(NR_ARCH_PRCTL, 0x1004 /* ARCH_GET_GS */, (long)&gs, 0);
#else
        SEG_READ(fs, fs);
        SEG_READ(gs, gs);
#endif
        put_str("g\n");
        seg_handlers(1);
        v = (unsigned long)seg_load(reg, (long)a[1], (long)a[2], (long)a[3]);
        seg_handlers(0);
        if (!seg_faulted) {
            put_str("  = ");
            put_hex32(v);
            put_str("\n");
        }
        if (!(a[3] & 1) && !(a[3] & 2)) {
#if defined(__x86_64__)
            if (reg == 2)
                sys3(NR_ARCH_PRCTL, 0x1002 /* ARCH_SET_FS */, (long)fs, 0);
            if (reg == 3)
                sys3(NR_ARCH_PRCTL, 0x1001 /* ARCH_SET_GS */, (long)gs, 0);
            if (reg == 0)
                SEG_WRITE(ds, 0UL);
            if (reg == 1)
                SEG_WRITE(es, 0UL);
#else
            if (reg == 2)
                SEG_WRITE(fs, fs);
            if (reg == 3)
                SEG_WRITE(gs, gs);
#endif
        }
        return;
    }
    case 'j':
        put_str("j\n");
        seg_handlers(1);
        v = (unsigned long)seg_far((long)(a[0] & 1), (long)a[1], (long)a[2]);
        seg_handlers(0);
        if (!seg_faulted) {
            put_str("  eax ");
            put_hex32(v);
            put_str("\n");
        }
        return;
    case 'v': {
        unsigned long sel = a[0] & 0xffff, ar = 0, lim = 0;
        unsigned char zar, zlim, zr, zw;
        __asm__ volatile("lar %w2, %k0\nsetz %1" : "=r"(ar), "=q"(zar) : "r"(sel), "0"(0UL) : "cc");
        __asm__ volatile("lsl %w2, %k0\nsetz %1" : "=r"(lim), "=q"(zlim) : "r"(sel), "0"(0UL) : "cc");
        __asm__ volatile("verr %w1\nsetz %0" : "=q"(zr) : "r"(sel) : "cc");
        __asm__ volatile("verw %w1\nsetz %0" : "=q"(zw) : "r"(sel) : "cc");
        put_str("v lar ");
        if (zar)
            put_hex32(ar & 0x00f0ff00); /* 19:16 undefined (Intel: 00FxFF00H) */
        else
            put_str("-");
        put_str(" lsl ");
        if (!zlim)
            put_str("-");
        else if (a[1])
            put_str("(not shown)"); /* the CPU-number segment: which CPU */
        else
            put_hex32(lim);
        put_str(zr ? " verr 1" : " verr 0");
        put_str(zw ? " verw 1\n" : " verw 0\n");
        return;
    }
    default: { /* 'G' */
        unsigned long ds, es, fs, gs, ss;
        SEG_READ(ds, ds);
        SEG_READ(es, es);
        SEG_READ(fs, fs);
        SEG_READ(gs, gs);
        SEG_READ(ss, ss);
        put_str("G ds ");
        put_hex(ds & 0xffff);
        put_str(" es ");
        put_hex(es & 0xffff);
        put_str(" fs ");
        put_hex(fs & 0xffff);
        put_str(" gs ");
        put_hex(gs & 0xffff);
        put_str(" ss ");
        put_hex(ss & 0xffff);
        put_str("\n");
        return;
    }
    }
}

/* d: arena bytes after a call wrote them (get_thread_area, modify_ldt). */
static void dump_op(const unsigned long *a)
{
    unsigned long off = a[0] % ARENA_RW, n = a[1];
    const unsigned char *p = (const unsigned char *)(ARENA + off);
    if (n > ARENA_RW - off)
        n = ARENA_RW - off;
    put_str("d ");
    if (n <= 64) {
        static const char digits[] = "0123456789abcdef";
        char b[3] = { 0, 0, 0 };
        for (unsigned long i = 0; i < n; i++) {
            b[0] = digits[p[i] >> 4];
            b[1] = digits[p[i] & 15];
            put_str(b);
        }
    } else {
        unsigned long long h = 0xcbf29ce484222325ULL;
        for (unsigned long i = 0; i < n; i++)
            h = (h ^ p[i]) * 0x100000001b3ULL;
        put_str("fnv ");
        put_hex32((unsigned long)(h >> 32));
        put_hex32((unsigned long)h);
    }
    put_str("\n");
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
    case 'X': s++; v = (unsigned long)seg_stub; break;
    case 'Y': s++; v = (unsigned long)seg_stub16; break;
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

static void put_result(char mode, long r);

/* ---- threads and processes (the tasks family) ---- */
#if defined(__x86_64__)
#define NR_CLONE 56
#define NR_FORK 57
#define NR_WAIT4 61
#define NR_FUTEX 202
#define NR_PIPE2 293
#define NR_CLOSE 3
#define NR_TGKILL 234
#define NR_PPOLL 271
#define NR_SIGPROCMASK 14
#define NR_PAUSE 34
/* fuzz_spawn(flags, stack top, ptid, ctid, fn, arg): clone, and in the
 * child fn(arg) then exit with its value. */
__asm__(".text\n.globl fuzz_spawn\nfuzz_spawn:\n"
        "sub $16, %rsi\nmov %r8, 0(%rsi)\nmov %r9, 8(%rsi)\n"
        "mov %rcx, %r10\nxor %r8d, %r8d\nmov $56, %eax\nsyscall\n"
        "test %rax, %rax\njnz 1f\n"
        "pop %rax\npop %rdi\ncall *%rax\nmov %eax, %edi\nmov $60, %eax\nsyscall\nhlt\n"
        "1: ret\n");
#else
#define NR_CLONE 120
#define NR_FORK 2
#define NR_WAIT4 114
#define NR_FUTEX 240
#define NR_PIPE2 331
#define NR_CLOSE 6
#define NR_TGKILL 270
#define NR_PPOLL 309
#define NR_SIGPROCMASK 175
#define NR_PAUSE 29
__asm__(".text\n.globl fuzz_spawn\nfuzz_spawn:\n"
        "push %ebx\npush %esi\npush %edi\n"
        "mov 16(%esp), %ebx\nmov 20(%esp), %ecx\nmov 24(%esp), %edx\nmov 28(%esp), %edi\n"
        "mov 32(%esp), %eax\nmov 36(%esp), %esi\n"
        "sub $16, %ecx\nmov %eax, 0(%ecx)\nmov %esi, 4(%ecx)\nxor %esi, %esi\n"
        "mov $120, %eax\nint $0x80\ntest %eax, %eax\njnz 1f\n"
        "mov 0(%esp), %eax\nmov 4(%esp), %ecx\nmov %ecx, 0(%esp)\ncall *%eax\n"
        "mov %eax, %ebx\nmov $1, %eax\nint $0x80\nhlt\n"
        "1: pop %edi\npop %esi\npop %ebx\nret\n");
#endif
long fuzz_spawn(unsigned long flags, void *stack, int *ptid, int *ctid, long (*fn)(long),
                long arg);
#define FUTEX_WAIT_LINUX 0
#define FUTEX_WAKE_LINUX 1
#define FUTEX_PRIVATE_LINUX 128
/* pthread_create's flags: VM FS FILES SIGHAND THREAD SYSVSEM PARENT_SETTID
 * CHILD_CLEARTID (no TLS: these threads use none) */
#define THREAD_FLAGS 0x350f00UL
#define NTHREADS 4
static int tidw[NTHREADS], tid_of[NTHREADS], word[NTHREADS], kind_of[NTHREADS];
static int pipes[NTHREADS][2];
static long result_of[NTHREADS], sig_of[NTHREADS];
static int threads_started;
static unsigned char stacks[NTHREADS][16384] __attribute__((aligned(16)));
/* Kernel sigsets: 64 bits on both ABIs (an i386 long would leave the
 * kernel reading 4 bytes of whatever follows for signals 33-64). */
static const unsigned long long all_signals = ~0ULL;
static const unsigned long long no_signals = 0;

static long thread_main(long k)
{
    long r = 0;
    switch (kind_of[k]) {
    case 0:
        while (!*(volatile int *)&word[k])
            sys6(NR_FUTEX, (long)&word[k], FUTEX_WAIT_LINUX | FUTEX_PRIVATE_LINUX, 0, 0, 0, 0);
        r = word[k];
        break;
    case 1: {
        struct { int fd; short events, revents; } pfd = { pipes[k][0], 1, 0 };
        r = sys6(NR_PPOLL, (long)&pfd, 1, 0, (long)&no_signals, 8, 0);
        if (r == 1) {
            unsigned char b = 0;
            r = sys3(NR_(read), pipes[k][0], (long)&b, 1);
            r = r == 1 ? 1000 + b : r;
        }
        break;
    }
    case 2:
        r = sys6(NR_PPOLL, 0, 0, 0, (long)&no_signals, 8, 0);
        break;
    default:
        r = 3;
        break;
    }
    result_of[k] = r;
    return k + 40;
}

/* The quiet handler: which thread took which signal, nothing printed. */
static void quiet_handler(int sig)
{
    long me = sys3(NR_GETTID, 0, 0, 0);
    for (int k = 0; k < NTHREADS; k++)
        if (tid_of[k] == me)
            sig_of[k] = sig;
}

static void task_op(char op, const unsigned long *a)
{
    unsigned k = (unsigned)a[0] % NTHREADS;
    long r;
    switch (op) {
    case 'T': {
        put_str("T ");
        put_dec(k);
        if (tidw[k]) {
            put_str(" busy\n");
            return;
        }
        kind_of[k] = (int)(a[1] % 4);
        word[k] = 0;
        result_of[k] = sig_of[k] = 0;
        if (kind_of[k] == 1 && sys3(NR_PIPE2, (long)pipes[k], 0, 0) < 0) {
            put_str(" pipe failed\n");
            return;
        }
        unsigned long long old;
        sys6(NR_SIGPROCMASK, 0 /* SIG_BLOCK */, (long)&all_signals, (long)&old, 8, 0, 0);
        r = fuzz_spawn(THREAD_FLAGS, stacks[k] + sizeof(stacks[k]), &tidw[k], &tidw[k],
                       thread_main, (long)k);
        sys6(NR_SIGPROCMASK, 2 /* SIG_SETMASK */, (long)&old, 0, 8, 0, 0);
        if (r > 0) {
            tid_of[k] = (int)r;
            threads_started = 1;
        }
        put_str(" = ");
        put_result('c', r);
        return;
    }
    case 'U':
        word[k] = (int)a[1] ? (int)a[1] : 1;
        sys6(NR_FUTEX, (long)&word[k], FUTEX_WAKE_LINUX | FUTEX_PRIVATE_LINUX, 1, 0, 0, 0);
        put_str("U\n");
        return;
    case 'W': {
        unsigned char b = (unsigned char)a[1];
        put_str("W = ");
        put_result('x', tid_of[k] && kind_of[k] == 1 ? sys3(NR_(write), pipes[k][1], (long)&b, 1)
                                                     : -9);
        return;
    }
    case 'K':
        if (a[2]) {
            put_str("K fatal\n");
            sys3(NR_TGKILL, my_pid, tid_of[k], (long)a[1]);
            for (;;)
                sys3(NR_PAUSE, 0, 0, 0);
        }
        put_str("K = ");
        put_result('x', tid_of[k] ? sys3(NR_TGKILL, my_pid, tid_of[k], (long)a[1]) : -3);
        return;
    case 'q': {
        /* SA_SIGINFO: the restorer is rt_sigreturn, whose frame i386
         * builds only for it */
        unsigned long act[5] = { (unsigned long)quiet_handler,
                                 SA_SIGINFO_LINUX | SA_RESTORER_LINUX,
                                 (unsigned long)fuzz_restorer, 0, 0 };
        put_str("q = ");
        put_result('x', sys6(NR_RT_SIGACTION, (long)a[0], (long)act, 0, 8, 0, 0));
        return;
    }
    case 'J': {
        put_str("J ");
        put_dec(k);
        if (!tid_of[k]) {
            put_str(" none\n");
            return;
        }
        for (int v; (v = *(volatile int *)&tidw[k]) != 0;)
            sys6(NR_FUTEX, (long)&tidw[k], FUTEX_WAIT_LINUX, v, 0, 0, 0);
        put_str(": result ");
        put_dec(result_of[k]);
        put_str(" sig ");
        put_dec(sig_of[k]);
        put_str("\n");
        if (kind_of[k] == 1) {
            sys3(NR_CLOSE, pipes[k][0], 0, 0);
            sys3(NR_CLOSE, pipes[k][1], 0, 0);
        }
        tid_of[k] = 0;
        return;
    }
    case 'F': {
        int p[2] = { -1, -1 };
        unsigned long fkind = a[0] % 3, arg = a[1];
        put_str("F ");
        if (fkind == 2 && sys3(NR_PIPE2, (long)p, 0, 0) < 0) {
            put_str("pipe failed\n");
            return;
        }
        r = sys3(NR_FORK, 0, 0, 0);
        if (r == 0) {
            if (fkind == 0)
                sys3(NR_(exit), (long)arg, 0, 0);
            if (fkind == 1)
                sys3(NR_TGKILL, sys3(NR_(getpid), 0, 0, 0), sys3(NR_GETTID, 0, 0, 0), (long)arg);
            if (fkind == 2) {
                static const char bytes[16] = "abcdefghijklmnop";
                sys3(NR_(write), p[1], (long)bytes, (long)(arg % 17));
            }
            sys3(NR_(exit), 0, 0, 0);
        }
        if (r < 0) {
            put_result('x', r);
            return;
        }
        int status = -1;
        long w = sys6(NR_WAIT4, r, (long)&status, 0, 0, 0, 0);
        put_str(w == r ? "waited, status " : "wait4 failed, status ");
        put_hex((unsigned long)(unsigned)status);
        if (fkind == 2) {
            char buf[17];
            sys3(NR_CLOSE, p[1], 0, 0);
            long n = sys3(NR_(read), p[0], (long)buf, 16);
            put_str(", read ");
            put_dec(n);
            if (n > 0) {
                buf[n] = 0;
                put_str(" ");
                put_str(buf);
            }
            sys3(NR_CLOSE, p[0], 0, 0);
        }
        put_str("\n");
        return;
    }
    default: /* 'Z' */
        put_str("Z\n");
        for (;;)
            sys3(NR_PAUSE, 0, 0, 0);
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
        case 'T': case 'U': case 'W': case 'K': case 'q': case 'J': case 'F': case 'Z':
            task_op(op, a);
            break;
        case 'g': case 'j': case 'v': case 'G':
            seg_op(op, a);
            break;
        case 'd':
            dump_op(a);
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
    /* The process ends with its threads, whatever they wait for. */
    if (threads_started)
        sys3(NR_(exit_group), 0, 0, 0);
    return 0;
}
