/* Faults and their handlers, in and out of strict mode.
 *
 *   faults KIND MODE
 *
 * KIND is the faulting instruction (map, ro, nx, jmp0, ud, de, bp, gp,
 * int81, tsc; kread, kwrite and khalt touch where seccomp-emu keeps its own
 * page, which is kernel memory to the guest: above TASK_SIZE for i386, and
 * non-canonical for x86_64, where khalt is an ordinary unmapped address;
 * ssnc loads through rbp from a non-canonical address, #SS on x86_64; ac
 * sets EFLAGS.AC and loads a misaligned dword, #AC, which Linux leaves on
 * in the handler; acjr reaches the same load through an indirect call
 * twice, first with AC clear, so that the second call, with AC set, finds
 * the block translated without it in the jump cache and must not run it);
 * MODE is how the handler is installed and what it does:
 *   info          SA_SIGINFO handler: prints siginfo and the sigcontext's
 *                 trap number and error code, skips the instruction by
 *                 editing the saved instruction pointer
 *   plain         handler without SA_SIGINFO, the same through the
 *                 sigcontext (i386: the non-rt frame)
 *   strict-info   as info, after entering strict mode
 *   strict-plain  as plain, after entering strict mode
 *   fixup         (ro only) the handler makes the page writable and
 *                 returns: the instruction runs again and succeeds
 *   none          no handler: the default action
 *   blocked       the signal blocked: still the default action
 *   ignored       the signal ignored: still the default action
 *   nested        the handler faults again: the default action
 *   nodefer       SA_NODEFER: the handler faults again and runs nested
 *   badstack      the stack pointer is garbage: the frame cannot be
 *                 written, SIGSEGV kills
 *   altstack      the same with SA_ONSTACK and a sigaltstack: it runs
 */
#include "sigtest.h"

#include <stdlib.h>
#include <sys/mman.h>

extern char f_map[], f_map_at[], f_map_after[];
extern char f_ro[], f_ro_at[], f_ro_after[];
extern char f_nx[], f_jmp0[];
extern char f_ud[], f_ud_at[], f_ud_after[];
extern char f_de[], f_de_at[], f_de_after[];
extern char f_bp[], f_bp_at[], f_bp_after[];
extern char f_gp[], f_gp_at[], f_gp_after[];
extern char f_int81[], f_int81_at[], f_int81_after[];
extern char f_int6[], f_int6_at[], f_int6_after[];
extern char f_tsc[], f_tsc_at[], f_tsc_after[];
extern char f_badsp[], f_badsp_at[];
extern char f_kread[], f_kread_at[], f_kread_after[];
extern char f_kwrite[], f_kwrite_at[], f_kwrite_after[];
extern char f_khalt[];
extern char f_ssnc[], f_ssnc_at[], f_ssnc_after[];
extern char f_ac[], f_ac_at[], f_ac_after[];
extern char f_acjr[], f_acjr_at[], f_acjr_after[];

/* A page of data that is not executable: code jumped to there faults. */
static unsigned char nx_code[8192] __attribute__((aligned(4096))) = { 0xc3 };
/* Read-only: writes fault. */
static const unsigned int ro_page[1024] __attribute__((aligned(4096))) = { 5 };

#if defined(__x86_64__)
__asm__(".text\n"
        "f_map: mov $0x10, %rax\n f_map_at: mov (%rax), %eax\n f_map_after: ret\n"
        "f_ro: lea ro_page(%rip), %rax\n f_ro_at: movl $7, (%rax)\n f_ro_after: ret\n"
        "f_nx: lea nx_code(%rip), %rax\n call *%rax\n ret\n"
        "f_jmp0: mov $0x1000, %eax\n call *%rax\n ret\n"
        "f_ud: f_ud_at: ud2\n f_ud_after: ret\n"
        "f_de: xor %ecx, %ecx\n xor %edx, %edx\n mov $1, %eax\n f_de_at: div %ecx\n f_de_after: ret\n"
        "f_bp: f_bp_at: int3\n f_bp_after: ret\n"
        "f_gp: f_gp_at: hlt\n f_gp_after: ret\n"
        "f_int81: f_int81_at: int $0x81\n f_int81_after: ret\n"
        "f_int6: f_int6_at: int $6\n f_int6_after: ret\n"
        "f_tsc: f_tsc_at: rdtsc\n f_tsc_after: ret\n"
        "f_badsp: mov $0x10, %rsp\n f_badsp_at: mov (%rsp), %eax\n ret\n"
        "f_kread: movabs $0x800000000000, %rax\n f_kread_at: mov (%rax), %eax\n f_kread_after: ret\n"
        "f_kwrite: movabs $0x800000000100, %rax\n f_kwrite_at: movl $1, (%rax)\n f_kwrite_after: ret\n"
        "f_khalt: mov $0xfffff800, %eax\n call *%rax\n ret\n"
        "f_ssnc: push %rbp\n movabs $0x800000000000, %rbp\n f_ssnc_at: mov (%rbp), %eax\n"
        " f_ssnc_after: pop %rbp\n ret\n"
        "f_ac: pushfq\n orl $0x40000, (%rsp)\n popfq\n f_ac_at: movl 1(%rsp), %eax\n"
        " f_ac_after: pushfq\n andl $~0x40000, (%rsp)\n popfq\n ret\n"
        "f_acjr: lea f_acjr_load(%rip), %rax\n call *%rax\n"
        " pushfq\n orl $0x40000, (%rsp)\n popfq\n lea f_acjr_load(%rip), %rax\n call *%rax\n"
        " pushfq\n andl $~0x40000, (%rsp)\n popfq\n ret\n"
        "f_acjr_load: f_acjr_at: movl 1(%rsp), %eax\n f_acjr_after: ret\n");
/* past the red zone, which the compiler may use below rsp */
#define AC_OFF()                                                                           \
    __asm__ volatile("lea -128(%%rsp), %%rsp\n pushfq\n andl $~0x40000, (%%rsp)\n popfq\n" \
                     " lea 128(%%rsp), %%rsp" ::: "memory", "cc")
#define KPAGE_TARGET ((char *)0)
#define SSNC_SIGNAL SIGBUS
#define SSNC_TARGET ((char *)0)
#else
__asm__(".text\n"
        "f_map: mov $0x10, %eax\n f_map_at: mov (%eax), %eax\n f_map_after: ret\n"
        "f_ro: lea ro_page, %eax\n f_ro_at: movl $7, (%eax)\n f_ro_after: ret\n"
        "f_nx: lea nx_code, %eax\n call *%eax\n ret\n"
        "f_jmp0: mov $0x1000, %eax\n call *%eax\n ret\n"
        "f_ud: f_ud_at: ud2\n f_ud_after: ret\n"
        "f_de: xor %ecx, %ecx\n xor %edx, %edx\n mov $1, %eax\n f_de_at: div %ecx\n f_de_after: ret\n"
        "f_bp: f_bp_at: int3\n f_bp_after: ret\n"
        "f_gp: f_gp_at: hlt\n f_gp_after: ret\n"
        "f_int81: f_int81_at: int $0x81\n f_int81_after: ret\n"
        "f_int6: f_int6_at: int $6\n f_int6_after: ret\n"
        "f_tsc: f_tsc_at: rdtsc\n f_tsc_after: ret\n"
        "f_badsp: mov $0x10, %esp\n f_badsp_at: mov (%esp), %eax\n ret\n"
        "f_kread: mov $0xfffff000, %eax\n f_kread_at: mov (%eax), %eax\n f_kread_after: ret\n"
        "f_kwrite: mov $0xfffff000, %eax\n f_kwrite_at: movl $1, (%eax)\n f_kwrite_after: ret\n"
        "f_khalt: mov $0xfffff800, %eax\n call *%eax\n ret\n"
        "f_ssnc: push %ebp\n mov $0x10, %ebp\n f_ssnc_at: mov (%ebp), %eax\n"
        " f_ssnc_after: pop %ebp\n ret\n"
        "f_ac: pushfl\n orl $0x40000, (%esp)\n popfl\n f_ac_at: movl 1(%esp), %eax\n"
        " f_ac_after: pushfl\n andl $~0x40000, (%esp)\n popfl\n ret\n"
        "f_acjr: lea f_acjr_load, %eax\n call *%eax\n"
        " pushfl\n orl $0x40000, (%esp)\n popfl\n lea f_acjr_load, %eax\n call *%eax\n"
        " pushfl\n andl $~0x40000, (%esp)\n popfl\n ret\n"
        "f_acjr_load: f_acjr_at: movl 1(%esp), %eax\n f_acjr_after: ret\n");
#define AC_OFF() __asm__ volatile("pushfl\n andl $~0x40000, (%%esp)\n popfl" ::: "memory", "cc")
#define KPAGE_TARGET ((char *)0xfffff000)
#define SSNC_SIGNAL SIGSEGV
#define SSNC_TARGET ((char *)0x10)
#endif

struct site {
    const char *name;
    int sig;
    char *fn, *at, *after; /* after NULL: a fetch fault, return to the caller */
    char *target;          /* the address the fault is about, if any */
};

static const struct site sites[] = {
    { "map", SIGSEGV, f_map, f_map_at, f_map_after, (char *)0x10 },
    { "ro", SIGSEGV, f_ro, f_ro_at, f_ro_after, (char *)ro_page },
    { "nx", SIGSEGV, f_nx, NULL, NULL, (char *)nx_code },
    { "jmp0", SIGSEGV, f_jmp0, NULL, NULL, (char *)0x1000 },
    { "ud", SIGILL, f_ud, f_ud_at, f_ud_after, f_ud_at },
    { "de", SIGFPE, f_de, f_de_at, f_de_after, f_de_at },
    { "bp", SIGTRAP, f_bp, f_bp_at, f_bp_after, NULL },
    { "gp", SIGSEGV, f_gp, f_gp_at, f_gp_after, NULL },
    { "int81", SIGSEGV, f_int81, f_int81_at, f_int81_after, NULL },
    /* a gate Unicorn raises as #UD, not as the #GP the kernel sees */
    { "int6", SIGSEGV, f_int6, f_int6_at, f_int6_after, NULL },
    { "tsc", SIGSEGV, f_tsc, f_tsc_at, f_tsc_after, NULL },
    { "kread", SIGSEGV, f_kread, f_kread_at, f_kread_after, KPAGE_TARGET },
    { "kwrite", SIGSEGV, f_kwrite, f_kwrite_at, f_kwrite_after, KPAGE_TARGET },
    { "khalt", SIGSEGV, f_khalt, NULL, NULL, (char *)0xfffff800 },
    { "ssnc", SSNC_SIGNAL, f_ssnc, f_ssnc_at, f_ssnc_after, SSNC_TARGET },
    { "ac", SIGBUS, f_ac, f_ac_at, f_ac_after, NULL },
    { "acjr", SIGBUS, f_acjr, f_acjr_at, f_acjr_after, NULL },
};

static const struct site *cur;
static const char *mode;
static volatile int depth;
static char altstack[65536];

static const char *sym(uintptr_t a)
{
    if (a == 0)
        return "0";
    if (cur->target && a == (uintptr_t)cur->target)
        return "target";
    if (cur->at && a == (uintptr_t)cur->at)
        return "at";
    if (cur->after && a == (uintptr_t)cur->after)
        return "after";
    return "other";
}

/* The instruction pointer past the fault: the next instruction, or for a
 * fetch fault the caller (the return address on the stack). */
static void skip(greg_t *ip, greg_t *sp)
{
    if (cur->after && (uintptr_t)*ip != (uintptr_t)cur->after)
        *ip = (greg_t)cur->after;
    else if (!cur->after) {
        *ip = *(greg_t *)*sp;
        *sp += sizeof(greg_t);
    }
}

static void report(int sig, int code, uintptr_t addr, long trapno, long err, uintptr_t ip)
{
    say("%s %s: signal %d code %d addr %s trapno %ld err %#lx ip %s\n", cur->name, mode, sig,
        code, sym(addr), trapno, err, sym(ip));
}

static void on_info(int sig, siginfo_t *si, void *ucv)
{
    AC_OFF(); /* the handler's own code must not fault again (ac) */
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    report(sig, si->si_code, (uintptr_t)si->si_addr, (long)g[REG_TRAPNO], (long)g[REG_ERR],
           (uintptr_t)g[REG_PC]);
    if (!strcmp(mode, "fixup")) {
        mprotect((void *)ro_page, 4096, PROT_READ | PROT_WRITE);
        return;
    }
    if (!strcmp(mode, "nested") || (!strcmp(mode, "nodefer") && depth++ < 2)) {
        say("faulting again in the handler\n");
        ((void (*)(void))cur->fn)();
        say("back in the outer handler\n");
    }
    skip(&g[REG_PC], &g[REG_SP_]);
}

#if defined(__x86_64__)
static void on_plain_fault(int sig)
{
    AC_OFF();
    /* x86_64 has only rt frames: the ucontext follows the return address. */
    volatile ucontext_t *uc = (volatile ucontext_t *)((char *)__builtin_frame_address(0) + 16);
    greg_t *g = (greg_t *)uc->uc_mcontext.gregs;
    report(sig, -1, (uintptr_t)g[REG_CR2], (long)g[REG_TRAPNO], (long)g[REG_ERR],
           (uintptr_t)g[REG_PC]);
    skip(&g[REG_PC], &g[REG_SP_]);
}
#else
/* The non-rt frame: return address, signal number, struct sigcontext; with
 * a frame pointer, the sigcontext is 12 bytes above it. */
static void on_plain_fault(int sig)
{
    AC_OFF();
    volatile struct sigcontext *sc =
        (volatile struct sigcontext *)((char *)__builtin_frame_address(0) + 12);
    report(sig, -1, sc->cr2, (long)sc->trapno, (long)sc->err, sc->eip);
    greg_t ip = (greg_t)sc->eip, sp = (greg_t)sc->esp;
    skip(&ip, &sp);
    sc->eip = (unsigned long)ip;
    sc->esp = (unsigned long)sp;
}
#endif

static void on_alt(int sig, siginfo_t *si, void *ucv)
{
    (void)ucv;
    volatile char here;
    int on = &here >= altstack && &here < altstack + sizeof(altstack);
    say("%s %s: signal %d code %d, handler %s the alternate stack\n", cur->name, mode, sig,
        si->si_code, on ? "on" : "off");
    sys_exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    for (size_t i = 0; i < sizeof(sites) / sizeof(sites[0]); i++)
        if (!strcmp(sites[i].name, argv[1]))
            cur = &sites[i];
    if (!cur)
        return 2;
    mode = argv[2];
    const char *which = mode;
    int sig = cur->sig;
    int strict = !strncmp(mode, "strict-", 7);
    CASE("info") on(sig, on_info, 0);
    CASE("strict-info") on(sig, on_info, 0);
    CASE("plain") on_plain(sig, on_plain_fault, 0);
    CASE("strict-plain") on_plain(sig, on_plain_fault, 0);
    CASE("fixup") on(sig, on_info, 0);
    CASE("nested") on(sig, on_info, 0);
    CASE("nodefer") on(sig, on_info, SA_NODEFER);
    CASE("blocked")
    {
        on(sig, on_info, 0);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, sig);
        sigprocmask(SIG_BLOCK, &s, NULL);
    }
    CASE("ignored") signal(sig, SIG_IGN);
    CASE("badstack") on(SIGSEGV, on_info, 0);
    CASE("altstack")
    {
        stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0 };
        if (sigaltstack(&ss, NULL) != 0)
            return 3;
        on(SIGSEGV, on_alt, SA_ONSTACK);
    }
    if (!strcmp(cur->name, "tsc") && !strict && strcmp(mode, "none"))
        enter_strict(); /* rdtsc faults only with the TSC off */
    if (strict)
        enter_strict();
    if (!strcmp(mode, "badstack") || !strcmp(mode, "altstack"))
        ((void (*)(void))f_badsp)();
    if (!strcmp(cur->name, "ro"))
        /* A read first, so the page is present natively: a write to a
         * read-only page never touched before is a not-present fault (err
         * 0x6, not 0x7) or not, as the page cache and fault-around had it;
         * seccomp-emu has no page tables and always reports present. */
        (void)*(volatile const unsigned int *)ro_page;
    ((void (*)(void))cur->fn)();
    if (!strcmp(cur->name, "ro"))
        say("ro: page now holds %u\n", ro_page[0]);
    say("%s %s: resumed after the fault\n", cur->name, mode);
    sys_exit(0);
}
