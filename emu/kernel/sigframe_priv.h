/* Helpers the two frame layouts share (emu/kernel/sigframe.c). */
#ifndef EMU_KERNEL_SIGFRAME_PRIV_H
#define EMU_KERNEL_SIGFRAME_PRIV_H

#include "emu/kernel/sigframe.h"

/* sas_ss_flags(): what uc_stack.ss_flags and sigaltstack report. */
uint32_t sigframe_ss_flags(const struct sigaltstack_k *ss, uint64_t sp);

/* The 512-byte FXSAVE image Linux puts in (and takes from) frames. */
void sigframe_fxsave_put(const struct uctx_fpu *f, bool is64, uint8_t fx[512]);
void sigframe_fxsave_get(const uint8_t fx[512], bool is64, struct uctx_fpu *f);

#define FXSAVE_SIZE 512u

#endif
