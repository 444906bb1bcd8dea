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

SECCOMP_EMU_NATIVE=record writes the kernel's answers (where it can give
them) to tests/native/HARNESS/.  SECCOMP_EMU_NATIVE=bootstrap, for a case no
kernel here can answer and no recording covers, records the emulated leg
instead, with SECCOMP_EMU_NATIVE_BY saying why that stands for the kernel
(it must be given); every later use of such a recording says so, and a host
that can run the case re-judges it.
"""
import hashlib
import json
import os
import platform
import re
import subprocess

STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'native')
CAPABILITIES = ('ia32', 'tsc-off', 'noncanon-rsp')

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
    seccomp-emu's --cpu=host (emu/cpu.c): AMD or Hygon, else Intel, also
    where there is no x86 CPU to read (docs/portability.md)."""
    return 'amd' if cpuinfo('vendor_id') in ('AuthenticAMD', 'HygonGenuine') else 'intel'


def kernel_name():
    return 'the kernel: Linux %s on %s' % (platform.release(),
                                           cpuinfo('model name') or platform.machine())


class Oracle:
    def __init__(self, harness, emu):
        self.dir = os.path.join(STORE, harness)
        self.mode = os.environ.get('SECCOMP_EMU_NATIVE', 'auto')
        if self.mode not in ('auto', 'record', 'bootstrap'):
            raise SystemExit('native_oracle: SECCOMP_EMU_NATIVE=%s: use auto, record or bootstrap'
                             % self.mode)
        self.probe = os.environ.get('SECCOMP_EMU_HOSTCAPS') or \
            os.path.join(os.path.dirname(emu), 'tests', 'hostcaps')

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

    def judge(self, key, program, live, emulated, needs=()):
        """(native answer, its label, problems).  The answer is None when
        there is none; problems are failures the harness must report."""
        lacks = self.missing(program, needs)
        rec = self.load(key)
        where = os.path.relpath(self.path(key))
        if not lacks:
            got = live()
            if self.mode == 'record':
                self.save(key, got, kernel_name())
            elif rec is not None and decode(rec['result']) != decode(encode(got)):
                return got, 'native', ['the recording %s (by %s) differs from the kernel here: '
                                       'SECCOMP_EMU_NATIVE=record to take the kernel\'s'
                                       % (where, rec['by'])]
            return got, 'native', []
        if rec is None and self.mode == 'bootstrap':
            by = os.environ.get('SECCOMP_EMU_NATIVE_BY')
            if not by:
                raise SystemExit('native_oracle: bootstrap needs SECCOMP_EMU_NATIVE_BY')
            self.save(key, emulated(), by)
            rec = self.load(key)
        if rec is None:
            return None, 'native', ['no native run here (the host lacks %s) and no recording %s'
                                    % (', '.join(lacks), where)]
        return decode(rec['result']), 'recorded (host lacks %s; by %s)' % (', '.join(lacks), rec['by']), []
