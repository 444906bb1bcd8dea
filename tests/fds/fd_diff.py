#!/usr/bin/env python3
"""Differential tests of --fd: the same freestanding guest (fdprobe) runs
natively with descriptors the harness makes, and under seccomp-emu with the
--fd mapping that should make the same descriptors.  The guest's report, its
wait status and what its peer saw (bytes received, file contents) must be
identical.  Mapping errors have no native counterpart: there the expected
result is written down (one line, a non-zero status, the guest never ran).
Where this host cannot run the guest natively (i386 without IA-32
emulation), the kernel's recorded answer judges (tests/native_oracle.py).

    fd_diff.py --emu EMU --guest32 G32 --guest64 G64 CASE
"""
import argparse
import fcntl
import hashlib
import os
import select
import signal
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from native_oracle import Oracle  # noqa: E402

TIMEOUT = 120  # seconds a guest may take: a bound, never a measurement
REPORT_FD = 9  # the guest's report channel, in both runs


def pattern(total):
    """fdprobe's gen pattern, byte k = (k * 131) ^ (k >> 9) ^ (k >> 17), built
    from three periodic strings so that many MiB take no time."""
    def blocks(shift):
        n = (total >> shift) + 1
        return b"".join(bytes([j & 0xff]) * (1 << shift) for j in range(n))[:total]
    low = (bytes((i * 131) & 0xff for i in range(256)) * (total // 256 + 1))[:total]
    mixed = (int.from_bytes(low, "big") ^ int.from_bytes(blocks(9), "big")
             ^ int.from_bytes(blocks(17), "big"))
    return mixed.to_bytes(total, "big")


def digest(data):
    return f"{len(data)} bytes sha256 {hashlib.sha256(data).hexdigest()[:16]}"


class Peer(threading.Thread):
    """Runs fn(sock) in a thread and keeps what it returns (or raised)."""

    def __init__(self, fn, *args):
        super().__init__(daemon=True)
        self.fn, self.args, self.result, self.error = fn, args, None, None
        self.start()

    def run(self):
        try:
            self.result = self.fn(*self.args)
        except Exception as e:  # reported by the case, never swallowed
            self.error = e

    def get(self):
        self.join(TIMEOUT)
        if self.is_alive():
            raise RuntimeError("peer did not finish")
        if self.error:
            raise self.error
        return self.result


def recv_all(sock, step=1 << 20):
    data = bytearray()
    while True:
        chunk = sock.recv(step)
        if not chunk:
            return bytes(data)
        data += chunk


def spawn(argv, fdmap, close_std):
    """fork + exec with exactly the descriptors in fdmap {child fd: our fd}
    (plus 0-2 unless close_std) and nothing else."""
    pid = os.fork()
    if pid == 0:
        try:
            # Python ignores SIGPIPE and exec keeps an ignored signal
            # ignored; a guest is normally started with the default.
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            # Above every target first, so no dup2 overwrites a source.
            high = {t: fcntl.fcntl(s, fcntl.F_DUPFD, 100) for t, s in fdmap.items()}
            for t, h in high.items():
                os.dup2(h, t)
            keep = set(fdmap) | (set() if close_std else {0, 1, 2})
            for fd in range(0, 1024):
                if fd not in keep:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    return pid


def wait(pid):
    """Wait status as (exit code, signal), killing after TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise RuntimeError("guest timed out")
        time.sleep(0.005)
    if os.WIFSIGNALED(status):
        return (0, os.WTERMSIG(status))
    return (os.WEXITSTATUS(status), 0)


class Run:
    """One execution of fdprobe, native or emulated.  Descriptors are given
    as both forms at once: `native` {guest fd: host fd}, `specs` [N=SPEC]
    with `inherit` {emulator fd: host fd} for fd:M."""

    def __init__(self, h, mode, arch):
        self.h, self.mode, self.arch = h, mode, arch

    def start(self, ops, native=None, specs=None, inherit=None, close_std=False,
              announce=False):
        self.rep_r, rep_w = os.pipe()
        self.err_r, err_w = os.pipe()
        guest = self.h.guest[self.arch]
        if self.mode == "native":
            fdmap = dict(native or {})
            fdmap[REPORT_FD] = rep_w
            if not close_std:
                fdmap.setdefault(2, err_w)
            self.pid = spawn([guest, str(REPORT_FD)] + ops, fdmap, close_std)
        else:
            fdmap = dict(inherit or {})
            fdmap[REPORT_FD] = rep_w
            fdmap[2] = err_w  # seccomp-emu's own diagnostics
            argv = [self.h.emu]
            if close_std:
                argv.append("--close-std")
            for s in (specs or []) + [f"{REPORT_FD}=fd:{REPORT_FD}"]:
                argv += ["--fd", s]
            argv += [guest, str(REPORT_FD)] + ops
            self.pid = spawn(argv, fdmap, close_std=False)
        os.close(rep_w)
        os.close(err_w)
        self.rep = Peer(self._drain, self.rep_r)
        self.err = None if announce else Peer(self._drain, self.err_r)
        return self

    @staticmethod
    def _drain(fd):
        data = bytearray()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                os.close(fd)
                return bytes(data)
            data += chunk

    def stderr_line(self, timeout=TIMEOUT):
        """The first line seccomp-emu writes to stderr, while it runs (the
        announced port of listen:HOST:0).  Consumes the stderr pipe."""
        buf = b""
        deadline = time.monotonic() + timeout
        while b"\n" not in buf:
            r, _, _ = select.select([self.err_r], [], [], max(0, deadline - time.monotonic()))
            if not r:
                raise RuntimeError("no line on seccomp-emu's stderr")
            chunk = os.read(self.err_r, 1)
            if not chunk:
                raise RuntimeError(f"seccomp-emu closed stderr: {buf!r}")
            buf += chunk
        self.err = Peer(self._drain, self.err_r)
        return buf.decode()

    def finish(self):
        self.status = wait(self.pid)
        self.report = self.rep.get().decode(errors="replace")
        self.stderr = self.err.get().decode(errors="replace")
        return self


class Harness:
    def __init__(self, opts):
        self.emu = opts.emu
        self.guest = {"i386": opts.guest32, "x86_64": opts.guest64}
        self.passed = self.failed = 0
        self.tmp = tempfile.mkdtemp(prefix="fd-diff-")

    def check(self, what, got, want):
        if got == want:
            self.passed += 1
            print(f"ok: {what}")
        else:
            self.failed += 1
            print(f"FAIL: {what}\n  emulated: {got!r}\n  native:   {want!r}")

    def path(self, name):
        return os.path.join(self.tmp, name)


# ---- the cases: each returns the observations of one run -----------------

def listener(family=socket.AF_INET, host="127.0.0.1"):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.bind((host, 0))
    s.listen(4)
    return s


def tcp_pair(h, mode, family, host, spec_host=None):
    """A listening socket for the peer; for the native run, a connected
    client socket to give the guest; for the emulated run, the spec."""
    lst = listener(family, host)
    port = lst.getsockname()[1]
    spec = f"tcp:{spec_host or (f'[{host}]' if family == socket.AF_INET6 else host)}:{port}"
    client = None
    if mode == "native":
        client = socket.socket(family, socket.SOCK_STREAM)
        client.connect((host, port))
    return lst, client, spec


def run_with_tcp(h, mode, arch, ops, peer_fn, family=socket.AF_INET, host="127.0.0.1",
                 spec_host=None, guest_fd=3):
    lst, client, spec = tcp_pair(h, mode, family, host, spec_host)
    run = Run(h, mode, arch)
    if mode == "native":
        run.start(ops, native={guest_fd: client.fileno()})
        client.close()
    else:
        run.start(ops, specs=[f"{guest_fd}={spec}"])
    lst.settimeout(TIMEOUT)
    conn, _ = lst.accept()
    lst.close()
    peer = Peer(peer_fn, conn)
    seen = peer.get()
    conn.close()
    run.finish()
    return run, seen


def echo_peer(payload):
    def fn(conn):
        reader = Peer(recv_all, conn)
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        return digest(reader.get())
    return fn


def case_tcp(h, mode, arch, family=socket.AF_INET, host="127.0.0.1", spec_host=None):
    payload = pattern(24 << 20)[::-1]
    run, seen = run_with_tcp(h, mode, arch, ["cat:3:3:65536"], echo_peer(payload), family, host,
                             spec_host)
    return {"report": run.report, "status": run.status, "peer received": seen,
            "sent": digest(payload)}


def case_tcp6(h, mode, arch):
    return case_tcp(h, mode, arch, socket.AF_INET6, "::1")


def case_tcp_name(h, mode, arch):
    return case_tcp(h, mode, arch, spec_host="localhost")


def case_big(h, mode, arch):
    """Many MiB each way at sizes that do not divide evenly, and tiny ones."""
    total = 64 << 20
    want = pattern(total)
    obs = {}
    for chunk in (1000, 65536, 1 << 20, 16 << 20):
        run, seen = run_with_tcp(h, mode, arch, [f"gen:3:{total}:{chunk}"],
                                 lambda c: digest(recv_all(c)))
        obs[f"gen {chunk}"] = (run.report, run.status, seen)
    obs["expected bytes"] = digest(want)
    for chunk in (1, 4095, 16 << 20):
        size = 65536 if chunk == 1 else total
        data = want[:size]

        def send(conn, data=data):
            conn.sendall(data)
            conn.shutdown(socket.SHUT_WR)
            return recv_all(conn)

        run, seen = run_with_tcp(h, mode, arch, [f"sum:3:{chunk}"], send)
        obs[f"sum {chunk}"] = (run.report, run.status, seen)
    return obs


def case_slow_peer(h, mode, arch):
    """One large write to a peer that reads one byte at a time."""
    total = 1 << 20

    def slow(conn):
        got = bytearray()
        while True:
            b = conn.recv(1)
            if not b:
                return digest(bytes(got))
            got += b

    run, seen = run_with_tcp(h, mode, arch, [f"gen:3:{total}:{total}"], slow)
    return {"report": run.report, "status": run.status, "peer received": seen,
            "expected": digest(pattern(total))}


def case_partial(h, mode, arch):
    """Reads block until data comes, then return what arrived (no EAGAIN,
    no waiting for the full count), then 0 at the orderly shutdown."""
    def peer(conn):
        time.sleep(0.3)  # the guest is blocked in its first read by now
        conn.sendall(b"0123456789")
        ack = b""
        while len(ack) < 3:
            ack += conn.recv(3 - len(ack))
        conn.sendall(b"abcde")
        time.sleep(0.2)
        conn.shutdown(socket.SHUT_WR)
        return recv_all(conn)

    run, seen = run_with_tcp(h, mode, arch, ["r:3:4096", "w:3:ack", "r:3:3", "r:3:100",
                                              "r:3:100", "r:3:0"], peer)
    return {"report": run.report, "status": run.status, "peer received": seen}


def case_eof(h, mode, arch):
    def peer(conn):
        conn.shutdown(socket.SHUT_WR)
        return recv_all(conn)
    run, seen = run_with_tcp(h, mode, arch, ["r:3:10", "r:3:10", "w:3:still open"], peer)
    return {"report": run.report, "status": run.status, "peer received": seen}


def case_reset(h, mode, arch):
    """A peer that aborts the connection: the blocked read gets
    -ECONNRESET, later ones 0."""
    def peer(conn):
        time.sleep(0.3)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
        return b""
    run, seen = run_with_tcp(h, mode, arch, ["r:3:10", "r:3:10"], peer)
    return {"report": run.report, "status": run.status}


def case_epipe(h, mode, arch):
    """Writing on after the peer closed: the kernel answers -EPIPE with
    SIGPIPE, which kills a guest without a handler.  The guest reads the
    end-of-file first, so its writes meet a half-closed connection (EPIPE
    after the peer's RST), not a race with the FIN (ECONNRESET)."""
    def peer(conn):
        conn.close()
        return b""
    run, _ = run_with_tcp(h, mode, arch, ["r:3:10", "wloop:3:65536"], peer)
    return {"report": run.report, "status": run.status}


def case_listen(h, mode, arch, family=socket.AF_INET, host="127.0.0.1"):
    payload = pattern(8 << 20)
    ops = ["sum:3:65536", "w:3:done"]
    run = Run(h, mode, arch)
    if mode == "native":
        # What listen: gives the guest: the accepted end of a connection.
        lst = listener(family, host)
        peer_sock = socket.create_connection((host, lst.getsockname()[1]))
        accepted, _ = lst.accept()
        lst.close()
        run.start(ops, native={3: accepted.fileno()})
        accepted.close()
    else:
        bracket = f"[{host}]" if family == socket.AF_INET6 else host
        run.start(ops, specs=[f"3=listen:{bracket}:0"], announce=True)
        line = run.stderr_line()
        port = int(line.rsplit(":", 1)[1])
        if not line.startswith(f"seccomp-emu: fd 3 listening on {bracket}:"):
            raise RuntimeError(f"unexpected announcement {line!r}")
        peer_sock = socket.create_connection((host, port))

    def peer(conn):
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        return recv_all(conn)

    seen = Peer(peer, peer_sock).get()
    peer_sock.close()
    run.finish()
    return {"report": run.report, "status": run.status, "peer received": seen}


def case_listen6(h, mode, arch):
    return case_listen(h, mode, arch, socket.AF_INET6, "::1")


def case_unix(h, mode, arch):
    path = h.path(f"sock-{mode}-{arch}")
    lst = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lst.bind(path)
    lst.listen(1)
    payload = pattern(16 << 20)
    run = Run(h, mode, arch)
    ops = ["cat:3:3:100000"]
    if mode == "native":
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(path)
        run.start(ops, native={3: c.fileno()})
        c.close()
    else:
        run.start(ops, specs=[f"3=unix:{path}"])
    lst.settimeout(TIMEOUT)
    conn, _ = lst.accept()
    lst.close()
    os.unlink(path)
    seen = Peer(echo_peer(payload), conn).get()
    conn.close()
    run.finish()
    return {"report": run.report, "status": run.status, "peer received": seen,
            "sent": digest(payload)}


def case_fd(h, mode, arch):
    """Inherited descriptors: a pipe to read from and one to write to."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    data = pattern(3 << 20)
    ops = ["sum:4:4096", "gen:3:3000000:65536", "r:3:1", "w:4:x"]
    run = Run(h, mode, arch)
    if mode == "native":
        run.start(ops, native={3: out_w, 4: in_r})
    else:
        # Other numbers in seccomp-emu than in the guest: fd:M names the
        # emulator's descriptor, N the guest's.
        run.start(ops, specs=["3=fd:5", "4=fd:6"], inherit={5: out_w, 6: in_r})
    os.close(out_w)
    os.close(in_r)

    def feed():
        with os.fdopen(in_w, "wb") as f:
            f.write(data)

    def drain():
        with os.fdopen(out_r, "rb") as f:
            return digest(f.read())

    feeder, drainer = Peer(feed), Peer(drain)
    feeder.get()
    seen = drainer.get()
    run.finish()
    return {"report": run.report, "status": run.status, "pipe received": seen,
            "sent": digest(data)}


def case_null(h, mode, arch):
    ops = ["r:3:100", "w:3:hello", "sum:3:10", "gen:3:1000000:4096"]
    run = Run(h, mode, arch)
    if mode == "native":
        fd = os.open(os.devnull, os.O_RDWR)
        run.start(ops, native={3: fd})
        os.close(fd)
    else:
        run.start(ops, specs=["3=null"])
    run.finish()
    return {"report": run.report, "status": run.status}


def file_run(h, mode, arch, ops, kind, flags, before):
    path = h.path(f"{kind}-{mode}-{arch}")
    if before is not None:
        with open(path, "wb") as f:
            f.write(before)
    run = Run(h, mode, arch)
    if mode == "native":
        fd = os.open(path, flags, 0o666)
        run.start(ops, native={3: fd})
        os.close(fd)
    else:
        run.start(ops, specs=[f"3={kind}:{path}"])
    run.finish()
    with open(path, "rb") as f:
        after = f.read()
    return {"report": run.report, "status": run.status, "file": digest(after),
            "file head": after[:40]}


def case_file(h, mode, arch):
    return file_run(h, mode, arch, ["r:3:10", "sum:3:1000000", "r:3:10", "w:3:nope"], "file",
                    os.O_RDONLY, pattern(5 << 20))


def case_file_w(h, mode, arch):
    return file_run(h, mode, arch, ["w:3:new\n", "gen:3:100000:4096", "r:3:10"], "file-w",
                    os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                    b"old content, longer than what replaces it\n" * 10000)


def case_file_w_new(h, mode, arch):
    return file_run(h, mode, arch, ["w:3:created\n"], "file-w",
                    os.O_WRONLY | os.O_CREAT | os.O_TRUNC, None)


def case_file_a(h, mode, arch):
    return file_run(h, mode, arch, ["w:3:appended\n", "w:3:again\n", "r:3:1"], "file-a",
                    os.O_WRONLY | os.O_CREAT | os.O_APPEND, b"line 1\n")


def case_close_std(h, mode, arch):
    """--close-std: 0-2 closed for the guest, unless mapped (here 1)."""
    ops = ["w:2:x", "r:0:1", "w:1:to null", "w:4:x"]
    run = Run(h, mode, arch)
    if mode == "native":
        fd = os.open(os.devnull, os.O_RDWR)
        run.start(ops, native={1: fd}, close_std=True)
        os.close(fd)
    else:
        run.start(ops, specs=["1=null"], close_std=True)
    run.finish()
    return {"report": run.report, "status": run.status}


def case_close(h, mode, arch):
    """The guest's close of a mapped socket ends the connection: the peer
    reads end-of-file while the guest still runs (it then waits for a byte
    on a pipe that the harness writes only after that end-of-file)."""
    lst, client, spec = tcp_pair(h, mode, socket.AF_INET, "127.0.0.1")
    go_r, go_w = os.pipe()
    ops = ["w:3:bye", "close:3", "r:4:10", "w:3:x", "close:3"]
    run = Run(h, mode, arch)
    if mode == "native":
        run.start(ops, native={3: client.fileno(), 4: go_r})
        client.close()
    else:
        run.start(ops, specs=[f"3={spec}", "4=fd:4"], inherit={4: go_r})
    os.close(go_r)
    lst.settimeout(TIMEOUT)
    conn, _ = lst.accept()
    lst.close()
    conn.settimeout(TIMEOUT)
    seen = recv_all(conn)  # returns only at the guest's close
    os.write(go_w, b"go")
    os.close(go_w)
    conn.close()
    run.finish()
    return {"report": run.report, "status": run.status, "peer received": seen}


DIFF_CASES = {
    "fd": case_fd, "null": case_null, "tcp": case_tcp, "tcp6": case_tcp6,
    "tcp-name": case_tcp_name, "listen": case_listen, "listen6": case_listen6,
    "unix": case_unix, "file": case_file, "file-w": case_file_w, "file-w-new": case_file_w_new,
    "file-a": case_file_a, "close-std": case_close_std, "partial": case_partial,
    "eof": case_eof, "reset": case_reset, "epipe": case_epipe, "big": case_big,
    "slow-peer": case_slow_peer, "close": case_close,
}


# ---- mapping errors: no native run can make these -------------------------

def errors(h):
    """Each mapping that cannot be made: exactly one line on stderr naming
    the option, the status, and the guest never ran (its first operation
    would have created output on the report pipe)."""
    busy = listener()
    busy_port = busy.getsockname()[1]
    free = listener()
    free_port = free.getsockname()[1]
    free.close()  # nothing listens there now: connecting is refused
    cases = [
        (["3=tcp:127.0.0.1:%d" % free_port], 1, "Connection refused"),
        (["3=file:" + h.path("missing")], 1, "No such file or directory"),
        (["3=file-w:" + h.path("no-dir/x")], 1, "No such file or directory"),
        (["3=listen:127.0.0.1:%d" % busy_port], 1, "in use"),
        (["3=unix:" + h.path("no-socket")], 1, "No such file or directory"),
        (["3=fd:200"], 1, "host descriptor 200 is not open"),
        (["3=tcp:no-such-host.invalid:80"], 1, "no-such-host.invalid"),
        (["3=tcp:127.0.0.1"], 2, "expected HOST:PORT"),
        (["3=tcp:127.0.0.1:0"], 2, "is not a number from 1 to 65535"),
        (["3=tcp:127.0.0.1:65536"], 2, "is not a number from 1 to 65535"),
        (["3=tcp:::1:80"], 2, "brackets"),
        (["3=tcp:[::1:80"], 2, "brackets"),
        (["3=tcp::80"], 2, "no host"),
        (["3=listen:127.0.0.1:x"], 2, "is not a number from 0 to 65535"),
        (["1024=null"], 2, "from 0 to 1023"),
        (["-1=null"], 2, "from 0 to 1023"),
        (["3"], 2, "expected N=SPEC"),
        (["3=nul"], 2, "unknown endpoint"),
        (["3=file:"], 2, "empty path"),
        (["3=fd:x"], 2, "is not a number"),
        (["3=null", "3=null"], 2, "mapped twice"),
        # The first mapping is made, the second fails: still nothing runs.
        (["4=null", "3=tcp:127.0.0.1:%d" % free_port], 1, "Connection refused"),
    ]
    for specs, want_status, needle in cases:
        run = Run(h, "emu", "x86_64")
        run.start(["w:9:the guest ran"], specs=specs)
        run.finish()
        lines = run.stderr.splitlines()
        ok = (run.status == (want_status, 0) and len(lines) == 1 and needle in lines[0]
              and lines[0].startswith("seccomp-emu: --fd ") and run.report == "")
        what = f"--fd {' --fd '.join(specs)}: status {want_status}, one line with {needle!r}"
        if ok:
            h.passed += 1
            print(f"ok: {what}")
        else:
            h.failed += 1
            print(f"FAIL: {what}\n  status {run.status}, stderr {run.stderr!r}, "
                  f"report {run.report!r}")
    busy.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emu", required=True)
    ap.add_argument("--guest32", required=True)
    ap.add_argument("--guest64", required=True)
    ap.add_argument("case", choices=sorted(DIFF_CASES) + ["errors"])
    opts = ap.parse_args()
    h = Harness(opts)
    if opts.case == "errors":
        errors(h)
    else:
        oracle = Oracle("fd_diff", opts.emu)
        for arch in ("x86_64", "i386"):
            emu = DIFF_CASES[opts.case](h, "emu", arch)
            native, label, problems = oracle.judge(
                f"{opts.case} {arch}", opts.guest32 if arch == "i386" else opts.guest64,
                lambda: DIFF_CASES[opts.case](h, "native", arch), lambda: emu)
            for p in problems:
                h.check(f"{opts.case} {arch}: {p}", False, True)
            tag = "" if label == "native" else f" [{label}]"
            for key in native or {}:
                h.check(f"{opts.case} {arch}: {key}{tag}", emu.get(key), native[key])
    print(f"{h.passed} passed, {h.failed} failed")
    return 1 if h.failed or not h.passed else 0


if __name__ == "__main__":
    sys.exit(main())
