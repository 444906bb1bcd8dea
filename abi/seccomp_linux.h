/* seccomp filter mode as Linux defines it: classic BPF instructions, the
 * data a filter reads, the actions it returns and the constants of
 * seccomp(2).  Pure data: include/uapi/linux/{filter,bpf_common,seccomp,
 * audit}.h spelled with the project's _LINUX suffix. */
#ifndef ABI_SECCOMP_LINUX_H
#define ABI_SECCOMP_LINUX_H

#include <stddef.h>
#include <stdint.h>

/* struct sock_filter: one classic BPF instruction (8 bytes). */
struct sock_filter_linux {
    uint16_t code;
    uint8_t jt, jf;
    uint32_t k;
};
_Static_assert(sizeof(struct sock_filter_linux) == 8, "sock_filter is 8 bytes");

/* struct sock_fprog as each ABI lays it out: len, then a pointer. */
struct sock_fprog64_linux {
    uint16_t len;
    uint8_t pad[6];
    uint64_t filter;
};
struct sock_fprog32_linux {
    uint16_t len;
    uint8_t pad[2];
    uint32_t filter;
};
_Static_assert(sizeof(struct sock_fprog64_linux) == 16, "64-bit sock_fprog");
_Static_assert(sizeof(struct sock_fprog32_linux) == 8, "compat sock_fprog");

/* struct seccomp_data: what a filter loads with BPF_LD|BPF_W|BPF_ABS. */
struct seccomp_data_linux {
    int32_t nr;
    uint32_t arch;
    uint64_t instruction_pointer;
    uint64_t args[6];
};
_Static_assert(sizeof(struct seccomp_data_linux) == 64, "seccomp_data is 64 bytes");
_Static_assert(offsetof(struct seccomp_data_linux, nr) == 0, "nr @0");
_Static_assert(offsetof(struct seccomp_data_linux, arch) == 4, "arch @4");
_Static_assert(offsetof(struct seccomp_data_linux, instruction_pointer) == 8, "ip @8");
_Static_assert(offsetof(struct seccomp_data_linux, args) == 16, "args @16");

/* Instruction classes and fields (bpf_common.h). */
#define BPF_CLASS_LINUX(code) ((code) & 0x07)
#define BPF_LD_LINUX 0x00
#define BPF_LDX_LINUX 0x01
#define BPF_ST_LINUX 0x02
#define BPF_STX_LINUX 0x03
#define BPF_ALU_LINUX 0x04
#define BPF_JMP_LINUX 0x05
#define BPF_RET_LINUX 0x06
#define BPF_MISC_LINUX 0x07

#define BPF_SIZE_LINUX(code) ((code) & 0x18)
#define BPF_W_LINUX 0x00
#define BPF_H_LINUX 0x08
#define BPF_B_LINUX 0x10

#define BPF_MODE_LINUX(code) ((code) & 0xe0)
#define BPF_IMM_LINUX 0x00
#define BPF_ABS_LINUX 0x20
#define BPF_IND_LINUX 0x40
#define BPF_MEM_LINUX 0x60
#define BPF_LEN_LINUX 0x80
#define BPF_MSH_LINUX 0xa0

#define BPF_OP_LINUX(code) ((code) & 0xf0)
#define BPF_ADD_LINUX 0x00
#define BPF_SUB_LINUX 0x10
#define BPF_MUL_LINUX 0x20
#define BPF_DIV_LINUX 0x30
#define BPF_OR_LINUX 0x40
#define BPF_AND_LINUX 0x50
#define BPF_LSH_LINUX 0x60
#define BPF_RSH_LINUX 0x70
#define BPF_NEG_LINUX 0x80
#define BPF_MOD_LINUX 0x90
#define BPF_XOR_LINUX 0xa0

#define BPF_JA_LINUX 0x00
#define BPF_JEQ_LINUX 0x10
#define BPF_JGT_LINUX 0x20
#define BPF_JGE_LINUX 0x30
#define BPF_JSET_LINUX 0x40

#define BPF_SRC_LINUX(code) ((code) & 0x08)
#define BPF_K_LINUX 0x00
#define BPF_X_LINUX 0x08

#define BPF_RVAL_LINUX(code) ((code) & 0x18)
#define BPF_A_LINUX 0x10

#define BPF_MISCOP_LINUX(code) ((code) & 0xf8)
#define BPF_TAX_LINUX 0x00
#define BPF_TXA_LINUX 0x80

#define BPF_MAXINSNS_LINUX 4096
#define BPF_MEMWORDS_LINUX 16
/* kernel/seccomp.c: 256 KiB of 8-byte eBPF instructions on one path. */
#define MAX_INSNS_PER_PATH_LINUX ((1 << 18) / 8)

/* Return values (seccomp.h). */
#define SECCOMP_RET_KILL_PROCESS_LINUX 0x80000000u
#define SECCOMP_RET_KILL_THREAD_LINUX 0x00000000u
#define SECCOMP_RET_KILL_LINUX SECCOMP_RET_KILL_THREAD_LINUX
#define SECCOMP_RET_TRAP_LINUX 0x00030000u
#define SECCOMP_RET_ERRNO_LINUX 0x00050000u
#define SECCOMP_RET_USER_NOTIF_LINUX 0x7fc00000u
#define SECCOMP_RET_TRACE_LINUX 0x7ff00000u
#define SECCOMP_RET_LOG_LINUX 0x7ffc0000u
#define SECCOMP_RET_ALLOW_LINUX 0x7fff0000u
#define SECCOMP_RET_ACTION_FULL_LINUX 0xffff0000u
#define SECCOMP_RET_ACTION_LINUX 0x7fff0000u
#define SECCOMP_RET_DATA_LINUX 0x0000ffffu
#define MAX_ERRNO_LINUX 4095

/* Modes (prctl PR_{GET,SET}_SECCOMP), seccomp(2) operations and flags. */
#define SECCOMP_MODE_DISABLED_LINUX 0
#define SECCOMP_MODE_STRICT_LINUX 1
#define SECCOMP_MODE_FILTER_LINUX 2
#define SECCOMP_SET_MODE_STRICT_LINUX 0
#define SECCOMP_SET_MODE_FILTER_LINUX 1
#define SECCOMP_GET_ACTION_AVAIL_LINUX 2
#define SECCOMP_GET_NOTIF_SIZES_LINUX 3
#define SECCOMP_FILTER_FLAG_TSYNC_LINUX (1u << 0)
#define SECCOMP_FILTER_FLAG_LOG_LINUX (1u << 1)
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW_LINUX (1u << 2)
#define SECCOMP_FILTER_FLAG_NEW_LISTENER_LINUX (1u << 3)
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH_LINUX (1u << 4)
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV_LINUX (1u << 5)
#define SECCOMP_FILTER_FLAG_MASK_LINUX 0x3fu

/* What SECCOMP_GET_NOTIF_SIZES writes: sizeof seccomp_notif,
 * seccomp_notif_resp, seccomp_data. */
struct seccomp_notif_sizes_linux {
    uint16_t seccomp_notif;
    uint16_t seccomp_notif_resp;
    uint16_t seccomp_data;
};
_Static_assert(sizeof(struct seccomp_notif_sizes_linux) == 6, "notif sizes");

/* User notification (seccomp.h): what RECV fills, what SEND and ADDFD
 * read.  The same layout on both ABIs (explicit 64-bit fields), so the
 * ioctl numbers are the same too. */
struct seccomp_notif_linux {
    uint64_t id;
    uint32_t pid;
    uint32_t flags;
    struct seccomp_data_linux data;
};
_Static_assert(sizeof(struct seccomp_notif_linux) == 80, "seccomp_notif is 80 bytes");
_Static_assert(offsetof(struct seccomp_notif_linux, data) == 16, "seccomp_notif.data @16");

struct seccomp_notif_resp_linux {
    uint64_t id;
    int64_t val;
    int32_t error;
    uint32_t flags;
};
_Static_assert(sizeof(struct seccomp_notif_resp_linux) == 24, "seccomp_notif_resp is 24 bytes");
_Static_assert(offsetof(struct seccomp_notif_resp_linux, error) == 16, "resp.error @16");

struct seccomp_notif_addfd_linux {
    uint64_t id;
    uint32_t flags;
    uint32_t srcfd;
    uint32_t newfd;
    uint32_t newfd_flags;
};
_Static_assert(sizeof(struct seccomp_notif_addfd_linux) == 24, "seccomp_notif_addfd is 24 bytes");
#define SECCOMP_NOTIFY_ADDFD_SIZE_VER0_LINUX 24

#define SECCOMP_NOTIF_SIZE_LINUX sizeof(struct seccomp_notif_linux)
#define SECCOMP_NOTIF_RESP_SIZE_LINUX sizeof(struct seccomp_notif_resp_linux)

#define SECCOMP_USER_NOTIF_FLAG_CONTINUE_LINUX (1u << 0)
#define SECCOMP_ADDFD_FLAG_SETFD_LINUX (1u << 0)
#define SECCOMP_ADDFD_FLAG_SEND_LINUX (1u << 1)
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP_LINUX (1u << 0)

/* The listener's ioctls: _IOWR('!', 0, struct seccomp_notif) and so on
 * (direction << 30 | size << 16 | '!' << 8 | nr). */
#define SECCOMP_IOCTL_NOTIF_RECV_LINUX 0xc0502100u
#define SECCOMP_IOCTL_NOTIF_SEND_LINUX 0xc0182101u
#define SECCOMP_IOCTL_NOTIF_ID_VALID_LINUX 0x40082102u
#define SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR_LINUX 0x80082102u /* before 5.17's fix */
#define SECCOMP_IOCTL_NOTIF_ADDFD_LINUX 0x40182103u
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS_LINUX 0x40082104u
/* The extensible ones are matched without direction and size. */
#define SECCOMP_IOCTL_EA_LINUX(cmd) ((cmd) & 0xffffu)
#define SECCOMP_IOCTL_SIZE_LINUX(cmd) (((cmd) >> 16) & 0x3fffu)

/* A 64-bit call number with this bit is an x32 call. */
#define X32_SYSCALL_BIT_LINUX 0x40000000

/* The signal a TRAP action sends carries this si_code. */
#define SYS_SECCOMP_LINUX 1

/* audit.h: the arch values a filter compares. */
#define AUDIT_ARCH_X86_64_LINUX 0xC000003Eu
#define AUDIT_ARCH_I386_LINUX 0x40000003u

/* prctl options beside PR_{GET,SET}_SECCOMP (abi/linux.h). */
#define PR_SET_NO_NEW_PRIVS_LINUX 38
#define PR_GET_NO_NEW_PRIVS_LINUX 39

#endif
