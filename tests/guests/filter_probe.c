/* What a job started under a policy from outside sees (tests/filter): its
 * seccomp mode and no_new_privs, and what a few calls answer.  Prints a
 * result per call as "name: N" (a negative errno, or "ok"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Numbers written out: no kernel headers (a -m32 build on a host whose
 * gcc-multilib gave way to a cross compiler has no asm/ directory). */
int prctl(int option, ...);
#define PR_GET_SECCOMP 21
#define PR_GET_NO_NEW_PRIVS 39
#if defined(__x86_64__)
#define SYS_getpid 39
#define SYS_getppid 110
#define SYS_close 3
#define SYS_getuid 102
#else
#define SYS_getpid 20
#define SYS_getppid 64
#define SYS_close 6
#define SYS_getuid 24
#endif

static void show(const char *name, long r)
{
    if (r < 0)
        printf("%s: -%d\n", name, errno);
    else
        printf("%s: ok\n", name);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    printf("PR_GET_SECCOMP: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
    printf("PR_GET_NO_NEW_PRIVS: %d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    fflush(stdout);
    show("getpid", syscall(SYS_getpid));
    show("getppid", syscall(SYS_getppid));
    show("close(100)", syscall(SYS_close, 100)); /* -EBADF, unless a filter says otherwise */
    show("close(101)", syscall(SYS_close, 101));
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "getuid"))
            show("getuid", syscall(SYS_getuid));
    return 0;
}
