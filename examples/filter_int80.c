/* Lesson 11: the arch check, and what int $0x80 does to a filter that
 * forgets it.
 *
 * Call numbers belong to an ABI: 39 is getpid to x86_64's `syscall`, but
 * mkdir to the ia32 entry, where getpid is 20.  A 64-bit program can use
 * the ia32 entry with `int $0x80`, and the filter then sees arch
 * AUDIT_ARCH_I386 with ia32 numbers.  A filter that denies "39" without
 * looking at arch denies x86_64 getpid, yet lets ia32 getpid (20) through:
 *
 *     seccomp-emu --trace-bpf build/examples/filter_int80           # got past
 *     seccomp-emu --trace-bpf build/examples/filter_int80 checked   # SIGSYS
 *
 * With `checked` the filter first compares arch with AUDIT_ARCH_X86_64 and
 * kills anything else, as every filter should.  (This host cannot run
 * int $0x80 from 64-bit code natively: a kernel with IA-32 emulation
 * judges this lesson.) */
#include "filter.h"

static const struct sock_filter forgets_arch[] = {
    LOAD(SD_NR),
    JEQ(39, 0, 1), /* x86_64 getpid */
    RET(SECCOMP_RET_ERRNO | 1),
    RET(SECCOMP_RET_ALLOW),
};

static const struct sock_filter checks_arch[] = {
    LOAD(SD_ARCH),
    JEQ(AUDIT_ARCH_X86_64, 1, 0),
    RET(SECCOMP_RET_KILL_PROCESS),
    LOAD(SD_NR),
    JEQ(39, 0, 1),
    RET(SECCOMP_RET_ERRNO | 1),
    RET(SECCOMP_RET_ALLOW),
};

int guest_main(void)
{
#if defined(__x86_64__)
    guest_no_new_privs();
    if (guest_streq(guest_arg1(), "checked"))
        INSTALL(checks_arch);
    else
        INSTALL(forgets_arch);
    guest_put_result("syscall getpid (39)", guest_syscall3(NR_getpid_LINUX, 0, 0, 0));
    long pid = guest_int80(NR32_getpid_LINUX, 0, 0, 0);
    guest_puts(pid > 0 ? "int $0x80 getpid (20) got past the filter\n"
                       : "int $0x80 getpid (20) was stopped\n");
    return 0;
#else
    return 4; /* the lesson is about 64-bit code */
#endif
}
