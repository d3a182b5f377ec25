/* Scaled dot-product attention of torch 2.13.0+cpu, float32, bit for bit.
 *
 * sdpa (dropout 0): ATen's CPU flash attention, aten/src/ATen/native/cpu/FlashAttentionKernel.cpp
 * (cpu_flash_attention / cpu_flash_attention_backward, registered with ALSO_REGISTER_AVX512_DISPATCH:
 * its Vectorized<float> has profile.lanes_wide lanes). Every cpublas::gemm it makes is MKL sgemm,
 * reproduced by mkl_sgemm below. sdpa with dropout takes the math path (harness/impl/attention.py);
 * its matrix products come here through att_sgemm.
 *
 * Tensors are (B, H, L, D) contiguous (q, out, grad_out, grads) or (B, H, S, D) (k, v); lse (B, H, L).
 */
#include <stdlib.h>

#include "common.h"
#include "vmath.h"

#define MAXL 16

/* ----------------------------------------------------------------------------- MKL sgemm model
 *
 * MKL 2024.2 sgemm as the fixtures' processes ran it (AMD Zen3, "Intel(R) Architecture processors"
 * code path; MKL_ENABLE_INSTRUCTIONS=AVX2, SSE4_2 or unset change nothing), measured per element
 * (FPRev-style pair cancellation for the summation tree, random data to tell fused from separate
 * multiply-adds). Column-major, as BLAS:
 *   C[i + j*ldc] = alpha * sum_l opA(i,l) * opB(l,j) + beta * C,  opA m x k, opB k x n.
 * Paths (16-byte-aligned operands, as torch's tensors give them here):
 *   main:  each element one fused chain per k block (k <= 192: one block; <= 384: k/2; else 192)
 *          over (alpha*a_il) * b_lj (alpha applied to A, rounded, as MKL packs it), then
 *          c = (beta ? beta*C : first block) + t block by block (csrc/gemm.c's model).
 *   n < 4 (sequential MKL: one thread, or called inside an OpenMP region), or the last n % 4
 *   columns of any n < 12 (threaded MKL: threads > 1 outside a region, and the problem big enough
 *   for MKL to split it: k > 4 when m > 16, k > 16 otherwise): those columns leave the main kernel:
 *          transA 'N': axpy form, c = beta*C (0 when beta = 0), then c = c + (alpha*b_lj) * a_il
 *                      for l in order, separately rounded;
 *          transA 'T': dot form, separately rounded products summed in 4 lanes (l % 4) for the
 *                      rows below 4*floor(m/4), 8 lanes for the other rows; lanes added pairwise
 *                      ((0+2)+(1+3); ((0+4)+(2+6))+((1+5)+(3+7))), the k % lanes tail after.
 *   m < 12 and n < 12 with transA 'T': every column takes the dot form.
 *   k == 1 with transA 'N' (a rank-1 update): every column takes the axpy form.
 *   m < 12 with transA 'N': every column takes the axpy form.
 *   The axpy form peels the rows before C's column reaches a 16-byte boundary (if 4 or more rows
 *   remain) and sums them in another order (gemm_axpy_elem); the C offset is torch's, passed in.
 *   n == 1 with transA 'T' (sgemv 'T'): 4 products summed in order seed lane 0, then rows below
 *          4*floor(m/4): 4 lanes over l = 4..k-1; the other rows alternate (even offset) 8 lanes
 *          over l = 4..4+8*floor((k-4)/8)-1, or (odd offset) 4 lanes stepping 8, then the
 *          remaining l in order; all separately rounded. Measured for k = 64 only.
 * Measured with MKL on 1 or 2 threads; 3+ threads give other bits for threaded calls (not
 * modelled). Unverified: alpha not a power of two outside the main and k == 1 forms, beta other
 * than 0 or 1, beta = 1 on the dot/sgemv forms and peeled axpy rows, k % 4 != 0 on the dot form,
 * the sgemv 'T' form for k other than 16, 32, 64. */

typedef struct {
    char ta, tb;
    int64_t m, n, k;
    float alpha;
    const float *A;
    int64_t lda;
    const float *B;
    int64_t ldb;
    float beta;
    float *C;
    int64_t ldc;
    int threaded; /* MKL may use several threads: called outside an OpenMP region, threads > 1 */
    int64_t c_off; /* C's offset in floats from a 16-byte boundary in torch's buffers (mod 4) */
} gemm_t;

static inline float opA(const gemm_t *g, int64_t i, int64_t l) {
    return g->ta == 'N' ? g->A[i + l * g->lda] : g->A[l + i * g->lda];
}
static inline float opB(const gemm_t *g, int64_t l, int64_t j) {
    return g->tb == 'N' ? g->B[l + j * g->ldb] : g->B[j + l * g->ldb];
}

static int64_t mkl_kc(int64_t k) {
    if (k <= 192) return k;
    return k / 2 < 192 ? k / 2 : 192;
}

/* main kernel over columns [0, nc): per element k blocks of fused chains over (alpha*a_il) * b_lj
 * (alpha applied to A, rounded, as MKL packs it), each block's sum added to c. A (scaled) and B
 * are packed so that the chains of one row run side by side over j. */
static void gemm_main(const gemm_t *g, int64_t nc) {
    const int64_t m = g->m, k = g->k, kc = mkl_kc(k);
    float *pa = malloc(sizeof(float) * (size_t)(k + k * nc + 2 * nc));
    float *pb = pa + k, *t = pb + k * nc, *acc = t + nc;
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < nc; j++) pb[l * nc + j] = opB(g, l, j);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t l = 0; l < k; l++) pa[l] = g->alpha * opA(g, i, l);
        for (int64_t j = 0; j < nc; j++) acc[j] = g->beta != 0.0f ? g->beta * g->C[i + j * g->ldc] : 0.0f;
        for (int64_t k0 = 0; k0 < k; k0 += kc) {
            const int64_t k1 = k0 + kc < k ? k0 + kc : k;
            int64_t j0 = 0;
            for (; j0 + 8 <= nc; j0 += 8) { /* 8 independent chains: vectorises at -O2 */
                float c8[8] = {0};
                for (int64_t l = k0; l < k1; l++) {
                    const float a = pa[l], *b = pb + l * nc + j0;
                    for (int q = 0; q < 8; q++) c8[q] = fmaf(a, b[q], c8[q]);
                }
                memcpy(t + j0, c8, sizeof c8);
            }
            for (int64_t j = j0; j < nc; j++) {
                float c1 = 0.0f;
                for (int64_t l = k0; l < k1; l++) c1 = fmaf(pa[l], pb[l * nc + j], c1);
                t[j] = c1;
            }
            if (k0 == 0 && g->beta == 0.0f)
                for (int64_t j = 0; j < nc; j++) acc[j] = t[j];
            else
                for (int64_t j = 0; j < nc; j++) acc[j] = acc[j] + t[j];
        }
        for (int64_t j = 0; j < nc; j++) g->C[i + j * g->ldc] = acc[j];
    }
    free(pa);
}

/* axpy form, transA 'N': c = beta*C, then c + (alpha*b_lj) * a_il in l order. The rows MKL
 * peels to reach a 16-byte-aligned C column (when at least 4 rows remain after them) go by 8 l
 * at a time: 4 added in order onto c, the next 4 chained apart and their sum added. */
static void gemm_axpy_elem(const gemm_t *g, int64_t i, int64_t j) {
    float *c = g->C + i + j * g->ldc;
    float acc = g->beta != 0.0f ? g->beta * *c : 0.0f;
    const int64_t peel = (4 - (g->c_off + j * g->ldc) % 4) % 4;
    int64_t l = 0;
    if (i < peel && g->m - peel >= 4)
        for (; l + 8 <= g->k; l += 8) {
            for (int64_t q = l; q < l + 4; q++) acc = acc + (g->alpha * opB(g, q, j)) * opA(g, i, q);
            float t = (g->alpha * opB(g, l + 4, j)) * opA(g, i, l + 4);
            for (int64_t q = l + 5; q < l + 8; q++) t = t + (g->alpha * opB(g, q, j)) * opA(g, i, q);
            acc = acc + t;
        }
    for (; l < g->k; l++) acc = acc + (g->alpha * opB(g, l, j)) * opA(g, i, l);
    *c = acc;
}

/* lanes added as the shuffle tree: lane i with i + L/2, then i + L/4, ... */
static float lanes_pairwise(float *acc, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int q = 0; q < h; q++) acc[q] = acc[q] + acc[q + h];
    return acc[0];
}

static void store_scaled(const gemm_t *g, int64_t i, int64_t j, float acc) {
    float *c = g->C + i + j * g->ldc;
    *c = g->beta != 0.0f ? g->alpha * acc + g->beta * *c : g->alpha * acc;
}

/* dot form, transA 'T': L lanes over l < L*floor(k/L), the tail after */
static void gemm_dot_elem(const gemm_t *g, int64_t i, int64_t j, int L) {
    float acc[MAXL] = {0};
    const int64_t nfull = g->k - g->k % L;
    for (int64_t l = 0; l < nfull; l++) acc[l % L] = acc[l % L] + opA(g, i, l) * opB(g, l, j);
    float r = lanes_pairwise(acc, L);
    for (int64_t l = nfull; l < g->k; l++) r = r + opA(g, i, l) * opB(g, l, j);
    store_scaled(g, i, j, r);
}

/* sgemv 'T' (n == 1): row kind 0 (4 lanes), 1 (8 lanes), 2 (4 lanes stepping 8) */
static void gemv_t_elem(const gemm_t *g, int64_t i, int kind) {
    float acc[MAXL] = {0};
    const int L = kind == 1 ? 8 : 4;
    const int64_t head = g->k < 4 ? g->k : 4;
    for (int64_t l = 0; l < head; l++) acc[0] = acc[0] + opA(g, i, l) * opB(g, l, 0);
    const int64_t body = kind == 0 ? (g->k - head) - (g->k - head) % 4 : (g->k - head) - (g->k - head) % 8;
    for (int64_t l = head; l < head + body; l++) {
        const int64_t q = (l - head) % L;
        acc[q] = acc[q] + opA(g, i, l) * opB(g, l, 0);
    }
    float r = lanes_pairwise(acc, L);
    for (int64_t l = head + body; l < g->k; l++) r = r + opA(g, i, l) * opB(g, l, 0);
    store_scaled(g, i, 0, r);
}

static void mkl_sgemm(const gemm_t *g) {
    const int64_t m = g->m, n = g->n;
    const int64_t m4 = m - m % 4;
    if (n == 1 && g->ta == 'T') {
        for (int64_t i = 0; i < m; i++) gemv_t_elem(g, i, i < m4 ? 0 : ((i - m4) % 2 ? 2 : 1));
        return;
    }
    const int all_dot = g->ta == 'T' && m < 12 && n < 12;
    const int par = g->threaded && (m > 16 ? g->k > 4 : g->k > 16); /* MKL does split the work */
    const int64_t n_main = par ? (n >= 12 ? n : n - n % 4) : (n >= 4 ? n : 0);
    const int64_t nmain = all_dot || (g->ta == 'N' && (m < 12 || g->k == 1)) ? 0 : n_main;
    if (nmain > 0) gemm_main(g, nmain);
    for (int64_t j = nmain; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            if (g->ta == 'N') gemm_axpy_elem(g, i, j);
            else gemm_dot_elem(g, i, j, i < m4 ? 4 : 8);
        }
}

/* BLAS-style entry for the math path (attention.py): what at::bmm's MKL call computes per matrix. */
void att_sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int32_t threaded, int64_t c_off) {
    const gemm_t g = {ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, threaded, c_off};
    mkl_sgemm(&g);
}

/* ----------------------------------------------------------------------------- Vectorized lanes */

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

/* Vectorized<float>::exp_u20 (vec256_float.h / vec512_float.h): a degree-5 polynomial after the
 * reduction x = n*ln2 + r, all FMAs; the default capability maps std::exp (glibc expf). */
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
 * AVX2 object, measured), the partial last vector into its lanes (unmeasured: D % lanes != 0);
 * n < L: lane 0 folds the products in order. */
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
    for (; d + L <= n; d += L)
        for (int q = 0; q < L; q++) acc[q] = acc[q] + x[d + q] * y[d + q];
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

/* _exp_reduce_sum_fusion_kernel: x = exp_u20(x - max) over the full vectors, summed in L lanes,
 * lane tree, then the scalar tail added in order. The tail's unqualified exp(float) there is C's
 * double exp (measured): x = (float)exp((double)(x - max)), from the C library (glibc's exp is
 * correctly rounded in all but rare cases, so another libm may rarely differ). Returns the sum. */
static float exp_sum_row(const profile_t *p, float *x, int64_t kv, float mx) {
    const int L = p->lanes_wide;
    const int64_t nv = kv - kv % L;
    float acc[MAXL] = {0};
    for (int64_t c = 0; c < nv; c++) {
        x[c] = exp_u20(p, x[c] - mx);
        acc[c % L] = acc[c % L] + x[c];
    }
    float s = lane_tree(p, acc, L);
    for (int64_t c = nv; c < kv; c++) {
        x[c] = (float)exp((double)(x[c] - mx));
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
    const int thr = p.threads > 1 && B * H * divup(L, qs) == 1; /* parallel_for ran its one item inline */
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
                const gemm_t g1 = {'T', 'N', kb, qb, D, 1.0f, kh + n * D, D, qh + m * D, D, 0.0f, qk, kb, thr, 0};
                mkl_sgemm(&g1);
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
                const gemm_t g2 = {'N', 'N', D, qb, kb, 1.0f, vh + n * D, D, qk, kb, beta, dst, D, thr, dst_off};
                mkl_sgemm(&g2);
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
    const int thr = p.threads > 1 && B * H == 1; /* parallel_for ran its one item inline */
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
                const gemm_t g3 = {'T', 'N', kb, qb, D, scale, kh + n * D, D, qh + m * D, D, 0.0f, attn, kb, thr, 0};
                mkl_sgemm(&g3);
                for (int64_t r = 0; r < qb; r++)
                    for (int64_t c = 0; c < kb; c++) attn[r * kb + c] = vec_expf(&p, attn[r * kb + c] - lh[m + r]);
                if (num_keys - n <= kvs)
                    for (int64_t r = 0; r < qb; r++)
                        for (int64_t c = m + r - n + 1; c < kb; c++)
                            if (c >= 0) attn[r * kb + c] = 0.0f;
                const gemm_t g4 = {'N', 'T', D, kb, qb, 1.0f, gh + m * D, D, attn, kb, 1.0f, gvh + n * D, D, thr, 0};
                mkl_sgemm(&g4);
                const gemm_t g5 = {'T', 'N', kb, qb, D, 1.0f, vh + n * D, D, gh + m * D, D, 0.0f, gattn, kb, thr, 0};
                mkl_sgemm(&g5);
                for (int64_t r = 0; r < qb; r++)
                    for (int64_t c = 0; c < kb; c++)
                        gattn[r * kb + c] = attn[r * kb + c] * (gattn[r * kb + c] - dsum[r]);
                const gemm_t g6 = {'N', 'N', D, qb, kb, scale, kh + n * D, D, gattn, kb, 1.0f, gqh + m * D, D, thr, 0};
                mkl_sgemm(&g6);
                const gemm_t g7 = {'N', 'T', D, kb, qb, scale, qh + m * D, D, gattn, kb, 1.0f, gkh + n * D, D, thr, 0};
                mkl_sgemm(&g7);
            }
        }
    }
    free(attn);
}
