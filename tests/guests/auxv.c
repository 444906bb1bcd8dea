/* The initial stack as the kernel leaves it: argc, argv, envp, auxiliary
 * vector, and the stack pointer's alignment at the first instruction.
 * Own _start: start.S would realign the stack before we could look. */
#include "linux_sys.h"

#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_PLATFORM 15
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_EXECFN 31
#define AT_SYSINFO_EHDR 33

void _start(void);
#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n mov %rsp, %rdi\n and $-16, %rsp\n call look\n hlt\n");
#else
__asm__(".globl _start\n_start:\n mov %esp, %eax\n and $-16, %esp\n sub $12, %esp\n push %eax\n"
        " call look\n hlt\n");
#endif

static unsigned long aux(unsigned long *a, unsigned long type)
{
    for (; a[0] != AT_NULL; a += 2)
        if (a[0] == type)
            return a[1];
    return 0;
}

__attribute__((used, noreturn)) void look(unsigned long *sp)
{
    put_kv("sp % 16 at entry", (long)((unsigned long)sp % 16));
    long argc = (long)sp[0];
    char **argv = (char **)(sp + 1);
    put_kv("argc", argc);
    /* argv[0] is a build path: only compared with AT_EXECFN below. */
    for (long i = 1; i < argc; i++) {
        put_str("argv: ");
        put_str(argv[i]);
        put_str("\n");
    }
    char **envp = argv + argc + 1;
    long envc = 0;
    for (; envp[envc]; envc++) {
        put_str("env: ");
        put_str(envp[envc]);
        put_str("\n");
    }
    put_kv("envc", envc);
    unsigned long *a = (unsigned long *)(envp + envc + 1);
    put_kv("AT_PAGESZ", (long)aux(a, AT_PAGESZ));
    put_kv("AT_CLKTCK", (long)aux(a, AT_CLKTCK));
    put_kv("AT_BASE", (long)aux(a, AT_BASE));
    put_kv("AT_SECURE", (long)aux(a, AT_SECURE));
    put_kv("AT_UID == AT_EUID", aux(a, AT_UID) == aux(a, AT_EUID));
    put_kv("AT_ENTRY is _start", aux(a, AT_ENTRY) == (unsigned long)_start);
    put_kv("AT_PHENT", (long)aux(a, AT_PHENT));
    put_kv("AT_PHNUM", (long)aux(a, AT_PHNUM));
    /* The program headers are mapped: the first is PT_LOAD or PT_PHDR. */
    const unsigned int *ph = (const unsigned int *)aux(a, AT_PHDR);
    put_kv("AT_PHDR[0].p_type", ph ? (long)ph[0] : -1);
    const char *execfn = (const char *)aux(a, AT_EXECFN);
    put_kv("AT_EXECFN is argv[0]", execfn && str_eq(execfn, argv[0]));
    put_str("AT_PLATFORM: ");
    put_str((const char *)aux(a, AT_PLATFORM));
    put_str("\n");
    const unsigned char *rnd = (const unsigned char *)aux(a, AT_RANDOM);
    int nonzero = 0;
    for (int i = 0; rnd && i < 16; i++)
        nonzero |= rnd[i];
    put_kv("AT_RANDOM has 16 bytes, not all zero", rnd && nonzero);
    /* The strings sit above the vector, the random bytes too. */
    put_kv("AT_RANDOM above the vector", (unsigned long)rnd > (unsigned long)a);
    const unsigned char *vdso = (const unsigned char *)aux(a, AT_SYSINFO_EHDR);
    put_kv("AT_SYSINFO_EHDR is an ELF image",
           vdso && vdso[0] == 0x7f && vdso[1] == 'E' && vdso[2] == 'L' && vdso[3] == 'F');
    put_kv("AT_SYSINFO_EHDR class matches", vdso && vdso[4] == (sizeof(long) == 8 ? 2 : 1));
    put_str("keys:");
    for (unsigned long *k = a; k[0] != AT_NULL; k += 2) {
        put_str(" ");
        put_dec((long)k[0]);
    }
    put_str("\n");
    sys_exit(0);
    for (;;)
        ;
}
