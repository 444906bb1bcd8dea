/* Answers about host descriptors, converted to Linux's structures. */
#ifndef EMU_SYS_HOST_H
#define EMU_SYS_HOST_H

#include <stdint.h>

#include "emu/kernel/task.h"

int64_t host_tty_ioctl(struct task *t, int host, uint32_t cmd, uint64_t arg);

#endif
