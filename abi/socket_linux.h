/* AF_UNIX socket pairs as Linux defines them (include/linux/socket.h,
 * include/linux/net.h, include/uapi/linux/net.h): types, flags, the
 * message header and control messages in each ABI's layout.  Pure data. */
#ifndef ABI_SOCKET_LINUX_H
#define ABI_SOCKET_LINUX_H

#include <stddef.h>
#include <stdint.h>

#define AF_UNIX_LINUX 1
#define NPROTO_LINUX 46 /* AF_MAX */

#define SOCK_STREAM_LINUX 1
#define SOCK_DGRAM_LINUX 2
#define SOCK_RAW_LINUX 3
#define SOCK_SEQPACKET_LINUX 5
#define SOCK_MAX_LINUX 11
#define SOCK_TYPE_MASK_LINUX 0xf
/* SOCK_NONBLOCK and SOCK_CLOEXEC are O_NONBLOCK and O_CLOEXEC on x86. */

#define SOL_SOCKET_LINUX 1
#define SCM_RIGHTS_LINUX 1
#define SCM_MAX_FD_LINUX 253

#define MSG_OOB_LINUX 0x1
#define MSG_PEEK_LINUX 0x2
#define MSG_CTRUNC_LINUX 0x8
#define MSG_TRUNC_LINUX 0x20
#define MSG_DONTWAIT_LINUX 0x40
#define MSG_EOR_LINUX 0x80
#define MSG_WAITALL_LINUX 0x100
#define MSG_NOSIGNAL_LINUX 0x4000
#define MSG_CMSG_CLOEXEC_LINUX 0x40000000u
#define MSG_CMSG_COMPAT_LINUX 0x80000000u /* the kernel's own: a user flag is refused */

#define SHUT_RD_LINUX 0
#define SHUT_WR_LINUX 1
#define SHUT_RDWR_LINUX 2

/* The socketcall(2) operations i386 multiplexes (uapi/linux/net.h). */
#define SYS_SOCKET_LINUX 1
#define SYS_SOCKETPAIR_LINUX 8
#define SYS_SEND_LINUX 9
#define SYS_RECV_LINUX 10
#define SYS_SENDTO_LINUX 11
#define SYS_RECVFROM_LINUX 12
#define SYS_SHUTDOWN_LINUX 13
#define SYS_SENDMSG_LINUX 16
#define SYS_RECVMSG_LINUX 17
#define SYS_SENDMMSG_LINUX 20

/* net.core.wmem_default: a socket's send buffer. */
#define SK_SNDBUF_DEFAULT_LINUX 212992

struct msghdr64_linux {
    uint64_t name;
    uint32_t namelen;
    uint32_t pad0;
    uint64_t iov;
    uint64_t iovlen;
    uint64_t control;
    uint64_t controllen;
    int32_t flags;
    uint32_t pad1;
};
_Static_assert(sizeof(struct msghdr64_linux) == 56, "64-bit msghdr");
_Static_assert(offsetof(struct msghdr64_linux, controllen) == 40, "msghdr.msg_controllen @40");
_Static_assert(offsetof(struct msghdr64_linux, flags) == 48, "msghdr.msg_flags @48");

struct msghdr32_linux {
    uint32_t name;
    uint32_t namelen;
    uint32_t iov;
    uint32_t iovlen;
    uint32_t control;
    uint32_t controllen;
    int32_t flags;
};
_Static_assert(sizeof(struct msghdr32_linux) == 28, "compat msghdr");
_Static_assert(offsetof(struct msghdr32_linux, flags) == 24, "compat msghdr.msg_flags @24");

/* struct cmsghdr: a length as wide as size_t, level, type; the data
 * aligned to that width (CMSG_ALIGN). */
struct cmsghdr64_linux {
    uint64_t len;
    int32_t level;
    int32_t type;
};
_Static_assert(sizeof(struct cmsghdr64_linux) == 16, "64-bit cmsghdr");
struct cmsghdr32_linux {
    uint32_t len;
    int32_t level;
    int32_t type;
};
_Static_assert(sizeof(struct cmsghdr32_linux) == 12, "compat cmsghdr");

#endif
