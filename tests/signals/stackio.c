/* System calls that read or write guest memory just below a stack.
 *
 *   stackio CASE
 *
 * Linux's copy_to_user and copy_from_user fault through the page-fault
 * handler, which grows a stack (the main one, or a MAP_GROWSDOWN
 * mapping) to the address as a user access would: lock_mm_and_find_vma
 * -> expand_stack, with the same checks (RLIMIT_STACK, stack_guard_gap,
 * the memory limits).  Paths built on get_user_pages never grow one
 * since Linux 6.5.  Each case prints the call's result, the bytes it
 * moved and where the stack starts afterwards, relative to where it
 * started (addresses themselves differ between runs): the kernel judges.
 *
 *   read-main       read() from a pipe into the page just below [stack]
 *   read-main-deep  ... into the third page below, in the middle of it
 *   write-main      write() to a pipe from the page just below [stack]
 *   read-main-gap   read-main with a page mapped within the guard gap,
 *                   readable (refused), then PROT_NONE (grows)
 *   read-gd         read() just below a MAP_GROWSDOWN mapping
 *   readv-gd        readv() of two pieces, the first below the mapping
 *   read-gd-ro      ... below a read-only one: grows, then EFAULT
 *   read-gd-gap     ... with an accessible mapping within the guard gap
 *   read-gd-gapnone ... with a PROT_NONE one there (no gap kept)
 *   read-gd-eof     ... from a pipe at its end: nothing copied, no growth
 *   read-gd-null    ... from /dev/null: the same
 *   read-gd-file    ... from a regular file (argv[2]) at its end: the same
 *   read-gd-dir     ... from a directory: EISDIR, found before any copy
 *   read-file-deep  read-gd-file once a store grew the mapping, then a
 *                   store deeper still
 *   read-rlimit     ... below [stack] past RLIMIT_STACK, then within it
 *   exec-limits     RLIMIT_AS and RLIMIT_STACK lowered, then execve of
 *                   argv[2] (this program): a mapping past the one and a
 *                   read past the other fail there
 *   stat-gd         fstat() into the page below (a struct copy)
 *   path-gd         open() of a path string that starts below
 *   futex-gd        FUTEX_WAIT (get_user: grows) and FUTEX_WAKE_OP
 *                   (pagefault_disable + fault_in_user_writeable: GUP,
 *                   grows nothing) on a word below; FUTEX_WAIT with a
 *                   shared key (get_user_pages_fast: grows nothing)
 *   jump-gd         a jump to the page below a (non-executable)
 *                   MAP_GROWSDOWN mapping: the fault grows it, then
 *                   refuses the fetch (SEGV_ACCERR)
 *   jump-gd-exec    ... below an executable one: it grows, and the
 *                   zeros run to the mapping's end (SEGV_MAPERR there)
 */
#include "sigtest.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define PAGE 4096UL
#define GAP (256 * PAGE) /* stack_guard_gap's default */

/* Where the mapping holding or just above `addr` starts, from
 * /proc/self/maps; 0 if none. */
static unsigned long vma_start_above(unsigned long addr)
{
    static char buf[65536];
    int fd = (int)syscall(SYS_open, "/proc/self/maps", O_RDONLY);
    if (fd < 0)
        return 0;
    long n = 0, r;
    while ((r = syscall(SYS_read, fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
        n += r;
    syscall(SYS_close, fd);
    buf[n] = 0;
    for (char *l = buf; *l;) {
        char *e;
        unsigned long s = strtoul(l, &e, 16), t = strtoul(e + 1, NULL, 16);
        if (t > addr)
            return s;
        l = strchr(l, '\n');
        if (!l)
            break;
        l++;
    }
    return 0;
}

static unsigned long stack_start(void)
{
    unsigned long sp = (unsigned long)__builtin_frame_address(0);
    return vma_start_above(sp);
}

static int pipe_with(const char *s, size_t n)
{
    int p[2];
    if (pipe(p))
        return -1;
    if (n)
        syscall(SYS_write, p[1], s, n);
    return p[0];
}

static void show(const char *what, long r)
{
    if (r < 0 && r > -4096)
        say("%s: -%ld\n", what, -r);
    else
        say("%s: %ld\n", what, r);
}

static long raw(long nr, long a, long b, long c)
{
    long r = syscall(nr, a, b, c);
    return r < 0 ? -errno : r;
}

/* A MAP_GROWSDOWN mapping of `pages` at the top of a free 16 MiB hole,
 * with `below` (prot, or -1 for none) mapped `dist` bytes below it. */
static unsigned long growsdown(int pages, int prot, int below_prot, unsigned long dist)
{
    char *hole = mmap(NULL, 16 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (hole == MAP_FAILED)
        return 0;
    munmap(hole, 16 << 20);
    unsigned long g = (unsigned long)hole + (15 << 20);
    if (mmap((void *)g, pages * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_FIXED,
             -1, 0) == MAP_FAILED)
        return 0;
    if (below_prot >= 0 &&
        mmap((void *)(g - dist - PAGE), PAGE, below_prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
             -1, 0) == MAP_FAILED)
        return 0;
    return g;
}

/* What [at, at + n) holds: "zeros", the pipe's text, or neither. */
static void bytes(const char *what, unsigned long at, size_t n, const char *text)
{
    if (vma_start_above(at) > at) {
        say("%s: not mapped\n", what);
        return;
    }
    const unsigned char *p = (const unsigned char *)at;
    size_t z = 0;
    while (z < n && !p[z])
        z++;
    if (z == n)
        say("%s: zeros\n", what);
    else if (text && !memcmp(p, text, n))
        say("%s: the text\n", what);
    else
        say("%s: other bytes\n", what);
}

static void grown(const char *what, unsigned long before, unsigned long probe)
{
    unsigned long now = vma_start_above(probe);
    if (now > before)
        say("%s: starts %lu pages higher\n", what, (now - before) / PAGE);
    else
        say("%s: grew %lu pages\n", what, (before - now) / PAGE);
}

static const char text[] = "0123456789abcdef";
static char text_buf[16];

static sigjmp_buf back;
static unsigned long fault_base;
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    say("signal %d code %d at base%+ld\n", sig, si->si_code,
        (long)((unsigned long)si->si_addr - fault_base));
    siglongjmp(back, 1);
}

/* Jump to `to` with the accumulator at a scratch byte: zeros there run as
 * `add %al, (%eax)`, harmlessly, up to the end of the mapping. */
static unsigned char scratch;
static void jump_to(unsigned long to)
{
#if defined(__x86_64__)
    __asm__ volatile("lea %0, %%rax\n jmp *%1" : : "m"(scratch), "r"(to) : "rax", "memory");
#else
    __asm__ volatile("lea %0, %%eax\n jmp *%1" : : "m"(scratch), "r"(to) : "eax", "memory");
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *c = argv[1];
    if (!strcmp(c, "read-main") || !strcmp(c, "read-main-deep") || !strcmp(c, "write-main")) {
        /* The frames to come stay well above the grown pages. */
        unsigned long s = stack_start();
        unsigned long at = !strcmp(c, "read-main-deep") ? s - 3 * PAGE + 100 : s - PAGE;
        int fd = pipe_with(text, 16);
        if (c[0] == 'w') {
            show("write", raw(SYS_write, fd + 1, (long)at, 16));
        } else {
            show("read", raw(SYS_read, fd, (long)at, 16));
        }
        bytes("below", at, 16, text);
        grown("[stack]", s, s);
    } else if (!strcmp(c, "read-main-gap")) {
        /* An accessible page within the guard gap below [stack]: the copy's
         * growth is refused (-EFAULT), as a store's would be; PROT_NONE
         * there keeps no gap. */
        unsigned long s = stack_start();
        int fd = pipe_with(text, 16);
        void *p = mmap((void *)(s - GAP / 2), PAGE, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        show("mmap", p == MAP_FAILED ? -errno : p == (void *)(s - GAP / 2) ? 0 : -1);
        show("read", raw(SYS_read, fd, (long)(s - PAGE), 8));
        grown("[stack]", s, s);
        show("mprotect none", raw(SYS_mprotect, (long)p, PAGE, PROT_NONE));
        show("read", raw(SYS_read, fd, (long)(s - PAGE), 8));
        bytes("below", s - PAGE, 8, text); /* the failed read took nothing */
        grown("[stack]", s, s);
    } else if (!strcmp(c, "exec-limits")) {
        /* RLIMIT_AS and RLIMIT_STACK outlive execve (argv[2]: this
         * program), and bind the new program's mappings and stack. */
        struct rlimit as = { 64 << 20, 64 << 20 }, st = { 256 << 10, RLIM_INFINITY };
        show("setrlimit", setrlimit(RLIMIT_AS, &as) || setrlimit(RLIMIT_STACK, &st) ? -errno : 0);
        execl(argv[2], argv[2], "exec-limits-after", (char *)0);
        show("execl", -errno);
    } else if (!strcmp(c, "exec-limits-after")) {
        void *p = mmap(NULL, 128 << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        show("mmap 128 MiB", p == MAP_FAILED ? -errno : 0);
        unsigned long s = stack_start();
        int fd = pipe_with(text, 16);
        show("read 512 KiB below", raw(SYS_read, fd, (long)(s - (512 << 10)), 8));
        grown("[stack]", s, s);
        show("read a page below", raw(SYS_read, fd, (long)(s - PAGE), 8));
        grown("[stack]", s, s);
    } else if (!strcmp(c, "read-rlimit")) {
        unsigned long s = stack_start();
        unsigned long end = s;
        /* [stack]'s end: the next line's start is not needed, its size is
         * end - start; RLIMIT_STACK set to its size plus two pages. */
        FILE *f = fopen("/proc/self/maps", "r");
        char line[512];
        while (f && fgets(line, sizeof(line), f))
            if (strtoul(line, NULL, 16) == s)
                end = strtoul(strchr(line, '-') + 1, NULL, 16);
        if (f)
            fclose(f);
        struct rlimit rl = { end - s + 2 * PAGE, RLIM_INFINITY };
        show("setrlimit", setrlimit(RLIMIT_STACK, &rl) ? -errno : 0);
        int fd = pipe_with(text, 16);
        show("read 3 pages below", raw(SYS_read, fd, (long)(s - 3 * PAGE), 16));
        grown("[stack]", s, s);
        show("read 2 pages below", raw(SYS_read, fd, (long)(s - 2 * PAGE), 16));
        bytes("below", s - 2 * PAGE, 16, text);
        grown("[stack]", s, s);
    } else if (!strncmp(c, "read-gd", 7) || !strcmp(c, "readv-gd")) {
        bool ro = !strcmp(c, "read-gd-ro");
        int below = !strcmp(c, "read-gd-gap")       ? PROT_READ
                    : !strcmp(c, "read-gd-gapnone") ? PROT_NONE
                                                    : -1;
        unsigned long g = growsdown(2, ro ? PROT_READ : PROT_READ | PROT_WRITE, below, GAP / 2);
        if (!g)
            return 3;
        int fd = pipe_with(text, 16);
        if (!strcmp(c, "read-gd-eof")) {
            /* Nothing to copy: the end of the file, no fault, no growth. */
            syscall(SYS_close, fd + 1);
            syscall(SYS_read, fd, text_buf, 16);
        } else if (!strcmp(c, "read-gd-null")) {
            fd = (int)syscall(SYS_open, "/dev/null", O_RDONLY);
        } else if (!strcmp(c, "read-gd-dir")) {
            fd = (int)syscall(SYS_open, "/", O_RDONLY | O_DIRECTORY);
        } else if (!strcmp(c, "read-gd-file")) {
            fd = (int)syscall(SYS_open, argc > 2 ? argv[2] : argv[0], O_RDONLY);
            lseek(fd, 0, SEEK_END);
        }
        if (c[4] == 'v') {
            struct iovec iov[2] = { { (void *)(g - 2 * PAGE + 4000), 8 }, { (void *)(g + 8), 8 } };
            show("readv", raw(SYS_readv, fd, (long)iov, 2));
            bytes("first", g - 2 * PAGE + 4000, 8, text);
            bytes("second", g + 8, 8, text + 8);
        } else {
            show("read", raw(SYS_read, fd, (long)(g - PAGE), 16));
            bytes("below", g - PAGE, 16, text);
        }
        grown("growsdown", g, g);
        show("mprotect 2 pages below", raw(SYS_mprotect, (long)(g - 2 * PAGE), PAGE, PROT_READ));
    } else if (!strcmp(c, "read-file-deep")) {
        /* The same once the mapping has grown by a store (the engines'
         * reserve below it), then a store deeper after the read. */
        unsigned long g = growsdown(2, PROT_READ | PROT_WRITE, -1, 0);
        if (!g)
            return 3;
        *(volatile char *)(g - PAGE) = 7;
        int fd = (int)syscall(SYS_open, argc > 2 ? argv[2] : argv[0], O_RDONLY);
        lseek(fd, 0, SEEK_END);
        show("read", raw(SYS_read, fd, (long)(g - 3 * PAGE), 16));
        grown("growsdown", g, g);
        show("mprotect 2 pages below", raw(SYS_mprotect, (long)(g - 2 * PAGE), PAGE, PROT_READ));
        *(volatile char *)(g - 4 * PAGE) = 8;
        grown("growsdown", g, g);
        say("stored: %d %d\n", *(volatile char *)(g - PAGE), *(volatile char *)(g - 4 * PAGE));
        show("mprotect 5 pages below", raw(SYS_mprotect, (long)(g - 5 * PAGE), PAGE, PROT_READ));
    } else if (!strcmp(c, "stat-gd")) {
        unsigned long g = growsdown(1, PROT_READ | PROT_WRITE, -1, 0);
        unsigned long at = g - sizeof(struct stat) / 2;
        show("fstat", raw(SYS_fstat, 0, (long)at, 0));
        grown("growsdown", g, g);
    } else if (!strcmp(c, "path-gd")) {
        unsigned long g = growsdown(1, PROT_READ | PROT_WRITE, -1, 0);
        /* The string starts below, its NUL is the mapping's first byte:
         * the empty path below is read first (ENOENT once read). */
        show("open", raw(SYS_open, (long)(g - 1), O_RDONLY, 0));
        grown("growsdown", g, g);
        show("open", raw(SYS_open, (long)(g - 2 * PAGE - 8), O_RDONLY, 0));
        grown("growsdown", g, g);
    } else if (!strcmp(c, "futex-gd")) {
        unsigned long g = growsdown(1, PROT_READ | PROT_WRITE, -1, 0);
        long op = FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 0);
        long r = syscall(SYS_futex, (long)(g + 64), FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, 1,
                         (long)(g - PAGE), op);
        show("futex wake_op", r < 0 ? -errno : r);
        grown("growsdown", g, g);
        r = syscall(SYS_futex, (long)(g - 2 * PAGE), FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 1, NULL, 0, 0);
        show("futex wait", r < 0 ? -errno : r);
        grown("growsdown", g, g);
        /* A shared key: get_futex_key's get_user_pages_fast */
        r = syscall(SYS_futex, (long)(g - 3 * PAGE), FUTEX_WAIT, 1, NULL, 0, 0);
        show("futex wait shared", r < 0 ? -errno : r);
        grown("growsdown", g, g);
    } else if (!strcmp(c, "jump-gd") || !strcmp(c, "jump-gd-exec")) {
        bool x = c[7] == '-';
        unsigned long g = growsdown(1, PROT_READ | PROT_WRITE | (x ? PROT_EXEC : 0), -1, 0);
        struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };
        sigaction(SIGSEGV, &sa, NULL);
        fault_base = g;
        if (!sigsetjmp(back, 1))
            jump_to(g - PAGE + 16);
        grown("growsdown", g, g);
    } else {
        return 2;
    }
    return 0;
}
