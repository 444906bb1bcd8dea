/* CPU checks Unicorn leaves out and a hostile guest could lean on, found by
 * the hostile corpus (tests/hostile) against the real kernel. */
#include "emu/entry/port_io.h"

#include "abi/linux.h"
#include "emu/entry/exception.h"
#include "emu/kernel/sched.h"

/* Port I/O at CPL 3 with IOPL 0 and no I/O bitmap is #GP on x86, so the
 * kernel answers SIGSEGV; Unicorn would instead run in/out against its
 * (empty) port space and let the guest go on. */
static uint32_t hook_in(uc_engine *uc, uint32_t port, int size, void *user)
{
    (void)uc, (void)port, (void)size;
    struct task *t = cpu_task(user);
    sched_hook_enter(t);
    exception_raise(t, X86_TRAP_GP_LINUX, 0, 0);
    sched_hook_leave(t);
    return 0;
}

static void hook_out(uc_engine *uc, uint32_t port, int size, uint32_t value, void *user)
{
    (void)uc, (void)port, (void)size, (void)value;
    struct task *t = cpu_task(user);
    sched_hook_enter(t);
    exception_raise(t, X86_TRAP_GP_LINUX, 0, 0);
    sched_hook_leave(t);
}

err_t port_io_install(struct cpu *c)
{
    uc_hook h;
    err_t e;
    if ((e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_in, c, 1, 0,
                                UC_X86_INS_IN))) ||
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_out, c, 1, 0,
                                UC_X86_INS_OUT))))
        return e;
    return OK;
}
