/* Code that changes under the guest's feet: translated blocks must not
 * outlive the bytes they were made from.  The guest runs a function from a
 * writable, executable page, then replaces its body four ways and calls it
 * after each: with its own stores (the CPU sees them), with read() and with
 * readv() from stdin (the host writes the page, the CPU does not see it),
 * with a read() that lands on the second of two pages, and with pread().  Each call
 * prints what the body it ran returned.  stdin: tests/diff/data/ret_codes.bin,
 * four 6-byte bodies "mov $N, %eax; ret" with N = 42, 43, 44, 45. */
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

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
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
