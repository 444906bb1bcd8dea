/* The disassembler's text for every instruction class, the named
 * seccomp_data fields and actions, and the program listing: the format is
 * stable (the trace, seccomp-emu-bpf and the lessons' outputs use it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "emu/bpf/bpf_disasm.h"

#define INSN(c, t, f, kk) ((struct sock_filter_linux){ .code = (c), .jt = (t), .jf = (f), .k = (kk) })

static void expect_insn(struct sock_filter_linux in, size_t pc, const char *want)
{
    GString *s = g_string_new(NULL);
    bpf_disasm_insn(s, &in, pc);
    if (strcmp(s->str, want))
        fail_msg("code 0x%04x k %u at %zu: got \"%s\", want \"%s\"", in.code, in.k, pc, s->str,
                 want);
    g_string_free(s, TRUE);
}

static void loads_name_seccomp_data(void **state)
{
    (void)state;
    expect_insn(INSN(0x20, 0, 0, 0), 0, "ld [nr]");
    expect_insn(INSN(0x20, 0, 0, 4), 0, "ld [arch]");
    expect_insn(INSN(0x20, 0, 0, 8), 0, "ld [ip]");
    expect_insn(INSN(0x20, 0, 0, 12), 0, "ld [ip.hi]");
    expect_insn(INSN(0x20, 0, 0, 16), 0, "ld [args[0]]");
    expect_insn(INSN(0x20, 0, 0, 20), 0, "ld [args[0].hi]");
    expect_insn(INSN(0x20, 0, 0, 56), 0, "ld [args[5]]");
    expect_insn(INSN(0x20, 0, 0, 60), 0, "ld [args[5].hi]");
    /* Offsets the checker refuses are shown as numbers. */
    expect_insn(INSN(0x20, 0, 0, 64), 0, "ld [64]");
    expect_insn(INSN(0x20, 0, 0, 2), 0, "ld [2]");
    expect_insn(INSN(0x28, 0, 0, 4), 0, "ldh [4]");
    expect_insn(INSN(0x30, 0, 0, 0), 0, "ldb [0]");
    expect_insn(INSN(0x40, 0, 0, 8), 0, "ld [x + 8]");
    expect_insn(INSN(0x50, 0, 0, 1), 0, "ldb [x + 1]");
}

static void other_loads_and_stores(void **state)
{
    (void)state;
    expect_insn(INSN(0x00, 0, 0, 7), 0, "ld #7");
    expect_insn(INSN(0x00, 0, 0, 0xc000003e), 0, "ld #0xc000003e");
    expect_insn(INSN(0x00, 0, 0, 0xffff), 0, "ld #65535");
    expect_insn(INSN(0x00, 0, 0, 0x10000), 0, "ld #0x10000");
    expect_insn(INSN(0x60, 0, 0, 3), 0, "ld M[3]");
    expect_insn(INSN(0x80, 0, 0, 0), 0, "ld #len");
    expect_insn(INSN(0x01, 0, 0, 9), 0, "ldx #9");
    expect_insn(INSN(0x61, 0, 0, 15), 0, "ldx M[15]");
    expect_insn(INSN(0x81, 0, 0, 0), 0, "ldx #len");
    expect_insn(INSN(0xb1, 0, 0, 14), 0, "ldxb 4*([14]&0xf)");
    expect_insn(INSN(0x02, 0, 0, 1), 0, "st M[1]");
    expect_insn(INSN(0x03, 0, 0, 2), 0, "stx M[2]");
    expect_insn(INSN(0x07, 0, 0, 0), 0, "tax");
    expect_insn(INSN(0x87, 0, 0, 0), 0, "txa");
}

static void alu(void **state)
{
    (void)state;
    expect_insn(INSN(0x04, 0, 0, 1), 0, "add #1");
    expect_insn(INSN(0x0c, 0, 0, 0), 0, "add x");
    expect_insn(INSN(0x14, 0, 0, 2), 0, "sub #2");
    expect_insn(INSN(0x24, 0, 0, 3), 0, "mul #3");
    expect_insn(INSN(0x34, 0, 0, 4), 0, "div #4");
    expect_insn(INSN(0x3c, 0, 0, 0), 0, "div x");
    expect_insn(INSN(0x44, 0, 0, 5), 0, "or #5");
    expect_insn(INSN(0x54, 0, 0, 0xffff0000), 0, "and #0xffff0000");
    expect_insn(INSN(0x64, 0, 0, 4), 0, "lsh #4");
    expect_insn(INSN(0x74, 0, 0, 4), 0, "rsh #4");
    expect_insn(INSN(0x7c, 0, 0, 0), 0, "rsh x");
    expect_insn(INSN(0x84, 0, 0, 0), 0, "neg");
    expect_insn(INSN(0x94, 0, 0, 3), 0, "mod #3");
    expect_insn(INSN(0xa4, 0, 0, 1), 0, "xor #1");
    expect_insn(INSN(0xb4, 0, 0, 1), 0, "unknown 0xb4");
    expect_insn(INSN(0x8c, 0, 0, 0), 0, "unknown 0x8c");
}

static void jumps_are_absolute(void **state)
{
    (void)state;
    expect_insn(INSN(0x15, 0, 1, 39), 2, "jeq #39, 3, 4");
    expect_insn(INSN(0x15, 6, 0, 0xc000003e), 1, "jeq #0xc000003e, 8, 2");
    expect_insn(INSN(0x1d, 1, 2, 0), 0, "jeq x, 2, 3");
    expect_insn(INSN(0x25, 0, 0, 10), 5, "jgt #10, 6, 6");
    expect_insn(INSN(0x35, 255, 255, 0), 0, "jge #0, 256, 256");
    expect_insn(INSN(0x45, 0, 1, 1), 0, "jset #1, 1, 2");
    expect_insn(INSN(0x4d, 0, 1, 1), 0, "jset x, 1, 2");
    expect_insn(INSN(0x05, 0, 0, 3), 4, "ja 8");
    expect_insn(INSN(0x05, 0, 0, 0xffffffff), 1, "ja 4294967297");
    expect_insn(INSN(0x55, 0, 0, 0), 0, "unknown 0x55");
    expect_insn(INSN(0x0d, 0, 0, 0), 0, "unknown 0x0d");
}

static void returns_name_actions(void **state)
{
    (void)state;
    expect_insn(INSN(0x06, 0, 0, 0x80000000), 0, "ret KILL_PROCESS");
    expect_insn(INSN(0x06, 0, 0, 0), 0, "ret KILL_THREAD");
    expect_insn(INSN(0x06, 0, 0, 0x00030000), 0, "ret TRAP(0)");
    expect_insn(INSN(0x06, 0, 0, 0x00030007), 0, "ret TRAP(7)");
    expect_insn(INSN(0x06, 0, 0, 0x00050001), 0, "ret ERRNO(1)");
    expect_insn(INSN(0x06, 0, 0, 0x0005ffff), 0, "ret ERRNO(65535)");
    expect_insn(INSN(0x06, 0, 0, 0x7fc00000), 0, "ret USER_NOTIF");
    expect_insn(INSN(0x06, 0, 0, 0x7ff00005), 0, "ret TRACE(5)");
    expect_insn(INSN(0x06, 0, 0, 0x7ffc0000), 0, "ret LOG");
    expect_insn(INSN(0x06, 0, 0, 0x7fff0000), 0, "ret ALLOW");
    expect_insn(INSN(0x06, 0, 0, 0x7fff0005), 0, "ret ALLOW(5)");
    expect_insn(INSN(0x06, 0, 0, 0x00040000), 0, "ret 0x00040000");
    expect_insn(INSN(0x06, 0, 0, 0x7ffe0001), 0, "ret 0x7ffe0001");
    expect_insn(INSN(0x16, 0, 0, 0), 0, "ret a");
    expect_insn(INSN(0x0e, 0, 0, 0), 0, "ret x");
    expect_insn(INSN(0x1e, 0, 0, 0), 0, "unknown 0x1e");
    expect_insn(INSN(0x26, 0, 0, 0), 0, "unknown 0x26");
    expect_insn(INSN(0x106, 0, 0, 0), 0, "unknown 0x106");
}

static void program_listing(void **state)
{
    (void)state;
    const struct sock_filter_linux prog[] = {
        INSN(0x20, 0, 0, 4),
        INSN(0x15, 0, 3, 0xc000003e),
        INSN(0x20, 0, 0, 0),
        INSN(0x15, 0, 1, 39),
        INSN(0x06, 0, 0, 0x00050001),
        INSN(0x06, 0, 0, 0x7fff0000),
    };
    GString *s = g_string_new(NULL);
    bpf_disasm_prog(s, prog, G_N_ELEMENTS(prog));
    assert_string_equal(s->str,
                        " 0000: 0x20 0x00 0x00 0x00000004  ld [arch]\n"
                        " 0001: 0x15 0x00 0x03 0xc000003e  jeq #0xc000003e, 2, 5\n"
                        " 0002: 0x20 0x00 0x00 0x00000000  ld [nr]\n"
                        " 0003: 0x15 0x00 0x01 0x00000027  jeq #39, 4, 5\n"
                        " 0004: 0x06 0x00 0x00 0x00050001  ret ERRNO(1)\n"
                        " 0005: 0x06 0x00 0x00 0x7fff0000  ret ALLOW\n");
    g_string_free(s, TRUE);
}

static void every_code_has_text(void **state)
{
    (void)state;
    /* No encoding leaves the text empty or reads past the tables. */
    for (unsigned code = 0; code <= 0xffff; code += (code < 0x100 ? 1 : 0x101)) {
        GString *s = g_string_new(NULL);
        struct sock_filter_linux in = INSN(code, 1, 2, 3);
        bpf_disasm_insn(s, &in, 0);
        assert_true(s->len > 0);
        g_string_free(s, TRUE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_name_seccomp_data),
        cmocka_unit_test(other_loads_and_stores),
        cmocka_unit_test(alu),
        cmocka_unit_test(jumps_are_absolute),
        cmocka_unit_test(returns_name_actions),
        cmocka_unit_test(program_listing),
        cmocka_unit_test(every_code_has_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
