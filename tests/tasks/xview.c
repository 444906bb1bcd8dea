/* Code written through one mapping and run through another of the same
 * shared pages (a JIT's double mapping: a writable view and an executable
 * one, as W^X JITs and libffi's closures make them).  The views are two
 * guest ranges over the same memory, so a store through the first must
 * drop what was translated from the second.  First one thread writes and
 * runs; then the kernel writes (read(2) from a pipe into the writable
 * view); then one thread writes and another runs, with Intel SDM 8.1.3's
 * protocol (the runner serialises with cpuid before it calls).  Under
 * seccomp-emu the two views are two regions of the engine, and its own
 * dirty-code tracking sees only stores to the region it translated
 * (docs/internals.md, "Parallel tasks"). */
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
static unsigned char *wview, *xview;
static volatile int flag, ack;
static int slot;

static void put(int k)
{
    unsigned char insn[6] = { 0xb8, 0, 0, 0, 0, 0xc3 }; /* mov $k, %eax; ret */
    memcpy(insn + 1, &k, 4);
    slot = (k % 7) * 8;   /* moving within the page, and back */
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

int main(void)
{
    wview = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (wview == MAP_FAILED) return 2;
    /* old_len 0: a second mapping of the same shared pages. */
    xview = mremap(wview, 0, 4096, MREMAP_MAYMOVE);
    if (xview == MAP_FAILED || mprotect(xview, 4096, PROT_READ | PROT_EXEC)) return 3;

    int bad = 0;
    for (int k = 1; k <= ROUNDS; k++) {
        put(k);
        if (run() != k) bad++;
    }
    printf("one thread, two views: %d stale runs of %d\n", bad, ROUNDS);

    int pipefd[2], kbad = 0;
    if (pipe(pipefd)) return 4;
    for (int k = 1; k <= ROUNDS; k++) {
        unsigned char insn[6] = { 0xb8, 0, 0, 0, 0, 0xc3 }; /* mov $k, %eax; ret */
        memcpy(insn + 1, &k, 4);
        slot = (k % 7) * 8;
        if (write(pipefd[1], insn, 6) != 6 || read(pipefd[0], wview + slot, 6) != 6) return 5;
        if (run() != k) kbad++;
    }
    printf("read(2) into the writable view: %d stale runs of %d\n", kbad, ROUNDS);
    bad += kbad;

    pthread_t t;
    pthread_create(&t, NULL, runner, NULL);
    for (int k = 1; k <= ROUNDS; k++) {
        put(k);
        __atomic_store_n(&flag, k, __ATOMIC_RELEASE);
        while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) != k)
            sched_yield();
    }
    void *stale;
    pthread_join(t, &stale);
    printf("two threads, two views: %d stale runs of %d\n", (int)(intptr_t)stale, ROUNDS);
    return bad || stale ? 1 : 0;
}
