/* seccomp-emu-diff: run a guest natively and under seccomp-emu, compare.
 *
 *   seccomp-emu-diff [OPTION...] PROGRAM [ARG...]
 *
 * The real kernel is the judge: PROGRAM runs natively and under the
 * emulator with the same argv, an empty environment and the same stdin;
 * stdout, stderr and the raw wait status must agree.  With --expect-status
 * (for cases no native run can judge, e.g. unemulated calls) the native
 * run is skipped and the emulated run is checked against hand-written
 * expectations instead.  Where this host cannot run PROGRAM natively (an i386
 * program on a kernel without IA-32 emulation, or a capability named with
 * --native-needs that tests/hostcaps reports missing), the kernel's answer
 * recorded in --recorded=DIR judges instead; with SECCOMP_EMU_NATIVE=record
 * a live native run writes DIR (tools/recording.h, tests/native_oracle.py).
 * --native=vm runs PROGRAM under a real Linux kernel in a VM instead
 * (tools/vm/vmjudge.py); --native=auto, the default, does so where the host
 * lacks what the case needs (booting only for a case with no --recorded
 * answer, else answering from the VM's cache a collect pass filled);
 * --native=host never does.  docs/differential-testing.md.
 *
 * Exit: 0 all agree, 1 something differs (a hang counts), 2 usage or spawn
 * error.  Linux-only (fork/execve, process groups, /proc/self/exe). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <glib.h>
#include <glib-unix.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/signal_names.h"
#include "recording.h"

#define CAPTURE_MAX (64u << 20)  /* per stream; a runaway guest must not eat RAM */
#define DIFF_CONTEXT 3
#define DIFF_MAX_LINES 4000      /* beyond this only prefix/suffix trimming */

typedef struct {
    const char *label;
    char **argv;
    char **envp;                 /* NULL: an empty environment */
    pid_t pid;
    int fd[2];                   /* stdout, stderr read ends; -1 when closed */
    GString *buf[2];
    gboolean truncated[2];
    int status;                  /* raw wait status */
    gboolean exited, hung;
} Run;

static gchar *opt_emu, *opt_stdin, *opt_cpu, *opt_trace_file;
static gchar **opt_emu_args;
static gint opt_timeout = 30;
static gchar *opt_expect_status, *opt_expect_stdout, *opt_expect_stderr;
static gchar *opt_recorded, *opt_hostcaps;
static gchar *opt_native, *opt_vm_judge, *opt_vm_kernel, *opt_vm_qemu, *opt_vm_cpu;
static gchar **opt_needs;
static FILE *trace;
/* With --trace the emulator traces too (seccomp-emu --trace=FILE), into a
 * temporary file so that its stderr, which is compared, stays the guest's. */
static gchar *emu_trace_path;

/* Children live in their own process groups; if we are killed (meson's
 * own timeout sends SIGTERM) they must not outlive us. */
static volatile pid_t live_pids[2];

static void on_fatal_signal(int sig)
{
    if (emu_trace_path)
        unlink(emu_trace_path);
    for (int i = 0; i < 2; i++)
        if (live_pids[i] > 0) {
            kill(-live_pids[i], SIGKILL);
            kill(live_pids[i], SIGKILL);
        }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* --trace takes an optional value, which GOption can only do through a
 * callback that would also let it swallow the next word ("--trace PROG"
 * would trace into PROG).  So --trace is a plain FILENAME option and a bare
 * --trace is rewritten to --trace=- (stderr) first.  Only the option part
 * of argv is scanned: it ends at PROGRAM or "--". */
static void fix_bare_trace(int argc, char **argv)
{
    static const char *with_value[] = { "--emu", "--stdin", "--emu-arg", "--cpu",
        "--timeout", "--expect-status", "--expect-stdout", "--expect-stderr",
        "--recorded", "--native-needs", "--hostcaps", "--native", "--vm-judge", "--vm-kernel",
        "--vm-qemu", "--vm-cpu" };
    for (int i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--trace") == 0) {
            argv[i] = "--trace=-";
            continue;
        }
        for (gsize k = 0; k < G_N_ELEMENTS(with_value); k++)
            if (strcmp(argv[i], with_value[k]) == 0)
                i++;   /* its value is the next word */
    }
}

static const char *signal_name(int sig)
{
    const char *name = signal_name_linux(sig); /* host numbers: this tool is Linux-only */
    if (name)
        return name;
    return sig >= SIGRTMIN && sig <= SIGRTMAX ? "SIGRT" : "?";
}

static gchar *describe_status(const Run *r)
{
    if (r->hung)
        return g_strdup_printf("hang (still running after %d s; killed)", opt_timeout);
    if (WIFEXITED(r->status))
        return g_strdup_printf("exit %d", WEXITSTATUS(r->status));
    if (WIFSIGNALED(r->status))
        return g_strdup_printf("killed by signal %d (%s)%s", WTERMSIG(r->status),
                               signal_name(WTERMSIG(r->status)),
                               WCOREDUMP(r->status) ? " (core dumped)" : "");
    return g_strdup_printf("raw wait status 0x%x", r->status);
}

/* How a run ended, in the form a recording keeps and
 * parse_expected_status reads; NULL for a hang, which has no recording. */
static gchar *status_text(const Run *r)
{
    if (r->hung)
        return NULL;
    if (WIFEXITED(r->status))
        return g_strdup_printf("exit %d", WEXITSTATUS(r->status));
    if (WIFSIGNALED(r->status))
        return g_strdup_printf("signal %d", WTERMSIG(r->status));
    return NULL;
}

/* "exit N", "signal N", "signal SIGKILL", "SIGKILL", "killed by signal 9". */
static gboolean parse_expected_status(const char *s, int *status)
{
    const char *p = s;
    char *end;
    long n;
    if (g_str_has_prefix(p, "exit")) {
        n = strtol(p + 4, &end, 0);
        if (end == p + 4 || *end || n < 0 || n > 255)
            return FALSE;
        *status = (int)n << 8;
        return TRUE;
    }
    if (g_str_has_prefix(p, "killed by"))
        p += 9;
    while (*p == ' ')
        p++;
    if (g_str_has_prefix(p, "signal"))
        p += 6;
    while (*p == ' ')
        p++;
    if (g_str_has_prefix(p, "SIG")) {
        for (int sig = 1; sig < 32; sig++)
            if (strcmp(p, signal_name(sig)) == 0) {
                *status = sig;
                return TRUE;
            }
        return FALSE;
    }
    n = strtol(p, &end, 0);
    if (end == p || *end || n <= 0 || n >= 65)
        return FALSE;
    *status = (int)n;
    return TRUE;
}

static void trace_argv(const char *label, char **argv)
{
    if (!trace)
        return;
    fprintf(trace, "[trace] %s:", label);
    for (char **a = argv; *a; a++) {
        gchar *q = g_shell_quote(*a);
        fprintf(trace, " %s", q);
        g_free(q);
    }
    fprintf(trace, "\n");
}

static void die_usage(GOptionContext *ctx, const char *msg)
{
    gchar *help = g_option_context_get_help(ctx, TRUE, NULL);
    fprintf(stderr, "seccomp-emu-diff: %s\n\n%s", msg, help);
    g_free(help);
    exit(2);
}

/* The emulator's own knobs that a whole suite may be run under
 * (SECCOMP_EMU_WINDOW=1 meson test: docs/linear-mapping.md), from this
 * program's environment: the emulator's run gets them, the native one
 * never (the guest's environment is empty either way: seccomp-emu gives
 * it only --env's). */
static char **emu_env(void)
{
    static const char *const knobs[] = { "SECCOMP_EMU_WINDOW", "SECCOMP_EMU_WINDOW64" };
    GPtrArray *env = g_ptr_array_new();
    for (gsize i = 0; i < G_N_ELEMENTS(knobs); i++)
        if (g_getenv(knobs[i]))
            g_ptr_array_add(env, g_strdup_printf("%s=%s", knobs[i], g_getenv(knobs[i])));
    g_ptr_array_add(env, NULL);
    return (char **)g_ptr_array_free(env, FALSE);
}

/* Fork and execve argv with an empty environment (r->envp's, if set).  Exec failure comes back
 * through a close-on-exec pipe, so "cannot run" is a spawn error (exit 2),
 * not a guest that exited 127. */
static gboolean spawn(Run *r, const char *stdin_path)
{
    int out[2], err[2], report[2];
    int in = open(stdin_path, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        fprintf(stderr, "seccomp-emu-diff: %s: %s\n", stdin_path, g_strerror(errno));
        return FALSE;
    }
    if (!g_unix_open_pipe(out, FD_CLOEXEC, NULL) || !g_unix_open_pipe(err, FD_CLOEXEC, NULL)
        || !g_unix_open_pipe(report, FD_CLOEXEC, NULL)) {
        fprintf(stderr, "seccomp-emu-diff: pipe: %s\n", g_strerror(errno));
        return FALSE;
    }
    trace_argv(r->label, r->argv);
    r->pid = fork();
    if (r->pid < 0) {
        fprintf(stderr, "seccomp-emu-diff: fork: %s\n", g_strerror(errno));
        return FALSE;
    }
    if (r->pid == 0) {
        static char *empty_env[] = { NULL };
        struct rlimit no_core = { 0, 0 };
        sigset_t none;
        int e;
        setpgid(0, 0);
        /* A guest dying of SIGSEGV must look the same natively and under
         * the emulator (which re-raises the signal): no core files. */
        setrlimit(RLIMIT_CORE, &no_core);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                signal(sig, SIG_DFL);
        if (dup2(in, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
            _exit(127);
        execve(r->argv[0], r->argv, r->envp ? r->envp : empty_env);
        e = errno;
        if (write(report[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    setpgid(r->pid, r->pid);   /* both sides, so kill(-pid) works at once */
    close(in);
    close(out[1]);
    close(err[1]);
    close(report[1]);
    int child_errno;
    ssize_t n = read(report[0], &child_errno, sizeof child_errno);
    close(report[0]);
    if (n == (ssize_t)sizeof child_errno) {
        fprintf(stderr, "seccomp-emu-diff: cannot execute %s: %s\n", r->argv[0],
                g_strerror(child_errno));
        waitpid(r->pid, &r->status, 0);
        return FALSE;
    }
    r->fd[0] = out[0];
    r->fd[1] = err[0];
    r->buf[0] = g_string_new(NULL);
    r->buf[1] = g_string_new(NULL);
    return TRUE;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void drain(Run *r, int k)
{
    char chunk[65536];
    ssize_t n = read(r->fd[k], chunk, sizeof chunk);
    if (n > 0) {
        gsize room = CAPTURE_MAX - MIN(r->buf[k]->len, CAPTURE_MAX);
        if ((gsize)n > room)
            r->truncated[k] = TRUE;
        g_string_append_len(r->buf[k], chunk, MIN((gsize)n, room));
        return;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    close(r->fd[k]);
    r->fd[k] = -1;
}

/* Capture output of all runs at once until each has exited and closed its
 * pipes, or the deadline passes; then kill the stragglers' groups. */
static void wait_all(Run *runs, int nruns)
{
    double deadline = now() + opt_timeout;
    for (;;) {
        struct pollfd pfd[4];
        Run *owner[4];
        int which[4], n = 0, busy = 0;
        for (int i = 0; i < nruns; i++) {
            Run *r = &runs[i];
            if (!r->exited && waitpid(r->pid, &r->status, WNOHANG) == r->pid) {
                r->exited = TRUE;
                live_pids[i] = 0;
            }
            for (int k = 0; k < 2; k++)
                if (r->fd[k] >= 0) {
                    pfd[n] = (struct pollfd){ .fd = r->fd[k], .events = POLLIN };
                    owner[n] = r;
                    which[n++] = k;
                }
            busy += !r->exited || r->fd[0] >= 0 || r->fd[1] >= 0;
        }
        if (!busy)
            return;
        double left = deadline - now();
        if (left <= 0)
            break;
        /* Short timeouts: exit is noticed by polling waitpid, not SIGCHLD. */
        int ms = (int)MIN(left * 1000 + 1, 20);
        if (poll(pfd, n, ms) > 0)
            for (int j = 0; j < n; j++)
                if (pfd[j].revents)
                    drain(owner[j], which[j]);
    }
    for (int i = 0; i < nruns; i++) {
        Run *r = &runs[i];
        if (!r->exited) {
            r->hung = TRUE;
            kill(-r->pid, SIGKILL);
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &r->status, 0);
            r->exited = TRUE;
            live_pids[i] = 0;
        }
        for (int k = 0; k < 2; k++)
            if (r->fd[k] >= 0) {
                /* Keep what is already buffered, but do not wait for more. */
                fcntl(r->fd[k], F_SETFL, O_NONBLOCK);
                while (r->fd[k] >= 0) {
                    gsize before = r->buf[k]->len;
                    drain(r, k);
                    if (r->fd[k] >= 0 && r->buf[k]->len == before) {
                        close(r->fd[k]);
                        r->fd[k] = -1;
                    }
                }
            }
    }
}

/* ---- a small line diff (LCS over the differing middle) ---- */

typedef struct { const char *p; gsize n; } Line;  /* n includes the '\n' */

static GArray *split_lines(const GString *s)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(Line));
    gsize i = 0;
    while (i < s->len) {
        const char *nl = memchr(s->str + i, '\n', s->len - i);
        gsize n = nl ? (gsize)(nl - (s->str + i)) + 1 : s->len - i;
        Line l = { s->str + i, n };
        g_array_append_val(a, l);
        i += n;
    }
    return a;
}

static gboolean line_eq(const Line *a, const Line *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

static void print_line(char mark, const Line *l)
{
    putchar(mark);
    for (gsize i = 0; i < l->n; i++) {
        unsigned char c = (unsigned char)l->p[i];
        if (c == '\n' && i == l->n - 1)
            break;
        if (c == '\\')
            fputs("\\\\", stdout);
        else if (c == '\t' || (c >= 0x20 && c < 0x7f))
            putchar(c);
        else
            printf("\\x%02x", c);
    }
    putchar('\n');
    if (l->n == 0 || l->p[l->n - 1] != '\n')
        puts("\\ No newline at end of output");
}

/* ops: ' ' keep, '-' only in a, '+' only in b; one per line pair. */
static GString *edit_script(Line *a, gsize na, Line *b, gsize nb)
{
    GString *ops = g_string_new(NULL);
    if (na > DIFF_MAX_LINES || nb > DIFF_MAX_LINES) {
        /* Too big for the table: everything in the middle differs. */
        for (gsize i = 0; i < na; i++)
            g_string_append_c(ops, '-');
        for (gsize j = 0; j < nb; j++)
            g_string_append_c(ops, '+');
        return ops;
    }
    guint32 *t = g_new0(guint32, (na + 1) * (nb + 1));
#define T(i, j) t[(i) * (nb + 1) + (j)]
    for (gsize i = na; i-- > 0;)
        for (gsize j = nb; j-- > 0;)
            T(i, j) = line_eq(&a[i], &b[j]) ? T(i + 1, j + 1) + 1
                                            : MAX(T(i + 1, j), T(i, j + 1));
    gsize i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && line_eq(&a[i], &b[j]))
            g_string_append_c(ops, ' '), i++, j++;
        else if (i < na && (j == nb || T(i + 1, j) >= T(i, j + 1)))
            g_string_append_c(ops, '-'), i++;
        else
            g_string_append_c(ops, '+'), j++;
    }
#undef T
    g_free(t);
    return ops;
}

static void print_diff(const char *what, const GString *x, const GString *y,
                       const char *xl, const char *yl)
{
    GArray *A = split_lines(x), *B = split_lines(y);
    Line *a = (Line *)(void *)A->data, *b = (Line *)(void *)B->data;
    gsize na = A->len, nb = B->len, pre = 0, suf = 0;
    while (pre < na && pre < nb && line_eq(&a[pre], &b[pre]))
        pre++;
    while (suf < na - pre && suf < nb - pre && line_eq(&a[na - 1 - suf], &b[nb - 1 - suf]))
        suf++;
    GString *ops = edit_script(a + pre, na - pre - suf, b + pre, nb - pre - suf);
    /* Full op list over all lines, then hunks with DIFF_CONTEXT lines. */
    GString *all = g_string_new(NULL);
    for (gsize k = 0; k < pre; k++)
        g_string_append_c(all, ' ');
    g_string_append_len(all, ops->str, ops->len);
    for (gsize k = 0; k < suf; k++)
        g_string_append_c(all, ' ');

    printf("--- %s %s\n+++ %s %s\n", xl, what, yl, what);
    gsize k = 0, ia = 0, ib = 0;
    while (k < all->len) {
        if (all->str[k] == ' ') {
            k++, ia++, ib++;
            continue;
        }
        /* Start a hunk DIFF_CONTEXT lines back; extend while changes are near. */
        gsize back = MIN(DIFF_CONTEXT, MIN(ia, ib));
        gsize s = k - back, sa = ia - back, sb = ib - back, e = k, quiet = 0;
        while (e < all->len && quiet <= 2 * DIFF_CONTEXT) {
            quiet = all->str[e] == ' ' ? quiet + 1 : 0;
            e++;
        }
        if (quiet > DIFF_CONTEXT)
            e -= quiet - DIFF_CONTEXT;
        gsize ca = 0, cb = 0;
        for (gsize m = s; m < e; m++)
            ca += all->str[m] != '+', cb += all->str[m] != '-';
        printf("@@ -%zu,%zu +%zu,%zu @@\n", sa + 1, ca, sb + 1, cb);
        gsize pa = sa, pb = sb;
        for (gsize m = s; m < e; m++) {
            char op = all->str[m];
            if (op == ' ')
                print_line(' ', &a[pa++]), pb++;
            else if (op == '-')
                print_line('-', &a[pa++]);
            else
                print_line('+', &b[pb++]);
        }
        k = e, ia = pa, ib = pb;
    }
    g_string_free(all, TRUE);
    g_string_free(ops, TRUE);
    g_array_free(A, TRUE);
    g_array_free(B, TRUE);
}

static gboolean compare_stream(const char *what, const GString *x, const GString *y,
                               const char *xl, const char *yl)
{
    if (x->len == y->len && memcmp(x->str, y->str, x->len) == 0) {
        printf("%-7s same (%zu bytes)\n", what, x->len);
        return TRUE;
    }
    printf("%-7s DIFFERENT (%s %zu bytes, %s %zu bytes)\n", what, xl, x->len, yl, y->len);
    print_diff(what, x, y, xl, yl);
    return FALSE;
}

static GString *read_expect_file(const char *path)
{
    gchar *text = NULL;
    gsize len = 0;
    GError *e = NULL;
    if (!path)
        return g_string_new(NULL);  /* not given: expect nothing */
    if (!g_file_get_contents(path, &text, &len, &e)) {
        fprintf(stderr, "seccomp-emu-diff: %s\n", e->message);
        exit(2);
    }
    GString *s = g_string_new_len(text, (gssize)len);
    g_free(text);
    return s;
}

static gchar *default_emu(void)
{
    const char *env = g_getenv("SECCOMP_EMU");
    if (env && *env)
        return g_strdup(env);
    /* Next to this binary, or one level up (meson puts tools/ in a subdir
     * of the build tree and the emulator at its top). */
#ifdef __linux__
    gchar *self = g_file_read_link("/proc/self/exe", NULL);
#else
    gchar *self = NULL;   /* no /proc: SECCOMP_EMU or --emu, else the PATH */
#endif
    if (!self)
        return g_strdup("seccomp-emu");
    gchar *dir = g_path_get_dirname(self);
    gchar *cand[] = { g_build_filename(dir, "seccomp-emu", NULL),
                      g_build_filename(dir, "..", "seccomp-emu", NULL) };
    gchar *pick = NULL;
    for (int i = 0; i < 2; i++) {
        if (!pick && g_file_test(cand[i], G_FILE_TEST_IS_EXECUTABLE))
            pick = cand[i];
        else
            g_free(cand[i]);
    }
    g_free(dir);
    g_free(self);
    return pick ? pick : g_strdup("seccomp-emu");
}

/* The emulator's own trace, after the outputs of the runs. */
static void trace_emulator(void)
{
    if (!trace || !emu_trace_path)
        return;
    gchar *text = NULL;
    gsize len = 0;
    GError *e = NULL;
    if (g_file_get_contents(emu_trace_path, &text, &len, &e)) {
        fprintf(trace, "[trace] emu trace (seccomp-emu --trace, %zu bytes):\n", len);
        fwrite(text, 1, len, trace);
        g_free(text);
    } else {
        fprintf(trace, "[trace] emu trace: %s\n", e->message);
        g_error_free(e);
    }
    unlink(emu_trace_path);
}

static void trace_output(const Run *r)
{
    if (!trace)
        return;
    gchar *st = describe_status(r);
    fprintf(trace, "[trace] %s: %s\n", r->label, st);
    for (int k = 0; k < 2; k++) {
        fprintf(trace, "[trace] %s %s (%zu bytes%s):\n", r->label, k ? "stderr" : "stdout",
                r->buf[k]->len, r->truncated[k] ? ", truncated" : "");
        fwrite(r->buf[k]->str, 1, r->buf[k]->len, trace);
        if (r->buf[k]->len && r->buf[k]->str[r->buf[k]->len - 1] != '\n')
            fputc('\n', trace);
    }
    g_free(st);
}

/* Who answers for the kernel when no --expect-status does: a live native
 * run, or the case's recording where the host lacks what the case needs. */
typedef struct {
    const char *mode;    /* SECCOMP_EMU_NATIVE: auto, record or collect */
    gchar *lacks;        /* capabilities the host lacks, "" for none */
    gchar *dir;          /* the case's recording, NULL without --recorded */
    Recording rec;
    gboolean have;       /* rec holds the recording */
    Recording vm;        /* the VM kernel's answer */
    gboolean have_vm;    /* vm holds it: it judges, not the host */
    gchar *vm_note;      /* why the VM did not answer where it was wanted */
} Native;

#ifndef VMJUDGE_PATH
#define VMJUDGE_PATH "vmjudge.py"
#endif

/* Ask the VM for the case.  0: go on (with or without its answer);
 * 2: an error said on stderr; 3: a collect pass spooled it. */
static int native_vm(Native *n, const char *leg, char **prog)
{
    GError *err = NULL;
    /* the vendor rules: the emulator's --cpu, and the host's for --cpu=host */
    const char *vendor = !opt_cpu ? NULL
                       : strcmp(opt_cpu, "host") == 0 ? host_vendor()
                       : opt_cpu;
    if (vendor && strcmp(vendor, "intel") && strcmp(vendor, "amd"))
        vendor = NULL;
    if (opt_vm_kernel)
        g_setenv("SECCOMP_EMU_VM_KERNEL", opt_vm_kernel, TRUE);
    if (opt_vm_qemu)
        g_setenv("SECCOMP_EMU_VM_QEMU", opt_vm_qemu, TRUE);
    if (opt_vm_cpu)
        g_setenv("SECCOMP_EMU_VM_CPU", opt_vm_cpu, TRUE);
    const char *judge = opt_vm_judge ? opt_vm_judge
                      : g_getenv("SECCOMP_EMU_VM_JUDGE") ? g_getenv("SECCOMP_EMU_VM_JUDGE")
                      : VMJUDGE_PATH;
    const char *python = g_getenv("PYTHON") ? g_getenv("PYTHON") : "python3";
    gchar *build = g_path_get_dirname(opt_emu);
    /* with a recording to fall back on, answer from the cache only; with
     * none, the VM boots for this case (its answer is cached) */
    gboolean cached_only = strcmp(leg, "auto") == 0 && n->have;
    int v = vm_answer(python, judge, build, prog, opt_stdin, vendor, opt_timeout, cached_only,
                      &n->vm, &err);
    g_free(build);
    if (v == 0)
        n->have_vm = TRUE;
    else if (v == 1)
        n->vm_note = g_strdup("no VM answer cached (scripts/vm-judge.sh runs the batch)");
    else if (v == 2 && strcmp(leg, "vm") == 0) {
        fprintf(stderr, "seccomp-emu-diff: --native=vm: %s\n", err->message);
        g_error_free(err);
        return 2;
    } else if (v == 2) {
        n->vm_note = g_strdup_printf("no VM: %s", err->message);
        g_error_free(err);
    }
    return v == 3 ? 3 : 0;
}

/* 0: go on; 1: the case cannot be judged here; 2: an error, said on stderr. */
static char **program_argv;

static int native_open(Native *n, const char *program)
{
    GError *err = NULL;
    n->mode = g_getenv("SECCOMP_EMU_NATIVE");
    if (!n->mode || !*n->mode)
        n->mode = "auto";
    if (strcmp(n->mode, "auto") && strcmp(n->mode, "record") && strcmp(n->mode, "collect")) {
        fprintf(stderr, "seccomp-emu-diff: SECCOMP_EMU_NATIVE must be auto, record or collect\n");
        return 2;
    }
    const char *leg = opt_native ? opt_native : g_getenv("SECCOMP_EMU_NATIVE_LEG");
    if (!leg || !*leg)
        leg = "auto";
    if (strcmp(leg, "auto") && strcmp(leg, "host") && strcmp(leg, "vm")) {
        fprintf(stderr, "seccomp-emu-diff: --native must be host, vm or auto, not %s\n", leg);
        return 2;
    }
    gchar *emu_dir = g_path_get_dirname(opt_emu);
    gchar *probe = opt_hostcaps ? g_strdup(opt_hostcaps)
                                : g_build_filename(emu_dir, "tests", "hostcaps", NULL);
    n->lacks = native_lacks(probe, program, opt_needs, &err);
    g_free(probe);
    g_free(emu_dir);
    if (!n->lacks) {
        fprintf(stderr, "seccomp-emu-diff: %s\n", err->message);
        g_error_free(err);
        return 2;
    }
    if (opt_recorded) {
        /* what the host's CPU does differs by vendor: so does its recording */
        n->dir = opt_cpu && strcmp(opt_cpu, "host") == 0
                     ? g_strconcat(opt_recorded, "-", host_vendor(), NULL)
                     : g_strdup(opt_recorded);
        n->have = recording_load(n->dir, &n->rec, &err);
        if (!n->have && err) {
            fprintf(stderr, "seccomp-emu-diff: %s: %s\n", n->dir, err->message);
            g_error_free(err);
            return 2;
        }
    }
    if (strcmp(leg, "host") != 0 && n->dir) {
        /* a known VM-CPU difference: QEMU's CPU answers this case unlike silicon */
        gchar *store = g_path_get_dirname(opt_recorded), *top = g_path_get_dirname(store);
        gchar *name = g_path_get_basename(n->dir), *harness = g_path_get_basename(store);
        n->vm_note = vm_pinned(top, harness, name);
        if (n->vm_note) {
            gchar *why = g_strdup_printf("a known VM-CPU difference: %s", n->vm_note);
            g_free(n->vm_note);
            n->vm_note = why;
            leg = "host";
        }
        g_free(store);
        g_free(top);
        g_free(name);
        g_free(harness);
    }
    if (strcmp(leg, "vm") == 0 || (strcmp(leg, "auto") == 0 && *n->lacks)) {
        if (!*n->lacks) {
            g_free(n->lacks);
            n->lacks = g_strdup("nothing (--native=vm)");
        }
        int v = native_vm(n, leg, (char **)program_argv);
        if (v)
            return v;
    }
    if (strcmp(n->mode, "collect") == 0)
        return 3;
    return *n->lacks && !n->have && !n->have_vm;
}

/* After the runs: where the VM answered, it is the kernel's answer: record
 * it (record mode) or clear *AGREES if the recording differs from it; where
 * the host lacks a capability, fill EXPECT from the recording; where it ran
 * NATIVE, record it (record mode) or clear *AGREES if the recording differs
 * from it.  0, or 2 on an error said on stderr. */
static int native_settle(Native *n, const Run *native, Run *expect, gboolean *agrees)
{
    GError *err = NULL;
    if (n->have_vm) {
        if (!parse_expected_status(n->vm.status, &expect->status)) {
            fprintf(stderr, "seccomp-emu-diff: the VM's answer: %s\n", n->vm.status);
            return 2;
        }
        expect->label = "vm";
        expect->buf[0] = g_string_new_len(n->vm.out->str, (gssize)n->vm.out->len);
        expect->buf[1] = g_string_new_len(n->vm.err->str, (gssize)n->vm.err->len);
        if (n->dir && strcmp(n->mode, "record") == 0) {
            if (!recording_save(n->dir, &n->vm, &err))
                goto fail;
        } else if (n->have) {
            int st = -1;
            *agrees = parse_expected_status(n->rec.status, &st) && st == expect->status &&
                      g_string_equal(n->rec.out, expect->buf[0]) &&
                      g_string_equal(n->rec.err, expect->buf[1]);
        }
        return 0;
    }
    if (*n->lacks) {
        if (!parse_expected_status(n->rec.status, &expect->status)) {
            fprintf(stderr, "seccomp-emu-diff: %s/status: bad status %s\n", n->dir, n->rec.status);
            return 2;
        }
        expect->label = "recorded";
        expect->buf[0] = g_string_new_len(n->rec.out->str, (gssize)n->rec.out->len);
        expect->buf[1] = g_string_new_len(n->rec.err->str, (gssize)n->rec.err->len);
    } else if (n->dir && strcmp(n->mode, "record") == 0) {
        Recording live = { .out = native->buf[0], .err = native->buf[1],
                           .status = status_text(native), .by = kernel_name() };
        gboolean saved = live.status && recording_save(n->dir, &live, &err);
        g_free(live.status);
        g_free(live.by);
        if (!saved && !err) {
            fprintf(stderr, "seccomp-emu-diff: cannot record %s: the native run hung\n", n->dir);
            return 2;
        }
        if (!saved)
            goto fail;
    } else if (n->have) {
        int st = -1;
        *agrees = parse_expected_status(n->rec.status, &st) && !native->hung &&
                  st == native->status && g_string_equal(n->rec.out, native->buf[0]) &&
                  g_string_equal(n->rec.err, native->buf[1]);
    }
    return 0;
fail:
    fprintf(stderr, "seccomp-emu-diff: %s: %s\n", n->dir, err->message);
    g_error_free(err);
    return 2;
}

int main(int argc, char **argv)
{
    GOptionEntry entries[] = {
        { "emu", 0, 0, G_OPTION_ARG_FILENAME, &opt_emu,
          "Emulator (default: $SECCOMP_EMU, else seccomp-emu beside this program or one level up)", "PATH" },
        { "stdin", 0, 0, G_OPTION_ARG_FILENAME, &opt_stdin,
          "Standard input of both runs (default /dev/null)", "FILE" },
        { "emu-arg", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_emu_args,
          "Extra emulator option, before PROGRAM (repeatable)", "ARG" },
        { "cpu", 0, 0, G_OPTION_ARG_FILENAME, &opt_cpu,
          "Pass --cpu=VENDOR to the emulator (intel, amd, host)", "VENDOR" },
        { "timeout", 0, 0, G_OPTION_ARG_INT, &opt_timeout,
          "Kill both runs after this long and report a hang (default 30)", "SECONDS" },
        { "trace", 0, 0, G_OPTION_ARG_FILENAME, &opt_trace_file,
          "Log commands, full outputs and the emulator's own trace (seccomp-emu --trace) to F "
          "(bare --trace, or -: stderr)", "F" },
        { "expect-status", 0, 0, G_OPTION_ARG_FILENAME, &opt_expect_status,
          "Skip the native run; expect this status (\"exit N\", \"signal SIGKILL\")", "STATUS" },
        { "expect-stdout", 0, 0, G_OPTION_ARG_FILENAME, &opt_expect_stdout,
          "With --expect-status: expected stdout (default empty)", "FILE" },
        { "expect-stderr", 0, 0, G_OPTION_ARG_FILENAME, &opt_expect_stderr,
          "With --expect-status: expected stderr (default empty)", "FILE" },
        { "recorded", 0, 0, G_OPTION_ARG_FILENAME, &opt_recorded,
          "The kernel's recorded answer for this case (with --cpu=host: DIR-VENDOR), "
          "used where the host cannot run it natively and checked where it can", "DIR" },
        { "native-needs", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_needs,
          "A host capability the native run needs (tsc-off; ia32 is implied for i386)", "CAP" },
        { "hostcaps", 0, 0, G_OPTION_ARG_FILENAME, &opt_hostcaps,
          "The capability probe (default: tests/hostcaps beside the emulator)", "PATH" },
        { "native", 0, 0, G_OPTION_ARG_FILENAME, &opt_native,
          "Which kernel answers: host, vm (a real Linux under QEMU), auto (the host where it "
          "can, the VM where not; default, or $SECCOMP_EMU_NATIVE_LEG)", "WHERE" },
        { "vm-kernel", 0, 0, G_OPTION_ARG_FILENAME, &opt_vm_kernel,
          "The VM's x86_64 Linux kernel image (default $SECCOMP_EMU_VM_KERNEL, "
          "BUILD/vm/vmlinuz)", "IMAGE" },
        { "vm-qemu", 0, 0, G_OPTION_ARG_FILENAME, &opt_vm_qemu,
          "qemu-system-x86_64 to use (default $SECCOMP_EMU_VM_QEMU, else on PATH)", "PATH" },
        { "vm-cpu", 0, 0, G_OPTION_ARG_FILENAME, &opt_vm_cpu,
          "QEMU's -cpu for the VM (default $SECCOMP_EMU_VM_CPU, else max)", "MODEL" },
        { "vm-judge", 0, 0, G_OPTION_ARG_FILENAME, &opt_vm_judge,
          "tools/vm/vmjudge.py (default $SECCOMP_EMU_VM_JUDGE, else the source tree's)", "PATH" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("PROGRAM [ARG...]");
    GError *err = NULL;
    int expected_status = 0;

    g_option_context_set_summary(ctx,
        "Run PROGRAM natively and under seccomp-emu; compare stdout, stderr and wait status.\n"
        "Exit status: 0 all agree, 1 they differ or a run hung, 2 usage or spawn error.");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_strict_posix(ctx, TRUE);  /* options end at PROGRAM */
    fix_bare_trace(argc, argv);
    if (!g_option_context_parse(ctx, &argc, &argv, &err))
        die_usage(ctx, err->message);
    int first = 1;
    if (first < argc && strcmp(argv[first], "--") == 0)
        first++;
    if (first >= argc)
        die_usage(ctx, "no PROGRAM given");
    if (opt_timeout <= 0)
        die_usage(ctx, "--timeout must be positive");
    if ((opt_expect_stdout || opt_expect_stderr) && !opt_expect_status)
        die_usage(ctx, "--expect-stdout/--expect-stderr need --expect-status");
    if (opt_expect_status && !parse_expected_status(opt_expect_status, &expected_status))
        die_usage(ctx, "bad --expect-status (try \"exit 0\" or \"signal SIGKILL\")");
    if (opt_trace_file) {
        trace = strcmp(opt_trace_file, "-") != 0 ? fopen(opt_trace_file, "w") : stderr;
        if (!trace) {
            fprintf(stderr, "seccomp-emu-diff: %s: %s\n", opt_trace_file, g_strerror(errno));
            return 2;
        }
    }
    if (!opt_emu)
        opt_emu = default_emu();
    if (!opt_stdin)
        opt_stdin = g_strdup("/dev/null");

    char **prog = argv + first;
    GPtrArray *ev = g_ptr_array_new();
    g_ptr_array_add(ev, opt_emu);
    g_ptr_array_add(ev, "--quiet");   /* keep its kill reason off stderr */
    /* The native leg is a child of this process: the same capabilities
     * (seccomp-emu's default is a container's set). */
    g_ptr_array_add(ev, "--caps=host");
    gchar *cpu_arg = opt_cpu ? g_strconcat("--cpu=", opt_cpu, NULL) : NULL;
    if (cpu_arg)
        g_ptr_array_add(ev, cpu_arg);
    gchar *trace_arg = NULL;
    if (trace) {
        int fd = g_file_open_tmp("seccomp-emu-trace-XXXXXX", &emu_trace_path, &err);
        if (fd < 0) {
            fprintf(stderr, "seccomp-emu-diff: %s\n", err->message);
            return 2;
        }
        close(fd);
        trace_arg = g_strconcat("--trace=", emu_trace_path, NULL);
        g_ptr_array_add(ev, trace_arg);
    }
    for (gchar **a = opt_emu_args; a && *a; a++)
        g_ptr_array_add(ev, *a);
    for (char **a = prog; *a; a++)
        g_ptr_array_add(ev, *a);
    g_ptr_array_add(ev, NULL);

    struct sigaction sa = { .sa_handler = on_fatal_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    gboolean expect_mode = opt_expect_status != NULL;
    Native nat = { 0 };
    if (!expect_mode) {
        program_argv = prog;
        int verdict = native_open(&nat, prog[0]);
        if (verdict == 3) {
            printf("seccomp-emu-diff: %s: collected for the VM\n", prog[0]);
            return 0;
        }
        if (verdict == 1 && nat.vm_note)
            printf("seccomp-emu-diff: %s\nno native run here (the host lacks %s; %s) and no "
                   "recording %s\nRESULT: DIFFER\n", prog[0], nat.lacks, nat.vm_note,
                   nat.dir ? nat.dir : "(no --recorded given)");
        else if (verdict == 1)
            printf("seccomp-emu-diff: %s\nno native run here (the host lacks %s) and no "
                   "recording %s\nRESULT: DIFFER\n", prog[0], nat.lacks,
                   nat.dir ? nat.dir : "(no --recorded given)");
        if (verdict)
            return verdict;
    }
    gboolean from_rec = nat.lacks && *nat.lacks;   /* the VM's answer or a recording */
    Run runs[2] = {
        { .label = "native", .argv = prog, .fd = { -1, -1 } },
        { .label = "emu", .argv = (char **)ev->pdata, .envp = emu_env(), .fd = { -1, -1 } },
    };
    Run *native = &runs[0], *emu = &runs[1];
    Run *active = expect_mode || from_rec ? emu : runs;
    int nactive = expect_mode || from_rec ? 1 : 2;
    for (int i = 0; i < nactive; i++) {
        if (!spawn(&active[i], opt_stdin)) {
            for (int j = 0; j < i; j++) {
                kill(-active[j].pid, SIGKILL);
                waitpid(active[j].pid, NULL, 0);
            }
            return 2;
        }
        live_pids[i] = active[i].pid;
    }
    wait_all(active, nactive);

    Run expect = { .label = "expected" };
    if (expect_mode) {
        expect.status = expected_status;
        expect.buf[0] = read_expect_file(opt_expect_stdout);
        expect.buf[1] = read_expect_file(opt_expect_stderr);
        native = &expect;
    }
    gboolean rec_ok = TRUE;
    if (!expect_mode) {
        int verdict = native_settle(&nat, native, &expect, &rec_ok);
        if (verdict)
            return verdict;
        if (from_rec)
            native = &expect;
    }
    for (int i = 0; i < nactive; i++)
        trace_output(&active[i]);
    trace_emulator();

    gchar *cmd = g_strjoinv(" ", prog);
    printf("seccomp-emu-diff: %s%s\n", cmd, expect_mode ? " (emulator only, against expectations)" : "");
    if (from_rec && nat.have_vm)
        printf("native  the VM (this host lacks %s); by %s\n", nat.lacks, nat.vm.by);
    else if (from_rec)
        printf("native  recorded in %s (this host lacks %s%s%s); by %s\n", nat.dir, nat.lacks,
               nat.vm_note ? "; " : "", nat.vm_note ? nat.vm_note : "", nat.rec.by);
    gboolean ok = rec_ok;
    if (!rec_ok)
        printf("native  the recording %s (by %s) differs from the %s: "
               "SECCOMP_EMU_NATIVE=record to take the kernel's\n", nat.dir, nat.rec.by,
               nat.have_vm ? "VM's kernel" : "kernel here");
    ok &= compare_stream("stdout", native->buf[0], emu->buf[0], native->label, emu->label);
    ok &= compare_stream("stderr", native->buf[1], emu->buf[1], native->label, emu->label);
    gchar *ns = describe_status(native), *es = describe_status(emu);
    if (!native->hung && !emu->hung && native->status == emu->status) {
        printf("status  same: %s\n", ns);
    } else {
        printf("status  DIFFERENT: %s %s, %s %s\n", native->label, ns, emu->label, es);
        ok = FALSE;
    }
    for (int i = 0; i < nactive; i++)
        if (active[i].truncated[0] || active[i].truncated[1])
            printf("note: %s output truncated at %u bytes per stream\n", active[i].label,
                   CAPTURE_MAX);
    printf("RESULT: %s\n", ok ? "agree" : "DIFFER");
    fflush(stdout);

    /* Free everything, so a sanitizer build of the tool runs clean. */
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) {
            if (runs[i].buf[k])
                g_string_free(runs[i].buf[k], TRUE);
            if (expect.buf[k] && i == 0)
                g_string_free(expect.buf[k], TRUE);
        }
    g_free(ns);
    g_free(es);
    g_free(cmd);
    g_free(cpu_arg);
    g_free(trace_arg);
    g_free(emu_trace_path);
    g_ptr_array_free(ev, TRUE);
    g_option_context_free(ctx);
    g_free(opt_emu);
    g_free(opt_stdin);
    g_free(opt_cpu);
    g_free(opt_trace_file);
    g_free(opt_expect_status);
    g_free(opt_expect_stdout);
    g_free(opt_expect_stderr);
    g_free(opt_recorded);
    g_free(opt_hostcaps);
    g_strfreev(opt_needs);
    recording_clear(&nat.rec);
    recording_clear(&nat.vm);
    g_free(nat.vm_note);
    g_free(opt_native);
    g_free(opt_vm_judge);
    g_free(opt_vm_kernel);
    g_free(opt_vm_qemu);
    g_free(opt_vm_cpu);
    g_free(nat.dir);
    g_free(nat.lacks);
    g_strfreev(opt_emu_args);
    if (trace && trace != stderr)
        fclose(trace);
    return ok ? 0 : 1;
}
