/* For the i386 build of the kernel's seccomp selftests: the four libcap
 * calls seccomp_bpf.c makes (only the O_SUSPEND_SECCOMP fixture, which is
 * out of scope: it needs ptrace), for hosts without an i386 libcap.  They
 * fail, so that fixture fails in its setup, natively and emulated alike. */
#include <errno.h>
#include <stddef.h>
#include <sys/capability.h>

cap_t cap_get_proc(void)
{
    errno = ENOSYS;
    return NULL;
}

int cap_set_flag(cap_t caps, cap_flag_t flag, int n, const cap_value_t *values, cap_flag_value_t v)
{
    (void)caps, (void)flag, (void)n, (void)values, (void)v;
    errno = ENOSYS;
    return -1;
}

int cap_set_proc(cap_t caps)
{
    (void)caps;
    errno = ENOSYS;
    return -1;
}

int cap_free(void *p)
{
    (void)p;
    return 0;
}
