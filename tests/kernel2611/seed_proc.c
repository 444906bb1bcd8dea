/* The seed patch's interface under --kernel=2.6.11, hand-checked against
 * its source (no kernel that old runs here): /proc/self/seccomp's read and
 * write rules, and prctl/seccomp(2) absent.  Built for both ABIs. */
#include "../../examples/guest.h"

#if defined(__x86_64__)
#define NR_prctl 157
#define NR_seccomp 317
#else
#define NR_prctl 172
#define NR_seccomp 354
#endif

static void say(const char *what, long v)
{
    char num[21];
    guest_puts(what);
    guest_puts("=");
    if (v < 0) {
        guest_puts("-");
        v = -v;
    }
    guest_puts(guest_utoa((unsigned long)v, num));
    guest_puts("\n");
}

int guest_main(void)
{
    say("prctl_get", guest_syscall3(NR_prctl, 21, 0, 0));
    say("prctl_set", guest_syscall3(NR_prctl, 22, 1, 0));
    say("seccomp", guest_syscall3(NR_seccomp, 0, 0, 0));
    long fd = guest_syscall3(NR_open_LINUX, (long)"/proc/self/seccomp", 2, 0);
    say("open", fd);
    char buf[8];
    say("read", guest_read((int)fd, buf, sizeof(buf)));
    say("byte0", buf[0]);
    say("byte2", buf[2]);
    say("read_eof", guest_read((int)fd, buf, sizeof(buf)));
    say("write_x", guest_write((int)fd, "x", 1));
    say("write_2", guest_write((int)fd, "2\n", 2));
    say("write_bad", guest_write((int)fd, (void *)16, 1));
    say("write_1xyz", guest_write((int)fd, "1xyz", 4));
    /* Strict now: only read, write, exit, and the mode is fixed. */
    say("write_again", guest_write((int)fd, "1", 1));
    long other = guest_syscall3(NR_open_LINUX, (long)"/proc/self/seccomp", 0, 0);
    say("not_reached", other); /* open is not allowed: killed before */
    return 0;
}
