/* The kernel's acceptance test for a seccomp filter: net/core/filter.c's
 * bpf_check_classic() (opcode table, per-opcode limits, last instruction a
 * RET, every scratch load preceded by a store on every path) followed by
 * kernel/seccomp.c's seccomp_check_filter() (the subset seccomp allows and
 * the bounds of a seccomp_data load).  Every rejection is EINVAL, so the
 * order of the tests does not show; they follow the kernel's anyway. */
#include "emu/bpf/bpf.h"

#include <stdbool.h>
#include <string.h>

#include "abi/linux.h"

#define OP(cls, rest) ((uint16_t)((cls) | (rest)))

/* bpf_check_classic's codes[] table: what a socket filter may contain. */
static bool classic_code_known(uint16_t code)
{
    switch (code) {
    case OP(BPF_ALU_LINUX, BPF_ADD_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_ADD_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_SUB_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_SUB_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MUL_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MUL_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_DIV_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_DIV_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MOD_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MOD_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_AND_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_AND_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_OR_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_OR_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_XOR_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_XOR_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_LSH_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_LSH_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_RSH_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_RSH_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_NEG_LINUX):
    case OP(BPF_LD_LINUX, BPF_W_LINUX | BPF_ABS_LINUX):
    case OP(BPF_LD_LINUX, BPF_H_LINUX | BPF_ABS_LINUX):
    case OP(BPF_LD_LINUX, BPF_B_LINUX | BPF_ABS_LINUX):
    case OP(BPF_LD_LINUX, BPF_W_LINUX | BPF_LEN_LINUX):
    case OP(BPF_LD_LINUX, BPF_W_LINUX | BPF_IND_LINUX):
    case OP(BPF_LD_LINUX, BPF_H_LINUX | BPF_IND_LINUX):
    case OP(BPF_LD_LINUX, BPF_B_LINUX | BPF_IND_LINUX):
    case OP(BPF_LD_LINUX, BPF_IMM_LINUX):
    case OP(BPF_LD_LINUX, BPF_MEM_LINUX):
    case OP(BPF_LDX_LINUX, BPF_W_LINUX | BPF_LEN_LINUX):
    case OP(BPF_LDX_LINUX, BPF_B_LINUX | BPF_MSH_LINUX):
    case OP(BPF_LDX_LINUX, BPF_IMM_LINUX):
    case OP(BPF_LDX_LINUX, BPF_MEM_LINUX):
    case OP(BPF_ST_LINUX, 0):
    case OP(BPF_STX_LINUX, 0):
    case OP(BPF_MISC_LINUX, BPF_TAX_LINUX):
    case OP(BPF_MISC_LINUX, BPF_TXA_LINUX):
    case OP(BPF_RET_LINUX, BPF_K_LINUX):
    case OP(BPF_RET_LINUX, BPF_A_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JA_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JEQ_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JEQ_LINUX | BPF_X_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGE_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGE_LINUX | BPF_X_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGT_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGT_LINUX | BPF_X_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JSET_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JSET_LINUX | BPF_X_LINUX):
        return true;
    default:
        return false;
    }
}

static bool is_cond_jump(uint16_t code)
{
    return BPF_CLASS_LINUX(code) == BPF_JMP_LINUX && BPF_OP_LINUX(code) != BPF_JA_LINUX;
}

/* Where the kernel keeps ancillary loads (SKF_AD_OFF): none of them is
 * known to seccomp, and a socket filter's unknown ones fail here too. */
#define SKF_AD_OFF_LINUX 0xfffff000u

/* bpf_check_classic's per-instruction limits. */
static bool classic_insn_ok(const struct sock_filter_linux *insn, size_t pc, size_t len)
{
    if (!classic_code_known(insn->code))
        return false;
    switch (insn->code) {
    case OP(BPF_ALU_LINUX, BPF_DIV_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MOD_LINUX | BPF_K_LINUX):
        return insn->k != 0;
    case OP(BPF_ALU_LINUX, BPF_LSH_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_RSH_LINUX | BPF_K_LINUX):
        return insn->k < 32;
    case OP(BPF_LD_LINUX, BPF_MEM_LINUX):
    case OP(BPF_LDX_LINUX, BPF_MEM_LINUX):
    case OP(BPF_ST_LINUX, 0):
    case OP(BPF_STX_LINUX, 0):
        return insn->k < BPF_MEMWORDS_LINUX;
    case OP(BPF_JMP_LINUX, BPF_JA_LINUX):
        /* Only forward, and inside the program. */
        return insn->k < (uint32_t)(len - pc - 1);
    case OP(BPF_LD_LINUX, BPF_W_LINUX | BPF_ABS_LINUX):
    case OP(BPF_LD_LINUX, BPF_H_LINUX | BPF_ABS_LINUX):
    case OP(BPF_LD_LINUX, BPF_B_LINUX | BPF_ABS_LINUX):
        /* An ancillary load seccomp could not use: left to the second
         * pass, which refuses every offset past seccomp_data anyway. */
        return true;
    default:
        if (is_cond_jump(insn->code))
            return pc + insn->jt + 1 < len && pc + insn->jf + 1 < len;
        return true;
    }
}

/* check_load_and_stores(): a scratch cell may be loaded only where every
 * path reaching the load stored it.  One bit per cell; a jump leaves its
 * knowledge at its targets and nothing for the instruction after it. */
static bool scratch_initialised(const struct sock_filter_linux *prog, size_t len)
{
    uint16_t masks[BPF_MAXINSNS_LINUX];
    memset(masks, 0xff, len * sizeof(masks[0]));
    uint16_t valid = 0;
    for (size_t pc = 0; pc < len; pc++) {
        const struct sock_filter_linux *insn = &prog[pc];
        valid &= masks[pc];
        switch (insn->code) {
        case OP(BPF_ST_LINUX, 0):
        case OP(BPF_STX_LINUX, 0):
            valid |= (uint16_t)(1u << insn->k);
            break;
        case OP(BPF_LD_LINUX, BPF_MEM_LINUX):
        case OP(BPF_LDX_LINUX, BPF_MEM_LINUX):
            if (!(valid & (1u << insn->k)))
                return false;
            break;
        case OP(BPF_JMP_LINUX, BPF_JA_LINUX):
            masks[pc + 1 + insn->k] &= valid;
            valid = 0xffff;
            break;
        default:
            if (is_cond_jump(insn->code)) {
                masks[pc + 1 + insn->jt] &= valid;
                masks[pc + 1 + insn->jf] &= valid;
                valid = 0xffff;
            }
            break;
        }
    }
    return true;
}

static bool classic_ok(const struct sock_filter_linux *prog, size_t len)
{
    if (len == 0 || len > BPF_MAXINSNS_LINUX)
        return false;
    for (size_t pc = 0; pc < len; pc++)
        if (!classic_insn_ok(&prog[pc], pc, len))
            return false;
    uint16_t last = prog[len - 1].code;
    if (last != OP(BPF_RET_LINUX, BPF_K_LINUX) && last != OP(BPF_RET_LINUX, BPF_A_LINUX))
        return false;
    return scratch_initialised(prog, len);
}

/* seccomp_check_filter(): the instructions a seccomp filter may use. */
static bool seccomp_insn_ok(const struct sock_filter_linux *insn)
{
    switch (insn->code) {
    case OP(BPF_LD_LINUX, BPF_W_LINUX | BPF_ABS_LINUX):
        return insn->k < sizeof(struct seccomp_data_linux) && (insn->k & 3) == 0;
    case OP(BPF_LD_LINUX, BPF_W_LINUX | BPF_LEN_LINUX):
    case OP(BPF_LDX_LINUX, BPF_W_LINUX | BPF_LEN_LINUX):
    case OP(BPF_RET_LINUX, BPF_K_LINUX):
    case OP(BPF_RET_LINUX, BPF_A_LINUX):
    case OP(BPF_ALU_LINUX, BPF_ADD_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_ADD_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_SUB_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_SUB_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MUL_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_MUL_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_DIV_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_DIV_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_AND_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_AND_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_OR_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_OR_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_XOR_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_XOR_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_LSH_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_LSH_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_RSH_LINUX | BPF_K_LINUX):
    case OP(BPF_ALU_LINUX, BPF_RSH_LINUX | BPF_X_LINUX):
    case OP(BPF_ALU_LINUX, BPF_NEG_LINUX):
    case OP(BPF_LD_LINUX, BPF_IMM_LINUX):
    case OP(BPF_LDX_LINUX, BPF_IMM_LINUX):
    case OP(BPF_MISC_LINUX, BPF_TAX_LINUX):
    case OP(BPF_MISC_LINUX, BPF_TXA_LINUX):
    case OP(BPF_LD_LINUX, BPF_MEM_LINUX):
    case OP(BPF_LDX_LINUX, BPF_MEM_LINUX):
    case OP(BPF_ST_LINUX, 0):
    case OP(BPF_STX_LINUX, 0):
    case OP(BPF_JMP_LINUX, BPF_JA_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JEQ_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JEQ_LINUX | BPF_X_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGE_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGE_LINUX | BPF_X_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGT_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JGT_LINUX | BPF_X_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JSET_LINUX | BPF_K_LINUX):
    case OP(BPF_JMP_LINUX, BPF_JSET_LINUX | BPF_X_LINUX):
        return true;
    default:
        return false;
    }
}

int bpf_check(const struct sock_filter_linux *prog, size_t len)
{
    if (!prog || !classic_ok(prog, len))
        return -EINVAL_LINUX;
    for (size_t pc = 0; pc < len; pc++)
        if (!seccomp_insn_ok(&prog[pc]))
            return -EINVAL_LINUX;
    return 0;
}

/* bpf_convert_filter()'s output length for each classic instruction. */
static size_t ebpf_insns(const struct sock_filter_linux *insn)
{
    switch (insn->code) {
    case OP(BPF_RET_LINUX, BPF_K_LINUX):
        return 2; /* mov r0, k; exit */
    case OP(BPF_ALU_LINUX, BPF_DIV_LINUX | BPF_X_LINUX):
        return 5; /* mov32 x, x; jne x, 0; xor a, a; exit; div */
    default:
        break;
    }
    if (!is_cond_jump(insn->code))
        return 1;
    size_t n = 1;
    /* A negative immediate goes through a register first. */
    if (BPF_SRC_LINUX(insn->code) == BPF_K_LINUX && (int32_t)insn->k < 0)
        n++;
    /* A jump whose false branch is not the next instruction needs a
     * second jump, unless it can be inverted (JSET cannot) and its true
     * branch is the next one. */
    if (insn->jf != 0 &&
        (BPF_OP_LINUX(insn->code) == BPF_JSET_LINUX || insn->jt != 0))
        n++;
    return n;
}

size_t bpf_ebpf_len(const struct sock_filter_linux *prog, size_t len)
{
    size_t n = 3; /* clear A, clear X, keep the context pointer */
    for (size_t pc = 0; pc < len; pc++)
        n += ebpf_insns(&prog[pc]);
    return n;
}
