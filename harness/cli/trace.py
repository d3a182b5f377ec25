"""``parity trace`` and ``parity diff`` on two traces (the diff dispatches here on file kind)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from harness.cli.common import add_output, check_output, deliver
from harness.core.errors import ParityError
from harness.core.files import path_arg


def add_trace_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace",
        help="record every ATen op of a Python program (forward, backward, optimizer) into a trace",
        description="Run a Python program and record every ATen op it dispatches, in order.",
    )
    p.add_argument("--out", type=path_arg, required=True, help="the trace file to write (replaced if present)")
    p.add_argument("--capture", default="", help="op indices whose tensors are kept in full, comma-separated")
    p.add_argument(
        "--platform",
        help="run under this platform configuration (e.g. linux-x86_64-baseline-t1): its ISA level and threads",
    )
    p.add_argument(
        "--emulate",
        default="",
        help="x86:MODEL: run under qemu-x86_64 as that QEMU CPU model (e.g. x86:Haswell-v4, MKL's Intel AVX2 path), "
        "with --platform's level and threads where given",
    )
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- python script.py [args] (or -- -m module [args])")
    p.set_defaults(func=cmd_trace)


def cmd_trace(args: argparse.Namespace) -> int:
    from harness.trace.run import capture_indices

    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        raise ParityError(
            "nothing to trace: give the program after --, e.g. parity trace --out t.h5 -- python train.py"
        )
    capture = capture_indices(args.capture)
    if not args.emulate:
        return _traced(args, program, capture, None)
    from harness.platform.emulation import emulated_x86

    with emulated_x86(args.emulate) as launcher:
        return _traced(args, program, capture, launcher)


def _traced(args: argparse.Namespace, program: list[str], capture: list[int], launcher) -> int:
    """``parity trace``'s child: on this machine, or under ``launcher`` (an ``EmulatedX86``) as its CPU."""
    from harness.trace.cause import trace_argv

    env = dict(os.environ)
    if args.platform:
        from harness.platform.config import child_env, collect_facts, parse_platform_id, resolve_level

        config = parse_platform_id(args.platform)
        facts = collect_facts() if launcher is None else launcher.facts
        machine = "this machine" if launcher is None else f"the emulated {launcher.model}"
        if (config.os, config.arch) != (facts.os, facts.arch):
            raise ParityError(f"{machine} is {facts.os}-{facts.arch}; it cannot run {args.platform}")
        try:
            resolve_level(facts, config.isa)
        except ParityError as err:
            raise ParityError(f"{machine}: {err}" if launcher is not None else str(err)) from None
        env = child_env(config)
    argv = trace_argv(program, args.out, capture)
    _check_interpreter(argv[0], env)
    if launcher is not None:
        argv, env = launcher.command(argv), launcher.wrap(env)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.run(argv, env=env).returncode


def _check_interpreter(exe: str, env: dict[str, str]) -> None:
    """A one-line error where the program's Python cannot run the tracer (it lacks this package)."""
    import shutil

    path = shutil.which(exe, path=env.get("PATH"))
    if path is None:
        raise ParityError(f"{exe}: no such Python interpreter")
    if Path(path).resolve() == Path(sys.executable).resolve():
        return
    probe = f"import importlib.util as u; print(' '.join(m for m in {_TRACER_NEEDS!r} if u.find_spec(m) is None))"
    proc = subprocess.run([path, "-c", probe], env=env, capture_output=True, text=True, check=False)
    missing = proc.stdout.split() if proc.returncode == 0 else [_TRACER_NEEDS[0]]
    if _TRACER_NEEDS[0] in missing:
        raise ParityError(
            f"{exe} ({path}) does not have parity-harness installed, so it cannot run the tracer: install it "
            f"there, or name this one ({sys.executable}), or give the script alone (-- train.py ...)"
        )
    if missing:  # the package found (from the working directory, say) without what it imports
        raise ParityError(
            f"{exe} ({path}) cannot run the tracer: it lacks {', '.join(missing)}; install them there, or name "
            f"this one ({sys.executable}), or give the script alone (-- train.py ...)"
        )


# what the tracer's process imports: this package's module first, then what it needs
_TRACER_NEEDS = ("harness.trace.run", "torch", "numpy", "h5py")


def cmd_trace_diff(args: argparse.Namespace) -> int:
    from harness.formats.trace import read_trace
    from harness.trace.cause import diagnose
    from harness.trace.report import render

    check_output(args)
    diff = diagnose(read_trace(args.a), read_trace(args.b), args.target, args.verify_cause)
    deliver(args, lambda fmt: render(diff, fmt))
    return 0 if diff.bit_identical else 1


def add_audit_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit",
        help="replay every op of a trace that the reference implementation knows, under the trace's own profile",
        description="Run a trace's program again, keep the ops the impl replays in full, and replay each under the "
        "traced run's profile: exact (the traced bits), other (the impl is wrong without refusing), or refused "
        "(the impl's stated bound). Exit status 1 when any op gave other bits.",
    )
    p.add_argument("trace", type=path_arg, help="a trace written by parity trace")
    p.add_argument(
        "--per-op",
        type=_count,
        default=20,
        help="replay the first N ops of each ATen op, in trace order (default 20; 0: every one)",
    )
    p.add_argument("--ops", default="", help="only these ATen ops, comma-separated (e.g. native_layer_norm,mm)")
    add_output(p)
    p.set_defaults(func=cmd_audit)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a count of ops: {text!r} (a whole number, 0 for every op)")
    return int(text)


def cmd_audit(args: argparse.Namespace) -> int:
    from harness.formats.trace import read_trace
    from harness.trace.audit import audit, render

    check_output(args)
    only = frozenset(name.strip() for name in args.ops.split(",") if name.strip())
    result = audit(read_trace(args.trace), args.per_op, only, lambda line: print(line, file=sys.stderr))
    deliver(args, lambda fmt: render(result, fmt))
    return 0 if result.reproduced else 1
