/* Restartable sequences (kernel/rseq.c): a thread registers a struct rseq
 * the kernel keeps current (the CPU it runs on: the emulated machine's
 * one CPU, 0) and, when the thread is preempted or a signal is delivered
 * while its instruction pointer is inside the critical section its rseq_cs
 * names, moves it to that section's abort handler.  glibc 2.35+ registers
 * one per thread and reads sched_getcpu() from it. */
#ifndef EMU_KERNEL_RSEQ_H
#define EMU_KERNEL_RSEQ_H

#include <stdint.h>

struct task;
struct uctx;

/* rseq(2). */
int64_t rseq_call(struct task *t, uint64_t addr, uint32_t len, int flags, uint32_t sig);

/* Before a signal's frame is built from `regs` (rseq_signal_deliver):
 * abort a critical section the thread is in, refresh the CPU fields.  A
 * broken registration or rseq_cs forces SIGSEGV, as Linux does. */
void rseq_signal_deliver(struct task *t, struct uctx *regs);

#endif
