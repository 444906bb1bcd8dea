#!/usr/bin/env python3
"""Every file of the tree that the documents and comments name exists.

    check_paths.py SOURCE-ROOT

Files move when layers do; a document that still names the old place sends
the reader hunting.  This reads every file git tracks (prose, sources,
scripts, build files; of the vendored engine only our README of it) and
checks two kinds of name:

- a path below one of the top folders (`emu/entry/trap.c`, `tests/signals/`):
  it must exist (from the top, or from the naming file's folder), or be a
  program of a folder meson builds programs in
  (`tests/hostcaps`, `examples/hello_strict64`: no extension), or be
  something git ignores (a fetched input);
- in docs/*.md and README.md, a bare source name in backticks (`` `mem.c` ``):
  some file of that name must exist somewhere in the tree.

And the other way round: every source of emu/, abi/ and loaders/ is named in
docs/internals.md's layout (by its name or a pattern such as `sys_*.c`), so
a new file gets its line where a reader looks for it.

A glob (`emu/kernel/sigframe_*.c`) must match something.  Paths in CAPITALS
(`BUILD/...`, `TARGET/`), brace lists and prefixes (`abi/names_`) are
patterns, not names; paths after `build/` are build products.
"""
import fnmatch
import glob
import os
import re
import subprocess
import sys

TOP = "emu|abi|loaders|tools|tests|scripts|bench|examples|grid|docs|build-aux"
# Preceded by nothing path-like: so `build/tools/x`, `seccomp-emu/QEMU` and
# `$HOME/tests` are not read as paths of this tree.
PATH = re.compile(r"(?<![A-Za-z0-9_./~$-])((?:%s)/[A-Za-z0-9_.*{}/-]*[A-Za-z0-9_*}/])" % TOP)
BARE = re.compile(r"`([A-Za-z0-9_-]+\.(?:c|h|py|sh))`")
TEXT = re.compile(r"\.(md|c|h|py|sh|build|txt|1|ld|S)$|(^|/)run$")
# Names that look like ours and are not: the kernel's tree (selftests), and
# the ratio columns of the benchmark tables ("emu/native", "emu/QEMU").
NOT_OURS = re.compile(r"^tools/testing/|^emu/(native|QEMU)$")


def built_here(root, path):
    """A program (no extension) named in a folder of programs that meson
    builds: tests/hostcaps, examples/hello_strict64, tools/vm_init."""
    d, name = os.path.split(path.rstrip("/"))
    return ("." not in name and d.split("/")[0] in ("examples", "tests", "tools", "bench")
            and os.path.isfile(os.path.join(root, d, "meson.build")))


def ignored(root, path):
    return any(subprocess.run(["git", "-C", root, "check-ignore", "-q", q]).returncode == 0
               for q in (path, path.rstrip("/") + "/"))


def main():
    root = sys.argv[1]
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split("\n")
    basenames = {os.path.basename(f) for f in files if f}
    problems = []
    for f in files:
        if not f or not TEXT.search(f) or \
                (f.startswith("subprojects/") and f != "subprojects/unicorn/README.seccomp-emu.md"):
            continue
        try:
            with open(os.path.join(root, f), encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        prose = f.endswith(".md") and (f.startswith("docs/") or f == "README.md")
        for n, line in enumerate(lines, 1):
            for m in PATH.finditer(line):
                p = m.group(1).rstrip(".")
                if re.search(r"[{}]|[A-Z]{3,}|_$", p) or NOT_OURS.search(p):
                    continue
                if "*" in p:
                    if not glob.glob(os.path.join(root, p)):
                        problems.append(f"{f}:{n}: names {p}, which matches nothing in the tree")
                    continue
                if os.path.exists(os.path.join(root, p)) or built_here(root, p) \
                        or ignored(root, p) or os.path.exists(os.path.join(root, os.path.dirname(f), p)):
                    continue
                problems.append(f"{f}:{n}: names {p}, which is not in the tree")
            if prose:
                for m in BARE.finditer(line):
                    if m.group(1) not in basenames:
                        problems.append(f"{f}:{n}: names `{m.group(1)}`, which no file of the tree is")
    layout = open(os.path.join(root, "docs", "internals.md"), encoding="utf-8").read()
    named = set(re.findall(r"`([A-Za-z0-9_*./-]+\.c)`", layout))
    for f in files:
        if re.match(r"(emu|abi|loaders)/.*\.c$", f) and f not in named and \
                not any(fnmatch.fnmatch(os.path.basename(f), n) for n in named):
            problems.append(f"docs/internals.md: the layout does not name {f}")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} stale name(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
