/* Row kernels: layer_norm, softmax, log_softmax, cross_entropy (nll_loss, nll_loss2d's reductions) over the
 * last dim; group_norm over its (n, g) rows, and on channels-last inputs over its columns of channels;
 * weight_norm's fused kernels over the rows or the columns of a (M,N) view.
 *
 * Every ATen Vectorized<float> loop is written as a loop over L lanes (L = 8 on x86, 16 for the
 * AVX-512-registered softmax kernels; 4 on aarch64 NEON/SVE128, 8 on SVE256). Where GCC contracted
 * a vector a*b+c in torch's objects (obj_kind) or the kernel calls Vectorized fmadd
 * (profile.vec_fma), the code says fmaf(); everything else is separately rounded. KERNEL functions take these flags (VF, CF) as
 * compile-time constants so that their loops stay branch-free and vectorise at -O2. */
#include "common.h"
#include "vmath.h"

#define MAXL 16
#define KERNEL static inline __attribute__((always_inline))

/* a*b+c, one rounding when f (a constant inside KERNEL functions). */
#define MADD(f, a, b, c) ((f) ? fmaf((a), (b), (c)) : (a) * (b) + (c))

/* for (j = 0; j < n; j++) BODY, in blocks of 8 (loops of known length vectorise at -O2). */
#define FOR_ROW(j, n, BODY)                                                                                  \
    do {                                                                                                     \
        int64_t j##_blk = 0;                                                                                 \
        for (; j##_blk + 8 <= (n); j##_blk += 8)                                                             \
            for (int j##_l = 0; j##_l < 8; j##_l++) {                                                        \
                const int64_t j = j##_blk + j##_l;                                                           \
                BODY;                                                                                        \
            }                                                                                                \
        for (int64_t j = j##_blk; j < (n); j++) BODY;                                                        \
    } while (0)

#define FUSE_TAIL 1 /* map2_reduce_all: the partial last vector's acc + t*b is one fmaf */
#define FUSE_BODY 2 /* ... and so are the full vectors' */

/* Whether the x86 FMA object of L lanes fuses the partial last vector of map2/map3_reduce_all
 * (the Vec::set(acc, acc + t*b, size - d) step): the AVX2 objects (8 lanes: layer_norm backward's
 * ds and db at avx2 and avx512, softmax backward's sum of g*y in its inline copy at avx2) of
 * torch 2.13.0 and 2.14.1 do, 2.12.1's do not, there acc + t*b is rounded twice (every 2.12.1
 * AVX2 fixture's layer_norm and softmax grad_x); the AVX-512 objects (16 lanes: softmax backward
 * at avx512) do in all three (the 2.12.1 avx512 fixtures' softmax grad_x are 2.13.0's). */
static int x86_tail_fused(const profile_t *p, int L) { return L == 16 || p->torch >= TORCH_2_13; }

static int64_t ceil_log2(int64_t x) { /* c10 utils::CeilLog2: 1 for x <= 2 */
    if (x <= 2) return 1;
    int64_t r = 0;
    for (uint64_t v = (uint64_t)x - 1; v; v >>= 1) r++;
    return r;
}

/* vec_reduce_all over an L-lane accumulator: the AVX2/AVX-512 shuffle tree adds lane i^(L/2),
 * then i^(L/4), ... down to i^1; the default build folds lanes 1..L-1 into lane 0 in order. */
static float lane_sum(int tree, const float *acc, int L) {
    if (!tree) {
        float s = acc[0];
        for (int i = 1; i < L; i++) s = s + acc[i];
        return s;
    }
    float v[MAXL], w[MAXL];
    memcpy(v, acc, sizeof(float) * (size_t)L);
    for (int h = L / 2; h >= 1; h /= 2) {
        for (int i = 0; i < L; i++) w[i] = v[i] + v[i ^ h];
        memcpy(v, w, sizeof(float) * (size_t)L);
    }
    return v[0];
}

/* vec::reduce_all / map2_reduce_all with "+" over n terms t[j] (or t[j]*b[j] when b is given):
 * the first full vector initialises L lane accumulators, further full vectors add lane-wise (their
 * multiply-add fused when fuse has FUSE_BODY), the partial last vector adds into its valid lanes
 * (fused when fuse has FUSE_TAIL), then lane_sum (the lambda "+" takes the generic shuffle tree
 * on aarch64 too: NEON vextq 2 then vrev64q = i^2, i^1; SVE256 svtbl = i^4, i^2, i^1). n < L: vec_reduce_all's slow path, lane 0 folding terms 0..n-1 in order. */
KERNEL float row_sum_l(int tree, const float *restrict t, const float *restrict b, int64_t n, int fuse,
                       const int L) {
    if (n < L) {
        float s = b ? t[0] * b[0] : t[0];
        for (int64_t j = 1; j < n; j++) s = s + (b ? t[j] * b[j] : t[j]);
        return s;
    }
    float acc[MAXL];
    int64_t d = L;
    if (b) {
        for (int l = 0; l < L; l++) acc[l] = t[l] * b[l];
        for (; d + L <= n; d += L)
            for (int l = 0; l < L; l++)
                acc[l] = (fuse & FUSE_BODY) ? fmaf(t[d + l], b[d + l], acc[l]) : acc[l] + t[d + l] * b[d + l];
        for (int l = 0; d + l < n; l++)
            acc[l] = (fuse & FUSE_TAIL) ? fmaf(t[d + l], b[d + l], acc[l]) : acc[l] + t[d + l] * b[d + l];
    } else {
        for (int l = 0; l < L; l++) acc[l] = t[l];
        for (; d + L <= n; d += L)
            for (int l = 0; l < L; l++) acc[l] = acc[l] + t[d + l];
        for (int l = 0; d + l < n; l++) acc[l] = acc[l] + t[d + l];
    }
    return lane_sum(tree, acc, L);
}

static float row_sum(const profile_t *p, int L, const float *t, const float *b, int64_t n, int fuse) {
    const int tree = p->aten != ATEN_DEFAULT;
    if (L == 16) return row_sum_l(tree, t, b, n, fuse, 16);
    if (L == 4) return row_sum_l(tree, t, b, n, fuse, 4);
    return row_sum_l(tree, t, b, n, fuse, 8);
}

/* ------------------------------------------------------------------------------ layer_norm */

/* One level of the Welford cascade: count and L lanes of mean and M2 (moments_utils.h). */
typedef struct {
    int64_t m0;
    float m1[MAXL], m2[MAXL];
} moments_t;

/* AddMomentsVec: c = m0_add/n; delta = m1_add - m1; m1 += c*delta;
 * m2 = fmadd(delta*m0, c*delta, m2 + m2_add)  (VF: Vectorized fmadd is fused). */
KERNEL void add_moments_vec(int64_t m0_add, const float *m1_add, const float *m2_add, moments_t *acc, const int VF,
                            const int L) {
    const int64_t n = acc->m0 + m0_add;
    const float c = n == 0 ? 0.0f : (float)m0_add / (float)n;
    for (int l = 0; l < L; l++) {
        float delta = m1_add[l] - acc->m1[l];
        float m2_tmp = acc->m2[l] + m2_add[l];
        float cd = c * delta;
        float m0d = delta * (float)acc->m0;
        acc->m1[l] = acc->m1[l] + cd;
        acc->m2[l] = MADD(VF, m0d, cd, m2_tmp);
    }
    acc->m0 = n;
}

/* RowwiseMomentsImpl (moments_utils.h) with L lanes (8 on x86: layer_norm has no AVX-512 kernel;
 * 4 on aarch64 NEON/SVE128, 8 on SVE256): vectors in chunks of 16, each chunk a Welford pass from
 * zero (m1 = fmadd(1/(j+1), delta, m1), m2 = fmadd(delta, x - m1, m2)) merged into a binary-counter
 * cascade of depth ceil_log2(chunks), the levels merged into level 0; then the scalar tail (N % L)
 * Welford (m2 += delta*(x - m1): contracted only in aarch64 objects, SC), then the L lanes merged
 * into it in lane order by AddMoments (m1 += c*delta and m2 += m2_add + delta*delta*c*m0
 * contracted when CF or SC). AddMomentsVec's m1 + c*delta stays fmul+fadd everywhere (objdump of
 * the aarch64 RowwiseMomentsImpl<float,4>). Returns mean and biased variance. */
KERNEL void rowwise_moments(const float *x, int64_t N, float *mean, float *var, const int VF, const int CF,
                            const int SC, const int L) {
    const int64_t n = N / L, m = divup(n, 16), depth = ceil_log2(m);
    moments_t stk[64];
    memset(stk, 0, sizeof(moments_t) * (size_t)depth);
    for (int64_t i = 0; i < m; i++) {
        const float *xp = x + i * 16 * L;
        const int64_t m0 = n - i * 16 < 16 ? n - i * 16 : 16;
        float m1[MAXL] = {0}, m2[MAXL] = {0};
        for (int64_t j = 0; j < m0; j++) {
            const float cj = 1.0f / (float)(j + 1);
            for (int l = 0; l < L; l++) {
                float xv = xp[j * L + l];
                float delta = xv - m1[l];
                m1[l] = MADD(VF, cj, delta, m1[l]);
                m2[l] = MADD(VF, delta, xv - m1[l], m2[l]);
            }
        }
        add_moments_vec(m0, m1, m2, &stk[0], VF, L);
        int64_t mask = i + 1;
        for (int64_t j = 1; j < depth && (mask & 1) == 0; j++) {
            add_moments_vec(stk[j - 1].m0, stk[j - 1].m1, stk[j - 1].m2, &stk[j], VF, L);
            memset(&stk[j - 1], 0, sizeof(moments_t));
            mask >>= 1;
        }
    }
    for (int64_t i = 1; i < depth; i++) add_moments_vec(stk[i].m0, stk[i].m1, stk[i].m2, &stk[0], VF, L);
    int64_t m0 = 0;
    float m1 = 0.0f, m2 = 0.0f;
    for (int64_t i = n * L; i < N; i++) {
        float xv = x[i];
        float delta = xv - m1;
        m0++;
        m1 += delta / (float)m0;
        m2 = MADD(SC, delta, xv - m1, m2);
    }
    for (int l = 0; l < L; l++) {
        const int64_t nn = m0 + n;
        const float c = nn == 0 ? 0.0f : (float)n / (float)nn;
        const float delta = stk[0].m1[l] - m1;
        m1 = MADD(CF | SC, c, delta, m1);
        m2 = m2 + MADD(CF | SC, delta * delta * c, (float)m0, stk[0].m2[l]);
        m0 = nn;
    }
    *mean = m1;
    *var = m2 / (float)N;
}

/* LayerNormKernelImplInternal (layer_norm_kernel.cpp), x/y (M,N), weight/bias (N), mean/rstd (M):
 * per row RowwiseMoments; rstd = 1/sqrt(var + eps); y = ((x + (-mean)) * rstd) * weight + bias
 * (vec::map3, the final multiply-add contracted when CF: x86 FMA and aarch64 NEON objects, not
 * SVE256). SC: aarch64 scalar contraction (see rowwise_moments). Rows are independent of threads.
 * Without a weight or a bias (NULL: ModernBERT's LayerNorm has no bias) ATen runs a scalar loop,
 * (x - mean) * rstd * weight + bias with 1 and 0 in place of the missing ones, which GCC unswitches
 * and folds: with no weight y = (x - mean) * rstd + bias, one fmaf wherever scalar code is
 * contracted (x86 FMA objects, and every aarch64 object: SVE256's too, CF | SC); with no bias
 * y = ((x - mean) * rstd) * weight + 0 (the +0 kept: a -0 product comes out +0), neither
 * (x - mean) * rstd + 0. Measured on the Xeon at the default, AVX2 and AVX-512 levels (20 random
 * shapes each, and constant rows) and on emulated Neoverse N1, V1, V2 (27 shapes per form, rows
 * 1..40, C 1..300 and 1000, 2053, constant rows; 1 and 2 threads). */
KERNEL void layer_norm_forward_k(const float *restrict x, const float *restrict weight, const float *restrict bias,
                                 int64_t M, int64_t N, float eps, float *restrict y, float *mean, float *rstd,
                                 const int VF, const int CF, const int SC, const int L) {
    for (int64_t i = 0; i < M; i++) {
        const float *xr = x + i * N;
        float *yr = y + i * N;
        float mu, var;
        rowwise_moments(xr, N, &mu, &var, VF, CF, SC, L);
        const float r = 1.0f / sqrtf(var + eps), nmu = -mu;
        if (weight && bias) FOR_ROW(j, N, yr[j] = MADD(CF, (xr[j] + nmu) * r, weight[j], bias[j]));
        else if (weight) FOR_ROW(j, N, yr[j] = MADD(CF, (xr[j] + nmu) * r, weight[j], 0.0f));
        else FOR_ROW(j, N, yr[j] = MADD(CF | SC, xr[j] + nmu, r, bias ? bias[j] : 0.0f));
        mean[i] = mu;
        rstd[i] = r;
    }
}

void layer_norm_forward(profile_t p, const float *x, const float *weight, const float *bias, int64_t M, int64_t N,
                        float eps, float *y, float *mean, float *rstd) {
    const int kind = obj_kind(&p);
    if (kind == OBJ_NEON) layer_norm_forward_k(x, weight, bias, M, N, eps, y, mean, rstd, 1, 1, 1, 4);
    else if (kind == OBJ_SVE) layer_norm_forward_k(x, weight, bias, M, N, eps, y, mean, rstd, 1, 0, 1, 8);
    else if (p.vec_fma && p.contract) layer_norm_forward_k(x, weight, bias, M, N, eps, y, mean, rstd, 1, 1, 0, 8);
    else if (p.vec_fma) layer_norm_forward_k(x, weight, bias, M, N, eps, y, mean, rstd, 1, 0, 0, 8);
    else layer_norm_forward_k(x, weight, bias, M, N, eps, y, mean, rstd, 0, p.contract != 0, 0, 8);
}

/* One row's dgamma += dy * (a*x + nam), dbeta += dy; dyx = dy*x for ds. */
KERNEL void accumulate_dgamma_dbeta(const float *restrict dy, const float *restrict x, float a, float nam, int64_t N,
                                    float *restrict gbuf, float *restrict bbuf, float *restrict dyx, const int CF) {
    FOR_ROW(j, N, {
        gbuf[j] = MADD(CF, dy[j], MADD(CF, a, x[j], nam), gbuf[j]);
        bbuf[j] = bbuf[j] + dy[j];
        dyx[j] = dy[j] * x[j];
    });
}

/* LayerNormBackwardKernelImplInternal (layer_norm_kernel.cpp), dy/x/dx (M,N), mean/rstd (M),
 * weight/dweight/dbias (N). Rows split over threads as at::parallel_for(0, M, 1); each thread
 * accumulates dgamma += dy * (rstd*x + (-rstd*mean)) and dbeta += dy into its own zeroed buffer row;
 * then per column the profile.threads buffer rows are summed from 0 in thread order.
 * dx per row: ds = map3_reduce_all(dy*x*w, +), db = map2_reduce_all(dy*w, +);
 * b = (db*mean - ds)*a*a*a/N; c = -b*mean - db*a/N; dx = (a*dy*w + b*x) + c.
 * Without a weight (NULL: nn.LayerNorm(elementwise_affine=False); autograd passes weight None with
 * output_mask [dx, False, dbias?]) ATen's gamma_null branch: ds = map2_reduce_all(dy*x, +) (its
 * multiply-adds fused as ds/db's below), db = reduce_all(+, dy), dx = (a*dy + b*x) + c, contracted
 * as fma(a, dy, b*x) + c (OBJ_NEON), fma(b, x, a*dy) + c (OBJ_X86_FMA), not at all (OBJ_SVE,
 * OBJ_X86_DEFAULT); dgamma/dbeta as with a weight. Measured on emulated N1, V1, V2 and at the x86
 * default and AVX2 levels (an AMD EPYC), 1 and 2 threads.
 * Contractions per object kind K (see obj_kind):
 *   OBJ_X86_FMA: fma(dy, fma(a, x, -a*mean), dgamma); only the partial last vector of ds/db fused
 *                (torch 2.13.0 and 2.14.1; in 2.12.1 no vector of ds/db is, see x86_tail_fused);
 *                fma(db, mean, -ds), fma(-b, mean, -(db*a/N)); dx = fma(b, x, a*dy*w) + c.
 *   OBJ_NEON:    dgamma as OBJ_X86_FMA; ds/db fused in every vector (fmla); b, c as OBJ_X86_FMA;
 *                dx = fma(a*dy, w, b*x) + c.
 *   OBJ_SVE:     the vector code separately rounded; b, c (scalar) as OBJ_X86_FMA.
 *   OBJ_X86_DEFAULT: nothing fused.
 * buffer: 2*threads*N zeroed floats, then N floats of scratch. */
KERNEL void layer_norm_backward_k(int tree, int64_t T, const float *restrict dy, const float *restrict x,
                                  const float *mean, const float *rstd, const float *restrict weight, int64_t M,
                                  int64_t N, float *restrict dx, float *restrict dweight, float *restrict dbias,
                                  float *restrict buffer, const int K, const int L, const int x86_tail) {
    const float scale = 1.0f / (float)N;
    const int VC = K == OBJ_X86_FMA || K == OBJ_NEON, SC = K != OBJ_X86_DEFAULT;
    const int fuse = K == OBJ_NEON ? FUSE_TAIL | FUSE_BODY : K == OBJ_X86_FMA && x86_tail ? FUSE_TAIL : 0;
    float *restrict dyx = buffer + 2 * T * N;
    for (int64_t tid = 0; tid < T; tid++) {
        int64_t b0, b1;
        if (!parallel_chunk(0, M, 1, T, tid, &b0, &b1)) continue;
        float *restrict gbuf = buffer + tid * N;
        float *restrict bbuf = buffer + T * N + tid * N;
        for (int64_t i = b0; i < b1; i++) {
            const float *dyr = dy + i * N, *xr = x + i * N;
            const float a = rstd[i], mu = mean[i], nam = -a * mu;
            accumulate_dgamma_dbeta(dyr, xr, a, nam, N, gbuf, bbuf, dyx, VC);
            /* no weight: ds = map2_reduce_all(dy*x, +), db = reduce_all(+, dy) */
            const float ds = weight ? row_sum_l(tree, dyx, weight, N, fuse, L)
                                    : row_sum_l(tree, dyr, xr, N, fuse, L);
            const float db = row_sum_l(tree, dyr, weight, N, fuse, L);
            const float b = (SC ? fmaf(db, mu, -ds) : db * mu - ds) * a * a * a * scale;
            const float c = SC ? fmaf(-b, mu, -(db * a * scale)) : -b * mu - db * a * scale;
            float *dxr = dx + i * N;
            if (!weight) { /* Vec(a)*dy + Vec(b)*x + Vec(c) (map2) */
                if (K == OBJ_NEON) FOR_ROW(j, N, dxr[j] = fmaf(a, dyr[j], b * xr[j]) + c);
                else if (K == OBJ_X86_FMA) FOR_ROW(j, N, dxr[j] = fmaf(b, xr[j], a * dyr[j]) + c);
                else FOR_ROW(j, N, dxr[j] = (a * dyr[j] + b * xr[j]) + c);
            } else if (K == OBJ_NEON) FOR_ROW(j, N, dxr[j] = fmaf(a * dyr[j], weight[j], b * xr[j]) + c);
            else if (K == OBJ_X86_FMA) FOR_ROW(j, N, dxr[j] = fmaf(b, xr[j], a * dyr[j] * weight[j]) + c);
            else FOR_ROW(j, N, dxr[j] = (a * dyr[j] * weight[j] + b * xr[j]) + c);
        }
    }
    for (int64_t j = 0; j < N; j++) dweight[j] = dbias[j] = 0.0f;
    for (int64_t t = 0; t < T; t++) {
        const float *gbuf = buffer + t * N, *bbuf = buffer + T * N + t * N;
        FOR_ROW(j, N, {
            dweight[j] += gbuf[j];
            dbias[j] += bbuf[j];
        });
    }
}

void layer_norm_backward(profile_t p, const float *dy, const float *x, const float *mean, const float *rstd,
                         const float *weight, int64_t M, int64_t N, float *dx, float *dweight, float *dbias,
                         float *buffer) {
    const int64_t T = p.threads < 1 ? 1 : p.threads;
    const int tree = p.aten != ATEN_DEFAULT;
    switch (obj_kind(&p)) {
    case OBJ_NEON:
        layer_norm_backward_k(tree, T, dy, x, mean, rstd, weight, M, N, dx, dweight, dbias, buffer, OBJ_NEON, 4, 1);
        break;
    case OBJ_SVE:
        layer_norm_backward_k(tree, T, dy, x, mean, rstd, weight, M, N, dx, dweight, dbias, buffer, OBJ_SVE, 8, 1);
        break;
    case OBJ_X86_FMA:
        layer_norm_backward_k(tree, T, dy, x, mean, rstd, weight, M, N, dx, dweight, dbias, buffer, OBJ_X86_FMA, 8,
                              x86_tail_fused(&p, 8));
        break;
    default:
        layer_norm_backward_k(tree, T, dy, x, mean, rstd, weight, M, N, dx, dweight, dbias, buffer, OBJ_X86_DEFAULT,
                              8, 1);
    }
}

/* ------------------------------------------------------------------------------ softmax family */

/* vec::reduce_all(vec::maximum): the maximum (NaN-propagating); its order cannot change the value. */
static float row_max(const float *x, int64_t n) {
    float m = x[0];
    for (int64_t j = 1; j < n; j++) m = (m != m || x[j] != x[j]) ? m + x[j] : (x[j] > m ? x[j] : m);
    return m;
}

/* a - b as aarch64 computes it: an invalid subtraction (inf - inf) gives aarch64's default NaN
 * +qNaN (0x7fc00000) where this (x86) host gives 0xffc00000; a NaN operand propagates on both. */
static inline float arm_sub(float a, float b) {
    float r = a - b;
    uint32_t u, q = 0x7fc00000u;
    memcpy(&u, &r, 4);
    if (r != r && a == a && b == b) memcpy(&u, &q, 4);
    memcpy(&r, &u, 4);
    return r;
}

/* y[j] = Vectorized<float>::exp(x[j] - shift) over a row. x - shift is NaN only for a row whose max
 * is infinite (inf - inf), where the platform's default NaN appears (arm_sub). */
static void row_exp(const profile_t *p, const float *restrict x, float shift, float *restrict y, int64_t n) {
    if (is_arm(p)) FOR_ROW(j, n, y[j] = sleef_expf_u10(arm_sub(x[j], shift)));
    else if (p->aten) FOR_ROW(j, n, y[j] = sleef_expf_u10(x[j] - shift));
    else FOR_ROW(j, n, y[j] = glibc_expf(x[j] - shift));
}

/* _vec_softmax_lastdim (SoftMaxKernel.cpp), x/y (M,N), L = lanes_wide: per row max,
 * y = exp(x - max) (vec::map), sum = reduce_all(+) of y, y = y * (1/sum). Independent of threads. */
void softmax_forward(profile_t p, const float *x, int64_t M, int64_t N, float *y) {
    if (N <= 0) return;
    for (int64_t i = 0; i < M; i++) {
        const float *xr = x + i * N;
        float *restrict yr = y + i * N;
        row_exp(&p, xr, row_max(xr, N), yr, N);
        const float r = 1.0f / row_sum(&p, p.lanes_wide, yr, NULL, N, 0);
        FOR_ROW(j, N, yr[j] = yr[j] * r);
    }
}

/* _vec_softmax (SoftMaxKernel.cpp), float, a softmax over a dim that is not the last: x/y (O, D, I),
 * O the dims before, D the softmax dim, I > 1 the dims after. ATen's parallel_for splits the O*I
 * columns (grain std::min(GRAIN_SIZE / D, 1): any two columns may part); each thread walks its range
 * [begin, end) from begin: where L = lanes_wide (8 on x86's avx2 and default, 16 in the AVX-512 object,
 * softmax_kernel being also registered for it: measured on a Zen 5; 4 in aarch64's
 * NEON-typed objects, N1 and V2, 8 in V1's SVE256 one) columns fit both
 * in the row of I (inner + L <= I) and in the range (idx + L <= end), a vector of L columns: max over d by vec::maximum, e = Vectorized exp(x - max) stored (SLEEF expf_u10
 * in the AVX2 object, the C library's expf per lane in the default one), sum = 0 + e over d in order,
 * y = e / sum; else a run of scalar columns up to the range's end or the row's: std::max over d, e =
 * std::exp(x - max) (the C library's expf at every level), sum = 0 + e in order, y = e / sum. So the
 * thread count moves the vector/scalar boundary, and the level the vector lanes' exp. On aarch64
 * (measured under emulation) the vector lanes' exp is SLEEF's advsimd/SVE expf_u10 (sleef_expf_u10's
 * bits), the scalar columns' aarch64 expf (glibc_expf's bits), and x - max of an infinite max gives the
 * default NaN +qNaN (arm_sub). Nothing to contract. */
static void softmax_dim_column(const profile_t *p, int vec, const float *x, float *y, int64_t D, int64_t I) {
    float m = x[0];
    for (int64_t d = 1; d < D; d++) {
        const float v = x[d * I];
        if (vec) m = (m != m || v != v) ? m + v : (v > m ? v : m); /* vec::maximum propagates NaN */
        else m = m < v ? v : m;                                       /* std::max(m, v) */
    }
    float sum = 0.0f;
    for (int64_t d = 0; d < D; d++) {
        const float t = is_arm(p) ? arm_sub(x[d * I], m) : x[d * I] - m;
        const float e = vec && p->aten ? sleef_expf_u10(t) : glibc_expf(t);
        y[d * I] = e;
        sum = sum + e;
    }
    for (int64_t d = 0; d < D; d++) y[d * I] = y[d * I] / sum;
}

void softmax_dim_forward(profile_t p, const float *x, int64_t O, int64_t D, int64_t I, float *y) {
    if (O * I <= 0 || D <= 0) return;
    const int64_t L = p.lanes_wide, n = O * I;
    const int64_t grain = GRAIN_SIZE / D < 1 ? GRAIN_SIZE / D : 1; /* std::min(GRAIN_SIZE / D, 1) */
    for (int64_t tid = 0; tid < p.threads; tid++) {
        int64_t begin, end;
        if (!parallel_chunk(0, n, grain, p.threads, tid, &begin, &end)) continue;
        int64_t idx = begin;
        while (idx < end) {
            const int64_t outer = idx / I, inner = idx % I;
            const int vec = inner + L <= I && idx + L <= end;
            const int64_t run = vec ? L : (idx + L > end ? end - idx : I - inner);
            for (int64_t k = 0; k < run; k++) {
                const int64_t o = (idx + k) / I, i = (idx + k) % I;
                softmax_dim_column(&p, vec, x + o * D * I + i, y + o * D * I + i, D, I);
            }
            (void)outer;
            idx += run;
        }
    }
}

/* _vec_softmax_backward (SoftMaxKernel.cpp), float, over a dim that is not the last: g/y/gx (O, D, I).
 * The inner columns are cut into chunks of CHUNK = max(128 KiB / D / 4, L) rounded down to L = lanes_wide
 * (16 in the AVX-512 object, whose Vectorized sum is contracted as the AVX2 one's: measured);
 * ATen's parallel_for hands whole (outer, chunk) blocks to threads, so the thread count does not reach
 * the bits. Per block of `size` columns: sum = 0, then over d in order sum += g*y (the first size -
 * size % L columns by Vectorized `sum_vec += g*y`, the rest by scalar code; the AVX2 object contracts
 * both to fma(g, y, sum), measured; on aarch64, measured, the NEON-typed objects (N1, V2, L = 4) both,
 * V1's SVE256 object (L = 8) the scalar columns only: vcmadd / sfmadd), then gx = y * (g - sum). */
void softmax_dim_backward(profile_t p, const float *g, const float *y, int64_t O, int64_t D, int64_t I, float *gx,
                          float *sum) {
    if (O * I <= 0 || D <= 0) return;
    const int64_t L = p.lanes_wide;
    int64_t chunk = 128 * 1024 / D / 4;
    if (chunk < L) chunk = L;
    chunk = chunk / L * L;
    for (int64_t o = 0; o < O; o++)
        for (int64_t start = 0; start < I; start += chunk) {
            const int64_t size = I - start < chunk ? I - start : chunk, vec_end = size - size % L;
            for (int64_t k = 0; k < size; k++) sum[k] = 0.0f;
            for (int64_t d = 0; d < D; d++) {
                const int64_t at = (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++)
                    sum[k] = k < vec_end ? vcmadd(&p, g[at + k], y[at + k], sum[k]) : sfmadd(&p, g[at + k], y[at + k], sum[k]);
            }
            for (int64_t d = 0; d < D; d++) {
                const int64_t at = (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++) gx[at + k] = y[at + k] * (g[at + k] - sum[k]);
            }
        }
}

/* The column chunks of _vec_log_softmax and _vec_log_softmax_backward (SoftMaxKernel.cpp, over a dim that
 * is not the last): CHUNK = max(128 KiB / D / 4, L) rounded down to L = lanes_wide, at most I; a chunk's
 * first size - size % L columns are Vectorized, the rest scalar. parallel_for hands whole (outer, chunk)
 * blocks to threads (grain 0), so the thread count does not reach the bits. */
static int64_t log_softmax_dim_chunk(const profile_t *p, int64_t D, int64_t I) {
    const int64_t L = p->lanes_wide;
    int64_t chunk = 128 * 1024 / D / 4;
    if (chunk < L) chunk = L;
    chunk = chunk / L * L;
    return chunk < I ? chunk : I;
}

/* serial_vec_logsoftmax_range (SoftMaxKernel.h, float), x/y (O, D, I), per column of a chunk in this order:
 * m = -inf, then over d in order m = x > m ? x : m (Vec::blendv on x > m in the vector columns, the same
 * compare in the scalar ones: a NaN never taken); s = 0, then over d s = s + exp(x - m) (Vectorized exp
 * in the vector columns: SLEEF expf_u10 in the AVX2 and AVX-512 objects, the C library's per lane in the
 * default one; std::exp, the C library's expf, in the scalar columns); ls = log(s) by vec::map over the
 * whole chunk (every column a vector lane: SLEEF logf_u10, the C library's logf at default); then
 * y = (x - m) - ls. No product: nothing to contract. `sums` holds 2 * CHUNK floats.
 * aarch64 (read in the wheel's DEFAULT object: `fcmgt` and `bsl` for the vector max, `fcmpe` and a branch
 * for the scalar one; SLEEF's advsimd/SVE expf_u10 in the vector columns, aarch64 glibc's expf in the
 * scalar ones, SLEEF's logf_u10 over the whole chunk): the max never takes a NaN, so x - m is a NaN x's
 * own (quieted), or aarch64's +qNaN where x and m are one infinity (arm_sub); a column's sum meeting one
 * is a NaN, and SLEEF's logf returns its NaN constant +qNaN for any NaN: y is a NaN x's own NaN, else
 * +qNaN (FSUB keeps its first operand's NaN; neither is signalling there), whatever the order of the
 * sum's FADDs (`fadd v0, v0(exp), v2(sum)` in the vectors, `fadd s1, s1(sum), s0(exp)` in the scalar
 * columns). */
void log_softmax_dim_forward(profile_t p, const float *x, int64_t O, int64_t D, int64_t I, float *y, float *sums) {
    if (O * I <= 0 || D <= 0) return;
    const int64_t chunk = log_softmax_dim_chunk(&p, D, I), L = p.lanes_wide;
    const int arm = is_arm(&p);
    float *m = sums, *s = sums + chunk;
    for (int64_t o = 0; o < O; o++)
        for (int64_t start = 0; start < I; start += chunk) {
            const int64_t size = I - start < chunk ? I - start : chunk, vec_end = size - size % L;
            for (int64_t k = 0; k < size; k++) m[k] = -INFINITY, s[k] = 0.0f;
            for (int64_t d = 0; d < D; d++) {
                const float *xr = x + (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++) m[k] = xr[k] > m[k] ? xr[k] : m[k];
            }
            for (int64_t d = 0; d < D; d++) {
                const float *xr = x + (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++) {
                    const float t = arm ? arm_sub(xr[k], m[k]) : xr[k] - m[k];
                    s[k] = s[k] + (k < vec_end ? vec_expf(&p, t) : glibc_expf(t));
                }
            }
            for (int64_t k = 0; k < size; k++) s[k] = vec_logf(&p, s[k]);
            for (int64_t d = 0; d < D; d++) {
                const int64_t at = (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++)
                    y[at + k] = arm ? arm_sub(arm_sub(x[at + k], m[k]), s[k]) : (x[at + k] - m[k]) - s[k];
            }
        }
}

/* _vec_log_softmax_backward (SoftMaxKernel.cpp, float), g/y/gx (O, D, I), per column of a chunk: sum = 0,
 * then over d in order sum = sum + g; then gx = g - exp(y) * sum, Vectorized exp (SLEEF expf_u10 at AVX2
 * and AVX-512, the C library's per lane at default) in the vector columns and std::exp in the scalar ones;
 * the FMA objects contract the product into the subtraction in both (fnmadd: measured at avx2 and
 * avx512), the default object rounds twice. `sums` holds CHUNK floats.
 * aarch64 (read in the wheel's DEFAULT, SVE128 and SVE256 objects, the inline copy and the OpenMP body's,
 * which parallel_for runs at 2+ threads over 2+ (outer, chunk) blocks): the sum's FADD is `g + sum` in the
 * NEON-typed objects' vector columns and `sum + g` in their scalar ones (SVE128's a `whilelo` loop); SVE256's
 * vector columns `sum + g`, its scalar ones `g + sum` inline but `sum + g` in the OpenMP body. Then SLEEF's
 * advsimd/SVE expf in the vector columns, aarch64 expf in the scalar ones (a NaN y quieted by both), and
 * gx by `fmls g, sum, e` (g - (-sum) * e: FPProcessNaNs3 over g, -sum, e, -sum's NaN sign flipped) in the
 * NEON-typed vector columns, SVE256's `fmul e, sum` then `fsub g, e * sum` unfused, and `fmsub e, sum, g`
 * (over g, -e, sum) in every scalar column. */
void log_softmax_dim_backward(profile_t p, const float *g, const float *y, int64_t O, int64_t D, int64_t I,
                              float *gx, float *sums) {
    if (O * I <= 0 || D <= 0) return;
    const int64_t chunk = log_softmax_dim_chunk(&p, D, I), L = p.lanes_wide;
    const int arm = is_arm(&p), sve = obj_kind(&p) == OBJ_SVE;
    const int omp = p.threads > 1 && O * ((I + chunk - 1) / chunk) > 1;
    for (int64_t o = 0; o < O; o++)
        for (int64_t start = 0; start < I; start += chunk) {
            const int64_t size = I - start < chunk ? I - start : chunk, vec_end = size - size % L;
            for (int64_t k = 0; k < size; k++) sums[k] = 0.0f;
            for (int64_t d = 0; d < D; d++) {
                const float *gr = g + (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++) {
                    const int g_first = k < vec_end ? !sve : sve && !omp;
                    sums[k] = !arm ? sums[k] + gr[k] : g_first ? add_nans(&p, gr[k], sums[k]) : add_nans(&p, sums[k], gr[k]);
                }
            }
            for (int64_t d = 0; d < D; d++) {
                const int64_t at = (o * D + d) * I + start;
                for (int64_t k = 0; k < size; k++) {
                    const int vec = k < vec_end;
                    const float yv = y[at + k], gv = g[at + k], s = sums[k];
                    float e = vec ? vec_expf(&p, yv) : glibc_expf(yv);
                    if (!arm) gx[at + k] = vec ? vcmadd(&p, -e, s, gv) : sfmadd(&p, -e, s, gv);
                    else {
                        if (yv != yv) e = quieted(yv);
                        if (vec && sve) {
                            const float m = nan2(&p, e * s, e, s);
                            gx[at + k] = nan2(&p, gv - m, gv, m);
                        } else if (vec) gx[at + k] = nan3(&p, fmaf(-s, e, gv), -s, e, gv);
                        else gx[at + k] = nan3(&p, fmaf(-e, s, gv), -e, s, gv);
                    }
                }
            }
        }
}

static void softmax_grad_row(const float *restrict g, const float *restrict y, float s, int64_t n, float *restrict gx) {
    FOR_ROW(j, n, gx[j] = (g[j] - s) * y[j]);
}

/* _vec_host_softmax_backward_lastdim<float, false> (SoftMaxKernel.cpp), g/y/gx (M,N): per row
 * s = map2_reduce_all(g*y, +), gx = (g - s) * y. x86 FMA objects of torch 2.13.0 and 2.14.1: GCC
 * contracted the partial vector's g*y + acc in the copy that runs inline (one thread, or one row),
 * not in the one inside the OpenMP region; torch 2.12.1's AVX2 object contracts it in neither, its
 * AVX-512 object as 2.13.0's (x86_tail_fused).
 * aarch64 NEON objects: every vector's g*y + acc contracted, in both copies; SVE256: none. */
void softmax_backward(profile_t p, const float *g, const float *y, int64_t M, int64_t N, float *gx) {
    if (N <= 0) return;
    const int kind = obj_kind(&p);
    const int fuse = kind == OBJ_NEON ? FUSE_TAIL | FUSE_BODY
                     : kind == OBJ_SVE ? 0
                     : (p.contract && x86_tail_fused(&p, p.lanes_wide) && (p.threads <= 1 || M <= 1) ? FUSE_TAIL : 0);
    for (int64_t i = 0; i < M; i++) {
        const float *restrict gr = g + i * N, *restrict yr = y + i * N;
        float *restrict gxr = gx + i * N;
        const float s = row_sum(&p, p.lanes_wide, gr, yr, N, fuse);
        softmax_grad_row(gr, yr, s, N, gxr);
    }
}

static void log_softmax_row(const profile_t *p, const float *restrict x, float mx, float ls, int64_t n,
                            float *restrict y) {
    if (is_arm(p)) FOR_ROW(j, n, y[j] = arm_sub(arm_sub(x[j], mx), ls));
    else FOR_ROW(j, n, y[j] = (x[j] - mx) - ls);
}

/* serial_vec_log_softmax_lastdim_range (LogSoftmaxKernelImpl.h), x/y (M,N): per row max,
 * s = map_reduce_all(exp(x - max), +), ls = Vectorized log(s), y = (x - max) - ls.
 * The row chunking only groups rows; independent of threads. tmp: N floats. */
void log_softmax_forward(profile_t p, const float *x, int64_t M, int64_t N, float *y, float *tmp) {
    if (N <= 0) return;
    for (int64_t i = 0; i < M; i++) {
        const float *restrict xr = x + i * N;
        float *restrict yr = y + i * N;
        const float mx = row_max(xr, N);
        row_exp(&p, xr, mx, tmp, N);
        const float ls = vec_logf(&p, row_sum(&p, p.lanes_wide, tmp, NULL, N, 0));
        log_softmax_row(&p, xr, mx, ls, N, yr);
    }
}

KERNEL void log_softmax_grad_row(const float *restrict g, const float *restrict e, float s, int64_t n,
                                 float *restrict gx, const int CF) {
    if (CF) FOR_ROW(j, n, gx[j] = fmaf(-e[j], s, g[j]));
    else FOR_ROW(j, n, gx[j] = g[j] - e[j] * s);
}

/* _vec_host_softmax_backward_lastdim<float, true>, g/y/gx (M,N): s = reduce_all(+) of g,
 * gx = g - exp(y) * s (contracted to fma(-exp(y), s, g) in both inlined copies on x86 FMA and
 * aarch64 NEON objects; separately rounded on SVE256). tmp: N floats. */
void log_softmax_backward(profile_t p, const float *g, const float *y, int64_t M, int64_t N, float *gx, float *tmp) {
    if (N <= 0) return;
    for (int64_t i = 0; i < M; i++) {
        const float *restrict gr = g + i * N;
        float *restrict gxr = gx + i * N;
        const float s = row_sum(&p, p.lanes_wide, gr, NULL, N, 0);
        row_exp(&p, y + i * N, 0.0f, tmp, N);
        if (p.contract && obj_kind(&p) != OBJ_SVE) log_softmax_grad_row(gr, tmp, s, N, gxr, 1);
        else log_softmax_grad_row(gr, tmp, s, N, gxr, 0);
    }
}

/* ------------------------------------------------------------------------------ nll_loss, nll_loss2d */

/* nll_loss2d_forward_out_frame (LossNLL2d.cpp; nll_loss_out_frame of LossNLL.cpp is its map = 1, unweighted
 * case), reductions sum and mean (reduction 2 and 1), serial on every thread count, compiled outside the
 * per-capability objects (no FMA, no vector code: the same bits at every x86 level). lsm (B, C, map)
 * log-probabilities (map = H*W), target (B, map), weight (C,) or NULL. The elements in their linear order
 * i = b*map + e; one whose target is ignore_index only counts as ignored; the others subtract
 * lsm[b, t, e] (or its product with weight[t], rounded on its own on x86, fused into the subtraction on
 * aarch64, whose GCC contracts loss - x*w) from loss[0] and, weighted, add weight[t]
 * to wsum[0]; after element i, while the level mask of i is zero, level j moves into level j+1 (8 levels,
 * level_power = max(4, CeilLog2(B*map)/8)) in both arrays. total weight: the unignored count as float, or
 * 0 + wsum[0] + ... + wsum[7]; out = 0 + loss[0] + ... + loss[7], divided by the total weight for mean.
 * A mean whose total weight is 0 (every target ignored) gives 0/0: the CPU's default NaN, 0xffc00000 on
 * x86, 0x7fc00000 on aarch64 (FPCR.DN off: a NaN operand propagates, an invalid operation gives +qNaN);
 * an empty batch gives +qNaN (mean) or 0 (sum), total weight 0. */
float nll_loss2d_forward(profile_t p, const float *lsm, const int64_t *target, const float *weight, int64_t B,
                         int64_t C, int64_t map, int64_t ignore_index, int32_t mean, float *total_weight) {
    enum { LEVELS = 8 };
    const int64_t numiter = B * map;
    const int64_t power = ceil_log2(numiter) / LEVELS > 4 ? ceil_log2(numiter) / LEVELS : 4;
    const int64_t mask = ((int64_t)1 << power) - 1;
    float loss[LEVELS] = {0}, wsum[LEVELS] = {0};
    int64_t ignored = 0;
    *total_weight = 0.0f;
    if (numiter == 0) { /* std::numeric_limits<double>::quiet_NaN() as float: +qNaN everywhere (measured) */
        const uint32_t quiet_nan = 0x7fc00000u;
        float empty;
        memcpy(&empty, &quiet_nan, 4);
        return mean ? empty : 0.0f;
    }
    for (int64_t b = 0; b < B; b++)
        for (int64_t e = 0; e < map; e++) {
            const int64_t i = b * map + e, t = target[i];
            if (t == ignore_index) {
                ignored++;
                continue;
            }
            const float x = lsm[(b * C + t) * map + e];
            if (weight) {
                const float w = weight[t];
                if (is_arm(&p)) { /* aarch64's GCC contracts loss - x*w into one fmsub */
                    loss[0] = fmaf(-x, w, loss[0]);
                } else {
                    const float xw = x * w;
                    loss[0] -= xw;
                }
                wsum[0] += w;
            } else {
                loss[0] -= x;
            }
            for (int64_t j = 0; j + 1 < LEVELS; j++) {
                if ((i & (mask << (j * power))) != 0) break;
                wsum[j + 1] += wsum[j];
                loss[j + 1] += loss[j];
                wsum[j] = 0.0f;
                loss[j] = 0.0f;
            }
        }
    float tw = 0.0f, out = 0.0f;
    if (weight)
        for (int j = 0; j < LEVELS; j++) tw += wsum[j];
    else
        tw = (float)(numiter - ignored);
    for (int j = 0; j < LEVELS; j++) out += loss[j];
    *total_weight = tw;
    if (!mean) return out;
    float value = out / tw;
    if (value != value && out == out && tw == tw && is_arm(&p)) {
        const uint32_t arm_default_nan = 0x7fc00000u;
        memcpy(&value, &arm_default_nan, 4);
    }
    return value;
}

/* nll_loss_out_frame (LossNLL.cpp), lsm (B,C), target (B), mean, no class weights: nll_loss2d_forward's
 * cascade over B elements of map 1. */
float nll_loss_forward(profile_t p, const float *lsm, const int64_t *target, int64_t B, int64_t C,
                       int64_t ignore_index, float *total_weight) {
    return nll_loss2d_forward(p, lsm, target, NULL, B, C, 1, ignore_index, 1, total_weight);
}

/* nll_loss_backward_out_frame, mean, grad_lsm (B,C): zeroed, then
 * grad_lsm[b, t] = -(grad_out / total_weight) for non-ignored rows. */
void nll_loss_backward(float grad_out, float total_weight, const int64_t *target, int64_t B, int64_t C,
                       int64_t ignore_index, float *grad_lsm) {
    const float g = -(grad_out / total_weight);
    memset(grad_lsm, 0, sizeof(float) * (size_t)(B * C));
    for (int64_t b = 0; b < B; b++)
        if (target[b] != ignore_index) grad_lsm[b * C + target[b]] = g;
}

/* ------------------------------------------------------------------------------ weight_norm */

/* WeightNormKernel.cpp, float32 (REGISTER_DISPATCH: 8 lanes at avx512 too, the AVX2 object). v/w (M,N);
 * the kept dim is M rows (first dim: M = v.size(0), N the rest) or N columns (last dim: N = v.size(-1), M
 * the rest); g/norm hold one value per row or column. What each object kind fuses (see obj_kind), the
 * same in both inlined copies of every parallel_for body (1 thread or 1 row, and the OpenMP region),
 * measured against torch (x86: 2.12.1, 2.13.0 and 2.14.1 alike; aarch64: 2.13.0 on emulated N1, V1, V2,
 * 2.14.1 and 2.12.1 on N1 and V1, alike but for a NaN's sign, fnmadd_nan):
 *   the first dim's map_reduce_all / map2_reduce_all (x*x, grad_w*v): OBJ_NEON in every vector
 *     (FUSE_BODY | FUSE_TAIL), never on x86 (not even the partial vector) or SVE256;
 *   the last dim's per-thread `out + v*v`, `out + grad_w*v` -> fma(v, v, out), fma(grad_w, v, out), and
 *   `a*grad_w - b*v` (both dims) -> fma(-b, v, a*grad_w): OBJ_X86_FMA and OBJ_NEON, in every vector;
 *   OBJ_SVE (svmul/svsub intrinsics) and the x86 default build: nothing. */

static int weight_norm_reduce_fuse(const profile_t *p) {
    return obj_kind(p) == OBJ_NEON ? FUSE_TAIL | FUSE_BODY : 0;
}

static int weight_norm_contracted(const profile_t *p) {
    const int kind = obj_kind(p);
    return kind == OBJ_X86_FMA || kind == OBJ_NEON;
}

/* On the arm64 profiles, every NaN of out[0..n) with the other sign: a default NaN an invalid operation
 * creates is 0xffc00000 on this x86 host and +qNaN 0x7fc00000 on aarch64, and one that the kernel
 * negated (fnmadd_nan) carries the opposite sign on each (inputs without NaNs: every NaN is one of
 * these two). */
static void arm_nan_signs(const profile_t *p, float *out, int64_t n) {
    if (!is_arm(p)) return;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &out[i], 4);
        if ((u & 0x7fffffffu) == 0x7fc00000u) {
            u ^= 0x80000000u;
            memcpy(&out[i], &u, 4);
        }
    }
}

/* weight_norm_first_dim_kernel: per row norm = sqrt(map_reduce_all(x*x, +)) (row_sum_l's order, L lanes),
 * a = g/norm, w = v*a (vec::map). Rows are independent of threads. */
static void weight_norm_first_dim(const profile_t *p, const float *restrict v, const float *restrict g, int64_t M,
                                  int64_t N, float *restrict w, float *restrict norm) {
    for (int64_t i = 0; i < M; i++) {
        const float *restrict vr = v + i * N;
        float *restrict wr = w + i * N;
        const float nv = sqrtf(row_sum(p, p->lanes, vr, vr, N, weight_norm_reduce_fuse(p)));
        const float a = g[i] / nv;
        norm[i] = nv;
        FOR_ROW(j, N, wr[j] = vr[j] * a);
    }
}

/* sum_norm_per_row / sum_product_per_row: out[j] += t[j]*b[j] over a row (vec::map2 / map3). */
KERNEL void accumulate_products(float *restrict out, const float *restrict t, const float *restrict b, int64_t N,
                                const int CF) {
    FOR_ROW(j, N, out[j] = MADD(CF, t[j], b[j], out[j]));
}

/* The last dim's vertical reduction: buffer (T,N) zeroed; at::parallel_for(0, M, 1) gives thread tid
 * its chunk of rows, accumulated in row order into buffer row tid; then per column the T rows are
 * summed from 0 in thread order into out (which may be buffer row 0). */
static void column_sums(const float *t, const float *b, int64_t M, int64_t N, int64_t T, float *buffer, float *out,
                        int CF) {
    memset(buffer, 0, sizeof(float) * (size_t)(T * N));
    for (int64_t tid = 0; tid < T; tid++) {
        int64_t b0, b1;
        if (!parallel_chunk(0, M, 1, T, tid, &b0, &b1)) continue;
        for (int64_t i = b0; i < b1; i++) {
            if (CF) accumulate_products(buffer + tid * N, t + i * N, b + i * N, N, 1);
            else accumulate_products(buffer + tid * N, t + i * N, b + i * N, N, 0);
        }
    }
    for (int64_t j = 0; j < N; j++) {
        float s = 0.0f;
        for (int64_t k = 0; k < T; k++) s += buffer[k * N + j];
        out[j] = s;
    }
}

/* weight_norm_last_dim_kernel: norm = sqrt(column_sums(v*v)); buffer row 0 = g/norm (vec::map2, IEEE
 * division); w = v * (g/norm) per row. buffer: max(T, 1)*N floats. */
static void weight_norm_last_dim(const profile_t *p, const float *v, const float *g, int64_t M, int64_t N, float *w,
                                 float *norm, float *buffer) {
    const int64_t T = p->threads < 1 ? 1 : p->threads;
    column_sums(v, v, M, N, T, buffer, norm, weight_norm_contracted(p));
    for (int64_t j = 0; j < N; j++) norm[j] = sqrtf(norm[j]);
    for (int64_t j = 0; j < N; j++) buffer[j] = g[j] / norm[j];
    for (int64_t i = 0; i < M; i++) {
        const float *restrict vr = v + i * N;
        float *restrict wr = w + i * N;
        const float *restrict r = buffer;
        FOR_ROW(j, N, wr[j] = vr[j] * r[j]);
    }
}

void weight_norm_forward(profile_t p, const float *v, const float *g, int64_t M, int64_t N, int last, float *w,
                         float *norm, float *buffer) {
    if (last) weight_norm_last_dim(&p, v, g, M, N, w, norm, buffer);
    else weight_norm_first_dim(&p, v, g, M, N, w, norm);
    arm_nan_signs(&p, w, M * N); /* a zero slice: g/0 = inf, 0*inf (or 0/0 where g = 0 too) */
}

/* fma(-b, v, c), the fused a*grad_w - b*v, with NaN operands as torch's instructions treat them (a zero
 * slice: b = (a*grad_g)/0, and c = a*grad_w a NaN too where g = 0): a NaN c comes first (x86 vfnmadd231
 * takes its first source, aarch64 fmla/fmls the addend); else a NaN b as it was (x86; aarch64's fmls in
 * the vector body), or with its sign flipped where the instruction negates b itself (`flip`: the NEON
 * objects' partial last vector of the last dim's vec::map4 from torch 2.13.0, measured: a zero column
 * there gives the other NaN sign; 2.12.1's keeps it). Written out, not left to fmaf(-b, ...), whose NaNs depend on how the host's compiler and libm
 * order the operands and fold the negation. */
static inline float fnmadd_nan(float b, float v, float c, int flip) {
    if (c != c) return c;
    if (b == b) return fmaf(-b, v, c);
    uint32_t u;
    memcpy(&u, &b, 4);
    u ^= flip ? 0x80000000u : 0u;
    memcpy(&b, &u, 4);
    return b;
}

/* grad_v = a*grad_w - b*v over a row: a, b scalars (the first dim's vec::map2 with Vec(a), Vec(b)). */
KERNEL void weight_norm_grad_row(float *restrict gv, const float *restrict gw, const float *restrict v, float a,
                                 float b, int64_t N, const int CF) {
    if (CF) FOR_ROW(j, N, gv[j] = fnmadd_nan(b, v[j], a * gw[j], 0));
    else FOR_ROW(j, N, gv[j] = a * gw[j] - b * v[j]);
}

/* ... a, b per column (apply_per_row_backward's vec::map4); from column `flip` on, a NaN b flips sign. */
KERNEL void weight_norm_grad_cols(float *restrict gv, const float *restrict gw, const float *restrict v,
                                  const float *restrict a, const float *restrict b, int64_t N, int64_t flip,
                                  const int CF) {
    if (!CF) {
        FOR_ROW(j, N, gv[j] = a[j] * gw[j] - b[j] * v[j]);
        return;
    }
    FOR_ROW(j, flip, gv[j] = fnmadd_nan(b[j], v[j], a[j] * gw[j], 0));
    for (int64_t j = flip; j < N; j++) gv[j] = fnmadd_nan(b[j], v[j], a[j] * gw[j], 1);
}

/* weight_norm_backward_first_dim_kernel: per row s = map2_reduce_all(grad_w*v, +),
 * grad_g = s/norm, a = g/norm, b = (a*grad_g)/norm, grad_v = a*grad_w - b*v. Rows independent of threads.
 * weight_norm_backward_last_dim_kernel: s = column_sums(grad_w*v) into buffer row 0 (buffer: max(3, T)
 * rows), then per column grad_g, a (row 1) and b (row 2) as above, then grad_v per row.
 * buffer: max(3, T)*N floats (last dim; unused for the first). */
void weight_norm_backward(profile_t p, const float *gw, const float *v, const float *g, const float *norm, int64_t M,
                          int64_t N, int last, float *gv, float *gg, float *buffer) {
    const int CF = weight_norm_contracted(&p);
    if (!last) {
        for (int64_t i = 0; i < M; i++) {
            const float s = row_sum(&p, p.lanes, gw + i * N, v + i * N, N, weight_norm_reduce_fuse(&p));
            const float ggv = s / norm[i], a = g[i] / norm[i], b = a * ggv / norm[i];
            gg[i] = ggv;
            if (CF) weight_norm_grad_row(gv + i * N, gw + i * N, v + i * N, a, b, N, 1);
            else weight_norm_grad_row(gv + i * N, gw + i * N, v + i * N, a, b, N, 0);
        }
        arm_nan_signs(&p, gv, M * N);
        arm_nan_signs(&p, gg, M);
        return;
    }
    const int64_t T = p.threads < 1 ? 1 : p.threads;
    column_sums(gw, v, M, N, T, buffer, buffer, CF);
    float *a = buffer + N, *b = buffer + 2 * N;
    for (int64_t j = 0; j < N; j++) {
        const float ggv = buffer[j] / norm[j];
        gg[j] = ggv;
        a[j] = g[j] / norm[j];
        b[j] = a[j] * ggv / norm[j];
    }
    const int64_t flip = obj_kind(&p) == OBJ_NEON && p.torch >= TORCH_2_13 ? N - N % p.lanes : N;
    for (int64_t i = 0; i < M; i++) {
        if (CF) weight_norm_grad_cols(gv + i * N, gw + i * N, v + i * N, a, b, N, flip, 1);
        else weight_norm_grad_cols(gv + i * N, gw + i * N, v + i * N, a, b, N, flip, 0);
    }
    arm_nan_signs(&p, gv, M * N);
    arm_nan_signs(&p, gg, N);
}

/* ------------------------------------------------------------------------------ group_norm */

/* Every group_norm forward's rstd from a group's (biased) variance: 1/sqrt(std::max(var, 0) + eps) with
 * eps a double, so the sum, the sqrt and the division are double and rstd is rounded to float once;
 * std::max keeps a NaN variance (a NaN in the group), and so rstd is NaN. */
static float group_rstd(float var, double eps) { return (float)(1.0 / sqrt((double)(var < 0.0f ? 0.0f : var) + eps)); }

/* GroupNormKernelImplInternal (group_norm_kernel.cpp, contiguous NCHW float32), x/y (N,C,HxW),
 * weight/bias (C), mean/rstd (N,G). Per (n, g) row of D*HxW (D = C/G) at::parallel_for(0, N*G, 1):
 * RowwiseMoments (layer_norm's, with its lanes and contractions per object: VF, CF, SC, L; 8 lanes on
 * x86, 4 on aarch64 NEON/SVE128, 8 on SVE256); rstd = group_rstd(var); no weight and no
 * bias: y = (x - mean) * rstd; else per channel scale = rstd * w (rstd without a weight),
 * bias = -scale*mean + b (+0 without a bias), y = scale*x + bias (a scalar loop: both multiply-adds
 * contracted, YF, in the x86 FMA objects and in every aarch64 object, SVE256's too). Rows are
 * independent of the thread count. Measured on emulated N1, V1, V2 (torch 2.13.0, 1 and 2 threads). */
KERNEL void group_norm_forward_k(const float *restrict x, const float *restrict weight, const float *restrict bias,
                                 int64_t N, int64_t C, int64_t HxW, int64_t G, double eps, float *restrict y,
                                 float *mean, float *rstd, const int VF, const int CF, const int SC, const int L,
                                 const int YF) {
    const int64_t D = C / G, R = D * HxW;
    for (int64_t i = 0; i < N * G; i++) {
        const float *xr = x + i * R;
        float *yr = y + i * R;
        float mu, var;
        rowwise_moments(xr, R, &mu, &var, VF, CF, SC, L);
        const float r = group_rstd(var, eps);
        if (!weight && !bias) {
            for (int64_t j = 0; j < R; j++) yr[j] = (xr[j] - mu) * r;
        } else {
            const int64_t g = i % G;
            for (int64_t j = 0; j < D; j++) {
                const int64_t c = g * D + j;
                const float sc = weight ? r * weight[c] : r;
                const float bb = bias ? bias[c] : 0.0f;
                const float bi = MADD(YF, -sc, mu, bb);
                const float *xc = xr + j * HxW;
                float *yc = yr + j * HxW;
                FOR_ROW(k, HxW, yc[k] = MADD(YF, sc, xc[k], bi));
            }
        }
        mean[i] = mu;
        rstd[i] = r;
    }
}

void group_norm_forward(profile_t p, const float *x, const float *weight, const float *bias, int64_t N, int64_t C,
                        int64_t HxW, int64_t G, double eps, float *y, float *mean, float *rstd) {
    switch (obj_kind(&p)) {
    case OBJ_NEON:
        group_norm_forward_k(x, weight, bias, N, C, HxW, G, eps, y, mean, rstd, 1, 1, 1, 4, 1);
        break;
    case OBJ_SVE:
        group_norm_forward_k(x, weight, bias, N, C, HxW, G, eps, y, mean, rstd, 1, 0, 1, 8, 1);
        break;
    case OBJ_X86_FMA:
        group_norm_forward_k(x, weight, bias, N, C, HxW, G, eps, y, mean, rstd, 1, 1, 0, 8, 1);
        break;
    default:
        group_norm_forward_k(x, weight, bias, N, C, HxW, G, eps, y, mean, rstd, 0, 0, 0, 8, 0);
    }
}

/* How a group_norm backward's compiled object rounds c3 = -c2*mean - db*rstd*s. */
enum {
    C3_ROUNDED, /* every product and the difference rounded (the x86 default object) */
    C3_DBR,     /* fma(-(db*rstd), s, -c2*mean): GroupNormInputBackward in the x86 FMA and aarch64 objects */
    C3_C2M      /* fma(-c2, mean, -(db*rstd*s)): the channels-last backward in the x86 FMA object */
};

/* The per-(n, g) coefficients of every group_norm backward's dx = c1*dy + c2*x + c3 from the group's
 * weighted sums ds = sum(ds_c*w_c), db = sum(db_c*w_c) (w = 1 without a weight), its mean and rstd, and
 * s = 1/(D*HxW): c2 = (db*mean - ds)*rstd*rstd*rstd*s, its first term fma(db, mean, -ds) unless
 * C3_ROUNDED; c3 as `form` says. */
static void input_grad_coeffs(float ds, float db, float mean, float rstd, float s, int form, float *c2, float *c3) {
    const float c = (form == C3_ROUNDED ? db * mean - ds : fmaf(db, mean, -ds)) * rstd * rstd * rstd * s;
    *c2 = c;
    if (form == C3_DBR) *c3 = fmaf(-(db * rstd), s, -c * mean);
    else if (form == C3_C2M) *c3 = fmaf(-c, mean, -(db * rstd * s));
    else *c3 = -c * mean - db * rstd * s;
}

/* GammaBackward and BetaBackward (group_norm_kernel.cpp), shared by both layouts' backward: ds/db (N,C),
 * mean/rstd (N,G). Per channel c, from 0 over n in order, dweight = acc + (ds - db*mean)*rstd, as
 * fma(fma(-db, mean, ds), rstd, acc) when VC (the vector code contracted); dbias = 0 + db[0,c] + db[1,c] + ... */
static void group_norm_param_grads(const float *mean, const float *rstd, const float *ds, const float *db, int64_t N,
                                   int64_t C, int64_t G, int VC, float *dweight, float *dbias) {
    const int64_t D = C / G;
    for (int64_t c = 0; c < C; c++) {
        const int64_t g = c / D;
        float acc = 0.0f, accb = 0.0f;
        for (int64_t n = 0; n < N; n++) {
            const float m = mean[n * G + g], r = rstd[n * G + g];
            const float dsv = ds[n * C + c], dbv = db[n * C + c];
            acc = VC ? fmaf(fmaf(-dbv, m, dsv), r, acc) : acc + (dsv - dbv * m) * r;
            accb = accb + dbv;
        }
        dweight[c] = acc;
        dbias[c] = accb;
    }
}

/* GroupNormBackwardKernelImplInternal (group_norm_kernel.cpp: contiguous NCHW float32). dy/x/dx (N,C,HxW),
 * mean/rstd (N,G), weight/dweight/dbias (C); ds/db: N*C floats of scratch. L lanes: 8 on x86 and SVE256,
 * 4 on NEON and SVE128 (NEON-typed Vectorized). VC: Vectorized a*b+c contracted (x86 FMA objects, the
 * aarch64 NEON-typed objects); SC: scalar code contracted (x86 FMA and every aarch64 object).
 * ComputeInternalGradients (parallel_for(0, N*C, 1)): per (n, c) ds = map2_reduce_all(dy*x, +),
 * db = reduce_all(+, dy) (the shared reductions: L lanes, the shuffle tree (x86 AVX2, aarch64) or the
 * x86 default build's fold; no multiply-add fused in the x86 objects nor SVE256's, every one in the
 * NEON-typed objects, the partial last vector's too, as layer_norm's ds).
 * GroupNormInputBackward (parallel_for(0, N*G, 1)), per (n, g): CalcDsDb, L lane accumulators from 0
 * over the first d = D/L*L channels, acc + ds*w and acc + db*w (fused when VC), the lanes added to 0
 * in lane order (std::accumulate); then the D-d channels left, ds_val += ds*w, db_val += db*w. That
 * scalar loop is compiled twice, differently: the copy inside the OpenMP region (2+ threads and 2+
 * groups) fuses every term (SC); the copy inlined into GroupNormBackwardKernelImplInternal (1 thread,
 * or N*G == 1) was vectorised as an in-order reduction: on x86 AVX2, when 4 or more channels are left,
 * the first 4 products are rounded (vmulps) and added in order, the remaining 1..3 terms fused
 * (vfmadd231ss); in the aarch64 SVE objects (SVE128 and SVE256) every product is rounded and added in
 * order (as an ordered SVE reduction would: measured under emulation, the object not read); the NEON
 * object (N1) fuses them in both copies. Without a weight both copies add ds, db.
 * c2, c3: input_grad_coeffs, C3_DBR (c3 = fma(-(db*rstd), s, -c2*mean), vfnmadd) when SC; dx = fma(c1, dy,
 * c2*x) + c3 with c1 = rstd*w (rstd without a weight), in the vector body and the scalar epilogue alike
 * (objdump of torch 2.13.0's libtorch_cpu AVX2 object; the same forms on every aarch64 object,
 * measured); the x86 default object fuses nothing.
 * GammaBackward (no parallel_for), BetaBackward: group_norm_param_grads. The thread count changes only
 * which copy of GroupNormInputBackward runs (grad_x; not on N1). */
void group_norm_backward(profile_t p, const float *dy, const float *x, const float *mean, const float *rstd,
                         const float *weight, int64_t N, int64_t C, int64_t HxW, int64_t G, float *dx,
                         float *dweight, float *dbias, float *ds, float *db) {
    const int tree = p.aten != ATEN_DEFAULT;
    const int kind = obj_kind(&p);
    const int VC = kind == OBJ_X86_FMA || kind == OBJ_NEON; /* vector a*b+c contracted */
    const int SC = kind != OBJ_X86_DEFAULT;                  /* scalar code contracted */
    const int L = kind == OBJ_NEON ? 4 : 8;
    const int fuse = kind == OBJ_NEON ? FUSE_TAIL | FUSE_BODY : 0;
    const int inline_copy = parallel_threads(0, N * G, 1, p.threads) == 1;
    const int64_t D = C / G;
    const float s = 1.0f / (float)(D * HxW);
    for (int64_t i = 0; i < N * C; i++) {
        const float *dyr = dy + i * HxW, *xr = x + i * HxW;
        ds[i] = row_sum_l(tree, dyr, xr, HxW, fuse, L);
        db[i] = row_sum_l(tree, dyr, NULL, HxW, fuse, L);
    }
    for (int64_t i = 0; i < N * G; i++) {
        const int64_t g = i % G, d = D / L * L;
        const float *dsp = ds + i * D, *dbp = db + i * D;
        const float *w = weight ? weight + g * D : NULL;
        float accs[MAXL] = {0}, accb[MAXL] = {0};
        for (int64_t j = 0; j < d; j += L)
            for (int l = 0; l < L; l++) {
                const float gv = w ? w[j + l] : 1.0f;
                accs[l] = MADD(VC, dsp[j + l], gv, accs[l]);
                accb[l] = MADD(VC, dbp[j + l], gv, accb[l]);
            }
        float dsv = 0.0f, dbv = 0.0f;
        for (int l = 0; l < L; l++) {
            dsv = dsv + accs[l];
            dbv = dbv + accb[l];
        }
        const int64_t unfused_end = p.aten == ATEN_SVE ? (inline_copy ? D : d)
                                    : (kind == OBJ_X86_FMA && inline_copy && D - d >= 4 ? d + 4 : d);
        for (int64_t j = d; j < D; j++) {
            if (!w) {
                dsv = dsv + dsp[j];
                dbv = dbv + dbp[j];
            } else {
                const int f = SC && j >= unfused_end;
                dsv = MADD(f, dsp[j], w[j], dsv);
                dbv = MADD(f, dbp[j], w[j], dbv);
            }
        }
        const float m = mean[i], r = rstd[i];
        float c2, c3;
        input_grad_coeffs(dsv, dbv, m, r, s, SC ? C3_DBR : C3_ROUNDED, &c2, &c3);
        for (int64_t j = 0; j < D; j++) {
            const float c1 = w ? r * w[j] : r;
            const int64_t off = (i * D + j) * HxW;
            const float *dyc = dy + off, *xc = x + off;
            float *dxc = dx + off;
            if (SC) FOR_ROW(k, HxW, dxc[k] = fmaf(c1, dyc[k], c2 * xc[k]) + c3);
            else FOR_ROW(k, HxW, dxc[k] = (c1 * dyc[k] + c2 * xc[k]) + c3);
        }
    }
    group_norm_param_grads(mean, rstd, ds, db, N, C, G, VC, dweight, dbias);
}

/* ------------------------------------------------------------------------------ group_norm, channels-last */

/* ATen runs these kernels on an input whose suggest_memory_format() is ChannelsLast or ChannelsLast3d
 * (native_group_norm and its backward copy x and dy into that format first): x, y, dy, dx as (N, HxW, C),
 * HxW the product of the spatial dims, D = C/G channels a group. On x86 the default build and the AVX2
 * build (8 lanes), which AVX-512 also runs (REGISTER_DISPATCH leaves the AVX-512 slot empty); on aarch64
 * the NEON-typed objects of N1 and V2 (4 lanes) and V1's SVE256 object (8 lanes). What GCC fused in each
 * object is measured per operation (cl_form_t, cl_form); "fused" below means where the form says so, the
 * AVX2 object's choice named. */

/* How one compiled object runs the channels-last kernels (cl_form): its lanes and, operation by
 * operation, whether GCC fused a*b+c (1) or left it rounded twice (0). */
typedef struct {
    int L;       /* Vectorized<float>::size() */
    int tree;    /* vec_reduce_all's shuffle tree (lane_sum) */
    int sq;      /* ColumnwiseMoments' acc + x*x */
    int stats;   /* var = fma(sumsq, s, -(mean*mean)) */
    int sb;      /* bias = fma(-scale, mean, b) with a weight */
    int sb_none; /* ... and without one (-rstd*mean hoisted, so rounded, on x86) */
    int apply;   /* y = fma(x, scale, bias) */
    int acc;     /* CalcMeanVar's x*x + sumsq, DsDbRowwiseMomentsChannelsLast's ds + x*dy */
    int igacc;   /* CalcInternalGradientsChannelsLast's acc + x*dy */
    int pixg;    /* the second backward path's ds_gamma + v*w */
    int dx;      /* DX_ROUNDED, DX_C2X (fma(c2, x, c1*dy) + c3) or DX_C1DY (fma(c1, dy, c2*x) + c3) */
    int c3;      /* input_grad_coeffs' form (C3_*) */
    int pg;      /* group_norm_param_grads' VC */
} cl_form_t;

enum { DX_ROUNDED, DX_C2X, DX_C1DY };

/* The channels-last kernels' form per object: the x86 AVX2 object as measured operation by operation
 * (GCC left ColumnwiseMoments' and CalcInternalGradientsChannelsLast's acc + x*y and the second
 * backward path's ds_gamma + v*w unfused there); the x86 default build fuses nothing. The aarch64
 * objects (emulated N1, V2, V1; 1 and 2 threads) contract every scalar a*b+c (the variance, the
 * biases, ds_gamma + v*w, c3 as C3_C2M) and, where vec_contracted (the NEON-typed objects of N1 and V2,
 * 4 lanes), every Vectorized one too, dx as fma(c1, dy, c2*x) + c3; V1's SVE256 object (8 lanes) leaves
 * its Vectorized a*b+c rounded twice (svmul, svadd). */
static cl_form_t cl_form(const profile_t *p) {
    const int k = obj_kind(p), vc = vec_contracted(p);
    if (k == OBJ_X86_FMA) return (cl_form_t){8, 1, 0, 1, 1, 0, 1, 1, 0, 0, DX_C2X, C3_C2M, 1};
    if (k == OBJ_X86_DEFAULT) return (cl_form_t){8, 0, 0, 0, 0, 0, 0, 0, 0, 0, DX_ROUNDED, C3_ROUNDED, 0};
    return (cl_form_t){p->lanes, 1, vc, 1, 1, 1, vc, vc, vc, 1, vc ? DX_C1DY : DX_ROUNDED, C3_C2M, vc};
}

/* ColumnwiseMoments (float): the sums of x and x*x over one group's D channels (starting at x) of each of
 * HxW pixels C apart: L lane accumulators from 0; pixel by pixel, the channels in vectors of L, lane l
 * taking channels l, l+L, ... (the partial last vector's missing lanes add 0, which changes nothing:
 * from +0 no lane can reach -0); acc + x*x fused where f->sq (rounded twice even in the AVX2 object);
 * then vec_reduce_all(+) of each (lane_sum: the shuffle tree, the x86 default build's fold). */
static void column_moments(const cl_form_t *f, const float *restrict x, int64_t HxW, int64_t C, int64_t D,
                           float *sum, float *sumsq) {
    const int L = f->L;
    float a0[MAXL] = {0}, a1[MAXL] = {0};
    for (int64_t m = 0; m < HxW; m++) {
        const float *restrict xp = x + m * C;
        for (int64_t d = 0; d < D; d++) {
            const float v = xp[d];
            a0[d % L] = a0[d % L] + v;
            a1[d % L] = MADD(f->sq, v, v, a1[d % L]);
        }
    }
    *sum = lane_sum(f->tree, a0, L);
    *sumsq = lane_sum(f->tree, a1, L);
}

/* Both channels-last forward paths' mean and rstd of one (n, g) from its sums of x and x*x (s = 1/(D*HxW)):
 * mean = sum*s; var = sumsq*s - mean*mean, fma(sumsq, s, -(mean*mean)) where f->stats; rstd = group_rstd(var). */
static void cl_group_stats(float sum, float sumsq, float s, double eps, const cl_form_t *f, float *mean,
                           float *rstd) {
    const float mu = sum * s;
    *mean = mu;
    *rstd = group_rstd(f->stats ? fmaf(sumsq, s, -(mu * mu)) : sumsq * s - mu * mu, eps);
}

/* Both forward paths' step "calculate scale and bias" for one group's n channels: scale = rstd*w (rstd
 * without a weight), bias = -scale*mean + b (+0 without a bias). f->sb: with a weight the product and the sum
 * are one fma(-scale, mean, b); without one -rstd*mean is the same for every channel and GCC hoisted it
 * out of the loop, so it is rounded before b is added. */
static void cl_scale_bias(const float *w, const float *b, float mean, float rstd, int64_t n, const cl_form_t *f,
                          float *scale, float *bias) {
    for (int64_t d = 0; d < n; d++) {
        const float sc = w ? rstd * w[d] : rstd, bb = b ? b[d] : 0.0f;
        scale[d] = sc;
        bias[d] = (w ? f->sb : f->sb_none) ? fmaf(-sc, mean, bb) : -sc * mean + bb;
    }
}

/* ApplyScaleBias (vec::map3 over n channels): y = x*scale + bias, fma(x, scale, bias) when F (f->apply), the
 * partial last vector too. */
KERNEL void cl_apply_scale_bias(const float *restrict x, const float *restrict scale, const float *restrict bias,
                                int64_t n, float *restrict y, const int F) {
    FOR_ROW(d, n, y[d] = MADD(F, x[d], scale[d], bias[d]));
}

/* GroupNormKernelImplChannelsLastInternal's first path (HxW < 1024): at::parallel_for(0, N*G, 1), each
 * (n, g) on its own, so the thread count changes nothing (measured at 1 and 2 threads): column_moments,
 * cl_group_stats, the group's D scales and biases (buffer: 2*D floats here), then pixel by pixel
 * cl_apply_scale_bias over the group's D channels. Unlike the NCHW kernel there is no form without
 * weight and bias: y = x*rstd + (-rstd*mean + 0). */
static void group_norm_cl_forward_by_group(const cl_form_t *f, const float *x, const float *w, const float *b,
                                           int64_t N, int64_t C, int64_t HxW, int64_t G, double eps, float *y,
                                           float *mean, float *rstd, float *buffer) {
    const int64_t D = C / G;
    const float s = 1.0f / (float)(D * HxW);
    float *scale = buffer, *bias = buffer + D;
    for (int64_t i = 0; i < N * G; i++) {
        const int64_t n = i / G, g = i % G, off = n * HxW * C + g * D;
        float sum, sumsq;
        column_moments(f, x + off, HxW, C, D, &sum, &sumsq);
        cl_group_stats(sum, sumsq, s, eps, f, &mean[i], &rstd[i]);
        cl_scale_bias(w ? w + g * D : NULL, b ? b + g * D : NULL, mean[i], rstd[i], D, f, scale, bias);
        for (int64_t m = 0; m < HxW; m++)
            cl_apply_scale_bias(x + off + m * C, scale, bias, D, y + off + m * C, f->apply);
    }
}

/* CalcMeanVar (vec::map2 over a pixel's C channels): sum += x, sumsq = x*x + sumsq, fma(x, x, sumsq) when F
 * (f->acc). */
KERNEL void cl_accumulate_moments(const float *restrict x, float *restrict sum, float *restrict sumsq, int64_t C,
                                  const int F) {
    FOR_ROW(c, C, {
        sum[c] = x[c] + sum[c];
        sumsq[c] = MADD(F, x[c], x[c], sumsq[c]);
    });
}

/* DsDbRowwiseMomentsChannelsLast (over a pixel's C channels): ds = ds + x*dy, fma(x, dy, ds) when F;
 * db = db + dy. */
KERNEL void cl_accumulate_grads(const float *restrict x, const float *restrict dy, float *restrict ds,
                                float *restrict db, int64_t C, const int F) {
    FOR_ROW(c, C, {
        ds[c] = MADD(F, x[c], dy[c], ds[c]);
        db[c] = db[c] + dy[c];
    });
}

/* Step 1 of both second paths (at::parallel_for(0, N*HxW, 1)): thread tid's pixels (parallel_chunk) in
 * order, each pixel of image n accumulated into the tid-th slice's row n of buffer (T*N*2*C floats,
 * zeroed first): with dy, cl_accumulate_grads (ds in [0, C), db in [C, 2C)); without,
 * cl_accumulate_moments (sums, sums of squares). Threads that get no pixels leave their slice zero. */
KERNEL void cl_thread_rows(int64_t T, const float *x, const float *dy, int64_t N, int64_t C, int64_t HxW,
                           float *buffer, const int F) {
    memset(buffer, 0, sizeof(float) * (size_t)(T * N * 2 * C));
    for (int64_t tid = 0; tid < T; tid++) {
        int64_t b0, b1;
        if (!parallel_chunk(0, N * HxW, 1, T, tid, &b0, &b1)) continue;
        for (int64_t i = b0; i < b1; i++) {
            float *row = buffer + (tid * N + i / HxW) * 2 * C;
            if (dy) cl_accumulate_grads(x + i * C, dy + i * C, row, row + C, C, F);
            else cl_accumulate_moments(x + i * C, row, row + C, C, F);
        }
    }
}

/* GroupNormKernelImplChannelsLastInternal's second path (HxW >= 1024). buffer: T*N*2*C floats, T the
 * thread count (at::get_num_threads()), zeroed. Step 1, at::parallel_for(0, N*HxW, 1): thread tid's
 * pixels (parallel_chunk) in order, each pixel of image n cl_accumulate_moments into the tid-th slice's
 * row n (sums in [0, C), sums of squares in [C, 2C)); threads that get no pixels leave their slice zero.
 * Step 2, per (n, g): from 0, for each channel of the group in order, the T slices' values in thread
 * order (a scalar loop, all T added, the zero slices too), then cl_group_stats. Step 3: the scales and
 * biases of image n into slice 0's row n; step 4: cl_apply_scale_bias over each pixel's C channels. */
static void group_norm_cl_forward_by_pixel(int64_t T, const float *x, const float *w, const float *b, int64_t N,
                                           int64_t C, int64_t HxW, int64_t G, double eps, float *y, float *mean,
                                           float *rstd, float *buffer, const cl_form_t *f) {
    const int64_t D = C / G;
    const float s = 1.0f / (float)(D * HxW);
    cl_thread_rows(T, x, NULL, N, C, HxW, buffer, f->acc);
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            float sum = 0.0f, sumsq = 0.0f;
            for (int64_t c = g * D; c < (g + 1) * D; c++)
                for (int64_t t = 0; t < T; t++) {
                    const float *row = buffer + (t * N + n) * 2 * C;
                    sum += row[c];
                    sumsq += row[C + c];
                }
            cl_group_stats(sum, sumsq, s, eps, f, &mean[n * G + g], &rstd[n * G + g]);
        }
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            float *row = buffer + n * 2 * C;
            cl_scale_bias(w ? w + g * D : NULL, b ? b + g * D : NULL, mean[n * G + g], rstd[n * G + g], D, f,
                          row + g * D, row + C + g * D);
        }
    for (int64_t i = 0; i < N * HxW; i++) {
        const float *row = buffer + (i / HxW) * 2 * C;
        cl_apply_scale_bias(x + i * C, row, row + C, C, y + i * C, f->apply);
    }
}

/* GroupNormKernelImplChannelsLastInternal (group_norm_kernel.cpp, float32): x/y (N, HxW, C), weight/bias (C)
 * or NULL, mean/rstd (N, G); the path by HxW against its feature_map_threshold of 1024. buffer:
 * max(threads, 1)*N*2*C floats. Measured on an AMD EPYC (Zen 3) at the default and AVX2 levels, and under
 * QEMU on emulated Neoverse N1, V2, V1 (1 and 2 threads). */
void group_norm_cl_forward(profile_t p, const float *x, const float *weight, const float *bias, int64_t N, int64_t C,
                           int64_t HxW, int64_t G, double eps, float *y, float *mean, float *rstd, float *buffer) {
    const cl_form_t f = cl_form(&p);
    const int64_t T = p.threads < 1 ? 1 : p.threads;
    if (HxW < 1024) group_norm_cl_forward_by_group(&f, x, weight, bias, N, C, HxW, G, eps, y, mean, rstd, buffer);
    else group_norm_cl_forward_by_pixel(T, x, weight, bias, N, C, HxW, G, eps, y, mean, rstd, buffer, &f);
}

/* ApplyInputGradientsChannelsLastColMov / RowMov over one pixel's n channels of a group (w the group's
 * weights or NULL): c1 = rstd*w (Vectorized(rstd) * w; rstd without a weight), dx = c1*dy + c2*x + c3,
 * fma(c2, x, c1*dy) + c3 in the AVX2 object (DX_C2X), fma(c1, dy, c2*x) + c3 in the aarch64 NEON-typed ones
 * (DX_C1DY), the partial last vector too. Element-wise: ColMov's order (vectors of L
 * channels, each over every pixel) and RowMov's (pixel by pixel) give the same values. */
KERNEL void cl_input_grad_row(const float *restrict dy, const float *restrict x, const float *restrict w, float rstd,
                              float c2, float c3, int64_t n, float *restrict dx, const int form) {
    FOR_ROW(d, n, {
        const float c1 = w ? rstd * w[d] : rstd;
        dx[d] = form == DX_C2X    ? fmaf(c2, x[d], c1 * dy[d]) + c3
                : form == DX_C1DY ? fmaf(c1, dy[d], c2 * x[d]) + c3
                                  : (c1 * dy[d] + c2 * x[d]) + c3;
    });
}

/* CalcInternalGradientsChannelsLast (float) for one (n, g) (x, dy at the group's first channel, w the
 * group's weights or NULL): per vector of L of the group's channels (the last partial), L lane
 * accumulators from 0 over the HxW pixels in order, acc + x*dy (fused where f->igacc; rounded twice even in
 * the AVX2 object)
 * and acc + dy, stored as the channels' ds and db; then ds_gamma += vec_reduce_all(+, acc*w) (each
 * product rounded, the missing lanes 0*0; w = 1 without a weight) and db_gamma likewise, from 0 in vector
 * order. */
static void cl_internal_grads(const cl_form_t *f, const float *restrict x, const float *restrict dy,
                              const float *restrict w, int64_t HxW, int64_t C, int64_t D, float *restrict ds,
                              float *restrict db, float *ds_gamma, float *db_gamma) {
    const int L = f->L;
    float dsg = 0.0f, dbg = 0.0f;
    for (int64_t d = 0; d < D; d += L) {
        const int64_t k = D - d < L ? D - d : L;
        float a0[MAXL] = {0}, a1[MAXL] = {0}, p0[MAXL], p1[MAXL];
        for (int64_t m = 0; m < HxW; m++)
            for (int64_t l = 0; l < k; l++) {
                const float xv = x[m * C + d + l], gv = dy[m * C + d + l];
                a0[l] = MADD(f->igacc, xv, gv, a0[l]);
                a1[l] = a1[l] + gv;
            }
        for (int l = 0; l < L; l++) {
            const float wv = l >= k ? 0.0f : w ? w[d + l] : 1.0f;
            if (l < k) {
                ds[d + l] = a0[l];
                db[d + l] = a1[l];
            }
            p0[l] = a0[l] * wv;
            p1[l] = a1[l] * wv;
        }
        dsg = dsg + lane_sum(f->tree, p0, L);
        dbg = dbg + lane_sum(f->tree, p1, L);
    }
    *ds_gamma = dsg;
    *db_gamma = dbg;
}

/* GroupNormBackwardKernelImplChannelsLastInternal's first path (HxW < 2048): at::parallel_for(0, N*G, 1),
 * each (n, g) on its own (the thread count changes nothing; measured at 1 and 2 threads):
 * cl_internal_grads into ds/db (N, C), input_grad_coeffs (f->c3: C3_C2M but in the x86 default build), then
 * ApplyInputGradientsChannelsLastColMov: cl_input_grad_row over the group's channels of every pixel. */
static void group_norm_cl_backward_by_group(const cl_form_t *f, const float *dy, const float *x, const float *mean,
                                            const float *rstd, const float *w, int64_t N, int64_t C, int64_t HxW,
                                            int64_t G, float *dx, float *ds, float *db) {
    const int64_t D = C / G;
    const float s = 1.0f / (float)(D * HxW);
    for (int64_t i = 0; i < N * G; i++) {
        const int64_t n = i / G, g = i % G, off = n * HxW * C + g * D;
        const float *wg = w ? w + g * D : NULL;
        float dsg, dbg, c2, c3;
        cl_internal_grads(f, x + off, dy + off, wg, HxW, C, D, ds + i * D, db + i * D, &dsg, &dbg);
        input_grad_coeffs(dsg, dbg, mean[i], rstd[i], s, f->c3, &c2, &c3);
        for (int64_t m = 0; m < HxW; m++)
            cl_input_grad_row(dy + off + m * C, x + off + m * C, wg, rstd[i], c2, c3, D, dx + off + m * C, f->dx);
    }
}


/* GroupNormBackwardKernelImplChannelsLastInternal's second path (HxW >= 2048). buffer: T*N*2*C floats
 * (zeroed), then 2*N*G. Step 1, at::parallel_for(0, N*HxW, 1): thread tid's pixels in order, each pixel of
 * image n cl_accumulate_grads into the tid-th slice's row n (ds in [0, C), db in [C, 2C)). Step 2, per
 * (n, g), a scalar loop: ds_gamma, db_gamma from 0 and, per channel of the group in order, ds, db from 0;
 * for each of the T slices in thread order ds_gamma + v*w (f->pixg: rounded twice even in the AVX2 object,
 * fused on aarch64; w = 1
 * without a weight), db_gamma likewise, ds + v, db + v; ds/db (N, C) get the channel's sums. Step 3, per
 * pixel, per group: input_grad_coeffs (f->c3) and ApplyInputGradientsChannelsLastRowMov
 * (cl_input_grad_row). */
static void group_norm_cl_backward_by_pixel(int64_t T, const float *dy, const float *x, const float *mean,
                                            const float *rstd, const float *w, int64_t N, int64_t C, int64_t HxW,
                                            int64_t G, float *dx, float *ds, float *db, float *buffer,
                                            const cl_form_t *f) {
    const int64_t D = C / G;
    const float s = 1.0f / (float)(D * HxW);
    float *gsum = buffer + T * N * 2 * C;
    cl_thread_rows(T, x, dy, N, C, HxW, buffer, f->acc);
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            float dsg = 0.0f, dbg = 0.0f;
            for (int64_t c = g * D; c < (g + 1) * D; c++) {
                const float wv = w ? w[c] : 1.0f;
                float dsv = 0.0f, dbv = 0.0f;
                for (int64_t t = 0; t < T; t++) {
                    const float *row = buffer + (t * N + n) * 2 * C;
                    dsg = MADD(f->pixg, row[c], wv, dsg);
                    dbg = MADD(f->pixg, row[C + c], wv, dbg);
                    dsv = dsv + row[c];
                    dbv = dbv + row[C + c];
                }
                ds[n * C + c] = dsv;
                db[n * C + c] = dbv;
            }
            gsum[2 * (n * G + g)] = dsg;
            gsum[2 * (n * G + g) + 1] = dbg;
        }
    for (int64_t i = 0; i < N * HxW; i++) {
        const int64_t n = i / HxW;
        for (int64_t g = 0; g < G; g++) {
            const int64_t ng = n * G + g;
            float c2, c3;
            input_grad_coeffs(gsum[2 * ng], gsum[2 * ng + 1], mean[ng], rstd[ng], s, f->c3, &c2, &c3);
            cl_input_grad_row(dy + i * C + g * D, x + i * C + g * D, w ? w + g * D : NULL, rstd[ng], c2, c3, D,
                              dx + i * C + g * D, f->dx);
        }
    }
}

/* GroupNormBackwardKernelImplChannelsLastInternal (group_norm_kernel.cpp, float32): dy/x/dx (N, HxW, C),
 * mean/rstd (N, G), weight (C) or NULL, dweight/dbias (C); ds/db: N*C floats, the per-channel sums the
 * path leaves for group_norm_param_grads (GammaBackward and BetaBackward, the NCHW kernel's: contracted
 * where f->pg). The path by HxW against its feature_map_threshold of 2048. buffer: max(threads, 1)*N*2*C +
 * 2*N*G floats. Measured on an AMD EPYC (Zen 3) at the default and AVX2 levels, and under QEMU on emulated
 * Neoverse N1, V2, V1 (1 and 2 threads). */
void group_norm_cl_backward(profile_t p, const float *dy, const float *x, const float *mean, const float *rstd,
                            const float *weight, int64_t N, int64_t C, int64_t HxW, int64_t G, float *dx,
                            float *dweight, float *dbias, float *ds, float *db, float *buffer) {
    const cl_form_t f = cl_form(&p);
    const int64_t T = p.threads < 1 ? 1 : p.threads;
    if (HxW < 2048) group_norm_cl_backward_by_group(&f, dy, x, mean, rstd, weight, N, C, HxW, G, dx, ds, db);
    else group_norm_cl_backward_by_pixel(T, dy, x, mean, rstd, weight, N, C, HxW, G, dx, ds, db, buffer, &f);
    group_norm_param_grads(mean, rstd, ds, db, N, C, G, f.pg, dweight, dbias);
}
