/* Lesson 3: the four allowed calls, per entry path.
 *
 * Strict mode's list is read, write, exit and sigreturn, but the list the
 * kernel checks is a list of numbers, and the numbers depend on how the call
 * entered the kernel:
 *   x86_64 `syscall`                      0 read, 1 write, 60 exit, 15 rt_sigreturn
 *   `int $0x80`, `sysenter`, 32-bit `syscall`   3 read, 4 write, 1 exit, 119 sigreturn
 * An i386 program has two entry paths: `int $0x80`, and the vDSO's
 * __kernel_vsyscall (what glibc calls), whose fast instruction is `sysenter`
 * on Intel and `syscall` on AMD.  This program reads and writes on every
 * entry path its ABI has, then exits.
 *
 *     seccomp-emu --trace build/examples/allowed_calls32            # int 0x80, then the vDSO
 *     seccomp-emu --trace --cpu=intel build/examples/allowed_calls32  # the vDSO uses sysenter
 *     seccomp-emu --trace build/examples/allowed_calls64 sigreturn  # the fourth call
 *     seccomp-emu --trace build/examples/allowed_calls64 getpid     # a fifth: SIGKILL
 *
 * With `sigreturn` a SIGTRAP handler, installed before strict mode, runs
 * after an int3 and returns through its restorer: rt_sigreturn (15) on
 * x86_64, sigreturn (119) on i386, both in their list, so the program
 * resumes after the int3.  With `getpid` the fifth call kills. */
#include "guest.h"

static char buf[64];

static void on_trap(int sig)
{
    (void)sig;
    guest_puts("in the SIGTRAP handler\n");
}

static void read_and_write(long (*call)(long, long, long, long), const char *path)
{
    long n = call(NR_read_LINUX, 0, (long)buf, sizeof(buf));
    guest_put_result(path, n);
    call(NR_write_LINUX, 1, (long)"write: allowed\n", 15);
}

int guest_main(void)
{
    const char *what = guest_arg1();
    if (guest_streq(what, "sigreturn") && guest_on_signal(SIGTRAP_LINUX, on_trap, 0) != 0)
        return 1;
    if (guest_enter_strict() != 0)
        return 2;
#if defined(__x86_64__)
    read_and_write(guest_syscall3, "read via syscall");
#else
    read_and_write(guest_int80, "read via int $0x80");
    if (guest_vsyscall)
        read_and_write(guest_vsys, "read via __kernel_vsyscall");
#endif
    if (guest_streq(what, "sigreturn")) {
        __asm__ volatile("int3");
        guest_puts("back from the handler\n");
    }
    if (guest_streq(what, "getpid"))
        guest_syscall3(NR_getpid_LINUX, 0, 0, 0); /* not in the list: SIGKILL */
    return 0; /* exit: allowed */
}
