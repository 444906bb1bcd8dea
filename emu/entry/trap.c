#include "emu/entry/trap.h"

#include <inttypes.h>
#include <string.h>

#include <capstone/capstone.h>

#include "abi/linux.h"
#include "abi/vdso.h"
#include "emu/engine/cpu.h"
#include "emu/entry/exception.h"
#include "emu/entry/fault.h"
#include "emu/entry/port_io.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/seccomp_notify.h"
#include "emu/kernel/signal.h"
#include "emu/sys/sys.h"
#include "emu/entry/vdso_time.h"

void (*trap_observer)(struct task *t, const struct trap_event *ev);

static const int regs64[7] = { UC_X86_REG_RAX, UC_X86_REG_RDI, UC_X86_REG_RSI, UC_X86_REG_RDX,
                               UC_X86_REG_R10, UC_X86_REG_R8,  UC_X86_REG_R9 };
/* On a 64-bit engine the ia32 registers are read whole and cut to 32 bits,
 * as the compat entry does. */
static const int regs_ia32_64[7] = { UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX,
                                     UC_X86_REG_RDX, UC_X86_REG_RSI, UC_X86_REG_RDI,
                                     UC_X86_REG_RBP };
static const int regs_ia32[7] = { UC_X86_REG_EAX, UC_X86_REG_EBX, UC_X86_REG_ECX,
                                  UC_X86_REG_EDX, UC_X86_REG_ESI, UC_X86_REG_EDI,
                                  UC_X86_REG_EBP };

/* Why the verdict kills: the strict list, or the filter that decided. */
static char *kill_reason(const struct verdict *v, enum entry e, const struct abi *numbers,
                         int64_t nr)
{
    const char *name = abi_call_name(numbers, nr);
    g_autofree char *call = name ? g_strdup_printf("%s (%" PRId64 ")", name, nr)
                                 : g_strdup_printf("call %" PRId64, nr);
    if (v->list) {
        g_autofree char *strict = abi_strict_text(v->list);
        return g_strdup_printf("killed by SIGKILL: %s via %s is not in the %s strict list %s",
                               call, entry_name(e), v->list->name, strict);
    }
    const struct seccomp_action_linux *action = seccomp_action_linux(v->ret);
    g_autofree char *what = action ? g_strdup_printf("SECCOMP_RET_%s", action->name)
                                   : g_strdup_printf("the unknown action %#x", v->ret);
    return g_strdup_printf("killed by SIGSYS: %s via %s: seccomp filter %zu of %zu returned "
                           "%s (%#x)",
                           call, entry_name(e), v->filters_run - v->winner, v->filters_run,
                           what, v->ret);
}

static void observe(struct task *t, struct trap_event *ev)
{
    if (trap_observer)
        trap_observer(t, ev);
}

/* What the 64-bit syscall hook read already, in its one register batch:
 * the number, the first three arguments, and the flags the instruction
 * saves in r11. */
struct prefetch {
    uint64_t r[4];
    uint64_t flags;
};

/* The registers of a trapped call as its entry convention has them. */
struct trap_regs {
    const int *ids;   /* the number's register, then the arguments' */
    int have;         /* how many of them r holds */
    uint64_t r[7];
    uint32_t user_sp; /* the fast entries: the stack the landing pad returns on */
};

/* The result, and the registers each entry's return leaves. */
static void write_back(struct task *t, const struct trap_event *ev, const struct prefetch *pre,
                       int64_t result, const struct trap_regs *cr)
{
    switch (ev->entry) {
    case ENTRY_SYSCALL64: {
        /* The result, and what the syscall instruction itself leaves:
         * return rip, rflags.  One batch: this is the hot path of every
         * 64-bit read and write. */
        static const int ids[3] = { UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_R11 };
        uint64_t flags = pre ? pre->flags : cpu_reg(t->cpu, UC_X86_REG_EFLAGS);
        uint64_t vals[3] = { (uint64_t)result, ev->pc + 2, flags };
        void *ptrs[3] = { &vals[0], &vals[1], &vals[2] };
        uc_err ue = uc_reg_write_batch(t->cpu->uc, (int *)ids, ptrs, 3);
        if (ue != UC_ERR_OK)
            g_error("uc_reg_write_batch: %s", uc_strerror(ue));
        break;
    }
    case ENTRY_INT80:
        if (t->is64)
            cpu_set_reg(t->cpu, UC_X86_REG_RAX, (uint64_t)result);
        else
            cpu_set_reg(t->cpu, UC_X86_REG_EAX, (uint32_t)result);
        break;
    case ENTRY_SYSENTER32:
        /* Back at the landing pad, which pops ebp, edx, ecx and returns;
         * the stack is the one ebp named. */
        cpu_set_reg(t->cpu, UC_X86_REG_EAX, (uint32_t)result);
        cpu_set_reg(t->cpu, UC_X86_REG_EBP, ev->args[5]);
        cpu_set_reg(t->cpu, UC_X86_REG_ESP, cr->user_sp);
        cpu_set_pc(t->cpu, t->mm->layout.int80_pad - 2); /* the engine adds 2 after the hook */
        break;
    case ENTRY_SYSCALL32:
        cpu_set_reg(t->cpu, t->is64 ? UC_X86_REG_RAX : UC_X86_REG_EAX, (uint32_t)result);
        cpu_set_reg(t->cpu, t->is64 ? UC_X86_REG_RBP : UC_X86_REG_EBP, ev->args[5]);
        cpu_set_reg(t->cpu, t->is64 ? UC_X86_REG_RCX : UC_X86_REG_ECX, (uint32_t)cr->r[6]);
        /* The engine adds the instruction's length after this hook. */
        cpu_set_pc(t->cpu, t->mm->layout.int80_pad - 2);
        break;
    }
}

/* Must the call be made outside the engine?  One that makes or replaces
 * engines and tasks always; one that may wait when other tasks run on the
 * same engine, which it would hold while waiting. */
static bool must_leave_engine(const struct task *t, const struct syscall_desc *d)
{
    return (d->flags & SYS_LEAVES_ENGINE) || ((d->flags & SYS_BLOCKS) && t->cpu->users > 1);
}

/* Keep the call's entry registers for a call that may sleep, where
 * /proc/<pid>/syscall of the task finds them (collect_syscall: the number,
 * the six arguments, the user stack and the return address). */
static void call_begin(struct task *t, const struct trap_event *ev, uint64_t ip,
                       const struct trap_regs *cr)
{
    bool fast = ev->entry == ENTRY_SYSENTER32 || ev->entry == ENTRY_SYSCALL32;
    t->call.active = true;
    t->call.nr = ev->nr;
    memcpy(t->call.args, ev->args, sizeof(t->call.args));
    t->call.ip = ip;
    /* The fast entries keep the user stack where the vDSO left it: ebp
     * for sysenter, esp for syscall (read_call's user_sp). */
    t->call.sp = fast ? cr->user_sp : cpu_reg(t->cpu, t->is64 ? UC_X86_REG_RSP : UC_X86_REG_ESP);
}

/* Only the result register is left to write once the call returns. */
static void set_result(struct task *t, enum entry e, int64_t result)
{
    if (e == ENTRY_SYSCALL64)
        cpu_set_reg(t->cpu, UC_X86_REG_RAX, (uint64_t)result);
    else if (e == ENTRY_INT80 && t->is64)
        cpu_set_reg(t->cpu, UC_X86_REG_RAX, (uint64_t)result);
    else
        cpu_set_reg(t->cpu, t->is64 ? UC_X86_REG_RAX : UC_X86_REG_EAX, (uint32_t)result);
}

void trap_finish_deferred(struct task *t)
{
    struct deferred_call dc = t->deferred;
    t->deferred.active = false;
    t->call_abi = dc.abi;
    const struct syscall_desc *d = dc.desc;
    struct notify_report rep;
    bool run = true;
    int64_t result = 0;
    if (dc.notify) {
        /* SECCOMP_RET_USER_NOTIF: the answer decides whether the call
         * runs at all. */
        dc.verdict.call = &dc.data;
        run = seccomp_notify_wait(t, dc.notify, &dc.data, &result, &rep);
        seccomp_filter_put(dc.notify);
    }
    if (run && t->state == TASK_RUNNING)
        result = d ? d->fn(t, dc.args) : -ENOSYS_LINUX;
    t->call.active = false;
    struct trap_event ev = { .entry = dc.entry, .pc = dc.pc, .nr = dc.nr, .mode = dc.mode,
                             .verdict = &dc.verdict, .notify = dc.notify ? &rep : NULL,
                             .result = result, .returned = t->state == TASK_RUNNING };
    memcpy(ev.args, dc.args, sizeof(ev.args));
    observe(t, &ev);
    if (t->state != TASK_RUNNING)
        return;
    if (t->exec_done) {
        /* execve: the new program's first registers are in place. */
        t->exec_done = false;
        return;
    }
    set_result(t, dc.entry, result);
    if (dc.notify && rep.end == NOTIFY_ANSWERED)
        signal_syscall_exit_answer(t, dc.entry, dc.nr, result);
    else
        signal_syscall_exit(t, dc.entry, dc.nr, result);
}

/* Reads the call as its entry passes it: the number and the arguments
 * into ev, the registers into cr.  False when a fast entry's 6th argument
 * cannot be read from the user stack. */
static bool read_call(struct task *t, const struct prefetch *pre, struct trap_event *ev,
                      struct trap_regs *cr)
{
    enum entry e = ev->entry;
    bool ia32 = e != ENTRY_SYSCALL64;
    bool fast = e == ENTRY_SYSENTER32 || e == ENTRY_SYSCALL32;
    uint64_t *r = cr->r;
    cr->ids = !ia32 ? regs64 : t->is64 ? regs_ia32_64 : regs_ia32;
    /* Unicorn's register reads were half of a trapped call's instructions
     * (callgrind): the number and three arguments first, the other three
     * only for a call that takes them (abi.h: arity), or for a watcher. */
    bool filtered = t->filters && t->filters->len;
    cr->have = fast || trap_observer || filtered ? 7 : 4;
    if (pre) {
        memcpy(r, pre->r, sizeof(pre->r));
        if (cr->have > 4)
            cpu_regs(t->cpu, cr->ids + 4, r + 4, cr->have - 4);
    } else
        cpu_regs(t->cpu, cr->ids, r, cr->have);
    /* Today's kernels take the number as the low 32 bits, a signed int on
     * the 64-bit entry and zero-extended eax on the compat ones. */
    ev->nr = ia32 ? (int64_t)(uint32_t)r[0] : (int64_t)(int32_t)(uint32_t)r[0];
    for (int i = 0; i < 6; i++)
        ev->args[i] = ia32 ? (uint32_t)r[i + 1] : r[i + 1];
    if (!fast)
        return true;
    /* The vDSO convention: ebp holds the user stack (sysenter) or arg 2
     * (syscall, which clobbers ecx); arg 6 waits on the user stack. */
    if (e == ENTRY_SYSENTER32)
        cr->user_sp = (uint32_t)r[6];
    else {
        cr->user_sp = (uint32_t)cpu_reg(t->cpu, t->is64 ? UC_X86_REG_RSP : UC_X86_REG_ESP);
        ev->args[1] = (uint32_t)r[6];
    }
    uint32_t arg6;
    if (!mm_read(t->mm, cr->user_sp, &arg6, 4))
        return false;
    ev->args[5] = arg6;
    return true;
}

/* The arguments a call takes that read_call() left unread; a call that
 * may sleep shows all six in /proc/<pid>/syscall. */
static void read_rest(struct task *t, const struct syscall_desc *d, struct trap_event *ev,
                      struct trap_regs *cr)
{
    if (!d || cr->have == 7 || (d->arity <= 3 && !(d->flags & (SYS_BLOCKS | SYS_LEAVES_ENGINE))))
        return;
    bool ia32 = ev->entry != ENTRY_SYSCALL64;
    cpu_regs(t->cpu, cr->ids + 4, cr->r + 4, 3);
    cr->have = 7;
    for (int i = 3; i < 6; i++)
        ev->args[i] = ia32 ? (uint32_t)cr->r[i + 1] : cr->r[i + 1];
}

/* Leaves the call to the run loop (trap_finish_deferred), which makes it
 * outside the engine, after the supervisor's answer if `notify` is a
 * filter whose listener is to be told. */
static void defer_call(struct task *t, const struct trap_event *ev, const struct abi *abi,
                       const struct syscall_desc *d, struct seccomp_filter *notify,
                       const struct seccomp_data_linux *sd, const struct trap_regs *cr)
{
    call_begin(t, ev, sd->instruction_pointer, cr);
    t->deferred = (struct deferred_call){
        .active = true, .entry = ev->entry, .pc = ev->pc, .nr = ev->nr, .abi = abi, .desc = d,
        .verdict = *ev->verdict, .mode = ev->mode,
        .notify = notify ? seccomp_filter_get(notify) : NULL, .data = *sd };
    memcpy(t->deferred.args, ev->args, sizeof(ev->args));
}

/* What became of a trapped call: trap_call()'s one ending acts on it. */
enum call_end {
    CALL_RETURNS,  /* to its caller, with ev.result: made, or refused with a result */
    CALL_TRAPPED,  /* not made: the number back in ax, SIGSYS forced */
    CALL_KILLED,   /* the verdict ends the thread or the process */
    CALL_DEFERRED, /* the run loop makes it, and observes it then */
};

/* The call asked about once (seccomp_check) and the verdict applied, as
 * __seccomp_filter's switch applies it: made, refused with a result,
 * trapped, killed, or left to the run loop. */
static enum call_end decide_call(struct task *t, const struct abi *abi, struct trap_event *ev,
                                 struct trap_regs *cr, struct seccomp_data_linux *sd,
                                 struct verdict *v)
{
    /* What the filters see: the instruction pointer is the address after
     * the trapping instruction, or the vDSO's landing pad where a fast
     * entry returns (do_fast_syscall_32 sets it before the filter runs). */
    enum entry e = ev->entry;
    bool ia32 = e != ENTRY_SYSCALL64, fast = e == ENTRY_SYSENTER32 || e == ENTRY_SYSCALL32;
    *sd = (struct seccomp_data_linux){
        .nr = (int32_t)ev->nr,
        .arch = ia32 ? AUDIT_ARCH_I386_LINUX : AUDIT_ARCH_X86_64_LINUX,
        .instruction_pointer = fast ? t->mm->layout.int80_pad : ev->pc + 2,
    };
    memcpy(sd->args, ev->args, sizeof(sd->args));
    *v = seccomp_check(t, e, sd);
    ev->verdict = v;
    /* The verdict applied, as __seccomp_filter's switch does. */
    switch (v->effect) {
    case SECCOMP_EFFECT_ALLOW:
    case SECCOMP_EFFECT_LOG: {
        t->call_abi = abi;
        const struct syscall_desc *d = sys_lookup(abi, ev->nr);
        read_rest(t, d, ev, cr);
        if (d && must_leave_engine(t, d)) {
            defer_call(t, ev, abi, d, NULL, sd, cr);
            return CALL_DEFERRED;
        }
        bool may_sleep = d && (d->flags & SYS_BLOCKS);
        if (may_sleep)
            call_begin(t, ev, sd->instruction_pointer, cr);
        ev->result = d ? d->fn(t, ev->args) : -ENOSYS_LINUX;
        if (may_sleep)
            t->call.active = false;
        break;
    }
    case SECCOMP_EFFECT_ERRNO:
    case SECCOMP_EFFECT_TRACE:
        ev->result = v->result;
        break;
    case SECCOMP_EFFECT_NOTIFY:
        if (v->listener) {
            /* The task waits for a supervisor, with the engine free for
             * the other tasks on it: the run loop asks, and makes the
             * call if the answer is CONTINUE. */
            t->call_abi = abi;
            defer_call(t, ev, abi, sys_lookup(abi, ev->nr), v->listener, sd, cr);
            return CALL_DEFERRED;
        }
        ev->result = v->result;
        break;
    case SECCOMP_EFFECT_SIGNAL:
        /* syscall_rollback(): the handler sees the number in ax, as the
         * entry saved it (orig_ax). */
        ev->result = ia32 ? (int64_t)(uint32_t)cr->r[0] : (int64_t)cr->r[0];
        return CALL_TRAPPED;
    case SECCOMP_EFFECT_KILL_THREAD:
    case SECCOMP_EFFECT_KILL_PROCESS:
        t->mode = MODE_DEAD;
        return CALL_KILLED;
    }
    return CALL_RETURNS;
}

/* The one point where a trapped call is decided: read the call, decide,
 * then one ending that observes it and writes its result back once. */
static void trap_call(struct task *t, enum entry e, uint64_t pc, const struct prefetch *pre)
{
    const struct abi *abi = abi_for_entry(e);
    struct trap_event ev = { .entry = e, .pc = pc, .mode = t->mode };
    struct trap_regs cr = { 0 };
    struct seccomp_data_linux sd;
    struct verdict v;
    enum call_end end = CALL_RETURNS;
    if (read_call(t, pre, &ev, &cr))
        end = decide_call(t, abi, &ev, &cr, &sd, &v);
    else
        ev.result = -EFAULT_LINUX; /* before the filter runs, as do_fast_syscall_32 does */

    /* The one ending. */
    if (end == CALL_DEFERRED) {
        /* The engine goes on to its next stop with the call's return
         * registers in place; the run loop makes the call, observes it
         * and stores its result. */
        write_back(t, &ev, pre, -ENOSYS_LINUX, &cr);
        uc_emu_stop(t->cpu->uc);
        return;
    }
    ev.returned = end == CALL_RETURNS && t->state == TASK_RUNNING;
    observe(t, &ev);
    if (end == CALL_KILLED) {
        /* KILL_THREAD (and the strict list's SIGKILL) ends the calling
         * thread alone, unless it is the last live one: then, as
         * KILL_PROCESS always, the process. */
        char *why = kill_reason(&v, e, abi, ev.nr);
        if (v.effect == SECCOMP_EFFECT_KILL_THREAD)
            task_kill_thread(t, v.signo, why);
        else
            task_kill(t, v.signo, why);
        return;
    }
    if (t->state != TASK_RUNNING)
        return; /* the call ended its task (exit, a fatal signal) */
    write_back(t, &ev, pre, ev.result, &cr);
    if (end == CALL_TRAPPED)
        signal_force_seccomp(t, sd.instruction_pointer, sd.nr, sd.arch, (int)v.data,
                             "a seccomp filter returned SECCOMP_RET_TRAP");
    signal_syscall_exit(t, e, ev.nr, ev.result);
}

static void syscall_trap(uc_engine *uc, void *user)
{
    struct task *t = cpu_task(user);
    (void)uc;
    uint64_t pc;
    if (t->is64) {
        /* Every 64-bit read and write comes here: one batch for all the
         * registers the common call needs (each separate read costs as
         * much again in Unicorn's API: callgrind). */
        static const int ids[7] = { UC_X86_REG_RAX, UC_X86_REG_RDI, UC_X86_REG_RSI,
                                    UC_X86_REG_RDX, UC_X86_REG_RIP, UC_X86_REG_CS,
                                    UC_X86_REG_EFLAGS };
        uint64_t v[7];
        cpu_regs(t->cpu, ids, v, 7);
        pc = v[4];
        if ((v[5] & 0xffff) == SEL_USER_CS_LINUX) {
            struct prefetch pre = { .r = { v[0], v[1], v[2], v[3] }, .flags = v[6] };
            trap_call(t, ENTRY_SYSCALL64, pc, &pre);
            return;
        }
    } else
        pc = cpu_pc(t->cpu);
    /* 32-bit code: the compat entry on AMD, #UD on Intel. */
    if (t->vendor == VENDOR_INTEL) {
        /* The engine adds 2 after the hook; the fault is at the syscall. */
        cpu_set_pc(t->cpu, pc - 2);
        exception_raise(t, X86_TRAP_UD_LINUX, pc, 0);
        return;
    }
    trap_call(t, ENTRY_SYSCALL32, pc, NULL);
}

/* Is `int $n` at addr?  Unicorn leaves eip after it for most vectors and
 * on it for some (6), so callers look at both places. */
static bool int_n_at(struct task *t, uint64_t addr, uint32_t n)
{
    uint8_t insn[2];
    return mm_read(t->mm, addr, insn, 2) && insn[0] == 0xcd && insn[1] == n;
}

static void intr_trap(uc_engine *uc, uint32_t intno, void *user)
{
    struct task *t = cpu_task(user);
    (void)uc;
    uint64_t pc = cpu_pc(t->cpu);
    if (intno == 0x80) {
        trap_call(t, ENTRY_INT80, pc - 2, NULL);
        return;
    }
    fault_exception_taken(t);
    /* Unicorn reports `int $n` under the vector n, like the exception of
     * that number.  Linux's gates for n other than 3, 4 and 0x80 are DPL 0,
     * so the instruction itself raises #GP: SIGSEGV, whatever n is. */
    if (intno != 3 && intno != 4 && (int_n_at(t, pc - 2, intno) || int_n_at(t, pc, intno))) {
        /* The fault is at the int. */
        if (int_n_at(t, pc - 2, intno))
            cpu_set_pc(t->cpu, pc - 2);
        exception_int_n(t, (uint8_t)intno);
        return;
    }
    /* Only the vectors that push one have an error code (0 otherwise). */
    bool has_err = intno == X86_TRAP_TS_LINUX || intno == X86_TRAP_NP_LINUX ||
                   intno == X86_TRAP_SS_LINUX || intno == X86_TRAP_GP_LINUX ||
                   intno == X86_TRAP_AC_LINUX;
    exception_at(t, intno, pc, has_err ? cpu_reg(t->cpu, UC_X86_REG_EXCP_ERR) : 0);
}

/* The sysenter a translation block ends with, decoded with Capstone from
 * the eip Unicorn's SYSENTER hook sees: the block's start (or the
 * instruction itself where a code hook keeps eip exact). */
static uint64_t find_sysenter(struct task *t, uint64_t start)
{
    /* The usual case, the vDSO's (its code hook keeps eip exact): a block
     * that starts with sysenter is that one instruction, as sysenter ends
     * it.  Capstone is for the rest: each cs_open pays its decoder's
     * set-up again, some 88,000 instructions (callgrind). */
    uint8_t op[2];
    if (mm_read(t->mm, start, op, 2) && op[0] == 0x0f && op[1] == 0x34)
        return start;
    uint8_t code[512];
    size_t n = mm_valid_prefix(t->mm, start, sizeof(code), PROT_EXEC_LINUX);
    if (!n || !mm_read(t->mm, start, code, n))
        return start;
    csh cs;
    if (cs_open(CS_ARCH_X86, CS_MODE_32, &cs) != CS_ERR_OK)
        return start;
    uint64_t found = start;
    const uint8_t *p = code;
    uint64_t addr = start;
    cs_insn *insn = cs_malloc(cs);
    while (n && cs_disasm_iter(cs, &p, &n, &addr, insn)) {
        if (insn->id == X86_INS_SYSENTER) {
            found = insn->address;
            break;
        }
    }
    cs_free(insn, 1);
    cs_close(&cs);
    return found;
}

/* Unicorn 2.1.1 does not perform sysenter: its helper runs the SYSENTER
 * hooks and then adds the instruction's length to a stale eip (the block's
 * start).  So the whole instruction is emulated here, per vendor: AMD
 * refuses it in compat mode (#UD); Intel enters the kernel, which returns
 * to the vDSO's int80 landing pad with the user stack taken from ebp.  A
 * 64-bit task's compat code gets the same call and a landing pad that is
 * not there (vdso_map: Linux adds the 32-bit image's offset to the 64-bit
 * vDSO and sysretl truncates it), so it dies of SIGSEGV after the call, as
 * measured on an Intel host. */
static void sysenter_trap(uc_engine *uc, void *user)
{
    struct task *t = cpu_task(user);
    (void)uc;
    uint64_t pc = find_sysenter(t, cpu_pc(t->cpu));
    if (t->vendor == VENDOR_AMD) {
        cpu_set_pc(t->cpu, pc - 2); /* the engine's skip lands back on it */
        exception_raise(t, X86_TRAP_UD_LINUX, pc, 0);
        return;
    }
    trap_call(t, ENTRY_SYSENTER32, pc, NULL);
}

bool trap_sysenter_long(struct task *t, uint64_t pc)
{
    if (t->vendor != VENDOR_INTEL || !cpu_in_64bit_code(t->cpu))
        return false;
    trap_call(t, ENTRY_SYSENTER32, pc, NULL);
    if (t->state == TASK_RUNNING) {
        /* sysretl returns in compat mode; reached from the engine's #UD,
         * so no skip follows as after the hook. */
        cpu_set_reg(t->cpu, UC_X86_REG_CS, SEL_USER32_CS_LINUX);
        cpu_set_pc(t->cpu, t->mm->layout.int80_pad);
    }
    return true;
}

static void kernel_page_trap(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct task *t = cpu_task(user);
    (void)uc, (void)size;
    if ((cpu_reg(t->cpu, UC_X86_REG_CS) & 3) == 3) {
        fault_user_kernel_page(t, address);
        return;
    }

}

static bool bad_access_trap(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                            int64_t value, void *user)
{
    struct task *t = cpu_task(user);
    (void)uc, (void)size, (void)value;
    bool unmapped = type == UC_MEM_READ_UNMAPPED || type == UC_MEM_WRITE_UNMAPPED ||
                    type == UC_MEM_FETCH_UNMAPPED;
    bool write = type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_WRITE_PROT;
    bool fetch = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT;
    /* Mostly NX fetches: the other faults are taken precisely by
     * emu/entry/fault.c first. */
    exception_page_fault(t, address, !unmapped,
                         write ? ACCESS_WRITE : fetch ? ACCESS_FETCH : ACCESS_READ, NULL);
    return false;
}

/* The hooks: each is the kernel's, so in parallel (sched.h) its task
 * takes the kernel lock for it and lets it go before guest code goes on.
 * A task killed while it waited for the lock (a group exit by another
 * thread) makes no call: it leaves its run loop. */
static bool enter_kernel(struct task *t, uc_engine *uc)
{
    sched_hook_enter(t);
    if (t->state == TASK_RUNNING)
        return true;
    uc_emu_stop(uc);
    sched_hook_leave(t);
    return false;
}

static void hook_syscall(uc_engine *uc, void *user)
{
    struct task *t = cpu_task(user);
    if (!enter_kernel(t, uc))
        return;
    syscall_trap(uc, user);
    sched_hook_leave(t);
}

static void hook_intr(uc_engine *uc, uint32_t intno, void *user)
{
    struct task *t = cpu_task(user);
    if (!enter_kernel(t, uc))
        return;
    intr_trap(uc, intno, user);
    sched_hook_leave(t);
}

static void hook_sysenter(uc_engine *uc, void *user)
{
    struct task *t = cpu_task(user);
    if (!enter_kernel(t, uc))
        return;
    sysenter_trap(uc, user);
    sched_hook_leave(t);
}

static void hook_kernel_page(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct task *t = cpu_task(user);
    if (!enter_kernel(t, uc))
        return;
    kernel_page_trap(uc, address, size, user);
    sched_hook_leave(t);
}

static bool hook_bad_access(uc_engine *uc, uc_mem_type type, uint64_t address, int size,
                            int64_t value, void *user)
{
    struct task *t = cpu_task(user);
    if (!enter_kernel(t, uc))
        return false;
    bool handled = bad_access_trap(uc, type, address, size, value, user);
    sched_hook_leave(t);
    return handled;
}

static void hook_vdso(uc_engine *uc, uint64_t address, uint32_t size, void *user)
{
    struct task *t = cpu_task(user);
    (void)size;
    if (address == t->mm->layout.int80_pad)
        t->sig.sysenter_done = false; /* back in user mode after a fast call */
    /* The hook runs for each instruction of the vDSO: the kernel lock
     * only for the functions it serves, which write guest memory. */
    if (!vdso_time_serves(t, address) || !enter_kernel(t, uc))
        return;
    vdso_time_hook(t, address);
    sched_hook_leave(t);
}

err_t trap_install(struct cpu *c)
{
    uc_hook h;
    err_t e;
    if ((e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_syscall, c, 1, 0,
                                UC_X86_INS_SYSCALL))) ||
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_INTR, (void *)hook_intr, c, 1, 0))) ||
        /* 64-bit guests too: from their compat code Unicorn would transfer
         * to an unset SYSENTER_EIP. */
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_INSN, (void *)hook_sysenter, c, 1, 0,
                                UC_X86_INS_SYSENTER))) ||
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_CODE, (void *)hook_kernel_page, c,
                                c->mm->layout.kpage, c->mm->layout.kpage + 0xfff))) ||
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_MEM_INVALID, (void *)hook_bad_access, c, 1,
                                0))) ||
        (e = port_io_install(c)))
        return e;
    /* Only the vDSO's text, so ordinary code runs without a code hook. */
    if (c->mm->layout.vdso_code_end &&
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_CODE, (void *)hook_vdso, c, c->mm->layout.vdso_code,
                                c->mm->layout.vdso_code_end - 1))))
        return e;
    return OK;
}
