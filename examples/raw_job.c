/* Lesson 7: a raw cpushare bytecode job.
 *
 * The cpushare client did not run ELF programs.  It received two flat
 * images, code and data, linked at fixed addresses (examples/raw/raw.ld:
 * text at 0x10000000, data at 0x20000000), put them in memory and jumped to
 * the first byte of the code with strict mode already on: there is no loader
 * to call prctl, no argv, no environment, only the descriptors the master
 * granted.  Everything the job can do is read its input, write its result
 * and exit.
 *
 *     examples/raw/build-raw.sh x86_64 examples/raw_job.c job -Iexamples
 *     echo hello | seccomp-emu --trace --raw job.text.bin,job.data.bin --arch=x86_64
 *
 * (the build makes build/examples/raw/raw_job_{i386,x86_64}.*).  The trace
 * begins "--- strict mode on before the first instruction ---"; the calls
 * come from 0x1000xxxx, the fixed text address.  The job reads its input
 * (one read), writes it back in capitals and exits 0.  A line starting with '!' makes it
 * try getpid: not one of the four calls, so the job dies of SIGKILL. */
#include "guest.h"

static char line[256];

int guest_main(void)
{
    long n = guest_read(0, line, sizeof(line)); /* one line from a pipe */
    if (n < 0)
        return 1;
    if (n > 0 && line[0] == '!')
        guest_syscall3(NR_getpid_LINUX, 0, 0, 0); /* killed: not in the list */
    for (long i = 0; i < n; i++)
        if (line[i] >= 'a' && line[i] <= 'z')
            line[i] = (char)(line[i] - 'a' + 'A');
    guest_write(1, line, (unsigned long)n);
    return 0;
}
