"""Building and damaging fixtures for the store tests: version 1 files, edits of a fixture's
tree (resealed with a fresh manifest, or not), and store copies that share the committed pool."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from harness.formats.ops import CaseRecord, input_digest
from harness.store.fixture import TREE, FixtureReader, Node, Tree, manifest_digest, store_root_of, write_tree
from harness.store.hdf5 import TensorKey, canonical, json_attr, write_dataset
from harness.store.pool import POOL_DIR


def write_v1(path: Path, provenance: dict[str, Any], records: list[CaseRecord]) -> Path:
    """An op fixture in the version 1 layout, as the store wrote it before the pool."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(path, "w", track_order=True) as f:
        f.attrs.update({"format": "parity-harness-fixture", "schema_version": 1, "kind": "ops"})
        f.attrs.update(
            {
                "provenance": json_attr(provenance),
                "torch_version": provenance.get("torch_version", ""),
                "platform_id": provenance.get("platform_id", ""),
                "input_digest": input_digest(records),
                "ops": json_attr(list(dict.fromkeys(r.op for r in records))),
            }
        )
        blobs = f.create_group("tensors", track_order=True)
        ops = f.create_group("ops", track_order=True)
        for rec in records:
            group = ops[rec.op] if rec.op in ops else ops.create_group(rec.op, track_order=True)
            group.attrs["call"] = rec.call
            case = group.create_group(rec.case, track_order=True)
            case.attrs.update({"params": json_attr(rec.params), "deterministic": rec.deterministic})
            for part in ("inputs", "outputs"):
                members = case.create_group(part, track_order=True)
                for name, arr in getattr(rec, part).items():
                    data = canonical(np.asarray(arr))
                    key = TensorKey.of(data).text
                    if key not in blobs:
                        write_dataset(blobs, key, data)
                        blobs[key].attrs["sha256"] = key.split("_")[0]
                    members[name] = blobs[key]
    return path


def rewrite(path: Path, edit: Callable[[Tree], None]) -> Path:
    """Change a fixture's tree and write it again with a valid manifest, as a writer would."""
    with FixtureReader(path) as reader:
        tree = reader.tree
        data = dict(reader.tensor_data())
    edit(tree)
    write_tree(path, tree, iter(data.items()), force=True, packed=store_root_of(path) is None)
    return path


class LooseKey:
    """A tensor reference as its text, unchecked: what a manifest hashes."""

    def __init__(self, text: str) -> None:
        self.text = text


def loose_tree(data: dict[str, Any]) -> Tree:
    """A tree from its JSON form without any of the reader's checks, to seal what a reader must refuse."""
    return {
        path: Node(dict(raw["attrs"]), {n: LooseKey(k) for n, k in raw["tensors"]}, list(raw["groups"]))  # type: ignore[misc]
        for path, raw in data.items()
    }


def loose_manifest(data: dict[str, Any]) -> str:
    """The manifest a writer would give the tree ``data`` (the JSON form), checks or no checks."""
    return manifest_digest(loose_tree(data))


def edit_tree_json(path: Path, edit: Callable[[dict[str, Any]], None], *, reseal: bool) -> Path:
    """Change a store fixture's tree text in place; ``reseal`` also writes a matching manifest
    (where the changed tree still has the tree's shape)."""
    with h5py.File(path, "r+") as f:
        tree = json.loads(f[TREE][()].tobytes().decode())
        edit(tree)
        text = json.dumps(tree, separators=(",", ":"))
        del f[TREE]
        write_dataset(f, TREE, np.frombuffer(text.encode(), dtype=np.uint8))
        if reseal:
            with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):  # no longer a tree's shape
                f.attrs["manifest"] = loose_manifest(tree)
    return path


def store_copy(source: Path, dest: Path, files: list[str]) -> Path:
    """A store at ``dest`` holding copies of ``files`` (relative to ``source``) and every pool file of
    ``source``, hard-linked where the file system allows (a store never follows a symbolic link out
    of itself); ``own_pool_file`` makes one of them a private copy before it is changed."""
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / name, target)
    (dest / POOL_DIR).mkdir(parents=True, exist_ok=True)
    for pool_file in sorted((source / POOL_DIR).glob("*.hdf5")):
        try:
            os.link(pool_file, dest / POOL_DIR / pool_file.name)
        except OSError:  # another file system
            shutil.copyfile(pool_file, dest / POOL_DIR / pool_file.name)
    return dest


def own_pool_file(path: Path) -> Path:
    """Replace a linked pool file by a private copy (so changing it leaves the original alone)."""
    if path.is_symlink() or path.stat().st_nlink > 1:
        real = path.resolve()
        path.unlink()
        shutil.copyfile(real, path)
    return path
