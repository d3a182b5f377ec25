"""A committed pair of arm64 traces, diffed and verified on any host without torch and without running
anything: the MLP of `python -m harness.trace.demo --model mlp` (2 AdamW steps) traced on an emulated
Neoverse N1 (torch 2.13.0's aarch64 wheel under QEMU) at 1 thread, with `--capture 38` (its live root's
tensors in full), and at 2 threads:

    python tools/emulate_arm64.py trace --cores neoverse-n1 --threads 1 --out n1-t1.h5 --capture 38 \\
        -- -m harness.trace.demo --model mlp
    python tools/emulate_arm64.py trace --cores neoverse-n1 --threads 2 --out n1-t2.h5 \\
        -- -m harness.trace.demo --model mlp

The impl replays the root under the arm64 profile of each side (arm64-neon at 1 and at 2 threads)
and must give each side's traced bits."""

from __future__ import annotations

from pathlib import Path

from harness.formats.trace import read_trace
from harness.trace.cause import diagnose

TRACES = Path(__file__).resolve().parent / "traces"


def test_the_n1_thread_pair_diffs_to_its_root_and_the_impl_verifies_it_under_the_arm64_profile() -> None:
    a, b = read_trace(TRACES / "arm64-mlp-n1-t1.h5"), read_trace(TRACES / "arm64-mlp-n1-t2.h5")
    assert (a.provenance["platform_id"], b.provenance["platform_id"]) == (
        "linux-arm64-neoverse-n1-nvpl-t1", "linux-arm64-neoverse-n1-nvpl-t2",
    )  # fmt: skip
    assert "QEMU_CPU=neoverse-n1" in a.provenance["emulation"] and a.recorder == b.recorder == "dispatch-mode"
    assert sorted(a.captured) == [38]
    diff = diagnose(a, b, verify_cause=True)
    roots = [(r.a.index, r.a.op) for r in diff.roots]
    assert roots == [(38, "aten.native_layer_norm_backward.default")]
    cause = diff.causes[0]
    assert cause is not None and cause.knobs == ["threads"]
    assert cause.verified, cause.verification
    assert cause.verification == (
        "the impl gives both sides' outputs bit for bit (arm64-neon t1 for A, arm64-neon t2 for B); in the impl, "
        "changing only the intra-op thread count turns A's bits into B's"
    )
    figures = {f.name: f.comparison for f in cause.figures}
    assert set(figures) == {"out1", "out2"}  # LayerNorm's weight and bias gradients
