"""Random Adam, AdamW and SGD steps by torch.optim's three CPU paths, for tests/test_impl_arm64_optim.py;
imports only NumPy (torch where it records), so that ``python tools/emulate_arm64.py run --cores C
--threads 4 -- tests/optim_arm64_cases.py OUT.npz`` records, under emulation, every parameter's and
every state tensor's uint32 bits at 1, 2 and 4 threads (torch.set_num_threads in one process), and
the bits of the foreach ops' ``maximum`` and ``add(alpha=)`` kernels on NaNs, infinities and signed zeros.

Every path (for-loop, foreach, fused) meets every combination of Adam's L2 term or AdamW's decay (or
none), amsgrad and maximize, and of SGD's momentum (none, with dampening, nesterov), maximize and weight
decay. Hyperparameters are drawn (lr, betas with 1 - beta1 on both sides of lerp's 0.5, eps, weight
decay, momentum, dampening), a fused Adam case in four reads its lr from a float32 tensor, every case
takes 3 steps over 2 or 3 tensors whose lengths fall off the 4- and 8-lane vectors, the fused kernels'
16-float units and (one case in four) past the 32,768-element grain; one case in five has NaNs (both
signs), infinities, signed zeros and a huge value in its gradients.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import numpy as np

PATHS = ("for-loop", "foreach", "fused")
THREADS = (1, 2, 4)
STEPS = 3
SPECIAL_BITS = np.array(
    [0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000, 0x7149F2CA], np.uint32
)  # +qNaN, -qNaN, +inf, -inf, +0, -0, 1e30
EW_SIZES = (5, 33, 1000, 70001)
EW_WEIGHTS = (0.7, -1.5, 1.0)


def _combos() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in PATHS:
        for decay in ("none", "l2", "decoupled"):
            for amsgrad in (False, True):
                for maximize in (False, True):
                    out.append({"opt": "adam", "path": path, "decay": decay, "amsgrad": amsgrad, "maximize": maximize})
        for momentum in ("none", "dampened", "nesterov"):
            for decay in (False, True):
                for maximize in (False, True):
                    out.append({"opt": "sgd", "path": path, "momentum": momentum, "decay": decay, "maximize": maximize})
    return out


def cases() -> list[dict[str, Any]]:
    """Every case's optimizer, path, flags and drawn hyperparameters, and the seed of its tensors."""
    rng = np.random.default_rng(2130)
    out = []
    for i, c in enumerate(_combos()):
        c = dict(c, seed=1000 + i, lr=float(10 ** rng.uniform(-4, -1)))
        c["lengths"] = [int(rng.integers(1, 70)), int(rng.integers(70, 1100))]
        if rng.integers(0, 3) == 0:
            c["lengths"].append(int(rng.integers(1, 40)))
        if i % 4 == 1:
            c["lengths"].append(int(rng.integers(32769, 70000)))
        c["specials"] = i % 5 == 2
        if c["opt"] == "adam":
            c["betas"] = (float(rng.uniform(0.3, 0.99)), float(rng.uniform(0.9, 0.9999)))
            c["eps"] = float(10 ** rng.uniform(-10, -6))
            c["weight_decay"] = float(rng.uniform(0.001, 0.2)) if c["decay"] != "none" else 0.0
            c["lr_tensor"] = c["path"] == "fused" and i % 4 == 3
        else:
            c["weight_decay"] = float(rng.uniform(0.001, 0.2)) if c["decay"] else 0.0
            c["momentum_value"] = float(rng.uniform(0.5, 0.99)) if c["momentum"] != "none" else 0.0
            c["dampening"] = float(rng.uniform(0.05, 0.5)) if c["momentum"] == "dampened" else 0.0
        out.append(c)
    return out


def tensors(case: dict[str, Any]) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """The case's initial parameters and each step's gradients."""
    rng = np.random.default_rng(case["seed"])
    params = [(rng.standard_normal(n) * 0.5).astype(np.float32) for n in case["lengths"]]
    grads = []
    for _ in range(STEPS):
        step = [rng.standard_normal(n).astype(np.float32) for n in case["lengths"]]
        if case["specials"]:
            for g in step:
                at = rng.integers(0, g.size, 3)
                g[at] = SPECIAL_BITS[rng.integers(0, SPECIAL_BITS.size, 3)].view(np.float32)
        grads.append(step)
    return params, grads


def elementwise_inputs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two operands of ``maximum``/``add``: normals with the specials at random places in both."""
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    for x in (a, b):
        at = rng.integers(0, n, max(1, n // 6))
        x[at] = SPECIAL_BITS[rng.integers(0, SPECIAL_BITS.size, at.size)].view(np.float32)
    return a, b


def inputs_digest() -> str:
    """The SHA-256 of every case's tensors, so a recording made elsewhere is known to have seen them."""
    h = hashlib.sha256()
    for case in cases():
        params, grads = tensors(case)
        for a in params + [g for step in grads for g in step]:
            h.update(a.view(np.uint32).tobytes())
    for i, n in enumerate(EW_SIZES):
        for a in elementwise_inputs(n, i):
            h.update(a.view(np.uint32).tobytes())
    return h.hexdigest()


def _record(out_path: str) -> None:  # pragma: no cover - runs under torch (emulated aarch64)
    import torch

    res: dict[str, np.ndarray] = {"inputs": np.array(inputs_digest())}
    for threads in THREADS:
        torch.set_num_threads(threads)
        for i, case in enumerate(cases()):
            params, grads = tensors(case)
            ts = [torch.from_numpy(p.copy()) for p in params]
            flags = {"foreach": False} if case["path"] == "for-loop" else {case["path"]: True}
            if case["opt"] == "adam":
                cls = torch.optim.AdamW if case["decay"] == "decoupled" else torch.optim.Adam
                lr = torch.tensor(case["lr"]) if case["lr_tensor"] else case["lr"]
                opt = cls(ts, lr=lr, betas=case["betas"], eps=case["eps"], weight_decay=case["weight_decay"],
                          amsgrad=case["amsgrad"], maximize=case["maximize"], **flags)  # fmt: skip
            else:
                opt = torch.optim.SGD(ts, lr=case["lr"], momentum=case["momentum_value"], dampening=case["dampening"],
                                      weight_decay=case["weight_decay"], nesterov=case["momentum"] == "nesterov",
                                      maximize=case["maximize"], **flags)  # fmt: skip
            for step in grads:
                for t, g in zip(ts, step, strict=True):
                    t.grad = torch.from_numpy(g.copy())
                opt.step()
            for j, t in enumerate(ts):
                res[f"t{threads}/c{i}/p{j}/param"] = t.detach().numpy().view(np.uint32).copy()
                for name, v in opt.state[t].items():
                    if name != "step":
                        res[f"t{threads}/c{i}/p{j}/{name}"] = v.numpy().view(np.uint32).copy()
        for i, n in enumerate(EW_SIZES):
            a, b = (torch.from_numpy(x) for x in elementwise_inputs(n, i))
            res[f"t{threads}/ew{i}/maximum"] = torch.maximum(a, b).numpy().view(np.uint32)
            for k, w in enumerate(EW_WEIGHTS):
                res[f"t{threads}/ew{i}/add{k}"] = torch.add(a, b, alpha=w).numpy().view(np.uint32)
    np.savez(out_path, **res)
    print("done", out_path, torch.__version__, torch.backends.cpu.get_cpu_capability(), len(res))


if __name__ == "__main__":  # pragma: no cover
    _record(sys.argv[1])
