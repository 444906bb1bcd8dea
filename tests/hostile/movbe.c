/* MOVBE stores and loads of each size, within a page and across a page's
 * end, on the stack, in .bss and in mmap'd memory; prints what each left.
 *
 * The engine stores a byte-swapped value through a scratch register where
 * the host has no MOVBE; with guest memory reached through a linear slot
 * that register once held the slot's offset, so the store went to a host
 * address the guest's data chose (tests/hostile/meson.build runs this
 * with seccomp-emu itself under a CPU without MOVBE). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static unsigned char bss[8192] __attribute__((aligned(4096)));

static void at(const char *where, unsigned char *p)
{
    uint16_t h = 0x1122, h2;
    uint32_t w = 0x11223344u, w2;
    uint64_t q = 0x1122334455667788ull, q2;
    memset(p, 0, 8);
    __asm__ volatile("movbe %1, %0" : "=m"(*(uint16_t *)p) : "r"(h));
    __asm__ volatile("movbe %1, %0" : "=r"(h2) : "m"(*(uint16_t *)p));
    printf("%s 16: %02x%02x -> %04x\n", where, p[0], p[1], h2);
    __asm__ volatile("movbe %1, %0" : "=m"(*(uint32_t *)p) : "r"(w));
    __asm__ volatile("movbe %1, %0" : "=r"(w2) : "m"(*(uint32_t *)p));
    printf("%s 32: %02x%02x%02x%02x -> %08x\n", where, p[0], p[1], p[2], p[3], w2);
    __asm__ volatile("movbe %1, %0" : "=m"(*(uint64_t *)p) : "r"(q));
    __asm__ volatile("movbe %1, %0" : "=r"(q2) : "m"(*(uint64_t *)p));
    printf("%s 64: %02x%02x%02x%02x%02x%02x%02x%02x -> %016llx\n", where, p[0], p[1], p[2],
           p[3], p[4], p[5], p[6], p[7], (unsigned long long)q2);
}

int main(void)
{
    unsigned char stack[16];
    at("stack", stack);
    at("bss", bss + 100);
    at("bss across a page", bss + 4096 - 3);
    unsigned char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    at("mmap", m);
    at("mmap across a page", m + 4096 - 5);
    return 0;
}
