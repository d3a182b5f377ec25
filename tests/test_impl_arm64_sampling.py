"""grid_sampler_2d and its backward, upsample_bicubic2d and its backward, upsample_bilinear2d_backward
(channels-first) and channels-last native_group_norm and its backward under the Linux arm64 profiles (harness.impl.nn,
harness.impl.rows; csrc/nn.c, csrc/rows.c), against torch 2.13.0's aarch64 wheel run under QEMU
(``python tools/emulate_arm64.py run --cores C --threads 2 -- tests/arm64_sampling_cases.py``, emulated
Neoverse N1, V2 and V1; 1 and 2 threads set with torch.set_num_threads in one process): the SHA-256 of
every output's uint32 bits over tests/arm64_sampling_cases.py's cases, as recorded there. Torch-free.

What the recordings pin: the NEON-typed objects (N1, V2: 4 lanes) contract Vectorized a*b+c, fusing
the first product of a sum of two (grid_sampler's `nw_val*nw + ne_val*ne` and its grid gradient's
terms), V1's SVE256 object (8 lanes) none of it; the backward's chunks of 4 or 8 points; the bicubic
weights' last step fused in V1's object only (N1 and V2 give the x86 AVX2 bits); the channels-last group
norm's lanes and contractions per object, and its thread dependence past 1024 (forward) and 2048
(backward) pixels; the bicubic backward's one aarch64 object, its weights fused at every step and only
the increments of the second height tap fused into grad_input (read from the object's machine code),
which the x86 objects (never fused) do not give.
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.arm64_sampling_cases import OPS, cases, digest, impl_outputs

# (op, profile, threads) -> the digest torch gave on the core whose profile it is
DIGESTS = {
    ("grid_sample", "arm64-neon", 1): "36ebc65189d7335e669db9a77aefa20b9742334521e2417547f9a333d6a56e60",
    ("grid_sample", "arm64-neon", 2): "36ebc65189d7335e669db9a77aefa20b9742334521e2417547f9a333d6a56e60",
    ("grid_sample", "arm64-sve128", 1): "36ebc65189d7335e669db9a77aefa20b9742334521e2417547f9a333d6a56e60",
    ("grid_sample", "arm64-sve128", 2): "36ebc65189d7335e669db9a77aefa20b9742334521e2417547f9a333d6a56e60",
    ("grid_sample", "arm64-sve256", 1): "57ff3a9a1ebbde4c29d26c41f6ac6062e3468c4c2d10ed2ea66c5e9d97c1b7e5",
    ("grid_sample", "arm64-sve256", 2): "57ff3a9a1ebbde4c29d26c41f6ac6062e3468c4c2d10ed2ea66c5e9d97c1b7e5",
    ("upsample_bicubic2d", "arm64-neon", 1): "2b9e57fdd1033bad1d341896fcfe04271fbf862f7f19561500bfb1a48e0e1664",
    ("upsample_bicubic2d", "arm64-neon", 2): "2b9e57fdd1033bad1d341896fcfe04271fbf862f7f19561500bfb1a48e0e1664",
    ("upsample_bicubic2d", "arm64-sve128", 1): "2b9e57fdd1033bad1d341896fcfe04271fbf862f7f19561500bfb1a48e0e1664",
    ("upsample_bicubic2d", "arm64-sve128", 2): "2b9e57fdd1033bad1d341896fcfe04271fbf862f7f19561500bfb1a48e0e1664",
    ("upsample_bicubic2d", "arm64-sve256", 1): "6a1d820eee0dfaedf9a4a812172e826053b57bad3a554d1c318a72657421cfa7",
    ("upsample_bicubic2d", "arm64-sve256", 2): "6a1d820eee0dfaedf9a4a812172e826053b57bad3a554d1c318a72657421cfa7",
    ("bilinear_backward", "arm64-neon", 1): "eff5c551b0972e34ac626ecd8379526cff140103a09d7d601787e4292c6c4b35",
    ("bilinear_backward", "arm64-neon", 2): "eff5c551b0972e34ac626ecd8379526cff140103a09d7d601787e4292c6c4b35",
    ("bilinear_backward", "arm64-sve128", 1): "eff5c551b0972e34ac626ecd8379526cff140103a09d7d601787e4292c6c4b35",
    ("bilinear_backward", "arm64-sve128", 2): "eff5c551b0972e34ac626ecd8379526cff140103a09d7d601787e4292c6c4b35",
    ("bilinear_backward", "arm64-sve256", 1): "eff5c551b0972e34ac626ecd8379526cff140103a09d7d601787e4292c6c4b35",
    ("bilinear_backward", "arm64-sve256", 2): "eff5c551b0972e34ac626ecd8379526cff140103a09d7d601787e4292c6c4b35",
    ("group_norm_cl", "arm64-neon", 1): "ff7c6c652dbc3f5a604e36ff60d2abb6ac8ba9904bcfb92ebdd8715fe46e6c97",
    ("group_norm_cl", "arm64-neon", 2): "4d367114caf6fcd4aefbc00da4c50ccc12e6c182ef70285e5abed80e934e2f2c",
    ("group_norm_cl", "arm64-sve128", 1): "ff7c6c652dbc3f5a604e36ff60d2abb6ac8ba9904bcfb92ebdd8715fe46e6c97",
    ("group_norm_cl", "arm64-sve128", 2): "4d367114caf6fcd4aefbc00da4c50ccc12e6c182ef70285e5abed80e934e2f2c",
    ("group_norm_cl", "arm64-sve256", 1): "95dad9fcff9b540fcc783960f7992d7459d417b33e8e56d9ae897bc09f8fdbd3",
    ("group_norm_cl", "arm64-sve256", 2): "765df60e863ba7f6768c4e8ac419001ea06f682cd42578c1da4c1aad019d381d",
    # UpSampleBicubic2d.cpp is one object per architecture: every core and thread count alike
    ("bicubic_backward", "arm64-neon", 1): "aaf90b725004da0db9027588c0c20d43a3940b5fd56eb5eb1c7f091cabe233d7",
    ("bicubic_backward", "arm64-neon", 2): "aaf90b725004da0db9027588c0c20d43a3940b5fd56eb5eb1c7f091cabe233d7",
    ("bicubic_backward", "arm64-sve128", 1): "aaf90b725004da0db9027588c0c20d43a3940b5fd56eb5eb1c7f091cabe233d7",
    ("bicubic_backward", "arm64-sve128", 2): "aaf90b725004da0db9027588c0c20d43a3940b5fd56eb5eb1c7f091cabe233d7",
    ("bicubic_backward", "arm64-sve256", 1): "aaf90b725004da0db9027588c0c20d43a3940b5fd56eb5eb1c7f091cabe233d7",
    ("bicubic_backward", "arm64-sve256", 2): "aaf90b725004da0db9027588c0c20d43a3940b5fd56eb5eb1c7f091cabe233d7",
}  # fmt: skip


def impl_digest(op: str, profile_name: str, threads: int) -> str:
    profile = get_profile(profile_name, threads)
    return digest(impl_outputs(op, case, profile) for case in cases(op))


@pytest.mark.parametrize(("op", "profile_name", "threads"), sorted(DIGESTS))
def test_impl_matches_the_recording(op: str, profile_name: str, threads: int) -> None:
    assert impl_digest(op, profile_name, threads) == DIGESTS[op, profile_name, threads]


def test_the_recordings_tell_the_objects_apart() -> None:
    """The NEON-typed and SVE256 objects differ in every op but the bilinear backward (scalar updates
    fused on every core), and channels-last group norm differs between 1 and 2 threads, so no test above
    passes by a shared fallback."""
    assert set(OPS) == {op for op, _, _ in DIGESTS}
    for op in ("grid_sample", "upsample_bicubic2d", "group_norm_cl"):
        for threads in (1, 2):
            assert DIGESTS[op, "arm64-neon", threads] != DIGESTS[op, "arm64-sve256", threads]
    for build in ("arm64-neon", "arm64-sve256"):
        assert DIGESTS["group_norm_cl", build, 1] != DIGESTS["group_norm_cl", build, 2]


# (op, x86 profile): the x86 arithmetic that must not give either arm64 object's bits. (grid_sampler's x86
# default build, unfused in 8 lanes, computes as V1's SVE256 object; N1's and V2's bicubic and bilinear
# backward give the x86 AVX2 bits.)
X86_DIFFERS = (
    ("grid_sample", "x86-avx2"), ("group_norm_cl", "x86-avx2"),
    ("group_norm_cl", "x86-baseline"), ("upsample_bicubic2d", "x86-baseline"),
    ("bicubic_backward", "x86-avx2"), ("bicubic_backward", "x86-baseline"),
)  # fmt: skip


@pytest.mark.parametrize(("op", "profile_name"), X86_DIFFERS)
def test_x86_arithmetic_does_not_give_the_arm64_bits(op: str, profile_name: str) -> None:
    got = impl_digest(op, profile_name, 1)
    assert got not in {DIGESTS[op, "arm64-neon", 1], DIGESTS[op, "arm64-sve256", 1]}


def test_trace_replays_take_the_arm64_profiles() -> None:
    """harness.trace.impl_nn replays the ops of an arm64 trace (``--verify-cause``) with the impl's bits."""
    import numpy as np

    from harness.impl.strides import strides_in_order
    from harness.trace.impl_nn import REPLAYS

    profile = get_profile("arm64-sve256", 2)
    same = lambda a, b: np.array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))
    g = next(c for c in cases("grid_sample") if c["input_grad"] and c["layout"] == 1)
    out, gx, gg = impl_outputs("grid_sample", g, profile)
    args = {"align_corners": g["align"], "interpolation_mode": g["mode"], "padding_mode": g["padding"]}
    assert same(REPLAYS["grid_sampler_2d"]({"input": g["x"], "grid": g["grid"]}, args, profile)["out"], out)
    n, h, w, _ = g["grid"].shape
    back = REPLAYS["grid_sampler_2d_backward"](
        {"grad_output": g["go"], "input": g["x"], "grid": g["grid"]},
        {**args, "output_mask": [True, True], "grid.stride": [2 * h * w, w, 1, h * w]}, profile,
    )  # fmt: skip
    assert same(back["out0"], gx) and same(back["out1"], gg)
    b = next(iter(cases("upsample_bicubic2d")))
    scales = {"scales_h": b["scales"][0], "scales_w": b["scales"][1]}
    sizes = {"output_size": list(b["size"]), "align_corners": b["align"], **scales}
    got = REPLAYS["upsample_bicubic2d"]({"self": b["x"]}, sizes, profile)["out"]
    assert same(got, impl_outputs("upsample_bicubic2d", b, profile)[0])
    bb = next(iter(cases("bicubic_backward")))
    sizes = {**sizes, "input_size": list(bb["x"].shape)}
    got = REPLAYS["upsample_bicubic2d_backward"]({"grad_output": bb["go"]}, sizes, profile)["out"]
    assert same(got, impl_outputs("bicubic_backward", bb, profile)[0])
    u = next(iter(cases("bilinear_backward")))
    scales = {"scales_h": u["scales"][0], "scales_w": u["scales"][1]}
    sizes = {"input_size": list(u["input_size"]), "align_corners": u["align"], **scales}
    got = REPLAYS["upsample_bilinear2d_backward"]({"grad_output": u["go"]}, sizes, profile)["out"]
    assert same(got, impl_outputs("bilinear_backward", u, profile)[0])
    c = next(c for c in cases("group_norm_cl") if c["weight"] is not None and c["x"][0, 0].size >= 2048)
    x = c["x"]
    n, ch = x.shape[:2]
    cl = strides_in_order(x.shape, (0, *range(2, x.ndim), 1))
    a = {"N": n, "C": ch, "HxW": x[0, 0].size, "group": c["groups"], "eps": c["eps"], "input.stride": cl}
    y, mean, rstd, gx, gw, gb = impl_outputs("group_norm_cl", c, profile)
    fwd = REPLAYS["native_group_norm"]({"input": x, "weight": c["weight"], "bias": c["bias"]}, a, profile)
    assert all(same(fwd[f"out{i}"], v) for i, v in enumerate((y, mean, rstd)))
    t = {"grad_out": c["dy"], "input": x, "mean": mean, "rstd": rstd, "weight": c["weight"]}
    bwd = REPLAYS["native_group_norm_backward"](t, {**a, "grad_out.stride": cl, "output_mask": [True] * 3}, profile)
    assert all(same(bwd[f"out{i}"], v) for i, v in enumerate((gx, gw, gb)))
