"""The process ``parity trace`` starts: runs a Python program under the recorder, writes the trace.

    python -m harness.trace.run --out FILE [--capture I,J] [--command JSON] -- script.py [args]
    python -m harness.trace.run --out FILE -- -m package.module [args]

The program runs as ``__main__`` with its own ``sys.argv``; the trace is written when it ends,
also when it raises or calls ``sys.exit`` (the exit status is passed on).
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
from pathlib import Path


def capture_indices(text: str) -> list[int]:
    from harness.core.errors import ParityError

    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if not part.isdigit():
            raise ParityError(f"--capture takes op indices (whole numbers, comma-separated), not '{part}'")
        out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    from harness.core.errors import run_reporting_errors

    parser = argparse.ArgumentParser(prog="python -m harness.trace.run")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--capture", default="")
    parser.add_argument("--command", default="", help="the command line as the user gave it (JSON list)")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program

    def body() -> int:
        from harness.core.errors import ParityError

        if not program:
            raise ParityError("nothing to run: give a script (or -m module) after --")
        capture = capture_indices(args.capture)
        if getattr(sys.flags, "safe_path", False):  # a capture's re-run (3.11+), this harness first: -m's path
            sys.path.insert(0, os.getcwd())
        command = json.loads(args.command) if args.command else [sys.executable, *program]
        if program[0] == "-m":
            if len(program) < 2:
                raise ParityError("-m needs a module name")
            target, run = program[1], lambda: runpy.run_module(program[1], run_name="__main__", alter_sys=True)
            sys.argv = [program[1], *program[2:]]
        else:
            script = Path(program[0])
            if not script.is_file():
                raise ParityError(f"{script}: no such script")
            target = str(script)
            sys.argv = list(program)
            sys.path.insert(0, str(script.resolve().parent))
            run = lambda: runpy.run_path(target, run_name="__main__")
        from harness.formats.trace import MODE, thread_stretches
        from harness.trace.native import ASKED_FOR_MODE
        from harness.trace.recorder import tracing

        status = 0
        attrs = {"command": command, "cwd": os.getcwd(), "program": target}
        with tracing(args.out, capture, **attrs) as tracer:
            try:
                run()
            except SystemExit as exc:
                code = exc.code
                status = code if isinstance(code, int) else (0 if code is None else 1)
        if tracer.backend == MODE and tracer.backend_note != ASKED_FOR_MODE:
            note = f"parity trace: recorded through Python's dispatch mode (slower): {tracer.backend_note}"
            print(note, file=sys.stderr)
        print(f"wrote {args.out} ({len(tracer.ops)} ops, {args.out.stat().st_size / 2**20:.2f} MiB)", file=sys.stderr)
        if len(tracer.thread_counts) > 1:
            stretches = thread_stretches(tracer.thread_counts)
            print(f"parity trace: the program changed its intra-op thread count: {stretches}", file=sys.stderr)
        return status

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
