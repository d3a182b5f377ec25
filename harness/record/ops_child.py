"""Record the 26 ops in this process's pinned configuration and write an op fixture; with
``--random N``, seeded random cases of them and of the model ops (harness/record/model_ops.py).

Run as ``python -m harness.record.ops_child`` by ``parity generate``, which starts
it with the configuration's environment set (the libraries read it once, at load time).
It refuses to run when the environment or torch's reported capability does not match
the configuration it is asked to record.
"""

from __future__ import annotations

import sys

import numpy as np
import torch

from harness.core.bits import describe_first_mismatch
from harness.core.errors import ParityError, positive_int
from harness.core.op_ids import parse_op_list
from harness.formats.ops import CaseRecord, write_op_fixture
from harness.platform import provenance
from harness.platform.config import PlatformConfig, collect_facts
from harness.record.child import Progress, child_parser, progress_printer, run_child
from harness.record.model_ops import MODEL_OPS_BY_NAME
from harness.record.torch_ops import OPS_BY_NAME, Case, OpSpec
from harness.workloads.inputs import salted
from harness.workloads.random_cases import random_cases


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().contiguous().numpy().copy()


def _same_bits(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(describe_first_mismatch(a[k], b[k]) is None for k in a)


def _run_once(spec: OpSpec, params: dict, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    tensors = {name: torch.from_numpy(arr.copy()) for name, arr in inputs.items()}
    return {name: _to_numpy(t) for name, t in spec.run(params, tensors).items()}


def record_case(spec: OpSpec, case_name: str, params: dict) -> CaseRecord:
    """Run one case twice from the same inputs; keep the first run, note if they agree."""
    with salted(int(params.get("salt", 0))):
        inputs = spec.make_inputs(params)
    first = _run_once(spec, params, inputs)
    second = _run_once(spec, params, inputs)
    return CaseRecord(spec.name, case_name, dict(params), inputs, first, _same_bits(first, second), spec.call)


def record_ops(
    ops: list[OpSpec], progress: Progress | None = None, cases: dict[str, list[Case]] | None = None
) -> list[CaseRecord]:
    """Each op's fixed cases, or the cases ``cases`` gives it (random ones)."""
    records = []
    for i, spec in enumerate(ops):
        if progress:
            progress(i, len(ops), spec.name)
        chosen = spec.cases if cases is None else cases.get(spec.name, [])
        records.extend(record_case(spec, case.name, dict(case.params)) for case in chosen)
    if progress:
        progress(len(ops), len(ops), "done")
    return records


def _named_cases(cases: dict[str, list[Case]], names: list[str]) -> dict[str, list[Case]]:
    """Of a draw's cases (op -> cases), exactly those ``names`` ("op/case") give, in the draw's order."""
    drawn = {f"{op}/{case.name}" for op, chosen in cases.items() for case in chosen}
    foreign = [name for name in names if name not in drawn]
    if foreign:
        raise ParityError(f"--cases: {foreign[0]} is not a case of the draw of these ops")
    wanted = set(names)
    kept = {op: [c for c in chosen if f"{op}/{c.name}" in wanted] for op, chosen in cases.items()}
    return {op: chosen for op, chosen in kept.items() if chosen}


def main(argv: list[str] | None = None) -> int:
    parser = child_parser("python -m harness.record.ops_child")
    parser.add_argument("--ops", default="", help="comma-separated subset of ops")
    parser.add_argument("--random", type=positive_int, default=0, help="N seeded random cases per op group instead")
    parser.add_argument("--seed", type=int, default=1, help="the random cases' seed")
    parser.add_argument(
        "--cases", default="", help="with --random: only these cases of the draw, comma-separated op/case names"
    )
    args = parser.parse_args(argv)
    if args.cases and not args.random:
        parser.error("--cases names cases of a random draw: give --random and --seed too")

    def record(config: PlatformConfig) -> tuple[int, str, str]:
        known = {**OPS_BY_NAME, **MODEL_OPS_BY_NAME} if args.random else OPS_BY_NAME  # model ops: random only
        ops = [known[name] for name in parse_op_list(args.ops, tuple(known))]
        cases = random_cases(args.random, args.seed, [op.name for op in ops]) if args.random else None
        subset = [name for name in args.cases.split(",") if name]
        if cases is not None and subset:
            cases = _named_cases(cases, subset)
        ops = [op for op in ops if cases is None or op.name in cases]
        records = record_ops(ops, None if args.quiet else progress_printer(config.id, "ops"), cases)
        draw = {"per_group": args.random, "seed": args.seed, **({"cases": subset} if subset else {})}
        extra = {"random_cases": draw} if args.random else {}
        prov = provenance.collect(config, collect_facts(), ops_recorded=[op.name for op in ops], **extra)
        size = write_op_fixture(args.out, prov, records, force=args.force)
        nondet = [r.key for r in records if not r.deterministic]
        return (
            size,
            f"{len(records)} cases",
            f"not run-to-run deterministic: {', '.join(nondet)}" if nondet else "",
        )

    return run_child(args, record)


if __name__ == "__main__":
    sys.exit(main())
