/* Two Unicorn engines in one process, as seccomp-emu has them: the guest's
 * and the scratch engine emu/engine/double_fault.c opens at the first
 * guest exception.  Each must keep its own code generator's state.
 * Unicorn 2.1.1's arm64 code generator kept the address its translated
 * blocks return through (tb_ret_addr) in a file-static variable, so
 * opening a second engine
 * redirected the first engine's new blocks into the second's code buffer;
 * once that engine was closed, the first jumped into freed memory
 * (SIGSEGV on every arm64 host).  x86-64 hosts keep the address in the
 * code itself, so this passes there either way: it is the arm64 runs
 * (scripts/test-arm64.sh) that can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unicorn/unicorn.h>

#define CODE_BASE 0x10000ull

/* Each call runs code the engine has not translated yet, so the code
 * generator emits fresh blocks with whatever return address it holds:
 *   mov ecx, COUNT; l: add rax, rcx; dec ecx; jnz l; (end) */
static uint64_t run_sum(uc_engine *uc, uint64_t at, uint32_t count)
{
    uint8_t code[] = {
        0xb9, 0, 0, 0, 0,           /* mov ecx, count */
        0x48, 0x01, 0xc8,           /* add rax, rcx */
        0xff, 0xc9,                 /* dec ecx */
        0x75, 0xf9,                 /* jnz -7 (the add) */
    };
    memcpy(code + 1, &count, sizeof(count));
    uint64_t zero = 0, rax = 0;
    assert_int_equal(uc_mem_write(uc, at, code, sizeof(code)), UC_ERR_OK);
    assert_int_equal(uc_reg_write(uc, UC_X86_REG_RAX, &zero), UC_ERR_OK);
    assert_int_equal(uc_emu_start(uc, at, at + sizeof(code), 0, 0), UC_ERR_OK);
    assert_int_equal(uc_reg_read(uc, UC_X86_REG_RAX, &rax), UC_ERR_OK);
    return rax;
}

static uc_engine *open_engine(void)
{
    uc_engine *uc = NULL;
    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_64, &uc), UC_ERR_OK);
    assert_int_equal(uc_mem_map(uc, CODE_BASE, 0x10000, UC_PROT_ALL), UC_ERR_OK);
    return uc;
}

/* The scratch engine's pattern: opened after the first has run, closed,
 * and the first goes on with code it has not seen. */
static void second_closed_first_runs(void **state)
{
    (void)state;
    uc_engine *first = open_engine();
    assert_int_equal(run_sum(first, CODE_BASE, 10), 55);
    uc_engine *second = open_engine();
    assert_int_equal(run_sum(second, CODE_BASE, 100), 5050);
    assert_int_equal(uc_close(second), UC_ERR_OK);
    assert_int_equal(run_sum(first, CODE_BASE + 0x1000, 1000), 500500);
    assert_int_equal(uc_close(first), UC_ERR_OK);
}

/* And the other way round: the first closed, the second goes on. */
static void first_closed_second_runs(void **state)
{
    (void)state;
    uc_engine *first = open_engine();
    uc_engine *second = open_engine();
    assert_int_equal(run_sum(first, CODE_BASE, 10), 55);
    assert_int_equal(run_sum(second, CODE_BASE, 100), 5050);
    assert_int_equal(uc_close(first), UC_ERR_OK);
    assert_int_equal(run_sum(second, CODE_BASE + 0x1000, 1000), 500500);
    assert_int_equal(uc_close(second), UC_ERR_OK);
}

/* seccomp-emu's TLB fill refuses a page no VMA holds, and a stack's region
 * runs on below the stack into such pages (its reserve, emu/engine/mem.c).
 * Unicorn 2.1.1 found the translations of a region it unmaps by
 * translating the region's first page as an instruction fetch: refused,
 * it dropped none, and the refusal's error stayed behind for the next
 * uc_mem_map_ptr, which failed (UC_ERR_NOMEM).  The region's own RAM
 * addresses need no translation. */
static bool refuse_first_page(uc_engine *uc, uint64_t vaddr, uc_mem_type type, uc_tlb_entry *e,
                              void *user)
{
    (void)uc;
    (void)type;
    (void)user;
    if ((vaddr & ~0xfffull) == CODE_BASE)
        return false;
    e->paddr = vaddr & ~0xfffull;
    e->perms = UC_PROT_ALL;
    return true;
}

static uint64_t run_mov_eax(uc_engine *uc, uint64_t at)
{
    uint64_t zero = 0, rax = 0;
    assert_int_equal(uc_reg_write(uc, UC_X86_REG_RAX, &zero), UC_ERR_OK);
    assert_int_equal(uc_emu_start(uc, at, at + 5, 0, 0), UC_ERR_OK);
    assert_int_equal(uc_reg_read(uc, UC_X86_REG_RAX, &rax), UC_ERR_OK);
    return rax;
}

static void unmap_with_first_page_refused(void **state)
{
    (void)state;
    uc_engine *uc = NULL;
    uc_hook h;
    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_64, &uc), UC_ERR_OK);
    assert_int_equal(uc_ctl_tlb_mode(uc, UC_TLB_VIRTUAL), UC_ERR_OK);
    assert_int_equal(uc_hook_add(uc, &h, UC_HOOK_TLB_FILL, (void *)refuse_first_page, NULL, 1, 0),
                     UC_ERR_OK);
    uint8_t *one = aligned_alloc(0x1000, 0x2000), *two = aligned_alloc(0x1000, 0x2000);
    assert_non_null(one);
    assert_non_null(two);
    memset(one, 0x90, 0x2000);
    memset(two, 0x90, 0x2000);
    /* mov eax, 1 and mov eax, 2 on the second page, the same address */
    memcpy(one + 0x1000, (uint8_t[]){ 0xb8, 1, 0, 0, 0 }, 5);
    memcpy(two + 0x1000, (uint8_t[]){ 0xb8, 2, 0, 0, 0 }, 5);
    assert_int_equal(uc_mem_map_ptr(uc, CODE_BASE, 0x2000, UC_PROT_ALL, one), UC_ERR_OK);
    assert_int_equal(run_mov_eax(uc, CODE_BASE + 0x1000), 1);
    assert_int_equal(uc_mem_unmap(uc, CODE_BASE, 0x2000), UC_ERR_OK);
    assert_int_equal(uc_mem_map_ptr(uc, CODE_BASE, 0x2000, UC_PROT_ALL, two), UC_ERR_OK);
    assert_int_equal(run_mov_eax(uc, CODE_BASE + 0x1000), 2);
    assert_int_equal(uc_close(uc), UC_ERR_OK);
    free(one);
    free(two);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(second_closed_first_runs),
        cmocka_unit_test(first_closed_second_runs),
        cmocka_unit_test(unmap_with_first_page_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
