/* QEMU's double-fault rule, undone after each exception the guest takes:
 * without it a second #DE or #GP of a program that handles its signals
 * would become #DF, a third a triple fault (double_fault.c says why). */
#ifndef EMU_ENGINE_DOUBLE_FAULT_H
#define EMU_ENGINE_DOUBLE_FAULT_H

#include "emu/engine/cpu.h"
#include "emu/status.h"

/* Make the engine forget the exception it last delivered, before it runs
 * again: its next exception is a first one. */
err_t cpu_forget_exception(struct cpu *c);

#endif
