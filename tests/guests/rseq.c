/* Restartable sequences as glibc and a program see them: the area glibc
 * registered at start (__rseq_size, cpu_id kept current), rseq(2)'s
 * answers to a second registration, to unregistering and registering
 * again, and a critical section a signal interrupts (the kernel moves
 * the thread to its abort handler) or passes by (the kernel clears
 * rseq_cs).  A registration the kernel cannot write, or a critical
 * section whose abort signature is wrong, kills with SIGSEGV.
 *   rseq glibc | register | abort | unmapped | badsig */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "show_result.h"

struct area {
    uint32_t cpu_id_start, cpu_id;
    uint64_t rseq_cs;
    uint32_t flags, node_id, mm_cid, pad;
} __attribute__((aligned(32)));

struct cs {
    uint32_t version, flags;
    uint64_t start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));

static struct area *glibc_area(void)
{
    return (struct area *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

static long rseq_sys(void *a, uint32_t len, int flags, uint32_t sig)
{
    return syscall(SYS_rseq, a, len, flags, sig);
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig) { handled = sig; }

static void do_glibc(void)
{
    struct area *a = glibc_area();
    printf("__rseq_size %u, __rseq_flags %u, offset is the thread's %d\n", __rseq_size,
           __rseq_flags, __rseq_offset != 0);
    int cpu = sched_getcpu();
    printf("cpu_id %d, the same as sched_getcpu %d, cpu_id_start the same %d, rseq_cs 0 %d, "
           "flags 0 %d\n",
           (int)a->cpu_id >= 0, (int)a->cpu_id == cpu, a->cpu_id_start == a->cpu_id,
           a->rseq_cs == 0, a->flags == 0);
}

static void do_register(void)
{
    struct area *a = glibc_area();
    static struct area mine;
    show("register glibc's again", rseq_sys(a, 32, 0, RSEQ_SIG));
    show("register glibc's, other signature", rseq_sys(a, 32, 0, RSEQ_SIG + 1));
    show("register glibc's, other length", rseq_sys(a, 64, 0, RSEQ_SIG));
    show("register another area", rseq_sys(&mine, 32, 0, RSEQ_SIG));
    show("flags 2", rseq_sys(a, 32, 2, RSEQ_SIG));
    show("unregister, flags 3", rseq_sys(a, 32, 3, RSEQ_SIG));
    show("unregister another area", rseq_sys(&mine, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
    show("unregister, other length", rseq_sys(a, 64, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
    show("unregister, other signature", rseq_sys(a, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG + 1));
    show("unregister", rseq_sys(a, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
    printf("  cpu_id now %d, cpu_id_start %u\n", (int)a->cpu_id, a->cpu_id_start);
    show("unregister again", rseq_sys(a, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
    show("register, length 31", rseq_sys(&mine, 31, 0, RSEQ_SIG));
    show("register, misaligned", rseq_sys((char *)&mine + 4, 32, 0, RSEQ_SIG));
    show("register, past user space", rseq_sys((void *)-64L, 32, 0, RSEQ_SIG));
    mine.cpu_id = 77;
    show("register my own, 32 bytes", rseq_sys(&mine, 32, 0, RSEQ_SIG));
    printf("  cpu_id filled in %d, a cpu %d, cpu_id_start the same %d\n", mine.cpu_id != 77,
           (int)mine.cpu_id >= 0, mine.cpu_id_start == mine.cpu_id);
    show("unregister it", rseq_sys(&mine, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG));
}

/* Sets rseq_cs to a critical section around a tgkill(SIGUSR1) of this
 * thread; 1 if the kernel sent it to the abort handler. */
extern struct cs rseq_test_cs;

static __attribute__((noinline)) int interrupted_section(struct area *a, int sig_offset)
{
    int aborted;
    long pid = getpid(), tid = syscall(SYS_gettid);
#if defined(__x86_64__)
    __asm__ volatile(
        ".pushsection .data.rseq_cs, \"aw\"\n"
        ".balign 32\n"
        ".globl rseq_test_cs\n"
        "rseq_test_cs:\n"
        "1: .long 0, 0\n"
        "   .quad 3f, (4f - 3f), 5f\n"
        ".popsection\n"
        "leaq 1b(%%rip), %%rax\n"
        "movq %%rax, 8(%[area])\n"
        "3:\n"
        "movl %[nr], %%eax\n"
        "syscall\n"
        "nop\n"
        "4:\n"
        "movl $0, %[aborted]\n"
        "jmp 6f\n"
        ".long %c[sig]\n"
        "5:\n"
        "movl $1, %[aborted]\n"
        "6:\n"
        : [aborted] "=m"(aborted)
        : [area] "r"(a), [nr] "i"(SYS_tgkill), "D"(pid), "S"(tid), "d"(SIGUSR1),
          [sig] "i"(RSEQ_SIG)
        : "rax", "rcx", "r11", "memory");
#else
    __asm__ volatile(
        ".pushsection .data.rseq_cs, \"aw\"\n"
        ".balign 32\n"
        ".globl rseq_test_cs\n"
        "rseq_test_cs:\n"
        "1: .long 0, 0\n"
        "   .long 3f, 0, (4f - 3f), 0, 5f, 0\n"
        ".popsection\n"
        "movl $1b, 8(%[area])\n"
        "movl $0, 12(%[area])\n"
        "3:\n"
        "movl %[nr], %%eax\n"
        "int $0x80\n"
        "nop\n"
        "4:\n"
        "movl $0, %[aborted]\n"
        "jmp 6f\n"
        ".long %c[sig]\n"
        "5:\n"
        "movl $1, %[aborted]\n"
        "6:\n"
        : [aborted] "=m"(aborted)
        : [area] "S"(a), [nr] "i"(SYS_tgkill), "b"(pid), "c"(tid), "d"(SIGUSR1),
          [sig] "i"(RSEQ_SIG)
        : "eax", "memory");
#endif
    (void)sig_offset;
    return aborted;
}

static void do_abort(void)
{
    struct area *a = glibc_area();
    signal(SIGUSR1, on_usr1);
    handled = 0;
    int aborted = interrupted_section(a, 0);
    printf("a signal inside the critical section: handler %d, aborted %d, rseq_cs cleared %d\n",
           handled == SIGUSR1, aborted, a->rseq_cs == 0);
    /* rseq_cs left pointing at the section after the thread left it */
    a->rseq_cs = (uint64_t)(uintptr_t)&rseq_test_cs;
    handled = 0;
    raise(SIGUSR1);
    printf("a signal outside it: handler %d, rseq_cs cleared %d\n", handled == SIGUSR1,
           a->rseq_cs == 0);
    printf("a section that no signal interrupts: aborted %d\n", ({
               signal(SIGUSR1, SIG_IGN);
               interrupted_section(a, 0);
           }));
}

/* Linux 6.18 refuses the registration (EFAULT); 6.12 accepted it and
 * killed the thread with SIGSEGV on its way back: 64-bit only, judged by
 * this host's kernel. */
static void do_unmapped(void)
{
    struct area *a = glibc_area();
    rseq_sys(a, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
    void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("registering an area the kernel cannot write\n");
    fflush(stdout);
    show("rseq", rseq_sys(p, 32, 0, RSEQ_SIG));
    printf("survived\n");
}

static void do_badsig(void)
{
    struct area *a = glibc_area();
    /* a section whose abort handler lacks the registered signature */
    static struct cs bad = { 0, 0, 0, 0, 0 };
    extern char badsig_start[], badsig_end[];
    __asm__ volatile("jmp 1f\nbadsig_start: nop\nbadsig_end: nop\n1:\n");
    bad.start_ip = (uintptr_t)badsig_start;
    bad.post_commit_offset = (uintptr_t)badsig_end - (uintptr_t)badsig_start;
    bad.abort_ip = 0x10004; /* its signature would be at 0x10000: never mapped */
    signal(SIGUSR1, on_usr1);
    printf("a signal with rseq_cs broken\n");
    fflush(stdout);
    /* Any preemption from here on finds it broken too: nothing else
     * between it and the signal. */
    a->rseq_cs = (uint64_t)(uintptr_t)&bad;
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
    printf("survived\n");
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "glibc"))
        do_glibc();
    else if (!strcmp(c, "register"))
        do_register();
    else if (!strcmp(c, "abort"))
        do_abort();
    else if (!strcmp(c, "unmapped"))
        do_unmapped();
    else if (!strcmp(c, "badsig"))
        do_badsig();
    else
        return 2;
    return 0;
}
