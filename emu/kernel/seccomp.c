#include "emu/kernel/seccomp.h"

#include <stdio.h>
#include <string.h>

#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/observe.h"
#include "emu/kernel/task.h"


struct verdict seccomp_check(const struct task *t, enum entry e, int64_t nr)
{
    struct verdict v = { .allow = true, .list = NULL };
    if (t->mode == MODE_DISABLED)
        return v;
    /* Linux >= 2.6.29 picks the list from the entry path; an x32 number on
     * the 64-bit entry is a compat call and meets the ia32 list. */
    const struct abi *by_entry = abi_for_entry(e);
    if (e == ENTRY_SYSCALL64 && (nr & X32_SYSCALL_BIT_LINUX))
        by_entry = &abi_ia32;
    bool entry_ok = abi_in_strict_list(by_entry, nr);
    if (t->profile == PROFILE_2611) {
        /* The seed patch looked at TIF_IA32 instead: CVE-2009-0835. */
        v.list = t->personality;
        v.allow = abi_in_strict_list(t->personality, nr);
        v.cve_2009_0835 = v.allow && !entry_ok;
    } else {
        v.list = by_entry;
        v.allow = entry_ok;
    }
    return v;
}

static void enter_strict(struct task *t, enum strict_via via)
{
    int from = t->mode;
    t->mode = MODE_STRICT;
    cpu_disable_tsc(t);
    observe_mode(t, &(struct mode_event){ .from = from, .to = MODE_STRICT, .via = via });
}

void seccomp_enter_strict(struct task *t) { enter_strict(t, VIA_START); }

/* SECCOMP_SET_MODE_FILTER, reached from seccomp(2) and from prctl.  The
 * kernel copies the program before checking anything else; an unreadable
 * one is -EFAULT.  Filters themselves are not emulated: a readable one
 * answers -EINVAL. */
static int64_t set_mode_filter(struct task *t, unsigned flags, uint64_t uprog)
{
    if (flags & ~0x3fu) /* SECCOMP_FILTER_FLAG_MASK */
        return -EINVAL_LINUX;
    bool compat = t->call_abi ? t->call_abi->bits == 32 : t->personality->bits == 32;
    if (compat)
        uprog = (uint32_t)uprog;
    uint8_t fprog[16];
    if (!mm_read(&t->mm, uprog, fprog, compat ? 8 : 16))
        return -EFAULT_LINUX;
    return -EINVAL_LINUX;
}

int64_t seccomp_prctl(struct task *t, const uint64_t a[6])
{
    int option = (int)a[0];
    /* 2.6.11 had no prctl interface to seccomp at all. */
    if (t->profile == PROFILE_2611)
        return -EINVAL_LINUX;
    switch (option) {
    case PR_GET_SECCOMP_LINUX:
        return t->mode;
    case PR_SET_SECCOMP_LINUX:
        if ((unsigned long)a[1] == 2) /* SECCOMP_MODE_FILTER */
            return set_mode_filter(t, 0, a[2]);
        if ((unsigned long)a[1] != SECCOMP_MODE_STRICT_LINUX)
            return -EINVAL_LINUX;
        enter_strict(t, VIA_PRCTL);
        return 0;
    default:
        return -EINVAL_LINUX;
    }
}

int64_t seccomp_syscall(struct task *t, const uint64_t a[6])
{
    if (t->profile == PROFILE_2611)
        return -ENOSYS_LINUX;
    switch ((unsigned)a[0]) {
    case SECCOMP_SET_MODE_STRICT_LINUX:
        if ((unsigned)a[1] != 0 || a[2] != 0)
            return -EINVAL_LINUX;
        enter_strict(t, VIA_SECCOMP);
        return 0;
    case SECCOMP_SET_MODE_FILTER_LINUX:
        return set_mode_filter(t, (unsigned)a[1], a[2]);
    case SECCOMP_GET_ACTION_AVAIL_LINUX:
    case SECCOMP_GET_NOTIF_SIZES_LINUX:
        return -EINVAL_LINUX;
    default:
        return -EINVAL_LINUX;
    }
}

size_t seccomp_proc_render(int mode, char out[24])
{
    int n = snprintf(out, 24, "%u\n", (unsigned)mode);
    return (size_t)n + 1; /* the seed's read includes the NUL */
}

int64_t seccomp_proc_read(struct task *t, uint64_t *pos, uint64_t buf, uint64_t count)
{
    char text[24];
    /* A dead task does not read; the mode shown is the one set. */
    size_t len = seccomp_proc_render(t->mode == MODE_DEAD ? MODE_STRICT : t->mode, text);
    if (*pos >= len)
        return 0;
    if (count > len - *pos)
        count = len - *pos;
    if (!mm_write(&t->mm, buf, text + *pos, count))
        return -EFAULT_LINUX;
    *pos += count;
    return (int64_t)count;
}

/* simple_strtoul(buf, &end, 0) as the 2.6 kernel had it: optional 0x/0
 * prefix, no sign, no leading space, stops at the first non-digit. */
static size_t strtoul_base0(const char *s, size_t n, unsigned long *out)
{
    size_t i = 0;
    unsigned base = 10;
    unsigned long v = 0;
    if (n > 0 && s[0] == '0') {
        base = 8;
        i = 1;
        if (n > 2 && s[1] == 'x' && g_ascii_isxdigit(s[2])) { /* 2.6's: lowercase only */
            base = 16;
            i = 2;
        }
    }
    for (; i < n; i++) {
        int d = g_ascii_xdigit_value(s[i]);
        if (d < 0 || (unsigned)d >= base)
            break;
        v = v * base + (unsigned)d;
    }
    *out = v;
    return i;
}

size_t seccomp_proc_parse(const char *buf, size_t count, unsigned long *mode)
{
    char local[20] = { 0 };
    size_t n = MIN(count, sizeof(local) - 1);
    memcpy(local, buf, n);
    size_t end = strtoul_base0(local, n, mode);
    if (end < n && local[end] == '\n')
        end++;
    return end;
}

int64_t seccomp_proc_write(struct task *t, uint64_t buf, uint64_t count)
{
    if (t->mode != MODE_DISABLED)
        return -EPERM_LINUX; /* settable only once */
    char local[20] = { 0 };
    size_t n = MIN(count, sizeof(local) - 1);
    if (!mm_read(&t->mm, buf, local, n))
        return -EFAULT_LINUX;
    unsigned long mode;
    size_t used = seccomp_proc_parse(local, n, &mode);
    if (used == 0)
        return -EIO_LINUX;
    if (mode >= 1 && mode <= NR_SECCOMP_MODES_LINUX)
        enter_strict(t, VIA_PROC);
    return (int64_t)used;
}
