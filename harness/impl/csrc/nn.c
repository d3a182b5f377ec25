/* Layers of torch.nn that no fixture op records but real models' traces reach, torch 2.13.0 on x86
 * and aarch64 CPUs, float32: sigmoid (nn.GRU's gates) and its backward; batch norm in training (statistics,
 * running statistics, output) and its backward, and in eval (running statistics), and on x86 ATen's
 * TensorIterator path of batch norm for layouts neither contiguous nor channels-last; grid_sampler_2d
 * (bilinear or nearest, zero or border padding) and its backward, upsample_bicubic2d and its backward,
 * _upsample_bicubic2d_aa (antialiased) and its backward (x86), _upsample_bilinear2d_aa and its backward
 * (x86), and
 * upsample_bilinear2d's backward (channels-first), on x86 and on the Linux arm64 profiles; upsample_linear1d
 * and upsample_trilinear3d's backward, and the generic linear kernel of the 1-D, 2-D and 3-D forwards, on x86
 * and on the Linux arm64 profiles.
 *
 * Shape legend (every array C-contiguous, as the impl passes it):
 *   sigmoid_forward      x, out (n,), cut into runs of `run` elements (see below)
 *   polar_forward        abs, angle (n,); out (n, 2), (re, im) pairs
 *   sigmoid_backward     grad, y, grad_x (n,), the same runs
 *   glu_forward          a, b, out (n,): the input's two halves along glu's dim, each in the output's
 *                        logical order, cut into runs of `run` elements as sigmoid's
 *   div_floor_forward    a, b, out, unproven (n,) (a broadcast operand repeated), runs of `run` as
 *                        sigmoid's: div with rounding_mode "floor" and floor_divide, x86 (unproven:
 *                        the vector lanes div_floor_sleef_nan cannot answer)
 *   batch_norm_forward   x, y (B, C, HW) or, channels-last, (B*HW, C); w, b, rm, rv, save_mean,
 *                        save_invstd (C,) (w, b, rm, rv may be NULL); buf (max(2, threads) * C,)
 *   batch_norm_backward  g, x, gx as x; w, save_mean, save_invstd, gw, gb (C,); buf (2 * threads * C,)
 *   batch_norm_eval_forward  x, y as batch_norm_forward; w, b (or NULL), rm, rv, invstd (C,); buf (2 * C,)
 *   batch_norm_generic_stats, _transform, _backward  x, y, g, gx (C, M): each channel's M elements in
 *                        ATen's serial loop order; mean, invstd, sum, gw (C,); w, b, rm, rv (C,) or NULL
 *   grid_sample_forward  x (N, C, H, W); grid (N, P, 2), P = the grid's H*W, (x, y) pairs in [-1, 1];
 *                        out (N, C, P)
 *   grid_sample_backward go (N, C, P); x, grid as forward; gx (N, C, H, W), zeroed, or NULL (input's
 *                        gradient not asked for); ggrid (N, P, 2); row: P where ATen walks the grid's
 *                        points as one run, else the grid's W (a run per row)
 *   upsample_bicubic     x (P, H, W), P = N*C planes; out (P, OH, OW); scale_h, scale_w as ATen takes
 *                        them (area_pixel_compute_scale, computed by the caller)
 *   upsample_bicubic_backward  go (P, OH, OW), P = N*C planes; gx (P, H, W), zeroed by the caller;
 *                        scale_h, scale_w as for upsample_bicubic
 *   upsample_bicubic_aa  x (P, H, W), P = N*C planes; tmp (P, H, OW) (the width pass's output); out (P, OH,
 *                        OW); scale_h, scale_w as for upsample_bicubic; KH, KW the taps per output
 *                        (2*ceil(support) + 1); hmin, hsize (OH,), hw (KH*OH,), wmin, wsize (OW,), ww
 *                        (KW*OW,) scratch for the taps
 *   upsample_bicubic_aa_backward  go (P, OH, OW); gx (P, H, W), zeroed by the caller; the rest as
 *                        upsample_bicubic_aa
 *   upsample_bilinear_aa, upsample_bilinear_aa_backward  as upsample_bicubic_aa and its backward (KH, KW
 *                        from the triangle's support)
 *   upsample_linear_channels_last  x (N, C, D, H, W); out (N, C, OD, OH, OW) (2-D: D = OD = 1); scratch
 *                        as upsample_linear_generic
 *   upsample_bilinear    x (N, C, H, W); out (N, C, OH, OW); scale_h, scale_w as for upsample_bicubic;
 *                        hi, hw (2*OH,), wi, ww (2*OW,): scratch for the taps
 *   upsample_bilinear_backward  go (P, OH, OW), P = N*C planes; gx (P, H, W), zeroed by the caller;
 *                        scale_h, scale_w as for upsample_bicubic; channels_last: the gradient torch
 *                        held was channels-last contiguous, C its channels
 *   upsample_linear_generic  x (P, D, H, W), P = N*C planes; out (P, OD, OH, OW) (2-D: D = OD = 1; 1-D:
 *                        also H = OH = 1); di, dw (2*OD,), hi, hw (2*OH,), wi, ww (2*OW,) scratch
 *   upsample_trilinear_backward  go (P, OD, OH, OW); gx (P, D, H, W), zeroed by the caller; channels_last
 *                        and C as for upsample_bilinear_backward; scratch as upsample_linear_generic
 *   upsample_linear1d_backward  go (P, OW); gx (P, W), zeroed by the caller; wi, ww (2*OW,) scratch
 *
 *   prelu_forward        x, w, out (n,): input and weight broadcast to one shape in ATen's loop order, runs of
 *                        `run` as sigmoid's; w_scalar: the vectorized loop reads the weight as a scalar
 *   cdist_forward        x1 (d, r1, m), x2 (d, r2, m), out (d, r1, r2)
 *   cdist_backward       grad, dist (d, r1, r2), x1 (d, r1, m), x2 (d, r2, m), out (d, r1, m)
 *
 * Element-wise loops: elementwise.h run_segments (the GRU's gates are column chunks of a (B, 3H)
 * matrix: runs of H). */
#include "elementwise.h"

/* ------------------------------------------------------------------ sigmoid */

/* A NaN as an arithmetic operation passes it on: quieted, payload and sign kept. */
static inline float nn_quiet(float x) { return vm_u2f(vm_f2u(x) | 0x00400000u); }

/* sigmoid_kernel (cpu/UnaryOpsKernel.cpp, also registered for AVX-512: lanes_wide), cpu_kernel_vec.
 * Vector lane: a = 0 - a; a = a.exp() (SLEEF expf_u10 on avx2/avx512 and aarch64: Sleef_expf4_u10
 * on NEON and SVE128, 4 lanes, Sleef_expfx_u10sve on SVE256, 8 lanes, the same bits; std::exp per
 * lane on the x86 default build); a = 1 + a; a = a.reciprocal() (1 / a, vdivq on NEON). Scalar tail:
 * 1 / (1 + std::exp(-a)) with the C library's expf (glibc's algorithm on both architectures, FMA
 * variant). Nothing to contract. A NaN comes out quieted with its sign flipped, in the vector body
 * as in the tail (measured on every x86 capability). */
static float sigmoid_vec(const profile_t *p, float x) {
    if (isnan(x)) return nn_quiet(-x);
    float e = vec_expf(p, 0.0f - x);
    return 1.0f / (1.0f + e);
}

static float sigmoid_scalar(const profile_t *p, float x) {
    (void)p;
    if (isnan(x)) return nn_quiet(-x);
    return 1.0f / (1.0f + glibc_expf(-x));
}

void sigmoid_forward(profile_t p, const float *x, float *out, int64_t n, int64_t run) {
    run_segments(&p, p.lanes_wide, GRAIN_SIZE, sigmoid_vec, sigmoid_scalar, NULL, NULL, x, NULL, out, n, run);
}

/* sigmoid_backward_kernel (cpu/BinaryOpsKernel.cpp, plain REGISTER_DISPATCH: 8 lanes):
 * grad_x = (dy * (1 - y)) * y in vector body and scalar tail alike; two products and a
 * difference, nothing to contract, so no profile changes its bits. */
static float sigmoid_bwd(const profile_t *p, float dy, float y) {
    (void)p;
    return dy * (1.0f - y) * y;
}

void sigmoid_backward(profile_t p, const float *grad, const float *y, float *grad_x, int64_t n, int64_t run) {
    run_segments(&p, p.lanes, GRAIN_SIZE, NULL, NULL, sigmoid_bwd, sigmoid_bwd, grad, y, grad_x, n, run);
}

/* ------------------------------------------------------------------ glu */

/* glu_kernel (cpu/Activation.cpp, beside silu: lanes_wide), cpu_kernel_vec over the halves a = x[..:h]
 * and b = x[h:..] of the input along dim. Vector lane: b.neg() (a sign flip), .exp() (SLEEF expf_u10 on
 * avx2/avx512, std::exp per lane on the x86 default build: vec_expf), 1 + e, 1 / that, a * that. Scalar
 * tail: a * (1 / (1 + std::exp(-b))) with the C library's expf. Nothing to contract (the products feed
 * no sum). NaNs (measured, body and tail): a NaN `b` comes out quieted with its sign flipped, over a NaN
 * `a` too (but in the default build's vector body, which keeps either NaN lane by lane: refused by the
 * caller); else a NaN `a` quieted. On aarch64 the same lanes with SLEEF's advsimd/SVE expf (vec_expf) and
 * aarch64 expf; its `inf * 0` gives the positive default NaN, which the caller sets (nn.py _glu_nans). Its backward (glu_backward_cpu_out) is sigmoid_forward of b, then products
 * only: harness/impl/nn.py glu_backward. */
static float glu_vec(const profile_t *p, float a, float b) {
    if (isnan(b)) return nn_quiet(-b);
    if (isnan(a)) return nn_quiet(a);
    return a * (1.0f / (1.0f + vec_expf(p, -b)));
}

static float glu_scalar(const profile_t *p, float a, float b) {
    (void)p;
    if (isnan(b)) return nn_quiet(-b);
    if (isnan(a)) return nn_quiet(a);
    return a * (1.0f / (1.0f + glibc_expf(-b)));
}

void glu_forward(profile_t p, const float *a, const float *b, float *out, int64_t n, int64_t run) {
    run_segments(&p, p.lanes_wide, GRAIN_SIZE, NULL, NULL, glu_vec, glu_scalar, a, b, out, n, run);
}

/* ------------------------------------------------------------------ div, rounding_mode "floor" */

/* div_floor_kernel (cpu/BinaryOpsKernel.cpp, REGISTER_DISPATCH only: the AVX2 object, 8 lanes, at AVX-512),
 * float32: aten.div with rounding_mode="floor" and floor_divide; cpu_kernel_vec with the default grain.
 * Scalar lambda: c10::div_floor_floating (generic_math.h): b == 0: a / b; mod = fmod(a, b) (glibc fmodf,
 * exact); div = (a - mod) / b, less 1 where mod != 0 and b < 0 != mod < 0; div != 0: floor(div), plus 1 where
 * div - floor(div) > 0.5; else copysign(0, a / b). */
static float div_floor_scalar(const profile_t *p, float a, float b) {
    (void)p;
    if (b == 0.0f) return a / b;
    const float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0.0f && (b < 0.0f) != (mod < 0.0f)) div -= 1.0f;
    if (div == 0.0f) return copysignf(0.0f, a / b);
    float floordiv = floorf(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
    return floordiv;
}

/* Vector lambda: div_floor_floating_vec, in its order of blends: basic = a / b; mod = a.fmod(b) (SLEEF
 * fmodf in the avx2 object, std::fmod per lane in the default build); floor = a where |basic| is inf and
 * |a| is not (the fix-up for Sleef_fmod), else a - mod; div = floor / b, less 1 under the scalar's mask;
 * floor(div), plus 1 where div - floor > 0.5; copysign(0, basic) where div == 0; basic where b == 0. */
/* The avx2 object's NaN lanes (SLEEF's fmodf runs its 8 steps on them; measured through torch on a Zen 5,
 * 4,096 lanes of each kind): a NaN a gives a, quieted; else a NaN b gives |b|'s bits less 2 (the payload
 * SLEEF's toward-zero steps leave), quieted, with a's sign; else an infinite a by a b not 0 gives all bits
 * set but the sign, which is a's flipped. -1: not one of these (or |b| less 2 would leave the NaNs: a
 * signalling b). */
static float div_floor_sleef_nan(float a, float b, int *unproven) {
    if (a != a) return nn_quiet(a);
    if (b != b) {
        const uint32_t m = (vm_f2u(b) & 0x7fffffffu) - 2u;
        if (m <= 0x7f800000u) *unproven = 1;
        return vm_u2f((m | 0x00400000u) | (vm_f2u(a) & 0x80000000u));
    }
    return vm_u2f(0xffffffffu ^ (vm_f2u(a) & 0x80000000u));
}

static inline int div_floor_sleef_nan_lane(const profile_t *p, float a, float b) {
    return p->aten && (a != a || b != b || (isinf(a) && b != 0.0f));
}

static float div_floor_vec(const profile_t *p, float a, float b) {
    if (div_floor_sleef_nan_lane(p, a, b)) {
        int unproven = 0;
        return div_floor_sleef_nan(a, b, &unproven);
    }
    const float basic = a / b;
    const float mod = p->aten ? sleef_fmodf(a, b) : fmodf(a, b);
    const float floor = (fabsf(basic) == INFINITY && fabsf(a) != INFINITY) ? a : a - mod;
    float div = floor / b;
    if (mod != 0.0f && ((b < 0.0f) ^ (mod < 0.0f))) div = div - 1.0f;
    float floordiv = floorf(div);
    if (div - floordiv > 0.5f) floordiv = floordiv + 1.0f;
    if (div == 0.0f) floordiv = copysignf(0.0f, basic);
    if (b == 0.0f) floordiv = basic;
    return floordiv;
}

/* A vector lane whose NaN div_floor_sleef_nan cannot give (a signalling NaN b): marked 1. */
static float div_floor_mark_vec(const profile_t *p, float a, float b) {
    int unproven = 0;
    if (div_floor_sleef_nan_lane(p, a, b)) (void)div_floor_sleef_nan(a, b, &unproven);
    return (float)unproven;
}
static float div_floor_mark_scalar(const profile_t *p, float a, float b) { return (void)p, (void)a, (void)b, 0.0f; }

/* Tensor shapes: a, b, out, unproven (n,) (a broadcast operand passed repeated), runs of `run`; returns how
 * many elements `unproven` marks (written only where that is not 0). */
int64_t div_floor_forward(profile_t p, const float *a, const float *b, float *out, float *unproven, int64_t n,
                          int64_t run) {
    run_segments(&p, p.lanes, GRAIN_SIZE, NULL, NULL, div_floor_vec, div_floor_scalar, a, b, out, n, run);
    if (!p.aten) return 0; /* the default build's lanes: glibc fmodf, as the tail */
    run_segments(&p, p.lanes, GRAIN_SIZE, NULL, NULL, div_floor_mark_vec, div_floor_mark_scalar, a, b, unproven, n,
                 run);
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) count += unproven[i] != 0.0f;
    return count;
}

/* ------------------------------------------------------------------ batch_norm (training) */

/* batch_norm_kernel.cpp is plain REGISTER_DISPATCH: on x86 the AVX2 objects run on AVX-512 too (8
 * lanes); on aarch64 the DEFAULT and SVE128 builds take the 4-lane NEON Vectorized<float>, SVE256 the
 * 8-lane one. How each object computes (bn_obj, from obj_kind):
 *   L      Vectorized<float>::size();
 *   tree   vec_reduce_all's shuffle tree (lane i^(L/2), ..., i^1: AVX2, NEON's vextq/vrev64q, SVE256's
 *          svtbl swaps) or, in the x86 default build, lanes 1..L-1 folded into lane 0 in order;
 *   vc     a*b+c written with Vectorized operators is one fmaf (GCC contracted it in the x86 FMA
 *          objects and in the NEON-typed ones; SVE256's svmul/svadd are never contracted);
 *   sc     scalar a*b+c of these objects is one fmaf (every FMA object, SVE256 included);
 *   red    map2_reduce_all's acc + t*dy fused: in the partial last vector only (x86 FMA objects,
 *          measured), in every vector (NEON), in none (x86 default, SVE256);
 *   cl_tail  the channels-last backward's partial last vector of channels fuses dy - grad_mean - dx
 *          as its full vectors do (NEON; the x86 FMA objects fuse the full vectors only, measured);
 *   run    the running statistics (Normalization.cpp, built once per architecture) contracted:
 *          aarch64 yes (FMA is base ISA), x86 no (built without -mfma). */
typedef struct {
    int L, tree, vc, sc, red, cl_tail, run;
} bn_obj_t;

#define BN_FUSE_BODY 1 /* the full vectors' acc + t*dy is one fmaf */
#define BN_FUSE_TAIL 2 /* the partial last vector's is */

static bn_obj_t bn_obj(const profile_t *p) {
    const int kind = obj_kind(p);
    bn_obj_t o = {8, p->aten != ATEN_DEFAULT, 0, p->contract, 0, 0, is_arm(p)};
    if (kind == OBJ_X86_FMA) {
        o.vc = 1;
        o.red = BN_FUSE_TAIL;
    } else if (kind == OBJ_NEON) {
        o.L = 4;
        o.vc = o.cl_tail = 1;
        o.red = BN_FUSE_BODY | BN_FUSE_TAIL;
    }
    return o;
}

#define BN_MADD(c, a, b, d) ((c) ? fmaf((a), (b), (d)) : (a) * (b) + (d))

/* vec::reduce_all(+) / vec::map2_reduce_all((x - mean) * dy, +) over n elements, L lanes: the first
 * full vector initialises the lanes, later full vectors and the partial last one add lane-wise (the
 * map2 form's acc + t*dy fused as `fuse` says), then the shuffle tree (lane i^(L/2), ..., i^1) or,
 * without `tree`, lanes 1..L-1 folded into lane 0 in order. Below L elements: the terms folded in
 * order from the first, each product rounded. */
static float bn_reduce(int tree, int L, const float *x, float mean, const float *dy, int64_t n, int fuse) {
    if (n < L) {
        float s = dy ? (x[0] - mean) * dy[0] : x[0];
        for (int64_t j = 1; j < n; j++) s = s + (dy ? (x[j] - mean) * dy[j] : x[j]);
        return s;
    }
    float acc[8];
    int64_t d = L;
    for (int l = 0; l < L; l++) acc[l] = dy ? (x[l] - mean) * dy[l] : x[l];
    for (; d < n; d += L) {
        const int f = d + L <= n ? (fuse & BN_FUSE_BODY) : (fuse & BN_FUSE_TAIL);
        for (int l = 0; l < L && d + l < n; l++) {
            if (dy) acc[l] = f ? fmaf(x[d + l] - mean, dy[d + l], acc[l]) : acc[l] + (x[d + l] - mean) * dy[d + l];
            else acc[l] = acc[l] + x[d + l];
        }
    }
    if (!tree) {
        float s = acc[0];
        for (int l = 1; l < L; l++) s = s + acc[l];
        return s;
    }
    float w[8];
    for (int h = L / 2; h >= 1; h /= 2) {
        for (int l = 0; l < L; l++) w[l] = acc[l] + acc[l ^ h];
        memcpy(acc, w, sizeof(float) * (size_t)L);
    }
    return acc[0];
}

/* Thread tid's rows of at::parallel_for(0, n, 1) over `threads` threads. */
static int bn_rows(int64_t n, int64_t threads, int64_t tid, int64_t *b, int64_t *e) {
    return parallel_chunk(0, n, 1, threads, tid, b, e);
}

/* batch_norm_cpu_collect_stats_channels_last_impl over rows (N, C) (NHWC, or NC11: every input whose
 * image is one element). T = at::get_num_threads(). N > T: per-thread buffers (T, C) of float sums
 * (x + buf, then buf + (x - mean)^2 in vec::map3, fused where vc), each channel's T partials added in
 * double in thread order. Otherwise on one thread, C <= 16 or C > 2048: float sums over rows in
 * order, vectorised over the channels, mean = sum / N (a float division), the square added fused
 * where vc (V1's 2-thread NC11 case of 12 channels measured: vector code, not scalar); else double
 * sums per channel as the NCHW kernel. */
static void bn_stats_rows(const profile_t *p, const bn_obj_t *o, const float *x, int64_t N, int64_t C, float *mean,
                          float *var_sum, float *buf) {
    const int64_t T = p->threads;
    if (N > T) {
        memset(buf, 0, sizeof(float) * (size_t)(T * C));
        for (int64_t t = 0; t < T; t++) {
            int64_t b, e;
            if (!bn_rows(N, T, t, &b, &e)) continue;
            for (int64_t i = b; i < e; i++)
                for (int64_t k = 0; k < C; k++) buf[t * C + k] = x[i * C + k] + buf[t * C + k];
        }
        for (int64_t k = 0; k < C; k++) {
            double s = 0;
            for (int64_t t = 0; t < T; t++) s += (double)buf[t * C + k];
            mean[k] = (float)(s / (double)N);
        }
        memset(buf, 0, sizeof(float) * (size_t)(T * C));
        for (int64_t t = 0; t < T; t++) {
            int64_t b, e;
            if (!bn_rows(N, T, t, &b, &e)) continue;
            for (int64_t i = b; i < e; i++)
                for (int64_t k = 0; k < C; k++) {
                    float d = x[i * C + k] - mean[k];
                    buf[t * C + k] = BN_MADD(o->vc, d, d, buf[t * C + k]);
                }
        }
        for (int64_t k = 0; k < C; k++) {
            double s = 0;
            for (int64_t t = 0; t < T; t++) s += (double)buf[t * C + k];
            var_sum[k] = (float)s;
        }
    } else if (T == 1 || C <= 16 || C > 2048) {
        for (int64_t k = 0; k < C; k++) {
            float s = 0.0f;
            for (int64_t i = 0; i < N; i++) s = x[i * C + k] + s;
            mean[k] = s / (float)N;
            float v = 0.0f;
            for (int64_t i = 0; i < N; i++) {
                float d = x[i * C + k] - mean[k];
                v = BN_MADD(o->vc, d, d, v);
            }
            var_sum[k] = v;
        }
    } else {
        for (int64_t k = 0; k < C; k++) {
            double s = 0;
            for (int64_t i = 0; i < N; i++) s += (double)x[i * C + k];
            mean[k] = (float)(s / (double)N);
            double v = 0;
            for (int64_t i = 0; i < N; i++) {
                float d = x[i * C + k] - mean[k];
                v += (double)(d * d);
            }
            var_sum[k] = (float)v;
        }
    }
}

/* batch_norm_cpu_collect_stats_contiguous_impl (NCHW, image > 1): per channel a double sum over
 * batch and image in order, mean = (float)(sum / N); then a double sum of the float (x - mean)^2. */
static void bn_stats_nchw(const float *x, int64_t B, int64_t C, int64_t HW, float *mean, float *var_sum) {
    const int64_t N = B * HW;
    for (int64_t k = 0; k < C; k++) {
        double s = 0;
        for (int64_t n = 0; n < B; n++)
            for (int64_t i = 0; i < HW; i++) s += (double)x[(n * C + k) * HW + i];
        const float m = (float)(s / (double)N);
        mean[k] = m;
        double v = 0;
        for (int64_t n = 0; n < B; n++)
            for (int64_t i = 0; i < HW; i++) {
                float d = x[(n * C + k) * HW + i] - m;
                v += (double)(d * d);
            }
        var_sum[k] = (float)v;
    }
}

static void bn_transform(const bn_obj_t *o, const float *x, const float *w, const float *b, int64_t B, int64_t C,
                         int64_t HW, int rows, const float *mean, const float *invstd, float *y, float *buf);

/* native_batch_norm, training (Normalization.cpp batch_norm_cpu with train=True on contiguous input):
 *   stats     as above, by layout;
 *   save_mean = mean; save_invstd = 1 / sqrt((double)(var_sum / n) + eps), 0 where var and eps are 0
 *             (InvStd<double>, var_sum / n a float division);
 *   running   mean: m*mean + (1 - m)*rm in float, fma(m, mean, (1 - m)*rm) where run (GCC fuses the
 *             first product); var: m * (double)(var_sum / (n - 1)) + (1 - m)*rv, the first product
 *             and the sum in double (m = (float)momentum; that product of two floats is exact, so
 *             fusing it changes nothing);
 *   output    alpha = invstd * w, beta = b - mean * alpha (fused where sc), y = x * alpha + beta
 *             (fused where vc), the same in vector body and tail.
 * x, y: (B, C, HW) or, cl = 1, (B*HW, C); w, b (C,) or NULL; rm, rv (C,) or NULL, updated in place;
 * save_mean, save_invstd (C,); buf (threads * C,) scratch. */
void batch_norm_forward(profile_t p, const float *x, const float *w, const float *b, float *rm, float *rv,
                        int64_t B, int64_t C, int64_t HW, int32_t cl, double momentum, double eps, float *y,
                        float *save_mean, float *save_invstd, float *buf) {
    const bn_obj_t o = bn_obj(&p);
    const int64_t n = B * HW;
    const int rows = cl || HW == 1;
    float *var_sum = save_invstd;
    if (rows) bn_stats_rows(&p, &o, x, n, C, save_mean, var_sum, buf);
    else bn_stats_nchw(x, B, C, HW, save_mean, var_sum);
    const float m = (float)momentum;
    for (int64_t k = 0; k < C; k++) {
        const float vs = var_sum[k];
        const float var = vs / (float)n;
        save_invstd[k] = (var != 0.0f || eps != 0.0) ? (float)(1.0 / sqrt((double)var + eps)) : 0.0f;
        if (rm) rm[k] = o.run ? fmaf(m, save_mean[k], (1.0f - m) * rm[k]) : m * save_mean[k] + (1.0f - m) * rm[k];
        if (rv) {
            double unbiased = (double)(vs / (float)(n - 1));
            rv[k] = (float)((double)m * unbiased + (double)((1.0f - m) * rv[k]));
        }
    }
    bn_transform(&o, x, w, b, B, C, HW, rows, save_mean, save_invstd, y, buf);
}

/* native_batch_norm, eval (training=False, running stats given):
 * batch_norm_cpu_collect_linear_and_constant_terms with mean = running_mean and invstd = 1 / std::sqrt(running_var + (float)eps) in float, then the
 * same transform as training. */
void batch_norm_eval_forward(profile_t p, const float *x, const float *w, const float *b, const float *rm,
                             const float *rv, int64_t B, int64_t C, int64_t HW, int32_t cl, double eps, float *y,
                             float *invstd, float *buf) {
    const bn_obj_t o = bn_obj(&p);
    for (int64_t k = 0; k < C; k++) invstd[k] = 1.0f / sqrtf(rv[k] + (float)eps);
    bn_transform(&o, x, w, b, B, C, HW, cl || HW == 1, rm, invstd, y, buf);
}

/* y = x * alpha + beta per channel: alpha = invstd * w, beta = b - mean * alpha (scalar: fused where
 * sc), the multiply-add fused where vc, the same in vector body and tail. buf (2 * C,) holds alpha, beta. */
static void bn_transform(const bn_obj_t *o, const float *x, const float *w, const float *b, int64_t B, int64_t C,
                         int64_t HW, int rows, const float *mean, const float *invstd, float *y, float *buf) {
    const int64_t n = B * HW;
    const int vc = o->vc;
    for (int64_t k = 0; k < C; k++) {
        const float alpha = invstd[k] * (w ? w[k] : 1.0f);
        const float beta = BN_MADD(o->sc, -mean[k], alpha, b ? b[k] : 0.0f);
        buf[k] = alpha;
        buf[C + k] = beta;
    }
    if (rows) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < C; k++) y[i * C + k] = BN_MADD(vc, x[i * C + k], buf[k], buf[C + k]);
    } else {
        for (int64_t bc = 0; bc < B * C; bc++) {
            const float alpha = buf[bc % C], beta = buf[C + bc % C];
            for (int64_t i = 0; i < HW; i++) y[bc * HW + i] = BN_MADD(vc, x[bc * HW + i], alpha, beta);
        }
    }
}

/* native_batch_norm_backward, training (batch_norm_cpu_backward_stub):
 * NCHW (image > 1), per channel: sum and dotp in double over the batch, each image's part a float
 * vec::reduce_all(dy) and vec::map2_reduce_all((x - mean) * dy) (bn_reduce, its acc + t*dy fused as
 * red says); k = (float)dotp * invstd * invstd / N and grad_mean = (float)(sum / N); dx = (x - mean) *
 * k, grad_x = (dy - grad_mean - dx) * invstd * w, the subtraction of dx fused where vc (vec::map2:
 * body and tail); grad_w = dotp * invstd (double), grad_b = sum.
 * Rows (NHWC or NC11): per-thread float buffers (sum + dy; dotp + (x - mean) * dy, fused where vc)
 * over at::parallel_for(0, N, 1), each channel's T partials added in double; then the same dx in
 * float vectors of L channels, its subtraction of dx fused where vc in the full vectors, and in the
 * partial last one where cl_tail; grad_w = dotp * invstd in float.
 * Shapes as batch_norm_forward; g, gx like x; gw, gb (C,) ; buf (2 * threads * C,) scratch. */
void batch_norm_backward(profile_t p, const float *g, const float *x, const float *w, const float *save_mean,
                         const float *save_invstd, int64_t B, int64_t C, int64_t HW, int32_t cl, float *gx, float *gw,
                         float *gb, float *buf) {
    const bn_obj_t o = bn_obj(&p);
    const int64_t N = B * HW;
    const int vc = o.vc;
    if (!(cl || HW == 1)) {
        for (int64_t k = 0; k < C; k++) {
            const float mean = save_mean[k], invstd = save_invstd[k], wk = w ? w[k] : 1.0f;
            double sum = 0, dotp = 0;
            for (int64_t n = 0; n < B; n++) {
                const float *xp = x + (n * C + k) * HW, *dp = g + (n * C + k) * HW;
                sum += (double)bn_reduce(o.tree, o.L, dp, 0.0f, NULL, HW, 0);
                dotp += (double)bn_reduce(o.tree, o.L, xp, mean, dp, HW, o.red);
            }
            const float kk = (float)dotp * invstd * invstd / (float)N;
            const float gm = (float)(sum / (double)N);
            for (int64_t n = 0; n < B; n++) {
                const float *xp = x + (n * C + k) * HW, *dp = g + (n * C + k) * HW;
                float *op = gx + (n * C + k) * HW;
                for (int64_t i = 0; i < HW; i++) {
                    const float d = xp[i] - mean;
                    const float t = vc ? fmaf(-d, kk, dp[i] - gm) : (dp[i] - gm) - d * kk;
                    op[i] = t * invstd * wk;
                }
            }
            gw[k] = (float)(dotp * (double)invstd);
            gb[k] = (float)sum;
        }
        return;
    }
    const int64_t T = p.threads;
    float *sb = buf, *db = buf + T * C;
    memset(buf, 0, sizeof(float) * (size_t)(2 * T * C));
    for (int64_t t = 0; t < T; t++) {
        int64_t b, e;
        if (!bn_rows(N, T, t, &b, &e)) continue;
        for (int64_t i = b; i < e; i++)
            for (int64_t k = 0; k < C; k++) {
                sb[t * C + k] = sb[t * C + k] + g[i * C + k];
                db[t * C + k] = BN_MADD(vc, x[i * C + k] - save_mean[k], g[i * C + k], db[t * C + k]);
            }
    }
    for (int64_t k = 0; k < C; k++) {
        double s = 0, d = 0;
        for (int64_t t = 0; t < T; t++) s += (double)sb[t * C + k];
        for (int64_t t = 0; t < T; t++) d += (double)db[t * C + k];
        sb[k] = (float)s;
        db[k] = (float)d;
    }
    const int64_t fused = !vc ? 0 : o.cl_tail ? C : C - C % o.L;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = 0; k < C; k++) {
            const float invstd = save_invstd[k];
            const float kk = db[k] * invstd * invstd / (float)N;
            const float d = x[i * C + k] - save_mean[k];
            const float gm = sb[k] / (float)N;
            const float t = k < fused ? fmaf(-d, kk, g[i * C + k] - gm) : (g[i * C + k] - gm) - d * kk;
            gx[i * C + k] = t * invstd * (w ? w[k] : 1.0f);
        }
    for (int64_t k = 0; k < C; k++) {
        gw[k] = db[k] * save_invstd[k];
        gb[k] = sb[k];
    }
}

/* ------------------------------------------------------------------ batch_norm (ATen's TensorIterator path) */

/* Normalization.cpp's path for an input that is neither contiguous nor channels-last (a transposed
 * (N, L, C) sequence as BatchNorm1d's (N, C, L), a permuted or sliced image), and for a backward whose
 * input and grad_out do not share one of those layouts. Normalization.cpp is built once per
 * architecture, on x86 without FMA: every step below is one IEEE rounding, at every capability, and the
 * per-channel parallel_for changes no bit. On aarch64 (``fused``; measured on emulated Neoverse N1, V2 and
 * V1) GCC contracted the statistics' double sums of squares and running averages (the first product
 * fused) and the transform's last step, fma(((x - mean) * invstd), w, b), not the backward's. Each channel's elements come in the order ATen's serial
 * TensorIterator loop visits them (the caller gathers them: x, g (C, M), M = n the elements a channel).
 *
 * batch_norm_generic_stats (batch_norm_cpu_update_stats_template, the non-contiguous branch): mean is
 * at::mean's (the caller's float sum and division), widened; var_sum += (x - mean) * (x - mean) in
 * double in the loop's order; invstd = 1 / sqrt(var_sum / n + eps) in double (InvStd, 0 where both are
 * 0); running_mean = momentum * mean + (1 - momentum) * running_mean and running_var = momentum *
 * (var_sum / (n - 1)) + (1 - momentum) * running_var in double (momentum not rounded to float, unlike
 * the kernels' branch), each stored as float. rm, rv (C,) or NULL, updated in place. */
void batch_norm_generic_stats(const float *x, const float *mean, int64_t C, int64_t M, double momentum, double eps,
                              int32_t fused, float *invstd, float *rm, float *rv) {
    for (int64_t f = 0; f < C; f++) {
        const double m = (double)mean[f];
        double var_sum = 0;
        for (int64_t j = 0; j < M; j++) {
            const double d = (double)x[f * M + j] - m;
            var_sum = fused ? fma(d, d, var_sum) : var_sum + d * d;
        }
        const double var = var_sum / (double)M;
        invstd[f] = (var != 0.0 || eps != 0.0) ? (float)(1.0 / sqrt(var + eps)) : 0.0f;
        const double keep = 1.0 - momentum;
        if (rm) rm[f] = (float)(fused ? fma(momentum, m, keep * (double)rm[f]) : momentum * m + keep * (double)rm[f]);
        const double unbiased = var_sum / (double)(M - 1);
        if (rv) rv[f] = (float)(fused ? fma(momentum, unbiased, keep * (double)rv[f]) : momentum * unbiased + keep * (double)rv[f]);
    }
}

/* batch_norm_cpu_transform_input_template's TensorIterator (training: the saved mean and invstd; eval:
 * running_mean and 1 / sqrt(running_var + eps) of float tensor ops): y = ((x - mean) * invstd) * w + b
 * in float, left to right (the last step fused where ``fused``), w 1 and b 0 where not given (x + 0: a
 * -0 becomes +0). x, y (C, M); w, b (C,) or NULL. */
void batch_norm_generic_transform(const float *x, const float *mean, const float *invstd, const float *w,
                                  const float *b, int64_t C, int64_t M, int32_t fused, float *y) {
    for (int64_t f = 0; f < C; f++) {
        const float wf = w ? w[f] : 1.0f, bf = b ? b[f] : 0.0f;
        for (int64_t j = 0; j < M; j++) y[f * M + j] = madd(fused, (x[f * M + j] - mean[f]) * invstd[f], wf, bf);
    }
}

/* batch_norm_backward_cpu_template's TensorIterator path, training: dotp += (x - mean) * g (a float
 * product, widened) in double in the reduce iterator's order (input's strides first, then grad_out's);
 * k = (float)dotp * invstd * invstd / n and grad_mean = sum / n in float (sum: at::sum(grad_out), the
 * caller's); gx = (g - grad_mean - (x - mean) * k) * invstd * w in float (w 1 where not given); gw =
 * dotp * invstd in double, stored as float. x, g, gx (C, M); mean, invstd, sum, gw (C,); w (C,) or NULL. */
void batch_norm_generic_backward(const float *x, const float *g, const float *mean, const float *invstd,
                                 const float *w, const float *sum, int64_t C, int64_t M, float *gx, float *gw) {
    for (int64_t f = 0; f < C; f++) {
        const float m = mean[f], s = invstd[f], wf = w ? w[f] : 1.0f;
        double dotp = 0;
        for (int64_t j = 0; j < M; j++) dotp += (double)((x[f * M + j] - m) * g[f * M + j]);
        const float k = (float)dotp * s * s / (float)M;
        const float grad_mean = sum[f] / (float)M;
        for (int64_t j = 0; j < M; j++) {
            const float gi = (x[f * M + j] - m) * k;
            gx[f * M + j] = (g[f * M + j] - grad_mean - gi) * s * wf;
        }
        gw[f] = (float)(dotp * (double)s);
    }
}

/* ------------------------------------------------------------------ grid_sampler_2d (bilinear, nearest; zeros, border) */

/* ComputeLocation<float, Zeros, align_corners>::apply (cpu/GridSamplerKernel.cpp): the grid value
 * unnormalised to the input's pixel coordinates, align_corners: (v + 1) * ((size - 1) / 2);
 * else (v + 1) * (size / 2) - 0.5, written with Vectorized operators, which GCC contracts to
 * fma(v + 1, size / 2, -0.5) where it contracts them (vec_contracted: the x86 AVX2 object, the aarch64
 * NEON-typed objects of N1 and V2); the x86 default build and V1's SVE256 object compute it as written.
 * Every grid_sampler_2d multiply-add below is such a Vectorized expression (vcmadd). */
static inline float gs_unnormalize(const profile_t *p, float v, int64_t size, int align) {
    if (align) return (v + 1.0f) * ((float)(size - 1) / 2);
    return vcmadd(p, v + 1.0f, (float)size / 2, -0.5f);
}

/* The scaling factor apply_get_grad returns as d(location)/d(grid value). */
static inline float gs_scale(int64_t size, int align) {
    return align ? (float)(size - 1) / 2 : (float)size / 2;
}

/* ComputeLocation<float, padding, align>::apply: zeros padding the unnormalised location as it is;
 * border padding clip_coordinates, min(max(u, 0), size - 1) (operands ordered so a NaN clamps to 0;
 * the impl refuses NaN operands). */
static inline float gs_coord(const profile_t *p, float v, int64_t size, int align, int border) {
    float u = gs_unnormalize(p, v, size, align);
    if (!border) return u;
    u = u > 0.0f ? u : 0.0f;
    return u < (float)(size - 1) ? u : (float)(size - 1);
}

/* apply_get_grad's multiplier: the scale, or with border padding the scale where the unnormalised
 * location lies strictly inside (0, size - 1) and +0 where clip_coordinates_get_grad clipped it (or it
 * sits on a border: the bit-pattern tests count the borders as out of bounds). */
static inline float gs_mult(const profile_t *p, float v, int64_t size, int align, int border) {
    float sf = gs_scale(size, align);
    if (!border) return sf;
    float u = gs_unnormalize(p, v, size, align);
    return (u > 0.0f && u < (float)(size - 1)) ? sf : 0.0f;
}

/* convert_to_int_of_same_size of a floored coordinate: CVTTPS2DQ, whose answer for NaN and for
 * values outside int32 is INT32_MIN (the default build's static_cast compiles to CVTTSS2SI: alike).
 * aarch64's FCVTZS saturates to INT32_MAX above instead; that index and its + 1 (wrapping to INT32_MIN)
 * lie outside every plane as INT32_MIN and INT32_MIN + 1 do, so the bits are the same. */
static inline int32_t gs_int(float f) {
    if (!(f >= -2147483648.0f && f < 2147483648.0f)) return INT32_MIN;
    return (int32_t)f;
}

/* compute_interp_params for one lane: the corner (iy, ix) north-west of (x, y), the distances to the
 * four sides and the four corners' weights, nw = s*e, ne = s*w, sw = n*e, se = n*w. */
typedef struct {
    int32_t ix, iy;
    float n, s, w, e, wt[4];
} gs_lane_t;

static inline gs_lane_t gs_params(float x, float y) {
    gs_lane_t l;
    float xw = floorf(x), yn = floorf(y);
    l.w = x - xw;
    l.e = 1.0f - l.w;
    l.n = y - yn;
    l.s = 1.0f - l.n;
    l.wt[0] = l.s * l.e;
    l.wt[1] = l.s * l.w;
    l.wt[2] = l.n * l.e;
    l.wt[3] = l.n * l.w;
    l.ix = gs_int(xw);
    l.iy = gs_int(yn);
    return l;
}

/* Corner k (0 nw, 1 ne, 2 sw, 3 se) of a lane: its flat offset in an (H, W) plane, or -1 where
 * mask_gather reads the zero (outside the plane; the masks compare the int32 indices, i + 1 wrapping
 * as the vector add does). */
static inline int64_t gs_corner(const gs_lane_t *l, int k, int64_t H, int64_t W) {
    int32_t xx = (int32_t)((uint32_t)l->ix + (uint32_t)(k & 1));
    int32_t yy = (int32_t)((uint32_t)l->iy + (uint32_t)(k >> 1));
    if (xx > -1 && xx < W && yy > -1 && yy < H) return (int64_t)yy * W + xx;
    return -1;
}

/* ApplyGridSample<float, 2, Bilinear, Zeros, align>::forward, per lane and channel:
 * out = nw_val*nw + ne_val*ne + sw_val*sw + se_val*se, left to right; where GCC contracts Vectorized
 * operators (vec_contracted) each later product is fused into the sum before it, the first sum's
 * product by the target's choice: fma(se_val, se, fma(sw_val, sw, first)) with first = fma(ne_val, ne,
 * nw_val*nw) in the AVX2 object, fma(nw_val, nw, ne_val*ne) in the aarch64 NEON-typed objects (N1, V2;
 * measured). The x86 default build and V1's SVE256 object: as written. Every output point is its own
 * lane, so neither the vector width nor the thread count (ATen splits the batch, parallel_for over N)
 * reaches the forward's bits. */
/* ApplyGridSample<float, 2, Nearest, padding, align>: the location rounded half to even
 * (_mm256_round_ps to nearest, std::nearbyint in the default build), read where inside the plane, else
 * 0. Its flat offset, or -1. */
/* a*b + c*d written with Vectorized operators: as written where GCC does not contract them; else one
 * product fused into the sum, the second on x86 (fma(c, d, a*b)), the first on aarch64 (fma(a, b, c*d)). */
static inline float gs_pair(const profile_t *p, float a, float b, float c, float d) {
    if (!vec_contracted(p)) return a * b + c * d;
    return is_arm(p) ? fmaf(a, b, c * d) : fmaf(c, d, a * b);
}

static inline int64_t gs_nearest(const profile_t *p, const float *g, int64_t H, int64_t W, int align, int border) {
    int32_t ix = gs_int(nearbyintf(gs_coord(p, g[0], W, align, border)));
    int32_t iy = gs_int(nearbyintf(gs_coord(p, g[1], H, align, border)));
    if (ix > -1 && ix < W && iy > -1 && iy < H) return (int64_t)iy * W + ix;
    return -1;
}

void grid_sample_forward(profile_t p, const float *x, const float *grid, float *out, int64_t N, int64_t C,
                         int64_t H, int64_t W, int64_t P, int32_t align, int32_t nearest, int32_t border) {
    for (int64_t b = 0; b < N; b++) {
        const float *xb = x + b * C * H * W;
        for (int64_t q = 0; q < P; q++) {
            float gx = grid[(b * P + q) * 2], gy = grid[(b * P + q) * 2 + 1];
            if (nearest) {
                int64_t o = gs_nearest(&p, grid + (b * P + q) * 2, H, W, align, border);
                for (int64_t c = 0; c < C; c++) out[(b * C + c) * P + q] = o < 0 ? 0.0f : xb[c * H * W + o];
                continue;
            }
            gs_lane_t l = gs_params(gs_coord(&p, gx, W, align, border), gs_coord(&p, gy, H, align, border));
            int64_t off[4];
            for (int k = 0; k < 4; k++) off[k] = gs_corner(&l, k, H, W);
            for (int64_t c = 0; c < C; c++) {
                const float *plane = xb + c * H * W;
                float v[4];
                for (int k = 0; k < 4; k++) v[k] = off[k] < 0 ? 0.0f : plane[off[k]];
                float acc = gs_pair(&p, v[0], l.wt[0], v[1], l.wt[1]);
                for (int k = 2; k < 4; k++) acc = vcmadd(&p, v[k], l.wt[k], acc);
                out[(b * C + c) * P + q] = acc;
            }
        }
    }
}

/* ApplyGridSample<...>::backward over one slice of the grid: Vectorized<float>'s output points at a
 * time (profile lanes: 8 on x86 and V1's SVE256, 4 on N1's NEON and V2's SVE128), the last of each run
 * shorter. grid_sample_2d_grid_slice_iterator takes the slice's points
 * as one run where the grid is contiguous, or its (H, W) points are (the x and y planes of an
 * (N, 2, H, W) tensor), else one run per row of W points (``row``). Per chunk and channel, grad_input gets each corner's
 * weight*grad_output added lane by lane (mask_scatter_add: corner nw for every lane, then ne, sw,
 * se), so a pixel that several points reach sums their terms in the order chunk, corner, lane.
 * The grid's gradient accumulates over channels per lane:
 *   gx += ((ne_val - nw_val)*s + (se_val - sw_val)*n) * gOut,
 *   gy += ((sw_val - nw_val)*e + (se_val - ne_val)*w) * gOut,
 * contracted where vec_contracted (measured: the AVX2 object, N1, V2) as gx = fma(gs_pair(...), gOut,
 * gx): x86's fma(se_val - sw_val, n, (ne_val - nw_val)*s), aarch64's fma(ne_val - nw_val, s,
 * (se_val - sw_val)*n), and alike for gy; then times the unnormalisation's scale. */
void grid_sample_backward(profile_t p, const float *go, const float *x, const float *grid, float *gx_in,
                          float *ggrid, int64_t N, int64_t C, int64_t H, int64_t W, int64_t P, int64_t row,
                          int32_t align, int32_t nearest, int32_t border) {
    enum { MAXSTEP = 16 };
    const int64_t STEP = p.lanes < MAXSTEP ? p.lanes : MAXSTEP;
    for (int64_t b = 0; b < N; b++) {
        const float *xb = x + b * C * H * W;
        if (nearest) { /* grad_output added at each point's pixel in point order per plane; the grid's 0 */
            for (int64_t q = 0; q < P; q++) {
                int64_t o = gs_nearest(&p, grid + (b * P + q) * 2, H, W, align, border);
                if (gx_in && o >= 0)
                    for (int64_t c = 0; c < C; c++) gx_in[(b * C + c) * H * W + o] += go[(b * C + c) * P + q];
                ggrid[(b * P + q) * 2] = ggrid[(b * P + q) * 2 + 1] = 0.0f;
            }
            continue;
        }
        for (int64_t q0 = 0, len; q0 < P; q0 += len) {
            int64_t end = (q0 / row + 1) * row; /* the run's end */
            len = end - q0 < STEP ? end - q0 : STEP;
            gs_lane_t l[MAXSTEP];
            int64_t off[MAXSTEP][4];
            float ax[MAXSTEP], ay[MAXSTEP], mx[MAXSTEP], my[MAXSTEP];
            for (int64_t j = 0; j < len; j++) {
                const float *g = grid + (b * P + q0 + j) * 2;
                l[j] = gs_params(gs_coord(&p, g[0], W, align, border), gs_coord(&p, g[1], H, align, border));
                mx[j] = gs_mult(&p, g[0], W, align, border);
                my[j] = gs_mult(&p, g[1], H, align, border);
                for (int k = 0; k < 4; k++) off[j][k] = gs_corner(&l[j], k, H, W);
                ax[j] = ay[j] = 0.0f;
            }
            for (int64_t c = 0; c < C; c++) {
                const float *plane = xb + c * H * W;
                const float *gop = go + (b * C + c) * P + q0;
                if (gx_in) {
                    float *gplane = gx_in + (b * C + c) * H * W;
                    for (int k = 0; k < 4; k++)
                        for (int64_t j = 0; j < len; j++)
                            if (off[j][k] >= 0) gplane[off[j][k]] += l[j].wt[k] * gop[j];
                }
                for (int64_t j = 0; j < len; j++) {
                    float v[4];
                    for (int k = 0; k < 4; k++) v[k] = off[j][k] < 0 ? 0.0f : plane[off[j][k]];
                    float tx = gs_pair(&p, v[1] - v[0], l[j].s, v[3] - v[2], l[j].n);
                    float ty = gs_pair(&p, v[2] - v[0], l[j].e, v[3] - v[1], l[j].w);
                    ax[j] = vcmadd(&p, tx, gop[j], ax[j]);
                    ay[j] = vcmadd(&p, ty, gop[j], ay[j]);
                }
            }
            for (int64_t j = 0; j < len; j++) {
                ggrid[(b * P + q0 + j) * 2] = ax[j] * mx[j];
                ggrid[(b * P + q0 + j) * 2 + 1] = ay[j] * my[j];
            }
        }
    }
}

/* ------------------------------------------------------------------ upsample_bicubic2d (forward) */

/* Per output index i of one dim of a bicubic resize (HelperInterpCubic::compute_indices_weights in
 * cpu/UpSampleKernel.cpp, and the same steps in UpSampleBicubic2d.cpp's backward), float opmath: the
 * source position r = scale*i (aligned corners) or scale*(i + 0.5) - 0.5; guard_index_and_lambda: k =
 * min(floor(r), in - 1), t = clamp(r - k, 0, 1); get_cubic_upsample_coefficients with A = -0.75:
 * w0 = cc2(t + 1), w1 = cc1(t), w2 = cc1(1 - t), w3 = cc2(2 - t) where cc1(x) = ((A+2)*x - (A+3))*x*x
 * + 1 and cc2(x) = ((A*x - 5A)*x + 8A)*x - 4A. ``first``: the source fma(scale, i + 0.5, -0.5), cc1's
 * first step fma(A+2, x, -(A+3)) and cc2's first two fma(fma(A, x, -5A), x, 8A) fused; ``last``: their
 * last steps too, cc1 = fma(fma(A+2, x, -(A+3))*x, x, 1), cc2 = fma(fma(fma(A, x, -5A), x, 8A), x,
 * -4A). Taps at clamp(k - 1 + j, 0, in - 1). */
static void cubic_taps(int first, int last, int64_t in, int64_t out, float scale, int align, int64_t *idx,
                       float *wt) {
    const float A = -0.75f;
    for (int64_t i = 0; i < out; i++) {
        float r = align ? scale * (float)i : madd(first, scale, (float)i + 0.5f, -0.5f);
        int64_t k = (int64_t)floorf(r);
        if (k > in - 1) k = in - 1;
        float t = r - (float)k;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        float xs[4] = {t + 1.0f, t, 1.0f - t, (1.0f - t) + 1.0f};
        for (int j = 0; j < 4; j++) {
            float x = xs[j], c;
            if (j == 1 || j == 2)
                c = madd(last, madd(first, A + 2.0f, x, -(A + 3.0f)) * x, x, 1.0f);
            else
                c = madd(last, madd(first, madd(first, A, x, -(5.0f * A)), x, 8.0f * A), x, -4.0f * A);
            int64_t at = k - 1 + j;
            idx[i * 4 + j] = at < 0 ? 0 : (at > in - 1 ? in - 1 : at);
            wt[i * 4 + j] = c;
        }
    }
}

/* The forward's taps: the AVX2 object and the aarch64 NEON-typed objects (N1, V2; measured) fuse the
 * first steps, not the last; V1's SVE256 object (measured) the last too. */
static void bicubic_taps(const profile_t *p, int64_t in, int64_t out, float scale, int align, int64_t *idx,
                         float *wt) {
    cubic_taps(p->contract, obj_kind(p) == OBJ_SVE, in, out, scale, align, idx, wt);
}

/* Interpolate<2, float, float, int64_t, 4>::eval per output element (basic_loop over TensorIterator's
 * elements: each its own, so neither layout nor thread count reaches the bits): for each of the four
 * rows (height taps), the width taps' sum, then the rows' sum with the height weights, each as
 * o = t0*w0; o += t1*w1; o += t2*w2; o += t3*w3, which the AVX2 object (measured) contracts to
 * fma(t3, w3, fma(t2, w2, fma(t0, w0, t1*w1))). */
static inline float bicubic_sum(const profile_t *p, const float *t, const float *w) {
    float o;
    if (p->contract) {
        o = fmaf(t[0], w[0], t[1] * w[1]);
        o = fmaf(t[2], w[2], o);
        return fmaf(t[3], w[3], o);
    }
    o = t[0] * w[0];
    for (int j = 1; j < 4; j++) o += t[j] * w[j];
    return o;
}

void upsample_bicubic(profile_t p, const float *x, float *out, int64_t P, int64_t H, int64_t W, int64_t OH,
                      int64_t OW, float scale_h, float scale_w, int32_t align, int64_t *hi, float *hw, int64_t *wi,
                      float *ww) {
    bicubic_taps(&p, H, OH, scale_h, align, hi, hw);
    bicubic_taps(&p, W, OW, scale_w, align, wi, ww);
    for (int64_t q = 0; q < P; q++) {
        const float *plane = x + q * H * W;
        for (int64_t a = 0; a < OH; a++)
            for (int64_t b = 0; b < OW; b++) {
                float rows[4];
                for (int j = 0; j < 4; j++) {
                    float taps[4];
                    const float *line = plane + hi[a * 4 + j] * W;
                    for (int k = 0; k < 4; k++) taps[k] = line[wi[b * 4 + k]];
                    rows[j] = bicubic_sum(&p, taps, ww + b * 4);
                }
                out[(q * OH + a) * OW + b] = bicubic_sum(&p, rows, hw + a * 4);
            }
    }
}

/* ------------------------------------------------------------------ upsample_bicubic2d (backward) */

/* upsample_bicubic2d_backward_out_frame (UpSampleBicubic2d.cpp), float. A file outside native/cpu:
 * one object per architecture, built without -mfma on x86 (never fused, whatever the capability) and
 * contracted by GCC on aarch64 (every core alike): its taps (cubic_taps) fuse every step on aarch64,
 * none on x86. The frame: per plane (ATen hands whole planes to its threads, so the thread count never reaches the
 * bits), per output (oh, ow) in row order, the 16 taps with the width tap i outer and the height tap j
 * inner, gx[y_j][x_i] += (g * wy_j) * wx_i onto zeros; taps clamped at the edge take every update in that
 * order. The aarch64 object (its machine code read) fuses only the j = 1 updates, fma(g * wy_1, wx_i, gx),
 * and adds the other products rounded. Equal sizes copy. */
void upsample_bicubic_backward(profile_t p, const float *go, float *gx, int64_t P, int64_t H, int64_t W, int64_t OH,
                               int64_t OW, float scale_h, float scale_w, int32_t align, int64_t *hi, float *hw,
                               int64_t *wi, float *ww) {
    if (H == OH && W == OW) {
        memcpy(gx, go, (size_t)(P * H * W) * sizeof(float));
        return;
    }
    const int fused = is_arm(&p);
    cubic_taps(fused, fused, H, OH, scale_h, align, hi, hw);
    cubic_taps(fused, fused, W, OW, scale_w, align, wi, ww);
    for (int64_t q = 0; q < P; q++) {
        float *plane = gx + q * H * W;
        for (int64_t a = 0; a < OH; a++)
            for (int64_t b = 0; b < OW; b++) {
                float g = go[(q * OH + a) * OW + b];
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++) {
                        float *acc = plane + hi[a * 4 + j] * W + wi[b * 4 + i];
                        float gy = g * hw[a * 4 + j];
                        *acc = fused && j == 1 ? fmaf(gy, ww[b * 4 + i], *acc) : *acc + gy * ww[b * 4 + i];
                    }
            }
    }
}

/* ------------------------------------------------------------------ _upsample_bicubic2d_aa (forward) */

/* HelperInterpCubic::aa_filter<float> (cpu/UpSampleKernel.cpp), Keys' cubic with A = -0.5 on |x|:
 * cubic_convolution1 below 1, cubic_convolution2 below 2, else 0, in float. ``first``: the first steps
 * fused as in cubic_taps (fma(A+2, x, -(A+3)); fma(fma(A, x, -5A), x, 8A)), ``last``: the last too
 * (cc1 = fma(fma(A+2, x, -(A+3))*x, x, 1), cc2 = fma(.., x, -4A)); the AVX2 object fuses both (measured:
 * the weights read back from one-hot inputs). */
static float aa_cubic(int first, int last, float x) {
    const float A = -0.5f;
    x = fabsf(x);
    if (x < 1.0f) return madd(last, madd(first, A + 2.0f, x, -(A + 3.0f)) * x, x, 1.0f);
    if (x < 2.0f) return madd(last, madd(first, madd(first, A, x, -(5.0f * A)), x, 8.0f * A), x, -4.0f * A);
    return 0.0f;
}

/* HelperInterpLinear::aa_filter<float> (cpu/UpSampleKernel.cpp), the triangle on |x|: 1.0 - x below 1 (a
 * double difference, exact, rounded to float once: float's own 1 - x), else 0; nothing to fuse. */
static float aa_triangle(float x) {
    x = fabsf(x);
    return x < 1.0f ? (float)(1.0 - (double)x) : 0.0f;
}

/* HelperInterpBase::_compute_indices_min_size_weights_aa per output index i of one dim, float weights
 * (scalar_t of a float input), with C++'s promotions to double where ATen writes a double literal; ``cubic``:
 * HelperInterpCubic's filter (aa_cubic, interp_size 4), else HelperInterpLinear's (aa_triangle, interp_size
 * 2): support = scale >= 1 ? (interp_size*0.5)*scale : interp_size*0.5 (rounded to float); K =
 * 2*ceil(support) + 1 weights per output; center = (float)(scale*(i + 0.5)); invscale = scale >= 1 ?
 * (float)(1.0/scale) : 1; xmin = max((int64)((center - support) + 0.5), 0); xsize = clamp(min((int64)((center
 * + support) + 0.5), in) - xmin, 0, K); w_j = filter((float)((((float)(j + xmin) - center) + 0.5)*invscale)),
 * the float total of the w_j in j order, each w_j /= total where total != 0. */
static void aa_taps(int cubic, int first, int last, int64_t in, int64_t out, float scale, int64_t K, int64_t *xmin,
                    int64_t *xsize, float *wt) {
    const double half = cubic ? 2.0 : 1.0; /* interp_size * 0.5 */
    const float support = scale >= 1.0f ? (float)(half * (double)scale) : (float)half;
    const float invscale = scale >= 1.0f ? (float)(1.0 / (double)scale) : 1.0f;
    for (int64_t i = 0; i < out; i++) {
        const float center = (float)((double)scale * ((double)i + 0.5));
        int64_t lo = (int64_t)((double)(center - support) + 0.5);
        lo = lo < 0 ? 0 : lo;
        int64_t hi = (int64_t)((double)(center + support) + 0.5);
        int64_t n = (hi < in ? hi : in) - lo;
        n = n < 0 ? 0 : (n > K ? K : n);
        float *w = wt + i * K, total = 0.0f;
        for (int64_t j = 0; j < n; j++) {
            const float x = (float)(((double)((float)(j + lo) - center) + 0.5) * (double)invscale);
            w[j] = cubic ? aa_cubic(first, last, x) : aa_triangle(x);
            total += w[j];
        }
        if (total != 0.0f)
            for (int64_t j = 0; j < n; j++) w[j] /= total;
        xmin[i] = lo;
        xsize[i] = n;
    }
}

/* One separable pass (_separable_upsample_generic_Nd_kernel_impl_single_dim; basic_loop_aa_horizontal /
 * _vertical's interpolate_aa_single_dim): ``lines`` lines of ``in`` samples ``inner`` apart, each output
 * sample o = t0*w0; o += t_j*w_j for j = 1 .. xsize-1 in float. GCC vectorised that loop as an in-order
 * reduction of ``lanes``-lane products: its first lanes*floor((xsize-1)/lanes) terms are products rounded
 * and added one by one, the rest (the scalar epilogue) fused, o = fma(t_j, w_j, o) (``fused``): 4 lanes in
 * the x86 AVX2 object, the vector length in aarch64's SVE objects (SVE128: 4, SVE256: 8; FADDA's ordered
 * sum); the NEON object (no ordered vector sum) runs the scalar loop, every step fused (``lanes`` 0).
 * Measured (x86 on a Zen 5; aarch64 on emulated Neoverse N1, V2 and V1). The default object rounds every
 * step. ``first_taps``: every output of a line takes output 0's taps and
 * source, as basic_loop_aa_vertical does (it reads the taps and the source stride of the loop's first
 * element only) when the output's width is 1, so that TensorIterator's inner dimension is the height. */
static void aa_pass(int fused, int64_t lanes, const float *x, float *y, int64_t lines, int64_t in, int64_t out,
                    int64_t inner, const int64_t *xmin, const int64_t *xsize, const float *wt, int64_t K,
                    int first_taps) {
    for (int64_t l = 0; l < lines; l++)
        for (int64_t o = 0; o < out; o++)
            for (int64_t e = 0; e < inner; e++) {
                const int64_t u = first_taps ? 0 : o;
                const float *t = x + (l * in + xmin[u]) * inner + e;
                const float *w = wt + u * K;
                const int64_t body = lanes ? (xsize[u] - 1) / lanes * lanes : 0;
                float s = t[0] * w[0];
                for (int64_t j = 1; j < xsize[u]; j++) s = madd(fused && j > body, t[j * inner], w[j], s);
                y[(l * out + o) * inner + e] = s;
            }
}

/* separable_upsample_generic_Nd_kernel_impl<2, HelperInterpCubic or HelperInterpLinear (``cubic``)>(antialias
 * = true), float: equal shapes
 * copy; else the width pass first (when the widths differ) into ``tmp`` (P, H, OW), then the height pass
 * (when the heights differ), each pass's weights as aa_taps. The AVX2 object (also what runs at the
 * AVX-512 capability: upsample_bicubic2d_aa_kernel has a plain REGISTER_DISPATCH) fuses the filter's steps
 * and each sum's scalar epilogue (profile.contract); the aarch64 objects fuse the filter's steps alike and
 * their sums as aa_pass says; the default object rounds every step. One thread
 * or outputs under GRAIN_SIZE (the caller refuses the rest where OW == 1: TensorIterator's chunks would
 * restart the taps mid-line). */
static void upsample_aa(int cubic, profile_t p, const float *x, float *tmp, float *out, int64_t P, int64_t H, int64_t W,
                        int64_t OH, int64_t OW, float scale_h, float scale_w, int64_t KH, int64_t KW, int64_t *hmin,
                        int64_t *hsize, float *hw, int64_t *wmin, int64_t *wsize, float *ww) {
    const int c = p.contract;
    const int64_t lanes = p.aten == ATEN_SVE ? p.lanes : is_arm(&p) ? 0 : 4; /* aa_pass's vectorised body */
    if (H == OH && W == OW) {
        memcpy(out, x, (size_t)(P * H * W) * sizeof(float));
        return;
    }
    const float *src = x;
    if (W != OW) {
        float *dst = H != OH ? tmp : out;
        aa_taps(cubic, c, c, W, OW, scale_w, KW, wmin, wsize, ww);
        aa_pass(c, lanes, src, dst, P * H, W, OW, 1, wmin, wsize, ww, KW, 0);
        src = dst;
    }
    if (H != OH) {
        aa_taps(cubic, c, c, H, OH, scale_h, KH, hmin, hsize, hw);
        aa_pass(c, lanes, src, out, P, H, OH, OW, hmin, hsize, hw, KH, OW == 1);
    }
}

void upsample_bicubic_aa(profile_t p, const float *x, float *tmp, float *out, int64_t P, int64_t H, int64_t W,
                         int64_t OH, int64_t OW, float scale_h, float scale_w, int64_t KH, int64_t KW, int64_t *hmin,
                         int64_t *hsize, float *hw, int64_t *wmin, int64_t *wsize, float *ww) {
    upsample_aa(1, p, x, tmp, out, P, H, W, OH, OW, scale_h, scale_w, KH, KW, hmin, hsize, hw, wmin, wsize, ww);
}

/* _upsample_bilinear2d_aa of float (upsample_bilinear2d_aa_kernel_impl: the generic separable kernel with
 * HelperInterpLinear, the AVX2 object's uint8 path aside): upsample_aa with the triangle filter, the sums
 * vectorised and fused as the bicubic one's (measured on a Zen 5 at each level; the arm64 builds not). */
void upsample_bilinear_aa(profile_t p, const float *x, float *tmp, float *out, int64_t P, int64_t H, int64_t W,
                          int64_t OH, int64_t OW, float scale_h, float scale_w, int64_t KH, int64_t KW, int64_t *hmin,
                          int64_t *hsize, float *hw, int64_t *wmin, int64_t *wsize, float *ww) {
    upsample_aa(0, p, x, tmp, out, P, H, W, OH, OW, scale_h, scale_w, KH, KW, hmin, hsize, hw, wmin, wsize, ww);
}

/* ------------------------------------------------------------------ _upsample_bicubic2d_aa (backward) */

/* cpu_upsample_genNd_backward_aa<float, HelperInterpCubic or HelperInterpLinear> (cpu/UpSampleKernel.cpp; plain
 * REGISTER_DISPATCH): ATen hands whole planes to its threads (the thread count never reaches the bits);
 * per output (oh, ow) in row order, the taps of aa_taps (the same weights as the forward's, fused
 * where profile.contract), per plane gx[ymin + y][xmin + x] += (wx[x]*wy[y])*g, y outer, x inner, onto
 * the zeros of ``gx``; the AVX2 object contracts each update to fma(wx*wy, g, gx), and so do the aarch64
 * objects (measured on emulated Neoverse N1, V2 and V1, all thread counts alike); the default object
 * rounds the product and the sum. */
static void upsample_aa_backward(int cubic, profile_t p, const float *go, float *gx, int64_t P, int64_t H, int64_t W,
                                 int64_t OH, int64_t OW, float scale_h, float scale_w, int64_t KH, int64_t KW,
                                 int64_t *hmin, int64_t *hsize, float *hw, int64_t *wmin, int64_t *wsize, float *ww) {
    const int c = p.contract;
    aa_taps(cubic, c, c, H, OH, scale_h, KH, hmin, hsize, hw);
    aa_taps(cubic, c, c, W, OW, scale_w, KW, wmin, wsize, ww);
    for (int64_t a = 0; a < OH; a++)
        for (int64_t b = 0; b < OW; b++)
            for (int64_t q = 0; q < P; q++) {
                const float g = go[(q * OH + a) * OW + b];
                for (int64_t y = 0; y < hsize[a]; y++)
                    for (int64_t x = 0; x < wsize[b]; x++) {
                        float *acc = gx + (q * H + hmin[a] + y) * W + wmin[b] + x;
                        *acc = madd(c, ww[b * KW + x] * hw[a * KH + y], g, *acc);
                    }
            }
}

void upsample_bicubic_aa_backward(profile_t p, const float *go, float *gx, int64_t P, int64_t H, int64_t W,
                                  int64_t OH, int64_t OW, float scale_h, float scale_w, int64_t KH, int64_t KW,
                                  int64_t *hmin, int64_t *hsize, float *hw, int64_t *wmin, int64_t *wsize, float *ww) {
    upsample_aa_backward(1, p, go, gx, P, H, W, OH, OW, scale_h, scale_w, KH, KW, hmin, hsize, hw, wmin, wsize, ww);
}

/* _upsample_bilinear2d_aa_backward of float (cpu_upsample_genNd_backward_aa<float, HelperInterpLinear>):
 * upsample_aa_backward with the triangle filter (measured on a Zen 5 at each level). */
void upsample_bilinear_aa_backward(profile_t p, const float *go, float *gx, int64_t P, int64_t H, int64_t W,
                                   int64_t OH, int64_t OW, float scale_h, float scale_w, int64_t KH, int64_t KW,
                                   int64_t *hmin, int64_t *hsize, float *hw, int64_t *wmin, int64_t *wsize, float *ww) {
    upsample_aa_backward(0, p, go, gx, P, H, W, OH, OW, scale_h, scale_w, KH, KW, hmin, hsize, hw, wmin, wsize, ww);
}

/* ------------------------------------------------------------------ upsample_bilinear2d (backward) */

/* compute_source_index_and_lambda (cpu/UpSampleKernel.cpp helpers, UpSample.h), float opmath, per
 * output index i of one dim: in == out copies (i0 = i1 = i, lambdas 1 and 0); else the source
 * r = scale*i (aligned corners) or max(scale*(i + 0.5) - 0.5, 0), contracted to fma(scale, i + 0.5,
 * -0.5) in the AVX2 object; guard_index_and_lambda: i0 = min((int64)floorf(r), in - 1), l1 = r - i0
 * clamped to [0, 1] (a scale factor that does not fit the sizes takes the source past the last input);
 * i1 = i0 + (i0 < in - 1), l0 = 1 - l1. */
static void linear_taps(const profile_t *p, int64_t in, int64_t out, float scale, int align, int64_t *idx,
                        float *wt) {
    for (int64_t i = 0; i < out; i++) {
        if (in == out) {
            idx[2 * i] = idx[2 * i + 1] = i;
            wt[2 * i] = 1.0f;
            wt[2 * i + 1] = 0.0f;
            continue;
        }
        float r = align ? scale * (float)i : sfmadd(p, scale, (float)i + 0.5f, -0.5f);
        if (!align && r < 0.0f) r = 0.0f;
        int64_t k = (int64_t)floorf(r);
        if (k > in - 1) k = in - 1;
        idx[2 * i] = k;
        idx[2 * i + 1] = k + (k < in - 1 ? 1 : 0);
        const float l1 = fminf(fmaxf(r - (float)k, 0.0f), 1.0f);
        wt[2 * i] = 1.0f - l1;
        wt[2 * i + 1] = l1;
    }
}

/* upsample_linear_channels_last, loop2d and loop3d (cpu/UpSampleKernel.cpp), float: the kernel ATen's
 * upsample_bilinear2d takes for a float input whenever OH + OW <= 128 (and for a channels-last input of
 * more than 3 channels, or 3 channels at one thread), and upsample_trilinear3d for a channels-last input
 * of more than 3 channels (no output size threshold in 3-D, measured); the others take the per-element
 * generic kernel (upsample_linear_generic below). ATen works on a channels-last copy: per
 * image, per output (od, oh, ow) in row order, the taps of linear_taps, the 2^dims weights (2-D
 * w00 = lh0*lw0, w01 = lh0*lw1, w10 = lh1*lw0, w11 = lh1*lw1; 3-D w000 = (ld0*lh0)*lw0, .., each product
 * rounded), in the order i00, i01, i10, i11 (i000 .. i111), then over the channels: whole vectors of
 * ``lanes`` channels by the recursive Vectorized interpolate, x0*w0 + (x1*w1 + (.. + x7*w7)), which the
 * AVX2 object (measured) contracts innermost first, the last product fused,
 * fma(x0, w0, fma(x1, w1, .. fma(x7, w7, x6*w6))); the remaining C % lanes channels by the scalar sum
 * x0*w0 + x1*w1 + .. from the left, contracted (measured) to fma(x7, w7, .. fma(x2, w2, fma(x0, w0,
 * x1*w1))). The default object fuses nothing. On aarch64 (2-D measured on emulated Neoverse N1, V1, V2)
 * the vector lanes are 4 in the NEON-typed objects (N1, V2), contracted with the other inner product
 * fused, fma(x00, w00, fma(x01, w01, fma(x10, w10, x11*w11))), and 8 in V1's SVE256 object, not
 * contracted; the scalar channels as on AVX2 (contracted alike). ATen splits the images over threads
 * (each output element computed on its own), so the thread count does not reach the bits. Shapes:
 * x (N, C, D, H, W) read at the taps (2-D: D = OD = 1), out (N, C, OD, OH, OW); di, dw (2*OD,), hi, hw
 * (2*OH,), wi, ww (2*OW,): scratch for the taps. */
void upsample_linear_channels_last(profile_t p, const float *x, float *out, int64_t N, int64_t C, int64_t D,
                                   int64_t H, int64_t W, int64_t OD, int64_t OH, int64_t OW, float scale_d,
                                   float scale_h, float scale_w, int32_t align, int32_t dims, int64_t *di, float *dw,
                                   int64_t *hi, float *hw, int64_t *wi, float *ww) {
    if (dims == 3) linear_taps(&p, D, OD, scale_d, align, di, dw);
    linear_taps(&p, H, OH, scale_h, align, hi, hw);
    linear_taps(&p, W, OW, scale_w, align, wi, ww);
    const int64_t vec_end = C - C % (int64_t)p.lanes, terms = dims == 3 ? 8 : 4;
    for (int64_t n = 0; n < N; n++)
        for (int64_t e = 0; e < OD; e++)
            for (int64_t a = 0; a < OH; a++)
                for (int64_t b = 0; b < OW; b++) {
                    int64_t at[8];
                    float wt[8];
                    for (int64_t t = 0; t < terms; t++) { /* t's bits: depth, height, width tap */
                        const int64_t i = dims == 3 ? t >> 2 : 0, j = (t >> 1) & 1, k = t & 1;
                        const float lh = hw[2 * a + j], lw = ww[2 * b + k];
                        wt[t] = dims == 3 ? (dw[2 * e + i] * lh) * lw : lh * lw;
                        at[t] = ((dims == 3 ? di[2 * e + i] : 0) * H + hi[2 * a + j]) * W + wi[2 * b + k];
                    }
                    for (int64_t c = 0; c < C; c++) {
                        const float *vol = x + (n * C + c) * D * H * W;
                        float o;
                        if (c < vec_end) {
                            const int64_t l = terms - 1; /* the innermost product GCC fused: the last on x86,
                                                            the one before on aarch64 */
                            o = is_arm(&p) ? vcmadd(&p, vol[at[l - 1]], wt[l - 1], vol[at[l]] * wt[l])
                                           : vcmadd(&p, vol[at[l]], wt[l], vol[at[l - 1]] * wt[l - 1]);
                            for (int64_t t = l - 2; t >= 0; t--) o = vcmadd(&p, vol[at[t]], wt[t], o);
                        } else {
                            o = sfmadd(&p, vol[at[0]], wt[0], vol[at[1]] * wt[1]);
                            for (int64_t t = 2; t < terms; t++) o = sfmadd(&p, vol[at[t]], wt[t], o);
                        }
                        out[(((n * C + c) * OD + e) * OH + a) * OW + b] = o;
                    }
                }
}

/* upsample_linear_channels_last's loop2d (above) for (N, C, H, W) to (N, C, OH, OW). */
void upsample_bilinear(profile_t p, const float *x, float *out, int64_t N, int64_t C, int64_t H, int64_t W,
                       int64_t OH, int64_t OW, float scale_h, float scale_w, int32_t align, int64_t *hi, float *hw,
                       int64_t *wi, float *ww) {
    upsample_linear_channels_last(p, x, out, N, C, 1, H, W, 1, OH, OW, 1.0f, scale_h, scale_w, align, 2, NULL, NULL,
                                  hi, hw, wi, ww);
}

/* One update gx += w*g of a linear upsampling's backward, aarch64's NaNs where the profile's are
 * (sfmadd_nans); ``rounded``: the product rounded, then the sum (nan2's rules for each: svmul(w, g),
 * svadd(gx, w*g)), as the vector body of cpu_upsample_linear_backward_channels_last's acc runs in V1's
 * SVE256 object, whose svmul/svadd are not contracted. */
static inline float linear_update(const profile_t *p, float w, float g, float acc, int rounded) {
    if (!rounded) return sfmadd_nans(p, w, g, acc);
    const float prod = nan2(p, w * g, w, g);
    return nan2(p, acc + prod, acc, prod);
}

/* Whether plane q (of N*C) of a channels-last gradient (``channels_last``, C channels) falls in
 * cpu_upsample_linear_backward_channels_last's vector body (the first C - C % lanes channels of each
 * pixel) in an object that does not contract it (V1's SVE256; measured: the NEON-typed objects of N1 and
 * V2 fuse it as their scalar tail, as the x86 AVX2 and AVX-512 objects do). */
static inline int linear_rounded(const profile_t *p, int32_t channels_last, int64_t C, int64_t q) {
    return channels_last && is_arm(p) && !vec_contracted(p) && q % C < C - C % p->lanes;
}

/* cpu_upsample_linear_backward, loop2d (cpu/UpSampleMoreKernel.cpp), float (opmath = scalar, so it
 * accumulates straight into grad_input, zeroed by ATen's caller): per plane c (ATen splits the
 * planes over threads, each plane whole in one thread, so the thread count does not reach the bits),
 * per output (oh, ow) in row order, four scalar updates in the order i00, i01, i10, i11:
 * gx[ih][iw] += (lh * lw) * g, which the AVX2 object contracts to fma(lh * lw, g, gx[ih][iw]) (the
 * weights' product rounded first); the default object rounds the product with g, then the sum.
 * Taps that coincide at the edge (i1 == i0) take both updates in that order. A channels-last gradient
 * (``channels_last``; C channels) runs cpu_upsample_linear_backward_channels_last, whose updates of each
 * element come in the same order (each pixel's four taps over all channels), rounded or not as
 * linear_rounded says; aarch64's NaNs on aarch64 (linear_update). */
void upsample_bilinear_backward(profile_t p, const float *go, float *gx, int64_t P, int64_t H, int64_t W,
                                int64_t OH, int64_t OW, float scale_h, float scale_w, int32_t align,
                                int32_t channels_last, int32_t C, int64_t *hi, float *hw, int64_t *wi, float *ww) {
    linear_taps(&p, H, OH, scale_h, align, hi, hw);
    linear_taps(&p, W, OW, scale_w, align, wi, ww);
    for (int64_t q = 0; q < P; q++) {
        float *plane = gx + q * H * W;
        const int rounded = linear_rounded(&p, channels_last, C, q);
        for (int64_t a = 0; a < OH; a++)
            for (int64_t b = 0; b < OW; b++) {
                float g = go[(q * OH + a) * OW + b];
                for (int j = 0; j < 2; j++)
                    for (int k = 0; k < 2; k++) {
                        float *acc = plane + hi[2 * a + j] * W + wi[2 * b + k];
                        *acc = linear_update(&p, hw[2 * a + j] * ww[2 * b + k], g, *acc, rounded);
                    }
            }
    }
}

/* ------------------------------------------------------------------ upsample_linear1d, generic bilinear */

/* The two-tap sum of InterpolateNonSeparable<n, ..., 2> (cpu/UpSampleKernel.cpp): t0*w0 + t1*w1, which
 * the AVX2 object contracts (measured) to fma(t0, w0, t1*w1), and so do the aarch64 objects (measured on
 * emulated Neoverse N1, V2 and V1: the DEFAULT, SVE128 and SVE256 objects give the same bits), there with
 * aarch64's NaNs: the product t1*w1 as nan2, the fused sum as nan3 (its addend's NaN first, inf*0 beside
 * a quiet NaN addend the default +qNaN); the default object rounds both products
 * and adds them, and where both are NaN keeps the first product's in a row's sum over the width and the
 * second's in the sum over the height (``second``; measured in 1-D and 2-D: its compiled additions take
 * the operands in those orders; in 3-D neither order fits every vectorised element, and the caller
 * refuses NaNs and infinities there at the default level). */
static inline float two_taps(const profile_t *p, float t0, float w0, float t1, float w1, int second) {
    if (p->contract) {
        const float b = nan2(p, t1 * w1, t1, w1);
        return nan3(p, fmaf(t0, w0, b), t0, w0, b);
    }
    const float a = t0 * w0, b = t1 * w1;
    if (isnan(a) && isnan(b)) return second ? b : a; /* each already quieted by its product */
    return a + b;
}

/* upsample_generic_Nd_kernel_impl with HelperInterpLinear (cpu/UpSampleKernel.cpp), float: the kernel
 * ATen's upsample_linear1d always runs, and upsample_bilinear2d and upsample_trilinear3d where they do
 * not take their channels-last kernel (2-D: OH + OW over 128 of a channels-first input or of at most 3
 * channels, 3 channels at one thread excepted; 3-D: all but a channels-last input of more than 3
 * channels). Each output element on its own (so the thread count does not reach the bits):
 * the taps and weights of linear_taps per dim, InterpolateNonSeparable's recursion from the outermost
 * dim, each two_taps: a row's sum over the width, then (dims 2, 3) two rows' sums with the height's
 * weights, then (dims 3) two planes' with the depth's. Shapes: x (P, D, H, W), out (P, OD, OH, OW),
 * P = N*C planes; dims 1 and 2 take D = OD = 1 (and dims 1 H = OH = 1); di, dw (2*OD,), hi, hw (2*OH,),
 * wi, ww (2*OW,): scratch for the taps. */
static float linear_row(const profile_t *p, const float *row, const int64_t *wi, const float *ww, int64_t b) {
    return two_taps(p, row[wi[2 * b]], ww[2 * b], row[wi[2 * b + 1]], ww[2 * b + 1], 0);
}

static float linear_plane(const profile_t *p, const float *plane, int64_t W, const int64_t *hi, const float *hw,
                          int64_t a, const int64_t *wi, const float *ww, int64_t b) {
    const float t0 = linear_row(p, plane + hi[2 * a] * W, wi, ww, b);
    const float t1 = linear_row(p, plane + hi[2 * a + 1] * W, wi, ww, b);
    return two_taps(p, t0, hw[2 * a], t1, hw[2 * a + 1], 1);
}

void upsample_linear_generic(profile_t p, const float *x, float *out, int64_t P, int64_t D, int64_t H, int64_t W,
                             int64_t OD, int64_t OH, int64_t OW, float scale_d, float scale_h, float scale_w,
                             int32_t align, int32_t dims, int64_t *di, float *dw, int64_t *hi, float *hw, int64_t *wi,
                             float *ww) {
    if (dims == 3) linear_taps(&p, D, OD, scale_d, align, di, dw);
    if (dims >= 2) linear_taps(&p, H, OH, scale_h, align, hi, hw);
    linear_taps(&p, W, OW, scale_w, align, wi, ww);
    for (int64_t q = 0; q < P; q++)
        for (int64_t e = 0; e < OD; e++)
            for (int64_t a = 0; a < OH; a++)
                for (int64_t b = 0; b < OW; b++) {
                    const float *vol = x + q * D * H * W;
                    float o;
                    if (dims == 1)
                        o = linear_row(&p, vol, wi, ww, b);
                    else if (dims == 2)
                        o = linear_plane(&p, vol, W, hi, hw, a, wi, ww, b);
                    else {
                        const float t0 = linear_plane(&p, vol + di[2 * e] * H * W, W, hi, hw, a, wi, ww, b);
                        const float t1 = linear_plane(&p, vol + di[2 * e + 1] * H * W, W, hi, hw, a, wi, ww, b);
                        o = two_taps(&p, t0, dw[2 * e], t1, dw[2 * e + 1], 1);
                    }
                    out[((q * OD + e) * OH + a) * OW + b] = o;
                }
}

/* cpu_upsample_linear_backward, loop3d (cpu/UpSampleMoreKernel.cpp), float: per plane (whole in one
 * thread), per output (od, oh, ow) in order, eight scalar updates in the order i000, i001, i010, i011,
 * i100, .., i111 (depth, height, width taps): gx[i] += ((ld*lh)*lw)*g, which the AVX2 object contracts to
 * fma((ld*lh)*lw, g, gx[i]) (the weights' products rounded first); the default object rounds the product
 * with g, then the sum. The aarch64 objects (N1, V2, V1 measured) contract as the AVX2 one, with aarch64's
 * NaNs (sfmadd_nans: the accumulator's NaN first). A channels-last gradient (``channels_last``, C
 * channels) as upsample_bilinear_backward's. Shapes: go (P, OD, OH, OW), gx (P, D, H, W) zeroed by
 * the caller; scratch as upsample_linear_generic. */
void upsample_trilinear_backward(profile_t p, const float *go, float *gx, int64_t P, int64_t D, int64_t H, int64_t W,
                                 int64_t OD, int64_t OH, int64_t OW, float scale_d, float scale_h, float scale_w,
                                 int32_t align, int32_t channels_last, int32_t C, int64_t *di, float *dw, int64_t *hi,
                                 float *hw, int64_t *wi, float *ww) {
    linear_taps(&p, D, OD, scale_d, align, di, dw);
    linear_taps(&p, H, OH, scale_h, align, hi, hw);
    linear_taps(&p, W, OW, scale_w, align, wi, ww);
    for (int64_t q = 0; q < P; q++) {
        float *vol = gx + q * D * H * W;
        const int rounded = linear_rounded(&p, channels_last, C, q);
        for (int64_t e = 0; e < OD; e++)
            for (int64_t a = 0; a < OH; a++)
                for (int64_t b = 0; b < OW; b++) {
                    const float g = go[((q * OD + e) * OH + a) * OW + b];
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++)
                            for (int k = 0; k < 2; k++) {
                                float *acc = vol + (di[2 * e + i] * H + hi[2 * a + j]) * W + wi[2 * b + k];
                                *acc = linear_update(&p, dw[2 * e + i] * hw[2 * a + j] * ww[2 * b + k], g, *acc,
                                                     rounded);
                            }
                }
    }
}

/* cpu_upsample_linear_backward, loop1d (cpu/UpSampleMoreKernel.cpp), float: per plane (whole in one
 * thread), per output w in order, two scalar updates gx[i0] += l0*g, then gx[i1] += l1*g, which the AVX2
 * object contracts to fma(l, g, gx[i]) (measured, NaN and infinite gradients included), and so do the
 * aarch64 objects (N1, V2, V1 measured) with aarch64's NaNs (sfmadd_nans); the default
 * object rounds the product, then the sum. Shapes: go (P, OW), gx (P, W) zeroed by the caller; wi, ww
 * (2*OW,): scratch for the taps. */
void upsample_linear1d_backward(profile_t p, const float *go, float *gx, int64_t P, int64_t W, int64_t OW,
                                float scale_w, int32_t align, int64_t *wi, float *ww) {
    linear_taps(&p, W, OW, scale_w, align, wi, ww);
    for (int64_t q = 0; q < P; q++)
        for (int64_t b = 0; b < OW; b++) {
            const float g = go[q * OW + b];
            for (int k = 0; k < 2; k++) {
                float *acc = gx + q * W + wi[2 * b + k];
                *acc = sfmadd_nans(&p, ww[2 * b + k], g, *acc);
            }
        }
}

/* ------------------------------------------------------------------ nearest upsampling (source indices) */

/* The source index of each output index i of one dim (0 <= i < out) of nearest upsampling, float32
 * (UpSample.h, cpu/UpSampleKernel.cpp, cpu/UpSampleMoreKernel.cpp), clamped to in - 1; ``scale`` is
 * compute_scales_value<float>: (float)(1.0/scale_factor) where one was given, else (float)in/out.
 *   rule 0  nearest, the generic forward (HelperInterpNearest): floorf(scale * (float)i), one rounded
 *           product, nothing to contract;
 *   rule 1  nearest_idx (the channels-last forward and every backward): i where out == in, i >> 1 where
 *           out == 2*in, else rule 0;
 *   rule 2  nearest-exact, the generic forward (HelperInterpNearestExact): r = scale*(i + 0.5f) - 0.5f in
 *           float, contracted to fma(scale, i + 0.5f, -0.5f) in the AVX2 object and on aarch64 (every
 *           core measured), not in the x86 default build; r = max(r, 0), then
 *           floorf((double)r + 0.5) (the sum in double, rounded to float by floorf's parameter);
 *   rule 3  nearest_exact_idx (the channels-last forward and every backward): floorf((i + 0.5) * scale),
 *           the product in double (scale widened), rounded to float by floorf's parameter. */
void nearest_source(profile_t p, int64_t in, int64_t out, float scale, int32_t rule, int64_t *idx) {
    for (int64_t i = 0; i < out; i++) {
        int64_t k;
        if (rule == 1 && out == in)
            k = i;
        else if (rule == 1 && out == 2 * in)
            k = i >> 1;
        else if (rule <= 1)
            k = (int64_t)floorf(scale * (float)i);
        else if (rule == 2) {
            float r = sfmadd(&p, scale, (float)i + 0.5f, -0.5f);
            if (r < 0.0f) r = 0.0f;
            k = (int64_t)floorf((float)((double)r + 0.5));
        } else
            k = (int64_t)floorf((float)(((double)i + 0.5) * (double)scale));
        idx[i] = k < in - 1 ? k : in - 1;
    }
}

/* ------------------------------------------------------------------ prelu */

/* prelu_kernel (cpu/Activation.cpp, REGISTER_DISPATCH: the AVX2 object at avx512, 8 lanes), cpu_kernel_vec
 * over (input, weight), the weight broadcast to the input's shape. Vector lane blendv(weight * input, input,
 * input > 0); scalar tail input > 0 ? input : weight * input: one product, nothing to contract, the same
 * bits in both but where input and weight are both NaN (measured on a Zen 5, NaNs of distinct payloads):
 * the product gives the input's NaN (quieted) in the default build everywhere and in the AVX2 object's
 * tails and where both are read as vectors; the weight's where the AVX2 object's vector body reads the
 * weight as a scalar (broadcast along the inner dim: `w_scalar`). */
static inline float prelu_lane(float x, float w, int weight_nan) {
    if (x > 0.0f) return x;
    if (isnan(x) && isnan(w)) return nn_quiet(weight_nan ? w : x);
    return w * x;
}

static float prelu_body_w(const profile_t *p, float x, float w) {
    return prelu_lane(x, w, is_avx(p));
}

static float prelu_input_nan(const profile_t *p, float x, float w) {
    (void)p;
    return prelu_lane(x, w, 0);
}

/* aarch64 (vector body and tail alike): FMUL weight * input, NaNs by aarch64's rule (nan2: a signalling
 * operand first, then the weight's quiet NaN; inf * 0 the default NaN +qNaN). */
static float prelu_arm(const profile_t *p, float x, float w) { return x > 0.0f ? x : nan2(p, w * x, w, x); }

void prelu_forward(profile_t p, const float *x, const float *w, float *out, int64_t n, int64_t run, int32_t w_scalar) {
    if (is_arm(&p)) {
        run_segments(&p, p.lanes, GRAIN_SIZE, NULL, NULL, prelu_arm, prelu_arm, x, w, out, n, run);
        return;
    }
    run_segments(&p, p.lanes, GRAIN_SIZE, NULL, NULL, w_scalar ? prelu_body_w : prelu_input_nan, prelu_input_nan, x, w,
                 out, n, run);
}

/* ------------------------------------------------------------------ cdist */

/* One coordinate's term of a p-norm distance (pnorm not inf): p = 0 min(1, ceil(|diff|)), p = 1 |diff|, p = 2
 * diff * diff, another p the C library's powf(|diff|, p) (aarch64's own on the arm64 profiles). */
static inline float cdist_term(const profile_t *p, float diff, float pnorm) {
    if (pnorm == 0.0f) {
        const float c = ceilf(fabsf(diff));
        return 1.0f < c ? 1.0f : c;
    }
    if (pnorm == 1.0f) return fabsf(diff);
    if (pnorm == 2.0f) return diff * diff;
    return is_arm(p) ? glibc_powf_a64(fabsf(diff), pnorm) : glibc_powf(fabsf(diff), pnorm);
}

/* cdist_kernel_impl (cpu/DistanceOpsKernel.cpp, REGISTER_DISPATCH: the AVX2 object at avx512),
 * run_parallel_cdist: x1 (d, r1, m), x2 (d, r2, m), out (d, r1, r2); each output on its own (the threads'
 * chunks of parallel_for over the outputs reach no bits): agg = 0, then for x = 0..m-1 in order
 * agg = red(agg, map(|x1[i,x] - x2[j,x]|)), out = finish(agg):
 *   p = 0: agg + std::min(ceil(diff), 1)       p = 1: agg + diff            p = inf: std::max(agg, diff)
 *   p = 2: agg + diff*diff, sqrtf at the end   other p: agg + powf(diff, p) (glibc's powf: vmath.h
 *   glibc_powf, aarch64's glibc_powf_a64; libtorch calls powf@plt, disassembled), returned unfinished: finish's std::pow(agg, 1.0 / p),
 *   glibc's double pow rounded to float, is harness/impl/unary.py pow_tail's (this file calls no
 *   transcendental of the host's libm)
 * The default object rounds each product; GCC vectorized the AVX2 object's p = 2 loop (disassembled,
 * torch 2.13.0): the differences and squares in blocks of 8, then one of 4, each square rounded and added
 * to agg in order, and the last m % 4 terms contracted, agg = fmaf(diff, diff, agg). aarch64 (disassembled,
 * torch 2.13.0's wheel): the DEFAULT object (N1) the same, NEON blocks of 4 (fsub, fmul, four in-order fadd)
 * and the last m % 4 terms fmadd; the SVE128 and SVE256 objects (V2, V1) square whole predicated vectors and
 * add them with FADDA, strictly in order: every square rounded, nothing fused. The other norms have
 * nothing to contract. `pnorm` holds p. NaNs: the first NaN term's bits come out (diff * diff keeps diff's
 * sign: GCC dropped the abs for p = 2; inf - inf the CPU's default NaN) unless a later NaN term of other
 * bits meets it (counted: which one GCC's unrolled adds keep depends on the lane, measured); p = inf's
 * std::max skips NaNs. aarch64's NaNs (disassembled, torch 2.13.0's wheel; cdist_pair_a64): the difference is
 * FABD x1, x2 (p = 0, 1, other p: the NaN FSUB's rule names, its sign cleared) or FSUB x1, x2 (p = 2, its sign
 * kept; the square FMUL d, d keeps d's NaN), a signalling operand first, inf - inf +qNaN; every term is quiet.
 * The sum keeps its first operand's NaN where two meet: FADDA's accumulator (V1's and V2's SVE objects, every
 * p of 0, 1, 2), the scalar FADD agg, term of p = 0 and other p, p = 2's fused tail FMADD (the addend agg
 * first); in the DEFAULT object's (N1) NEON blocks of 4 of p = 1 and 2 (p = 0: cdist_kernel_impl's own copy,
 * not the OpenMP body's) the lanes 1 and 2 are added as FADD term, agg (the term's NaN replaces the sum's),
 * lanes 0 and 3 as FADD agg, term. p = inf's FCMPE/FCSEL skip
 * NaNs as on x86. */
static float cdist_pair(const profile_t *p, const float *a, const float *b, int64_t m, float pnorm, int64_t *clash) {
    float agg = 0.0f;
    if (isinf(pnorm)) {
        for (int64_t x = 0; x < m; x++) {
            const float diff = fabsf(a[x] - b[x]);
            agg = agg < diff ? diff : agg;
        }
        return agg;
    }
    const int blocks_of_4 = is_avx(p) || p->aten == ATEN_NEON;
    const int64_t fused_from = (pnorm == 2.0f && blocks_of_4) ? m - m % 4 : m;
    for (int64_t x = 0; x < m; x++) {
        const float diff = a[x] - b[x];
        const float term = cdist_term(p, diff, pnorm);
        if (agg != agg) { /* a NaN sum meets another NaN term: which one the compiled add keeps varies */
            *clash += term != term && vm_f2u(term) != vm_f2u(agg);
            continue;
        }
        agg = x >= fused_from ? fmaf(diff, diff, agg) : agg + term;
    }
    return pnorm == 2.0f ? sqrtf(agg) : agg; /* another p: its finish is the caller's */
}

/* cdist_pair on aarch64 (pnorm not inf): the legend's operand orders, each NaN named; the sums as cdist_pair's.
 * N1's p = 0 in cdist_kernel_impl's own copy of the loop (parallel_for below its grain or at one thread) adds
 * lanes 1 and 2 term first as p = 1 does; its OpenMP body's copy adds every lane sum first (`serial` 0: the
 * caller refuses those NaNs, not measured). */
static float cdist_pair_a64(const profile_t *p, const float *a, const float *b, int64_t m, float pnorm, int serial) {
    float agg = 0.0f;
    const int neon = p->aten == ATEN_NEON;
    const int64_t blocks = (neon && (pnorm == 1.0f || pnorm == 2.0f || (pnorm == 0.0f && serial))) ? m - m % 4 : 0;
    for (int64_t x = 0; x < m; x++) {
        const float diff = nan2(p, a[x] - b[x], a[x], b[x]);
        const float term = cdist_term(p, diff, pnorm);
        const int term_first = x < blocks && (x % 4 == 1 || x % 4 == 2);
        if (agg != agg || term != term) { /* quiet NaNs only: the first operand's, else the one NaN */
            agg = term_first ? (term != term ? term : agg) : (agg != agg ? agg : term);
            continue;
        }
        agg = (pnorm == 2.0f && neon && x >= m - m % 4) ? fmaf(diff, diff, agg) : agg + term;
    }
    return pnorm == 2.0f ? sqrtf(agg) : agg;
}

/* Returns the count of pairs where a NaN sum met a NaN term of other bits (not modelled: GCC's unrolled adds
 * take the sum or the term as their first source lane by lane). */
int64_t cdist_forward(profile_t p, const float *x1, const float *x2, int64_t d, int64_t r1, int64_t r2, int64_t m,
                      float pnorm, float *out) {
    int64_t clash = 0;
    /* run_parallel_cdist's parallel_for(0, d * r1 * r2, GRAIN_SIZE / (16 * m)): the OpenMP body past its grain */
    const int serial = m <= 0 || parallel_threads(0, d * r1 * r2, GRAIN_SIZE / (16 * m), p.threads) <= 1;
    for (int64_t l = 0; l < d; l++)
        for (int64_t i = 0; i < r1; i++)
            for (int64_t j = 0; j < r2; j++) {
                const float *a = x1 + (l * r1 + i) * m, *b = x2 + (l * r2 + j) * m;
                float *o = out + (l * r1 + i) * r2 + j;
                if (!is_arm(&p) || isinf(pnorm)) {
                    *o = cdist_pair(&p, a, b, m, pnorm, &clash);
                    continue;
                }
                *o = cdist_pair_a64(&p, a, b, m, pnorm, serial);
                clash += *o != *o && pnorm == 0.0f && p.aten == ATEN_NEON && !serial;
            }
    return clash;
}

/* Vectorized's maximum / minimum of two non-NaN floats: the second operand where they are equal. */
static inline float vmaxf(float a, float b) { return a > b ? a : b; }
static inline float vminf(float a, float b) { return a < b ? a : b; }

/* Dist::sign: min(max(0, ceil(v)), 1) + min(max(-1, floor(v)), 0). */
static inline float cdist_sign(float v) {
    return vminf(vmaxf(0.0f, ceilf(v)), 1.0f) + vminf(vmaxf(-1.0f, floorf(v)), 0.0f);
}

/* Whether a and b are NaNs of different bits (the NaN an operation of both passes on is not modelled). */
static inline int nan_clash(float a, float b) { return isnan(a) && isnan(b) && vm_f2u(a) != vm_f2u(b); }

/* Dist::sign of a NaN (measured, columns in whole and in partial vectors alike): the AVX2 object's
 * Vectorized maximum and minimum give the all-ones NaN; the default build's keep the NaN (quieted by ceil and
 * floor, its sign kept). */
static inline float cdist_sign_of(const profile_t *p, float v) {
    if (!isnan(v)) return cdist_sign(v);
    return is_avx(p) ? vm_u2f(0xffffffffu) : nn_quiet(v);
}

/* a * b (or a / b) where a NaN may meet another: counts the meeting of two NaNs of other bits (which one the
 * compiled operation keeps is not modelled), else IEEE's answer (the one NaN, quieted). */
static inline float cdist_mul(float a, float b, int64_t *unproven) {
    *unproven += nan_clash(a, b);
    return a * b;
}
static inline float cdist_div(float a, float b, int64_t *unproven) {
    *unproven += nan_clash(a, b);
    return a / b;
}

/* aarch64's Dist::sign (FRINTP, FRINTM, FMAX, FMIN, FADD in the objects' orders): a NaN v quieted, else as
 * cdist_sign (its zeros +0 on both CPUs). */
static inline float cdist_sign_a64(const profile_t *p, float v) {
    const float up = fmin_arm(p, fmax_arm(p, 0.0f, ceilf(v)), 1.0f);
    return add_nans(p, up, fmin_arm(p, fmax_arm(p, -1.0f, floorf(v)), 0.0f));
}

/* aarch64's odist_calc (p = 1) and idist_calc (p = inf) backward of one lane added to res, diff FSUB's
 * x1 - x2 (read in the DEFAULT, SVE128 and SVE256 objects, the inline copies and the OpenMP bodies alike):
 *   NEON-typed objects (N1, V2): p = 1 `fmla res, grad, sign`; p = inf gs = `fmul sign, grad`,
 *     keep = `fsub 1, fmin(1, frintp(fabd |diff|, dist))`, `fmla res, gs, keep`
 *   SVE256 (V1): p = 1 `fmul grad, sign`, `fadd res, t`; p = inf gs = `fmul grad, sign`, keep as above
 *     (`fmin e, 1`, `fsubr`), `fmul gs, keep`, `fadd res, t`
 * FMLA's NaNs as nan3 (a quiet NaN res with 0 * inf the default NaN), FABD's the difference's NaN with its
 * sign cleared. */
static float cdist_backward_sign_a64(const profile_t *p, float res, float diff, float g, float dist, float pnorm,
                                     int sve) {
    const float sign = cdist_sign_a64(p, diff);
    if (pnorm == 1.0f) {
        if (!sve) return nan3(p, fmaf(g, sign, res), g, sign, res);
        const float t = nan2(p, g * sign, g, sign);
        return nan2(p, res + t, res, t);
    }
    const float ad = fabsf(diff), gs = sve ? nan2(p, g * sign, g, sign) : nan2(p, sign * g, sign, g);
    const float e = ceilf(fabsf(nan2(p, ad - dist, ad, dist)));
    const float low = fmin_arm(p, 1.0f, e), keep = nan2(p, 1.0f - low, 1.0f, low);
    if (!sve) return nan3(p, fmaf(gs, keep, res), gs, keep, res);
    const float t = nan2(p, gs * keep, gs, keep);
    return nan2(p, res + t, res, t);
}

/* aarch64's lttdist_calc (p < 2) and pdist_calc (p > 2) backward of one lane added to res, diff FSUB's x1 - x2
 * (read in the DEFAULT, SVE128 and SVE256 objects, the inline copies and the OpenMP bodies alike): dist == 0 a
 * scalar `fcmp` branch to res + 0; else SLEEF's powf (vec_powf: a NaN operand gives the all-ones NaN) of |diff|
 * and of dist, then p < 2: `fmul pow, sign` (V1's SVE256: `fmul sign, pow`), p > 2: `fmul diff, pow`; `fmul t,
 * grad`, `fdiv t, pow(dist, p - 1)`, p < 1's zero where diff == 0 (`bic`, `sel`), `fadd res, term`; NaNs by
 * FPProcessNaNs in those orders (nan2). */
static float cdist_backward_pow_a64(const profile_t *p, float res, float diff, float g, float dist, float pnorm,
                                    int sve) {
    if (dist == 0.0f) return nan2(p, res + 0.0f, res, 0.0f);
    float t;
    if (pnorm < 2.0f) {
        const float sign = cdist_sign_a64(p, diff), pw = vec_powf(p, fabsf(diff), pnorm - 1.0f);
        t = sve ? nan2(p, sign * pw, sign, pw) : nan2(p, pw * sign, pw, sign);
    } else {
        const float pw = vec_powf(p, fabsf(diff), pnorm - 2.0f);
        t = nan2(p, diff * pw, diff, pw);
    }
    t = nan2(p, t * g, t, g);
    const float den = vec_powf(p, dist, pnorm - 1.0f);
    const float q = (pnorm < 1.0f && diff == 0.0f) ? 0.0f : nan2(p, t / den, t, den);
    return nan2(p, res + q, res, q);
}

/* lttdist_calc / pdist_calc backward of one lane (p other than 0, 1, 2, inf), as cdist_backward's legend. */
static float cdist_backward_pow(const profile_t *p, float diff, float g, float dist, float pnorm, int64_t *unproven) {
    if (dist == 0.0f) return 0.0f;
    const float ad = fabsf(diff);
    const float den = vec_powf(p, dist, pnorm - 1.0f);
    float num;
    if (pnorm < 2.0f) {
        num = cdist_mul(cdist_mul(cdist_sign_of(p, diff), vec_powf(p, ad, pnorm - 1.0f), unproven), g, unproven);
    } else {
        num = cdist_mul(cdist_mul(diff, vec_powf(p, ad, pnorm - 2.0f), unproven), g, unproven);
    }
    const float r = cdist_div(num, den, unproven);
    return (pnorm < 2.0f && pnorm < 1.0f && diff == 0.0f) ? 0.0f : r;
}

/* cdist_backward_kernel_impl, run_backward_parallel_cdist: grad, dist (d, r1, r2), x1 (d, r1, m), x2
 * (d, r2, m), out (d, r1, m). Columns are Vectorized lanes (the last m % 8 a partial vector), each on its own
 * (parallel_for over whole vectors of columns, the remainder after it: no thread count reaches a bit): for
 * each row i of x1, res = +0 (the zero-filled result loaded), then for each row j of x2 in order
 * res = res + backward(diff = x1[i,c] - x2[j,c], grad[i,j], dist[i,j]), explicit vector operations:
 *   p = 1: grad * sign(diff)
 *   p = 2: dist == 0 ? 0 : (grad * diff) / dist
 *   p = inf: (grad * sign(diff)) * (1 - min(1, ceil(|(|diff| - dist)|)))
 *   p < 2 (lttdist_calc): dist == 0 ? 0 : ((sign(diff) * pow(|diff|, p - 1)) * grad) / pow(dist, p - 1),
 *          then 0 where diff == 0 and p < 1 (blendv)
 *   p > 2 (pdist_calc): dist == 0 ? 0 : ((diff * pow(|diff|, p - 2)) * grad) / pow(dist, p - 1)
 * (p = 0 leaves the zeros; p - 1 and p - 2 rounded to float; pow is Vectorized's: vmath.h vec_powf, SLEEF's
 * powf in the AVX2 object, glibc's powf per lane in the default build; `pnorm` holds p, the caller passes
 * the float p the kernel holds, the branch chosen on the double p by the caller's check). NaNs, measured
 * on a Zen 5 at every x86 level: sign of a NaN as cdist_sign_of; grad * sign keeps sign's NaN where both are
 * NaN, (grad * sign) * (1 - min(..)) its first factor's; min(1, NaN) is the all-ones NaN in the AVX2 object,
 * the NaN itself in the default build. Returns the count of operations where the impl cannot say which NaN
 * comes out: two NaNs of different bits meeting in x1 - x2, in p = 2's product or quotient, or in the sum.
 * aarch64's p = 2 (read in the DEFAULT, SVE128 and SVE256 objects, the inline copies and the OpenMP bodies
 * alike; dist == 0 a scalar `fcmp` branch to res + 0): `fsub x1, x2`, `fmul diff, grad` in the NEON-typed
 * objects but `fmul grad, diff` in SVE256's, `fdiv` (`fdivr`) of that by dist, `fadd res, term`; NaNs by
 * FPProcessNaNs in those orders (nan2), inf - inf, 0 * inf, 0 / 0 and inf / inf +qNaN: nothing unproven;
 * aarch64's p = 1 and inf as cdist_backward_sign_a64, p < 2 and p > 2 as cdist_backward_pow_a64. */
int64_t cdist_backward(profile_t p, const float *grad, const float *x1, const float *x2, const float *dist, int64_t d,
                       int64_t r1, int64_t r2, int64_t m, float pnorm, float *out) {
    const int avx = is_avx(&p), sve = obj_kind(&p) == OBJ_SVE;
    int64_t unproven = 0;
    for (int64_t l = 0; l < d; l++)
        for (int64_t i = 0; i < r1; i++)
            for (int64_t c = 0; c < m; c++) {
                float res = 0.0f;
                for (int64_t j = 0; j < r2; j++) {
                    const int64_t k = (l * r1 + i) * r2 + j;
                    const float a = x1[(l * r1 + i) * m + c], b = x2[(l * r2 + j) * m + c];
                    const float diff = a - b, g = grad[k], dist_k = dist[k];
                    float r;
                    if (pnorm == 2.0f && is_arm(&p)) { /* aarch64's p = 2: FPProcessNaNs in the objects' orders */
                        const float dn = nan2(&p, diff, a, b); /* not `d`: that is the batch count */
                        const float gd = sve ? nan2(&p, g * dn, g, dn) : nan2(&p, dn * g, dn, g);
                        r = dist_k == 0.0f ? 0.0f : nan2(&p, gd / dist_k, gd, dist_k);
                        res = nan2(&p, res + r, res, r);
                        continue;
                    }
                    if (is_arm(&p)) { /* aarch64's p = 1, inf and the pow branches */
                        const float dn = nan2(&p, diff, a, b);
                        res = (pnorm == 1.0f || isinf(pnorm))
                                  ? cdist_backward_sign_a64(&p, res, dn, g, dist_k, pnorm, sve)
                                  : cdist_backward_pow_a64(&p, res, dn, g, dist_k, pnorm, sve);
                        continue;
                    }
                    unproven += nan_clash(a, b);
                    if (pnorm != 1.0f && pnorm != 2.0f && !isinf(pnorm)) {
                        r = cdist_backward_pow(&p, diff, g, dist_k, pnorm, &unproven);
                    } else if (pnorm == 2.0f) {
                        if (dist_k == 0.0f) {
                            r = 0.0f;
                        } else {
                            const float gd = g * diff;
                            unproven += nan_clash(g, diff) + nan_clash(gd, dist_k);
                            r = gd / dist_k;
                        }
                    } else {
                        const float sign = cdist_sign_of(&p, diff);
                        const float gs = isnan(sign) ? sign : g * sign;
                        if (pnorm == 1.0f) {
                            r = gs;
                        } else {
                            const float e = ceilf(fabsf(fabsf(diff) - dist_k));
                            const float low = isnan(e) ? (avx ? vm_u2f(0xffffffffu) : e) : vminf(1.0f, e);
                            const float keep = 1.0f - low;
                            r = isnan(gs) ? gs : gs * keep;
                        }
                    }
                    unproven += nan_clash(res, r);
                    res = res + r;
                }
                out[(l * r1 + i) * m + c] = res;
            }
    return unproven;
}

/* UnaryOpsKernel.cpp sinc_kernel (float32; cpu_kernel, no vector lambda: the same bits at every level
 * and thread count): a == 0 ? 1 : sin(product) / product with product = pi * a in float (opmath_t is
 * float), std::sin glibc's sinf (vmath.h glibc_sinf; aarch64's, glibc_sinf_a64, where a64). A NaN a is
 * a quieted on both (the product's, sinf's and the quotient's NaN), an infinite a the CPU's default NaN
 * (sinf's (y - y) / (y - y)). out: (n,) */
void sinc_forward(const float *x, float *out, int64_t n, int32_t a64) {
    const float pi = 3.14159265358979323846f;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] == 0.0f) {
            out[i] = 1.0f;
        } else if (a64 && isinf(x[i])) {
            out[i] = qnan_bits(0x7fc00000u); /* sinf's inf - inf: aarch64's default NaN */
        } else {
            const float product = pi * x[i];
            out[i] = (a64 ? glibc_sinf_a64(product) : glibc_sinf(product)) / product;
        }
    }
}

/* polar_kernel (ComplexKernel.cpp, float32; cpu_kernel, no vector lambda): out = (abs * cos(angle),
 * abs * sin(angle)), GCC's one glibc sincosf call for std::cos and std::sin of one float (vmath.h
 * glibc_cosf / glibc_sinf give its bits), the pair multiplied by abs broadcast in one MULPS whose first
 * operand is (cos, sin): that NaN wins over abs's, x86's rule (nan2); the same object code at every level.
 * aarch64: its glibc's sincosf (vmath.h glibc_cosf_a64 / glibc_sinf_a64; an infinite angle's (y - y)/(y - y)
 * the default NaN +qNaN), then FMUL abs by each, abs its first operand (FPProcessNaNs: a signalling NaN first).
 * abs, angle (n,); out (n, 2) as (re, im) pairs. */
void polar_forward(profile_t p, const float *abs, const float *angle, float *out, int64_t n) {
    if (is_arm(&p)) {
        for (int64_t i = 0; i < n; i++) {
            const float a = angle[i];
            const int inf = isinf(a);  /* (y - y)/(y - y): aarch64's default NaN */
            const float c = inf ? qnan_bits(0x7fc00000u) : glibc_cosf_a64(a);
            const float s = inf ? qnan_bits(0x7fc00000u) : glibc_sinf_a64(a);
            out[2 * i] = nan2(&p, abs[i] * c, abs[i], c);
            out[2 * i + 1] = nan2(&p, abs[i] * s, abs[i], s);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        const float c = glibc_cosf(angle[i]), s = glibc_sinf(angle[i]);
        out[2 * i] = nan2(&p, c * abs[i], c, abs[i]);
        out[2 * i + 1] = nan2(&p, s * abs[i], s, abs[i]);
    }
}
