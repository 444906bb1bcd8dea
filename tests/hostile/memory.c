/* Memory-path attacks, each compared with the real kernel: the places where
 * direct accesses through the i386 window (docs/linear-mapping.md) could
 * answer unlike the kernel.  The top of the 32-bit address space, 16-bit
 * address and segment-base wrap, code written through a second view, by the
 * kernel (read, pread) and by the running code itself, faults a handler
 * repairs, string instructions that run into a fault, code pages unmapped,
 * moved and reprotected under translations, fork's copy-on-write, stack
 * growth and its guard gap, locked 8-byte operations across pages.
 *
 * `memory ACTION`: each prints what it observed (values, bytes, and for a
 * fault si_signo, si_code, si_addr and the ucontext's trap number, error
 * code and registers), so the runner compares more than "ok".  Everything
 * is mapped MAP_FIXED at AREA so the addresses printed are the same in
 * every run. */
#include "hguest.h"

#define NR_close_LINUX NR(3, 6)
#define NR_pipe_LINUX NR(22, 42)
#define NR_pread64_LINUX NR(17, 180)
#define NR_pwrite64_LINUX NR(18, 181)
#define NR_ftruncate_LINUX NR(77, 93)
#define NR_memfd_create_LINUX NR(319, 356)
#define NR_rt_sigaction_LINUX NR(13, 174)
#define NR_fork_LINUX NR(57, 2)
#define NR_wait4_LINUX NR(61, 114)
#define NR_setrlimit_LINUX NR(160, 75)
#define NR_modify_ldt_LINUX NR(154, 123)
#define NR_set_thread_area_LINUX 243
#define MAP_SHARED_LINUX 1
#define MAP_FIXED_NOREPLACE_LINUX 0x100000
#define SIGBUS_LINUX 7
#define SIGSEGV_LINUX 11
#define SA_SIGINFO_LINUX 4
#define SA_NODEFER_LINUX 0x40000000
#define SA_RESTORER_LINUX 0x04000000
#define RLIMIT_STACK_LINUX 3
#define RWX (PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX)
#define RW (PROT_READ_LINUX | PROT_WRITE_LINUX)
#define RX (PROT_READ_LINUX | PROT_EXEC_LINUX)
#define RO PROT_READ_LINUX
#define PROT_NONE 0
#define PAGE 4096ul

#define AREA 0x50000000ul
#if defined(__x86_64__)
#define SPREG "rsp"
#else
#define SPREG "esp"
#endif

typedef unsigned char u8;

/* The instructions meant to fault are marked (a table in section
 * mark_insns): a fault's eip is printed as "the access" there, so the
 * output, and the kernel's recorded answer, do not depend on where a
 * compiler put them.  Addresses in AREA and above are printed as they are. */
#if defined(__x86_64__)
#define MARKED "\n.pushsection mark_insns,\"a\"\n .quad 9b\n.popsection\n"
#else
#define MARKED "\n.pushsection mark_insns,\"a\"\n .long 9b\n.popsection\n"
#endif
extern const ulong __start_mark_insns[], __stop_mark_insns[];

/* ------------------------------------------------------------ runtime */

/* setjmp/longjmp of our own: a fault handler jumps back to the probe
 * (SA_NODEFER, so the signal stays unblocked). */
long h_setjmp(long *b) __attribute__((returns_twice));
__attribute__((noreturn)) void h_longjmp(long *b, long v);
#if defined(__x86_64__)
__asm__(".text\n.globl h_setjmp\nh_setjmp:\n"
        " mov %rbx,(%rdi)\n mov %rbp,8(%rdi)\n mov %r12,16(%rdi)\n mov %r13,24(%rdi)\n"
        " mov %r14,32(%rdi)\n mov %r15,40(%rdi)\n lea 8(%rsp),%rdx\n mov %rdx,48(%rdi)\n"
        " mov (%rsp),%rdx\n mov %rdx,56(%rdi)\n xor %eax,%eax\n ret\n"
        ".globl h_longjmp\nh_longjmp:\n mov %rsi,%rax\n"
        " mov (%rdi),%rbx\n mov 8(%rdi),%rbp\n mov 16(%rdi),%r12\n mov 24(%rdi),%r13\n"
        " mov 32(%rdi),%r14\n mov 40(%rdi),%r15\n mov 48(%rdi),%rsp\n jmp *56(%rdi)\n"
        ".globl sig_restorer\nsig_restorer:\n mov $15,%eax\n syscall\n hlt\n");
#else
__asm__(".text\n.globl h_setjmp\nh_setjmp:\n mov 4(%esp),%eax\n"
        " mov %ebx,(%eax)\n mov %esi,4(%eax)\n mov %edi,8(%eax)\n mov %ebp,12(%eax)\n"
        " lea 4(%esp),%ecx\n mov %ecx,16(%eax)\n mov (%esp),%ecx\n mov %ecx,20(%eax)\n"
        " xor %eax,%eax\n ret\n"
        ".globl h_longjmp\nh_longjmp:\n mov 4(%esp),%edx\n mov 8(%esp),%eax\n"
        " mov (%edx),%ebx\n mov 4(%edx),%esi\n mov 8(%edx),%edi\n mov 12(%edx),%ebp\n"
        " mov 16(%edx),%esp\n jmp *20(%edx)\n"
        ".globl sig_restorer\nsig_restorer:\n mov $173,%eax\n int $0x80\n hlt\n");
#endif
void sig_restorer(void);

/* What the last fault showed. */
static volatile struct {
    int n, sig, code;
    ulong addr, trapno, err, ip, cx, si, di;
} seen;
static long jb[8];
/* Set: the handler calls it with the fault address and returns (the
 * instruction runs again); unset: it jumps back to the probe. */
static void (*volatile repair)(ulong addr);

#if defined(__x86_64__)
#define G(uc, i) (((ulong *)((char *)(uc) + 40))[i])
#define G_TRAPNO 20
#define G_ERR 19
#define G_IP 16
#define G_CX 14
#define G_SI 9
#define G_DI 8
#define SI_ADDR_OFF 16
#else
#define G(uc, i) (((ulong *)((char *)(uc) + 20))[i])
#define G_TRAPNO 12
#define G_ERR 13
#define G_IP 14
#define G_CX 10
#define G_SI 5
#define G_DI 4
#define SI_ADDR_OFF 12
#endif

static void on_fault(int sig, void *info, void *uc)
{
    seen.n++;
    seen.sig = sig;
    seen.code = ((int *)info)[2];
    seen.addr = *(ulong *)((char *)info + SI_ADDR_OFF);
    seen.trapno = G(uc, G_TRAPNO);
    seen.err = G(uc, G_ERR);
    seen.ip = G(uc, G_IP);
    seen.cx = G(uc, G_CX);
    seen.si = G(uc, G_SI);
    seen.di = G(uc, G_DI);
    if (repair)
        repair(seen.addr);
    else
        h_longjmp(jb, 1);
}

/* SIGSEGV and SIGBUS to on_fault: handler, flags, restorer, then the
 * 8-byte mask (two words on i386). */
static void catch_faults(void)
{
    ulong act[5] = { (ulong)on_fault, SA_SIGINFO_LINUX | SA_NODEFER_LINUX | SA_RESTORER_LINUX,
                     (ulong)sig_restorer, 0, 0 };
    SYS4(NR_rt_sigaction_LINUX, SIGSEGV_LINUX, act, 0, 8);
    SYS4(NR_rt_sigaction_LINUX, SIGBUS_LINUX, act, 0, 8);
}

static void kv(const char *k, ulong v)
{
    out(" ");
    out(k);
    out("=");
    out_hex(v);
}

enum { CX = 1, SI = 2, DI = 4, NOADDR = 8 };

static void show_ip(ulong ip)
{
    if (ip >= AREA) {
        kv("ip", ip);
        return;
    }
    for (const ulong *m = __start_mark_insns; m < __stop_mark_insns; m++)
        if (*m == ip) {
            out(" ip=the access");
            return;
        }
    out(" ip=elsewhere in the program");
}

/* The fault, with the registers REGS names; NOADDR: si_addr is printed by
 * the caller (relative to what it aimed at). */
static void show_fault(int regs)
{
    out("fault");
    kv("sig", seen.sig);
    kv("code", seen.code);
    if (!(regs & NOADDR))
        kv("addr", seen.addr);
    kv("trapno", seen.trapno);
    /* Without P (bit 0): whether the kernel had filled the page's PTE
     * before (a first touch, fault-around, the zero page) is not the
     * program's to see, and seccomp-emu does not model it. */
    kv("err", seen.err & ~1ul);
    show_ip(seen.ip);
    if (regs & CX)
        kv("cx", seen.cx);
    if (regs & SI)
        kv("si", seen.si);
    if (regs & DI)
        kv("di", seen.di);
    out("\n");
}

/* Runs fn(a) and says how it ended: "done" or the fault. */
static void probe(const char *what, void (*fn)(ulong), ulong a, int regs)
{
    seen.n = 0;
    out(what);
    out(": ");
    if (h_setjmp(jb) == 0) {
        fn(a);
        out("done\n");
    } else
        show_fault(regs);
}

static void hexdump(const char *what, ulong a, ulong n)
{
    out(what);
    out(" ");
    out_hex(a);
    out(":");
    for (ulong i = 0; i < n; i++) {
        u8 b = ((volatile u8 *)a)[i];
        char s[4] = { ' ', "0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15], 0 };
        out(s);
    }
    out("\n");
}

static long map_at(ulong a, ulong len, int prot, int flags)
{
    long r = SYS6(NR_mmap_LINUX, a, len, prot, flags | MAP_FIXED_LINUX, -1, 0);
    if (r != (long)a) {
        out("mmap at ");
        out_hex(a);
        report(" failed", r);
        h_exit(98);
    }
    return r;
}

static void anon_at(ulong a, ulong len, int prot)
{
    map_at(a, len, prot, MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX);
}

static void fill(ulong a, ulong n, u8 v)
{
    for (ulong i = 0; i < n; i++)
        ((volatile u8 *)a)[i] = (u8)(v + i);
}

static void copy(ulong dst, const u8 *src, ulong n)
{
    for (ulong i = 0; i < n; i++)
        ((volatile u8 *)dst)[i] = src[i];
}

/* mov $v, %eax; ret */
static void put_ret(ulong a, unsigned v)
{
    u8 c[] = { 0xb8, (u8)v, (u8)(v >> 8), (u8)(v >> 16), (u8)(v >> 24), 0xc3 };
    copy(a, c, sizeof(c));
}

static long call_at(ulong a) { return ((long (*)(void))a)(); }

/* Calls code at a and prints what it returned, or the fault. */
static void callp(const char *what, ulong a)
{
    seen.n = 0;
    out(what);
    out(": ");
    if (h_setjmp(jb) == 0) {
        long r = call_at(a);
        out("returned ");
        out_hex((ulong)r & 0xffffffffu);
        out("\n");
    } else
        show_fault(0);
}

static u8 pat16[16] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
                        0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf };
static volatile ulong loaded[4];

#if defined(__x86_64__)
#define XMM_CLOBBER , "xmm0"
#else
#define XMM_CLOBBER
#endif

/* Stores and loads of each width at a. */
static void st1(ulong a) { __asm__ volatile("9: movb $0x11, (%0)" MARKED ::"r"(a) : "memory"); }
static void st2(ulong a) { __asm__ volatile("9: movw $0x2222, (%0)" MARKED ::"r"(a) : "memory"); }
static void st4(ulong a) { __asm__ volatile("9: movl $0x44444444, (%0)" MARKED ::"r"(a) : "memory"); }
static void st8(ulong a)
{
    __asm__ volatile("movdqu (%1), %%xmm0\n 9: movq %%xmm0, (%0)" MARKED ::"r"(a), "r"(pat16)
                     : "memory" XMM_CLOBBER);
}
static void st10(ulong a)
{
    __asm__ volatile("fldt (%1)\n 9: fstpt (%0)" MARKED ::"r"(a), "r"(pat16) : "memory");
}
static void st16(ulong a)
{
    __asm__ volatile("movdqu (%1), %%xmm0\n9: movdqu %%xmm0, (%0)" MARKED ::"r"(a), "r"(pat16)
                     : "memory" XMM_CLOBBER);
}
static void stbcd(ulong a)
{
    __asm__ volatile("fildl (%1)\n 9: fbstp (%0)" MARKED ::"r"(a), "r"(pat16) : "memory");
}
static void ld1(ulong a)
{
    unsigned v;
    __asm__ volatile("9: movzbl (%1), %0" MARKED : "=r"(v) : "r"(a) : "memory");
    loaded[0] = v;
}
static void ld2(ulong a)
{
    unsigned v;
    __asm__ volatile("9: movzwl (%1), %0" MARKED : "=r"(v) : "r"(a) : "memory");
    loaded[0] = v;
}
static void ld4(ulong a)
{
    unsigned v;
    __asm__ volatile("9: movl (%1), %0" MARKED : "=r"(v) : "r"(a) : "memory");
    loaded[0] = v;
}
static void ld8(ulong a)
{
    __asm__ volatile("9: movq (%0), %%xmm0" MARKED " movdqu %%xmm0, (%1)" ::"r"(a), "r"(loaded)
                     : "memory" XMM_CLOBBER);
}
static void ld16(ulong a)
{
    __asm__ volatile("9: movdqu (%0), %%xmm0" MARKED " movdqu %%xmm0, (%1)" ::"r"(a), "r"(loaded)
                     : "memory" XMM_CLOBBER);
}
static void rmw4(ulong a) { __asm__ volatile("9: addl $0x01010101, (%0)" MARKED ::"r"(a) : "memory", "cc"); }
static void lock4(ulong a)
{
    __asm__ volatile("9: lock addl $0x01010101, (%0)" MARKED ::"r"(a) : "memory", "cc");
}

static const struct {
    const char *name;
    void (*fn)(ulong);
    int width;
} widths[] = {
    { "st1", st1, 1 },   { "st2", st2, 2 },   { "st4", st4, 4 },   { "st8", st8, 8 },
    { "st10", st10, 10 }, { "st16", st16, 16 }, { "fbstp", stbcd, 10 }, { "rmw4", rmw4, 4 }, { "lock4", lock4, 4 },
    { "ld1", ld1, 1 },   { "ld2", ld2, 2 },   { "ld4", ld4, 4 },   { "ld8", ld8, 8 },
    { "ld16", ld16, 16 },
};

/* Every width at the last bytes before `edge` (which faults), then one byte
 * across: the bytes on the good side must be as the kernel leaves them. */
static void edges(ulong edge)
{
    for (ulong i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
        ulong w = (ulong)widths[i].width;
        fill(edge - 32, 32, 0x30);
        loaded[0] = loaded[1] = 0;
        probe(widths[i].name, widths[i].fn, edge - w, 0);
        if (widths[i].name[0] == 'l' && widths[i].name[1] == 'd') {
            out("  loaded");
            kv("lo", loaded[0]);
            kv("hi", loaded[1]);
            out("\n");
        }
        probe(widths[i].name, widths[i].fn, edge - w + 1, 0);
        hexdump("  before", edge - 20, 20);
    }
}

/* ------------------------------------------------- 1. top of memory */

#if !defined(__x86_64__)
static void top(const char *a)
{
    if (h_streq(a, "top_probe")) {
        static const ulong at[] = { 0xffffc000, 0xffffd000, 0xffffe000, 0xfffff000 };
        for (ulong i = 0; i < 4; i++) {
            long r = SYS6(NR_mmap_LINUX, at[i], PAGE, RW,
                          MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_FIXED_LINUX, -1, 0);
            out("mmap fixed ");
            out_hex(at[i]);
            report("", r == (long)at[i] ? 0 : r);
            if (r == (long)at[i])
                SYS2(NR_munmap_LINUX, at[i], PAGE);
        }
        /* Two pages of which the second is past the top; a hint up there. */
        report("mmap fixed 0xffffd000 two pages",
               SYS6(NR_mmap_LINUX, 0xffffd000, 2 * PAGE, RW,
                    MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_FIXED_LINUX, -1, 0));
        long h = SYS6(NR_mmap_LINUX, 0xffffe000, PAGE, RW,
                      MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX, -1, 0);
        report("hint 0xffffe000 lands below the top", h > 0 && (ulong)h < 0xffffe000ul);
        return;
    }
    anon_at(0xffffd000, PAGE, RW); /* over the stack's top page: we run on another */
    if (h_streq(a, "top_edge"))
        edges(0xffffe000);
    else if (h_streq(a, "top_limit")) {
        /* Across 2^32: past the flat segments' limit, #GP (SI_KERNEL)
         * natively; the last probe's trap number is the exit status. */
        probe("0xfffffffc ld16", ld16, 0xfffffffc, 0);
        probe("0xfffffffe ld4", ld4, 0xfffffffe, 0);
        probe("0xffffffff st4", st4, 0xffffffff, 0);
        probe("0xffffffff ld1", ld1, 0xffffffff, 0);
        probe("0xffffffff ld16", ld16, 0xffffffff, 0);
        h_exit(seen.n ? (int)seen.trapno : 0);
    } else { /* top_wrap: past the top, in seccomp-emu's page, up to 2^32 */
        static const ulong at[] = { 0xffffe000, 0xfffff000, 0xfffffffc };
        for (ulong i = 0; i < 3; i++) {
            out_hex(at[i]);
            probe(" ld4", ld4, at[i], 0);
            out_hex(at[i]);
            probe(" st4", st4, at[i], 0);
        }
        probe("0xfffffff0 ld16", ld16, 0xfffffff0, 0);
        /* Read only: the last mapped page cannot be written near the top. */
        SYS3(NR_mprotect_LINUX, 0xffffd000, PAGE, RO);
        probe("st16 at 0xffffdff8 read-only", st16, 0xffffdff8, 0);
        probe("st4 at 0xffffdffc read-only", st4, 0xffffdffc, 0);
        probe("ld4 at 0xffffdffc read-only", ld4, 0xffffdffc, 0);
        kv("loaded", loaded[0]);
        out("\n");
    }
}

/* The stack's top page is 0xffffd000 natively: run top() on a stack of
 * our own in AREA, and end there. */
static char action[64];
static void top_main(void)
{
    top(action);
    h_exit(0);
}
static void top_on_own_stack(const char *a)
{
    ulong i = 0;
    for (; a[i] && i < sizeof(action) - 1; i++)
        action[i] = a[i];
    anon_at(AREA + 0x100000, 0x10000, RW);
    __asm__ volatile("mov %1, %%esp\n call *%0\n hlt" ::"r"(top_main), "r"(AREA + 0x110000)
                     : "memory");
}

/* ------------------------------------------ 2. 16-bit and segment wrap */

struct user_desc_l {
    unsigned entry, base, limit;
    unsigned flags; /* seg_32bit:1 contents:2 read_exec_only:1 limit_in_pages:1 ... */
};

static unsigned fs_selector(unsigned base, unsigned limit, int pages)
{
    struct user_desc_l d = { (unsigned)-1, base, limit, 1u | (pages ? 1u << 4 : 0) | 1u << 6 };
    long r = SYS1(NR_set_thread_area_LINUX, &d);
    if (r != 0) {
        report("set_thread_area", r);
        h_exit(97);
    }
    return d.entry * 8 + 3;
}

static void ld_fs(ulong off) /* movl %fs:(off), %eax */
{
    unsigned v;
    __asm__ volatile("9: movl %%fs:(%1), %0" MARKED : "=r"(v) : "r"(off) : "memory");
    loaded[0] = v;
}
static void st_fs(ulong off)
{
    __asm__ volatile("9: movl $0x5a5a5a5a, %%fs:(%0)" MARKED ::"r"(off) : "memory");
}
static void ld_fs16(ulong off) /* off = bx | si << 16: 0x67 movl %fs:(%bx,%si) */
{
    unsigned v;
    __asm__ volatile("push %%ebx\n movzwl %w1, %%ebx\n shr $16, %1\n mov %1, %%esi\n"
                     "9: .byte 0x64, 0x67, 0x8b, 0x00" MARKED " pop %%ebx"
                     : "=a"(v), "+c"(off) : : "esi", "memory");
    loaded[0] = v;
}
static void st_ds16(ulong off)
{
    __asm__ volatile("push %%ebx\n movzwl %w0, %%ebx\n shr $16, %0\n mov %0, %%esi\n"
                     " mov $0x77, %%al\n9: .byte 0x67, 0x88, 0x00" MARKED " pop %%ebx"
                     : "+c"(off) : : "eax", "esi", "memory");
}

static int wrap(const char *a)
{
    anon_at(AREA, 0x11000, RW);
    *(volatile unsigned *)(AREA + 0x10) = 0x10101010;
    *(volatile unsigned *)(AREA + 0x10010) = 0x10010010;
    *(volatile unsigned *)(AREA + 0xfffe) = 0xfefefefe;
    if (h_streq(a, "wrap16")) {
        unsigned sel = fs_selector(AREA, 0xfffff, 1);
        __asm__ volatile("mov %0, %%fs" ::"r"(sel));
        /* bx + si = 0x10010: the 16-bit sum wraps to 0x10. */
        probe("fs16 0xfff0+0x20", ld_fs16, 0xfff0 | 0x20ul << 16, 0);
        kv("loaded", loaded[0]);
        out("\n");
        probe("fs16 0xfffe+0", ld_fs16, 0xfffe, 0); /* dword across 0xffff: no wrap */
        kv("loaded", loaded[0]);
        out("\n");
        probe("fs32 0x10010", ld_fs, 0x10010, 0);
        kv("loaded", loaded[0]);
        out("\n");
        /* ds: the wrapped address is below mmap_min_addr, never AREA's. */
        probe("ds16 store 0xfff0+0x20", st_ds16, 0xfff0 | 0x20ul << 16, 0);
        hexdump("AREA+0x10", AREA + 0x10, 4);
        hexdump("AREA+0x10010", AREA + 0x10010, 4);
        return 0;
    }
    /* seg_wrap: base 0xffff0000, offset AREA + 0x10000 wraps to AREA. */
    unsigned sel = fs_selector(0xffff0000u, 0xfffff, 1);
    __asm__ volatile("mov %0, %%fs" ::"r"(sel));
    probe("fs base 0xffff0000 + AREA+0x10010", ld_fs, AREA + 0x10010, 0);
    kv("loaded", loaded[0]);
    out("\n");
    probe("store there", st_fs, AREA + 0x10020, 0);
    hexdump("AREA+0x20", AREA + 0x20, 4);
    probe("fs 0xffff0000 + 0xfffc (0xfffffffc)", ld_fs, 0xfffc, 0);
    if (h_streq(a, "seg_wrap")) {
        unsigned z = 0;
        __asm__ volatile("mov %0, %%fs" ::"r"(z));
        return 0;
    }
    /* seg_limit: segment limits, which the CPU checks (#GP) and the
     * engine does not; the last probe's trap number is the exit status. */
    probe("fs 0xffff0000 + 0xfffe (straddles 2^32)", ld_fs, 0xfffe, 0);
    /* Byte-granular limit 0xfff: a dword at 0xffc is fine, at 0xffe not. */
    sel = fs_selector(AREA, 0xfff, 0);
    __asm__ volatile("mov %0, %%fs" ::"r"(sel));
    probe("limit 0xfff, dword at 0xffc", ld_fs, 0xffc, 0);
    probe("limit 0xfff, dword at 0xffe", ld_fs, 0xffe, 0);
    probe("limit 0xfff, store at 0x1000", st_fs, 0x1000, 0);
    hexdump("AREA+0x1000", AREA + 0x1000, 4);
    unsigned z = 0;
    __asm__ volatile("mov %0, %%fs" ::"r"(z));
    return seen.n ? (int)seen.trapno : 0;
}
#endif

/* ------------------------------------------ 3. code through a second view */

/* Calls fn with %ecx = cl (the byte code stores through the other view). */
static long call_cl(ulong fn, ulong cl)
{
    long r;
    __asm__ volatile("call *%1" : "=a"(r) : "r"(fn), "c"(cl) : "memory", "edx", "cc"
#if defined(__x86_64__)
                     , "rsi", "rdi", "r8", "r9", "r10", "r11"
#endif
    );
    return r;
}

static int views(const char *a)
{
    ulong rw = AREA, rx = AREA + 0x10000;
    if (h_streq(a, "view_memfd")) {
        long fd = SYS2(NR_memfd_create_LINUX, "code", 0);
        report("ftruncate", SYS2(NR_ftruncate_LINUX, fd, 2 * PAGE));
        long r = SYS6(NR_mmap_LINUX, rw, 2 * PAGE, RW, MAP_SHARED_LINUX | MAP_FIXED_LINUX, fd, 0);
        report("first view (0: at rw)", r == (long)rw ? 0 : r);
        r = SYS6(NR_mmap_LINUX, rx, 2 * PAGE, RX, MAP_SHARED_LINUX | MAP_FIXED_LINUX, fd, 0);
        report("second view (0: at rx)", r == (long)rx ? 0 : r);
        if (r != (long)rx)
            return 98;
    } else { /* view_mremap: a shared anonymous mapping, mremap'd with old size 0 */
        anon_at(rw, 2 * PAGE, RW);
        map_at(rw, 2 * PAGE, RW, MAP_SHARED_LINUX | MAP_ANONYMOUS_LINUX);
        long r = SYS5(NR_mremap_LINUX, rw, 0, 2 * PAGE,
                      MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX, rx);
        report("second view", r == (long)rx);
        report("mprotect RX", SYS3(NR_mprotect_LINUX, rx, 2 * PAGE, RX));
    }
    put_ret(rw, 1);
    callp("call 1", rx);
    put_ret(rw, 2);
    callp("call after rewrite", rx);
    if (h_streq(a, "view_next")) {
        /* Through the view, the next instruction of the running block:
         * mov %cl, (rw + 7 or 8); mov $1, %eax; ret. */
#if defined(__x86_64__)
        u8 c[] = { 0x88, 0x0c, 0x25, 0, 0, 0, 0, 0xb8, 1, 0, 0, 0, 0xc3 };
        ulong imm = rw + 0x100 + 8;
        c[3] = (u8)imm, c[4] = (u8)(imm >> 8), c[5] = (u8)(imm >> 16), c[6] = (u8)(imm >> 24);
#else
        u8 c[] = { 0x88, 0x0d, 0, 0, 0, 0, 0xb8, 1, 0, 0, 0, 0xc3 };
        ulong imm = rw + 0x100 + 7;
        c[2] = (u8)imm, c[3] = (u8)(imm >> 8), c[4] = (u8)(imm >> 16), c[5] = (u8)(imm >> 24);
#endif
        copy(rw + 0x100, c, sizeof(c));
        long first = call_cl(rx + 0x100, 0x42);
        out("store into the next instruction: returned ");
        out_hex((ulong)first);
        out(", again ");
        out_hex((ulong)call_cl(rx + 0x100, 0x43));
        out("\n");
        hexdump("code now", rx + 0x100, sizeof(c));
        /* What the first call returned is the exit status. */
        return (int)first;
    }
    /* The RX view written directly: SIGSEGV, code unchanged. */
    probe("store into the RX view", st4, rx, 0);
    callp("call", rx);
    /* Code at the end of the first page, written across both through rw. */
    put_ret(rw + PAGE - 3, 5);
    callp("call across pages", rx + PAGE - 3);
    *(volatile unsigned *)(rw + PAGE - 2) = 0xc3000006;
    callp("call after a straddling store", rx + PAGE - 3);
    return 0;
}

/* --------------------------------------------- 4. code written by the kernel */

static void kernel_writes(void)
{
    anon_at(AREA, PAGE, RWX);
    put_ret(AREA, 1);
    callp("call", AREA);
    long p[2];
    int pfd[2];
    SYS1(NR_pipe_LINUX, pfd);
    p[0] = pfd[0], p[1] = pfd[1];
    u8 c2[] = { 0xb8, 2, 0, 0, 0, 0xc3 };
    SYS3(NR_write_LINUX, p[1], c2, sizeof(c2));
    report("read from a pipe", SYS3(NR_read_LINUX, p[0], AREA, sizeof(c2)));
    callp("call", AREA);
    long fd = SYS2(NR_memfd_create_LINUX, "code", 0);
    u8 c3[] = { 0xb8, 3, 0, 0, 0, 0xc3 };
    SYS4(NR_pwrite64_LINUX, fd, c3, sizeof(c3), 0x100);
    report("pread", SYS4(NR_pread64_LINUX, fd, AREA, sizeof(c3), 0x100));
    callp("call", AREA);
    /* A read that ends in an unmapped page: the kernel copies what it can. */
    u8 c4[] = { 0xb8, 4, 0, 0, 0, 0xc3, 0x90, 0x90 };
    SYS4(NR_pwrite64_LINUX, fd, c4, sizeof(c4), 0x200);
    put_ret(AREA + PAGE - 6, 9);
    callp("call at the end", AREA + PAGE - 6);
    report("pread across the end", SYS4(NR_pread64_LINUX, fd, AREA + PAGE - 6, 8, 0x200));
    callp("call at the end", AREA + PAGE - 6);
    SYS1(NR_close_LINUX, fd);
    /* /dev/zero over the immediate; readv into two code pages at once. */
    anon_at(AREA + PAGE, PAGE, RWX);
    put_ret(AREA, 0x11111111);
    put_ret(AREA + PAGE, 0x22222222);
    callp("call", AREA);
    callp("call", AREA + PAGE);
    long z = SYS2(NR_open_LINUX, "/dev/zero", 0);
    report("read from /dev/zero", SYS3(NR_read_LINUX, z, AREA + 2, 2));
    callp("call", AREA);
    SYS1(NR_close_LINUX, z);
    u8 c5[] = { 5, 5, 6, 6 };
    SYS3(NR_write_LINUX, p[1], c5, sizeof(c5));
    ulong iov[4] = { AREA + 1, 2, AREA + PAGE + 1, 2 };
    report("readv from a pipe", SYS3(NR_readv_LINUX, p[0], iov, 2));
    callp("call", AREA);
    callp("call", AREA + PAGE);
}

/* --------------------------------------------------- 5. self-modifying code */

static long call_rep(ulong fn, ulong si, ulong di, ulong cx)
{
    long r;
    __asm__ volatile("call *%1"
                     : "=a"(r), "+r"(fn), "+S"(si), "+D"(di), "+c"(cx)
                     : : "memory", "edx", "cc"
#if defined(__x86_64__)
                     , "r8", "r9", "r10", "r11"
#endif
    );
    return r;
}

static void smc(const char *a)
{
    ulong p = AREA;
    anon_at(p, PAGE, RWX);
    anon_at(p + PAGE, PAGE, RW);
    if (h_streq(a, "smc_rep")) {
        /* rep movsb; mov $1, %eax; ret — the copy rewrites the mov and runs
         * on into the data page. */
        u8 c[] = { 0xf3, 0xa4, 0xb8, 1, 0, 0, 0, 0xc3 };
        static u8 src[0x40] = { 0xb8, 2, 0, 0, 0, 0xc3 };
        for (int i = 6; i < 0x40; i++)
            src[i] = (u8)i;
        ulong at = p + PAGE - 0x10;
        copy(at, c, sizeof(c));
        out("rep movsb over the next instruction: returned ");
        out_hex((ulong)call_rep(at, (ulong)src, at + 2, 6));
        out("\n");
        copy(at, c, sizeof(c));
        out("again, across into the data page: returned ");
        out_hex((ulong)call_rep(at, (ulong)src, at + 2, 0x30));
        out("\n");
        hexdump("data page", p + PAGE, 0x24);
        /* Backwards (std) over code already run. */
        copy(at, c, sizeof(c));
        callp("call the tail", at + 2);
        __asm__ volatile("std\n rep movsb\n cld"
                         : "+S"(*(ulong[]){ (ulong)src + 5 }), "+D"(*(ulong[]){ at + 7 }),
                           "+c"(*(ulong[]){ 6 })
                         : : "memory");
        callp("call the tail after std rep movsb", at + 2);
        return;
    }
    if (h_streq(a, "smc_straddle")) {
        put_ret(p + PAGE - 6, 1);
        callp("call", p + PAGE - 6);
        /* The imm's top byte and the ret in the code page, two in the data page. */
        *(volatile unsigned *)(p + PAGE - 2) = 0xbbaac307;
        callp("call after a straddling store", p + PAGE - 6);
        hexdump("data", p + PAGE, 4);
        SYS3(NR_mprotect_LINUX, p + PAGE, PAGE, RO);
        probe("straddling store onto a read-only page", st4, p + PAGE - 2, 0);
        hexdump("code end", p + PAGE - 6, 6);
        callp("call", p + PAGE - 6);
        probe("st16 across", st16, p + PAGE - 8, 0);
        callp("call", p + PAGE - 6);
        return;
    }
    /* smc_atomic: xchg, lock cmpxchg, lock xadd, lock or on the immediate */
    put_ret(p, 1);
    callp("call", p);
    unsigned v = 5;
    __asm__ volatile("xchg %0, (%1)" : "+r"(v) : "r"(p + 1) : "memory");
    report("xchg saw", v);
    callp("call", p);
    unsigned old = 5, nv = 9;
    __asm__ volatile("lock cmpxchg %2, (%1)" : "+a"(old) : "r"(p + 1), "r"(nv) : "memory", "cc");
    callp("call after cmpxchg", p);
    old = 7; /* fails: no change, but a locked write cycle all the same */
    __asm__ volatile("lock cmpxchg %2, (%1)" : "+a"(old) : "r"(p + 1), "r"(nv + 1) : "memory", "cc");
    report("failed cmpxchg saw", old);
    callp("call", p);
    unsigned add = 1;
    __asm__ volatile("lock xadd %0, (%1)" : "+r"(add) : "r"(p + 1) : "memory", "cc");
    callp("call after xadd", p);
    __asm__ volatile("lock orb $0x30, (%0)" ::"r"(p + 1) : "memory", "cc");
    callp("call after lock or", p);
    /* The page read-only and executable: a locked op faults, nothing changes. */
    SYS3(NR_mprotect_LINUX, p, PAGE, RX);
    probe("lock4 on read-only code", lock4, p + 1, 0);
    callp("call", p);
}

/* ---------------------------------------------------- 6. repaired faults */

static void make_writable(ulong a)
{
    SYS3(NR_mprotect_LINUX, a & ~(PAGE - 1), PAGE, RW);
}
static void map_there(ulong a)
{
    SYS6(NR_mmap_LINUX, a & ~(PAGE - 1), PAGE, RW,
         MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_FIXED_LINUX, -1, 0);
}

static void repaired(void (*fix)(ulong), const char *what, void (*fn)(ulong), ulong a)
{
    repair = fix;
    seen.n = 0;
    fn(a);
    repair = 0;
    out(what);
    report(": handler calls", seen.n);
    if (seen.n)
        show_fault(0);
}

static void retry(void)
{
    anon_at(AREA, PAGE, RW);
    *(volatile unsigned *)AREA = 41;
    SYS3(NR_mprotect_LINUX, AREA, PAGE, RO);
    repaired(make_writable, "incl on read-only, handler mprotects", rmw4, AREA);
    hexdump("value", AREA, 4);
    repaired(map_there, "store to unmapped, handler maps", st4, AREA + 0x10008);
    hexdump("value", AREA + 0x10008, 4);
    /* Straddling onto read-only; the handler opens the second page. */
    anon_at(AREA + 0x20000, PAGE, RW);
    anon_at(AREA + 0x21000, PAGE, RO);
    fill(AREA + 0x20ff0, 0x10, 0x30);
    repaired(make_writable, "straddling st16, handler opens page 2", st16, AREA + 0x20ff8);
    hexdump("bytes", AREA + 0x20ff0, 0x20);
    /* Code the handler makes writable: the page was run first. */
    anon_at(AREA + 0x30000, PAGE, RWX);
    put_ret(AREA + 0x30000, 1);
    callp("call", AREA + 0x30000);
    SYS3(NR_mprotect_LINUX, AREA + 0x30000, PAGE, RX);
    repaired(make_writable, "store into read-only code, handler mprotects", st1,
             AREA + 0x30001);
    SYS3(NR_mprotect_LINUX, AREA + 0x30000, PAGE, RWX);
    callp("call", AREA + 0x30000);
    /* si_code: read-only, PROT_NONE, unmapped, and executing data. */
    anon_at(AREA + 0x40000, PAGE, RO);
    anon_at(AREA + 0x41000, PAGE, PROT_NONE);
    anon_at(AREA + 0x42000, PAGE, RW);
    probe("store to read-only", st4, AREA + 0x40010, 0);
    probe("load from PROT_NONE", ld4, AREA + 0x41010, 0);
    probe("store to PROT_NONE", st4, AREA + 0x41010, 0);
    probe("load from unmapped", ld4, AREA + 0x43010, 0);
    probe("store to unmapped", st4, AREA + 0x43010, 0);
    *(volatile u8 *)(AREA + 0x42000) = 0xc3;
    callp("call RW data", AREA + 0x42000);
}

/* ------------------------------------------- 7. string ops into a fault */

static void rep_stosb(ulong a)
{
    __asm__ volatile("9: rep stosb" MARKED : "+D"(a) : "a"(0x5a), "c"(0x40) : "memory");
}
static void rep_stosl(ulong a)
{
    __asm__ volatile("9: rep stosl" MARKED : "+D"(a) : "a"(0x5a5a5a5a), "c"(0x10) : "memory");
}
static void rep_stosb_down(ulong a)
{
    __asm__ volatile("std\n9: rep stosb" MARKED " cld" : "+D"(a) : "a"(0x5b), "c"(0x40) : "memory");
}
static ulong movs_dst;
static void rep_movsb(ulong src)
{
    __asm__ volatile("9: rep movsb" MARKED : "+S"(src) : "D"(movs_dst), "c"(0x40) : "memory");
}
static void rep_movsl(ulong src)
{
    __asm__ volatile("9: rep movsl" MARKED : "+S"(src) : "D"(movs_dst), "c"(0x10) : "memory");
}

static void strings(const char *a)
{
    ulong p = AREA;
    int ro = h_streq(a, "rep_ro");
    anon_at(p, PAGE, RW);
    anon_at(p + 0x10000, PAGE, RW);
    anon_at(p + 0x20000, PAGE, RW);
    if (ro)
        anon_at(p + PAGE, PAGE, RO);
    anon_at(p + 0x1f000, PAGE, RO);
    /* p + PAGE: unmapped (rep_unmapped) or read-only (rep_ro); p + 0x1f000
     * below p + 0x20000: read-only. */
    fill(p + PAGE - 0x30, 0x30, 0x30);
    probe("rep stosb", rep_stosb, p + PAGE - 0x20, CX | DI);
    hexdump("  ", p + PAGE - 0x24, 0x24);
    fill(p + PAGE - 0x30, 0x30, 0x30);
    probe("rep stosl misaligned", rep_stosl, p + PAGE - 0x1e, CX | DI);
    hexdump("  ", p + PAGE - 0x24, 0x24);
    fill(p + 0x20000, 0x30, 0x30);
    probe("std rep stosb", rep_stosb_down, p + 0x20000 + 0x10, CX | DI);
    hexdump("  ", p + 0x20000, 0x14);
    /* Source running into the fault, then destination. */
    for (ulong i = 0; i < 0x30; i++)
        ((volatile u8 *)(p + PAGE - 0x30))[i] = (u8)(0x80 + i);
    movs_dst = p + 0x10000;
    fill(movs_dst, 0x40, 0);
    probe("rep movsb, source runs out", rep_movsb, p + PAGE - 0x20, CX | SI | DI);
    hexdump("  ", movs_dst, 0x24);
    fill(movs_dst, 0x40, 0);
    probe("rep movsl misaligned, source runs out", rep_movsl, p + PAGE - 0x1e, CX | SI | DI);
    hexdump("  ", movs_dst, 0x24);
    movs_dst = p + PAGE - 0x20;
    fill(p + PAGE - 0x30, 0x30, 0x30);
    probe("rep movsb, destination runs out", rep_movsb, p + 0x10000, CX | SI | DI);
    hexdump("  ", p + PAGE - 0x24, 0x24);
}

/* --------------------------------------------- 8. memory changed under code */

static void remaps(const char *a)
{
    ulong p = AREA;
    if (h_streq(a, "remap_munmap")) {
        anon_at(p, PAGE, RWX);
        put_ret(p, 1);
        callp("call", p);
        SYS2(NR_munmap_LINUX, p, PAGE);
        callp("call unmapped", p);
        anon_at(p, PAGE, RWX);
        put_ret(p, 2);
        callp("call new mapping", p);
        anon_at(p, PAGE, RWX); /* mapped over, no munmap */
        put_ret(p, 3);
        callp("call mapped over", p);
        /* Shared memory mapped over it (memfd files cannot be mapped in
         * seccomp-emu: view_memfd). */
        map_at(p, PAGE, RWX, MAP_SHARED_LINUX | MAP_ANONYMOUS_LINUX);
        callp("call shared memory mapped over", p);
        put_ret(p, 4);
        callp("call it written", p);
        return;
    }
    if (h_streq(a, "remap_mremap")) {
        anon_at(p, 2 * PAGE, RWX);
        put_ret(p, 1);
        put_ret(p + PAGE, 0x11);
        callp("call", p);
        callp("call", p + PAGE);
        long r = SYS5(NR_mremap_LINUX, p, 2 * PAGE, 2 * PAGE,
                      MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX, p + 0x20000);
        report("mremap moved", r == (long)(p + 0x20000));
        callp("call moved", p + 0x20000);
        callp("call moved", p + 0x21000);
        callp("call the old place", p);
        anon_at(p, PAGE, RWX);
        put_ret(p, 3);
        callp("call the old place remapped", p);
        put_ret(p + 0x20000, 4);
        callp("call moved after a write", p + 0x20000);
        /* Grown in place, then shrunk: the tail goes. */
        r = SYS4(NR_mremap_LINUX, p + 0x20000, 2 * PAGE, PAGE, 0);
        callp("call the cut tail", p + 0x21000);
        return;
    }
    /* remap_mprotect */
    anon_at(p, PAGE, RW);
    put_ret(p, 1);
    SYS3(NR_mprotect_LINUX, p, PAGE, RX);
    callp("call", p);
    SYS3(NR_mprotect_LINUX, p, PAGE, RW);
    put_ret(p, 2);
    callp("call RW", p);
    SYS3(NR_mprotect_LINUX, p, PAGE, RX);
    callp("call RX", p);
    SYS3(NR_mprotect_LINUX, p, PAGE, PROT_NONE);
    callp("call PROT_NONE", p);
    SYS3(NR_mprotect_LINUX, p, PAGE, RWX);
    put_ret(p, 3);
    callp("call RWX", p);
}

/* ------------------------------------------------------------- 9. fork */

static volatile unsigned cow = 1;

static void forked(void)
{
    anon_at(AREA, PAGE, RWX);
    put_ret(AREA, 1);
    callp("parent call", AREA);
    long pid = SYS0(NR_fork_LINUX);
    if (pid == 0) {
        cow = 2;
        put_ret(AREA, 2);
        report("child cow", cow);
        callp("child call", AREA);
        SYS3(NR_mprotect_LINUX, AREA, PAGE, RX);
        probe("child store to its read-only code", st4, AREA, 0);
        h_exit(7);
    }
    int status = 0;
    long r = SYS4(NR_wait4_LINUX, pid, &status, 0, 0);
    report("wait4 found the child", r == pid);
    out("status ");
    out_hex((ulong)status);
    out("\n");
    report("parent cow", cow);
    callp("parent call", AREA);
    put_ret(AREA, 5);
    callp("parent call after its write", AREA);
}

/* ------------------------------------------------------------ 10. stack */

static void stack(void)
{
    ulong lim[2] = { 32ul << 20, 32ul << 20 };
    report("setrlimit(RLIMIT_STACK, 32 MiB)", SYS2(NR_setrlimit_LINUX, RLIMIT_STACK_LINUX, lim));
    ulong sp;
    __asm__ volatile("mov %%" SPREG ", %0" : "=r"(sp));
    ulong s = sp & ~(PAGE - 1);
    /* A mapping 16 MiB below: the stack may grow to within 1 MiB of its end
     * (stack_guard_gap), not closer. */
    ulong m = s - (16ul << 20);
    long r = SYS6(NR_mmap_LINUX, m, PAGE, RW,
                  MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_FIXED_NOREPLACE_LINUX, -1, 0);
    report("mapping below the stack", r == (long)m);
    static const ulong below[] = { 1ul << 20, 12ul << 20, 14ul << 20, (16ul << 20) - 0x2000,
                                   40ul << 20 };
    for (ulong i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
        ulong t = s - below[i];
        out("store ");
        out_hex(below[i]);
        probe(" below the stack", st4, t, NOADDR);
        if (seen.n) {
            out("  addr - target ");
            out_hex(seen.addr - t);
            out("\n");
        } else
            report("  read back", *(volatile unsigned *)t == 0x44444444);
    }
}

/* ------------------------------------------------- 11. cmpxchg8b across */

/* lock cmpxchg8b at a, compared with hi:lo, to store 0x22222222:11111111 */
static void cx8_with(ulong a, unsigned lo, unsigned hi)
{
#if defined(__x86_64__)
    __asm__ volatile("push %%rbx\n mov $0x11111111, %%ebx\n 9: lock cmpxchg8b (%2)" MARKED " pop %%rbx"
                     : "+a"(lo), "+d"(hi) : "r"(a), "c"(0x22222222) : "memory", "cc");
#else
    __asm__ volatile("push %%ebx\n mov $0x11111111, %%ebx\n 9: lock cmpxchg8b (%2)" MARKED " pop %%ebx"
                     : "+a"(lo), "+d"(hi) : "S"(a), "c"(0x22222222) : "memory", "cc");
#endif
}

static void cx8(ulong a)
{
    cx8_with(a, 0xdeadbeef, 0xdeadbeef); /* differs from what is there */
}

static unsigned cx_hi; /* the upper half there, which may be past the page */
static void cx8_equal(ulong a)
{
    cx8_with(a, *(volatile unsigned *)a, cx_hi);
}

static void cmpxchg8b(void)
{
    ulong p = AREA;
    anon_at(p, PAGE, RW);
    anon_at(p + PAGE, PAGE, RO);
    anon_at(p + 0x10000, PAGE, RW);
    for (int k = 0; k < 2; k++) {
        void (*fn)(ulong) = k ? cx8 : cx8_equal;
        fill(p + PAGE - 8, 8, 0x40);
        cx_hi = 0;
        probe(k ? "cmpxchg8b differing, onto read-only" : "cmpxchg8b equal, onto read-only",
              fn, p + PAGE - 4, 0);
        hexdump("  ", p + PAGE - 8, 12);
        fill(p + 0x11000 - 8, 8, 0x40);
        probe(k ? "cmpxchg8b differing, onto unmapped" : "cmpxchg8b equal, onto unmapped", fn,
              p + 0x11000 - 4, 0);
        hexdump("  ", p + 0x11000 - 8, 8);
        fill(p + 0x800, 9, 0x40);
        cx_hi = 0x48474645;
        probe(k ? "cmpxchg8b differing, misaligned in a page" : "cmpxchg8b equal, misaligned",
              fn, p + 0x801, 0);
        hexdump("  ", p + 0x800, 12);
    }
}

/* ------------------------------------- shared memory and past the object */

static void shared(const char *a)
{
    ulong p = AREA;
    if (h_streq(a, "straddle_shared")) {
        /* Private, then shared anonymous, then a file past its end. */
        anon_at(p, PAGE, RW);
        map_at(p + PAGE, PAGE, RW, MAP_SHARED_LINUX | MAP_ANONYMOUS_LINUX);
        fill(p + PAGE - 16, 32, 0x30);
        st16(p + PAGE - 8);
        hexdump("private|shared after st16", p + PAGE - 16, 32);
        st8(p + PAGE - 4);
        rmw4(p + PAGE - 2);
        lock4(p + PAGE - 1);
        hexdump("after st8, rmw4, lock4", p + PAGE - 16, 32);
        ld16(p + PAGE - 8);
        kv("ld16 lo", loaded[0]);
        kv("hi", loaded[1]);
        out("\n");
        long pid = SYS0(NR_fork_LINUX);
        if (pid == 0) {
            st4(p + PAGE + 0x100);
            st4(p + 0x100);
            h_exit(0);
        }
        int status;
        SYS4(NR_wait4_LINUX, pid, &status, 0, 0);
        hexdump("shared page written by the child", p + PAGE + 0x100, 4);
        hexdump("private page the child wrote", p + 0x100, 4);
        return;
    }
    /* past_eof: a 100-byte file mapped over two pages. */
    long fd = SYS2(NR_memfd_create_LINUX, "f", 0);
    SYS2(NR_ftruncate_LINUX, fd, 100);
    long r = SYS6(NR_mmap_LINUX, p, 2 * PAGE, RW, MAP_SHARED_LINUX | MAP_FIXED_LINUX, fd, 0);
    report("mapped (0: at p)", r == (long)p ? 0 : r);
    if (r != (long)p)
        h_exit(98);
    fill(p, 100, 0x10);
    probe("ld4 past 100 in the page", ld4, p + 200, 0);
    kv("loaded", loaded[0]);
    out("\n");
    probe("st4 past 100 in the page", st4, p + 200, 0);
    edges(p + PAGE);
    probe("ld4 in the second page", ld4, p + PAGE + 8, 0);
    SYS2(NR_ftruncate_LINUX, fd, PAGE + 8);
    probe("st4 after the file grew", st4, p + PAGE + 4, 0);
    probe("st4 across the new end", st4, p + PAGE + 6, 0);
    hexdump("second page", p + PAGE, 12);
    SYS2(NR_ftruncate_LINUX, fd, 10);
    probe("ld4 after it shrank", ld4, p + 8, 0);
    kv("loaded", loaded[0]);
    out("\n");
    probe("ld4 at 12", ld4, p + 12, 0);
    kv("loaded", loaded[0]);
    out("\n");
}

int guest_main(int argc, char **argv)
{
    if (argc < 2) {
        out("usage: memory ACTION\n");
        return 2;
    }
    const char *a = argv[1];
    catch_faults();
#if !defined(__x86_64__)
    if (h_streq(a, "top_probe") || h_streq(a, "top_edge") || h_streq(a, "top_wrap") ||
        h_streq(a, "top_limit"))
        top_on_own_stack(a);
    else if (h_streq(a, "wrap16") || h_streq(a, "seg_wrap") || h_streq(a, "seg_limit"))
        return wrap(a);
    else
#endif
    if (h_streq(a, "view_memfd") || h_streq(a, "view_mremap") || h_streq(a, "view_next"))
        return views(a);
    else if (h_streq(a, "kernel_writes"))
        kernel_writes();
    else if (h_streq(a, "smc_rep") || h_streq(a, "smc_straddle") || h_streq(a, "smc_atomic"))
        smc(a);
    else if (h_streq(a, "retry"))
        retry();
    else if (h_streq(a, "rep_unmapped") || h_streq(a, "rep_ro"))
        strings(a);
    else if (h_streq(a, "remap_munmap") || h_streq(a, "remap_mremap") ||
             h_streq(a, "remap_mprotect"))
        remaps(a);
    else if (h_streq(a, "fork"))
        forked();
    else if (h_streq(a, "stack"))
        stack();
    else if (h_streq(a, "cmpxchg8b"))
        cmpxchg8b();
    else if (h_streq(a, "straddle_shared") || h_streq(a, "past_eof"))
        shared(a);
    else {
        out("unknown action\n");
        return 2;
    }
    return 0;
}
