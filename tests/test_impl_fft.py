"""ATen's CPU FFT (``_fft_c2c_mkl``, ``_fft_r2c_mkl``, ``_fft_c2r_mkl`` in native/mkl/SpectralOps.cpp: MKL
DFTI on the x86 wheel). harness/trace/impl_ops.py indexes its three ops under the kernel index's
``fft`` row and replays them through harness/impl/fft.py for the lengths modelled (bit for bit:
tests/test_impl_live_fft.py), refusing the rest in one line. Live, the row's measured
claims are held to the running torch: random transforms and their gradients give one set of bits
at each level this CPU runs (ATen's capability and oneDNN's ISA pinned together, in a fresh
process); complex ones (fftn over two dims, of complex or real input) on 1, 2 and 4 threads too,
while real ones (rfft, irfft) give other bits on 1 thread than on 2 (the same on 2 and 4).
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np
import pytest

from harness.core.errors import ParityError
from harness.impl.kernel_index import WHY
from harness.impl.profiles import get_profile
from harness.trace.impl_ops import kernel_op, refusal, replay
from tests.bit_digest import bits_sha256

FFT_OPS = ("aten._fft_c2c.default", "aten._fft_r2c.default", "aten._fft_c2r.default")


def test_fft_ops_are_indexed_and_refuse_unmodelled_transforms_in_one_line() -> None:
    x = np.zeros((2, 3, 2048), np.complex64)
    for op, knobs in zip(FFT_OPS, [(), ("threads",), ("threads",)], strict=True):
        assert kernel_op(op) == ("fft", knobs)
        assert refusal(op) is None  # replayed (harness/impl/fft.py) for the lengths modelled
        args = [
            {"name": "self", "tensor": "self"},
            {"name": "dim", "value": [2]},
            {"name": "normalization", "value": 0},
        ]
        inputs = {"self": x.real.copy() if "r2c" in op else x}
        args += [{"name": "last_dim_size", "value": 30}] if "c2r" in op else []
        with pytest.raises(ParityError) as err:  # length 2048 (c2r: 30): DFTI's kernels for it are not modelled
            replay(op, inputs, args, get_profile("x86-avx2", 1))
        assert "not modelled" in str(err.value) and "\n" not in str(err.value), str(err.value)
        # nor on the aarch64 wheel (pocketfft) a length with a factor other than 2, 3 and 5 (c2r: 14 from 8 bins)
        odd = np.zeros((2, 3, 8 if "c2r" in op else 14), np.complex64)
        odd_args = [*args[:3], *([{"name": "last_dim_size", "value": 14}] if "c2r" in op else [])]
        with pytest.raises(ParityError) as err:
            replay(op, {"self": odd.real.copy() if "r2c" in op else odd}, odd_args, get_profile("arm64-neon", 1))
        assert "length 14" in str(err.value) and "\n" not in str(err.value), str(err.value)
    assert refusal("aten.mm.default") is None
    assert WHY["fft"].startswith("thread count")


def test_fft_scale_paths_follow_threads_transforms_and_layout() -> None:
    """Torch-free: DFTI's real 12-point kernels fold a 1/N scale in on one thread or one transform of
    contiguous rows, and multiply after on its threaded path or from strided rows; the two differ, and
    the latter is the unscaled transform times float32(1/12) exactly."""
    from harness.impl.fft import fft, strided_rows

    x = np.random.default_rng(3).standard_normal((6, 12)).astype(np.float32)
    one, two = get_profile("x86-avx2", 1), get_profile("x86-avx2", 2)
    folded, after = fft("r2c", x, [1], 2, one), fft("r2c", x, [1], 2, two)
    assert not np.array_equal(folded.view(np.uint32), after.view(np.uint32))
    assert np.array_equal(after.view(np.uint32), (fft("r2c", x, [1], 0, one) * np.float32(1 / 12)).view(np.uint32))
    assert np.array_equal(fft("r2c", x[:1], [1], 2, two).view(np.uint32), folded[:1].view(np.uint32))  # one transform
    transposed = np.ascontiguousarray(x.T)  # (12, 6), dim 0: DFTI's strided rows
    strided = fft("r2c", transposed, [0], 2, one)
    assert np.array_equal(strided.view(np.uint32), np.ascontiguousarray(after.transpose(1, 0, 2)).view(np.uint32))
    assert strided_rows((12, 6), [6, 1], 0) and not strided_rows((6, 12), [12, 1], 1)
    assert not strided_rows((2, 12, 3), [36, 3, 1], 1)  # batch dims that do not collapse: ATen's copy
    assert not strided_rows((8, 12, 8), [0, 0, 0], 1)  # expanded: a copy
    assert not strided_rows((8, 7, 8), [56, 1, 7], 1)  # batch dims ordered by stride collapse to rows


def test_fft_power_of_two_real_kernels_follow_the_threaded_path() -> None:
    """r2c of 8, 16 and 64: DFTI's threaded path over contiguous rows (2+ threads and rows) runs other
    kernels (8, 16: the odd eighths as products, not one sum times sqrt(1/2); 64: the complex kernel, not
    the 32-point one with a recombination) than one thread, one row or strided rows; c2r of 8, 16 and 32
    and r2c of 32 are refused there. The complex kernels take no thread knob."""
    from harness.impl.fft import fft

    one, two = get_profile("x86-avx2", 1), get_profile("x86-avx2", 2)
    for n in (8, 16, 64):
        x = np.random.default_rng(n).standard_normal((6, n)).astype(np.float32)
        single, threaded = fft("r2c", x, [1], 0, one), fft("r2c", x, [1], 0, two)
        assert not np.array_equal(single.view(np.uint32), threaded.view(np.uint32))
        assert np.array_equal(fft("r2c", x[:1], [1], 0, two).view(np.uint32), single[:1].view(np.uint32))
        strided = fft("r2c", np.ascontiguousarray(x.T), [0], 0, two, stride=[6, 1])
        assert np.array_equal(strided.view(np.uint32), np.ascontiguousarray(single.transpose(1, 0, 2)).view(np.uint32))
        if n == 64:  # the complex 64-point kernel on the threaded path, the 32-point one with recombination off it
            continue
        z = np.random.default_rng(n).standard_normal((6, n, 2)).astype(np.float32)
        assert np.array_equal(fft("c2c", z, [1], 0, one).view(np.uint32), fft("c2c", z, [1], 0, two).view(np.uint32))
        h = z[:, : n // 2 + 1]
        fft("c2r", h, [1], 0, one, last_dim_size=n)
        for kind, a, size in (
            ("c2r", h, n),
            ("r2c", np.zeros((2, 32), np.float32), 0),
            ("c2r", np.ones((2, 17, 2), np.float32), 32),
        ):
            with pytest.raises(ParityError, match="threaded path"):
                fft(kind, a, [1], 0, two, last_dim_size=size)


def test_fft_root_n_scale_and_several_dims_are_composed_as_measured() -> None:
    """Torch-free: a 1/sqrt(N) scale multiplies after the transform, its real kernels those of DFTI's
    threaded path on one thread too (strided rows excepted); several dims are 1-D passes, the last dim
    first, the scale after the measured pass; c2r over several dims reads ATen's c2c result in its layout."""
    from harness.impl.fft import _c2c_out_stride, _scaled_pass, fft

    one, two = get_profile("x86-avx2", 1), get_profile("x86-avx2", 2)
    rng = np.random.default_rng(11)
    for n in (8, 12, 16, 64):
        x = rng.standard_normal((3, n)).astype(np.float32)
        s = np.float32(1 / np.sqrt(n))
        ortho = fft("r2c", x, [1], 1, one)
        assert np.array_equal(ortho.view(np.uint32), (fft("r2c", x, [1], 0, two) * s).view(np.uint32))
        strided = fft("r2c", np.ascontiguousarray(x.T), [0], 1, one, stride=[3, 1])
        off = np.ascontiguousarray(np.moveaxis(fft("r2c", x, [1], 0, one) * s, 1, 0))
        assert np.array_equal(strided.view(np.uint32), off.view(np.uint32))
    with pytest.raises(ParityError, match="1/sqrt"):
        fft("c2r", rng.standard_normal((1, 5, 2)).astype(np.float32), [1], 1, one, last_dim_size=8)
    z = rng.standard_normal((2, 24, 12, 2)).astype(np.float32)
    passes = fft("c2c", fft("c2c", z, [2], 0, one), [1], 0, one)
    assert np.array_equal(fft("c2c", z, [1, 2], 0, two).view(np.uint32), passes.view(np.uint32))
    scaled = fft("c2c", fft("c2c", z, [2], 0, one) * np.float32(1 / 288), [1], 0, one)  # after the 12-point pass
    assert np.array_equal(fft("c2c", z, [1, 2], 2, one).view(np.uint32), scaled.view(np.uint32))
    assert [_scaled_pass(ls) for ls in ([12, 24], [24, 12], [16, 16], [24, 8, 64], [32, 24, 12])] == [0, 1, 0, 1, 2]
    assert _scaled_pass([12, 16, 12]) is None and _scaled_pass([8, 8, 8, 8]) is None
    assert _c2c_out_stride((1, 8, 7), None, [1]) == [56, 1, 8] and _c2c_out_stride((2, 8, 7), None, [1]) == [56, 1, 8]
    with pytest.raises(ParityError, match="ascending"):
        fft("c2c", z, [2, 1], 0, one)


# torch 2.13.0's rfft and irfft of length 480 (NeuCodec's ISTFT head) over the rows below, on 1 and 2 threads
# alike (a Zen 5: DFTI's generic path), unscaled, 1/N and 1/sqrt(N): the SHA-256 of their uint32 bits
FFT480 = "7b0292137fbb48a7b95b1541fdd74adb78b540b6e11bf9c50c6d1ac3cc123d5c"
# its fft and ifft (_fft_c2c) of _inputs_480()'s complex rows per torch norm, and rfft of its signed-zero rows
# (7,300 zero results, every one +0: the Fact passes multiply bin 0 by (1, -0) too), on 1 and 2 threads alike
FFT480_C2C = "27d29ba8d1ca16c91018c4201b7bf55f10edb585472aa1b620bf784b03e760ed"
FFT480_ZEROS = "b99bab42437ac74e6896e8cfd4d8ca8d03a5413a5224cb289fcb500fe0241793"


def _inputs_480() -> dict[str, np.ndarray]:
    """Complex rows, and real rows of signed zeros (sign by residue mod 2 to 60, all -0, random) or holding one
    value among signed zeros, as NeuCodec's ISTFT backward hands rfft where its gradient is zero."""
    rng = np.random.default_rng(4800)
    i = np.arange(480)
    zeros = [np.where(i % m == r, -0.0, 0.0) for m in (2, 3, 5, 16, 32, 60) for r in (0, m - 1)]
    zeros += [np.full(480, -0.0), *(np.where(rng.random(480) < q, -0.0, 0.0) for q in (0.5, 0.98))]
    sparse = np.where(rng.random((6, 480)) < 0.5, -0.0, 0.0)
    sparse[np.arange(6), rng.integers(0, 480, 6)] = [1.0, -1.0, 0.5, 3.0, -2.0, 0.25]
    return {
        "complex": rng.standard_normal((3, 480, 2)).astype(np.float32),
        "signed_zeros": np.concatenate([np.array(zeros), sparse]).astype(np.float32),
    }


@pytest.mark.parametrize("threads", [1, 2])
def test_fft_480s_kernels_match_torch(threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Torch-free: 480's real kernels run the 240-point complex transform (5 x 48, ct_odd) of the even/odd
    pairs with the recombination passes; its complex kernel is DFTI's PrimeFact plan 5 x (4 x (3 x 8)), the
    8-point DFTs of the last residue of 3 radix 2; the Fact passes' table products and the recombination's
    pairs give rfft's zero results DFTI's signs on the rows recorded (c2c's and c2r's from -0:
    test_fft_zero_signs_from_negative_zero_match_torch); a NaN or an infinity is refused."""
    from harness.impl import fft as fft_module
    from harness.impl.fft import fft

    p = get_profile("x86-avx2", threads)
    rng = np.random.default_rng(480)
    x = rng.standard_normal((3, 480)).astype(np.float32)
    h = rng.standard_normal((3, 241, 2)).astype(np.float32)
    outs = []
    for forward, inverse in ((0, 2), (2, 0), (1, 1)):  # ATen's normalization of rfft and irfft per torch norm
        outs.append(fft("r2c", x, [1], forward, p))
        outs.append(fft("c2r", h, [1], inverse, p, last_dim_size=480))
    got = hashlib.sha256(b"".join(np.ascontiguousarray(o).view(np.uint32).tobytes() for o in outs)).hexdigest()
    assert got == FFT480
    cases = _inputs_480()
    z = cases["complex"]
    c2c = []
    for forward, inverse in ((0, 2), (2, 0), (1, 1)):  # fft and ifft per torch norm
        c2c += [fft("c2c", z, [1], forward, p), fft("c2c", z, [1], inverse, p, forward=False)]
    assert bits_sha256(np.concatenate([o.reshape(-1) for o in c2c])) == FFT480_C2C
    zeros = cases["signed_zeros"]
    assert bits_sha256(fft("r2c", zeros, [1], 0, p)) == FFT480_ZEROS
    with monkeypatch.context() as patched:  # the guard is not what answers them: the kernel's zero signs
        patched.setattr(fft_module, "_reads_negative_zero", lambda *_: False)
        assert bits_sha256(fft("r2c", zeros, [1], 0, p)) == FFT480_ZEROS
    for kind, a in (("r2c", x.copy()), ("c2c", z.copy())):
        a.reshape(-1)[7] = np.float32(np.nan)
        with pytest.raises(ParityError, match="NaN"):
            fft(kind, a, [1], 0, p)


# torch 2.13.0's rfft of tests/fft_zero_sign_cases.py's 361 zero-heavy rows of 480, fft and ifft (unscaled) of
# them as 240 complex pairs, as 480, 336, 168, 112 and 56, irfft (unscaled) of them as 241 bins, rfft and irfft
# of 224, and fft and ifft of 120 rows of 480 complex signed zeros (480z); the rows cut into pieces: fft and ifft
# of 8, 16, 20, 24, 28, 32, 40, 48, 64, 80, 96, 144, 160, 192 and 224 (and of 320, 400, 448 and 720 from every
# second row laid end to end), rfft and irfft of 32, 40, 48, 64, 80, 96, 160, 192 and 400 (32 and 64 on one
# thread: two take DFTI's threaded path), every eighth row cut so for fft and ifft of SPARSE_C2C and rfft and
# irfft of SPARSE_REAL, and fft and ifft of 40 rows of signed zeros at 320, 400, 448 and 720 (320z ...); on 1 and
# 2 threads alike (a Zen 5: DFTI's generic path); fft_zero_sign_cases.operands() lays them out
FFT_ZERO_SIGNS = {
    "r2c_480": "a515491db4c59653c041e2f899e6de53cb2708be1e8a5fafa77aa75571394817",
    "c2c_240": "6e035b29bf379bfdfe56d245da2a5f71137936355583a6a0f7d08e6370521047",
    "ic2c_240": "218ffb9c940eb9624b6c686c223aaba148e82d40279f2959213bf65dd304e324",
    "c2c_480": "985d99952d0e9e2efe8f5e66786999ffd6dab56230ea22efc8c40cbab0f76b6a",
    "ic2c_480": "77a587835e40862e19a7d2f8f06c0dcd253a27135b6e0152e7adbe1788a7e205",
    "c2c_112": "40e00b5718b31b70c76c7856e2aac545968076b038ccfadfb93fc5c25af9244d",
    "ic2c_112": "d100632a6eb2ed707958cf2e489f16d8691a024610ad367474ccfeece4a5d29e",
    "c2c_480z": "1d92941af097bd6a9abf9d8e140c3bc93733d446516acc256af09e121f3b0982",
    "ic2c_480z": "9609befda41c0cec3ce8dbbbbf3472c36cbf5985683adb65999c6a21c3d086be",
    "c2r_480": "02c55e95ec29c11c2ea3b0dddfa141b4d9e0f4cdf9537c3332e81632ec142b38",
    "c2c_56": "4428df29a535aea59bddc1bfc46e753dc5ce36071f2797d467a4c16595d65ddb",
    "ic2c_56": "be0eda52ccd8fd0f5662d007d8cd9efa2289a0e608dbdf7ae32d3568512b2375",
    "c2c_168": "078aa028f60e7e792e74a46d964df3eb35a8d1f3bae7678ebd6cbe8f814e70ec",
    "ic2c_168": "5ac71b4ea721c2855278c315a65dcce3ed01b17034ad61c895d807676711e573",
    "c2c_336": "16e86dda5666302b92f02d47baf9856cd3703060d1b6e4292cf372b5f76dec02",
    "ic2c_336": "3afa8ede552833f78ed8e756582b1e32cea9ff4afa9803a09c9d0b1ff11fea94",
    "r2c_224": "bed39a71af0f14adb1151864dca15c0591ea3e46dff8a21b52ad0d2ac78fd6f9",
    "c2r_224": "82757b7d1027fadbd587b0dd56a67ded4bd6f81c8d93e1dbb99eff0b034ab345",
    "r2c_80": "6e951584634887d1148903e4590b7abaa4016a8ab076dad2b473b7971c6f8eaf",
    "r2c_96": "96b8a5f91562ccf8f87c5319ca7c1e9007d06ee156c6f099cd9ee7e7b2cee24f",
    "r2c_160": "2cd0d10db93259ef9cabb969321c60cdb67f99efb7ffbd17f0cf416c34f0b41e",
    "c2c_28": "093809c546465c9d03e416523e4049543c1b31b2029a274c6733f62e88be289a",
    "ic2c_28": "04f44b945fd970b58b052bc4b5e9853c10355c6da8391b457b750bdad279bc5c",
    "c2c_40": "ae459f21bf34954c7e0471b3bdcef0ab9835c43149809e5cfa07988b4e9c198d",
    "ic2c_40": "86075ed8cffbfc047a7ba332c3318bd363ba57779d066cc034c4e35d3a0f5d62",
    "c2c_80": "7e5794c1c90b1f1ac6c6e539ab03dc03a57bb10ff2233682c2e0a9be312f3c97",
    "ic2c_80": "b96484e2ab44ca967dd74e5d1ed1086dc817d29e6837aee7aa2204499514ea18",
    "c2r_80": "ff0bcdf3c44445f915e14b7fd8b8c5d6f0ad93c4fb2f521f296fc7d38fd16884",
    "c2r_96": "6dffe12c269c97fed26f1aa7539d1acec7de8106ea9f0317ecccd45ab21f5f87",
    "c2r_160": "ccbc5bc436130ea3227cc3230b35ee7fd937bf8c7b22d710fd51af3da6db6ccd",
    "r2c_48": "c1dc44a86083d8e93e5e6fe19b8182543d018c8eaffb84a6b30f14f3eeabb576",
    "c2c_24": "aa4be152e21f7a59696f71f68c4038060f65c8b5db12d7437aee1c0d5968f657",
    "ic2c_24": "5b0a7666981ba08014ef98d10c49206bcbbf4b1375d851190d9eddb3c36377d9",
    "c2c_48": "7907b00d08a6e4f7452bfe20e46934ba59ecfca3bc497a5ce1b2e9726dceb328",
    "ic2c_48": "da5c7097767bdd9421ce2dc6e7ab99cc6481d382a84d7f6c6b2e556a5cf8f3da",
    "c2r_48": "a32ac8ce4d604e262264df1d067d08bfecf9c1f13d4f0abbaa384d6a7d1176e2",
    "c2c_160": "da46aa9ed01cf06176414e0ae9a8a0d0f6269748efce87d403722303543457c8",
    "ic2c_160": "0de410bb449ac38a86bb6c7cde09725b6f97e2968d23edcf1eedba5f0618a9f0",
    "r2c_32": "f7912bbca62e404394b38ff855074538349cb0dec8d0697a26d253a22c6bd402",
    "r2c_64": "980102c2948ca75a2b4bc4246c6d6d5282b61497c8e5e8071fe7ddb4e6c299df",
    "c2c_8": "66887f1ed1d1d70128bf3263b27b1445fc9ab7f887f80f43e7c0138cb3a72649",
    "ic2c_8": "999adcbc7377a5922fb2d52284b5639da26d0938762a6cdeb79c4e95ccedb9a4",
    "c2c_32": "36bd3fd30aa5c9fa36567ff595e27578610d9e2e21a6f980be4d39041788773e",
    "ic2c_32": "8deec3525e601264f11009d74c5be7a2014aea04e89d9cf04f9b1d5a69c96ac5",
    "c2r_32": "f26c6973bfda40b03ba087fe60a3b5c958018706937b98e78a1c8c2174a75c7a",
    "c2r_64": "7182bad3e827e3e415b81d07101dd8e8a65168b829a594a38bffb3542a9d2eb6",
    "c2c_16": "e1a709584fbfa6e005ff24c059521d7d69ef603c16b23dc9508d599a1181b5ff",
    "ic2c_16": "bf6c912ce7fe781d7b3ce01cd6f74b73c181da7f80486d278d53f0458370911d",
    "c2c_64": "43d807cce955b1818109b57740450297eb83aa1217cc3e0069d351fba30d621c",
    "ic2c_64": "6a3b93bd597af72dfa0c77a9bcd13f906c26472dc16cda291961dc7c8a2aec5b",
    "c2c_96": "05e7e0dd5d1fd0625f6a19b4051617f14f89732dccd8ac1866dfeaec6af5aca0",
    "ic2c_96": "57cd0fff128823eaf8fd5f29067d658c4c20d94fdead4f6afa8860a66338dbca",
    "c2c_144": "bd988b6df2804587ebe3cdfb8dc218eb9b30b3c2433d0c53cb50576dbe8cb37d",
    "ic2c_144": "6ebc06f75acff564a1c6b6977ab5ffcfc5ce9cf3260c50620e661ec463ce9d46",
    "c2c_192": "a92a3d34a985071a6c40c782b92654141b1d00d59e39d78915d922c6bf4de037",
    "ic2c_192": "140a085c616ed1cfef2b1d27533a0b9576b907cd02c5502be3a441d70bc7a495",
    "c2c_224": "1757abdcc91fd19aa86fad040ecb5040515530cf6a98cbdeb7c70d8e3245c324",
    "ic2c_224": "4c14e8d3c172e687d7df2a0773d194735529e09ed99fc62ce587eb23c9d1f357",
    "r2c_40": "8836ea6a803ec6b2e8d43f45e2a1af633ef568058dc0d6f5b360c60890a2adcd",
    "r2c_192": "24986bb5004162bee81a1ea8093f3e34890b717e50d470a51848f12bc3cd0843",
    "r2c_400": "f848e3f0226c2970f0605bd3b9baa2af60b566fc267ff825baa4a9bfb4cbd9f9",
    "c2c_20": "6095abebcf84d211a808eff2d812c4bd37986b24aee343acc441f72f5c2926e4",
    "ic2c_20": "cb3fb8760fc0edc2471560f378d1e45baff7c7221f03de221af1e9f3e4427b58",
    "c2c_320": "2612648cba66cafb79598f1addfbdf21342646bd66c37437885b2d0100313b3f",
    "ic2c_320": "911c834f1ef924020502c2767671013cb1ca8131e6e97b6fe71cf213ff5b4d57",
    "c2c_400": "ac9eaf80ac811c03f857a9971768cb499a642c5823adf649a41afe40f160d333",
    "ic2c_400": "06025850066022e2fe4798b44d192bf54d84cb712134b88e509d788bfd3702de",
    "c2c_448": "e12e3e57ddef0c5e9d9518f78e7e6bf6b54984c0702df46a535e1610902128c7",
    "ic2c_448": "ed9eefe332a3882269f1953d5c82a341c4a620b0b52b3387ed0fcb30865a87fa",
    "c2c_720": "7af65e58947a9a849c64a5d62a0802cb98ddefa65974037a39812b5b1df0afee",
    "ic2c_720": "4f55b4f8447ebac1f71333cc475a782023ba1db7c64b9053baa76e9bf8819936",
    "c2r_40": "d04044e625985a7b780e53f18e36b9a76681904d6ede09c520022136adc84145",
    "c2r_192": "2c75f90006b1903caaecd5ccb66b3205e2631a5412a27ed261ad449c3cfec056",
    "c2r_400": "a9c1e149ace885e07d72ad8ebdeaafc69f9af29be0139445cde6e13eb81ec09e",
    "c2c_320z": "e7fee1a9f159cf953f43158fa5f3a65c6b72675de9cb103d34817051e8fcce8e",
    "ic2c_320z": "f4f8da98c291b9fbfa1186a1f0b216e9d96f5e3cf1933ec5c06780831a68b4cb",
    "c2c_400z": "d81be252a654e89d93bfa6db45a87365bad2d2c3731f90119c457fd5bdffa9b3",
    "ic2c_400z": "299d1b3e75c0390e7a2315186afde8f98c976c7ca277161db1d882a3fff49263",
    "c2c_448z": "b6ec3ca70f3576eaa3f6b681daf88638d2e4b66a11d67c529eb4963236bddb1a",
    "ic2c_448z": "5672a8b40ef202f50eb2888080a511294bca3d32818a8cbe7b01bbe05bdbee9f",
    "c2c_720z": "169e4fd1627c9b112d907a6f7163418749261c18e71fa16100ac4142a3ebe306",
    "ic2c_720z": "7b9ed783b1640efb1c9c2d901281c2e6f4c379d486441408527bb356266b38e8",
    "r2c_56": "7def2646ec4d8069e9bba93f12ffbca876d3ad8f92014670776216c95d56e75e",
    "r2c_72": "c1713518befb9ed4071e5ab65a0b1ca3a01b61bf5607144c425229f43c8cb438",
    "r2c_112": "dabb9fef9ae5088ffb3f73eb12800e0cf387c563f9d352e320d568996e1c574a",
    "r2c_120": "c4d9c215de13dff82653a8b5a2298ed68163726914f9f567f815ae2564085697",
    "r2c_144": "75d8d9706764ee99662896b11b96e89b3c22a3cd92a7b73a34570c09599d54a2",
    "r2c_168": "145100a04eebad38e645918bebd137c704678010785b3d38f36f8af307bd133e",
    "r2c_200": "e0b06827f265978c044e582ac9892b97941dda9d658d18964ffec355abbf36d6",
    "r2c_240": "f9f812d191329ed3032d1375354152cae3807a3674bcedd0eb72837faeb63c45",
    "r2c_280": "25e51637f804efea37b4973d89bbacaf91062a5cc76db88f0c3e3e054011c1c9",
    "r2c_288": "926fa30dfee540619eb3c42afd8f4087a27bd755d76be6cb64c99b1842252aea",
    "r2c_320": "0e7948c5793f2b01cb31d8a6a602230aad63d69f39feb2fe945bd26b2fe3ec43",
    "r2c_336": "1a7880cc64922c5f6cbd17af24b1194a064adffbf3348d1c08dd7f863027ccfd",
    "r2c_360": "cffe9d79b421ff312799f13aa4488d4cb6d5915122cdc36b80e17a6c4fc6e2ce",
    "r2c_392": "14c839e4da81af372c9b2cf580d366eb254f5733a3d7b12bb086782eb85b190d",
    "r2c_448": "f994de80a8760ee39a08b3ebbf16e18ca5446322ea2b64816327d30c4a2b0b45",
    "r2c_504": "7b56abb03a297139c017df59b941b1c740c7fe6d14a2d0159d30b6b1945d1178",
    "r2c_560": "9c65c23d018ddce3a247e3cbe394beb61be9bff4822382b88a39fb6ad0e4c309",
    "r2c_640": "0b4a27986637fccdfa4e3134c19edbf95932ae031dcf43a5d07fb4075ec0fed1",
    "r2c_672": "de5cfc9d221d2fa04c64396419a9ba09d3343ca532338878a8359bbb0a47274c",
    "r2c_720": "b5193315da72a0c58fda36c4943ab5bd675780a39ba82515debbeb65f68a397e",
    "c2c_36": "6392514af7c867da0fb0938b2281f292b432f8611305168c4ce8bf9a209d45cb",
    "ic2c_36": "a6abf5e30f91e69e0fb8b601076536e5cc043ea9eb00159f5aa3adccd2920487",
    "c2c_60": "5a8592546035427fd2df3515ca0a057d785c54cfcb55b3afa2866378e5ed0dea",
    "ic2c_60": "865c4daf18d3e11a036d6e8d4bcfe2893f613776ce918a7602f6488cd19ef839",
    "c2c_72": "fc161cf05f106ee86749ce628a06e13f0e50a8d0580ae86b5d4544a35e39ac19",
    "ic2c_72": "cf34d8007adbfde7bed88384b6e73677fb8343e8d9ca9ea15160ba00e30ab51d",
    "c2c_84": "8529c588e5367e15dba0a70424b7773315d133b34b9979a91ede42d54dd216de",
    "ic2c_84": "d289398d87b81c148032064b5333fa05c3fbd5670ef6a520c151a80ae0b4b132",
    "c2c_100": "3aa675b6de92dc0ebe1ada26480b95508827ca96145c195c6f94b32b683c44d8",
    "ic2c_100": "03a0299a270bb8410b991de80163ffae098b9f7940ab68741f5533f1cff5efaa",
    "c2c_120": "df70609ee2530d90c02cc6d3a49c5d71023d1bd17f8a9871711af122c693a367",
    "ic2c_120": "5c5142789e979c470c653a57951e9301e4d3ae1b326d5d1fb0c66a8c788b4148",
    "c2c_140": "c78d0b7bcab0294e4b8f6fe6a09e1f71c1fd819a5e86fc8cf46ccc966930a4a7",
    "ic2c_140": "f6255a31f2df503bdb0eaf31e130b8713dd8bd807faf82a4b6087a563ed545b3",
    "c2c_180": "4057e15e447f18dfc27ca16d9e929d778317f5d482117eaa2d50ab8d431e13ba",
    "ic2c_180": "061990fc2f9cb3f3c9689fe7f949dd677fb088154d26ad3138114def3cadba11",
    "c2c_200": "e6ef6e75a9114c0880eb216832bdc4ad1b0ad3ea35ca3fde504132bc16226285",
    "ic2c_200": "c0ea6743789437d1fd644fe80e1329d6ca31e9aa7666fe548e50bfc9b2ae56b0",
    "c2c_252": "b42b026dfd7dd3de62f8150244e565b2ecdca405855f364a947fb37968f873ce",
    "ic2c_252": "f3db44d30ed26d977d3e220f0c55cfc3890298f509e50891dbc0d8d07bf6865a",
    "c2c_280": "b12093da8d5083d6adc4aa4efd80eab210b528877015b769bcf1c5e3bd6cd303",
    "ic2c_280": "f67e5ec4c6663d5e764fbc0ebcab0037fbe968839ddea27aa9445dc65c94b11e",
    "c2c_360": "cdbdb4f875a01f273c65ffc6b791fc63aa9db6cb46b9bb0ad264544105858ec9",
    "ic2c_360": "3bb1e3ce80aa4e636943ba03555d0df9b5bd649c71ab12e5988d3be3db0750f2",
    "c2c_392": "713b7101fc199691f5f540e4b2e685d3c8b9e8e0837efe9042e787c66bf6782e",
    "ic2c_392": "5e8683ad1f0b20fad226c862cd23396f3e14c88bf85bd1b96eb472467fd4c519",
    "c2c_504": "7f4e9a4a069e5feafadf59b7c34dc99e6b751ddb8c00fedfa537e8c3609d99a5",
    "ic2c_504": "8f200603436f87fcd8aa2fb0aceff9996fd5d8ae47fd03bf0d6c291680bbb4a0",
    "c2c_560": "65c8c064860decc4ee1f74c381842a5057b2ff8b45832ece71abf2b4e07f755d",
    "ic2c_560": "a3d4c781e1f04df477c13f0b0fac189cf52de6587bc2c766ebdc9f52ef3b4101",
    "c2c_700": "8de892fc85b7217c0115355a349bbd733ea6fd52a1b7b9c83323415e87c9f831",
    "ic2c_700": "295481b3a8e05547460f96865a8cccce4288ce7b30c788d8462ef5d7ef3b95ce",
    "c2r_56": "cf009bacd0005307142128fa5c938f1ece377734e174af816884088c8adf72a3",
    "c2r_72": "8253d0c82bd4f4fb0db3a5bcc059636d700a5eec2677c4e42e42b25d179ace66",
    "c2r_112": "c39b9149e83d406a76a49780a3c35249ad37e01c22c0f8111823f01cc56f2e18",
    "c2r_120": "6e8085c607644e9ed17fbb9ab4fec06a522428840f37c060dabc695d3a3406ef",
    "c2r_144": "01dcd3c9abacf52ea06c8db5613c162e030fb76b035d1b58ef1e40aed5861991",
    "c2r_168": "7f339bce403a6a0341d226b0457170c843f06d26fac0bff49856a7c2c0ef2cc4",
    "c2r_200": "a86374532c32edcfff356901d88d90463b3705c57a32bf8153f457c856b820c3",
    "c2r_240": "a94ed1cdc8b3fd200661bb0a0f7b854d4dc981f87d90ddbde50057458ec5fd4a",
    "c2r_280": "f78d999675c7ddf44735ba80f290b8108fcddf20970371f3f0e65a30c286e69a",
    "c2r_288": "83d90d749029ba013cd16ff9bb3b3e7f0dc21dde6c3b4635c22f903f25648d93",
    "c2r_320": "73152f1fad034457d6a297ca8bade6fbe42541e21cbe5724508412aaaf8500d6",
    "c2r_336": "1f28e1793b117dcf68eb077cb89ce4446d686964e1229f43e1f53880c110d902",
    "c2r_360": "fb08c71a5797822a07a79e336142cc0f1097eb73ea50b9ca0b30f697b4ccb543",
    "c2r_392": "a46cc1555ac49e60ac5eb294e6f7a5fce786ff13df6f7b2082adac0d91ae3f94",
    "c2r_448": "3e5fb93d6bd1900b58563dd265626a50a98304a4b2e9e55410dad5733dc65584",
    "c2r_504": "9c4e06fa30b425d3600bf047d1212ac0f6d79d1f1e6afe39da6ace294c94d8fe",
    "c2r_560": "3041a6adf7dd7d0d4da0f77c1e3d5f0411840f8710d93b445d50cb68cf4c34bb",
    "c2r_640": "877f644f0ddc2452de7f06a37f052b7e406130437abc41a070135b7e491605a4",
    "c2r_672": "66aceaf9152a50002be09b7cb80bb99137d0f18cfaf0cc70806f6c79141aaa00",
    "c2r_720": "5201fd989e4744464923a422bde03ec985eb5f4d1bac7af34c3f589d6b7cf4b6",
}


@pytest.mark.parametrize("threads", [1, 2])
def test_fft_zero_signs_from_negative_zero_match_torch(threads: int) -> None:
    """Torch-free: where every kernel's zero signs are read (DFTI's Prime16 with its table products on every
    bin of residues 1 to 3; Prime8's pair block (n2 = x6 - x2, n3 = x7 - x3, v = s3 - s1) and single block
    (its table's products by 1 and +0 too); the Fact3 and Fact5 passes, the 5- and 7-point DFTs' odd terms
    with the sines of -2pi k/p; the forward recombination and the backward one with its table's +0 cosine),
    zero results from -0 are answered: rfft and irfft of every length from 32, fft/ifft of every length, on
    zero-heavy rows (24, 48 and 80 in ct_odd's order: the Fact passes' table twiddles on every bin, Prime16;
    ct32_4x8's twiddles the table's products too; 64 the radix-4 FFT's table products on every bin of residues 1 to
    3 in both stages; 16 the 16-point FFT kernel's constants, its turn by 1 no conjugate pair; 8 and 32 and
    rfft/irfft of 32 and 64 DFTI's 8-, 16- and 32-point FFT kernels, off its threaded path; 20 to 720 and the real
    kernels' halves DFTI's PrimeFact plans in ct_odd's order: Prime4, Prime8 or Prime16, then Fact3, Fact4, Fact5 or
    Fact7 passes, as gdb shows them); irfft of 20 and 24 refuse them (DFTI's 10- and 12-point kernels not read)."""
    from harness.impl.fft import fft
    from tests.fft_zero_sign_cases import C2C_KEYS, CHUNKED_REAL, operands

    p = get_profile("x86-avx2", threads)
    ops = operands()
    for n in (480, 224, *CHUNKED_REAL):
        if n in (32, 64) and threads > 1:  # DFTI's threaded path runs other real kernels there (refused)
            with pytest.raises(ParityError, match=r"threaded path|zero result"):
                fft("r2c", ops[f"r2c_{n}"], [1], 0, p)
            with pytest.raises(ParityError, match="threaded path"):
                fft("c2r", ops[f"c2r_{n}"], [1], 0, p, forward=False, last_dim_size=n)
            continue
        assert bits_sha256(fft("r2c", ops[f"r2c_{n}"], [1], 0, p)) == FFT_ZERO_SIGNS[f"r2c_{n}"], n
        c2r = fft("c2r", ops[f"c2r_{n}"], [1], 0, p, forward=False, last_dim_size=n)
        assert bits_sha256(c2r) == FFT_ZERO_SIGNS[f"c2r_{n}"], n
    for key in ("c2c_240", "c2c_480", "c2c_112", "c2c_56", "c2c_168", "c2c_336", "c2c_480z", *C2C_KEYS):
        assert bits_sha256(fft("c2c", ops[key], [1], 0, p)) == FFT_ZERO_SIGNS[key], key
        assert bits_sha256(fft("c2c", ops[key], [1], 0, p, forward=False)) == FFT_ZERO_SIGNS["i" + key], key
    a = ops["r2c_480"]
    for n in (20, 24):  # irfft of 20 and 24: DFTI's 10- and 12-point kernels' zero signs not read
        with pytest.raises(ParityError, match="from -0 to a zero result"):
            bins = np.ascontiguousarray(a[:, : n + 2]).reshape(-1, n // 2 + 1, 2)
            fft("c2r", bins, [1], 0, p, forward=False, last_dim_size=n)


# torch 2.13.0's fft and ifft of 2 random complex rows at each of ct_odd's further complex lengths, then rfft
# and irfft (unscaled, ATen's 1/N) of 2 random rows at each of its further real lengths, in that order, drawn
# from default_rng(400) per length in turn; the same on 1 and 2 threads (a Zen 5: DFTI's generic path)
ODD_C2C = (28, 36, 56, 60, 72, 84, 100, 112, 120, 140, 160, 180, 200, 224, 240, 252, 280, 320, 360, 392, 400, 448)
ODD_C2C += (504, 560, 700)
ODD_REAL = (56, 72, 112, 120, 160, 200, 224, 240, 280, 288, 320, 360, 392, 400, 448, 504, 560, 640, 672)
FFT_ODD = "534404b672b51cb509bb48c8d6c10d164ae9ce0c071edc3bad29f61e0fea0e05"


def test_fft_odd_prime_lengths_match_torch() -> None:
    """Torch-free: ct_odd's order (the largest odd prime outermost, the kernels of its factors inside) at 25
    more complex lengths and 19 more real ones (400: Whisper's n_fft; 320, 160, 240 ...); lengths whose
    complex kernel DFTI plans otherwise (288, 420, 600, 640, 672, as 480) or with a prime of 11 and up refused."""
    from harness.impl.fft import LENGTHS, fft

    assert set(ODD_C2C) <= set(LENGTHS["c2c"]) and set(ODD_REAL) <= set(LENGTHS["r2c"]) == set(LENGTHS["c2r"])
    p = get_profile("x86-avx2", 1)
    rng = np.random.default_rng(400)
    outs = []
    for n in ODD_C2C:
        z = rng.standard_normal((2, n, 2)).astype(np.float32)
        outs += [fft("c2c", z, [1], 0, p).reshape(-1), fft("c2c", z, [1], 2, p, forward=False).reshape(-1)]
    for n in ODD_REAL:
        x = rng.standard_normal((2, n)).astype(np.float32)
        h = rng.standard_normal((2, n // 2 + 1, 2)).astype(np.float32)
        outs += [fft("r2c", x, [1], 0, p).reshape(-1), fft("c2r", h, [1], 2, p, last_dim_size=n).reshape(-1)]
    assert bits_sha256(np.concatenate(outs)) == FFT_ODD
    for kind, n in (("c2c", 288), ("c2c", 420), ("c2c", 600), ("c2c", 640), ("r2c", 440), ("c2c", 44), ("r2c", 60)):
        shape = (1, n, 2) if kind == "c2c" else (1, n)
        with pytest.raises(ParityError, match=f"length {n}: DFTI's kernels for it are not modelled"):
            fft(kind, np.ones(shape, np.float32), [1], 0, p)


# torch 2.13.0's fft, ifft, rfft and irfft of _inputs_radix4()'s rows (norm backward, forward and ortho: none, 1/N
# and 1/sqrt(N)) and fft of its transposed view (DFTI's strided rows), at 128, 256, 512 and 1024, on 1 and 2 threads
# alike; and unscaled, of tests/fft_zero_sign_cases.py's rows(2) laid end to end and cut into rows of each length
RADIX4 = "e5f80bb862590b684bfe680f4a54bea406258cbfa7a8d424d221dd0fa9e7ae09"
RADIX4_ZEROS = "41354f3245722cdac88704877b9baecb1ad4e9e37f579f35167c09f5ff5c233c"
# torch's rfftn over dims (1, 2) of default_rng(512)'s (2, 8, 512) rows: the real pass of 512, then the complex one of 8
RADIX4_RFFTN = "ed8b352dd9bb093a48dd773bc89d4273b5ab26586719380d6a94565670048ebf"


def _inputs_radix4() -> dict[int, tuple[np.ndarray, ...]]:
    """Per length: 3 complex rows, 3 real rows (one of +0 and small integers), 3 onesided rows, and 5 complex rows
    laid out transposed (the transformed dim outermost)."""
    rng = np.random.default_rng(1024)
    out = {}
    for n in (128, 256, 512, 1024):
        x = rng.standard_normal((3, n)).astype(np.float32)
        x[2] = rng.integers(-2, 3, n).astype(np.float32) * (rng.random(n) < 0.3) + np.float32(0.0)
        out[n] = (
            rng.standard_normal((3, n, 2)).astype(np.float32),
            x,
            rng.standard_normal((3, n // 2 + 1, 2)).astype(np.float32),
            rng.standard_normal((n, 5, 2)).astype(np.float32),
        )
    return out


@pytest.mark.parametrize("threads", [1, 2])
def test_fft_radix4_lengths_match_torch(threads: int) -> None:
    """Torch-free: DFTI's radix-4 FFT (a 4-point pass, radix-4 and radix-8 passes with the table's products, its
    eighth turn rounded up) gives fft and ifft of 128 to 1024 and the halves of rfft and irfft, with the
    recombination passes, for every norm, from contiguous or strided rows, on 1 and 2 threads alike (and rfftn's
    real pass of 512)."""
    from harness.impl.fft import fft

    p = get_profile("x86-avx2", threads)
    outs = []
    for n, (z, x, h, zt) in _inputs_radix4().items():
        rows = np.ascontiguousarray(np.transpose(zt, (1, 0, 2)))
        for fwd, inv in ((0, 2), (2, 0), (1, 1)):  # ATen's normalization per torch norm (forward op, inverse op)
            outs += [fft("c2c", z, [1], fwd, p), fft("c2c", z, [1], inv, p, forward=False)]
            outs += [fft("r2c", x, [1], fwd, p), fft("c2r", h, [1], inv, p, last_dim_size=n)]
            outs.append(fft("c2c", rows, [1], fwd, p, stride=[1, 5]))
    assert bits_sha256(np.concatenate([o.reshape(-1) for o in outs])) == RADIX4
    x = np.random.default_rng(512).standard_normal((2, 8, 512)).astype(np.float32)
    assert bits_sha256(fft("r2c", x, [1, 2], 0, p)) == RADIX4_RFFTN
    if threads == 1:  # zero-heavy rows: the zero signs of every butterfly and of the table's products
        assert bits_sha256(np.concatenate([o.reshape(-1) for o in _radix4_zeros(p)])) == RADIX4_ZEROS


def _radix4_zeros(p: object) -> list[np.ndarray]:
    """The impl's fft, ifft, rfft and irfft (unscaled) of the zero-heavy rows cut into rows of 128 to 1024."""
    from harness.impl.fft import fft
    from tests.fft_zero_sign_cases import rows

    flat, outs = rows(2).reshape(-1), []
    for n in (128, 256, 512, 1024):
        z, x, h = (flat[: flat.size // w * w].reshape(-1, w) for w in (2 * n, n, n + 2))
        z, h = z.reshape(len(z), n, 2), h.reshape(len(h), n // 2 + 1, 2)
        outs += [fft("c2c", z, [1], 0, p), fft("c2c", z, [1], 0, p, forward=False), fft("r2c", x, [1], 0, p)]
        outs.append(fft("c2r", h, [1], 0, p, last_dim_size=n))
    return outs


def _cases() -> list[tuple[int, int, int, int]]:
    """(seed, batch, n1, n2): powers of two, primes, odd and even lengths, from one fixed draw."""
    rng = np.random.default_rng(2024)
    fixed = [(0, 4, 16, 64), (1, 2, 7, 33), (2, 1, 128, 96), (3, 3, 1, 2), (4, 2, 97, 5)]
    drawn = [(10 + i, int(rng.integers(1, 5)), int(rng.integers(1, 80)), int(rng.integers(1, 140))) for i in range(20)]
    return fixed + drawn


KINDS = ("c2c", "c2c_of_real", "r2c", "c2r")


def _digests() -> dict[str, list[str]]:
    """Per kind of transform, one SHA-256 (of the uint32 bits) per case of its output and its input's
    gradient: ``fftn(z, dim=(1, 2))`` of complex z (``_fft_c2c`` both ways), ``fftn(x, dim=(1, 2)).real``
    of real x (FNet's mixing), ``rfft(x, dim=2)`` (``_fft_r2c``) and ``irfft(z, n, dim=2)`` (``_fft_c2r``)."""
    import torch

    out: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for seed, batch, n1, n2 in _cases():
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((batch, n1, n2)).astype(np.float32)
        z = rng.standard_normal((batch, n1, n2, 2)).astype(np.float32)
        runs = {
            "c2c": (z, lambda t: torch.view_as_real(torch.fft.fftn(torch.view_as_complex(t), dim=(1, 2)))),
            "c2c_of_real": (x, lambda t: torch.fft.fftn(t, dim=(1, 2)).real),
            "r2c": (x, lambda t: torch.view_as_real(torch.fft.rfft(t, dim=2))),
            "c2r": (z, lambda t, n=n2: torch.fft.irfft(torch.view_as_complex(t), n=n, dim=2)),
        }
        for kind, (a, f) in runs.items():
            t = torch.from_numpy(a.copy()).requires_grad_()
            y = f(t)
            y.backward(torch.from_numpy(rng.standard_normal(tuple(y.shape)).astype(np.float32)))
            h = hashlib.sha256(np.ascontiguousarray(y.detach().numpy()).view(np.uint32).tobytes())
            h.update(t.grad.numpy().view(np.uint32).tobytes())
            out[kind].append(h.hexdigest())
    return out


def _child() -> None:
    """In a fresh process: torch.set_num_threads(argv[2]), then the digests as JSON."""
    import torch

    torch.set_num_threads(int(sys.argv[2]))
    print(json.dumps(_digests()))


@pytest.mark.usefixtures("restore_threads")
def test_live_fft_bits_follow_the_thread_count_in_real_transforms_only() -> None:
    from tests.impl_live import use_threads

    seen = {}
    for threads in (1, 2, 4):
        use_threads(threads)
        seen[threads] = _digests()
    for kind in ("c2c", "c2c_of_real"):  # no thread count moves the complex transforms
        assert seen[1][kind] == seen[2][kind] == seen[4][kind], kind
        assert len(set(seen[1][kind])) == len(_cases())  # every case its own bits: the digests hold values
    for kind in ("r2c", "c2r"):  # the real ones do: the kernel index's knob for _fft_r2c and _fft_c2r
        assert seen[1][kind] != seen[2][kind] and seen[2][kind] == seen[4][kind], kind


@pytest.mark.parametrize("threads", [1, 2])
def test_live_fft_bits_do_not_follow_the_level(threads: int) -> None:
    from tests.test_impl_live_conv import LEVELS, _run_pinned

    args, module = ["child", str(threads)], "tests.test_impl_fft"
    here = {lvl.name: _run_pinned(lvl, threads, "_child", args, module=module) for lvl in LEVELS}
    assert len(here) >= 1 and len({json.dumps(d, sort_keys=True) for d in here.values()}) == 1, here
