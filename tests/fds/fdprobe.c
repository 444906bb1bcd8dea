/* A freestanding guest that exercises the descriptors it was given, run
 * natively and under seccomp-emu with the same descriptors so the two can
 * be compared.  argv[1] is the descriptor to report on; each further
 * argument is one operation, reported as one line:
 *   r:FD:N            one read of up to N bytes: result and the bytes read
 *   w:FD:TEXT         one write of TEXT: result
 *   sum:FD:CHUNK      read in CHUNK-byte reads until 0 or an error: bytes,
 *                     FNV-1a hash of them, the last result
 *   gen:FD:TOTAL:CHUNK write TOTAL pattern bytes in writes of at most CHUNK,
 *                     resuming after partial writes: bytes, last result
 *   cat:IN:OUT:CHUNK  copy IN to OUT until end-of-file: bytes, last result
 *   wloop:FD:CHUNK    write CHUNK-byte blocks until a write fails: the error
 *   close:FD          close(2): result
 *   exit:CODE         exit now with CODE
 * Results are the kernel's: a count, or -errno. */
#include "guest.h"

#if defined(__x86_64__)
#define NR_close_LINUX 3
#else
#define NR_close_LINUX 6
#endif

#define BUF_SIZE (16ul << 20)

static unsigned char buf[BUF_SIZE];
static int report_fd = 1;

static void out(const char *s, unsigned long n)
{
    while (n) {
        long w = guest_write(report_fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (unsigned long)w;
    }
}

static void say(const char *s) { out(s, guest_strlen(s)); }

static void say_num(long v)
{
    char num[21];
    if (v < 0) {
        say("-");
        v = -v;
    }
    say(guest_utoa((unsigned long)v, num));
}

static void say_hex64(unsigned long long v)
{
    char h[17];
    for (int i = 15; i >= 0; i--, v >>= 4)
        h[i] = "0123456789abcdef"[v & 15];
    h[16] = 0;
    say(h);
}

/* Parses a decimal field ending at ':' or NUL; advances *p past the ':'. */
static unsigned long field(const char **p)
{
    unsigned long v = 0;
    while (**p >= '0' && **p <= '9')
        v = v * 10 + (unsigned long)(*(*p)++ - '0');
    if (**p == ':')
        (*p)++;
    return v;
}

static int starts(const char *s, const char *word)
{
    while (*word)
        if (*s++ != *word++)
            return 0;
    return 1;
}

static unsigned char pattern(unsigned long k)
{
    /* Not periodic at any power of two, so a lost or repeated block shows. */
    return (unsigned char)((k * 131u) ^ (k >> 9) ^ (k >> 17));
}

static unsigned long long fnv(unsigned long long h, const unsigned char *p, long n)
{
    for (long i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void op_read(const char *p)
{
    int fd = (int)field(&p);
    unsigned long n = field(&p);
    if (n > BUF_SIZE)
        n = BUF_SIZE;
    long r = guest_read(fd, buf, n);
    say(" = ");
    say_num(r);
    if (r > 0) {
        say(" '");
        for (long i = 0; i < r && i < 64; i++) {
            char c[5] = { (char)buf[i], 0 };
            if (buf[i] < 32 || buf[i] > 126) {
                c[0] = '\\';
                c[1] = 'x';
                c[2] = "0123456789abcdef"[buf[i] >> 4];
                c[3] = "0123456789abcdef"[buf[i] & 15];
            }
            say(c);
        }
        say("'");
    }
}

static void op_write(const char *p)
{
    int fd = (int)field(&p);
    say(" = ");
    say_num(guest_write(fd, p, guest_strlen(p)));
}

static void op_sum(const char *p)
{
    int fd = (int)field(&p);
    unsigned long chunk = field(&p);
    if (chunk == 0 || chunk > BUF_SIZE)
        chunk = BUF_SIZE;
    unsigned long long h = 0xcbf29ce484222325ull, total = 0;
    long r;
    while ((r = guest_read(fd, buf, chunk)) > 0) {
        h = fnv(h, buf, r);
        total += (unsigned long)r;
    }
    say(" = ");
    say_num((long)total);
    say(" bytes, hash ");
    say_hex64(h);
    say(", last ");
    say_num(r);
}

static void op_gen(const char *p)
{
    int fd = (int)field(&p);
    unsigned long total = field(&p), chunk = field(&p);
    if (chunk == 0 || chunk > BUF_SIZE)
        chunk = BUF_SIZE;
    unsigned long done = 0;
    long r = 0;
    while (done < total) {
        unsigned long n = total - done < chunk ? total - done : chunk;
        for (unsigned long i = 0; i < n; i++)
            buf[i] = pattern(done + i);
        unsigned long sent = 0;
        while (sent < n && (r = guest_write(fd, buf + sent, n - sent)) > 0)
            sent += (unsigned long)r;
        done += sent;
        if (sent < n)
            break;
    }
    say(" = ");
    say_num((long)done);
    say(" bytes, last ");
    say_num(r);
}

static void op_cat(const char *p)
{
    int in = (int)field(&p), o = (int)field(&p);
    unsigned long chunk = field(&p);
    if (chunk == 0 || chunk > BUF_SIZE)
        chunk = BUF_SIZE;
    unsigned long total = 0;
    long r;
    while ((r = guest_read(in, buf, chunk)) > 0) {
        long sent = 0, w = 0;
        while (sent < r && (w = guest_write(o, buf + sent, (unsigned long)(r - sent))) > 0)
            sent += w;
        total += (unsigned long)sent;
        if (sent < r) {
            r = w;
            break;
        }
    }
    say(" = ");
    say_num((long)total);
    say(" bytes, last ");
    say_num(r);
}

static void op_wloop(const char *p)
{
    int fd = (int)field(&p);
    unsigned long chunk = field(&p);
    if (chunk == 0 || chunk > BUF_SIZE)
        chunk = BUF_SIZE;
    long r;
    while ((r = guest_write(fd, buf, chunk)) > 0)
        ;
    say(" = ");
    say_num(r);
}

static void op_close(const char *p)
{
    int fd = (int)field(&p);
    say(" = ");
    say_num(guest_syscall3(NR_close_LINUX, fd, 0, 0));
}

static const struct {
    const char *name;
    void (*run)(const char *args);
} ops[] = {
    { "r:", op_read }, { "w:", op_write }, { "sum:", op_sum }, { "gen:", op_gen },
    { "cat:", op_cat }, { "wloop:", op_wloop }, { "close:", op_close },
};

int guest_main(void)
{
    if (guest_argc < 2)
        return 100;
    const char *rf = guest_argv[1];
    report_fd = (int)field(&rf);
    for (long i = 2; i < guest_argc; i++) {
        const char *a = guest_argv[i];
        if (starts(a, "exit:")) {
            a += 5;
            return (int)field(&a);
        }
        unsigned k;
        for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
            if (starts(a, ops[k].name))
                break;
        if (k == sizeof(ops) / sizeof(ops[0]))
            return 101;
        say(a);
        ops[k].run(a + guest_strlen(ops[k].name));
        say("\n");
    }
    return 0;
}
