/* --trace: one line (or one JSON object) per trapped call, mode change,
 * signal and the end, strace-like, with the trapping instruction
 * disassembled.  An observer only: it reads guest state and never changes
 * it, and when --trace is not given nothing is installed. */
#ifndef EMU_TRACE_H
#define EMU_TRACE_H

#include <glib.h>

#include "emu/status.h"
#include "emu/kernel/task.h"

/* --trace[=FILE], --trace-format=text|json */
GOptionGroup *trace_option_group(void);

/* With --trace: open the trace and start observing.  Call once the guest is
 * loaded and before --strict takes effect, so the trace shows it. */
err_t trace_setup(struct task *t);
/* Open the --trace-file, if any: before the file system is closed to
 * seccomp-emu (sandbox_confine_files); trace_setup() opens it otherwise. */
err_t trace_open_output(void);

#endif
