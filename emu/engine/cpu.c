#include "emu/engine/cpu.h"

#include <glib.h>
#include <string.h>

#include "abi/linux.h"
#include "abi/sigframe_linux.h"
#include "emu/engine/hostfault.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define CR0_MP (1u << 1)
#define CR0_EM (1u << 2)
#define CR0_NE (1u << 5)
#define CR0_AM (1u << 18)
#define CR4_TSD (1u << 2)
#define CR4_OSFXSR (1u << 9)
#define CR4_OSXMMEXCPT (1u << 10)
#define CR4_FSGSBASE (1u << 16)
#define CR4_OSXSAVE (1u << 18)

/* The CPU the guest sees: AMD's first EPYC (Zen), whose features the
 * engine trims at creation to those it implements (Unicorn's TCG feature
 * lists): SSE3, SSSE3, SSE4.1/4.2, SSE4a, POPCNT, LZCNT, MOVBE, AES,
 * PCLMULQDQ, BMI1/2, ADX, CX16, XSAVE, FSGSBASE, RDTSCP, AVX, AVX2, FMA,
 * F16C (x86-64-v3); no AVX-512.  Unicorn's
 * default, qemu64, stops at SSE3, so a guest that checks cpuid took the
 * slow paths, and a native run on any machine of the last fifteen years
 * differs from ours.  The vendor stays AMD, as qemu64's was.
 * tests/signals/cpuid.c checks that every bit reported runs. */
#define CPU_MODEL UC_CPU_X86_EPYC


/* Kernel page layout: the GDT first, then the stubs the CPU runs at CPL 0.
 * No sysenter stub: Unicorn never transfers on sysenter (see trap.c). */
#define KP_GDT 0x000
#define KP_IRET 0x200
#define KP_HALT 0x800
#define KP_STACK_TOP 0xff0 /* SYSENTER_ESP */

/* Flat descriptors; the accessed bit is preset so the CPU never needs to
 * write the (read-only) GDT. */
#define DESC_CODE32(dpl) (0x00cf9b000000ffffull | ((uint64_t)(dpl) << 45))
#define DESC_CODE64(dpl) (0x00af9b000000ffffull | ((uint64_t)(dpl) << 45))
#define DESC_DATA(dpl) (0x00cf93000000ffffull | ((uint64_t)(dpl) << 45))
/* setup_getcpu(): read-only expand-down data, accessed, DPL 3, 32-bit, its
 * limit (node << 12 | cpu) what lsl shows; CPU 0, node 0 here, as getcpu
 * and rdtscp's TSC_AUX say. */
#define DESC_CPUNODE 0x0040f50000000000ull

static uint8_t *kpage_host(struct cpu *c)
{
    if (c->own_kpage)
        return c->own_kpage;
    const struct vma *v = mm_find(c->mm, c->mm->layout.kpage);
    return v->host;
}

uint64_t cpu_kpage(const struct cpu *c)
{
    return c->mm->layout.kpage;
}

static err_t reg_write(struct cpu *c, int reg, uint64_t v)
{
    return UC_TRY(uc_reg_write(c->uc, reg, &v));
}

/* Just above user space for either ABI.  Not in the kernel's own half:
 * without paging Unicorn's linear addresses are physical, 52 bits wide. */
static err_t map_kernel_page(struct mm *mm, bool is64)
{
    mm->layout.kpage = is64 ? 0x0000800000000000ull : 0xfffff000ull;
    mm->layout.halt = mm->layout.kpage + KP_HALT;
    uint64_t saved_limit = mm->limit;
    mm->limit = mm->layout.kpage + 0x1000;
    err_t e = mm_map_fixed(mm, mm->layout.kpage, 0x1000, PROT_READ_LINUX | PROT_EXEC_LINUX,
                           "[kernel]", NULL);
    mm->limit = saved_limit;
    if (e)
        return e;
    mm_hide(mm, mm->layout.kpage);
    return OK;
}

/* An engine joining an mm that has one already gets a kernel page of its
 * own in place of the mm's, a copy of it. */
static err_t own_kernel_page(struct cpu *c)
{
    const struct vma *v = mm_find(c->mm, c->mm->layout.kpage);
    uint8_t *page = g_aligned_alloc0(1, 0x1000, 0x1000);
    memcpy(page, v->host, 0x1000);
    err_t e = UC_TRY(uc_mem_unmap(c->uc, c->mm->layout.kpage, 0x1000));
    if (!e)
        e = UC_TRY(uc_mem_map_ptr(c->uc, c->mm->layout.kpage, 0x1000, mm_uc_prot(v->prot), page));
    if (e) {
        g_aligned_free(page);
        return e;
    }
    c->own_kpage = page;
    return OK;
}

err_t cpu_join_group(struct cpu *c)
{
    if (!c->mm->group) {
        err_t e = UC_TRY(uc_parallel_group_open(&c->mm->group));
        if (e)
            return e;
    }
    return UC_TRY(uc_ctl_parallel_group(c->uc, c->mm->group));
}

uc_err cpu_emu_start(struct cpu *c, uint64_t pc, uint64_t until)
{
    if (!mm_window_activate(c->mm, c->uc))
        return uc_emu_start(c->uc, pc, until, 0, 0);
    hostfault_enter(c->uc, &c->mm->windows);
    uc_err e = uc_emu_start(c->uc, pc, until, 0, 0);
    hostfault_leave();
    return e;
}

err_t cpu_open(struct cpu *c, struct mm *mm, bool is64)
{
    *c = (struct cpu){ .is64 = is64 };
    err_t e = UC_TRY(uc_open(UC_ARCH_X86, is64 ? UC_MODE_64 : UC_MODE_32, &c->uc));
    if (e)
        return e;
    bool second = mm->engines->len > 0;
    /* before anything creates the CPU */
    if ((e = UC_TRY(uc_ctl_set_cpu_model(c->uc, CPU_MODEL))) || (e = mm_attach_engine(mm, c->uc))) {
        uc_close(c->uc);
        c->uc = NULL;
        return e;
    }
    c->mm = mm_ref(mm);
    if (!mm->layout.kpage && (e = map_kernel_page(mm, is64)))
        return e;
    if (second && (e = own_kernel_page(c)))
        return e;

    uint8_t *kp = kpage_host(c);
    uint64_t gdt[GDT_ENTRIES_LINUX] = { 0 };
    gdt[GDT_ENTRY_KERNEL32_CS_LINUX] = DESC_CODE32(0);
    gdt[GDT_ENTRY_KERNEL_CS_LINUX] = is64 ? DESC_CODE64(0) : DESC_CODE32(0);
    gdt[GDT_ENTRY_KERNEL_DS_LINUX] = DESC_DATA(0);
    gdt[GDT_ENTRY_USER32_CS_LINUX] = DESC_CODE32(3);
    gdt[GDT_ENTRY_USER_DS_LINUX] = DESC_DATA(3);
    /* A 32-bit engine cannot run 64-bit code: there the 64-bit selector
     * is present-bit clear, so a far transfer to 0x33 faults (#NP, SIGBUS)
     * instead of running 64-bit code as 16-bit code.  The call it might
     * have made is never reached, let alone let through. */
    gdt[GDT_ENTRY_USER_CS_LINUX] = is64 ? DESC_CODE64(3) : DESC_CODE64(3) & ~(1ull << 47);
    gdt[GDT_ENTRY_CPUNODE_LINUX] = DESC_CPUNODE;
    memcpy(kp + KP_GDT, gdt, sizeof(gdt));
    static const uint8_t iret32[] = { 0xcf }, iret64[] = { 0x48, 0xcf };
    if (is64)
        memcpy(kp + KP_IRET, iret64, sizeof(iret64));
    else
        memcpy(kp + KP_IRET, iret32, sizeof(iret32));
    kp[KP_HALT] = 0xf4;

    uc_x86_mmr gdtr = { .base = mm->layout.kpage + KP_GDT, .limit = sizeof(gdt) - 1 };
    if ((e = UC_TRY(uc_reg_write(c->uc, UC_X86_REG_GDTR, &gdtr))))
        return e;

    uint64_t cr0 = 0, cr4 = 0;
    if ((e = UC_TRY(uc_reg_read(c->uc, UC_X86_REG_CR0, &cr0))) ||
        (e = UC_TRY(uc_reg_read(c->uc, UC_X86_REG_CR4, &cr4))))
        return e;
    /* SSE on, x87 native, alignment checking left to EFLAGS.AC: what
     * Linux sets for every task (CR0_STATE). */
    cr0 = (cr0 | CR0_MP | CR0_NE | CR0_AM) & ~(uint64_t)CR0_EM;
    cr4 |= CR4_OSFXSR | CR4_OSXMMEXCPT;
    /* The model has XSAVE and FSGSBASE, and Linux enables both. */
    cr4 |= CR4_OSXSAVE | CR4_FSGSBASE;
    if ((e = reg_write(c, UC_X86_REG_CR0, cr0)) || (e = reg_write(c, UC_X86_REG_CR4, cr4)))
        return e;
    /* XCR0 as Linux leaves it: every component the model has (the engine's
     * reset sets them all), which the signal frames then carry. */
    if ((e = UC_TRY(uc_reg_read(c->uc, UC_X86_REG_XCR0, &c->xcr0))))
        return e;
    if ((c->xcr0 & ~(uint64_t)(XFEATURE_MASK_FP_LINUX | XFEATURE_MASK_SSE_LINUX |
                                XFEATURE_MASK_YMM_LINUX)) ||
        !(c->xcr0 & XFEATURE_MASK_SSE_LINUX))
        return err_new("XCR0 0x%llx: state components the signal frames cannot hold",
                       (unsigned long long)c->xcr0);
    /* A copy made by fork has the parent's LDT (ldt_dup_context()). */
    if (mm->layout.ldt_entries)
        cpu_load_ldt(c);

    return OK;
}

void cpu_close(struct cpu *c)
{
    if (!c->uc)
        return;
    if (c->mm) {
        /* Out of the group before the mm, which may close it, goes. */
        if (c->mm->group)
            (void)uc_ctl_parallel_group(c->uc, NULL);
        mm_detach_engine(c->mm, c->uc);
        mm_unref(c->mm);
        c->mm = NULL;
    }
    uc_close(c->uc);
    c->uc = NULL;
    g_aligned_free(c->own_kpage);
    c->own_kpage = NULL;
}

err_t cpu_prepare_user(struct cpu *c, uint64_t entry, uint64_t sp, uint64_t *start)
{
    err_t e;
    uint64_t frame = (sp - 64) & ~15ull;
    uint64_t user_cs = c->is64 ? SEL_USER_CS_LINUX : SEL_USER32_CS_LINUX;
    /* Linux starts user code with IF set and all else clear. */
    uint64_t words[5] = { entry, user_cs, 0x202, sp, SEL_USER_DS_LINUX };
    if (c->is64) {
        if (!mm_write(c->mm, frame, words, sizeof(words)))
            return err_new("initial stack is not writable");
        if ((e = reg_write(c, UC_X86_REG_RSP, frame)))
            return e;
    } else {
        uint32_t w32[5];
        for (int i = 0; i < 5; i++)
            w32[i] = (uint32_t)words[i];
        if (!mm_write(c->mm, frame, w32, sizeof(w32)))
            return err_new("initial stack is not writable");
        /* Ring 0 selectors from our GDT first, so iret checks pass. */
        if ((e = reg_write(c, UC_X86_REG_SS, SEL_KERNEL_DS_LINUX)) ||
            (e = reg_write(c, UC_X86_REG_CS, SEL_KERNEL_CS_LINUX)) ||
            (e = reg_write(c, UC_X86_REG_DS, SEL_USER_DS_LINUX)) ||
            (e = reg_write(c, UC_X86_REG_ES, SEL_USER_DS_LINUX)) ||
            (e = reg_write(c, UC_X86_REG_FS, 0)) || (e = reg_write(c, UC_X86_REG_GS, 0)) ||
            (e = reg_write(c, UC_X86_REG_ESP, frame)))
            return e;
    }
    /* ELF_PLAT_INIT: every general register starts at zero. */
    static const int gprs64[] = { UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX,
                                  UC_X86_REG_RDX, UC_X86_REG_RSI, UC_X86_REG_RDI,
                                  UC_X86_REG_RBP, UC_X86_REG_R8,  UC_X86_REG_R9,
                                  UC_X86_REG_R10, UC_X86_REG_R11, UC_X86_REG_R12,
                                  UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15 };
    static const int gprs32[] = { UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX,
                                  UC_X86_REG_EDX, UC_X86_REG_ESI, UC_X86_REG_EDI,
                                  UC_X86_REG_EBP };
    const int *gprs = c->is64 ? gprs64 : gprs32;
    size_t n = c->is64 ? G_N_ELEMENTS(gprs64) : G_N_ELEMENTS(gprs32);
    for (size_t i = 0; i < n; i++)
        if ((e = reg_write(c, gprs[i], 0)))
            return e;
    *start = cpu_kpage(c) + KP_IRET;
    return OK;
}

err_t cpu_iret_to_user(struct cpu *c, uint64_t ip, uint16_t cs, uint64_t flags, uint64_t sp,
                       uint16_t ss, uint64_t *start)
{
    if (c->is64)
        return err_new("no CPL 0 stub stops a 64-bit task");
    /* The frame goes on the kernel page's stack (SYSENTER_ESP), written
     * host-side: the page is read-only to the CPU. */
    uint32_t w[5] = { (uint32_t)ip, cs, (uint32_t)flags, (uint32_t)sp, ss };
    uint64_t frame = cpu_kpage(c) + KP_STACK_TOP - sizeof(w);
    memcpy(kpage_host(c) + (frame - cpu_kpage(c)), w, sizeof(w));
    err_t e = reg_write(c, UC_X86_REG_ESP, frame);
    if (e)
        return e;
    *start = cpu_kpage(c) + KP_IRET;
    return OK;
}

void cpu_set_tsc_off(struct cpu *c, bool off)
{
    uint64_t cr4 = cpu_reg(c, UC_X86_REG_CR4);
    if (!!(cr4 & CR4_TSD) != off)
        cpu_set_reg(c, UC_X86_REG_CR4, off ? cr4 | CR4_TSD : cr4 & ~(uint64_t)CR4_TSD);
}

void cpu_load_tls(struct cpu *c, unsigned first, unsigned n, const uint8_t (*desc)[8])
{
    memcpy(kpage_host(c) + KP_GDT + first * 8, desc, n * 8);
}

void cpu_reload_tls_segments(struct cpu *c)
{
    static const int segs[] = { UC_X86_REG_DS, UC_X86_REG_ES, UC_X86_REG_FS, UC_X86_REG_GS };
    uint64_t sel[4];
    cpu_regs(c, segs, sel, 4);
    for (size_t i = 0; i < G_N_ELEMENTS(segs); i++) {
        unsigned index = (unsigned)(sel[i] & 0xffff) >> 3;
        if ((sel[i] & 4) || index < GDT_ENTRY_TLS_MIN_LINUX ||
            index >= GDT_ENTRY_TLS_MIN_LINUX + GDT_ENTRY_TLS_ENTRIES_LINUX)
            continue;
        /* A 64-bit task's FS/GS base set by arch_prctl goes with a null
         * selector, and is not touched here. */
        /* A descriptor the CPU refuses now faults where it is used. */
        err_free(reg_write(c, segs[i], sel[i] & 0xffff));
    }
}

err_t cpu_set_tls(struct cpu *c, unsigned index, const uint8_t desc[8])
{
    uint8_t *kp = kpage_host(c);
    memcpy(kp + KP_GDT + index * 8, desc, 8);
    /* Segment registers cache descriptors; Linux reloads the ones that
     * name the entry it changed, and so do we. */
    uint64_t sel = index * 8 + 3;
    static const int segs[] = { UC_X86_REG_DS, UC_X86_REG_ES, UC_X86_REG_FS, UC_X86_REG_GS };
    for (size_t i = 0; i < G_N_ELEMENTS(segs); i++) {
        uint64_t cur = 0;
        err_t e = UC_TRY(uc_reg_read(c->uc, segs[i], &cur));
        if (e)
            return e;
        if ((cur & 0xffff) == sel && (e = reg_write(c, segs[i], sel)))
            return e;
    }
    return OK;
}

/* Where the LDT goes, out of the guest's reach: in 64-bit mode right past
 * seccomp-emu's page, LDT_ENTRIES' full 64 KiB; in 32-bit mode, where the
 * engine's linear addresses are 32 bits and that page is the last, the one
 * page between TASK_SIZE (0xffffe000) and it: 512 entries. */
static uint64_t ldt_base(const struct cpu *c)
{
    return c->is64 ? c->mm->layout.kpage + 0x1000 : TASK_SIZE_IA32_LINUX;
}

unsigned cpu_ldt_capacity(const struct cpu *c)
{
    return c->is64 ? LDT_ENTRIES_LINUX : (unsigned)((c->mm->layout.kpage - ldt_base(c)) / 8);
}

static uint8_t *ldt_host(struct cpu *c)
{
    const struct vma *v = c->mm->layout.ldt ? mm_find(c->mm, c->mm->layout.ldt) : NULL;
    return v ? v->host : NULL;
}

err_t cpu_ldt_resize(struct cpu *c, unsigned entries, uint8_t **table)
{
    struct mm *mm = c->mm;
    if (entries > cpu_ldt_capacity(c))
        return err_new("an LDT of %u entries: this engine has room for %u", entries,
                       cpu_ldt_capacity(c));
    if (!mm->layout.ldt) {
        uint64_t base = ldt_base(c), len = (uint64_t)cpu_ldt_capacity(c) * 8;
        uint64_t saved_limit = mm->limit;
        mm->limit = base + len;
        err_t e = mm_map_fixed(mm, base, len, PROT_READ_LINUX, "[ldt]", NULL);
        mm->limit = saved_limit;
        if (e)
            return e;
        mm_hide(mm, base);
        mm->layout.ldt = base;
    }
    mm->layout.ldt_entries = entries;
    cpu_load_ldt(c);
    *table = ldt_host(c);
    return OK;
}

const uint8_t *cpu_ldt(struct cpu *c, unsigned *entries)
{
    *entries = c->mm->layout.ldt_entries;
    return *entries ? ldt_host(c) : NULL;
}

void cpu_load_ldt(struct cpu *c)
{
    const struct kernel_layout *l = &c->mm->layout;
    /* A present LDT system descriptor's attributes (type 2, P); with no
     * table, a null LDTR: every selector naming it faults. */
    uc_x86_mmr ldtr = { .selector = 0, .base = l->ldt_entries ? l->ldt : 0,
                        .limit = l->ldt_entries ? l->ldt_entries * 8 - 1 : 0,
                        .flags = l->ldt_entries ? 0x8200 : 0 };
    /* Only an unknown register id fails: a bug, as in cpu_set_reg(). */
    err_t e = UC_TRY(uc_reg_write(c->uc, UC_X86_REG_LDTR, &ldtr));
    if (e)
        g_error("LDTR: %s", e);
}

/* Could `sel` be loaded into DS or ES: a present data or readable code
 * segment whose DPL the selector and CPL 3 may use (load_segment()'s
 * checks; conforming code takes any DPL). */
static bool loadable_data(struct cpu *c, uint16_t sel)
{
    unsigned index = sel >> 3, n;
    const uint8_t *table;
    if (sel & 4)
        table = cpu_ldt(c, &n);
    else
        table = kpage_host(c) + KP_GDT, n = GDT_ENTRIES_LINUX;
    if (!table || index >= n)
        return false;
    uint64_t d;
    memcpy(&d, table + index * 8, 8);
    unsigned type = (unsigned)(d >> 40) & 0xf, dpl = (unsigned)(d >> 45) & 3;
    bool present = d & (1ull << 47), system = !(d & (1ull << 44));
    bool code = type & 8, readable = type & 2, conforming = code && (type & 4);
    if (system || (code && !readable))
        return false;
    if (!conforming && dpl < 3)
        return false; /* DPL < max(CPL 3, RPL) */
    return present;
}

void cpu_refresh_ldt_segments(struct cpu *c)
{
    static const int segs[] = { UC_X86_REG_DS, UC_X86_REG_ES };
    for (size_t i = 0; i < G_N_ELEMENTS(segs); i++) {
        uint16_t sel = (uint16_t)cpu_reg(c, segs[i]);
        if (!(sel & 4))
            continue;
        err_t e = loadable_data(c, sel) ? reg_write(c, segs[i], sel) : err_new("refused");
        if (e) {
            err_free(e);
            cpu_set_reg(c, segs[i], 0);
        }
    }
}

uint64_t cpu_pc(struct cpu *c)
{
    return cpu_reg(c, c->is64 ? UC_X86_REG_RIP : UC_X86_REG_EIP);
}

void cpu_set_pc(struct cpu *c, uint64_t pc)
{
    cpu_set_reg(c, c->is64 ? UC_X86_REG_RIP : UC_X86_REG_EIP, pc);
}

/* Only an unknown register id can make these fail: a bug in seccomp-emu,
 * never something a guest can cause, so it is reported and fatal. */
uint64_t cpu_reg(struct cpu *c, int reg)
{
    uint64_t v = 0;
    uc_err e = uc_reg_read(c->uc, reg, &v);
    if (e != UC_ERR_OK)
        g_error("uc_reg_read(%d): %s", reg, uc_strerror(e));
    return v;
}

void cpu_regs(struct cpu *c, const int *ids, uint64_t *out, int n)
{
    void *ptrs[CPU_BATCH_MAX];
    g_assert(n <= CPU_BATCH_MAX);
    for (int i = 0; i < n; i++) {
        out[i] = 0; /* a 32-bit register fills only the low half */
        ptrs[i] = &out[i];
    }
    uc_err e = uc_reg_read_batch(c->uc, (int *)ids, ptrs, n);
    if (e != UC_ERR_OK)
        g_error("uc_reg_read_batch: %s", uc_strerror(e));
}

void cpu_set_reg(struct cpu *c, int reg, uint64_t v)
{
    uc_err e = uc_reg_write(c->uc, reg, &v);
    if (e != UC_ERR_OK)
        g_error("uc_reg_write(%d): %s", reg, uc_strerror(e));
}

bool cpu_valid_user_data(struct cpu *c, uint16_t sel)
{
    /* No LDT: a selector naming it names nothing. */
    unsigned index = sel >> 3;
    if ((sel & 4) || index == 0 || index >= GDT_ENTRIES_LINUX)
        return false;
    uint64_t d;
    memcpy(&d, kpage_host(c) + KP_GDT + index * 8, 8);
    bool present = d & (1ull << 47), system = !(d & (1ull << 44));
    unsigned dpl = (unsigned)(d >> 45) & 3, type = (unsigned)(d >> 40) & 0xf;
    bool code = type & 8, writable = type & 2;
    return present && !system && dpl == 3 && !code && writable;
}

bool cpu_in_64bit_code(struct cpu *c)
{
    return c->is64 && (cpu_reg(c, UC_X86_REG_CS) & 0xffff) == SEL_USER_CS_LINUX;
}

/* --cpu=host: the vendor of the x86 CPU underneath, else Intel.  On x86,
 * CPUID says.  Elsewhere there is usually none and Intel is the default;
 * but an x86 machine running this build under a user-mode emulator
 * (scripts/test-arm64.sh: qemu-aarch64 passes the real /proc/cpuinfo
 * through) runs the native legs on that CPU, and the harnesses
 * (tools/recording.c, tests/native_oracle.py) read the same vendor_id line
 * by the same rule: AMD or Hygon -> AMD, anything else -> Intel
 * (docs/portability.md). */
static enum vendor vendor_from_id(const char *id)
{
    /* Hygon follows AMD's rules for the 32-bit fast entries. */
    return !strcmp(id, "AuthenticAMD") || !strcmp(id, "HygonGenuine") ? VENDOR_AMD : VENDOR_INTEL;
}

enum vendor cpu_host_vendor(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        char v[13];
        memcpy(v, &b, 4);
        memcpy(v + 4, &d, 4);
        memcpy(v + 8, &c, 4);
        v[12] = 0;
        return vendor_from_id(v);
    }
#elif defined(__linux__)
    gchar *text = NULL;
    enum vendor v = VENDOR_INTEL;
    if (g_file_get_contents("/proc/cpuinfo", &text, NULL, NULL)) {
        const char *line = strstr(text, "\nvendor_id");
        line = line ? line + 1 : g_str_has_prefix(text, "vendor_id") ? text : NULL;
        const char *colon = line ? strchr(line, ':') : NULL;
        if (colon) {
            gchar *id = g_strndup(colon + 1, strcspn(colon + 1, "\n"));
            v = vendor_from_id(g_strstrip(id));
            g_free(id);
        }
        g_free(text);
    }
    return v;
#endif
    return VENDOR_INTEL;
}
