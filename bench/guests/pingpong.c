/* System-call-bound: COUNT round trips, each a write of SIZE bytes to fd 1
 * and a read of them back from fd 0 (the runner makes fd 1 and fd 0 the two
 * ends of one pipe or of one loopback TCP connection), or, with MODE "w",
 * only the writes (fd 1 on /dev/null).  The checksum covers every byte read
 * and goes to fd 2, since fd 1 is the channel.
 * argv: COUNT (default 200000), SIZE (default 64, at most 4096), MODE (rw|w). */
#include "bench_guest.h"

static unsigned char out[4096], in[4096];

int bench_main(int argc, char **argv)
{
    ulong count = g_atoul(argc > 1 ? argv[1] : 0, 200000);
    ulong size = g_atoul(argc > 2 ? argv[2] : 0, 64);
    int read_back = !(argc > 3 && argv[3][0] == 'w' && argv[3][1] == 0);
    if (size == 0 || size > sizeof(out))
        return 2;
    u64 sum = 0;
    for (ulong i = 0; i < count; i++) {
        for (ulong k = 0; k < size; k += 8)
            out[k] = (unsigned char)(i + k);
        if (g_write(1, out, size) != (long)size)
            return 4;
        if (!read_back) {
            sum += i;
            continue;
        }
        ulong got = 0;
        while (got < size) {
            long n = g_read(0, in + got, size - got);
            if (n <= 0)
                return 5;
            got += (ulong)n;
        }
        for (ulong k = 0; k < size; k += 8)
            sum = sum * 131 + in[k];
    }
    g_checksum(2, sum);
    return 0;
}
