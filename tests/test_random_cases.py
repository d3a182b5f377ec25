"""Seeded random cases: reproducible draws around the sizes that change bits, values of their
own, and fixtures of them that read back and refuse a case that is not of their draw."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import FixtureError
from harness.core.op_ids import MODEL_OP_IDS, OP_IDS
from harness.workloads import random_cases as draws
from harness.workloads.inputs import normal, salted
from harness.workloads.random_cases import (
    FIXTURE_GROUPS,
    GRAIN,
    GROUPS,
    MODEL_GROUPS,
    expected_params,
    model_tensor_names,
    random_cases,
)


def test_every_op_is_in_exactly_one_group():
    members = [op for ops in GROUPS.values() for op in ops]
    assert sorted(members) == sorted((*OP_IDS, *MODEL_OP_IDS)) and len(members) == len(set(members))
    assert sorted(op for ops in FIXTURE_GROUPS.values() for op in ops) == sorted(OP_IDS)
    assert list(GROUPS)[: len(FIXTURE_GROUPS)] == list(FIXTURE_GROUPS)  # the model ops' groups come after


@pytest.mark.parametrize(("per_group", "seed"), [(1, 1), (12, 2), (40, 3), (300, 7)])
def test_the_model_groups_leave_the_fixture_ops_draws_as_they_were(per_group: int, seed: int, monkeypatch):
    """A reader redraws a fixture's cases from (per_group, seed): the draw of the 26 fixture ops must be
    the one made before the model ops' groups were appended (the committed random fixtures hold it)."""
    full = random_cases(per_group, seed)
    monkeypatch.setattr(draws, "GROUPS", dict(FIXTURE_GROUPS))
    before = random_cases(per_group, seed)
    assert set(before) <= set(OP_IDS) and (per_group < 9 or sorted(before) == sorted(OP_IDS))
    for op, cases in before.items():
        assert [(c.name, dict(c.params)) for c in cases] == [(c.name, dict(c.params)) for c in full[op]], op


def test_every_model_op_is_drawn_with_its_tensor_names():
    cases = random_cases(24, 9, list(MODEL_OP_IDS))
    assert sorted(cases) == sorted(MODEL_OP_IDS)
    for op, drawn in cases.items():
        for case in drawn:
            inputs, outputs = model_tensor_names(op, case.params)
            assert "out" in outputs and not inputs & {"out"}, op
    group_of = {op: g for g, ops in MODEL_GROUPS.items() for op in ops}
    assert all(c.name.startswith(f"r9-{group_of[op]}-") for op, cs in cases.items() for c in cs)


def test_draws_are_reproducible_and_fill_every_group():
    a, b = random_cases(100, 1), random_cases(100, 1)
    assert {op: [c.params for c in cs] for op, cs in a.items()} == {op: [c.params for c in cs] for op, cs in b.items()}
    for group, ops in GROUPS.items():
        assert sum(len(a[op]) for op in ops) == 100, group
    assert random_cases(100, 2)["exp"][0].params != a["exp"][0].params
    salts = [c.params["salt"] for cs in a.values() for c in cs]
    assert len(salts) == len(set(salts)) and 0 not in salts  # every case its own value stream


def test_a_draw_restricted_to_some_ops_is_part_of_the_full_draw():
    full, part = random_cases(40, 3), random_cases(40, 3, ["sdpa", "matmul", "layer_norm"])
    assert sorted(part) == ["layer_norm", "matmul", "sdpa"]
    for op, cases in part.items():
        assert [(c.name, dict(c.params)) for c in cases] == [(c.name, dict(c.params)) for c in full[op]], op
    assert len(part["sdpa"]) == 20  # its share of the attention group's 40 cases (sdpa, sdpa_dropout)


def test_sizes_reach_the_tails_the_widths_and_the_thread_grain():
    sizes = [int(np.prod(c.params["shape"])) for op in ("exp", "tanh", "gelu") for c in random_cases(300, 5)[op]]
    assert any(n < 4 for n in sizes)  # scalar tails only
    assert any(n % 16 == 0 for n in sizes) and any(n % 16 == 15 for n in sizes)
    assert any(abs(n - GRAIN) < 20 or abs(n - 2 * GRAIN) < 20 for n in sizes)  # where parallel_for splits


def test_salt_changes_values_and_salt_zero_is_the_fixed_stream():
    fixed = normal((5,), 1)
    with salted(0):
        assert (normal((5,), 1) == fixed).all()
    with salted(7):
        other = normal((5,), 1)
    assert not (other == fixed).all() and (normal((5,), 1) == fixed).all()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A random fixture recorded by this machine's torch, two cases per group."""
    pytest.importorskip("torch")
    from harness.formats.ops import write_op_fixture
    from harness.platform import provenance
    from harness.platform.config import PlatformConfig, collect_facts
    from harness.record.launch import default_config
    from harness.record.ops_child import record_ops
    from harness.record.torch_ops import OPS_BY_NAME

    cases = random_cases(2, 4)
    ops = [OPS_BY_NAME[op] for op in OP_IDS if op in cases]
    records = record_ops(ops, cases=cases)
    config = default_config("2.13.0")
    prov = provenance.collect(
        config, collect_facts(), ops_recorded=[op.name for op in ops], random_cases={"per_group": 2, "seed": 4}
    )
    # named after the thread count and BLAS path this process ran (unpinned, an Intel CPU with AMX runs
    # MKL's AMX path), not the committed set's that default_config found
    config = PlatformConfig(config.os, config.arch, config.isa, int(prov["threads"])).with_blas(prov["blas_path"])
    prov = {**prov, "platform_id": config.id}
    path = tmp_path_factory.mktemp("random") / f"{config.id}.random-4.h5"
    write_op_fixture(path, prov, records, force=False)
    return path


def test_a_random_fixture_reads_back_with_its_drawn_cases(recorded: Path):
    from harness.formats.ops import read_op_fixture

    fixture = read_op_fixture(recorded)
    assert len(fixture.cases) == 2 * len(FIXTURE_GROUPS)
    drawn = expected_params(2, 4)
    for rec in fixture.cases.values():
        assert drawn[(rec.op, rec.case)] == rec.params
        shapes = [list(a.shape) for a in rec.inputs.values()]
        if "shape" in rec.params and rec.op not in ("randn",):
            assert list(rec.params["shape"]) in shapes


def test_a_case_not_of_its_draw_is_refused(recorded: Path, tmp_path: Path):
    from dataclasses import replace

    from harness.formats.ops import read_op_fixture, write_op_fixture

    fixture = read_op_fixture(recorded)
    records = list(fixture.cases.values())
    records[0] = replace(records[0], params={**records[0].params, "salt": records[0].params["salt"] + 1})
    damaged = tmp_path / recorded.name
    write_op_fixture(damaged, fixture.provenance, records, force=False)
    with pytest.raises(FixtureError, match="is not a case of its random draw"):
        read_op_fixture(damaged)
    prov = {**fixture.provenance, "random_cases": {"seed": 4}}
    write_op_fixture(tmp_path / "b.h5", prov, list(fixture.cases.values()), force=False)
    with pytest.raises(FixtureError, match=r"random_cases provenance: per_group None and seed 4 are no draw"):
        read_op_fixture(tmp_path / "b.h5")


def test_a_subset_of_a_random_fixture_keeps_its_draw_and_reads_back(recorded: Path, tmp_path: Path, capsys):
    import importlib.util

    from harness.formats.ops import read_op_fixture

    spec = importlib.util.spec_from_file_location(
        "random_subset", Path(__file__).parent.parent / "tools/random_subset.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    full = read_op_fixture(recorded)
    named = next(iter(full.cases))
    out = tmp_path / recorded.name
    assert tool.main([str(recorded), "--out", str(out), "--max-kib", "0", "--cases", named]) == 0
    part = read_op_fixture(out)  # each kept case checked against the full draw as it is read
    assert list(part.cases) == [named]
    assert part.provenance["random_cases"] == {"per_group": 2, "seed": 4, "cases": [named]}  # the subset it keeps
    want, got = full.cases[named], part.cases[named]
    for name, arr in want.outputs.items():
        assert np.array_equal(arr.view(np.uint32), got.outputs[name].view(np.uint32)), name
    assert tool.main([str(recorded), "--out", str(tmp_path / "x.h5"), "--cases", "exp/no-such-case"]) == 2
    assert capsys.readouterr().err.strip().endswith("no such case in the fixture: exp/no-such-case")
    op = full.cases[named].op  # --ops: only that op's cases within the size, the named ones whatever their op
    other = next(key for key, rec in full.cases.items() if rec.op != op)
    only = tmp_path / "only.h5"
    assert tool.main([str(recorded), "--out", str(only), "--max-kib", "1e6", "--ops", op, "--cases", other]) == 0
    part = read_op_fixture(only)
    assert {rec.op for key, rec in part.cases.items() if key != other} == {op}
    assert other in part.cases
    assert len(part.cases) == 1 + sum(rec.op == op for rec in full.cases.values())
    assert tool.main([str(recorded), "--out", str(tmp_path / "y.h5"), "--ops", "no_such_op"]) == 2
    assert capsys.readouterr().err.strip().endswith("no case of no_such_op in the fixture")


def test_the_subset_tool_refuses_bad_arguments_in_one_line(tmp_path: Path):
    import subprocess
    import sys

    tool = Path(__file__).parent.parent / "tools/random_subset.py"
    for args in (
        ["x.h5", "--out", str(tmp_path / "o.h5"), "--max-kib", "abc"],
        ["x.h5"],
        [str(tmp_path / "no.h5"), "--out", str(tmp_path / "o.h5")],
    ):
        result = subprocess.run([sys.executable, str(tool), *args], capture_output=True, text=True, check=False)
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
        assert result.stderr.startswith("parity: error: "), result.stderr
