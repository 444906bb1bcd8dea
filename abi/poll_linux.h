/* The poll family's guest constants and layouts (include/uapi/asm-generic/
 * poll.h, eventpoll.h, fs/select.c), the same for both x86 ABIs unless
 * said otherwise.  The host's <poll.h> numbers differ on macOS and the
 * BSDs: emu/xlat.c translates. */
#ifndef ABI_POLL_LINUX_H
#define ABI_POLL_LINUX_H

#define POLLIN_LINUX 0x0001u
#define POLLPRI_LINUX 0x0002u
#define POLLOUT_LINUX 0x0004u
#define POLLERR_LINUX 0x0008u
#define POLLHUP_LINUX 0x0010u
#define POLLNVAL_LINUX 0x0020u
#define POLLRDNORM_LINUX 0x0040u
#define POLLRDBAND_LINUX 0x0080u
#define POLLWRNORM_LINUX 0x0100u
#define POLLWRBAND_LINUX 0x0200u
#define POLLMSG_LINUX 0x0400u
#define POLLRDHUP_LINUX 0x2000u

/* What vfs_poll() answers for a file without a ->poll (regular files,
 * /proc files, /dev/null): always ready both ways. */
#define DEFAULT_POLLMASK_LINUX \
    (POLLIN_LINUX | POLLOUT_LINUX | POLLRDNORM_LINUX | POLLWRNORM_LINUX)

/* select(2)'s three sets, as fs/select.c reads a poll mask. */
#define POLLIN_SET_LINUX \
    (POLLRDNORM_LINUX | POLLRDBAND_LINUX | POLLIN_LINUX | POLLHUP_LINUX | POLLERR_LINUX)
#define POLLOUT_SET_LINUX (POLLWRBAND_LINUX | POLLWRNORM_LINUX | POLLOUT_LINUX | POLLERR_LINUX)
#define POLLEX_SET_LINUX POLLPRI_LINUX

/* struct pollfd: int fd; short events; short revents. */
#define POLLFD_SIZE_LINUX 8
#define POLLFD_REVENTS_OFF_LINUX 6

/* epoll(7) */
#define EPOLL_CLOEXEC_LINUX 02000000u
#define EPOLL_CTL_ADD_LINUX 1
#define EPOLL_CTL_DEL_LINUX 2
#define EPOLL_CTL_MOD_LINUX 3
#define EPOLLEXCLUSIVE_LINUX (1u << 28)
#define EPOLLWAKEUP_LINUX (1u << 29)
#define EPOLLONESHOT_LINUX (1u << 30)
#define EPOLLET_LINUX (1u << 31)
/* The flags that are not events. */
#define EP_PRIVATE_BITS_LINUX \
    (EPOLLWAKEUP_LINUX | EPOLLONESHOT_LINUX | EPOLLET_LINUX | EPOLLEXCLUSIVE_LINUX)
/* What EPOLLEXCLUSIVE may be combined with (fs/eventpoll.c). */
#define EPOLLEXCLUSIVE_OK_BITS_LINUX                                                            \
    (POLLIN_LINUX | POLLOUT_LINUX | POLLERR_LINUX | POLLHUP_LINUX | EPOLLWAKEUP_LINUX |        \
     EPOLLET_LINUX | EPOLLEXCLUSIVE_LINUX)
/* struct epoll_event is packed on x86, both ABIs: u32 events, u64 data. */
#define EPOLL_EVENT_SIZE_LINUX 12
/* EP_MAX_EVENTS: INT_MAX / sizeof(struct epoll_event). */
#define EP_MAX_EVENTS_LINUX (0x7fffffff / EPOLL_EVENT_SIZE_LINUX)
/* The nesting the kernel allows between epoll instances (EP_MAX_NESTS). */
#define EP_MAX_NESTS_LINUX 4

#endif
