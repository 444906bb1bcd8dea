/* /init of the arm64 VM (scripts/vm-arm64-sandbox.sh): runs seccomp-emu,
 * built with its self-sandbox, on a few guests and with the self-sandbox's
 * test switch under a real arm64 kernel (qemu-user has no seccomp(2)),
 * prints each status as "== NAME: exit N" or "== NAME: signal N", and
 * powers off.  The script runs the same list on the x86 host and compares.
 * The guests: those that reach the filter's calls on arm64 (timers and
 * sleeps, the timer thread, signals, faults through the scratch engine). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static void run(const char *name, char *const argv[])
{
    printf("== %s\n", name);
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        int fd = open("/dev/null", O_RDONLY);
        dup2(fd, 0);
        chdir("/tmp");
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    waitpid(p, &st, 0);
    if (WIFEXITED(st))
        printf("== %s: exit %d\n", name, WEXITSTATUS(st));
    else
        printf("== %s: signal %d\n", name, WTERMSIG(st));
    fflush(stdout);
}

#define E "/seccomp-emu"
int main(void)
{
    mount("proc", "/proc", "proc", 0, 0);
    mount("devtmpfs", "/dev", "devtmpfs", 0, 0);
    mount("tmpfs", "/tmp", "tmpfs", 0, 0);
    struct utsname u;
    uname(&u);
    printf("== kernel %s %s %s\n", u.sysname, u.release, u.machine);
    run("hello_strict64", (char *[]){ E, "/g/hello_strict64", NULL });
    run("allowed_calls64-sigreturn", (char *[]){ E, "/g/allowed_calls64", "sigreturn", NULL });
    run("glibc_hello64-hello", (char *[]){ E, "/g/glibc_hello64", "hello", NULL });
    run("glibc_hello32-hello", (char *[]){ E, "/g/glibc_hello32", "hello", NULL });
    run("sig_async64-alarm", (char *[]){ E, "/g/sig_async64", "alarm", NULL });
    run("sig_async64-nanosleep", (char *[]){ E, "/g/sig_async64", "nanosleep", NULL });
    run("sig_async64-real", (char *[]){ E, "/g/sig_async64", "real", NULL });
    run("sig_masks64-pending", (char *[]){ E, "/g/sig_masks64", "pending", NULL });
    run("sig_faults64-map-info", (char *[]){ E, "/g/sig_faults64", "map", "info", NULL });
    run("sig_faults32-gp-plain", (char *[]){ E, "/g/sig_faults32", "gp", "plain", NULL });
    const char *calls[] = { "open", "creat", "execve", "fork", "clone", "socket", "kill", "ptrace",
                            "mount", "ioctl", "write" };
    for (unsigned i = 0; i < sizeof calls / sizeof *calls; i++) {
        char opt[64], name[64];
        snprintf(opt, sizeof opt, "--self-sandbox-test=%s", calls[i]);
        snprintf(name, sizeof name, "self-sandbox-test-%s", calls[i]);
        run(name, (char *[]){ E, opt, "/g/hostile_hostcalls64", "rdtsc", NULL });
    }
    printf("== done\n");
    fflush(stdout);
    reboot(RB_POWER_OFF);
    return 0;
}
