/* seccomp user notification (kernel/seccomp.c's SECCOMP_RET_USER_NOTIF):
 * a filter attached with SECCOMP_FILTER_FLAG_NEW_LISTENER gets a listener,
 * a file of the emulated kernel like a pipe, which guest tasks pass on
 * (fork, SCM_RIGHTS).  A call whose verdict is USER_NOTIF waits, its task
 * blocked, until a task holding the listener answers with
 * SECCOMP_IOCTL_NOTIF_SEND or ADDFD+FLAG_SEND, the listener goes, or a
 * signal interrupts it.  Each notification moves through the kernel's
 * states: INIT (queued), SENT (received), REPLIED. */
#ifndef EMU_SECCOMP_NOTIFY_H
#define EMU_SECCOMP_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/seccomp_linux.h"

struct task;
struct file;
struct seccomp_filter;

/* How a notified call ended, for --trace. */
enum notify_end {
    NOTIFY_NO_LISTENER, /* its listener was closed before: -ENOSYS, nothing queued */
    NOTIFY_ANSWERED,    /* SEND: error ? error : val */
    NOTIFY_CONTINUED,   /* SEND with SECCOMP_USER_NOTIF_FLAG_CONTINUE: the call runs */
    NOTIFY_ADDFD_SENT,  /* ADDFD with SECCOMP_ADDFD_FLAG_SEND: the new descriptor */
    NOTIFY_DETACHED,    /* the last listener descriptor closed while it waited: -ENOSYS */
    NOTIFY_INTERRUPTED, /* a signal ended the wait (-ERESTARTSYS) */
    NOTIFY_KILLED,      /* the task is dying */
};

struct notify_report {
    enum notify_end end;
    uint64_t id;
    int32_t receiver; /* the tid that received it (RECV), 0: nobody did */
    int32_t error;    /* the answer, as SEND gave it */
    int64_t val;
};

/* A filter just attached with NEW_LISTENER: its notification state, and
 * the listener at descriptor `fd` (reserved by the caller), O_CLOEXEC. */
void seccomp_notify_listen(struct task *t, struct seccomp_filter *f, int fd);

/* seccomp_do_user_notification(): queue the call `sd` on f's listener and
 * wait for the answer.  True: the call runs (CONTINUE); false: *result is
 * what it returns (-ERESTARTSYS when a signal interrupted it). */
bool seccomp_notify_wait(struct task *t, struct seccomp_filter *f,
                         const struct seccomp_data_linux *sd, int64_t *result,
                         struct notify_report *rep);

/* Is this file a seccomp listener? */
bool seccomp_is_listener(const struct file *f);

#endif
