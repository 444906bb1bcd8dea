/* int $0x80 from 64-bit code (x86_64 guest only).  This entry uses the
 * ia32 table and ia32 registers cut to 32 bits, whatever the task is:
 * a .data buffer (below 4 GiB in this non-PIE binary) works, a stack
 * buffer (above 4 GiB) becomes a bad pointer. */
#include "linux_sys.h"

static char data_msg[] = "written by int 0x80 from .data\n";
static char data_buf[128];

static int strict_or_die(void)
{
    long r = enter_strict();
    put_kv("enter strict", r);
    return r == 0;
}

int guest_main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";

    if (str_eq(c, "write_data")) {
        strict_or_die();
        put_kv("int80 write(.data)",
               int80_3(NR_write_I386_LINUX, 1, (long)data_msg, sizeof data_msg - 1));
        return 0;
    }
    if (str_eq(c, "write_stack")) {    /* -EFAULT: pointer cut to 32 bits */
        char stack_msg[] = "written from the stack\n";
        put_kv("stack buffer above 4 GiB", (unsigned long)stack_msg > 0xffffffffUL);
        strict_or_die();
        put_kv("int80 write(stack)",
               int80_3(NR_write_I386_LINUX, 1, (long)stack_msg, sizeof stack_msg - 1));
        return 0;
    }
    if (str_eq(c, "upper_bits")) {     /* upper halves of eax..edx are ignored */
        strict_or_die();
        put_kv("int80 write(upper bits set)",
               int80_3(0xdead00000000L | NR_write_I386_LINUX, (long)0xffffffff00000001UL,
                       0x100000000L | (long)data_msg, 0x700000000L | (sizeof data_msg - 1)));
        return 0;
    }
    if (str_eq(c, "read")) {
        long n;
        strict_or_die();
        n = int80_3(NR_read_I386_LINUX, 0, (long)data_buf, sizeof data_buf);
        put_kv("int80 read", n);
        if (n > 0)
            sys3(NR_write_X86_64_LINUX, 1, (long)data_buf, n);
        return 0;
    }
    if (str_eq(c, "exit")) {           /* ia32 1 is exit, not write */
        strict_or_die();
        int80_3(NR_exit_I386_LINUX, 42, 0, 0);
        put_str("survived int80 exit\n");
        return 1;
    }
    if (str_eq(c, "getpid")) {
        put_kv("int80 getpid > 0 before strict", int80_3(NR_getpid_I386_LINUX, 0, 0, 0) > 0);
        strict_or_die();
        int80_3(NR_getpid_I386_LINUX, 0, 0, 0);
        put_str("survived int80 getpid\n");
        return 1;
    }
    if (str_eq(c, "nr60")) {           /* 60 is exit on `syscall`, umask here */
        strict_or_die();
        int80_3(60, 0, 0, 0);
        put_str("survived int80 60 (umask)\n");
        return 1;
    }
    if (str_eq(c, "exit_group")) {
        strict_or_die();
        int80_3(NR_exit_group_I386_LINUX, 3, 0, 0);
        put_str("survived int80 exit_group\n");
        return 1;
    }
    if (str_eq(c, "int81")) {          /* not a system call gate: #GP, SIGSEGV */
        put_str("int $0x81, no strict mode\n");
        __asm__ volatile("int $0x81" ::: "memory");
        put_str("survived int $0x81\n");
        return 1;
    }
    if (str_eq(c, "sysenter64")) {     /* AMD: #UD, SIGILL; Intel: the ia32 entry, then SIGSEGV */
        put_str("sysenter from 64-bit code, no strict mode\n");
        __asm__ volatile("sysenter" ::: "memory", "rcx", "r11");
        put_str("survived sysenter\n");
        return 1;
    }
    put_str("unknown case\n");
    return 99;
}
