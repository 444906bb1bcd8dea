#!/usr/bin/env python3
"""The kernel as judge where the host cannot be: a real Linux (Debian's
x86_64 kernel, IA-32 emulation on) booted under qemu-system-x86_64 with a
small initramfs whose init (tools/vm/vm_init.c) runs a batch of cases
natively and reports each one's stdout, stderr and wait status on a serial
port.  One boot serves a whole batch; answers are cached per (request, the
programs' contents, kernel image, QEMU CPU model), so a re-run boots
nothing.  See docs/differential-testing.md.

As a library (tests/native_oracle.py):
    vm = Vm.from_env(build_dir)           # None-free: raises VmMissing
    req = Request(argv, stdin='null', ...)
    ans = vm.cached(req)                  # Answer or None
    vm.run([req, ...])                    # boots once, fills the cache

As a command:
    vmjudge.py check                      # what would be used, or one line why not
    vmjudge.py spool --build DIR          # run every request queued by a collect pass
    vmjudge.py run --build DIR [--stdin-file F] [--cpu MODEL] -- PROGRAM ARG...

Where things are found (first that is set):
  kernel   --kernel, SECCOMP_EMU_VM_KERNEL, BUILD/vm/vmlinuz (scripts/vm-kernel.sh
           puts Debian's there), /boot/vmlinuz-* of this host when it is x86_64
  qemu     --qemu, SECCOMP_EMU_VM_QEMU, qemu-system-x86_64 on PATH
  init     --init, SECCOMP_EMU_VM_INIT, BUILD/tools/vm_init (built by meson)
  CPU      --cpu, SECCOMP_EMU_VM_CPU, `max` (QEMU's TCG CPU with every feature it models)
  accel    SECCOMP_EMU_VM_ACCEL, tcg
  cache    SECCOMP_EMU_VM_CACHE, BUILD/vm-cache
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

CACHE_VERSION = 1


class VmMissing(Exception):
    """What the VM leg needs and cannot find, as one line."""


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


class Request:
    """One native run, described so the VM can make it exactly as a harness
    makes it on the host.  Words and data are bytes or str."""

    def __init__(self, argv, env=(), stdin='null', data=b'', stdout='pipe', stderr='pipe',
                 rlimits=(), ignore=(), block=(), send=None, norandom=False, timeout=60.0):
        self.argv = [a if isinstance(a, bytes) else str(a).encode() for a in argv]
        self.env = [e if isinstance(e, bytes) else str(e).encode() for e in env]
        if stdin not in ('null', 'pipe', 'noreader', 'file', 'feed'):
            raise ValueError('vmjudge: stdin %r' % stdin)
        self.stdin, self.data = stdin, bytes(data)
        self.stdout, self.stderr = stdout, stderr
        self.rlimits = [(int(r), int(s), int(h)) for r, s, h in rlimits]
        self.ignore = sorted(int(s) for s in ignore)
        self.block = sorted(int(s) for s in block)
        self.send = (int(send[0]), int(send[1] * 1000)) if send else None
        self.norandom = bool(norandom)
        self.timeout_ms = int(timeout * 1000)
        # a relative program runs from the same directory in the VM, so that
        # argv[0] and AT_EXECFN stay what the host's run sees
        self.cwd = '' if self.argv[0].startswith(b'/') else os.getcwd()

    @property
    def program(self):
        return os.path.join(self.cwd, self.argv[0].decode())

    def describe(self):
        """Canonical: what the answer depends on, the program by content."""
        return {
            'argv': [a.hex() for a in self.argv], 'env': [e.hex() for e in self.env],
            'program-sha256': sha256_file(self.program), 'stdin': self.stdin,
            'data': self.data.hex(), 'stdout': self.stdout, 'stderr': self.stderr,
            'rlimits': self.rlimits, 'ignore': self.ignore, 'block': self.block,
            'send': self.send, 'norandom': self.norandom, 'timeout-ms': self.timeout_ms,
            'cwd': self.cwd,
        }

    def to_json(self):
        return json.dumps({'argv': [a.hex() for a in self.argv],
                           'env': [e.hex() for e in self.env], 'stdin': self.stdin,
                           'data': self.data.hex(), 'stdout': self.stdout, 'stderr': self.stderr,
                           'rlimits': self.rlimits, 'ignore': self.ignore, 'block': self.block,
                           'send': self.send, 'norandom': self.norandom,
                           'timeout-ms': self.timeout_ms, 'cwd': self.cwd}, sort_keys=True)

    @classmethod
    def from_json(cls, text):
        d = json.loads(text)
        r = cls([bytes.fromhex(a) for a in d['argv']], [bytes.fromhex(e) for e in d['env']],
                d['stdin'], bytes.fromhex(d['data']), d['stdout'], d['stderr'], d['rlimits'],
                d['ignore'], d['block'], None, d['norandom'], d['timeout-ms'] / 1000)
        r.send = tuple(d['send']) if d['send'] else None
        r.cwd = d['cwd']
        return r

    def batch_record(self, ident):
        fields = [('id', ident.encode())] + [('arg', a) for a in self.argv] + \
            [('env', e) for e in self.env] + [('stdin', self.stdin.encode()),
                                              ('data', self.data),
                                              ('stdout', self.stdout.encode()),
                                              ('stderr', self.stderr.encode()),
                                              ('timeout', str(self.timeout_ms).encode()),
                                              ('cwd', (self.cwd or '/').encode()),
                                              ('norandom', b'1' if self.norandom else b'0')]
        fields += [('rlimit', ('%d %d %d' % r).encode()) for r in self.rlimits]
        fields += [('ignore', str(s).encode()) for s in self.ignore]
        fields += [('block', str(s).encode()) for s in self.block]
        if self.send:
            fields.append(('send', ('%d %d' % self.send).encode()))
        out = [b'R\n']
        for tag, value in fields:
            out += [b'%s %d\n' % (tag.encode(), len(value)), value, b'\n']
        out.append(b'E\n')
        return b''.join(out)


class Answer:
    """The VM kernel's answer to one request."""

    def __init__(self, status, stdout, stderr, kernel, cpu, date):
        self.status = status      # raw wait status, or None for a hang
        self.stdout, self.stderr = stdout, stderr
        self.kernel, self.cpu, self.date = kernel, cpu, date

    @property
    def by(self):
        return 'the kernel: Linux %s in QEMU (%s), %s' % (self.kernel, self.cpu, self.date)

    def returncode(self):
        """As subprocess gives it: the exit code, or minus the signal."""
        if self.status is None:
            return None
        if os.WIFSIGNALED(self.status):
            return -os.WTERMSIG(self.status)
        return os.WEXITSTATUS(self.status)

    def to_dict(self):
        return {'status': self.status, 'stdout': self.stdout.hex(), 'stderr': self.stderr.hex(),
                'kernel': self.kernel, 'cpu': self.cpu, 'date': self.date}

    @classmethod
    def from_dict(cls, d):
        return cls(d['status'], bytes.fromhex(d['stdout']), bytes.fromhex(d['stderr']),
                   d['kernel'], d['cpu'], d['date'])


def _cpio_entry(name, mode, data=b'', rdev=(0, 0)):
    name_b = name.encode() + b'\0'
    head = b'070701' + b''.join(b'%08X' % v for v in (
        0, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0))
    pad = lambda n: b'\0' * ((4 - n % 4) % 4)
    return head + name_b + pad(len(head) + len(name_b)) + data + pad(len(data))


def make_initramfs(init, files, batch, cwds=()):
    """newc cpio: /init, /batch, each program at its host path, and the
    directories the cases start in."""
    dirs, out = set(), []

    def add_dirs(path):
        parts = path.strip('/').split('/')[:-1]
        for i in range(1, len(parts) + 1):
            d = '/'.join(parts[:i])
            if d not in dirs:
                dirs.add(d)
                out.append(_cpio_entry(d, 0o40755))
    for d in ('dev', 'proc', 'tmp'):
        dirs.add(d)
        out.append(_cpio_entry(d, 0o40755))
    out.append(_cpio_entry('dev/console', 0o20600, rdev=(5, 1)))
    with open(init, 'rb') as f:
        out.append(_cpio_entry('init', 0o100755, f.read()))
    out.append(_cpio_entry('batch', 0o100644, batch))
    for path in sorted(cwds):
        add_dirs(path.rstrip('/') + '/x')
    for path in sorted(files):
        add_dirs(path)
        with open(path, 'rb') as f:
            out.append(_cpio_entry(path.strip('/'), 0o100755, f.read()))
    out.append(_cpio_entry('TRAILER!!!', 0))
    return b''.join(out)


def _first(*values):
    for v in values:
        if v:
            return v
    return None


class Vm:
    def __init__(self, kernel, qemu, init, cpu, accel, cache):
        self.kernel, self.qemu, self.init = kernel, qemu, init
        self.cpu, self.accel, self.cache = cpu, accel, cache
        self._kernel_sha = None

    @classmethod
    def from_env(cls, build=None, kernel=None, qemu=None, init=None, cpu=None):
        """Finds what the VM needs; VmMissing (one line) when something is not there."""
        build = build or os.environ.get('SECCOMP_EMU_BUILD') or ''
        kernel = _first(kernel, os.environ.get('SECCOMP_EMU_VM_KERNEL'),
                        build and os.path.isfile(os.path.join(build, 'vm', 'vmlinuz')) and
                        os.path.join(build, 'vm', 'vmlinuz'),
                        platform.machine() == 'x86_64' and
                        (sorted(p for p in glob.glob('/boot/vmlinuz-*')
                                if os.access(p, os.R_OK)) or [None])[-1])
        if not kernel or not os.path.isfile(kernel):
            raise VmMissing('no kernel image for the VM%s: give --vm-kernel or '
                            'SECCOMP_EMU_VM_KERNEL (scripts/vm-kernel.sh fetches Debian\'s)'
                            % (' (%s is not a file)' % kernel if kernel else ''))
        qemu = _first(qemu, os.environ.get('SECCOMP_EMU_VM_QEMU'),
                      shutil.which('qemu-system-x86_64'))
        if not qemu or not os.access(qemu, os.X_OK):
            raise VmMissing('no qemu-system-x86_64: install it (Debian: qemu-system-x86; '
                            'macOS: brew install qemu) or give SECCOMP_EMU_VM_QEMU')
        init = _first(init, os.environ.get('SECCOMP_EMU_VM_INIT'),
                      build and os.path.join(build, 'tools', 'vm_init'))
        if not init or not os.path.isfile(init):
            raise VmMissing('no VM init program (tools/vm/vm_init.c, a static x86_64 ELF)%s: '
                            'build it or give SECCOMP_EMU_VM_INIT' %
                            (' at %s' % init if init else ''))
        cpu = _first(cpu, os.environ.get('SECCOMP_EMU_VM_CPU'), 'max')
        accel = os.environ.get('SECCOMP_EMU_VM_ACCEL', 'tcg')
        cache = _first(os.environ.get('SECCOMP_EMU_VM_CACHE'),
                       build and os.path.join(build, 'vm-cache'),
                       os.path.join(tempfile.gettempdir(), 'seccomp-emu-vm-cache'))
        return cls(os.path.abspath(kernel), qemu, os.path.abspath(init), cpu, accel, cache)

    def with_cpu(self, cpu):
        return Vm(self.kernel, self.qemu, self.init, cpu, self.accel, self.cache)

    def key(self, req):
        if self._kernel_sha is None:
            self._kernel_sha = sha256_file(self.kernel)
        text = json.dumps({'v': CACHE_VERSION, 'request': req.describe(),
                           'kernel-sha256': self._kernel_sha, 'cpu': self.cpu,
                           'accel': self.accel}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key):
        return os.path.join(self.cache, key[:2], key + '.json')

    def cached(self, req):
        try:
            with open(self._path(self.key(req))) as f:
                return Answer.from_dict(json.load(f))
        except FileNotFoundError:
            return None

    def _store(self, key, answer):
        path = self._path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = '%s.%d.tmp' % (path, os.getpid())
        with open(tmp, 'w') as f:
            json.dump(answer.to_dict(), f)
        os.replace(tmp, path)

    def run(self, requests, log=None):
        """Boots once for every request not yet cached; returns the answers
        in order.  Raises VmMissing-free RuntimeError when the VM fails."""
        keys = [self.key(r) for r in requests]
        todo = {}
        for k, r in zip(keys, requests):
            if self.cached(r) is None:
                todo.setdefault(k, r)
        if todo:
            self._boot(todo, log)
        answers = []
        for r in requests:
            a = self.cached(r)
            if a is None:
                raise RuntimeError('vmjudge: the VM gave no answer for %r' % r.argv)
            answers.append(a)
        return answers

    def _boot(self, todo, log):
        timeout = 120 + sum(r.timeout_ms for r in todo.values()) / 1000
        batch = b''.join(r.batch_record(k) for k, r in todo.items())
        files = {r.program for r in todo.values()}
        with tempfile.TemporaryDirectory(prefix='vmjudge-') as tmp:
            img = os.path.join(tmp, 'initramfs.cpio')
            with open(img, 'wb') as f:
                f.write(make_initramfs(self.init, files, batch,
                                       {r.cwd for r in todo.values() if r.cwd}))
            console, results = os.path.join(tmp, 'console'), os.path.join(tmp, 'results')
            size = os.path.getsize(img)
            mem = max(512, 256 + 3 * size // (1 << 20))
            argv = [self.qemu, '-accel', self.accel, '-cpu', self.cpu, '-m', str(mem),
                    '-smp', '1', '-nodefaults', '-display', 'none', '-no-reboot',
                    '-kernel', self.kernel, '-initrd', img,
                    '-append', 'console=ttyS0 panic=-1 quiet loglevel=3 rdinit=/init',
                    '-serial', 'file:' + console, '-serial', 'file:' + results]
            t0 = time.monotonic()
            try:
                p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                   timeout=timeout)
            except subprocess.TimeoutExpired:
                raise RuntimeError('vmjudge: the VM did not finish %d cases in %d s'
                                   % (len(todo), timeout))
            took = time.monotonic() - t0
            try:
                with open(results, 'rb') as f:
                    report = f.read().replace(b'\r', b'')
            except FileNotFoundError:   # qemu never started the machine
                report = b''
            kernel = cpu_name = None
            done = False
            date = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')
            got = 0
            for line in report.split(b'\n'):
                words = line.decode('ascii', errors='replace').split(' ')
                if words[:2] == ['VMJ', 'kernel'] and len(words) == 5:
                    kernel = bytes.fromhex(words[2]).decode()
                    cpu_name = '%s, -cpu %s: %s, %s' % (self.accel, self.cpu,
                                                   bytes.fromhex(words[4]).decode(),
                                                   bytes.fromhex(words[3]).decode())
                elif words[:2] == ['VMJ', 'answer'] and len(words) == 6 and kernel:
                    unhex = lambda w: b'' if w == '-' else bytes.fromhex(w)
                    key = unhex(words[2]).decode()
                    status = None if words[3] == 'hang' else int(words[3])
                    if key in todo:
                        self._store(key, Answer(status, unhex(words[4]), unhex(words[5]),
                                                kernel, cpu_name, date))
                        got += 1
                elif words[:2] == ['VMJ', 'done']:
                    done = True
                elif words[:2] == ['VMJ', 'error']:
                    raise RuntimeError('vmjudge: the VM init failed: %s' % line.decode(errors='replace'))
            if log:
                log('vmjudge: one boot of Linux %s (-cpu %s), %d cases, %.1f s'
                    % (kernel, self.cpu, len(todo), took))
            if not done or got != len(todo):
                try:
                    with open(console, 'rb') as f:
                        tail = f.read()[-600:].decode(errors='replace')
                except FileNotFoundError:
                    tail = ''
                raise RuntimeError('vmjudge: the VM answered %d of %d cases (qemu status %d): %s'
                                   % (got, len(todo), p.returncode,
                                      (p.stderr.decode(errors='replace') + tail).strip()
                                      .replace('\n', ' | ')[-400:]))


# A collect pass (SECCOMP_EMU_NATIVE=collect) writes each request the VM
# should answer into the spool; `vmjudge.py spool` then runs them in one
# boot per CPU model.
def spool_dir(build):
    return os.path.join(build, 'vm-spool')


def spool(build, cpu, req):
    d = spool_dir(build)
    os.makedirs(d, exist_ok=True)
    text = json.dumps({'cpu': cpu, 'request': json.loads(req.to_json())}, sort_keys=True)
    name = hashlib.sha256(text.encode()).hexdigest()[:24] + '.json'
    with open(os.path.join(d, name), 'w') as f:
        f.write(text)


def run_spool(build, log):
    d = spool_dir(build)
    by_cpu = {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, name)) as f:
            e = json.load(f)
        by_cpu.setdefault(e['cpu'], []).append(Request.from_json(json.dumps(e['request'])))
    base = Vm.from_env(build)
    for cpu, reqs in sorted(by_cpu.items()):
        base.with_cpu(cpu).run(reqs, log)
    shutil.rmtree(d, ignore_errors=True)
    return sum(len(r) for r in by_cpu.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('what', choices=['check', 'spool', 'run'])
    ap.add_argument('--build', default=os.environ.get('SECCOMP_EMU_BUILD', ''))
    ap.add_argument('--kernel')
    ap.add_argument('--qemu')
    ap.add_argument('--init')
    ap.add_argument('--cpu')
    ap.add_argument('--stdin-file', help='the program\'s stdin (a file); /dev/null if not given')
    ap.add_argument('--timeout', type=float, default=60)
    ap.add_argument('--json', action='store_true', help='run: print the answer as JSON')
    ap.add_argument('--vendor', choices=['intel', 'amd'],
                    help='run: the CPU vendor QEMU reports (vendor=GenuineIntel/AuthenticAMD)')
    ap.add_argument('--answer-dir', help='run: write stdout, stderr, status and by there '
                    '(the layout of seccomp-emu-diff\'s recordings)')
    ap.add_argument('--cached-only', action='store_true',
                    help='run: exit 4 rather than boot when the answer is not cached')
    argv = sys.argv[1:]
    cut = argv.index('--') if '--' in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.cmd = argv[cut + 1:]
    log = lambda s: print(s, file=sys.stderr)
    try:
        vm = Vm.from_env(a.build, a.kernel, a.qemu, a.init, a.cpu)
        if a.what == 'check':
            print('kernel %s\nqemu %s\ninit %s\ncpu %s\naccel %s\ncache %s' % (
                vm.kernel, vm.qemu, vm.init, vm.cpu, vm.accel, vm.cache))
            return 0
        if a.what == 'spool':
            n = run_spool(a.build, log)
            log('vmjudge: %d spooled cases answered' % n)
            return 0
        if not a.cmd:
            ap.error('run needs a PROGRAM')
        data = b''
        if a.stdin_file:
            with open(a.stdin_file, 'rb') as f:
                data = f.read()
        req = Request(a.cmd, stdin='file' if a.stdin_file else 'null', data=data,
                      timeout=a.timeout)
        if a.vendor:
            vm = vm.with_cpu(vm.cpu + ',vendor=' + {'intel': 'GenuineIntel',
                                                     'amd': 'AuthenticAMD'}[a.vendor])
        if os.environ.get('SECCOMP_EMU_NATIVE') == 'collect':
            spool(a.build, vm.cpu, req)
            return 3
        if a.cached_only and vm.cached(req) is None:
            return 4
        ans, = vm.run([req], log)
        if a.answer_dir:
            os.makedirs(a.answer_dir, exist_ok=True)
            st = ans.status
            status = ('hang' if st is None else 'signal %d' % os.WTERMSIG(st)
                      if os.WIFSIGNALED(st) else 'exit %d' % os.WEXITSTATUS(st))
            for name, data in (('stdout', ans.stdout), ('stderr', ans.stderr),
                               ('status', (status + '\n').encode()),
                               ('by', (ans.by + '\n').encode())):
                with open(os.path.join(a.answer_dir, name), 'wb') as f:
                    f.write(data)
        elif a.json:
            print(json.dumps(dict(ans.to_dict(), by=ans.by)))
        else:
            sys.stdout.buffer.write(ans.stdout)
            sys.stderr.buffer.write(ans.stderr)
        return 0
    except VmMissing as e:
        print('vmjudge: %s' % e, file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as e:
        print(str(e), file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
