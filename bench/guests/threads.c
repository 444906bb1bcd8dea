/* Four threads, as a threaded C job runs them: each sieves and hashes its
 * own share of a 32 MiB table (compute that scales with cores), then all
 * four meet at a barrier ROUNDS times, each round adding its share into a
 * mutex-guarded total (the futex traffic of a fine-grained parallel loop).
 * argv: MIB (default 32), ROUNDS (default 20000), THREADS (default 4).
 * Static glibc and pthreads, so it runs in seccomp-emu's pre-strict
 * personality.  Prints "checksum <hex>" (the same for any interleaving:
 * every combination is a sum), exit 0. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16

static size_t table_bytes;
static unsigned rounds, nthreads;
static uint8_t *table;
static pthread_barrier_t barrier;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    size_t share = table_bytes / nthreads, lo = share * id, hi = lo + share;
    uint64_t h = 0xcbf29ce484222325ull ^ id;
    uint32_t x = 2463534242u + id;
    /* scatter over the share: each thread's pages are its own */
    for (size_t i = lo; i < hi; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        table[lo + x % share] += (uint8_t)x;
    }
    for (size_t i = lo; i < hi; i++)
        h = (h ^ table[i]) * 0x100000001b3ull;
    for (unsigned r = 0; r < rounds; r++) {
        pthread_mutex_lock(&total_lock);
        total += (h >> (r % 32)) & 0xffff;
        pthread_mutex_unlock(&total_lock);
        pthread_barrier_wait(&barrier);
    }
    pthread_mutex_lock(&total_lock);
    total += h;
    pthread_mutex_unlock(&total_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 32;
    rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20000;
    nthreads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 4;
    if (mib == 0 || mib > 1024 || nthreads == 0 || nthreads > MAX_THREADS) {
        fprintf(stderr, "threads: MIB must be 1 to 1024, THREADS 1 to %d\n", MAX_THREADS);
        return 2;
    }
    table_bytes = mib << 20;
    table = calloc(table_bytes, 1);
    if (!table || pthread_barrier_init(&barrier, NULL, nthreads)) {
        fprintf(stderr, "threads: out of memory\n");
        return 2;
    }
    pthread_t tid[MAX_THREADS];
    for (unsigned i = 0; i < nthreads; i++)
        if (pthread_create(&tid[i], NULL, worker, (void *)(uintptr_t)i)) {
            fprintf(stderr, "threads: pthread_create failed\n");
            return 2;
        }
    for (unsigned i = 0; i < nthreads; i++)
        pthread_join(tid[i], NULL);
    printf("checksum %016llx\n", (unsigned long long)total);
    return 0;
}
