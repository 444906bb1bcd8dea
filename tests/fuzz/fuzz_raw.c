/* libFuzzer harness: the raw loader's command line (loaders/raw_opts.c:
 * --raw, --arch, --text-addr, --data-addr, --entry, --stack through glib's
 * option parser), raw_open() on real image files and raw_plan() on any
 * 64-bit sizes.  The oracle is a second, independent model of the
 * documented rules (docs/usage.md, "Descriptors, raw bytecode and the master"):
 * numbers as emu/parse.h reads them, page-aligned images inside user space
 * below the stack and apart from each other, the entry inside the text,
 * 256 MiB per image, a stack of 1 byte to 1 GiB.  Arithmetic here is in
 * 128 bits, so an overflow in the loader's 64-bit checks shows up as a
 * disagreement.  Every refusal must be one line.
 *
 * Input: byte 0 chooses the --raw form (bits 0-2) and whether a PROGRAM
 * word follows (bit 3); bytes 1-4 are the lengths of the text and data
 * files (up to 8 KiB, made with ftruncate); bytes 5-20 two 64-bit image
 * sizes for raw_plan() alone; then records "OPTION-BYTE VALUE\0". */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "loaders/raw.h"
#include "loaders/raw_opts.h"
#include "tests/fuzz/fuzz_options.h"

typedef unsigned __int128 u128;

#define PAGE 4096u
#define FILE_MAX 8192u

static char *dir, *text_file, *data_file, *missing_file, *dir_file;

static void remove_files(void)
{
    g_unlink(text_file);
    g_unlink(data_file);
    g_rmdir(dir_file);
    g_rmdir(dir);
}

static void make_files(void)
{
    if (dir)
        return;
    dir = g_dir_make_tmp("fuzz-raw-XXXXXX", NULL);
    if (!dir)
        abort();
    text_file = g_build_filename(dir, "t.bin", NULL);
    data_file = g_build_filename(dir, "d.bin", NULL);
    missing_file = g_build_filename(dir, "missing.bin", NULL);
    dir_file = g_build_filename(dir, "a-directory", NULL);
    if (g_mkdir(dir_file, 0700))
        abort();
    atexit(remove_files);
}

static void sized_file(const char *path, uint64_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)len) || close(fd))
        abort();
}

static void one_line(err_t e)
{
    if (e && (strchr(e, '\n') || !*e)) {
        fprintf(stderr, "not a one-line error: \"%s\"\n", e);
        abort();
    }
}

/* ---- the model ---- */

/* emu/parse.h: decimal, or hexadecimal after 0x (no octal, no sign);
 * where sizes are meant, K/M/G/T (powers of 1024) optionally followed by
 * B or iB.  The first character must be a digit. */
static bool model_number(const char *s, bool sized, uint64_t *out)
{
    if (!g_ascii_isdigit(s[0]))
        return false;
    unsigned base = 10;
    const char *p = s;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, p = s + 2;
    const char *digits = p;
    u128 v = 0;
    for (; *p; p++) {
        int d = g_ascii_xdigit_value(*p);
        if (d < 0 || (unsigned)d >= base)
            break;
        v = v * base + (unsigned)d;
        if (v > UINT64_MAX)
            return false;
    }
    if (p == digits)
        return false;
    unsigned shift = 0;
    if (sized && *p) {
        const char *u = strchr("KMGT", g_ascii_toupper(*p));
        if (!u)
            return false;
        shift = 10 * (unsigned)(u - "KMGT" + 1);
        p++;
        if (p[0] == 'i' && g_ascii_toupper(p[1]) == 'B')
            p += 2;
        else if (g_ascii_toupper(p[0]) == 'B')
            p++;
    }
    if (*p)
        return false;
    v <<= shift;
    if (v > UINT64_MAX)
        return false;
    *out = (uint64_t)v;
    return true;
}

static u128 page_up(u128 x) { return (x + PAGE - 1) / PAGE * PAGE; }

/* The layout docs/usage.md promises for these sizes, or false for a refusal. */
static bool model_plan(const struct raw_request *rq, uint64_t tlen, uint64_t dlen,
                       struct raw_layout *l)
{
    memset(l, 0, sizeof(*l));
    l->is64 = rq->is64;
    if (tlen == 0 || tlen > RAW_IMAGE_MAX || dlen > RAW_IMAGE_MAX)
        return false;
    if (rq->stack_size == 0 || rq->stack_size > RAW_STACK_MAX)
        return false;
    u128 top = rq->is64 ? 0x7ffffffff000ull : 0xffffe000ull;
    u128 stack_lo = top - page_up(rq->stack_size);
    u128 tend = (u128)rq->text_addr + page_up(tlen);
    if (rq->text_addr % PAGE || rq->text_addr < RAW_MIN_ADDR || tend > stack_lo)
        return false;
    if (dlen) {
        u128 dend = (u128)rq->data_addr + page_up(dlen);
        if (rq->data_addr % PAGE || rq->data_addr < RAW_MIN_ADDR || dend > stack_lo)
            return false;
        if (rq->data_addr < tend && rq->text_addr < dend)
            return false;
        l->data_addr = rq->data_addr;
        l->data_len = dlen;
    }
    u128 entry = rq->entry_set ? rq->entry : rq->text_addr;
    if (entry < rq->text_addr || entry >= (u128)rq->text_addr + tlen)
        return false;
    l->text_addr = rq->text_addr;
    l->text_len = tlen;
    l->entry = (uint64_t)entry;
    l->stack_hi = (uint64_t)top;
    l->stack_lo = (uint64_t)stack_lo;
    l->sp = (uint64_t)top - 64;
    return true;
}

static void same_layout(const struct raw_layout *got, const struct raw_layout *want)
{
    if (got->is64 != want->is64 || got->text_addr != want->text_addr ||
        got->text_len != want->text_len || got->data_addr != want->data_addr ||
        got->data_len != want->data_len || got->entry != want->entry ||
        got->stack_lo != want->stack_lo || got->stack_hi != want->stack_hi ||
        got->sp != want->sp || got->sp % 16) {
        fprintf(stderr, "layout differs from the model\n");
        abort();
    }
}

/* raw_plan() alone, against the model. */
static void check_plan(const struct raw_request *rq, uint64_t tlen, uint64_t dlen)
{
    struct raw_layout got, want;
    err_t e = raw_plan(rq, tlen, dlen, &got);
    one_line(e);
    bool ok = model_plan(rq, tlen, dlen, &want);
    if (ok != (e == OK)) {
        fprintf(stderr, "raw_plan %s, the model %s (text %llu, data %llu)\n",
                e ? e : "accepted", ok ? "accepts" : "refuses", (unsigned long long)tlen,
                (unsigned long long)dlen);
        abort();
    }
    if (ok)
        same_layout(&got, &want);
    err_free(e);
}

/* ---- the command line ---- */

enum { O_ARCH, O_TEXT, O_DATA, O_ENTRY, O_STACK, O_COUNT };
static const char *const opt_names[O_COUNT] = { "arch", "text-addr", "data-addr", "entry",
                                                "stack" };

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 21 || size > 4096)
        return 0;
    make_files();
    unsigned form = data[0] & 7;
    bool program = data[0] & 8;
    uint64_t tfile = (data[1] | (unsigned)data[2] << 8) % (FILE_MAX + 1);
    uint64_t dfile = (data[3] | (unsigned)data[4] << 8) % (FILE_MAX + 1);
    uint64_t tlen64 = le64(data + 5), dlen64 = le64(data + 13);

    /* The words, and what the model expects each option to hold (the last
     * occurrence wins, as glib does it). */
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(argv, g_strdup("seccomp-emu"));
    const char *val[O_COUNT] = { 0 };
    bool ascii = true;
    GPtrArray *values = g_ptr_array_new_with_free_func(g_free);
    for (size_t at = 21; at < size;) {
        unsigned o = data[at++] % O_COUNT;
        size_t n = 0;
        while (at + n < size && data[at + n])
            n++;
        char *v = g_strndup((const char *)data + at, n);
        at += n + 1;
        for (size_t i = 0; v[i]; i++)
            ascii &= (unsigned char)v[i] < 0x80;
        g_ptr_array_add(argv, g_strdup_printf("--%s=%s", opt_names[o], v));
        g_ptr_array_add(values, v);
        val[o] = v;
    }
    static const char *const forms[] = { NULL, "T", "T,D", "T,", "", ",D", "T,M", "X" };
    const char *raw = forms[form];
    if (raw) {
        GString *r = g_string_new("--raw=");
        for (const char *c = raw; *c; c++)
            g_string_append(r, *c == 'T' ? text_file : *c == 'D' ? data_file
                               : *c == 'M' ? missing_file : *c == 'X' ? dir_file : ",");
        g_ptr_array_add(argv, g_string_free(r, FALSE));
    }
    if (program)
        g_ptr_array_add(argv, g_strdup("prog"));
    sized_file(text_file, tfile);
    sized_file(data_file, dfile);

    /* glib hands the options over as main.c's context does. */
    int argc;
    char **av;
    GError *gerr = NULL;
    bool parsed = fuzz_parse_options(argv, raw_option_group(), &argc, &av, &gerr);
    if (!parsed) {
        /* The only way these words fail glib: a STRING option converted
         * from the C locale's ASCII. */
        if (ascii) {
            fprintf(stderr, "glib refused ASCII options: %s\n", gerr->message);
            abort();
        }
        g_error_free(gerr);
        goto out;
    }

    /* raw_check_options, against the model. */
    bool have_program = argc > 1;
    bool is_raw;
    err_t e = raw_check_options(have_program, &is_raw);
    one_line(e);
    struct raw_request rq = { .text_addr = RAW_TEXT_ADDR, .data_addr = RAW_DATA_ADDR,
                              .stack_size = RAW_STACK_SIZE };
    bool want_ok;
    if (!raw) {
        want_ok = !val[O_ARCH] && !val[O_TEXT] && !val[O_DATA] && !val[O_ENTRY] && !val[O_STACK];
    } else {
        want_ok = !have_program && val[O_ARCH] &&
                  (!strcmp(val[O_ARCH], "x86_64") || !strcmp(val[O_ARCH], "i386"));
        rq.is64 = want_ok && !strcmp(val[O_ARCH], "x86_64");
        want_ok = want_ok && (!val[O_TEXT] || model_number(val[O_TEXT], false, &rq.text_addr)) &&
                  (!val[O_DATA] || model_number(val[O_DATA], false, &rq.data_addr)) &&
                  (!val[O_ENTRY] || model_number(val[O_ENTRY], false, &rq.entry)) &&
                  (!val[O_STACK] || model_number(val[O_STACK], true, &rq.stack_size)) &&
                  raw[0] && raw[0] != ',';
        rq.entry_set = val[O_ENTRY] != NULL;
    }
    if (want_ok != (e == OK) || (e == OK && is_raw != (raw != NULL))) {
        fprintf(stderr, "raw_check_options: %s, the model %s\n", e ? e : "accepted",
                want_ok ? "accepts" : "refuses");
        abort();
    }
    err_free(e);
    if (!want_ok || !raw)
        goto out;

    /* raw_open on the files, then raw_plan on any sizes, same request. */
    struct raw_image img;
    int status = -1;
    e = raw_open(&img, &status);
    one_line(e);
    int want_status = 0;
    struct raw_layout want;
    if (!strcmp(raw, "T,"))
        want_status = 2;
    else if (!strcmp(raw, "T,M"))
        want_status = 127;
    else if (!strcmp(raw, "X"))
        want_status = 126;
    else if (!model_plan(&rq, tfile, strcmp(raw, "T,D") ? 0 : dfile, &want))
        want_status = 126;
    if ((e != OK) != (want_status != 0) || (e && status != want_status)) {
        fprintf(stderr, "raw_open: %s (status %d), the model: status %d\n", e ? e : "accepted",
                status, want_status);
        abort();
    }
    if (!e)
        same_layout(&img.layout, &want);
    err_free(e);
    raw_image_free(&img);
    check_plan(&rq, tlen64, dlen64);
    check_plan(&rq, tlen64 % (RAW_IMAGE_MAX + 2), dlen64 % (RAW_IMAGE_MAX + 2));
    check_plan(&rq, tfile ? tfile : 1, dfile);
out:
    raw_options_reset();
    g_free(av);
    g_ptr_array_unref(values);
    g_ptr_array_unref(argv);
    return 0;
}
