/* CVE-2009-0835 under --kernel=2.6.11: a 64-bit task in strict mode calls
 * int $0x80, and the seed patch checks the ia32 number against the x86_64
 * list.  So ia32 15 (chmod) and 60 (umask) pass, and nothing of them
 * reaches the host (they answer -ENOSYS inside seccomp-emu); ia32 4
 * (write) does not pass, since 4 is not in the x86_64 list. */
#include "../../examples/guest.h"

static long int80(long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return r;
}

static const char path[] = "/tmp/seccomp-emu-cve-probe";

int guest_main(void)
{
    long fd = guest_syscall3(NR_open_LINUX, (long)"/proc/self/seccomp", 1, 0);
    if (guest_write((int)fd, "1", 1) != 1)
        return 2;
    char num[21];
    long r = int80(15, (long)path, 0777, 0); /* chmod: passes the check */
    guest_puts("chmod=-");
    guest_puts(guest_utoa((unsigned long)-r, num));
    guest_puts("\n");
    r = int80(60, 0, 0, 0); /* umask */
    guest_puts("umask=-");
    guest_puts(guest_utoa((unsigned long)-r, num));
    guest_puts("\n");
    int80(4, 1, (long)"not reached\n", 12); /* ia32 write: killed */
    return 0;
}
