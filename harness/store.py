"""The HDF5 fixture store: exact tensor bits, SHA-256 digests, atomic writes.

File layout (schema version 1)::

    /                      attrs: format, schema_version, kind, provenance (JSON), ...
    /tensors/<sha256>_<dtype>_<shape>   one dataset per distinct tensor (lossless filters only)
    /<record>/<name>       hard links into /tensors, grouped by the fixture kind

Every tensor is stored once however often it appears: two names whose bytes are equal
(an op's input reused by another op, an upstream gradient passed through unchanged) are
two hard links to one dataset. Each dataset carries the SHA-256 of its raw little-endian
bytes, verified on every read.

Nothing here is pickle: datasets are plain numeric arrays and attributes are strings,
numbers and JSON text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from harness.errors import FixtureError

FORMAT = "parity-harness-fixture"
SCHEMA_VERSION = 1
TENSORS = "tensors"

# dtypes a fixture may hold; stored little-endian so digests are platform independent
_DTYPES = {
    "float64": "<f8",
    "float32": "<f4",
    "float16": "<f2",
    "int64": "<i8",
    "int32": "<i4",
    "uint8": "|u1",
    "bool": "|b1",
}
_COMPRESS_MIN_ELEMENTS = 256


def canonical(array: np.ndarray) -> np.ndarray:
    """The array as stored: C-contiguous, little-endian, one of the supported dtypes."""
    name = np.dtype(array.dtype).name
    if name not in _DTYPES:
        raise ValueError(f"dtype {name} cannot be stored in a fixture")
    return np.asarray(array, dtype=np.dtype(_DTYPES[name]), order="C")  # keeps 0-d as 0-d


def tensor_digest(array: np.ndarray) -> str:
    """SHA-256 of the tensor's raw bytes (C order, little-endian), as hex."""
    return hashlib.sha256(canonical(array).tobytes()).hexdigest()


def json_attr(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


class FixtureWriter:
    """Writes one fixture file atomically: a temporary file beside it, then a rename.

    An existing file is never replaced unless ``force`` is set; without it the final
    step is a hard link, which fails rather than overwrite a file that appeared meanwhile.
    """

    def __init__(self, path: str | Path, kind: str, *, force: bool = False) -> None:
        self.path = Path(path)
        self.kind = kind
        self.force = force
        if self.path.exists() and not force:
            raise FixtureError(self.path, "already exists; pass --force to overwrite it")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        os.close(fd)
        self._tmp = Path(tmp)
        self._file = h5py.File(self._tmp, "w", track_order=True, libver=("v110", "v110"))
        self._file.attrs["format"] = FORMAT
        self._file.attrs["schema_version"] = SCHEMA_VERSION
        self._file.attrs["kind"] = kind
        self._file.create_group(TENSORS)
        self.bytes_written = 0

    def __enter__(self) -> FixtureWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()

    def set_attrs(self, group: str, attrs: Mapping[str, Any]) -> None:
        """Attributes of a group ("/" for the file); dicts and lists become JSON text."""
        node = self._file[group] if group in ("", "/") else self._group(group)
        for key, value in attrs.items():
            node.attrs[key] = json_attr(value) if isinstance(value, (dict, list)) else value

    def put(self, group: str, name: str, array: np.ndarray) -> str:
        """Store ``array`` as ``group/name``; returns its digest."""
        data = canonical(np.asarray(array))
        digest = hashlib.sha256(data.tobytes()).hexdigest()
        shape = "x".join(map(str, data.shape)) or "scalar"
        blob_path = f"{TENSORS}/{digest}_{np.dtype(data.dtype).name}_{shape}"
        if blob_path not in self._file:
            compress = data.size >= _COMPRESS_MIN_ELEMENTS
            blob = self._file.create_dataset(
                blob_path,
                data=data,
                compression="gzip" if compress else None,
                compression_opts=6 if compress else None,
                shuffle=compress,
            )
            blob.attrs["sha256"] = digest
            blob.attrs["dtype"] = np.dtype(data.dtype).name
            self.bytes_written += data.nbytes
        self._group(group)[name] = self._file[blob_path]
        return digest

    def _group(self, group: str) -> h5py.Group:
        if group in ("", "/"):
            return self._file
        node = self._file.get(group)
        if node is None:
            node = self._file.create_group(group, track_order=True)
        return node

    def commit(self) -> None:
        self._file.close()
        with open(self._tmp, "rb") as fh:
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self._tmp, 0o666 & ~umask)  # mkstemp makes 0600; a fixture is ordinary data
        try:
            if self.force:
                os.replace(self._tmp, self.path)
            else:
                try:
                    os.link(self._tmp, self.path)
                except FileExistsError:
                    raise FixtureError(self.path, "already exists; pass --force to overwrite it") from None
                finally:
                    _unlink_quietly(self._tmp)
        except BaseException:
            _unlink_quietly(self._tmp)
            raise
        with contextlib.suppress(OSError):
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._file.close()
        _unlink_quietly(self._tmp)


def _describe_open_error(err: OSError) -> str:
    text = str(err)
    if "file signature not found" in text:
        return "not an HDF5 file"
    if "truncated file" in text:
        return "truncated HDF5 file (the file is shorter than its header says)"
    return f"unreadable HDF5 file ({text.strip()})"


class FixtureReader:
    """Opens a fixture read-only after checking that it is one and of a known schema."""

    def __init__(self, path: str | Path, *, kind: str | None = None) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FixtureError(self.path, "no such file")
        if self.path.is_dir():
            raise FixtureError(self.path, "is a directory, not a fixture file")
        try:
            self._file = h5py.File(self.path, "r")
        except OSError as err:
            raise FixtureError(self.path, _describe_open_error(err)) from None
        try:
            self._check_schema(kind)
        except BaseException:
            self._file.close()
            raise

    def _check_schema(self, kind: str | None) -> None:
        attrs = self._file.attrs
        fmt = attrs.get("format")
        if fmt != FORMAT:
            raise FixtureError(self.path, "not a parity-harness fixture (HDF5 file without our 'format' mark)")
        version = attrs.get("schema_version")
        if version != SCHEMA_VERSION:
            raise FixtureError(
                self.path,
                f"fixture schema version {version} is not supported "
                f"(this parity-harness reads version {SCHEMA_VERSION})",
            )
        if TENSORS not in self._file:
            raise FixtureError(self.path, "damaged fixture: the tensor store is missing")
        if kind is not None and self.kind != kind:
            raise FixtureError(self.path, f"is a '{self.kind}' fixture, expected '{kind}'")

    def __enter__(self) -> FixtureReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    @property
    def kind(self) -> str:
        return str(self._file.attrs.get("kind", ""))

    def attrs(self, group: str = "/") -> dict[str, Any]:
        """A group's attributes, JSON text decoded back into dicts and lists."""
        node = self._node(group)
        out: dict[str, Any] = {}
        for key, value in node.attrs.items():
            if isinstance(value, str) and value[:1] in ("{", "["):
                value = json.loads(value)
            elif isinstance(value, np.generic):
                value = value.item()
            out[key] = value
        return out

    def children(self, group: str) -> list[str]:
        node = self._node(group)
        if not isinstance(node, h5py.Group):
            raise FixtureError(self.path, f"damaged fixture: {group} is not a group")
        return list(node.keys())

    def has(self, path: str) -> bool:
        return path in self._file

    def _node(self, path: str) -> h5py.Group | h5py.Dataset:
        try:
            return self._file[path]
        except KeyError:
            raise FixtureError(self.path, f"damaged fixture: {path} is missing") from None

    def tensor(self, path: str, *, verify: bool = True) -> np.ndarray:
        """Read one tensor, checking its SHA-256 unless ``verify`` is false."""
        node = self._node(path)
        if not isinstance(node, h5py.Dataset):
            raise FixtureError(self.path, f"damaged fixture: {path} is not a tensor")
        try:
            data = node[()]
        except (OSError, ValueError) as err:
            raise FixtureError(self.path, f"tensor {path}: unreadable data ({err})") from None
        data = np.asarray(data)
        if verify:
            stored = node.attrs.get("sha256")
            actual = tensor_digest(data)
            if stored != actual:
                raise FixtureError(
                    self.path,
                    f"tensor {path}: SHA-256 mismatch (stored {str(stored)[:16]}..., "
                    f"computed {actual[:16]}...): the data is corrupted",
                )
        return data

    def tensor_info(self, path: str) -> tuple[tuple[int, ...], str, str]:
        """Shape, dtype name and stored digest of a tensor, without reading it."""
        node = self._node(path)
        return tuple(node.shape), np.dtype(node.dtype).name, str(node.attrs.get("sha256", ""))

    def verify_all(self) -> int:
        """Read and check every stored tensor; returns how many were checked."""
        names = self.children(TENSORS)
        for name in names:
            self.tensor(f"{TENSORS}/{name}")
            if name.split("_", 1)[0] != self._node(f"{TENSORS}/{name}").attrs.get("sha256"):
                raise FixtureError(self.path, f"damaged fixture: tensor {name} is misfiled")
        return len(names)

    def iter_tensors(self, group: str) -> Iterator[tuple[str, np.ndarray]]:
        for name in self.children(group):
            yield name, self.tensor(f"{group}/{name}")
