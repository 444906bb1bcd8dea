/* Signals for the guest, as Linux generates, queues and delivers them.
 *
 * Generation (signal_send and the fault and kernel-side helpers) follows
 * kernel/signal.c: ignored signals are dropped, a standard signal already
 * pending is not queued twice, real-time signals queue.  Delivery happens
 * only while the engine is stopped, at an instruction boundary: whoever
 * makes a signal deliverable stops the engine, and the run loop calls
 * signal_resume(), which installs a sigreturn's context, applies restart
 * rules to an interrupted call, and builds frames or takes the default
 * action. */
#ifndef EMU_SIGNAL_H
#define EMU_SIGNAL_H

#include <stdint.h>

#include "abi/signal_linux.h"
#include "emu/kernel/task.h"

/* State of a new program (default actions, nothing blocked, no alternate
 * stack, the FPU as Linux starts it), precise page faults (emu/entry/fault.c)
 * and the timer thread (emu/kernel/async.c).  After cpu_open(). */
err_t signal_setup(struct task *t);

/* Queue a signal as send_signal() does; `why` (static text) explains a
 * death by it on stderr. */
void signal_send(struct task *t, const struct ksiginfo *info, const char *why);

/* A POSIX timer's signal (send_sigqueue): `info` names its timer by
 * overrun_last; while one is queued, another expiry (and `more` missed
 * ones) only counts in its si_overrun. */
void signal_send_timer(struct task *t, const struct ksiginfo *info, uint32_t more);
/* The timer is gone: a signal of its still queued is delivered, and
 * records nothing. */
void signal_timer_forget(struct task *t, const int32_t *overrun_last);

/* A signal the kernel sends the task itself (SIGPIPE, SIGXFSZ: send_sig
 * with SI_USER from the task's own pid). */
void signal_post(struct task *t, int sig);
/* From the kernel with SI_KERNEL (timers, limits). */
void signal_kernel(struct task *t, int sig, const char *why);

/* A synchronous fault at the current instruction (force_sig_fault): a
 * handler runs if one is installed and the signal is not blocked; else
 * the task dies of it.  trapno/err are what sigcontext shows.  CPU
 * exceptions come here through emu/entry/exception.c, which decides them. */
void signal_fault_trap(struct task *t, int sig, int si_code, uint64_t addr, int trapno,
                       uint64_t err);
/* The same, with a reason for the stderr line should it kill. */
void signal_fault_why(struct task *t, int sig, int si_code, uint64_t addr, int trapno,
                      uint64_t err, const char *why);

/* force_sig_seccomp(): SIGSYS with si_code SYS_SECCOMP for a TRAP action,
 * forced as a fault is (blocked or ignored, it kills); `why` explains a
 * death by it. */
void signal_force_seccomp(struct task *t, uint64_t call_addr, int32_t nr, uint32_t arch,
                          int data, const char *why);

/* Has a fault been raised since the engine last started? */
bool signal_fault_raised(struct task *t);

/* Is a signal pending that is neither blocked nor ignored (one a blocking
 * call must give way to)? */
bool signal_deliverable(struct task *t);

/* A call just returned `result` (trap.c, once per call): stop the engine
 * if a signal must be delivered or a sigreturn's context installed. */
void signal_syscall_exit(struct task *t, enum entry e, int64_t nr, int64_t result);
/* The same for a result the call did not make itself (a seccomp
 * supervisor's answer): one in the restart range (-ERESTARTSYS, ...) is
 * a plain value unless a signal is pending, as the kernel restarts only
 * on the way to a signal (exit_to_user_mode_loop). */
void signal_syscall_exit_answer(struct task *t, enum entry e, int64_t nr, int64_t result);

/* The engine has stopped (and the run loop has taken what the async side
 * posted): install a pending sigreturn context, deliver signals.  *pc is
 * where to resume; *retry asks for another stop soon, when the engine
 * stopped between a call's entry and return, not at a user instruction. */
err_t signal_resume(struct task *t, uint64_t *pc, bool *retry);

/* sigreturn's context, installed at the next stop. */
void signal_set_return_context(struct task *t, const struct uctx *c);

/* Mask, as sigprocmask and sigreturn set it (SIGKILL and SIGSTOP can
 * never be blocked). */
void signal_set_blocked(struct task *t, uint64_t mask);

/* set_user_sigmask() for ppoll, pselect6 and epoll_pwait: `mask` is the
 * blocked set while the call waits.  When it ends, the old set comes back
 * at once, unless a signal interrupted it: then the handler's frame saves
 * the old set, and sigreturn restores it (restore_saved_sigmask_unless). */
void signal_mask_for_call(struct task *t, uint64_t mask);
void signal_mask_call_done(struct task *t, bool interrupted);

/* Take the next pending signal among `allowed` as dequeue_signal() does:
 * the thread's faults, then its own set, then the process's; 0 if none. */
int signal_dequeue(struct task *t, uint64_t allowed, struct ksiginfo *info);
/* Drop every pending instance of `sig` (an action set to ignore). */
void signal_flush(struct task *t, int sig);
/* Both pending sets: the thread's and its process's. */
uint64_t signal_pending_set(const struct task *t);

const char *signal_name(int sig);

/* Notes the ignored signals and the mask seccomp-emu was started with,
 * which signal_setup() gives the guest, as execve keeps them.  Called
 * before anything changes them. */
void signal_read_inherited(void);

#define SIGMASK_LINUX(sig) (1ull << ((sig) - 1))

#endif
