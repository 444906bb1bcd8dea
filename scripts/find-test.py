#!/usr/bin/env python3
"""The tests that exercise a system call, a signal or a CPU exception.

    scripts/find-test.py [--build DIR] NAME...

NAME is a call (`madvise`, `rt_sigreturn`), a signal (`SIGFPE`), an
exception by its mnemonic (`#UD`, `#GP`) or any word a test's name or
sources use.  Nothing is kept by hand: the answer is read from the build's
own test list (meson introspect) and the sources of the programs those
tests run, so it cannot go stale.  A test is listed when

- its name has NAME as one of its dash-separated words
  (`diff-memcalls64-madvise` for madvise), or
- a program it runs is built from a source under tests/ or examples/ that
  names NAME: as a word (`madvise(`, `SIGFPE`), as `SYS_NAME`/`__NR_NAME`,
  or for `#XX` as written in a comment or as `X86_TRAP_XX`.

The tests named after it are listed first, then, for each source that names
it (its first matching line), the tests that run what it is built into.  Exit status 1 when a NAME matched no test.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = re.compile(r"\.(c|S|s|h|rs|go|py)$")


def introspect(build, what):
    out = subprocess.run(["meson", "introspect", build, what], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"find-test: meson introspect {build} {what}: {out.stderr.strip() or 'failed'}"
                 " (configure the build first: scripts/build.sh)")
    return json.loads(out.stdout)


def pattern(name):
    if name.startswith("#"):
        word = re.escape(name[1:])
        return re.compile(r"#%s\b|\bX86_TRAP_%s(_LINUX)?\b" % (word, word))
    word = re.escape(name)
    return re.compile(r"(?<![A-Za-z0-9_])(SYS_|__NR_|__NR32_)?%s(?![A-Za-z0-9_])" % word)


def matching_sources(rx):
    """Source files under tests/ and examples/ naming it: path -> (line no, text)."""
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "tests", "examples"],
                           capture_output=True, text=True, check=True).stdout.split()
    found = {}
    for f in files:
        if not SOURCE.search(f):
            continue
        try:
            with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    if rx.search(line):
                        found[f] = (n, line.strip())
                        break
        except OSError:
            continue
    return found


def suite_of(test):
    return ", ".join(test["suite"]).replace("seccomp-emu:", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--expect", action="append", default=[], metavar="NAME=TEST",
                    help="fail unless TEST is among NAME's tests (the docs suite's check)")
    ap.add_argument("names", nargs="*", metavar="NAME")
    args = ap.parse_args()
    expect = [e.split("=", 1) for e in args.expect]
    args.names += [n for n, _ in expect if n not in args.names]
    if not args.names:
        ap.error("name a call, a signal or an exception")
    found = {}
    tests = introspect(args.build, "--tests")
    targets = introspect(args.build, "--targets")
    # Which built program each source goes into.
    built_from = {}
    for t in targets:
        for group in t.get("target_sources", []):
            for src in group.get("sources", []):
                rel = os.path.relpath(src, ROOT)
                built_from.setdefault(rel, set()).add(t["id"])
                for fn in t.get("filename", []):
                    built_from[rel].add(os.path.basename(fn))
    missing = 0
    for name in args.names:
        rx = pattern(name)
        word = name.lstrip("#").lower()
        by_name = [t for t in tests if word in t["name"].lower().split("-")]
        named = {t["name"] for t in by_name}
        # The tests that run a program built from a source naming it; where
        # some of a program's tests carry the word in their names, those
        # are the ones (its other cases are about something else).
        by_source = []
        for src, (n, text) in sorted(matching_sources(rx).items()):
            progs = built_from.get(src, set())
            runs = [t for t in tests
                    if progs & (set(t.get("depends", [])) | {os.path.basename(c) for c in t["cmd"]})]
            if any(t["name"] in named for t in runs):
                runs = [t for t in runs if t["name"] in named]
            if runs:
                by_source.append((f"{src}:{n}: {text[:90]}", runs))
        total = {t["name"] for t in by_name} | {t["name"] for _, runs in by_source for t in runs}
        print(f"{name}: {len(total)} test(s)")
        if by_name:
            shown = sorted(t["name"] for t in by_name)
            more = f" (+{len(shown) - 8} more)" if len(shown) > 8 else ""
            print(f"  named after it\n    {suite_of(by_name[0])}: {' '.join(shown[:8])}{more}")
        for where, runs in by_source:
            shown = sorted(t["name"] for t in runs)
            more = f" (+{len(shown) - 8} more)" if len(shown) > 8 else ""
            print(f"  {where}\n    {suite_of(runs[0])}: {' '.join(shown[:8])}{more}")
        missing += not total
        found[name] = total
    for name, test in expect:
        if test not in found[name]:
            print(f"find-test: {test} is not among the tests found for {name}", file=sys.stderr)
            missing += 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
