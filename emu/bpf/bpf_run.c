/* The classic BPF interpreter with the runtime rules of the kernel's
 * conversion of a seccomp filter to eBPF: A and X start at 0, arithmetic
 * is unsigned 32-bit, a shift by X shifts by X & 31, a division by X == 0
 * ends the program with 0.  Loads from seccomp_data are 32-bit words of
 * the little-endian layout the guest sees, whatever the host's order. */
#include "emu/bpf/bpf.h"

#include <stdbool.h>

/* The 32-bit word at byte offset `off` (checked: < 64, multiple of 4). */
static uint32_t data_word(const struct seccomp_data_linux *data, uint32_t off)
{
    switch (off) {
    case 0:
        return (uint32_t)data->nr;
    case 4:
        return data->arch;
    case 8:
        return (uint32_t)data->instruction_pointer;
    case 12:
        return (uint32_t)(data->instruction_pointer >> 32);
    default:
        if (off >= 16 && off < 64 && (off & 3) == 0) {
            uint64_t arg = data->args[(off - 16) / 8];
            return (off & 4) ? (uint32_t)(arg >> 32) : (uint32_t)arg;
        }
        return 0; /* unreachable for a checked program */
    }
}

static bool jump_taken(uint16_t code, uint32_t a, uint32_t operand)
{
    switch (BPF_OP_LINUX(code)) {
    case BPF_JEQ_LINUX:
        return a == operand;
    case BPF_JGT_LINUX:
        return a > operand;
    case BPF_JGE_LINUX:
        return a >= operand;
    case BPF_JSET_LINUX:
        return (a & operand) != 0;
    default:
        return false;
    }
}

uint32_t bpf_run(const struct sock_filter_linux *prog, size_t len,
                 const struct seccomp_data_linux *data, bpf_step_fn step, void *ctx)
{
    uint32_t a = 0, x = 0;
    uint32_t mem[BPF_MEMWORDS_LINUX] = { 0 };
    size_t pc = 0;
    /* A checked program only jumps forward and ends in a RET; the bound
     * keeps an unchecked one from reading past its end. */
    while (pc < len) {
        const struct sock_filter_linux *insn = &prog[pc];
        if (step)
            step(ctx, pc, insn, a, x);
        uint16_t code = insn->code;
        uint32_t k = insn->k;
        switch (BPF_CLASS_LINUX(code)) {
        case BPF_RET_LINUX:
            return BPF_RVAL_LINUX(code) == BPF_A_LINUX ? a : k;
        case BPF_LD_LINUX:
            switch (BPF_MODE_LINUX(code)) {
            case BPF_ABS_LINUX:
                a = data_word(data, k);
                break;
            case BPF_LEN_LINUX:
                a = (uint32_t)sizeof(*data);
                break;
            case BPF_MEM_LINUX:
                a = mem[k % BPF_MEMWORDS_LINUX];
                break;
            default:
                a = k;
                break;
            }
            break;
        case BPF_LDX_LINUX:
            switch (BPF_MODE_LINUX(code)) {
            case BPF_LEN_LINUX:
                x = (uint32_t)sizeof(*data);
                break;
            case BPF_MEM_LINUX:
                x = mem[k % BPF_MEMWORDS_LINUX];
                break;
            default:
                x = k;
                break;
            }
            break;
        case BPF_ST_LINUX:
            mem[k % BPF_MEMWORDS_LINUX] = a;
            break;
        case BPF_STX_LINUX:
            mem[k % BPF_MEMWORDS_LINUX] = x;
            break;
        case BPF_MISC_LINUX:
            if (BPF_MISCOP_LINUX(code) == BPF_TAX_LINUX)
                x = a;
            else
                a = x;
            break;
        case BPF_ALU_LINUX: {
            uint32_t operand = BPF_SRC_LINUX(code) == BPF_X_LINUX ? x : k;
            switch (BPF_OP_LINUX(code)) {
            case BPF_ADD_LINUX:
                a += operand;
                break;
            case BPF_SUB_LINUX:
                a -= operand;
                break;
            case BPF_MUL_LINUX:
                a *= operand;
                break;
            case BPF_DIV_LINUX:
                if (operand == 0)
                    return 0;
                a /= operand;
                break;
            case BPF_AND_LINUX:
                a &= operand;
                break;
            case BPF_OR_LINUX:
                a |= operand;
                break;
            case BPF_XOR_LINUX:
                a ^= operand;
                break;
            case BPF_LSH_LINUX:
                a <<= operand & 31;
                break;
            case BPF_RSH_LINUX:
                a >>= operand & 31;
                break;
            case BPF_NEG_LINUX:
                a = 0u - a;
                break;
            default: /* MOD: refused by the checker */
                return 0;
            }
            break;
        }
        case BPF_JMP_LINUX:
            if (BPF_OP_LINUX(code) == BPF_JA_LINUX) {
                pc += 1 + (size_t)k;
                continue;
            }
            pc += 1 + (jump_taken(code, a,
                                  BPF_SRC_LINUX(code) == BPF_X_LINUX ? x : k)
                           ? insn->jt
                           : insn->jf);
            continue;
        }
        pc++;
    }
    return 0;
}
