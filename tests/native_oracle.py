"""The native leg of a differential test: the kernel's answer, run live, or
a recording of it where this host cannot give it.

Every harness judges seccomp-emu by the real kernel.  Some hosts cannot
answer for every case: a kernel without IA-32 emulation (ia32_emulation=false,
or a hypervisor without compat mode) runs no i386 program, and a hypervisor
that ignores CR4.TSD lets rdtsc run after strict mode disabled it.  The
capabilities come from tests/hostcaps.c; a case needs `ia32` when its
program is an i386 ELF, and names anything else it needs (`tsc-off`).

    oracle = Oracle('sigdiff', emu_path)
    native, label, problems = oracle.judge(key, program, live, emulated, needs)

`live()` runs the native leg and returns what the harness compares (any
mix of bytes, str, int, None, tuples, lists and dicts); `emulated()` returns
the emulated leg's.  Where the host can run the case, the kernel answers and
a recording of the case, if there is one, must agree with it (a recording
that no longer matches the kernel is a failure, never silently kept).
Where it cannot, the recording answers, and the label says who made it; with
no recording the case fails.

Where the host cannot, a real kernel in a VM answers
(tools/vm/vmjudge.py: Debian's x86_64 kernel under qemu-system-x86_64):
the harness describes the native run as a vmjudge.Request, and the answer
comes from the VM cache that one boot per batch fills.  A collect pass
(SECCOMP_EMU_NATIVE=collect, scripts/vm-judge.sh) spools every such request
instead of judging; `vmjudge.py spool` boots once and answers them all; the
test run then reads the cache.  Where the VM has answered, a recording of
the case must agree with it like with the host; where it has not (no VM
here, or no collect pass), the recording answers; a case with neither has
the VM boot for it alone (scripts/test.sh fetches the VM's kernel on a host
that lacks a capability).  A case whose native run needs what a VM cannot
give (a peer on the host) passes no request.

SECCOMP_EMU_NATIVE=record writes the kernel's answers, the host's or the
VM's, to tests/native/HARNESS/, each saying which kernel, CPU and date.
Recordings come from real kernels only (tests/check_recordings.py).
"""
import datetime
import hashlib
import json
import os
import platform
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools', 'vm'))
import vmjudge  # noqa: E402

STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'native')
PINNED = 'vm-differences.txt'
CAPABILITIES = ('ia32', 'tsc-off', 'noncanon-rsp', 'avx', 'x86-64-v3', 'vvar-kvm')

_caps = {}


def elf_is_i386(path):
    try:
        with open(path, 'rb') as f:
            head = f.read(20)
    except OSError:
        return False
    # ELFCLASS32, e_machine EM_386
    return head[:4] == b'\x7fELF' and head[4] == 1 and head[18:20] == b'\x03\x00'


def host_caps(probe):
    """{capability: bool} from the hostcaps probe, run once per process."""
    if probe not in _caps:
        p = subprocess.run([probe], capture_output=True, timeout=30, env={})
        caps = dict(re.findall(r'^(\S+) (yes|no)$', p.stdout.decode(), re.M))
        if p.returncode != 0 or set(caps) != set(CAPABILITIES):
            raise SystemExit('native_oracle: %s failed (status %d): %r' %
                             (probe, p.returncode, (p.stdout + p.stderr).decode(errors='replace')))
        _caps[probe] = {k: v == 'yes' for k, v in caps.items()}
    return _caps[probe]


def hostcaps_path(emu):
    """The capability probe for the build holding EMU: SECCOMP_EMU_HOSTCAPS,
    else BUILD/tests/hostcaps."""
    return os.environ.get('SECCOMP_EMU_HOSTCAPS') or \
        os.path.join(os.path.dirname(os.path.abspath(emu)), 'tests', 'hostcaps')


def runs_i386(emu):
    """Whether this host's kernel runs i386 programs (IA-32 emulation), for
    a harness that runs them natively without an oracle.  An exec that
    works proves nothing: binfmt_misc may hand the program to qemu-i386."""
    return host_caps(hostcaps_path(emu))['ia32']


def encode(v):
    """JSON that keeps bytes and tuples apart from str and lists."""
    if isinstance(v, bytes):
        try:
            return {'bytes': v.decode('utf-8')}
        except UnicodeDecodeError:
            return {'bytes-hex': v.hex()}
    if isinstance(v, tuple):
        return {'tuple': [encode(x) for x in v]}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {'dict': [[encode(k), encode(x)] for k, x in v.items()]}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError('native_oracle: cannot record %r' % (v,))


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        (kind, x), = v.items()
        if kind == 'bytes':
            return x.encode('utf-8')
        if kind == 'bytes-hex':
            return bytes.fromhex(x)
        if kind == 'tuple':
            return tuple(decode(y) for y in x)
        if kind == 'dict':
            return {decode(k): decode(y) for k, y in x}
        raise ValueError('native_oracle: unknown recorded kind %r' % kind)
    return v


def cpuinfo(field):
    """The first value of FIELD in /proc/cpuinfo, '' when there is none."""
    try:
        with open('/proc/cpuinfo') as f:
            m = re.search(r'^%s\s*:\s*(.*)$' % re.escape(field), f.read(), re.M)
    except OSError:
        return ''
    return m.group(1).strip() if m else ''


def host_vendor():
    """intel or amd: a case whose native answer depends on the CPU
    (32-bit syscall and sysenter) keys its recording by it.  The rule of
    seccomp-emu's --cpu=host (emu/engine/cpu.c): AMD or Hygon, else Intel, also
    where there is no x86 CPU to read (docs/portability.md)."""
    return 'amd' if cpuinfo('vendor_id') in ('AuthenticAMD', 'HygonGenuine') else 'intel'


def kernel_name():
    return 'the kernel: Linux %s on %s, %s' % (
        platform.release(), cpuinfo('model name') or platform.machine(),
        datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d'))


def vm_pinned(store, harness, key):
    """Why the VM's CPU is not a faithful judge of this case (a known
    VM-CPU difference, tests/native/vm-differences.txt), or None.  Lines:
    HARNESS<TAB>KEY<TAB>the host's answer<TAB>the VM's answer<TAB>why."""
    try:
        with open(os.path.join(store, PINNED)) as f:
            for line in f:
                fields = line.rstrip('\n').split('\t')
                if len(fields) == 5 and fields[0] == harness and fields[1] == key:
                    return fields[4]
    except FileNotFoundError:
        pass
    return None


def vm_cpu(vendor=None):
    """The QEMU CPU for a case: SECCOMP_EMU_VM_CPU (default max) with the
    vendor a vendor rule needs (QEMU's CPUID then says it, and Linux picks
    the 32-bit entry its vDSO uses by it)."""
    base = os.environ.get('SECCOMP_EMU_VM_CPU', 'max')
    ident = {'intel': 'GenuineIntel', 'amd': 'AuthenticAMD'}.get(vendor)
    return base + (',vendor=' + ident if ident else '')


class Oracle:
    def __init__(self, harness, emu):
        self.dir = os.path.join(STORE, harness)
        self.harness = harness
        self.mode = os.environ.get('SECCOMP_EMU_NATIVE', 'auto')
        if self.mode not in ('auto', 'record', 'collect'):
            raise SystemExit('native_oracle: SECCOMP_EMU_NATIVE=%s: use auto, record or collect'
                             % self.mode)
        self.build = os.path.dirname(os.path.abspath(emu))
        self.probe = hostcaps_path(emu)
        self._vm = False
        # which kernel answers: the host's where it can (auto), the VM's
        # for every case that can run there (vm), or never the VM's (host)
        self.leg = os.environ.get('SECCOMP_EMU_NATIVE_LEG', 'auto')
        if self.leg not in ('auto', 'host', 'vm'):
            raise SystemExit('native_oracle: SECCOMP_EMU_NATIVE_LEG=%s: use auto, host or vm'
                             % self.leg)

    @property
    def collecting(self):
        """A collect pass: requests go to the spool, nothing is judged."""
        return self.mode == 'collect'

    def vm(self):
        """The VM leg, or None (with why in self.vm_missing)."""
        if self._vm is False:
            self.vm_missing = None
            try:
                self._vm = vmjudge.Vm.from_env(self.build)
            except vmjudge.VmMissing as e:
                self._vm, self.vm_missing = None, str(e)
        return self._vm

    def missing(self, program, needs=()):
        """What this case needs natively and this host lacks."""
        want = set(needs) | ({'ia32'} if elf_is_i386(program) else set())
        unknown = want - set(CAPABILITIES)
        if unknown:
            raise SystemExit('native_oracle: unknown capability %s' % ', '.join(sorted(unknown)))
        caps = host_caps(self.probe) if want else {}
        return sorted(c for c in want if not caps[c])

    def path(self, key):
        slug = re.sub(r'[^A-Za-z0-9._=+-]+', '_', key).strip('_')[:90]
        return os.path.join(self.dir, '%s-%s.json' % (slug, hashlib.sha1(key.encode()).hexdigest()[:8]))

    def load(self, key):
        try:
            with open(self.path(key)) as f:
                rec = json.load(f)
        except FileNotFoundError:
            return None
        if rec.get('key') != key:
            raise SystemExit('native_oracle: %s records %r, not %r' % (self.path(key), rec.get('key'), key))
        return rec

    def save(self, key, result, by):
        os.makedirs(self.dir, exist_ok=True)
        # whole or not at all: the -intel and -amd runs of a case may save at once
        tmp = '%s.%d.tmp' % (self.path(key), os.getpid())
        with open(tmp, 'w') as f:
            json.dump({'key': key, 'by': by, 'result': encode(result)}, f, indent=1, sort_keys=True)
            f.write('\n')
        os.replace(tmp, self.path(key))

    def judge(self, key, program, live, emulated, needs=(), request=None, convert=None,
              vendor=None):
        """(native answer, its label, problems).  The answer is None when
        there is none; problems are failures the harness must report.

        REQUEST (a vmjudge.Request) describes live()'s run for the VM, and
        CONVERT turns the VM's vmjudge.Answer into what live() returns;
        VENDOR ('intel', 'amd') is the CPU vendor the case's answer depends
        on.  In a collect pass the answer is None with no problems."""
        lacks = self.missing(program, needs)
        pinned = vm_pinned(STORE, self.harness, key) if request is not None else None
        if pinned:
            request = None   # QEMU's CPU answers this case unlike silicon
        if self.leg == 'vm' and request is not None and not lacks:
            lacks = ['nothing (SECCOMP_EMU_NATIVE_LEG=vm)']
        where = os.path.relpath(self.path(key))
        if self.collecting:
            if lacks and request is not None and self.vm() is not None:
                vmjudge.spool(self.build, vm_cpu(vendor), request)
            return None, 'collected', []
        rec = self.load(key)
        if not lacks:
            got = live()
            if self.mode == 'record':
                self.save(key, got, kernel_name())
            elif rec is not None and decode(rec['result']) != decode(encode(got)):
                return got, 'native', ['the recording %s (by %s) differs from the kernel here: '
                                       'SECCOMP_EMU_NATIVE=record to take the kernel\'s'
                                       % (where, rec['by'])]
            return got, 'native', []
        vm = self.vm() if request is not None and self.leg != 'host' else None
        answer = vm.with_cpu(vm_cpu(vendor)).cached(request) if vm else None
        vm_failed = None
        if answer is None and vm is not None and rec is None:
            # Nothing else can judge this case here: the VM boots for it
            # alone (its answer is cached for the next run).
            try:
                answer, = vm.with_cpu(vm_cpu(vendor)).run([request])
            except RuntimeError as e:
                vm_failed = str(e)
        if answer is not None:
            got = convert(answer)
            label = 'the VM (host lacks %s; %s)' % (', '.join(lacks), answer.by)
            if self.mode == 'record':
                self.save(key, got, answer.by)
            elif rec is not None and decode(rec['result']) != decode(encode(got)):
                return got, label, ['the recording %s (by %s) differs from the VM\'s kernel: '
                                    'SECCOMP_EMU_NATIVE=record to take its answer'
                                    % (where, rec['by'])]
            return got, label, []
        why = ('a known VM-CPU difference: %s' % pinned if pinned else
               'its native run cannot be made in the VM (see the harness)' if request is None else
               'SECCOMP_EMU_NATIVE_LEG=host' if self.leg == 'host' else
               'no VM here: %s' % self.vm_missing if vm is None else
               vm_failed if vm_failed else
               'no VM answer cached: scripts/vm-judge.sh runs the batch')
        if self.mode == 'record':
            return None, 'native', ['cannot record %s: the host lacks %s and %s'
                                    % (where, ', '.join(lacks), why)]
        if rec is None:
            return None, 'native', ['no native run here (the host lacks %s; %s) and no '
                                    'recording %s' % (', '.join(lacks), why, where)]
        return decode(rec['result']), 'recorded (host lacks %s; %s; by %s)' % (
            ', '.join(lacks), why, rec['by']), []
