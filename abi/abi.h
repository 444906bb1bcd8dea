/* One description per guest system-call ABI: its numbers, names, register
 * convention and strict-mode list.  Everything the trap path needs to know
 * about an ABI is data here, so a new ABI is a new table, not new code. */
#ifndef ABI_ABI_H
#define ABI_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct task;

/* The way a call entered the kernel.  Linux picks the strict list from this
 * (since 2.6.29), not from the task. */
enum entry {
    ENTRY_SYSCALL64,   /* syscall from 64-bit code */
    ENTRY_INT80,       /* int $0x80 from 32- or 64-bit code */
    ENTRY_SYSENTER32,  /* sysenter from 32-bit code (Intel) */
    ENTRY_SYSCALL32,   /* syscall from 32-bit code (AMD) */
};

const char *entry_name(enum entry e);

/* A handler returns the value the guest sees in eax/rax: a result, or a
 * negative Linux errno. */
typedef int64_t (*sys_fn)(struct task *t, const uint64_t a[6]);

/* One emulated call.  `arity` is how many arguments its handler reads:
 * the trap path fetches registers past the third only for calls that take
 * them (each Unicorn register read costs), so a handler must not read
 * a[arity] and beyond.  `fmt` has one letter per argument, for traces
 * (emu/trace_format.c decodes them the way strace prints them):
 * d int, l signed word, u unsigned word, x hex, o octal (a mode), p pointer,
 * s path string, b buffer written by the guest (length in the next
 * argument), B buffer filled by the call (shown up to the result), and
 * constants by name: D dirfd (AT_FDCWD), O open flags, P mmap prot, M mmap
 * flags, W lseek whence, C clock id, R rlimit resource, A arch_prctl code,
 * I ioctl request, c fcntl command, m madvise advice, S seccomp operation,
 * K prctl option (it decides how many arguments follow). */
struct syscall_desc {
    int nr;
    const char *name;
    uint8_t arity;
    const char *fmt;
    sys_fn fn;
};

struct abi {
    const char *name;          /* "x86_64", "ia32" */
    unsigned bits;             /* word size of the ABI's structures */
    const struct syscall_desc *calls;
    size_t ncalls;
    const char *const *names;  /* generated from the kernel's table */
    const unsigned *nnames;    /* its length */
    const int *strict;         /* the mode-1 list, Linux's mode1_syscalls */
    size_t nstrict;
    const char *strict_text;   /* "{read, write, exit, rt_sigreturn}" */
    int nr_exit, nr_exit_group, nr_prctl;
};

extern const struct abi abi_x86_64;
extern const struct abi abi_ia32;

extern const char *const x86_64_syscall_names[];
extern const unsigned x86_64_syscall_names_len;
extern const char *const ia32_syscall_names[];
extern const unsigned ia32_syscall_names_len;

/* The ABI whose numbers a call on this entry path uses. */
const struct abi *abi_for_entry(enum entry e);

/* Emulated call for `nr`, or NULL: the call answers -ENOSYS. */
const struct syscall_desc *abi_lookup(const struct abi *abi, int64_t nr);

/* Kernel name of `nr` ("getpid"), or NULL when the number is not a call. */
const char *abi_call_name(const struct abi *abi, int64_t nr);

bool abi_in_strict_list(const struct abi *abi, int64_t nr);

#endif
