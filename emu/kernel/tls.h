/* Segment descriptors a program makes from a struct user_desc: the three
 * thread-local GDT entries of set_thread_area(2) (arch/x86/kernel/tls.c),
 * per task and reloaded at each task switch (emu/kernel/sched.c), and the
 * address space's LDT of modify_ldt(2) (arch/x86/kernel/ldt.c). */
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

/* modify_ldt(func, ptr, bytecount): 0 reads the table, 1 and 0x11 write
 * one entry (1: the old mode), 2 reads the default (empty) LDT; any other
 * func -ENOSYS.  The result as the syscall returns it. */
int64_t ldt_modify(struct task *t, int func, uint64_t ptr, uint64_t bytecount);

#endif
