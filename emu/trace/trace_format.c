/* Decoding a trapped call the way strace prints it.  Guest memory is read
 * only through mm_peek/mm_peek_string, which fail rather than fault: an
 * unreadable buffer is shown as its address, and the guest never notices
 * that it was looked at. */
#include "emu/trace/trace_format.h"

#include <inttypes.h>
#include <string.h>

#include "abi/errno_names.h"
#include "abi/linux.h"
#include "emu/kernel/task.h"
#include "emu/sys/sys.h"

#define PATH_SHOWN 4096 /* PATH_MAX: longer paths are cut with ... */
#define MAX_ERRNO_LINUX 4095
#define O_TMPFILE_BIT_LINUX 020000000 /* __O_TMPFILE */

void trace_quote(GString *out, const uint8_t *buf, size_t n, bool truncated)
{
    g_string_append_c(out, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t c = buf[i];
        switch (c) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\t': g_string_append(out, "\\t"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\v': g_string_append(out, "\\v"); break;
        case '\f': g_string_append(out, "\\f"); break;
        case '\r': g_string_append(out, "\\r"); break;
        default:
            if (c >= 0x20 && c < 0x7f)
                g_string_append_c(out, (char)c);
            else if (i + 1 < n && buf[i + 1] >= '0' && buf[i + 1] <= '7')
                /* A following digit would read as part of a short escape. */
                g_string_append_printf(out, "\\%03o", c);
            else
                g_string_append_printf(out, "\\%o", c);
        }
    }
    g_string_append_c(out, '"');
    if (truncated)
        g_string_append(out, "...");
}

void trace_json_string(GString *out, const char *s)
{
    g_autofree char *valid = g_utf8_make_valid(s ? s : "", -1);
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)valid; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf(out, "\\%c", *p);
        else if (*p < 0x20)
            g_string_append_printf(out, "\\u%04x", *p);
        else
            g_string_append_c(out, (char)*p);
    }
    g_string_append_c(out, '"');
}

struct decode {
    struct task *t;
    const struct abi *abi;
    const uint64_t *a;
    unsigned nargs;
    bool returned;
    int64_t result;
};

static uint64_t word(const struct decode *d, uint64_t v)
{
    return d->abi->bits == 32 ? (uint32_t)v : v;
}

static const char *lookup(const struct named_set *s, uint64_t v)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].value == v)
            return s->v[i].name;
    return NULL;
}

/* NAME, or the number (decimal as an int, or hex) when it has no name. */
static void constant(GString *o, const struct named_set *s, uint64_t v, bool hex)
{
    const char *name = lookup(s, v);
    if (name)
        g_string_append(o, name);
    else if (hex)
        g_string_append_printf(o, "%#" PRIx64, v);
    else
        g_string_append_printf(o, "%d", (int)v);
}

/* A|B|0x40: named bits first, what is left in hex; "0" when nothing. */
static void flags(GString *o, const struct named_set *s, uint64_t v, bool any)
{
    for (size_t i = 0; i < s->n; i++) {
        uint64_t m = s->v[i].value;
        if (m && (v & m) == m) {
            g_string_append_printf(o, "%s%s", any ? "|" : "", s->v[i].name);
            v &= ~m;
            any = true;
        }
    }
    if (v || !any)
        g_string_append_printf(o, "%s%#" PRIx64, any ? "|" : "", v);
}

static void pointer(GString *o, uint64_t p)
{
    if (p)
        g_string_append_printf(o, "%#" PRIx64, p);
    else
        g_string_append(o, "NULL");
}

static void path(GString *o, const struct decode *d, uint64_t p)
{
    char *buf = g_malloc(PATH_SHOWN + 1);
    int r = mm_peek_string(d->t->mm, p, buf, PATH_SHOWN);
    if (r == 0)
        trace_quote(o, (const uint8_t *)buf, strlen(buf), false);
    else if (r == -ENAMETOOLONG_LINUX)
        trace_quote(o, (const uint8_t *)buf, PATH_SHOWN, true);
    else
        pointer(o, p);
    g_free(buf);
}

/* The first TRACE_STRSIZE bytes of a buffer of `len`, or its address when
 * they cannot be read. */
static void buffer(GString *o, const struct decode *d, uint64_t p, uint64_t len)
{
    uint8_t buf[TRACE_STRSIZE];
    size_t n = len < TRACE_STRSIZE ? (size_t)len : TRACE_STRSIZE;
    if (!mm_peek(d->t->mm, p, buf, n)) {
        pointer(o, p);
        return;
    }
    trace_quote(o, buf, n, len > n);
}

/* prctl: the option decides what follows; strace stops where the kernel
 * stops reading. */
static void prctl_args(GPtrArray *out, const struct decode *d, unsigned i)
{
    int option = (int)d->a[i];
    GString *s = g_string_new(NULL);
    constant(s, &trace_prctl_options, (uint64_t)option, false);
    g_ptr_array_add(out, g_string_free(s, FALSE));
    switch (option) {
    case PR_SET_SECCOMP_LINUX:
        s = g_string_new(NULL);
        constant(s, &trace_seccomp_modes, word(d, d->a[i + 1]), false);
        g_ptr_array_add(out, g_string_free(s, FALSE));
        return;
    case PR_GET_SECCOMP_LINUX:
    case 3:  /* PR_GET_DUMPABLE */
    case 39: /* PR_GET_NO_NEW_PRIVS */
        return;
    }
    for (unsigned k = i + 1; k < d->nargs; k++)
        g_ptr_array_add(out, g_strdup_printf("%#" PRIx64, word(d, d->a[k])));
}

/* One argument in format letter `f` (abi/abi.h).  Returns false when no
 * further argument is shown (the kernel reads none after this one). */
static bool one_arg(GString *o, const struct decode *d, char f, unsigned i)
{
    uint64_t v = word(d, d->a[i]);
    uint64_t next = i + 1 < 6 ? word(d, d->a[i + 1]) : 0;
    switch (f) {
    case 'd': g_string_append_printf(o, "%d", (int)v); break;
    case 'l':
        g_string_append_printf(o, "%" PRId64, d->abi->bits == 32 ? (int64_t)(int32_t)v : (int64_t)v);
        break;
    case 'u': g_string_append_printf(o, "%" PRIu64, v); break;
    case 'o': g_string_append_printf(o, v ? "%#" PRIo64 : "0", v); break;
    case 'p': pointer(o, v); break;
    case 's': path(o, d, v); break;
    case 'b': buffer(o, d, v, next); break;
    case 'B':
        /* Filled by the call: what it returned is what there is to see. */
        if (d->returned && d->result > 0)
            buffer(o, d, v, (uint64_t)d->result);
        else
            pointer(o, v);
        break;
    case 'D':
        if ((int)v == AT_FDCWD_LINUX)
            g_string_append(o, "AT_FDCWD");
        else
            g_string_append_printf(o, "%d", (int)v);
        break;
    case 'O': {
        static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
        g_string_append(o, acc[v & O_ACCMODE_LINUX]);
        if (v & ~(uint64_t)O_ACCMODE_LINUX)
            flags(o, &trace_open_flags, v & ~(uint64_t)O_ACCMODE_LINUX, true);
        /* The mode is read only when a file may be created. */
        return (v & (O_CREAT_LINUX | O_TMPFILE_BIT_LINUX)) != 0;
    }
    case 'P':
        if (v)
            flags(o, &trace_prot_flags, v, false);
        else
            g_string_append(o, "PROT_NONE");
        break;
    case 'M':
        constant(o, &trace_map_types, v & MAP_TYPE_LINUX, true);
        if (v & ~(uint64_t)MAP_TYPE_LINUX)
            flags(o, &trace_map_flags, v & ~(uint64_t)MAP_TYPE_LINUX, true);
        break;
    case 'W': constant(o, &trace_whence, v, false); break;
    case 'C': constant(o, &trace_clocks, v, false); break;
    case 'R': constant(o, &trace_rlimits, v, false); break;
    case 'A': constant(o, &trace_arch_prctl, v, true); break;
    case 'S': constant(o, &trace_seccomp_ops, v, false); break;
    case 'I': constant(o, &trace_ioctls, v, true); break;
    case 'c': constant(o, &trace_fcntl_cmds, v, false); break;
    case 'm': constant(o, &trace_madvise, v, false); break;
    default: g_string_append_printf(o, "%#" PRIx64, v); break; /* 'x' and unknown letters */
    }
    return true;
}

void trace_decode_call(struct task *t, const struct abi *abi, int64_t nr, const uint64_t a[6],
                       bool returned, int64_t result, struct trace_call *out)
{
    const struct syscall_desc *desc = sys_lookup(abi, nr);
    const char *name = desc ? desc->name : abi_call_name(abi, nr);
    const char *fmt = desc ? desc->fmt : name ? trace_fallback_fmt(name) : NULL;
    if (!fmt)
        fmt = "xxxxxx"; /* unknown arity: all six registers, as strace does */
    out->name = name ? g_strdup(name) : g_strdup_printf("syscall_%#" PRIx32, (uint32_t)nr);
    out->args = g_ptr_array_new_with_free_func(g_free);
    struct decode d = { t, abi, a, (unsigned)strlen(fmt), returned, result };
    for (unsigned i = 0; i < d.nargs && i < 6; i++) {
        if (fmt[i] == 'K') {
            prctl_args(out->args, &d, i);
            break;
        }
        GString *s = g_string_new(NULL);
        bool more = one_arg(s, &d, fmt[i], i);
        g_ptr_array_add(out->args, g_string_free(s, FALSE));
        if (!more)
            break;
    }
    out->errno_name = NULL;
    out->result = NULL;
    if (!returned)
        return;
    if (result < 0 && result >= -MAX_ERRNO_LINUX) {
        const struct errno_name *e = errno_name_linux(-result);
        out->errno_name = e ? e->name : NULL;
        out->result = e ? g_strdup_printf("-1 %s (%s)", e->name, e->message)
                        : g_strdup_printf("-1 (errno %" PRId64 ")", -result);
    } else if (trace_returns_address(out->name))
        out->result = g_strdup_printf("%#" PRIx64, word(&d, (uint64_t)result));
    else
        out->result = g_strdup_printf("%" PRId64, result);
}

void trace_call_clear(struct trace_call *c)
{
    g_free(c->name);
    if (c->args)
        g_ptr_array_unref(c->args);
    g_free(c->result);
    *c = (struct trace_call){ 0 };
}

void trace_call_text(GString *out, const struct trace_call *c)
{
    g_string_append_printf(out, "%s(", c->name);
    for (guint i = 0; i < c->args->len; i++)
        g_string_append_printf(out, "%s%s", i ? ", " : "", (const char *)c->args->pdata[i]);
    g_string_append_c(out, ')');
}
