/* The seed's safe job: it only computes and reports over the descriptor it
 * was given.  Under `seccomp-emu --strict` it exits 0, because read, write
 * and exit are all strict mode lets it do.
 *
 * The work: count the primes below 200000 with a sieve, and report a
 * checksum of them, so that a wrong emulation shows as a wrong number. */
#include "guest.h"

#define LIMIT 200000

static unsigned char composite[LIMIT];

int guest_main(void)
{
    unsigned long count = 0, sum = 0;
    for (unsigned long i = 2; i < LIMIT; i++) {
        if (composite[i])
            continue;
        count++;
        sum = sum * 31 + i;
        if (i > LIMIT / i)
            continue; /* i * i would pass LIMIT (and wrap on i386) */
        for (unsigned long j = i * i; j < LIMIT; j += i)
            composite[j] = 1;
    }
    char num[21];
    guest_puts("safe job: primes below 200000: ");
    guest_puts(guest_utoa(count, num));
    guest_puts(", checksum ");
    guest_puts(guest_utoa(sum, num));
    guest_puts("\n");
    return 0; /* exit(0): allowed */
}
