/* --fd's parser and endpoints: every malformed spec is refused before
 * anything is touched, and each endpoint comes back as a plain blocking
 * descriptor with the semantics its name promises. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gio/gio.h>
#include <unistd.h>

#include "emu/host/fdmap.h"

static void parse_ok(const char *arg, struct fdspec *s)
{
    err_t e = fdspec_parse(arg, s);
    if (e)
        fail_msg("\"%s\" refused: %s", arg, e);
}

static void parse_fails(const char *arg, const char *needle)
{
    struct fdspec s;
    err_t e = fdspec_parse(arg, &s);
    if (!e)
        fail_msg("\"%s\" was accepted", arg);
    if (!strstr(e, needle))
        fail_msg("\"%s\": error \"%s\" does not mention \"%s\"", arg, e, needle);
    err_free(e);
    fdspec_clear(&s);
}

static void parses_every_form(void **state)
{
    (void)state;
    struct fdspec s;
    parse_ok("0=fd:7", &s);
    assert_int_equal(s.guest, 0);
    assert_int_equal(s.kind, FDSPEC_FD);
    assert_int_equal(s.host_fd, 7);
    fdspec_clear(&s);
    parse_ok("1023=null", &s);
    assert_int_equal(s.guest, 1023);
    assert_int_equal(s.kind, FDSPEC_NULL);
    fdspec_clear(&s);
    parse_ok("3=tcp:example.org:80", &s);
    assert_int_equal(s.kind, FDSPEC_TCP);
    assert_string_equal(s.host, "example.org");
    assert_int_equal(s.port, 80);
    fdspec_clear(&s);
    parse_ok("3=tcp:[::1]:65535", &s);
    assert_string_equal(s.host, "::1");
    assert_int_equal(s.port, 65535);
    fdspec_clear(&s);
    parse_ok("4=listen:127.0.0.1:0", &s);
    assert_int_equal(s.kind, FDSPEC_LISTEN);
    assert_int_equal(s.port, 0);
    fdspec_clear(&s);
    parse_ok("5=unix:/run/x.sock", &s);
    assert_int_equal(s.kind, FDSPEC_UNIX);
    assert_string_equal(s.path, "/run/x.sock");
    fdspec_clear(&s);
    /* Everything after the kind is the path, '=' and ':' included. */
    parse_ok("6=file:a=b:c", &s);
    assert_int_equal(s.kind, FDSPEC_FILE_R);
    assert_string_equal(s.path, "a=b:c");
    fdspec_clear(&s);
    parse_ok("7=file-w:out", &s);
    assert_int_equal(s.kind, FDSPEC_FILE_W);
    fdspec_clear(&s);
    parse_ok("8=file-a:log", &s);
    assert_int_equal(s.kind, FDSPEC_FILE_A);
    assert_string_equal(s.text, "8=file-a:log");
    fdspec_clear(&s);
}

static void refuses_malformed(void **state)
{
    (void)state;
    parse_fails("", "N=SPEC");
    parse_fails("null", "N=SPEC");
    parse_fails("=null", "guest descriptor");
    parse_fails("x=null", "guest descriptor");
    parse_fails("-1=null", "guest descriptor");
    parse_fails("+1=null", "guest descriptor");
    parse_fails("1024=null", "from 0 to 1023");
    parse_fails("99999999999999999999=null", "guest descriptor");
    parse_fails("3=", "unknown endpoint");
    parse_fails("3=nul", "unknown endpoint");
    parse_fails("3=nullx", "unknown endpoint");
    parse_fails("3=FILE:x", "unknown endpoint");
    parse_fails("3=fd:", "not a number");
    parse_fails("3=fd:-1", "not a number");
    parse_fails("3=fd:3x", "not a number");
    parse_fails("3=tcp:host", "HOST:PORT");
    parse_fails("3=tcp::80", "no host");
    parse_fails("3=tcp:host:", "not a number");
    parse_fails("3=tcp:host:0", "from 1 to 65535");
    parse_fails("3=tcp:host:65536", "from 1 to 65535");
    parse_fails("3=tcp:host: 80", "not a number");
    parse_fails("3=tcp:::1:80", "brackets");
    parse_fails("3=tcp:[::1]80", "brackets");
    parse_fails("3=tcp:[::1", "brackets");
    parse_fails("3=tcp:[]:80", "no host");
    /* found by fuzz_fdmap: a host "[1" that no spec could write back */
    parse_fails("3=listen:[[1]:0", "bracket inside");
    parse_fails("3=tcp:a]b:80", "bracket inside");
    parse_fails("3=listen:host:-1", "from 0 to 65535");
    parse_fails("3=unix:", "empty path");
    parse_fails("3=file:", "empty path");
    parse_fails("3=file-w:", "empty path");
    parse_fails("3=file-a:", "empty path");
}

static char tmpdir[256];

static int make_tmp(void **state)
{
    (void)state;
    g_autoptr(GError) gerr = NULL;
    char *d = g_dir_make_tmp("test-fdmap-XXXXXX", &gerr);
    assert_non_null(d);
    g_strlcpy(tmpdir, d, sizeof(tmpdir));
    g_free(d);
    return 0;
}

static void open_spec(const char *arg, int *fd)
{
    struct fdspec s;
    parse_ok(arg, &s);
    err_t e = fdspec_open(&s, fd);
    if (e)
        fail_msg("%s: %s", arg, e);
    fdspec_clear(&s);
}

static void open_fails(const char *arg, const char *needle)
{
    struct fdspec s;
    parse_ok(arg, &s);
    int fd = -1;
    err_t e = fdspec_open(&s, &fd);
    if (!e)
        fail_msg("%s: opened", arg);
    if (!strstr(e, needle))
        fail_msg("%s: error \"%s\" does not mention \"%s\"", arg, e, needle);
    err_free(e);
    fdspec_clear(&s);
}

static void assert_blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    assert_true(fl >= 0);
    assert_int_equal(fl & O_NONBLOCK, 0);
}

static void files_and_null(void **state)
{
    (void)state;
    g_autofree char *path = g_build_filename(tmpdir, "f", NULL);
    g_autofree char *arg_r = g_strdup_printf("3=file:%s", path);
    g_autofree char *arg_w = g_strdup_printf("3=file-w:%s", path);
    g_autofree char *arg_a = g_strdup_printf("3=file-a:%s", path);
    open_fails(arg_r, "No such file");
    int fd;
    open_spec(arg_a, &fd); /* append creates */
    assert_int_equal(write(fd, "one\n", 4), 4);
    close(fd);
    open_spec(arg_a, &fd);
    assert_int_equal(write(fd, "two\n", 4), 4);
    assert_int_equal(read(fd, (char[4]){ 0 }, 4), -1); /* write-only */
    close(fd);
    g_autofree char *got = NULL;
    assert_true(g_file_get_contents(path, &got, NULL, NULL));
    assert_string_equal(got, "one\ntwo\n");
    g_free(g_steal_pointer(&got));
    open_spec(arg_w, &fd); /* truncates */
    assert_int_equal(write(fd, "x", 1), 1);
    close(fd);
    assert_true(g_file_get_contents(path, &got, NULL, NULL));
    assert_string_equal(got, "x");
    open_spec(arg_r, &fd);
    char buf[8];
    assert_int_equal(read(fd, buf, sizeof(buf)), 1);
    assert_int_equal(write(fd, "y", 1), -1); /* read-only */
    close(fd);
    open_spec("3=null", &fd);
    assert_int_equal(read(fd, buf, sizeof(buf)), 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    g_autofree char *nodir = g_strdup_printf("3=file-w:%s/none/x", tmpdir);
    open_fails(nodir, "No such file");
    open_fails("3=fd:1000", "not open");
    open_spec("3=fd:2", &fd);
    assert_int_equal(fd, 2); /* the inherited descriptor itself */
}

static GSocketListener *listen_any(uint16_t *port)
{
    GSocketListener *l = g_socket_listener_new();
    g_autoptr(GInetAddress) lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
    g_autoptr(GSocketAddress) sa = g_inet_socket_address_new(lo, 0);
    GSocketAddress *bound = NULL;
    assert_true(g_socket_listener_add_address(l, sa, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                              NULL, &bound, NULL));
    *port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
    g_object_unref(bound);
    return l;
}

static void tcp_blocking_and_errors(void **state)
{
    (void)state;
    uint16_t port;
    GSocketListener *l = listen_any(&port);
    g_autofree char *arg = g_strdup_printf("3=tcp:127.0.0.1:%u", port);
    int fd;
    open_spec(arg, &fd);
    /* GIO's sockets are non-blocking; the guest's must not be, or a read
     * before data arrives would answer EAGAIN. */
    assert_blocking(fd);
    GSocketConnection *peer = g_socket_listener_accept(l, NULL, NULL, NULL);
    assert_non_null(peer);
    GOutputStream *os = g_io_stream_get_output_stream(G_IO_STREAM(peer));
    assert_true(g_output_stream_write_all(os, "hello", 5, NULL, NULL, NULL));
    char buf[16];
    assert_int_equal(read(fd, buf, sizeof(buf)), 5);
    assert_memory_equal(buf, "hello", 5);
    /* The duplicate is the only descriptor left: closing it ends the
     * connection, the peer reads end-of-file. */
    close(fd);
    GInputStream *is = g_io_stream_get_input_stream(G_IO_STREAM(peer));
    assert_int_equal(g_input_stream_read(is, buf, sizeof(buf), NULL, NULL), 0);
    g_object_unref(peer);

    /* The port is busy: listen refuses it. */
    g_autofree char *busy = g_strdup_printf("3=listen:127.0.0.1:%u", port);
    open_fails(busy, "in use");
    g_object_unref(l);
    /* Nobody listens any more: connecting is refused. */
    open_fails(arg, "refused");
    g_autofree char *nosock = g_strdup_printf("3=unix:%s/none.sock", tmpdir);
    open_fails(nosock, "No such file");
}

static void unix_socket(void **state)
{
    (void)state;
    g_autofree char *path = g_build_filename(tmpdir, "s.sock", NULL);
    GSocketListener *l = g_socket_listener_new();
    g_autoptr(GSocketAddress) ua = g_unix_socket_address_new(path);
    assert_true(g_socket_listener_add_address(l, ua, G_SOCKET_TYPE_STREAM,
                                              G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, NULL));
    g_autofree char *arg = g_strdup_printf("3=unix:%s", path);
    int fd;
    open_spec(arg, &fd);
    assert_blocking(fd);
    GSocketConnection *peer = g_socket_listener_accept(l, NULL, NULL, NULL);
    assert_non_null(peer);
    assert_int_equal(write(fd, "ping", 4), 4);
    char buf[8];
    GInputStream *is = g_io_stream_get_input_stream(G_IO_STREAM(peer));
    assert_int_equal(g_input_stream_read(is, buf, sizeof(buf), NULL, NULL), 4);
    assert_memory_equal(buf, "ping", 4);
    close(fd);
    g_object_unref(peer);
    g_object_unref(l);
    unlink(path);
}

/* The option group as main.c uses it, on a table fdtable_init_std() made. */
static err_t setup_with(const char **args, int n, struct fdtable *ft, GError **gerr)
{
    GOptionContext *ctx = g_option_context_new(NULL);
    g_option_context_add_group(ctx, fdmap_option_group());
    char **argv = g_new0(char *, n + 2);
    argv[0] = g_strdup("seccomp-emu");
    for (int i = 0; i < n; i++)
        argv[i + 1] = g_strdup(args[i]);
    int argc = n + 1;
    char **v = argv;
    gboolean ok = g_option_context_parse(ctx, &argc, &v, gerr);
    g_option_context_free(ctx);
    g_strfreev(argv);
    if (!ok)
        return err_new("parse");
    fdtable_init_std(ft);
    return fdmap_setup(ft);
}

static void option_group(void **state)
{
    (void)state;
    static struct fdtable ft;
    GError *gerr = NULL;
    const char *dup[] = { "--fd", "5=null", "--fd", "5=null" };
    err_t e = setup_with(dup, 4, &ft, &gerr);
    assert_non_null(e);
    err_free(e);
    assert_non_null(strstr(gerr->message, "mapped twice"));
    g_clear_error(&gerr);

    const char *args[] = { "--close-std", "--fd", "1=null", "--fd", "7=fd:2" };
    e = setup_with(args, 5, &ft, &gerr);
    if (e)
        fail_msg("%s", e);
    assert_int_equal(ft.fd[0].kind, GFD_NONE);
    assert_int_equal(ft.fd[2].kind, GFD_NONE);
    assert_int_equal(ft.fd[1].kind, GFD_HOST);
    assert_true(ft.fd[1].host > 2); /* /dev/null, not our stdout */
    assert_int_equal(ft.fd[7].kind, GFD_HOST);
    assert_int_equal(ft.fd[7].host, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_every_form),
        cmocka_unit_test(refuses_malformed),
        cmocka_unit_test_setup(files_and_null, make_tmp),
        cmocka_unit_test_setup(tcp_blocking_and_errors, make_tmp),
        cmocka_unit_test_setup(unix_socket, make_tmp),
        cmocka_unit_test(option_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
