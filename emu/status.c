#include "emu/status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <unicorn/unicorn.h>

err_t err_new(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    return s;
}

void err_free(err_t e) { g_free(e); }

/* Appends s as printable ASCII, at most `max` bytes of it; `quote`: the
 * backslash and the quote character are escaped too, so that a quoted
 * value reads back unambiguously. */
static void append_escaped(GString *g, const char *s, size_t max, bool quote)
{
    size_t len = strlen(s), n = MIN(len, max);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n')
            g_string_append(g, "\\n");
        else if (c == '\t')
            g_string_append(g, "\\t");
        else if (c < 0x20 || c >= 0x7f || (quote && (c == '\\' || c == '\'')))
            g_string_append_printf(g, c == '\\' || c == '\'' ? "\\%c" : "\\x%02x", c);
        else
            g_string_append_c(g, (char)c);
    }
    if (n < len)
        g_string_append_printf(g, "[... %zu bytes in all]", len);
}

err_t err_printable(err_t e)
{
    if (!e)
        return OK;
    GString *g = g_string_sized_new(MIN(strlen(e), ERR_LINE_MAX) + 32);
    append_escaped(g, e, ERR_LINE_MAX, false);
    g_free(e);
    return g_string_free(g, FALSE);
}

char *err_quote(const char *s)
{
    GString *g = g_string_new("'");
    append_escaped(g, s ? s : "", ERR_VALUE_MAX, true);
    g_string_append_c(g, '\'');
    return g_string_free(g, FALSE);
}

/* strerror_r is GNU's (the message, maybe a static string) with
 * _GNU_SOURCE on glibc and POSIX's (0 once buf holds it) elsewhere. */
static const char *strerror_r_gnu(const char *r, const char *buf)
{
    (void)buf;
    return r;
}

static const char *strerror_r_posix(int r, const char *buf) { return r == 0 ? buf : NULL; }

#define STRERROR_R_MESSAGE(r, buf) \
    _Generic((r), char *: strerror_r_gnu, default: strerror_r_posix)((r), (buf))

const char *host_strerror(int err)
{
    static _Thread_local char buf[128];
    const char *msg = STRERROR_R_MESSAGE(strerror_r(err, buf, sizeof(buf)), buf);
    if (!msg || !*msg) {
        snprintf(buf, sizeof(buf), "Unknown error %d", err);
        msg = buf;
    }
    return msg;
}

static GLogWriterOutput one_line_log_writer(GLogLevelFlags level, const GLogField *fields,
                                            gsize n_fields, gpointer user_data)
{
    (void)user_data;
    const char *message = NULL, *domain = NULL;
    for (gsize i = 0; i < n_fields; i++) {
        if (fields[i].length >= 0)
            continue; /* binary fields: no message among them */
        if (!strcmp(fields[i].key, "MESSAGE"))
            message = fields[i].value;
        else if (!strcmp(fields[i].key, "GLIB_DOMAIN"))
            domain = fields[i].value;
    }
    /* G_MESSAGES_DEBUG still chooses which debug and info lines show. */
    if (g_log_writer_default_would_drop(level, domain))
        return G_LOG_WRITER_HANDLED;
    const char *what = (level & G_LOG_LEVEL_ERROR)      ? "error"
                       : (level & G_LOG_LEVEL_CRITICAL) ? "critical"
                       : (level & G_LOG_LEVEL_WARNING)  ? "warning"
                       : (level & G_LOG_LEVEL_MESSAGE)  ? "message"
                       : (level & G_LOG_LEVEL_INFO)     ? "info"
                                                        : "debug";
    char *line = err_printable(g_strdup_printf("%s%s%s: %s", domain ? domain : "",
                                               domain ? ": " : "", what,
                                               message ? message : "(no message)"));
    fprintf(stderr, "seccomp-emu: %s\n", line);
    fflush(stderr);
    g_free(line);
    if (level & G_LOG_LEVEL_ERROR)
        _exit(EXIT_CANNOT_RUN);
    return G_LOG_WRITER_HANDLED;
}

void err_install_log_writer(void) { g_log_set_writer_func(one_line_log_writer, NULL, NULL); }

err_t uc_err_wrap(int e, const char *what)
{
    if (e == UC_ERR_OK)
        return OK;
    return err_new("unicorn: %s: %s", what, uc_strerror((uc_err)e));
}
