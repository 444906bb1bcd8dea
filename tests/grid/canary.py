#!/usr/bin/env python3
"""The grid's canary (examples/canary_job.c) tells seccomp-emu from a native run.

grid/submit/quorum.py admits a worker only if its canary answers as strict
mode does: the nonce's line, then SIGKILL at getpid.  A worker that runs
jobs natively answers with a second line and exit 0.  This checks both
answers, with the kernel as the judge of the native one, and that quorum.py
expects exactly what seccomp-emu gives.

    canary.py --emu build/seccomp-emu --canary build/examples/canary_job64
"""
import argparse
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "grid", "submit"))
import quorum  # noqa: E402


def run(cmd, data):
    p = subprocess.run(cmd, input=data, capture_output=True, timeout=60)
    return (p.returncode, 0, p.stdout) if p.returncode >= 0 else (0, -p.returncode, p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emu", required=True)
    ap.add_argument("--canary", required=True)
    opts = ap.parse_args()
    bad = 0
    for nonce in ("0123456789abcdef", "x", ""):
        want = quorum.canary_answer(nonce)
        emu = run([opts.emu, "--strict", "--", opts.canary], (nonce + "\n").encode())
        native = run([opts.canary], (nonce + "\n").encode())
        ok_emu = emu == (*quorum.CANARY_STATUS, want)
        ok_native = native[:2] == (0, 0) and native[2].startswith(want) and b"getpid answered" in native[2]
        print(f"canary {nonce!r}: seccomp-emu {emu}, {'as quorum.py expects' if ok_emu else 'NOT as expected'}; "
              f"native {native}, {'different, as it must be' if ok_native else 'NOT as expected'}")
        bad += not ok_emu or not ok_native
    assert quorum.CANARY_STATUS == (0, signal.SIGKILL)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
