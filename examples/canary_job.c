/* The grid's canary (scripts/grid-net.sh, grid/submit/quorum.py): a job
 * whose answer differs between a native run and a run inside seccomp-emu,
 * sent to a worker to find out whether it really runs jobs in seccomp-emu.
 * It reads a nonce line from descriptor 0 (so that no two canaries have the
 * same answer and a worker cannot replay one), reports "canary NONCE:
 * HASH" (64-bit FNV-1a of the nonce, in hex), then asks for its process
 * id.  In strict mode getpid is not in the list: the job dies of SIGKILL
 * after the first line.  Run natively, or anywhere without strict mode, it
 * prints a second line and exits 0. */
#include "guest.h"

#define MAX_NONCE 64

int guest_main(void)
{
    char nonce[MAX_NONCE + 1];
    unsigned long n = 0;
    char c;
    while (n < MAX_NONCE && guest_read(0, &c, 1) == 1 && c != '\n')
        nonce[n++] = c;
    nonce[n] = 0;
    unsigned long long hash = 0xcbf29ce484222325ull;
    for (unsigned long i = 0; i < n; i++) {
        hash ^= (unsigned char)nonce[i];
        hash *= 0x100000001b3ull;
    }
    char line[MAX_NONCE + 40];
    unsigned long len = 0;
    for (const char *p = "canary "; *p; p++)
        line[len++] = *p;
    for (unsigned long i = 0; i < n; i++)
        line[len++] = nonce[i];
    line[len++] = ':';
    line[len++] = ' ';
    for (int shift = 60; shift >= 0; shift -= 4)
        line[len++] = "0123456789abcdef"[(hash >> shift) & 0xf];
    line[len++] = '\n';
    guest_write(1, line, len);
    long pid = guest_syscall3(NR_getpid_LINUX, 0, 0, 0);
    /* Not reached in strict mode. */
    guest_put_result("canary: getpid answered", pid > 0 ? 1 : pid);
    return 0;
}
