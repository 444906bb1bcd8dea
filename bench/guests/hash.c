/* Large working set, a hash-table build: INSERTS 64-bit keys drawn from
 * a range about half the table's size, inserted with linear probing into
 * an open-addressing table of 2^22 slots (32 MiB of keys, 16 MiB of
 * counts), counting repeats, then as many lookups, half of them misses.
 * At most KEY_RANGE distinct keys ever go in, so the table never fills.
 * argv: INSERTS in thousands (default 2000). */
#include "bench_guest.h"

#define SLOTS_LOG2 22
#define SLOTS (1u << SLOTS_LOG2)
#define KEY_RANGE (SLOTS / 2 + SLOTS / 8)

static u64 keys[SLOTS];
static u32 counts[SLOTS];

static u64 mix(u64 k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static u32 slot_of(u64 key)
{
    return (u32)(mix(key) >> (64 - SLOTS_LOG2));
}

int bench_main(int argc, char **argv)
{
    ulong inserts = g_atoul(argc > 1 ? argv[1] : 0, 2000) * 1000ul;
    u32 x = 99991;
    u64 distinct = 0;
    for (ulong i = 0; i < inserts; i++) {
        x = x * 1664525u + 1013904223u;
        u64 key = ((u64)(x >> 8) % KEY_RANGE + 1) * 0x9e3779b97f4a7c15ull;
        u32 s = slot_of(key);
        while (keys[s] && keys[s] != key)
            s = (s + 1) & (SLOTS - 1);
        if (!keys[s]) {
            keys[s] = key;
            distinct++;
        }
        counts[s]++;
    }
    u64 sum = distinct;
    u32 y = 4242;
    for (ulong i = 0; i < inserts; i++) {
        y = y * 22695477u + 1u;
        u64 key = ((u64)(y >> 8) % (2 * KEY_RANGE) + 1) * 0x9e3779b97f4a7c15ull;
        u32 s = slot_of(key);
        while (keys[s] && keys[s] != key)
            s = (s + 1) & (SLOTS - 1);
        sum = sum * 31 + (keys[s] ? counts[s] : 0);
    }
    g_checksum(1, sum);
    return 0;
}
