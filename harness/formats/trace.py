"""Trace files: the op stream of one run of a PyTorch program, as data. Torch-free.

A trace is an HDF5 file of the fixture store (``harness.store``: atomic writes, SHA-256 of every
array, no pickle) of kind ``trace``::

    /                       attrs: format, schema_version, kind = "trace", trace_version = 3,
                                   digest (the tensors' digest algorithm, harness.core.digest: mix256-v2;
                                   mix256-v1 before it; version 1 traces, without it, hold SHA-256
                                   digests),
                                   provenance (JSON: as a fixture's, harness.platform.provenance),
                                   command (JSON: argv), cwd, env (JSON: the variables that pin
                                   the configuration), captured (JSON: op indices held in full),
                                   tracer (what recorded the ops: "dispatcher-hook", or
                                   "dispatch-mode", as for every trace written before the hook),
                                   tracer_note (why not the hook, where it was not used),
                                   thread_counts (JSON: [first op, intra-op threads] per stretch of
                                   ops run at one count, from op 0; traces without it ran at the
                                   provenance's), thread_note (a change the recorder could not place)
    /trace/strings          UTF-8 JSON list of every name below (ops, modules, call sites, ...)
    /trace/op, module, site, phase, args, step, in_start, in_count, out_count   one row per op
    /trace/t_name, t_dtype, t_shape       one row per tensor an op read or wrote (ids into strings)
    /trace/t_digest         (rows, 32) uint8: the digest of the tensor's raw C-order bytes
    /trace/t_fingerprinted  bool: false for an output allocated but not yet written (``empty``
                            and its kin), such a tensor as an input before anything wrote it,
                            the tensors of view ops (their bits are those of the viewed
                            tensor, fingerprinted where an op computes with them), and the
                            input of an op of HOST_DATA_OPS (its output holds the same bits)
    /trace/t_sum            float64 sum of the elements (NaN where not fingerprinted or not numeric;
                            float32 in harness.core.digest's order, others NumPy's)
    /trace/t_src            int32: for an input, the index of the op that last wrote the storage it
                            views (through views and in-place writes), -1 where no traced op did (a
                            tensor made before the trace began, a generator's state); -1 for outputs.
                            Version 3 and later: older traces do not know their inputs' sources
    /captured/<index>/inputs/<name>, outputs/<name>   full tensors of the ops asked for;
                            attrs: args (JSON: the call's arguments, tensors by input name with
                            their shape, stride, dtype (a list of tensors: "tensors" and
                            "dtypes"; traces recorded before 2026-12 lack dtypes)
                            and, where not 0, "align": the bytes their first
                            element lay past a 64-byte boundary; a number JSON cannot hold, inf,
                            -inf or nan, as {"float": "-inf"})

Inputs of an op are read before it runs (an in-place op's ``self`` as it was), outputs after.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from harness.core.digest import ALGORITHMS
from harness.core.digest import LEGACY as LEGACY_DIGEST
from harness.core.digest import TRACE_ALGORITHM as DIGEST
from harness.core.errors import FixtureError
from harness.store import FixtureReader, FixtureWriter

KIND = "trace"
HOOK = "dispatcher-hook"  # recorded through harness/trace/csrc/hook.cpp
MODE = "dispatch-mode"  # through a TorchDispatchMode
TRACE_VERSION = 3
_READ_VERSIONS = (1, 2, 3)  # 1: SHA-256 digests, no digest attribute; 3: t_src
SOURCES_SINCE = 3  # the first version that records which op wrote each input
# ops that hand torch data made outside its ops: ``torch.tensor``, ``torch.as_tensor`` and
# ``torch.from_numpy`` of NumPy or Python data end in ATen's ``lift_fresh``. Their output is
# fingerprinted and they are its writer, so a difference in such data is a root at the call site
# that made the tensor (traces recorded before this took ``lift_fresh`` for a view: its tensors
# were "made before the trace")
HOST_DATA_OPS = frozenset(("lift_fresh",))
# ops that install a storage handed to them as such, not a tensor of the trace: how a tensor made in
# another process enters the traced one (a DataLoader worker's batch, rebuilt from shared memory by
# torch.multiprocessing's ``set_`` onto an empty tensor). No traced op wrote that storage: the op is
# the writer of what it installs, so a batch that differs is a root at the call site that received it.
# ``set_`` of another tensor (``source_Tensor``), a storage swap inside the program, is not one of these
STORAGE_INSTALLS = frozenset(("aten.set_.source_Storage", "aten.set_.source_Storage_storage_offset"))
PHASES = ("forward", "backward", "optimizer", "other")
_OP_COLUMNS = ("op", "module", "site", "phase", "args", "step", "in_start", "in_count", "out_count")
_T_COLUMNS = ("t_name", "t_dtype", "t_shape")


class TensorRef(NamedTuple):
    """One tensor an op read or wrote, by digest."""

    name: str
    digest: bytes  # 32 bytes; all zero when not fingerprinted
    dtype: str
    shape: tuple[int, ...]
    sum: float  # the float64 sum (NaN where not numeric); a generator's state: its initial seed
    fingerprinted: bool = True
    src: int = -1  # an input: the op that last wrote the storage it views (-1: none traced, or unknown)


@dataclass
class OpRecord:
    index: int
    op: str  # aten op with overload, e.g. aten.native_layer_norm_backward.default
    module: str  # the user's module path (or the parameter an optimizer/accumulate op touches)
    site: str  # file:line of the user's call
    phase: str  # forward | backward | optimizer | other
    step: int  # training step: optimizer steps completed before this op, plus one
    args: str  # the non-tensor arguments, as text
    inputs: list[TensorRef] = field(default_factory=list)
    outputs: list[TensorRef] = field(default_factory=list)

    @property
    def align_key(self) -> tuple[str, tuple[tuple[int, ...], ...]]:
        """What two runs' ops must share to be aligned: the op and the input shapes."""
        return (self.op, tuple(t.shape for t in self.inputs))


@dataclass
class Captured:
    """An op's tensors in full, and its arguments (tensors named by input)."""

    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]
    args: list[dict[str, Any]]


@dataclass
class Trace:
    path: Path
    attrs: dict[str, Any]
    ops: list[OpRecord]
    captured: dict[int, Captured] = field(default_factory=dict)

    @property
    def provenance(self) -> dict[str, Any]:
        return dict(self.attrs.get("provenance", {}))

    @property
    def digest_algorithm(self) -> str:
        """How this trace's tensors were digested (harness.core.digest)."""
        return str(self.attrs.get("digest", LEGACY_DIGEST))

    @property
    def recorder(self) -> str:
        """What recorded the ops (HOOK or MODE); traces written before the hook were the mode's."""
        return str(self.attrs.get("tracer", MODE))

    @property
    def has_sources(self) -> bool:
        """Whether the trace records which op wrote each input (version 3 and later)."""
        return int(self.attrs.get("trace_version", 1)) >= SOURCES_SINCE

    @property
    def thread_counts(self) -> list[tuple[int, int]]:
        """(first op, intra-op thread count) of each stretch of ops the program ran at one count, in
        order: one stretch where it kept its count (traces from before this record none: the
        provenance's count)."""
        counts = self.attrs.get("thread_counts")
        if not counts:
            return [(0, int(self.provenance.get("threads") or 1))]
        return [(int(first), int(count)) for first, count in counts]

    def threads_at(self, index: int) -> int:
        """The intra-op thread count op ``index`` ran at."""
        return next(count for first, count in reversed(self.thread_counts) if first <= index)

    @property
    def label(self) -> str:
        prov = self.provenance
        return f"{self.path} ({prov.get('platform_id', '?')}, torch {prov.get('torch_version', '?')})"


class _Strings:
    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.ids.get(text)
        if found is None:
            found = self.ids[text] = len(self.ids)
        return found


def write_trace(
    path: str | Path,
    attrs: dict[str, Any],
    ops: list[OpRecord],
    captured: dict[int, Captured],
    *,
    force: bool = True,
) -> int:
    """Write a trace atomically; returns its size in bytes."""
    sid = _Strings()
    op_cols: dict[str, list[int]] = {c: [] for c in _OP_COLUMNS}
    t_cols: dict[str, list[int]] = {c: [] for c in _T_COLUMNS}
    digests: list[bytes] = []
    fingerprinted: list[bool] = []
    sums: list[float] = []
    sources: list[int] = []
    for rec in ops:
        row = (
            sid(rec.op), sid(rec.module), sid(rec.site), PHASES.index(rec.phase), sid(rec.args), rec.step,
            len(digests), len(rec.inputs), len(rec.outputs),
        )  # fmt: skip
        for col, value in zip(_OP_COLUMNS, row, strict=True):
            op_cols[col].append(value)
        for t in (*rec.inputs, *rec.outputs):
            t_cols["t_name"].append(sid(t.name))
            t_cols["t_dtype"].append(sid(t.dtype))
            t_cols["t_shape"].append(sid(json.dumps(list(t.shape))))
            digests.append(t.digest)
            fingerprinted.append(t.fingerprinted)
            sums.append(t.sum)
        sources += [t.src for t in rec.inputs]
        sources += [-1] * len(rec.outputs)
    with FixtureWriter(path, KIND, force=force, packed=True) as w:
        w.set_attrs("/", {**attrs, "trace_version": TRACE_VERSION, "digest": DIGEST, "captured": sorted(captured)})
        for col, values in {**op_cols, **t_cols}.items():
            w.put("trace", col, np.asarray(values, np.int32))
        w.put("trace", "t_digest", np.frombuffer(b"".join(digests), np.uint8).reshape(len(digests), 32))
        w.put("trace", "t_fingerprinted", np.asarray(fingerprinted, bool))
        w.put("trace", "t_sum", np.asarray(sums, np.float64))
        w.put("trace", "t_src", np.asarray(sources, np.int32))
        w.put("trace", "strings", np.frombuffer(json.dumps(list(sid.ids)).encode(), np.uint8))
        for index, cap in captured.items():
            w.set_attrs(f"captured/{index}", {"args": _tag_floats(cap.args)})
            for kind, tensors in (("inputs", cap.inputs), ("outputs", cap.outputs)):
                for name, array in tensors.items():
                    w.put(f"captured/{index}/{kind}", name, array)
    return Path(path).stat().st_size


def is_trace(path: str | Path) -> bool:
    """Whether ``path`` is a readable trace file (anything else: False, never an error)."""
    try:
        with FixtureReader(path) as reader:
            return reader.kind == KIND
    except FixtureError:
        return False


def read_trace(path: str | Path) -> Trace:
    path = Path(path)
    with FixtureReader(path, kind=KIND) as r:
        attrs = r.attrs("/")
        if attrs.get("trace_version") not in _READ_VERSIONS:
            raise FixtureError(path, f"trace version {attrs.get('trace_version')} is not supported")
        if attrs["trace_version"] > 1 and attrs.get("digest") not in ALGORITHMS:
            raise FixtureError(path, f"its digests are {attrs.get('digest')!r}, which this version cannot check")
        _check_thread_counts(path, attrs.get("thread_counts"))
        strings: list[str] = json.loads(r.tensor("trace/strings").tobytes().decode())
        cols = {c: r.tensor(f"trace/{c}").tolist() for c in (*_OP_COLUMNS, *_T_COLUMNS, "t_fingerprinted", "t_sum")}
        digest = r.tensor("trace/t_digest")
        shapes = {i: tuple(json.loads(strings[i])) for i in set(cols["t_shape"])}
        n_refs = len(cols["t_name"])
        sources = r.tensor("trace/t_src").tolist() if attrs["trace_version"] >= SOURCES_SINCE else [-1] * n_refs
        if len(sources) != n_refs:
            raise FixtureError(path, f"t_src holds {len(sources)} rows for {n_refs} tensors")
        refs = [
            TensorRef(strings[n], digest[i].tobytes(), strings[d], shapes[s], v, bool(wr), src)
            for i, (n, d, s, wr, v, src) in enumerate(
                zip(
                    cols["t_name"],
                    cols["t_dtype"],
                    cols["t_shape"],
                    cols["t_fingerprinted"],
                    cols["t_sum"],
                    sources,
                    strict=True,
                )
            )
        ]
        ops = []
        for i, (op, mod, site, phase, args, step, start, n_in, n_out) in enumerate(
            zip(*(cols[c] for c in _OP_COLUMNS), strict=True)
        ):
            if any(not -1 <= src < i for src in sources[start : start + n_in]):
                raise FixtureError(path, f"op {i} names as an input's source an op that does not precede it")
            ops.append(
                OpRecord(
                    i, strings[op], strings[mod], strings[site], PHASES[phase], step, strings[args],
                    refs[start : start + n_in], refs[start + n_in : start + n_in + n_out],
                )
            )  # fmt: skip
        captured = {}
        for index in attrs.get("captured", []):
            group = f"captured/{index}"
            tensors = {
                kind: {n: r.tensor(f"{group}/{kind}/{n}") for n in r.tensor_names(f"{group}/{kind}")}
                if r.has(f"{group}/{kind}")
                else {}
                for kind in ("inputs", "outputs")
            }
            captured[int(index)] = Captured(
                tensors["inputs"], tensors["outputs"], _untag_floats(r.attrs(group).get("args", []))
            )
    return Trace(path, attrs, ops, captured)


def _tag_floats(value: Any) -> Any:
    """``value`` with each float JSON has no number for (inf, -inf, nan: a ``masked_fill`` with
    -inf, a ``clamp`` bound) as ``{"float": "-inf"}``, so the strict reader reads it back."""
    if isinstance(value, float) and not np.isfinite(value):
        return {"float": repr(value)}
    if isinstance(value, list):
        return [_tag_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _tag_floats(v) for k, v in value.items()}
    return value


def _untag_floats(value: Any) -> Any:
    """The inverse of ``_tag_floats``."""
    if isinstance(value, dict):
        if value.keys() == {"float"} and value["float"] in ("inf", "-inf", "nan"):
            return float(value["float"])
        return {k: _untag_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_untag_floats(v) for v in value]
    return value


def thread_stretches(counts: Sequence[Sequence[int]]) -> str:
    """``thread_counts`` as text: "2 from op 0, 1 from op 57"."""
    return ", ".join(f"{count} from op {first}" for first, count in counts)


def _check_thread_counts(path: Path, counts: Any) -> None:
    """``thread_counts`` as the recorder writes it: [first op, count] pairs from op 0, in order."""
    if counts is None:
        return
    pairs = counts if isinstance(counts, list) else []
    ok = bool(pairs) and all(
        isinstance(p, list) and len(p) == 2 and all(type(v) is int for v in p) and p[1] >= 1 for p in pairs
    )
    firsts = [p[0] for p in pairs] if ok else []
    if not ok or firsts[0] != 0 or any(a >= b for a, b in itertools.pairwise(firsts)):
        shown = str(counts)[:80]
        raise FixtureError(path, f"thread_counts is not a list of [first op, thread count] pairs from op 0: {shown}")
