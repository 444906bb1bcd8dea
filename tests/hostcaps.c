/* hostcaps: what this host's kernel can show natively, for the harnesses'
 * native legs (tests/native_oracle.py, tools/seccomp-emu-diff.c).
 *
 * Prints one "NAME yes|no" line per capability:
 *   ia32     IA-32 emulation is on: `int $0x80` from 64-bit code is the
 *            compat entry (Linux's ia32_emulation=false, or a hypervisor
 *            without compat mode, makes it #GP, and with it i386 programs
 *            do not exec and selector 0x23 is gone);
 *   tsc-off  PR_SET_TSC(PR_TSC_SIGSEGV) makes rdtsc fault, as strict mode's
 *            disable_TSC() relies on (a hypervisor that does not honour the
 *            guest's CR4.TSD lets rdtsc run);
 *   noncanon-rsp  a system call made with a non-canonical rsp returns
 *            (Linux checks rcx before sysret, never rsp; a hypervisor whose
 *            return path checks it makes the return a #GP);
 *   avx      the CPU has AVX and the kernel enabled its state (CPUID
 *            AVX and OSXSAVE, XCR0 with SSE and YMM): signal frames then
 *            carry the YMM registers;
 *   x86-64-v3  avx, and the rest of the x86-64-v3 level (AVX2, BMI1,
 *            BMI2, FMA, F16C, LZCNT, MOVBE): what -march=x86-64-v3,
 *            GOAMD64=v3 and target-cpu=x86-64-v3 builds execute;
 *   vvar-kvm the kernel's data pages beside the vDSO are the ones
 *            seccomp-emu models: Linux 6.18's [vvar] (4 pages; 1, the
 *            time namespace's, and 3 left out) and [vvar_vclock] (2;
 *            KVM's pvclock page there, Hyper-V's left out).  Another
 *            kernel, bare metal, Hyper-V or a time namespace differ.
 * A case whose native answer needs a missing capability is judged against
 * a recording of the kernel's answer instead.  Exit 0, or 2 if a probe
 * itself failed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static sigjmp_buf back;

static void on_fault(int sig)
{
    siglongjmp(back, sig);
}

static int ia32(void)
{
    long pid = -1;
    if (sigsetjmp(back, 1))
        return 0;
    /* __NR_getpid is 20 in the i386 table, 39 in x86_64's */
    __asm__ volatile("int $0x80" : "=a"(pid) : "a"(20L) : "memory");
    return pid == getpid();
}

unsigned long hostcaps_saved_sp;

static int noncanon_rsp(void)
{
    long nr = 39;   /* x86_64 getpid */
    if (sigsetjmp(back, 1))
        return 0;
    __asm__ volatile("mov %%rsp, hostcaps_saved_sp(%%rip)\n"
                     " movabs $0x8000000000001000, %%rdx\n mov %%rdx, %%rsp\n syscall\n"
                     " mov hostcaps_saved_sp(%%rip), %%rsp"
                     : "+a"(nr) : : "rcx", "r11", "rdx", "memory");
    return nr == getpid();
}

static int tsc_off(void)
{
    unsigned lo, hi;
    if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0)
        return -1;
    if (sigsetjmp(back, 1))
        return 1;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    (void)lo;
    (void)hi;
    return 0;
}

static int avx(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE))
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6) == 6;
}

static int x86_64_v3(void)
{
    unsigned a, b, c, d;
    if (!avx() || !__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_FMA) || !(c & bit_F16C) ||
        !(c & bit_MOVBE))
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2) || !(b & bit_BMI) ||
        !(b & bit_BMI2))
        return 0;
    return __get_cpuid(0x80000001, &a, &b, &c, &d) && (c & bit_LZCNT);
}

/* Which pages of the mapping /proc/self/maps names `name` a load finds:
 * bit i set for page i; -1 if it is not there or not `pages` long. */
static long loadable_pages(const char *name, unsigned long pages)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long lo = 0, hi = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        size_t n = strlen(line), k = strlen(name);
        if (n > k && !strcmp(line + n - k, name) && line[n - k - 1] == ' ' &&
            sscanf(line, "%lx-%lx", &lo, &hi) == 2)
            break;
        lo = hi = 0;
    }
    if (f)
        fclose(f);
    if (hi - lo != pages * 4096)
        return -1;
    /* volatile: kept across the longjmp out of a faulting load */
    volatile long found = 0;
    for (volatile unsigned long i = 0; i < pages; i++) {
        if (sigsetjmp(back, 1))
            continue;
        (void)*(volatile char *)(lo + i * 4096);
        found |= 1L << i;
    }
    return found;
}

static int vvar_kvm(void)
{
    return loadable_pages("[vvar]", 4) == 0x5 && loadable_pages("[vvar_vclock]", 2) == 0x1;
}

int main(void)
{
    /* the non-canonical rsp probe faults with no usable stack */
    static char altstack[1 << 16];
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
    struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_ONSTACK };
    sigemptyset(&sa.sa_mask);
    if (sigaltstack(&ss, NULL)) {
        perror("hostcaps: sigaltstack");
        return 2;
    }
    if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGILL, &sa, NULL) ||
        sigaction(SIGBUS, &sa, NULL)) {
        perror("hostcaps: sigaction");
        return 2;
    }
    int t = tsc_off();
    if (t < 0) {
        perror("hostcaps: prctl(PR_SET_TSC)");
        return 2;
    }
    printf("ia32 %s\ntsc-off %s\nnoncanon-rsp %s\navx %s\nx86-64-v3 %s\nvvar-kvm %s\n",
           ia32() ? "yes" : "no", t ? "yes" : "no", noncanon_rsp() ? "yes" : "no",
           avx() ? "yes" : "no", x86_64_v3() ? "yes" : "no", vvar_kvm() ? "yes" : "no");
    return 0;
}
