/* read and write error answers in strict mode.  The allowed calls must
 * still fail exactly as the kernel fails them; the answer depends on the
 * file type (the diff gives stdout/stderr as pipes and stdin as /dev/null
 * or a regular file), so both stdins are run.  Setup before strict: one RW
 * page `p` with a hole after it, filled with 64-byte lines. */
#include "linux_sys.h"

#if defined(__x86_64__)
#define KERNEL_ADDR 0xffff800000000000UL
/* 16 MiB: far past the buffer, yet buf + count stays below TASK_SIZE in
 * both the randomised native layout and seccomp-emu's fixed one (that of
 * randomize_va_space=0, where mmap sits just under the stack). */
#define HUGE_COUNT  0x1000000UL
#else
#define KERNEL_ADDR 0xfffff000UL
#define HUGE_COUNT  0x7fffffffUL
#endif

static char buf[64];

static long wr(int fd, const void *p, unsigned long n)
{
    return sys3(NR_(write), fd, (long)p, (long)n);
}

static long rd(int fd, void *p, unsigned long n)
{
    return sys3(NR_(read), fd, (long)p, (long)n);
}

static char *setup(void)
{
    char *p = map_pages(2);
    if (!p)
        return 0;
    sys3(NR_(munmap), (long)(p + PAGE_SIZE_LINUX), PAGE_SIZE_LINUX, 0);
    for (int i = 0; i < PAGE_SIZE_LINUX; i++)
        p[i] = (i & 63) == 63 ? '\n' : (char)('a' + (i >> 6) % 26);
    put_kv("enter strict", enter_strict());
    return p;
}

static void writes(char *p)
{
    char *end = p + PAGE_SIZE_LINUX;
    put_kv("write(99)", wr(99, "x\n", 2));
    put_kv("write(-1)", wr(-1, "x\n", 2));
    put_kv("write(0) read-only stdin", wr(0, "x\n", 2));
    put_kv("write(bad ptr 8)", wr(1, (void *)8, 3));
    put_kv("write(kernel ptr)", wr(1, (void *)KERNEL_ADDR, 3));
    put_kv("write(NULL, 0)", wr(1, 0, 0));
    put_kv("write(bad ptr, 0)", wr(1, (void *)8, 0));
    put_kv("write(99, NULL, 0)", wr(99, 0, 0));
    put_kv("write(count -1)", wr(1, p, (unsigned long)-1));
    put_str("-- straddling write:\n");
    put_kv("write(last 5 bytes + hole)", wr(1, end - 5, 10));
    put_str("-- huge count write:\n");
    put_kv("write(page, huge)", wr(1, p, HUGE_COUNT));
#if !defined(__x86_64__)
    put_str("-- count 0xffffffff:\n");
    put_kv("write(page, 0xffffffff)", wr(1, p, 0xffffffffUL));
#endif
}

static void reads(char *p)
{
    char *end = p + PAGE_SIZE_LINUX;
    long n;
    put_kv("read(99)", rd(99, buf, 4));
    put_kv("read(1) write-only pipe", rd(1, buf, 4));
    put_kv("read(NULL, 0)", rd(0, 0, 0));
    put_kv("read(bad ptr 8)", rd(0, (void *)8, 5));
    put_kv("read(kernel ptr)", rd(0, (void *)KERNEL_ADDR, 5));
    n = rd(0, end - 5, 10);
    put_kv("read(into last 5 bytes + hole)", n);
    if (n > 0)
        wr(1, end - 5, (unsigned long)n), put_str("\n");
    n = rd(0, p, HUGE_COUNT);
    put_kv("read(page, huge)", n);
    if (n > 0)
        wr(1, p, (unsigned long)n);
    put_kv("read at EOF", rd(0, buf, sizeof buf));
    put_kv("read at EOF again", rd(0, buf, sizeof buf));
}

int guest_main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    char *p = setup();
    if (!p) {
        put_str("setup failed\n");
        return 98;
    }
    if (str_eq(c, "write"))
        writes(p);
    else if (str_eq(c, "read"))
        reads(p);
    else {
        put_str("unknown case\n");
        return 99;
    }
    return 0;
}
