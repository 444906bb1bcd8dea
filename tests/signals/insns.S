/* A freestanding guest that executes an exact number of instructions:
 * 1 + 2 * LOOPS + 3 = 2 * LOOPS + 4, the last being the exit call.  With
 * --max-insns at that number it exits 0; one fewer and the exit call is
 * never executed: SIGKILL. */
#ifndef LOOPS
#define LOOPS 1000
#endif
        .text
        .globl _start
_start:
        mov $LOOPS, %ecx
1:      dec %ecx
        jnz 1b
#if defined(__x86_64__)
        mov $60, %eax
        xor %edi, %edi
        syscall
#else
        mov $1, %eax
        xor %ebx, %ebx
        int $0x80
#endif
        hlt
        .section .note.GNU-stack,"",@progbits
