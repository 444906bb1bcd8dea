/* Lesson 8: argument checks.
 *
 * A filter sees the call's six arguments as 64-bit values, but classic BPF
 * loads 32 bits at a time: args[i] is two loads, the low half at
 * 16 + 8i and the high half 4 bytes further.  This filter lets write
 * through only for descriptor 1 and answers EBADF (9) otherwise.
 *
 *     seccomp-emu --trace-bpf build/examples/filter_args64
 *     seccomp-emu --trace-bpf build/examples/filter_args64 lowonly
 *
 * The kernel reads write's fd as an int: the low 32 bits.  A 64-bit
 * program that passes 0x100000001 writes to descriptor 1.  The filter that
 * checks both halves refuses it; with `lowonly` the filter checks the low
 * half only, as if fd were 32 bits, and the write goes through: that call
 * the filter meant to judge is not the one the kernel makes. */
#include "filter.h"

#define EBADF 9

static const struct sock_filter both_halves[] = {
    LOAD(SD_ARCH),
    JEQ(AUDIT_ARCH_NATIVE, 1, 0),
    RET(SECCOMP_RET_KILL_PROCESS),
    LOAD(SD_NR),
    JEQ(NR_write_LINUX, 0, 5),
    LOAD(SD_ARG_HI(0)),
    JEQ(0, 0, 2),
    LOAD(SD_ARG_LO(0)),
    JEQ(1, 1, 0),
    RET(SECCOMP_RET_ERRNO | EBADF),
    RET(SECCOMP_RET_ALLOW),
};

static const struct sock_filter low_only[] = {
    LOAD(SD_ARCH),
    JEQ(AUDIT_ARCH_NATIVE, 1, 0),
    RET(SECCOMP_RET_KILL_PROCESS),
    LOAD(SD_NR),
    JEQ(NR_write_LINUX, 0, 3),
    LOAD(SD_ARG_LO(0)),
    JEQ(1, 1, 0),
    RET(SECCOMP_RET_ERRNO | EBADF),
    RET(SECCOMP_RET_ALLOW),
};

static const char msg[] = "fd 0x100000001 reached descriptor 1\n";

int guest_main(void)
{
    guest_no_new_privs();
    if (guest_streq(guest_arg1(), "lowonly"))
        guest_put_result("install (low half only)", INSTALL(low_only));
    else
        guest_put_result("install (both halves)", INSTALL(both_halves));
    guest_put_result("write(2, ...)", guest_syscall3(NR_write_LINUX, 2, (long)msg, 3));
#if defined(__x86_64__)
    long r = guest_syscall3(NR_write_LINUX, 0x100000001L, (long)msg, sizeof(msg) - 1);
    guest_put_result("write(0x100000001, ...)", r);
#endif
    return 0;
}
