/* Ordinary static glibc programs that enter strict mode.  Built for i386,
 * x86_64 and x86_64 static-PIE.  What glibc does on its own matters here:
 * returning from main flushes stdio (write, allowed) and then calls
 * exit_group, which strict mode answers with SIGKILL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SAY(s) write(1, s, sizeof s - 1)

static unsigned checksum_block(size_t mib)
{
    size_t n = mib << 20;
    unsigned char *p = malloc(n);
    unsigned sum = 0;
    if (!p)
        return 0;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 131 + (i >> 12));
    for (size_t i = 0; i < n; i += 61)
        sum = sum * 33 + p[i];
    free(p);
    return sum;
}

static int strict(void)
{
    return prctl(PR_SET_SECCOMP, 1, 0, 0, 0);
}

/* Function and data pointers in initialised data: in the static-PIE build
 * these need R_X86_64_RELATIVE relocations, applied by glibc's self-relocation. */
static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
static int (*const ops[])(int) = { twice, square };
static const char *const names[] = { "twice", "square" };

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (!strcmp(c, "hello")) {
        printf("hello from glibc, %zu-bit\n", sizeof(void *) * 8);
        printf("checksum of 4 MiB = %u\n", checksum_block(4));
        /* stdout is a pipe, so the lines above sit in the stdio buffer:
         * this write comes out first, the buffer at exit, then SIGKILL. */
        printf("prctl = %d\n", strict());
        SAY("written with write(2) in strict mode\n");
        return 0;
    }
    if (!strcmp(c, "exit0")) {           /* plain exit is allowed: status 0 */
        printf("hello, then syscall(SYS_exit, 0)\n");
        fflush(stdout);
        strict();
        SAY("strict\n");
        syscall(SYS_exit, 0);
        return 1;
    }
    if (!strcmp(c, "echo")) {            /* copy stdin to stdout in strict mode */
        char buf[4096];
        ssize_t n;
        long total = 0;
        strict();
        while ((n = read(0, buf, sizeof buf)) > 0)
            total += write(1, buf, (size_t)n);
        /* Not printf: stdio's first use allocates its buffer (fstat, brk),
         * which strict mode would kill. */
        char line[64];
        int len = snprintf(line, sizeof line, "echoed %ld bytes\n", total);
        write(1, line, (size_t)len);
        syscall(SYS_exit, 0);
        return 1;
    }
    if (!strcmp(c, "malloc_after")) {    /* arena reuse works, new mmap kills */
        free(malloc(1));
        strict();
        char *small = malloc(100);
        SAY("small malloc in strict mode\n");
        if (small)
            SAY("  ... succeeded\n");
        char *big = malloc(64 << 20);
        SAY("survived a 64 MiB malloc\n");
        return big != 0;
    }
    if (!strcmp(c, "relocs")) {
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            printf("%s(7) = %d\n", names[i], ops[i](7));
        printf("main above 64 KiB = %d\n", (uintptr_t)&main > 0x10000);
        fflush(stdout);
        strict();
        SAY("strict\n");
        syscall(SYS_exit, 0);
        return 1;
    }
    printf("unknown case\n");
    return 99;
}
