/* The socket calls on AF_UNIX socket pairs (emu/kernel/unix.c): socketpair,
 * send/recv in their three forms, shutdown, and i386's socketcall.  The
 * message header and control messages are read and written here in the
 * caller's ABI (abi/socket_linux.h).  Named sockets are not emulated: the
 * calls that make or name one answer -ENOSYS, as before they existed. */
#include <string.h>

#include "abi/linux.h"
#include "abi/socket_linux.h"
#include "emu/kernel/unix.h"
#include "emu/sys/sys.h"

#define SOCKADDR_STORAGE_SIZE 128

/* sockfd_lookup(): a socket of ours, or why not. */
static int64_t socket_file(struct task *t, int fd, struct file **out)
{
    struct gfd *g = fdtable_get(t->fds, fd);
    if (!g)
        return -EBADF_LINUX;
    if (g->kind == GFD_HOST)
        return -ENOSYS_LINUX; /* a granted host socket: only read and write reach it */
    if (g->kind != GFD_FILE || !unix_is_socket(g->file))
        return -ENOTSOCK_LINUX;
    *out = g->file;
    return 0;
}

/* __sys_socketpair(): descriptors first, then the copy out, then the
 * sockets. */
static int64_t do_socketpair(struct task *t, int family, int type, int protocol, uint64_t usv)
{
    unsigned flags = (unsigned)type & ~(unsigned)SOCK_TYPE_MASK_LINUX;
    if (flags & ~(unsigned)(O_CLOEXEC_LINUX | O_NONBLOCK_LINUX))
        return -EINVAL_LINUX;
    type &= SOCK_TYPE_MASK_LINUX;
    int fds[2];
    int r = fdtable_alloc(t->fds);
    if (r < 0)
        return r;
    fds[0] = r;
    t->fds->fd[fds[0]].kind = GFD_FILE; /* reserved while looking for the second */
    r = fdtable_alloc(t->fds);
    t->fds->fd[fds[0]].kind = GFD_NONE;
    if (r < 0)
        return r;
    fds[1] = r;
    int32_t out[2] = { fds[0], fds[1] };
    if (!mm_write(t->mm, usv, out, sizeof(out)))
        return -EFAULT_LINUX;
    /* sock_create() */
    if (family < 0 || family >= NPROTO_LINUX)
        return -EAFNOSUPPORT_LINUX;
    if (type < 0 || type >= SOCK_MAX_LINUX)
        return -EINVAL_LINUX;
    if (family != AF_UNIX_LINUX)
        return -EOPNOTSUPP_LINUX; /* sock_no_socketpair(); other families are not emulated */
    struct file *ends[2];
    r = unix_pair_new(type, protocol, flags & O_NONBLOCK_LINUX, ends);
    if (r)
        return r;
    bool cloexec = flags & O_CLOEXEC_LINUX;
    for (int i = 0; i < 2; i++)
        fdtable_install(t->fds, fds[i],
                        (struct gfd){ .kind = GFD_FILE, .file = ends[i], .cloexec = cloexec });
    return 0;
}

SYS(socketpair)
{
    return do_socketpair(t, (int)a[0], (int)a[1], (int)a[2], uarg(t, a[3]));
}

/* A struct msghdr in the caller's layout. */
struct kmsg {
    uint64_t name, iov, control;
    uint32_t namelen;
    uint64_t iovlen, controllen;
};

static int64_t read_msghdr(struct task *t, uint64_t umsg, struct kmsg *m)
{
    if (in_compat_syscall(t)) {
        struct msghdr32_linux h;
        if (!mm_read(t->mm, umsg, &h, sizeof(h)))
            return -EFAULT_LINUX;
        *m = (struct kmsg){ h.name, h.iov, h.control, h.namelen, h.iovlen, h.controllen };
    } else {
        struct msghdr64_linux h;
        if (!mm_read(t->mm, umsg, &h, sizeof(h)))
            return -EFAULT_LINUX;
        *m = (struct kmsg){ h.name, h.iov, h.control, h.namelen, h.iovlen, h.controllen };
    }
    /* __copy_msghdr() */
    if (!m->name)
        m->namelen = 0;
    if ((int32_t)m->namelen < 0 || m->namelen > SOCKADDR_STORAGE_SIZE)
        return -EINVAL_LINUX;
    if (m->iovlen > UIO_MAXIOV_LINUX)
        return -EMSGSIZE_LINUX;
    return 0;
}

static int64_t read_iov(struct task *t, const struct kmsg *m, struct guest_iovec **out)
{
    size_t esz = in_compat_syscall(t) ? 8 : 16;
    *out = g_new0(struct guest_iovec, m->iovlen ? m->iovlen : 1);
    if (!m->iovlen)
        return 0;
    g_autofree uint8_t *raw = g_malloc(m->iovlen * esz);
    if (!mm_read(t->mm, m->iov, raw, m->iovlen * esz))
        return -EFAULT_LINUX;
    return iovec_from_guest(raw, m->iovlen, in_compat_syscall(t), *out);
}

/* __scm_send(): the control messages of a sendmsg; SCM_RIGHTS is the one
 * kind emulated. */
static int64_t read_rights(struct task *t, const struct kmsg *m, struct unix_rights *rights)
{
    if (m->controllen > INT32_MAX)
        return -ENOBUFS_LINUX;
    if (!m->controllen)
        return 0;
    bool compat = in_compat_syscall(t);
    size_t hdr = compat ? sizeof(struct cmsghdr32_linux) : sizeof(struct cmsghdr64_linux);
    size_t align = compat ? 4 : 8;
    g_autofree uint8_t *ctl = g_malloc(m->controllen);
    if (!mm_read(t->mm, m->control, ctl, m->controllen))
        return -EFAULT_LINUX;
    uint64_t at = 0;
    while (at + hdr <= m->controllen) {
        uint64_t len;
        int32_t level, type;
        if (compat) {
            struct cmsghdr32_linux c;
            memcpy(&c, ctl + at, sizeof(c));
            len = c.len, level = c.level, type = c.type;
        } else {
            struct cmsghdr64_linux c;
            memcpy(&c, ctl + at, sizeof(c));
            len = c.len, level = c.level, type = c.type;
        }
        if (len < hdr || len > m->controllen - at) /* CMSG_OK */
            return -EINVAL_LINUX;
        if (level == SOL_SOCKET_LINUX) {
            if (type != SCM_RIGHTS_LINUX)
                return -EINVAL_LINUX; /* SCM_CREDENTIALS and the rest: not emulated */
            /* scm_fp_copy() */
            int num = (int)((len - hdr) / 4);
            if (num > 0) {
                if (rights->n + num > SCM_MAX_FD_LINUX)
                    return -EINVAL_LINUX;
                rights->fds = g_renew(struct gfd, rights->fds, (gsize)(rights->n + num));
                for (int i = 0; i < num; i++) {
                    int32_t fd;
                    memcpy(&fd, ctl + at + hdr + (size_t)i * 4, 4);
                    struct gfd *g = fdtable_get(t->fds, fd);
                    if (!g)
                        return -EBADF_LINUX;
                    rights->fds[rights->n++] = gfd_dup(g);
                }
            }
        }
        at += (len + align - 1) & ~(uint64_t)(align - 1);
    }
    return 0;
}

/* ____sys_sendmsg() for one message. */
static int64_t send_msg(struct task *t, struct file *f, const struct kmsg *m,
                        const struct guest_iovec *iov, unsigned flags)
{
    struct unix_rights rights = { 0 };
    int64_t r = read_rights(t, m, &rights);
    if (!r) {
        /* A connected stream refuses an address (unix_stream_sendmsg);
         * the datagram kinds' own peer is the only one emulated. */
        if (m->namelen && unix_type(f) == SOCK_STREAM_LINUX)
            r = -EISCONN_LINUX;
        else
            r = unix_send(t, f, iov, (int)m->iovlen, &rights, flags);
    }
    unix_rights_clear(&rights);
    return r;
}

/* What __sys_sendmsg() and __sys_recvmsg() do first: the socket, the
 * flag only the kernel may set, the header and its vector. */
static int64_t msg_begin(struct task *t, int fd, uint64_t umsg, unsigned flags, struct file **f,
                         struct kmsg *m, struct guest_iovec **iov)
{
    int64_t r = socket_file(t, fd, f);
    if (r)
        return r;
    if (flags & MSG_CMSG_COMPAT_LINUX)
        return -EINVAL_LINUX;
    if ((r = read_msghdr(t, umsg, m)))
        return r;
    return read_iov(t, m, iov);
}

static int64_t do_sendmsg(struct task *t, int fd, uint64_t umsg, unsigned flags)
{
    struct file *f;
    struct kmsg m;
    g_autofree struct guest_iovec *iov = NULL;
    int64_t r = msg_begin(t, fd, umsg, flags, &f, &m, &iov);
    return r ? r : send_msg(t, f, &m, iov, flags);
}

SYS(sendmsg) { return do_sendmsg(t, (int)a[0], uarg(t, a[1]), (unsigned)a[2]); }

/* scm_detach_fds(): as many descriptors as the control buffer holds, the
 * rest closed and MSG_CTRUNC.  Returns the control bytes used. */
static uint64_t put_rights(struct task *t, const struct kmsg *m, struct unix_rights *rights,
                           unsigned flags, unsigned *msg_flags)
{
    if (!rights->n)
        return 0;
    bool compat = in_compat_syscall(t);
    size_t hdr = compat ? sizeof(struct cmsghdr32_linux) : sizeof(struct cmsghdr64_linux);
    size_t align = compat ? 4 : 8;
    int fdmax = m->controllen > hdr ? (int)MIN((m->controllen - hdr) / 4, INT32_MAX) : 0;
    int i = 0;
    if (m->control) {
        for (; i < rights->n && i < fdmax; i++) {
            int fd = fdtable_alloc(t->fds);
            if (fd < 0 || (uint64_t)fd >= t->group->rlim[RLIMIT_NOFILE_LINUX].cur)
                break;
            int32_t v = fd;
            if (!mm_write(t->mm, m->control + hdr + (uint64_t)i * 4, &v, 4))
                break;
            struct gfd g = rights->fds[i];
            g.cloexec = flags & MSG_CMSG_CLOEXEC_LINUX;
            rights->fds[i] = (struct gfd){ .kind = GFD_NONE };
            fdtable_install(t->fds, fd, g);
        }
    }
    uint64_t used = 0;
    if (i > 0) {
        uint64_t len = hdr + (uint64_t)i * 4;
        bool ok;
        if (compat) {
            struct cmsghdr32_linux c = { (uint32_t)len, SOL_SOCKET_LINUX, SCM_RIGHTS_LINUX };
            ok = mm_write(t->mm, m->control, &c, sizeof(c));
        } else {
            struct cmsghdr64_linux c = { len, SOL_SOCKET_LINUX, SCM_RIGHTS_LINUX };
            ok = mm_write(t->mm, m->control, &c, sizeof(c));
        }
        if (ok)
            used = MIN((len + align - 1) & ~(uint64_t)(align - 1), m->controllen);
    }
    if (i < rights->n)
        *msg_flags |= MSG_CTRUNC_LINUX;
    return used;
}

static int64_t do_recvmsg(struct task *t, int fd, uint64_t umsg, unsigned flags)
{
    struct file *f;
    struct kmsg m;
    g_autofree struct guest_iovec *iov = NULL;
    int64_t r = msg_begin(t, fd, umsg, flags, &f, &m, &iov);
    if (r)
        return r;
    struct unix_rights rights = { 0 };
    unsigned msg_flags = flags & MSG_CMSG_CLOEXEC_LINUX;
    r = unix_recv(t, f, iov, (int)m.iovlen, flags, &rights, &msg_flags);
    if (r < 0) {
        unix_rights_clear(&rights);
        return r;
    }
    uint64_t used = put_rights(t, &m, &rights, flags, &msg_flags);
    unix_rights_clear(&rights);
    /* The peer of a pair has no address: a name's length is 0. */
    bool ok;
    if (in_compat_syscall(t)) {
        uint32_t namelen = 0, clen = (uint32_t)used;
        int32_t fl = (int32_t)msg_flags;
        ok = (!m.name || mm_write(t->mm, umsg + offsetof(struct msghdr32_linux, namelen),
                                  &namelen, 4)) &&
             mm_write(t->mm, umsg + offsetof(struct msghdr32_linux, flags), &fl, 4) &&
             mm_write(t->mm, umsg + offsetof(struct msghdr32_linux, controllen), &clen, 4);
    } else {
        uint32_t namelen = 0;
        int32_t fl = (int32_t)msg_flags;
        ok = (!m.name || mm_write(t->mm, umsg + offsetof(struct msghdr64_linux, namelen),
                                  &namelen, 4)) &&
             mm_write(t->mm, umsg + offsetof(struct msghdr64_linux, flags), &fl, 4) &&
             mm_write(t->mm, umsg + offsetof(struct msghdr64_linux, controllen), &used, 8);
    }
    return ok ? r : -EFAULT_LINUX;
}

SYS(recvmsg) { return do_recvmsg(t, (int)a[0], uarg(t, a[1]), (unsigned)a[2]); }

/* __sys_sendto() */
static int64_t do_sendto(struct task *t, int fd, uint64_t buf, uint64_t len, unsigned flags,
                         uint64_t addr, uint32_t addrlen)
{
    struct file *f;
    int64_t r = socket_file(t, fd, &f);
    if (r)
        return r;
    struct kmsg m = { .iovlen = 1 };
    if (addr) {
        if ((int32_t)addrlen < 0 || addrlen > SOCKADDR_STORAGE_SIZE)
            return -EINVAL_LINUX;
        m.name = addr;
        m.namelen = addrlen;
    }
    struct guest_iovec v = { buf, MIN(len, MAX_RW_COUNT_LINUX) };
    if (!access_ok(v.base, v.len))
        return -EFAULT_LINUX;
    return send_msg(t, f, &m, &v, flags);
}

SYS(sendto)
{
    return do_sendto(t, (int)a[0], uarg(t, a[1]), uarg(t, a[2]), (unsigned)a[3], uarg(t, a[4]),
                     (uint32_t)a[5]);
}

/* __sys_recvfrom() */
static int64_t do_recvfrom(struct task *t, int fd, uint64_t buf, uint64_t len, unsigned flags,
                           uint64_t addr, uint64_t uaddrlen)
{
    struct file *f;
    int64_t r = socket_file(t, fd, &f);
    if (r)
        return r;
    struct guest_iovec v = { buf, MIN(len, MAX_RW_COUNT_LINUX) };
    if (!access_ok(v.base, v.len))
        return -EFAULT_LINUX;
    struct unix_rights rights = { 0 };
    unsigned msg_flags = 0;
    r = unix_recv(t, f, &v, 1, flags, &rights, &msg_flags);
    unix_rights_clear(&rights);
    if (r >= 0 && addr) {
        /* move_addr_to_user() of an empty address */
        int32_t ulen;
        if (!mm_read(t->mm, uaddrlen, &ulen, 4))
            return -EFAULT_LINUX;
        if (ulen < 0)
            return -EINVAL_LINUX;
        int32_t zero = 0;
        if (!mm_write(t->mm, uaddrlen, &zero, 4))
            return -EFAULT_LINUX;
    }
    return r;
}

SYS(recvfrom)
{
    return do_recvfrom(t, (int)a[0], uarg(t, a[1]), uarg(t, a[2]), (unsigned)a[3],
                       uarg(t, a[4]), uarg(t, a[5]));
}

static int64_t do_shutdown(struct task *t, int fd, int how)
{
    struct file *f;
    int64_t r = socket_file(t, fd, &f);
    return r ? r : unix_shutdown(f, how);
}

SYS(shutdown) { return do_shutdown(t, (int)a[0], (int)a[1]); }

/* socketcall(2): i386's one entry for the socket calls, its arguments in
 * an array of 32-bit words (net/socket.c: nargs[]). */
SYS(socketcall)
{
    static const uint8_t nargs[SYS_SENDMMSG_LINUX + 1] = {
        0, 3, 3, 3, 2, 3, 3, 3, 4, 4, 4, 6, 6, 2, 5, 5, 3, 3, 4, 5, 4,
    };
    uint32_t call = (uint32_t)a[0];
    if (call < 1 || call > SYS_SENDMMSG_LINUX)
        return -EINVAL_LINUX;
    uint32_t w[6] = { 0 };
    if (!mm_read(t->mm, (uint32_t)a[1], w, nargs[call] * 4u))
        return -EFAULT_LINUX;
    switch (call) {
    case SYS_SOCKETPAIR_LINUX:
        return do_socketpair(t, (int)w[0], (int)w[1], (int)w[2], w[3]);
    case SYS_SEND_LINUX:
        return do_sendto(t, (int)w[0], w[1], w[2], w[3], 0, 0);
    case SYS_RECV_LINUX:
        return do_recvfrom(t, (int)w[0], w[1], w[2], w[3], 0, 0);
    case SYS_SENDTO_LINUX:
        return do_sendto(t, (int)w[0], w[1], w[2], w[3], w[4], w[5]);
    case SYS_RECVFROM_LINUX:
        return do_recvfrom(t, (int)w[0], w[1], w[2], w[3], w[4], w[5]);
    case SYS_SHUTDOWN_LINUX:
        return do_shutdown(t, (int)w[0], (int)w[1]);
    case SYS_SENDMSG_LINUX:
        return do_sendmsg(t, (int)w[0], w[1], w[2]);
    case SYS_RECVMSG_LINUX:
        return do_recvmsg(t, (int)w[0], w[1], w[2]);
    default:
        return -ENOSYS_LINUX; /* named sockets are not emulated */
    }
}
