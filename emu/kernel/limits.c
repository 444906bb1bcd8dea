#include "emu/kernel/limits.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "emu/kernel/async.h"
#include "emu/kernel/signal.h"
#include "emu/kernel/task.h"

/* Per-block counting stops while a block of up to 512 instructions (TCG's
 * limit) still fits in the budget; below this many left, every
 * instruction is counted. */
#define FINAL_STRETCH 1024
#define BLOCK_CACHE 65536

static char *opt_cpu_time, *opt_timeout, *opt_max_insns, *opt_memory, *opt_output;

static const GOptionEntry entries[] = {
    { "cpu-time", 0, 0, G_OPTION_ARG_STRING, &opt_cpu_time,
      "Guest CPU time limit, RLIMIT_CPU: SIGXCPU at SOFT s and every second after, SIGKILL at "
      "HARD (default: HARD = SOFT)", "SOFT[:HARD]" },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &opt_timeout,
      "Wall-clock limit, then SIGKILL", "SECONDS" },
    { "max-insns", 0, 0, G_OPTION_ARG_STRING, &opt_max_insns,
      "Guest instruction limit, then SIGKILL", "N" },
    { "memory", 0, 0, G_OPTION_ARG_STRING, &opt_memory,
      "Guest address-space limit, RLIMIT_AS (suffixes K, M, G: powers of 1024)", "BYTES" },
    { "output-limit", 0, 0, G_OPTION_ARG_STRING, &opt_output,
      "Limit on all the guest writes, RLIMIT_FSIZE: SIGXFSZ past it", "BYTES" },
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

/* key: the block's address with its byte size in the top 16 bits (user
 * addresses fit in 48), so that a hit is one comparison. */
struct block_count {
    uint64_t key;
    int64_t insns;
};

static struct {
    struct task *t;
    uint64_t written;
    /* --max-insns */
    bool counting;
    int64_t left;
    uint64_t max_insns;
    uc_hook block_hook, insn_hook;
    bool per_insn, want_per_insn;
    csh cs;
    char insn_reason[96];
    char timeout_reason[96];
} limits_state;

/* ---- parsing ---- */

static err_t parse_u64(const char *opt, const char *s, bool suffixes, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!s || !*s || *s == '-')
        return err_new("--%s needs a non-negative number", opt);
    uint64_t v = g_ascii_strtoull(s, &end, 10);
    if (errno || end == s)
        return err_new("--%s: '%s' is not a number", opt, s);
    unsigned shift = 0;
    if (suffixes && *end) {
        switch (g_ascii_toupper(*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default: return err_new("--%s: unknown suffix in '%s'", opt, s);
        }
        end++;
        if (g_ascii_toupper(*end) == 'B' || (*end == 'i' && g_ascii_toupper(end[1]) == 'B'))
            end += *end == 'i' ? 2 : 1;
    }
    if (*end)
        return err_new("--%s: '%s' is not a number", opt, s);
    if (shift && v > (UINT64_MAX >> shift))
        return err_new("--%s: '%s' is too large", opt, s);
    *out = v << shift;
    return OK;
}

static err_t parse_seconds(const char *opt, const char *s, int64_t *ns)
{
    char *end = NULL;
    errno = 0;
    if (!s || !*s)
        return err_new("--%s needs a number of seconds", opt);
    double v = g_ascii_strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 1e9)
        return err_new("--%s: '%s' is not a positive number of seconds", opt, s);
    *ns = (int64_t)(v * 1e9);
    return OK;
}

/* ---- instruction budget ---- */

static bool in_kernel_page(struct task *t, uint64_t pc)
{
    return pc >= t->layout.kpage && pc < t->layout.kpage + 0x1000;
}

static struct block_count block_cache[BLOCK_CACHE];

/* Instructions in a block Unicorn reports by address and byte size,
 * decoded once with Capstone and remembered. */
static uint32_t decode_block(struct task *t, uint64_t pc, uint32_t size)
{
    uint8_t code[8192]; /* a block stops within a page, its last instruction may cross */
    uint32_t n = MIN(size, (uint32_t)sizeof(code));
    uint32_t count = 0;
    if (n && mm_read(&t->mm, pc, code, n)) {
        const uint8_t *p = code;
        size_t left = n;
        uint64_t addr = pc;
        cs_insn *insn = cs_malloc(limits_state.cs);
        while (left && cs_disasm_iter(limits_state.cs, &p, &left, &addr, insn))
            count++;
        cs_free(insn, 1);
    }
    return count ? count : 1; /* something ran */
}

static inline uint64_t block_key(uint64_t pc, uint32_t size)
{
    return pc | (uint64_t)size << 48;
}

static inline struct block_count *block_slot(uint64_t pc)
{
    return &block_cache[pc & (BLOCK_CACHE - 1)];
}

static void kill_over_budget(struct task *t)
{
    task_kill(t, SIGKILL_LINUX, g_strdup(limits_state.insn_reason));
}

/* A block not in the cache, or one that may not fit in what is left. */
static G_GNUC_NO_INLINE void on_block_slow(uc_engine *uc, uint64_t pc, uint32_t size,
                                           struct task *t)
{
    struct block_count *b = block_slot(pc);
    if (b->key != block_key(pc, size))
        /* seccomp-emu's own stubs are not the guest's (the hook's range
         * leaves them out; this is for an engine that ignores it) */
        *b = (struct block_count){ block_key(pc, size),
                                   in_kernel_page(t, pc) ? 0 : decode_block(t, pc, size) };
    if (limits_state.left - b->insns < FINAL_STRETCH) {
        /* A stop requested here ends the run before the block executes
         * (measured): it is counted instruction by instruction instead. */
        limits_state.want_per_insn = true;
        uc_emu_stop(uc);
        return;
    }
    limits_state.left -= b->insns;
}

/* Called from translated code at the start of every guest block: kept to
 * a cache probe and a subtraction, because the sieve of the benchmark runs
 * a block every 30 host instructions (callgrind: the previous version, 28
 * instructions with its prologue, doubled the job). */
static void on_block(uc_engine *uc, uint64_t pc, uint32_t size, void *user)
{
    const struct block_count *b = block_slot(pc);
    if (G_LIKELY(b->key == block_key(pc, size))) {
        int64_t left = limits_state.left - b->insns;
        if (G_LIKELY(left >= FINAL_STRETCH)) {
            limits_state.left = left;
            return;
        }
    }
    on_block_slow(uc, pc, size, user);
}

static void on_insn(uc_engine *uc, uint64_t pc, uint32_t size, void *user)
{
    struct task *t = user;
    (void)uc, (void)size;
    if (in_kernel_page(t, pc))
        return;
    /* The hook runs before the instruction: with nothing left, it must not
     * run at all. */
    if (limits_state.left <= 0) {
        kill_over_budget(t);
        return;
    }
    limits_state.left--;
}

err_t limits_before_run(struct task *t)
{
    if (!limits_state.counting || limits_state.per_insn || (!limits_state.want_per_insn && limits_state.left >= FINAL_STRETCH))
        return OK;
    limits_state.per_insn = true;
    err_t e;
    if ((e = UC_TRY(uc_hook_del(t->uc, limits_state.block_hook))) ||
        (e = UC_TRY(uc_hook_add(t->uc, &limits_state.insn_hook, UC_HOOK_CODE, (void *)on_insn, t, 1, 0))))
        return e;
    return OK;
}

static err_t setup_insn_budget(struct task *t, uint64_t n)
{
    limits_state.counting = true;
    limits_state.left = n > INT64_MAX ? INT64_MAX : (int64_t)n;
    limits_state.max_insns = n;
    g_snprintf(limits_state.insn_reason, sizeof(limits_state.insn_reason),
               "killed by SIGKILL: instruction limit of %" PRIu64 " reached (--max-insns)", n);
    if (cs_open(CS_ARCH_X86, t->is64 ? CS_MODE_64 : CS_MODE_32, &limits_state.cs) != CS_ERR_OK)
        return err_new("capstone: cannot open an x86 decoder");
    /* One callback per block executed, none per instruction: the engine
     * keeps most of its speed (docs/performance.md). */
    return UC_TRY(uc_hook_add(t->uc, &limits_state.block_hook, UC_HOOK_BLOCK, (void *)on_block, t, 0,
                              t->layout.kpage - 1));
}

/* ---- rlimits ---- */

void limits_rlimit_changed(struct task *t, unsigned resource)
{
    switch (resource) {
    case RLIMIT_CPU_LINUX:
        async_set_cpu_limit(t->rlim[RLIMIT_CPU_LINUX].cur, t->rlim[RLIMIT_CPU_LINUX].max);
        break;
    case RLIMIT_AS_LINUX:
        t->mm.max_mapped =
            t->rlim[RLIMIT_AS_LINUX].cur == RLIM_INFINITY_LINUX ? 0 : t->rlim[RLIMIT_AS_LINUX].cur;
        break;
    case RLIMIT_DATA_LINUX:
        mm_set_data_limit(&t->mm, t->rlim[RLIMIT_DATA_LINUX].cur, t->rlim[RLIMIT_DATA_LINUX].max);
        break;
    default:
        break;
    }
}

static void set_rlimit(struct task *t, unsigned res, uint64_t cur, uint64_t max)
{
    t->rlim[res].cur = cur;
    t->rlim[res].max = max;
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
        if ((e = parse_u64("cpu-time", parts[0], false, &limits_asked.cpu_soft)))
            return e;
        limits_asked.cpu_hard = limits_asked.cpu_soft;
        if (parts[1] && (e = parse_u64("cpu-time", parts[1], false, &limits_asked.cpu_hard)))
            return e;
        if (limits_asked.cpu_soft > limits_asked.cpu_hard)
            return err_new("--cpu-time: SOFT must not exceed HARD");
        if (limits_asked.cpu_soft == 0)
            return err_new("--cpu-time: the limit must be at least 1 second");
        limits_asked.cpu = true;
    }
    if (opt_memory) {
        if ((e = parse_u64("memory", opt_memory, true, &limits_asked.memory_bytes)))
            return e;
        if (!limits_asked.memory_bytes)
            return err_new("--memory: the limit must be positive");
        limits_asked.memory = true;
    }
    if (opt_output) {
        if ((e = parse_u64("output-limit", opt_output, true, &limits_asked.output_bytes)))
            return e;
        limits_asked.output = true;
    }
    if (opt_timeout) {
        if ((e = parse_seconds("timeout", opt_timeout, &limits_asked.timeout_ns)))
            return e;
        limits_asked.timeout = true;
    }
    if (opt_max_insns) {
        if ((e = parse_u64("max-insns", opt_max_insns, true, &limits_asked.max_insns)))
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

err_t limits_setup(struct task *t)
{
    limits_state.t = t;
    err_t e;
    if (limits_asked.cpu)
        set_rlimit(t, RLIMIT_CPU_LINUX, limits_asked.cpu_soft, limits_asked.cpu_hard);
    else
        limits_rlimit_changed(t, RLIMIT_CPU_LINUX);
    if (limits_asked.memory)
        set_rlimit(t, RLIMIT_AS_LINUX, limits_asked.memory_bytes, limits_asked.memory_bytes);
    else
        limits_rlimit_changed(t, RLIMIT_AS_LINUX);
    limits_rlimit_changed(t, RLIMIT_DATA_LINUX);
    if (limits_asked.output)
        set_rlimit(t, RLIMIT_FSIZE_LINUX, limits_asked.output_bytes, limits_asked.output_bytes);
    if (limits_asked.timeout) {
        g_snprintf(limits_state.timeout_reason, sizeof(limits_state.timeout_reason),
                   "killed by SIGKILL: wall-clock timeout of %s s reached (--timeout)",
                   opt_timeout);
        async_set_timeout(limits_asked.timeout_ns, limits_state.timeout_reason);
    }
    if (limits_asked.insns && (e = setup_insn_budget(t, limits_asked.max_insns)))
        return e;
    return OK;
}

/* ---- output ---- */

uint64_t limits_output_left(struct task *t)
{
    uint64_t lim = t->rlim[RLIMIT_FSIZE_LINUX].cur;
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
