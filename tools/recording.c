/* Recordings of native runs for seccomp-emu-diff: a directory per case
 * holding stdout, stderr, status and by, the files a reviewer reads.
 * Where the host can run a case, the kernel answers and the recording must
 * agree with it; where it cannot, the recording answers (see recording.h
 * and tests/native_oracle.py for the modes). */
#include "recording.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static const char *const capabilities[] = { "ia32", "tsc-off", "noncanon-rsp" };

static gboolean elf_is_i386(const char *path)
{
    guchar head[20];
    FILE *f = fopen(path, "rb");
    if (!f)
        return FALSE;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    /* ELFCLASS32, e_machine EM_386 */
    return n == sizeof head && memcmp(head, "\177ELF", 4) == 0 && head[4] == 1 &&
           head[18] == 3 && head[19] == 0;
}

/* "NAME yes|no" lines from the probe, as a set of the capabilities present. */
static GHashTable *probe_caps(const char *probe, GError **error)
{
    gchar *argv[] = { (gchar *)probe, NULL }, *out = NULL, *err = NULL;
    gint status = 0;
    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, error))
        return NULL;
    GHashTable *have = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    guint seen = 0;
    gchar **lines = g_strsplit(out, "\n", -1);
    for (gchar **l = lines; *l; l++) {
        const char *value = strchr(*l, ' ');
        for (gsize k = 0; value && k < G_N_ELEMENTS(capabilities); k++)
            if (strlen(capabilities[k]) == (size_t)(value - *l) &&
                strncmp(*l, capabilities[k], (size_t)(value - *l)) == 0 &&
                (strcmp(value, " yes") == 0 || strcmp(value, " no") == 0)) {
                seen |= 1u << k;
                if (strcmp(value, " yes") == 0)
                    g_hash_table_add(have, g_strdup(capabilities[k]));
            }
    }
    g_strfreev(lines);
    if (!g_spawn_check_wait_status(status, NULL) || seen != (1u << G_N_ELEMENTS(capabilities)) - 1) {
        g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                    "%s failed or did not answer yes or no for every capability", probe);
        g_hash_table_destroy(have);
        have = NULL;
    }
    g_free(out);
    g_free(err);
    return have;
}

gchar *native_lacks(const char *probe, const char *program, char **needs, GError **error)
{
    GPtrArray *want = g_ptr_array_new();
    if (elf_is_i386(program))
        g_ptr_array_add(want, "ia32");
    for (char **n = needs; n && *n; n++) {
        gboolean known = FALSE;
        for (gsize k = 0; k < G_N_ELEMENTS(capabilities); k++)
            known |= strcmp(*n, capabilities[k]) == 0;
        if (!known) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "unknown capability %s (ia32, tsc-off, noncanon-rsp)", *n);
            g_ptr_array_free(want, TRUE);
            return NULL;
        }
        g_ptr_array_add(want, *n);
    }
    GString *lacks = g_string_new(NULL);
    if (want->len) {
        GHashTable *have = probe_caps(probe, error);
        if (!have) {
            g_ptr_array_free(want, TRUE);
            return g_string_free(lacks, TRUE);
        }
        for (guint i = 0; i < want->len; i++)
            if (!g_hash_table_contains(have, want->pdata[i]) && !strstr(lacks->str, want->pdata[i]))
                g_string_append_printf(lacks, "%s%s", lacks->len ? ", " : "",
                                       (char *)want->pdata[i]);
        g_hash_table_destroy(have);
    }
    g_ptr_array_free(want, TRUE);
    return g_string_free(lacks, FALSE);
}

static gboolean load_file(const char *dir, const char *name, GString **into, GError **error)
{
    gchar *path = g_build_filename(dir, name, NULL), *text = NULL;
    gsize len = 0;
    gboolean ok = g_file_get_contents(path, &text, &len, error);
    g_free(path);
    if (ok)
        *into = g_string_new_len(text, (gssize)len);
    g_free(text);
    return ok;
}

gboolean recording_load(const char *dir, Recording *r, GError **error)
{
    memset(r, 0, sizeof *r);
    if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
        return FALSE;
    GString *status = NULL, *by = NULL;
    if (!load_file(dir, "stdout", &r->out, error) || !load_file(dir, "stderr", &r->err, error) ||
        !load_file(dir, "status", &status, error) || !load_file(dir, "by", &by, error)) {
        if (status)
            g_string_free(status, TRUE);
        recording_clear(r);
        return FALSE;
    }
    r->status = g_strstrip(g_string_free(status, FALSE));
    r->by = g_strstrip(g_string_free(by, FALSE));
    return TRUE;
}

static gboolean save_file(const char *dir, const char *name, const char *data, gssize len,
                          GError **error)
{
    gchar *path = g_build_filename(dir, name, NULL);
    gboolean ok = g_file_set_contents(path, data, len, error);
    g_free(path);
    return ok;
}

gboolean recording_save(const char *dir, const Recording *r, GError **error)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", dir,
                    g_strerror(errno));
        return FALSE;
    }
    gchar *status = g_strconcat(r->status, "\n", NULL), *by = g_strconcat(r->by, "\n", NULL);
    gboolean ok = save_file(dir, "stdout", r->out->str, (gssize)r->out->len, error) &&
                  save_file(dir, "stderr", r->err->str, (gssize)r->err->len, error) &&
                  save_file(dir, "status", status, -1, error) &&
                  save_file(dir, "by", by, -1, error);
    g_free(status);
    g_free(by);
    return ok;
}

void recording_clear(Recording *r)
{
    if (r->out)
        g_string_free(r->out, TRUE);
    if (r->err)
        g_string_free(r->err, TRUE);
    g_free(r->status);
    g_free(r->by);
    memset(r, 0, sizeof *r);
}

static gchar *cpuinfo_field(const char *field)
{
    gchar *text = NULL, *value = NULL;
#ifndef __linux__
    (void)field;
    return NULL;   /* no /proc/cpuinfo: the model is "?", the vendor the default */
#endif
    if (!g_file_get_contents("/proc/cpuinfo", &text, NULL, NULL))
        return NULL;
    gchar **lines = g_strsplit(text, "\n", -1);
    for (gchar **l = lines; *l && !value; l++)
        if (g_str_has_prefix(*l, field)) {
            const char *colon = strchr(*l, ':');
            if (colon)
                value = g_strstrip(g_strdup(colon + 1));
        }
    g_strfreev(lines);
    g_free(text);
    return value;
}

gchar *kernel_name(void)
{
    struct utsname u;
    gchar *model = cpuinfo_field("model name");
    gchar *name = g_strdup_printf("the kernel: Linux %s on %s", uname(&u) == 0 ? u.release : "?",
                                  model ? model : "?");
    g_free(model);
    return name;
}

const char *host_vendor(void)
{
    gchar *id = cpuinfo_field("vendor_id");
    /* The rule seccomp-emu's --cpu=host follows (emu/cpu.c): AMD or Hygon,
     * else Intel, also with no x86 CPU to read (docs/portability.md). */
    const char *v = id && (strcmp(id, "AuthenticAMD") == 0 || strcmp(id, "HygonGenuine") == 0)
                  ? "amd" : "intel";
    g_free(id);
    return v;
}
