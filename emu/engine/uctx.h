/* The user-mode CPU state a signal frame saves and sigreturn restores:
 * general registers, segments, flags, x87/SSE.  Read from and written to
 * Unicorn in one place, so the frame code (emu/kernel/sigframe_*.c) deals only in
 * this structure and guest memory. */
#ifndef EMU_UCTX_H
#define EMU_UCTX_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

struct cpu;

/* General registers in x86 encoding order. */
enum uctx_reg {
    UR_AX, UR_CX, UR_DX, UR_BX, UR_SP, UR_BP, UR_SI, UR_DI,
    UR_R8, UR_R9, UR_R10, UR_R11, UR_R12, UR_R13, UR_R14, UR_R15,
    UR_NREGS,
};

/* x87, SSE and AVX state, in the terms of the XSAVE area. */
struct uctx_fpu {
    uint16_t fcw, fsw;
    uint16_t ftw;        /* full tag word: two bits per physical register */
    uint16_t fop;
    uint64_t fip, fdp;
    uint8_t st[8][10];   /* ST(0)..ST(7), 80-bit */
    uint32_t mxcsr;
    uint8_t xmm[16][16]; /* XMM8-15 exist only in 64-bit mode */
    uint8_t ymmh[16][16]; /* YMM bits 255:128, where XCR0 enables AVX */
};

/* Is the AVX state in use (XINUSE[2]): any YMM upper half not zero? */
bool uctx_ymm_in_use(const struct uctx_fpu *f);

struct uctx {
    uint64_t r[UR_NREGS];
    uint64_t ip, flags;
    uint16_t cs, ss, ds, es, fs, gs;
    struct uctx_fpu fpu;
};

/* The state user mode sees now.  When the engine stopped on seccomp-emu's
 * sysenter stub (CPL 0) after a completed call, this is the state the
 * sysexit would have returned to. */
void uctx_read(struct cpu *cpu, struct uctx *c);

/* Make `c` the user-mode state; returns the pc to start emulating at (the
 * iret stub when the CPU must leave CPL 0).  An error means a segment
 * selector the CPU refused: the caller treats the frame as bad. */
err_t uctx_write(struct cpu *cpu, const struct uctx *c, uint64_t *start);

/* The FPU as Linux hands it to a new program or a signal handler
 * (fpstate_init: FCW 0x37f, MXCSR 0x1f80, all registers empty). */
void uctx_fpu_init(struct uctx_fpu *f);
void uctx_fpu_reset(struct cpu *cpu);

/* Abridged (FXSAVE) and full (FSAVE) tag words. */
uint8_t uctx_ftw_abridged(uint16_t full);
uint16_t uctx_ftw_full(const struct uctx_fpu *f, uint8_t abridged);

/* Is the CPU at seccomp-emu's sysenter stub, the call done, sysexit next? */
bool uctx_at_sysexit(struct cpu *cpu);

#endif
