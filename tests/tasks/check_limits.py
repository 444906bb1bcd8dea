#!/usr/bin/env python3
"""The task limits, where only the emulator may run the guest (natively a
fork bomb would press on this very host):

  * --max-tasks: fork and pthread_create answer EAGAIN at the limit, the
    guest sees how many it made, and everything is reaped;
  * a fork bomb under --max-tasks and --timeout ends with the timeout's
    SIGKILL, seccomp-emu never has more host threads than the limit allows
    (one per task, the timer thread, the main thread), and no host process
    appears: the guest's processes are inside seccomp-emu;
  * --sched=rr:N gives one interleaving: a racy counter comes out the same
    in two runs;
  * a guest creating threads runs under the self-sandbox, every host
    thread of seccomp-emu filtered (Seccomp 2).
"""
import argparse
import os
import signal
import subprocess
import sys
import time

failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def run(argv, timeout=300):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def host_children(pid):
    """Host processes whose parent is pid."""
    kids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(d))
    return kids


def threads_of(pid):
    try:
        return len(os.listdir("/proc/%d/task" % pid))
    except OSError:
        return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--emu", required=True)
    p.add_argument("--guest32", required=True)
    p.add_argument("--guest64", required=True)
    p.add_argument("--threads64", required=True)
    p.add_argument("--no-self-sandbox-build", action="store_true",
                   help="this seccomp-emu was built without its self-sandbox (the arm64 cross build)")
    a = p.parse_args()

    for bits, g in (("64", a.guest64), ("32", a.guest32)):
        rc, out, err = run([a.emu, "--max-tasks=64", g, "forks"])
        check(rc == 0 and out == "forked 63, then EAGAIN\nreaped 63\n",
              "%s-bit: --max-tasks=64, fork until it fails: %r (status %d)" % (bits, out, rc))
        rc, out, err = run([a.emu, "--max-tasks=200", g, "threads"])
        check(rc == 0 and out == "created 199 threads, then EAGAIN\njoined 199\n",
              "%s-bit: --max-tasks=200, threads until pthread_create fails: %r (status %d)"
              % (bits, out, rc))

    # the fork bomb: watched from outside while it runs
    limit = 100
    proc = subprocess.Popen([a.emu, "--max-tasks=%d" % limit, "--timeout=4", a.guest64, "bomb"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    most, kids = 0, []
    while proc.poll() is None:
        most = max(most, threads_of(proc.pid))
        kids += host_children(proc.pid)
        time.sleep(0.05)
    out, err = proc.communicate()
    check(proc.returncode == -9 and b"--timeout" in err,
          "fork bomb ends with --timeout's SIGKILL: status %d, %r" % (proc.returncode, err))
    check(most <= limit + 2,
          "fork bomb: at most %d host threads (the tasks, the timer thread): saw %d"
          % (limit + 2, most))
    check(not kids, "fork bomb: no host process under seccomp-emu: %s" % (kids or "none"))

    # a signal from outside ends seccomp-emu while guest threads spin (it
    # once spun on for 50 minutes under timeout(1)); the guest's default
    # action is to die of it, as natively
    for bits, g in (("64", a.guest64), ("32", a.guest32)):
        for sig in (signal.SIGTERM, signal.SIGINT):
            proc = subprocess.Popen([a.emu, g, "spin"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            first = proc.stdout.readline()
            time.sleep(0.2)
            sent = time.monotonic()
            proc.send_signal(sig)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            took = time.monotonic() - sent
            proc.communicate()
            check(first == b"spinning\n" and proc.returncode == -sig and took < 5,
                  "%s-bit: %s with 3 threads spinning ends it: status %d after %.2f s"
                  % (bits, sig.name, proc.returncode, took))

    # one reproducible interleaving
    outs = [run([a.emu, "--sched=rr:997", a.guest64, "race"])[1] for _ in range(2)]
    check(outs[0] == outs[1] and outs[0].startswith("counter "),
          "--sched=rr:997: the racy counter twice: %r" % outs)

    # threads under the self-sandbox
    proc = subprocess.Popen([a.emu, a.threads64], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    modes = set()
    while proc.poll() is None:
        # guest threads exist only once the filter is in (sandbox_enter)
        if threads_of(proc.pid) <= 2:
            time.sleep(0.005)
            continue
        try:
            for tid in os.listdir("/proc/%d/task" % proc.pid):
                with open("/proc/%d/task/%s/status" % (proc.pid, tid)) as f:
                    modes |= {l.split()[1] for l in f if l.startswith("Seccomp:")}
        except OSError:
            pass
        time.sleep(0.01)
    out, err = proc.communicate()
    check(proc.returncode == 0 and b"posix_spawn: 0, child exited 3" in out,
          "threads and posix_spawn under the self-sandbox: status %d" % proc.returncode)
    if a.no_self_sandbox_build:
        check(modes <= {"0"}, "no self-sandbox in this build: no host thread filtered: %s"
              % sorted(modes))
    else:
        check(modes <= {"2"}, "every host thread filtered while the guest's threads run: %s"
              % sorted(modes))

    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
