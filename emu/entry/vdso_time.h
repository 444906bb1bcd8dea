/* The vDSO's time functions, served without a system call, as Linux's are:
 * so they work in strict mode exactly as natively. */
#ifndef EMU_VDSO_TIME_H
#define EMU_VDSO_TIME_H

#include <stdint.h>

#include "emu/status.h"
#include "emu/kernel/task.h"

/* Map the vDSO for the task and record its entry points. */
err_t vdso_map(struct task *t);

/* Code hook on the vDSO text: serve the call at `pc` if it is one. */
void vdso_time_hook(struct task *t, uint64_t pc);
/* Is `pc` the entry of a function vdso_time_hook() serves? */
bool vdso_time_serves(const struct task *t, uint64_t pc);

#endif
