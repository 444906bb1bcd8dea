#include "emu/kernel/tls.h"

#include <string.h>

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/task.h"

/* struct user_desc: entry_number, base_addr, limit, then the flag bits. */
struct user_desc_fields {
    uint32_t base, limit;
    unsigned seg_32bit, contents, read_exec_only, limit_in_pages, seg_not_present, useable;
};

static struct user_desc_fields fields_of(const uint32_t u[4])
{
    uint32_t f = u[3];
    return (struct user_desc_fields){ u[1], u[2], f & 1, (f >> 1) & 3, (f >> 3) & 1,
                                      (f >> 4) & 1, (f >> 5) & 1, (f >> 6) & 1 };
}

/* LDT_empty(): the documented way to ask for no segment. */
static bool desc_empty(const struct user_desc_fields *i)
{
    return i->base == 0 && i->limit == 0 && i->contents == 0 && i->read_exec_only == 1 &&
           i->seg_32bit == 0 && i->limit_in_pages == 0 && i->seg_not_present == 1 &&
           i->useable == 0;
}

/* LDT_zero(): an all-zero user_desc, which programs also mean as none. */
static bool desc_zero(const struct user_desc_fields *i)
{
    return i->base == 0 && i->limit == 0 && i->contents == 0 && i->read_exec_only == 0 &&
           i->seg_32bit == 0 && i->limit_in_pages == 0 && i->seg_not_present == 0 &&
           i->useable == 0;
}

/* fill_ldt(): the accessed bit preset (the table is read-only to the CPU),
 * DPL 3, never the L bit. */
static void fill_desc(uint8_t d[8], const struct user_desc_fields *i)
{
    uint32_t lo = (i->limit & 0xffff) | ((i->base & 0xffff) << 16);
    uint32_t type = ((i->read_exec_only ^ 1) << 1) | (i->contents << 2) | 1;
    uint32_t hi = ((i->base >> 16) & 0xff) | (type << 8) | (1u << 12) | (3u << 13) |
                  ((i->seg_not_present ^ 1) << 15) | (i->limit & 0xf0000) | (i->useable << 20) |
                  (i->seg_32bit << 22) | (i->limit_in_pages << 23) | (i->base & 0xff000000);
    memcpy(d, &lo, 4);
    memcpy(d + 4, &hi, 4);
}

/* tls_desc_okay(): 32-bit, present data segments only (or none). */
static bool tls_desc_okay(const struct user_desc_fields *i)
{
    if (desc_empty(i) || desc_zero(i))
        return true;
    return i->seg_32bit && i->contents <= 1 && !i->seg_not_present;
}

int tls_read_user_desc(struct task *t, uint64_t up, bool can_allocate, int *index,
                       uint8_t desc[8])
{
    uint32_t u[4];
    if (!mm_read(t->mm, up, u, sizeof(u)))
        return -EFAULT_LINUX;
    struct user_desc_fields i = fields_of(u);
    if (!tls_desc_okay(&i))
        return -EINVAL_LINUX;
    int idx = (int32_t)u[0];
    if (idx == -1 && can_allocate) {
        for (int k = 0; k < GDT_ENTRY_TLS_ENTRIES_LINUX; k++) {
            static const uint8_t zero[8];
            if (!memcmp(t->tls[k], zero, 8)) {
                idx = GDT_ENTRY_TLS_MIN_LINUX + k;
                break;
            }
        }
        if (idx == -1)
            return -ESRCH_LINUX;
        u[0] = (uint32_t)idx;
        if (!mm_write(t->mm, up, &u[0], 4))
            return -EFAULT_LINUX;
    }
    if (idx < GDT_ENTRY_TLS_MIN_LINUX || idx >= GDT_ENTRY_TLS_MIN_LINUX + GDT_ENTRY_TLS_ENTRIES_LINUX)
        return -EINVAL_LINUX;
    memset(desc, 0, 8);
    if (!desc_empty(&i) && !desc_zero(&i))
        fill_desc(desc, &i);
    *index = idx;
    return 0;
}

/* Write what can be written of `len` bytes (`src` NULL: zeroes) at `addr`,
 * as copy_to_user() and clear_user() do up to the first byte they cannot
 * store: false if that was short. */
static bool put_prefix(struct task *t, uint64_t addr, const uint8_t *src, uint64_t len)
{
    uint64_t ok = mm_user_prefix(t->mm, addr, len, PROT_WRITE_LINUX);
    for (uint64_t done = 0; done < ok;) {
        static const uint8_t zero[4096];
        uint64_t n = src ? ok - done : MIN(ok - done, sizeof(zero));
        if (!mm_write(t->mm, addr + done, src ? src + done : zero, n))
            return false;
        done += n;
    }
    return ok == len;
}

/* read_ldt(): the table, cut or padded with zeroes to `bytecount` (at most
 * the 64 KiB of LDT_ENTRIES); 0 with no table. */
static int read_ldt(struct task *t, uint64_t ptr, uint64_t bytecount)
{
    unsigned n;
    const uint8_t *table = cpu_ldt(t->cpu, &n);
    if (!table)
        return 0;
    if (bytecount > LDT_ENTRIES_LINUX * 8)
        bytecount = LDT_ENTRIES_LINUX * 8;
    uint64_t size = MIN((uint64_t)n * 8, bytecount);
    if (!put_prefix(t, ptr, table, size) || !put_prefix(t, ptr + size, NULL, bytecount - size))
        return -EFAULT_LINUX;
    return (int)bytecount;
}

/* read_default_ldt(): 128 zero bytes on a 64-bit kernel. */
static int read_default_ldt(struct task *t, uint64_t ptr, uint64_t bytecount)
{
    if (bytecount > 128)
        bytecount = 128;
    return put_prefix(t, ptr, NULL, bytecount) ? (int)bytecount : -EFAULT_LINUX;
}

/* write_ldt(): one entry, the table growing to hold it.  `oldmode` (func
 * 1) clears an entry whose base and limit are 0, and never sets AVL. */
static int write_ldt(struct task *t, uint64_t ptr, uint64_t bytecount, bool oldmode)
{
    uint32_t u[4];
    if (bytecount != sizeof(u))
        return -EINVAL_LINUX;
    if (!mm_read(t->mm, ptr, u, sizeof(u)))
        return -EFAULT_LINUX;
    struct user_desc_fields i = fields_of(u);
    if (u[0] >= LDT_ENTRIES_LINUX)
        return -EINVAL_LINUX;
    if (i.contents == 3 && (oldmode || !i.seg_not_present))
        return -EINVAL_LINUX;
    uint8_t d[8] = { 0 };
    if (!((oldmode && !i.base && !i.limit) || desc_empty(&i))) {
        /* 16-bit segments are allowed (CONFIG_X86_16BIT, espfix64). */
        if (oldmode)
            i.useable = 0;
        fill_desc(d, &i);
    }
    unsigned n;
    cpu_ldt(t->cpu, &n);
    uint8_t *table;
    err_t e = cpu_ldt_resize(t->cpu, MAX(n, u[0] + 1), &table);
    if (e) {
        err_free(e);
        return -ENOMEM_LINUX; /* alloc_ldt_struct() */
    }
    memcpy(table + (size_t)u[0] * 8, d, 8);
    cpu_refresh_ldt_segments(t->cpu);
    return 0;
}

int64_t ldt_modify(struct task *t, int func, uint64_t ptr, uint64_t bytecount)
{
    int r = -ENOSYS_LINUX;
    switch (func) {
    case 0: r = read_ldt(t, ptr, bytecount); break;
    case 1: r = write_ldt(t, ptr, bytecount, true); break;
    case 2: r = read_default_ldt(t, ptr, bytecount); break;
    case 0x11: r = write_ldt(t, ptr, bytecount, false); break;
    }
    /* The 64-bit entry returns the int as unsigned int: an error reaches
     * a 64-bit caller as 2^32 - errno, not -errno. */
    return (int64_t)(uint32_t)r;
}
