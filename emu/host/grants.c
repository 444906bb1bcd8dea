#include "emu/host/grants.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/kernel/vfs.h"

err_t grant_spec_parse(const char *arg, struct grant_spec *out)
{
    memset(out, 0, sizeof(*out));
    out->text = g_strdup(arg);
    const char *sep = NULL;
    for (const char *p = strstr(arg, ":/"); p; p = strstr(p + 1, ":/"))
        sep = p;
    out->host = sep ? g_strndup(arg, (gsize)(sep - arg)) : g_strdup(arg);
    if (!*out->host)
        return err_printable(err_new("--ro %s: no host path", arg));
    if (sep) {
        out->guest = g_strdup(sep + 1);
    } else {
        /* The guest sees it where the host has it; not resolved, so a
         * symlink given keeps the name given. */
        out->guest = g_canonicalize_filename(out->host, NULL);
    }
    return OK;
}

void grant_spec_clear(struct grant_spec *s)
{
    g_free(s->host);
    g_free(s->guest);
    g_free(s->text);
    memset(s, 0, sizeof(*s));
}

static GPtrArray *opt_grants; /* struct grant_spec *, in command-line order */
static char *opt_cwd;

static void spec_free(gpointer p)
{
    grant_spec_clear(p);
    g_free(p);
}

static gboolean on_ro(const gchar *name, const gchar *value, gpointer data, GError **error)
{
    (void)name, (void)data;
    if (!opt_grants)
        opt_grants = g_ptr_array_new_with_free_func(spec_free);
    struct grant_spec *s = g_new0(struct grant_spec, 1);
    err_t e = grant_spec_parse(value, s);
    if (e) {
        g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, e);
        err_free(e);
        spec_free(s);
        return FALSE;
    }
    g_ptr_array_add(opt_grants, s);
    return TRUE;
}

static const GOptionEntry grants_entries[] = {
    { "ro", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer)on_ro,
      "Let the guest read this host file or directory tree, at GUESTPATH (default: the "
      "same path) in its otherwise empty file namespace (repeatable)",
      "HOSTPATH[:GUESTPATH]" },
    { "cwd", 0, 0, G_OPTION_ARG_FILENAME, &opt_cwd,
      "The guest's working directory at start, a path of its namespace (default: /)", "PATH" },
    { NULL },
};

GOptionGroup *grants_option_group(void)
{
    GOptionGroup *g = g_option_group_new("files", "Files the guest may read:",
                                         "Show the file options", NULL, NULL);
    g_option_group_add_entries(g, grants_entries);
    return g;
}

void grants_options_reset(void)
{
    g_clear_pointer(&opt_grants, g_ptr_array_unref);
    g_clear_pointer(&opt_cwd, g_free);
}

/* Open the host side: a directory or a regular file, read-only.  The user
 * named it, so symlinks on its way are the user's and are followed. */
static err_t open_grant(const struct grant_spec *s, int *fd, bool *is_dir)
{
    int h = open(s->host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (h < 0)
        return err_new("cannot open %s: %s", s->host, host_strerror(errno));
    struct stat st;
    if (fstat(h, &st) < 0) {
        err_t e = err_new("%s: %s", s->host, host_strerror(errno));
        close(h);
        return e;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
        close(h);
        return err_new("%s is neither a directory nor a regular file", s->host);
    }
    *fd = h;
    *is_dir = S_ISDIR(st.st_mode);
    return OK;
}

err_t grants_setup(struct task *t)
{
    for (guint i = 0; opt_grants && i < opt_grants->len; i++) {
        const struct grant_spec *s = opt_grants->pdata[i];
        int fd = -1;
        bool dir = false;
        err_t e = open_grant(s, &fd, &dir);
        if (!e && (e = vfs_grant_add(s->guest, fd, dir)))
            close(fd);
        if (e) {
            err_t full = err_new("--ro %s: %s", s->text, e);
            err_free(e);
            return err_printable(full);
        }
    }
    return err_printable(vfs_task_init(t, opt_cwd));
}
