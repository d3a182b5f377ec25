"""pow's float64 special exponents, mixed dtypes and integer powers, float64 pow and sin/cos (tests/pow_dtype_cases.py),
replayed through the trace's ops and compared with torch 2.13.0's output: dtype and SHA-256 of its bytes, recorded on
a Zen 5 at avx2 on 1 thread, avx512 on 4 and default on 2, and under emulation on Neoverse N1 at 1 thread, V1 at 4
and V2 at 1 (one digest where the three agree: the elementwise forms, no level reaches a bit; three where SLEEF's or
glibc's pow, MKL's or SLEEF's sin/cos runs). No torch here."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from pow_dtype_cases import CASES, replay_args

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from harness.trace.impl_ops import replay

PLATFORMS = ("linux-x86_64-avx2-t1", "linux-x86_64-avx512-t4", "linux-x86_64-baseline-t2")
ARM64_PLATFORMS = (
    "linux-arm64-neoverse-n1-nvpl-t1",
    "linux-arm64-neoverse-v1-nvpl-t4",
    "linux-arm64-neoverse-v2-nvpl-t1",
)

# label: (dtype, digest) or (dtype, avx2 t1's, avx512 t4's, default t2's)
DIGESTS = {
    "f64**2.0": ("float64", "593694f5beb3613ca34d48556d6508f388d21be9f6785a0d86998d83d9b21ee3"),
    "f64**3.0": ("float64", "d6ddfd524634ec7dfb811e233db984de43659aec75f6df6435514fc14e441276"),
    "f64**-2.0": ("float64", "32636776af342e04382c21c5855671d27dc4d9a05b7826301465b3abf5db860e"),
    "f64**-1.0": ("float64", "74fb5d5d3e89b084e498da4e4a8bd74696bffbda3da3604b9ce4edc74a33da19"),
    "f64**-0.5": ("float64", "a0feeacf037e601a18432d34024bfd3cddf7ba83af527c69d8cb418dde4b3245"),
    "f64**0.0": ("float64", "296585db270c8fd083dd60d65cc303bb858be5e9a1758db3e2b0c7e26ea14f84"),
    "f64**1.0": ("float64", "a1956a1d8d1648293c512e67612db0f2e71db89612afbf82aae9dcf07473c34a"),
    "f64**2": ("float64", "453feaae94208e309477abb0df62e3b8dcb7378f26e37b3c4c9e397cafae0bf3"),
    "f32**f64": ("float64", "31647247d7de92e1044f6639a10bcfb9f5d4e93762a5865d399217e9cbc57f96"),
    "f64**f32": (
        "float64",
        "1b0f5aae963f582e55bcc4d151b31aa874d84613206894b24e893dc2953f7f86",
        "1b0f5aae963f582e55bcc4d151b31aa874d84613206894b24e893dc2953f7f86",
        "10fdf2b37110ed3ef025e821c626257a1794bc351834ab5c599d20763b65578f",
    ),
    "i64**f64": (
        "float64",
        "1374299fcd81def83bea707ebf09f9c0110996a4f1e7d405a7ede0482c94ac32",
        "afa9223dd8a8bb0eea80daa0ce954fcf00cbac4fe6bbe565a058e02aa7bd655c",
        "f70bd26d276d3f9689a332003b2fe5b1f0035dcf76d5672f646cb7e3d9343895",
    ),
    "i32**f32": ("float32", "c325e6ff22e1a3067e5336b76fe5463c8c592b9177c9357706ee7e6473dc5e92"),
    "f32**0d-f64": (
        "float32",
        "56b14504ca4b66eda7e7ed66c28cdda80e20809fbd09e3c01c918b696cb5a95f",
        "56b14504ca4b66eda7e7ed66c28cdda80e20809fbd09e3c01c918b696cb5a95f",
        "a092d09a9c568f744274d2bcd2f2f26ac93e5fe47cedccee162cd813fdaab198",
    ),
    "0d-f64**f32": (
        "float32",
        "b1fa400268bc34974c267294d88466fbdc7378e6ff4f6e8c33c80f1d90e21896",
        "b1fa400268bc34974c267294d88466fbdc7378e6ff4f6e8c33c80f1d90e21896",
        "ae4d3e87b12639d3b5a5b3acb4f0ca28a824c73f18b2231f13e10e5fd1f90bb3",
    ),
    "u8**f64": (
        "float64",
        "a78ad16f698cf86b47f795c86ddb7c9093d18cfd2acaae43df08b1235a272f9b",
        "a78ad16f698cf86b47f795c86ddb7c9093d18cfd2acaae43df08b1235a272f9b",
        "ac0d922d8f1ca27c3c05daec201f6a97198dd15bc7203ca13b81d6ad4d473460",
    ),
    "i64**3": ("int64", "69591c1aa3bacd13418c788f7c5c35702f328e4b3baccef35f820a893e5a3879"),
    "i8**7": ("int8", "c78d7bcf465ca8e3c8e6c1d07d0c973917781825f3f75be81547541dfcaccc33"),
    "u8**5": ("uint8", "13dece5e5cc4181a528df47e58dc88dc8fb5665e00e9bcf4769e27bbc2cd0178"),
    "bool**2": ("int64", "edc812ba8e724334246628eed11f7c5d0a6d17acba9ca0d98c0db5e0a850f21a"),
    "i32**0": ("int32", "270e275fb4ce30ccd74172c79252ab1ae1581a6cea5925294a3b6f674ca85f30"),
    "i16**1": ("int16", "8ceef2f0226ade9b5843a9be46a9b55b2329d03c448a7b7965214ca3d4e1c3e8"),
    "i64**63": ("int64", "1da5e28b2220ce521a5b8c924e8fd24c8db439115fa7d5c8a16f47ec8d1b0380"),
    "3**i32": ("int32", "c06c2e09a8e05b2031eb3c0a832a68dfdeae567bcb98a99e8751fcdb6bcbb580"),
    "-1**i64": ("int64", "68cff11e6f763ef20c03427a55205864b87030e1959d40d56d2432b31501150e"),
    "i32**i64": ("int64", "67927e6d0380044c9580b7927d0fe85109b142cd35f8d0c5817eacb83ca5c093"),
    "f64**-3.7": (
        "float64",
        "8f14d5dbe7c23438e417250c089745c1857e91029f152f0b700e55119220cbd6",
        "8f14d5dbe7c23438e417250c089745c1857e91029f152f0b700e55119220cbd6",
        "c12183f2c6bad267ec8ab321e7cd1f8fd25a03ebfe69391b26c7baa5dac3d944",
    ),
    "f64**f64": ("float64", "51102157a6255ab9636898764e96388c8226439da12020758b489f5d464529a0"),
    "sin-t": ("float64", "d51a3b79744547c4c16da032e8fa679a44467cf96f55ca14d45b265e0dbdd45a"),
    "cos-c": ("float64", "c6c7a02ff03de505b89c39e7d63d5ef7cb4f20c578f4e8742ac94bd7d737c1f1"),
    "sin-s2": ("float64", "77ea8c0225315a713c3d1b3d0bb5d5c35add2f4bf97011888ad41e6ae9b35325"),
    "cos-129": ("float64", "ed9cfeaaec404f97a913132f74554f484c79246abcdf5825305f2476671f73ca"),
}

# the same under emulation: N1 t1, V1 t4, V2 t1
ARM64_DIGESTS = {
    "f64**2.0": ("float64", "593694f5beb3613ca34d48556d6508f388d21be9f6785a0d86998d83d9b21ee3"),
    "f64**3.0": ("float64", "d6ddfd524634ec7dfb811e233db984de43659aec75f6df6435514fc14e441276"),
    "f64**-2.0": ("float64", "32636776af342e04382c21c5855671d27dc4d9a05b7826301465b3abf5db860e"),
    "f64**-1.0": ("float64", "74fb5d5d3e89b084e498da4e4a8bd74696bffbda3da3604b9ce4edc74a33da19"),
    "f64**-0.5": ("float64", "0f4be7f8ec7f8acaa812a61f5c9a6f1755e335aa53ee7d3b3229a7c2d822bdbd"),
    "f64**0.0": ("float64", "296585db270c8fd083dd60d65cc303bb858be5e9a1758db3e2b0c7e26ea14f84"),
    "f64**1.0": ("float64", "a1956a1d8d1648293c512e67612db0f2e71db89612afbf82aae9dcf07473c34a"),
    "f64**2": ("float64", "453feaae94208e309477abb0df62e3b8dcb7378f26e37b3c4c9e397cafae0bf3"),
    "f32**f64": ("float64", "c54461fc50cf9c82ccaa2cb1d043914ea1e0fbe4cb196bbfb78868328b868ee9"),
    "f64**f32": ("float64", "3903c84c07957394bd74376a97e115583603a6bf61fb231594ab7aabc2c98557"),
    "i64**f64": ("float64", "1374299fcd81def83bea707ebf09f9c0110996a4f1e7d405a7ede0482c94ac32"),
    "i32**f32": ("float32", "e05d25bd845fa004ef1f9e8077ce2d5c9d1958bdd8d7a028b706909db7a7a548"),
    "f32**0d-f64": ("float32", "56b14504ca4b66eda7e7ed66c28cdda80e20809fbd09e3c01c918b696cb5a95f"),
    "0d-f64**f32": ("float32", "b1fa400268bc34974c267294d88466fbdc7378e6ff4f6e8c33c80f1d90e21896"),
    "u8**f64": ("float64", "a78ad16f698cf86b47f795c86ddb7c9093d18cfd2acaae43df08b1235a272f9b"),
    "i64**3": ("int64", "69591c1aa3bacd13418c788f7c5c35702f328e4b3baccef35f820a893e5a3879"),
    "i8**7": ("int8", "c78d7bcf465ca8e3c8e6c1d07d0c973917781825f3f75be81547541dfcaccc33"),
    "u8**5": ("uint8", "13dece5e5cc4181a528df47e58dc88dc8fb5665e00e9bcf4769e27bbc2cd0178"),
    "bool**2": ("int64", "edc812ba8e724334246628eed11f7c5d0a6d17acba9ca0d98c0db5e0a850f21a"),
    "i32**0": ("int32", "270e275fb4ce30ccd74172c79252ab1ae1581a6cea5925294a3b6f674ca85f30"),
    "i16**1": ("int16", "8ceef2f0226ade9b5843a9be46a9b55b2329d03c448a7b7965214ca3d4e1c3e8"),
    "i64**63": ("int64", "1da5e28b2220ce521a5b8c924e8fd24c8db439115fa7d5c8a16f47ec8d1b0380"),
    "3**i32": ("int32", "c06c2e09a8e05b2031eb3c0a832a68dfdeae567bcb98a99e8751fcdb6bcbb580"),
    "-1**i64": ("int64", "68cff11e6f763ef20c03427a55205864b87030e1959d40d56d2432b31501150e"),
    "i32**i64": ("int64", "67927e6d0380044c9580b7927d0fe85109b142cd35f8d0c5817eacb83ca5c093"),
    "f64**-3.7": ("float64", "aeaa02b12beafdbff77b6dd5ac2e538cbe407c0428c44807e2701e384a94874d"),
    "f64**f64": ("float64", "7544ae1335fd96369719a556b55b3fa0dd37c4d06ea1080498d83d10c77c50c7"),
    "sin-t": ("float64", "e22d156bc2aa580f829c77bf0d52da60df4e23003f7436a987dfa1def4254b37"),
    "cos-c": ("float64", "69dcaa1e9e6a7a265bdf535f4532366abcf73e4318365ce0684b84868f679f0e"),
    "sin-s2": ("float64", "d62f63bc9cd1438f9068cd28d3e14e9b0dc0911f287aece8ffe92794dd7640e0"),
    "cos-129": ("float64", "72c91b5bcf0bffaf4b67902ef34a421998f853b5ab1b4f6113e2192150383aaa"),
}


@pytest.mark.parametrize("platform", range(len(PLATFORMS)))
@pytest.mark.parametrize("i", range(len(CASES)))
def test_pow_dtypes_match_torch(i: int, platform: int) -> None:
    label, op, *_ = CASES[i]
    dtype, *digests = DIGESTS[label]
    out = np.ascontiguousarray(replay(op, *replay_args(i), profile_for_platform(PLATFORMS[platform]))["out"])
    assert str(out.dtype) == dtype
    assert hashlib.sha256(out.tobytes()).hexdigest() == digests[platform if len(digests) > 1 else 0]


@pytest.mark.parametrize("platform", range(len(ARM64_PLATFORMS)))
@pytest.mark.parametrize("i", range(len(CASES)))
def test_pow_dtypes_match_torch_on_arm64(i: int, platform: int) -> None:
    label, op, *_ = CASES[i]
    dtype, *digests = ARM64_DIGESTS[label]
    out = np.ascontiguousarray(replay(op, *replay_args(i), profile_for_platform(ARM64_PLATFORMS[platform]))["out"])
    assert str(out.dtype) == dtype
    assert hashlib.sha256(out.tobytes()).hexdigest() == digests[platform if len(digests) > 1 else 0]


@pytest.mark.parametrize(
    ("op", "inputs", "args", "platform", "match"),
    (
        # torch raises "Integers to negative integer powers are not allowed"
        ("aten.pow.Tensor_Scalar", {"self": np.arange(4)}, {"exponent": -1}, "x86_64-avx2", "negative powers"),
        # int8's exponent conversion overflows: torch raises
        ("aten.pow.Tensor_Scalar", {"self": np.arange(4, dtype=np.int8)}, {"exponent": 300}, "x86_64-avx2", "fit"),
        # MKL VML's vdSqrt on MKL's Intel AVX-512 path (its kernel not read)
        ("aten.pow.Tensor_Scalar", {"self": np.ones(3)}, {"exponent": 0.5}, "x86_64-avx512-mklavx512", "vdSqrt"),
    ),
)
def test_pow_refusals(op: str, inputs: dict, args: dict, platform: str, match: str) -> None:
    captured = [{"name": "self", "tensor": "self", "stride": [1], "shape": [inputs["self"].size]}]
    captured += [{"name": k, "value": v} for k, v in args.items()]
    with pytest.raises(ParityError, match=match):
        replay(op, inputs, captured, profile_for_platform(f"linux-{platform}-t1"))


def test_float64_square_root_on_aarch64_is_ieee() -> None:
    """vsqrtq_f64 and fsqrt (no MKL on aarch64): IEEE, a negative's NaN aarch64's default +qNaN, a NaN quieted."""
    x = np.array([2.0, -1.0, -0.0, np.inf, 5e-324], np.float64)
    x = np.append(x, np.uint64(0xFFF0000000000AB1).view(np.float64))
    args = [{"name": "self", "tensor": "self", "stride": [1], "shape": [6]}, {"name": "exponent", "value": 0.5}]
    out = replay("aten.pow.Tensor_Scalar", {"self": x}, args, profile_for_platform("linux-arm64-neoverse-n1-nvpl-t1"))
    want = [0x3FF6A09E667F3BCD, 0x7FF8000000000000, 0x8000000000000000, 0x7FF0000000000000, 0x1E60000000000000]
    assert out["out"].view(np.uint64).tolist() == [*want, 0xFFF8000000000AB1]
