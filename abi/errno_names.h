/* Linux errno numbers by name and message, for traces ("EBADF (Bad file
 * descriptor)"), indexed by the guest's errno, not the host's. */
#ifndef ABI_ERRNO_NAMES_H
#define ABI_ERRNO_NAMES_H

struct errno_name {
    const char *name;    /* "EBADF" */
    const char *message; /* "Bad file descriptor" */
};

extern const struct errno_name errno_names_linux[];
extern const unsigned errno_names_linux_len;

/* The entry for Linux errno `e`, or NULL when it has no name. */
static inline const struct errno_name *errno_name_linux(long e)
{
    if (e <= 0 || (unsigned long)e >= errno_names_linux_len || !errno_names_linux[e].name)
        return (const struct errno_name *)0;
    return &errno_names_linux[e];
}

#endif
