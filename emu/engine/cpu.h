/* The CPU: a Unicorn engine set up as a Linux x86 kernel leaves a user task,
 * with a GDT of Linux's layout, CPL 3, and the MSRs the entry paths need. */
#ifndef EMU_CPU_H
#define EMU_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"
#include "emu/kernel/task.h"

/* Open the engine for a 32- or 64-bit guest and map seccomp-emu's page. */
err_t cpu_open(struct task *t, bool is64);
void cpu_close(struct task *t);

/* Registers for the first user instruction; the switch to CPL 3 happens
 * through an iret stub on the kernel page when emulation starts.  Returns
 * the address to start emulation at. */
err_t cpu_prepare_user(struct task *t, uint64_t entry, uint64_t sp, uint64_t *start);

/* Leave a CPL 0 stub (the sysenter entry) for user mode at ip/sp, through
 * the iret stub; *start is where emulation must resume. */
err_t cpu_iret_to_user(struct task *t, uint64_t ip, uint16_t cs, uint64_t flags, uint64_t sp,
                       uint16_t ss, uint64_t *start);

/* CR4.TSD: rdtsc at CPL 3 raises #GP from now on. */
void cpu_disable_tsc(struct task *t);

/* Install one TLS descriptor (set_thread_area) into GDT entry `index`. */
err_t cpu_set_tls(struct task *t, unsigned index, const uint8_t desc[8]);

uint64_t cpu_pc(struct task *t);
void cpu_set_pc(struct task *t, uint64_t pc);
uint64_t cpu_reg(struct task *t, int reg);
void cpu_set_reg(struct task *t, int reg, uint64_t v);
/* Read n (at most CPU_BATCH_MAX) registers in one call: Unicorn's register
 * API costs about 40 host instructions a call, so the trap path batches. */
#define CPU_BATCH_MAX 32
void cpu_regs(struct task *t, const int *ids, uint64_t *out, int n);

/* Is the code being executed 64-bit (CS.L)? */
bool cpu_in_64bit_code(struct task *t);

enum vendor cpu_host_vendor(void);

#endif
