/* Large working set, random access: a table of MiB (16, 64 or 256) is
 * filled in order, then OPS random 32-bit read-modify-writes (scatter) each
 * followed by a random read (gather), the indices from an LCG's high bits,
 * so nearly every access lands on a different page than the last.  Every
 * page of the table is touched; what a cache or a software TLB sized for
 * a few MiB does with this is what the job measures.
 * argv: MIB (a power of two, at most 256; default 16), OPS in millions
 * (default 4). */
#include "bench_guest.h"

#define MAX_MIB 256

static u32 table[MAX_MIB << 18];

int bench_main(int argc, char **argv)
{
    ulong mib = g_atoul(argc > 1 ? argv[1] : 0, 16);
    ulong ops = g_atoul(argc > 2 ? argv[2] : 0, 4) * 1000000ul;
    if (mib == 0 || mib > MAX_MIB || (mib & (mib - 1))) {
        g_puts(2, "scatter: MIB must be a power of two up to 256\n");
        return 2;
    }
    ulong entries = mib << 18;
    unsigned shift = 32;
    for (ulong e = entries; e > 1; e >>= 1)
        shift--;
    for (ulong i = 0; i < entries; i++)
        table[i] = (u32)i * 2654435761u;
    u32 x = 12345, y = 67890;
    u64 sum = 0;
    for (ulong i = 0; i < ops; i++) {
        x = x * 1664525u + 1013904223u;
        y = y * 22695477u + 1u;
        table[x >> shift] += x ^ (u32)i;
        sum += table[y >> shift];
    }
    for (ulong i = 0; i < entries; i += 61)
        sum = sum * 33 + table[i];
    g_checksum(1, sum);
    return 0;
}
