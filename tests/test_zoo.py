"""The zoo (tools/zoo.py) in short: GPT-2 of Hugging Face transformers, fine-tuned from NumPy's
weights, at avx2 against baseline, one step. The full zoo is ``tox -e zoo``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from harness.platform.config import collect_facts, supported_levels

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import zoo


def test_gpt2_fine_tuned_names_its_first_layer_norm_and_the_overwritten_initialisation_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The library's normal_ initialisation differs between avx2 and baseline, but the loaded
    weights overwrite it: the live root cause is the first LayerNorm, verified by the impl, and
    the initialisation is listed as dead, overwritten before anything read it. Both traces audited:
    no op the impl replays gives other bits."""
    if not {"avx2", "baseline"} <= {lvl.name for lvl in supported_levels(collect_facts())}:
        pytest.skip("needs a CPU with AVX2")
    argv = ["--models", "gpt2", "--inits", "load", "--comparisons", "baseline", "--steps", "1", "--out", str(tmp_path)]
    assert zoo.main([*argv, "--audit"]) == 0  # 1: an op of the two traces the impl gave other bits
    data = json.loads((tmp_path / "gpt2-load-baseline.json").read_text())
    root = data["root_cause"]
    assert (root["op"], root["module"]) == ("aten.native_layer_norm.default", "GPT2LMHeadModel.transformer.h.0.ln_1")
    assert root["knobs"] == ["capability"] and root["verified"] is True
    assert all(r["op"] != "aten.normal_.default" for r in data["reach"]["root_causes"])
    dead = [d for d in data["reach"]["dead"] if d["op"] == "aten.normal_.default"]
    assert any(d["died"].startswith("overwritten by aten.copy_.default") for d in dead)  # the loaded weights
    assert all(d["index_a"] < root["index_a"] for d in dead)  # earlier in the stream, and still not the cause
    row = (tmp_path / "zoo.md").read_text().splitlines()[-1]
    assert row.startswith("| gpt2 | load | baseline | `native_layer_norm` |") and "**verified**" in row
    for level in ("avx2", "baseline"):  # every op of both runs the impl knows, the first 20 of each: the traced bits
        audit = json.loads((tmp_path / f"gpt2-load-linux-x86_64-{level}-t1.audit.json").read_text())
        ops = {o["op"]: o for o in audit["ops"]}
        assert audit["summary"]["other"] == 0 and audit["summary"]["exact"] >= 250, audit["summary"]
        assert ops["bmm"]["exact"] == ops["bmm"]["in_trace"] > 0 and ops["native_layer_norm_backward"]["exact"] > 0


def test_the_zoo_refuses_what_it_does_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    assert zoo.main(["--models", "gpt3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("parity: error: --models: gpt3; choose from gpt2,") and err.count("\n") == 1
    assert zoo.main(["--comparisons", ""]) == 2
    assert "--comparisons: none given" in capsys.readouterr().err


def test_every_script_of_the_zoo_is_one_of_its_models() -> None:
    """``tox -e zoo`` runs MODELS: a family's script that is not listed would never be traced."""
    scripts = {path.stem for path in zoo.ZOO.glob("*.py")} - {"common"}
    listed = zoo.MODELS + zoo.FULL_SIZE
    assert scripts == set(listed) and len(listed) == len(set(listed))


def test_each_platform_is_traced_once_and_each_comparison_diffs_its_own_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """threads and baseline share A (avx2, 1 thread); threads-4-8 has its own A and B, and its B
    (avx2, 8 threads) is baseline-8's A. A comparison whose level this CPU lacks says so in its row
    and traces nothing for it."""
    traced: list[tuple[str, str, str]] = []
    diffed: list[tuple[str, str]] = []

    def trace(model: str, init: str, platform: str, steps: int, out: Path) -> Path:
        traced.append((model, init, platform))
        return out / f"{model}-{init}-{platform}.h5"

    def compare(a: Path, b: Path, target: str, verify_cause: bool) -> dict:
        diffed.append((a.name, b.name))
        return {"bit_identical": True}

    class Level:
        def __init__(self, name: str) -> None:
            self.name = name

    monkeypatch.setattr(zoo, "trace", trace)
    monkeypatch.setattr(zoo, "compare", compare)
    monkeypatch.setattr(zoo, "supported_levels", lambda facts: [Level("baseline"), Level("avx2")])
    argv = ["--models", "resnet50", "--inits", "load", "--out", str(tmp_path),
            "--comparisons", "threads,baseline,avx512,threads-4-8,avx512-8,baseline-8"]  # fmt: skip
    assert zoo.main(argv) == 0
    assert [p for _, _, p in traced] == [
        "linux-x86_64-avx2-t1", "linux-x86_64-avx2-t2", "linux-x86_64-baseline-t1",
        "linux-x86_64-avx2-t4", "linux-x86_64-avx2-t8", "linux-x86_64-baseline-t8",
    ]  # fmt: skip
    assert diffed == [
        ("resnet50-load-linux-x86_64-avx2-t1.h5", "resnet50-load-linux-x86_64-avx2-t2.h5"),
        ("resnet50-load-linux-x86_64-avx2-t1.h5", "resnet50-load-linux-x86_64-baseline-t1.h5"),
        ("resnet50-load-linux-x86_64-avx2-t4.h5", "resnet50-load-linux-x86_64-avx2-t8.h5"),
        ("resnet50-load-linux-x86_64-avx2-t8.h5", "resnet50-load-linux-x86_64-baseline-t8.h5"),
    ]
    rows = (tmp_path / "zoo.md").read_text().splitlines()[2:]
    assert rows == [
        "| resnet50 | load | threads | bit-identical | | | | |",
        "| resnet50 | load | baseline | bit-identical | | | | |",
        "| resnet50 | load | avx512 | not run: this CPU has no avx512 | | | | |",
        "| resnet50 | load | threads-4-8 | bit-identical | | | | |",
        "| resnet50 | load | avx512-8 | not run: this CPU has no avx512 | | | | |",
        "| resnet50 | load | baseline-8 | bit-identical | | | | |",
    ]
    traced.clear()
    assert (
        zoo.main(["--models", "full-size", "--inits", "load", "--comparisons", "threads", "--out", str(tmp_path)]) == 0
    )
    assert [m for m, _, _ in traced] == [m for m in zoo.FULL_SIZE for _ in range(2)]


def test_each_trace_is_audited_once_and_an_op_the_impl_got_wrong_fails_the_zoo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --audit each platform's trace is audited once (threads and baseline share A), its row says
    what was refused most and names every op the impl gave other bits; one such op makes exit 1."""
    audited: list[str] = []

    def report(other: int) -> dict:
        refused = [
            {"op": "aten.pow.Scalar", "reason": "r1", "count": 8, "indices": []},
            {"op": "aten.embedding.default", "reason": "r", "count": 6, "indices": []},
            {"op": "aten.pow.Scalar", "reason": "r2", "count": 1, "indices": []},
            {"op": "aten.floor_divide.default", "reason": "r", "count": 2, "indices": []},
            {"op": "aten.gelu.default", "reason": "r", "count": 1, "indices": []},
        ]
        wrong = [{"op": "aten.mm.default", "index": 41}] * other
        return {"summary": {"chosen": 60, "exact": 42 - other, "other": other, "refused": 18}, "refused": refused,
                "other": wrong}  # fmt: skip

    def audit(path: Path) -> dict:
        audited.append(path.name)
        return report(1 if "baseline" in path.name else 0)

    monkeypatch.setattr(zoo, "trace", lambda model, init, platform, steps, out: out / f"{model}-{init}-{platform}.h5")
    monkeypatch.setattr(zoo, "compare", lambda a, b, target, verify: {"bit_identical": True})
    monkeypatch.setattr(zoo, "audited", audit)
    argv = ["--models", "gpt2", "--inits", "load", "--comparisons", "threads,baseline", "--out", str(tmp_path)]
    assert zoo.main([*argv, "--audit"]) == 1
    assert audited == [f"gpt2-load-linux-x86_64-{p}.h5" for p in ("avx2-t1", "avx2-t2", "baseline-t1")]
    rows = (tmp_path / "audit.md").read_text().splitlines()[2:]
    most = "`pow` 9, `embedding` 6, `floor_divide` 2 (+1 more)"
    assert rows == [
        f"| gpt2 | load | linux-x86_64-avx2-t1 | 60 | 42 | 0 | 18 | {most} | none |",
        f"| gpt2 | load | linux-x86_64-avx2-t2 | 60 | 42 | 0 | 18 | {most} | none |",
        f"| gpt2 | load | linux-x86_64-baseline-t1 | 60 | 41 | 1 | 18 | {most} | **`mm` op 41** |",
    ]
    assert json.loads((tmp_path / "gpt2-load-linux-x86_64-avx2-t1.audit.json").read_text())["summary"]["exact"] == 42
    monkeypatch.setattr(zoo, "audited", lambda path: report(0))
    assert zoo.main([*argv, "--audit"]) == 0
    audited.clear()
    assert zoo.main(argv) == 0 and audited == []  # no audit unless asked


def test_loaded_weights_include_zero_dimensional_parameters() -> None:
    """A scalar parameter (CLIP's ``logit_scale``) is loaded as the others, from the same stream."""
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "zoo"))
    import common

    model = torch.nn.Module()
    model.scale = torch.nn.Parameter(torch.tensor(2.0))
    model.weight = torch.nn.Parameter(torch.zeros(3, 2))
    common.load_weights(model)
    draws = np.random.default_rng(1).standard_normal(7) * 0.05
    assert model.scale.item() == np.float32(draws[0])
    assert np.array_equal(model.weight.detach().numpy(), draws[1:].reshape(3, 2).astype(np.float32))


def test_a_row_counts_each_roots_verdict() -> None:
    """Three live roots: one verified, one the impl does not reproduce, one past the verification's
    limit. The row names the first root and counts the rest apart, never as verified."""
    op = lambda name, verified, text: {
        "op": f"aten.{name}.default", "index_a": 1, "index_b": 1, "module": "m", "site": "/x/y.py:3",
        "phase": "forward", "step": 1, "outputs": ["out"], "knob": "intra-op thread count",
        "verified": verified, "verification": text,
    }  # fmt: skip
    roots = [
        op("mm", True, "the impl gives both sides' outputs bit for bit"),
        op("linalg_qr", False, "unexplained: the reference implementation does not reproduce aten.linalg_qr.default"),
        op("normal_", False, "not attempted (--verify-cause proves the first 128 live roots)"),
    ]
    data = {
        "bit_identical": False, "root_cause": {**roots[0], "knob": "intra-op thread count"},
        "reach": {"root_causes": roots, "dead": [], "dead_total": 0, "unresolved": []},
    }  # fmt: skip
    row = zoo.row("rwkv", "library", "threads", data)
    assert row == (
        "| rwkv | library | threads | `mm` (+2 more) | m (forward, step 1) at y.py:3 | intra-op thread count "
        "| **verified** (1 of 3 roots; not: `linalg_qr`; 1 not tried) | 0 |"
    )
    data["reach"]["unresolved"] = ["input self of op 7 (aten._to_copy.default) differs and no traced op wrote it"]
    assert zoo.row("rwkv", "library", "threads", data).endswith(
        "| **verified** (1 of 3 roots; not: `linalg_qr`; 1 not tried); 1 input unresolved (first: input self of op 7 "
        "(aten._to_copy.default) differs and no traced op wrote it) | 0 |"
    )


def test_a_row_of_host_data_says_the_trace_shows_it_never_verified() -> None:
    """A tensor made from NumPy data that differs (lift_fresh): its row says the trace shows it."""
    root = {
        "op": "aten.lift_fresh.default", "index_a": 4, "index_b": 4, "module": "", "site": "/x/m.py:9",
        "phase": "forward", "step": 1, "outputs": ["out"], "knob": "data made outside torch's ops",
        "verified": False, "verification": "shown by the trace (the impl replays nothing): ...", "kind": "host-data",
    }  # fmt: skip
    data = {"bit_identical": False, "root_cause": root,
            "reach": {"root_causes": [root], "dead": [], "dead_total": 0, "unresolved": []}}  # fmt: skip
    assert zoo.row("hubert", "library", "threads", data) == (
        "| hubert | library | threads | `lift_fresh` | - (forward, step 1) at m.py:9 | data made outside torch's ops "
        "| host data: shown by the trace | 0 |"
    )


def test_a_row_counts_roots_the_trace_shows_apart_from_the_unverified() -> None:
    """A kernel root verified and a host-data root (I-BERT's NumPy round trip): the row says the
    second is shown by the trace, not left as an unexplained miss."""
    op = lambda name, verified, text, kind: {
        "op": f"aten.{name}.default", "index_a": 1, "index_b": 1, "module": "m", "site": "/x/y.py:3",
        "phase": "forward", "step": 1, "outputs": ["out"], "knob": "k", "verified": verified,
        "verification": text, "kind": kind,
    }  # fmt: skip
    roots = [op("normal_", True, "the impl gives both sides' outputs bit for bit", "kernel"),
             op("lift_fresh", False, "shown by the trace (the impl replays nothing): ...", "host-data")]  # fmt: skip
    data = {"bit_identical": False, "root_cause": roots[0],
            "reach": {"root_causes": roots, "dead": [], "dead_total": 0, "unresolved": []}}  # fmt: skip
    assert "| **verified** (1 of 2 roots; 1 shown by the trace) |" in zoo.row("ibert", "library", "baseline", data)
