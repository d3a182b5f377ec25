"""The impl against every committed x86 fixture: one test per (op fixture, case, output) and
one per nanoGPT tiny fixture (all 50 steps).

Each fixture is checked under its own kernel profile and thread count; one of MKL's Intel code
paths, which the impl does not model (replay.check.UNMODELLED_BLAS), under its ISA level's profile,
MKL's generic path standing in: ATen's own kernels must reproduce it bit for bit, and each output
MKL's Intel kernels make otherwise is a listed gap. Outputs listed in
harness/impl/known_gaps.json are strict expected failures: they must still differ (a gap that
closes without the file being updated fails), and by no more than the recorded figures.

The committed fixtures of the other torch releases the impl reproduces (profiles.RELEASES) are
checked under their own release, one test per fixture: their op fixtures at 1 and 2 threads in
every run, and with PARITY_IMPL_RELEASES_FULL=1 (tox -e parity-impl) every thread count and their
nanoGPT tiny runs too.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from harness.compare.fixtures import diff_nanogpt
from harness.core.errors import ParityError
from harness.core.ulp import compare_tensors
from harness.formats.nanogpt import read_nanogpt_fixture
from harness.formats.ops import OpFixture, read_op_fixture
from harness.impl.known_gaps import GapGrew, ImplMismatch, assert_reproduces, load_gaps
from harness.impl.op_registry import run_case
from harness.impl.profiles import IMPL_TORCH, RELEASES, profile_for_fixture
from harness.platform.config import parse_platform_id
from harness.replay.check import (
    check_profile,
    committed_impl_fixtures,
    committed_impl_nanogpt_fixtures,
    fixture_check_profile,
    nanogpt_gap_step,
    unmodelled_note,
)
from harness.replay.nanogpt import impl_nanogpt_fixture
from harness.replay.ops import impl_op_fixture
from harness.store.paths import DEFAULT_FIXTURES

KNOWN = load_gaps()
GAPS = KNOWN.by_key()


@cache
def _fixture(path: Path) -> OpFixture:
    return read_op_fixture(path)


@cache
def _impl(path: Path, key: str) -> dict[str, np.ndarray]:
    fixture = _fixture(path)
    rec = fixture.cases[key]
    return run_case(rec.op, rec.params, rec.inputs, fixture_check_profile(fixture.attrs))


def _params() -> list:
    out = []
    for path in committed_impl_fixtures():
        structure = read_op_fixture(path, load=False)
        platform = str(structure.attrs["platform_id"])
        for key, rec in structure.cases.items():
            for name in rec.outputs:
                gap = GAPS.get((platform, rec.op, rec.case, name))
                marks = [pytest.mark.xfail(strict=True, raises=ImplMismatch, reason=gap.line())] if gap else []
                out.append(pytest.param(path, key, name, id=f"{platform}/{key}/{name}", marks=marks))
    return out


@pytest.mark.parametrize(("path", "key", "output"), _params())
def test_impl_reproduces_fixture(path: Path, key: str, output: str) -> None:
    fixture = _fixture(path)
    rec = fixture.cases[key]
    gap = GAPS.get((str(fixture.attrs["platform_id"]), rec.op, rec.case, output))
    try:
        actual = _impl(path, key)
    except ParityError as exc:  # no kernel, or none modelled under this profile (NotImplementedInImpl is one)
        raise ImplMismatch(str(exc)) from None
    if output not in actual:  # its kernel is not modelled under this profile (a known gap, or a failure)
        raise ImplMismatch(f"{key}: the impl gave no output {output} (it gave {sorted(actual)})")
    assert_reproduces(compare_tensors(output, rec.outputs[output], actual[output]), gap)


def test_gaps_name_real_outputs() -> None:
    """Every known gap names an output of a committed fixture (no stale entries)."""
    real = set()
    for path in committed_impl_fixtures():
        structure = read_op_fixture(path, load=False)
        platform = str(structure.attrs["platform_id"])
        real |= {(platform, r.op, r.case, n) for r in structure.cases.values() for n in r.outputs}
    runs = {path.name.split(".nanogpt-")[0] for path in committed_impl_nanogpt_fixtures("tiny")}
    stale = sorted(k for k in set(GAPS) - real if not (k[1] == "nanogpt-tiny" and k[0] in runs))
    assert not stale, f"known_gaps.json names outputs no committed fixture has: {stale[:5]}"


def _nanogpt_params() -> list:
    out = []
    for path in committed_impl_nanogpt_fixtures("tiny"):
        platform = path.name.split(".nanogpt-")[0]
        gap = KNOWN.run_gap(platform, "tiny")
        marks = [pytest.mark.xfail(strict=True, raises=ImplMismatch, reason=gap.line())] if gap else []
        out.append(pytest.param(path, id=f"{platform}/nanogpt-tiny", marks=marks))
    return out


@pytest.mark.parametrize("path", _nanogpt_params())
def test_impl_trains_nanogpt_like_the_fixture(path: Path) -> None:
    """Initial weights and all 50 steps, every recorded digest, scalar and full tensor; a known
    gap must still diverge, and no earlier than its recorded step."""
    expected = read_nanogpt_fixture(path)
    profile = fixture_check_profile(expected.attrs)
    diff = diff_nanogpt(expected, impl_nanogpt_fixture(expected, profile))
    if diff.first is None:
        return
    first = diff.first
    what = f"{path.name}: first divergence at step {first.step}, {first.stage}: {first.detail}"
    gap = KNOWN.run_gap(str(expected.attrs["platform_id"]), "tiny")
    if gap is not None and first.step < nanogpt_gap_step(gap):
        raise GapGrew(f"earlier than the known gap ({gap.line()}): {what}")
    raise ImplMismatch(what)


OTHER_RELEASES = tuple(r for r in RELEASES if r != IMPL_TORCH)
RELEASES_FULL = os.environ.get("PARITY_IMPL_RELEASES_FULL") == "1"
FULL_ONLY = pytest.mark.skip(reason="checked with PARITY_IMPL_RELEASES_FULL=1 (tox -e parity-impl)")


def _release_params(nanogpt: bool) -> list:
    out = []
    for release in OTHER_RELEASES:
        paths = committed_impl_nanogpt_fixtures("tiny", release) if nanogpt else committed_impl_fixtures(release)
        for path in paths:
            platform = path.name.split(".")[0]
            threads = parse_platform_id(platform).threads
            marks = [] if (threads <= 2 and not nanogpt) or RELEASES_FULL else [FULL_ONLY]
            out.append(pytest.param(path, id=f"{release}/{path.stem}", marks=marks))
    return out


def _differing(expected: OpFixture, profile) -> list[tuple[str, str]]:
    """The (case, output) pairs where the impl under ``profile`` is not bit-identical to ``expected``."""
    impl, missing = impl_op_fixture(expected, profile)
    assert not missing, missing
    return [
        (key, name)
        for key, rec in expected.cases.items()
        for name, want in rec.outputs.items()
        if not compare_tensors(name, want, impl.cases[key].outputs[name]).bit_identical
    ]


def test_other_releases_have_committed_fixtures() -> None:
    assert OTHER_RELEASES and all(committed_impl_fixtures(r) for r in OTHER_RELEASES)


@pytest.mark.parametrize("path", _release_params(nanogpt=False))
def test_impl_reproduces_release_fixture(path: Path) -> None:
    """Every output of an op fixture of another release, under that release's profile; on one of
    MKL's Intel paths (the generic path standing in, as for torch 2.13.0), exactly the outputs the
    2.13.0 fixture of that platform lists as known gaps."""
    expected = _fixture(path)
    platform, release = str(expected.attrs["platform_id"]), str(expected.attrs["torch_version"])
    profile = fixture_check_profile(expected.attrs)
    assert profile.torch == release != IMPL_TORCH
    gaps = KNOWN.op_gaps(platform) if unmodelled_note(platform) else []
    known = [(key, g.output) for g in gaps if (key := f"{g.op}/{g.case}") in expected.cases]  # not random cases'
    assert sorted(_differing(expected, profile)) == sorted(known)


@pytest.mark.parametrize("path", _release_params(nanogpt=True))
def test_impl_trains_nanogpt_like_the_release_fixture(path: Path) -> None:
    expected = read_nanogpt_fixture(path)
    diff = diff_nanogpt(expected, impl_nanogpt_fixture(expected))
    assert diff.first is None, f"{path}: step {diff.first.step}, {diff.first.stage}: {diff.first.detail}"


@pytest.mark.parametrize(
    ("isa", "threads", "changed"),
    [
        ("avx2", 1, [("layer_norm/65x509", "grad_x"), ("softmax/65x509", "grad_x")]),
        ("avx2", 2, [("layer_norm/65x509", "grad_x")]),  # softmax's OpenMP copy is unfused in 2.13.0 too
        # layer_norm runs its AVX2 object at avx512 too; softmax its AVX-512 one, whose inline copy
        # fuses the partial vector in 2.12.1 as in 2.13.0 (softmax grad_x of 13x65 and 65x509 at
        # 1 thread are 2.13.0's bits, not the unfused ones)
        ("avx512", 1, [("layer_norm/65x509", "grad_x")]),
        ("avx512", 2, [("layer_norm/65x509", "grad_x")]),
    ],
)
def test_the_release_decides_the_row_tails(isa: str, threads: int, changed: list[tuple[str, str]]) -> None:
    """torch 2.12.1's AVX2 layer_norm and softmax backward round the partial last vector of their row
    sums twice: its fixture is reproduced under the 2.12.1 profile, and under 2.13.0's the impl
    differs in exactly those outputs (the only 65-column rows whose 509 leave a partial vector)."""
    expected = _fixture(DEFAULT_FIXTURES / "torch-2.12.1" / f"linux-x86_64-{isa}-mklgeneric-t{threads}.h5")
    own = profile_for_fixture(expected.attrs)
    assert (own.name, own.threads, own.torch) == (f"x86-{isa}", threads, "2.12.1")
    assert _differing(expected, own) == []
    assert _differing(expected, own.with_torch(IMPL_TORCH)) == changed


@pytest.mark.parametrize("threads", [1, 2])
def test_the_release_decides_gelu_tanh_on_neoverse_n1(threads: int) -> None:
    """torch 2.12.1's oneDNN (v3.11) has no asimd JIT for gelu_tanh: N1 runs its reference kernel there,
    2.13.0's its new asimd JIT. The 2.12.1 fixture is reproduced under its own profile, and under
    2.13.0's the impl differs in exactly gelu_tanh's forward outputs (one element takes ATen instead)."""
    expected = _fixture(DEFAULT_FIXTURES / "torch-2.12.1" / f"linux-arm64-neoverse-n1-nvpl-t{threads}.h5")
    own = profile_for_fixture(expected.attrs)
    assert (own.name, own.threads, own.torch) == ("arm64-neon", threads, "2.12.1")
    assert _differing(expected, own) == []
    changed = [("gelu_tanh/7", "out"), ("gelu_tanh/1001", "out"), ("gelu_tanh/65x509", "out")]
    assert _differing(expected, own.with_torch(IMPL_TORCH)) == changed


@pytest.mark.parametrize(("core", "profile"), [("n1", "arm64-neon"), ("v1", "arm64-sve256"), ("v2", "arm64-sve128")])
def test_flash_partial_vectors_and_mask_on_arm64(core: str, profile: str) -> None:
    """The 1x6x25x14 flash case of the seed-3 random subsets (a float mask along rows, D = 14: three
    vectors of 4 and two lanes left on N1 and V2, one of 8 and six left on V1) equals torch's bit for
    bit, uint32 by uint32, on each core: dsum's partial last vector added fused as the full vectors
    (N1, V2; rounded first, 140 of 2100 grad_q and 192 of 1050 grad_k elements differed on N1) and
    the mask's vector sum qk*scale + mask unfused on V1 (fused, out differed in 873 of 2100)."""
    path = DEFAULT_FIXTURES / f"torch-{IMPL_TORCH}" / f"linux-arm64-neoverse-{core}-nvpl-t1.random-3.h5"
    rec = _fixture(path).cases["flash_attention/r3-flash-010"]
    assert rec.params["d"] == 14 and rec.params["mask"] == "rows"
    assert check_profile(str(_fixture(path).attrs["platform_id"])).name == profile
    actual = _impl(path, "flash_attention/r3-flash-010")
    for name in ("out", "lse", "grad_q", "grad_k", "grad_v"):
        want = np.ascontiguousarray(rec.outputs[name], np.float32).view(np.uint32)
        got = np.ascontiguousarray(actual[name], np.float32).view(np.uint32)
        assert want.shape == got.shape and np.array_equal(want, got), name
