#!/usr/bin/env python3
"""A manual page renders without a warning and documents every option the
program's --help-all lists.

    check_man.py PAGE PROGRAM [HELP-OPTION]
"""
import os
import re
import subprocess
import sys


def main():
    page, program = sys.argv[1], sys.argv[2]
    help_option = sys.argv[3] if len(sys.argv) > 3 else "--help-all"
    env = dict(os.environ, LC_ALL="C.UTF-8")
    render = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                            capture_output=True, text=True, env=env)
    problems = []
    if render.returncode != 0 or render.stderr.strip():
        problems.append(f"groff -ww: {render.stderr.strip() or 'status %d' % render.returncode}")
    text = subprocess.run(["groff", "-man", "-Tascii", "-P", "-cbou", page],
                          capture_output=True, text=True, env=env, check=True).stdout
    helped = subprocess.run([program, help_option], capture_output=True, text=True).stdout
    options = sorted(set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", helped, re.M)))
    options = [o for o in options if not o.startswith("--help")]
    if not options:
        problems.append(f"{program} {help_option} listed no options")
    for option in options:
        if option not in text:
            problems.append(f"{option} (in {help_option}) is not in the page")
    for problem in problems:
        print(f"{page}: {problem}")
    print(f"{page}: {len(options)} options checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
