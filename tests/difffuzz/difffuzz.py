#!/usr/bin/env python3
"""Differential fuzzing of seccomp-emu against the kernel (issue 25).

Generates op lists for the interpreter guest (interp.c: difffuzz32 and
difffuzz64), runs each natively on this host and under seccomp-emu, and
compares stdout, stderr and the raw wait status byte for byte.  Any
difference is minimised (delta debugging over the ops) and reported; one
that known.txt pins (with its evidence) is counted but does not fail.

  difffuzz.py --emu E --guest32 G32 --guest64 G64 run SECONDS [--seed N]
              [--save DIR]      fuzz for SECONDS; exit 1 on an unpinned diff
  difffuzz.py ... check FILE... replay corpus cases (ABI line, program line,
                                and optionally "needs: ldt ia32 exact": exact
                                cases must agree even where known.txt pins)
  difffuzz.py ... show ABI PROG  print both runs of one program
  --emu-arg ARG                 an option for seccomp-emu's runs (repeatable)
"""
import argparse
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import runs_i386  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# Value pools.  Pointers: 'aN' is the guest's arena (RW 0..0xffff; the
# first half 'in' is never written by calls, the second half 'out' is;
# 0x10000 one read-only page; 0x11000 a hole), t text, z a string.
IN_PTR = ['a0', 'a16', 'a0x100', 'a0x7ff0', 'a0x10000', 'a0x10ff0', 'a0x11000', 'a0xfff',
          '0', '1', '-1', 't', 'z']
OUT_PTR = ['a0x8000', 'a0x8008', 'a0xc000', 'a0xfff0', 'a0xfffc', 'a0x10000', 'a0x10ff8',
           'a0x11000', '0', '1', '-1', 't', 'z', '0x1000']
TOP = {'64': ['0x7ffffffff000', '0x7fffffffffff', '0x800000000000', '0xffff800000000000',
              '0xfffffffffffff000', '0x7ffffffffff8'],
       '32': ['0xbffff000', '0xfffff000', '0xffffe000', '0xfffffffc', '0x7ffff000']}
MEM = ['a0', 'a0x8000', 'a0xf000', 'a0x10000', 'a0x11000', 'a0x12000', 'a1', '0',
       '0x30000000', '0x1000']
LENS = ['0', '1', '2', '7', '8', '16', '64', '4095', '4096', '4097', '0x7ffff000',
        '0x7fffffff', '0x80000000', '0xffffffff', '-1', '-4096']
LENS64 = ['0x100000000', '0x7fffffffffffffff']
INTS = ['0', '1', '-1', '2', '3', '4', '5', '0x7fffffff', '0x80000000', '0xffffffff', '-100',
        '0x40', '0x80', '0x100']
FDS = ['0', '1', '2', '3', '4', '5', '-1', '1023', '1024', '0x7fffffff', '-100', '100']
NEWFDS = ['3', '4', '5', '7', '-1', '1023', '1024', '0x7fffffff', '100', '0']  # never 1, 2
SIGS = ['0', '1', '2', '3', '10', '12', '14', '15', '17', '23', '28', '31', '32', '34', '64',
        '65', '-1', '9']
HSIGS = ['1', '2', '3', '4', '5', '7', '8', '10', '11', '12', '14', '17', '28', '31', '34',
         '64', '9', '19', '0', '65']
HFLAGS = ['0', '0x10000000', '0x40000000', '0x80000000', '0xc0000000', '0x08000000', '1', '2']
PIDS = ['P', 'T', '0', '0x7ffffff0', '0x80000000']   # never -1: kill(-1) hits everything
OFLAGS = ['0', '1', '2', '0x800', '0x10000', '0x80000', '0xc0', '0x400', '0x20000',
          '0x200000', '0x101000', '0x40']   # no O_TRUNC: fd 1 is the capture file
# seccomp-emu's personality has no file system by design: every path is
# -ENOENT (docs/threat-model.md, docs/usage.md).  So paths are drawn from
# those that do not exist natively either (p2 "/nonexistent/x", p3 ""),
# which still checks the order of argument checks against the kernel's.
PATHS = ['p2', 'p3', 'p2', 'p3', 'p2']
SAFE_SIGS = [s for s in SIGS]


def v(pool, rnd):
    return rnd.choice(pool)


# Selectors that name IA-32's segments: a kernel without IA-32 emulation
# clears them (hostcaps: ia32).
COMPAT_SELECTORS = ('0x23',)


class Gen:
    def __init__(self, abi, rnd, ia32=True):
        self.abi, self.r, self.ia32 = abi, rnd, ia32
        self.w = 8 if abi == '64' else 4
        self.ops = []

    def lens(self):
        return LENS + (LENS64 if self.abi == '64' else [])

    def ptr_in(self):
        return self.r.choice(IN_PTR + TOP[self.abi][:2])

    def ptr_out(self):
        return self.r.choice(OUT_PTR + TOP[self.abi][:3])

    def clamp_in(self, p, n):
        """Reads from the 'in' half must not run into the 'out' half,
        whose bytes can differ between runs (times, random bytes)."""
        if p in ('t', 'z'):
            # text and strings run into .data and .bss, where the pid is
            try:
                k = int(n, 0)
            except ValueError:
                k = 0
            return n if 0 <= k <= 64 else '64'
        m = re.fullmatch(r'a(0x[0-9a-f]+|\d+)', p)
        if m:
            off = int(m.group(1), 0)
            if off < 0x8000:
                try:
                    k = int(n, 0)
                except ValueError:
                    k = 0
                if k < 0 or k > 0x8000 - off:
                    return str(0x8000 - off)
        return n

    def put(self, off, val, sz=None):
        self.ops.append('w,%d,%s,%d' % (off, val, sz or self.w))

    def ts(self, off):
        """A timespec (or two) at arena + off, or a bad pointer."""
        if self.r.random() < 0.15:
            return self.r.choice(['0', '1', 'a0x10ff8', 'a0x11000', 't'])
        sec, nsec = self.r.choice([(0, 0), (0, 0), (0, 1000), (0, 999999999), (0, 1000000000),
                                   (-1, 0), (0, -1)])
        self.put(off, sec)
        self.put(off + self.w, nsec)
        return 'a%d' % off

    # Where each field of the context sits above the stack pointer a
    # sigreturn starts from (abi/sigframe_linux.h): (offset, bytes, pool).
    CS64 = ['0x33', '0x33', '0x23', '0x2b', '0', '3', '0x10', '0x1b', '0x43', '0xe943', '0x63',
            '0x73', '0x34']
    SS64 = ['0x2b', '0x2b', '0', '3', '0x23', '0x33', '0x2f', '0x63', '0x18']
    CS32 = ['0x23', '0x23', '0x33', '0x2b', '0', '3', '0x7b', '0x63', '0x73', '0x1b', '0xe943']
    SS32 = ['0x2b', '0x2b', '0', '3', '0x23', '0x7b', '0x63', '0x33']
    FLAGS = ['0x202', '0x246', '0x302', '0x40202', '0x3202', '0x200202', '0x4202', '0x20202',
             '0x10202', '0xffffffff', '0']
    IP = ['L', 'L', 'L', '0', 't', 'a0', 'a0x10000']
    FPSTATE = ['0', '0', '0', 'a0x6000', '1', 'a0x11000']
    SP = ['a0x8000', '0', 'a0x11000']
    IP64 = IP + ['0x800000000000']

    def frame_fields(self, rt):
        x64 = self.abi == '64'
        if x64:
            mc = 40   # uc at sp (pretcode below it), uc_mcontext 40 into it
            return [(0, 8, ['0', '2', '4', '6']), (mc + 120, 8, self.SP),
                    (mc + 128, 8, self.IP64), (mc + 136, 8, self.FLAGS),
                    (mc + 144, 2, self.CS64), (mc + 150, 2, self.SS64),
                    (mc + 184, 8, self.FPSTATE), (296, 8, ['0'])]
        sc = 160 if rt else 0   # rt: uc 140 above sp, its mcontext 20 in; else sc at sp
        segs = ['0x2b', '0', '3', '0x23', '0x63', '0x7b', '0x33', '0x2b']
        f = [(sc + 0, 2, segs), (sc + 4, 2, segs), (sc + 8, 2, segs), (sc + 12, 2, segs),
             (sc + 28, 4, self.SP), (sc + 56, 4, self.IP),
             (sc + 60, 2, self.CS32), (sc + 64, 4, self.FLAGS), (sc + 72, 2, self.SS32),
             (sc + 76, 4, self.FPSTATE)]
        f += [(140, 4, ['0', '2', '4']), (248, 8, ['0'])] if rt else [(80, 4, ['0']), (712, 4, ['0'])]
        return f

    def sigreturn(self):
        """A sigreturn over a context written into the arena (interp.c's r
        op): every field the kernel checks drawn from selectors, flags and
        addresses that are valid, invalid or odd.  The stack pointer and ip
        are always written: the arena's pattern would make them
        non-canonical, and what a return to a non-canonical rsp does is the
        hypervisor's (hostcaps' noncanon-rsp), not Linux's.  The compat
        selectors are drawn only where the host has IA-32: without it the
        kernel has no 0x23 to return to."""
        r = self.r
        rt = 1 if self.abi == '64' else r.randrange(2)
        base = 0x4000
        for off, size, pool in self.frame_fields(rt):
            always = any(pool is p for p in (self.IP, self.IP64, self.SP))
            if not self.ia32:
                pool = [x for x in pool if x not in COMPAT_SELECTORS]
            if always or r.random() < 0.85:
                self.put(base + off, v(pool, r), size)
        self.ops.append('r,%d,%d' % (base, rt))

    def call(self, mode, nr, *args):
        args = list(args) + ['0'] * (6 - len(args))
        self.ops.append('c,%s,%d,%s' % (mode, nr, ','.join(args)))

    def pre_strict_call(self):
        r, x64 = self.r, self.abi == '64'
        n = lambda a, b: a if x64 else b   # syscall number per ABI
        c = r.randrange(39)
        if c == 0:
            p = self.ptr_out(); self.call('x', n(0, 3), v(FDS, r), p, v(self.lens(), r))
        elif c == 1:
            p = self.ptr_in()
            self.call('x', n(1, 4), v(FDS, r), p, self.clamp_in(p, v(self.lens(), r)))
        elif c == 2:
            self.call('x', n(2, 5), v(PATHS + IN_PTR[7:], r), v(OFLAGS, r), v(INTS, r))
        elif c == 3:
            self.call('x', 257 if x64 else 295, v(FDS, r), v(PATHS + IN_PTR[7:], r),
                      v(OFLAGS, r), v(INTS, r))
        elif c == 4:
            self.call('x', n(3, 6), v(NEWFDS, r))
        elif c == 5:
            self.call('x', n(5, 197), v(FDS, r), self.ptr_out())
        elif c == 6:
            self.call('x', n(4, 195), v(PATHS + IN_PTR[7:], r), self.ptr_out())
        elif c == 7:
            self.call('x', n(8, 19), v(FDS, r), v(INTS + LENS, r), v(['0', '1', '2', '3', '4', '5', '-1'], r))
        elif c == 8:
            self.call('c', n(9, 192), v(MEM + TOP[self.abi], r), v(self.lens(), r),
                      v(['0', '1', '3', '7', '0x10', '-1', '0x1000000'], r),
                      v(['0x22', '0x02', '0x21', '0x100022', '0', '0x03', '0x122', '0x40022',
                         '0x20022', '0x4022', '0x800000'], r),
                      v(['-1', '0', '3'], r), v(['0', '1', '4096'], r))
        elif c == 9:
            self.call('x', n(10, 125), v(MEM + TOP[self.abi], r), v(self.lens(), r),
                      v(['0', '1', '3', '7', '0x8', '-1', '0x01000000', '0x02000000'], r))
        elif c == 10:
            self.call('x', n(11, 91), v(MEM + TOP[self.abi], r), v(self.lens(), r))
        elif c == 11:
            self.call('c', n(12, 45), v(MEM + TOP[self.abi] + ['0x10000000'], r))
        elif c == 12:
            sig = v(HSIGS, r)
            if r.random() < 0.7:
                self.ops.append('h,%s,%s' % (sig, v(HFLAGS, r)))
            else:
                self.put(0x100, 'h'); self.put(0x100 + self.w, v(HFLAGS, r))
                self.put(0x100 + 2 * self.w, 'r'); self.put(0x100 + 3 * self.w, '0')
                self.call('x', n(13, 174), sig, v(['a0x100', '0', 'a0x11000', '1'], r),
                          self.ptr_out(), v(['8', '4', '16', '0', '-1'], r))
        elif c == 13:
            self.put(0x180, v(['0', '0x200', '-1', '0x10000', '0x100', '0x400'], r))
            self.call('x', n(14, 175), v(['0', '1', '2', '3', '-1'], r),
                      v(['a0x180', '0', 'a0x11000'], r), v(['0', self.ptr_out()], r),
                      v(['8', '4', '16', '0'], r))
        elif c == 14:
            self.call('x', n(16, 54), v(FDS, r),
                      v(['0x5401', '0x541b', '0x5413', '0x5421', '0', '-1', '0x5451', '0x5450',
                         '0x80045430'], r), v(OUT_PTR, r))
        elif c == 15:
            p = self.ptr_out()
            self.call('x', n(17, 180), v(FDS, r), p, v(self.lens(), r), v(['0', '1', '-1', '4096'], r))
        elif c == 16:
            k = v(['0', '1', '2', '1024', '1025', '-1'], r)
            self.put(0x200, 'a0'); self.put(0x200 + self.w, v(['0', '1', '16', '0x7000'], r))
            self.put(0x200 + 2 * self.w, v(['a0x10000', '0', 'a0x20'], r))
            self.put(0x200 + 3 * self.w, v(['0', '8', '4096'], r))
            self.call('x', n(20, 146), v(FDS, r), v(['a0x200', '0', 'a0x11000'], r), k)
        elif c == 17:
            self.call('x', n(32, 41), v(FDS, r))
        elif c == 18:
            self.call('x', n(33, 63), v(FDS, r), v(NEWFDS, r))
        elif c == 19:
            self.call('x', 292 if x64 else 330, v(FDS, r), v(NEWFDS, r), v(['0', '0x80000', '1', '-1'], r))
        elif c == 20:
            t = self.ts(0x300)
            self.call('x', n(35, 162), t, v(['0', self.ptr_out()], r))
        elif c == 21:
            self.call('x', n(36, 105), v(['0', '1', '2', '3', '-1'], r), self.ptr_out())
        elif c == 22:
            self.call('x', n(37, 27), v(['0', '1000', '0x7fffffff', '0xffffffff'], r))
        elif c == 23:
            self.call('x', n(62, 37), v(PIDS, r), v([s for s in SIGS if s != '9'] + ['9'] * 0, r))
        elif c == 24:
            self.call('x', n(63, 122), self.ptr_out())
        elif c == 25:
            self.call('x', n(72, 55), v(FDS, r),
                      v(['0', '1', '2', '3', '4', '1030', '-1', '1024', '1025', '9', '10', '1033',
                         '1034', '11'], r), v(INTS, r))
        elif c == 26:
            self.call('x', n(89, 85), v(PATHS + IN_PTR[7:], r), self.ptr_out(), v(self.lens(), r))
        elif c == 27:
            self.call('c', n(96, 78), self.ptr_out(), v(['0', self.ptr_out()], r))
        elif c == 28:
            self.call('x', n(97, 191), v(['0', '1', '2', '3', '4', '7', '15', '16', '-1'], r), self.ptr_out())
        elif c == 29:
            self.call('c', r.choice(n([39, 102, 104, 107, 108, 110, 111, 186, 24],
                                      [20, 24, 47, 49, 50, 64, 65, 224, 158, 199, 200])))
        elif c == 30:
            self.call('x', n(131, 186), v(['0', 'a0x400', 'a0x11000'], r), v(['0', self.ptr_out()], r))
        elif c == 31:
            self.call('x', n(157, 172),
                      v(['21', '22', '1', '2', '3', '4', '15', '16', '38', '39', '0', '-1',
                         '36', '37', '8', '23'], r), v(INTS, r), v(['0', self.ptr_out()], r), '0', '0')
        elif c == 32:
            self.call('x', n(200, 238), v(['T', 'P', '0', '0x7ffffff0'], r),
                      v([s for s in SIGS if s != '9'], r))
        elif c == 33:
            self.call('x', n(234, 270), v(['P', '0', '0x7ffffff0'], r), v(['T', '0', '0x7ffffff0'], r),
                      v([s for s in SIGS if s != '9'], r))
        elif c == 34:
            self.call('c', n(228, 265), v(['0', '1', '2', '3', '4', '5', '6', '7', '-1', '12', '-6'], r),
                      self.ptr_out())
        elif c == 35:
            self.call('x', n(318, 355), self.ptr_out(), v(['0', '1', '16', '4096', '0x8001'], r),
                      v(['0', '1', '2', '4', '8', '-1'], r))
        elif c == 37:
            self.sigreturn()
        elif c == 36:
            self.call('x', n(317, 354), v(['0', '1', '2', '3', '-1'], r), v(['0', '1', '-1'], r),
                      v(['0', 'a0x11000', '1'], r))
        else:
            t = self.ts(0x340)
            self.call('x', n(128, 177), self.ptr_out(), v(['0', self.ptr_out()], r), t, '8')
            if not t.startswith('a'):
                self.ops.pop()   # a NULL timeout would wait forever

    def strict_call(self):
        r = self.r
        w = r.random()
        x64 = self.abi == '64'
        if w < 0.45:
            p = self.ptr_in()
            self.call('x', 1 if x64 else 4, v(['1', '2', '0', '3', '-1'], r), p,
                      self.clamp_in(p, v(self.lens(), r)))
        elif w < 0.65:
            self.call('x', 0 if x64 else 3, v(['0', '1', '3', '-1'], r), self.ptr_out(), v(self.lens(), r))
        elif w < 0.75:
            self.ops.append('f,%d' % r.randrange(10))
        elif w < 0.82:
            self.sigreturn()
        elif w < 0.88:
            self.call('x', 60 if x64 else 1, v(INTS, r))
        elif w < 0.94:
            self.ops.append('s,%d' % r.randrange(2))
        else:
            # a call strict mode forbids: SIGKILL
            self.pre_strict_call()

    def program(self):
        r = self.r
        n = r.randrange(1, 25)
        strict_at = r.randrange(n + 1) if r.random() < 0.6 else None
        for i in range(n):
            if i == strict_at:
                self.ops.append('s,%d' % r.randrange(2))
            if strict_at is not None and i > strict_at:
                self.strict_call()
            elif r.random() < 0.04:
                self.ops.append('f,%d' % r.randrange(10))
            else:
                self.pre_strict_call()
        if r.random() < 0.2:
            self.ops.append('f,%d' % r.randrange(10))
        return self.ops


class MemGen(Gen):
    """The memory-management family (issue 33, item 4): mmap, mprotect,
    munmap, mremap, madvise and brk over a region with holes, partial
    overlaps and mixed protections (M, 0x30000000), the vDSO (V), the
    program break (B) and the stack (S), every result exact (the native
    leg runs without address randomisation) and the region's pages probed
    (interp.c's m op: which are readable, writable, zero) after each call."""
    PAGE = 4096

    def at(self):
        r, P = self.r, self.PAGE
        w = r.random()
        if w < 0.7:
            return 'M' if r.random() < 0.15 else 'M%+d' % (P * r.randrange(-2, 18))
        if w < 0.8:
            return r.choice(['V', 'V%+d' % -P, 'V%+d' % -(4 * P), 'V%+d' % (2 * P)])
        if w < 0.9:
            # Below the stack, but a 2 MiB mapping from the lower one ends
            # 64 KiB under the page of the initial stack pointer: over the
            # live stack a signal frame's size (the host's XSAVE features,
            # AVX-512 or not) would decide who dies.
            return r.choice(['B', 'B%+d' % P, 'B%+d' % -P, 'S%+d' % -(0x100000), 'S%+d' % -(0x210000)])
        return r.choice(['0', 'M+1', 'M+4095', '0x1000'] + TOP[self.abi][:3])

    def length(self):
        P = self.PAGE
        return self.r.choice(['0', '1', str(P - 1), str(P), str(P + 1), str(2 * P), str(3 * P),
                              str(5 * P), str(16 * P), str(2 << 20), '-4096', '0x7fffffff'] +
                             (['0x100000000'] if self.abi == '64' else []))

    def prot(self):
        return self.r.choice(['0', '1', '3', '3', '5', '7', '8', '0x10', '0x01000003',
                              '0x02000003', '-1'])

    def probe(self):
        self.ops.append('m,M,18')

    def setup(self):
        """16 pages at M: RW RW RW RW, hole hole, R R, none none, RW RW RW RW,
        hole hole; the first page of each mapping marked."""
        P, n = self.PAGE, (9 if self.abi == '64' else 192)
        for first, count, prot in ((0, 4, 3), (6, 2, 1), (8, 2, 0), (10, 4, 3)):
            self.call('x', n, 'M%+d' % (first * P), str(count * P), str(prot), '0x32', '-1', '0')
        for page in (0, 1, 10, 13):
            self.ops.append('y,M%+d,%d' % (page * P, page + 1))

    def memcall(self):
        r, x64 = self.r, self.abi == '64'
        n = lambda a, b: a if x64 else b
        c = r.randrange(7)
        if c == 0:
            flags = r.choice(['0x22', '0x32', '0x100022', '0x122', '0x4022', '0x8022', '0x20022',
                              '0x2022', '0x21', '0x31', '0x23', '0x02', '0x800022', '0x10022',
                              '0x40022' if x64 else '0x22', '0x20'])
            self.call('x', n(9, 192), self.at(), self.length(), self.prot(), flags,
                      r.choice(['-1', '-1', '0']), r.choice(['0', '0', '1', str(self.PAGE)]))
        elif c == 1:
            self.call('x', n(10, 125), self.at(), self.length(), self.prot())
        elif c == 2:
            self.call('x', n(11, 91), self.at(), self.length())
        elif c == 3:
            flags = r.choice(['0', '1', '1', '3', '2', '5', '7', '8'])
            self.call('x', n(25, 163), self.at(), self.length(), self.length(), flags, self.at())
        elif c == 4:
            # Never MADV_HWPOISON (100) or MADV_SOFT_OFFLINE (101): as root
            # the native leg would poison or offline the host's memory.
            advice = r.choice(['0', '1', '2', '3', '4', '4', '4', '8', '9', '10', '11', '12', '14',
                               '15', '16', '17', '18', '19', '20', '21', '22', '23', '24', '25',
                               '99', '102', '103', '-1'])
            self.call('x', n(28, 219), self.at(), self.length(), advice)
        elif c == 5:
            self.call('x', n(12, 45), r.choice(['0', 'B', 'B%+d' % self.PAGE, 'B%+d' % -self.PAGE,
                                                'B+1', 'B%+d' % (1 << 20), 'M', '0x1000']))
        else:
            page = r.randrange(-1, 17)
            self.ops.append('y,M%+d,%d' % (page * self.PAGE, r.randrange(1, 255)))

    def program(self):
        self.setup()
        self.probe()
        for _ in range(self.r.randrange(1, 12)):
            self.memcall()
            self.probe()
        return self.ops


class TaskGen(Gen):
    """The threads-and-processes family (issue 31): threads started with
    clone as pthread_create starts them, woken through futexes, pipes and
    signals, joined through CLONE_CHILD_CLEARTID; fork, wait4 and exit
    statuses; pipes between processes; tgkill of a blocked thread.  Only the
    main thread prints, and only what does not depend on the interleaving
    (interp.c's T U W K q J F ops): the generator sends nothing to a thread
    whose wait is already ending, joins only threads whose wait ends, and
    ends the program with a fatal signal's K, which waits for it."""
    QUIET = ['10', '12', '14', '1', '15', '34']        # signals q may catch
    FATAL = ['1', '2', '10', '12', '14', '15', '34', '64', '9']
    IGNORED = ['17', '23', '28']                        # SIG_DFL ignores them
    CHILD_SIGS = ['9', '15', '10', '1', '14', '17', '12', '34']

    def program(self):
        r = self.r
        slots = [None] * 4          # {'kind': K, 'ending': bool}
        quiet = set()
        for _ in range(r.randrange(1, 18)):
            free = [k for k in range(4) if slots[k] is None]
            waiting = {kind: [k for k in range(4) if slots[k] and not slots[k]['ending']
                              and slots[k]['kind'] == kind] for kind in range(4)}
            ending = [k for k in range(4) if slots[k] and slots[k]['ending']]
            c = r.random()
            if c < 0.25 and free:
                k, kind = r.choice(free), r.randrange(4)
                self.ops.append('T,%d,%d' % (k, kind))
                slots[k] = {'kind': kind, 'ending': kind == 3}
            elif c < 0.32:
                sig = r.choice(self.QUIET)
                self.ops.append('q,%s' % sig)
                quiet.add(sig)
            elif c < 0.42 and waiting[0]:
                k = r.choice(waiting[0])
                self.ops.append('U,%d,%s' % (k, r.choice(['1', '2', '7', '-1'])))
                slots[k]['ending'] = True
            elif c < 0.52 and waiting[1]:
                k = r.choice(waiting[1])
                self.ops.append('W,%d,%d' % (k, r.randrange(256)))
                slots[k]['ending'] = True
            elif c < 0.66 and (waiting[0] or waiting[1] or waiting[2]):
                k = r.choice(waiting[0] + waiting[1] + waiting[2])
                sig = r.choice(self.FATAL + self.IGNORED + sorted(quiet) * 2)
                kind = slots[k]['kind']
                if sig == '9' or (kind in (1, 2) and sig in self.FATAL and sig not in quiet):
                    self.ops.append('K,%d,%s,1' % (k, sig))
                    return self.ops
                self.ops.append('K,%d,%s' % (k, sig))
                if kind in (1, 2) and sig in quiet:
                    slots[k]['ending'] = True
            elif c < 0.82 and ending:
                k = r.choice(ending)
                self.ops.append('J,%d' % k)
                slots[k] = None
            else:
                fk = r.randrange(3)
                arg = r.choice(['0', '1', '42', '255', '256']) if fk == 0 else \
                    r.choice(self.CHILD_SIGS) if fk == 1 else str(r.randrange(17))
                self.ops.append('F,%d,%s' % (fk, arg))
        for k in range(4):
            if slots[k] and slots[k]['ending'] and r.random() < 0.7:
                self.ops.append('J,%d' % k)
        return self.ops


class LdtGen(Gen):
    """The segment-descriptor family (issue 33, item 4): modify_ldt (read,
    write in both modes, the default LDT, bad funcs and sizes),
    set_thread_area and get_thread_area, arch_prctl's FS and GS bases, over
    user_desc field combinations (entry numbers in and out of range, bases,
    limits, seg_32bit, contents 0-3, read_exec_only, limit_in_pages,
    seg_not_present, useable, lm); then what the selectors do: loaded into
    DS, ES, FS, GS and SS and read through (interp.c's g op), far calls and
    jumps into the code segments made (j: 32- and 16-bit code from 64-bit
    mode is compatibility mode), lar/lsl/verr/verw (v), the selectors held
    (G), the table read back (d).  Each result is the kernel's and the
    CPU's, the same on every run: no selector the kernel would refresh only
    at a context switch is read through (an LDT selector kept in FS or GS),
    and no lsl of the CPU-number segment.  `hw_ldt` False (a paravirtual
    host whose CPU never sees the guest kernel's LDT: hostcaps' ldt) leaves
    LDT selectors out of g, j and v: the calls are still judged.  Judged by
    the VM (`tcg`), no far transfer at all and no 64-bit DS, ES or SS load
    of an LDT selector: under QEMU 7.2's TCG the native leg hangs on them
    (far calls and jumps even to 0x23 and 0x33; the whole machine on a DS
    load), which judges nothing (seen 2026-12-06)."""
    hw_ldt = True
    tcg = False
    # (base, offset) pairs a code descriptor is made with: base + offset is
    # X or Y (code that far-returns), the arena (not executable) or a hole.
    CODE = [('0', 'X'), ('0x1000', 'X-4096'), ('X', '0'), ('X-16', '16'), ('0', 'Y'),
            ('Y', '0'), ('a0', '0'), ('0xfffff000', 'X+4096'), ('0', '0x1000')]
    DATA_BASES = ['0', 'a0', 'a0x4000', 'X', '0x1000', '0xfffff000', 'a0x10000', 'a0x11000',
                  'a0x7ffc']
    OFFS = ['0', '4', '8', '0x100', '0xffc', '0xfff', '0x1000', '0x3ffc', '0x10000', '0xfffff000',
            '0xfffffffc']
    LIMITS = ['0', '1', '0x10', '0xfff', '0xffff', '0xfffff', '0xfffff', '0x7ffff', '0xffffffff']
    ENTRIES = ['0', '1', '2', '3', '5', '7', '16', '100', '511', '512', '8191', '8192', '-1',
               '0x10000']
    BIG = ('512', '8191')
    GDT = ['0x63', '0x6b', '0x73', '0x2b', '0x33', '0', '3', '0x10', '0x18', '0x7b', '0x83',
           '0xfffb', '0x23']

    def __init__(self, abi, rnd, ia32=True):
        Gen.__init__(self, abi, rnd, ia32)
        self.code = {}      # LDT entry -> the offset its code descriptor wants

    def flags(self, code=False):
        r = self.r
        if r.random() < 0.08:
            return r.choice(['0', '0x28', '0x20', '0x8', '0x68'])   # zero, LDT_empty, near
        if r.random() < 0.04:
            return hex(r.randrange(0x10000))
        seg32 = r.random() < 0.8
        contents = (2 if r.random() < 0.85 else 3) if code else r.choice([0, 0, 0, 1, 2, 3])
        bits = (seg32 | contents << 1 | (r.random() < 0.2) << 3 | (r.random() < 0.5) << 4 |
                (r.random() < 0.08) << 5 | (r.random() < 0.3) << 6 |
                (self.abi == '64' and r.random() < 0.1) << 7)
        return hex(bits)

    def user_desc(self, off, entry, code=False):
        r = self.r
        if code:
            base, want = r.choice(self.CODE)
        else:
            base, want = r.choice(self.DATA_BASES), None
        limit = '0xfffff' if code and r.random() < 0.6 else r.choice(self.LIMITS)
        flags = self.flags(code)
        if code and r.random() < 0.6:   # flat, present, 32- or 16-bit code
            flags = hex(r.choice([0x15, 0x15, 0x14, 0x17, 0x55, 0x35]))
        for k, val in enumerate((entry, base, limit, flags)):
            self.put(off + 4 * k, val, 4)
        return want

    def ldt_sel(self):
        r = self.r
        idx = int(r.choice(list(self.code) + ['0', '1', '2', '3', '7', '16', '511', '8191']), 0)
        return hex(idx << 3 | 4 | (3 if r.random() < 0.85 else r.randrange(3)))

    def selector(self):
        r = self.r
        if self.hw_ldt and r.random() < 0.6:
            return self.ldt_sel()
        pool = [g for g in self.GDT if self.ia32 or g not in COMPAT_SELECTORS]
        return r.choice(pool)

    def modify_write(self):
        r = self.r
        code = r.random() < 0.4
        if self.code and r.random() < 0.3:
            entry = r.choice(list(self.code))
        else:
            entry = r.choice(self.ENTRIES)
        # An i386 entry of 512 or more is written from a0x8020, which
        # known.txt pins: a 32-bit engine's LDT has 512 entries.
        at = 0x8020 if self.abi == '32' and entry in self.BIG else 0x8000
        want = self.user_desc(at, entry, code)
        func = r.choice(['0x11', '0x11', '0x11', '1', '1', '3', '0x12', '-1'])
        ptr = 'a%#x' % at if r.random() < 0.9 else r.choice(['0', 'a0x10ff8', '1'])
        count = '16' if r.random() < 0.9 else r.choice(['0', '8', '15', '17', '-1'])
        self.call('x', 154 if self.abi == '64' else 123, func, ptr, count)
        try:
            idx = int(entry, 0)
        except ValueError:
            idx = -1
        if code and 0 <= idx < 8192 and want is not None:
            self.code[str(idx)] = want

    def modify_read(self):
        r = self.r
        nr = 154 if self.abi == '64' else 123
        if r.random() < 0.8:
            count = r.choice(['0', '8', '16', '24', '64', '4096', '0x8000', '0x10000', '0x10008',
                              '-1'])
            ptr = r.choice(['a0x9000'] * 6 + ['0', 'a0x10000', 'a0xfff0', 'a0x8ff8'])
            self.call('x', nr, '0', ptr, count)
        else:
            count = r.choice(['0', '1', '64', '128', '129', '4096', '-1'])
            self.call('x', nr, r.choice(['2', '2', '2', '4', '0x10', '-1']),
                      r.choice(['a0x9000'] * 4 + ['0', 'a0xfff0']), count)
        # not past a0xc000: the far transfers' stack is below a0xf000, and
        # the signal frames a fault there leaves are the kernel's own bytes
        self.ops.append('d,0x9000,%s' % r.choice(['16', '64', '64', '4096', '0x3000']))

    def thread_area(self):
        r = self.r
        x64 = self.abi == '64'
        if r.random() < 0.7:
            entry = r.choice(['-1', '-1', '12', '13', '14', '11', '15', '6', '0'])
            self.user_desc(0x8040, entry, r.random() < 0.15)
            self.call('x', 205 if x64 else 243, r.choice(['a0x8040'] * 9 + ['0']))
            self.ops.append('d,0x8040,16')
        else:
            self.put(0x8050, r.choice(['12', '13', '14', '11', '15', '-1']), 4)
            self.call('x', 211 if x64 else 244, r.choice(['a0x8050'] * 9 + ['0']))
            self.ops.append('d,0x8050,16')

    def load(self):
        r = self.r
        reg = r.choice([0, 1, 2, 2, 3, 3, 4])
        sel = self.selector()
        if self.tcg and self.abi == '64' and reg in (0, 1, 4) and int(sel, 0) & 4:
            reg = r.choice([2, 3])
        flags = 0
        tls = sel in ('0x63', '0x6b', '0x73')
        if reg in (2, 3) and r.random() < 0.25:
            flags = 2            # read through what the register holds
        elif r.random() < 0.3 and ((reg in (2, 3) and tls) or
                                   (reg in (0, 1) and self.abi == '64' and int(sel, 0) > 3)):
            # keep it loaded; never a null selector: an iret (any interrupt)
            # may zero one whose RPL is not 0, as the CPU's cached attributes say
            flags = 1
        self.ops.append('g,%d,%s,%s,%d' % (reg, sel, r.choice(self.OFFS), flags))

    def far(self):
        r = self.r
        if self.tcg:
            self.ops.append('G')
            return
        kind = r.randrange(2)
        if self.hw_ldt and self.code and r.random() < 0.75:
            idx = r.choice(list(self.code))
            sel = hex(int(idx) << 3 | 7)
            off = self.code[idx]
        else:
            sel, off = self.selector(), r.choice(['X', 'Y', '0', 'a0'])
            if sel in ('0x33',) and self.abi == '64':
                off = 'X'
        self.ops.append('j,%d,%s,%s' % (kind, sel, off))

    def program(self):
        r = self.r
        x64 = self.abi == '64'
        for _ in range(r.randrange(2, 18)):
            c = r.random()
            if c < 0.28:
                self.modify_write()
            elif c < 0.38:
                self.modify_read()
            elif c < 0.46:
                self.thread_area()
            elif c < 0.62:
                self.load()
            elif c < 0.76:
                self.far()
            elif c < 0.86:
                sel = self.selector()
                self.ops.append('v,%s,%d' % (sel, sel == '0x7b'))
            elif c < 0.92:
                self.ops.append('G')
            elif x64:
                code = r.choice(['0x1002', '0x1001', '0x1003', '0x1004'])
                if code in ('0x1002', '0x1001'):
                    self.call('x', 158, code, r.choice(['0', 'a0', 'X', '0x1000', '0x7ffffffff000',
                                                        '0x800000000000']))
                    self.ops.append('g,%d,0,%s,2' % (2 if code == '0x1002' else 3,
                                                     r.choice(self.OFFS[:6])))
                else:
                    self.call('x', 158, code, r.choice(['a0x8060'] * 5 + ['0']))
                    self.ops.append('d,0x8060,8')
            else:
                self.ops.append('G')
        return self.ops


FAMILIES = {'calls': Gen, 'mm': MemGen, 'tasks': TaskGen, 'ldt': LdtGen}


def limits():
    os.setsid()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # seccomp-emu's descriptor table has RLIMIT_NOFILE's usual soft limit,
    # 1024 entries (emu/kernel/fdtable.h); give the native run that limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))


ADDR_NO_RANDOMIZE = 0x0040000


def native_limits():
    """The native leg: seccomp-emu lays memory out as Linux does without
    address randomisation, so the native run goes without it too."""
    limits()
    import ctypes
    ctypes.CDLL(None).personality(ADDR_NO_RANDOMIZE)


# An emulated leg that runs out of time where the native one took more
# than this share of it is no difference: under emulation (a tenth of
# native speed on code as odd as the fuzzer's, gigabytes of zeros run as
# code after a mapping over the program's own text) it could not end.
SLOW_NATIVE_SHARE = 0.1


class SlowStatus(int):
    """A native leg's wait status, from a run slower than SLOW_NATIVE_SHARE."""


def run1(argv, cwd, timeout=10.0, native=False):
    # Named files, read back through a fresh open: the guest shares the
    # open file description (offset, O_DIRECT, O_APPEND ...) with `out`.
    with tempfile.NamedTemporaryFile(dir=cwd) as out, \
            tempfile.NamedTemporaryFile(dir=cwd) as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             cwd=cwd, preexec_fn=native_limits if native else limits)
        started = time.monotonic()
        deadline = started + timeout
        status = None
        while True:
            pid, st = os.waitpid(p.pid, os.WNOHANG)
            if pid:
                status = st
                break
            if time.monotonic() > deadline:
                os.killpg(p.pid, signal.SIGKILL)
                os.waitpid(p.pid, 0)
                status = 'timeout'
                break
            time.sleep(0.002)
        p.returncode = 0
        if native and status != 'timeout' and \
                time.monotonic() - started > SLOW_NATIVE_SHARE * timeout:
            status = SlowStatus(status)
        return capped(out.name), capped(err.name), status


# What a leg wrote is compared up to this much, and by its size: a program
# that writes gigabytes (a write loop, sendfile from /dev/zero) must not
# take the runner's memory and the comparison's time with it.
OUTPUT_CAP = 1 << 20


def capped(path):
    size = os.path.getsize(path)
    with open(path, 'rb') as f:
        data = f.read(OUTPUT_CAP)
    if size > OUTPUT_CAP:
        data += b'\n[... %d bytes in all]\n' % size
    return data


# An LDT data segment at entry 0, then lar of its selector: the host's CPU
# honours the LDT if lar reads its access rights.  Under a paravirtual
# hypervisor that runs the guest kernel at ring 3 (PVM) modify_ldt succeeds
# but the CPU never sees the table: every LDT selector faults.
LDT_PROBE = 'w,0x8000,0,4;w,0x8004,0,4;w,0x8008,0xfffff,4;w,0x800c,0x51,4;' \
            'c,x,154,0x11,a0x8000,16;v,7'


class Runner:
    def __init__(self, a):
        self.emu = os.path.abspath(a.emu)
        self.emu_args = a.emu_arg
        self.guest = {'32': os.path.abspath(a.guest32), '64': os.path.abspath(a.guest64)}
        self.cwd = tempfile.mkdtemp(prefix='difffuzz-')
        self.known = load_known(a.known)
        self.vm = None
        if getattr(a, 'judge', 'host') == 'vm':
            # The kernel in the judge VM (tools/vm/vmjudge.py), for what
            # this host cannot run: i386 without IA-32, the LDT under PVM.
            sys.path.insert(0, os.path.join(HERE, '..', '..', 'tools', 'vm'))
            import vmjudge
            try:
                self.vm = vmjudge.Vm.from_env(os.path.dirname(self.emu))
            except vmjudge.VmMissing as e:
                raise SystemExit('difffuzz: --judge vm: %s' % e)
            self.vmjudge = vmjudge
            self.abis = ['32', '64']
            self.hw_ldt = True
            return
        # The kernel judges only the ABIs this host can run natively: i386
        # needs IA-32 emulation (without it exec fails, or qemu-i386 runs
        # the program through binfmt_misc).
        ia32 = runs_i386(self.emu)
        self.abis = [abi for abi in ('32', '64') if (abi == '64' or ia32) and self.runs_natively(abi)]
        if '32' not in self.abis:
            print('difffuzz: this host cannot run i386 programs natively: 64-bit only')
        self.hw_ldt = b'lar 00' in run1([self.guest['64'], LDT_PROBE], self.cwd, native=True)[0]
        if getattr(a, 'family', None) == 'ldt' and not self.hw_ldt:
            print('difffuzz: this host\'s CPU ignores the LDT (a paravirtual guest): '
                  'LDT selectors are left out (--judge vm runs them)')

    def runs_natively(self, abi):
        """A kernel without IA-32 emulation refuses the i386 guest at exec
        (ENOEXEC), which Popen raises."""
        try:
            return run1([self.guest[abi]], self.cwd)[2] == 2 << 8
        except OSError:
            return False

    def both(self, abi, ops):
        return self.batch([(abi, ops)])[0]

    def batch(self, progs):
        """Both legs of each (abi, ops); the VM's native legs in one boot."""
        # --caps=host: the guest holds what the native child holds (root's
        # CAP_SYS_ADMIN decides a filter without no_new_privs), not the
        # container default
        emu = [run1([self.emu, '-q', '--caps=host'] + self.emu_args +
                    [self.guest[abi], ';'.join(ops)], self.cwd)
               for abi, ops in progs]
        if not self.vm:
            nat = [run1([self.guest[abi], ';'.join(ops)], self.cwd, native=True)
                   for abi, ops in progs]
        else:
            reqs = [self.vmjudge.Request([self.guest[abi], ';'.join(ops)], norandom=True,
                                         timeout=10.0) for abi, ops in progs]
            nat = [(x.stdout, x.stderr, 'timeout' if x.status is None else x.status)
                   for x in self.vm.run(reqs)]
        return list(zip(nat, emu))

    @staticmethod
    def compare(nat, emu):
        if emu[2] == 'timeout' and (nat[2] == 'timeout' or isinstance(nat[2], SlowStatus)):
            return None
        return None if nat == emu else (nat, emu)

    def differs(self, abi, ops):
        return self.compare(*self.both(abi, ops))


def load_known(path):
    """known.txt: 'ABI OPREGEX [@prog PROGREGEX] # evidence'; a difference
    is pinned when the op whose output line first differs matches OPREGEX
    (ABI 'any' or 32/64) and, where PROGREGEX is given, the whole program
    (its ops joined by ';') matches it: for a difference that an earlier op
    decides, as a value written into a signal frame before its sigreturn."""
    known = []
    if path and os.path.exists(path):
        for line in open(path):
            line = line.split('#', 1)[0].strip()
            if line:
                abi, rx = line.split(None, 1)
                rx, _, prog_rx = rx.partition(' @prog ')
                known.append((abi, re.compile(rx.strip()),
                              re.compile(prog_rx.strip()) if prog_rx else None))
    return known


def first_diff_op(ops, d):
    """The op whose output holds the first byte where the runs differ (or,
    if the outputs are equal, the last op): the last op header at or before
    that byte.  Headers can follow raw bytes a write printed, so they are
    searched anywhere, not only at line starts."""
    (no, ne, ns), (eo, ee, es) = d
    i = 0
    while i < min(len(no), len(eo)) and no[i] == eo[i]:
        i += 1
    text = no[:i + 1].decode('latin-1')
    last = -1
    for m in re.finditer(r'(\d+): ([cwhfsrgjvGd])(?: (\d+))?', text):
        n, kind, nr = int(m.group(1)), m.group(2), m.group(3)
        if last < n < len(ops) and header_fits(ops[n], kind, nr):
            last = n
            continue
        # The runner's op counter lives in its data: a mapping over it (a
        # fixed mmap at B-4096) starts it again at 0, and the number no
        # longer names the op.  The op is the next one this header fits.
        later = [k for k in range(last + 1, len(ops)) if header_fits(ops[k], kind, nr)]
        if later:
            last = later[0]
    return ops[last] if 0 <= last < len(ops) else '(status/stderr)'


def header_fits(op, kind, nr):
    """Could the output header 'N: KIND NR' be op's?  (A call's header
    names its number.)"""
    if op[:1] != kind:
        return False
    if kind != 'c' or nr is None:
        return True
    try:
        return int(op.split(',')[2], 0) == int(nr)
    except (IndexError, ValueError):
        return False


def pinned(runner, abi, ops, d):
    op = first_diff_op(ops, d)
    for kabi, rx, prog_rx in runner.known:
        if kabi in ('any', abi) and rx.search(op) and (
                prog_rx is None or prog_rx.search(';'.join(ops))):
            return op
    return None


def minimise(runner, abi, ops, deadline=None):
    """ddmin-style: drop chunks of ops while a difference remains.  Stops at
    `deadline` (time.monotonic()) with what it has so far: a timed run must
    end on time, and a half-shrunk reproducer still reproduces."""
    n = 2
    while len(ops) >= 2:
        if deadline is not None and time.monotonic() >= deadline:
            break
        chunk = max(1, len(ops) // n)
        removed = False
        for i in range(0, len(ops), chunk):
            if deadline is not None and time.monotonic() >= deadline:
                break
            cand = ops[:i] + ops[i + chunk:]
            if cand and runner.differs(abi, cand):
                ops, n, removed = cand, max(n - 1, 2), True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(ops), n * 2)
    return ops


def show(d):
    for name, (o, e, s) in (('native', d[0]), ('seccomp-emu', d[1])):
        print('--- %s: status %s' % (name, s))
        sys.stdout.write(o.decode('latin-1'))
        if e:
            print('[stderr] ' + e.decode('latin-1').rstrip())


def count_calls(ops):
    return sum(1 for o in ops if o[0] in 'cfhsrTUWKqJFgjv')


def cmd_run(runner, a):
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    t0 = time.monotonic()
    progs = calls = 0
    diffs, pins = [], 0
    family = FAMILIES[a.family]
    family.hw_ldt = getattr(runner, 'hw_ldt', True) and getattr(a, 'ldt', 'auto') == 'auto'
    vm = getattr(runner, 'vm', None)
    family.tcg = bool(vm) and vm.accel == 'tcg'

    def judged():
        """(abi, ops, difference) for each new program; the VM judges a
        batch per boot, the host one program at a time."""
        made = 0
        while True:
            batch = []
            for _ in range(a.vm_batch if vm else 1):
                if time.monotonic() - t0 >= a.seconds or (a.programs and made >= a.programs):
                    break
                abi = rnd.choice(runner.abis)
                batch.append((abi, family(abi, rnd, '32' in runner.abis).program()))
                made += 1
            if not batch:
                return
            if not vm:
                abi, ops = batch[0]
                yield abi, ops, runner.differs(abi, ops)
                continue
            for (abi, ops), legs in zip(batch, runner.batch(batch)):
                yield abi, ops, runner.compare(*legs)

    for abi, ops, d in judged():
        progs += 1
        calls += count_calls(ops)
        if not d:
            continue
        if pinned(runner, abi, ops, d):
            pins += 1
            continue
        # Each shrinking step would be a boot in the VM: its programs are
        # reported whole.
        small = ops if vm else minimise(runner, abi, ops, t0 + a.seconds)
        d2 = runner.differs(abi, small) if small != ops else d
        if d2 and pinned(runner, abi, small, d2):
            pins += 1
            continue
        diffs.append((abi, small))
        print('DIFFERENCE abi %s: %s' % (abi, ';'.join(small)))
        if d2:
            show(d2)
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            name = os.path.join(a.save, 'new-%d-%d.txt' % (seed, progs))
            with open(name, 'w') as f:
                f.write('%s\n%s\n' % (abi, ';'.join(small)))
            print('saved %s' % name)
        sys.stdout.flush()
    print('difffuzz: seed %d, %d programs, %d calls/ops executed (each twice), '
          '%d differences (%d unpinned, %d pinned)'
          % (seed, progs, calls, len(diffs) + pins, len(diffs), pins))
    return 1 if diffs else 0


def cmd_check(runner, a):
    bad = 0
    files = []
    for f in a.files:
        if os.path.isdir(f):
            files += sorted(os.path.join(f, n) for n in os.listdir(f) if n.endswith('.txt'))
        else:
            files.append(f)
    cases = []
    needs_of = {}
    for path in files:
        lines = open(path).read().split('\n')
        abi, prog = lines[0].strip(), lines[1].strip()
        needs = lines[2].split(':', 1)[1].split() if lines[2:] and lines[2].startswith('needs:') \
            else []
        if abi not in runner.abis or ('ia32' in needs and '32' not in runner.abis):
            print('skip %s (this host cannot run i386 natively: no IA-32)' % path)
            continue
        if 'ldt' in needs and not runner.hw_ldt:
            print('skip %s (this host\'s CPU ignores the LDT: --judge vm)' % path)
            continue
        needs_of[path] = needs
        cases.append((path, abi, prog.split(';')))
    # one boot of the VM for them all
    for (path, abi, ops), legs in zip(cases, runner.batch([(abi, ops) for _, abi, ops in cases])):
        d = runner.compare(*legs)
        # 'needs: exact': a fixed case inside a pinned family must agree
        # whatever known.txt pins.
        exact = 'exact' in needs_of[path]
        if d and (exact or not pinned(runner, abi, ops, d)):
            print('FAIL %s' % path)
            show(d)
            bad += 1
        else:
            print('ok   %s%s' % (path, ' (pinned difference)' if d else ''))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--emu', required=True)
    ap.add_argument('--guest32', required=True)
    ap.add_argument('--guest64', required=True)
    ap.add_argument('--known', default=os.path.join(HERE, 'known.txt'))
    ap.add_argument('--emu-arg', action='append', default=[],
                    help='an option for seccomp-emu (e.g. --sched=rr:50 for other '
                         'interleavings of the tasks family)')
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    r.add_argument('seconds', type=float)
    r.add_argument('--seed', type=int)
    r.add_argument('--save')
    r.add_argument('--family', choices=sorted(FAMILIES), default='calls',
                   help='calls: the personality\'s calls, strict mode, faults, sigreturn frames; '
                        'mm: the memory-management calls over a region with holes; '
                        'tasks: threads, futexes, pipes, signals, fork and wait4; '
                        'ldt: segment descriptors, modify_ldt, set_thread_area, far transfers')
    r.add_argument('--judge', choices=['host', 'vm'], default='host',
                   help='whose kernel runs the native legs: this host\'s, or the judge VM\'s '
                        '(tools/vm/vmjudge.py; i386 on a host without IA-32, the LDT under a '
                        'paravirtual hypervisor), a batch of programs per boot, not minimised')
    r.add_argument('--vm-batch', type=int, default=60, help='programs per VM boot')
    r.add_argument('--ldt', choices=['auto', 'off'], default='auto',
                   help='ldt family: use LDT selectors in g, j and v where the judge honours '
                        'them (auto), or never (off)')
    r.add_argument('--programs', type=int, default=0,
                   help='stop after this many programs (SECONDS still bounds the run)')
    c = sub.add_parser('check')
    c.add_argument('files', nargs='+')
    c.add_argument('--judge', choices=['host', 'vm'], default='host')
    s = sub.add_parser('show')
    s.add_argument('abi')
    s.add_argument('prog')
    s.add_argument('--judge', choices=['host', 'vm'], default='host')
    a = ap.parse_args()
    for f in (a.emu, a.guest32, a.guest64):
        if not os.access(f, os.X_OK):
            print('difffuzz: %s: not an executable' % f, file=sys.stderr)
            return 2
    runner = Runner(a)
    if a.cmd == 'run':
        return cmd_run(runner, a)
    if a.cmd == 'check':
        return cmd_check(runner, a)
    nat, emu = runner.both(a.abi, a.prog.split(';'))
    show((nat, emu))
    return 0 if nat == emu else 1


if __name__ == '__main__':
    sys.exit(main())
