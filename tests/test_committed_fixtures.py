"""The committed fixture sets: intact, complete, consistently named, within budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.formats.ops import CaseRecord, input_digest, read_op_fixture
from harness.platform.config import parse_platform_id
from harness.record.torch_ops import OPS
from harness.store import FixtureReader

BUDGET_BYTES = 103 * 2**20  # the whole store: the pool and every configuration's fixture (102.17 MiB with
# the upstream shakespeare-char run, 1.6 MiB of it its batches, the arm64 random-case subsets, the
# torch 2.12.1 and 2.14.1 fixtures, 1.8 MiB on x86 (their Intel op sets 0.3 MiB) and 0.5 MiB on arm64,
# 2.13.0's avx512 at 4 and 8 threads, 5.5 MiB, the emulated Intel sets, 5.3 MiB, their nanoGPT tiny runs, 11.2 MiB, the
# MKL_CBWR=COMPATIBLE sets, 3.8 MiB, the random cases of the model ops, 1.9 MiB, and an Intel Xeon's own
# AVX-512 path, 5.1 MiB: its op set and nanoGPT tiny at 1 thread; the random cases of MKL's Intel paths
# recorded on such a Xeon, 1.1 MiB: the small cases of the ops MKL computes and the impl's misses)
PROVENANCE_KEYS = {
    "generator_version", "platform_id", "os", "arch", "isa", "threads", "capability",
    "torch_version", "torch_version_full", "torch_git_version", "torch_config", "torch_parallel_info",
    "blas", "cpu_model", "cpu_flags", "env", "python_version", "numpy_version", "h5py_version",
    "platform", "created", "ops_recorded", "mkl_code_path", "mkl_verbose_banner",
}  # fmt: skip
DYNAMIC_VARS = ("MKL_DYNAMIC", "OMP_DYNAMIC")  # pinned since the 4- and 8-thread recordings


def test_all_committed_fixtures_fit_the_budget(committed_root: Path):
    total = sum(p.stat().st_size for p in committed_root.rglob("*") if p.is_file())
    assert total < BUDGET_BYTES, f"committed fixtures take {total / 2**20:.1f} MiB"


def test_the_committed_store_is_version_2_with_nothing_unused_or_left_over(committed_root: Path):
    from harness.formats.maintenance import leftover_temp_files, list_store, plan_gc, pool_additions

    listed, sizes = list_store(committed_root)
    assert listed and not [f.path for f in listed if f.problem or f.form != "pool"]
    assert not plan_gc(committed_root).unused, "pool entries no fixture names"
    assert not leftover_temp_files(committed_root)
    added = dict(zip((f.path.relative_to(committed_root) for f in listed), pool_additions(listed, sizes), strict=True))
    assert (
        added[Path("torch-2.14.1/linux-x86_64-baseline-mklgeneric-t2.h5")] < 2**19
    )  # a new torch release: under 0.5 MiB


def test_every_committed_fixture_verifies_and_is_complete(committed_fixtures: list[Path]):
    for path in committed_fixtures:
        with FixtureReader(path) as reader:
            assert reader.verify_all() > 0  # every tensor read and checked: the structure is read below
        fx = read_op_fixture(path, load=False)
        config = parse_platform_id(path.stem)
        assert fx.attrs["platform_id"] == config.id, path
        assert path.parent.name == f"torch-{fx.attrs['torch_version']}", path
        assert fx.ops == [op.name for op in OPS], path
        assert len(fx.cases) == sum(len(op.cases) for op in OPS), path
        prov = fx.provenance
        assert set(prov) >= PROVENANCE_KEYS, f"{path}: missing {PROVENANCE_KEYS - set(prov)}"
        assert prov["threads"] == config.threads
        assert prov["capability"] == config.level.aten_capability
        for var, value in config.env().items():
            if var in DYNAMIC_VARS and var not in prov["env"] and config.threads <= 2:
                continue  # recorded before they were pinned: on its 2-core host they change no bit at 1 or 2 threads
            assert prov["env"].get(var) == value, f"{path}: {var} was {prov['env'].get(var)}"


def test_every_committed_random_subset_is_of_its_draw_and_configuration(committed_random: list[Path]):
    """Each holds cases of its recorded draw (checked as it is read), named after its id and seed."""
    for path in committed_random:
        with FixtureReader(path) as reader:
            assert reader.verify_all() > 0
        fx = read_op_fixture(path, load=False)
        platform, seed = path.stem.split(".random-")
        config = parse_platform_id(platform)
        prov = fx.provenance
        assert fx.attrs["platform_id"] == config.id and prov["threads"] == config.threads, path
        assert prov["random_cases"]["seed"] == int(seed) and fx.cases, path
        assert set(prov) >= PROVENANCE_KEYS, f"{path}: missing {PROVENANCE_KEYS - set(prov)}"


@pytest.fixture(scope="module")
def current_input_digest() -> str:
    """The input digest the generator's code makes today (inputs come from NumPy only)."""
    records = [
        CaseRecord(op.name, case.name, dict(case.params), op.make_inputs(dict(case.params)), {})
        for op in OPS
        for case in op.cases
    ]
    return input_digest(records)


def test_committed_inputs_are_the_generators_inputs(committed_fixtures, current_input_digest):
    """All configurations were recorded from one input set, the one the code makes now."""
    for path in committed_fixtures:
        assert read_op_fixture(path, load=False).attrs["input_digest"] == current_input_digest, path


def test_every_committed_nanogpt_fixture_verifies_and_is_complete(committed_nanogpt: list[Path]):
    from harness.formats.nanogpt import input_digest, read_nanogpt_fixture
    from harness.record.nanogpt_train import CONFIGS, batches_for

    for path in committed_nanogpt:
        with FixtureReader(path) as reader:
            assert reader.verify_all() > 0
        fx = read_nanogpt_fixture(path, full=False)
        platform_id, _, name = path.stem.partition(".nanogpt-")
        config = parse_platform_id(platform_id)
        assert fx.attrs["platform_id"] == config.id and fx.config["name"] == name, path
        assert path.parent.name == f"torch-{fx.attrs['torch_version']}", path
        assert set(fx.provenance) >= PROVENANCE_KEYS - {"ops_recorded"} | {"model_source"}, path
        assert fx.attrs["deterministic"], f"{path}: the two recording runs differed"
        assert len(fx.run.steps) == fx.config["steps"] == 50
        # the batches are the ones the generator's sampler makes today
        cfg = CONFIGS[name]
        expected = input_digest(fx.config, [_batch_record(x, y) for x, y in batches_for(cfg)])
        assert fx.attrs["input_digest"] == expected, path
        for rec in fx.run.steps:
            assert rec.step in fx.attrs["full_steps"] or not rec.full
            assert len(rec.dropout_mask_digests) == 1 + 3 * cfg.n_layer


def _batch_record(x, y):
    from types import SimpleNamespace

    return SimpleNamespace(x=x, y=y)
