#include "loaders/stack.h"

#include <string.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h> /* getentropy */
#endif

#include "abi/linux.h"
#include "abi/sigframe_linux.h"
#include "emu/kernel/task.h"

/* A cursor writing downwards through guest memory. */
struct cursor {
    struct task *t;
    uint64_t p;
    bool ok;
};

static uint64_t push_bytes(struct cursor *c, const void *data, size_t n)
{
    c->p -= n;
    if (!mm_write(c->t->mm, c->p, data, n))
        c->ok = false;
    return c->p;
}

static uint64_t push_string(struct cursor *c, const char *s)
{
    return push_bytes(c, s, strlen(s) + 1);
}

err_t stack_build(struct task *t, const struct elf_info *info, const struct elf_loaded *ld,
                  char **argv, char **envp, const char *execfn, uint64_t *sp)
{
    bool is64 = info->is64;
    uint64_t top = TASK_SIZE_LINUX(is64);
    int prot = PROT_READ_LINUX | PROT_WRITE_LINUX | (info->exec_stack ? PROT_EXEC_LINUX : 0);

    size_t argc = g_strv_length(argv), envc = g_strv_length(envp);
    /* Strings first, as copy_strings leaves them: argv, envp, then the file
     * name, ending just below a NULL word at the very top. */
    size_t strbytes = strlen(execfn) + 1;
    for (size_t i = 0; i < argc; i++)
        strbytes += strlen(argv[i]) + 1;
    for (size_t i = 0; i < envc; i++)
        strbytes += strlen(envp[i]) + 1;
    if (strbytes > STACK_SIZE_DEFAULT / 4)
        return err_new("arguments and environment too long (%zu bytes)", strbytes);

    /* setup_arg_pages(): what the arguments fill plus 128 KiB; the rest
     * grows on demand up to RLIMIT_STACK (emu/entry/fault.c). */
    uint64_t used = strbytes + (argc + envc + 3) * 8 + 64 * 8 + 256;
    uint64_t size = ((used + PAGE_SIZE_LINUX - 1) & ~(uint64_t)(PAGE_SIZE_LINUX - 1)) +
                    STACK_EXPAND;
    uint64_t rlim = t->group->rlim[RLIMIT_STACK_LINUX].cur;
    if (rlim < size && rlim > used)
        size = (rlim + PAGE_SIZE_LINUX - 1) & ~(uint64_t)(PAGE_SIZE_LINUX - 1);
    err_t e = mm_map_fixed(t->mm, top - size, size, prot, STACK_VMA_NAME, NULL);
    if (e)
        return e;

    unsigned ptr = is64 ? 8 : 4;
    struct cursor c = { t, top - ptr, true };
    uint64_t execfn_at = push_string(&c, execfn);
    g_autofree uint64_t *argv_at = g_new0(uint64_t, argc + 1);
    g_autofree uint64_t *envp_at = g_new0(uint64_t, envc + 1);
    for (size_t i = envc; i-- > 0;)
        envp_at[i] = push_string(&c, envp[i]);
    for (size_t i = argc; i-- > 0;)
        argv_at[i] = push_string(&c, argv[i]);
    c.p &= ~15ull;
    uint64_t platform = push_string(&c, is64 ? "x86_64" : "i686");
    uint8_t rnd[16];
    if (getentropy(rnd, sizeof(rnd)) != 0)
        return err_new("no host randomness for AT_RANDOM");
    uint64_t random = push_bytes(&c, rnd, sizeof(rnd));

    uint64_t aux[32][2];
    size_t na = 0;
#define AUX(k, v) (aux[na][0] = (k), aux[na][1] = (v), na++)
    if (!is64)
        AUX(AT_SYSINFO_LINUX, t->mm->layout.vsyscall);
    AUX(AT_SYSINFO_EHDR_LINUX, t->mm->layout.vdso);
    AUX(AT_MINSIGSTKSZ_LINUX, min_sigstack_size_linux(t->cpu->xcr0));
    AUX(AT_HWCAP_LINUX, 0x078bfbff); /* cpuid(1).edx of the emulated CPU */
    AUX(AT_PAGESZ_LINUX, PAGE_SIZE_LINUX);
    AUX(AT_CLKTCK_LINUX, 100);
    AUX(AT_PHDR_LINUX, ld->phdr);
    AUX(AT_PHENT_LINUX, info->phent);
    AUX(AT_PHNUM_LINUX, info->phnum);
    AUX(AT_BASE_LINUX, 0);
    AUX(AT_FLAGS_LINUX, 0);
    AUX(AT_ENTRY_LINUX, ld->entry);
    AUX(AT_UID_LINUX, getuid());
    AUX(AT_EUID_LINUX, geteuid());
    AUX(AT_GID_LINUX, getgid());
    AUX(AT_EGID_LINUX, getegid());
    AUX(AT_SECURE_LINUX, 0);
    AUX(AT_RANDOM_LINUX, random);
    AUX(AT_HWCAP2_LINUX, 0);
    AUX(AT_EXECFN_LINUX, execfn_at);
    AUX(AT_PLATFORM_LINUX, platform);
    /* rseq's layout: the fields this kernel fills, and the alignment */
    AUX(AT_RSEQ_FEATURE_SIZE_LINUX, RSEQ_FEATURE_SIZE_LINUX);
    AUX(AT_RSEQ_ALIGN_LINUX, RSEQ_ALIGN_LINUX);
    AUX(AT_NULL_LINUX, 0);
#undef AUX

    /* argc, argv[], NULL, envp[], NULL, auxv: the final sp 16-aligned. */
    size_t words = 1 + (argc + 1) + (envc + 1) + na * 2;
    c.p = (c.p - words * ptr) & ~15ull;
    uint64_t at = c.p;
    g_autofree uint8_t *block = g_malloc0(words * ptr);
    size_t w = 0;
#define PUT(v) do { uint64_t _v = (v); memcpy(block + (w++) * ptr, &_v, ptr); } while (0)
    PUT(argc);
    for (size_t i = 0; i <= argc; i++)
        PUT(argv_at[i]);
    for (size_t i = 0; i <= envc; i++)
        PUT(envp_at[i]);
    for (size_t i = 0; i < na; i++) {
        PUT(aux[i][0]);
        PUT(aux[i][1]);
    }
#undef PUT
    if (!c.ok || !mm_write(t->mm, at, block, words * ptr))
        return err_new("initial stack does not fit");
    *sp = at;
    return OK;
}
