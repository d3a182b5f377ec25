"""Rewrite nanoGPT fixtures with another digest algorithm, each proven by a replay of its run
through the reference implementation (harness/replay/redigest.py says how).

    python tools/redigest.py FIXTURE... [--to mix256-v1]

Prints a line per fixture; exit 1 where a replay did not reproduce its fixture (left as it is).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.core.digest import ALGORITHM, ALGORITHMS  # noqa: E402
from harness.core.errors import ArgumentParser, run_reporting_errors  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="tools/redigest.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("fixtures", nargs="+", type=Path)
    parser.add_argument("--to", choices=ALGORITHMS, default=ALGORITHM)
    args = parser.parse_args(argv)

    def body() -> int:
        from harness.replay.redigest import redigest

        status = 0
        for path in args.fixtures:
            result = redigest(path, args.to)
            print(f"{path}: {result.detail}", flush=True)
            status |= int(not result.converted and not result.detail.startswith("already"))
        return status

    return run_reporting_errors(body)


if __name__ == "__main__":
    sys.exit(main())
