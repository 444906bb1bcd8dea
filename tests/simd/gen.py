#!/usr/bin/env python3
"""Test cases, one per instruction form of the engine's decoder.

    gen.py DECODE_NEW_C_INC MODE OUT.c

MODE is 64 (every form, all sixteen registers, REX and RIP-relative
operands), 32 (the forms an i386 program can encode: registers 0-7, no
REX) or 64x32 (the 32 list's bytes, built as a 64-bit program: the native
CPU runs it here, where no i386 program runs, and judges the 32 leg; forms
whose meaning differs between the modes are marked and left out there).

Each case is one instruction, encoded here byte by byte (tests/simd/forms.py
gives the forms), between a load of the whole register state and a store of
it (simd.c).  Registers are drawn at random from a seed fixed per form, so
the output never changes between builds; a memory operand is [rbx] (and
[rip+disp] in 64-bit mode), pointed by simd.c at each placement.
"""
import random
import sys
import zlib

sys.path.insert(0, __import__('os').path.dirname(__file__))
import forms as F  # noqa: E402

# Case flags, shared with simd.c
FL_MEM = 1          # has a memory operand ([rbx])
FL_RIP = 2          # the memory operand is RIP-relative (fixed placement)
FL_RDI_MEM = 4      # MASKMOVQ/MASKMOVDQU: the store goes to [rdi]
FL_VSIB = 8         # gather: VSIB index register in idx_reg, elements of idx_size
FL_APPROX = 16      # RCP/RSQRT: the destination is compared within 1.5 * 2^-12
FL_APPROX_SCALAR = 32
FL_MODE_DEP = 64    # means something else in 64- and 32-bit mode (64x32 skips it)
FL_MMX = 128        # uses MMX registers
FL_INVALID = 256    # an encoding the decoder must refuse (VEX.vvvv not 1111)

# Flags an instruction leaves undefined: not compared.
CF, PF, AF, ZF, SF, OF = 1, 4, 0x10, 0x40, 0x80, 0x800
UNDEF_FLAGS = {
    'ANDN': AF | PF, 'BEXTR': AF | SF | PF, 'BLSI': AF | PF, 'BLSMSK': AF | PF,
    'BLSR': AF | PF, 'BZHI': AF | PF,
}

GPR64 = [0, 1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]   # not rbx (the base), rsp, rbp
GPR32 = [0, 1, 2, 6, 7]
MAP_BYTES = {'0f': [0x0f], '0f38': [0x0f, 0x38], '0f3a': [0x0f, 0x3a]}
MMMMM = {'0f': 1, '0f38': 2, '0f3a': 3}
PP = {'none': 0, '66': 1, 'f3': 2, 'f2': 3}
LEG_PREFIX = {'none': [], '66': [0x66], 'f3': [0xf3], 'f2': [0xf2]}

IS4 = {'VBLENDVPS', 'VBLENDVPD', 'VPBLENDVB'}   # imm8[7:4] is a register
VEC_TYPES = {'V', 'H', 'W', 'U', 'WM'}
MMX_TYPES = {'P', 'N', 'Q'}
GPR_TYPES = {'E', 'G', 'B', 'R'}


class Case:
    def __init__(self, form, key, code, flags, undef=0, idx_reg=0, idx_size=0, approx_reg=0,
                 imm_len=0):
        self.form, self.key, self.code, self.flags = form, key, code, flags
        self.undef, self.idx_reg, self.idx_size, self.approx_reg = undef, idx_reg, idx_size, approx_reg
        self.imm_len = imm_len


def mode_dependent(form):
    """Operand size from VEX.W or REX.W: 64-bit in 64-bit mode, 32 otherwise."""
    return form.W == 1 and any(s == 'y' for _, s in form.e.ops)


def uses_vvvv(e, vex):
    return vex and any(t in ('H', 'B') for t, _ in e.ops) or e.name == 'MULX'


def encode(form, mode, rng, rip=False, bad_vvvv=False):
    """The instruction's bytes (with a 'RIP' marker for the disp32) and the case's facts."""
    e = form.e
    slot = form.slot
    is64 = mode == 64
    nvec = 16 if is64 else 8
    gprs = GPR64 if is64 else GPR32
    mmx = form.mmx
    types = [t for t, _ in e.ops]
    vsib = e.vex_class == 12

    def vreg():
        return rng.randrange(nvec)

    reg = rm = vvvv = None
    chosen = {}
    # ModRM.reg
    for t, _ in e.ops:
        if t == 'V':
            reg = rng.randrange(8) if mmx else vreg()
        elif t == 'G':
            reg = rng.choice(gprs)
        elif t == 'P':
            reg = rng.randrange(8)
    if slot.reg is not None:
        reg = slot.reg
    # ModRM.rm
    has_rm = any(t in F.RM_TYPES for t in types)
    if form.mod == 'reg' and has_rm:
        for t in types:
            if t in ('W', 'U'):
                rm = rng.randrange(8) if mmx else vreg()
            elif t in ('N', 'Q'):
                rm = rng.randrange(8)
            elif t in ('E', 'R'):
                rm = rng.choice(gprs)
    # VEX.vvvv
    if form.vex and uses_vvvv(e, form.vex):
        if 'B' in types or e.name == 'MULX':
            vvvv = rng.choice(gprs)
        else:
            vvvv = vreg()
    # aliasing now and then
    if rng.random() < 0.25 and reg is not None and rm is not None and not vsib \
            and 'G' not in types and 'E' not in types:
        rm = reg
    if rng.random() < 0.2 and vvvv is not None and reg is not None and 'B' not in types:
        vvvv = reg
    idx = None
    if vsib:
        # dest (V), mask (H) and index must differ, or it is #UD
        regs = rng.sample(range(nvec), 3)
        reg, vvvv, idx = regs
    if bad_vvvv:
        vvvv = rng.randrange(1, nvec)
    has_modrm = has_rm or reg is not None or slot.reg is not None
    if has_modrm and reg is None:
        reg = 0
    # ModRM and what follows
    tail = []
    if has_modrm:
        if form.mod == 'reg':
            tail.append(0xc0 | (reg & 7) << 3 | (rm or 0) & 7)
        elif vsib:
            scale = rng.randrange(4)
            tail += [0x00 | (reg & 7) << 3 | 4, scale << 6 | (idx & 7) << 3 | 3]
        elif rip:
            tail += [0x00 | (reg & 7) << 3 | 5, 'RIP']
        else:
            tail.append(0x00 | (reg & 7) << 3 | 3)     # [rbx]
    imm_len = 0
    if e.imm or any(t == 'I' for t in types):
        size = [s for t, s in e.ops if t == 'I']
        imm_len = 2 if size == ['w'] else 1
        tail += [rng.randrange(256) for _ in range(imm_len)]
        if e.name in IS4 and not is64:
            # imm8[7:4] names a register; imm8[7], which 64-bit mode
            # reads and 32-bit mode ignores, stays clear so that the
            # native 64x32 leg and the i386 leg read the same register
            tail[-1] &= 0x7f
    R = (reg or 0) >> 3 if (reg is not None and not mmx and 'P' not in types) else 0
    if reg is not None and 'G' in types:
        R = reg >> 3
    B = (rm or 0) >> 3 if (rm is not None and form.mod == 'reg' and 'N' not in types
                            and 'Q' not in types and not mmx) else 0
    X = (idx >> 3) if idx is not None else 0
    code = []
    if form.vex:
        pp = PP[form.prefix[-1]] if form.prefix != ('66', 'f2') else PP['f2']
        vv = (~(vvvv or 0)) & 15
        if form.slot.map == '0f' and form.W == 0 and not X and not B and rng.random() < 0.7:
            code = [0xc5, ((~R & 1) << 7) | vv << 3 | form.L << 2 | pp]
        else:
            code = [0xc4, ((~R & 1) << 7) | ((~X & 1) << 6) | ((~B & 1) << 5) | MMMMM[form.slot.map],
                    form.W << 7 | vv << 3 | form.L << 2 | pp]
        if form.prefix == ('66', 'f2'):
            code = [0x66] + code   # not encodable: 66 before VEX is #UD
    else:
        for p in form.prefix:
            code += LEG_PREFIX[p]
        rex = (form.W << 3) | (R << 2) | (X << 1) | B
        if rex:
            if not is64:
                raise ValueError('REX in 32-bit mode')
            code.append(0x40 | rex)
    if not form.vex:
        code += MAP_BYTES[form.slot.map]
    code.append(form.slot.opcode)
    code += tail
    flags = 0
    if form.mod == 'mem' and has_rm:
        flags |= FL_MEM
    if rip:
        flags |= FL_RIP
    if e.name == 'MASKMOV':
        flags |= FL_RDI_MEM
    if vsib:
        flags |= FL_VSIB
    if mmx or any(t in MMX_TYPES for t in types) or e.name in ('CVTPI2Px', 'CVTPx2PI', 'CVTTPx2PI',
                                                                'MOVq_dq', 'EMMS', '3dnow'):
        flags |= FL_MMX
    if mode_dependent(form):
        flags |= FL_MODE_DEP
    if bad_vvvv:
        flags |= FL_INVALID
    approx = 0
    if e.name in ('VRCP', 'VRSQRT'):
        flags |= FL_APPROX | (FL_APPROX_SCALAR if form.prefix == ('f3',) else 0)
        approx = reg
    idx_size = 0
    if vsib:
        idx_size = 4 if form.slot.opcode in (0x90, 0x92) else 8
    if e.name == 'MASKMOV':
        idx = rm    # the mask register
    return code, flags, idx or 0, idx_size, approx, imm_len


def cases(path, mode):
    """mode: 64, or 32 (the i386 list, also built as 64x32)."""
    out = []
    for form in F.load(path):
        e = form.e
        if mode != 64:
            if not form.vex and form.W:
                continue           # REX.W
        key = form.key()
        rng = random.Random(zlib.crc32(('%s/%s' % (key, mode)).encode()))
        variants = [(False, False)]
        if form.mod == 'mem' and mode == 64 and e.vex_class != 12 and e.name != 'MASKMOV':
            variants.append((True, False))
        if form.vex and not uses_vvvv(e, True) and e.vex_class != 12:
            variants.append((False, True))
        for rip, bad in variants:
            code, flags, idx, idx_size, approx, imm_len = encode(form, mode, rng, rip, bad)
            name = key + ('-rip' if rip else '') + ('-vvvv' if bad else '')
            out.append(Case(form, name, code, flags, UNDEF_FLAGS.get(e.name, 0), idx, idx_size,
                            approx, imm_len))
    return out


def requirements(form):
    """CPUID features the form needs, as simd.c names them."""
    e = form.e
    req = [] if e.cpuid == 'None' else [e.cpuid]
    if form.vex and e.vex_class != 13:
        req.append('AVX')
        if form.L and e.vex_special == 'avx2_256':
            req.append('AVX2')
        if form.L and e.cpuid == 'AES':
            req.append('VAES')
        if form.L and e.cpuid == 'PCLMULQDQ':
            req.append('VPCLMULQDQ')
    return ','.join(dict.fromkeys(req))


def asm_bytes(c):
    parts = []
    for i, b in enumerate(c.code):
        if b == 'RIP':
            # disp32 to simd_rip_target, from the end of the instruction
            parts.append('.long simd_rip_target - (. + 4 + %d)' % c.imm_len)
        else:
            parts.append('.byte 0x%02x' % b)
    return '; '.join(parts)


def emit(path, mode, out):
    cs = cases(path, 64 if mode == '64' else 32)
    w = open(out, 'w')
    w.write('/* Generated by tests/simd/gen.py from decode-new.c.inc: do not edit. */\n')
    w.write('#include "simd.h"\n\n')
    w.write('__asm__(".text\\n"\n')
    for i, c in enumerate(cs):
        w.write('    ".globl simd_case_%d\\n simd_case_%d: call simd_load\\n"\n' % (i, i))
        w.write('    "simd_insn_%d: %s\\n"\n' % (i, asm_bytes(c)))
        w.write('    "call simd_store\\n ret\\n"\n')
    w.write(');\n\n')
    for i in range(len(cs)):
        w.write('extern void simd_case_%d(void);\n' % i)
    w.write('\nconst struct simd_case simd_cases[] = {\n')
    for i, c in enumerate(cs):
        w.write('    { "%s", "%s", simd_case_%d, %d, 0x%x, %d, %d, %d, "%s" },\n' % (
            c.key, c.form.e.name, i, c.flags, c.undef, c.idx_reg, c.idx_size, c.approx_reg,
            requirements(c.form)))
    w.write('};\nconst unsigned simd_ncases = %d;\n' % len(cs))
    w.close()


if __name__ == '__main__':
    m = sys.argv[2]
    if m not in ('64', '32', '64x32'):
        sys.exit('gen.py: MODE is 64, 32 or 64x32')
    emit(sys.argv[1], m, sys.argv[3])
