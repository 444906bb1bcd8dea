/* vm_init: PID 1 of the judge VM (tools/vm/vmjudge.py).  It runs each case
 * of /batch natively under the VM's kernel, the way the harnesses run them
 * on the host, and reports every answer on the second serial port.
 *
 * /batch is a sequence of requests, each "R\n", then fields "TAG LEN\n"
 * followed by LEN bytes and "\n", then "E\n":
 *   id       the answer's name
 *   arg      one argv word (repeated)        env    one environment word
 *   stdin    null | pipe (open, nothing comes) | noreader (write end of a
 *            pipe whose reader is gone) | file | feed (a pipe that gives
 *            the data of `data` then EOF)     data   bytes for file or feed
 *   stdout   pipe | file                     stderr pipe | null
 *   rlimit   "RESOURCE SOFT HARD" (numbers)  ignore, block  a signal number
 *   send     "SIG DELAY_MS": SIG once stdout holds "ready\n"
 *   norandom "1": personality(ADDR_NO_RANDOMIZE)
 *   timeout  milliseconds before the case is killed (a hang)
 *   cwd      the directory the case starts in (default /)
 * Every case starts in its own session with RLIMIT_CORE 0, default signal
 * actions and an empty mask.
 *
 * The report (one line each, \n-terminated, hex for bytes):
 *   VMJ kernel HEX(uname -r) HEX(model name) HEX(vendor_id)
 *   VMJ answer HEX(id) STATUS HEX(stdout) HEX(stderr)
 *     STATUS is the raw wait status in decimal, or "hang"
 *   VMJ done
 * then the VM powers off. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORDS 256

typedef struct {
    char *buf;
    size_t len;
} Bytes;

typedef struct {
    Bytes id, data;
    char *argv[MAX_WORDS + 1], *envp[MAX_WORDS + 1];
    int argc, envc;
    char stdin_kind[16], stdout_kind[8], stderr_kind[8];
    struct { int res; rlim_t soft, hard; } rlimits[16];
    int nrlimits;
    int ignore[64], nignore, block[64], nblock;
    int send_sig, send_delay_ms, norandom;
    long timeout_ms;
    char *cwd;
} Request;

static FILE *report;

static void die(const char *what)
{
    if (report) {
        fprintf(report, "VMJ error %s: %s\n", what, strerror(errno));
        fflush(report);
    }
    sync();
    reboot(RB_POWER_OFF);
    _exit(1);
}

static void hex(FILE *f, const void *p, size_t n)
{
    const unsigned char *b = p;
    if (n == 0)
        fputc('-', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", b[i]);
}

static void append(Bytes *b, const void *p, size_t n)
{
    char *grown = realloc(b->buf, b->len + n + 1);
    if (!grown)
        die("out of memory");
    b->buf = grown;
    memcpy(b->buf + b->len, p, n);
    b->len += n;
    b->buf[b->len] = 0;
}

/* One field: FALSE at "E" (end of request). */
static int read_field(FILE *in, char *tag, size_t tagsz, Bytes *value)
{
    char line[128];
    size_t len;
    if (!fgets(line, sizeof line, in))
        die("batch truncated");
    if (strcmp(line, "E\n") == 0)
        return 0;
    char *space = strchr(line, ' ');
    if (!space || (size_t)(space - line) >= tagsz)
        die("bad batch field");
    memcpy(tag, line, (size_t)(space - line));
    tag[space - line] = 0;
    len = strtoul(space + 1, NULL, 10);
    value->buf = malloc(len + 1);
    value->len = len;
    if (!value->buf || fread(value->buf, 1, len, in) != len || fgetc(in) != '\n')
        die("batch truncated");
    value->buf[len] = 0;
    return 1;
}

static int read_request(FILE *in, Request *r)
{
    char line[16];
    memset(r, 0, sizeof *r);
    strcpy(r->stdin_kind, "null");
    strcpy(r->stdout_kind, "pipe");
    strcpy(r->stderr_kind, "pipe");
    r->timeout_ms = 60000;
    if (!fgets(line, sizeof line, in))
        return 0;
    if (strcmp(line, "R\n") != 0)
        die("bad batch record");
    char tag[16];
    Bytes v;
    while (read_field(in, tag, sizeof tag, &v)) {
        if (!strcmp(tag, "id"))
            r->id = v;
        else if (!strcmp(tag, "arg") && r->argc < MAX_WORDS)
            r->argv[r->argc++] = v.buf;
        else if (!strcmp(tag, "env") && r->envc < MAX_WORDS)
            r->envp[r->envc++] = v.buf;
        else if (!strcmp(tag, "stdin"))
            snprintf(r->stdin_kind, sizeof r->stdin_kind, "%s", v.buf);
        else if (!strcmp(tag, "data"))
            r->data = v;
        else if (!strcmp(tag, "stdout"))
            snprintf(r->stdout_kind, sizeof r->stdout_kind, "%s", v.buf);
        else if (!strcmp(tag, "stderr"))
            snprintf(r->stderr_kind, sizeof r->stderr_kind, "%s", v.buf);
        else if (!strcmp(tag, "rlimit") && r->nrlimits < 16) {
            unsigned long long soft, hard;
            int res;
            if (sscanf(v.buf, "%d %llu %llu", &res, &soft, &hard) != 3)
                die("bad rlimit");
            r->rlimits[r->nrlimits].res = res;
            r->rlimits[r->nrlimits].soft = soft;
            r->rlimits[r->nrlimits++].hard = hard;
        } else if (!strcmp(tag, "ignore") && r->nignore < 64)
            r->ignore[r->nignore++] = atoi(v.buf);
        else if (!strcmp(tag, "block") && r->nblock < 64)
            r->block[r->nblock++] = atoi(v.buf);
        else if (!strcmp(tag, "send"))
            sscanf(v.buf, "%d %d", &r->send_sig, &r->send_delay_ms);
        else if (!strcmp(tag, "norandom"))
            r->norandom = atoi(v.buf);
        else if (!strcmp(tag, "timeout"))
            r->timeout_ms = atol(v.buf);
        else if (!strcmp(tag, "cwd"))
            r->cwd = v.buf;
    }
    return 1;
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void run(const Request *r)
{
    int out[2] = { -1, -1 }, err[2] = { -1, -1 }, in[2] = { -1, -1 };
    int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1, hold = -1;
    if (!strcmp(r->stdout_kind, "file")) {
        stdout_fd = open("/tmp/stdout", O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (stdout_fd < 0)
            die("open /tmp/stdout");
    } else {
        if (pipe2(out, O_CLOEXEC))
            die("pipe");
        stdout_fd = out[1];
    }
    if (!strcmp(r->stderr_kind, "null")) {
        stderr_fd = open("/dev/null", O_WRONLY);
    } else {
        if (pipe2(err, O_CLOEXEC))
            die("pipe");
        stderr_fd = err[1];
    }
    if (!strcmp(r->stdin_kind, "null")) {
        stdin_fd = open("/dev/null", O_RDONLY);
    } else if (!strcmp(r->stdin_kind, "file")) {
        int f = open("/tmp/stdin", O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (f < 0 || write(f, r->data.buf, r->data.len) != (ssize_t)r->data.len)
            die("write /tmp/stdin");
        close(f);
        stdin_fd = open("/tmp/stdin", O_RDONLY);
    } else {
        if (pipe2(in, O_CLOEXEC))
            die("pipe");
        if (!strcmp(r->stdin_kind, "noreader")) {
            close(in[0]);
            stdin_fd = in[1];
        } else {
            stdin_fd = in[0];
            hold = in[1];
        }
    }
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        dup2(stdin_fd, 0);
        dup2(stdout_fd, 1);
        dup2(stderr_fd, 2);
        for (int fd = 3; fd < 64; fd++)
            close(fd);
        struct rlimit zero = { 0, 0 };
        setrlimit(RLIMIT_CORE, &zero);
        for (int i = 0; i < r->nrlimits; i++) {
            struct rlimit l = { r->rlimits[i].soft, r->rlimits[i].hard };
            setrlimit(r->rlimits[i].res, &l);
        }
        setsid();
        sigset_t mask;
        sigemptyset(&mask);
        for (int sig = 1; sig < 65; sig++)
            signal(sig, SIG_DFL);
        for (int i = 0; i < r->nignore; i++)
            signal(r->ignore[i], SIG_IGN);
        for (int i = 0; i < r->nblock; i++)
            sigaddset(&mask, r->block[i]);
        sigprocmask(SIG_SETMASK, &mask, NULL);
        if (r->norandom)
            personality(ADDR_NO_RANDOMIZE);
        if (chdir(r->cwd ? r->cwd : "/"))
            _exit(126);
        char *const *envp = r->envp;
        execve(r->argv[0], r->argv, envp);
        _exit(127);
    }
    close(stdin_fd);
    close(stderr_fd);
    if (out[1] >= 0)
        close(out[1]);
    Bytes got_out = { 0 }, got_err = { 0 };
    long deadline = now_ms() + r->timeout_ms;
    int sent = 0;
    struct pollfd fds[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
    /* feed the stdin data through the pipe, then EOF */
    if (!strcmp(r->stdin_kind, "feed") && hold >= 0) {
        size_t done = 0;
        while (done < r->data.len) {
            ssize_t n = write(hold, r->data.buf + done, r->data.len - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        close(hold);
        hold = -1;
    }
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        long left = deadline - now_ms();
        if (left <= 0)
            break;
        int n = poll(fds, 2, left > 100 ? 100 : (int)left);
        if (n < 0 && errno != EINTR)
            die("poll");
        for (int k = 0; k < 2; k++) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[65536];
            ssize_t got = read(fds[k].fd, buf, sizeof buf);
            if (got <= 0) {
                close(fds[k].fd);
                fds[k].fd = -1;
            } else {
                append(k ? &got_err : &got_out, buf, (size_t)got);
            }
        }
        if (r->send_sig && !sent && got_out.buf && strstr(got_out.buf, "ready\n")) {
            usleep((useconds_t)r->send_delay_ms * 1000);
            kill(pid, r->send_sig);
            sent = 1;
        }
    }
    int status = 0, hung = 1;
    while (now_ms() < deadline) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            hung = 0;
            break;
        }
        usleep(5000);
    }
    if (hung) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0)
            close(fds[k].fd);
    if (hold >= 0)
        close(hold);
    if (stdout_fd >= 0 && out[0] < 0) {
        struct stat st;
        if (fstat(stdout_fd, &st) == 0 && st.st_size > 0) {
            char *buf = malloc((size_t)st.st_size);
            if (!buf || pread(stdout_fd, buf, (size_t)st.st_size, 0) != st.st_size)
                die("read /tmp/stdout");
            append(&got_out, buf, (size_t)st.st_size);
            free(buf);
        }
        close(stdout_fd);
    }
    fputs("VMJ answer ", report);
    hex(report, r->id.buf, r->id.len);
    if (hung)
        fputs(" hang ", report);
    else
        fprintf(report, " %d ", status);
    hex(report, got_out.buf, got_out.len);
    fputc(' ', report);
    hex(report, got_err.buf, got_err.len);
    fputc('\n', report);
    fflush(report);
    free(got_out.buf);
    free(got_err.buf);
}

static void cpuinfo(const char *field, char *into, size_t size)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(into, size, "?");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, field, strlen(field)) == 0 && colon) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = 0;
            snprintf(into, size, "%s", colon);
            break;
        }
    }
    if (f)
        fclose(f);
}

int main(void)
{
    mkdir("/proc", 0755);
    mkdir("/dev", 0755);
    mkdir("/tmp", 01777);
    if (mount("proc", "/proc", "proc", 0, NULL) && errno != EBUSY)
        die("mount /proc");
    if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
        die("mount /dev");
    int port = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
    if (port < 0)
        die("open /dev/ttyS1");
    struct termios tio;
    if (tcgetattr(port, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(port, TCSANOW, &tio);
    }
    report = fdopen(port, "w");
    struct utsname u;
    char model[256], vendor[64];
    uname(&u);
    cpuinfo("model name", model, sizeof model);
    cpuinfo("vendor_id", vendor, sizeof vendor);
    fputs("VMJ kernel ", report);
    hex(report, u.release, strlen(u.release));
    fputc(' ', report);
    hex(report, model, strlen(model));
    fputc(' ', report);
    hex(report, vendor, strlen(vendor));
    fputc('\n', report);
    fflush(report);
    signal(SIGPIPE, SIG_IGN);
    FILE *batch = fopen("/batch", "r");
    if (!batch)
        die("open /batch");
    Request r;
    while (read_request(batch, &r))
        run(&r);
    fputs("VMJ done\n", report);
    fflush(report);
    tcdrain(port);
    sync();
    reboot(RB_POWER_OFF);
    return 0;
}
