/* The fast 32-bit entries (i386 guest only), each used through the
 * __kernel_vsyscall stack convention (probes.S), and the vDSO's own
 * __kernel_vsyscall found through AT_SYSINFO.  Vendor rules (SPEC 5):
 *   sysenter:       Intel compat entry; AMD #UD -> SIGILL.
 *   32-bit syscall: AMD compat entry (arg2 in ebp); Intel #UD -> SIGILL.
 * Diff runs use --cpu=host; fixed-vendor runs are emu-only expectations.
 * Output goes through int $0x80 so only the entry under test varies. */
#include "linux_sys.h"

#define AT_SYSINFO_LINUX 32

static const char msg[] = "fast-entry write\n";
static char buf[128];

/* The kernel returns to the landing pad, which restores ecx, edx, ebp;
 * "+c"/"+d" let us check that they came back unchanged. */
#define FAST3(entry, nr, a, b, c, okp)                                         \
    ({                                                                         \
        long r_, b_ = (long)(b), c_ = (long)(c);                               \
        __asm__ volatile("call " entry                                         \
                         : "=a"(r_), "+c"(b_), "+d"(c_)                        \
                         : "a"(nr), "b"(a) : "memory");                        \
        *(okp) = b_ == (long)(b) && c_ == (long)(c);                           \
        r_;                                                                    \
    })

static unsigned long find_auxv(char **argv, int argc, unsigned long type)
{
    char **p = argv + argc + 1;
    while (*p)
        p++;
    for (unsigned long *a = (unsigned long *)(p + 1); a[0]; a += 2)
        if (a[0] == type)
            return a[1];
    return 0;
}

static long via_vdso(unsigned long vsys, long nr, long a, long b, long c)
{
    long r;
    __asm__ volatile("call *%[v]" : "=a"(r) : [v] "r"(vsys), "a"(nr), "b"(a), "c"(b), "d"(c)
                     : "memory");
    return r;
}

static int run_entry(int is_sysenter, const char *what)
{
    int ok = 0;
    long r;
    put_kv("enter strict", enter_strict());
    put_str(is_sysenter ? "calling sysenter\n" : "calling 32-bit syscall\n");
    if (str_eq(what, "write")) {
        r = is_sysenter ? FAST3("vsys_sysenter", NR_write_I386_LINUX, 1, msg, sizeof msg - 1, &ok)
                        : FAST3("vsys_syscall32", NR_write_I386_LINUX, 1, msg, sizeof msg - 1, &ok);
        put_kv("write", r);
        put_kv("ecx, edx preserved", ok);
    } else if (str_eq(what, "read")) {  /* arg2 (the buffer) must come via ebp */
        r = is_sysenter ? FAST3("vsys_sysenter", NR_read_I386_LINUX, 0, buf, sizeof buf, &ok)
                        : FAST3("vsys_syscall32", NR_read_I386_LINUX, 0, buf, sizeof buf, &ok);
        put_kv("read", r);
        if (r > 0)
            sys3(NR_write_I386_LINUX, 1, (long)buf, r);
    } else if (str_eq(what, "getpid")) {
        r = is_sysenter ? FAST3("vsys_sysenter", NR_getpid_I386_LINUX, 0, 0, 0, &ok)
                        : FAST3("vsys_syscall32", NR_getpid_I386_LINUX, 0, 0, 0, &ok);
        (void)r;
        put_str("survived getpid\n");
        return 1;
    }
    /* Exit through the same entry, with a status that says so. */
    if (is_sysenter)
        FAST3("vsys_sysenter", NR_exit_I386_LINUX, 5, 0, 0, &ok);
    else
        FAST3("vsys_syscall32", NR_exit_I386_LINUX, 6, 0, 0, &ok);
    put_str("survived exit\n");
    return 1;
}

int guest_main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (str_eq(c, "sysenter_write"))
        return run_entry(1, "write");
    if (str_eq(c, "sysenter_read"))
        return run_entry(1, "read");
    if (str_eq(c, "sysenter_getpid"))
        return run_entry(1, "getpid");
    if (str_eq(c, "syscall32_write"))
        return run_entry(0, "write");
    if (str_eq(c, "syscall32_read"))
        return run_entry(0, "read");
    if (str_eq(c, "syscall32_getpid"))
        return run_entry(0, "getpid");
    if (str_eq(c, "vdso")) {          /* whatever entry the vDSO picked */
        unsigned long vs = find_auxv(argv, argc, AT_SYSINFO_LINUX);
        put_kv("AT_SYSINFO present", vs != 0);
        if (!vs)
            return 1;
        put_kv("enter strict via vdso",
               via_vdso(vs, NR_prctl_I386_LINUX, PR_SET_SECCOMP_LINUX, 1, 0));
        put_kv("write via vdso", via_vdso(vs, NR_write_I386_LINUX, 1, (long)msg, sizeof msg - 1));
        via_vdso(vs, NR_exit_I386_LINUX, 4, 0, 0);
        return 1;
    }
    if (str_eq(c, "vdso_getpid")) {
        unsigned long vs = find_auxv(argv, argc, AT_SYSINFO_LINUX);
        put_kv("AT_SYSINFO present", vs != 0);
        if (!vs)
            return 1;
        put_kv("getpid via vdso > 0", via_vdso(vs, NR_getpid_I386_LINUX, 0, 0, 0) > 0);
        put_kv("enter strict", enter_strict());
        via_vdso(vs, NR_getpid_I386_LINUX, 0, 0, 0);
        put_str("survived getpid via vdso\n");
        return 1;
    }
    put_str("unknown case\n");
    return 99;
}
