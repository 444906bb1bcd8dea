/* The ELF loader's refusals: every hostile header gets an error value,
 * never a crash, and well-formed static programs pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "loaders/elf.h"

/* A minimal ELF built in memory: header plus up to four program headers. */
struct img {
    uint8_t b[8192];
    size_t len;
    bool is64;
    unsigned nph;
};

static void put(uint8_t *p, uint64_t v, int n) { memcpy(p, &v, (size_t)n); }

static void img_init(struct img *m, bool is64, unsigned type)
{
    memset(m, 0, sizeof(*m));
    m->is64 = is64;
    memcpy(m->b, "\177ELF", 4);
    m->b[4] = is64 ? 2 : 1;
    m->b[5] = 1;
    m->b[6] = 1;
    put(m->b + 16, type, 2);
    put(m->b + 18, is64 ? 62 : 3, 2);
    put(m->b + 20, 1, 4);
    put(m->b + 24, is64 ? 0x401000 : 0x8049000, is64 ? 8 : 4);
    put(m->b + (is64 ? 32 : 28), is64 ? 64 : 52, is64 ? 8 : 4);
    put(m->b + (is64 ? 54 : 42), is64 ? 56 : 32, 2);
    m->len = sizeof(m->b);
}

static void img_ph(struct img *m, uint32_t type, uint32_t flags, uint64_t off, uint64_t vaddr,
                   uint64_t filesz, uint64_t memsz)
{
    unsigned ent = m->is64 ? 56 : 32;
    uint8_t *p = m->b + (m->is64 ? 64 : 52) + m->nph * ent;
    put(p, type, 4);
    if (m->is64) {
        put(p + 4, flags, 4);
        put(p + 8, off, 8);
        put(p + 16, vaddr, 8);
        put(p + 24, vaddr, 8);
        put(p + 32, filesz, 8);
        put(p + 40, memsz, 8);
        put(p + 48, 0x1000, 8);
    } else {
        put(p + 4, off, 4);
        put(p + 8, vaddr, 4);
        put(p + 12, vaddr, 4);
        put(p + 16, filesz, 4);
        put(p + 20, memsz, 4);
        put(p + 24, flags, 4);
        put(p + 28, 0x1000, 4);
    }
    m->nph++;
    put(m->b + (m->is64 ? 56 : 44), m->nph, 2);
}

static void expect_error(struct img *m, const char *needle)
{
    struct elf_info info;
    err_t e = elf_parse(m->b, m->len, &info);
    assert_non_null(e);
    if (!strstr(e, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", e, needle);
    err_free(e);
}

static void good_static_programs(void **state)
{
    (void)state;
    struct img m;
    struct elf_info info;
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0x400000, 0x2000, 0x2000);
    img_ph(&m, 1, 6, 0x1000, 0x403000, 0x100, 0x5000);
    assert_null(elf_parse(m.b, m.len, &info));
    assert_true(info.is64);
    assert_false(info.pie);
    assert_int_equal(info.nseg, 2);
    assert_int_equal(info.phdr_vaddr, 0x400040);
    assert_int_equal(info.lo, 0x400000);
    assert_int_equal(info.hi, 0x408000);

    img_init(&m, false, 3); /* static PIE */
    img_ph(&m, 1, 5, 0, 0, 0x1000, 0x1000);
    img_ph(&m, 0x6474e551, 6, 0, 0, 0, 0); /* PT_GNU_STACK, not executable */
    assert_null(elf_parse(m.b, m.len, &info));
    assert_false(info.is64);
    assert_true(info.pie);
    assert_false(info.exec_stack);
}

static void header_refusals(void **state)
{
    (void)state;
    struct img m;
    img_init(&m, true, 2);
    m.len = 0;
    expect_error(&m, "not an ELF");
    m.len = 3;
    expect_error(&m, "not an ELF");
    m.len = 40;
    expect_error(&m, "truncated");
    img_init(&m, true, 2);
    m.len = 60;
    expect_error(&m, "truncated ELF64");
    img_init(&m, true, 2);
    m.b[4] = 3;
    expect_error(&m, "class");
    img_init(&m, true, 2);
    m.b[5] = 2;
    expect_error(&m, "big-endian");
    img_init(&m, true, 2);
    put(m.b + 18, 183, 2); /* aarch64 */
    expect_error(&m, "only x86_64");
    img_init(&m, false, 2);
    put(m.b + 18, 62, 2);
    expect_error(&m, "x32");
    img_init(&m, true, 1);
    expect_error(&m, "relocatable");
    img_init(&m, true, 4);
    expect_error(&m, "core");
    img_init(&m, true, 2);
    put(m.b + 54, 40, 2);
    expect_error(&m, "program header entries");
    img_init(&m, true, 2);
    expect_error(&m, "no program headers");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0x400000, 0x1000, 0x1000);
    put(m.b + 32, 8190, 8);
    expect_error(&m, "outside the file");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0x400000, 0x1000, 0x1000);
    put(m.b + 56, 0xfffe, 2); /* phnum far beyond the file */
    expect_error(&m, "outside the file");
}

static void segment_refusals(void **state)
{
    (void)state;
    struct img m;
    img_init(&m, true, 2);
    img_ph(&m, 3, 4, 0, 0x400000, 0x10, 0x10);
    expect_error(&m, "only static programs run");
    img_init(&m, true, 2);
    img_ph(&m, 4, 4, 0, 0, 0, 0); /* only a note */
    expect_error(&m, "no loadable segments");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0x400000, 0x2000, 0x1000);
    expect_error(&m, "file size exceeds memory size");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0x1000, 0x400000, 0x10000, 0x10000);
    expect_error(&m, "outside the file");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0x10, 0x400000, 0x100, 0x100);
    expect_error(&m, "modulo the page size");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0x400000, 0x2000, 0x2000);
    img_ph(&m, 1, 6, 0x1000, 0x401000, 0x100, 0x100);
    expect_error(&m, "overlap");
    img_init(&m, false, 2);
    img_ph(&m, 1, 5, 0, 0xfffff000, 0x100, 0x2000);
    expect_error(&m, "outside the i386 address space");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0x7ffffffff000, 0x100, 0x2000);
    expect_error(&m, "outside the x86_64 address space");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0xfffffffffffff000, 0x100, 0x2000);
    expect_error(&m, "wraps");
    img_init(&m, true, 2);
    img_ph(&m, 1, 5, 0, 0, 0x100, 0x100); /* page zero of a fixed program */
    expect_error(&m, "outside");
}

/* Every prefix of a valid image is refused or accepted without a crash. */
static void every_truncation_is_handled(void **state)
{
    (void)state;
    struct img m;
    img_init(&m, false, 2);
    img_ph(&m, 1, 5, 0, 0x8048000, 0x1000, 0x1000);
    img_ph(&m, 1, 6, 0x1000, 0x804a000, 0x800, 0x1000);
    size_t full = 0x1800;
    for (size_t len = 0; len <= full; len++) {
        struct elf_info info;
        err_t e = elf_parse(m.b, len, &info);
        if (len < full)
            assert_non_null(e);
        else
            assert_null(e);
        err_free(e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_static_programs),
        cmocka_unit_test(header_refusals),
        cmocka_unit_test(segment_refusals),
        cmocka_unit_test(every_truncation_is_handled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
