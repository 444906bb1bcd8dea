#include "emu/engine/mem.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "abi/linux.h"
#include "emu/engine/host_tune.h"
#include "emu/engine/hostmem.h"
#include "emu/engine/window.h"

#ifdef MAP_NORESERVE
#define GUARD_NORESERVE MAP_NORESERVE
#else
#define GUARD_NORESERVE 0
#endif

/* The guest's page, not the host's: host memory is taken in chunks that
 * mmap rounds to the host's page (16 KiB on Apple Silicon), and only
 * guest-page arithmetic is done here (tests/unit/test_mem.c, host_page). */
#define PAGE_DOWN(x) ((x) & ~(PAGE_SIZE_LINUX - 1))
/* vm.mmap_min_addr's default */
#define MMAP_MIN_ADDR 0x10000ull

/* Host memory comes from POSIX mmap (lazily zeroed; present on every host
 * we build for).  A chunk is released when the last guest piece cut from
 * it goes, so partial munmaps work with any host page size. */
struct chunk {
    uint8_t *base;
    size_t len;    /* host bytes mapped, room to grow included */
    size_t used;   /* bytes ever given to a piece; beyond them, untouched zeros */
    unsigned refs;
    /* Its pages are in the mm's window (base, len and used as placed;
     * pieces cut from it may have moved since).  They belong to the guest
     * range, not to the chunk: they go back to PROT_NONE when the range is
     * unmapped (carve), and the chunk only counts its pieces. */
    bool windowed;
};

static struct chunk *chunk_new(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct chunk *c = g_new(struct chunk, 1);
    *c = (struct chunk){ p, len, len, 0, false };
    return c;
}

/* A chunk for a mapping that is growing, with room for it to grow as much
 * again (up to GROW_ROOM_MAX) without a new piece: host address space only,
 * no memory until the guest touches it. */
#define GROW_ROOM_MAX (64u << 20)

static struct chunk *chunk_new_growing(size_t len, size_t room)
{
    room = MIN(room, GROW_ROOM_MAX);
    struct chunk *c = room && len + room > len ? chunk_new(len + room) : NULL;
    if (c) {
        c->used = len;
        return c;
    }
    return chunk_new(len);
}

static void chunk_unref(struct chunk *c)
{
    if (--c->refs == 0) {
        if (!c->windowed)
            munmap(c->base, c->len);
        g_free(c);
    }
}

/* The window (docs/linear-mapping.md, "1. The window"): off unless asked
 * for; only where host pages can stand for guest pages one to one.  The
 * slots of x86_64 address spaces ("8. x86_64 guests") likewise. */
static bool window_wanted, direct_wanted, slots_enabled, slots_direct_wanted;

void mm_window_enable(bool on) { window_wanted = on; }

void mm_slots_enable(bool on, bool direct)
{
    slots_enabled = on;
    slots_direct_wanted = on && direct;
}

/* Slots reserved by all the address spaces of this process: at most
 * SLOTS_MAX TiB of the host's 128 (a PIE program's takes three: its code
 * and break, its mappings and stack, and slot 0 where non-PIE code and
 * Go's heap are). */
#define SLOTS_MAX 32
static unsigned slots_reserved;

void mm_window_direct_enable(bool on) { direct_wanted = on; }

bool mm_window_direct_host(void)
{
    /* Unicorn's x86-64 back end is the one with the base register
     * (TCG_TARGET_LINEAR_BASE_REG); its arm64 one keeps the soft TLB. */
#if defined(__x86_64__)
    return host_page_size() == PAGE_SIZE_LINUX;
#else
    return false;
#endif
}

static bool first_writes_seen = true;

void mm_first_writes_seen(bool seen) { first_writes_seen = seen; }

static void window_direct_off(struct mm *mm); /* "direct accesses" below */
static void window_direct_share(struct mm *mm);

uint8_t *mm_window_base(const struct mm *mm) { return mm->window ? window_base(mm->window) : NULL; }

/* Does guest [addr, addr+len) lie in one slot of mm, an x86_64 space
 * with slots, below its window_end? */
static bool slot_of(const struct mm *mm, uint64_t addr, uint64_t len, uint64_t *slot)
{
    if (!mm->slots_wanted || !len || addr >= mm->window_end || len > mm->window_end - addr)
        return false;
    *slot = addr >> UC_LINEAR_SLOT_BITS;
    return *slot < UC_LINEAR_SLOTS && (addr + len - 1) >> UC_LINEAR_SLOT_BITS == *slot;
}

/* The fault handler's ranges gain a window's (while no engine of the mm
 * runs, or before any does). */
static void windows_add(struct mm *mm, const struct window *w)
{
    unsigned n = mm->windows.n;
    mm->windows.range[n].lo = (uintptr_t)window_base(w);
    mm->windows.range[n].hi = (uintptr_t)window_base(w) + window_len(w);
    mm->windows.n = n + 1;
}

/* The window holding guest [addr, addr+len) of mm, and addr's offset in
 * it: an i386 space's one window, or the x86_64 slot the range lies in
 * (a range across two slots has none).  NULL where there is none. */
static struct window *window_find(const struct mm *mm, uint64_t addr, uint64_t len,
                                  uint64_t *off)
{
    if (mm->window) {
        if (!len || addr >= mm->window_end || len > mm->window_end - addr)
            return NULL;
        *off = addr;
        return mm->window;
    }
    uint64_t slot;
    if (!slot_of(mm, addr, len, &slot) || !mm->slots[slot])
        return NULL;
    *off = addr - (slot << UC_LINEAR_SLOT_BITS);
    return mm->slots[slot];
}

/* window_find, an x86_64 slot reserved first where there is none yet and
 * the budget allows: its offset goes into the engine's table and its host
 * range to the fault handler's (while no engine of the mm runs: the
 * callers place memory). */
static struct window *window_get(struct mm *mm, uint64_t addr, uint64_t len, uint64_t *off)
{
    struct window *w = window_find(mm, addr, len, off);
    uint64_t slot;
    if (w || mm->window || !slot_of(mm, addr, len, &slot) || slots_reserved >= SLOTS_MAX)
        return w;
    err_t e = window_reserve(&w, WINDOW_SLOT_SPAN);
    if (e) {
        g_debug("no slot at 0x%" G_GINT64_MODIFIER "x, host memory placed as without: %s",
                slot << UC_LINEAR_SLOT_BITS, e);
        err_free(e);
        return NULL;
    }
    slots_reserved++;
    mm->slots[slot] = w;
    mm->slot_table[slot] = (uint64_t)(uintptr_t)window_base(w) - (slot << UC_LINEAR_SLOT_BITS);
    windows_add(mm, w);
    *off = addr - (slot << UC_LINEAR_SLOT_BITS);
    return w;
}

/* The engine's linear mapping of mm: the window's base, or the table of
 * the slots (which gains entries as they are reserved). */
static err_t engine_linear(struct mm *mm, uc_engine *uc)
{
    if (mm->window)
        return UC_TRY(uc_ctl_linear_base(uc, (uintptr_t)window_base(mm->window)));
    return UC_TRY(uc_ctl_linear_table(uc, mm->slot_table,
                                      mm->slot_traps ? UC_LINEAR_TABLE_TRAPS : 0));
}

/* Does a piece like v go in mm's window?  Private memory of the guest's
 * own address space does.  Shared memory does not: its host pages outlive
 * the piece (a second view, the other mm after fork) and cannot be in two
 * windows at once without aliasing through a descriptor (a later step).
 * Nor seccomp-emu's hidden pages, above the guest's user space.  An x86_64
 * space's slot is reserved here when the piece would be its first. */
static bool window_holds(struct mm *mm, const struct vma *v)
{
    uint64_t off;
    return !v->shared && !v->hidden && !v->past_object && !v->no_page &&
           window_get(mm, v->start, v->end - v->start, &off);
}

bool mm_in_window(const struct mm *mm, const struct vma *v)
{
    uint64_t off;
    const struct window *w = window_find(mm, v->start, v->end - v->start, &off);
    return w && v->host == window_base(w) + off;
}

/* The window's protection, clearing and placement of guest ranges that
 * one window holds (the callers know). */
static err_t mm_window_protect(const struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    uint64_t off;
    struct window *w = window_find(mm, addr, len, &off);
    return w ? window_protect(w, off, len, prot)
             : err_new("no window holds 0x%" G_GINT64_MODIFIER "x", addr);
}

static err_t mm_window_clear(const struct mm *mm, uint64_t addr, uint64_t len)
{
    uint64_t off;
    struct window *w = window_find(mm, addr, len, &off);
    return w ? window_clear(w, off, len)
             : err_new("no window holds 0x%" G_GINT64_MODIFIER "x", addr);
}

/* A chunk of fresh pages at the window's place for [start, start+len). */
static err_t chunk_in_window(struct mm *mm, uint64_t start, uint64_t len, struct chunk **out)
{
    uint64_t off;
    struct window *w = window_get(mm, start, len, &off);
    if (!w)
        return err_new("no window holds 0x%" G_GINT64_MODIFIER "x", start);
    err_t e = window_place(w, off, len, PROT_READ | PROT_WRITE);
    if (e)
        return e;
    struct chunk *c = g_new(struct chunk, 1);
    *c = (struct chunk){ window_base(w) + off, len, len, 0, true };
    *out = c;
    return OK;
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

uint32_t mm_vma_uc_prot(const struct vma *v, int prot)
{
    return v->past_object ? 0 : mm_uc_prot(prot);
}

bool mm_vma_no_page(const struct vma *v, uint64_t addr)
{
    uint64_t page = (addr - v->start) / PAGE_SIZE_LINUX;
    return v->past_object || (page < 8 && (v->no_page >> page) & 1);
}

/* What the guest can do with a page, in the terms syscalls check. */
static int effective(int prot)
{
    int p = prot;
    if (prot & (PROT_WRITE_LINUX | PROT_EXEC_LINUX))
        p |= PROT_READ_LINUX;
    return p;
}

/* Can a call reach the piece v for `prot` (copy_from_user and
 * copy_to_user: seccomp-emu's page and pages past a shared object's end
 * are EFAULT whatever their protection)? */
static bool reachable(const struct vma *v, int prot)
{
    return !v->hidden && !v->past_object && (effective(v->prot) & prot) == prot;
}

/* Where a call's copy for `prot` from `at` in the piece v stops: at v's
 * end, or at the first page that is never there (struct vma's no_page). */
static uint64_t reachable_end(const struct vma *v, uint64_t at, int prot)
{
    if (!reachable(v, prot))
        return at;
    if (!v->no_page)
        return v->end;
    uint64_t page = at & ~(uint64_t)(PAGE_SIZE_LINUX - 1);
    while (page < v->end && !mm_vma_no_page(v, page))
        page += PAGE_SIZE_LINUX;
    return MAX(page, at);
}

/* Anonymous private memory, whose VMAs have page offsets of their own and
 * an anon_vma once written (struct vma's pgoff and anon). */
static bool private_anon(const struct vma *v)
{
    return !v->shared && !v->file && !v->special && !v->hidden;
}

/* A shared anonymous mapping (shmem): the shared file mappings are the
 * granted files' read-only copies, which never take PROT_WRITE. */
static bool shared_anon(const struct vma *v)
{
    return v->shared && !v->no_write && !v->special;
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

/* ---- a piece in an engine: one region over it and its reserve ---- */

/* The region of piece v: [start, end), and a stack's reserve below it
 * (struct vma's below), whose host memory runs on below v->host. */
static uc_err engine_map(uc_engine *uc, const struct vma *v)
{
    return uc_mem_map_ptr(uc, v->start - v->below, v->end - v->start + v->below,
                          mm_vma_uc_prot(v, v->prot), v->host - v->below);
}

/* (Unicorn drops the region's translations by its RAM addresses: its
 * first page, in a reserve, translates to nothing.) */
static uc_err engine_unmap(uc_engine *uc, const struct vma *v)
{
    return uc_mem_unmap(uc, v->start - v->below, v->end - v->start + v->below);
}

static uc_err engine_protect(uc_engine *uc, const struct vma *v, int prot)
{
    return uc_mem_protect(uc, v->start - v->below, v->end - v->start + v->below,
                          mm_vma_uc_prot(v, prot));
}

static bool write_view(const struct vma *v);
static void drop_views_of(struct mm *mm, uc_engine *uc, const struct vma *w, const uint8_t *host,
                          uint64_t len);
static err_t hook_views(struct mm *mm, uc_engine *uc);
static void unhook_views(struct mm *mm, uc_engine *uc);
static void update_view_hooks(struct mm *mm);

/* Where the table sends a lower-half slot an x86_64 space does not hold,
 * when the fault handler takes faults above the host's user space too
 * (UC_LINEAR_TABLE_TRAPS): one slot's span, reserved once for the process
 * and never placed, so that every access through it faults and goes to the
 * soft TLB (hostfault.h), as one into a hole of a held slot does.  The
 * engine then makes no test of the entry on each access. */
static struct window *trap_region;

static bool trap_region_ready(void)
{
    static gsize done;
    if (g_once_init_enter(&done)) {
        err_t e = window_reserve(&trap_region, WINDOW_SLOT_SPAN);
        if (e) {
            g_debug("no trap region, slot offsets tested on each access: %s", e);
            err_free(e);
            trap_region = NULL;
        }
        g_once_init_leave(&done, 1);
    }
    return trap_region != NULL;
}

/* The engine's table of slot offsets (UC_CTL_LINEAR_TABLE): the first
 * host page, which holds the lower half's 128 entries, writable; the rest
 * read-only zeros. */
static err_t slot_table_map(struct mm *mm)
{
    const uint64_t bytes = UC_LINEAR_TABLE_ENTRIES * sizeof(uint64_t);
    const uint64_t page = host_page_size();
    G_STATIC_ASSERT(UC_LINEAR_SLOTS * sizeof(uint64_t) <= PAGE_SIZE_LINUX);
    err_t e = window_reserve(&mm->slot_table_map, bytes);
    if (!e)
        e = window_place(mm->slot_table_map, 0, page, PROT_READ | PROT_WRITE);
    if (!e)
        e = window_place(mm->slot_table_map, page, bytes - page, PROT_READ);
    if (e) {
        window_release(mm->slot_table_map);
        mm->slot_table_map = NULL;
        return e;
    }
    mm->slot_table = (uint64_t *)window_base(mm->slot_table_map);
    if (hostfault_traps_beyond_user() && trap_region_ready()) {
        for (uint64_t slot = 0; slot < UC_LINEAR_SLOTS; slot++)
            mm->slot_table[slot] =
                (uint64_t)(uintptr_t)window_base(trap_region) - (slot << UC_LINEAR_SLOT_BITS);
        windows_add(mm, trap_region);
        mm->windows.beyond_user = true;
        mm->slot_traps = true;
    }
    return OK;
}

/* mm_new, and mm_copy's child, which gets a window or slots when its
 * parent has them whatever mm_window_enable and mm_slots_enable say now. */
static struct mm *mm_alloc(uint64_t limit, bool want_window, bool want_slots)
{
    struct mm *mm = g_new(struct mm, 1);
    *mm = (struct mm){ .refs = 1,
                       .limit = limit,
                       .data_rlim = RLIM_INFINITY_LINUX,
                       .data_rlim_max = RLIM_INFINITY_LINUX,
                       .stack_rlim = RLIM_INFINITY_LINUX };
    mm->engines = g_ptr_array_new();
    mm->vmas = g_array_new(FALSE, FALSE, sizeof(struct vma));
    /* A 32-bit address space (i386: TASK_SIZE 0xFFFFE000) fits a window;
     * a 64-bit one gets its slots as it places memory (docs/linear-mapping.md,
     * 8.), only where the engine can reach them directly (a TiB reserved
     * for nothing is no help, and costly under an emulator's mmap).  A
     * host page other than 4 KiB could not hold one guest page's
     * protection. */
    if (limit > WINDOW_SPAN && want_slots && mm_window_direct_host()) {
        err_t e = slot_table_map(mm);
        if (e) {
            g_debug("no slots for a 64-bit address space, host memory placed as without: %s",
                    e);
            err_free(e);
        } else {
            mm->slots_wanted = true;
            mm->window_end = limit;
        }
    } else if (want_window && limit <= WINDOW_SPAN && host_page_size() == PAGE_SIZE_LINUX) {
        err_t e = window_reserve(&mm->window, WINDOW_SPAN);
        if (e) {
            /* Today's placement for this mm, and said so: RLIMIT_AS, or a
             * host short of address space. */
            mm->window_failed = true;
            g_debug("no window for a 32-bit address space, host memory placed as without: %s",
                    e);
            err_free(e);
        }
        mm->window_end = limit;
        if (mm->window)
            windows_add(mm, mm->window);
    }
    return mm;
}

struct mm *mm_new(uint64_t limit) { return mm_alloc(limit, window_wanted, slots_enabled); }

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
            engine_unmap(mm->engines->pdata[k], VMA(mm, i));
        chunk_unref(VMA(mm, i)->chunk);
    }
    for (guint k = 0; k < mm->engines->len; k++)
        unhook_views(mm, mm->engines->pdata[k]);
    if (mm->view_hooks)
        g_array_free(mm->view_hooks, TRUE);
    g_array_free(mm->vmas, TRUE);
    g_ptr_array_free(mm->engines, TRUE);
    if (mm->group)
        (void)uc_parallel_group_close(mm->group);
    window_release(mm->window); /* the windowed chunks' pages with it */
    for (unsigned slot = 0; slot < UC_LINEAR_SLOTS; slot++) {
        if (mm->slots[slot]) {
            window_release(mm->slots[slot]);
            slots_reserved--;
        }
    }
    window_release(mm->slot_table_map);
    if (mm->code_pages)
        g_hash_table_destroy(mm->code_pages);
    g_free(mm->exe_path);
    g_free(mm);
}

static void unmap_first(uc_engine *uc, const struct mm *mm, guint n)
{
    while (n-- > 0)
        engine_unmap(uc, VMA(mm, n));
}

err_t mm_attach_engine(struct mm *mm, uc_engine *uc)
{
    /* A second engine shares direct accesses where it can, or ends them. */
    window_direct_share(mm);
    /* One rebuild of the engine's memory topology for all the regions,
     * not one per region: a thread's engine maps every mapping of its
     * process, a hundred stacks where a hundred threads run. */
    err_t e = UC_TRY(uc_ctl_mem_batch(uc, 1));
    guint mapped = 0;
    for (; !e && mapped < mm->vmas->len; mapped++) {
        const struct vma *v = VMA(mm, mapped);
        e = UC_TRY(engine_map(uc, v));
    }
    if (e)
        unmap_first(uc, mm, mapped - 1);
    err_t end = UC_TRY(uc_ctl_mem_batch(uc, 0));
    if (e) {
        err_free(end);
        return e;
    }
    if (end) {
        unmap_first(uc, mm, mapped);
        return end;
    }
    g_ptr_array_add(mm->engines, uc);
    if (mm->window_shared && (e = engine_linear(mm, uc))) {
        /* The others keep theirs; this one would take the soft TLB, whose
         * pages the window does not keep writable where code is. */
        g_debug("direct accesses off: %s", e);
        err_free(e);
        window_direct_off(mm);
    }
    /* A fork's copy, or a thread's engine, may hold two views already. */
    if (!mm->view_hooks) {
        update_view_hooks(mm);
        return OK;
    }
    if ((e = hook_views(mm, uc))) {
        mm_detach_engine(mm, uc);
        unmap_first(uc, mm, mm->vmas->len);
    }
    return e;
}

void mm_detach_engine(struct mm *mm, uc_engine *uc)
{
    /* The engine is about to close, which drops its regions with it:
     * unmapping them one by one first would make it invalidate code page
     * by page for nothing. */
    unhook_views(mm, uc);
    g_ptr_array_remove(mm->engines, uc);
    /* Its close flushes its code, which must not reach an mm that may be
     * gone by then; the window keeps what it has (no engine runs there).
     * Shared direct accesses go on for the others (no engine tells its
     * code pages then). */
    if (mm->window_direct && !mm->window_shared) {
        err_free(UC_TRY(uc_ctl_code_page_hook(uc, NULL, NULL)));
        mm->window_direct = false;
        mm->window_direct_over = true;
        g_hash_table_destroy(mm->code_pages);
        mm->code_pages = NULL;
    }
}

static guint linux_vma(const struct mm *mm, guint i, guint *first, uint64_t *anon);

err_t mm_copy(const struct mm *src, struct mm **out)
{
    struct mm *mm = mm_alloc(src->limit, window_wanted || src->window,
                             slots_enabled || src->slots_wanted);
    mm->mmap_base = src->mmap_base;
    mm->brk_start = src->brk_start;
    mm->brk_cur = src->brk_cur;
    mm->mapped = src->mapped;
    mm->max_mapped = src->max_mapped;
    mm->data_rlim = src->data_rlim;
    mm->data_rlim_max = src->data_rlim_max;
    mm->stack_rlim = src->stack_rlim;
    mm->elf_data = src->elf_data;
    mm->anon_seq = src->anon_seq; /* new numbers stay new beside the copied ones */
    mm->layout = src->layout;
    mm->exe_path = g_strdup(src->exe_path);
    /* Pieces cut from one chunk stay pieces of one (new) chunk, so that
     * their host memory keeps its layout. */
    GHashTable *copies = g_hash_table_new(NULL, NULL);
    /* Per piece of the child: written in the parent, so its VMA has an
     * anon_vma there even where first-write tracking was off
     * (--sched=parallel): a page of its own says so. */
    g_autoptr(GArray) written = g_array_new(FALSE, FALSE, sizeof(gboolean));
    for (guint i = 0; i < src->vmas->len; i++) {
        struct vma v = *VMA(src, i);
        struct chunk *c = v.chunk;
        v.locked = v.lock_onfault = false; /* dup_mmap(): VM_LOCKED_MASK cleared */
        v.below = 0; /* the child's engines map ahead anew, should its stack grow */
        if (v.dontfork) {
            mm->mapped -= v.end - v.start; /* dup_mmap() skips VM_DONTCOPY */
            continue;
        }
        gboolean was_written = private_anon(&v) && !v.anon && (v.prot & PROT_WRITE_LINUX) &&
                               host_range_has_own_page(v.host, v.end - v.start);
        g_array_append_val(written, was_written);
        if (!v.shared && (window_holds(mm, &v) || v.chunk->windowed)) {
            /* Into the child's window, or (its reservation refused) out
             * of the parent's: a chunk per piece, the parent's pieces of
             * one chunk having moved apart since perhaps. */
            size_t len = (size_t)(v.end - v.start);
            err_t e = OK;
            if (window_holds(mm, &v))
                e = chunk_in_window(mm, v.start, len, &c);
            else if (!(c = chunk_new(len)))
                e = err_new("host mmap of %zu bytes for fork: %s", len, host_strerror(errno));
            if (e) {
                g_hash_table_destroy(copies);
                mm_unref(mm);
                return e;
            }
            /* With direct accesses the parent's window may refuse reads
             * (PROT_NONE pages): open it for the copy. */
            bool closed = src->window_direct && mm_in_window(src, &v) &&
                          !((v.window_prot - 1) & PROT_READ);
            if (closed)
                err_free(mm_window_protect(src, v.start, len, PROT_READ));
            host_copy_own_pages(c->base, v.host, len);
            if (closed)
                err_free(mm_window_protect(src, v.start, len, v.window_prot - 1));
            v.host = c->base;
            v.chunk = c;
            v.window_prot = 0;
        } else if (!v.shared) {
            c = g_hash_table_lookup(copies, v.chunk);
            if (!c) {
                c = chunk_new(v.chunk->len);
                if (c)
                    c->used = v.chunk->used;
                if (!c) {
                    g_hash_table_destroy(copies);
                    mm_unref(mm);
                    return err_new("host mmap of %zu bytes for fork: %s", v.chunk->len,
                                   host_strerror(errno));
                }
                g_hash_table_insert(copies, v.chunk, c);
            }
            size_t off = (size_t)(v.host - v.chunk->base);
            host_copy_own_pages(c->base + off, v.host, v.end - v.start);
            v.host = c->base + off;
            v.chunk = c;
        }
        c->refs++;
        g_array_append_val(mm->vmas, v);
    }
    g_hash_table_destroy(copies);
    /* anon_vma_fork(): each VMA of the child that has an anon_vma gets one
     * of its own, chained to the parent's, all its pieces alike. */
    for (guint i = 0; i < mm->vmas->len;) {
        guint first;
        uint64_t anon;
        guint last = linux_vma(mm, i, &first, &anon);
        for (guint k = first; k <= last && !anon; k++)
            anon = g_array_index(written, gboolean, k);
        if (anon && private_anon(VMA(mm, first))) {
            uint64_t own = ++mm->anon_seq;
            for (guint k = first; k <= last; k++) {
                VMA(mm, k)->anon = own;
                VMA(mm, k)->anon_forked = true;
            }
        }
        i = last + 1;
    }
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

/* ---- direct accesses through the window (docs/linear-mapping.md, 3-5) ----
 *
 * An engine with a linear base reads and writes the window's pages with no
 * check of its own, so the window must never allow more than the guest
 * may: each piece's pages get what the guest may do with them, and a page
 * where the engine has translated code loses write, so that a store there
 * faults, runs again through the soft TLB, which drops the code first
 * (UC_CTL_CODE_PAGE_HOOK, uc_host_fault).  Engines on several threads
 * share them only where no code page can be written (window_direct_share).
 * Without direct accesses the window's pages stay read-write, as
 * seccomp-emu's own copies expect. */

static int window_prot_of(const struct mm *mm, const struct vma *v)
{
    if (!mm->window_direct)
        return PROT_READ | PROT_WRITE;
    int p = effective(v->prot);
    /* Until its first write gives the VMA an anon_vma, a write must reach
     * the TLB fill that records it (emu/entry/fault.c): one fault per VMA.
     * Not where that fill records nothing (engines in parallel). */
    if (first_writes_seen && mm_vma_awaits_anon(v))
        p &= ~PROT_WRITE_LINUX;
    return (p & PROT_READ_LINUX ? PROT_READ : 0) | (p & PROT_WRITE_LINUX ? PROT_WRITE : 0);
}

/* A window page that keeps more than the guest may have would let a
 * direct access past the guest's protection, and one that keeps less
 * would fault the engine's own accesses: a host that refuses the change
 * (its map count spent, vm.max_map_count) ends the run. */
static void window_protect_or_die(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    err_t e = mm_window_protect(mm, addr, len, prot);
    if (!e)
        return;
    fprintf(stderr, "seccomp-emu: cannot keep the guest's protection in its window: %s\n", e);
    _exit(EXIT_CANNOT_RUN);
}

/* The window's protection of one guest page with code, or without. */
static void window_code_page(struct mm *mm, uint64_t page, bool has_code)
{
    const struct vma *v = mm_find(mm, page);
    if (!v || !mm_in_window(mm, v))
        return;
    /* A page that cannot run holds no live code (an entry left from
     * before an mprotect costs nothing there). */
    if (!(v->prot & PROT_EXEC_LINUX))
        has_code = false;
    window_protect_or_die(mm, page, PAGE_SIZE_LINUX,
                          window_prot_of(mm, v) & (has_code ? ~PROT_WRITE : ~0));
}

/* Every piece's pages as window_prot_of says, after a change of the table;
 * only pieces whose protection differs from what the window has cost a
 * host call. */
static void window_sync(struct mm *mm)
{
    if (!mm->window && !mm->slots_wanted)
        return;
    for (guint i = 0; i < mm->vmas->len; i++) {
        struct vma *v = VMA(mm, i);
        if (!mm_in_window(mm, v))
            continue;
        int want = window_prot_of(mm, v);
        if (v->window_prot == 1 + want)
            continue;
        window_protect_or_die(mm, v->start, v->end - v->start, want);
        v->window_prot = (uint8_t)(1 + want);
        if (!mm->window_direct || !(want & PROT_WRITE) || !mm->code_pages)
            continue;
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, mm->code_pages);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
            uint64_t page = (uint64_t)GPOINTER_TO_SIZE(key) * PAGE_SIZE_LINUX;
            if (page >= v->start && page < v->end)
                window_code_page(mm, page, true);
        }
    }
}

/* The engine's word on a page's translations (UC_CTL_CODE_PAGE_HOOK). */
static void on_code_page(uc_engine *uc, uint64_t page, bool has_code, void *user)
{
    (void)uc;
    struct mm *mm = user;
    if (!mm->window_direct || !mm->code_pages)
        return;
    if (page == UC_CODE_PAGE_ALL) {
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, mm->code_pages);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
            g_hash_table_iter_remove(&it);
            window_code_page(mm, (uint64_t)GPOINTER_TO_SIZE(key) * PAGE_SIZE_LINUX, false);
            if (!mm->window_direct)
                return;
        }
        return;
    }
    gpointer key = GSIZE_TO_POINTER((gsize)(page / PAGE_SIZE_LINUX));
    if (has_code)
        g_hash_table_add(mm->code_pages, key);
    else
        g_hash_table_remove(mm->code_pages, key);
    window_code_page(mm, page, has_code);
}

bool mm_window_activate(struct mm *mm, uc_engine *uc)
{
    if (mm->window_direct) {
        if (mm->window_resync) {
            mm->window_resync = false;
            window_sync(mm);
        }
        return mm->window_shared || (mm->engines->len == 1 && mm->engines->pdata[0] == uc);
    }
    if (!(mm->window ? direct_wanted : mm->slots_wanted && slots_direct_wanted) ||
        mm->window_direct_over || mm->engines->len != 1 || mm->engines->pdata[0] != uc)
        return false;
    err_t e = UC_TRY(uc_ctl_code_page_hook(uc, on_code_page, mm));
    if (!e)
        e = engine_linear(mm, uc);
    if (e) {
        /* A host code generator without a base register: softmmu. */
        g_debug("no direct accesses: %s", e);
        err_free(e);
        (void)uc_ctl_code_page_hook(uc, NULL, NULL);
        mm->window_direct_over = true;
        return false;
    }
    mm->code_pages = g_hash_table_new(NULL, NULL);
    mm->window_direct = true;
    window_sync(mm);
    return mm->window_direct;
}

/* A second engine for mm, which will run on a thread of its own
 * (--sched=parallel): direct accesses go on for every engine while no guest
 * store can change code, or end.  Without a mapping both executable and
 * writable (or executable and shared: mm_code_writable) no code page is
 * writable in the window, and where the TLB fill records no first write
 * (first_writes_seen) every page has exactly the guest's protection: no
 * engine needs to know another's code pages, so none tells them.  The
 * first mapping that changes that ends them (resume_others), with the
 * engines stopped; as it does for a JIT from its start, whose threads
 * take turns on its code (sched.c, take_guest_code). */
static void window_direct_share(struct mm *mm)
{
    if (!mm->window_direct || mm->window_shared)
        return;
    if (first_writes_seen || mm_code_writable(mm)) {
        window_direct_off(mm);
        return;
    }
    for (guint k = 0; k < mm->engines->len; k++) {
        err_t e = UC_TRY(uc_ctl_code_page_hook(mm->engines->pdata[k], NULL, NULL));
        if (e) {
            g_debug("direct accesses off: %s", e);
            err_free(e);
            window_direct_off(mm);
            return;
        }
    }
    g_hash_table_destroy(mm->code_pages);
    mm->code_pages = NULL;
    mm->window_shared = true;
    window_sync(mm);
}

/* Back to the soft TLB for good: the engines forget their base (a flush,
 * which tells every code page gone) and the window goes read-write again
 * where it can. */
static void window_direct_off(struct mm *mm)
{
    if (!mm->window_direct)
        return;
    for (guint k = 0; k < mm->engines->len; k++) {
        uc_engine *uc = mm->engines->pdata[k];
        err_t e = UC_TRY(uc_ctl_linear_base(uc, 0));
        if (!e)
            e = UC_TRY(uc_ctl_code_page_hook(uc, NULL, NULL));
        if (e) {
            /* An engine that keeps its base would write past protections. */
            fprintf(stderr, "seccomp-emu: cannot end direct accesses: %s\n", e);
            abort();
        }
    }
    mm->window_direct = false;
    mm->window_shared = false;
    mm->window_direct_over = true;
    if (mm->code_pages) {
        g_hash_table_destroy(mm->code_pages);
        mm->code_pages = NULL;
    }
    window_sync(mm);
}

void mm_will_write(struct mm *mm, uint64_t addr, uint64_t len)
{
    /* Shared, the window has the guest's own protection everywhere:
     * nothing the guest may write is closed (window_direct_share). */
    if (!mm->window_direct || mm->window_shared || !len)
        return;
    uint64_t first = addr / PAGE_SIZE_LINUX, last = (addr + len - 1) / PAGE_SIZE_LINUX;
    for (uint64_t p = first; p <= last && mm->window_direct && g_hash_table_size(mm->code_pages);
         p++) {
        if (!g_hash_table_contains(mm->code_pages, GSIZE_TO_POINTER((gsize)p)))
            continue;
        /* The engine drops the page's code, and its hook unprotects it;
         * the page is unprotected here too should the engine have had
         * nothing left to tell. */
        err_t e = UC_TRY(uc_ctl_remove_cache(mm->engines->pdata[0], p * PAGE_SIZE_LINUX,
                                             (p + 1) * PAGE_SIZE_LINUX));
        if (e) {
            g_debug("direct accesses off: %s", e);
            err_free(e);
            window_direct_off(mm);
            return;
        }
        if (g_hash_table_remove(mm->code_pages, GSIZE_TO_POINTER((gsize)p)))
            window_code_page(mm, p * PAGE_SIZE_LINUX, false);
    }
    /* Pages still waiting for their first write are read-only in the
     * window, for the guest's first write to be seen: open them to this
     * copy, which the caller records (mm_anon_write) if it writes at all;
     * the next run (mm_window_activate) closes what stayed unwritten. */
    if (!mm->window_direct)
        return;
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < addr + len;
         i++) {
        struct vma *v = VMA(mm, i);
        if (!mm_in_window(mm, v) || !mm_vma_awaits_anon(v) || v->window_prot == 0 ||
            ((v->window_prot - 1) & PROT_WRITE))
            continue;
        window_protect_or_die(mm, v->start, v->end - v->start, PROT_READ | PROT_WRITE);
        v->window_prot = 0;
        mm->window_resync = true;
    }
}

static void stop_others(struct mm *mm);
static void resume_others(struct mm *mm);

void mm_fill_begin(struct mm *mm, uint64_t addr, uint64_t len)
{
    stop_others(mm);
    mm_will_write(mm, addr, len); /* code there goes first */
    if (!mm->window_direct || !len)
        return;
    /* Opened whole; resume_others gives each piece its protection again
     * (window_sync: window_prot 0 matches nothing). */
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < addr + len;
         i++) {
        struct vma *v = VMA(mm, i);
        if (!mm_in_window(mm, v) || v->window_prot == 1 + (PROT_READ | PROT_WRITE))
            continue;
        window_protect_or_die(mm, v->start, v->end - v->start, PROT_READ | PROT_WRITE);
        v->window_prot = 0;
    }
}

void mm_fill_end(struct mm *mm) { resume_others(mm); }

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

void mm_set_stack_limit(struct mm *mm, uint64_t cur)
{
    mm->stack_rlim = cur;
}

/* Bytes of [addr, addr+len) some mapping holds, of any kind. */
static uint64_t mapped_in(const struct mm *mm, uint64_t addr, uint64_t len)
{
    uint64_t n = 0, end = addr + len;
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < end; i++)
        n += MIN(VMA(mm, i)->end, end) - MAX(VMA(mm, i)->start, addr);
    return n;
}

/* The reserve of piece i becomes `below` bytes: the engines map it again
 * over its new extent. */
static err_t reserve_set(struct mm *mm, guint i, uint64_t below)
{
    struct vma *v = VMA(mm, i), to = *v;
    to.below = below;
    for (guint k = 0; k < mm->engines->len; k++) {
        uc_engine *uc = mm->engines->pdata[k];
        err_t e = UC_TRY(engine_unmap(uc, v));
        if (!e && (e = UC_TRY(engine_map(uc, &to)))) {
            /* as it was; an engine that refuses even that fails the next access */
            engine_map(uc, v);
        }
        if (e) {
            while (k-- > 0) {
                engine_unmap(mm->engines->pdata[k], &to);
                engine_map(mm->engines->pdata[k], v);
            }
            return e;
        }
    }
    v->below = below;
    return OK;
}

/* [lo, hi), free of mappings, is about to be mapped in the engines: a
 * reserve there (the piece above's) gives way. */
static err_t reserve_clear(struct mm *mm, uint64_t lo, uint64_t hi)
{
    guint i = first_above(mm, lo);
    if (i >= mm->vmas->len)
        return OK;
    const struct vma *v = VMA(mm, i);
    if (v->start < hi || v->start - v->below >= hi)
        return OK;
    return reserve_set(mm, i, v->start - hi);
}

static err_t insert_piece(struct mm *mm, struct vma v)
{
    err_t e = reserve_clear(mm, v.start - v.below, v.end);
    if (e)
        return e;
    for (guint k = 0; k < mm->engines->len; k++) {
        e = UC_TRY(engine_map(mm->engines->pdata[k], &v));
        if (e) {
            while (k-- > 0)
                engine_unmap(mm->engines->pdata[k], &v);
            return e;
        }
    }
    v.chunk->refs++;
    g_array_insert_val(mm->vmas, first_above(mm, v.start), v);
    return OK;
}

/* Map v (its start, end and attributes; a free range) on a new chunk with
 * `room` bytes to grow into (chunk_new_growing), or in the window (which
 * is room enough).  A reserve below it (v.below, over a free range) takes
 * host address space below the piece: the chunk's, or the window's,
 * clipped to the window that holds the piece. */
static err_t map_chunk(struct mm *mm, struct vma v, size_t room, uint8_t **host_out)
{
    uint64_t len = v.end - v.start;
    if (mm->max_mapped && mm->mapped + len > mm->max_mapped)
        return err_new("guest memory limit reached");
    struct chunk *c = NULL;
    err_t e = OK;
    uint64_t off;
    if (window_holds(mm, &v)) {
        e = chunk_in_window(mm, v.start, len, &c);
        if (!e && window_find(mm, v.start, len, &off))
            v.below = MIN(v.below, off);
    } else if (!(c = v.below ? chunk_new(v.below + len) : chunk_new_growing(len, room)))
        e = err_new("host mmap of %" G_GUINT64_FORMAT " bytes: %s", len, host_strerror(errno));
    if (e)
        return e;
    v.host = c->windowed ? c->base : c->base + v.below;
    v.chunk = c;
    v.window_prot = 0;
    e = insert_piece(mm, v);
    if (c->refs == 0) {
        /* An engine refused the piece: its pages back to PROT_NONE (were
         * that refused too, they stay fresh zeros no piece points at). */
        if (c->windowed)
            err_free(mm_window_clear(mm, v.start, len));
        c->refs = 1;
        chunk_unref(c);
    }
    if (e)
        return e;
    mm->mapped += len;
    if (host_out)
        *host_out = v.host;
    return OK;
}

/* A new piece like v over [v.start, v.end) where nothing is mapped. */
static err_t map_piece(struct mm *mm, struct vma v, uint8_t **host_out)
{
    uint64_t addr = v.start, len = v.end - v.start;
    if ((addr & (PAGE_SIZE_LINUX - 1)) || len == 0 || v.end < addr || v.end > mm->limit)
        return err_new("mapping 0x%" G_GINT64_MODIFIER "x+0x%" G_GINT64_MODIFIER
                       "x is outside the guest's address space", addr, len);
    if (!range_free(mm, addr, len))
        return err_new("mapping 0x%" G_GINT64_MODIFIER "x+0x%" G_GINT64_MODIFIER
                       "x overlaps another", addr, len);
    return map_chunk(mm, v, 0, host_out);
}

static err_t map_new(struct mm *mm, uint64_t addr, uint64_t len, int prot, bool shared,
                     const char *name, uint8_t **host_out)
{
    len = PAGE_ALIGN_LINUX(len);
    struct vma v = { .start = addr, .end = addr + len, .prot = prot, .name = name,
                     .shared = shared, .pgoff = addr / PAGE_SIZE_LINUX,
                     .account = !shared && (prot & PROT_WRITE_LINUX) };
    return map_piece(mm, v, host_out);
}

/* Grow piece i by `extra` bytes in place, host memory included: into its
 * chunk's room (chunk_new_growing), or where the host has the pages right
 * after the chunk free; the engines then map the piece whole again.
 * Linux merges the growth of a mapping (mremap, brk) into its VMA; without
 * this every growth would be a piece of its own, and a program that grows
 * an array a page at a time (busybox sort: thousands of mremaps) would
 * leave the engines as many regions, each map and unmap costing time in
 * their number.  false (nothing changed) when the piece does not end its
 * chunk's used part, there is no room and the host put the pages
 * elsewhere, or an engine refused. */
static bool grow_piece(struct mm *mm, guint i, uint64_t extra)
{
    struct vma *v = VMA(mm, i);
    struct chunk *c = v->chunk;
    bool in_window = mm_in_window(mm, v);
    if (v->shared || v->special || v->hidden ||
        (!in_window && v->host + (v->end - v->start) != c->base + c->used) ||
        (mm->max_mapped && mm->mapped + extra > mm->max_mapped))
        return false;
    struct vma grown = *v;
    grown.end += extra;
    if (in_window && !window_holds(mm, &grown))
        return false;
    /* A stack's reserve there goes first (only the piece above changes). */
    err_t e = reserve_clear(mm, v->end, grown.end);
    if (e) {
        err_free(e);
        return false;
    }
    v = VMA(mm, i);
    uint8_t *more = NULL; /* host pages mapped here for this growth */
    if (in_window) {
        /* The window is the room: the pages after the piece are its
         * guest range's, free (the callers checked). */
        uint64_t off;
        struct window *w = window_find(mm, v->end, extra, &off);
        e = w ? window_place(w, off, extra, PROT_READ | PROT_WRITE)
              : err_new("no window holds the growth");
        if (e) {
            err_free(e);
            return false;
        }
        more = v->host + (v->end - v->start);
    } else if (c->len - c->used < extra) {
        if (c->used != c->len)
            return false;
        uint8_t *want = c->base + c->len;
        void *got = mmap(want, extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
        if (got == MAP_FAILED)
            return false;
        if (got != want) {
            munmap(got, extra);
            return false;
        }
        more = want;
    }
    guint k = 0;
    for (; k < mm->engines->len; k++) {
        uc_engine *uc = mm->engines->pdata[k];
        if (engine_unmap(uc, v) != UC_ERR_OK)
            break;
        if (engine_map(uc, &grown) != UC_ERR_OK) {
            /* as it was; an engine that refuses even that fails the next access */
            engine_map(uc, v);
            break;
        }
    }
    if (k < mm->engines->len) {
        while (k-- > 0) {
            uc_engine *uc = mm->engines->pdata[k];
            engine_unmap(uc, &grown);
            engine_map(uc, v);
        }
        if (in_window)
            err_free(mm_window_clear(mm, v->end, extra));
        else if (more)
            munmap(more, extra);
        return false;
    }
    if (!in_window) { /* a windowed chunk's fields say only where it was placed */
        if (more)
            c->len += extra;
        c->used += extra;
    }
    v->end += extra;
    v->window_prot = 0; /* a growth in the window was placed read-write */
    mm->mapped += extra;
    return true;
}

/* Map [dst, dst+len) onto the object behind the shared piece `src` (its
 * chunk, whose used part is the object: a shared one never grows), from
 * byte `off` of it: the object's own pages while it has them, then pages
 * past_object (SIGBUS), for the shmem file keeps the size mmap gave it.
 * mremap's second view of a shared mapping, and its growth. */
static err_t map_object(struct mm *mm, const struct vma *src, size_t off, uint64_t dst,
                        uint64_t len)
{
    if (mm->max_mapped && mm->mapped + len > mm->max_mapped)
        return err_new("guest memory limit reached");
    struct chunk *c = src->chunk;
    uint64_t inside = src->past_object || off >= c->used ? 0 : MIN(len, (uint64_t)(c->used - off));
    err_t e = OK;
    if (inside) {
        struct vma v = *src;
        v.start = dst;
        v.end = dst + inside;
        v.below = 0;
        v.host = c->base + off;
        if (!(e = insert_piece(mm, v)))
            mm->mapped += inside;
    }
    if (!e && inside < len)
        e = map_chunk(mm, (struct vma){ .start = dst + inside, .end = dst + len,
                                        .prot = src->prot, .name = src->name, .shared = true,
                                        .locked = src->locked,
                                        .lock_onfault = src->lock_onfault,
                                        .dontfork = src->dontfork,
                                        .past_object = true }, 0, NULL);
    return e;
}

/* The growth of a mapping that could not grow in place (mremap in place
 * or moved, brk): a new piece right after `like`, with its attributes,
 * for Linux grows the VMA itself (vma_expand, or copy_vma to the new
 * length on a move) and its flags, VM_LOCKED and VM_MAYWRITE among them,
 * cover the growth.  A private piece's chunk has room for the mapping to
 * double (the run of pieces before it, `grown`, says how big it already
 * is), so that realloc's pattern meets grow_piece's fast case from then
 * on; a shared anonymous one grows over its object (map_object). */
static err_t map_growth(struct mm *mm, uint64_t addr, uint64_t len, const struct vma *like,
                        uint64_t grown)
{
    struct vma v = { .start = addr, .end = addr + len, .prot = like->prot, .name = like->name,
                     .shared = like->shared, .no_write = like->no_write,
                     .locked = like->locked, .lock_onfault = like->lock_onfault,
                     .file = like->file,
                     .noreserve = like->noreserve, .account = like->account,
                     .madv = like->madv,
                     .past_object = shared_anon(like), .pgoff = addr / PAGE_SIZE_LINUX };
    /* The growth is the VMA's own: its page offsets run on from the piece
     * that ends where it starts (moved there, or grown in place). */
    guint p = addr ? first_above(mm, addr - 1) : mm->vmas->len;
    if (p < mm->vmas->len && VMA(mm, p)->start < addr && VMA(mm, p)->end == addr) {
        const struct vma before = *VMA(mm, p);
        v.pgoff = before.pgoff + (addr - before.start) / PAGE_SIZE_LINUX;
        v.anon = before.anon;
        v.anon_forked = before.anon_forked;
        /* A shared anonymous mapping grows over the rest of its object,
         * and past it. */
        if (shared_anon(like) && before.shared)
            return map_object(mm, &before, (size_t)(before.host - before.chunk->base) +
                                                (addr - before.start), addr, len);
    }
    return map_chunk(mm, v, like->shared ? 0 : PAGE_ALIGN_LINUX(MAX(len, grown)), NULL);
}

static err_t mm_map_fixed_stopped(struct mm *mm, uint64_t addr, uint64_t len, int prot,
                   const char *name, uint8_t **host_out)
{
    return map_new(mm, addr, len, prot, false, name, host_out);
}

/* Remove [addr, addr+len) from every mapping it touches, splitting pieces
 * at the edges.  Unicorn's own split of pointer-backed regions is avoided:
 * a piece is always unmapped whole and its survivors mapped again.
 * `release`: the range is unmapped for good, and its pages in the window
 * go back to PROT_NONE (isolate() puts the pieces back at once). */
static err_t carve_pieces(struct mm *mm, uint64_t addr, uint64_t len, bool release)
{
    uint64_t end = addr + len;
    guint i = first_above(mm, addr);
    while (i < mm->vmas->len && VMA(mm, i)->start < end) {
        struct vma v = *VMA(mm, i);
        err_t e = OK;
        for (guint k = 0; k < mm->engines->len && !e; k++)
            e = UC_TRY(engine_unmap(mm->engines->pdata[k], &v));
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
            right.below = 0; /* a reserve stays below the lowest piece */
            right.host = v.host + (end - v.start);
            right.pgoff = v.pgoff + (end - v.start) / PAGE_SIZE_LINUX;
            if ((e = insert_piece(mm, right)))
                return e;
            mm->mapped += right.end - right.start;
            i++;
        }
        uint64_t from = MAX(v.start, addr), to = MIN(v.end, end);
        if (release && mm_in_window(mm, &v))
            e = mm_window_clear(mm, from, to - from);
        chunk_unref(v.chunk);
        if (e)
            return e;
    }
    return OK;
}

static err_t carve(struct mm *mm, uint64_t addr, uint64_t len)
{
    return carve_pieces(mm, addr, len, true);
}

/* vm_start_gap(): below a stack that grows down, stack_guard_gap stays
 * free of other mappings. */
static uint64_t start_gap(const struct vma *v)
{
    if (!vma_is_stack(v))
        return v->start;
    return v->start > STACK_GUARD_GAP_LINUX ? v->start - STACK_GUARD_GAP_LINUX : 0;
}

/* Would acting on [from, to) split a special mapping?  Their may_split
 * refuses: the call answers -EINVAL. */
static bool splits_special(const struct vma *v, uint64_t from, uint64_t to)
{
    return v->special && (from > v->start || to < v->end);
}

static bool range_splits_special(const struct mm *mm, uint64_t addr, uint64_t end)
{
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < end; i++)
        if (splits_special(VMA(mm, i), addr, end))
            return true;
    return false;
}

uint64_t mm_find_free(const struct mm *mm, uint64_t len, uint64_t top)
{
    /* Walk the gaps downwards from `top`, as Linux's top-down allocator does;
     * the lowest 64 KiB stay unmapped (vm.mmap_min_addr). */
    const uint64_t floor = MMAP_MIN_ADDR;
    uint64_t hi = top;
    guint first = first_above(mm, top);
    if (first < mm->vmas->len && start_gap(VMA(mm, first)) < hi)
        hi = start_gap(VMA(mm, first));
    for (guint i = first; ; i--) {
        uint64_t lo = i > 0 ? VMA(mm, i - 1)->end : floor;
        lo = MAX(lo, floor);
        if (hi >= lo && hi - lo >= len)
            return hi - len;
        if (i == 0)
            return 0;
        /* The next gap down ends where the mapping above it (and its
         * guard gap) starts, however far the gap above was cut. */
        hi = MIN(top, start_gap(VMA(mm, i - 1)));
    }
}

/* The bottom-up search x86 makes for MAP_32BIT (find_start_end()): the
 * lowest gap in [lo, hi). */
static uint64_t find_free_up(const struct mm *mm, uint64_t len, uint64_t lo, uint64_t hi)
{
    uint64_t at = lo;
    for (guint i = first_above(mm, lo); i <= mm->vmas->len; i++) {
        uint64_t gap_end = i < mm->vmas->len ? MIN(start_gap(VMA(mm, i)), hi) : hi;
        if (gap_end >= at && gap_end - at >= len)
            return at;
        if (i == mm->vmas->len || VMA(mm, i)->end >= hi)
            return 0;
        at = MAX(at, VMA(mm, i)->end);
    }
    return 0;
}

/* A hint is taken where [hint, hint+len) is free, a stack's guard gap
 * included, and inside the task's space (mmap_address_hint_valid()). */
static bool hint_fits(const struct mm *mm, uint64_t hint, uint64_t len)
{
    if (!hint || hint + len < hint || hint + len > mm->limit)
        return false;
    guint i = first_above(mm, hint);
    if (i < mm->vmas->len && hint + len > start_gap(VMA(mm, i)))
        return false;
    return !(i < mm->vmas->len && VMA(mm, i)->start < hint + len);
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

/* A hole for len bytes at a multiple of `align` below top, as
 * unmapped_area_topdown() finds it with an align_mask: the highest gap of
 * len + align - PAGE_SIZE, at its highest aligned address. */
static uint64_t aligned_free(const struct mm *mm, uint64_t len, uint64_t top, uint64_t align)
{
    uint64_t want = len + align - PAGE_SIZE_LINUX;
    if (want < len)
        return 0;
    uint64_t at = mm_find_free(mm, want, top);
    return at ? (at + align - PAGE_SIZE_LINUX) & ~(align - 1) : 0;
}

static int64_t map_errno(err_t e)
{
    err_free(e);
    return -ENOMEM_LINUX;
}

/* Fault the host pages behind [from, to) of v in, as a guest's access
 * would (mincore and pagemap then see them): read each one, or write it
 * with its own contents.  False, and the rest left alone, once seccomp-emu
 * is past --host-memory (mm_host_memory_hook then asks for the kill at the
 * guest's next stop): a populate of gigabytes in one call would otherwise
 * run to its end first. */
static bool touch_pages(const struct vma *v, uint64_t from, uint64_t to, bool write)
{
    const uint64_t check_every = 1u << 20;
    for (uint64_t at = from; at < to; at += PAGE_SIZE_LINUX) {
        if ((at - from) % check_every == 0 && at > from && hostmem_in_use() > hostmem_limit()) {
            if (mm_host_memory_hook)
                mm_host_memory_hook();
            return false;
        }
        volatile uint8_t *b = v->host + (at - v->start);
        uint8_t byte = *b;
        if (write)
            *b = byte;
    }
    return true;
}

/* populate_vma_page_range() over [start, end) through the mappings there
 * (__mm_populate): each page faulted in as get_user_pages would, a private
 * writable mapping's for writing (a page of its own, the VMA's anon_vma),
 * the rest for reading; [vvar] (VM_IO|VM_PFNMAP) is skipped, a
 * VM_LOCKONFAULT mapping left to its faults.  0, or -EFAULT at a mapping
 * no access reaches (PROT_NONE, pages past a shared object's end); holes
 * are skipped. */
static int64_t populate(struct mm *mm, uint64_t start, uint64_t end)
{
    for (guint i = first_above(mm, start); i < mm->vmas->len && VMA(mm, i)->start < end; i++) {
        const struct vma *v = VMA(mm, i);
        if (v->hidden || v->special == VMA_VVAR || v->lock_onfault)
            continue;
        uint64_t from = MAX(v->start, start), to = MIN(v->end, end);
        if (!(v->prot & (PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX)) ||
            v->past_object)
            return -EFAULT_LINUX;
        bool write = (v->prot & PROT_WRITE_LINUX) && !v->shared;
        if (write)
            mm_will_write(mm, from, to - from);
        bool all = touch_pages(v, from, to, write);
        if (write)
            mm_anon_write(mm, from, to - from);
        if (!all)
            return -ENOMEM_LINUX;
    }
    return 0;
}

/* do_mmap()'s checks up to __get_unmapped_area() and MAP_FIXED_NOREPLACE's
 * -EEXIST: the address a mapping of `len` bytes gets, or -errno. */
static int64_t unmapped_area(const struct mm *mm, uint64_t addr, uint64_t len, int flags)
{
    if (len == 0)
        return -EINVAL_LINUX;
    if (flags & MAP_FIXED_NOREPLACE_LINUX)
        flags |= MAP_FIXED_LINUX;
    bool fixed = flags & MAP_FIXED_LINUX;
    if (!fixed) {
        /* round_hint_to_min() */
        addr = PAGE_DOWN(addr);
        if (addr && addr < MMAP_MIN_ADDR)
            addr = MMAP_MIN_ADDR;
    }
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len || plen == 0 || plen > mm->limit)
        return -ENOMEM_LINUX;
    bool shared = (flags & MAP_TYPE_LINUX) == MAP_SHARED_LINUX;
    if (!fixed) {
        uint64_t top = mm->mmap_base;
        if (hint_fits(mm, addr, plen))
            ;
        else if ((flags & MAP_32BIT_LINUX) && mm->limit == TASK_SIZE_64_LINUX)
            addr = find_free_up(mm, plen, 0x40000000ull, 0x80000000ull);
        else if (flags & MAP_HUGETLB_LINUX)
            /* hugetlbfs's file: x86's get_align_mask() aligns the search
             * to its huge page (2 MiB, or 1 GiB as the flags name it) */
            addr = aligned_free(mm, plen, top,
                                ((flags >> MAP_HUGE_SHIFT_LINUX) & MAP_HUGE_MASK_LINUX) == 30
                                    ? 1ull << 30 : 2ull << 20);
        else if (!(addr = addr || shared ? 0 : thp_aligned_free(mm, plen, top)))
            addr = mm_find_free(mm, plen, top);
        if (!addr)
            return -ENOMEM_LINUX;
    }
    if (addr > mm->limit - plen)
        return -ENOMEM_LINUX;
    if (addr & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if ((flags & MAP_FIXED_NOREPLACE_LINUX) && !range_free(mm, addr, plen))
        return -EEXIST_LINUX;
    return (int64_t)addr;
}

int64_t mm_unmapped_area(const struct mm *mm, uint64_t addr, uint64_t len, int flags)
{
    return unmapped_area(mm, addr, len, flags);
}

/* `charge`: test RLIMIT_DATA; mremap, which charges only its growth, moves
 * without. */
static int64_t do_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags,
                       bool charge)
{
    /* do_mmap() and __get_unmapped_area()'s order.  Unknown prot and flag
     * bits are ignored, as Linux ignores them outside MAP_SHARED_VALIDATE. */
    int64_t at = unmapped_area(mm, addr, len, flags);
    if (at < 0)
        return at;
    addr = (uint64_t)at;
    prot &= PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    int type = flags & MAP_TYPE_LINUX;
    bool shared = type == MAP_SHARED_LINUX;
    bool taken = !range_free(mm, addr, plen);
    /* Replacing part of a special mapping would split it: refused. */
    if (taken && range_splits_special(mm, addr, addr + plen))
        return -EINVAL_LINUX;
    /* An anonymous mapping is private or shared, nothing else (a shared
     * one cannot grow down); MAP_DROPPABLE is a private one whose pages
     * the kernel may drop. */
    if (type == MAP_SHARED_LINUX) {
        if (flags & MAP_GROWSDOWN_LINUX)
            return -EINVAL_LINUX;
    } else if (type != MAP_PRIVATE_LINUX && type != MAP_DROPPABLE_LINUX)
        return -EINVAL_LINUX;
    /* No huge pages are reserved (vm.nr_hugepages 0): hugetlbfs cannot
     * back the mapping. */
    if (flags & MAP_HUGETLB_LINUX)
        return -ENOMEM_LINUX;
    bool data = charge && (prot & PROT_WRITE_LINUX) && !shared && !(flags & MAP_GROWSDOWN_LINUX);
    /* Charged only for the pages it adds, whatever it replaces. */
    if (data && !data_may_grow(mm, plen - mapped_in(mm, addr, plen)))
        return -ENOMEM_LINUX;
    if (mm->max_mapped && mm->mapped - mapped_in(mm, addr, plen) + plen > mm->max_mapped)
        return -ENOMEM_LINUX;
    if (taken) {
        err_t e = carve(mm, addr, plen);
        if (e)
            return map_errno(e);
    }
    err_t e = map_new(mm, addr, plen, prot, shared,
                      (flags & MAP_GROWSDOWN_LINUX) ? STACK_VMA_NAME : "[anon]", NULL);
    if (e)
        return map_errno(e);
    /* VM_LOCKED from MAP_LOCKED or mlockall(MCL_FUTURE) (mm->def_flags) */
    bool locked = (flags & MAP_LOCKED_LINUX) || mm->lock_future;
    bool onfault = !(flags & MAP_LOCKED_LINUX) && mm->lock_future_onfault;
    if (locked) {
        guint i = first_above(mm, addr);
        VMA(mm, i)->locked = true;
        VMA(mm, i)->lock_onfault = onfault;
    }
    /* VM_NORESERVE (overcommit is not "never"), and then no VM_ACCOUNT */
    if (flags & MAP_NORESERVE_LINUX) {
        struct vma *v = VMA(mm, first_above(mm, addr));
        v->noreserve = true;
        v->account = false;
    }
    /* vm_mmap_pgoff(): MAP_POPULATE, and VM_LOCKED without
     * VM_LOCKONFAULT, fault the pages in, errors ignored. */
    if (((flags & MAP_POPULATE_LINUX) || (locked && !onfault)) && !(flags & MAP_NONBLOCK_LINUX))
        (void)populate(mm, addr, addr + plen);
    return (int64_t)addr;
}

static int64_t mm_mmap_stopped(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags)
{
    return do_mmap(mm, addr, len, prot, flags, true);
}

static int64_t mm_munmap_stopped(struct mm *mm, uint64_t addr, uint64_t len)
{
    if ((addr & (PAGE_SIZE_LINUX - 1)) || len == 0)
        return -EINVAL_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len || addr + plen < addr || addr + plen > mm->limit)
        return -EINVAL_LINUX;
    if (range_splits_special(mm, addr, addr + plen))
        return -EINVAL_LINUX;
    err_t e = carve(mm, addr, plen);
    return e ? map_errno(e) : 0;
}

/* Make [from, to), inside the piece at index i, a piece of its own, as
 * Linux splits a VMA whose flags change on part of it: the piece is
 * unmapped whole from the engines and its parts mapped again. */
static err_t isolate(struct mm *mm, guint i, uint64_t from, uint64_t to)
{
    struct vma keep = *VMA(mm, i);
    if (keep.start == from && keep.end == to)
        return OK;
    keep.chunk->refs++; /* survive the carve below */
    err_t e = carve_pieces(mm, keep.start, keep.end - keep.start, false);
    uint64_t cuts[4] = { keep.start, from, to, keep.end };
    for (int k = 0; k < 3 && !e; k++) {
        if (cuts[k] == cuts[k + 1])
            continue;
        struct vma p = keep;
        p.start = cuts[k];
        p.end = cuts[k + 1];
        if (k > 0)
            p.below = 0; /* a reserve stays below the lowest piece */
        p.host = keep.host + (cuts[k] - keep.start);
        p.pgoff = keep.pgoff + (cuts[k] - keep.start) / PAGE_SIZE_LINUX;
        if (!(e = insert_piece(mm, p)))
            mm->mapped += p.end - p.start;
    }
    chunk_unref(keep.chunk);
    return e;
}

static guint linux_vma(const struct mm *mm, guint i, guint *first, uint64_t *anon);

static int64_t mm_mprotect_stopped(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    /* do_mprotect_pkey()'s order. */
    int grows = prot & (PROT_GROWSDOWN_LINUX | PROT_GROWSUP_LINUX);
    prot &= ~(PROT_GROWSDOWN_LINUX | PROT_GROWSUP_LINUX);
    if (grows == (PROT_GROWSDOWN_LINUX | PROT_GROWSUP_LINUX))
        return -EINVAL_LINUX;
    if (addr & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if (len == 0)
        return 0;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if (plen < len || addr + plen <= addr)
        return -ENOMEM_LINUX;
    /* arch_validate_prot(): PROT_SEM is accepted, and means nothing. */
    if (prot & ~(PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX | PROT_SEM_LINUX))
        return -EINVAL_LINUX;
    prot &= PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX;
    guint first = first_above(mm, addr);
    if (first >= mm->vmas->len || VMA(mm, first)->start >= addr + plen || VMA(mm, first)->hidden)
        return -ENOMEM_LINUX;
    if (grows & PROT_GROWSDOWN_LINUX) {
        /* From the start of a stack that grows down (x86 has no other). */
        if (!vma_is_stack(VMA(mm, first)))
            return -EINVAL_LINUX;
        while (first > 0 && vma_is_stack(VMA(mm, first - 1)) &&
               VMA(mm, first - 1)->end == VMA(mm, first)->start)
            first--;
        plen += addr - VMA(mm, first)->start;
        addr = VMA(mm, first)->start;
    } else if (VMA(mm, first)->start > addr)
        return -ENOMEM_LINUX;
    else if (grows & PROT_GROWSUP_LINUX)
        return -EINVAL_LINUX; /* nothing grows up on x86 */
    /* The pieces in turn until a hole: what came before the hole stays
     * changed, and the call answers -ENOMEM, as Linux's loop does. */
    uint64_t end = addr + plen, at = addr;
    /* Split at both edges, then change the pieces inside. */
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < end; i++) {
        struct vma *v = VMA(mm, i);
        if (v->start > at || v->hidden)
            return -ENOMEM_LINUX; /* a hole */
        at = MIN(v->end, end);
        /* [vvar] has no VM_MAYWRITE or VM_MAYEXEC */
        if (v->special == VMA_VVAR && (prot & (PROT_WRITE_LINUX | PROT_EXEC_LINUX)))
            return -EACCES_LINUX;
        /* do_mprotect_pkey(): write access a piece may never have is
         * EACCES; the pieces before it stay changed, as in Linux. */
        if ((prot & PROT_WRITE_LINUX) && v->no_write)
            return -EACCES_LINUX;
        /* mprotect_fixup(): flags that do not change split nothing. */
        if (prot == v->prot)
            continue;
        if (splits_special(v, MAX(v->start, addr), at))
            return -EINVAL_LINUX;
        /* mprotect_fixup(): a piece that turns into data must fit; the
         * pieces before it stay changed, as in Linux. */
        struct vma after = *v;
        after.prot = prot;
        if (is_data(&after) && !is_data(v) &&
            !data_may_grow(mm, MIN(v->end, end) - MAX(v->start, addr)))
            return -ENOMEM_LINUX;
        if (v->start < addr || v->end > end) {
            uint64_t from = MAX(v->start, addr);
            err_t e = isolate(mm, i, from, MIN(v->end, end));
            if (e)
                return map_errno(e);
            i = first_above(mm, from);
            v = VMA(mm, i);
        }
        err_t e = OK;
        for (guint k = 0; k < mm->engines->len && !e; k++)
            e = UC_TRY(engine_protect(mm->engines->pdata[k], v, prot));
        if (e)
            return map_errno(e);
        /* mprotect_fixup(): made writable, private memory is charged now;
         * made unwritable, anonymous memory not yet written is not. */
        guint run_first;
        uint64_t anon;
        linux_vma(mm, i, &run_first, &anon);
        if ((prot & PROT_WRITE_LINUX) && !(v->prot & PROT_WRITE_LINUX) && !v->account &&
            !v->shared && !v->noreserve)
            v->account = true;
        else if (!(prot & PROT_WRITE_LINUX) && v->account && private_anon(v) && !anon)
            v->account = false;
        v->prot = prot;
        if (prot & PROT_WRITE_LINUX)
            v->file_pages = false;
    }
    return at < end ? -ENOMEM_LINUX : 0;
}

/* Could Linux have the piece w, right after v, in v's VMA, their
 * anon_vmas aside?  Linux merges neighbours with the same protection and
 * kind, and anonymous private ones only where the page offsets run on. */
static bool same_vma_kind(const struct vma *v, const struct vma *w)
{
    /* A special mapping is one piece and one VMA ([vvar] and
     * [vvar_vclock] are two, side by side). */
    if (w->start != v->end || v->special || w->special || v->hidden || w->hidden ||
        w->prot != v->prot || w->shared != v->shared || vma_is_stack(w) != vma_is_stack(v) ||
        w->locked != v->locked || w->lock_onfault != v->lock_onfault || w->file != v->file ||
        w->dontfork != v->dontfork ||
        w->noreserve != v->noreserve || w->account != v->account || w->madv != v->madv)
        return false;
    return !private_anon(v) || w->pgoff == v->pgoff + (v->end - v->start) / PAGE_SIZE_LINUX;
}

/* The VMA, as Linux would have it, that holds piece i: its pieces are
 * *first to the one returned, its anon_vma *anon (0: none yet).  Pieces
 * here are cut wherever a call split them; Linux merges them back unless
 * their anon_vmas differ (is_mergeable_anon_vma(): the same one, or one
 * side without).  A VMA that met two takes the one on its left (a new
 * range merges with the previous VMA first). */
static guint linux_vma(const struct mm *mm, guint i, guint *first, uint64_t *anon)
{
    guint c = i;
    while (c > 0 && same_vma_kind(VMA(mm, c - 1), VMA(mm, c)))
        c--;
    guint start = c, j = c + 1;
    uint64_t a = VMA(mm, c)->anon;
    bool a_forked = VMA(mm, c)->anon_forked;
    for (; j < mm->vmas->len && same_vma_kind(VMA(mm, j - 1), VMA(mm, j)); j++) {
        uint64_t b = VMA(mm, j)->anon;
        bool b_forked = VMA(mm, j)->anon_forked;
        /* A side without an anon_vma merges with one whose chain is
         * singular, which a fork's child's is not. */
        if ((a && b && a != b) || (a && !b && a_forked) || (!a && b && b_forked)) {
            if (j > i)
                break;
            start = j; /* a VMA of its own from here */
            a = b;
            a_forked = b_forked;
            continue;
        }
        if (!a) {
            a = b;
            a_forked = b_forked;
        }
    }
    *first = start;
    *anon = a;
    return j - 1;
}

/* The end of the mapping that holds piece i, as Linux would have it. */
static uint64_t vma_run_end(const struct mm *mm, guint i)
{
    guint first;
    uint64_t anon;
    return VMA(mm, linux_vma(mm, i, &first, &anon))->end;
}

uint64_t mm_vma_end(const struct mm *mm, const struct vma *v)
{
    return vma_run_end(mm, (guint)(v - VMA(mm, 0)));
}

bool mm_vma_awaits_anon(const struct vma *v)
{
    return private_anon(v) && !v->anon && (v->prot & PROT_WRITE_LINUX);
}

void mm_anon_write(struct mm *mm, uint64_t addr, uint64_t len)
{
    bool changed = false;
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < addr + len;
         i++) {
        if (!private_anon(VMA(mm, i)) || VMA(mm, i)->anon)
            continue;
        guint first;
        uint64_t anon;
        guint last = linux_vma(mm, i, &first, &anon);
        if (!anon)
            anon = ++mm->anon_seq;
        for (guint k = first; k <= last; k++)
            VMA(mm, k)->anon = anon;
        changed = true;
    }
    /* Written once, the VMA's pages take direct writes from now on. */
    if (changed && mm->window_direct)
        window_sync(mm);
}

/* The host address of guest addr in the window that holds it. */
static uint8_t *window_host(const struct mm *mm, uint64_t addr)
{
    uint64_t off;
    struct window *w = window_find(mm, addr, 1, &off);
    return w ? window_base(w) + off : NULL;
}

/* The pages of guest [from, from+len) to [to, to+len), contents and
 * protection read-write, from PROT_NONE at `from` after: in one window by
 * the host's move; across two (x86_64 slots) by fresh pages and a copy of
 * those of their own, as the host's copy fallback does. */
static err_t windows_move(struct mm *mm, uint64_t from, uint64_t to, uint64_t len)
{
    uint64_t off_from, off_to;
    struct window *src = window_find(mm, from, len, &off_from);
    struct window *dst = window_get(mm, to, len, &off_to);
    if (!src || !dst)
        return err_new("no window holds 0x%" G_GINT64_MODIFIER "x", src ? to : from);
    if (src == dst)
        return window_move(src, off_from, off_to, len, PROT_READ | PROT_WRITE);
    err_t e = window_place(dst, off_to, len, PROT_READ | PROT_WRITE);
    if (e)
        return e;
    /* The source may refuse reads to direct accesses (PROT_NONE pages). */
    if ((e = window_protect(src, off_from, len, PROT_READ))) {
        err_free(window_clear(dst, off_to, len));
        return e;
    }
    host_copy_own_pages(window_base(dst) + off_to, window_base(src) + off_from, (size_t)len);
    return window_clear(src, off_from, len);
}

/* The window's pages of guest [from, from+len) copied out into a chunk of
 * their own (only the pages of their own: host_copy_own_pages), the range
 * PROT_NONE in the window after: a move to where no window holds the
 * range (across two x86_64 slots, or into a slot the budget refused). */
static err_t window_move_out(struct mm *mm, uint64_t from, uint64_t len, struct chunk **out)
{
    struct chunk *c = chunk_new((size_t)len);
    if (!c)
        return err_new("host mmap of %" G_GUINT64_FORMAT " bytes: %s", len, host_strerror(errno));
    /* The window may refuse reads to direct accesses (PROT_NONE pages). */
    err_t e = mm_window_protect(mm, from, len, PROT_READ);
    if (!e) {
        host_copy_own_pages(c->base, window_host(mm, from), (size_t)len);
        e = mm_window_clear(mm, from, len);
    }
    if (e) {
        c->refs = 1;
        chunk_unref(c);
        return e;
    }
    *out = c;
    return OK;
}

/* ... and back, where insert_piece refused the moved piece. */
static void window_move_back(struct mm *mm, uint64_t from, struct chunk *c)
{
    uint64_t off;
    struct window *w = window_find(mm, from, c->len, &off);
    if (w && !window_place(w, off, c->len, PROT_READ | PROT_WRITE))
        host_copy_own_pages(window_base(w) + off, c->base, c->len);
    c->refs = 1;
    chunk_unref(c);
}

/* Moves the pages of [old, old+len) to dst: the host memory behind them
 * goes along (an untouched 4 GiB region moves for nothing, as in Linux),
 * only the mapping is new.  dst must be free. */
static err_t move_pages(struct mm *mm, uint64_t old, uint64_t len, uint64_t dst)
{
    err_t e = OK;
    /* One VMA moves (remap_vma): copy_vma() keeps its page offsets once
     * it has an anon_vma, and gives it the new address's otherwise. */
    guint first = 0;
    uint64_t anon = 0;
    if (first_above(mm, old) < mm->vmas->len)
        linux_vma(mm, first_above(mm, old), &first, &anon);
    for (guint i = first_above(mm, old); !e && i < mm->vmas->len && VMA(mm, i)->start < old + len;
         i++) {
        struct vma piece = *VMA(mm, i);
        uint64_t from = MAX(piece.start, old), to = MIN(piece.end, old + len);
        piece.below = 0; /* it maps ahead anew, should it grow down */
        piece.pgoff = anon ? piece.pgoff + (from - piece.start) / PAGE_SIZE_LINUX
                           : (dst + (from - old)) / PAGE_SIZE_LINUX;
        if (private_anon(&piece) && anon) {
            piece.anon_forked |= VMA(mm, first)->anon_forked;
            piece.anon = anon;
        }
        bool in_window = mm_in_window(mm, &piece);
        piece.host += from - piece.start;
        piece.start = dst + (from - old);
        piece.end = dst + (to - old);
        /* In the window the pages move with the address (the old range
         * is PROT_NONE after), so the piece stays at base + address. */
        struct chunk *out = NULL; /* the pages, moved out of the window */
        if (in_window) {
            if (!window_holds(mm, &piece)) {
                if (!(e = window_move_out(mm, from, to - from, &out))) {
                    piece.host = out->base;
                    piece.chunk = out;
                }
            } else if (!(e = windows_move(mm, from, piece.start, to - from))) {
                piece.host = window_host(mm, piece.start);
            }
            piece.window_prot = 0;
        }
        if (!e && (e = insert_piece(mm, piece)) && in_window) {
            /* back where the table still has them */
            if (out)
                window_move_back(mm, from, out);
            else
                err_free(windows_move(mm, piece.start, from, to - from));
        }
        if (!e) {
            mm->mapped += piece.end - piece.start;
            if (piece.start < old) /* inserted below: the old pieces moved up */
                i++;
        }
    }
    if (!e)
        e = carve(mm, old, len);
    /* Translations are looked up by address: none made for what was at
     * the destination before may run the moved code. */
    if (!e)
        mm_written(mm, dst, len);
    return e;
}

/* check_prep_vma() (Linux 6.17 and later): can [old, old+old_len) of the
 * mapping at index vi become new_len long?  Asked before anything is
 * unmapped, a fixed destination included (6.16 and before asked part of
 * it after unmapping the destination). */
static int64_t remap_valid(struct mm *mm, guint vi, uint64_t old, uint64_t old_len,
                           uint64_t new_len, bool dontunmap)
{
    const struct vma *v = VMA(mm, vi);
    /* A zero old length duplicates a shared mapping (DOS emulators); a
     * private one refuses it. */
    if (!old_len && !v->shared)
        return -EINVAL_LINUX;
    if (dontunmap && v->special)
        return -EINVAL_LINUX;
    /* A shrink may cross the VMA's end in the part it unmaps. */
    old_len = MIN(old_len, new_len);
    /* never across a VMA's end */
    if (old_len > vma_run_end(mm, vi) - old)
        return -EFAULT_LINUX;
    if (new_len == old_len)
        return 0;
    /* VM_DONTEXPAND | VM_PFNMAP: special mappings do not grow */
    if (v->special)
        return -EFAULT_LINUX;
    if (new_len > old_len) {
        if (mm->max_mapped && mm->mapped + (new_len - old_len) > mm->max_mapped)
            return -ENOMEM_LINUX;
        if (is_data(v) && !data_may_grow(mm, new_len - old_len))
            return -ENOMEM_LINUX;
    }
    return 0;
}

/* munmap() of a shrinking mapping's tail, or of a destination. */
static int64_t unmap_range(struct mm *mm, uint64_t addr, uint64_t len)
{
    if (!len)
        return 0;
    /* do_vmi_munmap(): a range past the top of user space (an old length
     * near 2^64 wraps) is refused whole. */
    if (addr > mm->limit || len > mm->limit - addr)
        return -EINVAL_LINUX;
    if (range_splits_special(mm, addr, addr + len))
        return -EINVAL_LINUX;
    err_t e = carve(mm, addr, len);
    return e ? map_errno(e) : 0;
}

/* mremap with a zero old length: a second view of a shared mapping's
 * pages at dst (DOS emulators map video memory twice this way), copy_vma()
 * with nothing moved.  The view may run past the source mapping into the
 * shared object; here the object is the mapping's chunk (a shared one
 * never grows: chunk->used is the object's size).  What runs past the
 * object is mapped all the same, as pages past_object (SIGBUS). */
static int64_t remap_view(struct mm *mm, guint vi, uint64_t old, uint64_t len, uint64_t dst)
{
    const struct vma src = *VMA(mm, vi);
    if (mm->max_mapped && mm->mapped + len > mm->max_mapped)
        return -ENOMEM_LINUX;
    err_t e = map_object(mm, &src, (size_t)(src.host - src.chunk->base) + (old - src.start),
                         dst, len);
    return e ? map_errno(e) : (int64_t)dst;
}

static int64_t remap_vma(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
                         int flags, uint64_t new_addr);

/* remap_move() (Linux 6.17 and later): a fixed move that keeps the length
 * moves every mapping in [old, old+len), each with its own checks and in
 * turn, the gaps between them kept; only the first must start at `old`.
 * What moved stays moved when a later one fails. */
static int64_t remap_move(struct mm *mm, uint64_t old, uint64_t len, int flags,
                          uint64_t new_addr)
{
    const uint64_t end = old + len;
    uint64_t at = old, target = new_addr, last_end = 0;
    int64_t first = -EFAULT_LINUX;
    bool seen = false;
    for (;;) {
        guint i = first_above(mm, at);
        while (i < mm->vmas->len && VMA(mm, i)->hidden)
            i++;
        if (i >= mm->vmas->len || VMA(mm, i)->start >= end)
            break;
        uint64_t start = VMA(mm, i)->start, run_end = vma_run_end(mm, i);
        if (!seen && old < start)
            return -EFAULT_LINUX; /* no gap at the start */
        uint64_t from = MAX(start, old), n = MIN(end, run_end) - from;
        uint64_t dst = target + (seen ? start - last_end : 0);
        last_end = run_end;
        int64_t r = remap_vma(mm, from, n, n, flags, dst);
        if (r < 0)
            return r;
        if (!seen)
            first = r;
        seen = true;
        target = (uint64_t)r + n;
        at = run_end;
    }
    return first;
}

static int64_t mm_mremap_stopped(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len, int flags,
                  uint64_t new_addr)
{
    /* do_mremap(): check_mremap_params(), then mremap_to() or
     * mremap_at() (mm/mremap.c). */
    if (flags & ~(MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX | MREMAP_DONTUNMAP_LINUX))
        return -EINVAL_LINUX;
    if (old & (PAGE_SIZE_LINUX - 1))
        return -EINVAL_LINUX;
    if (!PAGE_ALIGN_LINUX(new_len) || PAGE_ALIGN_LINUX(new_len) > mm->limit)
        return -EINVAL_LINUX;
    bool to_new = flags & (MREMAP_FIXED_LINUX | MREMAP_DONTUNMAP_LINUX);
    bool dontunmap = flags & MREMAP_DONTUNMAP_LINUX;
    old_len = PAGE_ALIGN_LINUX(old_len);
    new_len = PAGE_ALIGN_LINUX(new_len);
    if (to_new && ((new_addr & (PAGE_SIZE_LINUX - 1)) || !(flags & MREMAP_MAYMOVE_LINUX) ||
                   (dontunmap && old_len != new_len)))
        return -EINVAL_LINUX;
    /* The rest of check_mremap_params(): a new address is checked before
     * any mapping is looked up. */
    if (to_new && (new_addr > mm->limit - new_len ||
                   (new_addr < old + old_len && old < new_addr + new_len)))
        return -EINVAL_LINUX;
    if ((flags & MREMAP_FIXED_LINUX) && old_len == new_len)
        return remap_move(mm, old, old_len, flags, new_addr);
    return remap_vma(mm, old, old_len, new_len, flags, new_addr);
}

/* The rest of do_mremap() for the one mapping that holds `old`. */
static int64_t remap_vma(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
                         int flags, uint64_t new_addr)
{
    bool to_new = flags & (MREMAP_FIXED_LINUX | MREMAP_DONTUNMAP_LINUX);
    bool dontunmap = flags & MREMAP_DONTUNMAP_LINUX;
    guint vi = first_above(mm, old);
    if (vi >= mm->vmas->len || VMA(mm, vi)->start > old || VMA(mm, vi)->hidden)
        return -EFAULT_LINUX;
    int64_t r;
    if (!to_new) {
        /* mremap_at() */
        if (new_len == old_len)
            return (int64_t)old;
        if (new_len < old_len) {
            r = unmap_range(mm, old + new_len, old_len - new_len);
            return r ? r : (int64_t)old;
        }
        if ((r = remap_valid(mm, vi, old, old_len, new_len, false)))
            return r;
        /* vma_expandable(): the pages after the mapping are free */
        guint last = vi;
        while (last + 1 < mm->vmas->len && VMA(mm, last)->end < old + old_len)
            last++;
        const struct vma *v = VMA(mm, last);
        if (vma_run_end(mm, vi) == old + old_len && old + new_len <= mm->limit &&
            range_free(mm, old + old_len, new_len - old_len)) {
            if (grow_piece(mm, last, new_len - old_len))
                return (int64_t)old;
            err_t e = map_growth(mm, old + old_len, new_len - old_len, v, old_len);
            return e ? map_errno(e) : (int64_t)old;
        }
        if (!(flags & MREMAP_MAYMOVE_LINUX))
            return -ENOMEM_LINUX;
    } else {
        /* check_prep_vma(), before anything is unmapped; then mremap_to():
         * a fixed destination is cleared first, a shrinking move leaves
         * its tail behind, unmapped. */
        if ((r = remap_valid(mm, vi, old, old_len, new_len, dontunmap)))
            return r;
        if (flags & MREMAP_FIXED_LINUX) {
            if ((r = unmap_range(mm, new_addr, new_len)))
                return r;
            vi = first_above(mm, old);
            if (vi >= mm->vmas->len || VMA(mm, vi)->start > old)
                return -EFAULT_LINUX;
        }
        if (new_len < old_len) {
            if ((r = unmap_range(mm, old + new_len, old_len - new_len)))
                return r;
            old_len = new_len;
            vi = first_above(mm, old);
        }
        if (dontunmap && mm->max_mapped && mm->mapped + old_len > mm->max_mapped)
            return -ENOMEM_LINUX;
    }
    /* The mapping's attributes: VMA(mm, vi) goes stale once the table
     * changes. */
    const struct vma like = *VMA(mm, vi);
    /* A special mapping moves whole or not at all. */
    if (like.special && (old > like.start || old + old_len < like.end))
        return -EINVAL_LINUX;
    /* Without MREMAP_FIXED, MREMAP_DONTUNMAP's address is a hint. */
    uint64_t dst = new_addr;
    if (!(flags & MREMAP_FIXED_LINUX) && !(to_new && hint_fits(mm, new_addr, new_len)) &&
        !(dst = like.shared ? 0 : thp_aligned_free(mm, new_len, mm->mmap_base)) &&
        !(dst = mm_find_free(mm, new_len, mm->mmap_base)))
        return -ENOMEM_LINUX;
    if (!old_len)
        return remap_view(mm, vi, old, new_len, dst);
    /* MREMAP_DONTUNMAP leaves the old VMA with its page offsets, and its
     * anon_vma unless all of it moved (dontunmap_complete() unlinks it:
     * measured, a later move of it takes the new address's offsets). */
    guint src_first;
    uint64_t src_anon;
    guint src_last = linux_vma(mm, first_above(mm, old), &src_first, &src_anon);
    if (VMA(mm, src_first)->start == old && VMA(mm, src_last)->end == old + old_len)
        src_anon = 0;
    uint64_t src_pgoff = like.pgoff + (old - like.start) / PAGE_SIZE_LINUX;
    err_t e = move_pages(mm, old, old_len, dst);
    if (!e && new_len > old_len)
        e = map_growth(mm, dst + old_len, new_len - old_len, &like, old_len);
    /* MREMAP_DONTUNMAP: the old range stays mapped, emptied (and
     * unlocked, as move_vma leaves it). */
    if (!e && dontunmap) {
        e = map_new(mm, old, old_len, like.prot, like.shared, like.name, NULL);
        struct vma *w = e ? NULL : VMA(mm, first_above(mm, old));
        if (w) {
            /* the old VMA's flags but VM_LOCKED (measured: moved next to
             * a fresh writable mapping, it merges with it) */
            w->noreserve = like.noreserve;
            w->account = like.account;
        }
        if (w && private_anon(&like)) {
            w->pgoff = src_pgoff;
            w->anon = src_anon;
            w->anon_forked = like.anon_forked;
        }
    }
    if (e)
        return map_errno(e);
    return (int64_t)dst;
}

static uint64_t mm_brk_stopped(struct mm *mm, uint64_t want)
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
        /* brk(): the new break keeps a page free below the next mapping */
        if (new_top > mm->limit || !range_free(mm, old_top, new_top - old_top + PAGE_SIZE_LINUX) ||
            !data_may_grow(mm, new_top - old_top))
            return mm->brk_cur;
        /* do_brk_flags(): the growth joins the heap's VMA */
        guint heap = old_top > mm->brk_start ? first_above(mm, old_top - 1) : mm->vmas->len;
        bool joins = heap < mm->vmas->len && VMA(mm, heap)->end == old_top &&
                     VMA(mm, heap)->name && !strcmp(VMA(mm, heap)->name, "[heap]") &&
                     VMA(mm, heap)->prot == (PROT_READ_LINUX | PROT_WRITE_LINUX) &&
                     !VMA(mm, heap)->shared;
        if (joins && grow_piece(mm, heap, new_top - old_top)) {
            mm->brk_cur = want;
            return want;
        }
        err_t e = joins ? map_growth(mm, old_top, new_top - old_top, VMA(mm, heap),
                                     old_top - PAGE_ALIGN_LINUX(mm->brk_start))
                        : mm_map_fixed(mm, old_top, new_top - old_top,
                                       PROT_READ_LINUX | PROT_WRITE_LINUX, "[heap]", NULL);
        if (e) {
            err_free(e);
            return mm->brk_cur;
        }
    } else if (new_top < old_top) {
        /* A shrink needs a mapping between the new and the old break to
         * unmap: with none (the heap munmapped), brk() keeps the break. */
        guint i = first_above(mm, new_top);
        if (i >= mm->vmas->len || VMA(mm, i)->start >= old_top)
            return mm->brk_cur;
        err_t e = carve(mm, new_top, old_top - new_top);
        if (e) {
            err_free(e);
            return mm->brk_cur;
        }
    }
    mm->brk_cur = want;
    return want;
}

static void mm_deny_write_stopped(struct mm *mm, uint64_t addr, uint64_t len)
{
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < addr + len; i++)
        VMA(mm, i)->no_write = true;
}

static void mm_mark_file_pages_stopped(struct mm *mm, uint64_t addr, uint64_t len)
{
    for (guint i = first_above(mm, addr); i < mm->vmas->len && VMA(mm, i)->start < addr + len;
         i++) {
        VMA(mm, i)->file = true;
        if (!(VMA(mm, i)->prot & PROT_WRITE_LINUX))
            VMA(mm, i)->file_pages = true;
    }
}

static uint64_t user_end(const struct mm *mm, uint64_t addr, uint64_t len);

/* madvise_behavior_valid() for an x86_64 Debian kernel (KSM, THP and
 * memory failure built in), as of 6.12. */
static bool advice_valid(int advice)
{
    switch (advice) {
    case MADV_NORMAL_LINUX: case MADV_RANDOM_LINUX: case MADV_SEQUENTIAL_LINUX:
    case MADV_WILLNEED_LINUX: case MADV_DONTNEED_LINUX: case MADV_FREE_LINUX:
    case MADV_REMOVE_LINUX: case MADV_DONTFORK_LINUX: case MADV_DOFORK_LINUX:
    case MADV_MERGEABLE_LINUX: case MADV_UNMERGEABLE_LINUX: case MADV_HUGEPAGE_LINUX:
    case MADV_NOHUGEPAGE_LINUX: case MADV_DONTDUMP_LINUX: case MADV_DODUMP_LINUX:
    case MADV_WIPEONFORK_LINUX: case MADV_KEEPONFORK_LINUX: case MADV_COLD_LINUX:
    case MADV_PAGEOUT_LINUX: case MADV_POPULATE_READ_LINUX: case MADV_POPULATE_WRITE_LINUX:
    case MADV_DONTNEED_LOCKED_LINUX: case MADV_COLLAPSE_LINUX: case MADV_HWPOISON_LINUX:
    case MADV_SOFT_OFFLINE_LINUX:
        return true;
    case MADV_GUARD_INSTALL_LINUX:
    case MADV_GUARD_REMOVE_LINUX:
        /* Linux 6.13's guard regions are not modelled: they are answered
         * as 6.12 answers them (tests/difffuzz/known.txt). */
        return false;
    default:
        return false;
    }
}

/* Does `advice` set or clear a VMA flag, splitting the mappings it covers
 * in part (advise_range: dontfork and advised_flags)? */
static bool advice_splits(int advice)
{
    switch (advice) {
    case MADV_DONTFORK_LINUX: case MADV_DOFORK_LINUX: case MADV_NORMAL_LINUX:
    case MADV_RANDOM_LINUX: case MADV_SEQUENTIAL_LINUX: case MADV_MERGEABLE_LINUX:
    case MADV_UNMERGEABLE_LINUX: case MADV_HUGEPAGE_LINUX: case MADV_NOHUGEPAGE_LINUX:
    case MADV_DONTDUMP_LINUX: case MADV_DODUMP_LINUX: case MADV_WIPEONFORK_LINUX:
    case MADV_KEEPONFORK_LINUX:
        return true;
    default:
        return false;
    }
}

/* madvise_vma_behavior(): the VMA flags of v once `advice` is taken.  A
 * special mapping's count too: a change would split it (advise_range).
 * KSM ignores shared memory and special mappings (vma_ksm_compatible());
 * the huge page advice sets its flag on any mapping (hugepage_madvise()),
 * and so it does on this host's [vdso] and [vvar]. */
static uint8_t advised_flags(const struct vma *v, int advice)
{
    uint8_t f = v->madv;
    switch (advice) {
    case MADV_NORMAL_LINUX: return f & ~(VMA_MADV_RANDOM | VMA_MADV_SEQUENTIAL);
    case MADV_RANDOM_LINUX: return (f & ~VMA_MADV_SEQUENTIAL) | VMA_MADV_RANDOM;
    case MADV_SEQUENTIAL_LINUX: return (f & ~VMA_MADV_RANDOM) | VMA_MADV_SEQUENTIAL;
    case MADV_MERGEABLE_LINUX: return v->shared || v->special ? f : f | VMA_MADV_MERGEABLE;
    case MADV_UNMERGEABLE_LINUX: return f & ~VMA_MADV_MERGEABLE;
    case MADV_HUGEPAGE_LINUX: return (f & ~VMA_MADV_NOHUGEPAGE) | VMA_MADV_HUGEPAGE;
    case MADV_NOHUGEPAGE_LINUX: return (f & ~VMA_MADV_HUGEPAGE) | VMA_MADV_NOHUGEPAGE;
    case MADV_DONTDUMP_LINUX: return f | VMA_MADV_DONTDUMP;
    case MADV_DODUMP_LINUX: return f & ~VMA_MADV_DONTDUMP;
    case MADV_WIPEONFORK_LINUX: return f | VMA_MADV_WIPEONFORK;
    case MADV_KEEPONFORK_LINUX: return f & ~VMA_MADV_WIPEONFORK;
    default: return f;
    }
}

/* Does the 2 MiB block at guest `at` hold a page of its own, natively a
 * present PTE that is not the zero page?  The host pages behind it say
 * (host_range_has_own_page; shmem has no zero page: a resident page is
 * its own). */
static bool block_populated(const struct mm *mm, uint64_t at)
{
    const uint64_t end = at + HPAGE_PMD_SIZE_LINUX;
    for (guint i = first_above(mm, at); i < mm->vmas->len && VMA(mm, i)->start < end; i++) {
        const struct vma *v = VMA(mm, i);
        uint64_t from = MAX(v->start, at), to = MIN(v->end, end);
        if (!v->shared && host_range_has_own_page(v->host + (from - v->start), to - from))
            return true;
        for (uint64_t page = from; v->shared && page < to; page += PAGE_SIZE_LINUX)
            if (host_page_resident(v->host + (page - v->start)))
                return true;
    }
    return false;
}

/* Pieces v then w of one shared mapping: one VMA to Linux. */
static bool same_object(const struct vma *v, const struct vma *w)
{
    return same_vma_kind(v, w) && w->chunk == v->chunk && w->host == v->host + (v->end - v->start);
}

/* madvise_collapse() over [from, to) of the VMA, as Linux has it, that
 * holds piece i (*vma_end: where that VMA ends), as Linux 6.18 answers it
 * (measured on this host: tests/difffuzz/corpus/mm-collapse-*).
 * thp_vma_allowable_order() first: anonymous memory, private (with an
 * anon_vma) or shared (shmem), never VM_NOHUGEPAGE, with room for one
 * aligned huge page, a shared one's at an aligned offset in its object.
 * Then every whole 2 MiB block of the range is collapsed; a block with no
 * page of its own fails (SCAN_PMD_NULL, or only none and zero-page
 * entries) and the walk goes on, and any failure makes the answer
 * -EINVAL. */
static int64_t collapse(const struct mm *mm, guint i, uint64_t from, uint64_t to,
                        uint64_t *vma_end)
{
    const uint64_t huge = HPAGE_PMD_SIZE_LINUX, huge_pages = huge / PAGE_SIZE_LINUX;
    guint first;
    uint64_t anon;
    guint last = linux_vma(mm, i, &first, &anon);
    if (VMA(mm, i)->shared) {
        /* Shared mappings merge only within one object, at its offsets. */
        first = last = i;
        while (first > 0 && same_object(VMA(mm, first - 1), VMA(mm, first)))
            first--;
        while (last + 1 < mm->vmas->len && same_object(VMA(mm, last), VMA(mm, last + 1)))
            last++;
    }
    const struct vma *v = VMA(mm, first);
    uint64_t start = v->start, end = VMA(mm, last)->end;
    *vma_end = end;
    to = MIN(to, end);
    if (v->special || v->hidden || v->file || v->past_object ||
        (v->shared && !shared_anon(v)) || (v->madv & VMA_MADV_NOHUGEPAGE))
        return -EINVAL_LINUX;
    uint64_t first_block = (start + huge - 1) & ~(huge - 1);
    if (first_block < start || first_block + huge > end)
        return -EINVAL_LINUX;
    if (v->shared) {
        uint64_t object_page = (uint64_t)(v->host - v->chunk->base) / PAGE_SIZE_LINUX;
        if ((start / PAGE_SIZE_LINUX - object_page) % huge_pages)
            return -EINVAL_LINUX;
    }
    /* hstart past hend (a range inside one block, touching no boundary)
     * makes the count of blocks negative: never met, -EINVAL. */
    uint64_t hstart = (from + huge - 1) & ~(huge - 1), hend = to & ~(huge - 1);
    bool all = hstart <= hend, any = false;
    for (uint64_t at = hstart; at + huge <= to && at >= from; at += huge) {
        bool populated = block_populated(mm, at);
        all &= populated;
        any |= populated;
    }
    /* ... and private memory needs its anon_vma, which only a write fault
     * gives (a read maps the zero page).  A populated block shows the
     * write where first-write tracking is off (--sched=parallel). */
    if (!v->shared && !anon && !any)
        return -EINVAL_LINUX;
    return all ? 0 : -EINVAL_LINUX;
}

/* What one advice does to one mapping's part [from, to): 0 or -errno. */
static int64_t advise_one(struct vma *v, uint64_t from, uint64_t to, int advice)
{
    /* Advice kept as a VMA flag is taken by advise_range() once this
     * allows it (madvise_update_vma() comes last). */
    switch (advice) {
    case MADV_DONTNEED_LINUX:
    case MADV_DONTNEED_LOCKED_LINUX:
        /* madvise_dontneed_free_valid_vma(): not a PFN map, not locked */
        if (v->special == VMA_VVAR || (v->locked && advice == MADV_DONTNEED_LINUX))
            return -EINVAL_LINUX;
        /* Private anonymous memory reads back as zeros.  Shared memory
         * keeps its contents (its pages live on in the shared object), and
         * so do the vDSO (its pages fault back in) and a private mapping
         * whose pages are still the file's (they are read back from it). */
        if (!v->shared && !v->file_pages && v->special != VMA_VDSO) {
            err_t e = zero_host(v->host + (from - v->start), to - from);
            if (e)
                return map_errno(e);
        }
        return 0;
    case MADV_FREE_LINUX:
        /* Private anonymous memory only; its pages go under memory pressure
         * alone, and read back unchanged until then, as they do here. */
        return v->shared || v->file || v->special || v->locked ? -EINVAL_LINUX : 0;
    case MADV_REMOVE_LINUX:
        /* Punches a hole in the object behind a shared mapping (a shared
         * anonymous one's is shmem): zeros.  madvise_remove(): anonymous
         * memory has no object, a private or read-only view of a file may
         * not punch it. */
        if (v->locked || (!v->shared && !v->file))
            return -EINVAL_LINUX;
        if (!v->shared || v->no_write)
            return -EACCES_LINUX;
        {
            err_t e = zero_host(v->host + (from - v->start), to - from);
            return e ? map_errno(e) : 0;
        }
    case MADV_COLD_LINUX:
    case MADV_PAGEOUT_LINUX:
        return v->locked || v->special == VMA_VVAR ? -EINVAL_LINUX : 0;
    case MADV_WIPEONFORK_LINUX:
        return v->shared || v->file ? -EINVAL_LINUX : 0;
    case MADV_DOFORK_LINUX:
        /* VM_IO ([vvar]) must not be copied: only MADV_DOFORK checks it,
         * MADV_DONTFORK takes any mapping it does not split. */
        return v->special == VMA_VVAR ? -EINVAL_LINUX : 0;
    case MADV_DODUMP_LINUX:
        return v->special ? -EINVAL_LINUX : 0; /* VM_SPECIAL */
    case MADV_POPULATE_READ_LINUX:
    case MADV_POPULATE_WRITE_LINUX:
        /* Faulting the pages in needs the access the mapping allows. */
        if (v->special == VMA_VVAR ||
            !(v->prot & (advice == MADV_POPULATE_READ_LINUX ? PROT_READ_LINUX : PROT_WRITE_LINUX)))
            return -EINVAL_LINUX;
        return touch_pages(v, from, to, advice == MADV_POPULATE_WRITE_LINUX) ? 0 : -ENOMEM_LINUX;
    default:
        return 0;
    }
}

static int64_t advise_range(struct mm *mm, uint64_t addr, uint64_t len, int advice)
{
    /* madvise_should_skip()'s order, then madvise_walk_vmas(). */
    if (!advice_valid(advice) || (addr & (PAGE_SIZE_LINUX - 1)))
        return -EINVAL_LINUX;
    uint64_t plen = PAGE_ALIGN_LINUX(len);
    if ((len && !plen) || addr + plen < addr)
        return -EINVAL_LINUX;
    if (!plen)
        return 0;
    /* Poisoning pages or taking them offline needs CAP_SYS_ADMIN, and
     * would act on the host's memory: the guest never has it here. */
    if (advice == MADV_HWPOISON_LINUX || advice == MADV_SOFT_OFFLINE_LINUX)
        return -EPERM_LINUX;
    /* No clamp to user space: what lies past it is a hole, -ENOMEM. */
    uint64_t end = addr + plen, at = addr;
    int64_t unmapped = 0;
    guint i = first_above(mm, addr);
    for (;;) {
        if (i >= mm->vmas->len || VMA(mm, i)->hidden)
            return -ENOMEM_LINUX;
        struct vma *v = VMA(mm, i);
        if (at < v->start) {
            /* A hole: the rest is still advised, the call answers -ENOMEM;
             * populating faults the pages in order and stops at it
             * (madvise_populate(): no VMA). */
            if (advice == MADV_POPULATE_READ_LINUX || advice == MADV_POPULATE_WRITE_LINUX)
                return -ENOMEM_LINUX;
            unmapped = -ENOMEM_LINUX;
            at = v->start;
            if (at >= end)
                break;
        }
        if (advice == MADV_COLLAPSE_LINUX) {
            /* One VMA as Linux has it at a time: its blocks may span
             * pieces. */
            uint64_t vma_end;
            int64_t r = collapse(mm, i, at, end, &vma_end);
            if (r)
                return r;
            at = MIN(vma_end, end);
            if (at >= end)
                break;
            i = first_above(mm, at);
            continue;
        }
        uint64_t stop = MIN(v->end, end);
        if (advice == MADV_POPULATE_WRITE_LINUX)
            mm_will_write(mm, at, stop - at); /* the pages are written here */
        int64_t r = advise_one(v, at, stop, advice);
        if (r)
            return r;
        if (advice == MADV_POPULATE_WRITE_LINUX)
            mm_anon_write(mm, at, stop - at); /* its write faults */
        /* madvise_update_vma(): the flags madvise keeps in the VMA
         * (VM_DONTCOPY and advised_flags), when they change, split a
         * mapping the advice covers in part; when they do not, nothing
         * splits.  A special mapping's may_split refuses: -EINVAL, for a
         * change alone (measured on this host, Linux 6.18: MADV_RANDOM
         * over the whole [vdso], then again over its first page, is 0;
         * MADV_NORMAL there then is -EINVAL; corpus
         * mm-madvise-special-*). */
        bool dontfork = advice == MADV_DONTFORK_LINUX ||
                        (v->dontfork && advice != MADV_DOFORK_LINUX);
        uint8_t madv = advised_flags(v, advice);
        if (dontfork != v->dontfork || madv != v->madv) {
            if (splits_special(v, at, stop))
                return -EINVAL_LINUX;
            err_t e = isolate(mm, i, at, stop);
            if (e)
                return map_errno(e);
            i = first_above(mm, at);
            VMA(mm, i)->dontfork = dontfork;
            VMA(mm, i)->madv = madv;
        }
        at = stop;
        if (at >= end)
            break;
        i++;
    }
    if (advice == MADV_DONTNEED_LINUX || advice == MADV_REMOVE_LINUX)
        mm_written(mm, addr, plen);
    return unmapped;
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
        if (v->start > at)
            break;
        at = reachable_end(v, at, prot);
        if (at < v->end)
            break;
        i++;
    }
    return MIN(at, end) - addr;
}

uint64_t mm_user_prefix_ahead(struct mm *mm, uint64_t addr, uint64_t len, int prot,
                              struct mm_growths *grown)
{
    uint64_t end = user_end(mm, addr, len);
    for (;;) {
        uint64_t ok = mm_valid_prefix(mm, addr, len, prot);
        uint64_t at = addr + ok;
        /* Stopped by the end, or by a mapping's protection (access_error
         * after the VMA is found: -EFAULT), or by a hole no stack grows
         * into: the copy faults there for good. */
        if (at >= end || mm_find(mm, at))
            return ok;
        const struct vma *next = mm_next(mm, at);
        uint64_t high = next ? next->start : 0;
        bool was_stack;
        if (mm_grow_stack(mm, at, &was_stack))
            return ok;
        if (grown && grown->n < MM_GROWTHS_MAX)
            grown->g[grown->n++] =
                (struct mm_growth){ at, at & ~(uint64_t)(PAGE_SIZE_LINUX - 1), high };
    }
}

uint64_t mm_user_prefix(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    return mm_user_prefix_ahead(mm, addr, len, prot, NULL);
}

void mm_ungrow(struct mm *mm, uint64_t low, uint64_t high)
{
    (void)mm_munmap(mm, low, high - low);
}

int mm_iovecs(const struct mm *mm, uint64_t addr, uint64_t len, int prot, struct iovec *iov,
              int max, uint64_t *covered)
{
    int n = 0;
    uint64_t at = addr, end = user_end(mm, addr, len);
    guint i = first_above(mm, addr);
    while (at < end && n < max && i < mm->vmas->len) {
        const struct vma *v = VMA(mm, i);
        uint64_t stop = v->start > at ? at : MIN(reachable_end(v, at, prot), end);
        if (stop == at)
            break;
        iov[n].iov_base = v->host + (at - v->start);
        iov[n].iov_len = stop - at;
        n++;
        at = stop;
        if (at < v->end)
            break;
        i++;
    }
    *covered = at - addr;
    return n;
}

bool mm_read(struct mm *mm, uint64_t addr, void *dst, size_t len)
{
    return mm_user_prefix(mm, addr, len, PROT_READ_LINUX) >= len && mm_peek(mm, addr, dst, len);
}

bool mm_peek(const struct mm *mm, uint64_t addr, void *dst, size_t len)
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
    if (mm_user_prefix(mm, addr, len, PROT_WRITE_LINUX) < len)
        return false;
    mm_will_write(mm, addr, len);
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
    mm_anon_write(mm, addr, len);
    return true;
}

/* strncpy_from_user(): byte by byte up to the NUL; with `grow`, a byte in
 * a hole faults through the page-fault handler (mm_user_prefix). */
static int read_string(struct mm *mm, const struct mm *view, uint64_t addr, char *dst, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        if (addr + i < addr || addr + i >= view->limit)
            return -EFAULT_LINUX;
        if (mm && !mm_find(mm, addr + i))
            (void)mm_user_prefix(mm, addr + i, 1, PROT_READ_LINUX);
        const struct vma *v = mm_find(view, addr + i);
        if (!v || reachable_end(v, addr + i, PROT_READ_LINUX) == addr + i)
            return -EFAULT_LINUX;
        dst[i] = (char)v->host[addr + i - v->start];
        if (!dst[i])
            return 0;
    }
    return -ENAMETOOLONG_LINUX;
}

int mm_read_string(struct mm *mm, uint64_t addr, char *dst, size_t max)
{
    return read_string(mm, mm, addr, dst, max);
}

int mm_peek_string(const struct mm *mm, uint64_t addr, char *dst, size_t max)
{
    return read_string(NULL, mm, addr, dst, max);
}

static void mm_hide_stopped(struct mm *mm, uint64_t addr)
{
    guint i = first_above(mm, addr);
    if (i < mm->vmas->len && VMA(mm, i)->start <= addr)
        VMA(mm, i)->hidden = true;
}

uint64_t mm_mmap_base(uint64_t task_size, uint64_t stack_rlim)
{
    uint64_t gap = stack_rlim, pad = STACK_GUARD_GAP_LINUX;
    if (gap + pad > gap) /* values close to RLIM_INFINITY overflow */
        gap += pad;
    gap = CLAMP(gap, 128ull << 20, task_size / 6 * 5);
    return PAGE_ALIGN_LINUX(task_size - gap);
}

/* _install_special_mapping(): one VMA, with page offset 0, that never
 * splits.  The pages that are never there stay out of the window, so that
 * every access to them reaches the TLB fill, which refuses it. */
static err_t mm_map_special_stopped(struct mm *mm, uint64_t addr, uint64_t len, int prot,
                                    const char *name, enum vma_special special, uint8_t no_page,
                                    uint8_t **host_out)
{
    struct vma v = { .start = addr, .end = addr + PAGE_ALIGN_LINUX(len), .prot = prot,
                     .name = name, .special = special, .no_page = no_page };
    /* [vvar] is VM_DONTDUMP from the start (vdso_install_vvar_mapping):
     * MADV_DONTDUMP changes nothing on it, so splits nothing. */
    if (special == VMA_VVAR)
        v.madv |= VMA_MADV_DONTDUMP;
    return map_piece(mm, v, host_out);
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
            g_error("cannot reserve the guard range: %s", host_strerror(errno));
        guard = p;
    }
    return guard;
}

/* A stack grows exactly to the page an access reaches below it, as
 * Linux's expand_downwards() grows the VMA: a call on the range below
 * then meets a hole.  Its engines map ahead of it, though: each piece is a
 * region of its own in an engine, whose memory view is rebuilt at every
 * map, so a region per grown page made deep recursion quadratic (100 MiB
 * of stack in 64 KiB pieces took 13 s).  So the lowest piece of a stack
 * carries a reserve below it (struct vma's below), in the same region,
 * which no VMA holds: the TLB fill refuses it, the window keeps it
 * PROT_NONE, and an access there comes here, where the piece grows into
 * it without an engine call.  When the reserve is spent, the growth is a
 * new piece whose reserve is the stack's size again (at least GROW_STEP,
 * at most GROW_ROOM_MAX): a few dozen regions for the deepest stack.
 * Host memory is spent only where the guest touches. */
#define GROW_STEP (64 * 1024)
#define STACK_GUARD_GAP STACK_GUARD_GAP_LINUX

/* The guard gap below a stack that grows to `low` (expand_downwards()):
 * the mapping below it may not be within stack_guard_gap if it is
 * accessible and does not itself grow down. */
static bool stack_gap_free(const struct mm *mm, uint64_t low)
{
    guint i = first_above(mm, low);
    if (i == 0)
        return true;
    const struct vma *prev = VMA(mm, i - 1);
    return vma_is_stack(prev) || prev->prot == 0 || low - prev->end >= STACK_GUARD_GAP;
}

/* The lowest piece of a stack, i, reaches down to `want` through its
 * reserve: the window places the pages with the piece's protection there,
 * and no engine changes. */
static err_t grow_into_reserve(struct mm *mm, guint i, uint64_t want)
{
    struct vma *v = VMA(mm, i);
    uint64_t grow = v->start - want;
    if (mm_in_window(mm, v)) {
        uint64_t off;
        struct window *w = window_find(mm, want, grow, &off);
        err_t e = w ? window_place(w, off, grow,
                                   v->window_prot ? v->window_prot - 1 : PROT_READ | PROT_WRITE)
                    : err_new("no window holds the growth");
        if (e)
            return e;
    }
    v->start = want;
    v->host -= grow;
    v->below -= grow;
    v->pgoff -= grow / PAGE_SIZE_LINUX;
    mm->mapped += grow;
    return OK;
}

/* The growth of the stack whose lowest piece is i down to `want`, as a
 * new piece with the VMA's flags and page offsets (expand_downwards), and
 * a reserve down to `low`. */
static err_t grow_new_piece(struct mm *mm, guint i, uint64_t want, uint64_t low)
{
    const struct vma *grows = VMA(mm, i);
    struct vma v = { .start = want, .end = grows->start, .prot = grows->prot,
                     .name = STACK_VMA_NAME, .below = want - low,
                     .locked = grows->locked, .lock_onfault = grows->lock_onfault,
                     .noreserve = grows->noreserve, .account = grows->account,
                     .dontfork = grows->dontfork, .madv = grows->madv, .anon = grows->anon,
                     .anon_forked = grows->anon_forked,
                     .pgoff = grows->pgoff - (grows->start - want) / PAGE_SIZE_LINUX };
    return map_chunk(mm, v, 0, NULL);
}

/* Is there a mapping that grows down just above `addr`, which lies in a
 * hole? */
static bool stack_above(const struct mm *mm, uint64_t addr)
{
    const struct vma *next = mm_next(mm, addr);
    return next && next->start > addr && vma_is_stack(next);
}

static const char *mm_grow_stack_stopped(struct mm *mm, uint64_t addr, bool *was_stack)
{
    const struct vma *next = mm_next(mm, addr);
    uint64_t rlim = mm->stack_rlim;
    *was_stack = false;
    if (!stack_above(mm, addr))
        return "";
    *was_stack = true;
    uint64_t want = addr & ~(PAGE_SIZE_LINUX - 1);
    /* acct_stack_growth(): the size of the VMA that grows, from its end,
     * whichever mapping grows down (the process's stack or a MAP_GROWSDOWN
     * one); an mprotect of part of it made the rest VMAs of their own
     * (measured: a 2 GiB MAP_GROWSDOWN mapping whose lowest 40 KiB keep
     * their protection grows under RLIMIT_STACK's 8 MiB). */
    guint ni = first_above(mm, addr);
    uint64_t stack_end = vma_run_end(mm, ni);
    if (rlim != RLIM_INFINITY_LINUX && stack_end - want > rlim)
        return "stack overflow: the stack would exceed RLIMIT_STACK";
    if (want < MMAP_MIN_ADDR || !stack_gap_free(mm, want))
        return "stack overflow: the stack would run into another mapping";
    /* may_expand_vm(): what the access needs, never the reserve. */
    if (mm->max_mapped && mm->mapped + (next->start - want) > mm->max_mapped)
        return "stack growth refused by the memory limit (RLIMIT_AS, --memory)";
    err_t e;
    if (next->below >= next->start - want) {
        e = grow_into_reserve(mm, ni, want);
    } else {
        /* A new reserve: the stack's size below it, never below the
         * mapping before it or where RLIMIT_STACK would stop it anyway. */
        uint64_t step = MIN(MAX((uint64_t)GROW_STEP, stack_end - next->start),
                            (uint64_t)GROW_ROOM_MAX);
        uint64_t low = want > step ? want - step : 0;
        low = MAX(low, MMAP_MIN_ADDR);
        if (ni > 0)
            low = MAX(low, VMA(mm, ni - 1)->end);
        if (rlim != RLIM_INFINITY_LINUX && stack_end - low > rlim)
            low = stack_end - (rlim & ~(PAGE_SIZE_LINUX - 1));
        e = grow_new_piece(mm, ni, want, MIN(low, want));
    }
    if (e) {
        g_debug("stack growth: %s", e);
        err_free(e);
        return "stack growth refused by the host (its memory or map count)";
    }
    return NULL;
}

/* ---- every change with the mm's other engines out of guest code ---- */

void (*mm_stop_hook)(struct mm *mm, bool stop);
void (*mm_host_memory_hook)(void);

static void stop_others(struct mm *mm)
{
    if (mm_stop_hook)
        mm_stop_hook(mm, true);
}

static void resume_others(struct mm *mm)
{
    /* The others are still stopped: their hooks change now. */
    update_view_hooks(mm);
    if (mm->window_shared && mm_code_writable(mm))
        window_direct_off(mm);
    if (mm->window_direct)
        window_sync(mm);
    if (mm_stop_hook)
        mm_stop_hook(mm, false);
}

err_t mm_map_fixed(struct mm *mm, uint64_t addr, uint64_t len, int prot, const char *name, uint8_t **host_out)
{
    stop_others(mm);
    err_t r = mm_map_fixed_stopped(mm, addr, len, prot, name, host_out);
    resume_others(mm);
    return r;
}

int64_t mm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags)
{
    stop_others(mm);
    int64_t r = mm_mmap_stopped(mm, addr, len, prot, flags);
    resume_others(mm);
    return r;
}

int64_t mm_munmap(struct mm *mm, uint64_t addr, uint64_t len)
{
    stop_others(mm);
    int64_t r = mm_munmap_stopped(mm, addr, len);
    resume_others(mm);
    return r;
}

int64_t mm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
    stop_others(mm);
    int64_t r = mm_mprotect_stopped(mm, addr, len, prot);
    resume_others(mm);
    return r;
}

int64_t mm_mremap(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len, int flags, uint64_t new_addr)
{
    stop_others(mm);
    int64_t r = mm_mremap_stopped(mm, old, old_len, new_len, flags, new_addr);
    resume_others(mm);
    return r;
}

uint64_t mm_brk(struct mm *mm, uint64_t want)
{
    stop_others(mm);
    uint64_t r = mm_brk_stopped(mm, want);
    resume_others(mm);
    return r;
}

void mm_deny_write(struct mm *mm, uint64_t addr, uint64_t len)
{
    stop_others(mm);
    mm_deny_write_stopped(mm, addr, len);
    resume_others(mm);
}

void mm_mark_file_pages(struct mm *mm, uint64_t addr, uint64_t len)
{
    stop_others(mm);
    mm_mark_file_pages_stopped(mm, addr, len);
    resume_others(mm);
}

int64_t mm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice)
{
    /* The advice Linux keeps as a VMA flag changes the table (a mapping
     * it covers in part splits, its pieces leave the engines and come
     * back), so other threads stop for it; the rest act on pages, which
     * other threads may use meanwhile, as on Linux (Go's and glibc's
     * allocators give memory back this way). */
    bool splits = advice_splits(advice);
    if (splits)
        stop_others(mm);
    int64_t r = advise_range(mm, addr, len, advice);
    if (splits)
        resume_others(mm);
    return r;
}

/* ---- mlock, munlock, mlockall, munlockall (mm/mlock.c) ---- */

/* Bytes of [start, end) in VM_LOCKED mappings (count_mm_mlocked_page_nr;
 * the whole address space: mm->locked_vm). */
static uint64_t locked_in(const struct mm *mm, uint64_t start, uint64_t end)
{
    uint64_t n = 0;
    for (guint i = first_above(mm, start); i < mm->vmas->len && VMA(mm, i)->start < end; i++) {
        const struct vma *v = VMA(mm, i);
        if (v->locked)
            n += MIN(v->end, end) - MAX(v->start, start);
    }
    return n;
}

/* apply_vma_lock_flags(): every mapping of [start, end) gets the lock
 * flags (mlock_fixup(), which leaves VM_SPECIAL mappings as they are); a
 * hole is -ENOMEM, the mappings before it changed. */
static int64_t set_lock_flags(struct mm *mm, uint64_t start, uint64_t end, bool locked,
                              bool onfault)
{
    if (end < start)
        return -EINVAL_LINUX;
    if (end == start)
        return 0;
    uint64_t at = start;
    for (guint i = first_above(mm, start);; i++) {
        if (i >= mm->vmas->len || VMA(mm, i)->start > at || VMA(mm, i)->hidden)
            return -ENOMEM_LINUX;
        struct vma *v = VMA(mm, i);
        uint64_t stop = MIN(v->end, end);
        if (!v->special && (v->locked != locked || v->lock_onfault != onfault)) {
            err_t e = isolate(mm, i, at, stop);
            if (e)
                return map_errno(e);
            i = first_above(mm, at);
            VMA(mm, i)->locked = locked;
            VMA(mm, i)->lock_onfault = onfault;
        }
        at = stop;
        if (at >= end)
            return 0;
    }
}

/* do_mlock() */
static int64_t mlock_stopped(struct mm *mm, uint64_t addr, uint64_t len, bool onfault,
                             uint64_t limit)
{
    if (limit == 0)
        return -EPERM_LINUX; /* can_do_mlock() */
    uint64_t start = addr & ~(PAGE_SIZE_LINUX - 1);
    len = PAGE_ALIGN_LINUX(len + (addr - start));
    if (limit != UINT64_MAX) {
        uint64_t pages = len / PAGE_SIZE_LINUX + locked_in(mm, 0, UINT64_MAX) / PAGE_SIZE_LINUX;
        uint64_t limit_pages = limit / PAGE_SIZE_LINUX;
        if (pages > limit_pages)
            pages -= locked_in(mm, start, start + len) / PAGE_SIZE_LINUX;
        if (pages > limit_pages)
            return -ENOMEM_LINUX;
    }
    int64_t r = set_lock_flags(mm, start, start + len, true, onfault);
    if (r)
        return r;
    /* __mlock_posix_error_return() */
    r = populate(mm, start, start + len);
    return r == -EFAULT_LINUX ? -ENOMEM_LINUX : r == -ENOMEM_LINUX ? -EAGAIN_LINUX : r;
}

int64_t mm_mlock(struct mm *mm, uint64_t addr, uint64_t len, int flags, uint64_t limit)
{
    if (flags & ~MLOCK_ONFAULT_LINUX)
        return -EINVAL_LINUX;
    stop_others(mm);
    int64_t r = mlock_stopped(mm, addr, len, flags & MLOCK_ONFAULT_LINUX, limit);
    resume_others(mm);
    return r;
}

int64_t mm_munlock(struct mm *mm, uint64_t addr, uint64_t len)
{
    uint64_t start = addr & ~(PAGE_SIZE_LINUX - 1);
    len = PAGE_ALIGN_LINUX(len + (addr - start));
    stop_others(mm);
    int64_t r = set_lock_flags(mm, start, start + len, false, false);
    resume_others(mm);
    return r;
}

/* apply_mlockall_flags(): MCL_FUTURE into def_flags, MCL_CURRENT onto
 * every mapping but the special ones. */
static void lock_all(struct mm *mm, int flags)
{
    mm->lock_future = flags & MCL_FUTURE_LINUX;
    mm->lock_future_onfault = mm->lock_future && (flags & MCL_ONFAULT_LINUX);
    if (!(flags & MCL_CURRENT_LINUX) && flags)
        return;
    for (guint i = 0; i < mm->vmas->len; i++) {
        struct vma *v = VMA(mm, i);
        if (!v->special && !v->hidden) {
            v->locked = flags & MCL_CURRENT_LINUX;
            v->lock_onfault = v->locked && (flags & MCL_ONFAULT_LINUX);
        }
    }
}

int64_t mm_mlockall(struct mm *mm, int flags, uint64_t limit)
{
    if (!flags || (flags & ~(MCL_CURRENT_LINUX | MCL_FUTURE_LINUX | MCL_ONFAULT_LINUX)) ||
        flags == MCL_ONFAULT_LINUX)
        return -EINVAL_LINUX;
    if (limit == 0)
        return -EPERM_LINUX;
    uint64_t total = 0;
    for (guint i = 0; i < mm->vmas->len; i++)
        if (!VMA(mm, i)->hidden)
            total += VMA(mm, i)->end - VMA(mm, i)->start;
    if ((flags & MCL_CURRENT_LINUX) && limit != UINT64_MAX &&
        total / PAGE_SIZE_LINUX > limit / PAGE_SIZE_LINUX)
        return -ENOMEM_LINUX;
    stop_others(mm);
    lock_all(mm, flags);
    /* mm_populate(0, TASK_SIZE): errors ignored, each mapping in turn. */
    if (flags & MCL_CURRENT_LINUX)
        for (guint i = 0; i < mm->vmas->len; i++)
            (void)populate(mm, VMA(mm, i)->start, VMA(mm, i)->end);
    resume_others(mm);
    return 0;
}

void mm_munlockall(struct mm *mm)
{
    stop_others(mm);
    lock_all(mm, 0);
    resume_others(mm);
}

void mm_written(struct mm *mm, uint64_t addr, uint64_t len)
{
    /* One range per mapping: Unicorn turns a range into engine addresses
     * from its first page, which holds only within one mapped region.
     * Every copy to the guest comes here: the other engines stop only when
     * there are translations to drop. */
    if (len == 0)
        return;
    bool stopped = false;
    guint i = first_above(mm, addr);
    for (; i < mm->vmas->len && VMA(mm, i)->start < addr + len; i++) {
        const struct vma *v = VMA(mm, i);
        /* A write view's bytes may be code through another view (see
         * on_view_store, which sees only the guest's own stores). */
        bool view = mm->view_hooks && write_view(v);
        if (!(v->prot & PROT_EXEC_LINUX) && !view)
            continue;
        if (!stopped) {
            stop_others(mm);
            stopped = true;
        }
        uint64_t from = MAX(addr, v->start), to = MIN(addr + len, v->end);
        for (guint k = 0; k < mm->engines->len; k++) {
            if (view)
                drop_views_of(mm, mm->engines->pdata[k], v, v->host + (from - v->start), to - from);
            if (!(v->prot & PROT_EXEC_LINUX))
                continue;
            err_t e = UC_TRY(uc_ctl_remove_cache(mm->engines->pdata[k], from, to));
            if (e) {
                /* Non-empty by construction; a failure here would leave
                 * stale code running, so it is reported, never ignored. */
                g_critical("%s", e);
                err_free(e);
            }
        }
    }
    if (stopped)
        resume_others(mm);
}

static bool code_writable(const struct vma *v)
{
    return (v->prot & PROT_EXEC_LINUX) && ((v->prot & PROT_WRITE_LINUX) || v->shared) &&
           !v->hidden;
}

bool mm_code_writable(const struct mm *mm)
{
    for (guint i = 0; i < mm->vmas->len; i++)
        if (code_writable(VMA(mm, i)))
            return true;
    return false;
}

void mm_drop_writable_code(struct mm *mm, uc_engine *uc)
{
    for (guint i = 0; i < mm->vmas->len; i++) {
        const struct vma *v = VMA(mm, i);
        if (!code_writable(v))
            continue;
        err_t e = UC_TRY(uc_ctl_remove_cache(uc, v->start, v->end));
        if (e) {
            /* Stale code would run: reported, never ignored. */
            g_critical("%s", e);
            err_free(e);
        }
    }
}

void mm_hide(struct mm *mm, uint64_t addr)
{
    stop_others(mm);
    mm_hide_stopped(mm, addr);
    resume_others(mm);
}

err_t mm_map_special(struct mm *mm, uint64_t addr, uint64_t len, int prot, const char *name,
                     enum vma_special special, uint8_t no_page, uint8_t **host_out)
{
    stop_others(mm);
    err_t r = mm_map_special_stopped(mm, addr, len, prot, name, special, no_page, host_out);
    resume_others(mm);
    return r;
}

const char *mm_grow_stack(struct mm *mm, uint64_t addr, bool *was_stack)
{
    /* Most faults and short copies are not below a stack: no other
     * engine stops for them. */
    *was_stack = false;
    if (!stack_above(mm, addr))
        return "";
    stop_others(mm);
    const char *r = mm_grow_stack_stopped(mm, addr, was_stack);
    resume_others(mm);
    return r;
}

/* ---- code written through a second view ---- */

/* Two vmas over the same shared pages (mremap with old_len 0, a memfd
 * mapped twice): a store through a writable one changes code that may
 * have been translated from an executable one, as a W^X JIT's double
 * mapping does.  Unicorn's dirty-code tracking knows only the region the
 * code was translated from, so while an mm holds such a pair, each of its
 * engines calls on_view_store() before every store (a UC_HOOK_MEM_WRITE,
 * which sends every store of that engine down its slow path: the price of
 * a rare layout), and it drops the translations of the executable views
 * of the bytes stored.  Across engines of the mm, executable shared
 * mappings already make them take turns (mm_code_writable). */

struct view_hook {
    uc_engine *uc;
    uc_hook hook;
};

static bool code_view(const struct vma *v)
{
    return v->shared && (v->prot & PROT_EXEC_LINUX) && !v->hidden;
}

static bool write_view(const struct vma *v)
{
    return v->shared && (v->prot & PROT_WRITE_LINUX) && !v->hidden;
}

static bool host_overlap(const struct vma *a, const struct vma *b)
{
    return a->host < b->host + (b->end - b->start) && b->host < a->host + (a->end - a->start);
}

static bool has_code_views(const struct mm *mm)
{
    for (guint i = 0; i < mm->vmas->len; i++) {
        const struct vma *x = VMA(mm, i);
        if (!code_view(x))
            continue;
        for (guint j = 0; j < mm->vmas->len; j++)
            if (j != i && write_view(VMA(mm, j)) && host_overlap(x, VMA(mm, j)))
                return true;
    }
    return false;
}

/* Drop the translations of every executable view of [host, host + len). */
static void drop_views_of(struct mm *mm, uc_engine *uc, const struct vma *w, const uint8_t *host,
                          uint64_t len)
{
    for (guint i = 0; i < mm->vmas->len; i++) {
        const struct vma *x = VMA(mm, i);
        if (x == w || !code_view(x))
            continue;
        const uint8_t *x_end = x->host + (x->end - x->start);
        const uint8_t *from = MAX(host, x->host), *to = MIN(host + len, x_end);
        if (from >= to)
            continue;
        uint64_t start = x->start + (uint64_t)(from - x->host);
        uint64_t end = x->start + (uint64_t)(to - x->host);
        err_t e = UC_TRY(uc_ctl_remove_cache(uc, PAGE_DOWN(start), PAGE_DOWN(end + PAGE_SIZE_LINUX - 1)));
        if (e) {
            /* Stale code would run: reported, never ignored. */
            g_critical("%s", e);
            err_free(e);
        }
    }
}

/* From guest code, without the kernel lock: the table cannot change under
 * it, as every change stops the mm's other engines first. */
static void on_view_store(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value,
                          void *mm_arg)
{
    (void)type;
    (void)value;
    struct mm *mm = mm_arg;
    for (uint64_t a = addr, end = addr + (uint64_t)size; a < end;) {
        const struct vma *w = mm_find(mm, a);
        if (!w)
            return;
        uint64_t part = MIN(end, w->end) - a;
        if (write_view(w))
            drop_views_of(mm, uc, w, w->host + (a - w->start), part);
        a += part;
    }
}

static err_t hook_views(struct mm *mm, uc_engine *uc)
{
    uc_hook h;
    err_t e = UC_TRY(uc_hook_add(uc, &h, UC_HOOK_MEM_WRITE, (void *)on_view_store, mm, 1, 0));
    /* Entries made before the hook send stores down the fast path, which
     * does not call it. */
    if (!e)
        e = UC_TRY(uc_ctl_flush_tlb(uc));
    if (e)
        return e;
    struct view_hook entry = { uc, h };
    g_array_append_val(mm->view_hooks, entry);
    return OK;
}

static void unhook_views(struct mm *mm, uc_engine *uc)
{
    if (!mm->view_hooks)
        return;
    for (guint i = 0; i < mm->view_hooks->len; i++) {
        const struct view_hook *entry = &g_array_index(mm->view_hooks, struct view_hook, i);
        if (entry->uc == uc) {
            (void)uc_hook_del(uc, entry->hook);
            g_array_remove_index_fast(mm->view_hooks, i);
            return;
        }
    }
}

static void update_view_hooks(struct mm *mm)
{
    bool want = has_code_views(mm);
    if (want == (mm->view_hooks != NULL))
        return;
    if (!want) {
        for (guint k = 0; k < mm->engines->len; k++)
            unhook_views(mm, mm->engines->pdata[k]);
        g_array_free(mm->view_hooks, TRUE);
        mm->view_hooks = NULL;
        return;
    }
    mm->view_hooks = g_array_new(FALSE, FALSE, sizeof(struct view_hook));
    for (guint k = 0; k < mm->engines->len; k++) {
        err_t e = hook_views(mm, mm->engines->pdata[k]);
        if (e) {
            /* Stale code could run: reported, never ignored. */
            g_critical("%s", e);
            err_free(e);
        }
    }
}
