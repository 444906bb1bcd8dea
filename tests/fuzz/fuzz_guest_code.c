/* libFuzzer harness: arbitrary bytes run as guest code in strict mode.
 * Byte 0 picks the ABI and vendor, the rest is the code page.  Limits are
 * small (a few thousand instructions, a timeout) so every input ends.
 * Checked: seccomp-emu never crashes, the mode never leaves strict, and
 * every call that ran was one the entry's strict list names. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/seccomp.h"
#include "emu/entry/trap.h"

#define CODE_AT 0x400000ull
#define STACK_AT 0x7f000000ull
#define STACK_LEN 0x10000ull
#define MAX_INSNS 4000
#define TIMEOUT_US 200000

static void strict_observer(struct task *t, const struct trap_event *ev)
{
    if (ev->mode == MODE_DISABLED)
        abort(); /* strict mode was on before the first instruction */
    if (!ev->verdict || !verdict_runs(ev->verdict))
        return;
    /* The 2.6.11 profile judges by personality on purpose (CVE-2009-0835):
     * there the number is named in the personality's table. */
    const struct abi *abi = t->profile == PROFILE_2611 ? t->personality : abi_for_entry(ev->entry);
    const char *name = abi_call_name(abi, ev->nr);
    static const char *const ok[] = { "read", "write", "exit", "rt_sigreturn", "sigreturn" };
    for (size_t i = 0; name && i < sizeof(ok) / sizeof(ok[0]); i++)
        if (!strcmp(name, ok[i]))
            return;
    fprintf(stderr, "strict mode let %s (%lld) through\n", name ? name : "?", (long long)ev->nr);
    abort();
}

static int devnull = -1;

static void die_on(err_t e, const char *what)
{
    if (e) {
        fprintf(stderr, "fuzz_guest_code: %s: %s\n", what, e);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 4096)
        return 0;
    if (devnull < 0)
        devnull = open("/dev/null", O_RDWR);
    struct task *tp = task_new_initial();
#define t (*tp)
    bool is64 = data[0] & 1;
    t.vendor = (data[0] & 2) ? VENDOR_AMD : VENDOR_INTEL;
    t.profile = (data[0] & 4) ? PROFILE_2611 : PROFILE_LINUX;
    t.quiet = true;
    task_init_rlimits(&t);
    for (int fd = 0; fd < 3; fd++)
        t.fds->fd[fd] = (struct gfd){ .kind = GFD_HOST, .host = devnull };
    /* No signal_setup(): its timer thread is not needed, uc_emu_start's
     * limits bound a run. */
    die_on(task_open_engine(&t, is64), "task_open_engine");
    t.mm->mmap_base = STACK_AT;
    uint8_t *code;
    die_on(mm_map_fixed(t.mm, CODE_AT, 4096, PROT_READ_LINUX | PROT_EXEC_LINUX, "[code]", &code),
           "map code");
    memcpy(code, data + 1, size - 1);
    die_on(mm_map_fixed(t.mm, STACK_AT, STACK_LEN, PROT_READ_LINUX | PROT_WRITE_LINUX, "[stack]",
                        NULL),
           "map stack");
    uint64_t start;
    die_on(trap_install(t.cpu), "trap_install");
    die_on(cpu_prepare_user(t.cpu, CODE_AT, STACK_AT + STACK_LEN - 256, &start), "prepare");
    seccomp_enter_strict(&t);
    trap_observer = strict_observer;
    uint64_t pc = start;
    for (int round = 0; round < 4 && t.state == TASK_RUNNING; round++) {
        uc_err e = uc_emu_start(t.cpu->uc, pc, t.mm->layout.halt, TIMEOUT_US, MAX_INSNS);
        if (t.state != TASK_RUNNING || e != UC_ERR_OK)
            break;
        pc = cpu_pc(t.cpu);
        if (pc == t.mm->layout.halt)
            abort(); /* user code must never reach the kernel's halt stub */
    }
    if (t.mode == MODE_DISABLED)
        abort();
    task_destroy(tp);
#undef t
    return 0;
}
