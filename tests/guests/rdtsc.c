/* Strict mode turns the time-stamp counter off for the task (CR4.TSD):
 * rdtsc works before, raises #GP (SIGSEGV) after.  rdtscp is covered by
 * the same bit.  Counter values are never printed: they cannot agree. */
#include "linux_sys.h"

static unsigned long long rdtsc(void)
{
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (unsigned long long)hi << 32 | lo;
}

static unsigned long long rdtscp(void)
{
    unsigned lo, hi, aux;
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    return (unsigned long long)hi << 32 | lo;
}

int guest_main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    unsigned long long t0 = rdtsc(), t1 = rdtsc();

    put_kv("rdtsc before strict, monotonic", t1 >= t0);
    if (str_eq(c, "before"))
        return 0;
    put_kv("enter strict", enter_strict());
    if (str_eq(c, "after"))
        t0 = rdtsc();
    else if (str_eq(c, "rdtscp_after"))
        t0 = rdtscp();
    else {
        put_str("unknown case\n");
        return 99;
    }
    put_kv("survived: counter read in strict mode", t0 != 0);
    return 1;
}
