#include "emu/host/fdmap.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum fdspec_arg { ARG_NONE, ARG_FD, ARG_HOSTPORT, ARG_PATH };

static const struct {
    const char *prefix; /* exact word for ARG_NONE, otherwise "kind:" */
    enum fdspec_kind kind;
    enum fdspec_arg arg;
} kinds[] = {
    { "fd:", FDSPEC_FD, ARG_FD },
    { "null", FDSPEC_NULL, ARG_NONE },
    { "tcp:", FDSPEC_TCP, ARG_HOSTPORT },
    { "listen:", FDSPEC_LISTEN, ARG_HOSTPORT },
    { "unix:", FDSPEC_UNIX, ARG_PATH },
    { "file:", FDSPEC_FILE_R, ARG_PATH },
    { "file-w:", FDSPEC_FILE_W, ARG_PATH },
    { "file-a:", FDSPEC_FILE_A, ARG_PATH },
};

#define SPEC_FORMS "fd:M, null, tcp:HOST:PORT, listen:HOST:PORT, unix:PATH, file:PATH, " \
                   "file-w:PATH or file-a:PATH"

/* HOST:PORT, with an IPv6 address in brackets as in URLs: [::1]:7000. */
static err_t parse_hostport(const char *s, bool any_port, char **host, uint16_t *port)
{
    const char *colon;
    if (*s == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':')
            return err_new("an IPv6 address in brackets must be followed by :PORT");
        *host = g_strndup(s + 1, (gsize)(close - s - 1));
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return err_new("expected HOST:PORT");
        *host = g_strndup(s, (gsize)(colon - s));
        if (strchr(*host, ':'))
            return err_new("write an IPv6 address in brackets: [%s]:PORT", *host);
    }
    if (!**host)
        return err_new("no host before :PORT");
    /* No name or address has brackets inside; "[[1]:0" would otherwise
     * name the host "[1", which no form of the option can write back. */
    if (strpbrk(*host, "[]"))
        return err_new("a bracket inside the host \"%s\"", *host);
    guint64 v;
    if (!g_ascii_string_to_unsigned(colon + 1, 10, any_port ? 0 : 1, 65535, &v, NULL))
        return err_new("port \"%s\" is not a number from %d to 65535", colon + 1,
                       any_port ? 0 : 1);
    *port = (uint16_t)v;
    return OK;
}

static err_t parse_spec(const char *arg, struct fdspec *out)
{
    memset(out, 0, sizeof(*out));
    out->text = g_strdup(arg);
    const char *eq = strchr(arg, '=');
    if (!eq)
        return err_new("expected N=SPEC");
    g_autofree char *num = g_strndup(arg, (gsize)(eq - arg));
    guint64 n;
    if (!g_ascii_string_to_unsigned(num, 10, 0, FD_MAX_GUEST - 1, &n, NULL))
        return err_new("guest descriptor \"%s\" is not a number from 0 to %d", num,
                       FD_MAX_GUEST - 1);
    out->guest = (int)n;
    const char *spec = eq + 1;
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        size_t plen = strlen(kinds[i].prefix);
        if (kinds[i].arg == ARG_NONE ? strcmp(spec, kinds[i].prefix) != 0
                                     : strncmp(spec, kinds[i].prefix, plen) != 0)
            continue;
        const char *rest = spec + plen;
        out->kind = kinds[i].kind;
        switch (kinds[i].arg) {
        case ARG_NONE:
            return OK;
        case ARG_FD:
            if (!g_ascii_string_to_unsigned(rest, 10, 0, G_MAXINT, &n, NULL))
                return err_new("host descriptor \"%s\" is not a number", rest);
            out->host_fd = (int)n;
            return OK;
        case ARG_HOSTPORT:
            return parse_hostport(rest, out->kind == FDSPEC_LISTEN, &out->host, &out->port);
        case ARG_PATH:
            if (!*rest)
                return err_new("empty path");
            out->path = g_strdup(rest);
            return OK;
        }
    }
    return err_new("unknown endpoint \"%s\" (expected " SPEC_FORMS ")", spec);
}

/* The messages echo the argument: keep them one line whatever it holds. */
err_t fdspec_parse(const char *arg, struct fdspec *out)
{
    return err_printable(parse_spec(arg, out));
}

void fdspec_clear(struct fdspec *s)
{
    g_free(s->host);
    g_free(s->path);
    g_free(s->text);
    memset(s, 0, sizeof(*s));
}

/* GIO's descriptor is non-blocking and owned by its GSocket.  The guest
 * gets a duplicate switched to blocking, so a blocking read(2) blocks as
 * on Linux and EAGAIN never reaches a guest that did not ask for it. */
static err_t take_socket(GSocket *sock, int *host)
{
    int fd = dup(g_socket_get_fd(sock));
    if (fd < 0)
        return err_new("dup: %s", host_strerror(errno));
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        err_t e = err_new("fcntl: %s", host_strerror(errno));
        close(fd);
        return e;
    }
    *host = fd;
    return OK;
}

static err_t connect_to(GSocketConnectable *where, int *host)
{
    g_autoptr(GSocketClient) client = g_socket_client_new();
    /* Exactly the endpoint named: no proxy from the environment. */
    g_socket_client_set_enable_proxy(client, FALSE);
    g_autoptr(GError) gerr = NULL;
    g_autoptr(GSocketConnection) conn = g_socket_client_connect(client, where, NULL, &gerr);
    if (!conn)
        return err_new("%s", gerr->message); /* it names the peer and the reason */
    return take_socket(g_socket_connection_get_socket(conn), host);
}

static char *hostport_text(const struct fdspec *s, unsigned port)
{
    return strchr(s->host, ':') ? g_strdup_printf("[%s]:%u", s->host, port)
                                : g_strdup_printf("%s:%u", s->host, port);
}

static err_t open_tcp(const struct fdspec *s, int *host)
{
    g_autoptr(GSocketConnectable) addr = g_network_address_new(s->host, s->port);
    return connect_to(addr, host);
}

static err_t open_unix(const struct fdspec *s, int *host)
{
    g_autoptr(GSocketAddress) addr = g_unix_socket_address_new(s->path);
    return connect_to(G_SOCKET_CONNECTABLE(addr), host);
}

/* Listen on the first address HOST resolves to, accept one connection and
 * stop listening.  Port 0 takes a free port, announced on stderr because
 * the peer has no other way to learn it. */
static err_t open_listen(const struct fdspec *s, int *host)
{
    g_autoptr(GResolver) resolver = g_resolver_get_default();
    g_autoptr(GError) gerr = NULL;
    GList *addrs = g_resolver_lookup_by_name(resolver, s->host, NULL, &gerr);
    if (!addrs)
        return err_new("cannot resolve %s: %s", s->host, gerr->message);
    g_autoptr(GSocketAddress) sa = g_inet_socket_address_new(addrs->data, s->port);
    g_resolver_free_addresses(addrs);

    g_autoptr(GSocketListener) listener = g_socket_listener_new();
    GSocketAddress *bound = NULL;
    g_autofree char *what = hostport_text(s, s->port);
    if (!g_socket_listener_add_address(listener, sa, G_SOCKET_TYPE_STREAM,
                                       G_SOCKET_PROTOCOL_TCP, NULL, &bound, &gerr))
        return err_new("%s", gerr->message); /* it names the address and the reason */
    unsigned port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
    g_object_unref(bound);
    if (s->port == 0) {
        g_autofree char *at = hostport_text(s, port);
        fprintf(stderr, "seccomp-emu: fd %d listening on %s\n", s->guest, at);
        fflush(stderr);
    }
    g_autoptr(GSocketConnection) conn = g_socket_listener_accept(listener, NULL, NULL, &gerr);
    if (!conn)
        return err_new("accepting on %s: %s", what, gerr->message);
    g_socket_listener_close(listener);
    return take_socket(g_socket_connection_get_socket(conn), host);
}

static err_t open_path(const char *path, int flags, const char *how, int *host)
{
    int fd = g_open(path, flags | O_NOCTTY, 0666);
    if (fd < 0)
        return err_new("cannot open %s %s: %s", path, how, host_strerror(errno));
    *host = fd;
    return OK;
}

static err_t check_inherited(const struct fdspec *s)
{
    if (fcntl(s->host_fd, F_GETFD) == -1)
        return err_new("host descriptor %d is not open", s->host_fd);
    return OK;
}

err_t fdspec_open(const struct fdspec *s, int *host)
{
    switch (s->kind) {
    case FDSPEC_FD: {
        err_t e = check_inherited(s);
        if (!e)
            *host = s->host_fd;
        return e;
    }
    case FDSPEC_NULL:
        return open_path("/dev/null", O_RDWR, "for reading and writing", host);
    case FDSPEC_TCP:
        return open_tcp(s, host);
    case FDSPEC_LISTEN:
        return open_listen(s, host);
    case FDSPEC_UNIX:
        return open_unix(s, host);
    case FDSPEC_FILE_R:
        return open_path(s->path, O_RDONLY, "for reading", host);
    case FDSPEC_FILE_W:
        return open_path(s->path, O_WRONLY | O_CREAT | O_TRUNC, "for writing", host);
    case FDSPEC_FILE_A:
        return open_path(s->path, O_WRONLY | O_CREAT | O_APPEND, "for appending", host);
    }
    return err_new("unknown endpoint kind %d", (int)s->kind);
}

/* Option state: glib parses into statics, as main.c's own options do. */
static GPtrArray *opt_specs; /* struct fdspec *, in command-line order */
static gboolean opt_close_std;

static void spec_free(gpointer p)
{
    fdspec_clear(p);
    g_free(p);
}

static gboolean on_fd(const gchar *name, const gchar *value, gpointer data, GError **error)
{
    (void)name;
    (void)data;
    if (!opt_specs)
        opt_specs = g_ptr_array_new_with_free_func(spec_free);
    struct fdspec *s = g_new0(struct fdspec, 1);
    err_t e = fdspec_parse(value, s);
    for (guint i = 0; !e && i < opt_specs->len; i++)
        if (((struct fdspec *)opt_specs->pdata[i])->guest == s->guest)
            e = err_new("guest descriptor %d is mapped twice", s->guest);
    if (e) {
        err_t full = err_printable(err_new("--fd %s: %s", value, e));
        g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, full);
        err_free(full);
        err_free(e);
        spec_free(s);
        return FALSE;
    }
    g_ptr_array_add(opt_specs, s);
    return TRUE;
}

static const GOptionEntry fdmap_entries[] = {
    /* FILENAME: paths are bytes; glib would convert a plain callback's value
     * from the C locale's ASCII and refuse any other byte. */
    { "fd", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer)on_fd,
      "Bind guest descriptor N before the guest starts (repeatable). SPEC: " SPEC_FORMS,
      "N=SPEC" },
    { "close-std", 0, 0, G_OPTION_ARG_NONE, &opt_close_std,
      "Start the guest with nothing on descriptors 0, 1 and 2 unless --fd maps them", NULL },
    { NULL },
};

GOptionGroup *fdmap_option_group(void)
{
    GOptionGroup *g = g_option_group_new("fd", "Descriptor mapping:", "Show descriptor options",
                                         NULL, NULL);
    g_option_group_add_entries(g, fdmap_entries);
    return g;
}

void fdmap_options_reset(void)
{
    g_clear_pointer(&opt_specs, g_ptr_array_unref);
    opt_close_std = FALSE;
}

err_t fdmap_setup(struct fdtable *ft)
{
    if (opt_close_std)
        for (int i = 0; i < 3; i++)
            ft->fd[i] = (struct gfd){ .kind = GFD_NONE };
    if (!opt_specs)
        return OK;
    /* Inherited descriptors are checked before anything here opens one, so
     * fd:M can only ever name what seccomp-emu was given, never a
     * descriptor it made itself. */
    for (guint i = 0; i < opt_specs->len; i++) {
        const struct fdspec *s = opt_specs->pdata[i];
        err_t e = s->kind == FDSPEC_FD ? check_inherited(s) : OK;
        if (e) {
            err_t full = err_new("--fd %s: %s", s->text, e);
            err_free(e);
            return err_printable(full);
        }
    }
    for (guint i = 0; i < opt_specs->len; i++) {
        const struct fdspec *s = opt_specs->pdata[i];
        int host = -1;
        err_t e = fdspec_open(s, &host);
        if (e) {
            err_t full = err_new("--fd %s: %s", s->text, e);
            err_free(e);
            return err_printable(full);
        }
        fdtable_install(ft, s->guest, (struct gfd){ .kind = GFD_HOST, .host = host });
    }
    return OK;
}
