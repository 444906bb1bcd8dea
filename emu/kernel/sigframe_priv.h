/* Helpers the two frame layouts share (emu/kernel/sigframe.c). */
#ifndef EMU_KERNEL_SIGFRAME_PRIV_H
#define EMU_KERNEL_SIGFRAME_PRIV_H

#include "abi/sigframe_linux.h"
#include "emu/kernel/sigframe.h"

/* sas_ss_flags(): what uc_stack.ss_flags and sigaltstack report. */
uint32_t sigframe_ss_flags(const struct sigaltstack_k *ss, uint64_t sp);

/* The FPU state below a frame, at its 64-byte-aligned buf_fx, as Linux
 * with XSAVE writes it (copy_fpstate_to_sigframe): the FXSAVE image, the
 * XSAVE header and the components of xcr0 in use, and MAGIC2 after the
 * area; sigframe_fpstate_size() bytes in all.  ia32 frames put the FSAVE
 * header before buf_fx (the caller's). */
uint32_t sigframe_fpstate_size(uint64_t xcr0);
bool sigframe_fpstate_put(struct mm *mm, uint64_t buf_fx, const struct uctx_fpu *f, bool is64,
                          bool ia32, uint64_t xcr0);
/* fpu__restore_sig(): the state the frame at buf_fx gives back, with what
 * it leaves out reset (*restored: the components it gave); false for a
 * frame the kernel refuses (SIGSEGV). */
bool sigframe_fpstate_get(struct mm *mm, uint64_t buf_fx, bool is64, bool ia32,
                          uint64_t xcr0, struct uctx_fpu *f, uint64_t *restored);

#endif
