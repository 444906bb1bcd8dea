/* Signals sent to the process from outside (the runner plays the user
 * pressing Ctrl-C, or kill(1)): says "ready", then spins without system
 * calls until the signal arrives.
 *
 *   hostsig handler|default|strict|read|read-default
 *
 * The read cases block in read(2) on a pipe nobody writes to instead.
 */
#include "sigtest.h"

#include <errno.h>

static volatile sig_atomic_t got;
static int code, from_parent;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got = sig;
    code = si->si_code;
    from_parent = si->si_pid == getppid();
}

static void on_plain_sig(int sig) { got = sig; }

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    CASE("handler")
    {
        on(SIGINT, on_sig, 0);
        on(SIGTERM, on_sig, 0);
        on(SIGHUP, on_sig, 0);
        on(SIGQUIT, on_sig, 0);
    }
    CASE("strict")
    {
        on_plain(SIGINT, on_plain_sig, 0);
        on_plain(SIGTERM, on_plain_sig, 0);
    }
    CASE("read") on(SIGINT, on_sig, 0);
    say("ready\n");
    if (!strncmp(which, "read", 4)) {
        char c;
        errno = 0;
        ssize_t r = read(0, &c, 1);
        say("read: %zd errno %d, got signal %d\n", r, errno, (int)got);
        return 3;
    }
    if (!strcmp(which, "strict"))
        enter_strict();
    spin_until(&got);
    if (!strcmp(which, "strict")) {
        say("strict: got signal %d\n", (int)got);
        sys_exit(3);
    }
    say("got signal %d, si_code %d, sent by the parent %d\n", (int)got, code, from_parent);
    return 3;
}
