"""``parity trace``: the first op where two runs of a PyTorch program part, and a proven cause.

- ``recorder``: the recorder (through a dispatcher hook below autograd, ``csrc/hook.cpp``, or a
  TorchDispatchMode where the hook cannot be built) and ``tracing()``, the context manager:
  ``with tracing("run.h5"): train()`` (needs torch); ``native``: building and loading the hook
- ``run``: the process ``parity trace`` starts around a program
- the trace file format is ``harness.formats.trace``; ``diff``: alignment, root cause and spread;
  ``cause``: the platform knob and its proof by the reference implementation; ``impl_ops``: ATen
  ops replayed through the impl; ``report``: the four report formats (all torch-free)
- ``pytest_plugin``: the ``parity_golden`` fixture; ``demo``: small models to trace
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("tracing", "recording"):
        from harness.trace import recorder

        return getattr(recorder, name)
    raise AttributeError(name)
