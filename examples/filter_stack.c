/* Lesson 10: stacked filters and their ranking.
 *
 * Filters stack: each prctl adds one, none can be removed, and every call
 * runs all of them, newest first.  The verdict is the value whose action
 * ranks lowest, compared as a signed 32-bit number: KILL_PROCESS
 * (0x80000000) < KILL_THREAD (0) < TRAP < ERRNO < USER_NOTIF < TRACE < LOG
 * < ALLOW.  On a tie the newest filter's value wins, data included.
 *
 *     seccomp-emu --trace build/examples/filter_stack64        # -12, -7
 *     seccomp-emu --trace build/examples/filter_stack64 kill   # SIGSYS
 *
 * getpid meets ERRNO(11), ERRNO(13), ERRNO(12) installed in that order:
 * all ERRNO, so the newest, 12, wins.  getppid meets an older TRACE(5) and
 * a newer ERRNO(7): ERRNO ranks lower and wins (and TRACE with no tracer
 * would have answered ENOSYS).  With `kill` the oldest filter kills getpid:
 * KILL_PROCESS outranks every newer ERRNO. */
#include "filter.h"

#define ONE_CALL(name, nr, ret)                                                                   \
    static const struct sock_filter name[] = {                                                    \
        LOAD(SD_ARCH), JEQ(AUDIT_ARCH_NATIVE, 1, 0), RET(SECCOMP_RET_KILL_PROCESS),               \
        LOAD(SD_NR),   JEQ(nr, 0, 1),                 RET(ret),                                   \
        RET(SECCOMP_RET_ALLOW),                                                                   \
    }

ONE_CALL(kill_getpid, NR_getpid_LINUX, SECCOMP_RET_KILL_PROCESS);
ONE_CALL(errno11, NR_getpid_LINUX, SECCOMP_RET_ERRNO | 11);
ONE_CALL(errno13, NR_getpid_LINUX, SECCOMP_RET_ERRNO | 13);
ONE_CALL(errno12, NR_getpid_LINUX, SECCOMP_RET_ERRNO | 12);
ONE_CALL(trace5, NR_getppid_LINUX, SECCOMP_RET_TRACE | 5);
ONE_CALL(errno7, NR_getppid_LINUX, SECCOMP_RET_ERRNO | 7);

int guest_main(void)
{
    guest_no_new_privs();
    if (guest_streq(guest_arg1(), "kill"))
        INSTALL(kill_getpid);
    INSTALL(errno11);
    INSTALL(errno13);
    INSTALL(errno12);
    INSTALL(trace5);
    INSTALL(errno7);
    guest_put_result("getpid", guest_syscall3(NR_getpid_LINUX, 0, 0, 0));
    guest_put_result("getppid", guest_syscall3(NR_getppid_LINUX, 0, 0, 0));
    return 0;
}
