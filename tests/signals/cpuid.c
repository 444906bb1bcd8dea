/* cpuid tells the truth: every feature bit it reports runs.
 *
 *   cpuid advertised  for each known bit of leaves 1, 7, 0xd and
 *                     0x80000001 that is set, run one instruction of that
 *                     feature; a SIGILL (or any fault) is a lie.  Then
 *                     glibc's string functions, which pick their variant
 *                     from cpuid (ifunc), on buffers large enough to take
 *                     their vector paths.  Holds on any real CPU, so the
 *                     native run checks the probes themselves.
 *   cpuid engine      as advertised, and the features seccomp-emu's engine
 *                     does not implement (AVX, AVX2, FMA, F16C, AVX-512,
 *                     SHA, RDSEED, VAES, XOP, FMA4, TBM; MONITOR and SVM,
 *                     which no user program can run; YMM and wider XSAVE
 *                     state) must be off.  Only under seccomp-emu.
 *
 * Both: where cpuid reports no AVX, VEX-encoded SSE instructions must be
 * SIGILL.
 *
 * Prints one line per bit that is set; exits 1 on any lie. */
#include "sigtest.h"

#include <cpuid.h>
#include <setjmp.h>
#include <stdlib.h>

static sigjmp_buf probe_env;
static volatile int probe_sig;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    probe_sig = sig;
    siglongjmp(probe_env, 1);
}

static unsigned char area[4096] __attribute__((aligned(64)));
static unsigned char pad[64] __attribute__((aligned(16)));

/* clang-format off */
static void p_fpu(void) { __asm__ volatile("fld1\n fstp %%st(0)" ::: "memory"); }
static void p_tsc(void) { unsigned a, d; __asm__ volatile("rdtsc" : "=a"(a), "=d"(d)); }
static void p_cx8(void) { __asm__ volatile("xor %%eax, %%eax\n xor %%edx, %%edx\n cmpxchg8b %0" : "+m"(*(uint64_t *)pad) :: "eax", "edx", "ebx", "ecx"); }
static void p_cmov(void) { int r = 0; __asm__ volatile("cmp %0, %0\n cmove %0, %0" : "+r"(r)); }
static void p_clflush(void) { __asm__ volatile("clflush %0" : "+m"(pad[0])); }
static void p_mmx(void) { __asm__ volatile("pxor %%mm0, %%mm0\n paddb %%mm0, %%mm0\n emms" ::: "mm0"); }
static void p_fxsr(void) { __asm__ volatile("fxsave %0" : "=m"(*(unsigned char(*)[512])area)); }
static void p_sse(void) { __asm__ volatile("xorps %%xmm0, %%xmm0\n addps %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_sse2(void) { __asm__ volatile("pxor %%xmm0, %%xmm0\n paddq %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_sse3(void) { __asm__ volatile("haddps %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_pclmul(void) { __asm__ volatile("pclmulqdq $0, %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_ssse3(void) { __asm__ volatile("pshufb %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_fma(void) { __asm__ volatile("vfmadd132ps %%xmm0, %%xmm0, %%xmm0" ::: "xmm0"); }
#if defined(__x86_64__)
static void p_cx16(void) { __asm__ volatile("xor %%eax, %%eax\n xor %%edx, %%edx\n cmpxchg16b %0" : "+m"(*(unsigned char(*)[16])pad) :: "rax", "rdx", "rbx", "rcx"); }
static void p_fsgsbase(void) { unsigned long v; __asm__ volatile("rdfsbase %0" : "=r"(v)); }
static void p_lahf(void) { __asm__ volatile("lahf" ::: "eax"); }
#define P64(p) p
#else
/* cmpxchg16b, rdfsbase and the 64-bit lahf are 64-bit-mode instructions */
#define P64(p) NULL
#endif
static void p_sse41(void) { __asm__ volatile("pmulld %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_sse42(void) { unsigned r = 0; __asm__ volatile("crc32b %b1, %0\n pcmpistri $0, %%xmm0, %%xmm0" : "+r"(r) : "r"(1) : "ecx", "xmm0", "cc"); }
static void p_movbe(void) { unsigned r; __asm__ volatile("movbe %1, %0" : "=r"(r) : "m"(*(unsigned *)pad)); }
static void p_popcnt(void) { unsigned r; __asm__ volatile("popcnt %1, %0" : "=r"(r) : "r"(7u) : "cc"); }
static void p_aes(void) { __asm__ volatile("aesenc %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_osxsave(void) { unsigned a, d; __asm__ volatile("xgetbv\n xsave %2" : "=a"(a), "=d"(d), "+m"(area) : "c"(0)); }
static void p_avx(void) { __asm__ volatile("vaddps %%ymm0, %%ymm0, %%ymm0\n vzeroupper" ::: "xmm0"); }
static void p_f16c(void) { __asm__ volatile("vcvtph2ps %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_rdrand(void) { unsigned r; __asm__ volatile("rdrand %0" : "=r"(r) :: "cc"); }
static void p_bmi1(void) { unsigned r; __asm__ volatile("andn %1, %1, %0" : "=r"(r) : "r"(5u) : "cc"); }
static void p_avx2(void) { __asm__ volatile("vpaddd %%ymm0, %%ymm0, %%ymm0\n vzeroupper" ::: "xmm0"); }
static void p_bmi2(void) { unsigned r; __asm__ volatile("pdep %1, %1, %0" : "=r"(r) : "r"(5u)); }
static void p_erms(void) { unsigned char *d = area, *s = area + 1024; unsigned long n = 64; __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) :: "memory"); }
static void p_rdseed(void) { unsigned r; __asm__ volatile("rdseed %0" : "=r"(r) :: "cc"); }
static void p_adx(void) { unsigned r = 1; __asm__ volatile("adcx %1, %0" : "+r"(r) : "r"(2u) : "cc"); }
static void p_clflushopt(void) { __asm__ volatile("clflushopt %0" : "+m"(pad[0])); }
static void p_clwb(void) { __asm__ volatile("clwb %0" : "+m"(pad[0])); }
static void p_avx512f(void) { __asm__ volatile("vpaddd %%zmm0, %%zmm0, %%zmm0\n vzeroupper" ::: "xmm0"); }
static void p_sha(void) { __asm__ volatile("sha1nexte %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_vaes(void) { __asm__ volatile("vaesenc %%ymm0, %%ymm0, %%ymm0\n vzeroupper" ::: "xmm0"); }
static void p_vpclmul(void) { __asm__ volatile("vpclmulqdq $0, %%ymm0, %%ymm0, %%ymm0\n vzeroupper" ::: "xmm0"); }
static void p_rdpid(void) { unsigned long r; __asm__ volatile("rdpid %0" : "=r"(r)); }
static void p_lzcnt(void) { unsigned r; __asm__ volatile("lzcnt %1, %0" : "=r"(r) : "r"(7u) : "cc"); }
static void p_sse4a(void) { __asm__ volatile("extrq $8, $0, %%xmm0" ::: "xmm0"); }
static void p_prefetchw(void) { __asm__ volatile("prefetchw %0" :: "m"(pad[0])); }
static void p_xop(void) { __asm__ volatile("vprotd $1, %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_fma4(void) { __asm__ volatile("vfmaddps %%xmm0, %%xmm0, %%xmm0, %%xmm0" ::: "xmm0"); }
static void p_tbm(void) { unsigned r; __asm__ volatile("blcfill %1, %0" : "=r"(r) : "r"(5u) : "cc"); }
static void p_mmxext(void) { __asm__ volatile("pxor %%mm0, %%mm0\n pmaxsw %%mm0, %%mm0\n emms" ::: "mm0"); }
static void p_rdtscp(void) { unsigned a, c, d; __asm__ volatile("rdtscp" : "=a"(a), "=c"(c), "=d"(d)); }
static void p_3dnow(void) { __asm__ volatile("pxor %%mm0, %%mm0\n pfadd %%mm0, %%mm0\n femms" ::: "mm0"); }
static void p_3dnowext(void) { __asm__ volatile("pxor %%mm0, %%mm0\n pswapd %%mm0, %%mm0\n femms" ::: "mm0"); }
/* VEX-encoded SSE (AVX's 128-bit forms), one from each opcode map */
static void p_vex_0f(void) { __asm__ volatile("vaddps %%xmm1, %%xmm2, %%xmm0" ::: "xmm0"); }
static void p_vex_0f38(void) { __asm__ volatile("vpshufb %%xmm1, %%xmm2, %%xmm0" ::: "xmm0"); }
static void p_vex_0f3a(void) { __asm__ volatile("vpalignr $3, %%xmm1, %%xmm2, %%xmm0" ::: "xmm0"); }
/* clang-format on */

enum reg { EAX, EBX, ECX, EDX };

struct feature {
    const char *name;
    unsigned leaf, subleaf;
    enum reg reg;
    int bit;
    void (*probe)(void); /* NULL: a system feature, nothing a user program runs */
    int engine_off;      /* the engine does not run it: must be off under seccomp-emu */
};

static const struct feature features[] = {
    { "fpu", 1, 0, EDX, 0, p_fpu, 0 },
    { "tsc", 1, 0, EDX, 4, p_tsc, 0 },
    { "cx8", 1, 0, EDX, 8, p_cx8, 0 },
    { "cmov", 1, 0, EDX, 15, p_cmov, 0 },
    { "clflush", 1, 0, EDX, 19, p_clflush, 0 },
    { "mmx", 1, 0, EDX, 23, p_mmx, 0 },
    { "fxsr", 1, 0, EDX, 24, p_fxsr, 0 },
    { "sse", 1, 0, EDX, 25, p_sse, 0 },
    { "sse2", 1, 0, EDX, 26, p_sse2, 0 },
    { "sse3", 1, 0, ECX, 0, p_sse3, 0 },
    { "pclmulqdq", 1, 0, ECX, 1, p_pclmul, 0 },
    /* monitor is CPL 0 only (no ring-3 MWAIT under Linux): a CPU may have
     * it, but seccomp-emu's engine runs user code only */
    { "monitor", 1, 0, ECX, 3, NULL, 1 },
    { "ssse3", 1, 0, ECX, 9, p_ssse3, 0 },
    { "fma", 1, 0, ECX, 12, p_fma, 1 },
    { "cx16", 1, 0, ECX, 13, P64(p_cx16), 0 },
    { "sse4_1", 1, 0, ECX, 19, p_sse41, 0 },
    { "sse4_2", 1, 0, ECX, 20, p_sse42, 0 },
    { "movbe", 1, 0, ECX, 22, p_movbe, 0 },
    { "popcnt", 1, 0, ECX, 23, p_popcnt, 0 },
    { "aes", 1, 0, ECX, 25, p_aes, 0 },
    { "xsave", 1, 0, ECX, 26, NULL, 0 }, /* runs with osxsave, probed there */
    { "osxsave", 1, 0, ECX, 27, p_osxsave, 0 },
    { "avx", 1, 0, ECX, 28, p_avx, 1 },
    { "f16c", 1, 0, ECX, 29, p_f16c, 1 },
    { "rdrand", 1, 0, ECX, 30, p_rdrand, 1 },
    { "fsgsbase", 7, 0, EBX, 0, P64(p_fsgsbase), 0 },
    { "bmi1", 7, 0, EBX, 3, p_bmi1, 0 },
    { "avx2", 7, 0, EBX, 5, p_avx2, 1 },
    { "bmi2", 7, 0, EBX, 8, p_bmi2, 0 },
    { "erms", 7, 0, EBX, 9, p_erms, 0 },
    { "avx512f", 7, 0, EBX, 16, p_avx512f, 1 },
    { "rdseed", 7, 0, EBX, 18, p_rdseed, 1 },
    { "adx", 7, 0, EBX, 19, p_adx, 0 },
    { "clflushopt", 7, 0, EBX, 23, p_clflushopt, 0 },
    { "clwb", 7, 0, EBX, 24, p_clwb, 0 },
    { "sha_ni", 7, 0, EBX, 29, p_sha, 1 },
    { "vaes", 7, 0, ECX, 9, p_vaes, 1 },
    { "vpclmulqdq", 7, 0, ECX, 10, p_vpclmul, 1 },
    { "rdpid", 7, 0, ECX, 22, p_rdpid, 0 },
    { "lahf_lm", 0x80000001, 0, ECX, 0, P64(p_lahf), 0 },
    /* SVM needs EFER.SVME, set by the kernel (KVM) only: vmmcall is #UD
     * in a user program whatever the bit says */
    { "svm", 0x80000001, 0, ECX, 2, NULL, 1 },
    { "abm", 0x80000001, 0, ECX, 5, p_lzcnt, 0 },
    { "sse4a", 0x80000001, 0, ECX, 6, p_sse4a, 0 },
    { "3dnowprefetch", 0x80000001, 0, ECX, 8, p_prefetchw, 0 },
    { "xop", 0x80000001, 0, ECX, 11, p_xop, 1 },
    { "fma4", 0x80000001, 0, ECX, 16, p_fma4, 1 },
    { "tbm", 0x80000001, 0, ECX, 21, p_tbm, 1 },
    { "mmxext", 0x80000001, 0, EDX, 22, p_mmxext, 0 },
    { "rdtscp", 0x80000001, 0, EDX, 27, p_rdtscp, 0 },
    { "3dnowext", 0x80000001, 0, EDX, 30, p_3dnowext, 0 },
    { "3dnow", 0x80000001, 0, EDX, 31, p_3dnow, 0 },
    /* XSAVE state components the CPU reports */
    { "xstate-ymm", 0xd, 0, EAX, 2, NULL, 1 },
    { "xstate-avx512-opmask", 0xd, 0, EAX, 5, NULL, 1 },
    { "xstate-avx512-zmm-hi256", 0xd, 0, EAX, 6, NULL, 1 },
    { "xstate-avx512-hi16-zmm", 0xd, 0, EAX, 7, NULL, 1 },
};

static int has_leaf(unsigned leaf)
{
    unsigned a, b, c, d;
    __cpuid(leaf & 0x80000000u, a, b, c, d);
    return a >= leaf;
}

static int bit_set(const struct feature *f)
{
    unsigned r[4] = { 0 };
    if (!has_leaf(f->leaf))
        return 0;
    __cpuid_count(f->leaf, f->subleaf, r[EAX], r[EBX], r[ECX], r[EDX]);
    return (r[f->reg] >> f->bit) & 1;
}

/* glibc picks memcpy, strlen and the rest from cpuid at start-up: a variant
 * using what the CPU lacks dies here, and a wrong one gives wrong answers. */
static int strings(void)
{
    static char a[70000], b[70000];
    for (unsigned i = 0; i < sizeof(a); i++)
        a[i] = (char)('a' + i % 23);
    a[sizeof(a) - 1] = 0;
    unsigned long sum = 0;
    for (size_t n = 1; n < sizeof(a); n = n * 3 + 1) {
        memcpy(b, a + 1, n);
        memmove(b + 3, b, n / 2);
        memset(b + n / 3, 'x', n / 4);
        b[n] = 0;
        sum = sum * 131 + strlen(b) + (unsigned long)(strchr(b, 'x') - b) +
              (unsigned long)(memchr(b, 'q', n) ? 1 : 0) + (unsigned long)(strcmp(a, b) > 0) +
              (unsigned long)(memcmp(a, b, n / 5 + 1) > 0);
    }
    say("strings %#lx\n", sum & 0xffffffffUL);
    return sum == 0; /* never: a check that the loop ran */
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    int engine = 0;
    CASE("engine") engine = 1;
    else CASE("advertised");
    else return 2;
    on(SIGILL, on_fault, SA_NODEFER);
    on(SIGSEGV, on_fault, SA_NODEFER);
    on(SIGBUS, on_fault, SA_NODEFER);
    int bad = 0;
    for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
        const struct feature *f = &features[i];
        if (!bit_set(f))
            continue;
        if (engine && f->engine_off) {
            say("%s: reported, but the engine cannot run it\n", f->name);
            bad = 1;
            continue;
        }
        if (!f->probe) {
            say("%s: reported\n", f->name);
            continue;
        }
        probe_sig = 0;
        if (!sigsetjmp(probe_env, 1))
            f->probe();
        if (probe_sig) {
            say("%s: reported, but signal %d\n", f->name, probe_sig);
            bad = 1;
        } else
            say("%s: reported, runs\n", f->name);
    }
    /* Without AVX, a VEX-encoded SSE instruction is #UD, not its legacy
     * form run with the VEX operand ignored. */
    static const struct feature avx = { "avx", 1, 0, ECX, 28, NULL, 0 };
    if (!bit_set(&avx)) {
        static void (*const vex[])(void) = { p_vex_0f, p_vex_0f38, p_vex_0f3a };
        static const char *const vex_name[] = { "vaddps", "vpshufb", "vpalignr" };
        for (int i = 0; i < 3; i++) {
            probe_sig = 0;
            if (!sigsetjmp(probe_env, 1))
                vex[i]();
            say("%s without avx: signal %d\n", vex_name[i], probe_sig);
            bad |= probe_sig != SIGILL;
        }
    }
    bad |= strings();
    say(bad ? "cpuid lies\n" : "cpuid holds\n");
    return bad;
}
