#!/usr/bin/env python3
"""Refreshes the help blocks of docs/cli.md from the built `halftone` program.

Each block sits between `<!-- help: ARGS -->` and `<!-- end help -->` and is replaced with the
output of `halftone ARGS` in a code fence. Usage: scripts/update-cli-doc.py [--check] [path/to/halftone]
(default build/release/app/halftone). With --check nothing is written; the exit status is 1 when a
block is out of date (test_cli's docsMatchTheProgram checks the same)."""
import pathlib
import re
import shlex
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
args = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
exe = args[0] if args else str(root / "build/release/app/halftone")
doc = root / "docs/cli.md"
text = doc.read_text()


def block(match):
    args = match.group(1).strip()
    out = subprocess.run([exe, *shlex.split(args)], capture_output=True, text=True, check=True).stdout
    return f"<!-- help: {args} -->\n```text\n$ halftone {args}\n{out.rstrip()}\n```\n<!-- end help -->"


new = re.sub(r"<!-- help: (.*?) -->.*?<!-- end help -->", block, text, flags=re.S)
if new != text and check:
    print(f"{doc} is out of date: run scripts/update-cli-doc.py")
    sys.exit(1)
elif new != text:
    doc.write_text(new)
    print(f"updated {doc}")
else:
    print(f"{doc} is up to date")
