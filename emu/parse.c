#include "emu/parse.h"

#include <glib.h>

static err_t number(const char *opt, const char *s, bool sized, uint64_t *out)
{
    if (!s || !*s)
        return err_new("--%s needs a number", opt);
    if (!g_ascii_isdigit(*s))
        return err_new("--%s: '%s' is not a number (no sign: a count, size or address)", opt, s);
    /* Digits by hand: strtoull would also take a second 0x after the
     * first, or a sign after it. */
    unsigned base = 10;
    const char *end = s;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, end = s + 2;
    const char *digits = end;
    uint64_t v = 0;
    for (int d; (d = g_ascii_xdigit_value(*end)) >= 0 && (unsigned)d < base; end++) {
        if (v > (UINT64_MAX - (unsigned)d) / base)
            return err_new("--%s: '%s' is too large", opt, s);
        v = v * base + (unsigned)d;
    }
    if (end == digits)
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
