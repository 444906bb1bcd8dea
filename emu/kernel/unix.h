/* AF_UNIX socket pairs as objects of the emulated kernel
 * (net/unix/af_unix.c): socketpair(2)'s two connected ends, for
 * SOCK_STREAM, SOCK_SEQPACKET and SOCK_DGRAM, with message boundaries,
 * shutdown, and descriptors passed in SCM_RIGHTS messages, so that guest
 * tasks talk and hand each other files (a seccomp listener among them)
 * without the host.  Named sockets (socket, bind, connect) are not
 * emulated.  Readiness for the poll family is each file's ops->poll. */
#ifndef EMU_UNIX_H
#define EMU_UNIX_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/kernel/fdtable.h"

struct task;

/* socketpair(AF_UNIX, type, protocol): two new files, not yet in any
 * table (the caller installs them), or a negative errno. */
int unix_pair_new(int type, int protocol, unsigned file_flags, struct file *ends[2]);

bool unix_is_socket(const struct file *f);
/* SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET. */
int unix_type(const struct file *f);

/* What one message carries beside its bytes. */
struct unix_rights {
    struct gfd *fds; /* each holds its own reference */
    int n;
};
void unix_rights_clear(struct unix_rights *r);

/* sendmsg(2) on an end: the bytes of `iov`, with `rights` taken over
 * (cleared) once queued.  MSG_DONTWAIT, MSG_NOSIGNAL, MSG_OOB. */
int64_t unix_send(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                  struct unix_rights *rights, unsigned flags);

/* recvmsg(2) on an end.  The descriptors the message carried go to
 * `rights` (the caller installs them), *msg_flags gets MSG_TRUNC. */
int64_t unix_recv(struct task *t, struct file *f, const struct guest_iovec *iov, int n,
                  unsigned flags, struct unix_rights *rights, unsigned *msg_flags);

/* shutdown(2): SHUT_RD, SHUT_WR, SHUT_RDWR. */
int unix_shutdown(struct file *f, int how);

#endif
