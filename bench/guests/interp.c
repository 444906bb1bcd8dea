/* Branchy kernel: a bytecode interpreter (switch dispatch, an indirect
 * jump per opcode) running a program that sums the Collatz path lengths
 * of 1..N, whose branches depend on the data.
 * argv: N (default 300000). */
#include "bench_guest.h"

enum op { LOADI, MOV, ADD, ADDI, SUBI, SHR1, ANDI, MUL3P1, JZ, JNZ, JEQ1, JMP, HALT };

struct insn {
    unsigned char op, a, b;
    int imm;
};

/* r0 = N, r1 = i, r2 = x, r3 = total, r4 = scratch */
static const struct insn program[] = {
    /* 0 */ { LOADI, 1, 0, 1 },
    /* 1 */ { LOADI, 3, 0, 0 },
    /* 2 */ { MOV, 2, 1, 0 },     /* outer: x = i */
    /* 3 */ { JEQ1, 2, 0, 10 },   /* inner: while x != 1 */
    /* 4 */ { ADDI, 3, 0, 1 },    /* total++ */
    /* 5 */ { MOV, 4, 2, 0 },
    /* 6 */ { ANDI, 4, 0, 1 },
    /* 7 */ { JZ, 4, 0, 9 },
    /* 8 */ { MUL3P1, 2, 0, 3 },  /* odd: x = 3x+1, back to inner */
    /* 9 */ { SHR1, 2, 0, 3 },    /* even: x /= 2, back to inner */
    /* 10 */ { ADDI, 1, 0, 1 },   /* i++ */
    /* 11 */ { MOV, 4, 0, 0 },
    /* 12 */ { ADDI, 4, 0, 1 },
    /* 13 */ { SUBI, 4, 1, 0 },   /* r4 = N + 1 - i */
    /* 14 */ { JNZ, 4, 0, 2 },
    /* 15 */ { HALT, 0, 0, 0 },
};

static u64 run(u64 n)
{
    u64 r[8] = { n };
    const struct insn *pc = program;
    for (;;) {
        const struct insn *i = pc++;
        switch (i->op) {
        case LOADI: r[i->a] = (u64)i->imm; break;
        case MOV: r[i->a] = r[i->b]; break;
        case ADD: r[i->a] += r[i->b]; break;
        case ADDI: r[i->a] += (u64)i->imm; break;
        case SUBI: r[i->a] -= r[i->b]; break;
        case SHR1: r[i->a] >>= 1; pc = program + i->imm; break;
        case ANDI: r[i->a] &= (u64)i->imm; break;
        case MUL3P1: r[i->a] = r[i->a] * 3 + 1; pc = program + i->imm; break;
        case JZ: if (!r[i->a]) pc = program + i->imm; break;
        case JNZ: if (r[i->a]) pc = program + i->imm; break;
        case JEQ1: if (r[i->a] == 1) pc = program + i->imm; break;
        case JMP: pc = program + i->imm; break;
        case HALT: return r[3];
        default: return ~0ull;
        }
    }
}

int bench_main(int argc, char **argv)
{
    u64 n = g_atoul(argc > 1 ? argv[1] : 0, 300000);
    g_checksum(1, run(n));
    return 0;
}
