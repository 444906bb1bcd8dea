#include "loaders/raw_opts.h"

#include <errno.h>
#include <string.h>

#include "emu/kernel/limits.h"
#include "emu/kernel/task.h"
#include "emu/entry/vdso_time.h"
#include "emu/parse.h"
#include "loaders/input.h"

/* Exit statuses of a shell that cannot run a command (as main.c's). */
#define EXIT_USAGE 2
#define EXIT_CANNOT_EXECUTE 126
#define EXIT_NOT_FOUND 127

static char *opt_raw, *opt_arch, *opt_text_addr, *opt_data_addr, *opt_entry, *opt_stack;

static const GOptionEntry raw_entries[] = {
    { "raw", 0, 0, G_OPTION_ARG_FILENAME, &opt_raw,
      "Run raw bytecode: flat .text (and .data) images, in strict mode from the first "
      "instruction", "TEXT.bin[,DATA.bin]" },
    { "arch", 0, 0, G_OPTION_ARG_FILENAME, &opt_arch, "ABI of the raw bytecode: i386 or x86_64",
      "ARCH" },
    { "text-addr", 0, 0, G_OPTION_ARG_FILENAME, &opt_text_addr,
      "Load address of the text image (default 0x10000000)", "A" },
    { "data-addr", 0, 0, G_OPTION_ARG_FILENAME, &opt_data_addr,
      "Load address of the data image (default 0x20000000)", "A" },
    { "entry", 0, 0, G_OPTION_ARG_FILENAME, &opt_entry,
      "First instruction (default: the start of the text)", "A" },
    { "stack", 0, 0, G_OPTION_ARG_FILENAME, &opt_stack,
      "Stack size, with an optional K, M or G suffix (default 8M)", "BYTES" },
    { NULL },
};

GOptionGroup *raw_option_group(void)
{
    GOptionGroup *g = g_option_group_new("raw", "Raw bytecode (cpushare's format):",
                                         "Show raw bytecode options", NULL, NULL);
    g_option_group_add_entries(g, raw_entries);
    return g;
}

static struct raw_request request;

void raw_options_reset(void)
{
    char **opts[] = { &opt_raw, &opt_arch, &opt_text_addr, &opt_data_addr, &opt_entry, &opt_stack };
    for (size_t i = 0; i < G_N_ELEMENTS(opts); i++)
        g_clear_pointer(opts[i], g_free);
    memset(&request, 0, sizeof(request));
}

err_t raw_check_options(bool have_program, bool *raw)
{
    *raw = opt_raw != NULL;
    if (!opt_raw) {
        const char *given = opt_arch ? "arch" : opt_text_addr ? "text-addr"
                            : opt_data_addr ? "data-addr" : opt_entry ? "entry"
                            : opt_stack ? "stack" : NULL;
        if (given)
            return err_new("--%s is only for raw bytecode (--raw)", given);
        return OK;
    }
    if (have_program)
        return err_new("--raw runs the images it names: no PROGRAM goes with it");
    if (!opt_arch)
        return err_new("--raw needs --arch=i386 or --arch=x86_64");
    if (!strcmp(opt_arch, "x86_64"))
        request.is64 = true;
    else if (strcmp(opt_arch, "i386"))
        return err_new("--arch must be i386 or x86_64");
    request.text_addr = RAW_TEXT_ADDR;
    request.data_addr = RAW_DATA_ADDR;
    request.stack_size = RAW_STACK_SIZE;
    err_t e = OK;
    if (opt_text_addr && (e = parse_number("text-addr", opt_text_addr, false, &request.text_addr)))
        return e;
    if (opt_data_addr && (e = parse_number("data-addr", opt_data_addr, false, &request.data_addr)))
        return e;
    if (opt_entry && (e = parse_number("entry", opt_entry, false, &request.entry)))
        return e;
    request.entry_set = opt_entry != NULL;
    if (opt_stack && (e = parse_number("stack", opt_stack, true, &request.stack_size)))
        return e;
    if (!*opt_raw || *opt_raw == ',')
        return err_new("--raw: no text image named");
    return OK;
}

/* `which` image ("text", "data"): a failure says which it was, as
 * raw_plan's own checks do. */
static err_t read_image(const char *path, const char *which, struct raw_file *out, int *status)
{
    enum input_failure why;
    err_t e = input_read(path, RAW_IMAGE_MAX, NULL, &out->bytes, &out->len, &why);
    if (!e)
        return OK;
    *status = why == INPUT_MISSING ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE;
    err_t named = err_new("the %s image: %s", which, e);
    err_free(e);
    return named;
}

err_t raw_open(struct raw_image *img, int *status)
{
    memset(img, 0, sizeof(*img));
    /* The first comma separates the images. */
    const char *comma = strchr(opt_raw, ',');
    img->text_path = comma ? g_strndup(opt_raw, (gsize)(comma - opt_raw)) : g_strdup(opt_raw);
    img->data_path = comma ? g_strdup(comma + 1) : NULL;
    if (img->data_path && !*img->data_path) {
        *status = EXIT_USAGE;
        return err_new("--raw: no data image named after the comma");
    }
    err_t e;
    img->failed_path = img->text_path;
    if ((e = read_image(img->text_path, "text", &img->text, status)))
        return e;
    if (img->data_path) {
        img->failed_path = img->data_path;
        if ((e = read_image(img->data_path, "data", &img->data, status)))
            return e;
    }
    img->failed_path = img->text_path;
    *status = EXIT_CANNOT_EXECUTE;
    return raw_plan(&request, img->text.len, img->data.len, &img->layout);
}

void raw_image_free(struct raw_image *img)
{
    g_free(img->text_path);
    g_free(img->data_path);
    g_free(img->text.bytes);
    g_free(img->data.bytes);
    memset(img, 0, sizeof(*img));
}

err_t raw_start(struct task *t, struct raw_image *img, uint64_t *entry, uint64_t *sp)
{
    const struct raw_layout *l = &img->layout;
    const uint8_t *data = img->data_path ? (const uint8_t *)img->data.bytes : NULL;
    err_t e = raw_load(t, l, (const uint8_t *)img->text.bytes, data);
    if (e)
        return e;
    /* --stack is the job's stack, all of it: the limit stack growth meets
     * (and what the guest's getrlimit reports). */
    t->group->rlim[RLIMIT_STACK_LINUX].cur = t->group->rlim[RLIMIT_STACK_LINUX].max = l->stack_hi - l->stack_lo;
    limits_rlimit_changed(t, RLIMIT_STACK_LINUX); /* the mm's copy, which growth reads */
    uint64_t end = MAX(l->text_addr + l->text_len, l->data_addr + l->data_len);
    t->mm->brk_start = t->mm->brk_cur = (end + 4095) & ~4095ull;
    /* Linux maps the vDSO for every task; an i386 job's sysenter returns
     * through its landing pad. */
    if ((e = vdso_map(t)))
        return e;
    *entry = l->entry;
    *sp = l->sp;
    return OK;
}
