/* hostile: the task calls used badly, and Linux's answers (issue 31).
 *
 * clone and clone3 with flag combinations and arguments Linux refuses, futex
 * on bad addresses, ops and values, robust lists a dying thread leaves
 * behind (glibc's robust mutexes, a cyclic list, an unmapped one),
 * processes killed by SIGKILL while blocked, set/get_robust_list misuse.
 * Everything printed is deterministic natively: errno names, counts and
 * wait statuses, never pids, addresses or times.  The refused clones come
 * from a table; none of them may create a task (if one did, the child
 * exits at once without touching memory and the line says so).
 * Build: gcc -O2 -static -pthread [-m32] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_futex
#define SYS_futex SYS_futex_time64
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#define CLONE_DETACHED_ 0x00400000UL
#define CLONE_CLEAR_SIGHAND_ 0x100000000ULL
#define CLONE_INTO_CGROUP_ 0x200000000ULL
#define TH (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM)

/* long raw_clone6(flags, stack, ptid, ctid, tls, unused): returns -errno;
 * a child, should one be created, exits at once (exit, not exit_group). */
long raw_clone6(unsigned long, void *, int *, int *, unsigned long, void *);
#ifdef __x86_64__
__asm__(".text\n.globl raw_clone6\nraw_clone6:\n"
        "mov %rcx,%r10\nmov $56,%eax\nsyscall\ntest %rax,%rax\njnz 1f\n"
        "mov $60,%eax\nxor %edi,%edi\nsyscall\n1:\nret\n");
#else
/* i386 clone argument order: ebx=flags ecx=stack edx=ptid esi=tls edi=ctid */
__asm__(".text\n.globl raw_clone6\nraw_clone6:\n"
        "push %ebx\npush %esi\npush %edi\n"
        "mov 16(%esp),%ebx\nmov 20(%esp),%ecx\nmov 24(%esp),%edx\n"
        "mov 28(%esp),%edi\nmov 32(%esp),%esi\n"
        "mov $120,%eax\nint $0x80\ntest %eax,%eax\njnz 1f\n"
        "mov $1,%eax\nxor %ebx,%ebx\nint $0x80\n"
        "1:\npop %edi\npop %esi\npop %ebx\nret\n");
#endif

/* raw_clone_push(flags, stack): the child pushes on its stack, then exits */
long raw_clone_push(unsigned long, void *);
#ifdef __x86_64__
__asm__(".text\n.globl raw_clone_push\nraw_clone_push:\n"
        "xor %edx,%edx\nxor %r10d,%r10d\nxor %r8d,%r8d\n"
        "mov $56,%eax\nsyscall\ntest %rax,%rax\njnz 1f\n"
        "push %rax\nmov $60,%eax\nxor %edi,%edi\nsyscall\n1:\nret\n");
#else
__asm__(".text\n.globl raw_clone_push\nraw_clone_push:\n"
        "push %ebx\npush %esi\npush %edi\n"
        "mov 16(%esp),%ebx\nmov 20(%esp),%ecx\nxor %edx,%edx\nxor %esi,%esi\nxor %edi,%edi\n"
        "mov $120,%eax\nint $0x80\ntest %eax,%eax\njnz 1f\n"
        "push %eax\nmov $1,%eax\nxor %ebx,%ebx\nint $0x80\n"
        "1:\npop %edi\npop %esi\npop %ebx\nret\n");
#endif

/* clone3 by hand: a child, should one be created, exits at once. */
long raw_clone3(void *args, unsigned long size);
#ifdef __x86_64__
__asm__(".text\n.globl raw_clone3\nraw_clone3:\n"
        "mov $435,%eax\nsyscall\ntest %rax,%rax\njnz 1f\n"
        "mov $60,%eax\nxor %edi,%edi\nsyscall\n1:\nret\n");
#else
__asm__(".text\n.globl raw_clone3\nraw_clone3:\n"
        "push %ebx\nmov 8(%esp),%ebx\nmov 12(%esp),%ecx\n"
        "mov $435,%eax\nint $0x80\ntest %eax,%eax\njnz 1f\n"
        "mov $1,%eax\nxor %ebx,%ebx\nint $0x80\n"
        "1:\npop %ebx\nret\n");
#endif

static const char *E(long r) { return r < 0 ? strerrorname_np((int)-r) : "0"; }
static const char *R(long r) { return r < 0 ? strerrorname_np(errno) : "0"; }

static char stk[16384] __attribute__((aligned(16)));
static char *unmapped; /* one page, mapped then unmapped */

static void reap_if_created(long r, unsigned long flags)
{
    int st;
    if (r > 0 && !(flags & CLONE_THREAD))
        waitpid((pid_t)r, &st, __WALL);
}

/* ---- clone: refused flag combinations ---- */
struct clone_case { const char *label; unsigned long flags; int tls_kind; };
enum { TLS_NONE, TLS_BAD_PTR, TLS_BAD_ENTRY };

static void clone_table(void)
{
    static const struct clone_case cases[] = {
        {"CLONE_THREAD without CLONE_SIGHAND", CLONE_THREAD | CLONE_VM, TLS_NONE},
        {"CLONE_THREAD|CLONE_SIGHAND without CLONE_VM", CLONE_THREAD | CLONE_SIGHAND, TLS_NONE},
        {"CLONE_SIGHAND without CLONE_VM", CLONE_SIGHAND | SIGCHLD, TLS_NONE},
        {"CLONE_SIGHAND|CLONE_FS|CLONE_FILES without CLONE_VM",
         CLONE_SIGHAND | CLONE_FS | CLONE_FILES | SIGCHLD, TLS_NONE},
        {"CLONE_FS|CLONE_NEWNS", CLONE_FS | CLONE_NEWNS | SIGCHLD, TLS_NONE},
        {"CLONE_FS|CLONE_NEWUSER", CLONE_FS | CLONE_NEWUSER | SIGCHLD, TLS_NONE},
        {"thread flags|CLONE_NEWUSER", TH | CLONE_NEWUSER, TLS_NONE},
        {"thread flags|CLONE_NEWPID", TH | CLONE_NEWPID, TLS_NONE},
        {"CLONE_PIDFD|CLONE_DETACHED", CLONE_PIDFD | CLONE_DETACHED_ | SIGCHLD, TLS_NONE},
        {"CLONE_PIDFD|CLONE_PARENT_SETTID (one pointer)",
         CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, TLS_NONE},
        {"CLONE_THREAD alone", CLONE_THREAD, TLS_NONE},
        {"CLONE_THREAD|CLONE_NEWNS|CLONE_FS (thread flags)", TH | CLONE_NEWNS, TLS_NONE},
#ifndef __x86_64__
        {"thread flags|CLONE_SETTLS, user_desc* unmapped", TH | CLONE_SETTLS, TLS_BAD_PTR},
        {"thread flags|CLONE_SETTLS, user_desc* NULL", TH | CLONE_SETTLS, TLS_NONE},
        {"thread flags|CLONE_SETTLS, entry_number 3 (not a TLS slot)", TH | CLONE_SETTLS,
         TLS_BAD_ENTRY},
#endif
    };
#ifndef __x86_64__
    /* struct user_desc: entry_number 3 is a GDT slot but not one of the TLS
     * ones (6..8): set_thread_area refuses it with EINVAL. */
    static unsigned int bad_entry[4] = {3, 0, 0xfffff, 0x51};
#endif
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned long tls = 0;
#ifndef __x86_64__
        if (cases[i].tls_kind == TLS_BAD_PTR) tls = (unsigned long)unmapped;
        if (cases[i].tls_kind == TLS_BAD_ENTRY) tls = (unsigned long)bad_entry;
#endif
        int ptid = -1;
        long r = raw_clone6(cases[i].flags, stk + sizeof stk, &ptid, NULL, tls, NULL);
        printf("clone  %-58s -> %s\n", cases[i].label, r < 0 ? E(r) : "CREATED A TASK");
        reap_if_created(r, cases[i].flags);
    }
}

/* ---- clone3: bad sizes, pointers and arguments ---- */
struct clone_args_ {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
        set_tid, set_tid_size, cgroup;
};

static void clone3_table(void)
{
    static char big[8192] __attribute__((aligned(4096)));
    struct clone_args_ *a = (struct clone_args_ *)big;
    int tid = 0;
    int fd = -1;
#define C3(label, size, ...)                                                             \
    do {                                                                                 \
        memset(big, 0, sizeof big);                                                      \
        *a = (struct clone_args_){__VA_ARGS__};                                          \
        long r_ = raw_clone3(a, (size));                                                 \
        printf("clone3 %-58s -> %s\n", label, r_ < 0 ? E(r_) : "CREATED A TASK");          \
        reap_if_created(r_, a->flags);                                                   \
    } while (0)
    C3("size 0", 0, .exit_signal = SIGCHLD);
    C3("size 63 (< CLONE_ARGS_SIZE_VER0)", 63, .exit_signal = SIGCHLD);
    C3("size 4097 (> PAGE_SIZE)", 4097, .exit_signal = SIGCHLD);
    static const unsigned long tails[][2] = {{4096, 4000}, {104, 100}};
    for (size_t i = 0; i < 2; i++) {
        char label[64];
        memset(big, 0, sizeof big);
        big[tails[i][1]] = 1;
        a->exit_signal = SIGCHLD;
        long r = raw_clone3(a, tails[i][0]);
        snprintf(label, sizeof label, "size %lu, byte %lu (past the known struct) non-zero",
                 tails[i][0], tails[i][1]);
        printf("clone3 %-58s -> %s\n", label, r < 0 ? E(r) : "CREATED A TASK");
        reap_if_created(r, 0);
    }
    {
        long r = raw_clone3(NULL, 64);
        printf("clone3 %-58s -> %s\n", "args NULL", r < 0 ? E(r) : "CREATED A TASK");
        reap_if_created(r, 0);
        r = raw_clone3(unmapped, 88);
        printf("clone3 %-58s -> %s\n", "args unmapped", r < 0 ? E(r) : "CREATED A TASK");
        reap_if_created(r, 0);
        /* the struct straddles into the unmapped page */
        r = raw_clone3(unmapped - 32, 88);
        printf("clone3 %-58s -> %s\n", "args straddle an unmapped page", r < 0 ? E(r) : "CREATED A TASK");
        reap_if_created(r, 0);
    }
    C3("exit_signal 65 (> _NSIG)", 88, .exit_signal = 65);
    C3("exit_signal 0x100 (beyond CSIGNAL)", 88, .exit_signal = 0x100 | SIGCHLD);
    C3("flags carry CSIGNAL bits (SIGCHLD in flags)", 88, .flags = SIGCHLD);
    C3("flags bit 40 (unknown)", 88, .flags = 1ULL << 40, .exit_signal = SIGCHLD);
    C3("CLONE_DETACHED", 88, .flags = CLONE_DETACHED_, .exit_signal = SIGCHLD);
    C3("CLONE_SIGHAND|CLONE_CLEAR_SIGHAND", 88,
       .flags = CLONE_VM | CLONE_SIGHAND | CLONE_CLEAR_SIGHAND_, .exit_signal = SIGCHLD);
    C3("CLONE_THREAD with exit_signal SIGCHLD", 88, .flags = TH, .exit_signal = SIGCHLD);
    C3("CLONE_PARENT with exit_signal SIGCHLD", 88, .flags = CLONE_PARENT, .exit_signal = SIGCHLD);
    C3("stack set, stack_size 0", 88, .stack = (uintptr_t)stk, .exit_signal = SIGCHLD);
    C3("stack_size set, stack 0", 88, .stack_size = sizeof stk, .exit_signal = SIGCHLD);
    C3("set_tid_size 33 (> MAX_PID_NS_LEVEL)", 88, .set_tid = (uintptr_t)&tid,
       .set_tid_size = 33, .exit_signal = SIGCHLD);
    C3("set_tid NULL, set_tid_size 1", 88, .set_tid_size = 1, .exit_signal = SIGCHLD);
    C3("set_tid set, set_tid_size 0", 88, .set_tid = (uintptr_t)&tid, .exit_signal = SIGCHLD);
    C3("set_tid unmapped, set_tid_size 1", 88, .set_tid = (uintptr_t)unmapped,
       .set_tid_size = 1, .exit_signal = SIGCHLD);
    C3("CLONE_INTO_CGROUP with size 64 (VER0)", 64, .flags = CLONE_INTO_CGROUP_,
       .exit_signal = SIGCHLD);
    C3("CLONE_INTO_CGROUP cgroup 1<<31", 88, .flags = CLONE_INTO_CGROUP_,
       .cgroup = 1ULL << 31, .exit_signal = SIGCHLD);
    C3("CLONE_THREAD without CLONE_SIGHAND", 88, .flags = CLONE_THREAD | CLONE_VM);
    C3("CLONE_SIGHAND without CLONE_VM", 88, .flags = CLONE_SIGHAND, .exit_signal = SIGCHLD);
    C3("CLONE_FS|CLONE_NEWNS", 88, .flags = CLONE_FS | CLONE_NEWNS, .exit_signal = SIGCHLD);
    C3("CLONE_PIDFD|CLONE_PARENT_SETTID, one pointer", 88,
       .flags = CLONE_PIDFD | CLONE_PARENT_SETTID, .pidfd = (uintptr_t)&fd,
       .parent_tid = (uintptr_t)&fd, .exit_signal = SIGCHLD);
#undef C3
}

/* ---- futex ---- */
static long fx(void *uaddr, int op, unsigned val, const void *t, void *u2, unsigned v3)
{
    return syscall(SYS_futex, uaddr, op, val, t, u2, v3);
}
struct kts { long tv_sec, tv_nsec; };

/* one line per futex call: its errno's name, or what it returned */
static void futex_line(const char *label, long r)
{
    if (r < 0)
        printf("futex  %-58s -> %s\n", label, R(r));
    else
        printf("futex  %-58s -> %ld\n", label, r);
}
#define FX(label, ...) futex_line(label, fx(__VA_ARGS__))

static void futex_table(void)
{
    int w = 1, w2 = 0;
    FX("FUTEX_WAIT unmapped uaddr", unmapped, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_WAIT (shared) unmapped uaddr", unmapped, FUTEX_WAIT, 0, NULL, NULL, 0);
    FX("FUTEX_WAIT misaligned uaddr", (char *)&w + 2, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
    FX("FUTEX_WAKE misaligned uaddr", (char *)&w + 1, FUTEX_WAKE, 1, NULL, NULL, 0);
    FX("op 15 (none)", &w, 15, 1, NULL, NULL, 0);
    FX("op 127|FUTEX_PRIVATE_FLAG", &w, 127 | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
    FX("FUTEX_WAIT *uaddr 1, val 0", &w, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_WAIT (shared) *uaddr 1, val 2", &w, FUTEX_WAIT, 2, NULL, NULL, 0);
    struct kts ten = {0, 10000000};
    FX("FUTEX_WAIT 10ms, nobody wakes", &w, FUTEX_WAIT_PRIVATE, 1, &ten, NULL, 0);
    struct kts badns = {0, -1};
    FX("FUTEX_WAIT tv_nsec -1", &w, FUTEX_WAIT_PRIVATE, 1, &badns, NULL, 0);
    FX("FUTEX_WAIT timeout pointer unmapped", &w, FUTEX_WAIT_PRIVATE, 1, unmapped, NULL, 0);
    FX("FUTEX_WAIT_BITSET bitset 0", &w, FUTEX_WAIT_BITSET_PRIVATE, 1, NULL, NULL, 0);
    FX("FUTEX_WAKE_BITSET bitset 0", &w, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0);
    /* requeue: nr_requeue travels in the timeout argument */
    FX("FUTEX_CMP_REQUEUE *uaddr 1, val3 0", &w, FUTEX_CMP_REQUEUE_PRIVATE, 1,
       (void *)1, &w2, 0);
    FX("FUTEX_CMP_REQUEUE *uaddr 1, val3 1 (no waiters)", &w, FUTEX_CMP_REQUEUE_PRIVATE, 1,
       (void *)1, &w2, 1);
    FX("FUTEX_CMP_REQUEUE nr_wake -1", &w, FUTEX_CMP_REQUEUE_PRIVATE, (unsigned)-1,
       (void *)1, &w2, 1);
    FX("FUTEX_CMP_REQUEUE nr_requeue -1", &w, FUTEX_CMP_REQUEUE_PRIVATE, 1,
       (void *)(uintptr_t)0xffffffffu, &w2, 1);
    FX("FUTEX_CMP_REQUEUE uaddr2 misaligned", &w, FUTEX_CMP_REQUEUE_PRIVATE, 1,
       (void *)1, (char *)&w2 + 1, 1);
    FX("FUTEX_CMP_REQUEUE uaddr unmapped", unmapped, FUTEX_CMP_REQUEUE_PRIVATE, 1,
       (void *)1, &w2, 1);
    FX("FUTEX_CMP_REQUEUE (shared) uaddr2 unmapped", &w, FUTEX_CMP_REQUEUE, 1,
       (void *)1, unmapped, 1);
    FX("FUTEX_REQUEUE uaddr2 misaligned", &w, FUTEX_REQUEUE_PRIVATE, 1, (void *)1,
       (char *)&w2 + 3, 0);
    FX("FUTEX_REQUEUE uaddr == uaddr2, no waiters", &w, FUTEX_REQUEUE_PRIVATE, 1, (void *)1,
       &w, 0);
    /* FUTEX_WAKE_OP: op in val3 (op<<28 | cmp<<24 | oparg<<12 | cmparg) */
    FX("FUTEX_WAKE_OP uaddr2 unmapped", &w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, unmapped,
       FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
    FX("FUTEX_WAKE_OP uaddr2 misaligned", &w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1,
       (char *)&w2 + 2, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
    w2 = 5;
    FX("FUTEX_WAKE_OP op 7 (none)", &w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &w2,
       (7u << 28) | FUTEX_OP(0, 1, FUTEX_OP_CMP_EQ, 0));
    printf("futex  %-58s    *uaddr2 %d\n", "  after it", w2);
    FX("FUTEX_WAKE_OP cmp 7 (none)", &w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &w2,
       FUTEX_OP(FUTEX_OP_ADD, 1, 7, 0));
    printf("futex  %-58s    *uaddr2 %d\n", "  after it", w2);
    FX("FUTEX_WAKE_OP ADD 1, CMP_EQ 7", &w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &w2,
       FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 7));
    printf("futex  %-58s    *uaddr2 %d\n", "  after it", w2);
}

/* ---- robust lists left behind by dying threads ---- */
static void said(const char *label, int e) /* a pthread call's answer */
{
    printf("%s -> %s\n", label, e ? strerrorname_np(e) : "0");
}
static pthread_mutex_t rm1, rm2;
static void *lock_and_exit(void *m)
{
    pthread_mutex_lock(m);
    return NULL; /* exits holding it */
}

static void robust_mutexes(void)
{
    pthread_mutexattr_t at;
    pthread_mutexattr_init(&at);
    pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&rm1, &at);
    pthread_mutex_init(&rm2, &at);
    pthread_t th;
    pthread_create(&th, NULL, lock_and_exit, &rm1);
    pthread_join(th, NULL);
    int e = pthread_mutex_lock(&rm1);
    said("robust mutex, owner thread exited: lock", e);
    e = pthread_mutex_consistent(&rm1);
    said("robust mutex: consistent", e);
    e = pthread_mutex_unlock(&rm1);
    said("robust mutex: unlock", e);
    e = pthread_mutex_lock(&rm1);
    said("robust mutex: lock again", e);
    pthread_mutex_unlock(&rm1);

    /* the next locker does not make it consistent: it becomes unusable */
    pthread_create(&th, NULL, lock_and_exit, &rm2);
    pthread_join(th, NULL);
    e = pthread_mutex_trylock(&rm2);
    said("robust mutex, owner thread exited: trylock", e);
    e = pthread_mutex_unlock(&rm2);
    said("robust mutex: unlock without consistent", e);
    e = pthread_mutex_lock(&rm2);
    said("robust mutex: lock after that", e);

    /* process-shared, in a shared mapping: the owner is a process killed
     * by SIGKILL while it holds the mutex */
    pthread_mutex_t *pm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                               -1, 0);
    pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(pm, &at);
    int ready[2];
    if (pipe(ready)) return;
    pid_t c = fork();
    if (c == 0) {
        pthread_mutex_lock(pm);
        if (write(ready[1], "x", 1) != 1) _exit(2);
        for (;;) pause();
    }
    char ch;
    if (read(ready[0], &ch, 1) != 1) return;
    kill(c, SIGKILL);
    int st;
    waitpid(c, &st, 0);
    e = pthread_mutex_lock(pm);
    said("shared robust mutex, owner process SIGKILLed: lock", e);
    e = pthread_mutex_consistent(pm);
    said("shared robust mutex: consistent", e);
    pthread_mutex_unlock(pm);
    close(ready[0]);
    close(ready[1]);
    munmap(pm, 4096);
}

/* Hand-made robust lists: a cycle, and an entry in unmapped memory. The
 * kernel walks at most ROBUST_LIST_LIMIT entries and stops at a fault. */
struct rl { struct rl *next; };
struct rlh { struct rl list; long futex_offset; struct rl *pending; };
static struct rlh head;
static struct { struct rl node; int lock; } ent1, ent2;
static int list_kind;
static void *hand_made_list(void *arg)
{
    (void)arg;
    int tid = (int)syscall(SYS_gettid);
    head.futex_offset = (long)((char *)&ent1.lock - (char *)&ent1.node);
    head.pending = NULL;
    ent1.lock = tid;
    ent2.lock = tid | FUTEX_WAITERS;
    if (list_kind == 0) { /* head -> ent1 -> ent2 -> ent1 -> ... never back to head */
        head.list.next = &ent1.node;
        ent1.node.next = &ent2.node;
        ent2.node.next = &ent1.node;
    } else { /* head -> ent1 -> (unmapped) */
        head.list.next = &ent1.node;
        ent1.node.next = (struct rl *)unmapped;
        ent2.node.next = &head.list;
    }
    syscall(SYS_set_robust_list, &head, sizeof head);
    return NULL;
}

static void hand_made_lists(void)
{
    static const char *names[] = {"cyclic robust list", "robust list into unmapped memory"};
    for (list_kind = 0; list_kind < 2; list_kind++) {
        pthread_t th;
        pthread_create(&th, NULL, hand_made_list, NULL);
        pthread_join(th, NULL);
        /* the joiner is woken by CLEARTID, which exit_mm_release does after
         * the robust list was walked */
        printf("%s, thread exited: lock words %#x %#x\n", names[list_kind],
               (unsigned)ent1.lock & ~FUTEX_TID_MASK, (unsigned)ent2.lock & ~FUTEX_TID_MASK);
        printf("%s: tid left in lock words: %s %s\n", names[list_kind],
               (ent1.lock & FUTEX_TID_MASK) ? "yes" : "no", (ent2.lock & FUTEX_TID_MASK) ? "yes" : "no");
    }
}


/* ---- clone with bad pointers: the call succeeds or fails as Linux says ---- */
static void describe(const char *label, int st);
static void clone_pointers(void)
{
    long r;
    int st;
    r = raw_clone6(CLONE_PIDFD | SIGCHLD, NULL, (int *)unmapped, NULL, 0, NULL);
    printf("clone  %-58s -> %s\n", "CLONE_PIDFD, pidfd pointer unmapped", r < 0 ? E(r) : "created");
    reap_if_created(r, 0);
    r = raw_clone6(CLONE_PARENT_SETTID | SIGCHLD, NULL, (int *)unmapped, NULL, 0, NULL);
    printf("clone  %-58s -> %s\n", "CLONE_PARENT_SETTID, ptid unmapped", r < 0 ? E(r) : "created");
    if (r > 0 && waitpid((pid_t)r, &st, 0) == r) describe("  the child", st);
    r = raw_clone6(CLONE_CHILD_SETTID | SIGCHLD, NULL, NULL, (int *)unmapped, 0, NULL);
    printf("clone  %-58s -> %s\n", "CLONE_CHILD_SETTID, ctid unmapped", r < 0 ? E(r) : "created");
    if (r > 0 && waitpid((pid_t)r, &st, 0) == r) describe("  the child", st);
    r = raw_clone6(TH | CLONE_CHILD_CLEARTID, stk + sizeof stk, NULL, (int *)unmapped, 0, NULL);
    usleep(20000);
    printf("clone  %-58s -> %s, the process lives on\n",
           "thread, CLONE_CHILD_CLEARTID ctid unmapped", r < 0 ? E(r) : "created");
    r = raw_clone_push(SIGCHLD, unmapped + 4096);
    printf("clone  %-58s -> %s\n", "child process, stack unmapped, pushes", r < 0 ? E(r) : "created");
    if (r > 0 && waitpid((pid_t)r, &st, 0) == r) describe("  the child", st);
    r = raw_clone_push(SIGCHLD, (void *)8);
    printf("clone  %-58s -> %s\n", "child process, stack 8, pushes", r < 0 ? E(r) : "created");
    if (r > 0 && waitpid((pid_t)r, &st, 0) == r) describe("  the child", st);
}

/* A child process that waits until it is killed; returned once it runs. */
static pid_t idle_child(void)
{
    int ready[2];
    char ch;
    if (pipe(ready)) return -1;
    pid_t c = fork();
    if (c == 0) {
        if (write(ready[1], "x", 1) != 1) _exit(2);
        for (;;) pause();
    }
    if (c > 0 && read(ready[0], &ch, 1) != 1) c = -1;
    close(ready[0]);
    close(ready[1]);
    return c;
}

/* ---- PI futexes used badly ---- */
static int owner_tid;
static void *pi_owner_thread(void *a)
{
    __atomic_store_n(&owner_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
    for (;;) pause(); /* until the process exits */
    return a;
}

static const int rodata_word = 7;
static void futex_pi(void)
{
    int w = 0;
    int tid = (int)syscall(SYS_gettid);
    FX("FUTEX_LOCK_PI unmapped uaddr", unmapped, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_LOCK_PI misaligned uaddr", (char *)&w + 1, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI unmapped uaddr", unmapped, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_LOCK_PI|FUTEX_CLOCK_REALTIME", &w, FUTEX_LOCK_PI_PRIVATE | FUTEX_CLOCK_REALTIME,
       0, NULL, NULL, 0);
    w = 0;
    FX("FUTEX_UNLOCK_PI, word 0 (not the owner)", &w, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_TRYLOCK_PI, word 0", &w, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    printf("futex  %-58s    word == tid: %s\n", "  after it", w == tid ? "yes" : "no");
    FX("FUTEX_TRYLOCK_PI, word == own tid", &w, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_LOCK_PI, word == own tid", &w, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI, word == own tid", &w, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    printf("futex  %-58s    word %#x\n", "  after it", (unsigned)w);
    w = 0x3ffffff0;
    FX("FUTEX_LOCK_PI, word == a tid nobody has", &w, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI, word == a tid nobody has", &w, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    w = FUTEX_OWNER_DIED;
    FX("FUTEX_LOCK_PI, word OWNER_DIED, no tid", &w, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    printf("futex  %-58s    word OWNER_DIED|tid: %s\n", "  after it",
           w == (FUTEX_OWNER_DIED | tid) ? "yes" : "no");
    FX("FUTEX_UNLOCK_PI of it", &w, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    printf("futex  %-58s    word %#x\n", "  after it", (unsigned)w);
    /* owned by a live thread that never lets go, and (shared word) by a
     * live process: an absolute realtime deadline in the past times out.
     * (A private word owned by another process is left out: Linux 6.12
     * waits, and times out, where 6.18 answers EPERM at once.) */
    pthread_t th;
    owner_tid = 0;
    pthread_create(&th, NULL, pi_owner_thread, NULL);
    while (!__atomic_load_n(&owner_tid, __ATOMIC_ACQUIRE))
        sched_yield();
    w = owner_tid;
    struct kts past = {1, 0};
    FX("FUTEX_LOCK_PI, owner a live thread, deadline past", &w, FUTEX_LOCK_PI_PRIVATE, 0,
       &past, NULL, 0);
    printf("futex  %-58s    FUTEX_WAITERS set: %s\n", "  after it",
           (w & FUTEX_WAITERS) ? "yes" : "no");
    int *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t c = idle_child();
    if (c < 0) return;
    *sh = c;
    FX("FUTEX_LOCK_PI (shared), owner a live process, deadline past", sh, FUTEX_LOCK_PI, 0,
       &past, NULL, 0);
    printf("futex  %-58s    FUTEX_WAITERS set: %s\n", "  after it",
           (*sh & FUTEX_WAITERS) ? "yes" : "no");
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    munmap(sh, 4096);
    w = c; /* its tid is gone now */
    FX("FUTEX_LOCK_PI, owner a reaped process", &w, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
}

/* ---- futex on pages it may not write, or not even read ---- */
static void futex_protections(void)
{
    int w = 0;
    int *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    FX("FUTEX_WAIT read-only page, *uaddr 0, val 1", ro, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
    FX("FUTEX_WAIT PROT_NONE page", none, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_WAKE (shared) PROT_NONE page", none, FUTEX_WAKE, 1, NULL, NULL, 0);
    FX("FUTEX_WAKE_OP uaddr2 read-only", &w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, ro,
       FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
    FX("FUTEX_CMP_REQUEUE uaddr read-only, val3 matches", ro, FUTEX_CMP_REQUEUE_PRIVATE, 1,
       (void *)1, &w, 0);
    FX("FUTEX_LOCK_PI read-only page", ro, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_TRYLOCK_PI read-only page", ro, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI read-only page, not the owner", ro, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL,
       NULL, 0);
    FX("FUTEX_UNLOCK_PI PROT_NONE page", none, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI misaligned, not the owner", (char *)&w + 1, FUTEX_UNLOCK_PI_PRIVATE, 0,
       NULL, NULL, 0);
    /* A shared key on private memory (get_futex_key): a file's page is
     * keyed by the file, an anonymous page only if it can be written ("a
     * RO anonymous page will never change"), whatever the operation. */
    int *cow = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *cow = 0;
    mprotect(cow, 4096, PROT_READ);
    int *wo = mmap(NULL, 4096, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int *sro = mmap(NULL, 4096, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    FX("FUTEX_WAIT (shared) read-only anonymous page", ro, FUTEX_WAIT, 1, NULL, NULL, 0);
    FX("FUTEX_WAKE (shared) read-only anonymous page", ro, FUTEX_WAKE, 1, NULL, NULL, 0);
    FX("FUTEX_WAIT (shared) anonymous page written, then read-only", cow, FUTEX_WAIT, 1, NULL,
       NULL, 0);
    FX("FUTEX_CMP_REQUEUE (shared) uaddr2 read-only anonymous", &w, FUTEX_CMP_REQUEUE, 1,
       (void *)1, ro, 0);
    FX("FUTEX_WAIT (shared) write-only anonymous page, val 1", wo, FUTEX_WAIT, 1, NULL, NULL, 0);
    FX("FUTEX_WAIT (shared) read-only shared anonymous page, val 1", sro, FUTEX_WAIT, 1, NULL,
       NULL, 0);
    FX("FUTEX_WAIT (shared) the program's read-only data, val 1", (void *)&rodata_word,
       FUTEX_WAIT, 1, NULL, NULL, 0);
    FX("FUTEX_WAKE_OP (shared) uaddr2 the program's read-only data", &w, FUTEX_WAKE_OP, 1,
       (void *)1, (void *)&rodata_word, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
    munmap(ro, 4096);
    munmap(none, 4096);
    munmap(cow, 4096);
    munmap(wo, 4096);
    munmap(sro, 4096);
}

/* ---- requeue-PI (a condition variable over a PI mutex) used badly ---- */
static unsigned rq_cond[5], rq_lock[3];
struct rq_waiter {
    pthread_t th;
    unsigned *cond, *lock;
    int plain;              /* a plain FUTEX_WAIT instead */
    int own_lock_first;     /* takes its lock before it waits for it */
    struct kts deadline;    /* absolute, CLOCK_MONOTONIC; 0: none */
    int tid;
    long r, unlock;         /* its answer (-errno), its unlock's */
    unsigned word;          /* the lock word when it returned */
};
static void *rq_wait(void *a)
{
    struct rq_waiter *x = a;
    x->tid = (int)syscall(SYS_gettid);
    if (x->own_lock_first)
        fx(x->lock, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    long r = x->plain ? fx(x->cond, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0)
                      : fx(x->cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0,
                           x->deadline.tv_sec ? &x->deadline : NULL, x->lock, 0);
    x->r = r < 0 ? -errno : r;
    x->word = *x->lock;
    x->unlock = 1;
    if ((x->word & FUTEX_TID_MASK) == (unsigned)x->tid) {
        long u = fx(x->lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
        x->unlock = u < 0 ? -errno : u;
    }
    return NULL;
}
static void rq_start(struct rq_waiter *x, unsigned *cond, unsigned *lock, long deadline_ms)
{
    x->cond = cond;
    x->lock = lock;
    if (deadline_ms) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ns = now.tv_nsec + deadline_ms * 1000000L;
        x->deadline = (struct kts){ now.tv_sec + ns / 1000000000L, ns % 1000000000L };
    }
    pthread_create(&x->th, NULL, rq_wait, x);
}
/* Whether the waiter is queued yet is timing; what the call answers once
 * it is, is not: repeat a call that answers 0 until then, print the
 * first other answer. */
#define UNTIL_QUEUED(label, ...)                                                 \
    do {                                                                         \
        long r_ = 0;                                                             \
        for (int i_ = 0; i_ < 5000 && (r_ = fx(__VA_ARGS__)) == 0; i_++)         \
            nanosleep(&(struct timespec){ 0, 1000000 }, NULL);                   \
        futex_line(label, r_);                                                   \
    } while (0)
static void rq_join(const char *label, struct rq_waiter *x)
{
    pthread_join(x->th, NULL);
    printf("futex  %-58s    -> %s, lock word its tid%s: %s, its unlock -> %s\n", label,
           x->r < 0 ? strerrorname_np((int)-x->r) : "0",
           (x->word & FUTEX_WAITERS) ? "|FUTEX_WAITERS" : "",
           (x->word & FUTEX_TID_MASK) == (unsigned)x->tid ? "yes" : "no",
           x->unlock == 1 ? "(not the owner)" : E(x->unlock));
}

static void futex_requeue_pi(void)
{
    unsigned *c = rq_cond, *l = rq_lock;
    struct kts past = {1, 0};
    FX("FUTEX_LOCK_PI2, word 0", &l[0], FUTEX_LOCK_PI2_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI of it", &l[0], FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    FX("FUTEX_LOCK_PI2|FUTEX_CLOCK_REALTIME, word 0", &l[0],
       FUTEX_LOCK_PI2_PRIVATE | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI of it", &l[0], FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    l[0] = 0x3ffffff0;
    FX("FUTEX_LOCK_PI2, word == a tid nobody has", &l[0], FUTEX_LOCK_PI2_PRIVATE, 0, NULL, NULL,
       0);
    printf("futex  %-58s    word %#x\n", "  after it", l[0]);
    l[0] = 0x3ffffff0 | FUTEX_OWNER_DIED;
    FX("FUTEX_TRYLOCK_PI, word OWNER_DIED|a tid nobody has", &l[0], FUTEX_TRYLOCK_PI_PRIVATE, 0,
       NULL, NULL, 0);
    printf("futex  %-58s    word %#x\n", "  after it", l[0]);
    l[0] = 0;
    FX("FUTEX_WAIT_REQUEUE_PI uaddr == uaddr2", &c[0], FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, NULL,
       &c[0], 0);
    FX("FUTEX_WAIT_REQUEUE_PI *uaddr 0, val 1", &c[0], FUTEX_WAIT_REQUEUE_PI_PRIVATE, 1, NULL,
       &l[0], 0);
    FX("FUTEX_WAIT_REQUEUE_PI deadline past", &c[0], FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, &past,
       &l[0], 0);
    FX("FUTEX_WAIT_REQUEUE_PI|CLOCK_REALTIME deadline past", &c[0],
       FUTEX_WAIT_REQUEUE_PI_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &past, &l[0], 0);
    FX("FUTEX_WAIT_REQUEUE_PI uaddr2 misaligned", &c[0], FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, &past,
       (char *)&l[0] + 1, 0);
    FX("FUTEX_WAIT_REQUEUE_PI uaddr2 unmapped, deadline past", &c[0],
       FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, &past, unmapped, 0);
    FX("FUTEX_WAIT_REQUEUE_PI (shared) uaddr2 unmapped", &c[0], FUTEX_WAIT_REQUEUE_PI, 0, &past,
       unmapped, 0);
    FX("FUTEX_CMP_REQUEUE_PI nr_wake 2", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 2, (void *)1, &l[0],
       0);
    FX("FUTEX_CMP_REQUEUE_PI nr_wake 0", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 0, (void *)1, &l[0],
       0);
    FX("FUTEX_CMP_REQUEUE_PI uaddr == uaddr2", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)1,
       &c[0], 0);
    FX("FUTEX_CMP_REQUEUE_PI nr_requeue -1", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
       (void *)(uintptr_t)0xffffffffu, &l[0], 0);
    FX("FUTEX_CMP_REQUEUE_PI *uaddr 0, val3 5", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)1,
       &l[0], 5);
    FX("FUTEX_CMP_REQUEUE_PI|CLOCK_REALTIME", &c[0],
       FUTEX_CMP_REQUEUE_PI_PRIVATE | FUTEX_CLOCK_REALTIME, 1, (void *)1, &l[0], 0);
    FX("FUTEX_CMP_REQUEUE_PI uaddr2 unmapped, no waiters", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE,
       1, (void *)1, unmapped, 0);
    FX("FUTEX_CMP_REQUEUE_PI no waiters", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)1,
       &l[0], 0);
    printf("futex  %-58s    word %#x\n", "  after it", l[0]);

    /* A waiter on c[0] for l[0], which is free: the plain operations find
     * it misused; the requeue takes l[0] for it and wakes it. */
    static struct rq_waiter a, b, d, e;
    rq_start(&a, &c[0], &l[0], 0);
    UNTIL_QUEUED("FUTEX_WAKE, a FUTEX_WAIT_REQUEUE_PI waiter", &c[0], FUTEX_WAKE_PRIVATE, 1, NULL,
                 NULL, 0);
    FX("FUTEX_CMP_REQUEUE of it", &c[0], FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &c[1], 0);
    FX("FUTEX_WAKE_OP of it", &c[0], FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &c[1],
       FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0));
    FX("FUTEX_CMP_REQUEUE_PI of it to another lock", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
       (void *)1, &l[1], 0);
    FX("FUTEX_CMP_REQUEUE_PI of it, its lock free", &c[0], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
       (void *)0, &l[0], 0);
    rq_join("  the waiter", &a);
    printf("futex  %-58s    word %#x\n", "  after it", l[0]);

    /* l[0] held: the requeue moves the waiter onto it; the unlock hands
     * it over. */
    FX("FUTEX_LOCK_PI l, word 0", &l[0], FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    rq_start(&b, &c[1], &l[0], 0);
    UNTIL_QUEUED("FUTEX_CMP_REQUEUE_PI, l held by the caller", &c[1],
                 FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)1, &l[0], 0);
    printf("futex  %-58s    FUTEX_WAITERS set: %s\n", "  after it",
           (l[0] & FUTEX_WAITERS) ? "yes" : "no");
    FX("FUTEX_WAKE l, the waiter requeued onto it", &l[0], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    FX("FUTEX_UNLOCK_PI l", &l[0], FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
    rq_join("  the waiter", &b);
    printf("futex  %-58s    word %#x\n", "  after it", l[0]);

    /* a plain waiter cannot be requeued to a PI futex */
    d.plain = 1;
    rq_start(&d, &c[2], &l[1], 0);
    UNTIL_QUEUED("FUTEX_CMP_REQUEUE_PI, a plain FUTEX_WAIT waiter", &c[2],
                 FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)1, &l[1], 0);
    FX("FUTEX_WAKE it", &c[2], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    rq_join("  the waiter", &d);

    /* a waiter that already owns the lock it is to be given; its
     * deadline ends it */
    e.own_lock_first = 1;
    rq_start(&e, &c[3], &l[2], 1000);
    UNTIL_QUEUED("FUTEX_CMP_REQUEUE_PI, the waiter owns l", &c[3], FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
                 (void *)1, &l[2], 0);
    rq_join("  the waiter, deadline 1 s", &e);
}

/* ---- wait and kill used badly ---- */
static void wait_kill(void)
{
    long r;
    int st;
    siginfo_t si;
    errno = 0;
    r = wait4(-1, &st, 0, NULL);
    printf("%-65s -> %s\n", "wait4(-1), no children", R(r));
    r = syscall(SYS_wait4, -1, &st, 0x08000000, NULL);
    printf("%-65s -> %s\n", "wait4 options 0x08000000", R(r));
    r = syscall(SYS_wait4, (int)0x80000000, &st, 0, NULL);
    printf("%-65s -> %s\n", "wait4(INT_MIN)", R(r));
    r = syscall(SYS_waitid, 7, 0, &si, WEXITED, NULL);
    printf("%-65s -> %s\n", "waitid idtype 7", R(r));
    r = syscall(SYS_waitid, P_ALL, 0, &si, 0, NULL);
    printf("%-65s -> %s\n", "waitid options 0", R(r));
    r = syscall(SYS_waitid, 3 /* P_PIDFD */, 999, &si, WEXITED, NULL);
    printf("%-65s -> %s\n", "waitid P_PIDFD fd 999", R(r));
    r = syscall(SYS_waitid, P_PGID, 0x3fffff, &si, WEXITED, NULL);
    printf("%-65s -> %s\n", "waitid P_PGID nobody has", R(r));
    r = syscall(SYS_wait4, owner_tid, &st, __WALL, NULL);
    printf("%-65s -> %s\n", "wait4(a thread of this process, __WALL)", R(r));
    static const char *how[] = {"wait4, status pointer unmapped", "wait4, rusage pointer unmapped",
                                "waitid, infop unmapped"};
    for (int k = 0; k < 3; k++) {
        pid_t c = fork();
        if (c == 0) _exit(7);
        waitid(P_PID, c, &si, WEXITED | WNOWAIT);
        if (k == 0) r = syscall(SYS_wait4, c, unmapped, 0, NULL);
        else if (k == 1) r = syscall(SYS_wait4, c, &st, 0, unmapped);
        else r = syscall(SYS_waitid, P_PID, c, unmapped, WEXITED, NULL);
        printf("%-65s -> %s\n", how[k], R(r));
        r = syscall(SYS_wait4, c, &st, WNOHANG, NULL);
        printf("%-65s -> %s\n", "  wait4 for that child again (it was reaped)", R(r));
    }
    r = syscall(SYS_kill, getpid(), 65);
    printf("%-65s -> %s\n", "kill(self, 65)", R(r));
    r = syscall(SYS_kill, (int)0x80000000, 0);
    printf("%-65s -> %s\n", "kill(INT_MIN, 0)", R(r));
    r = syscall(SYS_kill, -0x3fffff, 0);
    printf("%-65s -> %s\n", "kill(-0x3fffff, 0): a group nobody leads", R(r));
    r = syscall(SYS_tkill, 0, 0);
    printf("%-65s -> %s\n", "tkill(0, 0)", R(r));
    r = syscall(SYS_tkill, -5, 0);
    printf("%-65s -> %s\n", "tkill(-5, 0)", R(r));
    r = syscall(SYS_tgkill, 0, getpid(), 0);
    printf("%-65s -> %s\n", "tgkill(0, self, 0)", R(r));
    r = syscall(SYS_tgkill, getpid(), 0, 0);
    printf("%-65s -> %s\n", "tgkill(self, 0, 0)", R(r));
    r = syscall(SYS_tgkill, getpid(), getpid(), -1);
    printf("%-65s -> %s\n", "tgkill(self, self, -1)", R(r));
    pid_t c = idle_child();
    if (c < 0) return;
    r = syscall(SYS_tgkill, c, getpid(), 0);
    printf("%-65s -> %s\n", "tgkill(child, own tid, 0): thread not in that group", R(r));
    r = syscall(SYS_tgkill, getpid(), c, 0);
    printf("%-65s -> %s\n", "tgkill(self, child, 0): thread not in this group", R(r));
    memset(&si, 0, sizeof si);
    si.si_code = SI_USER;
    r = syscall(SYS_rt_sigqueueinfo, c, 0, &si);
    printf("%-65s -> %s\n", "rt_sigqueueinfo(child, 0, si_code SI_USER)", R(r));
    r = syscall(SYS_rt_tgsigqueueinfo, c, c, 0, &si);
    printf("%-65s -> %s\n", "rt_tgsigqueueinfo(child, child, 0, si_code SI_USER)", R(r));
    si.si_code = SI_QUEUE;
    r = syscall(SYS_rt_sigqueueinfo, c, 0, &si);
    printf("%-65s -> %s\n", "rt_sigqueueinfo(child, 0, si_code SI_QUEUE)", R(r));
    r = syscall(SYS_rt_sigqueueinfo, c, 0, unmapped);
    printf("%-65s -> %s\n", "rt_sigqueueinfo(child, 0, info unmapped)", R(r));
    void *hp = NULL;
    size_t len = 0;
    r = syscall(SYS_get_robust_list, c, &hp, &len);
    printf("%-65s -> %s len %zu\n", "get_robust_list(live child, glibc registered it)", R(r), len);
    r = syscall(SYS_get_robust_list, owner_tid, &hp, &len);
    printf("%-65s -> %s len %zu\n", "get_robust_list(another thread of this process)", R(r), len);
    kill(c, SIGKILL);
    waitpid(c, &st, 0);
    r = syscall(SYS_tgkill, c, c, 0);
    printf("%-65s -> %s\n", "tgkill(reaped child, reaped child, 0)", R(r));
}

/* ---- processes killed while blocked ---- */
static void describe(const char *label, int st)
{
    if (WIFSIGNALED(st))
        printf("%-58s -> killed by %s%s\n", label, sigabbrev_np(WTERMSIG(st)),
               WCOREDUMP(st) ? " (core)" : "");
    else if (WIFEXITED(st))
        printf("%-58s -> exited %d\n", label, WEXITSTATUS(st));
    else
        printf("%-58s -> status %#x\n", label, st);
}

static void killed_while_blocked(void)
{
    static const char *labels[] = {
        "SIGKILL while in FUTEX_WAIT (shared)",
        "SIGKILL while in FUTEX_WAIT_PRIVATE",
        "SIGKILL while in read(2) on an empty pipe",
    };
    int *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    for (int kind = 0; kind < 3; kind++) {
        int ready[2], data[2];
        if (pipe(ready) || pipe(data)) return;
        sh[0] = 0;
        pid_t c = fork();
        if (c == 0) {
            if (write(ready[1], "x", 1) != 1) _exit(2);
            if (kind == 0) {
                fx(sh, FUTEX_WAIT, 0, NULL, NULL, 0);
            } else if (kind == 1) {
                int local = 0;
                fx(&local, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
            } else {
                char b;
                close(data[1]);
                (void)!read(data[0], &b, 1);
            }
            _exit(3);
        }
        char ch;
        if (read(ready[0], &ch, 1) != 1) return;
        usleep(30000); /* let it block; the status is the same either way */
        kill(c, SIGKILL);
        int st;
        pid_t w = waitpid(c, &st, 0);
        describe(labels[kind], w == c ? st : -1);
        if (kind == 0) {
            long r = fx(sh, FUTEX_WAKE, 1, NULL, NULL, 0);
            printf("%-58s -> %ld\n", "  FUTEX_WAKE on its word afterwards (waiters left)", r);
        }
        close(ready[0]);
        close(ready[1]);
        close(data[0]);
        close(data[1]);
    }
    munmap(sh, 4096);
}

static void *block_in_read(void *fdp)
{
    char b;
    (void)!read(*(int *)fdp, &b, 1);
    return NULL;
}

/* a process whose two threads are blocked (futex, pipe read): SIGKILL */
static void killed_threads(void)
{
    int ready[2], data[2];
    if (pipe(ready) || pipe(data)) return;
    pid_t c = fork();
    if (c == 0) {
        pthread_t th;
        pthread_create(&th, NULL, block_in_read, &data[0]);
        if (write(ready[1], "x", 1) != 1) _exit(2);
        int local = 0;
        fx(&local, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
        _exit(3);
    }
    char ch;
    if (read(ready[0], &ch, 1) != 1) return;
    usleep(30000);
    kill(c, SIGKILL);
    int st;
    pid_t w = waitpid(c, &st, 0);
    describe("SIGKILL, two threads blocked (futex, pipe read)", w == c ? st : -1);
    /* the write end is still open here; the dead reader's end is gone */
    close(data[0]);
    signal(SIGPIPE, SIG_IGN);
    errno = 0;
    long n = write(data[1], "y", 1);
    printf("%-58s -> %s\n", "  write to the pipe afterwards (no reader left)", n < 0 ? R(n) : "written");
    close(data[1]);
    close(ready[0]);
    close(ready[1]);
}

/* ---- set_robust_list / get_robust_list ---- */
static void robust_list_calls(void)
{
    struct rlh h;
    long r;
    void *hp = NULL;
    size_t len = 0;
    r = syscall(SYS_set_robust_list, &h, sizeof h - 1);
    printf("set_robust_list(len %s) -> %s\n", "sizeof-1", R(r));
    r = syscall(SYS_set_robust_list, &h, (size_t)0);
    printf("set_robust_list(len 0) -> %s\n", R(r));
    r = syscall(SYS_set_robust_list, &h, (size_t)-1);
    printf("set_robust_list(len -1) -> %s\n", R(r));
    r = syscall(SYS_get_robust_list, 0x3fffffff, &hp, &len);
    printf("get_robust_list(pid 0x3fffffff) -> %s\n", R(r));
    r = syscall(SYS_get_robust_list, -1, &hp, &len);
    printf("get_robust_list(pid -1) -> %s\n", R(r));
    r = syscall(SYS_get_robust_list, 0, unmapped, &len);
    printf("get_robust_list(0, head_ptr unmapped) -> %s\n", R(r));
    r = syscall(SYS_get_robust_list, 0, &hp, unmapped);
    printf("get_robust_list(0, len_ptr unmapped) -> %s\n", R(r));
    /* a reaped child is gone */
    pid_t c = fork();
    if (c == 0) _exit(0);
    waitpid(c, NULL, 0);
    r = syscall(SYS_get_robust_list, c, &hp, &len);
    printf("get_robust_list(reaped child) -> %s\n", R(r));
    /* the main thread's own list (glibc registered it) */
    r = syscall(SYS_get_robust_list, 0, &hp, &len);
    printf("get_robust_list(0) -> %s len %zu\n", R(r), len);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* a child killed by SIGSEGV: no core, whatever core_pattern says */
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore);
    unmapped = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(unmapped + 4096, 4096);
    unmapped += 4096;
    clone_table();
    clone_pointers();
    clone3_table();
    futex_table();
    futex_pi();
    futex_protections();
    futex_requeue_pi();
    robust_mutexes();
    hand_made_lists();
    killed_while_blocked();
    killed_threads();
    robust_list_calls();
    wait_kill();
    return 0;
}
