#include "loaders/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000ll

int64_t input_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * NS + ts.tv_nsec;
}

int64_t input_deadline(int64_t start_ns, int64_t timeout_ns)
{
    return start_ns + (timeout_ns > 0 ? timeout_ns : INPUT_STREAM_SECONDS * NS);
}

/* A maximum as a person reads it: "256 MiB", or bytes. */
static const char *size_words(size_t n, char *buf, size_t len)
{
    if (n >= (1u << 20) && n % (1u << 20) == 0)
        g_snprintf(buf, len, "%zu MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        g_snprintf(buf, len, "%zu KiB", n >> 10);
    else
        g_snprintf(buf, len, "%zu bytes", n);
    return buf;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a pipe or FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

static err_t fail(enum input_failure *why, enum input_failure kind, err_t e)
{
    *why = kind;
    return e;
}

static int64_t deadline_ns;

void input_set_deadline(int64_t ns) { deadline_ns = ns; }

err_t input_read(const char *path, size_t max, input_enough_fn enough, char **data,
                 size_t *len, enum input_failure *why_out)
{
    enum input_failure ignored;
    enum input_failure *why = why_out ? why_out : &ignored;
    char words[32];
    if (!deadline_ns)
        deadline_ns = input_now() + INPUT_STREAM_SECONDS * NS;
    *data = NULL;
    *len = 0;
    *why = INPUT_OK;
    /* Non-blocking, so that opening a FIFO without a writer does not wait
     * past the deadline; reads wait in poll instead. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(why, errno == ENOENT ? INPUT_MISSING : INPUT_BAD,
                    err_new("cannot open: %s", host_strerror(errno)));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        err_t e = err_new("cannot stat: %s", host_strerror(errno));
        close(fd);
        return fail(why, INPUT_BAD, e);
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return fail(why, INPUT_BAD, err_new("is a directory"));
    }
    bool regular = S_ISREG(st.st_mode);
    if (regular && (uint64_t)st.st_size > max) {
        close(fd);
        return fail(why, INPUT_BAD,
                    err_new("%" G_GUINT64_FORMAT " bytes, more than the %s this input may have",
                            (uint64_t)st.st_size, size_words(max, words, sizeof(words))));
    }
    size_t cap = regular ? (size_t)st.st_size + 1 : MIN(max + 1, (size_t)64 << 10);
    char *buf = g_malloc(cap + 1);
    size_t got = 0;
    err_t e = OK;
    for (;;) {
        if (got == cap) {
            if (got > max) {
                e = fail(why, INPUT_BAD, err_new("more than the %s this input may have "
                                                 "(%s, read until then)",
                                                 size_words(max, words, sizeof(words)),
                                                 kind_of(st.st_mode)));
                break;
            }
            cap = MIN(cap * 2, max + 1);
            buf = g_realloc(buf, cap + 1);
        }
        if (!regular) {
            /* A stream is read only when poll says so: a FIFO no writer
             * has opened yet reads as end of file, where poll waits for
             * one (Linux reports no hang-up before a writer came and went). */
            int64_t left = deadline_ns - input_now();
            if (left <= 0) {
                e = fail(why, INPUT_TIMED_OUT,
                         err_new("%s that had not ended by the deadline (%zu bytes read)",
                                 kind_of(st.st_mode), got));
                break;
            }
            struct pollfd p = { .fd = fd, .events = POLLIN };
            int wait = (int)MIN((left + 999999) / 1000000, (int64_t)G_MAXINT);
            int r = poll(&p, 1, wait);
            if (r < 0 && errno != EINTR) {
                e = fail(why, INPUT_BAD, err_new("cannot wait for input: %s", host_strerror(errno)));
                break;
            }
            if (r <= 0)
                continue;
        }
        ssize_t n = read(fd, buf + got, cap - got);
        if (n > 0) {
            got += (size_t)n;
            size_t need = !regular && enough ? enough(buf, got) : 0;
            if (need && got >= need) {
                got = need; /* a stream's bytes past what is needed are never read */
                break;
            }
            continue;
        }
        if (n == 0)
            break;
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            e = fail(why, INPUT_BAD, err_new("cannot read: %s", host_strerror(errno)));
            break;
        }
    }
    close(fd);
    if (e) {
        g_free(buf);
        return e;
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return OK;
}

err_t input_named(const char *path, err_t e)
{
    if (!e)
        return OK;
    err_t named = err_new("%s: %s", path, e);
    err_free(e);
    return err_printable(named);
}
