/* emu/bpf: the checker's rejections and the interpreter's runtime rules
 * (FILTER.md §2 and §3).  The kernel judges the same programs in
 * tests/diff's filter cases; these pin each rule to one small program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/linux.h"
#include "emu/bpf/bpf.h"

#define STMT(c, kk) ((struct sock_filter_linux){ .code = (c), .k = (kk) })
#define JUMP(c, kk, t, f) ((struct sock_filter_linux){ .code = (c), .jt = (t), .jf = (f), .k = (kk) })
#define N(p) (sizeof(p) / sizeof((p)[0]))

enum {
    LD_W_ABS = BPF_LD_LINUX | BPF_W_LINUX | BPF_ABS_LINUX,
    LD_H_ABS = BPF_LD_LINUX | BPF_H_LINUX | BPF_ABS_LINUX,
    LD_B_ABS = BPF_LD_LINUX | BPF_B_LINUX | BPF_ABS_LINUX,
    LD_W_IND = BPF_LD_LINUX | BPF_W_LINUX | BPF_IND_LINUX,
    LD_IMM = BPF_LD_LINUX | BPF_IMM_LINUX,
    LD_LEN = BPF_LD_LINUX | BPF_W_LINUX | BPF_LEN_LINUX,
    LDX_LEN = BPF_LDX_LINUX | BPF_W_LINUX | BPF_LEN_LINUX,
    LD_MEM = BPF_LD_LINUX | BPF_MEM_LINUX,
    LDX_IMM = BPF_LDX_LINUX | BPF_IMM_LINUX,
    LDX_MEM = BPF_LDX_LINUX | BPF_MEM_LINUX,
    LDX_MSH = BPF_LDX_LINUX | BPF_B_LINUX | BPF_MSH_LINUX,
    ST = BPF_ST_LINUX,
    STX = BPF_STX_LINUX,
    RET_K = BPF_RET_LINUX | BPF_K_LINUX,
    RET_A = BPF_RET_LINUX | BPF_A_LINUX,
    RET_X = BPF_RET_LINUX | BPF_X_LINUX,
    TAX = BPF_MISC_LINUX | BPF_TAX_LINUX,
    TXA = BPF_MISC_LINUX | BPF_TXA_LINUX,
    JA = BPF_JMP_LINUX | BPF_JA_LINUX,
    JEQ_K = BPF_JMP_LINUX | BPF_JEQ_LINUX | BPF_K_LINUX,
    JSET_K = BPF_JMP_LINUX | BPF_JSET_LINUX | BPF_K_LINUX,
    JGT_X = BPF_JMP_LINUX | BPF_JGT_LINUX | BPF_X_LINUX,
    ALU_K = BPF_ALU_LINUX | BPF_K_LINUX,
    ALU_X = BPF_ALU_LINUX | BPF_X_LINUX,
};
#define ALLOW SECCOMP_RET_ALLOW_LINUX

static void accepts_the_seccomp_subset(void **state)
{
    (void)state;
    struct sock_filter_linux p[] = {
        STMT(LD_W_ABS, 0),  STMT(LD_W_ABS, 60), STMT(LD_LEN, 0),   STMT(LDX_LEN, 0),
        STMT(LD_IMM, 1),    STMT(LDX_IMM, 2),   STMT(ST, 0),       STMT(STX, 15),
        STMT(LD_MEM, 0),    STMT(LDX_MEM, 15),  STMT(TAX, 0),      STMT(TXA, 0),
        STMT(ALU_K | BPF_ADD_LINUX, 1), STMT(ALU_X | BPF_SUB_LINUX, 0),
        STMT(ALU_K | BPF_MUL_LINUX, 3), STMT(ALU_K | BPF_DIV_LINUX, 3),
        STMT(ALU_X | BPF_DIV_LINUX, 0), STMT(ALU_K | BPF_AND_LINUX, 3),
        STMT(ALU_K | BPF_OR_LINUX, 3),  STMT(ALU_K | BPF_XOR_LINUX, 3),
        STMT(ALU_K | BPF_LSH_LINUX, 31), STMT(ALU_X | BPF_RSH_LINUX, 0),
        STMT(BPF_ALU_LINUX | BPF_NEG_LINUX, 0),
        JUMP(JEQ_K, 1, 0, 1), JUMP(JGT_X, 0, 1, 0), JUMP(JSET_K, 1, 0, 0),
        STMT(JA, 0), STMT(RET_A, 0),
    };
    assert_int_equal(bpf_check(p, N(p)), 0);
}

static void rejects(const struct sock_filter_linux *insn)
{
    struct sock_filter_linux p[2] = { *insn, STMT(RET_K, ALLOW) };
    assert_int_equal(bpf_check(p, 2), -EINVAL_LINUX);
}

static void rejects_what_socket_filters_accept(void **state)
{
    (void)state;
    rejects(&STMT(ALU_K | BPF_MOD_LINUX, 3));
    rejects(&STMT(ALU_X | BPF_MOD_LINUX, 0));
    rejects(&STMT(LD_H_ABS, 0));
    rejects(&STMT(LD_B_ABS, 0));
    rejects(&STMT(LD_W_IND, 0));
    rejects(&STMT(LDX_MSH, 0));
    rejects(&STMT(LD_W_ABS, 0xfffff000u)); /* ancillary: protocol */
    struct sock_filter_linux ret_x[] = { STMT(RET_X, 0) };
    assert_int_equal(bpf_check(ret_x, 1), -EINVAL_LINUX);
}

static void rejects_bad_operands(void **state)
{
    (void)state;
    rejects(&STMT(LD_W_ABS, 2));  /* misaligned */
    rejects(&STMT(LD_W_ABS, 64)); /* past seccomp_data */
    rejects(&STMT(ALU_K | BPF_DIV_LINUX, 0));
    rejects(&STMT(ALU_K | BPF_LSH_LINUX, 32));
    rejects(&STMT(ALU_K | BPF_RSH_LINUX, 32));
    rejects(&STMT(ST, 16));
    rejects(&STMT(0xffff, 0));            /* unknown opcode */
    rejects(&STMT(BPF_ST_LINUX | 0x08, 0)); /* ST with stray bits */
    rejects(&STMT(JA, 1));                /* past the end */
    rejects(&JUMP(JEQ_K, 0, 1, 0));
    rejects(&JUMP(JEQ_K, 0, 0, 1));
}

static void rejects_shape(void **state)
{
    (void)state;
    struct sock_filter_linux no_ret[] = { STMT(RET_K, ALLOW), STMT(LD_IMM, 0) };
    assert_int_equal(bpf_check(no_ret, 2), -EINVAL_LINUX);
    assert_int_equal(bpf_check(no_ret, 0), -EINVAL_LINUX);
    assert_int_equal(bpf_check(NULL, 1), -EINVAL_LINUX);
    static struct sock_filter_linux big[BPF_MAXINSNS_LINUX + 1];
    for (size_t i = 0; i < N(big); i++)
        big[i] = STMT(RET_K, ALLOW);
    assert_int_equal(bpf_check(big, BPF_MAXINSNS_LINUX), 0);
    assert_int_equal(bpf_check(big, BPF_MAXINSNS_LINUX + 1), -EINVAL_LINUX);
}

static void scratch_must_be_stored_on_every_path(void **state)
{
    (void)state;
    struct sock_filter_linux unset[] = { STMT(LD_MEM, 3), STMT(RET_A, 0) };
    assert_int_equal(bpf_check(unset, N(unset)), -EINVAL_LINUX);
    /* Stored on the false path only. */
    struct sock_filter_linux one_path[] = {
        JUMP(JEQ_K, 0, 1, 0), STMT(ST, 3), STMT(LD_MEM, 3), STMT(RET_A, 0),
    };
    assert_int_equal(bpf_check(one_path, N(one_path)), -EINVAL_LINUX);
    struct sock_filter_linux both[] = {
        STMT(ST, 3), JUMP(JEQ_K, 0, 1, 0), STMT(ST, 4), STMT(LDX_MEM, 3), STMT(RET_A, 0),
    };
    assert_int_equal(bpf_check(both, N(both)), 0);
    /* The kernel forgets a store after a jump for the next instruction
     * only through the jump's own targets. */
    struct sock_filter_linux after_ja[] = { STMT(ST, 1), STMT(JA, 0), STMT(LD_MEM, 1), STMT(RET_A, 0) };
    assert_int_equal(bpf_check(after_ja, N(after_ja)), 0);
}

static void ebpf_length_as_the_kernel_counts(void **state)
{
    (void)state;
    struct sock_filter_linux ret[] = { STMT(RET_K, ALLOW) };
    assert_int_equal(bpf_ebpf_len(ret, 1), 5);
    struct sock_filter_linux p[] = {
        STMT(LD_W_ABS, 0),                 /* 1 */
        JUMP(JEQ_K, 1, 0, 0),              /* 1 */
        JUMP(JEQ_K, 1, 1, 0),              /* 1 */
        JUMP(JEQ_K, 1, 0, 1),              /* 1: inverted */
        JUMP(JEQ_K, 1, 1, 1),              /* 2 */
        JUMP(JSET_K, 1, 0, 1),             /* 2: JSET cannot invert */
        JUMP(JEQ_K, 0x80000000u, 0, 0),    /* 2: negative immediate */
        JUMP(JEQ_K, 0x80000000u, 1, 1),    /* 3 */
        STMT(ALU_X | BPF_DIV_LINUX, 0),    /* 5 */
        STMT(RET_A, 0),                    /* 1 */
        STMT(RET_K, 0),                    /* 2 */
    };
    assert_int_equal(bpf_ebpf_len(p, N(p)), 3 + 1 + 1 + 1 + 1 + 2 + 2 + 2 + 3 + 5 + 1 + 2);
}

static struct seccomp_data_linux sample(void)
{
    struct seccomp_data_linux d = {
        .nr = -1, .arch = AUDIT_ARCH_X86_64_LINUX, .instruction_pointer = 0x1122334455667788ull,
    };
    for (int i = 0; i < 6; i++)
        d.args[i] = ((uint64_t)(0xa0 + i) << 32) | (uint32_t)(0x10 + i);
    return d;
}

static uint32_t run(const struct sock_filter_linux *p, size_t n)
{
    struct seccomp_data_linux d = sample();
    assert_int_equal(bpf_check(p, n), 0);
    return bpf_run(p, n, &d, NULL, NULL);
}

static void loads_the_little_endian_layout(void **state)
{
    (void)state;
    static const uint32_t want[16] = {
        0xffffffffu, AUDIT_ARCH_X86_64_LINUX, 0x55667788u, 0x11223344u,
        0x10, 0xa0, 0x11, 0xa1, 0x12, 0xa2, 0x13, 0xa3, 0x14, 0xa4, 0x15, 0xa5,
    };
    for (uint32_t off = 0; off < 64; off += 4) {
        struct sock_filter_linux p[] = { STMT(LD_W_ABS, off), STMT(RET_A, 0) };
        assert_int_equal(run(p, 2), want[off / 4]);
    }
    struct sock_filter_linux len[] = { STMT(LDX_LEN, 0), STMT(TXA, 0), STMT(RET_A, 0) };
    assert_int_equal(run(len, N(len)), 64);
}

static void registers_start_at_zero(void **state)
{
    (void)state;
    struct sock_filter_linux a[] = { STMT(RET_A, 0) };
    assert_int_equal(run(a, 1), 0);
    struct sock_filter_linux x[] = { STMT(TXA, 0), STMT(RET_A, 0) };
    assert_int_equal(run(x, 2), 0);
}

static void arithmetic_is_unsigned_32_bit(void **state)
{
    (void)state;
    struct sock_filter_linux wrap[] = {
        STMT(LD_IMM, 0xffffffffu), STMT(ALU_K | BPF_ADD_LINUX, 2), STMT(RET_A, 0),
    };
    assert_int_equal(run(wrap, N(wrap)), 1);
    struct sock_filter_linux div[] = {
        STMT(LD_IMM, 0xfffffffeu), STMT(ALU_K | BPF_DIV_LINUX, 2), STMT(RET_A, 0),
    };
    assert_int_equal(run(div, N(div)), 0x7fffffffu);
    struct sock_filter_linux neg[] = {
        STMT(LD_IMM, 1), STMT(BPF_ALU_LINUX | BPF_NEG_LINUX, 0), STMT(RET_A, 0),
    };
    assert_int_equal(run(neg, N(neg)), 0xffffffffu);
    struct sock_filter_linux mul[] = {
        STMT(LD_IMM, 0x10000), STMT(ALU_K | BPF_MUL_LINUX, 0x10001), STMT(RET_A, 0),
    };
    assert_int_equal(run(mul, N(mul)), 0x10000);
    /* Unsigned compare: 0xffffffff > 1. */
    struct sock_filter_linux cmp[] = {
        STMT(LD_IMM, 0xffffffffu), STMT(LDX_IMM, 1), JUMP(JGT_X, 0, 0, 1),
        STMT(RET_K, 7), STMT(RET_K, 9),
    };
    assert_int_equal(run(cmp, N(cmp)), 7);
}

static void shift_by_x_uses_low_five_bits(void **state)
{
    (void)state;
    struct sock_filter_linux lsh[] = {
        STMT(LD_IMM, 1), STMT(LDX_IMM, 33), STMT(ALU_X | BPF_LSH_LINUX, 0), STMT(RET_A, 0),
    };
    assert_int_equal(run(lsh, N(lsh)), 2);
    struct sock_filter_linux rsh[] = {
        STMT(LD_IMM, 0x80000000u), STMT(LDX_IMM, 63), STMT(ALU_X | BPF_RSH_LINUX, 0),
        STMT(RET_A, 0),
    };
    assert_int_equal(run(rsh, N(rsh)), 1);
}

static void division_by_zero_x_returns_zero(void **state)
{
    (void)state;
    struct sock_filter_linux p[] = {
        STMT(LD_IMM, 5), STMT(ALU_X | BPF_DIV_LINUX, 0), STMT(RET_K, ALLOW),
    };
    assert_int_equal(run(p, N(p)), 0);
}

static void scratch_and_jumps(void **state)
{
    (void)state;
    struct sock_filter_linux p[] = {
        STMT(LD_W_ABS, 16), STMT(ST, 5), STMT(LD_IMM, 0), STMT(LDX_MEM, 5), STMT(TXA, 0),
        STMT(LD_IMM, 0), STMT(LD_MEM, 5), JUMP(JSET_K, 0x10, 1, 0), STMT(RET_K, 1), STMT(JA, 1), STMT(RET_K, 2),
        STMT(TXA, 0), STMT(RET_A, 0),
    };
    assert_int_equal(run(p, N(p)), 0x10);
}

struct trace {
    size_t pcs[16];
    uint32_t a[16];
    size_t n;
};

static void record(void *ctx, size_t pc, const struct sock_filter_linux *insn, uint32_t a,
                   uint32_t x)
{
    (void)insn, (void)x;
    struct trace *tr = ctx;
    tr->pcs[tr->n] = pc;
    tr->a[tr->n++] = a;
}

static void step_sees_each_executed_instruction(void **state)
{
    (void)state;
    struct sock_filter_linux p[] = {
        STMT(LD_W_ABS, 4), JUMP(JEQ_K, AUDIT_ARCH_X86_64_LINUX, 1, 0), STMT(RET_K, 0),
        STMT(RET_K, ALLOW),
    };
    struct seccomp_data_linux d = sample();
    struct trace tr = { 0 };
    assert_int_equal(bpf_run(p, N(p), &d, record, &tr), ALLOW);
    assert_int_equal(tr.n, 3);
    assert_int_equal(tr.pcs[0], 0);
    assert_int_equal(tr.pcs[1], 1);
    assert_int_equal(tr.pcs[2], 3);
    assert_int_equal(tr.a[0], 0);
    assert_int_equal(tr.a[1], AUDIT_ARCH_X86_64_LINUX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_the_seccomp_subset),
        cmocka_unit_test(rejects_what_socket_filters_accept),
        cmocka_unit_test(rejects_bad_operands),
        cmocka_unit_test(rejects_shape),
        cmocka_unit_test(scratch_must_be_stored_on_every_path),
        cmocka_unit_test(ebpf_length_as_the_kernel_counts),
        cmocka_unit_test(loads_the_little_endian_layout),
        cmocka_unit_test(registers_start_at_zero),
        cmocka_unit_test(arithmetic_is_unsigned_32_bit),
        cmocka_unit_test(shift_by_x_uses_low_five_bits),
        cmocka_unit_test(division_by_zero_x_returns_zero),
        cmocka_unit_test(scratch_and_jumps),
        cmocka_unit_test(step_sees_each_executed_instruction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
