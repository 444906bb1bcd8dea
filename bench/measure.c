/* Runs one command and reports its cost on fd 3: wall-clock nanoseconds
 * from spawn to reap, user+system CPU microseconds, peak resident set
 * (maxrss, KiB) and the wait status.
 *
 * Why a separate program: Linux records the peak RSS of the address space
 * a process replaces at execve, so a child spawned from the Python runner
 * (vfork shares the parent's pages) would report the runner's own 17 MiB.
 * Spawned from this small process, maxrss is the command's.  Timing here
 * also leaves the runner's start-up costs out of the start-up numbers.
 *
 * usage: measure PROGRAM [ARG...]   (fds 0-2 pass through; fd 3 reports) */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: measure PROGRAM [ARG...] (reports on fd 3)\n");
        return 2;
    }
    FILE *report = fdopen(3, "w");
    if (!report || fcntl(3, F_SETFD, FD_CLOEXEC) < 0) {
        fprintf(stderr, "measure: fd 3 must be open for the report\n");
        return 2;
    }
    struct timespec t0, t1;
    pid_t pid;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int e = posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ);
    if (e) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(e));
        return 127;
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("measure: wait4");
            return 2;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long wall = (t1.tv_sec - t0.tv_sec) * 1000000000ll + (t1.tv_nsec - t0.tv_nsec);
    long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ll +
                    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    fprintf(report, "%lld %lld %ld %d\n", wall, cpu, ru.ru_maxrss, status);
    return fclose(report) ? 2 : 0;
}
