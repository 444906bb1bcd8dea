/* libFuzzer harness: the seccomp BPF checker and interpreter (emu/bpf).
 * Input: 64 bytes of seccomp_data, then struct sock_filter instructions.
 * Whatever the checker accepts must run to a RET in at most one step per
 * instruction (jumps go only forward) and give the same value twice; the
 * checker itself must survive any program.  What the kernel accepts and
 * returns is judged by tests/bpf (bpf-kernel-diff). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emu/bpf/bpf.h"

static void count_step(void *ctx, size_t pc, const struct sock_filter_linux *insn, uint32_t a,
                       uint32_t x)
{
    (void)pc, (void)insn, (void)a, (void)x;
    (*(size_t *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct seccomp_data_linux sd;
    if (size < sizeof(sd))
        return 0;
    memcpy(&sd, data, sizeof(sd));
    size_t len = (size - sizeof(sd)) / sizeof(struct sock_filter_linux);
    if (len > BPF_MAXINSNS_LINUX + 1)
        len = BPF_MAXINSNS_LINUX + 1;
    struct sock_filter_linux *prog = malloc((len ? len : 1) * sizeof(*prog));
    memcpy(prog, data + sizeof(sd), len * sizeof(*prog));
    int r = bpf_check(prog, len);
    if (r != 0 && r != -22)
        abort();
    if (r == 0) {
        if (len == 0 || len > BPF_MAXINSNS_LINUX)
            abort();
        if (bpf_ebpf_len(prog, len) < 3 + len)
            abort();
        size_t steps = 0;
        uint32_t v1 = bpf_run(prog, len, &sd, count_step, &steps);
        uint32_t v2 = bpf_run(prog, len, &sd, NULL, NULL);
        if (steps == 0 || steps > len || v1 != v2)
            abort();
    }
    free(prog);
    return 0;
}
