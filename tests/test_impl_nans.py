"""The refusal where a NaN result may be one of several NaNs the kernel could pass on
(harness.impl.nans): in MKL's sgemm model and in a traced convolution's replay."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.nans import nan_kinds, refuse_mixed_nans
from harness.impl.profiles import get_profile
from harness.trace.impl_ops import replay

X86 = get_profile("x86-avx2", 1)


def _conv_args() -> list[dict]:
    values = {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "transposed": False,
              "output_padding": [0, 0], "groups": 1}  # fmt: skip
    tensors = [{"name": k, "tensor": k} for k in ("input", "weight")]
    return tensors + [{"name": k, "value": v} for k, v in values.items()]


# ATen's slow_conv2d (MKL's sgemm) and oneDNN's jit:avx2 at x86-avx2
SHAPES = {"slow_conv2d": ((1, 3, 9, 9), (8, 3, 3, 3)), "onednn": ((4, 16, 12, 12), (16, 16, 3, 3))}


def _spiced(specials: str, kernel: str = "onednn") -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(SHAPES[kernel][0]).astype(np.float32)
    w = rng.standard_normal(SHAPES[kernel][1]).astype(np.float32)
    x.reshape(-1)[[5, 40]] = np.nan if specials != "inf" else np.inf
    if specials == "both":
        w.reshape(-1)[7] = np.inf
    return {"input": x, "weight": w}


def test_nan_kinds_are_the_quieted_patterns():
    a = np.array([np.nan, 1.0, -np.nan], np.float32)
    b = np.array([0x7F800001], np.uint32).view(np.float32)  # a signalling NaN, quieted by arithmetic
    assert nan_kinds(a, b) == {0x7FC00000, 0xFFC00000, 0x7FC00001}


@pytest.mark.parametrize("kernel", sorted(SHAPES))
@pytest.mark.parametrize("specials", ["nan", "inf"])
def test_one_kind_of_nan_in_a_convolution_is_replayed(specials, kernel):
    out = replay("convolution", _spiced(specials, kernel), _conv_args(), X86)["out"]
    assert np.isnan(out).any() or np.isinf(out).any()


@pytest.mark.parametrize(
    ("kernel", "where"), [("slow_conv2d", "cpublas_gemm 81x8x27"), ("onednn", "convolution's out")]
)
def test_an_operands_nan_meeting_an_infinitys_in_a_convolution_is_refused(kernel, where):
    with pytest.raises(ParityError, match=f"{where}: a NaN result where NaNs of 2 kinds may meet"):
        replay("convolution", _spiced("both", kernel), _conv_args(), X86)


def test_the_default_nan_is_the_architectures():
    out = np.array([np.nan], np.float32)
    positive = np.array([np.nan, np.inf], np.float32)  # 0x7fc00000 and an infinity
    with pytest.raises(ParityError):
        refuse_mixed_nans("x86", out, X86, set(), positive)
    refuse_mixed_nans("arm64", out, get_profile("arm64-neon", 1), set(), positive)  # the same NaN there


# Two NaNs meeting in a sum or product: NumPy's own loops pick either by its CPU dispatch (NumPy 2.4: the
# AVX-512 and AVX2 loops keep the first operand's in the first 16 lanes and the second's past them, the
# baseline SSE loops the second's in the vector body), so each impl step names the NaN it keeps.
_NAN_PROBE = """
import sys
import numpy as np
from harness.impl import nans, pool
from harness.impl.profiles import get_profile

kinds = np.array([0x7FC00000, 0xFFC00000, 0x7FC00123], np.uint32).view(np.float32)
rng = np.random.default_rng(4)
a, b = (kinds[rng.integers(0, 3, 40)] for _ in range(2))
x = kinds[rng.integers(0, 3, (1, 20, 7, 9))]
x[rng.random(x.shape) < 0.5] = 1.0
outs = [nans.arith(op, a, b, keep) for op in ("add", "mul") for keep in (0, 1)]
outs += [nans.arith("mul", a, b[:1], 0), nans.arith("add", a[:1], b, 1)]
g = x[..., ::2, ::2][..., :3, :4]
for name in ("x86-baseline", "x86-avx2"):
    p = get_profile(name, 1)
    outs += [pool.avg_pool(x, 3, 2, profile=p), pool.avg_pool_backward(g, x.shape, 3, 2, profile=p)]
    # a 1x1 input pooled up: its one element takes every output's delta, contiguous sums of 20
    outs.append(pool.adaptive_avg_pool2d_backward(x[..., :2, :3], (1, 20, 1, 1), profile=p))
sys.stdout.write(" ".join(np.ascontiguousarray(o, np.float32).view(np.uint32).tobytes().hex() for o in outs))
"""


def _probe(env: dict[str, str]) -> str:
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run([sys.executable, "-c", _NAN_PROBE], env=env, cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_two_nans_meeting_give_bits_free_of_numpys_dispatch():
    """nans.arith and the average poolings' sums (which keep the NaN ATen's kernel keeps) give the same bits with
    NumPy's dispatched loops off (NPY_DISABLE_CPU_FEATURES: its baseline loops) as on this host's own."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    active = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
    if not active:
        pytest.skip("NumPy runs its baseline loops here already")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    host = _probe(env)
    assert host == _probe({**env, "NPY_DISABLE_CPU_FEATURES": " ".join(active)})


def test_an_ordered_add_that_keeps_the_terms_nan_quiets_a_signalling_one():
    """scatter.ordered_add(term_first=True), index_add's 1-D loop: where self's NaN meets the term's the
    term's is kept, and a signalling NaN term comes out quieted, as an x86 ADDSS gives it (torch 2.13.0's
    index_add_ on a 1-D tensor, measured: 0x7f800002 onto 0x7fc00005 gives 0x7fc00002 at default, avx2 and
    avx512); a repeated target adds its terms in order."""
    from harness.impl.scatter import ordered_add

    out = np.array([0x7FC00005, 0x3F800000, 0xFFC00007, 0x40000000], np.uint32).view(np.float32)
    terms = np.array([0x7F800002, 0x7F800001, 0x7FC0000A, 0x3F800000, 0x3F800000], np.uint32).view(np.float32)
    ordered_add(out, np.array([0, 1, 2, 3, 3]), terms, term_first=True)
    assert [hex(b) for b in out.view(np.uint32)] == ["0x7fc00002", "0x7fc00001", "0x7fc0000a", "0x40800000"]


def test_summed_nans_name_a_lone_nan_on_aarch64_and_refuse_two_meeting():
    """A gather-sum (unfold_backward's) under an arm64 profile: an output reached by one kind of NaN is that NaN
    quieted, one reached by +inf and -inf alone aarch64's +qNaN (x86's -qNaN kept on x86); two kinds meeting, or
    one meeting inf - inf, refused in one line."""
    from harness.impl.nans import summed_nans
    from harness.impl.scatter import unfold_backward

    args = ([4], 0, 2, 1)  # overlapping windows (0, 1), (1, 2), (2, 3): element 1 sums g[0, 1] and g[1, 0]
    g = np.array([[1.0, np.inf], [-np.inf, 5.0], [2.0, 3.0]], np.float32)
    linear = lambda m: unfold_backward(m, *args)
    out = summed_nans("unfold_backward", unfold_backward(g, *args), g, linear, True)
    assert out.view(np.uint32)[1] == 0x7FC00000
    assert summed_nans("x", unfold_backward(g, *args), g, linear, False).view(np.uint32)[1] == 0xFFC00000
    g[2, 0] = np.uint32(0xFF800456).view(np.float32)  # element 2: 5 + the sNaN, quieted, sign kept
    out = summed_nans("unfold_backward", unfold_backward(g, *args), g, linear, True)
    assert out.view(np.uint32)[2] == 0xFFC00456
    g[1, 0] = np.uint32(0x7FC00001).view(np.float32)  # element 1: inf + a NaN: one kind, that NaN
    out = summed_nans("unfold_backward", unfold_backward(g, *args), g, linear, True)
    assert out.view(np.uint32)[1] == 0x7FC00001
    g[1, 1] = np.float32(np.nan)  # element 2: two kinds of NaN meet
    with pytest.raises(ParityError, match="two NaNs may meet"):
        summed_nans("unfold_backward", unfold_backward(g, *args), g, linear, True)


def test_made_nans_flip_x86s_default_nan_on_aarch64():
    """NaN results made of infinities alone: aarch64's bits x86's with the sign flipped; a NaN operand or another
    pattern refused."""
    from harness.impl.nans import made_nans

    out = np.array([1.0, 0.0, 0.0], np.float32)
    out.view(np.uint32)[1:] = (0xFFC00000, 0x7FC00000)  # a made NaN and its negation
    x = np.array([np.inf, -np.inf], np.float32)
    assert made_nans("op", out, True, x).view(np.uint32).tolist() == [0x3F800000, 0x7FC00000, 0xFFC00000]
    assert made_nans("op", out, False, x) is out
    with pytest.raises(ParityError, match="NaN operands"):
        made_nans("op", out, True, np.array([np.nan], np.float32))
    out.view(np.uint32)[1] = 0x7FC00123
    with pytest.raises(ParityError, match="other than the default NaN"):
        made_nans("op", out, True, x)
