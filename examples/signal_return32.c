/* Lesson 6: an i386 signal handler returns through sigreturn or through
 * rt_sigreturn, and only one of them is in the strict list.
 *
 * A handler installed before strict mode still runs in strict mode.  When it
 * returns, its restorer asks the kernel to restore the interrupted context.
 * On i386 which call that is depends on the frame the kernel built: a plain
 * sigframe (handler without SA_SIGINFO) is undone by sigreturn (119), in
 * the list; an rt_sigframe (SA_SIGINFO) by rt_sigreturn (173), not in it.
 *
 *     seccomp-emu --trace build/examples/signal_return32 sigreturn     # status 0
 *     seccomp-emu --trace build/examples/signal_return32 rt_sigreturn  # SIGKILL
 *
 * In both traces the int3 raises SIGTRAP and the handler's write runs; then
 * "sigreturn() = ..." lets the program go on, while "rt_sigreturn()
 * KILLED: not in the ia32 strict list {read, write, exit, sigreturn}" ends
 * it right after its handler.  (x86_64 has only rt frames, and there
 * rt_sigreturn, 15, is in the list.) */
#include "guest.h"

static void on_trap(int sig)
{
    (void)sig;
    guest_puts("in the SIGTRAP handler\n");
}

int guest_main(void)
{
#if defined(__x86_64__)
    return 4; /* the lesson is about i386 frames */
#else
    int rt = guest_streq(guest_arg1(), "rt_sigreturn");
    if (guest_on_signal(SIGTRAP_LINUX, on_trap, rt) != 0)
        return 1;
    if (guest_enter_strict() != 0)
        return 2;
    __asm__ volatile("int3");
    guest_puts("back from the handler\n");
    return 0;
#endif
}
