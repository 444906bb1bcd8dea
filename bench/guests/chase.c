/* Large working set, dependent loads: a pointer chase through a random
 * cyclic permutation (Sattolo's algorithm) of MiB / 4 32-bit indices, so
 * every load's address comes from the load before it and no prefetcher,
 * native or emulated, can run ahead.  Building the permutation is itself
 * a random scatter over the whole table.
 * argv: MIB (at most 64; default 64), STEPS in millions (default 4). */
#include "bench_guest.h"

#define MAX_MIB 64

static u32 next[MAX_MIB << 18];

int bench_main(int argc, char **argv)
{
    ulong mib = g_atoul(argc > 1 ? argv[1] : 0, 64);
    ulong steps = g_atoul(argc > 2 ? argv[2] : 0, 4) * 1000000ul;
    if (mib == 0 || mib > MAX_MIB) {
        g_puts(2, "chase: MIB must be 1 to 64\n");
        return 2;
    }
    u32 entries = (u32)(mib << 18);
    for (u32 i = 0; i < entries; i++)
        next[i] = i;
    u32 x = 2463534242u;
    for (u32 i = entries - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        u32 j = (u32)(((u64)x * i) >> 32); /* j < i: one cycle through all */
        u32 t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    u64 sum = 0;
    u32 p = 0;
    for (ulong s = 0; s < steps; s++) {
        p = next[p];
        sum += p;
    }
    g_checksum(1, sum * 31 + p);
    return 0;
}
