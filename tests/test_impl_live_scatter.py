"""Live: harness/impl/scatter.py (scatter_add, scatter_reduce, index_add, index_put with accumulate,
im2col / col2im, reflection and replication padding's and unfold's backwards; scatter, index_copy,
index_fill, index_reduce, masked_scatter, put_) against torch in this process, bit for bit, and the
same ops traced by ``parity trace`` and replayed through harness/trace/impl_ops.py (``--verify-cause``'s
path).

Indices repeat (a handful of targets for many terms: where the order of the additions shows), along
the first, a middle and the last dim, with transposed operands, past the 32768-element grain; thread
counts 1 to 16. Run under ATEN_CPU_CAPABILITY=default, avx2 and avx512 to cover each profile;
test_avx512_level runs its own cases at avx512 in a fresh process wherever the CPU has the level.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import ParityError
from harness.impl import scatter
from harness.platform.config import collect_facts, supported_levels
from tests.impl_live import (
    LEVEL_ENV,
    SEEDS,
    THREADS,
    assert_bits_equal,
    live_profile,
    needs_verified_profile,
    run_child,
    use_threads,
)
from tests.live_scatter_cases import AVX512_CASES, index_case, scatter_case, strided, values, with_specials
from tests.test_impl_live_nn import _replays_match

pytestmark = [pytest.mark.usefixtures("restore_threads"), needs_verified_profile]

SETTINGS = settings(max_examples=20, deadline=None)
SHAPES = st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple)


@SETTINGS
@given(shape=st.one_of(SHAPES, st.just((2, 20000))), dim=st.integers(0, 2), flip=st.booleans(), seed=SEEDS,
       threads=THREADS)  # fmt: skip
def test_scatter_add_and_reduce(shape: tuple[int, ...], dim: int, flip: bool, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    dim = dim % len(shape)
    x, index, src = scatter_case(rng, shape, dim)
    ti = torch.from_numpy(index)
    got = strided(x, flip).scatter_add(dim, ti, strided(src, flip)).numpy()
    assert_bits_equal("scatter_add", got, scatter.scatter_reduce(x, dim, index, src))
    for reduce in scatter.REDUCES:
        for include_self in (True, False):
            want = strided(x, flip).scatter_reduce(dim, ti, strided(src, flip), reduce, include_self=include_self)
            got = scatter.scatter_reduce(x, dim, index, src, reduce, include_self)
            assert_bits_equal(f"scatter_reduce {reduce} {include_self}", want.numpy(), got)


@SETTINGS
@given(m=st.integers(1, 40), k=st.sampled_from([16, 17, 40, 100]), n=st.integers(1, 300), specials=st.booleans(),
       seed=SEEDS, threads=THREADS)  # fmt: skip
def test_scatter_reduce_expanded_index(m: int, k: int, n: int, specials: bool, seed: int, threads: int) -> None:
    """dim 0, a 1-D index expanded over 16 columns or more: cpu_scatter_reduce_expanded_index's radix sort
    (its NaN operands refused at the default level from 2 threads, amax/amin's NaN and -0.0 anywhere)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    x, src, rows = values(rng, (m, k)), values(rng, (n, k)), rng.integers(0, m, n).astype(np.int64)
    if specials:
        x, src = with_specials(rng, x), with_specials(rng, src)
    ti = torch.from_numpy(rows)[:, None].expand(n, k)
    index = np.ascontiguousarray(ti.numpy())
    for reduce in scatter.REDUCES:
        for include_self in (True, False):
            want = torch.from_numpy(x.copy()).scatter_reduce(
                0, ti, torch.from_numpy(src), reduce, include_self=include_self
            )
            try:
                got = scatter.scatter_reduce(x, 0, index, src, reduce, include_self, list(ti.stride()), True,
                                             live_profile())  # fmt: skip
            except ParityError as err:
                assert specials and ("-0.0" in str(err) or "expanded-index path" in str(err)), err
                continue
            assert_bits_equal(f"expanded {reduce} {include_self}", want.numpy(), got)


def test_scatter_amax_refuses_negative_zero_and_nan() -> None:
    """The serial loop keeps self's zero of a tie and the NaN's own bits, the expanded path's vector
    maximum src's zero and an all-ones NaN: refused, not given one path's bits."""
    x, index = np.zeros((2, 16), np.float32), np.zeros((3, 16), np.int64)
    for bad in (-0.0, np.nan):
        src = np.ones((3, 16), np.float32)
        src[1, 2] = bad
        with pytest.raises(ParityError, match=r"NaN or -0\.0"):
            scatter.scatter_reduce(x, 0, index, src, "amax")


@SETTINGS
@given(shape=st.one_of(SHAPES, st.just((20000, 2))), dim=st.integers(0, 2), flip=st.booleans(), seed=SEEDS,
       threads=THREADS)  # fmt: skip
def test_index_add(shape: tuple[int, ...], dim: int, flip: bool, seed: int, threads: int) -> None:
    use_threads(threads)
    rng = np.random.default_rng(seed)
    dim, index, x, source = index_case(rng, shape, dim)
    want = strided(x, flip).index_add(dim, torch.from_numpy(index), strided(source, flip))
    assert_bits_equal("index_add", want.numpy(), scatter.index_add(x, dim, index, source, 1, live_profile()))


@SETTINGS
@given(shape=st.one_of(SHAPES, st.just((2, 20000))), dim=st.integers(0, 2), flip=st.booleans(),
       specials=st.booleans(), seed=SEEDS, threads=THREADS)  # fmt: skip
def test_scatter_prod_extremes_and_plain_scatter(
    shape: tuple[int, ...], dim: int, flip: bool, specials: bool, seed: int, threads: int
) -> None:
    """scatter_reduce prod, amax/amin with NaN, infinities and signed zeros on the serial path (self kept
    on a tie, src's NaN taken), and ``scatter`` (src, value, reduce "add" / "multiply": the last along
    dim kept, or the terms in index order)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    dim = dim % len(shape)
    x, index, src = scatter_case(rng, shape, dim)
    if specials:
        x, src = with_specials(rng, x), with_specials(rng, src)
    ti, tx, tsrc = torch.from_numpy(index), strided(x, flip), strided(src, flip)
    dense = tx.is_contiguous() and tsrc.is_contiguous()
    for reduce in ("prod", "amax", "amin"):
        for include_self in (True, False):
            want = tx.scatter_reduce(dim, ti, tsrc, reduce, include_self=include_self).numpy()
            got = scatter.scatter_reduce(x, dim, index, src, reduce, include_self, list(ti.stride()), dense,
                                         live_profile())  # fmt: skip
            assert_bits_equal(f"scatter_reduce {reduce} {include_self}", want, got)
    value = float(rng.standard_normal() * 100)
    assert_bits_equal("scatter", tx.scatter(dim, ti, tsrc).numpy(), scatter.scatter(x, dim, index, src))
    assert_bits_equal("scatter value", tx.scatter(dim, ti, value).numpy(), scatter.scatter(x, dim, index, value))
    for reduce in scatter.SCATTER_REDUCES:
        want = tx.scatter(dim, ti, tsrc, reduce=reduce).numpy()
        assert_bits_equal(f"scatter reduce={reduce}", want, scatter.scatter(x, dim, index, src, reduce))
        want = tx.scatter(dim, ti, value, reduce=reduce).numpy()
        assert_bits_equal(f"scatter value reduce={reduce}", want, scatter.scatter(x, dim, index, value, reduce))


@SETTINGS
@given(shape=st.one_of(SHAPES, st.just((20000, 2))), dim=st.integers(0, 2), flip=st.booleans(),
       specials=st.booleans(), alpha=st.sampled_from([0.3, -1.7, 2.0, 1e-3]), seed=SEEDS,
       threads=THREADS)  # fmt: skip
def test_index_family(
    shape: tuple[int, ...], dim: int, flip: bool, specials: bool, alpha: float, seed: int, threads: int
) -> None:
    """index_add with alpha (fused at avx2 on 2 or more dims), index_copy (the last repeat; racing
    threads past 32768 elements refused), index_fill, index_reduce (each reduction, with and without
    self; on 2 or more dims its NaN operands refused), masked_scatter and its backward, put_."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    dim, index, x, source = index_case(rng, shape, dim)
    if specials:
        x, source = with_specials(rng, x), with_specials(rng, source)
    ti, tx, tsource = torch.from_numpy(index), strided(x, flip), strided(source, flip)
    profile = live_profile()
    for a in (1.0, alpha):
        want = tx.index_add(dim, ti, tsource, alpha=a).numpy()
        try:
            got = scatter.index_add(x, dim, index, source, a, profile)
        except ParityError as err:  # through scatter_add's expanded path at the default level, 2+ threads
            assert specials and threads > 1 and "expanded-index path" in str(err), err
            continue
        assert_bits_equal(f"index_add alpha {a}", want, got)
    want = tx.index_copy(dim, ti, tsource).numpy()
    if threads > 1 and source.size >= scatter.GRAIN_SIZE:
        with pytest.raises(ParityError, match="racing threads"):
            scatter.index_copy(x, dim, index, source, threads)
    else:
        assert_bits_equal("index_copy", want, scatter.index_copy(x, dim, index, source, threads))
    fill = rng.integers(-shape[dim], shape[dim], max(1, index.size // 3))
    want = tx.index_fill(dim, torch.from_numpy(fill), alpha * 1e3).numpy()
    assert_bits_equal("index_fill", want, scatter.index_fill(x, dim, fill, alpha * 1e3))
    for reduce in scatter.INDEX_REDUCES:
        for include_self in (True, False):
            want = tx.index_reduce(dim, ti, tsource, reduce, include_self=include_self).numpy()
            try:
                got = scatter.index_reduce(x, dim, index, source, reduce, include_self)
            except ParityError as err:
                assert x.ndim > 1 and specials and "NaN" in str(err), err
                continue
            assert_bits_equal(f"index_reduce {reduce} {include_self}", want, got)
    mask = rng.random(shape) < 0.5
    msource = values(rng, (int(mask.sum()) + 2,))
    want = tx.masked_scatter(torch.from_numpy(mask), torch.from_numpy(msource)).numpy()
    assert_bits_equal("masked_scatter", want, scatter.masked_scatter(x, mask, msource))
    m = x.size
    put_index, put_source = rng.integers(-m, m, 2 * m + 1), values(rng, (2 * m + 1,))
    for accumulate in (True, False):
        put = strided(x, flip).put_(torch.from_numpy(put_index), torch.from_numpy(put_source), accumulate=accumulate)
        want = put.numpy()
        if threads > 1 and put_index.size >= (scatter.GRAIN_SIZE if accumulate else scatter.INDEX_GRAIN_SIZE):
            with pytest.raises(ParityError, match="racing threads"):
                scatter.put(x, put_index, put_source, threads, accumulate)
            continue
        assert_bits_equal(f"put_ {accumulate}", want, scatter.put(x, put_index, put_source, threads, accumulate))


def test_index_put_atomic_adds_keep_the_builds_nan() -> None:
    """index_put and put_ with accumulate past the 32768-element grain at 2 threads (cpu_atomic_add_float),
    a NaN value meeting a NaN element: the AVX2 object (avx2, avx512) keeps the value's, default the
    element's; without the build, refused."""
    use_threads(2)
    n = 40000
    x = np.zeros(n, np.float32)
    x[::3] = np.array([0xFFC00000], np.uint32).view(np.float32)[0]
    v = values(np.random.default_rng(5), (n,))
    v[::2] = np.array([0x7FC01234], np.uint32).view(np.float32)[0]
    rows = np.random.default_rng(6).permutation(n)
    aten = live_profile().aten
    want = torch.from_numpy(x.copy()).index_put_((torch.from_numpy(rows),), torch.from_numpy(v), accumulate=True)
    assert_bits_equal("index_put atomic", want.numpy(), scatter.index_put(x, [rows], v, 2, True, aten=aten))
    want = torch.from_numpy(x.copy()).put_(torch.from_numpy(rows), torch.from_numpy(v), accumulate=True)
    assert_bits_equal("put_ atomic", want.numpy(), scatter.put(x, rows, v, 2, True, aten))
    with pytest.raises(ParityError, match="atomic adds at an unknown build"):
        scatter.index_put(x, [rows], v, 2, True)


_FORMS = ("rows", "columns", "pairs", "apart", "mask")


def _repeats(shape: tuple[int, ...], indices: list) -> bool:
    """Whether the indexed positions reach an element of ``shape`` twice (torch's own indexing counts them)."""
    hits = torch.zeros(shape)
    key = tuple(slice(None) if i is None else torch.from_numpy(np.asarray(i)) for i in indices)
    torch.ops.aten.index_put_(hits, [None if i is None else k for i, k in zip(indices, key, strict=True)],
                              torch.ones(()), True)  # fmt: skip
    return bool((hits > 1).any())


def _index_put_case(rng: np.random.Generator, form: str, big: bool) -> tuple[tuple[int, ...], list]:
    shape = (50, 800, 2) if big else (int(rng.integers(1, 20)), int(rng.integers(1, 20)), int(rng.integers(1, 4)))
    if form == "rows":
        return shape, [rng.integers(0, shape[0], 400 if big else 3 * shape[0] + 1)]
    if form == "columns":
        return shape, [None, rng.integers(-shape[1], shape[1], (2, 2 * shape[1] + 1))]
    if form == "apart":  # index tensors on dims 0 and 2, a slice between: the indexed positions first
        n = 3 * shape[0] * shape[2] + 1
        return shape, [rng.integers(0, shape[0], (2, n)), None, rng.integers(0, shape[2], (1, n))]
    if form == "pairs":
        n = 3 * shape[0] * shape[1] + 1
        return shape, [rng.integers(0, shape[0], n), rng.integers(0, shape[1], n)]
    return shape, [rng.random(shape[:2]) < 0.5]


@SETTINGS
@given(form=st.sampled_from(_FORMS), big=st.booleans(), seed=SEEDS, threads=THREADS)
def test_index_put_accumulate_and_index_backward(form: str, big: bool, seed: int, threads: int) -> None:
    """index_put_ with accumulate (index's backward: the same onto zeros) and without (``x[idx] = v``,
    the last of repeats kept); at 2 or more threads past the grain, repeated elements are refused
    (ATen's racing threads)."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    shape, indices = _index_put_case(rng, form, big)
    tind = [None if i is None else torch.from_numpy(np.asarray(i)) for i in indices]
    key = tuple(slice(None) if i is None else i for i in tind)
    x = values(rng, shape)
    v = values(rng, tuple(torch.zeros(shape)[key].shape))
    want = torch.ops.aten.index_put_(torch.from_numpy(x.copy()), tind, torch.from_numpy(v), True)
    copied = torch.ops.aten.index_put_(torch.from_numpy(x.copy()), tind, torch.from_numpy(v), False)
    xt = torch.zeros(shape, requires_grad=True)
    xt[key].backward(torch.from_numpy(v))
    zeros = np.zeros(shape, np.float32)
    for name, start, accumulate, expected in (
        ("index_put accumulate", x, True, want),
        ("index backward", zeros, True, xt.grad),
        ("index_put", x, False, copied),
    ):
        grain = scatter.GRAIN_SIZE if accumulate else scatter.INDEX_GRAIN_SIZE
        if threads > 1 and v.size >= grain and _repeats(shape, indices):
            with pytest.raises(ParityError, match="racing threads"):
                scatter.index_put(start, indices, v, threads, accumulate)
            continue
        assert_bits_equal(name, expected.numpy(), scatter.index_put(start, indices, v, threads, accumulate))


@SETTINGS
@given(
    kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    nc=st.tuples(st.integers(1, 3), st.integers(1, 4)),
    extra=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    flip=st.booleans(),
    seed=SEEDS,
    threads=THREADS,
)
def test_unfold_and_fold_with_backwards(kernel, dilation, padding, stride, nc, extra, flip, seed, threads) -> None:
    """nn.Unfold (im2col) and nn.Fold (col2im), each one's backward the other."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    h, w = (d * (k - 1) + 1 + e for d, k, e in zip(dilation, kernel, extra, strict=True))
    geometry = (kernel, dilation, padding, stride)
    img = values(rng, (*nc, h, w))
    xt = strided(img, flip).requires_grad_()
    cols = torch.nn.functional.unfold(xt, *geometry)
    assert_bits_equal("im2col", cols.detach().numpy(), scatter.im2col(img, *geometry))
    g = values(rng, tuple(cols.shape))
    cols.backward(torch.from_numpy(g))
    assert_bits_equal("col2im (unfold's backward)", xt.grad.numpy(), scatter.col2im(g, (h, w), *geometry))
    ct = torch.from_numpy(g.copy()).requires_grad_()
    folded = torch.nn.functional.fold(ct, (h, w), *geometry)
    assert_bits_equal("col2im", folded.detach().numpy(), scatter.col2im(g, (h, w), *geometry))
    folded.backward(torch.from_numpy(img))
    assert_bits_equal("im2col (fold's backward)", ct.grad.numpy(), scatter.im2col(img, *geometry))


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2, 3]))
def test_index_ops_replay_from_a_trace(seed: int, threads: int) -> None:
    """A mixture-of-experts style routing (scatter_add, index_add, scatter_reduce), advanced indexing
    with ``+=`` and its backward, RT-DETR's discrete sampling (index tensors apart, a transposed
    gradient), and nn.Unfold / nn.Fold, traced and replayed op by op."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    tokens = torch.from_numpy(values(rng, (12, 20))).requires_grad_()
    experts = torch.from_numpy(rng.integers(0, 3, 12))
    img = torch.from_numpy(values(rng, (1, 2, 7, 6))).requires_grad_()
    value = torch.from_numpy(values(rng, (4, 5, 3, 3))).requires_grad_()
    heads = torch.arange(4)[:, None].repeat(1, 6)
    ys, xs = (torch.from_numpy(rng.integers(0, 3, (4, 6))) for _ in range(2))
    weight = torch.from_numpy(values(rng, (4, 5, 2, 3)))

    def program() -> None:
        index = experts[:, None].expand(12, 20)
        pooled = torch.zeros(3, 20).scatter_add(0, index, tokens)
        pooled = pooled + torch.zeros(3, 20).index_add(0, experts, tokens * 2)
        pooled = pooled + torch.zeros(3, 20).scatter_reduce(0, index, tokens, "mean", include_self=False)
        picked = pooled[experts]  # index, its backward index_put accumulate
        acc = torch.zeros(3, 20)
        acc[experts] += tokens
        cols = torch.nn.functional.unfold(img, (2, 3), padding=1, stride=(1, 2))
        back = torch.nn.functional.fold(cols * 1.5, (7, 6), (2, 3), padding=1, stride=(1, 2))
        # RT-DETR's discrete sampling: index tensors apart, its gradient transposed (strides (30, 1, 6))
        sampled = value[heads, :, ys, xs].transpose(1, 2).reshape(4, 5, 2, 3)
        ((picked * tokens).sum() + acc.sum() + (back * back).sum() + (sampled * weight).sum()).backward()

    ops = {"scatter_add", "index_add", "scatter_reduce", "index_put", "index_put_", "_index_put_impl_", "im2col",
           "col2im"}  # fmt: skip
    _replays_match(program, ops, 7)


@settings(max_examples=3, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2, 4]))
def test_padding_and_unfold_backwards_replay_from_a_trace(seed: int, threads: int) -> None:
    """UnivNet's reflection padding and location-variable unfold, replication padding of a channels-last
    image (13 channels: add_stub's vector body and tail, where NaNs of two payloads meet but at the default
    level, whose pick is refused), 3-D padding
    and a non-overlapping unfold, traced and replayed op by op: each input gradient's terms in the
    output's order onto +0 (a lone -0 term gives +0), the channels-last NaN by its lane."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    wave = torch.from_numpy(with_specials(rng, values(rng, (2, 3, 40)))).requires_grad_()
    image = torch.from_numpy(values(rng, (2, 13, 5, 6))).contiguous(memory_format=torch.channels_last)
    image.requires_grad_()
    volume = torch.from_numpy(values(rng, (1, 2, 3, 4, 5))).requires_grad_()
    nans = np.frombuffer(np.array([0x7FC0AAAA, 0xFFC0BBBB], np.uint32).tobytes(), np.float32)
    g_image = nans[rng.integers(0, 2, (2, 13, 9, 11))]
    if live_profile().aten == "default":  # the default object's channels-last NaN pick is refused: finite there
        g_image = values(rng, g_image.shape)
    g_image = torch.from_numpy(g_image).contiguous(memory_format=torch.channels_last)

    def program() -> None:
        padded = torch.nn.functional.pad(wave, (7, 9), mode="reflect")
        windows = padded.unfold(2, 8, 3)  # overlapping windows
        blocks = wave.unfold(2, 4, 5)  # apart
        total = (windows * windows).sum() + blocks.sum() * 0.5
        edge = torch.nn.functional.pad(volume, (1, 2, 2, 0, 1, 1), mode="replicate")
        total = total + (torch.nn.functional.pad(volume, (1, 2, 1, 1, 1, 1), mode="reflect") * edge).sum()
        total.backward(inputs=[wave, volume])
        torch.nn.functional.pad(image, (2, 3, 1, 3), mode="replicate").backward(g_image)

    ops = {"reflection_pad1d_backward", "reflection_pad3d_backward", "replication_pad2d_backward",
           "replication_pad3d_backward", "unfold_backward"}  # fmt: skip
    _replays_match(program, ops, 6)


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, threads=st.sampled_from([1, 2, 3]))
def test_copies_and_reductions_replay_from_a_trace(seed: int, threads: int) -> None:
    """TAPAS-style segmented products and maxima (scatter_reduce prod, amax with signed zeros), an MoE
    router's scatter and scaled index_add, a detection head's index_copy / index_fill /
    masked_scatter (and its backward), put_ and index_reduce, traced and replayed op by op."""
    use_threads(threads)
    rng = np.random.default_rng(seed)
    cells = torch.from_numpy(values(rng, (10, 16))).requires_grad_()
    segments = torch.from_numpy(rng.integers(0, 4, 10))
    boxes = torch.from_numpy(values(rng, (6, 5))).requires_grad_()
    keep = torch.from_numpy(rng.random((6, 5)) < 0.4)

    def program() -> None:
        index = segments[:, None].expand(10, 16)
        prod = torch.ones(4, 16).scatter_reduce(0, index, cells, "prod", include_self=False)
        ties = -cells * 0.0  # +0.0 and -0.0 against self's zeros: the serial path keeps self's, the expanded src's
        top = torch.zeros(4, 16).scatter_reduce(0, index.contiguous(), ties, "amax")
        top = top + torch.zeros(4, 16).scatter_reduce(0, index, ties, "amin")
        routed = torch.zeros(4, 16).scatter(0, index, cells.detach())
        scaled = torch.zeros(4, 16).index_add(0, segments, cells, alpha=0.125)
        copied = torch.zeros(10, 5).index_copy(0, torch.arange(6), boxes).index_fill(1, torch.tensor([-1]), 2.5)
        filled = boxes.masked_scatter(keep, boxes.flip(0) * 3)
        put = torch.zeros(12).put_(segments, cells[:, 0].detach(), accumulate=True)
        reduced = torch.ones(4, 16).index_reduce(0, segments, cells, "mean", include_self=False)
        total = prod.sum() + top.sum() + routed.sum() + scaled.sum() + copied.sum() + put.sum() + reduced.sum()
        (total + (filled * filled).sum()).backward()

    ops = {"scatter_reduce", "scatter", "index_add", "index_copy", "index_fill", "masked_scatter",
           "masked_scatter_backward", "put_", "index_reduce"}  # fmt: skip
    _replays_match(program, ops, 11)


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
@settings(max_examples=4, deadline=None)
@given(dtype=st.sampled_from([torch.int64, torch.int32, torch.uint8, torch.bool]), seed=SEEDS, threads=THREADS)
def test_integer_scatters_replay_from_a_trace(dtype: torch.dtype, seed: int, threads: int) -> None:
    """scatter (a src, a number, reduce "add" / "multiply"), scatter_add and scatter_reduce of integer and
    bool tensors, repeats wrapping past the dtype's range, along an index expanded over the rows (the
    expanded path) and a random one, traced and replayed: integer sums, products and extrema are exact in
    any order; a bool sum is an or, a product an and."""
    use_threads(threads)
    rng = np.random.default_rng(seed)

    def tensor(shape: tuple[int, ...]) -> torch.Tensor:
        if dtype == torch.bool:
            return torch.from_numpy(rng.random(shape) < 0.5)
        info = torch.iinfo(dtype)
        return torch.from_numpy(rng.integers(info.min, info.max, shape, endpoint=True)).to(dtype)

    rows, expanded = tensor((5, 17)), torch.from_numpy(rng.integers(0, 5, 40))[:, None].expand(40, 17)
    src, index = tensor((40, 17)), torch.from_numpy(rng.integers(0, 17, (5, 30)))

    def program() -> None:
        rows.scatter_add(0, expanded, src)
        rows.scatter(1, index, src[:5, :17].repeat(1, 2)[:, :30])
        rows.clone().scatter_(0, expanded[:3], -7 if dtype != torch.bool else True)
        rows.scatter(0, expanded, src, reduce="multiply")
        for reduce in ("sum", "prod", "amax", "amin") + (("mean",) if dtype != torch.bool else ()):
            rows.scatter_reduce(0, expanded, src, reduce, include_self=reduce != "prod")

    _replays_match(program, {"scatter_add", "scatter", "scatter_", "scatter_reduce"}, 8)


def test_a_put_over_unwritten_memory_replays_where_it_writes_every_element() -> None:
    """A mixture-of-experts layer's un-sort: ``out = torch.empty(...); out[perm] = y``. The trace holds no
    bytes of torch.empty's memory (no data); where the put writes every element the result does not
    depend on them and replays bit for bit; a put that leaves some unwritten is refused in one line."""
    from harness.trace.impl_ops import packet, replay
    from harness.trace.recorder import recording

    rng = np.random.default_rng(3)
    y = torch.from_numpy(values(rng, (12, 5)))
    perm = torch.from_numpy(rng.permutation(12))
    with recording(capture=list(range(20))) as tracer:
        whole = torch.empty(12, 5)
        whole[perm] = y
        part = torch.empty(12, 5)
        part[perm[:6]] = y[:6]
    puts = [i for i, op in enumerate(tracer.ops) if packet(op.op) == "index_put_"]
    assert len(puts) == 2 and all("self" not in tracer.captured[i].inputs for i in puts)
    first, second = (tracer.captured[i] for i in puts)
    got = replay("aten.index_put_.default", first.inputs, first.args, live_profile())
    assert_bits_equal("index_put_ out", first.outputs["out"], got["out"])
    with pytest.raises(ParityError, match=r"writes 30 of its 60 elements: the rest were never data"):
        replay("aten.index_put_.default", second.inputs, second.args, live_profile())


def test_a_scatter_over_unwritten_memory_replays_where_it_writes_every_element() -> None:
    """Reformer's un-sort of its hash buckets: ``torch.empty(...).scatter_(-1, sorted_idx, arange)`` (int64 and
    float32 alike). Where the scatter writes every element the result does not depend on torch.empty's bytes;
    one that leaves some unwritten is refused in one line."""
    from harness.trace.impl_ops import packet, replay
    from harness.trace.recorder import recording

    rng = np.random.default_rng(4)
    order = torch.from_numpy(np.argsort(rng.random((4, 2, 32)), axis=-1))
    src = torch.from_numpy(values(rng, (4, 2, 32)))
    with recording(capture=list(range(20))) as tracer:
        torch.empty(4, 2, 32, dtype=torch.int64).scatter_(-1, order, torch.arange(32).expand(4, 2, 32))
        torch.empty(4, 2, 32).scatter_(-1, order, src)
        torch.empty(4, 2, 32).scatter_(-1, order[..., :16], src)
    scatters = [i for i, op in enumerate(tracer.ops) if packet(op.op) == "scatter_"]
    assert len(scatters) == 3 and all("self" not in tracer.captured[i].inputs for i in scatters)
    for i in scatters[:2]:
        got = replay(tracer.ops[i].op, tracer.captured[i].inputs, tracer.captured[i].args, live_profile())
        want = np.asarray(tracer.captured[i].outputs["out"])
        assert np.asarray(got["out"]).dtype == want.dtype and np.asarray(got["out"]).tobytes() == want.tobytes()
    last = tracer.captured[scatters[2]]
    with pytest.raises(ParityError, match=r"writes 128 of its 256 elements: the rest were never data"):
        replay(tracer.ops[scatters[2]].op, last.inputs, last.args, live_profile())


def test_refusals_name_the_case() -> None:
    profile = live_profile()
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ParityError, match="the profile's add kernel is needed"):
        scatter.index_add(x, 0, np.array([0, 1]), np.ones((2, 4), np.float32), alpha=2)
    with pytest.raises(ParityError, match="the profile's add kernel is needed"):  # a middle dim: add_stub
        scatter.index_add(np.zeros((2, 3, 4), np.float32), 1, np.array([0, 1]), np.ones((2, 2, 4), np.float32))
    with pytest.raises(ParityError, match="sum, prod, mean, amax, amin only"):
        scatter.scatter_reduce(x, 0, np.zeros((1, 4), np.int64), np.ones((1, 4), np.float32), "max")
    with pytest.raises(ParityError, match="prod, mean, amax, amin only"):
        scatter.index_reduce(x, 0, np.zeros(1, np.int64), np.ones((1, 4), np.float32), "sum")
    with pytest.raises(ParityError, match="reduce 'add' or 'multiply' only"):
        scatter.scatter(x, 0, np.zeros((1, 4), np.int64), 1.0, "mean")
    nan = np.full((1, 4), np.nan, np.float32)
    with pytest.raises(ParityError, match="NaN operands are not modelled"):
        scatter.index_reduce(x, 0, np.zeros(1, np.int64), nan, "prod")
    with pytest.raises(ParityError, match="racing threads"):
        scatter.index_copy(np.zeros((2, 20000), np.float32), 0, np.array([1, 1]), np.ones((2, 20000), np.float32), 2)
    with pytest.raises(ParityError, match="index out of range"):
        scatter.scatter_reduce(x, 0, np.full((1, 4), 3), np.ones((1, 4), np.float32))
    pairs = [np.array([[0, 1], [1, 0]]), None, np.array([[0, 0], [1, 1]])]  # two indexed dims, a slice between
    with pytest.raises(ParityError, match="another order of the repeats"):
        scatter.index_put(np.zeros((2, 3, 2), np.float32), pairs, np.ones((2, 2, 3), np.float32), 1, True, [1, 2, 0])
    from harness.trace.impl_ops import REPLAYS

    with pytest.raises(ParityError, match="not C order"):
        index, source = np.array([[0, 1], [2, 3]]), np.ones((2, 2), np.float32)
        REPLAYS["put_"]({"self": x, "index": index, "source": source}, {"index.stride": [1, 2]}, profile)
    with pytest.raises(ParityError, match="index_put_: its self was not captured"):  # torch.empty's memory
        REPLAYS["index_put_"]({"values": np.ones(4, np.float32)}, {"indices.count": 0, "accumulate": True}, profile)
    args = {"indices.count": 2, "indices.none": [0], "accumulate": True}
    with pytest.raises(ParityError, match="index tensor 1 was not captured"):
        REPLAYS["_index_put_impl_"]({"self": x, "values": np.ones(4, np.float32)}, args, profile)


# the avx512 level, in a fresh process (tests/live_scatter_cases.py): it runs the AVX2 objects
AVX512 = next((lvl for lvl in supported_levels(collect_facts()) if lvl.name == "avx512"), None)


@pytest.mark.skipif(AVX512 is None, reason="this CPU does not run the avx512 level")
def test_avx512_level() -> None:
    """torch at ATEN_CPU_CAPABILITY=avx512 against the x86-avx512 profile, 1 and 2 threads: the expanded
    path's amax/amin (the AVX2 object's all-ones NaN, src's zero on a tie) and sums with NaN at 2 threads,
    the serial reductions, index_add through add_stub and scatter_add, the copies, index_put, fold /
    unfold, and nearest-exact's generic forward (fused source), all with NaN, infinities and signed zeros."""
    rows = run_child("tests.live_scatter_cases", "avx512_child", [], AVX512.env, drop=LEVEL_ENV)
    assert len(rows) == 2 * len(AVX512_CASES)
    for row in rows:
        got = row["got"]
        assert got.pop("profile") == "x86-avx512", row
        assert got and all(v == "exact" for v in got.values()), row
