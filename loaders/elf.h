/* Static ELF executables, ELF32 i386 and ELF64 x86_64, fixed or static-PIE.
 * elf_parse() only reads bytes and is where hostile headers are refused;
 * elf_load() maps what it accepted. */
#ifndef LOADERS_ELF_H
#define LOADERS_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/status.h"

struct task;

#define ELF_MAX_SEGMENTS 32

struct elf_segment {
    uint64_t vaddr, memsz, offset, filesz;
    int prot; /* PROT_*_LINUX */
};

struct elf_info {
    bool is64;
    bool pie;             /* ET_DYN: loaded at a bias */
    uint64_t entry;       /* unbiased */
    uint64_t phdr_vaddr;  /* unbiased address of the program headers, 0 if unmapped */
    uint16_t phnum, phent;
    bool exec_stack;      /* PT_GNU_STACK asks for it (or is missing on i386) */
    size_t nseg;
    struct elf_segment seg[ELF_MAX_SEGMENTS];
    uint64_t lo, hi;      /* unbiased page range the segments span */
};

/* For a program read from a stream (loaders/input.h): the bytes it needs,
 * the headers and every loadable segment's file part. */
size_t elf_bytes_needed(const char *data, size_t len);

/* Checks everything a hostile header can get wrong.  On failure the
 * message is one line, without the program's name. */
err_t elf_parse(const uint8_t *data, size_t len, struct elf_info *out);

struct elf_loaded {
    uint64_t bias, entry, phdr, brk;
    uint64_t data; /* end_data - start_data, as load_elf_binary() sets them */
};

err_t elf_load(struct task *t, const uint8_t *data, size_t len, const struct elf_info *info,
               struct elf_loaded *out);

#endif
