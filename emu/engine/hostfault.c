/* Host faults in an engine's generated code (hostfault.h).
 *
 * Only the faulting instruction's host pc is read from the signal context;
 * its field differs by host, and only x86-64 hosts have a code generator
 * with a linear base, so the others never enter a window. */
#include "emu/engine/hostfault.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>


static _Thread_local struct {
    uc_engine *uc;
    const struct hostfault_ranges *windows; /* the engine's */
    uint64_t faults;                        /* handed to an engine, ever */
} running;

static bool in_windows(uintptr_t addr)
{
    const struct hostfault_ranges *w = running.windows;
    for (unsigned i = 0; i < w->n; i++)
        if (addr - w->range[i].lo < w->range[i].hi - w->range[i].lo)
            return true;
    return false;
}

static const int fault_signals[] = { SIGSEGV, SIGBUS }; /* macOS gives SIGBUS for some */
static struct sigaction previous[G_N_ELEMENTS(fault_signals)];

/* The top of x86-64's lower half with 4-level paging: nothing user mode
 * may read or write is at or above it (hostfault_traps_beyond_user checks). */
#define HOST_USER_TOP (UINT64_C(1) << 47)

static bool beyond_user(const siginfo_t *info, uintptr_t addr)
{
#if defined(__x86_64__) && defined(__linux__)
    return running.windows->beyond_user && (info->si_code == SI_KERNEL || addr >= HOST_USER_TOP);
#else
    (void)info, (void)addr;
    return false;
#endif
}

static bool traps_beyond_user; /* hostfault_install's finding */

bool hostfault_traps_beyond_user(void) { return traps_beyond_user; }

#if defined(__x86_64__) && defined(__linux__)
/* Is the host's vsyscall page, the one page above user space that user
 * mode may touch, readable (vsyscall=emulate)?  It is execute-only by
 * default (vsyscall=xonly), or absent (none).  Unknown counts as
 * readable. */
static bool vsyscall_readable(void)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return true;
    char line[256];
    bool readable = false;
    while (fgets(line, sizeof(line), maps))
        if (strstr(line, "[vsyscall]")) {
            char *perms = strchr(line, ' ');
            readable = !perms || perms[1] != '-';
        }
    fclose(maps);
    return readable;
}
#endif

static bool host_user_space_narrow(void)
{
#if defined(__x86_64__) && defined(__linux__)
    /* A hint above the top is taken only where user space reaches past
     * it (5-level paging); then a guest's address there could be host
     * memory, and the slot table keeps its test.  So it does where the
     * vsyscall page can be read. */
    void *p = mmap((void *)(uintptr_t)(HOST_USER_TOP << 1), 4096, PROT_NONE,
                   MAP_PRIVATE | MAP_ANON, -1, 0);
    if (p == MAP_FAILED)
        return false;
    bool narrow = (uintptr_t)p < HOST_USER_TOP;
    munmap(p, 4096);
    return narrow && !vsyscall_readable();
#else
    return false;
#endif
}

static bool fault_pc(const void *context, uintptr_t *pc)
{
    const ucontext_t *u = context;
#if defined(__x86_64__) && defined(__linux__)
    *pc = (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
    return true;
#elif defined(__x86_64__) && defined(__APPLE__)
    *pc = (uintptr_t)u->uc_mcontext->__ss.__rip;
    return true;
#elif defined(__x86_64__) && defined(__FreeBSD__)
    *pc = (uintptr_t)u->uc_mcontext.mc_rip;
    return true;
#else
    (void)u, (void)pc;
    return false;
#endif
}

static void on_host_fault(int sig, siginfo_t *info, void *context)
{
    uintptr_t addr = (uintptr_t)info->si_addr, pc;
    /* si_code > 0: the kernel's own fault, whose si_addr means something
     * (a signal sent from outside has a pid there). */
    if (running.uc && info->si_code > 0 && (in_windows(addr) || beyond_user(info, addr)) &&
        fault_pc(context, &pc)) {
        /* Back out through the engine's longjmp, with the mask the fault
         * interrupted (SIGSEGV is blocked in here). */
        pthread_sigmask(SIG_SETMASK, &((ucontext_t *)context)->uc_sigmask, NULL);
        running.faults++;
        uc_host_fault(running.uc, pc, addr); /* does not return when the fault is the engine's */
    }
    for (size_t i = 0; i < G_N_ELEMENTS(fault_signals); i++) {
        if (fault_signals[i] != sig)
            continue;
        if ((previous[i].sa_flags & SA_SIGINFO) && previous[i].sa_sigaction) {
            previous[i].sa_sigaction(sig, info, context);
            return;
        }
        /* A fault comes again on return and meets what was there; a
         * signal sent from outside is sent again. */
        sigaction(sig, &previous[i], NULL);
        if (previous[i].sa_handler == SIG_IGN)
            signal(sig, SIG_DFL);
        if (info->si_code <= 0)
            raise(sig);
        return;
    }
}

err_t hostfault_install(void)
{
    traps_beyond_user = host_user_space_narrow();
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_host_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < G_N_ELEMENTS(fault_signals); i++)
        if (sigaction(fault_signals[i], &sa, &previous[i]) != 0)
            return err_new("sigaction(%d): %s", fault_signals[i], host_strerror(errno));
    return OK;
}

void hostfault_enter(uc_engine *uc, const struct hostfault_ranges *windows)
{
    running.windows = windows;
    running.uc = uc;
}

void hostfault_leave(void)
{
    running.uc = NULL;
}

uint64_t hostfault_count(void) { return running.faults; }
