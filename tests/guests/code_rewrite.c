/* Code that changes under the guest's feet: translated blocks must not
 * outlive the bytes they were made from.  The guest runs a function from a
 * writable, executable page, then replaces its body four ways and calls it
 * after each: with its own stores (the CPU sees them), with read() and with
 * readv() from stdin (the host writes the page, the CPU does not see it),
 * with a read() that lands on the second of two pages, and with pread().  Each call
 * prints what the body it ran returned.  stdin: tests/diff/data/ret_codes.bin,
 * four 6-byte bodies "mov $N, %eax; ret" with N = 42, 43, 44, 45.
 * With the argument "wx" it rewrites code the way a W^X JIT does instead:
 * a page executable and not writable, made writable and not executable,
 * rewritten by the guest's stores, made executable again and called; then
 * the same with the rewrite done by read() and by a store of a page that
 * stayed executable throughout (PROT_READ|PROT_WRITE|PROT_EXEC). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { BODY = 6 };

static void body_returning(unsigned char *at, int value)
{
    unsigned char code[BODY] = { 0xb8, 0, 0, 0, 0, 0xc3 };  /* mov $value, %eax; ret */
    memcpy(code + 1, &value, 4);
    memcpy(at, code, BODY);
}

static int call(unsigned char *at)
{
    int (*fn)(void) = (int (*)(void))(void *)at;
    return fn();
}

static int wx(long page)
{
    unsigned char *code = mmap(NULL, page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        printf("mmap failed\n");
        return 1;
    }
    body_returning(code, 1);
    printf("mprotect rx: %d\n", mprotect(code, page, PROT_READ | PROT_EXEC));
    printf("first body: %d\n", call(code));
    printf("again (translated): %d\n", call(code));
    for (int round = 2; round <= 4; round++) {
        printf("mprotect rw: %d\n", mprotect(code, page, PROT_READ | PROT_WRITE));
        if (round == 3) {
            body_returning(code, 0);        /* a stale translation would give 2 */
            printf("read: %zd\n", read(0, code, BODY));
        } else {
            body_returning(code, round);
        }
        printf("mprotect rx: %d\n", mprotect(code, page, PROT_READ | PROT_EXEC));
        printf("after round %d: %d\n", round, call(code));
    }
    printf("mprotect rwx: %d\n", mprotect(code, page, PROT_READ | PROT_WRITE | PROT_EXEC));
    printf("still: %d\n", call(code));
    body_returning(code, 5);
    printf("after a store while executable: %d\n", call(code));
    fflush(stdout);
    syscall(SYS_exit, 0);
    return 1;
}

int main(int argc, char **argv)
{
    long page = sysconf(_SC_PAGESIZE);
    if (argc > 1 && strcmp(argv[1], "wx") == 0)
        return wx(page);
    unsigned char *code = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        printf("mmap failed\n");
        return 1;
    }
    body_returning(code, 1);
    printf("first body: %d\n", call(code));
    printf("again (translated): %d\n", call(code));
    body_returning(code, 2);
    printf("after own stores: %d\n", call(code));
    printf("read: %zd\n", read(0, code, BODY));
    printf("after read: %d\n", call(code));
    struct iovec iov[2] = { { code, 2 }, { code + 2, BODY - 2 } };
    printf("readv: %zd\n", readv(0, iov, 2));
    printf("after readv: %d\n", call(code));
    unsigned char *second = code + page;
    body_returning(second, 3);
    printf("second page: %d\n", call(second));
    printf("read: %zd\n", read(0, second, BODY));
    printf("after read on the second page: %d\n", call(second));
    printf("first page still: %d\n", call(code));
    printf("pread of the fourth: %zd\n", pread(0, code, BODY, 3 * BODY));
    printf("after pread: %d\n", call(code));
    fflush(stdout);
    syscall(SYS_exit, 0);
    return 1;
}
