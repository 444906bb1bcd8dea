/* ia32: `int $0x80`, `sysenter` and 32-bit `syscall`, from 32- or 64-bit
 * code.  Numbers from arch/x86/entry/syscalls/syscall_32.tbl; arguments in
 * ebx, ecx, edx, esi, edi, ebp. */
#include <glib.h>

#include "abi/abi.h"

static const int strict[] = { 3, 4, 1, 119 }; /* mode1_syscalls_32 */

const struct abi abi_ia32 = {
    .id = ABI_IA32,
    .name = "ia32",
    .bits = 32,
    .names = ia32_syscall_names,
    .nnames = &ia32_syscall_names_len,
    .strict = strict,
    .nstrict = G_N_ELEMENTS(strict),
};
