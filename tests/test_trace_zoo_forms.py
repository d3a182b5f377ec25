"""The op forms the zoo's audits (I-BERT, Swin2SR, NeuCodec, Gemma 3n) met refused and the impl now replays,
without torch: tests/zoo_forms_cases.py's cases through harness.trace.impl_ops.replay against the digests of
torch 2.13.0's outputs (x86 default, avx2 and avx512 on 1 and 4 threads: one digest where every level and
thread count gave the same bits), and the recorder's complex numbers read back as such."""

from __future__ import annotations

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import get_profile
from harness.trace.impl_ops import replay
from tests.bit_digest import bits_sha256
from tests.zoo_forms_cases import cases

DIGESTS: dict[str, str | dict[tuple[str, int], str]] = {
    "leaky_relu_backward in place 37": "70a9c93d3e1d0abb2edea070adbef528cce3ef64c0f1dc19e6587b71af81d628",
    "floor_divide of 1.0 by a tensor 37": "6e24680567502d4e10f7c2e042df84e757c103f7e67e010e49fba039a962e6fd",
    "complex mul by a number 37": {
        ("x86-avx2", 1): "57f55765cb908226cebc9d7fea1e63b885b878bfc23ff61b830921297f1c7f54",
        ("x86-avx2", 4): "57f55765cb908226cebc9d7fea1e63b885b878bfc23ff61b830921297f1c7f54",
        ("x86-avx512", 1): "57f55765cb908226cebc9d7fea1e63b885b878bfc23ff61b830921297f1c7f54",
        ("x86-avx512", 4): "57f55765cb908226cebc9d7fea1e63b885b878bfc23ff61b830921297f1c7f54",
        ("x86-baseline", 1): "3e2fcfb847fecd7d88caba084e4ec641bf5f3505da6b1c31fa984bd81b69c4d4",
        ("x86-baseline", 4): "3e2fcfb847fecd7d88caba084e4ec641bf5f3505da6b1c31fa984bd81b69c4d4",
    },
    "strided complex rows by a number 37": {
        ("x86-avx2", 1): "f690fcfb9cd0442c7a419b9294a4c0ae94ec4f100215f121d11787a3b6013caa",
        ("x86-avx2", 4): "f690fcfb9cd0442c7a419b9294a4c0ae94ec4f100215f121d11787a3b6013caa",
        ("x86-avx512", 1): "f690fcfb9cd0442c7a419b9294a4c0ae94ec4f100215f121d11787a3b6013caa",
        ("x86-avx512", 4): "f690fcfb9cd0442c7a419b9294a4c0ae94ec4f100215f121d11787a3b6013caa",
        ("x86-baseline", 1): "d1f8a07c187f739b4ef525a2f6fce00677d10257b575390f0eefaf0e647bbf82",
        ("x86-baseline", 4): "d1f8a07c187f739b4ef525a2f6fce00677d10257b575390f0eefaf0e647bbf82",
    },
    "pow(x, 0.5) 37": "fdccd43fbd152106148e5fe6175dc4d1abee2d5215e4ef6c479aadec32f039f3",
    "pow(2, float64 exponents) 37": "23dc8fa67c950b1d2473a066f892a121f3e600f47b351c0818f0f8b91eaaef4c",
    "std correction 0 dim None (37, 1)": "11f7bb4d47220eca56ac58eff2801c404c50ea563d19251e914df346b0be0725",
    "std correction 0 dim [-1] (37, 1)": "3b18c58c739716e76429634a61375c45b3b5cd470c22ab6d3e14cee23dd992e1",
    "leaky_relu_backward in place 40001": "c5ae4818ec5d68a4696ade6da9886160d470f5fd6c77bb9d36f84466e26239c1",
    "floor_divide of 1.0 by a tensor 40001": {
        ("x86-avx2", 1): "f763a913d25b8601767668a1ce6e08f2bf15daf32be2110348822be6a03ad279",
        ("x86-avx2", 4): "f763a913d25b8601767668a1ce6e08f2bf15daf32be2110348822be6a03ad279",
        ("x86-avx512", 1): "f763a913d25b8601767668a1ce6e08f2bf15daf32be2110348822be6a03ad279",
        ("x86-avx512", 4): "f763a913d25b8601767668a1ce6e08f2bf15daf32be2110348822be6a03ad279",
        ("x86-baseline", 1): "c56b23b1bbbbd90e71cbe49ca6212b4b918d079b8fa73f757e11225388c67a12",
        ("x86-baseline", 4): "c56b23b1bbbbd90e71cbe49ca6212b4b918d079b8fa73f757e11225388c67a12",
    },
    "complex mul by a number 40001": "4d162b3b3d83f3d86336aef052c6f03bf594d3ad56fa83853210171c4ceff0b3",
    "strided complex rows by a number 40001": {
        ("x86-avx2", 1): "f4a4a8b9b3f4252ee7096c49150a844b86b27194e06ad26bf768fd21c3338187",
        ("x86-avx2", 4): "a51ccbcbee45dbade65c74048d5b40cd5d3ac0ccf2f98e6c7ed8788b26c0259e",
        ("x86-avx512", 1): "f4a4a8b9b3f4252ee7096c49150a844b86b27194e06ad26bf768fd21c3338187",
        ("x86-avx512", 4): "a51ccbcbee45dbade65c74048d5b40cd5d3ac0ccf2f98e6c7ed8788b26c0259e",
        ("x86-baseline", 1): "a51331c98b26d74a7b5d59b7f90dcaeedba0ea59d78e0c0b52925733cfe5579f",
        ("x86-baseline", 4): "a51331c98b26d74a7b5d59b7f90dcaeedba0ea59d78e0c0b52925733cfe5579f",
    },
    "pow(x, 0.5) 40001": "a4145ca7a3faa65f067decb320dda99df864305741216cc00c63dbc8fbf21851",
    "pow(2, float64 exponents) 40001": "ff7b977b07454eed093c0018cabba4d7a126d170707ba10544a7fd693ed0504b",
    "std correction 0 dim None (40, 1000)": "9662e8d61f5c24b8d55e10fc58c89ae73a5941da9725dd666018e0b966bda4ca",
    "std correction 0 dim [-1] (40, 1000)": "97543d10f489b1fe8f3bf7a477ee86fc9b0c4722ba63597448da68c6215a88ae",
}

# the replay's refusal, not torch's bits: mul of complex tensors past ATen's grain on several threads
REFUSED = {
    ("complex mul by a number 40001", 4): "elements on 4 threads",
    ("strided complex rows by a number 40001", 4): "elements on 4 threads",
}


@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("profile_name", ["x86-baseline", "x86-avx2", "x86-avx512"])
def test_the_zoo_forms_replay_torchs_bits(profile_name: str, threads: int) -> None:
    profile = get_profile(profile_name, threads)
    for label, op, inputs, args in cases():
        refusal = REFUSED.get((label, threads))
        if refusal is not None:
            with pytest.raises(ParityError, match=refusal):
                replay(op, inputs, args, profile)
            continue
        want = DIGESTS[label]
        want = want if isinstance(want, str) else want[(profile_name, threads)]
        out = np.asarray(replay(op, inputs, args, profile)["out"])
        assert bits_sha256(out.view(np.float32) if out.dtype == np.float64 else out) == want, label


def test_a_complex_number_is_read_back_as_one() -> None:
    """A capture's ``{"complex": [re, im]}`` (harness.trace.recorder._jsonable) is the number: mul by 1j
    swaps the parts and negates the new real one; a capture that had kept only the type's name is refused."""
    profile = get_profile("x86-avx2", 1)
    x = np.float32([[1.5, -2.0], [0.25, 4.0]])
    tensor = {"name": "self", "tensor": "self", "stride": [1], "shape": [2], "dtype": "complex64"}
    out = replay("aten.mul.Scalar", {"self": x}, [tensor, {"name": "other", "value": {"complex": [0.0, 1.0]}}], profile)
    assert out["out"].tolist() == [[2.0, 1.5], [-4.0, 0.25]]
    with pytest.raises(ParityError, match="neither complex"):
        replay("aten.mul.Scalar", {"self": x}, [tensor, {"name": "other", "value": "complex"}], profile)


def test_the_forms_still_refuse_what_aten_does_not_run_or_the_impl_does_not_model() -> None:
    profile = get_profile("x86-avx2", 1)
    x = np.ones(4, np.float32)
    flat = {"stride": [1], "shape": [4], "dtype": "float32"}
    leaky = [{"name": "grad_output", "tensor": "grad_output", **flat}, {"name": "self", "tensor": "self", **flat},
             {"name": "negative_slope", "value": -0.5}, {"name": "self_is_result", "value": True}]  # fmt: skip
    with pytest.raises(ParityError, match=r"negative_slope -0\.5"):
        replay("aten.leaky_relu_backward.default", {"grad_output": x, "self": x}, leaky, profile)
    e = np.float64([1.0, 0.5])
    exponent = {"name": "exponent", "tensor": "exponent", "stride": [1], "shape": [2], "dtype": "float64"}
    arm64 = get_profile("arm64-neon", 1)
    # float64 pow on aarch64 is modelled now (its glibc pow): 2 ** 1 and 2 ** 0.5 as IEEE's exact and rounded sqrt
    out = replay("aten.pow.Scalar", {"exponent": e}, [{"name": "self", "value": 2.0}, exponent], arm64)["out"]
    assert out.view(np.uint64).tolist() == np.float64([2.0, np.sqrt(2.0)]).view(np.uint64).tolist()
    big = {"name": "self", "tensor": "self", "stride": [1], "shape": [2], "dtype": "float64"}
    with pytest.raises(ParityError, match="Payne-Hanek branch, not modelled"):  # float64 sin of inf on aarch64
        replay("aten.sin.default", {"self": np.float64([np.inf, 1.0])}, [big], arm64)
