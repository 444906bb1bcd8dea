/* What a guest sees of the system before strict mode.  Only facts that
 * must agree between the native and the emulated run are printed: signs
 * of return values, file types, names, never pids, times or addresses.
 * An unimplemented call in the emulator shows up as a differing line. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static char type_of(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return '!';
    return S_ISCHR(st.st_mode) ? 'c' : S_ISFIFO(st.st_mode) ? 'p' : S_ISREG(st.st_mode) ? 'f' : '?';
}

int main(int argc, char **argv)
{
    struct utsname u;
    struct timespec ts;
    char rnd[16], exe[4096];

    if (argc > 1 && !strcmp(argv[1], "clock_after_strict")) {
        /* glibc asks the vDSO, which reads the TSC: natively SIGSEGV in
         * strict mode where the clocksource is tsc (this host), a syscall
         * (SIGKILL) where the vDSO falls back.  Host-dependent. */
        prctl(PR_SET_SECCOMP, 1, 0, 0, 0);
        write(1, "strict\n", 7);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        write(1, "clock_gettime returned\n", 23);
        syscall(SYS_exit, 0);
    }

    if (argc > 1 && !strcmp(argv[1], "name")) {
        /* The task's name: exec's basename cut to 15 bytes, PR_SET_NAME,
         * and what /proc/self/status shows of it. */
        char name[32];
        memset(name, 'x', sizeof name);
        printf("PR_GET_NAME = %d: %s\n", prctl(PR_GET_NAME, name), name);
        printf("PR_SET_NAME long = %d\n", prctl(PR_SET_NAME, "0123456789abcdefghij"));
        printf("PR_GET_NAME = %d: %s\n", prctl(PR_GET_NAME, name), name);
        printf("PR_SET_NAME bad pointer = %d\n", prctl(PR_SET_NAME, (char *)8) < 0 ? -errno : 0);
        printf("PR_GET_NAME bad pointer = %d\n", prctl(PR_GET_NAME, (char *)8) < 0 ? -errno : 0);
        printf("PR_SET_NAME short = %d\n", prctl(PR_SET_NAME, "job"));
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "Name:", 5))
                printf("status %s", line);
        if (f)
            fclose(f);
        fflush(stdout);
        prctl(PR_SET_SECCOMP, 1, 0, 0, 0);
        syscall(SYS_exit, 0);
    }
    if (uname(&u) == 0)
        printf("uname: sysname %s, machine %s\n", u.sysname, u.machine);
    else
        printf("uname failed\n");
    printf("getpid > 0: %d\n", getpid() > 0);
    printf("getppid > 0: %d\n", getppid() > 0);
    printf("clock_gettime(MONOTONIC) = %d\n", clock_gettime(CLOCK_MONOTONIC, &ts));
    int rt = clock_gettime(CLOCK_REALTIME, &ts);
    printf("clock_gettime(REALTIME) = %d, after 2001: %d\n", rt, ts.tv_sec > 1000000000);
    printf("getrandom(16) = %zd\n", getrandom(rnd, sizeof rnd, 0));
    printf("brk(0) > 0: %d\n", syscall(SYS_brk, 0) > 0);
    printf("sbrk(64 KiB) ok: %d\n", sbrk(65536) != (void *)-1);
    char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mmap(1 MiB) ok: %d\n", m != MAP_FAILED);
    if (m != MAP_FAILED) {
        memset(m, 1, 1 << 20);
        printf("munmap = %d\n", munmap(m, 1 << 20));
    }
    char *big = malloc(8 << 20);
    printf("malloc(8 MiB) ok: %d\n", big != NULL);
    free(big);
    printf("fstat types 0,1,2: %c%c%c\n", type_of(0), type_of(1), type_of(2));
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    printf("readlink(/proc/self/exe) > 0: %d\n", n > 0);
    if (n > 0) {
        exe[n] = 0;
        char *a0 = strdup(argv[0]);
        printf("  names this program: %d\n", strcmp(basename(exe), basename(a0)) == 0);
        printf("  absolute: %d\n", exe[0] == '/');
    }
    printf("getuid == geteuid: %d\n", getuid() == geteuid());
    fflush(stdout);
    prctl(PR_SET_SECCOMP, 1, 0, 0, 0);
    write(1, "strict\n", 7);
    syscall(SYS_exit, 0);
    return 1;
}
