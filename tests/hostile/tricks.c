/* CPU-level attacks on the emulator, each compared with the real kernel:
 * `int` with other vectors, privileged instructions, iret/lret tricks, far
 * transfers into the other code segment, self-modifying code, executing
 * data, writes to code, pointers aimed at seccomp-emu's own page, pointer
 * plus count wrapping, huge counts, stack exhaustion, memory and output
 * floods.  `tricks ACTION [strict]`: with "strict" the action runs after
 * prctl(PR_SET_SECCOMP, 1).  Each prints what it sees; a fault ends it. */
#include "hguest.h"

/* Operand-size suffix and register names for asm shared by both ABIs. */
#if defined(__x86_64__)
#define W "q"
#define SP "rsp"
#define AX "rax"
#define CLOB_AX "rax"
#define RIPREL "(%%rip)"
#define USER_CS "0x33"
#else
#define W "l"
#define SP "esp"
#define AX "eax"
#define CLOB_AX "eax"
#define RIPREL ""
#define USER_CS "0x23"
#endif

static char data_code[16] = { (char)0xc3 }; /* `ret`, in a non-executable page */
static char bss_tail[4096] __attribute__((aligned(4096)));
static char buf[4096];

/* One stub per vector: `int $N; ret`. */
#define INT_STUB(n) \
    __asm__(".text\n.globl int_" #n "\nint_" #n ":\n int $" #n "\n ret\n"); \
    void int_##n(void);
INT_STUB(1) INT_STUB(3) INT_STUB(4) INT_STUB(5) INT_STUB(6) INT_STUB(8) INT_STUB(13)
INT_STUB(14) INT_STUB(32) INT_STUB(46) INT_STUB(128) INT_STUB(129) INT_STUB(255)
INT_STUB(2) INT_STUB(7) INT_STUB(16) INT_STUB(31) INT_STUB(127) INT_STUB(130)

static const struct {
    const char *name;
    void (*fn)(void);
} int_stubs[] = {
    { "int1", int_1 },   { "int3", int_3 },   { "int4", int_4 },     { "int5", int_5 },
    { "int6", int_6 },   { "int8", int_8 },   { "int13", int_13 },   { "int14", int_14 },
    { "int32", int_32 }, { "int46", int_46 }, { "int129", int_129 }, { "int255", int_255 },
    { "int2", int_2 },   { "int7", int_7 },   { "int16", int_16 },   { "int31", int_31 },
    { "int127", int_127 }, { "int130", int_130 },
};

static void far_other_segment(const char *how);
static int flag_trick(const char *a);
__attribute__((noinline, used)) void text_target(void) { __asm__ volatile(""); }

/* Some actions in asm: each is one instruction the CPU must refuse at CPL 3. */
static void insn(const char *a)
{
    if (h_streq(a, "int3_short"))
        __asm__ volatile(".byte 0xcc");
    else if (h_streq(a, "icebp"))
        __asm__ volatile(".byte 0xf1");
    else if (h_streq(a, "ud2"))
        __asm__ volatile("ud2");
    else if (h_streq(a, "hlt"))
        __asm__ volatile("hlt");
    else if (h_streq(a, "cli"))
        __asm__ volatile("cli");
    else if (h_streq(a, "inb"))
        __asm__ volatile("xor %%edx, %%edx\n inb %%dx, %%al" ::: "eax", "edx");
    else if (h_streq(a, "wrmsr"))
        __asm__ volatile("xor %%eax, %%eax\n xor %%edx, %%edx\n mov $0x176, %%ecx\n wrmsr" ::
                             : "eax", "ecx", "edx");
    else if (h_streq(a, "rdmsr"))
        __asm__ volatile("mov $0x176, %%ecx\n rdmsr" ::: "eax", "ecx", "edx");
    else if (h_streq(a, "lgdt")) {
        static char gdtr[10];
        __asm__ volatile("lgdt %0" ::"m"(gdtr));
    } else if (h_streq(a, "mov_cr4"))
        __asm__ volatile("xor %%eax, %%eax\n mov %%" AX ", %%cr4" ::: "eax");
    else if (h_streq(a, "rdtsc")) {
        unsigned lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        out("rdtsc ran\n");
    } else if (h_streq(a, "popf_tf"))
        /* Trap flag on: a debug trap after the next instruction. */
        __asm__ volatile("pushf\n or" W " $0x100, (%%" SP ")\n popf\n nop\n"
                         ::: "memory", "cc");
    else if (h_streq(a, "lret_kcs"))
        /* A far return to the kernel's code segment: #GP. */
        __asm__ volatile("push" W " $0x10\n push" W " $1f\n"
                         " lret" W "\n1:" ::: "memory");
    else if (h_streq(a, "iret_kcs"))
        __asm__ volatile(
#if defined(__x86_64__)
            "mov %%rsp, %%rax\n pushq $0x2b\n push %%rax\n pushfq\n pushq $0x10\n pushq $1f\n iretq\n1:"
            ::: "rax", "memory"
#else
            "pushf\n pushl $0x10\n pushl $1f\n iret\n1:" ::: "memory"
#endif
        );
    else if (h_streq(a, "iret_kpage"))
        /* A user-mode iret straight onto seccomp-emu's entry stub. */
        __asm__ volatile(
#if defined(__x86_64__)
            "mov %%rsp, %%rax\n pushq $0x2b\n push %%rax\n pushfq\n pushq $0x33\n"
            " movabs $0x800000000100, %%rax\n push %%rax\n iretq" ::: "rax", "memory"
#else
            "pushf\n pushl $0x23\n pushl $0xfffff100\n iret" ::: "memory"
#endif
        );
    else if (h_streq(a, "jmp_kpage"))
        ((void (*)(void))(EMU_KPAGE + 0x100))();
    else if (h_streq(a, "jmp_kpage_iret"))
        ((void (*)(void))(EMU_KPAGE + 0x200))();
    else if (h_streq(a, "read_kpage")) {
        volatile unsigned *p = (volatile unsigned *)EMU_KPAGE;
        out_hex(p[0]);
        out(" read from the kernel page\n");
    } else if (h_streq(a, "write_kpage"))
        *(volatile unsigned *)(EMU_KPAGE + 0x100) = 0x90909090;
    else if (h_streq(a, "exec_data"))
        ((void (*)(void))data_code)();
    else if (h_streq(a, "exec_stack")) {
        volatile char code[16] = { (char)0xc3 };
        ((void (*)(void))code)();
    } else if (h_streq(a, "write_text"))
        *(volatile char *)(void *)text_target = (char)0xc3;
    else if (h_streq(a, "write_rodata"))
        *(volatile char *)(void *)"a string in .rodata" = 'A';
    else if (flag_trick(a))
        return;
    else {
        for (ulong i = 0; i < sizeof(int_stubs) / sizeof(int_stubs[0]); i++)
            if (h_streq(a, int_stubs[i].name)) {
                int_stubs[i].fn();
                return;
            }
        far_other_segment(a);
    }
}

/* Code built at run time in a writable, executable page. */
static long run_code(unsigned char *page, const unsigned char *code, ulong n)
{
    for (ulong i = 0; i < n; i++)
        page[i] = code[i];
    return ((long (*)(void))page)();
}

static int late_strict; /* strict mode after the page is mapped */

static long smc(const char *a)
{
    if (!h_streq(a, "smc") && !h_streq(a, "smc_next") && !h_streq(a, "smc_syscall") &&
        !h_streq(a, "exec_rw") && !h_streq(a, "exec_mprotect") && !h_streq(a, "exec_after_munmap"))
        return -9999;
    unsigned char *p = h_mmap(4096, PROT_READ_LINUX | PROT_WRITE_LINUX | PROT_EXEC_LINUX);
    if ((long)p < 0 && (long)p > -4096)
        return (long)p;
    /* mov $imm32, %eax; ret */
    unsigned char one[] = { 0xb8, 1, 0, 0, 0, 0xc3 };
    if (h_streq(a, "smc")) {
        long r1 = run_code(p, one, sizeof(one));
        one[1] = 2;
        long r2 = run_code(p, one, sizeof(one));
        return r1 * 10 + r2; /* 12: the second call ran the new code */
    }
    if (h_streq(a, "smc_next")) {
        /* movb $7, imm(%rip/abs); mov $1, %eax; ret: the store rewrites the
         * immediate of the very next instruction. */
#if defined(__x86_64__)
        unsigned char c[] = { 0xc6, 0x05, 1, 0, 0, 0, 7, 0xb8, 1, 0, 0, 0, 0xc3 };
#else
        unsigned char c[] = { 0xc6, 0x05, 0, 0, 0, 0, 7, 0xb8, 1, 0, 0, 0, 0xc3 };
        ulong imm = (ulong)p + 8;
        c[2] = (unsigned char)imm, c[3] = (unsigned char)(imm >> 8);
        c[4] = (unsigned char)(imm >> 16), c[5] = (unsigned char)(imm >> 24);
#endif
        return run_code(p, c, sizeof(c));
    }
    if (h_streq(a, "smc_syscall")) {
        /* Run `mov $write, %eax; ... syscall; ret` once, then patch the
         * number to getpid: in strict mode the second run must be killed,
         * not served from a stale translation. */
#if defined(__x86_64__)
        unsigned char c[] = { 0xb8, NR_write_LINUX, 0, 0, 0, 0xbf, 1, 0, 0, 0, 0x31, 0xd2, 0x0f, 0x05, 0xc3 };
#else
        unsigned char c[] = { 0x53, 0xb8, NR_write_LINUX, 0, 0, 0, 0xbb, 1, 0, 0, 0, 0x31, 0xd2,
                              0xcd, 0x80, 0x5b, 0xc3 }; /* ebx saved: callee-saved */
#endif
        const int nr_at = c[0] == 0x53 ? 2 : 1;
        if (late_strict)
            enter_strict();
        long r1 = run_code(p, c, sizeof(c));
        report("write of 0 bytes", r1);
        p[nr_at] = NR_getpid_LINUX;
        return ((long (*)(void))p)() > 0;
    }
    if (h_streq(a, "exec_rw")) {
        unsigned char *q = h_mmap(4096, PROT_READ_LINUX | PROT_WRITE_LINUX);
        return run_code(q, one, sizeof(one));
    }
    if (h_streq(a, "exec_mprotect")) {
        unsigned char *q = h_mmap(4096, PROT_READ_LINUX | PROT_WRITE_LINUX);
        for (ulong i = 0; i < sizeof(one); i++)
            q[i] = one[i];
        long r = SYS3(NR_mprotect_LINUX, q, 4096, PROT_READ_LINUX | PROT_EXEC_LINUX);
        report("mprotect", r);
        return ((long (*)(void))q)();
    }
    if (h_streq(a, "exec_after_munmap")) {
        long r1 = run_code(p, one, sizeof(one));
        report("munmap", SYS2(NR_munmap_LINUX, p, 4096));
        return r1 + ((long (*)(void))p)();
    }
    return -9999;
}

/* Calls aimed at seccomp-emu's page, and then a check that the emulator
 * still runs calls and segment loads. */
static long kpage_call(const char *a)
{
    long r = -9999;
    if (h_streq(a, "write_from_kpage"))
        r = SYS3(NR_write_LINUX, 1, EMU_KPAGE, 16);
    else if (h_streq(a, "read_into_kpage"))
        r = SYS3(NR_read_LINUX, 0, EMU_KPAGE, 16);
    else if (h_streq(a, "mprotect_kpage"))
        r = SYS3(NR_mprotect_LINUX, EMU_KPAGE, 4096, PROT_READ_LINUX | PROT_WRITE_LINUX);
    else if (h_streq(a, "madvise_kpage"))
        r = SYS3(NR_madvise_LINUX, EMU_KPAGE, 4096, MADV_DONTNEED_LINUX);
    else if (h_streq(a, "munmap_kpage"))
        r = SYS2(NR_munmap_LINUX, EMU_KPAGE, 4096);
    else if (h_streq(a, "mremap_kpage")) {
        void *dst = h_mmap(8192, PROT_READ_LINUX);
        r = SYS5(NR_mremap_LINUX, EMU_KPAGE, 4096, 4096, MREMAP_MAYMOVE_LINUX | MREMAP_FIXED_LINUX,
                 dst);
    } else if (h_streq(a, "mmap_kpage"))
        r = SYS6(NR_mmap_LINUX, EMU_KPAGE, 4096, PROT_READ_LINUX | PROT_WRITE_LINUX,
                 MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_FIXED_LINUX, -1, 0);
    else
        return -9999;
    report(a, r);
    /* Still alive: reload the data segment and make a call. */
    __asm__ volatile("mov %%ds, %%eax\n mov %%eax, %%ds\n mov %%eax, %%es" ::: "eax");
    report("write after it", SYS3(NR_write_LINUX, 1, "", 0));
    return 0;
}

/* Pointer plus count games on write(2). */
static long counts(const char *a)
{
    if (h_streq(a, "wrap"))          /* past the top of the 32-bit space */
        return SYS3(NR_write_LINUX, 1, (ulong)0xfffffff0ul, 0x20);
    if (h_streq(a, "wrap_neg"))      /* past the top of the whole space */
        return SYS3(NR_write_LINUX, 1, (ulong)-16, 32);
    if (h_streq(a, "huge_count"))
        return SYS3(NR_write_LINUX, 1, buf, (ulong)-1);
    if (h_streq(a, "huge_count_31"))
        return SYS3(NR_write_LINUX, 1, bss_tail, 0x7fffffff);
    if (h_streq(a, "read_huge"))
        return SYS3(NR_read_LINUX, 0, buf, (ulong)-1);
    if (h_streq(a, "read_31"))
        return SYS3(NR_read_LINUX, 0, bss_tail, 0x7fffffff);
    if (h_streq(a, "partial")) /* from the last page of .bss onwards */
        return SYS3(NR_write_LINUX, 1, bss_tail + 4000, 0x100000);
    if (h_streq(a, "writev_1025")) {
        static ulong iov[2 * 1025];
        return SYS3(NR_writev_LINUX, 1, iov, 1025);
    }
    if (h_streq(a, "writev_1024") || h_streq(a, "readv_1024")) {
        /* Exactly IOV_MAX one-byte segments: every one of them moves. */
        static ulong iov[2 * 1024];
        for (int i = 0; i < 1024; i++)
            iov[2 * i] = (ulong)&buf[i], iov[2 * i + 1] = 1;
        if (h_streq(a, "writev_1024")) {
            for (int i = 0; i < 1024; i++)
                buf[i] = (char)('a' + i % 26);
            return SYS3(NR_writev_LINUX, 1, iov, 1024);
        }
        long r = SYS3(NR_readv_LINUX, 0, iov, 1024);
        SYS3(NR_write_LINUX, 1, buf, r > 0 ? r : 0);
        return r;
    }
    if (h_streq(a, "writev_negative")) {
        static long iov[2] = { 0, -1 };
        iov[0] = (long)buf;
        return SYS3(NR_writev_LINUX, 1, iov, 1);
    }
    if (h_streq(a, "writev_wrap")) {
        static ulong iov[4];
        iov[0] = (ulong)buf, iov[1] = 8, iov[2] = (ulong)-8, iov[3] = 16;
        return SYS3(NR_writev_LINUX, 1, iov, 2);
    }
    return -9999;
}

static int depth(int n)
{
    volatile char pad[256];
    pad[0] = (char)n;
    return depth(n + 1) + pad[0];
}

static long floods(const char *a)
{
    if (h_streq(a, "stack"))
        return depth(0);
    if (h_streq(a, "mmap_flood")) {
        /* Untouched 256 MiB mappings until the address space runs out. */
        long n = 0;
        while (n < 64) {
            long p = (long)h_mmap(256ul << 20, PROT_READ_LINUX | PROT_WRITE_LINUX);
            if (p < 0 && p > -4096)
                break;
            n++;
        }
        return n;
    }
    if (h_streq(a, "brk_flood")) {
        long n = 0, cur = SYS1(NR_brk_LINUX, 0);
        while (n < 64) {
            long want = cur + (64l << 20);
            long got = SYS1(NR_brk_LINUX, want);
            if (got != want)
                break;
            cur = got;
            n++;
        }
        return n;
    }
    if (h_streq(a, "out_flood")) {
        static char chunk[65536];
        for (ulong i = 0; i < sizeof(chunk); i++)
            chunk[i] = (char)('a' + i % 26);
        long total = 0;
        for (int i = 0; i < 256; i++) { /* 16 MiB */
            long r = SYS3(NR_write_LINUX, 1, chunk, sizeof(chunk));
            if (r < 0)
                return r;
            total += r;
        }
        return total;
    }
    return -9999;
}

/* Far transfers into the other code segment.  On an x86_64 kernel both
 * selectors exist for every task: 0x23 is 32-bit code, 0x33 64-bit code. */
#if defined(__x86_64__)
__attribute__((used)) static unsigned long saved_rsp;
__attribute__((used)) static char low_stack[4096] __attribute__((aligned(16)));
__attribute__((used)) static int compat_result;
__attribute__((used)) static const char compat_msg[] = "written from 32-bit code\n";

/* lret into 0x23, run the payload selected by %edi, come back with ljmp. */
__asm__(".text\n.globl to_compat\nto_compat:\n"
        " push %rbx\n push %rbp\n mov %rsp, saved_rsp(%rip)\n"
        " lea low_stack+4000(%rip), %rsp\n"
        " mov %edi, %esi\n"
        /* 64-bit code runs with null data selectors, 32-bit code needs real ones. */
        " mov $0x2b, %eax\n mov %eax, %ds\n mov %eax, %es\n"
        " pushq $0x23\n lea 1f(%rip), %rax\n push %rax\n lretq\n"
        ".code32\n"
        "1: cmp $1, %esi\n je 2f\n cmp $2, %esi\n je 3f\n cmp $3, %esi\n je 4f\n"
        " mov $4, %eax\n mov $1, %ebx\n mov $compat_msg, %ecx\n mov $25, %edx\n int $0x80\n"
        " jmp 9f\n"
        "2: mov $20, %eax\n int $0x80\n jmp 9f\n"                   /* getpid */
        "3: mov $4, %eax\n mov $1, %ebx\n mov $compat_msg, %ebp\n mov $25, %edx\n"
        " push %ebp\n syscall\n pop %ebp\n jmp 9f\n"                 /* 32-bit syscall */
        "4: mov $4, %eax\n mov $1, %ebx\n mov $compat_msg, %ecx\n mov $25, %edx\n"
        " push %ecx\n push %edx\n push %ebp\n mov %esp, %ebp\n sysenter\n" /* sysenter */
        "9: mov %eax, compat_result\n ljmp $0x33, $5f\n"
        ".code64\n"
        "5: mov saved_rsp(%rip), %rsp\n pop %rbp\n pop %rbx\n ret\n");
void to_compat(int payload);

/* The same payloads reached by a far call through a m16:32 pointer, back
 * with a 32-bit lret. */
__asm__(".text\n.globl lcall_compat\nlcall_compat:\n"
        " push %rbx\n push %rbp\n mov %rsp, saved_rsp(%rip)\n"
        " lea low_stack+4000(%rip), %rsp\n mov %edi, %esi\n"
        " mov $0x2b, %eax\n mov %eax, %ds\n mov %eax, %es\n"
        " lcall *lcall_compat_ptr(%rip)\n"
        " mov saved_rsp(%rip), %rsp\n pop %rbp\n pop %rbx\n ret\n"
        ".code32\n"
        "lcall_compat_target:\n cmp $1, %esi\n je 1f\n"
        " mov $4, %eax\n mov $1, %ebx\n mov $compat_msg, %ecx\n mov $25, %edx\n int $0x80\n"
        " jmp 2f\n"
        "1: mov $20, %eax\n int $0x80\n"
        "2: mov %eax, compat_result\n lret\n"
        ".code64\n"
        ".data\nlcall_compat_ptr: .long lcall_compat_target\n .word 0x23\n.text\n");
void lcall_compat(int payload);

static void far_other_segment(const char *a)
{
    if (h_streq(a, "lcall_compat") || h_streq(a, "lcall_compat_getpid")) {
        int getpid = h_streq(a, "lcall_compat_getpid");
        lcall_compat(getpid);
        report(a, getpid ? compat_result > 0 : compat_result);
        return;
    }
    int payload = h_streq(a, "far_write") ? 0 : h_streq(a, "far_getpid") ? 1
                : h_streq(a, "far_syscall32") ? 2 : h_streq(a, "far_sysenter") ? 3 : -1;
    if (payload < 0) {
        out("unknown action\n");
        h_exit(2);
    }
    to_compat(payload);
    report(a, payload == 1 ? compat_result > 0 : compat_result);
}
#else
__attribute__((used)) static int long_result;
__attribute__((used)) static const char long_msg[] = "written from 64-bit code\n";

/* ljmp into 0x33, make a 64-bit `syscall` with the number in %esi, and
 * come back with lretq. */
__asm__(".text\n.globl to_long\nto_long:\n"
        " push %ebx\n push %esi\n push %edi\n push %ebp\n mov 20(%esp), %esi\n"
        " ljmp $0x33, $1f\n"
        ".code64\n"
        "1: mov %esi, %eax\n mov $1, %edi\n mov $long_msg, %esi\n mov $25, %edx\n syscall\n"
        " mov %eax, %edi\n"
        " sub $8, %rsp\n mov $2f, %eax\n mov %eax, (%rsp)\n movl $0x23, 4(%rsp)\n lretl\n"
        ".code32\n"
        "2: mov %edi, long_result\n pop %ebp\n pop %edi\n pop %esi\n pop %ebx\n ret\n");
void to_long(int nr);

/* A far call into 0x33, back with a 32-bit lret. */
__asm__(".text\n.globl lcall_long\nlcall_long:\n"
        " push %ebx\n push %esi\n push %edi\n push %ebp\n"
        " lcall $0x33, $lcall_long_target\n"
        " mov %edi, long_result\n pop %ebp\n pop %edi\n pop %esi\n pop %ebx\n ret\n"
        ".code64\n"
        "lcall_long_target:\n mov $1, %eax\n mov $1, %edi\n mov $long_msg, %esi\n"
        " mov $25, %edx\n syscall\n mov %eax, %edi\n lretl\n"
        ".code32\n");
void lcall_long(void);

static void far_other_segment(const char *a)
{
    if (h_streq(a, "lcall_long")) {
        lcall_long();
        report(a, long_result);
        return;
    }
    int nr = h_streq(a, "far_write") ? 1 : h_streq(a, "far_getpid") ? 39
           : h_streq(a, "far_stat") ? 4 : -1;
    if (nr < 0) {
        out("unknown action\n");
        h_exit(2);
    }
    to_long(nr);
    report(a, nr == 39 ? long_result > 0 : long_result);
}
#endif


/* ---- Flags, segments and far transfers the CPU must police ---- */

__attribute__((used)) static const char entry_msg[] = "write from an odd state\n";
__attribute__((used)) static long state_result, state_aux;
__attribute__((used)) static ulong saved_sp;

/* The ABI's own call with %eax/%rax = write, on fd 1, entry_msg. */
#if defined(__x86_64__)
#define WRITE_SETUP "mov $1, %%eax\n mov $1, %%edi\n lea entry_msg(%%rip), %%rsi\n" \
                    " mov $24, %%edx\n"
#define ENTRY_INSN "syscall\n"
#define CALL_CLOBBERS "rax", "rdi", "rsi", "rdx", "rcx", "r11", "memory", "cc"
#else
#define WRITE_SETUP "mov $4, %%eax\n mov $1, %%ebx\n mov $entry_msg, %%ecx\n" \
                    " mov $24, %%edx\n"
#define ENTRY_INSN "int $0x80\n"
#define CALL_CLOBBERS "eax", "ebx", "ecx", "edx", "memory", "cc"
#endif
#define WRITE_CALL WRITE_SETUP ENTRY_INSN

/* A same-privilege iret to label 1f with the flags image or'ed with FL
 * (64-bit: a full frame, ss and rsp included). */
#if defined(__x86_64__)
#define IRET_OR(fl, cs) "mov %%rsp, %%rax\n pushq $0x2b\n push %%rax\n pushfq\n orq $" fl \
                        ", (%%rsp)\n pushq $" cs "\n lea 1f(%%rip), %%rax\n push %%rax\n iretq\n1:"
#else
#define IRET_OR(fl, cs) "pushf\n orl $" fl ", (%%esp)\n pushl $" cs "\n pushl $1f\n iret\n1:"
#endif

static int flag_trick(const char *a)
{
    if (h_streq(a, "iret_iopl"))
        /* IOPL 3 in the image: ignored at CPL 3, so `cli` still faults. */
        __asm__ volatile(IRET_OR("0x3000", USER_CS) "\n cli" ::: CLOB_AX, "memory", "cc");
    else if (h_streq(a, "popf_iopl"))
        __asm__ volatile("pushf\n or" W " $0x3000, (%%" SP ")\n popf\n"
                         " xor %%edx, %%edx\n inb %%dx, %%al" ::: "eax", "edx", "memory", "cc");
    else if (h_streq(a, "iret_nt"))
        /* NT set by popf, then iret: a task return (32-bit), #GP (64-bit). */
        __asm__ volatile("pushf\n or" W " $0x4000, (%%" SP ")\n popf\n"
                         IRET_OR("0", USER_CS) ::: CLOB_AX, "memory", "cc");
    else if (h_streq(a, "iret_dcs"))
        /* The user data selector as code. */
        __asm__ volatile(IRET_OR("0", "0x2b") ::: CLOB_AX, "memory", "cc");
    else if (h_streq(a, "lret_dseg"))
        __asm__ volatile("push" W " $0x2b\n push" W " $1f\n lret" W "\n1:" ::: "memory");
    else if (h_streq(a, "lret_ldt"))
        /* LDT selector 0, RPL 3: a task has no LDT. */
        __asm__ volatile("push" W " $0x7\n push" W " $1f\n lret" W "\n1:" ::: "memory");
    else if (h_streq(a, "lcall_kcs")) {
        static struct { unsigned off; unsigned short sel; } __attribute__((packed)) to = { 0, 0x10 };
        to.off = (unsigned)(ulong)text_target;
        __asm__ volatile("lcall *%0" ::"m"(to) : "memory");
    } else if (h_streq(a, "ac_misaligned")) {
        /* Alignment checking: Linux sets CR0.AM, so EFLAGS.AC at CPL 3 makes a
         * misaligned load #AC (SIGBUS). */
        static char bytes[16];
        volatile int *p = (volatile int *)(void *)(bytes + 1);
        __asm__ volatile("pushf\n or" W " $0x40000, (%%" SP ")\n popf" ::: "memory", "cc");
        report("misaligned load", *p);
    } else if (h_streq(a, "call_tf")) {
        /* The trap flag set by the instruction before the call: the call
         * completes, then the single-step trap (SIGTRAP) comes. */
        __asm__ volatile(WRITE_SETUP "pushf\n or" W " $0x100, (%%" SP ")\n popf\n" ENTRY_INSN
                         ::: CALL_CLOBBERS);
        out("not reached\n");
    } else if (h_streq(a, "call_df")) {
        __asm__ volatile("std\n" WRITE_CALL " pushf\n pop" W " state_aux" RIPREL "\n cld"
                         ::: CALL_CLOBBERS);
        report("direction flag kept", (state_aux >> 10) & 1);
    } else if (h_streq(a, "call_badsp")) {
        /* No stack at all: the entry must not need one. */
        __asm__ volatile("mov %%" SP ", saved_sp" RIPREL "\n xor %%esp, %%esp\n" WRITE_CALL
                         " mov saved_sp" RIPREL ", %%" SP "\n mov %%" AX ", state_result" RIPREL
                         ::: CALL_CLOBBERS);
        report("call with no stack", state_result);
    } else if (h_streq(a, "call_segs")) {
#if defined(__x86_64__)
        /* The user data selector in every data register (64-bit code runs
         * with null ones); the call must keep them. */
        __asm__ volatile("mov $0x2b, %%eax\n mov %%eax, %%ds\n mov %%eax, %%es\n mov %%eax, %%fs\n"
                         " mov %%eax, %%gs\n" WRITE_CALL " mov %%rax, state_result(%%rip)\n"
                         " mov %%gs, %%eax\n mov %%eax, state_aux(%%rip)\n xor %%eax, %%eax\n"
                         " mov %%eax, %%ds\n mov %%eax, %%es\n mov %%eax, %%fs\n mov %%eax, %%gs"
                         ::: CALL_CLOBBERS);
#else
        /* Null data selectors: the kernel reads the buffer by its linear
         * address; the selectors come back as they were. */
        __asm__ volatile("push %%ds\n push %%es\n push %%fs\n push %%gs\n xor %%eax, %%eax\n"
                         " mov %%eax, %%ds\n mov %%eax, %%es\n mov %%eax, %%fs\n mov %%eax, %%gs\n"
                         WRITE_CALL " mov %%eax, %%esi\n mov %%ds, %%edi\n pop %%gs\n pop %%fs\n"
                         " pop %%es\n pop %%ds\n mov %%esi, state_result\n mov %%edi, state_aux"
                         ::: CALL_CLOBBERS, "esi", "edi");
#endif
        report("call with odd data selectors", state_result);
        report("selector after it", state_aux);
    }
#if defined(__x86_64__)
    else if (h_streq(a, "syscall_regs")) {
        /* syscall leaves the return address in rcx and rflags in r11. */
        __asm__ volatile("pushfq\n pop %%rbx\n" WRITE_CALL "1: lea 1b(%%rip), %%rax\n"
                         " sub %%rcx, %%rax\n mov %%rax, state_result(%%rip)\n mov %%r11, %%rax\n"
                         " xor %%rbx, %%rax\n and $0xcd5, %%eax\n mov %%rax, state_aux(%%rip)"
                         ::: CALL_CLOBBERS, "rbx");
        report("rcx - return address", state_result);
        report("r11 ^ rflags (status flags)", state_aux);
    } else if (h_streq(a, "call_noncanon_sp")) {
        __asm__ volatile("mov %%rsp, saved_sp(%%rip)\n movabs $0x8000000000001000, %%rax\n"
                         " mov %%rax, %%rsp\n" WRITE_CALL " mov saved_sp(%%rip), %%rsp\n"
                         " mov %%rax, state_result(%%rip)" ::: CALL_CLOBBERS);
        report("call with a non-canonical rsp", state_result);
    }
#else
    else if (h_streq(a, "syscall32") || h_streq(a, "syscall32_badsp") ||
             h_streq(a, "syscall32_getpid_badsp")) {
        /* The 32-bit `syscall` straight from guest code with the vDSO's
         * convention (ebp, edx, ecx pushed, arg 2 in ebp, arg 6 read from
         * the user stack): on AMD the compat entry, which returns through
         * the vDSO's landing pad; on Intel #UD.  With a bad stack the kernel
         * answers -EFAULT before it looks at the number, even in strict
         * mode, and the landing pad's pop faults. */
        long r = h_streq(a, "syscall32_getpid_badsp") ? NR_getpid_LINUX : NR_write_LINUX;
        long bad = !h_streq(a, "syscall32");
        __asm__ volatile("push %%ebx\n push %%ebp\n mov $1, %%ebx\n mov $entry_msg, %%ecx\n"
                         " mov $24, %%edx\n call 2f\n jmp 3f\n"
                         "2: push %%ecx\n push %%edx\n push %%ebp\n mov %%ecx, %%ebp\n"
                         " test %%esi, %%esi\n jz 4f\n mov $16, %%esp\n"
                         "4: syscall\n"
                         "3: pop %%ebp\n pop %%ebx"
                         : "+a"(r) : "S"(bad) : "ecx", "edx", "memory", "cc");
        report(a, r);
    }
#endif
    else
        return 0;
    return 1;
}

/* Floods meant to run under limits (native RLIMIT_AS / RLIMIT_FSIZE,
 * seccomp-emu's --memory / --output-limit): they try for far more than the
 * limit and print only what must agree with the kernel. */
#define NR_rt_sigaction_LINUX NR(13, 174)
#define SIGXFSZ_LINUX 25

static void touch(char *p, ulong len)
{
    for (ulong i = 0; i < len; i += 4096)
        ((volatile char *)p)[i] = 1;
}

static long limited_floods(const char *a)
{
    if (h_streq(a, "mem_flood")) {
        /* brk first, 1 MiB at a time, every page touched, up to 4 GiB. */
        long start = SYS1(NR_brk_LINUX, 0), cur = start, n = 0;
        while (n < 4096) {
            long got = SYS1(NR_brk_LINUX, cur + (1l << 20));
            if (got != cur + (1l << 20))
                break;
            touch((char *)cur, 1ul << 20);
            cur = got;
            n++;
        }
        report("brk refused before 4 GiB", n < 4096);
        report("brk grew at least 16 MiB", n >= 16);
        report("brk back to its start", SYS1(NR_brk_LINUX, start) == start);
        /* Then mmap, 1 MiB at a time, touched, up to 4 GiB. */
        long err = 0;
        for (n = 0; n < 4096; n++) {
            char *p = h_mmap(1ul << 20, PROT_READ_LINUX | PROT_WRITE_LINUX);
            if ((long)p < 0 && (long)p > -4096) {
                err = (long)p;
                break;
            }
            touch(p, 1ul << 20);
        }
        report("mmap refused", err);
        report("mmap got at least 32 MiB", n >= 32);
        /* Single huge requests, and growing what exists. */
        report("mmap of 2 GiB", (long)h_mmap(2ul << 30, PROT_READ_LINUX) < 0);
        char *small = h_mmap(4096, PROT_READ_LINUX);
        report("mremap to 1 GiB", SYS4(NR_mremap_LINUX, small, 4096, 1ul << 30,
                                        MREMAP_MAYMOVE_LINUX));
        report("brk by 1 GiB", SYS1(NR_brk_LINUX, start + (1l << 30)) == start);
        return 0;
    }
    if (h_streq(a, "out_flood_ign") || h_streq(a, "out_flood_writev")) {
        if (h_streq(a, "out_flood_ign")) {
            /* SIGXFSZ ignored: the write past the limit answers -EFBIG. */
            ulong act[4] = { 1 /* SIG_IGN */, 0, 0, 0 };
            report("rt_sigaction", SYS4(NR_rt_sigaction_LINUX, SIGXFSZ_LINUX, act, 0, 8));
        }
        static char chunk[65536];
        for (ulong i = 0; i < sizeof(chunk); i++)
            chunk[i] = (char)('A' + i % 26);
        static ulong iov[2 * 16];
        for (int i = 0; i < 16; i++)
            iov[2 * i] = (ulong)chunk, iov[2 * i + 1] = sizeof(chunk);
        long total = 0, r = 0;
        for (int i = 0; i < 256; i++) { /* 16 MiB or 256 MiB */
            r = h_streq(a, "out_flood_writev") ? SYS3(NR_writev_LINUX, 1, iov, 16)
                                               : SYS3(NR_write_LINUX, 1, chunk, sizeof(chunk));
            if (r <= 0)
                break;
            total += r;
        }
        /* On stderr: stdout is what is counted. */
        SYS3(NR_write_LINUX, 2, "", 0);
        report("last write", r);
        return total;
    }
    return -9999;
}

/* Memory calls whose cost must follow what the guest touched, not the
 * size of the range (issue 33): natively each costs nothing.  64-bit: an
 * 8 GiB reservation and a 4 GiB move; i386: 1 GiB and 512 MiB. */
#define MAP_NORESERVE_LINUX 0x4000
#if defined(__x86_64__)
#define HUGE_RESERVE (8ul << 30)
#define HUGE_MOVE (4ul << 30)
#else
#define HUGE_RESERVE (1ul << 30)
#define HUGE_MOVE (512ul << 20)
#endif

static long mapped_at(long r) { return r < 0 && r > -4096 ? r : 0; }

/* A stack DEEP_FRAMES pages deep (about 160 MiB): past the 128 MiB the
 * mmap area once left it, and within the RLIMIT_STACK the harness sets. */
#define DEEP_FRAMES 40000
static long deep(long n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    if (n == 0)
        return 0;
    return deep(n - 1) + pad[0] - (char)n;
}

static long resources(const char *a)
{
    if (h_streq(a, "deep_stack")) {
        report("recursion through 160 MiB of stack", deep(DEEP_FRAMES));
        return 0;
    }
    if (h_streq(a, "madv_huge")) {
        char *p = (char *)SYS6(NR_mmap_LINUX, 0, HUGE_RESERVE, 0,
                               MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_NORESERVE_LINUX, -1, 0);
        report("mmap PROT_NONE|MAP_NORESERVE", mapped_at((long)p));
        report("madvise(MADV_DONTNEED) of all of it",
               SYS3(NR_madvise_LINUX, p, HUGE_RESERVE, MADV_DONTNEED_LINUX));
        /* Some of it used, then dropped: zeros again, the rest untouched. */
        report("mprotect 64 KiB read-write",
               SYS3(NR_mprotect_LINUX, p, 1ul << 16, PROT_READ_LINUX | PROT_WRITE_LINUX));
        for (ulong i = 0; i < (1ul << 16); i++)
            p[i] = (char)(i | 1);
        report("madvise(MADV_DONTNEED) of 12 KiB in the middle",
               SYS3(NR_madvise_LINUX, p + 4096, 12288, MADV_DONTNEED_LINUX));
        long zeros = 0, kept = 0;
        for (ulong i = 0; i < (1ul << 16); i++) {
            if (i >= 4096 && i < 16384)
                zeros += p[i] == 0;
            else
                kept += p[i] == (char)(i | 1);
        }
        report("bytes cleared", zeros);
        report("bytes kept", kept);
        return SYS2(NR_munmap_LINUX, p, HUGE_RESERVE);
    }
    if (h_streq(a, "mremap_huge")) {
        char *p = (char *)SYS6(NR_mmap_LINUX, 0, HUGE_MOVE, PROT_READ_LINUX | PROT_WRITE_LINUX,
                               MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | MAP_NORESERVE_LINUX, -1, 0);
        report("mmap read-write, untouched", mapped_at((long)p));
        p[0] = 'a';
        p[HUGE_MOVE / 2] = 'b';
        p[HUGE_MOVE - 1] = 'c';
        char *q = (char *)SYS4(NR_mremap_LINUX, p, HUGE_MOVE, HUGE_MOVE + (64ul << 20),
                               MREMAP_MAYMOVE_LINUX);
        report("mremap 64 MiB larger", mapped_at((long)q));
        report("moved", q != p);
        report("bytes that moved with it",
               (q[0] == 'a') + (q[HUGE_MOVE / 2] == 'b') + (q[HUGE_MOVE - 1] == 'c'));
        report("the grown part reads zero", q[HUGE_MOVE] == 0 && q[HUGE_MOVE + (64ul << 20) - 1] == 0);
        report("the old place is gone", SYS3(NR_mprotect_LINUX, p, 4096, PROT_READ_LINUX));
        return SYS2(NR_munmap_LINUX, q, HUGE_MOVE + (64ul << 20));
    }
    if (h_streq(a, "populate_2g") || h_streq(a, "populate_write_2g")) {
        /* 2 GiB faulted in by one call (MAP_POPULATE, or
         * MADV_POPULATE_WRITE): under a smaller --host-memory the call must
         * not run to its end first. */
        const ulong len = 2ul << 30, populate = 0x8000, noreserve = 0x4000;
        int by_mmap = h_streq(a, "populate_2g");
        long p = SYS6(NR_mmap_LINUX, 0, len, PROT_READ_LINUX | PROT_WRITE_LINUX,
                      MAP_PRIVATE_LINUX | MAP_ANONYMOUS_LINUX | noreserve | (by_mmap ? populate : 0),
                      -1, 0);
        if (mapped_at(p))
            return p;
        if (!by_mmap)
            return SYS3(NR_madvise_LINUX, p, len, 23 /* MADV_POPULATE_WRITE */);
        return 0;
    }
    if (h_streq(a, "touch_1g")) {
        /* Touches 1 GiB, a page at a time, then says so: under a smaller
         * --host-memory seccomp-emu must end it first. */
        for (int i = 0; i < 1024; i++) {
            char *p = h_mmap(1ul << 20, PROT_READ_LINUX | PROT_WRITE_LINUX);
            if (mapped_at((long)p))
                return (long)p;
            touch(p, 1ul << 20);
        }
        return 1024;
    }
    return -9999;
}

int guest_main(int argc, char **argv)
{
    if (argc < 2) {
        out("usage: tricks ACTION [strict]\n");
        return 2;
    }
    const char *a = argv[1];
    if (argc > 2 && h_streq(argv[2], "strict")) {
        if (h_streq(a, "smc_syscall"))
            late_strict = 1;
        else
            enter_strict();
    }
    long r;
    if ((r = smc(a)) != -9999 || (r = counts(a)) != -9999 || (r = floods(a)) != -9999 ||
        (r = limited_floods(a)) != -9999 || (r = resources(a)) != -9999) {
        report(a, r);
        return 0;
    }
    if (kpage_call(a) == 0)
        return 0;
    insn(a);
    out(a);
    out(" returned\n");
    return 0;
}
