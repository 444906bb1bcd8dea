#!/usr/bin/env python3
"""The instruction forms of the engine's decoder, read from its table.

    forms.py DECODE_NEW_C_INC [--list] [--count]

QEMU 7.2's decoder (subprojects/unicorn/qemu/target/i386/decode-new.c.inc)
describes every SSE, AVX, AVX2, FMA, F16C, BMI and related instruction by a
table entry: operand types and sizes in the Intel SDM's notation, the
exception class, the prefixes it takes, the CPUID feature.  This module
reads those entries where they stand (the opcode arrays and the static
arrays of the decode_* functions) and expands each into the concrete
encodings the decoder accepts: legacy or VEX, each valid mandatory prefix,
register or memory operand, VEX.L and VEX.W.  tests/simd/gen.py turns the
forms into test cases; the count of forms is the denominator of the
coverage figure the test prints.

How a decode_* function picks among its arrays (by prefix, by ModRM.mod,
by ModRM.reg) is written down below, per function, because it is code,
not table; everything else comes from the file.
"""
import re
import sys
from dataclasses import dataclass, field, replace

PREFIXES = ['none', '66', 'f3', 'f2']


@dataclass
class Entry:
    name: str                 # the gen_* function, e.g. PADDB
    ops: list                 # [(type, size)] x 3: op0 (written), op1, op2
    imm: bool = False         # op3 = I,b
    special: str = ''         # mmx, zext0, zext2, avx_movx, xchg, i64, o64
    cpuid: str = 'None'
    vex_class: int = 0
    vex_special: str = ''     # unal, rep3, rep5, avx2_256
    valid_prefix: tuple = ()  # () = any
    lig: bool = False         # VEX.L ignored
    w0: bool = False          # VEX.W1 is #UD
    l0: bool = False          # VEX.L1 is #UD
    is_group: bool = False
    src: str = ''             # where in the file


def split_args(text):
    """Split a macro's argument list at top-level commas."""
    text = re.sub(r'/\*.*?\*/', '', text)
    args, depth, cur = [], 0, ''
    for ch in text:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            args.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        args.append(cur.strip())
    return args


def parse_flags(words):
    e = {}
    for w in words:
        m = re.match(r'cpuid\((\w+)\)', w)
        if m:
            e['cpuid'] = m.group(1)
            continue
        m = re.match(r'vex(\d+)(?:_(\w+))?$', w)
        if m:
            e['vex_class'] = int(m.group(1))
            if m.group(2):
                e['vex_special'] = m.group(2)
            continue
        if w == 'avx2_256':
            e['vex_special'] = 'avx2_256'
        elif w.startswith('p_'):
            e['valid_prefix'] = tuple('none' if p == '00' else p for p in w[2:].split('_'))
        elif w in ('lig', 'w0', 'l0'):
            e[w] = True
        elif w in ('mmx', 'zext0', 'zext2', 'avx_movx', 'xchg', 'i64', 'o64'):
            e['special'] = w
        elif w:
            raise ValueError('unknown flag ' + w)
    return e


def parse_entry(kind, args, src):
    """X86_OP_ENTRYn / X86_OP_GROUPn arguments -> Entry."""
    name = args[0]
    rest = args[1:]
    flags = []
    # the last argument holds the space-separated flags (may be empty)
    n_ops = {'3': 6, '4': 6, '2': 4, 'w': 2, 'r': 2, '0': 0}[kind[-1]]
    opargs = rest[:n_ops]
    if len(rest) > n_ops:
        flags = ' '.join(rest[n_ops:]).split()
    pairs = [(opargs[i], opargs[i + 1]) for i in range(0, len(opargs), 2)]
    none = ('None', 'None')
    k = kind[-1]
    if k in '34':
        ops = pairs
    elif k == '2':
        ops = [pairs[0], ('2op', pairs[0][1]), pairs[1]]
    elif k == 'w':
        ops = [pairs[0], none, none]
    elif k == 'r':
        ops = [none, none, pairs[0]]
    else:
        ops = [none, none, none]
    e = Entry(name=name, ops=ops, imm=(k == '4'), is_group=kind.startswith('GROUP'), src=src)
    for key, val in parse_flags(flags).items():
        setattr(e, key, val)
    return e


def read_tables(path):
    """Every entry in the file, keyed by the array it is in: {array: {index: Entry}}.
    2-D arrays get (row, col) indexes; single named entries get index None."""
    text = open(path).read()
    tables = {}
    array = None
    pos = 0
    row = None
    for lineno, line in enumerate(text.split('\n'), 1):
        s = line.strip()
        m = re.match(r'(?:static )?const X86OpEntry\s+(\w+)\s*(\[[^=]*\])?\s*=\s*\{', s)
        if m:
            array, pos, row = m.group(1), 0, None
            tables.setdefault(array, {})
            continue
        m = re.match(r'static const X86OpEntry\s*$', s)
        if m:
            array = '__named'
            continue
        m = re.match(r'(\w+)\s*=\s*X86_OP_(ENTRY\w|GROUP\w)\((.*)\)\s*[,;]', s)
        if m and array == '__named':
            tables.setdefault(m.group(1), {})[None] = parse_entry(
                m.group(2), split_args(m.group(3)), '%s:%d' % (path, lineno))
            continue
        if array is None:
            continue
        if s.startswith('};'):
            array = None
            continue
        m = re.match(r'\[(\w+)\]\s*=\s*\{\s*$', s)
        if m:
            row, pos = int(m.group(1), 0), 0
            continue
        if s.startswith('},') and row is not None:
            row = None
            continue
        m = re.match(r'(?:\[(\w+)\]\s*=\s*)?X86_OP_(ENTRY\w|GROUP\w)\((.*)\),?\s*(/\*.*)?$', s)
        if m:
            if m.group(1):
                pos = int(m.group(1), 0)
            e = parse_entry(m.group(2), split_args(m.group(3)), '%s:%d' % (path, lineno))
            tables[array][(row, pos) if row is not None else pos] = e
            pos += 1
            continue
        if s.startswith('{}'):
            pos += 1
    return tables


@dataclass
class Slot:
    """Where an entry sits in the opcode space."""
    map: str                      # '0f', '0f38', '0f3a'
    opcode: int
    prefix: tuple                 # mandatory prefixes that select it
    mod: str                      # 'reg', 'mem', 'any'
    reg: int = None               # ModRM.reg when it selects the entry
    entry: Entry = None
    vex_only_l: int = None        # VEX.L fixed by the decode function
    legacy: bool = True           # the slot exists without VEX
    vex: bool = True              # the slot exists with VEX


def by_prefix(tables, array, mapname, op, mod='any'):
    out = []
    for i, p in enumerate(PREFIXES):
        e = tables[array].get(i)
        if e:
            out.append(Slot(mapname, op, (p,), mod, entry=e))
    return out


def resolve(tables):
    """The decode_* functions' choices, as data (see the module comment)."""
    slots = []
    group_fns = {
        '0F10': lambda op: by_prefix(tables, 'opcodes_0F10_reg', '0f', op, 'reg') +
                           by_prefix(tables, 'opcodes_0F10_mem', '0f', op, 'mem'),
        '0F11': lambda op: by_prefix(tables, 'opcodes_0F11_reg', '0f', op, 'reg') +
                           by_prefix(tables, 'opcodes_0F11_mem', '0f', op, 'mem'),
        '0F12': lambda op: by_prefix(tables, 'opcodes_0F12_reg', '0f', op, 'reg') +
                           by_prefix(tables, 'opcodes_0F12_mem', '0f', op, 'mem'),
        '0F16': lambda op: by_prefix(tables, 'opcodes_0F16_reg', '0f', op, 'reg') +
                           by_prefix(tables, 'opcodes_0F16_mem', '0f', op, 'mem'),
        '0F2A': lambda op: by_prefix(tables, 'opcodes_0F2A', '0f', op),
        '0F2B': lambda op: by_prefix(tables, 'opcodes_0F2B', '0f', op),
        '0F2C': lambda op: by_prefix(tables, 'opcodes_0F2C', '0f', op),
        '0F2D': lambda op: by_prefix(tables, 'opcodes_0F2D', '0f', op),
        '0F5A': lambda op: by_prefix(tables, 'opcodes_0F5A', '0f', op),
        '0F5B': lambda op: by_prefix(tables, 'opcodes_0F5B', '0f', op),
        '0FE6': lambda op: by_prefix(tables, 'opcodes_0FE6', '0f', op),
        '0F6F': lambda op: by_prefix(tables, 'opcodes_0F6F', '0f', op),
        '0F70': lambda op: by_prefix(tables, 'pshufw', '0f', op),
        # EXTRQ xmm, imm8, imm8 is 66 0f 78 /0
        '0F78': lambda op: [replace(sl, reg=0) if sl.prefix == ('66',) else sl
                            for sl in by_prefix(tables, 'opcodes_0F78', '0f', op)],
        '0F7E': lambda op: by_prefix(tables, 'opcodes_0F7E', '0f', op),
        '0F7F': lambda op: by_prefix(tables, 'opcodes_0F7F', '0f', op),
        '0FD6': lambda op: by_prefix(tables, 'movq', '0f', op),
    }
    for op, e in sorted(tables['opcodes_0F'].items()):
        if e.name in ('0F38', '0F3A'):
            continue
        if not e.is_group:
            slots.append(Slot('0f', op, e.valid_prefix or ('none',), 'any', entry=e))
        elif e.name == '0F6x_punpckl':
            gen = {0x60: 'PUNPCKLBW', 0x61: 'PUNPCKLWD', 0x62: 'PUNPCKLDQ'}[op]
            slots.append(Slot('0f', op, e.valid_prefix, 'any',
                              entry=replace(e, name=gen, is_group=False)))
        elif e.name in group_fns:
            slots += group_fns[e.name](op)
        elif e.name in ('group12', 'group13', 'group14'):
            for reg, ge in tables['opcodes_' + e.name].items():
                slots.append(Slot('0f', op, ge.valid_prefix, 'reg', reg=reg, entry=ge))
        elif e.name == 'group15':
            for reg, ge in tables['group15_mem'].items():
                slots.append(Slot('0f', op, ('none',), 'mem', reg=reg, entry=ge, legacy=False))
        elif e.name == '0F77':
            slots.append(Slot('0f', op, ('none',), 'any', entry=replace(e, name='EMMS'),
                              vex=False))
            slots.append(Slot('0f', op, ('none',), 'any',
                              entry=replace(e, name='VZEROUPPER', vex_class=8),
                              vex_only_l=0, legacy=False))
            slots.append(Slot('0f', op, ('none',), 'any',
                              entry=replace(e, name='VZEROALL', vex_class=8),
                              vex_only_l=1, legacy=False))
        elif e.name == '0F79':
            slots.append(Slot('0f', op, ('f2',), 'reg', entry=replace(e, name='INSERTQ_r')))
            slots.append(Slot('0f', op, ('66',), 'reg', entry=replace(e, name='EXTRQ_r')))
        elif e.name == 'VxCOMISx':
            for p, size in (('none', 'ss'), ('66', 'sd')):
                ge = replace(e, name='VUCOMI' if op == 0x2e else 'VCOMI',
                             ops=[e.ops[0], (e.ops[1][0], size), (e.ops[2][0], size)])
                slots.append(Slot('0f', op, (p,), 'any', entry=ge))
        elif e.name == 'sse_unary':
            gen = {0x51: 'VSQRT', 0x52: 'VRSQRT', 0x53: 'VRCP'}[op]
            for p in e.valid_prefix:
                ops = e.ops if p in ('f3', 'f2') else [e.ops[0], ('None', 'None'), e.ops[2]]
                slots.append(Slot('0f', op, (p,), 'any', entry=replace(e, name=gen, ops=ops)))
        else:
            raise ValueError('no rule for group ' + e.name)
    for op, e in sorted(tables['opcodes_0F38_00toEF'].items()):
        slots.append(Slot('0f38', op, e.valid_prefix or ('none',), 'any', entry=e))
    rows = {0: ('none',), 1: ('66',), 2: ('f3',), 3: ('f2',), 4: ('66', 'f2')}
    for (row, col), e in sorted(tables['opcodes_0F38_F0toFF'].items()):
        op = 0xf0 + row
        if e.is_group and e.name == 'group17':
            for reg, gen in ((1, 'BLSR'), (2, 'BLSMSK'), (3, 'BLSI')):
                slots.append(Slot('0f38', op, rows[col], 'any', reg=reg,
                                  entry=replace(e, name=gen, is_group=False)))
        else:
            slots.append(Slot('0f38', op, rows[col], 'any', entry=e))
    for op, e in sorted(tables['opcodes_0F3A'].items()):
        if e.is_group and e.name == 'VINSERTPS':
            slots.append(Slot('0f3a', op, ('66',), 'reg', entry=tables['vinsertps_reg'][None]))
            slots.append(Slot('0f3a', op, ('66',), 'mem', entry=tables['vinsertps_mem'][None]))
        else:
            slots.append(Slot('0f3a', op, e.valid_prefix or ('none',), 'any', entry=e))
    return slots


@dataclass
class Form:
    """One encoding the decoder accepts (or, for a few, is meant to refuse)."""
    slot: Slot
    prefix: tuple
    vex: bool
    L: int
    W: int
    mod: str          # 'reg' or 'mem'
    mmx: bool         # MMX registers (no mandatory prefix, mmx special)

    @property
    def e(self):
        return self.slot.entry

    def key(self):
        s = self.slot
        return '%s-%s-%02x%s-%s-%s-L%d-W%d' % (
            'vex' if self.vex else 'leg', s.map, s.opcode,
            '/%d' % s.reg if s.reg is not None else '', '+'.join(self.prefix), self.mod,
            self.L, self.W)


REG_ONLY = {'U', 'N', 'R'}
MEM_ONLY = {'M', 'WM'}
RM_TYPES = {'E', 'W', 'Q', 'U', 'N', 'R', 'M', 'WM'}


def mod_choices(slot):
    types = [t for t, _ in slot.entry.ops]
    if slot.mod != 'any':
        return [slot.mod]
    if any(t in REG_ONLY for t in types):
        return ['reg']
    if any(t in MEM_ONLY for t in types):
        return ['mem']
    if any(t in RM_TYPES for t in types):
        return ['reg', 'mem']
    return ['reg']  # no ModRM r/m operand: the byte still follows


def sizes(e):
    return [s for _, s in e.ops]


def vex_lengths(slot, prefix):
    """Both VEX.L values, whatever the operand sizes say: a 128-bit-only form
    must refuse L=1, a scalar one (VEX.LIG) must ignore it, and the CPU
    judges which is which."""
    if slot.vex_only_l is not None:
        return [slot.vex_only_l]
    return [0, 1]


# VEX.W selects the element or operand size for these; elsewhere it is
# ignored (WIG) or must be 0, and both values are encoded anyway.
def expand(slots):
    forms = []
    for slot in slots:
        e = slot.entry
        for prefix in ([slot.prefix] if len(slot.prefix) > 1 and slot.map == '0f38' and
                       slot.opcode >= 0xf0 else [(p,) for p in slot.prefix]):
            for mod in mod_choices(slot):
                mmx = e.special == 'mmx' and prefix == ('none',)
                if slot.legacy and e.vex_class in (0, 1, 2, 3, 4, 5, 7):
                    ws = [0, 1] if any(s == 'y' for s in sizes(e)) else [0]
                    for w in ws:
                        forms.append(Form(slot, prefix, False, 0, w, mod, mmx))
                if slot.vex and e.vex_class != 0 and e.cpuid not in ('3DNOW', 'SSE4A') \
                        and '66' not in prefix[1:]:
                    for L in vex_lengths(slot, prefix):
                        for w in (0, 1):
                            forms.append(Form(slot, prefix, True, L, w, mod, mmx))
    return forms


def load(path):
    return expand(resolve(read_tables(path)))


if __name__ == '__main__':
    forms = load(sys.argv[1])
    if '--list' in sys.argv:
        for f in forms:
            print(f.key(), f.e.name, f.e.cpuid, 'class%d' % f.e.vex_class, f.e.vex_special)
    print('%d forms (%d legacy, %d VEX) from %d table entries' % (
        len(forms), sum(not f.vex for f in forms), sum(f.vex for f in forms),
        len({id(f.slot.entry) for f in forms})))
