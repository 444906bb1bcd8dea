/*
 * Not upstream: added by seccomp-emu (README.seccomp-emu.md).  A function
 * only this vendored copy of Unicorn has, so a test can tell from the
 * linked binary that the engine is ours and not a host library
 * (tests/link/x86_only.sh), and a program can say which engine it runs.
 */
#include <unicorn/unicorn.h>

UNICORN_EXPORT const char *uc_seccomp_emu_vendored(void);

UNICORN_EXPORT const char *uc_seccomp_emu_vendored(void)
{
    return "Unicorn " UNICORN_VENDOR_VERSION " (" UNICORN_VENDOR_COMMIT "), x86 only, vendored by seccomp-emu";
}
