/* The vDSO seccomp-emu gives each guest: a small but real ELF shared object
 * (glibc, musl and Go parse it from AT_SYSINFO_EHDR), with Linux's entry
 * points, symbol versions and weak aliases, soname included.  The
 * time functions run without a system call, as the kernel's do, so a glibc
 * program calling clock_gettime in strict mode lives, as it does natively. */
#ifndef ABI_VDSO_H
#define ABI_VDSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vdso_fn {
    VDSO_CLOCK_GETTIME,   /* 32-bit timespec on i386 */
    VDSO_CLOCK_GETTIME64, /* i386 only: 64-bit timespec */
    VDSO_GETTIMEOFDAY,
    VDSO_TIME,
    VDSO_CLOCK_GETRES,
    VDSO_GETCPU,
    VDSO_NFN,
};

#define VDSO_SIZE 4096u
#define VDSO_TEXT 0x600u

struct vdso_image {
    uint8_t bytes[VDSO_SIZE];
    uint32_t vsyscall;     /* __kernel_vsyscall (i386) */
    uint32_t int80_pad;    /* int80_landing_pad (i386) */
    uint32_t sigreturn, rt_sigreturn; /* __kernel_{rt_,}sigreturn (i386) */
    uint32_t fn[VDSO_NFN]; /* hook points; 0 when the ABI lacks it */
    uint32_t fn_done[VDSO_NFN]; /* the `ret` a handled call resumes at */
};

/* `sysenter_fast`: __kernel_vsyscall uses sysenter (Intel) or, if false,
 * syscall (AMD), exactly as Linux patches its vDSO per CPU. */
void vdso_build(struct vdso_image *img, bool is64, bool sysenter_fast);

#endif
