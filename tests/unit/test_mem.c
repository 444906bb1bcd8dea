/* Guest memory: the VMA table, its splits, and the Linux-shaped answers of
 * mmap, munmap, mprotect, mremap and brk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/linux.h"
#include "emu/engine/mem.h"

#define RW (PROT_READ_LINUX | PROT_WRITE_LINUX)
#define ANON (MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX)

static uc_engine *uc;
static struct mm *mm;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_32, &uc), UC_ERR_OK);
    mm = mm_new(0xffffe000ull);
    assert_null(mm_attach_engine(mm, uc));
    mm->mmap_base = 0xf0000000ull;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mm_detach_engine(mm, uc);
    mm_unref(mm);
    uc_close(uc);
    return 0;
}

static void mmap_topdown_and_fixed(void **state)
{
    (void)state;
    int64_t a = mm_mmap(mm, 0, 8192, RW, ANON);
    assert_int_equal(a, 0xf0000000ll - 8192);
    int64_t b = mm_mmap(mm, 0, 100, RW, ANON);
    assert_int_equal(b, a - 4096);
    assert_int_equal(mm_mmap(mm, 0, 0, RW, ANON), -EINVAL_LINUX);
    assert_int_equal(mm_mmap(mm, 0x10001, 4096, RW, ANON | MAP_FIXED_LINUX), -EINVAL_LINUX);
    /* Unknown prot bits are ignored, as Linux's mmap ignores them. */
    int64_t sem = mm_mmap(mm, 0, 4096, 0x8, ANON);
    assert_int_equal(sem, b - 4096);
    assert_int_equal(mm_find(mm, (uint64_t)sem)->prot, 0);
    assert_int_equal(mm_munmap(mm, (uint64_t)sem, 4096), 0);
    assert_int_equal(mm_mmap(mm, (uint64_t)a, 4096, RW, ANON | MAP_FIXED_NOREPLACE_LINUX),
                     -EEXIST_LINUX);
    assert_int_equal(mm_mmap(mm, 0xfffff000ull, 8192, RW, ANON | MAP_FIXED_LINUX),
                     -ENOMEM_LINUX);
    /* Contents are zero and survive a fixed remap elsewhere. */
    uint32_t v = 0xdeadbeef, r = 1;
    assert_true(mm_read(mm, (uint64_t)a, &r, 4));
    assert_int_equal(r, 0);
    assert_true(mm_write(mm, (uint64_t)a + 4096, &v, 4));
    /* MAP_FIXED over an existing mapping replaces it with zeros. */
    assert_int_equal(mm_mmap(mm, (uint64_t)a + 4096, 4096, RW, ANON | MAP_FIXED_LINUX),
                     a + 4096);
    assert_true(mm_read(mm, (uint64_t)a + 4096, &r, 4));
    assert_int_equal(r, 0);
    assert_int_equal(mm_munmap(mm, (uint64_t)b, 4096), 0);
    assert_int_equal(mm_munmap(mm, (uint64_t)a, 8192), 0);
    assert_null(mm_find(mm, (uint64_t)a));
}

static void mprotect_splits_and_prefix(void **state)
{
    (void)state;
    uint64_t a = (uint64_t)mm_mmap(mm, 0x100000, 4 * 4096, RW, ANON | MAP_FIXED_LINUX);
    assert_int_equal(a, 0x100000);
    uint32_t v = 42;
    assert_true(mm_write(mm, a + 2 * 4096 + 8, &v, 4));
    assert_int_equal(mm_mprotect(mm, a + 4096, 4096, PROT_READ_LINUX), 0);
    assert_int_equal(mm_find(mm, a)->prot, RW);
    assert_int_equal(mm_find(mm, a + 4096)->prot, PROT_READ_LINUX);
    assert_int_equal(mm_find(mm, a + 2 * 4096)->prot, RW);
    /* Data kept across the split. */
    uint32_t r = 0;
    assert_true(mm_read(mm, a + 2 * 4096 + 8, &r, 4));
    assert_int_equal(r, 42);
    /* A write-valid prefix stops at the read-only page. */
    assert_int_equal(mm_valid_prefix(mm, a, 4 * 4096, PROT_WRITE_LINUX), 4096);
    assert_int_equal(mm_valid_prefix(mm, a, 4 * 4096, PROT_READ_LINUX), 4 * 4096);
    assert_int_equal(mm_valid_prefix(mm, a, 5 * 4096, PROT_READ_LINUX), 4 * 4096);
    assert_false(mm_write(mm, a + 4096 - 2, &v, 4));
    /* Unmapped holes make mprotect fail with ENOMEM. */
    assert_int_equal(mm_munmap(mm, a + 3 * 4096, 4096), 0);
    assert_int_equal(mm_mprotect(mm, a, 4 * 4096, RW), -ENOMEM_LINUX);
    assert_int_equal(mm_mprotect(mm, a + 1, 4096, RW), -EINVAL_LINUX);
    assert_int_equal(mm_mprotect(mm, a, 3 * 4096, PROT_READ_LINUX), 0);
    assert_int_equal(mm_valid_prefix(mm, a, 3 * 4096, PROT_WRITE_LINUX), 0);
    assert_int_equal(mm_munmap(mm, a, 3 * 4096), 0);
}

static void mremap_grows_moves_shrinks(void **state)
{
    (void)state;
    uint64_t a = (uint64_t)mm_mmap(mm, 0x200000, 4096, RW, ANON | MAP_FIXED_LINUX);
    uint32_t v = 7, r = 0;
    assert_true(mm_write(mm, a, &v, 4));
    /* Room above: grows in place. */
    assert_int_equal(mm_mremap(mm, a, 4096, 3 * 4096, 0, 0), (int64_t)a);
    assert_int_equal(mm_valid_prefix(mm, a, 3 * 4096, PROT_WRITE_LINUX), 3 * 4096);
    /* Blocked above: moves only with MAYMOVE, contents follow. */
    assert_int_equal(mm_mmap(mm, a + 3 * 4096, 4096, RW, ANON | MAP_FIXED_LINUX),
                     (int64_t)(a + 3 * 4096));
    assert_int_equal(mm_mremap(mm, a, 3 * 4096, 5 * 4096, 0, 0), -ENOMEM_LINUX);
    int64_t b = mm_mremap(mm, a, 3 * 4096, 5 * 4096, MREMAP_MAYMOVE_LINUX, 0);
    assert_true(b > 0 && (uint64_t)b != a);
    assert_true(mm_read(mm, (uint64_t)b, &r, 4));
    assert_int_equal(r, 7);
    assert_null(mm_find(mm, a));
    assert_int_equal(mm_mremap(mm, (uint64_t)b, 5 * 4096, 4096, 0, 0), b);
    assert_null(mm_find(mm, (uint64_t)b + 4096));
    assert_int_equal(mm_mremap(mm, 0x900000, 4096, 8192, MREMAP_MAYMOVE_LINUX, 0),
                     -EFAULT_LINUX);
    assert_int_equal(mm_munmap(mm, (uint64_t)b, 4096), 0);
    assert_int_equal(mm_munmap(mm, a + 3 * 4096, 4096), 0);
}

static void brk_grows_and_shrinks(void **state)
{
    (void)state;
    mm->brk_start = mm->brk_cur = 0x804c123;
    assert_int_equal(mm_brk(mm, 0), 0x804c123);
    assert_int_equal(mm_brk(mm, 0x8050000), 0x8050000);
    uint32_t v = 1;
    assert_true(mm_write(mm, 0x804fffc, &v, 4));
    assert_true(mm_write(mm, 0x804d000, &v, 4));
    assert_int_equal(mm_brk(mm, 0x804d000), 0x804d000);
    assert_false(mm_write(mm, 0x804e000, &v, 4));
    /* Growing into an occupied range fails: brk stays. */
    assert_int_equal(mm_mmap(mm, 0x8060000, 4096, RW, ANON | MAP_FIXED_LINUX), 0x8060000);
    assert_int_equal(mm_brk(mm, 0x8070000), 0x804d000);
    assert_int_equal(mm_brk(mm, 0x8000000), 0x804d000); /* below the start */
}

static void strings_and_iovecs(void **state)
{
    (void)state;
    uint64_t a = (uint64_t)mm_mmap(mm, 0x300000, 2 * 4096, RW, ANON | MAP_FIXED_LINUX);
    assert_true(mm_write(mm, a + 4096 - 3, "/proc", 6));
    char s[16];
    assert_int_equal(mm_read_string(mm, a + 4096 - 3, s, sizeof(s)), 0);
    assert_string_equal(s, "/proc");
    assert_int_equal(mm_read_string(mm, a + 4096 - 3, s, 3), -ENAMETOOLONG_LINUX);
    assert_int_equal(mm_read_string(mm, 0x500000, s, 3), -EFAULT_LINUX);
    /* Two pieces of different protection give two iovecs. */
    assert_int_equal(mm_mprotect(mm, a + 4096, 4096, PROT_READ_LINUX), 0);
    struct iovec iov[4];
    uint64_t covered;
    assert_int_equal(mm_iovecs(mm, a + 100, 8000, PROT_READ_LINUX, iov, 4, &covered), 2);
    assert_int_equal(covered, 8000);
    assert_int_equal(iov[0].iov_len, 4096 - 100);
    assert_int_equal(mm_iovecs(mm, a + 100, 8000, PROT_WRITE_LINUX, iov, 4, &covered), 1);
    assert_int_equal(covered, 4096 - 100);
    assert_int_equal(mm_munmap(mm, a, 2 * 4096), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(mmap_topdown_and_fixed, setup, teardown),
        cmocka_unit_test_setup_teardown(mprotect_splits_and_prefix, setup, teardown),
        cmocka_unit_test_setup_teardown(mremap_grows_moves_shrinks, setup, teardown),
        cmocka_unit_test_setup_teardown(brk_grows_and_shrinks, setup, teardown),
        cmocka_unit_test_setup_teardown(strings_and_iovecs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
