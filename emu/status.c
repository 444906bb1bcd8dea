#include "emu/status.h"

#include <stdarg.h>
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

err_t uc_err_wrap(int e, const char *what)
{
    if (e == UC_ERR_OK)
        return OK;
    return err_new("unicorn: %s: %s", what, uc_strerror((uc_err)e));
}
