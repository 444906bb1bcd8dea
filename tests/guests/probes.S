/* Hand-built signal frames and the vDSO-style 32-bit fast entries.
 *
 * sigreturn_probe(frame, out): fills a zeroed frame with the caller's own
 * callee-saved registers, a resume address and marker values, points the
 * stack at it and calls rt_sigreturn (x86_64, 15) or sigreturn (ia32, 119).
 * If the call is honoured, execution resumes at 1: with the marker values
 * in the scratch registers, which are stored to out[] for the guest to
 * print.  The layouts are the Linux ABI's (uapi asm/sigcontext.h):
 *   x86_64: rsp -> struct ucontext (sigcontext at +40, 304 bytes in all).
 *   ia32:   esp -> struct sigcontext_32 (88 bytes), kernel frame = esp - 8.
 * Segment selectors are read from the CPU rather than hard-coded, so the
 * frame is valid for whatever selectors the (emulated) kernel hands out. */
#if defined(__x86_64__)
        .code64
        .text
        .globl sigreturn_probe
sigreturn_probe:                        /* rdi = ucontext, rsi = out[9] */
        push    %rbx
        push    %rbp
        push    %r12
        push    %r13
        push    %r14
        push    %r15
        mov     %r12, 72(%rdi)
        mov     %r13, 80(%rdi)
        mov     %r14, 88(%rdi)
        mov     %r15, 96(%rdi)
        mov     %rsi, 112(%rdi)         /* rsi: out comes back here */
        mov     %rbp, 120(%rdi)
        mov     %rbx, 128(%rdi)
        mov     %rsp, 160(%rdi)
        lea     1f(%rip), %rax
        mov     %rax, 168(%rdi)         /* rip */
        movabs  $0x1111111111111111, %rax
        mov     %rax, 144(%rdi)         /* rax */
        movabs  $0x2222222222222222, %rax
        mov     %rax, 104(%rdi)         /* rdi */
        movabs  $0x3333333333333333, %rax
        mov     %rax, 136(%rdi)         /* rdx */
        movabs  $0x4444444444444444, %rax
        mov     %rax, 56(%rdi)          /* r10 */
        movabs  $0x5555555555555555, %rax
        mov     %rax, 40(%rdi)          /* r8 */
        movabs  $0x6666666666666666, %rax
        mov     %rax, 48(%rdi)          /* r9 */
        movabs  $0x7777777777777777, %rax
        mov     %rax, 152(%rdi)         /* rcx: IRET path must restore it */
        movabs  $0x8888888888888888, %rax
        mov     %rax, 64(%rdi)          /* r11: likewise */
        movq    $0x203, 176(%rdi)       /* eflags: IF and CF */
        mov     %cs, %ax
        mov     %ax, 184(%rdi)
        mov     %ss, %ax
        mov     %ax, 190(%rdi)
        movl    $2, 24(%rdi)            /* uc_stack.ss_flags = SS_DISABLE */
        mov     %rdi, %rsp
        mov     $15, %eax
        syscall
        ud2
1:      mov     %rax, 0(%rsi)
        mov     %rdi, 8(%rsi)
        mov     %rdx, 16(%rsi)
        mov     %r10, 24(%rsi)
        mov     %r8, 32(%rsi)
        mov     %r9, 40(%rsi)
        mov     %rcx, 48(%rsi)
        mov     %r11, 56(%rsi)
        pushfq
        pop     %rax
        and     $0xcd5, %rax            /* arithmetic flags and DF */
        mov     %rax, 64(%rsi)
        pop     %r15
        pop     %r14
        pop     %r13
        pop     %r12
        pop     %rbp
        pop     %rbx
        ret
#else
        .code32
        .text
        .globl sigreturn_probe
sigreturn_probe:                        /* cdecl (sigcontext_32 *sc, u32 out[4]) */
        push    %ebp
        push    %ebx
        push    %esi
        push    %edi
        mov     20(%esp), %eax
        mov     24(%esp), %esi
        mov     %gs, %cx
        mov     %cx, 0(%eax)
        mov     %fs, %cx
        mov     %cx, 4(%eax)
        mov     %es, %cx
        mov     %cx, 8(%eax)
        mov     %ds, %cx
        mov     %cx, 12(%eax)
        mov     %edi, 16(%eax)
        mov     %esi, 20(%eax)          /* esi: out comes back here */
        mov     %ebp, 24(%eax)
        mov     %esp, 28(%eax)
        mov     %ebx, 32(%eax)
        movl    $0x33333333, 36(%eax)   /* edx */
        movl    $0x77777777, 40(%eax)   /* ecx */
        movl    $0x11111111, 44(%eax)   /* eax */
        movl    $1f, 56(%eax)           /* eip */
        mov     %cs, %cx
        mov     %cx, 60(%eax)
        movl    $0x203, 64(%eax)        /* eflags: IF and CF */
        mov     %ss, %cx
        mov     %cx, 72(%eax)
        mov     %eax, %esp
        mov     $119, %eax
        int     $0x80
        ud2
1:      mov     %eax, 0(%esi)
        mov     %edx, 4(%esi)
        mov     %ecx, 8(%esi)
        pushf
        pop     %eax
        and     $0xcd5, %eax
        mov     %eax, 12(%esi)
        pop     %edi
        pop     %esi
        pop     %ebx
        pop     %ebp
        ret

/* The __kernel_vsyscall convention for the fast 32-bit entries.  The
 * kernel returns from both to the vDSO's int80 landing pad, which pops
 * ebp, edx, ecx and returns to our caller; so these must be called, and
 * the instruction after the entry is never reached. */
        .globl vsys_sysenter
vsys_sysenter:
        push    %ecx
        push    %edx
        push    %ebp
        mov     %esp, %ebp
        sysenter
        ud2
        .globl vsys_syscall32
vsys_syscall32:
        push    %ecx
        push    %edx
        push    %ebp
        mov     %ecx, %ebp              /* syscall clobbers ecx: arg2 in ebp */
        syscall
        ud2
#endif
        .section .note.GNU-stack,"",@progbits
