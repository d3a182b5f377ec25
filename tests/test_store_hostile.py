"""Hostile inputs to the store's commands: names the OS refuses or cannot decode, FIFOs, symlinks,
bit flips in HDF5 metadata, trees that parse but say more (or less) than they should, packed and
version 1 files that only look right, and store layouts that would make ``gc`` delete data.

Every variant is built in ``tmp_path`` from copies of the committed fixtures. The contract:

- a bad input: exit status 2 and exactly one line on stderr, ``parity: error: ...``; never a
  traceback, never 0 or 1, and within 10 s;
- an odd but valid input: exit status 0 and the right result.

``PARITY_FUZZ_SEED`` picks other bit-flip offsets; ``PARITY_FUZZ_FULL=1`` tries many more of them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest

from harness.cli import main
from harness.formats.maintenance import pack
from harness.formats.ops import input_digest_of, read_op_fixture, write_op_fixture
from harness.store.fixture import TREE, FixtureReader, manifest_digest, tree_json, version_1_allowed
from harness.store.hdf5 import TensorKey, create_h5, json_attr, write_dataset
from harness.store.paths import DEFAULT_FIXTURES
from harness.store.pool import POOL_DIR, pool_file_name
from tests.store_helpers import edit_tree_json, loose_manifest, loose_tree, write_v1

REPO = Path(__file__).resolve().parent.parent
SEED = int(os.environ.get("PARITY_FUZZ_SEED", "20261207"))
FULL = os.environ.get("PARITY_FUZZ_FULL", "") == "1"
LIMIT_S = 10.0
RELEASE = "torch-2.13.0"
GEN_ID = "linux-x86_64-avx2-mklgeneric-t2"  # the full generator fixture: 26 ops
RAND_ID = "linux-arm64-neoverse-n1-nvpl-t1"
RAND_NAME = f"{RAND_ID}.random-1.h5"  # a random-case fixture (random_cases: seed 1)
SMALL_OPS = ["randn", "exp", "cross_entropy"]


# ------------------------------------------------------------------ running the command


class _Hang(BaseException):
    """Raised by the watchdog: not an Exception, so no handler in the code under test swallows it."""


@dataclass
class Result:
    argv: list[str]
    code: int | None  # None: a traceback or a hang
    out: str
    err: str
    seconds: float
    raw_out: bytes = field(default=b"", repr=False)  # stdout as written (a process of its own)

    def describe(self) -> str:
        args = " ".join(_short(a) for a in self.argv)
        err = self.err
        for arg in sorted(self.argv, key=len, reverse=True):
            if len(arg) > 70:
                err = err.replace(arg, _short(arg))
        lines = [line[:200] for line in err.strip().splitlines()]
        shown = "\n      ".join(lines[-3:] if "Traceback" in err else lines[:3]) or "<nothing>"
        return f"parity {args} -> exit {self.code} in {self.seconds:.1f} s; stderr:\n      {shown}"


def _short(arg: str) -> str:
    return arg if len(arg) <= 70 else f"<{len(arg)} chars>...{arg[-40:]}"


def run(argv: list[Any], timeout: float = LIMIT_S) -> Result:
    """``harness.cli.main`` in this process, stdout and stderr captured, with a watchdog."""
    args = [os.fspath(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()

    def on_alarm(signum: int, frame: Any) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    code: int | None = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exc:
                code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except _Hang:
        err.write(f"\n<still running after {timeout:.0f} s>")
    except Exception:
        err.write("\n" + traceback.format_exc())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Result(args, code, out.getvalue(), err.getvalue(), time.perf_counter() - start)


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("LC_ALL", "C.UTF-8")
    env.update(extra or {})
    return env


def run_processes(
    commands: list[list[Any]], timeout: float = LIMIT_S, env: dict[str, str] | None = None
) -> list[Result]:
    """Each command as ``python -m harness.cli ...`` in a process of its own, all at once; one
    still running ``timeout`` seconds after it started is killed (and reported as a hang)."""
    procs = []
    for argv in commands:
        args = [os.fspath(a) for a in argv]
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.cli", *args], cwd=REPO, env=_env(env),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        procs.append((args, proc, time.perf_counter()))
    results = []
    for args, proc, start in procs:
        hung = False
        try:
            out, err = proc.communicate(timeout=max(0.1, start + timeout - time.perf_counter()))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            hung = True
        seconds = time.perf_counter() - start
        text = err.decode("utf-8", "backslashreplace")
        if hung:
            text += f"\n<still running after {timeout:.0f} s>"
        code = None if hung else proc.returncode
        results.append(Result(args, code, out.decode("utf-8", "backslashreplace"), text, seconds, out))
    return results


def in_children(
    jobs: list[Callable[[], int]], timeout: float = LIMIT_S, at_once: int = 64
) -> list[tuple[int | None, bytes, str, float]]:
    """Each job in a forked child of this process (everything already imported, so a child costs
    only its own work), ``at_once`` at a time, its stdout and stderr captured; one still running
    ``timeout`` seconds after it started is killed. (exit status or None, stdout, stderr, seconds)
    per job. For what may block in the kernel (a FIFO) or loop inside a C library, where no
    watchdog inside the process can help."""
    results: list[Any] = [None] * len(jobs)
    with contextlib.ExitStack() as files:
        pending = list(enumerate(jobs))
        running: dict[int, tuple[int, Any, Any, float]] = {}
        while pending or running:
            while pending and len(running) < at_once:
                index, job = pending.pop(0)
                out = files.enter_context(tempfile.TemporaryFile())
                err = files.enter_context(tempfile.TemporaryFile())
                pid = os.fork()
                if pid == 0:  # the child: run the job and leave, never returning into pytest
                    _child(job, out.fileno(), err.fileno())
                running[pid] = (index, out, err, time.perf_counter())
            for pid, (index, out, err, started) in list(running.items()):
                done, wait_status = os.waitpid(pid, os.WNOHANG)
                status: int | None = os.waitstatus_to_exitcode(wait_status) if done else None
                if not done and time.perf_counter() - started <= timeout:
                    continue
                if not done:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                seconds = time.perf_counter() - started
                out.seek(0)
                err.seek(0)
                text = err.read().decode("utf-8", "backslashreplace")
                if status is None:
                    text += f"\n<still running after {timeout:.0f} s>"
                results[index] = (status, out.read(), text, seconds)
                del running[pid]
            time.sleep(0.01)
    return results


def _child(job: Callable[[], int], out: int, err: int) -> None:
    code = 1
    try:
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="replace")
        code = job()
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _main_job(args: list[str]) -> Callable[[], int]:
    def job() -> int:
        try:
            return main(args)
        except SystemExit as exc:
            return 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1

    return job


def run_forked(commands: list[list[Any]], timeout: float = LIMIT_S, at_once: int = 64) -> list[Result]:
    """Each command in a forked child (see ``in_children``)."""
    argvs = [[os.fspath(a) for a in argv] for argv in commands]
    done = in_children([_main_job(args) for args in argvs], timeout, at_once)
    return [
        Result(args, status, out.decode("utf-8", "backslashreplace"), err, seconds, out)
        for args, (status, out, err, seconds) in zip(argvs, done, strict=True)
    ]


def is_one_line_error(res: Result) -> bool:
    lines = res.err.splitlines()
    return (
        res.code == 2
        and len(lines) == 1
        and lines[0].startswith("parity: error: ")
        and "Traceback" not in res.err
        and res.seconds < LIMIT_S
    )


def is_clean_success(res: Result) -> bool:
    return res.code == 0 and "Traceback" not in res.err and res.seconds < LIMIT_S


class Findings:
    """Collects every broken expectation of a test, so one run reports them all."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def error(self, res: Result, what: str = "") -> Result:
        if not is_one_line_error(res):
            self.problems.append(f"{what + ': ' if what else ''}expected exit 2 and one error line; {res.describe()}")
        return res

    def success(self, res: Result, what: str = "") -> Result:
        if not is_clean_success(res):
            self.problems.append(f"{what + ': ' if what else ''}expected exit 0; {res.describe()}")
        return res

    def that(self, condition: bool, message: str) -> None:
        if not condition:
            self.problems.append(message)

    def check(self) -> None:
        if self.problems:
            pytest.fail(f"{len(self.problems)} problem(s):\n" + "\n".join(self.problems), pytrace=False)


# ------------------------------------------------------------------ building stores


@dataclass
class Base:
    small: Path  # a store: the three-op generator fixture, its own pool
    rand: Path  # a store: the committed random-case fixture and the pool file it needs
    full: Path  # a store: the full generator fixture (26 ops, provenance lists them all) and its pool
    small_packed: Path
    rand_packed: Path

    @property
    def small_fixture(self) -> Path:
        return self.small / RELEASE / f"{GEN_ID}.h5"

    @property
    def rand_fixture(self) -> Path:
        return self.rand / RELEASE / RAND_NAME

    @property
    def full_fixture(self) -> Path:
        return self.full / RELEASE / f"{GEN_ID}.h5"


def _pool_files_of(fixture: Path) -> list[Path]:
    with FixtureReader(fixture) as reader:
        index = reader.pool.index()
        return sorted({index[key.text] for key in reader.keys().values()})


def _committed_store(dest: Path, name: str) -> Path:
    source = DEFAULT_FIXTURES / RELEASE / name
    (dest / RELEASE).mkdir(parents=True)
    (dest / POOL_DIR).mkdir()
    shutil.copyfile(source, dest / RELEASE / name)
    for pool_file in _pool_files_of(source):
        shutil.copyfile(pool_file, dest / POOL_DIR / pool_file.name)  # never a link to the committed pool
    return dest


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Base:
    root = tmp_path_factory.mktemp("hostile-base")
    fx = read_op_fixture(DEFAULT_FIXTURES / RELEASE / f"{GEN_ID}.h5", ops=SMALL_OPS)
    provenance = dict(fx.provenance) | {"ops_recorded": SMALL_OPS}
    write_op_fixture(root / "small" / RELEASE / f"{GEN_ID}.h5", provenance, list(fx.cases.values()))
    rand = _committed_store(root / "rand", RAND_NAME)
    full = _committed_store(root / "full", f"{GEN_ID}.h5")
    b = Base(root / "small", rand, full, root / "packed" / f"{GEN_ID}.h5", root / "packed-rand" / RAND_NAME)
    pack(b.small_fixture, b.small_packed, force=False)
    pack_fast(b.rand_fixture, b.rand_packed)
    return b


def _link_or_copy(src: Path, dest: Path) -> None:
    try:
        os.link(src, dest)
    except OSError:
        shutil.copyfile(src, dest)


def clone(store: Path, dest: Path, *, fixtures: bool = True, own_pool: bool = False) -> Path:
    """A copy of a store: fixture files copied, pool files hard-linked (copied with ``own_pool``,
    for a test that changes them)."""
    (dest / POOL_DIR).mkdir(parents=True, exist_ok=True)
    for path in sorted((store / POOL_DIR).iterdir()):
        (shutil.copyfile if own_pool else _link_or_copy)(path, dest / POOL_DIR / path.name)
    if fixtures:
        for path in sorted(store.glob("torch-*/*.h5")):
            (dest / path.parent.name).mkdir(exist_ok=True)
            shutil.copyfile(path, dest / path.parent.name / path.name)
    return dest


def snapshot(root: Path) -> dict[str, str]:
    """Every entry below ``root``: a file's SHA-256, a link's target, a FIFO or directory as such."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.fsdecode(os.path.relpath(path, os.fsencode(root)))
            st = os.lstat(path)
            if os.path.islink(path):
                found[rel] = "link -> " + os.fsdecode(os.readlink(path))
            elif os.path.isdir(path):
                found[rel] = "dir"
            elif not os.path.isfile(path):
                found[rel] = f"special {st.st_mode:o}"
            else:
                with open(path, "rb") as fh:
                    found[rel] = hashlib.sha256(fh.read()).hexdigest()
    return found


def tree_of(path: Path) -> dict[str, Any]:
    """A store fixture's tree as the JSON it is stored as."""
    with h5py.File(path, "r") as f:
        return json.loads(f[TREE][()].tobytes().decode())


def reseal(path: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Edit a store fixture's tree and write the manifest a writer would give the result."""
    edit_tree_json(path, edit, reseal=True)
    with h5py.File(path, "r") as f:  # sealed: only what the tree says is left for a reader to refuse
        assert f.attrs["manifest"] == loose_manifest(tree_of(path))
    return path


def write_tree_text(path: Path, text: str) -> None:
    """Replace a store fixture's tree text as is (its manifest stays)."""
    with h5py.File(path, "r+") as f:
        del f[TREE]
        write_dataset(f, TREE, np.frombuffer(text.encode(), dtype=np.uint8))


def recompute_input_digest(tree: dict[str, Any]) -> None:
    """The root's input_digest from the cases the tree now holds, as a writer would compute it."""
    cases = []
    for op in tree["ops"]["groups"]:
        for case in tree[f"ops/{op}"]["groups"]:
            node = tree.get(f"ops/{op}/{case}/inputs", {"tensors": []})
            inputs = {name: TensorKey.parse(key, Path("-"), name) for name, key in node["tensors"]}
            cases.append((op, case, json.loads(tree[f"ops/{op}/{case}"]["attrs"]["params"]), inputs))
    tree["/"]["attrs"]["input_digest"] = input_digest_of(cases)


def _h5_attr(value: Any) -> Any:
    if isinstance(value, str) and "\0" in value:
        return np.bytes_(value.encode())  # a fixed-length string: HDF5 keeps the NUL
    return value


def pack_fast(source: Path, dest: Path, edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A packed file of ``source``'s tree (edited by ``edit``, manifest over the result), its
    tensors copied chunk for chunk from where ``source`` keeps them: as ``parity pack`` lays it
    out, but without recompressing anything."""
    with FixtureReader(source) as reader:
        data = json.loads(tree_json(reader.tree))
        where = reader.pool.index() if reader.pool is not None else {}
    if edit is not None:
        edit(data)
    tree = loose_tree(data)
    keys = sorted({k.text for node in tree.values() for k in node.tensors.values()})
    by_file: dict[Path, list[str]] = {}
    for key in keys:
        by_file.setdefault(where.get(key, source), []).append(key)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with create_h5(dest) as f:
        for key in ("format", "schema_version", "kind"):
            f.attrs[key] = tree["/"].attrs[key]
        f.attrs["store"] = "packed"
        f.attrs["manifest"] = manifest_digest(tree)
        blobs = f.create_group("tensors", track_order=True)
        for path, names in by_file.items():
            with h5py.File(path, "r") as src:
                for key in names:
                    src.copy(src["tensors"][key], blobs, name=key)
        for path, node in tree.items():
            group = f if path == "/" else f.create_group(path, track_order=True)
            for key, value in node.attrs.items():
                group.attrs[key] = _h5_attr(value)
            for name, key in node.tensors.items():
                group[name] = blobs[key.text]
    if edit is None:
        FixtureReader(dest).close()  # an unedited tree reads back
    return dest


def delete_subtree(tree: dict[str, Any], path: str) -> None:
    parent, _, name = path.rpartition("/")
    tree[parent or "/"]["groups"].remove(name)
    for p in [p for p in tree if p == path or p.startswith(path + "/")]:
        del tree[p]


def first_case(tree: dict[str, Any], op: str) -> str:
    return f"ops/{op}/{tree[f'ops/{op}']['groups'][0]}"


# ------------------------------------------------------------------ the unchanged stores


def test_the_unchanged_stores_pass(base, tmp_path):
    """What every variant below starts from passes every command (the variants fail for their damage)."""
    found = Findings()
    for root in (base.small, base.rand, base.full):
        found.success(run(["verify", root]))
        found.success(run(["list", root]))
        found.success(run(["gc", root]))
    for path in (base.small_packed, base.rand_packed):
        found.success(run(["verify", path]))
    found.success(run(["info", base.small_fixture]))
    found.success(run(["diff", base.small_fixture, base.small_packed]))
    found.success(run(["check", "--impl", "--against", base.small_fixture]))
    found.success(run(["check", "--impl", "--against", base.rand_fixture]))
    for res in run_forked([["verify", base.small], ["info", base.small_fixture]]):
        found.success(res, "in a child process")
    found.that(run(["verify", base.small / "nothing.h5"]).code == 2, "verify of a missing file")
    # a packed file under its own name goes into a store that holds its pool, and gc keeps it all
    store = clone(base.small, tmp_path / "store", fixtures=False)
    res = found.success(run(["import", base.small_packed, "--root", store]))
    found.that(str(store / RELEASE / f"{GEN_ID}.h5") in res.out, f"import printed {res.out!r}")
    found.success(run(["gc", store, "--delete"]))
    found.success(run(["verify", store]))
    found.that(sorted(os.listdir(store / POOL_DIR)) == sorted(os.listdir(base.small / POOL_DIR)), "gc deleted")
    store = clone(base.rand, tmp_path / "rand-store", fixtures=False)
    found.success(run(["import", base.rand_packed, "--root", store]))
    found.success(run(["verify", store]))
    found.check()


# ------------------------------------------------------------------ 1. names the OS refuses


@pytest.mark.parametrize("form", ["file name of 300 characters", "path of 5000 characters"])
def test_overlong_names_are_one_line_errors(base, tmp_path, form):
    if form.startswith("file"):
        long_file, long_out, long_dir = (tmp_path / ("n" * 297 + ".h5"), tmp_path / ("o" * 295 + ".json"),
                                         tmp_path / ("r" * 300))  # fmt: skip
    else:
        deep = tmp_path.joinpath(*["d" * 99] * 50)
        long_file, long_out, long_dir = deep / "f.h5", deep / "report.json", deep / "root"
    assert len(long_file.name) >= 300 or len(str(long_file)) >= 5000
    store = clone(base.small, tmp_path / "store", fixtures=False)
    fixture, packed = base.small_fixture, base.small_packed
    commands = [
        ["verify", long_file],
        ["verify", long_dir],
        ["list", long_dir],
        ["info", long_file],
        ["check", "--impl", "--against", long_file],
        ["diff", long_file, fixture],
        ["diff", fixture, long_file],
        ["pack", long_file, "--out", tmp_path / "out.h5"],
        ["import", long_file, "--root", store],
        ["gc", long_dir],
        ["gc", long_dir, "--delete"],
        ["migrate", long_file],
        # the long name given to an option
        ["pack", fixture, "--out", long_file],
        ["import", packed, "--root", long_dir],
        ["check", "--impl", "--against", fixture, "--output", long_out],
        ["diff", fixture, fixture, "--output", long_out],
    ]
    found = Findings()
    for argv in commands:
        found.error(run(argv))
    found.that(not (tmp_path / "out.h5").exists(), "pack wrote a file")
    found.check()


# ------------------------------------------------------------------ 2. a name that is not UTF-8


def test_a_fixture_named_in_bytes_that_are_not_utf8(base, tmp_path):
    store = clone(base.small, tmp_path / "store", fixtures=False)
    (store / RELEASE).mkdir()
    odd = os.path.join(os.fsencode(store / RELEASE), b"\xff\xfe.h5")
    with open(base.small_fixture, "rb") as src, open(odd, "wb") as dst:
        dst.write(src.read())
    escaped = re.compile(r"(\\xff\\xfe|\\udcff\\udcfe|\ufffd\ufffd|\?\?|%ff%fe)\.h5", re.IGNORECASE)
    found = Findings()
    results = run_processes([["verify", store], ["list", store]], env={"PYTHONIOENCODING": "utf-8:strict"})
    for res, shown in zip(results, ("ok ", "3 ops"), strict=True):
        found.success(res)
        found.that(not res.err.strip(), f"{res.argv[0]} wrote to stderr: {res.err[-300:]!r}")
        try:
            text = res.raw_out.decode("utf-8")
        except UnicodeDecodeError as err:
            found.problems.append(f"{res.argv[0]}: stdout is not UTF-8 ({err})")
            continue
        found.that(
            any(escaped.search(line) and shown in line for line in text.splitlines()),
            f"{res.argv[0]}: no line shows the fixture, its name escaped: {text[-400:]!r}",
        )
    found.check()


# ------------------------------------------------------------------ 3. bit flips in HDF5 metadata


def h5_content(path: Path) -> Any:
    """Everything an HDF5 file holds, read without any check; None where it cannot be read."""

    def attrs(obj: Any) -> list[tuple[str, str]]:
        return sorted((k, repr(obj.attrs[k])) for k in obj.attrs)

    try:
        with h5py.File(path, "r") as f:
            found: list[Any] = [("/", attrs(f))]

            def visit(name: str, obj: Any) -> None:
                if isinstance(obj, h5py.Dataset):
                    found.append((name, obj.dtype.str, obj.shape, attrs(obj), np.asarray(obj[()]).tobytes()))
                else:
                    found.append((name, attrs(obj)))

            f.visititems(visit)
            return found
    except Exception:
        return None


def _content_job(path: Path) -> Callable[[], int]:
    """Print the digest of what ``h5_content`` reads (in a child: HDF5 may loop on a damaged file)."""

    def job() -> int:
        print(hashlib.sha256(repr(h5_content(path)).encode()).hexdigest())
        return 0

    return job


# offsets of the three-op store fixture where one flipped bit is known to matter: 139 and 191 (a
# flip there is reported as a traceback) and 2137 (HDF5 never returns from opening the tree)
NAMED_FLIPS = {"fixture file": [139, 191, 2137], "pool file": [139, 191]}


def _flip_offsets(rng: random.Random, size: int, named: list[int]) -> list[tuple[int, int]]:
    bits = range(8) if FULL else (0, 7)
    flips = [(offset, 1 << bit) for offset in named for bit in bits]
    others = rng.sample([o for o in range(min(size, 4096)) if o not in named], 400 if FULL else 12)
    return flips + [(o, 1 << rng.randrange(8)) for o in sorted(others)]


@pytest.mark.parametrize("target", ["fixture file", "pool file"])
def test_bit_flips_in_hdf5_metadata(base, tmp_path, target):
    rng = random.Random(f"{SEED}-{target}")
    fixture_name = base.small_fixture.name
    pool_name = next((base.small / POOL_DIR).iterdir()).name
    original_file = base.small_fixture if target == "fixture file" else base.small / POOL_DIR / pool_name
    original = hashlib.sha256(repr(h5_content(original_file)).encode()).hexdigest()
    assert h5_content(original_file) is not None
    raw = original_file.read_bytes()
    flips = _flip_offsets(rng, len(raw), NAMED_FLIPS[target])
    found = Findings()
    for first in range(0, len(flips), 16):  # a batch of variants at a time, each command in a child
        variants, jobs, argvs = [], [], []
        for i, (offset, mask) in enumerate(flips[first : first + 16], start=first):
            store = clone(base.small, tmp_path / f"v{i}", own_pool=target == "pool file")
            fixture = store / RELEASE / fixture_name
            damaged = fixture if target == "fixture file" else store / POOL_DIR / pool_name
            data = bytearray(raw)
            data[offset] ^= mask
            damaged.write_bytes(bytes(data))
            commands = [["verify", fixture if target == "fixture file" else store], ["info", fixture], ["list", store]]
            variants.append((offset, mask, store, len(commands)))
            jobs.append(_content_job(damaged))
            for argv in commands:
                argvs.append([os.fspath(a) for a in argv])
                jobs.append(_main_job(argvs[-1]))
        done = iter(in_children(jobs, at_once=8))
        commands_done = iter(argvs)
        for offset, mask, store, count in variants:
            status, out, _, _ = next(done)
            unchanged = status == 0 and out.decode().strip() == original  # a flip in padding, or unread
            for _ in range(count):
                status, out, err, seconds = next(done)
                res = Result(next(commands_done), status, out.decode("utf-8", "replace"), err, seconds, out)
                if not (is_one_line_error(res) or (unchanged and is_clean_success(res))):
                    what = "same content" if unchanged else "changed"
                    found.problems.append(f"byte {offset} ^ {mask:#04x} ({what}): {res.describe()}")
            shutil.rmtree(store)
    found.check()


# ------------------------------------------------------------------ 4. symlinks in pool/


def every_store_command_refuses(store: Path) -> None:
    """verify, list, info of its fixture and gc --delete of a store with a damaged pool: each one line,
    exit 2, and the pool as it was."""
    before = snapshot(store / POOL_DIR)
    found = Findings()
    found.error(run(["verify", store]))
    found.error(run(["list", store]))
    found.error(run(["info", store / RELEASE / f"{GEN_ID}.h5"]))
    found.error(run(["gc", store, "--delete"]))
    found.that(snapshot(store / POOL_DIR) == before, "gc changed the pool")
    found.check()


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_a_symlink_in_the_pool_that_leads_nowhere(base, tmp_path, kind):
    store = clone(base.small, tmp_path / "store")
    link = store / POOL_DIR / "0123456789abcdef.hdf5"
    if kind == "dangling":
        os.symlink(tmp_path / "gone.hdf5", link)
    else:
        os.symlink(link.name, link)
    every_store_command_refuses(store)


# ------------------------------------------------------------------ 5. groups where tensors belong


@pytest.mark.parametrize("kind", ["dataset replaced by a group", "extra group under /tensors"])
def test_a_group_among_the_pool_tensors(base, tmp_path, kind):
    store = clone(base.small, tmp_path / "store", own_pool=True)
    pool_file = next((store / POOL_DIR).iterdir())
    with h5py.File(pool_file, "r+") as f:
        if kind.startswith("dataset"):
            name = sorted(f["tensors"])[0]
            del f["tensors"][name]
            f["tensors"].create_group(name)
        else:
            f["tensors"].create_group(hashlib.sha256(b"extra").hexdigest() + "_float32_3")
    every_store_command_refuses(store)


# ------------------------------------------------------------------ 6. trees HDF5 cannot hold


def _root_attr(value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(tree: dict[str, Any]) -> None:
        tree["/"]["attrs"]["note"] = value

    return edit


def _node_named_slash_ops(tree: dict[str, Any]) -> None:
    tree["/ops"] = {"attrs": {}, "tensors": [], "groups": []}
    tree["/"]["groups"].append("/ops")


@pytest.mark.parametrize(
    "edit",
    [_root_attr(10**30), _root_attr("a\0b"), _root_attr("\ud800"), _node_named_slash_ops],
    ids=["attribute 10**30", "attribute with a NUL", "attribute with a lone surrogate", "node named /ops"],
)
def test_pack_of_a_tree_hdf5_cannot_hold(base, tmp_path, edit):
    store = clone(base.small, tmp_path / "store")
    fixture = reseal(store / RELEASE / f"{GEN_ID}.h5", edit)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    found = Findings()
    found.error(run(["pack", fixture, "--out", out_dir / "packed.h5"]))
    found.that(not os.listdir(out_dir), f"pack left {os.listdir(out_dir)} behind")
    found.error(run(["verify", fixture]))
    found.check()


# ------------------------------------------------------------------ 7. provenance that cannot be printed


def test_info_of_a_lone_surrogate_in_provenance(base, tmp_path):
    store = clone(base.small, tmp_path / "store")

    def edit(tree: dict[str, Any]) -> None:
        provenance = json.loads(tree["/"]["attrs"]["provenance"])
        provenance["cpu_model"] = "AMD \ud800 EPYC"
        tree["/"]["attrs"]["provenance"] = json_attr(provenance)  # the JSON escape \ud800

    fixture = reseal(store / RELEASE / f"{GEN_ID}.h5", edit)
    assert "\\ud800" in json.dumps(tree_of(fixture)["/"]["attrs"]["provenance"])
    found = Findings()
    found.error(run(["info", fixture]))
    for res in run_processes([["info", fixture]], env={"PYTHONIOENCODING": "utf-8:strict"}):
        found.error(res, "with a strict UTF-8 stdout")
    found.check()


# ------------------------------------------------------------------ 8. a NUL in torch_version


def test_import_of_a_packed_file_whose_torch_version_holds_a_nul(base, tmp_path):
    def edit(tree: dict[str, Any]) -> None:
        provenance = json.loads(tree["/"]["attrs"]["provenance"])
        provenance["torch_version"] = "2.13.0\0evil"
        tree["/"]["attrs"]["provenance"] = json_attr(provenance)
        tree["/"]["attrs"]["torch_version"] = "2.13.0\0evil"

    packed = pack_fast(base.small_fixture, tmp_path / "in" / f"{GEN_ID}.h5", edit)
    with h5py.File(packed, "r") as f:
        assert b"\0" in bytes(f.attrs["torch_version"])
    store = clone(base.small, tmp_path / "store")
    before = snapshot(store)
    found = Findings()
    found.error(run(["import", packed, "--root", store]))
    found.that(snapshot(store) == before, "import wrote into the store")
    found.check()


# ------------------------------------------------------------------ 9. a random-case fixture lacking an input


@pytest.mark.parametrize("digest", ["input digest as recorded", "input digest recomputed"])
def test_check_of_a_random_case_fixture_lacking_an_input(base, tmp_path, digest):
    store = clone(base.rand, tmp_path / "store")

    def edit(tree: dict[str, Any]) -> None:
        inputs = tree[first_case(tree, "linear") + "/inputs"]
        inputs["tensors"] = [t for t in inputs["tensors"] if t[0] != "weight"]
        if digest.endswith("recomputed"):
            recompute_input_digest(tree)

    fixture = reseal(store / RELEASE / RAND_NAME, edit)
    found = Findings()
    found.error(run(["check", "--impl", "--against", fixture]))
    found.error(run(["verify", fixture]))
    found.check()


# ------------------------------------------------------------------ 10. an op the generator never recorded


def test_verify_of_an_extra_op_copied_from_another(base, tmp_path):
    store = clone(base.small, tmp_path / "store")

    def edit(tree: dict[str, Any]) -> None:
        for path in [p for p in tree if p == "ops/exp" or p.startswith("ops/exp/")]:
            tree["ops/exp2" + path[len("ops/exp") :]] = json.loads(json.dumps(tree[path]))
        tree["ops"]["groups"].append("exp2")
        tree["/"]["attrs"]["ops"] = json_attr([*json.loads(tree["/"]["attrs"]["ops"]), "exp2"])
        recompute_input_digest(tree)

    fixture = reseal(store / RELEASE / f"{GEN_ID}.h5", edit)
    with FixtureReader(fixture) as reader:
        assert "exp2" in reader.groups("ops")
    found = Findings()
    found.error(run(["verify", fixture]))
    found.check()


# ------------------------------------------------------------------ 11. FIFOs


def test_fifos_never_hang(base, tmp_path):
    fifo = tmp_path / "fifo.h5"
    os.mkfifo(fifo)
    target = clone(base.small, tmp_path / "target", fixtures=False)
    in_store = clone(base.small, tmp_path / "in-store")
    os.mkfifo(in_store / RELEASE / "x.h5")
    in_pool = clone(base.small, tmp_path / "in-pool")
    os.mkfifo(in_pool / POOL_DIR / "0123456789abcdef.hdf5")
    fixture = base.small_fixture
    commands = [
        ["verify", fifo],
        ["info", fifo],
        ["diff", fifo, fixture],
        ["pack", fifo, "--out", tmp_path / "out.h5"],
        ["import", fifo, "--root", target],
        ["check", "--impl", "--against", fifo],
        ["verify", in_store],
        ["list", in_store],
        ["gc", in_store],
        ["verify", in_pool],
        ["list", in_pool],
        ["gc", in_pool],
        ["info", in_pool / RELEASE / f"{GEN_ID}.h5"],
    ]
    found = Findings()
    for res in run_forked(commands):
        found.error(res)
    found.check()


# ------------------------------------------------------------------ 12. a draw too large to make


def test_a_random_case_fixture_of_a_billion_cases_per_group(base, tmp_path):
    store = clone(base.rand, tmp_path / "store")

    def edit(tree: dict[str, Any]) -> None:
        provenance = json.loads(tree["/"]["attrs"]["provenance"])
        provenance["random_cases"]["per_group"] = 10**9
        tree["/"]["attrs"]["provenance"] = json_attr(provenance)

    fixture = reseal(store / RELEASE / RAND_NAME, edit)
    found = Findings()
    found.error(run(["verify", fixture]))
    found.check()


# ------------------------------------------------------------------ 13. names gc cannot see


ODD_NAMES = ["n1.fixture", "N1.H5", ".n1.h5.abcd1234.tmp"]


@pytest.mark.parametrize("name", [*ODD_NAMES, "r1.fixture (random-case)"])
def test_import_stores_a_fixture_under_its_canonical_name(base, tmp_path, name):
    random_case = name.endswith("(random-case)")
    name = name.split(" ")[0]
    source, store_of, canonical = (
        (base.rand_packed, base.rand, RAND_NAME) if random_case else (base.small_packed, base.small, f"{GEN_ID}.h5")
    )
    packed = tmp_path / "in" / name
    packed.parent.mkdir()
    shutil.copyfile(source, packed)
    store = clone(store_of, tmp_path / "store", fixtures=False)  # the pool already holds its tensors
    found = Findings()
    res = found.success(run(["import", packed, "--root", store]))
    want = store / RELEASE / canonical
    found.that(want.is_file(), f"import did not write {want.relative_to(store)}; the store holds "
               f"{sorted(str(p.relative_to(store)) for p in store.rglob('*') if p.is_file())}")  # fmt: skip
    found.that(str(want) in res.out, f"import printed {res.out.strip()!r}, not {want}")
    found.success(run(["gc", store, "--delete"]))
    found.success(run(["verify", store]))
    found.that(sorted(os.listdir(store / POOL_DIR)) == sorted(os.listdir(store_of / POOL_DIR)), "gc deleted pool files")
    found.check()


@pytest.mark.parametrize("name", ODD_NAMES)
def test_gc_refuses_a_store_fixture_under_a_name_it_does_not_read(base, tmp_path, name):
    store = clone(base.rand, tmp_path / "store")  # one fixture under its proper name
    for path in (base.small / POOL_DIR).iterdir():
        _link_or_copy(path, store / POOL_DIR / path.name)
    shutil.copyfile(base.small_fixture, store / RELEASE / name)  # its tensors only this file names
    before = snapshot(store / POOL_DIR)
    found = Findings()
    found.error(run(["gc", store, "--delete"]))
    found.that(snapshot(store / POOL_DIR) == before, "gc changed the pool")
    found.check()


# ------------------------------------------------------------------ 14. a pool that belongs to another store


@pytest.mark.parametrize("kind", ["pool/ a symlink", "pool files symlinks"])
def test_gc_through_symlinks_into_another_store(base, tmp_path, kind):
    other = clone(base.small, tmp_path / "other")
    clone(base.rand, other)  # two fixtures, two pool files
    store = tmp_path / "store"
    (store / RELEASE).mkdir(parents=True)
    shutil.copyfile(base.rand_fixture, store / RELEASE / RAND_NAME)  # names the random pool file only
    if kind == "pool/ a symlink":
        os.symlink(other / POOL_DIR, store / POOL_DIR)
    else:
        (store / POOL_DIR).mkdir()
        for path in (other / POOL_DIR).iterdir():
            os.symlink(path, store / POOL_DIR / path.name)
    assert is_clean_success(run(["verify", other]))
    before = snapshot(other)
    found = Findings()
    found.error(run(["gc", store, "--delete"]))
    found.that(snapshot(other) == before, "gc changed the other store")
    found.success(run(["verify", other]), "the other store")
    found.check()


# ------------------------------------------------------------------ 15. a pool file under another name


def test_a_pool_file_whose_name_does_not_match_its_keys(base, tmp_path):
    store = clone(base.small, tmp_path / "store")
    (path,) = (store / POOL_DIR).iterdir()
    with FixtureReader(store / RELEASE / f"{GEN_ID}.h5") as reader:
        assert path.name == pool_file_name(reader.keys())
    path.rename(path.with_name("0123456789abcdef.hdf5"))
    before = snapshot(store)
    found = Findings()
    found.error(run(["gc", store, "--delete"]))
    found.that(snapshot(store) == before, "gc changed the store")
    found.error(run(["verify", store]))
    found.check()


# ------------------------------------------------------------------ 16. silent passes


def _delete_op_and_listing(tree: dict[str, Any]) -> None:
    delete_subtree(tree, "ops/gelu")
    tree["/"]["attrs"]["ops"] = json_attr([op for op in json.loads(tree["/"]["attrs"]["ops"]) if op != "gelu"])
    recompute_input_digest(tree)


def _delete_case(op: str) -> Callable[[dict[str, Any]], None]:
    def edit(tree: dict[str, Any]) -> None:
        delete_subtree(tree, first_case(tree, op))
        recompute_input_digest(tree)

    return edit


def _delete_tensor(op: str, part: str) -> Callable[[dict[str, Any]], None]:
    def edit(tree: dict[str, Any]) -> None:
        node = tree[f"{first_case(tree, op)}/{part}"]
        del node["tensors"][0]
        recompute_input_digest(tree)

    return edit


SILENT = {
    "full fixture: op deleted with its listing": ("full", _delete_op_and_listing),
    "case deleted": ("small", _delete_case("exp")),
    "input deleted": ("small", _delete_tensor("exp", "inputs")),
    "output deleted": ("small", _delete_tensor("exp", "outputs")),
    "random-case: case deleted": ("rand", _delete_case("matmul")),
    "random-case: input deleted": ("rand", _delete_tensor("matmul", "inputs")),
    "random-case: output deleted": ("rand", _delete_tensor("matmul", "outputs")),
}


@pytest.mark.parametrize("variant", list(SILENT))
def test_resealed_deletions_never_pass(base, tmp_path, variant):
    which, edit = SILENT[variant]
    source_store = getattr(base, which)
    original = getattr(base, f"{which}_fixture")
    store = clone(source_store, tmp_path / "store")
    damaged = reseal(store / RELEASE / original.name, edit)
    packed = pack_fast(original, tmp_path / "packed" / original.name, edit)
    if which == "full":
        with FixtureReader(damaged) as reader:
            provenance = reader.attrs("/")["provenance"]
        assert "gelu" in provenance["ops_recorded"] and len(provenance["ops_recorded"]) == 26
    target = clone(source_store, tmp_path / "target", fixtures=False)
    found = Findings()
    found.error(run(["verify", damaged]))
    found.error(run(["diff", original, damaged]))
    found.error(run(["check", "--impl", "--against", damaged]))
    found.error(run(["import", packed, "--root", target]))
    found.check()


# ------------------------------------------------------------------ 17. duplicate keys


def _object_text(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in pairs) + "}"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize("kind", ["a node twice", "an attribute twice"])
def test_a_tree_with_duplicate_keys(base, tmp_path, kind):
    store = clone(base.small, tmp_path / "store")
    fixture = store / RELEASE / f"{GEN_ID}.h5"
    tree = tree_of(fixture)
    pairs = [(path, _dumps(node)) for path, node in tree.items()]
    if kind == "a node twice":
        fake = json.loads(_dumps(tree["ops/exp"]))
        fake["attrs"]["call"] = "torch.exp(x) * 2"
        pairs.insert(1, ("ops/exp", _dumps(fake)))  # the first of two; Python's json keeps the last
    else:
        root = tree["/"]
        attrs = [("platform_id", _dumps("linux-x86_64-avx512-mklgeneric-t2"))]
        attrs += [(k, _dumps(v)) for k, v in root["attrs"].items()]
        node = _object_text([("attrs", _object_text(attrs)), ("tensors", _dumps(root["tensors"])),
                             ("groups", _dumps(root["groups"]))])  # fmt: skip
        pairs[0] = ("/", node)
    text = _object_text(pairs)
    assert json.loads(text) == tree and text != _dumps(tree)
    write_tree_text(fixture, text)  # the manifest over what Python's json reads is the one already there
    with h5py.File(fixture, "r") as f:
        assert f.attrs["manifest"] == loose_manifest(json.loads(text))
    found = Findings()
    found.error(run(["verify", fixture]))
    found.error(run(["info", fixture]))
    found.check()


# ------------------------------------------------------------------ 18. absolute names, extra root groups


def _root_group(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(tree: dict[str, Any]) -> None:
        tree[name] = {"attrs": {}, "tensors": [], "groups": []}
        tree["/"]["groups"].append(name)

    return edit


@pytest.mark.parametrize("name", ["/etc", "/ops", "extra"])
def test_nodes_with_absolute_names_and_extra_root_groups(base, tmp_path, name):
    store = clone(base.small, tmp_path / "store")
    fixture = reseal(store / RELEASE / f"{GEN_ID}.h5", _root_group(name))
    assert name in tree_of(fixture)["/"]["groups"] and name in tree_of(fixture)
    found = Findings()
    found.error(run(["verify", fixture]))
    found.check()


# ------------------------------------------------------------------ 19. an unreferenced tensor that lies


def test_a_packed_file_with_an_unreferenced_tensor_that_lies(base, tmp_path):
    packed = tmp_path / "in" / f"{GEN_ID}.h5"
    packed.parent.mkdir()
    shutil.copyfile(base.small_packed, packed)
    with h5py.File(packed, "r") as f:
        base_manifest = f.attrs["manifest"]
    with h5py.File(packed, "r+") as f:
        key = hashlib.sha256(b"not these bytes").hexdigest() + "_float32_3"
        f["tensors"].create_dataset(key, data=np.arange(3, dtype="<f4"))
    with h5py.File(packed, "r") as f:  # the manifest covers the tree, which does not name it
        assert key in f["tensors"] and f.attrs["manifest"] == base_manifest
    store = clone(base.rand, tmp_path / "store")
    before = snapshot(store)
    found = Findings()
    found.error(run(["verify", packed]))
    found.error(run(["import", packed, "--root", store]))
    found.that(snapshot(store) == before, "import changed the store")
    found.check()


# ------------------------------------------------------------------ 20. version 1 files


def _v1_records(base: Base) -> tuple[dict[str, Any], list[Any]]:
    fx = read_op_fixture(base.small_fixture)
    return dict(fx.provenance), list(fx.cases.values())


@pytest.mark.parametrize("change", ["call text", "deterministic flag"])
def test_a_changed_version_1_file_is_only_for_migrate(base, tmp_path, change):
    provenance, records = _v1_records(base)
    for rec in records:
        if rec.op == "exp":
            if change == "call text":
                rec.call = rec.call.replace("exp", "expm1")
            else:
                rec.deterministic = not rec.deterministic
    v1 = write_v1(tmp_path / "v1" / f"{GEN_ID}.h5", provenance, records)
    with version_1_allowed(), FixtureReader(v1) as reader:
        assert reader.schema_version == 1
    store = clone(base.small, tmp_path / "store", fixtures=False)
    found = Findings()
    found.error(run(["verify", v1]))
    found.error(run(["import", v1, "--root", store]))
    found.error(run(["diff", base.small_fixture, v1]))
    found.error(run(["check", "--impl", "--against", v1]))
    found.check()


def test_migrate_of_an_unchanged_version_1_file(base, tmp_path):
    provenance, records = _v1_records(base)
    v1 = write_v1(tmp_path / "v1" / f"{GEN_ID}.h5", provenance, records)
    found = Findings()
    found.success(run(["migrate", v1]))
    found.success(run(["verify", v1]), "the migrated file")
    found.check()


# ------------------------------------------------------------------ 21. platform ids


def _platform(platform_id: str | None = None, threads: int | None = None) -> Callable[[dict[str, Any]], None]:
    def edit(tree: dict[str, Any]) -> None:
        provenance = json.loads(tree["/"]["attrs"]["provenance"])
        if platform_id is not None:
            provenance["platform_id"] = platform_id
            tree["/"]["attrs"]["platform_id"] = platform_id
        if threads is not None:
            assert isinstance(provenance["threads"], int)
            provenance["threads"] = threads
        tree["/"]["attrs"]["provenance"] = json_attr(provenance)

    return edit


@pytest.mark.parametrize(
    "edit", [_platform(platform_id="not-a-platform"), _platform(threads=1)],
    ids=["id that parses as nothing", "id of 2 threads, provenance of 1"],
)  # fmt: skip
def test_platform_ids_that_do_not_hold(base, tmp_path, edit):
    store = clone(base.small, tmp_path / "store")
    fixture = reseal(store / RELEASE / f"{GEN_ID}.h5", edit)
    found = Findings()
    found.error(run(["verify", fixture]))
    found.check()


# ------------------------------------------------------------------ 22. consistent edits are accepted


def _swap_output(tree: dict[str, Any]) -> None:
    node = tree[first_case(tree, "exp") + "/outputs"]
    (_, key_a), (_, key_b) = node["tensors"][:2]
    assert key_a != key_b and key_a.split("_", 1)[1] == key_b.split("_", 1)[1]  # same dtype and shape
    node["tensors"][0][1] = key_b


def _created(tree: dict[str, Any]) -> None:
    provenance = json.loads(tree["/"]["attrs"]["provenance"])
    provenance["created"] = "2027-01-01T00:00:00+00:00"
    tree["/"]["attrs"]["provenance"] = json_attr(provenance)


@pytest.mark.parametrize("edit", [_swap_output, _created], ids=["output swapped for another", "provenance created"])
def test_consistent_reseals_are_accepted(base, tmp_path, edit):
    store = clone(base.small, tmp_path / "store")
    fixture = reseal(store / RELEASE / f"{GEN_ID}.h5", edit)
    found = Findings()
    found.success(run(["verify", fixture]))
    found.success(run(["verify", store]))
    found.check()
