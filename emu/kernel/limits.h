/* Resource limits the owner of the CPU sets on a job:
 *   --cpu-time=SOFT[:HARD]  RLIMIT_CPU: SIGXCPU at SOFT s and every second
 *                           after, SIGKILL at HARD (default HARD = SOFT)
 *   --timeout=SECONDS       wall clock, then SIGKILL
 *   --max-insns=N           guest instructions, then SIGKILL
 *   --memory=BYTES          RLIMIT_AS: brk and mmap answer -ENOMEM past it
 *   --output-limit=BYTES    RLIMIT_FSIZE over all output: SIGXFSZ past it
 *   --host-memory=BYTES     seccomp-emu's own host memory (emu/engine/hostmem.h)
 * The guest sees the rlimits through getrlimit/prlimit64 as it would
 * natively.  Each limit that ends a job says which on stderr. */
#ifndef EMU_LIMITS_H
#define EMU_LIMITS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/status.h"

struct task;

GOptionGroup *limits_option_group(void);

/* How long set-up (reading the inputs, compiling profiles with libseccomp,
 * loading the program) may take without --timeout. */
#define LIMITS_SETUP_SECONDS 60

/* Right after the options are parsed: --timeout counts from here, and
 * until limits_setup_done() a watchdog ends the run when it passes, with
 * the timeout's line (unless `quiet`) and SIGKILL; without --timeout it
 * ends set-up that takes LIMITS_SETUP_SECONDS with a line and status 126. */
err_t limits_start_clock(bool quiet);
/* CLOCK_MONOTONIC ns at which --timeout ends the run; 0 without one. */
int64_t limits_deadline(void);
/* The guest is about to start: the timer thread watches the rest. */
err_t limits_setup_done(void);

/* After task_init_rlimits() and cpu_open(), before the program is loaded
 * (so that its own pages count against --memory). */
err_t limits_setup(struct task *t);

/* An rlimit changed (the options, or the guest's setrlimit/prlimit64). */
void limits_rlimit_changed(struct task *t, unsigned resource);

/* The run loop, around each engine run: the instruction budget for
 * --max-insns and --sched=rr (what may run, then what ran). */
err_t limits_before_run(struct task *t);
err_t limits_after_run(struct task *t);

/* --host-memory's accounting (issue 33) charges here what a new engine
 * and its copied address space cost the host; an error refuses the
 * clone (EAGAIN/ENOMEM).  Nothing is charged yet. */
struct cpu;
err_t limits_charge_engine(struct cpu *c);

/* Output: bytes the guest may still write (UINT64_MAX: no limit). */
uint64_t limits_output_left(struct task *t);
/* How much of a write of `count` bytes may go out; -1 when nothing may:
 * SIGXFSZ has been sent and the call answers -EFBIG. */
int64_t limits_output_allow(struct task *t, uint64_t count);
void limits_output_done(struct task *t, int64_t written);

#endif
