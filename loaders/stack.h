/* The initial stack Linux's create_elf_tables() builds: argc, argv, envp,
 * the auxiliary vector, and the strings and random bytes they point to. */
#ifndef LOADERS_STACK_H
#define LOADERS_STACK_H

#include <stdint.h>

#include "emu/status.h"
#include "loaders/elf.h"

struct task;

#define STACK_SIZE_DEFAULT (8u << 20) /* RLIMIT_STACK's usual 8 MiB */
#define STACK_EXPAND (128u << 10)     /* setup_arg_pages()'s stack_expand */

/* Maps the stack below the ABI's stack top and fills it; returns the
 * guest's initial stack pointer in *sp. */
err_t stack_build(struct task *t, const struct elf_info *info, const struct elf_loaded *ld,
                  char **argv, char **envp, const char *execfn, uint64_t *sp);

#endif
