/* Suspend and resume from outside (suspend.py plays the shell's Ctrl-Z, a
 * batch system's SIGSTOP, then SIGCONT): says "ready", then
 *
 *   suspend busy      computes (few system calls) for 0.6 s of CPU time
 *   suspend read      blocks in read(2) on stdin until a line comes
 *   suspend sleep     sleeps 0.8 s in nanosleep(2), reports what is left
 *   suspend handlers  SIGTSTP and SIGCONT handlers; spins until SIGCONT
 *   suspend cont      a SIGCONT handler (SA_RESTART), blocks in read(2)
 *   suspend ignore    SIGTSTP, SIGTTIN, SIGTTOU ignored; computes
 *
 * and prints what it saw.  The runner stops it while it computes or waits,
 * continues it, and compares everything with a native run. */
#include "sigtest.h"

#include <errno.h>
#include <time.h>

static volatile sig_atomic_t got_tstp, got_cont, order;
static volatile sig_atomic_t seen[8];

static void on_sig(int sig, siginfo_t *si, void *uc)
{
    (void)si, (void)uc;
    if (order < 8)
        seen[order++] = sig;
    if (sig == SIGTSTP)
        got_tstp = 1;
    if (sig == SIGCONT)
        got_cont = 1;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Work that stays in the CPU: a checksum over many rounds, checked against
 * the clock only every million rounds. */
static unsigned long compute(double seconds)
{
    unsigned long x = 1, rounds = 0;
    double until = cpu_seconds() + seconds;
    do {
        for (int i = 0; i < 1000000; i++)
            x = x * 6364136223846793005ul + 1442695040888963407ul;
        rounds++;
    } while (cpu_seconds() < until);
    return rounds ? x | 1 : 0;
}

static void show_seen(void)
{
    say("signals seen:");
    for (int i = 0; i < order; i++)
        say(" %d", (int)seen[i]);
    say("\n");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    CASE("handlers")
    {
        on(SIGTSTP, on_sig, SA_RESTART);
        on(SIGCONT, on_sig, SA_RESTART);
    }
    CASE("cont") on(SIGCONT, on_sig, SA_RESTART);
    CASE("ignore")
    {
        signal(SIGTSTP, SIG_IGN);
        signal(SIGTTIN, SIG_IGN);
        signal(SIGTTOU, SIG_IGN);
    }
    say("ready\n");
    if (!strcmp(which, "busy") || !strcmp(which, "ignore")) {
        say("computed: %s\n", compute(0.6) ? "yes" : "no");
    } else if (!strcmp(which, "read") || !strcmp(which, "cont")) {
        char buf[16];
        errno = 0;
        ssize_t r = read(0, buf, sizeof(buf));
        say("read: %zd errno %d\n", r, r < 0 ? errno : 0);
    } else if (!strcmp(which, "sleep")) {
        struct timespec req = { 0, 800000000 }, rem = { 0, 0 };
        errno = 0;
        int r = nanosleep(&req, &rem);
        say("nanosleep: %d errno %d\n", r, r < 0 ? errno : 0);
    } else if (!strcmp(which, "handlers")) {
        spin_until(&got_cont);
    } else
        return 2;
    show_seen();
    return 0;
}
