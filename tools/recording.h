/* The kernel's answer for a case this host cannot run natively: what the
 * host lacks (tests/hostcaps.c), and recordings of native runs.  The rules
 * are tests/native_oracle.py's; this is their C side for seccomp-emu-diff. */
#ifndef SECCOMP_EMU_TOOLS_RECORDING_H
#define SECCOMP_EMU_TOOLS_RECORDING_H

#include <glib.h>

typedef struct {
    GString *out, *err;   /* stdout, stderr */
    gchar *status;        /* "exit N" or "signal N" */
    gchar *by;            /* who answered: the kernel (which), or why another stands for it */
} Recording;

/* The capabilities PROGRAM's native run needs (NEEDS, plus ia32 for an i386
 * ELF) that the PROBE says this host lacks, comma-separated; "" for none,
 * NULL with *error set when the probe fails or a need is unknown. */
gchar *native_lacks(const char *probe, const char *program, char **needs, GError **error);

/* FALSE with *error unset: there is no recording in DIR. */
gboolean recording_load(const char *dir, Recording *r, GError **error);
gboolean recording_save(const char *dir, const Recording *r, GError **error);
void recording_clear(Recording *r);

/* The answer of a real kernel in a VM (tools/vm/vmjudge.py, run by PYTHON
 * from JUDGE, with the emulator's build directory BUILD for the VM's cache):
 * ARGV run with stdin from STDIN_PATH (NULL: /dev/null), the CPU vendor
 * VENDOR ("intel", "amd", NULL for QEMU's default).  Returns 0 with *R
 * filled; 1 when CACHED_ONLY and no answer is cached; 3 when a collect pass
 * (SECCOMP_EMU_NATIVE=collect) spooled the request; 2 with *error set when
 * the VM is missing (one line) or failed. */
int vm_answer(const char *python, const char *judge, const char *build, char **argv,
              const char *stdin_path, const char *vendor, int timeout, gboolean cached_only,
              Recording *r, GError **error);

/* Why QEMU's CPU is no faithful judge of HARNESS's case KEY (a line
 * "HARNESS<TAB>KEY<TAB>host answer<TAB>VM answer<TAB>why" in
 * STORE/vm-differences.txt), or NULL. */
gchar *vm_pinned(const char *store, const char *harness, const char *key);

/* "the kernel: Linux RELEASE on CPU MODEL, DATE", for the by line of a recording. */
gchar *kernel_name(void);
/* "intel", "amd" or "other": recordings of --cpu=host cases are per vendor. */
const char *host_vendor(void);

#endif
