/* Host-side tuning of seccomp-emu's own process, done once before the
 * engine opens.  Optional: on hosts without the knobs it does nothing. */
#ifndef EMU_HOST_TUNE_H
#define EMU_HOST_TUNE_H

#include "emu/status.h"

err_t host_tune_memory(void);

#endif
