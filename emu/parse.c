#include "emu/parse.h"

#include <string.h>

#include "abi/caps_linux.h"

#include <glib.h>

/* "--OPT: 'VALUE' WHY", the value quoted (emu/status.h). */
static err_t bad(const char *opt, const char *s, const char *why)
{
    g_autofree char *q = err_quote(s);
    return err_new("--%s: %s %s", opt, q, why);
}

static err_t number(const char *opt, const char *s, bool sized, uint64_t *out)
{
    if (!s || !*s)
        return err_new("--%s needs a number", opt);
    if (!g_ascii_isdigit(*s))
        return bad(opt, s, "is not a number (no sign: a count, size or address)");
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
            return bad(opt, s, "is too large");
        v = v * base + (unsigned)d;
    }
    if (end == digits)
        return bad(opt, s, "is not a number");
    unsigned shift = 0;
    if (sized && *end) {
        switch (g_ascii_toupper(*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: return bad(opt, s, "is not a number (suffixes: K, M, G, T)");
        }
        end++;
        if (end[0] == 'i' && g_ascii_toupper(end[1]) == 'B')
            end += 2;
        else if (g_ascii_toupper(end[0]) == 'B')
            end++;
    }
    if (*end)
        return bad(opt, s, "is not a number");
    if (shift && v > (UINT64_MAX >> shift))
        return bad(opt, s, "is too large");
    *out = v << shift;
    return OK;
}

err_t parse_number(const char *opt, const char *s, bool sized, uint64_t *out)
{
    return err_printable(number(opt, s, sized, out));
}

/* The sets a container runtime grants by default: moby's
 * oci/caps.DefaultCapabilities and containers/common's
 * DefaultCapabilities (Podman, CRI-O, Buildah). */
static const char *const caps_docker[] = {
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
    "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
    "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE", NULL,
};
static const char *const caps_podman[] = {
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
    "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP", "CAP_SETUID",
    "CAP_SYS_CHROOT", NULL,
};

static uint64_t caps_of(const char *const *names)
{
    uint64_t set = 0;
    for (; *names; names++)
        set |= 1ull << cap_by_name_linux(*names);
    return set;
}

uint64_t caps_docker_default(void)
{
    return caps_of(caps_docker);
}

err_t parse_caps(const char *s, uint64_t host, uint64_t *out)
{
    uint64_t set = 0;
    g_auto(GStrv) items = g_strsplit(s, ",", -1);
    for (char **it = items; *it; it++) {
        const char *item = *it;
        bool drop = item[0] == '-';
        if (item[0] == '-' || item[0] == '+')
            item++;
        uint64_t bits;
        g_autofree char *up = g_ascii_strup(item, -1);
        if (!strcmp(up, "DOCKER"))
            bits = caps_of(caps_docker);
        else if (!strcmp(up, "PODMAN"))
            bits = caps_of(caps_podman);
        else if (!strcmp(up, "HOST"))
            bits = host;
        else if (!strcmp(up, "ALL"))
            bits = CAP_ALL_LINUX;
        else if (!strcmp(up, "NONE"))
            bits = 0;
        else {
            g_autofree char *name = g_str_has_prefix(up, "CAP_") ? g_strdup(up)
                                                                 : g_strconcat("CAP_", up, NULL);
            int n = cap_by_name_linux(name);
            if (n < 0)
                return err_printable(err_new("--caps: unknown capability \"%s\" (names as in "
                                             "capabilities(7), or docker, podman, host, all, none)",
                                             *it));
            bits = 1ull << n;
        }
        set = drop ? set & ~bits : set | bits;
    }
    *out = set;
    return OK;
}

err_t parse_kernel_release(const char *s, unsigned *major, unsigned *minor, unsigned *patch)
{
    unsigned v[3] = { 0, 0, 0 };
    int n = 0;
    const char *p = s;
    while (n < 3) {
        if (!g_ascii_isdigit(*p))
            break;
        uint64_t x = 0;
        while (g_ascii_isdigit(*p) && x < 1000)
            x = x * 10 + (uint64_t)(*p++ - '0');
        if (x >= 1000)
            break;
        v[n++] = (unsigned)x;
        if (*p != '.')
            break;
        p++;
    }
    if (n < 2 || *p || (v[0] == 0 && v[1] == 0))
        return err_printable(err_new("--kernel=linux:%s: expected a release such as 6.1 or "
                                     "5.10.0", s));
    *major = v[0];
    *minor = v[1];
    *patch = v[2];
    return OK;
}
