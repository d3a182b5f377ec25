"""`parity diff --verify-cause` of traces from Linux arm64: a program traced on another architecture is
never re-run natively (on its emulated core, or refused in one line), ops a trace holds in full are
not run again, and the side that can run here gives the roots' tensors. Torch-free."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.formats.trace import Captured, OpRecord, TensorRef, Trace
from harness.platform.config import host_arch
from harness.platform.emulation import CORES, emulated_core_of
from harness.trace import cause as cause_module
from harness.trace.diff import diff_traces


def _note(core: str) -> str:
    """An emulated run's provenance ``emulation``, as harness.platform.emulation writes it."""
    c = CORES[core]
    return f"qemu-aarch64 version 7.2.0; QEMU_CPU={c.qemu_cpu}; fake MIDR 0x{c.midr:08x} ({c.name}, like {c.like})"


EMULATED = _note("neoverse-n1")
x86_host = pytest.mark.skipif(host_arch() != "x86_64", reason="the other architecture is arm64 here")


def _prov(arch: str, emulation: str = "", isa: str = "neoverse-n1") -> dict:
    return {"arch": arch, "isa": isa, "threads": 1, "capability": "DEFAULT", "torch_version": "2.13.0",
            "emulation": emulation, "cpu_model": "implementer 0x41 part 0xd0c"}  # fmt: skip


def _trace(tmp_path: Path, prov: dict, out: bytes = b"2" * 32, captured: dict | None = None) -> Trace:
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    op = OpRecord(
        0, "aten.mm.default", "m", "x.py:1", "forward", 1, "", [x], [TensorRef("out", out, "float32", (2,), 0)]
    )
    attrs = {"provenance": prov, "digest": "mix256-v1", "command": ["python3.11", "train.py"], "cwd": str(tmp_path)}
    return Trace(tmp_path / "t.h5", attrs, [op], captured or {})


def test_the_emulated_core_is_read_from_the_provenance() -> None:
    assert emulated_core_of(_prov("arm64", EMULATED)) is CORES["neoverse-n1"]
    assert emulated_core_of(_prov("arm64", _note("neoverse-v1"), "neoverse-v1")) is CORES["neoverse-v1"]
    assert emulated_core_of(_prov("arm64")) is None  # silicon
    assert emulated_core_of(_prov("x86_64", "qemu-x86_64; QEMU_CPU=Haswell-v4; ...", "avx2")) is None
    # the core is the fake MIDR's: a trace's level on N1 may read "neon" (ATen's DEFAULT on any arm64 CPU)
    assert emulated_core_of(_prov("arm64", EMULATED, "neon")) is CORES["neoverse-n1"]
    other = EMULATED.replace("0x413fd0c1", "0x410fd080")  # a Cortex-A72
    with pytest.raises(ParityError, match="emulated on an arm64 core that this harness does not know"):
        emulated_core_of(_prov("arm64", other, "neon"))


@x86_host
def test_a_trace_of_arm64_silicon_is_not_run_again_here_but_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ParityError) as err:
        cause_module.capture_ops(_trace(tmp_path, _prov("arm64")), [0], tmp_path)
    text = str(err.value)
    assert "was traced on arm64 (implementer 0x41 part 0xd0c); its program cannot run again on this x86_64" in text
    assert "\n" not in text


@x86_host
def test_an_emulated_trace_is_re_run_under_the_emulator_or_refused_where_it_is_not_set_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARITY_ARM64_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ParityError) as err:
        cause_module.capture_ops(_trace(tmp_path, _prov("arm64", EMULATED)), [0], tmp_path)
    assert "the arm64 emulator with torch 2.13.0 is not set up in" in str(err.value) and "\n" not in str(err.value)
    assert "python tools/emulate_arm64.py setup --torch 2.13.0" in str(err.value)


def test_ops_a_trace_holds_in_full_are_taken_from_it_without_running_anything(tmp_path: Path) -> None:
    held = Captured({"in0": np.float32([1, 1])}, {"out": np.float32([2, 2])}, [])
    trace = _trace(tmp_path, _prov("arm64"), captured={0: held})
    trace.attrs.pop("command")  # nothing to run: the trace's own tensors serve
    assert cause_module.capture_ops(trace, [0], tmp_path) == {0: held}
    with pytest.raises(ParityError, match="does not say how its program was run"):
        cause_module.capture_ops(trace, [0, 1], tmp_path)


@x86_host
def test_the_roots_tensors_come_from_the_side_that_can_run_here(tmp_path: Path) -> None:
    here = {"arch": "x86_64", "isa": "avx2", "threads": 1, "capability": "AVX2", "torch_version": "2.13.0"}
    arm = _trace(tmp_path, _prov("arm64"))
    x86 = _trace(tmp_path, here, b"3" * 32)
    assert cause_module.capture_side(diff_traces(arm, x86)) == "B"  # A's program cannot run here, B's can
    assert cause_module.capture_side(diff_traces(x86, arm)) == "A"
    emulated = _trace(tmp_path, _prov("arm64", EMULATED))
    assert cause_module.capture_side(diff_traces(emulated, x86)) == "B"  # natively, not on its emulated core
    other_core = _trace(tmp_path, _prov("arm64", _note("neoverse-v1"), "neoverse-v1"), b"3" * 32)
    assert cause_module.capture_side(diff_traces(emulated, other_core)) == "A"  # both emulated: A's
    assert cause_module.capture_side(diff_traces(arm, emulated)) == "B"  # silicon, refused: the emulated one
    held = _trace(tmp_path, _prov("arm64"), captured={0: Captured({}, {}, [])})
    assert cause_module.capture_side(diff_traces(held, x86)) == "A"  # it holds them
    assert cause_module.capture_side(diff_traces(x86, held)) == "B"  # nothing runs at all


def test_between_two_architectures_the_knob_is_the_architecture(monkeypatch: pytest.MonkeyPatch) -> None:
    """An arm64 (NVPL) and an x86 (MKL) run of one product: the capability, BLAS, MKL code path and CPU
    differ too, but all follow from the architecture, which is the knob; the impl gives each side's bits
    under its own architecture's profile, and that profile alone turns A's bits into B's. The thread
    count, which the architecture does not decide, is named beside it where it differs too."""
    from harness.core.digest import digest
    from harness.impl import profiles
    from harness.trace import impl_ops

    out_a, out_b = np.float32([1.0, 2.0]), np.float32([1.0, 3.0])
    pa = profiles.profile_for_capability("DEFAULT", 1, "arm64")
    pb = profiles.profile_for_capability("AVX2", 1, "x86_64")
    by_profile = {pa: out_a, pb: out_b}
    monkeypatch.setattr(impl_ops, "replay", lambda op, inputs, args, profile: {"out": by_profile[profile]})
    arm = {**_prov("arm64", EMULATED), "blas": "nvpl", "platform_id": "linux-arm64-neoverse-n1-nvpl-t1"}
    x86 = {"arch": "x86_64", "isa": "avx2", "threads": 1, "capability": "AVX2", "torch_version": "2.13.0",
           "blas": "mkl", "mkl_code_path": "Intel(R) Architecture processors", "cpu_model": "AMD EPYC",
           "platform_id": "linux-x86_64-avx2-mklgeneric-t1"}  # fmt: skip
    x = TensorRef("in0", b"1" * 32, "float32", (2,), 0.0)
    op = lambda out: OpRecord(0, "aten.mm.default", "m", "x.py:1", "forward", 1, "", [x],
                              [TensorRef("out", digest(out, "mix256-v1"), "float32", (2,), 0.0)])  # fmt: skip
    trace = lambda prov, out: Trace(Path("t.h5"), {"provenance": prov, "digest": "mix256-v1"}, [op(out)])
    diff = diff_traces(trace(arm, out_a), trace(x86, out_b))
    cause = cause_module.explain(diff)
    assert cause is not None and cause.knobs == ["arch"] and cause.knob == "architecture"
    assert {"capability", "blas", "mkl_code_path", "cpu_model"} <= set(cause.differing)
    captured = Captured({"in0": np.float32([1, 1])}, {}, [])
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert verified and "changing only the architecture turns A's bits into B's" in text, text
    by_profile[pa], by_profile[pb] = out_a, out_a  # the impl does not give B's bits under B's own profile
    verified, text, _ = cause_module.replay_verdict(diff, cause, captured)
    assert not verified and "does not give side B's out bit for bit" in text, text
    two = diff_traces(trace(arm, out_a), trace({**x86, "threads": 2}, out_b))
    assert cause_module.explain(two).knobs == ["arch", "threads"]
    # each architecture's wheel is its own build of one release: not a knob beside the architecture
    ln = lambda prov: Trace(Path("t.h5"), {"provenance": prov, "digest": "mix256-v1"}, [
        OpRecord(0, "aten.native_layer_norm_backward.default", "m", "x.py:1", "backward", 1, "", [x],
                 [TensorRef("out", digest(out_a if prov is arm else out_b, "mix256-v1"), "float32", (2,), 0.0)])
    ])  # fmt: skip
    arm = {**arm, "torch_version_full": "2.13.0+cu130"}
    builds = diff_traces(ln(arm), ln({**x86, "torch_version_full": "2.13.0+cpu"}))
    assert cause_module.explain(builds).knobs == ["arch"]
    releases = diff_traces(ln(arm), ln({**x86, "torch_version": "2.14.1", "torch_version_full": "2.14.1+cpu"}))
    assert cause_module.explain(releases).knobs == ["arch", "torch_version"]


@pytest.mark.parametrize(
    ("part", "capability", "level"),
    [("0xd0c", "DEFAULT", "neoverse-n1"), ("0xd40", "SVE256", "neoverse-v1"), ("0xd4f", "SVE128", "neoverse-v2"),
     ("0xd08", "DEFAULT", "neon")],
)  # fmt: skip
def test_a_traces_level_is_the_cpus_own_of_those_of_its_capability(
    part: str, capability: str, level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ATen reports DEFAULT on every arm64 CPU without SVE: a Neoverse N1's trace names its own level
    (as its fixtures do), another core's (a Cortex-A72, part 0xd08) the plain ``neon``."""
    torch = pytest.importorskip("torch")
    from harness.platform import config
    from harness.trace import recorder

    flags = frozenset({"asimd", f"part:{part}", *(["sve"] if capability != "DEFAULT" else [])})
    monkeypatch.setattr(config, "collect_facts", lambda: config.PlatformFacts("linux", "arm64", "", flags))
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: capability)
    monkeypatch.setattr(recorder, "_blas_tag", lambda: "nvpl")
    assert recorder.running_platform_id() == f"linux-arm64-{level}-nvpl-t{torch.get_num_threads()}"
