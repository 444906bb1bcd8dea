/* x86_64's rt_sigframe (abi/sigframe_linux.h): the restorer's address,
 * the ucontext with the sigcontext, the siginfo; the XSAVE area sits
 * above, 64-byte aligned. */
#include <stddef.h>
#include <string.h>

#include "abi/sigframe_linux.h"
#include "abi/signal_linux.h"
#include "emu/kernel/sigframe_priv.h"

#define REDZONE 128

static void put_gregs(struct sigcontext_64_linux *sc, const struct uctx *r)
{
    sc->r8 = r->r[UR_R8], sc->r9 = r->r[UR_R9], sc->r10 = r->r[UR_R10];
    sc->r11 = r->r[UR_R11], sc->r12 = r->r[UR_R12], sc->r13 = r->r[UR_R13];
    sc->r14 = r->r[UR_R14], sc->r15 = r->r[UR_R15];
    sc->di = r->r[UR_DI], sc->si = r->r[UR_SI], sc->bp = r->r[UR_BP];
    sc->bx = r->r[UR_BX], sc->dx = r->r[UR_DX], sc->ax = r->r[UR_AX];
    sc->cx = r->r[UR_CX], sc->sp = r->r[UR_SP];
}

static void get_gregs(struct uctx *r, const struct sigcontext_64_linux *sc)
{
    r->r[UR_R8] = sc->r8, r->r[UR_R9] = sc->r9, r->r[UR_R10] = sc->r10;
    r->r[UR_R11] = sc->r11, r->r[UR_R12] = sc->r12, r->r[UR_R13] = sc->r13;
    r->r[UR_R14] = sc->r14, r->r[UR_R15] = sc->r15;
    r->r[UR_DI] = sc->di, r->r[UR_SI] = sc->si, r->r[UR_BP] = sc->bp;
    r->r[UR_BX] = sc->bx, r->r[UR_DX] = sc->dx, r->r[UR_AX] = sc->ax;
    r->r[UR_CX] = sc->cx, r->r[UR_SP] = sc->sp;
}

bool sigframe_x86_64_setup(struct mm *mm, const struct sigframe_in *in, struct uctx *out)
{
    const struct uctx *r = in->regs;
    /* get_sigframe: below the red zone, or the top of the alternate stack;
     * the FPU image first, then the frame, aligned so that the handler sees
     * the stack as just after a call. */
    uint64_t sp = r->r[UR_SP] - REDZONE;
    bool nested = sigframe_on_altstack(&in->ss, r->r[UR_SP]), entering = false;
    if ((in->ka->flags & SA_ONSTACK_LINUX) && sigframe_ss_flags(&in->ss, sp) == 0) {
        sp = in->ss.sp + in->ss.size;
        entering = true;
    }
    uint64_t fx_at = (sp - sigframe_fpstate_size(in->xcr0)) & ~63ull;
    uint64_t frame = (((fx_at - sizeof(struct rt_sigframe_64_linux)) & ~15ull) - 8);
    if ((nested || entering) && !(frame > in->ss.sp && frame - in->ss.sp <= in->ss.size))
        return false; /* it would overflow the alternate stack */
    if (!(in->ka->flags & SA_RESTORER_LINUX))
        return false; /* x86_64 has no vDSO restorer: the kernel refuses */

    struct rt_sigframe_64_linux f;
    /* Where SA_SIGINFO is not asked for the info area is left as the stack
     * had it, as the kernel does. */
    if (!mm_read(mm, frame, &f, sizeof(f)))
        return false;
    f.pretcode = in->ka->restorer;
    struct ucontext_64_linux *uc = &f.uc;
    uc->uc_flags = UC_FP_XSTATE_LINUX | UC_SIGCONTEXT_SS_LINUX | UC_STRICT_RESTORE_SS_LINUX;
    uc->uc_link = 0;
    uc->uc_stack = (struct stack_64_linux){ .ss_sp = in->ss.sp, .ss_flags = (int32_t)in->ss.flags,
                                            .ss_size = in->ss.size };
    struct sigcontext_64_linux *sc = &uc->uc_mcontext;
    memset(sc, 0, sizeof(*sc));
    put_gregs(sc, r);
    sc->ip = r->ip;
    sc->flags = r->flags;
    sc->cs = r->cs;
    sc->ss = r->ss;
    sc->err = in->err;
    sc->trapno = (uint64_t)in->trapno;
    sc->oldmask = in->mask;
    sc->cr2 = in->cr2;
    sc->fpstate = fx_at;
    uc->uc_sigmask = in->mask;
    if (in->ka->flags & SA_SIGINFO_LINUX)
        sigframe_siginfo(in->info, true, f.info);

    if (!sigframe_fpstate_put(mm, fx_at, &r->fpu, true, false, in->xcr0) ||
        !mm_write(mm, frame, &f, sizeof(f)))
        return false;

    *out = *r;
    out->r[UR_DI] = (uint64_t)in->sig;
    out->r[UR_AX] = 0;
    out->r[UR_SI] = frame + offsetof(struct rt_sigframe_64_linux, info);
    out->r[UR_DX] = frame + offsetof(struct rt_sigframe_64_linux, uc);
    out->r[UR_SP] = frame;
    out->ip = in->ka->handler;
    out->cs = SEL_USER_CS_LINUX;
    out->ss = SEL_USER_DS_LINUX;
    out->flags &= ~(uint64_t)(X86_EFLAGS_DF_LINUX | X86_EFLAGS_RF_LINUX | X86_EFLAGS_TF_LINUX);
    uctx_fpu_init(&out->fpu);
    return true;
}

bool sigframe_x86_64_restore(struct mm *mm, const struct uctx *cur, uint64_t xcr0,
                             struct sigreturn_out *out)
{
    /* The restorer's `ret` popped pretcode: the frame is 8 below. */
    uint64_t frame = cur->r[UR_SP] - 8;
    struct rt_sigframe_64_linux f;
    if (!mm_read(mm, frame, &f, sizeof(f)))
        return false;
    const struct ucontext_64_linux *uc = &f.uc;
    const struct sigcontext_64_linux *sc = &uc->uc_mcontext;
    out->mask = uc->uc_sigmask;
    out->mask_read = true;
    out->regs = *cur;
    struct uctx *r = &out->regs;
    get_gregs(r, sc);
    r->ip = sc->ip;
    r->flags = (cur->flags & ~(uint64_t)FIX_EFLAGS_LINUX) | (sc->flags & FIX_EFLAGS_LINUX);
    r->cs = sc->cs | 3;
    r->ss = sc->ss | 3;
    /* Without UC_STRICT_RESTORE_SS (old frames) a broken SS is to be
     * replaced, as force_valid_ss() does, but only for a return to 64-bit
     * code (user_64bit_mode()): any other CS and SS meet iret's checks as
     * they are. */
    out->force_valid_ss =
        !(uc->uc_flags & UC_STRICT_RESTORE_SS_LINUX) && r->cs == SEL_USER_CS_LINUX;
    out->regs_read = true;
    if (sc->fpstate) {
        uint64_t restored;
        if (!sigframe_fpstate_get(mm, sc->fpstate, true, false, xcr0, &r->fpu, &restored))
            return false;
    } else
        uctx_fpu_init(&r->fpu);
    out->has_ss = true;
    out->ss.sp = uc->uc_stack.ss_sp;
    out->ss.flags = (uint32_t)uc->uc_stack.ss_flags;
    out->ss.size = uc->uc_stack.ss_size;
    return true;
}
