/* What the user names on the command line and seccomp-emu reads whole
 * before anything runs: the program, --raw images, --filter and
 * --seccomp-profile files, seccomp-emu-bpf's input.  Each kind has a
 * maximum size; a regular file above it is refused before it is read, a
 * stream (pipe, FIFO, terminal, a device such as /dev/zero) is read until
 * end of file, refused once it passes the maximum, and must end by a
 * deadline (docs/usage.md, "Inputs").  The errors name what was wrong;
 * the caller names the file. */
#ifndef LOADERS_INPUT_H
#define LOADERS_INPUT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

/* The largest input of each kind. */
#define INPUT_MAX_PROGRAM ((size_t)1 << 30)   /* a static program: 1 GiB */
#define INPUT_MAX_FILTER ((size_t)4096 * 8)   /* BPF_MAXINSNS instructions of 8 bytes */
#define INPUT_MAX_PROFILE ((size_t)16 << 20)  /* an OCI profile: 16 MiB of JSON */

/* How long a stream may take to end, from seccomp-emu's start, when no
 * --timeout bounds the run (with one, its deadline applies). */
#define INPUT_STREAM_SECONDS 60

enum input_failure {
    INPUT_OK,
    INPUT_MISSING,   /* no such file */
    INPUT_BAD,       /* cannot be read, a directory, too large */
    INPUT_TIMED_OUT, /* a stream that did not end by the deadline */
};

/* How much of a stream the reader needs, judged from what came so far:
 * 0 while it cannot tell; else the byte count after which reading stops
 * (at or below what came: stop at once, the caller's parser then says what
 * is wrong with the bytes).  A program stops at the end of its last
 * segment, and at once when its first bytes are no ELF header. */
typedef size_t (*input_enough_fn)(const char *data, size_t len);

/* Reads `path` (at most `max` bytes) into *data (NUL-terminated; free
 * with g_free) and *len; a stream must end by the deadline below, or be
 * `enough` (may be NULL).  *why says which failure it was (may be NULL). */
err_t input_read(const char *path, size_t max, input_enough_fn enough, char **data,
                 size_t *len, enum input_failure *why);

/* Takes e (OK passes through) and returns it as "PATH: e", one printable
 * line: how the loaders whose parsers do not know the file's name report
 * what was wrong with it. */
err_t input_named(const char *path, err_t e);

/* CLOCK_MONOTONIC nanoseconds by which every stream must end; until set,
 * INPUT_STREAM_SECONDS after the first read. */
void input_set_deadline(int64_t deadline_ns);

/* The deadline for streams that a run started at `start_ns` (monotonic)
 * gives them: its --timeout (`timeout_ns` > 0), else INPUT_STREAM_SECONDS. */
int64_t input_deadline(int64_t start_ns, int64_t timeout_ns);

/* CLOCK_MONOTONIC now, in nanoseconds. */
int64_t input_now(void);

#endif
