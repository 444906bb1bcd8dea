/* Guest memory: a table of mappings, each backed by host memory handed to
 * Unicorn with uc_mem_map_ptr.  Because the emulator owns the host side, a
 * guest read(2) or write(2) goes straight between the host descriptor and
 * guest memory, with the exact partial counts the host gives. */
#ifndef EMU_MEM_H
#define EMU_MEM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unicorn/unicorn.h>

#include "abi/vdso.h"
#include "emu/engine/hostfault.h"
#include "emu/status.h"

struct chunk; /* one host allocation, shared by the pieces split from it */
struct window; /* emu/engine/window.h */

/* The kernel's special mappings, which its calls treat apart. */
enum vma_special {
    VMA_PLAIN,
    VMA_VDSO, /* VM_DONTEXPAND: cannot grow, is not dumped */
    VMA_VVAR, /* and VM_PFNMAP|VM_IO, no VM_MAYWRITE/MAYEXEC: read-only for good */
};

struct vma {
    uint64_t start, end; /* guest range [start, end), page aligned */
    int prot;            /* PROT_*_LINUX */
    uint8_t *host;       /* host address of `start` */
    struct chunk *chunk;
    const char *name;    /* "[stack]", "[vdso]", segment, for diagnostics */
    bool hidden;         /* seccomp-emu's own page: kernel memory to the guest */
    bool shared;         /* MAP_SHARED: never counted as data */
    bool no_write;       /* MAP_SHARED of a read-only descriptor: PROT_WRITE can
                            never be added (Linux's VM_MAYWRITE clear) */
    bool locked;         /* MAP_LOCKED, mlock (VM_LOCKED) */
    bool lock_onfault;   /* ... its pages locked as they fault in, none
                            populated (VM_LOCKONFAULT: mlock2, mlockall) */
    bool noreserve;      /* MAP_NORESERVE (VM_NORESERVE) */
    uint8_t madv;        /* the VMA flags madvise sets (VMA_MADV_*) */
    bool account;        /* VM_ACCOUNT: private memory charged to the commit
                            limit, from an mmap that is writable without
                            MAP_NORESERVE or the first mprotect that makes it
                            writable, until an mprotect makes it unwritable
                            before any write (no anon_vma yet).  Like every
                            VMA flag it keeps Linux from merging
                            neighbours that differ */
    bool dontfork;       /* MADV_DONTFORK (VM_DONTCOPY): not in a fork's child */
    bool file;           /* a private mapping of a file or of the program's
                            file-backed segment part (Linux's vm_file), written
                            or not: madvise refuses what only anonymous memory
                            takes, and Linux never merges it with an anonymous
                            neighbour */
    bool file_pages;     /* a private mapping of a file (or a segment of the
                            program) that has never been writable: its pages
                            are still the file's, not anonymous copies (a
                            shared futex keys the two apart: get_futex_key) */
    bool past_object;    /* pages of a shared anonymous mapping past the end
                            of its object (the shmem file mmap made, whose
                            size nothing changes): mremap grew the mapping,
                            or a zero-length view ran past the object.
                            Linux maps them, and every access is SIGBUS
                            (shmem_fault past i_size), EFAULT for a call */
    uint8_t no_page;     /* of a special mapping, which never splits: bit i
                            set when its fault handler has nothing for page
                            i (a [vvar] page this kernel leaves out:
                            vvar_fault's VM_FAULT_SIGBUS).  Such a page is
                            SIGBUS and EFAULT as past_object's are */
    /* What decides whether Linux merges a private anonymous piece with its
     * neighbour into one VMA (vma_run_end in mem.c), where mremap may not
     * cross: */
    uint64_t pgoff;      /* vm_pgoff: the page number it was mapped at, kept
                            when it moves once written (copy_vma() gives an
                            unwritten one its new address's) */
    uint64_t anon;       /* its anon_vma, which the first write fault gives
                            the VMA (a read maps the zero page): 0 none yet,
                            else one number per anon_vma (mm->anon_seq) */
    bool anon_forked;    /* ... and its anon_vma_chain holds a parent's too
                            (a fork's child, anon_vma_fork()): it merges only
                            with a VMA of the same anon_vma */
    enum vma_special special;
    uint64_t below;      /* the reserve of a mapping that grows down: bytes
                            below `start`, host memory at host - below, that
                            the engines map with the piece (one region over
                            [start - below, end)) but no VMA holds, so the
                            guest meets a hole there (the TLB fill refuses
                            it; the window keeps it PROT_NONE) until the
                            stack grows into it (mem.c, mm_grow_stack).
                            0 on every other piece */
    uint8_t window_prot; /* in the window: 1 + the host PROT_READ/PROT_WRITE
                            its pages have there now; 0 unknown (just placed,
                            moved or grown), which mem.c's window_sync sets */
};

/* madvise's VMA flags, which only keep VMAs apart here (struct vma's madv):
 * VM_RAND_READ, VM_SEQ_READ, VM_MERGEABLE, VM_HUGEPAGE, VM_NOHUGEPAGE,
 * VM_DONTDUMP, VM_WIPEONFORK. */
enum {
    VMA_MADV_RANDOM = 1 << 0,
    VMA_MADV_SEQUENTIAL = 1 << 1,
    VMA_MADV_MERGEABLE = 1 << 2,
    VMA_MADV_HUGEPAGE = 1 << 3,
    VMA_MADV_NOHUGEPAGE = 1 << 4,
    VMA_MADV_DONTDUMP = 1 << 5,
    VMA_MADV_WIPEONFORK = 1 << 6,
};

/* The mapping that grows down on faults; like Linux's VM_GROWSDOWN stack
 * it is not data for RLIMIT_DATA. */
#define STACK_VMA_NAME "[stack]"

static inline bool vma_is_stack(const struct vma *v)
{
    return v->name && !strcmp(v->name, STACK_VMA_NAME);
}

/* Where seccomp-emu's own pages sit in an address space (Linux keeps the
 * vDSO's place in mm->context the same way). */
struct kernel_layout {
    uint64_t kpage;          /* GDT and entry stubs; never user memory */
    uint64_t halt;           /* emulation never legitimately reaches it */
    uint64_t vdso;           /* AT_SYSINFO_EHDR */
    uint64_t vsyscall;       /* AT_SYSINFO (i386 __kernel_vsyscall) */
    uint64_t int80_pad;      /* where fast 32-bit entries return */
    uint64_t vdso_sigreturn, vdso_rt_sigreturn; /* ia32 default restorers */
    uint64_t vdso_code, vdso_code_end; /* hooked for the time functions */
    uint64_t vdso_fn[VDSO_NFN];        /* entry of each emulated function */
    uint64_t vdso_fn_done[VDSO_NFN];   /* its `ret`, where a served call resumes */
    uint64_t ldt;            /* modify_ldt's table (hidden), once there is one */
    unsigned ldt_entries;    /* its size (Linux's ldt->nr_entries); 0: no LDT */
};

/* An address space (Linux's mm_struct): shared by the tasks of one thread
 * group and by CLONE_VM children, counted by `refs`.  Every change of a
 * mapping is applied to each engine in `engines` (today one: the engine
 * the tasks of this mm take turns on; one per task when guest threads
 * run in parallel), so no engine ever sees a mapping the table lacks. */
struct mm {
    unsigned refs;
    unsigned users;      /* tasks using it (Linux's mm_users): clear_child_tid */
    GPtrArray *engines;  /* uc_engine *, each mapping every vma below */
    GArray *vmas;        /* struct vma, sorted by start, never overlapping */
    uint64_t limit;      /* end of user space for the guest's ABI */
    uint64_t mmap_base;  /* top of the top-down mmap area */
    uint64_t brk_start, brk_cur;
    uint64_t mapped;     /* bytes mapped, for the memory limit */
    uint64_t max_mapped; /* 0: no limit */
    uint64_t data_rlim, data_rlim_max; /* RLIMIT_DATA; RLIM_INFINITY_LINUX: none */
    uint64_t stack_rlim; /* RLIMIT_STACK (soft), for a stack's growth
                            (mm_grow_stack): the limit of the process that
                            set it last (Linux takes the faulting task's;
                            they differ only for CLONE_VM without
                            CLONE_THREAD after a setrlimit) */
    uint64_t elf_data;   /* end_data - start_data as Linux's ELF loader sets them */
    uint64_t anon_seq;   /* the last anon_vma number given (struct vma's anon) */
    bool lock_future, lock_future_onfault; /* mlockall(MCL_FUTURE): def_flags */
    struct kernel_layout layout;
    char *exe_path;      /* what /proc/self/exe resolves to (mm->exe_file) */
    uint32_t membarrier_registered; /* membarrier(2)'s REGISTER_* commands done, per mm */
    /* --sched=parallel (emu/kernel/sched.c): the engines of this mm in
     * one Unicorn parallel group once there are two, how many of them run
     * guest code now, and the depth of a change made with them stopped. */
    uc_parallel_group *group;
    unsigned in_guest;
    unsigned stopping;
    /* ... and when it holds code that a guest store can change (a mapping
     * both writable and executable, or an executable shared one: see
     * mm_code_writable), the one task whose engine may run guest code,
     * and the engine that ran it last (opaque to this layer). */
    bool code_writable;
    const void *guest_owner;
    const void *last_guest_engine;
    /* While the mm maps the same shared pages writable in one place and
     * executable in another, each engine's hook on stores (mem.c, "code
     * written through a second view"): (uc_engine *, uc_hook) pairs. */
    GArray *view_hooks;
    /* The window (docs/linear-mapping.md): with it, every ordinary piece's
     * host memory is at window base + its guest address (mm_in_window);
     * NULL without.  window_end: the end of the guest's user space when
     * the mm was made; pieces past it (seccomp-emu's kernel page, the LDT)
     * stay off the window.  window_failed: the window was wanted but the
     * host refused the reservation, and this mm has none. */
    struct window *window;
    uint64_t window_end;
    bool window_failed;
    /* An x86_64 address space's windows ("8. x86_64 guests"): a slot per
     * TiB, reserved when a piece first goes there (slots_wanted), within
     * seccomp-emu's budget; slot_table holds their offsets for the engine
     * (UC_CTL_LINEAR_TABLE), one entry for every value of an address's
     * top 24 bits so that the engine needs no clamp (mapped in
     * slot_table_map: zeros past the first page, which cost no memory
     * until read).  A lower-half slot without a window has 0, or with
     * slot_traps the trap region's offset (UC_LINEAR_TABLE_TRAPS).
     * windows: where the window or the slots are in the host, for the
     * fault handler. */
    bool slots_wanted;
    bool slot_traps;
    struct window *slots[UC_LINEAR_SLOTS];
    uint64_t *slot_table;
    struct window *slot_table_map;
    struct hostfault_ranges windows;
    /* Direct guest accesses through the window (UC_CTL_LINEAR_BASE):
     * window_direct while its engines make them (mm_window_activate);
     * the window then gives each page what the guest may do with it, less
     * write where the engine has translated code (code_pages: guest page
     * numbers).  window_shared: every engine of the mm makes them, on its
     * own thread (--sched=parallel), while no guest store can change code
     * (no code_pages then).  window_direct_over: turned off for good (a
     * second engine came where code may be written, or the host refused
     * a protection). */
    bool window_direct, window_shared, window_direct_over;
    bool window_resync; /* pages mm_will_write opened for a copy: to close */
    GHashTable *code_pages;
};

/* Whether mm_new gives 32-bit address spaces a window, from now on: once
 * at start-up (SECCOMP_EMU_WINDOW, emu/main.c), or by a test.  Nothing
 * uses the window yet; it stays off on hosts whose page is not 4 KiB. */
void mm_window_enable(bool on);
/* Whether mm_new gives 64-bit address spaces slots, each a window of a
 * TiB (docs/linear-mapping.md, "8. x86_64 guests"), and whether their
 * engines then access them directly (UC_CTL_LINEAR_TABLE): once at
 * start-up (SECCOMP_EMU_WINDOW64, emu/main.c), or by a test. */
void mm_slots_enable(bool on, bool direct);
/* Whether a 32-bit mm's one engine accesses guest memory straight through
 * the window (SECCOMP_EMU_WINDOW, emu/main.c; docs/linear-mapping.md). */
void mm_window_direct_enable(bool on);
/* Whether this host's code generator can make such accesses: the default
 * there. */
bool mm_window_direct_host(void);
/* Whether the TLB fill sees the first write to memory awaiting an anon_vma
 * (emu/entry/fault.c: not when engines run in parallel), for the window to
 * send such writes there; set once by the scheduler. */
void mm_first_writes_seen(bool seen);
/* Before `uc` runs guest code: turn direct accesses on for it when mm has
 * a window, direct accesses are enabled, and uc is mm's only engine.
 * True when uc makes direct accesses now. */
bool mm_window_activate(struct mm *mm, uc_engine *uc);
/* Before seccomp-emu or the host writes [addr, addr+len) of guest memory
 * through host pointers (mm_write, mm_iovecs for a write, a futex word):
 * with direct accesses, pages there that hold translated code are
 * write-protected in the window, and their translations go first. */
void mm_will_write(struct mm *mm, uint64_t addr, uint64_t len);
/* Around seccomp-emu's filling of [addr, addr+len), pages the guest may
 * not write itself (a private file mapping, from the file): the mm's other
 * engines stay out of guest code, and the window lets the host write
 * there, until mm_fill_end. */
void mm_fill_begin(struct mm *mm, uint64_t addr, uint64_t len);
void mm_fill_end(struct mm *mm);
/* Host address of guest address 0 in mm's window, NULL when it has none. */
uint8_t *mm_window_base(const struct mm *mm);
/* Is v's host memory in mm's window, at base + v->start?  Shared pieces,
 * pages past a shared object's end and seccomp-emu's hidden pages are
 * not: the window is PROT_NONE there. */
bool mm_in_window(const struct mm *mm, const struct vma *v);

/* Does the mm hold a mapping whose code a guest store can change: one
 * both writable and executable, or an executable shared one (its pages
 * may be writable through another mapping)? */
bool mm_code_writable(const struct mm *mm);
/* Drop `uc`'s translations of all such mappings. */
void mm_drop_writable_code(struct mm *mm, uc_engine *uc);

/* Called with `stop` true before, and false after, every change of an
 * mm's table or of its engines' maps (mm_map_fixed, mm_mmap, mm_munmap,
 * mm_mprotect, mm_mremap, mm_brk, mm_madvise's splits, mm_grow_stack, mm_written
 * and the marks below), nested as they call each other.  Set by the
 * scheduler when engines of one mm run guest code on several host
 * threads at once; NULL otherwise. */
extern void (*mm_stop_hook)(struct mm *mm, bool stop);

/* Called when a call that faults guest memory in on the guest's behalf
 * (populating: MAP_POPULATE, mlock, MADV_POPULATE_*) stops because
 * seccomp-emu is past --host-memory; set by the timer thread's owner
 * (emu/kernel/async.c), which ends the guest at its next stop. */
extern void (*mm_host_memory_hook)(void);

/* A new, empty address space with one reference, for a guest whose user
 * space ends at `limit`. */
struct mm *mm_new(uint64_t limit);
struct mm *mm_ref(struct mm *mm);
/* Drop a reference; the last one unmaps everything from every engine and
 * frees the host memory. */
void mm_unref(struct mm *mm);
/* A copy for fork(): the same mappings, their contents copied, private
 * and shared alike (a guest's MAP_SHARED anonymous memory is copied too:
 * docs/internals.md), with no engine attached yet. */
err_t mm_copy(const struct mm *src, struct mm **out);

/* Map every vma into `uc` and keep it in step from now on. */
err_t mm_attach_engine(struct mm *mm, uc_engine *uc);
/* Stop keeping `uc` in step, before it is closed (its regions go with
 * it). */
void mm_detach_engine(struct mm *mm, uc_engine *uc);

/* Map fresh zeroed memory at exactly [addr, addr+len), which must be free.
 * When `host_out` is set it receives the host address of `addr`. */
err_t mm_map_fixed(struct mm *mm, uint64_t addr, uint64_t len, int prot,
                   const char *name, uint8_t **host_out);
/* ... as one of the kernel's special mappings, with bit i of `no_page`
 * set when its page i is never there (struct vma's no_page). */
err_t mm_map_special(struct mm *mm, uint64_t addr, uint64_t len, int prot, const char *name,
                     enum vma_special special, uint8_t no_page, uint8_t **host_out);

/* Linux-shaped operations: results are 0 or a negative errno_LINUX. */
int64_t mm_mmap(struct mm *mm, uint64_t addr, uint64_t len, int prot, int flags);
int64_t mm_munmap(struct mm *mm, uint64_t addr, uint64_t len);
int64_t mm_mprotect(struct mm *mm, uint64_t addr, uint64_t len, int prot);
int64_t mm_mremap(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
                  int flags, uint64_t new_addr);
uint64_t mm_brk(struct mm *mm, uint64_t want);
/* Mark [addr, addr+len), just mapped, as a shared mapping of a read-only
 * descriptor: mprotect can then never add PROT_WRITE (EACCES). */
void mm_deny_write(struct mm *mm, uint64_t addr, uint64_t len);
/* Mark [addr, addr+len), just mapped private from a file, as a file's
 * mapping (vma.file), and its pages, where it is not writable, as the
 * file's (vma.file_pages) until it is made writable. */
void mm_mark_file_pages(struct mm *mm, uint64_t addr, uint64_t len);
/* RLIMIT_DATA's soft and hard values, in bytes, as mmap, mprotect, mremap
 * and brk test them. */
void mm_set_data_limit(struct mm *mm, uint64_t cur, uint64_t max);
void mm_set_stack_limit(struct mm *mm, uint64_t cur);
int64_t mm_madvise(struct mm *mm, uint64_t addr, uint64_t len, int advice);
/* mlock2 (mlock: flags 0), munlock, mlockall and munlockall.  `limit`:
 * RLIMIT_MEMLOCK in bytes, UINT64_MAX for a task with CAP_IPC_LOCK. */
int64_t mm_mlock(struct mm *mm, uint64_t addr, uint64_t len, int flags, uint64_t limit);
int64_t mm_munlock(struct mm *mm, uint64_t addr, uint64_t len);
int64_t mm_mlockall(struct mm *mm, int flags, uint64_t limit);
void mm_munlockall(struct mm *mm);

/* The address an mmap of `len` bytes with `flags` would get (the hint
 * taken or the search), or -errno where do_mmap() stops before it looks
 * at what is mapped (__get_unmapped_area, MAP_FIXED_NOREPLACE). */
int64_t mm_unmapped_area(const struct mm *mm, uint64_t addr, uint64_t len, int flags);

/* Free guest range of `len` bytes, searching down from `top`; 0 if none. */
uint64_t mm_find_free(const struct mm *mm, uint64_t len, uint64_t top);

/* Where the VMA that holds v (one of mm's), as Linux would have merged
 * it with its neighbours, ends: /proc/PID/maps shows one line per VMA. */
uint64_t mm_vma_end(const struct mm *mm, const struct vma *v);

/* The mapping holding `addr`, or NULL. */
const struct vma *mm_find(const struct mm *mm, uint64_t addr);
/* The first mapping ending above `addr` (holding it or above it), or NULL. */
const struct vma *mm_next(const struct mm *mm, uint64_t addr);
/* Is [addr, addr+len) free of mappings? */
bool mm_range_free(const struct mm *mm, uint64_t addr, uint64_t len);

/* expand_downwards(): an access at `addr` below a mapping that grows down
 * (the stack, or a MAP_GROWSDOWN one), with nothing else between them,
 * makes the mapping reach it, if its size stays within RLIMIT_STACK
 * (mm->stack_rlim), the guard gap below it is kept and the memory limits
 * allow.  Returns NULL when it grew, else why not: "" and *was_stack
 * false when there is no such mapping above `addr` to grow.  The one
 * rule for every access that faults through Linux's page-fault handler:
 * the guest's own (emu/entry/fault.c: data and instruction fetches
 * alike) and the emulated kernel's copies (mm_user_prefix). */
const char *mm_grow_stack(struct mm *mm, uint64_t addr, bool *was_stack);

/* Longest prefix of [addr, addr+len) that is mapped with all of `prot`.
 * A pure look-up: what get_user_pages reaches (no stack grows for it
 * since Linux 6.5: gup_vma_lookup), or what a diagnostic may read. */
uint64_t mm_valid_prefix(const struct mm *mm, uint64_t addr, uint64_t len, int prot);

/* The same for the emulated kernel's own accesses to user memory
 * (copy_to_user, copy_from_user, get_user, strncpy_from_user): where the
 * prefix stops at a hole, the access faults through the page-fault
 * handler, which grows a stack just above the hole to it
 * (mm_grow_stack), for a read as for a write, before the protection is
 * checked; the prefix then goes on.  Every copy for a call comes here
 * (mm_read, mm_write, mm_read_string, and the callers that hand guest
 * memory to the host: take the prefix from here, then mm_iovecs). */
uint64_t mm_user_prefix(struct mm *mm, uint64_t addr, uint64_t len, int prot);

/* The same growth ahead of a copy the host makes (a read(2) into guest
 * memory), which may stop before it reaches a hole: Linux grows a stack
 * only when its copy faults there.  `grown` receives each growth (up to
 * MM_GROWTHS_MAX; more are made, not recorded): the hole's first byte the
 * copy reaches, and the pages [low, high) that came of it.  A caller
 * whose copy stopped before `fault` takes them back (mm_ungrow). */
#define MM_GROWTHS_MAX 4
struct mm_growth {
    uint64_t fault, low, high;
};
struct mm_growths {
    unsigned n;
    struct mm_growth g[MM_GROWTHS_MAX];
};
uint64_t mm_user_prefix_ahead(struct mm *mm, uint64_t addr, uint64_t len, int prot,
                              struct mm_growths *grown);
/* A growth the copy never reached, undone: the pages leave the stack,
 * as if they had never come (nothing was written to them). */
void mm_ungrow(struct mm *mm, uint64_t low, uint64_t high);

/* Host pieces of a guest range that is valid for `prot`, as iovecs; returns
 * the number of iovecs (at most `max`), the covered length in `*covered`. */
int mm_iovecs(const struct mm *mm, uint64_t addr, uint64_t len, int prot,
              struct iovec *iov, int max, uint64_t *covered);

/* The emulated kernel's copies: they fail (return false) rather than
 * touch anything the guest did not map with the needed protection, after
 * growing a stack as Linux's would (mm_user_prefix). */
bool mm_read(struct mm *mm, uint64_t addr, void *dst, size_t len);
bool mm_write(struct mm *mm, uint64_t addr, const void *src, size_t len);
/* NUL-terminated guest string of at most `max` bytes; -EFAULT/-ENAMETOOLONG. */
int mm_read_string(struct mm *mm, uint64_t addr, char *dst, size_t max);
/* The same reads for what must change nothing, a stack's size included:
 * diagnostics and traces. */
bool mm_peek(const struct mm *mm, uint64_t addr, void *dst, size_t len);
int mm_peek_string(const struct mm *mm, uint64_t addr, char *dst, size_t max);

/* Unicorn's protection bits for PROT_*_LINUX, with x86's rules (write and
 * execute imply read; NX keeps execute apart). */
uint32_t mm_uc_prot(int prot);
/* What the engines may do with the piece v, were its protection `prot`:
 * nothing past a shared object's end (past_object), else mm_uc_prot. */
uint32_t mm_vma_uc_prot(const struct vma *v, int prot);
/* Is the page at addr in the piece v never there, whatever the protection
 * allows (past a shared object's end, a special mapping's page left out)?
 * An access the protection allows is SIGBUS there, a call's copy EFAULT. */
bool mm_vma_no_page(const struct vma *v, uint64_t addr);
/* Does a write to the piece v give its VMA an anon_vma (mm_anon_write)? */
bool mm_vma_awaits_anon(const struct vma *v);
/* A write reached [addr, addr+len), by the guest or by a call (Linux's
 * first write fault there): the private anonymous VMAs in it get their
 * anon_vma, which decides what merges with them later. */
void mm_anon_write(struct mm *mm, uint64_t addr, uint64_t len);

/* Make the mapping at `addr` invisible to the guest's system calls, as
 * kernel memory is (the CPU can still read it: docs/threat-model.md). */
void mm_hide(struct mm *mm, uint64_t addr);

/* Where the top-down mmap area starts below a stack at `task_size`, as
 * x86's mmap_base() puts it without randomisation: RLIMIT_STACK and the
 * stack guard gap, at least 128 MiB and at most 5/6 of the space. */
uint64_t mm_mmap_base(uint64_t task_size, uint64_t stack_rlim);

/* A host range of at least MAX_RW_COUNT bytes that is never accessible.
 * Handing it to the host kernel for the part of a guest buffer that is not
 * mapped lets the host fail the copy where Linux would, with its own rules
 * per file type (a pipe refuses a partial page, /dev/null never looks). */
void *mm_guard(void);

/* The host wrote into guest memory behind Unicorn's back: drop stale
 * translations if the range is executable. */
void mm_written(struct mm *mm, uint64_t addr, uint64_t len);

#endif
