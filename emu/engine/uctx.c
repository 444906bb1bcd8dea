#include "emu/engine/uctx.h"

#include <string.h>

#include "abi/sigframe_linux.h"
#include "abi/signal_linux.h"
#include "emu/engine/cpu.h"

static const int gpr64[UR_NREGS] = {
    UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX,
    UC_X86_REG_RSP, UC_X86_REG_RBP, UC_X86_REG_RSI, UC_X86_REG_RDI,
    UC_X86_REG_R8,  UC_X86_REG_R9,  UC_X86_REG_R10, UC_X86_REG_R11,
    UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
};
static const int gpr32[8] = {
    UC_X86_REG_EAX, UC_X86_REG_ECX, UC_X86_REG_EDX, UC_X86_REG_EBX,
    UC_X86_REG_ESP, UC_X86_REG_EBP, UC_X86_REG_ESI, UC_X86_REG_EDI,
};
static const int segs[6] = { UC_X86_REG_CS, UC_X86_REG_SS, UC_X86_REG_DS,
                             UC_X86_REG_ES, UC_X86_REG_FS, UC_X86_REG_GS };

static void fpu_read(struct cpu *cpu, struct uctx_fpu *f)
{
    memset(f, 0, sizeof(*f));
    f->fcw = (uint16_t)cpu_reg(cpu, UC_X86_REG_FPCW);
    f->fsw = (uint16_t)cpu_reg(cpu, UC_X86_REG_FPSW);
    f->ftw = (uint16_t)cpu_reg(cpu, UC_X86_REG_FPTAG);
    f->fop = (uint16_t)cpu_reg(cpu, UC_X86_REG_FOP);
    f->fip = cpu_reg(cpu, UC_X86_REG_FIP);
    f->fdp = cpu_reg(cpu, UC_X86_REG_FDP);
    f->mxcsr = (uint32_t)cpu_reg(cpu, UC_X86_REG_MXCSR);
    for (int i = 0; i < 8; i++) {
        uint8_t buf[16] = { 0 };
        uc_err e = uc_reg_read(cpu->uc, UC_X86_REG_ST0 + i, buf);
        if (e != UC_ERR_OK)
            g_error("uc_reg_read(ST%d): %s", i, uc_strerror(e));
        memcpy(f->st[i], buf, 10);
    }
    int nxmm = cpu->is64 ? 16 : 8;
    for (int i = 0; i < nxmm; i++) {
        if (cpu->xcr0 & XFEATURE_MASK_YMM_LINUX) {
            uint8_t ymm[32];
            uc_err e = uc_reg_read(cpu->uc, UC_X86_REG_YMM0 + i, ymm);
            if (e != UC_ERR_OK)
                g_error("uc_reg_read(YMM%d): %s", i, uc_strerror(e));
            memcpy(f->xmm[i], ymm, 16);
            memcpy(f->ymmh[i], ymm + 16, 16);
            continue;
        }
        uc_err e = uc_reg_read(cpu->uc, UC_X86_REG_XMM0 + i, f->xmm[i]);
        if (e != UC_ERR_OK)
            g_error("uc_reg_read(XMM%d): %s", i, uc_strerror(e));
    }
}

static void fpu_write(struct cpu *cpu, const struct uctx_fpu *f)
{
    /* TOP lives in FSW: set it before the ST(i) registers, which are
     * addressed relative to it. */
    cpu_set_reg(cpu, UC_X86_REG_FPSW, f->fsw);
    cpu_set_reg(cpu, UC_X86_REG_FPCW, f->fcw);
    for (int i = 0; i < 8; i++) {
        uint8_t buf[16] = { 0 };
        memcpy(buf, f->st[i], 10);
        uc_err e = uc_reg_write(cpu->uc, UC_X86_REG_ST0 + i, buf);
        if (e != UC_ERR_OK)
            g_error("uc_reg_write(ST%d): %s", i, uc_strerror(e));
    }
    cpu_set_reg(cpu, UC_X86_REG_FPTAG, f->ftw);
    cpu_set_reg(cpu, UC_X86_REG_FOP, f->fop);
    cpu_set_reg(cpu, UC_X86_REG_FIP, f->fip);
    cpu_set_reg(cpu, UC_X86_REG_FDP, f->fdp);
    cpu_set_reg(cpu, UC_X86_REG_MXCSR, f->mxcsr);
    int nxmm = cpu->is64 ? 16 : 8;
    for (int i = 0; i < nxmm; i++) {
        if (cpu->xcr0 & XFEATURE_MASK_YMM_LINUX) {
            uint8_t ymm[32];
            memcpy(ymm, f->xmm[i], 16);
            memcpy(ymm + 16, f->ymmh[i], 16);
            uc_err e = uc_reg_write(cpu->uc, UC_X86_REG_YMM0 + i, ymm);
            if (e != UC_ERR_OK)
                g_error("uc_reg_write(YMM%d): %s", i, uc_strerror(e));
            continue;
        }
        uc_err e = uc_reg_write(cpu->uc, UC_X86_REG_XMM0 + i, f->xmm[i]);
        if (e != UC_ERR_OK)
            g_error("uc_reg_write(XMM%d): %s", i, uc_strerror(e));
    }
}

bool uctx_ymm_in_use(const struct uctx_fpu *f)
{
    static const uint8_t zero[sizeof(f->ymmh)];
    return memcmp(f->ymmh, zero, sizeof(zero)) != 0;
}

void uctx_fpu_init(struct uctx_fpu *f)
{
    memset(f, 0, sizeof(*f));
    f->fcw = 0x37f;
    f->ftw = 0xffff;
    f->mxcsr = 0x1f80;
}

void uctx_fpu_reset(struct cpu *cpu)
{
    struct uctx_fpu f;
    uctx_fpu_init(&f);
    fpu_write(cpu, &f);
}

uint8_t uctx_ftw_abridged(uint16_t full)
{
    uint8_t a = 0;
    for (int i = 0; i < 8; i++)
        if (((full >> (2 * i)) & 3) != 3)
            a |= (uint8_t)(1u << i);
    return a;
}

/* twd_fxsr_to_i387: the tag of a non-empty register from its contents.
 * Physical register i holds ST((i - TOP) & 7). */
uint16_t uctx_ftw_full(const struct uctx_fpu *f, uint8_t abridged)
{
    unsigned top = (f->fsw >> 11) & 7;
    uint16_t full = 0;
    for (unsigned i = 0; i < 8; i++) {
        unsigned tag = 3;
        if (abridged & (1u << i)) {
            const uint8_t *r = f->st[(i - top) & 7];
            uint64_t mant;
            uint16_t exp;
            memcpy(&mant, r, 8);
            memcpy(&exp, r + 8, 2);
            exp &= 0x7fff;
            if (exp == 0x7fff)
                tag = 2;
            else if (exp == 0)
                tag = mant ? 2 : 1;
            else
                tag = (mant >> 63) ? 0 : 2;
        }
        full |= (uint16_t)(tag << (2 * i));
    }
    return full;
}

bool uctx_at_sysexit(struct cpu *cpu)
{
    /* sysenter is emulated whole in trap.c's SYSENTER hook (Unicorn never
     * transfers), so the CPU never stops at CPL 0 between a fast call and
     * user mode: the registers are always the user's. */
    (void)cpu;
    return false;
}

void uctx_read(struct cpu *cpu, struct uctx *c)
{
    memset(c, 0, sizeof(*c));
    if (cpu->is64) {
        cpu_regs(cpu, gpr64, c->r, UR_NREGS);
        c->ip = cpu_reg(cpu, UC_X86_REG_RIP);
        c->flags = cpu_reg(cpu, UC_X86_REG_RFLAGS);
    } else {
        cpu_regs(cpu, gpr32, c->r, 8);
        c->ip = cpu_reg(cpu, UC_X86_REG_EIP);
        c->flags = cpu_reg(cpu, UC_X86_REG_EFLAGS);
    }
    uint64_t s[6];
    cpu_regs(cpu, segs, s, 6);
    c->cs = (uint16_t)s[0];
    c->ss = (uint16_t)s[1];
    c->ds = (uint16_t)s[2];
    c->es = (uint16_t)s[3];
    c->fs = (uint16_t)s[4];
    c->gs = (uint16_t)s[5];
    if (uctx_at_sysexit(cpu)) {
        /* What sysexit was about to load: eip from edx, esp from ecx, the
         * user selectors; ecx and edx themselves are on the user stack,
         * where __kernel_vsyscall pushed them (ebp, edx, ecx). */
        uint32_t sp = (uint32_t)c->r[UR_CX];
        uint32_t saved[3] = { 0, 0, 0 };
        c->ip = (uint32_t)c->r[UR_DX];
        c->r[UR_SP] = sp;
        if (mm_read(cpu->mm, sp, saved, sizeof(saved))) {
            c->r[UR_DX] = saved[1];
            c->r[UR_CX] = saved[2];
        }
        c->cs = SEL_USER32_CS_LINUX;
        c->ss = SEL_USER_DS_LINUX;
    }
    /* User mode always runs with interrupts on; the CPL 0 stubs (sysenter)
     * clear IF without Linux's matching sti. */
    c->flags |= X86_EFLAGS_IF_LINUX;
    fpu_read(cpu, &c->fpu);
}

static err_t load_seg(struct cpu *cpu, int reg, uint16_t now, uint16_t want)
{
    if (now == want)
        return OK;
    uint64_t v = want;
    uc_err e = uc_reg_write(cpu->uc, reg, &v);
    if (e != UC_ERR_OK)
        return err_new("segment selector 0x%x refused: %s", want, uc_strerror(e));
    return OK;
}

/* Linux loads a data segment register of user context with loadsegment()
 * or load_gs_index(), whose exception fixup loads the null selector
 * instead of one the CPU refuses: a bad DS, ES, FS or GS in a sigreturn
 * frame leaves the register null, with no signal. */
static void load_data_seg(struct cpu *cpu, int reg, uint16_t now, uint16_t want)
{
    err_t e = load_seg(cpu, reg, now, want);
    if (!e)
        return;
    err_free(e);
    if ((e = load_seg(cpu, reg, now, 0))) {
        /* The null selector always loads: not reached. */
        g_critical("%s", e);
        err_free(e);
    }
}

err_t uctx_write(struct cpu *cpu, const struct uctx *c, uint64_t *start)
{
    fpu_write(cpu, &c->fpu);
    if (cpu->is64) {
        void *ptrs[UR_NREGS];
        for (int i = 0; i < UR_NREGS; i++)
            ptrs[i] = (void *)&c->r[i];
        uc_err e = uc_reg_write_batch(cpu->uc, (int *)gpr64, ptrs, UR_NREGS);
        if (e != UC_ERR_OK)
            g_error("uc_reg_write_batch: %s", uc_strerror(e));
    } else {
        uint32_t r32[8];
        void *ptrs[8];
        for (int i = 0; i < 8; i++) {
            r32[i] = (uint32_t)c->r[i];
            ptrs[i] = &r32[i];
        }
        uc_err e = uc_reg_write_batch(cpu->uc, (int *)gpr32, ptrs, 8);
        if (e != UC_ERR_OK)
            g_error("uc_reg_write_batch: %s", uc_strerror(e));
    }
    uint64_t s[6];
    cpu_regs(cpu, segs, s, 6);
    err_t e;
    /* In 64-bit mode a selector load would also reset the FS/GS base the
     * guest set with arch_prctl; Linux's 64-bit sigreturn leaves them. */
    if (!cpu->is64) {
        load_data_seg(cpu, UC_X86_REG_DS, (uint16_t)s[2], c->ds);
        load_data_seg(cpu, UC_X86_REG_ES, (uint16_t)s[3], c->es);
        load_data_seg(cpu, UC_X86_REG_FS, (uint16_t)s[4], c->fs);
        load_data_seg(cpu, UC_X86_REG_GS, (uint16_t)s[5], c->gs);
    }
    /* iret refuses a null code segment (#GP), which Unicorn would load
     * and run with, single-stepping first when TF is set. */
    if (!(c->cs & ~3))
        return err_new("null code segment selector 0x%x refused", c->cs);
    if ((s[0] & 3) == 0) {
        /* Stopped on a CPL 0 stub (sysenter): leave through the iret
         * stub, as the first entry to user mode did. */
        return cpu_iret_to_user(cpu, c->ip, c->cs, c->flags, c->r[UR_SP], c->ss, start);
    }
    if ((e = load_seg(cpu, UC_X86_REG_CS, (uint16_t)s[0], c->cs)) ||
        (e = load_seg(cpu, UC_X86_REG_SS, (uint16_t)s[1], c->ss)))
        return e;
    cpu_set_reg(cpu, cpu->is64 ? UC_X86_REG_RFLAGS : UC_X86_REG_EFLAGS, c->flags);
    cpu_set_pc(cpu, c->ip);
    *start = c->ip;
    return OK;
}
