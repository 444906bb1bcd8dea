/* The smallest strict-mode guest, no C at all: enter strict mode with
 * prctl(PR_SET_SECCOMP, 1), write one line, exit 0.  Meant as the first
 * thing the emulator runs.  Built for both ABIs from this one file. */
#if defined(__x86_64__)
        .code64
        .text
        .globl _start
_start:
        mov     $157, %eax              /* prctl */
        mov     $22, %edi               /* PR_SET_SECCOMP */
        mov     $1, %esi                /* SECCOMP_MODE_STRICT */
        syscall
        mov     $1, %eax                /* write(1, msg, len) */
        mov     $1, %edi
        lea     msg(%rip), %rsi
        mov     $len, %edx
        syscall
        mov     $60, %eax               /* exit(0) */
        xor     %edi, %edi
        syscall
        hlt
#else
        .code32
        .text
        .globl _start
_start:
        mov     $172, %eax              /* prctl */
        mov     $22, %ebx
        mov     $1, %ecx
        int     $0x80
        mov     $4, %eax                /* write(1, msg, len) */
        mov     $1, %ebx
        mov     $msg, %ecx
        mov     $len, %edx
        int     $0x80
        mov     $1, %eax                /* exit(0) */
        xor     %ebx, %ebx
        int     $0x80
        hlt
#endif
        .data
msg:    .ascii  "hello from strict mode\n"
        .set    len, . - msg
        .section .note.GNU-stack,"",@progbits
