"""What every recording process shares: the configuration check and progress lines."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from harness.core.errors import ParityError
from harness.platform.config import PlatformConfig, config_problems, parse_platform_id
from harness.platform.provenance import running_blas_tag

Progress = Callable[[int, int, str], None]


def check_process_matches(config: PlatformConfig) -> None:
    """Refuse to record when this process does not run the configuration it would be named after."""
    problems = config_problems(config)
    if problems:
        raise ParityError(
            f"environment does not pin {config.id}: {'; '.join(problems)} (run through 'parity generate')"
        )
    capability = torch.backends.cpu.get_cpu_capability()
    if capability != config.level.aten_capability:
        raise ParityError(
            f"torch runs capability {capability}, not {config.level.aten_capability} as {config.id} needs"
        )
    torch.set_num_threads(config.threads)
    if torch.get_num_threads() != config.threads:
        raise ParityError(f"torch uses {torch.get_num_threads()} threads, not {config.threads}")
    if config.blas:
        blas = running_blas_tag()
        if blas != config.blas:
            raise ParityError(f"this process runs the BLAS code path {blas}, not {config.blas} as {config.id} names")


# VML functions ATen calls (vml.h's MKL stubs reached by the recorded ops: exp, log, tanh, sqrt)
_VML_WARM = (torch.exp, torch.log, torch.tanh, torch.sqrt)
# 65 x 64 (below ATen's grain: MKL cuts it between its own threads), then above the grain (each ATen
# thread calls VML on its part)
_VML_WARM_SIZES = (65 * 64, 1 << 17)


def warm_vml() -> None:
    """One call of each VML function on every thread before anything is recorded. The first VML call
    of a process that runs on two threads can take another code path's kernel on the second thread
    (measured on an Intel Xeon, MKL 2024.2: torch.exp of 3,863 elements on 2 threads gave the second
    half another kernel's bits in 5 of 30 fresh processes, and a random-case recording caught it in 1
    of 6 runs; after one VML call, 0 of 78 processes and 0 of 8 recordings: docs/emulation.md), so a
    recording would depend on that race."""
    for size in _VML_WARM_SIZES:
        x = torch.ones(size)
        for f in _VML_WARM:
            f(x)


def progress_printer(label: str, unit: str) -> Progress:
    tty = sys.stderr.isatty()
    start = time.perf_counter()

    def show(done: int, total: int, name: str) -> None:
        line = f"[{label}] {done:2d}/{total} {unit}  {name:<16} {time.perf_counter() - start:6.1f}s"
        if tty:
            print("\r" + line, end="\n" if done == total else "", file=sys.stderr, flush=True)
        elif done == total or done % max(1, total // 10) == 0:  # logs: about ten lines a run
            print(line, file=sys.stderr, flush=True)

    return show


def child_parser(prog: str) -> argparse.ArgumentParser:
    """The arguments every recording process takes from ``parity generate``."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--platform-id", required=True)
    parser.add_argument("--out", type=Path, required=True, help="fixture file to write")
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--live", action="store_true", help="a live run for check, whose file goes when it ends")
    return parser


Recording = Callable[[PlatformConfig], tuple[int, str, str]]


def run_child(args: argparse.Namespace, record: Recording) -> int:
    """Check the configuration, warm VML, run ``record`` (bytes written, what, warning), report one line."""
    from harness.core.errors import run_reporting_errors

    def body() -> int:
        config = parse_platform_id(args.platform_id)
        check_process_matches(config)
        warm_vml()
        size, what, warning = record(config)
        done = "recorded the live run" if args.live else f"wrote {args.out}"  # a live run's file is temporary
        print(
            f"{done} ({what}, {size / 2**20:.2f} MiB of distinct tensors, "
            f"{args.out.stat().st_size / 2**20:.2f} MiB on disk)" + (f"; {warning}" if warning else ""),
            file=sys.stderr,
        )
        return 0

    return run_reporting_errors(body)
