/* The differential SIMD test: every instruction form of the engine's
 * decoder (tests/simd/gen.py), run natively and under seccomp-emu, with
 * the same random operands; tests/simd/run.py compares the two outputs.
 *
 *   simd features           the CPU's features, as the decoder names them
 *   simd run [--skip=F,..] [--sse-only] [--only=N]
 *                           every case: one line per case, operand set and
 *                           memory placement, with a hash of the state after
 *                           it (registers, flags, MXCSR, the memory around
 *                           the operand) or of the signal it raised and the
 *                           state the handler saw (the saved registers, the
 *                           signal frame's XMM/YMM)
 *   simd dump N P S         one run of case N, placement P, seed S, in full
 *
 * A case loads every register from simd_in, runs its one instruction and
 * stores every register into simd_out.  Memory operands are [rbx] (or
 * RIP-relative at a fixed place); simd_mem is two read-write pages and a
 * PROT_NONE one, and the placements put the operand in the middle of the
 * second page, one byte or 16 bytes off alignment, and ending 32, 16, 8,
 * 4, 2 and 1 bytes before the guard page: what faults, and where, is the
 * CPU's answer to how many bytes the form reads or writes.
 *
 * Undefined results are left out: the EFLAGS bits an instruction leaves
 * undefined, MXCSR.DE (QEMU does not track denormal inputs), and the
 * destination of RCP/RSQRT, which is printed for run.py to check within the
 * architectural 1.5 * 2^-12. */
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <cpuid.h>

#include "simd.h"

#if defined(__x86_64__) && !defined(SIMD_MODE_64X32)
#define NVEC 16
#define NGPR 16
#else
#define NVEC 8
#define NGPR 8
#endif

#define PAGE 4096
#define MXCSR_DE 0x2

struct simd_state {
    uint8_t ymm[16][32]; /* 0 */
    uint64_t mm[8];      /* 512 */
    uint64_t gpr[16];    /* 576: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15 */
    uint64_t flags;      /* 704 */
    uint32_t mxcsr;      /* 712 */
    uint32_t pad;
};
_Static_assert(sizeof(struct simd_state) == 720, "simd_state layout, as simd_load uses it");

struct simd_state simd_in __attribute__((aligned(64)));
struct simd_state simd_out __attribute__((aligned(64)));
unsigned char simd_mem[3 * PAGE] __attribute__((aligned(PAGE)));
#define PAGE_END (simd_mem + 2 * PAGE)
void *simd_load_fn, *simd_store_fn;

/* clang-format off */
#if defined(__x86_64__)
#define S(x) #x
#define YMM_ALL(op, a, b) \
    op " " a "0" b "\n" op " " a "1" b "\n" op " " a "2" b "\n" op " " a "3" b "\n" \
    op " " a "4" b "\n" op " " a "5" b "\n" op " " a "6" b "\n" op " " a "7" b "\n"
__asm__(".text\n"
    ".set simd_rip_target, simd_mem + 2 * 4096 - 256\n"
    ".globl simd_rip_target\n"
    ".globl simd_load, simd_store\n"
    "simd_load: jmp *simd_load_fn(%rip)\n"
    "simd_store: jmp *simd_store_fn(%rip)\n"
    "simd_load_avx:\n"
#define LD(n) "vmovdqu simd_in+" #n "*32(%rip), %ymm" #n "\n"
    LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
    LD(8) LD(9) LD(10) LD(11) LD(12) LD(13) LD(14) LD(15)
#undef LD
    "jmp simd_load_rest\n"
    "simd_load_sse:\n"
#define LD(n) "movdqu simd_in+" #n "*32(%rip), %xmm" #n "\n"
    LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
    LD(8) LD(9) LD(10) LD(11) LD(12) LD(13) LD(14) LD(15)
#undef LD
    "simd_load_rest:\n"
#define LD(n) "movq simd_in+512+" #n "*8(%rip), %mm" #n "\n"
    LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
#undef LD
    "ldmxcsr simd_in+712(%rip)\n"
    "pushq simd_in+704(%rip)\n popfq\n"
    "mov simd_in+576+0*8(%rip), %rax\n mov simd_in+576+1*8(%rip), %rcx\n"
    "mov simd_in+576+2*8(%rip), %rdx\n mov simd_in+576+3*8(%rip), %rbx\n"
    "mov simd_in+576+5*8(%rip), %rbp\n mov simd_in+576+6*8(%rip), %rsi\n"
    "mov simd_in+576+7*8(%rip), %rdi\n mov simd_in+576+8*8(%rip), %r8\n"
    "mov simd_in+576+9*8(%rip), %r9\n mov simd_in+576+10*8(%rip), %r10\n"
    "mov simd_in+576+11*8(%rip), %r11\n mov simd_in+576+12*8(%rip), %r12\n"
    "mov simd_in+576+13*8(%rip), %r13\n mov simd_in+576+14*8(%rip), %r14\n"
    "mov simd_in+576+15*8(%rip), %r15\n"
    "ret\n"
    "simd_store_avx:\n"
    "pushfq\n popq simd_out+704(%rip)\n"
#define ST(n) "vmovdqu %ymm" #n ", simd_out+" #n "*32(%rip)\n"
    ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
    ST(8) ST(9) ST(10) ST(11) ST(12) ST(13) ST(14) ST(15)
#undef ST
    "jmp simd_store_rest\n"
    "simd_store_sse:\n"
    "pushfq\n popq simd_out+704(%rip)\n"
#define ST(n) "movdqu %xmm" #n ", simd_out+" #n "*32(%rip)\n"
    ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
    ST(8) ST(9) ST(10) ST(11) ST(12) ST(13) ST(14) ST(15)
#undef ST
    "simd_store_rest:\n"
    "mov %rax, simd_out+576+0*8(%rip)\n mov %rcx, simd_out+576+1*8(%rip)\n"
    "mov %rdx, simd_out+576+2*8(%rip)\n mov %rbx, simd_out+576+3*8(%rip)\n"
    "mov %rbp, simd_out+576+5*8(%rip)\n mov %rsi, simd_out+576+6*8(%rip)\n"
    "mov %rdi, simd_out+576+7*8(%rip)\n mov %r8, simd_out+576+8*8(%rip)\n"
    "mov %r9, simd_out+576+9*8(%rip)\n mov %r10, simd_out+576+10*8(%rip)\n"
    "mov %r11, simd_out+576+11*8(%rip)\n mov %r12, simd_out+576+12*8(%rip)\n"
    "mov %r13, simd_out+576+13*8(%rip)\n mov %r14, simd_out+576+14*8(%rip)\n"
    "mov %r15, simd_out+576+15*8(%rip)\n"
#define ST(n) "movq %mm" #n ", simd_out+512+" #n "*8(%rip)\n"
    ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
#undef ST
    "stmxcsr simd_out+712(%rip)\n"
    "ret\n"
    /* simd_call(fn): the case may change every register but rsp */
    ".globl simd_call\n"
    "simd_call:\n"
    "push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
    "sub $8, %rsp\n"
    "call *%rdi\n"
    "add $8, %rsp\n"
    "pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
    "emms\n cld\n"
    "ret\n");
#else
__asm__(".text\n"
    ".globl simd_load, simd_store\n"
    "simd_load: jmp *simd_load_fn\n"
    "simd_store: jmp *simd_store_fn\n"
    "simd_load_avx:\n"
#define LD(n) "vmovdqu simd_in+" #n "*32, %ymm" #n "\n"
    LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
#undef LD
    "jmp simd_load_rest\n"
    "simd_load_sse:\n"
#define LD(n) "movdqu simd_in+" #n "*32, %xmm" #n "\n"
    LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
#undef LD
    "simd_load_rest:\n"
#define LD(n) "movq simd_in+512+" #n "*8, %mm" #n "\n"
    LD(0) LD(1) LD(2) LD(3) LD(4) LD(5) LD(6) LD(7)
#undef LD
    "ldmxcsr simd_in+712\n"
    "pushl simd_in+704\n popfl\n"
    "mov simd_in+576+0*8, %eax\n mov simd_in+576+1*8, %ecx\n"
    "mov simd_in+576+2*8, %edx\n mov simd_in+576+3*8, %ebx\n"
    "mov simd_in+576+5*8, %ebp\n mov simd_in+576+6*8, %esi\n"
    "mov simd_in+576+7*8, %edi\n"
    "ret\n"
    "simd_store_avx:\n"
    "pushfl\n popl simd_out+704\n"
#define ST(n) "vmovdqu %ymm" #n ", simd_out+" #n "*32\n"
    ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
#undef ST
    "jmp simd_store_rest\n"
    "simd_store_sse:\n"
    "pushfl\n popl simd_out+704\n"
#define ST(n) "movdqu %xmm" #n ", simd_out+" #n "*32\n"
    ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
#undef ST
    "simd_store_rest:\n"
    "mov %eax, simd_out+576+0*8\n mov %ecx, simd_out+576+1*8\n"
    "mov %edx, simd_out+576+2*8\n mov %ebx, simd_out+576+3*8\n"
    "mov %ebp, simd_out+576+5*8\n mov %esi, simd_out+576+6*8\n"
    "mov %edi, simd_out+576+7*8\n"
#define ST(n) "movq %mm" #n ", simd_out+512+" #n "*8\n"
    ST(0) ST(1) ST(2) ST(3) ST(4) ST(5) ST(6) ST(7)
#undef ST
    "stmxcsr simd_out+712\n"
    "ret\n"
    ".globl simd_call\n"
    "simd_call:\n"
    "push %ebx\n push %ebp\n push %esi\n push %edi\n"
    "mov 20(%esp), %eax\n"
    "sub $12, %esp\n"
    "call *%eax\n"
    "add $12, %esp\n"
    "pop %edi\n pop %esi\n pop %ebp\n pop %ebx\n"
    "emms\n cld\n"
    "ret\n");
#endif
/* clang-format on */
extern char simd_load_avx[], simd_load_sse[], simd_store_avx[], simd_store_sse[];
void simd_call(void (*fn)(void));

/* A register as the hash sees it: the pointers into simd_mem (rbx, and
 * rdi for MASKMOV) as offsets, since the 32 leg's program (simd32) and
 * the native one judging it (simd64x32) place simd_mem differently; the
 * 64x32 leg's upper halves, which the i386 program does not have, left out. */
static const struct simd_case *cur_case;
static uint64_t gpr_hashed(int i, uint64_t v)
{
    if (i == 3 || (i == 7 && (cur_case->flags & FL_RDI_MEM)))
        v -= (uintptr_t)simd_mem;
#if !defined(__x86_64__) || defined(SIMD_MODE_64X32)
    v = (uint32_t)v;
#endif
    return v;
}

/* ------------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Values that meet the corner cases of float and integer conversions. */
static const uint32_t f32_special[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
    0xffc00000, 0x7fa00000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x4f000000,
    0xcf000000, 0x5f000000, 0x3f000000, 0x4b000001, 0x3fc00000, 0x40200000, 0x477fe000,
    0x38800000, 0x33800000,
};
static const uint64_t f64_special[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff4000000000000ull,
    0x0000000000000001ull, 0x800fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
    0x41e0000000000000ull, 0xc1e0000000000000ull, 0x43e0000000000000ull, 0x3fe0000000000000ull,
    0x4330000000000001ull, 0x3ff8000000000000ull, 0x36a0000000000000ull,
};

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = rnd(), v;
        switch (r & 7) {
        case 0: {
            uint32_t a = f32_special[(r >> 8) % (sizeof(f32_special) / 4)];
            uint32_t b = f32_special[(r >> 20) % (sizeof(f32_special) / 4)];
            v = a | (uint64_t)b << 32;
            break;
        }
        case 1:
            v = f64_special[(r >> 8) % (sizeof(f64_special) / 8)];
            break;
        case 2: /* small integers and floats near 1 */
            v = (rnd() & 0x000000ff000000ffull) | ((r >> 8 & 1) ? 0x3f8000003f800000ull : 0);
            break;
        default:
            v = rnd();
        }
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* ------------------------------------------------------------------ */

enum { P_MID, P_MIS1, P_MIS16, P_E32, P_E16, P_E8, P_E4, P_E2, P_E1, P_E64, P_COUNT };
static const char *const place_name[P_COUNT] = { "mid", "mis1", "mis16", "e32", "e16",
                                                 "e8",  "e4",   "e2",    "e1",  "e64" };

static uint8_t *place(int p)
{
    static const int off[P_COUNT] = { 256, 255, 240, 32, 16, 8, 4, 2, 1, 64 };
    return PAGE_END - off[p];
}

struct fault {
    int sig, code;
    long addr; /* si_addr relative to the guard page, or 0 */
    long trapno, err;
    long pc_off; /* the pc relative to the instruction */
    uint64_t hash;
};

static sigjmp_buf jb;
static volatile int in_case;
static struct fault cur_fault;
static uintptr_t cur_insn;
static bool sse_only; /* the YMM upper halves are not part of the state */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#define FNV0 0xcbf29ce484222325ull
#define MEM_WINDOW 512

static uint64_t hash_mem(uint64_t h)
{
    return fnv(h, PAGE_END - MEM_WINDOW, MEM_WINDOW);
}

/* The XMM/YMM registers as the signal frame holds them. */
static uint64_t hash_frame_regs(uint64_t h, ucontext_t *uc)
{
    const uint8_t *fp = (const uint8_t *)uc->uc_mcontext.fpregs;
    if (!fp)
        return fnv(h, "nofp", 4);
#if !defined(__x86_64__)
    fp += 112; /* the FSAVE header, then the FXSAVE image */
#endif
    uint32_t mxcsr;
    memcpy(&mxcsr, fp + 24, 4);
    mxcsr &= ~MXCSR_DE;
    h = fnv(h, &mxcsr, 4);
    for (int i = 0; i < NVEC; i++) {
        if (cur_case->approx_reg == (unsigned)i && (cur_case->flags & FL_APPROX))
            continue;
        h = fnv(h, fp + 160 + 16 * i, 16);
    }
    uint32_t magic1;
    memcpy(&magic1, fp + 464, 4);
    if (magic1 == 0x46505853 && !sse_only) { /* FP_XSTATE_MAGIC1: an XSAVE area */
        uint64_t bv;
        memcpy(&bv, fp + 512, 8);
        static const uint8_t zero[16];
        for (int i = 0; i < NVEC; i++)
            h = fnv(h, (bv & 4) ? fp + 576 + 16 * i : zero, 16);
    }
    return h;
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    if (!in_case) {
        signal(sig, SIG_DFL);
        return;
    }
    in_case = 0;
    struct fault *f = &cur_fault;
    f->sig = sig;
    f->code = si->si_code;
    uintptr_t a = (uintptr_t)si->si_addr;
    f->addr = (a >= (uintptr_t)simd_mem && a < (uintptr_t)simd_mem + sizeof(simd_mem))
                  ? (long)(a - (uintptr_t)PAGE_END)
                  : (long)a;
    if (sig == SIGILL || sig == SIGFPE)
        f->addr = (long)(a - cur_insn);
#if defined(__x86_64__)
    greg_t *g = uc->uc_mcontext.gregs;
    f->trapno = g[REG_TRAPNO];
    f->err = g[REG_ERR];
    f->pc_off = (long)(g[REG_RIP] - cur_insn);
    static const int order[16] = { REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                   REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                   REG_R12, REG_R13, REG_R14, REG_R15 };
    uint64_t h = FNV0;
    for (int i = 0; i < NGPR; i++) {
        if (i == 4)
            continue;
        uint64_t v = gpr_hashed(i, (uint64_t)g[order[i]]);
        h = fnv(h, &v, 8);
    }
    uint64_t fl = (uint64_t)g[REG_EFL] & 0x8d5 & ~(uint64_t)cur_case->undef_flags;
#else
    greg_t *g = uc->uc_mcontext.gregs;
    f->trapno = g[REG_TRAPNO];
    f->err = g[REG_ERR];
    f->pc_off = (long)((uintptr_t)g[REG_EIP] - cur_insn);
    static const int order[8] = { REG_EAX, REG_ECX, REG_EDX, REG_EBX,
                                  REG_ESP, REG_EBP, REG_ESI, REG_EDI };
    uint64_t h = FNV0;
    for (int i = 0; i < NGPR; i++) {
        if (i == 4)
            continue;
        uint64_t v = gpr_hashed(i, (uint32_t)g[order[i]]);
        h = fnv(h, &v, 8);
    }
    uint64_t fl = (uint64_t)(uint32_t)g[REG_EFL] & 0x8d5 & ~(uint64_t)cur_case->undef_flags;
#endif
    h = fnv(h, &fl, 8);
    h = hash_frame_regs(h, uc);
    f->hash = hash_mem(h);
    siglongjmp(jb, 1);
}

/* ------------------------------------------------------------------ */

static void set_state(const struct simd_case *c, int pl, uint64_t seed)
{
    rng_state = seed;
    fill_random((uint8_t *)simd_in.ymm, sizeof(simd_in.ymm));
    for (int i = 0; i < 8; i++)
        simd_in.mm[i] = rnd();
    for (int i = 0; i < 16; i++)
        simd_in.gpr[i] = rnd();
#if !defined(__x86_64__) || defined(SIMD_MODE_64X32)
    for (int i = 0; i < 16; i++)
        simd_in.gpr[i] = (uint32_t)simd_in.gpr[i];
#endif
    uint64_t r = rnd();
    simd_in.flags = 0x202 | (r & 0x8d5);
    /* exceptions masked; rounding, FTZ, DAZ and the sticky flags at random */
    simd_in.mxcsr = 0x1f80 | (uint32_t)(r >> 16 & 0x603f) | (uint32_t)(r >> 32 & 0x8040);
    fill_random(PAGE_END - MEM_WINDOW - 64, MEM_WINDOW + 64);
    uint8_t *addr = place(pl);
    if (c->flags & FL_RIP)
        addr = place(P_MID);
    simd_in.gpr[3] = (uintptr_t)addr; /* rbx */
    if (c->flags & FL_RDI_MEM) {
        simd_in.gpr[7] = (uintptr_t)addr;
        /* Whether a masked-out byte can fault is the vendor's choice (AMD
         * checks the whole operand): near the guard page every byte is
         * stored, the mask register being the one at ModRM.rm. */
        if (pl != P_MID && (c->flags & FL_MMX))
            simd_in.mm[c->idx_reg] = ~0ull;
        else if (pl != P_MID)
            memset(simd_in.ymm[c->idx_reg], 0xff, 16);
    }
    if (c->flags & FL_VSIB) {
        /* small indexes, some negative: the elements stay near the base */
        uint8_t *v = simd_in.ymm[c->idx_reg];
        for (int i = 0; i < 32 / (int)c->idx_size; i++) {
            int64_t x = (int64_t)(rnd() % 24) - 4;
            if (c->idx_size == 4) {
                int32_t x32 = (int32_t)x;
                memcpy(v + 4 * i, &x32, 4);
            } else
                memcpy(v + 8 * i, &x, 8);
        }
    }
}

static uint64_t hash_out(const struct simd_case *c)
{
    uint64_t h = FNV0;
    for (int i = 0; i < NGPR; i++) {
        if (i == 4)
            continue;
        uint64_t v = gpr_hashed(i, simd_out.gpr[i]);
        h = fnv(h, &v, 8);
    }
    uint64_t fl = simd_out.flags & 0x8d5 & ~(uint64_t)c->undef_flags;
    h = fnv(h, &fl, 8);
    uint32_t mx = simd_out.mxcsr & ~MXCSR_DE;
    h = fnv(h, &mx, 4);
    for (int i = 0; i < NVEC; i++) {
        if ((c->flags & FL_APPROX) && c->approx_reg == (unsigned)i)
            continue;
        h = fnv(h, simd_out.ymm[i], 32);
    }
    h = fnv(h, simd_out.mm, sizeof(simd_out.mm));
    return hash_mem(h);
}

static bool run_one(const struct simd_case *c, int pl, uint64_t seed, struct fault *f)
{
    set_state(c, pl, seed);
    memset(&simd_out, 0, sizeof(simd_out));
    memset(&cur_fault, 0, sizeof(cur_fault));
    cur_case = c;
    cur_insn = (uintptr_t)c->fn + 5; /* after "call simd_load" */
    if (sigsetjmp(jb, 1) == 0) {
        in_case = 1;
        simd_call(c->fn);
        in_case = 0;
        __asm__ volatile("emms");
        *f = cur_fault;
        return false;
    }
    __asm__ volatile("emms");
    *f = cur_fault;
    return true;
}

static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, name, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

/* Does the case need a feature that is listed? */
static const char *needs(const struct simd_case *c, const char *skip)
{
    static char buf[64];
    const char *p = c->cpuid;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l < sizeof(buf)) {
            memcpy(buf, p, l);
            buf[l] = 0;
            if (listed(skip, buf))
                return buf;
        }
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

static void print_approx(const struct simd_case *c)
{
    const uint8_t *r = simd_out.ymm[c->approx_reg];
    int n = (c->flags & FL_APPROX_SCALAR) ? 1 : 8;
    printf(" A");
    for (int i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, r + 4 * i, 4);
        printf(" %08x", v);
    }
    if (n == 1) { /* the rest is the other source's, exactly */
        printf(" %016llx", (unsigned long long)fnv(FNV0, r + 4, 28));
    }
}

static int places_for(const struct simd_case *c, int *out)
{
    int n = 0;
    if (!(c->flags & (FL_MEM | FL_RDI_MEM)) || (c->flags & FL_RIP)) {
        out[n++] = P_MID;
        return n;
    }
    if (c->flags & FL_VSIB) {
        out[n++] = P_MID;
        out[n++] = P_E64;
        return n;
    }
    for (int p = P_MID; p <= P_E1; p++)
        out[n++] = p;
    return n;
}

static void run_case(unsigned i, const char *skip)
{
    const struct simd_case *c = &simd_cases[i];
    const char *why = needs(c, skip);
    if (why) {
        printf("%u %s: skip %s\n", i, c->key, why);
        return;
    }
#if defined(SIMD_MODE_64X32) || !defined(__x86_64__)
    if (c->flags & FL_MODE_DEP) {
        printf("%u %s: skip mode\n", i, c->key);
        return;
    }
#endif
    int pls[P_COUNT];
    int np = places_for(c, pls);
    int nseed = np > 1 ? 2 : 4;
    for (int k = 0; k < np; k++)
        for (int s = 0; s < nseed; s++) {
            struct fault f;
            uint64_t seed = (uint64_t)i * 1000003u + (uint64_t)s * 7919u + 17;
            bool faulted = run_one(c, pls[k], seed, &f);
            printf("%u %s %s %d:", i, c->key, place_name[pls[k]], s);
            if (faulted)
                printf(" sig %d code %d addr %ld trap %ld err %ld pc %+ld %016llx", f.sig, f.code,
                       f.addr, f.trapno, f.err, f.pc_off, (unsigned long long)f.hash);
            else {
                printf(" ok %016llx", (unsigned long long)hash_out(c));
                if (c->flags & FL_APPROX)
                    print_approx(c);
            }
            putchar('\n');
        }
}

static void dump(unsigned i, int pl, int s)
{
    const struct simd_case *c = &simd_cases[i];
    struct fault f;
    uint64_t seed = (uint64_t)i * 1000003u + (uint64_t)s * 7919u + 17;
    bool faulted = run_one(c, pl, seed, &f);
    printf("case %u %s (%s) at %s seed %d\n", i, c->key, c->name, place_name[pl], s);
    printf("insn:");
    for (int k = 0; k < 16; k++)
        printf(" %02x", ((uint8_t *)cur_insn)[k]);
    printf("\n");
    if (faulted) {
        printf("signal %d code %d addr %ld trap %ld err %ld pc %+ld\n", f.sig, f.code, f.addr,
               f.trapno, f.err, f.pc_off);
        return;
    }
    for (int r = 0; r < NVEC; r++) {
        printf("ymm%-2d in ", r);
        for (int b = 31; b >= 0; b--)
            printf("%02x%s", simd_in.ymm[r][b], b % 8 == 0 && b ? "_" : "");
        printf("\n      out ");
        for (int b = 31; b >= 0; b--)
            printf("%02x%s", simd_out.ymm[r][b], b % 8 == 0 && b ? "_" : "");
        printf("\n");
    }
    for (int r = 0; r < NGPR; r++)
        printf("gpr%d %016llx -> %016llx\n", r, (unsigned long long)simd_in.gpr[r],
               (unsigned long long)simd_out.gpr[r]);
    for (int r = 0; r < 8; r++)
        printf("mm%d %016llx -> %016llx\n", r, (unsigned long long)simd_in.mm[r],
               (unsigned long long)simd_out.mm[r]);
    printf("flags %llx -> %llx, mxcsr %x -> %x\n", (unsigned long long)simd_in.flags,
           (unsigned long long)simd_out.flags, simd_in.mxcsr, simd_out.mxcsr);
    printf("mem (page end - 64 ..):");
    for (int b = -64; b < 0; b++)
        printf("%s%02x", b % 16 == 0 ? "\n  " : " ", PAGE_END[b]);
    printf("\n");
}

/* The features the decoder names (X86_FEAT_*), plus VAES and VPCLMULQDQ. */
static void features(void)
{
    unsigned a, b, c, d, max;
    __cpuid(0, max, b, c, d);
    __cpuid(1, a, b, c, d);
    unsigned ecx1 = c, edx1 = d;
    unsigned ebx7 = 0, ecx7 = 0;
    if (max >= 7)
        __cpuid_count(7, 0, a, ebx7, ecx7, d);
    __cpuid(0x80000000, max, b, c, d);
    unsigned ecx81 = 0, edx81 = 0;
    if (max >= 0x80000001)
        __cpuid(0x80000001, a, b, ecx81, edx81);
    bool avx = false;
    if ((ecx1 >> 27 & 1) && (ecx1 >> 28 & 1)) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        avx = (lo & 6) == 6;
    }
    struct {
        const char *name;
        bool have;
    } f[] = {
        { "SSE", edx1 >> 25 & 1 },        { "SSE2", edx1 >> 26 & 1 },
        { "SSE3", ecx1 & 1 },             { "SSSE3", ecx1 >> 9 & 1 },
        { "SSE41", ecx1 >> 19 & 1 },      { "SSE42", ecx1 >> 20 & 1 },
        { "PCLMULQDQ", ecx1 >> 1 & 1 },   { "AES", ecx1 >> 25 & 1 },
        { "MOVBE", ecx1 >> 22 & 1 },      { "AVX", avx },
        { "FMA", avx && (ecx1 >> 12 & 1) }, { "F16C", avx && (ecx1 >> 29 & 1) },
        { "AVX2", avx && (ebx7 >> 5 & 1) }, { "BMI1", ebx7 >> 3 & 1 },
        { "BMI2", ebx7 >> 8 & 1 },        { "ADX", ebx7 >> 19 & 1 },
        { "VAES", avx && (ecx7 >> 9 & 1) }, { "VPCLMULQDQ", avx && (ecx7 >> 10 & 1) },
        { "SSE4A", ecx81 >> 6 & 1 },      { "3DNOW", edx81 >> 31 & 1 },
    };
    const char *sep = "";
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        if (f[i].have) {
            printf("%s%s", sep, f[i].name);
            sep = ",";
        }
    printf("\n");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    if (argc >= 2 && !strcmp(argv[1], "features")) {
        features();
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "count")) {
        printf("%u\n", simd_ncases);
        return 0;
    }
    const char *skip = "";
    long only = -1;
    for (int i = 2; i < argc; i++) {
        if (!strncmp(argv[i], "--skip=", 7))
            skip = argv[i] + 7;
        else if (!strcmp(argv[i], "--sse-only"))
            sse_only = true;
        else if (!strncmp(argv[i], "--only=", 7))
            only = strtol(argv[i] + 7, NULL, 0);
    }
    simd_load_fn = sse_only ? simd_load_sse : simd_load_avx;
    simd_store_fn = sse_only ? simd_store_sse : simd_store_avx;
    if (mprotect(PAGE_END, PAGE, PROT_NONE)) {
        perror("mprotect");
        return 2;
    }
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    if (argc >= 5 && !strcmp(argv[1], "dump")) {
        int pl = 0;
        for (int p = 0; p < P_COUNT; p++)
            if (!strcmp(argv[3], place_name[p]))
                pl = p;
        dump((unsigned)atoi(argv[2]), pl, atoi(argv[4]));
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "run")) {
        fprintf(stderr, "usage: %s features|count|run [--skip=F,..] [--sse-only] [--only=N]|"
                        "dump N PLACE SEED\n", argv[0]);
        return 2;
    }
    for (unsigned i = 0; i < simd_ncases; i++)
        if (only < 0 || (unsigned long)only == i)
            run_case(i, skip);
    return 0;
}
