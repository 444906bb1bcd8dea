#include "emu/engine/double_fault.h"

#include <string.h>

/* QEMU counts an exception as delivered, and forgets it for the
 * double-fault rule (env->old_exception = -1), only when it delivers it
 * through the IDT itself.  With the interrupt hook it never does: a second
 * #DE or #GP then becomes #DF, a third a triple fault.  No register API
 * reaches the field, so its offset in a saved context is found once, by
 * watching it take the values -1, 0 (#DE) and 8 (#DF) in a scratch
 * engine, and reset through a context save and restore after each
 * exception. */
static int probe_last;

static void probe_intr(uc_engine *uc, uint32_t intno, void *user)
{
    (void)user;
    probe_last = (int)intno;
    uc_emu_stop(uc);
}

static err_t find_old_exception(bool is64, long *offset)
{
    static const uint8_t code[] = { 0x31, 0xc9, 0xf7, 0xf1, 0xf4 }; /* xor ecx,ecx; div ecx */
    uc_engine *uc;
    err_t e = UC_TRY(uc_open(UC_ARCH_X86, is64 ? UC_MODE_64 : UC_MODE_32, &uc));
    if (e)
        return e;
    uc_context *ctx[3] = { NULL, NULL, NULL };
    uc_hook h;
    size_t size = uc_context_size(uc);
    if (!(e = UC_TRY(uc_mem_map(uc, 0x1000, 0x1000, UC_PROT_ALL))) &&
        !(e = UC_TRY(uc_mem_write(uc, 0x1000, code, sizeof(code)))) &&
        !(e = UC_TRY(uc_hook_add(uc, &h, UC_HOOK_INTR, (void *)probe_intr, NULL, 1, 0)))) {
        for (int i = 0; i < 3 && !e; i++) {
            if ((e = UC_TRY(uc_context_alloc(uc, &ctx[i]))))
                break;
            if (i > 0)
                e = UC_TRY(uc_emu_start(uc, 0x1000, 0x1000 + sizeof(code) - 1, 0, 0));
            if (!e)
                e = UC_TRY(uc_context_save(uc, ctx[i]));
        }
    }
    long found = -1;
    int matches = 0;
    if (!e && probe_last == 8) {
        for (size_t off = 0; off + 4 <= size; off += 4) {
            int32_t v[3];
            for (int i = 0; i < 3; i++)
                memcpy(&v[i], (const uint8_t *)ctx[i] + off, 4);
            if (v[0] == -1 && v[1] == 0 && v[2] == 8) {
                found = (long)off;
                matches++;
            }
        }
    }
    for (int i = 0; i < 3; i++)
        if (ctx[i])
            uc_context_free(ctx[i]);
    uc_close(uc);
    if (e)
        return e;
    if (matches != 1)
        return err_new("cannot locate the CPU's double-fault state in this Unicorn build");
    *offset = found;
    return OK;
}

static long old_exception_at = -1;
static uc_context *scratch_ctx;

err_t cpu_forget_exception(struct cpu *c)
{
    static const int32_t none = -1;
    err_t e;
    /* Found on first need: most programs never take an exception, and the
     * probe's scratch engine costs half a millisecond of start-up. */
    if (old_exception_at < 0 && ((e = find_old_exception(c->is64, &old_exception_at)) ||
                                 (e = UC_TRY(uc_context_alloc(c->uc, &scratch_ctx)))))
        return e;
    if ((e = UC_TRY(uc_context_save(c->uc, scratch_ctx))))
        return e;
    memcpy((uint8_t *)scratch_ctx + old_exception_at, &none, 4);
    return UC_TRY(uc_context_restore(c->uc, scratch_ctx));
}
