/* The engine's linear mapping of a 32-bit guest (UC_CTL_LINEAR_BASE; issue
 * 36, lever 3, docs/linear-mapping.md): which accesses go straight to
 * base + address and which keep the soft TLB.
 *
 * The engine's memory region for the guest's pages and the window are two
 * different host buffers here, holding different bytes, so every result
 * says which path an access took: user loads and stores of 32-bit code
 * must reach the window, CPL 0 code and engines with a memory hook must
 * reach the region, and a misaligned movaps must still fault.  A host
 * code generator without a base register (arm64) must refuse the base.
 * Where the window refuses an access (PROT_NONE), the host's fault sends
 * the instruction back through the soft TLB (seccomp-emu's handler,
 * uc_host_fault): the region serves it, or the guest faults at that
 * instruction. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <unicorn/unicorn.h>

#include "emu/engine/hostfault.h"

#define GUEST_SIZE 0x40000u
#define GDT_AT 0x1000u
#define STUB_AT 0x2000u   /* CPL 0: a load, then iret to CPL 3 */
#define FRAME_AT 0x3000u  /* the iret frame */
#define USER_AT 0x10000u  /* CPL 3 code */
#define DATA_AT 0x20000u
#define USER_STACK 0x8000u
#define WINDOW_SIZE ((size_t)1 << 32)
#define GUARD 0x1000u

#define SEL_KERNEL_CS 0x08
#define SEL_KERNEL_DS 0x10
#define SEL_USER_CS 0x1b
#define SEL_USER_DS 0x23
#define CR4_OSFXSR (1u << 9)

static const uint32_t region_marker = 0x7e617a4d; /* what the region holds at DATA_AT */
static const uint32_t window_marker = 0x5749414e; /* what the window holds there */

struct rig {
    uc_engine *uc;
    uint8_t *region; /* the engine's memory region: guest 0 .. GUEST_SIZE */
    uint8_t *window; /* base: 4 GiB + a guard, PROT_NONE but for DATA_AT's page */
    int intno;       /* the last exception, -1: none */
};

static void on_intr(uc_engine *uc, uint32_t intno, void *user)
{
    struct rig *r = user;
    r->intno = (int)intno;
    uc_emu_stop(uc);
}

static void on_read(uc_engine *uc, uc_mem_type type, uint64_t address, int size, int64_t value,
                    void *user)
{
    (void)uc, (void)type, (void)address, (void)size, (void)value, (void)user;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint32_t reg32(uc_engine *uc, int reg)
{
    uint32_t v = 0;
    assert_int_equal(uc_reg_read(uc, reg, &v), UC_ERR_OK);
    return v;
}

static uint64_t reg64(uc_engine *uc, int reg)
{
    uint64_t v = 0;
    assert_int_equal(uc_reg_read(uc, reg, &v), UC_ERR_OK);
    return v;
}

static void set_reg(uc_engine *uc, int reg, uint64_t v)
{
    assert_int_equal(uc_reg_write(uc, reg, &v), UC_ERR_OK);
}

/* A flat 4 GiB segment: 32-bit code or writable data, of privilege dpl. */
static uint64_t desc(int code, int dpl)
{
    return 0x00cf00000000ffffull | (uint64_t)(code ? 0x9a : 0x92) << 40 | (uint64_t)dpl << 45;
}

static void rig_open(struct rig *r, const uint8_t *user_code, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->intno = -1;
    r->region = aligned_alloc(4096, GUEST_SIZE);
    assert_non_null(r->region);
    memset(r->region, 0, GUEST_SIZE);
    void *w = mmap(NULL, WINDOW_SIZE + GUARD, PROT_NONE, MAP_PRIVATE | MAP_ANON
#ifdef MAP_NORESERVE
                                                              | MAP_NORESERVE
#endif
                   , -1, 0);
    assert_true(w != MAP_FAILED);
    r->window = w;
    assert_true(mmap(r->window + DATA_AT, 0x1000, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANON | MAP_FIXED, -1, 0) == r->window + DATA_AT);

    uint64_t gdt[5] = { 0, desc(1, 0), desc(0, 0), desc(1, 3), desc(0, 3) };
    memcpy(r->region + GDT_AT, gdt, sizeof(gdt));
    /* mov eax, [DATA_AT]; mov esi, eax; iret */
    static const uint8_t stub[] = { 0xa1, 0x00, 0x00, 0x02, 0x00, 0x89, 0xc6, 0xcf };
    memcpy(r->region + STUB_AT, stub, sizeof(stub));
    uint32_t frame[5] = { USER_AT, SEL_USER_CS, 0x202, USER_STACK, SEL_USER_DS };
    memcpy(r->region + FRAME_AT, frame, sizeof(frame));
    memcpy(r->region + USER_AT, user_code, len);
    for (unsigned i = 0; i < 8; i++) {
        put32(r->region + DATA_AT + 4 * i, region_marker + i);
        put32(r->window + DATA_AT + 4 * i, window_marker + i);
    }

    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_32, &r->uc), UC_ERR_OK);
    assert_int_equal(uc_mem_map_ptr(r->uc, 0, GUEST_SIZE, UC_PROT_ALL, r->region), UC_ERR_OK);
    uc_x86_mmr gdtr = { .base = GDT_AT, .limit = sizeof(gdt) - 1 };
    assert_int_equal(uc_reg_write(r->uc, UC_X86_REG_GDTR, &gdtr), UC_ERR_OK);
    uint64_t cr4 = 0;
    assert_int_equal(uc_reg_read(r->uc, UC_X86_REG_CR4, &cr4), UC_ERR_OK);
    set_reg(r->uc, UC_X86_REG_CR4, cr4 | CR4_OSFXSR);
    set_reg(r->uc, UC_X86_REG_SS, SEL_KERNEL_DS);
    set_reg(r->uc, UC_X86_REG_CS, SEL_KERNEL_CS);
    set_reg(r->uc, UC_X86_REG_DS, SEL_USER_DS);
    set_reg(r->uc, UC_X86_REG_ES, SEL_USER_DS);
    set_reg(r->uc, UC_X86_REG_ESP, FRAME_AT);
    uc_hook h;
    assert_int_equal(uc_hook_add(r->uc, &h, UC_HOOK_INTR, (void *)on_intr, r, 1, 0), UC_ERR_OK);
}

static void rig_close(struct rig *r)
{
    assert_int_equal(uc_close(r->uc), UC_ERR_OK);
    munmap(r->window, WINDOW_SIZE + GUARD);
    free(r->region);
}

/* The base where the host has a register for it; false where it refuses
 * it, as it must then (the caller checks no more). */
static bool set_base(struct rig *r)
{
    uc_err e = uc_ctl_linear_base(r->uc, (uintptr_t)r->window);
#if defined(__x86_64__) || defined(_M_X64)
    assert_int_equal(e, UC_ERR_OK);
    uint64_t back = 0;
    assert_int_equal(uc_ctl_get_linear_base(r->uc, &back), UC_ERR_OK);
    assert_true(back == (uintptr_t)r->window);
    return true;
#else
    assert_int_equal(e, UC_ERR_ARG);
    return false;
#endif
}

/* CPL 3:  mov eax, [DATA_AT]; mov dword [DATA_AT+4], 0x11223344;
 *         movaps xmm0, [DATA_AT+16]; movd ebx, xmm0 */
static const uint8_t user_loads[] = {
    0xa1, 0x00, 0x00, 0x02, 0x00,
    0xc7, 0x05, 0x04, 0x00, 0x02, 0x00, 0x44, 0x33, 0x22, 0x11,
    0x0f, 0x28, 0x05, 0x10, 0x00, 0x02, 0x00,
    0x66, 0x0f, 0x7e, 0xc3,
};

static void run_user_loads(struct rig *r)
{
    assert_int_equal(uc_emu_start(r->uc, STUB_AT, USER_AT + sizeof(user_loads), 0, 0), UC_ERR_OK);
    assert_int_equal(r->intno, -1);
    /* CPL 0 read the region either way. */
    assert_int_equal(reg32(r->uc, UC_X86_REG_ESI), region_marker);
}

static void user_accesses_reach_the_window(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, user_loads, sizeof(user_loads));
    if (set_base(&r)) {
        run_user_loads(&r);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), window_marker);
        assert_int_equal(get32(r.window + DATA_AT + 4), 0x11223344);
        assert_int_equal(get32(r.region + DATA_AT + 4), region_marker + 1);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EBX), window_marker + 4);
    }
    rig_close(&r);
}

/* Without a base, or with it taken back, everything is the region's. */
static void no_base_keeps_the_region(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, user_loads, sizeof(user_loads));
    if (set_base(&r))
        assert_int_equal(uc_ctl_linear_base(r.uc, 0), UC_ERR_OK);
    run_user_loads(&r);
    assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), region_marker);
    assert_int_equal(get32(r.region + DATA_AT + 4), 0x11223344);
    assert_int_equal(get32(r.window + DATA_AT + 4), window_marker + 1);
    assert_int_equal(reg32(r.uc, UC_X86_REG_EBX), region_marker + 4);
    rig_close(&r);
}

/* A memory hook sees every access, which only the soft TLB's slow path
 * calls it for. */
static void memory_hook_keeps_the_region(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, user_loads, sizeof(user_loads));
    uc_hook h;
    assert_int_equal(uc_hook_add(r.uc, &h, UC_HOOK_MEM_READ, (void *)on_read, NULL, 1, 0),
                     UC_ERR_OK);
    set_base(&r);
    run_user_loads(&r);
    assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), region_marker);
    assert_int_equal(get32(r.window + DATA_AT + 4), window_marker + 1);
    rig_close(&r);
}

/* seccomp-emu's own handler of the engine's host faults
 * (emu/engine/hostfault.h), once at the start of each test that takes
 * them: cmocka puts its own SIGSEGV handler in place around every test. */
static void faults_to_the_engine(void)
{
    err_t e = hostfault_install();
    if (e)
        fail_msg("%s", e);
}

/* Runs user code with the host's faults in the window going to the engine. */
static uc_err run_with_faults(struct rig *r, uint64_t until)
{
    struct hostfault_ranges windows = { 1, { { (uintptr_t)r->window,
                                               (uintptr_t)r->window + WINDOW_SIZE + GUARD } },
                                        false };
    hostfault_enter(r->uc, &windows);
    uc_err e = uc_emu_start(r->uc, STUB_AT, until, 0, 0);
    hostfault_leave();
    return e;
}

/* A page the window does not hold (PROT_NONE there) but the region does:
 * the region serves the access, and the next one is direct again.
 *   mov eax, [DATA_AT+0x1000]; mov ebx, [DATA_AT]; mov dword [DATA_AT+0x1004], 7 */
static void window_hole_served_by_the_region(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const uint8_t code[] = {
        0xa1, 0x00, 0x10, 0x02, 0x00,
        0x8b, 0x1d, 0x00, 0x00, 0x02, 0x00,
        0xc7, 0x05, 0x04, 0x10, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00,
    };
    struct rig r;
    rig_open(&r, code, sizeof(code));
    put32(r.region + DATA_AT + 0x1000, 0x686f6c65);
    if (set_base(&r)) {
        assert_int_equal(run_with_faults(&r, USER_AT + sizeof(code)), UC_ERR_OK);
        assert_int_equal(r.intno, -1);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), 0x686f6c65);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EBX), window_marker);
        assert_int_equal(get32(r.region + DATA_AT + 0x1004), 7);
    }
    rig_close(&r);
}

/* A block that meets the hole again and again is translated anew through
 * the soft TLB: a few host faults, not one per access.
 *   mov ecx, 1000; L: mov eax, [DATA_AT+0x1000]; add ebx, eax; dec ecx; jnz L */
static void window_hole_met_often_goes_soft(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const uint8_t code[] = {
        0xb9, 0xe8, 0x03, 0x00, 0x00,
        0xa1, 0x00, 0x10, 0x02, 0x00,
        0x01, 0xc3,
        0x49,
        0x75, 0xf6,
    };
    struct rig r;
    rig_open(&r, code, sizeof(code));
    put32(r.region + DATA_AT + 0x1000, 3);
    if (set_base(&r)) {
        uint64_t before = hostfault_count();
        assert_int_equal(run_with_faults(&r, USER_AT + sizeof(code)), UC_ERR_OK);
        uint64_t faults = hostfault_count() - before;
        assert_int_equal(r.intno, -1);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EBX), 3000);
        /* The first block once; the loop's block once, then three times
         * again on the page (HOST_FAULTS_SOFTMMU). */
        if (faults < 1 || faults > 5)
            fail_msg("%" PRIu64 " host faults for 1000 accesses", faults);
    }
    rig_close(&r);
}

/* ... but one that meets a new page each time keeps its direct accesses
 * (a page's first write, stack growth: the window holds the page after).
 *   mov esi, DATA_AT+0x1000; mov ecx, 16;
 *   L: mov eax, [esi]; add ebx, eax; add esi, 0x1000; dec ecx; jnz L */
static void window_holes_page_after_page_stay_direct(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const uint8_t code[] = {
        0xbe, 0x00, 0x10, 0x02, 0x00,
        0xb9, 0x10, 0x00, 0x00, 0x00,
        0x8b, 0x06,
        0x01, 0xc3,
        0x81, 0xc6, 0x00, 0x10, 0x00, 0x00,
        0x49,
        0x75, 0xf3,
    };
    struct rig r;
    rig_open(&r, code, sizeof(code));
    for (unsigned i = 1; i <= 16; i++)
        put32(r.region + DATA_AT + 0x1000 * i, i);
    if (set_base(&r)) {
        uint64_t before = hostfault_count();
        assert_int_equal(run_with_faults(&r, USER_AT + sizeof(code)), UC_ERR_OK);
        uint64_t faults = hostfault_count() - before;
        assert_int_equal(r.intno, -1);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EBX), 16 * 17 / 2);
        if (faults != 16)
            fail_msg("%" PRIu64 " host faults for 16 pages: the block went soft", faults);
    }
    rig_close(&r);
}

/* Nothing at all there: the guest's fault, at the faulting instruction,
 * for a load, a store, and a load that straddles 4 GiB into the guard. */
static void unmapped_faults_at_the_instruction(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const struct {
        uint8_t code[12];
        size_t len;
        uc_err want;
    } cases[] = {
        { { 0x90, 0xa1, 0x00, 0x00, 0x05, 0x00 }, 6, UC_ERR_READ_UNMAPPED },
        { { 0x90, 0xc7, 0x05, 0x00, 0x00, 0x05, 0x00, 1, 0, 0, 0 }, 11, UC_ERR_WRITE_UNMAPPED },
        { { 0x90, 0xa1, 0xfe, 0xff, 0xff, 0xff }, 6, UC_ERR_READ_UNMAPPED },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct rig r;
        rig_open(&r, cases[i].code, cases[i].len);
        if (set_base(&r)) {
            assert_int_equal(run_with_faults(&r, USER_AT + cases[i].len), cases[i].want);
            assert_int_equal(reg32(r.uc, UC_X86_REG_EIP), USER_AT + 1);
        }
        rig_close(&r);
    }
}

/* The window as seccomp-emu has it: the engine's region is the window
 * itself, and a page with translated code is write-protected there
 * (UC_CTL_CODE_PAGE_HOOK), so a direct store into code faults. */
static int code_pages; /* pages the hook says hold code now */

static void on_code_page(uc_engine *uc, uint64_t page, bool has_code, void *user)
{
    (void)uc;
    struct rig *r = user;
    if (page == UC_CODE_PAGE_ALL) {
        assert_int_equal(mprotect(r->window, GUEST_SIZE, PROT_READ | PROT_WRITE), 0);
        code_pages = 0;
        return;
    }
    assert_true(page < GUEST_SIZE && page % 0x1000 == 0);
    assert_int_equal(mprotect(r->window + page, 0x1000, PROT_READ | (has_code ? 0 : PROT_WRITE)),
                     0);
    code_pages += has_code ? 1 : -1;
}

static void region_is_the_window(struct rig *r, bool hook)
{
    assert_true(mmap(r->window, GUEST_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANON | MAP_FIXED, -1, 0) == r->window);
    memcpy(r->window, r->region, GUEST_SIZE);
    assert_int_equal(uc_mem_unmap(r->uc, 0, GUEST_SIZE), UC_ERR_OK);
    /* Another region first, so that the engine's ram addresses of the
     * guest's pages are not their guest addresses: the hook must tell
     * guest ones. */
    assert_int_equal(uc_mem_map(r->uc, 0x100000, 0x10000, UC_PROT_READ), UC_ERR_OK);
    assert_int_equal(uc_mem_map_ptr(r->uc, 0, GUEST_SIZE, UC_PROT_ALL, r->window), UC_ERR_OK);
    code_pages = 0;
    if (hook)
        assert_int_equal(uc_ctl_code_page_hook(r->uc, on_code_page, r), UC_ERR_OK);
}

/* Code that rewrites its own next instruction, a nop, into inc eax:
 *   mov eax, 0; mov byte [USER_AT+12], 0x40; nop
 * The store is direct, into a page the hook write-protected: it faults,
 * runs again through the soft TLB, which drops the page's blocks (the hook
 * unprotects), and the new instruction runs.  Without the hook the store
 * goes straight in and the block translated before it runs the nop. */
static void code_written_directly_runs_new(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const uint8_t code[] = {
        0xb8, 0x00, 0x00, 0x00, 0x00,
        0xc6, 0x05, 0x0c, 0x00, 0x01, 0x00, 0x40,
        0x90,
    };
    for (int hook = 1; hook >= 0; hook--) {
        struct rig r;
        rig_open(&r, code, sizeof(code));
        region_is_the_window(&r, hook);
        if (set_base(&r)) {
            assert_int_equal(run_with_faults(&r, USER_AT + sizeof(code)), UC_ERR_OK);
            assert_int_equal(r.intno, -1);
            assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), hook ? 1 : 0);
            if (hook) {
                /* the stub's page and the rewritten one again */
                assert_true(code_pages >= 1);
                assert_int_equal(uc_ctl_flush_tb(r.uc), UC_ERR_OK);
                assert_int_equal(code_pages, 0);
            }
        }
        rig_close(&r);
    }
}

/* Stores into data on a page that holds code, more often than QEMU's
 * per-page code bitmap waits for (SMC_BITMAP_USE_THRESHOLD): each must
 * unprotect the page, not only those that hit code, or the soft TLB's
 * store meets the write-protected page (a crash in the engine).
 *   mov ecx, 20; l: mov byte [USER_AT+0x800], 7; dec ecx; jnz l */
static void data_on_a_code_page(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const uint8_t code[] = {
        0xb9, 0x14, 0x00, 0x00, 0x00,
        0xc6, 0x05, 0x00, 0x08, 0x01, 0x00, 0x07,
        0x49,
        0x75, 0xf6,
    };
    struct rig r;
    rig_open(&r, code, sizeof(code));
    region_is_the_window(&r, true);
    if (set_base(&r)) {
        assert_int_equal(run_with_faults(&r, USER_AT + sizeof(code)), UC_ERR_OK);
        assert_int_equal(r.intno, -1);
        assert_int_equal(reg32(r.uc, UC_X86_REG_ECX), 0);
        assert_int_equal(r.window[USER_AT + 0x800], 7);
    }
    rig_close(&r);
}

/* movaps from an address 4 bytes off its 16: #GP, with the base or not. */
static void misaligned_movaps_faults(void **state)
{
    (void)state;
    static const uint8_t code[] = { 0x0f, 0x28, 0x05, 0x14, 0x00, 0x02, 0x00 };
    for (int with_base = 0; with_base < 2; with_base++) {
        struct rig r;
        rig_open(&r, code, sizeof(code));
        if (with_base && !set_base(&r)) {
            rig_close(&r);
            continue;
        }
        assert_int_equal(uc_emu_start(r.uc, STUB_AT, USER_AT + sizeof(code), 0, 0), UC_ERR_OK);
        assert_int_equal(r.intno, 13);
        assert_int_equal(reg32(r.uc, UC_X86_REG_EIP), USER_AT);
        rig_close(&r);
    }
}

/* ---- 64-bit guests: a table of slots (UC_CTL_LINEAR_TABLE) ----
 * Guest 0 .. GUEST_SIZE is the engine's region, as above, in slot 0, whose
 * offset sends user accesses to `window` (here only GUEST_SIZE and a guard:
 * every access the code makes lies there); guest SLOT1 is a second region,
 * in slot 1, which the table leaves to the soft TLB. */
#define SLOT1 ((uint64_t)1 << UC_LINEAR_SLOT_BITS)
#define SEL_USER_CS64 0x1b

struct rig64 {
    uc_engine *uc;
    uint8_t *region, *far, *window;
    uint64_t *table; /* UC_LINEAR_TABLE_ENTRIES, zeros as mapped */
    uint8_t *traps;  /* a slot's span that faults, with set_table(, true) */
    int intno;
};

#define TABLE_BYTES (UC_LINEAR_TABLE_ENTRIES * sizeof(uint64_t))
/* A slot's span and a guard page, as mem.c's trap region */
#define TRAP_SPAN ((1ull << UC_LINEAR_SLOT_BITS) + GUARD)

static void on_intr64(uc_engine *uc, uint32_t intno, void *user)
{
    struct rig64 *r = user;
    r->intno = (int)intno;
    uc_emu_stop(uc);
}

static void rig64_open(struct rig64 *r, const uint8_t *user_code, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->intno = -1;
    r->region = aligned_alloc(4096, GUEST_SIZE);
    r->far = aligned_alloc(4096, 0x1000);
    assert_non_null(r->region);
    assert_non_null(r->far);
    memset(r->region, 0, GUEST_SIZE);
    memset(r->far, 0, 0x1000);
    void *w = mmap(NULL, GUEST_SIZE + GUARD, PROT_NONE, MAP_PRIVATE | MAP_ANON, -1, 0);
    assert_true(w != MAP_FAILED);
    r->window = w;
    void *t = mmap(NULL, TABLE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
    assert_true(t != MAP_FAILED);
    r->table = t;
    assert_true(mmap(r->window + DATA_AT, 0x1000, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANON | MAP_FIXED, -1, 0) == r->window + DATA_AT);

    /* null, kernel code (64-bit), kernel data, user code (64-bit), user data */
    uint64_t gdt[5] = { 0, 0x00af9a000000ffffull, 0x00cf92000000ffffull, 0x00affa000000ffffull,
                        0x00cff2000000ffffull };
    memcpy(r->region + GDT_AT, gdt, sizeof(gdt));
    /* mov eax, [DATA_AT]; mov esi, eax; iretq */
    static const uint8_t stub[] = { 0x8b, 0x04, 0x25, 0x00, 0x00, 0x02, 0x00, 0x89, 0xc6,
                                    0x48, 0xcf };
    memcpy(r->region + STUB_AT, stub, sizeof(stub));
    uint64_t frame[5] = { USER_AT, SEL_USER_CS64, 0x202, USER_STACK, SEL_USER_DS };
    memcpy(r->region + FRAME_AT, frame, sizeof(frame));
    memcpy(r->region + USER_AT, user_code, len);
    for (unsigned i = 0; i < 8; i++) {
        put32(r->region + DATA_AT + 4 * i, region_marker + i);
        put32(r->window + DATA_AT + 4 * i, window_marker + i);
    }
    put32(r->far, 0x66617221);

    assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_64, &r->uc), UC_ERR_OK);
    assert_int_equal(uc_mem_map_ptr(r->uc, 0, GUEST_SIZE, UC_PROT_ALL, r->region), UC_ERR_OK);
    assert_int_equal(uc_mem_map_ptr(r->uc, SLOT1, 0x1000, UC_PROT_ALL, r->far), UC_ERR_OK);
    uc_x86_mmr gdtr = { .base = GDT_AT, .limit = sizeof(gdt) - 1 };
    assert_int_equal(uc_reg_write(r->uc, UC_X86_REG_GDTR, &gdtr), UC_ERR_OK);
    set_reg(r->uc, UC_X86_REG_SS, SEL_KERNEL_DS);
    set_reg(r->uc, UC_X86_REG_CS, SEL_KERNEL_CS);
    set_reg(r->uc, UC_X86_REG_DS, SEL_USER_DS);
    set_reg(r->uc, UC_X86_REG_RSP, FRAME_AT);
    uc_hook h;
    assert_int_equal(uc_hook_add(r->uc, &h, UC_HOOK_INTR, (void *)on_intr64, r, 1, 0), UC_ERR_OK);
}

static void rig64_close(struct rig64 *r)
{
    assert_int_equal(uc_close(r->uc), UC_ERR_OK);
    munmap(r->window, GUEST_SIZE + GUARD);
    munmap(r->table, TABLE_BYTES);
    if (r->traps)
        munmap(r->traps, TRAP_SPAN);
    free(r->region);
    free(r->far);
}

/* Slot 0 through the window, where the host has a register for it.  With
 * traps (where the fault handler can take faults above user space, as
 * mem.c does it), the other lower-half slots lead into a reservation that
 * faults and the engine makes no test of the offset. */
static bool set_table(struct rig64 *r, bool traps)
{
    r->table[0] = (uint64_t)(uintptr_t)r->window;
    r->traps = NULL;
    if (traps) {
        r->traps = mmap(NULL, TRAP_SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANON | MAP_NORESERVE, -1, 0);
        assert_true(r->traps != MAP_FAILED);
        for (uint64_t slot = 1; slot < UC_LINEAR_SLOTS; slot++)
            r->table[slot] = (uint64_t)(uintptr_t)r->traps - (slot << UC_LINEAR_SLOT_BITS);
    }
    uc_err e = uc_ctl_linear_table(r->uc, r->table, traps ? UC_LINEAR_TABLE_TRAPS : 0);
#if defined(__x86_64__) || defined(_M_X64)
    assert_int_equal(e, UC_ERR_OK);
    return true;
#else
    assert_int_equal(e, UC_ERR_ARG);
    return false;
#endif
}

static uc_err run64(struct rig64 *r, uint64_t until)
{
    struct hostfault_ranges windows = { 1, { { (uintptr_t)r->window,
                                               (uintptr_t)r->window + GUEST_SIZE + GUARD } },
                                        false };
    if (r->traps) {
        windows.range[windows.n].lo = (uintptr_t)r->traps;
        windows.range[windows.n++].hi = (uintptr_t)r->traps + TRAP_SPAN;
        windows.beyond_user = true;
    }
    hostfault_enter(r->uc, &windows);
    uc_err e = uc_emu_start(r->uc, STUB_AT, until, 0, 0);
    hostfault_leave();
    return e;
}

/* CPL 3, 64-bit:
 *   mov eax, [DATA_AT]; mov dword [DATA_AT+4], 0x11223344
 *   mov rcx, SLOT1; mov ebx, [rcx]; mov dword [rcx+4], 5
 *   mov edx, [DATA_AT+0x1000]   (a page the window does not hold) */
static const uint8_t slot_accesses[] = {
    0x8b, 0x04, 0x25, 0x00, 0x00, 0x02, 0x00,
    0xc7, 0x04, 0x25, 0x04, 0x00, 0x02, 0x00, 0x44, 0x33, 0x22, 0x11,
    0x48, 0xb9, 0, 0, 0, 0, 0, 0x01, 0, 0,
    0x8b, 0x19,
    0xc7, 0x41, 0x04, 0x05, 0x00, 0x00, 0x00,
    0x8b, 0x14, 0x25, 0x00, 0x10, 0x02, 0x00,
};

/* After faults_to_the_engine(), once: a second install would take the
 * handler itself for the one before it. */
static void slots_reach_the_window_with(bool traps)
{
    struct rig64 r;
    rig64_open(&r, slot_accesses, sizeof(slot_accesses));
    put32(r.region + DATA_AT + 0x1000, 0x686f6c65);
    bool table = set_table(&r, traps);
    assert_int_equal(run64(&r, USER_AT + sizeof(slot_accesses)), UC_ERR_OK);
    assert_int_equal(r.intno, -1);
    /* CPL 0 reads the region either way; slot 1 has no offset: the region. */
    assert_int_equal(reg32(r.uc, UC_X86_REG_ESI), region_marker);
    assert_int_equal(reg32(r.uc, UC_X86_REG_EBX), 0x66617221);
    assert_int_equal(get32(r.far + 4), 5);
    /* The hole: the region serves it, through a host fault or the TLB. */
    assert_int_equal(reg32(r.uc, UC_X86_REG_EDX), 0x686f6c65);
    if (table) {
        assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), window_marker);
        assert_int_equal(get32(r.window + DATA_AT + 4), 0x11223344);
        assert_int_equal(get32(r.region + DATA_AT + 4), region_marker + 1);
    } else {
        assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), region_marker);
    }
    rig64_close(&r);
}

static void slots_reach_the_window(void **state)
{
    (void)state;
    faults_to_the_engine();
    slots_reach_the_window_with(false);
}

/* Slot 1 leads into the trap region: the access faults there and the
 * region serves it, as a hole of slot 0 is served (where the host lets the
 * handler take faults above user space; elsewhere as above). */
static void slots_reach_the_window_traps(void **state)
{
    (void)state;
    faults_to_the_engine();
    slots_reach_the_window_with(hostfault_traps_beyond_user());
}

/* Taken back, the table leaves everything to the region. */
static void no_table_keeps_the_region(void **state)
{
    (void)state;
    struct rig64 r;
    rig64_open(&r, slot_accesses, sizeof(slot_accesses));
    put32(r.region + DATA_AT + 0x1000, 0x686f6c65);
    if (set_table(&r, false))
        assert_int_equal(uc_ctl_linear_table(r.uc, NULL, 0), UC_ERR_OK);
    assert_int_equal(run64(&r, USER_AT + sizeof(slot_accesses)), UC_ERR_OK);
    assert_int_equal(reg32(r.uc, UC_X86_REG_EAX), region_marker);
    assert_int_equal(get32(r.region + DATA_AT + 4), 0x11223344);
    assert_int_equal(get32(r.window + DATA_AT + 4), window_marker + 1);
    rig64_close(&r);
}

/* Addresses no slot holds: non-canonical, the upper half, past the
 * lower half (each from its own entry, 0), and a slot without an
 * offset: the soft TLB's answer, as without the table (whatever that is in
 * this rig, which has no paging: seccomp-emu's TLB fill makes it the
 * kernel's).
 *   mov rcx, ADDR; mov ebx, [rcx] */
static void addresses_past_the_slots_with(bool traps)
{
    static const uint64_t addrs[] = { 0x0000800000000000ull, 0xffff800000000000ull,
                                      0x8000000000000000ull, 0x00007fffffff0000ull,
                                      0x0000020000000000ull };
    for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
        uint8_t code[12] = { 0x48, 0xb9 };
        memcpy(code + 2, &addrs[i], 8);
        code[10] = 0x8b;
        code[11] = 0x19;
        uc_err err[2];
        int intno[2];
        uint64_t rip[2];
        for (int with_table = 0; with_table < 2; with_table++) {
            struct rig64 r;
            rig64_open(&r, code, sizeof(code));
            if (with_table)
                set_table(&r, traps);
            err[with_table] = run64(&r, USER_AT + sizeof(code));
            intno[with_table] = r.intno;
            rip[with_table] = reg64(r.uc, UC_X86_REG_RIP);
            rig64_close(&r);
        }
        /* A host fault runs the access again alone (uc_host_fault): an
         * error this rig's engine reports at the start of a block (it has
         * no TLB fill to raise the guest's fault) is then at the access. */
        uint64_t rip_with = traps && err[0] != UC_ERR_OK
                                ? USER_AT + 10
                                : rip[0];
        if (err[0] != err[1] || intno[0] != intno[1] || rip[1] != rip_with)
            fail_msg("0x%" PRIx64 ": without the table %d/%d at 0x%" PRIx64 ", with %d/%d at 0x%"
                     PRIx64, addrs[i], err[0], intno[0], rip[0], err[1], intno[1], rip[1]);
    }
}

static void addresses_past_the_slots(void **state)
{
    (void)state;
    addresses_past_the_slots_with(false);
}

/* The same with no test of the offset: the non-canonical and upper-half
 * addresses fault on the host at themselves (a #GP for the first), the
 * slot without a window in the trap region; each ends as the soft TLB's
 * access.  Without the handler taking them, the access faults again and
 * again and the test never ends (meson's timeout fails it).
 * Where the host cannot (hostfault_traps_beyond_user), as above. */
static void addresses_past_the_slots_traps(void **state)
{
    (void)state;
    faults_to_the_engine();
    addresses_past_the_slots_with(hostfault_traps_beyond_user());
}

/* A store past the window's last byte into its guard: the host faults,
 * and the region's byte is the one written.
 *   mov dword [GUEST_SIZE-2], 0x55667788 */
static void store_into_the_guard(void **state)
{
    (void)state;
    faults_to_the_engine();
    static const uint8_t code[] = { 0xc7, 0x04, 0x25, 0xfe, 0xff, 0x03, 0x00,
                                    0x88, 0x77, 0x66, 0x55 };
    struct rig64 r;
    rig64_open(&r, code, sizeof(code));
    if (set_table(&r, false)) {
        /* The window's last page held, its guard not. */
        assert_true(mmap(r.window + GUEST_SIZE - 0x1000, 0x1000, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANON | MAP_FIXED, -1, 0) ==
                    r.window + GUEST_SIZE - 0x1000);
        uc_err e = run64(&r, USER_AT + sizeof(code));
        /* The region ends at GUEST_SIZE too: the guest's own fault. */
        assert_int_equal(e, UC_ERR_WRITE_UNMAPPED);
        assert_int_equal(reg64(r.uc, UC_X86_REG_RIP), USER_AT);
        assert_int_equal(get32(r.window + GUEST_SIZE - 4) >> 16, 0);
    }
    rig64_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(user_accesses_reach_the_window),
        cmocka_unit_test(no_base_keeps_the_region),
        cmocka_unit_test(memory_hook_keeps_the_region),
        cmocka_unit_test(misaligned_movaps_faults),
        cmocka_unit_test(window_hole_served_by_the_region),
        cmocka_unit_test(window_hole_met_often_goes_soft),
        cmocka_unit_test(window_holes_page_after_page_stay_direct),
        cmocka_unit_test(unmapped_faults_at_the_instruction),
        cmocka_unit_test(code_written_directly_runs_new),
        cmocka_unit_test(data_on_a_code_page),
        cmocka_unit_test(slots_reach_the_window),
        cmocka_unit_test(slots_reach_the_window_traps),
        cmocka_unit_test(no_table_keeps_the_region),
        cmocka_unit_test(addresses_past_the_slots),
        cmocka_unit_test(addresses_past_the_slots_traps),
        cmocka_unit_test(store_into_the_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
