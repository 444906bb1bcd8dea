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

#endif
