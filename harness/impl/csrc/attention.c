/* Scaled dot-product attention of torch 2.13.0+cpu, float32, bit for bit.
 *
 * sdpa (dropout 0): ATen's CPU flash attention, aten/src/ATen/native/cpu/FlashAttentionKernel.cpp
 * (cpu_flash_attention / cpu_flash_attention_backward, registered with ALSO_REGISTER_AVX512_DISPATCH:
 * its Vectorized<float> has profile.lanes_wide lanes). Every cpublas::gemm it makes is MKL sgemm,
 * reproduced by csrc/mkl_sgemm.h, or on Linux aarch64 NVPL's, csrc/nvpl_sgemm.h (blas_sgemm
 * below). sdpa with dropout takes the math path
 * (harness/impl/attention.py), whose matrix products are at::bmm's (harness/impl/linalg.py, csrc/gemm.c).
 *
 * Tensors are (B, H, L, D) contiguous (q, out, grad_out, grads) or (B, H, S, D) (k, v); lse (B, H, L).
 */
#include "nvpl_sgemm.h"
#include "vmath.h"

#define MAXL 16

/* SVE's exp_u20 fast path, one lane: vmath.h's aten_sve_expf_u20 (the unary ops' model of it). */
#define SVE_EXP_U20(x) aten_sve_expf_u20(x)

/* ----------------------------------------------------------------------------- MKL sgemm
 *
 * cpublas::gemm's BLAS call, column-major: C[i + j*ldc] = alpha * sum_l opA(i,l) * opB(l,j) + beta*C
 * (opA m x k, opB k x n), run by MKL's sgemm model (csrc/mkl_sgemm.h) as the row-major product
 * C^T (n x m) = opB^T @ opA^T. The operands sit 16-byte aligned in torch's buffers (head sizes
 * are multiples of 4); C's offset in torch's buffer is passed in (c_off, floats mod 4).
 * threads: the threads MKL may use (1 when called inside the kernel's OpenMP region).
 * On Linux aarch64 (profile blas = BLAS_NVPL) the same call is NVPL's sgemm (csrc/nvpl_sgemm.h). */
static void blas_sgemm(const profile_t *p, char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                       const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int threads, int64_t c_off) {
    const int a_t = tb == 'T', b_t = ta == 'T'; /* row-major left = opB^T, right = opA^T */
    const sgemm_t g = {
        .M = n, .N = m, .K = k, .alpha = alpha, .beta = beta,
        .A = B, .sa0 = a_t ? 1 : ldb, .sa1 = a_t ? ldb : 1,
        .B = A, .sb0 = b_t ? 1 : lda, .sb1 = b_t ? lda : 1,
        .C = C, .ldc = ldc, .ta = a_t, .tb = b_t, .threads = threads, .batched = 0,
        .a_off = 0, .b_off = 0, .c_off = c_off,
    };
    if (p->blas == BLAS_NVPL)
        nvpl_sgemm(&g);
    else
        mkl_sgemm(&g);
}

/* ----------------------------------------------------------------------------- Vectorized lanes */

/* lanes added as the shuffle tree: lane i with i + L/2, then i + L/4, ... */
static float lanes_pairwise(float *acc, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int q = 0; q < h; q++) acc[q] = acc[q] + acc[q + h];
    return acc[0];
}

/* vec_reduce_all(+) of an L-lane accumulator: AVX2/AVX-512 shuffle tree (lane i with i ^ L/2, ...,
 * i ^ 1), the default build folding lanes 1..L-1 into lane 0 in order. */
static float lane_tree(const profile_t *p, const float *acc, int L) {
    float v[MAXL];
    memcpy(v, acc, sizeof(float) * (size_t)L);
    if (!p->aten) {
        float s = v[0];
        for (int q = 1; q < L; q++) s = s + v[q];
        return s;
    }
    return lanes_pairwise(v, L);
}

/* NEON's Vectorized<float>::exp_u20 (vec128_float_neon.h, vexpq_f32_u20: Arm Optimized Routines'
 * advsimd expf), one lane, for vectors with no lane beyond |x| > 0x1.5d5e2ap+6 (exp_sum_row sends
 * those vectors to SLEEF's exp, as the kernel does). In its order:
 *   n = vrndaq(x * inv_ln2) (round half away from zero); r = fms(x, n, ln2_hi); r = fms(r, n, ln2_lo);
 *   scale = bits((int)n << 23 + 0x3f800000); r2 = r * r;
 *   p = fma(c1, r, c0); q = fma(c3, r, c2); q = fma(q, p, r2); p = c4 * r; poly = fma(p, q, r2);
 *   result = fma(scale, poly, scale). */
static float neon_expf_u20(float x) {
    const float n = roundf(x * 0x1.715476p+0f);
    float r = fmaf(-n, 0x1.62e4p-1f, x);
    r = fmaf(-n, 0x1.7f7d1cp-20f, r);
    const float scale = vm_u2f(((uint32_t)(int32_t)n << 23) + 0x3f800000u);
    const float r2 = r * r;
    const float p = fmaf(r, 0x1.0e4020p-7f, 0x1.573e2ep-5f);
    float q = fmaf(r, 0x1.555e66p-3f, 0x1.fffdb6p-2f);
    q = fmaf(p, r2, q);
    const float poly = fmaf(q, r2, 0x1.ffffecp-1f * r);
    return fmaf(poly, scale, scale);
}

/* Vectorized<float>::exp_u20 (vec256_float.h / vec512_float.h): a degree-5 polynomial after the
 * reduction x = n*ln2 + r, all FMAs; the default capability maps std::exp (glibc expf). aarch64:
 * NEON's is neon_expf_u20 above, SVE's exp_sum_row's vector form below. */
static float exp_u20(const profile_t *p, float x) {
    if (!p->aten) return glibc_expf(x);
    const float ln_min = vm_u2f(0xc2aeac50u), ln_max = vm_u2f(0x42b17218u);
    const float log2e = vm_u2f(0x3fb8aa3bu), ln2 = vm_u2f(0x3f317218u);
    const int below = x < ln_min;
    float s = x < ln_max ? x : ln_max; /* _mm256_min_ps(x, max) */
    s = s > ln_min ? s : ln_min;       /* _mm256_max_ps(s, min) */
    const float fx = floorf(fmaf(s, log2e, 0.5f));
    const float r = fmaf(-fx, ln2, s);
    float y = fmaf(r, 0.00828929059f, 0.0418978221f);
    y = fmaf(r, y, 0.166676521f);
    y = fmaf(r, y, 0.499991506f);
    y = fmaf(r, y, 0.999999701f);
    y = fmaf(r, y, 1.0f);
    const int32_t e = (int32_t)rintf(fx - 1.0f);
    const float pow2 = below ? 0.0f : vm_u2f((uint32_t)(e + 127) << 23);
    return (y * pow2) * 2.0f;
}

/* vec::map2_reduce_all(x*y, +) over n: first vector initialises the lanes, further full vectors
 * add x*y (product rounded, then added: GCC did not contract these in FlashAttentionKernel.cpp's
 * AVX2 object, nor in the aarch64 SVE256 one (V1), measured; the SVE128 one (V2) fuses them,
 * acc = fma(x, y, acc), measured, and so does the NEON one (N1): GCC's vmulq_f32/vaddq_f32 are plain
 * vector arithmetic that it contracts into fmla, measured (N1's sdpa backward is bit-exact only
 * so)), the partial last vector into its lanes (unmeasured: D % lanes != 0); n < L: lane 0
 * folds the products in order. */
static float dot_reduce(const profile_t *p, const float *x, const float *y, int64_t n) {
    const int L = p->lanes_wide;
    if (n < L) {
        float s = x[0] * y[0];
        for (int64_t d = 1; d < n; d++) s = s + x[d] * y[d];
        return s;
    }
    float acc[MAXL];
    for (int q = 0; q < L; q++) acc[q] = x[q] * y[q];
    int64_t d = L;
    const int fused = (p->aten == ATEN_SVE && L == 4) || p->aten == ATEN_NEON; /* SVE128, NEON contracted (above) */
    for (; d + L <= n; d += L)
        for (int q = 0; q < L; q++) acc[q] = fused ? fmaf(x[d + q], y[d + q], acc[q]) : acc[q] + x[d + q] * y[d + q];
    for (int q = 0; d + q < n; q++) acc[q] = acc[q] + x[d + q] * y[d + q];
    return lane_tree(p, acc, L);
}

/* ----------------------------------------------------------------------------- flash attention */

static int64_t q_split_size(int64_t L) { return L >= 768 ? 256 : (L >= 192 ? 64 : 32); }
#define KV_SPLIT 512

/* _mul_reduce_max_fusion_kernel over a qk row: x *= scale, returns the max (order-free). */
static float scale_max_row(float *x, int64_t kv, float scale) {
    float mx = -INFINITY;
    for (int64_t c = 0; c < kv; c++) {
        x[c] = x[c] * scale;
        mx = x[c] > mx ? x[c] : mx;
    }
    return mx;
}

/* _exp_reduce_sum_fusion_kernel: x = exp_u20(x - max) over the full vectors (vector by vector:
 * SVE's exp_u20 decides per vector), summed in L lanes,
 * lane tree, then the scalar tail added in order. The tail's unqualified exp(float) there is C's
 * double exp (measured): x = (float)exp((double)(x - max)), glibc's in torch, dmath.h's dm_exp
 * here (correctly rounded; equal to glibc's as float32 on every float of [-104, 0], see
 * tests/test_dmath.py). Returns the sum. */
static float exp_sum_row(const profile_t *p, float *x, int64_t kv, float mx) {
    const int L = p->lanes_wide;
    const int64_t nv = kv - kv % L;
    float dx[KV_SPLIT]; /* x - max of the full vectors (kv <= KV_SPLIT) */
    for (int64_t c = 0; c < nv; c++) dx[c] = x[c] - mx;
    /* the fast form on every full vector first (one loop each, no per-lane branch), then the
     * vectors SVE's and NEON's exp_u20 send to SLEEF redone from dx */
    if (p->aten == ATEN_SVE)
        for (int64_t c = 0; c < nv; c++) x[c] = SVE_EXP_U20(dx[c]);
    else if (p->aten == ATEN_NEON)
        for (int64_t c = 0; c < nv; c++) x[c] = neon_expf_u20(dx[c]);
    else
        for (int64_t c = 0; c < nv; c++) x[c] = exp_u20(p, dx[c]);
    if (p->aten == ATEN_SVE || p->aten == ATEN_NEON)
        for (int64_t c0 = 0; c0 < nv; c0 += L) {
            /* SVE's and NEON's exp_u20 (sve/vec_float.h, vec128_float_neon.h): a fast form unless
             * a lane's |x| exceeds 0x1.5d5e2ap+6 (masked -inf lanes do), which sends the whole
             * vector to SLEEF's exp. SVE: ATen's FEXPA form; NEON: compared with vcagtq, where a
             * NaN lane compares false and stays on the fast form. */
            const float *dv = dx + c0;
            int slow = 0;
            if (p->aten == ATEN_SVE)
                for (int q = 0; q < L; q++) slow |= !(fabsf(dv[q]) <= 0x1.5d5e2ap+6f);
            else
                for (int q = 0; q < L; q++) slow |= fabsf(dv[q]) > 0x1.5d5e2ap+6f;
            if (slow)
                for (int q = 0; q < L; q++) x[c0 + q] = vec_expf(p, dv[q]);
        }
    float acc[MAXL] = {0};
    for (int64_t c0 = 0; c0 < nv; c0 += L)
        for (int q = 0; q < L; q++) acc[q] = acc[q] + x[c0 + q];
    float s = lane_tree(p, acc, L);
    for (int64_t c = nv; c < kv; c++) {
        x[c] = (float)dm_exp((double)(x[c] - mx));
        s = s + x[c];
    }
    return s;
}

/* cpu_flash_attention<float, float, qSplit, 512> with is_causal, no mask, dropout 0.
 * q (B,H,L,D), k/v (B,H,S,D) -> out (B,H,L,D), lse (B,H,L). Per (b, h, q block) — the
 * at::parallel_for items, independent of each other, so the thread count changes no bits:
 *   for each kv block n < num_keys = min(m + qB, S) (kvBlock = min(512, S - n), not num_keys):
 *     qk = k_blk @ q_blk^T (sgemm T,N: m=kvBlock n=qB k=D); causal: qk[r][c] = -inf for c > m+r-n;
 *     row: qk *= scale, max; new max = max(old, row max); qk = exp_u20(qk - max), sum;
 *     exp_tmp = std::exp(old max - new max); sum = tmp_sum + exp_tmp * old sum (contracted);
 *     dst *= exp_tmp when n > 0;
 *     dst (+)= qk @ v_blk (sgemm N,N: m=D n=qB k=kvBlock, beta = n > 0);
 *   out = dst * (1/sum); lse = max + std::log(sum). */
void sdpa_flash_forward(profile_t p, int64_t B, int64_t H, int64_t L, int64_t S, int64_t D, const float *q,
                        const float *k, const float *v, float *out, float *lse) {
    const float scale = (float)(1.0 / sqrt((double)D));
    const int64_t qs = q_split_size(L) < L ? q_split_size(L) : L, kvs = KV_SPLIT < S ? KV_SPLIT : S;
    /* MKL's threads: 1 inside parallel_for's OpenMP region, all when it ran its one item inline */
    const int thr = B * H * divup(L, qs) == 1 ? p.threads : 1;
    const int64_t dst_off = (qs * kvs + 2 * qs) % 4;                /* torch's per-thread buffer, thread 0 */
    float *qk = malloc(sizeof(float) * (size_t)(qs * kvs + 2 * qs + qs * D));
    float *qmax = qk + qs * kvs, *qsum = qmax + qs, *dst = qsum + qs;
    for (int64_t bh = 0; bh < B * H; bh++) {
        const float *qh = q + bh * L * D, *kh = k + bh * S * D, *vh = v + bh * S * D;
        for (int64_t m = 0; m < L; m += qs) {
            const int64_t qb = qs < L - m ? qs : L - m;
            const int64_t num_keys = m + qb < S ? m + qb : S;
            for (int64_t r = 0; r < qb; r++) qmax[r] = -INFINITY, qsum[r] = 0.0f;
            for (int64_t n = 0; n < num_keys; n += kvs) {
                const int64_t kb = kvs < S - n ? kvs : S - n;
                blas_sgemm(&p, 'T', 'N', kb, qb, D, 1.0f, kh + n * D, D, qh + m * D, D, 0.0f, qk, kb, thr, 0);
                if (num_keys - n <= kvs)
                    for (int64_t r = 0; r < qb; r++)
                        for (int64_t c = m + r - n + 1; c < kb; c++)
                            if (c >= 0) qk[r * kb + c] = -INFINITY;
                for (int64_t r = 0; r < qb; r++) {
                    float *row = qk + r * kb;
                    float mx = scale_max_row(row, kb, scale);
                    mx = qmax[r] > mx ? qmax[r] : mx;
                    if (mx == -INFINITY) {
                        for (int64_t c = 0; c < kb; c++) row[c] = 0.0f;
                        continue;
                    }
                    const float tsum = exp_sum_row(&p, row, kb, mx);
                    const float et = glibc_expf(qmax[r] - mx);
                    qsum[r] = sfmadd(&p, et, qsum[r], tsum);
                    qmax[r] = mx;
                    if (n > 0)
                        for (int64_t d = 0; d < D; d++) dst[r * D + d] = dst[r * D + d] * et;
                }
                const float beta = n > 0 ? 1.0f : 0.0f;
                blas_sgemm(&p, 'N', 'N', D, qb, kb, 1.0f, vh + n * D, D, qk, kb, beta, dst, D, thr, dst_off);
            }
            for (int64_t r = 0; r < qb; r++) {
                if (qmax[r] == -INFINITY) qmax[r] = 0.0f;
                if (qsum[r] == 0.0f) qsum[r] = 1.0f;
                const float rec = 1.0f / qsum[r];
                for (int64_t d = 0; d < D; d++) out[(bh * L + m + r) * D + d] = dst[r * D + d] * rec;
                lse[bh * L + m + r] = qmax[r] + glibc_logf(qsum[r]);
            }
        }
    }
    free(qk);
}

/* cpu_flash_attention_backward<float, float, qSplit, 512> with is_causal, no mask.
 * grad_q/grad_k/grad_v (zeroed here) accumulate. Per (b, h) — the at::parallel_for items — for
 * each q block m: dsum[r] = map2_reduce_all(grad_out*out) over D; for each kv block n < num_keys:
 *   attn = scale * k_blk @ q_blk^T (sgemm T,N alpha=scale); attn = Vectorized exp(attn - lse[r]);
 *   causal: attn[r][c] = 0 for c > m+r-n;
 *   grad_v_blk += attn^T @ grad_out_blk (sgemm N,T: m=D n=kvBlock k=qB, beta 1);
 *   grad_attn = v_blk @ grad_out_blk^T (sgemm T,N: m=kvBlock n=qB k=D);
 *   grad_attn = attn * (grad_attn - dsum[r]);
 *   grad_q_blk += scale * grad_attn @ k_blk (sgemm N,N: m=D n=qB k=kvBlock, beta 1);
 *   grad_k_blk += scale * grad_attn^T @ q_blk (sgemm N,T: m=D n=kvBlock k=qB, beta 1). */
void sdpa_flash_backward(profile_t p, int64_t B, int64_t H, int64_t L, int64_t S, int64_t D, const float *q,
                         const float *k, const float *v, const float *out, const float *lse, const float *gout,
                         float *gq, float *gk, float *gv) {
    const float scale = (float)(1.0 / sqrt((double)D));
    const int64_t qs = q_split_size(L) < L ? q_split_size(L) : L, kvs = KV_SPLIT < S ? KV_SPLIT : S;
    const int thr = B * H == 1 ? p.threads : 1; /* MKL's threads, as in the forward */
    float *attn = malloc(sizeof(float) * (size_t)(2 * qs * kvs + qs));
    float *gattn = attn + qs * kvs, *dsum = gattn + qs * kvs;
    memset(gq, 0, sizeof(float) * (size_t)(B * H * L * D));
    memset(gk, 0, sizeof(float) * (size_t)(B * H * S * D));
    memset(gv, 0, sizeof(float) * (size_t)(B * H * S * D));
    for (int64_t bh = 0; bh < B * H; bh++) {
        const float *qh = q + bh * L * D, *kh = k + bh * S * D, *vh = v + bh * S * D;
        const float *oh = out + bh * L * D, *gh = gout + bh * L * D, *lh = lse + bh * L;
        float *gqh = gq + bh * L * D, *gkh = gk + bh * S * D, *gvh = gv + bh * S * D;
        for (int64_t m = 0; m < L; m += qs) {
            const int64_t qb = qs < L - m ? qs : L - m;
            for (int64_t r = 0; r < qb; r++) dsum[r] = dot_reduce(&p, gh + (m + r) * D, oh + (m + r) * D, D);
            const int64_t num_keys = m + qb < S ? m + qb : S;
            for (int64_t n = 0; n < num_keys; n += kvs) {
                const int64_t kb = kvs < S - n ? kvs : S - n;
                blas_sgemm(&p, 'T', 'N', kb, qb, D, scale, kh + n * D, D, qh + m * D, D, 0.0f, attn, kb, thr, 0);
                for (int64_t r = 0; r < qb; r++)
                    for (int64_t c = 0; c < kb; c++) attn[r * kb + c] = vec_expf(&p, attn[r * kb + c] - lh[m + r]);
                if (num_keys - n <= kvs)
                    for (int64_t r = 0; r < qb; r++)
                        for (int64_t c = m + r - n + 1; c < kb; c++)
                            if (c >= 0) attn[r * kb + c] = 0.0f;
                blas_sgemm(&p, 'N', 'T', D, kb, qb, 1.0f, gh + m * D, D, attn, kb, 1.0f, gvh + n * D, D, thr, 0);
                blas_sgemm(&p, 'T', 'N', kb, qb, D, 1.0f, vh + n * D, D, gh + m * D, D, 0.0f, gattn, kb, thr, 0);
                for (int64_t r = 0; r < qb; r++)
                    for (int64_t c = 0; c < kb; c++)
                        gattn[r * kb + c] = attn[r * kb + c] * (gattn[r * kb + c] - dsum[r]);
                blas_sgemm(&p, 'N', 'N', D, qb, kb, scale, kh + n * D, D, gattn, kb, 1.0f, gqh + m * D, D, thr, 0);
                blas_sgemm(&p, 'N', 'T', D, kb, qb, scale, qh + m * D, D, gattn, kb, 1.0f, gkh + n * D, D, thr, 0);
            }
        }
    }
    free(attn);
}
