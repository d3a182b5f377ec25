"""Record Linux arm64 fixtures under QEMU: `python tools/emulate_arm64.py [setup|record|run|impl-check] ...`.

    setup [--transformers]
                          make the arm64 Python and torch in the cache (idempotent); with
                          --transformers also transformers 5.23.0 and its dependencies (the zoo's
                          families), which every later run has on its path (as do trace and run with it)
    record [--cores ...] [--threads 1,2] [--nanogpt CONFIG] [--ops ...] [--out DIR] [--force]
                          record each emulated core (default: all three) into DIR
                          (default harness/fixtures), setting up first where needed;
                          with --random N [--seed S]: N seeded random cases per op group
                          (harness/workloads/random_cases.py) into <id>.random-<S>.h5
    run --cores CORE [--threads N] -- SCRIPT [ARGS]
                          run an arm64 Python script on one emulated core with that
                          configuration pinned (threads, capability), e.g. to measure a kernel
    trace --cores CORE [--threads N] --out FILE [--capture I,J] -- PROGRAM [ARGS]
                          `parity trace` of a Python program (script.py or -m module, in the
                          working directory) on one emulated core, as on an arm64 Linux host;
                          `parity diff A B --verify-cause` re-runs such a trace's program on the
                          same emulated core
    impl-check [FIXTURES ...] [--cores CORE] [--ops ...] [--nanogpt tiny] [--native] [--out DIR]
                          the impl (no torch) as an arm64 user runs it: its C libraries compiled
                          for aarch64 with the package's flags into a copy of the package
                          (build/arm64-impl), `python -m harness.replay.check` under emulation
                          over FIXTURES (default: every committed op fixture it covers, and with
                          --nanogpt tiny the committed nanoGPT tiny ones); its output goes to
                          DIR/arm64.txt (default build/arm64-impl); with --native the same check
                          runs on this host into DIR/native.txt and the two must agree line by line

Cores: neoverse-n1 (like Graviton2, Ampere Altra; ATen capability DEFAULT), neoverse-v1
(like Graviton3; SVE256), neoverse-v2 (like Grace, Graviton4; SVE128). See harness/platform/emulation.py.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.core.errors import (  # noqa: E402
    ArgumentParser,
    ParityError,
    positive_int,
    run_reporting_errors,
)
from harness.platform.config import PlatformConfig  # noqa: E402
from harness.platform.emulation import (  # noqa: E402
    CORES,
    Emulator,
    arm64_runner,
    build_arm64_package,
    default_cache,
    impl_env,
    record_command,
    setup,
    setup_cross_build,
    setup_impl,
    setup_transformers,
)
from harness.store.paths import DEFAULT_FIXTURES, fixture_path  # noqa: E402


def thread_counts(text: str) -> list[int]:
    """'1,2' -> [1, 2]; anything but positive integers is an input error."""
    parts = [t.strip() for t in text.split(",") if t.strip()]
    if not parts or not all(t.isdigit() and int(t) > 0 for t in parts):
        raise ParityError(f"--threads takes positive integers separated by commas, not '{text}'")
    return [int(t) for t in parts]


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="tools/emulate_arm64.py", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("setup", "record", "run", "trace", "impl-check"))
    parser.add_argument(
        "fixtures", nargs="*", type=Path, help="impl-check: op or nanoGPT fixtures (default: committed)"
    )
    parser.add_argument("--cores", default="", help=f"comma-separated, of {', '.join(CORES)} (default: all; "
                        "impl-check: neoverse-n1)")  # fmt: skip
    parser.add_argument("--threads", default="2")
    parser.add_argument("--nanogpt", default="", help="record this nanoGPT config instead of the ops")
    parser.add_argument("--full-steps", default="", help="nanoGPT steps kept in full (default: the config's)")
    parser.add_argument("--ops", default="")
    parser.add_argument("--random", type=positive_int, default=0, help="N seeded random cases per op group instead")
    parser.add_argument("--seed", type=int, default=1, help="the random cases' seed (file <id>.random-<seed>.h5)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="default harness/fixtures (impl-check: build/arm64-impl); trace: the trace file",
    )
    parser.add_argument("--capture", default="", help="trace: op indices whose tensors are kept in full")
    parser.add_argument("--native", action="store_true", help="impl-check: also on this host, and compare")
    parser.add_argument("--force", action="store_true")
    parser.add_argument(
        "--transformers",
        action="store_true",
        help="setup, run, trace: transformers too (the zoo's families; its own site folder, on the path once made)",
    )
    parser.add_argument("--torch", default=os.environ.get("PARITY_TORCH", "2.13.0"))
    parser.add_argument(
        "--cache",
        type=Path,
        default=default_cache(),
    )
    argv = sys.argv[1:] if argv is None else argv
    script = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_intermixed_args(argv[: argv.index("--")] if "--" in argv else argv)

    def body() -> int:
        import subprocess

        counts = thread_counts(args.threads)  # input errors before the (long) setup
        default_cores = "neoverse-n1" if args.action == "impl-check" else ",".join(CORES)
        cores = [c for c in (args.cores or default_cores).split(",") if c]
        unknown = [c for c in cores if c not in CORES]
        if unknown:
            raise ParityError(f"unknown core(s) {', '.join(unknown)} (known: {', '.join(CORES)})")
        if args.fixtures and args.action != "impl-check":
            raise ParityError(f"{args.action} takes no fixtures (only impl-check does)")
        emu = Emulator(args.cache, args.torch)
        if args.action == "impl-check":
            return impl_check(emu, args, cores)
        if args.action == "trace":
            return trace(emu, args, cores, counts, script)
        setup(emu)
        if args.transformers:
            setup_transformers(emu)
        if args.action == "setup":
            return 0
        args.out = (args.out or DEFAULT_FIXTURES).resolve()
        # the emulated recorder imports the package from an aarch64 build of it (its C libraries, the
        # digest among them, compiled for aarch64), run from there so that the host's copy is not found first
        # (a folder of this run's own: several recordings may run at once)
        setup_cross_build(emu)
        emu.cache.mkdir(parents=True, exist_ok=True)
        own = Path(tempfile.mkdtemp(prefix="package-record-", dir=emu.cache))
        atexit.register(shutil.rmtree, own, ignore_errors=True)
        package = build_arm64_package(emu, REPO, own)
        if args.action == "run":
            if len(cores) != 1 or len(counts) != 1 or not script:
                raise ParityError(
                    "run takes one core, one thread count and a script: run --cores C --threads N -- S.py"
                )
            config = PlatformConfig("linux", "arm64", cores[0], counts[0], blas="nvpl")
            root = emu.core_root(CORES[cores[0]], max(counts[0], 2))
            env = emu.env(config, CORES[cores[0]], package, dict(os.environ))
            first = str(Path(script[0]).resolve()) if Path(script[0]).is_file() else script[0]
            command = emu.command([first, *script[1:]], root)
            return subprocess.run(command, env=env, cwd=package, check=False).returncode
        for name in cores:
            core = CORES[name]
            for threads in counts:
                # the aarch64 wheel's BLAS (BLAS_INFO=nvpl); the recording process checks it
                config = PlatformConfig("linux", "arm64", name, threads, blas="nvpl")
                out = fixture_path(args.out, args.torch, config, args.nanogpt)
                if args.random:
                    out = out.with_name(f"{config.id}.random-{args.seed}.h5")
                if out.exists() and not args.force:
                    raise ParityError(f"{out}: already exists; pass --force to overwrite it")
                root = emu.core_root(core, max(threads, 2))
                cmd = record_command(
                    emu, config, out, nanogpt=args.nanogpt, ops=args.ops, force=args.force, root=root,
                    random=args.random, seed=args.seed, full_steps=args.full_steps,
                )  # fmt: skip
                print(f"emulate-arm64: recording {out.name} (emulated {name})", file=sys.stderr, flush=True)
                out.parent.mkdir(parents=True, exist_ok=True)
                env = emu.env(config, core, package, dict(os.environ))
                rc = subprocess.run(cmd, env=env, cwd=package, check=False).returncode
                if rc != 0:
                    return rc
        return 0

    return run_reporting_errors(body)


def trace(emu: Emulator, args, cores: list[str], counts: list[int], program: list[str]) -> int:
    """`trace`: `parity trace` of ``program`` on one emulated core, in the working directory."""
    import subprocess

    from harness.trace.run import capture_indices

    if len(cores) != 1 or len(counts) != 1:
        raise ParityError("trace runs on one core at one thread count: trace --cores C --threads N --out F -- S.py")
    if args.out is None:
        raise ParityError("trace needs --out FILE, the trace to write")
    if program[:1] and Path(program[0]).name.startswith("python"):  # `-- python train.py`: the emulator's Python
        program = program[1:]
    if not program:
        raise ParityError("nothing to trace: give the program after --, e.g. trace ... -- train.py (or -- -m module)")
    if program[0] != "-m" and not Path(program[0]).is_file():
        raise ParityError(f"{program[0]}: no such script")
    capture = ",".join(map(str, capture_indices(args.capture)))
    out = args.out.resolve()
    if out.is_dir():
        raise ParityError(f"{args.out}: is a folder; --out names the trace file")
    setup(emu)
    if args.transformers:
        setup_transformers(emu)
    setup_cross_build(emu)
    out.parent.mkdir(parents=True, exist_ok=True)
    run = ["-m", "harness.trace.run", "--out", str(out), *(["--capture", capture] if capture else []), "--"]
    with arm64_runner(REPO, emu.torch_version, CORES[cores[0]], counts[0], dict(os.environ), emu.cache) as (cmd, env):
        print(f"emulate-arm64: tracing on emulated {cores[0]} at {counts[0]} thread(s)", file=sys.stderr, flush=True)
        return subprocess.run(cmd([*run, *program]), env=env, check=False).returncode


def impl_check(emu: Emulator, args, cores: list[str]) -> int:
    """`impl-check`: the replay check under emulation (and with --native on this host), compared."""
    import subprocess
    import time

    import h5py
    import numpy

    if len(cores) != 1:
        raise ParityError("impl-check runs on one emulated core: --cores CORE")
    if args.nanogpt not in ("", "tiny"):
        raise ParityError(
            f"impl-check checks the committed nanoGPT tiny fixtures only: --nanogpt tiny, not '{args.nanogpt}'"
        )
    if args.random or args.force or args.full_steps:
        raise ParityError("impl-check takes no --random, --force or --full-steps")
    for path in args.fixtures:
        if not path.is_file():
            raise ParityError(f"{path}: no such fixture")
    out = (args.out or REPO / "build" / "arm64-impl").resolve()
    check = ["-m", "harness.replay.check", *[o for o in args.ops.split(",") if o]]
    check += [arg for path in args.fixtures for arg in ("--fixture", str(path.resolve()))]
    check += ["--nanogpt"] if args.nanogpt else []
    site = setup_impl(emu, numpy.__version__, h5py.__version__)
    package = build_arm64_package(emu, REPO, out / "package")
    core = CORES[cores[0]]
    arm64_env = impl_env(emu, core, site, package, dict(os.environ))
    runs = [("arm64", emu.command(check, emu.core_root(core, 2)), arm64_env, package)]  # cwd: not the worktree
    if args.native:
        native_env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        runs.append(("native", [sys.executable, *check], {**native_env, "PYTHONPATH": str(REPO)}, REPO))
    texts = {}
    for name, cmd, env, cwd in runs:
        print(f"emulate-arm64: impl-check, {name}: python {' '.join(check)}", file=sys.stderr, flush=True)
        start = time.monotonic()
        result = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - start
        if result.returncode not in (0, 1):  # 1: the check found gaps; anything else: it did not run
            sys.stderr.write(result.stderr)
            raise ParityError(f"impl-check, {name}: the check failed (exit {result.returncode})")
        texts[name] = result.stdout
        path = out / f"{name}.txt"
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(result.stdout, encoding="utf-8")
        tmp.replace(path)
        last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "no output"
        print(f"emulate-arm64: impl-check, {name} ({seconds:.0f} s): {last} -> {path}", file=sys.stderr, flush=True)
    if not args.native:
        return 0 if texts["arm64"].strip() else 1
    arm64, native = texts["arm64"].splitlines(), texts["native"].splitlines()
    differing = [(i, a, n) for i, (a, n) in enumerate(zip(arm64, native, strict=False), 1) if a != n]
    for i, a, n in differing[:20]:
        print(f"line {i}:\n  arm64:  {a}\n  native: {n}")
    if len(arm64) != len(native):
        print(f"{len(arm64)} lines under emulation, {len(native)} natively")
    same = len(arm64) == len(native) and not differing
    print(f"impl-check: {len(arm64) - len(differing)} of {max(len(arm64), len(native))} lines identical under "
          f"emulated {core.name} and on this host" + ("" if same else f"; {len(differing)} differ"))  # fmt: skip
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
