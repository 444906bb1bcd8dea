/* One description per guest system-call ABI: its numbers, names, word size
 * and strict-mode list (the registers each entry passes arguments in are
 * the trap path's, emu/entry/trap.c).  Everything the trap path needs to know
 * about an ABI is data here, so a new ABI is a new table, not new code. */
#ifndef ABI_ABI_H
#define ABI_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The way a call entered the kernel.  Linux picks the strict list from this
 * (since 2.6.29), not from the task. */
enum entry {
    ENTRY_SYSCALL64,   /* syscall from 64-bit code */
    ENTRY_INT80,       /* int $0x80 from 32- or 64-bit code */
    ENTRY_SYSENTER32,  /* sysenter from 32-bit code (Intel) */
    ENTRY_SYSCALL32,   /* syscall from 32-bit code (AMD) */
};

const char *entry_name(enum entry e);

/* Which ABI a `struct abi` describes, for tables kept per ABI elsewhere
 * (the emulated calls, emu/sys/calls.c). */
enum abi_id { ABI_X86_64, ABI_IA32, ABI_COUNT };

struct abi {
    enum abi_id id;
    const char *name;          /* "x86_64", "ia32" */
    unsigned bits;             /* word size of the ABI's structures */
    const char *const *names;  /* generated from the kernel's table */
    const unsigned *nnames;    /* its length */
    const int *strict;         /* the mode-1 list, Linux's mode1_syscalls */
    size_t nstrict;
};

extern const struct abi abi_x86_64;
extern const struct abi abi_ia32;

extern const char *const x86_64_syscall_names[];
extern const unsigned x86_64_syscall_names_len;
extern const char *const ia32_syscall_names[];
extern const unsigned ia32_syscall_names_len;

/* The ABI whose numbers a call on this entry path uses. */
const struct abi *abi_for_entry(enum entry e);

/* Kernel name of `nr` ("getpid"), or NULL when the number is not a call. */
const char *abi_call_name(const struct abi *abi, int64_t nr);

bool abi_in_strict_list(const struct abi *abi, int64_t nr);

/* The strict list by name, "{read, write, exit, rt_sigreturn}"; g_free it. */
char *abi_strict_text(const struct abi *abi);

#endif
