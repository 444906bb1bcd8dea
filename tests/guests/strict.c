/* The strict-mode whitelist on the guest's native entry (64-bit `syscall`
 * for strict64, int $0x80 for strict32).  argv[1] picks one case; each case
 * ends in exactly one way (an exit code or a kill), so the native run under
 * the real kernel is the judge.  Output before a kill must still appear. */
#include "linux_sys.h"

static const char msg[] = "allowed write\n";
static char buf[256];
static unsigned char frame[1024] __attribute__((aligned(64)));

void sigreturn_probe(void *frame, unsigned long *out);

#if defined(__x86_64__)
/* Raw `syscall` with a full 64-bit rax, to show which bits the kernel reads. */
static long syscall_rax(unsigned long rax, long a, long b, long c)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(rax), "D"(a), "S"(b), "d"(c)
                     : "rcx", "r11", "memory");
    return r;
}
#endif

/* A forbidden number: print what it does before strict (-ENOSYS for numbers
 * outside the table), then call it in strict mode, which must kill. */
static int forbidden_number(long nr)
{
    put_kv("before strict", sys3(nr, 1, (long)msg, sizeof msg - 1));
    put_kv("enter strict", enter_strict());
    sys3(nr, 1, (long)msg, sizeof msg - 1);
    put_str("survived a forbidden number\n");
    return 1;
}

static int sigreturn_frame(void)
{
    unsigned long out[9] = { 0 };
    put_kv("enter strict", enter_strict());
    sigreturn_probe(frame + 16, out);
    put_str("resumed after sigreturn\n");
    put_kvx("ax", out[0]);
#if defined(__x86_64__)
    put_kvx("di", out[1]);
    put_kvx("dx", out[2]);
    put_kvx("r10", out[3]);
    put_kvx("r8", out[4]);
    put_kvx("r9", out[5]);
    put_kvx("cx", out[6]);
    put_kvx("r11", out[7]);
    put_kvx("flags", out[8]);
#else
    put_kvx("dx", out[1]);
    put_kvx("cx", out[2]);
    put_kvx("flags", out[3]);
#endif
    return 0;
}

/* All-zero frame: the kernel rejects it (bad altstack / null selectors)
 * and the task dies of SIGSEGV. */
static int sigreturn_zero(void)
{
    put_kv("enter strict", enter_strict());
#if defined(__x86_64__)
    __asm__ volatile("mov %0, %%rsp\n\tmov $15, %%eax\n\tsyscall\n\tud2"
                     : : "r"(frame + 16) : "memory");
#else
    __asm__ volatile("mov %0, %%esp\n\tmov $119, %%eax\n\tint $0x80\n\tud2"
                     : : "r"(frame + 16) : "memory");
#endif
    return 1;
}

int guest_main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (str_eq(c, "nostrict")) {       /* never enters strict itself: for */
        sys3(NR_(write), 1, (long)msg, sizeof msg - 1);   /* seccomp-emu --strict */
        put_kv("getpid > 0", sys3(NR_(getpid), 0, 0, 0) > 0);
        return 0;
    }
    if (str_eq(c, "rw")) {             /* read and write are allowed */
        long n;
        put_kv("enter strict", enter_strict());
        sys3(NR_(write), 1, (long)msg, sizeof msg - 1);
        n = sys3(NR_(read), 0, (long)buf, sizeof buf);
        put_kv("read", n);
        if (n > 0)
            sys3(NR_(write), 1, (long)buf, n);
        return 0;
    }
    if (str_eq(c, "exit7")) {          /* exit keeps its status */
        put_kv("enter strict", enter_strict());
        sys_exit(7);
    }
    if (str_eq(c, "exit_trunc")) {     /* only the low 8 bits survive */
        put_kv("enter strict", enter_strict());
        sys_exit(0x12345);
    }
    if (str_eq(c, "exit_group")) {     /* exit_group is not exit: SIGKILL */
        put_kv("enter strict", enter_strict());
        sys3(NR_(exit_group), 3, 0, 0);
        put_str("survived exit_group\n");
        return 1;
    }
    if (str_eq(c, "getpid")) {
        put_kv("getpid > 0 before strict", sys3(NR_(getpid), 0, 0, 0) > 0);
        put_kv("enter strict", enter_strict());
        sys3(NR_(getpid), 0, 0, 0);
        put_str("survived getpid\n");
        return 1;
    }
    if (str_eq(c, "nr_neg"))
        return forbidden_number(-1);
    if (str_eq(c, "nr_huge"))
        return forbidden_number(100000);
    if (str_eq(c, "nr_intmax"))
        return forbidden_number(0x7fffffff);
    if (str_eq(c, "sigreturn_frame"))  /* the allowed sigreturn resumes */
        return sigreturn_frame();
    if (str_eq(c, "sigreturn_zero"))
        return sigreturn_zero();
#if defined(__x86_64__)
    if (str_eq(c, "x32_write")) {      /* x32 is checked on the ia32 list */
        put_kv("enter strict", enter_strict());
        syscall_rax(X32_BIT_LINUX | NR_write_X86_64_LINUX, 1, (long)msg, sizeof msg - 1);
        put_str("survived x32 write\n");
        return 1;
    }
    if (str_eq(c, "rax_hi")) {         /* low 32 bits are the number: write */
        put_kv("enter strict", enter_strict());
        put_kv("rax=0x100000001", syscall_rax(0x100000001UL, 1, (long)msg, sizeof msg - 1));
        put_kv("rax=0xffffffff00000001",
               syscall_rax(0xffffffff00000001UL, 1, (long)msg, sizeof msg - 1));
        return 0;
    }
    if (str_eq(c, "rax_neg32")) {      /* (int)0xffffffff = -1: outside */
        put_kv("enter strict", enter_strict());
        syscall_rax(0xffffffffUL, 1, (long)msg, sizeof msg - 1);
        put_str("survived rax=0xffffffff\n");
        return 1;
    }
    if (str_eq(c, "ia32_number")) {    /* 4 on this entry is stat: kill */
        put_kv("enter strict", enter_strict());
        sys3(NR_write_I386_LINUX, 1, (long)msg, sizeof msg - 1);
        put_str("survived ia32 number on syscall\n");
        return 1;
    }
#else
    if (str_eq(c, "rt_sigreturn")) {   /* 173 is not on the ia32 list */
        put_kv("enter strict", enter_strict());
        sys3(NR_rt_sigreturn_I386_LINUX, 0, 0, 0);
        put_str("survived rt_sigreturn\n");
        return 1;
    }
    if (str_eq(c, "x86_64_number")) {  /* 1 on this entry is exit, not write */
        put_kv("enter strict", enter_strict());
        sys3(NR_write_X86_64_LINUX, 5, (long)msg, sizeof msg - 1);
        put_str("survived: 1 was not exit\n");
        return 1;
    }
    if (str_eq(c, "x86_64_forbidden")) { /* 60 on this entry is umask */
        put_kv("enter strict", enter_strict());
        sys3(NR_exit_X86_64_LINUX, 0, 0, 0);
        put_str("survived umask\n");
        return 1;
    }
#endif
    put_str("unknown case\n");
    return 99;
}
