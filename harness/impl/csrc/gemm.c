/* Matrix products of torch 2.13.0+cpu (MKL 2024.2 sgemm, ATen's small-bmm loop) and the
 * embedding gather/scatter, in float32, bit for bit.
 *
 * Every matrix here is addressed by element strides, so transposed views need no copy:
 * element (i, k) of A is A[i*sa0 + k*sa1].
 */
#include <stdlib.h>

#include "common.h"

#define KC_MAX 192 /* the longest k block MKL's sgemm accumulates in one chain */

/* MKL sgemm's main kernel (M, N >= 12; smaller products below), the per-element order measured
 * on its "Intel(R) Architecture processors" path, 1 or 2 threads alike, whatever the transposes:
 *   K is cut into blocks of kc = K (K <= 192), K/2 (192 < K <= 384) or 192 (K > 384), the last
 *   block taking what is left (K = 193: 96, 96, 1; K = 512: 192, 192, 128);
 *   each block is one fused chain over its k in increasing order, starting from 0:
 *       t = fmaf(a[i,k], b[k,j], t);
 *   C is then updated block by block: c = c + t (beta = 1: c starts as the C given, e.g. the
 *   bias that addmm copied in; beta = 0: c starts as the first block's t). */
static int64_t mkl_kc(int64_t K) {
    if (K <= KC_MAX) return K;
    return K / 2 < KC_MAX ? K / 2 : KC_MAX;
}

/* Register tile of the kernel: MR rows x NR columns of C, accumulated over one k block. */
#define MR 6
#define NR 16

#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
/* t[MR][NR] = sum over the block's kc steps of ap[k][r] * bp[k][j], one fused chain per element. */
static void tile_kernel(int64_t kc, const float *restrict ap, const float *restrict bp, float *restrict t) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t k = 0; k < kc; k++) {
        const __m256 b0 = _mm256_loadu_ps(bp + k * NR), b1 = _mm256_loadu_ps(bp + k * NR + 8);
        const float *a = ap + k * MR;
#define ROW(r, x0, x1)                                   \
    {                                                    \
        const __m256 ar = _mm256_broadcast_ss(a + (r));  \
        x0 = _mm256_fmadd_ps(ar, b0, x0);                \
        x1 = _mm256_fmadd_ps(ar, b1, x1);                \
    }
        ROW(0, c00, c01) ROW(1, c10, c11) ROW(2, c20, c21) ROW(3, c30, c31) ROW(4, c40, c41) ROW(5, c50, c51)
#undef ROW
    }
    const __m256 out[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int r = 0; r < MR; r++) {
        _mm256_storeu_ps(t + r * NR, out[r][0]);
        _mm256_storeu_ps(t + r * NR + 8, out[r][1]);
    }
}
#else
static void tile_kernel(int64_t kc, const float *restrict ap, const float *restrict bp, float *restrict t) {
    for (int i = 0; i < MR * NR; i++) t[i] = 0.0f;
    for (int64_t k = 0; k < kc; k++)
        for (int r = 0; r < MR; r++)
            for (int j = 0; j < NR; j++) t[r * NR + j] = fmaf(ap[k * MR + r], bp[k * NR + j], t[r * NR + j]);
}
#endif

/* Pack rows x K of X (element (r,k) at X[r*s0 + k*s1]) into panels of w rows: dst[panel][k][r % w]. */
static void pack(int64_t rows, int64_t K, const float *X, int64_t s0, int64_t s1, int64_t w, float *dst) {
    for (int64_t p0 = 0; p0 < rows; p0 += w) {
        const int64_t n = rows - p0 < w ? rows - p0 : w;
        float *d = dst + p0 * K;
        for (int64_t r = 0; r < n; r++) {
            const float *x = X + (p0 + r) * s0;
            for (int64_t k = 0; k < K; k++) d[k * w + r] = x[k * s1];
        }
    }
}

/* MKL's main kernel on every element of C[M,N] (row stride ldc) = (beta ? C : 0) + A[M,K] @ B[K,N].
 * A (i,k) at A[i*sa0 + k*sa1]; B (k,j) at B[k*sb0 + j*sb1]. Threads change no bits in MKL.
 * A is packed in panels of MR rows (ap[panel][k][r]), B in panels of NR columns (bp[panel][k][j]),
 * both zero-padded; the padding's results are dropped. */
static void gemm_main(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1, const float *B,
                      int64_t sb0, int64_t sb1, float *C, int64_t ldc, int32_t beta) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!beta)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) C[i * ldc + j] = 0.0f;
        return;
    }
    const int64_t mp = divup(M, MR), np = divup(N, NR), kc = mkl_kc(K);
    float *ap = calloc((size_t)(mp * MR * K + np * NR * K), sizeof(float));
    float *bp = ap + mp * MR * K;
    float t[MR * NR];
    pack(M, K, A, sa0, sa1, MR, ap);
    pack(N, K, B, sb1, sb0, NR, bp);
    for (int64_t k0 = 0; k0 < K; k0 += kc) {
        const int64_t kb = k0 + kc < K ? kc : K - k0;
        const int first = k0 == 0 && !beta;
        for (int64_t jp = 0; jp < np; jp++) {
            const int64_t nj = N - jp * NR < NR ? N - jp * NR : NR;
            for (int64_t ip = 0; ip < mp; ip++) {
                const int64_t ni = M - ip * MR < MR ? M - ip * MR : MR;
                tile_kernel(kb, ap + (ip * K + k0) * MR, bp + (jp * K + k0) * NR, t);
                for (int64_t r = 0; r < ni; r++) {
                    float *c = C + (ip * MR + r) * ldc + jp * NR;
                    const float *tr = t + r * NR;
                    if (first)
                        for (int64_t j = 0; j < nj; j++) c[j] = tr[j];
                    else
                        for (int64_t j = 0; j < nj; j++) c[j] = c[j] + tr[j];
                }
            }
        }
    }
    free(ap);
}

/* ---- MKL's small-matrix kernels (SSE, no FMA: each product rounded, then added) ----
 * Measured with torch.mm on this AMD host, in torch's row-major terms (MKL sees the transposed
 * problem: its m = N, its n = M). They take over when M < 12 or N < 12:
 *   N >= 12, M < 12: with 2 threads MKL splits the rows: whole groups of 4 take the main kernel,
 *     the last M % 4 rows a small kernel; except when M >= 4 and either the product is too small
 *     to split (see unsplit), or the call is one item of MKL's batched gemm (as at::bmm makes),
 *     or MKL runs 1 thread: then all rows take the main kernel. M < 4: small kernel.
 *     (Measured for 1 and 2 threads; more threads may split the rows otherwise.)
 *   N < 12: every row takes a small kernel.
 * The small kernel depends on the operands' layouts and on 16-byte alignment of the addresses
 * (so the impl's buffers must sit at the same offsets mod 16 bytes as torch's):
 *   A rows and B columns contiguous along k (x @ W.T): a dot product per element, see dot_small;
 *   A and B both transposed: one unfused chain over k;
 *   otherwise: one unfused chain over k, except the first p = (4 - (&C[i,0]/4) % 4) % 4 elements of
 *     a row i of C when N - p >= 4 (the alignment peel of MKL's loop over C's row), see chain_peel.
 * beta = 1: the kernel's whole sum is added to C at the end. M == 1 or N == 1: MKL's gemv, see
 * gemv_rows and gemv_axpy (routing in gemm). */

static inline float prod_at(const float *A, int64_t sa1, const float *B, int64_t sb0, int64_t k) {
    return A[k * sa1] * B[k * sb0];
}

/* One unfused chain: s = p0; s = s + p1; ... */
static float chain_small(int64_t K, const float *a, int64_t sa1, const float *b, int64_t sb0) {
    float s = prod_at(a, sa1, b, sb0, 0);
    for (int64_t k = 1; k < K; k++) s = s + prod_at(a, sa1, b, sb0, k);
    return s;
}

/* The peel elements' order: k in chunks of 4; an odd-numbered whole chunk is summed apart
 * ((p+p)+p)+p and then added; every other product is added to the running sum in turn. */
static float chain_peel(int64_t K, const float *a, int64_t sa1, const float *b, int64_t sb0) {
    float s = prod_at(a, sa1, b, sb0, 0);
    for (int64_t k = 1; k < K;) {
        if ((k / 4) % 2 == 1 && k % 4 == 0 && k + 4 <= K) {
            float t = prod_at(a, sa1, b, sb0, k) + prod_at(a, sa1, b, sb0, k + 1);
            t = t + prod_at(a, sa1, b, sb0, k + 2);
            t = t + prod_at(a, sa1, b, sb0, k + 3);
            s = s + t;
            k += 4;
        } else {
            s = s + prod_at(a, sa1, b, sb0, k);
            k++;
        }
    }
    return s;
}

/* Dot product of a (contiguous along k, at the address a) with b: the first p products
 * (p = (4 - (&a[0]/4) % 4) % 4, aligning a) are summed in order and start lane 0; then w lanes
 * (w = 4, or w = 8 as two 4-lane accumulators for the last N % 4 columns) take k = p + l + w*t
 * for every whole step; w = 8 folds lane l + 4 into lane l; lanes reduce as (l0 + l2) + (l1 + l3);
 * the remaining products are added in order. */
static float dot_small(int64_t K, const float *a, const float *b, int64_t sb0, int w) {
    const int64_t p = (int64_t)((4 - ((uintptr_t)a / sizeof(float)) % 4) % 4);
    const int64_t steps = K > p ? (K - p) / w : 0;
    if (steps == 0) return chain_small(K, a, 1, b, sb0);
    float acc[8];
    for (int l = 0; l < w; l++) acc[l] = prod_at(a, 1, b, sb0, p + l);
    if (p > 0) {
        float s = prod_at(a, 1, b, sb0, 0);
        for (int64_t k = 1; k < p; k++) s = s + prod_at(a, 1, b, sb0, k);
        acc[0] = s + acc[0];
    }
    for (int64_t t = 1; t < steps; t++)
        for (int l = 0; l < w; l++) acc[l] = acc[l] + prod_at(a, 1, b, sb0, p + t * w + l);
    if (w == 8)
        for (int l = 0; l < 4; l++) acc[l] = acc[l] + acc[l + 4];
    float s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (int64_t k = p + steps * w; k < K; k++) s = s + prod_at(a, 1, b, sb0, k);
    return s;
}

/* Rows [r0, M) of C through the small kernel matching the layouts. */
static void gemm_small_rows(int64_t r0, int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1,
                            const float *B, int64_t sb0, int64_t sb1, float *C, int64_t ldc, int32_t beta, int ta,
                            int tb) {
    const int dot = !ta && tb, both_t = ta && tb;
    for (int64_t i = r0; i < M; i++) {
        const float *a = A + i * sa0;
        float *c = C + i * ldc;
        const int64_t p = (int64_t)((4 - ((uintptr_t)c / sizeof(float)) % 4) % 4);
        const int64_t peel = (!dot && !both_t && N - p >= 4) ? p : 0;
        for (int64_t j = 0; j < N; j++) {
            const float *b = B + j * sb1;
            float s;
            if (dot)
                s = dot_small(K, a, b, sb0, j < (N / 4) * 4 ? 4 : 8);
            else if (j < peel)
                s = chain_peel(K, a, sa1, b, sb0);
            else
                s = chain_small(K, a, sa1, b, sb0);
            c[j] = beta ? c[j] + s : s;
        }
    }
}

/* MKL's gemv 'T' path, for a product with one output column (N == 1, A row-major) or one output
 * row (M == 1, B stored transposed): every output r of the R outputs is a dot product of a matrix row
 * (contiguous along k) with the vector, unfused:
 *   a head of p products summed in order (p from 1 to 4) starts lane 0;
 *   outputs in whole groups of 4: 4 lanes over steps of 4, p = 4 - (offset of the group's 4th
 *     row) % 4, offsets in floats from a 16-byte boundary;
 *   the other outputs, alternately: two 4-lane accumulators over steps of 8, added lane by lane
 *     (even ones), or one 4-lane accumulator over steps of 8 (odd ones); p = 4 - (offset of the
 *     vector) % 4;
 *   lanes reduce as (l0 + l2) + (l1 + l3), then the remaining products in order. */
static float dot_gemv(int64_t K, const float *row, const float *vec, int64_t sv, int64_t p, int step, int two_accs) {
    const int64_t steps = K > p ? (K - p) / step : 0;
    if (steps == 0) return chain_small(K, row, 1, vec, sv);
    float acc[4], acc2[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float head = prod_at(row, 1, vec, sv, 0);
    for (int64_t k = 1; k < p; k++) head = head + prod_at(row, 1, vec, sv, k);
    for (int l = 0; l < 4; l++) acc[l] = prod_at(row, 1, vec, sv, p + l);
    acc[0] = head + acc[0];
    for (int64_t t = 0; t < steps; t++)
        for (int64_t b = 0; b < step; b += 4)
            for (int l = 0; l < 4; l++) {
                const int64_t k = p + t * step + b + l;
                if (t == 0 && b == 0) continue; /* the first block seeded acc above */
                const float x = prod_at(row, 1, vec, sv, k);
                if (two_accs && b == 4)
                    acc2[l] = t == 0 ? x : acc2[l] + x;
                else
                    acc[l] = acc[l] + x;
            }
    if (two_accs)
        for (int l = 0; l < 4; l++) acc[l] = acc[l] + acc2[l];
    float s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (int64_t k = p + steps * step; k < K; k++) s = s + prod_at(row, 1, vec, sv, k);
    return s;
}

static int64_t head_len(const float *x) { return 4 - (int64_t)(((uintptr_t)x / sizeof(float)) % 4); }

/* out[r * so] (= or +=) dot_gemv of matrix row r (at mat + r * sm) with vec (stride sv), r < R. */
static void gemv_rows(int64_t R, int64_t K, const float *mat, int64_t sm, const float *vec, int64_t sv, float *out,
                      int64_t so, int32_t beta) {
    const int64_t grouped = (R / 4) * 4;
    for (int64_t r = 0; r < R; r++) {
        float s;
        if (r < grouped)
            s = dot_gemv(K, mat + r * sm, vec, sv, head_len(mat + (r / 4 * 4 + 3) * sm), 4, 0);
        else
            s = dot_gemv(K, mat + r * sm, vec, sv, head_len(vec), 8, (r - grouped) % 2 == 0);
        out[r * so] = beta ? out[r * so] + s : s;
    }
}

/* MKL's gemv 'N' (one output column from a transposed A): y = A x as axpy steps along y, so each
 * y[i] is one unfused chain over k, except the first p = (4 - (&y[0]/4) % 4) % 4 outputs (when
 * M - p >= 4), which take the alignment peel's order (chain_peel). */
static void gemv_axpy(int64_t M, int64_t K, const float *A, int64_t sa0, int64_t sa1, const float *x, int64_t sx,
                      float *y, int64_t sy, int32_t beta) {
    const int64_t p = (int64_t)((4 - ((uintptr_t)y / sizeof(float)) % 4) % 4);
    for (int64_t i = 0; i < M; i++) {
        const float *a = A + i * sa0;
        const float s = (M - p >= 4 && i < p) ? chain_peel(K, a, sa1, x, sx) : chain_small(K, a, sa1, x, sx);
        y[i * sy] = beta ? y[i * sy] + s : s;
    }
}

/* Products MKL does not split between threads (measured thresholds, any M < 12). */
static int unsplit(int64_t N, int64_t K) { return K <= 1 || (N <= 100 && K <= 4) || (N <= 16 && K <= 16); }

/* sgemm as torch.mm / addmm call it (batched = 0), or one item of the batched gemm of at::bmm
 * (batched = 1), MKL running `threads` threads:
 *   C[M,N] (row stride ldc) = (beta ? C : 0) + A[M,K] @ B[K,N],
 * A (i,k) at A[i*sa0 + k*sa1], B (k,j) at B[k*sb0 + j*sb1], picking MKL's kernel per row.
 * trans: bit 0 set when torch hands A to BLAS as stored transposed (column-major), bit 1 for B. */
void gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1, const float *B, int64_t sb0,
          int64_t sb1, float *C, int64_t ldc, int32_t beta, int32_t batched, int32_t threads, int32_t trans) {
    if (M <= 0 || N <= 0) return;
    const int ta = trans & 1, tb = (trans >> 1) & 1;
    if (K <= 0 || (M >= 12 && N >= 12)) {
        gemm_main(M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc, beta);
        return;
    }
    /* MKL's gemv: one output column from a row-major A (not for batch items), or one output row
     * from a transposed B (batch items: unless A is transposed too) */
    if (N == 1 && M > 1 && !ta && !batched) {
        gemv_rows(M, K, A, sa0, B, sb0, C, ldc, beta);
        return;
    }
    if (M == 1 && tb && !(batched && ta)) {
        gemv_rows(N, K, B, sb1, A, sa1, C, 1, beta);
        return;
    }
    if (N == 1 && ta && !batched) {
        gemv_axpy(M, K, A, sa0, sa1, B, sb0, C, ldc, beta);
        return;
    }
    int64_t main_rows = 0;
    if (N >= 12)
        main_rows = (M >= 4 && (threads < 2 || batched || unsplit(N, K))) ? M : (M / 4) * 4;
    if (main_rows > 0) gemm_main(main_rows, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc, beta);
    gemm_small_rows(main_rows, M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc, beta, ta, tb);
}

/* bmm for contraction*rows*cols < 400: ATen's baddbmm_cpu_kernel (LinearAlgebra.cpp, built
 * without FMA contraction): per element acc = 0; acc += a[i,k]*b[k,j] for k increasing,
 * product rounded then added. a (Bt,M,K), b (Bt,K,N), c (Bt,M,N) contiguous. */
void bmm_small(int64_t Bt, int64_t M, int64_t N, int64_t K, const float *a, const float *b, float *c) {
    for (int64_t p = 0; p < Bt; p++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                float acc = 0.0f;
                for (int64_t k = 0; k < K; k++) {
                    float prod = a[(p * M + i) * K + k] * b[(p * K + k) * N + j];
                    acc = acc + prod;
                }
                c[(p * M + i) * N + j] = acc;
            }
}

/* embedding forward: out[n, :] = weight[idx[n], :]; weight (V,D), idx (n), out (n,D). */
void embedding_forward(int64_t n, int64_t D, const float *weight, const int64_t *idx, float *out) {
    for (int64_t r = 0; r < n; r++) memcpy(out + r * D, weight + idx[r] * D, sizeof(float) * (size_t)D);
}

/* embedding backward: ATen's embedding_dense_backward_cpu: grad_weight zeroed, then for every
 * index position r in increasing order grad_weight[idx[r]] += grad[r] (add_ with alpha 1: one
 * rounding per add). grad (n,D), grad_weight (V,D). Thread chunks split the rows of grad_weight,
 * so each row's order is the same for any thread count. */
void embedding_backward(int64_t n, int64_t V, int64_t D, const float *grad, const int64_t *idx, float *grad_weight) {
    memset(grad_weight, 0, sizeof(float) * (size_t)(V * D));
    for (int64_t r = 0; r < n; r++) {
        float *gw = grad_weight + idx[r] * D;
        const float *g = grad + r * D;
        for (int64_t d = 0; d < D; d++) gw[d] = gw[d] + g[d];
    }
}
