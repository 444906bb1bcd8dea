#include "emu/host_tune.h"

#include <errno.h>
#include <string.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

err_t host_tune_memory(void)
{
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
    /* With transparent huge pages set to "always", the first touch of
     * Unicorn's 1 GiB translation buffer and of the guest's 8 MiB stack
     * each made 2 MiB resident: 1.3-2 MiB more peak memory on every job
     * (bench/), for no measurable speed on guests that small.  Kernels
     * before 3.15 lack the option (EINVAL): nothing to turn off there. */
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0 && errno != EINVAL)
        return err_new("prctl(PR_SET_THP_DISABLE): %s", strerror(errno));
#endif
    return OK;
}
