"""HDF5 primitives of the store: tensor keys and digests, checked reads, atomic file writes.

Everything that touches a file another program may have written goes through here, so
that a malformed file becomes a ``FixtureError`` (one line, exit status 2) and never a
traceback: links other than hard links, external or virtual storage, non-numeric
dtypes, declared sizes beyond ``MAX_TENSOR_BYTES`` (checked before reading), attributes
that are arrays or invalid JSON, and groups linked into themselves.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from harness.core.errors import FixtureError

# dtypes a fixture may hold; stored little-endian so digests are platform independent
DTYPES = {
    "float64": "<f8",
    "float32": "<f4",
    "float16": "<f2",
    "int64": "<i8",
    "int32": "<i4",
    "uint8": "|u1",
    "bool": "|b1",
}
MAX_TENSOR_BYTES = 1 << 30  # no recorded tensor comes near; a larger declared size is damage
COMPRESS_MIN_ELEMENTS = 256
TEMP_SUFFIX = ".tmp"
_KEY = re.compile(r"([0-9a-f]{64})_([a-z0-9]+)_(scalar|[0-9]+(?:x[0-9]+)*)")


def canonical(array: np.ndarray) -> np.ndarray:
    """The array as stored: C-contiguous, little-endian, one of the supported dtypes."""
    name = np.dtype(array.dtype).name
    if name not in DTYPES:
        raise ValueError(f"dtype {name} cannot be stored in a fixture")
    return np.asarray(array, dtype=np.dtype(DTYPES[name]), order="C")  # keeps 0-d as 0-d


def tensor_digest(array: np.ndarray) -> str:
    """SHA-256 of the tensor's raw bytes (C order, little-endian), as hex."""
    return hashlib.sha256(canonical(array).tobytes()).hexdigest()


def json_attr(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class TensorKey:
    """A tensor's name in a tensor store: ``<sha256>_<dtype>_<shape>`` (shape ``AxB``, or ``scalar``)."""

    digest: str
    dtype: str
    shape: tuple[int, ...]

    @property
    def text(self) -> str:
        return f"{self.digest}_{self.dtype}_{'x'.join(map(str, self.shape)) or 'scalar'}"

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(DTYPES[self.dtype]).itemsize

    @staticmethod
    def of(array: np.ndarray) -> TensorKey:
        data = canonical(array)
        return TensorKey(hashlib.sha256(data.tobytes()).hexdigest(), data.dtype.name, tuple(data.shape))

    @staticmethod
    def parse(text: object, where: Path, what: str) -> TensorKey:
        """A key read from a file: well formed, a supported dtype, a size within the bound."""
        match = _KEY.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise FixtureError(where, f"damaged fixture: {what} names no tensor ({str(text)[:80]!r})")
        digest, dtype, shape_text = match.groups()
        if dtype not in DTYPES:
            raise FixtureError(where, f"{what}: dtype {dtype} is not a numeric dtype a fixture holds")
        shape = () if shape_text == "scalar" else tuple(int(d) for d in shape_text.split("x"))
        key = TensorKey(digest, dtype, shape)
        if key.nbytes > MAX_TENSOR_BYTES:
            raise FixtureError(where, f"{what}: declared size {key.nbytes} bytes is beyond any fixture tensor")
        return key


def describe_open_error(err: OSError) -> str:
    text = str(err)
    if "file signature not found" in text:
        return "not an HDF5 file"
    if "truncated file" in text:
        return "truncated HDF5 file (the file is shorter than its header says)"
    return f"unreadable HDF5 file ({text.strip()})"


def open_h5(path: Path) -> h5py.File:
    """Open an HDF5 file read-only; every failure is a FixtureError naming the file."""
    if not path.exists():
        raise FixtureError(path, "no such file")
    if path.is_dir():
        raise FixtureError(path, "is a directory, not a fixture file")
    try:
        return h5py.File(path, "r")
    except OSError as err:
        raise FixtureError(path, describe_open_error(err)) from None


def attr_value(node: h5py.HLObject, key: str, where: Path) -> str | int | float | bool:
    """One attribute as a Python scalar; arrays, bytes that are not UTF-8 and the like are damage."""
    name = node.name or "/"
    try:
        value = node.attrs[key]
    except (OSError, TypeError, ValueError, KeyError) as err:
        raise FixtureError(where, f"damaged fixture: attribute {key} of {name} is unreadable ({err})") from None
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise FixtureError(where, f"damaged fixture: attribute {key} of {name} is not text") from None
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        value = value.item()
    if isinstance(value, (str, bool, int, float)):
        return value
    raise FixtureError(where, f"damaged fixture: attribute {key} of {name} is not a single value or text")


def attrs_of(node: h5py.HLObject, where: Path, skip: tuple[str, ...] = ()) -> dict[str, str | int | float | bool]:
    try:
        keys = list(node.attrs.keys())
    except (OSError, RuntimeError) as err:
        raise FixtureError(where, f"damaged fixture: attributes of {node.name} are unreadable ({err})") from None
    return {key: attr_value(node, key, where) for key in keys if key not in skip}


def decode_json(text: str, where: Path, what: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise FixtureError(where, f"damaged fixture: {what} is not valid JSON") from None


def check_dataset(ds: h5py.Dataset, where: Path) -> TensorKey | None:
    """Dtype, shape and storage of a dataset, checked before any data is read.

    Returns its (dtype, shape) as a key without a digest (the caller supplies that)."""
    name = ds.name
    try:
        dtype = ds.dtype
        shape = ds.shape
        plist = ds.id.get_create_plist()
        external = plist.get_external_count()
        virtual = ds.is_virtual
    except (OSError, RuntimeError, ValueError, TypeError) as err:
        raise FixtureError(where, f"damaged fixture: {name} is unreadable ({err})") from None
    if external or virtual:
        raise FixtureError(where, f"damaged fixture: {name} keeps its data outside this file")
    if dtype.fields is not None or dtype.kind not in "biuf" or np.dtype(dtype).name not in DTYPES:
        raise FixtureError(where, f"damaged fixture: {name} has dtype {dtype}, not a numeric dtype a fixture holds")
    if shape is None:
        raise FixtureError(where, f"damaged fixture: {name} has no shape")
    key = TensorKey("", np.dtype(dtype).name, tuple(int(d) for d in shape))
    if key.nbytes > MAX_TENSOR_BYTES:
        raise FixtureError(where, f"damaged fixture: {name} declares {key.nbytes} bytes, beyond any fixture tensor")
    return key


def read_dataset(ds: h5py.Dataset, key: TensorKey, where: Path, label: str) -> np.ndarray:
    """Read a dataset whose key was checked, and check its SHA-256 against the key."""
    declared = check_dataset(ds, where)
    if declared is None or (declared.dtype, declared.shape) != (key.dtype, key.shape):
        raise FixtureError(where, f"damaged fixture: tensor {label} is not the {key.dtype}{list(key.shape)} it names")
    try:
        data = np.asarray(ds[()])
    except (OSError, ValueError, RuntimeError) as err:
        raise FixtureError(where, f"tensor {label}: unreadable data ({err})") from None
    actual = tensor_digest(data)
    if actual != key.digest:
        raise FixtureError(
            where,
            f"tensor {label}: SHA-256 mismatch (stored {key.digest[:16]}..., computed {actual[:16]}...): "
            "the data is corrupted",
        )
    return data


def links_of(group: h5py.Group, where: Path) -> Iterator[tuple[str, h5py.Group | h5py.Dataset]]:
    """A group's members in stored order; anything but a hard link to a group or dataset is damage."""
    try:
        names = list(group.keys())
    except (OSError, RuntimeError) as err:
        raise FixtureError(where, f"damaged fixture: {group.name} is unreadable ({err})") from None
    for name in names:
        path = f"{group.name.rstrip('/')}/{name}"
        try:
            link = group.get(name, getlink=True)
        except (OSError, RuntimeError, KeyError) as err:
            raise FixtureError(where, f"damaged fixture: {path} is unreadable ({err})") from None
        if isinstance(link, h5py.ExternalLink):
            raise FixtureError(where, f"damaged fixture: {path} is a link to another file ({link.filename})")
        if not isinstance(link, h5py.HardLink):
            raise FixtureError(where, f"damaged fixture: {path} is a soft link, which a fixture never holds")
        try:
            node = group[name]
        except (OSError, RuntimeError, KeyError) as err:
            raise FixtureError(where, f"damaged fixture: {path} is unreadable ({err})") from None
        if not isinstance(node, (h5py.Group, h5py.Dataset)):
            raise FixtureError(where, f"damaged fixture: {path} is neither a group nor a tensor")
        yield name, node


def link_names(group: h5py.Group, where: Path) -> list[str]:
    """A group's member names (in name order), all hard links: one pass, nothing else opened."""
    found: list[tuple[str, int]] = []

    def visit(name: bytes, info: h5py.h5l.LinkInfo) -> None:
        found.append((name.decode("utf-8", "replace"), info.type))

    try:
        group.id.links.iterate(visit, info=True)
    except (OSError, RuntimeError, ValueError) as err:
        raise FixtureError(where, f"damaged fixture: {group.name} is unreadable ({err})") from None
    for name, kind in found:
        if kind != h5py.h5l.TYPE_HARD:
            what = "a link to another file" if kind == h5py.h5l.TYPE_EXTERNAL else "a soft link"
            raise FixtureError(where, f"damaged fixture: {group.name.rstrip('/')}/{name} is {what}")
    return [name for name, _ in found]


def object_address(node: h5py.HLObject) -> int:
    return int(h5py.h5o.get_info(node.id).addr)


def unlink_quietly(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def temp_beside(path: Path) -> Path:
    """A new, uniquely named temporary file beside ``path`` (``.NAME.XXXX.tmp``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    os.close(fd)
    return Path(tmp)


def is_temp_name(path: Path) -> bool:
    return path.name.startswith(".") and path.name.endswith(TEMP_SUFFIX)


def publish(tmp: Path, path: Path, *, replace: bool) -> bool:
    """Move a finished temporary file to ``path`` atomically; False when ``path`` appeared meanwhile.

    With ``replace`` an existing file is replaced; without, the final step is a hard link,
    which fails rather than overwrite a file another writer published first.
    """
    try:
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a fixture is ordinary data
        if replace:
            os.replace(tmp, path)
            published = True
        else:
            try:
                os.link(tmp, path)
                published = True
            except FileExistsError:
                published = False
    finally:
        unlink_quietly(tmp)
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return published


def create_h5(path: Path) -> h5py.File:
    return h5py.File(path, "w", track_order=True, libver=("v110", "v110"))


def write_dataset(group: h5py.Group, name: str, data: np.ndarray) -> None:
    """A tensor, losslessly compressed (gzip and byte shuffle) from ``COMPRESS_MIN_ELEMENTS`` up."""
    compress = data.size >= COMPRESS_MIN_ELEMENTS
    group.create_dataset(
        name,
        data=data,
        compression="gzip" if compress else None,
        compression_opts=9 if compress else None,
        shuffle=compress,
    )
