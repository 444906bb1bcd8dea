/* cpuid tells the truth, on any x86-64 CPU.
 *
 *   cpuid advertised  natively: for each known feature bit of leaves 1, 7
 *                     (subleaves 0 and 1), 0xd (0 and 1), 0x80000001 and
 *                     0x80000008 that is set, a feature seccomp-emu's engine
 *                     models (engine_models[]) runs one instruction of it: a
 *                     SIGILL, or any fault, is a lie.  A feature it does not
 *                     model (AVX-512, AMX, APX, SHA, RDSEED, WAITPKG, ...) is
 *                     named and skipped with the reason: its probe would
 *                     judge the host's CPU, not seccomp-emu, and some need the
 *                     kernel's permission first (AMX) or may wait (WAITPKG).
 *                     Then glibc's string functions, which pick their variant
 *                     from cpuid (ifunc), on buffers large enough to take
 *                     their vector paths.
 *   cpuid engine      under seccomp-emu: the same, and a feature the engine
 *                     does not model must not be reported at all.
 *   cpuid replay LEAVES ANSWERS
 *                     'advertised' for a recorded host (tests/hosts/): its
 *                     cpuid leaves instead of this CPU's, and its recorded
 *                     probe answers instead of running the probes.  LEAVES:
 *                     "CPUID llllllll: eax-ebx-ecx-edx [SL ss]" lines (the
 *                     format of InstLatx64's dumps and of 'leaves'), the
 *                     first logical CPU's; ANSWERS: "NAME runs" or "NAME
 *                     signal N" lines.  Glibc's strings are not replayed.
 *   cpuid leaves      this CPU's leaves in that format: how a host is
 *                     recorded.
 *   cpuid stray-fault a fault outside any probe: the run must end (status
 *                     3), never loop.
 *   cpuid stuck-probe a probe that never finishes: the watchdog must end the
 *                     run (status 4).
 *
 * All: where cpuid reports no AVX, VEX-encoded SSE instructions must be
 * SIGILL.  Each probe runs once.  A fault outside a probe ends the run
 * (status 3) instead of jumping back into one that has returned, and a probe
 * that has not finished after PROBE_SECONDS ends it (status 4), naming the
 * probe.  Prints one line per bit that is set; exits 1 on any lie. */
#include "sigtest.h"

#include <cpuid.h>
#include <setjmp.h>
#include <stdlib.h>
#include <sys/auxv.h>

#define PROBE_SECONDS 10

static sigjmp_buf probe_env;
static unsigned watchdog_seconds = PROBE_SECONDS;
static const char *volatile probe_armed; /* the probe running, or NULL */
static volatile int probe_sig;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    if (!probe_armed) {
        say("signal %d outside any probe: the run ends here\n", sig);
        sys_exit(3);
    }
    probe_armed = NULL;
    probe_sig = sig;
    siglongjmp(probe_env, 1);
}

static void on_watchdog(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    const char *name = probe_armed;
    say("%s: no answer within %u s: the probe loops\n", name ? name : "(no probe)",
        watchdog_seconds);
    sys_exit(4);
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
/* xsave and xsaveopt save the x87 and SSE state only (EDX:EAX = 3): the
 * area XCR0's whole mask takes is the CPU's to size (11008 bytes with AMX's
 * tile data, CPUID.(0xd,0).EBX), past any fixed buffer here */
static void p_osxsave(void) { unsigned a, d; __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0)); __asm__ volatile("xsave %0" : "+m"(area) : "a"(3), "d"(0)); }
static void p_xsaveopt(void) { __asm__ volatile("xsaveopt %0" : "+m"(area) : "a"(3), "d"(0)); }
static void p_xgetbv1(void) { unsigned a, d; __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1)); }
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

/* The features seccomp-emu's engine runs, by name (emu/engine/cpu.c trims
 * the guest's cpuid to them).  The one list to change when the engine
 * learns a feature. */
static const char *const engine_models[] = {
    "fpu", "tsc", "cx8", "cmov", "clflush", "mmx", "fxsr", "sse", "sse2",
    "sse3", "pclmulqdq", "ssse3", "cx16", "sse4_1", "sse4_2", "movbe", "popcnt", "aes",
    "xsave", "osxsave", "xsaveopt", "xgetbv1",
    "fsgsbase", "bmi1", "bmi2", "erms", "adx", "clflushopt", "clwb", "rdpid",
    "lahf_lm", "abm", "sse4a", "3dnowprefetch", "mmxext", "rdtscp", "3dnowext", "3dnow",
    "avx", "avx2", "fma", "f16c", "xstate-ymm",
};

struct feature {
    const char *name;
    unsigned leaf, subleaf;
    enum reg reg;
    int bit;
    void (*probe)(void); /* one instruction of it; NULL: none a user program runs */
    const char *what;    /* for a feature the engine does not model: what it is */
};

#define AVX512 "AVX-512 (EVEX): not in the engine"
#define AMX "AMX: not in the engine (its tile state also needs arch_prctl(ARCH_REQ_XCOMP_PERM))"
#define APX "APX: not in the engine"
#define NOT_CPL3(x) x ": not run at CPL 3 under Linux"

static const struct feature features[] = {
    { "fpu", 1, 0, EDX, 0, p_fpu, NULL },
    { "tsc", 1, 0, EDX, 4, p_tsc, NULL },
    { "cx8", 1, 0, EDX, 8, p_cx8, NULL },
    { "cmov", 1, 0, EDX, 15, p_cmov, NULL },
    { "clflush", 1, 0, EDX, 19, p_clflush, NULL },
    { "mmx", 1, 0, EDX, 23, p_mmx, NULL },
    { "fxsr", 1, 0, EDX, 24, p_fxsr, NULL },
    { "sse", 1, 0, EDX, 25, p_sse, NULL },
    { "sse2", 1, 0, EDX, 26, p_sse2, NULL },
    { "sse3", 1, 0, ECX, 0, p_sse3, NULL },
    { "pclmulqdq", 1, 0, ECX, 1, p_pclmul, NULL },
    /* no ring-3 MWAIT under Linux: a CPU may have it, but the engine runs
     * user code only */
    { "monitor", 1, 0, ECX, 3, NULL, NOT_CPL3("MONITOR/MWAIT") },
    { "ssse3", 1, 0, ECX, 9, p_ssse3, NULL },
    { "fma", 1, 0, ECX, 12, p_fma, NULL },
    { "cx16", 1, 0, ECX, 13, P64(p_cx16), NULL },
    { "sse4_1", 1, 0, ECX, 19, p_sse41, NULL },
    { "sse4_2", 1, 0, ECX, 20, p_sse42, NULL },
    { "movbe", 1, 0, ECX, 22, p_movbe, NULL },
    { "popcnt", 1, 0, ECX, 23, p_popcnt, NULL },
    { "aes", 1, 0, ECX, 25, p_aes, NULL },
    { "xsave", 1, 0, ECX, 26, NULL, NULL }, /* runs with osxsave, probed there */
    { "osxsave", 1, 0, ECX, 27, p_osxsave, NULL },
    { "avx", 1, 0, ECX, 28, p_avx, NULL },
    { "f16c", 1, 0, ECX, 29, p_f16c, NULL },
    { "rdrand", 1, 0, ECX, 30, p_rdrand, "RDRAND: not in the engine" },
    { "fsgsbase", 7, 0, EBX, 0, P64(p_fsgsbase), NULL },
    { "bmi1", 7, 0, EBX, 3, p_bmi1, NULL },
    { "hle", 7, 0, EBX, 4, NULL, "TSX: not in the engine" },
    { "avx2", 7, 0, EBX, 5, p_avx2, NULL },
    { "bmi2", 7, 0, EBX, 8, p_bmi2, NULL },
    { "erms", 7, 0, EBX, 9, p_erms, NULL },
    { "rtm", 7, 0, EBX, 11, NULL, "TSX: not in the engine" },
    { "avx512f", 7, 0, EBX, 16, p_avx512f, AVX512 },
    { "avx512dq", 7, 0, EBX, 17, NULL, AVX512 },
    { "rdseed", 7, 0, EBX, 18, p_rdseed, "RDSEED: not in the engine" },
    { "adx", 7, 0, EBX, 19, p_adx, NULL },
    { "avx512ifma", 7, 0, EBX, 21, NULL, AVX512 },
    { "clflushopt", 7, 0, EBX, 23, p_clflushopt, NULL },
    { "clwb", 7, 0, EBX, 24, p_clwb, NULL },
    { "avx512cd", 7, 0, EBX, 28, NULL, AVX512 },
    { "sha_ni", 7, 0, EBX, 29, p_sha, "SHA: not in the engine" },
    { "avx512bw", 7, 0, EBX, 30, NULL, AVX512 },
    { "avx512vl", 7, 0, EBX, 31, NULL, AVX512 },
    { "avx512vbmi", 7, 0, ECX, 1, NULL, AVX512 },
    { "ospke", 7, 0, ECX, 4, NULL, "protection keys (RDPKRU/WRPKRU): not in the engine" },
    { "waitpkg", 7, 0, ECX, 5, NULL, "WAITPKG: not in the engine (UMWAIT and TPAUSE may wait)" },
    { "avx512_vbmi2", 7, 0, ECX, 6, NULL, AVX512 },
    { "gfni", 7, 0, ECX, 8, NULL, "GFNI: not in the engine" },
    { "vaes", 7, 0, ECX, 9, p_vaes, "VAES (VEX): not in the engine" },
    { "vpclmulqdq", 7, 0, ECX, 10, p_vpclmul, "VPCLMULQDQ (VEX): not in the engine" },
    { "avx512_vnni", 7, 0, ECX, 11, NULL, AVX512 },
    { "avx512_bitalg", 7, 0, ECX, 12, NULL, AVX512 },
    { "avx512_vpopcntdq", 7, 0, ECX, 14, NULL, AVX512 },
    { "rdpid", 7, 0, ECX, 22, p_rdpid, NULL },
    { "cldemote", 7, 0, ECX, 25, NULL, "CLDEMOTE: not in the engine" },
    { "movdiri", 7, 0, ECX, 27, NULL, "MOVDIRI: not in the engine" },
    { "movdir64b", 7, 0, ECX, 28, NULL, "MOVDIR64B: not in the engine" },
    { "enqcmd", 7, 0, ECX, 29, NULL, "ENQCMD: not in the engine (needs a PASID from the kernel)" },
    { "avx512_vp2intersect", 7, 0, EDX, 8, NULL, AVX512 },
    { "serialize", 7, 0, EDX, 14, NULL, "SERIALIZE: not in the engine" },
    { "tsxldtrk", 7, 0, EDX, 16, NULL, "TSX: not in the engine" },
    { "amx_bf16", 7, 0, EDX, 22, NULL, AMX },
    { "avx512_fp16", 7, 0, EDX, 23, NULL, AVX512 },
    { "amx_tile", 7, 0, EDX, 24, NULL, AMX },
    { "amx_int8", 7, 0, EDX, 25, NULL, AMX },
    { "sha512", 7, 1, EAX, 0, NULL, "SHA512 (VEX): not in the engine" },
    { "sm3", 7, 1, EAX, 1, NULL, "SM3 (VEX): not in the engine" },
    { "sm4", 7, 1, EAX, 2, NULL, "SM4 (VEX): not in the engine" },
    { "avx_vnni", 7, 1, EAX, 4, NULL, "AVX-VNNI: not in the engine" },
    { "avx512_bf16", 7, 1, EAX, 5, NULL, AVX512 },
    { "cmpccxadd", 7, 1, EAX, 7, NULL, "CMPCCXADD (VEX): not in the engine" },
    { "amx_fp16", 7, 1, EAX, 21, NULL, AMX },
    { "avx_ifma", 7, 1, EAX, 23, NULL, "AVX-IFMA: not in the engine" },
    { "avx_vnni_int8", 7, 1, EDX, 4, NULL, "AVX-VNNI-INT8: not in the engine" },
    { "avx_ne_convert", 7, 1, EDX, 5, NULL, "AVX-NE-CONVERT: not in the engine" },
    { "amx_complex", 7, 1, EDX, 8, NULL, AMX },
    { "avx_vnni_int16", 7, 1, EDX, 10, NULL, "AVX-VNNI-INT16: not in the engine" },
    { "apx_f", 7, 1, EDX, 21, NULL, APX },
    { "xsaveopt", 0xd, 1, EAX, 0, p_xsaveopt, NULL },
    { "xsavec", 0xd, 1, EAX, 1, NULL, "XSAVEC: not in the engine" },
    { "xgetbv1", 0xd, 1, EAX, 2, p_xgetbv1, NULL },
    { "xsaves", 0xd, 1, EAX, 3, NULL, NOT_CPL3("XSAVES") },
    { "lahf_lm", 0x80000001, 0, ECX, 0, P64(p_lahf), NULL },
    /* SVM needs EFER.SVME, set by the kernel (KVM) only: vmmcall is #UD
     * in a user program whatever the bit says */
    { "svm", 0x80000001, 0, ECX, 2, NULL, NOT_CPL3("SVM") },
    { "abm", 0x80000001, 0, ECX, 5, p_lzcnt, NULL },
    { "sse4a", 0x80000001, 0, ECX, 6, p_sse4a, NULL },
    { "3dnowprefetch", 0x80000001, 0, ECX, 8, p_prefetchw, NULL },
    { "xop", 0x80000001, 0, ECX, 11, p_xop, "XOP: not in the engine" },
    { "fma4", 0x80000001, 0, ECX, 16, p_fma4, "FMA4: not in the engine" },
    { "tbm", 0x80000001, 0, ECX, 21, p_tbm, "TBM: not in the engine" },
    { "mmxext", 0x80000001, 0, EDX, 22, p_mmxext, NULL },
    { "rdtscp", 0x80000001, 0, EDX, 27, p_rdtscp, NULL },
    { "3dnowext", 0x80000001, 0, EDX, 30, p_3dnowext, NULL },
    { "3dnow", 0x80000001, 0, EDX, 31, p_3dnow, NULL },
    { "clzero", 0x80000008, 0, EBX, 0, NULL, "CLZERO: not in the engine" },
    { "rdpru", 0x80000008, 0, EBX, 4, NULL, "RDPRU: not in the engine" },
    /* XSAVE state components the CPU supports */
    { "xstate-ymm", 0xd, 0, EAX, 2, NULL, NULL },
    { "xstate-avx512-opmask", 0xd, 0, EAX, 5, NULL, AVX512 },
    { "xstate-avx512-zmm-hi256", 0xd, 0, EAX, 6, NULL, AVX512 },
    { "xstate-avx512-hi16-zmm", 0xd, 0, EAX, 7, NULL, AVX512 },
    { "xstate-pkru", 0xd, 0, EAX, 9, NULL, "protection keys: not in the engine" },
    { "xstate-amx-tilecfg", 0xd, 0, EAX, 17, NULL, AMX },
    { "xstate-amx-tiledata", 0xd, 0, EAX, 18, NULL, AMX },
    { "xstate-apx", 0xd, 0, EAX, 19, NULL, APX },
};

static int modelled(const struct feature *f)
{
    for (size_t i = 0; i < sizeof(engine_models) / sizeof(engine_models[0]); i++)
        if (!strcmp(engine_models[i], f->name))
            return 1;
    return 0;
}

/* ---- where cpuid's answers and the probes' come from: this CPU, or a
 * recorded host (replay) ---- */

struct leaf {
    unsigned leaf, subleaf, r[4];
};
static struct leaf recorded[1024];
static int n_recorded = -1; /* -1: this CPU */

struct answer {
    char name[48];
    int sig; /* 0: runs */
};
static struct answer answers[256];
static int n_answers;

static void cpuid_regs(unsigned leaf, unsigned subleaf, unsigned r[4])
{
    r[EAX] = r[EBX] = r[ECX] = r[EDX] = 0;
    if (n_recorded < 0) {
        __cpuid_count(leaf, subleaf, r[EAX], r[EBX], r[ECX], r[EDX]);
        return;
    }
    for (int i = 0; i < n_recorded; i++)
        if (recorded[i].leaf == leaf && recorded[i].subleaf == subleaf) {
            memcpy(r, recorded[i].r, sizeof(recorded[i].r));
            return;
        }
}

static int has_leaf(unsigned leaf)
{
    unsigned r[4];
    cpuid_regs(leaf & 0x80000000u, 0, r);
    return r[EAX] >= leaf;
}

static int bit_set(const struct feature *f)
{
    unsigned r[4] = { 0 };
    if (!has_leaf(f->leaf))
        return 0;
    cpuid_regs(f->leaf, f->subleaf, r);
    return (r[f->reg] >> f->bit) & 1;
}

/* The signal NAME's probe ends with (0: it runs), or -1 when a replay has no
 * answer for it.  Live, the probe runs once, watched: a fault ends it, and
 * so does the watchdog if it never returns. */
static int run_probe(const char *name, void (*probe)(void))
{
    if (n_recorded >= 0) {
        for (int i = 0; i < n_answers; i++)
            if (!strcmp(answers[i].name, name))
                return answers[i].sig;
        return -1;
    }
    probe_sig = 0;
    if (!sigsetjmp(probe_env, 1)) {
        probe_armed = name;
        alarm(watchdog_seconds);
        probe();
        probe_armed = NULL;
    }
    alarm(0);
    return probe_sig;
}

/* Read a recorded host: InstLatx64's "CPUID 0000000D: 000602E7-00002B00-
 * 00002B00-00000000 [SL 00] [x87]" lines up to the second logical CPU, and
 * the answers' "NAME runs" / "NAME signal N" lines.  0, or 2 on an error
 * said. */
static int load_replay(const char *leaves_path, const char *answers_path)
{
    char line[512];
    FILE *f = fopen(leaves_path, "r");
    if (!f) {
        say("cannot open %s\n", leaves_path);
        return 2;
    }
    n_recorded = 0;
    while (fgets(line, sizeof(line), f)) {
        struct leaf l = { 0 };
        if (sscanf(line, "CPUID %x: %x-%x-%x-%x", &l.leaf, &l.r[EAX], &l.r[EBX], &l.r[ECX],
                   &l.r[EDX]) != 5)
            continue;
        const char *sl = strstr(line, "[SL ");
        if (sl)
            l.subleaf = (unsigned)strtoul(sl + 4, NULL, 16);
        if (l.leaf == 0 && n_recorded > 0)
            break; /* the next logical CPU */
        if (n_recorded == (int)(sizeof(recorded) / sizeof(recorded[0]))) {
            say("%s: more leaves than %d\n", leaves_path, n_recorded);
            fclose(f);
            return 2;
        }
        recorded[n_recorded++] = l;
    }
    fclose(f);
    if (n_recorded == 0) {
        say("%s: no CPUID lines\n", leaves_path);
        return 2;
    }
    f = fopen(answers_path, "r");
    if (!f) {
        say("cannot open %s\n", answers_path);
        return 2;
    }
    while (fgets(line, sizeof(line), f)) {
        struct answer a = { "", 0 };
        char how[16];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int n = sscanf(line, "%47s %15s %d", a.name, how, &a.sig);
        if (n_answers == (int)(sizeof(answers) / sizeof(answers[0])) ||
            !((n == 2 && !strcmp(how, "runs")) || (n == 3 && !strcmp(how, "signal")))) {
            say("%s: want \"NAME runs\" or \"NAME signal N\": %s", answers_path, line);
            fclose(f);
            return 2;
        }
        answers[n_answers++] = a;
    }
    fclose(f);
    return 0;
}

/* Print the leaves of this CPU the way load_replay reads them. */
static void print_leaves(void)
{
    static const unsigned bases[] = { 0, 0x80000000u };
    for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
        unsigned base = bases[b], r[4];
        cpuid_regs(base, 0, r);
        unsigned max = r[EAX];
        if (max < base || max > base + 0xff)
            continue;
        for (unsigned leaf = base; leaf <= max; leaf++) {
            /* the leaves with subleaves (Intel SDM, AMD APM) and how many */
            unsigned n = 1;
            if (leaf == 4 || leaf == 0xb || leaf == 0x1f || leaf == 0x8000001d)
                n = 8;
            else if (leaf == 0xd)
                n = 64;
            else if (leaf == 7 || leaf == 0x14 || leaf == 0x17 || leaf == 0x18 || leaf == 0x1d ||
                     leaf == 0x20 || leaf == 0x23 || leaf == 0x24) {
                cpuid_regs(leaf, 0, r);
                n = r[EAX] < 31 ? r[EAX] + 1 : 32;
            } else if (leaf == 0xf || leaf == 0x10 || leaf == 0x12)
                n = 4;
            for (unsigned sub = 0; sub < n; sub++) {
                cpuid_regs(leaf, sub, r);
                if (sub > 0 && !(r[EAX] | r[EBX] | r[ECX] | r[EDX]))
                    continue;
                say("CPUID %08X: %08X-%08X-%08X-%08X [SL %02X]\n", leaf, r[EAX], r[EBX], r[ECX],
                    r[EDX], sub);
            }
        }
    }
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
        sum = sum * 131 + strlen(b) + (unsigned long)(strchr(b, 'x') ? strchr(b, 'x') - b : -1) +
              (unsigned long)(memchr(b, 'q', n) ? 1 : 0) + (unsigned long)(strcmp(a, b) > 0) +
              (unsigned long)(memcmp(a, b, n / 5 + 1) > 0);
    }
    say("strings %#lx\n", sum & 0xffffffffUL);
    return sum == 0; /* never: a check that the loop ran */
}

static void p_stuck(void)
{
    for (;;)
        __asm__ volatile("pause" ::: "memory");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    int engine = 0;
    on(SIGILL, on_fault, SA_NODEFER);
    on(SIGSEGV, on_fault, SA_NODEFER);
    on(SIGBUS, on_fault, SA_NODEFER);
    on(SIGFPE, on_fault, SA_NODEFER);
    on(SIGALRM, on_watchdog, 0);
    CASE("engine") engine = 1;
    else CASE("advertised");
    else CASE("replay")
    {
        if (argc != 4)
            return 2;
        if (load_replay(argv[2], argv[3]))
            return 2;
    }
    else CASE("leaves")
    {
        print_leaves();
        return 0;
    }
    else CASE("stray-fault")
    {
        say("a fault outside any probe\n");
        *(volatile int *)8 = 0;
        say("not reached\n");
        return 1;
    }
    else CASE("stuck-probe")
    {
        watchdog_seconds = 1;
        run_probe("stuck", p_stuck);
        say("not reached\n");
        return 1;
    }
    else return 2;
    /* the kernel's choice, not the CPU's: Linux before 5.9 left FSGSBASE
     * off whatever cpuid says, and says so in AT_HWCAP2 */
    int fsgsbase_off = !engine && n_recorded < 0 && !(getauxval(AT_HWCAP2) & 2);
    int bad = 0;
    for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
        const struct feature *f = &features[i];
        if (!bit_set(f))
            continue;
        if (!modelled(f)) {
            if (engine) {
                say("%s: reported, but the engine does not model it (%s)\n", f->name, f->what);
                bad = 1;
            } else
                say("%s: reported, skipped: %s\n", f->name, f->what);
            continue;
        }
        if (!strcmp(f->name, "fsgsbase") && fsgsbase_off) {
            say("%s: reported, skipped: the kernel has not enabled it (AT_HWCAP2)\n", f->name);
            continue;
        }
        if (!f->probe) {
            say("%s: reported\n", f->name);
            continue;
        }
        int sig = run_probe(f->name, f->probe);
        if (sig < 0) {
            say("%s: reported, but the recording has no answer for its probe\n", f->name);
            bad = 1;
        } else if (sig) {
            say("%s: reported, but signal %d\n", f->name, sig);
            bad = 1;
        } else
            say("%s: reported, runs\n", f->name);
    }
    /* Without AVX, a VEX-encoded SSE instruction is #UD, not its legacy
     * form run with the VEX operand ignored. */
    static const struct feature avx = { "avx", 1, 0, ECX, 28, NULL, NULL };
    if (!bit_set(&avx)) {
        static void (*const vex[])(void) = { p_vex_0f, p_vex_0f38, p_vex_0f3a };
        static const char *const vex_name[] = { "vaddps", "vpshufb", "vpalignr" };
        for (int i = 0; i < 3; i++) {
            int sig = run_probe(vex_name[i], vex[i]);
            say("%s without avx: signal %d\n", vex_name[i], sig);
            bad |= sig != SIGILL;
        }
    }
    if (n_recorded < 0)
        bad |= strings();
    say(bad ? "cpuid lies\n" : "cpuid holds\n");
    return bad;
}
