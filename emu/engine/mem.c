#include "emu/engine/mem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "abi/linux.h"
#include "emu/engine/host_tune.h"

#ifdef MAP_NORESERVE
#define GUARD_NORESERVE MAP_NORESERVE
#else
#define GUARD_NORESERVE 0
#endif

/* The guest's page, not the host's: host memory is taken in chunks that
 * mmap rounds to the host's page (16 KiB on Apple Silicon), and only
 * guest-page arithmetic is done here (tests/unit/test_mem.c, host_page). */
#define PAGE_DOWN(x) ((x) & ~(PAGE_SIZE_LINUX - 1))

/* Host memory comes from POSIX mmap (lazily zeroed; present on every host
 * we build for).  A chunk is released when the last guest piece cut from
 * it goes, so partial munmaps work with any host page size. */
struct chunk {
    uint8_t *base;
    size_t len;
    unsigned refs;
};

static struct chunk *chunk_new(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct chunk *c = g_new(struct chunk, 1);
    *c = (struct chunk){ p, len, 0 };
    return c;
}

static void chunk_unref(struct chunk *c)
{
    if (--c->refs == 0) {
        munmap(c->base, c->len);
        g_free(c);
    }
}

uint32_t mm_uc_prot(int prot)
{
    uint32_t p = 0;
    /* x86 pages are always readable when writable or executable; NX
     * separates execute from read, as on every CPU Linux runs on today. */
    if (prot & (PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX))
        p |= UC_PROT_READ;
    if (prot & PROT_WRITE_LINUX)
        p |= UC_PROT_WRITE;
    if (prot & PROT_EXEC_LINUX)
        p |= UC_PROT_EXEC;
    return p;
}

/* What the guest can do with a page, in the terms syscalls check. */
static int effective(int prot)
{
    int p = prot;
    if (prot & (PROT_WRITE_LINUX | PROT_EXEC_LINUX))
        p |= PROT_READ_LINUX;
    return p;
}

#define VMA(mm, i) (&g_array_index((mm)->vmas, struct vma, (i)))

/* Index of the first mapping ending above addr. */
static guint first_above(const struct mm *mm, uint64_t addr)
{
    guint lo = 0, hi = mm->vmas->len;
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (VMA(mm, mid)->end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct mm *mm_new(uint64_t limit)
{
    struct mm *mm = g_new(struct mm, 1);
    *mm = (struct mm){ .refs = 1,
                       .limit = limit,
                       .data_rlim = RLIM_INFINITY_LINUX,
                       .data_rlim_max = RLIM_INFINITY_LINUX };
    mm->engines = g_ptr_array_new();
    mm->vmas = g_array_new(FALSE, FALSE, sizeof(struct vma));
    return mm;
}

struct mm *mm_ref(struct mm *mm)
{
    mm->refs++;
    return mm;
}

void mm_unref(struct mm *mm)
{
    if (!mm || --mm->refs > 0)
        return;
    for (guint i = 0; i < mm->vmas->len; i++) {
        for (guint k = 0; k < mm->engines->len; k++)
            uc_mem_unmap(mm->engines->pdata[k], VMA(mm, i)->start,
                         VMA(mm, i)->end - VMA(mm, i)->start);
        chunk_unref(VMA(mm, i)->chunk);
    }
    g_array_free(mm->vmas, TRUE);
    g_ptr_array_free(mm->engines, TRUE);
    g_free(mm->exe_path);
    g_free(mm);
}

err_t mm_attach_engine(struct mm *mm, uc_engine *uc)
{
    for (guint i = 0; i < mm->vmas->len; i++) {
        const struct vma *v = VMA(mm, i);
        err_t e = UC_TRY(uc_mem_map_ptr(uc, v->start, v->end - v->start, mm_uc_prot(v->prot),
                                        v->host));
        if (e) {
            while (i-- > 0)
                uc_mem_unmap(uc, VMA(mm, i)->start, VMA(mm, i)->end - VMA(mm, i)->start);
            return e;
        }
    }
    g_ptr_array_add(mm->engines, uc);
    return OK;
}

void mm_detach_engine(struct mm *mm, uc_engine *uc)
{
    /* The engine is about to close, which drops its regions with it:
     * unmapping them one by one first would make it invalidate code page
     * by page for nothing. */
    g_ptr_array_remove(mm->engines, uc);
}

err_t mm_copy(const struct mm *src, struct mm **out)
{
    struct mm *mm = mm_new(src->limit);
    mm->mmap_base = src->mmap_base;
    mm->brk_start = src->brk_start;
    mm->brk_cur = src->brk_cur;
    mm->mapped = src->mapped;
    mm->max_mapped = src->max_mapped;
    mm->data_rlim = src->data_rlim;
    mm->data_rlim_max = src->data_rlim_max;
    mm->elf_data = src->elf_data;
    mm->layout = src->layout;
    mm->exe_path = g_strdup(src->exe_path);
    /* Pieces cut from one chunk stay pieces of one (new) chunk, so that
     * their host memory keeps its layout. */
    GHashTable *copies = g_hash_table_new(NULL, NULL);
    for (guint i = 0; i < src->vmas->len; i++) {
        struct vma v = *VMA(src, i);
        struct chunk *c = v.chunk;
        if (!v.shared) {
            c = g_hash_table_lookup(copies, v.chunk);
            if (!c) {
                c = chunk_new(v.chunk->len);
                if (!c) {
                    g_hash_table_destroy(copies);
                    mm_unref(mm);
                    return err_new("host mmap of %zu bytes for fork: %s", v.chunk->len,
                                   g_strerror(errno));
                }
                g_hash_table_insert(copies, v.chunk, c);
            }
            size_t off = (size_t)(v.host - v.chunk->base);
            memcpy(c->base + off, v.host, v.end - v.start);
            v.host = c->base + off;
            v.chunk = c;
        }
        c->refs++;
        g_array_append_val(mm->vmas, v);
    }
    g_hash_table_destroy(copies);
    *out = mm;
    return OK;
}

const struct vma *mm_find(const struct mm *mm, uint64_t addr)
{
    guint i = first_above(mm, addr);
    if (i < mm->vmas->len && VMA(mm, i)->start <= addr)
        return VMA(mm, i);
    return NULL;
}

static bool range_free(const struct mm *mm, uint64_t addr, uint64_t len)
{
    guint i = first_above(mm, addr);
    return i >= mm->vmas->len || VMA(mm, i)->start >= addr + len;
}

bool mm_range_free(const struct mm *mm, uint64_t addr, uint64_t len)
{
    return range_free(mm, addr, len);
}

const struct vma *mm_next(const struct mm *mm, uint64_t addr)
{
    guint i = first_above(mm, addr);
    return i < mm->vmas->len ? VMA(mm, i) : NULL;
}

/* ---- RLIMIT_DATA, as Linux's may_expand_vm() applies it ---- */

/* is_data_mapping(): private and writable, not the stack. */
static bool is_data(const struct vma *v)
{
    return (v->prot & PROT_WRITE_LINUX) && !v->shared && !v->hidden && !vma_is_stack(v);
}

/* Counted when asked, not kept up to date: only mapping calls need it,
 * and they walk the table anyway. */
static uint64_t data_pages(const struct mm *mm)
{
    uint64_t n = 0;
    for (guint i = 0; i < mm->vmas->len; i++)
        if (is_data(VMA(mm, i)))
            n += (VMA(mm, i)->end - VMA(mm, i)->start) / PAGE_SIZE_LINUX;
    return n;
}

static bool data_may_grow(const struct mm *mm, uint64_t bytes)
{
    if (mm->data_rlim == RLIM_INFINITY_LINUX)
        return true;
    uint64_t pages = data_pages(mm) + bytes / PAGE_SIZE_LINUX;
    if (pages <= mm->data_rlim / PAGE_SIZE_LINUX)
        return true;
    /* Linux's allowance for Valgrind: a soft limit of 0 defers to the hard one. */
    return mm->data_rlim == 0 && pages <= mm->data_rlim_max / PAGE_SIZE_LINUX;
}

void mm_set_data_limit(struct mm *mm, uint64_t cur, uint64_t max)
{
    mm->data_rlim = cur;
    mm->data_rlim_max = max;
}

/* Bytes of [addr, addr+len) some mapping holds, of any kind. */
static uint64_t mapped_in(const struct mm *mm, uint64_t addr, uint64_t len)
{
    uint64_t n = 0, end = addr + len;
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < end; i++)
        n += MIN(VMA(mm, i)->end, end) - MAX(VMA(mm, i)->start, addr);
    return n;
}

static err_t insert_piece(struct mm *mm, struct vma v)
{
    for (guint k = 0; k < mm->engines->len; k++) {
        err_t e = UC_TRY(uc_mem_map_ptr(mm->engines->pdata[k], v.start, v.end - v.start,
                                        mm_uc_prot(v.prot), v.host));
        if (e) {
            while (k-- > 0)
                uc_mem_unmap(mm->engines->pdata[k], v.start, v.end - v.start);
            return e;
        }
    }
    v.chunk->refs++;
    g_array_insert_val(mm->vmas, first_above(mm, v.start), v);
    return OK;
}

static err_t map_new(struct mm *mm, uint64_t addr, uint64_t len, int prot, bool shared,
                     const char *name, uint8_t **host_out)
{
    len = PAGE_ALIGN_LINUX(len);
    if ((addr & (PAGE_SIZE_LINUX - 1)) || len == 0 || addr + len < addr || addr + len > mm->limit)
        return err_new("mapping 0x%" G_GINT64_MODIFIER "x+0x%" G_GINT64_MODIFIER
                       "x is outside the guest's address space", addr, len);
    if (!range_free(mm, addr, len))
        return err_new("mapping 0x%" G_GINT64_MODIFIER "x+0x%" G_GINT64_MODIFIER
                       "x overlaps another", addr, len);
    if (mm->max_mapped && mm->mapped + len > mm->max_mapped)
        return err_new("guest memory limit reached");
    struct chunk *c = chunk_new(len);
    if (!c)
        return err_new("host mmap of %" G_GUINT64_FORMAT " bytes: %s", len, g_strerror(errno));
    struct vma v = { addr, addr + len, prot, c->base, c, name, false, shared, false };
    err_t e = insert_piece(mm, v);
    if (c->refs == 0) {
        c->refs = 1;
        chunk_unref(c);
    }
    if (e)
        return e;
    mm->mapped += len;
    if (host_out)
        *host_out = c->base;
    return OK;
}

err_t mm_map_fixed(struct mm *mm, uint64_t addr, uint64_t len, int prot,
                   const char *name, uint8_t **host_out)
{
    return map_new(mm, addr, len, prot, false, name, host_out);
}

/* Remove [addr, addr+len) from every mapping it touches, splitting pieces
 * at the edges.  Unicorn's own split of pointer-backed regions is avoided:
 * a piece is always unmapped whole and its survivors mapped again. */
static err_t carve(struct mm *mm, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len;
    guint i = first_above(mm, addr);
    while (i < mm->vmas->len && VMA(mm, i)->start < end) {
        struct vma v = *VMA(mm, i);
        err_t e = OK;
        for (guint k = 0; k < mm->engines->len && !e; k++)
            e = UC_TRY(uc_mem_unmap(mm->engines->pdata[k], v.start, v.end - v.start));
        if (e)
            return e;
        g_array_remove_index(mm->vmas, i);
        mm->mapped -= v.end - v.start;
        if (v.start < addr) {
            struct vma left = v;
            left.end = addr;
            if ((e = insert_piece(mm, left)))
                return e;
            mm->mapped += left.end - left.start;
            i++;
        }
        if (v.end > end) {
            struct vma right = v;
            right.start = end;
            right.host = v.host + (end - v.start);
            if ((e = insert_piece(mm, right)))
                return e;
            mm->mapped += right.end - right.start;
            i++;
        }
        chunk_unref(v.chunk);
    }
    return OK;
}

uint64_t mm_find_free(const struct mm *mm, uint64_t len, uint64_t top)
{
    /* Walk the gaps downwards from `top`, as Linux's top-down allocator does;
     * the lowest 64 KiB stay unmapped (vm.mmap_min_addr). */
    const uint64_t floor = 0x10000;
    uint64_t hi = top;
    guint first = first_above(mm, top);
    if (first < mm->vmas->len && VMA(mm, first)->start < hi)
        hi = VMA(mm, first)->start;
    for (guint i = first; ; i--) {
        uint64_t lo = i > 0 ? VMA(mm, i - 1)->end : floor;
        lo = MAX(lo, floor);
        if (hi >= lo && hi - lo >= len)
            return hi - len;
        if (i == 0)
            return 0;
        hi = MIN(hi, VMA(mm, i - 1)->start);
    }
}

/* Zeros at host address h, n bytes: whole host pages are dropped (they
 * read back as zeros and cost nothing), the guest pages that share a host
 * page with memory outside the range are cleared by hand (16 KiB host
 * pages hold four guest pages). */
static err_t zero_host(uint8_t *h, uint64_t n)
{
    uintptr_t page = host_page_size(), a = (uintptr_t)h;
    uintptr_t lo = (a + page - 1) & ~(page - 1), hi = (a + n) & ~(page - 1);
    if (hi <= lo) {
        memset(h, 0, n);
        return OK;
    }
    memset(h, 0, lo - a);
    memset((void *)hi, 0, a + n - hi);
    return host_zero_pages((void *)lo, hi - lo);
}

/* __thp_get_unmapped_area(): a 64-bit task's anonymous mapping without a
 * hint whose length is a multiple of 2 MiB (PMD_SIZE) lands on a 2 MiB
 * boundary (Linux 6.7 and later; not for compat tasks since 6.8): the
 * search asks for 2 MiB more, then moves up to the boundary.  0 when the
 * rule does not apply or the padded search fails (then the plain one
 * runs). */
static uint64_t thp_aligned_free(const struct mm *mm, uint64_t len, uint64_t top)
{
    const uint64_t pmd = 2u << 20;
    if (mm->limit != TASK_SIZE_64_LINUX || len % pmd || len + pmd < len)
        return 0;
    uint64_t at = mm_find_free(mm, len + pmd, top);
    if (!at)
        return 0;
    uint64_t off_sub = (0 - at) & (pmd - 1);
    return off_sub ? at + off_sub : at + pmd; /* top-down: the upper boundary */
}

static int64_t map_errno(err_t e)
{
    err_free(e);
    return -ENOMEM_LINUX;
}

/* `charge`: test RLIMIT_DATA; mremap, which charges only its growth, moves
 * without. */
static int64_t do_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags,
                       bool charge)
{
    if (len == 0 || (prot & ~(PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX)))
        return -EINVAL_LINUX;
    int type = flags & MAP_TYPE_LINUX;
    if (type != MAP_PRIVATE_LINUX && type != MAP_SHARED_LINUX)
        return -EINVAL_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len || plen > mm->limit)
        return -ENOMEM_LINUX;
    bool fixed = flags & (MAP_FIXED_LINUX | MAP_FIXED_NOREPLACE_LINUX);
    bool shared = type == MAP_SHARED_LINUX;
    bool data = charge && (prot & PROT_WRITE_LINUX) && !shared;
    if (fixed) {
        if (addr & (PAGE_SIZE_LINUX - 1))
            return -EINVAL_LINUX;
        if (addr + plen < addr || addr + plen > mm->limit)
            return -ENOMEM_LINUX;
        bool taken = !range_free(mm, addr, plen);
        if (taken && !(flags & MAP_FIXED_LINUX))
            return -EEXIST_LINUX;
        /* Charged only for the pages it adds, whatever it replaces. */
        if (data && !data_may_grow(mm, plen - mapped_in(mm, addr, plen)))
            return -ENOMEM_LINUX;
        if (taken) {
            err_t e = carve(mm, addr, plen);
            if (e)
                return map_errno(e);
        }
    } else {
        uint64_t hint = PAGE_DOWN(addr);
        uint64_t top = (flags & MAP_32BIT_LINUX) ? 0x80000000ull : mm->mmap_base;
        if (hint && hint + plen <= mm->limit && hint + plen > hint && range_free(mm, hint, plen))
            addr = hint;
        else if (!(addr = addr ? 0 : thp_aligned_free(mm, plen, top)) &&
                 !(addr = mm_find_free(mm, plen, top)))
            return -ENOMEM_LINUX;
        if (data && !data_may_grow(mm, plen))
            return -ENOMEM_LINUX;
    }
    err_t e = map_new(mm, addr, plen, prot, shared, "[anon]", NULL);
    if (e)
        return map_errno(e);
    return (int64_t)addr;
}

int64_t mm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags)
{
    return do_mmap(mm, addr, len, prot, flags, true);
}

int64_t mm_munmap(struct mm *mm, uint64_t addr, uint64_t len)
{
    if ((addr & (PAGE_SIZE_LINUX - 1)) || len == 0)
        return -EINVAL_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len || addr + plen < addr || addr + plen > mm->limit)
        return -EINVAL_LINUX;
    err_t e = carve(mm, addr, plen);
    return e ? map_errno(e) : 0;
}

int64_t mm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    if (addr & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if (prot & ~(PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX | PROT_GROWSDOWN_LINUX |
                 PROT_GROWSUP_LINUX))
        return -EINVAL_LINUX;
    prot &= PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len || addr + plen < addr)
        return -ENOMEM_LINUX;
    if (plen == 0)
        return 0;
    if (mm_valid_prefix(mm, addr, plen, 0) < plen)
        return -ENOMEM_LINUX;
    /* Split at both edges, then change the pieces inside. */
    uint64_t end = addr + plen;
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < end; i++) {
        struct vma *v = VMA(mm, i);
        /* do_mprotect_pkey(): write access a piece may never have is
         * EACCES; the pieces before it stay changed, as in Linux. */
        if ((prot & PROT_WRITE_LINUX) && v->no_write)
            return -EACCES_LINUX;
        /* mprotect_fixup(): a piece that turns into data must fit; the
         * pieces before it stay changed, as in Linux. */
        struct vma after = *v;
        after.prot = prot;
        if (is_data(&after) && !is_data(v) &&
            !data_may_grow(mm, MIN(v->end, end) - MAX(v->start, addr)))
            return -ENOMEM_LINUX;
        if (v->start < addr || v->end > end) {
            struct vma keep = *v;
            keep.chunk->refs++; /* survive the carve below */
            err_t e = carve(mm, v->start, v->end - v->start);
            if (e) {
                chunk_unref(keep.chunk);
                return map_errno(e);
            }
            uint64_t cuts[4] = { keep.start, MAX(keep.start, addr), MIN(keep.end, end), keep.end };
            for (int k = 0; k < 3; k++) {
                if (cuts[k] == cuts[k + 1])
                    continue;
                struct vma p = keep;
                p.start = cuts[k];
                p.end = cuts[k + 1];
                p.host = keep.host + (cuts[k] - keep.start);
                if (k == 1)
                    p.prot = prot;
                if ((e = insert_piece(mm, p))) {
                    chunk_unref(keep.chunk);
                    return map_errno(e);
                }
                mm->mapped += p.end - p.start;
            }
            chunk_unref(keep.chunk);
            i = first_above(mm, MIN(keep.end, end)) - 1;
            continue;
        }
        err_t e = OK;
        for (guint k = 0; k < mm->engines->len && !e; k++)
            e = UC_TRY(uc_mem_protect(mm->engines->pdata[k], v->start, v->end - v->start,
                                      mm_uc_prot(prot)));
        if (e)
            return map_errno(e);
        v->prot = prot;
    }
    return 0;
}

int64_t mm_mremap(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len, int flags,
                  uint64_t new_addr)
{
    if ((old & (PAGE_SIZE_LINUX - 1)) || (flags & ~(MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX)))
        return -EINVAL_LINUX;
    if ((flags & MREMAP_FIXED_LINUX) && !(flags & MREMAP_MAYMOVE_LINUX))
        return -EINVAL_LINUX;
    old_len = PAGE_ALIGN_LINUX(old_len);
    new_len = PAGE_ALIGN_LINUX(new_len);
    if (new_len == 0 || old_len == 0)
        return -EINVAL_LINUX;
    const struct vma *v = mm_find(mm, old);
    if (!v || mm_valid_prefix(mm, old, old_len, 0) < old_len)
        return -EFAULT_LINUX;
    int prot = v->prot;
    bool shared = v->shared;
    const char *name = v->name; /* v goes stale once the table changes */
    if (new_len > old_len && is_data(v) && !data_may_grow(mm, new_len - old_len))
        return -ENOMEM_LINUX;
    if (new_len <= old_len && !(flags & MREMAP_FIXED_LINUX)) {
        if (new_len < old_len) {
            err_t e = carve(mm, old + new_len, old_len - new_len);
            if (e)
                return map_errno(e);
        }
        return (int64_t)old;
    }
    /* Grow in place when the pages above are free. */
    if (!(flags & MREMAP_FIXED_LINUX) && old + new_len <= mm->limit &&
        range_free(mm, old + old_len, new_len - old_len)) {
        err_t e = map_new(mm, old + old_len, new_len - old_len, prot, shared, name, NULL);
        if (e)
            return map_errno(e);
        return (int64_t)old;
    }
    if (!(flags & MREMAP_MAYMOVE_LINUX))
        return -ENOMEM_LINUX;
    uint64_t dst;
    if (flags & MREMAP_FIXED_LINUX) {
        if ((new_addr & (PAGE_SIZE_LINUX - 1)) || new_addr + new_len > mm->limit)
            return -EINVAL_LINUX;
        if (new_addr < old + old_len && old < new_addr + new_len)
            return -EINVAL_LINUX;
        /* mremap_to(): whatever is at the destination goes first. */
        err_t e = carve(mm, new_addr, new_len);
        if (e)
            return map_errno(e);
        dst = new_addr;
    } else {
        dst = mm_find_free(mm, new_len, mm->mmap_base);
        if (!dst)
            return -ENOMEM_LINUX;
    }
    /* Only the growth counts against RLIMIT_AS: the old pages move. */
    if (new_len > old_len && mm->max_mapped && mm->mapped + (new_len - old_len) > mm->max_mapped)
        return -ENOMEM_LINUX;
    /* The pages move, not their bytes: the host memory behind the old
     * range backs the new one, piece by piece (an untouched 4 GiB region
     * moves for nothing, as in Linux). */
    err_t e = OK;
    for (guint i = first_above(mm, old); !e && i < mm->vmas->len && VMA(mm, i)->start < old + old_len;
         i++) {
        struct vma piece = *VMA(mm, i);
        uint64_t from = MAX(piece.start, old), to = MIN(piece.end, old + old_len);
        piece.host += from - piece.start;
        piece.start = dst + (from - old);
        piece.end = dst + (to - old);
        if (!(e = insert_piece(mm, piece))) {
            mm->mapped += piece.end - piece.start;
            if (piece.start < old) /* inserted below: the old pieces moved up */
                i++;
        }
    }
    if (!e)
        e = carve(mm, old, old_len);
    if (!e && new_len > old_len)
        e = map_new(mm, dst + old_len, new_len - old_len, prot, shared, name, NULL);
    if (e)
        return map_errno(e);
    /* Translations are looked up by address: none made for what was at
     * the destination before may run the moved code. */
    mm_written(mm, dst, new_len);
    return (int64_t)dst;
}

uint64_t mm_brk(struct mm *mm, uint64_t want)
{
    if (want < mm->brk_start)
        return mm->brk_cur;
    /* check_data_rlimit(): the heap plus the ELF's data. The host kernel
     * (6.18) lets any shrink pass before this test; 6.1 tested first. */
    if (want > mm->brk_cur && mm->data_rlim != RLIM_INFINITY_LINUX &&
        (want - mm->brk_start) + mm->elf_data > mm->data_rlim)
        return mm->brk_cur;
    uint64_t old_top = PAGE_ALIGN_LINUX(mm->brk_cur), new_top = PAGE_ALIGN_LINUX(want);
    if (new_top > old_top) {
        if (new_top > mm->limit || !range_free(mm, old_top, new_top - old_top) ||
            !data_may_grow(mm, new_top - old_top))
            return mm->brk_cur;
        err_t e = mm_map_fixed(mm, old_top, new_top - old_top,
                               PROT_READ_LINUX | PROT_WRITE_LINUX, "[heap]", NULL);
        if (e) {
            err_free(e);
            return mm->brk_cur;
        }
    } else if (new_top < old_top) {
        err_t e = carve(mm, new_top, old_top - new_top);
        if (e) {
            err_free(e);
            return mm->brk_cur;
        }
    }
    mm->brk_cur = want;
    return want;
}

void mm_deny_write(struct mm *mm, uint64_t addr, uint64_t len)
{
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < addr + len; i++)
        VMA(mm, i)->no_write = true;
}

int64_t mm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice)
{
    if (addr & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len)
        return -EINVAL_LINUX;
    if (mm_valid_prefix(mm, addr, plen, 0) < plen)
        return -ENOMEM_LINUX;
    /* Private anonymous memory reads back as zeros after MADV_DONTNEED;
     * shared memory keeps its contents (its pages live on in the shared
     * object).  The host drops the pages itself: the cost follows what the
     * guest touched, not the range (8 GiB of PROT_NONE, never touched,
     * costs nothing).  MADV_FREE pages go only under memory pressure and
     * read back unchanged until then, as they do here. */
    if (advice == MADV_DONTNEED_LINUX) {
        uint64_t at = addr, end = addr + plen;
        for (guint i = first_above(mm, addr); at < end && i < mm->vmas->len; i++) {
            const struct vma *v = VMA(mm, i);
            uint64_t stop = MIN(v->end, end);
            err_t e = v->shared ? OK : zero_host(v->host + (at - v->start), stop - at);
            if (e)
                return map_errno(e);
            at = stop;
        }
        mm_written(mm, addr, plen);
    }
    return 0;
}

/* Guest ranges that system calls act on end at the top of user space, as
 * Linux's access_ok() and TASK_SIZE checks make them: seccomp-emu's own
 * page above it is never read, written, remapped or advised for a guest. */
static uint64_t user_end(const struct mm *mm, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len;
    if (end < addr)
        end = UINT64_MAX;
    return MIN(end, MAX(addr, mm->limit));
}

uint64_t mm_valid_prefix(const struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    uint64_t at = addr, end = user_end(mm, addr, len);
    guint i = first_above(mm, addr);
    while (at < end && i < mm->vmas->len) {
        const struct vma *v = VMA(mm, i);
        if (v->start > at || v->hidden || (effective(v->prot) & prot) != prot)
            break;
        at = v->end;
        i++;
    }
    return MIN(at, end) - addr;
}

int mm_iovecs(const struct mm *mm, uint64_t addr, uint64_t len, int prot, struct iovec *iov,
              int max, uint64_t *covered)
{
    int n = 0;
    uint64_t at = addr, end = user_end(mm, addr, len);
    guint i = first_above(mm, addr);
    while (at < end && n < max && i < mm->vmas->len) {
        const struct vma *v = VMA(mm, i);
        if (v->start > at || v->hidden || (effective(v->prot) & prot) != prot)
            break;
        uint64_t stop = MIN(v->end, end);
        iov[n].iov_base = v->host + (at - v->start);
        iov[n].iov_len = stop - at;
        n++;
        at = stop;
        i++;
    }
    *covered = at - addr;
    return n;
}

bool mm_read(const struct mm *mm, uint64_t addr, void *dst, size_t len)
{
    if (mm_valid_prefix(mm, addr, len, PROT_READ_LINUX) < len)
        return false;
    struct iovec iov[8];
    uint8_t *out = dst;
    while (len) {
        uint64_t covered;
        int n = mm_iovecs(mm, addr, len, PROT_READ_LINUX, iov, 8, &covered);
        for (int k = 0; k < n; k++) {
            memcpy(out, iov[k].iov_base, iov[k].iov_len);
            out += iov[k].iov_len;
        }
        addr += covered;
        len -= covered;
    }
    return true;
}

bool mm_write(struct mm *mm, uint64_t addr, const void *src, size_t len)
{
    if (mm_valid_prefix(mm, addr, len, PROT_WRITE_LINUX) < len)
        return false;
    struct iovec iov[8];
    const uint8_t *in = src;
    uint64_t a = addr, left = len;
    while (left) {
        uint64_t covered;
        int n = mm_iovecs(mm, a, left, PROT_WRITE_LINUX, iov, 8, &covered);
        for (int k = 0; k < n; k++) {
            memcpy(iov[k].iov_base, in, iov[k].iov_len);
            in += iov[k].iov_len;
        }
        a += covered;
        left -= covered;
    }
    mm_written(mm, addr, len);
    return true;
}

int mm_read_string(const struct mm *mm, uint64_t addr, char *dst, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        if (addr + i < addr || addr + i >= mm->limit)
            return -EFAULT_LINUX;
        const struct vma *v = mm_find(mm, addr + i);
        if (!v || v->hidden || !(effective(v->prot) & PROT_READ_LINUX))
            return -EFAULT_LINUX;
        dst[i] = (char)v->host[addr + i - v->start];
        if (!dst[i])
            return 0;
    }
    return -ENAMETOOLONG_LINUX;
}

void mm_written(struct mm *mm, uint64_t addr, uint64_t len)
{
    /* One range per mapping: Unicorn turns a range into engine addresses
     * from its first page, which holds only within one mapped region. */
    if (len == 0)
        return;
    guint i = first_above(mm, addr);
    for (; i < mm->vmas->len && VMA(mm, i)->start < addr + len; i++) {
        const struct vma *v = VMA(mm, i);
        if (!(v->prot & PROT_EXEC_LINUX))
            continue;
        uint64_t from = MAX(addr, v->start), to = MIN(addr + len, v->end);
        for (guint k = 0; k < mm->engines->len; k++) {
            err_t e = UC_TRY(uc_ctl_remove_cache(mm->engines->pdata[k], from, to));
            if (e) {
                /* Non-empty by construction; a failure here would leave
                 * stale code running, so it is reported, never ignored. */
                g_critical("seccomp-emu: %s", e);
                err_free(e);
            }
        }
    }
}

void mm_hide(struct mm *mm, uint64_t addr)
{
    guint i = first_above(mm, addr);
    if (i < mm->vmas->len && VMA(mm, i)->start <= addr)
        VMA(mm, i)->hidden = true;
}

void *mm_guard(void)
{
    static void *guard;
    if (!guard) {
        /* Address space only: PROT_NONE, never touched, costs no memory.
         * MAP_NORESERVE keeps Linux from charging it to the commit limit
         * under strict overcommit; hosts without the flag (the BSDs) do not
         * charge PROT_NONE mappings. */
        void *p = mmap(NULL, MAX_RW_COUNT_LINUX + (size_t)PAGE_SIZE_LINUX, PROT_NONE,
                       MAP_PRIVATE | MAP_ANON | GUARD_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            g_error("cannot reserve the guard range: %s", g_strerror(errno));
        guard = p;
    }
    return guard;
}
