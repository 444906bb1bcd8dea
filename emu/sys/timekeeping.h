/* Guest clocks, shared by the system calls and the vDSO functions. */
#ifndef EMU_TIMEKEEPING_H
#define EMU_TIMEKEEPING_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/kernel/task.h"

int guest_clock_gettime(struct task *t, int clk, int64_t *sec, int64_t *nsec);
int guest_clock_getres(struct task *t, int clk, int64_t *nsec);

/* A struct timespec or timeval (two words) in guest memory: 64-bit words
 * (`wide`: x86_64, and i386's *_time64 calls) or 32-bit ones.  False:
 * the memory is not there (EFAULT). */
bool guest_put_timespec(struct task *t, uint64_t addr, int64_t sec, int64_t nsec, bool wide);
bool guest_get_timespec(struct task *t, uint64_t addr, bool wide, int64_t *sec, int64_t *nsec);

#endif
