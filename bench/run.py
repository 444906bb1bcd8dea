#!/usr/bin/env python3
"""seccomp-emu benchmark runner (Python 3 standard library only).

Runs each benchmark guest natively, under QEMU user mode (when installed)
and under seccomp-emu, several times each in alternation, checks that every
run printed the native run's checksum and exited as expected, and prints
medians, the ratios seccomp-emu/native and seccomp-emu/QEMU, and peak memory
(the child's own maxrss from wait4).  Results also go to a JSON file and,
with --table, to a generated markdown file (docs/performance-table.md);
never into the README.

Besides the freestanding strict-mode guests it runs real programs nobody
here wrote (Debian's static busybox, static libzstd and liblua drivers) on large
generated inputs; those run in the pre-strict personality (glibc makes its
own calls), so they exit 0 everywhere, QEMU included.

Usually started by scripts/bench.sh, which builds first.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import random
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from native_oracle import Oracle  # noqa: E402

# Targets of issue 6 (medians, same run, same machine).
CPU_VS_QEMU = 1.2
CPU_VS_NATIVE = 3.0
SYSCALL_VS_NATIVE = 1.5
STARTUP_MS = 5.0
FEATURE_VS_PLAIN = 1.10
# Issue 35: four guest threads on their own host threads, at QEMU's speed.
PARALLEL_VS_QEMU = 1.0

EXIT_NOT_STRICT = 3  # bench_guest.h: prctl(PR_SET_SECCOMP) was refused

HERE = os.path.dirname(os.path.abspath(__file__))
# Debian's busybox-static (scripts/install-deps.sh); the i386 one unpacked
# by scripts/bench-deps.sh from the i386 package.
BUSYBOX = {64: "/bin/busybox", 32: os.path.join(HERE, "debian-i386", "bin", "busybox")}
# awk doing arithmetic on every line (products, a modulus, a maximum).
AWK_PROGRAM = ('{ s += $1 * $2; t += $3 % 7; if ($1 > m) m = $1 } '
               'END { printf "%.0f %d %d %d\\n", s, t, m, NR }')

# The threads jobs also run with each task on its own engine and host
# thread, where seccomp-emu has that policy (seccomp-emu --help-sched).
PARALLEL = "emu --sched=parallel"

# Features built on other branches; detected from --help-all.
FEATURES = [
    # (label, option that must appear in --help-all, flags)
    ("trace on (to /dev/null)", "--trace", ["--trace=/dev/null"]),
    ("--max-insns set", "--max-insns", ["--max-insns=1000000000000000"]),
    ("--cpu-time set", "--cpu-time", ["--cpu-time=3600"]),
]


class Job:
    """One benchmark.  guest: a name in BUILD/bench, or an absolute path (a
    program we did not build).  stdin: (input kind, MiB) generated once
    into BUILD/bench/inputs.  strict: the guest enters strict mode itself
    (exit 0 natively and under seccomp-emu, 3 under QEMU); otherwise every
    runner must exit 0.  checksum: "printed" (the guest prints "checksum
    <hex>") or "stdout" (a hash of everything it wrote to fd 1).  max_reps
    caps the measured runs of a slow job, which also goes without the
    unmeasured warm-up (its inputs are written just before, so already in
    the page cache, and a run of seconds outlasts any frequency ramp; on
    this shared 2-core machine the warm-ups were a quarter of the run).
    cpu_needs:
    /proc/cpuinfo flags a native run needs.  quick: in --quick runs.
    parallel: also run seccomp-emu with --sched=parallel (a second row)."""

    def __init__(self, name, group, guest, args, smoke_args, io="file", checksum_fd=1,
                 reps_factor=1, runners=("native", "qemu", "emu"), variants=None, note="",
                 bits=None, stdin=None, smoke_stdin=None, strict=True, checksum="printed",
                 max_reps=None, cpu_needs=(), quick=True, parallel=False):
        self.name, self.group, self.guest = name, group, guest
        self.args, self.smoke_args = args, smoke_args
        self.io, self.checksum_fd = io, checksum_fd
        self.reps_factor, self.runners = reps_factor, runners
        self.variants = variants  # feature group: [(label, flags)]
        self.note = note
        self.bits = bits or (32 if guest.endswith("32") else 64)
        self.stdin, self.smoke_stdin = stdin, smoke_stdin or stdin
        self.strict, self.checksum = strict, checksum
        self.max_reps = max_reps
        self.cpu_needs, self.quick = cpu_needs, quick
        self.parallel = parallel


def jobs():
    out = []
    for bits in ("64", "32"):
        out += [
            Job("store" + bits, "cpu", "store" + bits, ["120"], ["1"],
                note="byte sieve + LCG scatter stores"),
            Job("interp" + bits, "cpu", "interp" + bits, ["150000"], ["200"],
                note="bytecode interpreter, Collatz"),
            Job("fp" + bits, "cpu", "fp" + bits, ["1000000"], ["1000"],
                note="n-body, SSE2 doubles"),
        ]
    for bits in ("64", "32"):
        out += [
            Job("pipe" + bits, "syscall", "pingpong" + bits, ["200000", "64"], ["100", "64"],
                io="pipe", checksum_fd=2, note="64-byte write+read through one pipe"),
            Job("tcp" + bits, "syscall", "pingpong" + bits, ["100000", "64"], ["100", "64"],
                io="tcp", checksum_fd=2, note="64-byte write+read over loopback TCP"),
            Job("null" + bits, "syscall", "pingpong" + bits, ["1000000", "1", "w"],
                ["100", "1", "w"], io="null", checksum_fd=2, note="1-byte writes to /dev/null"),
        ]
    for bits in ("64", "32"):
        out += [
            Job("hello" + bits, "startup", "hello" + bits, [], [], reps_factor=4,
                note="freestanding, one line"),
            Job("glibc" + bits, "startup", "hello_glibc" + bits, [], [], reps_factor=4,
                note="static glibc, printf"),
        ]
    out.append(Job("store64 features", "feature", "store64", ["120"], ["1"], runners=("emu",),
                   variants=[("plain (trace off)", [])] + [(l, f) for l, _, f in FEATURES],
                   note="the same CPU job with each feature's option"))
    # Large working sets (strict mode, both ABIs).  Each touches every page
    # of its table; the sizes are what matters, the operation counts only
    # keep a run of seccomp-emu to seconds.
    for bits in ("64", "32"):
        for mib in ("16", "64", "256"):
            out.append(Job(f"scatter{mib}M{bits}", "memory", "scatter" + bits, [mib, "6"],
                           ["1", "0"], max_reps=5, quick=mib == "64",
                           note=f"random 32-bit read-modify-write + read over {mib} MiB, 6M each"))
        out += [
            Job("chase64M" + bits, "memory", "chase" + bits, ["64", "4"], ["1", "0"],
                max_reps=5, note="pointer chase, random cyclic permutation of 64 MiB, 4M steps"),
            Job("hash48M" + bits, "memory", "hash" + bits, ["3000"], ["50"], max_reps=5,
                note="hash-table build, 2^22 slots (48 MiB), 3M inserts + 3M lookups"),
        ]
    # Real programs nobody here wrote, on large generated inputs on stdin
    # (pre-strict personality, so no strict mode and exit 0 everywhere).
    for bits in (64, 32):
        bb = BUSYBOX[bits]
        out += [
            Job(f"bb-sha256sum{bits}", "real", bb, ["sha256sum"], ["sha256sum"], bits=bits,
                stdin=("random", 48 << 10), smoke_stdin=("random", 256), strict=False,
                checksum="stdout", max_reps=5, note="busybox sha256sum, 48 MiB random bytes"),
            Job(f"bb-gzip{bits}", "real", bb, ["gzip", "-c"], ["gzip", "-c"], bits=bits,
                stdin=("text", 24 << 10), smoke_stdin=("text", 256), strict=False,
                checksum="stdout", max_reps=5, note="busybox gzip -c, 24 MiB of text"),
            Job(f"bb-sort{bits}", "real", bb, ["sort"], ["sort"], bits=bits,
                stdin=("text", 24 << 10), smoke_stdin=("text", 256), strict=False,
                checksum="stdout", max_reps=5,
                note="busybox sort, 24 MiB of text (about 330,000 lines)"),
            Job(f"bb-bzip2{bits}", "real", bb, ["bzip2", "-c"], ["bzip2", "-c"], bits=bits,
                stdin=("text", 8 << 10), smoke_stdin=("text", 256), strict=False,
                checksum="stdout", max_reps=5, note="busybox bzip2 -c, 8 MiB of text"),
            Job(f"bb-awk{bits}", "real", bb, ["awk", AWK_PROGRAM], ["awk", AWK_PROGRAM],
                bits=bits, stdin=("numbers", 10 << 10), smoke_stdin=("numbers", 64),
                strict=False, checksum="stdout", max_reps=3,
                note="busybox awk: sums of products over 10 MiB of numbers (650,000 lines; "
                "doubles: soft-float in QEMU and Unicorn)"),
        ]
    for bits in ("64", "32"):
        out.append(Job("zstd" + bits, "real", "zstd" + bits, ["32", "3"], ["1", "1"],
                       strict=False, max_reps=5,
                       note="Debian's libzstd.a (static): compress + decompress 32 MiB of text"))
    for bits in ("64", "32"):
        out.append(Job("lua" + bits, "real", "lua" + bits, ["8"], ["1"], strict=False,
                       max_reps=5,
                       note="Debian's liblua5.4.a (static): calls, tables, sort, strings "
                       "(8 rounds; a computed goto per bytecode)"))
    # Four threads (static glibc pthreads, pre-strict personality): compute
    # that scales with cores, a barrier loop that is all futex traffic, and
    # a shared queue under a contended mutex with atomic counters.
    for bits in ("64", "32"):
        out += [
            Job("threads4-64M" + bits, "threads", "threads" + bits, ["64", "0", "4"],
                ["1", "0", "4"], strict=False, max_reps=5, parallel=True,
                note="4 threads scatter and hash their quarter of 64 MiB"),
            Job("threads4-sync" + bits, "threads", "threads" + bits, ["1", "20000", "4"],
                ["1", "100", "4"], strict=False, max_reps=5, parallel=True,
                note="4 threads: 20,000 rounds of mutex + barrier (futex wait/wake)"),
            Job("threads4-queue" + bits, "threads", "queue" + bits, ["4000", "4"],
                ["10", "4"], strict=False, max_reps=5, parallel=True,
                note="4 threads: 4M items through one mutex-guarded queue, atomic tickets "
                "and totals (lock xadd)"),
        ]
    # What a distribution's x86-64-v3 build runs: the CPU-bound and memory
    # jobs at -O3 -march=x86-64-v3 (AVX2 ymm loops, FMA, BMI2).
    v3 = ("avx2", "bmi2", "fma")
    out += [
        Job("store64-v3", "isa", "store_v3_64", ["120"], ["1"], cpu_needs=v3,
            note="store64 at -O3 -march=x86-64-v3"),
        Job("interp64-v3", "isa", "interp_v3_64", ["150000"], ["200"], cpu_needs=v3,
            note="interp64 at -O3 -march=x86-64-v3"),
        Job("fp64-v3", "isa", "fp_v3_64", ["1000000"], ["1000"], cpu_needs=v3,
            note="fp64 at -O3 -march=x86-64-v3 (FMA)"),
        Job("scatter64M64-v3", "isa", "scatter_v3_64", ["64", "6"], ["1", "0"], max_reps=5,
            cpu_needs=v3, note="scatter64M64 at -O3 -march=x86-64-v3 (AVX2 ymm loops)"),
        Job("chase64M64-v3", "isa", "chase_v3_64", ["64", "4"], ["1", "0"], max_reps=5,
            cpu_needs=v3, note="chase64M64 at -O3 -march=x86-64-v3"),
        Job("hash48M64-v3", "isa", "hash_v3_64", ["3000"], ["50"], max_reps=5, cpu_needs=v3,
            note="hash48M64 at -O3 -march=x86-64-v3"),
    ]
    return out


INPUT_WORDS = None


def input_words():
    """2,000 pseudo-words, 2 to 10 letters, the same on every run."""
    global INPUT_WORDS
    if INPUT_WORDS is None:
        rng = random.Random("seccomp-emu bench words")
        letters = "etaoinshrdlucmfwypvbgkjqxz"
        INPUT_WORDS = ["".join(rng.choices(letters, weights=range(26, 0, -1),
                                           k=rng.randint(2, 10))) for _ in range(2000)]
    return INPUT_WORDS


def make_input(kind, kib, directory):
    """A generated input file of kib KiB, made once and kept: 'random' bytes,
    'text' (lines of 6 to 14 words and numbers, for gzip and sort) or
    'numbers' (three integers a line, for awk).  Deterministic: same seed,
    same bytes."""
    path = os.path.join(directory, f"{kind}-{kib}KiB")
    size = kib << 10
    if os.path.exists(path) and os.path.getsize(path) == size:
        return path
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(f"seccomp-emu bench {kind} {kib}")
    if kind == "random":
        data = rng.randbytes(size)
    else:
        parts, n = [], 0
        words = input_words()
        while n < size:
            if kind == "text":
                line = " ".join(rng.choice(words) if rng.random() < 0.85
                                else str(rng.randrange(100000))
                                for _ in range(rng.randint(6, 14))) + "\n"
            elif kind == "numbers":
                line = (f"{rng.randrange(1000000)} {rng.randrange(1000)} "
                        f"{rng.randrange(100000)}\n")
            else:
                raise ValueError(kind)
            parts.append(line)
            n += len(line)
        data = "".join(parts).encode()[:size]
        data = data[:data.rindex(b"\n") + 1]
        data += b"\n" * (size - len(data))  # whole lines, exact size
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def static_elf(path, bits):
    """True when path is an ELF executable of that width with no
    interpreter (seccomp-emu loads only static programs)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or head[4] != (1 if bits == 32 else 2):
                return False
            if bits == 64:
                phoff, phentsize, phnum = (int.from_bytes(head[32:40], "little"),
                                           int.from_bytes(head[54:56], "little"),
                                           int.from_bytes(head[56:58], "little"))
            else:
                phoff, phentsize, phnum = (int.from_bytes(head[28:32], "little"),
                                           int.from_bytes(head[42:44], "little"),
                                           int.from_bytes(head[44:46], "little"))
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return False
    PT_INTERP = 3
    return all(int.from_bytes(table[i:i + 4], "little") != PT_INTERP
               for i in range(0, len(table), phentsize))


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^flags\s*:\s*(.*)$", f.read(), re.M)
            return set(m.group(1).split()) if m else set()
    except OSError:
        return set()


class Run:
    """One measured run."""

    def __init__(self, wall_ms, cpu_ms, maxrss_kb, status, checksum):
        self.wall_ms, self.cpu_ms, self.maxrss_kb = wall_ms, cpu_ms, maxrss_kb
        self.status, self.checksum = status, checksum


class Fds:
    """The descriptors a guest gets as 0, 1, 2 for one run."""

    def __init__(self, io, tmpdir, stdin=None, checksum="printed"):
        self.close_after = []
        self.checksum_kind = checksum
        self.out = open(os.path.join(tmpdir, "out"), "w+b")
        self.err = open(os.path.join(tmpdir, "err"), "w+b")
        self.dev_null = open(os.devnull, "r+b")
        self.stdin = open(stdin, "rb") if stdin else None
        if io == "file":
            self.fd0 = self.stdin.fileno() if self.stdin else self.dev_null.fileno()
            self.fd1, self.fd2 = self.out.fileno(), self.err.fileno()
        elif io == "null":
            self.fd0, self.fd1, self.fd2 = self.dev_null.fileno(), self.dev_null.fileno(), self.out.fileno()
        elif io == "pipe":
            r, w = os.pipe()
            self.close_after += [r, w]
            self.fd0, self.fd1, self.fd2 = r, w, self.out.fileno()
        elif io == "tcp":
            srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            srv.bind(("127.0.0.1", 0))
            srv.listen(1)
            cli = socket.create_connection(srv.getsockname())
            cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn, _ = srv.accept()
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            srv.close()
            self.sockets = [cli, conn]
            self.fd0, self.fd1, self.fd2 = conn.fileno(), cli.fileno(), self.out.fileno()
        else:
            raise ValueError(io)

    def checksum(self):
        if self.checksum_kind == "stdout":
            self.out.seek(0)
            digest = hashlib.sha256()
            for block in iter(lambda: self.out.read(1 << 20), b""):
                digest.update(block)
            return digest.hexdigest()[:16]
        text = b""
        for f in (self.out, self.err):
            f.seek(0)
            text += f.read()
        m = re.search(rb"checksum ([0-9a-f]{16})", text)
        return m.group(1).decode() if m else None

    def output(self):
        out = []
        for f in (self.out, self.err):
            f.seek(0)
            out.append(f.read().decode(errors="replace")[-400:])
        return "".join(out)

    def close(self):
        for fd in self.close_after:
            os.close(fd)
        for s in getattr(self, "sockets", []):
            s.close()
        for f in (self.out, self.err, self.dev_null, self.stdin):
            if f:
                f.close()


def spawn_once(measure, argv, io, tmpdir, stdin=None, checksum="printed", env=None):
    """One run of argv through the measure helper, which reports on fd 3;
    an empty environment but for `env`."""
    fds = Fds(io, tmpdir, stdin, checksum)
    rep_r, rep_w = os.pipe()
    try:
        actions = [(os.POSIX_SPAWN_DUP2, fds.fd0, 0), (os.POSIX_SPAWN_DUP2, fds.fd1, 1),
                   (os.POSIX_SPAWN_DUP2, fds.fd2, 2), (os.POSIX_SPAWN_DUP2, rep_w, 3)]
        pid = os.posix_spawn(measure, [measure] + argv, env or {}, file_actions=actions)
        os.close(rep_w)
        rep_w = -1
        with os.fdopen(rep_r, "r") as f:
            rep_r = -1
            report = f.read().split()
        _, wstatus = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(wstatus) != 0 or len(report) != 4:
            raise RuntimeError(f"measure {argv[0]} failed: {fds.output().strip()}")
        wall_ns, cpu_us, maxrss_kb, status = (int(x) for x in report)
        run = Run(wall_ns / 1e6, cpu_us / 1e3, maxrss_kb, os.waitstatus_to_exitcode(status),
                  fds.checksum())
        run.output = fds.output()
        return run
    finally:
        for fd in (rep_r, rep_w):
            if fd >= 0:
                os.close(fd)
        fds.close()


def describe_status(s):
    return f"killed by signal {-s}" if s < 0 else f"exit {s}"


def machine_info(emu, qemus):
    info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "host": platform.node(), "kernel": platform.release(), "arch": platform.machine(),
            "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            info["cpu"] = m.group(1).strip() if m else "?"
    except OSError:
        info["cpu"] = "?"
    # the vendored engine (subprojects/unicorn), never the host's
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "subprojects",
                               "unicorn", "README.seccomp-emu.md")) as f:
            m = re.search(r"^- Version: tag `([^`]+)`", f.read(), re.M)
        info["unicorn"] = (m.group(1) + " vendored, with our patches") if m else "?"
    except OSError:
        info["unicorn"] = "?"
    for bits, q in qemus.items():
        if q:
            out = subprocess.run([q, "--version"], capture_output=True, text=True).stdout
            info["qemu"] = out.splitlines()[0] if out else "?"
            break
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        info["commit"] = subprocess.run(["git", "-C", here, "describe", "--always", "--dirty"],
                                        capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    return info


def emu_help(emu):
    p = subprocess.run([emu, "--help-all"], capture_output=True, text=True)
    return p.stdout + p.stderr


def has_sched_parallel(emu):
    """Whether this seccomp-emu runs each guest task on its own engine and
    host thread (--sched=parallel, issue 35): it accepts the option (an
    unknown policy is a usage error before --version prints)."""
    p = subprocess.run([emu, "--sched=parallel", "--version"], capture_output=True)
    return p.returncode == 0


def fmt_ms(v):
    if v is None:
        return "-"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}x"


def fmt_mb(kb):
    return "-" if kb is None else f"{kb / 1024:.1f}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(here, "..", "build"),
                    help="meson build directory (default: build/)")
    ap.add_argument("--reps", type=int, default=None,
                    help="runs of each kind per job (default 5, with --quick 3; slow jobs "
                    "at most 5)")
    ap.add_argument("--quick", action="store_true",
                    help="3 runs each, and of the scatter sizes only 64 MiB (about a third "
                    "of the full run's time)")
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes, one run each: checks the suite works, measures nothing")
    ap.add_argument("--only", help="regular expression: run only matching jobs")
    ap.add_argument("--no-qemu", action="store_true", help="skip QEMU user mode")
    ap.add_argument("--no-native", action="store_true",
                    help="skip native runs (ratios to native become unavailable)")
    ap.add_argument("--emu-flag", action="append", default=[], metavar="FLAG",
                    help="pass FLAG to every seccomp-emu run (repeatable), e.g. --no-self-sandbox")
    ap.add_argument("--emu-env", action="append", default=[], metavar="VAR=VALUE",
                    help="put VAR in every seccomp-emu run's environment (repeatable), e.g. "
                    "SECCOMP_EMU_WINDOW=direct; the runs have an empty one otherwise")
    ap.add_argument("--json", help="results file (default: BUILD/bench/results.json)")
    ap.add_argument("--compare", help="an earlier results file: print seccomp-emu's change")
    ap.add_argument("--table", metavar="FILE",
                    help="also write the table as generated markdown to FILE, with the host, "
                    "commit, date, load and command (e.g. docs/performance-table.md)")
    opts = ap.parse_args()
    emu_env = dict(v.split("=", 1) for v in opts.emu_env if "=" in v)
    if len(emu_env) != len(opts.emu_env):
        ap.error("--emu-env takes VAR=VALUE")

    build = os.path.abspath(opts.build)
    emu = os.path.join(build, "seccomp-emu")
    gdir = os.path.join(build, "bench")
    measure = os.path.join(gdir, "measure")
    for exe in (emu, measure):
        if not os.access(exe, os.X_OK):
            sys.exit(f"bench: {exe} not found: build first (scripts/bench.sh does)")
    qemus = {64: None, 32: None}
    if not opts.no_qemu:
        qemus = {64: shutil.which("qemu-x86_64"), 32: shutil.which("qemu-i386")}
    notes = []
    oracle = Oracle("bench", emu)
    for bits, q in qemus.items():
        if not q and not opts.no_qemu:
            notes.append(f"qemu-{'x86_64' if bits == 64 else 'i386'} not installed: "
                         f"{bits}-bit QEMU runs skipped")
    helptext = emu_help(emu)
    parallel = has_sched_parallel(emu)
    if not parallel and any(j.parallel for j in jobs()):
        notes.append("seccomp-emu has no --sched=parallel (it refused the option): the "
                     "threads jobs ran with the default policy only")
    reps = 1 if opts.smoke else max(1, opts.reps or (3 if opts.quick else 5))
    load_start = os.getloadavg()
    host_flags = cpu_flags()

    selected = [j for j in jobs() if (not opts.only or re.search(opts.only, j.name))
                and (j.quick or not opts.quick)]
    results = []
    failures = []
    started = time.monotonic()
    MACHINE.update(machine_info(emu, qemus))
    with tempfile.TemporaryDirectory(prefix="seccomp-emu-bench-") as tmpdir:
        for job in selected:
            prog = job.guest if os.path.isabs(job.guest) else os.path.join(gdir, job.guest)
            if not os.access(prog, os.X_OK):
                if os.path.isabs(job.guest):
                    notes.append(f"{job.name}: {prog} is not installed (scripts/install-deps.sh, "
                                 f"scripts/bench-deps.sh): skipped")
                else:
                    notes.append(f"{job.name}: {job.guest} was not built (no compiler for it, "
                                 f"or its library is missing): skipped")
                continue
            if not static_elf(prog, job.bits):
                failures.append(f"{job.name}: {prog} is not a static {job.bits}-bit ELF program")
                continue
            args = job.smoke_args if opts.smoke else job.args
            stdin_spec = job.smoke_stdin if opts.smoke else job.stdin
            stdin = make_input(*stdin_spec, os.path.join(gdir, "inputs")) if stdin_spec else None
            kinds = []  # (label, argv, expected status)
            if job.variants:
                for label, flags in job.variants:
                    feat = next((f for f in FEATURES if f[0] == label), None)
                    if feat and feat[1] not in helptext:
                        notes.append(f"{job.name}: {label}: not available yet "
                                     f"(no {feat[1]} in seccomp-emu --help-all)")
                        continue
                    kinds.append((label, [emu] + opts.emu_flag + flags + [prog] + args, 0))
            else:
                lacks = oracle.missing(prog) if "native" in job.runners else []
                lacks += [f"the {f} instructions" for f in job.cpu_needs if f not in host_flags]
                if lacks and not opts.no_native:
                    # no recording can stand in for a timing; QEMU's checksum
                    # judges the emulated one's, and without QEMU nothing does
                    why = f"{job.name}: no native run here (the host lacks {', '.join(lacks)})"
                    if not qemus[job.bits]:
                        failures.append(f"{why} and no QEMU: nothing judges its checksum")
                        continue
                    notes.append(f"{why}: no ratios to native; QEMU's checksum judges")
                elif "native" in job.runners and not opts.no_native:
                    kinds.append(("native", [prog] + args, 0))
                q = qemus[job.bits]
                if "qemu" in job.runners and q:
                    kinds.append(("qemu", [q, prog] + args, EXIT_NOT_STRICT if job.strict else 0))
                kinds.append(("emu", [emu] + opts.emu_flag + [prog] + args, 0))
                if job.parallel and parallel:
                    kinds.append((PARALLEL, [emu] + opts.emu_flag + ["--sched=parallel", prog]
                                  + args, 0))
            n = reps * (1 if opts.smoke else job.reps_factor)
            if job.max_reps and not opts.smoke:
                n = min(n, job.max_reps)
            runs = {k[0]: [] for k in kinds}
            want_sum = None
            job_started = time.monotonic()
            print(f"bench: {job.name}: {len(kinds)} kinds x {n} runs", file=sys.stderr, flush=True)
            # One unmeasured warm-up of each kind (page cache, CPU frequency),
            # then the measured runs, the kinds in alternation.
            for rep in range(0 if job.max_reps and not opts.smoke else -1, n):
                for label, argv, want_status in kinds:
                    env = emu_env if argv[0] == emu else None
                    r = spawn_once(measure, argv, job.io, tmpdir, stdin, job.checksum, env)
                    ok = r.status == want_status and r.checksum is not None
                    if want_sum is None and ok:
                        want_sum = r.checksum
                    if ok and r.checksum != want_sum:
                        ok = False
                    if not ok:
                        failures.append(f"{job.name} [{label}]: {describe_status(r.status)} "
                                        f"(want {describe_status(want_status)}), checksum "
                                        f"{r.checksum} (want {want_sum}): {r.output.strip()}")
                        break
                    if rep >= 0:
                        runs[label].append(r)
                else:
                    continue
                break
            entry = {"job": job.name, "group": job.group, "abi": f"{job.bits}-bit",
                     "guest": job.guest, "args": args, "note": job.note,
                     "stdin": f"{stdin_spec[0]}, {stdin_spec[1]} KiB" if stdin_spec else None,
                     "checksum": want_sum, "kinds": {},
                     "seconds": round(time.monotonic() - job_started, 1)}
            for label, rs in runs.items():
                if not rs:
                    continue
                entry["kinds"][label] = {
                    "wall_ms": [round(r.wall_ms, 3) for r in rs],
                    "cpu_ms": [round(r.cpu_ms, 3) for r in rs],
                    "maxrss_kb": [r.maxrss_kb for r in rs],
                    "median_wall_ms": round(statistics.median(r.wall_ms for r in rs), 3),
                    "median_cpu_ms": round(statistics.median(r.cpu_ms for r in rs), 3),
                    "max_maxrss_kb": max(r.maxrss_kb for r in rs),
                }
            evaluate(entry)
            results.append(entry)
            # What is done so far, so that a run cut short leaves its part.
            if len(results) < len(selected):
                write_outputs(opts, gdir, emu, qemus, reps, notes, failures, results,
                              load_start, started, f"{len(results)} of {len(selected)} jobs")

    doc, table = write_outputs(opts, gdir, emu, qemus, reps, notes, failures, results,
                               load_start, started, None)
    print(table)
    if opts.compare:
        print(compare(opts.compare, doc))
    print(f"bench: results in {opts.json or os.path.join(gdir, 'results.json')}", file=sys.stderr)
    if opts.table:
        print(f"bench: table in {opts.table}", file=sys.stderr)
    for f in failures:
        print(f"bench: FAILED: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


# The machine and commit, read once before the first job: the run itself
# rewrites bench/results.json, which would make a later `git describe` dirty.
MACHINE = {}


def machine_info_date():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def write_outputs(opts, gdir, emu, qemus, reps, notes, failures, results, load_start, started,
                  partial):
    """The results file and, with --table, the generated markdown page;
    partial says how far a run still going has come."""
    info = dict(MACHINE) if MACHINE else machine_info(emu, qemus)
    MACHINE.update(info)
    info["date"] = machine_info_date()
    info["load_start"] = [round(x, 2) for x in load_start]
    info["load_end"] = [round(x, 2) for x in os.getloadavg()]
    info["minutes"] = round((time.monotonic() - started) / 60, 1)
    # scripts/bench.sh passes its arguments through to this
    info["command"] = shlex.join(["bench/run.py"] + sys.argv[1:])
    extra = ["seccomp-emu ran with " + " ".join(opts.emu_flag)] if opts.emu_flag else []
    if partial:
        extra.append(f"PARTIAL: the run was still going ({partial} done)")
    doc = {"machine": info, "reps": reps, "smoke": opts.smoke, "notes": notes + extra,
           "failures": failures, "results": results}
    out_path = opts.json or os.path.join(gdir, "results.json")
    with open(out_path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(out_path + ".tmp", out_path)
    table = render(doc)
    if opts.table:
        os.makedirs(os.path.dirname(os.path.abspath(opts.table)), exist_ok=True)
        with open(opts.table + ".tmp", "w") as f:
            f.write(render_page(doc, table))
        os.replace(opts.table + ".tmp", opts.table)
    return doc, table


def med(entry, kind, field="median_wall_ms"):
    k = entry["kinds"].get(kind)
    return k[field] if k else None


def ratio(a, b):
    return a / b if a is not None and b else None


def round_range(entry, a, b):
    """Lowest and highest ratio a/b of one round.  The kinds of a round
    run back to back, so a slow phase of a shared machine tends to slow
    both; the range says how far one round may be from the medians' ratio
    (README table, AMD PVM host: store64 0.96-2.16x QEMU around 1.01x)."""
    ka, kb = entry["kinds"].get(a), entry["kinds"].get(b)
    if not ka or not kb or len(ka["wall_ms"]) != len(kb["wall_ms"]):
        return None
    rs = [x / y for x, y in zip(ka["wall_ms"], kb["wall_ms"]) if y]
    return [min(rs), max(rs)] if rs else None


def check(what, value, limit, spread=None):
    """A target, met or not on the medians as the issue asks, and whether
    single rounds fell on both sides of it (then one run proves little)."""
    straddles = spread is not None and spread[0] <= limit < spread[1]
    return (what, value <= limit, straddles)


def evaluate(entry):
    """Ratios and the issue's targets for one job."""
    g = entry["group"]
    checks = []
    if g == "feature":
        plain = med(entry, "plain (trace off)")
        for label in entry["kinds"]:
            if label.startswith("plain"):
                continue
            r = ratio(med(entry, label), plain)
            spread = round_range(entry, label, "plain (trace off)")
            entry["kinds"][label]["vs_plain"] = r
            entry["kinds"][label]["vs_plain_rounds"] = spread
            if r is not None and not label.startswith("trace on"):
                checks.append(check(f"{label} <= {FEATURE_VS_PLAIN:.2f}x plain", r,
                                    FEATURE_VS_PLAIN, spread))
        entry["checks"] = checks
        return
    emu = med(entry, "emu")
    entry.update(emu_ratios(entry, "emu"))
    mem_emu = med(entry, "emu", "max_maxrss_kb")
    mem_qemu = med(entry, "qemu", "max_maxrss_kb")
    if g in ("cpu", "memory", "real", "isa", "threads"):
        if entry["emu_vs_qemu"] is not None:
            checks.append(check(f"<= {CPU_VS_QEMU}x QEMU", entry["emu_vs_qemu"], CPU_VS_QEMU,
                                entry["emu_vs_qemu_rounds"]))
        if entry["emu_vs_native"] is not None:
            checks.append(check(f"<= {CPU_VS_NATIVE:.0f}x native", entry["emu_vs_native"],
                                CPU_VS_NATIVE, entry["emu_vs_native_rounds"]))
    elif g == "syscall":
        if entry["emu_vs_native"] is not None:
            checks.append(check(f"<= {SYSCALL_VS_NATIVE}x native", entry["emu_vs_native"],
                                SYSCALL_VS_NATIVE, entry["emu_vs_native_rounds"]))
    elif g == "startup" and emu is not None:
        walls = entry["kinds"]["emu"]["wall_ms"]
        checks.append(check(f"<= {STARTUP_MS:.0f} ms", emu, STARTUP_MS, [min(walls), max(walls)]))
    if mem_emu is not None and mem_qemu is not None:
        checks.append(check("memory <= QEMU's", mem_emu, mem_qemu))
    entry["checks"] = checks
    if PARALLEL in entry["kinds"]:
        par = emu_ratios(entry, PARALLEL)
        par["checks"] = []
        if par["emu_vs_qemu"] is not None:
            par["checks"].append(check(f"<= {PARALLEL_VS_QEMU}x QEMU", par["emu_vs_qemu"],
                                       PARALLEL_VS_QEMU, par["emu_vs_qemu_rounds"]))
        mem_par = med(entry, PARALLEL, "max_maxrss_kb")
        if mem_par is not None and mem_qemu is not None:
            par["checks"].append(check("memory <= QEMU's", mem_par, mem_qemu))
        entry["sched_parallel"] = par


def emu_ratios(entry, kind):
    """A seccomp-emu kind's wall and CPU time against native and QEMU's
    from the same run."""
    emu, nat, qemu = med(entry, kind), med(entry, "native"), med(entry, "qemu")
    # CPU time (user + system) is steadier than wall time on a shared machine.
    cpu = lambda k: med(entry, k, "median_cpu_ms")
    return {"emu_vs_native": ratio(emu, nat), "emu_vs_qemu": ratio(emu, qemu),
            "emu_vs_native_rounds": round_range(entry, kind, "native"),
            "emu_vs_qemu_rounds": round_range(entry, kind, "qemu"),
            "cpu_emu_vs_native": ratio(cpu(kind), cpu("native")),
            "cpu_emu_vs_qemu": ratio(cpu(kind), cpu("qemu"))}


def verdict(entry):
    checks = entry.get("checks", [])
    if not checks:
        return "-"
    misses = [c for c, ok, _ in checks if not ok]
    text = "meets" if not misses else "misses " + ", ".join(misses)
    noisy = [c for c, _, straddles in checks if straddles]
    if noisy:
        text += " (single rounds on both sides of " + ", ".join(noisy) + ")"
    return text


def fmt_spread(value, spread):
    """A ratio with its rounds' range: 1.37x (0.93-1.61)."""
    if value is None:
        return "-"
    if not spread:
        return fmt_ratio(value)
    return f"{fmt_ratio(value)} ({spread[0]:.2f}-{spread[1]:.2f})"


def render(doc):
    m = doc["machine"]
    lines = []
    lines.append(f"Machine: {m.get('cpu')}, {m.get('cores')} cores, Linux {m.get('kernel')}; "
                 f"Unicorn {m.get('unicorn')}; {m.get('qemu', 'no QEMU')}; "
                 f"seccomp-emu {m.get('commit', '?')}; {m.get('date')}; "
                 f"medians of {doc['reps']} runs (start-up: {doc['reps'] * 4}; jobs of seconds: at "
                 f"most 5, without the warm-up); in "
                 f"parentheses the lowest and highest ratio of a single round (the kinds of a "
                 f"round run back to back).")
    lines.append("")
    lines.append("| job | what | native ms | QEMU ms | seccomp-emu ms | emu/native | emu/QEMU "
                 "| CPU emu/native | CPU emu/QEMU | peak MiB native/QEMU/emu | targets (wall) |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    group = None
    for e in doc["results"]:
        if e["group"] == "feature":
            continue
        mem = "/".join(fmt_mb(med(e, k, "max_maxrss_kb")) for k in ("native", "qemu", "emu"))
        emu_ms = fmt_ms(med(e, "emu"))
        if e["group"] != group:
            group = e["group"]
            lines.append(f"| **{GROUP_TITLES.get(group, group)}** |||||||||||")
        lines.append(f"| {e['job']} | {e['note']} | {fmt_ms(med(e, 'native'))} | "
                     f"{fmt_ms(med(e, 'qemu'))} | {emu_ms} | "
                     f"{fmt_spread(e.get('emu_vs_native'), e.get('emu_vs_native_rounds'))} | "
                     f"{fmt_spread(e.get('emu_vs_qemu'), e.get('emu_vs_qemu_rounds'))} | "
                     f"{fmt_ratio(e.get('cpu_emu_vs_native'))} | {fmt_ratio(e.get('cpu_emu_vs_qemu'))} | "
                     f"{mem} | {verdict(e)} |")
        par = e.get("sched_parallel")
        if par:
            mem = "/".join(fmt_mb(med(e, k, "max_maxrss_kb")) for k in ("native", "qemu", PARALLEL))
            lines.append(f"| {e['job']} --sched=parallel | the same, each thread on its own engine "
                         f"and host thread | {fmt_ms(med(e, 'native'))} | "
                         f"{fmt_ms(med(e, 'qemu'))} | {fmt_ms(med(e, PARALLEL))} | "
                         f"{fmt_spread(par['emu_vs_native'], par['emu_vs_native_rounds'])} | "
                         f"{fmt_spread(par['emu_vs_qemu'], par['emu_vs_qemu_rounds'])} | "
                         f"{fmt_ratio(par['cpu_emu_vs_native'])} | "
                         f"{fmt_ratio(par['cpu_emu_vs_qemu'])} | {mem} | {verdict(par)} |")
    feats = [e for e in doc["results"] if e["group"] == "feature"]
    for e in feats:
        lines.append("")
        lines.append(f"Feature cost ({e['job'].split()[0]} under seccomp-emu):")
        lines.append("")
        lines.append("| variant | ms | vs plain |")
        lines.append("|---|---:|---:|")
        for label, k in e["kinds"].items():
            lines.append(f"| {label} | {fmt_ms(k['median_wall_ms'])} | "
                         f"{fmt_spread(k.get('vs_plain', 1.0), k.get('vs_plain_rounds'))} |")
        lines.append("")
        lines.append(f"Feature targets: {verdict(e)}.")
    if doc["notes"] or doc["failures"]:
        lines.append("")
        for n in doc["failures"]:
            lines.append(f"- FAILED: {n}")
        for n in doc["notes"]:
            lines.append(f"- {n}")
    return "\n".join(lines)


GROUP_TITLES = {
    "cpu": "CPU-bound, small working set (strict mode)",
    "syscall": "system calls (strict mode)",
    "startup": "start-up",
    "memory": "large working sets (strict mode)",
    "real": "real programs, large inputs (pre-strict personality)",
    "threads": "four threads (static glibc pthreads, pre-strict personality)",
    "isa": "x86-64-v3 builds (AVX2, FMA, BMI2)",
}


def render_page(doc, table):
    """The generated markdown file: where it came from, then the table."""
    m = doc["machine"]
    cores = m.get("cores") or 1
    busy = max(m["load_start"][0], m["load_end"][0], m["load_start"][1]) > 0.5 * cores
    head = [
        "# seccomp-emu benchmark results",
        "",
        "<!-- Generated by bench/run.py; do not edit by hand: run the command below. -->",
        "",
        f"- command: `{m.get('command')}` ({m.get('minutes')} minutes)",
        f"- host: {m.get('host')}, {m.get('cpu')}, {cores} cores, Linux {m.get('kernel')}",
        f"- seccomp-emu commit: {m.get('commit', '?')}; Unicorn {m.get('unicorn')}; "
        f"{m.get('qemu', 'no QEMU')}",
        f"- date: {m.get('date')}",
        f"- load average (1, 5, 15 min) at start {m['load_start']}, at end {m['load_end']}"
        + (f": the machine was loaded by other work (a load above half its {cores} cores), "
           f"so wall times include waiting for a core; read the ranges" if busy else ""),
        "",
        "Each job runs natively (where this host can), under QEMU user mode and under "
        "seccomp-emu, the kinds in alternation after one unmeasured warm-up (none for jobs of "
        "seconds); every run must "
        "print the native run's checksum (or, where the host cannot run the job natively, "
        "QEMU's) and exit as expected. Freestanding guests enter strict mode themselves "
        "(exit 3 under QEMU, which has no seccomp); the real programs (Debian's static "
        "busybox, and drivers linked with Debian's libzstd.a and liblua5.4.a) make glibc's "
        "own calls, so "
        "they run in seccomp-emu's pre-strict personality and their checksum is a hash of "
        "their standard output. Inputs are generated once, deterministically, into "
        "BUILD/bench/inputs. Peak memory is each run's own maxrss (wait4).",
        "",
    ]
    return "\n".join(head) + "\n" + table + "\n"


def compare(path, doc):
    with open(path) as f:
        old = json.load(f)
    before = {}
    for e in old["results"]:
        for label, k in e["kinds"].items():
            if label != "native" and label != "qemu":
                before[(e["job"], label)] = k["median_wall_ms"]
    lines = [f"Change against {path} (seccomp-emu medians):", "",
             "| job | kind | before ms | now ms | now/before |", "|---|---|---:|---:|---:|"]
    for e in doc["results"]:
        for label, k in e["kinds"].items():
            b = before.get((e["job"], label))
            if b is None:
                continue
            lines.append(f"| {e['job']} | {label} | {fmt_ms(b)} | {fmt_ms(k['median_wall_ms'])} | "
                         f"{fmt_ratio(ratio(k['median_wall_ms'], b))} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
