/* The few libc pieces the freestanding guests need.  Output goes through
 * write on the guest's native entry, which strict mode allows, so these
 * helpers work before and after entering strict mode. */
#include "linux_sys.h"

/* gcc may emit calls to these even with -ffreestanding. */
void *memset(void *d, int c, unsigned long n)
{
    unsigned char *p = d;
    while (n--)
        *p++ = (unsigned char)c;
    return d;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--)
        *p++ = *q++;
    return d;
}

unsigned long str_len(const char *s)
{
    unsigned long n = 0;
    while (s[n])
        n++;
    return n;
}

int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

void put_str(const char *s)
{
    sys3(NR_(write), 1, (long)s, (long)str_len(s));
}

void put_dec(long v)
{
    char buf[24];
    int i = sizeof buf;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    buf[--i] = 0;
    do
        buf[--i] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        buf[--i] = '-';
    put_str(buf + i);
}

void put_hex(unsigned long v)
{
    char buf[24];
    int i = sizeof buf;
    buf[--i] = 0;
    do
        buf[--i] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    buf[--i] = 'x';
    buf[--i] = '0';
    put_str(buf + i);
}

/* One line per value keeps the diff readable and line-oriented. */
void put_kv(const char *label, long v)
{
    put_str(label);
    put_str(" = ");
    put_dec(v);
    put_str("\n");
}

void put_kvx(const char *label, unsigned long v)
{
    put_str(label);
    put_str(" = ");
    put_hex(v);
    put_str("\n");
}

long enter_strict(void)
{
    return sys3(NR_(prctl), PR_SET_SECCOMP_LINUX, SECCOMP_MODE_STRICT_LINUX, 0);
}

void *map_pages(long n)
{
#if defined(__x86_64__)
    long nr = NR_mmap_X86_64_LINUX;
#else
    long nr = NR_mmap2_I386_LINUX;   /* offset in pages; we pass 0 */
#endif
    long r = sys6(nr, 0, n * PAGE_SIZE_LINUX, PROT_READ_LINUX | PROT_WRITE_LINUX,
                  MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX, -1, 0);
    return (unsigned long)r > -4096UL ? (void *)0 : (void *)r;
}

void sys_exit(long code)
{
    for (;;)
        sys3(NR_(exit), code, 0, 0);
}
