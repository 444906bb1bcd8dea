/* seccomp-emu: run a static i386 or x86_64 Linux program under an emulated
 * CPU, enforcing seccomp strict mode as Linux does. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi/caps_linux.h"
#include "abi/errno_names.h"
#include "abi/linux.h"
#include "emu/engine/cpu.h"
#include "emu/host/fdmap.h"
#include "emu/host/grants.h"
#include "emu/engine/host_tune.h"
#include "emu/engine/hostfault.h"
#include "emu/engine/mem.h"
#include "emu/kernel/async.h"
#include "emu/kernel/exec.h"
#include "emu/kernel/exit.h"
#include "emu/kernel/fork.h"
#include "emu/kernel/sched.h"
#include "emu/kernel/limits.h"
#include "emu/run.h"
#include "emu/host/sandbox.h"
#include "emu/kernel/seccomp.h"
#include "emu/kernel/signal.h"
#include "emu/parse.h"
#include "emu/trace/trace.h"
#include "emu/entry/fault.h"
#include "emu/entry/trap.h"
#include "emu/entry/vdso_time.h"
#include "loaders/elf.h"
#include "loaders/filter_file.h"
#include "loaders/input.h"
#include "loaders/seccomp_profile.h"
#include "loaders/raw_opts.h"
#include "loaders/stack.h"

/* Exit statuses of a shell that cannot run a command. */
#define EXIT_USAGE 2
#define EXIT_CANNOT_EXECUTE 126
#define EXIT_NOT_FOUND 127

static gboolean opt_strict, opt_quiet, opt_version;
static char *opt_kernel, *opt_cpu, *opt_caps;
static char **opt_env;

/* --filter and --seccomp-profile, in the order given: they stack as a
 * launcher's successive seccomp() calls would, the last one newest. */
struct policy_arg {
    bool profile;
    char *path;
};
static GArray *opt_policies;

static gboolean add_policy(const char *name, const char *value, gpointer data, GError **error)
{
    (void)data, (void)error;
    struct policy_arg p = { .profile = !strcmp(name, "--seccomp-profile"), .path = g_strdup(value) };
    if (!opt_policies)
        opt_policies = g_array_new(FALSE, FALSE, sizeof(struct policy_arg));
    g_array_append_val(opt_policies, p);
    return TRUE;
}

static const GOptionEntry options[] = {
    { "strict", 0, 0, G_OPTION_ARG_NONE, &opt_strict,
      "Start the guest already in strict mode (the cpushare loader's way)", NULL },
    { "kernel", 0, 0, G_OPTION_ARG_FILENAME, &opt_kernel,
      "Kernel to play: linux (today's, release 6.1.0, the default), linux:X.Y[.Z] (the "
      "release uname reports and profiles' minKernel meet), or 2.6.11 (the 2005 seed patch)",
      "K" },
    { "caps", 0, 0, G_OPTION_ARG_FILENAME, &opt_caps,
      "The guest's capabilities: a comma list of names and sets (docker, the default; podman; "
      "host: seccomp-emu's own; all; none), '-' before an item removes it", "LIST" },
    { "cpu", 0, 0, G_OPTION_ARG_FILENAME, &opt_cpu,
      "Vendor rules for 32-bit sysenter/syscall: intel, amd or host (default)", "V" },
    /* Bytes, as Linux's environment is: a STRING array is converted from
     * the C locale's ASCII and refuses any other byte. */
    { "env", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_env,
      "Put NAME=VALUE in the guest's environment (repeatable; default: empty)", "NAME=VALUE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet,
      "Do not print why the guest was killed", NULL },
    { "filter", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (void *)add_policy,
      "Attach this seccomp filter (a sock_filter array as seccomp_export_bpf writes it) before "
      "the first instruction, with no_new_privs set (repeatable)", "FILE" },
    { "seccomp-profile", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (void *)add_policy,
      "Attach a container seccomp profile (Docker's, containers' or the OCI form, JSON), "
      "resolved for the guest's --caps and --kernel and compiled by libseccomp (repeatable)",
      "FILE.json" },
    { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version,
      "Print the version, the CPU engine and the guest ABIs, then exit", NULL },
    { NULL },
};

/* The one way set-up fails: one line (emu/status.h), whatever the user
 * put in the names and values it carries. */
G_NORETURN static void die(int status, const char *prog, const char *msg)
{
    char *line = err_printable(prog ? g_strdup_printf("%s: %s", prog, msg) : g_strdup(msg));
    fprintf(stderr, "seccomp-emu: %s\n", line);
    g_free(line);
    _exit(status);
}

/* SECCOMP_EMU_WINDOW (i386) or SECCOMP_EMU_WINDOW64 (x86_64): 0 keeps
 * every guest access on the soft TLB, 1 places guest memory in windows but
 * keeps the TLB (a whole test suite can ask for either), direct reaches it
 * directly; unset, direct where the host's code generator can (x86-64
 * hosts with 4 KiB pages), 0 elsewhere. */
static const char *window_mode(const char *var)
{
    const char *mode = g_getenv(var);
    if (!mode || !*mode)
        return mm_window_direct_host() ? "direct" : "0";
    if (strcmp(mode, "0") && strcmp(mode, "1") && strcmp(mode, "direct")) {
        char *msg = g_strdup_printf("%s must be 0, 1 or direct", var);
        die(EXIT_USAGE, NULL, msg);
    }
    return mode;
}

/* The capabilities of seccomp-emu itself, as a native child of it would
 * hold them (its effective set, from /proc/self/status where there is
 * one; elsewhere root's all, anyone else's none). */
static uint64_t host_caps(void)
{
    g_autofree char *status = NULL;
    if (g_file_get_contents("/proc/self/status", &status, NULL, NULL)) {
        const char *line = strstr(status, "\nCapEff:\t");
        if (line)
            return g_ascii_strtoull(line + strlen("\nCapEff:\t"), NULL, 16) & CAP_ALL_LINUX;
    }
    return geteuid() == 0 ? CAP_ALL_LINUX : 0;
}

static void parse_profile(struct task *t)
{
    t->release[0] = 6, t->release[1] = 1, t->release[2] = 0;
    if (!opt_kernel || !strcmp(opt_kernel, "linux")) {
        t->profile = PROFILE_LINUX;
    } else if (g_str_has_prefix(opt_kernel, "linux:")) {
        t->profile = PROFILE_LINUX;
        err_t e = parse_kernel_release(opt_kernel + strlen("linux:"), &t->release[0],
                                       &t->release[1], &t->release[2]);
        if (e)
            die(EXIT_USAGE, NULL, e);
    } else if (!strcmp(opt_kernel, "2.6.11")) {
        t->profile = PROFILE_2611;
        t->release[0] = 2, t->release[1] = 6, t->release[2] = 11;
    } else {
        g_autofree char *msg = g_strdup_printf("--kernel must be linux, linux:X.Y[.Z] or 2.6.11, "
                                               "not \"%s\"", opt_kernel);
        die(EXIT_USAGE, NULL, msg);
    }
    uint64_t caps = caps_docker_default();
    if (opt_caps) {
        err_t e = parse_caps(opt_caps, host_caps(), &caps);
        if (e)
            die(EXIT_USAGE, NULL, e);
    }
    t->cap_effective = t->cap_permitted = t->cap_bounding = caps;
    t->cap_inheritable = 0;

    if (!opt_cpu || !strcmp(opt_cpu, "host"))
        t->vendor = cpu_host_vendor();
    else if (!strcmp(opt_cpu, "intel"))
        t->vendor = VENDOR_INTEL;
    else if (!strcmp(opt_cpu, "amd"))
        t->vendor = VENDOR_AMD;
    else
        die(EXIT_USAGE, NULL, "--cpu must be intel, amd or host");
    for (char **e = opt_env; e && *e; e++)
        if (!strchr(*e, '='))
            die(EXIT_USAGE, NULL, "--env takes NAME=VALUE");
}

/* One --filter or --seccomp-profile, compiled, and where it came from. */
struct policy {
    struct bpf_program prog;
    unsigned flags;                /* a profile's "flags" */
    struct filter_origin origin;   /* lives as long as the run */
};

/* Loads every --filter and --seccomp-profile, before anything of the
 * guest exists: a bad one ends seccomp-emu with one line.  Profiles are
 * resolved for the guest's capabilities and kernel release. */
static GPtrArray *load_policies(const struct task *t)
{
    GPtrArray *policies = g_ptr_array_new();
    struct profile_env env = { .caps = t->cap_bounding, .kernel_major = t->release[0],
                               .kernel_minor = t->release[1] };
    for (guint i = 0; opt_policies && i < opt_policies->len; i++) {
        const struct policy_arg *p = &g_array_index(opt_policies, struct policy_arg, i);
        struct policy *pol = g_new0(struct policy, 1);
        struct seccomp_profile *resolved = NULL;
        err_t e = p->profile ? seccomp_profile_load(p->path, &env, &pol->prog, &pol->flags,
                                                    &resolved)
                             : filter_file_load(p->path, &pol->prog);
        if (e)
            die(EXIT_USAGE, p->profile ? "--seccomp-profile" : "--filter", e);
        g_autofree char *base = g_path_get_basename(p->path);
        pol->origin.what = g_strdup_printf("%s %s", p->profile ? "--seccomp-profile" : "--filter",
                                           base);
        if (resolved) {
            pol->origin.explain = seccomp_profile_explain;
            pol->origin.policy = resolved;
        }
        g_ptr_array_add(policies, pol);
    }
    return policies;
}

/* What a launcher does before it execs the job: prctl(PR_SET_NO_NEW_PRIVS)
 * and one seccomp(SECCOMP_SET_MODE_FILTER) per filter. */
static void install_policies(struct task *t, GPtrArray *policies)
{
    if (policies->len == 0)
        return;
    t->no_new_privs = true;
    for (guint i = 0; i < policies->len; i++) {
        struct policy *pol = g_ptr_array_index(policies, i);
        struct bpf_program *prog = &pol->prog;
        int rc = seccomp_install_filter(t, prog->insns, prog->len, pol->flags);
        if (rc < 0) {
            const struct policy_arg *p = &g_array_index(opt_policies, struct policy_arg, i);
            const struct errno_name *en = errno_name_linux(-rc);
            g_autofree char *msg = g_strdup_printf(
                "%s: seccomp() would answer %s%s", p->path, en ? en->name : "an error",
                rc == -ENOMEM_LINUX ? " (the stacked filters are longer than one path may be)"
                                    : "");
            die(EXIT_USAGE, p->profile ? "--seccomp-profile" : "--filter", msg);
        }
        seccomp_set_origin(t, &pol->origin);
        bpf_program_free(prog);
    }
    g_ptr_array_free(policies, TRUE);
}

/* Maps a static ELF program and builds its Linux initial stack. */
static err_t load_elf(struct task *t, const uint8_t *data, size_t len, const struct elf_info *info,
                      char **argv, char **envp, const char *execfn, uint64_t *entry, uint64_t *sp,
                      bool *mapping_failed)
{
    struct elf_loaded ld;
    err_t e;
    if ((e = elf_load(t, data, len, info, &ld))) {
        *mapping_failed = true;
        return e;
    }
    t->mm->brk_start = t->mm->brk_cur = ld.brk;
    t->mm->elf_data = ld.data;
    if ((e = vdso_map(t)))
        return e;
    *entry = ld.entry;
    return stack_build(t, info, &ld, argv, envp, execfn, sp);
}

/* The program seccomp-emu was started with, kept for execve(2): after
 * the self-sandbox no file can be opened, and it is the one program the
 * guest can run again (/proc/self/exe). */
static struct {
    char *path; /* canonical */
    gchar *data;
    gsize len;
    struct elf_info info;
} program;

static bool program_known(const char *path)
{
    return program.data && !strcmp(path, program.path);
}

static err_t program_load(struct task *t, const char *path, char **argv, char **envp,
                          const char *execfn, uint64_t *entry, uint64_t *sp)
{
    if (!program_known(path))
        return err_new("%s: not a program seccomp-emu holds", path);
    bool mapping_failed = false;
    return load_elf(t, (const uint8_t *)program.data, program.len, &program.info, argv, envp,
                    execfn, entry, sp, &mapping_failed);
}

/* What every engine gets after the first: the trap path's and the
 * faults' hooks (a forked process's engine). */
static err_t engine_setup(struct cpu *c)
{
    err_t e;
    if ((e = fault_install(c)) || (e = trap_install(c)))
        return e;
    return OK;
}

int main(int argc, char **argv)
{
    err_install_log_writer();
    signal_read_inherited();
    GOptionContext *ctx = g_option_context_new("PROGRAM [ARG...]");
    g_option_context_set_summary(ctx, "Run a static i386 or x86_64 Linux program, enforcing "
                                      "seccomp strict mode in the emulator itself.");
    g_option_context_add_main_entries(ctx, options, NULL);
    g_option_context_add_group(ctx, trace_option_group());
    g_option_context_add_group(ctx, fdmap_option_group());
    g_option_context_add_group(ctx, grants_option_group());
    g_option_context_add_group(ctx, raw_option_group());
    g_option_context_add_group(ctx, limits_option_group());
    g_option_context_add_group(ctx, sandbox_option_group());
    g_option_context_add_group(ctx, sched_option_group());
    /* Everything after PROGRAM belongs to the guest. */
    g_option_context_set_strict_posix(ctx, TRUE);
    GError *gerr = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &gerr))
        die(EXIT_USAGE, NULL, gerr->message);
    g_option_context_free(ctx);
    if (opt_version) {
        /* One line a grid worker's probe (grid/execute) parses. */
        unsigned int uc_major, uc_minor;
        uc_version(&uc_major, &uc_minor);
        printf("seccomp-emu %s engine unicorn-%u.%u abis x86_64,i386\n", SECCOMP_EMU_VERSION,
               uc_major, uc_minor);
        return 0;
    }
    /* --timeout counts from here: reading the inputs and loading the
     * program are part of the run, and without it set-up has
     * LIMITS_SETUP_SECONDS.  A stream given as an input must end by then
     * (the read gives up a second later, so that the watchdog says so). */
    int64_t started = input_now();
    err_t e = limits_start_clock(opt_quiet);
    if (e)
        die(EXIT_CANNOT_EXECUTE, NULL, e);
    input_set_deadline((limits_deadline() ? limits_deadline()
                                          : started + LIMITS_SETUP_SECONDS * 1000000000ll) +
                       1000000000ll);
    int first = 1;
    if (first < argc && !strcmp(argv[first], "--"))
        first++;
    bool raw;
    e = raw_check_options(first < argc, &raw);
    if (e)
        die(EXIT_USAGE, NULL, e);
    if (!raw && first >= argc)
        die(EXIT_USAGE, NULL, "no PROGRAM given (see --help)");

    /* Guest memory in windows that translated code reaches directly, its
     * faults taken from the host's SIGSEGV (docs/linear-mapping.md): an
     * i386 address space's 4 GiB, an x86_64 one's slots. */
    const char *window = window_mode("SECCOMP_EMU_WINDOW");
    bool direct = !strcmp(window, "direct");
    mm_window_enable(direct || !strcmp(window, "1"));
    mm_window_direct_enable(direct);
    const char *window64 = window_mode("SECCOMP_EMU_WINDOW64");
    bool direct64 = !strcmp(window64, "direct") && mm_window_direct_host();
    mm_slots_enable(strcmp(window64, "0"), direct64);
    if (direct || direct64) {
        err_t fe = hostfault_install();
        if (fe)
            die(EXIT_CANNOT_RUN, NULL, fe);
    }

    struct task *t = task_new_initial();
    t->quiet = opt_quiet;
    parse_profile(t);

    const char *prog;
    char *data = NULL;
    size_t len = 0;
    struct elf_info info;
    struct raw_image rimg;
    if (raw) {
        int status;
        if ((e = raw_open(&rimg, &status)))
            die(status, rimg.failed_path, e);
        prog = rimg.text_path;
        info.is64 = rimg.layout.is64;
    } else {
        prog = argv[first];
        enum input_failure why;
        if ((e = input_read(prog, INPUT_MAX_PROGRAM, elf_bytes_needed, &data, &len, &why)))
            die(why == INPUT_MISSING ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE, prog, e);
        if ((e = elf_parse((const uint8_t *)data, len, &info)))
            die(EXIT_CANNOT_EXECUTE, prog, e);
    }

    GPtrArray *policies = load_policies(t);
    if ((e = task_open_engine(t, info.is64)))
        die(EXIT_CANNOT_EXECUTE, prog, e);
    t->mm->exe_path = g_canonicalize_filename(prog, NULL);
    {
        /* begin_new_exec(): the basename of the path as given to execve. */
        g_autofree char *base = g_path_get_basename(prog);
        g_strlcpy(t->comm, base, sizeof(t->comm));
    }
    task_init_rlimits(t);
    fdtable_init_std(t->fds);
    if ((e = fdmap_setup(t->fds)))
        die(FDMAP_EXIT_FAILED, NULL, e);
    if ((e = grants_setup(t)))
        die(GRANTS_EXIT_FAILED, NULL, e);
    /* The guest's writes to a closed pipe must come back as EPIPE, so the
     * guest, not seccomp-emu, meets the SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    sched_init(t); /* reads the host's CPU count from /sys */
    /* Opens /proc/self/pagemap where the host has it: before Landlock. */
    if ((e = host_tune_memory()))
        die(EXIT_CANNOT_EXECUTE, prog, e);
    /* The last file seccomp-emu opens for itself; then, with grants, the
     * file system closes to all but them, before any thread starts. */
    if ((e = trace_open_output()))
        die(EXIT_USAGE, NULL, e);
    if ((e = sandbox_confine_files()))
        die(EXIT_CANNOT_EXECUTE, prog, e);

    uint64_t top = TASK_SIZE_LINUX(info.is64), sp, entry, start;
    if ((e = signal_setup(t)) || (e = fault_install(t->cpu)) || (e = async_start(t)) ||
        (e = limits_setup(t)))
        die(EXIT_CANNOT_EXECUTE, prog, e);
    /* Linux's top-down layout: mmap below room for RLIMIT_STACK. */
    t->mm->mmap_base = mm_mmap_base(top, t->group->rlim[RLIMIT_STACK_LINUX].cur);
    bool mapping_failed = false;
    if (raw)
        e = raw_start(t, &rimg, &entry, &sp);
    else {
        g_autoptr(GStrvBuilder) env = g_strv_builder_new();
        for (char **p = opt_env; p && *p; p++)
            g_strv_builder_add(env, *p);
        g_auto(GStrv) envp = g_strv_builder_end(env);
        e = load_elf(t, (const uint8_t *)data, len, &info, argv + first, envp, prog, &entry, &sp,
                     &mapping_failed);
        program.path = g_strdup(t->mm->exe_path);
        program.data = data;
        program.len = len;
        program.info = info;
        exec_known = program_known;
        exec_load = program_load;
    }
    if (e && mapping_failed) {
        /* Linux is past execve's point of no return when it maps the
         * segments: a failure there is a SIGSEGV (bprm_execve). */
        g_autofree char *why = err_printable(g_strdup_printf(
            "killed by SIGSEGV: %s: the program's segments cannot be mapped: %s", prog, e));
        exit_like_guest(t, SIGSEGV_LINUX, why);
    }
    if (e)
        die(EXIT_CANNOT_EXECUTE, prog, e);

    if ((e = trap_install(t->cpu)) || (e = cpu_prepare_user(t->cpu, entry, sp, &start)))
        die(EXIT_CANNOT_EXECUTE, prog, e);
    if ((e = trace_setup(t)))
        die(EXIT_USAGE, NULL, e);
    install_policies(t, policies);
    /* Raw bytecode has no loader of its own to call prctl: it runs in
     * strict mode from its first instruction, as under cpushare, unless a
     * filter is its policy.  --strict with filters: both hold, the filters
     * first (no native run judges that: Linux refuses strict mode once a
     * filter is attached). */
    if (opt_strict || (raw && !opt_policies))
        seccomp_enter_strict(t);
    /* From here host signals reach the guest, and the timer thread, not
     * the set-up watchdog, ends the run at --timeout. */
    if ((e = async_forward_signals(t)) || (e = limits_setup_done()))
        die(EXIT_CANNOT_EXECUTE, prog, e);
    /* Keep last: after it seccomp-emu cannot open, create or spawn. */
    if ((e = sandbox_enter()))
        die(EXIT_CANNOT_EXECUTE, prog, e);

    fork_engine_setup = engine_setup;
    fork_task_body = run_task_body;
    /* Kept for the end, which its observers see: the task struct may
     * leave the tables before (a thread that execs takes its place). */
    task_get(t);
    if ((e = run_guest(t, start)))
        die(EXIT_CANNOT_EXECUTE, prog, e);
    exit_task(t);
    /* The other tasks of the guest run on; seccomp-emu ends with the first
     * process (its descendants with it: docs/internals.md). */
    const char *reason = NULL;
    int status = exit_wait_initial(&reason);
    exit_like_guest(t, status, reason);
}
