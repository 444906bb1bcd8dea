/* Classic BPF disassembly with seccomp_data's fields and seccomp's actions
 * named (bpf_disasm.h describes the format). */
#include "emu/bpf/bpf_disasm.h"

#include <inttypes.h>
#include <stdbool.h>

#include "abi/seccomp_actions.h"

static const char *const alu_names[16] = {
    [0x0] = "add", [0x1] = "sub", [0x2] = "mul", [0x3] = "div", [0x4] = "or",
    [0x5] = "and", [0x6] = "lsh", [0x7] = "rsh", [0x8] = "neg", [0x9] = "mod",
    [0xa] = "xor",
};
static const char *const jmp_names[16] = {
    [0x0] = "ja", [0x1] = "jeq", [0x2] = "jgt", [0x3] = "jge", [0x4] = "jset",
};

/* The name of the seccomp_data bytes a 32-bit load at offset off reads
 * ("nr", "arch", "ip", "ip.hi", "args[2]", "args[2].hi"), or NULL when the
 * offset is not one of them (misaligned, or past the 64 bytes). */
static const char *bpf_seccomp_field(uint32_t off)
{
    static const char *const names[16] = {
        "nr", "arch", "ip", "ip.hi",
        "args[0]", "args[0].hi", "args[1]", "args[1].hi", "args[2]", "args[2].hi",
        "args[3]", "args[3].hi", "args[4]", "args[4].hi", "args[5]", "args[5].hi",
    };
    if (off % 4 || off >= 64)
        return NULL;
    return names[off / 4];
}

static void append_const(GString *out, uint32_t k)
{
    if (k < 0x10000)
        g_string_append_printf(out, "#%" PRIu32, k);
    else
        g_string_append_printf(out, "#0x%" PRIx32, k);
}

void bpf_disasm_action(GString *out, uint32_t ret)
{
    const struct seccomp_action_linux *action = seccomp_action_linux(ret);
    if (!action) {
        g_string_append_printf(out, "0x%08" PRIx32, ret);
        return;
    }
    uint32_t data = ret & SECCOMP_RET_DATA_LINUX;
    g_string_append(out, action->name);
    if (action->takes_data || data)
        g_string_append_printf(out, "(%" PRIu32 ")", data);
}

static void append_abs(GString *out, const char *mnemonic, uint16_t size, uint32_t k)
{
    const char *field = size == BPF_W_LINUX ? bpf_seccomp_field(k) : NULL;
    if (field)
        g_string_append_printf(out, "%s [%s]", mnemonic, field);
    else
        g_string_append_printf(out, "%s [%" PRIu32 "]", mnemonic, k);
}

static void unknown(GString *out, uint16_t code)
{
    g_string_append_printf(out, "unknown 0x%02x", code);
}

static void disasm_ld(GString *out, uint16_t code, uint32_t k)
{
    static const char *const ld_names[] = {
        [BPF_W_LINUX >> 3] = "ld", [BPF_H_LINUX >> 3] = "ldh", [BPF_B_LINUX >> 3] = "ldb",
    };
    if (BPF_SIZE_LINUX(code) == 0x18) {
        unknown(out, code);
        return;
    }
    const char *m = ld_names[BPF_SIZE_LINUX(code) >> 3];
    switch (BPF_MODE_LINUX(code)) {
    case BPF_ABS_LINUX:
        append_abs(out, m, BPF_SIZE_LINUX(code), k);
        return;
    case BPF_IND_LINUX:
        g_string_append_printf(out, "%s [x + %" PRIu32 "]", m, k);
        return;
    }
    if (BPF_SIZE_LINUX(code) != BPF_W_LINUX) {
        unknown(out, code);
        return;
    }
    switch (BPF_MODE_LINUX(code)) {
    case BPF_IMM_LINUX:
        g_string_append(out, "ld ");
        append_const(out, k);
        return;
    case BPF_MEM_LINUX:
        g_string_append_printf(out, "ld M[%" PRIu32 "]", k);
        return;
    case BPF_LEN_LINUX:
        g_string_append(out, "ld #len");
        return;
    }
    unknown(out, code);
}

static void disasm_ldx(GString *out, uint16_t code, uint32_t k)
{
    if (BPF_SIZE_LINUX(code) == BPF_W_LINUX) {
        switch (BPF_MODE_LINUX(code)) {
        case BPF_IMM_LINUX:
            g_string_append(out, "ldx ");
            append_const(out, k);
            return;
        case BPF_MEM_LINUX:
            g_string_append_printf(out, "ldx M[%" PRIu32 "]", k);
            return;
        case BPF_LEN_LINUX:
            g_string_append(out, "ldx #len");
            return;
        }
    } else if (BPF_SIZE_LINUX(code) == BPF_B_LINUX && BPF_MODE_LINUX(code) == BPF_MSH_LINUX) {
        g_string_append_printf(out, "ldxb 4*([%" PRIu32 "]&0xf)", k);
        return;
    }
    unknown(out, code);
}

static void disasm_jmp(GString *out, const struct sock_filter_linux *insn, size_t pc)
{
    uint16_t code = insn->code;
    const char *m = jmp_names[BPF_OP_LINUX(code) >> 4];
    if (!m) {
        unknown(out, code);
        return;
    }
    uint64_t next = (uint64_t)pc + 1;
    if (BPF_OP_LINUX(code) == BPF_JA_LINUX) {
        if (BPF_SRC_LINUX(code)) {
            unknown(out, code);
            return;
        }
        g_string_append_printf(out, "ja %" PRIu64, next + insn->k);
        return;
    }
    g_string_append_printf(out, "%s ", m);
    if (BPF_SRC_LINUX(code) == BPF_X_LINUX)
        g_string_append(out, "x");
    else
        append_const(out, insn->k);
    g_string_append_printf(out, ", %" PRIu64 ", %" PRIu64, next + insn->jt, next + insn->jf);
}

void bpf_disasm_insn(GString *out, const struct sock_filter_linux *insn, size_t pc)
{
    uint16_t code = insn->code;
    uint32_t k = insn->k;
    if (code > 0xff) {
        unknown(out, code);
        return;
    }
    switch (BPF_CLASS_LINUX(code)) {
    case BPF_LD_LINUX:
        disasm_ld(out, code, k);
        return;
    case BPF_LDX_LINUX:
        disasm_ldx(out, code, k);
        return;
    case BPF_ST_LINUX:
    case BPF_STX_LINUX:
        if (code & ~0x07)
            unknown(out, code);
        else
            g_string_append_printf(out, "%s M[%" PRIu32 "]",
                                   BPF_CLASS_LINUX(code) == BPF_ST_LINUX ? "st" : "stx", k);
        return;
    case BPF_ALU_LINUX: {
        const char *m = alu_names[BPF_OP_LINUX(code) >> 4];
        if (!m) {
            unknown(out, code);
        } else if (BPF_OP_LINUX(code) == BPF_NEG_LINUX) {
            if (BPF_SRC_LINUX(code))
                unknown(out, code);
            else
                g_string_append(out, "neg");
        } else if (BPF_SRC_LINUX(code) == BPF_X_LINUX) {
            g_string_append_printf(out, "%s x", m);
        } else {
            g_string_append_printf(out, "%s ", m);
            append_const(out, k);
        }
        return;
    }
    case BPF_JMP_LINUX:
        disasm_jmp(out, insn, pc);
        return;
    case BPF_RET_LINUX:
        switch (code & 0xf8) {
        case BPF_K_LINUX:
            g_string_append(out, "ret ");
            bpf_disasm_action(out, k);
            return;
        case BPF_X_LINUX:
            g_string_append(out, "ret x");
            return;
        case BPF_A_LINUX:
            g_string_append(out, "ret a");
            return;
        }
        unknown(out, code);
        return;
    case BPF_MISC_LINUX:
        if (BPF_MISCOP_LINUX(code) == BPF_TAX_LINUX)
            g_string_append(out, "tax");
        else if (BPF_MISCOP_LINUX(code) == BPF_TXA_LINUX)
            g_string_append(out, "txa");
        else
            unknown(out, code);
        return;
    }
}

void bpf_disasm_prog(GString *out, const struct sock_filter_linux *prog, size_t len)
{
    for (size_t pc = 0; pc < len; pc++) {
        const struct sock_filter_linux *in = &prog[pc];
        g_string_append_printf(out, " %04zu: 0x%02x 0x%02x 0x%02x 0x%08" PRIx32 "  ", pc,
                               in->code, in->jt, in->jf, in->k);
        bpf_disasm_insn(out, in, pc);
        g_string_append_c(out, '\n');
    }
}
