/* Start-up with glibc: a static glibc program (its start-up runs brk,
 * TLS set-up, IRELATIVE relocations, stdio) that prints, enters strict mode
 * and leaves with exit(2), since glibc's exit_group is not in the strict
 * list.  Exit 3 when strict mode was refused (QEMU). */
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    printf("hello from glibc, pid-free and %d-bit\n", (int)(8 * sizeof(long)));
    printf("checksum %016llx\n", 0x600dull);
    fflush(stdout);
    int strict = prctl(PR_SET_SECCOMP, 1, 0, 0, 0) == 0;
    syscall(SYS_exit, strict ? 0 : 3);
    return 1;
}
