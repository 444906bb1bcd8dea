/* What both x86 frame layouts share: siginfo, the FXSAVE image, the
 * alternate-stack test. */
#include "emu/kernel/sigframe.h"

#include <string.h>

#include "emu/kernel/sigframe_priv.h"
#include "abi/bytes_le.h"
#include "abi/signal_linux.h"

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
    case SIL_POLL:
    case SIL_CHLD:
        break;
    }
}

void sigframe_fxsave_put(const struct uctx_fpu *f, bool is64, struct fxregs_state_linux *fx)
{
    memset(fx, 0, sizeof(*fx));
    fx->cwd = f->fcw;
    fx->swd = f->fsw;
    fx->twd = uctx_ftw_abridged(f->ftw);
    fx->fop = f->fop;
    fx->rip = f->fip;
    fx->rdp = f->fdp;
    fx->mxcsr = f->mxcsr;
    fx->mxcsr_mask = 0xffff; /* the emulated CPU's */
    for (int i = 0; i < 8; i++)
        memcpy(fx->st_space[i], f->st[i], 10);
    for (int i = 0; i < (is64 ? 16 : 8); i++)
        memcpy(fx->xmm_space[i], f->xmm[i], 16);
}

void sigframe_fxsave_get(const struct fxregs_state_linux *fx, bool is64, struct uctx_fpu *f)
{
    f->fcw = fx->cwd;
    f->fsw = fx->swd;
    f->fop = fx->fop;
    f->fip = fx->rip;
    f->fdp = fx->rdp;
    f->mxcsr = fx->mxcsr & 0xffff; /* reserved bits are cleared, as the kernel does */
    for (int i = 0; i < 8; i++)
        memcpy(f->st[i], fx->st_space[i], 10);
    for (int i = 0; i < (is64 ? 16 : 8); i++)
        memcpy(f->xmm[i], fx->xmm_space[i], 16);
    /* The abridged tag only says empty or not; that is all the CPU keeps. */
    uint8_t abridged = (uint8_t)fx->twd;
    f->ftw = 0;
    for (int i = 0; i < 8; i++)
        if (!(abridged & (1u << i)))
            f->ftw |= (uint16_t)(3u << (2 * i));
}
