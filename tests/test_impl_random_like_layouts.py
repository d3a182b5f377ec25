"""randn_like / rand_like of a dense tensor that is not contiguous (VITS's ``randn_like`` of a transposed
tensor): empty_like keeps the layout, and normal_kernel takes its serial branch (one
normal_distribution<double> sample per element; uniform_ is serial anyway) in TensorIterator's order, memory
order. The digests are torch 2.13.0's right after ``torch.manual_seed(SEED)``, recorded at default, avx2 and
avx512 on 1 and 4 threads on a Zen 5, and on emulated Neoverse N1, V1 and V2 (the same bits everywhere). No
torch here."""

from __future__ import annotations

import pytest

from harness.impl.profiles import get_profile
from harness.impl.rng import CPUGenerator
from harness.trace import impl_ops
from tests.bit_digest import bits_sha256

SEED = 20261207
# (op, shape, storage order of the dims, torch's digest)
CASES = (
    ("randn_like", (4, 8, 19), (0, 2, 1), "3eef55faa312e45d31b99d288fa4056c39c81edee9d24945ddd1159176e309fa"),
    ("randn_like", (3, 17), (1, 0), "aeb1057ad4bd3743e099df0b83136b02c0761fbf6997bc8fc28b58b34b11b527"),
    ("randn_like", (2, 3, 4, 5), (0, 2, 3, 1), "024506d808842aad02cab5a261461f036e48ec14faa64b5e26f0c90bbde8ac0b"),
    ("randn_like", (2, 5), (1, 0), "00b8a9edf2c6ec72a6bd5054dc20e57cf6c432fe0aa3287d950fb999acd3168e"),
    ("rand_like", (6, 33, 7), (2, 0, 1), "cc3a21df4a4b5af251adf6570de7cb2e23c6eae7071a9d442f79995a2d44ddcf"),
    ("randn_like", (64, 130), (1, 0), "f8f2bccbda391751f060a44db88560c737b7fd8d35fb540f430d2c7d5846054b"),
)


def strides(shape: tuple[int, ...], order: tuple[int, ...]) -> list[int]:
    step, out = 1, [0] * len(shape)
    for d in reversed(order):
        out[d] = step
        step *= shape[d]
    return out


@pytest.mark.parametrize(
    "profile", ("x86-baseline", "x86-avx2", "x86-avx512", "arm64-neon", "arm64-sve128", "arm64-sve256")
)
@pytest.mark.parametrize("i", range(len(CASES)))
def test_random_like_of_a_permuted_layout_matches_torch(i: int, profile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    op, shape, order, digest = CASES[i]
    monkeypatch.setattr(impl_ops, "_generator", lambda t, name: CPUGenerator(SEED))
    args = {"self.shape": list(shape), "self.stride": strides(shape, order), "self.dtype": "float32"}
    out = impl_ops.REPLAYS[op]({}, args, get_profile(profile, 1))["out"]
    assert out.shape == shape and bits_sha256(out) == digest
