/* CPU exceptions and the signals Linux turns them into.  Every fault the
 * guest's instructions raise, whoever notices it (a Unicorn hook, the
 * engine's error, the precise page-fault path, an emulated instruction),
 * goes through here, so the mapping to signal, si_code, trap number,
 * si_addr and error code is made in one table (exception.c), and the
 * mapping of the engine's errors to vectors in another beside it. */
#ifndef EMU_ENTRY_EXCEPTION_H
#define EMU_ENTRY_EXCEPTION_H

#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "abi/signal_linux.h"
#include "emu/kernel/task.h"

/* How the access that faulted was made: the page-fault error code's
 * write and instruction-fetch bits. */
enum access { ACCESS_READ, ACCESS_WRITE, ACCESS_FETCH };

/* The exception `vector` (X86_TRAP_*_LINUX), raised by the instruction
 * being executed; `addr` becomes si_addr and `err` the error code
 * sigcontext shows.  #PF goes through exception_page_fault. */
void exception_raise(struct task *t, unsigned vector, uint64_t addr, uint64_t err);

/* #PF at `addr`: SEGV_MAPERR where nothing is mapped, SEGV_ACCERR where
 * the protection refused the access; `why`, if not NULL, is said should
 * the fault kill (a refused stack growth). */
void exception_page_fault(struct task *t, uint64_t addr, bool mapped, enum access how,
                          const char *why);

/* The exception `vector` raised by the instruction at `pc`, as the CPU
 * reports it (Unicorn's interrupt hook): si_addr is pc or 0, as the table
 * says for the vector; `err` the error code it pushed (the selector a
 * #GP, #NP or #SS names), which sigcontext shows. */
void exception_at(struct task *t, unsigned vector, uint64_t pc, uint64_t err);

/* Unicorn ended emulation with error `e` (not UC_ERR_OK) at `pc`, a fault
 * no hook raised: the exception it stands for (an invalid instruction
 * seccomp-emu emulates is the caller's to try first). */
void exception_engine_error(struct task *t, uc_err e, uint64_t pc);

/* `int $n` for an n whose IDT gate is DPL 0 (all but 3, 4 and 0x80): the
 * instruction itself raises #GP, with an error code naming the gate. */
void exception_int_n(struct task *t, uint8_t n);

#endif
