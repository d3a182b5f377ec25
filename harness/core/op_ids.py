"""The 26 recorded op ids, in recording order. Torch-free, so every module can name them."""

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


def parse_op_list(text: str) -> list[str]:
    """A comma-separated op subset, checked against OP_IDS; empty means all."""
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in OP_IDS]
    if unknown:
        raise ParityError(f"unknown op(s): {', '.join(unknown)} (known: {', '.join(OP_IDS)})")
    return names or list(OP_IDS)
