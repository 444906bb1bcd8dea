/* The frame code on its own: siginfo layouts and tag words against the
 * Linux ABI headers (asm-generic/siginfo.h, the compat layout, FXSAVE's
 * abridged tag), and a frame built and read back, with an edit in between,
 * for each layout.  The differential tests (sigdiff.py) judge the same code
 * against the kernel; these pin the pieces down one by one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "emu/kernel/sigframe.h"
#include "abi/sigframe_linux.h"
#include "abi/signal_linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/task.h"

static uint32_t u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t u64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void siginfo_fault(void **state)
{
    (void)state;
    struct ksiginfo info = { .signo = SIGSEGV_LINUX, .code = SEGV_ACCERR_LINUX,
                             .addr = 0x123456789abcull };
    uint8_t b[128];
    sigframe_siginfo(&info, true, b);
    assert_int_equal(u32(b), SIGSEGV_LINUX);
    assert_int_equal(u32(b + 8), SEGV_ACCERR_LINUX);
    assert_int_equal(u64(b + 16), 0x123456789abcull); /* si_addr: after a 4-byte hole */
    sigframe_siginfo(&info, false, b);
    assert_int_equal(u32(b + 12), 0x56789abcu); /* compat: right after si_code */
}

static void siginfo_kill_rt_timer(void **state)
{
    (void)state;
    uint8_t b[128];
    struct ksiginfo kill = { .signo = SIGUSR1_LINUX, .code = SI_USER_LINUX, .pid = 77, .uid = 5 };
    sigframe_siginfo(&kill, true, b);
    assert_int_equal(u32(b + 16), 77);
    assert_int_equal(u32(b + 20), 5);
    struct ksiginfo q = { .signo = 40, .code = SI_QUEUE_LINUX, .pid = 9, .uid = 1, .value = 0x42 };
    sigframe_siginfo(&q, false, b);
    assert_int_equal(u32(b + 12), 9);
    assert_int_equal(u32(b + 16), 1);
    assert_int_equal(u32(b + 20), 0x42); /* sival_int */
    struct ksiginfo tm = { .signo = SIGALRM_LINUX, .code = SI_TIMER_LINUX, .tid = 3,
                           .overrun = 2, .value = 0x99 };
    sigframe_siginfo(&tm, true, b);
    assert_int_equal(u32(b + 16), 3);
    assert_int_equal(u32(b + 20), 2);
    assert_int_equal(u64(b + 24), 0x99);
    /* SI_KERNEL faults use the kill layout: no address (#GP, int3) */
    struct ksiginfo gp = { .signo = SIGSEGV_LINUX, .code = SI_KERNEL_LINUX, .addr = 0x1000 };
    sigframe_siginfo(&gp, true, b);
    assert_int_equal(u64(b + 16), 0);
}

static void tag_words(void **state)
{
    (void)state;
    /* ST0 holds 1.0, ST1 is +0, the rest empty, with TOP = 6: physical
     * registers 6 and 7 are in use. */
    struct uctx_fpu f;
    uctx_fpu_init(&f);
    f.fsw = 6 << 11;
    uint8_t one[10] = { 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f };
    memcpy(f.st[0], one, 10);
    memset(f.st[1], 0, 10);
    uint8_t abridged = 0xc0;
    uint16_t full = uctx_ftw_full(&f, abridged);
    assert_int_equal((full >> 12) & 3, 0); /* reg 6: valid */
    assert_int_equal((full >> 14) & 3, 1); /* reg 7: zero */
    assert_int_equal(full & 0xfff, 0xfff); /* regs 0-5: empty */
    assert_int_equal(uctx_ftw_abridged(full), 0xc0);
}

static void altstack(void **state)
{
    (void)state;
    struct sigaltstack_k ss = { 0x10000, 0x2000, 0 };
    assert_true(sigframe_on_altstack(&ss, 0x11000));
    assert_true(sigframe_on_altstack(&ss, 0x12000)); /* the top itself counts */
    assert_false(sigframe_on_altstack(&ss, 0x10000));
    ss.flags = SS_AUTODISARM_LINUX;
    assert_false(sigframe_on_altstack(&ss, 0x11000));
}

/* A task with a stack to build frames on. */
static struct task *task(bool is64)
{
    static struct task *t;
    task_destroy(t);
    t = task_new_initial();
    assert_null(task_open_engine(t, is64));
    assert_null(mm_map_fixed(t->mm, 0x100000, 0x10000, PROT_READ_LINUX | PROT_WRITE_LINUX,
                             "[stack]", NULL));
    return t;
}

static void round_trip(bool is64, bool rt, uint64_t xcr0)
{
    struct task *t = task(is64);
    struct uctx regs;
    memset(&regs, 0, sizeof(regs));
    for (int i = 0; i < (is64 ? UR_NREGS : 8); i++)
        regs.r[i] = 0x1000 + i;
    regs.r[UR_SP] = 0x10f000;
    regs.ip = 0x401234;
    regs.flags = 0x246;
    regs.cs = is64 ? SEL_USER_CS_LINUX : SEL_USER32_CS_LINUX;
    regs.ss = regs.ds = regs.es = SEL_USER_DS_LINUX;
    uctx_fpu_init(&regs.fpu);
    regs.fpu.mxcsr = 0x1fa0;
    regs.fpu.xmm[2][0] = 0x5a;
    regs.fpu.ymmh[3][15] = 0xa5;
    struct ksigaction ka = { .handler = 0x405000, .flags = SA_RESTORER_LINUX |
                             (rt ? SA_SIGINFO_LINUX : 0), .restorer = 0x406000 };
    struct ksiginfo info = { .signo = SIGUSR1_LINUX, .code = SI_USER_LINUX, .pid = 1 };
    struct sigframe_in in = { .sig = SIGUSR1_LINUX, .info = &info, .ka = &ka, .regs = &regs,
                              .mask = 0x8000000000000801ull, .ss = { 0, 0, 0 },
                              .xcr0 = xcr0 };
    struct uctx entry;
    bool ok = is64 ? sigframe_x86_64_setup(t->mm, &in, &entry)
                   : sigframe_ia32_setup(t->mm, &in, rt, &entry);
    assert_true(ok);
    assert_int_equal(entry.ip, 0x405000);
    uint64_t sp = entry.r[UR_SP];
    /* At entry the stack looks as after a call: (sp + 8) % 16 == 0 on
     * x86_64, (sp + 4) % 16 == 0 on i386; the return address is the
     * restorer. */
    assert_int_equal((sp + (is64 ? 8 : 4)) % 16, 0);
    uint64_t ret = 0;
    assert_true(mm_read(t->mm, sp, &ret, is64 ? 8 : 4));
    assert_int_equal(ret, 0x406000);
    if (is64) {
        assert_int_equal(entry.r[UR_DI], SIGUSR1_LINUX);
        assert_int_equal(entry.r[UR_SI], entry.r[UR_SP] + 312); /* &frame->info */
    } else
        assert_int_equal(entry.r[UR_AX], SIGUSR1_LINUX);
    assert_int_equal(entry.fpu.mxcsr, 0x1f80); /* the handler starts clean */

    /* The XSAVE area: 64-byte aligned, the software-reserved bytes, the
     * header, the YMM upper halves at 576 (in use: one is not zero), and
     * MAGIC2 after the area; sigcontext's fpstate points at it (ia32: at
     * the FSAVE header 112 bytes before it). */
    uint64_t sc_at = is64 ? sp + 8 + 40 : rt ? sp + 144 + 20 : sp + 8;
    uint64_t fpstate = 0;
    assert_true(mm_read(t->mm, sc_at + (is64 ? 184 : 76), &fpstate, is64 ? 8 : 4));
    uint64_t buf_fx = fpstate + (is64 ? 0 : 112);
    assert_int_equal(buf_fx % 64, 0);
    struct xsave_ymm_linux x;
    assert_true(mm_read(t->mm, buf_fx, &x, sizeof(x)));
    uint32_t size = xcr0 & 4 ? 832 : 576;
    assert_int_equal(x.i387.sw_reserved.magic1, FP_XSTATE_MAGIC1_LINUX);
    assert_int_equal(x.i387.sw_reserved.xstate_size, size);
    assert_int_equal(x.i387.sw_reserved.extended_size, size + 4 + (is64 ? 0 : 112));
    assert_int_equal(x.i387.sw_reserved.xfeatures, xcr0);
    assert_int_equal(x.header.xfeatures, xcr0);
    assert_int_equal(x.i387.xmm_space[2][0], 0x5a);
    if (xcr0 & 4)
        assert_int_equal(x.ymmh_space[3][15], 0xa5);
    uint32_t magic2 = 0;
    assert_true(mm_read(t->mm, buf_fx + size, &magic2, 4));
    assert_int_equal(magic2, FP_XSTATE_MAGIC2_LINUX);
    assert_true(buf_fx + size + 4 <= 0x10f000);
    if (rt || is64) {
        uint64_t flags = 0;
        assert_true(mm_read(t->mm, sc_at - (is64 ? 40 : 20), &flags, is64 ? 8 : 4));
        assert_true(flags & UC_FP_XSTATE_LINUX);
    }

    /* The handler edits the saved ip (x86_64: uc_mcontext.rip at
     * uc + 40 + 128; i386 non-rt: sigcontext.eip at frame + 8 + 56; rt:
     * uc + 20 + 56), then returns through the restorer, which pops. */
    uint64_t ip_at = is64 ? sp + 8 + 40 + 128 : rt ? sp + 144 + 20 + 56 : sp + 8 + 56;
    uint64_t new_ip = 0x401240;
    assert_true(mm_write(t->mm, ip_at, &new_ip, is64 ? 8 : 4));
    struct uctx cur = entry;
    cur.r[UR_SP] = sp + (is64 ? 8 : rt ? 4 : 8); /* ret, and popl %eax for non-rt */
    struct sigreturn_out out;
    ok = is64 ? sigframe_x86_64_restore(t->mm, &cur, xcr0, &out)
              : sigframe_ia32_restore(t->mm, &cur, rt, xcr0, &out);
    assert_true(ok);
    /* The YMM upper halves come back where XCR0 has them. */
    assert_int_equal(out.regs.fpu.ymmh[3][15], xcr0 & 4 ? 0xa5 : 0);
    assert_int_equal(out.regs.ip, new_ip);
    assert_int_equal(out.mask, 0x8000000000000801ull);
    for (int i = 0; i < (is64 ? UR_NREGS : 8); i++)
        assert_int_equal(out.regs.r[i], regs.r[i]);
    assert_int_equal(out.regs.fpu.mxcsr, 0x1fa0);
    assert_int_equal(out.regs.fpu.xmm[2][0], 0x5a);
    assert_int_equal(out.regs.flags & 0xff, 0x46);
}

static void round_trip_x86_64(void **state) { (void)state; round_trip(true, true, 7); }
static void round_trip_ia32(void **state) { (void)state; round_trip(false, false, 7); }
static void round_trip_ia32_rt(void **state) { (void)state; round_trip(false, true, 7); }
static void round_trip_x86_64_sse(void **state) { (void)state; round_trip(true, true, 3); }
static void round_trip_ia32_sse(void **state) { (void)state; round_trip(false, false, 3); }

static void no_restorer_x86_64(void **state)
{
    (void)state;
    /* x86_64 has no vDSO restorer: without SA_RESTORER no frame. */
    struct task *t = task(true);
    struct uctx regs;
    memset(&regs, 0, sizeof(regs));
    regs.r[UR_SP] = 0x10f000;
    struct ksigaction ka = { .handler = 0x405000 };
    struct ksiginfo info = { .signo = SIGUSR1_LINUX };
    struct sigframe_in in = { .sig = SIGUSR1_LINUX, .info = &info, .ka = &ka, .regs = &regs };
    struct uctx entry;
    assert_false(sigframe_x86_64_setup(t->mm, &in, &entry));
}

static void unwritable_stack(void **state)
{
    (void)state;
    struct task *t = task(false);
    struct uctx regs;
    memset(&regs, 0, sizeof(regs));
    regs.r[UR_SP] = 0x10; /* nothing mapped there */
    struct ksigaction ka = { .handler = 0x405000 };
    struct ksiginfo info = { .signo = SIGSEGV_LINUX };
    struct sigframe_in in = { .sig = SIGSEGV_LINUX, .info = &info, .ka = &ka, .regs = &regs };
    struct uctx entry;
    assert_false(sigframe_ia32_setup(t->mm, &in, false, &entry));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(siginfo_fault),      cmocka_unit_test(siginfo_kill_rt_timer),
        cmocka_unit_test(tag_words),          cmocka_unit_test(altstack),
        cmocka_unit_test(round_trip_x86_64),  cmocka_unit_test(round_trip_ia32),
        cmocka_unit_test(round_trip_ia32_rt), cmocka_unit_test(round_trip_x86_64_sse),
        cmocka_unit_test(round_trip_ia32_sse), cmocka_unit_test(no_restorer_x86_64),
        cmocka_unit_test(unwritable_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
