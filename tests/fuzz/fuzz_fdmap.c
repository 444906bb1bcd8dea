/* libFuzzer harness: the --fd parser (emu/host/fdmap.c), word by word through
 * fdspec_parse() and all together through the option group main.c uses.
 * Checked for each word: a refusal is one line; an accepted spec obeys
 * the documented forms (guest 0..1023, port 1..65535 or 0 for listen, a
 * non-empty host or path exactly where the form has one), and written back
 * in its canonical form it parses to the same spec (a round trip), whose
 * canonical form is itself.  Parsing opens no descriptor.  For the whole
 * command line: glib's parse succeeds exactly when every word parses and
 * no guest descriptor is named twice, whatever the bytes (paths are
 * bytes, not text in some locale).
 *
 * Input: byte 0 bit 0 adds --close-std; the rest is words split at NUL. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "emu/host/fdmap.h"
#include "tests/fuzz/fuzz_options.h"

static void one_line(const char *what, const char *msg)
{
    if (strchr(msg, '\n') || !*msg) {
        fprintf(stderr, "%s: not a one-line error: \"%s\"\n", what, msg);
        abort();
    }
}

static bool has_host(enum fdspec_kind k) { return k == FDSPEC_TCP || k == FDSPEC_LISTEN; }

static bool has_path(enum fdspec_kind k)
{
    return k == FDSPEC_UNIX || k == FDSPEC_FILE_R || k == FDSPEC_FILE_W || k == FDSPEC_FILE_A;
}

static char *canonical(const struct fdspec *s)
{
    static const char *const prefix[] = {
        [FDSPEC_FD] = "fd:",         [FDSPEC_NULL] = "null",    [FDSPEC_TCP] = "tcp:",
        [FDSPEC_LISTEN] = "listen:", [FDSPEC_UNIX] = "unix:",   [FDSPEC_FILE_R] = "file:",
        [FDSPEC_FILE_W] = "file-w:", [FDSPEC_FILE_A] = "file-a:",
    };
    GString *g = g_string_new(NULL);
    g_string_append_printf(g, "%d=%s", s->guest, prefix[s->kind]);
    if (s->kind == FDSPEC_FD)
        g_string_append_printf(g, "%d", s->host_fd);
    else if (has_host(s->kind))
        g_string_append_printf(g, strchr(s->host, ':') ? "[%s]:%u" : "%s:%u", s->host, s->port);
    else if (has_path(s->kind))
        g_string_append(g, s->path);
    return g_string_free(g, FALSE);
}

static void check_spec(const char *arg, const struct fdspec *s)
{
    bool ok = s->guest >= 0 && s->guest < FD_MAX_GUEST && s->kind >= FDSPEC_FD &&
              s->kind <= FDSPEC_FILE_A && s->text && !strcmp(s->text, arg);
    ok = ok && (s->kind == FDSPEC_FD ? s->host_fd >= 0 : s->host_fd == 0);
    ok = ok && (has_host(s->kind) ? s->host && *s->host && (s->port || s->kind == FDSPEC_LISTEN)
                                  : !s->host && !s->port);
    ok = ok && (has_path(s->kind) ? s->path && *s->path : !s->path);
    if (!ok) {
        fprintf(stderr, "\"%s\": a spec outside the documented forms\n", arg);
        abort();
    }
}

static bool same_spec(const struct fdspec *a, const struct fdspec *b)
{
    return a->guest == b->guest && a->kind == b->kind && a->host_fd == b->host_fd &&
           a->port == b->port && !g_strcmp0(a->host, b->host) && !g_strcmp0(a->path, b->path);
}

/* The lowest free descriptor: it changes if parsing leaves one open. */
static int lowest_free(void)
{
    int fd = fcntl(2, F_DUPFD, 0);
    if (fd < 0)
        fd = open("/dev/null", O_RDONLY);
    if (fd < 0)
        abort();
    close(fd);
    return fd;
}

/* Parses one word; returns its guest descriptor, or -1 when refused. */
static int check_word(const char *arg)
{
    struct fdspec s, again;
    int before = lowest_free();
    err_t e = fdspec_parse(arg, &s);
    int guest = -1;
    if (e) {
        one_line(arg, e);
        err_free(e);
    } else {
        check_spec(arg, &s);
        char *c = canonical(&s);
        e = fdspec_parse(c, &again);
        if (e) {
            fprintf(stderr, "\"%s\" parsed, its canonical form \"%s\" did not: %s\n", arg, c, e);
            abort();
        }
        char *c2 = canonical(&again);
        if (!same_spec(&s, &again) || strcmp(c, c2)) {
            fprintf(stderr, "\"%s\" -> \"%s\" -> \"%s\": the round trip changed it\n", arg, c, c2);
            abort();
        }
        g_free(c);
        g_free(c2);
        fdspec_clear(&again);
        guest = s.guest;
    }
    fdspec_clear(&s);
    if (lowest_free() != before) {
        fprintf(stderr, "\"%s\": parsing left a descriptor open\n", arg);
        abort();
    }
    return guest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(argv, g_strdup("seccomp-emu"));
    if (data[0] & 1)
        g_ptr_array_add(argv, g_strdup("--close-std"));
    bool want_ok = true, seen[FD_MAX_GUEST] = { false };
    for (size_t at = 1; at < size;) {
        size_t n = 0;
        while (at + n < size && data[at + n])
            n++;
        char *w = g_strndup((const char *)data + at, n);
        at += n + 1;
        int guest = check_word(w);
        if (guest < 0 || seen[guest])
            want_ok = false;
        else
            seen[guest] = true;
        g_ptr_array_add(argv, g_strconcat("--fd=", w, NULL));
        g_free(w);
    }

    int argc;
    char **av;
    GError *gerr = NULL;
    bool ok = fuzz_parse_options(argv, fdmap_option_group(), &argc, &av, &gerr);
    if (ok != want_ok || (ok && argc != 1)) {
        fprintf(stderr, "the --fd options were %s (%s), the words say %s\n",
                ok ? "accepted" : "refused", gerr ? gerr->message : "-",
                want_ok ? "accept" : "refuse");
        abort();
    }
    if (gerr) {
        one_line("--fd", gerr->message);
        g_error_free(gerr);
    }
    fdmap_options_reset();
    g_free(av);
    g_ptr_array_unref(argv);
    return 0;
}
