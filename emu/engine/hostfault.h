/* Host faults in an engine's generated code: a guest access made straight
 * to host memory through the engine's linear mapping (UC_CTL_LINEAR_BASE,
 * docs/linear-mapping.md) that the host refused.
 *
 * The handler accepts a fault only on a thread inside hostfault_enter() /
 * hostfault_leave(), at an address in that engine's window (or above the
 * host's user space, where its slot table traps), and at a host pc in that
 * engine's translated code (uc_host_fault says): the faulting
 * instruction then runs again through the soft TLB, whose fill decides as
 * for every other access.  Any other fault is a bug in seccomp-emu and
 * goes on to the handler that was there before (a sanitizer's) or to the
 * default action, a crash where it happened. */
#ifndef EMU_HOSTFAULT_H
#define EMU_HOSTFAULT_H

#include <stddef.h>
#include <stdint.h>
#include <unicorn/unicorn.h>

#include "emu/status.h"

/* Once, before any engine has a base and before the self-sandbox. */
err_t hostfault_install(void);

/* Where an engine's windows are in the host: an i386 address space's one,
 * or an x86_64 one's slots as they are reserved (read at each fault). */
struct hostfault_ranges {
    unsigned n;
    struct {
        uintptr_t lo, hi;
    } range[UC_LINEAR_SLOTS + 1]; /* the slots and the trap region (mem.c) */
    /* Faults above the host's user space are the engine's too: a 64-bit
     * guest's kernel-half or non-canonical address, which a slot table
     * with UC_LINEAR_TABLE_TRAPS sends there (hostfault_traps_beyond_user) */
    bool beyond_user;
};

/* Can the handler tell a fault above the host's user space from the
 * others?  Linux on x86-64 with 47-bit user addresses: there an access
 * past them faults (a non-canonical one with SI_KERNEL and no address),
 * and no host memory is above them.  Elsewhere, or with 5-level paging,
 * false. */
bool hostfault_traps_beyond_user(void);

/* Around uc_emu_start() of an engine with windows. */
void hostfault_enter(uc_engine *uc, const struct hostfault_ranges *windows);
void hostfault_leave(void);

/* Faults this thread's engines have taken so far (for tests and traces). */
uint64_t hostfault_count(void);

#endif
