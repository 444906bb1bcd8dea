/* The raw loader's refusals: empty, oversized, misplaced, overlapping and
 * wrongly entered images get an error value; good layouts are planned at
 * the documented addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/linux.h"
#include "loaders/raw.h"

static struct raw_request req(bool is64)
{
    return (struct raw_request){ .is64 = is64, .text_addr = RAW_TEXT_ADDR,
                                 .data_addr = RAW_DATA_ADDR, .stack_size = RAW_STACK_SIZE };
}

static void plan_fails(const struct raw_request *rq, uint64_t tlen, uint64_t dlen,
                       const char *needle)
{
    struct raw_layout l;
    err_t e = raw_plan(rq, tlen, dlen, &l);
    if (!e)
        fail_msg("accepted text %llu data %llu (needed \"%s\")", (unsigned long long)tlen,
                 (unsigned long long)dlen, needle);
    if (!strstr(e, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", e, needle);
    err_free(e);
}

static void defaults(void **state)
{
    (void)state;
    for (int is64 = 0; is64 <= 1; is64++) {
        struct raw_request rq = req(is64);
        struct raw_layout l;
        assert_null(raw_plan(&rq, 846, 200001, &l));
        assert_int_equal(l.text_addr, 0x10000000);
        assert_int_equal(l.data_addr, 0x20000000);
        assert_int_equal(l.entry, 0x10000000);
        assert_int_equal(l.text_len, 846);
        assert_int_equal(l.data_len, 200001);
        uint64_t top = is64 ? TASK_SIZE_64_LINUX : TASK_SIZE_IA32_LINUX;
        assert_int_equal(l.stack_hi, top);
        assert_int_equal(l.stack_lo, top - RAW_STACK_SIZE);
        /* 16-byte aligned, with the zero words of an empty argv above it */
        assert_int_equal(l.sp % 16, 0);
        assert_true(l.sp < l.stack_hi && l.sp >= l.stack_hi - 64);
        /* No data image: nothing mapped for it. */
        assert_null(raw_plan(&rq, 1, 0, &l));
        assert_int_equal(l.data_len, 0);
    }
}

static void hostile_sizes(void **state)
{
    (void)state;
    struct raw_request rq = req(true);
    plan_fails(&rq, 0, 0, "text image is empty");
    plan_fails(&rq, 0, 100, "text image is empty");
    plan_fails(&rq, RAW_IMAGE_MAX + 1, 0, "more than the 256 MiB");
    plan_fails(&rq, 1, RAW_IMAGE_MAX + 1, "data image");
    plan_fails(&rq, UINT64_MAX, 0, "more than");
    /* The gap the defaults leave is exactly the largest image. */
    struct raw_layout l;
    assert_null(raw_plan(&rq, RAW_DATA_ADDR - RAW_TEXT_ADDR, 1, &l));
    assert_int_equal(RAW_DATA_ADDR - RAW_TEXT_ADDR, RAW_IMAGE_MAX);
    /* A smaller gap: filling it fits, one byte more overlaps. */
    rq.data_addr = RAW_TEXT_ADDR + 0x100000;
    assert_null(raw_plan(&rq, 0x100000, 1, &l));
    plan_fails(&rq, 0x100001, 1, "overlap");
    rq = req(true);
    rq.stack_size = 0;
    plan_fails(&rq, 1, 0, "stack");
    rq.stack_size = RAW_STACK_MAX + 1;
    plan_fails(&rq, 1, 0, "stack");
}

static void hostile_addresses(void **state)
{
    (void)state;
    struct raw_request rq = req(false);
    rq.text_addr = 0x10000001;
    plan_fails(&rq, 1, 0, "not page aligned");
    rq = req(false);
    rq.data_addr = 0x20000800;
    plan_fails(&rq, 1, 1, "not page aligned");
    rq = req(false);
    rq.text_addr = 0; /* the zero page: never mappable */
    plan_fails(&rq, 1, 0, "outside the i386 address space");
    rq.text_addr = 0xf000;
    plan_fails(&rq, 1, 0, "outside");
    rq.text_addr = 0x100000000ull; /* above 4 GiB for an i386 job */
    plan_fails(&rq, 1, 0, "outside the i386 address space");
    rq.text_addr = 0xfffff000ull; /* seccomp-emu's own page */
    plan_fails(&rq, 1, 0, "outside");
    rq.text_addr = UINT64_MAX & ~0xfffull; /* wraps */
    plan_fails(&rq, 0x2000, 0, "outside");
    rq = req(false);
    rq.text_addr = TASK_SIZE_IA32_LINUX - 0x1000; /* inside the stack */
    plan_fails(&rq, 1, 0, "overlaps the stack");
    rq = req(false);
    rq.stack_size = RAW_STACK_MAX;
    rq.data_addr = TASK_SIZE_IA32_LINUX - RAW_STACK_MAX - 0x1000;
    struct raw_layout l;
    assert_null(raw_plan(&rq, 1, 0x1000, &l)); /* right below the stack */
    plan_fails(&rq, 1, 0x1001, "overlaps the stack");
    /* Text and data on the same page, or data inside the text. */
    rq = req(true);
    rq.data_addr = RAW_TEXT_ADDR;
    plan_fails(&rq, 100, 100, "overlap");
    rq.data_addr = RAW_TEXT_ADDR + 0x1000;
    plan_fails(&rq, 0x1001, 100, "overlap");
    assert_null(raw_plan(&rq, 0x1000, 100, &l));
    /* Data below text is fine if they do not meet. */
    rq = req(true);
    rq.text_addr = RAW_DATA_ADDR;
    rq.data_addr = RAW_TEXT_ADDR;
    assert_null(raw_plan(&rq, 100, 100, &l));
    /* x86_64 addresses above 4 GiB are user space. */
    rq = req(true);
    rq.text_addr = 0x7f0000000000ull;
    assert_null(raw_plan(&rq, 100, 0, &l));
    rq.text_addr = TASK_SIZE_64_LINUX;
    plan_fails(&rq, 100, 0, "outside the x86_64 address space");
}

static void entry_point(void **state)
{
    (void)state;
    struct raw_request rq = req(true);
    struct raw_layout l;
    rq.entry_set = true;
    rq.entry = RAW_TEXT_ADDR + 99;
    assert_null(raw_plan(&rq, 100, 0, &l));
    assert_int_equal(l.entry, RAW_TEXT_ADDR + 99);
    rq.entry = RAW_TEXT_ADDR + 100; /* one past the image, still on its page */
    plan_fails(&rq, 100, 0, "outside the text");
    rq.entry = RAW_TEXT_ADDR - 1;
    plan_fails(&rq, 100, 0, "outside the text");
    rq.entry = RAW_DATA_ADDR; /* data is not executable */
    plan_fails(&rq, 100, 100, "outside the text");
    rq.entry = 0;
    plan_fails(&rq, 100, 0, "outside the text");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(hostile_sizes),
        cmocka_unit_test(hostile_addresses),
        cmocka_unit_test(entry_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
