/* Thread-local storage descriptors (arch/x86/kernel/tls.c): the three
 * GDT entries of set_thread_area(2), which are per task and reloaded at
 * each task switch (emu/kernel/sched.c). */
#ifndef EMU_TLS_H
#define EMU_TLS_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* do_set_thread_area()'s reading and checking of a struct user_desc at
 * `up`: the GDT index it names (with entry_number -1 and `can_allocate`,
 * the first free one, written back) and the descriptor it makes.  0 or
 * -EFAULT, -EINVAL, -ESRCH. */
int tls_read_user_desc(struct task *t, uint64_t up, bool can_allocate, int *index,
                       uint8_t desc[8]);

#endif
