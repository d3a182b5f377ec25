/* Matrix products of torch 2.13.0+cpu (MKL 2024.2 sgemm on x86; NVPL sgemm or oneDNN/ACL on Linux
 * aarch64; ATen's small-bmm loop) and the embedding gather/scatter, in float32, bit for bit.
 *
 * Every matrix here is addressed by element strides, so transposed views need no copy:
 * element (i, k) of A is A[i*sa0 + k*sa1].
 */
#include "nvpl_sgemm.h"

#define GEMM_MKL 0  /* MKL sgemm (csrc/mkl_sgemm.h) */
#define GEMM_NVPL 1 /* NVPL sgemm (csrc/nvpl_sgemm.h) */
#define GEMM_ACL 2  /* oneDNN matmul on ACL (csrc/nvpl_sgemm.h), torch's aarch64 route for x @ W.T */
#define GEMM_MKL_CBWR 3 /* MKL sgemm under MKL_CBWR=COMPATIBLE (csrc/mkl_sgemm.h mkl_cbwr_sgemm) */
#define GEMM_MKL_AVX2 4 /* MKL sgemm, its Intel AVX2 path (csrc/mkl_sgemm.h mkl_avx2_sgemm) */
#define GEMM_MKL_SSE42 5 /* MKL sgemm, its Intel SSE4.2 path (csrc/mkl_sgemm.h mkl_sse42_sgemm) */
#define GEMM_MKL_AVX512 6 /* MKL sgemm, its Intel AVX-512 path (csrc/mkl_sgemm.h mkl_avx512_sgemm) */

/* sgemm as torch.mm / addmm call it (batched = 0 or 1), or one item of the batched gemm of at::bmm
 * (batched = its number of items, 2 or more), MKL running `threads` threads (csrc/mkl_sgemm.h;
 * MKL cuts an item into parts by the item count: mkl_sgemm_batch_item):
 *   C[M,N] (row stride ldc) = (beta ? C : 0) + alpha * A[M,K] @ B[K,N] (where each kernel applies alpha:
 *   csrc/mkl_sgemm.h; alpha = 1 for every caller but linalg.addmm's),
 * A (i,k) at A[i*sa0 + k*sa1], B (k,j) at B[k*sb0 + j*sb1]; the arrays sit at torch's offsets
 * mod 16 bytes, so their own addresses give MKL's alignment.
 * trans: bit 0 set when torch hands A to BLAS as stored transposed (column-major), bit 1 for B.
 * workers: pthreads computing the main kernel's rows (speed only: no bit depends on it).
 * blas: GEMM_MKL, GEMM_MKL_CBWR, GEMM_MKL_AVX2, GEMM_MKL_SSE42, GEMM_MKL_AVX512, GEMM_NVPL or GEMM_ACL, the library that computes the product; acl_kc (GEMM_ACL only):
 * 0 for ACL's hybrid kernels, else the K block limit of the interleaved kernel ACL picked
 * (csrc/nvpl_sgemm.h acl_sgemm; harness/impl/linalg.py _acl_kc). For NVPL a product
 * with N == 1 (and M > 1 or M == 1) is what torch hands BLAS as a gemv on A: it is run as the
 * transposed problem C^T[1,M] = B^T @ A^T (C's column, ldc apart, as a row of stride ldc). */
void gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1, const float *B, int64_t sb0,
          int64_t sb1, float *C, int64_t ldc, int32_t beta, int32_t batched, int32_t threads, int32_t trans,
          int32_t workers, int32_t blas, int32_t acl_kc, float alpha) {
    if (blas == GEMM_NVPL || blas == GEMM_ACL) {
        const sgemm_t g = {
            .M = M, .N = N, .K = K, .alpha = alpha, .beta = beta ? 1.0f : 0.0f,
            .A = A, .sa0 = sa0, .sa1 = sa1, .B = B, .sb0 = sb0, .sb1 = sb1, .C = C, .ldc = ldc,
            .ta = trans & 1, .tb = (trans >> 1) & 1, .threads = threads, .batched = batched >= 2, .workers = workers,
        };
        if (blas == GEMM_ACL) {
            acl_sgemm(&g, acl_kc);
            return;
        }
        nvpl_sgemm_torch(&g); /* N == 1: torch's gemv on A, the transposed problem */
        return;
    }
    const sgemm_t g = {
        .M = M, .N = N, .K = K, .alpha = alpha, .beta = beta ? 1.0f : 0.0f,
        .A = A, .sa0 = sa0, .sa1 = sa1, .B = B, .sb0 = sb0, .sb1 = sb1, .C = C, .ldc = ldc,
        .ta = trans & 1, .tb = (trans >> 1) & 1, .threads = threads, .batched = batched >= 2,
        .a_off = mkl_off(A), .b_off = mkl_off(B), .c_off = mkl_off(C), .workers = workers,
        .cbwr = blas == GEMM_MKL_CBWR, .avx2 = blas == GEMM_MKL_AVX2, .sse42 = blas == GEMM_MKL_SSE42,
        .avx512 = blas == GEMM_MKL_AVX512,
    };
    if (batched >= 2)
        mkl_sgemm_batch_item(&g, batched);
    else
        mkl_sgemm(&g);
}

/* C = C + alpha * A @ B (beta 1) as MKL's strsm_l2 calls its own xsgemm between 64-row blocks
 * (harness/impl/linalg.py _strsm; traced with gdb: mkl_blas_def_xsgemm -> xsgemm_bdz -> sgemm_pst for the
 * small shapes, on one thread): MKL's serial kernels (csrc/mkl_sgemm.h mkl_serial) whatever the shape, never
 * the gemv that sgemm_'s own entry takes for one row or column (mkl_sgemm). The operands as gemm's, on MKL's
 * generic path; trans as gemm's. */
void trsm_update(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1, const float *B, int64_t sb0,
                 int64_t sb1, float *C, int64_t ldc, int32_t trans, float alpha) {
    const sgemm_t g = {
        .M = M, .N = N, .K = K, .alpha = alpha, .beta = 1.0f, .A = A, .sa0 = sa0, .sa1 = sa1, .B = B, .sb0 = sb0,
        .sb1 = sb1, .C = C, .ldc = ldc, .ta = trans & 1, .tb = (trans >> 1) & 1, .threads = 1,
        .a_off = mkl_off(A), .b_off = mkl_off(B), .c_off = mkl_off(C),
    };
    if (M > 0 && N > 0) mkl_serial(&g);
}

typedef struct {
    int64_t M, N, K;
    const float *A;
    int64_t sab, sa0, sa1;
    const float *B;
    int64_t sbb, sb0, sb1;
    float *C;
    int64_t scb, ldc;
    int32_t beta, batched, threads, trans, workers, blas, acl_kc;
    float alpha;
    int64_t t0, t1; /* items [t0, t1) */
} gemm_items_t;

static void *gemm_items(void *arg) {
    const gemm_items_t *b = arg;
    for (int64_t i = b->t0; i < b->t1; i++)
        gemm(b->M, b->N, b->K, b->A + i * b->sab, b->sa0, b->sa1, b->B + i * b->sbb, b->sb0, b->sb1,
             b->C + i * b->scb, b->ldc, b->beta, b->batched, b->threads, b->trans, b->workers, b->blas, b->acl_kc,
             b->alpha);
    return NULL;
}

/* gemm on each of nb items: item i of A at A + i*sab, of B at B + i*sbb, of C at C + i*scb (the
 * other arguments as gemm's, the same for every item). With at least `workers` items, the items
 * are split between workers pthreads (one thread per item); else each item uses all of them. */
void gemm_batch(int64_t nb, int64_t M, int64_t N, int64_t K, const float *A, int64_t sab, int64_t sa0, int64_t sa1,
                const float *B, int64_t sbb, int64_t sb0, int64_t sb1, float *C, int64_t scb, int64_t ldc,
                int32_t beta, int32_t batched, int32_t threads, int32_t trans, int32_t workers, int32_t blas,
                int32_t acl_kc, float alpha) {
    int64_t nt = workers < 1 ? 1 : workers;
    nt = nt < MKL_MAX_WORKERS ? nt : MKL_MAX_WORKERS;
    gemm_items_t jobs[MKL_MAX_WORKERS];
    gemm_items_t all = {M, N, K, A, sab, sa0, sa1, B, sbb, sb0, sb1, C, scb, ldc,
                        beta, batched, threads, trans, (int32_t)nt, blas, acl_kc, alpha, 0, nb};
    if (nt <= 1 || nb < nt || nb * M * N * K < MKL_MIN_SPLIT) {
        gemm_items(&all);
        return;
    }
    const int64_t per = divup(nb, nt);
    for (int64_t t = 0; t < nt; t++) {
        jobs[t] = all;
        jobs[t].workers = 1;
        jobs[t].t0 = t * per < nb ? t * per : nb;
        jobs[t].t1 = (t + 1) * per < nb ? (t + 1) * per : nb;
    }
    mkl_run_jobs(gemm_items, jobs, sizeof jobs[0], nt);
}

/* bmm for contraction*rows*cols < 400: ATen's baddbmm_cpu_kernel (LinearAlgebra.cpp): per element
 * acc = 0; acc += a[i,k]*b[k,j] for k increasing. How the object was compiled decides the roundings
 * (`mode`), GCC's loop versions chosen at run time by the operands' strides:
 *   BMM_SMALL_UNFUSED (x86: no FMA in that object): every product rounded, then added;
 *   BMM_SMALL_FUSED (aarch64: a's k stride or b's not 1, the scalar loop, contracted): every step
 *     acc + a*b fused;
 *   BMM_SMALL_K_VECTOR (aarch64: a's and b's k strides 1, i.e. a's rows contiguous and b a transposed
 *     view or N == 1: the loop over k in vectors of four): per group `fmul v = b * a`, its lanes added
 *     in k order, in bmm's copy as `acc + p0`, `p1 + acc`, `p2 + acc`, `acc + p3` (GCC's commuted
 *     operands), in baddbmm's (`baddbmm`) each `acc + p`; the K % 4 left (all K when K < 4) fused,
 *     the first two `fmadd acc, a, b`, the third `fmadd acc, b, a`.
 *   `omp`: more items than parallel_for's grain on 2 or more threads run the copies GCC outlined for
 *     invoke_parallel's OpenMP body (baddbmm_cpu_kernel<float, true / false>'s ._omp_fn.0): there both
 *     add the lanes as bmm's inline copy does (`acc + p0`, `p1 + acc`, `p2 + acc`, `acc + p3`) and every
 *     K % 4 step left is `fmadd acc, b, a`; the scalar loop and the store as inline.
 * aarch64's NaNs: each instruction's FPProcessNaNs in those operand orders (nan2, nan3: a signalling
 * operand first, quieted, then the first quiet one; the fused step's addend acc first, then its first
 * factor), an invalid operation +qNaN. Read in the wheel's bmm_out_or_baddbmm_ (the copies parallel_for
 * runs inline: the batch within one grain, or one thread) and in the OpenMP copies, the fused steps'
 * a-before-b measured. x86's are refused by the caller.
 * aarch64's store (baddbmm_cpu_kernel<float, false>, the same loops): `t = fmul acc, alpha`, then with
 * beta 0 t, else `fmadd beta, r, t` (r the element of c, which holds the broadcast self on entry when
 * beta_on); bmm's <float, true> stores acc, which is t with alpha 1.
 * Measured on emulated N1: 580 of 580 random contiguous products (N = 2..13, K = 1..8), 60 of 60
 * with N = 1, 909 of 909 with a, b or both transposed (docs/impl/kernels.md). a (Bt,M,K), b (Bt,K,N),
 * c (Bt,M,N) contiguous copies. */
enum { BMM_SMALL_UNFUSED = 0, BMM_SMALL_FUSED = 1, BMM_SMALL_K_VECTOR = 2 };
void bmm_small(int64_t Bt, int64_t M, int64_t N, int64_t K, const float *a, const float *b, float *c, int32_t mode,
               float alpha, float beta, int32_t baddbmm, int32_t beta_on, int32_t omp) {
    static const profile_t arm = {.aten = ATEN_NEON};
    const int64_t kv = mode == BMM_SMALL_K_VECTOR ? K / 4 * 4 : mode == BMM_SMALL_UNFUSED ? K : 0;
    for (int64_t p = 0; p < Bt; p++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                float acc = 0.0f;
                for (int64_t k = 0; k < K; k++) {
                    const float x = a[(p * M + i) * K + k], y = b[(p * K + k) * N + j];
                    if (mode == BMM_SMALL_UNFUSED) {
                        float prod = x * y;
                        acc = acc + prod;
                    } else if (k < kv) {
                        const float prod = nan2(&arm, y * x, y, x);
                        acc = (!baddbmm || omp) && (k % 4 == 1 || k % 4 == 2) ? nan2(&arm, prod + acc, prod, acc)
                                                                              : nan2(&arm, acc + prod, acc, prod);
                    } else if (mode == BMM_SMALL_K_VECTOR && (omp || k - kv == 2)) {
                        acc = nan3(&arm, fmaf(y, x, acc), y, x, acc);
                    } else {
                        acc = nan3(&arm, fmaf(x, y, acc), x, y, acc);
                    }
                }
                float *r = c + (p * M + i) * N + j;
                if (mode == BMM_SMALL_UNFUSED) {
                    *r = acc;
                    continue;
                }
                const float t = nan2(&arm, acc * alpha, acc, alpha);
                *r = beta_on ? nan3(&arm, fmaf(beta, *r, t), beta, *r, t) : t;
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

/* at::native::cpublas::gemm for float with alpha 1, as its direct callers make it (slow_conv2d's
 * forward and backward: harness/impl/linalg.py cpublas_gemm): MKL's sgemm_ called column-major with
 * (ta, tb, m, n, k, lda, ldb, ldc) once normalize_last_dims has set the leading dimensions of
 * dimensions of size 1 (done here again: n == 1: ldc = m; A 'N' with k == 1: lda = m, A 'T' with
 * m == 1: lda = k; B 'N' with n == 1: ldb = k, B 'T' with k == 1: ldb = n). Modelled as
 * csrc/attention.c's blas_sgemm: the row-major product C^T (n x m) = opB^T @ opA^T with the
 * cpublas forms of csrc/mkl_sgemm.h, which are measured against sgemm_ called so (the generic path's
 * 1 x 1 product: MKL's gemv on its B, the dot form when B is not transposed; its gemv with a strided
 * vector or output), where at::mm's forms (gemm above) are those of the calls addmm_impl_cpu_ makes:
 * a 1 x 1 product there is handed over untransposed, so its gemv is on the other operand.
 * blas: GEMM_MKL, GEMM_MKL_CBWR or an Intel path (not NVPL/ACL); threads: MKL's; workers: speed only. */
void cpublas_sgemm(int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                   const float *B, int64_t ldb, int32_t beta, float *C, int64_t ldc, int32_t threads,
                   int32_t workers, int32_t blas) {
    if (n == 1) ldc = m;
    if (ta ? m == 1 : k == 1) lda = ta ? k : m;
    if (tb ? k == 1 : n == 1) ldb = tb ? n : k;
    const sgemm_t g = {
        .M = n, .N = m, .K = k, .alpha = 1.0f, .beta = beta ? 1.0f : 0.0f,
        .A = B, .sa0 = tb ? 1 : ldb, .sa1 = tb ? ldb : 1,
        .B = A, .sb0 = ta ? 1 : lda, .sb1 = ta ? lda : 1,
        .C = C, .ldc = ldc, .ta = tb, .tb = ta, .threads = threads, .batched = 0,
        .a_off = mkl_off(B), .b_off = mkl_off(A), .c_off = mkl_off(C), .workers = workers,
        .cbwr = blas == GEMM_MKL_CBWR, .avx2 = blas == GEMM_MKL_AVX2, .sse42 = blas == GEMM_MKL_SSE42,
        .avx512 = blas == GEMM_MKL_AVX512, .cpublas = 1,
    };
    mkl_sgemm(&g);
}

/* One row's dot product in MKL strsmlt's (generic path) order: t(j) = a[j] * x[j * k] rounded, j < m.
 * peel: the terms before a's row reaches a 16-byte boundary, added in order from +0 into lane 0; then
 * vectors of 4 (width 4) or 8 (width 8, "two" accumulators: the second 4 in another vector, added lane by
 * lane before the fold; else both 4s into one vector in turn), the lanes folded (l0 + l2) + (l1 + l3);
 * then the tail in order. */
static float trsm_dot(const float *a, const float *x, int64_t k, int64_t m, int64_t peel, int width, int two) {
    const int64_t vend = m - (m - peel) % width;
    float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f}, second[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t j = 0; j < peel; j++) lane[0] = lane[0] + a[j] * x[j * k];
    for (int64_t j = peel; j < vend; j += width) {
        for (int l = 0; l < 4; l++) lane[l] = lane[l] + a[j + l] * x[(j + l) * k];
        if (width == 8) {
            float *into = two ? second : lane;
            for (int l = 0; l < 4; l++) into[l] = into[l] + a[j + 4 + l] * x[(j + 4 + l) * k];
        }
    }
    if (two)
        for (int l = 0; l < 4; l++) lane[l] = lane[l] + second[l];
    float s = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (int64_t j = vend; j < m; j++) s = s + a[j] * x[j * k];
    return s;
}

/* The same terms added in order from +0 (strsmlt's scalar paths). */
static float trsm_seq(const float *a, const float *x, int64_t k, int64_t m) {
    float s = 0.0f;
    for (int64_t j = 0; j < m; j++) s = s + a[j] * x[j * k];
    return s;
}

/* The in-block steps MKL's four strsm kernels share (every product rounded; r = 1 / a_ii by DIVPS): A (i, j) at
 * a[i * rs + j * cs], x_i at x[i * xs], S_q a row's sum over the terms outside its block. */
#define TA(i, j) a[(i) * rs + (j) * cs]
#define TX(i) x[(i) * xs]
#define TP(i, j) (TA(i, j) * TX(j))
#define TR(i) (1.0f / TA(i, i))

/* x_i = b - S, or (b - S) * r: a row solved alone (of a pair: its first). */
static void trsm_row(int unit, const float *a, int64_t rs, int64_t cs, float *x, int64_t xs, int64_t i, float s) {
    TX(i) = unit ? TX(i) - s : (TX(i) - s) * TR(i);
}

/* A pair's second row g after its first f: p = A(g, f) * x_f; x_g = b - (p + S), non-unit ((b - p) - S) * r. */
static void trsm_second(int unit, const float *a, int64_t rs, int64_t cs, float *x, int64_t xs, int64_t g, int64_t f,
                        float s) {
    TX(g) = unit ? TX(g) - (TP(g, f) + s) : ((TX(g) - TP(g, f)) - s) * TR(g);
}

/* Rows i0 .. i0 + 3 from the top (strsmlt's U T, strsmlln): unit x0 = b0 - S0, x1 = b1 - (p10 + S1),
 * x2 = b2 - (p21 + (p20 + S2)), x3 = b3 - (p32 + (p31 + (p30 + S3))); non-unit the same times r_q but
 * x3 = ((b3 - p32) - (p31 + (p30 + S3))) * r3. */
static void trsm_block_down(int unit, const float *a, int64_t rs, int64_t cs, float *x, int64_t xs, int64_t i0,
                            const float s[4]) {
    const int64_t i1 = i0 + 1, i2 = i0 + 2, i3 = i0 + 3;
    trsm_row(unit, a, rs, cs, x, xs, i0, s[0]);
    trsm_row(unit, a, rs, cs, x, xs, i1, TP(i1, i0) + s[1]);
    trsm_row(unit, a, rs, cs, x, xs, i2, TP(i2, i1) + (TP(i2, i0) + s[2]));
    const float s3 = TP(i3, i1) + (TP(i3, i0) + s[3]);
    if (unit)
        trsm_row(unit, a, rs, cs, x, xs, i3, TP(i3, i2) + s3);
    else
        trsm_second(unit, a, rs, cs, x, xs, i3, i2, s3);
}

/* Rows i0 + 3 .. i0 from the bottom (strsmlun, strsmlt's L T): unit x3 = b3 - S3, x2 = b2 - (p23 + S2),
 * x1 = b1 - (p12 + (p13 + S1)), x0 = b0 - (p01 + (p02 + (p03 + S0))); non-unit x3 = (b3 - S3) * r3,
 * x2 = ((b2 - p23) - S2) * r2, x1 = ((b1 - p12) - (p13 + S1)) * r1, x0 = ((b0 - p01) - (p02 + (p03 + S0))) * r0. */
static void trsm_block_up(int unit, const float *a, int64_t rs, int64_t cs, float *x, int64_t xs, int64_t i0,
                          const float s[4]) {
    const int64_t i1 = i0 + 1, i2 = i0 + 2, i3 = i0 + 3;
    trsm_row(unit, a, rs, cs, x, xs, i3, s[3]);
    trsm_second(unit, a, rs, cs, x, xs, i2, i3, s[2]);
    trsm_second(unit, a, rs, cs, x, xs, i1, i2, TP(i1, i3) + s[1]);
    trsm_second(unit, a, rs, cs, x, xs, i0, i1, TP(i0, i2) + (TP(i0, i3) + s[0]));
}
#undef TA
#undef TX
#undef TP
#undef TR

/* m terms t_j = a[j * as] * x[j * xs] in two accumulators of alternate terms from +0, added, then an odd last
 * term (strsmlun's and strsmlln's pairs). */
static float trsm_alternate(const float *a, int64_t as, const float *x, int64_t xs, int64_t m) {
    float even = 0.0f, odd = 0.0f;
    const int64_t end = m - m % 2;
    for (int64_t j = 0; j < end; j += 2) {
        even = even + a[j * as] * x[j * xs];
        odd = odd + a[(j + 1) * as] * x[(j + 1) * xs];
    }
    const float s = even + odd;
    return end < m ? s + a[end * as] * x[end * xs] : s;
}

/* The same in 8 accumulators (term j into j % 8) from +0, added 0 to 7 in turn, then the m % 8 terms past
 * the last 8 added from the last down (strsmlun's row 0, strsmlln's last row). */
static float trsm_eight(const float *a, int64_t as, const float *x, int64_t xs, int64_t m) {
    const int64_t end = m - m % 8;
    float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t j = 0; j < end; j++) acc[j % 8] = acc[j % 8] + a[j * as] * x[j * xs];
    float s = acc[0];
    for (int l = 1; l < 8; l++) s = s + acc[l];
    for (int64_t j = m - 1; j >= end; j--) s = s + a[j * as] * x[j * xs];
    return s;
}

/* trsm_dot where the row has at least the peel and a vector of terms, else in order from +0. */
static float trsm_vec(const float *a, const float *x, int64_t xs, int64_t t, int64_t peel, int width, int two) {
    return t < peel + width ? trsm_seq(a, x, xs, t) : trsm_dot(a, x, xs, t, peel, width, two);
}

/* MKL strsm (2024.2, the generic path: measured on a Zen 5) as torch.linalg.solve_triangular calls it
 * with left = True (harness/impl/linalg.py solve_triangular: which calls, shapes and layouts it takes),
 * per matrix of the batch, every right-hand column on its own, n <= 64 rows: one call of MKL's strsmlt or
 * strsmlun kernel (linalg.py's _strsm runs them on 64-row blocks between MKL's sgemm updates). a: row
 * stride lda; x: (n, k) in place, B on entry, element (i, c) at x[i * xs0 + c * xs1]; every product rounded.
 *
 * lower (the op's lower triangle of a C-contiguous A: MKL sees U T, mkl_blas_def_strsmlt, read from its
 *   machine code): a as stored, row i the op's row; align: a's address mod 16 bytes (a multiple of 4);
 *   peel(i) = the floats before row i's address reaches a 16-byte boundary; r_i = 1 / a_ii (DIVPS).
 *   Rows [0, n4), n4 = n - n % 4, in blocks of 4 (i0, its rows q = 0..3), each row's sum S_q over the
 *   i0 terms j < i0: unit: trsm_dot with peel(i0 + 3) and width 4 (trsm_seq where i0 < peel + 4);
 *   non-unit: trsm_dot with no peel. Then, p_qj = a[i0+q][i0+j] * x_{i0+j}:
 *     unit:     x0 = b0 - S0, x1 = b1 - (p10 + S1), x2 = b2 - (p21 + (p20 + S2)),
 *               x3 = b3 - (p32 + (p31 + (p30 + S3)));
 *     non-unit: x0 = (b0 - S0) * r0, x1 = (b1 - (p10 + S1)) * r1, x2 = (b2 - (p21 + (p20 + S2))) * r2,
 *               x3 = ((b3 - p32) - (p31 + (p30 + S3))) * r3.
 *   Then rows n4.. in pairs (i, i + 1), their sums over the i terms j < i: width 8 with peel(i + 1), row
 *   i with two accumulators, row i + 1 with one (trsm_seq for both where i < peel + 8); p = a[i+1][i] * x_i:
 *     unit: x_i = b_i - SA, x_{i+1} = b_{i+1} - (p + SB); non-unit: x_i = (b_i - SA) * r_i,
 *     x_{i+1} = ((b_{i+1} - p) - SB) * r_{i+1}.
 *   A last single row n - 1 (n % 4 odd): width 8, two accumulators, peel(n - 1) (trsm_seq where n - 1 <
 *   peel + 8); x = b - S, or (b - S) * r.
 * upper (the op's upper triangle of the transpose of a C-contiguous A, as autograd's backward passes it;
 *   MKL sees L U N, mkl_blas_def_strsmlun, read from its machine code): U (i, j) = a[j * n + i]; no
 *   alignment reaches a bit. rem = n % 4; rows [rem, n) in blocks of 4 from the last (i0 = n - 4, n - 8,
 *   ...), each row's sum S_q from +0 over j >= i0 + 4 ascending; p_qj = U(i0+q, i0+j) * x_{i0+j}:
 *     unit:     x3 = b3 - S3, x2 = b2 - (S2 + p23), x1 = b1 - ((S1 + p13) + p12),
 *               x0 = b0 - (((S0 + p03) + p02) + p01);
 *     non-unit: x3 = (b3 - S3) * r3, x2 = ((b2 - p23) - S2) * r2, x1 = ((b1 - p12) - (p13 + S1)) * r1,
 *               x0 = ((b0 - p01) - (p02 + (p03 + S0))) * r0.
 *   Then (rem >= 2) the pair of rows lo = rem - 2, hi = rem - 1: each sum over j > hi in two accumulators
 *   (alternate terms from j = hi + 1), added, then an odd last term; p = U(lo, hi) * x_hi: unit: x_hi = b -
 *   S_hi, x_lo = b - (p + S_lo); non-unit: x_hi = (b - S_hi) * r_hi, x_lo = ((b - p) - S_lo) * r_lo.
 *   Then (rem odd) row 0: its sum over j >= 1 in 8 accumulators (term t of them into t % 8), added 0 to 7
 *   in turn, then the n - 1 - (n - 1) % 8 .. terms left over added from the last j down; x = b - S or
 *   (b - S) * r.
 * shape: a (n, n), b and x (n, k) */
void strsm_left(int32_t upper, int32_t unit, int64_t n, int64_t k, const float *a, int64_t lda, int64_t align, float *x,
                int64_t xs0, int64_t xs1) {
    for (int64_t c = 0; c < k; c++) {
        float *xc = x + c * xs1;
        if (upper) { /* U (i, j) at a[j * lda + i] */
            const int64_t rem = n % 4;
            for (int64_t i0 = n - 4; i0 >= rem; i0 -= 4) {
                float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                for (int q = 0; q < 4; q++)
                    for (int64_t j = i0 + 4; j < n; j++) s[q] = s[q] + a[j * lda + i0 + q] * xc[j * xs0];
                trsm_block_up(unit, a, 1, lda, xc, xs0, i0, s);
            }
            if (rem >= 2) {
                const int64_t lo = rem - 2, hi = rem - 1, m = n - hi - 1, j0 = (hi + 1) * lda;
                const float s_lo = trsm_alternate(a + j0 + lo, lda, xc + (hi + 1) * xs0, xs0, m);
                trsm_row(unit, a, 1, lda, xc, xs0, hi, trsm_alternate(a + j0 + hi, lda, xc + (hi + 1) * xs0, xs0, m));
                trsm_second(unit, a, 1, lda, xc, xs0, lo, hi, s_lo);
            }
            if (rem % 2) trsm_row(unit, a, 1, lda, xc, xs0, 0, trsm_eight(a + lda, lda, xc + xs0, xs0, n - 1));
            continue;
        }
#define PEEL(row) ((16 - (align + (row) * lda * 4) % 16) % 16 / 4)
        const int64_t n4 = n - n % 4;
        for (int64_t i0 = 0; i0 < n4; i0 += 4) {
            float s[4];
            for (int q = 0; q < 4; q++) {
                const float *row = a + (i0 + q) * lda;
                s[q] = unit ? trsm_vec(row, xc, xs0, i0, PEEL(i0 + 3), 4, 0) : trsm_dot(row, xc, xs0, i0, 0, 4, 0);
            }
            trsm_block_down(unit, a, lda, 1, xc, xs0, i0, s);
        }
        int64_t i = n4;
        for (; i + 1 < n; i += 2) {
            const int64_t p = PEEL(i + 1);
            const int scalar = i < p + 8;
            const float *ra = a + i * lda, *rb = ra + lda;
            const float sb = scalar ? trsm_seq(rb, xc, xs0, i) : trsm_dot(rb, xc, xs0, i, p, 8, 0);
            trsm_row(unit, a, lda, 1, xc, xs0, i, scalar ? trsm_seq(ra, xc, xs0, i) : trsm_dot(ra, xc, xs0, i, p, 8, 1));
            trsm_second(unit, a, lda, 1, xc, xs0, i + 1, i, sb);
        }
        if (i < n) trsm_row(unit, a, lda, 1, xc, xs0, i, trsm_vec(a + i * lda, xc, xs0, i, PEEL(i), 8, 1));
#undef PEEL
    }
}

/* MKL strsm's other two kernels for torch.linalg.solve_triangular with left = True (linalg.py _strsm runs
 * them on 64-row blocks between MKL's sgemm updates, as strsm_left's), read from their machine code; every
 * product rounded, x (n, k) in place as strsm_left's, r_i = 1 / a_ii (DIVPS), p_qj = A(i0+q, i0+j) * x_{i0+j}.
 *
 * strsm_lower_t: the op's upper triangle of a C-contiguous A (MKL sees L T: mkl_blas_def_strsmlt's lower
 *   branch): U (i, j) = a[i * lda + j], row i's terms j > i contiguous; align: a's address mod 16 bytes;
 *   peel(p) = the floats before the term at a + p reaches a 16-byte boundary. rem = n % 4; rows [rem, n) in
 *   blocks of 4 from the last (i0 = n - 4, n - 8, ...), each row's sum S_q over its t = n - i0 - 4 terms
 *   j >= i0 + 4: non-unit: 4-lane vectors from the first term (t is a multiple of 4), folded
 *   (l0 + l2) + (l1 + l3); unit: the same after a peel to row i0 + 3's first term's boundary into lane 0
 *   (trsm_dot width 4; in order from +0 where t < peel + 4), the tail in order;
 *     non-unit: x3 = (b3 - S3) * r3, x2 = ((b2 - p23) - S2) * r2, x1 = ((b1 - p12) - (p13 + S1)) * r1,
 *               x0 = ((b0 - p01) - (p02 + (p03 + S0))) * r0;
 *     unit:     x3 = b3 - S3, x2 = b2 - (p23 + S2), x1 = b1 - (p12 + (p13 + S1)),
 *               x0 = b0 - (p01 + (p02 + (p03 + S0))).
 *   Then (rem >= 2) the pair lo = rem - 2, hi = rem - 1 over the terms j > hi: width 8 after a peel to row hi's first
 *   term's boundary, row lo with two accumulators, row hi with one (in order from +0 where t < peel + 8);
 *   p = U(lo, hi) * x_hi: x_hi = b - S_hi, x_lo = b - (p + S_lo); non-unit x_hi = (b - S_hi) * r_hi,
 *   x_lo = ((b - p) - S_lo) * r_lo. Then (rem odd) row 0 over j >= 1: width 8, two accumulators, peel to its
 *   first term's boundary (in order where t < peel + 8); x = b - S or (b - S) * r.
 * shape: a (n, n), x (n, k) */
void strsm_lower_t(int32_t unit, int64_t n, int64_t k, const float *a, int64_t lda, int64_t align, float *x,
                   int64_t xs0, int64_t xs1) {
    const int64_t rem = n % 4;
#define PEELAT(off) ((16 - (align + (off) * 4) % 16) % 16 / 4)
    for (int64_t c = 0; c < k; c++) {
        float *xc = x + c * xs1;
        for (int64_t i0 = n - 4; i0 >= rem; i0 -= 4) {
            const int64_t t = n - i0 - 4, p = PEELAT((i0 + 3) * lda + i0 + 4);
            float s[4];
            for (int q = 0; q < 4; q++) {
                const float *row = a + (i0 + q) * lda + i0 + 4;
                s[q] = unit ? trsm_vec(row, xc + (i0 + 4) * xs0, xs0, t, p, 4, 0)
                            : trsm_dot(row, xc + (i0 + 4) * xs0, xs0, t, 0, 4, 0);
            }
            trsm_block_up(unit, a, lda, 1, xc, xs0, i0, s);
        }
        if (rem >= 2) {
            const int64_t lo = rem - 2, hi = rem - 1, t = n - hi - 1, p = PEELAT(hi * lda + hi + 1);
            const float *xt = xc + (hi + 1) * xs0;
            const float s_lo = trsm_vec(a + lo * lda + hi + 1, xt, xs0, t, p, 8, 1);
            trsm_row(unit, a, lda, 1, xc, xs0, hi, trsm_vec(a + hi * lda + hi + 1, xt, xs0, t, p, 8, 0));
            trsm_second(unit, a, lda, 1, xc, xs0, lo, hi, s_lo);
        }
        if (rem % 2) trsm_row(unit, a, lda, 1, xc, xs0, 0, trsm_vec(a + 1, xc + xs0, xs0, n - 1, PEELAT(1), 8, 1));
    }
#undef PEELAT
}

/* strsm_lln: the op's lower triangle of a transposed C-contiguous A (MKL sees L L N: mkl_blas_def_strsmlln,
 *   scalar code): L (i, j) = a[j * lda + i]; no alignment reaches a bit. Rows [0, n4), n4 = n - n % 4, in
 *   blocks of 4 from the top, each row's sum S_q from +0 over j < i0 in order;
 *     unit:     x0 = b0 - S0, x1 = b1 - (p10 + S1), x2 = b2 - (p21 + (p20 + S2)),
 *               x3 = b3 - (p32 + (p31 + (p30 + S3)));
 *     non-unit: x0 = (b0 - S0) * r0, x1 = (b1 - (p10 + S1)) * r1, x2 = (b2 - (p21 + (p20 + S2))) * r2,
 *               x3 = ((b3 - p32) - (p31 + (p30 + S3))) * r3.
 *   Then (n % 4 >= 2) the pair i = n4, i + 1: each sum over j < i in two accumulators (even and odd j),
 *   added, then an odd last term; p = L(i + 1, i) * x_i: x_i = b - S_i, x_{i+1} = b - (p + S_{i+1});
 *   non-unit x_i = (b - S_i) * r_i, x_{i+1} = ((b - p) - S_{i+1}) * r_{i+1}. Then (n odd) row n - 1: its
 *   sum over j < n - 1 in 8 accumulators (term j into j % 8), added 0 to 7 in turn, then the terms past the
 *   last 8 added from the last down; x = b - S or (b - S) * r.
 * shape: a (n, n), x (n, k) */
void strsm_lln(int32_t unit, int64_t n, int64_t k, const float *a, int64_t lda, float *x, int64_t xs0, int64_t xs1) {
    const int64_t n4 = n - n % 4;
    for (int64_t c = 0; c < k; c++) {
        float *xc = x + c * xs1;
        for (int64_t i0 = 0; i0 < n4; i0 += 4) {
            float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int64_t j = 0; j < i0; j++)
                for (int q = 0; q < 4; q++) s[q] = s[q] + a[j * lda + i0 + q] * xc[j * xs0];
            trsm_block_down(unit, a, 1, lda, xc, xs0, i0, s);
        }
        if (n % 4 >= 2) {
            const int64_t i = n4;
            const float s_second = trsm_alternate(a + i + 1, lda, xc, xs0, i);
            trsm_row(unit, a, 1, lda, xc, xs0, i, trsm_alternate(a + i, lda, xc, xs0, i));
            trsm_second(unit, a, 1, lda, xc, xs0, i + 1, i, s_second);
        }
        if (n % 2) trsm_row(unit, a, 1, lda, xc, xs0, n - 1, trsm_eight(a + n - 1, lda, xc, xs0, n - 1));
    }
}

/* MKL strsm's right-side kernel (torch.linalg.solve_triangular with left = False: MKL's side R on B's
 * column-major copy; linalg.py _strsm_right runs it on blocks of up to 64 columns between MKL's sgemm
 * updates), mkl_blas_def_strsm_i, read from its machine code: reference BLAS's loops, vectors across B's rows
 * (each element on its own), no product skipped. X M = B for the op's triangle M (i, j) at a[i * rs + j * cs],
 * n columns, m rows of X, element (r, c) at x[r * xs0 + c * xs1]: columns from the first for an upper M,
 * from the last for a lower one; column j: x_j = b_j - M(i, j) * x_i, each product rounded and subtracted in
 * turn over the columns i solved before it, ascending i (descending for the op's lower triangle of a
 * C-contiguous A: MKL's R U T loops over its columns from the last), then (non-unit) x_j * (1 / M(j, j)) (DIVSS).
 * shape: a (n, n), x (m, n) */
void strsm_right(int32_t upper, int32_t descending, int32_t unit, int64_t n, int64_t m, const float *a, int64_t rs,
                 int64_t cs, float *x, int64_t xs0, int64_t xs1) {
    for (int64_t t = 0; t < n; t++) {
        const int64_t j = upper ? t : n - 1 - t, lo = upper ? 0 : j + 1, hi = upper ? j : n;
        const float r = 1.0f / a[j * rs + j * cs];
        for (int64_t row = 0; row < m; row++) {
            float *xr = x + row * xs0;
            float v = xr[j * xs1];
            for (int64_t q = 0; q < hi - lo; q++) {
                const int64_t i = descending ? hi - 1 - q : lo + q;
                v = v - a[i * rs + j * cs] * xr[i * xs1];
            }
            xr[j * xs1] = unit ? v : v * r;
        }
    }
}

/* ------------------------------------------------------------------------------ strsv (one right-hand column)
 * MKL strsv (2024.2, the generic path: measured on a Zen 5), what MKL's strsm runs for one right-hand column
 * (mkl_blas_def_xstrsv, its calls traced with gdb), its kernels read from their machine code; x (n) in place,
 * B on entry; every product rounded, no FMA; the arrays at torch's addresses mod 16 bytes (their own
 * addresses give MKL's alignment). MKL sees A's memory as column-major: the op's lower triangle of a
 * C-contiguous A is U T, its upper triangle L T; of A's transpose (autograd's backward of those) U N and L N.
 *
 * Rows in blocks of 32, from the top for U T and L N, from the bottom for L T and U N. Transposed (U T, L T):
 * before each block but the first MKL's gemv 'T' of all rows solved, x[blk] = x[blk] - A[blk, solved] @
 * x[solved] (alpha -1, beta 1: csrc/mkl_sgemm.h mkl_gemv_rows), then mkl_blas_def_strsv_utu / utn (strsv_ut),
 * resp. ltu / ltn (strsv_lt) on the block. Not transposed (U N, L N): unu / unn (strsv_un), resp. lnu / lnn
 * (strsv_ln) on the block, then MKL's gemv 'N' of the block's columns onto all rows still to solve
 * (mkl_gemv_n).
 * shape: a (n, n) columns (MKL's) lda apart, x (n) */

/* The sums of a pair of rows of strsv_ut / lt over their t terms (ra, rb: the rows' terms, xt: the solved x's
 * they multiply), each from its b (sa, sb on entry): the products subtracted in order where t < 8 or t < peel +
 * 8; else the peel's terms in order, then steps of 8 terms, row a in two 4-lane accumulators (b in lane 0 of
 * the first; terms 0-3 of a step from it, 4-7 from the second), row b in one (b in lane 0; terms 0-3, then 4-7
 * of each step), the accumulators added lane by lane, folded (l0 + l2) + (l1 + l3), then the tail's terms in
 * order. single: row a alone (row b none). */
static void strsv_pair(const float *ra, const float *rb, const float *xt, int64_t t, int64_t peel, int single,
                       float *sa, float *sb) {
    int64_t j = 0;
    if (t >= 8 && t >= peel + 8) {
        for (; j < peel; j++) {
            *sa = *sa - ra[j] * xt[j];
            if (!single) *sb = *sb - rb[j] * xt[j];
        }
        float la[4] = {*sa, 0.0f, 0.0f, 0.0f}, la2[4] = {0.0f, 0.0f, 0.0f, 0.0f}, lb[4] = {*sb, 0.0f, 0.0f, 0.0f};
        for (const int64_t vend = t - (t - peel) % 8; j < vend; j += 8)
            for (int l = 0; l < 4; l++) {
                la[l] = la[l] - ra[j + l] * xt[j + l];
                la2[l] = la2[l] - ra[j + 4 + l] * xt[j + 4 + l];
                if (single) continue;
                lb[l] = lb[l] - rb[j + l] * xt[j + l];
                lb[l] = lb[l] - rb[j + 4 + l] * xt[j + 4 + l];
            }
        for (int l = 0; l < 4; l++) la[l] = la[l] + la2[l];
        *sa = (la[0] + la[2]) + (la[1] + la[3]);
        *sb = (lb[0] + lb[2]) + (lb[1] + lb[3]);
    }
    for (; j < t; j++) {
        *sa = *sa - ra[j] * xt[j];
        if (!single) *sb = *sb - rb[j] * xt[j];
    }
}

/* strsv_utu / utn on m rows (row i at a + i * lda, the op's row): rows in pairs (i, i + 1) from the top over
 * their i earlier terms (strsv_pair, row i as row a; peel: the floats before row i + 1's address reaches a
 * 16-byte boundary); x_i = S_i (non-unit: S_i / a_ii, DIVSS), x_{i+1} = S_{i+1} - a[i+1][i] * x_i (non-unit:
 * then / a_{i+1,i+1}). An odd last row alone, its peel running to x's 16-byte boundary. */
static void strsv_ut(int unit, int64_t m, const float *a, int64_t lda, float *x) {
    for (int64_t i = 0; i < m; i += 2) {
        const int single = i == m - 1;
        const float *ra = a + i * lda, *rb = single ? ra : ra + lda;
        float sa = x[i], sb = single ? 0.0f : x[i + 1];
        strsv_pair(ra, rb, x, i, mkl_peel(mkl_off(single ? (const float *)x : rb)), single, &sa, &sb);
        x[i] = unit ? sa : sa / ra[i];
        if (single) break;
        sb = sb - rb[i] * x[i];
        x[i + 1] = unit ? sb : sb / rb[i + 1];
    }
}

/* strsv_ltu / ltn on m rows (row i at a + i * lda, the op's row): strsv_ut from the bottom: rows in pairs (hi,
 * lo = hi - 1) from the last over their terms j > hi ascending (strsv_pair, row hi as row a; peel: the floats
 * before row lo's term hi + 1 reaches a 16-byte boundary); x_hi = S_hi (non-unit: / a_hi,hi), x_lo = S_lo -
 * a[lo][hi] * x_hi (non-unit: then / a_lo,lo). An odd first row 0 last, alone, its peel running to x[1]'s
 * boundary. */
static void strsv_lt(int unit, int64_t m, const float *a, int64_t lda, float *x) {
    for (int64_t hi = m - 1; hi >= 0; hi -= 2) {
        const int single = hi == 0;
        const int64_t lo = single ? 0 : hi - 1;
        const float *ra = a + hi * lda + hi + 1, *rb = a + lo * lda + hi + 1, *xt = x + hi + 1;
        float sa = x[hi], sb = single ? 0.0f : x[lo];
        strsv_pair(ra, rb, xt, m - 1 - hi, mkl_peel(mkl_off(single ? xt : rb)), single, &sa, &sb);
        x[hi] = unit ? sa : sa / a[hi * lda + hi];
        if (single) break;
        sb = sb - a[lo * lda + hi] * x[hi];
        x[lo] = unit ? sb : sb / a[lo * lda + lo];
    }
}

/* strsv_unu / unn (U (i, j) at a[j * lda + i]) on m rows: columns from the last, x_j = x_j (non-unit: / u_jj,
 * DIVSS), then every row above it x_i = x_i - u_ij * x_j (an axpy: each element on its own). */
static void strsv_un(int unit, int64_t m, const float *a, int64_t lda, float *x) {
    for (int64_t j = m - 1; j >= 0; j--) {
        if (!unit) x[j] = x[j] / a[j * lda + j];
        for (int64_t i = 0; i < j; i++) x[i] = x[i] - a[j * lda + i] * x[j];
    }
}

/* strsv_lnu / lnn (L (i, j) at a[j * lda + i]) on m rows: strsv_un from the top: columns from the first, then
 * every row below. */
static void strsv_ln(int unit, int64_t m, const float *a, int64_t lda, float *x) {
    for (int64_t j = 0; j < m; j++) {
        if (!unit) x[j] = x[j] / a[j * lda + j];
        for (int64_t i = j + 1; i < m; i++) x[i] = x[i] - a[j * lda + i] * x[j];
    }
}

#define STRSV_BLOCK 32

/* upper, trans: the triangle MKL sees and whether it solves with its transpose (above) */
void strsv_left(int32_t upper, int32_t trans, int32_t unit, int64_t n, const float *a, int64_t lda, float *x) {
    const int down = upper == trans; /* U T and L N from the top, L T and U N from the bottom */
    for (int64_t b = 0; b < n; b += STRSV_BLOCK) {
        const int64_t r0 = down ? b : (n - b > STRSV_BLOCK ? n - b - STRSV_BLOCK : 0);
        const int64_t r1 = down ? (n - b > STRSV_BLOCK ? b + STRSV_BLOCK : n) : n - b, m = r1 - r0;
        sgemm_t g = {.alpha = -1.0f, .beta = 1.0f, .threads = 1, .cpublas = 1};
        if (trans) { /* first the gemv 'T' of the rows solved: x[r0:r1] -= A[r0:r1, solved] @ x[solved] */
            const int64_t t0 = down ? 0 : r1, terms = down ? r0 : n - r1;
            const float *mat = a + r0 * lda + t0;
            if (terms) {
                g.K = terms;
                g.C = x + r0;
                mkl_gemv_rows(&g, m, mat, lda, mkl_off(mat), x + t0, 1, mkl_off(x + t0), 1);
            }
            (upper ? strsv_ut : strsv_lt)(unit, m, a + r0 * lda + r0, lda, x + r0);
            continue;
        }
        (upper ? strsv_un : strsv_ln)(unit, m, a + r0 * lda + r0, lda, x + r0);
        const int64_t o0 = down ? r1 : 0, outs = down ? n - r1 : r0; /* then the gemv 'N' onto the rows left */
        if (!outs) continue;
        g.M = outs;
        g.N = 1;
        g.K = m;
        g.A = a + r0 * lda + o0;
        g.sa0 = 1;
        g.sa1 = lda;
        g.B = x + r0;
        g.sb0 = 1;
        g.C = x + o0;
        g.ldc = 1;
        g.c_off = mkl_off(x + o0);
        mkl_gemv_n(&g);
    }
}
