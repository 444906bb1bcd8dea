/* What both x86 frame layouts share: siginfo, the FXSAVE image, the
 * alternate-stack test. */
#include "abi/sigframe.h"

#include <string.h>

#include "abi/sigframe_priv.h"
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

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

void sigframe_siginfo(const struct ksiginfo *info, bool is64, uint8_t out[128])
{
    memset(out, 0, 128);
    if (info->raw_valid) {
        /* The kernel keeps only the header and the union's known part. */
        memcpy(out, info->raw, 48);
        put32(out, (uint32_t)info->signo);
        return;
    }
    put32(out, (uint32_t)info->signo);
    put32(out + 4, (uint32_t)info->errno_);
    put32(out + 8, (uint32_t)info->code);
    uint8_t *u = out + (is64 ? 16 : 12);
    unsigned ptr = is64 ? 8 : 4;
    switch (layout(info->signo, info->code)) {
    case SIL_KILL:
        put32(u, (uint32_t)info->pid);
        put32(u + 4, info->uid);
        break;
    case SIL_RT:
        put32(u, (uint32_t)info->pid);
        put32(u + 4, info->uid);
        memcpy(u + 8, &info->value, ptr);
        break;
    case SIL_TIMER:
        put32(u, (uint32_t)info->tid);
        put32(u + 4, (uint32_t)info->overrun);
        memcpy(u + 8, &info->value, ptr);
        break;
    case SIL_FAULT:
        memcpy(u, &info->addr, ptr);
        break;
    case SIL_SYS:
        /* _sigsys: call address, then int syscall and unsigned arch. */
        memcpy(u, &info->addr, ptr);
        put32(u + ptr, (uint32_t)info->syscall);
        put32(u + ptr + 4, info->arch);
        break;
    case SIL_POLL:
    case SIL_CHLD:
        break;
    }
}

void sigframe_fxsave_put(const struct uctx_fpu *f, bool is64, uint8_t fx[512])
{
    memset(fx, 0, 512);
    memcpy(fx, &f->fcw, 2);
    memcpy(fx + 2, &f->fsw, 2);
    fx[4] = uctx_ftw_abridged(f->ftw);
    memcpy(fx + 6, &f->fop, 2);
    /* A 64-bit kernel saves with FXSAVE64: 64-bit FIP and FDP, no
     * selectors, for compat tasks too. */
    put64(fx + 8, f->fip);
    put64(fx + 16, f->fdp);
    put32(fx + 24, f->mxcsr);
    put32(fx + 28, 0xffff); /* MXCSR_MASK of the emulated CPU */
    for (int i = 0; i < 8; i++)
        memcpy(fx + 32 + 16 * i, f->st[i], 10);
    for (int i = 0; i < (is64 ? 16 : 8); i++)
        memcpy(fx + 160 + 16 * i, f->xmm[i], 16);
}

void sigframe_fxsave_get(const uint8_t fx[512], bool is64, struct uctx_fpu *f)
{
    memcpy(&f->fcw, fx, 2);
    memcpy(&f->fsw, fx + 2, 2);
    memcpy(&f->fop, fx + 6, 2);
    memcpy(&f->fip, fx + 8, 8);
    memcpy(&f->fdp, fx + 16, 8);
    memcpy(&f->mxcsr, fx + 24, 4);
    f->mxcsr &= 0xffff; /* reserved bits are cleared, as the kernel does */
    for (int i = 0; i < 8; i++)
        memcpy(f->st[i], fx + 32 + 16 * i, 10);
    for (int i = 0; i < (is64 ? 16 : 8); i++)
        memcpy(f->xmm[i], fx + 160 + 16 * i, 16);
    /* The abridged tag only says empty or not; that is all the CPU keeps. */
    uint8_t a = fx[4];
    f->ftw = 0;
    for (int i = 0; i < 8; i++)
        if (!(a & (1u << i)))
            f->ftw |= (uint16_t)(3u << (2 * i));
}
