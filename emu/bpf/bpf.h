/* Placeholder for filter-kernel's emu/bpf/bpf.h (the interface agreed in
 * issue 24); that branch's version replaces this one at merge. */
#ifndef EMU_BPF_BPF_H
#define EMU_BPF_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "abi/seccomp_linux.h"

typedef void (*bpf_step_fn)(void *ctx, size_t pc, const struct sock_filter_linux *insn,
                            uint32_t a, uint32_t x);

int bpf_check(const struct sock_filter_linux *prog, size_t len);
uint32_t bpf_run(const struct sock_filter_linux *prog, size_t len,
                 const struct seccomp_data_linux *data, bpf_step_fn step, void *ctx);

#endif
