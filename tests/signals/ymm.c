/* The AVX state in signal frames (issue 37), judged by a native run:
 *
 *   ymm frame     a signal taken with every YMM register holding a known
 *                 value: the handler prints what the frame says of the
 *                 XSAVE area (the software-reserved words, MAGIC2, the
 *                 header's YMM bit, the YMM upper halves at the CPUID
 *                 0xd.2 offset), clobbers every YMM register, and edits
 *                 one upper half in the frame; after rt_sigreturn the
 *                 interrupted code sees its own YMM state with that edit
 *   ymm init      the handler clears the YMM bit of the frame's
 *                 xstate_bv: sigreturn puts the upper halves in their
 *                 initial state (zero), the low halves kept
 *   ymm fxonly    the handler breaks MAGIC1: only the FXSAVE image
 *                 counts, so the YMM upper halves are reset too
 *   ymm badheader a reserved bit in xstate_bv: a bad frame (SIGSEGV)
 *
 * Sizes that depend on the CPU's XCR0 (an AVX-512 host's frame is larger
 * than one for XCR0 7) are printed as "at least", and offsets as the CPU
 * gives them, so that the layout is compared, not the size. */
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define NREG 16
#else
#define NREG 8
#endif

#define MAGIC1 0x46505853u
#define MAGIC2 0x46505845u

static uint8_t ymm_in[NREG][32] __attribute__((aligned(32)));
static uint8_t ymm_out[NREG][32] __attribute__((aligned(32)));
static uint8_t ymm_junk[32] __attribute__((aligned(32)));
static const char *mode;
static unsigned ymm_offset; /* CPUID 0xd.2 EBX */

/* Load every YMM register, send ourselves SIGUSR1 with a bare system call
 * (nothing between the loads and the signal may touch YMM), store them. */
#if defined(__x86_64__)
#define LD(n) "vmovdqu " #n "*32(%[in]), %%ymm" #n "\n"
#define ST(n) "vmovdqu %%ymm" #n ", " #n "*32(%[out])\n"
#define ALL(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) \
               m(8) m(9) m(10) m(11) m(12) m(13) m(14) m(15)
static void signal_with_ymm(void)
{
    long pid = getpid();
    __asm__ volatile(ALL(LD)
                     "syscall\n"
                     ALL(ST)
                     : "+a"((long){ SYS_kill })
                     : [in] "r"(ymm_in), [out] "r"(ymm_out), "D"(pid), "S"((long)SIGUSR1)
                     : "rcx", "r11", "memory");
}
static void clobber_ymm(void)
{
#define CL(n) "vmovdqu (%0), %%ymm" #n "\n"
    __asm__ volatile(ALL(CL) :: "r"(ymm_junk) : "memory");
}
#else
#define LD(n) "vmovdqu " #n "*32(%[in]), %%ymm" #n "\n"
#define ST(n) "vmovdqu %%ymm" #n ", " #n "*32(%[out])\n"
#define ALL(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7)
static void signal_with_ymm(void)
{
    long pid = getpid();
    /* int $0x80 (not glibc's vsyscall, which is code we do not control) */
    __asm__ volatile("push %%ebx\n"
                     "mov %%edx, %%ebx\n"
                     ALL(LD)
                     "int $0x80\n"
                     ALL(ST)
                     "pop %%ebx\n"
                     : "+a"((long){ SYS_kill })
                     : [in] "S"(ymm_in), [out] "D"(ymm_out), "d"(pid), "c"((long)SIGUSR1)
                     : "memory");
}
static void clobber_ymm(void)
{
#define CL(n) "vmovdqu (%0), %%ymm" #n "\n"
    __asm__ volatile(ALL(CL) :: "r"(ymm_junk) : "memory");
}
#endif

static void print_ymm(const char *what, uint8_t r[][32])
{
    for (int i = 0; i < NREG; i++) {
        printf("%s ymm%-2d ", what, i);
        for (int b = 31; b >= 0; b--)
            printf("%02x%s", r[i][b], b == 16 ? "_" : "");
        printf("\n");
    }
}

static void handler(int sig, siginfo_t *si, void *ctx)
{
    (void)si;
    ucontext_t *uc = ctx;
    uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpregs;
#if defined(__x86_64__)
    uint8_t *x = fp;
#else
    uint8_t *x = fp + 112; /* behind the FSAVE header (struct _fpstate_32) */
#endif
    uint32_t magic1, ext_size, xstate_size, magic2;
    uint64_t xfeatures, xstate_bv;
    memcpy(&magic1, x + 464, 4);
    memcpy(&ext_size, x + 468, 4);
    memcpy(&xfeatures, x + 472, 8);
    memcpy(&xstate_size, x + 480, 4);
    memcpy(&magic2, x + xstate_size, 4);
    memcpy(&xstate_bv, x + 512, 8);
    printf("signal %d: uc_flags&UC_FP_XSTATE %d, xsave area 64-byte aligned %d\n", sig,
           (int)(uc->uc_flags & 1), (int)((uintptr_t)x % 64 == 0));
    printf("magic1 %d, xfeatures x87|sse|ymm 0x%llx, xstate_size >= 832 %d, "
           "extended_size - xstate_size %u, magic2 %d\n",
           magic1 == MAGIC1, (unsigned long long)(xfeatures & 7), xstate_size >= 832,
           ext_size - xstate_size, magic2 == MAGIC2);
    printf("xstate_bv ymm %d\n", (int)(xstate_bv >> 2 & 1));
    uint8_t hi[NREG][32];
    for (int i = 0; i < NREG; i++) {
        memcpy(hi[i], x + 160 + 16 * i, 16);
        memcpy(hi[i] + 16, x + ymm_offset + 16 * i, 16);
    }
    print_ymm("frame", hi);
    clobber_ymm();
    if (!strcmp(mode, "frame")) {
        memset(x + ymm_offset + 16 * 3, 0x5c, 16);
    } else if (!strcmp(mode, "init")) {
        xstate_bv &= ~4ull;
        memcpy(x + 512, &xstate_bv, 8);
    } else if (!strcmp(mode, "fxonly")) {
        magic1 = 0;
        memcpy(x + 464, &magic1, 4);
    } else if (!strcmp(mode, "badheader")) {
        xstate_bv |= 1ull << 63;
        memcpy(x + 512, &xstate_bv, 8);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsigned a, b, c, d;
    if (argc < 2)
        return 2;
    mode = argv[1];
    __cpuid(1, a, b, c, d);
    if (!(c & bit_AVX) || !(c & bit_OSXSAVE)) {
        printf("no AVX\n");
        return 0;
    }
    __cpuid_count(0xd, 2, a, b, c, d);
    ymm_offset = b;
    printf("YMM component at %u\n", ymm_offset);
    for (int i = 0; i < NREG; i++)
        for (int j = 0; j < 32; j++)
            ymm_in[i][j] = (uint8_t)(i * 37 + j * 11 + 1);
    memset(ymm_junk, 0xee, sizeof(ymm_junk));
    struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
    sigaction(SIGUSR1, &sa, NULL);
    signal_with_ymm();
    print_ymm("after", ymm_out);
    return 0;
}
