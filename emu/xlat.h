/* Host <-> Linux translations, all in one place: the host's errno values,
 * signal numbers, lseek whence and poll events differ from Linux's on macOS and the
 * BSDs, and the guest must only ever see Linux's. */
#ifndef EMU_XLAT_H
#define EMU_XLAT_H

#include <stdint.h>

/* A host errno as the Linux errno the guest sees (EIO for the unknown). */
int xlat_errno_to_linux(int host_errno);

/* The host's number for Linux signal `sig`, or 0 where the host has none. */
int xlat_signal_to_host(int sig);

/* The host's whence for Linux's SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA or
 * SEEK_HOLE; -1 where the host has no such whence. */
int xlat_whence_to_host(int whence);

/* A host st_mode as Linux's (type bits and permissions). */
uint32_t xlat_mode_to_linux(unsigned host_mode);

/* The getdents d_type Linux gives an inode of `linux_mode`. */
unsigned xlat_dtype_of_mode(uint32_t linux_mode);

/* Linux's poll events (POLL*_LINUX) as the host's poll() names them, and
 * the host's revents as Linux's. */
short xlat_poll_to_host(unsigned events);
unsigned xlat_poll_to_linux(short revents);

#endif
