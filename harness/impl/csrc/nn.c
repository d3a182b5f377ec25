/* Layers of torch.nn that no fixture op records but real models' traces reach, torch 2.13.0 on x86
 * CPU, float32: sigmoid (nn.GRU's gates) and its backward; batch norm in training (statistics,
 * running statistics, output) and its backward, and in eval (running statistics).
 *
 * Shape legend (every array C-contiguous, as the impl passes it):
 *   sigmoid_forward      x, out (n,), cut into runs of `run` elements (see below)
 *   sigmoid_backward     grad, y, grad_x (n,), the same runs
 *   batch_norm_forward   x, y (B, C, HW) or, channels-last, (B*HW, C); w, b, rm, rv, save_mean,
 *                        save_invstd (C,) (w, b, rm, rv may be NULL); buf (max(2, threads) * C,)
 *   batch_norm_backward  g, x, gx as x; w, save_mean, save_invstd, gw, gb (C,); buf (2 * threads * C,)
 *   batch_norm_eval_forward  x, y as batch_norm_forward; w, b (or NULL), rm, rv, invstd (C,); buf (2 * C,)
 *
 * Element-wise loops: ATen's cpu_kernel_vec (cpu/Loops.h vectorized_loop) runs, per call of its
 * inner loop, a body of two Vectorized<float> per iteration through the vector lambda and the rest
 * (< 2 vectors) through the scalar lambda. TensorIterator calls the inner loop once per run of
 * elements that are contiguous in every operand: the whole tensor when all are contiguous, one row
 * when an operand is a row-strided view (the GRU's gates are column chunks of a (B, 3H) matrix:
 * runs of H). at::parallel_for cuts the flat range [0, n) into chunks above 32768 elements; each
 * chunk's pieces of runs are inner loops of their own. run_segments reproduces both cuts. */
#include "vmath.h"

typedef float (*unary_fn)(const profile_t *p, float x);
typedef float (*binary_fn)(const profile_t *p, float a, float b);

#define NN_INLINE static inline __attribute__((always_inline))

/* One inner loop over [b, e): blocks of 2*lanes through vec, the rest through scal. With b2 set,
 * a second operand (binary kernels). */
NN_INLINE void inner_loop(const profile_t *p, int64_t lanes, unary_fn v1, unary_fn s1, binary_fn v2, binary_fn s2,
                          const float *a, const float *b2, float *y, int64_t b, int64_t e) {
    int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes);
    if (b2) {
        for (int64_t i = b; i < body; i++) y[i] = v2(p, a[i], b2[i]);
        for (int64_t i = body; i < e; i++) y[i] = s2(p, a[i], b2[i]);
    } else {
        for (int64_t i = b; i < body; i++) y[i] = v1(p, a[i]);
        for (int64_t i = body; i < e; i++) y[i] = s1(p, a[i]);
    }
}

/* TensorIterator::for_each over n elements in runs of `run`: serial below the grain size or on one
 * thread, else at::parallel_for chunks; each chunk's intersection with a run is one inner loop. */
NN_INLINE void run_segments(const profile_t *p, int64_t lanes, unary_fn v1, unary_fn s1, binary_fn v2, binary_fn s2,
                            const float *a, const float *b2, float *y, int64_t n, int64_t run) {
    if (run <= 0 || run > n) run = n;
    int64_t nt = (n < GRAIN_SIZE || p->threads == 1) ? 1 : parallel_threads(0, n, GRAIN_SIZE, p->threads);
    for (int64_t tid = 0; tid < nt; tid++) {
        int64_t cb = 0, ce = n;
        if (nt > 1 && !parallel_chunk(0, n, GRAIN_SIZE, nt, tid, &cb, &ce)) continue;
        for (int64_t s = cb; s < ce;) {
            int64_t end = (s / run + 1) * run;
            if (end > ce) end = ce;
            inner_loop(p, lanes, v1, s1, v2, s2, a, b2, y, s, end);
            s = end;
        }
    }
}

/* ------------------------------------------------------------------ sigmoid */

/* A NaN as an arithmetic operation passes it on: quieted, payload and sign kept. */
static inline float nn_quiet(float x) { return vm_u2f(vm_f2u(x) | 0x00400000u); }

/* sigmoid_kernel (cpu/UnaryOpsKernel.cpp, also registered for AVX-512: lanes_wide), cpu_kernel_vec.
 * Vector lane: a = 0 - a; a = a.exp() (SLEEF expf_u10 on avx2/avx512, std::exp per lane on the
 * default build); a = 1 + a; a = a.reciprocal() (1 / a). Scalar tail: 1 / (1 + std::exp(-a)) with
 * the C library's expf. Nothing to contract. A NaN comes out quieted with its sign flipped, in the
 * vector body as in the tail (measured on every x86 capability). */
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
    run_segments(&p, p.lanes_wide, sigmoid_vec, sigmoid_scalar, NULL, NULL, x, NULL, out, n, run);
}

/* sigmoid_backward_kernel (cpu/BinaryOpsKernel.cpp, plain REGISTER_DISPATCH: 8 lanes):
 * grad_x = (dy * (1 - y)) * y in vector body and scalar tail alike; two products and a
 * difference, nothing to contract, so no profile changes its bits. */
static float sigmoid_bwd(const profile_t *p, float dy, float y) {
    (void)p;
    return dy * (1.0f - y) * y;
}

void sigmoid_backward(profile_t p, const float *grad, const float *y, float *grad_x, int64_t n, int64_t run) {
    run_segments(&p, p.lanes, NULL, NULL, sigmoid_bwd, sigmoid_bwd, grad, y, grad_x, n, run);
}

/* ------------------------------------------------------------------ batch_norm (training) */

/* In batch_norm_kernel.cpp (plain REGISTER_DISPATCH: the AVX2 objects on AVX-512 too, 8 lanes) GCC
 * contracts a*b+c written with Vectorized operators and in scalar code of the FMA objects
 * (profile.contract); Normalization.cpp (the running statistics) is built once, without FMA. */
#define BN_MADD(c, a, b, d) ((c) ? fmaf((a), (b), (d)) : (a) * (b) + (d))

#define BN_FUSE_BODY 1 /* the full vectors' acc + t*dy is one fmaf */
#define BN_FUSE_TAIL 2 /* the partial last vector's is */

/* vec::reduce_all(+) / vec::map2_reduce_all((x - mean) * dy, +) over n elements, 8 lanes: the first
 * full vector initialises the lanes, later full vectors and the partial last one add lane-wise (the
 * map2 form's acc + t*dy fused as `fuse` says), then the AVX2 shuffle tree (lane i^4, i^2, i^1) or,
 * in the default build, lanes 1..7 folded into lane 0 in order. Below 8 elements: the terms folded
 * in order from the first, each product rounded. */
static float bn_reduce(int tree, const float *x, float mean, const float *dy, int64_t n, int fuse) {
    enum { L = 8 };
    if (n < L) {
        float s = dy ? (x[0] - mean) * dy[0] : x[0];
        for (int64_t j = 1; j < n; j++) s = s + (dy ? (x[j] - mean) * dy[j] : x[j]);
        return s;
    }
    float acc[L];
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
    float w[L];
    for (int h = L / 2; h >= 1; h /= 2) {
        for (int l = 0; l < L; l++) w[l] = acc[l] + acc[l ^ h];
        memcpy(acc, w, sizeof acc);
    }
    return acc[0];
}

/* Thread tid's rows of at::parallel_for(0, n, 1) over `threads` threads. */
static int bn_rows(int64_t n, int64_t threads, int64_t tid, int64_t *b, int64_t *e) {
    return parallel_chunk(0, n, 1, threads, tid, b, e);
}

/* batch_norm_cpu_collect_stats_channels_last_impl over rows (N, C) (NHWC, or NC11: every input whose
 * image is one element). T = at::get_num_threads(). N > T: per-thread buffers (T, C) of float sums
 * (x + buf, then buf + (x - mean)^2, contracted where c), each channel's T partials added in
 * double in thread order. Otherwise on one thread, C <= 16 or C > 2048: float sums over rows in
 * order, mean = sum / N (a float division); else double sums per channel as the NCHW kernel. */
static void bn_stats_rows(const profile_t *p, const float *x, int64_t N, int64_t C, float *mean, float *var_sum,
                          float *buf) {
    const int64_t T = p->threads;
    const int c = p->contract;
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
                    buf[t * C + k] = BN_MADD(c, d, d, buf[t * C + k]);
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
                v = BN_MADD(c, d, d, v);
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

static void bn_transform(const profile_t *p, const float *x, const float *w, const float *b, int64_t B, int64_t C,
                         int64_t HW, int rows, const float *mean, const float *invstd, float *y, float *buf);

/* native_batch_norm, training (Normalization.cpp batch_norm_cpu with train=True on contiguous input):
 *   stats     as above, by layout;
 *   save_mean = mean; save_invstd = 1 / sqrt((double)(var_sum / n) + eps), 0 where var and eps are 0
 *             (InvStd<double>, var_sum / n a float division);
 *   running   mean: m*mean + (1 - m)*rm in float; var: m * (double)(var_sum / (n - 1)) +
 *             (1 - m)*rv, the first product and the sum in double (m = (float)momentum);
 *   output    alpha = invstd * w, beta = b - mean * alpha (contracted where c), y = x * alpha + beta
 *             (contracted where c), the same in vector body and tail.
 * x, y: (B, C, HW) or, cl = 1, (B*HW, C); w, b (C,) or NULL; rm, rv (C,) or NULL, updated in place;
 * save_mean, save_invstd (C,); buf (threads * C,) scratch. */
void batch_norm_forward(profile_t p, const float *x, const float *w, const float *b, float *rm, float *rv,
                        int64_t B, int64_t C, int64_t HW, int32_t cl, double momentum, double eps, float *y,
                        float *save_mean, float *save_invstd, float *buf) {
    const int64_t n = B * HW;
    const int rows = cl || HW == 1;
    float *var_sum = save_invstd;
    if (rows) bn_stats_rows(&p, x, n, C, save_mean, var_sum, buf);
    else bn_stats_nchw(x, B, C, HW, save_mean, var_sum);
    const float m = (float)momentum;
    for (int64_t k = 0; k < C; k++) {
        const float vs = var_sum[k];
        const float var = vs / (float)n;
        save_invstd[k] = (var != 0.0f || eps != 0.0) ? (float)(1.0 / sqrt((double)var + eps)) : 0.0f;
        if (rm) rm[k] = m * save_mean[k] + (1.0f - m) * rm[k];
        if (rv) {
            double unbiased = (double)(vs / (float)(n - 1));
            rv[k] = (float)((double)m * unbiased + (double)((1.0f - m) * rv[k]));
        }
    }
    bn_transform(&p, x, w, b, B, C, HW, rows, save_mean, save_invstd, y, buf);
}

/* native_batch_norm, eval (training=False, running stats given):
 * batch_norm_cpu_collect_linear_and_constant_terms with mean = running_mean and invstd = 1 / std::sqrt(running_var + (float)eps) in float, then the
 * same transform as training. */
void batch_norm_eval_forward(profile_t p, const float *x, const float *w, const float *b, const float *rm,
                             const float *rv, int64_t B, int64_t C, int64_t HW, int32_t cl, double eps, float *y,
                             float *invstd, float *buf) {
    for (int64_t k = 0; k < C; k++) invstd[k] = 1.0f / sqrtf(rv[k] + (float)eps);
    bn_transform(&p, x, w, b, B, C, HW, cl || HW == 1, rm, invstd, y, buf);
}

/* y = x * alpha + beta per channel: alpha = invstd * w, beta = b - mean * alpha (contracted where c),
 * the multiply-add contracted where c, the same in vector body and tail. buf (2 * C,) holds alpha, beta. */
static void bn_transform(const profile_t *p, const float *x, const float *w, const float *b, int64_t B, int64_t C,
                         int64_t HW, int rows, const float *mean, const float *invstd, float *y, float *buf) {
    const int64_t n = B * HW;
    const int c = p->contract;
    for (int64_t k = 0; k < C; k++) {
        const float alpha = invstd[k] * (w ? w[k] : 1.0f);
        const float beta = BN_MADD(c, -mean[k], alpha, b ? b[k] : 0.0f);
        buf[k] = alpha;
        buf[C + k] = beta;
    }
    if (rows) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < C; k++) y[i * C + k] = BN_MADD(c, x[i * C + k], buf[k], buf[C + k]);
    } else {
        for (int64_t bc = 0; bc < B * C; bc++) {
            const float alpha = buf[bc % C], beta = buf[C + bc % C];
            for (int64_t i = 0; i < HW; i++) y[bc * HW + i] = BN_MADD(c, x[bc * HW + i], alpha, beta);
        }
    }
}

/* native_batch_norm_backward, training (batch_norm_cpu_backward_stub):
 * NCHW (image > 1), per channel: sum and dotp in double over the batch, each image's part a float
 * vec::reduce_all(dy) and vec::map2_reduce_all((x - mean) * dy) (bn_reduce; the FMA objects fuse
 * the partial last vector's acc + t*dy, not the full vectors': measured); k = (float)dotp * invstd *
 * invstd / N and grad_mean = (float)(sum / N); dx = (x - mean) * k, grad_x = (dy - grad_mean - dx) *
 * invstd * w, the subtraction of dx contracted where c (vec::map2: body and tail); grad_w = dotp *
 * invstd (double), grad_b = sum.
 * Rows (NHWC or NC11): per-thread float buffers (sum + dy; dotp + (x - mean) * dy, contracted where c)
 * over at::parallel_for(0, N, 1), each channel's T partials added in double; then the same dx in
 * float vectors, its subtraction of dx contracted where c in the full vectors of channels (8 each)
 * only, not in the partial last one (measured); grad_w = dotp * invstd in float.
 * Shapes as batch_norm_forward; g, gx like x; gw, gb (C,) ; buf (2 * threads * C,) scratch. */
void batch_norm_backward(profile_t p, const float *g, const float *x, const float *w, const float *save_mean,
                         const float *save_invstd, int64_t B, int64_t C, int64_t HW, int32_t cl, float *gx, float *gw,
                         float *gb, float *buf) {
    const int64_t N = B * HW;
    const int c = p.contract;
    const int tree = p.aten != 0;
    if (!(cl || HW == 1)) {
        for (int64_t k = 0; k < C; k++) {
            const float mean = save_mean[k], invstd = save_invstd[k], wk = w ? w[k] : 1.0f;
            double sum = 0, dotp = 0;
            for (int64_t n = 0; n < B; n++) {
                const float *xp = x + (n * C + k) * HW, *dp = g + (n * C + k) * HW;
                sum += (double)bn_reduce(tree, dp, 0.0f, NULL, HW, c);
                dotp += (double)bn_reduce(tree, xp, mean, dp, HW, c ? BN_FUSE_TAIL : 0);
            }
            const float kk = (float)dotp * invstd * invstd / (float)N;
            const float gm = (float)(sum / (double)N);
            for (int64_t n = 0; n < B; n++) {
                const float *xp = x + (n * C + k) * HW, *dp = g + (n * C + k) * HW;
                float *op = gx + (n * C + k) * HW;
                for (int64_t i = 0; i < HW; i++) {
                    const float d = xp[i] - mean;
                    const float t = c ? fmaf(-d, kk, dp[i] - gm) : (dp[i] - gm) - d * kk;
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
                db[t * C + k] = BN_MADD(c, x[i * C + k] - save_mean[k], g[i * C + k], db[t * C + k]);
            }
    }
    for (int64_t k = 0; k < C; k++) {
        double s = 0, d = 0;
        for (int64_t t = 0; t < T; t++) s += (double)sb[t * C + k];
        for (int64_t t = 0; t < T; t++) d += (double)db[t * C + k];
        sb[k] = (float)s;
        db[k] = (float)d;
    }
    const int64_t body = C - C % 8;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = 0; k < C; k++) {
            const float invstd = save_invstd[k];
            const float kk = db[k] * invstd * invstd / (float)N;
            const float d = x[i * C + k] - save_mean[k];
            const float gm = sb[k] / (float)N;
            const float t = (c && k < body) ? fmaf(-d, kk, g[i * C + k] - gm) : (g[i * C + k] - gm) - d * kk;
            gx[i * C + k] = t * invstd * (w ? w[k] : 1.0f);
        }
    for (int64_t k = 0; k < C; k++) {
        gw[k] = db[k] * save_invstd[k];
        gb[k] = sb[k];
    }
}
