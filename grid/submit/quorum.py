#!/usr/bin/env python3
"""A batch of seccomp-emu jobs on HTCondor, each result validated as volunteer grids do it.

BOINC's quorum, on an HTCondor pool whose workers are strangers' machines:

- every work unit runs on two workers chosen apart (never twice on one
  machine: a machine that starts one copy is added to the other copies'
  GridAvoid list); the results are compared by output hash and exit status;
  when they disagree a third copy runs on a third machine, and so on, until
  two agree (the canonical result) or --max-instances copies ran;
- a worker whose result differs from the canonical one loses reputation
  (halved; an agreeing result gives back only 0.02, up to 1, so that two
  losses within some 25 results weigh as two in a row); under
  --min-reputation it is excluded: no more work, its running copies are
  removed and re-issued elsewhere, its results no longer count;
- a worker gets work only after it answered a canary: a job whose answer
  differs between a native run and a run in seccomp-emu's strict mode
  (build/examples/canary_job64: it asks for getpid after its first line), with
  a fresh nonce each time.  A worker that answers as a native run is
  excluded at once.  Admitted workers get another canary every
  --canary-every results;
- at the end it prints the table: every worker's state, canaries, valid
  and invalid results, reputation, and why it was excluded.

The answer a job should give is never used to validate it: the pool only
has its workers' word.  --check compares the canonical results with the
seed's expected ones afterwards, to test the validator itself.

Work units: the seed's eight jobs (examples/master.py) and its two count
jobs over TCP to this master, --rounds times; --slow slow count jobs over
TCP whose input this master sends only after --slow-delay seconds (jobs
still running when a test breaks something); and the real programs of
REAL_PROGRAMS.

    quorum.py --jobs BUILD --work DIR --endpoint HOST:LOW-HIGH [--rounds N] [--check]
    quorum.py --loop SECCOMP_EMU --jobs BUILD --work DIR [--rounds N]   (plain seccomp-emu, one at a time)
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import selectors
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import master as single  # noqa: E402  the seed's jobs as submit variables (grid/submit/master.py)

# Issue 31's real programs (static Go, Rust and threaded C binaries) join the
# batch here once seccomp-emu runs them: one tuple per program,
#   (name, executable in --jobs, mode, arch, input bytes, expected output or None)
# with mode one the workers' owners list in SECCOMP_EMU_MODES ("emulated":
# no --strict).  Each runs as a work unit like the seed's jobs.
REAL_PROGRAMS = []

# What an agreeing result gives back after a loss halved the reputation:
# small, so that a worker lying on one job in five still falls under
# --min-reputation (0.3) at its second loss.
REPUTATION_REGAINED = 0.02

CANARY_OUTPUT = "canary {nonce}: {hash:016x}\n"
CANARY_STATUS = (0, 9)  # killed by SIGKILL at getpid, as strict mode does


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def canary_answer(nonce):
    return CANARY_OUTPUT.format(nonce=nonce, hash=fnv1a64(nonce.encode())).encode()


class WorkUnit:
    def __init__(self, wid, name, kind, var, data, want, want_out, socket_job=False, delay=0):
        self.id, self.name, self.kind = wid, name, kind
        self.var, self.data = var, data
        self.want, self.want_out = want, want_out   # for --check only
        self.socket_job, self.delay = socket_job, delay
        self.instances = []
        self.canonical = None       # (code, signal, hash) once two workers agree
        self.canonical_out = None
        self.failed = None          # why no quorum was reached


class Instance:
    def __init__(self, label, wu=None, machine=None, nonce=None):
        self.label, self.wu = label, wu
        self.pinned, self.nonce = machine, nonce    # canaries: the worker and the nonce
        self.job = None             # (cluster, proc)
        self.state = "idle"         # idle, running, suspended, done, removed, held
        self.machines = []          # every machine it started on
        self.terminations = 0
        self.result = None          # (code, signal, hash)
        self.output = b""
        self.verdict = None         # valid, invalid, discarded, cancelled, error
        self.ports = None
        self.events = []

    @property
    def machine(self):
        return self.machines[-1] if self.machines else None

    @property
    def outstanding(self):
        return self.state in ("idle", "running", "suspended")


class Worker:
    def __init__(self, machine):
        self.machine = machine
        self.state = "probation"    # probation -> admitted -> excluded
        self.reputation = 0.0
        self.canaries_passed = self.canaries_failed = 0
        self.valid = self.invalid = self.errors = 0
        self.since_canary = 0
        self.canary_pending = None
        self.why = ""
        self.lost = []


# ---------------------------------------------------------------- the jobs

def work_units(opts):
    """The batch, in submission order: the slow jobs first (so that they are
    running when faults come), then the seed's jobs round after round."""
    seed = single.load_seed(opts.seed_master)
    base = single.seed_jobs(seed, opts.jobs)
    count_jobs = [j for j in base if j[0].startswith("count job")]
    units = []

    def add(name, kind, var, data, want, want_out, **kw):
        units.append(WorkUnit(f"wu{len(units):04d}", name, kind, var, data, want, want_out, **kw))

    for i in range(opts.slow):
        name, var, data, want, want_out = count_jobs[i % len(count_jobs)]
        add(f"{name} over TCP, input after {opts.slow_delay} s", "slow", var, data, want, want_out,
            socket_job=True, delay=opts.slow_delay)
    for _ in range(opts.rounds):
        for name, var, data, want, want_out in base:
            add(name, "malicious" if name.startswith("malicious") else "compute",
                var, data, want, want_out)
        for name, var, data, want, want_out in count_jobs:
            add(name + " over TCP", "socket", var, data, want, want_out, socket_job=True)
    for name, exe, mode, arch, data, want_out in REAL_PROGRAMS:
        var = {"job_mode": mode, "job_arch": arch, "job_executable": os.path.join(opts.jobs, exe),
               "job_raw_data": ""}
        add(name, "real", var, data, (0, 0), want_out)
    return units


# ------------------------------------------------------- the socket master

class SocketMaster:
    """Listeners for the socket jobs, two per job copy on ports the
    workers' owners list: the first sends the input to every connection
    (after the work unit's delay), the second keeps what each connection
    sent.  A copy that ran twice (its first worker died) connected twice:
    its result is what the last connection sent.  One thread, one selector."""

    def __init__(self, host, low, high):
        self.host = host
        self.free = list(range(low, high, 2))
        self.sel = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.received = {}          # label -> [bytes per connection]
        self.open_out = collections.Counter()
        self.timers = []            # (when, conn, data)
        self.listeners = {}         # label -> (lin, lout)
        self.wake_r, self.wake_w = socket.socketpair()
        self.sel.register(self.wake_r, selectors.EVENT_READ, ("wake",))
        self.stop = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def open(self, label, data, delay):
        with self.lock:
            if not self.free:
                raise SystemExit("quorum: out of ports in the endpoint range")
            port = self.free.pop(0)
            lin = socket.create_server((self.host, port))
            lout = socket.create_server((self.host, port + 1))
            for s in (lin, lout):
                s.setblocking(False)
            self.received[label] = []
            self.listeners[label] = (lin, lout)
            self.sel.register(lin, selectors.EVENT_READ, ("accept_in", label, data, delay))
            self.sel.register(lout, selectors.EVENT_READ, ("accept_out", label))
        self.wake_w.send(b"x")
        return port

    def close(self, label):
        with self.lock:
            pair = self.listeners.pop(label, None)
            if pair:
                self.free.append(pair[0].getsockname()[1])
                for s in pair:
                    self.sel.unregister(s)
                    s.close()

    def result(self, label, wait=5.0):
        """What the copy's last connection sent, once that connection ended."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            with self.lock:
                if not self.open_out[label]:
                    break
            time.sleep(0.05)
        with self.lock:
            conns = self.received.get(label, [])
            return (conns[-1] if conns else b""), len(conns)

    def loop(self):
        while not self.stop:
            now = time.monotonic()
            with self.lock:
                due = [t for t in self.timers if t[0] <= now]
                self.timers = [t for t in self.timers if t[0] > now]
                timeout = min((t[0] for t in self.timers), default=now + 1) - now
            for _, conn, data in due:
                self.send_input(conn, data)
            for key, _ in self.sel.select(timeout=max(0.0, min(timeout, 1.0))):
                what = key.data
                if what[0] == "wake":
                    key.fileobj.recv(4096)
                elif what[0] == "accept_in":
                    try:
                        conn, _ = key.fileobj.accept()
                    except OSError:
                        continue
                    _, label, data, delay = what
                    with self.lock:
                        self.timers.append((time.monotonic() + delay, conn, data))
                elif what[0] == "accept_out":
                    try:
                        conn, _ = key.fileobj.accept()
                    except OSError:
                        continue
                    conn.setblocking(False)
                    label = what[1]
                    with self.lock:
                        self.received[label].append(b"")
                        index = len(self.received[label]) - 1
                        self.open_out[label] += 1
                        self.sel.register(conn, selectors.EVENT_READ, ("data", label, index))
                elif what[0] == "data":
                    _, label, index = what
                    try:
                        chunk = key.fileobj.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        chunk = b""
                    with self.lock:
                        if chunk:
                            self.received[label][index] += chunk
                        else:
                            self.sel.unregister(key.fileobj)
                            key.fileobj.close()
                            self.open_out[label] -= 1

    @staticmethod
    def send_input(conn, data):
        try:
            conn.settimeout(30)
            conn.sendall(data)
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        finally:
            conn.close()


# ------------------------------------------------------------ the validator

class Quorum:
    def __init__(self, opts, units):
        import htcondor
        self.htcondor = htcondor
        self.opts = opts
        self.units = units
        self.batch = f"quorum-{os.getpid()}-{int(time.time())}"
        self.schedd = htcondor.Schedd()
        self.workers = {}
        self.by_job = {}
        self.started = time.monotonic() - (time.time() - opts.t0 if opts.t0 else 0)
        self.canary_count = 0
        self.tie_breakers = 0
        self.ip_machine = {}
        host, ports = opts.endpoint.rsplit(":", 1)
        low, _, high = ports.partition("-")
        self.sockets = SocketMaster(host, int(low), int(high or low))
        self.endpoint_host = host
        with open(os.path.join(HERE, "job.sub")) as f:
            template = "\n".join(l for l in f.read().splitlines() if l.strip() != "queue")
        self.submit = htcondor.Submit(template)
        base_req = self.submit["requirements"]
        self.submit["requirements"] = f"({base_req}) && $(grid_where)"
        self.submit["MY.GridBatch"] = f'"{self.batch}"'
        self.submit["MY.GridWU"] = '"$(grid_wu)"'
        self.submit["MY.GridKind"] = '"$(grid_kind)"'
        self.submit["MY.GridWorkers"] = '"$(grid_workers)"'
        self.submit["MY.GridAvoid"] = '"$(grid_avoid)"'
        # Canaries first, then tie-breakers and replacements, then the rest:
        # a work unit that already has answers should not wait behind the queue.
        self.submit["priority"] = "$(grid_priority)"
        # How long a worker that lost touch may take to come back before the
        # copy is started again elsewhere (HTCondor's default is 40 minutes).
        self.submit["job_lease_duration"] = str(opts.lease)
        self.log = os.path.abspath("jobs.log")
        if os.path.exists(self.log):
            os.unlink(self.log)
        self.jel = None

    # -- printing
    def t(self):
        return f"t+{time.monotonic() - self.started:4.0f}s"

    def say(self, msg):
        print(f"quorum: [{self.t()}] {msg}", flush=True)

    # -- workers
    def admitted(self):
        return sorted(w.machine for w in self.workers.values() if w.state == "admitted")

    def appeared(self, w):
        """A new worker: admitted only once it answered a canary (unless --no-canaries)."""
        if self.opts.no_canaries:
            w.state, w.reputation = "admitted", 1.0
            self.say(f"worker {w.machine} appeared: admitted (no canaries)")
            self.publish_workers()
            return
        self.say(f"worker {w.machine} appeared: admission canary sent (no work before it answers)")
        self.send_canary(w)

    def discover(self):
        """Workers advertising seccomp-emu; a new one gets its admission canary."""
        try:
            ads = self.htcondor.Collector().query(self.htcondor.AdTypes.Startd,
                                                  "HasSeccompEmu =?= true",
                                                  ["Machine", "MyAddress"])
        except Exception as e:  # the central manager may be down: keep what we know
            if not getattr(self, "collector_down", False):
                self.say(f"collector unreachable ({str(e).splitlines()[0]}); carrying on with "
                         f"{len(self.workers)} known workers")
            self.collector_down = True
            return
        if getattr(self, "collector_down", False):
            self.say(f"collector answers again: {len(ads)} slots advertise HasSeccompEmu")
        self.collector_down = False
        for ad in ads:
            m = ad.get("Machine")
            addr = ad.get("MyAddress", "")
            ip = re.match(r"<([0-9.]+):", addr)
            if ip:
                self.ip_machine[ip.group(1)] = m
            if m and m not in self.workers:
                self.workers[m] = Worker(m)
                self.appeared(self.workers[m])

    def machine_of(self, event):
        host = event.get("ExecuteHost", "") or ""
        alias = re.search(r"alias=([^&>]+)", host)
        if alias:
            return alias.group(1)
        ip = re.match(r"<([0-9.]+):", host)
        return self.ip_machine.get(ip.group(1), host) if ip else host

    def publish_workers(self):
        """The admitted set, into every unfinished copy of the batch."""
        workers = ", ".join(self.admitted())
        unfinished = (f'GridBatch == "{self.batch}" && GridKind != "canary" && JobStatus != 3 '
                      f'&& JobStatus != 4')
        for attempt in range(5):
            try:
                self.schedd.edit(unfinished, "GridWorkers", f'"{workers}"')
                return
            except Exception as e:  # the bindings raise HTCondorIOError, or SystemError around it
                # The schedd refuses an edit that matches no job (none submitted
                # yet), and one whose job leaves the queue during the edit.
                if not self.schedd.query(unfinished, ["ProcId"], limit=1):
                    return
                self.say(f"publishing the admitted workers failed ({str(e).splitlines()[0]}); again")
                time.sleep(1)
        raise SystemExit("quorum: cannot publish the admitted workers to the schedd")

    def exclude(self, w, why):
        if w.state == "excluded":
            return
        w.state, w.why = "excluded", why
        if "canary" in why:
            w.reputation = 0.0
        self.say(f"worker {w.machine} EXCLUDED: {why}")
        self.publish_workers()
        # Its copies still queued or running go; their work units get new ones.
        mine = [i for wu in self.units for i in wu.instances if i.outstanding and i.machine == w.machine
                and i.state != "idle"]
        for inst in mine:
            self.remove(inst, "its worker was excluded")
        for wu in self.units:
            if wu.canonical is None and any(i.machine == w.machine for i in wu.instances):
                self.settle(wu)

    # -- submitting
    def submit_items(self, items):
        """items: (Instance, submit variables); returns when queued."""
        for attempt in range(3):
            try:
                result = self.schedd.submit(self.submit, itemdata=iter([v for _, v in items]))
                break
            except Exception as e:  # a submission is all or nothing: try again
                if attempt == 2:
                    raise
                self.say(f"submitting {len(items)} copies failed ({str(e).splitlines()[0]}); again")
                time.sleep(2)
        cluster, first = result.cluster(), result.first_proc()
        for k, (inst, _) in enumerate(items):
            inst.job = (cluster, first + k)
            self.by_job[inst.job] = inst
        if self.jel is None:
            self.jel = self.htcondor.JobEventLog(self.log)

    def variables(self, inst, wu, var, data, where, kind, priority=0):
        with open(inst.label + ".in", "wb") as f:
            f.write(b"" if wu is not None and wu.socket_job else data)
        item = dict(var, job_name=inst.label, job_input=inst.label + ".in", job_fds="",
                    grid_wu=wu.id if wu else "", grid_kind=kind, grid_where=where,
                    grid_priority=str(priority),
                    grid_workers=", ".join(self.admitted()),
                    grid_avoid=", ".join(sorted(self.avoid(wu))) if wu else "")
        if wu is not None and wu.socket_job:
            port = self.sockets.open(inst.label, data, wu.delay)
            inst.ports = port
            item["job_fds"] = f"0=tcp:{self.endpoint_host}:{port} 1=tcp:{self.endpoint_host}:{port + 1}"
        return item

    def avoid(self, wu):
        """Machines a new copy of wu must not run on: those that ran or run one."""
        return {m for i in wu.instances for m in i.machines}

    def issue(self, pairs):
        """pairs: [(wu, why)]: a new copy of each, on any admitted worker not yet used for it."""
        items = []
        for wu, why in pairs:
            inst = Instance(f"{wu.id}-i{len(wu.instances)}", wu)
            where = ("stringListMember(TARGET.Machine, MY.GridWorkers) && "
                     "!stringListMember(TARGET.Machine, MY.GridAvoid)")
            items.append((inst, self.variables(inst, wu, wu.var, wu.data, where, wu.kind,
                                               priority=10 if why else 0)))
            wu.instances.append(inst)
            if why:
                self.say(f"{inst.label} ({wu.name}): {why}")
        if items:
            self.submit_items(items)

    def send_canary(self, w):
        self.canary_count += 1
        nonce = f"{random.getrandbits(64):016x}"
        inst = Instance(f"canary{self.canary_count:03d}-{w.machine.split('.')[0]}", None, w.machine, nonce)
        var = {"job_mode": "strict", "job_arch": "x86_64",
               "job_executable": os.path.join(self.opts.jobs, "examples", "canary_job64"),
               "job_raw_data": ""}
        item = self.variables(inst, None, var, (nonce + "\n").encode(),
                              f'(TARGET.Machine == "{w.machine}")', "canary", priority=20)
        w.canary_pending = inst
        w.since_canary = 0
        self.submit_items([(inst, item)])

    def remove(self, inst, why):
        if inst.outstanding:
            inst.state = "removed"
            inst.verdict = inst.verdict or "cancelled"
            try:
                self.schedd.act(self.htcondor.JobAction.Remove, [f"{inst.job[0]}.{inst.job[1]}"],
                                reason=why)
            except Exception as e:
                self.say(f"{inst.label}: condor_rm failed: {e}")
            if inst.ports:
                self.sockets.close(inst.label)

    # -- results
    def result_of(self, inst, event):
        if event.get("TerminatedNormally"):
            code, sig = int(event.get("ReturnValue", 0)), 0
        else:
            code, sig = 0, int(event.get("TerminatedBySignal", 0))
        if inst.ports:
            out, conns = self.sockets.result(inst.label)
            if conns > 1:
                self.say(f"{inst.label}: {conns} connections to this master (it ran more than once); "
                         "the last one is its result")
            self.sockets.close(inst.label)
        else:
            try:
                with open(inst.label + ".out", "rb") as f:
                    out = f.read()
            except OSError:
                out = b""
        return (code, sig, hashlib.sha256(out).hexdigest()[:16]), out

    def canary_done(self, inst):
        w = self.workers.get(inst.pinned)
        if w is None:
            return
        w.canary_pending = None
        code, sig, _ = inst.result
        if (code, sig) == CANARY_STATUS and inst.output == canary_answer(inst.nonce):
            w.canaries_passed += 1
            if w.state == "probation":
                w.state, w.reputation = "admitted", 1.0
                self.say(f"worker {w.machine} admitted: its canary died at getpid as in seccomp-emu "
                         f"({inst.label})")
                self.publish_workers()
            return
        w.canaries_failed += 1
        native = b"getpid answered" in inst.output
        self.say(f"worker {w.machine}: canary {inst.label} answered exit_code {code} signal {sig}, "
                 f"{inst.output!r}")
        self.exclude(w, "canary answered as a native run: no seccomp-emu there" if native
                     else "canary answered wrongly")

    def credit(self, inst, valid):
        w = self.workers.get(inst.machine)
        inst.verdict = "valid" if valid else "invalid"
        if w is None:
            return
        if valid:
            w.valid += 1
            w.reputation = min(1.0, w.reputation + REPUTATION_REGAINED)
        else:
            w.invalid += 1
            w.reputation /= 2
            w.lost.append(inst.label)
            self.say(f"{inst.label}: {w.machine} lost the validation of {inst.wu.id} ({inst.wu.name}); "
                     f"reputation {w.reputation:.2f}")
            if w.reputation < self.opts.min_reputation and w.state != "excluded":
                self.exclude(w, f"lost {w.invalid} validations ({', '.join(w.lost)}); "
                                f"reputation {w.reputation:.2f}")
        w.since_canary += 1
        if (w.state == "admitted" and not self.opts.no_canaries and self.opts.canary_every
                and w.since_canary >= self.opts.canary_every and w.canary_pending is None):
            self.send_canary(w)

    def counts(self, inst):
        """Whether a result takes part in the vote."""
        w = self.workers.get(inst.machine)
        return inst.result is not None and inst.verdict != "discarded" and (w is None or w.state != "excluded")

    def settle(self, wu):
        """BOINC's validator and transitioner for one work unit."""
        voters = [i for i in wu.instances if self.counts(i)]
        if wu.canonical is not None:
            for i in voters:
                if i.verdict is None:
                    self.credit(i, i.result == wu.canonical)
            return
        if wu.failed:
            return
        groups = collections.defaultdict(set)
        for i in voters:
            groups[i.result].add(i.machine)
        best = max(groups.items(), key=lambda kv: len(kv[1]), default=(None, set()))
        if len(best[1]) >= self.opts.quorum:
            wu.canonical = best[0]
            wu.canonical_out = next(i.output for i in voters if i.result == best[0])
            for i in voters:
                self.credit(i, i.result == wu.canonical)
            for i in wu.instances:
                if i.outstanding:
                    self.remove(i, "its work unit reached its quorum")
            disagreed = len(groups) > 1
            if disagreed or self.opts.verbose:
                self.say(f"{wu.id} ({wu.name}): canonical result exit_code {best[0][0]} signal "
                         f"{best[0][1]} output {best[0][2]}, agreed by "
                         f"{', '.join(sorted(best[1]))}" + (f"; {len(groups) - 1} other answer(s)"
                                                            if disagreed else ""))
            return
        outstanding = sum(1 for i in wu.instances if i.outstanding)
        needed = self.opts.quorum - len(best[1])
        if outstanding >= needed:
            return
        if len(wu.instances) + needed - outstanding > self.opts.max_instances:
            wu.failed = f"no {self.opts.quorum} agreeing results in {len(wu.instances)} copies"
            self.say(f"{wu.id} ({wu.name}): FAILED: {wu.failed}")
            return
        if len(groups) > 1:
            answers = "; ".join(f"{', '.join(sorted(ms))}: exit_code {r[0]} signal {r[1]} output {r[2]}"
                                for r, ms in groups.items())
            why = f"tie-breaker ({answers})"
            self.tie_breakers += 1
        else:
            why = "a new copy (one was removed, held, or ran on an excluded worker)"
        self.issue([(wu, why)] * (needed - outstanding))

    # -- events
    def on_event(self, ev):
        inst = self.by_job.get((ev.cluster, ev.proc))
        if inst is None:
            return
        T = self.htcondor.JobEventType
        kind = ev.type
        if kind == T.EXECUTE:
            m = self.machine_of(ev)
            inst.machines.append(m)
            inst.state = "running"
            if len(inst.machines) > 1:
                self.say(f"{inst.label}: started again, on {m} (before: {', '.join(inst.machines[:-1])})")
            if inst.wu is not None:
                siblings = [i for i in inst.wu.instances if i is not inst and i.outstanding]
                avoid = ", ".join(sorted(self.avoid(inst.wu)))
                for sib in siblings:
                    try:
                        self.schedd.edit([f"{sib.job[0]}.{sib.job[1]}"], "GridAvoid", f'"{avoid}"')
                    except Exception:
                        # It left the queue meanwhile (its own event follows); a
                        # copy that still ran on this machine is discarded.
                        pass
                w = self.workers.get(m)
                if w is not None and w.state == "excluded":
                    self.remove(inst, "started on an excluded worker")
                    self.settle(inst.wu)
        elif kind == T.JOB_TERMINATED:
            inst.terminations += 1
            if inst.terminations > 1:
                self.say(f"{inst.label}: a second termination event (a doubled result): ignored")
                return
            was = inst.state
            inst.state = "done"
            inst.result, inst.output = self.result_of(inst, ev)
            if inst.wu is None:
                self.canary_done(inst)
                return
            if was == "removed":
                inst.verdict = None   # it ended before the removal: its result still counts
            same = [i for i in inst.wu.instances if i is not inst and i.result is not None
                    and i.machine == inst.machine]
            if same:
                inst.verdict = "discarded"
                self.say(f"{inst.label}: ran on {inst.machine}, which already returned {same[0].label}: "
                         "not an independent result, discarded")
            self.settle(inst.wu)
        elif kind == T.JOB_HELD:
            reason = ev.get("HoldReason", "")
            self.say(f"{inst.label}: held on {inst.machine or '?'}: {reason}; removed, a new copy instead")
            w = self.workers.get(inst.machine)
            if w is not None:
                w.errors += 1
            inst.verdict = "error"
            self.remove(inst, "held")
            inst.state = "held"
            if inst.wu is not None:
                self.settle(inst.wu)
            elif self.workers.get(inst.pinned) is not None:
                self.workers[inst.pinned].canary_pending = None
                self.send_canary(self.workers[inst.pinned])
        elif kind == T.JOB_ABORTED:
            if inst.outstanding:   # removed by someone else
                inst.state, inst.verdict = "removed", "cancelled"
                if inst.wu is not None:
                    self.settle(inst.wu)
        else:
            names = {T.JOB_EVICTED: "evicted", T.SHADOW_EXCEPTION: "shadow exception",
                     T.JOB_DISCONNECTED: "disconnected from its worker",
                     T.JOB_RECONNECTED: "reconnected to its worker",
                     T.JOB_RECONNECT_FAILED: "reconnection failed: it goes back to the queue",
                     T.JOB_SUSPENDED: "suspended", T.JOB_UNSUSPENDED: "resumed"}
            what = names.get(kind)
            if what is None:
                return
            if kind == T.JOB_SUSPENDED:
                inst.state = "suspended"
            elif kind == T.JOB_UNSUSPENDED:
                inst.state = "running"
            elif kind in (T.JOB_EVICTED, T.JOB_RECONNECT_FAILED):
                inst.state = "idle"
            detail = ev.get("Reason", "") or ev.get("Message", "") or ev.get("DisconnectReason", "")
            inst.events.append(what)
            self.say(f"{inst.label} on {inst.machine}: {what}" + (f" ({detail})" if detail else ""))

    # -- the run
    def status(self):
        if not self.opts.status:
            return
        data = {"workers": {m: {"state": w.state, "reputation": w.reputation, "valid": w.valid,
                                "invalid": w.invalid} for m, w in self.workers.items()},
                "resolved": sum(1 for wu in self.units if wu.canonical or wu.failed),
                "units": len(self.units)}
        tmp = self.opts.status + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, self.opts.status)

    def run(self):
        self.say(f"batch {self.batch}: {len(self.units)} work units, quorum {self.opts.quorum}, "
                 f"at most {self.opts.max_instances} copies each, canary every "
                 f"{self.opts.canary_every} results, job lease {self.opts.lease} s")
        self.discover()
        self.issue([(wu, None) for wu in self.units for _ in range(self.opts.quorum)])
        self.say(f"submitted {sum(len(wu.instances) for wu in self.units)} copies")
        deadline = time.monotonic() + self.opts.timeout
        last_tick = 0
        while time.monotonic() < deadline:
            for ev in self.jel.events(stop_after=1):
                self.on_event(ev)
            if time.monotonic() - last_tick >= 3:
                last_tick = time.monotonic()
                self.discover()
                self.status()
            if all(wu.canonical is not None or wu.failed for wu in self.units):
                break
        self.finish(timed_out=time.monotonic() >= deadline)

    def finish(self, timed_out):
        elapsed = time.monotonic() - self.started
        for wu in self.units:
            for i in wu.instances:
                if i.result is not None and i.verdict is None:
                    i.verdict = "discarded"   # from a worker excluded before it could count
        # Copies of work units still queued or running at the end: with every
        # work unit settled there are none (settling removes the spare copies).
        self.leftover = [i.label for wu in self.units for i in wu.instances if i.outstanding]
        left = [i for wu in self.units for i in wu.instances if i.outstanding]
        left += [w.canary_pending for w in self.workers.values() if w.canary_pending is not None]
        for inst in left:
            self.remove(inst, "the batch is over")
        self.sockets.stop = True
        self.status()
        self.report(elapsed, timed_out)

    def report(self, elapsed, timed_out):
        say = lambda s: print(f"quorum: {s}", flush=True)  # noqa: E731
        say("")
        say(f"{'worker':<20} {'state':<10} {'canaries':>8} {'valid':>6} {'invalid':>8} {'errors':>7} "
            f"{'reputation':>10}  why")
        for m in sorted(self.workers):
            w = self.workers[m]
            say(f"{m:<20} {w.state.upper() if w.state == 'excluded' else w.state:<10} "
                f"{w.canaries_passed:>3}/{w.canaries_passed + w.canaries_failed:<4} {w.valid:>6} "
                f"{w.invalid:>8} {w.errors:>7} {w.reputation:>10.2f}  {w.why}")
        units = len(self.units)
        resolved = sum(1 for wu in self.units if wu.canonical is not None)
        copies = [i for wu in self.units for i in wu.instances]
        verdicts = collections.Counter(i.verdict or i.state for i in copies)
        ran = sum(1 for i in copies if i.terminations)
        doubled = sum(1 for i in copies if i.terminations > 1)
        lost = [wu.id for wu in self.units if wu.canonical is None] + self.leftover
        canaries = self.canary_count
        say("")
        say(f"work units: {resolved} of {units} reached a quorum"
            + (f"; {units - resolved} did not: "
               + ", ".join(f"{wu.id} ({wu.failed or 'unfinished'})" for wu in self.units
                           if wu.canonical is None) if resolved < units else ""))
        say(f"copies: {len(copies)} submitted, {ran} ran to the end ("
            + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) + f"); {self.tie_breakers} "
            f"tie-breakers; {canaries} canaries")
        say(f"results lost: {len(lost)} (work units without a canonical result, copies never accounted "
            f"for); results doubled: {doubled} (copies that terminated twice)")
        cores = os.cpu_count() or 1
        minutes = elapsed / 60
        say(f"time: {elapsed:.0f} s for {units} work units: {units / minutes:.1f} work units/min, "
            f"{units / minutes / cores:.1f} per core ({cores} cores); {ran} jobs ran, "
            f"{ran / minutes / cores:.1f} jobs/min per core; validation ran {ran / max(units, 1):.2f} "
            f"jobs per work unit")
        checked = bad = 0
        if self.opts.check:
            for wu in self.units:
                if wu.canonical is None or wu.want_out is None:
                    continue
                checked += 1
                want = (wu.want[0], wu.want[1], hashlib.sha256(wu.want_out).hexdigest()[:16])
                if wu.canonical != want:
                    bad += 1
                    say(f"CHECK: {wu.id} ({wu.name}): canonical {wu.canonical}, expected {want}: "
                        f"{wu.canonical_out!r}")
            say(f"check: {checked - bad} of {checked} canonical results are the expected ones")
        summary = {"units": units, "resolved": resolved, "copies": len(copies), "ran": ran,
                   "doubled": doubled, "lost": lost, "tie_breakers": self.tie_breakers,
                   "canaries": canaries, "elapsed": elapsed, "cores": cores,
                   "checked": checked, "check_failed": bad, "timed_out": timed_out,
                   "workers": {m: {"state": w.state, "why": w.why, "valid": w.valid, "invalid": w.invalid,
                                   "canaries_passed": w.canaries_passed,
                                   "canaries_failed": w.canaries_failed, "reputation": w.reputation}
                               for m, w in self.workers.items()},
                   "events": {i.label: {"machines": i.machines, "events": i.events, "verdict": i.verdict,
                                        "terminations": i.terminations}
                              for i in copies}}
        with open("summary.json", "w") as f:
            json.dump(summary, f, indent=1)
        self.ok = resolved == units and not lost and not doubled and not bad and not timed_out


# --------------------------------------------------- the loop, for comparison

def loop(opts, units):
    """Every work unit once with plain seccomp-emu on this machine, one at a
    time: what the same jobs cost without the grid."""
    started = time.monotonic()
    cpu0 = os.times()
    ran = bad = 0
    for wu in units:
        var = wu.var
        if var["job_mode"] == "raw":
            args = [f"--raw={var['job_executable']},{var['job_raw_data']}", f"--arch={var['job_arch']}"]
        else:
            args = ["--strict", "--", var["job_executable"]]
        if wu.socket_job:
            code, sig, out, _ = single_seed_run(opts, args, wu.data)
        else:
            p = subprocess.run([opts.loop] + args, input=wu.data, capture_output=True)
            code, sig, out = (p.returncode, 0, p.stdout) if p.returncode >= 0 else (0, -p.returncode, p.stdout)
        ran += 1
        bad += ((code, sig), out) != (wu.want, wu.want_out)
    elapsed = time.monotonic() - started
    cpu = os.times()
    cpu_s = (cpu.children_user - cpu0.children_user) + (cpu.children_system - cpu0.children_system)
    print(f"loop: {ran} jobs with plain seccomp-emu, one at a time: {elapsed:.1f} s, "
          f"{ran / (elapsed / 60):.1f} jobs/min on one core; {cpu_s:.1f} s of CPU "
          f"({ran / (cpu_s / 60):.1f} jobs per CPU-minute); {bad} not as expected", flush=True)
    return 1 if bad else 0


def single_seed_run(opts, args, data):
    seed = single.load_seed(opts.seed_master)
    return seed.run_job(opts.loop, args, data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", required=True, help="the build directory holding the seed's jobs")
    ap.add_argument("--seed-master", default=os.path.join(HERE, "..", "..", "examples", "master.py"))
    ap.add_argument("--work", required=True, help="a directory for inputs, outputs and the log")
    ap.add_argument("--rounds", type=int, default=1, help="the seed's ten jobs this many times")
    ap.add_argument("--slow", type=int, default=0, help="slow count jobs over TCP (first in the queue)")
    ap.add_argument("--slow-delay", type=int, default=60, help="seconds before a slow job gets its input")
    ap.add_argument("--endpoint", help="HOST:LOW-HIGH: this master's ports for the socket jobs "
                                       "(the workers' owners must list them)")
    ap.add_argument("--quorum", type=int, default=2, help="agreeing results from different workers")
    ap.add_argument("--max-instances", type=int, default=6, help="copies of a work unit at most")
    ap.add_argument("--min-reputation", type=float, default=0.3, help="exclude a worker below this")
    ap.add_argument("--canary-every", type=int, default=25, help="a canary after this many results")
    ap.add_argument("--no-canaries", action="store_true",
                    help="admit every worker that advertises seccomp-emu, without a canary")
    ap.add_argument("--lease", type=int, default=60,
                    help="seconds a copy waits for a worker that lost touch (job_lease_duration)")
    ap.add_argument("--timeout", type=int, default=3600, help="give up after this many seconds")
    ap.add_argument("--status", help="write the workers' states here (JSON) as the batch runs")
    ap.add_argument("--check", action="store_true",
                    help="afterwards, compare each canonical result with the expected one")
    ap.add_argument("--loop", metavar="SECCOMP_EMU",
                    help="no pool: run every work unit once with this seccomp-emu, one at a time")
    ap.add_argument("--t0", type=float, help="the epoch second the times printed count from (default: now)")
    ap.add_argument("--verbose", action="store_true")
    opts = ap.parse_args()
    opts.jobs = os.path.abspath(opts.jobs)
    if opts.loop:
        opts.loop = os.path.abspath(opts.loop)
    units = work_units(opts)
    os.makedirs(opts.work, exist_ok=True)
    os.chdir(opts.work)
    if opts.loop:
        return loop(opts, units)
    if not opts.endpoint:
        ap.error("--endpoint is needed for the socket jobs")
    q = Quorum(opts, units)
    q.run()
    return 0 if q.ok else 1


if __name__ == "__main__":
    sys.exit(main())
