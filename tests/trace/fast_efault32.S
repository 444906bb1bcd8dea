/* The fast 32-bit entries take the 6th argument from the user stack before
 * the filter runs (do_fast_syscall_32); with that stack unreadable the call
 * answers -EFAULT without being checked, and the trace says so.  Which entry
 * is used: argv[1] "intel" (sysenter: the stack is ebp) or anything else
 * (AMD profile, 32-bit syscall: the stack is esp).  The kernel then
 * returns through the vDSO landing pad onto that unreadable stack, so the
 * program dies of SIGSEGV: only the trace line matters here. */
        .text
        .globl _start
_start:
        mov     8(%esp), %esi           /* argv[1] */
        mov     $4, %eax                /* write */
        mov     $1, %ebx
        mov     $msg, %ecx
        mov     $3, %edx
        cmpb    $'i', (%esi)
        jne     1f
        xor     %ebp, %ebp
        .globl  fast_sysenter
fast_sysenter:
        sysenter
1:      xor     %esp, %esp
        mov     $msg, %ebp              /* 32-bit syscall: arg 2 in ebp */
        .globl  fast_syscall32
fast_syscall32:
        syscall
        hlt
msg:    .ascii  "hi\n"
