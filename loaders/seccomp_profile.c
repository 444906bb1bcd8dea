/* The container profile compiler (seccomp_profile.h).
 *
 * Resolution follows Docker's and containers' own code (moby's
 * profiles/seccomp/seccomp_linux.go, containers/common's
 * pkg/seccomp/seccomp_linux.go), for an amd64 machine:
 *   - "archMap": the entry for SCMP_ARCH_X86_64 and its sub-architectures
 *     (x86 and x32), so one profile covers both guest ABIs;
 *   - a rule is left out when excludes.arches holds "amd64", excludes.caps
 *     names a capability the container has, or excludes.minKernel <= the
 *     release; and unless includes.arches holds "amd64", includes.caps are
 *     all held, and includes.minKernel <= the release;
 *   - containers' "errno"/"defaultErrno" (a name or a number) say the
 *     same as "errnoRet"/"defaultErrnoRet" (both given: they must agree).
 * Compilation then follows runc (libcontainer/seccomp/seccomp_linux.go):
 * errnoRet defaults to EPERM for ERRNO and TRACE; a rule whose action is
 * the default is left out; several conditions on one argument index make
 * one rule each (their OR), libseccomp refusing them in one; no
 * architectures means the machine's own, x86_64.  Stricter than both: a
 * syscall name libseccomp does not know, an unknown field, a rule with
 * both "name" and "names", and anything needing a listener are refused
 * with their position: a typo in a policy must never loosen it. */
#include "loaders/seccomp_profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi/caps_linux.h"
#include "abi/errno_names.h"
#include "loaders/input.h"

#ifdef HAVE_SECCOMP_PROFILE
#include <jansson.h>
#include <seccomp.h>
#include <sys/mman.h>
#endif

err_t seccomp_profile_load(const char *path, const struct profile_env *env,
                           struct bpf_program *out, unsigned *filter_flags,
                           struct seccomp_profile **resolved)
{
    out->insns = NULL;
    out->len = 0;
    if (!seccomp_profile_available())
        return err_new("--seccomp-profile is not available: this build has no libseccomp "
                       "(Linux only); compile the profile on Linux and pass --filter");
    char *data = NULL;
    size_t size = 0;
    err_t e = input_read(path, INPUT_MAX_PROFILE, NULL, &data, &size, NULL);
    if (!e)
        e = seccomp_profile_compile(data, size, env, out, filter_flags, resolved);
    g_free(data);
    return input_named(path, e);
}

#ifndef HAVE_SECCOMP_PROFILE

bool seccomp_profile_available(void)
{
    return false;
}

err_t seccomp_profile_compile(const char *json, size_t size, const struct profile_env *env,
                              struct bpf_program *out, unsigned *filter_flags,
                              struct seccomp_profile **resolved)
{
    (void)json, (void)size, (void)env, (void)out, (void)filter_flags, (void)resolved;
    return err_new("--seccomp-profile is not available: this build has no libseccomp");
}

char *seccomp_profile_explain(const void *profile, const struct seccomp_data_linux *d,
                              uint32_t ret)
{
    (void)profile, (void)d, (void)ret;
    return NULL;
}

void seccomp_profile_free(struct seccomp_profile *p)
{
    (void)p;
}

#else

bool seccomp_profile_available(void)
{
    return true;
}

static const struct {
    const char *name;
    uint32_t action; /* with no data: errnoRet is added where it applies */
    bool takes_errno;
} profile_actions[] = {
    { "SCMP_ACT_KILL", SCMP_ACT_KILL, false },
    { "SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD, false },
    { "SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS, false },
    { "SCMP_ACT_TRAP", SCMP_ACT_TRAP, false },
    { "SCMP_ACT_ERRNO", SCMP_ACT_ERRNO(0), true },
    { "SCMP_ACT_TRACE", SCMP_ACT_TRACE(0), true },
    { "SCMP_ACT_ALLOW", SCMP_ACT_ALLOW, false },
    { "SCMP_ACT_LOG", SCMP_ACT_LOG, false },
};

static const struct {
    const char *name;
    enum scmp_compare op;
} profile_ops[] = {
    { "SCMP_CMP_NE", SCMP_CMP_NE },         { "SCMP_CMP_LT", SCMP_CMP_LT },
    { "SCMP_CMP_LE", SCMP_CMP_LE },         { "SCMP_CMP_EQ", SCMP_CMP_EQ },
    { "SCMP_CMP_GE", SCMP_CMP_GE },         { "SCMP_CMP_GT", SCMP_CMP_GT },
    { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

/* OCI's architecture names and libseccomp's. */
static const struct {
    const char *oci;
    uint32_t arch;
} profile_arches[] = {
    { "SCMP_ARCH_X86", SCMP_ARCH_X86 },         { "SCMP_ARCH_X86_64", SCMP_ARCH_X86_64 },
    { "SCMP_ARCH_X32", SCMP_ARCH_X32 },         { "SCMP_ARCH_ARM", SCMP_ARCH_ARM },
    { "SCMP_ARCH_AARCH64", SCMP_ARCH_AARCH64 }, { "SCMP_ARCH_MIPS", SCMP_ARCH_MIPS },
    { "SCMP_ARCH_MIPS64", SCMP_ARCH_MIPS64 },   { "SCMP_ARCH_MIPS64N32", SCMP_ARCH_MIPS64N32 },
    { "SCMP_ARCH_MIPSEL", SCMP_ARCH_MIPSEL },   { "SCMP_ARCH_MIPSEL64", SCMP_ARCH_MIPSEL64 },
    { "SCMP_ARCH_MIPSEL64N32", SCMP_ARCH_MIPSEL64N32 }, { "SCMP_ARCH_PPC", SCMP_ARCH_PPC },
    { "SCMP_ARCH_PPC64", SCMP_ARCH_PPC64 },     { "SCMP_ARCH_PPC64LE", SCMP_ARCH_PPC64LE },
    { "SCMP_ARCH_S390", SCMP_ARCH_S390 },       { "SCMP_ARCH_S390X", SCMP_ARCH_S390X },
    { "SCMP_ARCH_PARISC", SCMP_ARCH_PARISC },   { "SCMP_ARCH_PARISC64", SCMP_ARCH_PARISC64 },
    { "SCMP_ARCH_RISCV64", SCMP_ARCH_RISCV64 },
};

/* The machine seccomp-emu plays, as Docker (goToNative[GOARCH]) and
 * containers (libseccomp's native arch string) name it in "arches". */
#define PROFILE_MACHINE "amd64"

/* One rule as resolved. */
struct rule {
    size_t index;        /* in "syscalls" */
    uint32_t action;     /* with its errno */
    GPtrArray *names;    /* char *, as written */
    struct scmp_arg_cmp cmps[6];
    size_t ncmp;
    bool one_each;       /* conditions on one index repeat: each is its own rule (OR) */
};

struct seccomp_profile {
    uint32_t default_action;
    GArray *arches;      /* uint32_t: libseccomp's (== AUDIT_ARCH_*) */
    GArray *rules;       /* struct rule, the rules that apply, in profile order */
};

/* Numbers above INT64_MAX, which jansson cannot hold as integers, are
 * turned into strings of a per-load nonce and the digits before parsing,
 * then read back exactly where a uint64 belongs.  The nonce starts with
 * U+0001, written as an escape in the text. */
struct parse {
    const struct profile_env *env;
    char nonce[40];      /* as decoded: "\x01u64:" and a random tag */
    char nonce_text[48]; /* as written into the JSON text */
    struct seccomp_profile *prof;
};

static err_t at(const char *where, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static err_t at(const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return err_new("%s: %s", where, msg);
}

/* Rewrite bare integers in (INT64_MAX, UINT64_MAX] as nonce strings. */
static char *quote_big_numbers(const char *text, size_t size, const char *nonce, size_t *out_size)
{
    GString *s = g_string_sized_new(size + 16);
    bool in_string = false;
    for (size_t i = 0; i < size;) {
        char c = text[i];
        if (in_string) {
            g_string_append_c(s, c);
            if (c == '\\' && i + 1 < size) {
                g_string_append_c(s, text[i + 1]);
                i += 2;
                continue;
            }
            if (c == '"')
                in_string = false;
            i++;
            continue;
        }
        if (c == '"') {
            in_string = true;
            g_string_append_c(s, c);
            i++;
            continue;
        }
        if (g_ascii_isdigit(c) && (i == 0 || !(g_ascii_isalnum(text[i - 1]) || text[i - 1] == '.' ||
                                               text[i - 1] == '-' || text[i - 1] == '+'))) {
            size_t j = i;
            while (j < size && g_ascii_isdigit(text[j]))
                j++;
            bool plain = j >= size || !(text[j] == '.' || text[j] == 'e' || text[j] == 'E');
            size_t len = j - i;
            /* 9223372036854775807 < n <= 18446744073709551615, no leading 0 */
            bool big = plain && text[i] != '0' && len >= 19 && len <= 20;
            if (big) {
                char digits[21];
                memcpy(digits, text + i, len);
                digits[len] = 0;
                big = (len == 20 ? strcmp(digits, "18446744073709551615") <= 0 : true) &&
                      (len == 19 ? strcmp(digits, "9223372036854775807") > 0 : true);
            }
            if (big) {
                g_string_append_c(s, '"');
                g_string_append(s, nonce);
                g_string_append_len(s, text + i, (gssize)len);
                g_string_append_c(s, '"');
            } else {
                g_string_append_len(s, text + i, (gssize)len);
            }
            i = j;
            continue;
        }
        g_string_append_c(s, c);
        i++;
    }
    *out_size = s->len;
    return g_string_free(s, FALSE);
}

/* An unsigned 64-bit JSON integer, exactly (Go's uint64). */
static err_t get_u64(const struct parse *p, json_t *v, const char *where, const char *field,
                     uint64_t *out)
{
    if (json_is_string(v) && g_str_has_prefix(json_string_value(v), p->nonce)) {
        *out = g_ascii_strtoull(json_string_value(v) + strlen(p->nonce), NULL, 10);
        return OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return at(where, "\"%s\" must be an integer from 0 to 18446744073709551615", field);
    *out = (uint64_t)json_integer_value(v);
    return OK;
}

/* Refuse every key of `obj` not in `known` (NULL-terminated). */
static err_t only_keys(json_t *obj, const char *where, const char *const *known)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        const char *const *k = known;
        while (*k && strcmp(*k, key))
            k++;
        if (!*k) {
            const char *why = !strcmp(key, "listenerPath") || !strcmp(key, "listenerMetadata")
                                  ? " (user notification needs a listener seccomp-emu does not run)"
                                  : "";
            return at(where, "unknown field \"%s\"%s: seccomp-emu refuses what it cannot honour",
                      key, why);
        }
    }
    return OK;
}

/* An errno as containers write it: a number or a name. */
static err_t errno_by_name(const char *s, const char *where, const char *field, uint64_t *out)
{
    if (*s && strspn(s, "0123456789") == strlen(s)) {
        *out = g_ascii_strtoull(s, NULL, 10);
        return OK;
    }
    for (unsigned e = 1; e < errno_names_linux_len; e++)
        if (errno_names_linux[e].name && !strcmp(errno_names_linux[e].name, s)) {
            *out = e;
            return OK;
        }
    return at(where, "\"%s\": unknown errno \"%s\"", field, s);
}

/* The errno of an action: "errnoRet" (OCI, Docker) and "errno"
 * (containers' name); containers' wins where both are given, Docker's
 * never reads it, so they must agree. */
static err_t errno_of(const struct parse *p, json_t *obj, const char *where, const char *ret_field,
                      const char *name_field, bool *given, uint64_t *value)
{
    json_t *ret = json_object_get(obj, ret_field), *name = json_object_get(obj, name_field);
    uint64_t a = 0, b = 0;
    err_t e;
    *given = false;
    if (ret && !json_is_null(ret)) {
        if ((e = get_u64(p, ret, where, ret_field, &a)))
            return e;
        *given = true;
        *value = a;
    }
    if (name && !json_is_null(name)) {
        if (!json_is_string(name))
            return at(where, "\"%s\" must be a string", name_field);
        if (*json_string_value(name)) {
            if ((e = errno_by_name(json_string_value(name), where, name_field, &b)))
                return e;
            if (*given && a != b)
                return at(where, "\"%s\" %" G_GUINT64_FORMAT " and \"%s\" \"%s\" disagree "
                          "(Podman takes the name, Docker the number)", ret_field, a,
                          name_field, json_string_value(name));
            *given = true;
            *value = b;
        }
    }
    return OK;
}

/* An action and its errno into a libseccomp action value. */
static err_t parse_action(const struct parse *p, json_t *obj, const char *where, bool top,
                          uint32_t *action)
{
    const char *field = top ? "defaultAction" : "action";
    json_t *name = json_object_get(obj, field);
    if (!json_is_string(name))
        return at(where, "\"%s\" must be a string", field);
    const char *s = json_string_value(name);
    if (!strcmp(s, "SCMP_ACT_NOTIFY"))
        return at(where, "%s: user notification needs a listener seccomp-emu does not run", s);
    bool given;
    uint64_t data = EPERM;
    err_t e = errno_of(p, obj, where, top ? "defaultErrnoRet" : "errnoRet",
                       top ? "defaultErrno" : "errno", &given, &data);
    if (e)
        return e;
    for (size_t i = 0; i < G_N_ELEMENTS(profile_actions); i++) {
        if (strcmp(profile_actions[i].name, s))
            continue;
        if (given && !profile_actions[i].takes_errno)
            return at(where, "an errno goes only with SCMP_ACT_ERRNO or SCMP_ACT_TRACE (runc "
                      "refuses it with %s)", s);
        if (data > 0xffff)
            return at(where, "errno %" G_GUINT64_FORMAT " is outside 0..65535 (the 16 bits "
                      "of SECCOMP_RET_DATA)", data);
        *action = profile_actions[i].action | (profile_actions[i].takes_errno ? (uint32_t)data : 0);
        return OK;
    }
    return at(where, "unknown action \"%s\"", s);
}

static err_t parse_args(const struct parse *p, json_t *args, const char *where, struct rule *r)
{
    r->ncmp = 0;
    if (!args || json_is_null(args))
        return OK;
    if (!json_is_array(args))
        return at(where, "\"args\" must be an array");
    if (json_array_size(args) > 6)
        return at(where, "more than 6 argument conditions");
    size_t i;
    json_t *a;
    static const char *const keys[] = { "index", "value", "valueTwo", "op", NULL };
    json_array_foreach(args, i, a) {
        g_autofree char *here = g_strdup_printf("%s.args[%zu]", where, i);
        if (!json_is_object(a))
            return at(here, "must be an object");
        err_t e = only_keys(a, here, keys);
        if (e)
            return e;
        json_t *index = json_object_get(a, "index");
        if (!json_is_integer(index) || json_integer_value(index) < 0 ||
            json_integer_value(index) > 5)
            return at(here, "\"index\" must be an integer 0..5");
        json_t *op = json_object_get(a, "op");
        if (!json_is_string(op))
            return at(here, "\"op\" must be a string");
        size_t k;
        for (k = 0; k < G_N_ELEMENTS(profile_ops); k++)
            if (!strcmp(profile_ops[k].name, json_string_value(op)))
                break;
        if (k == G_N_ELEMENTS(profile_ops))
            return at(here, "unknown op \"%s\"", json_string_value(op));
        uint64_t value = 0, value_two = 0;
        json_t *v = json_object_get(a, "value"), *v2 = json_object_get(a, "valueTwo");
        if ((v && (e = get_u64(p, v, here, "value", &value))) ||
            (v2 && (e = get_u64(p, v2, here, "valueTwo", &value_two))))
            return e;
        r->cmps[i] = (struct scmp_arg_cmp){ .arg = (unsigned)json_integer_value(index),
                                            .op = profile_ops[k].op,
                                            .datum_a = value,
                                            .datum_b = value_two };
        r->ncmp++;
    }
    for (size_t x = 0; x < r->ncmp; x++)
        for (size_t y = x + 1; y < r->ncmp; y++)
            if (r->cmps[x].arg == r->cmps[y].arg)
                r->one_each = true;
    return OK;
}

static bool in_strings(json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
        if (!strcmp(json_string_value(v), s))
            return true;
    return false;
}

static bool has_cap(const struct parse *p, const char *name)
{
    int n = cap_by_name_linux(name);
    return n >= 0 && (p->env->caps >> n) & 1;
}

/* "X.Y" as moby's KernelVersion reads it: two numbers below 256, not 0.0. */
static err_t parse_min_kernel(json_t *v, const char *where, unsigned *major, unsigned *minor)
{
    if (!json_is_string(v))
        return at(where, "\"minKernel\" must be a string \"<kernel>.<major>\"");
    const char *s = json_string_value(v);
    unsigned a, b;
    int n = 0;
    if (sscanf(s, "%3u.%3u%n", &a, &b, &n) != 2 || s[n] || a > 255 || b > 255 || (!a && !b) ||
        strspn(s, "0123456789.") != strlen(s))
        return at(where, "\"minKernel\" \"%s\" is not \"<kernel>.<major>\"", s);
    *major = a;
    *minor = b;
    return OK;
}

/* includes/excludes: whether the condition holds for this container.  An
 * empty "minKernel" is none, as in moby. */
static err_t condition(const struct parse *p, json_t *f, const char *where, bool includes,
                       bool *keep)
{
    *keep = true;
    if (!f || json_is_null(f))
        return OK;
    if (!json_is_object(f))
        return at(where, "must be an object");
    static const char *const keys[] = { "caps", "arches", "minKernel", NULL };
    err_t e = only_keys(f, where, keys);
    if (e)
        return e;
    json_t *caps = json_object_get(f, "caps"), *arches = json_object_get(f, "arches");
    json_t *mk = json_object_get(f, "minKernel");
    for (int k = 0; k < 2; k++) {
        json_t *list = k ? arches : caps;
        if (!list || json_is_null(list))
            continue;
        size_t i;
        json_t *v;
        if (!json_is_array(list))
            return at(where, "\"%s\" must be an array of strings", k ? "arches" : "caps");
        json_array_foreach(list, i, v)
            if (!json_is_string(v))
                return at(where, "\"%s\" must be an array of strings", k ? "arches" : "caps");
    }
    unsigned major = 0, minor = 0;
    bool has_mk = mk && !json_is_null(mk) && !(json_is_string(mk) && !*json_string_value(mk));
    if (has_mk && (e = parse_min_kernel(mk, where, &major, &minor)))
        return e;
    bool kernel_ok = !has_mk || p->env->kernel_major > major ||
                     (p->env->kernel_major == major && p->env->kernel_minor >= minor);
    size_t i;
    json_t *v;
    if (!includes) {
        if (arches && json_is_array(arches) && in_strings(arches, PROFILE_MACHINE))
            *keep = false;
        if (caps && json_is_array(caps))
            json_array_foreach(caps, i, v)
                if (has_cap(p, json_string_value(v)))
                    *keep = false;
        if (has_mk && kernel_ok)
            *keep = false;
        return OK;
    }
    if (arches && json_is_array(arches) && json_array_size(arches) &&
        !in_strings(arches, PROFILE_MACHINE))
        *keep = false;
    if (caps && json_is_array(caps))
        json_array_foreach(caps, i, v)
            if (!has_cap(p, json_string_value(v)))
                *keep = false;
    if (has_mk && !kernel_ok)
        *keep = false;
    return OK;
}

static void rule_clear(struct rule *r)
{
    if (r->names)
        g_ptr_array_unref(r->names);
    r->names = NULL;
}

/* One entry of "syscalls": checked whole, then kept if its conditions
 * hold for this container. */
static err_t parse_rule(struct parse *p, json_t *obj, size_t index)
{
    g_autofree char *where = g_strdup_printf("syscalls[%zu]", index);
    if (!json_is_object(obj))
        return at(where, "must be an object");
    static const char *const keys[] = { "names", "name", "action", "errnoRet", "errno", "args",
                                        "comment", "includes", "excludes", NULL };
    err_t e = only_keys(obj, where, keys);
    if (e)
        return e;
    struct rule r = { .index = index };
    json_t *names = json_object_get(obj, "names"), *single = json_object_get(obj, "name");
    bool has_names = names && !json_is_null(names);
    bool has_single = single && !json_is_null(single) &&
                      !(json_is_string(single) && !*json_string_value(single));
    if (has_names && has_single)
        return at(where, "both \"name\" and \"names\": Docker, Podman and runc refuse it, "
                  "and which one was meant cannot be told");
    r.names = g_ptr_array_new_with_free_func(g_free);
    if (has_single) {
        if (!json_is_string(single)) {
            rule_clear(&r);
            return at(where, "\"name\" must be a string");
        }
        g_ptr_array_add(r.names, g_strdup(json_string_value(single)));
    } else if (has_names && json_is_array(names)) {
        size_t i;
        json_t *n;
        json_array_foreach(names, i, n) {
            if (!json_is_string(n)) {
                rule_clear(&r);
                return at(where, "names[%zu] must be a string", i);
            }
            g_ptr_array_add(r.names, g_strdup(json_string_value(n)));
        }
    }
    if (r.names->len == 0) {
        rule_clear(&r);
        return at(where, "\"names\" must be a non-empty array of syscall names");
    }
    json_t *comment = json_object_get(obj, "comment");
    if (comment && !json_is_null(comment) && !json_is_string(comment)) {
        rule_clear(&r);
        return at(where, "\"comment\" must be a string");
    }
    bool keep_in = true, keep_ex = true;
    g_autofree char *inc = g_strdup_printf("%s.includes", where);
    g_autofree char *exc = g_strdup_printf("%s.excludes", where);
    if ((e = parse_action(p, obj, where, false, &r.action)) ||
        (e = parse_args(p, json_object_get(obj, "args"), where, &r)) ||
        (e = condition(p, json_object_get(obj, "excludes"), exc, false, &keep_ex)) ||
        (e = condition(p, json_object_get(obj, "includes"), inc, true, &keep_in))) {
        rule_clear(&r);
        return e;
    }
    if (!keep_in || !keep_ex) {
        rule_clear(&r);
        return OK;
    }
    /* Names are checked for the rules that apply: a rule for another
     * machine names calls libseccomp may not know here. */
    for (guint i = 0; i < r.names->len; i++) {
        const char *name = r.names->pdata[i];
        if (seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR) {
            e = at(where, "unknown syscall \"%s\"", name);
            rule_clear(&r);
            return e;
        }
    }
    g_array_append_val(p->prof->rules, r);
    return OK;
}

static err_t arch_by_name(json_t *a, const char *where, uint32_t *arch)
{
    if (json_is_string(a))
        for (size_t k = 0; k < G_N_ELEMENTS(profile_arches); k++)
            if (!strcmp(profile_arches[k].oci, json_string_value(a))) {
                *arch = profile_arches[k].arch;
                return OK;
            }
    return at(where, "unknown architecture %s", json_is_string(a) ? json_string_value(a) : "");
}

static void add_arch(struct seccomp_profile *prof, uint32_t arch)
{
    for (guint i = 0; i < prof->arches->len; i++)
        if (g_array_index(prof->arches, uint32_t, i) == arch)
            return;
    g_array_append_val(prof->arches, arch);
}

/* "architectures" (OCI) or "archMap" (Docker, containers): never both. */
static err_t parse_arches(struct parse *p, json_t *profile)
{
    json_t *arches = json_object_get(profile, "architectures");
    json_t *map = json_object_get(profile, "archMap");
    bool has_arches = arches && !json_is_null(arches) && json_array_size(arches);
    bool has_map = map && !json_is_null(map) && json_array_size(map);
    if (arches && !json_is_null(arches) && !json_is_array(arches))
        return err_new("profile: \"architectures\" must be an array");
    if (map && !json_is_null(map) && !json_is_array(map))
        return err_new("profile: \"archMap\" must be an array");
    if (has_arches && has_map)
        return err_new("profile: both \"architectures\" and \"archMap\" (Docker and Podman "
                       "refuse it)");
    size_t i;
    json_t *a;
    err_t e;
    if (has_arches) {
        json_array_foreach(arches, i, a) {
            g_autofree char *where = g_strdup_printf("architectures[%zu]", i);
            uint32_t arch;
            if ((e = arch_by_name(a, where, &arch)))
                return e;
            add_arch(p->prof, arch);
        }
    }
    static const char *const keys[] = { "architecture", "subArchitectures", NULL };
    bool matched = false;
    json_array_foreach(map, i, a) {
        g_autofree char *where = g_strdup_printf("archMap[%zu]", i);
        if (!json_is_object(a))
            return at(where, "must be an object");
        if ((e = only_keys(a, where, keys)))
            return e;
        uint32_t arch;
        if ((e = arch_by_name(json_object_get(a, "architecture"), where, &arch)))
            return e;
        json_t *subs = json_object_get(a, "subArchitectures");
        if (subs && !json_is_null(subs) && !json_is_array(subs))
            return at(where, "\"subArchitectures\" must be an array");
        /* Every entry is checked; the first for the machine is taken. */
        bool take = !matched && arch == SCMP_ARCH_X86_64;
        if (take) {
            matched = true;
            add_arch(p->prof, arch);
        }
        size_t k;
        json_t *s;
        json_array_foreach(subs, k, s) {
            g_autofree char *sub = g_strdup_printf("%s.subArchitectures[%zu]", where, k);
            uint32_t sa;
            if ((e = arch_by_name(s, sub, &sa)))
                return e;
            if (take)
                add_arch(p->prof, sa);
        }
    }
    /* None: the runtime's own architecture, the machine's. */
    if (p->prof->arches->len == 0)
        add_arch(p->prof, SCMP_ARCH_X86_64);
    return OK;
}

static err_t parse_flags(json_t *flags, unsigned *out)
{
    *out = 0;
    if (!flags || json_is_null(flags))
        return OK;
    if (!json_is_array(flags))
        return err_new("profile: \"flags\" must be an array");
    size_t i;
    json_t *f;
    json_array_foreach(flags, i, f) {
        const char *s = json_is_string(f) ? json_string_value(f) : "";
        g_autofree char *where = g_strdup_printf("flags[%zu]", i);
        if (!strcmp(s, "SECCOMP_FILTER_FLAG_TSYNC"))
            *out |= SECCOMP_FILTER_FLAG_TSYNC_LINUX; /* the launcher has one thread */
        else if (!strcmp(s, "SECCOMP_FILTER_FLAG_LOG"))
            *out |= SECCOMP_FILTER_FLAG_LOG_LINUX;
        else if (!strcmp(s, "SECCOMP_FILTER_FLAG_SPEC_ALLOW"))
            *out |= SECCOMP_FILTER_FLAG_SPEC_ALLOW_LINUX; /* no speculation is modelled */
        else if (!strcmp(s, "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"))
            return at(where, "%s needs a listener seccomp-emu does not run", s);
        else
            return at(where, "unknown flag \"%s\"", s);
    }
    return OK;
}

/* seccomp_export_bpf() writes to a descriptor; a memfd keeps it in memory
 * (libseccomp, and so this file, exists only on Linux). */
static err_t export_program(scmp_filter_ctx ctx, struct bpf_program *out)
{
    int fd = memfd_create("seccomp-emu-profile", MFD_CLOEXEC);
    if (fd < 0)
        return err_new("memfd_create: %s", host_strerror(errno));
    err_t e = OK;
    int rc = seccomp_export_bpf(ctx, fd);
    off_t size = lseek(fd, 0, SEEK_END);
    if (rc < 0) {
        e = err_new("libseccomp cannot export the filter: %s", host_strerror(-rc));
    } else if (size < 0) {
        e = err_new("lseek: %s", host_strerror(errno));
    } else {
        uint8_t *buf = g_malloc((size_t)size + 1);
        ssize_t got = pread(fd, buf, (size_t)size, 0);
        if (got != size)
            e = err_new("reading the exported filter back: %s",
                        got < 0 ? host_strerror(errno) : "short read");
        else
            e = filter_decode(buf, (size_t)size, out);
        g_free(buf);
    }
    close(fd);
    return e;
}

/* The resolved rules into libseccomp, as runc adds them. */
static err_t compile(const struct seccomp_profile *prof, struct bpf_program *out)
{
    /* libseccomp asks the running kernel which actions it has; the
     * program is for seccomp-emu, which has them all. */
    const unsigned int host_api = seccomp_api_get();
    if (host_api < 5)
        seccomp_api_set(5);
    err_t e = OK;
    int rc;
    scmp_filter_ctx ctx = seccomp_init(prof->default_action);
    if (!ctx) {
        e = err_new("libseccomp refuses the default action");
        goto restore;
    }
    /* seccomp_init() adds the host's architecture; the profile decides. */
    if ((rc = seccomp_arch_remove(ctx, seccomp_arch_native())) < 0) {
        e = err_new("libseccomp: removing the host architecture: %s", host_strerror(-rc));
        goto restore;
    }
    for (guint i = 0; i < prof->arches->len; i++) {
        uint32_t arch = g_array_index(prof->arches, uint32_t, i);
        if ((rc = seccomp_arch_add(ctx, arch)) < 0 && rc != -EEXIST) {
            e = err_new("libseccomp refuses architecture %#x: %s", arch, host_strerror(-rc));
            goto restore;
        }
    }
    for (guint i = 0; !e && i < prof->rules->len; i++) {
        const struct rule *r = &g_array_index(prof->rules, struct rule, i);
        if (r->action == prof->default_action)
            continue; /* runc leaves it out: libseccomp refuses it */
        for (guint n = 0; !e && n < r->names->len; n++) {
            const char *name = r->names->pdata[n];
            int nr = seccomp_syscall_resolve_name(name);
            if (r->one_each) {
                rc = 0;
                for (size_t c = 0; c < r->ncmp && rc == 0; c++)
                    rc = seccomp_rule_add_array(ctx, r->action, nr, 1, &r->cmps[c]);
            } else {
                rc = seccomp_rule_add_array(ctx, r->action, nr, (unsigned)r->ncmp, r->cmps);
            }
            if (rc < 0)
                e = err_new("syscalls[%zu]: libseccomp refuses the rule for \"%s\": %s", r->index,
                            name, host_strerror(-rc));
        }
    }
    if (!e)
        e = export_program(ctx, out);
restore:
    if (host_api < 5)
        seccomp_api_set(host_api);
    if (ctx)
        seccomp_release(ctx);
    return e;
}

static const char *const top_keys[] = {
    "defaultAction", "defaultErrnoRet", "defaultErrno", "architectures", "archMap", "flags",
    "syscalls", "comment", NULL,
};

err_t seccomp_profile_compile(const char *text, size_t size, const struct profile_env *env,
                              struct bpf_program *out, unsigned *filter_flags,
                              struct seccomp_profile **resolved)
{
    out->insns = NULL;
    out->len = 0;
    if (resolved)
        *resolved = NULL;
    struct parse p = { .env = env };
    guint32 r1 = g_random_int(), r2 = g_random_int();
    g_snprintf(p.nonce, sizeof(p.nonce), "\x01u64:%08x%08x:", r1, r2);
    g_snprintf(p.nonce_text, sizeof(p.nonce_text), "\\u0001u64:%08x%08x:", r1, r2);
    size_t qsize;
    g_autofree char *quoted = quote_big_numbers(text, size, p.nonce_text, &qsize);
    json_error_t jerr;
    json_t *profile = json_loadb(quoted, qsize, JSON_REJECT_DUPLICATES, &jerr);
    if (!profile)
        return err_new("bad JSON at line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    struct seccomp_profile *prof = g_new0(struct seccomp_profile, 1);
    prof->arches = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    prof->rules = g_array_new(FALSE, FALSE, sizeof(struct rule));
    p.prof = prof;
    unsigned flags = 0;
    err_t e = OK;
    if (!json_is_object(profile)) {
        e = err_new("the profile must be a JSON object");
        goto out;
    }
    if ((e = only_keys(profile, "profile", top_keys)) ||
        (e = parse_action(&p, profile, "profile", true, &prof->default_action)) ||
        (e = parse_arches(&p, profile)) ||
        (e = parse_flags(json_object_get(profile, "flags"), &flags)))
        goto out;
    json_t *rules = json_object_get(profile, "syscalls");
    if (rules && !json_is_null(rules) && !json_is_array(rules)) {
        e = err_new("profile: \"syscalls\" must be an array");
        goto out;
    }
    size_t i;
    json_t *rule;
    json_array_foreach(rules, i, rule)
        if ((e = parse_rule(&p, rule, i)))
            goto out;
    e = compile(prof, out);
out:
    json_decref(profile);
    if (!e && filter_flags)
        *filter_flags = flags;
    if (!e && resolved)
        *resolved = prof;
    else
        seccomp_profile_free(prof);
    return e;
}

void seccomp_profile_free(struct seccomp_profile *p)
{
    if (!p)
        return;
    for (guint i = 0; i < p->rules->len; i++)
        rule_clear(&g_array_index(p->rules, struct rule, i));
    g_array_free(p->rules, TRUE);
    g_array_free(p->arches, TRUE);
    g_free(p);
}

/* libseccomp's comparisons, on the width of the architecture's
 * arguments (a 32-bit one compares the low words). */
static bool cmp_holds(const struct scmp_arg_cmp *c, uint64_t arg, bool narrow)
{
    uint64_t a = c->datum_a, b = c->datum_b;
    if (narrow)
        arg = (uint32_t)arg, a = (uint32_t)a, b = (uint32_t)b;
    switch (c->op) {
    case SCMP_CMP_NE: return arg != a;
    case SCMP_CMP_LT: return arg < a;
    case SCMP_CMP_LE: return arg <= a;
    case SCMP_CMP_EQ: return arg == a;
    case SCMP_CMP_GE: return arg >= a;
    case SCMP_CMP_GT: return arg > a;
    case SCMP_CMP_MASKED_EQ: return (arg & a) == b;
    default: return false;
    }
}

char *seccomp_profile_explain(const void *profile, const struct seccomp_data_linux *d,
                              uint32_t ret)
{
    const struct seccomp_profile *p = profile;
    /* An x32 call comes with the x86_64 arch and the x32 bit in its number. */
    uint32_t arch = d->arch == SCMP_ARCH_X86_64 && (d->nr & 0x40000000) ? SCMP_ARCH_X32 : d->arch;
    bool known_arch = false;
    for (guint i = 0; i < p->arches->len; i++)
        known_arch |= g_array_index(p->arches, uint32_t, i) == arch;
    if (!known_arch)
        return g_strdup("no architecture of the profile: libseccomp's bad-arch action");
    bool narrow = arch == SCMP_ARCH_X86;
    /* By name: libseccomp numbers some calls of an architecture its own
     * way (i386's socket calls), but names them as the kernel does. */
    g_autofree char *called = seccomp_syscall_resolve_num_arch(arch, d->nr);
    for (guint i = 0; i < p->rules->len; i++) {
        const struct rule *r = &g_array_index(p->rules, struct rule, i);
        if (r->action != ret || r->action == p->default_action)
            continue;
        for (guint n = 0; n < r->names->len; n++) {
            const char *name = r->names->pdata[n];
            if (!called || strcmp(called, name))
                continue;
            bool all = true, any = r->ncmp == 0;
            for (size_t c = 0; c < r->ncmp; c++) {
                bool h = cmp_holds(&r->cmps[c], d->args[r->cmps[c].arg], narrow);
                all &= h;
                any |= h;
            }
            if (r->one_each ? any : all)
                return g_strdup_printf("syscalls[%zu] \"%s\"", r->index, name);
        }
    }
    if (ret == p->default_action)
        return g_strdup("defaultAction");
    return NULL;
}

#endif
