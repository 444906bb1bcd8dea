/* Lesson 2: exit against exit_group.
 *
 * Strict mode allows exit, which ends the calling thread, and not
 * exit_group, which ends every thread of the process.  In 2005 a process had
 * one thread and exit was how programs ended; today glibc's exit() and
 * _exit() call exit_group, so a libc program that falls off the end of
 * main() in strict mode is killed by SIGKILL at its very last call.
 *
 *     seccomp-emu --trace build/examples/exit_vs_group64 exit        # status 0
 *     seccomp-emu --trace build/examples/exit_vs_group64 exit_group  # SIGKILL
 *
 * The second trace ends with "exit_group(0) KILLED: not in the x86_64 strict
 * list {read, write, exit, rt_sigreturn}": nothing of the call happened, the
 * process died of the filter, and the real kernel does the same. */
#include "guest.h"

int guest_main(void)
{
    int group = guest_streq(guest_arg1(), "exit_group");
    if (guest_enter_strict() != 0)
        return 1;
    guest_puts(group ? "leaving with exit_group\n" : "leaving with exit\n");
    if (group)
        guest_syscall3(NR_exit_group_LINUX, 0, 0, 0); /* killed here */
    return 0; /* exit(0): allowed */
}
