/* Placeholder for filter-kernel's abi/seccomp_linux.h (the interface agreed
 * in issue 24); that branch's version replaces this one at merge. */
#ifndef ABI_SECCOMP_LINUX_H
#define ABI_SECCOMP_LINUX_H

#include <stdint.h>

struct sock_filter_linux {
    uint16_t code;
    uint8_t jt, jf;
    uint32_t k;
};

struct seccomp_data_linux {
    int32_t nr;
    uint32_t arch;
    uint64_t instruction_pointer;
    uint64_t args[6];
};

#define BPF_MAXINSNS_LINUX 4096
#define AUDIT_ARCH_X86_64_LINUX 0xC000003Eu
#define AUDIT_ARCH_I386_LINUX 0x40000003u

#define SECCOMP_RET_KILL_PROCESS_LINUX 0x80000000u
#define SECCOMP_RET_KILL_THREAD_LINUX 0x00000000u
#define SECCOMP_RET_TRAP_LINUX 0x00030000u
#define SECCOMP_RET_ERRNO_LINUX 0x00050000u
#define SECCOMP_RET_USER_NOTIF_LINUX 0x7fc00000u
#define SECCOMP_RET_TRACE_LINUX 0x7ff00000u
#define SECCOMP_RET_LOG_LINUX 0x7ffc0000u
#define SECCOMP_RET_ALLOW_LINUX 0x7fff0000u
#define SECCOMP_RET_ACTION_FULL_LINUX 0xffff0000u
#define SECCOMP_RET_DATA_LINUX 0x0000ffffu

#endif
