#include "emu/entry/exception.h"

#include <glib.h>

#include "abi/signal_linux.h"
#include "emu/engine/mem.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"

/* What Linux's trap handlers (arch/x86/kernel/traps.c, mm/fault.c) send
 * for each vector the guest can raise from user mode: the signal, its
 * si_code, the trap number sigcontext records, and whether si_addr is the
 * faulting instruction (the faults that name one) or 0 (the kernel's
 * SI_KERNEL ones and the rest).  #PF's si_addr is the address accessed
 * (exception_page_fault).  Vectors not listed are #GP's row. */
struct exception_signal {
    int signo;
    int code;
    int trapno;
    bool addr_is_pc;
};

static const struct exception_signal table[32] = {
    [X86_TRAP_DE_LINUX] = { SIGFPE_LINUX, FPE_INTDIV_LINUX, X86_TRAP_DE_LINUX, true },
    [X86_TRAP_DB_LINUX] = { SIGTRAP_LINUX, TRAP_BRKPT_LINUX, X86_TRAP_BP_LINUX, false },
    [X86_TRAP_BP_LINUX] = { SIGTRAP_LINUX, SI_KERNEL_LINUX, X86_TRAP_BP_LINUX, true },
    [X86_TRAP_UD_LINUX] = { SIGILL_LINUX, ILL_ILLOPN_LINUX, X86_TRAP_UD_LINUX, true },
    [X86_TRAP_NP_LINUX] = { SIGBUS_LINUX, SI_KERNEL_LINUX, X86_TRAP_NP_LINUX, false },
    [X86_TRAP_SS_LINUX] = { SIGBUS_LINUX, SI_KERNEL_LINUX, X86_TRAP_SS_LINUX, false },
    [X86_TRAP_GP_LINUX] = { SIGSEGV_LINUX, SI_KERNEL_LINUX, X86_TRAP_GP_LINUX, false },
    [X86_TRAP_PF_LINUX] = { SIGSEGV_LINUX, SEGV_MAPERR_LINUX, X86_TRAP_PF_LINUX, false },
    [X86_TRAP_MF_LINUX] = { SIGFPE_LINUX, 0, X86_TRAP_MF_LINUX, true },
    [X86_TRAP_AC_LINUX] = { SIGBUS_LINUX, BUS_ADRALN_LINUX, X86_TRAP_AC_LINUX, false },
    [X86_TRAP_XF_LINUX] = { SIGFPE_LINUX, 0, X86_TRAP_MF_LINUX, true },
};

/* The faults Unicorn reports only by ending emulation with an error, as
 * the vector each stands for; any other error is #GP's.  The engine names
 * no address, so si_addr is the instruction's, for a page fault too. */
static const struct {
    uc_err err;
    unsigned vector;
    bool mapped; /* #PF: a protection fault, not a missing page */
} engine_errors[] = {
    { UC_ERR_INSN_INVALID, X86_TRAP_UD_LINUX, false },
    { UC_ERR_READ_UNMAPPED, X86_TRAP_PF_LINUX, false },
    { UC_ERR_WRITE_UNMAPPED, X86_TRAP_PF_LINUX, false },
    { UC_ERR_FETCH_UNMAPPED, X86_TRAP_PF_LINUX, false },
    { UC_ERR_READ_PROT, X86_TRAP_PF_LINUX, true },
    { UC_ERR_WRITE_PROT, X86_TRAP_PF_LINUX, true },
    { UC_ERR_FETCH_PROT, X86_TRAP_PF_LINUX, true },
    { UC_ERR_READ_UNALIGNED, X86_TRAP_AC_LINUX, false },
    { UC_ERR_WRITE_UNALIGNED, X86_TRAP_AC_LINUX, false },
    { UC_ERR_FETCH_UNALIGNED, X86_TRAP_AC_LINUX, false },
};

static const struct exception_signal *lookup(unsigned vector)
{
    if (vector < G_N_ELEMENTS(table) && table[vector].signo)
        return &table[vector];
    return &table[X86_TRAP_GP_LINUX];
}

void exception_raise(struct task *t, unsigned vector, uint64_t addr, uint64_t err)
{
    const struct exception_signal *s = lookup(vector);
    signal_fault_why(t, s->signo, s->code, addr, s->trapno, err, NULL);
}

void exception_page_fault(struct task *t, uint64_t addr, bool mapped, enum access how,
                          const char *why)
{
    const struct exception_signal *s = lookup(X86_TRAP_PF_LINUX);
    /* sanitize_error_code(): a user access at or above TASK_SIZE_MAX (the
     * 64-bit limit, for compat tasks too) always reports a protection
     * fault, so as not to show the kernel's page tables. */
    bool kernel_half = addr >= TASK_SIZE_64_LINUX;
    const struct vma *v = mapped ? mm_find(t->mm, addr) : NULL;
    /* Past the end of a shared object, or on a [vvar] page left out, no
     * page is there to map: the fault handler (shmem's, vvar's) answers
     * VM_FAULT_SIGBUS, and do_sigbus() reports it with the (not-present)
     * error code of the access.  Only for an access that access_error()
     * lets through to the handler: a write needs VM_WRITE, any other
     * access (a fetch too: the page is not present) any of VM_READ,
     * VM_WRITE, VM_EXEC. */
    int allows = how == ACCESS_WRITE ? PROT_WRITE_LINUX
                                     : PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX;
    if (v && mm_vma_no_page(v, addr) && (v->prot & allows)) {
        signal_fault_why(t, SIGBUS_LINUX, BUS_ADRERR_LINUX, addr, s->trapno,
                         X86_PF_USER_LINUX | (how == ACCESS_WRITE ? X86_PF_WRITE_LINUX : 0) |
                             (how == ACCESS_FETCH ? X86_PF_INSTR_LINUX : 0),
                         why);
        return;
    }
    /* A PROT_NONE page is never present in the page tables (its PTE has
     * _PAGE_PROTNONE instead), nor one that is never there: the hardware
     * says "not present", though a mapping is there (SEGV_ACCERR). */
    bool present = mapped && !(v && (v->prot == 0 || mm_vma_no_page(v, addr)));
    uint64_t err = X86_PF_USER_LINUX | (present || kernel_half ? X86_PF_PROT_LINUX : 0) |
                   (how == ACCESS_WRITE ? X86_PF_WRITE_LINUX : 0) |
                   (how == ACCESS_FETCH ? X86_PF_INSTR_LINUX : 0);
    signal_fault_why(t, s->signo, mapped ? SEGV_ACCERR_LINUX : SEGV_MAPERR_LINUX, addr,
                     s->trapno, err, why);
}

void exception_int_n(struct task *t, uint8_t n)
{
    exception_raise(t, X86_TRAP_GP_LINUX, 0, X86_GP_IDT_ERR_LINUX(n));
}

void exception_at(struct task *t, unsigned vector, uint64_t pc, uint64_t err)
{
    exception_raise(t, vector, lookup(vector)->addr_is_pc ? pc : 0, err);
}

void exception_engine_error(struct task *t, uc_err e, uint64_t pc)
{
    for (size_t i = 0; i < G_N_ELEMENTS(engine_errors); i++) {
        if (engine_errors[i].err != e)
            continue;
        if (engine_errors[i].vector == X86_TRAP_PF_LINUX)
            exception_page_fault(t, pc, engine_errors[i].mapped, ACCESS_READ, NULL);
        else
            exception_at(t, engine_errors[i].vector, pc, 0);
        return;
    }
    exception_raise(t, X86_TRAP_GP_LINUX, pc, 0);
}
