/* Futexes (kernel/futex/): waits and wakes keyed as Linux keys them,
 * requeue, wake-op, the priority-inheritance lock operations glibc's PI
 * mutexes use, and what happens to a dying thread's futexes (its robust
 * list, its PI locks, clear_child_tid). */
#ifndef EMU_FUTEX_H
#define EMU_FUTEX_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* futex(2) after the syscall's own argument handling: `utime` is the
 * timeout pointer (or val2 for the requeue and wake-op commands),
 * `time32` says the timeout is an old_timespec32 (i386's futex, 240). */
int64_t futex_syscall(struct task *t, uint64_t uaddr, int op, uint32_t val, uint64_t utime,
                      uint64_t uaddr2, uint32_t val3, bool time32);

/* FUTEX_WAKE (shared) of up to `n` waiters on the word at uaddr, as the
 * kernel does for clear_child_tid; errors are ignored. */
void futex_wake_word(struct task *t, uint64_t uaddr, int n);

/* A thread is exiting (or exec'ing): walk its robust list, marking each
 * lock it still holds FUTEX_OWNER_DIED and waking a waiter, and hand its
 * PI locks to their first waiters. */
void futex_exit_release(struct task *t);

#endif
