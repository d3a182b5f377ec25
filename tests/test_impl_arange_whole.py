"""arange of whole numbers into float64 (RT-DETR's and D-FINE's sine position embeddings) and into integer
dtypes from whole float arguments (Funnel's ``arange(0, n, 1.0, dtype=torch.long)``): every ``start + step *
idx`` exact, so the trace's replay is NumPy's. The digests (SHA-256 of the output's bytes) are torch 2.13.0's,
recorded at default, avx2 and avx512 on 1, 2 and 4 threads on a Zen 5 (the same bytes everywhere). No torch
here."""

from __future__ import annotations

import hashlib

import pytest

from harness.core.errors import ParityError
from harness.impl.profiles import profile_for_platform
from harness.trace.impl_ops import REPLAYS

# (the replay's arguments, torch's output digest)
CASES = (
    ({"end": 8, "dtype": "torch.float64"}, "e718add56286e18ff81450763e0c2f227a35a73195fe0ed038a3d155711599e9"),
    (
        {"start": 0, "end": 16, "step": 1.0, "dtype": "torch.int64"},
        "f23d672bb9b341f9afa8498423b75deb80e726145969391d4b9392464c2298ee",
    ),
    (
        {"start": -32, "end": 32, "step": 1.0, "dtype": "torch.int64"},
        "cf1c09df17d721dbd7979994385969ba2727c483c5d135925407b26249b61e52",
    ),
    (
        {"start": -0.0, "end": -70001.0, "step": -1.0, "dtype": "torch.float64"},
        "a65b1a886c8f01ef2332aee12274d6ec2fd91112eed95bb0782d32f884354adc",
    ),
    (
        {"start": -0.0, "end": 50.0, "step": 3.0, "dtype": "torch.float64"},
        "879bc1293c37a6fa2e1b113e36cf20d794e4bb077602099a0aded02731f7f93a",
    ),
    (
        {"start": 2.0**40, "end": 2.0**40 + 210000.0, "step": 3.0, "dtype": "torch.float64"},
        "c2373dffced32f8c9e783fcc95099ac2c3aa0a8dea9084a2a2fbbc145dd0b082",
    ),
    (
        {"start": 5.0, "end": -100.0, "step": -7.0, "dtype": "torch.int32"},
        "db14139286f4c57e8095f930efed4b164198ea19afdf8ae38cf24a53268a62a2",
    ),
)


@pytest.mark.parametrize("threads", (1, 4))
@pytest.mark.parametrize("i", range(len(CASES)))
def test_whole_number_arange_matches_torch(i: int, threads: int) -> None:
    args, digest = CASES[i]
    out = REPLAYS["arange"]({}, args, profile_for_platform(f"linux-x86_64-avx2-t{threads}"))["out"]
    assert hashlib.sha256(out.tobytes()).hexdigest() == digest


def test_float64_arange_of_a_fractional_step_is_refused() -> None:
    with pytest.raises(ParityError, match="float64 whole numbers"):
        REPLAYS["arange"](
            {},
            {"start": 0.0, "end": 1.0, "step": 0.1, "dtype": "torch.float64"},
            profile_for_platform("linux-x86_64-avx2-t1"),
        )
