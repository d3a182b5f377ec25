"""The HDF5 store: exact round trip, digests, atomic and non-clobbering writes."""

from __future__ import annotations

import os
from pathlib import Path

import h5py
import numpy as np
import pytest

from harness.core.bits import describe_first_mismatch
from harness.core.errors import FixtureError
from harness.formats.ops import CaseRecord, input_digest, read_op_fixture, write_op_fixture
from harness.store import TENSORS, FixtureReader, FixtureWriter, tensor_digest
from tests.store_helpers import rewrite


def assert_bits_equal(expected: np.ndarray, actual: np.ndarray, what: str) -> None:
    problem = describe_first_mismatch(np.asarray(expected), np.asarray(actual))
    assert problem is None, f"{what}: {problem}"


def test_round_trip_keeps_bits_dtypes_shapes_and_attrs(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    write_op_fixture(path, provenance, small_records)
    fx = read_op_fixture(path)
    assert list(fx.cases) == [r.key for r in small_records]  # recording order is kept
    assert fx.provenance == provenance
    assert fx.attrs["input_digest"] == input_digest(small_records)
    for rec in small_records:
        got = fx.cases[rec.key]
        assert got.params == rec.params
        assert got.deterministic is rec.deterministic
        assert got.call == rec.call
        for part in ("inputs", "outputs"):
            want, have = getattr(rec, part), getattr(got, part)
            assert list(have) == list(want)
            for name in want:
                arr = np.asarray(want[name])
                assert have[name].dtype == arr.dtype and have[name].shape == arr.shape, name
                assert_bits_equal(arr, have[name], f"{rec.key}/{part}/{name}")


def test_negative_zero_and_nan_payloads_survive(tmp_path, provenance):
    special = np.array([0.0, -0.0, np.inf, -np.inf, 1e-45], dtype=np.float32)
    nans = np.array([0x7FC00000, 0x7FC00001, 0xFFC00123], dtype=np.uint32).view(np.float32)
    rec = CaseRecord("x", "special", {}, {"a": special, "nan": nans}, {"out": special})
    write_op_fixture(tmp_path / "s.h5", provenance, [rec])
    got = read_op_fixture(tmp_path / "s.h5").cases["x/special"]
    assert_bits_equal(special, got.inputs["a"], "special values")
    assert_bits_equal(nans, got.inputs["nan"], "NaN payloads")


def test_equal_tensors_are_stored_once_and_shape_is_part_of_identity(tmp_path, provenance):
    a = np.arange(600, dtype=np.float32)
    recs = [
        CaseRecord("op", "one", {}, {"x": a}, {"out": a, "flat": a}),
        CaseRecord("op", "two", {}, {"x": a.reshape(20, 30)}, {"out": a}),
    ]
    write_op_fixture(tmp_path / "d.h5", provenance, recs)
    with h5py.File(tmp_path / "d.h5") as f:
        assert len(f[TENSORS]) == 2  # (600,) once, (20, 30) once
    fx = read_op_fixture(tmp_path / "d.h5")
    assert fx.cases["op/two"].inputs["x"].shape == (20, 30)


def test_flipped_bit_in_a_tensor_is_caught(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    write_op_fixture(path, provenance, small_records)
    with h5py.File(path, "r+") as f:
        ds = f["ops/exp/3x300/outputs/out"]
        data = ds[()]
        data.view(np.uint32)[1, 17] ^= 1  # lowest mantissa bit of one element
        ds[...] = data
    with pytest.raises(FixtureError, match=r"SHA-256 mismatch.*corrupted"):
        read_op_fixture(path)
    with FixtureReader(path) as reader, pytest.raises(FixtureError, match="SHA-256 mismatch"):
        reader.verify_all()


def test_flipped_byte_on_disk_is_caught(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    write_op_fixture(path, provenance, small_records)
    with h5py.File(path) as f:
        offset = f["ops/exp/3x300/outputs/out"].id.get_offset()
        assert offset is None  # compressed: chunked, so find the chunk
        chunk = f["ops/exp/3x300/outputs/out"].id.get_chunk_info(0)
    raw = bytearray(path.read_bytes())
    raw[chunk.byte_offset + chunk.size // 2] ^= 0x10
    path.write_bytes(bytes(raw))
    with pytest.raises(FixtureError, match=r"ops/exp/3x300/outputs/out|tensors/"):
        read_op_fixture(path)


def test_digest_is_of_little_endian_c_order_bytes():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert tensor_digest(x) == tensor_digest(np.asfortranarray(x))
    assert tensor_digest(x) == tensor_digest(x.astype(">f4"))
    assert tensor_digest(x) != tensor_digest(x.astype(np.float64))


def test_existing_file_is_not_overwritten_without_force(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    path.write_bytes(b"precious")
    with pytest.raises(FixtureError, match="already exists; pass --force"):
        write_op_fixture(path, provenance, small_records)
    assert path.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["f.h5"]


def test_force_replaces_the_file(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    path.write_bytes(b"old")
    write_op_fixture(path, provenance, small_records, force=True)
    assert len(read_op_fixture(path).cases) == 2


def test_a_file_appearing_during_the_write_is_not_clobbered(tmp_path, provenance):
    path = tmp_path / "f.h5"
    with pytest.raises(FixtureError, match="already exists"), FixtureWriter(path, "ops") as writer:
        writer.put("g", "x", np.zeros(3, dtype=np.float32))
        path.write_bytes(b"written meanwhile")
    assert path.read_bytes() == b"written meanwhile"
    assert sorted(os.listdir(tmp_path)) == ["f.h5"]  # no temporary file left


def test_failed_write_leaves_nothing_behind(tmp_path, provenance):
    path = tmp_path / "sub" / "f.h5"
    bad = CaseRecord("op", "c", {}, {"x": np.array(["text"])}, {"out": np.zeros(1, np.float32)})
    with pytest.raises(ValueError, match="cannot be stored"):
        write_op_fixture(path, provenance, [bad])
    assert not path.exists()
    assert not path.parent.exists() or os.listdir(path.parent) == []


def test_failed_overwrite_keeps_the_old_file(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    write_op_fixture(path, provenance, small_records)
    before = path.read_bytes()
    bad = CaseRecord("op", "c", {}, {"x": np.array(["text"])}, {})
    with pytest.raises(ValueError):
        write_op_fixture(path, provenance, [bad], force=True)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["f.h5"]


def test_written_file_is_readable_by_others(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    write_op_fixture(path, provenance, small_records)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("kind", ["ops", "nanogpt"])
def test_reader_checks_the_kind(tmp_path, kind):
    path = tmp_path / "k.h5"
    with FixtureWriter(path, kind) as writer:
        writer.put("g", "x", np.zeros(2, np.float32))
    if kind == "ops":
        FixtureReader(path, kind="ops").close()
    else:
        with pytest.raises(FixtureError, match="is a 'nanogpt' fixture, expected 'ops'"):
            FixtureReader(path, kind="ops")


def test_missing_outputs_is_reported_as_damage(tmp_path, small_records, provenance):
    path = tmp_path / "f.h5"
    write_op_fixture(path, provenance, small_records)
    with h5py.File(path, "r+") as f:
        del f["ops/exp/3x300/outputs"]
    with pytest.raises(FixtureError, match="manifest mismatch"):  # a change after writing
        read_op_fixture(path)
    write_op_fixture(path, provenance, small_records, force=True)

    def drop_outputs(tree):
        tree["ops/exp/3x300"].groups.remove("outputs")
        del tree["ops/exp/3x300/outputs"]

    rewrite(path, drop_outputs)  # written that way, with a valid manifest
    with pytest.raises(FixtureError, match="damaged fixture: ops/exp/3x300 has no outputs"):
        read_op_fixture(path)


def test_error_names_the_file(tmp_path: Path):
    with pytest.raises(FixtureError) as info:
        FixtureReader(tmp_path / "absent.h5")
    assert str(info.value) == f"{tmp_path / 'absent.h5'}: no such file"
