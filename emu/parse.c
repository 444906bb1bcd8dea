#include "emu/parse.h"

#include <errno.h>
#include <glib.h>

static err_t number(const char *opt, const char *s, bool sized, uint64_t *out)
{
    if (!s || !*s)
        return err_new("--%s needs a number", opt);
    if (!g_ascii_isdigit(*s))
        return err_new("--%s: '%s' is not a number (no sign: a count, size or address)", opt, s);
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    char *end = NULL;
    errno = 0;
    uint64_t v = g_ascii_strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (errno == ERANGE)
        return err_new("--%s: '%s' is too large", opt, s);
    if (errno || end == (hex ? s + 2 : s))
        return err_new("--%s: '%s' is not a number", opt, s);
    unsigned shift = 0;
    if (sized && *end) {
        switch (g_ascii_toupper(*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: return err_new("--%s: '%s' is not a number (suffixes: K, M, G, T)", opt, s);
        }
        end++;
        if (end[0] == 'i' && g_ascii_toupper(end[1]) == 'B')
            end += 2;
        else if (g_ascii_toupper(end[0]) == 'B')
            end++;
    }
    if (*end)
        return err_new("--%s: '%s' is not a number", opt, s);
    if (shift && v > (UINT64_MAX >> shift))
        return err_new("--%s: '%s' is too large", opt, s);
    *out = v << shift;
    return OK;
}

err_t parse_number(const char *opt, const char *s, bool sized, uint64_t *out)
{
    return err_printable(number(opt, s, sized, out));
}
