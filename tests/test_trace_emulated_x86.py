"""``parity trace --emulate x86:MODEL`` and the re-runs of such a trace (``parity audit``, ``--verify-cause``):
the program runs under ``qemu-x86_64 -cpu MODEL`` as the traced run did, never natively; and the impl's
refusals its audits under emulation brought out. No QEMU runs here (a stand-in ``qemu-x86_64`` answers
``-cpu help``; the program's process is intercepted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.core.errors import ParityError
from harness.formats.trace import read_trace
from harness.impl.profiles import RSQRT_QEMU, profile_for_platform
from harness.platform import emulation
from harness.platform.cpuid import decode
from harness.platform.emulation import emulated_x86_model
from harness.trace.cause import capture_each
from harness.trace.impl_ops import replay
from tests.test_emulation_x86 import HASWELL, fake_qemu  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parent.parent
NOTE = "qemu-x86_64 version 7.2.22; QEMU_CPU=Haswell-v4; QEMU emulation of GenuineIntel family 6 model 60"


def _intercepted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], dict[str, str]]]:
    """The tracer's process (``harness.trace.run``) recorded instead of run; every other command runs."""
    seen: list[tuple[list[str], dict[str, str]]] = []
    real = subprocess.run

    def run(argv, *args, **kwargs):
        if "harness.trace.run" in argv:
            seen.append((list(argv), dict(kwargs.get("env") or {})))
            return subprocess.CompletedProcess(argv, 0, "", "")
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(emulation, "probe_x86_cpu", lambda model: decode(HASWELL))
    monkeypatch.setattr(emulation, "platform", type("P", (), {"machine": staticmethod(lambda: "x86_64")}))
    return seen


def test_trace_runs_the_program_under_qemu_as_the_model(fake_qemu, monkeypatch, tmp_path):  # noqa: F811
    seen = _intercepted(monkeypatch)
    out = tmp_path / "t.h5"
    args = ["trace", "--emulate", "x86:Haswell-v4", "--platform", "linux-x86_64-baseline-t2", "--out", str(out)]
    assert main([*args, "--", "-m", "harness.trace.random_program", "--seed", "3"]) == 0
    [(argv, env)] = seen
    assert Path(argv[0]).name == "qemu-x86_64" and argv[2] != "/" and argv[3:5] == ["-cpu", "Haswell-v4"]
    assert argv[5:8] == [sys.executable, "-m", "harness.trace.run"] and argv[-5:] == [
        "--", "-m", "harness.trace.random_program", "--seed", "3",
    ]  # fmt: skip
    # the SSE4.2 path: MKL_ENABLE_INSTRUCTIONS=SSE4_2 on the emulated Intel CPU; the note names the model
    assert env["MKL_ENABLE_INSTRUCTIONS"] == "SSE4_2" and env["ATEN_CPU_CAPABILITY"] == "default"
    assert env["OMP_NUM_THREADS"] == "2" and "QEMU_CPU=Haswell-v4" in env["PARITY_EMULATION"]
    seen.clear()  # without --platform: the emulated CPU's own choice, only the note added
    assert main(["trace", "--emulate", "x86:Haswell-v4", "--out", str(out), "--", "prog.py"]) == 0
    [(argv, env)] = seen
    assert argv[3:5] == ["-cpu", "Haswell-v4"] and "QEMU_CPU=Haswell-v4" in env["PARITY_EMULATION"]


def test_trace_refuses_a_level_the_emulated_cpu_lacks_in_one_line(fake_qemu, monkeypatch, tmp_path, capsys):  # noqa: F811
    seen = _intercepted(monkeypatch)
    out = str(tmp_path / "t")
    assert (
        main(["trace", "--emulate", "x86:Haswell-v4", "--platform", "linux-x86_64-avx512-t1", "--out", out, "--", "p"])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the emulated Haswell-v4: this CPU cannot run ISA level 'avx512'" in err, err
    assert main(["trace", "--emulate", "arm64:neoverse-n1", "--out", str(tmp_path / "t"), "--", "prog.py"]) == 2
    assert "tools/emulate_arm64.py" in capsys.readouterr().err and not seen


def test_the_emulated_model_is_read_from_the_provenance():
    assert emulated_x86_model({"arch": "x86_64", "emulation": NOTE}) == "Haswell-v4"
    assert emulated_x86_model({"arch": "x86_64", "emulation": ""}) == ""  # this host's own CPU
    arm = {"arch": "arm64", "emulation": "qemu-aarch64 version 7.2; QEMU_CPU=neoverse-n1; fake MIDR 0x413fd0c1"}
    assert emulated_x86_model(arm) == ""


def test_an_emulated_x86_trace_is_run_again_under_its_model_not_natively(fake_qemu, monkeypatch, tmp_path):  # noqa: F811
    """An audit's or --verify-cause's capture of a trace made under qemu-x86_64 -cpu Haswell-v4 (MKL's Intel
    path, its QEMU estimates): natively, this AMD host's MKL path and CPU would give other bits."""
    seen = _intercepted(monkeypatch)
    trace = read_trace(REPO / "tests" / "traces" / "arm64-mlp-n1-t1.h5")
    provenance = {**trace.provenance, "arch": "x86_64", "emulation": NOTE}
    trace.attrs = {**trace.attrs, "provenance": provenance, "command": [sys.executable, "prog.py"], "cwd": None}
    with pytest.raises(ParityError, match=r"re-running .* program failed"):  # intercepted: it wrote nothing
        capture_each(trace, [5], tmp_path)
    [(argv, env)] = seen
    assert Path(argv[0]).name == "qemu-x86_64" and argv[3:5] == ["-cpu", "Haswell-v4"]
    assert "QEMU_CPU=Haswell-v4" in env["PARITY_EMULATION"] and env["PARITY_TRACE_HOOK"] == "0"


def _replay(op: str, x: np.ndarray, platform: str, estimate: str = "", **values) -> dict[str, np.ndarray]:
    p = profile_for_platform(platform)
    p = p.with_rsqrt_estimate(estimate) if estimate else p
    args = [{"name": "self", "tensor": "self", "stride": [s // 4 for s in x.strides], "shape": list(x.shape)}]
    return replay(op, {"self": x}, [*args, *({"name": k, "value": v} for k, v in values.items())], p)


def _bits(*patterns: int) -> np.ndarray:
    return np.array(patterns, np.uint32).view(np.float32)


def test_nan_operands_are_refused_under_qemu_x86_where_its_nan_rule_is_not_the_silicons():
    x = _bits(0x7FC12345, 0x3F800000, 0xFF800000, 0x40000000)
    with pytest.raises(ParityError, match="QEMU keeps the NaN of the larger significand"):
        _replay("aten.gelu.default", x, "linux-x86_64-avx2-mklavx2-t1", RSQRT_QEMU)
    _replay("aten.gelu.default", x, "linux-x86_64-avx2-mklavx2-t1")  # an Intel CPU itself: replayed
    _replay("aten.gelu.default", x[1:], "linux-x86_64-avx2-mklavx2-t1", RSQRT_QEMU)  # no NaN: replayed


def test_gelu_of_minus_infinity_is_aarch64s_default_nan():
    """-inf * 0 in ACL's (N1) and oneDNN's SVE (V2) GELU: +qNaN, measured in traces under emulation."""
    x = _bits(0xFF800000, 0x3F800000, 0x7F800000, 0xC0000000, 0x7FC12345)
    for platform in ("linux-arm64-neoverse-n1-nvpl-t1", "linux-arm64-neoverse-v2-nvpl-t1"):
        for approximate in ("none", "tanh"):
            out = _replay("aten.gelu.default", x, platform, approximate=approximate)["out"].view(np.uint32)
            assert out[0] == 0x7FC00000 and out[4] == 0x7FC12345, (platform, approximate, hex(out[0]))
    out = _replay("aten.gelu.default", x, "linux-x86_64-avx2-mklgeneric-t1")["out"].view(np.uint32)
    assert out[0] == 0xFFC00000  # x86's


def test_reductions_refuse_where_their_nans_are_not_modelled():
    rows = _bits(0x7F800001, 0x3F800000, 0x7FC12345, 0x40000000).reshape(1, 4)
    for op in ("aten.mean.dim", "aten.sum.dim_IntList", "aten.linalg_vector_norm.default"):
        with pytest.raises(ParityError, match="NaNs of 2 kinds may meet"):
            _replay(op, rows, "linux-x86_64-avx2-mklgeneric-t1", dim=[1])
    with pytest.raises(ParityError, match="log_softmax of NaN inputs"):
        _replay("aten._log_softmax.default", rows, "linux-x86_64-avx2-mklgeneric-t1", dim=1, half_to_float=False)
    one = _replay("aten.cumsum.default", rows, "linux-x86_64-avx2-mklgeneric-t1", dim=1)["out"].view(np.uint32)
    assert list(one.reshape(-1)) == [0x7FC00001] * 4  # x86: the first operand's, the accumulator's
    # aarch64 (FPProcessNaNs: a signalling operand first, quieted, then the first quiet one), modelled since
    # (tests/test_impl_arm64_nan_reductions.py holds torch's bits): log_softmax's row max on N1 is
    # FMAX(FMAX(x0, x2), FMAX(x1, x3)), the signalling NaN's, each NaN element its own quieted; cumsum's running
    # sum, the first operand, is x0's quieted from the start
    a64 = "linux-arm64-neoverse-n1-nvpl-t1"
    out = _replay("aten._log_softmax.default", rows, a64, dim=1, half_to_float=False)["out"].view(np.uint32)
    assert list(out.reshape(-1)) == [0x7FC00001, 0x7FC00001, 0x7FC12345, 0x7FC00001]
    out = _replay("aten.cumsum.default", rows, a64, dim=1)["out"].view(np.uint32)
    assert list(out.reshape(-1)) == [0x7FC00001] * 4


def test_softmax_and_layer_norm_refuse_where_their_nans_are_not_modelled():
    rows = _bits(0x7FC12345, 0x3F800000, 0x40000000, 0xBF800000).reshape(2, 2)
    with pytest.raises(ParityError, match="softmax of NaN inputs"):
        _replay("aten._softmax.default", rows, "linux-x86_64-avx2-mklgeneric-t1", dim=1, half_to_float=False)
    x = _bits(0x7F800000, 0x3F800000, 0x40000000, 0xBF800000, 0x3F000000, 0x40400000).reshape(2, 3)
    p = profile_for_platform("linux-x86_64-avx2-mklgeneric-t1")
    args = [
        {"name": "input", "tensor": "input"},
        {"name": "normalized_shape", "value": [3]},
        {"name": "eps", "value": 1e-5},
    ]
    with pytest.raises(ParityError, match="layer_norm of a row holding an infinity"):
        replay("aten.native_layer_norm.default", {"input": x}, args, p)
    assert not np.isnan(replay("aten.native_layer_norm.default", {"input": x[1:]}, args, p)["out0"]).any()


def test_remainder_of_an_integer_tensor_by_a_python_int_stays_integer():
    """The LSTM zoo's token ids % 12 (remainder.Scalar), traced on emulated N1: an int64 result, not float32."""
    ids = np.array([[81, -61, 49, 0], [25, 29, -3, 7]], np.int64)
    for platform in ("linux-arm64-neoverse-n1-nvpl-t1", "linux-x86_64-avx2-mklgeneric-t1"):
        out = _replay("aten.remainder.Scalar", ids, platform, other=12)["out"]
        assert out.dtype == np.int64 and (out == np.remainder(ids, 12)).all(), (platform, out)
