#!/usr/bin/env python3
"""The Linux kernel's seccomp selftests, run natively and under seccomp-emu.

tools/testing/selftests/seccomp/seccomp_bpf.c is not in this tree (it is the
kernel's): this script obtains it from the Debian binary package
linux-source-X.Y (apt-get download, no installation), keeps the five files
it needs in a cache, builds them statically around tests/selftests/kst_one.c
(one test per process: the harness's fork per test is not emulated), and
runs every test twice, natively (the judge) and under seccomp-emu.

A test is IN SCOPE when it needs nothing seccomp-emu does not emulate:
no ptrace and no namespaces; threads, fork and user notification between
guest tasks are emulated (TASKS.md), so the KILL_*, TSYNC and most
user_notification_* tests are in (NOT_EMULATED says why the others are
out); the run
fails if an in-scope test ends differently under seccomp-emu than natively,
or if a test that passes natively is missing.  Out-of-scope tests are run
too and counted, never judged.

usage: kernel_selftests.py --emu EMU --work DIR --cache DIR [--ledger FILE] [--cc CC]
Exit: 0 agreed, 1 a difference, 77 the sources cannot be obtained (skip).

SECCOMP_EMU_KST_JUDGED_ONLY=1 (CI's sanitizer and arm64 legs) leaves the
out-of-scope tests out: nothing judges them, a third of them wait for what
is not emulated until their time runs out, and the first leg's ledger has
counted them already.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import runs_i386  # noqa: E402

IN_SCOPE = [
    'mode_strict_support', 'mode_strict_cannot_call_prctl', 'no_new_privs_support',
    'mode_filter_support', 'mode_filter_without_nnp', 'filter_size_limits',
    'filter_chain_limits', 'mode_filter_cannot_move_to_strict', 'mode_filter_get_seccomp',
    'ALLOW_all', 'empty_prog', 'log_all', 'unknown_ret_is_kill_inside',
    'unknown_ret_is_kill_above_allow', 'KILL_all', 'KILL_one', 'KILL_one_arg_one',
    'KILL_one_arg_six', 'arg_out_of_range', 'ERRNO_valid', 'ERRNO_zero', 'ERRNO_capped',
    'ERRNO_order', 'TRAP.dfl', 'TRAP.ign', 'TRAP.handler',
    'precedence.allow_ok', 'precedence.kill_is_highest',
    'precedence.kill_is_highest_in_any_order', 'precedence.trap_is_second',
    'precedence.trap_is_second_in_any_order', 'precedence.errno_is_third',
    'precedence.errno_is_third_in_any_order', 'precedence.trace_is_fourth',
    'precedence.trace_is_fourth_in_any_order', 'precedence.log_is_fifth',
    'precedence.log_is_fifth_in_any_order', 'negative_ENOSYS', 'seccomp_syscall',
    'seccomp_syscall_mode_lock', 'detect_seccomp_filter_flags', 'TSYNC_first',
    'filter_flag_log', 'get_action_avail', 'seccomp_get_notif_sizes', 'kcmp',
    # threads and processes (the multi-task kernel)
    'KILL_thread', 'KILL_process', 'KILL_unknown',
    'TSYNC.siblings_fail_prctl', 'TSYNC.two_siblings_with_ancestor',
    'TSYNC.two_sibling_want_nnp', 'TSYNC.two_siblings_with_no_filter',
    'TSYNC.two_siblings_with_one_divergence',
    'TSYNC.two_siblings_with_one_divergence_no_tid_in_err',
    'TSYNC.two_siblings_not_under_filter',
    # user notification between guest tasks
    'user_notification_basic', 'user_notification_with_tsync',
    'user_notification_kill_in_middle', 'user_notification_signal',
    'user_notification_closed_listener', 'user_notification_continue',
    'user_notification_filter_empty', 'user_notification_filter_empty_threaded',
    # ... with memfd_create and kcmp, /proc/<pid>/stat and /proc/<pid>/syscall
    'user_notification_addfd', 'user_notification_addfd_rlimit', 'user_notification_fifo',
    'user_notification_wait_killable_pre_notification', 'user_notification_wait_killable',
    'user_notification_wait_killable_fatal',
]
# Out of scope for what they need beside seccomp (the ledger says so).
NOT_EMULATED = {
    'user_notification_child_pid_ns': 'PID namespaces (unshare)',
    'user_notification_sibling_pid_ns': 'PID namespaces (unshare)',
    'user_notification_fault_recv': 'user namespaces (unshare)',
}
# In scope, but seccomp-emu ends them differently for a reason outside
# filter mode: reported in the ledger, not failed on.  A case that starts to
# agree is reported too (take it out of this list).
KNOWN = {}
PACKAGES = ['linux-source-6.1', 'linux-source-6.12']
NEEDED = ['tools/testing/selftests/seccomp/seccomp_bpf.c',
          'tools/testing/selftests/kselftest_harness.h',
          'tools/testing/selftests/kselftest.h',
          'tools/testing/selftests/clone3/clone3_selftests.h']


def obtain(cache, errors):
    """The selftest sources in cache/src; returns the kernel version or None
    (with why each package failed in ERRORS)."""
    stamp = os.path.join(cache, 'version')
    if os.path.exists(stamp):
        return open(stamp).read().strip()
    os.makedirs(cache, exist_ok=True)
    for pkg in PACKAGES:
        dl = os.path.join(cache, 'dl')
        shutil.rmtree(dl, ignore_errors=True)
        os.makedirs(dl)
        try:
            r = subprocess.run(['apt-get', 'download', pkg], cwd=dl, capture_output=True)
        except OSError as e:   # no apt-get here
            errors.append('%s: %s' % (pkg, e))
            continue
        debs = glob.glob(os.path.join(dl, '*.deb'))
        if r.returncode != 0 or not debs:
            last = (r.stderr.decode(errors='replace').strip().splitlines() or ['no .deb'])[-1]
            errors.append('%s: %s' % (pkg, last))
            continue
        ver = pkg[len('linux-source-'):]
        tarball = './usr/src/linux-source-%s.tar.xz' % ver
        sh = ('dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" "$3" && '
              'xz -dc "$2/$3" | tar -x -C "$2" --strip-components=1 ' +
              ' '.join("'linux-source-%s/%s'" % (ver, n) for n in NEEDED))
        r = subprocess.run(['sh', '-c', sh, 'sh', debs[0], dl, tarball], capture_output=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr.decode(errors='replace'))
            continue
        src = os.path.join(cache, 'src')
        shutil.rmtree(src, ignore_errors=True)
        for n in NEEDED:
            os.makedirs(os.path.dirname(os.path.join(src, n)), exist_ok=True)
            shutil.copy(os.path.join(dl, n), os.path.join(src, n))
        shutil.rmtree(dl)
        deb = os.path.basename(debs[0])
        with open(stamp, 'w') as f:
            f.write(deb + '\n')
        return deb
    return None


def run(cmd, timeout):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout.decode(errors='replace'), time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return 'timeout', '', timeout


def outcome(rc):
    if rc == 'timeout':
        return 'hang'
    if rc < 0:
        return 'signal %d' % -rc
    return 'exit %d' % rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--emu', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--cache', required=True)
    ap.add_argument('--runner', required=True, help='tests/selftests/kst_one.c')
    ap.add_argument('--ledger')
    ap.add_argument('--cc', default='cc')
    a = ap.parse_args()
    errors = []
    version = obtain(a.cache, errors)
    if not version:
        print('SKIP: no linux-source package could be downloaded (apt-get download %s): %s'
              % (' or '.join(PACKAGES), '; '.join(errors)))
        return 77
    os.makedirs(a.work, exist_ok=True)
    seldir = os.path.join(a.cache, 'src', 'tools/testing/selftests')
    here = os.path.dirname(os.path.abspath(a.runner))
    builds = {}
    for abi, flags, libs in (('x86_64', ['-m64'], ['-lcap']),
                             ('i386', ['-m32'], [os.path.join(here, 'cap_standin.c')])):
        exe = os.path.join(a.work, 'kst_one-' + abi)
        r = subprocess.run([a.cc] + flags + ['-O1', '-static', '-w', '-I',
                            os.path.join(seldir, 'seccomp'), '-I', seldir, '-o', exe, a.runner]
                           + libs + ['-lpthread'], capture_output=True)
        if r.returncode != 0:
            print('FAIL: cannot build the %s selftests (libcap-dev, static glibc?):\n%s'
                  % (abi, r.stderr.decode(errors='replace')[-2000:]))
            return 1
        builds[abi] = exe
    rows = []
    counts = {'agree': 0, 'differ': 0, 'known': 0, 'native-fails': 0}
    out_counts = {'agree': 0, 'differ': 0, 'known': 0, 'native-fails': 0}
    not_run = []
    tests = []
    ia32 = runs_i386(a.emu)
    judged_only = os.environ.get('SECCOMP_EMU_KST_JUDGED_ONLY') == '1'
    for abi, exe in builds.items():
        listing = (subprocess.run([exe, '--list'], capture_output=True, text=True)
                   if abi == 'x86_64' or ia32 else None)
        if listing is None or listing.returncode != 0:
            # The host cannot run this ABI natively: nothing can judge it here.
            not_run.append(abi)
            print('not run: the %s tests (this host cannot run %s programs)' % (abi, abi))
            continue
        names = [line.split()[0] for line in listing.stdout.split('\n') if line.strip()]
        tests = tests or names
        if judged_only:
            left = [n for n in names if n not in IN_SCOPE]
            names = [n for n in names if n in IN_SCOPE]
            print('%s: %d out-of-scope tests left out (SECCOMP_EMU_KST_JUDGED_ONLY)' % (abi, len(left)))
        for name in names:
            n_rc, n_out, n_t = run([exe, name], 60)
            # An out-of-scope test may wait for good on what is not
            # emulated (a ptrace stop, a notification): it gets a short
            # wait, its native time many times over but at least 2 s (it
            # is counted, never judged; 18 of them per ABI wait it out, and
            # each of them runs natively in well under a second but one).
            limit = 120 if name in IN_SCOPE else min(120, max(2, 10 * n_t))
            # --caps=host: the native judge is this process's child.
            e_rc, e_out, e_t = run([a.emu, '-q', '--caps=host', exe, name], limit)
            expect = n_out.split('\n', 1)[0].replace('expect: ', '')
            native_pass = outcome(n_rc) == expect
            if not native_pass:
                verdict = 'native-fails'
            elif outcome(e_rc) == outcome(n_rc):
                verdict = 'agree'
            elif name in KNOWN:
                verdict = 'known'
            else:
                verdict = 'differ'
            if name in KNOWN and verdict == 'agree':
                print('NOTE: %s (%s) agrees now: take it out of KNOWN' % (name, abi))
            scope = name in IN_SCOPE
            (counts if scope else out_counts)[verdict] += 1
            rows.append((name, abi, scope, outcome(n_rc), outcome(e_rc), verdict))
            print('%-6s %-6s %-48s native %-10s emulated %-10s %s' %
                  ('' if scope else '(out)', abi, name, outcome(n_rc), outcome(e_rc), verdict))
    missing = [t for t in IN_SCOPE if t not in tests]
    abis = [x for x in builds if x not in not_run]
    summary = ('ABIs run: %s%s.  ' % (', '.join(abis), ' (not run: %s, no native judge)'
                                       % ', '.join(not_run) if not_run else '')
               + 'in scope: %d tests per ABI, %d runs agree with the kernel, %d differ (%d of them known: %s), '
               '%d fail natively (no judge), %d not in this version; out of scope (ptrace, '
               'namespaces, and what NOT_EMULATED names): %d runs, %d agree anyway, %d differ, '
               '%d fail natively'
               % (len(IN_SCOPE) - len(missing), counts['agree'], counts['differ'] + counts['known'],
                  counts['known'], '; '.join('%s: %s' % kv for kv in KNOWN.items()) or 'none',
                  counts['native-fails'], len(missing), sum(out_counts.values()),
                  out_counts['agree'], out_counts['differ'], out_counts['native-fails']))
    print(summary)
    if a.ledger:
        with open(a.ledger, 'w') as f:
            f.write('# seccomp_bpf.c selftests under seccomp-emu (generated)\n\n')
            f.write('Sources: Debian package %s; judge: a native run on %s.\n\n'
                    % (version, os.uname().release))
            f.write(summary + '\n\n| test | ABI | scope | native | seccomp-emu | result |\n'
                    '|---|---|---|---|---|---|\n')
            for name, abi, scope, n, e, v in rows:
                why = ' (needs %s)' % NOT_EMULATED[name] if name in NOT_EMULATED else ''
                f.write('| %s | %s | %s | %s | %s | %s |\n' % (name, abi, 'in' if scope else 'out' + why,
                                                           n, e, v))
    if missing:
        print('FAIL: in-scope tests missing from this version: ' + ', '.join(missing))
    return 1 if counts['differ'] or counts['native-fails'] or missing else 0


if __name__ == '__main__':
    sys.exit(main())
