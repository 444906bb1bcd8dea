/* Signal frames as Linux lays them out on the user stack, field for field:
 * arch/x86/include/uapi/asm/sigcontext.h, asm/sigframe.h, asm/ucontext.h
 * and asm/fpu/types.h.  Sizes and offsets are checked at build time against
 * the kernel's, so a field added in the wrong place fails the build rather
 * than a guest's handler.  The structures are the guest's bytes in the
 * host's order, which is why the host must be little-endian. */
#ifndef ABI_SIGFRAME_LINUX_H
#define ABI_SIGFRAME_LINUX_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "guest structures are laid over host memory: a little-endian host is required"
#endif

#define SIGINFO_SIZE_LINUX 128

/* The FXSAVE image (struct fxregs_state), 64-bit form: FIP and FDP whole,
 * as a 64-bit kernel saves them for compat tasks too. */
struct fxregs_state_linux {
    uint16_t cwd, swd;
    uint16_t twd; /* the abridged tag: one bit per register, in the low byte */
    uint16_t fop;
    uint64_t rip, rdp;
    uint32_t mxcsr, mxcsr_mask;
    uint8_t st_space[8][16]; /* 80-bit registers in 16-byte slots */
    uint8_t xmm_space[16][16];
    uint8_t padding[96];
};

/* The FSAVE header an ia32 frame's fpstate points at (struct fregs_state
 * plus status and magic: the first 112 bytes of struct _fpstate_32). */
struct fregs_state_linux {
    uint32_t cwd, swd, twd, fip, fcs, foo, fos;
    uint8_t st_space[8][10];
    uint16_t status, magic; /* magic 0: FXSAVE data follows */
};

/* x86_64 */
struct sigcontext_64_linux {
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
    uint64_t di, si, bp, bx, dx, ax, cx, sp, ip, flags;
    uint16_t cs, gs, fs, ss;
    uint64_t err, trapno, oldmask, cr2;
    uint64_t fpstate; /* the FXSAVE image's address */
    uint64_t reserved1[8];
};

struct stack_64_linux {
    uint64_t ss_sp;
    int32_t ss_flags;
    uint32_t pad;
    uint64_t ss_size;
};

struct ucontext_64_linux {
    uint64_t uc_flags, uc_link;
    struct stack_64_linux uc_stack;
    struct sigcontext_64_linux uc_mcontext;
    uint64_t uc_sigmask;
};

struct rt_sigframe_64_linux {
    uint64_t pretcode; /* the restorer: SA_RESTORER is mandatory */
    struct ucontext_64_linux uc;
    uint8_t info[SIGINFO_SIZE_LINUX];
};

/* ia32 */
struct sigcontext_32_linux {
    uint16_t gs, gsh, fs, fsh, es, esh, ds, dsh;
    uint32_t di, si, bp, sp, bx, dx, cx, ax;
    uint32_t trapno, err, ip;
    uint16_t cs, csh;
    uint32_t flags, sp_at_signal;
    uint16_t ss, ssh;
    uint32_t fpstate, oldmask, cr2;
};

struct stack_ia32_linux {
    uint32_t ss_sp;
    int32_t ss_flags;
    uint32_t ss_size;
};

struct ucontext_ia32_linux {
    uint32_t uc_flags, uc_link;
    struct stack_ia32_linux uc_stack;
    struct sigcontext_32_linux uc_mcontext;
    uint32_t uc_sigmask[2];
};

struct sigframe_ia32_linux {
    uint32_t pretcode;
    int32_t sig;
    struct sigcontext_32_linux sc;
    uint8_t fpstate_unused[624]; /* struct _fpstate_32: the state follows the frame */
    uint32_t extramask;          /* the mask's upper word */
    uint8_t retcode[8];
};

struct rt_sigframe_ia32_linux {
    uint32_t pretcode;
    int32_t sig;
    uint32_t pinfo, puc;
    uint8_t info[SIGINFO_SIZE_LINUX];
    struct ucontext_ia32_linux uc;
    uint8_t retcode[8];
};

_Static_assert(sizeof(struct fxregs_state_linux) == 512, "fxregs_state");
_Static_assert(offsetof(struct fxregs_state_linux, mxcsr) == 24, "fxregs_state.mxcsr");
_Static_assert(offsetof(struct fxregs_state_linux, st_space) == 32, "fxregs_state.st_space");
_Static_assert(offsetof(struct fxregs_state_linux, xmm_space) == 160, "fxregs_state.xmm_space");
_Static_assert(sizeof(struct fregs_state_linux) == 112, "fregs_state + status, magic");
_Static_assert(offsetof(struct fregs_state_linux, st_space) == 28, "fregs_state.st_space");

_Static_assert(sizeof(struct sigcontext_64_linux) == 256, "sigcontext_64");
_Static_assert(offsetof(struct sigcontext_64_linux, ip) == 128, "sigcontext_64.ip");
_Static_assert(offsetof(struct sigcontext_64_linux, cs) == 144, "sigcontext_64.cs");
_Static_assert(offsetof(struct sigcontext_64_linux, err) == 152, "sigcontext_64.err");
_Static_assert(offsetof(struct sigcontext_64_linux, fpstate) == 184, "sigcontext_64.fpstate");
_Static_assert(sizeof(struct ucontext_64_linux) == 304, "ucontext");
_Static_assert(offsetof(struct ucontext_64_linux, uc_mcontext) == 40, "ucontext.uc_mcontext");
_Static_assert(offsetof(struct ucontext_64_linux, uc_sigmask) == 296, "ucontext.uc_sigmask");
_Static_assert(offsetof(struct rt_sigframe_64_linux, info) == 312, "rt_sigframe.info");
_Static_assert(sizeof(struct rt_sigframe_64_linux) == 440, "rt_sigframe");

_Static_assert(sizeof(struct sigcontext_32_linux) == 88, "sigcontext_32");
_Static_assert(offsetof(struct sigcontext_32_linux, trapno) == 48, "sigcontext_32.trapno");
_Static_assert(offsetof(struct sigcontext_32_linux, ss) == 72, "sigcontext_32.ss");
_Static_assert(offsetof(struct sigcontext_32_linux, cr2) == 84, "sigcontext_32.cr2");
_Static_assert(sizeof(struct ucontext_ia32_linux) == 116, "ucontext_ia32");
_Static_assert(offsetof(struct ucontext_ia32_linux, uc_sigmask) == 108, "ucontext_ia32.uc_sigmask");
_Static_assert(offsetof(struct sigframe_ia32_linux, extramask) == 720, "sigframe_ia32.extramask");
_Static_assert(sizeof(struct sigframe_ia32_linux) == 732, "sigframe_ia32");
_Static_assert(offsetof(struct rt_sigframe_ia32_linux, uc) == 144, "rt_sigframe_ia32.uc");
_Static_assert(sizeof(struct rt_sigframe_ia32_linux) == 268, "rt_sigframe_ia32");

#endif
