#include "emu/kernel/rseq.h"

#include "abi/bytes_le.h"
#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/engine/uctx.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"

#define RSEQ_FLAG_UNREGISTER_LINUX 1
/* struct rseq's fields */
#define RSEQ_CPU_ID_START 0
#define RSEQ_CPU_ID 4
#define RSEQ_CS 8
#define RSEQ_FLAGS 16
#define RSEQ_NODE_ID 20
#define RSEQ_CPU_ID_UNINITIALIZED_LINUX 0xffffffffu /* -1 */

/* The CPU, node and concurrency id the thread sees: the one CPU. */
static bool update_cpu_node_id(struct task *t)
{
    static const uint8_t zero[8] = { 0 };
    return mm_write(t->mm, t->rseq_addr + RSEQ_CPU_ID_START, zero, 8) &&
           mm_write(t->mm, t->rseq_addr + RSEQ_NODE_ID, zero, 8);
}

/* rseq_reset_rseq_cpu_node_id(): what an unregistered area shows. */
static bool reset_cpu_node_id(struct task *t)
{
    uint8_t f[8];
    put_le32(f, 0);
    put_le32(f + 4, RSEQ_CPU_ID_UNINITIALIZED_LINUX);
    uint8_t z[8] = { 0 };
    return mm_write(t->mm, t->rseq_addr + RSEQ_CPU_ID_START, f, 8) &&
           mm_write(t->mm, t->rseq_addr + RSEQ_NODE_ID, z, 8);
}

static void force_sigsegv(struct task *t, const char *why)
{
    signal_fault_why(t, SIGSEGV_LINUX, SI_KERNEL_LINUX, 0, 0, 0, why);
}

int64_t rseq_call(struct task *t, uint64_t addr, uint32_t len, int flags, uint32_t sig)
{
    if (flags & RSEQ_FLAG_UNREGISTER_LINUX) {
        if (flags & ~RSEQ_FLAG_UNREGISTER_LINUX)
            return -EINVAL_LINUX;
        if (!t->rseq_addr || t->rseq_addr != addr || len != t->rseq_len)
            return -EINVAL_LINUX;
        if (sig != t->rseq_sig)
            return -EPERM_LINUX;
        if (!reset_cpu_node_id(t))
            return -EFAULT_LINUX;
        t->rseq_addr = 0;
        t->rseq_len = t->rseq_sig = 0;
        return 0;
    }
    if (flags)
        return -EINVAL_LINUX;
    if (t->rseq_addr) {
        if (t->rseq_addr != addr || len != t->rseq_len)
            return -EINVAL_LINUX;
        if (sig != t->rseq_sig)
            return -EPERM_LINUX;
        return -EBUSY_LINUX;
    }
    /* The original 32-byte size aligned to 32, or one that holds every
     * field this kernel fills, aligned as the structure is. */
    if (len < RSEQ_ORIG_SIZE_LINUX ||
        (len == RSEQ_ORIG_SIZE_LINUX && (addr & (RSEQ_ORIG_SIZE_LINUX - 1))) ||
        (len != RSEQ_ORIG_SIZE_LINUX &&
         ((addr & (RSEQ_ALIGN_LINUX - 1)) || len < RSEQ_FEATURE_SIZE_LINUX)))
        return -EINVAL_LINUX;
    if (addr > TASK_SIZE_64_LINUX || len > TASK_SIZE_64_LINUX - addr)
        return -EFAULT_LINUX; /* access_ok() */
    t->rseq_addr = addr;
    t->rseq_len = len;
    t->rseq_sig = sig;
    /* The fields are filled before the call returns; an area that cannot
     * be written is refused (Linux 6.18; 6.12 accepted it and killed the
     * thread with SIGSEGV on the way out). */
    if (!update_cpu_node_id(t)) {
        t->rseq_addr = 0;
        t->rseq_len = t->rseq_sig = 0;
        return -EFAULT_LINUX;
    }
    return 0;
}

/* rseq_get_rseq_cs() and rseq_ip_fixup(): 0, or the abort_ip to resume
 * at (*abort), or -1 for a broken registration. */
static int ip_fixup(struct task *t, uint64_t ip, bool event, uint64_t *abort)
{
    uint64_t cs;
    uint8_t raw[8];
    if (!mm_read(t->mm, t->rseq_addr + RSEQ_CS, raw, 8))
        return -1;
    cs = get_le64(raw);
    if (!cs)
        return 0;
    uint64_t task_size = TASK_SIZE_LINUX(t->is64);
    if (cs >= task_size)
        return -1;
    /* struct rseq_cs: u32 version, u32 flags, u64 start_ip,
     * post_commit_offset, abort_ip */
    uint8_t c[32];
    if (!mm_read(t->mm, cs, c, sizeof(c)))
        return -1;
    uint32_t version = get_le32(c), cs_flags = get_le32(c + 4);
    uint64_t start = get_le64(c + 8), post = get_le64(c + 16), abort_ip = get_le64(c + 24);
    if (start >= task_size || start + post >= task_size || abort_ip >= task_size || version > 0)
        return -1;
    if (start + post < start || abort_ip - start < post)
        return -1;
    uint8_t sigbuf[4];
    if (!mm_read(t->mm, abort_ip - 4, sigbuf, 4) || get_le32(sigbuf) != t->rseq_sig)
        return -1;
    static const uint8_t zero[8] = { 0 };
    if (ip - start >= post) /* not inside: clear_rseq_cs() */
        return mm_write(t->mm, t->rseq_addr + RSEQ_CS, zero, 8) ? 0 : -1;
    /* rseq_need_restart(): flags are deprecated, any is an error */
    if (cs_flags || !mm_read(t->mm, t->rseq_addr + RSEQ_FLAGS, raw, 4) || get_le32(raw))
        return -1;
    if (!event)
        return 0;
    if (!mm_write(t->mm, t->rseq_addr + RSEQ_CS, zero, 8))
        return -1;
    *abort = abort_ip;
    return 1;
}

/* rseq_handle_notify_resume(); `event`: preempted or signalled since the
 * thread last returned to user mode (always, for a signal: there is no
 * preemption yet, the guest's one task runs alone). */
static void notify_resume(struct task *t, struct uctx *regs, bool event, const char *why)
{
    if (!t->rseq_addr)
        return;
    uint64_t abort_ip;
    int r = ip_fixup(t, regs->ip, event, &abort_ip);
    if (r > 0)
        regs->ip = abort_ip;
    if (r < 0 || !update_cpu_node_id(t))
        force_sigsegv(t, why);
}

void rseq_signal_deliver(struct task *t, struct uctx *regs)
{
    notify_resume(t, regs, true, "rseq registration or critical section broken at a signal");
}
