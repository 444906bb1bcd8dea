/* --fd N=SPEC and --close-std: the endpoints a guest is granted.  Each
 * mapping becomes one plain blocking host descriptor in the guest's fd
 * table, so sys_io.c's readv/writev path serves it directly from guest
 * memory whatever it is (socket, file, pipe).  Endpoints are made with glib
 * and GIO, which work the same on non-Linux hosts. */
#ifndef EMU_FDMAP_H
#define EMU_FDMAP_H

#include <glib.h>
#include <stdint.h>

#include "emu/kernel/fdtable.h"
#include "emu/status.h"

/* A mapping that cannot be made: like a shell's failed redirection. */
#define FDMAP_EXIT_FAILED 1

enum fdspec_kind {
    FDSPEC_FD,     /* fd:M      a descriptor seccomp-emu inherited */
    FDSPEC_NULL,   /* null      reads give EOF, writes vanish */
    FDSPEC_TCP,    /* tcp:HOST:PORT     connect */
    FDSPEC_LISTEN, /* listen:HOST:PORT  accept one connection */
    FDSPEC_UNIX,   /* unix:PATH         connect to a stream socket */
    FDSPEC_FILE_R, /* file:PATH   read-only */
    FDSPEC_FILE_W, /* file-w:PATH created or truncated, write-only */
    FDSPEC_FILE_A, /* file-a:PATH created if missing, append */
};

struct fdspec {
    int guest;             /* N */
    enum fdspec_kind kind;
    int host_fd;           /* FDSPEC_FD */
    char *host;            /* TCP, LISTEN: name or address, without brackets */
    uint16_t port;         /* TCP (1..65535), LISTEN (0: any free port) */
    char *path;            /* UNIX, FILE_* */
    char *text;            /* the argument as given, for messages */
};

/* Parse "N=SPEC".  Touches nothing on the host. */
err_t fdspec_parse(const char *arg, struct fdspec *out);
void fdspec_clear(struct fdspec *s);

/* Make the endpoint; on success *host is a new blocking descriptor (or,
 * for fd:M, M itself). */
err_t fdspec_open(const struct fdspec *s, int *host);

/* --fd and --close-std. */
GOptionGroup *fdmap_option_group(void);

/* Forget the parsed --fd and --close-std (static state, as glib parses
 * into it): for a harness that parses many command lines in one process. */
void fdmap_options_reset(void);

/* Apply the options to a table fdtable_init_std() filled: mappings are made
 * in the order given, before the guest runs.  Errors name the option. */
err_t fdmap_setup(struct fdtable *ft);

#endif
