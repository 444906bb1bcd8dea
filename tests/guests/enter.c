/* Entering strict mode (SPEC section 2): the error answers of prctl and
 * seccomp, printed as decimal so the diff compares them, and proof that
 * the mode really took effect (each case that enters strict ends with a
 * forbidden getpid, which must kill). */
#include "linux_sys.h"

static long prctl3(long opt, long a, long b)
{
    return sys3(NR_(prctl), opt, a, b);
}

static long seccomp3(long op, long flags, long args)
{
    return sys3(NR_(seccomp), op, flags, args);
}

static int prove_strict(void)
{
    put_str("in strict mode; now a forbidden getpid\n");
    sys3(NR_(getpid), 0, 0, 0);
    put_str("survived getpid: strict mode was not on\n");
    return 1;
}

int guest_main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    static int some_args[4];

    if (str_eq(c, "errors")) {
        put_kv("PR_GET_SECCOMP before", prctl3(PR_GET_SECCOMP_LINUX, 0, 0));
        /* 2 is SECCOMP_MODE_FILTER: the NULL filter is copied first, so
         * -EFAULT, not -EINVAL (measured; SPEC section 2 says -EINVAL). */
        put_kv("prctl(SET_SECCOMP, 2, NULL)", prctl3(PR_SET_SECCOMP_LINUX, 2, 0));
        put_kv("prctl(SET_SECCOMP, 0)", prctl3(PR_SET_SECCOMP_LINUX, 0, 0));
        put_kv("prctl(SET_SECCOMP, 3)", prctl3(PR_SET_SECCOMP_LINUX, 3, 0));
        put_kv("seccomp(STRICT, flags 1, NULL)", seccomp3(0, 1, 0));
        put_kv("seccomp(STRICT, 0, args)", seccomp3(0, 0, (long)some_args));
        put_kv("seccomp(op 7, 0, NULL)", seccomp3(7, 0, 0));
        put_kv("seccomp(FILTER, 0, NULL)", seccomp3(SECCOMP_SET_MODE_FILTER_LINUX, 0, 0));
#if defined(__x86_64__)
        /* The mode argument is an unsigned long: upper bits count. */
        put_kv("prctl(SET_SECCOMP, 0x100000001)", prctl3(PR_SET_SECCOMP_LINUX, 0x100000001L, 0));
#endif
        put_kv("PR_GET_SECCOMP after errors", prctl3(PR_GET_SECCOMP_LINUX, 0, 0));
        /* The third argument is ignored for strict mode. */
        put_kv("prctl(SET_SECCOMP, 1, 12345)", prctl3(PR_SET_SECCOMP_LINUX, 1, 12345));
        return prove_strict();
    }
    if (str_eq(c, "get_after")) {     /* prctl itself is not allowed */
        put_kv("enter strict", enter_strict());
        prctl3(PR_GET_SECCOMP_LINUX, 0, 0);
        put_str("survived PR_GET_SECCOMP\n");
        return 1;
    }
    if (str_eq(c, "set_twice")) {
        put_kv("enter strict", enter_strict());
        prctl3(PR_SET_SECCOMP_LINUX, 1, 0);
        put_str("survived second prctl\n");
        return 1;
    }
    if (str_eq(c, "seccomp")) {        /* seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL) */
        put_kv("seccomp(STRICT, 0, NULL)", seccomp3(SECCOMP_SET_MODE_STRICT_LINUX, 0, 0));
        return prove_strict();
    }
#if defined(__x86_64__)
    if (str_eq(c, "prctl_option_hi")) { /* option is an int: 0x100000016 is 22 */
        put_kv("prctl(0x100000016, 1)", prctl3(0x100000000L | PR_SET_SECCOMP_LINUX, 1, 0));
        return prove_strict();
    }
    if (str_eq(c, "seccomp_hi")) {     /* op and flags are unsigned int */
        put_kv("seccomp(0x100000000, 0x100000000, NULL)",
               seccomp3(0x100000000L, 0x100000000L, 0));
        return prove_strict();
    }
#endif
    put_str("unknown case\n");
    return 99;
}
