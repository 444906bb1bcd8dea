/* Guest clocks, shared by the system calls and the vDSO functions. */
#ifndef EMU_TIMEKEEPING_H
#define EMU_TIMEKEEPING_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/kernel/task.h"

int guest_clock_gettime(int clk, int64_t *sec, int64_t *nsec);
int guest_clock_getres(int clk, int64_t *nsec);

#endif
