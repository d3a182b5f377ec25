"""Seeded, bounded fuzzing of the store's readers: corrupted and incomplete fixtures, pools
and packed files, each run through the commands as a user would. Every variant must give
exit status 2 with one line ``parity: error: ...``: no traceback, never 0 (nor 1, "differs").

The variants start from the committed fixtures: a store holding a three-op fixture made from
a committed one (held to the generator's spec like any recording), the committed nanoGPT
tiny fixture (its pool linked, not copied) and a packed file of the op fixture.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest

from harness.cli import main
from harness.formats.maintenance import pack
from harness.formats.ops import read_op_fixture, write_op_fixture
from harness.store.fixture import TREE
from harness.store.hdf5 import write_dataset
from harness.store.paths import DEFAULT_FIXTURES
from harness.store.pool import POOL_DIR
from tests.store_helpers import edit_tree_json, store_copy

SEED = int(os.environ.get("PARITY_FUZZ_SEED", "20261201"))  # another seed explores other spots
FULL = os.environ.get("PARITY_FUZZ_FULL") == "1"  # tox -e fuzz: five seeds, every variant at three spots
SEEDS = [SEED + i for i in range(5)] if FULL else [SEED]
OPS = ["exp", "softmax", "adamw_step"]
SOURCE = "torch-2.13.0/linux-x86_64-avx2-mklgeneric-t2"
Variant = Callable[[Path, random.Random], Path]  # (a fresh store, rng) -> the file to check


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A store with the small op fixture (own pool) and the nanoGPT tiny fixture (linked pool)."""
    root = tmp_path_factory.mktemp("fuzz-base")
    fx = read_op_fixture(DEFAULT_FIXTURES / f"{SOURCE}.h5", ops=OPS)
    prov = dict(fx.provenance) | {"ops_recorded": OPS}
    write_op_fixture(root / "small" / "torch-2.13.0" / "ops.h5", prov, list(fx.cases.values()))
    store_copy(DEFAULT_FIXTURES, root / "nano", [f"{SOURCE}.nanogpt-tiny.h5"])
    pack(root / "small" / "torch-2.13.0" / "ops.h5", root / "ops.packed.h5", force=False)
    return root


def _fresh(base: Path, dest: Path) -> Path:
    shutil.copytree(base, dest, symlinks=True)
    return dest


# ------------------------------------------------------------------ store-form op fixture


def _ops(root: Path) -> Path:
    return root / "small" / "torch-2.13.0" / "ops.h5"


def _tree_edit(edit: Callable[[dict[str, Any], random.Random], None], *, reseal: bool) -> Variant:
    def make(root: Path, rng: random.Random) -> Path:
        return edit_tree_json(_ops(root), lambda tree: edit(tree, rng), reseal=reseal)

    return make


def _case_paths(tree: dict[str, Any]) -> list[str]:
    return [p for p in tree if p.count("/") == 2 and p.startswith("ops/")]


# attributes whose meaning the readers check (others, like a provenance note, only the manifest)
CHECKED_ATTRS = {
    "format", "schema_version", "kind", "ops", "input_digest", "platform_id", "torch_version", "params", "call",
    "steps", "config", "param_names", "param_shapes", "full_steps", "full", "lr", "digest_kinds", "full_init",
}  # fmt: skip


def _change_attr(tree: dict[str, Any], rng: random.Random, keys: set[str] | None = None) -> None:
    path = rng.choice([p for p in tree if set(tree[p]["attrs"]) & (keys or set(tree[p]["attrs"]))])
    key = rng.choice(sorted(set(tree[path]["attrs"]) & (keys or set(tree[path]["attrs"]))))
    value = tree[path]["attrs"][key]
    if isinstance(value, bool):
        tree[path]["attrs"][key] = not value
    elif isinstance(value, (int, float)):
        tree[path]["attrs"][key] = value + 1
    else:
        i = rng.randrange(len(value)) if value else 0
        tree[path]["attrs"][key] = value[:i] + chr((ord(value[i]) ^ 1) if value else 65) + value[i + 1 :]


def _flip_param(tree: dict[str, Any], rng: random.Random) -> None:
    case = rng.choice(_case_paths(tree))
    params = json.loads(tree[case]["attrs"]["params"])
    key = rng.choice(sorted(params))
    params[key] = [params[key], 1] if not isinstance(params[key], list) else params[key] + [1]
    tree[case]["attrs"]["params"] = json.dumps(params)


def _delete_op(tree: dict[str, Any], rng: random.Random) -> None:
    op = rng.choice(tree["ops"]["groups"])
    tree["ops"]["groups"].remove(op)
    for path in [p for p in tree if p == f"ops/{op}" or p.startswith(f"ops/{op}/")]:
        del tree[path]


def _delete_op_and_its_listing(tree: dict[str, Any], rng: random.Random) -> None:
    op = rng.choice(tree["ops"]["groups"])
    tree["ops"]["groups"].remove(op)
    for path in [p for p in tree if p == f"ops/{op}" or p.startswith(f"ops/{op}/")]:
        del tree[path]
    ops = json.loads(tree["/"]["attrs"]["ops"])
    tree["/"]["attrs"]["ops"] = json.dumps([o for o in ops if o != op])


def _delete_case(tree: dict[str, Any], rng: random.Random) -> None:
    case = rng.choice(_case_paths(tree))
    parent, name = case.rsplit("/", 1)
    tree[parent]["groups"].remove(name)
    for path in [p for p in tree if p == case or p.startswith(f"{case}/")]:
        del tree[path]


def _delete_tensor(tree: dict[str, Any], rng: random.Random) -> None:
    path = rng.choice([p for p in tree if tree[p]["tensors"]])
    del tree[path]["tensors"][rng.randrange(len(tree[path]["tensors"]))]


def _relink_tensor(tree: dict[str, Any], rng: random.Random) -> None:
    """A reference pointed at a tensor of another dtype or shape (one of the same dtype and shape,
    consistently re-sealed, is accepted: the manifest is integrity, not a signature)."""
    refs = [(p, i) for p in tree for i in range(len(tree[p]["tensors"]))]
    (pa, ia), (pb, ib) = rng.sample(refs, 2)
    layout = lambda p, i: tree[p]["tensors"][i][1].split("_", 1)[1]  # its dtype and shape
    while layout(pa, ia) == layout(pb, ib):
        (pb, ib) = rng.choice(refs)
    tree[pa]["tensors"][ia][1] = tree[pb]["tensors"][ib][1]


def _swap_outputs(tree: dict[str, Any], rng: random.Random) -> None:
    path = rng.choice([p for p in tree if p.endswith("/outputs") and len(tree[p]["tensors"]) > 1])
    refs = tree[path]["tensors"]
    refs[0][1], refs[1][1] = refs[1][1], refs[0][1]


def _bad_json_attr(tree: dict[str, Any], rng: random.Random) -> None:
    case = rng.choice(_case_paths(tree))
    key = rng.choice(["params"]) if rng.random() < 0.5 else None
    if key:
        tree[case]["attrs"][key] = "{" + tree[case]["attrs"][key]
    else:
        tree["/"]["attrs"]["provenance"] = tree["/"]["attrs"]["provenance"][:-1]


def _huge_shape(tree: dict[str, Any], rng: random.Random) -> None:
    path = rng.choice([p for p in tree if tree[p]["tensors"]])
    ref = tree[path]["tensors"][0]
    ref[1] = ref[1].split("_")[0] + "_float32_2199023255552"


def _non_numeric_key(tree: dict[str, Any], rng: random.Random) -> None:
    path = rng.choice([p for p in tree if tree[p]["tensors"]])
    ref = tree[path]["tensors"][0]
    digest, _, shape = ref[1].split("_")
    ref[1] = f"{digest}_{rng.choice(['object', 'complex64', 'str'])}_{shape}"


def _orphan_group(tree: dict[str, Any], rng: random.Random) -> None:
    tree["ops/exp/extra"] = {"attrs": {}, "tensors": [], "groups": []}


def _group_loop(tree: dict[str, Any], rng: random.Random) -> None:
    case = rng.choice(_case_paths(tree))
    tree[case]["groups"].append("outputs")  # listed twice


def _bad_tree_json(root: Path, rng: random.Random) -> Path:
    with h5py.File(_ops(root), "r+") as f:
        text = f[TREE][()].tobytes()
        cut = rng.randrange(1, len(text) - 1)
        del f[TREE]
        write_dataset(f, TREE, np.frombuffer(text[:cut] + b"}" + text[cut + 1 :], dtype=np.uint8))
    return _ops(root)


def _external_link(root: Path, rng: random.Random) -> Path:
    with h5py.File(_ops(root), "r+") as f:
        f["ops"] = h5py.ExternalLink("elsewhere.h5", "/ops")
    return _ops(root)


def _soft_link_loop(root: Path, rng: random.Random) -> Path:
    with h5py.File(_ops(root), "r+") as f:
        f["loop"] = h5py.SoftLink("/loop")
    return _ops(root)


def _schema_as_array(root: Path, rng: random.Random) -> Path:
    with h5py.File(_ops(root), "r+") as f:
        f.attrs["schema_version"] = np.array([2, 2])
    return _ops(root)


def _tree_non_text(root: Path, rng: random.Random) -> Path:
    with h5py.File(_ops(root), "r+") as f:
        del f[TREE]
        f.create_dataset(TREE, data=np.array([(1, 2.0)], dtype=[("a", "<i4"), ("b", "<f8")]))
    return _ops(root)


def _truncated(root: Path, rng: random.Random) -> Path:
    data = _ops(root).read_bytes()
    _ops(root).write_bytes(data[: rng.randrange(len(data) // 4, len(data) - 1)])
    return _ops(root)


# ------------------------------------------------------------------ the pool


def _small_pool_file(root: Path) -> Path:
    return next((root / "small" / POOL_DIR).glob("*.hdf5"))


def _pool_bit_flip(root: Path, rng: random.Random) -> Path:
    with h5py.File(_small_pool_file(root), "r+") as f:
        name = rng.choice(sorted(k for k in f["tensors"] if f["tensors"][k].size > 0))
        data = f["tensors"][name][()]
        flat = data.reshape(-1).view(np.uint8)
        flat[rng.randrange(flat.size)] ^= 1 << rng.randrange(8)
        f["tensors"][name][...] = data
    return _ops(root)


def _pool_raw_flip(root: Path, rng: random.Random) -> Path:
    path = _small_pool_file(root)
    raw = bytearray(path.read_bytes())
    with h5py.File(path) as f:
        ds = f["tensors"][rng.choice(sorted(k for k in f["tensors"] if f["tensors"][k].size > 255))]
        chunk = ds.id.get_chunk_info(0)
    raw[chunk.byte_offset + rng.randrange(chunk.size)] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(raw))
    return _ops(root)


def _pool_entry_swapped_dtype(root: Path, rng: random.Random) -> Path:
    with h5py.File(_small_pool_file(root), "r+") as f:
        name = rng.choice(sorted(f["tensors"]))
        data = f["tensors"][name][()]
        del f["tensors"][name]
        f["tensors"].create_dataset(name, data=np.array([b"x"] * max(data.size, 1)).reshape(-1))
    return _ops(root)


def _pool_external_link(root: Path, rng: random.Random) -> Path:
    with h5py.File(_small_pool_file(root), "r+") as f:
        f["tensors"]["a" * 64 + "_float32_3"] = h5py.ExternalLink("x.h5", "/y")
    return _ops(root)


def _pool_external_storage(root: Path, rng: random.Random) -> Path:
    with h5py.File(_small_pool_file(root), "r+") as f:
        name = rng.choice(sorted(f["tensors"]))
        shape, dtype = f["tensors"][name].shape, f["tensors"][name].dtype
        del f["tensors"][name]
        raw = root / "raw.bin"
        raw.write_bytes(b"\0" * (int(np.prod(shape)) * dtype.itemsize))
        f["tensors"].create_dataset(name, shape=shape, dtype=dtype, external=[(str(raw), 0, h5py.h5f.UNLIMITED)])
    return _ops(root)


def _pool_huge_dataset(root: Path, rng: random.Random) -> Path:
    with h5py.File(_small_pool_file(root), "r+") as f:
        name = rng.choice(sorted(f["tensors"]))
        del f["tensors"][name]
        f["tensors"].create_dataset(name, shape=(2**41,), dtype="<f4", chunks=(1024,))
    return _ops(root)


def _pool_file_removed(root: Path, rng: random.Random) -> Path:
    _small_pool_file(root).unlink()
    return _ops(root)


# ------------------------------------------------------------------ nanoGPT (store form, linked pool)


def _nano(root: Path) -> Path:
    return root / "nano" / f"{SOURCE}.nanogpt-tiny.h5"


def _nano_edit(edit: Callable[[dict[str, Any], random.Random], None], *, reseal: bool = True) -> Variant:
    def make(root: Path, rng: random.Random) -> Path:
        return edit_tree_json(_nano(root), lambda tree: edit(tree, rng), reseal=reseal)

    return make


def _steps_49(tree: dict[str, Any], rng: random.Random) -> None:
    tree["/"]["attrs"]["steps"] = 49


def _config_steps_49(tree: dict[str, Any], rng: random.Random) -> None:
    config = json.loads(tree["/"]["attrs"]["config"])
    tree["/"]["attrs"]["config"] = json.dumps(config | {"steps": 49})
    tree["/"]["attrs"]["steps"] = 49


def _drop_step(tree: dict[str, Any], rng: random.Random) -> None:
    step = rng.choice(tree["steps"]["groups"])
    tree["steps"]["groups"].remove(step)
    for path in [p for p in tree if p.startswith(f"steps/{step}")]:
        del tree[path]


def _lr_text(tree: dict[str, Any], rng: random.Random) -> None:
    step = rng.choice(tree["steps"]["groups"])
    tree[f"steps/{step}"]["attrs"]["lr"] = "fast" if rng.random() < 0.5 else None
    if tree[f"steps/{step}"]["attrs"]["lr"] is None:
        del tree[f"steps/{step}"]["attrs"]["lr"]


def _drop_step_record(tree: dict[str, Any], rng: random.Random) -> None:
    step = rng.choice(tree["steps"]["groups"])
    refs = tree[f"steps/{step}"]["tensors"]
    del refs[rng.randrange(len(refs))]


def _drop_full_kind(tree: dict[str, Any], rng: random.Random) -> None:
    full = rng.choice([p for p in tree if p.endswith("/full")])
    kind = rng.choice(tree[full]["groups"])
    tree[full]["groups"].remove(kind)
    del tree[f"{full}/{kind}"]


def _nano_attr(tree: dict[str, Any], rng: random.Random) -> None:
    _change_attr(tree, rng, CHECKED_ATTRS)


# ------------------------------------------------------------------ packed file (HDF5 links)


def _packed(root: Path) -> Path:
    return root / "ops.packed.h5"


def _packed_edit(edit: Callable[[h5py.File, random.Random], None]) -> Variant:
    def make(root: Path, rng: random.Random) -> Path:
        with h5py.File(_packed(root), "r+") as f:
            edit(f, rng)
        return _packed(root)

    return make


def _packed_datasets(f: h5py.File) -> list[str]:
    return sorted(f["tensors"])


def _p_bit_flip(f: h5py.File, rng: random.Random) -> None:
    ds = f["tensors"][rng.choice([k for k in _packed_datasets(f) if f["tensors"][k].size])]
    data = ds[()]
    data.reshape(-1).view(np.uint8)[0] ^= 0x80
    ds[...] = data


def _p_attr(f: h5py.File, rng: random.Random) -> None:
    case = f["ops/exp"][rng.choice(sorted(f["ops/exp"]))]
    case.attrs["deterministic"] = not bool(case.attrs["deterministic"])


def _p_delete_case(f: h5py.File, rng: random.Random) -> None:
    del f["ops/softmax"][rng.choice(sorted(f["ops/softmax"]))]


def _p_external(f: h5py.File, rng: random.Random) -> None:
    del f["ops/exp"]
    f["ops/exp"] = h5py.ExternalLink("other.h5", "/ops/exp")


def _p_soft_loop(f: h5py.File, rng: random.Random) -> None:
    f["ops/exp/loop"] = h5py.SoftLink("/ops/exp/loop")


def _p_hard_loop(f: h5py.File, rng: random.Random) -> None:
    f["ops/exp/again"] = f["ops"]


def _p_compound(f: h5py.File, rng: random.Random) -> None:
    name = rng.choice(_packed_datasets(f))
    del f["tensors"][name]
    f["tensors"].create_dataset(name, data=np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]))


def _p_invalid_json(f: h5py.File, rng: random.Random) -> None:
    f.attrs["ops"] = '["exp", '


VARIANTS: dict[str, Variant] = {
    "attribute changed": _tree_edit(_change_attr, reseal=False),
    "checked attribute changed, resealed": _tree_edit(lambda t, r: _change_attr(t, r, CHECKED_ATTRS), reseal=True),
    "params changed, resealed": _tree_edit(_flip_param, reseal=True),
    "op deleted": _tree_edit(_delete_op, reseal=False),
    "op deleted, resealed": _tree_edit(_delete_op, reseal=True),
    "op deleted with its listing": _tree_edit(_delete_op_and_its_listing, reseal=False),
    "case deleted, resealed": _tree_edit(_delete_case, reseal=True),
    "tensor deleted, resealed": _tree_edit(_delete_tensor, reseal=True),
    "tensor relinked, resealed": _tree_edit(_relink_tensor, reseal=True),
    "outputs swapped": _tree_edit(_swap_outputs, reseal=False),
    "invalid JSON in an attribute, resealed": _tree_edit(_bad_json_attr, reseal=True),
    "huge declared shape": _tree_edit(_huge_shape, reseal=True),
    "non-numeric dtype in a key": _tree_edit(_non_numeric_key, reseal=True),
    "group outside the tree": _tree_edit(_orphan_group, reseal=True),
    "group listed twice": _tree_edit(_group_loop, reseal=True),
    "tree text broken": _bad_tree_json,
    "external link added": _external_link,
    "soft-link loop": _soft_link_loop,
    "schema version an array": _schema_as_array,
    "tree not text": _tree_non_text,
    "fixture truncated": _truncated,
    "bit flip in a pool tensor": _pool_bit_flip,
    "bit flip in a pool file's data": _pool_raw_flip,
    "pool entry of strings": _pool_entry_swapped_dtype,
    "pool external link": _pool_external_link,
    "pool external storage": _pool_external_storage,
    "pool entry of 2^41 elements": _pool_huge_dataset,
    "pool file removed": _pool_file_removed,
    "nanoGPT step count 49": _nano_edit(_steps_49),
    "nanoGPT step count 49 in config too": _nano_edit(_config_steps_49),
    "nanoGPT step deleted": _nano_edit(_drop_step),
    "nanoGPT lr missing or text": _nano_edit(_lr_text),
    "nanoGPT step record deleted": _nano_edit(_drop_step_record),
    "nanoGPT full kind deleted": _nano_edit(_drop_full_kind),
    "nanoGPT attribute changed": _nano_edit(_change_attr, reseal=False),
    "nanoGPT checked attribute changed, resealed": _nano_edit(_nano_attr),
    "packed: bit flip": _packed_edit(_p_bit_flip),
    "packed: attribute changed": _packed_edit(_p_attr),
    "packed: case deleted": _packed_edit(_p_delete_case),
    "packed: external link": _packed_edit(_p_external),
    "packed: soft-link loop": _packed_edit(_p_soft_loop),
    "packed: group linked into itself": _packed_edit(_p_hard_loop),
    "packed: compound dtype": _packed_edit(_p_compound),
    "packed: invalid JSON": _packed_edit(_p_invalid_json),
}


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


@pytest.mark.parametrize("seed", SEEDS)
def test_corrupted_fixtures_give_one_line_and_exit_2(base, tmp_path, seed):
    rng = random.Random(seed)
    failures = []
    for i, (name, make) in enumerate(VARIANTS.items()):
        for attempt in range(3 if FULL else 2 if i % 3 == 0 else 1):  # some kinds twice, at other random spots
            root = _fresh(base, tmp_path / f"v{i}-{attempt}")
            target = make(root, random.Random(rng.getrandbits(32)))
            commands = [["verify", str(target)], ["info", str(target)]]
            if target.name == "ops.h5":
                commands.append(["diff", str(target), str(_ops(base))])
            for argv in commands:
                try:
                    code, err = _run(argv)
                except Exception as exc:  # a traceback: what this test exists to find
                    failures.append(f"{name}: parity {argv[0]} raised {type(exc).__name__}: {exc}")
                    continue
                lines = err.strip().splitlines()
                if code != 2 or len(lines) != 1 or not lines[0].startswith("parity: error: "):
                    print(name, argv, code, err)
                    failures.append(f"{name}: parity {argv[0]} exit {code}, stderr {err.strip()[:200]!r}")
            shutil.rmtree(root)
    assert not failures, "\n".join(failures)


def test_the_uncorrupted_base_passes(base):
    for target in (_ops(base), _nano(base), _packed(base)):
        code, err = _run(["verify", str(target)])
        assert code == 0, err
