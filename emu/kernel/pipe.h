/* Pipes and eventfds, as objects of the emulated kernel (fs/pipe.c,
 * fs/eventfd.c): guest tasks wait on each other through them, and they
 * never touch the host.  A pipe holds at most 16 pages (64 KiB, Linux's
 * default), writes of up to PIPE_BUF bytes are atomic, a write with no
 * reader left gets EPIPE and SIGPIPE; O_NONBLOCK, O_CLOEXEC and O_DIRECT
 * (packet mode) are Linux's.  Readiness for the poll family is each
 * file's ops->poll and ops->waitq (emu/kernel/fdtable.h). */
#ifndef EMU_PIPE_H
#define EMU_PIPE_H

#include <stdint.h>

struct task;
struct file;

/* pipe2(2): two new descriptors, read end first, into fds[]; or a
 * negative errno (-EINVAL for unknown flags, -EMFILE). */
int pipe_create(struct task *t, int flags, int fds[2]);
/* Undo pipe_create() (the copy to the guest failed). */
void pipe_destroy(struct task *t, const int fds[2]);

/* eventfd2(2): a new descriptor, or a negative errno. */
int eventfd_create(struct task *t, uint32_t initval, int flags);

/* FIONREAD on a pipe: bytes waiting; -1 if `f` is not a pipe. */
int64_t pipe_unread(struct file *f);

#endif
