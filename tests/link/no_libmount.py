"""The link without libmount (build-aux/no-libmount.sh), from both sides:
seccomp-emu does not need libmount.so, and a program linked the same way
that does read the mount table ends in the stub's abort, naming the
function.  usage: no_libmount.py READELF SECCOMP-EMU CONTROL"""
import signal
import subprocess
import sys

readelf, emu, control = sys.argv[1:4]
failed = False

dyn = subprocess.run([readelf, "-d", emu], capture_output=True, text=True, check=True).stdout
needed = [line.split("[")[1].rstrip("]") for line in dyn.splitlines() if "(NEEDED)" in line]
if any(n.startswith("libmount") for n in needed):
    print(f"FAIL: seccomp-emu needs libmount: {needed}")
    failed = True
else:
    print(f"ok: seccomp-emu needs {', '.join(needed)}")

run = subprocess.run([control], capture_output=True, text=True, timeout=30)
if run.returncode == -signal.SIGABRT and "GIO called libmount's mnt_" in run.stderr:
    print(f"ok: the control ends in the stub: {run.stderr.strip()}")
else:
    print(f"FAIL: the control: status {run.returncode}, stdout {run.stdout!r}, stderr {run.stderr!r}")
    failed = True
sys.exit(1 if failed else 0)
