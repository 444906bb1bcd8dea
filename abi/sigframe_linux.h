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

/* What the kernel writes into the FXSAVE image's software-reserved bytes
 * when the frame holds an XSAVE area (struct _fpx_sw_bytes), and the word
 * after the area that confirms it. */
#define FP_XSTATE_MAGIC1_LINUX 0x46505853u
#define FP_XSTATE_MAGIC2_LINUX 0x46505845u
#define FP_XSTATE_MAGIC2_SIZE_LINUX 4
struct fpx_sw_bytes_linux {
    uint32_t magic1;
    uint32_t extended_size; /* the whole area with MAGIC2 (ia32: and the FSAVE header) */
    uint64_t xfeatures;     /* the state components present: XCR0's */
    uint32_t xstate_size;   /* the XSAVE area, without MAGIC2 */
    uint32_t padding[7];
};

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
    uint8_t padding[48];
    struct fpx_sw_bytes_linux sw_reserved;
};

/* XCR0's state components (XFEATURE_MASK_*) */
#define XFEATURE_MASK_FP_LINUX 0x1u
#define XFEATURE_MASK_SSE_LINUX 0x2u
#define XFEATURE_MASK_YMM_LINUX 0x4u

/* The XSAVE area in the standard format, as far as x87, SSE and AVX
 * reach (struct xregs_state with the YMM component at its CPUID offset,
 * 576): XCR0 7 makes it 832 bytes, XCR0 3 stops at the header, 576. */
struct xstate_header_linux {
    uint64_t xfeatures; /* XSTATE_BV */
    uint64_t xcomp_bv;
    uint64_t reserved[6];
};

struct xsave_ymm_linux {
    struct fxregs_state_linux i387;
    struct xstate_header_linux header;
    uint8_t ymmh_space[16][16]; /* bits 255:128 of YMM0-15 */
};

/* The XSAVE area's size for the components in xcr0 (CPUID 0xd.0 EBX). */
static inline uint32_t xstate_size_linux(uint64_t xcr0)
{
    return xcr0 & XFEATURE_MASK_YMM_LINUX ? sizeof(struct xsave_ymm_linux)
                                          : offsetof(struct xsave_ymm_linux, ymmh_space);
}

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

_Static_assert(sizeof(struct fpx_sw_bytes_linux) == 48, "_fpx_sw_bytes");
_Static_assert(offsetof(struct fpx_sw_bytes_linux, xstate_size) == 16, "_fpx_sw_bytes.xstate_size");
_Static_assert(sizeof(struct fxregs_state_linux) == 512, "fxregs_state");
_Static_assert(offsetof(struct fxregs_state_linux, sw_reserved) == 464, "fxregs_state.sw_reserved");
_Static_assert(sizeof(struct xstate_header_linux) == 64, "xstate_header");
_Static_assert(offsetof(struct xsave_ymm_linux, header) == 512, "xregs_state.header");
_Static_assert(offsetof(struct xsave_ymm_linux, ymmh_space) == 576, "YMM component, CPUID 0xd.2 EBX");
_Static_assert(sizeof(struct xsave_ymm_linux) == 832, "XSAVE area for XCR0 7, CPUID 0xd.0 EBX");
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

/* AT_MINSIGSTKSZ (get_sigframe_size(), arch/x86/kernel/signal.c): the
 * largest frame a 64-bit kernel with IA-32 emulation may build, for either
 * ABI.  Its parts: struct sigframe_ia32, 736 bytes as that kernel's
 * compiler pads it to its 8-byte alignment (the 732 above plus 4); 15 of
 * frame alignment; the FPU state, which is the XSAVE area, MAGIC2 and an
 * FSAVE header (fpu__get_fpstate_size()); 63 of its alignment; all rounded
 * up to 16.  This host's kernel (XCR0 0xe7: 2432-byte area) says 3376,
 * which the same sum gives. */
static inline uint32_t min_sigstack_size_linux(uint64_t xcr0)
{
    uint32_t size = 736 + 15 + xstate_size_linux(xcr0) + FP_XSTATE_MAGIC2_SIZE_LINUX +
                    sizeof(struct fregs_state_linux) + 63;
    return (size + 15) & ~15u;
}

#endif
