#include "emu/kernel/futex.h"

#include <string.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"
#include "abi/task_linux.h"
#include "emu/kernel/task.h"
#include "emu/kernel/wait.h"

#define NS 1000000000ll
#define NBUCKETS 256

/* get_futex_key(): what makes two words the same futex.  A private
 * futex is its address in its address space; a shared one on private
 * memory is that too, marked apart (FUT_OFF_MMSHARED), so that a private
 * waiter is never woken by a shared wake; a shared one on MAP_SHARED
 * memory is the host memory itself, the same in every process mapping
 * it (after fork). */
struct futex_key {
    const void *ptr; /* the mm, or the host address of the word */
    uint64_t word;   /* the address | KEY_MMSHARED, or KEY_HOSTMEM */
};
#define KEY_MMSHARED 1ull
#define KEY_HOSTMEM 2ull

static struct {
    bool init;
    struct waitq bucket[NBUCKETS];
} futexes;

static struct waitq *bucket_of(const struct futex_key *k)
{
    if (!futexes.init) {
        for (int i = 0; i < NBUCKETS; i++)
            waitq_init(&futexes.bucket[i]);
        futexes.init = true;
    }
    uint64_t h = (uint64_t)(uintptr_t)k->ptr * 0x9e3779b97f4a7c15ull ^ k->word * 0xc2b2ae3d27d4eb4full;
    return &futexes.bucket[(h >> 32) % NBUCKETS];
}

static bool same_key(const struct waiter *w, const struct futex_key *k)
{
    return w->key == k->ptr && w->key2 == k->word;
}

/* The key of the word at uaddr, or -EINVAL (misaligned) / -EFAULT.
 * `write`: the operation will write the word (Linux's FUTEX_WRITE). */
static int get_key(struct task *t, uint64_t uaddr, bool shared, bool write, struct futex_key *k)
{
    if (uaddr & 3)
        return -EINVAL_LINUX;
    if (!shared) {
        *k = (struct futex_key){ t->mm, uaddr };
        return 0;
    }
    /* get_user_pages: the page must be there for a shared key, writable
     * for FUTEX_WRITE. */
    if (mm_valid_prefix(t->mm, uaddr, 4, write ? PROT_WRITE_LINUX : PROT_READ_LINUX) < 4)
        return -EFAULT_LINUX;
    const struct vma *v = mm_find(t->mm, uaddr);
    if (v->shared) {
        *k = (struct futex_key){ v->host + (uaddr - v->start), KEY_HOSTMEM };
        return 0;
    }
    /* A private page is anonymous unless it is still a file's: "a RO
     * anonymous page will never change and thus doesn't make sense for
     * futex operations" (its zero page, or a copy made read-only). */
    if (!(v->prot & PROT_WRITE_LINUX) && !v->file_pages)
        return -EFAULT_LINUX;
    *k = (struct futex_key){ t->mm, uaddr | KEY_MMSHARED };
    return 0;
}

static bool get_word(struct task *t, uint64_t uaddr, uint32_t *v)
{
    return mm_read(t->mm, uaddr, v, 4);
}

/* The word as a host pointer, for the read-modify-write operations (only
 * the CPU holder runs, so a plain update is atomic for the guest). */
static uint32_t *word_ptr(struct task *t, uint64_t uaddr)
{
    if (mm_valid_prefix(t->mm, uaddr, 4, PROT_WRITE_LINUX) < 4)
        return NULL;
    mm_will_write(t->mm, uaddr, 4);
    const struct vma *v = mm_find(t->mm, uaddr);
    return (uint32_t *)(void *)(v->host + (uaddr - v->start));
}

/* ---- waking ---- */

/* A PI waiter's bitset is 0 (a plain wait's never is); a
 * FUTEX_WAIT_REQUEUE_PI waiter is marked.  Only the PI operations may
 * wake either: the others find the word misused (Linux: the futex_q has
 * a pi_state or an rt_waiter). */
static bool pi_kind(const struct waiter *w)
{
    return w->bitset == 0 || w->requeue_pi;
}

/* futex_wake_mark(): off its queue, woken. */
static void wake_waiter(struct waitq *q, GList *l)
{
    struct waiter *w = l->data;
    g_queue_delete_link(&q->waiters, l);
    w->q = NULL;
    w->woken = true;
    sched_wake(w->t);
}

/* futex_wake(): up to nr waiters whose bitset meets `bitset`, oldest
 * first (Linux's loop wakes at least one when nr <= 0); -EINVAL at a PI
 * waiter, those before it woken all the same. */
static int wake_key(const struct futex_key *k, int nr, uint32_t bitset)
{
    struct waitq *q = bucket_of(k);
    int n = 0;
    for (GList *l = q->waiters.head, *next; l; l = next) {
        next = l->next;
        struct waiter *w = l->data;
        if (!same_key(w, k))
            continue;
        if (pi_kind(w))
            return -EINVAL_LINUX;
        if (!(w->bitset & bitset))
            continue;
        wake_waiter(q, l);
        if (++n >= nr)
            break;
    }
    return n;
}

static int64_t futex_wake(struct task *t, uint64_t uaddr, bool shared, int nr, uint32_t bitset)
{
    if (!bitset)
        return -EINVAL_LINUX;
    struct futex_key k;
    int r = get_key(t, uaddr, shared, false, &k);
    if (r)
        return r;
    return wake_key(&k, nr, bitset);
}

void futex_wake_word(struct task *t, uint64_t uaddr, int n)
{
    (void)futex_wake(t, uaddr, true, n, FUTEX_BITSET_MATCH_ANY_LINUX);
}

/* ---- waiting ---- */

static bool waiter_woken(struct task *t, void *arg)
{
    (void)t;
    return ((struct waiter *)arg)->woken;
}

/* futex_wait_setup(): the key of uaddr, whose word must hold val. */
static int wait_setup(struct task *t, uint64_t uaddr, bool shared, uint32_t val,
                      struct futex_key *k)
{
    int r = get_key(t, uaddr, shared, false, k);
    if (r)
        return r;
    uint32_t cur;
    if (!get_word(t, uaddr, &cur))
        return -EFAULT_LINUX;
    return cur != val ? -EAGAIN_LINUX : 0;
}

/* futex_wait_queue(): w waits on the bucket of its key until a waker
 * takes it off, the deadline passes or a signal comes: wait_event()'s
 * answer. */
static int queue_and_wait(struct task *t, struct waiter *w, int64_t deadline,
                          enum wait_clock clock)
{
    waitq_add(bucket_of(&(struct futex_key){ w->key, w->key2 }), w);
    int e = wait_event(t, &(struct wait_for){ .ready = waiter_woken, .arg = w,
                                             .deadline_ns = deadline, .clock = clock,
                                             .interruptible = true });
    waitq_remove(w);
    return e;
}

static int64_t futex_wait(struct task *t, uint64_t uaddr, bool shared, uint32_t val,
                          int64_t deadline, enum wait_clock clock, uint32_t bitset)
{
    if (!bitset)
        return -EINVAL_LINUX;
    struct futex_key k;
    int r = wait_setup(t, uaddr, shared, val, &k);
    if (r)
        return r;
    struct waiter w = { .t = t, .key = k.ptr, .key2 = k.word, .bitset = bitset };
    int e = queue_and_wait(t, &w, deadline, clock);
    if (e == 0)
        return 0;
    if (e == -ETIMEDOUT_LINUX)
        return -ETIMEDOUT_LINUX;
    /* A signal: restarted as it was when there was no timeout; with one,
     * Linux restarts through restart_syscall only when no handler runs,
     * and a handler's signal is all that ends a wait here: -EINTR. */
    return deadline < 0 ? -ERESTARTSYS_LINUX : -EINTR_LINUX;
}

/* ---- requeue and wake-op ---- */

/* requeue_futex(): the waiter now waits on the word of `k2`. */
static void requeue_waiter(struct waitq *q1, GList *l, const struct futex_key *k2)
{
    struct waiter *w = l->data;
    struct waitq *q2 = bucket_of(k2);
    g_queue_delete_link(&q1->waiters, l);
    w->key = k2->ptr;
    w->key2 = k2->word;
    w->q = q2;
    g_queue_push_tail(&q2->waiters, w);
}

/* futex_atomic_op_inuser(): the operation on *uaddr2, then the
 * comparison of the old value; -ENOSYS for an unknown one of either
 * (the comparison is judged after the store, as in Linux). */
static int wake_op_apply(struct task *t, uint64_t uaddr, uint32_t encoded, bool *cond)
{
    unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
    int32_t oparg = ((int32_t)(encoded << 8)) >> 20; /* sign_extend32(encoded >> 12, 11) */
    int32_t cmparg = ((int32_t)(encoded << 20)) >> 20;
    if (encoded & ((uint32_t)FUTEX_OP_OPARG_SHIFT_LINUX << 28)) {
        oparg &= 31;
        oparg = (int32_t)(1u << oparg);
    }
    uint32_t *p = word_ptr(t, uaddr);
    if (!p)
        return -EFAULT_LINUX;
    uint32_t old, nv;
    memcpy(&old, p, 4);
    switch (op & 7) {
    case 0: nv = (uint32_t)oparg; break;            /* FUTEX_OP_SET */
    case 1: nv = old + (uint32_t)oparg; break;      /* FUTEX_OP_ADD */
    case 2: nv = old | (uint32_t)oparg; break;      /* FUTEX_OP_OR */
    case 3: nv = old & ~(uint32_t)oparg; break;     /* FUTEX_OP_ANDN */
    case 4: nv = old ^ (uint32_t)oparg; break;      /* FUTEX_OP_XOR */
    default: return -ENOSYS_LINUX;
    }
    memcpy(p, &nv, 4);
    mm_written(t->mm, uaddr, 4);
    int32_t o = (int32_t)old;
    switch (cmp) {
    case 0: *cond = o == cmparg; break; /* FUTEX_OP_CMP_EQ */
    case 1: *cond = o != cmparg; break;
    case 2: *cond = o < cmparg; break;
    case 3: *cond = o <= cmparg; break;
    case 4: *cond = o > cmparg; break;
    case 5: *cond = o >= cmparg; break;
    default: return -ENOSYS_LINUX;
    }
    return 0;
}

static int64_t futex_wake_op(struct task *t, uint64_t uaddr1, uint64_t uaddr2, bool shared,
                             int nr_wake, int nr_wake2, uint32_t op)
{
    struct futex_key k1, k2;
    int r;
    if ((r = get_key(t, uaddr1, shared, false, &k1)) ||
        (r = get_key(t, uaddr2, shared, true, &k2)))
        return r;
    bool cond = false;
    if ((r = wake_op_apply(t, uaddr2, op, &cond)))
        return r;
    /* futex_wake_op() stops at nr_wake with `++ret >= nr_wake`: one at
     * least, as futex_wake(), and looks at no bitset; a PI waiter on
     * either word is -EINVAL, after the operation. */
    int n = wake_key(&k1, nr_wake, FUTEX_BITSET_MATCH_ANY_LINUX);
    if (n < 0 || !cond)
        return n;
    int n2 = wake_key(&k2, nr_wake2, FUTEX_BITSET_MATCH_ANY_LINUX);
    return n2 < 0 ? n2 : n + n2;
}

/* ---- priority inheritance (the lock word holds the owner's tid) ---- */

/* Waiters of a PI futex sit on its bucket with a zero bitset, so that no
 * plain wake matches them; the unlock hands the lock to the oldest. */
static bool pi_match(const struct waiter *w, void *arg)
{
    return same_key(w, arg) && w->bitset == 0;
}

static struct waiter *first_pi_waiter(const struct futex_key *k)
{
    for (GList *l = bucket_of(k)->waiters.head; l; l = l->next)
        if (pi_match(l->data, (void *)k))
            return l->data;
    return NULL;
}

/* futex_lock_pi_atomic(): take the PI futex at uaddr for `taker` (the
 * caller, or the waiter a requeue takes it for): 1 when taken, 0 when
 * its owner holds it (FUTEX_WAITERS now set, for the owner's unlock to
 * come into the kernel), or an error. */
static int lock_pi_atomic(struct task *t, uint64_t uaddr, const struct futex_key *k,
                          const struct task *taker, bool set_waiters)
{
    uint32_t *p = word_ptr(t, uaddr);
    if (!p)
        return -EFAULT_LINUX;
    uint32_t v;
    memcpy(&v, p, 4);
    uint32_t owner = v & FUTEX_TID_MASK_LINUX;
    if (owner == (uint32_t)taker->tid)
        return -EDEADLK_LINUX;
    if (owner == 0) {
        /* Free (perhaps after its owner died: the bit stays, for the
         * new owner to see): take it. */
        uint32_t nv = (uint32_t)taker->tid | (v & FUTEX_OWNER_DIED_LINUX);
        if (set_waiters || first_pi_waiter(k))
            nv |= FUTEX_WAITERS_LINUX;
        memcpy(p, &nv, 4);
        mm_written(t->mm, uaddr, 4);
        return 1;
    }
    /* The first waiter sets FUTEX_WAITERS before it looks for the owner
     * (attach_to_pi_owner), so the bit stays when there is none. */
    if (!(v & FUTEX_WAITERS_LINUX)) {
        v |= FUTEX_WAITERS_LINUX;
        memcpy(p, &v, 4);
        mm_written(t->mm, uaddr, 4);
    }
    /* handle_exit_race(): an owner that is gone is -ESRCH, OWNER_DIED or
     * not (the robust list of a dying owner has run by now). */
    struct task *o = task_lookup((int32_t)owner);
    if (!o || o->exited)
        return -ESRCH_LINUX;
    return 0;
}

static int64_t futex_lock_pi(struct task *t, uint64_t uaddr, bool shared, int64_t deadline,
                             enum wait_clock clock, bool trylock)
{
    struct futex_key k;
    int r = get_key(t, uaddr, shared, true, &k);
    if (r)
        return r;
    r = lock_pi_atomic(t, uaddr, &k, t, false);
    if (r)
        return r < 0 ? r : 0;
    if (trylock)
        return -EAGAIN_LINUX;
    struct waiter w = { .t = t, .key = k.ptr, .key2 = k.word, .bitset = 0 };
    int e = queue_and_wait(t, &w, deadline, clock);
    if (e == 0)
        return 0; /* the unlocker wrote our tid into the word */
    /* futex_lock_pi(): a signal restarts the call after its handler. */
    return e == -ETIMEDOUT_LINUX ? -ETIMEDOUT_LINUX
           : e == -ERESTARTSYS_LINUX ? -ERESTARTNOINTR_LINUX : -EINTR_LINUX;
}

/* Give the lock at uaddr to the oldest PI waiter, keeping `keep` bits
 * (OWNER_DIED); false when nobody waits. */
static bool pi_hand_over(struct task *t, uint64_t uaddr, const struct futex_key *k, uint32_t keep)
{
    struct waiter *w = first_pi_waiter(k);
    if (!w)
        return false;
    uint32_t *p = word_ptr(t, uaddr);
    if (!p)
        return false;
    /* wake_futex_pi(): FUTEX_WAITERS stays, as more may wait. */
    uint32_t nv = (uint32_t)w->t->tid | FUTEX_WAITERS_LINUX | keep;
    memcpy(p, &nv, 4);
    mm_written(t->mm, uaddr, 4);
    waitq_wake_match(bucket_of(k), 1, pi_match, (void *)k);
    return true;
}

static int64_t futex_unlock_pi(struct task *t, uint64_t uaddr, bool shared)
{
    /* futex_unlock_pi(): the word is read (get_user: any alignment, read
     * access) and its owner checked before the key is made or the word
     * written, so a caller that does not own it gets EPERM even where the
     * address is misaligned or read-only. */
    uint32_t v;
    if (!get_word(t, uaddr, &v))
        return -EFAULT_LINUX;
    if ((v & FUTEX_TID_MASK_LINUX) != (uint32_t)t->tid)
        return -EPERM_LINUX;
    struct futex_key k;
    int r = get_key(t, uaddr, shared, true, &k);
    if (r)
        return r;
    /* only the CPU holder runs: the word is still the one read above */
    uint32_t *p = word_ptr(t, uaddr);
    if (!p)
        return -EFAULT_LINUX;
    if (pi_hand_over(t, uaddr, &k, 0))
        return 0;
    uint32_t zero = 0;
    memcpy(p, &zero, 4);
    mm_written(t->mm, uaddr, 4);
    return 0;
}

/* ---- requeue-PI: a condition variable whose mutex is a PI futex ---- */

/* futex_wait_requeue_pi(): wait on uaddr (as FUTEX_WAIT) until
 * FUTEX_CMP_REQUEUE_PI either takes the PI futex at uaddr2 for this
 * waiter or moves it onto that futex as a PI waiter, whose owner's
 * unlock then hands it over.  0 once the caller owns uaddr2. */
static int64_t futex_wait_requeue_pi(struct task *t, uint64_t uaddr, bool shared, uint32_t val,
                                     int64_t deadline, enum wait_clock clock, uint64_t uaddr2)
{
    if (uaddr == uaddr2)
        return -EINVAL_LINUX;
    struct futex_key k, k2;
    int r = get_key(t, uaddr2, shared, true, &k2);
    if (r)
        return r;
    if ((r = wait_setup(t, uaddr, shared, val, &k)))
        return r;
    if (k.ptr == k2.ptr && k.word == k2.word)
        return -EINVAL_LINUX; /* two addresses of one shared word */
    struct waiter w = { .t = t, .key = k.ptr, .key2 = k.word,
                        .bitset = FUTEX_BITSET_MATCH_ANY_LINUX, .requeue_pi = true,
                        .pi_key = k2.ptr, .pi_key2 = k2.word };
    int e = queue_and_wait(t, &w, deadline, clock);
    bool requeued = w.bitset == 0; /* moved onto uaddr2 as a PI waiter */
    if (e == 0)
        return 0; /* the lock was taken for us, or handed over */
    if (e == -ETIMEDOUT_LINUX)
        return -ETIMEDOUT_LINUX;
    /* A signal before the requeue restarts the call after its handler
     * (handle_early_requeue_pi_wakeup); after it, the word has changed
     * and a restart could only answer -EWOULDBLOCK, which is answered. */
    return requeued ? -EAGAIN_LINUX : -ERESTARTNOINTR_LINUX;
}

/* A waiter FUTEX_CMP_REQUEUE_PI may move to the PI futex of key k2. */
static int requeue_pi_ok(const struct waiter *w, const struct futex_key *k2)
{
    if (!w->requeue_pi || w->bitset == 0)
        return -EINVAL_LINUX; /* not waiting in FUTEX_WAIT_REQUEUE_PI */
    if (w->pi_key != k2->ptr || w->pi_key2 != k2->word)
        return -EINVAL_LINUX; /* it waits to take another futex */
    return 0;
}

/* futex_proxy_trylock_atomic(): the PI word is read first, waiters or
 * not; then uaddr2 is taken for the oldest waiter on k1 if it is free
 * (with FUTEX_WAITERS when more are to follow), and that waiter woken: 1;
 * 0 when it is held or nobody waits; or an error. */
static int proxy_trylock(struct task *t, struct waitq *q1, uint64_t uaddr2,
                         const struct futex_key *k1, const struct futex_key *k2, int nr_requeue)
{
    uint32_t piword;
    if (!get_word(t, uaddr2, &piword))
        return -EFAULT_LINUX;
    for (GList *l = q1->waiters.head; l; l = l->next) {
        struct waiter *top = l->data;
        if (!same_key(top, k1))
            continue;
        int r = requeue_pi_ok(top, k2);
        if (r)
            return r;
        r = lock_pi_atomic(t, uaddr2, k2, top->t, nr_requeue > 0);
        if (r == 1)
            wake_waiter(q1, l);
        return r;
    }
    return 0;
}

/* futex_requeue(): wake nr_wake waiters on uaddr1 and move up to
 * nr_requeue more onto uaddr2.  With requeue_pi, uaddr2 is a PI futex:
 * it is taken for the oldest waiter and that one woken if it is free
 * (proxy_trylock), and the waiters moved onto it wait for its owner's
 * unlock as FUTEX_LOCK_PI waiters do.  How many were woken or moved. */
static int64_t futex_requeue(struct task *t, uint64_t uaddr1, uint64_t uaddr2, bool shared,
                             int nr_wake, int nr_requeue, const uint32_t *cmpval,
                             bool requeue_pi)
{
    if (nr_wake < 0 || nr_requeue < 0)
        return -EINVAL_LINUX;
    /* requeue-PI: two distinct words, and one waiter to wake at most */
    if (requeue_pi && (uaddr1 == uaddr2 || nr_wake != 1))
        return -EINVAL_LINUX;
    struct futex_key k1, k2;
    int r;
    if ((r = get_key(t, uaddr1, shared, false, &k1)) ||
        (r = get_key(t, uaddr2, shared, requeue_pi, &k2)))
        return r;
    if (requeue_pi && k1.ptr == k2.ptr && k1.word == k2.word)
        return -EINVAL_LINUX; /* two addresses of one shared word */
    if (cmpval) {
        uint32_t cur;
        if (!get_word(t, uaddr1, &cur))
            return -EFAULT_LINUX;
        if (cur != *cmpval)
            return -EAGAIN_LINUX;
    }
    struct waitq *q1 = bucket_of(&k1);
    int count = 0;
    if (requeue_pi && (count = proxy_trylock(t, q1, uaddr2, &k1, &k2, nr_requeue)) < 0)
        return count;
    for (GList *l = q1->waiters.head, *next; l; l = next) {
        next = l->next;
        struct waiter *w = l->data;
        if (count - nr_wake >= nr_requeue)
            break;
        if (!same_key(w, &k1))
            continue;
        /* an error stops the loop; those before it stay woken or moved */
        if (requeue_pi) {
            if ((r = requeue_pi_ok(w, &k2)))
                return r;
            /* rt_mutex_start_proxy_lock(): a FUTEX_LOCK_PI waiter now */
            w->bitset = 0;
            count++;
            requeue_waiter(q1, l, &k2);
        } else {
            if (pi_kind(w))
                return -EINVAL_LINUX;
            if (++count <= nr_wake)
                wake_waiter(q1, l);
            else
                requeue_waiter(q1, l, &k2);
        }
    }
    return count;
}

/* ---- the system call ---- */

static bool has_timeout(int cmd)
{
    return cmd == FUTEX_WAIT_LINUX || cmd == FUTEX_LOCK_PI_LINUX || cmd == FUTEX_LOCK_PI2_LINUX ||
           cmd == FUTEX_WAIT_BITSET_LINUX || cmd == FUTEX_WAIT_REQUEUE_PI_LINUX;
}

int64_t futex_syscall(struct task *t, uint64_t uaddr, int op, uint32_t val, uint64_t utime,
                      uint64_t uaddr2, uint32_t val3, bool time32)
{
    int cmd = op & FUTEX_CMD_MASK_LINUX;
    bool shared = !(op & FUTEX_PRIVATE_FLAG_LINUX);
    bool clockrt = op & FUTEX_CLOCK_REALTIME_LINUX;
    int64_t deadline = -1;
    enum wait_clock clock = WAIT_MONOTONIC;
    /* sys_futex(): the timeout is read and checked before anything else. */
    if (utime && has_timeout(cmd)) {
        int64_t sec, nsec;
        if (time32) {
            int32_t w[2];
            if (!mm_read(t->mm, utime, w, sizeof(w)))
                return -EFAULT_LINUX;
            sec = w[0];
            nsec = w[1];
        } else {
            int64_t w[2];
            if (!mm_read(t->mm, utime, w, sizeof(w)))
                return -EFAULT_LINUX;
            sec = w[0];
            /* get_timespec64(): a compat caller's nsec is its low half */
            nsec = in_compat_syscall(t) ? (int64_t)(uint32_t)w[1] : w[1];
        }
        if (sec < 0 || nsec < 0 || nsec >= NS)
            return -EINVAL_LINUX;
        int64_t ns = sec > INT64_MAX / NS - 1 ? INT64_MAX : sec * NS + nsec;
        /* futex_init_timeout(): FUTEX_WAIT is relative on the monotonic
         * clock; the others absolute, on the realtime clock for LOCK_PI
         * and wherever FUTEX_CLOCK_REALTIME asks for it. */
        if (cmd == FUTEX_WAIT_LINUX)
            deadline = wait_deadline_in(ns);
        else {
            deadline = ns;
            if (cmd == FUTEX_LOCK_PI_LINUX || clockrt)
                clock = WAIT_REALTIME;
        }
    }
    /* do_futex() */
    if (clockrt && cmd != FUTEX_WAIT_BITSET_LINUX && cmd != FUTEX_WAIT_REQUEUE_PI_LINUX &&
        cmd != FUTEX_LOCK_PI2_LINUX)
        return -ENOSYS_LINUX;
    /* The requeue and wake-op commands take a count where the timeout
     * would be. */
    int val2 = (int)(uint32_t)utime;
    switch (cmd) {
    case FUTEX_WAIT_LINUX:
        val3 = FUTEX_BITSET_MATCH_ANY_LINUX;
        /* fall through */
    case FUTEX_WAIT_BITSET_LINUX:
        return futex_wait(t, uaddr, shared, val, deadline, clock, val3);
    case FUTEX_WAKE_LINUX:
        val3 = FUTEX_BITSET_MATCH_ANY_LINUX;
        /* fall through */
    case FUTEX_WAKE_BITSET_LINUX:
        return futex_wake(t, uaddr, shared, (int)val, val3);
    case FUTEX_REQUEUE_LINUX:
        return futex_requeue(t, uaddr, uaddr2, shared, (int)val, val2, NULL, false);
    case FUTEX_CMP_REQUEUE_LINUX:
        return futex_requeue(t, uaddr, uaddr2, shared, (int)val, val2, &val3, false);
    case FUTEX_WAKE_OP_LINUX:
        return futex_wake_op(t, uaddr, uaddr2, shared, (int)val, val2, val3);
    case FUTEX_LOCK_PI_LINUX:
    case FUTEX_LOCK_PI2_LINUX:
        return futex_lock_pi(t, uaddr, shared, deadline, clock, false);
    case FUTEX_UNLOCK_PI_LINUX:
        return futex_unlock_pi(t, uaddr, shared);
    case FUTEX_TRYLOCK_PI_LINUX:
        return futex_lock_pi(t, uaddr, shared, -1, clock, true);
    case FUTEX_WAIT_REQUEUE_PI_LINUX:
        return futex_wait_requeue_pi(t, uaddr, shared, val, deadline, clock, uaddr2);
    case FUTEX_CMP_REQUEUE_PI_LINUX:
        return futex_requeue(t, uaddr, uaddr2, shared, (int)val, val2, &val3, true);
    default:
        /* FUTEX_FD is gone since 2.6.26 */
        return -ENOSYS_LINUX;
    }
}

/* ---- a thread's end ---- */

/* handle_futex_death() */
static void futex_death(struct task *t, uint64_t uaddr, bool pi, bool pending)
{
    if (uaddr & 3)
        return;
    uint32_t *p = word_ptr(t, uaddr);
    if (!p)
        return;
    uint32_t v;
    memcpy(&v, p, 4);
    if (pending && !pi && !v) {
        futex_wake_word(t, uaddr, 1);
        return;
    }
    if ((v & FUTEX_TID_MASK_LINUX) != (uint32_t)t->tid)
        return;
    uint32_t nv = (v & FUTEX_WAITERS_LINUX) | FUTEX_OWNER_DIED_LINUX;
    memcpy(p, &nv, 4);
    mm_written(t->mm, uaddr, 4);
    if (pi) {
        struct futex_key k;
        if (!get_key(t, uaddr, true, true, &k) &&
            !pi_hand_over(t, uaddr, &k, FUTEX_OWNER_DIED_LINUX) &&
            !get_key(t, uaddr, false, true, &k))
            pi_hand_over(t, uaddr, &k, FUTEX_OWNER_DIED_LINUX);
        return;
    }
    if (v & FUTEX_WAITERS_LINUX)
        futex_wake_word(t, uaddr, 1);
}

/* fetch_robust_entry(): a pointer whose bit 0 says "PI". */
static bool robust_entry(struct task *t, uint64_t at, bool compat, uint64_t *entry, bool *pi)
{
    uint64_t v = 0;
    if (compat) {
        uint32_t w;
        if (!mm_read(t->mm, at, &w, 4))
            return false;
        v = w;
    } else if (!mm_read(t->mm, at, &v, 8))
        return false;
    *entry = v & ~1ull;
    *pi = v & 1;
    return true;
}

/* exit_robust_list() and its compat twin: the head is {next,
 * futex_offset, list_op_pending}, in the ABI that registered it. */
static void exit_robust_list(struct task *t)
{
    uint64_t head = t->robust_list;
    if (!head)
        return;
    bool compat = t->robust_len == ROBUST_LIST_HEAD_SIZE_32_LINUX;
    unsigned w = compat ? 4 : 8;
    uint64_t entry, pending;
    bool pi, pip;
    int64_t offset;
    if (!robust_entry(t, head, compat, &entry, &pi))
        return;
    if (compat) {
        int32_t o;
        if (!mm_read(t->mm, head + 4, &o, 4))
            return;
        offset = o;
    } else if (!mm_read(t->mm, head + 8, &offset, 8))
        return;
    if (!robust_entry(t, head + 2 * w, compat, &pending, &pip))
        return;
    uint64_t mask = compat ? 0xffffffffull : ~0ull;
    for (int limit = ROBUST_LIST_LIMIT_LINUX; entry != head && limit > 0; limit--) {
        uint64_t next;
        bool next_pi;
        bool ok = robust_entry(t, entry, compat, &next, &next_pi);
        if (entry != pending)
            futex_death(t, (entry + (uint64_t)offset) & mask, pi, false);
        if (!ok)
            return;
        entry = next;
        pi = next_pi;
    }
    if (pending)
        futex_death(t, (pending + (uint64_t)offset) & mask, pip, true);
}

void futex_exit_release(struct task *t)
{
    exit_robust_list(t);
    t->robust_list = 0;
    /* exit_pi_state_list(): PI locks it still holds with kernel waiters
     * (not on its robust list) pass to those waiters. */
    for (int b = 0; b < NBUCKETS && futexes.init; b++) {
        for (GList *l = futexes.bucket[b].waiters.head; l;) {
            struct waiter *w = l->data;
            l = l->next;
            if (w->bitset != 0 || w->key2 & KEY_HOSTMEM || w->key != t->mm)
                continue;
            uint64_t uaddr = w->key2 & ~KEY_MMSHARED;
            uint32_t v;
            if (!get_word(t, uaddr, &v) || (v & FUTEX_TID_MASK_LINUX) != (uint32_t)t->tid)
                continue;
            struct futex_key k = { w->key, w->key2 };
            pi_hand_over(t, uaddr, &k, FUTEX_OWNER_DIED_LINUX);
            l = futexes.bucket[b].waiters.head; /* the list changed */
        }
    }
}
