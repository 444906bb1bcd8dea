/* The emulated calls of every ABI, looked up by number. */
#include "emu/sys/sys.h"

extern const struct syscall_desc sys_calls_x86_64[], sys_calls_ia32[];
extern const size_t sys_calls_x86_64_len, sys_calls_ia32_len;

static const struct {
    const struct syscall_desc *calls;
    const size_t *len;
} tables[ABI_COUNT] = {
    [ABI_X86_64] = { sys_calls_x86_64, &sys_calls_x86_64_len },
    [ABI_IA32] = { sys_calls_ia32, &sys_calls_ia32_len },
};

const struct syscall_desc *sys_lookup(const struct abi *abi, int64_t nr)
{
    const struct syscall_desc *calls = tables[abi->id].calls;
    if (nr < 0 || (uint64_t)nr >= *tables[abi->id].len || !calls[nr].fn)
        return NULL;
    return &calls[nr];
}
