/* Four threads sharing a work queue, as a lock-heavy threaded C job does:
 * each takes a ticket from an atomic counter (lock xadd), pushes that item
 * onto a ring queue guarded by a pthread mutex, pops an item (its own or
 * another thread's) under the same mutex, hashes it a little, and adds the
 * result to one of 64 shared totals and to a checksum with atomic adds.
 * The mutex is contended whenever two threads run at once, so this is
 * futex wait/wake and contended locked operations, with little compute.
 * argv: ITEMS in thousands (default 1000), THREADS (default 4).
 * Static glibc and pthreads, so it runs in seccomp-emu's pre-strict
 * personality.  Prints "checksum <hex>" (the same for any interleaving:
 * every item is hashed once and the totals are sums), exit 0. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16
#define RING 1024      /* more than MAX_THREADS: a push never finds it full */
#define TOTALS 64

static uint64_t items;
static unsigned nthreads;
static uint64_t next_ticket;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t ring[RING];
static unsigned head, tail;
static struct { _Alignas(64) uint64_t v; } totals[TOTALS];
static uint64_t checksum;

static uint64_t hash(uint64_t x)
{
    for (int i = 0; i < 16; i++) {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdull;
    }
    return x;
}

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        uint64_t t = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_RELAXED);
        if (t >= items)
            return NULL;
        /* Every pop follows the same thread's push, so pops never outrun
         * pushes and the queue is never empty here. */
        pthread_mutex_lock(&queue_lock);
        ring[tail++ % RING] = t;
        pthread_mutex_unlock(&queue_lock);
        pthread_mutex_lock(&queue_lock);
        uint64_t item = ring[head++ % RING];
        pthread_mutex_unlock(&queue_lock);
        uint64_t h = hash(item + 1);
        __atomic_fetch_add(&totals[item % TOTALS].v, h & 0xffff, __ATOMIC_RELAXED);
        __atomic_fetch_add(&checksum, h, __ATOMIC_RELAXED);
    }
}

int main(int argc, char **argv)
{
    items = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1000) * 1000;
    nthreads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 4;
    if (items == 0 || items > 1000000000ull || nthreads == 0 || nthreads > MAX_THREADS) {
        fprintf(stderr, "queue: ITEMS must be 1 to 1000000 thousand, THREADS 1 to %d\n",
                MAX_THREADS);
        return 2;
    }
    pthread_t tid[MAX_THREADS];
    for (unsigned i = 0; i < nthreads; i++)
        if (pthread_create(&tid[i], NULL, worker, NULL)) {
            fprintf(stderr, "queue: pthread_create failed\n");
            return 2;
        }
    for (unsigned i = 0; i < nthreads; i++)
        pthread_join(tid[i], NULL);
    uint64_t sum = checksum;
    for (unsigned i = 0; i < TOTALS; i++)
        sum = sum * 31 + totals[i].v;
    if (head != items || tail != items) {
        fprintf(stderr, "queue: %u pushes and %u pops of %llu items\n", tail, head,
                (unsigned long long)items);
        return 1;
    }
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
