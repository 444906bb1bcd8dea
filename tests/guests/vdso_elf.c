/* The vDSO as the runtimes read it: the ELF image at AT_SYSINFO_EHDR, its
 * dynamic table, version definitions and symbols, looked up by name and
 * version the way Go's runtime (vdso_linux.go), glibc (_dl_vdso_vsym) and
 * musl (vdso.c) do, then each function called and checked against the
 * system call it stands for.  Go dereferences the version definitions
 * without checking that they exist: a vDSO without them kills every Go
 * program at its first instructions. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef DT_GNU_HASH
#define DT_GNU_HASH 0x6ffffef5
#endif

static uintptr_t load_offset;
static const char *strtab;
static const ElfW(Sym) *symtab;
static const Elf32_Word *sysv_hash;
static const Elf32_Word *gnu_hash_tab;
static const ElfW(Half) *versym;
static const ElfW(Verdef) *verdef;
static uintptr_t text_lo, text_hi;

static uint32_t elf_hash(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++) {
        h = (h << 4) + (unsigned char)*s;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

static uint32_t dl_new_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

/* The index of version `name`, or -1: glibc and Go compare the hash first. */
static int version_index(const char *name)
{
    const ElfW(Verdef) *d = verdef;
    while (d) {
        const ElfW(Verdaux) *a = (const void *)((const char *)d + d->vd_aux);
        if (!(d->vd_flags & VER_FLG_BASE) && d->vd_hash == elf_hash(name) &&
            !strcmp(strtab + a->vda_name, name))
            return d->vd_ndx & 0x7fff;
        if (!d->vd_next)
            break;
        d = (const void *)((const char *)d + d->vd_next);
    }
    return -1;
}

static int symbol_matches(uint32_t i, const char *name, int ver)
{
    const ElfW(Sym) *s = &symtab[i];
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    if ((type != STT_FUNC && type != STT_NOTYPE) || (bind != STB_GLOBAL && bind != STB_WEAK) ||
        s->st_shndx == SHN_UNDEF || strcmp(strtab + s->st_name, name))
        return 0;
    return !versym || (versym[i] & 0x7fff) == ver;
}

/* Through the SysV hash if there is one (Go's and musl's way), else GNU's. */
static const ElfW(Sym) *lookup(const char *name, int ver)
{
    if (sysv_hash) {
        uint32_t nbucket = sysv_hash[0];
        const uint32_t *bucket = sysv_hash + 2, *chain = bucket + nbucket;
        for (uint32_t i = bucket[elf_hash(name) % nbucket]; i; i = chain[i])
            if (symbol_matches(i, name, ver))
                return &symtab[i];
        return NULL;
    }
    if (gnu_hash_tab) {
        uint32_t nbucket = gnu_hash_tab[0], symoff = gnu_hash_tab[1], bloom = gnu_hash_tab[2];
        const uint32_t *bucket = gnu_hash_tab + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
        const uint32_t *chain = bucket + nbucket;
        uint32_t h = dl_new_hash(name), i = bucket[h % nbucket];
        if (i < symoff)
            return NULL;
        for (;; i++) {
            uint32_t ch = chain[i - symoff];
            if ((ch | 1) == (h | 1) && symbol_matches(i, name, ver))
                return &symtab[i];
            if (ch & 1)
                return NULL;
        }
    }
    return NULL;
}

static int parse(uintptr_t base)
{
    const ElfW(Ehdr) *eh = (const void *)base;
    printf("ELF magic %d, class %d, type %d, machine %d\n", !memcmp(eh->e_ident, ELFMAG, SELFMAG),
           eh->e_ident[EI_CLASS], eh->e_type, eh->e_machine);
    const ElfW(Phdr) *ph = (const void *)(base + eh->e_phoff);
    const ElfW(Dyn) *dyn = NULL;
    int loads = 0;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && !loads++) {
            load_offset = base + ph[i].p_offset - ph[i].p_vaddr;
            text_lo = load_offset + ph[i].p_vaddr;
            text_hi = text_lo + ph[i].p_memsz;
            printf("first PT_LOAD: offset %ld, flags %c%c%c\n", (long)ph[i].p_offset,
                   ph[i].p_flags & PF_R ? 'r' : '-', ph[i].p_flags & PF_W ? 'w' : '-',
                   ph[i].p_flags & PF_X ? 'x' : '-');
        }
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const void *)(base + ph[i].p_offset);
    }
    printf("PT_LOAD: %d, PT_DYNAMIC: %d\n", loads > 0, dyn != NULL);
    if (!loads || !dyn)
        return -1;
    const char *soname = NULL;
    long soname_off = -1, verdefnum = -1, syment = -1;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = load_offset + dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_STRTAB: strtab = (const void *)p; break;
        case DT_SYMTAB: symtab = (const void *)p; break;
        case DT_HASH: sysv_hash = (const void *)p; break;
        case DT_GNU_HASH: gnu_hash_tab = (const void *)p; break;
        case DT_VERSYM: versym = (const void *)p; break;
        case DT_VERDEF: verdef = (const void *)p; break;
        case DT_VERDEFNUM: verdefnum = (long)dyn->d_un.d_val; break;
        case DT_SONAME: soname_off = (long)dyn->d_un.d_val; break;
        case DT_SYMENT: syment = (long)dyn->d_un.d_val; break;
        }
    }
    if (strtab && soname_off >= 0)
        soname = strtab + soname_off;
    printf("DT_STRTAB %d, DT_SYMTAB %d, a hash table %d, DT_SYMENT %ld\n", strtab != NULL,
           symtab != NULL, sysv_hash || gnu_hash_tab, syment);
    printf("DT_SONAME %s\n", soname ? soname : "(none)");
    printf("DT_VERSYM %d, DT_VERDEF %d, DT_VERDEFNUM %ld\n", versym != NULL, verdef != NULL,
           verdefnum);
    if (!strtab || !symtab || !(sysv_hash || gnu_hash_tab))
        return -1;
    long n = 0;
    for (const ElfW(Verdef) *d = verdef; d; d = (const void *)((const char *)d + d->vd_next)) {
        const ElfW(Verdaux) *a = (const void *)((const char *)d + d->vd_aux);
        const char *name = strtab + a->vda_name;
        printf("version %d: %s%s, rev %d, %d aux, hash %s\n", d->vd_ndx, name,
               d->vd_flags & VER_FLG_BASE ? " (base)" : "", d->vd_version, d->vd_cnt,
               d->vd_hash == elf_hash(name) ? "right" : "WRONG");
        if (++n > 16 || !d->vd_next)
            break;
    }
    printf("version definitions counted: %ld\n", n);
    return 0;
}

static const ElfW(Sym) *show(const char *name, const char *version)
{
    int ver = version_index(version);
    const ElfW(Sym) *s = ver < 0 && versym ? NULL : lookup(name, ver);
    if (!s) {
        printf("%s@%s: absent\n", name, version);
        return NULL;
    }
    uintptr_t at = load_offset + s->st_value;
    printf("%s@%s: %s %s, inside the image %d\n", name, version,
           ELF64_ST_TYPE(s->st_info) == STT_FUNC ? "FUNC" : "NOTYPE",
           ELF64_ST_BIND(s->st_info) == STB_WEAK ? "WEAK" : "GLOBAL",
           at >= text_lo && at < text_hi);
    return s;
}

static void *fn(const char *name, const char *version)
{
    const ElfW(Sym) *s = show(name, version);
    return s ? (void *)(load_offset + s->st_value) : NULL;
}

#ifdef __x86_64__
static void same(const char *alias, const char *name, const char *version)
{
    const ElfW(Sym) *a = show(alias, version), *s = lookup(name, version_index(version));
    if (a && s)
        printf("  %s is %s: %d\n", alias, name, a->st_value == s->st_value);
}
#endif

struct ts64 {
    int64_t sec, nsec;
};
struct ts32 {
    int32_t sec, nsec;
};

static int64_t ns_of(int64_t s, int64_t ns)
{
    return s * 1000000000 + ns;
}

static void check_clock(void *f, int wide)
{
    if (!f)
        return;
    struct timespec a, b;
    int64_t got;
    int r;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
    if (wide) {
        struct ts64 t;
        r = ((int (*)(clockid_t, struct ts64 *))f)(CLOCK_MONOTONIC, &t);
        got = ns_of(t.sec, t.nsec);
    } else {
        struct ts32 t;
        r = ((int (*)(clockid_t, struct ts32 *))f)(CLOCK_MONOTONIC, &t);
        got = ns_of(t.sec, t.nsec);
    }
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &b);
    printf("  CLOCK_MONOTONIC: returns %d, between two system calls %d\n", r,
           got >= ns_of(a.tv_sec, a.tv_nsec) && got <= ns_of(b.tv_sec, b.tv_nsec));
    if (wide) {
        struct ts64 t;
        r = ((int (*)(clockid_t, struct ts64 *))f)(12345, &t);
    } else {
        struct ts32 t;
        r = ((int (*)(clockid_t, struct ts32 *))f)(12345, &t);
    }
    printf("  clock 12345: returns %d\n", r);
}

static void check_getres(void *f, int wide)
{
    if (!f)
        return;
    struct timespec k;
    syscall(SYS_clock_getres, CLOCK_MONOTONIC, &k);
    int64_t got;
    int r;
    if (wide) {
        struct ts64 t;
        r = ((int (*)(clockid_t, struct ts64 *))f)(CLOCK_MONOTONIC, &t);
        got = ns_of(t.sec, t.nsec);
    } else {
        struct ts32 t;
        r = ((int (*)(clockid_t, struct ts32 *))f)(CLOCK_MONOTONIC, &t);
        got = ns_of(t.sec, t.nsec);
    }
    printf("  CLOCK_MONOTONIC resolution: returns %d, the system call's %d\n", r,
           got == ns_of(k.tv_sec, k.tv_nsec));
}

static void check_gettimeofday(void *f)
{
    if (!f)
        return;
    struct timeval tv;
    long before = syscall(SYS_time, NULL);
    int r = ((int (*)(struct timeval *, void *))f)(&tv, NULL);
    long after = syscall(SYS_time, NULL);
    printf("  returns %d, seconds between two time() %d, usec < 1e6 %d\n", r,
           tv.tv_sec >= before && tv.tv_sec <= after, tv.tv_usec >= 0 && tv.tv_usec < 1000000);
}

static void check_time(void *f)
{
    if (!f)
        return;
    long before = syscall(SYS_time, NULL);
    long stored = 0;
    long r = ((long (*)(long *))f)(&stored);
    long after = syscall(SYS_time, NULL);
    printf("  returns the stored value %d, between two time() %d\n", r == stored,
           r >= before && r <= after);
}

static void check_getcpu(void *f)
{
    if (!f)
        return;
    unsigned cpu = ~0u, node = ~0u;
    int r = ((int (*)(unsigned *, unsigned *, void *))f)(&cpu, &node, NULL);
    printf("  returns %d, a cpu below 4096 %d, a node below 1024 %d\n", r, cpu < 4096,
           node < 1024);
}

int main(void)
{
    uintptr_t base = getauxval(AT_SYSINFO_EHDR);
    printf("AT_SYSINFO_EHDR present %d\n", base != 0);
    if (!base || parse(base) < 0)
        return 1;
    /* Go's key for the version (runtime/vdso_linux_amd64.go, _386.go). */
    printf("Go's LINUX_2.6 hash 0x3ae75f6 is the ELF hash: %d\n", elf_hash("LINUX_2.6") == 0x3ae75f6);
    printf("version LINUX_2.4 (none): %d\n", version_index("LINUX_2.4"));
#ifdef __x86_64__
    check_clock(fn("__vdso_clock_gettime", "LINUX_2.6"), 1);
    check_gettimeofday(fn("__vdso_gettimeofday", "LINUX_2.6"));
    check_time(fn("__vdso_time", "LINUX_2.6"));
    check_getres(fn("__vdso_clock_getres", "LINUX_2.6"), 1);
    check_getcpu(fn("__vdso_getcpu", "LINUX_2.6"));
    same("clock_gettime", "__vdso_clock_gettime", "LINUX_2.6");
    same("gettimeofday", "__vdso_gettimeofday", "LINUX_2.6");
    same("time", "__vdso_time", "LINUX_2.6");
    same("clock_getres", "__vdso_clock_getres", "LINUX_2.6");
    same("getcpu", "__vdso_getcpu", "LINUX_2.6");
    show("__vdso_clock_gettime", "LINUX_2.5");
    show("__vdso_clock_gettime64", "LINUX_2.6");
#else
    check_clock(fn("__vdso_clock_gettime", "LINUX_2.6"), 0);
    check_clock(fn("__vdso_clock_gettime64", "LINUX_2.6"), 1);
    check_gettimeofday(fn("__vdso_gettimeofday", "LINUX_2.6"));
    check_time(fn("__vdso_time", "LINUX_2.6"));
    check_getres(fn("__vdso_clock_getres", "LINUX_2.6"), 0);
    check_getres(fn("__vdso_clock_getres_time64", "LINUX_2.6"), 1);
    check_getcpu(fn("__vdso_getcpu", "LINUX_2.6"));
    const ElfW(Sym) *v = show("__kernel_vsyscall", "LINUX_2.5");
    if (v)
        printf("  AT_SYSINFO is __kernel_vsyscall: %d\n",
               getauxval(AT_SYSINFO) == load_offset + v->st_value);
    show("__kernel_sigreturn", "LINUX_2.5");
    show("__kernel_rt_sigreturn", "LINUX_2.5");
    show("__kernel_vsyscall", "LINUX_2.6");
    show("__vdso_clock_gettime", "LINUX_2.5");
    show("clock_gettime", "LINUX_2.6");
#endif
    return 0;
}
