#!/usr/bin/env python3
"""The seed's experiment over real sockets.

A master listens on loopback, starts seccomp-emu for each job with the job's
descriptors mapped to its sockets (guest fd 0: the input connection, guest
fd 1: the results connection, nothing else: --close-std), sends the input,
receives the results, and reports for each job "exit_code E signal S", as
the original cpushare test did.  Exits 1 if any job did not end as expected.

    examples/master.py --emu build/seccomp-emu --build build
"""
import argparse
import os
import socket
import subprocess
import sys
import time

JOB_TIMEOUT = 120  # seconds, per job: a bound, never a measurement


def sieve_report(limit, bits, wrap_square):
    """What the jobs' sieve reports: count and checksum in `bits`-bit unsigned
    arithmetic.  wrap_square: the product i * i wraps as in safe_job.c."""
    mask = (1 << bits) - 1
    composite = bytearray(limit)
    count = total = 0
    for i in range(2, limit):
        if composite[i]:
            continue
        count += 1
        total = (total * 31 + i) & mask
        if wrap_square:
            start = (i * i) & mask
        elif i > (limit - 1) // i:
            continue
        else:
            start = i * i
        for j in range(start, limit, i):
            composite[j] = 1
    return count, total


def count_job_output(limit, bits):
    count, total = sieve_report(limit, bits, wrap_square=False)
    return f"count job: primes below {limit}: {count}, checksum {total}\n".encode()


def safe_job_output(bits):
    count, total = sieve_report(200000, bits, wrap_square=True)
    return f"safe job: primes below 200000: {count}, checksum {total}\n".encode()


MALICIOUS_OUTPUT = b"malicious job: now trying to open /etc/passwd\n"


def jobs(build):
    raw = os.path.join(build, "examples", "raw")
    ex = os.path.join(build, "examples")

    def raw_job(name, arch):
        return ["--raw", f"{raw}/{name}_{arch}.text.bin,{raw}/{name}_{arch}.data.bin",
                f"--arch={arch}"]

    # name, seccomp-emu arguments after the descriptors, input, expected
    # (exit code, signal), expected output
    return [
        ("count job (x86_64 raw bytecode)", raw_job("count_job", "x86_64"), b"1000000\n",
         (0, 0), count_job_output(1000000, 64)),
        ("count job (i386 raw bytecode)", raw_job("count_job", "i386"), b"500000\n",
         (0, 0), count_job_output(500000, 32)),
        ("malicious job (x86_64 raw bytecode)", raw_job("malicious_job", "x86_64"), b"",
         (0, 9), MALICIOUS_OUTPUT),
        ("malicious job (i386 raw bytecode)", raw_job("malicious_job", "i386"), b"",
         (0, 9), MALICIOUS_OUTPUT),
        ("safe job (64-bit)", ["--strict", f"{ex}/safe_job64"], b"", (0, 0), safe_job_output(64)),
        ("malicious job (64-bit)", ["--strict", f"{ex}/malicious_job64"], b"", (0, 9),
         MALICIOUS_OUTPUT),
        ("safe job (32-bit)", ["--strict", f"{ex}/safe_job32"], b"", (0, 0), safe_job_output(32)),
        ("malicious job (32-bit)", ["--strict", f"{ex}/malicious_job32"], b"", (0, 9),
         MALICIOUS_OUTPUT),
    ]


def accept(listener, proc, deadline):
    """One connection, unless seccomp-emu exits first (a mapping it could
    not make) or the deadline passes."""
    listener.settimeout(0.2)
    while True:
        try:
            conn, _ = listener.accept()
            conn.settimeout(max(1.0, deadline - time.monotonic()))
            return conn
        except socket.timeout:
            if proc.poll() is not None or time.monotonic() > deadline:
                return None


def run_job(emu, args, data):
    """Returns (exit code, signal, what the job sent, seccomp-emu's stderr)."""
    deadline = time.monotonic() + JOB_TIMEOUT
    with socket.create_server(("127.0.0.1", 0)) as lin, \
         socket.create_server(("127.0.0.1", 0)) as lout:
        cmd = [emu, "--close-std",
               "--fd", f"0=tcp:127.0.0.1:{lin.getsockname()[1]}",
               "--fd", f"1=tcp:127.0.0.1:{lout.getsockname()[1]}"] + args
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        received = b""
        cin = accept(lin, proc, deadline)
        cout = accept(lout, proc, deadline) if cin else None
        try:
            if cin and cout:
                cin.sendall(data)
                cin.shutdown(socket.SHUT_WR)  # the job reads end-of-file after it
                while True:
                    chunk = cout.recv(65536)
                    if not chunk:
                        break
                    received += chunk
        except OSError as e:  # a job killed mid-transfer resets nothing here, but be plain
            received += f"[master: {e}]".encode()
        finally:
            for c in (cin, cout):
                if c:
                    c.close()
        try:
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
    rc = proc.returncode
    return (rc, 0, received, err) if rc >= 0 else (0, -rc, received, err)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emu", required=True, help="the seccomp-emu executable")
    ap.add_argument("--build", required=True, help="the build directory holding the jobs")
    ap.add_argument("--only", help="run only the jobs whose name contains this")
    opts = ap.parse_args()

    bad = 0
    for name, args, data, want, want_out in jobs(opts.build):
        if opts.only and opts.only not in name:
            continue
        code, sig, out, err = run_job(opts.emu, args, data)
        got = f"exit_code {code} signal {sig}"
        ok = (code, sig) == want and out == want_out
        verdict = "as expected" if ok else \
            f"expected exit_code {want[0]} signal {want[1]}" + \
            ("" if out == want_out else f" and output {want_out!r}")
        print(f"master: {name}: {got} ({verdict})")
        for line in out.decode(errors="replace").splitlines():
            print(f"    job> {line}")
        for line in err.splitlines():
            print(f"    {line}")
        bad += not ok
    sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
