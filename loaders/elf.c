#include "loaders/elf.h"

#include <string.h>

#include "abi/linux.h"
#include "emu/kernel/task.h"

#define PAGE_DOWN(x) ((x) & ~(PAGE_SIZE_LINUX - 1))

#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_PHDR 6
#define PT_GNU_STACK 0x6474e551
#define ET_EXEC 2
#define ET_DYN 3
#define EM_386 3
#define EM_X86_64 62

/* Where Linux puts an ET_DYN executable without interpreter when address
 * randomisation is off (ELF_ET_DYN_BASE). */
#define PIE_BASE_64 0x555555554000ull
#define PIE_BASE_32 0x56555000ull

static uint64_t rd(const uint8_t *p, int n)
{
    uint64_t v = 0;
    memcpy(&v, p, (size_t)n); /* little endian host and guest */
    return v;
}

static int prot_of(uint32_t pflags)
{
    return ((pflags & 4) ? PROT_READ_LINUX : 0) | ((pflags & 2) ? PROT_WRITE_LINUX : 0) |
           ((pflags & 1) ? PROT_EXEC_LINUX : 0);
}

size_t elf_bytes_needed(const char *data, size_t len)
{
    const uint8_t *d = (const uint8_t *)data;
    if (len >= 4 && memcmp(d, "\177ELF", 4) != 0)
        return len; /* no ELF: elf_parse says so */
    if (len < 64)
        return 0;
    bool is64 = d[4] == 2;
    uint64_t phoff = is64 ? rd(d + 32, 8) : rd(d + 28, 4);
    unsigned phent = (unsigned)rd(d + (is64 ? 54 : 42), 2);
    unsigned phnum = (unsigned)rd(d + (is64 ? 56 : 44), 2);
    if ((d[4] != 1 && d[4] != 2) || phent != (is64 ? 56u : 32u) || phoff > UINT32_MAX)
        return len;
    uint64_t need = MAX(phoff + (uint64_t)phnum * phent, 64);
    if (need > len)
        return 0;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *p = d + phoff + (uint64_t)i * phent;
        if (rd(p, 4) != PT_LOAD)
            continue;
        uint64_t off = is64 ? rd(p + 8, 8) : rd(p + 4, 4);
        uint64_t filesz = is64 ? rd(p + 32, 8) : rd(p + 16, 4);
        if (off + filesz < off)
            return len;
        need = MAX(need, off + filesz);
    }
    return need > SIZE_MAX ? len : (size_t)need;
}

err_t elf_parse(const uint8_t *d, size_t len, struct elf_info *out)
{
    memset(out, 0, sizeof(*out));
    if (len < 4 || memcmp(d, "\177ELF", 4) != 0)
        return err_new("not an ELF executable");
    if (len < 52)
        return err_new("truncated ELF header (%zu bytes)", len);
    if (d[4] != 1 && d[4] != 2)
        return err_new("unknown ELF class %u", d[4]);
    bool is64 = d[4] == 2;
    if (is64 && len < 64)
        return err_new("truncated ELF64 header (%zu bytes)", len);
    if (d[5] != 1)
        return err_new("big-endian ELF: only little-endian x86 programs run");
    if (d[6] != 1)
        return err_new("unknown ELF version %u", d[6]);
    unsigned type = (unsigned)rd(d + 16, 2), machine = (unsigned)rd(d + 18, 2);
    if (is64 && machine != EM_X86_64)
        return err_new(machine == EM_386 ? "ELF64 for i386 is not a valid executable"
                                         : "ELF64 for machine %u: only x86_64 runs", machine);
    if (!is64 && machine != EM_386)
        return err_new(machine == EM_X86_64 ? "ELF32 x86_64 (x32) programs are not supported"
                                            : "ELF32 for machine %u: only i386 runs", machine);
    if (type != ET_EXEC && type != ET_DYN)
        return err_new(type == 1 ? "relocatable object, not an executable"
                       : type == 4 ? "core file, not an executable"
                                   : "ELF type %u is not an executable", type);
    uint64_t entry = is64 ? rd(d + 24, 8) : rd(d + 24, 4);
    uint64_t phoff = is64 ? rd(d + 32, 8) : rd(d + 28, 4);
    unsigned phent = (unsigned)rd(d + (is64 ? 54 : 42), 2);
    unsigned phnum = (unsigned)rd(d + (is64 ? 56 : 44), 2);
    unsigned want = is64 ? 56 : 32;
    if (phent != want)
        return err_new("program header entries of %u bytes (expected %u)", phent, want);
    if (phnum == 0 || phnum == 0xffff)
        return err_new("no program headers");
    if (phoff > len || (uint64_t)phnum * phent > len - phoff)
        return err_new("program headers lie outside the file");

    out->is64 = is64;
    out->pie = type == ET_DYN;
    out->entry = entry;
    out->phnum = (uint16_t)phnum;
    out->phent = (uint16_t)phent;
    out->exec_stack = !is64; /* no PT_GNU_STACK: i386 legacy default */
    uint64_t limit = is64 ? TASK_SIZE_64_LINUX : TASK_SIZE_IA32_LINUX;
    uint64_t phdr_vaddr = 0;
    bool have_phdr = false;
    out->lo = UINT64_MAX;
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *p = d + phoff + (uint64_t)i * phent;
        uint32_t ptype = (uint32_t)rd(p, 4);
        uint32_t pflags = (uint32_t)(is64 ? rd(p + 4, 4) : rd(p + 24, 4));
        uint64_t off = is64 ? rd(p + 8, 8) : rd(p + 4, 4);
        uint64_t vaddr = is64 ? rd(p + 16, 8) : rd(p + 8, 4);
        uint64_t filesz = is64 ? rd(p + 32, 8) : rd(p + 16, 4);
        uint64_t memsz = is64 ? rd(p + 40, 8) : rd(p + 20, 4);
        uint64_t align = is64 ? rd(p + 48, 8) : rd(p + 28, 4);
        switch (ptype) {
        case PT_INTERP:
            return err_new("dynamically linked (it asks for an interpreter): only static "
                           "programs run");
        case PT_GNU_STACK:
            out->exec_stack = (pflags & 1) != 0;
            break;
        case PT_PHDR:
            phdr_vaddr = vaddr;
            have_phdr = true;
            break;
        case PT_LOAD: {
            if (out->nseg == ELF_MAX_SEGMENTS)
                return err_new("more than %d loadable segments", ELF_MAX_SEGMENTS);
            if (filesz > memsz)
                return err_new("segment %u: file size exceeds memory size", i);
            if (off > len || filesz > len - off)
                return err_new("segment %u lies outside the file", i);
            if ((vaddr & (PAGE_SIZE_LINUX - 1)) != (off & (PAGE_SIZE_LINUX - 1)))
                return err_new("segment %u: address and file offset disagree modulo the "
                               "page size", i);
            (void)align;
            if (memsz == 0)
                break;
            uint64_t span_end = vaddr + memsz;
            if (span_end < vaddr || PAGE_ALIGN_LINUX(span_end) < span_end)
                return err_new("segment %u wraps around the address space", i);
            /* A PIE is moved above its base; its own addresses must still fit. */
            if (span_end > limit || (!out->pie && vaddr < 0x1000))
                return err_new("segment %u (0x%" G_GINT64_MODIFIER "x-0x%" G_GINT64_MODIFIER
                               "x) lies outside the %s address space", i, vaddr, span_end,
                               is64 ? "x86_64" : "i386");
            for (size_t k = 0; k < out->nseg; k++) {
                const struct elf_segment *o = &out->seg[k];
                if (vaddr < o->vaddr + o->memsz && o->vaddr < span_end)
                    return err_new("segments %zu and %u overlap", k, i);
            }
            out->seg[out->nseg++] = (struct elf_segment){ vaddr, memsz, off, filesz,
                                                          prot_of(pflags) };
            out->lo = MIN(out->lo, PAGE_DOWN(vaddr));
            out->hi = MAX(out->hi, PAGE_ALIGN_LINUX(span_end));
            if (!have_phdr && off <= phoff && phoff + (uint64_t)phnum * phent <= off + filesz)
                phdr_vaddr = vaddr + (phoff - off);
            break;
        }
        default:
            break;
        }
    }
    if (out->nseg == 0)
        return err_new("no loadable segments");
    if (out->pie) {
        uint64_t base = is64 ? PIE_BASE_64 : PIE_BASE_32;
        if (out->hi - out->lo > limit - base)
            return err_new("position-independent program too large for the address space");
    }
    out->phdr_vaddr = phdr_vaddr;
    return OK;
}

/* The end of the pages a segment's file part fills. */
static uint64_t file_pages_end(const struct elf_segment *s, uint64_t bias)
{
    return PAGE_ALIGN_LINUX(s->vaddr + bias + s->filesz);
}

/* Map [lo, hi) of segment s where nothing is mapped yet; a page another
 * segment mapped already gets the union of both permissions.  Mapping by
 * mapping, never page by page: a segment may span most of the address
 * space (p_memsz near 2^47), and costs nothing until touched. */
static err_t map_segment(struct task *t, const struct elf_segment *s, uint64_t lo, uint64_t hi)
{
    for (uint64_t at = lo; at < hi;) {
        const struct vma *v = mm_find(t->mm, at);
        if (v) {
            uint64_t end = MIN(v->end, hi);
            if ((v->prot | s->prot) != v->prot) {
                int64_t r = mm_mprotect(t->mm, at, end - at, v->prot | s->prot);
                if (r < 0)
                    return err_new("cannot share a page between segments");
            }
            at = end;
            continue;
        }
        const struct vma *next = mm_next(t->mm, at);
        uint64_t end = next ? MIN(next->start, hi) : hi;
        err_t e = mm_map_fixed(t->mm, at, end - at, s->prot, "[elf]", NULL);
        if (e)
            return e;
        at = end;
    }
    return OK;
}

err_t elf_load(struct task *t, const uint8_t *d, size_t len, const struct elf_info *info,
               struct elf_loaded *out)
{
    (void)len;
    uint64_t bias = 0;
    if (info->pie)
        bias = (info->is64 ? PIE_BASE_64 : PIE_BASE_32) - info->lo;
    /* Segments may share a page (text end and data start): the page gets
     * both contents and the union of the permissions, as when Linux maps
     * the same file page twice. */
    for (size_t i = 0; i < info->nseg; i++) {
        const struct elf_segment *s = &info->seg[i];
        uint64_t lo = PAGE_DOWN(s->vaddr + bias), hi = PAGE_ALIGN_LINUX(s->vaddr + bias + s->memsz);
        /* The pages the file fills and the zeroed ones after them are two
         * mappings, as Linux's elf_load() maps the file and then the rest
         * anonymously. */
        uint64_t file_end = file_pages_end(s, bias);
        if (lo < file_end && file_end < hi) {
            err_t e = map_segment(t, s, lo, file_end);
            if (e)
                return e;
            lo = file_end;
        }
        err_t e = map_segment(t, s, lo, hi);
        if (e)
            return e;
    }
    /* Contents after all pages exist, so shared pages receive both. */
    for (size_t i = 0; i < info->nseg; i++) {
        const struct elf_segment *s = &info->seg[i];
        uint64_t at = s->vaddr + bias;
        for (uint64_t done = 0; done < s->filesz;) {
            const struct vma *v = mm_find(t->mm, at + done);
            uint64_t n = MIN(s->filesz - done, v->end - (at + done));
            memcpy(v->host + (at + done - v->start), d + s->offset + done, n);
            done += n;
        }
    }
    /* What the file fills is a mapping of it; a read-only segment's pages
     * stay the file's (mapped from the page cache, never copied), a
     * writable one's become the process's own. */
    for (size_t i = 0; i < info->nseg; i++) {
        const struct elf_segment *s = &info->seg[i];
        uint64_t lo = PAGE_DOWN(s->vaddr + bias);
        if (s->filesz)
            mm_mark_file_pages(t->mm, lo, file_pages_end(s, bias) - lo);
    }
    out->bias = bias;
    out->entry = info->entry + bias;
    out->phdr = info->phdr_vaddr ? info->phdr_vaddr + bias : 0;
    out->brk = info->hi + bias;
    /* Linux takes start_data from the highest segment start and end_data
     * from the highest file end, whatever the segments' permissions; brk's
     * RLIMIT_DATA test adds the difference to the heap. */
    uint64_t start_data = 0, end_data = 0;
    for (size_t i = 0; i < info->nseg; i++) {
        start_data = MAX(start_data, info->seg[i].vaddr);
        end_data = MAX(end_data, info->seg[i].vaddr + info->seg[i].filesz);
    }
    out->data = end_data - start_data;
    return OK;
}
