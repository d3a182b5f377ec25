"""Builds the package's C libraries (harness/{core,impl,trace}/csrc/*.c) as shared libraries loaded with ctypes."""

import runpy
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
info = runpy.run_path(str(HERE / "harness" / "core" / "buildinfo.py"))
flags = info["compile_flags"]()
headers = [str(p.relative_to(HERE.resolve())) for p in info["headers"]()]
setup(
    ext_modules=[
        Extension(
            lib.module,
            sources=[str(lib.source.relative_to(HERE.resolve()))],
            include_dirs=[str(p.relative_to(HERE.resolve())) for p in lib.includes],
            depends=headers,
            extra_compile_args=flags,
            libraries=["m"],
            extra_link_args=["-pthread"],
        )
        for lib in info["libraries"]()
    ]
)
