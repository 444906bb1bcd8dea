#include "emu/kernel/tls.h"

#include <string.h>

#include "abi/linux.h"
#include "emu/kernel/task.h"

/* struct user_desc <-> GDT descriptor, as arch/x86/kernel/tls.c does it. */
static void fill_desc(uint8_t d[8], const uint32_t u[4])
{
    uint32_t base = u[1], limit = u[2], f = u[3];
    unsigned seg_32bit = f & 1, contents = (f >> 1) & 3, read_exec_only = (f >> 3) & 1,
             limit_in_pages = (f >> 4) & 1, seg_not_present = (f >> 5) & 1,
             useable = (f >> 6) & 1;
    bool empty = base == 0 && limit == 0 && contents == 0 && read_exec_only == 1 &&
                 seg_32bit == 0 && limit_in_pages == 0 && seg_not_present == 1 && useable == 0;
    memset(d, 0, 8);
    if (empty)
        return;
    uint32_t lo = (limit & 0xffff) | ((base & 0xffff) << 16);
    uint32_t type = ((read_exec_only ^ 1) << 1) | (contents << 2) | 1;
    uint32_t hi = ((base >> 16) & 0xff) | (type << 8) | (1u << 12) | (3u << 13) |
                  ((seg_not_present ^ 1) << 15) | (limit & 0xf0000) | (useable << 20) |
                  (seg_32bit << 22) | (limit_in_pages << 23) | (base & 0xff000000);
    memcpy(d, &lo, 4);
    memcpy(d + 4, &hi, 4);
}


int tls_read_user_desc(struct task *t, uint64_t up, bool can_allocate, int *index,
                       uint8_t desc[8])
{
    uint32_t u[4];
    if (!mm_read(t->mm, up, u, sizeof(u)))
        return -EFAULT_LINUX;
    int idx = (int32_t)u[0];
    if (idx == -1 && can_allocate) {
        for (int i = 0; i < GDT_ENTRY_TLS_ENTRIES_LINUX; i++) {
            static const uint8_t zero[8];
            if (!memcmp(t->tls[i], zero, 8)) {
                idx = GDT_ENTRY_TLS_MIN_LINUX + i;
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
    unsigned contents = (u[3] >> 1) & 3, not_present = (u[3] >> 5) & 1;
    if (contents == 3 && !not_present)
        return -EINVAL_LINUX; /* no conforming code segments */
    fill_desc(desc, u);
    *index = idx;
    return 0;
}
