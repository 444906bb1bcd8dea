/* The native side of tests/filter: the launcher seccomp-emu's --filter
 * plays.  It sets no_new_privs, attaches each FILE (an exported sock_filter
 * array) with seccomp(SECCOMP_SET_MODE_FILTER), and execs PROGRAM, so that
 * the kernel enforces what seccomp-emu enforces in the emulator.
 *
 *   launch [FILE...] -- PROGRAM [ARG...]
 *
 * The filters also see this execve (the emulated job's exec happens
 * outside any filter): the tests' filters allow it.  Linux only. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int i = 1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
        perror("launch: PR_SET_NO_NEW_PRIVS");
        return 125;
    }
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        FILE *f = fopen(argv[i], "rb");
        static struct sock_filter insns[BPF_MAXINSNS + 1];
        size_t n = f ? fread(insns, sizeof(insns[0]), BPF_MAXINSNS + 1, f) : 0;
        if (!f || n == 0 || n > BPF_MAXINSNS) {
            fprintf(stderr, "launch: %s: unreadable or not 1..%d instructions\n", argv[i],
                    BPF_MAXINSNS);
            return 125;
        }
        fclose(f);
        struct sock_fprog prog = { .len = (unsigned short)n, .filter = insns };
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
            fprintf(stderr, "launch: %s: seccomp: %s\n", argv[i], strerror(errno));
            return 125;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "usage: launch [FILE...] -- PROGRAM [ARG...]\n");
        return 125;
    }
    execv(argv[i + 1], argv + i + 1);
    perror("launch: execv");
    return 127;
}
