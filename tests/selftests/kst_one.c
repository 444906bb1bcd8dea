/* Runs ONE test of a kselftest_harness.h program in this process, without
 * the harness's fork: seccomp-emu runs one task, and the kernel's seccomp
 * selftests fork for every test.  Compiled at test time around a fetched
 * copy of tools/testing/selftests/seccomp/seccomp_bpf.c (never committed
 * here): that file's own main is renamed, and this one calls the named
 * test's wrapper (setup, body, teardown) directly.
 *
 *   kst_one NAME        NAME: "test" or "fixture.test" or "fixture.variant.test"
 *   kst_one --list      every test name, one a line, with its expected end
 *
 * It prints "expect: exit 0" or "expect: signal N" (the test's TEST_SIGNAL)
 * first, then runs the test: exit 0 passed, 1 failed, 4 skipped, SIGABRT
 * a failed ASSERT, or death by the expected signal. */
#define main kselftest_original_main
#include "seccomp_bpf.c"
#undef main

static void full_name(char *buf, size_t n, struct __fixture_metadata *f,
                      struct __fixture_variant_metadata *v, struct __test_metadata *t)
{
    if (!strcmp(f->name, "global"))
        snprintf(buf, n, "%s", t->name);
    else
        snprintf(buf, n, "%s%s%s.%s", f->name, v->name[0] ? "." : "", v->name, t->name);
}

int main(int argc, char **argv)
{
    struct __fixture_variant_metadata no_variant = { .name = "" };
    static struct __test_results results;
    char name[512];
    if (argc != 2) {
        fprintf(stderr, "usage: kst_one NAME | --list\n");
        return 2;
    }
    for (struct __fixture_metadata *f = __fixture_list; f; f = f->next)
        for (struct __fixture_variant_metadata *v = f->variant ?: &no_variant; v; v = v->next)
            for (struct __test_metadata *t = f->tests; t; t = t->next) {
                full_name(name, sizeof(name), f, v, t);
                if (!strcmp(argv[1], "--list")) {
                    printf("%s %d\n", name, t->termsig);
                    continue;
                }
                if (strcmp(argv[1], name))
                    continue;
                printf(t->termsig == -1 ? "expect: exit 0\n" : "expect: signal %d\n",
                       t->termsig);
                fflush(stdout);
                t->results = &results;
                t->passed = 1;
                t->skip = 0;
                t->step = 1;
                t->no_print = 0;
                t->fn(t, v);
                fflush(stdout);
                fflush(stderr);
                if (t->skip)
                    _exit(4);
                _exit(t->passed ? 0 : 1);
            }
    if (!strcmp(argv[1], "--list"))
        return 0;
    fprintf(stderr, "kst_one: no test %s\n", argv[1]);
    return 2;
}
