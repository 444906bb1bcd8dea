/* The decision rules of both profiles, the entry interfaces, and the seed
 * patch's /proc/self/seccomp parser.  No native run can check the 2.6.11
 * profile: these are the hand-written expectations for it (SPEC sections
 * 1 and 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/task.h"

static struct task *new_task(bool is64, enum profile p)
{
    static struct task *t;
    task_destroy(t);
    t = task_new_initial();
    t->profile = p;
    t->vendor = VENDOR_INTEL;
    err_t e = task_open_engine(t, is64);
    assert_null(e);
    return t;
}

/* A page of guest memory for what the calls read and write. */
static uint64_t map_page(struct task *t)
{
    uint64_t buf = 0x10000;
    assert_int_equal(mm_mmap(t->mm, buf, 4096, PROT_READ_LINUX | PROT_WRITE_LINUX,
                             MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_FIXED_LINUX),
                     (int64_t)buf);
    return buf;
}

/* The strict decision for a call number (the filters see more). */
static struct verdict check(struct task *t, enum entry e, int64_t nr)
{
    struct seccomp_data_linux sd = { .nr = (int32_t)nr };
    return seccomp_check(t, e, &sd);
}

static bool allowed(struct task *t, enum entry e, int64_t nr)
{
    struct verdict v = check(t, e, nr);
    return verdict_runs(&v);
}

static void disabled_allows_everything(void **state)
{
    (void)state;
    struct task *t = new_task(true, PROFILE_LINUX);
    assert_true(allowed(t, ENTRY_SYSCALL64, 231));
    assert_true(allowed(t, ENTRY_INT80, 9999));
}

static void modern_list_follows_entry(void **state)
{
    (void)state;
    struct task *t = new_task(true, PROFILE_LINUX);
    seccomp_enter_strict(t);
    assert_int_equal(t->mode, MODE_STRICT);
    assert_true(t->tsc_off);
    const int64_t ok64[] = { 0, 1, 60, 15 }, ok32[] = { 3, 4, 1, 119 };
    for (int i = 0; i < 4; i++) {
        assert_true(allowed(t, ENTRY_SYSCALL64, ok64[i]));
        assert_true(allowed(t, ENTRY_INT80, ok32[i]));
        assert_true(allowed(t, ENTRY_SYSENTER32, ok32[i]));
        assert_true(allowed(t, ENTRY_SYSCALL32, ok32[i]));
    }
    /* A 64-bit task on int $0x80 meets the ia32 list: 15 is chmod there. */
    struct verdict v = check(t, ENTRY_INT80, 15);
    assert_false(verdict_runs(&v));
    assert_int_equal(v.effect, SECCOMP_EFFECT_KILL_THREAD); /* do_exit(SIGKILL) */
    assert_int_equal(v.signo, SIGKILL_LINUX);
    assert_ptr_equal(v.list, &abi_ia32);
    assert_false(v.cve_2009_0835);
    assert_false(allowed(t, ENTRY_SYSCALL64, 231));
    assert_false(allowed(t, ENTRY_SYSCALL64, 157));
    assert_false(allowed(t, ENTRY_SYSCALL64, -1));
    /* x32 numbers meet the ia32 list: all fatal, read and write too. */
    v = check(t, ENTRY_SYSCALL64, 0x40000000 | 1);
    assert_false(verdict_runs(&v));
    assert_ptr_equal(v.list, &abi_ia32);
    assert_false(allowed(t, ENTRY_SYSCALL64, 0x40000000 | 0));
    assert_false(allowed(t, ENTRY_SYSCALL64, 0x40000000 | 3));
}

static void seed_list_follows_personality(void **state)
{
    (void)state;
    /* 64-bit task, int $0x80: the x86_64 list, so ia32 0, 1, 60, 15 pass. */
    struct task *t = new_task(true, PROFILE_2611);
    seccomp_enter_strict(t);
    const int64_t holes64[] = { 0, 60, 15 };
    for (int i = 0; i < 3; i++) {
        struct verdict v = check(t, ENTRY_INT80, holes64[i]);
        assert_true(verdict_runs(&v));
        assert_true(v.cve_2009_0835);
        assert_ptr_equal(v.list, &abi_x86_64);
    }
    struct verdict v = check(t, ENTRY_INT80, 1); /* exit in both */
    assert_true(verdict_runs(&v));
    assert_false(v.cve_2009_0835);
    assert_false(allowed(t, ENTRY_INT80, 4)); /* ia32 write: not in 64 list */
    assert_false(allowed(t, ENTRY_INT80, 3));

    /* 32-bit task reaching the 64-bit entry: the ia32 list, so 64-bit
     * 3, 4, 1, 119 (close, stat, write, setresgid) pass. */
    t = new_task(false, PROFILE_2611);
    seccomp_enter_strict(t);
    const int64_t holes32[] = { 3, 4, 119 };
    for (int i = 0; i < 3; i++) {
        v = check(t, ENTRY_SYSCALL64, holes32[i]);
        assert_true(verdict_runs(&v));
        assert_true(v.cve_2009_0835);
    }
    assert_false(allowed(t, ENTRY_SYSCALL64, 0));
    assert_false(allowed(t, ENTRY_SYSCALL64, 60));
    assert_true(allowed(t, ENTRY_INT80, 4));
}

static void prctl_and_seccomp_entry_errors(void **state)
{
    (void)state;
    struct task *t = new_task(true, PROFILE_LINUX);
    uint64_t get[6] = { PR_GET_SECCOMP_LINUX };
    assert_int_equal(seccomp_prctl(t, get), 0);
    /* Mode 2 is filter mode: the NULL program is copied first (measured on
     * the host; SPEC section 2 says -EINVAL, which holds for 0 and 3). */
    uint64_t filter[6] = { PR_SET_SECCOMP_LINUX, 2, 0 };
    assert_int_equal(seccomp_prctl(t, filter), -EFAULT_LINUX);
    uint64_t bad[6] = { PR_SET_SECCOMP_LINUX, 3 };
    assert_int_equal(seccomp_prctl(t, bad), -EINVAL_LINUX);
    uint64_t zero[6] = { PR_SET_SECCOMP_LINUX, 0 };
    assert_int_equal(seccomp_prctl(t, zero), -EINVAL_LINUX);
    assert_int_equal(t->mode, MODE_DISABLED);
    uint64_t sc_flags[6] = { SECCOMP_SET_MODE_STRICT_LINUX, 1, 0 };
    assert_int_equal(seccomp_syscall(t, sc_flags), -EINVAL_LINUX);
    uint64_t sc_args[6] = { SECCOMP_SET_MODE_STRICT_LINUX, 0, 0x1000 };
    assert_int_equal(seccomp_syscall(t, sc_args), -EINVAL_LINUX);
    uint64_t sc_unknown[6] = { 7, 0, 0 };
    assert_int_equal(seccomp_syscall(t, sc_unknown), -EINVAL_LINUX);
    uint64_t sc_filter[6] = { SECCOMP_SET_MODE_FILTER_LINUX, 0, 0 };
    assert_int_equal(seccomp_syscall(t, sc_filter), -EFAULT_LINUX);
    assert_int_equal(t->mode, MODE_DISABLED);
    uint64_t set[6] = { PR_SET_SECCOMP_LINUX, 1, 0xdeadbeef }; /* third arg ignored */
    assert_int_equal(seccomp_prctl(t, set), 0);
    assert_int_equal(t->mode, MODE_STRICT);
    assert_int_equal(seccomp_prctl(t, get), 1);

    t = new_task(true, PROFILE_LINUX);
    uint64_t sc_strict[6] = { SECCOMP_SET_MODE_STRICT_LINUX, 0, 0 };
    assert_int_equal(seccomp_syscall(t, sc_strict), 0);
    assert_int_equal(t->mode, MODE_STRICT);

    /* 2.6.11: neither interface exists. */
    t = new_task(true, PROFILE_2611);
    assert_int_equal(seccomp_prctl(t, set), -EINVAL_LINUX);
    assert_int_equal(seccomp_prctl(t, get), -EINVAL_LINUX);
    assert_int_equal(seccomp_syscall(t, sc_strict), -ENOSYS_LINUX);
    assert_int_equal(t->mode, MODE_DISABLED);
}

static void proc_parse_seed_rules(void **state)
{
    (void)state;
    unsigned long m;
    assert_int_equal(seccomp_proc_parse("1", 1, &m), 1);
    assert_int_equal(m, 1);
    assert_int_equal(seccomp_proc_parse("1\n", 2, &m), 2);
    assert_int_equal(seccomp_proc_parse("0x1", 3, &m), 3);
    assert_int_equal(m, 1);
    assert_int_equal(seccomp_proc_parse("01", 2, &m), 2);
    assert_int_equal(m, 1);
    assert_int_equal(seccomp_proc_parse("1xyz", 4, &m), 1);
    assert_int_equal(m, 1);
    assert_int_equal(seccomp_proc_parse("2\n", 2, &m), 2);
    assert_int_equal(m, 2);
    assert_int_equal(seccomp_proc_parse("0", 1, &m), 1);
    assert_int_equal(m, 0);
    assert_int_equal(seccomp_proc_parse("x", 1, &m), 0);
    assert_int_equal(seccomp_proc_parse("", 0, &m), 0);
    assert_int_equal(seccomp_proc_parse("\n", 1, &m), 1); /* the newline alone counts */
    assert_int_equal(m, 0);
    /* 2.6's simple_strtoul: lowercase x only; "0X1" is "0" then stop. */
    assert_int_equal(seccomp_proc_parse("0X1", 3, &m), 1);
    assert_int_equal(m, 0);
    /* At most 19 bytes are looked at. */
    const char *longs = "0000000000000000000000001";
    assert_int_equal(seccomp_proc_parse(longs, strlen(longs), &m), 19);
    assert_int_equal(m, 0);
    /* Octal 08 stops at the 8. */
    assert_int_equal(seccomp_proc_parse("08", 2, &m), 1);
    assert_int_equal(m, 0);
}

static void proc_render_has_nul(void **state)
{
    (void)state;
    char buf[24];
    assert_int_equal(seccomp_proc_render(0, buf), 3);
    assert_memory_equal(buf, "0\n\0", 3);
    assert_int_equal(seccomp_proc_render(1, buf), 3);
    assert_memory_equal(buf, "1\n\0", 3);
}

static void proc_write_and_read(void **state)
{
    (void)state;
    struct task *t = new_task(false, PROFILE_2611);
    uint64_t buf = map_page(t);
    uint64_t pos = 0;
    char out[8] = { 0 };
    assert_int_equal(seccomp_proc_read(t, &pos, buf, 8), 3);
    assert_true(mm_read(t->mm, buf, out, 3));
    assert_memory_equal(out, "0\n\0", 3);
    assert_int_equal(seccomp_proc_read(t, &pos, buf, 8), 0); /* then EOF */

    assert_true(mm_write(t->mm, buf, "", 1));
    assert_int_equal(seccomp_proc_write(t, buf, 0), -EIO_LINUX);
    assert_true(mm_write(t->mm, buf, "2\n", 2));
    assert_int_equal(seccomp_proc_write(t, buf, 2), 2); /* accepted, ignored */
    assert_int_equal(t->mode, MODE_DISABLED);
    assert_int_equal(seccomp_proc_write(t, 0x900000, 2), -EFAULT_LINUX);
    assert_true(mm_write(t->mm, buf, "1xyz", 4));
    assert_int_equal(seccomp_proc_write(t, buf, 4), 1);
    assert_int_equal(t->mode, MODE_STRICT);
    assert_int_equal(seccomp_proc_write(t, buf, 1), -EPERM_LINUX);
    pos = 0;
    assert_int_equal(seccomp_proc_read(t, &pos, buf, 2), 2); /* partial reads advance */
    assert_int_equal(seccomp_proc_read(t, &pos, buf + 2, 8), 1);
    assert_true(mm_read(t->mm, buf, out, 3));
    assert_memory_equal(out, "1\n\0", 3);
}

/* FILTER.md 4: lowest action as signed, newest (first) on ties, unknown
 * actions ranked by value and acting as KILL_PROCESS. */
static void filter_ranking(void **state)
{
    (void)state;
    const uint32_t errnos[] = { SECCOMP_RET_ERRNO_LINUX | 12, SECCOMP_RET_ERRNO_LINUX | 13,
                                SECCOMP_RET_ERRNO_LINUX | 11 };
    assert_int_equal(seccomp_rank(errnos, 3), 0);
    const uint32_t trace_errno[] = { SECCOMP_RET_ERRNO_LINUX | 7, SECCOMP_RET_TRACE_LINUX | 5 };
    assert_int_equal(seccomp_rank(trace_errno, 2), 0);
    const uint32_t kill[] = { SECCOMP_RET_ALLOW_LINUX, SECCOMP_RET_KILL_THREAD_LINUX,
                              SECCOMP_RET_KILL_PROCESS_LINUX, SECCOMP_RET_TRAP_LINUX };
    assert_int_equal(seccomp_rank(kill, 4), 2);
    const uint32_t unknown[] = { SECCOMP_RET_ERRNO_LINUX, 0x40000 };
    assert_int_equal(seccomp_rank(unknown, 2), 1);
    assert_int_equal(seccomp_action_taken_linux(0x40000)->value, SECCOMP_RET_KILL_PROCESS_LINUX);
    const uint32_t above_log[] = { SECCOMP_RET_LOG_LINUX, 0x7ffe0000 };
    assert_int_equal(seccomp_rank(above_log, 2), 0);
    assert_int_equal(seccomp_action_taken_linux(SECCOMP_RET_ERRNO_LINUX | 0xffff)->value,
                     SECCOMP_RET_ERRNO_LINUX);
}

/* The one table of actions: in the order seccomp_run_filters() ranks
 * them, each found by its value whatever its data. */
static void action_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < SECCOMP_ACTIONS_LINUX; i++) {
        const struct seccomp_action_linux *a = &seccomp_actions_linux[i];
        assert_ptr_equal(seccomp_action_linux(a->value | 0xbeef), a);
        assert_ptr_equal(seccomp_action_taken_linux(a->value), a);
        if (i > 0) {
            assert_true(seccomp_precedence_linux(seccomp_actions_linux[i - 1].value) <
                        seccomp_precedence_linux(a->value));
            uint32_t pair[2] = { a->value, seccomp_actions_linux[i - 1].value };
            assert_int_equal(seccomp_rank(pair, 2), 1);
        }
    }
    assert_null(seccomp_action_linux(0x40000));
    assert_null(seccomp_action_linux(0x7ffe0000));
}

/* A filter's verdict says what becomes of the call and what it returns,
 * as __seccomp_filter does with each action. */
static struct verdict one_filter(uint32_t ret)
{
    struct task *t = new_task(true, PROFILE_LINUX);
    struct sock_filter_linux prog = { .code = 0x06, .k = ret };
    assert_int_equal(seccomp_install_filter(t, &prog, 1, 0), 0);
    return check(t, ENTRY_SYSCALL64, 39);
}

static void filter_verdicts(void **state)
{
    (void)state;
    struct verdict v = one_filter(SECCOMP_RET_ERRNO_LINUX | 13);
    assert_int_equal(v.effect, SECCOMP_EFFECT_ERRNO);
    assert_int_equal(v.result, -13);
    v = one_filter(SECCOMP_RET_ERRNO_LINUX | 5000); /* capped at MAX_ERRNO */
    assert_int_equal(v.result, -4095);
    v = one_filter(SECCOMP_RET_TRACE_LINUX | 7); /* no tracer */
    assert_int_equal(v.effect, SECCOMP_EFFECT_TRACE);
    assert_int_equal(v.result, -ENOSYS_LINUX);
    v = one_filter(SECCOMP_RET_USER_NOTIF_LINUX); /* no listener */
    assert_int_equal(v.effect, SECCOMP_EFFECT_NOTIFY);
    assert_null(v.listener);
    assert_int_equal(v.result, -ENOSYS_LINUX);
    v = one_filter(SECCOMP_RET_TRAP_LINUX | 3);
    assert_int_equal(v.effect, SECCOMP_EFFECT_SIGNAL);
    assert_int_equal(v.signo, SIGSYS_LINUX);
    assert_int_equal(v.data, 3);
    v = one_filter(0x40000); /* unknown */
    assert_int_equal(v.effect, SECCOMP_EFFECT_KILL_PROCESS);
    assert_int_equal(v.signo, SIGSYS_LINUX);
    v = one_filter(SECCOMP_RET_KILL_THREAD_LINUX);
    assert_int_equal(v.effect, SECCOMP_EFFECT_KILL_THREAD);
    v = one_filter(SECCOMP_RET_LOG_LINUX);
    assert_true(verdict_runs(&v));
    assert_null(v.list);
}

/* SECCOMP_GET_ACTION_AVAIL knows an action by its exact value: with data
 * it is not one (seccomp_get_action_avail's switch). */
static void action_avail(void **state)
{
    (void)state;
    struct task *t = new_task(true, PROFILE_LINUX);
    uint64_t buf = map_page(t);
    const uint32_t avail[] = { SECCOMP_RET_KILL_PROCESS_LINUX, SECCOMP_RET_KILL_THREAD_LINUX,
                               SECCOMP_RET_USER_NOTIF_LINUX, SECCOMP_RET_ALLOW_LINUX };
    const uint32_t not[] = { SECCOMP_RET_ERRNO_LINUX | 1, 5, 0x40000, 0x7ffe0000 };
    uint64_t a[6] = { SECCOMP_GET_ACTION_AVAIL_LINUX, 0, buf };
    for (size_t i = 0; i < G_N_ELEMENTS(avail); i++) {
        uint32_t le = GUINT32_TO_LE(avail[i]);
        assert_true(mm_write(t->mm, buf, &le, 4));
        assert_int_equal(seccomp_syscall(t, a), 0);
        le = GUINT32_TO_LE(not[i]);
        assert_true(mm_write(t->mm, buf, &le, 4));
        assert_int_equal(seccomp_syscall(t, a), -EOPNOTSUPP_LINUX);
    }
}

/* The launcher's path: the checker, then the path limit in eBPF
 * instructions (3 x 4096 RET after a 1-instruction filter). */
static void install_filter_limits(void **state)
{
    (void)state;
    struct task *t = new_task(true, PROFILE_LINUX);
    static struct sock_filter_linux rets[4096];
    for (size_t i = 0; i < 4096; i++)
        rets[i] = (struct sock_filter_linux){ .code = 0x06, .k = SECCOMP_RET_ALLOW_LINUX };
    struct sock_filter_linux bad = { .code = 0x94, .k = 3 }; /* MOD */
    assert_int_equal(seccomp_install_filter(t, &bad, 1, 0), -EINVAL_LINUX);
    assert_int_equal(seccomp_install_filter(t, rets, 1, 0x40), -EINVAL_LINUX);
    assert_int_equal(seccomp_install_filter(t, rets, 1, 0), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(seccomp_install_filter(t, rets, 4096, 0), 0);
    assert_int_equal(seccomp_install_filter(t, rets, 4096, 0), -ENOMEM_LINUX);
    assert_int_equal(t->mode, MODE_FILTER);
    assert_int_equal(t->filters->len, 4);
    struct seccomp_data_linux sd = { .nr = 39, .arch = AUDIT_ARCH_X86_64_LINUX };
    struct verdict v = seccomp_check(t, ENTRY_SYSCALL64, &sd);
    assert_true(verdict_runs(&v));
    assert_int_equal(v.filters_run, 4);
    g_ptr_array_unref(t->filters);
    g_array_unref(t->filter_rets);
    t->filters = NULL;
    t->filter_rets = NULL;
    t->filters = NULL;
    t->filter_rets = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(disabled_allows_everything),
        cmocka_unit_test(modern_list_follows_entry),
        cmocka_unit_test(seed_list_follows_personality),
        cmocka_unit_test(prctl_and_seccomp_entry_errors),
        cmocka_unit_test(proc_parse_seed_rules),
        cmocka_unit_test(proc_render_has_nul),
        cmocka_unit_test(proc_write_and_read),
        cmocka_unit_test(filter_ranking),
        cmocka_unit_test(action_table),
        cmocka_unit_test(filter_verdicts),
        cmocka_unit_test(action_avail),
        cmocka_unit_test(install_filter_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
