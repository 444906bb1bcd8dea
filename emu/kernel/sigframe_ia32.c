/* ia32's frames (abi/sigframe_linux.h), for 32-bit guests: sigframe_ia32
 * for handlers without SA_SIGINFO, rt_sigframe_ia32 for the others.  The
 * FPU state follows the frame: the FSAVE header (struct fregs_state) and
 * then the XSAVE area, 64-byte aligned; sigcontext's fpstate points at
 * the header. */
#include <stddef.h>
#include <string.h>

#include "abi/sigframe_linux.h"
#include "abi/signal_linux.h"
#include "emu/kernel/sigframe_priv.h"

#define NR_SIGRETURN_IA32 119
#define NR_RT_SIGRETURN_IA32 173

static void put_sigcontext(struct sigcontext_32_linux *sc, const struct sigframe_in *in,
                           uint32_t fpstate)
{
    const struct uctx *r = in->regs;
    memset(sc, 0, sizeof(*sc));
    sc->gs = r->gs, sc->fs = r->fs, sc->es = r->es, sc->ds = r->ds;
    sc->di = (uint32_t)r->r[UR_DI], sc->si = (uint32_t)r->r[UR_SI];
    sc->bp = (uint32_t)r->r[UR_BP], sc->sp = (uint32_t)r->r[UR_SP];
    sc->bx = (uint32_t)r->r[UR_BX], sc->dx = (uint32_t)r->r[UR_DX];
    sc->cx = (uint32_t)r->r[UR_CX], sc->ax = (uint32_t)r->r[UR_AX];
    sc->trapno = (uint32_t)in->trapno;
    sc->err = (uint32_t)in->err;
    sc->ip = (uint32_t)r->ip;
    sc->cs = r->cs;
    sc->flags = (uint32_t)r->flags;
    sc->sp_at_signal = (uint32_t)r->r[UR_SP];
    sc->ss = r->ss;
    sc->fpstate = fpstate;
    sc->oldmask = (uint32_t)in->mask;
    sc->cr2 = (uint32_t)in->cr2;
}

/* The FSAVE header a 64-bit kernel writes for an ia32 frame
 * (convert_from_fxsr, save_fsave_header). */
static void put_fsave_header(struct fregs_state_linux *h, const struct uctx *r)
{
    const struct uctx_fpu *f = &r->fpu;
    memset(h, 0, sizeof(*h));
    h->cwd = 0xffff0000u | f->fcw;
    h->swd = 0xffff0000u | f->fsw;
    h->twd = 0xffff0000u | uctx_ftw_full(f, uctx_ftw_abridged(f->ftw));
    h->fip = (uint32_t)f->fip;
    h->fcs = r->cs; /* the CPU's fcs is not kept in 64-bit mode */
    h->foo = (uint32_t)f->fdp;
    h->fos = 0xffff0000u | r->ds;
    for (int i = 0; i < 8; i++)
        memcpy(h->st_space[i], f->st[i], 10);
    h->status = f->fsw;
    h->magic = 0; /* X86_FXSR_MAGIC: FXSAVE data follows */
}

bool sigframe_ia32_setup(struct mm *mm, const struct sigframe_in *in, bool rt, struct uctx *out)
{
    const struct uctx *r = in->regs;
    uint32_t size = rt ? sizeof(struct rt_sigframe_ia32_linux) : sizeof(struct sigframe_ia32_linux);
    uint64_t sp = (uint32_t)r->r[UR_SP];
    bool nested = sigframe_on_altstack(&in->ss, sp), entering = false;
    if ((in->ka->flags & SA_ONSTACK_LINUX) && sigframe_ss_flags(&in->ss, sp) == 0) {
        sp = in->ss.sp + in->ss.size;
        entering = true;
    }
    uint64_t fx_at = (sp - sigframe_fpstate_size(in->xcr0)) & ~63ull;
    uint64_t fp_at = fx_at - sizeof(struct fregs_state_linux);
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

    union {
        struct sigframe_ia32_linux plain;
        struct rt_sigframe_ia32_linux rt;
    } f;
    if (!mm_read(mm, frame, &f, size))
        return false;
    if (rt) {
        f.rt.pretcode = restorer;
        f.rt.sig = in->sig;
        f.rt.pinfo = (uint32_t)(frame + offsetof(struct rt_sigframe_ia32_linux, info));
        f.rt.puc = (uint32_t)(frame + offsetof(struct rt_sigframe_ia32_linux, uc));
        sigframe_siginfo(in->info, false, f.rt.info);
        struct ucontext_ia32_linux *uc = &f.rt.uc;
        uc->uc_flags = UC_FP_XSTATE_LINUX;
        uc->uc_link = 0;
        uc->uc_stack = (struct stack_ia32_linux){ .ss_sp = (uint32_t)in->ss.sp,
                                                  .ss_flags = (int32_t)in->ss.flags,
                                                  .ss_size = (uint32_t)in->ss.size };
        put_sigcontext(&uc->uc_mcontext, in, (uint32_t)fp_at);
        uc->uc_sigmask[0] = (uint32_t)in->mask;
        uc->uc_sigmask[1] = (uint32_t)(in->mask >> 32);
        /* movl $173, %eax; int $0x80: only gdb looks at it */
        static const uint8_t code[8] = { 0xb8, NR_RT_SIGRETURN_IA32, 0, 0, 0, 0xcd, 0x80, 0 };
        memcpy(f.rt.retcode, code, 8);
    } else {
        f.plain.pretcode = restorer;
        f.plain.sig = in->sig;
        put_sigcontext(&f.plain.sc, in, (uint32_t)fp_at);
        f.plain.extramask = (uint32_t)(in->mask >> 32);
        /* popl %eax; movl $119, %eax; int $0x80 */
        static const uint8_t code[8] = { 0x58, 0xb8, NR_SIGRETURN_IA32, 0, 0, 0, 0xcd, 0x80 };
        memcpy(f.plain.retcode, code, 8);
    }
    struct fregs_state_linux hdr;
    put_fsave_header(&hdr, r);
    if (!sigframe_fpstate_put(mm, fx_at, &r->fpu, false, true, in->xcr0) ||
        !mm_write(mm, fp_at, &hdr, sizeof(hdr)) || !mm_write(mm, frame, &f, size))
        return false;

    *out = *r;
    out->r[UR_SP] = frame;
    out->ip = (uint32_t)in->ka->handler;
    out->r[UR_AX] = (uint32_t)in->sig;
    out->r[UR_DX] = rt ? f.rt.pinfo : 0;
    out->r[UR_CX] = rt ? f.rt.puc : 0;
    out->ds = out->es = out->ss = SEL_USER_DS_LINUX;
    out->cs = SEL_USER32_CS_LINUX;
    out->flags &= ~(uint64_t)(X86_EFLAGS_DF_LINUX | X86_EFLAGS_RF_LINUX | X86_EFLAGS_TF_LINUX);
    uctx_fpu_init(&out->fpu);
    return true;
}

/* fpu__restore_sig for an ia32 frame: the x87 state from the FSAVE header
 * (convert_to_fxsr), the rest from the XSAVE area after it. */
static bool get_fpstate(struct mm *mm, uint32_t fp, uint64_t xcr0, struct uctx_fpu *f)
{
    if (!fp) {
        uctx_fpu_init(f);
        return true;
    }
    struct fregs_state_linux hdr;
    uint64_t restored;
    if (!mm_read(mm, fp, &hdr, sizeof(hdr)) ||
        !sigframe_fpstate_get(mm, (uint64_t)fp + sizeof(hdr), false, true, xcr0, f, &restored))
        return false;
    /* An x87 state the area leaves out stays reset, header or not. */
    if (!(restored & XFEATURE_MASK_FP_LINUX))
        return true;
    const struct fregs_state_linux *h = &hdr;
    f->fcw = (uint16_t)h->cwd;
    f->fsw = (uint16_t)h->swd;
    f->ftw = 0;
    for (int i = 0; i < 8; i++)
        if (((h->twd >> (2 * i)) & 3) == 3)
            f->ftw |= (uint16_t)(3u << (2 * i));
    f->fip = h->fip;
    f->fop = (uint16_t)(h->fcs >> 16);
    f->fdp = h->foo;
    for (int i = 0; i < 8; i++)
        memcpy(f->st[i], h->st_space[i], 10);
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
static bool get_sigcontext(struct mm *mm, const struct sigcontext_32_linux *sc,
                           const struct uctx *cur, uint64_t xcr0, struct sigreturn_out *out)
{
    struct uctx *r = &out->regs;
    *r = *cur;
    r->r[UR_DI] = sc->di, r->r[UR_SI] = sc->si, r->r[UR_BP] = sc->bp, r->r[UR_SP] = sc->sp;
    r->r[UR_BX] = sc->bx, r->r[UR_DX] = sc->dx, r->r[UR_CX] = sc->cx, r->r[UR_AX] = sc->ax;
    r->ip = sc->ip;
    r->cs = sc->cs | 3;
    r->ss = sc->ss | 3;
    r->flags = (cur->flags & ~(uint64_t)FIX_EFLAGS_LINUX) | (sc->flags & FIX_EFLAGS_LINUX);
    r->gs = fixup_rpl(sc->gs);
    r->fs = fixup_rpl(sc->fs);
    r->ds = fixup_rpl(sc->ds);
    r->es = fixup_rpl(sc->es);
    out->regs_read = true;
    return get_fpstate(mm, sc->fpstate, xcr0, &r->fpu);
}

bool sigframe_ia32_restore(struct mm *mm, const struct uctx *cur, bool rt, uint64_t xcr0,
                           struct sigreturn_out *out)
{
    uint32_t sp = (uint32_t)cur->r[UR_SP];
    if (!rt) {
        /* The restorer popped pretcode (ret) and sig (popl %eax). */
        struct sigframe_ia32_linux f;
        if (!mm_read(mm, sp - 8, &f, sizeof(f)))
            return false;
        out->mask = f.sc.oldmask | ((uint64_t)f.extramask << 32);
        out->mask_read = true;
        out->has_ss = false;
        return get_sigcontext(mm, &f.sc, cur, xcr0, out);
    }
    struct rt_sigframe_ia32_linux f;
    if (!mm_read(mm, sp - 4, &f, sizeof(f)))
        return false;
    const struct ucontext_ia32_linux *uc = &f.uc;
    out->mask = uc->uc_sigmask[0] | ((uint64_t)uc->uc_sigmask[1] << 32);
    out->mask_read = true;
    out->has_ss = true;
    out->ss.sp = uc->uc_stack.ss_sp;
    out->ss.flags = (uint32_t)uc->uc_stack.ss_flags;
    out->ss.size = uc->uc_stack.ss_size;
    return get_sigcontext(mm, &uc->uc_mcontext, cur, xcr0, out);
}
