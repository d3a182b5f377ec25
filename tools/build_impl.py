"""Rebuild the package's C libraries in place (what ``pip install -e .`` does), with the same flags.

python tools/build_impl.py            # every <layer>/csrc/*.c
python tools/build_impl.py reduce     # one library, by its source's name
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "harness" / "core"))
import buildinfo  # noqa: E402


def build(lib: buildinfo.Library) -> Path:
    out = ROOT / "harness" / lib.layer / f"_{lib.name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    tmp = out.with_name(f".{out.name}.tmp")
    cc = sysconfig.get_config_var("CC").split()[0] or "cc"
    shared = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
    includes = [arg for inc in lib.includes for arg in ("-I", str(inc))]
    includes += ["-I", sysconfig.get_paths()["include"]]  # Python.h: harness.core._digest, harness.trace._tracer
    cmd = [cc, *buildinfo.compile_flags(), "-fPIC", *shared, *includes, str(lib.source), "-o", str(tmp), "-lm"]
    subprocess.run(cmd, check=True)
    tmp.replace(out)
    return out


if __name__ == "__main__":
    wanted = set(sys.argv[1:])
    known = buildinfo.libraries()
    unknown = wanted - {lib.name for lib in known}
    if unknown:
        sys.exit(f"build_impl: error: no such library: {', '.join(sorted(unknown))}")
    for lib in known:
        if not wanted or lib.name in wanted:
            print(build(lib))
