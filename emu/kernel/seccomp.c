#include "emu/kernel/seccomp.h"

#include <stdio.h>
#include <string.h>

#include "abi/caps_linux.h"
#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/kernel/observe.h"
#include "emu/kernel/seccomp_notify.h"
#include "emu/kernel/task.h"

bpf_step_fn seccomp_bpf_step;

size_t seccomp_rank(const uint32_t *rets, size_t n)
{
    /* seccomp_run_filters(): `<` keeps the first (newest) of equals. */
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (seccomp_precedence_linux(rets[i]) < seccomp_precedence_linux(rets[best]))
            best = i;
    return best;
}

/* Every attached filter, newest first, then the ranking. */
static void run_filters(struct task *t, const struct seccomp_data_linux *data, struct verdict *v)
{
    size_t n = t->filters->len;
    g_array_set_size(t->filter_rets, n);
    uint32_t *rets = (uint32_t *)(void *)t->filter_rets->data;
    for (size_t i = 0; i < n; i++) {
        size_t index = n - 1 - i;
        const struct seccomp_filter *f = t->filters->pdata[index];
        struct filter_step step = { .t = t, .filter = index, .data = data };
        rets[i] = bpf_run(f->prog, f->len, data, seccomp_bpf_step, &step);
    }
    v->filters_run = n;
    v->rets = rets;
    v->winner = seccomp_rank(rets, n);
    v->ret = rets[v->winner];
    v->data = v->ret & SECCOMP_RET_DATA_LINUX;
    v->effect = seccomp_action_taken_linux(v->ret)->effect;
    /* What __seccomp_filter's switch makes of the call that does not run. */
    switch (v->effect) {
    case SECCOMP_EFFECT_ERRNO:
        v->result = -(int64_t)MIN(v->data, MAX_ERRNO_LINUX);
        break;
    case SECCOMP_EFFECT_NOTIFY: {
        /* seccomp_do_user_notification(): -ENOSYS unless a listener waits. */
        struct seccomp_filter *f = t->filters->pdata[n - 1 - v->winner];
        v->listener = f->notif ? f : NULL;
        v->result = -ENOSYS_LINUX;
        break;
    }
    case SECCOMP_EFFECT_TRACE:
        v->result = -ENOSYS_LINUX; /* no tracer: ptrace is not emulated */
        break;
    case SECCOMP_EFFECT_SIGNAL:
    case SECCOMP_EFFECT_KILL_THREAD:
    case SECCOMP_EFFECT_KILL_PROCESS:
        v->signo = SIGSYS_LINUX;
        break;
    case SECCOMP_EFFECT_LOG:
    case SECCOMP_EFFECT_ALLOW:
        break;
    }
}

static void check_strict(const struct task *t, enum entry e, int64_t nr, struct verdict *v)
{
    /* Linux >= 2.6.29 picks the list from the entry path; an x32 number on
     * the 64-bit entry is a compat call and meets the ia32 list. */
    const struct abi *by_entry = abi_for_entry(e);
    if (e == ENTRY_SYSCALL64 && (nr & X32_SYSCALL_BIT_LINUX))
        by_entry = &abi_ia32;
    bool entry_ok = abi_in_strict_list(by_entry, nr), allow;
    if (t->profile == PROFILE_2611) {
        /* The seed patch looked at TIF_IA32 instead: CVE-2009-0835. */
        v->list = t->personality;
        allow = abi_in_strict_list(t->personality, nr);
        v->cve_2009_0835 = allow && !entry_ok;
    } else {
        v->list = by_entry;
        allow = entry_ok;
    }
    if (!allow) {
        /* __secure_computing_strict(): do_exit(SIGKILL) of this thread. */
        v->effect = SECCOMP_EFFECT_KILL_THREAD;
        v->signo = SIGKILL_LINUX;
    }
}

struct verdict seccomp_check(struct task *t, enum entry e, const struct seccomp_data_linux *data)
{
    struct verdict v = { .effect = SECCOMP_EFFECT_ALLOW, .call = data };
    /* The filters come first: they see the call before any rule about
     * entries or personalities does. */
    if (t->filters && t->filters->len)
        run_filters(t, data, &v);
    if (verdict_runs(&v) && t->mode == MODE_STRICT) {
        int64_t nr = e == ENTRY_SYSCALL64 ? (int64_t)data->nr : (int64_t)(uint32_t)data->nr;
        check_strict(t, e, nr, &v);
    }
    return v;
}

static void enter_strict(struct task *t, enum strict_via via)
{
    int from = t->mode;
    t->mode = MODE_STRICT;
    t->tsc_off = true;
    cpu_set_tsc_off(t->cpu, true);
    observe_mode(t, &(struct mode_event){ .from = from, .to = MODE_STRICT, .via = via });
}

void seccomp_enter_strict(struct task *t) { enter_strict(t, VIA_START); }

/* seccomp_may_assign_mode(): a mode, once set, only stays. */
static bool may_assign_mode(const struct task *t, enum seccomp_mode mode)
{
    return t->mode == MODE_DISABLED || t->mode == mode;
}

struct seccomp_filter *seccomp_filter_get(struct seccomp_filter *f)
{
    f->refs++;
    return f;
}

void seccomp_filter_put(struct seccomp_filter *f)
{
    if (--f->refs > 0)
        return;
    g_free(f->prog);
    g_free(f);
}

/* A task's chain lets go of one filter: __seccomp_filter_orphan() tells
 * the listener's pollers once no task can meet it any more (POLLHUP). */
static void filter_unuse(gpointer p)
{
    struct seccomp_filter *f = p;
    if (--f->users == 0)
        waitq_wake(&f->wqh, -1);
    seccomp_filter_put(f);
}

static GPtrArray *chain_new(void) { return g_ptr_array_new_with_free_func(filter_unuse); }

static void chain_add(GPtrArray *chain, struct seccomp_filter *f)
{
    f->users++;
    g_ptr_array_add(chain, seccomp_filter_get(f));
}

GPtrArray *seccomp_filters_copy(const GPtrArray *filters)
{
    if (!filters)
        return NULL;
    GPtrArray *copy = chain_new();
    for (guint i = 0; i < filters->len; i++)
        chain_add(copy, filters->pdata[i]);
    return copy;
}

void seccomp_filter_release(struct task *t)
{
    if (t->filters)
        g_ptr_array_unref(t->filters);
    t->filters = NULL;
}

/* The other threads TSYNC acts on: every one of the caller's process that
 * has not begun to exit, in thread-list order (the leader first). */
static bool sync_target(const struct task *t, const struct task *o)
{
    return o != t && o->state == TASK_RUNNING && !o->exited;
}

/* is_ancestor(): o's chain is the caller's or an older part of it. */
static bool chain_is_prefix(const GPtrArray *o, const GPtrArray *t)
{
    guint n = o ? o->len : 0;
    if (n > (t ? t->len : 0))
        return false;
    for (guint i = 0; i < n; i++)
        if (o->pdata[i] != t->pdata[i])
            return false;
    return true;
}

/* seccomp_can_sync_threads(): 0, or the tid of the first thread that
 * cannot take the caller's chain (in strict mode, or with a filter of its
 * own). */
static int32_t can_sync_threads(struct task *t)
{
    for (GList *l = t->group->threads.head; l; l = l->next) {
        struct task *o = l->data;
        if (!sync_target(t, o))
            continue;
        if (o->mode == MODE_DISABLED ||
            (o->mode == MODE_FILTER && chain_is_prefix(o->filters, t->filters)))
            continue;
        return o->tid;
    }
    return 0;
}

/* seccomp_sync_threads(): every other thread gets the caller's chain (its
 * filters shared), its count, its no_new_privs, and filter mode. */
static void sync_threads(struct task *t, enum strict_via via)
{
    for (GList *l = t->group->threads.head; l; l = l->next) {
        struct task *o = l->data;
        if (!sync_target(t, o))
            continue;
        if (o->filters)
            g_ptr_array_unref(o->filters);
        o->filters = seccomp_filters_copy(t->filters);
        if (!o->filter_rets)
            o->filter_rets = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        if (t->no_new_privs)
            o->no_new_privs = true;
        if (o->mode == MODE_DISABLED) {
            o->mode = MODE_FILTER;
            observe_mode(o, &(struct mode_event){ .from = MODE_DISABLED, .to = MODE_FILTER,
                                                  .via = via });
        }
    }
}

/* has_duplicate_listener(): one listener per chain, inherited filters
 * included; a filter whose listener was closed has none any more. */
static bool has_duplicate_listener(const struct task *t)
{
    for (guint i = 0; t->filters && i < t->filters->len; i++)
        if (((const struct seccomp_filter *)t->filters->pdata[i])->notif)
            return true;
    return false;
}

/* seccomp_attach_filter() with the checks of seccomp_set_mode_filter()
 * that follow the copy and the checker. */
static int attach_filter(struct task *t, const struct sock_filter_linux *prog, size_t len,
                         unsigned flags, enum strict_via via)
{
    if (bpf_check(prog, len))
        return -EINVAL_LINUX;
    if (!may_assign_mode(t, MODE_FILTER))
        return -EINVAL_LINUX;
    bool listener = flags & SECCOMP_FILTER_FLAG_NEW_LISTENER_LINUX;
    if (listener && has_duplicate_listener(t))
        return -EBUSY_LINUX;
    /* The path limit counts eBPF instructions, 4 more per older filter. */
    size_t ebpf_len = bpf_ebpf_len(prog, len);
    size_t total = ebpf_len;
    for (guint i = 0; t->filters && i < t->filters->len; i++)
        total += ((const struct seccomp_filter *)t->filters->pdata[i])->ebpf_len + 4;
    if (total > MAX_INSNS_PER_PATH_LINUX)
        return -ENOMEM_LINUX;
    if (flags & SECCOMP_FILTER_FLAG_TSYNC_LINUX) {
        int32_t failed = can_sync_threads(t);
        if (failed)
            return (flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH_LINUX) ? -ESRCH_LINUX : failed;
    }
    if (!t->filters) {
        t->filters = chain_new();
        t->filter_rets = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    }
    struct seccomp_filter *f = g_new0(struct seccomp_filter, 1);
    f->prog = g_memdup2(prog, len * sizeof(*prog));
    f->len = len;
    f->ebpf_len = ebpf_len;
    f->log = flags & SECCOMP_FILTER_FLAG_LOG_LINUX;
    f->wait_killable_recv = flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_LINUX;
    waitq_init(&f->wqh);
    chain_add(t->filters, f);
    int from = t->mode;
    t->mode = MODE_FILTER;
    observe_mode(t, &(struct mode_event){ .from = from, .to = MODE_FILTER, .via = via });
    if (flags & SECCOMP_FILTER_FLAG_TSYNC_LINUX)
        sync_threads(t, via);
    return 0;
}

int seccomp_install_filter(struct task *t, const struct sock_filter_linux *prog, size_t len,
                           unsigned flags)
{
    if (flags & ~SECCOMP_FILTER_FLAG_MASK_LINUX)
        return -EINVAL_LINUX;
    if (len == 0 || len > BPF_MAXINSNS_LINUX)
        return -EINVAL_LINUX;
    return attach_filter(t, prog, len, flags, VIA_START);
}

void seccomp_set_origin(struct task *t, const struct filter_origin *origin)
{
    struct seccomp_filter *f = t->filters->pdata[t->filters->len - 1];
    f->origin = origin;
}

char *seccomp_explain(const struct task *t, const struct verdict *v, size_t i)
{
    /* rets are newest first; filters oldest first. */
    const struct seccomp_filter *f = t->filters->pdata[v->filters_run - 1 - i];
    if (!f->origin || !v->call)
        return NULL;
    if (!f->origin->explain)
        return g_strdup(f->origin->what);
    g_autofree char *why = f->origin->explain
                               ? f->origin->explain(f->origin->policy, v->call, v->rets[i])
                               : NULL;
    return why ? g_strdup_printf("%s: %s", f->origin->what, why)
               : g_strdup_printf("%s: no rule of it explains this value", f->origin->what);
}

/* seccomp_set_mode_filter(): the order of its checks decides the errno. */
static int64_t set_mode_filter(struct task *t, unsigned flags, uint64_t uprog,
                               enum strict_via via)
{
    if (flags & ~SECCOMP_FILTER_FLAG_MASK_LINUX)
        return -EINVAL_LINUX;
    if ((flags & SECCOMP_FILTER_FLAG_TSYNC_LINUX) &&
        (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER_LINUX) &&
        !(flags & SECCOMP_FILTER_FLAG_TSYNC_ESRCH_LINUX))
        return -EINVAL_LINUX;
    if ((flags & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_LINUX) &&
        !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER_LINUX))
        return -EINVAL_LINUX;
    /* The struct sock_fprog, in the caller's layout. */
    bool compat = t->call_abi ? t->call_abi->bits == 32 : t->personality->bits == 32;
    uint16_t len;
    uint64_t ufilter;
    if (compat) {
        struct sock_fprog32_linux f32;
        if (!mm_read(t->mm, (uint32_t)uprog, &f32, sizeof(f32)))
            return -EFAULT_LINUX;
        len = GUINT16_FROM_LE(f32.len);
        ufilter = GUINT32_FROM_LE(f32.filter);
    } else {
        struct sock_fprog64_linux f64;
        if (!mm_read(t->mm, uprog, &f64, sizeof(f64)))
            return -EFAULT_LINUX;
        len = GUINT16_FROM_LE(f64.len);
        ufilter = GUINT64_FROM_LE(f64.filter);
    }
    if (len == 0 || len > BPF_MAXINSNS_LINUX)
        return -EINVAL_LINUX;
    if (!t->no_new_privs && !((t->cap_effective >> CAP_SYS_ADMIN_LINUX) & 1))
        return -EACCES_LINUX;
    if (ufilter == 0)
        return -EINVAL_LINUX;
    g_autofree struct sock_filter_linux *prog = g_new(struct sock_filter_linux, len);
    if (!mm_read(t->mm, ufilter, prog, len * sizeof(*prog)))
        return -EFAULT_LINUX;
    for (size_t i = 0; i < len; i++) {
        prog[i].code = GUINT16_FROM_LE(prog[i].code);
        prog[i].k = GUINT32_FROM_LE(prog[i].k);
    }
    bool listener = flags & SECCOMP_FILTER_FLAG_NEW_LISTENER_LINUX;
    int fd = -1;
    if (listener) {
        /* The listener descriptor is taken before the filter is attached
         * (EMFILE first); nothing else takes one in between. */
        fd = fdtable_alloc(t->fds);
        if (fd < 0)
            return fd;
    }
    int r = attach_filter(t, prog, len, flags, via);
    if (r || !listener)
        return r;
    seccomp_notify_listen(t, t->filters->pdata[t->filters->len - 1], fd);
    return fd;
}

/* seccomp_get_action_avail() */
static int64_t get_action_avail(struct task *t, uint64_t uaction)
{
    uint32_t action;
    if (!mm_read(t->mm, uaction, &action, sizeof(action)))
        return -EFAULT_LINUX;
    /* The action exactly, with no data. */
    action = GUINT32_FROM_LE(action);
    const struct seccomp_action_linux *known = seccomp_action_linux(action);
    return known && known->value == action ? 0 : -EOPNOTSUPP_LINUX;
}

/* seccomp_get_notif_sizes() */
static int64_t get_notif_sizes(struct task *t, uint64_t usizes)
{
    struct seccomp_notif_sizes_linux sizes = {
        .seccomp_notif = GUINT16_TO_LE(SECCOMP_NOTIF_SIZE_LINUX),
        .seccomp_notif_resp = GUINT16_TO_LE(SECCOMP_NOTIF_RESP_SIZE_LINUX),
        .seccomp_data = GUINT16_TO_LE(sizeof(struct seccomp_data_linux)),
    };
    if (!mm_write(t->mm, usizes, &sizes, sizeof(sizes)))
        return -EFAULT_LINUX;
    return 0;
}

/* do_seccomp(): the one entry prctl(PR_SET_SECCOMP) and seccomp(2) share. */
static int64_t do_seccomp(struct task *t, unsigned op, unsigned flags, uint64_t uargs,
                          enum strict_via via)
{
    switch (op) {
    case SECCOMP_SET_MODE_STRICT_LINUX:
        if (flags != 0 || uargs != 0)
            return -EINVAL_LINUX;
        if (!may_assign_mode(t, MODE_STRICT))
            return -EINVAL_LINUX;
        enter_strict(t, via);
        return 0;
    case SECCOMP_SET_MODE_FILTER_LINUX:
        return set_mode_filter(t, flags, uargs, via);
    case SECCOMP_GET_ACTION_AVAIL_LINUX:
        if (flags != 0)
            return -EINVAL_LINUX;
        return get_action_avail(t, uargs);
    case SECCOMP_GET_NOTIF_SIZES_LINUX:
        if (flags != 0)
            return -EINVAL_LINUX;
        return get_notif_sizes(t, uargs);
    default:
        return -EINVAL_LINUX;
    }
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
        /* prctl_set_seccomp(): strict ignores the third argument; prctl
         * has no flags. */
        switch ((unsigned long)a[1]) {
        case SECCOMP_MODE_STRICT_LINUX:
            return do_seccomp(t, SECCOMP_SET_MODE_STRICT_LINUX, 0, 0, VIA_PRCTL);
        case SECCOMP_MODE_FILTER_LINUX:
            return do_seccomp(t, SECCOMP_SET_MODE_FILTER_LINUX, 0, a[2], VIA_PRCTL);
        default:
            return -EINVAL_LINUX;
        }
    case PR_SET_NO_NEW_PRIVS_LINUX:
        /* One way: only 1 is accepted, and the other arguments must be 0. */
        if (a[1] != 1 || a[2] || a[3] || a[4])
            return -EINVAL_LINUX;
        t->no_new_privs = true;
        return 0;
    case PR_GET_NO_NEW_PRIVS_LINUX:
        if (a[1] || a[2] || a[3] || a[4])
            return -EINVAL_LINUX;
        return t->no_new_privs;
    default:
        return -EINVAL_LINUX;
    }
}

int64_t seccomp_syscall(struct task *t, const uint64_t a[6])
{
    if (t->profile == PROFILE_2611)
        return -ENOSYS_LINUX;
    return do_seccomp(t, (unsigned)a[0], (unsigned)a[1], a[2], VIA_SECCOMP);
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
    if (!mm_write(t->mm, buf, text + *pos, count))
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
    if (!mm_read(t->mm, buf, local, n))
        return -EFAULT_LINUX;
    unsigned long mode;
    size_t used = seccomp_proc_parse(local, n, &mode);
    if (used == 0)
        return -EIO_LINUX;
    if (mode >= 1 && mode <= NR_SECCOMP_MODES_LINUX)
        enter_strict(t, VIA_PROC);
    return (int64_t)used;
}
