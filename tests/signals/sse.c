/* SSE memory operands and 16-byte alignment, against the kernel.
 *
 *   sse faults    every 16-byte-aligned SSE form on a misaligned address
 *                 (and xsave's 64-byte and cmpxchg16b's 16-byte rules):
 *                 each raises #GP(0), which Linux delivers as SIGSEGV,
 *                 si_code SI_KERNEL, si_addr 0, trap 13, error code 0, at
 *                 the instruction; the handler prints that and skips it
 *   sse faults-plain  the same through a handler without SA_SIGINFO (the
 *                 sigcontext's trapno, err and cr2)
 *   sse runs      the forms that take any address (movups, movdqu, lddqu,
 *                 the 8-, 4- and 2-byte operands, pcmpistri), misaligned,
 *                 and the aligned forms on aligned addresses: no signal;
 *                 prints what each loaded or stored
 *   sse fault-none  one misaligned movaps and no handler: the default
 *                 action, death by SIGSEGV
 *
 * The SSE4.1/4.2 cases run only where cpuid says the CPU has them, so the
 * same binary prints the same natively and under seccomp-emu on any host
 * that agrees with itself (cpuid's exactness is tests/signals/cpuid.c's). */
#include "sigtest.h"

#include <cpuid.h>
#include <stdlib.h>

/* 64 bytes, 16-aligned, followed by a guard of mapped bytes: buf + 1 and
 * buf + 8 are misaligned addresses the whole access stays inside. */
static unsigned char buf[128] __attribute__((aligned(64)));
static unsigned char fxarea[1024] __attribute__((aligned(64)));
void *sse_ptr;

/* Each case: NAME loads sse_ptr into the accumulator, NAME_at is the one
 * instruction that is tested, NAME_after follows it; it returns with the
 * result (if any) in %xmm0, which the caller stores with movups. */
#if defined(__x86_64__)
#define AX "%rax"
#define CX "%rcx"
#define LOAD_PTR "mov sse_ptr(%rip), %rax\n"
#else
#define AX "%eax"
#define CX "%ecx"
#define LOAD_PTR "mov sse_ptr, %eax\n"
#endif
#define STUB(name, insn) \
    ".globl " #name ", " #name "_at, " #name "_after\n" #name ":\n" LOAD_PTR #name "_at: " insn \
    "\n" #name "_after: ret\n"
/* the same with set-up before the tested instruction */
#define STUB2(name, pre, insn) \
    ".globl " #name ", " #name "_at, " #name "_after\n" #name ":\n" LOAD_PTR pre "\n" #name \
    "_at: " insn "\n" #name "_after: ret\n"
#define DECL(name) extern char name[], name##_at[], name##_after[];

/* clang-format off */
__asm__(".text\n"
        STUB(c_movaps_ld, "movaps (" AX "), %xmm0")
        STUB(c_movaps_st, "movaps %xmm0, (" AX ")")
        STUB(c_movapd_ld, "movapd (" AX "), %xmm0")
        STUB(c_movapd_st, "movapd %xmm0, (" AX ")")
        STUB(c_movdqa_ld, "movdqa (" AX "), %xmm0")
        STUB(c_movdqa_st, "movdqa %xmm0, (" AX ")")
        STUB(c_movntps, "movntps %xmm0, (" AX ")")
        STUB(c_movntpd, "movntpd %xmm0, (" AX ")")
        STUB(c_movntdq, "movntdq %xmm0, (" AX ")")
        STUB(c_paddd, "paddd (" AX "), %xmm0")
        STUB(c_pxor, "pxor (" AX "), %xmm0")
        STUB(c_addps, "addps (" AX "), %xmm0")
        STUB(c_mulpd, "mulpd (" AX "), %xmm0")
        STUB(c_andps, "andps (" AX "), %xmm0")
        STUB(c_cmpps, "cmpps $0, (" AX "), %xmm0")
        STUB(c_unpcklps, "unpcklps (" AX "), %xmm0")
        STUB(c_punpcklbw, "punpcklbw (" AX "), %xmm0")
        STUB(c_pshufd, "pshufd $0x1b, (" AX "), %xmm0")
        STUB(c_shufps, "shufps $0x1b, (" AX "), %xmm0")
        STUB(c_cvtdq2ps, "cvtdq2ps (" AX "), %xmm0")
        STUB(c_cvtpd2ps, "cvtpd2ps (" AX "), %xmm0")
        STUB(c_cvtpd2pi, "cvtpd2pi (" AX "), %mm0")
        STUB(c_movsldup, "movsldup (" AX "), %xmm0")
        STUB(c_haddps, "haddps (" AX "), %xmm0")
        STUB(c_pshufb, "pshufb (" AX "), %xmm0")
        STUB(c_palignr, "palignr $3, (" AX "), %xmm0")
        STUB(c_pmulld, "pmulld (" AX "), %xmm0")
        STUB(c_movntdqa, "movntdqa (" AX "), %xmm0")
        STUB(c_roundps, "roundps $0, (" AX "), %xmm0")
        STUB(c_fxsave, "fxsave (" AX ")")
        STUB(c_fxrstor, "fxrstor (" AX ")")
        /* xsave: 64-byte aligned; the x87 and SSE state only */
        STUB2(c_xsave, "mov " AX ", " CX "\n mov $3, %eax\n xor %edx, %edx", "xsave (" CX ")")
#if defined(__x86_64__)
        STUB(c_cmpxchg16b, "cmpxchg16b (" AX ")")
#endif
        /* forms that take any address */
        STUB(c_movups_ld, "movups (" AX "), %xmm0")
        STUB(c_movups_st, "movups %xmm0, (" AX ")")
        STUB(c_movupd_ld, "movupd (" AX "), %xmm0")
        STUB(c_movdqu_ld, "movdqu (" AX "), %xmm0")
        STUB(c_movdqu_st, "movdqu %xmm0, (" AX ")")
        STUB(c_lddqu, "lddqu (" AX "), %xmm0")
        STUB(c_movq, "movq (" AX "), %xmm0")
        STUB(c_movsd, "movsd (" AX "), %xmm0")
        STUB(c_movss, "movss (" AX "), %xmm0")
        STUB(c_movlps, "movlps (" AX "), %xmm0")
        STUB(c_movhps, "movhps (" AX "), %xmm0")
        STUB(c_movddup, "movddup (" AX "), %xmm0")
        STUB(c_addss, "addss (" AX "), %xmm0")
        STUB(c_addsd, "addsd (" AX "), %xmm0")
        STUB(c_comisd, "comisd (" AX "), %xmm0")
        STUB(c_cvtps2pd, "cvtps2pd (" AX "), %xmm0")
        STUB(c_cvtdq2pd, "cvtdq2pd (" AX "), %xmm0")
        STUB(c_cvtps2pi, "cvtps2pi (" AX "), %mm0")
        STUB(c_paddd_mmx, "paddd (" AX "), %mm0")
        STUB(c_pmovzxbw, "pmovzxbw (" AX "), %xmm0")
        STUB(c_roundsd, "roundsd $0, (" AX "), %xmm0")
        STUB(c_pcmpistri, "pcmpistri $0, (" AX "), %xmm0\n movd %ecx, %xmm0"));
/* clang-format on */

DECL(c_movaps_ld) DECL(c_movaps_st) DECL(c_movapd_ld) DECL(c_movapd_st) DECL(c_movdqa_ld)
DECL(c_movdqa_st) DECL(c_movntps) DECL(c_movntpd) DECL(c_movntdq) DECL(c_paddd) DECL(c_pxor)
DECL(c_addps) DECL(c_mulpd) DECL(c_andps) DECL(c_cmpps) DECL(c_unpcklps) DECL(c_punpcklbw)
DECL(c_pshufd) DECL(c_shufps) DECL(c_cvtdq2ps) DECL(c_cvtpd2ps) DECL(c_cvtpd2pi)
DECL(c_movsldup) DECL(c_haddps) DECL(c_pshufb) DECL(c_palignr) DECL(c_pmulld)
DECL(c_movntdqa) DECL(c_roundps) DECL(c_fxsave) DECL(c_fxrstor) DECL(c_movups_ld)
DECL(c_movups_st) DECL(c_movupd_ld) DECL(c_movdqu_ld) DECL(c_movdqu_st) DECL(c_lddqu)
DECL(c_movq) DECL(c_movsd) DECL(c_movss) DECL(c_movlps) DECL(c_movhps) DECL(c_movddup)
DECL(c_addss) DECL(c_addsd) DECL(c_comisd) DECL(c_cvtps2pd) DECL(c_cvtdq2pd) DECL(c_cvtps2pi)
DECL(c_paddd_mmx) DECL(c_pmovzxbw) DECL(c_roundsd) DECL(c_pcmpistri) DECL(c_xsave)
#if defined(__x86_64__)
DECL(c_cmpxchg16b)
#endif

enum need { BASE, SSE3, SSSE3, SSE41, SSE42, XSAVE };

struct sse_case {
    const char *name;
    char *fn, *at, *after;
    enum need need;
    int misalign; /* bytes past a 16-aligned address; 0: aligned */
    int fx;       /* the operand is the 512-byte fxsave area; 2: unmapped */
};

#define C(n, need, mis) { #n, c_##n, c_##n##_at, c_##n##_after, need, mis, 0 }
#define FX(n, mis) { #n, c_##n, c_##n##_at, c_##n##_after, BASE, mis, 1 }

/* Each raises #GP(0) here. */
static const struct sse_case faulting[] = {
    C(movaps_ld, BASE, 8), C(movaps_st, BASE, 1), C(movapd_ld, BASE, 4),
    C(movapd_st, BASE, 8), C(movdqa_ld, BASE, 1), C(movdqa_st, BASE, 8),
    C(movntps, BASE, 8), C(movntpd, BASE, 2), C(movntdq, BASE, 8),
    C(paddd, BASE, 8), C(pxor, BASE, 1), C(addps, BASE, 4),
    C(mulpd, BASE, 8), C(andps, BASE, 8), C(cmpps, BASE, 8),
    C(unpcklps, BASE, 8), C(punpcklbw, BASE, 8), C(pshufd, BASE, 8),
    C(shufps, BASE, 8), C(cvtdq2ps, BASE, 8), C(cvtpd2ps, BASE, 8),
    C(cvtpd2pi, BASE, 8), C(movsldup, SSE3, 8), C(haddps, SSE3, 8),
    C(pshufb, SSSE3, 8), C(palignr, SSSE3, 8), C(pmulld, SSE41, 8),
    C(movntdqa, SSE41, 8), C(roundps, SSE41, 8), FX(fxsave, 8),
    FX(fxrstor, 8),
    { "xsave", c_xsave, c_xsave_at, c_xsave_after, XSAVE, 16, 1 },
    /* misaligned and unmapped: #GP, not #PF (the alignment check first) */
    { "movaps_ld-unmapped", c_movaps_ld, c_movaps_ld_at, c_movaps_ld_after, BASE, 8, 2 },
    { "movdqa_st-unmapped", c_movdqa_st, c_movdqa_st_at, c_movdqa_st_after, BASE, 8, 2 },
#if defined(__x86_64__)
    C(cmpxchg16b, BASE, 8),
#endif
};

/* Each runs here. */
static const struct sse_case running[] = {
    C(movups_ld, BASE, 1), C(movups_st, BASE, 8), C(movupd_ld, BASE, 8),
    C(movdqu_ld, BASE, 3), C(movdqu_st, BASE, 8), C(lddqu, SSE3, 8),
    C(movq, BASE, 1), C(movsd, BASE, 8), C(movss, BASE, 2),
    C(movlps, BASE, 8), C(movhps, BASE, 8), C(movddup, SSE3, 8),
    C(addss, BASE, 1), C(addsd, BASE, 8), C(comisd, BASE, 8),
    C(cvtps2pd, BASE, 8), C(cvtdq2pd, BASE, 8), C(cvtps2pi, BASE, 8),
    C(paddd_mmx, BASE, 1), C(pmovzxbw, SSE41, 8), C(roundsd, SSE41, 8),
    C(pcmpistri, SSE42, 8),
    /* the aligned forms, aligned */
    C(movaps_ld, BASE, 0), C(movaps_st, BASE, 0), C(movdqa_ld, BASE, 0),
    C(movdqa_st, BASE, 0), C(movntdq, BASE, 0), C(paddd, BASE, 0),
    C(addps, BASE, 0), C(pshufd, BASE, 0), C(cvtpd2pi, BASE, 0),
    C(pshufb, SSSE3, 0), C(movntdqa, SSE41, 0), C(roundps, SSE41, 0),
    FX(fxsave, 0), FX(fxrstor, 0),
    { "xsave", c_xsave, c_xsave_at, c_xsave_after, XSAVE, 0, 1 },
#if defined(__x86_64__)
    C(cmpxchg16b, BASE, 0),
#endif
};

static const struct sse_case *cur;

static int has(enum need need)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return need == BASE;
    switch (need) {
    case BASE:
        return 1;
    case SSE3:
        return !!(c & bit_SSE3);
    case SSSE3:
        return !!(c & bit_SSSE3);
    case SSE41:
        return !!(c & bit_SSE4_1);
    case SSE42:
        return !!(c & bit_SSE4_2);
    case XSAVE:
        return !!(c & bit_OSXSAVE);
    }
    return 0;
}

static const char *sym(uintptr_t a)
{
    if (a == 0)
        return "0";
    if (a == (uintptr_t)sse_ptr)
        return "operand";
    if (a == (uintptr_t)cur->at)
        return "at";
    if (a == (uintptr_t)cur->after)
        return "after";
    return "other";
}

static void report(int sig, int code, uintptr_t addr, long trapno, long err, uintptr_t ip)
{
    say("%s +%d: signal %d code %#x addr %s trapno %ld err %#lx ip %s\n", cur->name,
        cur->misalign, sig, (unsigned)code, sym(addr), trapno, err, sym(ip));
}

/* A fault anywhere but at the case's instruction ends the run: resuming
 * at the case's end from elsewhere would loop or run on at random. */
static void outside(int sig, uintptr_t ip)
{
    if (!cur || ip != (uintptr_t)cur->at) {
        say("signal %d outside a case's instruction: the run ends here\n", sig);
        sys_exit(3);
    }
}

static void on_info(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    outside(sig, (uintptr_t)g[REG_PC]);
    report(sig, si->si_code, (uintptr_t)si->si_addr, (long)g[REG_TRAPNO], (long)g[REG_ERR],
           (uintptr_t)g[REG_PC]);
    g[REG_PC] = (greg_t)cur->after;
}

#if defined(__x86_64__)
static void on_plain_fault(int sig)
{
    volatile ucontext_t *uc = (volatile ucontext_t *)((char *)__builtin_frame_address(0) + 16);
    /* volatile: GCC takes stores above the frame for dead ones */
    volatile greg_t *g = uc->uc_mcontext.gregs;
    outside(sig, (uintptr_t)g[REG_PC]);
    report(sig, -1, (uintptr_t)g[REG_CR2], (long)g[REG_TRAPNO], (long)g[REG_ERR],
           (uintptr_t)g[REG_PC]);
    g[REG_PC] = (greg_t)cur->after;
}
#else
static void on_plain_fault(int sig)
{
    volatile struct sigcontext *sc =
        (volatile struct sigcontext *)((char *)__builtin_frame_address(0) + 12);
    outside(sig, sc->eip);
    report(sig, -1, sc->cr2, (long)sc->trapno, (long)sc->err, sc->eip);
    sc->eip = (unsigned long)cur->after;
}
#endif

static void fill(int misalign)
{
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    /* A valid fxsave image for fxrstor (this CPU's MXCSR mask and control
     * words), with known x87 and xmm registers (offsets 32 to 416). */
    static unsigned char image[512] __attribute__((aligned(16)));
    __asm__ volatile("fxsave %0" : "=m"(image));
    for (unsigned i = 32; i < 416; i++)
        image[i] = (unsigned char)(i * 13 + 1);
    memset(fxarea, 0, sizeof(fxarea));
    memcpy(fxarea + misalign, image, sizeof(image));
}

/* xmm0 and mm0 start from known values, so what a case computes can be
 * printed and compared. */
static const unsigned char seed[16] __attribute__((aligned(16))) = {
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void run(const struct sse_case *c)
{
    cur = c;
    fill(c->fx == 1 ? c->misalign : 0);
    /* below mmap_min_addr: never mapped */
    sse_ptr = (c->fx == 2 ? (unsigned char *)0x1000 : c->fx ? fxarea : buf) + c->misalign;
    unsigned char res[16], mm[8];
    __asm__ volatile("movdqa %0, %%xmm0\n movq %1, %%mm0" ::"m"(seed), "m"(*(const uint64_t *)seed)
                     : "xmm0", "mm0");
    ((void (*)(void))c->fn)();
    __asm__ volatile("movups %%xmm0, %0\n movq %%mm0, %1\n emms"
                     : "=m"(res), "=m"(mm)
                     :
                     : "memory");
    unsigned long sum = 0;
    for (unsigned i = 0; i < sizeof(buf); i++)
        sum = sum * 31 + buf[i];
    say("%s +%d: xmm0", c->name, c->misalign);
    for (int i = 0; i < 16; i++)
        say(" %02x", res[i]);
    say(" mm0");
    for (int i = 0; i < 8; i++)
        say(" %02x", mm[i]);
    say(" buf %#lx\n", sum & 0xffffffffUL);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    const struct sse_case *list = faulting;
    size_t n = sizeof(faulting) / sizeof(faulting[0]);
    CASE("faults") on(SIGSEGV, on_info, 0);
    else CASE("faults-plain") on_plain(SIGSEGV, on_plain_fault, 0);
    else CASE("runs")
    {
        list = running;
        n = sizeof(running) / sizeof(running[0]);
    }
    else CASE("fault-none") n = 1;
    else return 2;
    for (size_t i = 0; i < n; i++) {
        if (has(list[i].need))
            run(&list[i]);
        else
            say("%s: not in this CPU\n", list[i].name);
    }
    say("done\n");
    return 0;
}
