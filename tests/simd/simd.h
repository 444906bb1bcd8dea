/* The differential SIMD test's case table (tests/simd/gen.py writes it,
 * simd.c runs it). */
#ifndef SIMD_H
#define SIMD_H

#include <stdint.h>

#define FL_MEM 1
#define FL_RIP 2
#define FL_RDI_MEM 4
#define FL_VSIB 8
#define FL_APPROX 16
#define FL_APPROX_SCALAR 32
#define FL_MODE_DEP 64
#define FL_MMX 128
#define FL_INVALID 256

struct simd_case {
    const char *key;   /* the form: see tests/simd/forms.py */
    const char *name;  /* the decoder's gen_* function */
    void (*fn)(void);
    unsigned flags;
    unsigned undef_flags; /* EFLAGS bits the instruction leaves undefined */
    unsigned idx_reg, idx_size; /* VSIB */
    unsigned approx_reg;
    const char *cpuid; /* the decoder's X86_FEAT_* name */
};

extern const struct simd_case simd_cases[];
extern const unsigned simd_ncases;

#endif
