"""Fixture files: a tree of groups with attributes and named tensors, in one of three forms.

A fixture is logically a tree: groups (in recording order) with attributes (text, numbers,
JSON text) and named tensors, each tensor named by its key ``<sha256>_<dtype>_<shape>``.
On disk it takes one of three forms, all read by ``FixtureReader``:

- store (schema 2, ``store = "pool"``): the file at ``ROOT/torch-<version>/<name>.h5`` holds
  the tree as JSON text (the uint8 dataset ``/tree``: ``{path: {"attrs": {...}, "tensors":
  [[name, key], ...], "groups": [...]}}``), and the data lies in the store's pool
  (``harness.store.pool``). One small compressed file, read in one go.
- packed (schema 2, ``store = "packed"``): one self-contained file, every distinct tensor
  once under ``/tensors/<key>`` and hard-linked into its groups (``parity pack``).
- version 1 (schema 1): the packed layout without a manifest, as written before the pool.
  Without a manifest nothing shows a changed attribute, so only ``parity migrate`` reads one
  (inside ``version_1_allowed()``); every other reader refuses it, naming that command.

Schema 2 files carry ``manifest``: the SHA-256 of the logical tree (every group path, every
attribute, every tensor name and key, in order), so no attribute, link or tensor can change
without the reader noticing; the tensors' own digests are checked as they are read. The
manifest is integrity, not a signature: a consistent re-seal of a changed tree is caught only
by what the kinds check (completeness against the generator's spec or the random draw,
provenance against contents). The tree itself is read strictly: no JSON key twice, every name
a plain name (no '/', not '.' or '..', no NUL), every value text, a finite number or an int64.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from harness.core.errors import FixtureError
from harness.store.hdf5 import (
    TensorKey,
    attr_value,
    attrs_of,
    canonical,
    check_dataset,
    check_value,
    create_h5,
    damage_in,
    json_attr,
    link_names,
    links_of,
    object_address,
    open_h5,
    publish,
    read_dataset,
    strict_json,
    temp_beside,
    unlink_quietly,
    write_dataset,
)
from harness.store.pool import POOL_DIR, Pool

FORMAT = "parity-harness-fixture"
SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)
TENSORS = "tensors"
TREE = "tree"
STORE_POOL = "pool"
STORE_PACKED = "packed"
_FORM_ATTRS = ("manifest", "store")  # describe the file, not the fixture: outside the manifest
Scalar = str | int | float | bool
_VERSION_1 = ContextVar("version_1_allowed", default=False)


@contextlib.contextmanager
def version_1_allowed() -> Iterator[None]:
    """Inside, readers accept version 1 files (``parity migrate``, which converts them)."""
    token = _VERSION_1.set(True)
    try:
        yield
    finally:
        _VERSION_1.reset(token)


@dataclass
class Node:
    """One group of the logical tree."""

    attrs: dict[str, Scalar] = field(default_factory=dict)
    tensors: dict[str, TensorKey] = field(default_factory=dict)
    groups: list[str] = field(default_factory=list)


Tree = dict[str, Node]  # by path: "/" for the root, "ops/exp/7" below it


def child_path(parent: str, name: str) -> str:
    return name if parent == "/" else f"{parent}/{name}"


def split_path(path: str) -> tuple[str, str]:
    parent, _, name = path.strip("/").rpartition("/")
    return parent or "/", name


def manifest_digest(tree: Tree) -> str:
    """SHA-256 over every group path, attribute, tensor name and key (members in stored order)."""
    h = hashlib.sha256()
    for path, node in sorted(tree.items()):
        entry = [path, node.attrs, [[n, k.text] for n, k in node.tensors.items()], node.groups]
        h.update(json_attr(entry).encode() + b"\n")
    return h.hexdigest()


def store_root_of(path: Path) -> Path | None:
    """The store a fixture path lies in (``ROOT/torch-<version>/NAME.h5``), or None."""
    return path.parent.parent if path.parent.name.startswith("torch-") else None


def name_ok(name: object) -> bool:
    """A name a fixture's group or tensor may have: text, not empty, no '/' or NUL, not '.' or '..'."""
    return isinstance(name, str) and bool(name) and "/" not in name and "\0" not in name and name not in (".", "..")


def _check_name(name: str) -> None:
    if not name_ok(name):
        raise ValueError(f"'{name}' cannot be a name in a fixture (no '/', not empty)")


class FixtureWriter:
    """Builds a fixture's tree in memory, then writes it atomically in one go.

    Inside a store (``ROOT/torch-<version>/NAME.h5``) the tensors the pool lacks go into a new
    pool file and the fixture names them by key; anywhere else the file is packed. An existing
    fixture is never replaced unless ``force`` is set; the final step of a write without it is a
    hard link, which fails rather than overwrite a file that appeared meanwhile.
    """

    def __init__(self, path: str | Path, kind: str, *, force: bool = False, packed: bool | None = None) -> None:
        self.path = Path(path)
        self.kind = kind
        self.force = force
        if self.path.exists() and not force:
            raise FixtureError(self.path, "already exists; pass --force to overwrite it")
        self.root = None if packed else store_root_of(self.path)
        self.tree: Tree = {"/": Node({"format": FORMAT, "schema_version": SCHEMA_VERSION, "kind": kind})}
        self.arrays: dict[str, np.ndarray] = {}
        self.bytes_written = 0
        self.pool_file: Path | None = None

    def __enter__(self) -> FixtureWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()

    def _group(self, group: str) -> Node:
        path = group.strip("/") or "/"
        if path not in self.tree:
            parent, name = split_path(path)
            _check_name(name)
            if parent == "/" and name == TENSORS:
                raise ValueError(f"'{TENSORS}' is reserved at a fixture's root")
            self._group(parent).groups.append(name)
            self.tree[path] = Node()
        return self.tree[path]

    def set_attrs(self, group: str, attrs: Mapping[str, Any]) -> None:
        """Attributes of a group ("/" for the file); dicts and lists become JSON text."""
        node = self._group(group)
        for key, value in attrs.items():
            if key in _FORM_ATTRS:
                raise ValueError(f"'{key}' is reserved for the file's own use")
            if isinstance(value, (dict, list)):
                value = json_attr(value)
            elif isinstance(value, np.generic):
                value = value.item()
            if not isinstance(value, (str, bool, int, float)):
                raise ValueError(f"attribute {key}: {type(value).__name__} cannot be stored")
            node.attrs[key] = value

    def put(self, group: str, name: str, array: np.ndarray) -> str:
        """Store ``array`` as ``group/name``; returns its digest."""
        _check_name(name)
        data = canonical(np.asarray(array))
        key = TensorKey.of(data)
        node = self._group(group)
        if name in node.tensors or name in node.groups:
            raise ValueError(f"{group}/{name} is stored twice")
        node.tensors[name] = key
        if key.text not in self.arrays:
            self.arrays[key.text] = data
            self.bytes_written += data.nbytes
        return key.digest

    def commit(self) -> None:
        try:
            self._commit()
        except OSError as err:  # a directory that cannot be written, a full disk, ...
            raise FixtureError(self.path, f"cannot be written ({err.strerror or err})") from None

    def _commit(self) -> None:
        manifest = manifest_digest(self.tree)
        if self.root is not None:
            self.pool_file, _ = Pool.of_store(self.root).add(self.arrays)
        tmp = temp_beside(self.path)
        try:
            with create_h5(tmp) as f:
                self._write(f, manifest)
            FixtureReader(tmp).close()  # what was written reads back, manifest and all
            if not publish(tmp, self.path, replace=self.force):
                raise FixtureError(self.path, "already exists; pass --force to overwrite it")
        except BaseException:
            unlink_quietly(tmp)
            raise

    def _write(self, f: h5py.File, manifest: str) -> None:
        pooled = self.root is not None
        for key in ("format", "schema_version", "kind"):
            f.attrs[key] = self.tree["/"].attrs[key]
        f.attrs["store"] = STORE_POOL if pooled else STORE_PACKED
        f.attrs["manifest"] = manifest
        if pooled:
            write_dataset(f, TREE, np.frombuffer(tree_json(self.tree).encode(), dtype=np.uint8))
            return
        blobs = f.create_group(TENSORS, track_order=True)
        for key, data in self.arrays.items():
            write_dataset(blobs, key, data)
        for path, node in self.tree.items():
            group = f if path == "/" else f.create_group(path, track_order=True)
            for key, value in node.attrs.items():
                group.attrs[key] = value
            for name, key in node.tensors.items():
                group[name] = f[TENSORS][key.text]


def tree_json(tree: Tree) -> str:
    """The store form's ``/tree``: ``{path: {"attrs", "tensors": [[name, key], ...], "groups"}}``."""
    return json.dumps(
        {
            path: {"attrs": n.attrs, "tensors": [[k, v.text] for k, v in n.tensors.items()], "groups": n.groups}
            for path, n in tree.items()
        },
        separators=(",", ":"),
    )


def _tree_from_json(data: Any, where: Path) -> Tree:
    """The tree of a store-form fixture, every node checked for shape, type and name (the JSON
    itself was read by ``strict_json``: no key twice, every value within range)."""
    if not isinstance(data, dict) or "/" not in data:
        raise FixtureError(where, f"damaged fixture: its {TREE} has no root")
    tree: Tree = {}
    for path, raw in data.items():
        ok = isinstance(raw, dict) and set(raw) == {"attrs", "tensors", "groups"}
        ok = ok and isinstance(raw["attrs"], dict) and isinstance(raw["tensors"], list)
        ok = ok and isinstance(raw["groups"], list) and all(isinstance(g, str) for g in raw["groups"])
        ok = ok and all(isinstance(v, (str, int, float, bool)) for v in raw["attrs"].values())
        ok = ok and all(isinstance(t, list) and len(t) == 2 and isinstance(t[0], str) for t in raw["tensors"])
        if not ok:
            raise FixtureError(where, f"damaged fixture: {TREE} entry {str(path)[:80]} is malformed")
        bad = next((n for n in (*raw["groups"], *(t[0] for t in raw["tensors"])) if not name_ok(n)), None)
        if bad is not None:
            raise FixtureError(where, f"damaged fixture: {TREE} entry {str(path)[:80]} names a member {bad[:80]!r}")
        form = next((k for k in raw["attrs"] if k in _FORM_ATTRS or not k), None)
        if form is not None:
            raise FixtureError(where, f"damaged fixture: {TREE} entry {str(path)[:80]} has an attribute {form!r}")
        node = Node(dict(raw["attrs"]), {}, list(raw["groups"]))
        for name, text in raw["tensors"]:
            label = child_path(path, name)
            if name in node.tensors or name in node.groups:
                raise FixtureError(where, f"damaged fixture: {label} is named twice")
            node.tensors[name] = TensorKey.parse(text, where, label)
        tree[path] = node
    listed = {child_path(path, g) for path, node in tree.items() for g in node.groups}
    named = [child_path(path, g) for path, node in tree.items() for g in node.groups]
    if len(named) != len(listed) or listed != set(tree) - {"/"}:
        raise FixtureError(where, f"damaged fixture: the groups of its {TREE} do not form one tree")
    return tree


def write_tree(path: Path, tree: Tree, tensors: Iterator[tuple[str, np.ndarray]] | None, *, force: bool,
               packed: bool) -> FixtureWriter:  # fmt: skip
    """Write an existing tree (migrate, pack, import) with its tensors' data, keeping its manifest."""
    writer = FixtureWriter(path, str(tree["/"].attrs.get("kind", "")), force=force, packed=packed)
    writer.tree = tree
    named = {key.text for node in tree.values() for key in node.tensors.values()}
    for key, data in tensors or ():
        if key in named:  # a tensor the tree no longer names is not carried along
            writer.arrays[key] = data
            writer.bytes_written += data.nbytes
    writer.commit()
    return writer


class FixtureReader:
    """A fixture of any form, opened read-only: format mark, schema, tree and manifest checked."""

    def __init__(self, path: str | Path, *, kind: str | None = None, pool: Pool | None = None) -> None:
        self.path = Path(path)
        self._file = open_h5(self.path)
        self.pool: Pool | None = None
        self._stored: set[str] = set()  # a packed file's tensors, by key
        try:
            with damage_in(self.path):
                self._read(kind, pool)
        except BaseException:
            self.close()
            raise

    def _read(self, kind: str | None, pool: Pool | None) -> None:
        f = self._file
        if "format" not in f.attrs or attr_value(f, "format", self.path) != FORMAT:
            raise FixtureError(self.path, "not a parity-harness fixture (HDF5 file without our 'format' mark)")
        version = attr_value(f, "schema_version", self.path) if "schema_version" in f.attrs else None
        if version not in READABLE_VERSIONS or isinstance(version, bool):
            raise FixtureError(
                self.path,
                f"fixture schema version {version} is not supported "
                f"(this parity-harness reads versions {', '.join(map(str, READABLE_VERSIONS))})",
            )
        self.schema_version = int(version)
        if self.schema_version == 1 and not _VERSION_1.get():
            raise FixtureError(
                self.path,
                "is a version 1 fixture, which carries no manifest, so a changed attribute cannot be "
                "found; convert it with 'parity migrate' first",
            )
        form = attr_value(f, "store", self.path) if "store" in f.attrs else STORE_PACKED
        if self.schema_version == 1 or form == STORE_PACKED:
            self.form = "v1" if self.schema_version == 1 else STORE_PACKED
            self.tree = self._packed_tree()
        elif form == STORE_POOL:
            self.form = STORE_POOL
            root = store_root_of(self.path.resolve())
            if pool is None and root is None:
                raise FixtureError(self.path, f"names its tensors in a store's pool but lies outside a store "
                                   f"(ROOT/torch-VERSION/{self.path.name}, pool in ROOT/{POOL_DIR})")  # fmt: skip
            self.pool = pool or Pool.of_store(root)  # type: ignore[arg-type]
            self.tree = self._pool_tree()
        else:
            raise FixtureError(self.path, f"damaged fixture: unknown store form {form!r}")
        self.manifest = manifest_digest(self.tree)
        if self.schema_version >= 2:
            stored = attr_value(f, "manifest", self.path) if "manifest" in f.attrs else None
            if not stored:
                raise FixtureError(self.path, "damaged fixture: its manifest is missing")
            if stored != self.manifest:
                raise FixtureError(
                    self.path,
                    "manifest mismatch: an attribute, a group or a tensor reference changed since it was written",
                )
        unnamed = sorted(self._stored - set(self.keys()))
        if unnamed:  # a tensor no reader ever reads, so never checks: nothing to carry along
            raise FixtureError(self.path, f"damaged fixture: {TENSORS}/{unnamed[0][:24]}... is named by no group")
        if kind is not None and self.kind != kind:
            raise FixtureError(self.path, f"is a '{self.kind}' fixture, expected '{kind}'")

    def _walk(self, skip_root: tuple[str, ...]) -> Iterator[tuple[str, h5py.Group]]:
        """Every group below the root in stored order, each once (a group linked twice is damage)."""
        seen: set[int] = set()
        stack: list[tuple[str, h5py.Group]] = [("/", self._file)]
        while stack:
            path, group = stack.pop(0)
            yield path, group
            children = []
            for name, node in links_of(group, self.path):
                if path == "/" and name in skip_root:
                    continue
                if isinstance(node, h5py.Group):
                    addr = object_address(node)
                    if addr in seen:
                        raise FixtureError(self.path, f"damaged fixture: group {node.name} is linked more than once")
                    seen.add(addr)
                    children.append((child_path(path, name), node))
            stack[0:0] = children

    def _packed_tree(self) -> Tree:
        f = self._file
        if TENSORS not in f or not isinstance(f.get(TENSORS, getlink=True), h5py.HardLink):
            raise FixtureError(self.path, "damaged fixture: the tensor store is missing")
        by_address: dict[int, TensorKey] = {}
        for name, node in links_of(f[TENSORS], self.path):
            if not isinstance(node, h5py.Dataset):
                raise FixtureError(self.path, f"damaged fixture: {TENSORS}/{name} is not a tensor")
            key = TensorKey.parse(name, self.path, f"{TENSORS}/{name[:24]}")
            declared = check_dataset(node, self.path)
            if (declared.dtype, declared.shape) != (key.dtype, key.shape):
                raise FixtureError(self.path, f"damaged fixture: tensor {name[:24]}... is not the tensor its name says")
            by_address[object_address(node)] = key
        tree: Tree = {}
        for path, group in self._walk((TENSORS,)):
            node = Node(attrs_of(group, self.path, _FORM_ATTRS if path == "/" else ()))
            for key, value in node.attrs.items():
                check_value(value, self.path, f"attribute {key} of {path}")
            for name, member in links_of(group, self.path):
                if path == "/" and name == TENSORS:
                    continue
                if isinstance(member, h5py.Group):
                    node.groups.append(name)
                    continue
                key = by_address.get(object_address(member))
                if key is None:
                    raise FixtureError(self.path, f"damaged fixture: {member.name} is not in the tensor store")
                node.tensors[name] = key
            tree[path] = node
        self._stored = {key.text for key in by_address.values()}
        return tree

    def _pool_tree(self) -> Tree:
        assert self.pool is not None
        f = self._file
        if link_names(f, self.path) != [TREE] or not isinstance(f[TREE], h5py.Dataset):
            raise FixtureError(self.path, f"damaged fixture: a store fixture holds its {TREE} and nothing else")
        declared = check_dataset(f[TREE], self.path)
        if declared.dtype != "uint8" or len(declared.shape) != 1:
            raise FixtureError(self.path, f"damaged fixture: its {TREE} is not text")
        try:
            text = f[TREE][()].tobytes().decode("utf-8")
        except (OSError, ValueError, UnicodeDecodeError) as err:
            raise FixtureError(self.path, f"damaged fixture: its {TREE} is unreadable ({err})") from None
        tree = _tree_from_json(strict_json(text, self.path, TREE), self.path)
        for key in ("format", "schema_version", "kind"):
            if key not in f.attrs or tree["/"].attrs.get(key) != attr_value(f, key, self.path):
                raise FixtureError(self.path, f"damaged fixture: its {key} and its {TREE}'s differ")
        index = self.pool.index()
        for path, node in tree.items():
            for name, key in node.tensors.items():
                if key.text not in index:
                    raise FixtureError(
                        self.path, f"tensor {child_path(path, name)}: not in the pool {self.pool.directory}"
                    )
        return tree

    def __enter__(self) -> FixtureReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()
        if self.pool is not None:
            self.pool.close()

    @property
    def kind(self) -> str:
        return str(self.tree["/"].attrs.get("kind", ""))

    def _group_node(self, group: str) -> Node:
        node = self.tree.get(group.strip("/") or "/")
        if node is None:
            raise FixtureError(self.path, f"damaged fixture: {group} is missing")
        return node

    def attrs(self, group: str = "/") -> dict[str, Any]:
        """A group's attributes, JSON text decoded back into dicts and lists."""
        out: dict[str, Any] = {}
        for key, value in self._group_node(group).attrs.items():
            if isinstance(value, str) and value[:1] in ("{", "["):
                value = strict_json(value, self.path, f"attribute {key} of {group}")
            out[key] = value
        return out

    def require_attrs(self, group: str, types: Mapping[str, type | tuple[type, ...]]) -> dict[str, Any]:
        """A group's attributes, each of ``types`` present with its type (bool is not a number)."""
        attrs = self.attrs(group)
        where = "root" if group in ("", "/") else group
        for key, kind in types.items():
            if key not in attrs:
                raise FixtureError(self.path, f"damaged fixture: {where} attribute '{key}' is missing")
            value = attrs[key]
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise FixtureError(self.path, f"damaged fixture: {where} attribute '{key}' has the wrong type")
        return attrs

    def children(self, group: str) -> list[str]:
        node = self._group_node(group)
        return [*node.tensors, *node.groups]

    def groups(self, group: str) -> list[str]:
        return list(self._group_node(group).groups)

    def tensor_names(self, group: str) -> list[str]:
        return list(self._group_node(group).tensors)

    def has(self, path: str) -> bool:
        parent, name = split_path(path)
        node = self.tree.get(parent)
        return (path.strip("/") or "/") in self.tree or (node is not None and name in node.tensors)

    def key(self, path: str) -> TensorKey:
        parent, name = split_path(path)
        node = self.tree.get(parent)
        if node is None or name not in node.tensors:
            what = "is not a tensor" if (path.strip("/") in self.tree) else "is missing"
            raise FixtureError(self.path, f"damaged fixture: {path} {what}")
        return node.tensors[name]

    def read_key(self, key: TensorKey, label: str) -> np.ndarray:
        if self.pool is not None:
            return self.pool.read(key, self.path, label)
        with damage_in(self.path):
            return read_dataset(self._file[TENSORS][key.text], key, self.path, label)

    def tensor(self, path: str) -> np.ndarray:
        """Read one tensor, checking its SHA-256."""
        return self.read_key(self.key(path), path)

    def tensor_info(self, path: str) -> tuple[tuple[int, ...], str, str]:
        """Shape, dtype name and digest of a tensor, without reading it."""
        key = self.key(path)
        return key.shape, key.dtype, key.digest

    def keys(self) -> dict[str, TensorKey]:
        """Every tensor the fixture names, by key text."""
        return {k.text: k for node in self.tree.values() for k in node.tensors.values()}

    def verify_all(self) -> int:
        """Read and check every tensor the fixture names; returns how many distinct ones."""
        keys = self.keys()
        for key in keys.values():
            self.read_key(key, key.text[:24] + "...")
        return len(keys)

    def iter_tensors(self, group: str) -> Iterator[tuple[str, np.ndarray]]:
        for name in self.tensor_names(group):
            yield name, self.tensor(f"{group}/{name}")

    def tensor_data(self) -> Iterator[tuple[str, np.ndarray]]:
        """Every distinct tensor's key and checked data (for pack, import and migrate)."""
        for text, key in self.keys().items():
            yield text, self.read_key(key, text[:24] + "...")
