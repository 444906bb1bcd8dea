/* The OCI profile compiler (seccomp_profile.h).  What runc does with the
 * same object (libcontainer/seccomp/patchbpf and seccomp_linux.go) decides
 * the details: errnoRet defaults to EPERM for ERRNO and TRACE; a rule whose
 * action equals the default is left out; several conditions on one
 * argument index make one rule each (libseccomp refuses them in one rule).
 * Unlike runc, a syscall name libseccomp does not know is an error, not
 * silently skipped: a typo in a policy must not loosen it. */
#include "loaders/seccomp_profile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_SECCOMP_PROFILE
#include <jansson.h>
#include <seccomp.h>
#include <sys/mman.h>
#endif

err_t seccomp_profile_load(const char *path, bool is64, struct bpf_program *out)
{
    out->insns = NULL;
    out->len = 0;
    if (!seccomp_profile_available())
        return err_new("--seccomp-profile is not available: this build has no libseccomp "
                       "(Linux only); compile the profile on Linux and pass --filter");
    gchar *data = NULL;
    gsize size = 0;
    GError *gerr = NULL;
    if (!g_file_get_contents(path, &data, &size, &gerr)) {
        err_t e = err_new("%s", gerr->message);
        g_error_free(gerr);
        return err_printable(e);
    }
    err_t e = seccomp_profile_compile(data, size, is64, out);
    g_free(data);
    if (e) {
        err_t named = err_new("%s: %s", path, e);
        err_free(e);
        return err_printable(named);
    }
    return OK;
}

#ifndef HAVE_SECCOMP_PROFILE

bool seccomp_profile_available(void)
{
    return false;
}

err_t seccomp_profile_compile(const char *json, size_t size, bool is64, struct bpf_program *out)
{
    (void)json, (void)size, (void)is64, (void)out;
    return err_new("--seccomp-profile is not available: this build has no libseccomp");
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
    { "SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY, false },
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

/* Reads an action and its errnoRet into a libseccomp action value. */
static err_t parse_action(json_t *obj, const char *where, uint32_t *action)
{
    const char *field = strcmp(where, "profile") ? "action" : "defaultAction";
    const char *errno_field = strcmp(where, "profile") ? "errnoRet" : "defaultErrnoRet";
    json_t *name = json_object_get(obj, field);
    if (!json_is_string(name))
        return err_new("%s: \"%s\" must be a string", where, field);
    const char *s = json_string_value(name);
    for (size_t i = 0; i < G_N_ELEMENTS(profile_actions); i++) {
        if (strcmp(profile_actions[i].name, s))
            continue;
        json_t *ret = json_object_get(obj, errno_field);
        json_int_t data = EPERM;
        if (ret && !json_is_integer(ret))
            return err_new("%s: \"%s\" must be an integer", where, errno_field);
        if (ret)
            data = json_integer_value(ret);
        if (ret && !profile_actions[i].takes_errno)
            return err_new("%s: \"%s\" goes only with SCMP_ACT_ERRNO or SCMP_ACT_TRACE", where,
                           errno_field);
        if (data < 0 || data > 0xffff)
            return err_new("%s: \"%s\" %" JSON_INTEGER_FORMAT " is outside 0..65535", where,
                           errno_field, data);
        *action = profile_actions[i].action | (profile_actions[i].takes_errno ? (uint32_t)data : 0);
        return OK;
    }
    return err_new("%s: unknown action \"%s\"", where, s);
}

static err_t parse_u64(json_t *v, const char *where, const char *field, uint64_t *out)
{
    if (!v) {
        *out = 0;
        return OK;
    }
    /* jansson's integers are signed 64-bit: the upper half of the range
     * comes back negative and is the same bit pattern. */
    if (!json_is_integer(v))
        return err_new("%s: \"%s\" must be an integer", where, field);
    *out = (uint64_t)json_integer_value(v);
    return OK;
}

static err_t parse_args(json_t *args, const char *where, struct scmp_arg_cmp *cmps, size_t *n)
{
    *n = 0;
    if (!args || json_is_null(args))
        return OK;
    if (!json_is_array(args))
        return err_new("%s: \"args\" must be an array", where);
    if (json_array_size(args) > 6)
        return err_new("%s: more than 6 argument conditions", where);
    size_t i;
    json_t *a;
    json_array_foreach(args, i, a) {
        g_autofree char *at = g_strdup_printf("%s.args[%zu]", where, i);
        if (!json_is_object(a))
            return err_new("%s: must be an object", at);
        json_t *index = json_object_get(a, "index");
        if (!json_is_integer(index) || json_integer_value(index) < 0 || json_integer_value(index) > 5)
            return err_new("%s: \"index\" must be an integer 0..5", at);
        json_t *op = json_object_get(a, "op");
        if (!json_is_string(op))
            return err_new("%s: \"op\" must be a string", at);
        size_t k;
        for (k = 0; k < G_N_ELEMENTS(profile_ops); k++)
            if (!strcmp(profile_ops[k].name, json_string_value(op)))
                break;
        if (k == G_N_ELEMENTS(profile_ops))
            return err_new("%s: unknown op \"%s\"", at, json_string_value(op));
        uint64_t value = 0, value_two = 0;
        err_t e;
        if ((e = parse_u64(json_object_get(a, "value"), at, "value", &value)) ||
            (e = parse_u64(json_object_get(a, "valueTwo"), at, "valueTwo", &value_two)))
            return e;
        cmps[i] = (struct scmp_arg_cmp){ .arg = (unsigned)json_integer_value(index),
                                         .op = profile_ops[k].op,
                                         .datum_a = value,
                                         .datum_b = value_two };
        (*n)++;
    }
    return OK;
}

static bool indexes_repeat(const struct scmp_arg_cmp *cmps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (cmps[i].arg == cmps[j].arg)
                return true;
    return false;
}

static err_t add_rules(scmp_filter_ctx ctx, json_t *rule, const char *where, uint32_t default_action)
{
    if (!json_is_object(rule))
        return err_new("%s: must be an object", where);
    uint32_t action;
    struct scmp_arg_cmp cmps[6];
    size_t ncmp;
    err_t e;
    if ((e = parse_action(rule, where, &action)) ||
        (e = parse_args(json_object_get(rule, "args"), where, cmps, &ncmp)))
        return e;
    /* Docker's own format chooses rules by capability and kernel; a
     * runtime hands the OCI object only what it resolved. */
    if (json_object_get(rule, "includes") || json_object_get(rule, "excludes"))
        return err_new("%s: \"includes\"/\"excludes\" are Docker's, not OCI's: give the "
                       "profile the runtime resolved", where);
    json_t *names = json_object_get(rule, "names");
    json_t *single = json_object_get(rule, "name"); /* older profiles */
    if (!names && single) {
        names = json_array();
        json_array_append(names, single);
    } else {
        json_incref(names);
    }
    if (!json_is_array(names) || json_array_size(names) == 0) {
        json_decref(names);
        return err_new("%s: \"names\" must be a non-empty array of syscall names", where);
    }
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n) {
        if (!json_is_string(n)) {
            e = err_new("%s.names[%zu]: must be a string", where, i);
            break;
        }
        const char *name = json_string_value(n);
        int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR) {
            e = err_new("%s: unknown syscall \"%s\"", where, name);
            break;
        }
        if (action == default_action)
            continue;
        int rc;
        if (indexes_repeat(cmps, ncmp)) {
            rc = 0;
            for (size_t c = 0; c < ncmp && rc == 0; c++)
                rc = seccomp_rule_add_array(ctx, action, nr, 1, &cmps[c]);
        } else {
            rc = seccomp_rule_add_array(ctx, action, nr, (unsigned)ncmp, cmps);
        }
        if (rc < 0) {
            e = err_new("%s: libseccomp refuses the rule for \"%s\": %s", where, name, g_strerror(-rc));
            break;
        }
    }
    json_decref(names);
    return e;
}

static err_t add_arches(scmp_filter_ctx ctx, json_t *profile, bool is64)
{
    uint32_t guest = is64 ? SCMP_ARCH_X86_64 : SCMP_ARCH_X86;
    json_t *arches = json_object_get(profile, "architectures");
    if (arches && !json_is_null(arches) && !json_is_array(arches))
        return err_new("profile: \"architectures\" must be an array");
    int rc;
    if (!arches || json_array_size(arches) == 0) {
        /* The runtime's native architecture: the guest's. */
        if ((rc = seccomp_arch_add(ctx, guest)) < 0 && rc != -EEXIST)
            return err_new("libseccomp cannot add the guest's architecture: %s", g_strerror(-rc));
        return OK;
    }
    size_t i;
    json_t *a;
    json_array_foreach(arches, i, a) {
        size_t k = G_N_ELEMENTS(profile_arches);
        if (json_is_string(a))
            for (k = 0; k < G_N_ELEMENTS(profile_arches); k++)
                if (!strcmp(profile_arches[k].oci, json_string_value(a)))
                    break;
        if (k == G_N_ELEMENTS(profile_arches))
            return err_new("profile: architectures[%zu]: unknown architecture", i);
        if ((rc = seccomp_arch_add(ctx, profile_arches[k].arch)) < 0 && rc != -EEXIST)
            return err_new("profile: architectures[%zu]: libseccomp refuses %s: %s", i,
                           profile_arches[k].oci, g_strerror(-rc));
    }
    return OK;
}

/* seccomp_export_bpf() writes to a descriptor; a memfd keeps it in memory
 * (libseccomp, and so this file, exists only on Linux). */
static err_t export_program(scmp_filter_ctx ctx, struct bpf_program *out)
{
    int fd = memfd_create("seccomp-emu-profile", MFD_CLOEXEC);
    if (fd < 0)
        return err_new("memfd_create: %s", g_strerror(errno));
    err_t e = OK;
    int rc = seccomp_export_bpf(ctx, fd);
    off_t size = lseek(fd, 0, SEEK_END);
    if (rc < 0) {
        e = err_new("libseccomp cannot export the filter: %s", g_strerror(-rc));
    } else if (size < 0) {
        e = err_new("lseek: %s", g_strerror(errno));
    } else {
        uint8_t *buf = g_malloc((size_t)size + 1);
        ssize_t got = pread(fd, buf, (size_t)size, 0);
        if (got != size)
            e = err_new("reading the exported filter back: %s",
                        got < 0 ? g_strerror(errno) : "short read");
        else
            e = filter_decode(buf, (size_t)size, out);
        g_free(buf);
    }
    close(fd);
    return e;
}

static const char *const known_keys[] = {
    "defaultAction", "defaultErrnoRet", "architectures", "archMap", "flags", "syscalls",
};

err_t seccomp_profile_compile(const char *text, size_t size, bool is64, struct bpf_program *out)
{
    out->insns = NULL;
    out->len = 0;
    json_error_t jerr;
    json_t *profile = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!profile)
        return err_new("bad JSON at line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    err_t e = OK;
    scmp_filter_ctx ctx = NULL;
    uint32_t default_action;
    const char *key;
    json_t *value;
    if (!json_is_object(profile)) {
        e = err_new("the profile must be a JSON object");
        goto out;
    }
    json_object_foreach(profile, key, value) {
        size_t k;
        for (k = 0; k < G_N_ELEMENTS(known_keys); k++)
            if (!strcmp(key, known_keys[k]))
                break;
        if (k == G_N_ELEMENTS(known_keys)) {
            e = err_new("profile: unknown field \"%s\"%s", key,
                        strcmp(key, "listenerPath") ? "" : " (user notification needs a listener "
                                                          "seccomp-emu does not run)");
            goto out;
        }
    }
    if (json_object_get(profile, "archMap")) {
        e = err_new("profile: \"archMap\" is Docker's: give \"architectures\" as OCI does");
        goto out;
    }
    if ((e = parse_action(profile, "profile", &default_action)))
        goto out;
    /* libseccomp asks the running kernel which actions it has; the
     * program is for seccomp-emu, which has them all. */
    const unsigned int host_api = seccomp_api_get();
    if (host_api < 5)
        seccomp_api_set(5);
    ctx = seccomp_init(default_action);
    if (!ctx) {
        e = err_new("libseccomp refuses the default action");
        goto restore;
    }
    /* seccomp_init() adds the host's architecture; the profile decides. */
    int rc;
    if ((rc = seccomp_arch_remove(ctx, seccomp_arch_native())) < 0) {
        e = err_new("libseccomp: removing the host architecture: %s", g_strerror(-rc));
        goto restore;
    }
    if ((e = add_arches(ctx, profile, is64)))
        goto restore;
    json_t *rules = json_object_get(profile, "syscalls");
    if (rules && !json_is_null(rules) && !json_is_array(rules)) {
        e = err_new("profile: \"syscalls\" must be an array");
        goto restore;
    }
    size_t i;
    json_t *rule;
    json_array_foreach(rules, i, rule) {
        g_autofree char *where = g_strdup_printf("syscalls[%zu]", i);
        if ((e = add_rules(ctx, rule, where, default_action)))
            goto restore;
    }
    e = export_program(ctx, out);
restore:
    if (host_api < 5)
        seccomp_api_set(host_api);
out:
    if (ctx)
        seccomp_release(ctx);
    json_decref(profile);
    return e;
}

#endif
