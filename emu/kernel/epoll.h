/* epoll instances (fs/eventpoll.c) as objects of the emulated kernel: an
 * interest list of (file, descriptor) items and a ready list, level- or
 * edge-triggered, with EPOLLONESHOT; an instance is itself a file another
 * instance can watch.
 *
 * Readiness comes from emu/kernel/poll.c.  Linux puts an item on the
 * ready list from the watched file's wake-up; here an item joins it when
 * it is found ready (level-triggered) or newly ready (edge-triggered: an
 * event it did not show at the last look) at a scan, which each wait and
 * each poll of the instance makes.  For a program that reads until EAGAIN
 * before it waits, as edge-triggered use requires, the two agree; a second
 * wake-up of a file that stayed ready (more data on a socket never
 * drained) is reported by Linux and not here. */
#ifndef EMU_KERNEL_EPOLL_H
#define EMU_KERNEL_EPOLL_H

#include <stdint.h>

#include "emu/kernel/fdtable.h"

struct task;

/* epoll_create1(): a new instance on the lowest free descriptor. */
int64_t eventpoll_create(struct task *t, unsigned flags);

/* epoll_ctl(); `events`/`data` are the guest's struct epoll_event (ignored
 * for EPOLL_CTL_DEL), `event_ok` whether it could be read. */
int64_t eventpoll_ctl(struct task *t, int epfd, int op, int fd, bool event_ok, uint32_t events,
                      uint64_t data);

/* epoll_wait() once the arguments are checked: up to `maxevents` events
 * to guest address `uevents`; deadline absolute on poll_now(), < 0 none,
 * 0 with `nowait` for a zero timeout.  -EINTR for a signal. */
int64_t eventpoll_wait(struct task *t, int epfd, uint64_t uevents, int maxevents, int64_t deadline,
                       bool nowait);

#endif
