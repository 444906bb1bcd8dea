/* Diagnostics printed after the self-sandbox is on (emu/status.h): the
 * host's errno text and glib's log lines reach stderr as one line with no
 * file opened.  Each case runs in a child that first makes the calls that
 * print, under a filter that kills open and openat as the self-sandbox
 * does (SECCOMP_RET_KILL_PROCESS), so a regression is SIGSYS, not a
 * passing test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_SELF_SANDBOX
#include <seccomp.h>
#endif

#include "emu/status.h"

/* In the child: no open or openat from here on. */
static void forbid_opening(void)
{
#ifdef HAVE_SELF_SANDBOX
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(openat), 0) ||
        seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(open), 0) || seccomp_load(ctx))
        _exit(99);
    seccomp_release(ctx);
#endif
}

/* Runs `body` in a child whose stderr is a pipe, without the CHARSET that
 * would tell glib the console is UTF-8 (then it would not convert);
 * returns its wait status and what it printed. */
static int in_child(void (*body)(void), char *out, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        unsetenv("CHARSET");
        forbid_opening();
        body();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < size && (r = read(fds[0], out + got, size - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void print_errno_texts(void)
{
    fprintf(stderr, "%s|", host_strerror(ENOSPC));
    fprintf(stderr, "%s|", host_strerror(EFBIG));
    fprintf(stderr, "%s\n", host_strerror(123456));
}

static void errno_text_under_the_filter(void **state)
{
    (void)state;
    char out[512];
    int st = in_child(print_errno_texts, out, sizeof(out));
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char want[512];
    snprintf(want, sizeof(want), "%s|%s|", strerror(ENOSPC), strerror(EFBIG));
    assert_true(!strncmp(out, want, strlen(want)));
    assert_non_null(strstr(out + strlen(want), "123456"));
}

static void log_critical(void)
{
    err_install_log_writer();
    g_critical("a line\nwith %s", "two parts");
    g_warning("then %d", 2);
}

static void glib_log_under_the_filter(void **state)
{
    (void)state;
    char out[512];
    int st = in_child(log_critical, out, sizeof(out));
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_string_equal(out, "seccomp-emu: critical: a line\\nwith two parts\n"
                             "seccomp-emu: warning: then 2\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errno_text_under_the_filter),
        cmocka_unit_test(glib_log_under_the_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
