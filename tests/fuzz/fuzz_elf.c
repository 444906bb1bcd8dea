/* libFuzzer harness: elf_parse() on arbitrary bytes.  It must return an
 * error or a description whose every segment lies inside the file and the
 * guest's address space, never crash or read past the input. */
#include <stdint.h>
#include <stdlib.h>

#include "abi/linux.h"
#include "loaders/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy of exactly `size` bytes, so ASan sees any overread. */
    uint8_t *copy = malloc(size ? size : 1);
    for (size_t i = 0; i < size; i++)
        copy[i] = data[i];
    struct elf_info info;
    err_t e = elf_parse(copy, size, &info);
    if (e)
        err_free(e);
    else {
        uint64_t limit = info.is64 ? TASK_SIZE_64_LINUX : TASK_SIZE_IA32_LINUX;
        if (info.nseg == 0 || info.nseg > ELF_MAX_SEGMENTS)
            abort();
        for (size_t i = 0; i < info.nseg; i++) {
            const struct elf_segment *s = &info.seg[i];
            if (s->offset > size || s->filesz > size - s->offset || s->filesz > s->memsz ||
                s->vaddr + s->memsz < s->vaddr || s->vaddr + s->memsz > limit)
                abort();
        }
    }
    free(copy);
    return 0;
}
