"""The tensor pool of a fixture store: every tensor once, under its key, shared by all fixtures.

A store is a directory ``ROOT`` holding ``ROOT/torch-<version>/*.h5`` (the fixtures, which
name their tensors by key) and ``ROOT/pool/*.hdf5`` (the tensors)::

    ROOT/pool/<16 hex>.hdf5      attrs: format = "parity-harness-tensor-pool", schema_version = 2
        /tensors/<key>           one dataset per tensor, key = <sha256>_<dtype>_<shape>

Recording a fixture adds one pool file holding the tensors the pool lacked, named after the
SHA-256 of its sorted keys, and never rewrites an existing one: git keeps one copy of each
tensor however many configurations and torch releases share it. Only ``parity gc`` removes
or rewrites pool files (entries no fixture refers to).

A pool file is a regular file inside its store: a FIFO, a device, a symbolic link to nothing
or out of the store, or a ``pool/`` that is itself a link out of the store, is refused
(``pool_files``) before anything is opened; a file whose name is not the digest of its keys is
damage (``verify``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import h5py
import numpy as np

from harness.core.errors import FixtureError, ParityError
from harness.core.files import file_problem, inside
from harness.store.hdf5 import (
    TensorKey,
    attr_value,
    create_h5,
    damage_in,
    link_names,
    open_h5,
    publish,
    read_dataset,
    temp_beside,
    unlink_quietly,
    write_dataset,
)

POOL_DIR = "pool"
POOL_FORMAT = "parity-harness-tensor-pool"
POOL_SCHEMA = 2
POOL_SUFFIX = ".hdf5"
TENSORS = "tensors"

_INDEX_CACHE: dict[tuple[str, tuple[tuple[str, int, int], ...]], dict[str, Path]] = {}


def pool_files(directory: Path) -> list[Path]:
    """The pool files of a store's pool directory, each a regular file inside the store."""
    if not directory.is_dir():
        return []
    store = directory.parent
    try:
        inside(directory, store)
        found = sorted(directory.glob(f"*{POOL_SUFFIX}"))
        for path in found:
            inside(path, store)
    except ParityError as err:
        raise FixtureError(directory, f"the tensor pool is not the store's own ({err})") from None
    for path in found:
        problem = file_problem(path, "tensor pool file")
        if problem:
            raise FixtureError(path, f"damaged tensor pool: {problem}")
    return found


def read_pool_keys(path: Path) -> list[TensorKey]:
    """The keys a pool file holds (each entry's dtype and shape are checked when it is read)."""
    with open_h5(path) as f, damage_in(path, "tensor pool"):
        if "format" not in f.attrs or attr_value(f, "format", path) != POOL_FORMAT:
            raise FixtureError(path, "not a parity-harness tensor pool file")
        if "schema_version" not in f.attrs or attr_value(f, "schema_version", path) != POOL_SCHEMA:
            raise FixtureError(path, f"tensor pool schema is not version {POOL_SCHEMA}")
        if TENSORS not in f or not isinstance(f.get(TENSORS, getlink=True), h5py.HardLink):
            raise FixtureError(path, "damaged tensor pool: its tensors group is missing")
        group = f[TENSORS]
        keys = []
        for name in link_names(group, path):
            keys.append(TensorKey.parse(name, path, f"pool entry {name[:24]}..."))
            if h5py.h5o.get_info(group.id, name.encode()).type != h5py.h5o.TYPE_DATASET:
                raise FixtureError(path, f"damaged tensor pool: {name[:24]}... is not a tensor")
        return keys


class Pool:
    """The pool directory of one store; reads and adds tensors by key."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._open: dict[Path, h5py.File] = {}
        self._listed: tuple[int, list[Path]] | None = None  # (the directory's mtime, its checked files)
        self._located: dict[str, Path] | None = None  # the index as this pool's reads last checked it

    @staticmethod
    def of_store(root: Path) -> Pool:
        return Pool(root / POOL_DIR)

    def files(self) -> list[Path]:
        """The pool files, checked once while the directory is unchanged (a file added or removed
        changes its mtime)."""
        try:
            stamp = self.directory.stat().st_mtime_ns
        except OSError:
            return pool_files(self.directory)
        if self._listed is None or self._listed[0] != stamp:
            self._listed = (stamp, pool_files(self.directory))
        return list(self._listed[1])

    def index(self) -> dict[str, Path]:
        """Key text -> the pool file holding it (cached while no pool file changes)."""
        files = self.files()
        stamp = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in files)
        cache_key = (str(self.directory.resolve()), stamp)
        found = _INDEX_CACHE.get(cache_key)
        if found is None:
            found = {}
            for path in files:
                for key in read_pool_keys(path):
                    found.setdefault(key.text, path)
            _INDEX_CACHE.clear()
            _INDEX_CACHE[cache_key] = found
        return found

    def _file(self, path: Path) -> h5py.File:
        if path not in self._open:
            self._open[path] = open_h5(path)
        return self._open[path]

    def _locate(self, text: str) -> Path | None:
        """The pool file holding a key: from the index this pool last checked, checked again (every
        pool file's name, time and size) only where that index lacks the key or its file is gone. A
        file it names holds the key for good (pool files are content-addressed and replaced only by a
        rename, and each read checks its tensor's digest), so one fixture's thousands of reads list the
        pool once."""
        found = None if self._located is None else self._located.get(text)
        if found is None or not found.exists():
            self._located = self.index()
            found = self._located.get(text)
        return found

    def read(self, key: TensorKey, where: Path, label: str) -> np.ndarray:
        pool_path = self._locate(key.text)
        if pool_path is None:
            raise FixtureError(where, f"tensor {label}: the pool {self.directory} does not hold it")
        with damage_in(pool_path, "tensor pool"):
            node = self._file(pool_path)[TENSORS][key.text]
            if not isinstance(node, h5py.Dataset):
                raise FixtureError(pool_path, f"damaged tensor pool: {key.text[:24]}... is not a tensor")
            return read_dataset(node, key, pool_path, label)

    def close(self) -> None:
        for f in self._open.values():
            f.close()
        self._open.clear()

    def add(self, arrays: dict[str, np.ndarray]) -> tuple[Path | None, int]:
        """Store the tensors the pool lacks in one new pool file; (its path, its bytes of data)."""
        have = self.index()
        self._located = None
        new = {k: a for k, a in arrays.items() if k not in have}
        if not new:
            return None, 0
        return write_pool_file(self.directory, new.items())

    def verify(self) -> int:
        """Read every entry of every pool file and check its digest and the file's name; returns how many."""
        count = 0
        for path in self.files():
            keys = read_pool_keys(path)
            check_pool_file_name(path, [k.text for k in keys])
            with open_h5(path) as f, damage_in(path, "tensor pool"):
                for key in keys:
                    node = f[TENSORS][key.text]
                    if not isinstance(node, h5py.Dataset):
                        raise FixtureError(path, f"damaged tensor pool: {key.text[:24]}... is not a tensor")
                    read_dataset(node, key, path, key.text[:24] + "...")
                    count += 1
        return count


def pool_file_name(keys: Iterable[str]) -> str:
    h = hashlib.sha256("\n".join(sorted(keys)).encode())
    return h.hexdigest()[:16] + POOL_SUFFIX


def check_pool_file_name(path: Path, keys: Iterable[str]) -> None:
    """A pool file is named for the keys it holds (``pool_file_name``); else it is damage."""
    if path.name != pool_file_name(keys):
        raise FixtureError(path, "damaged tensor pool: the file's name is not the digest of the keys it holds")


def write_pool_file(directory: Path, entries: Iterable[tuple[str, np.ndarray]]) -> tuple[Path | None, int]:
    """One pool file of ``entries`` (key text, canonical array), written atomically, never replacing one."""
    items = sorted(entries)
    if not items:
        return None, 0
    path = directory / pool_file_name(k for k, _ in items)
    tmp = temp_beside(path)
    try:
        with create_h5(tmp) as f:
            f.attrs["format"] = POOL_FORMAT
            f.attrs["schema_version"] = POOL_SCHEMA
            group = f.create_group(TENSORS, track_order=True)
            for key, array in items:
                write_dataset(group, key, array)
        publish(tmp, path, replace=False)  # a file of that name holds the same keys already
    except BaseException:
        unlink_quietly(tmp)
        raise
    return path, sum(a.nbytes for _, a in items)
