/* Resource limits, run natively under setrlimit and under seccomp-emu's
 * options (--cpu-time, --memory, --output-limit) or the rlimits the guest
 * sets itself.
 *
 *   lim CASE
 */
#include "sigtest.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

static volatile sig_atomic_t xcpu;
static char altstack[65536];

static void on_xcpu(int sig)
{
    (void)sig;
    struct rlimit r;
    getrlimit(RLIMIT_CPU, &r);
    xcpu++;
    say("SIGXCPU %d: soft limit now %ld, hard %ld\n", (int)xcpu, (long)r.rlim_cur,
        (long)r.rlim_max);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc, (void)si;
    say("caught signal %d on the alternate stack: stack overflow\n", sig);
    sys_exit(0);
}

/* Uses about 1 KiB of stack per level. */
static int __attribute__((noinline)) recurse(int n)
{
    volatile char pad[1000];
    pad[0] = (char)n;
    if (n == 0)
        return pad[0];
    return recurse(n - 1) + pad[0];
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    CASE("cpu")
    {
        struct rlimit r;
        getrlimit(RLIMIT_CPU, &r);
        say("RLIMIT_CPU %ld:%ld\n", (long)r.rlim_cur, (long)r.rlim_max);
        on_plain(SIGXCPU, on_xcpu, 0);
        for (;;)
            __asm__ volatile("" ::: "memory");
    }
    CASE("cpu-default")
    {
        for (;;)
            __asm__ volatile("" ::: "memory");
    }
    CASE("cpu-self")
    {
        /* the guest lowers its own soft limit */
        struct rlimit r = { 1, 2 };
        setrlimit(RLIMIT_CPU, &r);
        on_plain(SIGXCPU, on_xcpu, 0);
        for (;;)
            __asm__ volatile("" ::: "memory");
    }
    CASE("memory")
    {
        /* Allocate and touch 1 MiB blocks until refused. */
        struct rlimit r;
        getrlimit(RLIMIT_AS, &r);
        say("RLIMIT_AS %ld MiB\n", (long)(r.rlim_cur >> 20));
        long got = 0;
        for (int i = 0; i < 4096; i++) {
            void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
            if (p == MAP_FAILED) {
                say("mmap refused: errno %d\n", errno);
                break;
            }
            memset(p, 1, 1 << 20);
            got++;
        }
        say("at least 32 MiB before that: %d\n", got >= 32);
        errno = 0;
        void *b = sbrk(64 << 20);
        say("sbrk(64 MiB) refused: %d errno %d\n", b == (void *)-1, errno);
        void *m = malloc(64 << 20);
        say("malloc(64 MiB) refused: %d\n", m == NULL);
        return 0;
    }
    CASE("data")
    {
        /* RLIMIT_DATA counts private writable mappings that are not the
         * stack, and brk also tests the heap plus the ELF's data against
         * it. Every step stays a MiB or more from the limit, far from the
         * few KiB static start-up holds (E in the comments). */
        const long M = 1 << 20;
        long rc;
        struct rlimit r = { 64 * M, 64 * M };
        say("setrlimit 64 MiB: %d\n", setrlimit(RLIMIT_DATA, &r));
        char *a = mmap(NULL, 32 * M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 32 MiB rw private: %d\n", a != MAP_FAILED); /* 32+E */
        errno = 0;
        void *p = mmap(NULL, 40 * M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 40 MiB rw private: %d errno %d\n", p != MAP_FAILED, errno);
        char *c = mmap(NULL, 40 * M, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 40 MiB read-only: %d\n", c != MAP_FAILED);
        errno = 0;
        rc = mprotect(c, 40 * M, PROT_READ | PROT_WRITE);
        say("mprotect 40 MiB rw: %ld errno %d\n", rc, errno);
        say("mprotect 16 MiB rw: %d\n", mprotect(c, 16 * M, PROT_READ | PROT_WRITE)); /* 48+E */
        void *d = mmap(NULL, 40 * M, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        say("mmap 40 MiB rw shared: %d\n", d != MAP_FAILED);
        errno = 0;
        p = mremap(a, 32 * M, 52 * M, MREMAP_MAYMOVE);
        say("mremap 32 -> 52 MiB: %d errno %d\n", p != MAP_FAILED, errno);
        p = mremap(a, 32 * M, 44 * M, MREMAP_MAYMOVE);
        say("mremap 32 -> 44 MiB: %d\n", p != MAP_FAILED); /* 60+E */
        if (p != MAP_FAILED)
            a = p;
        /* MAP_FIXED is charged only for what it does not replace, of any kind */
        errno = 0;
        p = mmap(a, 8 * M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        say("MAP_FIXED 8 MiB rw over rw: %d errno %d\n", p != MAP_FAILED, errno);
        errno = 0;
        p = mmap(c + 24 * M, 8 * M, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        say("MAP_FIXED 8 MiB rw over read-only: %d errno %d\n", p != MAP_FAILED, errno); /* 68+E */
        errno = 0;
        rc = mprotect(c + 16 * M, 8 * M, PROT_READ | PROT_WRITE);
        say("mprotect 8 MiB rw, over the limit: %ld errno %d\n", rc, errno);
        say("munmap 44 MiB: %d, shared 40 MiB: %d\n", munmap(a, 44 * M), munmap(d, 40 * M));
        say("sbrk 36 MiB: %d\n", sbrk(36 * M) != (void *)-1); /* 60+E */
        errno = 0;
        p = sbrk(20 * M);
        say("sbrk 20 MiB more: %d errno %d\n", p != (void *)-1, errno);
        say("munmap the 40 MiB: %d\n", munmap(c, 40 * M)); /* 36+E */
        errno = 0;
        p = sbrk(30 * M);
        say("sbrk 30 MiB more: %d errno %d\n", p != (void *)-1, errno);
        say("sbrk -16 MiB: %d\n", sbrk(-16 * M) != (void *)-1); /* 20+E */
        /* a limit below what is held: brk may still shrink (Linux 6.18;
         * 6.1 refused) but not grow, read-only mappings still work */
        r.rlim_cur = 8 * M;
        say("setrlimit 8 MiB: %d\n", setrlimit(RLIMIT_DATA, &r));
        p = sbrk(-M);
        say("sbrk -1 MiB: %d\n", p != (void *)-1);
        errno = 0;
        p = sbrk(4096);
        say("sbrk 4 KiB: %d errno %d\n", p != (void *)-1, errno);
        p = mmap(NULL, M, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 1 MiB read-only: %d\n", p != MAP_FAILED);
        errno = 0;
        p = mmap(NULL, M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 1 MiB rw: %d errno %d\n", p != MAP_FAILED, errno);
        /* a soft limit of 0 lets the hard one decide for mappings (Linux's
         * allowance for Valgrind), not for brk */
        r.rlim_cur = 0;
        say("setrlimit 0:64 MiB: %d\n", setrlimit(RLIMIT_DATA, &r));
        p = mmap(NULL, M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 1 MiB rw: %d\n", p != MAP_FAILED); /* 20+E */
        errno = 0;
        p = mmap(NULL, 50 * M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        say("mmap 50 MiB rw: %d errno %d\n", p != MAP_FAILED, errno);
        errno = 0;
        p = sbrk(4096);
        say("sbrk 4 KiB: %d errno %d\n", p != (void *)-1, errno);
        return 0;
    }
    CASE("stack-ok")
    {
        /* 4 MiB deep: far more than the initial stack, within 8 MiB */
        say("recursion 4000 deep: %d\n", recurse(4000) > -1);
        return 0;
    }
    CASE("stack-overflow")
    {
        stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
        sigaltstack(&ss, NULL);
        on(SIGSEGV, on_segv, SA_ONSTACK);
        recurse(100000);
        say("not reached\n");
        return 1;
    }
    CASE("stack-overflow-default")
    {
        recurse(100000);
        return 1;
    }
    CASE("stack-lowered")
    {
        struct rlimit r = { 1 << 20, RLIM_INFINITY };
        getrlimit(RLIMIT_STACK, &r);
        r.rlim_cur = 1 << 20;
        setrlimit(RLIMIT_STACK, &r);
        stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
        sigaltstack(&ss, NULL);
        on(SIGSEGV, on_segv, SA_ONSTACK);
        say("recursion 500 deep: %d\n", recurse(500) > -1);
        recurse(2000);
        say("not reached\n");
        return 1;
    }
    CASE("output")
    {
        /* 10 writes of 1000 bytes: the fifth stops short at the limit,
         * the sixth meets SIGXFSZ.  Nothing else may be written: the
         * emulator counts every byte the guest writes. */
        static char buf[1000];
        memset(buf, 'x', sizeof(buf));
        buf[999] = '\n';
        for (int i = 0; i < 10; i++)
            if (write(1, buf, sizeof(buf)) < 0)
                return 100 + errno;
        return 0;
    }
    CASE("output-ignored")
    {
        /* Ignored: -EFBIG instead.  The tally is the exit code:
         * 20 per full write, 10 for a short one, 1 if EFBIG followed. */
        signal(SIGXFSZ, SIG_IGN);
        static char buf[1000];
        memset(buf, 'y', sizeof(buf));
        int full = 0, partial = 0, efbig = 0;
        for (int i = 0; i < 10; i++) {
            errno = 0;
            ssize_t w = write(1, buf, sizeof(buf));
            if (w == (ssize_t)sizeof(buf))
                full++;
            else if (w > 0)
                partial++;
            else if (errno == EFBIG)
                efbig = 1;
        }
        return full * 20 + partial * 10 + efbig;
    }
    CASE("spin")
    {
        for (;;)
            __asm__ volatile("" ::: "memory");
    }
    CASE("spin-strict")
    {
        enter_strict();
        for (;;)
            __asm__ volatile("" ::: "memory");
    }
    CASE("block-read")
    {
        char c;
        read(0, &c, 1);
        return 1;
    }
    return 2;
}
