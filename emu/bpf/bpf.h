/* Classic BPF as seccomp uses it: the kernel's checker and an interpreter.
 * Pure code: includes abi/ and libc only, so the disassembler, the unit
 * tests and the emulated kernel share one definition. */
#ifndef EMU_BPF_BPF_H
#define EMU_BPF_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "abi/seccomp_linux.h"

/* What the kernel's bpf_check_classic() and seccomp_check_filter() say of
 * a program: 0, or -EINVAL_LINUX (every rejection is EINVAL). */
int bpf_check(const struct sock_filter_linux *prog, size_t len);

/* The eBPF length the kernel's classic-to-eBPF conversion gives a checked
 * program: what seccomp's path limit counts (FILTER.md §2). */
size_t bpf_ebpf_len(const struct sock_filter_linux *prog, size_t len);

/* Called before each executed instruction with the registers as they are
 * before it runs; how --trace-bpf shows what a filter did. */
typedef void (*bpf_step_fn)(void *ctx, size_t pc, const struct sock_filter_linux *insn,
                            uint32_t a, uint32_t x);

/* Run a program bpf_check() accepted against `data`; returns its value.
 * `step` may be NULL. */
uint32_t bpf_run(const struct sock_filter_linux *prog, size_t len,
                 const struct seccomp_data_linux *data, bpf_step_fn step, void *ctx);

#endif
