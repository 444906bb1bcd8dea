/* Lesson 7: a first seccomp filter.
 *
 * Filter mode replaces strict mode's fixed list with a program: classic
 * BPF that the kernel runs on every system call, reading a struct
 * seccomp_data (the call's number, the ABI's arch, its arguments) and
 * returning an action.  This one checks the arch first (lesson 11 shows
 * why), answers getpid with ERRNO(1), and allows everything else.
 *
 *     seccomp-emu --trace-bpf build/examples/filter_first64
 *     seccomp-emu-bpf --run=getpid FILE   (the same program, from a file)
 *
 * A process may install a filter only with no_new_privs set or with
 * CAP_SYS_ADMIN: with `nonnp` the program skips no_new_privs, and prctl
 * answers -13, EACCES, before the filter is even looked at, unless the
 * program runs as root (seccomp-emu answers as the kernel would for the
 * user who runs it). */
#include "filter.h"

static const struct sock_filter first[] = {
    LOAD(SD_ARCH),
    JEQ(AUDIT_ARCH_NATIVE, 1, 0),
    RET(SECCOMP_RET_KILL_PROCESS),
    LOAD(SD_NR),
    JEQ(NR_getpid_LINUX, 0, 1),
    RET(SECCOMP_RET_ERRNO | 1),
    RET(SECCOMP_RET_ALLOW),
};

int guest_main(void)
{
    if (guest_streq(guest_arg1(), "nonnp")) {
        guest_put_result("install without no_new_privs", INSTALL(first));
        return 0;
    }
    guest_put_result("prctl(PR_SET_NO_NEW_PRIVS, 1)", guest_no_new_privs());
    guest_put_result("prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)", INSTALL(first));
    guest_put_result("getpid", guest_syscall3(NR_getpid_LINUX, 0, 0, 0));
    guest_puts("write still works\n");
    return 0;
}
