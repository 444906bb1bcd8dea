/* Instructions the host CPU has and Unicorn's model lacks: emulated when
 * Unicorn reports them invalid, so guests see the CPU Linux would show. */
#ifndef EMU_INSN_EMUL_H
#define EMU_INSN_EMUL_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/kernel/task.h"

/* True when the instruction at `pc` was emulated (or turned into the
 * fault the real CPU raises); false for a genuine #UD. */
bool insn_emulate_invalid(struct task *t, uint64_t pc);

#endif
