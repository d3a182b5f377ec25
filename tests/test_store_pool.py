"""The store: one tensor pool shared by every fixture, pack, import, gc, migrate, temp files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from harness.core.bits import describe_first_mismatch
from harness.core.errors import FixtureError
from harness.formats.ops import CaseRecord, read_op_fixture, write_op_fixture
from harness.store.fixture import STORE_PACKED, STORE_POOL, FixtureReader, version_1_allowed
from harness.store.pool import POOL_DIR
from tests.store_helpers import edit_tree_json, write_v1


def parity(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, check=False)


def _same_bits(a, b) -> None:
    assert a.cases.keys() == b.cases.keys()
    for key, rec in a.cases.items():
        for part in ("inputs", "outputs"):
            want, have = getattr(rec, part), getattr(b.cases[key], part)
            assert list(want) == list(have), key
            for name in want:
                assert describe_first_mismatch(want[name], have[name]) is None, f"{key}/{part}/{name}"


def _pool_state(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / POOL_DIR).glob("*.hdf5"))}


def _second_config(records: list[CaseRecord]) -> list[CaseRecord]:
    """The same inputs with one output changed: what another configuration records."""
    out = []
    for rec in records:
        outputs = dict(rec.outputs)
        if rec.op == "exp":
            outputs["out"] = np.nextafter(outputs["out"], np.float32(np.inf))
        out.append(CaseRecord(rec.op, rec.case, rec.params, rec.inputs, outputs, rec.deterministic, rec.call))
    return out


def test_a_store_fixture_names_pool_tensors_and_a_new_configuration_only_adds_a_file(
    tmp_path, small_records, provenance
):
    root = tmp_path / "store"
    first = root / "torch-0.0.0" / "a.h5"
    write_op_fixture(first, provenance, small_records)
    with FixtureReader(first) as reader:
        assert reader.form == STORE_POOL and reader.schema_version == 2
    with h5py.File(first) as f:
        assert list(f) == ["tree"]  # no tensor data in the fixture itself
    before = _pool_state(root)
    assert len(before) == 1
    _same_bits(read_op_fixture(first), read_op_fixture(first))
    for rec in small_records:
        got = read_op_fixture(first).cases[rec.key]
        for name, arr in rec.outputs.items():
            assert describe_first_mismatch(np.asarray(arr), got.outputs[name]) is None

    write_op_fixture(root / "torch-0.0.0" / "b.h5", provenance, _second_config(small_records))
    after = _pool_state(root)
    assert {k: after[k] for k in before} == before, "an existing pool file changed"
    added = set(after) - set(before)
    assert len(added) == 1
    with h5py.File(root / POOL_DIR / added.pop()) as f:
        assert len(f["tensors"]) == 1  # only the one changed output is new

    write_op_fixture(root / "torch-0.0.1" / "a.h5", provenance, small_records)  # another release, same bits
    assert _pool_state(root) == after, "identical tensors added a pool file"


def test_pack_import_and_the_manifest_survive_the_round_trip(tmp_path, small_records, provenance):
    root = tmp_path / "store"
    src = write_op_fixture(root / "torch-0.0.0" / "a.h5", provenance, small_records) and root / "torch-0.0.0" / "a.h5"
    out = tmp_path / "packs"
    out.mkdir()
    assert parity("pack", str(src), "--out", str(out)).returncode == 0
    packed = out / "a.h5"
    moved = tmp_path / "elsewhere" / "a.h5"
    moved.parent.mkdir()
    packed.rename(moved)  # self-contained: readable without any pool
    with FixtureReader(moved) as reader, FixtureReader(src) as original:
        assert reader.form == STORE_PACKED
        assert reader.manifest == original.manifest
    _same_bits(read_op_fixture(src), read_op_fixture(moved))

    other = tmp_path / "other-store"
    result = parity("import", str(moved), "--root", str(other))
    assert result.returncode == 0, result.stderr
    imported = other / "torch-0.0.0" / "linux-x86_64-avx2-t1.h5"  # the name its contents give it
    _same_bits(read_op_fixture(src), read_op_fixture(imported))
    again = parity("import", str(moved), "--root", str(other))
    assert again.returncode == 2
    assert again.stderr.strip() == f"parity: error: {imported}: already exists; pass --force to overwrite it"


def test_version_1_files_read_and_migrate_keeps_every_bit(tmp_path, small_records, provenance):
    root = tmp_path / "store"
    v1 = write_v1(root / "torch-0.0.0" / "a.h5", provenance, small_records)
    loose = write_v1(tmp_path / "loose.h5", provenance, small_records)
    with version_1_allowed():
        before = read_op_fixture(v1)
        with FixtureReader(v1) as reader:
            assert reader.schema_version == 1
    refused = parity("verify", str(v1))
    assert refused.returncode == 2 and "parity migrate" in refused.stderr and len(refused.stderr.splitlines()) == 1
    result = parity("migrate", str(root), str(loose))
    assert result.returncode == 0, result.stderr
    assert "2 fixture(s) converted" in result.stdout
    with FixtureReader(v1) as reader, FixtureReader(loose) as packed:
        assert (reader.schema_version, reader.form) == (2, STORE_POOL)
        assert (packed.schema_version, packed.form) == (2, STORE_PACKED)
    _same_bits(before, read_op_fixture(v1))
    _same_bits(before, read_op_fixture(loose))
    assert read_op_fixture(v1).attrs["input_digest"] == before.attrs["input_digest"]
    assert "0 fixture(s) converted" in parity("migrate", str(root)).stdout


def test_gc_is_a_dry_run_unless_told_and_keeps_what_is_named(tmp_path, small_records, provenance):
    root = tmp_path / "store"
    a = root / "torch-0.0.0" / "a.h5"
    write_op_fixture(a, provenance, small_records)
    write_op_fixture(root / "torch-0.0.0" / "b.h5", provenance, _second_config(small_records))
    assert parity("gc", str(root)).stdout.strip().endswith("0 unused pool entries, 0.00 MiB")
    (root / "torch-0.0.0" / "b.h5").unlink()
    dry = parity("gc", str(root))
    assert dry.returncode == 0 and "1 unused pool entries" in dry.stdout and "--delete" in dry.stdout
    assert len(_pool_state(root)) == 2
    done = parity("gc", str(root), "--delete")
    assert done.returncode == 0, done.stderr
    assert len(_pool_state(root)) == 1
    assert parity("verify", str(root)).returncode == 0
    _same_bits(read_op_fixture(a), read_op_fixture(a))

    (root / "torch-0.0.0" / "broken.h5").write_bytes(b"not hdf5")
    refused = parity("gc", str(root), "--delete")
    assert refused.returncode == 2 and "gc needs every fixture readable" in refused.stderr


_WRITER = """
import sys
import numpy as np
from pathlib import Path
from harness.formats.ops import CaseRecord, write_op_fixture
root, seed = Path(sys.argv[1]), int(sys.argv[2])
x = np.random.Generator(np.random.PCG64(seed % 3)).standard_normal(500, dtype=np.float32)
rec = CaseRecord("exp", "c", {}, {"x": x}, {"out": np.exp(x)}, True, "torch.exp(x)")
path = root / "torch-0.0.0" / f"w{seed}.h5"
write_op_fixture(path, {"torch_version": "0.0.0", "platform_id": f"linux-x86_64-avx2-t{seed + 1}"}, [rec])
"""


def test_concurrent_writers_into_one_store(tmp_path):
    """Writers of the same tensors at once: each publishes its own file, none is clobbered."""
    root = tmp_path / "store"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(root), str(seed)]) for seed in range(6)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 6
    result = parity("verify", str(root))
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("ok    ") == 7  # the pool and six fixtures
    assert not [p for p in root.rglob(".*") if p.is_file()], "temporary files left behind"
    assert len(list((root / POOL_DIR).glob("*.hdf5"))) <= 6


def test_leftover_temp_files_are_named_by_verify_and_list(tmp_path, small_records, provenance):
    root = tmp_path / "store"
    write_op_fixture(root / "torch-0.0.0" / "a.h5", provenance, small_records)
    leftover = root / "torch-0.0.0" / ".b.h5.k3j4.tmp"
    leftover.write_bytes(b"half")
    verify = parity("verify", str(root))
    assert verify.returncode == 0
    assert f"note  {leftover}: leftover temporary file" in verify.stdout
    listed = parity("list", str(root))
    assert "leftover temporary file torch-0.0.0/.b.h5.k3j4.tmp" in listed.stdout
    assert str(tmp_path) not in listed.stdout.replace(f"{root}:", "")  # paths relative to the root


def test_list_shows_what_each_fixture_adds_to_the_pool(tmp_path, small_records, provenance):
    root = tmp_path / "store"
    write_op_fixture(root / "torch-0.0.0" / "a.h5", provenance | {"created": "2026-01-01"}, small_records)
    write_op_fixture(root / "torch-0.0.1" / "a.h5", provenance | {"created": "2026-01-02"}, small_records)
    rows = [line.split() for line in parity("list", str(root)).stdout.splitlines() if "a.h5" in line]
    assert [r[0] for r in rows] == ["torch-0.0.0/a.h5", "torch-0.0.1/a.h5"]
    assert float(rows[0][-2]) > 0 and rows[1][-2] == "0.00"


def test_a_changed_attribute_in_a_store_fixture_fails_its_manifest(tmp_path, small_records, provenance):
    path = tmp_path / "store" / "torch-0.0.0" / "a.h5"
    write_op_fixture(path, provenance, small_records)

    def bump(tree):
        params = json.loads(tree["ops/exp/3x300"]["attrs"]["params"])
        tree["ops/exp/3x300"]["attrs"]["params"] = json.dumps(params | {"shape": [3, 301]})

    edit_tree_json(path, bump, reseal=False)
    with pytest.raises(FixtureError, match="manifest mismatch"):
        read_op_fixture(path)
    edit_tree_json(path, lambda tree: None, reseal=True)
    with pytest.raises(FixtureError, match="input digest does not match"):
        read_op_fixture(path)


def test_a_missing_pool_file_is_named(tmp_path, small_records, provenance):
    path = tmp_path / "store" / "torch-0.0.0" / "a.h5"
    write_op_fixture(path, provenance, small_records)
    for pool_file in (tmp_path / "store" / POOL_DIR).glob("*.hdf5"):
        pool_file.unlink()
    result = parity("verify", str(path))
    assert result.returncode == 2
    assert "not in the pool" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_migrate_names_the_blas_code_path_of_ids_recorded_without_it(tmp_path, small_records, provenance):
    """'linux-x86_64-avx2-t1' recorded by MKL on an AMD CPU becomes 'linux-x86_64-avx2-mklgeneric-t1'."""
    root = tmp_path / "store"
    amd = {**provenance, "blas": "mkl", "mkl_code_path": "Intel(R) Architecture processors"}
    old = write_v1(root / "torch-0.0.0" / "linux-x86_64-avx2-t1.h5", amd, small_records)
    with version_1_allowed():
        before = read_op_fixture(old)
    result = parity("migrate", str(root))
    assert result.returncode == 0, result.stderr
    assert "as linux-x86_64-avx2-mklgeneric-t1.h5" in result.stdout
    assert not old.exists()
    renamed = read_op_fixture(root / "torch-0.0.0" / "linux-x86_64-avx2-mklgeneric-t1.h5")
    assert renamed.attrs["platform_id"] == renamed.provenance["platform_id"] == "linux-x86_64-avx2-mklgeneric-t1"
    assert renamed.provenance["platform_id_recorded"] == "linux-x86_64-avx2-t1"
    _same_bits(before, renamed)
    assert parity("verify", str(root)).returncode == 0
    assert "0 fixture(s) converted" in parity("migrate", str(root)).stdout
