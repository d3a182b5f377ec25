"""Rebuild the impl's C kernels in place (what ``pip install -e .`` does), with the same flags.

python tools/build_impl.py            # every csrc/*.c
python tools/build_impl.py reduce     # one library
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "harness" / "impl"))
import buildinfo  # noqa: E402


def build(name: str) -> Path:
    src = buildinfo.CSRC / f"{name}.c"
    out = ROOT / "harness" / "impl" / f"_{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
    tmp = out.with_name(f".{out.name}.tmp")
    cc = sysconfig.get_config_var("CC").split()[0] or "cc"
    shared = ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
    includes = ["-I", str(buildinfo.CSRC), "-I", sysconfig.get_paths()["include"]]  # Python.h: harness.impl._digest
    cmd = [cc, *buildinfo.compile_flags(), "-fPIC", *shared, *includes, str(src), "-o", str(tmp), "-lm"]
    subprocess.run(cmd, check=True)
    tmp.replace(out)
    return out


if __name__ == "__main__":
    for name in sys.argv[1:] or buildinfo.libraries():
        print(build(name))
