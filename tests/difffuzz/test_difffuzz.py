#!/usr/bin/env python3
"""difffuzz.py's own behaviour, without running any guest: a timed run ends
on time even when every program differs and every run is slow (the
shrinker once took minutes past the budget), an emulated timeout against
a slow native run is no difference, and a host that refuses the i386 guest
at exec is a 64-bit-only host, not a crash."""
import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difffuzz  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


class SlowRunner:
    """The first program differs from the kernel through its first and last
    ops together, which the shrinker must find, and each pair of runs takes `cost` seconds, as a
    guest that hangs until its timeout would."""

    def __init__(self, cost):
        self.cost, self.abis, self.known, self.runs = cost, ['64'], [], 0
        self.culprit = None

    def differs(self, abi, ops):
        time.sleep(self.cost)
        self.runs += 1
        if self.culprit is None:
            self.culprit = (ops[0], ops[-1])
        elif not all(op in ops for op in self.culprit):
            return None
        out = b''.join(b'%d: c 1 = 0\n' % i for i in range(len(ops)))
        return (out, b'', 0), (out + b'x', b'', 0)


budget, cost = 1.0, 0.1  # seed 3 begins with a 33-op program
runner = SlowRunner(cost)
args = types.SimpleNamespace(seed=3, seconds=budget, programs=0, save=None, family="calls")
t0 = time.monotonic()
difffuzz.cmd_run(runner, args)
took = time.monotonic() - t0
# The last program's shrink may end one run past the budget, and its final
# check adds one more.
check(took <= budget + 4 * cost + 0.5,
      "a %.1f s run whose first program differs ends in %.2f s (%d runs)" % (budget, took,
                                                                            runner.runs))

prog = ['c,x,1,1,a0,%d' % i for i in range(40)]
quick = SlowRunner(0.0)
quick.differs('64', prog)
small = difffuzz.minimise(quick, '64', prog, time.monotonic() - 1)
check(len(small) == 40, "a shrink whose deadline has passed returns the program as it is")
small = difffuzz.minimise(quick, '64', prog)
check(small == [prog[0], prog[-1]], "without a deadline the shrink finds the two ops (%s)" % small)

# An emulated run out of time is a difference only where the native one
# ended well inside it; a slow native run's status still compares.
compare, slow = difffuzz.Runner.compare, difffuzz.SlowStatus
check(compare((b'', b'', slow(139)), (b'', b'', 'timeout')) is None,
      "a slow native run (139) against an emulated timeout is no difference")
check(compare((b'', b'', 139), (b'', b'', 'timeout')) is not None,
      "a quick native run (139) against an emulated timeout is a difference")
check(compare((b'', b'', slow(0)), (b'', b'', 0)) is None and
      compare((b'', b'', slow(0)), (b'', b'', 139)) is not None,
      "a slow native run's status compares as the status")
out = difffuzz.run1(['sh', '-c', 'sleep 0.3; exit 3'], '/tmp', timeout=2.0, native=True)
check(isinstance(out[2], slow) and os.WEXITSTATUS(out[2]) == 3,
      "a native leg past %g of its time is marked slow: %r" % (difffuzz.SLOW_NATIVE_SHARE,
                                                               out[2]))
out = difffuzz.run1(['true'], '/tmp', timeout=2.0, native=True)
check(out[2] == 0 and not isinstance(out[2], slow), "a quick native leg is not: %r" % out[2])

# The op a difference is blamed on: by its header's number, and, when an op
# mapped over the runner's counter and numbering started again at 0 (seed
# 4001's mmap at B-4096), by the next op the header fits.
ops = ['c,x,9,B-4096,0x100000000,3,0x32,-1,0', 'c,x,28,V,0x100000000,103,0,0,0']
nat = (b'0: c 9 = 4276224\n0: c 28 = -12\n', b'', 0)
emu = (b'0: c 9 = 4276224\n0: c 28 = -22\n', b'', 0)
check(difffuzz.first_diff_op(ops, (nat, emu)) == ops[1],
      "a restarted count blames the op the header fits: %s" % difffuzz.first_diff_op(ops, (nat, emu)))
ops = ['c,x,39,0,0', 'w,0,1,1', 'c,x,39,0,0']
nat = (b'0: c 39 = 5\n1: w\n2: c 39 = 5\n', b'', 0)
emu = (b'0: c 39 = 5\n1: w\n2: c 39 = 6\n', b'', 0)
check(difffuzz.first_diff_op(ops, (nat, emu)) == ops[2] and
      difffuzz.first_diff_op(ops, ((b'0: c 39 = 5\n', b'', 0), (b'0: c 39 = 6\n', b'', 0))) == ops[0],
      "an ordinary count blames the numbered op")

# A pin with a program condition (known.txt's sigreturn to CS 0x33): the
# sigreturn is blamed, and the pin holds only while the frame's CS slot
# last got 0x33.
known = difffuzz.load_known(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         'known.txt'))
pins = types.SimpleNamespace(known=known)
gate = ['w,16440,L,4', 'w,16444,0x33,2', 'w,16456,0x2b,2', 'w,16460,0,4', 'r,16384,0']
landed = ((b'0: w\n1: w\n2: w\n3: w\n4: r\nlanded\n', b'', 10752),
          (b'0: w\n1: w\n2: w\n3: w\n4: r\n', b'', 11))
check(difffuzz.pinned(pins, '32', gate, landed) == 'r,16384,0',
      "a sigreturn to a frame whose CS is 0x33 is pinned (seed 4006)")
check(difffuzz.pinned(pins, '32', [op.replace('0x33', '0x23') for op in gate], landed) is None,
      "a sigreturn to a frame whose CS is 0x23 is not")
check(difffuzz.pinned(pins, '32', gate[:4] + ['w,16443,0,2', gate[4]], landed) is None,
      "nor one whose CS slot was written over after the 0x33")
check(difffuzz.pinned(pins, '64', gate, landed) is None, "nor a 64-bit one")

# hostcaps may say yes while exec still fails (a guest that is no program).
difffuzz.runs_i386 = lambda emu: True
bad = types.SimpleNamespace(emu='/bin/true', guest32='/dev/null', guest64='/bin/true',
                            known=None, emu_arg=[])
try:
    r = difffuzz.Runner(bad)
    check(r.abis == [], "a guest that cannot be executed is an ABI this host lacks: %s" % r.abis)
except OSError as e:
    check(False, "a guest that cannot be executed crashed the runner: %s" % e)

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
