"""Record the 26 ops in this process's pinned configuration and write an op fixture.

Run as ``python -m harness.generators.record_ops`` by ``parity generate``, which starts
it with the configuration's environment set (the libraries read it once, at load time).
It refuses to run when the environment or torch's reported capability does not match
the configuration it is asked to record.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from harness import provenance
from harness.bits import describe_first_mismatch
from harness.errors import ParityError
from harness.generators.ops import OPS_BY_NAME, OpSpec
from harness.op_fixture import CaseRecord, write_op_fixture
from harness.op_ids import parse_op_list
from harness.platform_config import PlatformConfig, collect_facts, config_problems

Progress = Callable[[int, int, str], None]


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().contiguous().numpy().copy()


def _same_bits(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(describe_first_mismatch(a[k], b[k]) is None for k in a)


def _run_once(spec: OpSpec, params: dict, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    tensors = {name: torch.from_numpy(arr.copy()) for name, arr in inputs.items()}
    return {name: _to_numpy(t) for name, t in spec.run(params, tensors).items()}


def record_case(spec: OpSpec, case_name: str, params: dict) -> CaseRecord:
    """Run one case twice from the same inputs; keep the first run, note if they agree."""
    inputs = spec.make_inputs(params)
    first = _run_once(spec, params, inputs)
    second = _run_once(spec, params, inputs)
    return CaseRecord(spec.name, case_name, dict(params), inputs, first, _same_bits(first, second), spec.call)


def record_ops(ops: list[OpSpec], progress: Progress | None = None) -> list[CaseRecord]:
    records = []
    for i, spec in enumerate(ops):
        if progress:
            progress(i, len(ops), spec.name)
        records.extend(record_case(spec, case.name, dict(case.params)) for case in spec.cases)
    if progress:
        progress(len(ops), len(ops), "done")
    return records


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


def _progress_printer(label: str) -> Progress:
    tty = sys.stderr.isatty()
    start = time.perf_counter()

    def show(done: int, total: int, name: str) -> None:
        line = f"[{label}] {done:2d}/{total} ops  {name:<16} {time.perf_counter() - start:6.1f}s"
        if tty:
            print("\r" + line, end="\n" if done == total else "", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    return show


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.generators.record_ops")
    parser.add_argument("--platform-id", required=True)
    parser.add_argument("--out", type=Path, required=True, help="fixture file to write")
    parser.add_argument("--ops", default="", help="comma-separated subset of ops")
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    from harness.cli import run_reporting_errors
    from harness.platform_config import parse_platform_id

    def body() -> int:
        config = parse_platform_id(args.platform_id)
        check_process_matches(config)
        ops = [OPS_BY_NAME[name] for name in parse_op_list(args.ops)]
        progress = None if args.quiet else _progress_printer(config.id)
        records = record_ops(ops, progress)
        facts = collect_facts()
        prov = provenance.collect(config, facts, ops_recorded=[op.name for op in ops])
        size = write_op_fixture(args.out, prov, records, force=args.force)
        nondet = [r.key for r in records if not r.deterministic]
        print(
            f"wrote {args.out} ({len(records)} cases, {size / 2**20:.2f} MiB of distinct tensors, "
            f"{args.out.stat().st_size / 2**20:.2f} MiB on disk)"
            + (f"; not run-to-run deterministic: {', '.join(nondet)}" if nondet else ""),
            file=sys.stderr,
        )
        return 0

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
