/* Numbers given on the command line: one grammar for every option that
 * takes a count, a size or an address. */
#ifndef EMU_PARSE_H
#define EMU_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

/* Decimal, or hexadecimal after 0x; with `sized`, a K, M, G or T suffix
 * (powers of 1024, optionally followed by B or iB: 64M, 64MB, 64MiB).  No
 * sign, no octal.  The message names --opt and echoes s on one line. */
err_t parse_number(const char *opt, const char *s, bool sized, uint64_t *out);

/* --caps: a comma-separated list of capability names (CAP_ optional, any
 * case) and sets (docker, podman, all, none, and host: `host`), each item
 * added, or removed when it starts with '-': "docker,-net_raw,+sys_admin".
 * Bit n is capability n. */
err_t parse_caps(const char *s, uint64_t host, uint64_t *out);
/* Docker's default capability set (moby's oci/caps.DefaultCapabilities). */
uint64_t caps_docker_default(void);

/* A kernel release for --kernel=linux:X.Y[.Z]: *major, *minor, *patch. */
err_t parse_kernel_release(const char *s, unsigned *major, unsigned *minor, unsigned *patch);

#endif
