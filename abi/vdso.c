#include "abi/vdso.h"

#include <glib.h>
#include <string.h>

#include "abi/bytes_le.h"
#include "abi/linux.h"

/* Offsets inside the one page: headers, then dynamic data, then text. */
#define OFF_PHDR_64 0x40
#define OFF_PHDR_32 0x34
#define OFF_DYNAMIC 0x100
#define OFF_HASH 0x180
#define OFF_DYNSYM 0x200
#define OFF_DYNSTR 0x380
#define MAX_SYMS 14

struct builder {
    struct vdso_image *img;
    bool is64;
    uint32_t text;            /* next free text byte */
    uint32_t nsym;            /* entry 0 is the null symbol */
    uint32_t str;             /* next free dynstr byte (relative) */
};


static uint32_t emit(struct builder *b, const uint8_t *code, size_t len)
{
    uint32_t at = b->text;
    memcpy(b->img->bytes + at, code, len);
    b->text += (uint32_t)len;
    b->text = (b->text + 15) & ~15u; /* functions 16-byte aligned */
    return at;
}

static void add_symbol(struct builder *b, const char *name, uint32_t value, uint32_t size)
{
    uint8_t *strtab = b->img->bytes + OFF_DYNSTR;
    uint32_t name_off = b->str;
    size_t n = strlen(name) + 1;
    memcpy(strtab + name_off, name, n);
    b->str += (uint32_t)n;
    uint32_t idx = ++b->nsym;
    const uint8_t info = (1 << 4) | 2; /* STB_GLOBAL, STT_FUNC */
    if (b->is64) {
        uint8_t *s = b->img->bytes + OFF_DYNSYM + idx * 24;
        put_le32(s, name_off);
        s[4] = info;
        put_le16(s + 6, 1); /* any defined section: only SHN_UNDEF matters */
        put_le64(s + 8, value);
        put_le64(s + 16, size);
    } else {
        uint8_t *s = b->img->bytes + OFF_DYNSYM + idx * 16;
        put_le32(s, name_off);
        put_le32(s + 4, value);
        put_le32(s + 8, size);
        s[12] = info;
        put_le16(s + 14, 1);
    }
}

/* A time function: a hook point, then the real system call as fallback
 * (for clocks the vDSO does not serve), then the `ret` a served call
 * resumes at. */
static void time_fn_64(struct builder *b, enum vdso_fn fn, const char *name, uint32_t nr)
{
    uint8_t code[] = { 0x90,                         /* nop: hook */
                       0xb8, nr, nr >> 8, 0, 0,      /* mov eax, nr */
                       0x0f, 0x05,                   /* syscall */
                       0xc3 };                       /* ret */
    uint32_t at = emit(b, code, sizeof(code));
    b->img->fn[fn] = at;
    b->img->fn_done[fn] = at + sizeof(code) - 1;
    add_symbol(b, name, at, sizeof(code));
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
    add_symbol(b, name, at, sizeof(code));
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
    add_symbol(b, "__kernel_vsyscall", at, sizeof(vsys));

    static const uint8_t sigret[] = { 0x58, 0xb8, 119, 0, 0, 0, 0xcd, 0x80, 0x90 };
    b->img->sigreturn = emit(b, sigret, sizeof(sigret));
    add_symbol(b, "__kernel_sigreturn", b->img->sigreturn, sizeof(sigret));
    static const uint8_t rtsigret[] = { 0xb8, 173, 0, 0, 0, 0xcd, 0x80, 0x90 };
    b->img->rt_sigreturn = emit(b, rtsigret, sizeof(rtsigret));
    add_symbol(b, "__kernel_rt_sigreturn", b->img->rt_sigreturn, sizeof(rtsigret));

    time_fn_32(b, VDSO_CLOCK_GETTIME, "__vdso_clock_gettime", 265);
    time_fn_32(b, VDSO_CLOCK_GETTIME64, "__vdso_clock_gettime64", 403);
    time_fn_32(b, VDSO_GETTIMEOFDAY, "__vdso_gettimeofday", 78);
    time_fn_32(b, VDSO_TIME, "__vdso_time", 13);
    time_fn_32(b, VDSO_CLOCK_GETRES, "__vdso_clock_getres", 266);
    time_fn_32(b, VDSO_GETCPU, "__vdso_getcpu", 318);
}

static void build_text_64(struct builder *b)
{
    time_fn_64(b, VDSO_CLOCK_GETTIME, "__vdso_clock_gettime", 228);
    time_fn_64(b, VDSO_GETTIMEOFDAY, "__vdso_gettimeofday", 96);
    time_fn_64(b, VDSO_TIME, "__vdso_time", 201);
    time_fn_64(b, VDSO_CLOCK_GETRES, "__vdso_clock_getres", 229);
    time_fn_64(b, VDSO_GETCPU, "__vdso_getcpu", 309);
}

/* SysV hash with one bucket: glibc walks the chain, which is all symbols. */
static void build_hash(struct builder *b)
{
    uint8_t *h = b->img->bytes + OFF_HASH;
    uint32_t nchain = b->nsym + 1;
    put_le32(h, 1);
    put_le32(h + 4, nchain);
    put_le32(h + 8, b->nsym);
    for (uint32_t i = 0; i < nchain; i++)
        put_le32(h + 12 + i * 4, i ? i - 1 : 0);
}

static void build_dynamic(struct builder *b)
{
    const uint64_t dyn[][2] = {
        { 4, OFF_HASH },   /* DT_HASH */
        { 5, OFF_DYNSTR }, /* DT_STRTAB */
        { 6, OFF_DYNSYM }, /* DT_SYMTAB */
        { 10, b->str },    /* DT_STRSZ */
        { 11, b->is64 ? 24 : 16 }, /* DT_SYMENT */
        { 0, 0 },          /* DT_NULL */
    };
    uint8_t *d = b->img->bytes + OFF_DYNAMIC;
    for (size_t i = 0; i < G_N_ELEMENTS(dyn); i++) {
        if (b->is64) {
            put_le64(d + i * 16, dyn[i][0]);
            put_le64(d + i * 16 + 8, dyn[i][1]);
        } else {
            put_le32(d + i * 8, (uint32_t)dyn[i][0]);
            put_le32(d + i * 8 + 4, (uint32_t)dyn[i][1]);
        }
    }
}

static void build_headers(struct builder *b)
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
    uint32_t dynsz = 6 * (b->is64 ? 16 : 8);
    if (b->is64) {
        put_le64(e + 32, OFF_PHDR_64);
        put_le16(e + 52, 64);
        put_le16(e + 54, 56);
        put_le16(e + 56, 2);
        put_le16(e + 58, 64);
        uint8_t *p = e + OFF_PHDR_64;
        put_le32(p, 1);          /* PT_LOAD */
        put_le32(p + 4, 5);      /* R+X */
        put_le64(p + 32, VDSO_SIZE);
        put_le64(p + 40, VDSO_SIZE);
        put_le64(p + 48, VDSO_SIZE);
        p += 56;
        put_le32(p, 2);          /* PT_DYNAMIC */
        put_le32(p + 4, 4);
        put_le64(p + 8, OFF_DYNAMIC);
        put_le64(p + 16, OFF_DYNAMIC);
        put_le64(p + 24, OFF_DYNAMIC);
        put_le64(p + 32, dynsz);
        put_le64(p + 40, dynsz);
        put_le64(p + 48, 8);
    } else {
        put_le32(e + 28, OFF_PHDR_32);
        put_le16(e + 40, 52);
        put_le16(e + 42, 32);
        put_le16(e + 44, 2);
        put_le16(e + 46, 40);
        uint8_t *p = e + OFF_PHDR_32;
        put_le32(p, 1);
        put_le32(p + 16, VDSO_SIZE);
        put_le32(p + 20, VDSO_SIZE);
        put_le32(p + 24, 5);
        put_le32(p + 28, VDSO_SIZE);
        p += 32;
        put_le32(p, 2);
        put_le32(p + 4, OFF_DYNAMIC);
        put_le32(p + 8, OFF_DYNAMIC);
        put_le32(p + 12, OFF_DYNAMIC);
        put_le32(p + 16, dynsz);
        put_le32(p + 20, dynsz);
        put_le32(p + 24, 4);
        put_le32(p + 28, 4);
    }
}

void vdso_build(struct vdso_image *img, bool is64, bool sysenter_fast)
{
    memset(img, 0, sizeof(*img));
    struct builder b = { .img = img, .is64 = is64, .text = VDSO_TEXT, .str = 1 };
    /* Unused text is int3, so a stray jump traps instead of sliding. */
    memset(img->bytes + VDSO_TEXT, 0xcc, VDSO_SIZE - VDSO_TEXT);
    if (is64)
        build_text_64(&b);
    else
        build_text_32(&b, sysenter_fast);
    g_assert(b.nsym < MAX_SYMS && b.text <= VDSO_SIZE && OFF_DYNSTR + b.str <= VDSO_TEXT);
    build_hash(&b);
    build_dynamic(&b);
    build_headers(&b);
}
