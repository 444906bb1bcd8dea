#include <errno.h>

#include "abi/linux.h"
#include "emu/sys/sys.h"

int errno_to_linux(int e)
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
        { ETIMEDOUT, ETIMEDOUT_LINUX },   { EISDIR, 21 },   { ENXIO, 6 },
        { EDQUOT, 122 },          { EMSGSIZE, 90 },         { EDESTADDRREQ, 89 },
        { ECONNABORTED, 103 },    { ENETDOWN, 100 },        { ENETUNREACH, 101 },
        { EHOSTUNREACH, 113 },    { ECONNREFUSED, 111 },    { ESHUTDOWN, 108 },
        { ENOBUFS, 105 },
    };
    for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].host == e)
            return map[i].linux_;
    return EIO_LINUX;
}
