"""Which divergences of two traces reach the result, and by what path. Torch-free.

A trace (version 3 and later) names, for every input of every op, the op that last wrote the
storage it views (``TensorRef.src``). Two aligned runs differ along chains of such links: an op
whose outputs differ because an input differs got that input from an earlier op whose outputs
differ, back to an op whose tensor inputs are all bit-identical and whose outputs are not. Those
are the root causes; the ones that matter are those a chain joins to the target.

The target, by default, is what a program computes: the loss of the first training step whose
loss differs (harness.trace.diff.step_losses) and the state the optimizer leaves after the last
step (outputs of optimizer ops that no later op reads, and the last in-place writes of the tensors it
carries from step to step, which its own update may read again: the parameters and their moments). A
program without either has as target its differing outputs that nothing later reads or
overwrites. ``--target`` names one instead: an op index of A, ``loss``, a module path (the last
op that module ran) or a parameter (the last optimizer op that wrote it).

From the target the walk goes back over every input that differs between the sides to the op
that wrote it (on both sides the same aligned op). It ends at:
- a root cause: an op whose tensor inputs are identical on both sides and whose outputs differ;
- a divergence of the program's data flow, a root of its own kind: an op that read, for an input,
  other tensors on the two sides although each of them is the same in both runs: the outputs of
  two ops that are not aligned with each other (A reads what op 148 wrote, B what op 141 wrote, and
  op 148 and op 141 each give the same bits in both runs), a tensor made before the trace on one
  side and a traced op's output on the other, two tensors made before the trace (a model's loaded
  weights taken in another order), or two different outputs of one op. A tensor made before the
  trace is the same in both runs where the other side held its bits too. No kernel's bits
  differ there: the program chose another tensor (a set of strings iterated in the order of
  Python's string hash seed, say), and the trace itself is the proof (``Read``);
- data made outside torch's ops, a root of its own kind: an input no traced op wrote on either side,
  whose bits the other run never held, in two traces recorded from their program's start (``parity
  trace``: attribute ``program``), where the recorder ran before any op of the program, so that no
  op of the process made it: ``torch.frombuffer`` over NumPy's or Python's bytes, a file's. The op
  that reads it is the root (``Outside``: the input, and A's first op that read those bits);
- an input no traced op wrote whose bits the other run never held in a trace begun inside its program
  (``harness.trace.tracing``: torch's own ops may have made it before the trace; ``torch.tensor`` or
  ``torch.from_numpy`` of such data is a root of its own, harness.formats.trace.HOST_DATA_OPS), a generator's
  state, one whose writers are not aligned and behind which no divergence is found (below), or one
  that differs although its writer's outputs do not (written where the trace cannot see): each
  named as unresolved, the earliest reader first.

An input whose writers are not aligned (the runs took different code paths: another number of
masked frames, another expert for a token, so other shapes and other ops) is walked on through the
stretch of ops that parted (``_Stretches``): from each side's writer back over that side's own links,
in its own trace alone, through the ops the other side did not run, to the aligned ops they read.
Those of them that differ (a mask, the indices ``nonzero`` gave, a router's choice) made the paths
part, and the walk goes on from each as from any other op (or they are roots already listed); the
hop from such an op to the reader is a step of its own kind on the root's path (``CodePath``:
A's ops i..j and B's ops k..l not aligned). Where the stretch read no aligned op that differs, the
paths parted on a value handed back to Python: the last aligned op before they part that returned
no tensor (``_local_scalar_dense``, ``.item()``'s op, whose result the program's control flow read)
is taken where its inputs differ ("decided"), and the walk goes on from it. Otherwise the input
stays unresolved: the paths part for a reason the trace does not hold (a decision on data the
trace never saw). Each op of a side's stretches is walked once (ops joined by one they share count
as one stretch), so the walk stays linear in the traces' length.
Every other op whose inputs are identical and whose outputs differ, or which read other tensors
as above, is a dead divergence: its difference never reaches the target. Where it died is said:
overwritten (a later op wrote over its output without reading it, as loading a checkpoint
overwrites an initialisation), last read by some op whose result does not reach the target, or
never read at all.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, field

from harness.core.errors import ParityError
from harness.formats.trace import HOST_DATA_OPS, STORAGE_INSTALLS, OpRecord, TensorRef, Trace
from harness.trace.impl_ops import packet


def host_data_op(op: str) -> bool:
    """Whether ``op`` (a trace's op name) hands torch data made outside the traced process's ops: a
    tensor of NumPy or Python data (HOST_DATA_OPS) or a storage made in another process, a DataLoader
    worker's batch (STORAGE_INSTALLS). It is the writer of what it made, a root where that differs."""
    return packet(op) in HOST_DATA_OPS or op in STORAGE_INSTALLS


_OUTSIDE = "made before the trace began, or without a traced op (torch.frombuffer, a write through a NumPy view)"
_DEAD_DETAILED = 50  # dead divergences whose end is traced op by op (the rest are counted)


@dataclass
class Target:
    label: str  # "loss of step 2", "op 412", "transformer.h.0.ln_1", "optimizer state after step 2"
    ops: list[int]  # A's op indices whose outputs are the target


@dataclass
class Read:
    """An input the two runs took from other tensors, each the same in both runs (a divergence of the
    program's data flow): the op of each side that wrote it, on its own side's indices (-1: made before
    the trace), and which of its outputs where one op on both sides gave both tensors."""

    input: str  # the reading op's input name
    src_a: int  # A's op index (-1: no traced op wrote it)
    src_b: int  # B's op index (-1: no traced op wrote it)
    output_a: str = ""  # the producer's output read, where both sides read one op's (other) outputs
    output_b: str = ""
    held_a: int = -1  # A's tensor made before the trace: the first op of B that read or wrote its bits
    held_b: int = -1  # B's tensor made before the trace: the first op of A that read or wrote its bits


@dataclass
class Outside:
    """An input made outside torch's ops (no traced op wrote it on either side, in traces recorded from
    their program's start) whose bits differ: its name, and A's first op that read or wrote those bits."""

    input: str
    first: int


@dataclass
class CodePath:
    """A stretch of ops the two runs did not both run, between the aligned ops behind an input and the
    aligned op that read it: each side's first and last op of it (None: that side's writer was itself
    aligned, with another op of the other side, never both), and the op of A that handed a differing value back to
    Python before the paths parted, where none of the ops behind it differs (-1: found by reading)."""

    a_ops: tuple[int, int] | None
    b_ops: tuple[int, int] | None
    decided: int = -1

    def text(self) -> str:
        sides = [f"{side}'s ops {span[0]}..{span[1]}" for side, span in (("A", self.a_ops), ("B", self.b_ops)) if span]
        how = f", after op {self.decided} handed a value that differs back to Python" if self.decided >= 0 else ""
        return f"a code path that differs ({' and '.join(sides)} not aligned{how})"


@dataclass
class Root:
    index: int  # A's op index
    path: list[int]  # A's op indices from the root to a target op, both included
    target: str  # the label of the target it reaches
    reads: list[Read] = field(default_factory=list)  # a divergence of the data flow: the inputs read
    through: dict[int, CodePath] = field(default_factory=dict)  # op of path -> the code path to the next
    outside: list[Outside] = field(default_factory=list)  # data made outside torch's ops: the inputs read


@dataclass
class Dead:
    index: int  # A's op index
    died: str  # where its difference ends
    reads: list[Read] = field(default_factory=list)  # a divergence of the data flow: the inputs read


@dataclass
class Reach:
    target: Target
    target_differs: bool
    roots: list[Root] = field(default_factory=list)
    dead: list[Dead] = field(default_factory=list)
    dead_total: int = 0
    unresolved: list[str] = field(default_factory=list)  # by the op that read the input, earliest first

    def reads_at(self, index: int) -> list[Read]:
        """The inputs op ``index`` of A read from other tensors (empty: not a data-flow divergence)."""
        return next((x.reads for x in (*self.roots, *self.dead) if x.index == index), [])

    def outside_at(self, index: int) -> list[Outside]:
        """The inputs of data made outside torch's ops that root ``index`` of A read (empty: none)."""
        return next((x.outside for x in self.roots if x.index == index), [])


def matched(pairs: list[tuple[int | None, int | None]]) -> dict[int, int]:
    """A's op index -> B's of the aligned pairs (ops one side alone ran left out)."""
    return {i: j for i, j in pairs if i is not None and j is not None}


def _is_view(op: OpRecord) -> bool:
    """A view op: nothing it read or returned is fingerprinted (its bits are what it views)."""
    return not any(r.fingerprinted for r in (*op.inputs, *op.outputs))


def _writes_unseen(op: OpRecord) -> bool:
    """An in-place op that returns nothing (``_foreach_add_``, ``_fused_adamw_``): its result is seen
    only where a later op reads it."""
    return not op.outputs and packet(op.op).endswith("_")


def _in_place_on(op: OpRecord) -> int:
    """The op that last wrote the tensor an in-place op (``mul_``, ``lerp_``) writes over, by its
    ``self``: -1 for other ops."""
    if not packet(op.op).endswith("_"):
        return -1
    return next((r.src for r in op.inputs if r.name == "self"), -1)


def _carried_state(ops: list[OpRecord]) -> list[int]:
    """The optimizer ops that last wrote, in place, a tensor it carries from step to step (a
    parameter, a moment): a chain of in-place writes whose first ``self`` came from outside the
    step's optimizer phase. Their outputs are the state it leaves even where the same step reads them
    again (AdamW's update reads the moments it has just written); a temporary made within the step
    (the denominator: sqrt, div, add_) is not carried."""
    written_again: set[int] = set()
    carried: dict[int, bool] = {}
    for op in ops:
        src = _in_place_on(op)
        if src < 0:
            continue
        written_again.add(src)
        if op.phase == "optimizer":
            prior = ops[src]
            within = prior.phase == "optimizer" and prior.step == op.step
            carried[op.index] = carried.get(src, False) if within else True
    return [i for i, kept in carried.items() if kept and i not in written_again]


class _Graph:
    """The readers of each op's outputs in A: who read them (fingerprinted) and who overwrote them."""

    def __init__(self, ops: list[OpRecord]) -> None:
        self.readers: dict[int, list[int]] = {}
        self.overwriters: dict[int, list[int]] = {}
        for op in ops:
            if _is_view(op):
                continue
            for r in op.inputs:
                if r.src < 0:
                    continue
                if r.fingerprinted:
                    self.readers.setdefault(r.src, []).append(op.index)
                elif any(o.fingerprinted for o in op.outputs):
                    self.overwriters.setdefault(r.src, []).append(op.index)


class _Sides:
    """The two traces as the walk reads them: the aligned ops both ways, the ops whose outputs
    differ, and (on first use) where each side holds a tensor's bits."""

    def __init__(self, a: Trace, b: Trace, a2b: dict[int, int], b2a: dict[int, int], differing: dict[int, object]):
        self.a, self.b, self.a2b, self.b2a, self.differing = a, b, a2b, b2a, differing
        # recorded from the program's start (harness.trace.run): no op of the process ran before the trace
        self.whole = bool(a.attrs.get("program") and b.attrs.get("program"))
        self._held: dict[int, dict[bytes, int]] = {}

    def held(self, side: Trace, digest: bytes) -> int:
        """The first op of ``side`` that read or wrote a tensor of these bits (-1: none did)."""
        key = id(side)
        if key not in self._held:
            first: dict[bytes, int] = {}
            for op in side.ops:
                for r in (*op.inputs, *op.outputs):
                    if r.fingerprinted:
                        first.setdefault(r.digest, op.index)
            self._held[key] = first
        return self._held[key].get(digest, -1)


class _Stretches:
    """The stretches of ops one side ran and the other did not, walked back from an input's writer over
    that side's own links (``TensorRef.src``, fingerprinted inputs) to the aligned ops they read (the
    frontier). Each op is walked once per side: a walk that meets an op an earlier one walked joins
    that stretch (union-find), so all of them together stay linear in the traces' length."""

    def __init__(self, s: _Sides) -> None:
        self.s = s
        self.stretch: tuple[dict[int, int], dict[int, int]] = ({}, {})  # per side: op -> stretch id
        self.up: list[int] = []  # union-find: a stretch's parent
        self.span: list[tuple[int, int]] = []  # a stretch's first and last op, on its side's indices
        self.frontier: list[set[int]] = []  # the aligned ops it read, on its side's indices
        # A's aligned ops that returned no tensor (a value handed back to Python), in stream order
        self.decisions = [
            op.index for op in s.a.ops
            if op.index in s.a2b and not op.outputs and not packet(op.op).endswith("_")
            and any(r.fingerprinted for r in op.inputs)
        ]  # fmt: skip

    def _find(self, k: int) -> int:
        while self.up[k] != k:
            self.up[k] = self.up[self.up[k]]
            k = self.up[k]
        return k

    def _union(self, k: int, m: int) -> int:
        k, m = self._find(k), self._find(m)
        if k == m:
            return k
        if len(self.frontier[k]) < len(self.frontier[m]):
            k, m = m, k
        self.up[m] = k
        self.frontier[k] |= self.frontier[m]
        self.span[k] = (min(self.span[k][0], self.span[m][0]), max(self.span[k][1], self.span[m][1]))
        return k

    def _walk(self, side: int, start: int) -> int:
        """The stretch of side ``side`` (0: A, 1: B) that holds its unaligned op ``start``."""
        trace, aligned = (self.s.a, self.s.a2b) if side == 0 else (self.s.b, self.s.b2a)
        seen = self.stretch[side]
        if start in seen:
            return self._find(seen[start])
        k = len(self.up)
        self.up.append(k)
        self.span.append((start, start))
        self.frontier.append(set())
        seen[start] = k
        todo = [start]
        while todo:
            op = trace.ops[todo.pop()]
            for r in op.inputs:
                if not r.fingerprinted or r.src < 0:
                    continue
                if r.src in aligned:
                    self.frontier[self._find(k)].add(r.src)
                elif r.src in seen:
                    k = self._union(k, seen[r.src])
                else:
                    seen[r.src] = k
                    root = self._find(k)
                    self.span[root] = (min(self.span[root][0], r.src), max(self.span[root][1], r.src))
                    todo.append(r.src)
        return self._find(k)

    def behind(self, reader: int, src_a: int, src_b: int) -> tuple[CodePath, list[int]]:
        """The code path between A's writer ``src_a`` and B's ``src_b`` of an input of A's op ``reader``,
        and the aligned ops of A behind it that differ (empty: none found)."""
        s = self.s
        found: set[int] = set()
        spans: list[tuple[int, int] | None] = []
        for side, src, to_a in ((0, src_a, None), (1, src_b, s.b2a)):
            if src in (s.a2b if side == 0 else s.b2a):  # this side's writer is itself aligned
                spans.append(None)
                found.add(src if to_a is None else to_a[src])
                continue
            k = self._walk(side, src)
            spans.append(self.span[k])
            found.update(self.frontier[k] if to_a is None else (to_a[g] for g in self.frontier[k]))
        differ = sorted(f for f in found if self._differs(f))
        cp = CodePath(spans[0], spans[1])
        if differ:
            return cp, differ
        # none read: the paths parted on a value handed back to Python, the last before they part
        cut_a = spans[0][0] if spans[0] else reader
        cut_b = spans[1][0] if spans[1] else s.a2b[reader]
        at = bisect_left(self.decisions, cut_a) - 1
        if at >= 0:
            d = self.decisions[at]
            if s.a2b[d] < cut_b and _differing_inputs(s.a.ops[d], s.b.ops[s.a2b[d]]):
                cp.decided = d
                return cp, [d]
        return cp, []

    def _differs(self, index: int) -> bool:
        """Whether A's aligned op ``index`` gave other bits than B's (an in-place op that returns
        nothing: whether it read other bits)."""
        if index in self.s.differing:
            return True
        op = self.s.a.ops[index]
        return _writes_unseen(op) and bool(_differing_inputs(op, self.s.b.ops[self.s.a2b[index]]))


def _differing_inputs(a: OpRecord, b: OpRecord) -> list[tuple[TensorRef, TensorRef]]:
    """The tensor inputs fingerprinted on both sides whose digests differ (by position and name)."""
    return [
        (x, y)
        for x, y in zip(a.inputs, b.inputs, strict=False)
        if x.name == y.name and x.fingerprinted and y.fingerprinted and x.digest != y.digest
    ]


def default_target(a: Trace, differing: dict[int, object], losses: dict[int, OpRecord], graph: _Graph) -> Target:
    """The loss of the first step whose loss differs, and the optimizer's state after the last step."""
    ops: list[int] = []
    labels: list[str] = []
    for step in sorted(losses):
        if losses[step].index in differing:
            ops.append(losses[step].index)
            labels.append(f"the loss of step {step}")
            break
    unread = {op.index for op in a.ops if op.phase == "optimizer" and op.index not in graph.readers}
    final = [
        i for i in sorted(unread.union(_carried_state(a.ops)))
        if i in differing or _writes_unseen(a.ops[i])
    ]  # fmt: skip
    if final:
        ops += final
        labels.append(f"the optimizer's state after step {a.ops[final[-1]].step} ({len(final)} ops' outputs)")
    if not ops:
        sinks = [
            i for i in differing
            if i not in graph.readers and i not in graph.overwriters and a.ops[i].phase != "optimizer"
        ]  # fmt: skip
        ops = sorted(sinks)
        if ops:
            labels.append(f"the program's results ({len(ops)} ops' differing outputs, which nothing later reads)")
        elif losses or unread:
            labels.append("the losses and the optimizer's state, equal to the bit in both runs")
        else:
            labels.append("the program's results: no differing output is left unread")
    return Target(" and ".join(labels), ops)


def named_target(a: Trace, name: str, losses: dict[int, OpRecord]) -> Target:
    """``--target``: an op index of A, ``loss``, a module path, or a parameter name."""
    if name.isdigit():
        index = int(name)
        if index >= len(a.ops):
            raise ParityError(f"--target {name}: A has {len(a.ops)} ops (0 to {len(a.ops) - 1})")
        return Target(f"op {index} ({a.ops[index].op})", [index])
    if name == "loss":
        if not losses:
            raise ParityError("--target loss: A has no loss (a 0-d float computed before a backward pass)")
        return Target("the loss of every step", [op.index for op in losses.values()])
    modules = [op.index for op in a.ops if op.module == name and op.phase in ("forward", "other")]
    if modules:
        return Target(f"the output of {name} (op {modules[-1]})", [modules[-1]])
    params = [op.index for op in a.ops if op.phase == "optimizer" and op.module.endswith(f"({name})")]
    if params:
        return Target(f"parameter {name} after the last step (op {params[-1]})", [params[-1]])
    raise ParityError(
        f"--target {name}: not an op index of A, 'loss', a module path or a parameter A's optimizer wrote"
    )


def reach(
    a: Trace,
    b: Trace,
    pairs: list[tuple[int | None, int | None]],
    differing: dict[int, object],
    losses: dict[int, OpRecord],
    target_name: str = "",
) -> Reach:
    """The root causes that reach the target, their paths, and the divergences that do not."""
    a2b = matched(pairs)
    b2a = {j: i for i, j in a2b.items()}
    graph = _Graph(a.ops)
    sides = _Sides(a, b, a2b, b2a, differing)
    target = named_target(a, target_name, losses) if target_name else default_target(a, differing, losses, graph)
    start = [
        i for i in target.ops
        if i in differing or (_writes_unseen(a.ops[i]) and i in a2b and _differing_inputs(a.ops[i], b.ops[a2b[i]]))
    ]  # fmt: skip
    out = Reach(target, bool(start))
    parent: dict[int, int] = {}
    queue = deque(start)
    seen = set(queue)
    roots: list[int] = []
    reads: dict[int, list[Read]] = {}
    outside: dict[int, list[Outside]] = {}
    unresolved: dict[str, int] = {}  # why -> the op of A that read the input
    stretches = _Stretches(sides)
    via: dict[int, CodePath] = {}  # an op reached through a code path -> that code path
    while queue:
        i = queue.popleft()
        oa, ob = a.ops[i], b.ops[a2b[i]]
        inputs = _differing_inputs(oa, ob)
        if not inputs and oa.args != ob.args:
            why = f"op {i} ({oa.op}) differs in its non-tensor arguments: {oa.args} vs {ob.args}"
            unresolved.setdefault(why, i)
            continue
        if not inputs:
            roots.append(i)
            continue
        for x, y in inputs:
            why, src, read, parted = _follow(sides, i, x, y)
            if read is not None:
                reads.setdefault(i, []).append(read)
                continue
            if parted is not None:
                cp, behind = stretches.behind(i, *parted)
                if not behind:
                    why += (
                        f", and behind {cp.text()} no op both runs ran differs: the paths part on data the "
                        "trace does not hold (a decision in Python on data no traced op saw)"
                    )
                    unresolved.setdefault(why, i)
                for f in behind:
                    if f not in seen:
                        seen.add(f)
                        parent[f] = i
                        via[f] = cp
                        queue.append(f)
                continue
            if why and x.src < 0 and y.src < 0 and x.name != "generator_state" and sides.whole:
                outside.setdefault(i, []).append(Outside(x.name, sides.held(a, x.digest)))
                continue
            if why:
                unresolved.setdefault(why, i)
                continue
            if src not in seen:
                seen.add(src)
                parent[src] = i
                queue.append(src)
        if i in reads or i in outside:
            roots.append(i)
    for i in sorted(roots):
        path = [i]
        while path[-1] in parent:
            path.append(parent[path[-1]])
        end = a.ops[path[-1]]
        through = {k: via[k] for k in path[:-1] if k in via}
        target = f"op {end.index} ({end.op})"
        out.roots.append(Root(i, path, target, reads.get(i, []), through, outside.get(i, [])))
    out.unresolved = sorted(unresolved, key=unresolved.__getitem__)  # the earliest reader first
    live = set(roots)
    dead: list[tuple[int, list[Read]]] = []
    for i in sorted(differing):
        inputs = [] if i in live else _differing_inputs(a.ops[i], b.ops[a2b[i]])
        if i in live or (inputs and a.ops[i].args != b.ops[a2b[i]].args):
            continue
        found = [r for x, y in inputs if (r := _data_flow(sides, x, y)) is not None]
        if not inputs or found:
            dead.append((i, found))
    out.dead_total = len(dead)
    out.dead = [Dead(i, _died(a, b, a2b, i, differing, graph), found) for i, found in dead[:_DEAD_DETAILED]]
    return out


def _output_read(op: OpRecord, ref: TensorRef) -> str:
    """The name of ``op``'s output that has ``ref``'s bits ("" if none)."""
    return next((o.name for o in op.outputs if o.fingerprinted and o.digest == ref.digest), "")


def _data_flow(s: _Sides, x: TensorRef, y: TensorRef) -> Read | None:
    """``x`` (A) and ``y`` (B), an input that differs, as a divergence of the data flow: the two sides
    read other tensors, each of them the same in both runs (None: not so, or the trace cannot tell).
    A tensor made before the trace is the same in both runs where the other side too held its bits
    (read or wrote a tensor of its digest): then two such tensors are told apart by their bits. An
    in-place op that returns nothing cannot say whether what it wrote is the same in both runs: never
    such a producer."""
    src_a, src_b = x.src, y.src
    if x.name == "generator_state":
        return None
    held_a = s.held(s.b, x.digest) if src_a < 0 else -1
    held_b = s.held(s.a, y.digest) if src_b < 0 else -1
    same_a = held_a >= 0 if src_a < 0 else (
        src_a in s.a2b and src_a not in s.differing and not _writes_unseen(s.a.ops[src_a])
    )  # fmt: skip
    same_b = held_b >= 0 if src_b < 0 else (
        src_b in s.b2a and s.b2a[src_b] not in s.differing and not _writes_unseen(s.b.ops[src_b])
    )  # fmt: skip
    if not (same_a and same_b):
        return None
    if src_a < 0 or src_b < 0 or s.a2b.get(src_a) != src_b:
        return Read(x.name, src_a, src_b, held_a=held_a, held_b=held_b)
    out_a, out_b = _output_read(s.a.ops[src_a], x), _output_read(s.b.ops[src_b], y)
    if out_a and out_b and out_a != out_b:
        return Read(x.name, src_a, src_b, out_a, out_b)
    return None


def _follow(s: _Sides, i: int, x: TensorRef, y: TensorRef) -> tuple[str, int, Read | None, tuple[int, int] | None]:
    """The op of A the walk goes on to from op ``i``'s differing input, or why it cannot ("", the op),
    or the input as a divergence of the data flow (the other tensors the two sides read), or its two
    writers where they are not aligned (a code path: why, and A's and B's writer, for ``_Stretches``).

    An in-place writer that gave the same bits (a padding row zeroed after the initialisation, a
    slice filled) wrote only part of the storage the input views: the difference is in what the
    storage's previous writer left, its ``self``'s writer, and the walk goes on to it."""
    read = _data_flow(s, x, y)
    if read is not None:
        return "", -1, read, None
    a, b, a2b, differing = s.a, s.b, s.a2b, s.differing
    where = f"input {x.name} of op {i} ({a.ops[i].op})"
    src_a, src_b = x.src, y.src
    while True:
        if src_a < 0 or src_b < 0:
            if x.name == "generator_state":
                return f"{where}: {_generator_note(x.sum, y.sum)}", -1, None, None
            return f"{where} differs and no traced op wrote it ({_OUTSIDE})", -1, None, None
        if a2b.get(src_a) != src_b:
            why = f"{where} was written by op {src_a} in A and op {src_b} in B, which are not aligned (a code path)"
            # a stretch of ops one side ran alone lies behind it (two aligned writers: the program read
            # another tensor, a data flow whose producer differs too, which no stretch explains)
            parted = src_a not in a2b or src_b not in s.b2a
            return why, -1, None, (src_a, src_b) if parted else None
        if src_a in differing or _writes_unseen(a.ops[src_a]):
            return "", src_a, None, None
        writer = a.ops[src_a]
        if not (packet(writer.op).endswith("_") and packet(b.ops[src_b].op).endswith("_")):
            why = f"{where} differs, but op {src_a} ({writer.op}) that wrote it gave the same bits: written since"
            return why, -1, None, None
        src_a, src_b = _in_place_on(writer), _in_place_on(b.ops[src_b])  # -1: a storage made before the trace


def _generator_note(seed_a: float, seed_b: float) -> str:
    """Why two runs' generator states differ, by their initial seeds (NaN in traces that lack them)."""
    if seed_a == seed_a and seed_b == seed_b and seed_a != seed_b:
        exact = max(seed_a, seed_b) < 2**53  # the trace keeps a seed as a float64
        seeds = f"initial seed {seed_a:.0f} in A, {seed_b:.0f} in B" if exact else "two different 64-bit initial seeds"
        return (
            f"the random generator was seeded differently ({seeds}): a seed made at run time (torch.seed(), or "
            "one from outside the program) differs from run to run, on any platform"
        )
    return "the random generator's state differs (earlier draws differ in number)"


def _reads_difference(a: Trace, b: Trace, a2b: dict[int, int], op: OpRecord, sources: set[int]) -> bool:
    """Whether ``op`` of A reads, from one of the ops ``sources``, an input whose bits differ from B's
    (an op that writes in place without returning: whether it reads from them at all)."""
    if op.index not in a2b:
        return any(r.fingerprinted and r.src in sources for r in op.inputs)
    return any(x.src in sources for x, _ in _differing_inputs(op, b.ops[a2b[op.index]]))


def _died(a: Trace, b: Trace, a2b: dict[int, int], index: int, differing: dict[int, object], graph: _Graph) -> str:
    """Where a dead divergence's difference ends: the later ops it reaches read other bits from it (a
    reader that differs for a cause of its own, reading the same bits from it on both sides, is not one)."""
    over = graph.overwriters.get(index, [])
    readers = [
        r for r in graph.readers.get(index, [])
        if (r in differing or _writes_unseen(a.ops[r])) and _reads_difference(a, b, a2b, a.ops[r], {index})
    ]  # fmt: skip
    if not readers:
        if over:
            return f"overwritten by {a.ops[over[0]].op} at op {over[0]} before anything read it"
        if any(r in differing for r in graph.readers.get(index, [])):
            return "read, but its readers take the same bits from it on both sides (they differ for other causes)"
        if graph.readers.get(index):
            return "read, but the ops that read it give the same bits on both sides"
        return "nothing reads its differing outputs"
    # forward: the last op its difference reaches
    reached = {index}
    last = index
    for op in a.ops[index + 1 :]:
        if (op.index in differing or _writes_unseen(op)) and _reads_difference(a, b, a2b, op, reached):
            reached.add(op.index)
            last = op.index
    end = a.ops[last]
    tail = f", then overwritten by {a.ops[over[0]].op} at op {over[0]}" if over else ""
    return f"its difference reaches {len(reached) - 1} later ops, the last op {last} ({end.op}), and stops there{tail}"
