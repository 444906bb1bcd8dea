/* What an x86-64-v3 build of a plain C program executes: gcc at -O3
 * -march=x86-64-v3 vectorizes the loops below into AVX2 ymm code, contracts
 * a*b+c into FMA, and uses BMI1/BMI2, LZCNT, MOVBE and F16C for the
 * builtins; glibc's ifuncs pick their AVX2 string functions on such a CPU.
 * Every result is printed exactly (integers, and doubles with %a), so the
 * output is the same on any CPU that runs the build correctly. */
#include <immintrin.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static float a[N], b[N], c[N];
static int32_t ia[N], ib[N];
static double m1[64][64], m2[64][64], m3[64][64];

static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

__attribute__((noinline)) static void saxpy(float k)
{
    for (int i = 0; i < N; i++)
        c[i] = k * a[i] + b[i];
}

__attribute__((noinline)) static int64_t int_mix(void)
{
    int64_t sum = 0;
    for (int i = 0; i < N; i++) {
        int32_t x = ia[i] * 3 - (ib[i] >> 2);
        ia[i] = x > ib[i] ? x : ib[i];
        sum += ia[i] ^ (ib[i] & 0x0f0f0f0f);
    }
    return sum;
}

__attribute__((noinline)) static void matmul(void)
{
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) {
            double s = 0;
            for (int k = 0; k < 64; k++)
                s = fma(m1[i][k], m2[k][j], s);
            m3[i][j] = s;
        }
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        a[i] = (float)(rng() % 1000) / 7.0f;
        b[i] = (float)(rng() % 1000) / 3.0f;
        ia[i] = (int32_t)rng();
        ib[i] = (int32_t)rng();
    }
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) {
            m1[i][j] = (double)(rng() % 100) / 9.0;
            m2[i][j] = (double)(rng() % 100) / 11.0;
        }

    saxpy(1.5f);
    double fsum = 0;
    for (int i = 0; i < N; i++)
        fsum += c[i];
    printf("saxpy sum %a c[17] %a\n", fsum, (double)c[17]);
    printf("int mix %" PRId64 "\n", int_mix());
    matmul();
    printf("matmul m3[0][0] %a m3[63][63] %a m3[17][42] %a\n", m3[0][0], m3[63][63], m3[17][42]);

    /* the bit builtins: tzcnt, lzcnt, popcnt, andn, bzhi, pdep, pext, movbe */
    uint64_t bits = 0, x = 0x0123456789abcdefull;
    for (int i = 0; i < 1000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        bits += (uint64_t)__builtin_ctzll(x | 1) + (uint64_t)__builtin_clzll(x | 1) +
                (uint64_t)__builtin_popcountll(x) + _bzhi_u32((uint32_t)x, i % 32) +
                _pdep_u32((uint32_t)(x >> 32), 0xf0f0f0f0u) + _pext_u32((uint32_t)x, 0x00ff00ffu) +
                (~x & (x >> 7)) + __builtin_bswap64(x);
    }
    printf("bits %" PRIx64 "\n", bits);

    /* half precision through F16C */
    __m128 four = _mm_setr_ps(1.0f / 3.0f, 65504.0f, -2.5e-5f, 1e6f);
    __m128i halves = _mm_cvtps_ph(four, _MM_FROUND_TO_NEAREST_INT);
    __m128 back = _mm_cvtph_ps(halves);
    float out[4];
    _mm_storeu_ps(out, back);
    printf("f16c %a %a %a %a\n", (double)out[0], (double)out[1], (double)out[2], (double)out[3]);

    /* glibc's string functions, whichever variant its ifuncs chose */
    size_t len = 100000;
    char *s = malloc(len + 64), *t = malloc(len + 64);
    if (!s || !t)
        return 1;
    for (size_t i = 0; i < len; i++)
        s[i] = (char)('a' + rng() % 26);
    s[len] = 0;
    memcpy(t, s, len + 1);
    t[len - 3] = 'A';
    char *q = memchr(s, 'q', len);
    printf("strlen %zu memcmp %d strchr-off %td memchr-off %td strrchr-off %td\n", strlen(s),
           memcmp(s, t, len) > 0, strchr(s, 'z') - s, q ? q - s : -1, strrchr(s, 'm') - s);
    memset(t, 0x5a, len);
    printf("memset last %x strncmp %d\n", (unsigned)(unsigned char)t[len - 1], strncmp(s, s + 1, 50) != 0);
    free(s);
    free(t);
    return 0;
}
