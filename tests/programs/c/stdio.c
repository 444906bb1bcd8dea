/* stdio and malloc as a plain C program uses them: formatted output of
 * every kind, both buffered streams interleaved, a large unbuffered
 * write, stdin at end of file, and the allocator across its size classes
 * (small bins, large bins, mmap'd chunks), realloc growth and alignment.
 * Built with glibc and with musl; the output is the same for both. */
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    printf("%d %u %x %o %ld %lld %zu %c %s|%-6s|%6s|\n", -42, 42u, 0xbeefu, 8u, -1L, 1LL << 40,
           sizeof(long), 'z', "str", "left", "right");
    printf("%.3f %e %g %g %.0f %a\n", 3.14159, 12345.678, 1e-5, 1e20, 2.5, 1.0);
    printf("%f %f %f\n", INFINITY, -INFINITY, sqrt(2.0));
    printf("%" PRId64 " %" PRIx64 " %p\n", INT64_MIN, UINT64_MAX, (void *)0);
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%s-%05d-%+d", "snprintf", 42, 7);
    printf("%s (%d)\n", buf, n);
    printf("strtod %.6g, strtol %ld, atoi %d\n", strtod("6.02214076e23", NULL),
           strtol("-0x7f", NULL, 16), atoi("  123abc"));
    time_t epoch = 1000000000;
    struct tm tm;
    gmtime_r(&epoch, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
    printf("gmtime %s\n", buf);

    /* the two streams, each buffered its own way */
    fprintf(stderr, "to stderr, unbuffered\n");
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("line-buffered now\n");
    fputs("stderr again\n", stderr);

    int c = getchar();
    printf("stdin: %s\n", c == EOF ? (feof(stdin) ? "end of file" : "error") : "data");

    /* malloc across its size classes */
    size_t sizes[] = { 1, 24, 100, 1000, 4096, 65536, 131072, 1 << 20, 16 << 20 };
    void *blocks[sizeof(sizes) / sizeof(sizes[0])];
    uint64_t sum = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned char *p = malloc(sizes[i]);
        if (!p)
            return 1;
        memset(p, (int)(i + 1), sizes[i]);
        sum += p[sizes[i] - 1];
        blocks[i] = p;
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        free(blocks[i]);
    char *grow = NULL;
    size_t len = 0;
    for (int i = 0; i < 200; i++) {
        grow = realloc(grow, len + 1000);
        memset(grow + len, 'a' + i % 26, 1000);
        len += 1000;
    }
    sum += (unsigned char)grow[len - 1] + (unsigned char)grow[12345];
    free(grow);
    int *zeros = calloc(100000, sizeof(int));
    for (int i = 0; i < 100000; i++)
        sum += (uint64_t)zeros[i];
    free(zeros);
    void *aligned = NULL;
    int r = posix_memalign(&aligned, 4096, 10000);
    printf("malloc sum %" PRIu64 ", posix_memalign %d aligned %d\n", sum, r,
           ((uintptr_t)aligned & 4095) == 0);
    free(aligned);
    int v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = (i * 7919) % 1000;
    qsort(v, 1000, sizeof(int), cmp);
    printf("qsort %d %d %d\n", v[0], v[500], v[999]);

    /* a large write: more than one pipe's worth */
    static char big[70000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)('A' + i % 23);
    big[sizeof(big) - 1] = '\n';
    fwrite(big, 1, sizeof(big), stdout);
    printf("done\n");
    return 3;
}
