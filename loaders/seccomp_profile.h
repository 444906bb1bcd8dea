/* --seccomp-profile=FILE.json: a container seccomp profile, in the form
 * people write and share (Docker's and containers' profiles: archMap,
 * includes/excludes by capability, architecture and kernel, comment, name,
 * containers' defaultErrno and errno names) or in the OCI runtime-spec form
 * runc and crun take (architectures, flags, syscalls with names, action,
 * errnoRet, args).  It is resolved the way Docker and Podman resolve it
 * for the container (the emulated machine is amd64; its capabilities and
 * kernel release are the task's), compiled to classic BPF by libseccomp
 * the way runc compiles it, then enforced by seccomp-emu's own interpreter
 * like any other filter.  Whatever seccomp-emu cannot honour exactly
 * (an unknown field, a rule with both "name" and "names", runtimes that
 * would disagree, a listener) is refused with its position, never
 * loosened.  libseccomp exists only on Linux: elsewhere the option says it
 * is not available. */
#ifndef LOADERS_SECCOMP_PROFILE_H
#define LOADERS_SECCOMP_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/seccomp_linux.h"
#include "emu/status.h"
#include "loaders/filter_file.h"

/* Whether this build can compile profiles (it has libseccomp). */
bool seccomp_profile_available(void);

/* What decides a profile's conditional rules: the container's. */
struct profile_env {
    uint64_t caps;                  /* capability set, bit n = capability n */
    unsigned kernel_major, kernel_minor; /* the release uname reports */
};

/* A profile as resolved: its rules, for naming the one that decided. */
struct seccomp_profile;

/* Compiles the profile in `json` (length `size`); the error is one line
 * without the file name.  `filter_flags` gets the SECCOMP_FILTER_FLAG_*
 * the profile's "flags" ask for; `resolved`, when not NULL, the rules
 * (free with seccomp_profile_free). */
err_t seccomp_profile_compile(const char *json, size_t size, const struct profile_env *env,
                              struct bpf_program *out, unsigned *filter_flags,
                              struct seccomp_profile **resolved);

/* Reads FILE and compiles it; the error names the file. */
err_t seccomp_profile_load(const char *path, const struct profile_env *env,
                           struct bpf_program *out, unsigned *filter_flags,
                           struct seccomp_profile **resolved);

/* Which rule of the profile answers `ret` for the call `d`, in words
 * ("syscalls[3] \"mount\"", "defaultAction"), or NULL when none does (the
 * compiled program and the profile would disagree: a bug). */
char *seccomp_profile_explain(const void *profile, const struct seccomp_data_linux *d,
                              uint32_t ret);

void seccomp_profile_free(struct seccomp_profile *p);

#endif
