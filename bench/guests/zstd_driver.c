/* A real library on a large buffer: Debian's libzstd.a (linked statically
 * into this static glibc program) compresses MIB MiB of generated text at
 * LEVEL, decompresses it and checks the round trip.  glibc and zstd make
 * their own calls (brk, mmap for the large buffers), so this runs in the
 * pre-strict personality: it never enters strict mode.
 * argv: MIB (default 32), LEVEL (default 3).  Prints the compressed size
 * and a checksum of the compressed bytes; exit 0, or 1 if the round trip
 * failed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static const char *const words[] = {
    "seccomp", "strict", "read", "write", "exit", "sigreturn", "kernel", "emulator",
    "grid", "cpu", "socket", "job", "rent", "untrusted", "trap", "verdict",
    "page", "fault", "signal", "task", "filter", "unicorn", "qemu", "native",
};

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 32;
    int level = argc > 2 ? atoi(argv[2]) : 3;
    if (mib == 0 || mib > 1024) {
        fprintf(stderr, "zstd_driver: MIB must be 1 to 1024\n");
        return 2;
    }
    size_t size = mib << 20;
    char *text = malloc(size);
    size_t bound = ZSTD_compressBound(size);
    char *packed = malloc(bound);
    char *back = malloc(size);
    if (!text || !packed || !back) {
        fprintf(stderr, "zstd_driver: out of memory\n");
        return 2;
    }
    /* Words and numbers from an LCG: compressible, but not trivially. */
    uint32_t x = 314159;
    size_t n = 0;
    while (n < size) {
        x = x * 1664525u + 1013904223u;
        char piece[32];
        int len = (x >> 28) < 3 ? snprintf(piece, sizeof(piece), "%u ", x >> 12)
                                : snprintf(piece, sizeof(piece), "%s%c", words[(x >> 16) % 24],
                                           (x & 0x3f) == 0 ? '\n' : ' ');
        if ((size_t)len > size - n)
            len = (int)(size - n);
        memcpy(text + n, piece, (size_t)len);
        n += (size_t)len;
    }
    size_t packed_size = ZSTD_compress(packed, bound, text, size, level);
    if (ZSTD_isError(packed_size)) {
        fprintf(stderr, "zstd_driver: compress: %s\n", ZSTD_getErrorName(packed_size));
        return 1;
    }
    size_t back_size = ZSTD_decompress(back, size, packed, packed_size);
    if (ZSTD_isError(back_size) || back_size != size || memcmp(back, text, size) != 0) {
        fprintf(stderr, "zstd_driver: round trip failed\n");
        return 1;
    }
    uint64_t sum = 0xcbf29ce484222325ull; /* FNV-1a over the compressed bytes */
    for (size_t i = 0; i < packed_size; i++)
        sum = (sum ^ (unsigned char)packed[i]) * 0x100000001b3ull;
    printf("zstd %s level %d: %zu -> %zu bytes\nchecksum %016llx\n", ZSTD_versionString(),
           level, size, packed_size, (unsigned long long)sum);
    return 0;
}
