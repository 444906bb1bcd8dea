/* Classic BPF as text, the way seccomp filters are read by people: the
 * mnemonics of the kernel's bpf_dbg/bpf_asm, with the seccomp_data fields a
 * load reads named and the return actions spelled out:
 *
 *     ld [arch]
 *     jeq #0xc000003e, 3, 9
 *     ld [nr]
 *     jeq #39, 4, 5
 *     ld [args[0]]          (low 32 bits)   ld [args[0].hi]   (high 32 bits)
 *     ret ERRNO(1)
 *     ret KILL_PROCESS
 *
 * Jump targets are absolute instruction indexes (the instruction at pc
 * jumps to pc + 1 + offset).  Constants are decimal below 0x10000 and hex
 * above.  The format is stable: the trace, the seccomp-emu-bpf tool and the
 * lessons' expected outputs depend on it (docs/filter.md). */
#ifndef EMU_BPF_BPF_DISASM_H
#define EMU_BPF_BPF_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "abi/seccomp_linux.h"

/* Appends the text of the instruction at index pc (no newline). */
void bpf_disasm_insn(GString *out, const struct sock_filter_linux *insn, size_t pc);

/* Appends a whole program, one line per instruction:
 *     " 0000: 0x20 0x00 0x00 0x00000004  ld [arch]\n"
 * (index, then code, jt, jf, k as raw numbers, then the text). */
void bpf_disasm_prog(GString *out, const struct sock_filter_linux *prog, size_t len);

/* Appends a filter's return value as its action, named as
 * abi/seccomp_actions.h names it: an action whose data is an argument
 * carries it always, TRAP(0), ERRNO(13), TRACE(7); the others only when it
 * is not 0, as ALLOW(5).  A value that is no action is written in hex
 * (0x00040000). */
void bpf_disasm_action(GString *out, uint32_t ret);

#endif
