#!/usr/bin/env python3
"""The native oracle's rules, with a fake capability probe: a case the host
cannot run fails without a recording, a recording answers for it, a
recording that disagrees with a live kernel run fails, bootstrap demands a
reason, and the record format keeps bytes, tuples and dicts apart."""
import os
import stat
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
        f.write('#!/bin/sh\necho "ia32 %s"\necho "tsc-off yes"\necho "noncanon-rsp yes"\n' % ia32)
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

        os.environ['SECCOMP_EMU_NATIVE'] = 'bootstrap'
        os.environ.pop('SECCOMP_EMU_NATIVE_BY', None)
        try:
            native_oracle.Oracle('t', '/x').judge('k', i386, live, lambda: answer)
            check(False, 'bootstrap without SECCOMP_EMU_NATIVE_BY is refused')
        except SystemExit:
            check(True, 'bootstrap without SECCOMP_EMU_NATIVE_BY is refused')
        os.environ['SECCOMP_EMU_NATIVE_BY'] = 'a test'
        want, label, problems = native_oracle.Oracle('t', '/x').judge('k', i386, live, lambda: answer)
        check(want == answer and not problems and 'a test' in label,
              'bootstrap records the emulated answer, with its reason')

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
    print('%d passed, %d failed' % (len(passed), len(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
