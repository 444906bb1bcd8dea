/* Process descriptors (CLONE_PIDFD): readable once the process has
 * ended, as poll() shows (kernel/pid.c, pidfd_poll). */
#ifndef EMU_PIDFD_H
#define EMU_PIDFD_H

struct task;
struct thread_group;

/* A close-on-exec descriptor in t's table for process `g`, or -EMFILE. */
int pidfd_install(struct task *t, struct thread_group *g);
/* The process a descriptor names, or NULL (not a pidfd: -EBADF/-EINVAL
 * is the caller's to choose). */
struct thread_group *pidfd_group(struct task *t, int fd);

#endif
