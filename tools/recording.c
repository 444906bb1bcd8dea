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
#include <sys/wait.h>

#include <glib/gstdio.h>

static const char *const capabilities[] = { "ia32", "tsc-off", "noncanon-rsp", "avx",
                                                "x86-64-v3", "vvar-kvm" };

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
                        "unknown capability %s (ia32, tsc-off, noncanon-rsp, avx, x86-64-v3)", *n);
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
    GDateTime *now = g_date_time_new_now_utc();
    gchar *date = g_date_time_format(now, "%Y-%m-%d");
    gchar *name = g_strdup_printf("the kernel: Linux %s on %s, %s",
                                  uname(&u) == 0 ? u.release : "?", model ? model : "?", date);
    g_free(date);
    g_date_time_unref(now);
    g_free(model);
    return name;
}

const char *host_vendor(void)
{
    gchar *id = cpuinfo_field("vendor_id");
    /* The rule seccomp-emu's --cpu=host follows (emu/engine/cpu.c): AMD or Hygon,
     * else Intel, also with no x86 CPU to read (docs/portability.md). */
    const char *v = id && (strcmp(id, "AuthenticAMD") == 0 || strcmp(id, "HygonGenuine") == 0)
                  ? "amd" : "intel";
    g_free(id);
    return v;
}

int vm_answer(const char *python, const char *judge, const char *build, char **argv,
              const char *stdin_path, const char *vendor, int timeout, gboolean cached_only,
              Recording *r, GError **error)
{
    gchar *dir = g_dir_make_tmp("seccomp-emu-vm-XXXXXX", error);
    if (!dir)
        return 2;
    gchar *timeout_text = g_strdup_printf("%d", timeout);
    GPtrArray *cmd = g_ptr_array_new();
    g_ptr_array_add(cmd, (gpointer)python);
    g_ptr_array_add(cmd, (gpointer)judge);
    g_ptr_array_add(cmd, "run");
    g_ptr_array_add(cmd, "--build");
    g_ptr_array_add(cmd, (gpointer)build);
    g_ptr_array_add(cmd, "--answer-dir");
    g_ptr_array_add(cmd, dir);
    g_ptr_array_add(cmd, "--timeout");
    g_ptr_array_add(cmd, timeout_text);
    if (stdin_path && strcmp(stdin_path, "/dev/null") != 0) {
        g_ptr_array_add(cmd, "--stdin-file");
        g_ptr_array_add(cmd, (gpointer)stdin_path);
    }
    if (vendor) {
        g_ptr_array_add(cmd, "--vendor");
        g_ptr_array_add(cmd, (gpointer)vendor);
    }
    if (cached_only)
        g_ptr_array_add(cmd, "--cached-only");
    g_ptr_array_add(cmd, "--");
    for (char **a = argv; *a; a++)
        g_ptr_array_add(cmd, *a);
    g_ptr_array_add(cmd, NULL);
    gchar *err_text = NULL;
    gint status = 0;
    int verdict = 2;
    if (g_spawn_sync(NULL, (gchar **)cmd->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                     &err_text, &status, error)) {
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == 0) {
            verdict = recording_load(dir, r, error) ? 0 : 2;
            if (verdict && error && !*error)
                g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                            "%s wrote no answer", judge);
        } else if (code == 4 || code == 3) {
            verdict = code == 4 ? 1 : 3;
        } else {
            gchar *line = g_strstrip(g_strdup(err_text ? err_text : ""));
            gchar *nl = strrchr(line, '\n');
            g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED, "%s",
                        *line ? (nl ? nl + 1 : line) : "the VM judge failed");
            g_free(line);
        }
    }
    for (const char *const *f = (const char *const[]){ "stdout", "stderr", "status", "by", NULL };
         *f; f++) {
        gchar *path = g_build_filename(dir, *f, NULL);
        g_unlink(path);
        g_free(path);
    }
    g_rmdir(dir);
    g_free(dir);
    g_free(err_text);
    g_free(timeout_text);
    g_ptr_array_free(cmd, TRUE);
    return verdict;
}

gchar *vm_pinned(const char *store, const char *harness, const char *key)
{
    gchar *path = g_build_filename(store, "vm-differences.txt", NULL), *text = NULL;
    gchar *why = NULL;
    if (g_file_get_contents(path, &text, NULL, NULL)) {
        gchar **lines = g_strsplit(text, "\n", -1);
        for (gchar **l = lines; *l && !why; l++) {
            gchar **f = g_strsplit(*l, "\t", -1);
            if (g_strv_length(f) == 5 && strcmp(f[0], harness) == 0 && strcmp(f[1], key) == 0)
                why = g_strdup(f[4]);
            g_strfreev(f);
        }
        g_strfreev(lines);
    }
    g_free(text);
    g_free(path);
    return why;
}
