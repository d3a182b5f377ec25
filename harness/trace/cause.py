"""Why the root cause differs: the platform knob, from both traces' provenance and the kernel index,
and its proof by the reference implementation. Torch-free (re-runs start their own processes).

Knobs (provenance fields): ``threads``, ``capability`` (ATen's CPU capability,
``ATEN_CPU_CAPABILITY``), ``onednn_isa`` (``ONEDNN_MAX_CPU_ISA``), ``mkl_code_path``, ``blas``,
``cpu_model``, ``arch``, ``torch_version``, ``hash_seed`` (``python_hash_seed``: Python's string hash
seed, which reaches no kernel but orders a program's sets of str). The kernel index says which of them reach the root
cause op's bits (harness/trace/impl_ops.py ``KERNEL_OPS``); the knob is the one that both
differs between the traces and reaches the op. Between two architectures (an arm64 run and an x86
one) the knob is the architecture, every kernel being its own build there (ATen's capability,
oneDNN, the BLAS and the CPU follow from it), with the thread count and torch release beside it
where they differ too and reach the op.

Verification (``--verify-cause``): A's program is run again under its configuration, keeping the
root cause op's tensors in full (its inputs are B's too); or B's, where only B's can run on this
host; a program traced on another architecture is re-run on the emulated arm64 core it was traced
on (harness.platform.emulation), never natively, and one traced on another architecture's silicon
is refused in one line; ops a trace holds in full (``--capture``) are taken from it. The impl
replays them under each side's profile (the profile of its ATen capability, its thread count, its
architecture, its torch release). The cause is verified when the
impl gives each side's traced outputs bit for bit (by their digests), and, where one knob was
named, when changing that knob alone in the impl turns side A's bits into side B's (a knob the
impl cannot change alone, such as the MKL code path, leaves one-knob causes unverified). Otherwise
it is "unexplained" (and B's program is run again for the ULP figures where the impl gave none).

A divergence of the program's data flow (harness.trace.reach.Read: the two runs read other
tensors, each the same in both runs) is no kernel's: the trace is its proof (both sides' producers,
named), the impl replays nothing, and its knob is Python's string hash seed where that was random
or differs between the runs (the likely one: sets of str iterate in its order; setting
``PYTHONHASHSEED=0`` in both runs confirms it), else unexplained. So too a tensor made from NumPy or
Python data (``torch.tensor``, ``torch.from_numpy``: ATen's ``lift_fresh``, HOST_DATA_OPS), or made in
another process (a DataLoader worker's batch, installed by ``set_`` from shared memory: STORAGE_INSTALLS),
that holds other values: the trace shows it at its call site, its knob the data made outside torch's ops.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.core.digest import digest
from harness.core.errors import ParityError
from harness.formats.trace import HOOK, STORAGE_INSTALLS, Captured, OpRecord, Trace, read_trace
from harness.platform.config import host_arch
from harness.platform.provenance import describe_hash_seed, fixed_hash_seed, hash_seed_is_random, public_version
from harness.trace.diff import Divergence, TraceDiff, fingerprints
from harness.trace.impl_ops import kernel_op, refusal
from harness.trace.reach import Read, host_data_op

KNOB_LABELS = {
    "threads": "intra-op thread count",
    "capability": "ATen CPU capability (ATEN_CPU_CAPABILITY)",
    "onednn_isa": "oneDNN ISA (ONEDNN_MAX_CPU_ISA)",
    "mkl_code_path": "MKL code path",
    "blas": "BLAS",
    "cpu_model": "CPU model",
    "arch": "architecture",
    "torch_version": "torch release",
    "hash_seed": "Python's string hash seed (PYTHONHASHSEED)",
    "host_data": "data made outside torch's ops",  # not a platform's: what the program handed torch
}


def knob_values(provenance: dict[str, Any]) -> dict[str, str]:
    env = provenance.get("env", {})
    return {
        "threads": str(provenance.get("threads", "")),
        "capability": str(provenance.get("capability", "")),
        "onednn_isa": str(env.get("ONEDNN_MAX_CPU_ISA", env.get("DNNL_MAX_CPU_ISA", "")) or "(unset: the CPU's best)"),
        "mkl_code_path": str(provenance.get("mkl_code_path", "")),
        "blas": str(provenance.get("blas", "")),
        "cpu_model": str(provenance.get("cpu_model", "")),
        "arch": str(provenance.get("arch", "")),
        "torch_version": str(provenance.get("torch_version_full", provenance.get("torch_version", ""))),
        "hash_seed": describe_hash_seed(provenance),
    }


def trace_knob_values(trace: Trace, index: int | None = None) -> dict[str, str]:
    """``knob_values`` of a trace: the thread count op ``index`` ran at, or, for the whole run of a
    program that changed its count as it ran, each stretch's ("2 (ops 0-56), 1 (from op 57)")."""
    values = knob_values(trace.provenance)
    counts = trace.thread_counts
    if len(counts) > 1:
        if index is not None:
            values["threads"] = str(trace.threads_at(index))
        else:
            spans = [f"ops {first}-{after - 1}" for (first, _), (after, _) in itertools.pairwise(counts)]
            spans.append(f"from op {counts[-1][0]}")
            values["threads"] = ", ".join(f"{count} ({span})" for (_, count), span in zip(counts, spans, strict=True))
    return values


# knobs the architecture does not decide: a cross-architecture cause names them beside it
ARCH_FREE_KNOBS = ("threads", "torch_version", "hash_seed")

VERIFIED_ROOTS = 128  # --verify-cause proves at most this many live roots (one re-run captures them all)


@dataclass
class OutputFigures:
    name: str
    line: str  # harness.core.ulp.describe()
    comparison: dict[str, Any]


@dataclass
class Cause:
    op: str
    kernel: str  # the kernel index row ("" when the op is not in it)
    knobs: list[str]  # the knobs that differ and reach this op
    differing: dict[str, tuple[str, str]]  # every knob that differs: (A, B)
    explanation: str
    verified: bool = False
    verification: str = "not attempted (pass --verify-cause)"
    figures: list[OutputFigures] = field(default_factory=list)
    # shown by the trace, not replayed: a divergence of the program's data flow, or data made outside torch
    data_flow: bool = False

    @property
    def knob(self) -> str:
        return " and ".join(KNOB_LABELS.get(k, k) for k in self.knobs) if self.knobs else "unexplained"


def explain(diff: TraceDiff, root: Divergence | None = None) -> Cause | None:
    """The knob behind ``root`` (by default ``diff.root_cause``), from provenance and the kernel index."""
    from harness.impl.kernel_index import ROWS
    from harness.impl.kernel_index import why as kernel_why

    root = root or diff.root_cause
    if root is None:
        return None
    shown = trace_shown_cause(diff, root.a.index)
    if shown is not None:
        return shown
    va, vb = trace_knob_values(diff.a, root.a.index), trace_knob_values(diff.b, root.b.index)
    differing = {k: (va[k], vb[k]) for k in va if va[k] != vb[k]}
    found = kernel_op(root.a.op, root.a.args)
    if found is None:
        listed = ", ".join(f"{KNOB_LABELS[k]} {a} vs {b}" for k, (a, b) in differing.items()) or "nothing"
        return Cause(
            root.a.op, "", [], differing,
            f"{root.a.op} is not in the kernel index; the platforms differ in: {listed}",
        )  # fmt: skip
    kernel, reach = found
    knobs = [k for k in reach if k in differing]
    if "arch" in differing:  # another architecture: every kernel is its own build (ATen's capability, oneDNN,
        # the BLAS and the CPU follow from it), so the architecture is the knob, with what it does not decide
        # (each architecture's wheel is its own build, "2.13.0+cpu" against "2.13.0+cu130": the release
        # is a knob of its own only where it differs)
        release = {public_version(v) for v in differing.get("torch_version", ())}
        knobs = ["arch", *(k for k in knobs if k in ARCH_FREE_KNOBS and (k != "torch_version" or len(release) > 1))]
    kernel_text = next(text for ops, text, _ in ROWS if kernel in ops)
    why = kernel_why(kernel, arm64="arm64" in (va["arch"], vb["arch"]))
    if knobs:
        values = "; ".join(f"{KNOB_LABELS[k]}: {differing[k][0]} vs {differing[k][1]}" for k in knobs)
        text = f"{values}. Kernel: {kernel_text}. What makes its bits differ: {why}"
    else:
        listed = ", ".join(KNOB_LABELS[k] for k in differing) or "nothing recorded"
        text = (
            f"unexplained: the kernel index names no knob of {kernel} among those that differ ({listed}). "
            f"Kernel: {kernel_text}. What makes its bits differ: {why}"
        )
    return Cause(root.a.op, kernel, knobs, differing, text)


def hash_seed_knob(a: Trace, b: Trace) -> tuple[list[str], str]:
    """The knob of a divergence of the data flow between ``a`` and ``b``, by their hash seeds: ``hash_seed``
    where the seed was random or differs between the runs (the likely knob), else none; and why."""
    sa, sb = describe_hash_seed(a.provenance), describe_hash_seed(b.provenance)
    confirm = "to confirm, trace both programs again with PYTHONHASHSEED=0 in both: they then read the same tensors"
    if "not recorded" in (sa, sb):
        return [], (
            f"the traces do not record the hash seed (A: {sa}, B: {sb}); where PYTHONHASHSEED was "
            f"unset, Python's string hash seed is the likely knob (set orders of str follow it); {confirm}"
        )
    if sa == sb and not hash_seed_is_random(a.provenance):
        return [], (
            f"both runs had {sa}, so their sets of str iterate in one order: the program chose "
            "other tensors for a reason of its own (its state, its input, the time)"
        )
    both = f"{sa.removesuffix(' (random per process)')} in both runs" if sa == sb else f"{sa} in A, {sb} in B"
    return ["hash_seed"], f"Python's string hash seed: {both}; set orders of str follow it; {confirm}"


def read_text(diff: TraceDiff, read: Read) -> str:
    """One input of a divergence of the data flow, its two producers named (op, module, phase, step,
    call site), each on its own side's indices and the other side's aligned one."""
    sides = []
    for side, trace, index, output, other in (
        ("A", diff.a, read.src_a, read.output_a, diff.a2b),
        ("B", diff.b, read.src_b, read.output_b, diff.b2a),
    ):
        if index < 0:
            held, there = (read.held_a, diff.b) if side == "A" else (read.held_b, diff.a)
            op = there.ops[held]
            name = "B" if side == "A" else "A"
            before = f"a tensor made before the trace (its bits are in {name} too: op {held}, {op.op} at {op.site})"
            sides.append(f"{side} {'read ' if side == 'A' else ''}{before}")
            continue
        op = trace.ops[index]
        what = f"output {output} of op {index}" if output else f"what op {index} wrote"
        there = f"op {other[index]} in {'B' if side == 'A' else 'A'}"
        where = f"{op.op} in {op.module or '(no module)'} ({op.phase}, step {op.step}) at {op.site}; {there}"
        sides.append(f"{side} {'read ' if side == 'A' else ''}{what} ({where})")
    return f"input {read.input}: {sides[0]}, {sides[1]}; each is the same in both runs"


def data_flow_cause(diff: TraceDiff, index: int) -> Cause:
    """The Cause of op ``index`` of A, a divergence of the program's data flow: no kernel's bits; the
    trace shows it (both producers), the hash seeds say what likely chose the other tensors."""
    assert diff.reach is not None
    knobs, why = hash_seed_knob(diff.a, diff.b)
    sa, sb = describe_hash_seed(diff.a.provenance), describe_hash_seed(diff.b.provenance)
    differing = {"hash_seed": (sa, sb)} if sa != sb else {}
    proof = "; ".join(read_text(diff, r) for r in diff.reach.reads_at(index))
    return Cause(
        diff.a.ops[index].op, "", knobs, differing,
        f"a divergence of the program's data flow, not of a kernel's bits: the two runs read other tensors; {why}",
        verification=f"shown by the trace (the impl replays nothing): {proof}", data_flow=True,
    )  # fmt: skip


def host_data_cause(diff: TraceDiff, index: int) -> Cause:
    """The Cause of op ``index`` of A, an op that hands torch data made outside its ops (reach's
    host_data_op) whose output differs: a tensor made from NumPy or Python data (``torch.tensor``,
    ``torch.from_numpy``), or a storage made in another process (a DataLoader worker's batch), that holds
    other values in the two runs. No kernel's bits: it reads no tensor a traced op wrote; the trace
    shows it, with its call site."""
    a, b = diff.a.ops[index], diff.b.ops[diff.a2b[index]]
    sites = a.site if a.site == b.site else f"{a.site} in A, {b.site} in B"
    if a.op in STORAGE_INSTALLS:
        made = (
            f"data made in another process (a DataLoader worker's batch, received through shared memory) at {sites} "
            "holds other values in the two runs, not a kernel's bits: the worker computed it outside the traced "
            "process (an unseeded shuffle or sampler, a worker's NumPy or Python random state, augmentation, a "
            "file); set_ installed its storage, which no tensor of the trace carried (were it a storage of the "
            "program's own tensor, handed to set_ itself, its writer is the op that wrote that tensor)"
        )
        reads = "installs a storage that no tensor of the trace carried"
    else:
        made = (
            f"a tensor made from NumPy or Python data (torch.tensor, torch.from_numpy) at {sites} holds other values "
            "in the two runs, not a kernel's bits: the program computed them outside torch (NumPy's or Python's "
            "random state where unseeded, the clock, a file, a set's order), or from tensors it read out "
            "(.numpy(), .tolist()) that differ themselves, a path the trace cannot follow"
        )
        reads = "reads no tensor a traced op wrote"
    return Cause(
        a.op, "", ["host_data"], {}, made,
        verification=f"shown by the trace (the impl replays nothing): op {index} {reads}, and its output's bits "
        "differ", data_flow=True,
    )  # fmt: skip


def trace_shown_cause(diff: TraceDiff, index: int) -> Cause | None:
    """The Cause of op ``index`` of A where the trace itself shows it (a divergence of the data flow,
    data made outside torch's ops), else None (a kernel's bits: the impl's to prove)."""
    if diff.reach is not None and diff.reach.reads_at(index):
        return data_flow_cause(diff, index)
    if host_data_op(diff.a.ops[index].op):
        return host_data_cause(diff, index)
    if diff.reach is not None and diff.reach.outside_at(index):
        return outside_data_cause(diff, index)
    return None


def outside_data_cause(diff: TraceDiff, index: int) -> Cause:
    """The Cause of op ``index`` of A, which read data made outside torch's ops (no traced op wrote it in
    either run, both traced from their program's start) that holds other values: its first reader's
    call site. No kernel's bits; the trace shows it."""
    assert diff.reach is not None
    found = diff.reach.outside_at(index)
    first = diff.a.ops[min(x.first if x.first >= 0 else index for x in found)]
    inputs = ", ".join(x.input for x in found)
    return Cause(
        diff.a.ops[index].op, "", ["host_data"], {},
        f"data made outside torch's ops, first read by op {first.index} ({first.op}) at {first.site}, holds other "
        "values in the two runs, not a kernel's bits: no op of either run wrote it (torch.frombuffer over NumPy's "
        "or Python's bytes, a file's, both programs traced from their start), so the program made it outside "
        "torch (NumPy's or Python's random state where unseeded, the clock, a file)",
        verification=f"shown by the trace (the impl replays nothing): input {inputs} of op {index}, which no traced "
        "op wrote in either run, differs, and neither run held the other's bits", data_flow=True,
    )  # fmt: skip


# -- re-running a traced program ------------------------------------------------------------------


def rerun_env(trace: Trace, base: dict[str, str] | None = None) -> dict[str, str]:
    """This environment with the traced run's configuration variables in place of its own."""
    from harness.platform.config import RELEVANT_ENV

    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in RELEVANT_ENV}
    env.update(trace.attrs.get("env", {}))
    seed = fixed_hash_seed(trace.provenance)  # a fixed hash seed is the run's too (its sets' order)
    if seed is not None:
        env["PYTHONHASHSEED"] = seed
    # recorded the way the trace was: op indices of the hook and of the dispatch mode differ
    env["PARITY_TRACE_HOOK"] = "1" if trace.recorder == HOOK else "0"
    return env


def this_harness_first(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a child of this Python that imports this harness, not one its working directory holds:
    ``python -m`` puts the working directory first on the path, and a trace's (a checkout of its own,
    perhaps changed since) would otherwise record the re-run with another tracer. The traced program
    keeps the working directory on its path (harness.trace.run puts it back for ``-m`` programs). Python
    3.10 has no PYTHONSAFEPATH: there the working directory still comes first."""
    root = str(Path(__file__).resolve().parents[2])
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**env, "PYTHONPATH": os.pathsep.join([root, *rest]), "PYTHONSAFEPATH": "1"}


def capture(trace: Trace, index: int, workdir: Path) -> Captured:
    """Run ``trace``'s program again under its configuration, keeping op ``index`` in full;
    checks that the op and its digests came out as traced."""
    return capture_ops(trace, [index], workdir)[index]


def capture_ops(trace: Trace, indices: list[int], workdir: Path) -> dict[int, Captured]:
    """Run ``trace``'s program again under its configuration (once), keeping each op of ``indices``
    in full; checks that each op and its digests came out as traced. Ops the trace already holds in
    full (traced with ``--capture``) are taken from it: nothing is run. A trace of another
    architecture is re-run on its emulated core where it was traced on one (``foreign_rerun``)."""
    return _every_op(capture_each(trace, indices, workdir))


def capture_each(trace: Trace, indices: list[int], workdir: Path) -> dict[int, Captured | str]:
    """``capture_ops``, where an op that came out otherwise than traced (a race, a program whose
    inputs are not repeatable) is the line saying so, not a failure of all of them; a program that
    cannot run again at all still raises its one line."""
    if all(index in trace.captured for index in indices):  # captured when traced: the same run's bits
        return {index: trace.captured[index] for index in indices}
    command = trace.attrs.get("command")
    if not command:
        raise ParityError(f"{trace.path}: the trace does not say how its program was run (traced in Python?)")
    cwd = trace.attrs.get("cwd") or None
    if cwd is not None and not Path(cwd).is_dir():
        raise ParityError(f"{trace.path}: its program ran in {cwd}, which is gone, so it cannot be run again")
    out = workdir / f"capture-{indices[0]}-{len(indices)}.h5"
    argv = trace_argv(command, out, indices)
    if foreign_arch(trace):
        with foreign_rerun(trace) as (emulated, base):
            argv = emulated(argv[1:])  # the emulator's Python in place of the program's own
            proc = subprocess.run(argv, env=rerun_env(trace, base), cwd=cwd, capture_output=True, text=True)
    else:
        env = rerun_env(trace)
        if Path(argv[0]).resolve() == Path(sys.executable).resolve():
            env = this_harness_first(env)
        with x86_rerun(trace) as launcher:
            if launcher is not None:  # traced under qemu-x86_64 as another CPU: run there again, not natively
                argv, env = launcher.command(argv), launcher.wrap(env)
            proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    try:
        return _captured_each(trace, indices, out, proc)
    finally:
        out.unlink(missing_ok=True)  # read in full: a batch of large ops is not left on disk meanwhile


@contextlib.contextmanager
def x86_rerun(trace: Trace) -> Iterator[Any]:
    """The launcher re-running an x86_64 ``trace``'s program under the QEMU CPU model it was traced on
    (``parity trace --emulate x86:MODEL``: MKL, oneDNN and ATen choose their kernels for that CPU again);
    None where it ran on this host's own CPU."""
    from harness.platform.emulation import emulated_x86, emulated_x86_model

    model = emulated_x86_model(trace.provenance)
    if not model:
        yield None
        return
    with emulated_x86(f"x86:{model}") as launcher:
        yield launcher


def foreign_arch(trace: Trace) -> str:
    """The architecture ``trace`` was recorded on where it is not this host's ("" where it is, or unrecorded)."""
    arch = str(trace.provenance.get("arch", ""))
    return arch if arch and arch != host_arch() else ""


def can_rerun_here(trace: Trace) -> bool:
    """Whether this host can run ``trace``'s program again as it ran: its own architecture, or an
    arm64 core it was emulated on (or it holds its ops in full already: see ``capture_ops``)."""
    from harness.platform.emulation import emulated_core_of

    try:
        return not foreign_arch(trace) or emulated_core_of(trace.provenance) is not None
    except ParityError:
        return False


@contextlib.contextmanager
def foreign_rerun(trace: Trace) -> Iterator[tuple[Callable[[list[str]], list[str]], dict[str, str]]]:
    """(command, base environment) re-running ``trace``'s program, of another architecture than this
    host's, on the emulated arm64 core it was traced on (its torch release, an aarch64 build of this
    package): never natively, which would run another machine's kernels or not start at all. A trace
    of real hardware of another architecture is refused in one line."""
    from harness.platform.emulation import arm64_runner, emulated_core_of

    arch = foreign_arch(trace)
    core = emulated_core_of(trace.provenance)
    if core is None:
        cpu = trace.provenance.get("cpu_model") or "its CPU"
        raise ParityError(
            f"{trace.path} was traced on {arch} ({cpu}); its program cannot run again on this "
            f"{host_arch()} host: verify it on a {arch} machine, or trace it with --capture of the ops"
        )
    threads = int(trace.provenance.get("threads") or 1)
    torch_version = str(trace.provenance.get("torch_version", ""))
    with arm64_runner(Path(__file__).resolve().parents[2], torch_version, core, threads, dict(os.environ)) as run:
        yield run


def _checked_capture(
    trace: Trace, indices: list[int], out: Path, proc: subprocess.CompletedProcess
) -> dict[int, Captured]:
    return _every_op(_captured_each(trace, indices, out, proc))


def _every_op(found: dict[int, Captured | str]) -> dict[int, Captured]:
    """The captured ops, or the first op's line that came out otherwise, raised."""
    problem = next((v for v in found.values() if isinstance(v, str)), None)
    if problem is not None:
        raise ParityError(problem)
    return {index: v for index, v in found.items() if isinstance(v, Captured)}


def _captured_each(
    trace: Trace, indices: list[int], out: Path, proc: subprocess.CompletedProcess
) -> dict[int, Captured | str]:
    """The re-run's captured ops by index, each checked against the trace (its line where it came out
    otherwise); raises where the re-run as a whole cannot stand for the traced run."""
    if not out.exists():  # the program may end with its own exit status; the trace is what counts
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise ParityError(f"re-running {trace.path}'s program failed (exit {proc.returncode}): {tail}")
    again = read_trace(out)
    if again.recorder != trace.recorder:
        why = again.attrs.get("tracer_note", "")
        raise ParityError(
            f"{trace.path} was recorded through the {trace.recorder}, the re-run through the {again.recorder}"
            + (f" ({why})" if why else "")
        )
    if again.digest_algorithm != trace.digest_algorithm:
        raise ParityError(
            f"{trace.path} holds {trace.digest_algorithm} digests and this version traces with "
            f"{again.digest_algorithm}: trace its program again with this version"
        )
    found: dict[int, Captured | str] = {}
    for index in indices:
        if index >= len(again.ops) or index not in again.captured:
            found[index] = f"re-running {trace.path}'s program did not reach op {index}"
            continue
        first, then = trace.ops[index], again.ops[index]
        if (first.op, fingerprints(first.inputs)) != (then.op, fingerprints(then.inputs)):
            found[index] = (
                f"re-running {trace.path}'s program gave other bits at op {index} ({first.op}): not repeatable"
                + _random_hash_seed(trace)
            )
        elif fingerprints(first.outputs) != fingerprints(then.outputs):
            found[index] = _not_deterministic(trace, index, first.op)
        else:
            found[index] = again.captured[index]
    return found


def _random_hash_seed(trace: Trace) -> str:
    """Why a re-run may read other tensors: the traced run's string hash order was random (a set of str the
    program iterates, as Gemma 3's layer types, then orders its tensors otherwise in each process)."""
    if not hash_seed_is_random(trace.provenance):
        return ""
    return (
        " (its program ran with a random PYTHONHASHSEED, so a set of str it iterates may order its tensors "
        "otherwise in each run: trace it with PYTHONHASHSEED=0 to repeat it)"
    )


def _not_deterministic(trace: Trace, index: int, op: str) -> str:
    """Why a re-run that gave op ``index`` the same fingerprinted inputs and other outputs cannot be verified:
    an input the trace holds no fingerprint of (read before anything wrote it: ``torch.empty``'s memory, as an
    initialisation that multiplies it and never reads the product) may hold other bits in each run; else the op
    itself is not deterministic in this configuration (its threads race: on x86, index_put_'s atomic adds from
    32,768 elements on 2 or more threads, harness.impl.kernel_index)."""
    blank = [r.name for r in trace.ops[index].inputs if not r.fingerprinted]
    if blank:  # e.g. torch.empty's memory read before anything wrote it: other bits in each run
        return (
            f"re-running {trace.path}'s program gave op {index} ({op}) other outputs: it reads {', '.join(blank)}, "
            "which no traced op wrote before it (memory of torch.empty's kind, whose bits the trace does not hold), "
            "so a re-run may hold other bits there and no run repeats its outputs"
        )
    threads = int(trace.provenance.get("threads") or 1)
    race = f": its {threads} threads race" if threads > 1 else ""
    return (
        f"re-running {trace.path}'s program gave op {index} ({op}) the same inputs and other outputs: the op "
        f"is not deterministic in this configuration{race}, so no run repeats its bits"
    )


def trace_argv(command: list[str], out: Path, capture_ops: list[int]) -> list[str]:
    """The child command line tracing ``command`` (a Python program) into ``out``."""
    exe, program = split_python(command)
    argv = [exe, "-m", "harness.trace.run", "--out", str(out), "--command", json.dumps(command)]
    if capture_ops:
        argv += ["--capture", ",".join(map(str, capture_ops))]
    return [*argv, "--", *program]


def split_python(command: list[str]) -> tuple[str, list[str]]:
    """('python', rest) when the command starts with a Python interpreter, else this one's."""
    import re

    if command and re.fullmatch(r"python[\d.]*", Path(command[0]).name):
        return command[0], command[1:]
    return sys.executable, list(command)


def verify(diff: TraceDiff, cause: Cause, lead: Divergence | None = None) -> None:
    """Capture the root cause op's tensors (``lead``'s, by default ``diff.root_cause``), replay them
    through the impl under both sides' profiles, and fill ``cause`` with the verdict and the ULP
    figures of each differing output; so too for every further live root (``diff.causes``, up to
    ``VERIFIED_ROOTS`` of them), verdicts only. Divergences of the data flow are left as the trace
    shows them (nothing to replay).

    The ops' inputs are the same on both sides, so one re-run gives them all: of A's program, or of
    B's where B's costs less here (B holds them, or runs natively where A runs under emulation or not at
    all: ``capture_side``); the impl's outputs are checked against each trace's own digests. The other
    side's program is run again only where the impl does not reproduce its root cause, for the figures."""
    from harness.core.ulp import compare_tensors, describe

    root: Divergence = lead or diff.root_cause  # type: ignore[assignment]
    paired = list(zip(diff.roots, diff.causes, strict=False))  # causes: empty where diagnose() did not explain them
    paired = [(r, c) for r, c in paired if c is None or not c.data_flow]
    others = [(r, c) for r, c in paired if r is not root and c is not None][: VERIFIED_ROOTS - 1]
    for c in [c for _, c in paired[VERIFIED_ROOTS:] if c is not None]:
        c.verification = f"not attempted (--verify-cause proves the first {VERIFIED_ROOTS} live roots)"
    for r, c in others:  # an op the impl has no replay for is refused as it stands: capturing its
        refused = refusal(r.a.op)  # tensors would only hold back the others' re-run
        c.verification = f"unexplained: {refused}" if refused else c.verification
    others = [(r, c) for r, c in others if refusal(r.a.op) is None]
    root_refused = refusal(root.a.op)
    on_a = capture_side(diff) == "A"
    source = diff.a if on_a else diff.b

    def captured(roots: list[Divergence], workdir: Path) -> dict[int, Captured]:
        """The roots' tensors from the source side's re-run, by A's op index."""
        got = capture_ops(source, [r.a.index if on_a else r.b.index for r in roots], workdir) if roots else {}
        return {r.a.index: got[r.a.index if on_a else r.b.index] for r in roots}

    wanted = [*([] if root_refused else [root]), *(r for r, _ in others)]
    with tempfile.TemporaryDirectory(prefix="parity-trace-") as tmp:
        try:
            caps = captured(wanted, Path(tmp))
        except ParityError as err:
            for _, c in others:  # the first root is captured alone then: one op's failure leaves it be
                c.verification = f"unexplained: could not capture the op's tensors ({err})"
            others, caps = [], {}
            try:
                caps = {} if root_refused else captured([root], Path(tmp))
            except ParityError as err_root:
                cause.verification = f"unexplained: could not capture the op's tensors ({err_root})"
                return
        for r, c in others:
            c.verified, c.verification, _ = replay_verdict(diff, c, caps[r.a.index], r)
        if root_refused:  # no replay: the refusal is the verdict; the figures where its tensors can be captured
            cause.verification = f"unexplained: {root_refused}"
            try:
                outputs_a = capture(diff.a, root.a.index, Path(tmp)).outputs
                outputs_b = capture(diff.b, root.b.index, Path(tmp)).outputs
            except ParityError:  # tensors a fixture cannot hold: no figures
                return
        else:
            cap = caps[root.a.index]
            cause.verified, cause.verification, sides = replay_verdict(diff, cause, cap, root)
            here, other = ("A", "B") if on_a else ("B", "A")
            outputs = {here: cap.outputs, other: {}}
            if sides:  # the impl gives both sides' bits: the other side's are the impl's
                outputs[other] = sides[1] if on_a else sides[0]
            else:  # the other side's own outputs, where its program can run again
                trace, index = (diff.b, root.b.index) if on_a else (diff.a, root.a.index)
                try:
                    outputs[other] = capture(trace, index, Path(tmp)).outputs
                except ParityError as err:
                    cause.verification += f"; {other}'s outputs could not be captured for ULP figures ({err})"
            outputs_a, outputs_b = outputs["A"], outputs["B"]
    for name in root.outputs:
        if name in outputs_a and name in outputs_b:
            c = compare_tensors(name, outputs_a[name], outputs_b[name])
            cause.figures.append(OutputFigures(name, describe(c), c.as_dict()))


def capture_side(diff: TraceDiff) -> str:
    """Whose program gives the roots' tensors ("A" or "B"), the cheapest first: a trace that holds them
    in full (nothing runs), then a program of this host's architecture run natively, then one traced under
    emulation (an arm64 core, or qemu-x86_64 as another x86 CPU: run there again, minutes); A where neither
    can (its refusal is the verdict). Only the roots the impl replays count: those the trace shows (data
    flow, host data) are never captured."""
    from harness.platform.emulation import emulated_x86_model

    roots = diff.roots or ([diff.root_cause] if diff.root_cause else [])
    roots = [r for r in roots if trace_shown_cause(diff, r.a.index) is None]

    def cost(trace: Trace, side: str) -> int:
        if roots and all((r.a.index if side == "A" else r.b.index) in trace.captured for r in roots):
            return 0
        if not foreign_arch(trace) and not emulated_x86_model(trace.provenance):
            return 1
        return 2 if can_rerun_here(trace) else 3

    return "B" if cost(diff.b, "B") < cost(diff.a, "A") else "A"


def replay_verdict(
    diff: TraceDiff, cause: Cause, cap: Captured, root: Divergence | None = None
) -> tuple[bool, str, tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None]:
    """Whether the impl, under each side's profile, gives each side's traced outputs of ``root`` (by
    default ``diff.root_cause``) bit for bit (by digest); with the verdict's text and, where it gives
    both, A's and B's outputs (the impl's: each side's bits)."""
    from harness.impl.profiles import profile_for_trace, unmodelled_blas
    from harness.trace.impl_ops import replay

    root = root or diff.root_cause
    assert root is not None
    try:
        pa, pb = (
            profile_for_trace(t.provenance).with_threads(t.threads_at(op.index))
            for t, op in ((diff.a, root.a), (diff.b, root.b))
        )
        impl_a = replay(root.a.op, cap.inputs, cap.args, pa)
        impl_b = replay(root.b.op, cap.inputs, cap.args, pb)
    except ParityError as err:
        return False, f"unexplained: {err}", None
    algorithm = diff.a.digest_algorithm  # diff_traces holds both traces to one
    for side, impl, op, prof, trace in (("A", impl_a, root.a, pa, diff.a), ("B", impl_b, root.b, pb, diff.b)):
        bad = not_reproduced(impl, op, algorithm, trace)
        if bad:
            why = f"unexplained: the impl under {prof.label} does not give side {side}'s {', '.join(bad)} bit for bit"
            blas = unmodelled_blas(trace.provenance)
            why += f" (side {side}'s BLAS code path, {blas}, is not one the impl models)" if blas else ""
            why += _thread_history(trace, op.index, prof, side)
            return False, why, None
    text = f"the impl gives both sides' outputs bit for bit ({pa.label} for A, {pb.label} for B)"
    if len(cause.knobs) != 1:
        return True, text, (impl_a, impl_b)
    knob = cause.knobs[0]  # one knob named: verified only when changing it alone turns A's bits into B's
    if knob not in ("threads", "capability", "onednn_isa", "torch_version", "mkl_code_path", "arch"):
        return False, f"unexplained: {text}, but the impl cannot change the {KNOB_LABELS[knob]} alone", (impl_a, impl_b)
    if knob == "threads":
        alone = pa.with_threads(pb.threads)
    elif knob == "torch_version":
        alone = pa.with_torch(pb.torch)
    elif knob == "mkl_code_path":
        alone = pa.with_blas(pb.blas)
    else:  # the level or the architecture: a profile holds ATen's capability and oneDNN's ISA (and is of one
        # architecture), and the kernel reads the one named
        alone = pb.with_threads(pa.threads).with_torch(pa.torch)
    moved = impl_b if alone == pb else replay(root.a.op, cap.inputs, cap.args, alone)
    if not_reproduced(moved, root.b, algorithm, diff.b):
        why = f"unexplained: {text}, but changing only the {KNOB_LABELS[knob]} ({alone.label}) does not give B's bits"
        return False, why, (impl_a, impl_b)
    return True, f"{text}; in the impl, changing only the {KNOB_LABELS[knob]} turns A's bits into B's", (impl_a, impl_b)


def _thread_history(trace: Trace, index: int, profile: Any, side: str) -> str:
    """Why side ``side`` may hold bits no profile gives: its program changed its thread count before
    op ``index``, and on MKL's Intel paths a product made inside a parallel region (flash attention's)
    runs at the count its pool thread had when it first ran one (docs/platforms.md, Threads)."""
    changes = [first for first, _ in trace.thread_counts[1:] if first <= index]
    if not changes or not profile.mkl_intel:
        return ""
    return (
        f"; side {side}'s program changed its thread count before this op (at op {changes[0]}), and on MKL's "
        "Intel paths a product made inside a parallel region keeps each pool thread's first count, which the "
        "impl does not model"
    )


def not_reproduced(impl: dict[str, np.ndarray], op: OpRecord, algorithm: str, trace: Trace) -> list[str]:
    """The fingerprinted outputs of ``op`` whose digest (by the trace's ``algorithm``) the impl's
    outputs do not have. An in-place op that returns nothing (``_foreach_mul_``, ``_fused_adamw_``)
    has no outputs in the trace: what it wrote is checked where later ops read it (each such read of
    an impl output's shape must have the digest of one of them), and is not reproduced when nothing
    later read it."""
    if op.outputs:
        return [
            r.name
            for r in op.outputs
            if r.fingerprinted and (r.name not in impl or digest(impl[r.name], algorithm) != r.digest)
        ]
    shapes = {tuple(v.shape) for v in impl.values()}
    reads = [
        (later.index, r)
        for later in trace.ops[op.index + 1 :]
        for r in later.inputs
        if r.src == op.index and r.fingerprinted and tuple(r.shape) in shapes
    ]
    if not reads:
        return ["what it wrote in place (no later op of the trace read it)"]
    made = {digest(v, algorithm) for v in impl.values()}
    return [f"{r.name} as op {i} read it" for i, r in reads if r.digest not in made]


def diagnose(a: Trace, b: Trace, target: str = "", verify_cause: bool = False) -> TraceDiff:
    """``parity diff`` of two traces: aligned, the root cause named (``target`` as ``--target``) and,
    with ``verify_cause``, proven through the impl."""
    from harness.trace.diff import diff_traces

    diff = diff_traces(a, b, target)
    diff.cause = explain(diff)
    diff.causes = [diff.cause if r is diff.root_cause else explain(diff, r) for r in diff.roots]
    paired = list(zip(diff.roots, diff.causes, strict=False)) or [(diff.root_cause, diff.cause)]  # older traces
    replayed = [(r, c) for r, c in paired if r is not None and c is not None and not c.data_flow]
    if verify_cause and replayed:  # the first root the impl can replay leads (its figures are kept)
        verify(diff, replayed[0][1], replayed[0][0])
    return diff
