/* Code written by one thread and run by another (cross-modifying code,
 * Intel SDM 8.1.3's protocol: the writer stores the code and then a flag;
 * the runner sees the flag, serialises with cpuid, runs the code).  Under
 * seccomp-emu --sched=parallel the two threads run on two engines that
 * translate apart (docs/internals.md, "Parallel tasks").  The waits yield:
 * where the two take turns, a spin would hold its turn for a whole time
 * slice.
 *
 * `xmodify views`: the code is written through one mapping and run through
 * another of the same shared pages (a JIT's double mapping: a writable
 * view and an executable one, as W^X JITs and libffi's closures make
 * them), which are two regions of seccomp-emu's engine, whose own
 * dirty-code tracking sees only stores to the region it translated.  Then
 * one thread first writes and runs, and the kernel writes (read(2) from a
 * pipe into the writable view), before the two threads take turns.
 * Without `views`, the writer first runs code it writes, in a mapping made
 * after the second thread started. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mremap */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define ROUNDS 500
static unsigned char *wview, *xview; /* the same mapping without `views` */
static volatile int flag, ack;
static int slot;

static void put(int k)
{
    unsigned char insn[6] = { 0xb8, 0, 0, 0, 0, 0xc3 }; /* mov $k, %eax; ret */
    memcpy(insn + 1, &k, 4);
    slot = (k % 7) * 8; /* moving within the page, and back */
    memcpy(wview + slot, insn, 6);
}

static int run(void)
{
    return ((int (*)(void))(xview + slot))();
}

static void *runner(void *a)
{
    (void)a;
    int bad = 0;
    for (int k = 1; k <= ROUNDS; k++) {
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != k)
            sched_yield();
        unsigned eax = 0, ebx, ecx = 0, edx;
        __asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
        if (run() != k) bad++;
        __atomic_store_n(&ack, k, __ATOMIC_RELEASE);
    }
    return (void *)(intptr_t)bad;
}

/* The views' own phases: stale runs, or -1 when a call failed. */
static int one_thread_phases(void)
{
    int bad = 0, kbad = 0, pipefd[2];
    for (int k = 1; k <= ROUNDS; k++) {
        put(k);
        if (run() != k) bad++;
    }
    printf("one thread, two views: %d stale runs of %d\n", bad, ROUNDS);
    if (pipe(pipefd))
        return -1;
    for (int k = 1; k <= ROUNDS; k++) {
        unsigned char insn[6] = { 0xb8, 0, 0, 0, 0, 0xc3 };
        memcpy(insn + 1, &k, 4);
        slot = (k % 7) * 8;
        if (write(pipefd[1], insn, 6) != 6 || read(pipefd[0], wview + slot, 6) != 6)
            return -1;
        if (run() != k) kbad++;
    }
    printf("read(2) into the writable view: %d stale runs of %d\n", kbad, ROUNDS);
    return bad + kbad;
}

int main(int argc, char **argv)
{
    int views = argc > 1 && !strcmp(argv[1], "views"), bad = 0;
    if (views) {
        wview = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (wview == MAP_FAILED) return 2;
        /* old_len 0: a second mapping of the same shared pages. */
        xview = mremap(wview, 0, 4096, MREMAP_MAYMOVE);
        if (xview == MAP_FAILED || mprotect(xview, 4096, PROT_READ | PROT_EXEC)) return 3;
        if ((bad = one_thread_phases()) < 0) return 4;
    }
    pthread_t t;
    pthread_create(&t, NULL, runner, NULL);
    if (!views) {
        /* Made after the second thread (its engine, under --sched=
         * parallel): the first code the process can write.  The writer
         * runs its own code first. */
        wview = xview = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (wview == MAP_FAILED) return 2;
        for (int k = 1; k <= ROUNDS; k++) {
            put(k);
            if (run() != k) bad++;
        }
        printf("one thread, after a second one started: %d stale runs of %d\n", bad, ROUNDS);
    }
    for (int k = 1; k <= ROUNDS; k++) {
        put(k);
        __atomic_store_n(&flag, k, __ATOMIC_RELEASE);
        while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) != k)
            sched_yield();
    }
    void *stale;
    pthread_join(t, &stale);
    printf("%s: %d stale runs of %d\n", views ? "two threads, two views" : "cross-modified code",
           (int)(intptr_t)stale, ROUNDS);
    return bad || stale ? 1 : 0;
}
