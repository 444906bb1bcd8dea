/* --ro HOSTPATH[:GUESTPATH] and --cwd: the host files and directories a
 * guest may read, opened read-only before the guest starts (and before
 * the self-sandbox), and where in its namespace it finds them.  The
 * namespace itself is emu/kernel/vfs.c. */
#ifndef EMU_GRANTS_H
#define EMU_GRANTS_H

#include <glib.h>

#include "emu/status.h"

struct task;

/* A grant that cannot be made: like a shell's failed redirection. */
#define GRANTS_EXIT_FAILED 1

struct grant_spec {
    char *host;  /* as given */
    char *guest; /* absolute; the host path made absolute when not given */
    char *text;  /* the argument, for messages */
};

/* Parse "HOSTPATH[:GUESTPATH]" (the last ':' before a '/' separates, so
 * a host path with ':/' in it needs its GUESTPATH).  Touches nothing. */
err_t grant_spec_parse(const char *arg, struct grant_spec *out);
void grant_spec_clear(struct grant_spec *s);

/* --ro and --cwd. */
GOptionGroup *grants_option_group(void);
void grants_options_reset(void);

/* Open every --ro and add it to the namespace, then put the task in its
 * working directory.  Errors name the option. */
err_t grants_setup(struct task *t);

#endif
