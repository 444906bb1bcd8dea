/* The master's safe job, as raw bytecode: it reads a limit N in decimal
 * from descriptor 0, counts the primes below N with a sieve and reports
 * "primes below N: COUNT, checksum SUM" on descriptor 1.  It computes and
 * talks over the descriptors it was given, nothing else: in strict mode
 * from its first instruction it exits 0.  Bad input: a line saying so and
 * exit 2. */
#include "guest.h"

#define MAX_LIMIT (1u << 20)

static unsigned char composite[MAX_LIMIT];

static int read_limit(unsigned long *n)
{
    char c;
    int digits = 0;
    *n = 0;
    /* One byte at a time: the number ends at a newline or end-of-file,
     * however the peer's writes were split. */
    while (guest_read(0, &c, 1) == 1 && c != '\n') {
        if (c < '0' || c > '9' || *n > MAX_LIMIT)
            return -1;
        *n = *n * 10 + (unsigned long)(c - '0');
        digits++;
    }
    return digits && *n <= MAX_LIMIT ? 0 : -1;
}

static void put_all(const char *s)
{
    unsigned long len = guest_strlen(s);
    while (len) {
        long w = guest_write(1, s, len);
        if (w <= 0)
            guest_exit(3);
        s += w;
        len -= (unsigned long)w;
    }
}

int guest_main(void)
{
    unsigned long limit;
    if (read_limit(&limit) < 0) {
        put_all("count job: expected a limit from 0 to 1048576\n");
        return 2;
    }
    unsigned long count = 0, sum = 0;
    for (unsigned long i = 2; i < limit; i++) {
        if (composite[i])
            continue;
        count++;
        sum = sum * 31 + i;
        /* i * i would wrap in 32 bits once i passes 65535. */
        if (i > (limit - 1) / i)
            continue;
        for (unsigned long j = i * i; j < limit; j += i)
            composite[j] = 1;
    }
    char num[21];
    put_all("count job: primes below ");
    put_all(guest_utoa(limit, num));
    put_all(": ");
    put_all(guest_utoa(count, num));
    put_all(", checksum ");
    put_all(guest_utoa(sum, num));
    put_all("\n");
    return 0;
}
