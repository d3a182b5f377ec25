"""The 26 recorded op ids, in recording order, and the model ops recorded as random cases only.
Torch-free, so every module can name them."""

from __future__ import annotations

from harness.core.errors import ParityError

OP_IDS: tuple[str, ...] = (
    "randn",
    "embedding",
    "add",
    "mul",
    "div",
    "exp",
    "log",
    "tanh",
    "rsqrt",
    "linear",
    "matmul",
    "layer_norm",
    "gelu",
    "gelu_tanh",
    "softmax",
    "log_softmax",
    "cross_entropy",
    "sdpa",
    "sdpa_dropout",
    "dropout",
    "sum",
    "mean",
    "var",
    "vector_norm",
    "clip_grad_norm",
    "adamw_step",
)


# Ops that models run and the impl reproduces (for ``parity trace --verify-cause``), recorded only as
# seeded random cases (harness/workloads/random_cases.py MODEL_GROUPS): no fixed case, no spec entry.
MODEL_OP_IDS: tuple[str, ...] = (
    "uniform",
    "normal",
    "trunc_normal",
    "kaiming_uniform",
    "bernoulli",
    "native_dropout",
    "silu",
    "sigmoid",
    "pow",
    "cumsum",
    "where",
    "masked_fill",
    "safe_softmax",
    "flash_attention",
    "batch_norm",
    "max_pool2d",
    "adaptive_avg_pool2d",
    "conv2d",
    "rms_norm",
    "embedding_padded",
)


def parse_op_list(text: str, known: tuple[str, ...] = OP_IDS) -> list[str]:
    """A comma-separated op subset, checked against ``known`` (the fixture ops; a random-case
    recording's ``OP_IDS + MODEL_OP_IDS``); empty means all of ``known``."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ParityError(f"unknown op(s): {', '.join(unknown)} (known: {', '.join(known)})")
    return names or list(known)
