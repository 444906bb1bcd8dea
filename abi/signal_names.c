#include "abi/signal_names.h"

#include <glib.h>

const char *signal_name_linux(int sig)
{
    static const char *const names[] = {
        NULL,        "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",    "SIGTRAP", "SIGABRT",
        "SIGBUS",    "SIGFPE",  "SIGKILL",   "SIGUSR1", "SIGSEGV",   "SIGUSR2", "SIGPIPE",
        "SIGALRM",   "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",
        "SIGTTIN",   "SIGTTOU", "SIGURG",    "SIGXCPU", "SIGXFSZ",   "SIGVTALRM", "SIGPROF",
        "SIGWINCH",  "SIGIO",   "SIGPWR",    "SIGSYS",
    };
    if (sig > 0 && sig < (int)G_N_ELEMENTS(names))
        return names[sig];
    return NULL;
}
