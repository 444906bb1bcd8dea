/* Guest memory: the VMA table, its splits, and the Linux-shaped answers of
 * mmap, munmap, mprotect, mremap and brk. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "abi/linux.h"
#include "emu/engine/mem.h"
#include "emu/engine/window.h"

#define RW (PROT_READ_LINUX | PROT_WRITE_LINUX)
#define ANON (MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX)

static uc_engine *uc;
static struct mm *mm;

static int setup(void **state)
{
    (void)state;
    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_32, &uc), UC_ERR_OK);
    mm = mm_new(0xffffe000ull);
    assert_null(mm_attach_engine(mm, uc));
    mm->mmap_base = 0xf0000000ull;
    return 0;
}

static int teardown(void **state);

/* The same tests with guest memory in a window (docs/linear-mapping.md),
 * where the host page is 4 KiB; elsewhere mm_new must give none. */
static bool window_here(void) { return sysconf(_SC_PAGESIZE) == 4096; }

static int setup_window(void **state)
{
    mm_window_enable(true);
    setup(state);
    mm_window_enable(false);
    if (window_here())
        assert_non_null(mm_window_base(mm));
    else
        assert_null(mm_window_base(mm));
    assert_false(mm->window_failed);
    return 0;
}

/* Can the host read the byte at p?  A fault is caught, not taken: the
 * window's freed pages must be PROT_NONE, and only a read says so on
 * every host. */
static sigjmp_buf probe_jmp;

static void probe_fault(int sig)
{
    (void)sig;
    siglongjmp(probe_jmp, 1);
}

static bool host_readable(const volatile uint8_t *p)
{
    struct sigaction sa = { .sa_handler = probe_fault }, old_segv, old_bus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    bool ok = false;
    if (!sigsetjmp(probe_jmp, 1)) {
        (void)*p;
        ok = true;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    return ok;
}

/* Every ordinary piece at base + its address, every other one off the
 * window; and the window readable exactly where an ordinary piece is
 * (probed at each piece's edges and at each gap's). */
static void check_placement(const struct mm *m)
{
    uint8_t *base = mm_window_base(m);
    if (!base)
        return;
    uint64_t prev_end = 0;
    for (guint i = 0; i < m->vmas->len; i++) {
        const struct vma *v = &g_array_index(m->vmas, struct vma, i);
        bool ordinary = !v->shared && !v->hidden && !v->past_object && !v->no_page &&
                        v->end <= m->window_end;
        assert_int_equal(mm_in_window(m, v), ordinary);
        if (ordinary) {
            assert_ptr_equal(v->host, base + v->start);
            assert_true(host_readable(base + v->start));
            assert_true(host_readable(base + v->end - 1));
        } else {
            assert_true(v->host < base || v->host >= base + (1ull << 32));
            assert_false(host_readable(base + v->start));
        }
        if (v->start > prev_end) {
            assert_false(host_readable(base + prev_end));
            assert_false(host_readable(base + v->start - 1));
        }
        prev_end = v->end;
    }
}

static int teardown_window(void **state)
{
    check_placement(mm);
    return teardown(state);
}

static int teardown(void **state)
{
    (void)state;
    mm_detach_engine(mm, uc);
    mm_unref(mm);
    uc_close(uc);
    return 0;
}

static void mmap_topdown_and_fixed(void **state)
{
    (void)state;
    int64_t a = mm_mmap(mm, 0, 8192, RW, ANON);
    assert_int_equal(a, 0xf0000000ll - 8192);
    int64_t b = mm_mmap(mm, 0, 100, RW, ANON);
    assert_int_equal(b, a - 4096);
    assert_int_equal(mm_mmap(mm, 0, 0, RW, ANON), -EINVAL_LINUX);
    assert_int_equal(mm_mmap(mm, 0x10001, 4096, RW, ANON | MAP_FIXED_LINUX), -EINVAL_LINUX);
    /* Unknown prot bits are ignored, as Linux's mmap ignores them. */
    int64_t sem = mm_mmap(mm, 0, 4096, 0x8, ANON);
    assert_int_equal(sem, b - 4096);
    assert_int_equal(mm_find(mm, (uint64_t)sem)->prot, 0);
    assert_int_equal(mm_munmap(mm, (uint64_t)sem, 4096), 0);
    assert_int_equal(mm_mmap(mm, (uint64_t)a, 4096, RW, ANON | MAP_FIXED_NOREPLACE_LINUX),
                     -EEXIST_LINUX);
    assert_int_equal(mm_mmap(mm, 0xfffff000ull, 8192, RW, ANON | MAP_FIXED_LINUX),
                     -ENOMEM_LINUX);
    /* Contents are zero and survive a fixed remap elsewhere. */
    uint32_t v = 0xdeadbeef, r = 1;
    assert_true(mm_read(mm, (uint64_t)a, &r, 4));
    assert_int_equal(r, 0);
    assert_true(mm_write(mm, (uint64_t)a + 4096, &v, 4));
    /* MAP_FIXED over an existing mapping replaces it with zeros. */
    assert_int_equal(mm_mmap(mm, (uint64_t)a + 4096, 4096, RW, ANON | MAP_FIXED_LINUX),
                     a + 4096);
    assert_true(mm_read(mm, (uint64_t)a + 4096, &r, 4));
    assert_int_equal(r, 0);
    assert_int_equal(mm_munmap(mm, (uint64_t)b, 4096), 0);
    assert_int_equal(mm_munmap(mm, (uint64_t)a, 8192), 0);
    assert_null(mm_find(mm, (uint64_t)a));
}

static void mprotect_splits_and_prefix(void **state)
{
    (void)state;
    uint64_t a = (uint64_t)mm_mmap(mm, 0x100000, 4 * 4096, RW, ANON | MAP_FIXED_LINUX);
    assert_int_equal(a, 0x100000);
    uint32_t v = 42;
    assert_true(mm_write(mm, a + 2 * 4096 + 8, &v, 4));
    assert_int_equal(mm_mprotect(mm, a + 4096, 4096, PROT_READ_LINUX), 0);
    assert_int_equal(mm_find(mm, a)->prot, RW);
    assert_int_equal(mm_find(mm, a + 4096)->prot, PROT_READ_LINUX);
    assert_int_equal(mm_find(mm, a + 2 * 4096)->prot, RW);
    /* Data kept across the split. */
    uint32_t r = 0;
    assert_true(mm_read(mm, a + 2 * 4096 + 8, &r, 4));
    assert_int_equal(r, 42);
    /* A write-valid prefix stops at the read-only page. */
    assert_int_equal(mm_valid_prefix(mm, a, 4 * 4096, PROT_WRITE_LINUX), 4096);
    assert_int_equal(mm_valid_prefix(mm, a, 4 * 4096, PROT_READ_LINUX), 4 * 4096);
    assert_int_equal(mm_valid_prefix(mm, a, 5 * 4096, PROT_READ_LINUX), 4 * 4096);
    assert_false(mm_write(mm, a + 4096 - 2, &v, 4));
    /* Unmapped holes make mprotect fail with ENOMEM. */
    assert_int_equal(mm_munmap(mm, a + 3 * 4096, 4096), 0);
    assert_int_equal(mm_mprotect(mm, a, 4 * 4096, RW), -ENOMEM_LINUX);
    assert_int_equal(mm_mprotect(mm, a + 1, 4096, RW), -EINVAL_LINUX);
    assert_int_equal(mm_mprotect(mm, a, 3 * 4096, PROT_READ_LINUX), 0);
    assert_int_equal(mm_valid_prefix(mm, a, 3 * 4096, PROT_WRITE_LINUX), 0);
    assert_int_equal(mm_munmap(mm, a, 3 * 4096), 0);
}

static void mremap_grows_moves_shrinks(void **state)
{
    (void)state;
    uint64_t a = (uint64_t)mm_mmap(mm, 0x200000, 4096, RW, ANON | MAP_FIXED_LINUX);
    uint32_t v = 7, r = 0;
    assert_true(mm_write(mm, a, &v, 4));
    /* Room above: grows in place. */
    assert_int_equal(mm_mremap(mm, a, 4096, 3 * 4096, 0, 0), (int64_t)a);
    assert_int_equal(mm_valid_prefix(mm, a, 3 * 4096, PROT_WRITE_LINUX), 3 * 4096);
    /* Blocked above: moves only with MAYMOVE, contents follow. */
    assert_int_equal(mm_mmap(mm, a + 3 * 4096, 4096, RW, ANON | MAP_FIXED_LINUX),
                     (int64_t)(a + 3 * 4096));
    assert_int_equal(mm_mremap(mm, a, 3 * 4096, 5 * 4096, 0, 0), -ENOMEM_LINUX);
    int64_t b = mm_mremap(mm, a, 3 * 4096, 5 * 4096, MREMAP_MAYMOVE_LINUX, 0);
    assert_true(b > 0 && (uint64_t)b != a);
    assert_true(mm_read(mm, (uint64_t)b, &r, 4));
    assert_int_equal(r, 7);
    assert_null(mm_find(mm, a));
    assert_int_equal(mm_mremap(mm, (uint64_t)b, 5 * 4096, 4096, 0, 0), b);
    assert_null(mm_find(mm, (uint64_t)b + 4096));
    assert_int_equal(mm_mremap(mm, 0x900000, 4096, 8192, MREMAP_MAYMOVE_LINUX, 0),
                     -EFAULT_LINUX);
    assert_int_equal(mm_munmap(mm, (uint64_t)b, 4096), 0);
    assert_int_equal(mm_munmap(mm, a + 3 * 4096, 4096), 0);
}

static void brk_grows_and_shrinks(void **state)
{
    (void)state;
    mm->brk_start = mm->brk_cur = 0x804c123;
    assert_int_equal(mm_brk(mm, 0), 0x804c123);
    assert_int_equal(mm_brk(mm, 0x8050000), 0x8050000);
    uint32_t v = 1;
    assert_true(mm_write(mm, 0x804fffc, &v, 4));
    assert_true(mm_write(mm, 0x804d000, &v, 4));
    assert_int_equal(mm_brk(mm, 0x804d000), 0x804d000);
    assert_false(mm_write(mm, 0x804e000, &v, 4));
    /* Growing into an occupied range fails: brk stays. */
    assert_int_equal(mm_mmap(mm, 0x8060000, 4096, RW, ANON | MAP_FIXED_LINUX), 0x8060000);
    assert_int_equal(mm_brk(mm, 0x8070000), 0x804d000);
    assert_int_equal(mm_brk(mm, 0x8000000), 0x804d000); /* below the start */
}

static void strings_and_iovecs(void **state)
{
    (void)state;
    uint64_t a = (uint64_t)mm_mmap(mm, 0x300000, 2 * 4096, RW, ANON | MAP_FIXED_LINUX);
    assert_true(mm_write(mm, a + 4096 - 3, "/proc", 6));
    char s[16];
    assert_int_equal(mm_read_string(mm, a + 4096 - 3, s, sizeof(s)), 0);
    assert_string_equal(s, "/proc");
    assert_int_equal(mm_read_string(mm, a + 4096 - 3, s, 3), -ENAMETOOLONG_LINUX);
    assert_int_equal(mm_read_string(mm, 0x500000, s, 3), -EFAULT_LINUX);
    /* Two pieces of different protection give two iovecs. */
    assert_int_equal(mm_mprotect(mm, a + 4096, 4096, PROT_READ_LINUX), 0);
    struct iovec iov[4];
    uint64_t covered;
    assert_int_equal(mm_iovecs(mm, a + 100, 8000, PROT_READ_LINUX, iov, 4, &covered), 2);
    assert_int_equal(covered, 8000);
    assert_int_equal(iov[0].iov_len, 4096 - 100);
    assert_int_equal(mm_iovecs(mm, a + 100, 8000, PROT_WRITE_LINUX, iov, 4, &covered), 1);
    assert_int_equal(covered, 4096 - 100);
    assert_int_equal(mm_munmap(mm, a, 2 * 4096), 0);
}

static void fill(uint64_t addr, uint64_t len, uint8_t seed)
{
    for (uint64_t o = 0; o < len; o += 512) {
        uint8_t b = (uint8_t)(seed + o / 512);
        assert_true(mm_write(mm, addr + o, &b, 1));
    }
}

static void expect(const struct mm *m, uint64_t addr, uint64_t len, uint8_t seed)
{
    for (uint64_t o = 0; o < len; o += 512) {
        uint8_t b = 0;
        assert_true(mm_peek(m, addr + o, &b, 1));
        assert_int_equal(b, (uint8_t)(seed + o / 512));
    }
}

/* Placement through every way a mapping comes, goes, splits, grows and
 * moves, and a fork's copy: each ordinary piece at base + address with its
 * contents, freed ranges PROT_NONE, shared memory off the window. */
static void window_placement(void **state)
{
    (void)state;
    uint8_t *base = mm_window_base(mm);
    if (!base)
        skip();
    const uint64_t P = 4096;
    /* mmap; munmap of a middle page; mprotect of another. */
    uint64_t a = (uint64_t)mm_mmap(mm, 0x100000, 8 * P, RW, ANON | MAP_FIXED_LINUX);
    assert_int_equal(a, 0x100000);
    fill(a, 8 * P, 1);
    assert_int_equal(base[a + 512], 2); /* the host byte is the guest's */
    assert_int_equal(mm_munmap(mm, a + 2 * P, P), 0);
    assert_false(host_readable(base + a + 2 * P));
    assert_int_equal(mm_mprotect(mm, a + 5 * P, P, PROT_READ_LINUX), 0);
    check_placement(mm);
    expect(mm, a, 2 * P, 1);
    expect(mm, a + 3 * P, 5 * P, 1 + 3 * 8);
    /* A fresh mapping over the freed page reads zeros. */
    assert_int_equal(mm_mmap(mm, a + 2 * P, P, RW, ANON | MAP_FIXED_LINUX), (int64_t)(a + 2 * P));
    assert_int_equal(base[a + 2 * P], 0);
    check_placement(mm);

    /* brk: the first break maps the heap, the next grows it in place. */
    mm->brk_start = mm->brk_cur = 0x8050000;
    assert_int_equal(mm_brk(mm, 0x8052000), 0x8052000);
    fill(0x8050000, 2 * P, 40);
    assert_int_equal(mm_brk(mm, 0x8090000), 0x8090000);
    expect(mm, 0x8050000, 2 * P, 40);
    fill(0x8080000, P, 50);
    check_placement(mm);
    assert_int_equal(mm_brk(mm, 0x8051000), 0x8051000);
    assert_false(host_readable(base + 0x8051000));
    check_placement(mm);

    /* The stack grows down into the window. */
    assert_null(mm_map_fixed(mm, 0xbf000000, 2 * P, RW, STACK_VMA_NAME, NULL));
    fill(0xbf000000, 2 * P, 60);
    bool was_stack;
    mm_set_stack_limit(mm, 8 << 20);
    assert_null(mm_grow_stack(mm, 0xbf000000 - 100, &was_stack));
    assert_true(was_stack);
    assert_true(mm_find(mm, 0xbf000000 - 100) != NULL);
    fill(0xbf000000 - P, P, 70);
    expect(mm, 0xbf000000, 2 * P, 60);
    check_placement(mm);

    /* mremap: grows in place, then moves (the pages go along). */
    uint64_t r = (uint64_t)mm_mmap(mm, 0x400000, 2 * P, RW, ANON | MAP_FIXED_LINUX);
    fill(r, 2 * P, 80);
    assert_int_equal(mm_mremap(mm, r, 2 * P, 4 * P, 0, 0), (int64_t)r);
    fill(r + 2 * P, 2 * P, 90);
    check_placement(mm);
    int64_t m = mm_mremap(mm, r, 4 * P, 4 * P, MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX,
                          0x600000);
    assert_int_equal(m, 0x600000);
    expect(mm, 0x600000, 2 * P, 80);
    expect(mm, 0x600000 + 2 * P, 2 * P, 90);
    assert_false(host_readable(base + r));
    assert_false(host_readable(base + r + 4 * P - 1));
    check_placement(mm);
    /* ... and grows as it moves. */
    assert_int_equal(mm_mmap(mm, 0x600000 + 4 * P, P, RW, ANON | MAP_FIXED_LINUX),
                     0x600000 + 4 * P);
    m = mm_mremap(mm, 0x600000, 4 * P, 6 * P, MREMAP_MAYMOVE_LINUX, 0);
    assert_true(m > 0 && m != 0x600000);
    expect(mm, (uint64_t)m, 2 * P, 80);
    expect(mm, (uint64_t)m + 2 * P, 2 * P, 90);
    check_placement(mm);
    /* A shrink in place frees the tail. */
    assert_int_equal(mm_mremap(mm, (uint64_t)m, 6 * P, 3 * P, 0, 0), m);
    assert_false(host_readable(base + m + 3 * P));
    expect(mm, (uint64_t)m, 2 * P, 80);
    check_placement(mm);
    /* MREMAP_DONTUNMAP: the pages move, the old range stays mapped,
     * emptied; both at base + address. */
    int64_t d = mm_mremap(mm, (uint64_t)m, P, P, MREMAP_MAYMOVE_LINUX | MREMAP_DONTUNMAP_LINUX, 0);
    assert_true(d > 0 && d != m);
    expect(mm, (uint64_t)d, P, 80);
    assert_int_equal(base[m], 0);
    check_placement(mm);
    /* MAP_FIXED over a mapped page: fresh zeros in its place. */
    assert_int_equal(mm_mmap(mm, (uint64_t)m + P, P, RW, ANON | MAP_FIXED_LINUX), m + P);
    assert_int_equal(base[m + P], 0);
    expect(mm, (uint64_t)m + 2 * P, P, 90);
    check_placement(mm);

    /* seccomp-emu's hidden pages, mapped above the guest's limit as cpu.c
     * maps them (the LDT at TASK_SIZE, the kernel page above), stay off
     * the window. */
    uint64_t saved_limit = mm->limit;
    mm->limit = 1ull << 32;
    assert_null(mm_map_fixed(mm, 0xffffe000ull, P, PROT_READ_LINUX, "[ldt]", NULL));
    assert_null(mm_map_fixed(mm, 0xfffff000ull, P, PROT_READ_LINUX | PROT_EXEC_LINUX, "[kernel]",
                             NULL));
    mm->limit = saved_limit;
    mm_hide(mm, 0xffffe000ull);
    mm_hide(mm, 0xfffff000ull);
    assert_false(mm_in_window(mm, mm_find(mm, 0xfffff000ull)));
    assert_false(host_readable(base + 0xffffe000ull));
    check_placement(mm);

    /* Shared memory and its second view stay off the window. */
    int64_t sh = mm_mmap(mm, 0, P, RW, MAP_SHARED_LINUX | MAP_ANONYMOUS_LINUX);
    assert_true(sh > 0);
    assert_false(mm_in_window(mm, mm_find(mm, (uint64_t)sh)));
    int64_t view = mm_mremap(mm, (uint64_t)sh, 0, P, MREMAP_MAYMOVE_LINUX, 0);
    assert_true(view > 0);
    assert_ptr_equal(mm_find(mm, (uint64_t)view)->host, mm_find(mm, (uint64_t)sh)->host);
    fill((uint64_t)sh, P, 100);
    expect(mm, (uint64_t)view, P, 100);
    check_placement(mm);

    /* fork: a window of its own, the private memory copied into it, the
     * shared memory the same host pages. */
    struct mm *child;
    assert_null(mm_copy(mm, &child));
    uint8_t *cbase = mm_window_base(child);
    assert_non_null(cbase);
    assert_true(cbase != base);
    check_placement(child);
    expect(child, a, 2 * P, 1);
    expect(child, 0x8050000, P, 40);
    expect(child, 0xbf000000, 2 * P, 60);
    expect(child, (uint64_t)d, P, 80);
    expect(child, (uint64_t)m + 2 * P, P, 90);
    assert_ptr_equal(mm_find(child, (uint64_t)sh)->host, mm_find(mm, (uint64_t)sh)->host);
    uint8_t b = 0xee;
    assert_true(mm_write(child, a, &b, 1));
    expect(mm, a, P, 1); /* the parent's copy is its own */
    mm_unref(child);
    expect(mm, (uint64_t)sh, P, 100); /* the shared pages outlive the child */
    check_placement(mm);
}

/* A refused reservation (here RLIMIT_AS) leaves the mm without a window,
 * placed as before, and says so. */
static void window_refused(void **state)
{
    (void)state;
    if (!window_here())
        skip();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* A sanitizer's shadow takes terabytes of address space: under any
     * RLIMIT_AS that refuses 4 GiB it cannot map its own memory (the
     * plain build runs this). */
    skip();
#endif
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    low = old;
    low.rlim_cur = 1ull << 31; /* below the 4 GiB the window needs */
    assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
    /* qemu-user (the arm64 leg) keeps RLIMIT_AS from the host: where the
     * limit refuses nothing, there is nothing to test. */
    void *probe = mmap(NULL, 3ull << 30, PROT_NONE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (probe != MAP_FAILED) {
        munmap(probe, 3ull << 30);
        assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
        skip();
    }
    mm_window_enable(true);
    struct mm *m = mm_new(0xffffe000ull);
    mm_window_enable(false);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    assert_true(m->window_failed);
    assert_null(mm_window_base(m));
    assert_int_equal(mm_mmap(m, 0x100000, 4096, RW, ANON | MAP_FIXED_LINUX), 0x100000);
    assert_false(mm_in_window(m, mm_find(m, 0x100000)));
    mm_unref(m);
    /* A fork whose child is refused its window: the parent's windowed
     * memory is copied out of the window, each piece on its own.  The
     * limit leaves room for that, not for 4 GiB more (Linux's statm says
     * how much is mapped now). */
    mm_window_enable(true);
    struct mm *parent = mm_new(0xffffe000ull);
    mm_window_enable(false);
    assert_non_null(mm_window_base(parent));
    assert_int_equal(mm_mmap(parent, 0x100000, 3 * 4096, RW, ANON | MAP_FIXED_LINUX), 0x100000);
    assert_int_equal(mm_munmap(parent, 0x101000, 4096), 0);
    uint8_t v = 9;
    assert_true(mm_write(parent, 0x102000, &v, 1));
    /* ... and one moved away from where its chunk was placed. */
    assert_int_equal(mm_mmap(parent, 0x200000, 2 * 4096, RW, ANON | MAP_FIXED_LINUX), 0x200000);
    assert_true(mm_write(parent, 0x201000, &v, 1));
    assert_int_equal(mm_mremap(parent, 0x200000, 2 * 4096, 2 * 4096,
                               MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX, 0x300000), 0x300000);
    unsigned long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    bool have_statm = statm && fscanf(statm, "%lu", &pages) == 1;
    if (statm)
        fclose(statm);
    if (have_statm) {
        low.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (1ull << 30);
        assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
        struct mm *child = NULL;
        err_t e = mm_copy(parent, &child);
        assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
        assert_null(e);
        assert_true(child->window_failed);
        assert_null(mm_window_base(child));
        const struct vma *cv = mm_find(child, 0x102000);
        assert_non_null(cv);
        assert_false(mm_in_window(child, cv));
        assert_int_equal(cv->host[0], 9);
        uint8_t r = 0;
        assert_true(mm_read(child, 0x301000, &r, 1));
        assert_int_equal(r, 9);
        mm_unref(child);
    }
    mm_unref(parent);
    /* A 64-bit address space never has one. */
    mm_window_enable(true);
    m = mm_new(0x7ffffffff000ull);
    mm_window_enable(false);
    assert_null(mm_window_base(m));
    assert_false(m->window_failed);
    mm_unref(m);
}

/* ---- x86_64 address spaces in slots (docs/linear-mapping.md, 8.) ---- */

#define SLOT(a) ((uint64_t)(a) >> UC_LINEAR_SLOT_BITS)
#define TIB (1ull << UC_LINEAR_SLOT_BITS)

static int setup_slots(void **state)
{
    (void)state;
    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_64, &uc), UC_ERR_OK);
    mm_slots_enable(true, false);
    mm = mm_new(0x7ffffffff000ull);
    mm_slots_enable(false, false);
    assert_null(mm_attach_engine(mm, uc));
    mm->mmap_base = 0x7ffff7fff000ull;
    /* Only where an engine can reach them directly (x86-64, 4 KiB pages). */
    assert_int_equal(mm->slots_wanted, mm_window_direct_host());
    return 0;
}

/* A piece in a slot at its slot's base + its offset, the slot's table
 * entry saying so, its pages readable there; every other piece off the
 * slots, their pages there PROT_NONE.  Shared memory and pieces across two
 * slots are never in one; private memory placed in a reserved slot is
 * (the test says where), and stays off after a move out and back. */
static void check_slots(const struct mm *m)
{
    if (!m->slots_wanted)
        return;
    for (guint i = 0; i < m->vmas->len; i++) {
        const struct vma *v = &g_array_index(m->vmas, struct vma, i);
        struct window *w = SLOT(v->start) < UC_LINEAR_SLOTS ? m->slots[SLOT(v->start)] : NULL;
        bool one_slot = SLOT(v->end - 1) == SLOT(v->start);
        if (mm_in_window(m, v)) {
            assert_true(w && one_slot && !v->shared && !v->hidden && !v->past_object);
            uint64_t off = v->start - SLOT(v->start) * TIB;
            assert_ptr_equal(v->host, window_base(w) + off);
            assert_true(v->host == (uint8_t *)(uintptr_t)(v->start + m->slot_table[SLOT(v->start)]));
            assert_true(host_readable(v->host));
            assert_true(host_readable(v->host + (v->end - v->start) - 1));
        } else if (w) {
            assert_false(host_readable(window_base(w) + (v->start - SLOT(v->start) * TIB)));
        }
    }
    assert_int_equal(m->slot_table[UC_LINEAR_SLOTS], 0);
    assert_int_equal(m->slot_table[UC_LINEAR_TABLE_ENTRIES - 1], 0);
}

static unsigned slots_of(const struct mm *m)
{
    unsigned n = 0;
    for (unsigned i = 0; i < UC_LINEAR_SLOTS; i++) {
        n += m->slots[i] != NULL;
        assert_int_equal(m->slots[i] != NULL, m->slot_table[i] != 0);
    }
    assert_int_equal(m->windows.n, n);
    return n;
}

/* A slot per TiB where memory goes, reserved with its first piece; a piece
 * across two slots off them; a move from one slot to another; the break;
 * a fork's child with slots of its own. */
static void slots_placement(void **state)
{
    (void)state;
    if (!mm->slots_wanted)
        return;
    const uint64_t P = 4096;
    assert_int_equal(slots_of(mm), 0);
    int64_t a = mm_mmap(mm, 0, 4 * P, RW, ANON); /* below mmap_base: slot 127 */
    assert_true(a > 0 && SLOT(a) == 127);
    fill((uint64_t)a, 4 * P, 1);
    assert_int_equal(slots_of(mm), 1);
    assert_true(mm_in_window(mm, mm_find(mm, (uint64_t)a)));
    assert_null(mm_map_fixed(mm, 0x400000, 16 * P, RW, "[elf]", NULL)); /* slot 0 */
    fill(0x400000, 16 * P, 20);
    assert_int_equal(slots_of(mm), 2);
    assert_true(mm_in_window(mm, mm_find(mm, 0x400000)));
    check_slots(mm);

    /* Across slots 1 and 2: no slot holds it, none is reserved for it. */
    int64_t across = mm_mmap(mm, 2 * TIB - 2 * P, 4 * P, RW, ANON | MAP_FIXED_LINUX);
    assert_int_equal(across, (int64_t)(2 * TIB - 2 * P));
    fill((uint64_t)across, 4 * P, 40);
    assert_false(mm_in_window(mm, mm_find(mm, (uint64_t)across)));
    assert_int_equal(slots_of(mm), 2);
    check_slots(mm);

    /* mremap to slot 3: moved with its contents into a new slot, the old
     * place PROT_NONE in its own. */
    uint8_t *old_host = mm_find(mm, (uint64_t)a)->host;
    int64_t moved = mm_mremap(mm, (uint64_t)a, 4 * P, 4 * P,
                              MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX, 3 * TIB + 16 * P);
    assert_int_equal(moved, (int64_t)(3 * TIB + 16 * P));
    expect(mm, (uint64_t)moved, 4 * P, 1);
    assert_int_equal(slots_of(mm), 3);
    assert_true(mm_in_window(mm, mm_find(mm, (uint64_t)moved)));
    assert_false(host_readable(old_host));
    check_slots(mm);
    /* ... and on to straddle slots 3 and 4: out of the slots, with its
     * contents, the old place PROT_NONE. */
    old_host = mm_find(mm, (uint64_t)moved)->host;
    int64_t out = mm_mremap(mm, (uint64_t)moved, 4 * P, 4 * P,
                            MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX, 4 * TIB - 2 * P);
    assert_int_equal(out, (int64_t)(4 * TIB - 2 * P));
    expect(mm, (uint64_t)out, 4 * P, 1);
    assert_false(mm_in_window(mm, mm_find(mm, (uint64_t)out)));
    assert_false(host_readable(old_host));
    check_slots(mm);
    /* ... and back into slot 3, its host memory with it (off the slot, as
     * shared memory is there: the window's pages PROT_NONE). */
    moved = mm_mremap(mm, (uint64_t)out, 4 * P, 4 * P, MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX,
                      3 * TIB + 16 * P);
    assert_int_equal(moved, (int64_t)(3 * TIB + 16 * P));
    expect(mm, (uint64_t)moved, 4 * P, 1);
    check_slots(mm);

    /* The break grows in its slot. */
    mm->brk_start = mm->brk_cur = 0x400000 + 16 * P;
    assert_int_equal(mm_brk(mm, 0x400000 + 64 * P), 0x400000 + 64 * P);
    fill(0x400000 + 16 * P, 48 * P, 60);
    check_slots(mm);

    /* fork: a child with slots of its own, the memory copied. */
    struct mm *child;
    assert_null(mm_copy(mm, &child));
    /* ... where it has memory: slot 127 emptied by the move is not one. */
    assert_int_equal(slots_of(child), 2);
    assert_true(child->slots[0] && child->slots[3] && !child->slots[127]);
    check_slots(child);
    expect(child, 0x400000, 16 * P, 20);
    expect(child, (uint64_t)moved, 4 * P, 1);
    expect(child, (uint64_t)across, 4 * P, 40);
    assert_true(child->slots[0] != mm->slots[0]);
    uint8_t b = 0xee;
    assert_true(mm_write(child, 0x400000, &b, 1));
    expect(mm, 0x400000, P, 20); /* the parent's copy is its own */
    mm_unref(child);
    check_slots(mm);
}

/* The budget: once the process holds its slots, a piece in a new one stays
 * off the slots, and a released address space gives its slots back. */
static void slots_budget(void **state)
{
    (void)state;
    if (!mm->slots_wanted)
        return;
    unsigned got = 0;
    uint64_t slot = 1;
    for (; slot < UC_LINEAR_SLOTS - 1; slot++) {
        int64_t r = mm_mmap(mm, slot * TIB, 4096, RW, ANON | MAP_FIXED_LINUX);
        assert_int_equal(r, (int64_t)(slot * TIB));
        if (!mm_in_window(mm, mm_find(mm, slot * TIB)))
            break;
        got++;
    }
    assert_true(got >= 8 && slot < UC_LINEAR_SLOTS - 1); /* reserved, then refused */
    assert_int_equal(slots_of(mm), got);
    check_slots(mm);
    assert_null(mm_map_fixed(mm, (slot + 1) * TIB, 4096, RW, "[anon]", NULL));
    assert_false(mm_in_window(mm, mm_find(mm, (slot + 1) * TIB)));
    /* Given back with the address space: a new one gets a slot again. */
    mm_detach_engine(mm, uc);
    mm_unref(mm);
    mm_slots_enable(true, false);
    mm = mm_new(0x7ffffffff000ull);
    mm_slots_enable(false, false);
    assert_null(mm_attach_engine(mm, uc));
    assert_null(mm_map_fixed(mm, 0x400000, 4096, RW, "[elf]", NULL));
    assert_true(mm_in_window(mm, mm_find(mm, 0x400000)));
}

static int teardown_slots(void **state)
{
    check_slots(mm);
    return teardown(state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(mmap_topdown_and_fixed, setup_window, teardown_window),
        cmocka_unit_test_setup_teardown(mprotect_splits_and_prefix, setup_window,
                                        teardown_window),
        cmocka_unit_test_setup_teardown(mremap_grows_moves_shrinks, setup_window,
                                        teardown_window),
        cmocka_unit_test_setup_teardown(brk_grows_and_shrinks, setup_window, teardown_window),
        cmocka_unit_test_setup_teardown(strings_and_iovecs, setup_window, teardown_window),
        cmocka_unit_test_setup_teardown(window_placement, setup_window, teardown_window),
        cmocka_unit_test(window_refused),
        cmocka_unit_test_setup_teardown(slots_placement, setup_slots, teardown_slots),
        cmocka_unit_test_setup_teardown(slots_budget, setup_slots, teardown_slots),
        cmocka_unit_test_setup_teardown(mmap_topdown_and_fixed, setup, teardown),
        cmocka_unit_test_setup_teardown(mprotect_splits_and_prefix, setup, teardown),
        cmocka_unit_test_setup_teardown(mremap_grows_moves_shrinks, setup, teardown),
        cmocka_unit_test_setup_teardown(brk_grows_and_shrinks, setup, teardown),
        cmocka_unit_test_setup_teardown(strings_and_iovecs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
