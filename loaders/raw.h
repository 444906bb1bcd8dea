/* Raw bytecode, the cpushare client's format: flat images of .text and
 * .data (what `objcopy -O binary -j .text` / `-j .data` make of a program
 * linked with examples/raw/raw.ld), loaded at fixed addresses, with a stack
 * and nothing else.  raw_plan() only does arithmetic and is where hostile
 * images are refused; raw_load() maps what it accepted. */
#ifndef LOADERS_RAW_H
#define LOADERS_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/status.h"

struct task;

/* The defaults, the same for both ABIs and the ones raw.ld links for:
 * low enough for i386, clear of the zero page and vm.mmap_min_addr. */
#define RAW_TEXT_ADDR 0x10000000ull
#define RAW_DATA_ADDR 0x20000000ull
#define RAW_STACK_SIZE (8ull << 20)
#define RAW_IMAGE_MAX ((uint64_t)256 << 20) /* per image: the gap the defaults leave */
#define RAW_STACK_MAX ((uint64_t)1 << 30)
#define RAW_MIN_ADDR 0x10000ull /* vm.mmap_min_addr */

struct raw_request {
    bool is64;
    uint64_t text_addr, data_addr; /* RAW_TEXT_ADDR, RAW_DATA_ADDR unless given */
    bool entry_set;
    uint64_t entry;                /* default: text_addr */
    uint64_t stack_size;           /* RAW_STACK_SIZE unless given */
};

struct raw_layout {
    bool is64;
    uint64_t text_addr, text_len; /* mapped read + execute */
    uint64_t data_addr, data_len; /* mapped read + write; data_len 0: none */
    uint64_t entry;
    uint64_t stack_lo, stack_hi;  /* mapped read + write, not executable */
    uint64_t sp;                  /* points at argc = 0, empty argv, envp, auxv */
};

/* Checks sizes, alignment, address-space limits, overlaps and the entry. */
err_t raw_plan(const struct raw_request *rq, uint64_t text_len, uint64_t data_len,
               struct raw_layout *out);

/* Maps text, data and stack and copies the images in. */
err_t raw_load(struct task *t, const struct raw_layout *l, const uint8_t *text,
               const uint8_t *data);

#endif
