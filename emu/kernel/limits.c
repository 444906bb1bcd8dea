#include "emu/kernel/limits.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/engine/hostmem.h"
#include "emu/kernel/async.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"
#include "emu/parse.h"

/* The engine counts a block at a time (its instruction budget, taken in
 * each block's prologue) while a block of up to 512 instructions (TCG's
 * limit) still fits in what is left; below this many left, every
 * instruction is counted by a hook. */
#define FINAL_STRETCH 1024
/* --sched=parallel: the most one engine runs before it asks again. */
#define PARALLEL_GRANT (1 << 20)

static char *opt_cpu_time, *opt_timeout, *opt_max_insns, *opt_memory, *opt_output,
    *opt_host_memory, *opt_max_tasks;

static const GOptionEntry entries[] = {
    { "cpu-time", 0, 0, G_OPTION_ARG_FILENAME, &opt_cpu_time,
      "Guest CPU time limit, RLIMIT_CPU: SIGXCPU at SOFT s and every second after, SIGKILL at "
      "HARD (default: HARD = SOFT)", "SOFT[:HARD]" },
    { "timeout", 0, 0, G_OPTION_ARG_FILENAME, &opt_timeout,
      "Wall-clock limit, then SIGKILL", "SECONDS" },
    { "max-insns", 0, 0, G_OPTION_ARG_FILENAME, &opt_max_insns,
      "Guest instruction limit, then SIGKILL", "N" },
    { "memory", 0, 0, G_OPTION_ARG_FILENAME, &opt_memory,
      "Guest address-space limit, RLIMIT_AS (suffixes K, M, G: powers of 1024)", "BYTES" },
    { "output-limit", 0, 0, G_OPTION_ARG_FILENAME, &opt_output,
      "Limit on all the guest writes, RLIMIT_FSIZE: SIGXFSZ past it", "BYTES" },
    { "host-memory", 0, 0, G_OPTION_ARG_FILENAME, &opt_host_memory,
      "Limit on seccomp-emu's own host memory, everything included (default: half the "
      "host's physical memory); SIGKILL past it", "BYTES" },
    { "max-tasks", 0, 0, G_OPTION_ARG_FILENAME, &opt_max_tasks,
      "Guest threads and processes alive at once (default 1024): clone, fork and vfork "
      "answer EAGAIN at the limit, as Linux does at RLIMIT_NPROC", "N" },
    { NULL },
};

static gboolean post_parse(GOptionContext *ctx, GOptionGroup *group, gpointer data,
                           GError **error);

GOptionGroup *limits_option_group(void)
{
    GOptionGroup *g = g_option_group_new("limits", "Resource limits on the job:",
                                         "Show the resource-limit options", NULL, NULL);
    g_option_group_add_entries(g, entries);
    g_option_group_set_parse_hooks(g, NULL, post_parse);
    return g;
}

static struct {
    struct task *t;
    uint64_t written;
    /* --max-insns, over the whole guest */
    bool counting;
    int64_t left;       /* instructions it still allows */
    uint64_t max_insns;
    bool per_insn;      /* its last stretch: a hook per instruction */
    int64_t granted;    /* in parallel: the budgets of engines running now */
    bool turn_bound;    /* the budget was bound by the rr turn, not --max-insns */
    char insn_reason[96];
    char timeout_reason[96];
} limits_state;

/* ---- parsing ---- */

/* The longest wall-clock limit: what a signed 64-bit count of nanoseconds
 * holds, with room for the monotonic clock's start (292 years). */
#define SECONDS_MAX 9000000000.0

static err_t parse_seconds(const char *opt, const char *s, int64_t *ns)
{
    char *end = NULL;
    if (!s || !*s)
        return err_new("--%s needs a number of seconds", opt);
    g_autofree char *q = err_quote(s);
    /* Decimal only: no hexadecimal float, no inf or nan. */
    for (const char *c = s; *c; c++)
        if (!g_ascii_isdigit(*c) && *c != '.' && *c != 'e' && *c != 'E' && *c != '-' &&
            *c != '+')
            return err_new("--%s: %s is not a number of seconds", opt, q);
    errno = 0;
    double v = g_ascii_strtod(s, &end);
    if (end == s || *end)
        return err_new("--%s: %s is not a number of seconds", opt, q);
    if (!(v > 0))
        return err_new("--%s: %s is not a positive number of seconds", opt, q);
    if (errno == ERANGE || v > SECONDS_MAX)
        return err_new("--%s: %s is more than the longest limit, %.0f s", opt, q, SECONDS_MAX);
    *ns = (int64_t)(v * 1e9);
    /* A positive value too small for a nanosecond still ends the run. */
    if (*ns == 0)
        *ns = 1;
    return OK;
}

/* ---- instruction budget ---- */

/* Guest instructions are counted by the engines themselves (their
 * instruction budget, taken in each block's prologue) for two users:
 * --max-insns, over the whole guest, and --sched=rr:N, per turn.  Before
 * each engine start the budget is the smaller of what the two allow; after
 * the stop, what ran is taken off both.  Once fewer than FINAL_STRETCH
 * instructions of --max-insns are left, every instruction is counted by a
 * hook instead, on each engine as it next runs, so that the limit is
 * exact. */

static bool in_kernel_page(struct task *t, uint64_t pc)
{
    return pc >= t->mm->layout.kpage && pc < t->mm->layout.kpage + 0x1000;
}

static void kill_over_budget(struct task *t)
{
    task_kill(t, SIGKILL_LINUX, g_strdup(limits_state.insn_reason));
}

static void on_insn(uc_engine *uc, uint64_t pc, uint32_t size, void *user)
{
    struct task *t = cpu_task(user);
    (void)size;
    if (in_kernel_page(t, pc))
        return;
    /* The hook runs before the instruction: with nothing left, it must not
     * run at all.  Engines in parallel count down the one total. */
    if (__atomic_fetch_sub(&limits_state.left, 1, __ATOMIC_RELAXED) <= 0) {
        __atomic_fetch_add(&limits_state.left, 1, __ATOMIC_RELAXED);
        sched_hook_enter(t);
        kill_over_budget(t);
        sched_hook_leave(t);
        return;
    }
    /* An rr turn counted here too. */
    if (sched_turn_left() != UINT64_MAX) {
        sched_account_insns(1);
        if (sched_need_resched())
            uc_emu_stop(uc);
    }
}

/* The last stretch on this engine: the hook in every block, the budget
 * out of the way. */
static err_t count_each_insn(struct task *t)
{
    struct cpu *c = t->cpu;
    if (c->insn_hook_on)
        return OK;
    err_t e;
    if ((e = UC_TRY(uc_ctl_set_insn_budget(c->uc, INT64_MAX, 0, t->mm->layout.kpage - 1))) ||
        (e = UC_TRY(uc_hook_add(c->uc, &c->insn_hook, UC_HOOK_CODE, (void *)on_insn, c, 1, 0))) ||
        (e = UC_TRY(uc_ctl_flush_tb(c->uc))))
        return e;
    c->insn_hook_on = true;
    return OK;
}

err_t limits_before_run(struct task *t)
{
    uint64_t turn = sched_turn_left();
    struct cpu *c = t->cpu;
    c->insn_budget_set = -1;
    if (!limits_state.counting && turn == UINT64_MAX)
        return OK;
    if (limits_state.per_insn)
        return count_each_insn(t);
    int64_t avail = limits_state.counting
                        ? __atomic_load_n(&limits_state.left, __ATOMIC_RELAXED) - FINAL_STRETCH -
                              limits_state.granted
                        : INT64_MAX;
    int64_t budget = avail;
    limits_state.turn_bound = false;
    c->insn_grant_bound = false;
    if (turn != UINT64_MAX && (uint64_t)budget > turn) {
        budget = (int64_t)turn;
        limits_state.turn_bound = true;
    }
    /* In parallel each engine runs on a piece of what is left, so that
     * together they never pass it; the last stretch is counted by the
     * hook on every engine. */
    if (sched_parallel() && limits_state.counting) {
        if (budget <= 0) {
            limits_state.per_insn = true;
            return count_each_insn(t);
        }
        if (budget > PARALLEL_GRANT) {
            budget = PARALLEL_GRANT;
            c->insn_grant_bound = true;
        }
        limits_state.granted += budget;
    }
    c->insn_budget_set = budget;
    /* Counted in the translated code, no callback per block
     * (docs/performance.md); seccomp-emu's own stubs on the kernel
     * page are not the guest's and do not count. */
    return UC_TRY(uc_ctl_set_insn_budget(t->cpu->uc, budget, 0, t->mm->layout.kpage - 1));
}

err_t limits_after_run(struct task *t)
{
    struct cpu *c = t->cpu;
    if (c->insn_budget_set < 0)
        return OK;
    int64_t rest = 0;
    int hit = 0;
    err_t e = UC_TRY(uc_ctl_get_insn_budget(c->uc, &rest, &hit));
    if (e)
        return e;
    int64_t set = c->insn_budget_set;
    uint64_t ran = set > rest ? (uint64_t)(set - rest) : 0;
    c->insn_budget_set = -1;
    if (sched_parallel() && limits_state.counting)
        limits_state.granted -= set;
    if (limits_state.counting)
        __atomic_fetch_sub(&limits_state.left, (int64_t)MIN(ran, (uint64_t)INT64_MAX),
                           __ATOMIC_RELAXED);
    sched_account_insns(ran);
    /* A piece spent is not the end of the budget. */
    if (!hit || c->insn_grant_bound)
        return OK;
    /* The engine stopped before a block the budget could not pay for: the
     * turn is over, or --max-insns enters its last stretch. */
    if (limits_state.turn_bound)
        sched_end_turn();
    else
        limits_state.per_insn = true;
    return OK;
}

static void setup_insn_budget(uint64_t n)
{
    limits_state.counting = true;
    limits_state.left = n > INT64_MAX - FINAL_STRETCH ? INT64_MAX - FINAL_STRETCH : (int64_t)n;
    limits_state.max_insns = n;
    g_snprintf(limits_state.insn_reason, sizeof(limits_state.insn_reason),
               "killed by SIGKILL: instruction limit of %" PRIu64 " reached (--max-insns)", n);
    /* A budget already below the final stretch: counted one by one from
     * the first instruction. */
    if (limits_state.left < FINAL_STRETCH)
        limits_state.per_insn = true;
}

/* ---- rlimits ---- */

void limits_rlimit_changed(struct task *t, unsigned resource)
{
    switch (resource) {
    case RLIMIT_CPU_LINUX:
        async_set_cpu_limit(t->group, t->group->rlim[RLIMIT_CPU_LINUX].cur,
                            t->group->rlim[RLIMIT_CPU_LINUX].max);
        break;
    case RLIMIT_AS_LINUX:
        t->mm->max_mapped =
            t->group->rlim[RLIMIT_AS_LINUX].cur == RLIM_INFINITY_LINUX ? 0 : t->group->rlim[RLIMIT_AS_LINUX].cur;
        break;
    case RLIMIT_DATA_LINUX:
        mm_set_data_limit(t->mm, t->group->rlim[RLIMIT_DATA_LINUX].cur, t->group->rlim[RLIMIT_DATA_LINUX].max);
        break;
    case RLIMIT_STACK_LINUX:
        mm_set_stack_limit(t->mm, t->group->rlim[RLIMIT_STACK_LINUX].cur);
        break;
    default:
        break;
    }
}

static void set_rlimit(struct task *t, unsigned res, uint64_t cur, uint64_t max)
{
    t->group->rlim[res].cur = cur;
    t->group->rlim[res].max = max;
    limits_rlimit_changed(t, res);
}

/* What the options asked for, checked once they are parsed. */
static struct {
    bool cpu, memory, output, timeout, insns;
    uint64_t cpu_soft, cpu_hard, memory_bytes, output_bytes, max_insns;
    int64_t timeout_ns;
} limits_asked;

static err_t parse_options(void)
{
    err_t e;
    if (opt_cpu_time) {
        g_auto(GStrv) parts = g_strsplit(opt_cpu_time, ":", 2);
        if ((e = parse_number("cpu-time", parts[0], false, &limits_asked.cpu_soft)))
            return e;
        limits_asked.cpu_hard = limits_asked.cpu_soft;
        if (parts[1] && (e = parse_number("cpu-time", parts[1], false, &limits_asked.cpu_hard)))
            return e;
        if (limits_asked.cpu_soft > limits_asked.cpu_hard)
            return err_new("--cpu-time: SOFT must not exceed HARD");
        if (limits_asked.cpu_soft == 0)
            return err_new("--cpu-time: the limit must be at least 1 second");
        limits_asked.cpu = true;
    }
    if (opt_memory) {
        if ((e = parse_number("memory", opt_memory, true, &limits_asked.memory_bytes)))
            return e;
        if (!limits_asked.memory_bytes)
            return err_new("--memory: the limit must be positive");
        limits_asked.memory = true;
    }
    if (opt_host_memory) {
        uint64_t bytes;
        if ((e = parse_number("host-memory", opt_host_memory, true, &bytes)))
            return e;
        if (!bytes)
            return err_new("--host-memory: the limit must be positive");
        hostmem_set_limit(bytes);
    }
    if (opt_output) {
        if ((e = parse_number("output-limit", opt_output, true, &limits_asked.output_bytes)))
            return e;
        limits_asked.output = true;
    }
    if (opt_timeout) {
        if ((e = parse_seconds("timeout", opt_timeout, &limits_asked.timeout_ns)))
            return e;
        limits_asked.timeout = true;
    }
    if (opt_max_tasks) {
        uint64_t n;
        if ((e = parse_number("max-tasks", opt_max_tasks, false, &n)))
            return e;
        if (n == 0 || n > 4194304)
            return err_new("--max-tasks must be between 1 and 4194304 (Linux's pid_max)");
        task_set_max((unsigned)n);
    }
    if (opt_max_insns) {
        if ((e = parse_number("max-insns", opt_max_insns, true, &limits_asked.max_insns)))
            return e;
        limits_asked.insns = true;
    }
    return OK;
}

/* Bad values are usage errors, reported by the option parser itself. */
static gboolean post_parse(GOptionContext *ctx, GOptionGroup *group, gpointer data,
                           GError **error)
{
    (void)ctx, (void)group, (void)data;
    err_t e = parse_options();
    if (!e)
        return TRUE;
    g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, e);
    err_free(e);
    return FALSE;
}

/* ---- the wall clock from seccomp-emu's start ---- */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static struct {
    int64_t deadline;  /* CLOCK_MONOTONIC ns; 0: no --timeout */
    bool kill;         /* --timeout's SIGKILL; else exit EXIT_SETUP_TOO_LONG */
    char line[192];    /* what the set-up watchdog writes, with its newline */
    size_t len;
} clock_state;

#define EXIT_SETUP_TOO_LONG 126

/* Async-signal-safe: the line, then SIGKILL as the timeout would end the
 * guest, or the exit status of a program that cannot be run. */
static void on_setup_timeout(int sig)
{
    (void)sig;
    if (clock_state.len) {
        ssize_t n = write(2, clock_state.line, clock_state.len);
        (void)n;
    }
    if (clock_state.kill)
        kill(getpid(), SIGKILL);
    _exit(EXIT_SETUP_TOO_LONG);
}

err_t limits_start_clock(bool quiet)
{
    int64_t ns = limits_asked.timeout ? limits_asked.timeout_ns : LIMITS_SETUP_SECONDS * 1000000000ll;
    clock_state.kill = limits_asked.timeout;
    if (limits_asked.timeout)
        clock_state.deadline = mono_ns() + ns;
    if (limits_asked.timeout && !quiet)
        g_snprintf(clock_state.line, sizeof(clock_state.line),
                   "seccomp-emu: killed by SIGKILL: wall-clock timeout of %s s reached (--timeout) "
                   "before the guest started\n", opt_timeout);
    else if (!limits_asked.timeout)
        g_snprintf(clock_state.line, sizeof(clock_state.line),
                   "seccomp-emu: set-up (reading the inputs, compiling profiles, loading the "
                   "program) did not end within %d s\n", LIMITS_SETUP_SECONDS);
    clock_state.len = strlen(clock_state.line);
    err_t e = async_host_handler(SIGALRM, "SIGALRM", on_setup_timeout);
    if (e)
        return e;
    struct itimerval it = { { 0, 0 }, { (time_t)(ns / 1000000000ll),
                                        (suseconds_t)(ns % 1000000000ll / 1000) } };
    if (!it.it_value.tv_sec && !it.it_value.tv_usec)
        it.it_value.tv_usec = 1;
    if (setitimer(ITIMER_REAL, &it, NULL) != 0)
        return err_new("setitimer: %s", host_strerror(errno));
    return OK;
}

int64_t limits_deadline(void) { return clock_state.deadline; }

err_t limits_setup_done(void)
{
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    if (setitimer(ITIMER_REAL, &off, NULL) != 0)
        return err_new("setitimer: %s", host_strerror(errno));
    return async_host_handler(SIGALRM, "SIGALRM", SIG_DFL);
}

err_t limits_setup(struct task *t)
{
    limits_state.t = t;
    if (limits_asked.cpu)
        set_rlimit(t, RLIMIT_CPU_LINUX, limits_asked.cpu_soft, limits_asked.cpu_hard);
    else
        limits_rlimit_changed(t, RLIMIT_CPU_LINUX);
    if (limits_asked.memory)
        set_rlimit(t, RLIMIT_AS_LINUX, limits_asked.memory_bytes, limits_asked.memory_bytes);
    else
        limits_rlimit_changed(t, RLIMIT_AS_LINUX);
    limits_rlimit_changed(t, RLIMIT_DATA_LINUX);
    limits_rlimit_changed(t, RLIMIT_STACK_LINUX);
    if (limits_asked.output)
        set_rlimit(t, RLIMIT_FSIZE_LINUX, limits_asked.output_bytes, limits_asked.output_bytes);
    if (limits_asked.timeout) {
        g_snprintf(limits_state.timeout_reason, sizeof(limits_state.timeout_reason),
                   "killed by SIGKILL: wall-clock timeout of %s s reached (--timeout)",
                   opt_timeout);
        /* What set-up left of it (the set-up watchdog ends the run until
         * the guest starts). */
        int64_t left = clock_state.deadline ? clock_state.deadline - mono_ns()
                                            : limits_asked.timeout_ns;
        async_set_timeout(MAX(left, 1), limits_state.timeout_reason);
    }
    if (limits_asked.insns)
        setup_insn_budget(limits_asked.max_insns);
    return OK;
}

err_t limits_charge_engine(struct cpu *c)
{
    (void)c;
    return OK;
}

/* ---- output ---- */

uint64_t limits_output_left(struct task *t)
{
    uint64_t lim = t->group->rlim[RLIMIT_FSIZE_LINUX].cur;
    if (lim == RLIM_INFINITY_LINUX)
        return UINT64_MAX;
    return lim > limits_state.written ? lim - limits_state.written : 0;
}

int64_t limits_output_allow(struct task *t, uint64_t count)
{
    if (!count)
        return 0;
    uint64_t left = limits_output_left(t);
    if (!left) {
        /* generic_write_check_limits(): SIGXFSZ, and -EFBIG */
        signal_post(t, SIGXFSZ_LINUX);
        return -1;
    }
    return (int64_t)MIN(count, left);
}

void limits_output_done(struct task *t, int64_t written)
{
    (void)t;
    if (written > 0)
        limits_state.written += (uint64_t)written;
}
