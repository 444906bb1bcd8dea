/* Start-up: one line, then exit (in strict mode, like every bench guest). */
#include "bench_guest.h"

int bench_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    g_puts(1, "hello from a strict job\n");
    g_checksum(1, 0x600d);
    return 0;
}
