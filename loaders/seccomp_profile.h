/* --seccomp-profile=FILE.json: a container runtime's seccomp profile (the
 * OCI runtime-spec `linux.seccomp` object, as Docker, Podman and runc take
 * it) compiled to classic BPF by libseccomp, the way runc compiles it, for
 * the guest's ABI; the program is then enforced by seccomp-emu's own
 * interpreter like any other filter.  libseccomp exists only on Linux:
 * elsewhere the option says it is not available. */
#ifndef LOADERS_SECCOMP_PROFILE_H
#define LOADERS_SECCOMP_PROFILE_H

#include <stdbool.h>

#include "emu/status.h"
#include "loaders/filter_file.h"

/* Whether this build can compile profiles (it has libseccomp). */
bool seccomp_profile_available(void);

/* Compiles the profile in `json` (length `size`) for an x86_64 guest
 * (is64) or an i386 one; the error is one line without the file name. */
err_t seccomp_profile_compile(const char *json, size_t size, bool is64, struct bpf_program *out);

/* Reads FILE and compiles it; the error names the file. */
err_t seccomp_profile_load(const char *path, bool is64, struct bpf_program *out);

#endif
