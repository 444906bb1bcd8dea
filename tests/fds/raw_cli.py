#!/usr/bin/env python3
"""End-to-end tests of --raw.

- Jobs compiled with examples/raw/build-raw.sh: the raw images under
  seccomp-emu against the linked ELF (same code, same addresses) run
  natively, with the same input; stdout and wait status must match.
- Strict mode from the first instruction: forbidden calls kill (signal 9),
  rdtsc faults (signal 11: strict mode turns the TSC off, SPEC section 2).
- Hand-made images for the layout options: --entry, --text-addr,
  --data-addr, --stack, page permissions, the initial stack.
- Hostile images and bad options: one line on stderr, the documented
  status, nothing run.

    raw_cli.py --emu EMU --build BUILD
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from native_oracle import Oracle, vmjudge  # noqa: E402

TIMEOUT = 120


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
            print(f"ok: {what}")
        else:
            self.failed += 1
            print(f"FAIL: {what}\n  got:  {got!r}\n  want: {want!r}")

    def against_kernel(self, oracle, what, key, program, live, emulated, request=None,
                       convert=None):
        """emulated equals the kernel's answer: live, the VM's kernel's for
        REQUEST, or recorded where this host cannot run program
        (tests/native_oracle.py)."""
        want, label, problems = oracle.judge(key, program, live, lambda: emulated, (),
                                             request, convert)
        for p in problems:
            self.eq(f"{what}: {p}", False, True)
        if want is not None:
            self.eq(what if label == "native" else f"{what} [{label}]", emulated, want)


def vm_status(answer):
    """run()'s status from the VM's answer: (exit code, 0) or (0, signal)."""
    rc = answer.returncode()
    return (rc, 0) if rc >= 0 else (0, -rc)


def run(argv, data=b""):
    p = subprocess.run(argv, input=data, capture_output=True, timeout=TIMEOUT)
    rc = p.returncode
    status = (rc, 0) if rc >= 0 else (0, -rc)
    return status, p.stdout, p.stderr.decode(errors="replace")


def compiled_jobs(c, emu, build):
    oracle = Oracle("raw_cli", emu)
    raw = os.path.join(build, "examples", "raw")
    for arch in ("x86_64", "i386"):
        for job, data in (("safe_job", b""), ("count_job", b"123456\n"), ("count_job", b"7"),
                          ("count_job", b"not a number\n"), ("count_job", b"")):
            base = os.path.join(raw, f"{job}_{arch}")
            emulated = run([emu, "--raw", f"{base}.text.bin,{base}.data.bin", f"--arch={arch}"],
                           data)
            c.against_kernel(oracle, f"{job} {arch} input {data!r}: raw bytecode against the native ELF",
                             f"{job}_{arch}.elf input={data!r}", base + ".elf",
                             lambda: run([base + ".elf"], data)[:2], emulated[:2],
                             vmjudge.Request([base + ".elf"], stdin="feed", data=data,
                                             timeout=TIMEOUT),
                             lambda a: (vm_status(a), a.stdout))
        base = os.path.join(raw, f"malicious_job_{arch}")
        status, out, err = run([emu, "--raw", f"{base}.text.bin,{base}.data.bin",
                                f"--arch={arch}"])
        c.eq(f"malicious_job {arch}: killed by SIGKILL after its report", (status, out),
             ((0, 9), b"malicious job: now trying to open /etc/passwd\n"))
        c.eq(f"malicious_job {arch}: the reason names open",
             "open (" in err and "is not in the" in err, True)
        # Strict from the first instruction: the same job as an ELF without
        # --strict opens nothing either (no files exist), but lives.
        status, out, _ = run([emu, base + ".elf"])
        c.eq(f"malicious_job {arch} as ELF without --strict: not killed", status, (3, 0))


# Tiny hand-assembled programs.  Each returns the text bytes.
def exit_code_prog(arch, load_edi=None):
    """exit(byte at load_edi) if given, else exit(42)."""
    if arch == "x86_64":
        code = b""
        if load_edi is not None:
            code += b"\x0f\xb6\x3c\x25" + struct.pack("<I", load_edi)  # movzbl abs32, %edi
        else:
            code += b"\xbf\x2a\x00\x00\x00"  # mov $42, %edi
        return code + b"\xb8\x3c\x00\x00\x00\x0f\x05"  # mov $60, %eax; syscall
    code = b""
    if load_edi is not None:
        code += b"\x0f\xb6\x1d" + struct.pack("<I", load_edi)  # movzbl abs32, %ebx
    else:
        code += b"\xbb\x2a\x00\x00\x00"  # mov $42, %ebx
    return code + b"\xb8\x01\x00\x00\x00\xcd\x80"  # mov $1, %eax; int $0x80


def exit_with_reg(arch, prefix):
    """prefix code leaves the value in eax; exit(eax & 0xff)."""
    if arch == "x86_64":
        return prefix + b"\x89\xc7\xb8\x3c\x00\x00\x00\x0f\x05"  # mov %eax,%edi; exit
    return prefix + b"\x89\xc3\xb8\x01\x00\x00\x00\xcd\x80"  # mov %eax,%ebx; exit


def hand_made(c, emu, tmp):
    def img(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    for arch in ("x86_64", "i386"):
        a = f"--arch={arch}"
        t = img(f"exit42-{arch}", exit_code_prog(arch))
        c.eq(f"{arch}: text only, default entry", run([emu, "--raw", t, a])[0], (42, 0))
        # --entry: 16 bytes of ud2 first, the program after them.
        t = img(f"entry-{arch}", b"\x0f\x0b" * 8 + exit_code_prog(arch))
        c.eq(f"{arch}: default entry lands on ud2", run([emu, "--raw", t, a])[0], (0, 4))
        c.eq(f"{arch}: --entry past it", run([emu, "--raw", t, a, "--entry=0x10000010"])[0],
             (42, 0))
        # --text-addr: the same position-independent code elsewhere.
        t = img(f"exit42b-{arch}", exit_code_prog(arch))
        c.eq(f"{arch}: --text-addr", run([emu, "--raw", t, a, "--text-addr=0x4000000"])[0],
             (42, 0))
        # --data-addr: the code reads its exit code from the data image.
        for daddr in (0x20000000, 0x30001000):
            t = img(f"data-{arch}-{daddr:x}", exit_code_prog(arch, load_edi=daddr + 5))
            d = img(f"data-{arch}-{daddr:x}.data", b"\x00\x01\x02\x03\x04\x4d\x06")
            argv = [emu, "--raw", f"{t},{d}", a]
            if daddr != 0x20000000:
                argv.append(f"--data-addr={daddr:#x}")
            c.eq(f"{arch}: data image at {daddr:#x}", run(argv)[0], (0x4d, 0))
        # Text is not writable: a store to it faults.
        store = (b"\xc6\x04\x25\x00\x00\x00\x10\x01" if arch == "x86_64"   # movb $1, abs32
                 else b"\xc6\x05\x00\x00\x00\x10\x01")
        t = img(f"wtext-{arch}", store + exit_code_prog(arch))
        c.eq(f"{arch}: text is read-only", run([emu, "--raw", t, a])[0], (0, 11))
        # Data is writable and not executable: jump into it faults.
        d = img(f"jdata-{arch}.data", exit_code_prog(arch))
        jmp = b"\xb8\x00\x00\x00\x20\xff\xe0"  # mov $0x20000000, %eax; jmp *%eax (rax)
        t = img(f"jdata-{arch}", jmp)
        c.eq(f"{arch}: data is not executable", run([emu, "--raw", f"{t},{d}", a])[0], (0, 11))
        # The initial stack: argc = 0 at the stack pointer, NULLs above.
        if arch == "x86_64":
            peek = b"\x8b\x04\x24\x03\x44\x24\x08\x03\x44\x24\x10\x83\xc0\x07"
        else:
            peek = b"\x8b\x04\x24\x03\x44\x24\x04\x03\x44\x24\x08\x83\xc0\x07"
        t = img(f"stack-{arch}", exit_with_reg(arch, peek))
        c.eq(f"{arch}: argc 0 and NULLs on the stack", run([emu, "--raw", t, a])[0], (7, 0))
        # --stack: touching 12 KiB below the stack pointer needs a bigger stack.
        if arch == "x86_64":
            deep = b"\x48\x81\xec\x00\x30\x00\x00\x89\x04\x24\x31\xc0"  # sub; mov; xor
        else:
            deep = b"\x81\xec\x00\x30\x00\x00\x89\x04\x24\x31\xc0"
        t = img(f"deep-{arch}", exit_with_reg(arch, deep))
        c.eq(f"{arch}: --stack=8K is too small", run([emu, "--raw", t, a, "--stack=8K"])[0],
             (0, 11))
        c.eq(f"{arch}: --stack=16K suffices", run([emu, "--raw", t, a, "--stack=16384"])[0],
             (0, 0))
        # Registers start at zero, as for an ELF program.
        if arch == "x86_64":
            regs = b"\x09\xd8\x09\xc8\x09\xd0\x09\xf0\x09\xf8\x09\xe8\x4c\x09\xc0\x4c\x09\xf8"
        else:
            regs = b"\x09\xd8\x09\xc8\x09\xd0\x09\xf0\x09\xf8\x09\xe8"
        t = img(f"regs-{arch}", exit_with_reg(arch, regs))
        c.eq(f"{arch}: registers start at zero", run([emu, "--raw", t, a])[0], (0, 0))
        # Strict from the first instruction: rdtsc faults, getpid kills.
        t = img(f"rdtsc-{arch}", exit_with_reg(arch, b"\x0f\x31"))
        c.eq(f"{arch}: rdtsc with the TSC off", run([emu, "--raw", t, a])[0], (0, 11))
        getpid = (b"\xb8\x27\x00\x00\x00\x0f\x05" if arch == "x86_64"
                  else b"\xb8\x14\x00\x00\x00\xcd\x80")
        t = img(f"getpid-{arch}", exit_with_reg(arch, getpid))
        c.eq(f"{arch}: getpid kills", run([emu, "--raw", t, a])[0], (0, 9))


def hostile(c, emu, tmp):
    def img(name, data=b"", size=None):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
            if size is not None:
                f.truncate(size)
        return path

    good = img("good", exit_code_prog("x86_64"))
    empty = img("empty")
    huge = img("huge", size=(256 << 20) + 1)  # sparse: nothing is read
    missing = os.path.join(tmp, "missing")
    x = "--arch=x86_64"
    cases = [
        ([empty, x], 126, "the text image is empty"),
        ([f"{empty},{good}", x], 126, "the text image is empty"),
        ([huge, x], 126, "more than the 256 MiB"),
        ([f"{good},{huge}", x], 126, "the data image: "),
        ([f"{good},{good}", x, "--data-addr=0x10000000"], 126, "overlap"),
        ([good, x, "--text-addr=0x10000800"], 126, "not page aligned"),
        ([good, x, "--text-addr=0"], 126, "outside the x86_64 address space"),
        ([good, "--arch=i386", "--text-addr=0x100000000"], 126, "outside the i386"),
        ([good, x, "--text-addr=0x7ffffffff000"], 126, "outside"),
        ([good, x, "--entry=0x10000100"], 126, "outside the text"),
        ([good, x, "--entry=0x20000000"], 126, "outside the text"),
        ([good, x, "--stack=0"], 126, "stack"),
        ([good, x, "--stack=2G"], 126, "stack"),
        ([tmp, x], 126, "is a directory"),
        ([missing, x], 127, missing),
        ([f"{good},{missing}", x], 127, missing),
        ([good], 2, "--raw needs --arch"),
        ([good, "--arch=arm"], 2, "--arch must be i386 or x86_64"),
        ([good, x, "--text-addr=zz"], 2, "not a number"),
        ([good, x, "--entry=-1"], 2, "not a number"),
        ([good, x, "--stack=8Q"], 2, "not a number"),
        ([good, x, "--stack=99999999999999999999"], 2, "too large"),
        ([good, x, "--stack=17179869184G"], 2, "too large"),
        ([f"{good},", x], 2, "no data image"),
        ([f",{good}", x], 2, "no text image"),
        ([good, x, good], 2, "no PROGRAM goes with it"),
    ]
    for args, want_status, needle in cases:
        status, out, err = run([emu, "--raw"] + args)
        lines = err.splitlines()
        c.eq(f"--raw {' '.join(args)}: status {want_status}, one line with {needle!r}",
             (status, out, len(lines), needle in err), ((want_status, 0), b"", 1, True))
    status, _, err = run([emu, "--text-addr=0x1000", good])
    c.eq("--text-addr without --raw", (status, "only for raw bytecode" in err), ((2, 0), True))
    # Words with control characters are echoed escaped, on one line.
    for arg in (["--fd", "3=fi\nle:/x"], ["--fd", "3=fi\x01le:/x"], ["--stack=1\n2", x]):
        status, out, err = run([emu, "--raw", good, x] + arg)
        c.eq(f"{arg!r}: status 2, one line", (status, len(err.splitlines())), ((2, 0), 1))
    # Paths are bytes, as on Linux: a name outside ASCII opens (glib's
    # locale conversion refused it).
    plain, _, _ = run([emu, "--raw", good, x])
    latin = os.path.join(tmp, "caf\xe9").encode("latin-1")
    with open(latin, "wb") as f:
        f.write(b"x")
    status, _, err = run([emu.encode(), b"--fd", b"3=file:" + latin, b"--raw", good.encode(), x.encode()])
    c.eq("--fd file: with a non-ASCII name", (status, err), (plain, ""))



def env_bytes(c, emu, build):
    """--env takes bytes, as execve does: the guest's environment against a
    native run given the same strings (glib's locale conversion once
    refused anything outside ASCII)."""
    words = [b"A=caf\xc3\xa9", b"B=\xff\xfe latin-1 \xe9", b"C="]
    oracle = Oracle("raw_cli", emu)
    for bits in ("32", "64"):
        guest = os.path.join(build, "tests", "guests", "auxv" + bits).encode()

        def native():
            nat = subprocess.run([guest, b"x"], env=dict(w.split(b"=", 1) for w in words),
                                 capture_output=True, timeout=TIMEOUT)
            return nat.returncode, nat.stdout, b""
        argv = [emu.encode()]
        for w in words:
            argv += [b"--env", w]
        emu_run = subprocess.run(argv + [guest, b"x"], env={}, capture_output=True,
                                 timeout=TIMEOUT)
        c.against_kernel(oracle, f"--env with non-ASCII bytes, auxv{bits}: the kernel's environment",
                         f"auxv{bits} x env={words!r}", guest.decode(), native,
                         (emu_run.returncode, emu_run.stdout, emu_run.stderr),
                         vmjudge.Request([guest, b"x"], env=words, stdin="feed", timeout=TIMEOUT),
                         lambda a: (a.returncode(), a.stdout, b""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emu", required=True)
    ap.add_argument("--build", required=True)
    opts = ap.parse_args()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="raw-cli-") as tmp:
        compiled_jobs(c, opts.emu, opts.build)
        hand_made(c, opts.emu, tmp)
        hostile(c, opts.emu, tmp)
        env_bytes(c, opts.emu, opts.build)
    print(f"{c.passed} passed, {c.failed} failed")
    return 1 if c.failed or not c.passed else 0


if __name__ == "__main__":
    sys.exit(main())
