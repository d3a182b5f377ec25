"""Named LSTM layers, torch's ``mkldnn_rnn_layer`` and its backward against harness.impl.rnn, for
tests/test_impl_arm64_lstm.py; imports only NumPy and the impl (torch where it records), so that
``python tools/emulate_arm64.py run --cores C --threads N -- tests/lstm_cases.py`` records, under
emulation, the digests the test holds (one JSON line: case -> the digests of out, hy, cy and, in
training, grad_x, grad_w_ih, grad_w_hh, grad_b, grad_h0, grad_c0).

Also tests/test_impl_live_lstm.py's cases (torch run now, per x86 level). Between them they take
both directions, biases or none, one batch row, inference (x86's brgemm RNN from AVX2 up, fused or
not, merged or not), the input product per step (128 batch rows and more), the no-copy sgemm forced
and by its checker (x86), thread splits of the sgemms' K (the weight gradients' sgemms over T*B
terms) and hidden sizes off the vectors.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from harness.impl import rnn

# (name, T, B, I, H, reverse, bias, train, seed)
CASES = (
    ("tagger-layer", 6, 4, 32, 48, False, True, True, 1),
    ("reverse", 5, 3, 17, 24, True, True, True, 2),
    ("no-bias", 3, 2, 33, 20, False, False, True, 3),
    ("one-row", 4, 1, 9, 16, False, True, True, 4),  # x86: the gemv 'N' kernels
    ("inference", 5, 3, 9, 12, False, True, False, 5),  # x86: the brgemm RNN from AVX2 up
    ("inference-fused", 4, 3, 24, 24, False, True, False, 10),  # brgemm: x's and h's terms in one chain
    ("inference-one-row", 5, 1, 10, 20, True, True, False, 11),  # brgemm: the input product merged
    ("long-wide", 9, 33, 40, 31, True, True, True, 6),
    ("hidden-130", 6, 5, 40, 130, False, True, True, 7),
    ("batch-130", 3, 130, 12, 20, False, True, True, 8),  # the input product per step
    ("hidden-520", 2, 7, 300, 520, True, True, True, 9),  # x86: the no-copy sgemm by its checker
)
NAMES = ("out", "hy", "cy", "grad_x", "grad_w_ih", "grad_w_hh", "grad_b", "grad_h0", "grad_c0")


def inputs(case: tuple) -> dict[str, np.ndarray]:
    """x, the weights and biases, h0, c0 and the gradients of out, hy and cy."""
    _, t_len, batch, n_in, hidden, _rev, _bias, _train, seed = case
    rng = np.random.default_rng(seed)
    shapes = {
        "x": (t_len, batch, n_in), "w_ih": (4 * hidden, n_in), "w_hh": (4 * hidden, hidden), "b_ih": (4 * hidden,),
        "b_hh": (4 * hidden,), "h0": (batch, hidden), "c0": (batch, hidden), "grad_out": (t_len, batch, hidden),
        "grad_hy": (batch, hidden), "grad_cy": (batch, hidden),
    }  # fmt: skip
    arrays = {name: rng.standard_normal(shape, np.float32) for name, shape in shapes.items()}
    arrays["w_ih"] *= np.float32(0.3)
    arrays["w_hh"] *= np.float32(0.3)
    return arrays


def digest(x: np.ndarray) -> str:
    """The first 16 hex digits of the SHA-256 of a float32 array's little-endian bits (as
    tests/impl_intel_mkl.py ``digest``)."""
    return hashlib.sha256(np.ascontiguousarray(x, np.float32).view(np.uint32).astype("<u4").tobytes()).hexdigest()[:16]


def impl_outputs(case: tuple, profile: Any) -> tuple[np.ndarray, ...]:
    """The impl's outputs of ``case`` under ``profile``, in ``NAMES`` order (the first three in
    inference)."""
    _, _t, _b, _i, _h, reverse, bias, train, _seed = case
    a = inputs(case)
    b_ih, b_hh = (a["b_ih"], a["b_hh"]) if bias else (None, None)
    out = rnn.lstm_layer(a["x"], a["w_ih"], a["w_hh"], b_ih, b_hh, a["h0"], a["c0"], reverse, train, profile)
    if not train:
        return tuple(out)
    grads = rnn.lstm_layer_backward(
        a["x"], a["w_ih"], a["w_hh"], b_ih, b_hh, a["h0"], a["c0"], a["grad_out"], a["grad_hy"], a["grad_cy"], reverse,
        profile,
    )  # fmt: skip
    return (*out, *grads)


def torch_outputs(case: tuple) -> tuple[np.ndarray, ...]:
    """Torch's, as ``impl_outputs`` gives them (the bias gradient once)."""
    import torch

    _, _t, _b, _i, hidden, reverse, bias, train, _seed = case
    t = {name: torch.from_numpy(v) for name, v in inputs(case).items()}
    b_ih, b_hh = (t["b_ih"], t["b_hh"]) if bias else (torch.zeros(0), torch.zeros(0))
    with torch.set_grad_enabled(train):
        out = torch.ops.aten.mkldnn_rnn_layer(
            t["x"], t["w_ih"], t["w_hh"], b_ih, b_hh, t["h0"], t["c0"], reverse, [], 2, hidden, 1, bias, False, False,
            train,
        )  # fmt: skip
        if not train:
            return tuple(o.numpy() for o in out[:3])
        grads = torch.ops.aten.mkldnn_rnn_layer_backward(
            t["x"], t["w_ih"], t["w_hh"], b_ih, b_hh, t["h0"], t["c0"], *out[:3], t["grad_out"], t["grad_hy"],
            t["grad_cy"], reverse, 2, hidden, 1, bias, True, False, [], False, out[3],
        )  # fmt: skip
    return tuple(o.detach().numpy() for o in (*out[:3], *grads[:4], *grads[5:]))


if __name__ == "__main__":
    print(json.dumps({case[0]: " ".join(digest(o) for o in torch_outputs(case)) for case in CASES}))
