/* seccomp: the one place that decides whether a call may run (the
 * filters, then the strict list), and the interfaces that turn a mode on.
 * trap.c calls seccomp_check() exactly once per trapped call, before
 * anything of the call happens. */
#ifndef EMU_SECCOMP_H
#define EMU_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "abi/abi.h"

#include "abi/seccomp_actions.h"
#include "abi/seccomp_linux.h"
#include "emu/bpf/bpf.h"

struct task;
struct filter_origin;

/* The one decision for a trapped call: what the attached filters say
 * (filter mode), then the strict list (strict mode).  It says what is to
 * become of the call and what it returns; trap.c applies it. */
struct verdict {
    enum seccomp_effect effect; /* the deciding action's (abi/seccomp_actions.h);
                                   the strict list's: ALLOW, or KILL_THREAD */
    int64_t result;         /* ERRNO, TRACE, NOTIFY with no listener: what the
                               call returns, not run */
    int signo;              /* KILL_*, SIGNAL: the signal (SIGKILL from the strict list) */
    struct seccomp_filter *listener; /* NOTIFY: the filter whose listener is told;
                                        NULL when it is closed */

    const struct abi *list; /* strict mode: the list the call was checked against */
    bool cve_2009_0835;     /* allowed only by the 2005 personality rule */

    /* Filter mode: every attached filter ran, newest first. */
    size_t filters_run;     /* 0: no filter is attached */
    const uint32_t *rets;   /* each one's value, newest first (task-owned) */
    size_t winner;          /* index into rets of the deciding value */
    uint32_t ret;           /* the deciding value */
    uint32_t data;          /* ret & SECCOMP_RET_DATA */
    const struct seccomp_data_linux *call; /* what the filters saw (during the trap) */
};

/* The call runs (ALLOW, LOG, on the strict list, or no mode at all). */
static inline bool verdict_runs(const struct verdict *v)
{
    return v->effect == SECCOMP_EFFECT_ALLOW || v->effect == SECCOMP_EFFECT_LOG;
}

/* `data` is the call as the filters see it (nr, arch, ip, args). */
struct verdict seccomp_check(struct task *t, enum entry e, const struct seccomp_data_linux *data);

/* The verdict of a list of filter values, newest first (kernel/seccomp.c's
 * seccomp_run_filters): the one of highest precedence, the newest on ties.
 * Returns the index of the winner. */
size_t seccomp_rank(const uint32_t *rets, size_t n);

/* A task's own array of the same filters (clone, fork): each filter is
 * shared, counted. */
GPtrArray *seccomp_filters_copy(const GPtrArray *filters);
/* release_task(): the task's chain goes, and with it its use of each
 * filter (a listener sees POLLHUP once nobody uses its filter). */
void seccomp_filter_release(struct task *t);
struct seccomp_filter;
struct seccomp_filter *seccomp_filter_get(struct seccomp_filter *f);
void seccomp_filter_put(struct seccomp_filter *f);

/* Turn strict mode on: one way, and the time-stamp counter goes off. */
void seccomp_enter_strict(struct task *t);

/* Attach a filter as SECCOMP_SET_MODE_FILTER does after copying it in:
 * the checker, the path limit, flags.  0 or a negative Linux errno.  For
 * launchers (--filter), before the first instruction; the task's
 * no_new_privs/capability test is the caller's. */
int seccomp_install_filter(struct task *t, const struct sock_filter_linux *prog, size_t len,
                           unsigned flags);
/* The newest filter came from `origin` (kept, not copied). */
void seccomp_set_origin(struct task *t, const struct filter_origin *origin);
/* What the filter whose value is rets[i] of a verdict names as its reason
 * for it (a profile's rule), or NULL. */
char *seccomp_explain(const struct task *t, const struct verdict *v, size_t i);

/* Called before each BPF instruction a filter executes (--trace-bpf);
 * NULL when nobody watches.  Its ctx is a struct filter_step. */
struct filter_step {
    struct task *t;
    size_t filter; /* 0 = the oldest attached filter */
    const struct seccomp_data_linux *data;
};
extern bpf_step_fn seccomp_bpf_step;

/* prctl(2) and seccomp(2) as each profile answers them; both reach the
 * kernel's one do_seccomp() for the seccomp operations. */
int64_t seccomp_prctl(struct task *t, const uint64_t a[6]);
int64_t seccomp_syscall(struct task *t, const uint64_t a[6]);

/* The seed patch's /proc/<pid>/seccomp file. */
int64_t seccomp_proc_read(struct task *t, uint64_t *pos, uint64_t buf, uint64_t count);
int64_t seccomp_proc_write(struct task *t, uint64_t buf, uint64_t count);

/* Parse what a write to /proc/self/seccomp carries, by the seed's rules:
 * at most 19 bytes, base 0, one trailing newline consumed.  Returns the
 * number of bytes parsed (0: nothing parsed) and the value in *mode. */
size_t seccomp_proc_parse(const char *buf, size_t count, unsigned long *mode);

/* Render the mode as the seed's read returns it: "N\n\0"; returns length. */
size_t seccomp_proc_render(int mode, char out[24]);

#endif
