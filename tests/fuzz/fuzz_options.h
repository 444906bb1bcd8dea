/* For the harnesses that drive a GOptionGroup of seccomp-emu's. */
#ifndef FUZZ_OPTIONS_H
#define FUZZ_OPTIONS_H

#include <stdbool.h>

#include <glib.h>

/* Parse `words` (a program name first) with `group` alone, as emu/main.c's
 * context parses: strict POSIX order, no --help.  On return *argc and *av
 * are what glib left (the words it did not take); the caller g_free()s *av,
 * whose strings stay owned by `words`. */
static inline bool fuzz_parse_options(GPtrArray *words, GOptionGroup *group, int *argc,
                                      char ***av, GError **err)
{
    *argc = (int)words->len;
    *av = g_new0(char *, words->len + 1);
    for (guint i = 0; i < words->len; i++)
        (*av)[i] = words->pdata[i];
    GOptionContext *ctx = g_option_context_new(NULL);
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_group(ctx, group);
    g_option_context_set_strict_posix(ctx, TRUE);
    bool ok = g_option_context_parse(ctx, argc, av, err);
    g_option_context_free(ctx);
    return ok;
}

#endif
