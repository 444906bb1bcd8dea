#include "emu/entry/exception.h"

#include <glib.h>

#include "abi/signal_linux.h"
#include "emu/engine/mem.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"

/* What Linux's trap handlers (arch/x86/kernel/traps.c, mm/fault.c) send
 * for each vector the guest can raise from user mode: the signal, its
 * si_code, and the trap number sigcontext records.  Vectors not listed
 * are #GP's row. */
struct exception_signal {
    int signo;
    int code;
    int trapno;
};

static const struct exception_signal table[32] = {
    [X86_TRAP_DE_LINUX] = { SIGFPE_LINUX, FPE_INTDIV_LINUX, X86_TRAP_DE_LINUX },
    [X86_TRAP_DB_LINUX] = { SIGTRAP_LINUX, TRAP_BRKPT_LINUX, X86_TRAP_BP_LINUX },
    [X86_TRAP_BP_LINUX] = { SIGTRAP_LINUX, SI_KERNEL_LINUX, X86_TRAP_BP_LINUX },
    [X86_TRAP_UD_LINUX] = { SIGILL_LINUX, ILL_ILLOPN_LINUX, X86_TRAP_UD_LINUX },
    [X86_TRAP_NP_LINUX] = { SIGBUS_LINUX, SI_KERNEL_LINUX, X86_TRAP_SS_LINUX },
    [X86_TRAP_SS_LINUX] = { SIGBUS_LINUX, SI_KERNEL_LINUX, X86_TRAP_SS_LINUX },
    [X86_TRAP_GP_LINUX] = { SIGSEGV_LINUX, SI_KERNEL_LINUX, X86_TRAP_GP_LINUX },
    [X86_TRAP_PF_LINUX] = { SIGSEGV_LINUX, SEGV_MAPERR_LINUX, X86_TRAP_PF_LINUX },
    [X86_TRAP_MF_LINUX] = { SIGFPE_LINUX, 0, X86_TRAP_MF_LINUX },
    [X86_TRAP_AC_LINUX] = { SIGBUS_LINUX, SI_KERNEL_LINUX, X86_TRAP_SS_LINUX },
    [X86_TRAP_XF_LINUX] = { SIGFPE_LINUX, 0, X86_TRAP_MF_LINUX },
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
    /* A PROT_NONE page is never present in the page tables (its PTE has
     * _PAGE_PROTNONE instead): the hardware says "not present", though a
     * mapping is there (SEGV_ACCERR). */
    const struct vma *v = mapped ? mm_find(t->mm, addr) : NULL;
    bool present = mapped && !(v && v->prot == 0);
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
