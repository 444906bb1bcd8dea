#include "emu/host/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "emu/kernel/vfs.h"

static gboolean opt_no_sandbox;
static char *opt_test_forbidden;

static const GOptionEntry entries[] = {
    { "no-self-sandbox", 0, 0, G_OPTION_ARG_NONE, &opt_no_sandbox,
      "Do not confine seccomp-emu itself with a seccomp filter after set-up (Linux)", NULL },
    /* Test only: after the filter is in, seccomp-emu itself attempts CALL
     * (open, openat, creat, execve, fork, clone, clone-thread-newuser,
     * socket, kill, ptrace, mount, ioctl) and must die of SIGSYS; if it
     * survives it says so and exits 70 (the control `write` is allowed and
     * must survive).  With grants, open-ro:PATH opens PATH read-only with
     * O_NOFOLLOW, the open the filter then lets through: refused (Landlock)
     * it says why and exits 71; opened, it exits 70. */
    { "self-sandbox-test", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_test_forbidden,
      "", "CALL" },
    { NULL },
};

GOptionGroup *sandbox_option_group(void)
{
    GOptionGroup *g = g_option_group_new("sandbox", "Self-sandboxing options:",
                                         "Show the self-sandboxing options", NULL, NULL);
    g_option_group_add_entries(g, entries);
    return g;
}

/* Exit status when the forbidden call of the test switch was not stopped,
 * and when an open-ro:PATH was refused with an error. */
#define EXIT_SANDBOX_LEAK 70
#define EXIT_SANDBOX_REFUSED 71

err_t sandbox_confine_files(void)
{
    if (opt_no_sandbox || !vfs_has_grants())
        return OK;
#ifdef HAVE_SELF_SANDBOX
    return sandbox_landlock_grants();
#else
    return OK;
#endif
}

err_t sandbox_enter(void)
{
    if (opt_no_sandbox) {
        if (opt_test_forbidden)
            return err_new("--self-sandbox-test needs the self-sandbox on");
        return OK;
    }
#ifdef HAVE_SELF_SANDBOX
    err_t e = sandbox_install_filter();
    if (e)
        return e;
    if (opt_test_forbidden && g_str_has_prefix(opt_test_forbidden, "open-ro:")) {
        const char *path = opt_test_forbidden + strlen("open-ro:");
        int fd = openat(AT_FDCWD, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "seccomp-emu: --self-sandbox-test: %s refused: %s\n", path,
                    host_strerror(errno));
            _exit(EXIT_SANDBOX_REFUSED);
        }
        fprintf(stderr, "seccomp-emu: self-sandbox let open-ro:%s through\n", path);
        _exit(EXIT_SANDBOX_LEAK);
    }
    if (opt_test_forbidden) {
        bool known = false;
        long r = sandbox_try_forbidden(opt_test_forbidden, &known);
        if (!known)
            fprintf(stderr, "seccomp-emu: --self-sandbox-test: unknown call %s\n",
                    opt_test_forbidden);
        else
            fprintf(stderr, "seccomp-emu: self-sandbox did not stop %s (it returned %ld)\n",
                    opt_test_forbidden, r);
        _exit(EXIT_SANDBOX_LEAK);
    }
    return OK;
#else
    if (opt_test_forbidden)
        return err_new("--self-sandbox-test: this build has no self-sandbox");
    return OK;
#endif
}
