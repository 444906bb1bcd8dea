/* The command line of raw bytecode:
 *   --raw TEXT.bin[,DATA.bin] --arch=i386|x86_64 [--text-addr=A]
 *   [--data-addr=A] [--entry=A] [--stack=BYTES]
 * and the set-up it asks for.  A raw job always starts in strict mode:
 * there is no loader in it to turn strict mode on. */
#ifndef LOADERS_RAW_OPTS_H
#define LOADERS_RAW_OPTS_H

#include <glib.h>
#include <stdbool.h>

#include "emu/status.h"
#include "loaders/raw.h"

struct task;

struct raw_file {
    char *bytes;
    size_t len;
};

struct raw_image {
    char *text_path, *data_path; /* data_path NULL: no data image */
    const char *failed_path;     /* the image a failure of raw_open names */
    struct raw_file text, data;
    struct raw_layout layout;
};

GOptionGroup *raw_option_group(void);

/* Forget what the options parsed: the state is static (glib parses into
 * it), and a harness that parses many command lines in one process
 * (tests/fuzz/fuzz_raw.c) starts each from nothing. */
void raw_options_reset(void);

/* Was --raw given?  Refuses the raw-only options without it, and a PROGRAM
 * with it. */
err_t raw_check_options(bool have_program, bool *raw);

/* Reads both images and plans the layout.  *status is the exit status for
 * a failure: 127 for a missing file, 126 for a bad image, 2 for usage. */
err_t raw_open(struct raw_image *img, int *status);

/* Frees what raw_open read. */
void raw_image_free(struct raw_image *img);

/* Maps the images, the stack and the vDSO into the task; the guest starts
 * at *entry with the stack pointer *sp. */
err_t raw_start(struct task *t, struct raw_image *img, uint64_t *entry, uint64_t *sp);

#endif
