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

/* Every diagnostic is one line a log can trust: what came from the user
 * (option values, file names, names in a profile) is escaped, never echoed
 * raw.  A line is cut after ERR_LINE_MAX bytes, a quoted value after
 * ERR_VALUE_MAX, each with a marker giving the whole length. */
#define ERR_LINE_MAX 1024
#define ERR_VALUE_MAX 128

/* Takes e and returns it with control characters and bytes outside ASCII
 * written as \n, \t or \xNN, cut to ERR_LINE_MAX: a message that echoes
 * a command-line word stays one line. */
err_t err_printable(err_t e);

/* A user's value for a message: in single quotes, escaped as above plus
 * backslash and quote, cut to ERR_VALUE_MAX.  Free with g_free. */
char *err_quote(const char *s);

/* The host's message for host errno `err`, for every diagnostic, since any
 * may be printed after the self-sandbox is on (emu/host/sandbox_linux.c):
 * strerror_r, which reads the C library's table.  Never g_strerror(): the
 * first time it meets a number outside a UTF-8 locale (seccomp-emu never
 * calls setlocale, so always) it converts the text to UTF-8, and opening
 * the conversion reads glib's charset.alias and iconv's
 * gconv-modules.cache, openat calls the filter kills: SIGSYS instead of
 * the line.  The text stays valid until this thread's next call. */
const char *host_strerror(int err);

/* The status of a run seccomp-emu cannot go on with, set-up done: a host
 * resource it needs was refused (the guard range under a host RLIMIT_AS),
 * or a call that cannot fail did.  One line on standard error says which;
 * the status is a program's that cannot be executed (docs/seccomp-emu.1). */
#define EXIT_CANNOT_RUN 126

/* glib's own log writer converts each g_error, g_critical or g_warning
 * line to the locale's charset and stamps it with the local time, which
 * opens charset.alias, gconv-modules.cache and /etc/localtime: after the
 * self-sandbox, SIGSYS instead of the line.  This writer prints
 * "seccomp-emu: LEVEL: message" as one line (err_printable) and nothing
 * else; main() installs it before anything can log.  A g_error (and glib's
 * own fatal errors, an allocation that fails) then ends the run with
 * EXIT_CANNOT_RUN, never with glib's abort: no core file, no signal that
 * a caller would take for the guest's. */
void err_install_log_writer(void);

/* Wrap a Unicorn call: evaluates to an err_t naming the call on failure. */
#define UC_TRY(call) uc_err_wrap((call), #call)
err_t uc_err_wrap(int uc_err, const char *what);

#endif
