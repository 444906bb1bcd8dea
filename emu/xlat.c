#include "emu/xlat.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

#include "abi/linux.h"
#include "abi/poll_linux.h"
#include "abi/signal_linux.h"

int xlat_errno_to_linux(int e)
{
    /* What a read or write on a host descriptor, or a walk in a granted
     * directory (emu/kernel/vfs.c), can answer.  FreeBSD answers EMLINK
     * where Linux answers ELOOP: an O_NOFOLLOW open of a symlink. */
    static const struct {
        int host, linux_;
    } map[] = {
        { EPERM, EPERM_LINUX },   { ENOENT, ENOENT_LINUX }, { EINTR, EINTR_LINUX },
        { EIO, EIO_LINUX },       { EBADF, EBADF_LINUX },   { EAGAIN, EAGAIN_LINUX },
        { ENOMEM, ENOMEM_LINUX }, { EACCES, EACCES_LINUX }, { EFAULT, EFAULT_LINUX },
        { EINVAL, EINVAL_LINUX }, { ENOTTY, ENOTTY_LINUX }, { EFBIG, EFBIG_LINUX },
        { ENOSPC, ENOSPC_LINUX }, { ESPIPE, ESPIPE_LINUX }, { EPIPE, EPIPE_LINUX },
        { ECONNRESET, ECONNRESET_LINUX }, { ENOTCONN, ENOTCONN_LINUX },
        { ETIMEDOUT, ETIMEDOUT_LINUX },   { EISDIR, EISDIR_LINUX }, { ENXIO, ENXIO_LINUX },
        { EDQUOT, EDQUOT_LINUX }, { EMSGSIZE, EMSGSIZE_LINUX },
        { EDESTADDRREQ, EDESTADDRREQ_LINUX }, { ECONNABORTED, ECONNABORTED_LINUX },
        { ENETDOWN, ENETDOWN_LINUX }, { ENETUNREACH, ENETUNREACH_LINUX },
        { EHOSTUNREACH, EHOSTUNREACH_LINUX }, { ECONNREFUSED, ECONNREFUSED_LINUX },
        { ESHUTDOWN, ESHUTDOWN_LINUX }, { ENOBUFS, ENOBUFS_LINUX },
        { ENOTDIR, ENOTDIR_LINUX }, { ELOOP, ELOOP_LINUX }, { EMLINK, ELOOP_LINUX },
        { ENAMETOOLONG, ENAMETOOLONG_LINUX }, { EEXIST, EEXIST_LINUX }, { EROFS, EROFS_LINUX },
        { EOVERFLOW, EOVERFLOW_LINUX }, { ENODEV, ENODEV_LINUX }, { EMFILE, EMFILE_LINUX },
        { ENFILE, ENFILE_LINUX },
    };
    for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].host == e)
            return map[i].linux_;
    return EIO_LINUX;
}

int xlat_signal_to_host(int sig)
{
#if defined(__linux__)
    return sig; /* the same numbers, real-time signals included */
#endif
    switch (sig) {
    case SIGXCPU_LINUX: return SIGXCPU;
    case SIGXFSZ_LINUX: return SIGXFSZ;
    case SIGVTALRM_LINUX: return SIGVTALRM;
    case SIGPROF_LINUX: return SIGPROF;
    case SIGHUP_LINUX: return SIGHUP;
    case SIGINT_LINUX: return SIGINT;
    case SIGQUIT_LINUX: return SIGQUIT;
    case SIGILL_LINUX: return SIGILL;
    case SIGTRAP_LINUX: return SIGTRAP;
    case SIGABRT_LINUX: return SIGABRT;
    case SIGBUS_LINUX: return SIGBUS;
    case SIGFPE_LINUX: return SIGFPE;
    case SIGKILL_LINUX: return SIGKILL;
    case SIGUSR1_LINUX: return SIGUSR1;
    case SIGSEGV_LINUX: return SIGSEGV;
    case SIGUSR2_LINUX: return SIGUSR2;
    case SIGPIPE_LINUX: return SIGPIPE;
    case SIGALRM_LINUX: return SIGALRM;
    case SIGTERM_LINUX: return SIGTERM;
    case SIGSYS_LINUX: return SIGSYS;
    default: return 0;
    }
}

int xlat_whence_to_host(int whence)
{
    switch (whence) {
    case SEEK_SET_LINUX: return SEEK_SET;
    case SEEK_CUR_LINUX: return SEEK_CUR;
    case SEEK_END_LINUX: return SEEK_END;
#if defined(SEEK_DATA) && defined(SEEK_HOLE)
    case SEEK_DATA_LINUX: return SEEK_DATA;
    case SEEK_HOLE_LINUX: return SEEK_HOLE;
#endif
    default: return -1;
    }
}

uint32_t xlat_mode_to_linux(unsigned host_mode)
{
    mode_t m = (mode_t)host_mode;
    uint32_t type = S_ISREG(m) ? S_IFREG_LINUX : S_ISDIR(m) ? S_IFDIR_LINUX
                  : S_ISLNK(m) ? S_IFLNK_LINUX : S_ISCHR(m) ? S_IFCHR_LINUX
                  : S_ISBLK(m) ? S_IFBLK_LINUX : S_ISFIFO(m) ? S_IFIFO_LINUX
                  : S_ISSOCK(m) ? S_IFSOCK_LINUX : 0;
    return type | (uint32_t)(m & 07777);
}

unsigned xlat_dtype_of_mode(uint32_t linux_mode)
{
    switch (linux_mode & S_IFMT_LINUX) {
    case S_IFREG_LINUX: return DT_REG_LINUX;
    case S_IFDIR_LINUX: return DT_DIR_LINUX;
    case S_IFLNK_LINUX: return DT_LNK_LINUX;
    case S_IFCHR_LINUX: return DT_CHR_LINUX;
    case S_IFBLK_LINUX: return DT_BLK_LINUX;
    case S_IFIFO_LINUX: return DT_FIFO_LINUX;
    case S_IFSOCK_LINUX: return DT_SOCK_LINUX;
    default: return DT_UNKNOWN_LINUX;
    }
}

/* Each poll event the host has a name for; POLLRDHUP is Linux's own.
 * Where the host gives two names one value (POLLWRNORM is POLLOUT on
 * macOS), a host event reads as both Linux events. */
static const struct {
    short host;
    unsigned linux_;
} poll_events[] = {
    { POLLIN, POLLIN_LINUX },         { POLLPRI, POLLPRI_LINUX },
    { POLLOUT, POLLOUT_LINUX },       { POLLERR, POLLERR_LINUX },
    { POLLHUP, POLLHUP_LINUX },       { POLLNVAL, POLLNVAL_LINUX },
    { POLLRDNORM, POLLRDNORM_LINUX }, { POLLRDBAND, POLLRDBAND_LINUX },
    { POLLWRNORM, POLLWRNORM_LINUX }, { POLLWRBAND, POLLWRBAND_LINUX },
#ifdef POLLRDHUP
    { POLLRDHUP, POLLRDHUP_LINUX },
#endif
};

short xlat_poll_to_host(unsigned events)
{
    short h = 0;
    for (size_t i = 0; i < sizeof(poll_events) / sizeof(poll_events[0]); i++)
        if (events & poll_events[i].linux_)
            h |= poll_events[i].host;
    return h;
}

unsigned xlat_poll_to_linux(short revents)
{
    unsigned l = 0;
    for (size_t i = 0; i < sizeof(poll_events) / sizeof(poll_events[0]); i++)
        if (revents & poll_events[i].host)
            l |= poll_events[i].linux_;
    return l;
}
