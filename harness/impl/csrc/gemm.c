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
 *   BMM_SMALL_FUSED (aarch64: b's rows contiguous and N >= 2, the loop over j in vectors with fmla;
 *     or a's rows not contiguous, the scalar loop, contracted): every step fused, acc = fma(a, b, acc);
 *   BMM_SMALL_K_VECTOR (aarch64 otherwise: b a transposed view or N == 1, a's rows contiguous: the
 *     loop over k in vectors of four with an in-order sum): the products of k < 4*floor(K/4)
 *     rounded and added in k order, the K % 4 left fused.
 * Measured on emulated N1: 580 of 580 random contiguous products (N = 2..13, K = 1..8), 60 of 60
 * with N = 1, 909 of 909 with a, b or both transposed (docs/impl/kernels.md). a (Bt,M,K), b (Bt,K,N),
 * c (Bt,M,N) contiguous copies. */
enum { BMM_SMALL_UNFUSED = 0, BMM_SMALL_FUSED = 1, BMM_SMALL_K_VECTOR = 2 };
void bmm_small(int64_t Bt, int64_t M, int64_t N, int64_t K, const float *a, const float *b, float *c, int32_t mode) {
    const int64_t kv = mode == BMM_SMALL_K_VECTOR ? K / 4 * 4 : mode == BMM_SMALL_UNFUSED ? K : 0;
    for (int64_t p = 0; p < Bt; p++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                float acc = 0.0f;
                for (int64_t k = 0; k < K; k++) {
                    const float x = a[(p * M + i) * K + k], y = b[(p * K + k) * N + j];
                    if (k >= kv) {
                        acc = fmaf(x, y, acc);
                        continue;
                    }
                    float prod = x * y;
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

/* MKL strsm (2024.2, the generic path: measured on a Zen 5) as torch.linalg.solve_triangular calls it
 * with left = True, unitriangular = True (harness/impl/linalg.py solve_triangular: which calls, shapes
 * and layouts it takes), per matrix of the batch, every right-hand column on its own (no thread count
 * reaches a bit). a: the n x n matrix (n a multiple of 4, at most 64) as stored C-contiguous, the
 * triangle the op reads; b, x: (n, k) C-contiguous. Every product rounded, every sum a plain add:
 *   lower (op's upper = False on a C-contiguous A; MKL sees its transpose, L U T U): rows ascending in
 *     blocks of 4; row i's sum over the rows of earlier blocks, j < i - i % 4, in 4 lanes (j % 4), each
 *     from +0, the lanes added (l0 + l2) + (l1 + l3); then the terms of its own block's earlier rows
 *     added in order; x_i = b_i - sum.
 *   upper (op's upper = True on the transpose of a C-contiguous A, as autograd's backward passes it;
 *     MKL sees L U N U): rows descending in blocks of 4 counted from the last row; row i's sum, from
 *     +0, over the rows of later blocks ascending, then over its own block's later rows descending (as
 *     they were solved); x_i = b_i - sum. U (i, j) = a[j * n + i].
 * shape: a (n, n), b and x (n, k) */
void strsm_unit(int32_t upper, int64_t n, int64_t k, const float *a, const float *b, float *x) {
    for (int64_t c = 0; c < k; c++) {
        for (int64_t step = 0; step < n; step++) {
            float s = 0.0f;
            if (!upper) {
                const int64_t i = step, q0 = i - i % 4;
                float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                for (int64_t j = 0; j < q0; j++) lane[j % 4] = lane[j % 4] + a[i * n + j] * x[j * k + c];
                s = (lane[0] + lane[2]) + (lane[1] + lane[3]);
                for (int64_t j = q0; j < i; j++) s = s + a[i * n + j] * x[j * k + c];
                x[i * k + c] = b[i * k + c] - s;
            } else {
                const int64_t i = n - 1 - step, top = i + (n - 1 - i) % 4;
                for (int64_t j = top + 1; j < n; j++) s = s + a[j * n + i] * x[j * k + c];
                for (int64_t j = top; j > i; j--) s = s + a[j * n + i] * x[j * k + c];
                x[i * k + c] = b[i * k + c] - s;
            }
        }
    }
}
