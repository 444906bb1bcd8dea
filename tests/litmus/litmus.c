/* x86-TSO litmus tests and atomicity counts, for a guest whose threads may
 * run on several host cores at once (issue 35).
 *
 *   litmus TEST [INSTANCES]
 *
 * TEST is one of
 *   sb         store buffering: r1=r2=0 is ALLOWED (x86's store buffer);
 *              reported, never required
 *   sb-mfence  the same with mfence between the store and the load:
 *              r1=r2=0 FORBIDDEN
 *   sb-locked  the same with a locked add (to a private location) between:
 *              r1=r2=0 FORBIDDEN
 *   mp         message passing: r1=1 (flag), r2=0 (data) FORBIDDEN
 *   lb         load buffering: r1=r2=1 FORBIDDEN
 *   iriw       two readers of two independent writes disagreeing on their
 *              order FORBIDDEN (x86 stores are multi-copy atomic)
 *   atomics    4 threads: lock add, lock xadd, lock cmpxchg retry loops, an
 *              xchg spin lock around a plain increment, lock cmpxchg8b and
 *              lock cmpxchg16b (both halves; x86_64), lock add misaligned across a
 *              cache line and across a page: every final count exact
 *
 * Each shape runs INSTANCES fresh copies of its locations (each on its own
 * cache line, zero at the start); the threads walk them in step, aligning
 * on each instance with a bounded spin (so that a guest whose threads run
 * one at a time, where the partner never arrives, only pays a short spin).
 * The accesses are inline assembly, so the compiler cannot reorder or merge
 * them: what is tested is the CPU's (or the emulator's) order.
 *
 * Every shape also runs a control: the same harness with the ordering the
 * check relies on broken on purpose (the writer's stores swapped, no fence,
 * a plain add instead of a locked one).  Natively the control's outcome is
 * usually seen; that shows the check counts what it claims.  Controls are
 * printed, never judged: how often a racy outcome appears depends on the
 * machine and on the scheduling.
 *
 * The last line is the verdict, "verdict: TEST: ...", the same on every
 * machine that keeps x86-TSO; exit status 0 if it held, 1 if not, 2 on a
 * usage or set-up error.  tests/litmus/check_litmus.py compares only the
 * verdict line and the status of a native run and an emulated one.
 *
 * Build: gcc -O2 -static -pthread (x86-64). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LINE 64
#define MAX_THREADS 4
#define SPIN_MAX 4096   /* pauses an aligned wait may take */
#define SPIN_MIN 64     /* ... once the partners keep missing it */

/* One instance's locations, each on a cache line of its own. */
struct inst {
    _Alignas(LINE) volatile uint32_t x;
    _Alignas(LINE) volatile uint32_t y;
    _Alignas(LINE) volatile uint32_t scratch[MAX_THREADS];  /* sb-locked's targets */
};

/* What each thread read, per instance. */
struct regs {
    uint32_t r[2];
};

enum shape { SB, SB_MFENCE, SB_LOCKED, MP, LB, IRIW,
             /* the controls */
             MP_SWAPPED, LB_SWAPPED, IRIW_SAME_ORDER };

struct run {
    enum shape shape;
    unsigned threads;
    size_t n;
    struct inst *inst;
    struct regs *regs[MAX_THREADS];
    _Alignas(LINE) volatile size_t arrive[MAX_THREADS][LINE / sizeof(size_t)];
    _Alignas(LINE) volatile uint32_t started;
};

static void die(const char *what)
{
    fprintf(stderr, "litmus: %s\n", what);
    exit(2);
}

static void *alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die("out of memory");
    return p;
}

static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

/* One step of an unbounded wait: a pause, and now and then the CPU given
 * up, so that a thread the wait needs and that is not running (a guest
 * whose threads take turns, or more threads than cores) gets to run. */
static void backoff(unsigned spins)
{
    if (spins % 256 == 255)
        sched_yield();
    else
        cpu_relax();
}

/* Phase PHASE (0, 1, ...) starts once all THREADS have arrived at it.  The
 * wait spins, so that the threads leave it together (a futex wake-up would
 * start them tens of microseconds apart, longer than a phase may take). */
static void rendezvous(volatile uint32_t *arrived, unsigned threads, unsigned phase)
{
    __atomic_fetch_add(arrived, 1, __ATOMIC_SEQ_CST);
    for (unsigned spins = 0; *arrived < threads * (phase + 1); spins++)
        backoff(spins);
}

/* Wait, at most *budget pauses, until every other thread has reached
 * instance k.  A wait that times out shrinks the next one's budget, one
 * that succeeds restores it: threads that run together stay in step, and
 * one that runs alone (its partners not scheduled) soon stops waiting. */
static void align(struct run *run, unsigned me, size_t k, unsigned *budget)
{
    run->arrive[me][0] = k + 1;
    for (unsigned spins = 0;; spins++) {
        bool all = true;
        for (unsigned t = 0; t < run->threads; t++)
            all = all && run->arrive[t][0] > k;
        if (all) {
            *budget = SPIN_MAX;
            return;
        }
        if (spins >= *budget) {
            *budget = *budget / 4 * 3 > SPIN_MIN ? *budget / 4 * 3 : SPIN_MIN;
            return;
        }
        cpu_relax();
    }
}

/* The accesses of each thread of each shape.  Stores write 1. */
static void store(volatile uint32_t *p) { __asm__ volatile("movl $1, %0" : "=m"(*p) :: "memory"); }


static void shape_thread(struct run *run, unsigned me, struct inst *in, struct regs *out)
{
    volatile uint32_t *mine = me == 0 ? &in->x : &in->y, *other = me == 0 ? &in->y : &in->x;
    uint32_t a, b;
    switch (run->shape) {
    case SB:   /* store mine, load the other's */
        __asm__ volatile("movl $1, %1\n\tmovl %2, %0"
                         : "=&r"(a), "=m"(*mine) : "m"(*other) : "memory");
        out->r[0] = a;
        break;
    case SB_MFENCE:
        __asm__ volatile("movl $1, %1\n\tmfence\n\tmovl %2, %0"
                         : "=&r"(a), "=m"(*mine) : "m"(*other) : "memory");
        out->r[0] = a;
        break;
    case SB_LOCKED:
        __asm__ volatile("movl $1, %1\n\tlock addl $0, %2\n\tmovl %3, %0"
                         : "=&r"(a), "=m"(*mine), "+m"(in->scratch[me]) : "m"(*other)
                         : "memory");
        out->r[0] = a;
        break;
    case MP:         /* thread 0: data (x), then flag (y); thread 1: flag, then data */
    case MP_SWAPPED: /* thread 0 writes the flag first: the outcome is allowed */
        if (me == 0) {
            if (run->shape == MP)
                __asm__ volatile("movl $1, %0\n\tmovl $1, %1" : "=m"(in->x), "=m"(in->y) :: "memory");
            else
                __asm__ volatile("movl $1, %1\n\tmovl $1, %0" : "=m"(in->x), "=m"(in->y) :: "memory");
        } else {
            __asm__ volatile("movl %2, %0\n\tmovl %3, %1"
                             : "=&r"(a), "=&r"(b) : "m"(in->y), "m"(in->x) : "memory");
            out->r[0] = a, out->r[1] = b;
        }
        break;
    case LB:         /* load the other's, then store mine */
        __asm__ volatile("movl %2, %0\n\tmovl $1, %1"
                         : "=&r"(a), "=m"(*mine) : "m"(*other) : "memory");
        out->r[0] = a;
        break;
    case LB_SWAPPED: /* store mine first: both reading 1 is then allowed */
        __asm__ volatile("movl $1, %1\n\tmovl %2, %0"
                         : "=&r"(a), "=m"(*mine) : "m"(*other) : "memory");
        out->r[0] = a;
        break;
    case IRIW:            /* 0 writes x, 1 writes y; 2 reads x then y, 3 y then x */
    case IRIW_SAME_ORDER: /* 3 reads x then y too: "disagreeing" is then allowed */
        if (me == 0)
            store(&in->x);
        else if (me == 1)
            store(&in->y);
        else {
            volatile uint32_t *first = me == 2 || run->shape == IRIW_SAME_ORDER ? &in->x : &in->y;
            volatile uint32_t *second = first == &in->x ? &in->y : &in->x;
            __asm__ volatile("movl %2, %0\n\tmovl %3, %1"
                             : "=&r"(a), "=&r"(b) : "m"(*first), "m"(*second) : "memory");
            /* r[0] is always x, r[1] always y */
            out->r[0] = first == &in->x ? a : b;
            out->r[1] = first == &in->x ? b : a;
        }
        break;
    }
}

/* What a thread is started with: its run (struct run or struct
 * atomic_run) and its number. */
struct arg {
    void *run;
    unsigned me;
};

static void *shape_worker(void *p)
{
    struct arg *arg = p;
    struct run *run = arg->run;
    unsigned budget = SPIN_MAX;
    rendezvous(&run->started, run->threads, 0);
    for (size_t k = 0; k < run->n; k++) {
        align(run, arg->me, k, &budget);
        /* A short delay that differs per thread and instance: the last
         * thread to arrive leaves its wait first, and the skew sweeps the
         * window in which the threads' accesses overlap. */
        for (unsigned d = (uint32_t)((k + 1) * 2654435761u ^ (arg->me + 1) * 2246822519u) >> 26;
             d; d--)
            __asm__ volatile("");
        shape_thread(run, arg->me, &run->inst[k], &run->regs[arg->me][k]);
    }
    return NULL;
}

static void run_shape(struct run *run, enum shape shape, unsigned threads, size_t n)
{
    memset(run, 0, sizeof *run);
    run->shape = shape, run->threads = threads, run->n = n;
    run->inst = alloc(n * sizeof *run->inst);
    for (unsigned t = 0; t < threads; t++)
        run->regs[t] = alloc(n * sizeof(struct regs));
    pthread_t tid[MAX_THREADS];
    struct arg args[MAX_THREADS];
    for (unsigned t = 0; t < threads; t++) {
        args[t] = (struct arg){ run, t };
        if (pthread_create(&tid[t], NULL, shape_worker, &args[t]))
            die("pthread_create failed");
    }
    for (unsigned t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
}

static void free_shape(struct run *run)
{
    munmap(run->inst, run->n * sizeof *run->inst);
    for (unsigned t = 0; t < run->threads; t++)
        munmap(run->regs[t], run->n * sizeof(struct regs));
}

/* How many instances ended in the outcome the shape is about. */
static size_t count_outcome(const struct run *run)
{
    size_t seen = 0;
    for (size_t k = 0; k < run->n; k++) {
        const struct regs *r0 = &run->regs[0][k], *r1 = &run->regs[1][k];
        switch (run->shape) {
        case SB: case SB_MFENCE: case SB_LOCKED:
            seen += r0->r[0] == 0 && r1->r[0] == 0;
            break;
        case MP: case MP_SWAPPED:
            seen += r1->r[0] == 1 && r1->r[1] == 0;
            break;
        case LB: case LB_SWAPPED:
            seen += r0->r[0] == 1 && r1->r[0] == 1;
            break;
        case IRIW: case IRIW_SAME_ORDER: {
            /* reader 2 saw x's write and not y's; reader 3 y's and not x's */
            const struct regs *a = &run->regs[2][k], *b = &run->regs[3][k];
            seen += a->r[0] == 1 && a->r[1] == 0 && b->r[0] == 0 && b->r[1] == 1;
            break;
        }
        }
    }
    return seen;
}

/* Runs the shape and its control; returns the verdict's status. */
static int litmus(const char *name, enum shape shape, enum shape control, unsigned threads,
                  size_t n, const char *outcome, bool forbidden, const char *control_what)
{
    struct run *run = alloc(sizeof *run);
    run_shape(run, shape, threads, n);
    size_t seen = count_outcome(run);
    free_shape(run);
    printf("%s: %zu instances, %u threads: %s seen %zu times\n", name, n, threads, outcome, seen);
    if (control_what) {
        run_shape(run, control, threads, n);
        size_t control_seen = count_outcome(run);
        free_shape(run);
        printf("control (%s): %s seen %zu times\n", control_what, outcome, control_seen);
    }
    if (!forbidden) {
        printf("verdict: %s: %s allowed, not required: x86-TSO holds\n", name, outcome);
        return 0;
    }
    if (seen) {
        printf("verdict: %s: FORBIDDEN %s seen: x86-TSO broken\n", name, outcome);
        return 1;
    }
    printf("verdict: %s: %s never seen: x86-TSO holds\n", name, outcome);
    return 0;
}

/* ---- atomicity ---- */

#define ATOMIC_THREADS 4

struct counters {
    _Alignas(LINE) volatile uint32_t add;
    _Alignas(LINE) volatile unsigned long xadd; /* a register's width: xadd takes one */
    _Alignas(LINE) volatile uint32_t cas;
    _Alignas(LINE) volatile uint32_t spin_lock;
    volatile unsigned long spin_counted; /* beside its lock, as people write it */
    _Alignas(LINE) volatile uint64_t pair8;     /* cmpxchg8b: low half +1, high half +5 */
    _Alignas(LINE) volatile uint64_t pair16[2];  /* cmpxchg16b: low +1, high +3 (x86_64) */
    _Alignas(LINE) volatile uint32_t plain;     /* the control: add without lock */
    uint64_t xadd_sum[ATOMIC_THREADS];          /* the old values each thread got */
};

struct atomic_run {
    struct counters *c;
    volatile uint32_t *misaligned;   /* 4 bytes across a cache line */
    volatile unsigned long *page_split; /* a register's width across a page */
    size_t n, split_n, plain_n;
    _Alignas(LINE) volatile uint32_t started;
};

static void spin_acquire(volatile uint32_t *lock)
{
    for (unsigned spins = 0;; spins++) {
        uint32_t v = 1;
        __asm__ volatile("xchgl %0, %1" : "+r"(v), "+m"(*lock) :: "memory");
        if (v == 0)
            return;
        backoff(spins);
    }
}

static void *atomics_thread(void *p)
{
    struct arg *arg = p;
    struct atomic_run *ar = arg->run;
    struct counters *c = ar->c;
    uint64_t sum = 0;
    rendezvous(&ar->started, ATOMIC_THREADS, 0);
    for (size_t i = 0; i < ar->n; i++) {
        __asm__ volatile("lock addl $1, %0" : "+m"(c->add) :: "memory");

        unsigned long old = 1;
        __asm__ volatile("lock xadd %0, %1" : "+r"(old), "+m"(c->xadd) :: "memory");
        sum += old;

        uint32_t seen = c->cas, want;
        do {
            want = seen + 1;
            __asm__ volatile("lock cmpxchgl %2, %1"
                             : "+a"(seen), "+m"(c->cas) : "r"(want) : "memory", "cc");
        } while (seen + 1 != want);

        spin_acquire(&c->spin_lock);
        unsigned long v;
        __asm__ volatile("mov %1, %0\n\tadd $1, %0\n\tmov %0, %1"
                         : "=&r"(v), "+m"(c->spin_counted) :: "memory");
        __asm__ volatile("movl $0, %0" : "=m"(c->spin_lock) :: "memory");

        /* cmpxchg8b: edx:eax expected, ecx:ebx new */
        uint32_t lo = (uint32_t)c->pair8, hi = (uint32_t)(c->pair8 >> 32);
        for (;;) {
            uint8_t ok;
            uint32_t nlo = lo + 1, nhi = hi + 5;
            __asm__ volatile("lock cmpxchg8b %1\n\tsetz %0"
                             : "=q"(ok), "+m"(c->pair8), "+a"(lo), "+d"(hi)
                             : "b"(nlo), "c"(nhi) : "memory", "cc");
            if (ok)
                break;
        }

#ifdef __x86_64__
        /* cmpxchg16b: rdx:rax expected, rcx:rbx new */
        uint64_t lo16 = c->pair16[0], hi16 = c->pair16[1];
        for (;;) {
            uint8_t ok;
            uint64_t nlo = lo16 + 1, nhi = hi16 + 3;
            __asm__ volatile("lock cmpxchg16b %1\n\tsetz %0"
                             : "=q"(ok), "+m"(c->pair16),
                               "+a"(lo16), "+d"(hi16)
                             : "b"(nlo), "c"(nhi) : "memory", "cc");
            if (ok)
                break;
        }
#endif
    }
    /* Locked accesses across a cache line and across a page: what a host
     * cannot do with one atomic instruction of its own (an emulator falls
     * back to stopping the other threads; x86 takes a bus lock). */
    rendezvous(&ar->started, ATOMIC_THREADS, 1);
    for (size_t i = 0; i < ar->split_n; i++) {
        __asm__ volatile("lock addl $1, %0" : "+m"(*ar->misaligned) :: "memory");
        __asm__ volatile("lock add %1, %0" : "+m"(*ar->page_split) : "r"(1ul) : "memory");
    }
    /* The control: a plain add, which threads running at once lose.  It
     * runs longer than the rest (it is cheap), so that threads of a loaded
     * machine get to run it at the same time. */
    rendezvous(&ar->started, ATOMIC_THREADS, 2);
    for (size_t i = 0; i < ar->plain_n; i++)
        __asm__ volatile("addl $1, %0" : "+m"(c->plain) :: "memory");
    c->xadd_sum[arg->me] = sum;
    return NULL;
}

static int atomics(size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        die("no page size");
    struct atomic_run ar = { .n = n, .split_n = n / 8 ? n / 8 : 1, .plain_n = 32 * n };
    ar.c = alloc(sizeof *ar.c);
    char *pages = alloc(2 * (size_t)page);
    ar.misaligned = (volatile uint32_t *)(pages + LINE - 2);
    ar.page_split = (volatile unsigned long *)(pages + page - sizeof(long) / 2);
    pthread_t tid[ATOMIC_THREADS];
    struct arg args[ATOMIC_THREADS];
    for (unsigned t = 0; t < ATOMIC_THREADS; t++) {
        args[t] = (struct arg){ &ar, t };
        if (pthread_create(&tid[t], NULL, atomics_thread, &args[t]))
            die("pthread_create failed");
    }
    for (unsigned t = 0; t < ATOMIC_THREADS; t++)
        pthread_join(tid[t], NULL);

    const struct counters *c = ar.c;
    uint64_t total = (uint64_t)ATOMIC_THREADS * n, split_total = (uint64_t)ATOMIC_THREADS * ar.split_n;
    uint64_t plain_total = (uint64_t)ATOMIC_THREADS * ar.plain_n;
    uint64_t sum = 0;
    for (unsigned t = 0; t < ATOMIC_THREADS; t++)
        sum += c->xadd_sum[t];
    struct { const char *what; uint64_t got, want; } checks[] = {
        { "lock add", c->add, total },
        { "lock xadd", c->xadd, total },
        { "lock xadd, the old values' sum (each value once)", sum, total * (total - 1) / 2 },
        { "lock cmpxchg loop", c->cas, total },
        { "xchg spin lock around a plain increment", c->spin_counted, total },
        { "lock cmpxchg8b, low half", (uint32_t)c->pair8, (uint32_t)total },
        { "lock cmpxchg8b, high half", (uint32_t)(c->pair8 >> 32), (uint32_t)(5 * total) },
#ifdef __x86_64__
        { "lock cmpxchg16b, low half", c->pair16[0], total },
        { "lock cmpxchg16b, high half", c->pair16[1], 3 * total },
#endif
        { "lock add across a cache line", *ar.misaligned, split_total },
        { "lock add across a page", *ar.page_split, split_total },
    };
    unsigned bad = 0;
    printf("atomics: %u threads x %zu of each (%zu of the split ones, %zu plain adds)\n",
           ATOMIC_THREADS, n, ar.split_n, ar.plain_n);
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
        bool ok = checks[i].got == checks[i].want;
        bad += !ok;
        printf("%s: %s: %" PRIu64 " (want %" PRIu64 ")\n", ok ? "ok" : "WRONG", checks[i].what,
               checks[i].got, checks[i].want);
    }
    printf("control (plain add, no lock): %" PRIu64 " of %" PRIu64 " (%" PRIu64 " lost)\n",
           (uint64_t)c->plain, plain_total, plain_total - c->plain);
    if (bad) {
        printf("verdict: atomics: %u of %zu counts WRONG: atomicity broken\n", bad,
               sizeof checks / sizeof *checks);
        return 1;
    }
    printf("verdict: atomics: every count exact\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3)
        die("usage: litmus sb|sb-mfence|sb-locked|mp|lb|iriw|atomics [INSTANCES]");
    const char *test = argv[1];
    char *end = NULL;
    long long n = argc == 3 ? strtoll(argv[2], &end, 10) : 0;
    if (argc == 3 && (*end || n < 1 || n > 10000000))
        die("INSTANCES must be 1 to 10000000");
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t shape_n = n ? (size_t)n : 20000, atomic_n = n ? (size_t)n : 100000;
    if (!strcmp(test, "sb"))
        return litmus("sb", SB, SB, 2, shape_n, "r1=r2=0", false, NULL);
    if (!strcmp(test, "sb-mfence"))
        return litmus("sb-mfence", SB_MFENCE, SB, 2, shape_n, "r1=r2=0", true, "no mfence");
    if (!strcmp(test, "sb-locked"))
        return litmus("sb-locked", SB_LOCKED, SB, 2, shape_n, "r1=r2=0", true, "no locked op");
    if (!strcmp(test, "mp"))
        return litmus("mp", MP, MP_SWAPPED, 2, shape_n, "r1=1,r2=0", true,
                      "the flag stored before the data");
    if (!strcmp(test, "lb"))
        return litmus("lb", LB, LB_SWAPPED, 2, shape_n, "r1=r2=1", true,
                      "each thread's store before its load");
    if (!strcmp(test, "iriw"))
        return litmus("iriw", IRIW, IRIW_SAME_ORDER, 4, shape_n,
                      "readers disagreeing (x then not y, y then not x)", true,
                      "both readers read x first");
    if (!strcmp(test, "atomics"))
        return atomics(atomic_n);
    die("unknown test (sb, sb-mfence, sb-locked, mp, lb, iriw, atomics)");
}
