/* Page faults: precise, and turned into SIGSEGV or stack growth.
 *
 * Unicorn 2.1's unmapped-memory hooks run with a stale program counter
 * (the start of some earlier translation block), which a signal frame
 * cannot use.  In UC_TLB_VIRTUAL mode a refused TLB fill raises a real
 * exception instead, after restoring the exact CPU state of the faulting
 * instruction; the fill hook, which runs only on TLB misses, mirrors the
 * VMA table's permissions.  The hook sees only the page, so the exact
 * address is recovered by decoding the (now known) faulting instruction.
 * A fault just below the stack grows it (mm_grow_stack, emu/engine/mem.c).
 * After an exception, the engine is made to forget it before it runs on
 * (cpu_forget_exception, emu/engine/double_fault.c). */
#include "emu/entry/fault.h"

#include <capstone/capstone.h>
#include <string.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/entry/exception.h"
#include "emu/engine/cpu.h"
#include "emu/engine/double_fault.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"

/* One decoder for the guest's width (every engine of a guest has it). */
static struct {
    csh cs;
    bool open;
} decoder;

static bool on_tlb_fill(uc_engine *uc, uint64_t vaddr, uc_mem_type type, uc_tlb_entry *e,
                        void *user)
{
    /* The engine's address space: a fill can come with no task on the
     * engine (Unicorn invalidating code while it closes). */
    struct cpu *c = user;
    const struct vma *v = mm_find(c->mm, vaddr);
    /* seccomp-emu's own page (GDT, CPL 0 stubs) is kernel memory: the CPU
     * reads it at CPL 0 and for descriptor loads, while user loads and
     * stores meet nothing there, as above TASK_SIZE on Linux.  (User
     * fetches translate, as below; trap.c faults user code run there.) */
    bool user_fetch_of_hidden = false;
    if (v && v->hidden) {
        int user_access = 1;
        err_t e = UC_TRY(uc_ctl_tlb_fill_user(uc, &user_access));
        if (e) {
            g_critical("%s", e);
            err_free(e);
        }
        if (user_access && type != UC_MEM_FETCH)
            v = NULL;
        user_fetch_of_hidden = user_access && type == UC_MEM_FETCH;
    }
    uint32_t have = v && !mm_vma_no_page(v, vaddr) ? mm_vma_uc_prot(v, v->prot) : 0;
    /* Fetch translations are also what Unicorn itself asks for to find
     * code to invalidate (uc_mem_unmap, remove_cache), from inside our own
     * calls: a refusal there would unwind through them.  So every mapped
     * page translates for fetches, and NX stays with the memory region's
     * own permissions, which refuse the guest's fetch (hook_bad_access). */
    if (v && type == UC_MEM_FETCH)
        have |= UC_PROT_EXEC;
    /* A user fetch of seccomp-emu's own page gets a fetch-only entry: the
     * entry serves every user access to the page, and loads must keep
     * meeting nothing there (an i386 signal's return ran through it). */
    if (user_fetch_of_hidden)
        have = UC_PROT_EXEC;
    uint32_t need = type == UC_MEM_WRITE ? UC_PROT_WRITE
                    : type == UC_MEM_FETCH ? UC_PROT_EXEC
                                           : UC_PROT_READ;
    if (!(have & need)) {
        /* Probes (instruction fetch across a page end) also land here and
         * raise nothing; only an engine exit with UC_ERR_EXCEPTION makes
         * this a fault. */
        c->refused_fill.pending = true;
        c->refused_fill.page = vaddr & ~(PAGE_SIZE_LINUX - 1);
        c->refused_fill.vaddr = vaddr;
        c->refused_fill.type = type;
        return false;
    }
    /* The first write to private anonymous memory gives its VMA an
     * anon_vma, which decides what Linux merges it with later: until it
     * has one, reads map the page read-only, so that the first write
     * comes here too.  Not under --sched=parallel: this runs in guest
     * code, where the mm may change only under the kernel lock with its
     * other engines stopped, and taking that lock inside an access (an
     * exclusive step's, say) could wait for an engine that waits for
     * this one.  There the kernel's own writes to user memory give the
     * numbers, and a mapping only the guest wrote merges as an unwritten
     * one (docs/internals.md, "Parallel tasks"). */
    if (!sched_parallel() && v && (have & UC_PROT_WRITE) && mm_vma_awaits_anon(v)) {
        if (type == UC_MEM_WRITE)
            mm_anon_write(c->mm, vaddr, 1);
        else
            have &= ~UC_PROT_WRITE;
    }
    e->paddr = vaddr & ~(PAGE_SIZE_LINUX - 1);
    e->perms = have;
    return true;
}

/* Per task: the forgotten state is in the task's registers, which a task
 * switch saves and restores with the rest. */
void fault_exception_taken(struct task *t)
{
    t->exception_taken = true;
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
    if (decoder.open)
        return OK;
    if (cs_open(CS_ARCH_X86, c->is64 ? CS_MODE_64 : CS_MODE_32, &decoder.cs) != CS_ERR_OK)
        return err_new("capstone: cannot open an x86 decoder");
    if (cs_option(decoder.cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK)
        return err_new("capstone: no instruction details");
    decoder.open = true;
    return OK;
}

err_t fault_before_run(struct task *t)
{
    t->cpu->refused_fill.pending = false;
    if (!t->exception_taken)
        return OK;
    t->exception_taken = false;
    return cpu_forget_exception(t->cpu);
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
 * (where a non-canonical address is #SS, not #GP), *rmw whether a refused
 * read was the read of an operand the instruction also writes. */
static uint64_t exact_address(struct task *t, uint64_t page, uc_mem_type type, bool *stack,
                              bool *rmw)
{
    *stack = false;
    *rmw = false;
    uint64_t pc = cpu_pc(t->cpu);
    if (type == UC_MEM_FETCH)
        return (pc & ~(PAGE_SIZE_LINUX - 1)) == page ? pc : page;
    uint8_t code[16];
    size_t n = mm_valid_prefix(t->mm, pc, sizeof(code), PROT_EXEC_LINUX);
    if (!n || !mm_read(t->mm, pc, code, n))
        return page;
    cs_insn *insn = NULL;
    if (cs_disasm(decoder.cs, code, n, pc, 1, &insn) != 1)
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
        /* Capstone marks cmpxchg8b's operand read only. */
        *rmw = found && type == UC_MEM_READ &&
               ((op->access & CS_AC_WRITE) || insn->id == X86_INS_CMPXCHG8B ||
                insn->id == X86_INS_CMPXCHG16B);
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
    struct refused_fill *fill = &t->cpu->refused_fill;
    if (e != UC_ERR_EXCEPTION || !fill->pending)
        return false;
    fill->pending = false;
    bool stack, rmw;
    uint64_t addr = exact_address(t, fill->page, fill->type, &stack, &rmw);
    if (t->is64 && !canonical(addr)) {
        /* Real hardware refuses a non-canonical address before paging:
         * #SS through the stack segment, #GP otherwise. */
        exception_raise(t, stack ? X86_TRAP_SS_LINUX : X86_TRAP_GP_LINUX, 0, 0);
        return true;
    }
    /* The engine's own address is exact where an instruction reaches
     * memory through no one operand: the element a masked move or a gather
     * refused, which the operand's start and size do not tell. */
    if (fill->type != UC_MEM_FETCH &&
        (fill->vaddr & ~(uint64_t)(PAGE_SIZE_LINUX - 1)) == (addr & ~(uint64_t)(PAGE_SIZE_LINUX - 1)))
        addr = fill->vaddr;
    /* A fetch through a code segment with a base (an LDT one): the
     * engine's fetch address is linear, the pc is not. */
    if (fill->type == UC_MEM_FETCH && addr == fill->page &&
        (fill->vaddr & ~(uint64_t)(PAGE_SIZE_LINUX - 1)) == fill->page)
        addr = fill->vaddr;
    const struct vma *v = mm_find(t->mm, addr);
    if (v && v->hidden)
        v = NULL; /* refused only to user accesses: not there for them */
    const char *why = NULL;
    if (!v) {
        /* An instruction fetch too: lock_mm_and_find_vma() grows the stack
         * before access_error() looks at the kind of access, so a jump
         * below a stack that is not executable grows it and then faults
         * with SEGV_ACCERR (measured on this host's 6.18: tests/signals
         * stackio jump-gd).  The fetch runs again and finds the VMA. */
        bool was_stack;
        why = mm_grow_stack(t->mm, addr, &was_stack);
        if (!why)
            return true; /* resume: the instruction runs again */
        if (!was_stack)
            why = NULL;
    }
    /* The CPU reads an operand it will write (add to memory, xchg, a
     * locked op, cmpxchg8b) with the intent to write: a fault there says
     * "write" in the error code, as the kernel's SIGSEGV shows. */
    exception_page_fault(t, addr, v != NULL,
                         fill->type == UC_MEM_WRITE || rmw ? ACCESS_WRITE
                         : fill->type == UC_MEM_FETCH ? ACCESS_FETCH
                                                  : ACCESS_READ,
                         why);
    return true;
}
