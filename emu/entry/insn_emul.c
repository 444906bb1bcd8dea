#include "emu/entry/insn_emul.h"

#include <string.h>
#include <time.h>

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/entry/exception.h"
#include "emu/entry/trap.h"

/* rdtscp: the time-stamp counter plus TSC_AUX, which Linux sets to the CPU
 * number (node << 12 | cpu); one CPU here.  Like rdtsc it faults (#GP,
 * SIGSEGV) once strict mode turned the counter off. */
static void rdtscp(struct task *t, uint64_t pc)
{
    if (t->tsc_off) {
        exception_raise(t, X86_TRAP_GP_LINUX, 0, 0);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t tsc = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    cpu_set_reg(t->cpu, UC_X86_REG_RAX, (uint32_t)tsc);
    cpu_set_reg(t->cpu, UC_X86_REG_RDX, (uint32_t)(tsc >> 32));
    cpu_set_reg(t->cpu, UC_X86_REG_RCX, 0);
    cpu_set_pc(t->cpu, pc + 3);
}

bool insn_emulate_invalid(struct task *t, uint64_t pc)
{
    uint8_t op = 0, vec = 0;
    if (mm_read(t->mm, pc, &op, 1) && op == 0xcd && mm_read(t->mm, pc + 1, &vec, 1)) {
        /* `int $6` arrives as #UD, not through the interrupt hook. */
        exception_int_n(t, vec);
        return true;
    }
    if (op == 0xf1) {
        /* icebp (int1): a debug trap after the instruction, SIGTRAP. */
        cpu_set_pc(t->cpu, pc + 1);
        exception_raise(t, X86_TRAP_DB_LINUX, pc + 1, 0);
        return true;
    }
    uint8_t b[3];
    if (!mm_read(t->mm, pc, b, sizeof(b)))
        return false;
    if (b[0] == 0x0f && b[1] == 0x34)
        return trap_sysenter_long(t, pc);
    static const uint8_t rdtscp_op[] = { 0x0f, 0x01, 0xf9 };
    if (!memcmp(b, rdtscp_op, 3)) {
        rdtscp(t, pc);
        return true;
    }
    return false;
}
