/* The seed's malicious job: it computes a little, reports, then tries to
 * reach beyond its descriptors by opening a file.  In strict mode open is
 * not in the list: the call never happens and the job dies of SIGKILL. */
#include "guest.h"

int guest_main(void)
{
    guest_puts("malicious job: now trying to open /etc/passwd\n");
    long fd = guest_syscall3(NR_open_LINUX, (long)"/etc/passwd", 0, 0);
    /* Not reached in strict mode. */
    guest_puts(fd >= 0 ? "malicious job: opened it!\n" : "malicious job: open failed\n");
    return 3;
}
