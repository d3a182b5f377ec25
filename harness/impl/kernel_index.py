"""Per op: the PyTorch kernel the impl reproduces and what makes its bits differ between platforms.

Data for docs/impl/kernels.md (its table is ``render_table()``, checked by a test), for the
op-match matrix, which prints the "why" beside each op, and for ``parity diff``'s causes (the rows
harness/trace/impl_ops.py ``KERNEL_OPS`` names). Beside the 26 fixture ops, ``TRACE_KERNELS`` are
rows that only traces reach: kernels of real models' ops that no fixture records. Torch-free.
"""

from __future__ import annotations

from harness.core.op_ids import OP_IDS

# element-wise replays of any layout (several rows share it)
_ITERATOR_LOOP = (
    "; over operands of any layout in TensorIterator's own loop (`harness/trace/loops.py`: its dim order by the "
    "operands' strides, the coalesced inner run, the vectorized loop, an input read as a scalar, or the basic loop)"
)
_NAN_READ_AS_SCALAR = (
    "; where ATen's vectorized loop reads an input as a scalar (broadcast along the inner dim), GCC's code for that "
    "loop keeps another NaN than the vector body where two meet, modelled per op and place (csrc/unary.c: "
    "silu_backward's default body and x86 tail, gelu_backward (tanh)'s and softplus_backward's x86 tails and body, "
    "log_sigmoid_backward's GCC-vectorized tail chunks; measured on a Zen 5, NaNs of random payloads, both signs, "
    "quiet and signalling: 500 of 500 random draws per level exact, 0 other, where 149 were refused before; "
    "aarch64 refused)"
)

# rows no fixture op has: kernels a trace's ops reach (harness/trace/impl_ops.py KERNEL_OPS)
TRACE_KERNELS: tuple[str, ...] = (
    "uniform",
    "mse_loss",
    "smooth_l1_loss",
    "exponential",
    "sinc",
    "atanh",
    "polar",
    "hann_window",
    "kaiser_window",
    "elu",
    "hardswish",
    "mish",
    "lerp",
    "atan2",
    "minimum",
    "remainder",
    "arange",
    "linspace",
    "silu",
    "softplus",
    "log_sigmoid",
    "binary_cross_entropy_with_logits",
    "binary_cross_entropy",
    "leaky_relu",
    "log1p",
    "lgamma",
    "digamma",
    "expm1",
    "where",
    "sigmoid",
    "batch_norm",
    "max_pool2d",
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "upsample_nearest2d",
    "cumsum",
    "pow",
    "conv2d",
    "weight_norm",
    "group_norm",
    "grid_sample",
    "upsample_bicubic2d",
    "upsample_bilinear2d",
    "qr",
    "solve_triangular",
    "lstm",
    "foreach",
    "fused_optim",
    "fft",
    "logsumexp",
    "scatter_add",
    "scatter_reduce",
    "index_add",
    "index_put",
    "index_reduce",
    "scatter",
    "im2col",
    "col2im",
    "padding_backward",
    "glu",
    "max",
    "topk",
    "histc",
    "ctc_loss",
    "prelu",
    "cdist",
    "sin",
    "cos",
    "erf",
    "erfinv",
    "log2",
    "acos",
    "_to_copy",
    "copy_",
)

# the AVX-512 measurement of the index ops (harness/impl/scatter.py), quoted in their rows
ZEN5_INDEX = (
    "measured on an AMD Zen 5 at 1, 2 and 4 threads, 40 random cases per op a thread count, half with NaN of "
    "both signs (a payload among them), infinities, signed zeros and denormals"
)

# ops sharing a kernel share a row: (ops, kernel reproduced, what makes the bits differ)
ROWS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (
        ("randn",),
        (
            "`normal_fill` (DistributionKernels.cpp): all uniforms drawn first from mt19937, Box-Muller in blocks"
            " of 16, the last partial block redrawn; below 16 elements a double Box-Muller that caches its second"
            " sample; `normal(mean, std, size)` and `randn_like` the same into a new contiguous tensor; a "
            "`randn_like`/`rand_like` of another dense layout (VITS's of a transposed tensor) keeps it, and "
            "`normal_kernel` takes the double sampler for every element, in memory order (a layout with gaps "
            "refused)"
        ),
        (
            "AVX2's Cephes-style log/sincos with compiler FMAs vs the default build's C library maths and "
            "`std::fma`: every ISA level gives other normals (and so other initial weights); the permuted "
            "layouts' serial draws the same at every level: 1,458 `randn_like` and 729 `rand_like` of 4 to 8,320 "
            "elements in permuted and contiguous layouts traced at default, avx2 and avx512 on 1, 2 and 4 threads "
            "and audited: all exact"
        ),
    ),
    (
        ("embedding",),
        "`index_select`; backward `embedding_dense_backward_cpu`: rows added onto zeros in index order",
        "nothing: identical everywhere",
    ),
    (
        ("add", "mul", "div"),
        "binary element-wise kernels (one rounding each); a broadcast operand's gradient through `sum`",
        (
            "nothing: one IEEE rounding per element (grad of a broadcast `b` follows `sum`; `rsub(a, b)` is "
            "`sub(b, a)`: 196 of 196 random traced cases per level exact, 45 refused, alpha 2 or 3 among them); "
            "two NaNs of other "
            "payloads at one element refused (ATen keeps the kernel's operand, not NumPy's); complex tensors "
            "(captured as (re, im) pairs): add and sub `complex_add`, ATen's self + alpha * other with a complex "
            "product by alpha + 0i (an infinite component makes the other NaN), the same bits at every level and "
            "place; div `complex_div`, c10::complex's Smith ratio element by element (scale 1/(c + d*rat) in float), "
            "rounded at default, contracted on the AVX2 object (also at avx512) but for the numerators of an odd "
            "inner loop's last element, and of every tail element in place (div_); add, sub and div: 400 random "
            "draws per level, 313 exact, 0 other, 87 refused (NaN operands, more than 32,768 elements on 2 or 4 "
            "threads), before all refused; mul `complex_mul`: at default (ac - bd, ad + bc), "
            "each product rounded; at avx2 and avx512 (the AVX2 object) each inner loop's vector body of 8 "
            "elements the same, its tail fused (each pair fma(a, c, -fl(bd)), fma(a, d, fl(bc)), an odd last one "
            "plain; with an operand broadcast along the loop, of 5 to 7 left the first plain, the next 4 fused, "
            "the rest plain): the ATen capability is its knob; NaN operands, more than 32,768 elements on 2 or "
            "more threads and, at avx2/avx512, ATen's basic loop refused; measured on a Zen 5: 678 (default) "
            "and 652 (avx2, avx512) random cases on 1, 2 and 4 threads, 0 other; integer, bool and mixed "
            "operands in torch's "
            "promoted dtype (`promote.py`: integers wrap, bool add is or, mul and; an integer cast to float32 "
            "rounded to nearest; div of integers in float32; with a rounding mode in their common dtype, and of two "
            "Python ints, LED's chunk counts, their exact int64 quotient: 3,600 random pairs per level, 3,509 exact, "
            "0 other, 91 zero divisors refused). `div` with `rounding_mode='trunc'`: `trunc(a / b)`; "
            "`'floor'` and `floor_divide`: `div_floor_kernel` (the AVX2 object's 8 lanes at AVX-512), "
            "`c10::div_floor_floating` with glibc `fmodf` in each run's tail, `div_floor_floating_vec` with "
            "SLEEF's `fmodf` and its fix-up in the vector lanes (their NaN lanes as SLEEF's steps leave them; a "
            "signalling NaN divisor of payload 1 or 2 in a vector lane refused); measured on a Zen 5: 588 of 588 "
            "cases of each form at default, avx2 and avx512 over 1, 2, 4 and 8 threads"
            "; add of a bool tensor times alpha (PhiMoE's router, `torch.add(0.3333, mask, alpha=0.6667)`, a Python "
            "number as self; or a float32 tensor plus alpha times a mask) replays: alpha times 0 or 1 is exact, so "
            "ATen's `fmadd(other, alpha, self)` and the plain sum round alike (measured on a Zen 5, 720 random draws "
            "at default, avx2 and avx512 on 1, 2 and 4 threads: 708 exact, 0 other, 12 refused: two NaNs of other "
            "payloads meeting); other alphas with a float32 result stay refused (fused on AVX2)"
            "; mul of a complex tensor by a complex number (`mul.Scalar`: NeuCodec's ISTFT backward; the capture "
            "keeps the number's value) is the broadcast-operand case above, the number rounded to complex<float>; "
            "`floor_divide` of a number by a float32 tensor (I-BERT's `1.0 // s`) the floor kernel with the number "
            "wrapped as its first operand: 225 random draws of each at default, avx2 and avx512 on 1, 2 and 4 "
            "threads, 0 other (floor_divide 225 exact; mul 37 exact, 188 refused: NaN operands, strided rows at "
            "avx2/avx512, past the grain on 2 or 4 threads)"
        ),
    ),
    (
        ("exp", "log", "tanh"),
        (
            "forward: MKL VML `vsExp`/`vsLn`/`vsTanh` (HA) on MKL's generic path, and `vsExp`/`vsLn` on its Intel "
            "AVX2 path; backward: `grad * out`, `grad / x`, `tanh_backward`; `logit` whose TensorIterator "
            "coalesces to one contiguous dim (`LogitMKLKernel`, every level): per element the clamp to [eps, 1 - "
            "eps] in float (eps >= 0 given), `x == 1 ? inf : x / (1 - x)`, then `vsLn`; any other layout ATen's "
            "vectorized loop (`logit_kernel`, lanes_wide): vector lane `vec::clamp` (`min_ps(hi, max_ps(lo, x))`), "
            "`(x / (1 - x)).log()` (SLEEF `logf8_u10`/`logf16_u10`, the default build glibc `logf`), scalar tail "
            "and basic loop the scalar clamp and glibc `logf` (40 random cases, contiguous and every second "
            "element, and 54 over sliced, transposed, permuted, broadcast and 3-d views, the input read as a "
            "scalar, past the grain, NaNs, infinities, +-0, subnormals, the eps bounds, eps None, 0, NaN, -0, "
            "0.75, -0.5, at default, avx2 and avx512 on 1, 2 and 4 threads: 94 of 94 exact, 0 other each; "
            "bit-pattern sweeps in the vector body, every subnormal, every 61st float of [0, inf], 2^21 random "
            "patterns, eps None, 0.25, NaN, 53,942,000 elements each: 0 other)"
        ),
        (
            "forward: MKL's code path (the CPU vendor), not ATen's level; `tanh` backward: `1 - y*y` contracted "
            "to an FMA on AVX2; where ATen's vectorized loop reads the output as a scalar (broadcast along the inner "
            "dim) the x86 vector body computes it unfused, the tail contracted (16 lanes on AVX-512; of 39 and 29 such "
            "random draws at avx2 and avx512, 17 and 10 had other bits with contracted lanes, 0 now); where grad and "
            "1 - y*y are both NaN the x86 objects keep grad's NaN in the second Vectorized of each step (the whole "
            "body and the tail's first one or L + 1 elements with grad read as a scalar), 1 - y*y's elsewhere "
            "(tanh_backward_rows, in TensorIterator's loop: of 50 tanh_backward draws per level with an input "
            "broadcast along the inner dim and payload NaNs, 19 and 16 came out other at avx2 and avx512 before, 0 "
            "now)"
            "; `logit` in ATen's vectorized loop: the vector body's SLEEF log (avx2, avx512) against the tail's "
            "glibc log, so the element's place (runs, thread chunks) and the level; a NaN or negative ratio there "
            "gives SLEEF's NaN 0x7fc00000 at avx2, at avx512 (vfixupimm) the ratio's bits with the exponent and "
            "quiet bit set, in the tail a NaN quieted and a negative ratio x86's default NaN 0xffc00000; an integer "
            "input whose layout TensorIterator's cast copy changes refused"
        ),
    ),
    (
        ("rsqrt",),
        "`rsqrt_kernel`: `1 / sqrt(x)`",
        "nothing: two correctly rounded operations",
    ),
    (
        ("linear", "matmul"),
        (
            "MKL `sgemm` (`addmm` with the bias in C, `bmm`, `baddbmm` (BLOOM's ALiBi scores: `self` broadcast "
            "into C, scaled by beta first where beta is not 0 or 1), `mv`/`addmv` (MKL's `sgemv`: at::addmm's bits "
            "for the product as one row, `vec^T @ mat^T`); ATen's own loop below 400 products, for `baddbmm` "
            "`r*beta + alpha*acc` in three roundings; measured on a Zen 5, identical at every level: 900 random "
            "baddbmm batches per level on 1, 2 and 4 threads, 808 exact, 0 other, 92 refused (alpha 1/sqrt(8) on "
            "MKL's products, NaNs of two kinds meeting); mv/addmv 300 per level, 278 exact, 0 other, 22 refused): "
            "K in blocks of "
            "up to 192, each an `fmaf` chain from 0 added to C in order (beta 0: the first block added to a C of +0, "
            "so a chain that underflows to -0 stores +0 on MKL's generic path, whose gemv 'T' keeps its chain's -0 "
            "where no whole step of lanes ran; on MKL's Intel AVX2 and SSE4.2 paths, measured under QEMU "
            "emulation, the tiles keep the chain's -0 and the gemv dot forms store +0 for beta 0 (AVX2: its "
            "zero-padded last lanes turn -0 lanes into +0; SSE4.2: -0 only where no whole step of lanes ran): "
            "1,500 random products per thread count at 1, 2 and 4 threads, 52 other at AVX2 before, 0 now; the "
            "AVX2 path's 1x1 product of K = 1 rounds a*b before adding C (11 of 48 had other bits); K = 1 with M, N > "
            "1 (the rank-1 update) keeps the product (its -0) in a plain call, an item of bmm's batched gemm starts "
            "from +0 (Mamba's scan backward: 2 bmm of a zero gradient other before; 2,700 random bmm of signed zeros "
            "at default, avx2 and avx512 on 1, 2 and 4 threads: 0 other), with B stored transposed too (the rank-1 "
            "update, not the main kernel's 0 + t: SwiftFormer's 4 mm of its attention backward and TAPAS's 2 bmm of "
            "(1, 80, 1) zeros by a (1, 1, 64) row refused before; "
            "1,080 random mm, addmm and one-item bmm of K = 1 at default, avx2 and avx512 on 1, 2 and 4 threads: "
            "1,017 exact, 63 refused, 0 other; 202 addmm over a C of -0 other before)); unfused "
            "small-matrix and gemv kernels "
            "chosen by shape, layout and 16-byte alignment; an output of no elements (JetMoE's experts that "
            "receive no tokens: `mm` of a (0, K) slice, 4 refused before) returned before any gemm, K = 0 "
            "`self` copied and multiplied by beta (`mul_`: a signalling NaN comes back quiet), as "
            "addmm_impl_cpu_ does; measured on a Zen 5, 200 random products per op with M, N or K 0 in half "
            "(NaNs of both signs quiet and signalling, infinities, subnormals, -0) at default, avx2 and "
            "avx512 on 1, 2 and 4 threads: mm and addmm 175 exact, 25 refused, bmm and baddbmm 179 exact, 21 "
            "refused, 0 other each; ATen's small `bmm` loop where NaNs of two kinds meet refused (which one "
            "its compiled operand order keeps: 7 of 200 had other bits before)"
        ),
        "MKL's code path (CPU vendor and model); MKL's thread grid (blocks of C per thread, each with its own "
        "kernel choice); for `bmm` with fewer items than threads, MKL's cut of each item into parts",
    ),
    (
        ("layer_norm",),
        (
            "`LayerNormKernelImpl`: Welford moments with cascade merging, `rstd = 1/sqrt(var + eps)`, `y = fma((x"
            " - mean) * rstd, w, b)`; backward with per-thread `dgamma`/`dbeta` buffers summed in thread order"
        ),
        "FMA (AVX2) vs separate multiply-add (default); thread count (weight and bias gradients); the torch "
        "release (2.12.1's AVX2 objects round the backward's partial last vector of a row twice, later ones fuse it); "
        "a forward row holding an infinity whose output holds a NaN refused (+qNaN there at avx2, measured in a random "
        "traced program, where the impl gives -qNaN)",
    ),
    (
        ("gelu",),
        (
            "oneDNN `eltwise_gelu_erf` for more than one element (Abramowitz-Stegun erf with oneDNN's exp); "
            "ATen's scalar path with `erff` for one element; a non-contiguous `self` (wav2vec2's positional "
            "convolution cut by a column) skips oneDNN for ATen's `GeluKernelImpl` / `GeluBackwardKernelImpl` in "
            "TensorIterator's runs (each row's vector body with ATen's Vectorized `erf`, 16 lanes at AVX-512, the "
            "tail with glibc `erff`; the scalar lambda throughout where an operand is not unit-stride innermost, "
            "as wav2vec2's backward against a transposed grad_output)" + _ITERATOR_LOOP
        ),
        (
            "`ONEDNN_MAX_CPU_ISA`: FMA on AVX2, multiply-then-add on SSE4.1, another polynomial on AVX-512; for a "
            "non-contiguous `self` ATen's level and the thread count's tails instead (measured on a Zen 5: 312 "
            "forward and 390 backward strided cases per thread count 1, 2, 4, 8 at each level, 0 other); an expanded "
            "self (stride 0) is not contiguous: ATen's GeluKernelImpl, not oneDNN (a (17,) of stride 0 had 32 and 33 "
            "of 33 other bits when taken as oneDNN's)"
        ),
    ),
    (
        ("gelu_tanh",),
        (
            "`GeluKernelImpl` (tanh form): vector body with SLEEF tanh, scalar tail with `std::tanh`; work split "
            "as `numel / threads` above 16384 elements; an operand that is not one contiguous run in "
            "TensorIterator's runs (each row a vector body and a scalar tail; the scalar lambda where an operand is "
            "not unit-stride innermost); x86's backward vector lanes give a NaN x all bits set (SLEEF `tanhf`'s NaN)"
            + _ITERATOR_LOOP
        ),
        "SLEEF vs C library tanh and compiler FMAs; 16 lanes on AVX-512; thread count moves the scalar tails"
        + _NAN_READ_AS_SCALAR,
    ),
    (
        ("softmax", "log_softmax"),
        (
            "`_vec_softmax_lastdim` / `_vec_log_softmax_lastdim` and their backwards (SoftMaxKernel.cpp): max, "
            "`exp(x - max)`, sum, times `1/sum`; `(x - max) - log(sum)`; `_safe_softmax` is softmax with 0 for "
            "rows entirely `-inf`; softmax over another dim: `_vec_softmax`, per column of the (outer, dim, inner) "
            "view max, `exp(x - max)`, `0 + e` in order, `e / sum`, 8 columns (16 at AVX-512) at a time by "
            "Vectorized where they fit in the thread's range and the row, the rest scalar; its backward "
            "`_vec_softmax_backward`, per chunk of columns `sum += g*y` over the dim, `gx = y * (g - sum)`; "
            "log_softmax over another dim: `serial_vec_logsoftmax_range`, columns in chunks of `128 KiB / dim / "
            "4` rounded to the vector width, per column max, `0 + exp(x - max)` over the dim, `log` by "
            "`vec::map`, `(x - max) - log`; its backward `sum = 0 + g`, `g - exp(y) * sum`; softmax and log_softmax "
            "of NaN inputs refused (`x - max` of the NaN vec::maximum passes on: x86's all-ones, aarch64's FMAX's; "
            "random traced programs at avx2 gave other NaN bits)"
        ),
        (
            "16 lanes on AVX-512; SLEEF vs C library exp/log; FMAs; the softmax backward fuses the last partial "
            "vector only where it runs outside the OpenMP region (1 thread or 1 row), and on AVX2 only from torch "
            "2.13.0; over another dim the thread count (grain 1: each thread's range decides which columns take "
            "the vector path, SLEEF's exp on AVX2, the C library's in the scalar columns), its backward's "
            "`fma(g, y, sum)` on AVX2 and AVX-512 (not the thread count); AVX-512's object takes 16 columns a "
            "vector (measured on a Zen 5: 112 random shapes per thread count 1, 2, 4, forward and backward, "
            "0 other); log_softmax over another dim: the chunk's last `size % width` columns scalar (C library "
            "exp), the backward's `g - exp(y) * sum` fused in the FMA objects, not the thread count (measured at "
            "default, avx2, avx512 on a Zen 5: 100 random shapes per level and thread count, 0 other; arm64: see "
            "its column); NaN inputs there not measured on x86: refused"
        ),
    ),
    (
        ("cross_entropy",),
        (
            "`log_softmax` then `nll_loss` (mean): an 8-level cascade over rows that skips ignored targets, divided "
            "by the count; backward through both; `nll_loss2d` (LossNLL2d.cpp, inputs of 3 or more dims: segmentation"
            " heads): the same cascade over the N*H*W elements in linear order, class weights as `loss -= x*w` "
            "(rounded) beside a cascade of the weights (the total weight), reductions mean, sum and none (`-x * w` "
            "per element); its backward `-w * grad`, `w * -(grad / total_weight)` or `w * -grad` at each kept target; "
            "`nll_loss` of a batch (B, C) with reduction none (LXMERT's per-region losses) the same per-row `-x * w` "
            "(0 where ignored) and `-w * grad`"
        ),
        (
            "as `log_softmax`; `nll_loss2d`: serial or per batch element, compiled outside the per-capability "
            "objects, so no level or thread count reaches a bit (measured on a Zen 5: 320 random traced programs per "
            "level at default, avx2 and avx512 on 1, 2 and 4 threads, weights, ignored pixels, mean / sum / none, NaN"
            " / inf / -0 / denormals: forward 72 exact and 8 refused, backward 80 exact, 0 other per level; `nll_loss` "
            "of (B, C) unreduced: 120 random programs per level on 1, 2 and 4 threads, 240 ops exact, 0 other); "
            "NaNs of two patterns among its sums (or a NaN beside infinities of both signs) refused"
        ),
    ),
    (
        ("sdpa",),
        (
            "`cpu_flash_attention` and its backward (FlashAttentionKernel.cpp): q/kv blocks, online softmax with "
            "`exp_u20`, MKL gemm per block; any head size and lengths, causal or not, a float mask, a given scale, "
            "grouped key/value heads, torch's own layouts; refused on MKL's generic path on 3 or more threads "
            "where one work item (one image, one head, one query row) runs single-row gemvs outside the "
            "kernel's OpenMP region (measured on a Zen 5: 1 to 4 outputs differed at 3, 4 and 8 threads)"
        ),
        "16 lanes on AVX-512; FMAs; thread split over (batch, head, q block); with one work item, how MKL cuts "
        "a single-row gemv between the threads",
    ),
    (
        ("sdpa_dropout",),
        (
            "the math path (`_scaled_dot_product_attention_math`): q and k each times `sqrt(1/sqrt(D))`, `bmm`, "
            "causal `-inf` mask, `_safe_softmax`, dropout, `bmm`; backward by autograd"
        ),
        "as `softmax` and `matmul`; the mask draws as `dropout`",
    ),
    (
        ("dropout",),
        (
            "`bernoulli_(1 - p)` (one mt19937 double per element, serial), `div_(1 - p)`, `x * noise`; `bernoulli_` "
            "into a non-contiguous tensor draws in its TensorIterator order (`cpu_serial_kernel` over a nullary "
            "iterator: memory order for a dense view, dims by stride for a slice; 300 random views at 1, 2, 4 "
            "threads, 300 exact, before 163 refused); into a tensor of another dtype the same draws, 0 and 1 of "
            "its dtype (bool: 40 random draws per level exact, the replay had given float32); the functional "
            "`bernoulli(x, p)` draws into a new contiguous tensor of x's shape (40 per level exact), "
            "`bernoulli(x)` of a tensor of probabilities refused"
        ),
        "nothing: identical everywhere",
    ),
    (
        ("sum", "mean"),
        (
            "`cascade_sum` (SumKernel.cpp) under TensorIterator's reduction split; a full reduction is two-pass "
            "over per-thread buffers; `mean` divides by the count"
        ),
        (
            "thread count (full reductions); never the ISA level; NaNs of several patterns, or a NaN beside an "
            "infinity, in a reduced tensor refused on x86 (which one the cascade's adds keep is not modelled: a "
            "random traced `mean` over NaN payloads gave other bits; arm64: see its column)"
        ),
    ),
    (
        ("logsumexp",),
        (
            "`logsumexp_out_impl` (ReduceOps.cpp), ATen's own ops in turn: `m = amax(x, dims, keepdim=True)`, an"
            " infinite `m` set to 0, `exp_(x - m)` (the `exp` row's kernel), `sum` over `dims` (the `sum` row's"
            " `cascade_sum`), `log_` (the `log` row's), `+ m`; the backward is ATen's `sub`, `exp`, `mul` ops of"
            " its own; C-contiguous float32 input, no NaN"
        ),
        (
            "MKL's code path (its `exp` and `log`) and the thread count (its `sum`), never ATen's level (measured"
            " on the Zen 3: default and avx2 give the same bits; on a Zen 5 avx512 gives them too, its `sum` the"
            " AVX2 object's: 136 random cases per thread count 1, 2, 4, 0 other)"
        ),
    ),
    (
        ("var",),
        (
            "full: `std_var_all_cpu` (double accumulation over thread chunks); along a dim: Welford in double; "
            "any `correction` (the divisor n - correction, 0 where n <= correction: `unbiased=False` is 0, Gemma "
            "3n's activation sparsity)"
        ),
        (
            "thread count (full reductions); `std`/`var` with correction 0, 1 and 2: 225 random draws each at "
            "default, avx2 and avx512 on 1, 2 and 4 threads, 201 exact, 24 refused (NaNs of several patterns), 0 other"
        ),
    ),
    (
        ("vector_norm",),
        (
            "`norm_kernel` (2-norm): 8 lane accumulators without FMA, lanes summed in order, then the leftover; "
            "every reduced dim of extent 1 (a one-element or 0-d tensor): `abs` of the elements, no square "
            "(`linalg_vector_norm_out`'s `is_reduce_over_1D_vector`; also `_foreach_norm` and `norm`); the 1-norm "
            "(DBRX's router): `binary_kernel_reduce` with `NormOneOps`, `acc + |x|` per output in memory order, one "
            "output of 32,768 elements or more in `parallel_for` chunks, the threads' sums added in order"
        ),
        (
            "the compiler vectorised part of the leftover unfused and contracted the rest on AVX2; NaNs of several "
            "patterns, or a NaN beside an infinity, refused on x86 (their sums of squares' NaN; arm64: see its "
            "column); the 1-norm: the thread count where one output is split, not the level; NaNs of "
            "several patterns (their signs cleared by `abs`) refused; measured on a Zen 5: 1,350 random 1-norms "
            "(dim subsets, permuted layouts, up to 210,000 elements; NaNs of both signs, quiet and signalling, "
            "infinities, subnormals, -0) at default, avx2 and avx512 on 1, 2 and 4 threads: 1,158 exact, 192 "
            "refused (NaNs of several patterns), 0 other"
        ),
    ),
    (
        ("clip_grad_norm",),
        (
            "`clip_grad_norm_`: per-tensor norms, norm of norms, `reciprocal(total + 1e-6) * max_norm`, clamp at "
            "1, multiply"
        ),
        "as `vector_norm`",
    ),
    (
        ("adamw_step",),
        (
            "`_single_tensor_adamw`: `mul_(1 - lr*wd)`, `lerp_`, `mul_().addcmul_()`, `sqrt` (MKL VML), `/ "
            "sqrt(bc2)`, `add_(eps)`, `addcdiv_(-lr/bc1)` with Python-double scalars; the in-place `lerp_`, "
            "`addcmul_`, `addcdiv_` of any layout replay on x86 through the lerp row's TensorIterator loop (two NaNs "
            "of other bits meeting in one element refused)"
        ),
        (
            "`lerp_`/`addcmul_` fused on AVX2 (vector body and tail), not on default; MKL's sqrt refines the "
            "CPU's own `rsqrtps` estimate, so it depends on the CPU model, element by element: torch.sqrt of a "
            "transposed, column-sliced or every-other-row view (a strided run copied into IMPLEMENT_ITERATOR_LAMBDA's "
            "buffer) gives each element's contiguous bits (measured: 1,440 views at default, avx2 and avx512 on 1, 2 "
            "and 4 threads on a Zen 5, 144 each on MKL's Intel AVX2 and SSE4.2 paths under QEMU's Haswell-v4, with "
            "zeros, subnormals, infinities, NaN payloads, negatives and bits from 0x7f7ff001: 0 other). Float64 "
            "sqrt (and pow(x, 0.5)): MKL VML's `vmdSqrt`, read from its kernels in libtorch_cpu.so 2.13.0 and "
            "ported (`csrc/optim.c` `vml_sqrt_d`): on the generic path (`dSqrt_EXHAynn`; MKL_CBWR=COMPATIBLE the "
            "same bits: 40 of 40 random cases) RSQRTPS of x's top 23 mantissa bits with its exponent's parity, "
            "scaled by x's exponent, h = (1 - xh*y*y) - xl*y*y (xh x's top 26 mantissa bits), a degree-4 "
            "correction in h and xh*y + (xl*y + x*y*h*P(h)), SSE2, no fused step; zeros, subnormals, x from "
            "2^1022, infinities, NaNs and negatives its rare path (a 512-entry table of 1/sqrt to 11 bits, three "
            "coupled Goldschmidt steps, a Dekker-split correction: IEEE's bits on 8,000,000 random subnormals and "
            "doubles past 2^1022; negatives and -inf +qNaN `0x7ff8000000000000`, NaNs quieted, -0 kept); the "
            "Intel AVX2 path (`dSqrt_L9HAynn`) the same steps fused (h = fma(-x, y*y, 1), fma(x, y, ...)); "
            "element by element, so no level, thread count or layout reaches a bit; MKL's Intel SSE4.2 and "
            "AVX-512 paths (`H8HAynn`, `Z0HAynn`, not read) refused"
        ),
    ),
    (
        ("mse_loss",),
        (
            "`mse_loss_out` (Loss.cpp): BinaryOpsKernel's `mse_kernel`, `diff * diff` of `diff = self - target` in "
            "`cpu_kernel_vec`, into the borrowing binary op's output; `mean` / `sum` reduce that output whole (the "
            "`sum` row's `cascade_sum` over its memory order; `mean` divides by the count); backward "
            "`mse_backward_cpu_kernel`: `norm * (self - target) * grad_output`, norm 2/numel (mean) or 2"
        ),
        (
            "thread count (the mean's and sum's full reduction); the elements and the backward nothing; measured "
            "on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads: 250 random traced programs per level, "
            "mse_loss 179 exact, 71 refused (NaNs of more than one bit pattern in one mean or sum: which one the "
            "cascade keeps is not modelled), its backward 250 exact, 0 other"
        ),
    ),
    (
        ("smooth_l1_loss",),
        (
            "`smooth_l1_loss` / `huber_loss` (Loss.cpp): BinaryOpsKernel's `smooth_l1_kernel` / `huber_kernel`, `z = "
            "|self - target|`, `z < beta ? 0.5*z*z/beta : z - 0.5*beta` (huber `0.5*z*z` : `delta*(z - 0.5*delta)`), "
            "beta as float, the same in the vector blend and the scalar branch; `mean` / `sum` reduce that output "
            "whole as mse_loss's; backward PointwiseOpsKernel's `smooth_l1_backward_cpu_kernel` / "
            "`huber_backward_cpu_kernel`: vector `norm * out * grad` (`out` ±1, huber ±delta, where `|x| >= beta`, "
            "else `x / beta`, huber `x`), scalar against the double beta (`norm * x * grad / beta` in double; huber "
            "`(±norm * grad) * delta` in double), and GCC's SSE blocks of 4 at the head of each scalar tail (each "
            "basic loop's call for strided operands) take `norm * grad` as `-(-norm * grad)` (a NaN grad's sign "
            "flipped where `x >= beta`)"
        ),
        (
            "thread count and layout (which elements the backward's scalar tail takes; the mean's and sum's cascade);"
            " measured on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads: 500 random traced programs per "
            "level (two seeds; NaN payloads, ±inf, ±0, subnormals, beta 1e-3 to 3, transposed, sliced and broadcast "
            "operands, past the grain), per level smooth_l1_loss 222 exact, 42 refused (NaNs of several bit patterns "
            "in one mean or sum), its backward 260 exact, 4 refused (NaNs in both self - target and grad at one tail "
            "element), huber_loss 158 exact, 31 refused, its backward 187 exact, 2 refused, 0 other; a backward with "
            "beta <= 0 (l1_loss_backward's path) or a subnormal beta refused"
        ),
    ),
    (
        ("exponential",),
        (
            "`exponential_` (DistributionTemplates.h's default `exponential_kernel`, "
            "`at::exponential_distribution<double>`): serial, one `random64()` per element, `u` its low 53 bits * "
            "2^-53, `-1/lambda * log1p(-u)` in double (glibc's log1p; dmath.h `dm_log1p`), rounded to float; "
            "contiguous float32 only"
        ),
        (
            "nothing on this Zen 5 (the same bits at default, avx2, avx512 on 1, 2, 4 threads; 188 random traced "
            "draws per level, sizes 1 to 90000, lambdas 1e-3 to 37, 0 other); MKL's VSL path (`vsRngExponential`, "
            "MCG31) that an Intel CPU may take is refused (the profile's MKL Intel path), not measured"
        ),
    ),
    (
        ("sinc",),
        (
            "`sinc_kernel` (UnaryOpsKernel.cpp): `cpu_kernel`, no vector lambda: `a == 0 ? 1 : sin(p) / p`, `p = pi *"
            " a` in float, glibc's sinf (in double 22138 of 30012 values would differ)"
        ),
        (
            "nothing (measured: default, avx2, avx512 on 1, 2, 4 threads the same bits; 120 random traced sincs per "
            "level, NaN payloads, ±inf, ±0, subnormals, views, past the grain: 120 exact, 0 other)"
        ),
    ),
    (
        ("atanh",),
        (
            "`atanh_kernel` (UnaryOpsKernel.cpp, `cpu_kernel_vec`, also registered for AVX-512): the vector lambda "
            "`Vectorized<float>::atanh`, SLEEF's `Sleef_atanhf8_u10` / `atanhf16_u10` (`logk2f` of (1 + |x|)/(1 - |x|) "
            "in double-float, halved; all-ones NaNs) at avx2 / avx512, `std::atanh` per lane in the default build; the "
            "scalar lambda glibc 2.36's atanhf (fdlibm over log1pf) in each inner loop's tail and in the basic loop; "
            "backward: autograd's `pow`, `sub_`, `mul` and `div`" + _ITERATOR_LOOP
        ),
        (
            "ATen capability (SLEEF's lanes or glibc's) and the thread count (each chunk's tail is glibc's); measured "
            "on a Zen 5: every float32 bit pattern at avx2 and at avx512 (contiguous: vector lanes) and through a "
            "strided view (glibc's on every element), 0 of 4,294,967,296 other each; the glibc port against the "
            "host's libm (glibc 2.36) on every pattern, 0 differ; 408 random traced atanh / atanh_ ops per level (1, "
            "2, 4 threads: NaN payloads, ±inf, ±1, subnormals, views, past the grain) exact, 0 other"
        ),
    ),
    (
        ("polar",),
        (
            "`polar_kernel` (ComplexKernel.cpp, `cpu_kernel`, no vector lambda): GCC's one glibc `sincosf` call for "
            "`std::cos` and `std::sin`, then (cos, sin) * abs in one MULPS, (cos, sin) its first operand (its NaN "
            "wins); complex64 out as (re, im) pairs"
        ),
        (
            "nothing (one object code at every level; measured at default, avx2, avx512 on 1, 2, 4 threads: 120 "
            "random polars per level, NaN payloads and infinities in both operands, a broadcast abs, a strided "
            "angle, 0 other)"
        ),
    ),
    (
        ("hann_window",),
        (
            "`hann_window` (TensorFactories.cpp: `hamming_window` with alpha = beta = 0.5): `arange(N)`, `mul_` by "
            "2 pi / (N - 1) rounded to float, `cos_` (MKL VML's vsCos: the `sin`/`cos` row), `mul_(-0.5)`, "
            "`add_(0.5)`, N one more where periodic"
        ),
        (
            "MKL's code path (its cos: the `sin`/`cos` row's refusals); nothing else (measured at default, avx2, "
            "avx512 on 1, 2, 4 threads: 120 random windows per level, lengths to 70,000, 0 other)"
        ),
    ),
    (
        ("kaiser_window",),
        (
            "`kaiser_window_kernel` (UnaryOpsKernel.cpp, `cpu_kernel` over `arange(N)`): `i0(beta * sqrt(|1 - t*t|)) "
            "/ i0(beta)`, t = (i - alpha) / alpha, alpha = (N - 1) / 2; Math.h's `calc_i0` in float (Cephes' "
            "Chebyshev series, glibc's expf, both i0 per element)"
        ),
        (
            "ATen capability: the AVX2 object (avx2 and avx512: no AVX-512 registration) contracts 1 - t*t, x/2 - 2 "
            "and each Chebyshev step `y*b1 - b2` into FMAs, the default one does not (read from the disassembly); "
            "measured on a Zen 5: 120 random windows per level (1, 2, 4 threads, lengths to 70,000, beta 0 to 200) "
            "exact, 0 other; a beta not finite refused"
        ),
    ),
    (
        ("elu",),
        (
            "`elu_kernel` / `elu_backward_kernel` (Activation.cpp), `cpu_kernel_vec` (selu and celu too): vector lane "
            "`a >= 0 ? a*poscoef : expm1(a*negiptcoef)*negcoef` (Vectorized expm1: SLEEF's, glibc's per lane in "
            "the default build), scalar `a < 0 ? std::expm1(...)*negcoef : a*poscoef` (glibc's at every level); "
            "backward `b > 0 ? g*poscoef : g*negiptcoef*negcoef*exp(b*negiptcoef)` (is_result: "
            "`g*negiptcoef*(b + negcoef)`), Vectorized exp in the body, glibc `expf` in the tail; also registered "
            "for AVX-512 (16 lanes)"
        ),
        (
            "SLEEF vs C library expm1/exp in the vector body and 16 lanes on AVX-512, so the ATen level and the "
            "thread chunks move the bits; a NaN input takes the negative branch in the backward's vector body and "
            "`g * scale` in its tail; where grad and input are both NaN the AVX2/AVX-512 objects keep the input's "
            "NaN with is_result and grad's without, the default object's lanes by position; measured on a Zen 5: "
            "250 random traced programs per level on 1, 2 and 4 threads, elu 209 and its backward 250 exact, 0 "
            "other"
        ),
    ),
    (
        ("hardswish",),
        (
            "`hardswish_kernel`, `hardsigmoid_kernel` and their backwards (Activation.cpp), `cpu_kernel_vec`: `x * "
            "min(max(x + 3, 0), 6) / 6` (hardsigmoid without `x *`), backward hardswish `x <= -3 ? 0 : x < 3 ? "
            "g*(x/3 + 0.5) : g` (the vector lane tests `x >= 3` first), hardsigmoid `-3 < x < 3 ? g/6 : 0`; "
            "hardswish's kernels also registered for AVX-512 (16 lanes), hardsigmoid's not (8 lanes at avx512)"
        ),
        (
            "NaNs only: `vec::maximum`'s all-ones NaN in the AVX2/AVX-512 vector lanes (hardsigmoid; hardswish in "
            "the first vector of each pair, x's NaN in the second), x's NaN in the default build and the tails; a "
            "NaN x in hardswish_backward: a NaN in the vector body, grad in the tail; 16 vs 8 lanes move where "
            "the tails start; measured on a Zen 5: 250 random traced programs per level on 1, 2 and 4 threads, "
            "hardswish 136 and hardsigmoid 114 exact (each backward alike), 0 other"
        ),
    ),
    (
        ("mish",),
        (
            "`mish_kernel` / `mish_backward_kernel` (Activation.cpp), `cpu_kernel_vec`: vector lane `x * "
            "x.exp().log1p().tanh()` (SLEEF's expf, log1pf, tanhf u10 at avx2/avx512, glibc's per lane at default), "
            "scalar tail `x * std::tanh(std::log1p(std::exp(x)))` with glibc's; backward `dy * (t + x*s*(1 - t*t))`, "
            "`s = 1/(1 + exp(-x))`, `t = tanh(log1p(exp(x)))`; also registered for AVX-512 (16 lanes)" + _ITERATOR_LOOP
        ),
        (
            "SLEEF vs C library exp, log1p and tanh in the vector body and 16 lanes on AVX-512, so the ATen level and"
            " the thread chunks move the bits; the backward's `1 - t*t` and `t + (x*s)*u` contracted in the "
            "AVX2/AVX-512 objects (body and tail); NaNs per place: the forward's second Vectorized of each "
            "AVX2/AVX-512 step gives SLEEF tanhf's all-ones NaN (x's quieted elsewhere), the backward's bracket NaN "
            "wins over dy's but for a NaN dy read as a scalar in the AVX2/AVX-512 tails, a NaN x is -x in the default"
            " body (x in the first 4 of each 8 where x is read as a scalar), all ones in the AVX2/AVX-512 bodies; "
            "measured on a Zen 5: random traced draws at default, avx2 and avx512 on 1, 2 and 4 threads, mish 168 and"
            " mish_backward 157 exact per level, 0 other"
        ),
    ),
    (
        ("atan2",),
        (
            "`atan2_kernel` (BinaryOpsKernel.cpp), `cpu_kernel_vec`: vector lane `a.atan2(b)` (SLEEF `atan2f_u10`: "
            "`atan2kf_u1` in double-float at avx2/avx512; glibc's `atan2f` per lane at default), scalar tail "
            "`std::atan2`, glibc 2.36's `atan2f` (fdlibm in float); also registered for AVX-512 (16 lanes)"
            + _ITERATOR_LOOP
        ),
        (
            "SLEEF vs C library atan2f in the vector body and 16 lanes on AVX-512, so the ATen level and the thread "
            "chunks move the bits; a NaN operand: SLEEF's all-ones NaN in the AVX2/AVX-512 body, glibc's x + y (the "
            "second operand's NaN where both are, quieted) elsewhere; measured on a Zen 5: 500 random traced draws "
            "per level at default, avx2 and avx512 on 1, 2 and 4 threads, 500 exact, 0 other (the glibc port: 0 of "
            "400,000 random pairs differ from the host's libm)"
        ),
    ),
    (
        ("lerp",),
        (
            "`lerp_kernel_scalar_weight` / `lerp_kernel_tensor_weight` (LerpKernel.cpp): vector lane `fmadd(coeff, "
            "end - start, base)` (coeff, base = w, start where |w| < 0.5, else w - 1, end), scalar `|w| < 0.5 ? start"
            " + w*diff : end - diff*(1 - w)`; `addcmul_cpu_kernel` / `addcdiv_cpu_kernel` (PointwiseOpsKernel.cpp): "
            "`self + (value*t1)*t2`, `self + (value*t1)/t2`; REGISTER_DISPATCH only (8 lanes at AVX-512)"
            + _ITERATOR_LOOP
        ),
        (
            "contraction: lerp's fmadd and addcmul's `fma(value*t1, t2, self)` fused in the AVX2 object (vector body "
            "and, by GCC, the scalar tail), two roundings on default; thread count only through where tails fall; "
            "where two NaNs of other bits meet in one element (two NaN operands, a NaN weight or value, or an "
            "operation's default NaN) which one each object keeps is GCC's operand order: refused; measured on a Zen "
            "5: random traced draws per level at default, avx2 and avx512 on 1, 2 and 4 threads, lerp 266 (59 "
            "refused), addcmul 255 (70 refused), addcdiv 241 (84 refused) exact, 0 other"
        ),
    ),
    (
        ("minimum",),
        (
            "`maximum_kernel` / `minimum_kernel` (BinaryOpsKernel.cpp), `clamp_kernel_impl` (TensorCompareKernel.cpp; "
            "clamp with one bound, clamp_min, clamp_max: the maximum or minimum kernel), by tensors: vector "
            "`vec::maximum` / `minimum` (`max_ps(a, b)`, b where equal, OR-ed with the unordered mask), scalar "
            "`std::max` / `std::min` (a where equal), quiet_NaN() for a NaN operand (clamp: a NaN bound; a NaN "
            "self passes on as it is); by numbers (clip_grad_norm_'s `clamp(coef, max=1.0)`) x's own bits at NaN "
            "and at the bounds, the bound rounded to float32 past it, at every level (200 random draws per level, "
            "all exact); integer tensors of one dtype (T5's relative position buckets) in that dtype, exact (51 "
            "random int8 to int64 cases per level at default, avx2 and avx512 on 1, 2 and 4 threads, 0 other; "
            "mixed integer dtypes refused)"
        ),
        (
            "NaNs (all ones in the AVX2/AVX-512 lanes, the operand's own bits in the default build's, 0x7fc00000 "
            "in the tails) and zeros of either sign (`max(+0, -0)`: -0 in the vector body, +0 in the tail), so the "
            "level, the thread chunks and the layout move them; measured on a Zen 5: 250 random traced programs "
            "per level on 1, 2 and 4 threads, maximum 67, minimum 49, clamp 91, clamp_min 15, clamp_max 10 exact, "
            "none refused, 0 other"
            "; clamp, clamp_min and clamp_max of an integer tensor by Python ints (Wav2Vec2-BERT's relative distances"
            " clipped to the window): `min(max(x, lo), hi)` in x's dtype, exact; float bounds (a float result) and "
            "bounds outside the dtype refused (measured on a Zen 5: 246 random traced clamps of int8/16/32/64 and "
            "uint8 tensors at default, avx2 and avx512 on 1, 2 and 4 threads: 246 exact, 0 other); a capture missing "
            "its self (ctc_loss's mean, `at::tensor(target_lengths).clamp_min(1)`) is refused saying so"
        ),
    ),
    (
        ("remainder",),
        (
            "`fmod_kernel`, `remainder_kernel` (BinaryOpsKernel.cpp), `cpu_kernel_vec`: vector `Vectorized::fmod` "
            "(SLEEF's `fmodf`; `std::fmod` per lane in the default build), scalar `std::fmod` (glibc `fmodf`); "
            "remainder `mod + b` where `mod != 0` and `(b < 0) != (mod < 0)`, else mod (a -0 kept)"
        ),
        (
            "NaNs only (fmod is exact): SLEEF's steps leave their own NaNs in the vector lanes (a NaN or infinite "
            "a, a NaN or zero b, a quotient past float's range): refused; glibc's NaN of two NaN operands is the "
            "one of the larger significand (measured through torch's tails); measured on a Zen 5: 250 random traced "
            "programs per level on 1, 2 and 4 threads, fmod 128 (default) and 92 (avx2, avx512) exact, remainder "
            "122 and 71, the rest at avx2/avx512 refused, 0 other"
            "; integer tensors (the integral `remainder_kernel`: `r = a % b`, plus b where r is non-zero and of the "
            "other sign) replay exactly in the common dtype (NeuCodec's remainder of int64 positions by an int32 "
            "tensor), division by zero (torch raises) refused (measured on a Zen "
            "5: 294 random traced remainders of int8/16/32/64 and uint8 tensors, mixed widths, broadcast, the dtypes'"
            " extremes, at default, avx2 and avx512 on 1, 2 and 4 threads: 294 exact, 0 other); an integer tensor by "
            "a Python int (`remainder.Scalar`: the LSTM zoo's token ids % 12, traced on emulated N1) stays in the "
            "tensor's dtype (it had been taken as float32); integer fmod (the integral `fmod_kernel`, C++'s "
            "truncating `a % b`) likewise, by a tensor or a Python int (TAPAS's cell indices `fmod(indices, 32)`: 2 "
            "other per trace, int64 replayed as float32, before), the minimum by -1 giving 0 in both (measured, where "
            "it had been refused), a Python int outside the tensor's dtype refused (measured on a Zen 5: 513 random "
            "traced fmod and remainder of int8/16/32/64 and uint8 tensors by tensors, broadcast rows, transposed views "
            "and Python ints at default, avx2 and avx512 on 1, 2 and 4 threads: 508 exact, 5 refused (a number "
            "outside the dtype), 0 other)"
        ),
    ),
    (
        ("arange",),
        (
            "`arange_kernel` (RangeFactoriesKernel.cpp): start and step as doubles; per thread chunk of "
            "`at::parallel_for` (GRAIN_SIZE) the vectorized loop, pairs of 8-lane vectors each "
            "`Vectorized<float>::arange(start + step * idx, step)` (the base rounded to float, lane j `base + "
            "j * step` in double; the AVX2 object's lane 0 the base itself, so a -0 base stays -0 there and is "
            "+0 at default: 93 of 300 draws near zero had other bits before), then the scalar tail `start + "
            "step * idx` in double, each rounded to float; "
            "integers exact (also from whole float arguments: Funnel's `arange(0, n, 1.0, dtype=long)`); float64 "
            "of whole numbers below 2**52 exact in every lane and chunk (RT-DETR's and D-FINE's position embeddings)"
        ),
        (
            "thread count: a chunk restarts the vectors at its own first index (13,992 of 70,001 elements other "
            "at 4 threads than at 1); not the ISA level (the AVX2 object's contraction of the double a*b+c "
            "changed no float in 200,000 draws); measured on a Zen 5: 200 random aranges per level (default, "
            "avx2, avx512) on 1, 2, 4 and 8 threads, up to 200,000 elements, negative steps among them, all exact; "
            "1,645 random whole-number aranges into float64, int64 and int32 (steps of -13 to 1,000, starts of -0 "
            "and 2**40, up to 140,000 elements) at the three levels on 1, 2 and 4 threads: all exact"
        ),
    ),
    (
        ("linspace",),
        (
            "`linspace_kernel` (RangeFactoriesKernel.cpp), serial: start and end rounded to float, `step = "
            "(end - start) / (steps - 1)` in float, `start + step * idx` below `steps / 2`, else `end - step * "
            "(steps - idx - 1)`"
        ),
        (
            "ATen capability: both contracted to FMAs in the AVX2 object (avx2, avx512), two roundings in the "
            "default one (356 of 1,000 elements other); not the thread count; measured on a Zen 5: 200 random "
            "linspaces per level on 1, 2, 4 and 8 threads, all exact"
        ),
    ),
    (
        ("uniform",),
        (
            "`uniform_kernel` (DistributionTemplates.h): serial, one mt19937 word per element, `u = (w & "
            "0xffffff) * 2^-24`, `u * (to - from) + from` in float; a value rounded up to `to` becomes `from`; "
            "`rand` and `rand_like` the same from 0 to 1 into a new contiguous tensor"
        ),
        "the multiply-add fused on AVX2/AVX-512, two roundings on default: other initial weights per ISA level",
    ),
    (
        ("where",),
        (
            "`where_kernel`, `masked_fill_kernel`: a selection per element (broadcast), no arithmetic; `where`'s "
            "operands first cast to their promoted dtype, `masked_fill`'s value to the tensor's"
        ),
        "nothing: the selected bits, NaN payloads included, identical everywhere",
    ),
    (
        ("silu",),
        (
            "`silu_kernel` / `silu_backward_kernel` (Activation.cpp): `x / (1 + exp(-x))`; backward "
            "`s = 1 / (1 + exp(-x))`, `dy * s * (1 + x * (1 - s))`; vector body with SLEEF exp, scalar tail "
            "with `expf`" + _ITERATOR_LOOP
        ),
        (
            "SLEEF vs C library exp and 16 lanes on AVX-512 (where the scalar tail starts); backward "
            "`1 + x*(1 - s)` contracted to an FMA on AVX2/AVX-512; thread count moves the scalar tails above "
            "32768 elements" + _NAN_READ_AS_SCALAR
        ),
    ),
    (
        ("softplus",),
        (
            "`softplus_kernel` / `softplus_backward_kernel` (Activation.cpp): "
            "`blendv(log1p(exp(x*beta)) / beta, x, x*beta > threshold)`; backward `z = exp(x*beta)`, "
            "`blendv((g*z) / (z + 1), g, x*beta > threshold)`; vector body with SLEEF exp and log1p, scalar "
            "tail with `expf` and `log1pf`" + _ITERATOR_LOOP
        ),
        (
            "SLEEF vs C library exp and log1p (the default build's lanes are the C library's); NaNs: SLEEF's "
            "log1p answers its own NaN in the AVX2 vector body, and the AVX2 tail's product takes x's NaN "
            "where grad and x are both NaN; with grad read as a scalar the x86 body takes x's NaN and the tail "
            "grad's, with x read as a scalar the tail grad's (of 50 such draws per level with payload NaNs, 26 and "
            "29 came out other at avx2 and avx512 before; 0 now); thread count moves the scalar tails above 32768 "
            "elements; AVX-512 runs "
            "its own object (also registered): 16 lanes, steps of 32 elements, so other scalar tails, and SLEEF's "
            "AVX-512 log1p passes a NaN on quieted (measured on a Zen 5: 148 cases per thread count 1, 2, 4, forward "
            "and backward, 0 other)"
        ),
    ),
    (
        ("log_sigmoid",),
        (
            "`log_sigmoid_cpu_kernel` (Activation.cpp `_vec_log_sigmoid`): `buffer = exp(-|x|)`, "
            "`out = minimum(x, 0) - log1p(buffer)`, every element a vector lane (the last partial vector "
            "loaded short; SLEEF `Sleef_expf8_u10` and `Sleef_log1pf8_u10` at AVX2, `expf` and `log1pf` per "
            "lane in the default build); backward `log_sigmoid_backward_cpu_kernel`: "
            "`(max_deriv - sign * (b / (1 + b))) * g`, max_deriv and sign 1 for x < 0, else 0 and -1" + _ITERATOR_LOOP
        ),
        (
            "SLEEF vs C library exp and log1p (forward only); NaNs: the AVX2 `minimum` gives the all-ones NaN "
            "0xffffffff, the default build x quieted; the backward's `sign * q` is exact, so contraction changes "
            "no bit, but where a NaN buffer meets a NaN grad the AVX2 body's second vector of each step gives "
            "grad's NaN, elsewhere q's: the thread chunks and layout move it; AVX-512 runs its own object (also "
            "registered): the AVX2 bits in steps of 2 x 16 lanes (measured on a Zen 5: 124 cases per thread count "
            "1, 2, 4, 0 other)" + _NAN_READ_AS_SCALAR
        ),
    ),
    (
        ("binary_cross_entropy_with_logits",),
        (
            "`binary_cross_entropy_with_logits` (Loss.cpp), ATen's own ops: `ls = log_sigmoid(x)` (the "
            "`log_sigmoid` row's forward), `ls *= (pos_weight - 1) * target + 1` where pos_weight is given, "
            "`loss = (1 - target) * x - ls`, `loss *= weight` where given, then `mean()` or `sum()` of the "
            "whole (the `sum` row's kernel) or no reduction; its backward is autograd's ops (sigmoid, sub, mul)"
        ),
        (
            "`log_sigmoid`'s SLEEF vs C library exp and log1p (measured: other bits at default and avx2 from "
            "64 elements); the thread count through the mean or sum only; avx512 as avx2 (log_sigmoid's "
            "forward, every element a lane; measured on a Zen 5: 100 random cases per thread count 1, 2, 4, 71, 68 "
            "and 75 exact, the rest refused as everywhere: a mean or sum over a NaN loss; 0 other)"
        ),
    ),
    (
        ("binary_cross_entropy",),
        (
            "`binary_cross_entropy_out_cpu` (Loss.cpp): `cpu_kernel`'s scalar lambda per element into "
            "`empty_like(self)`, `(t - 1) * max(log1p(-x), -100) - t * max(log(x), -100)` left to right in float "
            "(glibc's `log1pf` and `logf`, Loss.cpp's one x86 object: no level reaches it, nothing contracted), "
            "then `mean` / `sum` of that tensor whole (the `sum` row's cascade over its memory order); backward "
            "`binary_cross_entropy_backward_out_cpu`: `grad * (x - t) / max((1 - x) * x, float(1e-12))`, then "
            "for `mean` `div_(numel)`; a weight refused"
        ),
        (
            "thread count (the mean's and sum's full reduction); the elements and the backward nothing; measured "
            "on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads: 60 random traced programs per level and "
            "thread count (x of [0, 1] with 0, -0, 1, subnormals, logs below -100 and 1 - x of 0; targets 0, 1 or "
            "fractions; mean, sum and none, the last with gradients of NaN payloads of both signs and infinities; "
            "transposed and sliced operands; past the grain) binary_cross_entropy 60 exact and its backward 60 "
            "exact each, 0 refused, 0 other (PP-OCRv5's differentiable-binarisation loss)"
        ),
    ),
    (
        ("leaky_relu",),
        (
            "`leaky_relu_kernel` / `leaky_relu_backward_kernel` (Activation.cpp), `cpu_kernel_vec`: "
            "`x * blendv(negval, 1, x > 0)` (scalar `x > 0 ? x : x * negval`); backward "
            "`g * blendv(negval, 1, x > 0)` (scalar `x > 0 ? g : g * negval`), negval the slope as float"
            + _ITERATOR_LOOP
        ),
        (
            "none but NaNs: the product quiets a NaN; where x > 0 a signalling grad is quieted by the vector "
            "body's `g * 1` and passed on as it is by the scalar tail and a strided operand's basic loop, so "
            "the thread chunks and the layout move it; `inf * 0` the CPU's default NaN. An in-place "
            "`leaky_relu_`'s backward (`self_is_result`) is the same kernel on the result, whose sign is the "
            "input's for the slopes ATen lets through (a negative one raises): Swin2SR's; 225 random draws at "
            "default, avx2 and avx512 on 1, 2 and 4 threads, 0 other"
        ),
    ),
    (
        ("log1p",),
        (
            "`log1p_kernel` (UnaryOpsKernel.cpp) through `vml::vlog1p`: `vec::map` of Vectorized `log1p` over "
            "each run, its last partial vector loaded short: every element a vector lane (SLEEF "
            "`Sleef_log1pf8_u10` at AVX2, `log1pf` per lane in the default build), no scalar tail"
        ),
        (
            "SLEEF vs C library log1p; NaNs: SLEEF's AVX2 log1pf answers its own NaN (0x7fc00000), the C library "
            "and SLEEF's AVX-512 `Sleef_log1pf16_u10avx512f` (log1p_stub also registered for AVX-512) x quieted; "
            "threads and layout change no bit (measured on a Zen 5 at avx512: 0 other in 124 cases per thread "
            "count 1, 2, 4, every subnormal, [1, 2) and 2^23 random inputs)"
        ),
    ),
    (
        ("lgamma",),
        (
            "`lgamma_kernel` (UnaryOpsKernel.cpp) through `vml::vlgamma`: `vec::map` of Vectorized `lgamma` "
            "over each run, its last partial vector loaded short: every element a vector lane (SLEEF "
            "`Sleef_lgammaf8_u10` at AVX2, `lgammaf` per lane in the default build), no scalar tail"
        ),
        (
            "SLEEF's double-float gamma vs the C library's fdlibm lgammaf (363 of the test's 1,319 inputs "
            "differ); "
            "NaNs: x quieted at both; threads and layout change no bit; avx512's own object "
            "(`Sleef_lgammaf16_u10avx512f`) gives the avx2 bits (measured on a Zen 5: 0 other in 124 cases per "
            "thread count, every subnormal, [1, 2) and 2^23 random inputs)"
        ),
    ),
    (
        ("digamma",),
        (
            "`digamma_kernel` (UnaryOpsKernel.cpp): `calc_digamma` (Math.h) per element: x < 0 reflected through"
            " `pi / tan(pi * r)` in double, `result -= 1/x` up to x >= 10, then `logf(x) - 0.5/x - z * P(z)`,"
            " z = 1/x^2, P a Horner chain of 7 float coefficients; also lgamma's backward (then `mul`)"
        ),
        (
            "the Horner step `p*z + c` contracted to an FMA in the avx2 object, two roundings in the default"
            " one (1 of 2,300,000 NumPy inputs differs, near the root at 1.4616); NaNs: x quieted at both;"
            " threads and layout change no bit; avx512 runs the avx2 object (no AVX-512 registration; measured on"
            " a Zen 5: 0 other)"
        ),
    ),
    (
        ("sin", "cos"),
        (
            "forward: MKL VML `vsSin`/`vsCos` (HA), read from MKL's kernels (`EXHAynn` generic, `H8HAynn` Intel "
            "SSE4.2, `L9HAynn` Intel AVX2), |x| <= 10000: N = rint of `|x| * 1/pi` (cos: `(|x| + pi/2) * 1/pi`, N - "
            "1/2) by a 1.5*2^23 shifter, r = |x| - N*pi in double with pi in two parts, an odd degree-9 polynomial in "
            "double (`p*r2*r + r`), one rounding to float; the generic and SSE4.2 kernels unfused (N from the float "
            "product), the AVX2 kernel with every multiply-add fused (N from the exact product); 10000 < |x| < inf: "
            "their inline large-argument branch, the mantissa times a 96-bit window of 1/(2*pi)'s bits (16-bit "
            "partial products, the lowest dropped), the turns rounded to j/256 by a 1.5*2^15 shifter, the rest a "
            "float pair times 2*pi, sin/cos(2*pi*j/256) from a 256-entry table (`vml_sincos_table.h`) with float "
            "polynomials of degree 5 and 4 in the rest, every step in float (the AVX2 kernel's multiply-adds fused); "
            "float64 (RT-DETR v2's and D-FINE's position embeddings): MKL VML `vmdSin`/`vmdCos` (HA), read from "
            "MKL's generic kernels (`dSin_EXHAynn`/`dCos_EXHAynn`, SSE2, no FMA; csrc/dmath.h `mkl_vml_sincos_d`), "
            "|x| <= 65536.0035: k = rint(a * 256/pi) by a 1.5*2^52 shifter (a = |x| for sin, x for cos), r = a - "
            "k*pi/256 with pi/256 in three parts and its low part rl, sin/cos(i*pi/256) of i = k mod 512 (cos: i + "
            "128) from a 512-entry table (`vml_sincos_d_table.h`, every word equal to MKL's: sin rounded, its rest "
            "truncated to 24 bits, cos as the nearest power of 2 plus a rounded rest) combined with r in two-sums, "
            "odd and even polynomials of degree 5 and 6 in r, sin's sign xored back; past 65536.0035 the kernel's "
            "Payne-Hanek branch: the "
            "significand times a 192-bit window of 1/(2*pi)'s bits in 32-bit partial products, the turns' fraction "
            "in three doubles, i by a 1.5*2^43 shifter, the rest times 2*pi in parts; an infinity gives the default "
            "NaN (x * 0), a NaN x quieted (x * x); backward: autograd's `cos`/`sin` and `mul`"
        ),
        (
            "forward: MKL's code path (the CPU vendor), not ATen's level nor the thread count (measured identical at "
            "default, avx2 and avx512, 1, 2 and 4 threads); generic path on a Zen 5: every float of [-10000, 10000] "
            "(2,352,513,026 per op) and every finite float past 10000 of either sign (1,925,677,054 per op) equal; "
            "AVX2 path under QEMU's Haswell-v4: every float of [2^-31, 10000] and [-10000, -2^-31] (370,950,145 "
            "each) and every 5th of [0, 10000] (235,251,303) equal, 4 sin and 16 cos inputs of them differing from "
            "the generic path (another N next to k*pi); past 10000 every 13th float bit pattern, both signs "
            "(148,129,006 per op) equal, 0.02% of them differing from the generic path (the branch's fused steps); "
            "SSE4.2 path (Haswell-v4, MKL_ENABLE_INSTRUCTIONS=SSE4_2): every 11th float of [0, 10000] (106,932,410) "
            "and every 29th past 10000 (66,402,658 per op) equal, the generic bits; random programs at 1, 2 and 4 "
            "threads on both Intel paths: 0 other; MKL's Intel AVX-512 path (not read) refused; "
            "MKL_CBWR=COMPATIBLE the generic path's bits (0 of 23,282,894 differ, past 10000 0 of every 61st float, "
            "31,568,478 per op); float64: MKL's code path only (`dSin`/`dCos_EXHAynn` run on a Zen 5, by a "
            "breakpoint; the same bits at default, avx2 and avx512, with MKL_CBWR=COMPATIBLE, on 1, 2 and 4 "
            "threads), not correctly rounded (0.015% to 0.024% of random doubles of [-64, 64] one ULP off the "
            "nearest, each within 0.0025 ULP of a midpoint: the kernel's own steps); measured on a Zen 5 through "
            "torch on 1 thread, 16,100,029 doubles per op and run (uniform over [-64, 64], [-1, 1], [0, 20] and "
            "[-65536, 65536], bit patterns of every |x| up to 65536.0035 and past it, both signs, the doubles next to "
            "k*pi/256, (k + 1/2)*pi/256, k*pi/2 and 65536.0035, integers and halves, position-embedding angles, "
            "subnormals, binades' ends, infinities, NaN payloads of both signs, quiet and signalling) at avx2 (5 "
            "draws), default, avx512 and avx2 with MKL_CBWR=COMPATIBLE: 0 of 128,800,232 per op differ; "
            "1- to 7-element calls (the kernels' 2-element tail loop), 300,000 per op: 0 differ; 360 random cases "
            "per op (1 to 100,003 elements off 4 and 8 lanes and the 32,768 grain, transposed, strided and "
            "broadcast, 5% specials, 1% past 65536; 3,844,083 elements) at default, avx2 and avx512 on 1, 2 and 4 "
            "threads: 360 exact, 0 refused, 0 other; MKL's Intel paths (their kernels not read) refused"
        ),
    ),
    (
        ("erf",),
        (
            "forward: MKL VML `vsErf` (HA) on MKL's generic path, read from its code (`sErf_EXHAynn`, float SSE, no "
            "FMA): |x| clamped to 3.9296875 and rounded to s = k/256 by a 2^15 shifter (s = 0 below 3.5/256), "
            "d = a - s; erf(s) from a 1,007-entry table (24 bits and a packed correction), 64 exp(-s^2) beside it, a "
            "polynomial in s*d and d^2, erf = ((p*g + q) + g) * 2^-6 + h, the sign xored back; MKL's Intel SSE4.2 "
            "path (`sErf_H8HAynn`) computes the same; its Intel AVX2 path (`sErf_L9HAynn`) the same table and "
            "constants with the multiply-adds fused: p = fma(sd, fma(sd, C1, C2), fma(d^2, C3, C4)), q = fma(e, h, "
            "-h), erf = fma(fma(p, g, q) + g, 2^-6, h); backward: autograd's `mul`, `exp`, `neg`"
        ),
        (
            "forward: MKL's code path (the CPU vendor and MKL_ENABLE_INSTRUCTIONS), not ATen's level nor the thread "
            "count (random sizes off 4, 8 and 16 lanes and the 32,768 grain, strided: identical at default, avx2 and "
            "avx512 on 1, 2 and 4 threads); equal to torch on all 2^32 bit patterns on a Zen 5 (0 differ: NaN payloads "
            "kept, quieted, +-inf -> +-1, subnormals x + x*c1); MKL's Intel paths under QEMU's Haswell-v4 (no "
            "estimate instruction: the CPU's bits): AVX2 every 83rd bit pattern and 76 specials (51,746,670) 0 "
            "differ (6,062 of them differ from the generic path) and every 7th float of |x| < 4 (309,180,124) 0 "
            "differ, SSE4.2 (MKL_ENABLE_INSTRUCTIONS=SSE4_2) every 83rd (51,746,670) and every 13th float of |x| < 4 "
            "(166,481,606) 0 differ, the generic bits; 24 random cases (sizes off 8 and 16 lanes and the 32,768 "
            "grain, strided, transposed, expanded, 5% specials) at 1 and 2 threads on each path: 96 exact, 0 "
            "refused, 0 other; a traced erf/erfinv program under emulation at avx2 and baseline on 1 and 2 "
            "threads: 125 of 125 ops exact per trace; MKL's AVX-512 path (`sErf_Z0HAynn`, not read) refused"
        ),
    ),
    (
        ("erfinv",),
        (
            "forward: MKL VML `vsErfInv` (HA) on MKL's generic path, read from its code (`sErfInv_EXHAynn`, float SSE, "
            "no FMA): erfinv(x) = x * S(w), w = 1 - |x| with its rounding error kept, S a degree-5 polynomial in w's "
            "mantissa from a 192-entry table (w's exponent and top 3 mantissa bits), its last steps and the product by "
            "x in split floats; |x| < 2^-24 x * sqrt(pi)/2 in double, +-1 -> +-inf, |x| > 1 -> 0xffc00000, NaN "
            "quieted; MKL's Intel SSE4.2 path runs the generic kernel (no H8 kernel); its Intel AVX2 path "
            "(`sErfInv_L9HAynn`) the same table and scalar routine with the Horner steps fused and S split by fused "
            "multiply-adds, not truncation: Sh = fma(T7, r, T6), Sl = fma(T7, r, T6 - Sh), erfinv = fma(x, Sh, "
            "x * (Sl + P)); backward: autograd's `exp`, `pow` and `mul`"
        ),
        (
            "forward: MKL's code path (the CPU vendor and MKL_ENABLE_INSTRUCTIONS), not ATen's level nor the thread "
            "count (measured identical at default, avx2 and avx512, 1, 2 and 4 threads; MKL_CBWR and "
            "MKL_ENABLE_INSTRUCTIONS change no bit on a Zen 5); equal to torch on all 2^32 bit patterns on a Zen 5 (0 "
            "differ, the 120,954 inputs VML rounds against the exact erfinv among them); MKL's Intel paths under "
            "QEMU's Haswell-v4 (no estimate instruction: the CPU's bits): AVX2 every 83rd bit pattern and 76 "
            "specials (51,746,670) 0 differ (1,506 of them differ from the generic path) and every 7th float of "
            "|x| < 1 (304,386,634) 0 differ, SSE4.2 (MKL_ENABLE_INSTRUCTIONS=SSE4_2) every 83rd (51,746,670) and "
            "every 13th float of |x| < 1 (163,900,496) 0 differ, the generic bits; 24 random cases (sizes off 8 "
            "and 16 lanes and the 32,768 grain, strided, transposed, expanded, 5% specials) at 1 and 2 threads on "
            "each path: 96 exact, 0 refused, 0 other; a traced erf/erfinv program under emulation at avx2 and "
            "baseline on 1 and 2 threads: 125 of 125 ops exact per trace; MKL's AVX-512 path (`sErfInv_Z0HAynn`, "
            "not read) refused"
        ),
    ),
    (
        ("log2",),
        (
            "forward: MKL VML `vsLog2` (HA) on MKL's generic path, read from its code (`sLog2_EXHAynn`, float SSE, no "
            "FMA): k = rint(RCPPS(m) * 1.4375) for the mantissa m, r = m*k - 1.4375 in two exact parts, "
            "log2(184/k) - 127 from a 93-entry table plus the exponent, a degree-3 polynomial, the sum compensated; "
            "subnormals (scaled by 2^27) through its scalar routine's 65-entry table and degree-8 polynomial; MKL's "
            "Intel AVX2 path (`sLog2_L9HAynn`) the same steps and tables with r = fma(k, m, -1.4375) and every "
            "multiply-add of both polynomials fused; its Intel SSE4.2 path runs the generic kernel (no H8 kernel); "
            "backward: autograd's `mul` and `div`"
        ),
        (
            "forward: MKL's code path and the CPU's RCPPS estimate (AMD's: a table of the top 12 mantissa bits), not "
            "ATen's level nor the thread count (70,409,299 bit patterns and random sizes identical at default, avx2 "
            "and avx512 on 1, 2 and 4 threads, under MKL_ENABLE_INSTRUCTIONS=SSE4_2/AVX2/AVX512 and "
            "MKL_CBWR=COMPATIBLE); equal to torch on all 2^32 bit patterns on a Zen 5 (NaN payloads, infinities, "
            "subnormals, negatives: 0x7fc00000, +-0: -inf); MKL's Intel paths under QEMU's Haswell-v4 (QEMU's RCPPS "
            "exact: k = rint(float(1/m) * 1.4375)): AVX2 every 127th bit pattern (33,818,641) and every 37th "
            "(116,080,198) 0 differ, SSE4.2 (MKL_ENABLE_INSTRUCTIONS=SSE4_2) every 61st (70,409,300) 0 differ; an "
            "Intel CPU's own RCPPS (not measured), MKL's AVX-512 path (`sLog2_Z0HAynn`, not read) refused"
        ),
    ),
    (
        ("acos",),
        (
            "forward: MKL VML `vsAcos` (HA) on MKL's generic path, read from its code (`sAcos_EXHAynn`, float SSE, no "
            "FMA): for |x| < 1/2, pi/2 - (x + x*P(x^2)); else sqrt(2(1 - |x|)) from RSQRTPS truncated to 12 bits and a "
            "Newton step in split floats, times 1 + P(z), P a degree-5 polynomial, pi added for x < 0; |x| > 1 "
            "0xffc00000; MKL's Intel SSE4.2 path (`sAcos_H8HAynn`) computes the same; its Intel AVX2 path "
            "(`sAcos_L9HAynn`) keeps RSQRTPS whole (not truncated), the Newton step's products and the polynomial "
            "fused; backward: autograd's `mul`, `neg`, `add`, `rsqrt`"
        ),
        (
            "forward: MKL's code path and the CPU's RSQRTPS estimate (AMD's table, `rsqrt_tables.h`), not ATen's level "
            "nor the thread count (70,409,299 bit patterns and random sizes identical at default, avx2 and avx512 on "
            "1, 2 and 4 threads, under MKL_ENABLE_INSTRUCTIONS=SSE4_2/AVX2/AVX512 and MKL_CBWR=COMPATIBLE); equal to "
            "torch on all 2^32 bit patterns on a Zen 5 (NaN payloads kept, quieted); MKL's Intel paths under QEMU's "
            "Haswell-v4 (QEMU's RSQRTPS exact: 1/sqrt rounded twice): AVX2 every 127th bit pattern (33,818,641), every "
            "251st of [0, 1] and every 17th of (0, 1] and of [-1, 0) (62,667,837 each) 0 differ, SSE4.2 every 61st bit "
            "pattern (70,409,300) 0 differ; an Intel CPU's own RSQRTPS (its table is `rsqrt_tables.h` "
            "intel_rsqrt_mant, vsAcos not checked on one), MKL's AVX-512 path (not read) refused"
        ),
    ),
    (
        ("expm1",),
        (
            "`expm1_kernel` (UnaryOpsKernel.cpp) through `vml::vexpm1` (MKL's Expm1 kept off): `vec::map` of "
            "Vectorized `expm1` over each run, its last partial vector loaded short: every element a vector "
            "lane (SLEEF `Sleef_expm1f8_u10`, `expk2f(x) - 1` in double-float, at AVX2; `expm1f` per lane in "
            "the default build), no scalar tail"
        ),
        (
            "SLEEF's double-float exp vs the C library's fdlibm expm1f (48 of the test's 915 inputs differ); "
            "NaNs: x quieted at both; threads and layout change no bit; avx512's own object "
            "(`Sleef_expm1f16_u10avx512f`) gives the avx2 bits (measured on a Zen 5: 0 other)"
        ),
    ),
    # -- trace-only rows of the torch.nn layers (harness/impl/nn.py)
    (
        ("sigmoid",),
        (
            "`sigmoid_kernel` (UnaryOpsKernel.cpp): `1 / (1 + exp(0 - x))`, vector body with SLEEF exp, scalar "
            "tail with `expf`, one inner loop per contiguous run (a row of a strided view: nn.GRU's gates); "
            "backward `sigmoid_backward_kernel`: `dy * (1 - y) * y`" + _ITERATOR_LOOP
        ),
        (
            "SLEEF vs C library exp and 16 lanes on AVX-512 (where the scalar tail starts); the backward nothing "
            "(no multiply-add to contract)"
        ),
    ),
    (
        ("glu",),
        (
            "`glu_kernel` (Activation.cpp) over the input's halves `a`, `b` along dim: `a * (1 / (1 + exp(-b)))`, "
            "vector body with SLEEF exp (16 lanes a block), scalar tail with `expf`, one inner loop per contiguous "
            "run of the halves (a (B, 2C, T) input halved on dim 1: runs of C*T); backward "
            "`glu_backward_cpu_out` (GatedLinearUnit.cpp): `s = sigmoid(b)` by the sigmoid row's kernel, then "
            "`(1 - s) * s * a * g` and `s * g`, left to right; a NaN pair at one element refused at default"
        ),
        (
            "SLEEF vs C library exp (ATen capability) and the thread count past 32768 outputs (where a chunk's "
            "scalar tail falls); the backward's products nothing (where two NaNs meet, the left operand's). "
            "AVX-512 runs its own object (also registered; the 16-lane blocks already modelled): measured on a "
            "Zen 5, 124 cases per thread count 1, 2, 4, forward and backward, 0 other"
            "; the backward's `s * g` is `mul_`'s kernel (its vector body keeps `g`'s NaN, its tail `s`'s): a NaN `b`"
            " meeting a NaN `g` of other bits is refused (measured on a Zen 5 at avx2 and avx512: 5 of 120 random "
            "backward cases with NaNs had given -qNaN for torch's +qNaN); a grad_output of other strides replays "
            "(Wav2Vec2-BERT's adapter), an element where a NaN meets another NaN or an infinity among a, b, g refused"
            " there (240 random cases per level, contiguous, transposed and sliced gradients, 1, 2, 4 threads: 0 "
            "other)"
        ),
    ),
    (
        ("batch_norm",),
        (
            "`batch_norm_cpu_collect_stats` / `batch_norm_cpu_kernel` / `batch_norm_cpu_backward_kernel` "
            "(batch_norm_kernel.cpp), training: NCHW sums per channel in double, `y = x * alpha + beta`; "
            "channels-last (and NC11) per-thread float buffers added in double; running stats in "
            "Normalization.cpp; eval: `1 / sqrt(running_var + eps)` in float, the same transform; layouts "
            "neither contiguous nor channels-last, and backwards whose input and grad_out are not both dense of "
            "one suggested memory format (PatchTST's BatchNorm1d over a transposed sequence, UperNet's one-pixel "
            "channels-last map): Normalization.cpp's TensorIterator path, `at::mean` / `at::sum` in "
            "TensorIterator's order, double sums in the serial loop's order, float element-wise steps without "
            "FMA (eval: MKL VML's sqrt of running_var + eps), measured on a Zen 5 at default, avx2 and avx512, "
            "1, 2 and 4 threads, 0 other; refused on every profile: operands with NaNs of more than one pattern, "
            "a channel with a NaN beside an infinity (of the arm64 recordings' random draws, 3 training forwards "
            "and 4 backwards had other bits on the Zen 5); the kernels' backward reads a dense "
            "grad_out of another layout in the input's layout, as ATen's does; refused: in the kernels' "
            "backward, a channel with an infinity or NaN in the input and a NaN in grad_out (rows kernel at "
            "every level, NCHW past default: which NaN the sums keep)"
        ),
        (
            "FMAs of the AVX2 objects (the output, the backward's `dy - grad_mean - dx`, some reductions' "
            "last partial vector only); the default build's lane fold vs the AVX2 shuffle tree; thread count "
            "(channels-last buffers, their double sum); never AVX-512 (8 lanes there too); the TensorIterator "
            "path: only the thread count (at::mean's and at::sum's split), no capability"
        ),
    ),
    (
        ("max_pool2d",),
        (
            "`cpu_max_pool` / `cpu_max_pool_backward` (MaxPoolKernel.cpp): a value wins when greater or NaN, "
            "row-major over the window; backward adds into the winners in output order; a view with gaps whose "
            "suggested memory format is channels-last (Hiera's q sliced from its fused qkv) pools as the dense "
            "channels-last copy ATen makes of it (`input.contiguous(memory_format)`)"
        ),
        (
            "nothing: a selection, and additions in a fixed order, identical everywhere; views with gaps that "
            "suggest channels-last measured on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads: 40 random "
            "traced programs each (q of a (batch, H, W, 2 or 3, C) tensor, C 1 to 33, kernels 1 to 3, strides 1 "
            "and 2, NaN payloads of both signs, infinities, -0, subnormals; past the grain), the forward and its "
            "backward 40 exact each, 0 other"
        ),
    ),
    (
        ("adaptive_avg_pool2d",),
        (
            "`cpu_adaptive_avg_pool2d` and its backward (AdaptiveAvgPoolKernel.cpp): a float sum from 0 over "
            "the window, `/ kh / kw`; channels-last: `/ (kh*kw)` in the vector body (torch takes `mean` for 1x1)"
        ),
        (
            "nothing between platforms or thread counts; the memory layout (channels-last divides once). Two "
            "NaNs meeting in a sum: the running sum's forward, grad_input's (default) or the term's (avx2, "
            "avx512) backward, measured on a Zen 5 (15 cases per entry, 0 other); refused: channels-last "
            "forward, channels-last backward at default and avx512, aarch64"
        ),
    ),
    (
        ("avg_pool2d",),
        (
            "`cpu_avg_pool` / `cpu_avg_pool_channels_last` and their backwards (AvgPoolKernel.cpp; avg_pool1d "
            "through avg_pool2d, avg_pool3d alike): per output the window from `o*s - p`, cut at `in + p` (the "
            "count with padding) and at the input; a float sum from +0 in row-major order, `sum / "
            "float(divisor)` (count_include_pad, ceil_mode's cut windows, divisor_override), channels-first "
            "`0 + quotient`; backward: grad_x zero, per plane, per output in row-major order `delta = g / "
            "divisor` added over its window"
        ),
        (
            "nothing: additions and one division in a fixed order (vector body and scalar tail alike), planes "
            "or outputs split over threads whole; not the thread count or the layout. Two NaNs meeting in a "
            "sum: the running sum's forward, grad_input's in the backward at default (2-D) and for 3-D, the "
            "term's in the 2-D backward at avx2 and avx512 and channels-last (measured on a Zen 5 against "
            "torch with NaNs of three payloads, 72 cases per level: 60 exact, 54 at default, the rest "
            "refused, 0 other); refused: channels-last forward, 3-D channels-last, the channels-last backward "
            "at default, aarch64 (NumPy's own choice before: other bits at every level)"
        ),
    ),
    (
        ("upsample_nearest2d",),
        (
            "nearest and nearest-exact upsampling, 1-D, 2-D, 3-D (UpSampleKernel.cpp, UpSampleMoreKernel.cpp): "
            "a gather by per-dim source indices, `floorf(scale*i)` (`nearest_idx`: `i` for equal sizes, `i >> 1` "
            "for twice), nearest-exact `floorf(float(max(scale*(i + 0.5) - 0.5, 0)) + 0.5)` in the generic "
            "kernel, `floorf((i + 0.5)*scale)` in double in the channels-last one (a channels-last input of "
            "more than 3 channels, or a 2-D output with OH + OW <= 128); `scale` `float(1/scale_factor)` when "
            "given, else `in/out`; backward: grad_x zero, per plane each output added to its source "
            "(`nearest_idx` / `nearest_exact_idx`) in row-major order"
        ),
        (
            "nearest-exact's generic forward: the AVX2 object contracts its source to `fma(scale, i + 0.5, "
            "-0.5)` (2 -> 41: output 20 reads element 1 at avx2 and avx512, 0 at default); avx512 runs the AVX2 "
            "object (UpSampleKernel.cpp's kernels are REGISTER_DISPATCH only; measured on an AMD Zen 5: the 90 "
            "size pairs where the two rules part give the fused index, 90 of 90, and 236 random resizes and "
            "backwards at 1, 2 and 4 threads, 28 of them nearest-exact's generic forward, 0 other); otherwise "
            "nothing (a gather; the backward's additions in the outputs' order; not the thread count or the "
            "layout), but the default build's 3-D backward, which keeps neither the first nor the last NaN "
            "where two NaN gradients meet (39 of 60 such cases): refused there"
        ),
    ),
    (
        ("cumsum",),
        "`cumsum_cpu_kernel` (ReduceOpsKernel.cpp): a double accumulator from +0, each partial sum rounded to float",
        "nothing: identical everywhere",
    ),
    (
        ("max",),
        (
            "`max`/`min`/`aminmax` over a dim: `compare_base_kernel`'s scan (TensorCompareKernel.cpp), the first "
            "extreme (of +0 and -0 the first) or the first NaN, its bits and int64 index; full `max`/`min`/"
            "`aminmax`: `reduce_all` (ReduceAllOpsKernel.cpp), with a NaN a single element itself, `max_impl`'s "
            "0x7fc00000 across 32768-element chunks at 2+ threads, else the AVX2 object's all-ones NaN (also at "
            "avx512) or the default object's first NaN of the lowest of 8 lanes, quieted by `fill_`; `amax`/`amin` "
            "(`binary_kernel_reduce_vec`): the extreme, with a NaN over each output's contiguous run 0x7fc00000; "
            "refused: a zero extreme with zeros of both signs, `amax`/`amin` with a NaN reduced across outputs"
        ),
        (
            "the ATen capability and thread count, only where NaN is among a full reduction's values (the "
            "operand's NaN at default, all-ones at avx2 and avx512, 0x7fc00000 across chunks at 2+ threads); "
            "measured on a Zen 5 at default, avx2 and avx512, 1, 2 and 4 threads: 1,800 max/min/amax/amin/"
            "aminmax/minimum random ops per level, 1,683 exact, 117 refused, 0 other; 750 ops per level all "
            "holding NaNs, 720 exact, 30 refused, 0 other"
        ),
    ),
    (
        ("topk",),
        (
            "`topk_impl_loop` (TopKImpl.h): `std::partial_sort` (k * 64 <= n) or `std::nth_element` then "
            "`std::sort` of the first k - 1, NaN ranked highest, values copied; `sort` (SortingKernel.cpp): "
            "`std::stable_sort`, or `std::sort`: libstdc++'s introsort step by step (median-of-three pivot, "
            "unguarded partition, the final insertion sort; the equal expert ids a mixture-of-experts layer "
            "sorts); `nth_element` libstdc++'s introselect step by step (the same pivot and partition while "
            "more than 3 elements, then an insertion sort), which decides ties and the order `sorted=False` "
            "leaves (LongCat-Flash's router); `partial_sort` libstdc++'s heap step by step where equal "
            "elements meet (`__make_heap` of the first k, each later element the comparator puts before the "
            "top sifted in by `__pop_heap`, `__sort_heap`; `__adjust_heap` takes the right child on a tie); "
            "refused: introsort's heap-sort and introselect's heap-select fallbacks, 1-D integers of 32768 "
            "or more with equal ones (fbgemm's radix sort)"
        ),
        (
            "nothing: selections (measured on a Zen 5 at default, avx2 and avx512, 1, 2 and 4 threads: 200 "
            "topk and 200 sort random ops per level with NaNs, signed zeros and ties, 298 exact, 102 refused, "
            "0 other; 150 unstable sorts of many equal elements per level, 150 exact; topk's `nth_element` "
            "path, sorted or not, with many ties, NaNs of both signs and payloads, signalling ones, "
            "infinities and subnormals: 300 random ops per level, 257 on that path all exact, 0 other; "
            "topk's `partial_sort` path with many ties (small integers, +-0, NaNs of both signs, quiet and "
            "signalling, infinities, subnormals; rows of 64 to 40,000, k up to n / 64, over either dim): 300 "
            "random ops per level and thread count, 598 rows through the heap, 300 of 300 exact, 0 other)"
        ),
    ),
    (
        ("histc",),
        (
            "`histogramdd_cpu_contiguous` (HistogramKernel.cpp, linear interpolation): edges from `linspace(min, "
            "max, bins + 1)` (min = max: the values' extremes, widened by 1 where equal), bin "
            "`int((x - edge0) * bins / (edgeN - edge0))` in float32, the last bin keeping its right edge, NaN and "
            "out-of-range skipped, threads' counts added (exact)"
        ),
        (
            "nothing: identical everywhere (measured on a Zen 5 at default, avx2 and avx512, 1, 2 and 4 "
            "threads: 150 random ops per level, NaN and infinities among the values, 0 other)"
        ),
    ),
    (
        ("ctc_loss",),
        (
            "`ctc_loss_cpu_template` / `ctc_loss_backward_cpu_template` (LossCTC.cpp, outside native/cpu: no "
            "capability), scalar float, one thread per batch element: the log-space alpha recursion "
            "`((log((exp(la1-m) + exp(la2-m)) + exp(la3-m)) + m) + lp`, the loss `-(log(exp(l1-m) + exp(l2-m)) + m)`, "
            "beta likewise backwards, alpha + beta log-added per class, the gradient "
            "`(exp(lp) - exp((ab + nll) - lp)) * grad_out`; glibc's `expf` and `logf` (FMA builds) as the impl's "
            "own ports (`vmath.h`); where two NaNs meet, SSE's first operand in the compiled order (several sums "
            "swapped from the source); `log_alpha` (scratch in a trace) recomputed for the backward"
        ),
        (
            "nothing: identical everywhere (measured on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 "
            "threads: 600 random traced losses per level, blank other than 0, repeated labels, empty targets, "
            "input lengths below T, -inf log-probabilities, infinite losses, zero_infinity either way, NaNs of "
            "five bit patterns in 134 and +inf in 57: `_ctc_loss` and `_ctc_loss_backward` 600 exact each, 0 "
            "other); float64 refused (glibc's double exp and log are not correctly rounded)"
        ),
    ),
    (
        ("scatter_add", "scatter_reduce"),
        (
            "`cpu_scatter_gather_base_kernel` (ScatterGatherKernel.cpp): per index position "
            "`self[index] += src`, threads split over the positions off `dim`, the loop along `dim` serial, so "
            "each element's terms in index order; dim 0 with an expanded 1-D index and 16 columns or more "
            "`cpu_scatter_reduce_expanded_index` (a stable radix sort, the same order); `scatter_reduce` sum "
            "and mean (the sum divided by the count, self counted where include_self) from +0 without self, "
            "prod `self *= src` from 1 without self, amax/amin `self = isnan(src) ? src : std::max(self, src)` "
            "(`std::min`; self kept on a tie, so -0.0 against +0.0 too) from -inf/+inf without self; the "
            "expanded path's `vec::maximum(self, src)`: src on a tie, a NaN all-ones at avx2 and avx512 (the "
            "AVX2 object: ScatterGatherKernel.cpp is REGISTER_DISPATCH only), the first NaN's own bits at "
            "default; its sums and products keep another NaN where two meet at default from 2 threads (NaN "
            "operands refused there); integer and bool tensors exact in any order (wrapping sums and products, "
            "a bool sum an or, an integer mean floored); gather's backward"
        ),
        (
            "the ATen capability: the expanded path's amax/amin of a NaN (all-ones at avx2 and avx512, the "
            "NaN's own bits at default); otherwise nothing: identical on default and avx2 at 1, 2 and 4 threads "
            "(measured; NaN, infinities and signed zeros in a third of the cases: 0 other in 100 random cases "
            "per reduction and level at 1, 2 and 4 threads, 26 of them on the expanded path); avx512 the avx2 "
            f"bits ({ZEN5_INDEX}: scatter_add and scatter_reduce 2,640 of 2,640 exact, both paths, the "
            "expanded path's amax/amin of NaN and -0.0 and its sums of NaN at 2 and 4 threads included; 0 other)"
        ),
    ),
    (
        ("index_add",),
        (
            "`index_add_cpu_out` (TensorAdvancedIndexing.cpp): per index in order, a slice of source added "
            "to self's slice (`add_stub`, `self + alpha*source`: the vector `fmadd(source, alpha, self)`, fused "
            "at avx2 and avx512; dim 0 or last with matching sizes and alpha 1 through `scatter_add`); 1-D its "
            "own loop, `self[index[i]] += source[i]*alpha` (the product rounded, every level); where two NaNs "
            "meet `scatter_add` keeps self's, `add_stub` its kernel's pick, the 1-D loop the term's; "
            "index_select's backward"
        ),
        (
            "alpha other than 1 on 2 or more dims: the ATen capability (avx2 fuses `self + alpha*source`, "
            "default rounds the product; 100 random cases per level and thread count, 0 other); otherwise "
            "nothing: identical on default and avx2 at 1, 2 and 4 threads (measured); avx512 the avx2 bits "
            f"({ZEN5_INDEX}: 360 of 360 exact, 0 other). Where a NaN met a NaN of other bits torch kept "
            "add_stub's pick at a middle dim and the term's in the 1-D loop at every level: at a middle dim 418 "
            "of 3,200 NaN-laden cases differed before the impl took add_stub's model there, in the 1-D loop 6 "
            "of 240 before it took the term's; 0 after"
        ),
    ),
    (
        ("index_put",),
        (
            "`index_put_kernel` (IndexKernel.cpp): with accumulate `cpu_index_kernel`'s serial loop, "
            "`self[idx] += value` in the C order of the indexed positions (index's backward: onto zeros), at 2 "
            "or more threads from 32768 elements `cpu_atomic_add_float` from every thread at once; without, a "
            "copy whose last repeat wins, parallel from 3000 elements; integer and bool tensors: accumulate "
            "always the serial loop, sums wrapping, a bool sum an or (measured: 65 bool puts with accumulate "
            "per level, 0 other)"
        ),
        (
            "thread count: from 32768 (accumulate) or 3000 elements (copy) at 2 or more threads the threads' "
            "race orders an element's repeats (refused where an element is reached twice; distinct elements "
            "take one addition or write each; where a NaN value meets a NaN element the serial loop keeps the "
            "element's, the atomic adds the value's in the AVX2 object and the element's at default, measured); "
            f"avx512 the avx2 bits ({ZEN5_INDEX}: 218 exact, 22 refused, 0 other; index's backward 112 exact, 8 "
            "refused, 0 other)"
        ),
    ),
    (
        ("index_reduce",),
        (
            "`index_reduce_func_impl` (TensorAdvancedIndexing.cpp): self's slices `index` filled with the "
            "identity where not include_self (1, -inf, +inf, 0), then per index in order source's slice "
            "reduced in (`mul_stub`, `maximum_stub`/`minimum_stub`, `add_stub`; mean then divided by the "
            "counts, self counted where include_self); 1-D its own loop, amax/amin `std::max`/`std::min` with "
            "src's NaN taken; on 2 or more dims NaN operands (prod, mean: the binary kernel keeps either "
            "NaN where two meet) and amax/amin's NaN and -0.0 (the vector maximum) refused"
        ),
        (
            "nothing: identical on default and avx2 at 1, 2 and 4 threads (measured: 100 random cases per "
            "reduction, level and thread count, 74 exact, 26 refused, 0 other); avx512 the avx2 bits (the "
            f"binary kernels are REGISTER_DISPATCH only; {ZEN5_INDEX}: 632 exact, 328 refused, 0 other)"
        ),
    ),
    (
        ("scatter",),
        (
            "copies (ScatterGatherKernel.cpp, IndexKernel.cpp): `scatter` (src or value; `reduce=` add / "
            "multiply through `scatter_reduce_stub`: scatter_reduce's sum / prod) the last along `dim` kept of "
            "repeats; `index_copy` the last of repeats; `index_fill` (from -size) float32(value); "
            "`masked_scatter` source's elements in self's C order (a contiguous clone), and its backward "
            "`masked_select` padded with +0.0; `put_` `index_put` into self's C order (accumulating or not)"
        ),
        (
            "thread count: `index_copy` from 32768 elements and `put_` from 3000 (copy) or 32768 "
            "(accumulate) at 2 or more threads write repeats from racing threads (refused where an element "
            "is reached twice); the rest nothing: identical on default and avx2 at 1, 2 and 4 threads "
            "(measured: 100 random cases per op, level and thread count, 0 other); avx512 the avx2 bits "
            f"({ZEN5_INDEX}: scatter 720, index_fill 120, masked_scatter and its backward 240 exact; index_copy 111 "
            "exact, 9 refused; put_ 214 exact, 26 refused; 0 other)"
        ),
    ),
    (
        ("im2col", "col2im"),
        (
            "`im2col` / `col2im` of im2col.h (nn.Unfold, nn.Fold and their backwards): a copy with zeros in "
            "the padding; col2im zeros, then per column row (c, kh, kw) each block's value added to its "
            "pixel, so a pixel's terms in (kh, kw) order"
        ),
        (
            "nothing: identical on default and avx2 at 1, 2 and 4 threads (measured), and avx512 (no dispatch "
            f"stub; {ZEN5_INDEX}: im2col 120, col2im 240 exact, 0 other; where two NaNs meet col2im keeps the "
            "image's)"
        ),
    ),
    (
        ("padding_backward",),
        (
            "`cpu_padding_backward` / `cpu_padding_backward_channels_last` (PaddingKernel.cpp: reflection and "
            "replication padding's backwards, 1-D to 3-D) and `unfold_backward` (UnfoldBackward.cpp, "
            "UnfoldBackwardKernel.cpp): grad_input zeroed, then each output position's gradient added to the input "
            "position it read, in the output's raster order (a plane a thread; channels-last an image a thread, the "
            "channels through `add_stub`); unfold_backward a copy into the windows where step >= size, else per "
            "element the windows holding it in increasing order onto +0"
        ),
        (
            "nothing but a NaN's pick: identical on default, avx2 and avx512 at 1, 2 and 4 threads (measured on an "
            "AMD Zen 5 through the trace replay: 1,388 of 1,440 random draws bit for bit, 52 refused, 0 other; "
            "contiguous padding over mostly-NaN gradients 360 of 360, unfold_backward 360 of 360); where two NaNs "
            "meet in the channels-last kernel, the AVX2 object (avx2, avx512: no AVX-512 object) keeps the term's in "
            "the first C - C % 4 channels and the sum's in the rest (300 of 300 mostly-NaN channels-last draws), the "
            "default object's pick did not hold from one layout to another (refused there, and in float64 "
            "channels-last); an empty grad_output refused (reflection_pad1d/3d_backward return grad_input unwritten);"
            " UnivNet's 24 unfold_backward and 2 reflection_pad1d_backward a trace bit for bit at avx2 and avx512 on "
            "8 threads, EnCodec's 14 reflection_pad1d_backward at avx2 on 1 and 2 threads"
        ),
    ),
    (
        ("_to_copy", "copy_"),
        (
            "`copy_` into `_to_copy`'s output (`Tensor.to`, `.half()`, `.float()`; Copy.cpp, CopyKernel.cpp), laid "
            "out in the source's strides where it is non-overlapping and dense, else in the memory format it "
            "suggests: between float32, float64, the integers and bool one conversion per element (to nearest, "
            "integers wrapping, bool nonzero; a float to an integer where every element is finite and fits, else "
            "refused); to float16 (`unary.cast_to_f16`) rounded to nearest even, float64 through float32 (two "
            "roundings), a NaN quiet with its sign and its payload's top 9 bits (F16C's `vcvtps2ph`) in the AVX2 / "
            "AVX-512 objects' copy kernels (scalar and vector code alike) and, at every level, in Copy.cpp's FBGEMM "
            "path of float32 (`FloatToFloat16_simd`, dispatched on the CPU: both tensors contiguous, or the output "
            "dense in the source's strides), else (the default build's copy kernel: strided and broadcast sources, "
            "float64) `fp16_ieee_from_fp32_value`'s sign|0x7E00; to bfloat16 (`unary.cast_to_bf16`) rounded to "
            "nearest even, a NaN 0xFFFF in the AVX objects' float-to-bfloat16 vectors (TensorIterator's inner dim "
            "unit-stride in both, the masked last vector too), 0x7FC0 elsewhere (c10::BFloat16: an inner dim "
            "broadcast or strided, the default build; a float64 NaN refused); from float16 (`unary.cast_from_f16`) "
            "exact, a signalling NaN quieted with its sign and payload, but float16 to float32 on the FBGEMM path "
            "(`Float16ToFloat_simd`) widens each at::parallel_for chunk (GRAIN_SIZE) in blocks of 8 by `vcvtph2ps` "
            "and its last len % 8 elements by FBGEMM's reference code, which makes every NaN there 0x7FFFFFFF; "
            "from bfloat16 a shift. `copy_` itself (Copy.cpp's copy_impl) the same, `src` broadcast to `self`'s "
            "shape and written in `self`'s strides: the FBGEMM path only where the sizes are equal (no broadcast) "
            "and both are contiguous or `self` is non-overlapping and dense with `src`'s very strides, the "
            "bfloat16 vectors by TensorIterator's inner dim over both; the same dtype the bits (as knob-free before; "
            "complex pairs too). "
            "Not replayed: pairs of a reduced float with an integer or the other reduced float, a complex dtype "
            "change; nor the float16 and bfloat16 outputs of relu, neg, abs, floor, ceil, round, trunc, "
            "reciprocal, clamp by numbers, hardtanh, hardtanh_backward and threshold_backward, which "
            "Vectorized<Half> / <BFloat16> compute through float, so that a NaN comes back by the level's "
            "conversion (1,000 elements of NaN payloads: other bits at default than at avx2 and avx512 for each; "
            "sign, sgn, nan_to_num, masked_fill alike): no longer taken as knob-free, listed apart"
        ),
        (
            "the level (a float32 NaN to float16 off the FBGEMM path: F16C's payload at avx2 and avx512, "
            "sign|0x7E00 at default; to bfloat16 0xFFFF or 0x7FC0), the layout (the FBGEMM path or the copy "
            "kernel; the bfloat16 vectors) and the thread count (FBGEMM's chunk tails of float16 widened past "
            "32,768 elements); casts to float16 had been taken as knob-free. Measured on a Zen 5 at default, avx2 "
            "and avx512 on 1, 2 and 4 threads: 1,094 random casts per level of float32 to float16, 1,094 of float64 "
            "to float16 and 1,094 of float32 to bfloat16 (1 to 70,001 elements off 8 and 16, contiguous, offset, "
            "every-second, transposed, column-sliced, broadcast and row-broadcast sources, `to` and `copy_` into "
            "contiguous and strided outputs; NaNs of both signs, quiet and signalling, payloads in the low and the "
            "high bits, infinities, values past float16's range, subnormals, ties, -0): every one exact, where "
            "c10's conversion alone gives 268 of the 1,094 float16 ones at avx2 and avx512 and 828 at default; "
            "float64 values a float16 or bfloat16 tie off by 2^-40, 360 random casts per level: exact through "
            "float32; every float16 and bfloat16 pattern widened to float32 and float64 (contiguous, every-second, "
            "transposed): exact, and all 65,541 float16 patterns in FBGEMM's tails (7-element tensors) the widening "
            "with every NaN 0x7FFFFFFF at each level; 72 recorded cases (tests/reduced_float_cast_cases.py) exact at "
            "every level and thread count; traced (random programs of the casts above and float32 to and from "
            "int64 and bool, 1 to 70,000 elements, contiguous, transposed, every-second, column-sliced and "
            "broadcast views; preserve, contiguous and channels-last formats) and replayed, 1,193 `_to_copy` per "
            "level at default, avx2 and avx512 over 1, 2 and 4 threads: 1,193 exact, 0 refused, 0 other. `copy_` "
            "into float16 and bfloat16 from float32 and float64 (contiguous, transposed and every-second "
            "destinations; contiguous, transposed, every-second, column-sliced sources and rows of fewer dims "
            "broadcast; 1 to 70,001 elements), the float16 results copied back into float32, and same-dtype "
            "copies, traced and replayed at default, avx2 and avx512 on 1, 2 and 4 threads: 297 `copy_` per level "
            "and thread count (120 into float16 or bfloat16, 57 float16 into float32, 120 of one dtype), all exact, "
            "0 refused, 0 other; 39 recorded "
            "`copy_` cases exact at every level and thread count (the FBGEMM path taken for a broadcast source, or "
            "not by equal strides, or the bfloat16 vectors for every layout, fails them)"
        ),
    ),
    (
        ("pow",),
        (
            "`pow_tensor_scalar_optimized_kernel` (PowKernel.cpp) for exponents 2, 3, -0.5, -1, -2 (`x*x`, "
            "`x*x*x`, `1/sqrt(x)`, `1/x`, `1/(x*x)`; -0.5 and -1 handed to `rsqrt_kernel` and `reciprocal_kernel`, "
            "the same divisions in every object), 1 and 0 (copy, ones): nn.RMSNorm's chain, float32 and float64 "
            "alike; an integer or bool tensor to an integer number: the tensor's dtype (bool's int64), "
            "`native::powi` of the exponent converted to it (0 and 1 answered by `pow_out`; a negative one raises "
            "in torch); mixed dtypes (float32 ** float64, int ** float64, float64 ** float32, a zero-dim float64 "
            "beside a float32 tensor, two integer dtypes) in TensorIterator's common dtype, each other operand cast "
            "by `Tensor.to` (strides kept where non-overlapping and dense, else contiguous), then that dtype's "
            "kernel; any other "
            "finite exponent (cast to float) through Vectorized `pow`; an integer or bool tensor to a float's power "
            "cast to float32 (the common dtype) by TensorIterator first (LightGlue's int64 `hidden ** 0.25`): "
            "SLEEF `Sleef_powf8_u10` (`expkf` of "
            "`logkf(|x|) * y` in double-float) at AVX2, glibc `powf` (double log2 and exp2 tables, FMA build) "
            "per lane in the default build; each chunk's scalar tail `std::pow(float, double)`: glibc's double "
            "pow rounded to float, glibc 2.28+'s e_pow.c (ARM's optimized-routines design) as x86-64's libm "
            "runs it: its ifunc picks `__pow_fma` on a CPU with FMA and AVX2, read from glibc 2.36's libm.so.6 "
            "disassembly and ported as `csrc/dmath.h` `glibc_pow_d` (log of |x| in 128 subintervals, "
            "`r = fma(z, 1/c, -1)`, the degree-8 log1p polynomial joined to the double-double sum by an fma, "
            "`y * log` split by an fma, exp by the 1.5*2^52 shifter, 2^(k/128)'s table and a degree-5 "
            "polynomial, the final `fma(scale, tmp, scale)`; every product GCC contracted an fma in its operand "
            "order; the overflow/underflow rescaling and its subnormal one-sum step; e_pow.c's special values, "
            "SSE addsd's NaN pick, x86's default NaN for a negative x to a non-integer y); its tables "
            "(`csrc/glibc_pow_table.h`) are libm's words, written and checked by `tools/gen_glibc_pow_table.py`. "
            "bfloat16 and float16 `pow.Tensor_Scalar` on x86 (`unary.pow_bf16_scalar`, `pow_f16_scalar`): 0 and 1 "
            "`pow_out`'s ones and copy; bfloat16 0.5, -0.5 and -1 `sqrt_kernel` (vml's map: every element through "
            "Vectorized, float sqrt rounded once), `rsqrt_kernel` (vector body `1/sqrt` in float rounded once, "
            "scalar tail and default build `1/BFloat16(sqrt)`, rounded twice) and `reciprocal_kernel`; else the "
            "exponent converted to bfloat16 (through float) and `pow_tensor_scalar_optimized_kernel<BFloat16>`: "
            "2, 3, -2 as `x*x`, `x*x*x`, `1/(x*x)` each step in float rounded back to bfloat16 (2.001 is 2), any "
            "other powf of the widened operands; float16 (its branch has no special exponent): every exponent "
            "converted to float16 and powf of the widened operands rounded once. powf is SLEEF's in the AVX2 / "
            "AVX-512 vector bodies (blocks of 2 x Vectorized<BFloat16/Half>::size(): 32 at avx2, 64 at avx512, "
            "`csrc/unary.c` `vector_body_mask` over the runs and the grain's chunks), glibc's in each run's scalar "
            "tail and the default build (`pow_lanes_f32`); rounding to nearest even, a bfloat16 NaN 0x7FC0 in "
            "c10::BFloat16 (scalar code, the default build) and 0xFFFF in the AVX objects' `cvtfp32_bf16`; a "
            "float16 NaN sign|0x7E00 in the default build's software conversion, F16C's (`vcvtps2ph`: quiet, the "
            "payload's top 9 bits kept) in the AVX objects' scalar and vector code alike; a signalling float16 "
            "widened quiet (`vcvtph2ps`; the default build's conversion multiplies), a bfloat16 kept signalling "
            "(a shift). `pow.Tensor_Tensor` of two bfloat16 or two float16 tensors (`unary.pow_reduced_tensor`): "
            "powf of both widened operands, the same lanes, tails and roundings. Traces: bfloat16 and float16 "
            "`pow.Tensor_Scalar`, and `pow.Tensor_Tensor` of two tensors of one of them (broadcast), replayed "
            "(`impl_nn._pow`, in ATen's loop order; a bfloat16 operand told by its argument's dtype: "
            "`impl_ops.BFLOAT16_REPLAYS`); a number to a reduced-float tensor's power and mixed dtypes refused"
        ),
        (
            "nothing for the listed exponents; for the others SLEEF vs glibc powf in the vector lanes, and "
            "which elements fall in a tail (the thread count). 0.5 is `sqrt_kernel` (PowKernel.cpp hands it over): "
            "MKL VML's `vsSqrt`, replayed as `sqrt` (bit-equal to torch.sqrt at each level on 1, 2 and 4 threads, "
            "NaNs, -0 and negatives among them; 225 random draws, 0 other). glibc's pow: 10,000,000 random "
            "(x, y) pairs (any bits, spread, near 1, subnormal x; y spread, whole and half, past overflow and "
            "underflow, tiny; NaNs of both signs quiet and signalling, infinities, +-0, +-1) equal the host libm's "
            "`pow` (glibc 2.36, Zen 5), 0 differ; libm's FMA4 and SSE2 builds (a CPU without FMA or AVX2, no "
            "contractions: `__pow_sse2` called beside `__pow_fma` gives other bits for 633 of 2,000,000 random pairs) "
            "not reproduced: refused on MKL's SSE4.2 path's profiles (an Intel CPU without AVX2, as the emulated "
            "Nehalem; `KernelProfile.libm_fma`), where float32 pow's scalar tails keep the proof. "
            "AVX-512 runs its own object (also registered): SLEEF's 16-lane powf, the avx2 bits, in steps of 32 "
            "elements, so other tails (measured on a Zen 5: 268 cases per thread count 1, 2, 4, 0 other). An integer "
            "or bool base (int64, int32, uint8, bool; 0-dim, 1 to 70,001 elements, values to 2^40) to a float's "
            "power: 540 random pows traced at default, avx2 and avx512 on 1, 2 and 4 threads, "
            "471 exact, 69 refused, 0 other; refused: one that is not C-contiguous (TensorIterator casts it into "
            "another layout). "
            "`pow.Scalar` (a number to a tensor's power: Llama-like rotary frequencies) answers a base of 1 with "
            "ones, else casts the number to float and broadcasts it into `pow_tensor_tensor_kernel` (also "
            "`pow.Tensor_Tensor`; registered for AVX-512): SLEEF `powf` lanes (glibc `powf` per lane at default), "
            "glibc `powf` in each run's tail, two NaNs keeping the base's payload; measured on a Zen 5: 730 and "
            "1,128 cases at each level over 1, 2, 4, 8 threads, 0 other (an integer number to an integer tensor "
            "refused). `pow.Tensor_Tensor` of two signed integer tensors of one dtype (BLT's int64): the kernel's "
            "integral branch, `native::powi` (square-and-multiply with wrapping products; a negative exponent 1, "
            "+-1 or 0 by the base), exact on every profile: 80 random int8/16/32/64 cases equal torch's. "
            "`pow.Scalar` of 2 to a float64 tensor of whole exponents (I-BERT's requantisation, "
            "`2.0**e` of frexp's exponents): double `std::pow` at default, SLEEF `powd4_u10`/`powd8_u10` at "
            "avx2/avx512, each 2^e exactly (every exponent of [-1100, 1100], -0 and +-inf, on 1, 2 and 4 "
            "threads; 225 random draws, 0 other). Any other number to a float64 tensor (RT-DETR v2's and "
            "D-FINE's `10000 ** (arange(d) / d)`), `pow.Tensor_Tensor` of float64 and `pow.Tensor_Scalar` of a "
            "float64 tensor to an exponent without a special case (`pow_tensor_scalar_optimized_kernel`'s "
            "`std::pow` / Vectorized pow): the vector lanes, blocks of 8 (avx2) or 16 (avx512) doubles, "
            "SLEEF 3.8's double `xpow` ported (`csrc/dmath.h` `sleef_pow_d`: `expk(logk(|x|) * y)` in "
            "double-double with its FMA steps, Estrin polynomials, the vldexp2 split, its select order for "
            "specials, NaN all ones), the avx512 object's vgetexp/vgetmant giving the avx2 bits; measured on a "
            "Zen 5: 12,000,000 exponents per level (bases 10000, 2.5, 0.3, -3, 1e-300, 123.456) equal at avx2 "
            "and avx512, and 1,080 random cases (1 to 100,003 elements, transposed and strided exponents, NaNs "
            "of both signs quiet and signalling, infinities, -0, subnormals; bases NaN, +-0, inf among them) at "
            "default, avx2 and avx512 on 1, 2 and 4 threads: 212 exact, 868 refused, 0 other, the refused "
            "elements in glibc's double pow (each run's scalar tail, a strided operand's basic loop, every "
            "element of the default build), now `glibc_pow_d`. With it, on a Zen 5, 4,320 random cases (80 per "
            "op, dtype, level and thread count: float64 and float32 `pow.Scalar`, `pow.Tensor_Scalar` and "
            "`pow.Tensor_Tensor`, 1 to 100,003 elements, sizes off 4, 8, 16 and 32,768, transposed and every-"
            "second layouts, NaNs of both signs quiet and signalling, infinities, -0, subnormals) at default, avx2 "
            "and avx512 on 1, 2 and 4 threads: 4,320 exact, 0 refused, 0 other. Float64 to 2, 3, -2, -1, -0.5, 0 "
            "and 1, mixed dtypes and integer powers, measured on a Zen 5 (1,080 random cases, 40 per group, level "
            "and thread count: float64 to the special exponents as floats and ints; float32 ** float64, float64 ** "
            "float32, int64, int32 and uint8 ** float64, float64 ** int64, zero-dim float64 and float32 beside "
            "tensors, int32 ** float32; int8 to int64, uint8 and bool to 0 to 70 and -1, -2, pow.Scalar of an "
            "integer to an integer tensor, int ** int of two dtypes; 1 to 100,003 elements off 4, 8, 16 and "
            "32,768, transposed and every-second layouts, NaNs of both signs quiet and signalling, infinities, "
            "-0, subnormals) at default, avx2 and avx512 on 1, 2 and 4 threads: 1,017 exact, 63 refused (39 "
            "float64 ** 0.5; 24 integers to a negative integer, which torch raises), 0 other. Float64 ** 0.5 is "
            "`sqrt_kernel`, MKL VML's `vmdSqrt` (VML_HA), replayed as the sqrt of float64 (the adamw_step row; "
            "`csrc/optim.c` `vml_sqrt_d`): not correctly rounded on MKL's generic path (734 of the test's 60,000 "
            "positive finite doubles an ULP off IEEE sqrt), its kernel read and ported; measured on a Zen 5: "
            "1,350,036 pow(x, 0.5) and sqrt of random doubles of every class at avx2 on 1 thread and 6,750,036 at "
            "avx512 on 4, 0 differ; 720 random pow and sqrt cases (1 to 100,003 elements off 8, 16 and 32,768, "
            "transposed, every-second and broadcast layouts, NaN payloads of both signs, infinities, -0, "
            "subnormals, negatives, doubles from 2^1022) at default, avx2 and avx512 on 1, 2 and 4 threads: 720 "
            "exact, 0 refused, 0 other; MKL's Intel AVX2 path (`dSqrt_L9HAynn`, the same steps fused) under "
            "QEMU's Haswell-v4: 1,716,052 per thread count, 0 differ; its SSE4.2 and AVX-512 paths refused. "
            "bfloat16 and float16 `pow.Tensor_Scalar`: where an element falls (vector body or scalar tail: the "
            "thread count, the layout) moves NaN bits, bfloat16 -0.5's rounding and powf's; measured on a Zen 5 at "
            "default, avx2 and avx512 on 1, 2 and 4 threads (1 to 100,003 elements off 32 and 64 and the grain, "
            "C-contiguous, transposed, every-second and column-sliced layouts, NaNs of both signs quiet and "
            "signalling with payloads, infinities, -0, subnormals; exponents 2, 3, -2, -1, 0.5, -0.5, 0, 1, 1.5, "
            "0.25, 1/3, -3, 2.5, 4, 7, 10, -1.5, -0.75, 2.001, 0.001): bfloat16 1,305 random cases 1,305 exact, 0 "
            "refused, 0 other; float16 720 cases 720 exact, 0 refused, 0 other, and 216 more through the trace's "
            "replay (contiguous, transposed, column-sliced, every-second views of up to 120,000 elements) 216 "
            "exact; `pow.Tensor_Tensor` (exponent tensors of whole and half numbers and any bits) 270 bfloat16 and "
            "270 float16 cases, 540 exact, 0 refused, 0 other; traced and replayed (random programs, "
            "the operands cast from float32 with NaN payloads; contiguous, transposed, every-second, "
            "column-sliced and broadcast views, a broadcast exponent tensor in a third): 119 per level at default, "
            "avx2 and avx512 over 1, 2 and 4 threads (bfloat16 29 to a number and 28 to a tensor, float16 25 and "
            "37), 119 exact, 0 refused, 0 other. aarch64 refused; `pow.Scalar` of "
            "bfloat16 and float16 and mixed reduced-float dtypes not replayed"
        ),
    ),
    (
        ("conv2d",),
        (
            "`aten.convolution`/`convolution_backward` (harness/impl/conv.py): oneDNN's direct JIT kernels "
            "(`jit:sse41`, `jit:avx2`, `jit_1x1`, `jit:avx512_core`; backward data with stride `brgconv_strided`) "
            "(`jit_1x1`'s forward and backward data in kernel calls over the channels, each call's chain from 0 "
            "added: 128 and 64 channels at SSE4.1/AVX2; at AVX-512 init_conf's reduce_blocking, 80, 256 or 512 "
            "channels by OH and the other side's channels or its L2 aliasing cut, measured on a Zen 5: 794 random "
            "and ResNet 1x1 convolutions of up to 2,048 channels, strides 1 and 2, at 1, 2, 4, 9 and 16 threads, "
            "every output and gradient bit for bit, 182 forwards and 156 grad_inputs of several calls) "
            "or, for 1x1 kernels with stride 1 on 1 thread and below 16 images, ATen's `_slow_conv2d` (im2col + MKL "
            "`sgemm`); each output one multiply-add chain over input-channel blocks of 8 (16 on AVX-512, each "
            "block's chain from 0 and added), then (kh, kw), then the block's channels; at SSE4.1 the other "
            "shapes and every backward, and at AVX2/AVX-512 where the direct kernels decline (jit:avx2's weights "
            "also on 3 input channels of one pixel), oneDNN's im2col + "
            "sgemm `gemm:jit` (its own sgemm at each ISA: K blocks of 256 at SSE4.1 (its gemv kernels where a "
            "grad_input sgemm has one row or column: one output pixel, one input channel of a 1x1 kernel); at "
            "AVX2/AVX-512 its "
            "copy-based and no-copy drivers, small-n TN and gemv kernels), its forward "
            "`ref:any` (one chain over (kh, kw, channel)) where gemm:jit's blocking overflows its scratchpad; "
            "depthwise (harness/impl/conv_grouped.py): oneDNN's `jit_dw:sse41/avx2/avx512_core`, per output one "
            "chain from the bias over (kh, kw), grad_input one chain over the taps, grad_weight one chain over "
            "(image, oh, ow) per thread's images; at SSE4.1 below a multiple of 8 channels `gemm:jit`'s forward "
            "and grad_input, and where jit_dw declines its grad_weight `gemm:jit` per group, threaded as init_conf "
            "decides over all the groups (a group's own conf on threads // groups threads gave other bits in 2 of "
            "50 random wide depthwise draws on 8 threads, 3 channels over 28 x 21 and 32 x 39); groups of whole "
            "blocks of 8 channels the one-group kernels group by group (1x1: one chain a group; AVX2's weights "
            "with its reducer over all groups, at strides too; AVX-512, measured on a Zen 5: jit:avx512_core in "
            "blocks of 16, 8 or 4, 1x1 too, its grad_input where its checks with the group's block take it, "
            "brgconv_strided's strided grad_input per group (avx512_core above 16 output channels a group, avx2 "
            "above 8, at AVX2 too; its blocking search over all the groups; refused over NaN or infinite "
            "operands), at AVX2 with 8 output channels a group (ResNeXt-50 32x4d's first strided 3x3) "
            "jit:avx2's strided grad_input group by group (183 of 210 random strided draws bit for bit at 1 to "
            "16 threads, 27 refused for brgconv_strided's NaN, 0 other), jit:avx2's weights for blocks of 8, "
            "jit:avx512_core's weights per group for blocks of 16 on threads // groups threads (1x1 and strided "
            "too; its balance's last step compares against all the threads and never applies with groups; its "
            "bias reducer over the whole team and every group's blocks; measured on a Zen 5 at 1, 2, 4, 8 and "
            "16 threads: 239 of 240 grad_weights and grad_biases bit for bit, 1 refused, 0 other); ResNeXt-50 "
            "32x4d's and RegNetY's grouped convolutions (batch 2 at 224): every pass at baseline, avx2 and "
            "avx512 on 1, 2, 4, 8 and 16 threads, 900 of 900 tensors bit for bit on a Zen 5), the others "
            "gemm:jit over all "
            "groups (SSE4.1's backward per group, its weights threaded as init_conf decides over all the groups: "
            "a group's own conf gave other bits in 677 of 1,536 weights of a 1x1 on 4 threads); 1x1 at stride 1 "
            "on 1 thread ATen's slow_conv2d per group on "
            "each group's slices (MKL's sgemm at their offsets); 3-D (harness/impl/conv3d.py, baseline, "
            "avx2 and avx512): the same kernels with depth as one more tap dimension ((kd, kh, kw)), "
            "jit:avx512_core's blocks of 16 (its weights: balance() over the (image, od) pairs, a chain per "
            "thread, the sums added in order), jit_1x1 (avx2 and avx512_core, every pass) as the 2-D model on "
            "the (D*H, W) plane, brgconv_strided's grad_input as the (H, W) plane's blocking (searched over N*D "
            "images) and calls, each call's batch over the depth taps first, gemm:jit per (image, od) plane "
            "(grad_input at AVX2/AVX-512 oneDNN's sgemm with LDA = OD*OH*OW, then col2im_3d), ATen's "
            "slow_conv3d (vol2col, MKL's gemms on operands at their images' offsets in aligned buffers, "
            "Unfold3dAccCPU; grad_bias sum_dims), measured on a Zen 5: 2 x 80 random shapes at avx512 and 40 at "
            "baseline and avx2 on 1, 2 and 4 threads, 0 other; refused: AVX-512's ip_convolution (one output "
            "pixel over more than 27 taps, several images: an inner product); transposed "
            "(harness/impl/conv_transpose.py, baseline, avx2 and avx512 (its AVX-512 deconvolution measured on a "
            "Zen 5: 82 random one-group and 75 grouped draws on 1, 2, 4 and 8 threads, 0 other; the strided "
            "forward by oneDNN's deconvolution list: brg_deconv:avx2 per group where the 16-float brgconv_strided "
            "search finds no blocking, the 8-float one does and the stride divides the output, ahead of "
            "jit:avx512_core: 51 of 960 one-output-channel shapes had given other bits at 1 thread, 0 now, 1,200 "
            "one-group and 640 grouped random draws on 1 to 8 threads, 0 other; refused: a grouped forward whose "
            "8-float search declines on the profile's threads but not on 1), NCHW, or "
            "channels-last of one group through the channels-last models, at avx512 too: 0 other of 240 random "
            "draws on a Zen 5; the AVX2 channels-last forward where the adjoint's row outgrows its output, "
            "brg_deconv:avx2 over weights reordered Acdb24a, refused: 1 of 31 had given other bits through "
            "brg_conv_bwd's model; strides 3 and 4, DPT's 4x upsampler among them, by the kernels and models of "
            "stride 2 (ONEDNN_VERBOSE): 5,220 passes of random draws on a Zen 5 at baseline, avx2 and avx512 on 1, "
            "2 and 4 threads, 3,524 bit for bit, 0 other; NCHW at a stride over 2 over infinite or NaN operands "
            "refused: the adjoint's kernels multiply taps the model skips, 3 passes had given NaN where it has "
            "numbers): ATen's "
            "slow_conv_transpose2d (sgemm, col2im, the bias after) by the same rule, else oneDNN's deconvolution "
            "as the adjoint convolution's kernels (forward its backward data, grad_input its forward, grad_weight "
            "its backward weights; at avx2 gemm:jit where the adjoint's input is one pixel of 3 channels: jit:avx2's "
            "flat tag check declines it), the bias added last; grad_bias per image from 0, the images' sums added, "
            "over a plain grad_output (gemm:jit, jit:avx2's 3 flat channels), one chain over a blocked one (at "
            "avx512 jit:avx512_core's nChw16c from 16 channels, its nchw first-convolution layout below); "
            "grouped: slow_conv_transpose2d per group (a 1x1 at stride 1 on 1 thread), else the adjoint grouped "
            "convolution's kernels above (jit_dw, jit:avx2 per group, gemm:jit over all groups); channels-last "
            "(harness/impl/conv_nhwc.py, conv_nhwc_backward.py): oneDNN's brgemm convolutions (`brg_conv_fwd`, "
            "`brgconv_1x1`, `brdgmm_dw` at avx2 and avx512_core: per output and ic block one chain from 0 over "
            "(kh, kw, the block's channels), the blocks added, the bias last; where an output's taps span "
            "several brgemm calls (padding of half the kernel or more, a kernel wider or taller than the input) "
            "exec_base's ker_base calls by column block (the partial taps kw a call each, the full ones one "
            "call), each call's chain from 0 added onto the output with its accumulator the first operand (a "
            "NaN of the call stays); brg_conv_fwd's exec type, column block and ic block those init_conf's search "
            "keeps (conv_nhwc exec_search, the one search of the forward, brg_conv_bwd's W > OW grad_input and "
            "the dilated forward: est_eff, brgemm_blocking's unroll, select_ic_block with the unroll its object "
            "last set); brgconv_1x1's ic blocks select_ic_block's (3,000 channels at AVX2: blocks of 320), "
            "refused where they hang on the output-channel block; measured on a Zen 5: WavLM's first TDNN layer "
            "at its released size (512 channels, kernel 5, 49 to 249 columns) every forward and backward bit for "
            "bit at avx2 and avx512 on 1, 2, 4 and 8 threads (refused before: its forward at avx512, 3 of 5 "
            "backwards), random undilated draws (64 to 512 channels, kernels 1 to 5, strides 1 and 2) 45 and 43 of "
            "48 forwards bit for bit at avx2 and avx512 over 1, 2, 4 and 8 threads (before 27 and 21), 0 other; "
            "the rules before had given other bits at avx512 over strided padded rows (7 of 1,200 impl forwards "
            "of small random shapes, bit for bit now); at AVX-512 select_ic_block's "
            "blocks by the host's L1 and L2, measured on a Zen 5: 379 of 379 random oneDNN forwards bit for "
            "bit at 1, 2 and 4 threads, 126 of 600 draws refused), at AVX2 one group's grad_input on 1 to 16 "
            "threads up to 2,048 channels a side (brg_conv_bwd's in the swapped forward's select_ic_block blocks "
            "where W <= OW, one over every output channel for 3x3 and 1x1 kernels; brgconv_1x1's; "
            "brgconv_strided's; gemm:jit's for a padded 1x1), measured on a Zen 5: ResNet-50's 22 channels-last "
            "convolutions bit for bit at 1, 2, 4, 8 and 16 threads, random draws 20 of 40 at each of 1, 2, 3, "
            "4, 6, 8 and 16 threads and 22 to 25 of 30 of the modelled kinds, none other; W > OW by the blocking "
            "init_conf's search keeps, ported to AVX2 (vectors of 8, 16 registers, its estimate_ur, L2 of 2 MiB "
            "and select_ic_block rule; exec_vpad's or exec_base's calls): 72 of 72 random "
            "W > OW draws bit for bit (12 at each of 1, 2, 3, 4, 8 and 16 threads) on a Zen 5, none other; "
            "refused ic blocks that hang on the output-channel block (brg_conv_bwd "
            "and brgconv_strided, 5x5 kernels past 320 output channels), brgconv_strided over NaN or infinite "
            "operands; the backward at AVX-512 for 1x1 kernels at "
            "stride 1 (brgconv_1x1's grad_input in ic blocks, jit_1x1:avx512_core's nxc weights: 176 of 176 "
            "bit for bit), 1x1 kernels at a stride or padded (ResNet-50's shortcut; brgconv_strided's grad_input "
            "at a stride, gemm:jit's padded at stride 1 with oneDNN's AVX-512 sgemm; jit_1x1:avx512_core's "
            "weights over the strided pixels where the stride divides the input, jit:avx512_core's on nxc "
            "otherwise, gemm:jit's padded: 42, 45, 44, 44 and 42 of 60 random draws bit for bit in every "
            "gradient at 1, 2, 4, 8 and 16 threads, 0 other, the rest refused: NaN or infinite operands, "
            "jit_1x1's strided weights below 16 input channels, where torch itself corrupts its heap), one "
            "group also on 8 and 16 threads (ResNet-50 channels-last at batch 2, 224: its 23 distinct "
            "convolutions bit for bit in every gradient at each of 1, 2, 4, 8 and 16 threads; 90 random draws a "
            "thread count: 72, 70, 71, 67 and 66 bit for bit, 0 other; brg_conv_bwd's grad_input where W > OW on 8 "
            "and 16 threads too (est_eff's thread balance taken item by item whatever the work per thread, "
            "select_ic_block's L2 less the unroll its object last set: 60 of 60 random W > OW draws bit for bit, "
            "12 at each of 1, 2, 4, 8 and 16 threads, none other), kernels over 1x1 (brg_conv_bwd's grad_input "
            "in the swapped forward's ic blocks "
            "where W <= OW; where W > OW the kernel init_conf's search keeps (exec_vpad where the ow block its "
            "est_eff picks fits the forward's input, else exec_base's ker_base calls per ow block; NaNs by "
            "x86's rules), any channel count: 95 of 120 random draws bit for bit in every "
            "gradient at 1, 2 and 4 threads, none other, and 67 of 75 grad_inputs over NaN and infinities; "
            "brgconv_strided's at a "
            "stride; jit:avx512_core's weights on nxc, the images' "
            "harness, expl_bcast's calls of up to 28 columns each a chain from 0: 264 of 264 weights and bias, "
            "176 of 176 grad_inputs bit for bit at 1, 2 and 4 threads) and "
            "depthwise kernels "
            "up to 3 wide (jit_dw:avx512_core's nxc harness: 120 of 120), wider ones' weights jit:avx512_core "
            "over groups (a thread a group, or min(threads // C, N) threads a channel over the images where "
            "C <= threads, expl_bcast's calls: 134 of 134, and 120 of 150 draws with 2 to 6 channels, the other "
            "30 refused for NaN or infinite operands; the rest refused; ip_convolution "
            "refused), the depthwise backward at AVX2 and AVX-512 at any channel count and row width on 1 to 16 "
            "threads (jit_dw's nxc weights: rows over 30 columns in column blocks of 15, the last widened where "
            "the right padding reaches past the rest, each kernel call's chain over (column block, row, column), "
            "the bias row by row; at AVX2 kernels wider than 3, ConvNeXt's 7x7, jit:avx2 over the C groups as "
            "over blocked memory, and where jit:avx2's weights decline too (a kernel taller than the input or "
            "padded to its side, 14 or more columns: ConvNeXt V2's 7x7 over a 4x4 grid) or on 3 channels "
            "gemm:jit nspc over the groups, per group and image oneDNN's AVX2 gemv 'T' (init_conf's outer "
            "threading over all the groups, bwd_weights_balance's threads a group splitting its images, their sums "
            "added in order): 319 of 376 random draws bit for bit at 1, 2, 4 and 8 threads (kernels 3 to 7 over "
            "grids of 1 to 9, 1-D kernels of 14 to 33 taps, 3 channels over grids to 48), the rest refused (NaN "
            "results of either kind, padding over 3), 0 other, refused before; refused: NaN or infinite operands "
            "where jit_dw:avx2's reduction spans several thread blocks), measured on a Zen 5: MobileNetV2's 10 "
            "depthwise convolutions at 224, batch 2 (TF padding and padding 1) and ConvNeXt-T's four 7x7 ones 24 "
            "of 24 bit for bit in every gradient at each level and thread count from 1 to 16 (all 24 had been "
            "refused at AVX2, 10 at AVX-512 on 1, 2 and 4 threads and 24 on 8 and 16); 600 random draws at 1, "
            "2, 4, 8 and 16 threads (2 to 960 channels, rows to 120 columns) 271 and 239 bit for bit at avx2 and "
            "avx512, 400 wider kernels 193 and 160, 80 with the last column block widened 80, none other; "
            "gemm:jit nspc and jit_dw at SSE4.1 (jit_dw's grad_input at any padding: its init_conf has no boundary "
            "check, a kernel side wholly in the padding too)"
            "; at AVX2 the channels-last grad_weight and grad_bias of one group on 1 to 16 threads, up to 2,048 "
            "channels (`jit:avx2`'s cpu_reducer split, `jit_1x1:avx2`'s nxc blocking, at a stride over the "
            "pixels its rtus gathers, `gemm:jit` where jit:avx2 declines), measured on a Zen 5: ResNet-50's 22 "
            "channels-last convolutions bit for bit at 1, 2, 4, 8 and 16 threads and 924 draws in all, 0 other; "
            "`jit_1x1`'s and `gemm:jit`'s weights and bias over NaN or infinite operands refused (a NaN of the "
            "other sign in 2 of 21 and 9 of 27); channels-last at AVX2 with padding over 3 where no kernel side "
            "lies wholly in it, every gradient (refused before; such a side with padding over 3 stays refused: "
            "grad_weight had given other bits); grad_input of a kernel over 1x1 at stride 1 with a side wholly in "
            "the padding at avx2 and avx512_core refused: brg_conv_bwd declines, gemm:jit nspc or, past its "
            "scratchpad bound (not read), ref:any runs it (the brg_conv_bwd model had given other bits); at "
            "avx512_core the channels-last weights where "
            "jit:avx512_core's (and depthwise jit_dw's) weights kernel declines the padding: oneDNN's jit:avx2 "
            "or gemm:jit, the AVX2 level's models (gemm:jit with the AVX-512 sgemm; refused before); SSE4.1's "
            "gemm:jit forward (NCHW, and depthwise) with an infinite or NaN weight and its grad_weight with an "
            "infinite or NaN grad_output over padding: the terms' chains over x with im2col's zeros written out "
            "(NaN where the sgemm meets them; the forward had given numbers there, grad_weight was refused); "
            "ATen's slow_conv2d per group (a 1x1 depthwise kernel at stride 1 on 1 thread) with padding: every "
            "image's columns in one aligned buffer, as compute_columns2d's (its grad_weight had given other bits "
            "at every level); measured on a Zen 5, a random survey of the convolutions models use (kernels 1, 3, "
            "5, 7, strides 1, 2, 4, padding 0 to the kernel, groups 1, 2 and depthwise, dilation 1 and 2, NCHW and "
            "channels-last, conv1d too, 12% transposed, a third with NaN payloads of both signs quiet and "
            "signalling, infinities, subnormals and -0; the forward and each gradient through the replay) at "
            "default, avx2 and avx512 on 1, 2 and 4 threads: 1,440 passes of 360 draws: 1,023 exact, 413 refused, "
            "4 other before (SSE4.1's gemm:jit forward over a NaN weight, jit_dw:sse41's grad_input of a kernel "
            "side in the padding), 1,055 exact, 385 refused, 0 other after (refused: 174 NaN results of several "
            "kinds, 84 channels-last groups of several channels, 48 dilated transposed channels-last, 36 dilated "
            "grouped channels-last, 20 AVX2 padding over 3 with a kernel side in it, 12 avx512_core weights over "
            "NaN or infinite operands, 11 others); draws of the modelled classes: AVX2 channels-last padding over "
            "3 at 1, 2 and 4 threads 128 of 240 passes exact, avx512_core's declined weights 162 of 240, SSE4.1 "
            "gemm:jit NCHW with padding and NaN or infinite operands 226 of 360, 1x1 depthwise with padding at "
            "every level on 1 and 2 threads 194 of 288, the rest refused, 0 other"
            "; the channels-last forward of groups of several channels (not depthwise) at avx2 and baseline "
            "(conv_nhwc `_avx2_groups_forward`): at avx2 brg_conv_fwd:avx2 / brgconv_1x1:avx2 group by group "
            "(init_conf's small-ic rule for groups declines at avx512_core only; ONEDNN_VERBOSE), each group the "
            "one-group brgemm chain with the blocks the one-group search keeps (exec_vpad's one call or "
            "exec_base's column calls), up to 64 channels a group; at baseline jit:sse41 group by group where "
            "each group has whole blocks of 8 channels (oneDNN reorders to blocked memory: the NCHW grouped "
            "model), else gemm:jit nspc per group with init_conf's pixel blocks and outer threading over every "
            "group's images (one group's gave other bits: a 7x7 over 8 groups of 3 images on 2 threads); "
            "measured on a Zen 5 (2 to 8 groups of 2 to 64 channels a side, kernels 1 to 7, strides 1 and 2, "
            "padding to half the kernel, 1 to 3 images, 30% with NaN payloads of both signs, infinities, -0 "
            "and subnormals): avx2 70 of 70 forwards bit for bit at 1, 2 and 4 threads and 12 of 12 draws of "
            "exec_base's column calls, baseline 71 of 71, 0 other; the backward at baseline (every pass "
            "gemm:jit nspc, ONEDNN_VERBOSE): grad_input per group with its outer threading over every group's "
            "images, grad_weight per group and image one sgemm (M the group's output channels, grad_output "
            "strided by OC) with bwd_weights_balance's min(groups, threads) threads a group at a time splitting "
            "its images, grad_bias gemm:jit's lanes: 208 of 210 passes bit for bit at 1, 2 and 4 threads (2 to 8 "
            "groups of 2 to 24 channels, 44 of the 70 draws with a third over NaN, infinities, -0 and "
            "subnormals), the other 2 the grad_weight of an unpadded 1x1 at stride 1, one output channel a group "
            "on 2 and 4 threads, refused now; at avx2 grad_input at stride 1 (conv_nhwc_backward "
            "`_avx2_groups_backward`): brg_conv_bwd:avx2 (+brg_conv_fwd or +brgconv_1x1) group by group, each "
            "group one group's grad_input (the swapped forward's ic blocks, or the blocking its search keeps where "
            "W > OW; ATen's small-image rule keeps no group of several in slow_conv2d), measured on a Zen 5 "
            "through the replay (2 to 8 groups of 2 to 64 channels a side, kernels 1 to 7, strides 1 and 2, "
            "padding 0 to the kernel, 1 to 4 images, a third with NaN payloads of both signs, infinities, -0 and "
            "subnormals; 60 draws at each of 1, 2 and 4 threads): grad_input 14, 18 and 16 bit for bit, 0 other, "
            "refused 63 at a stride, 22 slow_conv2d per group, 21 NaNs of several kinds, 15 padded 1x1, 11 a "
            "kernel side in the padding; 90 draws at stride 1, half with one NaN kind, +inf, -0 and subnormals: "
            "39 bit for bit (11 with them), 0 other; refused before; grad_weight and grad_bias jit:avx2 on nxc "
            "(aBCde8c8b) at every stride, modelled where each group has whole blocks of 8 channels a side (the "
            "NCHW blocked model, conv_grouped `_direct_groups_weights`: cpu_reducer's jobs over all the groups), "
            "up to 24 channels a group on 1, 2 and 4 threads: 180 draws (half with a third, half with half over "
            "specials), grad_weight 75 and grad_bias 86 bit for bit, 0 other, the rest refused (NaNs of several "
            "kinds, padding one group's jit:avx2 weights kernel declines, slow_conv2d per group); refused: "
            "grad_weight and grad_bias of other groups; its grad_input at stride 2 (conv_nhwc_backward "
            "`_avx2_groups_strided_data`: the kernel oneDNN tries first that takes the group, ONEDNN_VERBOSE): "
            "brgconv_strided:avx2 over 8 output channels a group where its blocking search over all the groups "
            "finds one (conv_grouped's NCHW model of it, the search counting every group's work: one group's "
            "search had given other bits over 6 groups of 24 -> 20 channels, 3x3 at stride 2), else jit:avx2 "
            "group by group where its init_conf takes the group (equal strides, not under 8 input channels a "
            "group with a kernel over 3 wide, its unroll checks; nxc's channel tails: conv_grouped "
            "`_direct_groups_data`), else gemm:jit nspc per group with oneDNN's AVX2 sgemm; measured on a Zen 5 "
            "through the replay (3, 4 or 8 groups of 2 to 24 input and 2 to 64 output channels, kernels 1 to 5, "
            "strides 2, (2, 1) and (1, 2), padding to half the kernel plus 1, 1 to 3 images; 330 draws at 1, 2 "
            "and 4 threads, 156 of them over NaN payloads of both signs, one NaN kind, infinities, -0 and "
            "subnormals): 86, 74 and 78 bit for bit (brgconv_strided:avx2 97, jit:avx2 50, gemm:jit 91; 64 with "
            "specials), 92 refused (brgconv_strided over NaN or infinite operands 62, the replay's NaN rule 30), "
            "0 other, every "
            "kernel as ONEDNN_VERBOSE named it (before: every one refused); refused: a stride over 2 or other "
            "thread counts (not measured), a padded 1x1 at stride 1, over 64 channels a group; the avx512_core "
            "forward (conv_nhwc `_avx512_groups_forward`): up to 16 input channels a group jit:avx512_core on nxc "
            "(the avx512_core brgemm kernels decline grouped convolutions with small ic; ONEDNN_VERBOSE), its "
            "channel block 8 or 4 (dividing both sides) only under 16 channels a side, else 16 with tails "
            "(init_conf's smaller vectors on nxc), per output one fused chain from 0 over (block, kh, kw, "
            "channel), the blocks in one chain, the bias last (the NCHW model's per-block sums gave other bits "
            "with 2 or 3 blocks of 4; the NCHW block rule with 16 -> 8 channels); where its checks decline the "
            "group (conv_grouped `_avx512_group_forward_takes`: a kernel wholly in the padding, a padded 1x1) "
            "brg_conv_fwd:avx2 group by group as at avx2; measured on a Zen 5 through the replay (3, 4 or 8 "
            "groups of 2 to 20 input and 1 to 32 output channels, kernels 1 to 5, strides 1 and 2, padding to "
            "half the kernel plus 1, 1 to 3 images, with and without bias; 210 draws at 1, 2 and 4 threads, 83 "
            "over NaN payloads of both signs or one kind, infinities, -0 and subnormals): 39, 45 and 44 bit for "
            "bit (jit:avx512_core 110, brg_conv_fwd:avx2 18; 19 with specials), 82 refused (the replay's NaN "
            "rule 52, over 16 input channels a group 20, slow_conv2d per group 9, the search rule below 1), 0 "
            "other, every kernel as ONEDNN_VERBOSE named it (before: every one refused); refused: over 16 input "
            "channels a group (brg_conv_fwd:avx512_core, brgconv_1x1:avx512_core), over 32 output channels, "
            "where jit:avx512_core's checks are not settled; brg_conv_fwd:avx2's grouped forward (avx2, and "
            "avx512_core's fallback) on several threads where the search with every group's work could pick "
            "another blocking than one group's (its est_eff counts mb * ngroups items: 4 groups of 3 channels, "
            "2x2 at stride 2 padded 2 over a 1x11 input on 4 threads gave other bits, 18 of 168) refused now; "
            "the backward at avx512_core refused; NCHW brgconv_strided grad_input (avx2, avx512_core) over NaN or "
            "infinite operands refused (its exec_trans multiplies the weights by grad_output's zeros past OW: a 3x3 at "
            "stride 2 over 9 columns with an infinite weight had NaN where the model has numbers); the survey rebuilt "
            "with groups of several channels (216 draws, 864 passes at default, avx2 and avx512 on 1, 2 and 4 "
            "threads): 691 exact, 171 refused, 2 other before (those NaNs), 710 exact, 154 refused, 0 other after"
            "; dilated (NCHW, x86): ATen's "
            "`slow_conv_dilated2d` for one small image (im2col with the dilation + MKL `sgemm`, beta 1 onto "
            "the bias), else the kernels above with the taps the dilation apart, their init_conf checks over "
            "the kernel's extent (strided backward data gemm:jit), measured on a Zen 5: 90 random dilated conv1d "
            "and conv2d, output and every gradient, 337 of 360 tensors bit for bit at baseline, avx2 and avx512 "
            "on 1, 2 and 4 threads, the other 23 refused (a NaN of either kind), 0 other; dilated groups: every "
            "one oneDNN's (a dilation counts as a stride in use_mkldnn), depthwise jit_dw's forward with the taps "
            "apart and gemm:jit's backward (jit_dw's backward takes no dilation), groups of several channels "
            "jit:sse41/jit:avx2 per group or jit:avx512_core in blocks of 16, 8 or 4 by the one-group dilated "
            "checks, jit:avx2's flat forward per group below 8 input channels in all, gemm:jit elsewhere "
            "(SSE4.1's grad_weight per group with init_conf's threading over all the groups); dilated "
            "transposed: slow_conv_transpose2d with the dilation where ATen keeps one group, else the dilated "
            "adjoint's kernels (grouped ones the adjoint's grouped routes), at avx512 too; measured on a Zen 5: "
            "270 random draws each of dilated depthwise, grouped, channel-multiplier, transposed and grouped "
            "transposed conv1d/conv2d at baseline, avx2 and avx512 on 1, 2 and 4 threads, output and every "
            "gradient through the replay: 991, 950, 1015, 989 and 956 of 1080 tensors bit for bit, the rest "
            "refused (NaN results of either kind; SSE4.1's gemm:jit weights over padding with a non-finite "
            "grad_output; 2 forwards past jit:avx512_core's settled bounds, 2 weights of blocks of 16 on "
            "several threads), 0 other; dilated channels-last of one group (harness/impl/conv_nhwc_dilated.py; "
            "WavLM's x-vector TDNN, whose conv1d weight transposed from (O, K, I) runs channels-last): ATen's "
            "`slow_conv_dilated2d` channels-last for one small image, else gemm:jit nspc (no pixel blocking with a "
            "dilation) or jit:sse41 at baseline, `brg_conv_fwd` with the taps apart (one call where nothing is "
            "padded or exec_vpad runs, else exec_base's calls by column block; the exec type, column block and ic "
            "block those init_conf's search keeps by the thread count: est_eff, brgemm_blocking's unroll and "
            "select_ic_block, with the column stride and the taps' dilation in get_inp_size), `brg_conv_bwd`'s "
            "grad_input at stride 1 (gemm:jit strided), gemm:jit's weights at avx2 and "
            "jit:avx512_core's on nxc at avx512 (no expl_bcast row calls); measured on a Zen 5: 540 random "
            "forwards and 540 backwards at baseline, avx2 and avx512 on 1, 2 and 4 threads, 480 and 389 bit for "
            "bit (every gradient), 0 other, the rest refused (NaN results of either kind, grad_weight over NaN or "
            "infinite operands, one input channel, brg_conv_bwd padded past the extent less 1); with the search, "
            "WavLM's 512-channel dilated TDNN layers and DeepLabV3's ASPP branches 80 of 80 passes bit for bit at "
            "each of avx2 and avx512 on 1, 2, 4 and 8 threads (refused before: at avx512 every WavLM pass, "
            "select_ic_block's 336 or 512 channels by the output-channel block; ASPP's column blocks at avx2 on 4 "
            "threads and dilation 18 on 2 and 4), 120 small-channel draws at each level none refused by a block, "
            "random dilated draws near the real shapes (64 to 512 channels, kernels 1 to 5, dilation 2 to 4) 33 of "
            "41 and 27 of 35 passes each way bit for bit at avx512 and avx2 (before 17 and 18 forwards), 0 other; "
            "WavLM at avx2 and avx512 on 8 threads in the zoo's audit 496 of 496 ops bit for bit (2 refused "
            "before); dilated channels-last with groups (depthwise too) refused"
        ),
        (
            "`ONEDNN_MAX_CPU_ISA`: FMA on AVX2 and AVX-512, multiply-then-add on SSE4.1; AVX-512 sums blocks of 16 "
            "channels apart and adds the bias after the first; thread count: ATen's 1x1 path (MKL) at 1 thread, "
            "oneDNN's image split of the weight gradient above it; the host's per-core L2 (gemm:jit's forward "
            "blocks, and gemm:jit or ref:any); depthwise: FMA or not, channel blocks of 8 or 16 (SSE4.1 declines "
            "channels not a multiple of 8), the threads' split of the images where one channel block is left; "
            "jit_dw's weights: rows over 30 columns (column blocks of 15 outermost in each kernel call); "
            "SSE4.1's gemm:jit grad_weight multiplies im2col's padding zeros (an infinite or NaN grad_output "
            "over the padding gives NaN), its forward too (an infinite or NaN weight); a width stride over 28 "
            "(Moonshine's stride-64 conv1d of the "
            "waveform) keeps AVX-512 backward data's initial `ur_w = stride_w` (30 random convolutions of stride "
            "29 to 79 on 1, 2 and 4 threads: 103 of 103 tensors exact; the replay had failed on 5)"
        ),
    ),
    (
        ("lstm",),
        (
            "`mkldnn_rnn_layer` (aten/src/ATen/native/mkldnn/RNN.cpp; nn.LSTM on float CPU tensors, one call per "
            "layer and direction; harness/impl/rnn.py): bias `b_ih + b_hh`, oneDNN's `rnn,ref` primitive: the "
            "input product of all steps in one sgemm (below 128 batch rows), per step the recurrent product "
            "added onto the step's gates (oneDNN's own sgemm, its no-copy kernel forced from AVX2 up below 500 "
            "hidden units; at SSE4.1 the copy-based one), then jit_uni_lstm_cell_postgemm_fwd: oneDNN's "
            "injector logistic (`e/(e+1)` of its exp of `-|x|`) and tanh (32 degree-6 polynomials by binade), "
            "`c = c_prev*f` then `c += i*g`, `h = tanh(c)*o`; backward (`mkldnn_rnn_layer_backward`): per step "
            "from the last jit_uni_lstm_cell_postgemm_bwd, the h gradient's sgemm and the bias rows added in "
            "order, then grad_x, grad_w_ih and grad_w_hh each over all steps in one sgemm (grad_w_hh two left to "
            "right: steps 1.., then step 0); inference from AVX2 up: oneDNN's brgemm RNN, per element one "
            "chain over the input's terms, added to one over h's (one chain over both where I == H)"
        ),
        (
            "`ONEDNN_MAX_CPU_ISA`: FMA in the sgemms and the postgemm from AVX2 up, multiply-then-add at "
            "SSE4.1; the sgemm kernels (AVX2's no-copy register tiles, AVX-512's one chain per K block, SSE4.1's "
            "K blocks of 256); thread count where the no-copy sgemm splits K (AVX2)"
        ),
    ),
    (
        ("weight_norm",),
        (
            "`_weight_norm_interface` and its backward (WeightNormKernel.cpp, dim 0 or the last; other dims are "
            "ATen's composite `_weight_norm`, traced as its own ops): first dim, per row `sqrt(map_reduce_all(x*x))` "
            "(8 lanes, the reduce_all tree), `w = v*(g/norm)`; backward `map2_reduce_all(grad_w*v)`, "
            "`a = g/norm`, `b = a*grad_g/norm`, `grad_v = a*grad_w - b*v`; last dim, the rows split over threads "
            "(`parallel_for(0, M, 1)`), each thread summing `v*v` (`grad_w*v`) into its own buffer row, the rows "
            "then added in thread order"
        ),
        (
            "compiler FMAs of the AVX2/AVX-512 objects (the last dim's per-thread sums `fma(v, v, out)`, "
            "`grad_v = fma(-b, v, a*grad_w)`; the first dim's reductions unfused); the default build's in-order "
            "lane fold; thread count for the last dim (which rows each thread sums)"
        ),
    ),
    (
        ("group_norm",),
        (
            "`GroupNormKernelImplInternal` and its backward (group_norm_kernel.cpp, contiguous NCHW float32): "
            "per (n, g) row layer_norm's `RowwiseMoments`, `rstd = 1/sqrt(var + eps)` in double, "
            "`y = scale*x + bias` per channel (`(x - mean)*rstd` without weight and bias); backward per (n, c) "
            "`ds = map2_reduce_all(dy*x)`, `db = reduce_all(dy)`, per group the weighted sums of 8 lanes then "
            "a scalar tail, `dx = c1*dy + c2*x + c3`; `dgamma`, `dbeta` summed over n in order. Channels-last "
            "(4-D and 5-D, x86): `GroupNormKernelImplChannelsLastInternal` and its backward, the sums of x and "
            "x*x (of dy*x and dy) per channel in 8 lanes, a group at a time below 1024 (2048) pixels, else "
            "per-thread sums of every pixel added in thread order"
        ),
        (
            "compiler FMAs of the AVX2 object (`y = fma(scale, x, fma(-scale, mean, b))`, the weighted sums, "
            "`c2`, `c3`, `dx = fma(c1, dy, c2*x) + c3`, `dgamma`; channels-last: the variance, `y`, the "
            "per-thread sums, `c3 = fma(-c2, mean, -db*rstd*s)`, `dx = fma(c2, x, c1*dy) + c3`, not the "
            "column sums) vs none at the default level; thread count (grad_x): the copy inlined for 1 thread "
            "(or one group) rounds the first 4 products of the weighted sums' scalar tail, the OpenMP copy "
            "fuses them; channels-last past 1024 (2048) pixels: every output, by the threads' split of the "
            "pixels"
        ),
    ),
    (
        ("grid_sample",),
        (
            "`grid_sampler_2d_cpu_kernel_impl` and its backward (GridSamplerKernel.cpp), bilinear or nearest "
            "(half to even), zero or border padding (clipped to the image, the gradient 0 where clipped): per "
            "output point `x = (g + 1)*(W/2) - 0.5` (`(g + 1)*((W-1)/2)` with aligned corners), "
            "the four corners' weights `s*e, s*w, n*e, n*w`, `out = nw_val*nw + ne_val*ne + sw_val*sw + "
            "se_val*se` from left; backward per vector of output points (8 on x86) and channel the corners' "
            "`weight*gOut` added into grad_input (corner by corner, lane by lane), the grid's gradient "
            "`((ne_val - nw_val)*s + (se_val - sw_val)*n)*gOut` summed over channels, times the scale"
        ),
        (
            "compiler FMAs of the AVX2 object (the unnormalisation `fma(g + 1, W/2, -0.5)`, every later "
            "product of `out` fused into the sum before it, the grid gradient's second product and its "
            "accumulation) vs none at the default level; not the thread count (ATen splits the batch)"
        ),
    ),
    (
        ("upsample_bicubic2d",),
        (
            "`upsample_generic_Nd_kernel_impl` with `HelperInterpCubic` (UpSampleKernel.cpp, not antialiased): "
            "per output index the source `r = scale*(i + 0.5) - 0.5` (`scale*i` with aligned corners), `k = "
            "floor(r)`, `t = clamp(r - k, 0, 1)`, Keys' cubic weights with `A = -0.75` at taps `k-1 .. k+2` "
            "clamped to the edge; per element the four rows' width sums `o = t0*w0; o += t_j*w_j`, then the "
            "rows' sum with the height weights alike; backward (UpSampleBicubic2d.cpp, one object per "
            "architecture): per output in row order the 16 taps, width tap outer, `gx += (g*wy)*wx` onto zeros; "
            "antialiased (`_upsample_bicubic2d_aa`, `separable_upsample_generic_Nd_kernel_impl` with "
            "`HelperInterpCubic`): the width pass then the height pass, per output `xmin`/`xsize` taps around "
            "`center = scale*(i + 0.5)` with float weights of Keys' cubic at `A = -0.5` (support `2*scale` when "
            "downsampling) normalised by their float sum, each output `o = t0*w0; o += t_j*w_j`; its backward "
            "(`cpu_upsample_genNd_backward_aa`): per output in row order `gx += (wx*wy)*g` onto zeros"
        ),
        (
            "compiler FMAs of the AVX2 object (the source `fma(scale, i + 0.5, -0.5)`, the weights' first "
            "steps, each sum `fma(t3, w3, fma(t2, w2, fma(t0, w0, t1*w1)))`) vs none at the default level; "
            "not the thread count or the layout (each element on its own); the backward: nothing (never fused "
            "on x86); antialiased: the AVX2 object (avx2 and avx512) fuses every step of the filter, the last "
            "`(xsize - 1) mod 4` terms of each sum (GCC's in-order 4-lane reduction rounds the rest) and the "
            "backward's updates `fma(wx*wy, g, gx)`, the default object none; not the thread count, save ATen's "
            "own output-width-1 quirk (every row of a plane takes row 0's value; refused over GRAIN_SIZE outputs "
            "on threads); measured on a Zen 5: 600 random forwards and 300 backwards at each level and each of 1, "
            "2 and 4 threads, 0 other (the non-finite draws refused)"
        ),
    ),
    (
        ("upsample_bilinear2d",),
        (
            "per output index the source `r = max(scale*(i + 0.5) - 0.5, 0)` (`scale*i` with aligned corners), "
            "`i0 = (int64)r`, `i1 = i0 + (i0 < in - 1)`, `l1 = r - i0`, `l0 = 1 - l1` (equal sizes copy), `i0` at "
            "most `in - 1` and `l1` clamped to [0, 1] (ATen's `guard_index_and_lambda`: a scale factor passed "
            "beside an output size it does not give); forward: "
            "`upsample_linear_channels_last` (UpSampleKernel.cpp), ATen's kernel for OH + OW <= 128, a "
            "channels-last input of C > 3, or C = 3 at one thread: weights `w00 = lh0*lw0` .. `w11`, per "
            "output pixel the channels in vectors of 8, `x00*w00 + (x01*w01 + (x10*w10 + x11*w11))`, the last "
            "C % 8 by the scalar sum from the left; else, for `upsample_linear1d` always, and for "
            "`upsample_trilinear3d` but for a channels-last input of more than 3 channels, the generic kernel "
            "(`upsample_generic_Nd_kernel_impl`, InterpolateNonSeparable): per output element each row's "
            "`t0*lw0 + t1*lw1`, then the rows' `r0*lh0 + r1*lh1`, then the planes'; backward: "
            "`cpu_upsample_linear_backward` (UpSampleMoreKernel.cpp) of a channels-first gradient: per plane, per "
            "output element in row order, four scalar updates `gx += (lh*lw)*g` in the order i00, i01, i10, i11 "
            "onto zeros (1-D: `gx += l*g`, i0 then i1; 3-D: eight, `((ld*lh)*lw)*g`; a channels-last gradient, "
            "C = 1 or one pixel included, takes ATen's vectorised kernel `cpu_upsample_linear_backward_channels_last`: "
            "per output pixel each tap's updates over the channels, the same order and arithmetic per element; the "
            "3-D channels-last forward "
            "the 2-D kernel's with eight weights `(ld*lh)*lw`; at the default level NaNs and infinities in 3-D "
            "refused); antialiased (`_upsample_bilinear2d_aa`, float: `separable_upsample_generic_Nd_kernel_impl` "
            "with `HelperInterpLinear`, as the bicubic one's): the width pass then the height pass, per output "
            "`xmin`/`xsize` taps around `center = scale*(i + 0.5)`, float weights of the triangle `1 - |x|` "
            "(support the scale when downsampling, else 1) normalised by their float sum, each output `o = "
            "t0*w0; o += t_j*w_j`; its backward (`cpu_upsample_genNd_backward_aa`): per output in row order "
            "`gx += (wx*wy)*g` onto zeros; NaNs and infinities refused"
        ),
        (
            "compiler FMAs of the AVX2 object (the source `fma(scale, i + 0.5, -0.5)`; the forward's vector "
            "lanes `fma(x00, w00, fma(x01, w01, fma(x11, w11, x10*w10)))` and its scalar channels "
            "`fma(x11, w11, fma(x10, w10, fma(x00, w00, x01*w01)))`; the generic kernel's `fma(t0, w0, t1*w1)`; "
            "each backward update `fma(lh*lw, g, gx)`) vs none at the default level; avx512 runs the AVX2 object; "
            "not the thread count (ATen splits whole images, or planes, or computes each output on its own); "
            "antialiased: the AVX2 object fuses the last `(xsize - 1) mod 4` terms of each sum and the "
            "backward's updates `fma(wx*wy, g, gx)`, the default object none (the triangle has nothing to fuse); "
            "measured on a Zen 5 (tests/upsample_bilinear_aa_cases.py: 60 random cases, up and down, by size "
            "or scale factors, corners aligned or not, contiguous or channels-last, some past the thread grain) "
            "at default, avx2 and avx512 on 1, 2 and 4 threads: forward 46 exact, 14 refused, backward 48 "
            "exact, 12 refused, 0 other each; SigLIP 2's position embeddings"
        ),
    ),
    (
        ("qr",),
        (
            "`linalg_qr` (mode 'reduced', float32, M >= N, N <= 32) through MKL's LAPACK on its generic path: "
            "unblocked `sgeqrf` (below 21 rows its small routine; `sgeqr2` for square and 51-64 rows from 21 "
            "columns; else `sgeqrf_pfnr`: one gemv per column gives |x|^2 and the trailing products), then "
            "`sorg2r`; MKL's SSE gemv('T') (4 columns at a time, the vector loop from a 16-byte boundary), the "
            "old scaled-sum-of-squares `snrm2`, no FMA; `orthogonal_` takes its Q"
        ),
        (
            "MKL's code path (the CPU vendor: Intel CPUs get its AVX2/AVX-512 kernels, not modelled); thread "
            "count: from 21 columns and M/2 > N `sgeqrf_pfnr` splits the rows between 2 threads and adds their "
            "partial products; more than 32 columns (blocked) not modelled"
        ),
    ),
    (
        ("solve_triangular",),
        (
            "`linalg_solve_triangular` (float32, either side) through MKL's `strsm` on its generic "
            "path, one call per matrix of the batch, each right-hand column (left) or row (right) on its own, read "
            "from its kernels' machine code, every product rounded, r = 1 / a_ii: left, the op's lower triangle of a "
            "C-contiguous A (MKL sees L U T, `mkl_blas_def_strsmlt`; Qwen3-Next's chunked delta rule, 64 rows) rows "
            "in blocks of 4, each row's sum over earlier blocks in 4 lanes (`(l0 + l2) + (l1 + l3)`; unit: after a "
            "peel to row i0 + 3's 16-byte boundary into lane 0), then its block's earlier rows (unit `b - (p32 + "
            "(p31 + (p30 + S)))`, non-unit `((b - p32) - (p31 + (p30 + S))) * r`); the n % 4 rows left in pairs "
            "(8-wide, peel to row i + 1's boundary; row i two accumulators, row i + 1 one) and a last row; sums of "
            "fewer terms than the peel and a vector in order; its upper triangle of A's transpose (autograd's "
            "backward solve, L U N, `mkl_blas_def_strsmlun`) rows descending in blocks of 4 from the last, sums "
            "from +0 over later rows ascending, then its block's (unit `b - (p12 + (p13 + S))`, non-unit `((b - "
            "p12) - (p13 + S)) * r`); the n % 4 top rows as a pair (alternate-term accumulators) and row 0 (8 "
            "accumulators, the leftover terms from the last down); its upper triangle of a C-contiguous A (L T, "
            "`strsmlt`'s lower branch) strsmlun's blocks and forms, each row's terms contiguous: 4-lane sums (unit: "
            "after a peel to row i0 + 3's first term's boundary), the top pair 8-wide after a peel to its second "
            "row's first term (the row solved first in one accumulator, the other in two), row 0 8-wide with its own "
            "peel; its lower triangle of a transposed A (L L N, `mkl_blas_def_strsmlln`, scalar) strsmlt's blocks "
            "and forms, sums from +0 in order, the pair in alternate-term accumulators, an odd last row in 8; past "
            "64 rows (`mkl_blas_def_strsm_l2`, its calls traced with gdb) MKL's threads take B's columns (k // t "
            "each, the last thread the rest, t = min(threads, k)) and solve 64-row blocks by one kernel call each "
            "from the top for the op's lower triangle (from the bottom for its upper), every block followed by one "
            "sgemm of its 64 columns updating all rows left, C - A @ X (alpha -1, beta 1; TN for a C-contiguous A, "
            "NN for a transposed one: MKL's own `xsgemm`, the `mm` row's MKL serial kernels on one thread whatever "
            "the shape: `sgemm_pst` for one row or a thread's one column, not the gemv `sgemm_`'s entry picks "
            "there); right (`left=False`: MKL's side R on B's column-major copy, `mkl_blas_def_strsm_i`, traced "
            "with gdb and read from its machine code): reference BLAS's loops, vectors across B's rows, columns "
            "from the first for the op's upper triangle (from the last for its lower), each column b - M(i, j) * x_i "
            "subtracted in turn over the columns solved before it (ascending i; descending for the lower triangle "
            "of a C-contiguous A, MKL's R U T), no product skipped, then times 1 / M(j, j) (DIVSS); MKL's threads "
            "take B's rows (k // t each, the last the rest); past 64 columns `strsm_l1` / `l2`'s recursion: the "
            "first n1 columns in solve order (the largest 64 * 2^p below their count) solved so, one sgemm of those "
            "n1 updating the rest (NT for a C-contiguous A, NN for a transposed one, the serial kernels as left), "
            "then the rest solved so; one right-hand column (left) or row (right): MKL's `strsv` "
            "(`mkl_blas_def_xstrsv`, traced with gdb; its kernels read from their machine code, x / a_ii by DIVSS) "
            "on 32-row blocks, from the top for U T (the op's lower triangle of a C-contiguous A) and L N (its lower "
            "of a transposed one), from the bottom for L T (its upper of a C-contiguous A) and U N (its upper of a "
            "transposed one); a right-side row: the left column's call on op(A)'s transpose; U T and L T: before "
            "each block the `mm` row's gemv 'T' of all rows solved (alpha -1, beta 1), then `strsv_ut*` / `lt*`: "
            "rows in pairs from b, the solved terms subtracted in order, from 8 terms past the peel to the pair's "
            "second row's 16-byte boundary 8 wide, the first row in two 4-lane accumulators, the second in one, "
            "folded `(l0 + l2) + (l1 + l3)`, then the second row's term of the first; an odd last row alone, its "
            "peel to x's boundary; U N and L N: `strsv_un*` / `ln*` column by column (x_j / a_jj, then x_i - a_ij * "
            "x_j), then the gemv 'N' of the block's columns onto the rows left; the backward's `-(grad_B @ "
            "X^H).tril(-1)` by the `bmm`, `neg` and `tril` rows"
        ),
        (
            "MKL's code path (Intel CPUs: its own kernels, refused), A's layout (which kernel) and A's "
            "address mod 16 (strsmlt's and strsv's peels; one column also the column's copy: an odd last row's peel), "
            "past 64 rows or columns the thread count (the updates' widths pick the sgemm kernels: an update of all "
            "columns in place of 2 to 4 of each thread's: 3 of 9 recorded cases differ); not the ATen level or "
            "MKL_ENABLE_INSTRUCTIONS. Refused: other layouts (torch's F-contiguous copies), NaN operands (which NaN "
            "a sum keeps), and on the right side a NaN made of infinities reaching an sgemm update (MKL gives +NaN "
            "where the model's alpha -1 product keeps -NaN: alpha applied as a sign flip there, not measured). "
            "Measured on a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads (the same bits at every level), "
            "forward and autograd backward solves of random batches (n 2 to 256, half past 64, k 2 to 40, one in 8 "
            "one column, A at each 4-byte offset, unit or not, the four layouts in turn, magnitudes over 12 "
            "binades, infinities, -0, subnormals, NaNs of both signs, quiet and signalling), per level and thread "
            "count 240 mixed (one in 6 right-side), 120 right-side and 60 right-side of one row: forward 340 to 349 "
            "exact of 420, backward 380 to 393; over the 9 configurations 3,096 forward and 3,491 backward solves "
            "exact, 684 and 289 refused (NaN operands; right-side NaNs of infinities at an update), 0 other; of "
            "the mixed, the op's upper triangle of a C-contiguous A 468 forward and 505 backward exact of 540, its "
            "lower of a transposed one 444 and 499; right-side 1,557 forward and 1,821 backward exact (past 64 "
            "columns 415 and 548 of the right-side runs' 611); before (those two layouts with two or more columns "
            "and the right side refused): 5,382 forward and 5,931 backward exact, 918 and 369 refused, 0 other; a "
            "traced program of 9 solves and their backwards on those layouts and sides (`parity audit --per-op 0`, "
            "baseline on 4 threads, avx2 on 2, avx512 on 1): 108 of 108 ops exact each; Qwen3-Next's traces "
            "(`tools/zoo.py --audit`, avx2 on 1 and 2 threads): 12 of 12 solves exact"
        ),
    ),
    # -- trace-only rows of torch.optim's other paths and variants (harness/impl/optim.py)
    (
        ("foreach",),
        (
            "torch.optim's `foreach=True` (never CPU's default in 2.13.0: the for-loop runs unless asked): "
            "each `_foreach_*` op (`lerp_`, `mul_`, `addcmul_`, `sqrt`, `div_`, `add_`, `addcdiv_`, `maximum_`, "
            "`neg`, `add` with alpha, `norm`) is ForeachOpsKernels.cpp's slow path, the per-tensor kernel per "
            "list element: the for-loop's bits; with amsgrad (`maximum`), maximize (`neg`), Adam's L2 term "
            "(`add(param, alpha=wd)`: `fmadd(param, wd, grad)`) and SGD's momentum, dampening and nesterov "
            "(`add` with alpha)"
        ),
        (
            "as `adamw_step`; `add` with alpha fused on AVX2/AVX-512 (vector body and tail), two roundings on "
            "default; `maximum`'s NaN (all bits set in AVX2/AVX-512 vector bodies, the default build keeps a "
            "NaN first operand, `0x7fc00000` in every scalar tail); thread count only through where the tails fall"
        ),
    ),
    (
        ("fused_optim",),
        (
            "`_fused_adam_`/`_fused_adamw_` (FusedAdamKernel.cpp) and `_fused_sgd_` (FusedSGDKernel.cpp), "
            "float: 16-float units over all threads (grain 0), each chunk a vector body of 8 lanes and a scalar "
            "tail; Adam: decay, `fmadd` lerp, `v*beta2 + (c2*g)*g`, IEEE sqrt (no MKL), `p + (-ss*m)/d`, "
            "scalars in double (`std::pow`, `std::sqrt`), an lr tensor read as its float32 value; SGD: "
            "`buf*m + g*(1 - d)`, `p + g*(-lr)`"
        ),
        (
            "compiler FMAs of the AVX2/AVX-512 objects, chosen per expression and differently in the vector "
            "body and the tail (`v*beta2 + (c2*g)*g`: `fma(c2*g, g, v*beta2)` in the body, `fma(v, beta2, "
            "(c2*g)*g)` in the tail; SGD's `buf*m + g*(1 - d)` the other way round); not the thread count "
            "(16-float units are whole vectors: the one scalar tail is the tensor's end), but for which NaN "
            "Adam's maximize keeps where two meet (the OpenMP copy: refused); not the CPU model (IEEE sqrt)"
        ),
    ),
    (
        ("fft",),
        (
            "`_fft_c2c_mkl`, `_fft_r2c_mkl`, `_fft_c2r_mkl` (native/mkl/SpectralOps.cpp): one MKL DFTI descriptor "
            "per transform on the x86 wheel (no pocketfft there), on its generic code path (the `def` kernels, "
            "no FMA); reproduced for 1-D transforms of length 12 and 24 (c2c, r2c, c2r): 12 a prime-factor "
            "3 x 4 (3-point DFTs first, no twiddles; the real kernels drop the absent imaginary parts), 24 "
            "complex Cooley-Tukey 3 x 8 (two kinds of 8-point DFT, then twiddles and 3-point DFTs), 24 real "
            "the 12-point complex transform of the even/odd pairs with a recombination pass (`(1 + sin)/2` "
            "form forward); a 1/N scale folded into the real 12-point kernels' 3-point DFTs, or applied after "
            "the transform; 8 and 16 (c2c, r2c, c2r) radix 2 and radix 4 x 4, decimation in time, the odd "
            "eighth turns as one sum times sqrt(1/2) or as products (per kernel), 16 twiddles float32 from "
            "double cos/sin; the real ones the complex kernel of the row with +0 imaginary parts (backward: "
            "the Hermitian row, real parts); 32 complex Cooley-Tukey 8 x 4 (4-point DFTs, twiddles, the "
            "24-point kernel's `Prime8`), 64 complex 4 x 16 (16-point DFTs, twiddles, 4-point DFTs: DFTI's radix-4 "
            "FFT `owns_cRadix4{Fwd,Inv}Norm_32fc`, its table's products on every bin of residues 1 to 3 in both "
            "stages, k = 0 and the quarter turns too), 16 complex DFTI's 16-point FFT kernel "
            "(`ipps_cFFT{fwd,inv}_16_32fc`, straight-line SSE: residue 1's bins 0 to 3 and bins 1 to 3 of "
            "residues 2 and 3 times its constants, the turn by 1 as (re + im*b, im + re*b) with b = +0 forward, "
            "-0 backward, the quarter turn's cosine +0), 8 complex DFTI's 8-point FFT kernel "
            "(`ipps_cFFT{fwd,inv}_8_32fc`: radix 2, the odd eighths as one sum times sqrt(1/2), the third as "
            "(re - im)*-h, (re + im)*-h forward, "
            "(re + im)*-h, (im - re)*-h backward), 32 complex (and inside the real 64) DFTI's 32-point FFT kernel "
            "(`ipps_cFFT{fwd,inv}_32_32fc`: 8 x 4 with the 16-point kernel's products, then `Prime8`), 32 and 64 "
            "real the N/2-point complex transform of the even/odd pairs with the 24-point recombination "
            "passes (r2c of 64 on DFTI's threaded path: the complex 64-point kernel); 48, 96 and 192 complex "
            "Cooley-Tukey 3 x 16, 3 x (4 x 8) and 3 x (4 x 16) (DFTI's PrimeFact plans as gdb shows them: "
            "`Prime16` or `Prime8`, the Fact4 pass, the Fact3 pass), real the N/2-point complex transform of the "
            "even/odd pairs "
            "with the recombination passes, on every path (192's half 96 by 96's plan); 20, 40 and 80 complex "
            "Cooley-Tukey 5 x 4, 5 x 8 and 5 x 16 (DFTI's PrimeFact plans: `Prime4` (the 4-point DFT, read from "
            "its machine code), `Prime8` or `Prime16`, then the Fact5 pass: a 5-point DFT `a0 + (t1 c + t2 c')`), "
            "real as 48 (20: DFTI's 10-point kernel, a prime-factor 5 x 2 transform; 40: 20's plan); 144, 168, "
            "336, 720 the same order with the largest odd prime outermost (3 x 48, 7 x 24, 7 x 48, 5 x (3 x 48); "
            "720 `Prime16`, Fact3, Fact3, Fact5 as gdb shows; a 7-point DFT like the 5-point one), real as 48; "
            "480 complex DFTI's PrimeFact plan 5 x (4 x (3 x 8)) (one `Prime8` call "
            "for the 60 8-point DFTs, three per group: two by its pair block, the last residue of 3 by its single "
            "block, radix 2 with its table's products; then the Fact3, Fact4, Fact5 passes), real "
            "(NeuCodec's ISTFT head) the 240-point complex transform 5 x (3 x 16) of the even/odd pairs with "
            "the recombination passes; the Fact passes multiply every bin of residues 1 and up by their table "
            "(cos, -sin) (k1 = 0 and quarter turns too: zeros' signs), `ct_odd`'s 16-point DFTs are DFTI's "
            "`Prime16` (its table's products on every bin of residues 1 to 3, every zero +0), `Prime8`'s pair "
            "block takes x6 - x2, x7 - x3 and s3 - s1 (read from its machine code), its single block multiplies "
            "bins 0 and 2 too (table (1, +0), (+0, -1)), the 5- and 7-point DFTs' odd terms take the sines of "
            "-2pi k/p, the recombinations pair bin k with m - k (the backward one's table: cos(pi/2) +0); "
            "`ct_odd`'s order also at 28, 36, 56, 60, 72, 84, "
            "100, 112, 120, 140, 160, 180, 200, 224, 240, 252, 280, 320, 360, 392, 400, 448, 504, 560, 700 "
            "(complex; 320 and 448 `Prime16`, Fact4, then Fact5 or Fact7, 400 `Prime16`, Fact5, Fact5: gdb shows "
            "each of these plans and the real kernels' halves `Prime4`, `Prime8` or `Prime16`, then the Fact "
            "passes, the largest odd prime's last) and "
            "56, 72, 112, 120, 160, 200, 224, 240, 280, 288, 320, 360, 392, 400, 448, 504, 560, 640, "
            "672 (real: the half's transform with the recombination passes); 128, 256, 512 and 1024 complex (and the "
            "halves of the real ones, with the recombination passes) DFTI's radix-4 FFT "
            "`owns_cRadix4{Fwd,Inv}Norm_32fc` (read from its machine code: decimation in time, a 4-point pass "
            "without twiddles, then radix-4 passes and radix-8 passes as it branches on N: 4 x 4 x 8, 4 x 8 x 8, "
            "4 x 4 x 4 x 8, 4 x 4 x 8 x 8; the table's products (cos, -sin) on every bin of residues 1 and up; its "
            "8-point butterfly's odd eighths as products by its `COS_1_8`, 0x1.6a09e8p-1, sqrt(1/2) rounded up, "
            "then their sum); a 1/sqrt(N) scale "
            "(float32 of the double) after the transform, its real kernels those of DFTI's threaded path on "
            "any thread count (contiguous rows); several dims (`fftn`, `rfftn`, `irfftn`): 1-D passes, the "
            "last dim first (r2c: the one-thread real kernel of 12, 24, 64 or 128 to 1024), the scale after one "
            "measured "
            "pass (two dims: the shorter one's; three: the innermost 8's, else the last pass), `irfftn` ATen's "
            "backward c2c then c2r from its layout; other lengths (2048 and up; complex 288, 420, 600, 640, "
            "672, planned otherwise; primes of 11 and up), other layouts, c2r of "
            "8 to 64 and r2c of 32 on DFTI's threaded path (its own real codelets `xs_f<N>_1df`/`_1db`, one row "
            "per call, the rows split between threads, as gdb shows: not read) or scaled by 1/sqrt(N), "
            "the real multi-dim pass of "
            "lengths but 12, 24, 64 and 128 to 1024, a scaled multi-dim pass not measured, zero results of the real "
            "forward kernels "
            "of 8, 16 and 20, zero results from -0 inputs of c2r of 8, 16, 20 and 24 and r2c of 20 (DFTI's "
            "real 8- and 16-point kernels and its 10- and 12-point ones: zero signs not read; every complex "
            "length and the real ones from 32 answered, 480 NeuCodec's backward and forward; "
            "24, 40, 48 and 80 in "
            "`ct_odd`'s order, the Fact passes' table twiddles on every bin and `Prime16`, `ct32_4x8`'s twiddles "
            "the table's products too, where the plain twiddles of the kernels once modelled gave other zero "
            "signs: fft of 24, 40, 48, 80 and 224 on 3,000 zero-heavy rows, 274, 301, 390, 255 and 143 differ; "
            "the plain twiddles of a 3 x m kernel (the half of the real 192 as once modelled) and `ct64`'s (fft "
            "of 96 as once modelled: 82 of 3,000 differ) and 20's skipped ones other zero signs too; fft/ifft of "
            "8, 16, 32 and 64 "
            "and rfft/irfft of 32 and 64 as once modelled "
            "gave 54 to 296 of 3,000 zero-heavy rows other zero signs, rfft of 32 and 64 answered so), and a NaN "
            "or an infinity in or out refused"
        ),
        (
            "thread count, in the real 12-point transforms with a 1/N scale only: DFTI's threaded path (2 or "
            "more threads, 2 or more transforms) and strided rows scale after the transform, one thread "
            "inside the kernel (Autoformer's `irfft` backward, `_fft_r2c` by_n); and in the real forward "
            "transforms of 8, 16 and 64, scaled or not: the threaded path over contiguous rows takes the odd "
            "eighths as products (8, 16) or the complex kernel (64), one thread sums or a recombination; "
            "unscaled transforms of 12 and 24, complex "
            "ones the same on 1, 2 and 4 threads (measured on the Zen 3, forward, 45 shapes (batch, n1, "
            "n2) with n1, n2 up to 139: `rfft` 6 of 90 cases and `irfft` 14 of 90 move with the thread "
            "count, complex ones and `rfftn` none); 128, 256, 512 and 1024 (DFTI's radix-4 FFT, the real ones its half "
            "with the recombinations) none: the same kernel per row on its threaded path, as gdb shows (measured on "
            "a Zen 5 at default, avx2 and avx512 on 1, 2 and 4 threads, 60 random transforms per op, length and "
            "setting, one dim of 1 to 3 transformed, batches of 1 to 9 and 30 to 90 rows, transposed views, every "
            "norm, signed zeros, "
            "subnormals, NaN payloads and infinities: fft 1,917, ifft 1,926, rfft 1,909, irfft 1,924 exact, the "
            "rest (a NaN or an infinity) refused, 0 other; zero-heavy rows of -0 and +0 cut to each length, 1,353 "
            "to 84 rows per op and length on 1, 2 and 4 threads, 0 other; `fftn`/`irfftn` of 2 dims with one of "
            "these lengths 0 other, `stft` of n_fft 128 to 1024 (hann, hop n_fft/4) 0 other); ATen capability "
            "default vs avx2 nothing; Intel CPUs "
            "(DFTI's own code paths: under qemu's Haswell-v4 16 of 20 zero-heavy operands of fft of 20 to 720 and "
            "rfft/irfft of 40, 192, 400 other bits) refused; zero results from -0 (zero-heavy rows at default, "
            "avx2 and "
            "avx512 on 1, 2 and 4 threads: rfft of 480 36,000, fft and ifft of 240 27,000 each, fft, ifft and "
            "irfft of 480 36,000 each (and 7,200 rows aimed at `Prime8` each for fft and ifft), fft and ifft of "
            "112, 56, 168 and 336 and rfft and irfft of 224 36,000 each, fft and ifft of 24, 28, 40, 48, 80, 160 "
            "and 224, fft and ifft of 16, 32 and 64 27,000 each (FNet's 16 x 64 `fftn`), of 96, 144 and 192 "
            "27,000 each and of 8 24,300 each, of 320, 448 and 720 7,000 each (3,000 at default on 1 thread, 500 "
            "at each other setting), of 20 and 400 9,000 each, rfft and irfft of 192 and 400 9,000 each, irfft of "
            "40 9,000, rfft of 40 7,803, fft and ifft of the further complex lengths 36 to 700 and rfft and irfft of "
            "56 to 720 2,700 each (300 rows at each setting; rfft of 56 to 120 fewer), on "
            "one thread rfft of 32 and 64 7,800 and 8,400, irfft of 32 and 64 9,000 each, unscaled and by 1/N "
            "(on 2 and 4 threads DFTI's threaded path: refused), "
            "irfft of 48, 80, 96 and 160 36,000 each, rfft of 48, 80, 96 and 160 31,200, 33,600, 34,800 and "
            "36,000, all exact, 0 other; `Prime16` called "
            "directly on 3,000 zero-heavy transforms each way, `Prime8` as 480's plan calls it on 2,000 calls "
            "of 60 transforms each way and the backward recombination of 480 with its table on 3,000 rows: "
            "their bits)"
        ),
    ),
    (
        ("prelu",),
        (
            "`prelu_kernel` (Activation.cpp, `REGISTER_DISPATCH`: the AVX2 object at avx512), `cpu_kernel_vec`: "
            "vector `blendv(weight * input, input, input > 0)`, scalar `input > 0 ? input : weight * input`; backward"
            " `prelu_backward_kernel` (`cpu_kernel_multiple_outputs`, the basic loop): `input > 0 ? grad : weight * "
            "grad` and `input > 0 ? 0 : input * grad` of the broadcast shape (the weight's gradient is autograd's "
            "`sum` of it)" + _ITERATOR_LOOP
        ),
        (
            "none but NaNs: where input and weight are both NaN the default build and the AVX2 object's tails keep "
            "the input's NaN, the AVX2 object's vector body the weight's where it reads the weight as a scalar "
            "(broadcast along the inner dim, PReLU over H*W), so the level, the runs and the thread chunks place it; "
            "the backward's products keep the weight's (grad_input) and the input's (grad_weight) NaN everywhere "
            "(measured on a Zen 5: 320 random traced programs per level at default, avx2 and avx512 on 1, 2 and 4 "
            "threads, 1 and many channels, channels-last, past the grain, NaNs of several payloads in input and "
            "weight: 80 forwards and 80 backwards exact per level, 0 refused, 0 other)"
        ),
    ),
    (
        ("cdist",),
        (
            "`cdist_kernel_impl` (DistanceOpsKernel.cpp, `REGISTER_DISPATCH`: the AVX2 object at avx512), "
            "`run_parallel_cdist`: per output `agg = red(agg, map(|a - b|))` over the columns in order (p = 0, 1, 2, "
            "inf; any other p sums glibc's `powf(|a - b|, p)` (csrc/vmath.h `glibc_powf`) and finishes with "
            "`std::pow(agg, 1.0 / p)`, glibc's double pow rounded to float, as the `pow` row's scalar tail); "
            "`_euclidean_dist` (Distance.cpp, p = 2 "
            "past 25 rows or compute mode 1, one traced op): `x.pow(2).sum(-1)`, `cat`, `mm` / `bmm` by the transpose, "
            "`clamp_min_(0)`, `sqrt_`, each by its own row's model; `cdist_backward_kernel_impl`: per column lane, "
            "`res = +0 + sum over x2's rows` of `grad * sign(d)` (p = 1), `(grad * d) / dist` (p = 2), `grad * "
            "sign(d) * (1 - min(1, ceil(||d| - dist|)))` (inf), `((sign(d) * pow(|d|, p - 1)) * grad) / "
            "pow(dist, p - 1)` (p < 2, 0 where d = 0 and p < 1), `((d * pow(|d|, p - 2)) * grad) / pow(dist, p - 1)` "
            "(p > 2), Vectorized pow (SLEEF's `powf` in the AVX2 object, glibc's per lane at default), 0 where dist "
            "= 0"
        ),
        (
            "p = 2 of its own kernel: the AVX2 object (avx2, avx512) rounds the squares of blocks of 8 and 4 and "
            "contracts the last m % 4 (`fmaf(d, d, agg)`), the default object rounds every square (900 of 900 random "
            "pairs exact per level); `_euclidean_dist`: as `sum` and `matmul` (MKL's path, the CPU, the threads); the"
            " backward and p = 0, 1, inf: nothing; not the thread count (outputs and column lanes each on their own);"
            " the backward's NaNs: `sign` of a NaN and `min(1, NaN)` are the all-ones NaN in the AVX2 object, the NaN"
            " itself at default. Refused: NaN sums meeting NaN terms of other bits, the backward's other p "
            "(Vectorized pow) and its NaNs of two kinds meeting. Measured on a Zen 5, 320 random traced programs per "
            "level at default, avx2 and avx512 on 1, 2 and 4 threads (m off 8 and 16 lanes, rows below and above 25, "
            "batched, broadcast, transposed, p = 2, 1, inf, 0, 3, NaN / inf / -0 / denormals): `_cdist_forward` 58 "
            "exact, 6 refused; `_euclidean_dist` 79 exact, 17 refused (the sgemm model's NaN kinds); "
            "`_cdist_backward` 91 exact, 37 refused (18 p = 3, 19 NaNs of two kinds) at avx2 and avx512, 89 and 39 at"
            " default; 0 other"
            "; once another p was refused in the forward (glibc's powf and double pow, not in the impl), 160 random "
            "cdist programs per level at default, avx2 and avx512 on 1, 2 and 4 threads: `_cdist_forward` 102 exact, "
            "34 refused (23 p = 3, 11 NaN sums), 0 other; any p since (glibc powf ported: bit for bit with this "
            "host's libm on 300 million random pairs and every x >= 0 for y = 0.75, 1.5, 3 and -0.25; the finish "
            "refused where glibc's pow bound does not prove the float, never "
            "met; on x86 since glibc's double pow itself, `csrc/dmath.h` `glibc_pow_d`: the `pow` row), 160 random "
            "programs per level of other p (0.1 to 12, m off 8 and 16 lanes, batched, "
            "broadcast, NaNs of both signs, quiet and signalling, infinities, -0, subnormals, zero distances) at "
            "default, avx2 and avx512 on 1, 2 and 4 threads: `_cdist_forward` 137 exact, 23 refused (NaN sums); "
            "`_cdist_backward` 127 exact and 33 refused at default, 128 and 32 at avx2 and avx512 (NaNs of other "
            "bits meeting); 0 other"
        ),
    ),
)

# index accumulation and im2col/col2im on Linux arm64 (tests/test_impl_arm64_scatter.py)
ARM64_INDEXING = (
    "nothing: the x86 bits on N1, V1 and V2 at 1 and 2 threads (measured under emulation); the same"
    " refusals (amax/amin of NaN or -0.0, index_put's racing threads)"
)

# Linux arm64 (the aarch64 wheel on Neoverse N1 = NEON, V2 = SVE128, V1 = SVE256), per row of ROWS
# (keyed by its first op): what makes the bits differ from x86, and between the three cores
# The x86-only replays measured under emulation (tests/arm64_pointwise_cases.py: seeded random draws, every third
# with NaNs of both signs and payloads, infinities, signed zeros and subnormals; N1, V2 and V1 at 1, 2 and 4
# threads; counts per core over the three thread counts, the same on each core)
_EMU = "measured under emulation on N1, V2 and V1 at 1, 2 and 4 threads, per core"
EMU_MISH = f"{_EMU}: mish 54 of 54 and mish_backward 57 of 57 exact, 0 other"
EMU_ATAN2 = f"{_EMU}: 54 of 54 exact, 0 other"
EMU_LAYOUTS = (
    f"{_EMU}: 30 random cases per op of pow.Scalar, pow.Tensor_Tensor, atan2 and sqrt, contiguous, transposed,"
    " sliced, every other element and broadcast, off the 4- and 8-lane blocks and past the 32,768-element grain,"
    " with +-0, subnormals, infinities and NaN payloads: 30 of 30 exact each, 0 refused, 0 other"
)
EMU_LERP = (
    f"{_EMU}: lerp by a number 48 and by a tensor 48 exact (6 refused each), addcmul 45 (9 refused), addcdiv 48 (6"
    " refused), 0 other"
)
EMU_SMOOTH = (
    f"{_EMU}: smooth_l1_loss 42 exact and 12 refused, huber_loss 39 and 15 (reductions none, mean, sum), 0 other"
)
EMU_EXP = f"{_EMU}: 54 of 54 draws exact, 0 other"
EMU_SINC = f"{_EMU}: 54 of 54 exact (|x| up to about 150), 0 other"
EMU_PRELU = f"{_EMU}: the kernel 54 of 54 exact, the backward 48 exact and 6 refused, 0 other"
EMU_CDIST = f"{_EMU}: forward 42 exact and 12 refused (p = 0, 1, 2, inf in turn), backward 36 and 18, 0 other"
EMU_CTC = f"{_EMU}: `_ctc_loss` 54 of 54 exact, its backward 54 of 54 (+-inf log-probabilities, NaN results), 0 other"
EMU_ERFINV = f"{_EMU}: 54 of 54 random cases exact (lengths off the vectors and past the grain), 0 other"
EMU_ATANH = f"{_EMU}: 54 of 54 exact (contiguous and strided, NaN payloads, ±1, past 1), 0 other"
EMU_KAISER = f"{_EMU}: 54 of 54 windows exact (lengths to 70,000, beta 0 to 200), 0 other"
EMU_POLAR = f"{_EMU}: 54 of 54 exact (NaN payloads in both operands, angles to 1e5), 0 other"
EMU_SMOOTH_BW = f"{_EMU}: smooth_l1_loss_backward 51 exact and 3 refused, huber_loss_backward 51 and 3, 0 other"
EMU_PAD = f"{_EMU}: padding backwards 39 exact and 15 refused, unfold_backward 51 and 3, 0 other"
EMU_ERF = (
    f"{_EMU}: 72 of 72 random cases exact (contiguous, strided, transposed; lengths off the vectors and past the "
    "grains), 0 other"
)
EMU_LOG2_ACOS = f"{_EMU}: log2 72 of 72 and acos 72 of 72 random cases exact, 0 other"
EMU_CDIST_P = "the backward of other p (0.5, 1.5, 3, 0.25 in turn) 57 exact and 15 refused (NaN results), 0 other"
EMU_CDIST_NAN = (
    "NaN operands (measured under emulation on N1, V2 and V1 at 1 and 2 threads, per core): 48 of 48 random "
    "cdists exact (NaNs of 8 payloads, both signs, quiet and signalling, at a fifth of the places, infinities, "
    "-0, subnormals; p = 0, 1, 2, inf, 1.5, 3; m 1 to 33), 0 refused, 0 other; the 18 pointwise cases 18 exact "
    "(4 refused before), their backward 15 exact and 3 refused (5 before, p = 2's NaNs), 0 other; 48 random "
    "p = 2 backwards of those operands with a gradient of NaNs and infinities at 1, 2 and 4 threads: 48 exact, "
    "0 refused, 0 other; 48 random backwards each of p = 1, inf, 1.5 and 3 of those operands and gradients at 1 "
    "and 2 threads: 48 exact, 0 refused, 0 other (refused before); the 18 pointwise backwards 18 exact (3 refused "
    "before), the 24 vml backwards of p = 0.5, 1.5, 3 and 0.25 at 1, 2 and 4 threads 24 exact (5 refused before)"
)
EMU_HANN = f"{_EMU}: 72 of 72 windows exact (lengths 0 to 70,000, periodic or not), 0 other"
EMU_NLL = f"{_EMU}: `nll_loss2d` (weighted or not, none / mean / sum) and its backward 54 of 54 exact each, 0 other"

ARM64: dict[str, str] = {
    "prelu": (
        "finite results as x86 (one product); FMUL `weight * input`'s NaN (a signalling operand first, then the"
        " weight's; inf * 0 `+qNaN`) in the vector body and tail alike; the backward as x86 with aarch64's NaN"
        " rule (two NaNs of other payloads refused); " + EMU_PRELU
    ),
    "cdist": (
        "p = 0, 1, inf of its own kernel as x86 (nothing to contract); p = 2 (disassembled): N1's DEFAULT object as "
        "the AVX2 one (NEON blocks of 4 squares added in order, the last m % 4 `fmadd`), V2's and V1's SVE objects "
        "square whole predicated vectors and add them with FADDA in order (nothing fused); other p as x86 (aarch64 "
        "glibc's powf per term gives the x86 FMA build's bits, the finish glibc's pow: 48 of 48 random cdists of p = "
        "0.5, 1.5, 3, 0.25 exact on each core at one thread, 0 other); the backward of p = 1, 2, inf as x86, of "
        "other p as x86's AVX2 object (Vectorized pow: SLEEF's advsimd/SVE `powf`, the AVX2 bits; nothing to "
        "contract); the forward's NaNs (disassembled): x1 - x2 is FABD x1, x2 (p = 2: FSUB), a signalling operand "
        "first, inf - inf +qNaN; where two NaNs meet the sum keeps its first operand's (FADDA's accumulator on V1 "
        "and V2, the scalar FADD, p = 2's FMADD addend), but N1's NEON blocks of 4 add lanes 1 and 2 term first "
        "(p = 1, 2, and p = 0 in cdist_kernel_impl's own loop; p = 0's NaNs in the OpenMP body, past the grain at "
        "2 or more threads, refused); the backward's NaNs at p = 2 (read in the three objects, inline and OpenMP "
        "copies alike): `fsub x1, x2`, `fmul diff, grad` (V1's SVE256: `fmul grad, diff`), `fdiv` by dist (0: the "
        "term 0), `fadd res, term`, FPProcessNaNs in those orders; of p = 1 and inf (read likewise): Dist::sign "
        "`frintp`/`frintm`, `fmax`/`fmin`, `fadd` (NaN: the difference's, quieted), p = 1 `fmla res, grad, sign` "
        "(V1: `fmul grad, sign`, `fadd res, t`), inf `fmul sign, grad` (V1: `fmul grad, sign`) times 1 - min(1, "
        "`frintp` of `fabd |diff|, dist`, its NaN's sign cleared) by `fmla` (V1: `fmul`, `fadd`), FMLA's quiet NaN "
        "sum with 0 * inf the default NaN; of p < 2 and p > 2 (read likewise): dist == 0 a scalar branch to res + "
        "0, SLEEF's powf (a NaN operand the all-ones NaN) of |diff| and dist, `fmul pow, sign` (V1: `fmul sign, "
        "pow`) or `fmul diff, pow`, `fmul t, grad`, `fdiv` by pow(dist, p - 1), p < 1's zeros where diff == 0, "
        "`fadd res, term`; "
        "`_euclidean_dist` as the `sum` and "
        "`matmul` rows (its other steps are exact operations); " + EMU_CDIST + "; " + EMU_CDIST_P + "; " + EMU_CDIST_NAN
    ),
    "randn": (
        "one scalar fill on every core with aarch64 glibc `logf`/`sincosf` and a fused `radius*cos*std + mean`:"
        " other normals than x86 avx2 or baseline, the same on N1, V1 and V2; a `*_like` of a permuted layout's"
        " serial draws the x86 bits (6 recorded digests of 10 to 8,320 elements equal on emulated N1, V1, V2)"
    ),
    "embedding": "nothing: identical everywhere",
    "add": (
        "nothing, but a NaN an invalid operation creates is aarch64's `+qNaN` (x86: `-qNaN`); complex `mul`: each "
        "element fuses one product of each part, which one by its place in ATen's vector body (groups of 4 on "
        "N1's NEON and V2's SVE128 objects, 8 on V1's SVE256) and scalar tail (`nn._ARM_COMPLEX_FUSED`); V2's "
        "tails of a loop without a broadcast scalar and ATen's basic loop refused; measured under emulation: "
        "114 random cases per core on 1, 2 and 4 threads, 0 other (N1 and V1 94 exact, V2 58; NaN operands and "
        "V2's tails refused)"
    ),
    "exp": (
        "no MKL: SLEEF `expf4_u10`/`logf4_u10`/`tanhf4_u10` (SVE256: its SVE forms, and tanh ATen's own FEXPA"
        " form) instead of MKL VML; tanh backward unfused in V1's vector body; `logit` takes ATen's vectorized"
        " loop at every layout: SLEEF's `logf4_u10` (V1 `logfx_u10sve`) in the vector body (4 lanes, V1 8) and"
        " glibc's `logf` in the tail and basic loop, FMAX/FMIN's clamp (a NaN eps makes every vector lane SLEEF's"
        " NaN), inf / -inf and a negative ratio in the tail aarch64's +qNaN; measured under emulation: 54 random"
        " cases (tests/logit_strided_cases.py) on N1, V2 and V1 at 1, 2 and 4 threads: 54 exact, 0 other each"
    ),
    "rsqrt": "nothing: two correctly rounded operations",
    "linear": (
        "no MKL: NVPL `sgemm` (K blocks of 640; dot and gemv forms for M = 1 or N = 1) or, for a column-major"
        " weight with M, K, N > 8, oneDNN's ACL gemm (a fused chain from the bias, or, where ACL's cycle estimate"
        " picks its interleaved kernel, chains from 0 per K block added to the bias: the pick differs between N1"
        " and V1/V2); bmm takes ACL only on cores with BF16 (V1, V2), not N1; an output of no elements and K = 0"
        " as on x86, ATen's own code, no BLAS call (addmm_impl_cpu_ and bmm_out_or_baddbmm_: K = 0's `self * beta`"
        " for any beta and alpha, FMUL quiets a signalling NaN as MULSS does); ATen's small bmm loop (K*M*N <"
        " 400) as the wheel's bmm_out_or_baddbmm_ runs it inline (read): a's and b's k strides 1 the loop over k"
        " in vectors (`fmul b * a`, lanes added `acc + p0`, `p1 + acc`, `p2 + acc`, `acc + p3` in bmm's copy,"
        " each `acc + p` in baddbmm's), the K % 4 left and every other layout fused, NaNs by FPProcessNaNs in"
        " those orders (the fused steps addend, a, b: measured; the third of the K % 4 left after the vectors"
        " addend, b, a), baddbmm's store `fmadd(beta, self, alpha * acc)` (any beta and alpha there); more items"
        " than parallel_for's grain on 2 or more threads run the OpenMP body's copies (read: both add the lanes as"
        " bmm's inline copy, every K % 4 step left addend, b, a; the scalar loop and the store as inline):"
        " measured under emulation on N1, V1 and V2 at 1, 2 and 4 threads, 16 random bmm and 16 baddbmm of 173 to"
        " 3,713 items past the grain (NaNs of several kinds, K of every remainder mod 4, b transposed or not): 96"
        " and 96 exact a core, 0 refused, 0 other (the OpenMP copies' mixed NaNs were refused); measured under"
        " emulation on N1, V1"
        " and V2 at 1, 2 and 4 threads, 60 random products per op (M, N or K 0 in 40%, one-item batches, ATen's"
        " loop with NaNs of several kinds meeting, transposed operands, beta 1, 0, 0.5, -2, alpha 1, 0.5, 0.125):"
        " per core and thread count mm 37 exact, 23 refused (NVPL's NaN mixes), addmm 21 and 39 (beta or alpha"
        " not 1 past K = 0, NaN mixes), bmm 52 and 8, baddbmm 46 and 14 (NVPL's beta, NaN mixes), 0 other"
        " (before: addmm 6 exact, bmm 36, baddbmm 4, the rest refused)"
    ),
    "layer_norm": (
        "4 lanes (N1, V2) vs 8 (V1); NEON-typed vector code contracted by GCC, V1's SVE intrinsics not; the"
        " scalar Welford tail contracted on every core"
    ),
    "gelu": (
        "N1: ACL's NEON GELU (an erf table, libm `erff` for left-overs, its own thread windows), backward"
        " oneDNN's reference kernel; V1, V2: oneDNN `jit:sve` with the FEXPA exp; `gelu(-inf)` (`-inf * 0`) is"
        " `+qNaN` (gelu and gelu_tanh, traced random programs on emulated N1 and V2)"
    ),
    "gelu_tanh": (
        "forward oneDNN `jit:asimd` (N1) or `jit:sve` (V1, V2), each with its own exp and small-argument"
        " branch; backward SLEEF tanh, V1 with ATen's SVE tanh and an unfused vector body"
    ),
    "softmax": (
        "4 lanes (N1, V2) vs 8 (V1) and their sum trees; contraction in NEON-typed objects only; `x - max` of"
        " an infinite row gives `+qNaN`; over a dim other than the last 4 (N1, V2) or 8 (V1) columns a vector"
        " with SLEEF's expf, the scalar columns aarch64 expf (the thread count moves them), `+qNaN` likewise;"
        " its backward's `sum += g*y` fused in the NEON-typed objects and in scalar columns, not in V1's vectors;"
        " log_softmax of NaN inputs: a line's max is a NaN, so `x - max` is NaN throughout and `(x - max) - log`"
        " keeps it (FSUB's first operand): each element its own NaN quieted, else the max's; the last dim's max as"
        " reduce_all(vec::maximum) runs (read: N1's and V2's NEON FMAX(acc, v), the partial vector's lanes, then"
        " lane 0 = FMAX(FMAX(a0, a2), FMAX(a1, a3)); V1's SVE256 tbl tree i^4, i^2, i^1, its partial vector"
        " FMAX(v, acc), rows under 8 folding x[1] (and x[6] of 7) as FMAX(x, acc)); another dim (ATen's column"
        " kernel, read in the DEFAULT object: `fcmgt`/`bsl` and `fcmpe` maxima that never take a NaN, SLEEF's"
        " expf in the vector columns and aarch64 expf in the scalar ones, SLEEF's logf over the chunk, whose NaN"
        " is +qNaN for any NaN sum): each NaN its own quieted, the rest of a column meeting one +qNaN, an"
        " infinite max's `x - max` +qNaN; measured under emulation on N1, V2 and V1 at 1, 2 and 4 threads, 48"
        " random log_softmax a core and thread count (NaNs of 1 to 7 payloads, both signs, quiet and signalling,"
        " beside infinities): 432 exact, 0 refused, 0 other (288 and 144 refused before: other dims), and 48 over"
        " other dims (finite, infinities, -inf columns, NaNs of 1 to 7 payloads; up to 9,000 columns, chunks of"
        " 128 KiB / D / 4): 432 exact, 0 other; its backward over other dims (read in the DEFAULT, SVE128 and"
        " SVE256 objects, inline and in the OpenMP body parallel_for runs at 2+ threads over 2+ blocks): `sum + g`"
        " (`g + sum` in N1's and V2's vector columns and V1's inline scalar ones), SLEEF's expf in the vector"
        " columns and aarch64 expf in the scalar ones, `g - exp(y) * sum` by `fmls` (the sum negated, N1, V2),"
        " V1's unfused `fmul`/`fsub`, the scalar columns' `fmsub` (exp negated), NaNs by FPProcessNaNs in those"
        " orders; measured under emulation on N1, V2 and V1 at 1, 2 and 4 threads, 48 random backwards a core and"
        " thread count (NaNs of 1 to 7 payloads, both signs, quiet and signalling, in the output and the gradient,"
        " infinities, subnormals, -0, 0 * inf; up to 9,000 columns, several chunks or one): 432 exact, 0 refused,"
        " 0 other (refused before); softmax with NaN inputs refused"
    ),
    "cross_entropy": (
        "as `log_softmax`; `0/0` of an all-ignored batch is `+qNaN`; `nll_loss2d`: mean, sum and none as x86 but the"
        " class-weighted sums, whose `loss - x*w` GCC fuses into one fmsub; non-finite values refused; " + EMU_NLL
    ),
    "sdpa": (
        "NVPL gemms per block; `exp_u20` is Arm Optimized Routines' expf on N1 and ATen's FEXPA form on V1/V2"
        " (SLEEF for a vector with a masked lane); 4 vs 8 lanes; dsum fused on N1 and V2, not V1"
    ),
    "sdpa_dropout": "as `softmax` and `matmul` (ACL `bmm` on V1, V2)",
    "dropout": "nothing: identical everywhere",
    "sum": (
        "finite bits as x86 (thread dependence only); NaNs (a signalling operand first, quieted, else FADD's first "
        "operand's; inf - inf `+qNaN`): a contiguous reduced run (vectorized_inner_sum) accumulator first in its "
        "blocks, levels and partials, the vector's lanes added onto the scalar tail's sum lane first; the outer and "
        "strided loops' FADD operand orders (commuted block by block by GCC's register allocation) not modelled: "
        "where two NaNs whose pick depends on it meet there, refused, as a signalling NaN beside NaNs of other "
        "patterns (where it is quieted decides: a traced mean on V1 at 2 threads kept the quiet one where the "
        "modelled order gives the signalling one's); measured under emulation on N1, V2 and V1 at "
        "1, 2 and 4 threads, 48 random sums and 48 means a core and thread count (NaNs of 1 to 7 payloads, both "
        "signs, quiet and signalling, beside infinities, subnormals, -0; transposed views; 70,001-element full "
        "and 3 x 40,003 reductions): sum 225 exact, 207 refused, mean 207 exact, 225 refused, 0 other"
    ),
    "var": "nothing beyond x86's thread dependence; a `0/0` is `+qNaN`",
    "logsumexp": (
        "the `exp` row's SLEEF expf and logf (N1 and V2 alike, V1's SVE256 its own) and the `sum` row's thread"
        " split: exact on emulated N1, V1, V2 at 1 and 2 threads"
    ),
    "vector_norm": (
        "4 or 8 lanes; N1, V2 fuse the vector body, V1 does not; N1's tail fused, the SVE cores' tail an"
        " in-order reduction of rounded squares; other reductions contracted on every core; the 1-norm as x86 (no"
        " multiply to fuse): the 27 recorded digests of its test (1, 2 and 4 threads) equal on emulated N1, V1, V2;"
        " NaNs (read in the three objects): the body's FMLA keeps a signalling square's NaN, else the accumulator's"
        " (FPProcessNaNs3, addend first), V1's `fadd z1, z1, z0` the accumulator's, the lanes combined `lane1 +"
        " lane0` then `+ lane2`, ..., the tails' FMADD and FADDA the sum's first; the 1-norm's `acc + |x|`"
        " accumulator first (a signalling |x| before it); measured under emulation on N1, V2 and V1 at 1, 2 and 4"
        " threads, 48 random 2-norms and 48 1-norms a core and thread count (NaNs of 1 to 7 payloads, both signs,"
        " quiet and signalling, beside infinities): 432 and 432 exact, 0 refused, 0 other"
    ),
    "clip_grad_norm": "as `vector_norm`",
    "adamw_step": (
        "IEEE `sqrt` of float32 and float64 (no MKL VML), element-wise, so torch.sqrt of any layout (a transposed"
        " view too) gives each element's own bits; `addcmul_` contracted on N1 and V2 but not in V1's vector body;"
        " `lerp_` fused everywhere; " + EMU_LAYOUTS
    ),
    "uniform": "the multiply-add fused (GCC contracts on aarch64): the avx2 bits, the same on N1, V1 and V2",
    "arange": (
        "the vector lanes one float FMA of the lane index and the step rounded to float (NEON object: N1, V2) or V1's"
        " SVE256 base + j*step in double, contracted; lane 0 base + 0*step (a -0 base +0, x86's AVX2 object keeps "
        "-0); the chunks and tails as on x86; measured under emulation: 25 random aranges per core on 1, 2 and 4 "
        "threads (and 61 more on N1 and V1), 0 other; integers and float64 whole numbers as x86 (every value exact)"
    ),
    "smooth_l1_loss": (
        "the forward's elements and reductions as x86 but for FSUB's NaN (two of other payloads refused); the"
        " backward's vector body in blocks of two of the core's vectors (8 floats on N1 and V2, 16 on V1), its"
        " tails' scalar lambda as x86's but `norm * grad` kept as it is (no NaN grad's sign flipped), an invalid"
        " product +qNaN; NaNs in both self - target and grad refused (FMUL prefers a signalling grad); "
        + EMU_SMOOTH
        + "; "
        + EMU_SMOOTH_BW
    ),
    "exponential": "nothing: the same template and draws (aarch64 glibc's `log1p` rounds to the same floats); "
    + EMU_EXP,
    "sinc": (
        "aarch64 glibc's `sinf` (math_private.h's TOINT_INTRINSICS: the quadrant `lround(x * 2/pi)` and one fused"
        " reduction), an infinity's `+qNaN`; " + EMU_SINC
    ),
    "atanh": (
        "SLEEF's advsimd `Sleef_atanhf4_u10` (N1, V2) and SVE `Sleef_atanhfx_u10sve` (V1) in the vector lanes (the"
        " x86 FMA build's bits), aarch64 glibc's `atanhf` (over its contracted `log1pf`; past 1 +qNaN) in the tails"
        " and strided runs; " + EMU_ATANH
    ),
    "polar": (
        "aarch64 glibc's `sincosf` (its `sinf`'s TOINT_INTRINSICS reduction; an infinite angle +qNaN), then FMUL of"
        " abs by cos and by sin, abs the first operand (a signalling NaN first, else abs's NaN); " + EMU_POLAR
    ),
    "hann_window": (
        "the same steps over aarch64's `arange` (the `arange` row) and `cos_` (SLEEF's u10 `cosf` lanes: the `sin`/"
        "`cos` row, every angle below 125); " + EMU_HANN
    ),
    "kaiser_window": (
        "every aarch64 build (DEFAULT, SVE128, SVE256) contracts as x86's AVX2 object (1 - t*t, x/2 - 2 and each "
        "Chebyshev step fused), aarch64 glibc's `expf` (the same algorithm); i0(beta) past float's range inf/inf "
        "+qNaN; a beta not finite refused; " + EMU_KAISER
    ),
    "mse_loss": (
        "the elements one subtraction (FSUB's NaN, inf - inf +qNaN) and one product, the reduction the `sum` row's; "
        "measured under emulation with NaN results: 14 of 18 exact per core and thread count, 4 refused (NaNs of "
        "several patterns summed, as on x86), 0 other (a larger draw: 37 of 48, 11 refused, 0 other); "
        "mse_loss_backward's NaN results still refused (not measured)"
    ),
    "elu": (
        "the lambdas as on x86 with SLEEF's advsimd/SVE expm1f and expf in the vector body (4 lanes N1, V2; 8 V1) and"
        " aarch64 glibc's contracted expm1f (and expf) in the tails, every product FMUL's NaN (the first signalling "
        "operand quieted, else the first quiet one) in the source's order (with is_result grad's NaN before b's, "
        "where x86's FMA objects commute); measured under emulation: 19 elu and 19 elu_backward draws per core on 1, "
        "2 and 4 threads (a larger draw of 61 each too), 0 other, none refused"
    ),
    "hardswish": (
        "FMAX/FMIN vector lanes pass x's quieted NaN on (x86's AVX2 lanes give all ones), products FMUL's NaN; where "
        "grad and x are both NaN hardswish_backward's vector lane keeps x/3 + 0.5's on N1 and V2 (commuted, as on "
        "x86) and grad's on V1 (SVE256, ACLE svmul); 4 lanes (N1, V2) vs 8 (V1) move the tails; hardsigmoid and both "
        "backwards alike; measured under emulation: 18 or 19 draws of each of the four per core on 1, 2 and 4 threads"
        " (a larger draw of 60 each too), 0 other, none refused"
    ),
    "mish": (
        "vector lanes SLEEF's advsimd/SVE `expf`, `log1pf` and `tanhf` (V1: ATen's own FEXPA `tanh`), scalar tails"
        " aarch64 glibc's `expf`, contracted `log1pf` and `tanhf`; the backward's `1 - t*t` and `t + (x*s)*u` fused"
        " in the NEON-typed objects (N1, V2) and every tail, not in V1's vector body; a NaN x gives SLEEF tanhf's"
        " all-ones NaN in the NEON-typed backward lanes, an infinite x inf * 0's `+qNaN`; " + EMU_MISH
    ),
    "atan2": (
        "vector lanes SLEEF's advsimd/SVE `atan2f` (the x86 FMA bits), 4 lanes (N1, V2) or 8 (V1), so the tails"
        " fall elsewhere; the scalar tail and the basic loop (operands not unit-stride along TensorIterator's inner"
        " dim: a transposed self beside a sliced other) aarch64 glibc's `atan2f` over its contracted `atanf`"
        " (libm.so.6 disassembled: the Horner steps and s1 + s2 fused, x*(s1 + s2) rounded before the last"
        " subtractions; 0 of 9,000,000 random pairs, NaN pairs among them, differ from it under qemu-aarch64) and"
        " FADD's NaN; " + EMU_ATAN2 + "; any layout in TensorIterator's order (" + EMU_LAYOUTS + ")"
    ),
    "lerp": (
        "the adamw_step row's forms over TensorIterator's runs: `fmadd` fused everywhere, a NaN diff in the scalar"
        " `end - diff*(1 - w)` negated on N1 and V1; a tensor weight's tail is one fmsub negating `1 - w` on every"
        " core (a NaN weight sign-flipped); addcmul fused in the NEON-typed objects, not in V1's vector body;"
        " addcdiv's add keeps the quotient's NaN (self's in V1's body); two NaNs of other payloads refused as on"
        " x86; " + EMU_LERP
    ),
    "minimum": (
        "vector lanes FMAX/FMIN (a NaN operand's NaN by aarch64's rule, -0 below +0, so max(+0, -0) is +0 in the "
        "body), the scalar tails as on x86 (quiet_NaN() for a NaN, std::max's first operand); maximum, minimum and "
        "clamp by tensors in TensorIterator's runs; measured under emulation: 18 random draws of each per core on 1, "
        "2 and 4 threads (a larger draw of 60 each too), 0 other, none refused"
    ),
    "remainder": (
        "SLEEF's advsimd/SVE fmodf in the vector lanes (exact; its NaN lanes refused as on x86), aarch64 glibc 2.36's"
        " fmodf in the tails, whose NaN, infinite-a and zero-b answer is (a*b)/(a*b): FMUL's NaN, else +qNaN; "
        "measured under emulation: 19 fmod and 19 remainder random draws per core on 1, 2 and 4 threads, 0 other "
        "(fmod 6, remainder 4 refused on N1 and V2; 2 and 3 on V1; a larger draw of 61 each, 0 other)"
    ),
    "linspace": (
        "the AVX2 object's contracted arithmetic (fmaf(step, k, start), fmaf(-step, k, end)) on N1, V2 and V1; "
        "measured under emulation: 25 random linspaces per core on 1, 2 and 4 threads (and 61 more on N1 and V1), 0 "
        "other"
    ),
    "where": "nothing: identical everywhere",
    "silu": (
        "SLEEF exp in the vector body (4 lanes N1, V2; 8 V1), aarch64 `expf` in the tail; the backward's"
        " `1 + x*(1 - s)` contracted in the tail on every core and in the NEON-typed vector body (N1, V2),"
        " not in V1's SVE body"
    ),
    "softplus": (
        "SLEEF's advsimd/SVE expf and log1pf in the vector body (the x86 FMA bits), glibc's expf and aarch64's"
        " contracted log1pf in the scalar tails and strided loops"
    ),
    "log1p": "SLEEF's advsimd/SVE log1pf: the x86 avx2 bits on every core",
    "lgamma": (
        "SLEEF's advsimd/SVE lgammaf: the x86 avx2 bits on every core, but a NaN comes back with its sign"
        " flipped from the NEON objects (N1, V2)"
    ),
    "digamma": "not measured: refused",
    "sin": (
        "SLEEF's u10 sinf/cosf (`Sleef_sinf4_u10`/`cosf4_u10` in the NEON-typed objects of N1 and V2,"
        " `Sleef_sinfx_u10sve`/`cosfx_u10sve` in V1's SVE256 one), not MKL, through `vml.h`'s `vec::map` on each"
        " inner loop of UnaryOpsKernel's vml lambda (grain 2048, a strided operand buffered 2,048 at a time): vectors"
        " of 4 lanes (N1, V2) or 8 (V1) from the start of each thread's chunk and row, the partial last one"
        " zero-filled. A vector whose lanes all have |x| < 125 takes the Cody-Waite branch (N = rint(x/pi), x - N*pi"
        " a double-float of three float parts, the polynomial in float then double-float, fused as SLEEF's FMA"
        " builds); any other vector the Payne-Hanek branch on every lane, its small lanes too (`rempif`: the row of"
        " 1/(2*pi)'s digits for ilogb(x) - 25 from `Sleef_rempitabsp`, generated from the digits and equal to the"
        " wheel's; two exact products each less its nearest quarter turn, a third, normalized, times 2*pi; a"
        " quarter turn added for odd (sin) or even (cos) counts, then the same polynomial); an infinity or a NaN"
        " gives 0xffffffff, sin's -0 kept; nothing refused. Measured under emulation on N1, V2 and V1 at 1, 2 and"
        " 4 threads (36 random cases per op: 1 to 100 and 2,047 to 70,000 elements, strided and transposed, +-0,"
        " subnormals, NaN payloads of both signs, signalling ones, infinities; 15 sin and 16 cos cases reaching the"
        " Payne-Hanek branch: rotary angles, bit patterns over all finite floats, magnitudes to 2^40, small values"
        " with one in sixteen large): per core and thread count 36 of 36 cases exact per op, 0 other (sin 152,790"
        " and cos 251,439 elements), cos's bits (and V1's sin's) differing by thread count (chunks off the"
        " vectors), as modelled;"
        " a per-element branch would give 16 sin and 307 cos of those elements other bits on N1 (20 and 356 on V1),"
        " V1's recording modelled with 4 lanes 4 and 49; every 61st float"
        " of [125, inf) of both signs (33,292,288 per op) and every 61st below 125 with every fourth element"
        " large (36,841,976 per op; of their small lanes 11,498 sin and 137,490 cos bits differ from the Cody-Waite"
        " branch's), on each core at one thread: 0 other; every 499th float below 125 (Cody-Waite vectors) on V2 and"
        " V1, every 61st and 1,000,000 random ones on N1: 0 other; float64: SLEEF's `Sleef_sind2_u10`/`cosd2_u10`"
        " (V1: `sindx_u10sve`/`cosdx_u10sve`, the same bits) over the same `vec::map` vectors, of 2 doubles (N1,"
        " V2) or 4 (V1), ported as `csrc/dmath.h` `sleef_sincos_d_u1`: a vector whose lanes all have |x| < 15 takes"
        " the first Cody-Waite branch (q = rint(x/pi), x - q*pi with pi in two parts as a double-double; cos q ="
        " 2*rint(x/pi - 1/2) + 1 and pi/2), any other the second (pi in four parts, the quotient split at 2^24),"
        " then the double-double polynomial and the sign by q; a vector holding |x| >= 1e14, an infinity or a NaN"
        " (SLEEF's double Payne-Hanek branch, not ported) refused. Measured under emulation: 1,200,000 doubles per"
        " core and op at one thread (|x| < 15, position angles to 1e4, magnitudes to 1e13 with a quarter below 15,"
        " bit patterns below 1e14) equal, 0 of 7,200,000 differ; 30 random cases per core and thread count (1, 2,"
        " 4) among the pow cases' 150, sizes off the lanes and the grain, strided and transposed, NaN payloads and"
        " infinities among them: 135 exact, 135 refused (their NaN or infinity), 0 other"
    ),
    "erf": (
        "no MKL: vml.h's `verf` is `vec::map` of Vectorized<float>::erf over each run of ATen's loop (a strided run "
        "through 2,048-element buffers), every element a lane; N1's and V2's NEON objects (disassembled) ATen's A&S "
        "7.1.26 (`1/(1 + p|x|)` and the Horner steps fused) over its exp_u20, a 4-lane vector holding |x| past "
        "9.3454 (x*x above 0x1.5d5e2ap+6) taking SLEEF's `expf` on every lane (vectors from each thread's chunk of "
        "`for_each`, grain 2,048, and each run); V1's SVE256 object SLEEF's `erff` (u10) per lane; a NaN quieted "
        "(N1, V2), quieted with its sign flipped (V1); every 509th bit pattern and 35 specials (8,438,085 inputs) "
        "on N1 and V1 and 36 random mixes of |x| past 9.35 at 1, 2 and 4 threads (308,052 elements): 0 other; "
        + EMU_ERF
    ),
    "erfinv": (
        "no MKL: ATen's scalar `calc_erfinv` (Math.h) on every element (vml.h's `verfinv` maps "
        "`Vectorized<float>::erfinv`, a `map` of it), as GCC builds it (each Horner step of both rationals one "
        "`fmadd`), over aarch64 glibc's `logf`, `erff` (contracted) and `expf`; |y| > 1 +qNaN, ±1 ±inf, a NaN "
        "quieted; measured under emulation: 1,441,813 of 1,441,813 sampled inputs (every magnitude of (-1, 1), "
        "2^16 ULPs next to ±1, NaN payloads, infinities, subnormals) exact on each of N1, V2 and V1; " + EMU_ERFINV
    ),
    "log2": (
        "no MKL: `vec::map` of SLEEF's `log2f` (u10: Sleef_log2f4_u10 on N1 and V2, Sleef_log2fx_u10sve on V1; "
        "disassembled), every element a lane, the same steps on every core (double-float (m - 1)/(m + 1), a fused "
        "quadratic); negatives and NaNs SLEEF's +qNaN whatever the payload, +-0 -inf; every 509th bit pattern and "
        "35 specials (8,438,085 inputs) on N1 and V1: 0 other; " + EMU_LOG2_ACOS
    ),
    "acos": (
        "no MKL: `vec::map` of SLEEF's `acosf` (u10: Sleef_acosf4_u10 on N1 and V2, Sleef_acosfx_u10sve on V1), "
        "every element a lane (|x| < 1/2 pi/2 - (x + x^3 P(x^2)), else 2 (sqrt((1 - |x|)/2) + ...) in double-float, "
        "from pi for x < 0); |x| > 1 FSQRT's +qNaN, a NaN quieted with its sign cleared; every 509th bit pattern "
        "and 35 specials (8,438,085 inputs) on N1 and V1: 0 other; " + EMU_LOG2_ACOS
    ),
    "expm1": "SLEEF's advsimd/SVE expm1f: the x86 avx2 bits on every core, NaNs included",
    "sigmoid": (
        "SLEEF exp in the vector body (4 lanes N1, V2; 8 V1), aarch64 `expf` in the tail: x86 AVX2's"
        " arithmetic with another split; the backward nothing"
    ),
    "batch_norm": (
        "4 lanes (N1, V2) vs 8 (V1) and their sum trees; NEON-typed vector code contracted everywhere (the"
        " output, the backward's sums in every vector, `dy - grad_mean - dx` in the partial last vector too),"
        " V1's SVE intrinsics never; the running mean contracted on every core (Normalization.cpp)"
        "; the TensorIterator path (layouts neither contiguous nor channels-last): Normalization.cpp's object "
        "contracted (the double sums of squares and running averages, the output's `fma((x - mean) * invstd, w, "
        "b)`; not the backward's), aarch64's default NaN; measured under emulation: 64 training, 34 eval and 64 "
        "backward random draws per core on 1, 2 and 4 threads, 0 other (19, 0 and 23 refused); an operand NaN "
        "0xffc00000 refused"
    ),
    "max_pool2d": "nothing: identical everywhere",
    "adaptive_avg_pool2d": "4 lanes (N1, V2) vs 8 (V1): where the channels-last vector body ends; nothing else",
    "avg_pool2d": "nothing: the x86 bits on every core and thread count (sums and one division, nothing to contract)",
    "upsample_nearest2d": (
        "the x86 AVX2 bits on every core: nearest-exact's generic source contracted to `fma(scale, i + 0.5, -0.5)`"
        " on N1, V1 and V2 alike; not the thread count"
    ),
    "cumsum": (
        "finite bits identical everywhere; NaNs read in the three objects (`fcvt d1, s1` quiets a signalling term,"
        " `fadd d0, d0, d1` keeps the accumulator's, `fcvt s1, d0`): from a line's first NaN running sum on, every"
        " one is that NaN, its term's quieted or, where the term is no NaN (inf + -inf), `+qNaN`; measured under"
        " emulation on N1, V2 and V1 at 1, 2 and 4 threads: 48 random cumsums a core and thread count (NaNs of 1"
        " to 7 payloads, both signs, quiet and signalling, beside infinities), 432 exact, 0 other"
    ),
    "max": (
        "the selections and scans as on x86 (max/min over a dim with indices, amax/amin over the last dim: 18 of 18 "
        "random draws with NaNs exact per core and thread count); full max/min's vector lanes FMAX/FMIN pass a NaN "
        "on, so NaNs of one pattern give it quieted (0x7fc00000 across chunks at 2+ threads, as on x86) and several "
        "patterns in one chunk are refused: 12 of 18 exact at 1 thread, 15 at 2 and 4, 0 other (a larger draw of 48 "
        "per op on N1 and V1: max 34/42/42 and min 31/39/39 of 48 exact at 1/2/4 threads, 0 other)"
    ),
    "topk": (
        "nothing: selections by libstdc++'s algorithms, as on x86 (measured under emulation with NaNs of several "
        "patterns: sort 18 of 18, topk 17 of 18 exact, 1 tie on `partial_sort` refused then: its heap replayed "
        "since, 18 of 18 exact on emulated N1 at 1 thread, 0 other; topk's `nth_element` path, sorted or not, "
        "with ties and NaNs on emulated N1, V2 and V1 at 1, 2 and 4 threads: 117 of 117 exact on each)"
    ),
    "histc": "nothing: float32 bin arithmetic without a contraction, as on x86 (not measured on arm64)",
    "ctc_loss": (
        "nothing: aarch64 glibc's `expf` and `logf` give the x86 FMA builds' bits; NaN results made of infinities"
        " alone x86's with the sign flipped (`nans.made_nans`: +qNaN the default NaN they descend from, two meeting"
        " pass the first on as on x86), NaN operands with NaN results refused; " + EMU_CTC
    ),
    "_to_copy": (
        "finite float32 values and the pairs without a reduced float as x86; a NaN cast to or from float16 or "
        "bfloat16 and a float64 cast to either not modelled: refused (c10's aarch64 conversions and NEON's "
        "`fcvt` not measured)"
    ),
    "pow": (
        "nothing for the listed exponents; for the others the vector lanes are SLEEF's advsimd (N1, V2) and SVE"
        " (V1) `powf`, the AVX2 object's bits, in blocks of 2x4 (N1, V2) or 2x8 (V1) lanes, so the tails fall"
        " elsewhere than on x86 and on V1 elsewhere than on N1 and V2; each tail aarch64 glibc's double `pow`"
        " (not glibc_pow_d: the aarch64 build's contractions not read; the float nearest |x|**y to 60 digits where"
        " glibc's 1-ULP bound proves the rounding, or a power exactly a double, else refused), whose invalid answer"
        " is +qNaN `0x7fc00000`, not x86's `0xffc00000`; `pow.Scalar` and"
        " `pow.Tensor_Tensor` (Llama's rotary `base ** (arange / dim)`): the same lanes, each tail aarch64 glibc's"
        " `powf` (libm.so.6 disassembled: TOINT_INTRINSICS, the log2 tables and thresholds scaled by 32, which"
        " gives the x86 FMA build's bits, k rounded by FRINTA, ties away, where x86's shift ties to even: no bit"
        " moved over 215,040 tied powers of two; FADD's NaNs, +qNaN for a negative base to a fractional power;"
        " 0 of 9,000,000 random pairs, NaN pairs among them, differ from it under qemu-aarch64); "
        + EMU_LAYOUTS
        + "; float64 pow (`pow.Scalar`, `pow.Tensor_Tensor`, `pow.Tensor_Scalar` of an exponent without a special"
        " case, and mixed dtypes whose common dtype is float64): the vector lanes SLEEF's `Sleef_powd2_u10` (N1, V2:"
        " blocks of 4) or `Sleef_powdx_u10sve` (V1: blocks of 8), the x86 avx2 object's bits (`sleef_pow_d`), each"
        " tail aarch64 glibc's double pow, ported as `glibc_pow_dd` of aarch64 (its libm.so.6, glibc 2.36,"
        " disassembled: every fma of x86's FMA build fused alike, in the same operands; exp's k = round(ehi *"
        " 128/ln2) ties away by FRINTA/FCVTAS from the rounded product, where x86's shifter rounds the exact one to"
        " even; FADD's NaN pick, a signalling operand first; +qNaN for a negative base to a fractional power): 400,000"
        " random pairs and the test's 2 x 200,000 equal to aarch64 libm's pow under qemu-aarch64, 0 differ. Float64"
        " to 2, 3, -2, -1, -0.5, 0 and 1 as on x86, 0.5 IEEE sqrt (`vsqrtq_f64`, `fsqrt`: no MKL), a NaN made of"
        " none +qNaN; integer powers and mixed dtypes as on x86. Measured under emulation on N1, V1 and V2 at 1, 2"
        " and 4 threads, 120 random cases per core and thread count (30 each of float64 to the special exponents,"
        " float64 pow of other exponents, tensors and numbers, mixed dtypes, integer powers; 1 to 100,003 elements"
        " off 2, 4 and 8 lanes and the grain, transposed and every-second layouts, NaNs of both signs quiet and"
        " signalling, infinities, -0, subnormals): 1,068 exact, 12 refused (integers to a negative integer: torch"
        " raises), 0 other; bfloat16 and float16 pow not modelled: refused (their reduced-float Vectorized forms"
        " and NEON's conversions not read)"
    ),
    "conv2d": (
        "ATen's `_slow_conv2d` by x86's rule, its gemms NVPL's; the rest oneDNN: on N1 and V2"
        " ACL's forward (fixed-format hybrid 6x16 or interleaved 8x12 by arm_gemm's estimates, fused, K in"
        " (kh, kw, channel) order) and oneDNN's `gemm:ref` backward (its reference sgemm); V2's strided 1x1"
        " from 13 output channels and V1's `brgconv_1x1` (one chain from 0 over the channels, the bias"
        " after; also a padded 1x1 at stride 1); V1 `jit:sve_256` (blocks of 8 channels), `jit_1x1`, gemm:ref"
        " where they decline, ACL's hybrid forward where oneDNN hands it over; on 2, 3, 4 and 8 threads V1's"
        " weights split as its balance says (images, (image, row) units or pixel blocks, each thread's chain"
        " added in order), the bias by its reducer; V1's and V2's `brg_conv_bwd` backward data (stride 1):"
        " the forward brgemm convolution of grad_output, taps inverted, one chain over (output-channel block,"
        " taps from the last, channel); refused: V1's ACL interleaved kernel and its choice where unmeasured"
        " parameters disagree, V2's ACL interleaved pick where a kernel side lies within the padding, brgconv_1x1"
        " above the channels measured, thread counts other than 1, 2, 3, 4 and 8 (not measured)"
    ),
    "weight_norm": (
        "4 lanes (N1, V2) vs 8 (V1) and their sum trees; NEON-typed code (N1, V2) fuses the first dim's reductions"
        " in every vector besides what AVX2 fuses, V1's SVE intrinsics fuse nothing; a zero slice's NaNs are"
        " aarch64's `+qNaN`, and the other sign where N1's and V2's partial last vector negates one"
    ),
    "lstm": (
        "oneDNN's ref_gemm (its 16x6 register blocks and its threads' split of K) and its C++ postgemms as"
        " GCC builds them (glibc's expf and tanhf, the cell state's first product fused); no brgemm, so"
        " inference too"
    ),
    "foreach": (
        "as `adamw_step` (the for-loop's kernels), amsgrad, maximize, Adam's L2 term and SGD included: `add`"
        " with alpha fused in body and tail on every core; `maximum`'s vector body is FMAX (a NaN operand"
        " kept, the first of two; `-0 < +0`), its tail `0x7fc00000`; `inf - inf`, `inf/inf` give aarch64's"
        " `+qNaN`; which of two NaNs `addcdiv` keeps: the quotient's on N1 and V2, `self`'s in V1's SVE256"
        " body; 1, 2 and 4 threads exact"
    ),
    "fused_optim": (
        "4 lanes (N1, V2) vs 8 (V1); NEON-typed bodies fuse `v*beta2 + (c2*g)*g` as `fma(v, beta2, (c2*g)*g)`"
        " (x86 fuses the other product); V1's SVE256 bodies fuse only ATen's"
        " explicit `fmadd` (lerp; SGD's decay, buffer, nesterov term) and keep `g * -1` a multiply; the"
        " scalar tails contracted on every core (SGD's `p - g*lr` an fmsub); no thread dependence (16-float"
        " units are whole vectors); aarch64's NaNs"
    ),
    "group_norm": (
        "4 lanes (N1, V2) vs 8 (V1) in the moments and the backward's sums; NEON-typed vector code contracted"
        " by GCC (the reductions, the weighted sums, `dgamma`), V1's SVE intrinsics not; scalar code contracted"
        " on every core (`y`, `c2`, `c3`, grad_x); thread count on V1 and V2 (grad_x): the SVE objects' copy"
        " inlined for 1 thread (or one group) rounds every product of the weighted sums' scalar tail, the"
        " OpenMP copy fuses them (N1 fuses them in both); channels-last: 4 lanes (N1, V2) vs 8 (V1) in the"
        " column sums, N1's and V2's vector code contracted (`x*x`, `y`, the per-thread sums, `acc + x*dy`,"
        " `dgamma`, `dx = fma(c1, dy, c2*x) + c3`), V1's not, scalar code on every core (the variance, the"
        " biases, `c3`, and unlike x86 the second backward path's `ds_gamma + v*w`); the thread count past"
        " 1024 (2048) pixels as on x86"
    ),
    "qr": "NVPL's LAPACK: not modelled, refused",
    "solve_triangular": "not modelled: refused (aarch64's BLAS strsm, either side, is not measured)",
    "fft": (
        "the wheel has no MKL: pocketfft (harness/impl/pocketfft.py, csrc/pocketfft.c), one 1-D pass per dim in"
        " the order given (r2c: the real plan over the last dim, then the complex passes; c2r: the complex"
        " backward passes, then the real plan), ATen's 1/N or 1/sqrt(N) in the transform's precision multiplied"
        " after the first pass (c2r: the last); cfftp's pass8, 4, 2, 3, 5 and rfftp's radf/radb 2 to 5,"
        " twiddles from aarch64 glibc 2.36's double sincos (the wheel's one sincos call per angle; the impl's"
        " port, csrc/dmath.h glibc_sincos_a64: s_sin.c's do_sin/do_cos and TAYLOR_SIN as the aarch64 libm.so.6"
        " fuses them, its table __sincostab, no host C library) times their two-table product (fnmsub, fmadd);"
        " the port against that libm under emulation: 2,862,080 twiddle angles of lengths 1 to 20,000, 4,504,500"
        " multiples m*pi/(4n) of n up to 3,000, 5,999,999 random doubles below 2.426265 and 409,830 around its"
        " branch bounds and table midpoints: 0 differ; GCC's contraction:"
        " a product every use of which is a sum or difference fused into each, of two products added the"
        " first, of a difference of two variable products the first in scalar code (fnmsub) and the second in"
        " the NEON-lane code that takes rows 4 (float32) or 2 (float64) at a time, the rest of the rows one by"
        " one (float64's scalar copy vectorised its pass2, 3 and 4 twiddles: the lane order); radf5's"
        " differences by a constant the first product fused in lane code too, radb5's the second; the scalar"
        " copy's i = 0 loops over k that GCC vectorised (radf5 l1 > 16, radb5 l1 > 8: 4 k at a time) the lane"
        " order; no thread or core dependence (ATen passes no thread count: one thread); refused: lengths with"
        " a factor other than 2, 3 and 5 (pass7, pass11, the generic passes, Bluestein), real transforms of"
        " float64, c2r rows through the scalar copy of a radb3 or radb5 over more than 9 values (GCC's"
        " vectorised inner loop, not read: c2r of 45, 125 to 1,000 measured other there), float64 rows through"
        " the scalar copy of a pass8 after pass2 (fft of 48 and 128: other), a NaN or an infinity read;"
        " measured under emulation on N1, V1"
        " and V2 at 1, 2 and 4 threads, 282 random transforms each: c2c 131 exact, 31 refused; r2c 15 and 45;"
        " c2r 20 and 40; 0 other (the same bits on every core and thread count); with radf5/radb5 on N1, V2"
        " and V1 at 1 thread (the same bits), those 120 real transforms and 80 float32 r2c and c2r of lengths"
        " with a 5 (5 to 1,000, rows off the lanes): r2c 77 exact, 23 refused (float64 13, NaN/inf 5, other"
        " factors 5); c2r 66 exact, 34 refused (float64 16, scalar radb3/radb5 over more than 9 values 9,"
        " NaN/inf 6, other factors 3); 0 other"
    ),
    "glu": (
        "SLEEF exp in the vector body (4 lanes N1, V2; 8 V1, whose bits are x86 AVX2's), aarch64 `expf` in the"
        " tail, `inf * 0` the positive default NaN; 2 threads cut runs as on x86; NaN inputs not measured: refused"
    ),
    "log_sigmoid": (
        "SLEEF's advsimd and SVE exp and log1p: the x86 AVX2 bits but for NaNs; out of a NaN x is x quieted"
        " (FMIN passes it on); where a NaN buffer meets a NaN grad (or a finite one) N1's vector body keeps"
        " grad's NaN and its scalar tail the buffer's sign-flipped (`fmsub`), V1's body the buffer's (a"
        " signalling grad's first), V2's tail grad's in its first four elements, the flipped buffer's after;"
        " the thread count moves the tails (N1); refused: a non-finite buffer through a strided operand's"
        " basic loop, rows shorter than the tensor on V2"
    ),
    "binary_cross_entropy_with_logits": "not measured: refused",
    "binary_cross_entropy": (
        "Loss.cpp's aarch64 object (read): `fmul` of `(t - 1)` and the clamped log1pf, then `fmsub t, b` (the"
        " second product fused into the difference), over aarch64 glibc 2.36's contracted `log1pf` (the x86 build"
        " is not) and its `logf` (the x86 FMA build's bits); the mean's and sum's cascade as the `sum` row's;"
        " backward `fsub 1, x`, `fmul (1 - x), x`, `fsub x, t`, `fmul (x - t), g`, the 1e-12 floor keeping a NaN,"
        " `fdiv`, in the 4-lane loop and the scalar one alike, NaNs by FPProcessNaNs in those operand orders;"
        " measured under emulation on N1, V2 and V1 at 1, 2 and 4 threads: the 24 x86 cases (loss and gradient,"
        " mean, sum, none, past the grain) 24 exact and 32 direct backwards with NaNs of 1 to 6 payloads (both"
        " signs, quiet and signalling) in self, target and gradient, infinities, -0, subnormals: 32 exact, a core"
        " and thread count, 0 refused, 0 other (refused before); V1's mean at 1 thread its own bits"
    ),
    "leaky_relu": (
        "the x86 bits on every core and thread count (one product; NaNs quieted; a signalling grad where"
        " x > 0 quieted in the vector body only; `inf * 0` aarch64's `+qNaN`)"
    ),
    "grid_sample": (
        "4 lanes (N1, V2) vs 8 (V1): the backward's runs of points, so grad_input's order of additions; NEON-typed"
        " vector code contracted, aarch64 GCC fusing the first product of a sum of two where x86's fuses the"
        " second (`out = fma(se_val, se, fma(sw_val, sw, fma(nw_val, nw, ne_val*ne)))`, the grid gradient's"
        " `fma(ne_val - nw_val, s, (se_val - sw_val)*n)`; the unnormalisation and the accumulation as AVX2's),"
        " V1's SVE intrinsics not (the x86 default build's bits); not the thread count"
    ),
    "upsample_bicubic2d": (
        "N1 and V2 give the x86 AVX2 bits; V1's SVE256 object also fuses the weights' last step (`cc1 ="
        " fma(fma(A+2, x, -(A+3))*x, x, 1)`, `cc2 = fma(fma(fma(A, x, -5A), x, 8A), x, -4A)`); not the thread"
        " count or the layout; the backward one set of bits on every core and thread count, not x86's: its"
        " weights fused at every step, the second height tap's updates `fma(g*wy, wx, gx)`, the others not"
        "; antialiased: the filter and the backward fused as in the AVX2 object, each sum: N1's NEON object "
        "every step fused, the SVE objects an in-order reduction of their vector length (SVE128 4 lanes, SVE256 "
        "8) then the fused epilogue; measured under emulation: 64 forwards and 48 backwards per core on 1, 2 and "
        "4 threads, 0 other (10 and 5 non-finite refused)"
    ),
    "scatter_add": (
        f"{ARM64_INDEXING}; prod the x86 bits with finite operands (measured under emulation, both paths),"
        " non-finite operands or a NaN made refused"
    ),
    "index_add": (
        f"{ARM64_INDEXING}; alpha other than 1 fused on every core, the 1-D loop too (aarch64 GCC contracts"
        " it; x86 rounds its product): measured under emulation with finite operands, non-finite refused"
    ),
    "index_put": ARM64_INDEXING,
    "index_reduce": (
        "nothing: the x86 bits on N1, V1 and V2 at 1 and 2 threads with finite operands (measured under"
        " emulation); non-finite operands or a NaN made refused"
    ),
    "scatter": (
        "nothing: the x86 bits on N1, V1 and V2 at 1 and 2 threads (measured under emulation, the copies with"
        ' NaN and signed zeros; put_ and index_copy below their grains); `reduce="multiply"` as'
        " scatter_reduce's prod (finite operands)"
    ),
    "im2col": ARM64_INDEXING,
    "padding_backward": (
        "nothing: the same sums in the same order (reflection / replication padding backwards 1-D to 3-D,"
        " unfold_backward); a NaN result one NaN alone can give named (`nans.summed_nans`: one kind of NaN operand,"
        " quieted, or +inf meeting -inf, +qNaN), two kinds meeting or one meeting inf - inf refused (FADD keeps a"
        " signalling one first); " + EMU_PAD
    ),
    "upsample_bilinear2d": (
        "backward: the x86 AVX2 bits on every core (the updates contracted to `fma(lh*lw, g, gx)`); not the"
        " thread count; a channels-last gradient (ATen's vectorised kernel): every update fused as in the AVX2"
        " object, with aarch64's NaNs, but in V1's SVE256 object the vector body (the first C - C % 8 channels)"
        " rounds the product and the sum (64 bilinear and 44 trilinear channels-last gradients per core on 1, 2"
        " and 4 threads, a third with NaN, infinities, signed zeros and subnormals, 0 other); forward: vectors"
        " of 4 channels (N1, V2)"
        " contracted as `fma(x00, w00, fma(x01, w01, fma(x10, w10, x11*w11)))` (the other inner product than"
        " AVX2's), 8 on V1 not contracted, the scalar channels as on AVX2; not the thread count; the generic"
        " kernel (`upsample_linear1d`, `upsample_bilinear2d` past OH + OW = 128, `upsample_trilinear3d` but for"
        " a channels-last input of more than 3 channels) and the 1-D and 3-D backwards: the AVX2 contractions"
        " (`fma(t0, w0, t1*w1)`, `fma(l, g, gx)`) on every core, V1's SVE256 object alike, with aarch64's NaNs"
        " (the addend's NaN first, `inf*0` the positive default NaN); not the thread count (measured under"
        " emulation on N1, V2 and V1 at 1, 2 and 4 threads); the 3-D channels-last forward not measured: refused;"
        " the antialiased forward and backward (`_upsample_bilinear2d_aa`) not modelled: refused (not measured"
        " under emulation)"
    ),
}


WHY: dict[str, str] = {op: differs for ops, _, differs in ROWS for op in ops}
WHY_ARM64: dict[str, str] = {op: ARM64[ops[0]] for ops, _, _ in ROWS for op in ops}
if sorted(WHY) != sorted((*OP_IDS, *TRACE_KERNELS)) or sorted(ARM64) != sorted(ops[0] for ops, _, _ in ROWS):
    raise RuntimeError(
        "harness.impl.kernel_index: ROWS must name each of the 26 ops and each TRACE_KERNELS row once, "
        "ARM64 each row once"
    )


def why(op: str, arm64: bool = True) -> str:
    """What makes ``op``'s bits differ, on x86 and (where ``arm64``) on Linux arm64; one text where both agree."""
    x86, arm = WHY.get(op, ""), WHY_ARM64.get(op, "")
    if not arm64 or not arm:
        return x86
    return f"x86 and Linux arm64: {x86}" if arm == x86 else f"x86: {x86}. Linux arm64: {arm}"


def render_table() -> str:
    """The markdown table of docs/impl/kernels.md."""
    lines = [
        "| op | PyTorch kernel reproduced | what makes the bits differ (x86) | Linux arm64: vs x86, and N1 / V1 / V2 |",
        "|---|---|---|---|",
    ]
    for ops, kernel, differs in ROWS:
        names = ", ".join(f"`{op}`" for op in ops)
        lines.append(f"| {names} | {kernel} | {differs} | {ARM64[ops[0]]} |")
    return "\n".join(lines) + "\n"
