#include "emu/entry/vdso_time.h"

#include <string.h>

#include "abi/linux.h"
#include "abi/vdso.h"
#include "emu/engine/cpu.h"
#include "emu/entry/exception.h"
#include "emu/kernel/signal.h"
#include "emu/sys/timekeeping.h"

/* Linux 6.18's x86 [vvar] and [vvar_vclock] sizes (a 64-bit kernel's, for
 * its compat tasks too). */
#define VVAR_SIZE (6u * 4096u)
#define VCLOCK_SIZE (2u * 4096u)

/* The pages their fault handlers leave out, where a read is SIGBUS
 * (BUS_ADRERR) and a call's copy EFAULT: in [vvar] the time namespace's
 * page (1: no time namespace here) and the architecture's (3: x86 has
 * none); in [vvar_vclock] Hyper-V's clock page (1).  Its page 0, the
 * pvclock page, is there as on a KVM guest with kvm-clock: measured on
 * Linux 6.18.44 (AMD EPYC, Firecracker), both ABIs.  On bare metal that
 * page is left out too; its contents are zeros here, as in the rest. */
#define VVAR_NO_PAGE ((1u << 1) | (1u << 3))
#define VCLOCK_NO_PAGE (1u << 1)

err_t vdso_map(struct task *t)
{
    struct vdso_image img;
    vdso_build(&img, t->is64, t->vendor == VENDOR_INTEL);
    /* Top of the mmap area, where Linux puts it first, in Linux 6.18's
     * layout for either ABI: [vvar] (4 pages) and [vvar_vclock] (2), the
     * kernel's read-only time data (zeros here: the emulated vDSO reads
     * the host's clocks), then the two-page [vdso]. */
    uint64_t code = 2 * VDSO_SIZE;
    uint64_t base = mm_find_free(t->mm, VVAR_SIZE + code, t->mm->mmap_base);
    if (!base)
        return err_new("no room for the vDSO");
    err_t e;
    if ((e = mm_map_special(t->mm, base, VVAR_SIZE - VCLOCK_SIZE, PROT_READ_LINUX, "[vvar]",
                            VMA_VVAR, VVAR_NO_PAGE, NULL)) ||
        (e = mm_map_special(t->mm, base + VVAR_SIZE - VCLOCK_SIZE, VCLOCK_SIZE, PROT_READ_LINUX,
                            "[vvar_vclock]", VMA_VVAR, VCLOCK_NO_PAGE, NULL)))
        return e;
    uint64_t at = base + VVAR_SIZE;
    uint8_t *host;
    if ((e = mm_map_special(t->mm, at, code, PROT_READ_LINUX | PROT_EXEC_LINUX, "[vdso]", VMA_VDSO,
                            0, &host)))
        return e;
    memcpy(host, img.bytes, VDSO_SIZE);
    /* Linux's vDSO is two pages; the second, which this image does not
     * need, traps wherever it is entered. */
    memset(host + VDSO_SIZE, 0xcc, code - VDSO_SIZE);
    t->mm->layout.vdso = at;
    if (t->is64) {
        /* Where Linux returns a 64-bit task's compat sysenter (Intel):
         * this vDSO's base plus the 32-bit image's landing pad, cut to 32
         * bits by sysretl; a page nothing is mapped at, as a rule. */
        struct vdso_image img32;
        vdso_build(&img32, false, true);
        t->mm->layout.int80_pad = (uint32_t)(at + img32.int80_pad);
    } else {
        t->mm->layout.vsyscall = at + img.vsyscall;
        t->mm->layout.int80_pad = at + img.int80_pad;
        t->mm->layout.vdso_sigreturn = at + img.sigreturn;
        t->mm->layout.vdso_rt_sigreturn = at + img.rt_sigreturn;
    }
    t->mm->layout.vdso_code = at + VDSO_TEXT;
    t->mm->layout.vdso_code_end = at + VDSO_SIZE;
    for (int i = 0; i < VDSO_NFN; i++) {
        t->mm->layout.vdso_fn[i] = img.fn[i] ? at + img.fn[i] : 0;
        t->mm->layout.vdso_fn_done[i] = img.fn_done[i] ? at + img.fn_done[i] : 0;
    }
    return OK;
}

/* Arguments by the C calling convention of the ABI. */
static uint64_t arg(struct task *t, int i)
{
    if (t->is64)
        return cpu_reg(t->cpu, i == 0 ? UC_X86_REG_RDI : UC_X86_REG_RSI);
    uint32_t sp = (uint32_t)cpu_reg(t->cpu, UC_X86_REG_ESP), v = 0;
    mm_read(t->mm, sp + 4 + 4 * (uint32_t)i, &v, 4); /* the caller's frame */
    return v;
}

/* The high-resolution clocks read the TSC in the kernel's vDSO.  With the
 * TSC off (strict mode) that rdtsc raises #GP: the task dies of SIGSEGV,
 * as measured natively on a TSC/kvm-clock host. */
static bool needs_tsc(int clk)
{
    return clk != CLOCK_REALTIME_COARSE_LINUX && clk != CLOCK_MONOTONIC_COARSE_LINUX;
}

static bool tsc_fault(struct task *t)
{
    if (!t->tsc_off)
        return false;
    exception_raise(t, X86_TRAP_GP_LINUX, 0, 0);
    return true;
}

/* Clocks the kernel's vDSO answers itself; the others take the syscall. */
static bool vdso_clock(int clk)
{
    return clk == CLOCK_REALTIME_LINUX || clk == CLOCK_MONOTONIC_LINUX ||
           clk == CLOCK_MONOTONIC_RAW_LINUX || clk == CLOCK_REALTIME_COARSE_LINUX ||
           clk == CLOCK_MONOTONIC_COARSE_LINUX || clk == CLOCK_BOOTTIME_LINUX || clk == 11;
}

static void finish(struct task *t, enum vdso_fn fn, int64_t result)
{
    cpu_set_reg(t->cpu, t->is64 ? UC_X86_REG_RAX : UC_X86_REG_EAX,
                t->is64 ? (uint64_t)result : (uint32_t)result);
    cpu_set_pc(t->cpu, t->mm->layout.vdso_fn_done[fn]);
}

/* The kernel's vDSO stores straight into user memory: a bad pointer is a
 * fault in user mode, SIGSEGV, not -EFAULT. */
static bool store(struct task *t, uint64_t addr, const void *v, size_t n)
{
    if (mm_write(t->mm, addr, v, n))
        return true;
    exception_page_fault(t, addr, mm_find(t->mm, addr) != NULL, ACCESS_READ, NULL);
    return false;
}

static int vdso_fn_at(const struct task *t, uint64_t pc)
{
    for (int i = 0; i < VDSO_NFN; i++)
        if (t->mm->layout.vdso_fn[i] == pc)
            return i;
    return -1;
}

bool vdso_time_serves(const struct task *t, uint64_t pc)
{
    return vdso_fn_at(t, pc) >= 0;
}

void vdso_time_hook(struct task *t, uint64_t pc)
{
    int fn = vdso_fn_at(t, pc);
    if (fn < 0)
        return;
    int64_t s, ns;
    switch ((enum vdso_fn)fn) {
    case VDSO_CLOCK_GETTIME:
    case VDSO_CLOCK_GETTIME64: {
        int clk = (int)arg(t, 0);
        if (!vdso_clock(clk) || (needs_tsc(clk) && tsc_fault(t)) ||
            guest_clock_gettime(t, clk, &s, &ns) < 0)
            return;
        bool wide = t->is64 || fn == VDSO_CLOCK_GETTIME64;
        int64_t w[2] = { s, ns };
        int32_t n[2] = { (int32_t)s, (int32_t)ns };
        if (store(t, arg(t, 1), wide ? (void *)w : (void *)n, wide ? 16 : 8))
            finish(t, fn, 0);
        return;
    }
    case VDSO_CLOCK_GETRES: {
        int clk = (int)arg(t, 0);
        if (!vdso_clock(clk) || guest_clock_getres(t, clk, &ns) < 0)
            return;
        uint64_t res = arg(t, 1);
        int64_t w[2] = { 0, ns };
        int32_t n[2] = { 0, (int32_t)ns };
        if (!res || store(t, res, t->is64 ? (void *)w : (void *)n, t->is64 ? 16 : 8))
            finish(t, fn, 0);
        return;
    }
    case VDSO_GETTIMEOFDAY: {
        if (arg(t, 0) && tsc_fault(t))
            return;
        guest_clock_gettime(t, CLOCK_REALTIME_LINUX, &s, &ns);
        uint64_t tv = arg(t, 0), tz = arg(t, 1);
        int64_t w[2] = { s, ns / 1000 };
        int32_t n[2] = { (int32_t)s, (int32_t)(ns / 1000) };
        int32_t zone[2] = { 0, 0 };
        if (tv && !store(t, tv, t->is64 ? (void *)w : (void *)n, t->is64 ? 16 : 8))
            return;
        if (tz && !store(t, tz, zone, sizeof(zone)))
            return;
        finish(t, fn, 0);
        return;
    }
    case VDSO_TIME: {
        guest_clock_gettime(t, CLOCK_REALTIME_LINUX, &s, &ns);
        uint64_t tloc = arg(t, 0);
        int32_t s32 = (int32_t)s;
        if (tloc && !store(t, tloc, t->is64 ? (void *)&s : (void *)&s32, t->is64 ? 8 : 4))
            return;
        finish(t, fn, s);
        return;
    }
    case VDSO_GETCPU: {
        uint32_t zero = 0;
        uint64_t cpu = arg(t, 0), node = arg(t, 1);
        if (cpu && !store(t, cpu, &zero, 4))
            return;
        if (node && !store(t, node, &zero, 4))
            return;
        finish(t, fn, 0);
        return;
    }
    case VDSO_NFN:
        return;
    }
}
