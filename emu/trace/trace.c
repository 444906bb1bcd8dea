/* The trace: observers on the trap path, the mode, signals and the end,
 * each rendering one event as a text line (strace's conventions: `---` for
 * what happens between calls, `+++` for the start and the end) or as one
 * JSON object per line.  Field names of the JSON form are documented in
 * docs/tracing.md and are kept stable. */
#include "emu/trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "abi/linux.h"
#include "emu/bpf/bpf_disasm.h"
#include "emu/engine/cpu.h"
#include "emu/entry/trap.h"
#include "emu/kernel/observe.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/seccomp_notify.h"
#include "emu/kernel/signal.h"
#include "emu/trace/trace_format.h"


static gboolean opt_trace, opt_trace_bpf;
static char *opt_trace_file; /* NULL or "-": stderr */
static char *opt_trace_format;

static struct {
    FILE *out;
    bool json;
    csh cs32, cs64;
    bool mode_pending; /* a mode change waiting for its call's line */
    struct mode_event pending;
} tr;

/* ---- options ---- */

/* GOption lets an optional argument swallow the next word, so that
 * `--trace ./prog` would trace into ./prog.  Two entries share the name:
 * a bare `--trace` matches only the first (no argument, stderr); for
 * `--trace=FILE` glib calls both in order, and the second sets the file. */
static gboolean parse_trace(const char *name, const char *value, gpointer data, GError **error)
{
    (void)name, (void)data, (void)error;
    opt_trace = TRUE;
    if (value) {
        g_free(opt_trace_file);
        opt_trace_file = g_strdup(value);
    }
    return TRUE;
}

static gboolean check_trace_options(GOptionContext *ctx, GOptionGroup *group, gpointer data,
                                    GError **error)
{
    (void)ctx, (void)group, (void)data;
    if (opt_trace_format && strcmp(opt_trace_format, "text") && strcmp(opt_trace_format, "json")) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--trace-format must be text or json");
        return FALSE;
    }
    if (opt_trace_file && !*opt_trace_file) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--trace=FILE needs a file name (- for stderr)");
        return FALSE;
    }
    return TRUE;
}

GOptionGroup *trace_option_group(void)
{
    static const GOptionEntry entries[] = {
        { "trace", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (void *)parse_trace,
          "Trace every trapped call, mode change and signal to stderr (--trace=FILE: to FILE)",
          NULL },
        { "trace", 0, G_OPTION_FLAG_HIDDEN | G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK,
          (void *)parse_trace, NULL, "FILE" },
        { "trace-format", 0, 0, G_OPTION_ARG_FILENAME, &opt_trace_format,
          "text (default: strace-like lines) or json (JSON Lines)", "F" },
        { "trace-bpf", 0, 0, G_OPTION_ARG_NONE, &opt_trace_bpf,
          "Also trace every BPF instruction each seccomp filter executes (implies --trace)",
          NULL },
        { NULL },
    };
    GOptionGroup *g = g_option_group_new("trace", "Tracing:", "Show tracing options", NULL, NULL);
    g_option_group_add_entries(g, entries);
    g_option_group_set_parse_hooks(g, NULL, check_trace_options);
    return g;
}

/* ---- output ---- */

static void detach(void)
{
    trap_observer = NULL;
    seccomp_bpf_step = NULL;
    mode_observer = NULL;
    signal_observer = NULL;
    end_observer = NULL;
}

/* A failing trace (full disk, closed pipe) must not change the guest's
 * run: say so once and stop tracing. */
static void emit(GString *line)
{
    g_string_append_c(line, '\n');
    if (fwrite(line->str, 1, line->len, tr.out) != line->len || fflush(tr.out) != 0) {
        int e = errno;
        detach();
        fprintf(stderr, "seccomp-emu: trace: %s; tracing stopped\n", host_strerror(e));
    }
    g_string_free(line, TRUE);
}

/* JSON objects are written key by key; `first` tracks the commas. */
struct json {
    GString *s;
    bool first;
};

static void j_key(struct json *j, const char *k)
{
    g_string_append(j->s, j->first ? "{" : ", ");
    j->first = false;
    trace_json_string(j->s, k);
    g_string_append(j->s, ": ");
}

static void j_str(struct json *j, const char *k, const char *v)
{
    j_key(j, k);
    if (v)
        trace_json_string(j->s, v);
    else
        g_string_append(j->s, "null");
}

static void j_int(struct json *j, const char *k, int64_t v)
{
    j_key(j, k);
    g_string_append_printf(j->s, "%" PRId64, v);
}

static void j_bool(struct json *j, const char *k, bool v)
{
    j_key(j, k);
    g_string_append(j->s, v ? "true" : "false");
}

/* Addresses and registers as hex strings: JSON numbers lose precision
 * above 2^53 in most readers. */
static void j_hex(struct json *j, const char *k, uint64_t v)
{
    j_key(j, k);
    g_string_append_printf(j->s, "\"0x%" PRIx64 "\"", v);
}

static void j_null(struct json *j, const char *k)
{
    j_key(j, k);
    g_string_append(j->s, "null");
}

static struct json j_begin(const char *event)
{
    struct json j = { g_string_new(NULL), true };
    j_str(&j, "event", event);
    return j;
}

static void j_end(struct json *j)
{
    g_string_append_c(j->s, '}');
    emit(j->s);
}

/* ---- pieces shared by the events ---- */

static const char *mode_text(int mode)
{
    return mode == MODE_STRICT   ? "strict"
           : mode == MODE_FILTER ? "filter"
           : mode == MODE_DEAD   ? "dead"
                                 : "mode 0";
}

static const char *mode_id(int mode)
{
    return mode == MODE_STRICT   ? "strict"
           : mode == MODE_FILTER ? "filter"
           : mode == MODE_DEAD   ? "dead"
                                 : "disabled";
}

/* A filter's value as the disassembler spells it ("ERRNO(12)", "ALLOW"),
 * or "0x40000 (unknown action: kills the process)". */
static char *filter_value_text(uint32_t ret)
{
    if (!seccomp_action_linux(ret))
        return g_strdup_printf("%#x (unknown action: kills the process)", ret);
    GString *text = g_string_new(NULL);
    bpf_disasm_action(text, ret);
    return g_string_free(text, FALSE);
}

/* A call that waited for a supervisor (SECCOMP_RET_USER_NOTIF with a
 * listener): its notification, who received it, and the answer. */
static void notify_text(GString *s, const struct task *t, const struct notify_report *n)
{
    g_string_append_printf(s, "notification %#" PRIx64 " from task %d, ", n->id, t->tid);
    if (n->receiver)
        g_string_append_printf(s, "received by task %d, ", n->receiver);
    else
        g_string_append(s, "received by nobody, ");
    switch (n->end) {
    case NOTIFY_NO_LISTENER:
        g_string_append(s, "no listener: -ENOSYS");
        break;
    case NOTIFY_ANSWERED:
        g_string_append_printf(s, "answered error=%d val=%" PRId64 ": not run, returns %" PRId64,
                               n->error, n->val, n->error ? (int64_t)n->error : n->val);
        break;
    case NOTIFY_CONTINUED:
        /* The lesson of examples/toctou_notify.c. */
        g_string_append(s, "answered CONTINUE: the call runs, reading its pointer arguments "
                           "now, not as the supervisor saw them");
        break;
    case NOTIFY_ADDFD_SENT:
        g_string_append_printf(s, "answered by ADDFD+SEND: not run, returns the new descriptor %" PRId64,
                               n->val);
        break;
    case NOTIFY_DETACHED:
        g_string_append(s, "its listener was closed meanwhile: not run, -ENOSYS");
        break;
    case NOTIFY_INTERRUPTED:
        g_string_append(s, "a signal ended the wait before an answer: not run, -ERESTARTSYS "
                           "(EINTR, or the call is made again: a new notification)");
        break;
    case NOTIFY_KILLED:
        g_string_append(s, "the task was killed while it waited");
        break;
    }
}

/* Which filters ran and what decided, for a filtered call; for a filter
 * from outside, the rule of its policy that gave the verdict. */
static char *filter_note(struct task *t, const struct trap_event *ev)
{
    const struct verdict *v = ev->verdict;
    GString *s = g_string_new("filters");
    for (size_t i = 0; i < v->filters_run; i++) {
        g_autofree char *val = filter_value_text(v->rets[i]);
        g_string_append_printf(s, "%s #%zu=%s", i ? "," : "", v->filters_run - i, val);
    }
    g_autofree char *win = filter_value_text(v->ret);
    g_autofree char *why = seccomp_explain(t, v, v->winner);
    g_string_append_printf(s, "; verdict %s from filter #%zu%s%s%s: ", win,
                           v->filters_run - v->winner, why ? " (" : "", why ? why : "",
                           why ? ")" : "");
    switch (v->effect) {
    case SECCOMP_EFFECT_ALLOW:
        g_string_append(s, "the call runs");
        break;
    case SECCOMP_EFFECT_LOG:
        g_string_append(s, "the call runs, logged");
        break;
    case SECCOMP_EFFECT_ERRNO:
        g_string_append_printf(s, "not run, returns -%" PRId64, -v->result);
        break;
    case SECCOMP_EFFECT_TRACE:
        g_string_append(s, "not run: no tracer, -ENOSYS");
        break;
    case SECCOMP_EFFECT_NOTIFY:
        if (ev->notify)
            notify_text(s, t, ev->notify);
        else
            g_string_append(s, "not run: its listener is closed, -ENOSYS");
        break;
    case SECCOMP_EFFECT_SIGNAL:
        g_string_append(s, "not run, SIGSYS forced");
        break;
    case SECCOMP_EFFECT_KILL_THREAD:
    case SECCOMP_EFFECT_KILL_PROCESS:
        g_string_append(s, "KILLED by SIGSYS");
        break;
    }
    return g_string_free(s, FALSE);
}

/* The JSON id of a filter verdict's action. */
static const char *filter_action_id(const struct verdict *v)
{
    const struct seccomp_action_linux *action = seccomp_action_linux(v->ret);
    return action ? action->name : "UNKNOWN";
}

/* Per entry path: the trace's name and the JSON id. */
static const struct {
    const char *text, *id;
} entries[] = {
    [ENTRY_SYSCALL64] = { "x86_64 syscall", "syscall64" },
    [ENTRY_INT80] = { "ia32 int 0x80", "int80" },
    [ENTRY_SYSENTER32] = { "ia32 sysenter", "sysenter32" },
    [ENTRY_SYSCALL32] = { "ia32 syscall", "syscall32" },
};

/* The instruction at `pc`, disassembled; false when it cannot be read. */
static bool disasm(struct task *t, uint64_t pc, bool code64, char *out, size_t size)
{
    uint8_t code[16];
    size_t n = (size_t)mm_valid_prefix(t->mm, pc, sizeof(code), PROT_EXEC_LINUX);
    if (!n || !mm_peek(t->mm, pc, code, n))
        return false;
    cs_insn *insn;
    size_t count = cs_disasm(code64 ? tr.cs64 : tr.cs32, code, n, pc, 1, &insn);
    if (count == 0)
        return false;
    g_snprintf(out, size, "%s%s%s", insn[0].mnemonic, insn[0].op_str[0] ? " " : "",
               insn[0].op_str);
    cs_free(insn, count);
    return true;
}

static void flush_mode(struct task *t);

/* ---- events ---- */

static void on_start(struct task *t)
{
    const char *kernel = t->profile == PROFILE_2611 ? "2.6.11" : "linux";
    const char *cpu = t->vendor == VENDOR_INTEL ? "intel" : "amd";
    if (tr.json) {
        struct json j = j_begin("start");
        j_str(&j, "program", t->mm->exe_path);
        j_str(&j, "abi", t->personality->name);
        j_str(&j, "kernel", kernel);
        j_str(&j, "cpu", cpu);
        j_str(&j, "mode", mode_id(t->mode));
        j_end(&j);
        return;
    }
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "+++ %s: %s program; kernel %s, cpu %s; %s +++",
                           t->mm->exe_path ? t->mm->exe_path : "(guest)", t->personality->name, kernel,
                           cpu, mode_text(t->mode));
    emit(s);
}

/* Why a call passed or died, in words, beyond the plain result. */
static char *verdict_note(struct task *t, const struct trap_event *ev, const char *name)
{
    const struct verdict *v = ev->verdict;
    const struct abi *abi = abi_for_entry(ev->entry);
    if (!v)
        return g_strdup("(not checked: the 6th argument's stack slot is unreadable, and the "
                        "kernel reads it before the filter)");
    /* Where strict mode checked the call too (--strict with --filter),
     * its list speaks last. */
    if (v->filters_run && !v->list)
        return filter_note(t, ev);
    if (ev->mode == MODE_DISABLED)
        return NULL;
    if (verdict_runs(v) && v->cve_2009_0835)
        return g_strdup_printf("ALLOWED (CVE-2009-0835: %s %s checked against the %s list)",
                               abi->name, name, v->list->name);
    if (verdict_runs(v))
        return NULL;
    const char *why = "";
    if (v->list != abi && t->profile == PROFILE_2611)
        why = " (the 2005 rule: the list follows the task's personality, not the entry)";
    else if (ev->entry == ENTRY_SYSCALL64 && (ev->nr & X32_SYSCALL_BIT_LINUX))
        why = " (the x32 bit 0x40000000 is set: the kernel checks it against the ia32 list)";
    g_autofree char *strict = abi_strict_text(v->list);
    return g_strdup_printf("KILLED: not in the %s strict list %s%s", v->list->name, strict, why);
}

static const char *verdict_id(const struct trap_event *ev)
{
    const struct verdict *v = ev->verdict;
    if (!v)
        return "unchecked";
    switch (v->effect) {
    case SECCOMP_EFFECT_ALLOW:
    case SECCOMP_EFFECT_LOG:
        return ev->mode == MODE_DISABLED && !v->filters_run ? "none" : "allowed";
    case SECCOMP_EFFECT_NOTIFY:
        if (ev->notify)
            return ev->notify->end == NOTIFY_CONTINUED ? "notified-continue" : "notified";
        return "errno";
    case SECCOMP_EFFECT_ERRNO:
    case SECCOMP_EFFECT_TRACE:
        return "errno";
    case SECCOMP_EFFECT_SIGNAL:
        return "trapped";
    case SECCOMP_EFFECT_KILL_THREAD:
    case SECCOMP_EFFECT_KILL_PROCESS:
        break;
    }
    return "killed";
}

static void on_call(struct task *t, const struct trap_event *ev)
{
    const struct abi *abi = abi_for_entry(ev->entry);
    bool code64 = ev->entry == ENTRY_SYSCALL64 ||
                  (ev->entry == ENTRY_INT80 && cpu_in_64bit_code(t->cpu));
    char insn[160];
    bool have_insn = disasm(t, ev->pc, code64, insn, sizeof(insn));
    bool pc_known = true;
    if (ev->entry == ENTRY_SYSENTER32 && (!have_insn || strcmp(insn, "sysenter"))) {
        /* Unicorn's SYSENTER hook sees only the start of the block; where
         * trap.c could not find the instruction in it, the address is not
         * known (nor is it to a kernel: sysenter saves no return address). */
        pc_known = false;
        g_strlcpy(insn, "sysenter", sizeof(insn));
    } else if (!have_insn) {
        g_strlcpy(insn, "(unreadable)", sizeof(insn));
    }

    struct trace_call c;
    trace_decode_call(t, abi, ev->nr, ev->args, ev->returned, ev->result, &c);
    g_autofree char *note = verdict_note(t, ev, c.name);
    GString *call = g_string_new(NULL);
    trace_call_text(call, &c);

    if (tr.json) {
        struct json j = j_begin("syscall");
        if (pc_known)
            j_hex(&j, "pc", ev->pc);
        else
            j_null(&j, "pc");
        j_str(&j, "insn", insn);
        j_str(&j, "entry", entries[ev->entry].id);
        j_str(&j, "abi", abi->name);
        j_int(&j, "code_bits", code64 ? 64 : 32);
        j_str(&j, "mode", mode_id(ev->mode));
        j_int(&j, "nr", ev->nr);
        j_str(&j, "name", c.name);
        j_key(&j, "args");
        g_string_append_c(j.s, '[');
        for (guint i = 0; i < c.args->len; i++) {
            if (i)
                g_string_append(j.s, ", ");
            trace_json_string(j.s, c.args->pdata[i]);
        }
        g_string_append(j.s, "], \"raw\": [");
        for (int i = 0; i < 6; i++)
            g_string_append_printf(j.s, "%s\"0x%" PRIx64 "\"", i ? ", " : "", ev->args[i]);
        g_string_append_c(j.s, ']');
        j_str(&j, "call", call->str);
        j_str(&j, "verdict", verdict_id(ev));
        j_str(&j, "list", ev->verdict && ev->verdict->list ? ev->verdict->list->name : NULL);
        j_bool(&j, "cve_2009_0835", ev->verdict && ev->verdict->cve_2009_0835);
        if (ev->verdict && ev->verdict->filters_run) {
            const struct verdict *v = ev->verdict;
            j_key(&j, "filters");
            g_string_append_c(j.s, '[');
            for (size_t i = 0; i < v->filters_run; i++)
                g_string_append_printf(j.s, "%s\"%#x\"", i ? ", " : "", v->rets[i]);
            g_string_append_c(j.s, ']');
            j_int(&j, "filter_winner", (int64_t)(v->filters_run - v->winner));
            j_hex(&j, "filter_ret", v->ret);
            j_str(&j, "filter_action", filter_action_id(v));
            g_autofree char *rule = seccomp_explain(t, v, v->winner);
            j_str(&j, "filter_rule", rule);
        }
        if (ev->notify) {
            static const char *const ends[] = {
                [NOTIFY_NO_LISTENER] = "no_listener", [NOTIFY_ANSWERED] = "answered",
                [NOTIFY_CONTINUED] = "continue", [NOTIFY_ADDFD_SENT] = "addfd_send",
                [NOTIFY_DETACHED] = "listener_closed", [NOTIFY_INTERRUPTED] = "interrupted",
                [NOTIFY_KILLED] = "killed",
            };
            j_hex(&j, "notif_id", ev->notify->id);
            j_int(&j, "notif_caller", t->tid);
            j_int(&j, "notif_receiver", ev->notify->receiver);
            j_str(&j, "notif_end", ends[ev->notify->end]);
            j_int(&j, "notif_error", ev->notify->error);
            j_int(&j, "notif_val", ev->notify->val);
        }
        j_bool(&j, "returned", ev->returned);
        if (ev->returned)
            j_int(&j, "result", ev->result);
        else
            j_null(&j, "result");
        j_str(&j, "errno", c.errno_name);
        j_str(&j, "note", note);
        j_end(&j);
    } else {
        GString *s = g_string_new(NULL);
        if (pc_known)
            g_string_append_printf(s, "%#" PRIx64 ": %s", ev->pc, insn);
        else
            g_string_append(s, "?: sysenter");
        g_string_append_printf(s, "  [%s%s, %s]  %s", entries[ev->entry].text,
                               ev->entry == ENTRY_INT80 && code64 ? " from 64-bit code" : "",
                               mode_text(ev->mode), call->str);
        bool killed = ev->verdict && !verdict_runs(ev->verdict) && !ev->returned &&
                      ev->verdict->effect != SECCOMP_EFFECT_SIGNAL;
        if (!killed)
            g_string_append_printf(s, " = %s", c.result ? c.result : "?");
        if (note)
            g_string_append_printf(s, "%s%s", killed ? " " : "  ", note);
        emit(s);
    }
    g_string_free(call, TRUE);
    trace_call_clear(&c);
    flush_mode(t);
}

static void print_mode(struct task *t, const struct mode_event *ev)
{
    static const char *const via_id[] = {
        [VIA_START] = "start", [VIA_PRCTL] = "prctl", [VIA_SECCOMP] = "seccomp",
        [VIA_PROC] = "proc",
    };
    static const char *const via_text[] = {
        [VIA_START] = "before the first instruction",
        [VIA_PRCTL] = "via prctl(PR_SET_SECCOMP, 1)",
        [VIA_SECCOMP] = "via seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL)",
        [VIA_PROC] = "via a write to /proc/self/seccomp",
    };
    static const char *const filter_via_text[] = {
        [VIA_START] = "before the first instruction",
        [VIA_PRCTL] = "via prctl(PR_SET_SECCOMP, 2)",
        [VIA_SECCOMP] = "via seccomp(SECCOMP_SET_MODE_FILTER)",
        [VIA_PROC] = "via /proc",
    };
    if (tr.json) {
        struct json j = j_begin("mode");
        j_str(&j, "from", mode_id(ev->from));
        j_str(&j, "to", mode_id(ev->to));
        j_str(&j, "via", via_id[ev->via]);
        j_end(&j);
        return;
    }
    GString *s = g_string_new(NULL);
    if (ev->to == MODE_FILTER)
        g_string_append_printf(s, "--- filter #%u attached %s (filter mode) ---",
                               t->filters ? t->filters->len : 0, filter_via_text[ev->via]);
    else
        g_string_append_printf(s, "--- %s mode on %s ---", mode_id(ev->to), via_text[ev->via]);
    emit(s);
}

static void flush_mode(struct task *t)
{
    if (tr.mode_pending) {
        tr.mode_pending = false;
        print_mode(t, &tr.pending);
    }
}

/* A call that turns strict mode on is traced when it returns, so its mode
 * line waits for the call's line; --strict happens outside any call. */
static void on_mode(struct task *t, const struct mode_event *ev)
{
    if (ev->via == VIA_START) {
        print_mode(t, ev);
        return;
    }
    tr.pending = *ev;
    tr.mode_pending = true;
}

static void on_signal(struct task *t, const struct signal_event *ev)
{
    if (t->state != TASK_RUNNING)
        return; /* already ending: nothing of this reaches the guest */
    flush_mode(t);
    static const char *const what_id[] = {
        [SIGNAL_FAULT] = "fault", [SIGNAL_SENT] = "sent", [SIGNAL_DELIVER] = "deliver",
        [SIGNAL_RETURN] = "return",
    };
    const char *sig = signal_name(ev->sig);
    const char *code = trace_si_code_name(ev->sig, ev->si_code);
    /* For #UD and #DE si_addr is the faulting instruction itself.  For the
     * others the trace does not guess: Unicorn's pc in a memory-fault hook
     * is the start of the translation block, and after int3 or int $n it is
     * past the instruction. */
    bool at_insn = ev->what == SIGNAL_FAULT && (ev->sig == SIGILL_LINUX || ev->sig == SIGFPE_LINUX);
    char insn[160];
    bool have_insn = at_insn && disasm(t, ev->addr, cpu_in_64bit_code(t->cpu), insn, sizeof(insn));
    if (tr.json) {
        struct json j = j_begin("signal");
        j_str(&j, "what", what_id[ev->what]);
        j_str(&j, "signal", sig);
        j_int(&j, "signo", ev->sig);
        if (ev->what == SIGNAL_FAULT) {
            if (code)
                j_str(&j, "si_code", code);
            else
                j_int(&j, "si_code", ev->si_code);
            j_hex(&j, "si_addr", ev->addr);
            if (at_insn)
                j_hex(&j, "pc", ev->addr);
            else
                j_null(&j, "pc");
            j_str(&j, "insn", have_insn ? insn : NULL);
        }
        if (ev->what == SIGNAL_DELIVER) {
            j_hex(&j, "handler", ev->handler);
            j_hex(&j, "frame", ev->frame);
        }
        if (ev->what == SIGNAL_RETURN)
            j_hex(&j, "resume", ev->resume);
        if (ev->what == SIGNAL_DELIVER || ev->what == SIGNAL_RETURN)
            j_bool(&j, "rt", ev->rt);
        j_end(&j);
        return;
    }
    GString *s = g_string_new("--- ");
    switch (ev->what) {
    case SIGNAL_FAULT:
        g_string_append_printf(s, "%s {si_signo=%s, si_code=", sig, sig);
        if (code)
            g_string_append(s, code);
        else
            g_string_append_printf(s, "%d", ev->si_code);
        g_string_append_printf(s, ", si_addr=%#" PRIx64 "}", ev->addr);
        if (at_insn)
            g_string_append_printf(s, " at %#" PRIx64 ": %s", ev->addr,
                                   have_insn ? insn : "(unreadable)");
        break;
    case SIGNAL_SENT:
        g_string_append_printf(s, "%s {si_signo=%s} sent by the kernel", sig, sig);
        break;
    case SIGNAL_DELIVER:
        g_string_append_printf(s, "%s delivered: handler %#" PRIx64 ", %s at %#" PRIx64, sig,
                               ev->handler, ev->rt ? "rt_sigframe" : "sigframe", ev->frame);
        break;
    case SIGNAL_RETURN:
        g_string_append_printf(s, "%s handler returned (%s): resuming at %#" PRIx64, sig,
                               ev->rt ? "rt_sigreturn" : "sigreturn", ev->resume);
        break;
    }
    g_string_append(s, " ---");
    emit(s);
}

/* --trace-bpf: one line per executed instruction, before the call's own
 * line (the filters run before the call); a header line when a filter
 * starts shows the seccomp_data it reads.  Filters are numbered from the
 * oldest, 1 up, as the call's line numbers them. */
static void on_bpf_step(void *ctx, size_t pc, const struct sock_filter_linux *insn, uint32_t a,
                        uint32_t x)
{
    const struct filter_step *step = ctx;
    size_t number = step->filter + 1;
    const struct seccomp_data_linux *d = step->data;
    if (pc == 0) {
        if (tr.json) {
            struct json j = j_begin("bpf_filter");
            j_int(&j, "filter", (int64_t)number);
            j_int(&j, "nr", d->nr);
            j_hex(&j, "arch", d->arch);
            j_hex(&j, "ip", d->instruction_pointer);
            j_key(&j, "args");
            g_string_append_c(j.s, '[');
            for (int i = 0; i < 6; i++)
                g_string_append_printf(j.s, "%s\"0x%" PRIx64 "\"", i ? ", " : "", d->args[i]);
            g_string_append_c(j.s, ']');
            j_end(&j);
        } else {
            GString *s = g_string_new(NULL);
            g_string_append_printf(s, "--- filter #%zu runs: nr=%" PRId32 " arch=%#" PRIx32
                                      " ip=%#" PRIx64 " args=[",
                                   number, d->nr, d->arch, d->instruction_pointer);
            for (int i = 0; i < 6; i++)
                g_string_append_printf(s, "%s%#" PRIx64, i ? ", " : "", d->args[i]);
            g_string_append(s, "] ---");
            emit(s);
        }
    }
    GString *text = g_string_new(NULL);
    bpf_disasm_insn(text, insn, pc);
    if (tr.json) {
        struct json j = j_begin("bpf");
        j_int(&j, "filter", (int64_t)number);
        j_int(&j, "pc", (int64_t)pc);
        j_str(&j, "insn", text->str);
        j_hex(&j, "code", insn->code);
        j_int(&j, "jt", insn->jt);
        j_int(&j, "jf", insn->jf);
        j_hex(&j, "k", insn->k);
        j_hex(&j, "a", a);
        j_hex(&j, "x", x);
        j_end(&j);
    } else {
        GString *s = g_string_new(NULL);
        g_string_append_printf(s, "    bpf #%zu %04zu: %-32s A=%#" PRIx32 " X=%#" PRIx32, number,
                               pc, text->str, a, x);
        emit(s);
    }
    g_string_free(text, TRUE);
}

static void on_end(struct task *t)
{
    flush_mode(t);
    bool exited = t->state == TASK_EXITED;
    if (tr.json) {
        struct json j = j_begin("exit");
        j_str(&j, "how", exited ? "exited" : "killed");
        if (exited) {
            j_int(&j, "code", t->exit_code);
        } else {
            j_str(&j, "signal", signal_name(t->signo));
            j_int(&j, "signo", t->signo);
            j_str(&j, "reason", t->reason);
        }
        j_end(&j);
        return;
    }
    GString *s = g_string_new(NULL);
    if (exited)
        g_string_append_printf(s, "+++ exited with %d +++", t->exit_code);
    else if (t->reason)
        g_string_append_printf(s, "+++ %s +++", t->reason);
    else
        g_string_append_printf(s, "+++ killed by %s +++", signal_name(t->signo));
    emit(s);
}

err_t trace_open_output(void)
{
    if (opt_trace_bpf)
        opt_trace = TRUE;
    if (!opt_trace || tr.out)
        return OK;
    if (!opt_trace_file || !strcmp(opt_trace_file, "-")) {
        tr.out = stderr;
    } else {
        /* The guest cannot reach it: its descriptors are only those in
         * its own table (emu/kernel/fdtable.c). */
        int fd = open(opt_trace_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0 || !(tr.out = fdopen(fd, "w")))
            return err_new("--trace: %s: %s", opt_trace_file, host_strerror(errno));
    }
    return OK;
}

err_t trace_setup(struct task *t)
{
    err_t e = trace_open_output();
    if (e || !opt_trace)
        return e;
    tr.json = opt_trace_format && !strcmp(opt_trace_format, "json");
    if (cs_open(CS_ARCH_X86, CS_MODE_32, &tr.cs32) != CS_ERR_OK ||
        cs_open(CS_ARCH_X86, CS_MODE_64, &tr.cs64) != CS_ERR_OK)
        return err_new("--trace: Capstone cannot open an x86 disassembler");
    trap_observer = on_call;
    if (opt_trace_bpf)
        seccomp_bpf_step = on_bpf_step;
    mode_observer = on_mode;
    signal_observer = on_signal;
    end_observer = on_end;
    on_start(t);
    return OK;
}
