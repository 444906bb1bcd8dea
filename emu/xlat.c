#include "emu/xlat.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>

#include "abi/linux.h"
#include "abi/signal_linux.h"

int xlat_errno_to_linux(int e)
{
    /* Only what a read or write on a host descriptor can answer. */
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
    static const int host[] = { [SEEK_SET_LINUX] = SEEK_SET, [SEEK_CUR_LINUX] = SEEK_CUR,
                                [SEEK_END_LINUX] = SEEK_END };
    return host[whence];
}
