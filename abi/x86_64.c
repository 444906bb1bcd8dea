/* x86_64: the `syscall` entry.  Numbers from arch/x86/entry/syscalls/
 * syscall_64.tbl; arguments in rdi, rsi, rdx, r10, r8, r9. */
#include <glib.h>

#include "abi/abi.h"

static const int strict[] = { 0, 1, 60, 15 }; /* mode1_syscalls */

const struct abi abi_x86_64 = {
    .id = ABI_X86_64,
    .name = "x86_64",
    .bits = 64,
    .names = x86_64_syscall_names,
    .nnames = &x86_64_syscall_names_len,
    .strict = strict,
    .nstrict = G_N_ELEMENTS(strict),
};
