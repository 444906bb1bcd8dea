/* Lesson 1: hello in strict mode.
 *
 * A program asks for strict mode itself, with prctl(PR_SET_SECCOMP, 1).
 * From the next instruction on, the kernel lets it make four calls only:
 * read, write, exit and sigreturn.  Writing to a descriptor it already has
 * is one of them, so "hello" still reaches stdout; the program then leaves
 * with exit (not exit_group, which is not on the list: see lesson 2).
 *
 *     seccomp-emu --trace build/examples/hello_strict64
 *
 * shows the prctl call in mode 0, the line "--- strict mode on via
 * prctl(PR_SET_SECCOMP, 1) ---", then the write and the exit in strict mode.
 * Natively the same binary prints the same and exits 0. */
#include "guest.h"

int guest_main(void)
{
    long r = guest_enter_strict(); /* 0: strict mode is on */
    if (r != 0)
        return 1;
    guest_puts("hello from strict mode\n");
    return 0; /* guest_start calls exit(0) */
}
