"""nanoGPT fixtures: 50 training steps with everything needed to prove or disprove parity.

Layout inside the store (see ``harness.store``)::

    /                         attrs: kind "nanogpt", config, param_names, param_shapes,
                                     digest, digest_kinds, full_steps, deterministic, input_digest, ...
    /init/<param>             initial weights, in full (when full_init)
    /init_digests, /init_sums  (P, 32) uint8 and (P,) float64: their digests and float64 sums
    /steps/<NNNN>             attrs: lr (float64), loss_value, full
        x, y                  the batch (int64, batch x block)
        loss, grad_norm, clip_coef   0-d float32: the loss, the pre-clip total gradient norm,
                              and the clip coefficient applied
        logits_digest         (32,) uint8: the digest of the logits
        dropout_mask_digests  (k, 32) uint8: the digest of each dropout keep-mask (bool), in the
                              order torch drew them (embedding, then per block attention
                              weights, attention output, MLP output)
        digests               (P, 5, 32) uint8: per parameter and digest kind, the digest of the
                              tensor's raw bytes
        sums                  (P, 5) float64: per parameter and kind, the float64 sum
        full/<kind>/<param>   the tensors themselves, at the steps in ``full_steps``

Digests and sums are by the algorithm the root's ``digest`` attribute names (``harness.core.digest``:
``mix256-v1`` today). Fixtures written before it was named carry SHA-256 digests and NumPy's
sums, no ``digest`` attribute, and name three records after SHA-256: ``init_sha256``,
``logits_sha256`` and ``dropout_mask_sha256``; they are read as such (``LEGACY_NAMES``). A
reader that predates the attribute finds those three missing in a newer fixture and refuses it
rather than misread its digests.

Digest kinds, in execution order: grad_preclip (after backward), grad (after clipping),
value (the parameter after the optimiser step), exp_avg and exp_avg_sq (AdamW's moments).
This module never imports torch.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from harness.core.digest import ALGORITHM, LEGACY, check_algorithm, fingerprints
from harness.core.errors import FixtureError, ParityError
from harness.store import FixtureReader, FixtureWriter, json_attr, spec, tensor_digest
from harness.workloads.nanogpt import TrainConfig, get_lr

KIND = "nanogpt"
DIGEST_KINDS = ("grad_preclip", "grad", "value", "exp_avg", "exp_avg_sq")
FULL_KINDS = ("grad", "value", "exp_avg", "exp_avg_sq")
_STEP_TENSORS = (
    "x",
    "y",
    "loss",
    "grad_norm",
    "clip_coef",
    "logits_digest",
    "dropout_mask_digests",
    "digests",
    "sums",
)


STORAGE_ONLY = ("full_steps",)  # config keys that decide what is stored, not what is trained


@dataclass
class StepRecord:
    step: int
    lr: float
    x: np.ndarray
    y: np.ndarray
    loss: np.ndarray
    grad_norm: np.ndarray
    clip_coef: np.ndarray
    logits_digest: np.ndarray
    dropout_mask_digests: np.ndarray
    digests: np.ndarray
    sums: np.ndarray
    full: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)

    def tensors(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in _STEP_TENSORS}

    def same_bits(self, other: StepRecord) -> bool:
        """Every recorded digest, scalar and batch of the two steps is bit-identical."""
        return self.lr == other.lr and all(
            tensor_digest(a) == tensor_digest(b)
            for a, b in zip(self.tensors().values(), other.tensors().values(), strict=True)
        )


@dataclass
class NanoGPTRun:
    param_names: list[str]
    init: dict[str, np.ndarray]  # empty when a fixture was written without full initial weights
    steps: list[StepRecord]
    init_digests: np.ndarray = field(default_factory=lambda: np.zeros((0, 32), np.uint8))
    init_sums: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float64))
    digest: str = ALGORITHM  # the algorithm of every digest and sum (harness.core.digest)

    def __post_init__(self) -> None:
        if self.init and not len(self.init_digests):
            self.init_digests, self.init_sums = fingerprints([self.init[n] for n in self.param_names], self.digest)


@dataclass
class NanoGPTFixture:
    kind: ClassVar[str] = KIND
    path: Path
    attrs: dict[str, Any]
    run: NanoGPTRun

    @property
    def provenance(self) -> dict[str, Any]:
        return self.attrs.get("provenance", {})

    @property
    def config(self) -> dict[str, Any]:
        return self.attrs.get("config", {})

    @property
    def training_digest(self) -> str:
        """The input digest without what only decides what the fixture stores (``full_steps``): equal
        for two runs of the same training whichever steps each kept in full."""
        config = {k: v for k, v in self.config.items() if k not in STORAGE_ONLY}
        return input_digest_of(config, [(tensor_digest(rec.x), tensor_digest(rec.y)) for rec in self.run.steps])


def step_group(step: int) -> str:
    return f"steps/{step:04d}"


# records a fixture of SHA-256 names after it (see the module docstring)
LEGACY_NAMES = {
    "init_digests": "init_sha256",
    "logits_digest": "logits_sha256",
    "dropout_mask_digests": "dropout_mask_sha256",
}


def stored_name(name: str, algorithm: str) -> str:
    """The name under which a fixture digesting with ``algorithm`` stores record ``name``."""
    return LEGACY_NAMES.get(name, name) if algorithm == LEGACY else name


def digest_attr(algorithm: str) -> dict[str, str]:
    """The root attribute naming ``algorithm``: none for SHA-256, so that a fixture of SHA-256 digests
    is laid out as fixtures were before the attribute, and readers of that time read it."""
    return {} if algorithm == LEGACY else {"digest": algorithm}


def fixture_digest(reader: FixtureReader) -> str:
    """The digest algorithm a fixture names (SHA-256 where it names none); a one-line error for one
    this version does not know."""
    try:
        return check_algorithm(reader.attrs("/").get("digest", LEGACY))
    except ParityError as err:
        raise FixtureError(reader.path, str(err)) from None


def hex_digest(digest: np.ndarray) -> str:
    return bytes(np.asarray(digest, dtype=np.uint8)).hex()


def input_digest(config: dict[str, Any], steps: list[StepRecord]) -> str:
    """SHA-256 over the training config and every step's batch: what the run was given."""
    return input_digest_of(config, [(tensor_digest(rec.x), tensor_digest(rec.y)) for rec in steps])


def input_digest_of(config: dict[str, Any], batches: list[tuple[str, str]]) -> str:
    """The input digest from the config and each step's (x, y) digests."""
    h = hashlib.sha256(json_attr(config).encode())
    for x, y in batches:
        h.update(x.encode())
        h.update(y.encode())
    return h.hexdigest()


def write_nanogpt_fixture(
    path: str | Path, provenance: dict[str, Any], config: dict[str, Any], run: NanoGPTRun,
    *, deterministic: bool, first_nondeterministic_step: int = 0, full_init: bool = True,
    force: bool = False,
) -> int:  # fmt: skip
    """Write a nanoGPT fixture atomically; returns the bytes of distinct tensor data."""
    with FixtureWriter(path, KIND, force=force) as writer:
        writer.set_attrs(
            "/",
            {
                "provenance": provenance,
                "config": config,
                "torch_version": provenance.get("torch_version", ""),
                "platform_id": provenance.get("platform_id", ""),
                "input_digest": input_digest(config, run.steps),
                "param_names": run.param_names,
                "param_shapes": [list(run.init[n].shape) for n in run.param_names],
                "full_init": full_init,
                **digest_attr(run.digest),
                "digest_kinds": list(DIGEST_KINDS),
                "full_steps": [r.step for r in run.steps if r.full],
                "steps": len(run.steps),
                "deterministic": deterministic,
                "first_nondeterministic_step": first_nondeterministic_step,
            },
        )
        put_run(writer, run, full_init=full_init)
        return writer.bytes_written


def put_run(writer: FixtureWriter, run: NanoGPTRun, *, full_init: bool) -> None:
    """The initial weights and every step's records of ``run`` (the layout of the module docstring).

    A step's ``loss_value`` is its loss, or the mean of its micro-steps' losses where it has several.
    """
    writer.put("/", stored_name("init_digests", run.digest), run.init_digests)
    writer.put("/", "init_sums", run.init_sums)
    if full_init:
        for name in run.param_names:
            writer.put("init", name, run.init[name])
    for rec in run.steps:
        group = step_group(rec.step)
        for name, arr in rec.tensors().items():
            writer.put(group, stored_name(name, run.digest), arr)
        for kind, tensors in rec.full.items():
            for name, arr in tensors.items():
                writer.put(f"{group}/full/{kind}", name, arr)
        loss = float(np.mean(rec.loss, dtype=np.float64))
        writer.set_attrs(group, {"lr": float(rec.lr), "loss_value": loss, "full": bool(rec.full)})


_ROOT_TYPES: dict[str, type] = {
    "provenance": dict, "config": dict, "torch_version": str, "platform_id": str, "input_digest": str,
    "param_names": list, "param_shapes": list, "full_init": bool, "digest_kinds": list, "full_steps": list,
    "steps": int, "deterministic": bool, "first_nondeterministic_step": int,
}  # fmt: skip
_STEP_TYPES: dict[str, type | tuple[type, ...]] = {"lr": float, "loss_value": float, "full": bool}


def _damaged(reader: FixtureReader, problem: str) -> FixtureError:
    return FixtureError(reader.path, f"damaged fixture: {problem}")


def _expect(reader: FixtureReader, path: str, dtype: str, shape: tuple[int, ...]) -> str:
    key = reader.key(path)
    if (key.dtype, key.shape) != (dtype, shape):
        raise _damaged(reader, f"{path} is {key.dtype}{list(key.shape)}, expected {dtype}{list(shape)}")
    return key.digest


def _expect_names(reader: FixtureReader, group: str, tensors: list[str], groups: list[str]) -> None:
    if reader.tensor_names(group) != tensors or sorted(reader.groups(group)) != sorted(groups):
        have = [*reader.tensor_names(group), *reader.groups(group)]
        missing = [n for n in [*tensors, *groups] if n not in have]
        raise (
            FixtureError(reader.path, f"incomplete fixture: {group} lacks {', '.join(missing[:4])}")
            if missing
            else _damaged(reader, f"{group} does not hold what a nanoGPT fixture holds there")
        )


def _train_config(reader: FixtureReader, config: dict[str, Any]) -> TrainConfig | None:
    """The training config a fixture names (for its learning-rate schedule); None for a config
    of fields this version does not know."""
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    if not set(config) <= fields:
        return None
    try:
        return TrainConfig(**{**config, "full_steps": tuple(config.get("full_steps", ()))})
    except TypeError:
        raise _damaged(reader, "its config lacks training settings") from None


def _scheduled_lr(reader: FixtureReader, step: int, cfg: TrainConfig) -> float:
    try:
        return get_lr(step - 1, cfg)
    except (TypeError, ValueError, ArithmeticError):
        raise _damaged(reader, "its config's learning-rate schedule is not numbers") from None


def check_nanogpt_fixture(reader: FixtureReader) -> None:
    """Structure, completeness and consistency of a nanoGPT fixture, before any tensor is read:
    every step from 1 to ``steps`` with every record, shapes that agree with the parameters and
    the config, full tensors exactly at ``full_steps``, and the input digest recomputed."""
    attrs = reader.require_attrs("/", _ROOT_TYPES)
    spec.check_identity(reader.path, attrs)
    config, names, shapes = attrs["config"], attrs["param_names"], attrs["param_shapes"]
    steps = attrs["steps"]
    if config.get("steps") != steps or not 1 <= steps <= 100_000:
        raise _damaged(reader, f"its step count {steps} is not its config's ({config.get('steps')})")
    if list(attrs["digest_kinds"]) != list(DIGEST_KINDS):
        raise _damaged(reader, "its digest kinds are not the known ones")
    ok_shapes = all(isinstance(s, list) and all(isinstance(d, int) and d >= 0 for d in s) for s in shapes)
    if len(names) != len(shapes) or not ok_shapes or not all(isinstance(n, str) for n in names) or not names:
        raise _damaged(reader, "its parameter names and shapes do not agree")
    full_steps = attrs["full_steps"]
    if not all(isinstance(s, int) and 1 <= s <= steps for s in full_steps):
        raise _damaged(reader, f"full_steps {full_steps} lie outside steps 1..{steps}")
    n_params = len(names)
    algorithm = fixture_digest(reader)
    init_digests = stored_name("init_digests", algorithm)
    step_names = {name: stored_name(name, algorithm) for name in _STEP_TENSORS}
    _expect_names(reader, "/", [init_digests, "init_sums"], ["init", "steps"] if attrs["full_init"] else ["steps"])
    _expect(reader, init_digests, "uint8", (n_params, 32))
    _expect(reader, "init_sums", "float64", (n_params,))
    if attrs["full_init"]:
        _expect_names(reader, "init", names, [])
        for name, shape in zip(names, shapes, strict=True):
            _expect(reader, f"init/{name}", "float32", tuple(shape))
    _expect_names(reader, "steps", [], [step_group(s).split("/")[1] for s in range(1, steps + 1)])
    schedule = _train_config(reader, config)
    batches = []
    n_layer, dropout = config.get("n_layer"), config.get("dropout")
    if not isinstance(n_layer, int) or isinstance(n_layer, bool) or not isinstance(dropout, (int, float)):
        raise _damaged(reader, "its config's n_layer or dropout is not a number")
    n_masks = 1 + 3 * n_layer if dropout else 0  # the embedding's, then three per block
    for step in range(1, steps + 1):
        group = step_group(step)
        full = step in full_steps
        step_attrs = reader.require_attrs(group, _STEP_TYPES)
        if step_attrs["full"] != full:
            raise _damaged(reader, f"{group} says full={not full}, its full_steps say otherwise")
        if schedule is not None and step_attrs["lr"] != _scheduled_lr(reader, step, schedule):
            raise _damaged(reader, f"{group}'s lr {step_attrs['lr']} is not its config's schedule")
        _expect_names(reader, group, list(step_names.values()), ["full"] if full else [])
        x = reader.key(f"{group}/x")
        if x.dtype != "int64" or len(x.shape) != 2:
            raise _damaged(reader, f"{group}/x is {x.dtype}{list(x.shape)}, not a batch of tokens")
        batches.append((x.digest, _expect(reader, f"{group}/y", "int64", x.shape)))
        for name in ("loss", "grad_norm", "clip_coef"):
            _expect(reader, f"{group}/{name}", "float32", ())
        _expect(reader, f"{group}/{step_names['logits_digest']}", "uint8", (32,))
        _expect(reader, f"{group}/{step_names['dropout_mask_digests']}", "uint8", (n_masks, 32))
        _expect(reader, f"{group}/digests", "uint8", (n_params, len(DIGEST_KINDS), 32))
        _expect(reader, f"{group}/sums", "float64", (n_params, len(DIGEST_KINDS)))
        if full:
            _expect_names(reader, f"{group}/full", [], list(FULL_KINDS))
            for kind in FULL_KINDS:
                _expect_names(reader, f"{group}/full/{kind}", names, [])
                for name, shape in zip(names, shapes, strict=True):
                    _expect(reader, f"{group}/full/{kind}/{name}", "float32", tuple(shape))
    if input_digest_of(config, batches) != attrs["input_digest"]:
        raise _damaged(reader, "the input digest does not match its config and batches")


def read_nanogpt_fixture(path: str | Path, *, full: bool = True) -> NanoGPTFixture:
    """Read a nanoGPT fixture after checking it whole; ``full=False`` skips full tensors."""
    with FixtureReader(path, kind=KIND) as reader:
        check_nanogpt_fixture(reader)
        attrs = reader.attrs("/")
        return NanoGPTFixture(Path(path), attrs, read_run(reader, attrs, full=full))


def read_run(reader: FixtureReader, attrs: dict[str, Any], *, full: bool) -> NanoGPTRun:
    """The initial weights and every step's records of a checked fixture (``put_run``'s layout);
    ``full=False`` skips the tensors stored in full."""
    names = list(attrs["param_names"])
    algorithm = fixture_digest(reader)
    step_names = {name: stored_name(name, algorithm) for name in _STEP_TENSORS}
    init = {name: reader.tensor(f"init/{name}") for name in names} if attrs.get("full_init") else {}
    steps = []
    for step in range(1, int(attrs["steps"]) + 1):
        group = step_group(step)
        tensors = {name: reader.tensor(f"{group}/{stored}") for name, stored in step_names.items()}
        rec = StepRecord(step, float(reader.attrs(group)["lr"]), **tensors)
        if full and reader.has(f"{group}/full"):
            rec.full = {
                kind: dict(reader.iter_tensors(f"{group}/full/{kind}")) for kind in reader.groups(f"{group}/full")
            }
        steps.append(rec)
    init_digests = reader.tensor(stored_name("init_digests", algorithm))
    return NanoGPTRun(names, init, steps, init_digests, reader.tensor("init_sums"), algorithm)
