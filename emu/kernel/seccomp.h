/* Strict mode: the one place that decides whether a call may run, and the
 * interfaces that turn the mode on.  trap.c calls seccomp_check() exactly
 * once per trapped call, before anything of the call happens. */
#ifndef EMU_SECCOMP_H
#define EMU_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/abi.h"

struct task;

struct verdict {
    bool allow;
    const struct abi *list; /* the list the call was checked against */
    bool cve_2009_0835;     /* allowed only by the 2005 personality rule */
};

struct verdict seccomp_check(const struct task *t, enum entry e, int64_t nr);

/* Turn strict mode on: one way, and the time-stamp counter goes off. */
void seccomp_enter_strict(struct task *t);

/* prctl(2) and seccomp(2) as each profile answers them. */
int64_t seccomp_prctl(struct task *t, const uint64_t a[6]);
int64_t seccomp_syscall(struct task *t, const uint64_t a[6]);

/* The seed patch's /proc/<pid>/seccomp file. */
int64_t seccomp_proc_read(struct task *t, uint64_t *pos, uint64_t buf, uint64_t count);
int64_t seccomp_proc_write(struct task *t, uint64_t buf, uint64_t count);

/* Parse what a write to /proc/self/seccomp carries, by the seed's rules:
 * at most 19 bytes, base 0, one trailing newline consumed.  Returns the
 * number of bytes parsed (0: nothing parsed) and the value in *mode. */
size_t seccomp_proc_parse(const char *buf, size_t count, unsigned long *mode);

/* Render the mode as the seed's read returns it: "N\n\0"; returns length. */
size_t seccomp_proc_render(int mode, char out[24]);

#endif
