"""upsample_bilinear2d's forward (ATen's channels-last kernel) and softmax and its backward over a dim other
than the last (ATen's _vec_softmax / _vec_softmax_backward) under the Linux arm64 profiles, through the
trace's replays, against torch 2.13.0's aarch64 wheel run under QEMU (tools/emulate_arm64.py run, emulated
Neoverse N1, V1 and V2; 1, 2 and 4 threads set with torch.set_num_threads in one process): the SHA-256 of
every output's uint32 bits over each op's cases of tests/arm64_resize_softmax_cases.py, as recorded there.
Torch-free.

What the recording pins: the resize's vector channels as fma(x00, w00, fma(x01, w01, fma(x10, w10,
x11*w11))) in the NEON-typed objects (N1, V2: 4 lanes; aarch64 GCC fuses the first inner product, x86's
the second), unfused in V1's SVE256 object (8 lanes), the scalar rest contracted as on x86; the softmax's
vector columns (4 or 8 at a time, SLEEF's expf) against its scalar ones (aarch64 expf), which the thread
count moves, and `x - max` of an infinite column giving +qNaN; the backward's `sum += g*y` fused in the
NEON-typed objects and the scalar columns, not in V1's vector ones.
"""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from tests.arm64_resize_softmax_cases import CASES, impl_output
from tests.arm64_sampling_cases import digest

# (profile, op, threads) -> the digest torch gave on the core whose profile it is
DIGESTS = {
    ("arm64-neon", "softmax", 1): "e70a54f9c7e1d7d232262ba22780aac746ca2d8b4f4a4567c217580c812008fd",
    ("arm64-neon", "softmax", 2): "dd7d4503244bf69d571be9f68121777479362ceb0762ab66ce655ae4edc719a2",
    ("arm64-neon", "softmax", 4): "0b482380bb2aef86656ee5c39ba6c4e21bfee82c65e6b9fabd56881aa97296eb",
    ("arm64-neon", "softmax_backward", 1): "0fc09cb3d98f9f7591aac84a88e1ae64849df7c837fec07300a725a67e4c3557",
    ("arm64-neon", "softmax_backward", 2): "0fc09cb3d98f9f7591aac84a88e1ae64849df7c837fec07300a725a67e4c3557",
    ("arm64-neon", "softmax_backward", 4): "0fc09cb3d98f9f7591aac84a88e1ae64849df7c837fec07300a725a67e4c3557",
    ("arm64-neon", "upsample_bilinear2d", 1): "098c5886cb89add8978d683f1ac97fb7e8fe0065220c749cfc2d71d905934468",
    ("arm64-neon", "upsample_bilinear2d", 2): "098c5886cb89add8978d683f1ac97fb7e8fe0065220c749cfc2d71d905934468",
    ("arm64-neon", "upsample_bilinear2d", 4): "098c5886cb89add8978d683f1ac97fb7e8fe0065220c749cfc2d71d905934468",
    ("arm64-sve128", "softmax", 1): "e70a54f9c7e1d7d232262ba22780aac746ca2d8b4f4a4567c217580c812008fd",
    ("arm64-sve128", "softmax", 2): "dd7d4503244bf69d571be9f68121777479362ceb0762ab66ce655ae4edc719a2",
    ("arm64-sve128", "softmax", 4): "0b482380bb2aef86656ee5c39ba6c4e21bfee82c65e6b9fabd56881aa97296eb",
    ("arm64-sve128", "softmax_backward", 1): "0fc09cb3d98f9f7591aac84a88e1ae64849df7c837fec07300a725a67e4c3557",
    ("arm64-sve128", "softmax_backward", 2): "0fc09cb3d98f9f7591aac84a88e1ae64849df7c837fec07300a725a67e4c3557",
    ("arm64-sve128", "softmax_backward", 4): "0fc09cb3d98f9f7591aac84a88e1ae64849df7c837fec07300a725a67e4c3557",
    ("arm64-sve128", "upsample_bilinear2d", 1): "098c5886cb89add8978d683f1ac97fb7e8fe0065220c749cfc2d71d905934468",
    ("arm64-sve128", "upsample_bilinear2d", 2): "098c5886cb89add8978d683f1ac97fb7e8fe0065220c749cfc2d71d905934468",
    ("arm64-sve128", "upsample_bilinear2d", 4): "098c5886cb89add8978d683f1ac97fb7e8fe0065220c749cfc2d71d905934468",
    ("arm64-sve256", "softmax", 1): "18d5f4ee3007cedea851dc03e320cc138c0a5311afe9150120233927f0b9f52c",
    ("arm64-sve256", "softmax", 2): "e26537fd6cb296bb82bdd51e5cff0eedd36d25f4e5f7f091bd4837cd1c1b9a2a",
    ("arm64-sve256", "softmax", 4): "d1e4879aacfed6da8b022884746ec5f2d35198009b23d7a0d6002643872dd44c",
    ("arm64-sve256", "softmax_backward", 1): "29d91aef920c9f4a6fa45121cdfd078a9e07c36d4703902561dc76c4ece09543",
    ("arm64-sve256", "softmax_backward", 2): "29d91aef920c9f4a6fa45121cdfd078a9e07c36d4703902561dc76c4ece09543",
    ("arm64-sve256", "softmax_backward", 4): "29d91aef920c9f4a6fa45121cdfd078a9e07c36d4703902561dc76c4ece09543",
    ("arm64-sve256", "upsample_bilinear2d", 1): "ac47ba7bc0dae852322ce3a0a67b9e58832f0fec7bfd2e4b36b720c5e9b4d191",
    ("arm64-sve256", "upsample_bilinear2d", 2): "ac47ba7bc0dae852322ce3a0a67b9e58832f0fec7bfd2e4b36b720c5e9b4d191",
    ("arm64-sve256", "upsample_bilinear2d", 4): "ac47ba7bc0dae852322ce3a0a67b9e58832f0fec7bfd2e4b36b720c5e9b4d191",
}


@pytest.mark.parametrize(("profile_name", "op", "threads"), sorted(DIGESTS))
def test_impl_matches_the_recording(profile_name: str, op: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    assert digest([impl_output(op, case, profile)] for case in CASES[op]()) == DIGESTS[profile_name, op, threads]


def test_the_recordings_tell_the_builds_and_threads_apart() -> None:
    """V1's 8-lane SVE256 object gives other bits than N1's 4-lane NEON one for every op, and the softmax's
    thread counts differ from each other (each thread's range moves the vector/scalar columns), so no test
    above passes by a shared fallback."""
    for op in CASES:
        assert DIGESTS["arm64-neon", op, 1] != DIGESTS["arm64-sve256", op, 1]
    for build in ("arm64-neon", "arm64-sve128", "arm64-sve256"):
        assert len({DIGESTS[build, "softmax", t] for t in (1, 2, 4)}) == 3
