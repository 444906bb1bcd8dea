/* The per-ABI tables: strict lists, numbers, and the generated names agree
 * with the kernel's syscall_64.tbl / syscall_32.tbl. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/abi.h"
#include "emu/sys/sys.h"

static void strict_lists_are_linux_mode1(void **state)
{
    (void)state;
    const int want64[] = { 0, 1, 60, 15 }, want32[] = { 3, 4, 1, 119 };
    assert_int_equal(abi_x86_64.nstrict, 4);
    assert_int_equal(abi_ia32.nstrict, 4);
    for (int i = 0; i < 4; i++) {
        assert_true(abi_in_strict_list(&abi_x86_64, want64[i]));
        assert_true(abi_in_strict_list(&abi_ia32, want32[i]));
    }
    /* exit_group and the "other" sigreturn are not in either list. */
    assert_false(abi_in_strict_list(&abi_x86_64, 231));
    assert_false(abi_in_strict_list(&abi_ia32, 252));
    assert_false(abi_in_strict_list(&abi_ia32, 173));
    assert_false(abi_in_strict_list(&abi_x86_64, -1));
    assert_false(abi_in_strict_list(&abi_x86_64, 0x40000001));
}

static void strict_names_match_numbers(void **state)
{
    (void)state;
    static const char *const n64[] = { "read", "write", "exit", "rt_sigreturn" };
    static const char *const n32[] = { "read", "write", "exit", "sigreturn" };
    for (int i = 0; i < 4; i++) {
        assert_string_equal(abi_call_name(&abi_x86_64, abi_x86_64.strict[i]), n64[i]);
        assert_string_equal(abi_call_name(&abi_ia32, abi_ia32.strict[i]), n32[i]);
    }
    g_autofree char *text64 = abi_strict_text(&abi_x86_64);
    g_autofree char *text32 = abi_strict_text(&abi_ia32);
    assert_string_equal(text64, "{read, write, exit, rt_sigreturn}");
    assert_string_equal(text32, "{read, write, exit, sigreturn}");
}

/* Every emulated call sits at its own number and carries the kernel's name
 * for it (modulo the compat spellings listed). */
static void dispatch_entries_are_consistent(void **state)
{
    (void)state;
    const struct abi *abis[] = { &abi_x86_64, &abi_ia32 };
    for (int k = 0; k < 2; k++) {
        const struct abi *a = abis[k];
        int seen = 0;
        for (size_t nr = 0; nr < 1000; nr++) {
            const struct syscall_desc *d = sys_lookup(a, (int64_t)nr);
            if (!d)
                continue;
            seen++;
            assert_int_equal(d->nr, (int)nr);
            assert_non_null(abi_call_name(a, (int64_t)nr));
            assert_string_equal(d->name, abi_call_name(a, (int64_t)nr));
            assert_int_equal(strlen(d->fmt), d->arity);
            assert_true(d->arity <= 6);
        }
        assert_true(seen > 40);
        assert_null(sys_lookup(a, -1));
        assert_null(sys_lookup(a, 100000));
    }
}

static void well_known_numbers(void **state)
{
    (void)state;
    assert_string_equal(abi_call_name(&abi_x86_64, 157), "prctl");
    assert_string_equal(abi_call_name(&abi_x86_64, 317), "seccomp");
    assert_string_equal(abi_call_name(&abi_x86_64, 231), "exit_group");
    assert_string_equal(abi_call_name(&abi_ia32, 172), "prctl");
    assert_string_equal(abi_call_name(&abi_ia32, 354), "seccomp");
    assert_string_equal(abi_call_name(&abi_ia32, 252), "exit_group");
    /* The CVE-2009-0835 pairs: same numbers, different calls. */
    assert_string_equal(abi_call_name(&abi_ia32, 15), "chmod");
    assert_string_equal(abi_call_name(&abi_x86_64, 15), "rt_sigreturn");
    assert_string_equal(abi_call_name(&abi_x86_64, 3), "close");
    assert_string_equal(abi_call_name(&abi_ia32, 3), "read");
    assert_ptr_equal(abi_for_entry(ENTRY_SYSCALL64), &abi_x86_64);
    assert_ptr_equal(abi_for_entry(ENTRY_INT80), &abi_ia32);
    assert_ptr_equal(abi_for_entry(ENTRY_SYSENTER32), &abi_ia32);
    assert_ptr_equal(abi_for_entry(ENTRY_SYSCALL32), &abi_ia32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strict_lists_are_linux_mode1),
        cmocka_unit_test(strict_names_match_numbers),
        cmocka_unit_test(dispatch_entries_are_consistent),
        cmocka_unit_test(well_known_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
