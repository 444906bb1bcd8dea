/* glibc's threads as a program uses them: 4 workers on a mutex and a
 * condition variable, thread-local storage, cancellation with cleanup
 * handlers, barriers, a read-write lock, a priority-inheritance mutex, a
 * robust mutex whose owner dies, pthread_kill, and posix_spawn of the
 * program itself.  Everything printed is deterministic: the kernel judges
 * it (tests/tasks/check_tasks.py).
 * Build: gcc -O2 -static -pthread [-m32] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long counter;
static int arrived;
static __thread int tls_value = 7;
static __thread char tls_buf[64];

static void *worker(void *arg)
{
    long id = (long)arg;
    tls_value = (int)id * 100;
    snprintf(tls_buf, sizeof tls_buf, "worker %ld", id);
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&m);
        counter++;
        pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m);
    arrived++;
    pthread_cond_broadcast(&cv);
    while (arrived < 4)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
    /* Each thread still sees its own TLS after the others ran. */
    return (void *)(long)(tls_value + (strcmp(tls_buf, "worker") > 0));
}

static int cleaned;
static void cleanup(void *arg) { cleaned = (int)(long)arg; }

static void *cancellable(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, (void *)42);
    for (;;)
        pause(); /* a cancellation point */
    pthread_cleanup_pop(0);
    return NULL;
}

static pthread_barrier_t barrier;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int shared_value;

static void *barrier_thread(void *arg)
{
    long id = (long)arg;
    pthread_rwlock_wrlock(&rw);
    shared_value += (int)id;
    pthread_rwlock_unlock(&rw);
    int r = pthread_barrier_wait(&barrier);
    pthread_rwlock_rdlock(&rw);
    int v = shared_value;
    pthread_rwlock_unlock(&rw);
    return (void *)(long)(v * 2 + (r == PTHREAD_BARRIER_SERIAL_THREAD));
}

static pthread_mutex_t pi;
static int pi_turns;
static void *pi_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&pi);
        pi_turns++;
        pthread_mutex_unlock(&pi);
    }
    return NULL;
}

static pthread_mutex_t robust;
static void *robust_owner(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&robust);
    return NULL; /* dies holding it */
}

static volatile sig_atomic_t usr1_tid;
static void on_usr1(int s)
{
    (void)s;
    usr1_tid = (sig_atomic_t)syscall(SYS_gettid);
}
static volatile int target_ready;
static void *signal_target(void *arg)
{
    long *tid = arg;
    *tid = syscall(SYS_gettid);
    target_ready = 1;
    while (!usr1_tid)
        ;
    return NULL;
}

/* Threads blocked in calls when their process exits: each is killed in
 * the middle of its call, and the process's status is the exit's. */
static int block_pipe[2];
static void *blocked_read(void *a) { (void)a; char b; (void)!read(block_pipe[0], &b, 1); return NULL; }
static void *blocked_pause(void *a) { (void)a; pause(); return NULL; }
static void *blocked_sleep(void *a) { (void)a; sleep(30); return NULL; }
static void *blocked_cond(void *a)
{
    (void)a;
    pthread_mutex_lock(&m);
    for (;;)
        pthread_cond_wait(&cv, &m);
    return NULL;
}

/* Advice that Linux keeps as a VMA flag splits the mapping it covers in
 * part, while other threads read the pages: they must never fault. */
#define ADVISED_PAGES 64
static volatile char *advised;
static volatile int advising;

static void *advised_reader(void *a)
{
    (void)a;
    long sum = 0;
    while (advising)
        for (int i = 0; i < ADVISED_PAGES; i++)
            sum += advised[i * 4096];
    return (void *)sum;
}

static void madvise_under_readers(void)
{
    advised = mmap(NULL, ADVISED_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    for (int i = 0; i < ADVISED_PAGES; i++)
        advised[i * 4096] = 1;
    advising = 1;
    pthread_t r[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, advised_reader, NULL);
    int failed = 0;
    for (int k = 0; k < 6000; k++)
        failed |= madvise((char *)advised + 4096 * (k % 32), 4096 * 8,
                          k & 1 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    advising = 0;
    long sum = 0;
    for (int i = 0; i < 2; i++) {
        void *got;
        pthread_join(r[i], &got);
        sum += (long)got;
    }
    printf("madvise flags set and cleared under two readers: %s, every page read as 1: %s\n",
           failed ? "failed" : "ok", sum % ADVISED_PAGES == 0 ? "yes" : "no");
}

static void killed_mid_call(void)
{
    pid_t c = fork();
    if (c == 0) {
        if (pipe(block_pipe))
            _exit(1);
        void *(*fn[])(void *) = { blocked_read, blocked_pause, blocked_sleep, blocked_cond };
        pthread_t t;
        for (int i = 0; i < 4; i++)
            pthread_create(&t, NULL, fn[i], NULL);
        usleep(20000);
        exit(5); /* exit_group: the four die in their calls */
    }
    int st = 0;
    waitpid(c, &st, 0);
    printf("exit while 4 threads block (read, pause, sleep, cond): %s %d\n",
           WIFEXITED(st) ? "exited" : "killed", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

/* /proc/self/task and /proc/<pid>/task list ".", ".." and one directory
 * per thread of the process, named by its tid, the main thread first. */
static int listed_pipe[2];
static volatile int listed_tids[3];
static void *listed_thread(void *a)
{
    listed_tids[(long)a] = (int)syscall(SYS_gettid);
    char b;
    (void)!read(listed_pipe[0], &b, 1);
    return NULL;
}
/* A joined thread is still listed for a moment natively: pthread_join
 * returns at its CLEARTID wake-up, before the kernel releases it.  So the
 * directory is read again (for up to a second) until it lists the
 * threads expected and no other. */
static void list_task_dir(const char *path, const char *when, int expect)
{
    int dots, ours, others, first, dirs;
    for (int tries = 0; tries < 1000; tries++) {
        DIR *d = opendir(path);
        if (!d) {
            printf("%s %s: %s\n", path[6] == 's' ? "/proc/self/task" : "/proc/<pid>/task", when,
                   strerror(errno));
            return;
        }
        dots = 0, ours = 0, others = 0, first = -1, dirs = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
                dots++;
                continue;
            }
            int tid = atoi(e->d_name);
            if (first < 0)
                first = tid;
            dirs += e->d_type == DT_DIR;
            int mine = tid == getpid();
            for (int i = 0; i < 3; i++)
                mine |= tid == listed_tids[i];
            if (mine)
                ours++;
            else
                others++;
        }
        closedir(d);
        if (ours == expect && !others)
            break;
        usleep(1000);
    }
    printf("%s %s: . and .. %d, threads of ours %d, others %d, directories %d, "
           "the main thread first %s\n",
           path[6] == 's' ? "/proc/self/task" : "/proc/<pid>/task", when, dots, ours, others,
           dirs, first == getpid() ? "yes" : "no");
}
static void listed_threads(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
    if (pipe(listed_pipe))
        return;
    list_task_dir("/proc/self/task", "with one thread", 1);
    pthread_t th[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, listed_thread, (void *)i);
    for (int i = 0; i < 3; i++)
        while (!listed_tids[i])
            sched_yield();
    list_task_dir("/proc/self/task", "with four threads", 4);
    list_task_dir(path, "with four threads", 4);
    (void)!write(listed_pipe[1], "xxx", 3);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    list_task_dir("/proc/self/task", "after the joins", 1);
    close(listed_pipe[0]);
    close(listed_pipe[1]);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "child")) {
        printf("spawned child: argv[2]=%s, tls=%d\n", argv[2], tls_value);
        return 3;
    }
    /* four workers */
    pthread_t th[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    long sum = 0;
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        sum += (long)r;
    }
    printf("mutex counter %ld, TLS results %ld, main's TLS still %d\n", counter, sum, tls_value);

    /* cancellation */
    pthread_t c;
    pthread_create(&c, NULL, cancellable, NULL);
    usleep(10000);
    pthread_cancel(c);
    void *res;
    pthread_join(c, &res);
    printf("cancelled: %s, cleanup handler ran with %d\n",
           res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "not cancelled", cleaned);

    /* barrier and read-write lock */
    pthread_barrier_init(&barrier, NULL, 3);
    pthread_t b[3];
    for (long i = 0; i < 3; i++)
        pthread_create(&b[i], NULL, barrier_thread, (void *)(i + 1));
    long serial = 0, seen = 0;
    for (int i = 0; i < 3; i++) {
        void *r;
        pthread_join(b[i], &r);
        serial += (long)r & 1;
        seen += (long)r >> 1;
    }
    printf("barrier: one serial thread: %s; all saw %ld\n", serial == 1 ? "yes" : "no", seen / 3);

    /* priority inheritance (FUTEX_LOCK_PI, FUTEX_UNLOCK_PI) */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    int r = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&pi, &a);
    pthread_t p1, p2;
    pthread_create(&p1, NULL, pi_thread, NULL);
    pthread_create(&p2, NULL, pi_thread, NULL);
    pthread_join(p1, NULL);
    pthread_join(p2, NULL);
    printf("PI mutex (setprotocol %d): %d turns; trylock %d\n", r, pi_turns,
           pthread_mutex_trylock(&pi));
    pthread_mutex_unlock(&pi);

    /* robust mutex: the owner exits holding it */
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&robust, &a);
    pthread_t o;
    pthread_create(&o, NULL, robust_owner, NULL);
    pthread_join(o, NULL);
    r = pthread_mutex_lock(&robust);
    printf("robust mutex after its owner died: %s", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
    printf(", consistent %d, unlock %d\n", pthread_mutex_consistent(&robust),
           pthread_mutex_unlock(&robust));

    /* pthread_kill: the signal runs in the thread it was sent to */
    signal(SIGUSR1, on_usr1);
    long ttid = 0;
    pthread_t s;
    pthread_create(&s, NULL, signal_target, &ttid);
    while (!target_ready)
        ;
    pthread_kill(s, SIGUSR1);
    pthread_join(s, NULL);
    printf("pthread_kill: handler ran in the target thread: %s\n",
           usr1_tid == ttid ? "yes" : "no");

    /* posix_spawn of this very program (clone(CLONE_VM|CLONE_VFORK)) */
    pid_t pid;
    char *cargv[] = { argv[0], "child", "spawned", NULL };
    r = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, cargv, environ);
    int st = 0;
    waitpid(pid, &st, 0);
    printf("posix_spawn: %d, child exited %d\n", r, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    madvise_under_readers();
    killed_mid_call();
    listed_threads();
    return 0;
}
