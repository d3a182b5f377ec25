"""Builds the impl's C kernels (harness/impl/csrc/*.c) as shared libraries loaded with ctypes."""

import runpy
from pathlib import Path

from setuptools import Extension, setup

info = runpy.run_path(str(Path(__file__).parent / "harness" / "impl" / "buildinfo.py"))
flags = info["compile_flags"]()
headers = [str(p.relative_to(Path(__file__).parent)) for p in info["CSRC"].glob("*.h")]
setup(
    ext_modules=[
        Extension(
            f"harness.impl._{name}",
            sources=[f"harness/impl/csrc/{name}.c"],
            depends=headers,
            extra_compile_args=flags,
            libraries=["m"],
            extra_link_args=["-pthread"],
        )
        for name in info["libraries"]()
    ]
)
