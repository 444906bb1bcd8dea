/* Guests that push seccomp-emu's task limits (tests/tasks/check_limits.py,
 * emulator only: natively these would press on the host itself).
 *   forks    fork until fork fails; print how many and why
 *   threads  pthread_create until it fails; print how many and why
 *   bomb     every process forks forever (a fork bomb)
 *   race     4 threads add to one counter without a lock: the total shows
 *            the interleaving (--sched=rr:N makes it one, run after run)
 * Build: gcc -O2 -static -pthread [-m32] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int hold[2];

static void forks(void)
{
    if (pipe(hold))
        return;
    int n = 0;
    for (;;) {
        pid_t c = fork();
        if (c < 0) {
            printf("forked %d, then %s\n", n, strerrorname_np(errno));
            break;
        }
        if (c == 0) {
            char b;
            close(hold[1]);
            (void)!read(hold[0], &b, 1); /* end of file when the parent lets go */
            _exit(0);
        }
        n++;
    }
    close(hold[1]);
    int reaped = 0;
    while (wait(NULL) > 0)
        reaped++;
    printf("reaped %d\n", reaped);
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int released;

static void *sleeper(void *a)
{
    (void)a;
    pthread_mutex_lock(&m);
    while (!released)
        pthread_cond_wait(&go, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static void threads(void)
{
    static pthread_t th[20000];
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 64 * 1024);
    int n = 0, r = 0;
    while (n < 20000 && (r = pthread_create(&th[n], &a, sleeper, NULL)) == 0)
        n++;
    printf("created %d threads, then %s\n", n, r ? strerrorname_np(r) : "the end of the table");
    pthread_mutex_lock(&m);
    released = 1;
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    printf("joined %d\n", n);
}

static volatile long counter;
static void *adder(void *a)
{
    (void)a;
    for (int i = 0; i < 200000; i++)
        counter = counter + 1; /* not atomic: the interleaving decides */
    return NULL;
}

static void race(void)
{
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, adder, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    printf("counter %ld\n", counter);
}

static void *spinner(void *a)
{
    for (volatile unsigned long i = 0;; i++)
        ;
    return a;
}

/* Threads that never call the kernel, and one blocked in it: what a
 * SIGTERM or SIGINT from outside must still end. */
static void spin(void)
{
    pthread_t th[3];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, spinner, NULL);
    pthread_create(&th[2], NULL, sleeper, NULL);
    printf("spinning\n");
    spinner(NULL);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "forks"))
        forks();
    else if (!strcmp(what, "threads"))
        threads();
    else if (!strcmp(what, "bomb"))
        for (;;)
            fork();
    else if (!strcmp(what, "race"))
        race();
    else if (!strcmp(what, "spin"))
        spin();
    else
        return 2;
    return 0;
}
