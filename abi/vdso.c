#include "abi/vdso.h"

#include <glib.h>
#include <string.h>

#include "abi/bytes_le.h"
#include "abi/linux.h"

/* Version indexes in the order Linux's linker scripts define the versions
 * (arch/x86/entry/vdso/vdso.lds.S and vdso32/vdso32.lds.S); index 1 is the
 * file itself.  Go's runtime walks the definitions without checking that
 * there are any, and glibc and musl match a symbol's version against them. */
enum { VER_FILE = 1, VER_LINUX_2_6 = 2, VER_LINUX_2_5 = 3 };

/* The ELF constants the image uses (the host may have no <elf.h>). */
enum {
    PT_LOAD_ELF = 1,
    PT_DYNAMIC_ELF = 2,
    DT_NULL_ELF = 0,
    DT_HASH_ELF = 4,
    DT_STRTAB_ELF = 5,
    DT_SYMTAB_ELF = 6,
    DT_STRSZ_ELF = 10,
    DT_SYMENT_ELF = 11,
    DT_SONAME_ELF = 14,
    DT_VERSYM_ELF = 0x6ffffff0,
    DT_VERDEF_ELF = 0x6ffffffc,
    DT_VERDEFNUM_ELF = 0x6ffffffd,
    STB_GLOBAL_ELF = 1,
    STB_WEAK_ELF = 2,
    STT_FUNC_ELF = 2,
    VER_FLG_BASE_ELF = 1,
    VERDEF_SIZE_ELF = 20,  /* Elf32_Verdef and Elf64_Verdef alike */
    VERDAUX_SIZE_ELF = 8,
};

#define MAX_SYMS 20
#define MAX_STR 512

struct symbol {
    uint32_t name;            /* dynstr offset */
    uint32_t value, size;
    uint8_t bind;
    uint16_t version;
};

struct builder {
    struct vdso_image *img;
    bool is64;
    uint32_t text;            /* next free text byte */
    struct symbol sym[MAX_SYMS];
    uint32_t nsym;            /* entry 0, the null symbol, not counted */
    char str[MAX_STR];        /* dynstr; offset 0 is the empty name */
    uint32_t strsz;
    uint32_t ver_name[4];     /* dynstr offset of each version's name */
    uint16_t nver;            /* the file's definition included */
};

/* Where each table goes: one after the other behind the program headers,
 * all before the text. */
struct placement {
    uint32_t dynamic, hash, dynsym, versym, verdef, dynstr, end;
};

static uint32_t add_string(struct builder *b, const char *s)
{
    uint32_t at = b->strsz;
    size_t n = strlen(s) + 1;
    g_assert(at + n <= MAX_STR);
    memcpy(b->str + at, s, n);
    b->strsz += (uint32_t)n;
    return at;
}

static void add_version(struct builder *b, uint16_t index, const char *name)
{
    g_assert(index == b->nver + 1 && index < G_N_ELEMENTS(b->ver_name));
    b->ver_name[index] = add_string(b, name);
    b->nver = index;
}

static uint32_t emit(struct builder *b, const uint8_t *code, size_t len)
{
    uint32_t at = b->text;
    memcpy(b->img->bytes + at, code, len);
    b->text += (uint32_t)len;
    b->text = (b->text + 15) & ~15u; /* functions 16-byte aligned */
    return at;
}

static void add_symbol_bound(struct builder *b, const char *name, uint32_t value, uint32_t size,
                             uint8_t bind, uint16_t version)
{
    g_assert(b->nsym + 1 < MAX_SYMS);
    b->sym[++b->nsym] = (struct symbol){ .name = add_string(b, name), .value = value,
                                         .size = size, .bind = bind, .version = version };
}

static void add_symbol(struct builder *b, const char *name, uint32_t value, uint32_t size,
                       uint16_t version)
{
    add_symbol_bound(b, name, value, size, STB_GLOBAL_ELF, version);
}

/* The System V ELF hash: the symbol hash table's, and each version
 * definition's vd_hash, which glibc and Go compare before the name. */
static uint32_t elf_hash(const char *name)
{
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h << 4) + *p;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

/* A time function: a hook point, then the real system call as fallback
 * (for clocks the vDSO does not serve), then the `ret` a served call
 * resumes at.  x86_64's also answers to the libc name, a weak alias, as
 * Linux's vdso.lds.S exports it. */
static void time_fn_64(struct builder *b, enum vdso_fn fn, const char *name, const char *alias,
                       uint32_t nr)
{
    uint8_t code[] = { 0x90,                         /* nop: hook */
                       0xb8, nr, nr >> 8, 0, 0,      /* mov eax, nr */
                       0x0f, 0x05,                   /* syscall */
                       0xc3 };                       /* ret */
    uint32_t at = emit(b, code, sizeof(code));
    b->img->fn[fn] = at;
    b->img->fn_done[fn] = at + sizeof(code) - 1;
    add_symbol(b, name, at, sizeof(code), VER_LINUX_2_6);
    add_symbol_bound(b, alias, at, sizeof(code), STB_WEAK_ELF, VER_LINUX_2_6);
}

static void time_fn_32(struct builder *b, enum vdso_fn fn, const char *name, uint32_t nr)
{
    uint8_t code[] = { 0x90,                         /* nop: hook */
                       0x53,                         /* push ebx */
                       0x8b, 0x5c, 0x24, 0x08,       /* mov ebx, [esp+8] */
                       0x8b, 0x4c, 0x24, 0x0c,       /* mov ecx, [esp+12] */
                       0xb8, nr, nr >> 8, 0, 0,      /* mov eax, nr */
                       0xcd, 0x80,                   /* int 0x80 */
                       0x5b,                         /* pop ebx */
                       0xc3 };                       /* ret */
    uint32_t at = emit(b, code, sizeof(code));
    b->img->fn[fn] = at;
    b->img->fn_done[fn] = at + sizeof(code) - 1;
    add_symbol(b, name, at, sizeof(code), VER_LINUX_2_6);
}

static void build_text_32(struct builder *b, bool sysenter_fast)
{
    /* Linux's arch/x86/entry/vdso/vdso32/system_call.S, patched per CPU. */
    uint8_t vsys[] = { 0x51,             /* push ecx */
                       0x52,             /* push edx */
                       0x55,             /* push ebp */
                       0x89, 0xe5,       /* mov ebp, esp   | mov ebp, ecx */
                       0x0f, 0x34,       /* sysenter       | syscall */
                       0xcd, 0x80,       /* int 0x80 */
                       0x5d,             /* int80_landing_pad: pop ebp */
                       0x5a,             /* pop edx */
                       0x59,             /* pop ecx */
                       0xc3 };           /* ret */
    if (!sysenter_fast) {
        vsys[4] = 0xcd;
        vsys[6] = 0x05;
    }
    uint32_t at = emit(b, vsys, sizeof(vsys));
    b->img->vsyscall = at;
    b->img->int80_pad = at + 9;
    add_symbol(b, "__kernel_vsyscall", at, sizeof(vsys), VER_LINUX_2_5);

    static const uint8_t sigret[] = { 0x58, 0xb8, 119, 0, 0, 0, 0xcd, 0x80, 0x90 };
    b->img->sigreturn = emit(b, sigret, sizeof(sigret));
    add_symbol(b, "__kernel_sigreturn", b->img->sigreturn, sizeof(sigret), VER_LINUX_2_5);
    static const uint8_t rtsigret[] = { 0xb8, 173, 0, 0, 0, 0xcd, 0x80, 0x90 };
    b->img->rt_sigreturn = emit(b, rtsigret, sizeof(rtsigret));
    add_symbol(b, "__kernel_rt_sigreturn", b->img->rt_sigreturn, sizeof(rtsigret),
               VER_LINUX_2_5);

    time_fn_32(b, VDSO_CLOCK_GETTIME, "__vdso_clock_gettime", 265);
    time_fn_32(b, VDSO_CLOCK_GETTIME64, "__vdso_clock_gettime64", 403);
    time_fn_32(b, VDSO_GETTIMEOFDAY, "__vdso_gettimeofday", 78);
    time_fn_32(b, VDSO_TIME, "__vdso_time", 13);
    time_fn_32(b, VDSO_CLOCK_GETRES, "__vdso_clock_getres", 266);
    time_fn_32(b, VDSO_GETCPU, "__vdso_getcpu", 318);
}

static void build_text_64(struct builder *b)
{
    time_fn_64(b, VDSO_CLOCK_GETTIME, "__vdso_clock_gettime", "clock_gettime", 228);
    time_fn_64(b, VDSO_GETTIMEOFDAY, "__vdso_gettimeofday", "gettimeofday", 96);
    time_fn_64(b, VDSO_TIME, "__vdso_time", "time", 201);
    time_fn_64(b, VDSO_CLOCK_GETRES, "__vdso_clock_getres", "clock_getres", 229);
    time_fn_64(b, VDSO_GETCPU, "__vdso_getcpu", "getcpu", 309);
}

static uint32_t align(uint32_t v, uint32_t a)
{
    return (v + a - 1) & ~(a - 1);
}

enum { NDYN = 10 }; /* the entries build_dynamic writes, DT_NULL included */

static struct placement place(const struct builder *b)
{
    uint32_t dyn_ent = b->is64 ? 16 : 8, sym_ent = b->is64 ? 24 : 16;
    uint32_t phdrs = b->is64 ? 64 + 2 * 56 : 52 + 2 * 32;
    uint32_t nsyms = b->nsym + 1;
    struct placement p;
    p.dynamic = align(phdrs, 8);
    p.hash = align(p.dynamic + NDYN * dyn_ent, 8);
    p.dynsym = align(p.hash + 4 * (3 + nsyms), 8);
    p.versym = p.dynsym + nsyms * sym_ent;
    p.verdef = align(p.versym + 2 * nsyms, 4);
    p.dynstr = p.verdef + b->nver * (VERDEF_SIZE_ELF + VERDAUX_SIZE_ELF);
    p.end = p.dynstr + b->strsz;
    g_assert(p.end <= VDSO_TEXT);
    return p;
}

/* SysV hash with one bucket: every lookup walks the one chain, which is
 * all symbols. */
static void build_hash(const struct builder *b, const struct placement *p)
{
    uint8_t *h = b->img->bytes + p->hash;
    uint32_t nchain = b->nsym + 1;
    put_le32(h, 1);
    put_le32(h + 4, nchain);
    put_le32(h + 8, b->nsym);
    for (uint32_t i = 0; i < nchain; i++)
        put_le32(h + 12 + i * 4, i ? i - 1 : 0);
}

static void build_symbols(const struct builder *b, const struct placement *p)
{
    for (uint32_t i = 1; i <= b->nsym; i++) {
        const struct symbol *y = &b->sym[i];
        uint8_t info = (uint8_t)(y->bind << 4 | STT_FUNC_ELF);
        if (b->is64) {
            uint8_t *s = b->img->bytes + p->dynsym + i * 24;
            put_le32(s, y->name);
            s[4] = info;
            put_le16(s + 6, 1); /* any defined section: only SHN_UNDEF matters */
            put_le64(s + 8, y->value);
            put_le64(s + 16, y->size);
        } else {
            uint8_t *s = b->img->bytes + p->dynsym + i * 16;
            put_le32(s, y->name);
            put_le32(s + 4, y->value);
            put_le32(s + 8, y->size);
            s[12] = info;
            put_le16(s + 14, 1);
        }
        put_le16(b->img->bytes + p->versym + i * 2, y->version);
    }
}

/* One Verdef with its one Verdaux per version, chained by vd_next. */
static void build_versions(const struct builder *b, const struct placement *p)
{
    const uint32_t step = VERDEF_SIZE_ELF + VERDAUX_SIZE_ELF;
    for (uint16_t v = 1; v <= b->nver; v++) {
        uint8_t *d = b->img->bytes + p->verdef + (v - 1) * step;
        put_le16(d, 1);                                  /* vd_version */
        put_le16(d + 2, v == VER_FILE ? VER_FLG_BASE_ELF : 0);
        put_le16(d + 4, v);                              /* vd_ndx */
        put_le16(d + 6, 1);                              /* vd_cnt */
        put_le32(d + 8, elf_hash(b->str + b->ver_name[v]));
        put_le32(d + 12, VERDEF_SIZE_ELF);               /* vd_aux */
        put_le32(d + 16, v < b->nver ? step : 0);        /* vd_next */
        put_le32(d + 20, b->ver_name[v]);                /* vda_name */
        put_le32(d + 24, 0);                             /* vda_next */
    }
    memcpy(b->img->bytes + p->dynstr, b->str, b->strsz);
}

static void build_dynamic(const struct builder *b, const struct placement *p)
{
    const uint64_t dyn[NDYN][2] = {
        { DT_SONAME_ELF, b->ver_name[VER_FILE] },
        { DT_HASH_ELF, p->hash },
        { DT_STRTAB_ELF, p->dynstr },
        { DT_SYMTAB_ELF, p->dynsym },
        { DT_STRSZ_ELF, b->strsz },
        { DT_SYMENT_ELF, b->is64 ? 24 : 16 },
        { DT_VERSYM_ELF, p->versym },
        { DT_VERDEF_ELF, p->verdef },
        { DT_VERDEFNUM_ELF, b->nver },
        { DT_NULL_ELF, 0 },
    };
    uint8_t *d = b->img->bytes + p->dynamic;
    for (size_t i = 0; i < NDYN; i++) {
        if (b->is64) {
            put_le64(d + i * 16, dyn[i][0]);
            put_le64(d + i * 16 + 8, dyn[i][1]);
        } else {
            put_le32(d + i * 8, (uint32_t)dyn[i][0]);
            put_le32(d + i * 8 + 4, (uint32_t)dyn[i][1]);
        }
    }
}

static void build_headers(const struct builder *b, const struct placement *pl)
{
    uint8_t *e = b->img->bytes;
    static const uint8_t ident[] = { 0x7f, 'E', 'L', 'F' };
    memcpy(e, ident, 4);
    e[4] = b->is64 ? 2 : 1; /* ELFCLASS */
    e[5] = 1;               /* little endian */
    e[6] = 1;               /* EV_CURRENT */
    put_le16(e + 16, 3);       /* ET_DYN */
    put_le16(e + 18, b->is64 ? 62 : 3);
    put_le32(e + 20, 1);
    uint32_t dynsz = NDYN * (b->is64 ? 16 : 8);
    if (b->is64) {
        put_le64(e + 32, 64);    /* e_phoff */
        put_le16(e + 52, 64);
        put_le16(e + 54, 56);
        put_le16(e + 56, 2);
        put_le16(e + 58, 64);
        uint8_t *p = e + 64;
        put_le32(p, PT_LOAD_ELF);
        put_le32(p + 4, 5);      /* R+X */
        put_le64(p + 32, VDSO_SIZE);
        put_le64(p + 40, VDSO_SIZE);
        put_le64(p + 48, VDSO_SIZE);
        p += 56;
        put_le32(p, PT_DYNAMIC_ELF);
        put_le32(p + 4, 4);
        put_le64(p + 8, pl->dynamic);
        put_le64(p + 16, pl->dynamic);
        put_le64(p + 24, pl->dynamic);
        put_le64(p + 32, dynsz);
        put_le64(p + 40, dynsz);
        put_le64(p + 48, 8);
    } else {
        put_le32(e + 24, b->img->vsyscall); /* e_entry: ENTRY(__kernel_vsyscall) */
        put_le32(e + 28, 52);    /* e_phoff */
        put_le16(e + 40, 52);
        put_le16(e + 42, 32);
        put_le16(e + 44, 2);
        put_le16(e + 46, 40);
        uint8_t *p = e + 52;
        put_le32(p, PT_LOAD_ELF);
        put_le32(p + 16, VDSO_SIZE);
        put_le32(p + 20, VDSO_SIZE);
        put_le32(p + 24, 5);
        put_le32(p + 28, VDSO_SIZE);
        p += 32;
        put_le32(p, PT_DYNAMIC_ELF);
        put_le32(p + 4, pl->dynamic);
        put_le32(p + 8, pl->dynamic);
        put_le32(p + 12, pl->dynamic);
        put_le32(p + 16, dynsz);
        put_le32(p + 20, dynsz);
        put_le32(p + 24, 4);
        put_le32(p + 28, 4);
    }
}

void vdso_build(struct vdso_image *img, bool is64, bool sysenter_fast)
{
    memset(img, 0, sizeof(*img));
    struct builder b = { .img = img, .is64 = is64, .text = VDSO_TEXT, .strsz = 1 };
    add_version(&b, VER_FILE, is64 ? "linux-vdso.so.1" : "linux-gate.so.1");
    add_version(&b, VER_LINUX_2_6, "LINUX_2.6");
    if (!is64)
        add_version(&b, VER_LINUX_2_5, "LINUX_2.5");
    /* Unused text is int3, so a stray jump traps instead of sliding. */
    memset(img->bytes + VDSO_TEXT, 0xcc, VDSO_SIZE - VDSO_TEXT);
    if (is64)
        build_text_64(&b);
    else
        build_text_32(&b, sysenter_fast);
    g_assert(b.text <= VDSO_SIZE);
    struct placement p = place(&b);
    build_hash(&b, &p);
    build_symbols(&b, &p);
    build_versions(&b, &p);
    build_dynamic(&b, &p);
    build_headers(&b, &p);
}
