/* SIGPIPE: fd 0 is the write end of a pipe whose reader is gone.
 *
 *   pipe default|ignore|handler|block
 */
#include "sigtest.h"

#include <errno.h>

static volatile sig_atomic_t got;

static void on_pipe(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got = sig;
    say("handler: signal %d code %d from itself %d\n", sig, si->si_code, si->si_pid == getpid());
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    CASE("ignore") signal(SIGPIPE, SIG_IGN);
    CASE("handler") on(SIGPIPE, on_pipe, 0);
    CASE("block")
    {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGPIPE);
        sigprocmask(SIG_BLOCK, &s, NULL);
    }
    errno = 0;
    ssize_t r = write(0, "x", 1);
    int e = errno;
    sigset_t p;
    sigpending(&p);
    say("write: %zd errno %d, handler ran %d, pending %d\n", r, e, (int)got,
        sigismember(&p, SIGPIPE));
    return 0;
}
