"""The store's commands: info, list, verify, pack, import, gc and migrate."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.core.errors import FixtureError, ParityError, printable
from harness.core.files import path_arg
from harness.formats.maintenance import (
    ListedFixture,
    import_packed,
    leftover_temp_files,
    list_store,
    migrate,
    pack,
    plan_gc,
    pool_additions,
    run_gc,
    verify,
)
from harness.formats.registry import describe, read_fixture, table
from harness.store.paths import DEFAULT_FIXTURES
from harness.store.pool import Pool


def add_info_parser(sub: argparse._SubParsersAction) -> None:
    info = sub.add_parser("info", help="provenance and contents of a fixture")
    info.add_argument("file", type=path_arg)
    info.add_argument("--full", action="store_true", help="print long provenance fields in full")
    info.set_defaults(func=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    print(describe(read_fixture(args.file), full=args.full))
    return 0


def add_list_parser(sub: argparse._SubParsersAction) -> None:
    lst = sub.add_parser("list", help="fixture sets present")
    lst.add_argument("roots", nargs="*", type=path_arg, help="fixture roots (default: harness/fixtures)")
    lst.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    roots = args.roots or [DEFAULT_FIXTURES]
    for root in roots:
        if not root.is_dir():
            raise ParityError(f"{root}: no such directory")
    unreadable: list[ListedFixture] = []
    for root in roots:
        listed, sizes = list_store(root)
        if not listed:
            print(f"no fixture sets under {root}")
            continue
        rows = []
        for fx, added in zip(listed, pool_additions(listed, sizes), strict=True):
            size = f"{added / 2**20:.2f}" if fx.form == "pool" else f"{fx.path.stat().st_size / 2**20:.2f} file"
            what = f"unreadable: {fx.problem}" if fx.problem else fx.contents
            rows.append((printable(fx.path.relative_to(root)), what, size, fx.created))
        shown = root.resolve().relative_to(Path.cwd()) if root.resolve().is_relative_to(Path.cwd()) else root
        print(f"{shown}:")
        print(table(("fixture", "contents", "adds MiB", "created"), rows))
        pool_files = Pool.of_store(root).files()
        pool_bytes = sum(p.stat().st_size for p in pool_files)
        index_bytes = sum(fx.path.stat().st_size for fx in listed)
        print(
            f"{len(listed)} fixtures ({index_bytes / 2**20:.2f} MiB), pool {len(pool_files)} files "
            f"({pool_bytes / 2**20:.2f} MiB); adds: pool data no fixture recorded before it names"
        )
        for tmp in leftover_temp_files(root):
            print(f"leftover temporary file {printable(tmp.relative_to(root))} (an unfinished write; safe to delete)")
        unreadable += [fx for fx in listed if fx.problem]
    if unreadable:  # listed in the table; the exit status says so too
        first = unreadable[0]
        raise FixtureError(first.path, f"{first.problem} ({len(unreadable)} unreadable fixture(s) listed above)")
    return 0


def add_verify_parser(sub: argparse._SubParsersAction) -> None:
    ver = sub.add_parser(
        "verify", help="check every fixture whole (manifest, completeness, every tensor digest) and every pool"
    )
    ver.add_argument(
        "files", nargs="+", type=path_arg, help="fixture files, or directories (stores) to search for them"
    )
    ver.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    failed = verify(args.files, print, lambda line: print(f"parity: error: {line}", file=sys.stderr))
    return 2 if failed else 0


def add_pack_parser(sub: argparse._SubParsersAction) -> None:
    pck = sub.add_parser("pack", help="one fixture with all its tensors in one self-contained file")
    pck.add_argument("file", type=path_arg, help="the fixture (in a store, packed, or version 1)")
    pck.add_argument("--out", type=path_arg, required=True, help="the packed file, or a directory for it")
    pck.add_argument("--force", action="store_true", help="overwrite an existing file")
    pck.set_defaults(func=cmd_pack)


def cmd_pack(args: argparse.Namespace) -> int:
    print(f"packed {args.file} into {pack(args.file, args.out, force=args.force)}")
    return 0


def add_import_parser(sub: argparse._SubParsersAction) -> None:
    imp = sub.add_parser("import", help="packed fixtures into a store")
    imp.add_argument("files", nargs="+", type=path_arg, help="packed (or version 1) fixture files")
    imp.add_argument("--root", type=path_arg, default=DEFAULT_FIXTURES, help="the store (default: harness/fixtures)")
    imp.add_argument("--force", action="store_true", help="replace a fixture of the same name")
    imp.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    for path in args.files:
        print(f"imported {path} as {import_packed(path, args.root, force=args.force)}")
    return 0


def add_gc_parser(sub: argparse._SubParsersAction) -> None:
    gc = sub.add_parser("gc", help="pool entries no fixture names (a dry run unless --delete)")
    gc.add_argument(
        "root", nargs="?", type=path_arg, default=DEFAULT_FIXTURES, help="the store (default: harness/fixtures)"
    )
    gc.add_argument("--delete", "--yes", action="store_true", help="remove them")
    gc.set_defaults(func=cmd_gc)


def cmd_gc(args: argparse.Namespace) -> int:
    root = args.root
    if not root.is_dir():
        raise ParityError(f"{root}: no such directory")
    plan = plan_gc(root)
    count = sum(len(keys) for keys in plan.unused.values())
    for path, keys in plan.unused.items():
        action = "delete" if not plan.kept[path] else f"rewrite keeping {len(plan.kept[path])} entries"
        print(f"{path.relative_to(root)}: {len(keys)} entries no fixture names ({action})")
    summary = f"{count} unused pool entries, {plan.unused_bytes / 2**20:.2f} MiB"
    if args.delete and count:
        run_gc(root, plan)
        print(f"removed {summary}")
    else:
        print(summary + ("; run with --delete to remove them" if count else ""))
    return 0


def add_migrate_parser(sub: argparse._SubParsersAction) -> None:
    mig = sub.add_parser("migrate", help="convert version 1 fixtures to version 2 (into the store's pool)")
    mig.add_argument("paths", nargs="*", type=path_arg, help="fixture files or stores (default: harness/fixtures)")
    mig.set_defaults(func=cmd_migrate)


def cmd_migrate(args: argparse.Namespace) -> int:
    count = migrate(args.paths or [DEFAULT_FIXTURES], print)
    print(f"{count} fixture(s) converted")
    return 0
