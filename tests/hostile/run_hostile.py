#!/usr/bin/env python3
"""Runs the hostile guests natively and under seccomp-emu and compares.

  run_hostile.py tricks EMU GUEST32 GUEST64
  run_hostile.py memory EMU MEMORY32 MEMORY64
  run_hostile.py hostcalls EMU GUEST32 GUEST64
  run_hostile.py sandbox EMU GUEST32 GUEST64
  run_hostile.py floods EMU GUEST32 GUEST64

memory: the same for the memory guest (memory.c).

tricks: stdout and the raw wait status of the native run (address
randomisation off, as for every native leg) must equal the emulated run's;
the few known differences are listed with both outcomes, so a change on
either side fails the test too.

hostcalls: each pre-strict call that could reach the host runs natively
first, where it succeeds and the watchers (directory snapshot, reaped
orphans via PR_SET_CHILD_SUBREAPER, victim process, TracerPid, mountinfo,
listening sockets) must see its effect; then under seccomp-emu, where it
must answer the documented value and the same watchers must see nothing.

floods: memory and output floods under --memory and --output-limit against
the kernel under RLIMIT_AS and RLIMIT_FSIZE; no byte past the limit, and
seccomp-emu's own peak RSS (wait4) bounded by a trivial job's plus the limit.

sandbox: seccomp-emu's self-sandbox kills it (SIGSYS) when it makes a
forbidden call after set-up, and is in force while the guest runs; host
errors met under it (a full --trace file, a host mmap refused) end as
designed, in the C locale too.  It takes the tricks guest (x86_64) too:
  run_hostile.py sandbox EMU GUEST32 GUEST64 TRICKS64

Where this host cannot run a case natively (i386 without IA-32 emulation,
or what NEEDS below names), the kernel's recorded answer judges it
(tests/native_oracle.py); hostcalls' native legs, which only show that a
watcher can see the effect, then rest on the x86_64 leg with that watcher.
"""
import ctypes
import hashlib
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from native_oracle import Oracle, host_vendor, vmjudge  # noqa: E402

libc = ctypes.CDLL(None, use_errno=True)
ADDR_NO_RANDOMIZE = 0x0040000
PR_SET_CHILD_SUBREAPER = 36
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def describe(status):
    if status is None:
        return "no answer (hung, or none in a collect pass)"
    if os.WIFEXITED(status):
        return "exit %d" % os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return "signal %d%s" % (os.WTERMSIG(status), " (core)" if os.WCOREDUMP(status) else "")
    return "status %#x" % status


LAST_MAXRSS_KB = [0]


def run(argv, stdin=b"", timeout=60, native=False, cwd=None, rlimits=(), ignore=()):
    """Raw wait status and stdout of argv; stderr is dropped.  The child's
    peak resident set (wait4) is left in LAST_MAXRSS_KB[0].  The child
    starts with default signal actions (Python ignores SIGPIPE and SIGXFSZ,
    and an exec'd program would inherit that), except the `ignore` ones."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as inp:
        inp.write(stdin)
        inp.seek(0)
        pid = os.fork()
        if pid == 0:
            try:
                os.dup2(inp.fileno(), 0)
                os.dup2(out.fileno(), 1)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 2)
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
                for sig in (signal.SIGPIPE, signal.SIGXFSZ):
                    signal.signal(sig, signal.SIG_IGN if sig in ignore else signal.SIG_DFL)
                for res, value in rlimits:
                    resource.setrlimit(res, (value, value))
                if cwd:
                    os.chdir(cwd)
                if native:
                    libc.personality(ADDR_NO_RANDOMIZE)
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        deadline = time.monotonic() + timeout
        while True:
            p, status, ru = os.wait4(pid, os.WNOHANG)
            if p:
                LAST_MAXRSS_KB[0] = ru.ru_maxrss
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None, b"(hung)"
            time.sleep(0.005)
        out.seek(0)
        return status, out.read()


# ---------------------------------------------------------------- tricks
SIGTRAP, SIGILL, SIGBUS, SIGSEGV, SIGKILL = 5, 4, 7, 11, 9
SAME = None
# (action, strict, ABIs, known difference or SAME).  A known difference is
# (native outcome, emulated outcome, why), each outcome a raw status.
TRICKS = [(a, False, "32 64", SAME) for a in [
    "int3", "int4", "int5", "int8", "int13", "int14", "int32", "int46", "int129", "int255",
    "int3_short", "ud2", "hlt", "cli", "inb", "wrmsr", "rdmsr", "lgdt", "mov_cr4", "rdtsc",
    "popf_tf", "lret_kcs", "iret_kcs", "iret_kpage", "jmp_kpage", "jmp_kpage_iret",
    "write_kpage", "exec_data", "exec_stack", "write_text", "smc", "smc_next", "smc_syscall",
    "exec_rw", "exec_mprotect", "exec_after_munmap", "write_from_kpage", "read_into_kpage",
    "mprotect_kpage", "madvise_kpage", "munmap_kpage", "mremap_kpage", "mmap_kpage", "wrap",
    "wrap_neg", "huge_count", "huge_count_31", "read_huge", "read_31", "partial",
    "writev_1025", "writev_1024", "readv_1024", "writev_negative", "writev_wrap", "stack",
    "mmap_flood", "brk_flood",
    "out_flood", "int1", "int6", "icebp"]]
TRICKS += [(a, True, "32 64", SAME) for a in [
    "int3", "int129", "ud2", "rdtsc", "popf_tf", "iret_kcs", "jmp_kpage", "exec_data",
    "smc", "smc_syscall", "write_from_kpage", "wrap", "writev_wrap", "partial", "stack",
    "out_flood"]]
TRICKS += [(a, s, "64", SAME) for a in ["far_write", "far_getpid", "far_syscall32",
                                        "far_sysenter"] for s in (False, True)]
TRICKS += [(a, False, "32 64", SAME) for a in [
    "int2", "int7", "int16", "int31", "int127", "int130", "iret_iopl", "popf_iopl", "iret_nt",
    "iret_dcs", "lret_dseg", "lret_ldt", "lcall_kcs", "call_tf", "call_df", "call_badsp",
    "call_segs", "write_rodata"]]
TRICKS += [(a, True, "32 64", SAME) for a in [
    "int2", "iret_iopl", "popf_iopl", "iret_nt", "lret_dseg", "lcall_kcs", "call_tf",
    "call_badsp", "call_segs", "write_text", "write_rodata", "exec_stack"]]
TRICKS += [(a, s, "64", SAME) for a in ["syscall_regs", "call_noncanon_sp", "lcall_compat",
                                        "lcall_compat_getpid"] for s in (False, True)]
# The 32-bit syscall from guest code: on AMD the compat entry, on Intel #UD.
TRICKS += [(a, s, "32", SAME) for a in ["syscall32", "syscall32_badsp", "syscall32_getpid_badsp"]
           for s in (False, True)]
TRICKS += [(a, s, "32 64", SAME) for a in ["read_kpage"] for s in (False, True)]
# With EFLAGS.AC a misaligned load is #AC (SIGBUS): Linux sets CR0.AM, and
# so does seccomp-emu, whose engine checks alignment then (issue 33).  No
# kernel here judges the i386 program (no IA-32 on the host, and the judge
# VM's TCG has no alignment check: tests/native/vm-differences.txt), so its
# answer is written down: SIGBUS, as silicon gives the 64-bit one.
TRICKS += [("ac_misaligned", s, "64", SAME) for s in (False, True)]
AC32 = "i386 #AC, Linux's answer written down: no kernel here can run it"
TRICKS += [("ac_misaligned", s, "32", (SIGBUS, SIGBUS, AC32)) for s in (False, True)]
FAR32 = "a 32-bit engine cannot run 64-bit code: 0x33 is not present (SIGBUS), never a bypass"
TRICKS += [("far_write", s, "32", (0, SIGBUS, FAR32)) for s in (False, True)]
TRICKS += [("lcall_long", s, "32", (0, SIGBUS, FAR32)) for s in (False, True)]
TRICKS += [("far_getpid", False, "32", (0, SIGBUS, FAR32)),
           ("far_getpid", True, "32", (SIGKILL, SIGBUS, FAR32)),
           ("far_stat", False, "32", (0, SIGBUS, FAR32)),
           ("far_stat", True, "32", (SIGKILL, SIGBUS, FAR32))]
STDIN_FOR = {"read_into_kpage": b"sixteen bytes..\n" * 4,
             "readv_1024": bytes(range(256)) * 5}
# What a 64-bit case needs of the host natively besides a plain kernel: far
# transfers into 32-bit code use IA-32's selector 0x23 (and its entries); a
# system call with a non-canonical rsp returns only where nothing but Linux's
# sysret checks sit on the way back; rdtsc faults in strict mode only where
# the hypervisor honours CR4.TSD.  Keyed by the guest's arguments.
NEEDS = {" ".join([a] + s): ["ia32"]
         for a in ("far_write", "far_getpid", "far_syscall32", "far_sysenter", "lcall_compat",
                   "lcall_compat_getpid") for s in ([], ["strict"])}
NEEDS.update({"call_noncanon_sp": ["noncanon-rsp"], "call_noncanon_sp strict": ["noncanon-rsp"],
              "rdtsc strict": ["tsc-off"]})
# The 32-bit syscall and sysenter are the compat entry on one vendor and #UD
# or a fault on the other: the kernel's answer is the host CPU's.
BY_VENDOR = {"syscall32", "syscall32_badsp", "syscall32_getpid_badsp", "far_syscall32",
             "far_sysenter"}


def digest(status, out):
    """A run's end and output, small enough to record: a flood's output as
    its length, hash and tail (equal digests, equal bytes)."""
    if len(out) <= 4096:
        return status, out
    return status, (len(out), hashlib.sha256(out).hexdigest(), out[-200:])


def shown(out):
    return repr(out[:120]) if isinstance(out, bytes) else "%d bytes, sha256 %s, ending %r" % out


def native_request(argv, stdin=b"", rlimits=(), ignore=()):
    """run(argv, stdin, native=True, ...) described for the VM's kernel."""
    return vmjudge.Request(argv, stdin="file", data=stdin, stdout="file", stderr="null",
                           rlimits=[(res, v, v) for res, v in rlimits], ignore=ignore,
                           norandom=True, timeout=60)


def from_vm(answer):
    """The VM's answer as digest(*run(...)) gives it."""
    if answer.status is None:
        return digest(None, b"(hung)")
    return digest(answer.status, answer.stdout)


def judged(oracle, name, program, live, emulated, needs=(), request=None, vendor=None):
    """The kernel's (status, stdout) for a case: live, from the VM's kernel,
    or recorded where this host cannot run it; None with a failure when
    there is none."""
    want, label, problems = oracle.judge(name, program, live, lambda: emulated, needs,
                                         request, from_vm, vendor)
    for p in problems:
        check(False, "%s: %s" % (name, p))
    if want is not None and label != "native":
        print("     %s: native answer %s" % (name, label))
    return want if want is not None else (None, b"(no native answer)")


def tricks(emu, guests, cases=TRICKS, guest="tricks"):
    oracle = Oracle("hostile", emu)
    for action, strict, abis, known in cases:
        for bits in abis.split():
            args = [action] + (["strict"] if strict else [])
            name = "%s%s %s" % (guest, bits, " ".join(args))
            stdin = STDIN_FOR.get(action, b"")
            es, eout = digest(*run([emu, guests[bits]] + args, stdin))
            needs = NEEDS.get(" ".join(args), ())
            lacks = oracle.missing(guests[bits], needs)
            if known is not SAME and lacks:
                # the emulator's answer differs by design: the kernel's is the
                # one written down with the difference, from a host that had it
                ns, nout = known[0], b""
                print("     %s: the host lacks %s; the kernel's answer is the one written "
                      "down" % (name, ", ".join(lacks)))
            else:
                key = name + (" cpu=" + host_vendor() if action in BY_VENDOR else "")
                ns, nout = judged(oracle, key, guests[bits],
                                  lambda: digest(*run([guests[bits]] + args, stdin, native=True)),
                                  (es, eout), needs,
                                  # 16 MiB of output: more than the VM's serial report
                                  # carries in reasonable time (about 60 KiB/s)
                                  None if action == "out_flood" else
                                  native_request([guests[bits]] + args, stdin),
                                  host_vendor() if action in BY_VENDOR else None)
            if known is SAME:
                ok = ns is not None and ns == es and nout == eout
                detail = "" if ok else ": native %s %r, emulated %s %r" % (
                    describe(ns) if ns is not None else "hung", shown(nout),
                    describe(es) if es is not None else "hung", shown(eout))
                check(ok, name + " matches the kernel" + detail)
            else:
                nwant, ewant, why = known
                ok = ns == nwant and es == ewant
                check(ok, "%s: %s (%s): native %s, emulated %s" % (
                    name, "known difference" if nwant != ewant else "the kernel's answer",
                    why, describe(ns) if ns is not None else "hung",
                    describe(es) if es is not None else "hung"))


# ---------------------------------------------------------------- memory
# The memory guest (memory.c): where direct accesses through the i386
# window could answer unlike the kernel.  Judged as the tricks are.
MEMORY_CASES = [(a, False, "32", SAME) for a in [
    "top_probe", "top_edge", "top_wrap", "wrap16", "seg_wrap"]]
MEMORY_CASES += [(a, False, "32 64", SAME) for a in [
    "view_mremap", "kernel_writes", "smc_rep", "smc_straddle", "smc_atomic",
    "retry", "rep_unmapped", "rep_ro", "remap_munmap", "remap_mremap", "remap_mprotect", "fork",
    "stack", "cmpxchg8b", "straddle_shared"]]
# Known differences; each guest exits with what tells the two apart.
# Segment limits: the engine checks none in protected mode (QEMU's TCG), so
# an access past a limit, or across 2^32 past the flat segments' limit, is
# not #GP (SIGSEGV, SI_KERNEL) but runs or pages (status: the last trap
# number, 13 natively).
LIMITS = "segment limits are not checked by the engine (QEMU TCG): no #GP"
MEMORY_CASES += [("top_limit", False, "32", (13 << 8, 14 << 8, LIMITS)),
           ("seg_limit", False, "32", (13 << 8, 0, LIMITS))]
# memfd files cannot be mapped (emu/kernel/memfd.h: ENODEV); the guest
# exits 98 when its mapping fails.
MEMFD = "memfd files cannot be mapped in seccomp-emu (ENODEV)"
MEMORY_CASES += [(a, False, "32 64", (0, 98 << 8, MEMFD)) for a in ("view_memfd", "past_eof")]
# A store through a writable view into the next instruction of the block
# running from an executable view: the new byte runs at once (status 0x42).
MEMORY_CASES += [("view_next", False, "32 64", SAME)]


def memory(emu, guests):
    tricks(emu, guests, MEMORY_CASES, "memory")


# ------------------------------------------------------------- hostcalls
ENOENT, ENOSYS, ESRCH = -2, -38, -3
# A new task's pid: the guest's processes live inside seccomp-emu (its child
# there meets no file system, and nothing appears on the host).
PID = "pid"
# (action, ABIs, emulated answer, watcher, native leg)
HOSTCALLS = [
    ("open_creat", "32 64", ENOENT, "dir", True),
    ("openat_creat", "32 64", ENOENT, "dir", True),
    ("creat", "32 64", ENOENT, "dir", True),  # emulated: no grant holds the directory
    ("mkdir", "32 64", ENOSYS, "dir", True),
    ("rmdir", "32 64", ENOSYS, "dir", True),
    ("unlink", "32 64", ENOSYS, "dir", True),
    ("rename", "32 64", ENOSYS, "dir", True),
    ("link", "32 64", ENOSYS, "dir", True),
    ("symlink", "32 64", ENOSYS, "dir", True),
    ("chmod", "32 64", ENOSYS, "dir", True),
    ("truncate", "32 64", ENOSYS, "dir", True),
    ("mknod", "32 64", ENOSYS, "dir", True),
    ("bind_unix", "32 64", ENOSYS, "dir", True),
    ("execve", "32 64", ENOENT, "dir", True),  # no /bin/sh for the guest
    ("fork", "32 64", PID, "proc", True),
    ("vfork", "32 64", PID, "proc", True),
    ("clone", "32 64", PID, "proc", True),
    ("clone3", "32 64", PID, "proc", True),
    ("kill", "32 64", ESRCH, "victim", True),  # no other process exists for the guest
    ("kill_group", "32 64", ESRCH, "victim", True),  # no other process exists for the guest
    ("tkill", "32 64", ESRCH, "victim", True),  # no other process exists for the guest
    ("tgkill", "32 64", ESRCH, "victim", True),  # no other process exists for the guest
    ("ptrace", "32 64", ENOSYS, "tracer", True),
    ("mount", "32 64", ENOSYS, "mount", True),
    ("tcp", "32 64", ENOSYS, "tcp", True),
    ("tcp_socketcall", "32", ENOSYS, "tcp", True),
    ("unix", "32 64", ENOSYS, "unix", True),
    ("process_vm_writev", "32 64", ENOSYS, "victim", False),
    ("io_uring_setup", "32 64", ENOSYS, "none", False),
    ("memfd_create", "32 64", 3, "none", False),  # an anonymous file inside the emulator
    ("pipe", "32 64", 0, "none", False),  # a pipe inside the emulator
    ("unshare", "32 64", ENOSYS, "none", False),
    ("pidfd_open", "32 64", ENOSYS, "victim", False),
    ("userfaultfd", "32 64", ENOSYS, "none", False),
    ("perf_event_open", "32 64", ENOSYS, "none", False),
    ("bpf", "32 64", ENOSYS, "none", False),
    ("reboot", "32 64", ENOSYS, "none", False),
]


def snapshot(d):
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            out[os.path.relpath(p, d)] = (st.st_mode, st.st_size, st.st_nlink)
    return out


def reap_orphans(known, wait):
    """Pids of processes that ended up ours (subreaper) besides `known`."""
    found = []
    deadline = time.monotonic() + wait
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
            continue
        if pid not in known:
            found.append(pid)
    return found


def tracer_of(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("TracerPid:"):
                return int(line.split()[1])
    return 0


class Scene:
    """A fresh directory, victim, listeners; then what changed."""

    def __init__(self):
        self.top = tempfile.mkdtemp(prefix="hostile-")
        self.dir = os.path.join(self.top, "watched")
        os.mkdir(self.dir)
        os.mkdir(os.path.join(self.dir, "subdir"))
        os.mkdir(os.path.join(self.dir, "mnt"))
        with open(os.path.join(self.dir, "keep"), "w") as f:
            f.write("keep me\n")
        self.victim = subprocess.Popen(["sleep", "60"], start_new_session=True)
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(4)
        self.tcp.setblocking(False)
        self.unix_path = os.path.join(self.top, "listen.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        self.unix.listen(4)
        self.unix.setblocking(False)
        self.before = snapshot(self.dir)

    def arg(self, watcher):
        return {"victim": str(self.victim.pid), "tracer": str(self.victim.pid),
                "tcp": str(self.tcp.getsockname()[1]), "unix": self.unix_path}.get(watcher,
                                                                                  self.dir)

    def accepted(self, s):
        try:
            c, _ = s.accept()
            c.close()
            return True
        except BlockingIOError:
            return False

    def mounted(self):
        with open("/proc/self/mountinfo") as f:
            return any(" %s " % os.path.join(self.dir, "mnt") in l for l in f)

    def close(self):
        if self.mounted():
            subprocess.run(["umount", os.path.join(self.dir, "mnt")])
        if self.victim.poll() is None:
            self.victim.kill()
        self.victim.wait()
        self.tcp.close()
        self.unix.close()
        shutil.rmtree(self.top, ignore_errors=True)


def attempt(argv, scene, watcher, settle=2.0):
    """Run argv holding until stdin closes; return (stdout, effects seen).
    `settle`: how long a change of the directory may take to show after the
    program has ended (a forked child may still be writing)."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, preexec_fn=lambda: libc.personality(
                             ADDR_NO_RANDOMIZE) if argv[0] != EMU else None)
    line = p.stdout.readline().decode(errors="replace").strip()
    effects = []
    # While the guest waits: state only a live process shows.
    time.sleep(0.05)
    if watcher == "tracer" and scene.victim.poll() is None and tracer_of(scene.victim.pid):
        effects.append("victim traced")
    if watcher == "mount" and scene.mounted():
        effects.append("tmpfs mounted")
    if watcher == "tcp" and scene.accepted(scene.tcp):
        effects.append("TCP connection")
    if watcher == "unix" and scene.accepted(scene.unix):
        effects.append("Unix connection")
    p.stdin.close()
    p.stdout.read()
    p.wait(timeout=30)
    orphans = reap_orphans({scene.victim.pid}, 0.5 if watcher == "proc" else 0.05)
    if orphans:
        effects.append("%d new process(es)" % len(orphans))
    for _ in range(int(settle / 0.05)):
        after = snapshot(scene.dir)
        if after != scene.before or watcher not in ("dir", "proc"):
            break
        time.sleep(0.05)
    if after != scene.before:
        changed = sorted(set(after.items()) ^ set(scene.before.items()))
        effects.append("directory changed: %s" % ", ".join(sorted({c[0] for c in changed})))
    time.sleep(0.02)
    if scene.victim.poll() is not None:
        effects.append("victim killed")
    return line, effects


EMU = None


def hostcalls(emu, guests):
    global EMU
    EMU = emu
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        check(False, "PR_SET_CHILD_SUBREAPER")
        return
    oracle = Oracle("hostile", emu)
    seen_by = set()  # watchers a native leg has shown to see their effect
    for action, abis, want, watcher, native in HOSTCALLS:
        for bits in sorted(abis.split(), reverse=True):  # x86_64 first
            name = "hostcalls%s %s" % (bits, action)
            lacks = oracle.missing(guests[bits])
            if native and lacks:
                check(watcher in seen_by, "%s natively: not here (the host lacks %s); the "
                      "%s watcher was shown to see such effects by an x86_64 native leg" % (
                          name, ", ".join(lacks), watcher))
            elif native:
                scene = Scene()
                try:
                    line, effects = attempt([guests[bits], action, scene.arg(watcher), "hold"],
                                            scene, watcher)
                finally:
                    scene.close()
                check(bool(effects), "%s natively: %s, watcher saw: %s" % (
                    name, line, "; ".join(effects) or "nothing (the watcher is blind)"))
                if effects:
                    seen_by.add(watcher)
            scene = Scene()
            try:
                # Where nothing should change, each case waits all of
                # `settle`: an escaped child would show in a fraction of it.
                line, effects = attempt([emu, guests[bits], action, scene.arg(watcher), "hold"],
                                        scene, watcher, settle=0.5)
            finally:
                scene.close()
            if want == PID:
                m = re.match(r"%s -> (-?\d+)$" % action, line or "")
                good = bool(m) and int(m.group(1)) > 0
                expect = "%s -> a guest pid" % action
            else:
                expect = "%s -> %d" % (action, want)
                good = line == expect
            check(good and not effects, "%s emulated: %s (want %s), host effects: %s" % (
                name, line, expect, "; ".join(effects) or "none"))


# --------------------------------------------------------------- sandbox
SIGSYS = 31


def sandbox(emu, guests):
    g = guests["64"]
    late_host_errors(emu, guests["tricks64"])
    for call in ["open", "creat", "execve", "fork", "clone", "clone-thread-newuser", "socket",
                 "kill", "ptrace", "mount", "ioctl"]:
        with tempfile.TemporaryDirectory() as d:
            st, _ = run([emu, "--self-sandbox-test=" + call, g, "rdtsc"], cwd=d)
            left = os.listdir(d)
        check(st is not None and os.WIFSIGNALED(st) and os.WTERMSIG(st) == SIGSYS and not left,
              "self-sandbox stops seccomp-emu's own %s: %s%s" % (
                  call, describe(st) if st is not None else "hung",
                  ", left %s" % left if left else ""))
    st, _ = run([emu, "--self-sandbox-test=write", g, "rdtsc"])
    check(st is not None and os.WIFEXITED(st) and os.WEXITSTATUS(st) == 70,
          "the test switch reports an allowed call (write): %s" % describe(st))
    st, _ = run([emu, "--no-self-sandbox", "--self-sandbox-test=open", g, "rdtsc"])
    check(st is not None and os.WIFEXITED(st) and os.WEXITSTATUS(st) == 126,
          "--no-self-sandbox refuses the test switch: %s" % describe(st))
    # While the guest waits on stdin, the filter is in force: Seccomp 2 in
    # every thread (the timer thread too: seccomp-emu filters all threads).
    for flags, want in (([], "2"), (["--no-self-sandbox"], "0")):
        p = subprocess.Popen([emu] + flags + [guests["64"], "pipe", "x", "hold"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        p.stdout.readline()
        modes = {}
        for tid in os.listdir("/proc/%d/task" % p.pid):
            with open("/proc/%d/task/%s/status" % (p.pid, tid)) as f:
                modes[tid] = [l.split()[1] for l in f if l.startswith("Seccomp:")][0]
        p.stdin.close()
        p.wait()
        check(len(modes) >= 2 and set(modes.values()) == {want},
              "Seccomp mode of each of seccomp-emu's %d threads %s while the guest runs: %s "
              "(want %s)" % (len(modes), " ".join(flags) or "(default)",
                             sorted(modes.values()), want))
    # A host signal forwarded while the guest is blocked in read goes
    # through the filter: the interrupt, the guest's default action, and
    # seccomp-emu dying of the same signal (SIGSYS would mean a call the
    # table lacks).
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([emu, guests["64"], "pipe", "x", "hold"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        p.stdout.readline()
        time.sleep(0.2)
        p.send_signal(sig)
        try:
            st = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            st = None
        p.stdin.close()
        check(st == -sig, "%s sent while the guest blocks in read, under the filter: %s" % (
            signal.Signals(sig).name, "hung" if st is None else
            "killed by %s" % signal.Signals(-st).name if st < 0 else "exit %d" % st))


# Host errors met once the filter is on must end as designed, with their
# one line, never in SIGSYS: the message comes from host_strerror
# (emu/status.h), where g_strerror's first conversion of a message opened
# glib's charset.alias and iconv's gconv-modules.cache, calls the filter
# kills.  seccomp-emu never calls setlocale, so glib converts whatever the
# environment says; these are the usual spellings of the C locale.
LATE_LOCALES = ({"LC_ALL": "C"}, {"LANG": "C"}, {"LC_ALL": "C.UTF-8"})


def late_run(argv, env, rlimits=(), ignore=()):
    """(exit status as subprocess gives it, stdout, stderr) of argv in env,
    with default signal actions but the `ignore` ones."""
    def child():
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_IGN if sig in ignore else signal.SIG_DFL)
        for res, value in rlimits:
            resource.setrlimit(res, (value, value))
    try:
        p = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=child, timeout=60)
    except subprocess.TimeoutExpired:
        return None, b"", b"(hung)"
    return p.returncode, p.stdout, p.stderr


def late_host_errors(emu, tricks):
    for loc in LATE_LOCALES:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("LC_") and k not in ("LANG", "LANGUAGE", "CHARSET")}
        env.update(loc)
        where = " ".join("%s=%s" % kv for kv in loc.items())
        # The --trace file reaches RLIMIT_FSIZE at the first line written
        # after set-up (SIGXFSZ ignored: write answers EFBIG).  Tracing
        # stops with one line; the guest's run is unchanged.
        plain_st, plain_out, _ = late_run([emu, tricks, "call_df"], env)
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "trace")
            late_run([emu, "--trace=" + trace, tricks, "call_df"], env)
            with open(trace, "rb") as f:
                first = f.readline()
            st, out, err = late_run([emu, "--trace=" + trace, tricks, "call_df"], env,
                                    rlimits=[(resource.RLIMIT_FSIZE, len(first))],
                                    ignore=[signal.SIGXFSZ])
            with open(trace, "rb") as f:
                written = f.read()
        check(first.startswith(b"+++ ") and plain_st == 0 and st == plain_st and
              out == plain_out and written == first and
              err == b"seccomp-emu: trace: File too large; tracing stopped\n",
              "%s: a --trace file past RLIMIT_FSIZE under the filter: status %s (want %s), "
              "%d of %d bytes, %r" % (where, st, plain_st, len(written), len(first), err[:150]))
        # A guest mmap the host cannot back, under seccomp-emu's own
        # RLIMIT_AS: -ENOMEM to the guest, as Linux answers it, and the run
        # goes on.  (AddressSanitizer's shadow alone needs terabytes of
        # address space: no RLIMIT_AS can hold it; the case above covers it.)
        if "ASAN_OPTIONS" in os.environ:
            print("skip %s: mmap under RLIMIT_AS (AddressSanitizer build)" % where, flush=True)
            continue
        st, out, err = late_run([emu, tricks, "mmap_flood"], env,
                                rlimits=[(resource.RLIMIT_AS, 3 << 30)])
        got = out.decode(errors="replace").strip()
        n = got.split(" -> ")[-1]
        check(st == 0 and got.startswith("mmap_flood -> ") and n.isdigit() and 0 < int(n) < 64 and
              not err,
              "%s: guest mmaps past seccomp-emu's RLIMIT_AS under the filter: status %s, %r, %r"
              % (where, st, got, err[:150]))


# ---------------------------------------------------------------- floods
SIGXFSZ = 25
MEMORY = 64 << 20
OUTPUT = 100000
# (action, strict, native rlimit, seccomp-emu option)
FLOODS = [("mem_flood", False, (resource.RLIMIT_AS, MEMORY), "--memory=64M")]
FLOODS += [(a, s, (resource.RLIMIT_FSIZE, OUTPUT), "--output-limit=%d" % OUTPUT)
           for a in ("out_flood", "out_flood_ign", "out_flood_writev") for s in (False, True)
           if not (a == "out_flood_ign" and s)]  # rt_sigaction is not allowed in strict mode
# Peak resident set seccomp-emu may add to a trivial job's under --memory=64M:
# the guest's 64 MiB plus Unicorn's translations of the flood's code (a
# 1 MiB rise measured), and under AddressSanitizer (scripts/sanitize.sh sets
# ASAN_OPTIONS) its allocator's own 27 MiB.  Memory kept past a brk shrink
# or munmap would add a second 64 MiB either way.
RSS_SLACK = (48 if "ASAN_OPTIONS" in os.environ else 24) << 10  # KiB


def floods(emu, guests):
    """Memory and output floods under the limits: the same stdout and end
    as the kernel under the matching rlimit, never more output than the
    limit, and for memory a bounded peak resident set of seccomp-emu."""
    oracle = Oracle("hostile", emu)
    for bits in ("32", "64"):
        run([emu, guests[bits], "call_df"])
        base = LAST_MAXRSS_KB[0]
        for action, strict, rlimit, flag in FLOODS:
            args = [action] + (["strict"] if strict else [])
            name = "floods%s %s %s" % (bits, " ".join(args), flag)
            es, eout = run([emu, flag, guests[bits]] + args)
            emu_rss = LAST_MAXRSS_KB[0]
            native_rss = []

            def native():
                r = digest(*run([guests[bits]] + args, native=True, rlimits=[rlimit]))
                native_rss.append(LAST_MAXRSS_KB[0])
                return r
            ns, nd = judged(oracle, name, guests[bits], native, digest(es, eout),
                            request=native_request([guests[bits]] + args, rlimits=[rlimit]))
            ok = ns is not None and (ns, nd) == digest(es, eout)
            check(ok, "%s matches the kernel: native %s, emulated %s%s" % (
                name, describe(ns) if ns is not None else "hung",
                describe(es) if es is not None else "hung",
                "" if ok else ": native %s, emulated %s" % (shown(nd), shown(digest(es, eout)[1]))))
            if rlimit[0] == resource.RLIMIT_FSIZE:
                check(len(eout) <= OUTPUT, "%s: %d bytes reached the file (limit %d)" % (
                    name, len(eout), OUTPUT))
                if action == "out_flood":
                    check(es is not None and os.WIFSIGNALED(es) and os.WTERMSIG(es) == SIGXFSZ,
                          "%s: ends with SIGXFSZ (%s)" % (name, describe(es)))
                    # Linux keeps ignored signals across execve: with the
                    # parent ignoring SIGXFSZ the flood gets EFBIG and goes on.
                    es, eout = run([emu, flag, guests[bits]] + args, ignore=[signal.SIGXFSZ])
                    ns, nd = judged(oracle, name + " SIGXFSZ-ignored", guests[bits],
                                    lambda: digest(*run([guests[bits]] + args, native=True,
                                                        rlimits=[rlimit], ignore=[signal.SIGXFSZ])),
                                    digest(es, eout),
                                    request=native_request([guests[bits]] + args, rlimits=[rlimit],
                                                           ignore=[signal.SIGXFSZ]))
                    check(ns is not None and (ns, nd) == digest(es, eout),
                          "%s, SIGXFSZ ignored by the parent, matches the kernel: native %s, "
                          "emulated %s" % (name, describe(ns), describe(es)))
            else:
                check(emu_rss <= base + (MEMORY >> 10) + RSS_SLACK,
                      "%s: peak RSS %d KiB (native %d KiB), a trivial job %d KiB: at most "
                      "that + the limit + %d KiB" % (name, emu_rss,
                                                      native_rss[0] if native_rss else -1,
                                                      base, RSS_SLACK))


# ------------------------------------------------------------- resources
# What seccomp-emu may spend on a hostile guest or input, beyond what the
# guest really touched: a trivial job's peak resident set plus this much
# (Unicorn's translations, the input buffers: a profile read whole is 16 MiB
# at most; AddressSanitizer's allocator adds its own), and the time until
# the limit the user set, plus a second for a loaded machine.
RESOURCE_SLACK = (64 if "ASAN_OPTIONS" in os.environ else 40) << 10  # KiB
TIME_SLACK = 1.5  # s


def timed(argv, timeout=60, stdin=b"", native=False, rlimits=()):
    """(status, stdout, wall seconds, peak RSS KiB) of a run (stderr in
    LAST_STDERR)."""
    t0 = time.monotonic()
    st, out = run(argv, stdin=stdin, timeout=timeout, native=native, rlimits=rlimits)
    return st, out, time.monotonic() - t0, LAST_MAXRSS_KB[0]


def stderr_of(argv, timeout=60):
    """(status, stderr, wall seconds) with stderr kept."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"(hung)", time.monotonic() - t0
    return p.returncode, p.stderr, time.monotonic() - t0


def elf_with_memsz(src, dst, memsz):
    """A copy of the static program src whose last loadable segment claims
    memsz bytes of memory."""
    import struct
    d = bytearray(open(src, "rb").read())
    is64 = d[4] == 2
    phoff = struct.unpack_from("<Q" if is64 else "<I", d, 32 if is64 else 28)[0]
    phent, phnum = struct.unpack_from("<HH", d, 54 if is64 else 42)
    last = None
    for i in range(phnum):
        if struct.unpack_from("<I", d, phoff + i * phent)[0] == 1:
            last = phoff + i * phent
    struct.pack_into("<Q" if is64 else "<I", d, last + (40 if is64 else 20), memsz)
    with open(dst, "wb") as f:
        f.write(d)
    os.chmod(dst, 0o755)


def resources(emu, guests):
    """Hostile guests and inputs under --memory and --timeout: the kernel's
    answer, and seccomp-emu's own peak resident set and wall time within
    the limits plus the slack above (issue 33, item 2)."""
    oracle = Oracle("hostile", emu)
    GIB = 1 << 30
    for bits in ("64", "32"):
        g = guests[bits]
        run([emu, g, "call_df"])
        base = LAST_MAXRSS_KB[0]
        memory = 16 * GIB if bits == "64" else 3 * GIB
        for action in ("madv_huge", "mremap_huge"):
            name = "resources%s %s" % (bits, action)
            limit = (resource.RLIMIT_AS, memory)
            es, eout, wall, rss = timed([emu, "--memory=%d" % memory, "--timeout=20", g, action])
            ns, nout = judged(oracle, name, g,
                              lambda: digest(*run([g, action], native=True, rlimits=[limit])),
                              digest(es, eout),
                              request=native_request([g, action], rlimits=[limit]))
            check(ns is not None and (ns, nout) == digest(es, eout),
                  "%s matches the kernel: native %s, emulated %s %s" % (
                      name, describe(ns) if ns is not None else "none", describe(es),
                      "" if (ns, nout) == digest(es, eout) else shown(eout)))
            check(rss <= base + RESOURCE_SLACK and wall <= 20,
                  "%s: peak RSS %d KiB (a trivial job %d KiB, at most %d more), %.2f s (at most "
                  "--timeout=20)" % (name, rss, base, RESOURCE_SLACK, wall))
        # 160 MiB of stack under RLIMIT_STACK=256M: the mmap area starts
        # below what the limit allows (once a fixed 128 MiB below the top,
        # SIGSEGV), and growing it costs the pages touched (once 13 s for
        # 100 MiB).
        name = "resources%s deep_stack" % bits
        limit = (resource.RLIMIT_STACK, 256 << 20)
        es, eout, wall, rss = timed([emu, "--timeout=20", g, "deep_stack"], rlimits=[limit])
        ns, nout = judged(oracle, name, g,
                          lambda: digest(*run([g, "deep_stack"], native=True, rlimits=[limit])),
                          digest(es, eout),
                          request=native_request([g, "deep_stack"], rlimits=[limit]))
        check(ns is not None and (ns, nout) == digest(es, eout),
              "%s matches the kernel: native %s, emulated %s %s" % (
                  name, describe(ns) if ns is not None else "none", describe(es),
                  "" if (ns, nout) == digest(es, eout) else shown(eout)))
        check(rss <= base + (160 << 10) + RESOURCE_SLACK and wall <= 20,
              "%s: peak RSS %d KiB (a trivial job %d KiB + the 160 MiB touched, at most %d more), "
              "%.2f s (at most --timeout=20)" % (name, rss, base, RESOURCE_SLACK, wall))
        # A segment claiming nearly all of the address space: SIGSEGV at
        # once, as execve past its point of no return, never a page walk.
        with tempfile.TemporaryDirectory() as d:
            huge = os.path.join(d, "huge")
            top = 0x7FFF00000000 if bits == "64" else 0xF0000000
            elf_with_memsz(g, huge, top - 0x1000000)
            name = "resources%s elf-huge-memsz" % bits
            es, eout, wall, rss = timed([emu, "--memory=1G", "--timeout=10", huge, "call_df"])
            limit = (resource.RLIMIT_AS, GIB)
            ns, nout = judged(oracle, name, huge,
                              lambda: digest(*run([huge, "call_df"], native=True, rlimits=[limit])),
                              digest(es, eout),
                              request=native_request([huge, "call_df"], rlimits=[limit]))
            check(ns is not None and ns == es,
                  "%s: native %s, emulated %s" % (name, describe(ns) if ns is not None else "none",
                                                 describe(es)))
            check(rss <= base + RESOURCE_SLACK and wall <= 2 + TIME_SLACK,
                  "%s: peak RSS %d KiB (trivial %d), %.2f s" % (name, rss, base, wall))
    g = guests["64"]
    run([emu, g, "call_df"])
    base = LAST_MAXRSS_KB[0]
    # Inputs without end: refused quickly, in bounded memory.
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        for argv, want, says in (
                ([emu, "--timeout=10", "/dev/zero"], 126, b"not an ELF"),
                ([emu, "--timeout=10", "--filter=/dev/zero", g, "call_df"], 2, b"more than the 32 KiB"),
                ([emu, "--timeout=10", "--seccomp-profile=/dev/zero", g, "call_df"], 2,
                 b"more than the 16 MiB"),
                # 256 MiB read, then refused; or, on a slow host, the timeout
                ([emu, "--timeout=10", "--raw=/dev/zero", "--arch=x86_64"], (126, -9),
                 b"seccomp-emu: "),
                ([emu, "--timeout=1", fifo], -9, b"--timeout"),
                ([emu, "--timeout=1", "--filter=" + fifo, g, "call_df"], -9, b"--timeout"),
                ([emu, "--timeout=1", "--seccomp-profile=" + fifo, g, "call_df"], -9,
                 b"--timeout")):
            st, err, wall = stderr_of(argv)
            limit = 1 if "--timeout=1" in argv else 10
            check(st in (want if isinstance(want, tuple) else (want,)) and says in err and
                  err.count(b"\n") == 1 and
                  wall <= limit + TIME_SLACK,
                  "%s: status %s (want %s), %.2f s, %r" % (" ".join(argv[1:3]), st, want, wall,
                                                          err[:150]))
        # Profile compilation inside --timeout: 1,000 rules that test
        # arguments take libseccomp seconds (its code generator is slow in
        # them, docs/filter.md).
        import re
        table = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "abi",
                             "names_x86_64.c")
        names = [n for n in re.findall(r'\] = "(\w+)"', open(table).read())
                 if n != "restart_syscall"]
        rules = ",".join('{"names": ["%s"], "action": "SCMP_ACT_ERRNO", "args": [{"index": %d, '
                         '"value": %d, "op": "SCMP_CMP_EQ"}]}' % (names[i % len(names)], i % 6, i)
                         for i in range(1000))
        slow = os.path.join(d, "slow.json")
        with open(slow, "w") as f:
            f.write('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [%s]}' % rules)
        st, err, wall = stderr_of([emu, "--timeout=2", "--seccomp-profile=" + slow, g, "call_df"])
        check(st in (-9, 2) and wall <= 2 + TIME_SLACK and err.count(b"\n") == 1,
              "a 1,000-rule profile under --timeout=2: status %s in %.2f s, %r" % (st, wall,
                                                                                    err[:150]))
        # SIGTERM while it compiles: set-up ends as execve would.
        p = subprocess.Popen([emu, "--seccomp-profile=" + slow, g, "call_df"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            st = p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            st = p.wait()
        check(st in (-signal.SIGTERM, 0, 1, 2) and time.monotonic() - t0 < 2,
              "SIGTERM during set-up ends seccomp-emu at once: status %s after %.2f s" % (
                  st, time.monotonic() - t0))
    # --host-memory: the guest touches 1 GiB; seccomp-emu ends it at 128 MiB.
    st, err, wall = stderr_of([emu, "--host-memory=128M", g, "touch_1g"])
    rss = 0
    es, _, _, rss = timed([emu, "--host-memory=128M", g, "touch_1g"])
    check(st == -9 and b"--host-memory" in err and err.count(b"\n") == 1,
          "touching 1 GiB under --host-memory=128M: status %s, %r" % (st, err[:150]))
    check(rss <= (128 << 10) + (16 << 10),
          "--host-memory=128M: peak RSS %d KiB, at most the limit + 16 MiB (HOSTMEM_OVERSHOOT)" % rss)
    # The same when one call faults 2 GiB in (MAP_POPULATE,
    # MADV_POPULATE_WRITE): the call stops at the limit, not at its end.
    for trick in ("populate_2g", "populate_write_2g"):
        st, err, wall = stderr_of([emu, "--host-memory=128M", g, trick])
        es, _, _, rss = timed([emu, "--host-memory=128M", g, trick])
        check(st == -9 and b"--host-memory" in err and rss <= (128 << 10) + (16 << 10),
              "%s under --host-memory=128M: status %s, peak RSS %d KiB (at most the limit + "
              "16 MiB), %r" % (trick, st, rss, err[:120]))


# -------------------------------------------------------------- messages
def one_run(argv, timeout=60, stdin=subprocess.DEVNULL):
    """(status, stderr) of seccomp-emu itself; stdout is dropped."""
    try:
        p = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"(hung)"
    return p.returncode, p.stderr


def log_line_ok(err, limit=1200):
    """One line a log can trust: a single newline at the end, printable
    ASCII only, and short."""
    return (err.endswith(b"\n") and err.count(b"\n") == 1 and len(err) <= limit and
            all(32 <= c < 127 for c in err[:-1]))


def messages(emu, guests):
    """Every diagnostic is one line that names what was wrong and escapes
    what came from the user (issue 33, item 6)."""
    g = guests["64"]
    forged = "5\nseccomp-emu: killed by SIGKILL: fake"
    big = "A" * (1 << 20)
    big_arg = "9" * (100 << 10)  # one argument may hold at most 128 KiB
    with tempfile.TemporaryDirectory() as d:
        profile = os.path.join(d, "p.json")
        with open(profile, "w") as f:
            f.write('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["%s"], '
                    '"action": "SCMP_ACT_ERRNO"}]}' % big)
        weird = os.path.join(d, "caf\xe9\nname")
        cases = [
            # (argv, status wanted, bytes the line must hold, bytes it must not)
            ([emu, "--timeout=" + forged, g], 2, [b"--timeout", b"\\n"],
             [b"\nseccomp-emu: killed"]),
            ([emu, "--timeout=\xe9t\xe9".encode("latin-1").decode("utf-8", "surrogateescape"), g],
             2, [b"--timeout", b"\\xe9"], [b"Invalid byte sequence"]),
            ([emu, "--memory=\u00e9", g], 2, [b"--memory", b"\\xc3\\xa9"], []),
            ([emu, "--max-insns=" + big_arg, g], 2, [b"--max-insns", b"bytes in all", b"too large"],
             []),
            ([emu, "--seccomp-profile=" + profile, g], 2,
             [b"--seccomp-profile", b"unknown syscall", b"bytes in all"], []),
            ([emu, "--raw=%s,%s" % (g, os.path.join(d, "missing-data")), "--arch=x86_64"], 127,
             [b"missing-data", b"cannot open"], [g.encode() + b":"]),
            ([emu, weird, "x"], 127, [b"caf\\xc3\\xa9\\nname", b"cannot open"], []),
            ([emu, "--filter=" + weird, g], 2, [b"--filter", b"caf\\xc3\\xa9\\nname"], []),
            ([emu, "--bogus-option=x\ny", g], 2, [b"bogus-option=x\\ny"], []),
            ([emu, "--fd=3=tcp:\n", g], 2, [b"--fd"], []),
        ]
        for argv, want, must, must_not in cases:
            st, err = one_run(argv)
            shown = err[:160] + (b"..." if len(err) > 160 else b"")
            what = " ".join(a[:40] + ("..." if len(a) > 40 else "")
                            for a in (x if isinstance(x, str) else x.decode() for x in argv[1:]))
            ok = (st == want and log_line_ok(err) and all(m in err for m in must) and
                  not any(m in err for m in must_not))
            check(ok, "%r: status %s (want %d), one escaped line: %r" % (what, st, want, shown))
    # A fatal error met during the run (a g_error; here the guard range a
    # partly unmapped write needs, which seccomp-emu's own RLIMIT_AS
    # refuses) ends it with one line and status 126, never with glib's
    # abort and a core file (issue 33, item 8).  Where seccomp-emu cannot
    # even start under the limit (AddressSanitizer's shadow, another
    # host's engine), there is nothing to see.
    limit = [(resource.RLIMIT_AS, 1536 << 20)]
    st0, _, err0 = late_run([emu, g, "call_df"], os.environ, rlimits=limit)
    if st0 != 0:
        print("skip: seccomp-emu does not run under RLIMIT_AS 1.5 GiB here: %s %r"
              % (st0, err0[:120]), flush=True)
    else:
        st, _, err = late_run([emu, g, "partial"], os.environ, rlimits=limit)
        check(st == 126 and log_line_ok(err) and b"guard range" in err,
              "a fatal error during the run: status %s (want 126), one line: %r"
              % (st, err[:160]))
    # Values that are right must not be refused: a timeout past 2^32 s.
    st, err = one_run([emu, "--timeout=4294967296", g, "call_df"])
    check(st == 0 and not err, "--timeout=4294967296 is a timeout, not an error: status %s %r"
          % (st, err[:120]))
    st, err = one_run([emu, "--timeout=9000000001", g, "call_df"])
    check(st == 2 and log_line_ok(err) and b"longest" in err,
          "--timeout past the longest says so: %s %r" % (st, err[:120]))


def main():
    suite, emu, g32, g64 = [os.path.abspath(a) if i else a for i, a in enumerate(sys.argv[1:5])]
    guests = {"32": g32, "64": g64}
    if suite == "sandbox":
        guests["tricks64"] = os.path.abspath(sys.argv[5])
    {"tricks": tricks, "memory": memory, "hostcalls": hostcalls, "sandbox": sandbox,
     "floods": floods, "messages": messages, "resources": resources}[suite](emu, guests)
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
