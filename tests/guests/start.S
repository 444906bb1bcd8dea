/* _start for the freestanding C guests.  Ends with the plain exit call
 * (60 / ia32 1), never exit_group: exit is on the strict whitelist, so
 * "return n" from guest_main means "exit n" whether or not strict is on. */
#if defined(__x86_64__)
        .code64
        .text
        .globl _start
_start:
        xor     %ebp, %ebp
        mov     (%rsp), %rdi            /* argc */
        lea     8(%rsp), %rsi           /* argv */
        and     $-16, %rsp
        call    guest_main
        mov     %eax, %edi
        mov     $60, %eax
        syscall
        hlt
#else
        .code32
        .text
        .globl _start
_start:
        xor     %ebp, %ebp
        mov     (%esp), %eax            /* argc */
        lea     4(%esp), %edx           /* argv */
        and     $-16, %esp
        sub     $8, %esp
        push    %edx
        push    %eax
        call    guest_main
        mov     %eax, %ebx
        mov     $1, %eax
        int     $0x80
        hlt
#endif
        .section .note.GNU-stack,"",@progbits
