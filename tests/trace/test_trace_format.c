/* The trace's decoding, against what strace prints for the same calls:
 * quoting and truncation of buffers, flags and constants by name, errno
 * names, and JSON string escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/errno_names.h"
#include "emu/kernel/task.h"
#include "emu/trace/trace_format.h"

static struct task task;

static char *quote(const char *s, size_t n, bool truncated)
{
    GString *o = g_string_new(NULL);
    trace_quote(o, (const uint8_t *)s, n, truncated);
    return g_string_free(o, FALSE);
}

static void quoting_is_strace_s(void **state)
{
    (void)state;
    char *q = quote("hi\n\t\"\\", 6, false);
    assert_string_equal(q, "\"hi\\n\\t\\\"\\\\\"");
    g_free(q);
    /* Octal escapes are short unless a digit follows. */
    q = quote("\0a\0" "1\033", 5, false);
    assert_string_equal(q, "\"\\0a\\0001\\33\"");
    g_free(q);
    q = quote("\xff\x7f", 2, true);
    assert_string_equal(q, "\"\\377\\177\"...");
    g_free(q);
}

static char *json(const char *s)
{
    GString *o = g_string_new(NULL);
    trace_json_string(o, s);
    return g_string_free(o, FALSE);
}

static void json_strings_are_escaped_and_valid(void **state)
{
    (void)state;
    char *j = json("a\"b\\c\n\x01");
    assert_string_equal(j, "\"a\\\"b\\\\c\\u000a\\u0001\"");
    g_free(j);
    j = json("\xff");
    assert_true(g_utf8_validate(j, -1, NULL)); /* replaced, not passed through */
    g_free(j);
}

/* Decode a call that reads no guest memory. */
static char *decode6(const struct abi *abi, int64_t nr, const uint64_t a[6], bool returned,
                     int64_t result)
{
    struct trace_call c;
    trace_decode_call(&task, abi, nr, a, returned, result, &c);
    GString *o = g_string_new(NULL);
    trace_call_text(o, &c);
    if (c.result)
        g_string_append_printf(o, " = %s", c.result);
    trace_call_clear(&c);
    return g_string_free(o, FALSE);
}

static char *decode(const struct abi *abi, int64_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
                    uint64_t a3, bool returned, int64_t result)
{
    const uint64_t a[6] = { a0, a1, a2, a3, 0, 0 };
    return decode6(abi, nr, a, returned, result);
}

static void expect_decode(const char *want, char *got)
{
    assert_string_equal(got, want);
    g_free(got);
}

static void constants_and_flags_by_name(void **state)
{
    (void)state;
    expect_decode("prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) = 0",
                  decode(&abi_x86_64, 157, 22, 1, 0, 0, true, 0));
    expect_decode("prctl(PR_GET_SECCOMP) = 0", decode(&abi_ia32, 172, 21, 0, 0, 0, true, 0));
    expect_decode("prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) = -1 EINVAL (Invalid argument)",
                  decode(&abi_x86_64, 157, 22, 2, 0, 0, true, -22));
    expect_decode("prctl(PR_SET_SECCOMP, 7) = -1 EINVAL (Invalid argument)",
                  decode(&abi_x86_64, 157, 22, 7, 0, 0, true, -22));
    expect_decode("prctl(1234, 0x1, 0x2, 0x3, 0) = -1 EINVAL (Invalid argument)",
                  decode(&abi_x86_64, 157, 1234, 1, 2, 3, true, -22));
    expect_decode("seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL) = 0",
                  decode(&abi_ia32, 354, 0, 0, 0, 0, true, 0));
    expect_decode("fcntl(1, F_GETFL, 0) = 2", decode(&abi_x86_64, 72, 1, 3, 0, 0, true, 2));
    expect_decode("ioctl(1, TCGETS, 0x7ffe0000) = -1 ENOTTY (Inappropriate ioctl for device)",
                  decode(&abi_x86_64, 16, 1, 0x5401, 0x7ffe0000, 0, true, -25));
    expect_decode("prlimit64(0, RLIMIT_STACK, NULL, 0x7ffe0000) = 0",
                  decode(&abi_x86_64, 302, 0, 3, 0, 0x7ffe0000, true, 0));
}

static void mmap_and_friends(void **state)
{
    (void)state;
    const uint64_t anon[6] = { 0, 8192, 3, 0x22, (uint64_t)-1, 0 };
    expect_decode("mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000",
                  decode6(&abi_x86_64, 9, anon, true, 0x7f0000));
    const uint64_t odd[6] = { 0x10000, 4096, 0, 0x100013, 3, 0x1000 };
    expect_decode("mmap2(0x10000, 4096, PROT_NONE, MAP_SHARED_VALIDATE|MAP_FIXED|MAP_FIXED_NOREPLACE, 3, "
                  "0x1000) = -1 EEXIST (File exists)",
                  decode6(&abi_ia32, 192, odd, true, -17));
    expect_decode("mprotect(0x4a0000, 16384, PROT_READ|PROT_EXEC|0x8) = 0",
                  decode(&abi_x86_64, 10, 0x4a0000, 16384, 0xd, 0, true, 0));
    expect_decode("madvise(0x1000, 4096, MADV_DONTNEED) = 0",
                  decode(&abi_ia32, 219, 0x1000, 4096, 4, 0, true, 0));
}

static void results_and_errnos(void **state)
{
    (void)state;
    expect_decode("close(99) = -1 EBADF (Bad file descriptor)",
                  decode(&abi_x86_64, 3, 99, 0, 0, 0, true, -9));
    expect_decode("exit_group(0)", decode(&abi_ia32, 252, 0, 0, 0, 0, false, 0));
    expect_decode("lseek(3, -1, SEEK_END) = 5", decode(&abi_x86_64, 8, 3, (uint64_t)-1, 2, 0, true, 5));
    /* On ia32 the same registers hold 32-bit values. */
    expect_decode("lseek(3, -1, SEEK_CUR) = 5", decode(&abi_ia32, 19, 3, 0xffffffffu, 1, 0, true, 5));
    expect_decode("brk(NULL) = 0x804c000", decode(&abi_ia32, 45, 0, 0, 0, 0, true, 0x804c000));
    expect_decode("arch_prctl(ARCH_SET_FS, 0x4ac380) = 0",
                  decode(&abi_x86_64, 158, 0x1002, 0x4ac380, 0, 0, true, 0));
    expect_decode("clock_gettime(CLOCK_MONOTONIC, NULL) = -1 EFAULT (Bad address)",
                  decode(&abi_x86_64, 228, 1, 0, 0, 0, true, -14));
    expect_decode("getpid() = -1 (errno 4000)", decode(&abi_x86_64, 39, 0, 0, 0, 0, true, -4000));
    /* Calls not emulated: a known name keeps its arguments, an unknown
     * number shows six registers. */
    expect_decode("umask(022) = -1 ENOSYS (Function not implemented)",
                  decode(&abi_ia32, 60, 022, 0, 0, 0, true, -38));
    expect_decode("syscall_0x40000001(0x1, 0x2, 0x3, 0x4, 0, 0) = -1 ENOSYS (Function not implemented)",
                  decode(&abi_x86_64, 0x40000001, 1, 2, 3, 4, true, -38));
}

static void errno_table_is_linux(void **state)
{
    (void)state;
    assert_string_equal(errno_name_linux(9)->name, "EBADF");
    assert_string_equal(errno_name_linux(11)->name, "EAGAIN");  /* not EWOULDBLOCK */
    assert_string_equal(errno_name_linux(35)->name, "EDEADLK"); /* not EDEADLOCK */
    assert_string_equal(errno_name_linux(38)->message, "Function not implemented");
    assert_null(errno_name_linux(0));
    assert_null(errno_name_linux(-1));
    assert_null(errno_name_linux(4000));
}

static void si_codes(void **state)
{
    (void)state;
    assert_string_equal(trace_si_code_name(11, 1), "SEGV_MAPERR");
    assert_string_equal(trace_si_code_name(4, 2), "ILL_ILLOPN");
    assert_string_equal(trace_si_code_name(11, 0x80), "SI_KERNEL");
    assert_string_equal(trace_si_code_name(13, 0), "SI_USER");
    assert_null(trace_si_code_name(11, 77));
}

int main(void)
{
    task.mm = mm_new(TASK_SIZE_64_LINUX);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quoting_is_strace_s),
        cmocka_unit_test(json_strings_are_escaped_and_valid),
        cmocka_unit_test(constants_and_flags_by_name),
        cmocka_unit_test(mmap_and_friends),
        cmocka_unit_test(results_and_errnos),
        cmocka_unit_test(errno_table_is_linux),
        cmocka_unit_test(si_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
