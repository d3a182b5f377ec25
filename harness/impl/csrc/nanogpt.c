/* nanoGPT's matrix products, fast: the MKL sgemm model of csrc/gemm.c with cache blocking and
 * threads, for the shapes of a training step (harness/impl/nanogpt.py).
 *
 * Bits: identical to csrc/gemm.c's gemm (MKL 2024.2 sgemm, its main kernel): every element of
 * C = (beta ? C : 0) + A @ B is K cut into blocks of kc = K (K <= 192), K/2 (K <= 384) or 192,
 * one fused chain per block over k increasing from 0 (t = fmaf(a[i,k], b[k,j], t)), then
 * c = c + t block by block (beta = 0: c starts as the first block's t). How M and N are tiled,
 * packed and split between threads changes no bit: each element's chain is the same.
 *
 * Speed: GotoBLAS loop order (k block, NC columns of B packed once, MC rows of A packed into L2,
 * a 6x16 AVX2 register tile), rows of C split between pthreads.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "common.h"

#define MR 6
#define NR 16
#define MC 96   /* rows of A packed per block: MC x 192 floats = 72 KiB (L2) */
#define NC 2048 /* columns of B packed per block */
#define KC_MAX 192

/* MKL's k block (see csrc/gemm.c) */
static int64_t mkl_kc(int64_t K) {
    if (K <= KC_MAX) return K;
    return K / 2 < KC_MAX ? K / 2 : KC_MAX;
}

#if defined(__AVX__)
#include <immintrin.h>
#endif

#if defined(__FMA__) && defined(__AVX__)
/* t[MR][NR] = fused chain over kc of ap[k][r] * bp[k][j] (the same as csrc/gemm.c's tile_kernel). */
static void tile_kernel(int64_t kc, const float *restrict ap, const float *restrict bp, float *restrict t) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int64_t k = 0; k < kc; k++) {
        const __m256 b0 = _mm256_loadu_ps(bp + k * NR), b1 = _mm256_loadu_ps(bp + k * NR + 8);
        const float *a = ap + k * MR;
#define ROW(r, x0, x1)                                  \
    {                                                   \
        const __m256 ar = _mm256_broadcast_ss(a + (r)); \
        x0 = _mm256_fmadd_ps(ar, b0, x0);               \
        x1 = _mm256_fmadd_ps(ar, b1, x1);               \
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

/* Pack rows x kc of X (element (r,k) at X[r*s0 + k*s1]) into zero-padded panels of w rows:
 * dst[panel][k][r % w]. */
static void pack(int64_t rows, int64_t kc, const float *X, int64_t s0, int64_t s1, int64_t w, float *dst) {
    for (int64_t p0 = 0; p0 < rows; p0 += w) {
        const int64_t n = rows - p0 < w ? rows - p0 : w;
        float *d = dst + p0 * kc;
        for (int64_t k = 0; k < kc; k++) {
            const float *x = X + p0 * s0 + k * s1;
            float *dk = d + k * w;
            int64_t r = 0;
            for (; r < n; r++) dk[r] = x[r * s0];
            for (; r < w; r++) dk[r] = 0.0f;
        }
    }
}

typedef struct {
    int64_t M, N, K;
    const float *A;
    int64_t sa0, sa1;
    const float *B;
    int64_t sb0, sb1;
    float *C;
    int64_t ldc;
    int32_t beta;
} mm_t;

/* One block product: C[mc, nc] (+)= A[mc, kb] @ B[kb, nc], both packed; first: c = t, else c = c + t. */
static void block_update(const mm_t *g, int64_t i0, int64_t mc, int64_t j0, int64_t nc, int64_t kb,
                         const float *ap, const float *bp, int first) {
    float t[MR * NR];
    for (int64_t jr = 0; jr < nc; jr += NR) {
        const int64_t nj = nc - jr < NR ? nc - jr : NR;
        for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t ni = mc - ir < MR ? mc - ir : MR;
            tile_kernel(kb, ap + ir * kb, bp + jr * kb, t);
#if defined(__AVX__)
            if (nj == NR) { /* the same adds, 8 lanes at a time */
                for (int64_t r = 0; r < ni; r++) {
                    float *c = g->C + (i0 + ir + r) * g->ldc + j0 + jr;
                    const float *tr = t + r * NR;
                    for (int h = 0; h < NR; h += 8) {
                        const __m256 tv = _mm256_loadu_ps(tr + h);
                        _mm256_storeu_ps(c + h, first ? tv : _mm256_add_ps(_mm256_loadu_ps(c + h), tv));
                    }
                }
                continue;
            }
#endif
            for (int64_t r = 0; r < ni; r++) {
                float *c = g->C + (i0 + ir + r) * g->ldc + j0 + jr;
                const float *tr = t + r * NR;
                if (first)
                    for (int64_t j = 0; j < nj; j++) c[j] = tr[j];
                else
                    for (int64_t j = 0; j < nj; j++) c[j] = c[j] + tr[j];
            }
        }
    }
}

/* Serial blocked sgemm of rows [m0, m1) of C. */
static void gemm_rows(const mm_t *g, int64_t m0, int64_t m1) {
    if (m1 <= m0 || g->N <= 0) return;
    const int64_t kc = mkl_kc(g->K);
    const int64_t ncmax = g->N < NC ? g->N : NC;
    float *bp = malloc(sizeof(float) * (size_t)(divup(ncmax, NR) * NR * kc));
    float *ap = malloc(sizeof(float) * (size_t)(divup(MC, MR) * MR * kc));
    for (int64_t k0 = 0; k0 < g->K; k0 += kc) {
        const int64_t kb = k0 + kc < g->K ? kc : g->K - k0;
        const int first = k0 == 0 && !g->beta;
        for (int64_t j0 = 0; j0 < g->N; j0 += NC) {
            const int64_t nc = g->N - j0 < NC ? g->N - j0 : NC;
            pack(nc, kb, g->B + j0 * g->sb1 + k0 * g->sb0, g->sb1, g->sb0, NR, bp);
            for (int64_t i0 = m0; i0 < m1; i0 += MC) {
                const int64_t mc = m1 - i0 < MC ? m1 - i0 : MC;
                pack(mc, kb, g->A + i0 * g->sa0 + k0 * g->sa1, g->sa0, g->sa1, MR, ap);
                block_update(g, i0, mc, j0, nc, kb, ap, bp, first);
            }
        }
    }
    free(ap);
    free(bp);
}

typedef struct {
    const mm_t *g;
    int64_t m0, m1;
} job_t;

static void *run_job(void *arg) {
    const job_t *j = arg;
    gemm_rows(j->g, j->m0, j->m1);
    return NULL;
}

/* nanogpt_gemm: C[M,N] (row stride ldc) = (beta ? C : 0) + A[M,K] @ B[K,N]; A (i,k) at
 * A[i*sa0 + k*sa1], B (k,j) at B[k*sb0 + j*sb1]. K <= 0 is left to the caller (not used here).
 * Rows of C are split between `threads` pthreads in multiples of MR. */
void nanogpt_gemm(int64_t M, int64_t N, int64_t K, const float *A, int64_t sa0, int64_t sa1, const float *B,
                  int64_t sb0, int64_t sb1, float *C, int64_t ldc, int32_t beta, int32_t threads) {
    const mm_t g = {M, N, K, A, sa0, sa1, B, sb0, sb1, C, ldc, beta};
    int64_t nt = threads < 1 ? 1 : threads;
    const int64_t panels = divup(M, MR);
    if (nt > panels) nt = panels;
    if (nt <= 1 || (int64_t)M * N * K < (int64_t)1 << 21) {
        gemm_rows(&g, 0, M);
        return;
    }
    pthread_t tid[64];
    job_t jobs[64];
    if (nt > 64) nt = 64;
    const int64_t per = divup(panels, nt) * MR;
    for (int64_t t = 0; t < nt; t++) {
        jobs[t] = (job_t){&g, t * per < M ? t * per : M, (t + 1) * per < M ? (t + 1) * per : M};
        if (t) pthread_create(&tid[t], NULL, run_job, &jobs[t]);
    }
    run_job(&jobs[0]);
    for (int64_t t = 1; t < nt; t++) pthread_join(tid[t], NULL);
}

typedef struct {
    int64_t nb, M, N, K;
    const float *A;
    int64_t sab, sa0, sa1;
    const float *B;
    int64_t sbb, sb0, sb1;
    float *C;
    int64_t t0, t1;
} batch_t;

static void *run_batch(void *arg) {
    const batch_t *b = arg;
    for (int64_t i = b->t0; i < b->t1; i++) {
        const mm_t g = {b->M, b->N, b->K, b->A + i * b->sab, b->sa0, b->sa1, b->B + i * b->sbb,
                        b->sb0, b->sb1, b->C + i * b->M * b->N, b->N, 0};
        gemm_rows(&g, 0, b->M);
    }
    return NULL;
}

/* nanogpt_bmm: C[i] = A[i] @ B[i] for i < nb, C (nb,M,N) contiguous; A[i] (r,k) at
 * A[i*sab + r*sa0 + k*sa1], B[i] (k,j) at B[i*sbb + k*sb0 + j*sb1]. The shapes must be ones MKL
 * sends to its main kernel (nanogpt.py checks). Items are split between `threads` pthreads. */
void nanogpt_bmm(int64_t nb, int64_t M, int64_t N, int64_t K, const float *A, int64_t sab, int64_t sa0, int64_t sa1,
                 const float *B, int64_t sbb, int64_t sb0, int64_t sb1, float *C, int32_t threads) {
    int64_t nt = threads < 1 ? 1 : threads;
    if (nt > nb) nt = nb;
    if (nt > 64) nt = 64;
    pthread_t tid[64];
    batch_t jobs[64];
    const int64_t per = divup(nb, nt);
    for (int64_t t = 0; t < nt; t++) {
        jobs[t] = (batch_t){nb, M, N, K, A, sab, sa0, sa1, B, sbb, sb0, sb1, C,
                            t * per < nb ? t * per : nb, (t + 1) * per < nb ? (t + 1) * per : nb};
        if (t) pthread_create(&tid[t], NULL, run_batch, &jobs[t]);
    }
    if (nt > 0) run_batch(&jobs[0]);
    for (int64_t t = 1; t < nt; t++) pthread_join(tid[t], NULL);
}
