#!/usr/bin/env python3
"""Files a user grants (--ro), judged by the kernel.

The kernel's model of a read-only grant is a read-only bind mount in a
root of its own: the native leg runs each program in a fresh mount
namespace, chrooted into a directory that holds only the same grants,
bind-mounted read-only at the same guest paths:

  native:   unshare -m: mount --bind HOST ROOT/GUEST; remount ro; ...;
            unshare --root=ROOT --wd=CWD PROGRAM ARGS
  emulated: seccomp-emu --ro HOST:GUEST ... --cwd=CWD PROGRAM ARGS

Stdout, stderr and the exit status must agree, for real programs (busybox applets,
a glibc stdio program for both ABIs, a Rust program) and for every escape
attempt ('..', absolute and relative symlinks out of the grant,
/proc/self/root, loops), which the chroot answers as missing paths.  The
i386 programs are judged by the x86_64 native run of the same program:
this host cannot run i386, and the judge VM cannot see the host's files.

Then what the host sees: seccomp-emu itself under strace while the escape
attempts run (after Landlock, every host open is one name below a granted
directory, read-only, O_NOFOLLOW; no call names the secret), inotify on
the secret directory (no event), and two races against a process renaming
things in the grant (a symlink swapped in, a directory moved out), each
shown natively to reach the secret, emulated never.  Last, the
self-sandbox: seccomp-emu's own read-only open outside the grants is
refused (Landlock), one inside passes.

usage: check_grants.py --emu E --files64 F --files32 F --busybox B
                       [--rust R] [--rust-cmain R] [--go G] [--strace S]
"""
import argparse
import ctypes
import ctypes.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

failures = 0
waiting = []


def check(ok, msg):
    global failures
    if not ok:
        failures += 1
    print(('ok   ' if ok else 'FAIL ') + msg)
    sys.stdout.flush()


def run(argv, timeout=120, env=None):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout, env=env if env is not None else {})
    return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')


class Tree:
    """The host side: granted trees, a secret outside them, a root for the
    native leg."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.data = os.path.join(tmp, 'host', 'data')
        self.etc = os.path.join(tmp, 'host', 'etc')
        self.secret = os.path.join(tmp, 'host', 'secret')
        self.root = os.path.join(tmp, 'root')
        d = self.data
        for sub in ('sub/deep', 'emptydir', 'x/y', 'r'):
            os.makedirs(os.path.join(d, sub))
        os.makedirs(self.secret)
        os.makedirs(self.etc)
        def put(path, data, mode=0o644):
            with open(path, 'wb') as f:
                f.write(data)
            os.chmod(path, mode)
        put(os.path.join(d, 'a.txt'), b'hello, granted world\n')
        put(os.path.join(d, 'conf'), b'# the job\nname = report\nthreads=4\n\nmode = fast\n')
        put(os.path.join(d, 'big.bin'), bytes((i * 7 + (i >> 8)) & 0xff for i in range(300000)))
        put(os.path.join(d, 'sub', 'b.txt'), b'second\nfile\n')
        put(os.path.join(d, 'sub', 'deep', 'c.txt'), b'deep\n')
        put(os.path.join(d, 'private'), b'owner only\n', 0o600)
        put(os.path.join(d, 'script.sh'), b'#!/bin/sh\n', 0o755)
        put(os.path.join(d, 'x', 'f'), b'inside\n')
        put(os.path.join(d, 'x', 'y', 'g'), b'inside too\n')
        put(os.path.join(d, 'r', 'f'), b'inside\n')
        put(os.path.join(self.secret, 'f'), b'SECRET\n')
        put(os.path.join(self.secret, 'secret.txt'), b'SECRET\n')
        os.symlink('a.txt', os.path.join(d, 'link'))
        os.symlink('sub', os.path.join(d, 'dirlink'))
        os.symlink('sub/../a.txt', os.path.join(d, 'dotlink'))
        # Escapes: each names the secret on the host.
        os.symlink(os.path.join(self.secret, 'secret.txt'), os.path.join(d, 'abs'))
        os.symlink('../' * 12 + self.secret.lstrip('/') + '/secret.txt', os.path.join(d, 'rel_out'))
        os.symlink('../secret', os.path.join(d, 'outdir'))
        os.symlink('..', os.path.join(d, 'up'))
        os.symlink('/', os.path.join(d, 'rootlink'))
        os.symlink('loop2', os.path.join(d, 'loop1'))
        os.symlink('loop1', os.path.join(d, 'loop2'))
        os.symlink('missing', os.path.join(d, 'dangling'))
        os.mkfifo(os.path.join(d, 'fifo'))
        # /etc: what busybox reads for names and the time zone.
        for name in ('passwd', 'group'):
            shutil.copy(os.path.join('/etc', name), os.path.join(self.etc, name))
        if os.path.exists('/etc/localtime'):
            shutil.copy(os.path.realpath('/etc/localtime'), os.path.join(self.etc, 'localtime'))
        self.grants = [(self.data, '/data'), (self.etc, '/etc')]
        for _, guest in self.grants:
            os.makedirs(self.root + guest)
        os.makedirs(os.path.join(self.root, 'bin'))

    def native(self, prog, args, cwd='/data'):
        """The program in the kernel's model of the namespace."""
        inside = os.path.join(self.root, 'bin', os.path.basename(prog))
        if not os.path.exists(inside):
            shutil.copy(prog, inside)
        steps = []
        for host, guest in self.grants:
            at = self.root + guest
            steps.append('mount --bind %s %s && mount -o remount,bind,ro %s' % (host, at, at))
        script = ' && '.join(steps) + ' && exec unshare --root=%s --wd=%s "$@"' % (self.root, cwd)
        unshare = ['unshare', '-m'] if os.geteuid() == 0 else ['unshare', '-rm']
        env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin'}
        return run(unshare + ['sh', '-c', script, 'native', '/bin/' + os.path.basename(prog)]
                   + args, env=env)

    def emulated(self, emu, prog, args, cwd='/data', extra=()):
        opts = ['--ro=%s:%s' % g for g in self.grants]
        return run([emu, '-q'] + opts + ['--cwd=' + cwd] + list(extra) + [prog] + args)


# [name, program key, args, cwd]
def cases(t):
    bb = 'busybox'
    return [
        ['cat', bb, ['cat', '/data/a.txt', 'a.txt', 'link', 'dotlink', 'sub/../a.txt',
                     'dirlink/b.txt', './sub/deep/../b.txt'], '/data'],
        ['sha256sum', bb, ['sha256sum', 'big.bin', '/data/a.txt', 'sub/deep/c.txt'], '/data'],
        ['md5sum-rel', bb, ['md5sum', '../big.bin', '../conf'], '/data/sub'],
        ['ls-la', bb, ['ls', '-la', '/data/sub', 'sub/deep', 'emptydir'], '/data'],
        ['ls-lR', bb, ['ls', '-lRn', '/data/x'], '/data'],
        ['ls-l-links', bb, ['ls', '-ln', '/data/link', '/data/dirlink/', '/data/abs'], '/data'],
        ['find', bb, ['find', '/data/sub', '/data/x', '-type', 'f'], '/data'],
        ['wc', bb, ['wc', '-l', 'conf', 'sub/b.txt', 'big.bin'], '/data'],
        ['head-tail', bb, ['head', '-c', '100', 'big.bin'], '/data'],
        ['stat', bb, ['stat', '-c', '%n %s %a %F %h %u %g %i', 'a.txt', 'sub', 'link',
                      'fifo', 'private'], '/data'],
        ['readlink', bb, ['readlink', 'link'], '/data'],
        ['readlink-abs', bb, ['readlink', 'abs'], '/data'],
        ['readlink-f', bb, ['readlink', '-f', 'dirlink/../dotlink'], '/data'],
        ['realpath', bb, ['realpath', 'dotlink', 'dirlink/b.txt', 'up/data/a.txt'], '/data'],
        ['pwd', bb, ['pwd'], '/data/sub/deep'],
        ['cat-escapes', bb, ['cat', 'abs', 'rel_out', 'outdir/f', 'up/../secret/f',
                             '../../../../../../secret/f', '/proc/self/root/etc/passwd',
                             'rootlink/' + t.secret.lstrip('/') + '/f', 'loop1', 'dangling',
                             t.secret + '/f', '/data/../../' + t.secret.lstrip('/') + '/f'],
         '/data'],
        ['probe', 'files', [
            'cat:/data/a.txt', 'stat:/data/a.txt', 'lstat:/data/link', 'stat:/data/link',
            'statx:/data/sub', 'readlink:/data/link', 'readlink:/data/a.txt', 'ls:/data',
            'ls:/data/sub', 'getdents:/data', 'getdents-old:/data', 'getdents-old:/data/sub',
            'access:/data/a.txt:r', 'access:/data/a.txt:w',
            'access:/data/a.txt:x', 'access:/data/script.sh:x', 'access:/data/private:r',
            'access:/data/sub:w', 'open:/data/a.txt:w', 'open:/data/a.txt:rw',
            'open:/data/new:wcreat', 'open:/data/a.txt:rcreatexcl', 'open:/data/link:nofollow',
            'open:/data:dir', 'open:/data:w', 'open:/data/a.txt:trunc', 'open:/data/a.txt:dir',
            'open:/data/missing/x:wcreat', 'chdir:/data/sub', 'chdir:/data/a.txt',
            'fchdir:/data', 'mmap:/data/conf', 'mmap:/data/big.bin', 'seek:/data/conf',
            'fcntl:/data/conf', 'at:/data/sub:../conf', 'at:/data:link', 'at:/data:sub/deep/c.txt',
            'stat:/data/fifo', 'stat:/data/emptydir', 'ls:/data/emptydir'], '/data'],
        ['probe-escapes', 'files', [
            'cat:/data/abs', 'cat:/data/rel_out', 'cat:/data/outdir/f', 'ls:/data/outdir',
            'cat:/data/up/../secret/f', 'cat:/proc/self/root/etc/passwd',
            'stat:/proc/self/cwd', 'cat:/data/loop1', 'stat:/data/dangling',
            'lstat:/data/dangling', 'cat:' + t.secret + '/f', 'stat:' + t.secret,
            'open:/data/../../../../secret/f', 'at:/data:../../secret/f',
            'at:/data/sub:../../' + t.secret.lstrip('/') + '/f', 'chdir:/data/outdir',
            'readlink:/proc/self/root', 'access:' + t.secret + '/f:r'], '/data'],
        ['rust-cmain', 'rust-cmain', ['/data/conf', '/data', 'dotlink'], '/data'],
        ['rust', 'rust', ['/data/conf', '/data', 'dotlink'], '/data'],
        ['go', 'go', ['/data/conf', '/data', 'dotlink'], '/data'],
    ]


# Programs that cannot run under seccomp-emu yet, and why; they are run
# and reported, and fail the test the day they pass (move them up).
WAITING = {}


class Inotify:
    """Every event on a directory while it is watched (Linux)."""
    IN_ALL = 0xfff

    def __init__(self, path):
        self.libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK)
        if self.fd < 0 or self.libc.inotify_add_watch(self.fd, path.encode(), self.IN_ALL) < 0:
            raise OSError(ctypes.get_errno(), 'inotify')

    def events(self):
        out = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return out
            i = 0
            while i < len(data):
                wd, mask, cookie, ln = struct.unpack_from('iIII', data, i)
                name = data[i + 16:i + 16 + ln].rstrip(b'\0').decode()
                out.append((hex(mask), name))
                i += 16 + ln


# Host calls that take a path as their first string argument.
FILE_CALLS = {'open', 'openat', 'openat2', 'creat', 'stat', 'lstat', 'newfstatat', 'statx',
              'readlink', 'readlinkat', 'access', 'faccessat', 'faccessat2', 'chdir', 'execve',
              'execveat', 'mkdir', 'mkdirat', 'unlink', 'unlinkat', 'rename', 'renameat',
              'renameat2', 'link', 'linkat', 'symlink', 'symlinkat', 'chmod', 'fchmodat',
              'truncate', 'mknod', 'mknodat', 'utimensat', 'getxattr', 'lgetxattr', 'statfs'}


def host_watch(a, t, progs):
    """The escape attempts again, seccomp-emu under strace and the secret
    under inotify."""
    watch = Inotify(t.secret)
    log = os.path.join(t.tmp, 'strace.log')
    escapes = [c for c in cases(t) if c[0] in ('cat-escapes', 'probe-escapes')]
    for name, key, args, cwd in escapes:
        opts = ['--ro=%s:%s' % g for g in t.grants]
        rc, out, err = run([a.strace, '-f', '-qq', '-e', 'trace=%file,%desc', '-o', log,
                            a.emu, '-q'] + opts + ['--cwd=' + cwd, progs[key]] + args)
        lines = open(log).read().splitlines()
        after = False
        bad = []
        opens = 0
        for line in lines:
            if 'landlock_restrict_self' in line:
                after = True
                continue
            call = re.match(r'\d+ +(\w+)\(', line)
            path = re.search(r'"([^"]*)"', line)
            if call and path and call.group(1) in FILE_CALLS and 'secret' in path.group(1):
                bad.append('names the secret: ' + line)
            if not after:
                continue
            m = re.search(r'\b(open|openat|openat2|creat)\((.*)', line)
            if not m:
                continue
            opens += 1
            args_ = m.group(2)
            mm = re.match(r'(\d+), "([^"]*)", ([A-Z_|]+)', args_)
            if m.group(1) != 'openat' or not mm:
                bad.append('not one name below a directory: ' + line)
                continue
            fd, name_, flags = mm.groups()
            if '/' in name_ or name_ == '..' or 'O_NOFOLLOW' not in flags or \
                    not flags.startswith('O_RDONLY') or 'O_CREAT' in flags:
                bad.append(line)
        if a.no_self_sandbox_build:
            # No Landlock point to count the walk's opens from: only that no
            # host file call names the secret.
            named = [b for b in bad if b.startswith('names the secret')]
            check(not named, 'host watch (strace) %s: no host file call names the secret (this '
                  'build has no self-sandbox)%s' % (name, '' if not named else ': ' + named[0]))
            continue
        check(after and not bad and opens > 0,
              'host watch (strace) %s: %d host opens after Landlock, each one name below a '
              'granted directory, read-only, O_NOFOLLOW; none names the secret%s' %
              (name, opens, '' if not bad else ': ' + '; '.join(bad[:3])))
    ev = watch.events()
    check(not ev, 'host watch (inotify): the secret directory saw no event during the escapes%s'
          % ('' if not ev else ': %r' % ev[:5]))
    # The watcher can see: a native read of the secret is an event.
    with open(os.path.join(t.secret, 'f')) as f:
        f.read()
    check(bool(watch.events()), 'host watch (inotify) control: a native read of the secret is seen')


def race(a, t, progs):
    """Rename races: what the guest reads while another process swaps a
    symlink to the secret in, or moves a directory out of the grant."""
    stop = threading.Event()
    d = t.data
    def swap_symlink():
        r, tmpname = os.path.join(d, 'r'), os.path.join(d, 'r.tmp')
        while not stop.is_set():
            os.rename(r, tmpname)
            os.symlink(t.secret, r)
            os.unlink(r)
            os.rename(tmpname, r)
    def move_out():
        y, out = os.path.join(d, 'x', 'y'), os.path.join(t.secret, 'y')
        while not stop.is_set():
            os.rename(y, out)
            os.rename(out, y)
    n = '20000'
    for label, racer, op_native, op_guest in [
            ('symlink swapped in', swap_symlink, 'race:%s/r/f:%s' % (d, n), 'race:/data/r/f:' + n),
            ('directory moved out', move_out, 'dotdot:%s/x/y:%s' % (d, n),
             'dotdot:/data/x/y:' + n)]:
        results = {}
        for leg in ('native', 'emulated'):
            stop.clear()
            th = threading.Thread(target=racer)
            th.start()
            try:
                if leg == 'native':
                    rc, out, err = run([progs['files']] + [op_native])
                else:
                    rc, out, err = t.emulated(a.emu, progs['files'], [op_guest])
            finally:
                stop.set()
                th.join()
            m = re.search(r'inside (\d+) secret (\d+) other (\d+) errors (\d+)', out)
            results[leg] = tuple(int(x) for x in m.groups()) if m else None
        nat, emu = results['native'], results['emulated']
        check(nat is not None and nat[1] > 0,
              'race (%s), native control: the racer reaches the secret (%s)' % (label, nat))
        check(emu is not None and emu[1] == 0 and emu[0] > 0,
              'race (%s), emulated: never the secret (inside, secret, other, errors = %s)'
              % (label, emu))


def self_sandbox(a, t, progs):
    opts = ['--ro=%s:%s' % g for g in t.grants]
    for path, want_rc, what in [
            ('/etc/passwd', 71, 'outside the grants: refused by Landlock'),
            (os.path.join(t.data, 'a.txt'), 70, 'inside a granted directory: opens (control)')]:
        rc, out, err = run([a.emu] + opts + ['--self-sandbox-test=open-ro:' + path,
                                             progs['files']])
        ok = rc == want_rc and (want_rc != 71 or 'Permission denied' in err)
        check(ok, 'self-sandbox: seccomp-emu opening %s %s (status %d: %s)'
              % (path, what, rc, err.strip()))
    # Without grants the filter allows no open at all.
    rc, out, err = run([a.emu, '--self-sandbox-test=open-ro:/etc/passwd', progs['files']])
    check(rc == -31, 'self-sandbox without grants: the same open dies of SIGSYS (status %d)' % rc)


def bad_grants(a, t, progs):
    fifo = os.path.join(t.data, 'fifo')
    for spec, what in [(os.path.join(t.tmp, 'missing'), 'a missing host path'),
                       (fifo, 'a FIFO'),
                       ('%s:/data/../x' % t.data, 'a guest path with ..'),
                       ('%s/a.txt:/f --ro=%s:/f/x' % (t.data, t.data), 'a grant below a file')]:
        argv = [a.emu] + ['--ro=' + s for s in spec.split(' --ro=')] + [progs['files']]
        rc, out, err = run(argv, timeout=20)
        check(rc in (1, 2) and not out and len(err.strip().splitlines()) == 1,
              'bad grant (%s): status %d, one line: %s' % (what, rc, err.strip()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--emu', required=True)
    ap.add_argument('--files64', required=True)
    ap.add_argument('--files32', required=True)
    ap.add_argument('--busybox', required=True)
    ap.add_argument('--rust')
    ap.add_argument('--rust-cmain')
    ap.add_argument('--go')
    ap.add_argument('--strace')
    ap.add_argument('--no-self-sandbox-build', action='store_true',
                    help='seccomp-emu was built without the self-sandbox')
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='seccomp-emu-grants-')
    try:
        t = Tree(tmp)
        progs = {'busybox': a.busybox, 'files': a.files64, 'files32': a.files32,
                 'rust': a.rust, 'rust-cmain': a.rust_cmain, 'go': a.go}
        for name, key, args, cwd in cases(t):
            if not progs.get(key):
                check(False, '%s: no %s program was built' % (name, key))
                continue
            nat = t.native(progs[key], args, cwd)
            emu = t.emulated(a.emu, progs[key], args, cwd)
            same = nat == emu
            check(same, '%s (x86_64): %s' % (name, 'status %d, %d+%d lines agree' % (
                emu[0], len(emu[1].splitlines()), len(emu[2].splitlines())) if same else
                'native %d %r\n     emulated %d %r (%s)' % (nat[0], nat[1], emu[0], emu[1],
                                                          emu[2].strip())))
            if key == 'files':
                # The old getdents is left to x86_64: for i386 it answers
                # EOVERFLOW where the host's inode numbers pass 32 bits.
                args32 = [x for x in args if not x.startswith('getdents-old:')]
                want = (nat[0], ''.join(l for l in nat[1].splitlines(True)
                                        if not l.startswith('getdents-old ')), nat[2])
                emu32 = t.emulated(a.emu, progs['files32'], args32, cwd)
                same = want == emu32
                nat = want
                check(same, '%s (i386, judged by the x86_64 native run): %s' % (
                    name, 'agree' if same else 'native %r\n     emulated %r' % (nat[1], emu32[1])))
        for key, why in WAITING.items():
            if not progs.get(key):
                continue
            nat = t.native(progs[key], ['/data/conf', '/data', 'dotlink'])
            emu = t.emulated(a.emu, progs[key], ['/data/conf', '/data', 'dotlink'])
            check(nat[:2] != emu[:2], 'waiting: %s (%s): still differs (emulated status %d); '
                  'when it agrees, move it to the cases' % (key, why, emu[0]))
        if a.strace:
            host_watch(a, t, progs)
        else:
            check(False, 'host watch: no strace')
        race(a, t, progs)
        if a.no_self_sandbox_build:
            print('     self-sandbox: not run, this build has none (-Dself_sandbox=disabled)')
        else:
            self_sandbox(a, t, progs)
        bad_grants(a, t, progs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d failed' % failures)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
