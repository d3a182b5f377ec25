"""The dispatcher hook of ``parity trace`` (``csrc/hook.cpp``), built against the installed torch.

A C++ extension must be compiled against the very torch it runs in, so it is not built with the
package: the first trace compiles it (about 20 s) into the user's cache (``$PARITY_CACHE_DIR/hook``
or ``~/.cache/parity-harness/hook``), under a name that holds the torch release, a tag of the torch
install and Python, and a digest of the sources and flags; later traces load it, and a build for
new sources removes that install's older ones. Where it cannot be built or installed, ``hook()``
says why and the tracer records through Python's dispatch mode instead (slower, and where a mode
changes the paths torch takes, other ops: harness.trace.recorder). ``PARITY_TRACE_HOOK=0`` asks for
the dispatch mode.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

import torch

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "csrc" / "hook.cpp"
SHARED = HERE.parent / "core" / "csrc"  # fingerprint.h, fingerprint_v2.h
# C++20: torch 2.14's headers require it (2.13's take it too)
FLAGS = ["-O2", "-std=c++20", "-fPIC", "-fvisibility=hidden", "-DNDEBUG"]


ASKED_FOR_MODE = "PARITY_TRACE_HOOK=0"  # the reason given where the dispatch mode was asked for


class HookUnavailable(Exception):
    """Why the dispatcher hook cannot be used here (one line)."""


def cache_dir() -> Path:
    return Path(os.environ.get("PARITY_CACHE_DIR") or Path.home() / ".cache" / "parity-harness") / "hook"


def _torch_dirs() -> tuple[Path, list[Path]]:
    root = Path(torch.__file__).resolve().parent
    return root / "lib", [root / "include", root / "include" / "torch" / "csrc" / "api" / "include"]


def _command(src: Path, out: Path) -> list[str]:
    lib, includes = _torch_dirs()
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        raise HookUnavailable("no C++ compiler (c++, g++ or clang++) on PATH")
    abi = int(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True))
    link = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
    cmd = [cxx, *FLAGS, f"-D_GLIBCXX_USE_CXX11_ABI={abi}", *link]
    for inc in (*includes, SHARED, Path(sysconfig.get_paths()["include"])):
        cmd += ["-I", str(inc)]
    cmd += [str(src), "-o", str(out), "-L", str(lib), "-Wl,-rpath," + str(lib)]
    cmd += ["-ltorch_python", "-ltorch", "-ltorch_cpu", "-lc10"]
    return cmd


def _install_tag() -> str:
    """This torch install and Python: builds for it share the tag, whatever their sources."""
    where = hashlib.sha256(f"{Path(torch.__file__).resolve()}\0{sys.version}".encode()).hexdigest()[:8]
    return f"_hook-torch{torch.__version__}-{where}-"


def _target() -> Path:
    """Where the build for this torch, Python and source lives."""
    digest = hashlib.sha256()
    headers = [h.read_bytes() for h in sorted(SHARED.glob("*.h"))]
    for part in (SOURCE.read_bytes(), *headers, " ".join(FLAGS).encode()):
        digest.update(part)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return cache_dir() / f"{_install_tag()}{digest.hexdigest()[:16]}{suffix}"


def build() -> Path:
    """The built extension for this torch (compiled now if not yet, one process at a time)."""
    target = _target()
    if target.exists():
        return target
    try:
        import fcntl
    except ImportError:
        raise HookUnavailable("no fcntl here to build it under a lock") from None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it
            if not target.exists():
                _compile(target)
                for old in target.parent.glob(f"{_install_tag()}*"):  # this install's builds of other sources
                    if old != target:
                        old.unlink(missing_ok=True)
    except OSError as exc:
        raise HookUnavailable(f"cannot build it in {target.parent}: {exc.strerror or exc}") from None
    return target


def _compile(target: Path) -> None:
    print(f"parity trace: building its dispatcher hook for torch {torch.__version__} (once)", file=sys.stderr)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".so.tmp")
    os.close(fd)
    cmd = _command(SOURCE, Path(tmp))
    try:
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except OSError as exc:
            raise HookUnavailable(f"cannot run the compiler {cmd[0]}: {exc.strerror or exc}") from None
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if "error" in ln] or done.stderr.splitlines()
            raise HookUnavailable(f"compiling {SOURCE.name} failed: {(lines or ['?'])[0].strip()}")
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def hook() -> tuple[ModuleType | None, str]:
    """(the installed hook, "") or (None, why it cannot be used); built and loaded once a process."""
    if os.environ.get("PARITY_TRACE_HOOK", "1") == "0":
        return None, ASKED_FOR_MODE
    return _loaded()


@functools.cache
def _loaded() -> tuple[ModuleType | None, str]:
    try:
        return _load(), ""
    except HookUnavailable as exc:
        return None, str(exc)


def _load() -> ModuleType:
    path = build()
    spec = importlib.util.spec_from_file_location("harness.trace._hook", path)
    if spec is None or spec.loader is None:
        raise HookUnavailable(f"cannot load {path}")
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.install()
    except (ImportError, RuntimeError) as exc:
        raise HookUnavailable(f"{path.name}: {str(exc).splitlines()[0]}") from None
    return module
