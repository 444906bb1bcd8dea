/* Code written by one thread and run by another (cross-modifying code,
 * Intel SDM 8.1.3's protocol: the writer stores the code and then a flag;
 * the runner sees the flag, serialises with cpuid, runs the code).  Under
 * seccomp-emu --sched=parallel the two threads run on two engines that
 * translate apart (docs/internals.md, "Parallel tasks").  The waits yield:
 * where the two take turns, a spin would hold its turn for a whole time
 * slice. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#define ROUNDS 500
static unsigned char *code;
static volatile int flag, ack;
static int (*fn)(void);
static void *runner(void *a)
{
    (void)a;
    int bad = 0;
    for (int k = 1; k <= ROUNDS; k++) {
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != k)
            sched_yield();
        unsigned eax = 0, ebx, ecx = 0, edx;
        __asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
        if (fn() != k) bad++;
        __atomic_store_n(&ack, k, __ATOMIC_RELEASE);
    }
    return (void *)(intptr_t)bad;
}
int main(void)
{
    code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) return 2;
    fn = (int (*)(void))code;
    pthread_t t;
    pthread_create(&t, NULL, runner, NULL);
    for (int k = 1; k <= ROUNDS; k++) {
        unsigned char insn[6] = { 0xb8, 0, 0, 0, 0, 0xc3 }; /* mov $k, %eax; ret */
        memcpy(insn + 1, &k, 4);
        memcpy(code + (k % 7) * 8, insn, 6);   /* moving within the page */
        fn = (int (*)(void))(code + (k % 7) * 8);
        __atomic_store_n(&flag, k, __ATOMIC_RELEASE);
        while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) != k)
            sched_yield();
    }
    void *bad;
    pthread_join(t, &bad);
    printf("cross-modified code: %d stale runs of %d\n", (int)(intptr_t)bad, ROUNDS);
    return bad ? 1 : 0;
}
