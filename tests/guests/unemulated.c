/* Emu-only: calls that must never reach the host.  Natively all three
 * succeed (they return file descriptors).  The emulator shows the guest no
 * file system (open/openat answer -ENOENT, 2, for every path) and does not
 * implement socket (-ENOSYS, 38).  Judged against a hand-written
 * expectation, not natively. */
#include "linux_sys.h"

#define AT_FDCWD_LINUX (-100)
#define AF_INET_LINUX 2
#define SOCK_STREAM_LINUX 1

int guest_main(int argc, char **argv)
{
    static const char path[] = "/etc/passwd";
    (void)argc, (void)argv;
    put_kv("open(/etc/passwd)", sys3(NR_(open), (long)path, 0, 0));
    put_kv("openat(AT_FDCWD, /etc/passwd)",
           sys6(NR_(openat), AT_FDCWD_LINUX, (long)path, 0, 0, 0, 0));
    put_kv("socket(AF_INET, SOCK_STREAM)",
           sys3(NR_(socket), AF_INET_LINUX, SOCK_STREAM_LINUX, 0));
    put_kv("enter strict", enter_strict());
    return 0;
}
