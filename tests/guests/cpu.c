/* A CPU-bound job in strict mode: an LCG scattering into a 64 KiB table,
 * tens of millions of steps, then one checksum line.  32-bit arithmetic
 * only, so both ABIs must print the same number.  No system call between
 * entering strict mode and the write: the emulator must not invent any. */
#include "linux_sys.h"

#define TABLE 16384u
static unsigned table[TABLE];

int guest_main(int argc, char **argv)
{
    unsigned long steps = 40000000;
    unsigned x = 12345, sum = 0;

    if (argc > 1 && str_eq(argv[1], "small"))
        steps = 100000;
    put_kv("enter strict", enter_strict());
    for (unsigned long i = 0; i < steps; i++) {
        x = x * 1103515245u + 12345u;
        unsigned k = (x >> 10) & (TABLE - 1);
        table[k] ^= x;
        sum = (sum << 5 | sum >> 27) + table[(k * 7) & (TABLE - 1)];
    }
    put_kv("steps", (long)steps);
    put_kvx("checksum", sum);
    return 0;
}
