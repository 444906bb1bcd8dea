/* The CPU: a Unicorn engine set up as a Linux x86 kernel leaves a user task,
 * with a GDT of Linux's layout, CPL 3, and the MSRs the entry paths need. */
#ifndef EMU_CPU_H
#define EMU_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "emu/engine/mem.h"
#include "emu/status.h"

struct task; /* emu/kernel/task.h: the engine layer only passes it along */

enum vendor { VENDOR_INTEL, VENDOR_AMD };

/* One emulated CPU: a Unicorn engine and the address space it maps.  The
 * tasks of an mm take turns on it (emu/kernel/sched.c switches their
 * registers); its hooks get the cpu as their user data and find the task
 * they act for in `current`. */
struct cpu {
    uc_engine *uc;
    bool is64;            /* Unicorn runs in 64-bit mode */
    uint64_t xcr0;        /* the XSAVE components enabled: what signal frames hold */
    struct mm *mm;        /* one reference, held while the engine lives */
    struct task *current; /* whose registers the engine holds */
    /* The kernel page (GDT and stubs) when this engine is not the first
     * of its mm: its own, since each engine's GDT holds its task's TLS
     * entries.  NULL: the mm's. */
    uint8_t *own_kpage;
    unsigned users;       /* tasks that run on it */
    bool insn_hook_on;    /* emu/kernel/limits.c: counting each instruction */
    int64_t insn_budget_set; /* ... the budget given for this run; -1: none */
    bool insn_grant_bound;   /* ... a parallel engine's piece of it */
    uc_hook insn_hook;
    /* emu/entry/fault.c: a TLB fill refused since the engine last started,
     * which an exit with UC_ERR_EXCEPTION turns into the page fault. */
    struct refused_fill {
        bool pending;
        uint64_t page;
        uint64_t vaddr; /* the refused access's first byte in that page */
        uc_mem_type type;
    } refused_fill;
};

/* The task a hook acts for: hooks are registered with their cpu as the
 * user data. */
static inline struct task *cpu_task(void *hook_user)
{
    return ((struct cpu *)hook_user)->current;
}

/* Open the engine for a 32- or 64-bit guest on `mm` (a reference is
 * taken), and map seccomp-emu's page into it unless the address space
 * has it already (a copy made by fork). */
/* Run guest code from pc until `until` (uc_emu_start), with direct accesses
 * through the mm's window where they are on (mm_window_activate) and the
 * host's faults there taken as the engine's (hostfault.h). */
uc_err cpu_emu_start(struct cpu *c, uint64_t pc, uint64_t until);

err_t cpu_open(struct cpu *c, struct mm *mm, bool is64);
void cpu_close(struct cpu *c);

/* --sched=parallel: put the engine in its mm's parallel group (made at
 * the first call), so that it runs guest code beside the mm's other
 * engines on other host threads.  Its translations are dropped; call it
 * with the engine stopped. */
err_t cpu_join_group(struct cpu *c);

/* Registers for the first user instruction; the switch to CPL 3 happens
 * through an iret stub on the kernel page when emulation starts.  Returns
 * the address to start emulation at. */
err_t cpu_prepare_user(struct cpu *c, uint64_t entry, uint64_t sp, uint64_t *start);

/* Leave a CPL 0 stub (the sysenter entry) for user mode at ip/sp, through
 * the iret stub; *start is where emulation must resume. */
err_t cpu_iret_to_user(struct cpu *c, uint64_t ip, uint16_t cs, uint64_t flags, uint64_t sp,
                       uint16_t ss, uint64_t *start);

/* CR4.TSD: with `off`, rdtsc at CPL 3 raises #GP.  Set again at each task
 * switch from the task's own flag, as Linux switches TIF_NOTSC. */
void cpu_set_tsc_off(struct cpu *c, bool off);

/* Install one TLS descriptor (set_thread_area) into GDT entry `index`,
 * reloading the segment registers that name it. */
err_t cpu_set_tls(struct cpu *c, unsigned index, const uint8_t desc[8]);
/* Write the GDT's TLS entries from a task's own, as Linux's load_TLS()
 * does at a task switch (the segment registers come with the saved
 * registers). */
void cpu_load_tls(struct cpu *c, unsigned first, unsigned n, const uint8_t (*desc)[8]);

/* Reload the segment registers that name a TLS descriptor, so that
 * their hidden bases are the GDT's again (after a task switch). */
void cpu_reload_tls_segments(struct cpu *c);

/* The address space's LDT (modify_ldt), as LDTR points at it: `entries`
 * descriptors in a hidden mapping past seccomp-emu's page, made at the
 * first call.  Its host bytes in *table, room for cpu_ldt_capacity(c)
 * entries; fails when `entries` is more. */
unsigned cpu_ldt_capacity(const struct cpu *c);
err_t cpu_ldt_resize(struct cpu *c, unsigned entries, uint8_t **table);
/* The table and its size (NULL and 0 before the first write). */
const uint8_t *cpu_ldt(struct cpu *c, unsigned *entries);
/* LDTR from the address space: after a task's registers are restored (they
 * hold the LDTR of when they were saved), and at an engine's creation. */
void cpu_load_ldt(struct cpu *c);
/* refresh_ldt_segments(): DS and ES that name the LDT are loaded again, and
 * one the new table refuses becomes the null selector (loadsegment()'s
 * fixup).  FS and GS keep what they cached, as on Linux until the next
 * context switch. */
void cpu_refresh_ldt_segments(struct cpu *c);

uint64_t cpu_pc(struct cpu *c);
void cpu_set_pc(struct cpu *c, uint64_t pc);
uint64_t cpu_reg(struct cpu *c, int reg);
void cpu_set_reg(struct cpu *c, int reg, uint64_t v);
/* Read n (at most CPU_BATCH_MAX) registers in one call: Unicorn's register
 * API costs about 40 host instructions a call, so the trap path batches. */
#define CPU_BATCH_MAX 32
void cpu_regs(struct cpu *c, const int *ids, uint64_t *out, int n);

/* Is the code being executed 64-bit (CS.L)? */
bool cpu_in_64bit_code(struct cpu *c);

/* Where seccomp-emu's page is for this engine, and its host bytes. */
uint64_t cpu_kpage(const struct cpu *c);

/* Would the kernel's force_valid_ss() keep `sel` as a 64-bit task's stack
 * segment: a present, writable, DPL 3 data descriptor (the GDT's user data
 * segment, or a TLS entry made so)? */
bool cpu_valid_user_data(struct cpu *c, uint16_t sel);

enum vendor cpu_host_vendor(void);

#endif
