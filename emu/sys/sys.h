/* The Linux personality seccomp-emu offers before strict mode: every call
 * here is emulated inside; only reads and writes on granted descriptors
 * reach the host.  Handlers return a result or a negative errno_LINUX. */
#ifndef EMU_SYS_H
#define EMU_SYS_H

#include <stdint.h>

#include "abi/abi.h"
#include "emu/kernel/task.h"

/* A handler returns the value the guest sees in eax/rax: a result, or a
 * negative Linux errno. */
typedef int64_t (*sys_fn)(struct task *t, const uint64_t a[6]);

/* One emulated call.  `arity` is how many arguments its handler reads:
 * the trap path fetches registers past the third only for calls that take
 * them (each Unicorn register read costs), so a handler must not read
 * a[arity] and beyond.  `fmt` has one letter per argument, for traces
 * (emu/trace/trace_format.c decodes them the way strace prints them):
 * d int, l signed word, u unsigned word, x hex, o octal (a mode), p pointer,
 * s path string, b buffer written by the guest (length in the next
 * argument), B buffer filled by the call (shown up to the result), and
 * constants by name: D dirfd (AT_FDCWD), O open flags, P mmap prot, M mmap
 * flags, W lseek whence, C clock id, R rlimit resource, A arch_prctl code,
 * I ioctl request, c fcntl command, m madvise advice, S seccomp operation,
 * K prctl option (it decides how many arguments follow). */
struct syscall_desc {
    int nr;
    const char *name;
    uint8_t arity;
    const char *fmt;
    sys_fn fn;
    uint8_t flags; /* SYS_* below */
};

/* A call that may wait for another task (a futex, a child, a pipe, a
 * sleep): while other tasks share the engine, it is finished outside the
 * engine, so that they can run meanwhile (emu/entry/trap.c). */
#define SYS_BLOCKS 1
/* A call that always finishes outside the engine: it makes or replaces
 * engines and tasks (clone, fork, vfork, execve). */
#define SYS_LEAVES_ENGINE 2

/* The emulated call `nr` of `abi`, or NULL: the call answers -ENOSYS. */
const struct syscall_desc *sys_lookup(const struct abi *abi, int64_t nr);

/* An argument as the call's ABI sees it: compat calls (int $0x80, also
 * from 64-bit code) take 32-bit values. */
static inline uint64_t uarg(const struct task *t, uint64_t v)
{
    return in_compat_syscall(t) ? (uint32_t)v : v;
}

/* access_ok(): a range reaching past the 64-bit user limit is refused
 * before anything else, for compat callers too (TASK_SIZE_MAX). */
static inline bool access_ok(uint64_t buf, uint64_t count)
{
    return count <= TASK_SIZE_64_LINUX && buf <= TASK_SIZE_64_LINUX - count;
}

#define SYS(name) int64_t sys_##name(struct task *t, const uint64_t a[6])

/* sys_io.c: descriptors */
SYS(read); SYS(write); SYS(readv); SYS(writev); SYS(pread64); SYS(pwrite64);
SYS(open); SYS(openat); SYS(creat); SYS(close); SYS(lseek); SYS(llseek);
SYS(memfd_create); SYS(kcmp); SYS(ftruncate); SYS(ftruncate64);
SYS(ioctl); SYS(fcntl); SYS(dup); SYS(dup2); SYS(dup3);
/* A guest iovec array as read (`raw`, each ABI's layout) into `v`: the
 * kernel's checks of lengths (EINVAL) and ranges (EFAULT), the total cut
 * to MAX_RW_COUNT.  0 or a negative errno. */
int64_t iovec_from_guest(const uint8_t *raw, uint64_t cnt, bool compat, struct guest_iovec *v);

/* sys_socket.c: AF_UNIX socket pairs (emu/kernel/unix.c) */
SYS(socketpair); SYS(sendmsg); SYS(recvmsg); SYS(sendto); SYS(recvfrom); SYS(shutdown);
SYS(socketcall);

/* sys_stat.c: the stat family */
SYS(fstat); SYS(fstat_compat); SYS(fstat64); SYS(newfstatat); SYS(fstatat64); SYS(statx);
SYS(stat); SYS(lstat); SYS(stat64); SYS(lstat64); SYS(stat_compat); SYS(lstat_compat);
SYS(oldstat);

/* sys_fs.c: the namespace's path calls (emu/kernel/vfs.c) */
SYS(access); SYS(faccessat); SYS(faccessat2); SYS(getdents); SYS(getdents64);
SYS(chdir); SYS(fchdir); SYS(getcwd);

/* sys_mm.c: memory */
SYS(brk); SYS(mmap); SYS(old_mmap); SYS(mmap2); SYS(munmap); SYS(mprotect); SYS(mremap);
SYS(madvise); SYS(mincore); SYS(membarrier);
SYS(mlock); SYS(mlock2); SYS(munlock); SYS(mlockall); SYS(munlockall);

/* sys_proc.c: identity, limits, thread state, randomness */
SYS(getpgrp); SYS(getuid); SYS(geteuid); SYS(getgid); SYS(getegid); SYS(uname);
SYS(prlimit64); SYS(getrlimit); SYS(old_getrlimit); SYS(setrlimit); SYS(getrusage);
SYS(sysinfo);
SYS(rseq); SYS(arch_prctl); SYS(set_thread_area); SYS(modify_ldt); SYS(get_thread_area); SYS(getrandom);
SYS(readlink); SYS(readlinkat); SYS(prctl); SYS(seccomp); SYS(capget); SYS(capset);

/* sys_task.c: tasks and processes, futexes, pipes and eventfds */
SYS(clone); SYS(clone3); SYS(fork); SYS(vfork); SYS(execve); SYS(execveat); SYS(exit);
SYS(exit_group);
SYS(wait4); SYS(waitpid); SYS(waitid); SYS(getpid); SYS(gettid); SYS(getppid);
SYS(set_tid_address); SYS(set_robust_list); SYS(get_robust_list); SYS(futex);
SYS(futex_time64); SYS(sched_yield); SYS(sched_getaffinity); SYS(sched_setaffinity);
SYS(sched_getscheduler); SYS(sched_getparam);
SYS(getcpu); SYS(pipe); SYS(pipe2); SYS(eventfd); SYS(eventfd2);


/* sys_time.c: clocks */
SYS(clock_gettime); SYS(clock_gettime64); SYS(clock_getres); SYS(clock_getres64);
SYS(gettimeofday); SYS(time); SYS(nanosleep); SYS(clock_nanosleep);

/* sys_signal.c: signals */
SYS(rt_sigreturn); SYS(sigreturn); SYS(rt_sigaction); SYS(sigaction); SYS(signal);
SYS(rt_sigprocmask); SYS(sigprocmask); SYS(rt_sigpending); SYS(sigpending);
SYS(rt_sigsuspend); SYS(sigsuspend); SYS(pause); SYS(rt_sigtimedwait); SYS(kill);
SYS(tkill); SYS(tgkill); SYS(rt_sigqueueinfo); SYS(rt_tgsigqueueinfo); SYS(sigaltstack);

/* sys_poll.c, sys_epoll.c: waiting for descriptors */
SYS(poll); SYS(ppoll); SYS(ppoll_time64); SYS(select); SYS(old_select); SYS(pselect6);
SYS(pselect6_time64); SYS(epoll_create); SYS(epoll_create1); SYS(epoll_ctl); SYS(epoll_wait);
SYS(epoll_pwait); SYS(epoll_pwait2);

/* sys_itimer.c: interval timers; sys_timer.c: POSIX timers */
SYS(alarm); SYS(setitimer); SYS(getitimer);
SYS(timer_create); SYS(timer_settime); SYS(timer_settime64); SYS(timer_gettime);
SYS(timer_gettime64); SYS(timer_getoverrun); SYS(timer_delete);

#endif
