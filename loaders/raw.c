#include "loaders/raw.h"

#include <string.h>

#include "abi/linux.h"
#include "emu/kernel/task.h"
#include "loaders/stack.h"

#define X64 "0x%" G_GINT64_MODIFIER "x"

/* Room the initial stack pointer leaves above it: argc = 0, then the NULL
 * ending argv, envp and a lone AT_NULL pair, all zero words. */
#define RAW_SP_GAP 64

static err_t check_image(const char *what, uint64_t len)
{
    if (len > RAW_IMAGE_MAX)
        return err_new("the %s image is %" G_GUINT64_FORMAT " bytes, more than the %" G_GUINT64_FORMAT
                       " MiB a raw image may have", what, len, RAW_IMAGE_MAX >> 20);
    return OK;
}

/* [addr, addr + len) rounded to pages must lie in user space below the
 * stack; *end receives the rounded end. */
static err_t check_range(const char *what, uint64_t addr, uint64_t len, const struct raw_layout *l,
                         uint64_t *end)
{
    if (addr & (PAGE_SIZE_LINUX - 1))
        return err_new("the %s address " X64 " is not page aligned", what, addr);
    uint64_t limit = l->stack_hi;
    if (addr < RAW_MIN_ADDR || addr >= limit || PAGE_ALIGN_LINUX(len) > limit - addr)
        return err_new("the %s (" X64 "-" X64 ") lies outside the %s address space", what, addr,
                       addr + len, l->is64 ? "x86_64" : "i386");
    *end = addr + PAGE_ALIGN_LINUX(len);
    if (*end > l->stack_lo)
        return err_new("the %s (" X64 "-" X64 ") overlaps the stack (" X64 "-" X64 ")", what,
                       addr, addr + len, l->stack_lo, l->stack_hi);
    return OK;
}

err_t raw_plan(const struct raw_request *rq, uint64_t text_len, uint64_t data_len,
               struct raw_layout *out)
{
    memset(out, 0, sizeof(*out));
    out->is64 = rq->is64;
    if (text_len == 0)
        return err_new("the text image is empty");
    err_t e;
    if ((e = check_image("text", text_len)) || (e = check_image("data", data_len)))
        return e;
    if (rq->stack_size == 0 || rq->stack_size > RAW_STACK_MAX)
        return err_new("a stack of %" G_GUINT64_FORMAT " bytes: give 1 to %" G_GUINT64_FORMAT
                       " bytes", rq->stack_size, RAW_STACK_MAX);
    out->stack_hi = TASK_SIZE_LINUX(rq->is64);
    out->stack_lo = out->stack_hi - PAGE_ALIGN_LINUX(rq->stack_size);
    out->sp = out->stack_hi - RAW_SP_GAP;

    uint64_t text_end, data_end;
    if ((e = check_range("text", rq->text_addr, text_len, out, &text_end)))
        return e;
    out->text_addr = rq->text_addr;
    out->text_len = text_len;
    if (data_len) {
        if ((e = check_range("data", rq->data_addr, data_len, out, &data_end)))
            return e;
        if (rq->data_addr < text_end && rq->text_addr < data_end)
            return err_new("the text (" X64 "-" X64 ") and the data (" X64 "-" X64 ") overlap",
                           rq->text_addr, rq->text_addr + text_len, rq->data_addr,
                           rq->data_addr + data_len);
        out->data_addr = rq->data_addr;
        out->data_len = data_len;
    }
    out->entry = rq->entry_set ? rq->entry : rq->text_addr;
    if (out->entry < rq->text_addr || out->entry - rq->text_addr >= text_len)
        return err_new("the entry " X64 " is outside the text (" X64 "-" X64 ")", out->entry,
                       rq->text_addr, rq->text_addr + text_len);
    return OK;
}

static err_t map_image(struct task *t, uint64_t addr, uint64_t len, int prot, const char *name,
                       const uint8_t *bytes)
{
    uint8_t *host;
    err_t e = mm_map_fixed(t->mm, addr, len, prot, name, &host);
    if (e)
        return e;
    if (bytes)
        memcpy(host, bytes, len);
    return OK;
}

err_t raw_load(struct task *t, const struct raw_layout *l, const uint8_t *text,
               const uint8_t *data)
{
    err_t e;
    if ((e = map_image(t, l->text_addr, l->text_len, PROT_READ_LINUX | PROT_EXEC_LINUX,
                       "[raw text]", text)))
        return e;
    if (l->data_len && (e = map_image(t, l->data_addr, l->data_len,
                                      PROT_READ_LINUX | PROT_WRITE_LINUX, "[raw data]", data)))
        return e;
    return map_image(t, l->stack_lo, l->stack_hi - l->stack_lo,
                     PROT_READ_LINUX | PROT_WRITE_LINUX, STACK_VMA_NAME, NULL);
}
