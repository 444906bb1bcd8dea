/* Errors as values.  A failing Unicorn, glib or host call becomes an err_t
 * carrying one human-readable line; the caller decides whether it is fatal.
 * No silent fallbacks. */
#ifndef EMU_STATUS_H
#define EMU_STATUS_H

#include <glib.h>

/* NULL means success; otherwise an owned message to free with err_free. */
typedef char *err_t;

#define OK ((err_t)NULL)

err_t err_new(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void err_free(err_t e);

/* Takes e and returns it with control characters written as \n, \t or
 * \xNN: a message that echoes a command-line word stays one line. */
err_t err_printable(err_t e);

/* Wrap a Unicorn call: evaluates to an err_t naming the call on failure. */
#define UC_TRY(call) uc_err_wrap((call), #call)
err_t uc_err_wrap(int uc_err, const char *what);

#endif
