/* libFuzzer harness (bpf_model): the seccomp BPF checker and interpreter
 * against a second model written here from FILTER.md section 2 and 3, not from
 * emu/bpf/.
 *
 * Input: 64 bytes of seccomp_data (little-endian, as a guest sees it), then
 * 8 bytes per instruction.  An instruction's first byte picks one of the
 * opcodes seccomp accepts unless its second byte's top bit is set (then
 * the raw 16-bit code is kept), and jump offsets are taken modulo the
 * program's length most of the time, so that many inputs pass the checker.
 *
 * It aborts when
 *   - bpf_check accepts what the model's static rules reject (an opcode
 *     outside the set, a bad load offset, DIV by constant 0, a shift of 32
 *     or more, a scratch slot past 15, a jump out of the program, no final
 *     RET), or
 *   - an accepted program, run by the model, reads a scratch slot no store
 *     on its path wrote (the checker promises every path stores first), or
 *   - bpf_run and the model return different values, or the step callback
 *     shows a different path or different registers.
 * The disassembler and the eBPF length counter run on every input too. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "emu/bpf/bpf.h"
#include "emu/bpf/bpf_disasm.h"

#define MAX_PROG 64
#define DATA_BYTES 64

/* The opcodes seccomp's checker lets through (FILTER.md section 2). */
static const uint16_t accepted[] = {
    0x06, 0x16,                                     /* ret k, ret a */
    0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, /* add sub mul div, k and x */
    0x44, 0x4c, 0x54, 0x5c, 0x64, 0x6c, 0x74, 0x7c, /* or and lsh rsh */
    0xa4, 0xac, 0x84,                               /* xor, neg */
    0x00, 0x01, 0x60, 0x61, 0x02, 0x03, 0x07, 0x87, /* ld/ldx imm, mem; st stx tax txa */
    0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, /* ja, jeq jgt jge jset */
    0x20, 0x80, 0x81,                               /* ld w abs, ld/ldx len */
};

static bool is_accepted(uint16_t code)
{
    for (size_t i = 0; i < G_N_ELEMENTS(accepted); i++)
        if (accepted[i] == code)
            return true;
    return false;
}

/* What the model's static rules say of a program: true = must be rejected. */
static bool statically_bad(const struct sock_filter_linux *p, size_t len)
{
    if (len == 0 || len > BPF_MAXINSNS_LINUX)
        return true;
    for (size_t pc = 0; pc < len; pc++) {
        uint16_t c = p[pc].code;
        uint32_t k = p[pc].k;
        if (!is_accepted(c))
            return true;
        if (c == 0x20 && (k % 4 || k >= DATA_BYTES))
            return true;
        if (c == 0x34 && k == 0)
            return true;
        if ((c == 0x64 || c == 0x74) && k >= 32)
            return true;
        if ((c == 0x60 || c == 0x61 || c == 0x02 || c == 0x03) && k >= 16)
            return true;
        if (c == 0x05 && (uint64_t)k >= len - pc - 1)
            return true;
        if ((c & 0x07) == 0x05 && c != 0x05 &&
            (pc + p[pc].jt + 1 >= len || pc + p[pc].jf + 1 >= len))
            return true;
    }
    uint16_t last = p[len - 1].code;
    return last != 0x06 && last != 0x16;
}

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

struct trail {
    size_t n;
    size_t pc[MAX_PROG];
    uint32_t a[MAX_PROG], x[MAX_PROG];
};

/* The second interpreter: reads the data as the raw 64 bytes. */
static uint32_t model_run(const struct sock_filter_linux *p, size_t len, const uint8_t *bytes,
                          struct trail *tr)
{
    uint32_t a = 0, x = 0, mem[16];
    bool written[16] = { false };
    size_t pc = 0;
    for (;;) {
        if (pc >= len)
            abort(); /* fell off an accepted program */
        if (tr->n < MAX_PROG) {
            tr->pc[tr->n] = pc;
            tr->a[tr->n] = a;
            tr->x[tr->n] = x;
        }
        tr->n++;
        const struct sock_filter_linux *in = &p[pc++];
        uint32_t k = in->k;
        uint32_t src = (in->code & 0x08) ? x : k;
        switch (in->code) {
        case 0x06: return k;
        case 0x16: return a;
        case 0x04: case 0x0c: a += src; break;
        case 0x14: case 0x1c: a -= src; break;
        case 0x24: case 0x2c: a *= src; break;
        case 0x34: case 0x3c:
            if (src == 0)
                return 0;
            a /= src;
            break;
        case 0x44: case 0x4c: a |= src; break;
        case 0x54: case 0x5c: a &= src; break;
        case 0x64: case 0x6c: a = a << (src & 31); break;
        case 0x74: case 0x7c: a = a >> (src & 31); break;
        case 0xa4: case 0xac: a ^= src; break;
        case 0x84: a = (uint32_t)-a; break;
        case 0x00: a = k; break;
        case 0x01: x = k; break;
        case 0x60: case 0x61:
            if (k >= 16 || !written[k])
                abort(); /* the checker let an unwritten slot be read */
            if (in->code == 0x60)
                a = mem[k];
            else
                x = mem[k];
            break;
        case 0x02: case 0x03:
            if (k >= 16)
                abort();
            mem[k] = in->code == 0x02 ? a : x;
            written[k] = true;
            break;
        case 0x07: x = a; break;
        case 0x87: a = x; break;
        case 0x20:
            if (k % 4 || k >= DATA_BYTES)
                abort();
            a = le32(bytes + k);
            break;
        case 0x80: a = DATA_BYTES; break;
        case 0x81: x = DATA_BYTES; break;
        case 0x05: pc += k; break;
        default: {
            bool taken;
            switch (in->code & 0xf0) {
            case 0x10: taken = a == src; break;
            case 0x20: taken = a > src; break;
            case 0x30: taken = a >= src; break;
            case 0x40: taken = (a & src) != 0; break;
            default: abort(); /* not an accepted opcode */
            }
            pc += taken ? in->jt : in->jf;
        }
        }
    }
}

static void record(void *ctx, size_t pc, const struct sock_filter_linux *insn, uint32_t a,
                   uint32_t x)
{
    (void)insn;
    struct trail *tr = ctx;
    if (tr->n < MAX_PROG) {
        tr->pc[tr->n] = pc;
        tr->a[tr->n] = a;
        tr->x[tr->n] = x;
    }
    tr->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t size)
{
    if (size < DATA_BYTES + 8)
        return 0;
    const uint8_t *bytes = input;
    size_t len = (size - DATA_BYTES) / 8;
    if (len > MAX_PROG)
        len = MAX_PROG;
    struct sock_filter_linux prog[MAX_PROG];
    for (size_t i = 0; i < len; i++) {
        const uint8_t *b = input + DATA_BYTES + 8 * i;
        prog[i].code = (b[1] & 0x80) ? (uint16_t)(b[0] | (b[1] & 0x7f) << 8)
                                     : accepted[b[0] % G_N_ELEMENTS(accepted)];
        prog[i].jt = (b[1] & 0x40) ? b[2] : (uint8_t)(b[2] % len);
        prog[i].jf = (b[1] & 0x40) ? b[3] : (uint8_t)(b[3] % len);
        prog[i].k = le32(b + 4);
        if (!(b[1] & 0x20) && prog[i].code == 0x20)
            prog[i].k %= DATA_BYTES;
        uint16_t c = prog[i].code;
        if (!(b[1] & 0x20) && (c == 0x60 || c == 0x61 || c == 0x02 || c == 0x03))
            prog[i].k %= 16;
        /* Edge values, where off-by-one rules differ: shift counts 31 and
         * 32, the sign bit, all ones. */
        static const uint32_t edges[] = { 0, 1, 31, 32, 33, 63, 0x7fffffff, 0x80000000,
                                          0xfffffffe, 0xffffffff };
        if (!(b[1] & 0x20) && (b[1] & 0x10) && c != 0x20)
            prog[i].k = edges[b[4] % G_N_ELEMENTS(edges)];
    }

    GString *text = g_string_new(NULL);
    bpf_disasm_prog(text, prog, len);
    g_string_free(text, TRUE);

    int verdict = bpf_check(prog, len);
    if (verdict != 0 && verdict != -22)
        abort();
    if (verdict == 0 && statically_bad(prog, len))
        abort();
    if (verdict != 0)
        return 0;
    (void)bpf_ebpf_len(prog, len);

    struct seccomp_data_linux data;
    data.nr = (int32_t)le32(bytes);
    data.arch = le32(bytes + 4);
    data.instruction_pointer = (uint64_t)le32(bytes + 8) | (uint64_t)le32(bytes + 12) << 32;
    for (int i = 0; i < 6; i++)
        data.args[i] = (uint64_t)le32(bytes + 16 + 8 * i) | (uint64_t)le32(bytes + 20 + 8 * i) << 32;

    struct trail model = { 0 }, real = { 0 };
    uint32_t want = model_run(prog, len, bytes, &model);
    uint32_t got = bpf_run(prog, len, &data, record, &real);
    if (got != want || model.n != real.n)
        abort();
    size_t n = model.n < MAX_PROG ? model.n : MAX_PROG;
    for (size_t i = 0; i < n; i++)
        if (model.pc[i] != real.pc[i] || model.a[i] != real.a[i] || model.x[i] != real.x[i])
            abort();
    return 0;
}
