/* VEX outside protected mode, in the engine alone.  No guest of
 * seccomp-emu can leave flat 32- or 64-bit protected mode (vm86 and vm86old
 * answer ENOSYS, as on an x86_64 kernel; modify_ldt is not emulated), so
 * no native run can judge this: the Intel SDM does (vol. 2A, 2.3.2 and the
 * VEX exception classes).  In real-address mode C4/C5 are LES/LDS; with a
 * register operand (ModRM.mod = 11, the only form that is VEX in 32-bit
 * code) that is #UD, so a VEX instruction there raises #UD as hardware
 * does, while LES with a memory operand still loads.  The same bytes run
 * as VEX in 32-bit protected mode once CR4.OSXSAVE and XCR0.YMM are set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <unicorn/unicorn.h>

#define CODE 0x1000u
#define DATA 0x2000u
#define CR4_OSFXSR (1u << 9)
#define CR4_OSXSAVE (1u << 18)

static uc_err run(uc_engine *uc, const uint8_t *code, size_t len)
{
    assert_int_equal(uc_mem_write(uc, CODE, code, len), UC_ERR_OK);
    return uc_emu_start(uc, CODE, CODE + len, 0, 1);
}

static uc_engine *open_engine(uc_mode mode)
{
    uc_engine *uc = NULL;
    assert_int_equal(uc_open(UC_ARCH_X86, mode, &uc), UC_ERR_OK);
    assert_int_equal(uc_mem_map(uc, 0, 0x10000, UC_PROT_ALL), UC_ERR_OK);
    return uc;
}

static const uint8_t vzeroupper[] = { 0xc5, 0xf8, 0x77 };

static void real_mode_vex_is_ud(void **state)
{
    (void)state;
    uc_engine *uc = open_engine(UC_MODE_16);
    assert_int_equal(run(uc, vzeroupper, sizeof vzeroupper), UC_ERR_INSN_INVALID);
    /* vmovdqa ymm0, ymm1 in its 2-byte form: the same */
    const uint8_t vmovdqa[] = { 0xc5, 0xfd, 0x6f, 0xc1 };
    assert_int_equal(run(uc, vmovdqa, sizeof vmovdqa), UC_ERR_INSN_INVALID);
    assert_int_equal(uc_close(uc), UC_ERR_OK);
}

static void real_mode_les_with_memory_loads(void **state)
{
    (void)state;
    uc_engine *uc = open_engine(UC_MODE_16);
    const uint8_t far_pointer[] = { 0x34, 0x12, 0x00, 0x03 };  /* 0300:1234 */
    assert_int_equal(uc_mem_write(uc, DATA, far_pointer, sizeof far_pointer), UC_ERR_OK);
    const uint8_t les[] = { 0xc4, 0x06, DATA & 0xff, DATA >> 8 };  /* les ax, [DATA] */
    assert_int_equal(run(uc, les, sizeof les), UC_ERR_OK);
    uint64_t ax = 0, es = 0;
    assert_int_equal(uc_reg_read(uc, UC_X86_REG_AX, &ax), UC_ERR_OK);
    assert_int_equal(uc_reg_read(uc, UC_X86_REG_ES, &es), UC_ERR_OK);
    assert_int_equal(ax & 0xffff, 0x1234);
    assert_int_equal(es & 0xffff, 0x0300);
    assert_int_equal(uc_close(uc), UC_ERR_OK);
}

/* The control: the bytes are a valid VEX instruction in protected mode
 * with the YMM state enabled, and #UD without it. */
static void protected_mode_vex_needs_xcr0_ymm(void **state)
{
    (void)state;
    uc_engine *uc = open_engine(UC_MODE_32);
    uint64_t cr4 = 0, xcr0 = 0x3;
    assert_int_equal(uc_reg_read(uc, UC_X86_REG_CR4, &cr4), UC_ERR_OK);
    cr4 |= CR4_OSFXSR | CR4_OSXSAVE;
    assert_int_equal(uc_reg_write(uc, UC_X86_REG_CR4, &cr4), UC_ERR_OK);
    assert_int_equal(uc_reg_write(uc, UC_X86_REG_XCR0, &xcr0), UC_ERR_OK);
    assert_int_equal(run(uc, vzeroupper, sizeof vzeroupper), UC_ERR_INSN_INVALID);
    xcr0 = 0x7;
    assert_int_equal(uc_reg_write(uc, UC_X86_REG_XCR0, &xcr0), UC_ERR_OK);
    assert_int_equal(run(uc, vzeroupper, sizeof vzeroupper), UC_ERR_OK);
    assert_int_equal(uc_close(uc), UC_ERR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_mode_vex_is_ud),
        cmocka_unit_test(real_mode_les_with_memory_loads),
        cmocka_unit_test(protected_mode_vex_needs_xcr0_ymm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
