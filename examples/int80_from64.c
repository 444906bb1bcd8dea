/* Lesson 4: `int $0x80` from 64-bit code.
 *
 * A 64-bit program can still execute `int $0x80`.  The kernel then takes the
 * ia32 entry: ia32 numbers (4 is write, 1 is exit), ia32 registers (ebx,
 * ecx, edx: only the low 32 bits of each), and in strict mode the ia32
 * list.  So the same program has two lists at once, chosen per call.
 *
 *     seccomp-emu --trace build/examples/int80_from64          # status 0
 *     seccomp-emu --trace build/examples/int80_from64 umask    # SIGKILL
 *
 * The trace shows "[ia32 int 0x80 from 64-bit code, strict]  write(1, ...)":
 * a buffer in .data (below 4 GiB) is written; a buffer on the stack (above
 * 4 GiB) has its address cut to 32 bits and the call answers -EFAULT.  With
 * `umask` the program makes call 60 through int $0x80: exit on the 64-bit
 * entry, but umask on the ia32 one, and umask is not in the ia32 list. */
#include "guest.h"

static const char in_data[] = "int $0x80 from 64-bit code: written from .data\n";

int guest_main(void)
{
#if defined(__x86_64__)
    char on_stack[] = "never written\n";
    if (guest_enter_strict() != 0)
        return 1;
    guest_int80(NR32_write_LINUX, 1, (long)in_data, sizeof(in_data) - 1);
    long r = guest_int80(NR32_write_LINUX, 1, (long)on_stack, sizeof(on_stack) - 1);
    guest_put_result("int $0x80 write from the stack", r); /* -14: EFAULT */
    if (guest_streq(guest_arg1(), "umask"))
        guest_int80(NR32_umask_LINUX, 0, 0, 0); /* 60: not in the ia32 list */
    guest_int80(NR32_exit_LINUX, 0, 0, 0);     /* ia32 exit: allowed */
    return 3;                                   /* not reached */
#else
    return 4; /* the lesson is about 64-bit code */
#endif
}
