#!/usr/bin/env python3
"""The seed's experiment on HTCondor: a batch of seccomp-emu jobs.

Submits the seed's jobs (examples/master.py: safe and malicious, ELF and
raw bytecode, both ABIs) from grid/submit/job.sub with the htcondor
bindings, waits on the job event log, and prints for each job
"exit_code E signal S" from its ClassAd, as the demo does, and whether its
output is the expected one.  Exits 1 if any job did not end as expected.

--replicas 2 runs every job on two different workers and compares the
outputs (a dishonest worker can return anything: only agreement of
independent workers is evidence).  --socket-jobs adds jobs whose stdin and
stdout are TCP connections to this master (the worker's owner must list
the ports); --refused-endpoint adds one that asks for a port the owner does
not list and must be held without connecting.

    grid/submit/master.py --jobs DIR --work DIR [--rounds N] [--replicas 2]
"""
import argparse
import importlib.util
import os
import shutil
import socket
import sys
import threading
import time

try:
    import htcondor
except ImportError:  # grid/submit/quorum.py --loop uses the job list on hosts without HTCondor
    htcondor = None

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH_TIMEOUT = 900  # seconds for the whole batch: a bound, never a measurement


def load_seed(path):
    """examples/master.py: the seed's jobs and their expected outputs."""
    spec = importlib.util.spec_from_file_location("seed_master", path)
    seed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed)
    return seed


def seed_jobs(seed, jobs_dir):
    """(name, submit variables without job_name, input bytes, (code, signal),
    output) for each of the seed's jobs, from its seccomp-emu arguments."""
    out = []
    for name, args, data, want, want_out in seed.jobs(jobs_dir):
        if args[0] == "--raw":
            text, data_img = args[1].split(",")
            arch = args[2].split("=", 1)[1]
            var = {"job_mode": "raw", "job_arch": arch, "job_executable": text,
                   "job_raw_data": data_img}
        elif args[0] == "--strict":
            prog = args[1]
            arch = "i386" if prog.endswith("32") else "x86_64"
            var = {"job_mode": "strict", "job_arch": arch, "job_executable": prog,
                   "job_raw_data": ""}
        else:
            raise SystemExit(f"master: the seed's job {name!r} has arguments {args} I cannot map")
        out.append((name, var, data, want, want_out))
    return out


def slug(name):
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")


class SocketServer:
    """Two listeners per socket job on ports the worker's owner lists: the
    first sends the job's input to whoever connects, the second collects
    what the job writes."""

    def __init__(self, host, port_in, port_out, data):
        self.data, self.received, self.connections = data, b"", 0
        self.lin = socket.create_server((host, port_in))
        self.lout = socket.create_server((host, port_out))
        self.threads = [threading.Thread(target=self.serve_in, daemon=True),
                        threading.Thread(target=self.serve_out, daemon=True)]
        for t in self.threads:
            t.start()

    def serve_in(self):
        try:
            conn, _ = self.lin.accept()
        except OSError:
            return
        self.connections += 1
        with conn:
            conn.sendall(self.data)
            conn.shutdown(socket.SHUT_WR)

    def serve_out(self):
        try:
            conn, _ = self.lout.accept()
        except OSError:
            return
        self.connections += 1
        with conn:
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                self.received += chunk

    def close(self):
        for s in (self.lin, self.lout):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        for t in self.threads:
            t.join(timeout=5)


def workers(collector, count):
    """Names of `count` distinct seccomp-emu workers: different machines
    where the pool has them, else different slots of one machine."""
    ads = collector.query(htcondor.AdTypes.Startd, "HasSeccompEmu =?= true",
                          ["Name", "Machine"])
    by_machine = {}
    for ad in sorted(ads, key=lambda a: a["Name"]):
        by_machine.setdefault(ad["Machine"], []).append(ad["Name"])
    if len(by_machine) >= count:
        return [("Machine", m) for m in sorted(by_machine)[:count]], True
    names = sorted(ad["Name"] for ad in ads)
    if len(names) < count:
        raise SystemExit(f"master: --replicas {count} needs {count} seccomp-emu workers; "
                         f"the pool has {len(names)}")
    return [("Name", n) for n in names[:count]], False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", required=True, help="the build directory holding the seed's jobs")
    ap.add_argument("--seed-master", default=os.path.join(HERE, "..", "..", "examples", "master.py"),
                    help="the seed's master (its job list and expected outputs)")
    ap.add_argument("--work", required=True, help="a directory for inputs, outputs and the log")
    ap.add_argument("--rounds", type=int, default=1, help="submit the seed's jobs this many times")
    ap.add_argument("--only", help="only the seed's jobs whose name contains this")
    ap.add_argument("--replicas", type=int, default=1, choices=(1, 2),
                    help="2: run each job on two different workers and compare outputs")
    ap.add_argument("--socket-jobs", metavar="HOST:PORT",
                    help="also run the raw count jobs with stdin and stdout on TCP "
                         "connections to this master, on ports from PORT up")
    ap.add_argument("--refused-endpoint", metavar="HOST:PORT",
                    help="also submit a job asking for this endpoint, which the owner does "
                         "not list: it must be held and never connect")
    opts = ap.parse_args()

    seed = load_seed(opts.seed_master)
    base = seed_jobs(seed, opts.jobs)
    if opts.only:
        base = [j for j in base if opts.only in j[0]]
    os.makedirs(opts.work, exist_ok=True)
    os.chdir(opts.work)
    log = os.path.abspath("jobs.log")
    if os.path.exists(log):
        os.unlink(log)
    with open(os.path.join(HERE, "job.sub")) as f:
        template = f.read()
    # The template's own "queue" line: the master queues with itemdata.
    template = "\n".join(l for l in template.splitlines() if l.strip() != "queue")
    submit = htcondor.Submit(template)

    placement = [None]
    if opts.replicas == 2:
        placement, distinct_machines = workers(htcondor.Collector(), 2)
        print(f"master: each job runs on {placement[0][1]} and on {placement[1][1]}"
              + ("" if distinct_machines else " (slots of one machine: a demonstration; "
                 "in a real pool they are different owners' machines)"))

    # Every job: (label, variables, expected (code, signal), expected output, server)
    planned = []
    servers = []

    def add(name, var, data, want, want_out, server=None, refusal=None):
        for replica, where in enumerate(placement):
            label = f"{len(planned):03d}-{slug(name)}" + (f"-r{replica}" if where else "")
            with open(label + ".in", "wb") as f:
                f.write(data if server is None else b"")
            item = dict(var, job_name=label, job_input=label + ".in")
            item.setdefault("job_fds", "")
            item["job_where"] = "true" if where is None else f'(TARGET.{where[0]} == "{where[1]}")'
            planned.append({"label": label, "name": name, "item": item, "want": want,
                            "want_out": want_out, "server": server, "refusal": refusal,
                            "base": name + f" #{len(planned) // len(placement)}",
                            "where": where})

    for r in range(opts.rounds):
        for name, var, data, want, want_out in base:
            add(name, var, data, want, want_out)
    if opts.socket_jobs:
        host, port = opts.socket_jobs.rsplit(":", 1)
        port = int(port)
        for name, var, data, want, want_out in base:
            if not name.startswith("count job"):
                continue
            server = SocketServer(host, port, port + 1, data)
            servers.append(server)
            var = dict(var, job_fds=f"0=tcp:{host}:{port} 1=tcp:{host}:{port + 1}")
            add(name + " over TCP", var, b"", want, want_out, server=server)
            port += 2
    if opts.refused_endpoint:
        host, port = opts.refused_endpoint.rsplit(":", 1)
        server = SocketServer(host, int(port), int(port) + 1, b"1000\n")
        servers.append(server)
        name, var, data, want, want_out = next(j for j in base if j[0].startswith("count job"))
        var = dict(var, job_fds=f"0=tcp:{host}:{port} 1=tcp:{host}:{int(port) + 1}")
        add(name + " to an endpoint the owner does not list", var, b"", (125, 0), b"",
            server=server, refusal="is not an endpoint")

    # job_where pins a replica to its worker; requirements keep the template's.
    submit["requirements"] = f"({submit['requirements']}) && $(job_where)"
    schedd = htcondor.Schedd()
    result = schedd.submit(submit, itemdata=iter([p["item"] for p in planned]))
    cluster = result.cluster()
    print(f"master: submitted {len(planned)} jobs as cluster {cluster}")
    sys.stdout.flush()

    # Wait on the event log until every job terminated or was held (held:
    # by the schedd or the submitter, e.g. an input that could not be sent).
    pending = set(range(len(planned)))
    held = {}
    deadline = time.monotonic() + BATCH_TIMEOUT
    jel = htcondor.JobEventLog(log)
    while pending and time.monotonic() < deadline:
        for event in jel.events(stop_after=2):
            if event.cluster != cluster:
                continue
            if event.type == htcondor.JobEventType.JOB_TERMINATED:
                pending.discard(event.proc)
            elif event.type == htcondor.JobEventType.JOB_HELD:
                held[event.proc] = event.get("HoldReason", "")
                pending.discard(event.proc)
    jel.close()
    if pending:
        print(f"master: {len(pending)} jobs did not end within {BATCH_TIMEOUT} s")

    # Held jobs stay in the queue: read their reason there, then remove them.
    if held:
        for ad in schedd.query(f"ClusterId == {cluster}", ["ProcId", "HoldReason"]):
            held[ad["ProcId"]] = ad.get("HoldReason", held.get(ad["ProcId"], ""))
        schedd.act(htcondor.JobAction.Remove, f"ClusterId == {cluster} && JobStatus == 5")
    # The ClassAds of the jobs that ended, from the history.
    ended = {}
    finished = len(planned) - len(pending) - len(held)
    for attempt in range(30):
        for ad in schedd.history(f"ClusterId == {cluster} && JobStatus == 4",
                                 ["ProcId", "ExitCode", "ExitBySignal", "ExitSignal",
                                  "LastRemoteHost"], match=len(planned)):
            ended[ad["ProcId"]] = ad
        if len(ended) >= finished:
            break
        time.sleep(1)
    for s in servers:
        s.close()

    bad = 0
    outputs = {}
    for proc, job in enumerate(planned):
        label = job["label"]
        if proc in held:
            print(f"master: {job['name']} [{label}]: held: {held[proc]} (NOT expected)")
            bad += 1
            continue
        ad = ended.get(proc)
        if ad is None:
            print(f"master: {job['name']} [{label}]: no record of its end (NOT expected)")
            bad += 1
            continue
        signal = ad.get("ExitSignal", 0) if ad.get("ExitBySignal") else 0
        code = ad.get("ExitCode", 0) if not ad.get("ExitBySignal") else 0
        if job["server"] is not None:
            out = job["server"].received
        else:
            with open(label + ".out", "rb") as f:
                out = f.read()
        outputs[proc] = out
        ok = (code, signal) == job["want"] and out == job["want_out"]
        note = ""
        if job["refusal"]:
            # Refused by the worker: its reason on stderr, and no connection made.
            with open(label + ".err") as f:
                err = f.read().strip()
            note = f"; {err}; {job['server'].connections} connections to the master"
            ok = ok and job["refusal"] in err and job["server"].connections == 0
        verdict = "as expected" if ok else \
            (f"expected exit_code {job['want'][0]} signal {job['want'][1]}"
             + ("" if out == job["want_out"] else f" and output {job['want_out']!r}, got {out!r}"))
        where = ad.get("LastRemoteHost", "?")
        print(f"master: {job['name']} [{label} on {where}]: exit_code {code} signal {signal} "
              f"({verdict}{note})")
        bad += not ok

    summary = f"master: {len(planned) - bad} of {len(planned)} jobs as expected"
    if opts.replicas == 2:
        # What a submitter who cannot compute the answer has: two workers'
        # outputs, which must be identical.
        disagree = 0
        for proc in range(0, len(planned), 2):
            a, b = planned[proc], planned[proc + 1]
            agree = proc in outputs and proc + 1 in outputs and outputs[proc] == outputs[proc + 1]
            print(f"master: integrity: {a['name']} [{a['label']}, {b['label']}]: outputs "
                  + ("agree" if agree else "DISAGREE: one of the two workers is wrong"))
            disagree += not agree
        summary += f"; {len(planned) // 2 - disagree} of {len(planned) // 2} pairs agree"
        bad += disagree
    print(summary)
    sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
