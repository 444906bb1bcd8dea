/* Page faults: precise, and turned into SIGSEGV or stack growth.
 *
 * Unicorn 2.1's unmapped-memory hooks run with a stale program counter
 * (the start of some earlier translation block), which a signal frame
 * cannot use.  In UC_TLB_VIRTUAL mode a refused TLB fill raises a real
 * exception instead, after restoring the exact CPU state of the faulting
 * instruction; the fill hook, which runs only on TLB misses, mirrors the
 * VMA table's permissions.  The hook sees only the page, so the exact
 * address is recovered by decoding the (now known) faulting instruction.
 * A fault just below the stack grows it, as Linux's expand_stack() does,
 * up to RLIMIT_STACK. */
#include "emu/entry/fault.h"

#include <capstone/capstone.h>
#include <string.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/entry/exception.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/signal.h"

#define STACK_GUARD_GAP STACK_GUARD_GAP_LINUX
/* The least the stack grows by.  It grows by its own size when that is
 * more: each piece is a mapping of its own in the engine, whose memory view
 * is rebuilt at every map, so pieces of a fixed size made deep recursion
 * quadratic (100 MiB of stack took 13 s); doubling makes it a few dozen
 * maps.  Host memory is spent only where the guest touches. */
#define GROW_STEP (64 * 1024)

static struct {
    bool pending; /* a fill was refused since the engine started */
    uint64_t page;
    uint64_t vaddr; /* the refused access's first byte in that page */
    uc_mem_type type;
    csh cs;
    bool cs_open;
} fault_state;

static bool on_tlb_fill(uc_engine *uc, uint64_t vaddr, uc_mem_type type, uc_tlb_entry *e,
                        void *user)
{
    /* The engine's address space: a fill can come with no task on the
     * engine (Unicorn invalidating code while it closes). */
    const struct vma *v = mm_find(((struct cpu *)user)->mm, vaddr);
    /* seccomp-emu's own page (GDT, CPL 0 stubs) is kernel memory: the CPU
     * reads it at CPL 0 and for descriptor loads, while user loads and
     * stores meet nothing there, as above TASK_SIZE on Linux.  (User
     * fetches translate, as below; trap.c faults user code run there.) */
    if (v && v->hidden && type != UC_MEM_FETCH) {
        int user_access = 1;
        err_t e = UC_TRY(uc_ctl_tlb_fill_user(uc, &user_access));
        if (e) {
            g_critical("%s", e);
            err_free(e);
        }
        if (user_access)
            v = NULL;
    }
    uint32_t have = v ? mm_uc_prot(v->prot) : 0;
    /* Fetch translations are also what Unicorn itself asks for to find
     * code to invalidate (uc_mem_unmap, remove_cache), from inside our own
     * calls: a refusal there would unwind through them.  So every mapped
     * page translates for fetches, and NX stays with the memory region's
     * own permissions, which refuse the guest's fetch (hook_bad_access). */
    if (v && type == UC_MEM_FETCH)
        have |= UC_PROT_EXEC;
    uint32_t need = type == UC_MEM_WRITE ? UC_PROT_WRITE
                    : type == UC_MEM_FETCH ? UC_PROT_EXEC
                                           : UC_PROT_READ;
    if (!(have & need)) {
        /* Probes (instruction fetch across a page end) also land here and
         * raise nothing; only an engine exit with UC_ERR_EXCEPTION makes
         * this a fault. */
        fault_state.pending = true;
        fault_state.page = vaddr & ~(PAGE_SIZE_LINUX - 1);
        fault_state.vaddr = vaddr;
        fault_state.type = type;
        return false;
    }
    e->paddr = vaddr & ~(PAGE_SIZE_LINUX - 1);
    e->perms = have;
    return true;
}

/* QEMU counts an exception as delivered, and forgets it for the
 * double-fault rule (env->old_exception = -1), only when it delivers it
 * through the IDT itself.  With the interrupt hook it never does: a second
 * #DE or #GP then becomes #DF, a third a triple fault.  No register API
 * reaches the field, so its offset in a saved context is found once, by
 * watching it take the values -1, 0 (#DE) and 8 (#DF) in a scratch
 * engine, and reset through a context save and restore after each
 * exception. */
static int probe_last;

static void probe_intr(uc_engine *uc, uint32_t intno, void *user)
{
    (void)user;
    probe_last = (int)intno;
    uc_emu_stop(uc);
}

static err_t find_old_exception(bool is64, long *offset)
{
    static const uint8_t code[] = { 0x31, 0xc9, 0xf7, 0xf1, 0xf4 }; /* xor ecx,ecx; div ecx */
    uc_engine *uc;
    err_t e = UC_TRY(uc_open(UC_ARCH_X86, is64 ? UC_MODE_64 : UC_MODE_32, &uc));
    if (e)
        return e;
    uc_context *ctx[3] = { NULL, NULL, NULL };
    uc_hook h;
    size_t size = uc_context_size(uc);
    if (!(e = UC_TRY(uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL))) &&
        !(e = UC_TRY(uc_mem_write(uc, 0x1000, code, sizeof(code)))) &&
        !(e = UC_TRY(uc_hook_add(uc, &h, UC_HOOK_INTR, (void *)probe_intr, NULL, 1, 0)))) {
        for (int i = 0; i < 3 && !e; i++) {
            if ((e = UC_TRY(uc_context_alloc(uc, &ctx[i]))))
                break;
            if (i > 0)
                e = UC_TRY(uc_emu_start(uc, 0x1000, 0x1000 + sizeof(code) - 1, 0, 0));
            if (!e)
                e = UC_TRY(uc_context_save(uc, ctx[i]));
        }
    }
    long found = -1;
    int matches = 0;
    if (!e && probe_last == 8) {
        for (size_t off = 0; off + 4 <= size; off += 4) {
            int32_t v[3];
            for (int i = 0; i < 3; i++)
                memcpy(&v[i], (const uint8_t *)ctx[i] + off, 4);
            if (v[0] == -1 && v[1] == 0 && v[2] == 8) {
                found = (long)off;
                matches++;
            }
        }
    }
    for (int i = 0; i < 3; i++)
        if (ctx[i])
            uc_context_free(ctx[i]);
    uc_close(uc);
    if (e)
        return e;
    if (matches != 1)
        return err_new("cannot locate the CPU's double-fault state in this Unicorn build");
    *offset = found;
    return OK;
}

static long old_exception_at = -1;
static uc_context *scratch_ctx;

/* Per task: the forgotten state is in the task's registers, which a task
 * switch saves and restores with the rest. */
void fault_exception_taken(struct task *t)
{
    t->exception_taken = true;
}

static err_t forget_exception(struct task *t)
{
    static const int32_t none = -1;
    err_t e;
    /* Found on first need: most programs never take an exception, and the
     * probe's scratch engine costs half a millisecond of start-up. */
    if (old_exception_at < 0 && ((e = find_old_exception(t->is64, &old_exception_at)) ||
                                 (e = UC_TRY(uc_context_alloc(t->cpu->uc, &scratch_ctx)))))
        return e;
    if ((e = UC_TRY(uc_context_save(t->cpu->uc, scratch_ctx))))
        return e;
    memcpy((uint8_t *)scratch_ctx + old_exception_at, &none, 4);
    return UC_TRY(uc_context_restore(t->cpu->uc, scratch_ctx));
}

err_t fault_install(struct cpu *c)
{
    err_t e;
    uc_hook h;
    /* The fill hook refuses every access the memory regions would, with a
     * precise exception, and no memory hook of ours stops the engine: the
     * engine's exit check after each load and store has nothing to catch
     * (stops from the timer thread are taken at the next block start). */
    if ((e = UC_TRY(uc_ctl_tlb_mode(c->uc, UC_TLB_VIRTUAL))) ||
        (e = UC_TRY(uc_hook_add(c->uc, &h, UC_HOOK_TLB_FILL, (void *)on_tlb_fill, c, 1, 0))) ||
        (e = UC_TRY(uc_ctl_mem_exit_check(c->uc, 0))))
        return e;
    /* One decoder for the guest's width (every engine of a guest has it). */
    if (fault_state.cs_open)
        return OK;
    if (cs_open(CS_ARCH_X86, c->is64 ? CS_MODE_64 : CS_MODE_32, &fault_state.cs) != CS_ERR_OK)
        return err_new("capstone: cannot open an x86 decoder");
    if (cs_option(fault_state.cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK)
        return err_new("capstone: no instruction details");
    fault_state.cs_open = true;
    return OK;
}

err_t fault_before_run(struct task *t)
{
    fault_state.pending = false;
    if (!t->exception_taken)
        return OK;
    t->exception_taken = false;
    return forget_exception(t);
}

/* ---- the faulting address ---- */

/* A Capstone register as the CPU holds it now. */
static bool reg_value(struct task *t, x86_reg r, uint64_t next_ip, uint64_t *v)
{
    static const struct {
        x86_reg cs;
        int uc;
        bool is32;
    } map[] = {
        { X86_REG_RAX, UC_X86_REG_RAX, false }, { X86_REG_RBX, UC_X86_REG_RBX, false },
        { X86_REG_RCX, UC_X86_REG_RCX, false }, { X86_REG_RDX, UC_X86_REG_RDX, false },
        { X86_REG_RSI, UC_X86_REG_RSI, false }, { X86_REG_RDI, UC_X86_REG_RDI, false },
        { X86_REG_RBP, UC_X86_REG_RBP, false }, { X86_REG_RSP, UC_X86_REG_RSP, false },
        { X86_REG_R8, UC_X86_REG_R8, false },   { X86_REG_R9, UC_X86_REG_R9, false },
        { X86_REG_R10, UC_X86_REG_R10, false }, { X86_REG_R11, UC_X86_REG_R11, false },
        { X86_REG_R12, UC_X86_REG_R12, false }, { X86_REG_R13, UC_X86_REG_R13, false },
        { X86_REG_R14, UC_X86_REG_R14, false }, { X86_REG_R15, UC_X86_REG_R15, false },
        { X86_REG_EAX, UC_X86_REG_EAX, true },  { X86_REG_EBX, UC_X86_REG_EBX, true },
        { X86_REG_ECX, UC_X86_REG_ECX, true },  { X86_REG_EDX, UC_X86_REG_EDX, true },
        { X86_REG_ESI, UC_X86_REG_ESI, true },  { X86_REG_EDI, UC_X86_REG_EDI, true },
        { X86_REG_EBP, UC_X86_REG_EBP, true },  { X86_REG_ESP, UC_X86_REG_ESP, true },
        { X86_REG_R8D, UC_X86_REG_R8D, true },  { X86_REG_R9D, UC_X86_REG_R9D, true },
        { X86_REG_R10D, UC_X86_REG_R10D, true }, { X86_REG_R11D, UC_X86_REG_R11D, true },
        { X86_REG_R12D, UC_X86_REG_R12D, true }, { X86_REG_R13D, UC_X86_REG_R13D, true },
        { X86_REG_R14D, UC_X86_REG_R14D, true }, { X86_REG_R15D, UC_X86_REG_R15D, true },
    };
    if (r == X86_REG_INVALID || r == X86_REG_EIZ || r == X86_REG_RIZ) {
        *v = 0;
        return true;
    }
    if (r == X86_REG_RIP || r == X86_REG_EIP) {
        *v = next_ip;
        return true;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(map); i++) {
        if (map[i].cs != r)
            continue;
        *v = map[i].is32 ? (uint32_t)cpu_reg(t->cpu, map[i].uc) : cpu_reg(t->cpu, map[i].uc);
        return true;
    }
    return false;
}

/* The base of a segment register: FS/GS bases in 64-bit mode, the GDT
 * descriptor (TLS) in 32-bit mode, 0 for the flat ones. */
static uint64_t seg_base(struct task *t, x86_reg seg)
{
    if (seg != X86_REG_FS && seg != X86_REG_GS)
        return 0;
    if (t->is64)
        return cpu_reg(t->cpu, seg == X86_REG_FS ? UC_X86_REG_FS_BASE : UC_X86_REG_GS_BASE);
    unsigned idx = (unsigned)(cpu_reg(t->cpu, seg == X86_REG_FS ? UC_X86_REG_FS : UC_X86_REG_GS) >> 3);
    if (idx < GDT_ENTRY_TLS_MIN_LINUX || idx >= GDT_ENTRY_TLS_MIN_LINUX + GDT_ENTRY_TLS_ENTRIES_LINUX)
        return 0;
    const uint8_t *d = t->tls[idx - GDT_ENTRY_TLS_MIN_LINUX];
    uint32_t lo, hi;
    memcpy(&lo, d, 4);
    memcpy(&hi, d + 4, 4);
    return (lo >> 16) | ((hi & 0xff) << 16) | (hi & 0xff000000u);
}

/* The first byte an access [ea, ea+size) touches in `page`, if any. */
static bool hits(uint64_t ea, unsigned size, uint64_t page, uint64_t *addr)
{
    uint64_t end = ea + (size ? size : 1);
    if (end <= page || ea >= page + PAGE_SIZE_LINUX)
        return false;
    *addr = ea > page ? ea : page;
    return true;
}

/* Does a 64-bit mode memory operand go through SS?  There the CS, DS, ES
 * and SS overrides are ignored, so it is the base register that decides
 * (rsp or rbp), unless FS or GS is named (measured: AMD EPYC, Linux 6.18). */
static bool via_stack_segment(const cs_x86_op *op)
{
    if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS)
        return false;
    switch (op->mem.base) {
    case X86_REG_RSP: case X86_REG_RBP: case X86_REG_ESP: case X86_REG_EBP:
    case X86_REG_SP: case X86_REG_BP:
        return true;
    default:
        return false;
    }
}

/* The faulting address within `page`, recovered from the instruction at
 * the program counter; *stack says whether it was an access through SS
 * (where a non-canonical address is #SS, not #GP). */
static uint64_t exact_address(struct task *t, uint64_t page, uc_mem_type type, bool *stack)
{
    *stack = false;
    uint64_t pc = cpu_pc(t->cpu);
    if (type == UC_MEM_FETCH)
        return (pc & ~(PAGE_SIZE_LINUX - 1)) == page ? pc : page;
    uint8_t code[16];
    size_t n = mm_valid_prefix(t->mm, pc, sizeof(code), PROT_EXEC_LINUX);
    if (!n || !mm_read(t->mm, pc, code, n))
        return page;
    cs_insn *insn = NULL;
    if (cs_disasm(fault_state.cs, code, n, pc, 1, &insn) != 1)
        return page;
    uint64_t addr = page, next = pc + insn->size;
    bool found = false;
    const cs_x86 *x = &insn->detail->x86;
    uint64_t amask = x->addr_size == 8 ? UINT64_MAX : x->addr_size == 4 ? 0xffffffffull : 0xffff;
    uint8_t want = type == UC_MEM_WRITE ? CS_AC_WRITE : CS_AC_READ;
    for (int i = 0; i < x->op_count && !found; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM || (op->access && !(op->access & want)))
            continue;
        uint64_t base, index;
        if (!reg_value(t, op->mem.base, next, &base) || !reg_value(t, op->mem.index, next, &index))
            continue;
        uint64_t ea = (base + index * (uint64_t)op->mem.scale + (uint64_t)op->mem.disp) & amask;
        ea += seg_base(t, op->mem.segment);
        if (!t->is64)
            ea = (uint32_t)ea;
        found = hits(ea, op->size, page, &addr);
        *stack = found && via_stack_segment(op);
    }
    if (!found) {
        /* The stack accesses no operand names. */
        uint64_t sp = t->is64 ? cpu_reg(t->cpu, UC_X86_REG_RSP) : (uint32_t)cpu_reg(t->cpu, UC_X86_REG_ESP);
        unsigned w = t->is64 ? 8 : 4;
        switch (insn->id) {
        case X86_INS_PUSH: case X86_INS_CALL: case X86_INS_PUSHFQ: case X86_INS_PUSHFD:
        case X86_INS_PUSHF: case X86_INS_ENTER: case X86_INS_PUSHAL: case X86_INS_PUSHAW:
            found = hits(sp - w, w, page, &addr) || hits(sp - 8 * w, 8 * w, page, &addr);
            *stack = found;
            break;
        case X86_INS_POP: case X86_INS_RET: case X86_INS_POPF: case X86_INS_POPFD:
        case X86_INS_POPFQ: case X86_INS_POPAL: case X86_INS_POPAW: case X86_INS_IRET:
        case X86_INS_IRETD: case X86_INS_IRETQ:
            found = hits(sp, w, page, &addr);
            *stack = found;
            break;
        case X86_INS_LEAVE: {
            uint64_t bp = t->is64 ? cpu_reg(t->cpu, UC_X86_REG_RBP) : (uint32_t)cpu_reg(t->cpu, UC_X86_REG_EBP);
            found = hits(bp, w, page, &addr);
            *stack = found;
            break;
        }
        default:
            break;
        }
    }
    cs_free(insn, 1);
    return addr;
}

/* ---- stack growth ---- */

/* expand_downwards(): an access below the stack, with nothing else between
 * it and the stack, makes the stack reach it, if RLIMIT_STACK (and
 * RLIMIT_AS) allow.  Returns why not, or NULL when it grew. */
static const char *grow_stack(struct task *t, uint64_t addr, bool *was_stack)
{
    const struct vma *next = mm_next(t->mm, addr);
    *was_stack = false;
    if (!next || next->start <= addr || !vma_is_stack(next))
        return "";
    *was_stack = true;
    uint64_t top = TASK_SIZE_LINUX(t->is64), want = addr & ~(PAGE_SIZE_LINUX - 1);
    uint64_t rlim = t->group->rlim[RLIMIT_STACK_LINUX].cur;
    if (rlim != RLIM_INFINITY_LINUX && top - want > rlim)
        return "stack overflow: the stack would exceed RLIMIT_STACK";
    if (want < 0x10000 || want < STACK_GUARD_GAP ||
        !mm_range_free(t->mm, want - STACK_GUARD_GAP, STACK_GUARD_GAP))
        return "stack overflow: the stack would run into another mapping";
    /* More than asked (GROW_STEP), never past the limit or the guard gap. */
    uint64_t stack_end = next->end;
    for (const struct vma *v; (v = mm_find(t->mm, stack_end)) && vma_is_stack(v);)
        stack_end = v->end;
    uint64_t step = MAX((uint64_t)GROW_STEP, stack_end - next->start), low = want;
    if (next->start >= step && next->start - step < low) {
        uint64_t cand = next->start - step;
        if (rlim != RLIM_INFINITY_LINUX && top - cand > rlim)
            cand = top - (rlim & ~(PAGE_SIZE_LINUX - 1));
        if (cand < low && cand >= STACK_GUARD_GAP &&
            mm_range_free(t->mm, cand - STACK_GUARD_GAP, STACK_GUARD_GAP))
            low = cand;
    }
    err_t e = mm_map_fixed(t->mm, low, next->start - low, next->prot, STACK_VMA_NAME, NULL);
    if (e && low < want) {
        /* The extra may be what RLIMIT_AS refuses: Linux charges only
         * what the access needs. */
        err_free(e);
        e = mm_map_fixed(t->mm, want, next->start - want, next->prot, STACK_VMA_NAME, NULL);
    }
    if (e) {
        err_free(e);
        return "stack growth refused by the memory limit (RLIMIT_AS, --memory)";
    }
    return NULL;
}

static bool canonical(uint64_t a)
{
    uint64_t top = a >> 47;
    return top == 0 || top == 0x1ffff;
}

void fault_user_kernel_page(struct task *t, uint64_t addr)
{
    /* Where seccomp-emu's page is: for a 64-bit task a non-canonical
     * address (#GP), for an ia32 one above its TASK_SIZE (#PF, unmapped). */
    if (t->is64)
        exception_raise(t, X86_TRAP_GP_LINUX, 0, 0);
    else
        exception_page_fault(t, addr, false, ACCESS_FETCH, NULL);
}

bool fault_take(struct task *t, uc_err e)
{
    if (e != UC_ERR_EXCEPTION || !fault_state.pending)
        return false;
    fault_state.pending = false;
    bool stack;
    uint64_t addr = exact_address(t, fault_state.page, fault_state.type, &stack);
    if (t->is64 && !canonical(addr)) {
        /* Real hardware refuses a non-canonical address before paging:
         * #SS through the stack segment, #GP otherwise. */
        exception_raise(t, stack ? X86_TRAP_SS_LINUX : X86_TRAP_GP_LINUX, 0, 0);
        return true;
    }
    /* The engine's own address is exact where an instruction reaches
     * memory through no one operand: the element a masked move or a gather
     * refused, which the operand's start and size do not tell. */
    if (fault_state.type != UC_MEM_FETCH &&
        (fault_state.vaddr & ~(uint64_t)(PAGE_SIZE_LINUX - 1)) == (addr & ~(uint64_t)(PAGE_SIZE_LINUX - 1)))
        addr = fault_state.vaddr;
    const struct vma *v = mm_find(t->mm, addr);
    if (v && v->hidden)
        v = NULL; /* refused only to user accesses: not there for them */
    const char *why = NULL;
    if (!v && fault_state.type != UC_MEM_FETCH) {
        bool was_stack;
        why = grow_stack(t, addr, &was_stack);
        if (!why)
            return true; /* resume: the instruction runs again */
        if (!was_stack)
            why = NULL;
    }
    exception_page_fault(t, addr, v != NULL,
                         fault_state.type == UC_MEM_WRITE   ? ACCESS_WRITE
                         : fault_state.type == UC_MEM_FETCH ? ACCESS_FETCH
                                                  : ACCESS_READ,
                         why);
    return true;
}
