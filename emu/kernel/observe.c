#include "emu/kernel/observe.h"

void (*mode_observer)(struct task *t, const struct mode_event *ev);
void (*signal_observer)(struct task *t, const struct signal_event *ev);
void (*end_observer)(struct task *t);
