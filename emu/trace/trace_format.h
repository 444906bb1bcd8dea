/* The trace's view of a call: name, arguments decoded the way strace shows
 * them, and the result with its errno name.  Internal to the trace (trace.c
 * renders it as text or JSON); nothing here changes the guest. */
#ifndef EMU_TRACE_FORMAT_H
#define EMU_TRACE_FORMAT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/abi.h"

struct task;

/* strace -s 32: how much of a buffer a line shows. */
#define TRACE_STRSIZE 32

/* A constant or flag bit and its Linux name. */
struct named {
    uint64_t value;
    const char *name;
};
struct named_set {
    const struct named *v;
    size_t n;
};

/* trace_consts.c: the constants of the calls seccomp-emu emulates. */
extern const struct named_set trace_open_flags, trace_prot_flags, trace_map_types,
    trace_map_flags, trace_whence, trace_clocks, trace_rlimits, trace_arch_prctl,
    trace_prctl_options, trace_seccomp_ops, trace_seccomp_modes, trace_ioctls, trace_fcntl_cmds,
    trace_madvise;
/* si_code names of signal `sig` (and the generic SI_* codes). */
const char *trace_si_code_name(int sig, int code);

/* Argument formats of calls seccomp-emu does not emulate (they answer
 * -ENOSYS or are killed) but that a guest is likely to try, by name. */
const char *trace_fallback_fmt(const char *name);
/* Does the call return an address (shown in hex)? */
bool trace_returns_address(const char *name);

struct trace_call {
    char *name;       /* "write", or "syscall_0x1a4" for an unknown number */
    GPtrArray *args;  /* char *: each argument as strace would print it */
    char *result;     /* "6", "0x7f0000", "-1 EBADF (Bad file descriptor)"; NULL: none */
    const char *errno_name; /* "EBADF" when the call failed */
};

/* Decode a call on `abi` (the entry's ABI).  Buffers the call fills ('B')
 * are shown only when it returned a positive count. */
void trace_decode_call(struct task *t, const struct abi *abi, int64_t nr, const uint64_t a[6],
                       bool returned, int64_t result, struct trace_call *out);
void trace_call_clear(struct trace_call *c);
/* "write(1, \"hi\\n\", 3)" */
void trace_call_text(GString *out, const struct trace_call *c);

/* strace's quoting: "..." with C escapes, then ... when truncated. */
void trace_quote(GString *out, const uint8_t *buf, size_t n, bool truncated);
/* A JSON string literal of `s` (made valid UTF-8 first). */
void trace_json_string(GString *out, const char *s);

#endif
