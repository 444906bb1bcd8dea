/* --filter=FILE: a seccomp filter from outside, as a raw array of 8-byte
 * struct sock_filter (what libseccomp's seccomp_export_bpf() writes on an
 * x86 Linux host: code u16, jt u8, jf u8, k u32, little-endian).  The
 * program must pass the kernel's checker here, so that a bad file stops
 * seccomp-emu before anything of the guest runs. */
#ifndef LOADERS_FILTER_FILE_H
#define LOADERS_FILTER_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/seccomp_linux.h"
#include "emu/status.h"

struct bpf_program {
    struct sock_filter_linux *insns; /* g_free */
    size_t len;
};

/* Decodes and checks `size` bytes of exported BPF; on success *out owns a
 * copy.  The error says what is wrong in one line (without the file). */
err_t filter_decode(const uint8_t *bytes, size_t size, struct bpf_program *out);

/* Reads FILE and decodes it; the error names the file. */
err_t filter_file_load(const char *path, struct bpf_program *out);

void bpf_program_free(struct bpf_program *p);

#endif
