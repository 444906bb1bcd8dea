/* seccomp filters for the lessons: classic BPF as <linux/filter.h> and
 * <linux/seccomp.h> spell it, written out so the guests stay freestanding.
 * A filter is an array of 8-byte instructions; BPF_STMT and BPF_JUMP are
 * the kernel headers' own macros. */
#ifndef EXAMPLES_FILTER_H
#define EXAMPLES_FILTER_H

#include "guest.h"

struct sock_filter {
    unsigned short code;
    unsigned char jt, jf;
    unsigned int k;
};
struct sock_fprog {
    unsigned short len;
    const struct sock_filter *filter;
};

#define BPF_LD 0x00
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_W 0x00
#define BPF_ABS 0x20
#define BPF_JEQ 0x10
#define BPF_K 0x00
#define BPF_STMT(code, k) { (unsigned short)(code), 0, 0, k }
#define BPF_JUMP(code, k, jt, jf) { (unsigned short)(code), jt, jf, k }

/* struct seccomp_data's offsets: nr, arch, then args[i] at 16 + 8i (the
 * low half; the high half is 4 bytes further). */
#define SD_NR 0
#define SD_ARCH 4
#define SD_ARG_LO(i) (16 + 8 * (i))
#define SD_ARG_HI(i) (20 + 8 * (i))

#define SECCOMP_RET_KILL_PROCESS 0x80000000u
#define SECCOMP_RET_TRAP 0x00030000u
#define SECCOMP_RET_ERRNO 0x00050000u
#define SECCOMP_RET_TRACE 0x7ff00000u
#define SECCOMP_RET_ALLOW 0x7fff0000u

#define AUDIT_ARCH_X86_64 0xc000003eu
#define AUDIT_ARCH_I386 0x40000003u
#if defined(__x86_64__)
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_X86_64
#else
#define AUDIT_ARCH_NATIVE AUDIT_ARCH_I386
#endif

#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off)
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf)
#define RET(k) BPF_STMT(BPF_RET | BPF_K, k)

#define PR_SET_NO_NEW_PRIVS 38
#define PR_SET_SECCOMP_FILTER 2 /* SECCOMP_MODE_FILTER, prctl's argument */

#if defined(__x86_64__)
#define NR_getppid_LINUX 110
#define NR_rt_sigprocmask_LINUX 14
#else
#define NR_getppid_LINUX 64
#define NR_rt_sigprocmask_LINUX 175
#endif

static inline long guest_no_new_privs(void)
{
    return guest_sys(NR_prctl_LINUX, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
}

/* prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) */
static inline long guest_install(const struct sock_filter *insns, unsigned short len)
{
    struct sock_fprog prog = { len, insns };
    return guest_sys(NR_prctl_LINUX, PR_SET_SECCOMP_LINUX, PR_SET_SECCOMP_FILTER, (long)&prog, 0,
                     0, 0);
}

#define INSTALL(prog) guest_install(prog, sizeof(prog) / sizeof((prog)[0]))

#endif
