/* madvise's advice values and answers, mincore and membarrier, as the
 * kernel gives them on fresh anonymous mappings: private read-write,
 * read-only, PROT_NONE, shared, with holes, misaligned, wrapping; and a
 * mapping grown a page at a time, as realloc grows one; a locked one grown;
 * what a fork's child gets of a mapping MADV_DONTFORK marked in part.
 *   memcalls madvise | mincore | membarrier | grow | grow_locked | dontfork */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "show_result.h"

#define PG 4096

static char *map(size_t len, int prot, int flags)
{
    return mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);
}

static long adv(void *p, size_t len, int a)
{
    return syscall(SYS_madvise, p, len, a);
}

/* Every advice Debian's kernels know, but the guard ones (6.13+) and the
 * two that poison memory. */
static const struct {
    int a;
    const char *name;
} advices[] = {
    { 0, "NORMAL" },     { 1, "RANDOM" },        { 2, "SEQUENTIAL" },   { 3, "WILLNEED" },
    { 4, "DONTNEED" },   { 8, "FREE" },          { 9, "REMOVE" },       { 10, "DONTFORK" },
    { 11, "DOFORK" },    { 12, "MERGEABLE" },    { 13, "UNMERGEABLE" }, { 14, "HUGEPAGE" },
    { 15, "NOHUGEPAGE" }, { 16, "DONTDUMP" },    { 17, "DODUMP" },      { 18, "WIPEONFORK" },
    { 19, "KEEPONFORK" }, { 20, "COLD" },        { 21, "PAGEOUT" },     { 22, "POPULATE_READ" },
    { 23, "POPULATE_WRITE" }, { 24, "DONTNEED_LOCKED" },
};

static void do_madvise(void)
{
    char *rw = map(4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    char *ro = map(2 * PG, PROT_READ, MAP_PRIVATE);
    char *none = map(2 * PG, PROT_NONE, MAP_PRIVATE);
    char *sh = map(2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED);
    char *shro = map(2 * PG, PROT_READ, MAP_SHARED);
    /* a hole between two mapped pages */
    char *holed = map(3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    munmap(holed + PG, PG);
    for (size_t i = 0; i < sizeof(advices) / sizeof(advices[0]); i++) {
        int a = advices[i].a;
        printf("%-15s", advices[i].name);
        char *maps[6] = { rw, ro, none, sh, shro, holed };
        size_t lens[6] = { 4 * PG, 2 * PG, 2 * PG, 2 * PG, 2 * PG, 3 * PG };
        for (int k = 0; k < 6; k++) {
            long r = adv(maps[k], lens[k], a);
            printf(" %s", r < 0 ? strerrorname_np(errno) : "0");
        }
        printf("\n");
    }
    printf("columns: private rw, private ro, PROT_NONE, shared rw, shared ro, with a hole\n");
    show("advice 7", adv(rw, PG, 7));
    show("advice 26", adv(rw, PG, 26));
    show("advice -1", adv(rw, PG, -1));
    show("advice 999", adv(rw, PG, 999));
    show("misaligned start", adv(rw + 1, PG, 0));
    show("length 0", adv(rw, 0, 0));
    show("length 0, misaligned", adv(rw + 1, 0, 0));
    show("length 0, bad advice", adv(rw, 0, 77));
    show("length 1", adv(rw, 1, 0));
    show("wrapping length", adv(rw, (size_t)-PG, 0));
    show("length rounding to 0", adv(rw, (size_t)-1, 0));
    show("unmapped range", adv((void *)0x10000, PG, 0));
    show("unmapped, DONTNEED", adv((void *)0x10000, PG, 4));
    show("range past the mapping", adv(rw, 100 * PG, 0));
    /* DONTNEED on private memory: zeros afterwards */
    memset(rw, 0x5a, 4 * PG);
    show("DONTNEED one page", adv(rw + PG, PG, 4));
    printf("  page 0 kept %d, page 1 zero %d, page 2 kept %d\n", rw[0] == 0x5a, rw[PG] == 0,
           rw[2 * PG] == 0x5a);
    memset(rw, 0x33, PG);
    show("FREE one page", adv(rw, PG, 8));
    show("POPULATE_WRITE private rw", adv(rw, 4 * PG, 23));
}

static void show_vec(const char *what, long r, const unsigned char *v, int n)
{
    show(what, r);
    if (r)
        return;
    printf("  ");
    for (int i = 0; i < n; i++)
        printf("%d", v[i] & 1);
    printf("\n");
}

static void do_mincore(void)
{
    unsigned char v[16];
    char *p = map(8 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    memset(v, 0xff, sizeof(v));
    show_vec("fresh mapping", syscall(SYS_mincore, p, 8 * PG, v), v, 8);
    p[0] = 1;
    p[3 * PG + 5] = 2;
    volatile char sink = p[5 * PG];
    (void)sink;
    show_vec("pages 0 and 3 written, 5 read", syscall(SYS_mincore, p, 8 * PG, v), v, 8);
    show_vec("from page 3, length 1", syscall(SYS_mincore, p + 3 * PG, 1, v), v, 1);
    show("misaligned start", syscall(SYS_mincore, p + 1, PG, v));
    show("length 0", syscall(SYS_mincore, p, 0, v));
    show("vector unmapped", syscall(SYS_mincore, p, PG, (void *)16));
    show("vector past user space", syscall(SYS_mincore, p, PG, (void *)-4096L));
    show("range past user space", syscall(SYS_mincore, p, (size_t)-PG - (uintptr_t)p + PG, v));
    munmap(p + 6 * PG, PG);
    memset(v, 0xee, sizeof(v));
    show("a hole at page 6", syscall(SYS_mincore, p, 8 * PG, v));
    printf("  filled before the hole: %d%d%d%d%d%d, past it untouched %d\n", v[0] & 1, v[1] & 1,
           v[2] & 1, v[3] & 1, v[4] & 1, v[5] & 1, v[6] == 0xee);
    show("unmapped range", syscall(SYS_mincore, (void *)0x10000, PG, v));
    char *none = map(2 * PG, PROT_NONE, MAP_PRIVATE);
    show_vec("PROT_NONE", syscall(SYS_mincore, none, 2 * PG, v), v, 2);
    char *ro = map(2 * PG, PROT_READ, MAP_PRIVATE);
    show("read-only, POPULATE_READ", adv(ro, 2 * PG, 22));
    show_vec("then", syscall(SYS_mincore, ro, 2 * PG, v), v, 2);
    char *w = map(2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    show("rw, POPULATE_WRITE", adv(w, 2 * PG, 23));
    show_vec("then", syscall(SYS_mincore, w, 2 * PG, v), v, 2);
}

static void do_membarrier(void)
{
    long q = syscall(SYS_membarrier, 0, 0, 0);
    show("QUERY", q);
    show("QUERY, flags 1", syscall(SYS_membarrier, 0, 1, 0));
    show("cmd 3", syscall(SYS_membarrier, 3, 0, 0));
    show("cmd 1024", syscall(SYS_membarrier, 1024, 0, 0));
    show("cmd -1", syscall(SYS_membarrier, -1, 0, 0));
    show("GET_REGISTRATIONS", syscall(SYS_membarrier, 512, 0, 0));
    show("PRIVATE_EXPEDITED, unregistered", syscall(SYS_membarrier, 8, 0, 0));
    show("PRIVATE_EXPEDITED_SYNC_CORE, unregistered", syscall(SYS_membarrier, 32, 0, 0));
    show("PRIVATE_EXPEDITED_RSEQ, unregistered", syscall(SYS_membarrier, 128, 0, 0));
    show("PRIVATE_EXPEDITED_RSEQ, flag CPU", syscall(SYS_membarrier, 128, 1, 0));
    show("PRIVATE_EXPEDITED_RSEQ, flags 2", syscall(SYS_membarrier, 128, 2, 0));
    show("GLOBAL", syscall(SYS_membarrier, 1, 0, 0));
    show("GLOBAL_EXPEDITED", syscall(SYS_membarrier, 2, 0, 0));
    show("REGISTER_GLOBAL_EXPEDITED", syscall(SYS_membarrier, 4, 0, 0));
    show("REGISTER_PRIVATE_EXPEDITED", syscall(SYS_membarrier, 16, 0, 0));
    show("REGISTER_PRIVATE_EXPEDITED again", syscall(SYS_membarrier, 16, 0, 0));
    show("PRIVATE_EXPEDITED", syscall(SYS_membarrier, 8, 0, 0));
    show("GET_REGISTRATIONS", syscall(SYS_membarrier, 512, 0, 0));
    show("REGISTER_PRIVATE_EXPEDITED_SYNC_CORE", syscall(SYS_membarrier, 64, 0, 0));
    show("PRIVATE_EXPEDITED_SYNC_CORE", syscall(SYS_membarrier, 32, 0, 0));
    show("REGISTER_PRIVATE_EXPEDITED_RSEQ", syscall(SYS_membarrier, 256, 0, 0));
    show("PRIVATE_EXPEDITED_RSEQ", syscall(SYS_membarrier, 128, 0, 0));
    show("PRIVATE_EXPEDITED_RSEQ on CPU 0", syscall(SYS_membarrier, 128, 1, 0));
    show("PRIVATE_EXPEDITED_RSEQ on CPU 99999", syscall(SYS_membarrier, 128, 1, 99999));
    show("GET_REGISTRATIONS", syscall(SYS_membarrier, 512, 0, 0));
}

/* realloc's pattern (busybox sort grows its line array so): mremap with
 * MAYMOVE, a page more each time.  Linux moves the mapping once, to where
 * there is room, and from there grows it in place; the data goes along. */
static void do_grow(void)
{
    size_t len = 9 * PG;
    char *p = map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    unsigned moves = 0, first_move_at = 0, lost = 0;
    for (unsigned i = 0; i < 256; i++) {
        p[len - 1] = (char)i;
        char *q = mremap(p, len, len + PG, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) {
            show("mremap", -errno);
            return;
        }
        if (q != p && !moves++)
            first_move_at = i;
        lost += q[len - 1] != (char)i;
        p = q;
        len += PG;
    }
    printf("256 growths: moved %u time(s), first at growth %u; data lost %u\n", moves,
           first_move_at, lost);
    /* and the heap, by brk, a page at a time */
    char *top = (char *)syscall(SYS_brk, 0);
    unsigned heap_fail = 0;
    for (unsigned i = 1; i <= 256; i++)
        heap_fail += syscall(SYS_brk, top + i * PG) != (long)(top + i * PG);
    top[256 * PG - 1] = 1;
    printf("brk grown 256 pages: %u refused\n", heap_fail);
}

/* A locked mapping grown by mremap, in place and moved: Linux grows the
 * VMA itself (vma_expand; copy_vma to the new length on a move), so the
 * new pages are locked too and refuse what a locked VMA refuses. */
static void do_grow_locked(void)
{
    static const struct {
        int flags;
        const char *name;
    } kinds[] = { { MAP_PRIVATE, "private" }, { MAP_SHARED, "shared" } };
    for (int k = 0; k < 2; k++) {
        /* two pages with two free after them */
        char *p = map(4 * PG, PROT_READ | PROT_WRITE, kinds[k].flags | MAP_LOCKED);
        if (p == MAP_FAILED) {
            show("mmap MAP_LOCKED", -1);
            return;
        }
        munmap(p + 2 * PG, 2 * PG);
        printf("%s, locked:\n", kinds[k].name);
        show("  mremap in place, 2 -> 4 pages", mremap(p, 2 * PG, 4 * PG, 0) == p ? 0 : -1);
        show("  COLD on the old pages", adv(p, 2 * PG, MADV_COLD));
        show("  COLD on the growth", adv(p + 2 * PG, 2 * PG, MADV_COLD));
        show("  PAGEOUT on the growth", adv(p + 2 * PG, 2 * PG, MADV_PAGEOUT));
        char *dst = map(8 * PG, PROT_NONE, MAP_PRIVATE);
        char *q = mremap(p, 4 * PG, 6 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
        show("  mremap moved, 4 -> 6 pages", q == dst ? 0 : -1);
        show("  COLD on the moved pages", adv(dst, 4 * PG, MADV_COLD));
        show("  COLD on the growth", adv(dst + 4 * PG, 2 * PG, MADV_COLD));
        show("  PAGEOUT on the growth", adv(dst + 4 * PG, 2 * PG, MADV_PAGEOUT));
        munmap(dst, 8 * PG);
    }
}

/* MADV_DONTFORK on the middle page of three: the child has no mapping
 * there (dup_mmap skips VM_DONTCOPY) and faults on it, and the mapping is
 * three VMAs now, which a resize across them shows; DOFORK joins them. */
static void do_dontfork(void)
{
    char *p = map(3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    p[0] = p[PG] = p[2 * PG] = 1;
    show("DONTFORK the middle page", adv(p + PG, PG, MADV_DONTFORK));
    for (int page = 0; page < 3; page++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            _exit(p[page * PG] == 1 ? 0 : 1); /* a fault kills it */
        int st = 0;
        waitpid(pid, &st, 0);
        printf("child reads page %d: %s %d\n", page, WIFSIGNALED(st) ? "signal" : "exit",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    }
    show("mremap across the three, in place", mremap(p, 3 * PG, 4 * PG, 0) == p ? 0 : -errno);
    show("DOFORK the middle page", adv(p + PG, PG, MADV_DOFORK));
    show("DOFORK again, nothing changes", adv(p, 3 * PG, MADV_DOFORK));
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "madvise"))
        do_madvise();
    else if (!strcmp(c, "mincore"))
        do_mincore();
    else if (!strcmp(c, "membarrier"))
        do_membarrier();
    else if (!strcmp(c, "grow"))
        do_grow();
    else if (!strcmp(c, "grow_locked"))
        do_grow_locked();
    else if (!strcmp(c, "dontfork"))
        do_dontfork();
    else
        return 2;
    return 0;
}
