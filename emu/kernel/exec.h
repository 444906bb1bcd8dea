/* execve(2) (fs/exec.c): a task replaces its program.  The guest sees no
 * file system, so the programs it can run are the one seccomp-emu was
 * started with, by /proc/self/exe (any /proc/<pid>/exe of the guest) or
 * by its own path.  What survives is Linux's: the seccomp mode and
 * filters, no_new_privs, the pid, the signal mask and pending signals,
 * ignored signals, rlimits, descriptors without close-on-exec; a thread
 * other than the leader takes the leader's pid (de_thread). */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

struct task;

/* execve: 0 once the new program is in place (the registers are its
 * first ones), or a negative errno before the point of no return.  argv
 * and envp are the guest's arrays (pointers in the call's ABI). */
int64_t exec_task(struct task *t, const char *filename, uint64_t uargv, uint64_t uenvp);

/* Set by emu/main.c: map the program at `path` into t's new, empty
 * address space, with its vDSO and initial stack, as the first program
 * was.  An error means there is no such program (ENOENT). */
extern err_t (*exec_load)(struct task *t, const char *path, char **argv, char **envp,
                          const char *execfn, uint64_t *entry, uint64_t *sp);
/* Set by emu/main.c: is `path` a program exec_load() can map? */
extern bool (*exec_known)(const char *path);

#endif
