/* Observers of what the emulated kernel does, beyond the trapped calls
 * (trap_observer in emu/entry/trap.h): mode changes, signals, the end.  Each is a
 * function pointer, NULL unless something (the trace) watches, so a hook
 * point costs one test of a pointer and observing changes nothing. */
#ifndef EMU_OBSERVE_H
#define EMU_OBSERVE_H

#include <stdint.h>

struct task;

/* The interface that turned strict mode on. */
enum strict_via {
    VIA_START,   /* before the first instruction: --strict, raw bytecode */
    VIA_PRCTL,   /* prctl(PR_SET_SECCOMP, 1) */
    VIA_SECCOMP, /* seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL) */
    VIA_PROC,    /* a write to /proc/self/seccomp (the 2.6.11 profile) */
};

struct mode_event {
    int from, to; /* enum seccomp_mode */
    enum strict_via via;
};
extern void (*mode_observer)(struct task *t, const struct mode_event *ev);

enum signal_what {
    SIGNAL_FAULT,   /* a synchronous fault at the current instruction */
    SIGNAL_SENT,    /* a signal the kernel sends as a side effect (SIGPIPE) */
    SIGNAL_DELIVER, /* a handler is about to run: `handler`, `frame` */
    SIGNAL_RETURN,  /* sigreturn restored the context: `resume` */
};

struct signal_event {
    enum signal_what what;
    int sig;           /* Linux number */
    int si_code;
    uint64_t addr;     /* si_addr of a fault */
    uint64_t handler;  /* SIGNAL_DELIVER */
    uint64_t frame;    /* SIGNAL_DELIVER: where the frame was written */
    uint64_t resume;   /* SIGNAL_RETURN: the restored instruction pointer */
    int rt;            /* SIGNAL_DELIVER/RETURN: rt frame (SA_SIGINFO) or not */
};
extern void (*signal_observer)(struct task *t, const struct signal_event *ev);

/* The guest has ended (exited or killed); t->state says how. */
extern void (*end_observer)(struct task *t);

/* The hook points: one line each where the event happens. */
static inline void observe_mode(struct task *t, const struct mode_event *ev)
{
    if (mode_observer)
        mode_observer(t, ev);
}

static inline void observe_signal(struct task *t, const struct signal_event *ev)
{
    if (signal_observer)
        signal_observer(t, ev);
}

static inline void observe_end(struct task *t)
{
    if (end_observer)
        end_observer(t);
}

#endif
