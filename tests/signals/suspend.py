#!/usr/bin/env python3
"""Suspend and resume from outside, judged by the kernel (issue 33).

  suspend.py EMU GUEST32 GUEST64 CASE SIGNAL

Runs `GUEST CASE` (suspend.c), and once it says "ready" plays what a shell
(Ctrl-Z: SIGNAL to the process group), a batch system (HTCondor's
condor_suspend: SIGSTOP to the process) or a user does: sends SIGNAL, sees
whether the process stops (waitpid WUNTRACED: stopped, and by which
signal), waits, sends SIGCONT, and, for the cases that read, writes a line.
The x86_64 guest runs natively, where the kernel decides; then each guest
runs under seccomp-emu, with and without its self-sandbox (whose filter once
killed it when the timer thread's poll came back through restart_syscall).
Every emulated run must show the same stop, the same output and the same
end as the native run.

The i386 guest cannot run natively here (IA-32 is off), and the judge VM
sends a single signal; its emulated runs are held to the x86_64 native run,
as the program prints the same text on both ABIs.
"""
import os
import select
import signal
import sys
import time

STOPPED_WAIT = 1.0   # how long a stop may take to show
STOP_TIME = 0.4      # how long the process stays stopped
EXIT_WAIT = 30.0
READERS = ("read", "cont")
failures = []


def run(argv, case, sig):
    """(stop seen, stdout, wait status) of one run."""
    rd_out, wr_out = os.pipe()
    rd_in, wr_in = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            # Its own process group, in our session: not orphaned, so the
            # terminal stop signals stop it (an orphaned group ignores them).
            os.setpgid(0, 0)
            os.dup2(rd_in, 0)
            os.dup2(wr_out, 1)
            for fd in (rd_out, wr_out, rd_in, wr_in):
                os.close(fd)
            for s in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU, signal.SIGCONT,
                      signal.SIGPIPE):
                signal.signal(s, signal.SIG_DFL)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    os.close(rd_in)
    os.close(wr_out)
    out = b""
    deadline = time.monotonic() + EXIT_WAIT
    while b"ready\n" not in out and time.monotonic() < deadline:
        r, _, _ = select.select([rd_out], [], [], 0.1)
        if r:
            chunk = os.read(rd_out, 4096)
            if not chunk:
                break
            out += chunk
    time.sleep(0.15)  # into the computation or the call
    if sig in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        os.killpg(pid, sig)  # as the terminal sends them
    else:
        os.kill(pid, sig)
    stop = "not stopped"
    status = None
    until = time.monotonic() + STOPPED_WAIT
    while time.monotonic() < until:
        p, st = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
        if p and os.WIFSTOPPED(st):
            stop = "stopped by %s" % signal.Signals(os.WSTOPSIG(st)).name
            break
        if p:
            # Ended without stopping: the same answer as a run still going
            # after STOPPED_WAIT (which one depends on the machine's speed).
            status = st
            break
        time.sleep(0.01)
    if status is None:
        time.sleep(STOP_TIME)
        os.kill(pid, signal.SIGCONT)
        if case in READERS:
            time.sleep(0.1)
            try:
                os.write(wr_in, b"line\n")
            except BrokenPipeError:
                pass  # it died: the status says how
    os.close(wr_in)
    while status is None and time.monotonic() < deadline:
        p, st = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
        if p and os.WIFSTOPPED(st):
            stop += ", stopped again by %s" % signal.Signals(os.WSTOPSIG(st)).name
            os.kill(pid, signal.SIGCONT)
        elif p:
            status = st
            break
        r, _, _ = select.select([rd_out], [], [], 0.02)
        if r:
            out += os.read(rd_out, 4096)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    while True:
        chunk = os.read(rd_out, 4096)
        if not chunk:
            break
        out += chunk
    os.close(rd_out)
    return stop, out.decode(errors="replace"), describe(status)


def describe(status):
    if status is None:
        return "hung (killed after %d s)" % EXIT_WAIT
    if os.WIFEXITED(status):
        return "exit %d" % os.WEXITSTATUS(status)
    return "killed by %s" % signal.Signals(os.WTERMSIG(status)).name


def main():
    emu, g32, g64, case, signame = sys.argv[1:6]
    sig = signal.Signals[signame]
    native = run([g64, case], case, sig)
    print("native x86_64: %s; %r; %s" % native)
    for label, guest in (("x86_64", g64), ("i386", g32)):
        for flags in ([], ["--no-self-sandbox"]):
            got = run([emu] + flags + [guest, case], case, sig)
            what = "seccomp-emu %s %s" % (label, " ".join(flags) or "(self-sandbox on)")
            ok = got == native
            print("%s %s: %s; %r; %s" % (("ok  " if ok else "FAIL", what) + got))
            if not ok:
                failures.append(what)
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
