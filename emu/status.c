#include "emu/status.h"

#include <stdarg.h>
#include <string.h>
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

err_t err_printable(err_t e)
{
    if (!e)
        return OK;
    GString *g = g_string_sized_new(strlen(e));
    for (const unsigned char *c = (const unsigned char *)e; *c; c++) {
        if (*c == '\n')
            g_string_append(g, "\\n");
        else if (*c == '\t')
            g_string_append(g, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            g_string_append_printf(g, "\\x%02x", *c);
        else
            g_string_append_c(g, (char)*c);
    }
    g_free(e);
    return g_string_free(g, FALSE);
}

err_t uc_err_wrap(int e, const char *what)
{
    if (e == UC_ERR_OK)
        return OK;
    return err_new("unicorn: %s: %s", what, uc_strerror((uc_err)e));
}
