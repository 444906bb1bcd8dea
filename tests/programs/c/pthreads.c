/* POSIX threads: a mutex-protected counter over several threads, a
 * condition variable hand-off, thread-local storage (__thread and
 * pthread keys with destructors), pthread_once, a barrier, malloc in
 * every thread (the allocator's per-thread arenas), and cancellation of a
 * thread blocked in a cancellation point with its cleanup handler.
 * Built with glibc (both ABIs) and with musl. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int ready, consumed;
static __thread int tls_value = 7;
static pthread_key_t key;
static int destructors;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static pthread_barrier_t barrier;

static void count_once(void) { once_runs++; }

static void key_gone(void *v)
{
    pthread_mutex_lock(&lock);
    destructors++;
    pthread_mutex_unlock(&lock);
    free(v);
}

static void *worker(void *arg)
{
    intptr_t id = (intptr_t)arg;
    pthread_once(&once, count_once);
    tls_value = (int)id * 100;
    pthread_setspecific(key, malloc(64));
    pthread_barrier_wait(&barrier);
    uint64_t sum = 0;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
        if (i % 1000 == 0) {
            char *p = malloc(100 + (size_t)i % 5000);
            memset(p, (int)id, 100);
            sum += (unsigned char)p[99];
            free(p);
        }
    }
    return (void *)(intptr_t)(tls_value + (int)(sum / ROUNDS));
}

static void *consumer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&cond, &lock);
    consumed = ready;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static int cleanups;

static void cleanup(void *arg)
{
    (void)arg;
    cleanups++;
}

static void *sleeper(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, NULL);
    for (;;)
        pause(); /* a cancellation point */
    pthread_cleanup_pop(0);
    return NULL;
}

int main(void)
{
    pthread_key_create(&key, key_gone);
    pthread_barrier_init(&barrier, NULL, THREADS);
    pthread_t t[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        printf("thread %d returned %ld\n", i, (long)(intptr_t)ret);
    }
    printf("counter %ld (expected %d), once ran %d time(s), key destructors %d, main's tls %d\n",
           counter, THREADS * ROUNDS, once_runs, destructors, tls_value);

    pthread_t c;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_mutex_lock(&lock);
    ready = 42;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    pthread_join(c, NULL);
    printf("condvar hand-off: %d\n", consumed);

    pthread_t s;
    pthread_create(&s, NULL, sleeper, NULL);
    usleep(20000);
    pthread_cancel(s);
    void *ret;
    pthread_join(s, &ret);
    printf("cancelled: %d, cleanup handlers run: %d\n", ret == PTHREAD_CANCELED, cleanups);
    return 0;
}
