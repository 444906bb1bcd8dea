/* posix_spawn of itself (/proc/self/exe), the way a shell-less program
 * starts a helper: the child's output through the parent's stdout, a file
 * action redirecting the child's stderr, its exit status and a signal
 * death collected with waitpid. */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void report(const char *what, int status)
{
    if (WIFEXITED(status))
        printf("%s: exited %d\n", what, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("%s: killed by signal %d\n", what, WTERMSIG(status));
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        printf("child %s says hello\n", argc > 2 ? argv[2] : "");
        fprintf(stderr, "child's stderr\n");
        return 7;
    }
    if (argc > 1 && !strcmp(argv[1], "abort")) {
        fflush(stdout);
        raise(SIGTERM);
        return 1;
    }
    fflush(stdout);
    pid_t pid;
    char *args[] = { argv[0], "child", "one", NULL };
    int r = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ);
    int status;
    waitpid(pid, &status, 0);
    /* only now: the child's line and this one race otherwise (measured:
     * either came first natively) */
    printf("posix_spawn: %d\n", r);
    report("first child", status);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, 1, 2); /* its stderr into our stdout */
    char *args2[] = { argv[0], "child", "two", NULL };
    fflush(stdout);
    r = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, args2, environ);
    waitpid(pid, &status, 0);
    report("second child, stderr to stdout", status);
    posix_spawn_file_actions_destroy(&fa);

    char *args3[] = { argv[0], "abort", NULL };
    fflush(stdout);
    r = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args3, environ);
    waitpid(pid, &status, 0);
    report("third child", status);

    char *args4[] = { "/no/such/program", NULL };
    r = posix_spawn(&pid, "/no/such/program", NULL, NULL, args4, environ);
    printf("spawning a missing program: %s\n", r ? strerror(r) : "started");
    if (!r) {
        waitpid(pid, &status, 0);
        report("missing program", status);
    }
    return 0;
}
