"""Run the impl over op fixtures and print, per output, bit-identical or how far off.

python -m harness.replay.check exp log            # against the committed fixtures (x86_64 and arm64)
python -m harness.replay.check --fixture F.h5 sum
python -m harness.replay.check --fixture F.nanogpt-tiny.h5   # a nanoGPT fixture (ops do not apply)
python -m harness.replay.check --write-gaps       # measure everything, rewrite known_gaps.json
python -m harness.replay.check --torch 2.12.1 --nanogpt   # the committed fixtures of another release

Each fixture is replayed under its own profile, thread count and torch release (its torch_version).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.compare.fixtures import compare_output, qemu_x86_nan_pick
from harness.core.errors import ParityError
from harness.core.op_ids import MODEL_OP_IDS, OP_IDS, parse_op_list
from harness.core.ulp import describe
from harness.formats.ops import read_op_fixture
from harness.impl.known_gaps import GAPS_FILE, Gap, KnownGaps, load_gaps, save_gaps
from harness.impl.profiles import (
    IMPL_TORCH,
    MODELLED_BLAS,
    KernelProfile,
    get_profile,
    profile_for_platform,
    replayed_blas,
    rsqrt_estimate_of,
)
from harness.platform.config import parse_platform_id
from harness.replay.ops import impl_op_fixture, missing_reason
from harness.store.paths import DEFAULT_FIXTURES

IMPL_ARCHES = ("arm64", "x86_64")
# MKL's Intel code paths of committed x86 fixtures (recorded under emulation, docs/emulation.md), which
# the impl does not model whole: their sgemm is modelled (profile_for_platform gives the profile), and
# the AVX2 path's VML exp and log; the rest of their VML and the sgemm shapes not measured there are
# not (PARTLY_MODELLED_BLAS), those computing the generic path's, so that every output of ATen's own
# kernels is held bit-exact and each output MKL's Intel kernels make otherwise is a known gap with its
# measured ULP. A path listed here and not there would be checked
# under its ISA level's profile with the generic path standing in (check_profile).
UNMODELLED_BLAS = {
    "mklsse42": "MKL's Intel SSE4.2 path",
    "mklavx2": "MKL's Intel AVX2 path",
    "mklavx512": "MKL's Intel AVX-512 path",
}
PARTLY_MODELLED_BLAS = {
    "mklsse42": (
        "sgemm modelled on 1 and 2 threads (csrc/mkl_sgemm.h mkl_sse42_sgemm, mkl_sse42_run; other thread "
        "counts run the one-thread model) where measured, and VML's sqrt as it refines QEMU's exact RSQRTPS "
        "(csrc/optim.c vml_sqrt); the rest of its VML and the other sgemm shapes are not"
    ),
    "mklavx2": (
        "sgemm modelled on 1, 2 and 4 threads (csrc/mkl_sgemm.h mkl_avx2_sgemm, mkl_avx2_run, mkl_avx2_dot) "
        "except the shapes its rules miss; VML's exp and log modelled (csrc/vmath.h mkl_avx2_vml_expf_main, "
        "mkl_avx2_vml_logf_normal), and its sqrt as it refines QEMU's exact RSQRTPS (csrc/optim.c vml_sqrt)"
    ),
    "mklavx512": (
        "sgemm and gemv on 1 thread and at::bmm's items modelled where measured on an Intel Xeon (csrc/mkl_sgemm.h "
        "mkl_avx512_sgemm, mkl_avx512_gemv_any), and VML's exp, log and tanh (csrc/vmath.h mkl_avx512_vml_*) and "
        "sqrt (csrc/optim.c vml_sqrt_z0, from VRSQRT14PS), and on 2 threads where measured (mkl_avx512_two_threads); "
        "A and B both transposed with M < 8, the rest of 2 threads and more threads are not"
    ),
}


def check_profile(platform_id: str, torch: str = IMPL_TORCH) -> KernelProfile:
    """The profile a committed fixture is checked under: its own (``profile_for_platform``); for an
    x86 fixture of an MKL Intel path the impl does not model (or one under MKL_CBWR, whose kernels are
    MKL's vendor-independent ones), its ISA level's with MKL's generic path."""
    config = parse_platform_id(platform_id)
    config = config.with_blas(replayed_blas(config.blas))
    partly = config.blas in PARTLY_MODELLED_BLAS and not config.mkl_cbwr  # under MKL_CBWR: MKL's own kernels
    if config.arch == "x86_64" and config.blas in UNMODELLED_BLAS and not partly:
        return profile_for_platform(config.with_blas(MODELLED_BLAS).id, torch)
    return profile_for_platform(platform_id, torch)


def fixture_check_profile(attrs) -> KernelProfile:
    """``check_profile`` of a fixture on the CPU that recorded it (its RSQRTPS estimate, from its
    provenance: ``rsqrt_estimate_of``)."""
    profile = check_profile(str(attrs["platform_id"]), str(attrs["torch_version"]))
    return profile.with_rsqrt_estimate(rsqrt_estimate_of(attrs))


def unmodelled_note(platform_id: str) -> str:
    """Why an output of ``platform_id`` may differ from the impl's by design ("" where none may)."""
    blas = replayed_blas(parse_platform_id(platform_id).blas)
    if blas not in UNMODELLED_BLAS:
        return ""
    generic = f"MKL's generic path ({MODELLED_BLAS}) as AMD's CPUs run it"
    if blas in PARTLY_MODELLED_BLAS:
        part = PARTLY_MODELLED_BLAS[blas]
        return f"{UNMODELLED_BLAS[blas]} ({blas}), not modelled whole: {part}; those compute {generic}"
    return f"{UNMODELLED_BLAS[blas]} ({blas}), not modelled: the impl computes {generic}"


def unverified_profiles() -> dict[str, str]:
    """The kernel profiles no committed fixture stands behind (written from the sources only); a
    fixture of a path the impl does not model (``UNMODELLED_BLAS``) stands behind none."""
    from harness.impl.profiles import PROFILES

    verified = {
        profile_for_platform(p.name.split(".")[0]).name
        for p in committed_impl_fixtures()
        if not unmodelled_note(p.name.split(".")[0])
    }
    why = f"no torch {IMPL_TORCH} fixture of such a machine is committed; written from the sources"
    return {name: why for name in PROFILES if name not in verified}


def committed_impl_fixtures(torch: str = IMPL_TORCH) -> list[Path]:
    """The committed op fixtures of torch release ``torch`` on the platforms the impl has
    profiles for (Linux x86_64 and arm64), with the committed random cases
    (``<id>.random-<seed>.h5``, harness/workloads/random_cases.py) and the sets recorded under
    MKL_CBWR=COMPATIBLE (``<id>-cbwr-compatible.h5``), in a stable order."""
    root = DEFAULT_FIXTURES / f"torch-{torch}"
    patterns = ("linux-{}-*-t[0-9].h5", "linux-{}-*-t[0-9].random-*.h5", "linux-{}-*-t[0-9]-cbwr-compatible.h5")
    return sorted(p for arch in IMPL_ARCHES for pattern in patterns for p in root.glob(pattern.format(arch)))


def committed_impl_nanogpt_fixtures(config: str, torch: str = IMPL_TORCH) -> list[Path]:
    """The committed nanoGPT fixtures of one training configuration on those platforms."""
    root = DEFAULT_FIXTURES / f"torch-{torch}"
    return sorted(p for arch in IMPL_ARCHES for p in root.glob(f"linux-{arch}-*-t[0-9].nanogpt-{config}.h5"))


def measure(path: Path, ops: list[str]) -> tuple[list[Gap], list[str]]:
    """(the gaps of the impl against one fixture, a line per output checked)."""
    expected = read_op_fixture(path, ops=ops)
    platform = str(expected.attrs["platform_id"])
    impl, missing = impl_op_fixture(expected, fixture_check_profile(expected.attrs))
    note = unmodelled_note(platform)
    nan_pick = qemu_x86_nan_pick(expected.provenance, impl.provenance)
    gaps, lines = [], []
    for key, rec in expected.cases.items():
        got = impl.cases.get(key)
        for name, want in rec.outputs.items():
            where = f"{platform} {key}"
            if got is None or name not in got.outputs:
                why = missing_reason(missing, key, rec.op)
                gaps.append(Gap(platform, rec.op, rec.case, name, None, int(want.size), int(want.size), why))
                lines.append(f"{where} MISSING {name}: {why}")
                continue
            c = compare_output(name, want, got.outputs[name], nan_pick)
            lines.append(f"{where} {'EXACT' if c.bit_identical else 'DIFF '} {describe(c)}")
            if not c.bit_identical:
                differ = c.count - c.identical - c.set_apart
                gaps.append(Gap(platform, rec.op, rec.case, name, c.max_ulp, differ, c.count, note))
    return gaps, lines


def nanogpt_gap_step(gap: Gap) -> int:
    """The first diverging step a nanoGPT gap records."""
    return int(gap.case.removeprefix("step"))


def measure_nanogpt(path: Path, profile: KernelProfile | None = None) -> tuple[list[Gap], list[str]]:
    """(the impl's gap against one nanoGPT fixture, if any; a line saying how it went), under the
    fixture's own profile and thread count (``check_profile``: MKL's generic path standing in for
    an Intel path the impl does not model) unless ``profile`` is given."""
    from harness.compare.fixtures import diff_nanogpt
    from harness.formats.nanogpt import read_nanogpt_fixture
    from harness.replay.nanogpt import impl_nanogpt_fixture

    expected = read_nanogpt_fixture(path)
    platform, name = str(expected.attrs["platform_id"]), f"nanogpt-{expected.config['name']}"
    profile = profile or fixture_check_profile(expected.attrs)
    diff = diff_nanogpt(expected, impl_nanogpt_fixture(expected, profile))
    steps = len(diff.steps)
    if diff.first is None:
        return [], [f"{platform} {name} EXACT {steps} of {steps} steps bit-identical"]
    first = diff.first
    differing = steps - diff.identical_steps
    worst = max(s.loss_ulp for s in diff.steps)
    why = f"first divergence at step {first.step}, {first.stage}: {first.detail}"
    note = unmodelled_note(platform)  # an Intel path's: why first
    why_all = f"{note}; {why}" if note else why
    gap = Gap(platform, name, f"step{first.step:02d}", first.tensor, worst, differing, steps, why_all)
    return [gap], [f"{platform} {name} DIFF  {why}; {differing} of {steps} steps differ"]


def measure_fixture(path: Path, ops: list[str]) -> tuple[list[Gap], list[str]]:
    """``measure`` for an op fixture, ``measure_nanogpt`` for a nanoGPT one (``ops`` does not apply)."""
    from harness.formats import nanogpt
    from harness.formats.registry import fixture_kind

    return measure_nanogpt(path) if fixture_kind(path) == nanogpt.KIND else measure(path, ops)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.replay.check", description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", help="op ids (default: all)")
    parser.add_argument(
        "--fixture", type=Path, action="append", help="op or nanoGPT fixture(s); default: the committed op fixtures"
    )
    parser.add_argument("--quiet", action="store_true", help="only the mismatches")
    parser.add_argument("--nanogpt", action="store_true", help="also the committed nanoGPT tiny fixtures")
    parser.add_argument(
        "--torch",
        default=IMPL_TORCH,
        help=f"the committed fixtures of this torch release (default {IMPL_TORCH}; not with --write-gaps)",
    )
    parser.add_argument(
        "--write-gaps",
        action="store_true",
        help="rewrite known_gaps.json (every op and nanoGPT tiny fixture)",
    )
    args = parser.parse_args(argv)
    try:
        if args.write_gaps and (args.ops or args.fixture or args.torch != IMPL_TORCH):
            raise ParityError(
                f"--write-gaps measures every op on every committed torch {IMPL_TORCH} fixture: "
                "give no ops, --fixture or --torch"
            )
        get_profile("x86-baseline", 1, args.torch)  # a release the impl has no profile for is refused here
        ops = parse_op_list(",".join(args.ops), (*OP_IDS, *MODEL_OP_IDS))  # model ops: random-case fixtures
        gaps: list[Gap] = []
        total = 0
        runs = [(measure_fixture, p) for p in args.fixture or committed_impl_fixtures(args.torch)]
        if args.nanogpt or args.write_gaps:
            tiny = committed_impl_nanogpt_fixtures("tiny", args.torch)
            runs += [(lambda p, _: measure_nanogpt(p), p) for p in tiny]
        for how, path in runs:
            found, lines = how(path, ops)
            gaps += found
            total += len(lines)
            for line in lines:
                if not (args.quiet and " EXACT " in line):
                    print(line)
        print(f"{total - len(gaps)} of {total} outputs (and nanoGPT runs) bit-identical")
        if args.write_gaps:
            old = {g.key: g.why for g in load_gaps().gaps} if GAPS_FILE.exists() else {}
            gaps = [Gap(**{**g.__dict__, "why": g.why or old.get(g.key, "")}) for g in gaps]
            save_gaps(KnownGaps(IMPL_TORCH, gaps, unverified_profiles()))
            print(f"wrote {len(gaps)} gaps to harness/impl/known_gaps.json")
        return 0 if not gaps else 1
    except ParityError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
