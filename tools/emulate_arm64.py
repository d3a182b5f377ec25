"""Record Linux arm64 fixtures under QEMU: `python tools/emulate_arm64.py [setup|record|run] ...`.

    setup                 make the arm64 Python and torch in the cache (idempotent)
    record [--cores ...] [--threads 1,2] [--nanogpt CONFIG] [--ops ...] [--out DIR] [--force]
                          record each emulated core (default: all three) into DIR
                          (default harness/fixtures), setting up first where needed;
                          with --random N [--seed S]: N seeded random cases per op group
                          (harness/workloads/random_cases.py) into <id>.random-<S>.h5
    run --cores CORE [--threads N] -- SCRIPT [ARGS]
                          run an arm64 Python script on one emulated core with that
                          configuration pinned (threads, capability), e.g. to measure a kernel

Cores: neoverse-n1 (like Graviton2, Ampere Altra; ATen capability DEFAULT), neoverse-v1
(like Graviton3; SVE256), neoverse-v2 (like Grace, Graviton4; SVE128). See harness/platform/emulation.py.
"""

from __future__ import annotations

import os
import sys
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
from harness.platform.emulation import CORES, Emulator, record_command, setup  # noqa: E402
from harness.store.paths import DEFAULT_FIXTURES, fixture_path  # noqa: E402


def thread_counts(text: str) -> list[int]:
    """'1,2' -> [1, 2]; anything but positive integers is an input error."""
    parts = [t.strip() for t in text.split(",") if t.strip()]
    if not parts or not all(t.isdigit() and int(t) > 0 for t in parts):
        raise ParityError(f"--threads takes positive integers separated by commas, not '{text}'")
    return [int(t) for t in parts]


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="tools/emulate_arm64.py", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("setup", "record", "run"))
    parser.add_argument("--cores", default=",".join(CORES), help=f"comma-separated, of {', '.join(CORES)}")
    parser.add_argument("--threads", default="2")
    parser.add_argument("--nanogpt", default="", help="record this nanoGPT config instead of the ops")
    parser.add_argument("--full-steps", default="", help="nanoGPT steps kept in full (default: the config's)")
    parser.add_argument("--ops", default="")
    parser.add_argument("--random", type=positive_int, default=0, help="N seeded random cases per op group instead")
    parser.add_argument("--seed", type=int, default=1, help="the random cases' seed (file <id>.random-<seed>.h5)")
    parser.add_argument("--out", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--torch", default=os.environ.get("PARITY_TORCH", "2.13.0"))
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("PARITY_ARM64_CACHE", Path.home() / ".cache/parity-harness/arm64")),
    )
    argv = sys.argv[1:] if argv is None else argv
    script = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)

    def body() -> int:
        import subprocess

        counts = thread_counts(args.threads)  # input errors before the (long) setup
        emu = Emulator(args.cache, args.torch)
        setup(emu)
        if args.action == "setup":
            return 0
        cores = [c for c in args.cores.split(",") if c]
        unknown = [c for c in cores if c not in CORES]
        if unknown:
            raise ParityError(f"unknown core(s) {', '.join(unknown)} (known: {', '.join(CORES)})")
        if args.action == "run":
            if len(cores) != 1 or len(counts) != 1 or not script:
                raise ParityError(
                    "run takes one core, one thread count and a script: run --cores C --threads N -- S.py"
                )
            config = PlatformConfig("linux", "arm64", cores[0], counts[0], blas="nvpl")
            root = emu.core_root(CORES[cores[0]], max(counts[0], 2))
            env = emu.env(config, CORES[cores[0]], REPO, dict(os.environ))
            return subprocess.run(emu.command(script, root), env=env, check=False).returncode
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
                rc = subprocess.run(cmd, env=emu.env(config, core, REPO, dict(os.environ)), check=False).returncode
                if rc != 0:
                    return rc
        return 0

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
