/* Port I/O at CPL 3: a real CPU refuses it (#GP), Unicorn would run it. */
#ifndef EMU_ENTRY_PORT_IO_H
#define EMU_ENTRY_PORT_IO_H

#include "emu/status.h"
#include "emu/kernel/task.h"

err_t port_io_install(struct cpu *c);

#endif
