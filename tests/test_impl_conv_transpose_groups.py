"""harness.impl.conv_transpose's grouped transposed convolutions against torch's recorded bits (torch
2.13.0+cpu on an AMD Zen 3, the baseline and avx2 levels, 1 and 2 threads): forward, grad_input,
grad_weight and grad_bias of ``F.conv_transpose1d`` / ``conv_transpose2d`` with ``groups``.

Where ATen hands it to oneDNN, the deconvolution is the adjoint grouped convolution's kernels
(harness.impl.conv_grouped): its backward data for the forward (jit_dw for a depthwise one, jit:avx2 on
groups of whole blocks of 8, gemm:jit over all the groups), its forward for grad_input, its backward
weights for grad_weight, the bias summed in that kernel's layout; a 1x1 kernel at stride 1 on one thread
runs ATen's slow_conv_transpose2d per group. Digests: SHA-256 of torch's (y, grad_input, grad_weight,
grad_bias) as uint32, concatenated, at 1, 2 and 4 threads."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl import conv_transpose
from harness.impl.profiles import profile_for_capability
from tests.bit_digest import bits_sha256

# name -> (input shape, weight shape, groups, stride, padding, output_padding)
CASES = {
    "upsample1d": ((2, 16, 7), (16, 1, 4), 16, 2, 0, 0),  # Mimi's depthwise upsampler: jit_dw, gemm:jit weights
    "depthwise2d": ((2, 12, 6, 5), (12, 1, 3, 3), 12, 1, 1, 0),  # jit_dw every pass (12: a block padded)
    "gemm1d": ((3, 6, 9), (6, 5, 3), 3, 3, 1, 2),  # gemm:jit over all the groups (plain grad_bias)
    "blocks2d": ((2, 16, 5, 5), (16, 8, 3, 3), 2, 1, 1, 0),  # avx2: jit:avx2 per group; baseline: jit:sse41, gemm:jit
    "slow1x1": ((2, 8, 4, 3), (8, 3, 1, 1), 4, 1, 0, 0),  # 1 thread: slow_conv_transpose2d per group
    # baseline: the adjoint's grad_weight gemm:jit per group, 4 threads: two a group, splitting its images
    "twochannels": ((2, 2, 23), (2, 1, 4), 2, 3, 0, 1),
    # avx2: the forward oneDNN's brgconv_strided:avx2 per group (9 input channels a group, stride 2)
    "strided9": ((1, 18, 6), (18, 1, 5), 2, 2, 0, 0),
}

# (capability, threads, case) -> SHA-256 of torch's outputs as uint32
RECORDED = {
    ("DEFAULT", 1, "upsample1d"): "b8d942a5465975f58fb18cc2d50b77b4cecb82587d4d4873aa026d06b0922176",
    ("DEFAULT", 1, "depthwise2d"): "6854e7c3ed124bdbfd3dfc17027f62ac749b900a129cb7e57b1ef9caa0c1070e",
    ("DEFAULT", 1, "gemm1d"): "f341fb443a6d0f78b4126be5253793e6e668bb756e488b68723954d5cd9c9461",
    ("DEFAULT", 1, "blocks2d"): "6011d988e86d1b6414df1286396f5d48bce8ba09829cb2178b4e0d047b123e26",
    ("DEFAULT", 1, "slow1x1"): "4fcd1fe10352076d1e086f2bbf9a76c10ee422ff323740814e76941bb903a45f",
    ("DEFAULT", 1, "twochannels"): "f59ed5d26719646bc27db96a61553c298ffc8d4fde714c22cab3deda7d28a78c",
    ("DEFAULT", 2, "upsample1d"): "b8d942a5465975f58fb18cc2d50b77b4cecb82587d4d4873aa026d06b0922176",
    ("DEFAULT", 2, "depthwise2d"): "6854e7c3ed124bdbfd3dfc17027f62ac749b900a129cb7e57b1ef9caa0c1070e",
    ("DEFAULT", 2, "gemm1d"): "f341fb443a6d0f78b4126be5253793e6e668bb756e488b68723954d5cd9c9461",
    ("DEFAULT", 2, "blocks2d"): "6011d988e86d1b6414df1286396f5d48bce8ba09829cb2178b4e0d047b123e26",
    ("DEFAULT", 2, "slow1x1"): "09e907e0b557b76f7dac098f0f100f0f7c3765accd618f3cd5717a5684423d5b",
    ("DEFAULT", 2, "twochannels"): "f59ed5d26719646bc27db96a61553c298ffc8d4fde714c22cab3deda7d28a78c",
    ("DEFAULT", 4, "upsample1d"): "b8d942a5465975f58fb18cc2d50b77b4cecb82587d4d4873aa026d06b0922176",
    ("DEFAULT", 4, "depthwise2d"): "6854e7c3ed124bdbfd3dfc17027f62ac749b900a129cb7e57b1ef9caa0c1070e",
    ("DEFAULT", 4, "gemm1d"): "f341fb443a6d0f78b4126be5253793e6e668bb756e488b68723954d5cd9c9461",
    ("DEFAULT", 4, "blocks2d"): "6011d988e86d1b6414df1286396f5d48bce8ba09829cb2178b4e0d047b123e26",
    ("DEFAULT", 4, "slow1x1"): "09e907e0b557b76f7dac098f0f100f0f7c3765accd618f3cd5717a5684423d5b",
    ("DEFAULT", 4, "twochannels"): "05753263d8d8db64b3843bc9dea71972f72328114b1def3fa34bddeef86d35da",
    ("AVX2", 1, "upsample1d"): "e18dbae6ba13f85b1db8eb732fcac9d674303f17a0778011a61aff0a7a96a27f",
    ("AVX2", 1, "depthwise2d"): "c74237a7be730abb4f0e44cd56855cb91ac0fe9af6a9b23b58b875b912b426ab",
    ("AVX2", 1, "gemm1d"): "d15a997ec270992f6c5ba1e90d2d29bc1588f55c11e96aa0e1439423517d2f8d",
    ("AVX2", 1, "blocks2d"): "5a3afbfe5dc8a23c3eeaa086dbf5f914e47887d65a0a72d666e98d39f6a7db55",
    ("AVX2", 1, "slow1x1"): "4fcd1fe10352076d1e086f2bbf9a76c10ee422ff323740814e76941bb903a45f",
    ("AVX2", 1, "twochannels"): "dac08f8395b464c2032ecf77ff4265fbac075dd4b964852b2429b7040576c868",
    ("AVX2", 2, "upsample1d"): "e18dbae6ba13f85b1db8eb732fcac9d674303f17a0778011a61aff0a7a96a27f",
    ("AVX2", 2, "depthwise2d"): "c74237a7be730abb4f0e44cd56855cb91ac0fe9af6a9b23b58b875b912b426ab",
    ("AVX2", 2, "gemm1d"): "212eff27275b9770b0566873af8644b39b04f8d9db9d3867f2f6a1bc4cb75baa",
    ("AVX2", 2, "blocks2d"): "5a3afbfe5dc8a23c3eeaa086dbf5f914e47887d65a0a72d666e98d39f6a7db55",
    ("AVX2", 2, "slow1x1"): "41bf6d02b0023ef7e33ae0aa12313784996471f963a7717b304c7de3e2ffc1db",
    ("AVX2", 2, "twochannels"): "dac08f8395b464c2032ecf77ff4265fbac075dd4b964852b2429b7040576c868",
    ("AVX2", 4, "upsample1d"): "e18dbae6ba13f85b1db8eb732fcac9d674303f17a0778011a61aff0a7a96a27f",
    ("AVX2", 4, "depthwise2d"): "cad33554b0e09f70004d87498e320b0f499751847298fb1f4afc1f089378ea8f",
    ("AVX2", 4, "gemm1d"): "29d3feccbb4159538b731817fd687acee4fba5b0cd1ac5edf814cd12ea017d98",
    ("AVX2", 4, "blocks2d"): "b6e18a389796e3aca0721d61111be6763f98d8f9c1a7ed7830db2a971eedd0a5",
    ("AVX2", 4, "slow1x1"): "41bf6d02b0023ef7e33ae0aa12313784996471f963a7717b304c7de3e2ffc1db",
    ("AVX2", 4, "twochannels"): "a1da23c5b2ed7a84f4b697a25dd6e7269fc0bbbd94b276417045c82c126f57a6",
    # recorded on an AMD Zen 5 (ONEDNN_VERBOSE: the forward conv:any+brgconv_strided:avx2)
    ("AVX2", 1, "strided9"): "b7d7e222997f651e3c3925fb7264d86927da902ae852b61daedfd458f3eecef6",
    ("AVX2", 2, "strided9"): "b7d7e222997f651e3c3925fb7264d86927da902ae852b61daedfd458f3eecef6",
    ("AVX2", 4, "strided9"): "b7d7e222997f651e3c3925fb7264d86927da902ae852b61daedfd458f3eecef6",
}


def _operands(case: str) -> tuple[np.ndarray, ...]:
    """(x, w, b, grad_output) from NumPy, grad_output of the transposed convolution's output shape."""
    x_shape, w_shape, groups, stride, padding, output_padding = CASES[case]
    r = np.random.default_rng(sum(x_shape) * 1000 + sum(w_shape) + groups)
    x = r.standard_normal(x_shape).astype(np.float32)
    w = r.standard_normal(w_shape).astype(np.float32)
    b = r.standard_normal(w_shape[1] * groups).astype(np.float32)
    out = [(s - 1) * stride - 2 * padding + k + output_padding for s, k in zip(x_shape[2:], w_shape[2:], strict=True)]
    dy = r.standard_normal((x_shape[0], w_shape[1] * groups, *out)).astype(np.float32)
    return x, w, b, dy


def _as_2d(case: str):
    """The 2-D (input, weight, stride, padding, output_padding) ATen runs the case as."""
    x_shape, w_shape, _, stride, padding, output_padding = CASES[case]
    if len(x_shape) == 4:
        return x_shape, w_shape, (stride,) * 2, (padding,) * 2, (output_padding,) * 2
    x4, w4 = (*x_shape[:2], 1, x_shape[2]), (*w_shape[:2], 1, w_shape[2])
    return x4, w4, (1, stride), (0, padding), (0, output_padding)


def _impl(case: str, capability: str, threads: int) -> np.ndarray:
    """The impl's (y, grad_input, grad_weight, grad_bias), concatenated."""
    groups = CASES[case][2]
    x, w, b, dy = _operands(case)
    x4, w4, stride, padding, output_padding = _as_2d(case)
    profile = profile_for_capability(capability, threads)
    x, w, dy = x.reshape(x4), w.reshape(w4), dy.reshape(dy.shape[0], dy.shape[1], -1, dy.shape[-1])
    y = conv_transpose.conv_transpose2d(x, w, b, stride, padding, output_padding, profile, groups)
    grads = conv_transpose.conv_transpose2d_backward(
        dy, x, w, stride, padding, output_padding, True, profile, (True, True, True), groups
    )
    return np.concatenate([a.reshape(-1) for a in (y, *grads) if a is not None])


@pytest.mark.parametrize("capability, threads, case", sorted(RECORDED))
def test_recorded_bits(capability: str, threads: int, case: str) -> None:
    assert bits_sha256(_impl(case, capability, threads)) == RECORDED[(capability, threads, case)]


def test_threads_change_the_slow_path_only_where_oneDNN_takes_over() -> None:
    """slow1x1 runs ATen's slow_conv_transpose2d per group on one thread, oneDNN's on two (whose bits
    differ at both levels); the others run oneDNN on both."""
    for capability in ("DEFAULT", "AVX2"):
        for case in CASES:
            x4, w4, stride = _as_2d(case)[:3]
            slow = [conv_transpose.runs_slow(x4, w4, stride, profile_for_capability(capability, t), CASES[case][2])
                    for t in (1, 2)]  # fmt: skip
            assert slow == ([True, False] if case == "slow1x1" else [False, False])
        assert RECORDED[(capability, 1, "slow1x1")] != RECORDED[(capability, 2, "slow1x1")]


def test_gemm_jit_weights_split_a_groups_images_between_its_threads() -> None:
    """At baseline on 4 threads oneDNN's gemm:jit backward weights gives each of the two groups two
    threads, which split its images: one thread a group gives other bits than torch's."""
    one_thread_a_group = bits_sha256(_impl("twochannels", "DEFAULT", 2))  # 2 threads: one a group
    assert one_thread_a_group != RECORDED[("DEFAULT", 4, "twochannels")]
    assert bits_sha256(_impl("twochannels", "DEFAULT", 4)) == RECORDED[("DEFAULT", 4, "twochannels")]


# (input shape, weight shape, groups, stride, padding, output_padding) the impl refuses at avx2, and why
REFUSED = [
    # grad_input: the adjoint's forward, jit:avx2's flat kernel (4 input channels a group); the forward (the
    # adjoint's strided backward data of 8 output channels a group, jit:avx2 group by group) is modelled
    (((2, 16, 5, 5), (16, 4, 3, 3), 2, 2, 1, 1), (False, True, False, False), "flat forward"),
]


@pytest.mark.parametrize("spec, passes, why", REFUSED)
def test_refused_passes(spec, passes, why: str) -> None:
    """The impl refuses, in one line naming the kernel, the passes it does not reproduce (and only
    those), through ``refusals`` and through the calls themselves."""
    x_shape, w_shape, groups, stride, padding, output_padding = spec
    x4, w4 = (*x_shape[:2], 1, x_shape[2]), (*w_shape[:2], 1, w_shape[2])
    s2, p2, o2 = (1, stride), (0, padding), (0, output_padding)
    if len(x_shape) == 4:
        x4, w4, s2, p2, o2 = x_shape, w_shape, (stride,) * 2, (padding,) * 2, (output_padding,) * 2
    profile = profile_for_capability("AVX2", 1)
    found = conv_transpose.refusals(x4, w4, s2, p2, o2, profile, groups)
    assert [f is not None for f in found] == list(passes)
    assert why in found[passes.index(True)]
    x, w = np.zeros(x4, np.float32), np.zeros(w4, np.float32)
    y = conv_transpose.conv_transpose2d(x, w, None, s2, p2, o2, profile, groups)
    with pytest.raises(ParityError, match=why):
        conv_transpose.conv_transpose2d_backward(y, x, w, s2, p2, o2, False, profile, (True, False, False), groups)


def test_avx512_grouped_forward_refused_where_the_avx2_search_turns_on_the_threads() -> None:
    """At avx512 a grouped forward whose brgconv_strided:avx2 blocking search (Zen 5 caches) declines on
    the profile's threads but finds a blocking on 1 is refused (oneDNN ran brgconv_strided:avx2 on 4
    threads where the impl had given gemm:jit's sums); on 1 thread the impl runs it."""
    x4, w4, stride, padding = (1, 32, 6, 1), (32, 1, 10, 9), (7, 7), (0, 2)
    zen5 = profile_for_capability("AVX512", 4).with_l1_per_core(49152).with_l2_per_core(1 << 20)
    why = conv_transpose.refusals(x4, w4, stride, padding, (0, 0), zen5, 2)[0]
    assert why is not None and "declines on 4 threads and not on 1" in why
    assert conv_transpose.refusals(x4, w4, stride, padding, (0, 0), zen5.with_threads(1), 2)[0] is None
