"""Recording a trace: every ATen op dispatched below autograd, in order (needs torch).

``with tracing("run.h5"): train()`` records forward, backward and optimizer ops: per op its name,
the user's module path and call site, the non-tensor arguments, and per input (read before the op
runs) and output (after) the digest of its raw bytes (harness.core.digest), shape, dtype and float64
sum. Outputs of ``empty`` and its kin are not fingerprinted (their bytes are whatever the
allocator left), nor are such tensors as inputs before anything writes them. Ops named in
``capture`` also keep their tensors in full (such an input too where the op reads it: code that
dispatches no op may have filled it, as ``at::tensor`` does).

Two ways in, one record: the dispatcher hook (``csrc/hook.cpp``, built against the installed
torch by ``harness.trace.native``), a boxed fallback on the key below Python's that keeps its
records in C++ and hands over ``OpRecord``s when ``Tracer.ops`` is read; or, where it cannot be
built or loaded, a ``TorchDispatchMode`` whose ``Tracer.dispatch`` does the same through
``harness/trace/csrc/tracer.c`` (records kept as tuples until read). Both use this module's
``_Schema`` of each op and the call-site walk of ``tracer.c``. A dispatch mode itself changes a
few of the paths torch takes (its tensor-subclass paths), so the two differ there; the hook
records the program as it runs untraced.

Call sites and module paths: a forward op takes the innermost ``nn.Module`` being called and
the first stack frame outside torch and this package; a backward op takes those of the forward
op that made its autograd node (matched by sequence number); the ops of ``AccumulateGrad`` and
of the optimizer name the parameter they touch. Steps count ``Optimizer.step`` calls; the forward
ops' origins are dropped when one starts (a graph kept past it gives its backward ops "?").

View ops (``view``, ``t``, ``transpose``, ``expand``, ``detach``, ...) are recorded with their
shapes only: their bits are those of the tensor they view, fingerprinted where an op computes
with them. A fingerprint is cached by content (pointer, and for a non-contiguous view its shape
and strides) while a tensor holding those bytes lives on with an unchanged version counter
(ATen bumps it on every in-place write); an input an op writes in place without returning it is
read anew all the same (under a dispatch mode torch does not bump the counters the in-place
foreach ops write).

Threads: a program may change its intra-op thread count as it runs (``torch.set_num_threads``);
``Tracer.thread_counts`` holds the count of each stretch of ops, so each op is replayed at the count
it ran at. A change made around ``torch.set_num_threads`` (by a C extension) is not seen where it
happens: the trace then says that its count at the end is not the last one the recorder saw.

Sources: every input names the op that last wrote the storage it views (``TensorRef.src``): an op
that is not a view becomes the writer of the storages it returns and of those it writes in place,
so a view, a slice or a tensor written in place leads back to the op whose bits it holds. Storages
are told apart by their ``StorageImpl``, held weakly: a storage freed and another made at its
address by code that dispatches no op (``torch.tensor``, ``torch.from_numpy``) has no writer.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from harness.core.digest import TRACE_ALGORITHM, digest, fingerprint_at
from harness.core.errors import ParityError
from harness.formats.trace import HOOK, HOST_DATA_OPS, MODE, Captured, OpRecord, TensorRef, write_trace

# ops whose outputs hold uninitialised memory
_ALLOCATORS = frozenset(
    ("empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted", "resize_")
)
# in-place ops that overwrite all of ``self`` without reading it
_OVERWRITE = frozenset(
    ("copy_", "fill_", "zero_", "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_",
     "cauchy_", "log_normal_", "set_")
)  # fmt: skip
# frames that are never the user's call site: torch, this recorder, its runner, contextlib
_SKIP_DIRS = (
    str(Path(torch.__file__).resolve().parent) + os.sep,
    str(Path(__file__).resolve()),
    str(Path(__file__).resolve().with_name("run.py")),
    str(Path(contextlib.__file__).resolve()),
    # a DataLoader worker's batch is received (its storage installed by set_) inside multiprocessing's
    # queue: the call site is the program's line that asked for the batch
    str(Path(multiprocessing.__file__).resolve().parent) + os.sep,
)
_NP_DTYPES = {
    torch.float32: np.float32, torch.float64: np.float64, torch.float16: np.float16, torch.int64: np.int64,
    torch.int32: np.int32, torch.int16: np.int16, torch.int8: np.int8, torch.uint8: np.uint8, torch.bool: np.bool_,
}  # fmt: skip


# every dtype torch has, by the name a trace records ("float32")
_DTYPE_NAMES = {v: str(v).removeprefix("torch.") for v in vars(torch).values() if isinstance(v, torch.dtype)}


@functools.cache
def _tracer() -> Any:
    """harness.trace._tracer (csrc/tracer.c): the fingerprint cache and per-tensor records."""
    from harness.core.clib import module

    return module("trace", "tracer")


def running_platform_id() -> str:
    """This process's platform configuration id (OS, arch, the level of torch's capability, the
    BLAS code path, threads). Of the levels of one capability, the CPU's own: on a Neoverse N1 (ATen's
    DEFAULT, as on any arm64 CPU) ``neoverse-n1``, on another arm64 CPU ``neon``."""
    from harness.platform.config import PlatformConfig, collect_facts, levels_for, supported_levels

    facts = collect_facts()
    capability = torch.backends.cpu.get_cpu_capability()
    levels = [lvl for lvl in levels_for(facts.arch) if lvl.aten_capability == capability]
    own = [lvl for lvl in supported_levels(facts) if lvl in levels]
    isa = (own or levels)[-1 if own else 0].name if levels else capability.lower()
    config = PlatformConfig(facts.os, facts.arch, isa, torch.get_num_threads(), os.environ.get("MKL_CBWR", ""))
    return config.with_blas(_blas_tag()).id


@functools.cache
def _blas_tag() -> str:
    from harness.platform.provenance import running_blas_tag

    return running_blas_tag()


def running_provenance(**extra: Any) -> dict[str, Any]:
    """The provenance fixtures carry (harness.platform.provenance.collect), for this process."""
    from harness.platform.config import collect_facts, parse_platform_id
    from harness.platform.provenance import collect

    return collect(parse_platform_id(running_platform_id()), collect_facts(), **extra)


class _Schema:
    """Per ATen overload: argument names, which are written, whether it allocates, views or draws."""

    __slots__ = ("arg_names", "call", "name", "random", "spec", "swaps", "view", "written")

    def __init__(self, func: Any) -> None:
        schema = func._schema
        base = func.overloadpacket.__name__
        self.name = str(func)
        self.call = func._op  # what ``func(...)`` calls, without OpOverload.__call__'s Python frame
        self.arg_names = [a.name for a in schema.arguments]
        # positions of tensor lists (cat's tensors, index's indices): only these can hold tensors
        tensor_lists = frozenset(
            i for i, a in enumerate(schema.arguments)
            if isinstance(a.type, torch.ListType) and "Tensor" in str(a.type.getElementType())
        )  # fmt: skip
        written = frozenset(a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write)
        # lift_fresh returns its ``self``, data made outside torch's ops: read as the blank it
        # overwrites, its output fingerprinted once (formats.trace.HOST_DATA_OPS)
        overwrites = {"self"} if base in _OVERWRITE or base in HOST_DATA_OPS else set()
        overwrites |= {a.name for a in schema.arguments if a.kwarg_only and a.name in written}  # out=
        view = base not in HOST_DATA_OPS and (
            base in _VIEWS
            or (
                bool(schema.returns)
                and not written
                and all(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)
            )
        )
        self.random = torch.Tag.nondeterministic_seeded in func.tags
        self.swaps = base == "set_"  # self takes another storage: its source is the old one's writer
        self.written = written
        self.view = view
        # what Cache.op (csrc/tracer.c) reads: arg_names, tensor_lists, overwrites, written, scratch,
        # allocates, view
        self.spec = (
            tuple(self.arg_names), tensor_lists, frozenset(overwrites), written,
            _SCRATCH.get(base, frozenset()), base in _ALLOCATORS, view,
        )  # fmt: skip


class Tracer:
    """The op stream of the code run under ``recording()``; see the module docstring."""

    def __init__(self, capture: Sequence[int] = ()) -> None:
        self._records: list[tuple[Any, ...]] = []
        self._ops: list[OpRecord] = []
        self.capture = set(capture)
        self.captured: dict[int, Captured] = {}
        self.step = 1
        self._schemas: dict[Any, _Schema] = {}
        self._digests = _tracer().Cache(_DTYPE_NAMES, torch.float32, torch.strided, _fingerprint, _EMPTY, torch.Tensor)
        self._module_stack: list[str] = []
        self._module_names: dict[int, str] = {}
        self._param_names: dict[int, str] = {}
        self._optimizer: str = ""
        self._node_origin: dict[int, tuple[str, str]] = {}
        self._internal_code: dict[Any, bool] = {}
        self._sites: dict[tuple[Any, int], str] = {}  # (code, instruction offset): "file:line"
        self._site = _tracer().site
        # per storage (its StorageImpl address): the op that last wrote it, and a weak handle on it
        self._writer: dict[int, tuple[int, int]] = {}
        self._writer_sweep_at = 4096
        self._hook: Any = None  # harness.trace._hook while it records
        self.backend = ""  # what recorded the ops: formats.trace's HOOK or MODE
        self.backend_note = ""  # why not the hook
        # [first op, intra-op threads] per stretch of ops run at one count (formats.trace.Trace.thread_counts)
        self.thread_counts: list[list[int]] = [[0, torch.get_num_threads()]]

    # -- hooks ---------------------------------------------------------------------------------

    def _enter_module(self, module: torch.nn.Module, args: Any) -> None:
        name = self._module_names.get(id(module))
        if name is None:
            if not self._module_stack:
                root = type(module).__name__
                for sub, m in module.named_modules(prefix=root):
                    self._module_names.setdefault(id(m), sub)
                for pname, p in module.named_parameters(prefix=root):
                    self._param_names.setdefault(id(p), pname)
                    if self._hook is not None:
                        self._hook.name_param(p, pname)
                name = self._module_names[id(module)]
            else:
                name = f"{self._module_stack[-1]}.{type(module).__name__}"
        self._module_stack.append(name)

    def _exit_module(self, module: torch.nn.Module, args: Any, output: Any) -> None:
        if self._module_stack:
            self._module_stack.pop()

    def _enter_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        self._optimizer = type(optimizer).__name__
        # the backward passes this step's forward ops' nodes serve have run: a long run keeps no
        # origin per forward op of every step (a graph kept past the step names "?" for them)
        self._node_origin.clear()
        if self._hook is not None:
            self._hook.forget_origins()

    def _exit_step(self, optimizer: torch.optim.Optimizer, args: Any, kwargs: Any) -> None:
        self._optimizer = ""
        self.step += 1

    def _threads_from(self, index: int) -> None:
        """The ops from ``index`` on run at this process's thread count now: a new stretch where it
        changed (one begun at ``index`` takes the count; one that ends where it began is dropped)."""
        count = torch.get_num_threads()
        counts = self.thread_counts
        if counts[-1][0] == index:
            counts[-1][1] = count
            if len(counts) > 1 and counts[-2][1] == count:
                counts.pop()
        elif counts[-1][1] != count:
            counts.append([index, count])

    def _watching_threads(self, set_num_threads: Any) -> Any:
        """``torch.set_num_threads`` as the program calls it while it is traced."""

        @functools.wraps(set_num_threads)
        def watched(count: int) -> None:
            set_num_threads(count)
            self._take()
            self._threads_from(max(len(self._ops), len(self._records)))

        return watched

    @contextlib.contextmanager
    def hooks(self) -> Iterator[None]:
        from torch.nn.modules import module as nn_module
        from torch.optim import optimizer as optim

        handles = [
            nn_module.register_module_forward_pre_hook(self._enter_module),
            nn_module.register_module_forward_hook(self._exit_module, always_call=True),
            optim.register_optimizer_step_pre_hook(self._enter_step),
            optim.register_optimizer_step_post_hook(self._exit_step),
        ]
        set_num_threads = torch.set_num_threads
        torch.set_num_threads = self._watching_threads(set_num_threads)
        try:
            yield
        finally:
            torch.set_num_threads = set_num_threads
            for h in handles:
                h.remove()

    # -- per op --------------------------------------------------------------------------------

    def origin(self) -> tuple[str, str, str]:
        """(phase, module path, call site) of the op being dispatched (csrc/hook.cpp's origin() is
        this for the hook)."""
        node = torch._C._current_autograd_node()
        if node is not None:
            if node.name() == "torch::autograd::AccumulateGrad":
                param = self._param_names.get(id(node.variable), "parameter")
                return "backward", f"AccumulateGrad({param})", "?"
            module, site = self._node_origin.get(node._sequence_nr(), ("?", "?"))
            return "backward", module, site
        # the first frame outside torch and this package (from dispatch's caller up): csrc/tracer.c
        site = self._site(2, self._internal_code, _SKIP_DIRS, self._sites)
        if self._optimizer:
            return "optimizer", self._optimizer, site
        module = self._module_stack[-1] if self._module_stack else ""
        # the autograd node of this op, if it made one, has the last sequence number drawn
        self._node_origin.setdefault(torch._C._autograd._get_sequence_nr() - 1, (module, site))
        return ("forward" if module else "other"), module, site

    def _schema_of(self, func: Any) -> _Schema:
        schema = self._schemas.get(func)
        if schema is None:
            schema = self._schemas[func] = _Schema(func)
        return schema

    def dispatch(self, func: Any, args: tuple, kwargs: dict) -> Any:
        schema = self._schema_of(func)
        phase, module, site = self.origin()
        index = len(self._records)
        gen_ref = _generator_ref(args, kwargs) if schema.random else None  # the state it draws from
        swapped = _storage_of(args[0] if args else kwargs["self"]) if schema.swaps else None
        if index in self.capture:

            def before(tensors: tuple, refs_in: tuple) -> None:
                self._capture_inputs(index, schema, args, kwargs, tensors, refs_in)

            result, tensors, plain, refs_in, refs_out, outs = self._digests.op(
                schema.call, args, kwargs, schema.spec, before
            )
            self._capture_outputs(index, outs, refs_out)
        else:
            result, tensors, plain, refs_in, refs_out = self._digests.op(schema.call, args, kwargs, schema.spec)
        sources = self._sources(index, schema, tensors, result, swapped)
        if gen_ref is not None:
            refs_in = (*refs_in, gen_ref)
        if phase == "optimizer":
            param = next((self._param_names[id(t)] for _, t in tensors if id(t) in self._param_names), "")
            module = f"{module}({param})" if param else module
        # the arguments as values (lists as tuples, so nothing changes them later): text when read
        self._records.append((schema.name, module, site, phase, self.step, plain, refs_in, refs_out, sources))
        return result

    def _sources(
        self, index: int, schema: _Schema, tensors: tuple, result: Any, swapped: Any = None
    ) -> tuple[int, ...]:
        """The op that last wrote each input's storage (csrc/hook.cpp's writer map, for the mode), as it
        was before the op (``swapped``: the storage ``set_``'s self viewed); then this op, unless a
        view, is the writer of what it returns and writes in place."""
        storages = [_storage_of(t) for _, t in tensors]
        read = storages if swapped is None else [swapped, *storages[1:]]
        sources = tuple(self._writer_of(st) for st in read)
        if not schema.view:
            outs = result if isinstance(result, (list, tuple)) else (result,)
            for t in outs:
                if isinstance(t, torch.Tensor):
                    self._wrote(_storage_of(t), index)
            for (name, _), st in zip(tensors, storages, strict=True):
                if name.partition("[")[0] in schema.written:
                    self._wrote(st, index)
        return sources

    def _writer_of(self, storage: Any) -> int:
        if storage is None:
            return -1
        found = self._writer.get(storage._cdata)
        if found is None:
            return -1
        if torch.UntypedStorage._expired(found[1]):
            torch.UntypedStorage._free_weak_ref(self._writer.pop(storage._cdata)[1])
            return -1
        return found[0]

    def _wrote(self, storage: Any, index: int) -> None:
        if storage is None:
            return
        old = self._writer.get(storage._cdata)
        if old is not None:
            torch.UntypedStorage._free_weak_ref(old[1])
        self._writer[storage._cdata] = (index, storage._weak_ref())
        if len(self._writer) >= self._writer_sweep_at:  # drop the storages that died
            for key, (_, handle) in list(self._writer.items()):
                if torch.UntypedStorage._expired(handle):
                    torch.UntypedStorage._free_weak_ref(self._writer.pop(key)[1])
            self._writer_sweep_at = max(4096, 2 * len(self._writer))

    def _free_writers(self) -> None:
        for _, handle in self._writer.values():
            torch.UntypedStorage._free_weak_ref(handle)
        self._writer.clear()

    def _capture_inputs(
        self, index: int, schema: _Schema, args: tuple, kwargs: dict, tensors: tuple, refs_in: tuple
    ) -> None:
        """Keep op ``index``'s fingerprinted inputs (and a random op's generator state) in full, and those
        it reads that were not fingerprinted: memory from ``empty`` that code dispatching no op filled
        (``at::tensor``'s values, ctc_loss's target lengths for its mean), whose bits the op computes with."""
        clones = {
            r[0]: _to_numpy(t)
            for r, (_, t) in zip(refs_in, tensors, strict=False)
            if r[1] is not None or (r[0].partition("[")[0] not in schema.written and _storage_of(t) is not None)
        }
        if schema.random:
            clones["generator_state"] = _generator_state(args, kwargs).copy()
        call_args = _call_args(schema.arg_names, args, kwargs, {id(t): name for name, t in tensors})
        self.captured[index] = Captured(clones, {}, call_args)

    def _capture_outputs(self, index: int, outs: tuple, refs_out: tuple) -> None:
        self.captured[index].outputs.update(
            {r[0]: _to_numpy(t) for r, (_, t) in zip(refs_out, outs, strict=True) if r[1] is not None}
        )

    # -- through the dispatcher hook (csrc/hook.cpp) -----------------------------------------

    def _hook_schema(self, name: str, overload: str) -> _Schema:
        """The schema of the op the hook names by its schema's name and overload ("aten::add", "Tensor")."""
        namespace, _, op = name.partition("::")
        return self._schema_of(getattr(getattr(getattr(torch.ops, namespace), op), overload or "default"))

    def _hook_spec(self, name: str, overload: str) -> tuple[str, tuple, bool]:
        schema = self._hook_schema(name, overload)
        return schema.name, schema.spec, schema.random

    def _hook_capture_before(
        self, index: int, name: str, overload: str, args: tuple, kwargs: dict, tensors: tuple, refs_in: tuple
    ) -> None:
        self._capture_inputs(index, self._hook_schema(name, overload), args, kwargs, tensors, refs_in)

    @contextlib.contextmanager
    def intercepting(self) -> Iterator[None]:
        """This thread's ops to the recorder: through the dispatcher hook where it can be used (the
        same records, at a fraction of the cost), else through Python's dispatch mode."""
        from harness.trace import native

        hook, reason = native.hook()
        if hook is not None:
            try:
                hook.start(
                    self, self._site, self._internal_code, _SKIP_DIRS, self._sites, self._hook_spec, _fingerprint,
                    _generator_ref_of, _DTYPE_NAMES, _EMPTY, frozenset(self.capture), self._hook_capture_before,
                    self._capture_outputs,
                )  # fmt: skip
            except RuntimeError as exc:  # a trace inside a trace: the inner one takes the mode
                hook, reason = None, str(exc)
        if hook is None:
            self.backend, self.backend_note = MODE, reason
            try:
                with _Mode(self):
                    yield
            finally:
                self._free_writers()
            return
        self.backend, self.backend_note = HOOK, ""
        self._hook = hook
        try:
            yield
        finally:
            self._take()
            self._hook = None
            hook.stop()

    def cached(self) -> int:
        """How many fingerprints the recorder holds for tensors that live (csrc/hook.cpp's or
        csrc/tracer.c's cache)."""
        return self._hook.entries() if self._hook is not None else self._digests.entries()

    def origins_held(self) -> int:
        """How many forward ops' origins the recorder holds for the backward ops to come."""
        return self._hook.origins() if self._hook is not None else len(self._node_origin)

    def _take(self) -> None:
        """The hook's ops so far into ``_ops`` (made without the collector's passes)."""
        if self._hook is not None:
            with _collector_paused():
                self._ops.extend(
                    self._hook.take(OpRecord, TensorRef, _tracer().args_text, _NAMED_TYPES, len(self._ops))
                )

    @property
    def ops(self) -> list[OpRecord]:
        """The ops recorded so far."""
        self._take()
        if len(self._ops) < len(self._records):
            with _collector_paused():
                args_text = _tracer().args_text
                for op, module, site, phase, step, plain, refs_in, refs_out, sources in self._records[len(self._ops) :]:
                    text = args_text(plain, _NAMED_TYPES)
                    ins, outs = _refs(refs_in, sources), _refs(refs_out, ())
                    self._ops.append(OpRecord(len(self._ops), op, module, site, phase, step, text, ins, outs))
        return self._ops


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Many new objects that all live on, and no cycle among them: without the collector's passes over
    them (each full pass walks all of torch's objects too) making them is 7 times faster."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


_NONE = b"\0" * 32
# argument values a trace shows by str(); the rest by repr (numbers, strings, lists) or type name
_NAMED_TYPES = (torch.dtype, torch.device, torch.layout, torch.memory_format)
_EMPTY = (digest(b"", TRACE_ALGORITHM), 0.0)  # the fingerprint of a tensor of no bytes
_NAN = float("nan")
_VIEWS = frozenset(("_unsafe_view", "_reshape_alias"))
# outputs that are a kernel's scratch memory, not a result: not fingerprinted. oneDNN's RNN workspace;
# the CTC loss's log_alpha, made by at::empty and written only within each sequence's input and target
# lengths (LossCTC.cpp), the rest whatever the memory held (its backward reads only what was written)
_SCRATCH = {"mkldnn_rnn_layer": frozenset(("out3",)), "_ctc_loss": frozenset(("out1",))}


# a tensor as recorded: (name, (digest, sum) or None when not fingerprinted, dtype, shape). Plain
# tuples of strings and numbers: the garbage collector stops tracking them, so the records of a
# long run do not make every full collection walk them (nor trigger one).
_Raw = tuple[str, Any, str, tuple[int, ...]]


def _refs(raw: tuple[_Raw, ...], sources: tuple[int, ...]) -> list[TensorRef]:
    """TensorRefs of raw tensors; ``sources`` gives the first ones their writers (a random op's
    generator state, last, has none)."""
    out = []
    for i, (name, value, dtype, shape) in enumerate(raw):
        src = sources[i] if i < len(sources) else -1
        if value is None:
            out.append(TensorRef(name, _NONE, dtype, shape, _NAN, False, src))
        else:
            out.append(TensorRef(name, value[0], dtype, shape, value[1], True, src))
    return out


def _storage_of(t: torch.Tensor) -> Any:
    """The storage a CPU strided tensor views (None: none to name), as csrc/hook.cpp's storage_of."""
    if t.device.type != "cpu" or t.layout is not torch.strided:
        return None
    try:
        return t.untyped_storage()
    except (RuntimeError, NotImplementedError):  # a tensor subclass without storage
        return None


def _generator_of(args: tuple, kwargs: dict) -> torch.Generator:
    """The generator a random op draws from (the default one where it was given none)."""
    given = kwargs.get("generator") or next((a for a in args if isinstance(a, torch.Generator)), None)
    return given or torch.default_generator


def _generator_state(args: tuple, kwargs: dict) -> np.ndarray:
    """The bytes of the generator a random op draws from (``Generator.get_state``)."""
    return _generator_of(args, kwargs).get_state().numpy()


def _generator_ref(args: tuple, kwargs: dict) -> _Raw:
    """The generator's state as an input of a random op: its draws depend on it."""
    return _generator_ref_of(_generator_of(args, kwargs))


def _generator_ref_of(gen: torch.Generator | None) -> _Raw:
    """``_generator_ref`` of the generator an op was given (None: the default one): the hook's. In
    place of a sum (a state has none) it carries the generator's initial seed, so that a diff can
    tell a generator seeded otherwise (``torch.seed()``) from one that drew more or fewer numbers."""
    gen = gen or torch.default_generator
    state = gen.get_state().numpy()
    return ("generator_state", (digest(state, TRACE_ALGORITHM), float(gen.initial_seed())), "uint8", tuple(state.shape))


def _fingerprint(t: torch.Tensor) -> tuple[bytes, float]:
    """The digest of the tensor's raw C-order bytes and its float64 sum (NaN where not numeric):
    harness.core.digest's, one pass in C for float32."""
    if not t.is_contiguous():
        t = t.contiguous()
    return _fingerprint_at(t.data_ptr(), t.nbytes, t.dtype, t)


def _fingerprint_at(ptr: int, nbytes: int, dtype: torch.dtype, t: torch.Tensor) -> tuple[bytes, float]:
    """``_fingerprint`` of contiguous ``t``, whose ``nbytes`` bytes of ``dtype`` start at ``ptr``:
    float32 digested and summed in one pass (harness.core.digest), other dtypes' sums NumPy's (0 for bool)."""
    if nbytes == 0:
        return _EMPTY
    if dtype is torch.float32:
        return fingerprint_at(ptr, nbytes, True, TRACE_ALGORITHM)
    np_dtype = _NP_DTYPES.get(dtype)
    if np_dtype is None:
        total = float(t.double().sum()) if t.is_floating_point() else _NAN
    elif np_dtype is np.bool_:
        total = 0.0
    else:
        array_type = _BYTE_ARRAYS.get(nbytes)
        if array_type is None:
            array_type = _BYTE_ARRAYS[nbytes] = ctypes.c_char * nbytes
        total = float(np.frombuffer(array_type.from_address(ptr), np_dtype).sum(dtype=np.float64))
    return (fingerprint_at(ptr, nbytes, False, TRACE_ALGORITHM)[0], total)


def _jsonable(value: Any) -> Any:
    """A call argument as JSON holds it; a complex number as ``{"complex": [re, im]}`` (its value kept, not
    its type's name: ``harness.trace.impl_ops.replay`` reads it back as a complex)."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return str(value)


def _call_args(arg_names: list[str], args: tuple, kwargs: dict, names: dict[int, str]) -> list[dict[str, Any]]:
    """The call's arguments as JSON: tensors by the name they were captured under."""
    out = []
    for i, value in enumerate((*args, *kwargs.values())):
        name = arg_names[i] if i < len(args) else list(kwargs)[i - len(args)]
        if isinstance(value, torch.Tensor):
            entry = {"name": name, "tensor": names.get(id(value), ""), "stride": list(value.stride()),
                     "shape": list(value.shape), "dtype": str(value.dtype).removeprefix("torch.")}  # fmt: skip
            align = _address_past_64(value)
            if align:
                entry["align"] = align
            out.append(entry)
        elif isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
            out.append({
                "name": name, "tensors": [names.get(id(v), "") if v is not None else None for v in value],
                "dtypes": [str(v.dtype).removeprefix("torch.") if v is not None else None for v in value],
            })  # fmt: skip
        else:
            out.append({"name": name, "value": _jsonable(value)})
    return out


def _address_past_64(t: torch.Tensor) -> int:
    """How many bytes a tensor's first element lies past a 64-byte boundary: MKL's kernels peel their
    sums by their operands' addresses, and a view (a slice of a padded row, one head of a fused
    projection) keeps its offset into its buffer. 0 where it has no CPU memory to ask."""
    if t.device.type != "cpu" or t.layout != torch.strided:
        return 0
    try:
        return int(t.data_ptr() % 64)
    except (RuntimeError, NotImplementedError):  # a subclass or a tensor without storage
        return 0


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.uint16).numpy().copy()
    if t.is_complex():  # no fixture holds a complex dtype: its (re, im) pairs, the same bytes
        return torch.view_as_real(t).numpy().copy()
    return t.numpy().copy()


_BYTE_ARRAYS: dict[int, Any] = {}


class _Mode(TorchDispatchMode):
    def __init__(self, tracer: Tracer) -> None:
        super().__init__()
        self.tracer = tracer

    @classmethod
    def _should_skip_dynamo(cls) -> bool:  # no torch.compile wrapper around every op
        return False

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        return self.tracer.dispatch(func, args, kwargs or {})


@contextlib.contextmanager
def recording(capture: Sequence[int] = ()) -> Iterator[Tracer]:
    """Record the ops run inside the block into the yielded ``Tracer`` (nothing is written)."""
    tracer = Tracer(capture)
    with tracer.hooks(), tracer.intercepting():
        yield tracer


def save(tracer: Tracer, out: str | Path, **attrs: Any) -> int:
    """Write ``tracer``'s ops atomically to ``out``, with this process's provenance; returns bytes."""
    missing = sorted(tracer.capture - set(tracer.captured))
    if missing:
        attrs.setdefault("capture_missing", missing)
    attrs.setdefault("env", {k: v for k, v in os.environ.items() if k in _env_vars()})
    attrs.setdefault("tracer", tracer.backend or MODE)
    attrs.setdefault("thread_counts", tracer.thread_counts)
    now, seen = torch.get_num_threads(), tracer.thread_counts[-1][1]
    if now != seen:
        attrs.setdefault(
            "thread_note",
            f"the intra-op thread count was {now} when the trace was written, {seen} as the recorder last saw it: "
            "the program changed it other than through torch.set_num_threads, and the ops after that are "
            f"replayed at {seen}",
        )
    if tracer.backend_note:
        attrs.setdefault("tracer_note", tracer.backend_note)
    return write_trace(out, {"provenance": running_provenance(), **attrs}, tracer.ops, tracer.captured)


def _env_vars() -> tuple[str, ...]:
    from harness.platform.config import RELEVANT_ENV

    return RELEVANT_ENV


@contextlib.contextmanager
def tracing(out: str | Path, capture: Sequence[int] = (), **attrs: Any) -> Iterator[Tracer]:
    """``with tracing("run.h5"): ...`` records the block's ops and writes them to ``out``.

    ``capture``: op indices whose tensors are kept in full. The file is written when the block
    ends, also when it raises (the trace then shows how far the program got).
    """
    if not str(out):
        raise ParityError("tracing needs a file to write")
    tracer = Tracer(capture)
    try:
        with tracer.hooks(), tracer.intercepting():
            yield tracer
    finally:
        save(tracer, out, **attrs)
