/* Store-heavy integer kernel: a byte sieve of Eratosthenes (strided byte
 * stores) followed by a scatter of 32-bit stores driven by an LCG, over
 * arrays larger than L1, repeated ROUNDS times.
 * argv: ROUNDS (default 8). */
#include "bench_guest.h"

#define SIEVE 1000000
#define SCATTER (1u << 16)

static unsigned char composite[SIEVE];
static u32 table[SCATTER];

int bench_main(int argc, char **argv)
{
    ulong rounds = g_atoul(argc > 1 ? argv[1] : 0, 8);
    u64 sum = 0;
    u32 x = 12345;
    for (ulong r = 0; r < rounds; r++) {
        for (ulong i = 0; i < SIEVE; i++)
            composite[i] = 0;
        ulong count = 0;
        for (ulong i = 2; i < SIEVE; i++) {
            if (composite[i])
                continue;
            count++;
            sum = sum * 31 + i;
            for (ulong j = i * 2; j < SIEVE; j += i)
                composite[j] = 1;
        }
        for (ulong i = 0; i < 4 * SCATTER; i++) {
            x = x * 1664525u + 1013904223u;
            table[x >> 16] += x ^ (u32)i;
        }
        sum += count;
    }
    for (ulong i = 0; i < SCATTER; i++)
        sum = sum * 33 + table[i];
    g_checksum(1, sum);
    return 0;
}
