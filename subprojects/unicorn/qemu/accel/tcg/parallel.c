/*
 * seccomp-emu: engines that run guest threads in parallel over one memory.
 *
 * Each engine of a group translates with CF_PARALLEL, so the guest's
 * locked read-modify-writes, xchg and cmpxchg8b/16b become host atomics
 * (tcg_gen_atomic_*) and, on hosts whose order is weaker than x86's, its
 * loads and stores carry the barriers TSO needs (tcg_gen_req_mo).  What
 * the host cannot do atomically (a locked access that is misaligned or
 * crosses a page, cmpxchg16b without a 128-bit host compare-and-swap)
 * leaves the block with EXCP_ATOMIC; the engine then stops every other
 * engine of its group at a block boundary, runs that one instruction
 * serially, and lets them go.  This is QEMU's start_exclusive /
 * end_exclusive (cpus-common.c), scoped to a group of Unicorn engines
 * instead of the CPUs of one QEMU process.
 *
 * Licensed under the GNU GPL, version 2 or later, as QEMU's cpus-common.c.
 */
#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "cpu.h"
#include "exec/exec-all.h"
#include "uc_priv.h"

#include <pthread.h>

/* Unicorn's smp_mb() is empty (it ran one engine at a time); the
 * handshake below is Dekker's and needs a real full barrier between a
 * store and the load that follows it, on x86 hosts too. */
#define full_barrier() __atomic_thread_fence(__ATOMIC_SEQ_CST)

struct uc_parallel_group {
    pthread_mutex_t lock;
    /* The engine asking for exclusivity waits here for the running
     * members to leave their blocks. */
    pthread_cond_t exclusive_cond;
    /* Members wait here while another holds exclusivity. */
    pthread_cond_t exclusive_resume;
    /* 0: nobody is exclusive; otherwise 1 + the running members that
     * still have to leave before the exclusive one may go on. */
    int pending;
    struct uc_struct *members; /* linked through parallel_next */
};

uc_err uc_parallel_group_open(uc_parallel_group **group)
{
    uc_parallel_group *g = calloc(1, sizeof(*g));
    if (!g) {
        return UC_ERR_NOMEM;
    }
    if (pthread_mutex_init(&g->lock, NULL) ||
        pthread_cond_init(&g->exclusive_cond, NULL) ||
        pthread_cond_init(&g->exclusive_resume, NULL)) {
        free(g);
        return UC_ERR_NOMEM;
    }
    *group = g;
    return UC_ERR_OK;
}

uc_err uc_parallel_group_close(uc_parallel_group *group)
{
    if (!group) {
        return UC_ERR_ARG;
    }
    pthread_mutex_lock(&group->lock);
    bool empty = group->members == NULL;
    pthread_mutex_unlock(&group->lock);
    if (!empty) {
        return UC_ERR_ARG; /* an engine still uses it */
    }
    pthread_cond_destroy(&group->exclusive_resume);
    pthread_cond_destroy(&group->exclusive_cond);
    pthread_mutex_destroy(&group->lock);
    free(group);
    return UC_ERR_OK;
}

void parallel_join(struct uc_struct *uc, uc_parallel_group *group)
{
    pthread_mutex_lock(&group->lock);
    uc->parallel_next = group->members;
    group->members = uc;
    uc->parallel_group = group;
    pthread_mutex_unlock(&group->lock);
    uc->cpu->tcg_cflags = CF_PARALLEL;
    /* Another engine's kick (cpu_exit) must stop this one at a block
     * boundary: the exit check after each access would leave a block
     * mid-way with the guest's pc still at the block's start, and what
     * ran before the exit (a store, a locked add) would run twice. */
    uc->no_mem_exit_check = true;
}

void parallel_leave(struct uc_struct *uc)
{
    uc_parallel_group *group = uc->parallel_group;
    if (!group) {
        return;
    }
    pthread_mutex_lock(&group->lock);
    for (struct uc_struct **p = &group->members; *p; p = &(*p)->parallel_next) {
        if (*p == uc) {
            *p = uc->parallel_next;
            break;
        }
    }
    uc->parallel_next = NULL;
    uc->parallel_group = NULL;
    pthread_mutex_unlock(&group->lock);
    uc->cpu->tcg_cflags = 0;
}

/* With the group's lock held: wait until nobody is exclusive. */
static void exclusive_idle(uc_parallel_group *group)
{
    while (group->pending) {
        pthread_cond_wait(&group->exclusive_resume, &group->lock);
    }
}

void parallel_exec_start(struct uc_struct *uc)
{
    uc_parallel_group *group = uc->parallel_group;
    atomic_set(&uc->parallel_running, true);
    /* Write running before reading pending: start_exclusive writes them
     * the other way round, so one of the two sees the other. */
    full_barrier();
    if (unlikely(atomic_read(&group->pending))) {
        pthread_mutex_lock(&group->lock);
        if (!uc->parallel_has_waiter) {
            /* Not counted in pending: step aside until it is over. */
            atomic_set(&uc->parallel_running, false);
            exclusive_idle(group);
            atomic_set(&uc->parallel_running, true);
        }
        /* else counted: parallel_exec_end releases the exclusive one. */
        pthread_mutex_unlock(&group->lock);
    }
}

void parallel_exec_end(struct uc_struct *uc)
{
    uc_parallel_group *group = uc->parallel_group;
    atomic_set(&uc->parallel_running, false);
    full_barrier();
    if (unlikely(atomic_read(&group->pending))) {
        pthread_mutex_lock(&group->lock);
        if (uc->parallel_has_waiter) {
            uc->parallel_has_waiter = false;
            atomic_set(&group->pending, group->pending - 1);
            if (group->pending == 1) {
                pthread_cond_signal(&group->exclusive_cond);
            }
        }
        pthread_mutex_unlock(&group->lock);
    }
}

/* Called outside parallel_exec_start/end: every other member is stopped
 * at a block boundary when this returns. */
static void start_exclusive(struct uc_struct *uc)
{
    uc_parallel_group *group = uc->parallel_group;
    pthread_mutex_lock(&group->lock);
    exclusive_idle(group);
    atomic_set(&group->pending, 1);
    /* Write pending before reading the members' running flags. */
    full_barrier();
    int running = 0;
    for (struct uc_struct *other = group->members; other; other = other->parallel_next) {
        if (other != uc && atomic_read(&other->parallel_running)) {
            other->parallel_has_waiter = true;
            running++;
            cpu_exit(other->cpu);
        }
    }
    atomic_set(&group->pending, running + 1);
    while (group->pending > 1) {
        pthread_cond_wait(&group->exclusive_cond, &group->lock);
    }
    pthread_mutex_unlock(&group->lock);
}

void parallel_end_exclusive(struct uc_struct *uc)
{
    uc_parallel_group *group = uc->parallel_group;
    uc->parallel_step = false;
    pthread_mutex_lock(&group->lock);
    atomic_set(&group->pending, 0);
    pthread_cond_broadcast(&group->exclusive_resume);
    pthread_mutex_unlock(&group->lock);
}

int parallel_step_atomic(struct uc_struct *uc, CPUState *cpu)
{
    start_exclusive(uc);
    /* One instruction, translated without CF_PARALLEL: a plain load and
     * store, atomic because nobody else runs.  cpu_exec() ends the
     * exclusive section as soon as that block has run. */
    cpu->cflags_next_tb = 1 | (cpu->tcg_cflags & ~CF_PARALLEL);
    uc->parallel_step = true;
    int r = cpu_exec(uc, cpu);
    if (uc->parallel_step) {
        /* cpu_exec() returned before the step ran (an exit request was
         * pending): the instruction must not run later, serially, with
         * the others going; it runs again in parallel and comes back. */
        cpu->cflags_next_tb = -1;
        parallel_end_exclusive(uc);
    }
    return r;
}
