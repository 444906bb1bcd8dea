/* How the glibc guests print a call's result: the value, or -1 and the
 * errno's name, flushed at once so that a kill right after it still
 * leaves the line on stdout for the native and emulated runs alike. */
#ifndef GUESTS_SHOW_RESULT_H
#define GUESTS_SHOW_RESULT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static inline void show(const char *what, long r)
{
    if (r < 0)
        printf("%s = -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s = %ld\n", what, r);
    fflush(stdout);
}

#endif
