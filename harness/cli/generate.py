"""``parity generate``: record this machine's fixtures, each configuration in a fresh pinned process."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from harness.core.digest import ALGORITHM, ALGORITHMS, LEGACY
from harness.core.errors import ParityError, positive_int
from harness.core.files import path_arg
from harness.core.op_ids import MODEL_OP_IDS, OP_IDS, parse_op_list
from harness.platform.config import collect_facts
from harness.platform.emulation import emulated_x86
from harness.platform.provenance import installed_torch_version
from harness.record.launch import RecordRequest, plan_configs, torch_missing, with_machine_blas
from harness.store.paths import DEFAULT_FIXTURES, fixture_path
from harness.store.pool import POOL_DIR, pool_files
from harness.workloads.random_cases import draw_problem


def add_generate_parser(sub: argparse._SubParsersAction) -> None:
    gen = sub.add_parser("generate", help="record this machine's op fixtures with the installed torch")
    gen.add_argument(
        "--isa",
        help="ISA level(s): baseline, avx2, avx512 (x86_64), neon (arm64), comma-separated, "
        "or 'all' (default: the highest this CPU runs)",
    )
    gen.add_argument("--threads", help="intra-op thread count(s), comma-separated (default: the CPU count)")
    gen.add_argument("--out", type=path_arg, default=DEFAULT_FIXTURES, help="fixture root (default: harness/fixtures)")
    gen.add_argument("--ops", default="", help="record only these ops, comma-separated")
    gen.add_argument(
        "--random",
        type=positive_int,
        default=0,
        help="record N seeded random cases per op group instead of the fixed cases, the model ops' groups "
        "included (harness/workloads/random_cases.py), into <id>.random-<seed>.h5",
    )
    gen.add_argument("--seed", type=int, default=1, help="the random cases' seed (with --random; default 1)")
    gen.add_argument("--nanogpt", action="store_true", help="record 50 nanoGPT training steps instead of the ops")
    gen.add_argument("--config", default="tiny", choices=("tiny", "shakespeare-char"), help="nanoGPT config")
    gen.add_argument(
        "--full-steps",
        help="nanoGPT steps stored with full tensors: comma-separated, 'all' or 'none' "
        "(default: the config's: tiny 1,50; shakespeare-char 1,2,25,50)",
    )
    gen.add_argument(
        "--init",
        choices=("full", "digest"),
        default="full",
        help="nanoGPT initial weights: in full (default) or as digests and sums only",
    )
    gen.add_argument(
        "--nanogpt-dir",
        type=path_arg,
        help="use GPT, GPTConfig from this nanoGPT checkout's model.py (implies --nanogpt)",
    )
    gen.add_argument(
        "--nanogpt-train",
        type=path_arg,
        help="run this nanoGPT checkout's own train.py, unchanged, for 50 iterations and record it "
        "(--config tiny: a small override set; shakespeare-char: its config/train_shakespeare_char.py)",
    )
    gen.add_argument(
        "--digest",
        choices=ALGORITHMS,
        help=f"a nanoGPT run's digest algorithm (default {ALGORITHM}; {LEGACY} for digests comparable with "
        "fixtures written before it)",
    )
    gen.add_argument(
        "--emulate",
        metavar="x86:MODEL",
        help="record under QEMU user-mode emulation as this QEMU x86 CPU model (qemu-x86_64 -cpu MODEL, e.g. "
        "x86:Haswell-v4 for MKL's Intel AVX2 path), with this host's Python and torch; the fixture is named "
        "after the BLAS code path MKL runs there",
    )
    gen.add_argument("--force", action="store_true", help="overwrite existing fixtures")
    gen.add_argument("--quiet", action="store_true", help="no progress output")
    gen.set_defaults(func=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> int:
    torch_version = installed_torch_version()
    if not torch_version:
        raise ParityError(torch_missing("", "or use tox -e regen"))
    nanogpt = args.nanogpt or args.nanogpt_dir is not None or args.nanogpt_train is not None
    if nanogpt and args.ops:
        raise ParityError("--ops selects ops; it does not go with --nanogpt")
    if args.digest and not nanogpt:
        raise ParityError("--digest names a nanoGPT run's digest algorithm; op fixtures store their tensors whole")
    if args.nanogpt_train is not None:
        _check_nanogpt_train(args)
    if args.nanogpt_dir is not None and not (args.nanogpt_dir / "model.py").is_file():
        raise ParityError(f"{args.nanogpt_dir}: no model.py here (expected a checkout of nanoGPT)")
    if args.random and nanogpt:
        raise ParityError("--random records op cases; it does not go with --nanogpt")
    problem = draw_problem(args.random, args.seed) if args.random else ""
    if problem:
        raise ParityError(problem)
    parse_op_list(args.ops, (*OP_IDS, *MODEL_OP_IDS) if args.random else OP_IDS)  # unknown ops fail here
    request = RecordRequest(
        nanogpt=args.config if nanogpt else "", ops=args.ops, full_steps=args.full_steps, init=args.init,
        nanogpt_dir=args.nanogpt_dir, nanogpt_train=args.nanogpt_train, digest=args.digest or "",
        force=args.force, quiet=args.quiet, random=args.random, seed=args.seed,
    )  # fmt: skip
    with emulated_x86(args.emulate) if args.emulate else contextlib.nullcontext() as emulation:
        facts = emulation.facts if emulation else collect_facts()
        try:
            planned = plan_configs(facts, args.isa, args.threads)
        except ParityError as err:  # a level the emulated CPU lacks
            raise ParityError(f"emulated {emulation.model}: {err}" if emulation else str(err)) from None
        configs = with_machine_blas(planned, emulation)
        suffix = f"upstream-{request.nanogpt}" if args.nanogpt_train else request.nanogpt
        targets = [(cfg, fixture_path(args.out, torch_version, cfg, suffix)) for cfg in configs]
        if args.random:
            targets = [(cfg, path.with_name(f"{cfg.id}.random-{args.seed}.h5")) for cfg, path in targets]
        existing = [str(path) for _, path in targets if path.exists()]
        if existing and not args.force:
            raise ParityError(f"already exists, pass --force to overwrite: {', '.join(existing)}")
        pool = args.out / POOL_DIR
        for cfg, path in targets:
            before = _pool_sizes(pool)
            rc = request.run(cfg, path, launcher=emulation).returncode
            if rc != 0:
                return rc
            if not args.quiet:
                print(_pool_line(path, before, _pool_sizes(pool)))
    return 0


def _pool_sizes(pool: Path) -> dict[str, int]:
    """The store's pool files by name, with their sizes."""
    return {p.name: p.stat().st_size for p in pool_files(pool)}


def _pool_line(path: Path, before: dict[str, int], after: dict[str, int]) -> str:
    """What recording ``path`` added to the pool (a release whose bits did not move adds nothing)."""
    new = sorted(set(after) - set(before))
    if not new:
        return f"{path.name}: added nothing to the pool (every tensor it holds was there already)"
    size = sum(after[n] for n in new)
    return f"{path.name}: added {len(new)} pool file{'s' if len(new) > 1 else ''}, {size:,} bytes ({', '.join(new)})"


def _check_nanogpt_train(args: argparse.Namespace) -> None:
    """--nanogpt-train: a checkout with train.py, alone (its settings are the config's own)."""
    if args.nanogpt_dir is not None:
        raise ParityError("--nanogpt-train runs the checkout's own model.py; it does not go with --nanogpt-dir")
    if args.full_steps or args.init != "full":
        raise ParityError("--full-steps and --init are set by the upstream config with --nanogpt-train")
    missing = [f for f in ("train.py", "model.py", "configurator.py") if not (args.nanogpt_train / f).is_file()]
    if missing:
        raise ParityError(f"{args.nanogpt_train}: no {', '.join(missing)} here (expected a checkout of nanoGPT)")
