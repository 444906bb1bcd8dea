/* Helpers the two frame layouts share (emu/kernel/sigframe.c). */
#ifndef EMU_KERNEL_SIGFRAME_PRIV_H
#define EMU_KERNEL_SIGFRAME_PRIV_H

#include "abi/sigframe_linux.h"
#include "emu/kernel/sigframe.h"

/* sas_ss_flags(): what uc_stack.ss_flags and sigaltstack report. */
uint32_t sigframe_ss_flags(const struct sigaltstack_k *ss, uint64_t sp);

/* The FXSAVE image Linux puts in (and takes from) frames. */
void sigframe_fxsave_put(const struct uctx_fpu *f, bool is64, struct fxregs_state_linux *fx);
void sigframe_fxsave_get(const struct fxregs_state_linux *fx, bool is64, struct uctx_fpu *f);

#endif
