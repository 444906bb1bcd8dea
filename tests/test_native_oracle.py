#!/usr/bin/env python3
"""The native oracle's rules, with a fake capability probe and a fake VM
cache: a case the host cannot run, with no recording and no cached VM
answer, has the VM boot for it (and fails when the VM fails), a recording
answers for it, the VM's cached answer judges where there is
one (and a recording that disagrees with it fails), a collect pass spools
the request and judges nothing, record mode saves the VM's answer with its
kernel, CPU and date, a recording that disagrees with a live kernel run
fails, and the record format keeps bytes, tuples and dicts apart.  Last,
tests/check_recordings.py fails on a recording made by seccomp-emu."""
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import native_oracle  # noqa: E402

failed = []
passed = []


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what)
    (passed if ok else failed).append(what)


def probe(tmp, ia32):
    path = os.path.join(tmp, 'hostcaps-%s' % ia32)
    with open(path, 'w') as f:
        f.write('#!/bin/sh\necho "ia32 %s"\necho "tsc-off yes"\necho "noncanon-rsp yes"\n'
                'echo "avx yes"\necho "x86-64-v3 yes"\necho "vvar-kvm yes"\n' % ia32)
    os.chmod(path, stat.S_IRWXU)
    return path


def main():
    with tempfile.TemporaryDirectory() as tmp:
        native_oracle.STORE = tmp
        i386 = os.path.join(tmp, 'guest32')
        with open(i386, 'wb') as f:   # ELFCLASS32, EM_386
            f.write(b'\x7fELF\x01' + bytes(13) + b'\x03\x00')
        answer = (('exit', 0), b'hello\n', {'peer': b'\xff\x00', 'n': [1, (2, None)]})
        calls = []

        def live():
            calls.append(1)
            return answer

        os.environ['SECCOMP_EMU_HOSTCAPS'] = probe(tmp, 'no')
        os.environ.pop('SECCOMP_EMU_NATIVE', None)
        o = native_oracle.Oracle('t', '/nonexistent/seccomp-emu')
        want, label, problems = o.judge('k', i386, live, lambda: answer)
        check(want is None and problems and not calls,
              'no ia32, no recording: no answer, a problem, no native run')

        # the VM leg: a fake build directory with a kernel, an init and qemu
        # that exist, and an answer put in the cache as one boot would
        build = os.path.join(tmp, 'build')
        os.makedirs(os.path.join(build, 'tools'))
        os.makedirs(os.path.join(build, 'vm'))
        for f in ('tools/vm_init', 'vm/vmlinuz'):
            open(os.path.join(build, f), 'w').close()
        # a qemu that notes each boot and fails it
        booted = os.path.join(tmp, 'booted')
        fake_qemu = os.path.join(tmp, 'qemu')
        with open(fake_qemu, 'w') as f:
            f.write('#!/bin/sh\necho >> %s\nexit 1\n' % booted)
        os.chmod(fake_qemu, stat.S_IRWXU)
        os.environ['SECCOMP_EMU_VM_QEMU'] = fake_qemu
        os.environ.pop('SECCOMP_EMU_VM_KERNEL', None)
        os.environ.pop('SECCOMP_EMU_VM_CACHE', None)
        emu = os.path.join(build, 'seccomp-emu')
        req = native_oracle.vmjudge.Request([i386, 'arg'], stdin='feed', data=b'in')
        convert = lambda a: (('exit', a.returncode()), a.stdout, {'err': a.stderr})

        os.environ['SECCOMP_EMU_NATIVE'] = 'collect'
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), req, convert)
        spooled = os.listdir(native_oracle.vmjudge.spool_dir(build))
        check(want is None and not problems and label == 'collected' and len(spooled) == 1
              and not calls, 'collect: the request is spooled for the VM, nothing judged')

        os.environ['SECCOMP_EMU_NATIVE'] = 'auto'
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), req, convert)
        check(want is None and problems and 'the VM answered 0 of 1' in problems[0]
              and os.path.exists(booted) and not calls,
              'no ia32, nothing cached, no recording: the VM boots for the case (here it fails)')
        os.unlink(booted)
        vm = native_oracle.vmjudge.Vm.from_env(build).with_cpu(native_oracle.vm_cpu())
        vm_answer = native_oracle.vmjudge.Answer(7 << 8, b'out', b'', '6.12.0-test',
                                                 'tcg, -cpu max: AuthenticAMD, QEMU',
                                                 '2026-12-05')
        vm._store(vm.key(req), vm_answer)
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), req, convert)
        check(want == (('exit', 7), b'out', {'err': b''}) and not problems
              and label.startswith('the VM') and not calls,
              'no ia32: the VM\'s cached answer judges')
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), None, convert)
        check(want is None and 'cannot be made in the VM' in problems[0],
              'a case with no request (a peer on the host) says the VM cannot run it')

        os.environ['SECCOMP_EMU_NATIVE'] = 'record'
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), req, convert)
        rec = native_oracle.Oracle('t', emu).load('k')
        check(not problems and rec and rec['by'] == vm_answer.by and 'in QEMU' in rec['by']
              and '2026-12-05' in rec['by'], 'record: the VM\'s answer, with kernel, CPU, date')
        native_oracle.Oracle('t', emu).save('k', answer, 'the kernel: Linux 6.18 on X, 2026-12-05')
        os.environ['SECCOMP_EMU_NATIVE'] = 'auto'
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), req, convert)
        check(problems and 'differs from the VM' in problems[0],
              'a recording that disagrees with the VM\'s kernel fails')
        os.environ['SECCOMP_EMU_NATIVE_LEG'] = 'host'
        want, label, problems = native_oracle.Oracle('t', emu).judge(
            'k', i386, live, lambda: answer, (), req, convert)
        check(want == answer and not problems and label.startswith('recorded'),
              'SECCOMP_EMU_NATIVE_LEG=host: the recording, not the VM')
        del os.environ['SECCOMP_EMU_NATIVE_LEG']

        os.environ['SECCOMP_EMU_NATIVE'] = 'auto'
        want, label, problems = native_oracle.Oracle('t', '/x').judge('k', i386, live, lambda: None)
        check(want == answer and not problems and label.startswith('recorded') and not calls,
              'no ia32: the recording answers, round trip exact')

        os.environ['SECCOMP_EMU_HOSTCAPS'] = probe(tmp, 'yes')
        native_oracle._caps.clear()
        calls.clear()
        want, label, problems = native_oracle.Oracle('t', '/x').judge('k', i386, live, lambda: None)
        check(want == answer and not problems and label == 'native' and calls,
              'ia32: the kernel answers and agrees with the recording')
        other = (('signal', 11), b'', {})
        want, label, problems = native_oracle.Oracle('t', '/x').judge(
            'k', i386, lambda: other, lambda: None)
        check(want == other and problems, 'a recording the kernel disagrees with fails')
        try:
            native_oracle.Oracle('t', '/x').missing(i386, ['no-such-thing'])
            check(False, 'an unknown capability is refused')
        except SystemExit:
            check(True, 'an unknown capability is refused')
    # the recordings' own test can fail: one made by the emulator
    with tempfile.TemporaryDirectory() as store:
        os.makedirs(os.path.join(store, 'h'))
        with open(os.path.join(store, 'h', 'k.json'), 'w') as f:
            f.write('{"by": "seccomp-emu 1509f7d, standing in", "key": "k", "result": 0}')
        os.makedirs(os.path.join(store, 'diff', 'case'))
        with open(os.path.join(store, 'diff', 'case', 'by'), 'w') as f:
            f.write('the kernel: Linux 6.12.117 in QEMU (tcg, -cpu max: AuthenticAMD, QEMU), '
                    '2026-12-05\n')
        p = subprocess.run([sys.executable, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), 'check_recordings.py'), store],
            capture_output=True, text=True)
        check(p.returncode == 1 and 'h/k.json: made by seccomp-emu' in p.stdout
              and '1 passed, 1 failed' in p.stdout,
              'check_recordings fails on a recording made by seccomp-emu, passes a VM\'s')
    print('%d passed, %d failed' % (len(passed), len(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
