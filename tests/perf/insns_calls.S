/* A freestanding guest that executes an exact number of instructions with
 * a system call in every loop pass: 1 + 4 * LOOPS + 3 = 4 * LOOPS + 4, the
 * last being the exit call.  --max-insns counts blocks far from the limit
 * and single instructions near it; the trapped calls in between must not
 * make it lose or gain one. */
#ifndef LOOPS
#define LOOPS 100000
#endif
        .text
        .globl _start
_start:
        mov $LOOPS, %ebp
#if defined(__x86_64__)
1:      mov $39, %eax           /* getpid */
        syscall
        dec %ebp
        jnz 1b
        mov $60, %eax
        xor %edi, %edi
        syscall
#else
1:      mov $20, %eax           /* getpid */
        int $0x80
        dec %ebp
        jnz 1b
        mov $1, %eax
        xor %ebx, %ebx
        int $0x80
#endif
        hlt
        .section .note.GNU-stack,"",@progbits
