/* Signal frames as the Linux x86 ABI lays them out on the user stack:
 * x86_64's rt_sigframe (arch/x86/kernel/signal_64.c) and ia32's sigframe
 * and rt_sigframe (signal_32.c), with ucontext, sigcontext, siginfo and
 * the XSAVE area (arch/x86/kernel/fpu/signal.c).  The builders write guest memory and compute the
 * handler's entry state; the restorers read a frame back for sigreturn,
 * honouring whatever the handler edited. */
#ifndef EMU_KERNEL_SIGFRAME_H
#define EMU_KERNEL_SIGFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/engine/mem.h"
#include "emu/kernel/sigstate.h"
#include "emu/engine/uctx.h"

struct sigaltstack_k {
    uint64_t sp, size;
    uint32_t flags; /* as the task holds them (SS_AUTODISARM, SS_DISABLE) */
};

/* Everything a frame records, gathered by the delivery code. */
struct sigframe_in {
    int sig;
    const struct ksiginfo *info;
    const struct ksigaction *ka;
    const struct uctx *regs; /* the interrupted user state */
    uint64_t mask;           /* restored by sigreturn */
    struct sigaltstack_k ss;
    int trapno;              /* thread.trap_nr, error_code, cr2 */
    uint64_t err, cr2;
    uint64_t vdso_sigreturn, vdso_rt_sigreturn; /* ia32 default restorers */
    uint64_t xcr0;           /* the XSAVE components the FPU state holds */
};

/* What sigreturn found in the frame. */
struct sigreturn_out {
    struct uctx regs;
    uint64_t mask;
    bool has_ss; /* rt frames carry the alternate stack to restore */
    struct sigaltstack_k ss;
    /* x86_64: SS is to become __USER_DS unless the GDT holds a valid user
     * data segment there (force_valid_ss(), which needs the descriptors) */
    bool force_valid_ss;
    /* How far a bad frame got: the kernel sets the blocked mask from it
     * before it reads the context, and its restore_sigcontext() writes the
     * registers before it restores the FPU state, so a bad FPU image
     * leaves both in place (and the FPU in its init state) for the
     * SIGSEGV that follows. */
    bool mask_read, regs_read;
};

/* Is `sp` on the alternate stack (on_sig_stack)? */
bool sigframe_on_altstack(const struct sigaltstack_k *ss, uint64_t sp);

/* Build the frame; `out` becomes the handler's entry state.  False when
 * the frame cannot be written (the kernel's force_sigsegv case). */
bool sigframe_x86_64_setup(struct mm *mm, const struct sigframe_in *in, struct uctx *out);
bool sigframe_ia32_setup(struct mm *mm, const struct sigframe_in *in, bool rt, struct uctx *out);

/* Read the frame sigreturn (ia32, !rt), rt_sigreturn (rt) finds at the
 * current stack pointer; `cur` is the state at the call, xcr0 the task's.
 * False on a bad frame (SIGSEGV; out->mask_read and out->regs_read say
 * what of it still counts). */
bool sigframe_x86_64_restore(struct mm *mm, const struct uctx *cur, uint64_t xcr0,
                             struct sigreturn_out *out);
bool sigframe_ia32_restore(struct mm *mm, const struct uctx *cur, bool rt, uint64_t xcr0,
                           struct sigreturn_out *out);

/* siginfo in the ABI's layout (128 bytes). */
void sigframe_siginfo(const struct ksiginfo *info, bool is64, uint8_t out[128]);

#endif
