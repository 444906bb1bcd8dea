/* Pages that are mapped but never there: a fault handler that answers
 * VM_FAULT_SIGBUS.
 *
 *   nopage CASE
 *
 * The kernel's data pages beside the vDSO ([vvar] and [vvar_vclock],
 * Linux 6.18's x86 layout) are filled by their fault handlers page by
 * page, and a page the kernel has nothing for (the time namespace's
 * without one, Hyper-V's clock elsewhere than Hyper-V) is SIGBUS.  A
 * shared anonymous mapping that mremap grew past its object has the same
 * kind of pages (shmem_fault past i_size).  x86's access_error() decides
 * first: a write needs VM_WRITE and any other access (a fetch too, the
 * page being absent) some access at all, else SIGSEGV (SEGV_ACCERR).
 * Each access prints the signal, its code, whether si_addr is the
 * address, and the trap number and error code in the frame; each call
 * its result.  The kernel judges.
 *
 *   vvar-access  a load, a store and a fetch on each page of [vvar] and
 *                [vvar_vclock]
 *   vvar-copy    write() to a pipe of 16 bytes from each page, and of
 *                200 across each page's end
 *   vvar-moved   [vvar] moved by mremap, loads on each page; then
 *                mprotect PROT_NONE and back to PROT_READ
 *   past-object  a one-page shared anonymous mapping grown to four:
 *                loads, stores and fetches on the pages past the object,
 *                read-write, read-only, PROT_NONE and execute-only, and
 *                write() from them
 */
#include "sigtest.h"

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096UL

enum how { LOAD, STORE, FETCH };

static sigjmp_buf back;
static volatile sig_atomic_t got_sig, got_code, got_trapno, got_err;
static void *volatile got_addr;

static void handler(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    got_trapno = (sig_atomic_t)uc->uc_mcontext.gregs[REG_TRAPNO];
    got_err = (sig_atomic_t)uc->uc_mcontext.gregs[REG_ERR];
    siglongjmp(back, 1);
}

static const char *const how_name[] = { "load", "store", "fetch" };

static void access_at(const char *what, unsigned long addr, enum how how)
{
    got_sig = 0;
    if (!sigsetjmp(back, 1)) {
        if (how == LOAD)
            (void)*(volatile char *)addr;
        else if (how == STORE)
            *(volatile char *)addr = 1;
        else
            ((void (*)(void))addr)();
    }
    if (!got_sig)
        say("%s %s: no signal\n", what, how_name[how]);
    else
        say("%s %s: signal %d code %d addr %s trapno %d err %#x\n", what, how_name[how],
            (int)got_sig, (int)got_code, got_addr == (void *)addr ? "exact" : "other",
            (int)got_trapno, (unsigned)got_err);
}

static void copy_from(const char *what, unsigned long addr, size_t len)
{
    int fds[2];
    if (pipe(fds)) {
        say("pipe failed\n");
        sys_exit(92);
    }
    long r = syscall(SYS_write, fds[1], (void *)addr, len);
    say("%s write %zu: %ld%s\n", what, len, r,
        r >= 0 ? "" : errno == EFAULT ? " EFAULT" : " other");
    close(fds[0]);
    close(fds[1]);
}

/* The start and size of the mapping /proc/self/maps names `name`. */
static bool find_mapping(const char *name, unsigned long *start, unsigned long *len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        size_t n = strlen(line), k = strlen(name);
        if (n >= k && !strcmp(line + n - k, name) && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
            *start = lo;
            *len = hi - lo;
            found = true;
        }
    }
    if (f)
        fclose(f);
    return found;
}

static void each_page(const char *name, void (*fn)(const char *, unsigned long))
{
    unsigned long start, len;
    if (!find_mapping(name, &start, &len)) {
        say("%s: not mapped\n", name);
        return;
    }
    say("%s: %lu pages\n", name, len / PAGE);
    for (unsigned long p = 0; p < len / PAGE; p++) {
        char what[64];
        snprintf(what, sizeof(what), "%s page %lu", name, p);
        fn(what, start + p * PAGE);
    }
}

static void page_access(const char *what, unsigned long page)
{
    access_at(what, page + 8, LOAD);
    access_at(what, page + 8, STORE);
    access_at(what, page, FETCH);
}

static void page_copy(const char *what, unsigned long page)
{
    copy_from(what, page + 16, 16);
    copy_from(what, page + PAGE - 100, 200);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *which = argv[1];
    on(SIGSEGV, handler, SA_NODEFER);
    on(SIGBUS, handler, SA_NODEFER);

    CASE("vvar-access")
    {
        each_page("[vvar]", page_access);
        each_page("[vvar_vclock]", page_access);
    }
    CASE("vvar-copy")
    {
        each_page("[vvar]", page_copy);
        each_page("[vvar_vclock]", page_copy);
    }
    CASE("vvar-moved")
    {
        unsigned long start, len;
        if (!find_mapping("[vvar]", &start, &len)) {
            say("[vvar]: not mapped\n");
            return 0;
        }
        void *to = mmap(NULL, len + PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        void *moved = mremap((void *)start, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
        say("mremap: %s\n", moved == to ? "moved" : "failed");
        if (moved != to)
            return 0;
        each_page("[vvar]", page_access);
        say("mprotect none: %d\n", mprotect(moved, len, PROT_NONE));
        access_at("none page 1", (unsigned long)moved + PAGE, LOAD);
        say("mprotect read: %d\n", mprotect(moved, len, PROT_READ));
        access_at("read page 0", (unsigned long)moved, LOAD);
        access_at("read page 1", (unsigned long)moved + PAGE, LOAD);
        copy_from("read page 1", (unsigned long)moved + PAGE, 16);
    }
    CASE("past-object")
    {
        char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        char *q = p == MAP_FAILED ? MAP_FAILED : mremap(p, PAGE, 4 * PAGE, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) {
            say("mremap failed\n");
            return 0;
        }
        access_at("object", (unsigned long)q, STORE);
        access_at("past rw", (unsigned long)q + PAGE, LOAD);
        access_at("past rw", (unsigned long)q + PAGE, STORE);
        access_at("past rw", (unsigned long)q + PAGE, FETCH);
        copy_from("past rw", (unsigned long)q + PAGE, 16);
        copy_from("across", (unsigned long)q + PAGE - 8, 16);
        say("mprotect read: %d\n", mprotect(q + 2 * PAGE, PAGE, PROT_READ));
        access_at("past ro", (unsigned long)q + 2 * PAGE, LOAD);
        access_at("past ro", (unsigned long)q + 2 * PAGE, STORE);
        say("mprotect none: %d\n", mprotect(q + 3 * PAGE, PAGE, PROT_NONE));
        access_at("past none", (unsigned long)q + 3 * PAGE, LOAD);
        access_at("past none", (unsigned long)q + 3 * PAGE, STORE);
        access_at("past none", (unsigned long)q + 3 * PAGE, FETCH);
        /* (No load: with protection keys, an execute-only mapping is
         * SEGV_PKUERR to one, a matter of the host's CPU.) */
        say("mprotect exec: %d\n", mprotect(q + 3 * PAGE, PAGE, PROT_EXEC));
        access_at("past exec", (unsigned long)q + 3 * PAGE, FETCH);
    }
    return 0;
}
