/* Emu-only: a call the emulator does not implement must never reach the
 * host.  Natively open("/etc/passwd") succeeds; the emulator answers
 * -ENOSYS (38).  Judged against a hand-written expectation, not natively. */
#include "linux_sys.h"

#define AT_FDCWD_LINUX (-100)

int guest_main(int argc, char **argv)
{
    static const char path[] = "/etc/passwd";
    (void)argc, (void)argv;
    put_kv("open(/etc/passwd)", sys3(NR_(open), (long)path, 0, 0));
    put_kv("openat(AT_FDCWD, /etc/passwd)",
           sys6(NR_(openat), AT_FDCWD_LINUX, (long)path, 0, 0, 0, 0));
    put_kv("enter strict", enter_strict());
    return 0;
}
