#!/usr/bin/env python3
"""The scripts a user or CI runs (scripts/*.sh, .ci/run) fail loudly, and
the ones that read apt's sources read both formats:

- each sources scripts/lib/fail-loudly.bash before any other command;
- a script whose command fails stops there and says which script, line,
  command and status (a bare `set -e` ends the run without a word);
- `quiet CMD` keeps CMD's output out of the way, and shows its tail when it
  fails;
- debian_mirror finds the Debian mirror in one-line sources
  (sources.list, *.list), in deb822 sources (*.sources, all that new
  installs and container images have), in neither (empty, no error).
Exit 1 naming each failure."""
import glob
import os
import subprocess
import sys
import tempfile

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
LIB = os.path.join(TOP, 'scripts', 'lib', 'fail-loudly.bash')
failures = []


def check(ok, what):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


def first_command(path):
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s and not s.startswith('#'):
                return s
    return ''


def bash(script, cwd):
    path = os.path.join(cwd, 'case.sh')
    with open(path, 'w') as f:
        f.write('. %s\n%s' % (LIB, script))
    return subprocess.run(['bash', path], cwd=cwd, capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, TMPDIR=cwd))


def main():
    scripts = sorted(glob.glob(os.path.join(TOP, 'scripts', '*.sh'))) + [os.path.join(TOP, '.ci', 'run')]
    check(len(scripts) > 10, '%d scripts found' % len(scripts))
    for s in scripts:
        want = ('. "$(dirname "$0")/lib/fail-loudly.bash"' if '/scripts/' in s else
                '. "$(dirname "$0")/../scripts/lib/fail-loudly.bash"')
        check(first_command(s) == want, '%s sources fail-loudly.bash first' % os.path.relpath(s, TOP))

    with tempfile.TemporaryDirectory() as tmp:
        r = bash('echo before\nls /no/such/file >/dev/null 2>&1\necho after\n', tmp)
        check(r.returncode == 2 and 'after' not in r.stdout and
              'case.sh: failed (status 2) at line 3: ls /no/such/file' in r.stderr,
              'a failing command stops the script and is named: %r' % r.stderr.strip())
        r = bash('f() {\n  false\n}\nf\necho after\n', tmp)
        check(r.returncode == 1 and 'after' not in r.stdout and
              'at line 5, in f at line 3: false' in r.stderr,
              'a failure in a function names the caller\'s line too: %r' % r.stderr.strip())
        r = bash('if false; then :; fi\nfalse || true\nx=$(grep -c zzz /dev/null || true)\necho "ok $x"\n', tmp)
        check(r.returncode == 0 and r.stdout == 'ok 0\n' and r.stderr == '',
              'conditions are no failures: %r' % (r.stdout + r.stderr))
        r = bash('quiet sh -c "echo the reason; exit 3"\necho after\n', tmp)
        check(r.returncode == 3 and 'after' not in r.stdout and '    the reason' in r.stderr,
              'quiet shows a failing command\'s output: %r' % r.stderr.strip())
        r = bash('quiet sh -c "echo chatter"\necho after\n', tmp)
        check(r.returncode == 0 and r.stdout == 'after\n' and r.stderr == '',
              'quiet hides a command that works')

        def mirror(files):
            etc = tempfile.mkdtemp(dir=tmp)
            os.makedirs(os.path.join(etc, 'sources.list.d'))
            for name, text in files.items():
                with open(os.path.join(etc, name), 'w') as f:
                    f.write(text)
            r = bash('debian_mirror %s\n' % etc, tmp)
            return r.returncode, r.stdout.strip(), r.stderr

        deb822 = ('Types: deb\nURIs: http://deb.example.org/debian\nSuites: bookworm bookworm-updates\n'
                  'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n'
                  'Types: deb\nURIs: http://deb.example.org/debian-security\nSuites: bookworm-security\n'
                  'Components: main\n')
        got = mirror({'sources.list.d/debian.sources': deb822})
        check(got == (0, 'http://deb.example.org/debian', ''), 'deb822 sources only: %r' % (got,))
        got = mirror({'sources.list': '# deb http://old.example.org/debian sid main\n'
                                      'deb-src http://src.example.org/debian bookworm main\n'
                                      'deb [arch=amd64] http://one.example.org/debian/ bookworm main\n'})
        check(got == (0, 'http://one.example.org/debian', ''), 'one-line sources only: %r' % (got,))
        got = mirror({'sources.list.d/extra.list': 'deb https://mirror.example.org/debian bookworm main\n'})
        check(got == (0, 'https://mirror.example.org/debian', ''), 'a *.list file only: %r' % (got,))
        got = mirror({})
        check(got == (0, '', ''), 'no sources at all: empty, no error: %r' % (got,))
    print('%d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
