/* libFuzzer harness: the seed's /proc/self/seccomp write parser.  It may
 * consume at most 19 bytes plus nothing beyond the input, and its answer
 * must not depend on bytes after the 19th. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/kernel/seccomp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    unsigned long mode = 0;
    size_t used = seccomp_proc_parse(copy, size, &mode);
    if (used > size || used > 20)
        abort();
    if (size > 19) {
        unsigned long mode2 = 0;
        if (seccomp_proc_parse(copy, 19, &mode2) != used || mode2 != mode)
            abort();
    }
    free(copy);
    return 0;
}
