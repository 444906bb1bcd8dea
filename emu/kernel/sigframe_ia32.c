/* ia32's frames (arch/x86/include/asm/sigframe.h), for 32-bit guests:
 *
 *   sigframe_ia32                      rt_sigframe_ia32
 *   0   pretcode                       0   pretcode
 *   4   sig                            4   sig
 *   8   struct sigcontext_32 (88)      8   pinfo
 *   96  struct _fpstate_32, unused     12  puc
 *   720 extramask (the mask's word 1)  16  compat_siginfo (128)
 *   724 retcode (8)                    144 struct ucontext_ia32 (116)
 *   732 end                            260 retcode (8)
 *                                      268 end
 *
 * The FPU state follows the frame: the FSAVE header (struct fregs_state,
 * 112 bytes) and then the FXSAVE image, 64-byte aligned; sigcontext's
 * fpstate points at the header. */
#include <string.h>

#include "emu/kernel/sigframe_priv.h"
#include "abi/signal_linux.h"

#define NR_SIGRETURN_IA32 119
#define NR_RT_SIGRETURN_IA32 173

#define SF_SIG 4
#define SF_SC 8
#define SF_EXTRAMASK 720
#define SF_RETCODE 724
#define SF_SIZE 732

#define RT_SIG 4
#define RT_PINFO 8
#define RT_PUC 12
#define RT_INFO 16
#define RT_UC 144
#define RT_RETCODE 260
#define RT_SIZE 268

/* ucontext_ia32, relative to RT_UC */
#define UC_FLAGS 0
#define UC_LINK 4
#define UC_STACK_SP 8
#define UC_STACK_FLAGS 12
#define UC_STACK_SIZE 16
#define UC_MCONTEXT 20
#define UC_SIGMASK 108

/* sigcontext_32 */
#define SC_GS 0
#define SC_FS 4
#define SC_ES 8
#define SC_DS 12
#define SC_DI 16 /* edi, esi, ebp, esp, ebx, edx, ecx, eax */
#define SC_TRAPNO 48
#define SC_ERR 52
#define SC_IP 56
#define SC_CS 60
#define SC_FLAGS 64
#define SC_SP_AT_SIGNAL 68
#define SC_SS 72
#define SC_FPSTATE 76
#define SC_OLDMASK 80
#define SC_CR2 84
#define SC_SIZE 88

#define FSAVE_HDR 112

static const int sc_order[] = { UR_DI, UR_SI, UR_BP, UR_SP, UR_BX, UR_DX, UR_CX, UR_AX };

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static void put_sigcontext(uint8_t *sc, const struct sigframe_in *in, uint32_t fpstate)
{
    const struct uctx *r = in->regs;
    memset(sc, 0, SC_SIZE);
    put32(sc + SC_GS, r->gs);
    put32(sc + SC_FS, r->fs);
    put32(sc + SC_ES, r->es);
    put32(sc + SC_DS, r->ds);
    for (size_t i = 0; i < G_N_ELEMENTS(sc_order); i++)
        put32(sc + SC_DI + 4 * i, (uint32_t)r->r[sc_order[i]]);
    put32(sc + SC_TRAPNO, (uint32_t)in->trapno);
    put32(sc + SC_ERR, (uint32_t)in->err);
    put32(sc + SC_IP, (uint32_t)r->ip);
    put32(sc + SC_CS, r->cs);
    put32(sc + SC_FLAGS, (uint32_t)r->flags);
    put32(sc + SC_SP_AT_SIGNAL, (uint32_t)r->r[UR_SP]);
    put32(sc + SC_SS, r->ss);
    put32(sc + SC_FPSTATE, fpstate);
    put32(sc + SC_OLDMASK, (uint32_t)in->mask);
    put32(sc + SC_CR2, (uint32_t)in->cr2);
}

/* The FSAVE header a 64-bit kernel writes for an ia32 frame
 * (convert_from_fxsr, save_fsave_header). */
static void put_fsave_header(uint8_t h[FSAVE_HDR], const struct uctx *r)
{
    const struct uctx_fpu *f = &r->fpu;
    memset(h, 0, FSAVE_HDR);
    put32(h, 0xffff0000u | f->fcw);
    put32(h + 4, 0xffff0000u | f->fsw);
    put32(h + 8, 0xffff0000u | uctx_ftw_full(f, uctx_ftw_abridged(f->ftw)));
    put32(h + 12, (uint32_t)f->fip);
    put32(h + 16, r->cs); /* the CPU's fcs is not kept in 64-bit mode */
    put32(h + 20, (uint32_t)f->fdp);
    put32(h + 24, 0xffff0000u | r->ds);
    for (int i = 0; i < 8; i++)
        memcpy(h + 28 + 10 * i, f->st[i], 10);
    put16(h + 108, f->fsw); /* status */
    put16(h + 110, 0);      /* magic: X86_FXSR_MAGIC, FXSAVE data follows */
}

bool sigframe_ia32_setup(struct mm *mm, const struct sigframe_in *in, bool rt, struct uctx *out)
{
    const struct uctx *r = in->regs;
    uint32_t size = rt ? RT_SIZE : SF_SIZE;
    uint64_t sp = (uint32_t)r->r[UR_SP];
    bool nested = sigframe_on_altstack(&in->ss, sp), entering = false;
    if ((in->ka->flags & SA_ONSTACK_LINUX) && sigframe_ss_flags(&in->ss, sp) == 0) {
        sp = in->ss.sp + in->ss.size;
        entering = true;
    }
    uint64_t fx_at = (sp - FXSAVE_SIZE) & ~63ull;
    uint64_t fp_at = fx_at - FSAVE_HDR;
    uint64_t frame = (((fp_at - size) + 4) & ~15ull) - 4;
    if ((nested || entering) && !(frame > in->ss.sp && frame - in->ss.sp <= in->ss.size))
        return false;
    if (frame > 0xffffffffull || fp_at < size)
        return false;

    uint32_t restorer;
    if (in->ka->flags & SA_RESTORER_LINUX)
        restorer = (uint32_t)in->ka->restorer;
    else
        restorer = (uint32_t)(rt ? in->vdso_rt_sigreturn : in->vdso_sigreturn);

    uint8_t f[SF_SIZE];
    if (!mm_read(mm, frame, f, size))
        return false;
    put32(f, restorer);
    put32(f + (rt ? RT_SIG : SF_SIG), (uint32_t)in->sig);
    if (rt) {
        put32(f + RT_PINFO, (uint32_t)(frame + RT_INFO));
        put32(f + RT_PUC, (uint32_t)(frame + RT_UC));
        sigframe_siginfo(in->info, false, f + RT_INFO);
        uint8_t *uc = f + RT_UC;
        put32(uc + UC_FLAGS, 0);
        put32(uc + UC_LINK, 0);
        put32(uc + UC_STACK_SP, (uint32_t)in->ss.sp);
        put32(uc + UC_STACK_FLAGS, in->ss.flags);
        put32(uc + UC_STACK_SIZE, (uint32_t)in->ss.size);
        put_sigcontext(uc + UC_MCONTEXT, in, (uint32_t)fp_at);
        put32(uc + UC_SIGMASK, (uint32_t)in->mask);
        put32(uc + UC_SIGMASK + 4, (uint32_t)(in->mask >> 32));
        /* movl $173, %eax; int $0x80: only gdb looks at it */
        static const uint8_t code[8] = { 0xb8, NR_RT_SIGRETURN_IA32, 0, 0, 0, 0xcd, 0x80, 0 };
        memcpy(f + RT_RETCODE, code, 8);
    } else {
        put_sigcontext(f + SF_SC, in, (uint32_t)fp_at);
        put32(f + SF_EXTRAMASK, (uint32_t)(in->mask >> 32));
        /* popl %eax; movl $119, %eax; int $0x80 */
        static const uint8_t code[8] = { 0x58, 0xb8, NR_SIGRETURN_IA32, 0, 0, 0, 0xcd, 0x80 };
        memcpy(f + SF_RETCODE, code, 8);
    }
    uint8_t fx[FXSAVE_SIZE], hdr[FSAVE_HDR];
    sigframe_fxsave_put(&r->fpu, false, fx);
    put_fsave_header(hdr, r);
    if (!mm_write(mm, fx_at, fx, sizeof(fx)) || !mm_write(mm, fp_at, hdr, sizeof(hdr)) ||
        !mm_write(mm, frame, f, size))
        return false;

    *out = *r;
    out->r[UR_SP] = frame;
    out->ip = (uint32_t)in->ka->handler;
    out->r[UR_AX] = (uint32_t)in->sig;
    out->r[UR_DX] = rt ? (uint32_t)(frame + RT_INFO) : 0;
    out->r[UR_CX] = rt ? (uint32_t)(frame + RT_UC) : 0;
    out->ds = out->es = out->ss = SEL_USER_DS_LINUX;
    out->cs = SEL_USER32_CS_LINUX;
    out->flags &= ~(uint64_t)(X86_EFLAGS_DF_LINUX | X86_EFLAGS_RF_LINUX | X86_EFLAGS_TF_LINUX);
    uctx_fpu_init(&out->fpu);
    return true;
}

/* fpu__restore_sig for an ia32 frame: the x87 state from the FSAVE header
 * (convert_to_fxsr), MXCSR and XMM from the FXSAVE image after it. */
static bool get_fpstate(const struct mm *mm, uint32_t fp, struct uctx_fpu *f)
{
    if (!fp) {
        uctx_fpu_init(f);
        return true;
    }
    uint8_t buf[FSAVE_HDR + FXSAVE_SIZE];
    if (!mm_read(mm, fp, buf, sizeof(buf)))
        return false;
    const uint8_t *h = buf;
    sigframe_fxsave_get(buf + FSAVE_HDR, false, f);
    f->fcw = (uint16_t)get32(h);
    f->fsw = (uint16_t)get32(h + 4);
    uint32_t twd = get32(h + 8);
    f->ftw = 0;
    for (int i = 0; i < 8; i++)
        if (((twd >> (2 * i)) & 3) == 3)
            f->ftw |= (uint16_t)(3u << (2 * i));
    f->fip = get32(h + 12);
    f->fop = (uint16_t)(get32(h + 16) >> 16);
    f->fdp = get32(h + 20);
    for (int i = 0; i < 8; i++)
        memcpy(f->st[i], h + 28 + 10 * i, 10);
    return true;
}

/* Null selectors (0-3) are kept as they are, others get RPL 3. */
static uint16_t fixup_rpl(uint16_t sel)
{
    return sel <= 3 ? sel : sel | 3;
}

/* ia32_restore_sigcontext: general registers, CPL 3 forced on CS and SS,
 * only FIX_EFLAGS from the frame, data segments as reload_segments() takes
 * them. */
static bool get_sigcontext(const struct mm *mm, const uint8_t *sc, const struct uctx *cur,
                           struct uctx *r)
{
    *r = *cur;
    for (size_t i = 0; i < G_N_ELEMENTS(sc_order); i++)
        r->r[sc_order[i]] = get32(sc + SC_DI + 4 * i);
    r->ip = get32(sc + SC_IP);
    r->cs = get16(sc + SC_CS) | 3;
    r->ss = get16(sc + SC_SS) | 3;
    r->flags = (cur->flags & ~(uint64_t)FIX_EFLAGS_LINUX) |
               (get32(sc + SC_FLAGS) & FIX_EFLAGS_LINUX);
    r->gs = fixup_rpl(get16(sc + SC_GS));
    r->fs = fixup_rpl(get16(sc + SC_FS));
    r->ds = fixup_rpl(get16(sc + SC_DS));
    r->es = fixup_rpl(get16(sc + SC_ES));
    return get_fpstate(mm, get32(sc + SC_FPSTATE), &r->fpu);
}

bool sigframe_ia32_restore(const struct mm *mm, const struct uctx *cur, bool rt,
                           struct sigreturn_out *out)
{
    uint32_t sp = (uint32_t)cur->r[UR_SP];
    if (!rt) {
        /* The restorer popped pretcode (ret) and sig (popl %eax). */
        uint32_t frame = sp - 8;
        uint8_t f[SF_SIZE];
        if (!mm_read(mm, frame, f, sizeof(f)))
            return false;
        out->mask = get32(f + SF_SC + SC_OLDMASK) |
                    ((uint64_t)get32(f + SF_EXTRAMASK) << 32);
        out->has_ss = false;
        return get_sigcontext(mm, f + SF_SC, cur, &out->regs);
    }
    uint32_t frame = sp - 4;
    uint8_t f[RT_SIZE];
    if (!mm_read(mm, frame, f, sizeof(f)))
        return false;
    const uint8_t *uc = f + RT_UC;
    out->mask = get32(uc + UC_SIGMASK) | ((uint64_t)get32(uc + UC_SIGMASK + 4) << 32);
    out->has_ss = true;
    out->ss.sp = get32(uc + UC_STACK_SP);
    out->ss.flags = get32(uc + UC_STACK_FLAGS);
    out->ss.size = get32(uc + UC_STACK_SIZE);
    return get_sigcontext(mm, uc + UC_MCONTEXT, cur, &out->regs);
}
