"""The impl's plumbing: the C build, profiles, the known-gaps file, `parity check --impl`."""

from __future__ import annotations

import ctypes
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.core.errors import ParityError
from harness.core.op_ids import MODEL_OP_IDS, OP_IDS
from harness.core.ulp import compare_tensors
from harness.impl import op_registry as impl_ops
from harness.impl import profiles
from harness.impl._lib import load, ptr
from harness.impl.known_gaps import Gap, GapGrew, ImplMismatch, KnownGaps, assert_reproduces, load_gaps, save_gaps
from harness.impl.profiles import (
    PROFILES,
    get_profile,
    profile_for_capability,
    profile_for_fixture,
    profile_for_platform,
)
from harness.platform.config import parse_platform_id
from harness.replay.check import UNMODELLED_BLAS, check_profile, unmodelled_note


def _selftest(profile_name: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[int, np.ndarray]:
    lib = load("selftest")
    lib.parity_selftest.restype = ctypes.c_int32
    out = np.empty_like(a)
    threads = lib.parity_selftest(get_profile(profile_name, 3).as_c(), ptr(a), ptr(b), ptr(c), ptr(out),
                                  ctypes.c_int64(a.size))  # fmt: skip
    return threads, out


def test_kernels_fuse_only_where_the_profile_says():
    # (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: an FMA keeps the 2^-24, a multiply then add loses it
    a = np.full(4, 1 + 2**-12, np.float32)
    c = np.full(4, -1, np.float32)
    threads, fused = _selftest("x86-avx2", a, a, c)
    _, separate = _selftest("x86-baseline", a, a, c)
    assert threads == 3  # the profile struct reaches C intact
    assert (fused == np.float32(2**-11 + 2**-24)).all()
    assert (separate == np.float32(2**-11)).all()


def test_mkl_cbwr_compatible_is_a_profile_knob_from_the_platform_id():
    p = profile_for_platform("linux-x86_64-avx2-mklgeneric-t2-cbwr-compatible")
    assert (p.name, p.threads, p.mkl_cbwr) == ("x86-avx2", 2, True) and "MKL_CBWR=COMPATIBLE" in p.label
    assert p.as_c().blas == 2 and profile_for_platform("linux-x86_64-avx2-mklgeneric-t2").as_c().blas == 0
    assert profile_for_platform("linux-x86_64-avx2-mklgeneric-t2").mkl_cbwr is False
    # an Intel path under COMPATIBLE is checked as the generic path (MKL reports it there)
    assert check_profile("linux-x86_64-baseline-mklsse42-t1-cbwr-compatible").mkl_cbwr is True
    with pytest.raises(ParityError, match="MKL_CBWR=AVX2"):
        profile_for_platform("linux-x86_64-avx2-mklgeneric-t1-cbwr-avx2")
    with pytest.raises(ParityError, match="MKL_CBWR=COMPATIBLE"):
        get_profile("arm64-neon").with_cbwr("COMPATIBLE")


def test_profiles_follow_platform_ids():
    p = profile_for_platform("linux-x86_64-avx2-t2")
    assert (p.name, p.threads, p.lanes, p.vec_fma) == ("x86-avx2", 2, 8, True)
    assert profile_for_platform("linux-x86_64-baseline-t1").vec_fma is False
    assert PROFILES["x86-avx512"].lanes_wide == 16 and PROFILES["x86-avx512"].lanes == 8
    n1 = profile_for_platform("linux-arm64-neoverse-n1-nvpl-t1")
    assert (n1.name, n1.aten, n1.lanes, n1.vec_fma, n1.contract, n1.blas) == (
        "arm64-neon",
        "neon",
        4,
        True,
        True,
        "nvpl",
    )
    assert profile_for_platform("linux-arm64-neoverse-v1-nvpl-t2").lanes == 8  # SVE256
    assert profile_for_platform("linux-arm64-neoverse-v2-t2").lanes == 4  # SVE128; an id from before BLAS tags
    with pytest.raises(ParityError, match="no kernel profile"):
        profile_for_platform("macos-arm64-m1-accelerate-t2")
    with pytest.raises(ParityError, match="ran the BLAS code path openblas"):
        profile_for_platform("linux-arm64-neoverse-n1-openblas-t2")
    assert profile_for_capability("SVE256", 2, "aarch64").name == "arm64-sve256"
    assert profile_for_capability("DEFAULT", 1, "aarch64").name == "arm64-neon"
    assert profile_for_capability("DEFAULT", 1, "x86_64").name == "x86-baseline"
    with pytest.raises(ParityError, match="no kernel profile for ATen capability 'SVE128' on x86_64"):
        profile_for_capability("SVE128", 1, "x86_64")
    assert profile_for_platform("linux-x86_64-avx512-mklgeneric-t4").threads == 4
    with pytest.raises(ParityError, match="ran the BLAS code path mklavx"):
        profile_for_platform("linux-x86_64-baseline-mklavx-t2")  # MKL's AVX kernels: not modelled
    amx = profile_for_platform("linux-x86_64-avx512-mklamx-t2")  # float32 as the AVX-512 path
    assert amx == profile_for_platform("linux-x86_64-avx512-mklavx512-t2") and amx.blas == "mklavx512"
    assert profile_for_platform("linux-x86_64-avx512-mklavx512-t2").blas == "mklavx512"  # its sgemm in part
    with pytest.raises(ParityError, match="unknown kernel profile"):
        get_profile("x86-sse9")
    with pytest.raises(ParityError, match=">= 1"):
        get_profile("x86-avx2", 0)


def test_registry_names_every_op():
    assert sorted(impl_ops.MODULES) == sorted((*OP_IDS, *MODEL_OP_IDS))


def _cmp(expected: list[float], actual: list[float]):
    return compare_tensors("out", np.float32(expected), np.float32(actual))


def test_gap_rules():
    gap = Gap("p", "exp", "7", "out", max_ulp=2, mismatches=1, count=2)
    assert_reproduces(_cmp([1.0, 2.0], [1.0, 2.0]), gap)  # exact passes (the strict xfail then fails the run)
    with pytest.raises(ImplMismatch):
        assert_reproduces(_cmp([1.0, 2.0], [1.0, float(np.nextafter(np.float32(2), np.float32(3)))]), gap)
    worse = np.uint32(0x40000003).view(np.float32)  # 3 ULP above 2.0: past the recorded 2
    with pytest.raises(GapGrew, match="worse than the known gap"):
        assert_reproduces(_cmp([1.0, 2.0], [1.0, float(worse)]), gap)
    with pytest.raises(ImplMismatch):  # no gap recorded: any mismatch is a plain failure
        assert_reproduces(_cmp([1.0], [2.0]), None)


def test_gaps_file_round_trips(tmp_path: Path):
    known = KnownGaps("2.13.0", [Gap("p", "b", "c", "out", 3, 1, 9, "why"), Gap("p", "a", "c", "out", None, 9, 9)], {})
    path = tmp_path / "gaps.json"
    save_gaps(known, path)
    again = load_gaps(path)
    assert [g.op for g in again.gaps] == ["a", "b"]  # sorted
    assert again.lines("p")[0] == "a/c out on p: not implemented"
    assert "1 of 9 elements differ, max 3 ULP (why)" in again.lines("p")[1]
    path.write_text(json.dumps({"schema": "other"}))
    with pytest.raises(ParityError, match="not a known-gaps file"):
        load_gaps(path)


def test_profiles_name_the_torch_release_they_reproduce():
    assert profiles.IMPL_TORCH in profiles.RELEASES and get_profile("x86-avx2").torch == profiles.IMPL_TORCH
    p = profile_for_fixture({"platform_id": "linux-x86_64-avx2-mklgeneric-t2", "torch_version": "2.12.1"})
    assert (p.name, p.threads, p.torch, p.label) == ("x86-avx2", 2, "2.12.1", "x86-avx2 t2 torch 2.12.1")
    assert p.as_c().torch == 21201 and get_profile("x86-avx2").as_c().torch == 21300
    assert profile_for_platform("linux-x86_64-baseline-t1", "2.14.1").with_threads(3).torch == "2.14.1"
    with pytest.raises(ParityError, match=r"no kernel profile for torch 2\.11\.0 \(it reproduces 2\.12\.1, 2\.13\.0"):
        profile_for_fixture({"platform_id": "linux-x86_64-avx2-mklgeneric-t1", "torch_version": "2.11.0"})
    arm = profile_for_platform("linux-arm64-neoverse-n1-nvpl-t1", "2.12.1")  # arm64 profiles: every release too
    assert (arm.name, arm.torch, arm.as_c().torch) == ("arm64-neon", "2.12.1", 21201)
    assert profile_for_capability("AVX2", 1, "x86_64", "2.14.1").torch == "2.14.1"


def test_check_impl_refuses_a_release_without_a_profile(
    monkeypatch: pytest.MonkeyPatch, committed_root: Path, capsys: pytest.CaptureFixture[str]
):
    """A fixture's torch_version picks the profile's release; one the impl has none for is one line, exit 2."""
    from harness.replay.check import main as replay_check

    fixture = committed_root / "torch-2.12.1" / "linux-x86_64-baseline-mklgeneric-t1.h5"
    assert main(["check", "--impl", "--against", str(fixture), "--ops", "sum", "--quiet"]) == 0
    assert "the impl ran as x86-baseline t1 torch 2.12.1" in capsys.readouterr().out
    monkeypatch.setattr(profiles, "RELEASES", ("2.13.0", "2.14.1"))
    assert main(["check", "--impl", "--against", str(fixture), "--ops", "sum"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no kernel profile for torch 2.12.1 (it reproduces 2.13.0, 2.14.1)" in err
    assert replay_check(["--fixture", str(fixture), "sum"]) == 2
    assert "no kernel profile for torch 2.12.1" in capsys.readouterr().err
    assert replay_check(["--torch", "2.11.0", "sum"]) == 2
    assert "no kernel profile for torch 2.11.0" in capsys.readouterr().err


def test_committed_gaps_file_loads():
    known = load_gaps()
    assert known.torch_version == "2.13.0"
    assert all(g.max_ulp is None or g.max_ulp >= 0 for g in known.gaps)


def test_unverified_profiles_are_exactly_those_without_a_committed_fixture(committed_root: Path):
    """A profile is verified when a committed fixture of its torch version stands behind it."""
    known = load_gaps()
    verified = set()
    for arch in ("x86_64", "arm64"):
        for path in (committed_root / f"torch-{known.torch_version}").glob(f"linux-{arch}-*.h5"):
            if parse_platform_id(path.name.split(".")[0]).blas in UNMODELLED_BLAS:
                continue  # MKL's Intel paths: checked under a stand-in profile, they verify none
            verified.add(profile_for_platform(path.name.split(".")[0]).name)
    assert {"x86-avx2", "arm64-neon"} <= verified, "no committed x86 or arm64 fixture found"
    assert set(known.unverified_profiles) == set(PROFILES) - verified


def test_check_impl_reports_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "r.json"
    args = ["check", "--impl", "--platform", "linux-x86_64-baseline-mklgeneric-t1", "--ops", "sum,mean"]
    args += ["--output", str(out)]
    code = main(args)
    data = json.loads(out.read_text())
    assert data["actual"] == "reference implementation, profile x86-baseline t1"
    gaps = [g for g in load_gaps().for_platform("linux-x86_64-baseline-mklgeneric-t1") if g.op in ("sum", "mean")]
    assert gaps == [] and data["impl_known_gaps"] == []  # the impl reproduces both at their own profile
    assert (code, data["bit_identical"]) == (0, True)
    # at 2 threads the full mean adds in another order (measured: 2 ULP off the 1-thread fixture): exit 1
    code = main([*args[:-2], "--threads", "2", "--output", str(out)])
    data = json.loads(out.read_text())
    assert (code, data["bit_identical"]) == (1, False)
    assert data["actual"] == "reference implementation, profile x86-baseline t2"


def test_check_impl_keeps_the_fixtures_blas_path_and_cbwr_mode(tmp_path: Path):
    """`parity check --impl` runs a fixture's own profile whole: MKL's Intel SSE4.2 path and
    MKL_CBWR=COMPATIBLE, whose linear products differ from MKL's generic path's, are kept (also with
    --threads), and the report names them."""
    out = tmp_path / "r.json"
    for platform, label in (
        ("linux-x86_64-baseline-mklsse42-t1", "x86-baseline mklsse42 t1 rsqrtps=qemu"),  # recorded under QEMU
        ("linux-x86_64-baseline-mklgeneric-t1-cbwr-compatible", "x86-baseline t1 MKL_CBWR=COMPATIBLE"),
    ):
        args = ["check", "--impl", "--platform", platform, "--ops", "linear", "--quiet", "--output", str(out)]
        assert main(args) == 0
        data = json.loads(out.read_text())
        assert data["actual"] == f"reference implementation, profile {label}" and data["bit_identical"]
        main([*args, "--threads", "2"])
        assert json.loads(out.read_text())["actual"] == f"reference implementation, profile {label.replace('t1', 't2')}"
    # another profile by name: that profile's own BLAS path (here MKL's generic one), which differs
    args = ["check", "--impl", "--platform", "linux-x86_64-baseline-mklsse42-t1", "--ops", "linear"]
    assert main([*args, "--profile", "x86-avx2", "--quiet", "--output", str(out)]) == 1
    assert json.loads(out.read_text())["actual"] == "reference implementation, profile x86-avx2 t1"


def test_check_impl_takes_the_rsqrt_estimate_from_the_provenance(tmp_path: Path):
    """An Intel set recorded under QEMU: its AdamW torch.sqrt is VML's refinement of QEMU's exact
    RSQRTPS, which the impl reproduces and the report names; under another profile by name (MKL's
    generic path and the AMD host's estimate) the same outputs differ."""
    out = tmp_path / "r.json"
    args = ["check", "--impl", "--platform", "linux-x86_64-avx2-mklavx2-t1", "--ops", "adamw_step", "--quiet"]
    assert main([*args, "--output", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["actual"] == "reference implementation, profile x86-avx2 mklavx2 t1 rsqrtps=qemu"
    assert "refines QEMU's exact RSQRTPS" in data["note"] and data["bit_identical"]
    assert main([*args, "--profile", "x86-avx512", "--output", str(out)]) == 1


def test_check_impl_refuses_what_it_cannot_do(capsys: pytest.CaptureFixture[str]):
    assert main(["check", "--impl", "--nanogpt", "tiny", "--ops", "exp"]) == 2
    assert "a nanoGPT fixture is checked whole" in capsys.readouterr().err
    assert main(["check", "--profile", "x86-avx2"]) == 2
    assert "use them with --impl" in capsys.readouterr().err


def test_kernels_doc_holds_the_index_table_and_every_op():
    from harness.impl.kernel_index import TRACE_KERNELS, WHY, render_table

    text = (Path(__file__).resolve().parents[1] / "docs" / "impl" / "kernels.md").read_text(encoding="utf-8")
    assert render_table() in text, "docs/impl/kernels.md's table is out of step with harness/impl/kernel_index.py"
    assert sorted(WHY) == sorted((*OP_IDS, *TRACE_KERNELS))
    missing = [op for op in (*OP_IDS, *TRACE_KERNELS) if f"`{op}`" not in text]
    assert not missing, f"docs/impl/kernels.md does not name {missing}"


def test_a_nanogpt_gap_records_the_first_divergence():
    from harness.replay.check import committed_impl_nanogpt_fixtures, measure_nanogpt, nanogpt_gap_step

    avx2_t2 = next(p for p in committed_impl_nanogpt_fixtures("tiny") if "avx2-mklgeneric-t2" in p.name)
    (gap,), (line,) = measure_nanogpt(avx2_t2, get_profile("x86-avx2", 1))  # 1 thread against 2
    assert (gap.platform, gap.op, nanogpt_gap_step(gap)) == ("linux-x86_64-avx2-mklgeneric-t2", "nanogpt-tiny", 1)
    assert gap.output == "grad_preclip transformer.h.0.ln_1.weight"  # LayerNorm grads: per-thread buffers
    assert gap.count == 50 and gap.mismatches == 50
    assert "first divergence at step 1, backward" in gap.why and "DIFF" in line


def test_every_traced_kernel_op_names_a_kernel_index_row_and_every_replay_is_indexed():
    from harness.impl.kernel_index import WHY
    from harness.trace.cause import KNOB_LABELS
    from harness.trace.impl_ops import KERNEL_OPS, REPLAYS

    rows = {op: row for op, (row, _) in KERNEL_OPS.items()}
    assert not {op: row for op, row in rows.items() if row not in WHY}, "KERNEL_OPS names a row the index lacks"
    assert not [op for op in REPLAYS if op not in KERNEL_OPS], "a replayed op has no kernel index row"
    assert not [k for _, knobs in KERNEL_OPS.values() for k in knobs if k not in KNOB_LABELS]


def test_intel_mkl_paths_are_checked_under_their_own_profiles_and_say_why():
    """MKL's Intel SSE4.2, AVX2 and AVX-512 paths each have a profile (their sgemm modelled in part): their
    committed fixtures are checked under it, the note saying what is not modelled, every differing
    output a known gap."""
    platform = "linux-x86_64-baseline-mklsse42-t1"
    assert (
        check_profile(platform)
        == profile_for_platform(platform)
        == replace(get_profile("x86-baseline"), blas="mklsse42")
    )
    assert unmodelled_note(platform).startswith("MKL's Intel SSE4.2 path") and "not modelled whole" in unmodelled_note(
        platform
    )
    avx2 = "linux-x86_64-avx2-mklavx2-t2"
    assert check_profile(avx2) == profile_for_platform(avx2) == replace(get_profile("x86-avx2", 2), blas="mklavx2")
    assert unmodelled_note(avx2).startswith("MKL's Intel AVX2 path") and "not modelled whole" in unmodelled_note(avx2)
    assert check_profile("linux-x86_64-avx2-mklgeneric-t2") == profile_for_platform("linux-x86_64-avx2-mklgeneric-t2")
    assert unmodelled_note("linux-x86_64-avx2-mklgeneric-t2") == ""
    avx512 = "linux-x86_64-avx512-mklavx512-t2"
    assert (
        check_profile(avx512) == profile_for_platform(avx512) == replace(get_profile("x86-avx512", 2), blas="mklavx512")
    )
    assert unmodelled_note(avx512).startswith("MKL's Intel AVX-512 path") and "not modelled whole" in unmodelled_note(
        avx512
    )
    amx = "linux-x86_64-avx512-mklamx-t2"  # MKL's AMX path: float32 as its AVX-512 path, and said so
    assert check_profile(amx) == check_profile(avx512) and unmodelled_note(amx) == unmodelled_note(avx512)
    with pytest.raises(ParityError, match="ran the BLAS code path mklavx"):  # no fixture of it: no stand-in
        check_profile("linux-x86_64-baseline-mklavx-t2")
    for gap in load_gaps().gaps:  # every gap of an Intel path says why (a nanoGPT run's, then where it parts;
        # an output the impl refuses, its refusal)
        note = unmodelled_note(gap.platform)
        nanogpt = gap.op.startswith("nanogpt-") and gap.why.startswith(f"{note}; first divergence at step ")
        refused = gap.max_ulp is None and bool(gap.why)
        assert not note or gap.why == note or nanogpt or refused, gap.line()


def test_an_output_the_impl_refuses_says_why() -> None:
    """conv2d's runner leaves out an output it does not model and keeps the others; the check reports
    that output's refusal, not a bare 'no such output' (here the forward's im2col sgemm, a gemv whose K
    MKL's SSE4.2 path cuts between 2 threads; the three gradients are modelled)."""
    from harness.formats.ops import read_op_fixture
    from harness.replay.check import committed_impl_fixtures
    from harness.replay.ops import impl_op_fixture, missing_note

    sse42 = profile_for_platform("linux-x86_64-baseline-mklsse42-t2")
    rng = np.random.default_rng(0)
    shapes = {"x": (1, 33, 13, 9), "weight": (1, 33, 3, 3), "bias": (1,), "grad_out": (1, 1, 11, 7)}
    inputs = {n: rng.standard_normal(s).astype(np.float32) for n, s in shapes.items()}
    params = {"bias": True, "padding": 0, "stride": 1, "w_shape": [1, 33, 3, 3], "x_shape": [1, 33, 13, 9]}
    out = impl_ops.run_case("conv2d", params, inputs, sse42)
    assert sorted(out) == ["grad_bias", "grad_weight", "grad_x"]
    assert "cuts this gemv's K" in impl_ops.refusals(out)["out"]
    fixtures = (read_op_fixture(p, ops=["conv2d"]) for p in committed_impl_fixtures())
    fixture = next(f for f in fixtures if f.cases)  # a recorded conv2d case, given this one's geometry
    key, rec = next(iter(fixture.cases.items()))
    recorded = {"out": np.zeros((1, 1, 11, 7), np.float32)}
    fixture.cases = {key: replace(rec, params=params, inputs=inputs, outputs=recorded)}
    impl, missing = impl_op_fixture(fixture, sse42)
    assert "out" not in impl.cases[key].outputs
    assert "cuts this gemv's K" in missing[key]
    assert missing_note(missing).startswith(f"it refused 1 case(s) it does not model: {key} (gemm 1x77x297")
