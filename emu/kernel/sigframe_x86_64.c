/* x86_64's rt_sigframe (arch/x86/include/asm/sigframe.h):
 *
 *   0   pretcode        the restorer: SA_RESTORER is mandatory
 *   8   struct ucontext uc_flags, uc_link, uc_stack, uc_mcontext, uc_sigmask
 *   312 struct siginfo
 *   440 end; the FXSAVE image sits above, 64-byte aligned
 */
#include <string.h>

#include "emu/kernel/sigframe_priv.h"
#include "abi/signal_linux.h"

#define F_PRETCODE 0
#define F_UC 8
#define F_INFO 312
#define FRAME_SIZE 440

/* ucontext, relative to F_UC */
#define UC_FLAGS 0
#define UC_LINK 8
#define UC_STACK_SP 16
#define UC_STACK_FLAGS 24
#define UC_STACK_SIZE 32
#define UC_MCONTEXT 40
#define UC_SIGMASK 296
#define UC_SIZE 304

/* sigcontext, relative to UC_MCONTEXT */
#define SC_R8 0 /* r8..r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags */
#define SC_CS 144
#define SC_GS 146
#define SC_FS 148
#define SC_SS 150
#define SC_ERR 152
#define SC_TRAPNO 160
#define SC_OLDMASK 168
#define SC_CR2 176
#define SC_FPSTATE 184

#define REDZONE 128

/* The order of the 18 words at the start of the sigcontext. */
static const int sc_order[] = { UR_R8, UR_R9,  UR_R10, UR_R11, UR_R12, UR_R13,
                                UR_R14, UR_R15, UR_DI, UR_SI,  UR_BP,  UR_BX,
                                UR_DX, UR_AX,  UR_CX,  UR_SP };

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

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
    uint64_t fx_at = (sp - FXSAVE_SIZE) & ~63ull;
    uint64_t frame = (((fx_at - FRAME_SIZE) & ~15ull) - 8);
    if ((nested || entering) && !(frame > in->ss.sp && frame - in->ss.sp <= in->ss.size))
        return false; /* it would overflow the alternate stack */
    if (!(in->ka->flags & SA_RESTORER_LINUX))
        return false; /* x86_64 has no vDSO restorer: the kernel refuses */

    uint8_t f[FRAME_SIZE];
    /* Where SA_SIGINFO is not asked for the info area is left as the stack
     * had it, as the kernel does. */
    if (!mm_read(mm, frame, f, sizeof(f)))
        return false;
    put64(f + F_PRETCODE, in->ka->restorer);
    uint8_t *uc = f + F_UC;
    put64(uc + UC_FLAGS, UC_SIGCONTEXT_SS_LINUX | UC_STRICT_RESTORE_SS_LINUX);
    put64(uc + UC_LINK, 0);
    put64(uc + UC_STACK_SP, in->ss.sp);
    put32(uc + UC_STACK_FLAGS, in->ss.flags);
    put32(uc + UC_STACK_FLAGS + 4, 0);
    put64(uc + UC_STACK_SIZE, in->ss.size);
    uint8_t *sc = uc + UC_MCONTEXT;
    memset(sc, 0, UC_SIGMASK - UC_MCONTEXT);
    for (size_t i = 0; i < G_N_ELEMENTS(sc_order); i++)
        put64(sc + SC_R8 + 8 * i, r->r[sc_order[i]]);
    put64(sc + 128, r->ip);
    put64(sc + 136, r->flags);
    put16(sc + SC_CS, r->cs);
    put16(sc + SC_GS, 0);
    put16(sc + SC_FS, 0);
    put16(sc + SC_SS, r->ss);
    put64(sc + SC_ERR, in->err);
    put64(sc + SC_TRAPNO, (uint64_t)in->trapno);
    put64(sc + SC_OLDMASK, in->mask);
    put64(sc + SC_CR2, in->cr2);
    put64(sc + SC_FPSTATE, fx_at);
    put64(uc + UC_SIGMASK, in->mask);
    if (in->ka->flags & SA_SIGINFO_LINUX)
        sigframe_siginfo(in->info, true, f + F_INFO);

    uint8_t fx[FXSAVE_SIZE];
    sigframe_fxsave_put(&r->fpu, true, fx);
    if (!mm_write(mm, fx_at, fx, sizeof(fx)) || !mm_write(mm, frame, f, sizeof(f)))
        return false;

    *out = *r;
    out->r[UR_DI] = (uint64_t)in->sig;
    out->r[UR_AX] = 0;
    out->r[UR_SI] = frame + F_INFO;
    out->r[UR_DX] = frame + F_UC;
    out->r[UR_SP] = frame;
    out->ip = in->ka->handler;
    out->cs = SEL_USER_CS_LINUX;
    out->ss = SEL_USER_DS_LINUX;
    out->flags &= ~(uint64_t)(X86_EFLAGS_DF_LINUX | X86_EFLAGS_RF_LINUX | X86_EFLAGS_TF_LINUX);
    uctx_fpu_init(&out->fpu);
    return true;
}

bool sigframe_x86_64_restore(const struct mm *mm, const struct uctx *cur,
                             struct sigreturn_out *out)
{
    /* The restorer's `ret` popped pretcode: the frame is 8 below. */
    uint64_t frame = cur->r[UR_SP] - 8;
    uint8_t f[FRAME_SIZE];
    if (!mm_read(mm, frame, f, sizeof(f)))
        return false;
    const uint8_t *uc = f + F_UC, *sc = uc + UC_MCONTEXT;
    out->regs = *cur;
    struct uctx *r = &out->regs;
    for (size_t i = 0; i < G_N_ELEMENTS(sc_order); i++)
        r->r[sc_order[i]] = get64(sc + SC_R8 + 8 * i);
    r->ip = get64(sc + 128);
    r->flags = (cur->flags & ~(uint64_t)FIX_EFLAGS_LINUX) | (get64(sc + 136) & FIX_EFLAGS_LINUX);
    r->cs = get16(sc + SC_CS) | 3;
    r->ss = get16(sc + SC_SS) | 3;
    /* Without UC_STRICT_RESTORE_SS (old frames) a broken SS is replaced,
     * as force_valid_ss() does. */
    if (!(get64(uc + UC_FLAGS) & UC_STRICT_RESTORE_SS_LINUX) && r->ss != SEL_USER_DS_LINUX)
        r->ss = SEL_USER_DS_LINUX;
    uint64_t fp = get64(sc + SC_FPSTATE);
    if (fp) {
        uint8_t fx[FXSAVE_SIZE];
        if (!mm_read(mm, fp, fx, sizeof(fx)))
            return false;
        sigframe_fxsave_get(fx, true, &r->fpu);
    } else
        uctx_fpu_init(&r->fpu);
    out->mask = get64(uc + UC_SIGMASK);
    out->has_ss = true;
    out->ss.sp = get64(uc + UC_STACK_SP);
    out->ss.flags = get32(uc + UC_STACK_FLAGS);
    out->ss.size = get64(uc + UC_STACK_SIZE);
    return true;
}
