"""Adam, AdamW and SGD steps by the for-loop, foreach and fused paths (harness.impl.optim, csrc/optim.c) under
the Linux arm64 profiles, against torch 2.13.0's aarch64 wheel run under QEMU (tools/emulate_arm64.py run
--threads 4 -- tests/optim_arm64_cases.py, emulated Neoverse N1, V1 and V2; 1, 2 and 4 threads set with
torch.set_num_threads in one process): the SHA-256 of every parameter's and every state tensor's uint32 bits
(exp_avg, exp_avg_sq, max_exp_avg_sq, momentum_buffer) after 3 steps of each of tests/optim_arm64_cases.py's
72 cases, then of the foreach ops' ``maximum`` and ``add(alpha=)`` kernels on NaNs, infinities and signed
zeros, as recorded there. Torch-free.

What the recording pins: the fused kernels' 16-float units over 2 and 4 threads, 4 lanes (N1, V2) or 8 (V1)
in their vector bodies and TensorIterator's 8 or 16 past the 32,768-element grain; GCC's contractions
(NEON-typed code fuses ``v*beta2 + (c2*g)*g`` to ``fma(v, beta2, (c2*g)*g)`` in the fused Adam body, where
x86 fuses the other product; V1's SVE256 bodies fuse only ATen's explicit ``fmadd`` calls); aarch64's
default NaN +qNaN from ``inf - inf`` and ``inf/inf``, FMAX in ``maximum``'s vector body, and which NaN
each object keeps where two meet or a negation flips one (maximize's ``g * -1`` stays a multiply only in
V1's SVE256 body; the scalar lerp's ``end - diff*(1 - w)`` negates a NaN diff on N1 and V1, not V2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from harness.impl import optim
from harness.impl.profiles import KernelProfile, get_profile
from tests import optim_arm64_cases as cases_module

STATE = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer")


def _adam(case: dict[str, Any], params: list[np.ndarray], profile: KernelProfile) -> Iterator[np.ndarray]:
    cfg = optim.AdamConfig(
        case["lr"], tuple(case["betas"]), case["eps"], case["weight_decay"], case["decay"] != "l2",
        case["amsgrad"], case["maximize"], case["path"], case["lr_tensor"],
    )  # fmt: skip
    opt = optim.Adam([(params, case["weight_decay"])], cfg, profile)
    for step in cases_module.tensors(case)[1]:
        opt.step(step)
    for j, q in enumerate(params):
        st = opt.state[j]
        yield from (q, st.exp_avg, st.exp_avg_sq) if not case["amsgrad"] else (q, st.exp_avg, st.exp_avg_sq,
                                                                                 st.max_exp_avg_sq)  # fmt: skip


def _sgd(case: dict[str, Any], params: list[np.ndarray], profile: KernelProfile) -> Iterator[np.ndarray]:
    cfg = optim.SgdConfig(
        case["lr"], case["momentum_value"], case["dampening"], case["weight_decay"],
        case["momentum"] == "nesterov", case["maximize"], case["path"],
    )  # fmt: skip
    opt = optim.SGD([(params, case["weight_decay"])], cfg, profile)
    for step in cases_module.tensors(case)[1]:
        opt.step(step)
    for j, q in enumerate(params):
        yield q
        if case["momentum"] != "none":
            yield opt.momentum_buffers[j]


def impl_digest(profile_name: str, threads: int) -> str:
    """Every case's parameters each followed by its state (the order of STATE), then maximum and the
    three add weights of each elementwise operand size."""
    profile = get_profile(profile_name, threads)
    digest = hashlib.sha256()
    for case in cases_module.cases():
        params = [p.copy() for p in cases_module.tensors(case)[0]]
        for out in (_adam if case["opt"] == "adam" else _sgd)(case, params, profile):
            digest.update(np.ascontiguousarray(out, np.float32).view(np.uint32).tobytes())
    for i, n in enumerate(cases_module.EW_SIZES):
        a, b = cases_module.elementwise_inputs(n, i)
        outs = [optim.elementwise("maximum", a, b, None, 0.0, profile)]
        outs += [optim.elementwise("add", a, b, None, w, profile) for w in cases_module.EW_WEIGHTS]
        for out in outs:
            digest.update(out.view(np.uint32).tobytes())
    return digest.hexdigest()


# the recording's inputs_digest(): the cases drawn there are the ones drawn here
INPUTS = "a73f90c6e390cdf1328a29d7c68fc6d7175582cd37e7722762dbb80dcab3c60f"
# (profile, threads): torch's bits on the core whose profile it is
DIGESTS = {
    ("arm64-neon", 1): "a69bc554343820dbb5d7c12373ff41e04facf1eb6e540acce7ecd64557602d36",
    ("arm64-neon", 2): "a69bc554343820dbb5d7c12373ff41e04facf1eb6e540acce7ecd64557602d36",
    ("arm64-neon", 4): "2655042e5be42438064f815a46f4bef95ea494f54527eab4cf3df811b71fb267",
    ("arm64-sve128", 1): "56b44f661c81cac29213c76ce7ddc8347fb1f490a0128845f3a863147a0dc5a8",
    ("arm64-sve128", 2): "56b44f661c81cac29213c76ce7ddc8347fb1f490a0128845f3a863147a0dc5a8",
    ("arm64-sve128", 4): "639099d0ae96f7b6283a83f3660e4c75f43d72cbf9c189fcd9520b14fc874823",
    ("arm64-sve256", 1): "110132ae61a07aab515dd79927feecdb9d7c7ac016b07cf6a5d0d4b9a5b9528c",
    ("arm64-sve256", 2): "40678756c793600f85cad9655d3a3840a597ab7c0f3b680021798142c8c2c740",
    ("arm64-sve256", 4): "a6e71bcf504971fcfbc0a6a5f766520bc08a928efdb0217b31b038e2fddee647",
}


def test_the_cases_are_the_recorded_ones() -> None:
    assert cases_module.inputs_digest() == INPUTS


@pytest.mark.parametrize(("profile_name", "threads"), sorted(DIGESTS))
def test_optimizer_steps_match_the_recording(profile_name: str, threads: int) -> None:
    assert impl_digest(profile_name, threads) == DIGESTS[profile_name, threads]


def test_the_recordings_tell_the_builds_and_threads_apart() -> None:
    """N1, V2 and V1 differ from one another at every thread count, so a test above cannot pass by a
    shared fallback. Threads move bits only where a TensorIterator chunk's scalar tail computes otherwise
    than the vector body: V1's unfused SVE256 bodies from 2 threads, ``maximum``'s NaNs on every core
    where 4 threads cut 70,001 elements into 3 chunks. The fused kernels never depend on the thread
    count here: a 16-float unit is whole vectors of 4 or 8 lanes, so every tail falls at the end."""
    for threads in cases_module.THREADS:
        assert len({DIGESTS[name, threads] for name in ("arm64-neon", "arm64-sve128", "arm64-sve256")}) == 3
    for build in ("arm64-neon", "arm64-sve128", "arm64-sve256"):
        assert DIGESTS[build, 2] != DIGESTS[build, 4]
    assert DIGESTS["arm64-sve256", 1] != DIGESTS["arm64-sve256", 2]
    assert DIGESTS["arm64-neon", 1] == DIGESTS["arm64-neon", 2]


@pytest.mark.parametrize("profile_name", ["x86-avx2", "x86-baseline"])
def test_x86_arithmetic_does_not_give_the_arm64_bits(profile_name: str) -> None:
    assert impl_digest(profile_name, 1) not in {DIGESTS[name, 1] for name in ("arm64-neon", "arm64-sve256")}
