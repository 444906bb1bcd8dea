/* What both x86 frame layouts share: siginfo, the XSAVE area, the
 * alternate-stack test. */
#include "emu/kernel/sigframe.h"

#include <string.h>

#include "emu/kernel/sigframe_priv.h"
#include "abi/bytes_le.h"
#include "abi/signal_linux.h"

/* The MXCSR bits the emulated CPU implements (FXSAVE's mxcsr_mask): DAZ
 * and below. */
#define MXCSR_FEATURE_MASK 0xffffu

bool sigframe_on_altstack(const struct sigaltstack_k *ss, uint64_t sp)
{
    /* SS_AUTODISARM: the stack counts as free while a handler runs on it. */
    if (ss->flags & SS_AUTODISARM_LINUX)
        return false;
    return sp > ss->sp && sp - ss->sp <= ss->size;
}

uint32_t sigframe_ss_flags(const struct sigaltstack_k *ss, uint64_t sp)
{
    if (!ss->size)
        return SS_DISABLE_LINUX;
    return sigframe_on_altstack(ss, sp) ? SS_ONSTACK_LINUX : 0;
}

/* kernel/signal.c's siginfo_layout: which union member the code selects. */
enum sil { SIL_KILL, SIL_TIMER, SIL_POLL, SIL_FAULT, SIL_CHLD, SIL_RT, SIL_SYS };

static enum sil layout(int sig, int code)
{
    if (code > SI_USER_LINUX && code < SI_KERNEL_LINUX) {
        switch (sig) {
        case SIGILL_LINUX:
            return code <= 11 ? SIL_FAULT : SIL_KILL;
        case SIGFPE_LINUX:
            return code <= 15 ? SIL_FAULT : SIL_KILL;
        case SIGSEGV_LINUX:
            return code <= 10 ? SIL_FAULT : SIL_KILL;
        case SIGBUS_LINUX:
            return code <= 5 ? SIL_FAULT : SIL_KILL;
        case SIGTRAP_LINUX:
            return code <= 6 ? SIL_FAULT : SIL_KILL;
        case SIGCHLD_LINUX:
            return code <= 6 ? SIL_CHLD : SIL_KILL;
        case SIGIO_LINUX:
            return code <= 6 ? SIL_POLL : SIL_KILL;
        case SIGSYS_LINUX:
            return code <= 1 ? SIL_SYS : SIL_KILL;
        default:
            return code <= 6 ? SIL_POLL : SIL_KILL;
        }
    }
    if (code == SI_TIMER_LINUX)
        return SIL_TIMER;
    if (code == SI_SIGIO_LINUX)
        return SIL_POLL;
    return code < 0 ? SIL_RT : SIL_KILL;
}


/* A pointer-sized field of the union, in the ABI's width. */
static void put_word(uint8_t *p, uint64_t v, bool is64)
{
    if (is64)
        put_le64(p, v);
    else
        put_le32(p, (uint32_t)v);
}

void sigframe_siginfo(const struct ksiginfo *info, bool is64, uint8_t out[128])
{
    memset(out, 0, 128);
    if (info->raw_valid) {
        /* The kernel keeps only the header and the union's known part. */
        memcpy(out, info->raw, 48);
        put_le32(out, (uint32_t)info->signo);
        return;
    }
    put_le32(out, (uint32_t)info->signo);
    put_le32(out + 4, (uint32_t)info->errno_);
    put_le32(out + 8, (uint32_t)info->code);
    uint8_t *u = out + (is64 ? 16 : 12);
    switch (layout(info->signo, info->code)) {
    case SIL_KILL:
        put_le32(u, (uint32_t)info->pid);
        put_le32(u + 4, info->uid);
        break;
    case SIL_RT:
        put_le32(u, (uint32_t)info->pid);
        put_le32(u + 4, info->uid);
        put_word(u + 8, info->value, is64);
        break;
    case SIL_TIMER:
        put_le32(u, (uint32_t)info->tid);
        put_le32(u + 4, (uint32_t)info->overrun);
        put_word(u + 8, info->value, is64);
        break;
    case SIL_FAULT:
        put_word(u, info->addr, is64);
        break;
    case SIL_SYS:
        /* _sigsys: call address, then int syscall and unsigned arch. */
        put_word(u, info->addr, is64);
        put_le32(u + (is64 ? 8 : 4), (uint32_t)info->syscall);
        put_le32(u + (is64 ? 12 : 8), info->arch);
        break;
    case SIL_CHLD:
        /* _sigchld: pid, uid, status, then utime and stime in clock ticks
         * (USER_HZ, 100), each a long, aligned. */
        put_le32(u, (uint32_t)info->pid);
        put_le32(u + 4, info->uid);
        put_le32(u + 8, (uint32_t)info->status);
        put_word(u + (is64 ? 16 : 12), (uint64_t)(info->utime / 10000000), is64);
        put_word(u + (is64 ? 24 : 16), (uint64_t)(info->stime / 10000000), is64);
        break;
    case SIL_POLL:
        break;
    }
}

static void fxsave_put(const struct uctx_fpu *f, bool is64, struct fxregs_state_linux *fx)
{
    memset(fx, 0, sizeof(*fx));
    fx->cwd = f->fcw;
    fx->swd = f->fsw;
    fx->twd = uctx_ftw_abridged(f->ftw);
    fx->fop = f->fop;
    fx->rip = f->fip;
    fx->rdp = f->fdp;
    fx->mxcsr = f->mxcsr;
    fx->mxcsr_mask = MXCSR_FEATURE_MASK;
    for (int i = 0; i < 8; i++)
        memcpy(fx->st_space[i], f->st[i], 10);
    for (int i = 0; i < (is64 ? 16 : 8); i++)
        memcpy(fx->xmm_space[i], f->xmm[i], 16);
}

static void fxsave_get_x87(const struct fxregs_state_linux *fx, struct uctx_fpu *f)
{
    f->fcw = fx->cwd;
    f->fsw = fx->swd;
    f->fop = fx->fop;
    f->fip = fx->rip;
    f->fdp = fx->rdp;
    for (int i = 0; i < 8; i++)
        memcpy(f->st[i], fx->st_space[i], 10);
    /* The abridged tag only says empty or not; that is all the CPU keeps. */
    uint8_t abridged = (uint8_t)fx->twd;
    f->ftw = 0;
    for (int i = 0; i < 8; i++)
        if (!(abridged & (1u << i)))
            f->ftw |= (uint16_t)(3u << (2 * i));
}

static void fxsave_get_sse(const struct fxregs_state_linux *fx, bool is64, struct uctx_fpu *f)
{
    for (int i = 0; i < (is64 ? 16 : 8); i++)
        memcpy(f->xmm[i], fx->xmm_space[i], 16);
}

uint32_t sigframe_fpstate_size(uint64_t xcr0)
{
    return xstate_size_linux(xcr0) + FP_XSTATE_MAGIC2_SIZE_LINUX;
}

bool sigframe_fpstate_put(struct mm *mm, uint64_t buf_fx, const struct uctx_fpu *f, bool is64,
                          bool ia32, uint64_t xcr0)
{
    struct xsave_ymm_linux x;
    uint32_t size = xstate_size_linux(xcr0);
    fxsave_put(f, is64, &x.i387);
    /* save_xstate_epilog(): the software-reserved bytes say an XSAVE area
     * follows, and of which components; the header has FP and SSE always
     * set, so that a handler that edits only the FXSAVE part is heard. */
    x.i387.sw_reserved = (struct fpx_sw_bytes_linux){
        .magic1 = FP_XSTATE_MAGIC1_LINUX,
        .extended_size = size + FP_XSTATE_MAGIC2_SIZE_LINUX +
                         (ia32 ? (uint32_t)sizeof(struct fregs_state_linux) : 0),
        .xfeatures = xcr0,
        .xstate_size = size,
    };
    memset(&x.header, 0, sizeof(x.header));
    x.header.xfeatures = XFEATURE_MASK_FP_LINUX | XFEATURE_MASK_SSE_LINUX;
    /* XSAVE writes a component only where it is in use (XINUSE): the
     * YMM upper halves stay as the stack had them when all are zero. */
    uint32_t written = offsetof(struct xsave_ymm_linux, ymmh_space);
    if ((xcr0 & XFEATURE_MASK_YMM_LINUX) && uctx_ymm_in_use(f)) {
        x.header.xfeatures |= XFEATURE_MASK_YMM_LINUX;
        memcpy(x.ymmh_space, f->ymmh, sizeof(x.ymmh_space));
        written = sizeof(x);
    }
    uint32_t magic2 = FP_XSTATE_MAGIC2_LINUX;
    return mm_write(mm, buf_fx, &x, written) && mm_write(mm, buf_fx + size, &magic2, 4);
}

bool sigframe_fpstate_get(struct mm *mm, uint64_t buf_fx, bool is64, bool ia32,
                          uint64_t xcr0, struct uctx_fpu *f, uint64_t *restored)
{
    struct xsave_ymm_linux x;
    if (!mm_read(mm, buf_fx, &x.i387, sizeof(x.i387)))
        return false;
    /* check_xstate_in_sigframe(): without both magic words, or with sizes
     * out of range, only the FXSAVE image counts, and the rest is reset. */
    const struct fpx_sw_bytes_linux *sw = &x.i387.sw_reserved;
    uint64_t rfbm = XFEATURE_MASK_FP_LINUX | XFEATURE_MASK_SSE_LINUX;
    bool fx_only = true;
    if (sw->magic1 == FP_XSTATE_MAGIC1_LINUX &&
        sw->xstate_size >= offsetof(struct xsave_ymm_linux, ymmh_space) &&
        sw->xstate_size <= xstate_size_linux(xcr0) && sw->xstate_size <= sw->extended_size) {
        uint32_t magic2;
        if (!mm_read(mm, buf_fx + sw->xstate_size, &magic2, 4))
            return false;
        if (magic2 == FP_XSTATE_MAGIC2_LINUX) {
            fx_only = false;
            rfbm = sw->xfeatures & xcr0;
        }
    }
    uint64_t present = XFEATURE_MASK_FP_LINUX | XFEATURE_MASK_SSE_LINUX;
    if (!fx_only) {
        if (!mm_read(mm, buf_fx + offsetof(struct xsave_ymm_linux, header), &x.header,
                     sizeof(x.header)))
            return false;
        /* XRSTOR's #GP (64-bit: straight from the frame) or
         * validate_user_xstate_header() (ia32: through the kernel's copy)
         * make the frame bad. */
        const struct xstate_header_linux *h = &x.header;
        bool reserved = ia32 ? (h->reserved[0] | h->reserved[1] | h->reserved[2] |
                                h->reserved[3] | h->reserved[4] | h->reserved[5]) != 0
                             : h->reserved[0] != 0;
        if ((h->xfeatures & ~xcr0) || h->xcomp_bv || reserved)
            return false;
        present = h->xfeatures & rfbm;
        if ((present & XFEATURE_MASK_YMM_LINUX) &&
            !mm_read(mm, buf_fx + offsetof(struct xsave_ymm_linux, ymmh_space), x.ymmh_space,
                     sizeof(x.ymmh_space)))
            return false;
    }
    /* What is not restored from the frame is reset (the init state). */
    struct uctx_fpu init;
    uctx_fpu_init(&init);
    *f = init;
    if (present & XFEATURE_MASK_FP_LINUX)
        fxsave_get_x87(&x.i387, f);
    bool loads_mxcsr = rfbm & (XFEATURE_MASK_SSE_LINUX | XFEATURE_MASK_YMM_LINUX);
    /* Reserved MXCSR bits fail the sigreturn where the kernel restores
     * through FXRSTOR or XRSTOR (#GP: 64-bit frames) or checks its copy:
     * copy_uabi_to_xstate() for an ia32 XSAVE frame, and for an ia32
     * FXSAVE-only one __fpu_restore_sig()'s "Reject invalid MXCSR
     * values" (a 64-bit kernel; a 32-bit one would mask them). */
    bool mxcsr_checked =
        ia32 ? fx_only || (x.header.xfeatures & (XFEATURE_MASK_FP_LINUX | XFEATURE_MASK_SSE_LINUX |
                                                 XFEATURE_MASK_YMM_LINUX))
             : loads_mxcsr;
    if (mxcsr_checked && (x.i387.mxcsr & ~MXCSR_FEATURE_MASK))
        return false;
    if (loads_mxcsr)
        f->mxcsr = x.i387.mxcsr & MXCSR_FEATURE_MASK;
    if (present & XFEATURE_MASK_SSE_LINUX)
        fxsave_get_sse(&x.i387, is64, f);
    if (present & XFEATURE_MASK_YMM_LINUX)
        memcpy(f->ymmh, x.ymmh_space, sizeof(f->ymmh));
    *restored = present;
    return true;
}
