/* --host-memory: the cap on seccomp-emu's own host memory for the whole
 * guest, the emulator's overhead included (engines, translated code, host
 * threads, copies, the guest pages it touched).
 *
 * In use = the process's peak resident set (getrusage: what the host
 * actually gave seccomp-emu, never a guess) + what is charged: memory a
 * part of seccomp-emu has promised to touch but that is not resident yet
 * (a new engine, a task's stacks, a copy about to be made).  Whoever is
 * about to touch a large amount asks hostmem_charge() first and fails the
 * way the host's lack of memory would when it says no (ENOMEM, EAGAIN for
 * clone); once the memory is resident (or given back) it calls
 * hostmem_release().  The timer thread (emu/kernel/async.c) compares the
 * total with the limit at intervals that shrink as it nears the limit, so
 * that even a guest touching memory at the host's fastest cannot pass it
 * by more than HOSTMEM_OVERSHOOT; past the limit the guest is killed by
 * SIGKILL, as a memory cgroup's OOM killer would, with a line naming
 * --host-memory (docs/signals-and-limits.md). */
#ifndef EMU_ENGINE_HOSTMEM_H
#define EMU_ENGINE_HOSTMEM_H

#include <stdbool.h>
#include <stdint.h>

/* Without --host-memory: half the host's physical memory, or 4 GiB where
 * the host does not say how much it has. */
uint64_t hostmem_default_limit(void);

void hostmem_set_limit(uint64_t bytes);
uint64_t hostmem_limit(void);

/* Peak resident set so far, in bytes. */
uint64_t hostmem_resident(void);

/* Resident plus charged. */
uint64_t hostmem_in_use(void);

/* May `bytes` more be touched?  True and charged if resident + charged +
 * bytes stays within the limit; false (nothing charged) otherwise. */
bool hostmem_charge(uint64_t bytes);
void hostmem_release(uint64_t bytes);

/* How fast a guest can make the host fault memory in, at most (zeroed
 * pages, 4 KiB at a time, or a host read into untouched guest pages), and
 * the most the limit can be passed by between two checks. */
#define HOSTMEM_RATE_PER_MS ((uint64_t)16 << 20)  /* 16 GiB/s */
#define HOSTMEM_OVERSHOOT HOSTMEM_RATE_PER_MS      /* one 1 ms interval */

/* When to look again, in ms (1..100): the headroom left at the rate above. */
int hostmem_check_interval_ms(uint64_t in_use);

#endif
