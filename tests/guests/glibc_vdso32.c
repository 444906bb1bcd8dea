/* i386 glibc and the vDSO: glibc makes its system calls through
 * AT_SYSINFO (__kernel_vsyscall), which natively does sysenter (Intel) or
 * syscall (AMD) or int $0x80; the emulator supplies its own vDSO.  Either
 * way the call arrives on an ia32 entry, so strict mode allows write and
 * exit through it and kills getpid. */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static long vsyscall3(unsigned long entry, long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("call *%[e]" : "=a"(r) : [e] "r"(entry), "a"(nr), "b"(a), "c"(b), "d"(c)
                     : "memory");
    return r;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    unsigned long sysinfo = getauxval(AT_SYSINFO);
    unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
    static const char msg[] = "write via __kernel_vsyscall\n";

    printf("AT_SYSINFO present: %d\n", sysinfo != 0);
    printf("AT_SYSINFO_EHDR is an ELF image: %d\n",
           ehdr && memcmp((void *)ehdr, ELFMAG, SELFMAG) == 0);
    printf("entry inside the vDSO image: %d\n",
           ehdr && sysinfo > ehdr && sysinfo < ehdr + 0x10000);
    fflush(stdout);
    if (!sysinfo)
        return 1;
    printf("prctl = %d\n", prctl(PR_SET_SECCOMP, 1, 0, 0, 0));  /* buffered */
    fflush(stdout);                                                /* write */
    if (!strcmp(c, "write")) {
        long r = vsyscall3(sysinfo, SYS_write, 1, (long)msg, sizeof msg - 1);
        char line[64];
        int n = snprintf(line, sizeof line, "returned %ld\n", r);
        write(1, line, (size_t)n);
        syscall(SYS_exit, 0);
    } else if (!strcmp(c, "getpid")) {
        vsyscall3(sysinfo, SYS_getpid, 0, 0, 0);
        write(1, "survived getpid\n", 16);
    }
    return 1;   /* exit_group: SIGKILL */
}
