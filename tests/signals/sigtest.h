/* Helpers for the signal test guests: static glibc programs for i386 and
 * x86_64 whose output must be the same natively and under seccomp-emu.
 * Everything here is usable in a signal handler and in strict mode:
 * output is formatted without a system call and written with write(2),
 * and exit is the raw exit(2) (glibc's _exit is exit_group, fatal in
 * strict mode). */
#ifndef TESTS_SIGNALS_SIGTEST_H
#define TESTS_SIGNALS_SIGTEST_H

#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
#define REG_PC REG_RIP
#define REG_SP_ REG_RSP
#define REG_AX_ REG_RAX
#define BITS 64
#else
#define REG_PC REG_EIP
#define REG_SP_ REG_ESP
#define REG_AX_ REG_EAX
#define BITS 32
#endif

static inline void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void say(const char *fmt, ...)
{
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof(b), fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(b) - 1)
        n = (int)sizeof(b) - 1;
    const char *p = b;
    while (n > 0) {
        ssize_t w = syscall(SYS_write, 1, p, (size_t)n);
        if (w <= 0)
            break;
        p += w;
        n -= (int)w;
    }
}

/* exit(2), allowed in strict mode */
static inline __attribute__((noreturn)) void sys_exit(int code)
{
    for (;;)
        syscall(SYS_exit, code);
}

static inline void enter_strict(void)
{
    if (prctl(PR_SET_SECCOMP, 1, 0, 0, 0) != 0) {
        say("prctl failed\n");
        sys_exit(90);
    }
}

static inline void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) != 0) {
        say("sigaction %d failed\n", sig);
        sys_exit(91);
    }
}

static inline void on_plain(int sig, void (*fn)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fn;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, NULL) != 0) {
        say("sigaction %d failed\n", sig);
        sys_exit(91);
    }
}

/* Burn CPU without system calls until *flag becomes nonzero. */
static inline void spin_until(volatile sig_atomic_t *flag)
{
    while (!*flag)
        __asm__ volatile("" ::: "memory");
}

#define CASE(name) if (!strcmp(which, name))

#endif
