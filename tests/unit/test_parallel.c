/* Engines of a parallel group (UC_CTL_PARALLEL_GROUP, the vendored
 * Unicorn's qemu/accel/tcg/parallel.c), each on its own host thread over
 * one shared page pair, run x86 read-modify-writes that must be atomic
 * across them: lock add, lock cmpxchg, an xchg spin lock around a plain
 * increment, lock cmpxchg16b (both halves move together), and locked
 * accesses the host cannot make atomic (misaligned, across a page),
 * which stop the other engines and run alone.  Every count must be
 * exact.  Without the group the same code loses updates whenever two
 * threads interleave inside a read-modify-write: the control case
 * prints how many it lost on this host and asserts nothing. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unicorn/unicorn.h>

#define ENGINES 4
#define CODE_BASE 0x10000ull
#define DATA_BASE 0x20000ull
#define DATA_SIZE 0x2000ull

/* Each loop counts down ecx (r8d for cmpxchg16b, which needs ecx) with
 * rsi pointing at the shared pages. */
static const uint8_t code_lock_add[] = {
    0xf0, 0x48, 0x83, 0x06, 0x01, /* l: lock add qword [rsi], 1 */
    0xff, 0xc9,                   /* dec ecx */
    0x75, 0xf7,                   /* jnz l */
};
static const uint8_t code_cas[] = {
    0x48, 0x8b, 0x06,             /* l: mov rax, [rsi] */
    0x48, 0x8d, 0x50, 0x01,       /* r: lea rdx, [rax+1] */
    0xf0, 0x48, 0x0f, 0xb1, 0x16, /* lock cmpxchg [rsi], rdx */
    0x75, 0xf5,                   /* jnz r */
    0xff, 0xc9,                   /* dec ecx */
    0x75, 0xee,                   /* jnz l */
};
static const uint8_t code_spin[] = {
    0xb8, 0x01, 0x00, 0x00, 0x00,       /* l: mov eax, 1 */
    0x87, 0x06,                         /* s: xchg [rsi], eax */
    0x85, 0xc0,                         /* test eax, eax */
    0x75, 0xfa,                         /* jnz s */
    0x48, 0x8b, 0x56, 0x08,             /* mov rdx, [rsi+8] */
    0x48, 0xff, 0xc2,                   /* inc rdx */
    0x48, 0x89, 0x56, 0x08,             /* mov [rsi+8], rdx */
    0xc7, 0x06, 0x00, 0x00, 0x00, 0x00, /* mov dword [rsi], 0 */
    0xff, 0xc9,                         /* dec ecx */
    0x75, 0xe0,                         /* jnz l */
};
/* Each xchg puts a token in and takes out what was there, summed in r9:
 * tokens are conserved only if no two engines take out the same one. */
static const uint8_t code_xchg_tokens[] = {
    0xb8, 0x01, 0x00, 0x00, 0x00, /* l: mov eax, 1 */
    0x87, 0x06,                   /* xchg [rsi], eax */
    0x49, 0x01, 0xc1,             /* add r9, rax */
    0xff, 0xc9,                   /* dec ecx */
    0x75, 0xf2,                   /* jnz l */
};
static const uint8_t code_cx16[] = {
    0x48, 0x8b, 0x06,             /* l: mov rax, [rsi] */
    0x48, 0x8b, 0x56, 0x08,       /* mov rdx, [rsi+8] */
    0x48, 0x8d, 0x58, 0x01,       /* r: lea rbx, [rax+1] */
    0x48, 0x8d, 0x4a, 0x01,       /* lea rcx, [rdx+1] */
    0xf0, 0x48, 0x0f, 0xc7, 0x0e, /* lock cmpxchg16b [rsi] */
    0x75, 0xf1,                   /* jnz r */
    0x41, 0xff, 0xc8,             /* dec r8d */
    0x75, 0xe5,                   /* jnz l */
};
static const uint8_t code_split[] = {
    0xf0, 0x83, 0x86, 0xfe, 0x0f, 0x00, 0x00, 0x01, /* l: lock add dword [rsi+0xffe], 1 */
    0xba, 0x01, 0x00, 0x00, 0x00,                   /* mov edx, 1 */
    0xf0, 0x0f, 0xc1, 0x96, 0x05, 0x10, 0x00, 0x00, /* lock xadd [rsi+0x1005], edx */
    0xff, 0xc9,                                     /* dec ecx */
    0x75, 0xe7,                                     /* jnz l */
};

struct runner {
    pthread_t thread;
    uc_engine *uc;
    uint64_t end;
    pthread_barrier_t *start; /* all engines begin together */
    uc_err result;
};

static void *run_engine(void *arg)
{
    struct runner *r = arg;
    pthread_barrier_wait(r->start);
    r->result = uc_emu_start(r->uc, CODE_BASE, r->end, 0, 0);
    return NULL;
}

/* Runs `code` on `engines` engines at once over `data`, with `loops` in
 * ecx and r8; in the group if `parallel`.  Returns the sum of their r9. */
static uint64_t run_engines(int engines, const uint8_t *code, size_t size, uint32_t loops,
                            uint8_t *data, bool parallel)
{
    uc_parallel_group *group = NULL;
    if (parallel)
        assert_int_equal(uc_parallel_group_open(&group), UC_ERR_OK);
    struct runner runners[ENGINES];
    assert_true(engines <= ENGINES);
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, (unsigned)engines), 0);
    for (int i = 0; i < engines; i++) {
        uc_engine *uc = NULL;
        assert_int_equal(uc_open(UC_ARCH_X86, UC_MODE_64, &uc), UC_ERR_OK);
        if (parallel)
            assert_int_equal(uc_ctl_parallel_group(uc, group), UC_ERR_OK);
        assert_int_equal(uc_mem_map(uc, CODE_BASE, 0x1000, UC_PROT_ALL), UC_ERR_OK);
        assert_int_equal(uc_mem_write(uc, CODE_BASE, code, size), UC_ERR_OK);
        assert_int_equal(uc_mem_map_ptr(uc, DATA_BASE, DATA_SIZE, UC_PROT_READ | UC_PROT_WRITE, data),
                         UC_ERR_OK);
        uint64_t rsi = DATA_BASE, count = loops;
        assert_int_equal(uc_reg_write(uc, UC_X86_REG_RSI, &rsi), UC_ERR_OK);
        assert_int_equal(uc_reg_write(uc, UC_X86_REG_RCX, &count), UC_ERR_OK);
        assert_int_equal(uc_reg_write(uc, UC_X86_REG_R8, &count), UC_ERR_OK);
        runners[i] = (struct runner){ .uc = uc, .end = CODE_BASE + size, .start = &start };
    }
    for (int i = 0; i < engines; i++)
        assert_int_equal(pthread_create(&runners[i].thread, NULL, run_engine, &runners[i]), 0);
    for (int i = 0; i < engines; i++) {
        assert_int_equal(pthread_join(runners[i].thread, NULL), 0);
        assert_int_equal(runners[i].result, UC_ERR_OK);
    }
    assert_int_equal(pthread_barrier_destroy(&start), 0);
    uint64_t r9_sum = 0;
    for (int i = 0; i < engines; i++) {
        uint64_t r9 = 0;
        assert_int_equal(uc_reg_read(runners[i].uc, UC_X86_REG_R9, &r9), UC_ERR_OK);
        r9_sum += r9;
    }
    if (parallel)
        assert_int_equal(uc_parallel_group_close(group), UC_ERR_ARG); /* still used */
    for (int i = 0; i < engines; i++)
        assert_int_equal(uc_close(runners[i].uc), UC_ERR_OK);
    if (parallel)
        assert_int_equal(uc_parallel_group_close(group), UC_ERR_OK);
    return r9_sum;
}

static uint64_t run_all(const uint8_t *code, size_t size, uint32_t loops, uint8_t *data,
                        bool parallel)
{
    return run_engines(ENGINES, code, size, loops, data, parallel);
}

static uint8_t *new_data(void)
{
    void *data = NULL;
    assert_int_equal(posix_memalign(&data, 4096, DATA_SIZE), 0);
    memset(data, 0, DATA_SIZE);
    return data;
}

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static void lock_add(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    run_all(code_lock_add, sizeof(code_lock_add), 1000000, data, true);
    assert_int_equal(load64(data), ENGINES * 1000000ull);
    free(data);
}

static void cmpxchg_loop(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    run_all(code_cas, sizeof(code_cas), 300000, data, true);
    assert_int_equal(load64(data), ENGINES * 300000ull);
    free(data);
}

/* Two engines only: a spinning engine burns its host time slice while
 * the holder waits for a core, and more engines than cores turn every
 * hand-over into a scheduler round on a loaded host. */
static void xchg_spin_lock(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    run_engines(2, code_spin, sizeof(code_spin), 20000, data, true);
    assert_int_equal(load32(data), 0);
    assert_int_equal(load64(data + 8), 2 * 20000ull);
    free(data);
}

/* Unicorn 2.1.1's xchg helper was a load and a store. */
static void xchg_tokens(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    uint64_t taken = run_all(code_xchg_tokens, sizeof(code_xchg_tokens), 1000000, data, true);
    assert_int_equal(taken + load32(data), ENGINES * 1000000ull);
    free(data);
}

static void cmpxchg16b_loop(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    run_all(code_cx16, sizeof(code_cx16), 100000, data, true);
    assert_int_equal(load64(data), ENGINES * 100000ull);
    assert_int_equal(load64(data + 8), ENGINES * 100000ull);
    free(data);
}

/* Misaligned locked accesses leave the block with EXCP_ATOMIC and run
 * with the other engines stopped. */
static void split_locked(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    run_all(code_split, sizeof(code_split), 20000, data, true);
    assert_int_equal(load32(data + 0xffe), ENGINES * 20000u);
    assert_int_equal(load32(data + 0x1005), ENGINES * 20000u);
    free(data);
}

/* The control: the same lock add outside a group. */
static void serial_control(void **state)
{
    (void)state;
    uint8_t *data = new_data();
    run_all(code_lock_add, sizeof(code_lock_add), 2000000, data, false);
    uint64_t want = ENGINES * 2000000ull, got = load64(data);
    print_message("outside a group, %d engines lost %llu of %llu lock adds\n", ENGINES,
                  (unsigned long long)(want - got), (unsigned long long)want);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lock_add),     cmocka_unit_test(cmpxchg_loop),
        cmocka_unit_test(xchg_tokens),  cmocka_unit_test(xchg_spin_lock),
        cmocka_unit_test(cmpxchg16b_loop),
        cmocka_unit_test(split_locked), cmocka_unit_test(serial_control),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
