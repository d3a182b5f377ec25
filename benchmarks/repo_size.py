"""What the fixture store and a fresh clone of the repository take on disk, against their budgets.

    python benchmarks/repo_size.py [--rev HEAD] [--top 10]

The store (harness/fixtures at ``--rev``: the pool and every configuration's fixtures) may take
96 MiB, and a fresh clone of the repository (its .git and work tree) 200 MiB. The script clones the
repository (``git clone --no-local``, so that objects are packed as a server would send them) into
a temporary directory, measures both, and splits the clone's pack into the blobs ``--rev`` holds and
those only history holds (fixture files replaced or removed since), naming the largest of the
latter. It prints numbers and exits 0 either way: a budget is read off, not asserted here
(tests/test_committed_fixtures.py asserts the store's).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIB = 2**20
STORE_BUDGET = 96 * MIB
CLONE_BUDGET = 200 * MIB
STORE = "harness/fixtures"


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, check=True
    ).stdout


def tree_bytes(top: Path, skip: str | None = None) -> int:
    """Bytes of the regular files under ``top``, leaving out a first-level directory ``skip``."""
    total = 0
    for path in top.rglob("*"):
        if skip is not None and path.relative_to(top).parts[0] == skip:
            continue
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total


def blob_sizes(repo: Path) -> list[tuple[str, int, str]]:
    """(object id, bytes in the pack, a path it had) of every blob reachable from any ref."""
    listing = git(repo, "rev-list", "--objects", "--all")
    rows = git(
        repo,
        "cat-file",
        "--batch-check=%(objecttype) %(objectname) %(objectsize:disk) %(rest)",
        stdin=listing,
    )
    blobs = []
    for row in rows.splitlines():
        kind, oid, disk, *rest = row.split(" ", 3)
        if kind == "blob":
            blobs.append((oid, int(disk), rest[0] if rest else ""))
    return blobs


def report(rev: str, top: int) -> None:
    with tempfile.TemporaryDirectory(prefix="parity-clone-") as tmp:
        clone = Path(tmp) / "clone"
        branch = [] if rev == "HEAD" else ["--branch", rev]
        subprocess.run(
            ["git", "clone", "-q", "--no-local", *branch, str(ROOT), str(clone)],
            check=True,
            capture_output=True,
        )
        store = tree_bytes(clone / STORE)
        work = tree_bytes(clone, skip=".git")
        dot_git = tree_bytes(clone / ".git")
        head = {line.split()[2] for line in git(clone, "ls-tree", "-r", "HEAD").splitlines()}
        blobs = blob_sizes(clone)
    in_head = sum(disk for oid, disk, _ in blobs if oid in head)
    history = [(disk, path, oid) for oid, disk, path in blobs if oid not in head]
    history_bytes = sum(disk for disk, _, _ in history)
    clone_bytes = work + dot_git
    print(f"store ({STORE}): {store / MIB:.1f} MiB of {STORE_BUDGET / MIB:.0f} MiB")
    print(
        f"fresh clone: {clone_bytes / MIB:.1f} MiB of {CLONE_BUDGET / MIB:.0f} MiB "
        f"(work tree {work / MIB:.1f} MiB, .git {dot_git / MIB:.1f} MiB)"
    )
    print(
        f"  .git's blobs: {in_head / MIB:.1f} MiB that the checked-out tree holds, "
        f"{history_bytes / MIB:.1f} MiB ({len(history)} blobs) that only history holds"
    )
    for disk, path, oid in sorted(history, reverse=True)[:top]:
        print(f"    {disk / MIB:6.2f} MiB  {oid[:12]}  {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="branch to clone (default: the current HEAD)")
    parser.add_argument("--top", type=int, default=10, help="how many history-only blobs to name")
    args = parser.parse_args()
    if args.top < 0:
        print("repo_size: --top must be 0 or more", file=sys.stderr)
        return 2
    try:
        report(args.rev, args.top)
    except subprocess.CalledProcessError as err:
        print(f"repo_size: git failed: {' '.join(err.cmd)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
