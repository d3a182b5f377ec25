"""HDF5 primitives of the store: tensor keys and digests, checked reads, atomic file writes.

Everything that touches a file another program may have written goes through here, so
that a malformed file becomes a ``FixtureError`` (one line, exit status 2) and never a
traceback or a hang: paths that are no regular file (``harness.core.files``), links other
than hard links, external or virtual storage, non-numeric dtypes, declared sizes beyond
``MAX_TENSOR_BYTES`` (checked before reading), attributes that are arrays, invalid JSON or
JSON that two readers could read differently (``strict_json``), values no fixture holds
(``check_value``), groups linked into themselves, and whatever else HDF5 itself fails on
in a damaged file (``damage_in``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import mmap
import os
import re
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from harness.core.errors import FixtureError, ParityError, one_line
from harness.core.files import file_problem

# dtypes a fixture may hold; stored little-endian so digests are platform independent
DTYPES = {
    "float64": "<f8",
    "float32": "<f4",
    "float16": "<f2",
    "int64": "<i8",
    "int32": "<i4",
    "uint16": "<u2",  # a capture's bfloat16 tensor, held as its bits (NumPy has no bfloat16)
    "uint8": "|u1",
    "bool": "|b1",
}
MAX_TENSOR_BYTES = 1 << 30  # no recorded tensor comes near; a larger declared size is damage
INT_LIMIT = 1 << 63  # attributes are int64 in HDF5: a larger whole number cannot be one
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


_GCOL = b"GCOL"  # a global heap collection: where HDF5 keeps variable-length strings (our text attributes)
_GCOL_HEADER = 16  # signature, version 1, 3 reserved bytes, the collection's size (8 bytes)
_GCOL_OBJECT = 16  # an object's index (2), reference count (2), 4 reserved bytes, its size (8), then its data
_HEAPS_CHECKED: set[tuple[int, int, int, int]] = set()  # (device, inode, size, mtime) of files found sound


def global_heap_problem(data: bytes | mmap.mmap) -> str:
    """Why a global heap collection in ``data`` is damaged ("" if none is): every object must fit in
    its collection and the free space (object 0) must end it exactly. HDF5 reads a collection whose
    free space is cut short in a loop that never ends (an object of index 0 and size 0 does not
    advance it), so a file is checked before HDF5 reads any of its text."""
    start = data.find(_GCOL)
    while start >= 0:
        version, reserved = data[start + 4], bytes(data[start + 5 : start + 8])
        (size,) = struct.unpack_from("<Q", data, start + 8) if start + _GCOL_HEADER <= len(data) else (0,)
        if version == 1 and reserved == b"\0\0\0" and _GCOL_HEADER <= size <= len(data) - start:
            end, at = start + size, start + _GCOL_HEADER
            while end - at >= _GCOL_OBJECT:  # less than a header left is free space
                index = struct.unpack_from("<H", data, at)[0]
                (length,) = struct.unpack_from("<Q", data, at + 8)
                step = length if index == 0 else _GCOL_OBJECT + -(-length // 8) * 8
                if (index == 0 and step != end - at) or step <= 0 or step > end - at:
                    return f"global heap collection at byte {start} is damaged (object {index} of {length} bytes)"
                at += step
        start = data.find(_GCOL, start + 1)
    return ""


def _heap_problem(path: Path) -> str:
    """``global_heap_problem`` of a file, remembered while the file is unchanged."""
    info = os.stat(path)
    stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    if stamp in _HEAPS_CHECKED or info.st_size == 0:
        return ""
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        problem = global_heap_problem(data)
    if not problem:
        _HEAPS_CHECKED.add(stamp)
    return problem


def open_h5(path: Path) -> h5py.File:
    """Open an HDF5 file read-only; every failure is a FixtureError naming the file."""
    problem = file_problem(path)
    if problem:
        raise FixtureError(path, problem)
    problem = _heap_problem(path)
    if problem:
        raise FixtureError(path, f"damaged HDF5 file: {problem}")
    try:
        return h5py.File(path, "r")
    except OSError as err:
        raise FixtureError(path, describe_open_error(err)) from None


# what h5py raises on a file whose metadata is damaged, at whatever depth it is met
_HDF5_FAILURES = (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError, IndexError)


@contextlib.contextmanager
def damage_in(path: Path, what: str = "fixture") -> Iterator[None]:
    """Inside, HDF5's own failure on a damaged file becomes ``FixtureError(path, "damaged ...")``."""
    try:
        yield
    except ParityError:
        raise
    except _HDF5_FAILURES as err:
        detail = one_line(str(err))[:160] or type(err).__name__
        raise FixtureError(path, f"damaged {what}: its HDF5 structure is unreadable ({detail})") from None


def check_value(value: object, where: Path, what: str) -> None:
    """A value a fixture may hold: text without NUL or lone surrogates, a whole number within int64,
    a finite float (in JSON, also lists and objects of these)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\0" in item:
                raise FixtureError(where, f"damaged fixture: {what} holds a NUL character")
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise FixtureError(where, f"damaged fixture: {what} holds a lone surrogate (no UTF-8 text)") from None
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not -INT_LIMIT <= item < INT_LIMIT:
                raise FixtureError(where, f"damaged fixture: {what} holds a whole number beyond int64")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise FixtureError(where, f"damaged fixture: {what} holds a number that is not finite")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            raise FixtureError(where, f"damaged fixture: {what} holds a {type(item).__name__}")


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


class _Ambiguous(ValueError):
    """JSON that two readers may read differently."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Ambiguous(f"the key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> float:
    raise _Ambiguous(f"{name} is no JSON number")


def strict_json(text: str, where: Path, what: str) -> Any:
    """JSON as every reader reads it: no key twice in an object (readers differ on which one wins),
    no NaN or Infinity, numbers within range (``check_value``), no NUL or lone surrogate in text."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except _Ambiguous as err:
        raise FixtureError(where, f"damaged fixture: {what}: {err}") from None
    except (ValueError, RecursionError):
        raise FixtureError(where, f"damaged fixture: {what} is not valid JSON") from None
    check_value(value, where, what)
    return value


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
