/* seccomp-emu-bpf: show a seccomp filter as text, and run it.
 *
 *   seccomp-emu-bpf FILE                      disassemble an exported filter
 *   seccomp-emu-bpf --profile=FILE.json       compile an OCI profile, then disassemble
 *   seccomp-emu-bpf --profile=P.json --export=F  write the compiled profile as a
 *                                              filter file (for --filter, or a host
 *                                              without libseccomp)
 *   seccomp-emu-bpf FILE --batch              run it on one seccomp_data per stdin
 *                                              line "ARCH NR ARG0 ... ARG5" (numbers),
 *                                              printing each value in hex
 *   seccomp-emu-bpf FILE --run=getpid --arg=1 run it on one seccomp_data:
 *                                              every executed instruction with A and X,
 *                                              then the value and its action
 *
 * The program goes through the same loaders, checker, interpreter and
 * disassembler as seccomp-emu's --filter, --seccomp-profile and --trace-bpf.
 * Status: 0, or 2 for bad input (one line on stderr). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "abi/abi.h"
#include "abi/seccomp_linux.h"
#include "emu/bpf/bpf.h"
#include "emu/bpf/bpf_disasm.h"
#include "loaders/filter_file.h"
#include "emu/parse.h"
#include "loaders/seccomp_profile.h"

#define EXIT_USAGE 2

static char *opt_profile, *opt_abi, *opt_run, *opt_arch, *opt_ip, *opt_export, *opt_caps,
    *opt_release;
static char **opt_args;
static gboolean opt_batch;

static const GOptionEntry options[] = {
    { "profile", 0, 0, G_OPTION_ARG_FILENAME, &opt_profile,
      "Compile this container seccomp profile (Docker's, containers' or OCI's JSON) instead of "
      "reading a filter file; with --batch each value is followed by the rule that gave it",
      "FILE.json" },
    { "caps", 0, 0, G_OPTION_ARG_FILENAME, &opt_caps,
      "The container's capabilities the profile's includes/excludes meet, as seccomp-emu's "
      "--caps (default: docker)", "LIST" },
    { "kernel-release", 0, 0, G_OPTION_ARG_FILENAME, &opt_release,
      "The kernel release the profile's minKernel meets (default 6.1)", "X.Y" },
    { "abi", 0, 0, G_OPTION_ARG_FILENAME, &opt_abi,
      "The guest's ABI: x86_64 (default) or i386; it chooses --run's arch field and syscall "
      "names", "ABI" },
    { "export", 0, 0, G_OPTION_ARG_FILENAME, &opt_export,
      "Write the program as an exported sock_filter array (little-endian) instead of "
      "disassembling it", "FILE" },
    { "run", 0, 0, G_OPTION_ARG_FILENAME, &opt_run,
      "Run the filter on a call with this number or name and show each executed instruction",
      "NR" },
    { "batch", 0, 0, G_OPTION_ARG_NONE, &opt_batch,
      "Run the filter on each stdin line \"ARCH NR ARG0 ARG1 ARG2 ARG3 ARG4 ARG5\" and print "
      "the value it returns (for test vectors)", NULL },
    { "arg", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_args,
      "The call's next argument (repeatable, up to 6; default 0)", "VALUE" },
    { "arch", 0, 0, G_OPTION_ARG_FILENAME, &opt_arch,
      "seccomp_data.arch, when it differs from the ABI's (e.g. 0x40000003 for int $0x80 "
      "from 64-bit code)", "VALUE" },
    { "ip", 0, 0, G_OPTION_ARG_FILENAME, &opt_ip, "seccomp_data.instruction_pointer (default 0)",
      "VALUE" },
    { NULL },
};

G_NORETURN static void usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "seccomp-emu-bpf: %s\n", msg);
    exit(EXIT_USAGE);
}

static uint64_t parse_word(const char *what, const char *s)
{
    guint64 v;
    /* Base 0 lets hex and octal in; a leading minus means the two's
     * complement, as a C program's argument would carry it. */
    bool negative = s[0] == '-';
    const char *digits = negative ? s + 1 : s;
    errno = 0;
    char *end;
    v = g_ascii_strtoull(digits, &end, 0);
    if (!*digits || *end || errno || digits[0] == '-' || digits[0] == '+')
        usage_error("%s: \"%s\" is not a number", what, s);
    return negative ? (uint64_t)0 - v : v;
}

static int32_t parse_nr(const struct abi *abi, const char *s)
{
    for (unsigned nr = 0; nr < *abi->nnames; nr++)
        if (abi->names[nr] && !strcmp(abi->names[nr], s))
            return (int32_t)nr;
    if (!g_ascii_isdigit(s[0]) && s[0] != '-')
        usage_error("--run: no call \"%s\" in the %s ABI", s, abi->name);
    return (int32_t)(uint32_t)parse_word("--run", s);
}

static void show_step(void *ctx, size_t pc, const struct sock_filter_linux *insn, uint32_t a,
                      uint32_t x)
{
    GString *line = ctx;
    g_string_truncate(line, 0);
    g_string_append_printf(line, " %04zu: ", pc);
    bpf_disasm_insn(line, insn, pc);
    while (line->len < 40)
        g_string_append_c(line, ' ');
    g_string_append_printf(line, " A=0x%08" PRIx32 " X=0x%08" PRIx32 "\n", a, x);
    fputs(line->str, stdout);
}

int main(int argc, char **argv)
{
    GOptionContext *ctx = g_option_context_new("[FILE]");
    g_option_context_set_summary(ctx, "Disassemble a seccomp filter (an exported sock_filter "
                                      "array, or an OCI profile with --profile) and run it on "
                                      "one call with --run.");
    g_option_context_add_main_entries(ctx, options, NULL);
    GError *gerr = NULL;
    if (!g_option_context_parse(ctx, &argc, &argv, &gerr))
        usage_error("%s", gerr->message);
    g_option_context_free(ctx);

    bool is64 = true;
    if (opt_abi && !strcmp(opt_abi, "i386"))
        is64 = false;
    else if (opt_abi && strcmp(opt_abi, "x86_64"))
        usage_error("--abi must be x86_64 or i386");
    const struct abi *abi = is64 ? &abi_x86_64 : &abi_ia32;
    if ((argc == 2) == (opt_profile != NULL))
        usage_error("give one filter FILE or --profile=FILE.json (see --help)");
    if (!opt_run && (opt_args || opt_arch || opt_ip))
        usage_error("--arg, --arch and --ip describe the call of --run");

    if (!opt_profile && (opt_caps || opt_release))
        usage_error("--caps and --kernel-release resolve a --profile");
    struct profile_env env = { .caps = caps_docker_default(), .kernel_major = 6,
                               .kernel_minor = 1 };
    unsigned patch;
    err_t e;
    if (opt_caps && (e = parse_caps(opt_caps, 0, &env.caps)))
        usage_error("%s", e);
    if (opt_release &&
        (e = parse_kernel_release(opt_release, &env.kernel_major, &env.kernel_minor, &patch)))
        usage_error("%s", e);
    struct bpf_program prog;
    struct seccomp_profile *resolved = NULL;
    e = opt_profile ? seccomp_profile_load(opt_profile, &env, &prog, NULL, &resolved)
                    : filter_file_load(argv[1], &prog);
    if (e)
        usage_error("%s", e);

    if (opt_batch) {
        if (opt_run || opt_export)
            usage_error("--batch goes alone");
        char line[1024];
        unsigned long lineno = 0;
        while (fgets(line, sizeof(line), stdin)) {
            lineno++;
            g_auto(GStrv) words = g_strsplit_set(g_strstrip(line), " \t", -1);
            uint64_t v[8];
            size_t n = 0;
            for (char **w = words; *w && n <= 8; w++)
                if (**w)
                    v[n < 8 ? n : 7] = parse_word("--batch", *w), n++;
            if (n != 8)
                usage_error("--batch: line %lu: want ARCH NR and 6 arguments", lineno);
            struct seccomp_data_linux d = { .nr = (int32_t)(uint32_t)v[1], .arch = (uint32_t)v[0] };
            memcpy(d.args, v + 2, sizeof(d.args));
            uint32_t ret = bpf_run(prog.insns, prog.len, &d, NULL, NULL);
            g_autofree char *why = resolved ? seccomp_profile_explain(resolved, &d, ret) : NULL;
            if (resolved)
                printf("0x%08" PRIx32 " %s\n", ret, why ? why : "(no rule explains it)");
            else
                printf("0x%08" PRIx32 "\n", ret);
        }
        bpf_program_free(&prog);
        return 0;
    }
    if (opt_export) {
        if (opt_run)
            usage_error("--export and --run: one at a time");
        g_autofree uint8_t *bytes = g_malloc(prog.len * 8);
        for (size_t i = 0; i < prog.len; i++) {
            const struct sock_filter_linux *in = &prog.insns[i];
            uint8_t *b = bytes + i * 8;
            b[0] = (uint8_t)in->code, b[1] = (uint8_t)(in->code >> 8);
            b[2] = in->jt, b[3] = in->jf;
            for (int k = 0; k < 4; k++)
                b[4 + k] = (uint8_t)(in->k >> (8 * k));
        }
        if (!g_file_set_contents(opt_export, (const char *)bytes, (gssize)(prog.len * 8), &gerr))
            usage_error("--export: %s", gerr->message);
        bpf_program_free(&prog);
        return 0;
    }
    if (!opt_run) {
        GString *text = g_string_new(NULL);
        bpf_disasm_prog(text, prog.insns, prog.len);
        fputs(text->str, stdout);
        g_string_free(text, TRUE);
        bpf_program_free(&prog);
        return 0;
    }

    struct seccomp_data_linux data = {
        .nr = parse_nr(abi, opt_run),
        .arch = is64 ? AUDIT_ARCH_X86_64_LINUX : AUDIT_ARCH_I386_LINUX,
    };
    if (opt_arch)
        data.arch = (uint32_t)parse_word("--arch", opt_arch);
    if (opt_ip)
        data.instruction_pointer = parse_word("--ip", opt_ip);
    size_t nargs = opt_args ? g_strv_length(opt_args) : 0;
    if (nargs > 6)
        usage_error("--arg: a call has 6 arguments");
    for (size_t i = 0; i < nargs; i++) {
        data.args[i] = parse_word("--arg", opt_args[i]);
        /* An i386 call's arguments are 32-bit registers, zero-extended. */
        if (!is64 && data.args[i] > UINT32_MAX)
            usage_error("--arg: %s does not fit an i386 register", opt_args[i]);
    }
    const char *name = abi_call_name(abi, data.nr);
    printf("seccomp_data: nr=%" PRId32 "%s%s%s arch=0x%08" PRIx32 " ip=0x%" PRIx64, data.nr,
           name ? " (" : "", name ? name : "", name ? ")" : "", data.arch,
           data.instruction_pointer);
    for (size_t i = 0; i < 6; i++)
        printf(" args[%zu]=0x%" PRIx64, i, data.args[i]);
    putchar('\n');
    GString *line = g_string_new(NULL);
    uint32_t ret = bpf_run(prog.insns, prog.len, &data, show_step, line);
    g_string_truncate(line, 0);
    bpf_disasm_action(line, ret);
    printf("returns 0x%08" PRIx32 ": %s\n", ret, line->str);
    g_string_free(line, TRUE);
    bpf_program_free(&prog);
    return 0;
}
