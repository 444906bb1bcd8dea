#include "loaders/filter_file.h"

#include "emu/bpf/bpf.h"
#include "loaders/input.h"

#define INSN_BYTES 8

err_t filter_decode(const uint8_t *bytes, size_t size, struct bpf_program *out)
{
    out->insns = NULL;
    out->len = 0;
    if (size == 0)
        return err_new("the filter is empty");
    if (size % INSN_BYTES)
        return err_new("%zu bytes is not a whole number of 8-byte BPF instructions", size);
    size_t len = size / INSN_BYTES;
    if (len > BPF_MAXINSNS_LINUX)
        return err_new("%zu instructions, more than the kernel's %d", len, BPF_MAXINSNS_LINUX);
    struct sock_filter_linux *insns = g_new(struct sock_filter_linux, len);
    for (size_t i = 0; i < len; i++) {
        const uint8_t *b = bytes + i * INSN_BYTES;
        insns[i].code = (uint16_t)(b[0] | b[1] << 8);
        insns[i].jt = b[2];
        insns[i].jf = b[3];
        insns[i].k = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
                     (uint32_t)b[7] << 24;
    }
    if (bpf_check(insns, len) != 0) {
        g_free(insns);
        return err_new("the kernel's checker rejects this program (seccomp() would answer EINVAL)");
    }
    out->insns = insns;
    out->len = len;
    return OK;
}

err_t filter_file_load(const char *path, struct bpf_program *out)
{
    char *data = NULL;
    size_t size = 0;
    out->insns = NULL;
    out->len = 0;
    err_t e = input_read(path, INPUT_MAX_FILTER, NULL, &data, &size, NULL);
    if (!e)
        e = filter_decode((const uint8_t *)data, size, out);
    g_free(data);
    return input_named(path, e);
}

void bpf_program_free(struct bpf_program *p)
{
    g_free(p->insns);
    p->insns = NULL;
    p->len = 0;
}
