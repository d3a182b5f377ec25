"""Whole-store operations: verify, list, pack, import, gc and migrate.

A store root holds ``torch-<version>/*.h5`` (fixtures) and ``pool/*.hdf5`` (their tensors).
Every operation here reads fixtures through the same checks as every other command (format,
manifest, completeness against the generator's spec) before it trusts or changes anything.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import FixtureError, ParityError, printable
from harness.core.files import file_kind
from harness.platform.config import blas_tag, parse_platform_id
from harness.platform.provenance import public_version
from harness.store.fixture import (
    SCHEMA_VERSION,
    STORE_POOL,
    FixtureReader,
    Tree,
    store_root_of,
    version_1_allowed,
    write_tree,
)
from harness.store.hdf5 import TensorKey, damage_in, is_temp_name, json_attr, open_h5, unlink_quietly
from harness.store.pool import (
    POOL_DIR,
    POOL_SUFFIX,
    TENSORS,
    Pool,
    check_pool_file_name,
    read_pool_keys,
    write_pool_file,
)
from harness.store.spec import release_problem

FIXTURE_GLOB = "torch-*/*.h5"


def check_fixture(path: Path, *, load: bool) -> str:
    """Read a fixture of any kind through every check; returns what was verified, in words.

    ``load`` also reads every tensor it names by name (so damage is reported by name)."""
    from harness.formats.registry import check_structure, contents_summary, read_fixture

    if load:
        read_fixture(path)
    with FixtureReader(path) as reader:
        check_structure(reader)
        attrs = reader.attrs("/")
        cases = sum(len(reader.groups(f"ops/{op}")) for op in reader.groups("ops")) if reader.has("ops") else 0
        verified = "verified" if load else "present in the verified pool"
        return f"{len(reader.keys())} tensors {verified}, {contents_summary(reader.kind, attrs)}" + (
            f", {cases} cases" if cases else ""
        )


def leftover_temp_files(root: Path) -> list[Path]:
    """Temporary files of writes that never finished (a killed writer), under ``root``."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob(".*") if p.is_file() and is_temp_name(p))


def fixture_files(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """(fixture files, pool directories): files as given, a directory for every .h5 below it and
    the pool of every store it holds."""
    files: list[Path] = []
    pools: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.h5") if not is_temp_name(p))
            pools += sorted({p.parent for p in path.rglob(f"{POOL_DIR}/*.hdf5") if p.parent.name == POOL_DIR})
            if not found and not pools:
                raise ParityError(f"{path}: no .h5 files below this directory")
            files.extend(found)
        else:
            files.append(path)
    return files, pools


@dataclass
class VerifyResult:
    lines: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leftovers: list[Path] = field(default_factory=list)


def verify(paths: list[Path], emit: Callable[[str], None], error: Callable[[str], None]) -> int:
    """``parity verify``: every pool entry once, then every fixture (structure, manifest, spec;
    tensors of fixtures outside a verified pool read in full). Returns how many failed."""
    files, pools = fixture_files(paths)
    failed = 0
    verified_pools: set[Path] = set()
    damaged_pools: set[Path] = set()

    def report(err: FixtureError) -> None:  # a damaged pool is named once, not again for each fixture
        pool = err.path if err.path.name == POOL_DIR else err.path.parent if err.path.parent.name == POOL_DIR else None
        where = pool.absolute() if pool is not None else None
        if where is None or where not in damaged_pools:
            error(str(err))
        if where is not None:
            damaged_pools.add(where)

    for directory in pools:
        try:
            count = Pool(directory).verify()
            verified_pools.add(directory.resolve())
            emit(f"ok    {printable(directory)}: {count} pool tensors verified")
        except FixtureError as err:
            failed += 1
            report(err)
    for path in files:
        root = store_root_of(path.resolve())
        in_verified_pool = root is not None and (root / POOL_DIR).resolve() in verified_pools
        try:
            with FixtureReader(path) as reader:
                load = not (reader.form == STORE_POOL and in_verified_pool)
            emit(f"ok    {printable(path)}: {check_fixture(path, load=load)}")
        except FixtureError as err:
            failed += 1
            report(err)
    for path in paths:
        for tmp in leftover_temp_files(path) if path.is_dir() else []:
            emit(f"note  {printable(tmp)}: leftover temporary file of an unfinished write (safe to delete)")
    return failed


def _storage_sizes(pool: Pool) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for path in pool.files():
        with open_h5(path) as f, damage_in(path, "tensor pool"):
            for key in read_pool_keys(path):
                sizes.setdefault(key.text, f[TENSORS][key.text].id.get_storage_size())
    return sizes


@dataclass
class ListedFixture:
    path: Path
    torch: str
    platform: str
    kind: str
    contents: str
    created: str
    form: str
    keys: set[str] = field(default_factory=set)
    problem: str = ""


def list_store(root: Path) -> tuple[list[ListedFixture], dict[str, int]]:
    """Every fixture of a store with its keys (unreadable ones with their problem), and the
    stored size of every pool entry."""
    from harness.formats.registry import check_structure, contents_summary

    listed = []
    for path in sorted(root.glob(FIXTURE_GLOB)):
        if is_temp_name(path):
            continue
        try:
            with FixtureReader(path) as reader:
                check_structure(reader)
                attrs = reader.attrs("/")
                listed.append(
                    ListedFixture(
                        path, public_version(str(attrs.get("torch_version", "?"))), str(attrs.get("platform_id", "?")),
                        reader.kind, contents_summary(reader.kind, attrs),
                        str(attrs.get("provenance", {}).get("created", "?"))[:10], reader.form, set(reader.keys()),
                    )
                )  # fmt: skip
        except FixtureError as err:
            listed.append(ListedFixture(path, "?", "?", "?", "?", "?", "?", problem=err.problem))
    sizes = _storage_sizes(Pool.of_store(root))  # a damaged pool is an error of its own, not an empty one
    listed.sort(key=lambda f: (f.created, str(f.path)))
    return listed, sizes


def pool_additions(listed: list[ListedFixture], sizes: dict[str, int]) -> list[int]:
    """Per fixture, in recording order: bytes of pool entries no fixture recorded before it names."""
    seen: set[str] = set()
    out = []
    for fx in listed:
        new = fx.keys - seen
        out.append(sum(sizes.get(k, 0) for k in new) if fx.form == STORE_POOL else 0)
        seen |= fx.keys
    return out


def _tree_for_v2(reader: FixtureReader) -> Tree:
    tree = reader.tree
    tree["/"].attrs["schema_version"] = SCHEMA_VERSION
    return tree


def blas_named_id(tree: Tree) -> str:
    """The platform id a fixture recorded before ids named the BLAS code path gets now ('' if none).

    The path is read from the fixture's own provenance (torch's BLAS_INFO and MKL's banner), so
    'linux-x86_64-avx2-t2' recorded on an AMD CPU becomes 'linux-x86_64-avx2-mklgeneric-t2'.
    """
    root = tree["/"].attrs
    try:
        config = parse_platform_id(str(root.get("platform_id", "")))
        provenance = json.loads(str(root.get("provenance", "")))
    except (ParityError, ValueError):
        return ""
    if config.blas or not isinstance(provenance, dict) or not provenance.get("blas"):
        return ""
    return config.with_blas(blas_tag(str(provenance["blas"]), str(provenance.get("mkl_code_path", "")))).id


def _rename(tree: Tree, new_id: str) -> None:
    """Name ``tree`` ``new_id``, its provenance too; the id it was recorded under stays in provenance."""
    root = tree["/"].attrs
    provenance = json.loads(str(root["provenance"]))
    provenance.setdefault("platform_id_recorded", provenance.get("platform_id", root["platform_id"]))
    provenance["platform_id"] = new_id
    root["provenance"] = json_attr(provenance)
    root["platform_id"] = new_id


def migrate(paths: list[Path], emit: Callable[[str], None]) -> int:
    """Convert version 1 fixtures in place: inside a store into the pool, elsewhere to packed files.

    A fixture whose platform id does not yet name its BLAS code path is renamed too (file and id).
    """
    files, _ = fixture_files(paths)
    converted = 0
    for path in files:
        with version_1_allowed():
            check_fixture(path, load=True)  # nothing damaged is converted
        with version_1_allowed(), FixtureReader(path) as reader:
            new_id = blas_named_id(reader.tree)
            if reader.schema_version != 1 and not new_id:
                continue
            tree = _tree_for_v2(reader)
            old_id = str(tree["/"].attrs["platform_id"])
            target = path
            if new_id and path.name.startswith(old_id):
                _rename(tree, new_id)
                target = path.with_name(new_id + path.name[len(old_id) :])
            packed = store_root_of(path.resolve()) is None
            writer = write_tree(target, tree, reader.tensor_data(), force=target == path, packed=packed)
        if target != path:
            path.unlink()
        check_fixture(target, load=True)
        added = f", added {writer.pool_file.name} to the pool" if writer.pool_file else ""
        renamed = f" as {target.name}" if target != path else ""
        emit(f"migrated {path} to schema {SCHEMA_VERSION}{renamed} ({'packed' if packed else 'store'}{added})")
        converted += 1
    return converted


def pack(path: Path, out: Path, *, force: bool) -> Path:
    """One fixture, with every tensor it names, into one self-contained file."""
    check_fixture(path, load=False)
    if out.is_dir():
        out = out / path.name
    with FixtureReader(path) as reader:
        tree = _tree_for_v2(reader)
        write_tree(out, tree, reader.tensor_data(), force=force, packed=True)
    check_fixture(out, load=True)
    return out


def import_packed(path: Path, root: Path, *, force: bool) -> Path:
    """A packed fixture into the store at ``root``: under its torch release, by the name its
    contents give it (``<platform id>[.<kind's suffix>].h5``), whatever the packed file is called."""
    from harness.formats.registry import canonical_name

    check_fixture(path, load=True)
    with FixtureReader(path) as reader:
        if reader.form == STORE_POOL:
            raise ParityError(f"{path}: is a store fixture already; 'parity pack' it first")
        version = public_version(str(reader.attrs("/").get("torch_version", "")))
        problem = release_problem(version)
        if problem:
            raise FixtureError(path, f"damaged fixture: {problem}")
        dest = root / f"torch-{version}" / canonical_name(reader)
        tree = _tree_for_v2(reader)
        write_tree(dest, tree, reader.tensor_data(), force=force, packed=False)
    check_fixture(dest, load=True)
    return dest


@dataclass
class GcPlan:
    unused: dict[Path, list[str]]  # pool file -> entries no fixture names
    kept: dict[Path, list[str]]  # pool file -> entries still named
    sizes: dict[str, int]

    @property
    def unused_bytes(self) -> int:
        return sum(self.sizes.get(k, 0) for keys in self.unused.values() for k in keys)


def _gc_refusal(root: Path) -> tuple[Path, str] | None:
    """What keeps gc from knowing every fixture of the store (a file it cannot recognise, a write in
    progress) or from owning every pool file (a symbolic link), with its path; None if nothing."""
    pool = root / POOL_DIR
    if pool.is_symlink():
        return pool, "the pool is a symbolic link: its files may belong to another store"
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            entry = here / name
            in_pool, in_release = here == pool, here.parent == root and here.name.startswith("torch-")
            if entry.is_symlink():
                return entry, "is a symbolic link: gc deletes only from a store that owns its files"
            if name in dirnames:
                if here != root:
                    return entry, "is a directory where the store holds only files"
                continue
            kind = file_kind(entry.lstat().st_mode)
            if is_temp_name(entry):
                return entry, "is the temporary file of a write in progress or killed (delete it once no write runs)"
            if kind and (in_pool or in_release or _looks_stored(name)):
                return entry, f"is {kind}, which the store never holds"
            if in_pool and not name.endswith(POOL_SUFFIX):
                return entry, "is not a pool file (<16 hex>.hdf5)"
            if in_release and not name.endswith(".h5"):
                return entry, "is not a fixture file (.h5), so gc cannot see what it names"
            if not (in_pool or in_release) and _looks_stored(name):
                return entry, f"lies outside torch-<release>/ and {POOL_DIR}/, so gc cannot see what it names"
    return None


def _looks_stored(name: str) -> bool:
    return name.lower().endswith((".h5", ".hdf5", ".hdf", ".he5"))


def plan_gc(root: Path) -> GcPlan:
    """Which pool entries no fixture of the store names; refuses (nothing planned) while any
    fixture is unreadable, any file in the store is one it does not recognise, a write is in
    progress, the pool or a file in it is a symbolic link, or a pool file's name is not the digest
    of what it holds: each could hide a fixture that needs an entry gc would delete.

    Run it on a store no writer is adding to: a fixture names its new pool file only once it is
    published, so a write in progress would look unused (its temporary file makes gc refuse)."""
    refusal = _gc_refusal(root)
    if refusal is not None:
        raise FixtureError(refusal[0], f"{refusal[1]} (gc deletes nothing while it is there)")
    listed, sizes = list_store(root)
    broken = [f for f in listed if f.problem]
    if broken:
        raise FixtureError(broken[0].path, f"{broken[0].problem} (gc needs every fixture readable)")
    named = set().union(*(f.keys for f in listed)) if listed else set()
    unused: dict[Path, list[str]] = {}
    kept: dict[Path, list[str]] = {}
    for path in Pool.of_store(root).files():
        keys = [k.text for k in read_pool_keys(path)]
        check_pool_file_name(path, keys)
        gone = [k for k in keys if k not in named]
        if gone:
            unused[path] = gone
            kept[path] = [k for k in keys if k in named]
    return GcPlan(unused, kept, sizes)


def run_gc(root: Path, plan: GcPlan) -> None:
    """Remove the planned entries: a pool file all of whose entries go is deleted; one with some
    entries left is rewritten (a new file with those entries first, then the old one removed)."""
    pool = Pool.of_store(root)
    for path, keep in plan.kept.items():
        if keep:
            entries = [(k, pool.read(TensorKey.parse(k, path, k[:24]), path, k[:24])) for k in keep]
            write_pool_file(pool.directory, entries)
        pool.close()
        unlink_quietly(path)
