/* MKL 2024.2 sgemm as torch 2.13.0+cpu calls it, float32, bit for bit: the one model of it that
 * every impl kernel uses (csrc/gemm.c, csrc/attention.c).
 *
 * Reproduces sgemm_ as at::native::cpublas::gemm calls it: from at::mm / at::addmm
 * (addmm_impl_cpu_), at::bmm (bmm_out_or_baddbmm_: a batch of one is a plain sgemm, more items
 * MKL's batched gemm), and from ATen's CPU flash attention (FlashAttentionKernel.cpp, inside an
 * OpenMP region: MKL runs one thread there). MKL runs its "Intel(R) Architecture processors"
 * path on the fixtures' AMD Zen3 host whatever MKL_ENABLE_INSTRUCTIONS says; measured there per
 * element (pair cancellation for the summation tree, random data to tell fused from unfused
 * steps, operands placed at chosen offsets mod 16 bytes), with MKL on 1 or 2 threads; the thread
 * split read with a debugger from the per-thread calls of MKL's own serial sgemm
 * (mkl_blas_xsgemm_bdz under mkl_blas_sgemm_2D_bsrc: each thread's block of C), 2 to 64 threads.
 *
 * In torch's row-major terms (MKL is called with the transposed problem: its m = N, its n = M,
 * its A = our B, its B = our A):
 *   C[M,N] (row stride ldc) = alpha * A[M,K] @ B[K,N] + beta * C,
 *   A (i,k) at A[i*sa0 + k*sa1], B (k,j) at B[k*sb0 + j*sb1]; ta / tb: A / B handed to BLAS
 *   stored transposed (column-major).
 * Which kernel (mkl_sgemm routes; the measured rules):
 *   K == 1, B row-major (generic path: or M, N > 1): MKL's rank-1 update, the axpy form (below) on
 *     every element; the generic path's N == 1 is the gemv below.
 *   gemv (one thread at any thread count; not for batch items, except M == 1 with A not transposed):
 *     N == 1, A row-major, M > 1 or B row-major, or M == 1 with B transposed: a dot product per
 *       output with an alignment head, another form with a strided vector or output (mkl_gemv_rows);
 *     N == 1, A transposed: the axpy form, C's alignment peel running down the column (mkl_gemv_n).
 *   (torch's cpublas::gemm sets the leading dimensions of dimensions of size 1 before: the caller's.)
 *   Otherwise, with 2 or more threads and a product MKL splits (mkl_unsplit), C is cut into a grid
 *   of blocks (mkl_grid, mkl_threaded) and each block is a problem of its own; with 1 thread, for a
 *   batch item or a product it does not split, C is one block. Per block (mkl_serial):
 *     K == 0, or N >= 12 and M >= 4: the main kernel on every element (mkl_main);
 *     else (N < 12 or M < 4) a small kernel on every row.
  * The small kernels (SSE code, unfused: each product rounded, then added) by layout:
 *   A row-major, B transposed (x @ W.T): a dot product in 4 or 8 lanes (mkl_dot);
 *   both transposed: one chain in k order;
 *   B row-major: the axpy form (mkl_axpy): c = beta*C (0 for beta = 0), then c + (alpha*a)*b in
 *     k order, except the elements before C's row reaches a 16-byte boundary (the alignment peel).
 * So small products depend on the operands' and C's addresses mod 16 bytes in torch's buffers:
 * the caller passes those offsets (a_off, b_off, c_off), not the impl's own pointers.
 * alpha (flash attention's scale): the main kernel scales B's elements (rounded) as it packs
 * them; the axpy form scales A's elements; the dot, chain and gemv forms scale the sum.
 * Unverified: alpha not a power of two outside the main and K == 1 forms (measured wrong in the
 * gemv 'N' form of at::mm and some K == 1 forms: linalg refuses it; MKL_CBWR=COMPATIBLE's own rules
 * below are measured, and the Intel AVX-512 path's, mkl_avx512_sgemm); beta other than 0 or 1. MKL's
 * batched gemm (at::bmm of 2 or more items) may cut items into parts on 3 or more threads:
 * mkl_sgemm_batch_item (end of this file).
 */
#ifndef PARITY_MKL_SGEMM_H
#define PARITY_MKL_SGEMM_H

#include <pthread.h>
#include <stdlib.h>

#include "common.h"

typedef struct {
    int64_t M, N, K;
    float alpha, beta;
    const float *A;
    int64_t sa0, sa1;
    const float *B;
    int64_t sb0, sb1;
    float *C;
    int64_t ldc;
    int ta, tb;                  /* A / B handed to BLAS stored transposed */
    int threads;                 /* threads MKL may use: 1 inside an OpenMP region */
    int batched;                 /* one item of MKL's batched gemm (at::bmm of more than one item) */
    int part;                    /* a part of such an item (mkl_sgemm_batch_item): MKL's serial sgemm, no gemv */
    int64_t item_m, item_n;      /* a part's item's M and N (the AVX-512 path's K blocks follow them) */
    int wide_part;               /* one thread's own sgemm of a 2-thread call: its part of K, or all of K
                                  * where MKL cuts C (the AVX-512 path: the wide form, K blocks of 384
                                  * from its start) */
    int64_t a_off, b_off, c_off; /* &A[0,0], &B[0,0], &C[0,0] in torch's buffers: floats past a 16-byte boundary */
    int workers;                 /* pthreads computing the main kernel (speed only: no bit depends on it; 0 = 1) */
    int cbwr;                    /* MKL_CBWR=COMPATIBLE: MKL's vendor-independent kernels (mkl_cbwr_sgemm) */
    int avx2;                    /* MKL's "Intel(R) AVX2 enabled processors" path (mkl_avx2_sgemm) */
    int avx2_kernel;             /* that path's kernel for a thread's part: 0 = the one-thread choice, else AVX2_NARROW/WIDE */
    int sse42;                   /* MKL's "Intel(R) SSE4.2 enabled processors" path (mkl_sse42_sgemm) */
    int avx512;                  /* MKL's "Intel(R) AVX-512 enabled processors" path (mkl_avx512_sgemm) */
    int region_threads;          /* a call inside an OpenMP region (threads 1): the thread count MKL decides by there */
    int thread_part;             /* one thread's block of the SSE4.2 path's threaded sgemm (mkl_sse42_run) */
    int cpublas;                 /* a call from ATen's cpublas::gemm (flash attention: attention.c blas_sgemm), whose
                                  * strided and 1 x 1 gemv forms on the generic path are measured against sgemm_
                                  * called so; at::mm's (gemm.c) keep the forms measured against torch.mm */
} sgemm_t;

/* floats past a 16-byte boundary of an address */
static inline int64_t mkl_off(const void *p) { return (int64_t)(((uintptr_t)p / sizeof(float)) % 4); }

/* products short of a 16-byte boundary at offset off (0 to 3) */
static inline int64_t mkl_peel(int64_t off) { return (4 - off % 4) % 4; }

/* The small and gemv forms' sums start from +0 (so never end as -0), except a plain call's product
 * with K == 1 and M, N > 1, whose element is the product itself (its -0 kept). Measured with
 * products that are all -0, on the generic path and on the Intel SSE4.2, AVX2 and AVX-512 paths
 * (there 2 x 3 to 30 x 30, every layout, 1 and 2 threads; K >= 2 and a single row or column end as
 * +0, as do the items of a batch: 48 batches of 2 and 3 items per path; on the generic path 2 to 5
 * items of K = 1 and M, N 2 to 65 with zeros of both signs against negative operands, 1 to 8 threads,
 * at::bmm's +0 where the product is -0). The generic and SSE4.2 paths' gemv 'T'
 * keeps its chain's own zero (mkl_gemv_t_store), the AVX2 path's gemv forms have their own
 * (mkl_avx2_dot, mkl_avx2_gemv). */
static inline int mkl_zero_start(const sgemm_t *g) { return !(g->K == 1 && g->M > 1 && g->N > 1 && !g->batched); }

/* The same on MKL's Intel paths, where only a plain call with beta = 0 keeps the product itself. */
static inline int mkl_intel_product_kept(const sgemm_t *g) { return !mkl_zero_start(g) && g->beta == 0.0f; }

/* c = alpha * s + beta * C, the dot, chain and gemv forms' store (s + 0: the sum from +0) */
static inline void mkl_store(const sgemm_t *g, float *c, float s) {
    const float v = g->alpha * (mkl_zero_start(g) ? s + 0.0f : s);
    *c = g->beta != 0.0f ? v + g->beta * *c : v;
}

/* ------------------------------------------------------------------------------ main kernel
 * K is cut into blocks of kc = K (K <= 192), K/2 (192 < K <= 384) or 192 (K > 384), the last
 * block taking what is left (K = 193: 96, 96, 1; K = 512: 192, 192, 128); each block is one
 * fused chain over its k in increasing order, starting from 0: t = fmaf(a[i,k], alpha*b[k,j], t);
 * C is then updated block by block: c = c + t (beta = 1: c starts as the C given, e.g. the bias
 * addmm copied in; beta = 0: c starts as 0 + the first block's t, so a chain that underflows to -0
 * stores +0: mkl_main). Any thread count alike.
 * Speed (no bit depends on it: each element's chains are the same however C is tiled): GotoBLAS
 * loop order (k block; NC columns of alpha*B packed once; MC rows of A packed to stay in L2; an
 * MR x NR register tile, two row panels at once in 16-lane registers where the CPU has AVX-512: mkl_tile2),
 * rows of C split between g->workers pthreads in multiples of MR. The Intel
 * paths' chains run on the same tiles (mkl_main_chains) with their own K blocks, alpha's place and
 * fused or unfused steps (mkl_chains_t): mkl_avx512_chains, mkl_avx2_chains, the SSE4.2 main kernel's
 * columns before N % 4. */
#define MKL_KC_MAX 192
#define MKL_MR 6    /* register tile: MR rows x NR columns of C */
#define MKL_NR 16
#define MKL_MC 96   /* rows of A packed per block: MC x 192 floats = 72 KiB (L2) */
#define MKL_NC 2048 /* columns of B packed per block */
#define MKL_MAX_WORKERS 64
#define MKL_MIN_SPLIT ((int64_t)1 << 24) /* M*N*K below this (about a millisecond) runs on one thread */

static int64_t mkl_kc(int64_t K) {
    if (K <= MKL_KC_MAX) return K;
    return K / 2 < MKL_KC_MAX ? K / 2 : MKL_KC_MAX;
}

#if defined(__FMA__) && defined(__AVX__)
#include <immintrin.h>
/* t[MR][NR] = sum over the block's kc steps of ap[k][r] * bp[k][j], one chain per element from 0: fused
 * (t = fmaf(a, b, t)), or each product rounded, then added (t = t + a*b). */
static void mkl_tile(int64_t kc, const float *restrict ap, const float *restrict bp, float *restrict t, int fused) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#define MKL_ROW(r, x0, x1, step)                        \
    {                                                   \
        const __m256 ar = _mm256_broadcast_ss(a + (r)); \
        x0 = step(ar, b0, x0);                          \
        x1 = step(ar, b1, x1);                          \
    }
#define MKL_TILE_LOOP(step)                                                                                 \
    for (int64_t k = 0; k < kc; k++) {                                                                      \
        const __m256 b0 = _mm256_loadu_ps(bp + k * MKL_NR), b1 = _mm256_loadu_ps(bp + k * MKL_NR + 8);      \
        const float *a = ap + k * MKL_MR;                                                                   \
        MKL_ROW(0, c00, c01, step) MKL_ROW(1, c10, c11, step) MKL_ROW(2, c20, c21, step)                    \
        MKL_ROW(3, c30, c31, step) MKL_ROW(4, c40, c41, step) MKL_ROW(5, c50, c51, step)                    \
    }
#define MKL_UNFUSED(a, b, x) _mm256_add_ps(x, _mm256_mul_ps(a, b))
    if (fused)
        MKL_TILE_LOOP(_mm256_fmadd_ps)
    else
        MKL_TILE_LOOP(MKL_UNFUSED)
#undef MKL_UNFUSED
#undef MKL_TILE_LOOP
#undef MKL_ROW
    const __m256 out[MKL_MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
    for (int r = 0; r < MKL_MR; r++) {
        _mm256_storeu_ps(t + r * MKL_NR, out[r][0]);
        _mm256_storeu_ps(t + r * MKL_NR + 8, out[r][1]);
    }
}

/* Two tiles at once on a CPU with AVX-512 (speed only, no bit depends on it: each element is the same
 * chain, one lane of a wider register): t0 from the MR rows of panel ap0, t1 from those of ap1, both
 * against the same NR columns bp, one 16-lane register per row, twelve chains in flight. */
#define MKL_HAVE_TILE2 1
__attribute__((target("avx512f"))) static void mkl_tile2(int64_t kc, const float *restrict ap0,
                                                         const float *restrict ap1, const float *restrict bp,
                                                         float *restrict t0, float *restrict t1, int fused) {
    __m512 x0 = _mm512_setzero_ps(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0;
    __m512 y0 = x0, y1 = x0, y2 = x0, y3 = x0, y4 = x0, y5 = x0;
#define MKL_ROW2(r, x, y, step)                                                              \
    x = step(_mm512_set1_ps(a0[r]), b, x);                                                   \
    y = step(_mm512_set1_ps(a1[r]), b, y);
#define MKL_TILE2_LOOP(step)                                                                 \
    for (int64_t k = 0; k < kc; k++) {                                                       \
        const __m512 b = _mm512_loadu_ps(bp + k * MKL_NR);                                   \
        const float *a0 = ap0 + k * MKL_MR, *a1 = ap1 + k * MKL_MR;                          \
        MKL_ROW2(0, x0, y0, step) MKL_ROW2(1, x1, y1, step) MKL_ROW2(2, x2, y2, step)        \
        MKL_ROW2(3, x3, y3, step) MKL_ROW2(4, x4, y4, step) MKL_ROW2(5, x5, y5, step)        \
    }
#define MKL_UNFUSED2(a, b, x) _mm512_add_ps(x, _mm512_mul_ps(a, b))
    if (fused)
        MKL_TILE2_LOOP(_mm512_fmadd_ps)
    else
        MKL_TILE2_LOOP(MKL_UNFUSED2)
#undef MKL_UNFUSED2
#undef MKL_TILE2_LOOP
#undef MKL_ROW2
    const __m512 out0[MKL_MR] = {x0, x1, x2, x3, x4, x5}, out1[MKL_MR] = {y0, y1, y2, y3, y4, y5};
    for (int r = 0; r < MKL_MR; r++) {
        _mm512_storeu_ps(t0 + r * MKL_NR, out0[r]);
        _mm512_storeu_ps(t1 + r * MKL_NR, out1[r]);
    }
}

/* Whether this CPU runs mkl_tile2 (asked once). */
static int mkl_tile2_ok(void) {
    static int ok = -1;
    if (ok < 0) ok = __builtin_cpu_supports("avx512f") ? 1 : 0;
    return ok;
}

/* c[0..NR) = t (first) or c + t, 8 lanes at a time (the same roundings as one add per element) */
static inline void mkl_add_row(float *c, const float *t, int first) {
    for (int h = 0; h < MKL_NR; h += 8) {
        const __m256 tv = _mm256_loadu_ps(t + h);
        _mm256_storeu_ps(c + h, first ? tv : _mm256_add_ps(_mm256_loadu_ps(c + h), tv));
    }
}
#else
static void mkl_tile(int64_t kc, const float *restrict ap, const float *restrict bp, float *restrict t, int fused) {
    for (int i = 0; i < MKL_MR * MKL_NR; i++) t[i] = 0.0f;
    for (int64_t k = 0; k < kc; k++)
        for (int r = 0; r < MKL_MR; r++)
            for (int j = 0; j < MKL_NR; j++) {
                const float a = ap[k * MKL_MR + r], b = bp[k * MKL_NR + j];
                float *x = &t[r * MKL_NR + j];
                if (fused) {
                    *x = fmaf(a, b, *x);
                } else {
                    const float p = a * b;
                    *x = *x + p;
                }
            }
}

static inline void mkl_add_row(float *c, const float *t, int first) {
    for (int j = 0; j < MKL_NR; j++) c[j] = first ? t[j] : c[j] + t[j];
}
#endif

/* Pack rows x kc of scale*X (element (r,k) at X[r*s0 + k*s1]) into zero-padded panels of w rows:
 * dst[panel][k][r % w]. */
static void mkl_pack(int64_t rows, int64_t kc, const float *X, int64_t s0, int64_t s1, float scale, int64_t w,
                     float *dst) {
    for (int64_t p0 = 0; p0 < rows; p0 += w) {
        const int64_t n = rows - p0 < w ? rows - p0 : w;
        float *d = dst + p0 * kc;
        for (int64_t k = 0; k < kc; k++) {
            const float *x = X + p0 * s0 + k * s1;
            float *dk = d + k * w;
            int64_t r = 0;
            if (scale == 1.0f)
                for (; r < n; r++) dk[r] = x[r * s0];
            else
                for (; r < n; r++) dk[r] = scale * x[r * s0];
            for (; r < w; r++) dk[r] = 0.0f;
        }
    }
}

/* How the main form's chains run (mkl_main_rows): where each K block ends, what scales B's elements
 * as they are packed (rounded), what scales each block's sum before it is added (1: nothing), and
 * whether each chain is fused (t = fmaf(a, b, t)) or rounds each product (t = t + a*b); zero_c: the
 * first block (beta = 0) is added to a C of +0 (c = 0 + t: a chain that underflows to -0 stores +0). */
typedef struct {
    int64_t (*block_end)(const sgemm_t *g, int64_t k0);
    float b_scale, t_scale;
    int fused;
    int zero_c;
} mkl_chains_t;

/* One tile's chains t (rows i.., columns j.., ni x nj of it in C) scaled as form says and stored: first,
 * c = t (form->zero_c: c = 0 + t), else c = c + t. */
static void mkl_tile_store(const sgemm_t *g, const mkl_chains_t *form, int64_t i, int64_t ni, int64_t j, int64_t nj,
                           float *t, int first) {
    if (form->t_scale != 1.0f)
        for (int x = 0; x < MKL_MR * MKL_NR; x++) t[x] = form->t_scale * t[x];
    if (first && form->zero_c)
        for (int x = 0; x < MKL_MR * MKL_NR; x++) t[x] = 0.0f + t[x];
    for (int64_t r = 0; r < ni; r++) {
        float *c = g->C + (i + r) * g->ldc + j;
        const float *tr = t + r * MKL_NR;
        if (nj == MKL_NR)
            mkl_add_row(c, tr, first);
        else if (first)
            for (int64_t q = 0; q < nj; q++) c[q] = tr[q];
        else
            for (int64_t q = 0; q < nj; q++) c[q] = c[q] + tr[q];
    }
}

/* One block product: C[i0.., j0..] (+)= A[mc, kb] @ B[kb, nc], both packed, by form's chains (two row
 * panels at a time where mkl_tile2 runs: the same chains). */
static void mkl_block(const sgemm_t *g, const mkl_chains_t *form, int64_t i0, int64_t mc, int64_t j0, int64_t nc,
                      int64_t kb, const float *ap, const float *bp, int first) {
    float t[MKL_MR * MKL_NR], t1[MKL_MR * MKL_NR];
#ifdef MKL_HAVE_TILE2
    const int two = mkl_tile2_ok();
#else
    const int two = 0;
    (void)t1;
#endif
    for (int64_t jr = 0; jr < nc; jr += MKL_NR) {
        const int64_t nj = nc - jr < MKL_NR ? nc - jr : MKL_NR;
        for (int64_t ir = 0; ir < mc; ir += MKL_MR) {
            const int64_t ni = mc - ir < MKL_MR ? mc - ir : MKL_MR;
#ifdef MKL_HAVE_TILE2
            if (two && ir + MKL_MR < mc) {
                const int64_t ni1 = mc - ir - MKL_MR < MKL_MR ? mc - ir - MKL_MR : MKL_MR;
                mkl_tile2(kb, ap + ir * kb, ap + (ir + MKL_MR) * kb, bp + jr * kb, t, t1, form->fused);
                mkl_tile_store(g, form, i0 + ir, ni, j0 + jr, nj, t, first);
                mkl_tile_store(g, form, i0 + ir + MKL_MR, ni1, j0 + jr, nj, t1, first);
                ir += MKL_MR;
                continue;
            }
#endif
            (void)two;
            mkl_tile(kb, ap + ir * kb, bp + jr * kb, t, form->fused);
            mkl_tile_store(g, form, i0 + ir, ni, j0 + jr, nj, t, first);
        }
    }
}

/* The end of a block of kc starting at k0, the last taking what is left of K. */
static inline int64_t mkl_block_of(int64_t k0, int64_t kc, int64_t K) { return k0 + kc < K ? k0 + kc : K; }

/* The generic path's blocks: kc = mkl_kc(K) from 0. */
static int64_t mkl_generic_block_end(const sgemm_t *g, int64_t k0) { return mkl_block_of(k0, mkl_kc(g->K), g->K); }

/* The main kernel on rows [m0, m1) of C, one thread (K > 0; beta 0 or 1, C already scaled). */
static void mkl_main_rows(const sgemm_t *g, const mkl_chains_t *form, int64_t m0, int64_t m1) {
    if (m1 <= m0 || g->N <= 0) return;
    const int64_t N = g->N, K = g->K, ncmax = N < MKL_NC ? N : MKL_NC;
    int64_t kcmax = 0;
    for (int64_t k0 = 0, k1; k0 < K; k0 = k1) {
        k1 = form->block_end(g, k0);
        kcmax = k1 - k0 > kcmax ? k1 - k0 : kcmax;
    }
    float *bp = malloc(sizeof(float) * (size_t)(divup(ncmax, MKL_NR) * MKL_NR * kcmax));
    float *ap = malloc(sizeof(float) * (size_t)(divup(MKL_MC, MKL_MR) * MKL_MR * kcmax));
    if (!bp || !ap) abort();
    for (int64_t k0 = 0, k1; k0 < K; k0 = k1) {
        k1 = form->block_end(g, k0);
        const int64_t kb = k1 - k0;
        const int first = k0 == 0 && g->beta == 0.0f;
        for (int64_t j0 = 0; j0 < N; j0 += MKL_NC) {
            const int64_t nc = N - j0 < MKL_NC ? N - j0 : MKL_NC;
            mkl_pack(nc, kb, g->B + j0 * g->sb1 + k0 * g->sb0, g->sb1, g->sb0, form->b_scale, MKL_NR, bp);
            for (int64_t i0 = m0; i0 < m1; i0 += MKL_MC) {
                const int64_t mc = m1 - i0 < MKL_MC ? m1 - i0 : MKL_MC;
                mkl_pack(mc, kb, g->A + i0 * g->sa0 + k0 * g->sa1, g->sa0, g->sa1, 1.0f, MKL_MR, ap);
                mkl_block(g, form, i0, mc, j0, nc, kb, ap, bp, first);
            }
        }
    }
    free(ap);
    free(bp);
}

typedef struct {
    const sgemm_t *g;
    const mkl_chains_t *form;
    int64_t m0, m1;
} mkl_rows_job_t;

static void *mkl_rows_job(void *arg) {
    const mkl_rows_job_t *j = arg;
    mkl_main_rows(j->g, j->form, j->m0, j->m1);
    return NULL;
}

/* Run fn on jobs[0..nt): jobs 1.. on their own pthreads, job 0 here, then join. A job whose
 * thread cannot be started runs here too: every job always runs (speed only, never bits). */
static void mkl_run_jobs(void *(*fn)(void *), void *jobs, size_t size, int64_t nt) {
    pthread_t tid[MKL_MAX_WORKERS];
    int started[MKL_MAX_WORKERS] = {0};
    char *job = (char *)jobs;
    for (int64_t t = 1; t < nt; t++) started[t] = pthread_create(&tid[t], NULL, fn, job + t * size) == 0;
    fn(job);
    for (int64_t t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn(job + t * size);
    }
}

/* The main form's chains on rows [0, rows) of C, rows split between g->workers pthreads. */
static void mkl_main_chains(const sgemm_t *g, const mkl_chains_t *form, int64_t rows) {
    const int64_t M = rows, N = g->N, K = g->K, ldc = g->ldc;
    float *C = g->C;
    if (M <= 0 || N <= 0) return;
    if (g->beta != 0.0f && g->beta != 1.0f)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * ldc + j] = g->beta * C[i * ldc + j];
    if (K <= 0) {
        if (g->beta == 0.0f)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) C[i * ldc + j] = 0.0f;
        return;
    }
    const int64_t panels = divup(M, MKL_MR);
    int64_t nt = g->workers < 1 ? 1 : g->workers;
    nt = nt < panels ? nt : panels;
    nt = nt < MKL_MAX_WORKERS ? nt : MKL_MAX_WORKERS;
    if (nt <= 1 || M * N * K < MKL_MIN_SPLIT) {
        mkl_main_rows(g, form, 0, M);
        return;
    }
    mkl_rows_job_t jobs[MKL_MAX_WORKERS];
    const int64_t per = divup(panels, nt) * MKL_MR;
    for (int64_t t = 0; t < nt; t++)
        jobs[t] = (mkl_rows_job_t){g, form, t * per < M ? t * per : M, (t + 1) * per < M ? (t + 1) * per : M};
    mkl_run_jobs(mkl_rows_job, jobs, sizeof jobs[0], nt);
}

/* The generic path's main kernel on rows [0, rows) of C: its blocks, alpha on B's elements; with
 * beta = 0 its first block lands on a C of +0, so a chain that underflows to -0 (a fused step whose
 * exact result lies in (-2^-150, 0)) stores +0 (measured on an AMD Zen 5, MKL's generic path at every
 * ATen level, 1, 2, 4 and 8 threads: torch.mm gave no -0 over products planted to end as -2^-163,
 * while the chains alone give -0; zero_c). Not the Intel paths' chains: their tiles store the chain's -0
 * (measured under emulation, 1, 2 and 4 threads: on the AVX2 path 1,900 random products at each, 998 of
 * them with every product below the smallest subnormal and 421 with A all -0; on the SSE4.2 path 1,400,
 * 719 and 344; the AVX-512 path cannot be emulated and is unmeasured). */
static void mkl_main(const sgemm_t *g, int64_t rows) {
    const int generic = !g->avx2 && !g->sse42 && !g->avx512;
    const mkl_chains_t form = {mkl_generic_block_end, g->alpha, 1.0f, 1, generic};
    mkl_main_chains(g, &form, rows);
}

/* The block [r0, r1) x [c0, c1) of g's product as a problem of its own (its offsets in torch's buffers kept). */
static sgemm_t mkl_sub(const sgemm_t *g, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    sgemm_t s = *g;
    s.M = r1 - r0;
    s.N = c1 - c0;
    s.A = g->A + r0 * g->sa0;
    s.B = g->B + c0 * g->sb1;
    s.C = g->C + r0 * g->ldc + c0;
    s.a_off = g->a_off + r0 * g->sa0;
    s.b_off = g->b_off + c0 * g->sb1;
    s.c_off = g->c_off + r0 * g->ldc + c0;
    return s;
}

/* ------------------------------------------------------------------------------ small kernels */

static inline float mkl_prod(const float *a, int64_t sa1, const float *b, int64_t sb0, int64_t k) {
    return a[k * sa1] * b[k * sb0];
}

/* One unfused chain: s = p0; s = s + p1; ... */
static float mkl_chain(int64_t K, const float *a, int64_t sa1, const float *b, int64_t sb0) {
    float s = mkl_prod(a, sa1, b, sb0, 0);
    for (int64_t k = 1; k < K; k++) s = s + mkl_prod(a, sa1, b, sb0, k);
    return s;
}

/* The axpy form of element (i, j): c = beta*C (0 when beta = 0), then c = c + (alpha*a[i,k])*b[k,j]
 * for k in order. peeled (the alignment peel's elements): k by 8 at a time, 4 products added in
 * order onto c, the next 4 chained apart and their sum added; the K % 8 tail in order. */
static void mkl_axpy(const sgemm_t *g, int64_t i, int64_t j, int peeled) {
    const float *a = g->A + i * g->sa0, *b = g->B + j * g->sb1;
    const int64_t sa1 = g->sa1, sb0 = g->sb0, K = g->K;
    float *c = g->C + i * g->ldc + j;
    /* beta = 0: from +0, or from -0 (-0 + x == x: the product itself) when not mkl_zero_start */
    float acc = g->beta != 0.0f ? g->beta * *c : (mkl_zero_start(g) ? 0.0f : -0.0f);
    int64_t k = 0;
    if (peeled)
        for (; k + 8 <= K; k += 8) {
            for (int64_t q = k; q < k + 4; q++) acc = acc + (g->alpha * a[q * sa1]) * b[q * sb0];
            float t = (g->alpha * a[(k + 4) * sa1]) * b[(k + 4) * sb0];
            for (int64_t q = k + 5; q < k + 8; q++) t = t + (g->alpha * a[q * sa1]) * b[q * sb0];
            acc = acc + t;
        }
    for (; k < K; k++) acc = acc + (g->alpha * a[k * sa1]) * b[k * sb0];
    *c = acc;
}

/* The dot form of element (i, j) (A row contiguous along k): the first p products (p short of A's
 * row reaching a 16-byte boundary) summed in order start lane 0; then w lanes (w = 4, or w = 8 as
 * two 4-lane accumulators for the last N % 4 columns) take k = p + l + w*t for every whole step;
 * w = 8 folds lane l + 4 into lane l; lanes reduce as (l0 + l2) + (l1 + l3); the remaining
 * products are added in order. */
static void mkl_dot(const sgemm_t *g, int64_t i, int64_t j, int w) {
    const float *a = g->A + i * g->sa0, *b = g->B + j * g->sb1;
    const int64_t K = g->K, sb0 = g->sb0, p = mkl_peel(g->a_off + i * g->sa0);
    const int64_t steps = K > p ? (K - p) / w : 0;
    float s;
    if (steps == 0) {
        s = mkl_chain(K, a, 1, b, sb0);
    } else {
        float acc[8];
        for (int l = 0; l < w; l++) acc[l] = mkl_prod(a, 1, b, sb0, p + l);
        if (p > 0) acc[0] = mkl_chain(p, a, 1, b, sb0) + acc[0];
        for (int64_t t = 1; t < steps; t++)
            for (int l = 0; l < w; l++) acc[l] = acc[l] + mkl_prod(a, 1, b, sb0, p + t * w + l);
        if (w == 8)
            for (int l = 0; l < 4; l++) acc[l] = acc[l] + acc[l + 4];
        s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
        for (int64_t k = p + steps * w; k < K; k++) s = s + mkl_prod(a, 1, b, sb0, k);
    }
    mkl_store(g, g->C + i * g->ldc + j, s);
}

/* Rows [r0, M) of C through the small kernel matching the layouts. */
static void mkl_small_rows(const sgemm_t *g, int64_t r0) {
    const int dot = !g->ta && g->tb, both_t = g->ta && g->tb;
    const int64_t N = g->N;
    for (int64_t i = r0; i < g->M; i++) {
        const int64_t p = mkl_peel(g->c_off + i * g->ldc);
        const int64_t peel = (!dot && !both_t && N - p >= 4) ? p : 0;
        const float *a = g->A + i * g->sa0;
        for (int64_t j = 0; j < N; j++) {
            if (dot)
                mkl_dot(g, i, j, j < (N / 4) * 4 ? 4 : 8);
            else if (both_t)
                mkl_store(g, g->C + i * g->ldc + j, mkl_chain(g->K, a, g->sa1, g->B + j * g->sb1, g->sb0));
            else
                mkl_axpy(g, i, j, j < peel);
        }
    }
}

/* ------------------------------------------------------------------------------ gemv
 * MKL's gemv 'T' path: every output r of the R outputs is a dot product of a matrix row
 * (contiguous along k) with the vector, unfused:
 *   a head of p products summed in order (p from 1 to 4) starts lane 0;
 *   outputs in whole groups of 4: 4 lanes over steps of 4, p = 4 - (offset of the group's 4th
 *     row) % 4, offsets in floats from a 16-byte boundary;
 *   the other outputs, alternately: two 4-lane accumulators over steps of 8, added lane by lane
 *     (even ones), or one 4-lane accumulator over steps of 8 (odd ones); p = 4 - (offset of the
 *     vector) % 4;
 *   lanes reduce as (l0 + l2) + (l1 + l3), then the remaining products in order. */
static float mkl_dot_gemv(int64_t K, const float *row, const float *vec, int64_t sv, int64_t p, int step,
                          int two_accs) {
    const int64_t steps = K > p ? (K - p) / step : 0;
    if (steps == 0) return mkl_chain(K, row, 1, vec, sv);
    float acc[4], acc2[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int l = 0; l < 4; l++) acc[l] = mkl_prod(row, 1, vec, sv, p + l);
    acc[0] = mkl_chain(p, row, 1, vec, sv) + acc[0];
    for (int64_t t = 0; t < steps; t++)
        for (int64_t b = 0; b < step; b += 4)
            for (int l = 0; l < 4; l++) {
                const int64_t k = p + t * step + b + l;
                if (t == 0 && b == 0) continue; /* the first block seeded acc above */
                const float x = mkl_prod(row, 1, vec, sv, k);
                if (two_accs && b == 4)
                    acc2[l] = t == 0 ? x : acc2[l] + x;
                else
                    acc[l] = acc[l] + x;
            }
    if (two_accs)
        for (int l = 0; l < 4; l++) acc[l] = acc[l] + acc2[l];
    float s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (int64_t k = p + steps * step; k < K; k++) s = s + mkl_prod(row, 1, vec, sv, k);
    return s;
}

/* MKL's gemv 'T' with a strided vector or output (incx or incy > 1, an output stride given even for
 * one output): the outputs outside the whole groups of 4 take one 8-lane accumulator and no
 * alignment head: product 0 starts lane 0, which adds product 1; lane l takes k = 1 + l + 8t over
 * the whole steps; lanes added in order (((l0 + l1) + l2) + ...) + l7; the remaining products in
 * order. Measured on the generic path (pair cancellation; random data, 1 to 80 products). */
static float mkl_dot_gemv_strided(int64_t K, const float *row, const float *vec, int64_t sv) {
    const int64_t steps = K > 1 ? (K - 1) / 8 : 0;
    if (steps == 0) return mkl_chain(K, row, 1, vec, sv);
    float acc[8];
    for (int l = 0; l < 8; l++) acc[l] = mkl_prod(row, 1, vec, sv, 1 + l);
    acc[0] = mkl_prod(row, 1, vec, sv, 0) + acc[0];
    for (int64_t t = 1; t < steps; t++)
        for (int l = 0; l < 8; l++) acc[l] = acc[l] + mkl_prod(row, 1, vec, sv, 1 + 8 * t + l);
    float s = acc[0];
    for (int l = 1; l < 8; l++) s = s + acc[l];
    for (int64_t k = 1 + 8 * steps; k < K; k++) s = s + mkl_prod(row, 1, vec, sv, k);
    return s;
}

/* out[r * so] = mkl_dot_gemv of matrix row r (at mat + r*sm, mat_off its offset) with vec; on the
 * generic path with a strided vector or output, the rows outside whole groups of 4 by
 * mkl_dot_gemv_strided (the Intel paths' gemv with strides is not measured: they keep the form above). */
/* gemv 'T''s store on the generic and Intel SSE4.2 paths: c = alpha * s + beta * C, beta = 0 onto +0
 * (alpha * s + 0), s keeping its own zero: a sum of -0 products is -0 where it is the chain alone (no
 * whole step of lanes: mkl_dot_gemv), +0 where lanes (from +0) took a step. Measured with every
 * product a negative number below the smallest subnormal: beta = 1 onto a C of -0 stores -0 exactly
 * where the model's chain is alone (M x 1 and 1 x N, K 1 to 100; the SSE4.2 path under emulation
 * (Haswell, MKL_ENABLE_INSTRUCTIONS=SSE4_2), 1 thread; the generic path on an AMD Zen 5); a dot of
 * -2^-149 times alpha 0.5 stores +0 (beta 0). Not the strided form (mkl_dot_gemv_strided): mkl_store. */
static void mkl_gemv_t_store(const sgemm_t *g, float *c, float s, int lanes) {
    const float v = g->alpha * (lanes ? s + 0.0f : s);
    *c = g->beta != 0.0f ? v + g->beta * *c : v + 0.0f;
}

static void mkl_gemv_rows(const sgemm_t *g, int64_t R, const float *mat, int64_t sm, int64_t mat_off,
                          const float *vec, int64_t sv, int64_t vec_off, int64_t so) {
    const int64_t grouped = (R / 4) * 4, K = g->K;
    const int strided = (sv != 1 || so != 1) && !g->avx2 && !g->sse42 && g->cpublas;
    const int generic = !g->avx2 && !g->sse42 && !g->avx512 && !g->cbwr;
    for (int64_t r = 0; r < R; r++) {
        float s;
        int lanes = 0; /* whether a whole step of lanes ran (mkl_dot_gemv) */
        if (r < grouped) {
            const int64_t p = 4 - (mat_off + (r / 4 * 4 + 3) * sm) % 4;
            s = mkl_dot_gemv(K, mat + r * sm, vec, sv, p, 4, 0);
            lanes = K >= p + 4;
        } else if (strided) {
            s = mkl_dot_gemv_strided(K, mat + r * sm, vec, sv);
        } else {
            const int64_t p = 4 - vec_off % 4;
            s = mkl_dot_gemv(K, mat + r * sm, vec, sv, p, 8, (r - grouped) % 2 == 0);
            lanes = K >= p + 8;
        }
        if (g->sse42 || (generic && !strided))
            mkl_gemv_t_store(g, g->C + r * so, s, lanes);
        else
            mkl_store(g, g->C + r * so, s);
    }
}

/* MKL's Intel SSE4.2 path on 2 threads cuts gemv 'T''s outputs at ceil(R/2), each part its own groups
 * of 4 (measured on an Intel Xeon with MKL_ENABLE_INSTRUCTIONS=SSE4_2, bisecting the first K of the
 * cut for R 5 to 1,001 and the first R for K 64 and 100): from R >= 128 with R*K >= 8,192, or from
 * K >= 128 with floor(R/2)*K >= 2,048. The generic and AVX2 paths keep every output whole (their
 * cut, if any, changes no bit). */
static int mkl_sse42_gemv_cut(const sgemm_t *g, int64_t R) {
    const int64_t K = g->K;
    if (!g->sse42 || g->threads != 2 || g->batched) return 0;
    return (R >= 128 && R * K >= 8192) || (K >= 128 && R / 2 * K >= 2048);
}

static void mkl_gemv_rows_run(const sgemm_t *g, int64_t R, const float *mat, int64_t sm, int64_t mat_off,
                              const float *vec, int64_t sv, int64_t vec_off, int64_t so) {
    if (!mkl_sse42_gemv_cut(g, R)) {
        mkl_gemv_rows(g, R, mat, sm, mat_off, vec, sv, vec_off, so);
        return;
    }
    const int64_t r0 = (R + 1) / 2;
    sgemm_t s = *g;
    s.C = g->C + r0 * so;
    mkl_gemv_rows(g, r0, mat, sm, mat_off, vec, sv, vec_off, so);
    mkl_gemv_rows(&s, R - r0, mat + r0 * sm, sm, mat_off + r0 * sm, vec, sv, vec_off, so);
}

/* MKL's gemv 'N' (N == 1, A transposed): the axpy form down the column, C's alignment peel on the
 * elements before C reaches a 16-byte boundary. On the generic path, measured (random data, 1 to 40
 * products, alpha 0.3, 0.7, 1): alpha scales the vector's element, c + (alpha*b[k])*a[i,k], and with
 * a strided vector or output (incx or incy > 1) no element is peeled. The Intel SSE4.2 path scales the
 * vector's element too, keeping its peel (measured on an Intel Xeon: 400 random products, N 2 to 79, K 1 to
 * 119, alpha 0.3, beta 0 and 1, contiguous operands; flash attention's grad_k with head size 1 and a scale);
 * the other Intel paths keep mkl_axpy's alpha on A (AVX2's own gemv, mkl_avx2_gemv, scales the vector). */
static void mkl_gemv_n(const sgemm_t *g) {
    const int generic = !g->avx2 && !g->sse42 && g->cpublas;
    const int64_t M = g->M, p = (generic && (g->sb0 != 1 || g->ldc != 1)) ? 0 : mkl_peel(g->c_off);
    if (!generic && !(g->sse42 && g->alpha != 1.0f)) {
        for (int64_t i = 0; i < M; i++) mkl_axpy(g, i, 0, M - p >= 4 && i < p);
        return;
    }
    sgemm_t s = *g; /* alpha moved onto the vector: scaled copies of its K elements */
    float *xs = malloc(sizeof(float) * (size_t)g->K);
    for (int64_t k = 0; k < g->K; k++) xs[k] = g->alpha * g->B[k * g->sb0];
    s.B = xs;
    s.sb0 = 1;
    s.alpha = 1.0f;
    for (int64_t i = 0; i < M; i++) mkl_axpy(&s, i, 0, M - p >= 4 && i < p);
    free(xs);
}

/* ------------------------------------------------------------------------------ Intel AVX2 path
 *
 * MKL's "Intel(R) AVX2 enabled processors" path (what a GenuineIntel CPU with AVX2 and FMA gets;
 * measured under QEMU's Haswell-v4 model, MKL 2024.2, one thread, docs/impl/kernels.md "MKL's
 * Intel AVX2 path"), in torch's row-major terms, for M >= 2 and N >= 2 (the gemv shapes: below), and for
 * at::bmm's items of one column (N = 1; not A row-major with B transposed below 16 rows):
 *   C's rows are cut into chunks (mkl_avx2_chunk_end), each with its own row edge.
 *   K is cut into blocks of at most kmax = 256 (A row-major) or 96 (A stored transposed): while
 *   more than 2*kmax is left a block of kmax, then what is left as one block (<= kmax) or two
 *   halves (the first ceil(left / 2)): K = 515, A row-major: 256, 130, 129.
 *   Each block is a sum t from 0, by the element's place in C (MR = 6 rows, NR = 16 columns):
 *     the last M % 6 rows (of its row chunk) when M % 6 is 1 or 2: two lanes over the block's k (lane k % 2 of the
 *       block), each product rounded then added, t = lane0 + lane1, an odd last product added;
 *     else the last M % 6 rows when M % 6 == 3, and the last N % 16 columns when N % 16 is 1 to 8:
 *       the same two lanes fused, t = lane0 + lane1, then fmaf(a, b, t) for an odd last k;
 *     else one fused chain in k order: t = fmaf(a[i,k], alpha*b[k,j], t).
 *   c = t of the first block (beta = 0) or beta*C + t, then c = c + t for each further block;
 *   K == 1 with beta = 1: c = fmaf(a, b, C), one rounding.
 *   alpha != 1 (flash attention's scale): each block's sum times alpha, rounded, then added.
 * A row-major with B stored transposed, N == 2 with M < 16 or N == 3 with M < 11: MKL's dot kernel
 * (mkl_avx2_dot_rows, below), not the tiles.
 * M and N both 56 or more with B stored transposed, both 72 or more with B row-major (any layout of
 * A, plain sgemm or batch item): other blocks and edges, the "wide" form (mkl_avx2_wide,
 * mkl_avx2_block_end, mkl_avx2_form), its lanes over whole steps of 4 (the rest chained onto their
 * sum), alpha scaling B's elements (rounded) before the products.
 * M or N == 1 is MKL's gemv (its axpy and dot forms below: mkl_avx2_gemv, mkl_avx2_dot); more than
 * one thread: mkl_avx2_run. K == 1 with beta: fmaf(alpha*a, b, beta*C) (alpha on A's element); K == 1 with
 * beta = 0 and alpha != 1 in a plain call: (alpha*a)*b (measured with alpha 0.3 and 1.7 on every layout, M and N
 * 2 to 130: 1,600 products; flash attention's backward with head size 1 and a scale). */
#define MKL_AVX2_KMAX 256
#define MKL_AVX2_KMAX_TA 96
#define MKL_AVX2_MR 6
#define MKL_AVX2_NR 16
enum { AVX2_CHAIN = 0, AVX2_LANES_FUSED = 1, AVX2_LANES_UNFUSED = 2, AVX2_LANES_BY4 = 3 };
enum { AVX2_NARROW = 1, AVX2_WIDE = 2 }; /* the 6 x 16 tile's kernel; the wide form's (mkl_avx2_wide) */

/* The shapes this model is measured for: M, N >= 2. */
static int mkl_avx2_modelled(const sgemm_t *g) {
    /* an item of MKL's batched gemm with one column (at::bmm, N == 1, M >= 2) takes the same kernel
     * (measured: 620 random batches, 1 and 4 threads), except A row-major with B stored transposed
     * below 16 rows (29 of 29 differ; linalg refuses them) */
    if (g->batched && g->N == 1 && g->M >= 2) return !(!g->ta && g->tb && g->M < 16);
    return g->M >= 2 && g->N >= 2;
}

/* The start of the block after the one starting at k0 (blocks of mkl_avx2_sgemm). */
static int64_t mkl_avx2_next(int64_t k0, int64_t K, int64_t kmax) {
    const int64_t left = K - k0;
    if (left > 2 * kmax) return k0 + kmax;
    if (left > kmax) return k0 + (left + 1) / 2;
    return K;
}

static inline float avx2_prod(const sgemm_t *g, int64_t i, int64_t j, int64_t k, float *bk) {
    *bk = g->alpha == 1.0f ? g->B[k * g->sb0 + j * g->sb1] : g->alpha * g->B[k * g->sb0 + j * g->sb1];
    return g->A[i * g->sa0 + k * g->sa1];
}

static int mkl_avx2_wide(const sgemm_t *g);

/* a[i,k] and b[k,j] of the kernel's blocks: the narrow kernel takes them unscaled (alpha scales each
 * block's sum, mkl_avx2_elem), the wide form B's elements times alpha, rounded (avx2_prod). */
static inline float avx2_raw(const sgemm_t *g, int64_t i, int64_t j, int64_t k, float *bk) {
    if (mkl_avx2_wide(g)) return avx2_prod(g, i, j, k, bk);
    *bk = g->B[k * g->sb0 + j * g->sb1];
    return g->A[i * g->sa0 + k * g->sa1];
}

/* One block's sum over k0 <= k < k1 of element (i, j), by `form` (above). */
static float mkl_avx2_block(const sgemm_t *g, int64_t i, int64_t j, int64_t k0, int64_t k1, int form) {
    float b, a;
    if (form == AVX2_CHAIN) {
        float t = 0.0f;
        for (int64_t k = k0; k < k1; k++) {
            a = avx2_raw(g, i, j, k, &b);
            t = fmaf(a, b, t);
        }
        return t;
    }
    float lane[2] = {0.0f, 0.0f};
    if (form == AVX2_LANES_BY4) { /* the wide form's lanes: whole steps of 4, the rest chained onto the sum */
        const int64_t k4 = k0 + (k1 - k0) / 4 * 4;
        for (int64_t k = k0; k < k4; k++) {
            a = avx2_raw(g, i, j, k, &b);
            lane[(k - k0) % 2] = fmaf(a, b, lane[(k - k0) % 2]);
        }
        float t = lane[0] + lane[1];
        for (int64_t k = k4; k < k1; k++) {
            a = avx2_raw(g, i, j, k, &b);
            t = fmaf(a, b, t);
        }
        return t;
    }
    const int64_t kw = k0 + (k1 - k0) / 2 * 2;
    for (int64_t k = k0; k < kw; k++) {
        a = avx2_raw(g, i, j, k, &b);
        if (form == AVX2_LANES_FUSED) {
            lane[(k - k0) % 2] = fmaf(a, b, lane[(k - k0) % 2]);
        } else {
            const float p = a * b;
            lane[(k - k0) % 2] = lane[(k - k0) % 2] + p;
        }
    }
    float t = lane[0] + lane[1];
    if (kw < k1) {
        a = avx2_raw(g, i, j, kw, &b);
        if (form == AVX2_LANES_FUSED) {
            t = fmaf(a, b, t);
        } else {
            const float p = a * b;
            t = t + p;
        }
    }
    return t;
}

/* The end of the row chunk starting at r0: chunks of c = 48 (B row-major) or 96 (B stored
 * transposed) while more than 2c rows are left, then what is left as one chunk (<= 1.5c) or two
 * halves (the first ceil(left / 2)): 255 rows with B transposed are 96, 80, 79. */
static int64_t mkl_avx2_chunk_end(const sgemm_t *g, int64_t r0) {
    const int64_t left = g->M - r0, c = g->tb ? 96 : 48;
    if (left <= c + c / 2) return g->M;
    if (left > 2 * c) return r0 + c;
    return r0 + (left + 1) / 2;
}

/* MKL's other blocking, for a plain sgemm or an item of MKL's batched gemm with M and N both 56 or
 * more (B stored transposed) or 72 or more (B row-major), A either way (measured: x @ W.T with M 56 to
 * 257, N 56 to 560, K 32 to 1,292; every layout, plain and batched, M or N swept from 20 to 100 with
 * the other 200, and grids about 56 and 72: the one side below the threshold takes the narrow kernel). */
static int mkl_avx2_wide(const sgemm_t *g) {
    if (g->avx2_kernel) return g->avx2_kernel == AVX2_WIDE;
    const int64_t least = g->tb ? 56 : 72;
    return g->M >= least && g->N >= least;
}

/* The end of the K block starting at k0: at most kmax, as mkl_avx2_next; the wide form: K <= 256
 * one block, K <= 384 two halves (the first ceil(K / 2)), else blocks of 192 from k = 0. */
static int64_t mkl_avx2_block_end(const sgemm_t *g, int64_t k0, int64_t kmax) {
    const int64_t K = g->K;
    if (!mkl_avx2_wide(g)) return mkl_avx2_next(k0, K, kmax);
    if (K <= MKL_AVX2_KMAX) return K;
    if (K <= 384) return k0 == 0 ? (K + 1) / 2 : K;
    return mkl_block_of(k0, 192, K);
}

/* Which sum element (i, j) takes, in a row chunk whose last mt rows are its edge. The wide form: a
 * tile of 24 columns; of the last N % 24, a whole 16 take the chain, of the r = N % 24 % 16 after
 * them the first r - r % 2 the lanes by 4 (AVX2_LANES_BY4), an odd last one the chain; the rows past
 * the last multiple of 4: a tile of 2 rows (M % 4 = 2 or 3) the chain everywhere, a last single row
 * (M % 4 = 1 or 3) the lanes by 4 in all r columns, the odd last one too. */
static int mkl_avx2_form(const sgemm_t *g, int64_t i, int64_t j, int edge_row, int64_t mt) {
    const int64_t M = g->M, N = g->N;
    if (mkl_avx2_wide(g)) {
        const int64_t r = N % 24 % 16, f0 = N - r, m4 = M % 4;
        if (m4 >= 2 && i >= M - m4 && i < M - m4 + 2) return AVX2_CHAIN; /* the 2-row tile */
        const int64_t lanes = (m4 == 1 || m4 == 3) && i == M - 1 ? r : r / 2 * 2; /* a 1-row tile: the odd one too */
        return j >= f0 && j < f0 + lanes ? AVX2_LANES_BY4 : AVX2_CHAIN;
    }
    const int64_t nt = N % MKL_AVX2_NR;
    if (edge_row && mt <= 2) return AVX2_LANES_UNFUSED;
    if ((edge_row && mt == 3) || (j >= N - nt && nt <= 8)) return AVX2_LANES_FUSED;
    return AVX2_CHAIN;
}

/* Element (i, j) of a row chunk whose last mt = rows % 6 rows are its edge. */
static void mkl_avx2_elem(const sgemm_t *g, int64_t i, int64_t j, int edge_row, int64_t mt, int64_t kmax) {
    const int64_t K = g->K;
    float *c = g->C + i * g->ldc + j;
    const int form = mkl_avx2_form(g, i, j, edge_row, mt);
    if (K <= 0) {
        *c = g->beta != 0.0f ? g->beta * *c : 0.0f;
        return;
    }
    if (K == 1 && g->beta != 0.0f) { /* alpha on A's element (measured with alpha 0.3, every layout) */
        const float a = g->alpha * g->A[i * g->sa0], b = g->B[j * g->sb1];
        *c = fmaf(a, b, g->beta * *c);
        return;
    }
    if (K == 1 && g->alpha != 1.0f && !g->batched) { /* beta = 0: alpha on A's element, a -0 kept */
        *c = (g->alpha * g->A[i * g->sa0]) * g->B[j * g->sb1];
        return;
    }
    float acc = 0.0f;
    for (int64_t k0 = 0; k0 < K;) {
        const int64_t k1 = mkl_avx2_block_end(g, k0, kmax);
        float t = mkl_avx2_block(g, i, j, k0, k1, form);
        if (g->alpha != 1.0f && !mkl_avx2_wide(g)) t = g->alpha * t; /* the narrow kernel: rounded, then added */
        acc = k0 == 0 ? (g->beta != 0.0f ? g->beta * *c + t : t) : acc + t;
        k0 = k1;
    }
    if (acc == 0.0f && mkl_intel_product_kept(g)) /* the rank-1 update's product itself */
        acc = copysignf(0.0f, g->alpha * g->A[i * g->sa0] * g->B[j * g->sb1]);
    *c = acc;
}

/* MKL's dot kernel on this path: A row-major and B stored transposed with N == 2 and M < 16, or N == 3
 * and M < 11 (measured: M 2 to 16, N 2 and 3, K 1 to 1,176, with alpha and beta; A transposed, N == 2
 * with M >= 16, and N == 3 with M >= 11 take the tiles above). Rows go in pairs (the last of an odd M alone), each
 * element (i, j) one dot product of row i of A and row j of B^T:
 *   k16 = K rounded down to 16: vectors of 8 products (k = 8v .. 8v + 7), into 8 lanes:
 *     the first row of a pair and a last single row: two accumulators, vector v into acc[v % 2],
 *     fused, lane l = acc0[l] + acc1[l]; the second row of a pair: one accumulator, each product
 *     rounded, then added;
 *   s = the 8 lanes by halves: q_l = lane_l + lane_(l+4), (q0 + q2) + (q1 + q3) (0 when k16 == 0);
 *   a pair's rows, when 8 or more of K are left: 4 lanes over the next 8 products, s in lane 0 first
 *     (lane l: products k16 + l and k16 + 4 + l, each rounded, then added), s = (l0 + l2) + (l1 + l3);
 *   the rest one by one, each product rounded, then added to s;
 *   c = alpha * s (rounded) + beta * C. */
static int mkl_avx2_dot_rows_form(const sgemm_t *g) {
    return g->K > 1 && !g->ta && g->tb && (g->N == 2 ? g->M < 16 : g->N == 3 && g->M < 11);
}

enum { DOT_PAIR_FIRST = 0, DOT_PAIR_SECOND = 1, DOT_SINGLE = 2 }; /* a row's place in mkl_avx2_dot_rows */

static float mkl_avx2_dot_row(const sgemm_t *g, int64_t i, int64_t j, int cls) {
    const int64_t K = g->K, k16 = K / 16 * 16;
    const float *a = g->A + i * g->sa0, *b = g->B + j * g->sb1;
    float acc[2][8] = {{0.0f}};
    for (int64_t v = 0; v < k16 / 8; v++)
        for (int l = 0; l < 8; l++) {
            const int64_t k = 8 * v + l;
            if (cls == DOT_PAIR_SECOND) {
                const float p = a[k * g->sa1] * b[k * g->sb0];
                acc[0][l] = acc[0][l] + p;
            } else {
                acc[v % 2][l] = fmaf(a[k * g->sa1], b[k * g->sb0], acc[v % 2][l]);
            }
        }
    float lane[8], q[4];
    for (int l = 0; l < 8; l++) lane[l] = cls == DOT_PAIR_SECOND ? acc[0][l] : acc[0][l] + acc[1][l];
    for (int l = 0; l < 4; l++) q[l] = lane[l] + lane[l + 4];
    float s = (q[0] + q[2]) + (q[1] + q[3]);
    int64_t k = k16;
    if (K - k16 >= 8 && cls != DOT_SINGLE) {
        float t[4] = {s, 0.0f, 0.0f, 0.0f};
        for (int64_t kk = k16; kk < k16 + 8; kk++) {
            const float p = a[kk * g->sa1] * b[kk * g->sb0];
            t[(kk - k16) % 4] = t[(kk - k16) % 4] + p;
        }
        s = (t[0] + t[2]) + (t[1] + t[3]);
        k += 8;
    }
    for (; k < K; k++) {
        const float p = a[k * g->sa1] * b[k * g->sb0];
        s = s + p;
    }
    return s;
}

static void mkl_avx2_dot_rows(const sgemm_t *g) {
    for (int64_t i = 0; i < g->M; i++) {
        const int cls = g->M % 2 == 1 && i == g->M - 1 ? DOT_SINGLE : i % 2 ? DOT_PAIR_SECOND : DOT_PAIR_FIRST;
        for (int64_t j = 0; j < g->N; j++) {
            float *c = g->C + i * g->ldc + j, s = mkl_avx2_dot_row(g, i, j, cls);
            if (g->alpha != 1.0f) s = g->alpha * s;
            *c = g->beta != 0.0f ? g->beta * *c + s : s;
        }
    }
}

/* The end of the K block starting at k0 at this layout's kmax (mkl_avx2_block_end). */
static int64_t mkl_avx2_chain_end(const sgemm_t *g, int64_t k0) {
    return mkl_avx2_block_end(g, k0, g->ta ? MKL_AVX2_KMAX_TA : MKL_AVX2_KMAX);
}

/* Rows [r0, r1) x columns [0, c1) of C, each element the fused chain (AVX2_CHAIN, K >= 2), at once: the
 * main kernel's tiles with this path's K blocks (the call's kernel's) and alpha's place (the wide form:
 * on B's elements; the narrow kernel: on each block's sum). */
static void mkl_avx2_chains(const sgemm_t *g, int64_t r0, int64_t r1, int64_t c1) {
    if (r1 <= r0 || c1 <= 0) return;
    sgemm_t s = mkl_sub(g, r0, r1, 0, c1);
    const int wide = mkl_avx2_wide(g);
    s.avx2_kernel = wide ? AVX2_WIDE : AVX2_NARROW;
    const mkl_chains_t form = {mkl_avx2_chain_end, wide ? g->alpha : 1.0f, wide ? 1.0f : g->alpha, 1};
    mkl_main_chains(&s, &form, s.M);
}

/* The columns [0, cc) in which every row but a row chunk's edge takes the chain (mkl_avx2_form): the
 * narrow kernel's before a last N % 16 of 1 to 8; the wide form's before the last N % 24 % 16. */
static int64_t mkl_avx2_chain_cols(const sgemm_t *g) {
    const int64_t N = g->N, nt = N % MKL_AVX2_NR;
    if (mkl_avx2_wide(g)) return N - N % 24 % 16;
    return nt <= 8 ? N - nt : N;
}

/* The end of a row chunk's rows [r0, r1) that take the chain in those columns: all of them in the wide
 * form, else those above an edge of 1 to 3 rows. */
static int64_t mkl_avx2_chain_rows_end(const sgemm_t *g, int64_t r0, int64_t r1) {
    const int64_t mt = (r1 - r0) % MKL_AVX2_MR;
    return mkl_avx2_wide(g) || mt > 3 ? r1 : r1 - mt;
}

/* Each row chunk's elements by themselves, except its chain rows' first chain columns, which run at
 * once across consecutive chunks (mkl_avx2_chains). */
static void mkl_avx2_sgemm(const sgemm_t *g) {
    if (mkl_avx2_dot_rows_form(g)) {
        mkl_avx2_dot_rows(g);
        return;
    }
    const int64_t kmax = g->ta ? MKL_AVX2_KMAX_TA : MKL_AVX2_KMAX;
    const int64_t cc = g->K >= 2 ? mkl_avx2_chain_cols(g) : 0; /* K < 2: every element by itself */
    int64_t run0 = 0, run1 = 0;                                   /* chain rows not yet run */
    for (int64_t r0 = 0; r0 < g->M;) {
        const int64_t r1 = mkl_avx2_chunk_end(g, r0), mt = (r1 - r0) % MKL_AVX2_MR;
        const int64_t rc = cc > 0 ? mkl_avx2_chain_rows_end(g, r0, r1) : r0;
        if (run1 != r0) {
            mkl_avx2_chains(g, run0, run1, cc);
            run0 = r0;
        }
        run1 = rc;
        for (int64_t i = r0; i < r1; i++)
            for (int64_t j = i < rc ? cc : 0; j < g->N; j++) mkl_avx2_elem(g, i, j, i >= r1 - mt, mt, kmax);
        r0 = r1;
    }
    mkl_avx2_chains(g, run0, run1, cc);
}

/* gemv's axpy form on this path (M == 1 with B row-major, N == 1 with A stored transposed: MKL's
 * gemv 'N'), a plain sgemm (batch items not measured): each output one fused chain from beta * C in
 * k order, no K blocks (measured K 1 to 599, one thread). */
static int mkl_avx2_gemv_axpy(const sgemm_t *g) {
    return !g->batched && ((g->M == 1 && !g->tb) || (g->N == 1 && g->ta));
}

static void mkl_avx2_gemv(const sgemm_t *g) {
    const int row = g->M == 1; /* the vector: A's row (M == 1), else B's column; alpha scales its elements */
    for (int64_t i = 0; i < g->M; i++)
        for (int64_t j = 0; j < g->N; j++) {
            float *c = g->C + i * g->ldc + j;
            float acc = g->beta != 0.0f ? g->beta * *c : 0.0f;
            for (int64_t k = 0; k < g->K; k++) {
                const float a = g->A[i * g->sa0 + k * g->sa1], b = g->B[k * g->sb0 + j * g->sb1];
                acc = row ? fmaf(g->alpha * a, b, acc) : fmaf(a, g->alpha * b, acc);
            }
            *c = acc;
        }
}

/* gemv's dot form on this path (MKL's gemv 'T', a dot product per output): N == 1 with A row-major in
 * a plain sgemm, and M == 1 with B stored transposed, in a plain sgemm or as an item of MKL's batched
 * gemm (A row-major, the item whole: bmm of x @ W.T rows; bmm items with N == 1 take other sums, not
 * modelled: the generic path's kernels run there): 8 lanes, lane l the fused
 * chain from +0 of the products k = l, l + 8, l + 16, ... (the last partial step in its lanes too: no
 * alignment head, no scalar tail, no K blocks; its lanes past K % 8 take fma(0, 0, lane), a -0 lane
 * becoming +0), the lanes added pairwise within each half, the halves then lane by lane,
 * s = ((l0 + l1) + (l4 + l5)) + ((l2 + l3) + (l6 + l7)); c = fmaf(alpha, s, beta * C) (beta = 0: onto
 * +0, so a sum of -0 stores +0). Measured by pair cancellation and against random products (K 1 to 19,099,
 * operands at every offset, 1, 2 and 4 threads alike: docs/impl/kernels.md, "MKL's Intel AVX2 path");
 * the zero's sign under emulation with every product a negative number below the smallest subnormal
 * (every lane -0): beta = 0 stores +0 at every K, beta = 1 onto a C of -0 stores -0 only where K % 8 == 0
 * (K 1 to 100, M x 1, 1 x N and 1 x 1, plain and batch items, 1 and 4 threads).
 * Not modelled: on 2 or 4 threads MKL cuts K between them for at most 200 outputs from K = 20,000 (one
 * or two outputs: from about 41,300 or 20,560), parts from roundup(t*K/T, 8), each such a dot, their
 * sums added in order; here every dot is whole. */
#define MKL_AVX2_DOT_LANES 8

static int mkl_avx2_gemv_dot(const sgemm_t *g) {
    /* a single product (1 x 1, K == 1), any layout: a*b rounded, then added to C (measured under emulation:
     * 104 random 1 x 1 products with beta 1, none fused; the zero's sign as the dot's: +0 from a -0 product) */
    if (g->M == 1 && g->N == 1 && g->K == 1) return 1;
    if (g->N == 1 && g->M > 1) return !g->ta && !g->batched;
    return g->M == 1 && g->tb && !(g->batched && (g->ta || g->part));
}

static void mkl_avx2_dot(const sgemm_t *g) {
    for (int64_t i = 0; i < g->M; i++)
        for (int64_t j = 0; j < g->N; j++) {
            const float *a = g->A + i * g->sa0, *b = g->B + j * g->sb1;
            float l[MKL_AVX2_DOT_LANES] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
            for (int64_t k = 0; k < g->K; k++)
                l[k % MKL_AVX2_DOT_LANES] = fmaf(a[k * g->sa1], b[k * g->sb0], l[k % MKL_AVX2_DOT_LANES]);
            if (g->K > MKL_AVX2_DOT_LANES) /* the last step's zero-padded lanes: fma(0, 0, lane) = lane + 0 */
                for (int64_t p = g->K % MKL_AVX2_DOT_LANES; p > 0 && p < MKL_AVX2_DOT_LANES; p++) l[p] += 0.0f;
            const float s = ((l[0] + l[1]) + (l[4] + l[5])) + ((l[2] + l[3]) + (l[6] + l[7]));
            float *c = g->C + i * g->ldc + j;
            *c = fmaf(g->alpha, s, g->beta != 0.0f ? g->beta * *c : 0.0f);
        }
}

/* MKL's Intel AVX2 path on T = 2, 3 or 4 threads (a plain sgemm, M, N >= 2): C cut into parts, each one
 * thread's sgemm of its own (the kernel above on its block: its own row chunks, tile edges and K
 * blocks), one kernel (narrow: the 6 x 16 tile; or the wide form's) in every part. Fitted against
 * random products under emulation (docs/impl/kernels.md, "MKL's Intel AVX2 path", Threads), L the
 * side cut (rows when M > N, else columns):
 *   M*N*K up to 96,000 (T = 2), 72,000 (T = 3) or 64,000 (T = 4): one thread (the one-thread choice).
 *     Bisected on the Xeon: 72,000 whole, 72,072 cut; at exactly 96,000 and 64,000 whole (7 and 3
 *     shapes whose cut would give other bits: 50 x 16 x 120, 30 x 40 x 80; 80 x 40 x 20, 20 x 32 x 100),
 *     96,624 and 64,640 cut;
 *   T = 2, N > 128: M >= N with N < 768: rows cut at floor(M/2), wide; else columns: wide when A is
 *     transposed or M > 32, cut at floor(N/2); narrow cut at a multiple of 16 near N/2
 *     (floor(ceil(N/16)/2) * 16). From 768 columns MKL cuts the columns even where M >= N (bisected on
 *     the Xeon at M = 770, 1,600 and 4,000, K 100 to 700, every layout: 767 the rows, 769 the columns;
 *     800 x 800 had missed its last 8 columns);
 *   T = 4: wide when N > 128 and (A transposed or M > 64), or N <= 128, M > 128 and (A transposed or
 *     N > 64): 4 parts of round(L/4) (half up: (L + 2) / 4) along the longer side, the rows of a
 *     square C; from 768 columns 2 x 2 for most shapes (mkl_avx2_grid22; from 1,540 rows against 1,536
 *     columns the columns alone in 4: mkl_avx2_even_columns); narrow: N <= 64: 4 row
 *     parts of ceil(M/4); else rows cut at ceil(M/2) when M >= 48 (a cut of the columns at a multiple
 *     of 16 changes no bit of the narrow kernel). From K = 640 MKL
 *     keeps this cut for a side of 379 or more with N < 768, and below it where the kernel is wide
 *     with K < N + 3M + 242 or N < 24 (from there K in 4 parts: mkl_avx2_k_quarters) or narrow with
 *     K <= 769 (from there mkl_avx2_narrow_long_4's forms); linalg.py _avx2_k_cut_4 refuses the rest;
 *   T = 2, N <= 128: narrow, except wide when M > 128 and (A transposed or N > 64); rows cut at
 *     ceil(M/2) (wide: floor(M/2)) when N <= 64 or M > 128, else whole;
 *   T = 2, K >= 756: the wide form in every part, rows cut at floor(M/2) (315 x 47 x 989 missed 22
 *     elements with ceil), or K cut between the threads (mkl_avx2_k_cut);
 *   T = 3: N <= 64, or N <= 128 with M >= 48: 3 row parts of ceil(M/3), each part's own one-thread
 *     choice of kernel (fitted on 59 random products: 50 exact, 38 with the one-thread model; on the
 *     Xeon to K = 1,133); else (N > 128, or M < 48 with 64 < N <= 128) the one-thread model whole (not
 *     modelled: refused, as are K >= 1,134 and A transposed with M > 128, where no cut tried fits).
 * Not modelled (harness/impl/linalg.py refuses them: mkl_avx2_threads_unmodelled there): A transposed
 * with M <= 32, N > 128 and K > N on 2 or 4 threads (MKL cuts some of them along K), M <= 4 with A
 * transposed and N > 128 on 4 threads, K <= 8 with M > 64 and N > 128 on 4 threads, K = 2 and K = 3 or 4
 * with A row-major on 2 (any M and N: 17 of 600 random products of K 2 to 7 missed with N <= 128 or
 * M <= 64, all of these K), and on 2 threads from K = 756 the shapes mkl_avx2_k_cut names.
 * A call from inside an OpenMP region (avx2_kernel set by the caller) is cut the same way but keeps
 * the caller's kernel, except with A transposed (the kernel above); one left whole takes the one-thread
 * choice. Other thread counts (5 and more) run the one-thread model (not modelled: refused above
 * M*N*K = 64,000). */
/* the largest M*N*K MKL leaves whole on 3, 2 and 4 threads: it cuts the calls above */
#define MKL_AVX2_MIN_SPLIT 72000
#define MKL_AVX2_MIN_SPLIT_2 96000
#define MKL_AVX2_MIN_SPLIT_4 64000
#define MKL_AVX2_K_WIDE_2 756 /* 2 threads from this K: the wide form in every part, or K cut (mkl_avx2_k_cut) */

/* How a call is cut: nr row parts of rw rows and nc column parts of cw columns (the last part of each
 * taking the rest; with `even_tail`, the second last column part at most half, rounded up, of what the
 * parts before it leave), one kernel in every part. */
typedef struct {
    int64_t nr, rw, nc, cw;
    int kernel;
    int even_tail;
} avx2_split_t;

/* 4 threads, B stored transposed with A row-major, 4 to 15 rows, 64 < N <= 128 (q k^T of a few query
 * rows; narrow): MKL cuts C's columns into parts of 32, inside flash attention's region too (on the
 * Xeon, 9 x 66 x 256 and flash attention's q k^T of 9 rows against 66 keys; a part of one column,
 * N % 32 == 1, or M < 4 gave other bits: linalg.py refuses them). */
static int mkl_avx2_few_rows_in_32s(const sgemm_t *g) {
    return g->tb && !g->ta && g->M >= 4 && g->M < 16 && g->N > 64 && g->N <= 128;
}

/* 4 threads, the wide kernel from 768 columns (measured under Haswell-v4, K 256 to 3,054:
 * docs/impl/kernels.md, "K long on 4 threads"): MKL cuts C in 2 x 2 (rows at floor(M/2), columns at
 * floor(N/2)) up to 771 rows, but for N >= 1,536 with few rows (to 384 rows in 4 column parts, 385 the
 * columns alone in 4 (mkl_avx2_even_columns), from 386 in 2 x 2: bisected at N = 1,546, 384 to 386 at
 * 2,314 and 3,074 too; 250, 300, 350 and 380 rows in 4 parts, 388 to 400 in 2 x 2); from 772 to 1,539
 * rows the cut along the longer side (bisected at N = 1,106: 771 in 2 x 2, 772 to 777 in 4 column parts,
 * 1,539 in 4 row parts, 1,540 in 2 x 2; 1,537 and 1,538 x 778 in 4 row parts, 1,546 in 2 x 2; 802 and
 * 1,202 x 3,074 in 4 column parts); from 1,540 rows 2 x 2 below 1,536 columns (to 4,098 x 778) and from
 * 1,536 columns the columns alone in 4 parts (mkl_avx2_even_columns). */
#define MKL_AVX2_COLUMNS_4 768
#define MKL_AVX2_QUARTERS_4 772   /* 4 threads from 768 columns: the cut along the longer side from this M */
#define MKL_AVX2_HALVES_4 1540    /* ... to this M (excluded); from it 2 x 2, or the columns alone in 4 */
#define MKL_AVX2_LONG_ROW_4 1536  /* ... from this N: few rows and many rows in 4 column parts */
#define MKL_AVX2_FEW_ROWS_4 385   /* ... to this M (and N from MKL_AVX2_LONG_ROW_4): not 2 x 2 */
static int mkl_avx2_grid22(int64_t M, int64_t N) {
    if (N < MKL_AVX2_COLUMNS_4) return 0;
    if (M < MKL_AVX2_QUARTERS_4) return !(N >= MKL_AVX2_LONG_ROW_4 && M <= MKL_AVX2_FEW_ROWS_4);
    return M >= MKL_AVX2_HALVES_4 && N < MKL_AVX2_LONG_ROW_4;
}

/* 4 threads, the wide kernel from 1,540 to 3,970 rows, or of 385 rows, against 1,536 columns or more (under
 * Haswell-v4, K 256 to 1,600: 1,802 x 1,535 in 2 x 2, 1,802 x 1,537 to 3,074 not; 2 x 2 at 1,418 and not at
 * 1,538 with 1,542 and 2,402 rows too; 3,970 x 1,546 the same, 4,096 x 1,546 and 4,098 x 2,314 in 4 row
 * parts: linalg.py refuses above 3,970 rows):
 * MKL cuts C's columns alone in 4 parts of (N + 2)/4, as along the longer side, but where that would leave
 * the last part 2 narrower than the others (N % 4 == 2) the last two share what the first two leave evenly
 * (2,306 is 577, 577, 576, 576, 2,314 579, 579, 578, 578, 1,546 387, 387, 386, 386; 2,311 is 578, 578, 578,
 * 577 and 2,317 579, 579, 579, 580: each the only partition near N/4 that fits), C's rows whole (1,542,
 * 1,802, 1,994 and 2,402 rows, whose floor(M/2) cut would show, fit only rows whole) */
static int mkl_avx2_even_columns(int64_t M, int64_t N) {
    return (M == MKL_AVX2_FEW_ROWS_4 || M >= MKL_AVX2_HALVES_4) && N >= MKL_AVX2_LONG_ROW_4;
}

/* 4 threads: whether mkl_avx2_split4 takes the wide kernel (see above) */
static int mkl_avx2_wide4(const sgemm_t *g) {
    return g->N > 128 ? (g->ta || g->M > 64) : (g->M > 128 && (g->ta || g->N > 64));
}

/* 4 threads: see above */
static void mkl_avx2_split4(const sgemm_t *g, avx2_split_t *p) {
    const int64_t M = g->M, N = g->N;
    const int wide = mkl_avx2_wide4(g);
    p->kernel = wide ? AVX2_WIDE : AVX2_NARROW;
    if (wide && mkl_avx2_grid22(M, N)) { /* from 768 columns: rows at floor(M/2), columns at floor(N/2) */
        p->rw = M / 2;
        p->nr = 2;
        p->cw = N / 2;
        p->nc = 2;
    } else if (wide && mkl_avx2_even_columns(M, N)) { /* many rows, long rows: the columns alone in 4 */
        p->cw = (N + 2) / 4;
        p->nc = 4;
        p->even_tail = 1;
    } else if (wide) {
        const int64_t L = M > N ? M : N, w = (L + 2) / 4, n = divup(L, w) < 4 ? divup(L, w) : 4;
        if (M >= N) { /* a square C too: its rows (150, 200, 282 and 300 square on the Xeon) */
            p->rw = w;
            p->nr = n;
        } else {
            p->cw = w;
            p->nc = n;
        }
    } else if (N <= 64) {
        p->rw = divup(M, 4);
        p->nr = divup(M, p->rw);
    } else if (M >= 48) {
        p->rw = divup(M, 2);
        p->nr = 2;
    } else if (mkl_avx2_few_rows_in_32s(g)) {
        p->cw = 32;
        p->nc = divup(N, 32);
    }
}

/* 2 threads: see above */
static void mkl_avx2_split2(const sgemm_t *g, avx2_split_t *p) {
    const int64_t M = g->M, N = g->N;
    if (N > 128 && (M < N || N >= 768)) {
        p->nc = 2;
        p->kernel = g->ta || M > 32 ? AVX2_WIDE : AVX2_NARROW;
        p->cw = p->kernel == AVX2_WIDE ? N / 2 : divup(N, 16) / 2 * 16;
        return;
    }
    p->kernel = N > 128 || (M > 128 && (g->ta || N > 64)) ? AVX2_WIDE : AVX2_NARROW;
    if (N <= 64 || M > 128) { /* the wide form's cut also where K is long (mkl_avx2_split: wide from K = 756) */
        p->rw = p->kernel == AVX2_WIDE || g->K >= MKL_AVX2_K_WIDE_2 ? M / 2 : divup(M, 2);
        p->nr = 2;
    }
}

static int mkl_avx2_split(const sgemm_t *g, avx2_split_t *p) {
    const int64_t M = g->M, N = g->N, T = g->threads;
    const int64_t least = T == 2 ? MKL_AVX2_MIN_SPLIT_2 : T == 4 ? MKL_AVX2_MIN_SPLIT_4 : MKL_AVX2_MIN_SPLIT;
    *p = (avx2_split_t){1, M, 1, N, AVX2_NARROW};
    if ((T < 2 || T > 4) || g->batched || M * N * g->K <= least) return 0;
    if (T == 3) { /* 3 row parts, each part's own kernel (or the caller's) */
        if (N > 128 || (N > 64 && M < 48)) return 0;
        p->rw = divup(M, 3);
        p->nr = divup(M, p->rw);
        p->kernel = g->avx2_kernel;
        return 1;
    }
    if (g->avx2_kernel) { /* the kernel set by the caller (a call inside an OpenMP region) */
        sgemm_t s = *g;
        s.avx2_kernel = 0;
        mkl_avx2_split(&s, p);
        const int in_32s = T == 4 && mkl_avx2_few_rows_in_32s(g);
        if (!g->ta && p->nc > 1 && !in_32s) { /* C's columns cut outside (q k^T; P V, heads over 128): whole */
            p->nc = 1;
            p->cw = N;
        } else if (!g->ta && p->kernel == AVX2_WIDE) { /* the wide kernel outside: it, rows cut at 4s */
            p->rw = p->nr > 1 ? p->rw / 4 * 4 : p->rw;
        } else if (!g->ta) {
            p->kernel = g->avx2_kernel;
        } else if (p->kernel == AVX2_WIDE) { /* A transposed, the wide kernel outside: that kernel, whole */
            p->nr = p->nc = 1;
            p->rw = M;
            p->cw = N;
        }
        return 1;
    }
    if (T == 4)
        mkl_avx2_split4(g, p);
    else
        mkl_avx2_split2(g, p);
    if (T == 2 && g->K >= MKL_AVX2_K_WIDE_2) p->kernel = AVX2_WIDE; /* K long: the wide form in every part */
    return 1;
}

/* 2 threads, K long against C (measured on an Intel Xeon, MKL_ENABLE_INSTRUCTIONS=AVX2, the same bits
 * under emulation): MKL cuts K at ceil(K/2) instead of C when M*N*K > 96,000, N >= 24, M >= 8 and
 * K >= N + 3M + 242, and K >= 756 unless N > 128 and (M > 32 or A is transposed); A transposed with
 * N > 128 and M*N < 4,096 from K = 336 (334 whole: bisected at 8 x 223). From K = 756 MKL cuts C
 * instead wherever M or N is 379 or more (as on its AVX-512 path: 162 x 461 x 1,836 and
 * 607 x 104 x 5,666 cut C; with the refusals below, two held-out draws of K 700 to 40,000, sides from
 * 24 and from 8: 242 products bit-exact, 139 refused, none differing), except M < N with N >= 1,304,
 * K >= N and 8M <= K, which MKL cuts along K (bisected: N 1,303 C, 1,304 K at M = 100 and 300, every
 * layout; K = N - 1 C, K = N K at 100 x 2,000; 8M = K K, 8M > K C at 500 x 2,000 x 4,000,
 * 226 x 1,449 x 1,815 and 377 x 1,660 x 3,018).
 * Each thread's part of K is the wide form whole (its K blocks from the part's own start), part 0
 * onto C, part 1's sum added last. Below 8 rows with K >= 756, A transposed with N > 340 where K is
 * cut, and from K = 756 fewer than 24 columns, a side of 56 or less against one of 379 or more, A
 * row-major with N <= 64 and M >= 379 (379 x 64 x 3,000 misses, 379 x 65 and A transposed do not),
 * MKL's bits are other (harness/impl/linalg.py refuses them: mkl_avx2_threads_unmodelled, _avx2_k_cut). */
#define MKL_AVX2_C_CUT_SIDE 379
#define MKL_AVX2_K_CUT_N 1304
static int mkl_avx2_k_cut(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    if (g->threads != 2 || g->batched || g->avx2_kernel || M * N * K <= MKL_AVX2_MIN_SPLIT_2 || N < 24 || M < 8)
        return 0;
    if (g->ta && N > 128 && M * N < 4096 && K >= 336) return 1; /* A transposed, C small: from K = 336 */
    if (K >= MKL_AVX2_K_WIDE_2 && (M < N ? N : M) >= MKL_AVX2_C_CUT_SIDE) /* C cut, but for wide, long C */
        return M < N && N >= MKL_AVX2_K_CUT_N && K >= N && 8 * M <= K;
    return K >= N + 3 * M + 242 && (K >= MKL_AVX2_K_WIDE_2 || (N > 128 && (M > 32 || g->ta)));
}

/* MKL's cut of K into n parts in a plain sgemm, part t on k from bound[t] to bound[t + 1]: the call `part`
 * (g as each thread's part runs it) on part 0 onto C, then on each other part from 0 into a buffer of its
 * own; the buffers' sum, ((t1 + t2) + t3), is added to C last. */
static void mkl_k_split(const sgemm_t *part, void (*run)(const sgemm_t *), const int64_t *bound, int64_t n) {
    const int64_t MN = part->M * part->N;
    float *t = calloc((size_t)MN * 2, sizeof(float)); /* the buffers' sum, and one part's buffer */
    if (!t) abort();
    for (int64_t p = 0; p < n; p++) {
        sgemm_t s = *part;
        s.K = bound[p + 1] - bound[p];
        s.A = part->A + bound[p] * part->sa1;
        s.B = part->B + bound[p] * part->sb0;
        if (p > 0) {
            s.beta = 0.0f;
            s.C = p == 1 ? t : t + MN;
            s.ldc = part->N;
        }
        run(&s);
        for (int64_t e = 0; p > 1 && e < MN; e++) t[e] += t[MN + e];
    }
    for (int64_t i = 0; i < part->M; i++)
        for (int64_t j = 0; j < part->N; j++) part->C[i * part->ldc + j] += t[i * part->N + j];
    free(t);
}

/* MKL's cut of K between n (at most 4) threads: part t from t*floor(K/n) + min(t, K mod n) (halves:
 * ceil(K/2)) */
static void mkl_k_parts(const sgemm_t *part, void (*run)(const sgemm_t *), int64_t n) {
    const int64_t q = part->K / n, r = part->K % n;
    int64_t bound[5];
    if (n > 4) abort();
    for (int64_t p = 0; p <= n; p++) bound[p] = p * q + (p < r ? p : r);
    mkl_k_split(part, run, bound, n);
}

static void mkl_k_halves(const sgemm_t *part, void (*run)(const sgemm_t *)) { mkl_k_parts(part, run, 2); }

/* 4 threads, K long against a C whose sides are below 379, where mkl_avx2_split4 takes the wide kernel
 * (measured under Haswell-v4: the pair-cancellation probes and random products of docs/impl/kernels.md,
 * "K long on 4 threads"): MKL cuts K into 4 parts from K >= N + 3M + 242 with N >= 24 (the 2-thread bounds;
 * bisected at 200 x 100, 300 x 200, 300 x 64 with A transposed and 150 x 40; 200 x 8 and 150 x 20 with A
 * transposed keep the cut of C to K = 1,984), each part the wide form whole. Modelled from K = 640 (below
 * it A transposed with M <= 72 is refused, linalg.py). */
static int mkl_avx2_k_quarters(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    if (g->threads != 4 || g->batched || g->avx2_kernel || K < 640 || N < 24 || M >= MKL_AVX2_C_CUT_SIDE ||
        N >= MKL_AVX2_C_CUT_SIDE)
        return 0;
    return mkl_avx2_wide4(g) && K >= N + 3 * M + 242;
}

/* 4 threads, the narrow kernel of mkl_avx2_split4 against a C whose sides are below 379, K from 770
 * (measured under Haswell-v4: docs/impl/kernels.md, "K long on 4 threads"; 769 keeps the cut of C):
 * below K = 1,512 MKL cuts K once (MKL_AVX2_K2) for N <= 64 with M <= 144, and for N > 64 with M <= 48
 * and N <= 192 (bisected: 144 / 145 rows at 8, 40 and 64 columns; 48 / 49 rows at 65 to 128 columns;
 * 192 / 193 columns at 16, 40 and 47 rows, 56 and 64 rows x 144 to 192 keep C4), else keeps the cut of
 * C; from K = 1,512 (1,511 K2) K in 4 parts (MKL_AVX2_K4) from 24 columns, and below 24 K whole with the
 * wide kernel in 4 row parts of (M + 2)/4 (MKL_AVX2_W4), measured to K = 3,000. */
enum { MKL_AVX2_C4, MKL_AVX2_K2, MKL_AVX2_K4, MKL_AVX2_W4 };
#define MKL_AVX2_NARROW_K2 770
#define MKL_AVX2_NARROW_K4 1512
static int mkl_avx2_narrow_long_4(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    if (g->threads != 4 || g->batched || g->avx2_kernel || K < MKL_AVX2_NARROW_K2 ||
        M * N * K <= MKL_AVX2_MIN_SPLIT_4 || M >= MKL_AVX2_C_CUT_SIDE || N >= MKL_AVX2_C_CUT_SIDE || M < 2 || N < 2)
        return MKL_AVX2_C4;
    if (mkl_avx2_wide4(g)) return MKL_AVX2_C4;
    if (K >= MKL_AVX2_NARROW_K4) return N >= 24 ? MKL_AVX2_K4 : MKL_AVX2_W4;
    return (N <= 64 ? M <= 144 : M <= 48 && N <= 192) ? MKL_AVX2_K2 : MKL_AVX2_C4;
}

/* where column part c of a cut starts (c = nc: N) */
static int64_t mkl_avx2_column_start(const avx2_split_t *p, int64_t c, int64_t N) {
    if (c == p->nc) return N;
    if (!p->even_tail || c < p->nc - 1 || p->nc < 2) return c * p->cw;
    const int64_t c0 = (p->nc - 2) * p->cw, half = divup(N - c0, 2);
    return c0 + (half < p->cw ? half : p->cw);
}

static void mkl_avx2_run_parts(const sgemm_t *g, const avx2_split_t *p) {
    for (int64_t r = 0; r < p->nr; r++)
        for (int64_t c = 0; c < p->nc; c++) {
            const int64_t r0 = r * p->rw, c0 = mkl_avx2_column_start(p, c, g->N);
            sgemm_t s = mkl_sub(g, r0, r == p->nr - 1 ? g->M : r0 + p->rw, c0, mkl_avx2_column_start(p, c + 1, g->N));
            s.avx2_kernel = p->kernel;
            mkl_avx2_sgemm(&s);
        }
}

/* one K half of MKL_AVX2_K2: cut as on 2 threads (mkl_avx2_split2's parts), the narrow kernel in each */
static void mkl_avx2_run_narrow_half(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N;
    avx2_split_t p = {1, M, 1, N, AVX2_NARROW};
    if (N > 128 && (M < N || N >= 768)) { /* columns at a multiple of 16 near N/2 */
        p.cw = divup(N, 16) / 2 * 16;
        p.nc = 2;
    } else if (N <= 64 || M > 128) {
        p.rw = divup(M, 2);
        p.nr = 2;
    }
    mkl_avx2_run_parts(g, &p);
}

/* MKL_AVX2_K2: K cut once at roundup(ceil(K/2), 4); the first half onto C, the second half's sum added last */
static void mkl_avx2_run_k2(const sgemm_t *g) {
    const int64_t bound[3] = {0, ((g->K + 1) / 2 + 3) & ~(int64_t)3, g->K};
    sgemm_t part = *g;
    part.threads = 1;
    mkl_k_split(&part, mkl_avx2_run_narrow_half, bound, 2);
}

/* MKL's K cut between `parts` threads: each part one thread's wide form (its K blocks from the part's start) */
static void mkl_avx2_run_k_cut(const sgemm_t *g, int64_t parts) {
    sgemm_t part = *g;
    part.threads = 1;
    part.avx2_kernel = AVX2_WIDE;
    mkl_k_parts(&part, mkl_avx2_sgemm, parts);
}

static void mkl_avx2_run(const sgemm_t *g) {
    avx2_split_t p;
    const int narrow_long = mkl_avx2_narrow_long_4(g);
    if (mkl_avx2_k_cut(g) || mkl_avx2_k_quarters(g) || narrow_long == MKL_AVX2_K4) {
        mkl_avx2_run_k_cut(g, g->threads);
        return;
    }
    if (narrow_long == MKL_AVX2_K2) {
        mkl_avx2_run_k2(g);
        return;
    }
    if (narrow_long == MKL_AVX2_W4) { /* K whole, the wide kernel in 4 row parts of (M + 2)/4 */
        const int64_t w = (g->M + 2) / 4;
        const avx2_split_t p = {divup(g->M, w) < 4 ? divup(g->M, w) : 4, w, 1, g->N, AVX2_WIDE};
        mkl_avx2_run_parts(g, &p);
        return;
    }
    if (!mkl_avx2_split(g, &p)) { /* whole: the one-thread choice of kernel, inside an OpenMP region too */
        sgemm_t s = *g;
        s.avx2_kernel = 0;
        mkl_avx2_sgemm(&s);
        return;
    }
    mkl_avx2_run_parts(g, &p);
}

/* ------------------------------------------------------------------------------ Intel SSE4.2 path
 *
 * MKL's "Intel(R) SSE4.2 enabled processors" path (a GenuineIntel CPU without AVX2, e.g. QEMU's
 * Nehalem-v2 model; MKL 2024.2, one thread; docs/impl/kernels.md "MKL's Intel SSE4.2 path"): no FMA,
 * every product rounded, then added. Read by pair cancellation (products 1, +-2^40 at two k: the
 * summation tree of every element) and checked against random products, in torch's row-major terms,
 * for M, N >= 2 (M or N == 1 is MKL's gemv: the generic path's rules, mkl_gemv_rows):
 *   beta != 0 with M, N and K all 10 or less (mkl_sse42_tiny): one chain from beta*C, any layout.
 *   The main kernel (M >= 8 and N >= 4): K cut into blocks of kc from k = 0, the last taking the rest:
 *   kc = K (K <= 256), roundup(floor(K / 2), 4) (256 < K <= 512), 256 (K > 512) (K = 257: 128, 128,
 *   1); each block's sum t from 0 by the element's place (Mt = M - M % 4 rows, Nt = N - N % 4):
 *     columns < Nt, and every column when A is stored transposed: one chain in k order (SSE42_CHAIN);
 *     rows < Mt, columns >= Nt, A row-major: 4 lanes (lane (k - k0) % 4 over whole steps), added
 *       (l0 + l2) + (l1 + l3), the rest in order (SSE42_DOT4);
 *     the corner (rows >= Mt, columns >= Nt), the remainder after whole groups added in decreasing k:
 *       N % 4 >= 2, its first two columns: groups of 4, t = ((t + q0) + (q1 + q2)) + q3 (SSE42_SPLIT);
 *       N % 4 == 3, the third: A row-major t = t + ((q0 + q2) + (q1 + q3)) (SSE42_QUAD02), A
 *       transposed SSE42_SPLIT; N % 4 == 1: groups of 8, A row-major t = t + the 8-lane tree
 *       ((q0 + q4) + (q2 + q6)) + ((q1 + q5) + (q3 + q7)) (SSE42_OCT_REV), A transposed
 *       t = (((t + q0) + q3) + q5) + q7, then t + (((q1 + q2) + q4) + q6) (SSE42_TWO8);
 *       K <= 3: one chain in k order.
 *   c = beta*C + t of the first block, then c + t per further block (beta = 0: the first t); with B
 *   row-major and K <= 3, one chain from beta*C.
 *   Other products (M < 8 or N < 4), one block whatever K:
 *     B row-major: one chain from beta*C (SSE42_CHAIN); both transposed: groups of 4,
 *     t = t + ((q0 + q1) + (q2 + q3)), the rest in order (SSE42_QUAD01); A row-major, B transposed
 *     (x @ W.T): even rows 8 lanes over whole steps of 8, lane l + 4 folded into l, then as
 *     SSE42_DOT4 (SSE42_OCT); odd rows 4 lanes over whole steps of 8 (SSE42_DOT4_BY8); the last row
 *     of an odd M SSE42_DOT4 for columns below 4 * floor(N / 4), else SSE42_OCT; c = beta*C + t.
 * The main kernel takes K >= 4 (K <= 3: the small kernels, the same bits for alpha = 1). alpha != 1
 * (flash attention's scale): the main kernel scales B's elements (rounded) before the products; K == 1
 * (MKL's rank-1 update, any layout) and the small kernels with B row-major run the chain from beta*C
 * with A's elements scaled, (alpha*a)*b; the other small forms and the tiny ones scale the sum:
 * beta*C + alpha*t (fitted on 480 random products with alpha 0.3, 1.7 and 1/sqrt(91): all but 18 tiny
 * ones with K >= 4, 1 to 4 elements each, whose order is not pinned down: flash attention refuses its
 * tiny backward products, harness/impl/attention.py). No dependence on the
 * operands' or C's alignment was seen.
 * Threads (mkl_sse42_run): on 2 and 4 threads MKL cuts C into a grid of blocks, each one thread's
 * sgemm of its own whose kernel takes the main kernel's forms from 4 rows (not 8); on other thread
 * counts the one-thread model runs whole (not measured: harness/impl/linalg.py refuses them). */
#define MKL_SSE42_TINY 10
enum {
    SSE42_CHAIN, SSE42_DOT4, SSE42_DOT4_BY8, SSE42_OCT, SSE42_OCT_REV,
    SSE42_SPLIT, SSE42_QUAD02, SSE42_QUAD01, SSE42_TWO8
};

/* The shapes this model is measured for: M, N >= 2 (M or N == 1: MKL's gemv, the generic rules). */
static int mkl_sse42_modelled(const sgemm_t *g) { return g->M >= 2 && g->N >= 2; }

/* The main kernel's shapes: M >= 8 (a thread's block of the threaded sgemm: M >= 4) and N >= 4. */
static int mkl_sse42_main(const sgemm_t *g) {
    return (g->M >= 8 || (g->thread_part && g->M >= 4)) && g->N >= 4;
}

/* beta != 0 with M, N and K all 10 or less: one chain from beta*C for every element, any layout. */
static int mkl_sse42_tiny(const sgemm_t *g) {
    return g->beta != 0.0f && g->M <= MKL_SSE42_TINY && g->N <= MKL_SSE42_TINY && g->K <= MKL_SSE42_TINY;
}

static int64_t mkl_sse42_kc(int64_t K) {
    if (K <= 256) return K;
    return K <= 512 ? (K / 2 + 3) / 4 * 4 : 256;
}

static inline float sse42_prod(const sgemm_t *g, int64_t i, int64_t j, int64_t k) {
    const float b = g->B[k * g->sb0 + j * g->sb1];
    return g->A[i * g->sa0 + k * g->sa1] * (g->alpha == 1.0f ? b : g->alpha * b);
}

/* sum of the products k0 <= k < k1 of element (i, j) by `form` (above) */
static float mkl_sse42_block(const sgemm_t *g, int64_t i, int64_t j, int64_t k0, int64_t k1, int form) {
    float t = 0.0f;
    if (form == SSE42_CHAIN) {
        for (int64_t k = k0; k < k1; k++) t = t + sse42_prod(g, i, j, k);
        return t;
    }
    if (form == SSE42_SPLIT || form == SSE42_QUAD02 || form == SSE42_QUAD01) {
        int64_t k = k0;
        for (; k + 4 <= k1; k += 4) {
            const float q0 = sse42_prod(g, i, j, k), q1 = sse42_prod(g, i, j, k + 1);
            const float q2 = sse42_prod(g, i, j, k + 2), q3 = sse42_prod(g, i, j, k + 3);
            if (form == SSE42_SPLIT)
                t = ((t + q0) + (q1 + q2)) + q3;
            else if (form == SSE42_QUAD02)
                t = t + ((q0 + q2) + (q1 + q3));
            else
                t = t + ((q0 + q1) + (q2 + q3));
        }
        if (form == SSE42_QUAD01)
            for (; k < k1; k++) t = t + sse42_prod(g, i, j, k);
        else
            for (int64_t q = k1 - 1; q >= k; q--) t = t + sse42_prod(g, i, j, q);
        return t;
    }
    if (form == SSE42_TWO8) { /* groups of 8: x takes q0, q3, q5, q7, y (from 0) q1, q2, q4, q6; x + y */
        int64_t k = k0;
        for (; k + 8 <= k1; k += 8) {
            float q[8];
            for (int l = 0; l < 8; l++) q[l] = sse42_prod(g, i, j, k + l);
            const float y = ((q[1] + q[2]) + q[4]) + q[6];
            t = (((t + q[0]) + q[3]) + q[5]) + q[7];
            t = t + y;
        }
        for (int64_t r = k1 - 1; r >= k; r--) t = t + sse42_prod(g, i, j, r);
        return t;
    }
    if (form == SSE42_OCT_REV) { /* groups of 8, each an 8-lane tree folded into t; the rest in decreasing k */
        int64_t k = k0;
        for (; k + 8 <= k1; k += 8) {
            float q[8];
            for (int l = 0; l < 8; l++) q[l] = sse42_prod(g, i, j, k + l);
            t = t + (((q[0] + q[4]) + (q[2] + q[6])) + ((q[1] + q[5]) + (q[3] + q[7])));
        }
        for (int64_t r = k1 - 1; r >= k; r--) t = t + sse42_prod(g, i, j, r);
        return t;
    }
    const int lanes = form == SSE42_DOT4 || form == SSE42_DOT4_BY8 ? 4 : 8, step = form == SSE42_DOT4 ? 4 : 8;
    float l[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    const int64_t kw = k0 + (k1 - k0) / step * step;
    for (int64_t k = k0; k < kw; k++) l[(k - k0) % lanes] = l[(k - k0) % lanes] + sse42_prod(g, i, j, k);
    if (lanes == 8)
        for (int q = 0; q < 4; q++) l[q] = l[q] + l[q + 4];
    t = (l[0] + l[2]) + (l[1] + l[3]);
    for (int64_t k = kw; k < k1; k++) t = t + sse42_prod(g, i, j, k);
    return t;
}

/* Which sum element (i, j) takes (main: the main kernel's shapes). */
static int mkl_sse42_form(const sgemm_t *g, int64_t i, int64_t j, int main) {
    const int64_t M = g->M, N = g->N;
    if (!main) {
        if (mkl_sse42_tiny(g)) return SSE42_CHAIN;
        if (!g->tb) return SSE42_CHAIN;
        if (g->ta) return SSE42_QUAD01;
        if (M % 2 == 1 && i == M - 1) return j < N / 4 * 4 ? SSE42_DOT4 : SSE42_OCT;
        return i % 2 == 1 ? SSE42_DOT4_BY8 : SSE42_OCT;
    }
    const int64_t Mt = M - M % 4, Nt = N - N % 4;
    if (j < Nt) return SSE42_CHAIN;
    if (i < Mt) return g->ta ? SSE42_CHAIN : SSE42_DOT4;
    if (N % 4 == 1) return g->ta ? SSE42_TWO8 : SSE42_OCT_REV;
    if (j < Nt + 2) return SSE42_SPLIT;
    return g->ta ? SSE42_SPLIT : SSE42_QUAD02;
}

/* a[i,k] times b[k,j], alpha scaling A's element (rounded): the chains from beta*C below */
static inline float sse42_prod_a(const sgemm_t *g, int64_t i, int64_t j, int64_t k) {
    const float a = g->A[i * g->sa0 + k * g->sa1];
    return (g->alpha == 1.0f ? a : g->alpha * a) * g->B[k * g->sb0 + j * g->sb1];
}

/* The end of the main kernel's K block starting at k0: blocks of mkl_sse42_kc(K) from 0. */
static int64_t mkl_sse42_block_end(const sgemm_t *g, int64_t k0) { return mkl_block_of(k0, mkl_sse42_kc(g->K), g->K); }

static void mkl_sse42_sgemm(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    const int tiny = mkl_sse42_tiny(g), main = mkl_sse42_main(g) && !tiny && K > 3;
    const int64_t chains = main ? N - N % 4 : 0; /* columns below N rounded down to 4: SSE42_CHAIN, at once */
    if (chains > 0) {
        const sgemm_t s = mkl_sub(g, 0, M, 0, chains);
        const mkl_chains_t form = {mkl_sse42_block_end, g->alpha, 1.0f, 0};
        mkl_main_chains(&s, &form, M);
    }
    const int64_t kc = main ? mkl_sse42_kc(K) : (K > 0 ? K : 1);
    /* a chain from beta*C, alpha on A's elements: K == 1 (the rank-1 update), and the small kernels with B
     * row-major; the other small forms and tiny ones (alpha != 1) scale the sum: beta*C + alpha*t */
    const int alpha_a = K == 1 || (!main && !tiny && !g->tb);
    const int alpha_sum = !main && !alpha_a && g->alpha != 1.0f;
    sgemm_t unit = *g;
    unit.alpha = 1.0f;
    const sgemm_t *s = alpha_sum ? &unit : g;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = chains; j < N; j++) {
            float *c = g->C + i * g->ldc + j;
            const int form = mkl_sse42_form(g, i, j, main);
            float acc = g->beta != 0.0f ? g->beta * *c : (mkl_intel_product_kept(g) ? -0.0f : 0.0f);
            if (alpha_a || (tiny && !alpha_sum)) { /* a chain from beta*C */
                for (int64_t k = 0; k < K; k++) acc = acc + sse42_prod_a(g, i, j, k);
                *c = acc;
                continue;
            }
            for (int64_t k0 = 0; k0 < K; k0 += kc) {
                float t = mkl_sse42_block(s, i, j, k0, mkl_block_of(k0, kc, K), form);
                if (alpha_sum) t = g->alpha * t;
                acc = k0 == 0 && g->beta == 0.0f ? t : acc + t;
            }
            *c = acc;
        }
}

/* MKL's SSE4.2 path on 2 and 4 threads (a plain sgemm, M, N >= 2; docs/impl/kernels.md "MKL's Intel SSE4.2
 * path", Threads): where MKL weighs the call big enough (mkl_sse42_cut) it cuts C into a grid of blocks
 * (mkl_sse42_grid), each a thread's sgemm of its own (thread_part: its own edges, K blocks and small
 * kernels, the main kernel from 4 rows), the blocks roundup(ceil(L / parts), 4) rows or columns (L = M
 * or N; the last takes the rest: 11 columns in 2 are 8 + 3, 123 are 64 + 59; 49 rows in 4 are 16, 16,
 * 16, 1). Fitted against 829 random products under Nehalem-v2, then bisected on an Intel Xeon and
 * checked under Nehalem-v2 alike. Other thread counts run whole (not measured); a batch item or a part
 * of one runs whole. */
#define MKL_SSE42_MIN_BLOCK 9728 /* M*N*K of a block of the weighing grid (19,456 / 2, 38,912 / 4) */
#define MKL_SSE42_SPLIT_K 256

/* Whether MKL cuts the call: K > 256, or a block of its weighing grid (1 x 2 on 2 threads, 2 x 2 on 4;
 * halves rounded down) has M*N*K >= 9,728. Bisected on 2 threads: 4 x 32 x 152 (M*N*K 19,456) cut;
 * 4 x 27 x 187 whole (4 x 13 x 187 = 9,724); 11 x 11 x 177 cut, 176 whole. On 4 threads: 4 x 64 x 152
 * (38,912) cut, 151 whole; 5 x 200 x 49 cut, 48 whole (2 x 100 x 48 = 9,600), 7 x 287 x 23 cut, 22 whole.
 * 4 x 10, 4 x 18, 6 x 12 and 7 x 10 are cut from K = 257, whole at 256. */
static int mkl_sse42_cut(const sgemm_t *g) {
    const int64_t rows = g->threads == 2 ? g->M : g->M / 2;
    return g->K > MKL_SSE42_SPLIT_K || rows * (g->N / 2) * g->K >= MKL_SSE42_MIN_BLOCK;
}

/* The grid MKL cuts C into, *nr row parts by *nc column parts (1 x 1: whole). 2 threads: the rows where
 * M > 2N and M >= 12, else the columns where N >= 10 (22 x 11 and 20 x 10 cut their columns, 21 x 10
 * not). 4 threads, N >= 10 (fewer columns: whole): 4 column parts where N > 4M, 4 row parts where
 * M > 4N, else 2 x 2 (bisected: 5 x 20 a grid, 5 x 21 columns; 40 x 10 a grid, 41 x 10 rows; 25 x 6 and
 * 9 x 9 whole). */
static void mkl_sse42_grid(const sgemm_t *g, int64_t *nr, int64_t *nc) {
    const int64_t M = g->M, N = g->N;
    *nr = *nc = 1;
    if (g->batched || g->part || g->thread_part || !(g->threads == 2 || g->threads == 4) || !mkl_sse42_cut(g)) return;
    if (g->threads == 2) {
        if (M > 2 * N)
            *nr = M >= 12 ? 2 : 1;
        else
            *nc = N >= 10 ? 2 : 1;
        return;
    }
    if (N < 10) return;
    if (N > 4 * M)
        *nc = 4;
    else if (M > 4 * N)
        *nr = 4;
    else
        *nr = *nc = 2;
}

static void mkl_sse42_run(const sgemm_t *g) {
    int64_t nr, nc;
    mkl_sse42_grid(g, &nr, &nc);
    if (nr * nc == 1) {
        mkl_sse42_sgemm(g);
        return;
    }
    const int64_t M = g->M, N = g->N, rw = divup(divup(M, nr), 4) * 4, cw = divup(divup(N, nc), 4) * 4;
    for (int64_t r0 = 0; r0 < M; r0 += rw)
        for (int64_t c0 = 0; c0 < N; c0 += cw) {
            sgemm_t s = mkl_sub(g, r0, r0 + rw < M ? r0 + rw : M, c0, c0 + cw < N ? c0 + cw : N);
            s.thread_part = 1;
            mkl_sse42_sgemm(&s);
        }
}

/* ------------------------------------------------------------------------------ routing */

/* MKL's serial sgemm on one (sub-)problem, as each thread of MKL's threaded driver runs it on its
 * block of C (mkl_blas_xsgemm, no gemv dispatch): the main kernel when K == 0 or N >= 12 and
 * M >= 4, else a small kernel on every row. */
static void mkl_serial(const sgemm_t *g) {
    const int64_t main_rows = (g->K <= 0 || (g->N >= 12 && g->M >= 4)) ? g->M : 0;
    mkl_main(g, main_rows);
    mkl_small_rows(g, main_rows);
}

/* Products MKL runs on one thread whatever its thread count (measured thresholds). */
static int mkl_unsplit(int64_t M, int64_t N, int64_t K) {
    return K <= 1 || (M <= 100 && N <= 100 && K <= 4) || (M <= 16 && N <= 16 && K <= 16);
}

/* MKL's thread grid (mkl_blas_sgemm_2D_bsrc): `threads` threads as gc column chunks times gr row
 * chunks of C (measured for 2 to 24, 27, 32, 37 and 64 threads; some threads may stay idle):
 * 2 -> 1 x 2, 3 -> 2 x 1, 4 -> 3 x 1; otherwise gr starts at floor(sqrt(threads - 1)) and goes
 * down until threads % gr <= 1, and gc = threads / gr (5 -> 2 x 2, 8 -> 4 x 2, 10 -> 3 x 3,
 * 11 -> 5 x 2, 14 -> 7 x 2, 16 -> 5 x 3, 17 -> 4 x 4, 32 -> 8 x 4, 64 -> 9 x 7). */
static void mkl_grid(int64_t threads, int64_t *gc, int64_t *gr) {
    if (threads <= 4) {
        *gc = threads <= 2 ? 1 : threads - 1;
        *gr = threads == 2 ? 2 : 1;
        return;
    }
    int64_t r = 1;
    while ((r + 1) * (r + 1) <= threads - 1) r++;
    while (r > 1 && threads % r > 1) r--;
    *gr = r;
    *gc = threads / r;
}

/* MKL's threaded sgemm: C cut by the grid into column chunks of a multiple of 16 and row chunks of a
 * multiple of 4 (roundup(ceil(N / gc), 16), roundup(ceil(M / gr), 4), the last chunks taking the
 * rest), each block computed by mkl_serial. Only the last column chunk can be narrower than 12
 * and only the last row chunk shorter than 4, so every other block is the main kernel, whose bits
 * do not depend on the blocks: it is computed in one piece ([0, Rm) x [0, Cm)). */
static void mkl_threaded(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N;
    int64_t gc, gr;
    mkl_grid(g->threads, &gc, &gr);
    const int64_t cw = divup(divup(N, gc), 16) * 16, rh = divup(divup(M, gr), 4) * 4;
    const int64_t lc = (N - 1) / cw * cw, lr = (M - 1) / rh * rh; /* the last chunks' starts */
    const int64_t Cm = N - lc >= 12 ? N : lc, Rm = M - lr >= 4 ? M : lr;
    if (Rm > 0 && Cm > 0) {
        const sgemm_t s = mkl_sub(g, 0, Rm, 0, Cm);
        mkl_main(&s, Rm);
    }
    for (int64_t r0 = 0; r0 < M; r0 += rh) {
        const int64_t r1 = r0 + rh < M ? r0 + rh : M;
        for (int64_t c0 = 0; c0 < N; c0 += cw) {
            const int64_t c1 = c0 + cw < N ? c0 + cw : N;
            if (r1 <= Rm && c1 <= Cm) continue; /* in the main piece */
            const sgemm_t s = mkl_sub(g, r0, r1, c0, c1);
            mkl_serial(&s);
        }
    }
}

/* ------------------------------------------------------------------------------ MKL_CBWR=COMPATIBLE
 *
 * MKL's conditional-numerical-reproducibility mode COMPATIBLE (MKL_CBWR=COMPATIBLE) runs kernels of
 * its own, the same on every vendor's CPU (measured on an AMD Zen 4 and on QEMU's Haswell and EPYC
 * models, torch 2.13.0, MKL 2024.2): every product rounded, then added (no FMA). Measured by pair
 * cancellation and by candidate orders against MKL's sgemm_ called directly (docs/impl/kernels.md,
 * "MKL_CBWR=COMPATIBLE"); in torch's row-major terms:
 *   - M >= 8, N >= 8 and K >= 8: rows [0, M - M%4) x columns [0, N - N%8) take the main kernel: K cut
 *     into blocks of 112 from k = 0, each block one chain from 0 in k order; C updated block by
 *     block, the last block first: c = beta*C; c += t_last; c += t_0; c += t_1; ... (both operands
 *     stored transposed: every column of those rows).
 *     The last N%8 columns of those rows: B row-major, one chain from beta*C, the last block first,
 *     then k = 0, 1, ... in order; B stored transposed, per block a dot of 4 or 8 lanes.
 *   - the last M%4 rows and products without a main kernel: cbwr_small (a chain, a dot of lanes, or
 *     the gemv form: the first product seeding lane 0, lanes by cbwr_gemv_lanes).
 *   - threads: mkl_cbwr_sgemm cuts C into chunks along its longer side, each a product of its own.
 *   - alpha, each kernel in its own place (CBWR_ON_*; measured with alpha 0.3, 0.7, 1.5, -0.1 against
 *     torch.addmm and torch.baddbmm, docs/impl/kernels.md): B's element in the main kernel's chains;
 *     A's in the chains from beta*C (the main kernel's last columns with B row-major, the small
 *     products with B row-major, 1 x 1 products, at::bmm's single-row or -column items with B
 *     row-major) and with K == 1 (M, N > 1, not batched); B's in the chain of a single column with A
 *     transposed; otherwise the sum before it meets beta*C (the dot, gemv and transposed chains, and
 *     per K block the main kernel's last columns with B stored transposed). */
#define MKL_CBWR_KC 112

/* Where a kernel applies alpha: to B's element before the product, a[i,k] * (alpha*b[k,j]); to A's,
 * (alpha*a[i,k]) * b[k,j]; or to a sum of unscaled products, alpha * s (rounded), before it is added
 * to c. */
enum { CBWR_ON_B, CBWR_ON_A, CBWR_ON_SUM };

static inline float cbwr_prod(const sgemm_t *g, int64_t i, int64_t j, int64_t k, int on) {
    const float a = g->A[i * g->sa0 + k * g->sa1], b = g->B[k * g->sb0 + j * g->sb1];
    return on == CBWR_ON_B ? a * (g->alpha * b) : on == CBWR_ON_A ? (g->alpha * a) * b : a * b;
}

/* a sum of products, scaled when its kernel scales sums */
static inline float cbwr_scaled(const sgemm_t *g, float s, int on) { return on == CBWR_ON_SUM ? g->alpha * s : s; }

static inline float cbwr_c0(const sgemm_t *g, int64_t i, int64_t j) {
    return g->beta != 0.0f ? g->beta * g->C[i * g->ldc + j] : 0.0f;
}

/* A sum s (scaled by alpha when on is CBWR_ON_SUM) added to beta*C at the end (itself when beta = 0). */
static inline float cbwr_plus_c(const sgemm_t *g, int64_t i, int64_t j, float s, int on) {
    s = cbwr_scaled(g, s, on);
    return g->beta != 0.0f ? cbwr_c0(g, i, j) + s : s;
}

/* One chain: seed, then the products k0 <= k < k1 added in k order (each rounded, then added). */
static float cbwr_chain(const sgemm_t *g, int64_t i, int64_t j, int64_t k0, int64_t k1, float seed, int on) {
    for (int64_t k = k0; k < k1; k++) seed = seed + cbwr_prod(g, i, j, k, on);
    return seed;
}

/* sum of the products k0 <= k < k1 as a dot of `lanes` lanes over whole steps of `step` products (a
 * multiple of lanes; lane (k - k0) % lanes, each a chain from `seed` for lane 0 and 0 for the
 * others), lanes added as a tree (l + lanes/2 first: 8 lanes (l, l+4), then (0, 2), (1, 3); 4 lanes
 * (0, 2), (1, 3)), or with `seq` in order (l0 + l1 + ... ), then the rest in order. */
static float cbwr_lanes(const sgemm_t *g, int64_t i, int64_t j, int64_t k0, int64_t k1, int lanes, int step,
                        float seed, int seq, int on) {
    float l[8] = {seed, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    const int64_t kw = k0 + (k1 - k0) / step * step;
    for (int64_t k = k0; k < kw; k++) l[(k - k0) % lanes] = l[(k - k0) % lanes] + cbwr_prod(g, i, j, k, on);
    float s = l[0];
    if (seq) {
        for (int q = 1; q < lanes; q++) s = s + l[q];
    } else {
        for (int h = lanes / 2; h >= 2; h /= 2)
            for (int q = 0; q < h; q++) l[q] = l[q] + l[q + h];
        s = l[0] + l[1];
    }
    return cbwr_chain(g, i, j, kw, k1, s, on);
}

/* The lanes of the gemv form's output element e of n (its column j of N, or for a single column its
 * row i of M): 4 lanes over steps of 4 for the elements of a whole group of 4; of the last n % 4,
 * the second 4 lanes over steps of 8, the others 8 lanes. */
static void cbwr_gemv_lanes(int64_t e, int64_t n, int *lanes, int *step) {
    const int64_t t = e - (n - n % 4);
    *lanes = t < 0 || t == 1 ? 4 : 8;
    *step = t < 0 ? 4 : 8;
}

static float cbwr_dot(const sgemm_t *g, int64_t i, int64_t j, int64_t k0, int64_t k1, int lanes, int step, int on) {
    return cbwr_lanes(g, i, j, k0, k1, lanes, step, 0.0f, 0, on);
}

/* The gemv form: the first product seeds lane 0, then the lanes from k = 1 added as cbwr_dot's,
 * the rest in order. */
static float cbwr_gemv(const sgemm_t *g, int64_t i, int64_t j, int lanes, int step, int seq) {
    const float first = g->K <= 0 ? 0.0f : cbwr_prod(g, i, j, 0, CBWR_ON_SUM);
    return g->K <= 0 ? 0.0f : cbwr_lanes(g, i, j, 1, g->K, lanes, step, first, seq, CBWR_ON_SUM);
}

/* An element of a batch item (at::bmm) of a single row or column, except a row with A row-major
 * and B transposed (the batched gemv path, as a plain product's row): one chain from 0 in k order,
 * or with a single column, A row-major and B transposed, a dot of 8 lanes over steps of 8 (lane
 * tree, then the rest in order); beta*C added after (measured: 509 batches of 2 to 8 items, K 1 to
 * 700, four layouts, 1 to 16 threads, every element). */
static float cbwr_batch_vector(const sgemm_t *g, int64_t i, int64_t j) {
    const int dot = g->N == 1 && !g->ta && g->tb;
    const int on = dot || g->tb ? CBWR_ON_SUM : CBWR_ON_A;
    const float s = dot ? cbwr_dot(g, i, j, 0, g->K, 8, 8, on) : cbwr_chain(g, i, j, 0, g->K, 0.0f, on);
    return cbwr_plus_c(g, i, j, s, on);
}

/* A row below the main kernel's rows (main), or any element of a product without one. */
static float cbwr_small(const sgemm_t *g, int64_t i, int64_t j, int main) {
    const int64_t K = g->K;
    if (g->batched && (g->M == 1 || g->N == 1) && !(g->M == 1 && !g->ta && g->tb)) return cbwr_batch_vector(g, i, j);
    /* a 1 x 1 product of K >= 2: at::mm's with B row-major, and cpublas::gemm's with both operands
     * transposed, one chain from beta*C in k order (alpha on A's element, on B's); with K = 1 the gemv
     * form below, alpha * (a*b) */
    const int one = g->M == 1 && g->N == 1 && K >= 2 && (g->cpublas ? g->ta && g->tb : !g->tb);
    if (one)
        return cbwr_chain(g, i, j, 0, K, cbwr_c0(g, i, j), g->cpublas ? CBWR_ON_B : CBWR_ON_A);
    /* the gemv form along the row (one row with B stored transposed, or the main kernel's last rows
     * there, both transposed too) or down the column (a single column with A row-major) */
    const int column = g->N == 1 && !g->ta;
    const int row = !column && g->tb && (g->M == 1 || main);
    if (column || row) {
        int lanes, step;
        if (column)
            cbwr_gemv_lanes(i, g->M, &lanes, &step);
        else
            cbwr_gemv_lanes(j, g->N, &lanes, &step);
        /* the vector or the column of C not contiguous (more than one float apart), the last n % 4:
         * 8 lanes added in order */
        const int strided = column ? (g->sb0 != 1 || g->ldc != 1) && i >= g->M - g->M % 4
                                   : g->sa1 != 1 && j >= g->N - g->N % 4;
        if (strided) lanes = step = 8;
        return cbwr_plus_c(g, i, j, cbwr_gemv(g, i, j, lanes, step, strided), CBWR_ON_SUM);
    }
    if (!g->tb || g->N == 1) /* one chain from beta*C (both transposed: a single column) */
        return cbwr_chain(g, i, j, 0, K, cbwr_c0(g, i, j), g->N == 1 ? CBWR_ON_B : CBWR_ON_A);
    /* alpha scales the sums, except with K == 1 outside at::bmm's batches (M, N > 1: A's element, as
     * the chains above) */
    const int on = K == 1 && !g->batched ? CBWR_ON_A : CBWR_ON_SUM;
    if (g->ta) /* both transposed: one chain from 0, added to beta*C */
        return cbwr_plus_c(g, i, j, cbwr_chain(g, i, j, 0, K, 0.0f, on), on);
    const int lanes = j < g->N - g->N % 4 ? 4 : 8;
    return cbwr_plus_c(g, i, j, cbwr_dot(g, i, j, 0, K, lanes, lanes, on), on);
}

static void mkl_cbwr_serial(const sgemm_t *g);

/* MKL_CBWR=COMPATIBLE on T threads: C cut along its rows when M >= N, else its columns (side L),
 * into P = min(T, L / 2) chunks of L / P, the remainder r = L % P spread one each over the first r
 * chunks, except that a remainder of 1 goes to the last (e.g. 166 rows on 4 threads: 42, 42, 41, 41;
 * 141: 35, 35, 35, 36); each chunk a product of its own (mkl_cbwr_serial: its own main kernel,
 * remainders and gemv forms). Whole on one thread: a single row or column, a batch item, and the
 * products the generic path leaves whole (mkl_unsplit). */
static void mkl_cbwr_sgemm(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N;
    const int rows = M >= N;
    const int64_t side = rows ? M : N, want = g->threads < 1 || g->batched ? 1 : g->threads;
    const int64_t T = want < side / 2 ? want : side / 2;
    if (T < 2 || M == 1 || N == 1 || mkl_unsplit(M, N, g->K)) {
        mkl_cbwr_serial(g);
        return;
    }
    const int64_t f = side / T, r = side % T;
    int64_t s0 = 0;
    for (int64_t t = 0; t < T; t++) {
        const int64_t s1 = s0 + f + (r == 1 ? t == T - 1 : t < r);
        if (s1 > s0) {
            const sgemm_t sub = rows ? mkl_sub(g, s0, s1, 0, N) : mkl_sub(g, 0, M, s0, s1);
            mkl_cbwr_serial(&sub);
        }
        s0 = s1;
    }
}

static void mkl_cbwr_serial(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    const int main = M >= 8 && N >= 8 && K >= 8;
    const int64_t Mm = main ? M - M % 4 : 0, Nm = main ? N - N % 8 : 0;
    const int64_t last = K > 0 ? (K - 1) / MKL_CBWR_KC * MKL_CBWR_KC : 0; /* the last block's start */
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float c;
            if (i >= Mm) {
                c = cbwr_small(g, i, j, main);
            } else if (j < Nm || (g->ta && g->tb)) {
                const int on = j < Nm ? CBWR_ON_B : CBWR_ON_SUM;
                c = cbwr_c0(g, i, j);
                for (int64_t b = -1;; b++) { /* the last block first, then the others in order */
                    const int64_t k0 = b < 0 ? last : b * MKL_CBWR_KC;
                    if (b >= 0 && k0 >= last) break;
                    const int64_t k1 = mkl_block_of(k0, MKL_CBWR_KC, K);
                    c = c + cbwr_scaled(g, cbwr_chain(g, i, j, k0, k1, 0.0f, on), on);
                }
            } else if (!g->tb) {
                const float c_last = cbwr_chain(g, i, j, last, K, cbwr_c0(g, i, j), CBWR_ON_A);
                c = cbwr_chain(g, i, j, 0, last, c_last, CBWR_ON_A);
            } else { /* B stored transposed: per block a dot of 4 lanes (a whole group of 4 columns) or 8 */
                const int lanes = j < Nm + (N - Nm) / 4 * 4 ? 4 : 8;
                c = cbwr_c0(g, i, j);
                for (int64_t b = -1;; b++) {
                    const int64_t k0 = b < 0 ? last : b * MKL_CBWR_KC;
                    if (b >= 0 && k0 >= last) break;
                    const int64_t k1 = mkl_block_of(k0, MKL_CBWR_KC, K);
                    c = c + g->alpha * cbwr_dot(g, i, j, k0, k1, lanes, lanes, CBWR_ON_SUM);
                }
            }
            g->C[i * g->ldc + j] = c;
        }
}

/* ------------------------------------------------------------------------------ Intel AVX-512 path
 *
 * MKL's "Intel(R) Advanced Vector Extensions 512 (Intel(R) AVX-512) enabled processors" path (a
 * GenuineIntel CPU with AVX-512, MKL_ENABLE_INSTRUCTIONS=AVX512 as the recorder pins it), measured on
 * an Intel Xeon (AVX-512, AMX; MKL 2024.2, one thread: 4,789 products of M 2 to 300, N 2 to 600,
 * K 1 to 1,300, every layout, each element's bits; 192 more with alpha and beta; docs/impl/kernels.md,
 * "MKL's Intel AVX-512 path"), in torch's row-major terms:
 *   K is cut into blocks of at most kmax = 384: while more than 2*kmax is left a block of kmax, then
 *   what is left as one block or two halves (the first ceil(left / 2), mkl_avx2_next); where M and N
 *   are both 192 or more (B row-major) or N is (B stored transposed), a K above 2*kmax is cut into
 *   blocks of kmax from k = 0 instead, the last what is left (K = 769: 384, 384, 1; else 384, 193, 192).
 *   Each block is one fused chain from 0 in k order, t = fmaf(a[i,k], b[k,j], t), times alpha
 *   (rounded) where alpha != 1; c = beta*C + t for the first block, then c = c + t. Where MKL copies
 *   B (the wide shapes; B stored transposed with N > M and N >= K, and N >= 12 unless A is stored
 *   transposed too; on 2 threads its own rule) alpha scales B's elements (rounded) instead of the sum
 *   (mkl_avx512_b_scale). B stored transposed with M < 16 may take MKL's dot kernel instead
 *   (mkl_avx512_dot_form, mkl_avx512_dot16; alpha on the sum: fused onto beta*C where K >= 24 M,
 *   else rounded, then added). K == 1 is the
 *   rank-1 update c = fmaf(alpha*a[i], b[j], beta*C). Summation trees found by FPRev (a pair of
 *   +-2^40 among ones, every pair of k, each element) and each form checked on the bits of random
 *   operands: 2,090 shapes of M 2-40, N 2-257, K 1-800 with B transposed; 270 addmm with alpha and
 *   beta; 192 with K = 1; alpha 0.3 swept over M, N, K on every layout.
 * An item of MKL's batched gemm (at::bmm) takes the same kernels (1,350 products of 2, 3 and 8 items
 *   at 1, 2 and 4 threads each); a part of an item (3+ threads, fewer items) too, with its K blocks
 *   decided by the item's M and N (item_m, item_n; 1,080 products at 3 and 4 threads).
 * M or N == 1 is MKL's gemv (mkl_avx512_gemv_any, below), except a batch item with M == 1 and A
 *   stored transposed (the chain) or N == 1 (the dot kernel's rules, N <= 2).
 * On 2 threads (a plain call, or one made inside flash attention's OpenMP region, which MKL decides as
 *   on the region's thread count and runs on the caller's thread: region_threads) MKL runs a call of
 *   M*N*K > 192,000 on both threads (mkl_avx512_shared): alpha then scales B's elements where K >= 3,
 *   M >= 57 and N >= 57 unless A is stored transposed, the sum otherwise, and B stored transposed with
 *   4 to 15 rows takes the chain, not the dot kernel. Measured on the Xeon with alpha 0.3, 0.177 and
 *   1.7, beta 0 and 1: 1,000 random products labelled element by element (alpha on B or on the sum),
 *   the bounds bisected, then 1,500 held-out products of every layout bit-exact (K 2 to 3,000), and
 *   flash attention's random set at 2 threads 27 -> 0 misses. Where a leading dimension of A, B or C is
 *   a multiple of 256 floats (mkl_avx512_aliased) MKL also copies B from 17 rows (16 with both stored
 *   transposed) and 32 columns, and keeps the dot kernel for B stored transposed below 16 rows; B
 *   stored transposed with A row-major is copied so below 16 rows: inside an OpenMP region with 128
 *   columns or more (bisected in flash attention's calls: 127 columns on the sum, 128 on B), outside one
 *   where N - K >= 128 (N = 256 with K = 128 on B, K = 129 on the sum; a single region thread's 4 and 5
 *   rows took the dot kernel, K >= 24 M). Checked on 400 sgemm_ calls of random leading dimensions and
 *   on 440 random flash attention cases at 2 threads (200 with H*D a multiple of 256).
 * Not modelled (the generic path's kernels run, so their bits are known gaps; harness/impl/linalg.py
 * refuses them, mkl_avx512_unmodelled): a plain sgemm on 3 or more threads but where
 * mkl_avx512_threads_whole keeps the one-thread form, and on 2 outside
 * mkl_avx512_two_threads (below; the gemv forms: see there), A and B both stored transposed with M < 8
 * (k summed in groups of 4), alpha other than a power of two on a part of a batched item, a batch item
 * of one row and one column with A not transposed. */
#define MKL_AVX512_KMAX 384
#define MKL_AVX512_WIDE 192

/* How MKL runs a plain sgemm on 2 threads (mkl_avx512_two_threads, below) */
enum { AVX512_UNMODELLED, AVX512_ONE_FORM, AVX512_K_CUT, AVX512_C_CUT };
static int mkl_avx512_two_threads(const sgemm_t *g);

/* 3 or more threads (measured on the Xeon, MKL running them on its 2 cores), alpha a power of two (where
 * alpha goes, B's elements or the sum, is not known there; a power of two is exact in either place):
 * - both sides 192 or more with K <= 768: each element takes the one-thread form, on every thread count
 *   tried (1,530 random products at 3, 5, 6, 7, 8, 16, 32, 64 and 128 threads, every layout, sides
 *   192 to 2,500, mm and addmm with a bias);
 * - on 4 threads also K <= 640 at any sides (2,025 random products, sides 2 to 6,000; from K = 704 MKL
 *   cuts K for some Cs of sides about 90 to 130: 119 x 107 x 720; 64 x 64 and 150 x 150 whole to
 *   768), but B stored transposed with A row-major below 16 rows, where MKL's dot kernel gives way to
 *   forms by a rule not found (124 of 300 differ).
 * - on 3 and 4 threads also K above 768 with both sides 192 or more where the 2-thread rule cuts C
 *   (mkl_avx512_c_cut): the wide form whole, as one thread's (123 random products, K 769 to 12,000).
 * On 3 and on 8 or more threads MKL cuts K for small Cs (from K of about 240 at 8 to 32 threads, 653 at
 * 3), and above K = 768 it cuts K on 8 or more threads where 2 threads cut C (3 of 40, 19 of 36 and 31
 * of 31 such products at 8, 16 and 64 threads), which is not modelled. */
#define MKL_AVX512_FOUR_K 640
#define MKL_AVX512_DOT_ROWS 16 /* B stored transposed, A row-major, fewer rows: MKL's dot kernel may run */
static int mkl_avx512_c_cut(int64_t M, int64_t N, int64_t K);

/* Whether alpha is a power of two (exact wherever it scales: B's elements or a sum). */
static int mkl_alpha_pow2(const sgemm_t *g) {
    int e;
    return fabsf(frexpf(g->alpha, &e)) == 0.5f;
}

static int mkl_avx512_threads_whole(const sgemm_t *g) {
    if (g->threads < 3 || !mkl_alpha_pow2(g)) return 0;
    if (g->M >= MKL_AVX512_WIDE && g->N >= MKL_AVX512_WIDE)
        return g->K <= 2 * MKL_AVX512_KMAX || (g->threads <= 4 && mkl_avx512_c_cut(g->M, g->N, g->K));
    return g->threads == 4 && g->K <= MKL_AVX512_FOUR_K && !(g->tb && !g->ta && g->M < MKL_AVX512_DOT_ROWS);
}

static int mkl_avx512_modelled(const sgemm_t *g) {
    const int plain = !g->batched && !g->part;
    if (plain && g->threads > 1 && !(g->threads == 2 && mkl_avx512_two_threads(g) == AVX512_ONE_FORM) &&
        !mkl_avx512_threads_whole(g))
        return 0;
    if ((g->M < 2 && !(g->batched && g->ta)) || (g->N < 2 && !g->batched)) return 0;
    if (g->tb && g->ta && g->M < 8) return 0;
    return mkl_alpha_pow2(g) || !g->part;
}

/* The end of the K block starting at k0 (above). */
static int mkl_avx512_wide(const sgemm_t *g) {
    if (g->wide_part) return 1;
    const int64_t M = g->part ? g->item_m : g->M, N = g->part ? g->item_n : g->N;
    return N >= MKL_AVX512_WIDE && (g->tb || M >= MKL_AVX512_WIDE);
}

/* The thread count a call of the AVX-512 path decides its form by: the region's inside an OpenMP
 * region, 1 for a batch item, a part of one or one thread's own sgemm of a 2-thread call (wide_part),
 * else the call's. */
static int mkl_avx512_threads(const sgemm_t *g) {
    if (g->region_threads) return g->region_threads;
    return g->batched || g->part || g->wide_part ? 1 : g->threads;
}

/* 2 threads, one part of K: MKL runs the call on both threads where M*N*K > 192,000 (bisected:
 * 121 x 200 x 8 both, 120 x 200 x 8 one; the same bound at K 8 to 384, every layout). */
#define MKL_AVX512_SHARED 192000
#define MKL_AVX512_SHARED_COPY 57
#define MKL_AVX512_ALIAS 256 /* floats */
static int mkl_avx512_shared(const sgemm_t *g) {
    return mkl_avx512_threads(g) == 2 && g->M * g->N * g->K > MKL_AVX512_SHARED;
}

/* A leading dimension of A, B or C a multiple of 256 floats (rows 1 KiB apart). */
static int mkl_avx512_aliased(const sgemm_t *g) {
    const int64_t lda = g->ta ? g->sa1 : g->sa0, ldb = g->tb ? g->sb1 : g->sb0;
    return lda % MKL_AVX512_ALIAS == 0 || ldb % MKL_AVX512_ALIAS == 0 || g->ldc % MKL_AVX512_ALIAS == 0;
}

/* Whether MKL copies B on both threads (mkl_avx512_shared): K >= 3 and M >= 57, N >= 57 unless A is
 * stored transposed (bisected at K 8 to 384: 56 and 57 rows, 56 and 57 columns); with a leading
 * dimension of 1 KiB also from 17 rows (16 with both stored transposed) and 32 columns, except B stored
 * transposed with A row-major: below 16 rows with 128 columns or more inside an OpenMP region, and
 * outside it where N - K >= 128 (bisected on the Xeon, alpha 0.3: with C's rows 1 KiB apart, N = 256
 * with K = 128 copied, K = 129 not; where only A's or B's are, N - K of 104 to 136 is neither form:
 * linalg.py refuses it). */
static int mkl_avx512_shared_copy(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N;
    if (g->K < 3) return 0;
    if (M >= MKL_AVX512_SHARED_COPY && (g->ta || N >= MKL_AVX512_SHARED_COPY)) return 1;
    if (g->tb && !g->ta) /* inside flash attention's region: from 128 columns; outside it: N - K >= 128 */
        return M < 16 && (g->region_threads ? N >= 128 : N - g->K >= 128) && mkl_avx512_aliased(g);
    return mkl_avx512_aliased(g) && M >= (g->ta && g->tb ? 16 : 17) && N >= 32;
}

/* Where alpha scales B's elements as MKL copies them (rounded; no product times alpha after): on both
 * threads mkl_avx512_shared_copy, else the sum; on one thread the wide shapes, and with B stored
 * transposed N > M and N >= K, with N >= 12 unless A is stored transposed too. */
static float mkl_avx512_b_scale(const sgemm_t *g) {
    if (mkl_avx512_shared(g)) return mkl_avx512_shared_copy(g) ? g->alpha : 1.0f;
    const int copies = mkl_avx512_wide(g) || (g->tb && g->N > g->M && g->N >= g->K && (g->ta || g->N >= 12));
    return copies ? g->alpha : 1.0f;
}

static int64_t mkl_avx512_block_end(const sgemm_t *g, int64_t k0) {
    if (mkl_avx512_wide(g) && g->K > 2 * MKL_AVX512_KMAX) return mkl_block_of(k0, MKL_AVX512_KMAX, g->K);
    return mkl_avx2_next(k0, g->K, MKL_AVX512_KMAX);
}

/* B stored transposed (A not) and M of 2 to 15 rows: MKL's dot kernel where K >= 24 M, N == 2, N == 3
 * with M <= 10, or K <= N <= 11 with M < N (else the chain). 16 lanes (lane k % 16), each a fused
 * chain over its k from 0; below K = 24 M, on an even row with K >= 32, two such sets of lanes, over
 * the even and the odd 16-wide vectors of k while two whole vectors are left, added, and the rest
 * chained onto their sum. The lanes are then added: for K >= 24 M four lanes apart in turn,
 * q[l] = ((l + l+4) + l+8) + l+12, then (q0 + q1) + (q2 + q3); else by halves (l + l+8, then + l+4,
 * + l+2, + l+1). */
static int mkl_avx512_dot_form(const sgemm_t *g) {
    const int chain = g->wide_part || (mkl_avx512_shared(g) && !mkl_avx512_aliased(g)); /* on both threads */
    if (!g->tb || g->ta || g->M >= MKL_AVX512_DOT_ROWS || (g->M > 3 && chain)) return 0;
    return g->K >= 24 * g->M || g->N <= 2 || (g->N == 3 && g->M <= 10) || (g->N <= 11 && g->M < g->N && g->K <= g->N);
}

/* Products k0 .. k1-1 of a row of A and a column of B into lane[(k - k0) % 16], each lane a fused
 * chain; pairs: first two sets of lanes, over the even and the odd 16-wide vectors while two whole
 * vectors are left, added lane by lane, the rest then chained onto their sum. */
static void mkl_avx512_lanes(const sgemm_t *g, const float *a, const float *b, int64_t k0, int64_t k1, int pairs,
                             float lane[16]) {
    int64_t k = k0;
    if (pairs) {
        float odd[16] = {0};
        for (; k + 32 <= k1; k += 32)
            for (int l = 0; l < 16; l++) {
                lane[l] = fmaf(a[(k + l) * g->sa1], b[(k + l) * g->sb0], lane[l]);
                odd[l] = fmaf(a[(k + 16 + l) * g->sa1], b[(k + 16 + l) * g->sb0], odd[l]);
            }
        for (int l = 0; l < 16; l++) lane[l] += odd[l];
    }
    for (; k < k1; k++) lane[(k - k0) % 16] = fmaf(a[k * g->sa1], b[k * g->sb0], lane[(k - k0) % 16]);
}

/* 16 lanes added by halves: l + l+8, then + l+4, + l+2, + l+1. */
static float mkl_avx512_halves(float lane[16]) {
    for (int w = 8; w >= 1; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    return lane[0];
}

static float mkl_avx512_dot16(const sgemm_t *g, int64_t i, int64_t j) {
    const float *a = g->A + i * g->sa0, *b = g->B + j * g->sb1;
    const int chunks = g->K >= 24 * g->M;
    float lane[16] = {0};
    mkl_avx512_lanes(g, a, b, 0, g->K, !chunks && i % 2 == 0 && g->K >= 32, lane);
    if (!chunks) return mkl_avx512_halves(lane);
    float q[4];
    for (int l = 0; l < 4; l++) q[l] = ((lane[l] + lane[l + 4]) + lane[l + 8]) + lane[l + 12];
    return (q[0] + q[1]) + (q[2] + q[3]);
}

/* The chain form (mkl_avx512_sgemm, K >= 2) on every element at once: the main kernel's tiles with
 * this path's K blocks and alpha's place (on B's elements, or on each block's sum). */
static void mkl_avx512_chains(const sgemm_t *g) {
    const float scale = mkl_avx512_b_scale(g);
    const mkl_chains_t form = {mkl_avx512_block_end, scale, g->alpha != 1.0f && scale == 1.0f ? g->alpha : 1.0f, 1};
    mkl_main_chains(g, &form, g->M);
}

static void mkl_avx512_sgemm(const sgemm_t *g) {
    const int dot = mkl_avx512_dot_form(g);
    if (!dot && g->K >= 2) {
        mkl_avx512_chains(g);
        return;
    }
    for (int64_t i = 0; i < g->M; i++)
        for (int64_t j = 0; j < g->N; j++) {
            float *c = g->C + i * g->ldc + j;
            const float bc = g->beta != 0.0f ? g->beta * *c : 0.0f;
            if (g->K <= 0) {
                *c = bc;
                continue;
            }
            if (g->K == 1) { /* the rank-1 update: alpha scales A's element, fused onto beta*C (or the product) */
                const float from = mkl_intel_product_kept(g) ? -0.0f : bc;
                *c = fmaf(g->alpha * g->A[i * g->sa0], g->B[j * g->sb1], from);
                continue;
            }
            /* the dot kernel: alpha fused onto beta*C where K >= 24 M, else alpha*t rounded, then added */
            const float t = mkl_avx512_dot16(g, i, j);
            if (g->beta == 0.0f)
                *c = g->alpha * t;
            else
                *c = g->K >= 24 * g->M ? fmaf(g->alpha, t, bc) : g->alpha * t + bc;
        }
}

/* MKL's gemv 'T' on the AVX-512 path (M == 1, B stored transposed, A row-major: a dot per output;
 * FPRev trees and the bits of random operands, K 1 to 5,000, N 2 to 1,000; operands at any offset
 * alike). Outputs in groups of 4: the first product in lane 0, then 16 lanes (lane (k - 1) % 16) over
 * the whole 16-wide vectors from k = 1, each a fused chain, added by halves; the rest of k (fewer than
 * 16) as one more vector, its lane 0 fused onto that sum, added by halves. The last N % 4 outputs:
 * k = 1 .. K - 1 in 16 lanes as pairs (mkl_avx512_lanes), added by halves, plus the first product
 * (rounded); of those, the odd outputs take one set of lanes, not pairs. c = fmaf(alpha, t, beta*C),
 * beta = 0: alpha*t. */
static int mkl_avx512_gemv_modelled(const sgemm_t *g) {
    return g->M == 1 && g->tb && !g->ta && g->N >= 2 && g->K > 0 && (g->threads == 1 || g->batched || (g->threads == 2 && g->K <= 9000));
}

/* On 2 threads MKL cuts the outputs at ceil(N / 2), each part a gemv of its own (its own groups of 4),
 * where N*K >= 8,192 and N*(K + 288) >= 41,698 (the least K found by bisection for 34 N from 5 to
 * 1,026: one pair (288, [41,698, 41,700]) fits them all); 144 products at offsets bit-exact up to
 * K = 9,000. At K = 20,000 MKL cuts K between the threads as well (N 3 to 151): K above 9,000 on 2
 * threads is not modelled. On 3 or more threads MKL keeps a gemv whole below its cuts (the one-thread
 * forms, mkl_avx512_gemv_any); harness/impl/linalg.py refuses those it cuts (mkl_gemv_threads_unmodelled). */
static int64_t mkl_avx512_gemv_cut(const sgemm_t *g) {
    const int64_t N = g->N, K = g->K;
    if (g->threads != 2 || g->batched || N * K < 8192 || N * (K + 288) < 41698) return N;
    return (N + 1) / 2;
}

/* Output j of a part of n outputs whose B rows start at b. */
static float mkl_avx512_gemv_dot(const sgemm_t *g, const float *b, int64_t j, int64_t n) {
    const float *a = g->A;
    const int64_t K = g->K;
    float lane[16] = {0};
    b += j * g->sb1;
    if (j >= n - n % 4) {
        mkl_avx512_lanes(g, a, b, 1, K, j % 2 == 0, lane);
        return a[0] * b[0] + mkl_avx512_halves(lane);
    }
    const int64_t whole = 1 + (K - 1) / 16 * 16;
    lane[0] = a[0] * b[0];
    mkl_avx512_lanes(g, a, b, 1, whole, 0, lane);
    const float s = mkl_avx512_halves(lane);
    if (whole == K) return s;
    float t[16] = {s};
    mkl_avx512_lanes(g, a, b, whole, K, 0, t);
    return mkl_avx512_halves(t);
}

static void mkl_avx512_gemv(const sgemm_t *g) {
    const int64_t cut = mkl_avx512_gemv_cut(g);
    for (int64_t j0 = 0; j0 < g->N; j0 += cut) {
        const int64_t n = j0 + cut < g->N ? cut : g->N - j0;
        for (int64_t j = 0; j < n; j++) {
            float *c = g->C + j0 + j;
            const float t = mkl_avx512_gemv_dot(g, g->B + j0 * g->sb1, j, n);
            *c = g->beta != 0.0f ? fmaf(g->alpha, t, g->beta * *c) : g->alpha * t;
        }
    }
}

/* MKL's gemv 'N' on the AVX-512 path (M == 1, A and B row-major: the vector times B's rows, 16
 * outputs a vector), FPRev trees and the bits of random operands. Each output from beta*C, the vector's
 * elements times alpha (rounded); k in blocks of 8: t = fma(p6, acc), t = fma(p4, t), then
 * t + fma(p5, p7) and + (fma(p0, p2) + fma(p1, p3)) (fma(pi, pj): pj rounded, pi fused onto it; p the
 * block's products); the last K % 8 products fused onto the sum in k order. The last N % 16 outputs:
 * one fused chain in k order. 960 products (N 2 to 257, K 3 to 3,000, operands at offsets, alpha 0.125
 * and 0.3, beta 0 and 1) bit-exact on one thread; on 2 threads whole where MKL does not cut K
 * (mkl_gemv_n_k_cut). */
static int mkl_avx512_gemv_n_modelled(const sgemm_t *g) {
    return g->M == 1 && !g->tb && !g->ta && g->N >= 2 && g->K > 0 && (g->threads <= 2 || g->batched);
}

static void mkl_avx512_gemv_n(const sgemm_t *g) {
    const int64_t K = g->K, main = g->N - g->N % 16;
    for (int64_t j = 0; j < g->N; j++) {
        const float *b = g->B + j * g->sb1;
        float *c = g->C + j;
#define P(q) (g->alpha * g->A[(q) * g->sa1]), b[(q) * g->sb0]
#define PAIR(i, q) fmaf(P(i), (g->alpha * g->A[(q) * g->sa1]) * b[(q) * g->sb0])
        float acc = g->beta != 0.0f ? g->beta * *c : 0.0f;
        int64_t k = 0;
        if (j < main)
            for (; k + 8 <= K; k += 8) {
                float t = fmaf(P(k + 6), acc);
                t = fmaf(P(k + 4), t);
                t = t + PAIR(k + 5, k + 7);
                acc = t + (PAIR(k, k + 2) + PAIR(k + 1, k + 3));
            }
#undef PAIR
        for (; k < K; k++) acc = fmaf(P(k), acc);
#undef P
        *c = acc;
    }
}

/* One output (M = N = 1, not a batch item: cpublas's gemm of one query and one key in flash attention;
 * measured through sgemm_ on 1 and 2 threads, K 1 to 1,000, alpha 0.3 and 1.7, beta 0 and 1, every
 * layout): A row-major, the dot of gemv 'T''s last outputs (the first product, then k = 1 .. K - 1 in
 * 16 lanes as pairs, added by halves; c = fmaf(alpha, t, beta*C)); A stored transposed, one fused chain
 * from beta*C in k order with alpha scaling B's elements, c = fmaf(alpha*b[k], a[k], c). */
static void mkl_avx512_one(const sgemm_t *g) {
    if (!g->ta) {
        sgemm_t s = *g;
        s.tb = 1; /* one column of B: its elements at sb0 whichever way stored */
        mkl_avx512_gemv(&s);
        return;
    }
    float c = g->beta != 0.0f ? g->beta * g->C[0] : 0.0f;
    for (int64_t k = 0; k < g->K; k++) c = fmaf(g->alpha * g->B[k * g->sb0], g->A[k * g->sa1], c);
    g->C[0] = c;
}

/* C = A b with one column (N == 1, C contiguous) is the row C^T = b^T A^T: the gemv forms above with
 * A and B's roles swapped. Runs MKL's gemv 'T' or 'N' on the AVX-512 path where modelled (1), else 0. */
static int mkl_avx512_gemv_any(const sgemm_t *g) {
    if (g->M == 1 && g->N == 1 && g->cpublas && !g->batched && g->K > 0 && g->threads <= 2) {
        mkl_avx512_one(g);
        return 1;
    }
    sgemm_t s = *g;
    if (s.threads > 2 && !s.batched) /* 3 or more threads: MKL keeps these sizes whole (linalg refuses the rest) */
        s.threads = 1;
    if (g->N == 1 && g->M >= 2 && g->ldc == 1) {
        s.M = 1;
        s.N = g->M;
        s.A = g->B;
        s.sa0 = g->sb1;
        s.sa1 = g->sb0;
        s.B = g->A;
        s.sb0 = g->sa1;
        s.sb1 = g->sa0;
        s.tb = !g->ta;
    }
    s.ta = 0; /* a vector (M == 1) whichever way stored */
    if (mkl_avx512_gemv_modelled(&s))
        mkl_avx512_gemv(&s);
    else if (mkl_avx512_gemv_n_modelled(&s))
        mkl_avx512_gemv_n(&s);
    else
        return 0;
    return 1;
}

/* A plain sgemm on 2 threads (measured on the Xeon's two cores). AVX512_ONE_FORM where the one-thread
 * model holds (K <= 768, or M*N*K < 196,608: whatever rows or columns MKL gives each thread, every
 * element's sum is the same; where MKL runs the call on both threads its form and alpha's place
 * follow mkl_avx512_shared), and B stored transposed with M <= 3 (MKL's dot kernel, whole). Above that MKL
 * either cuts C or cuts K (mkl_avx512_c_cut; its AVX2 path weighs N + 3M + 242 against K and 379 too,
 * but not 8 min(M, N) against K):
 *   AVX512_C_CUT: 8 min(M, N) > K and (max(M, N) >= 379 or N + 3M + 242 > K). Each element is then the
 *     wide form whole (K blocks of 384 from 0, alpha on B's elements), whatever M and N are: a
 *     thread's rows or columns never change an element's sum.
 *   AVX512_K_CUT: MKL cuts K at ceil(K/2), each thread's part a sgemm of its own with K blocks of 384
 *     from its start (B stored transposed with 4 <= M < 16: the chain, not the dot kernel), alpha
 *     placed by each part's own one-thread rule, the second part's sums added to the first's (from
 *     beta*C).
 *   AVX512_UNMODELLED (harness/impl/linalg.py refuses them: mkl_avx512_unmodelled): where the rule gives
 *     the K cut with min(M, N) <= 56 and max(M, N) >= 379. There MKL keeps K whole with A row-major
 *     (one thread's form, its blocks not of 384) or takes forms not found, by layout.
 * Measured by labelling each product's 16 x 16 corner as "wide whole", "one thread's form" or "K
 * halves": the bounds bisected (8 min(M, N) > K: least M 226, 263, 301, 338, 376, 501, 751 at
 * K = 1,800 to 6,000; the line N + 3M = K - 241 at K = 1,536, M 320 to 360; 379 at M = 193 to 300;
 * 56 and 57), then 464 random products of M and N 64 to 4,000 and K 769 to 20,000, every layout,
 * alpha 1 and 0.3 with beta 1, all as predicted, and 358 whole products (K to 40,000): 278 bit-exact,
 * 80 refused, none differing. The bounds of M*N <= 16,384 and sides <= 376 measured before are this
 * rule's K cut (140 x 117 x 770 is cut C, as the rule says). B stored transposed with A row-major below
 * 16 rows, where A's or B's rows are 1 KiB apart (mkl_avx512_aliased), is not cut: one thread's form
 * whole, as below 4 rows (two held-out draws of 300 products of M 2 to 19, K 769 to 3,000, alpha 1 and
 * 0.3, beta 0 and 1, a leading dimension padded to 1 KiB: 58 of the first differed as a K cut, none of
 * either now; 8 x 318 x 784 with lda 1,024 had missed a draw of random products). */
#define MKL_AVX512_C_CUT_SIDE 379
#define MKL_AVX512_NARROW 56
static int mkl_avx512_c_cut(int64_t M, int64_t N, int64_t K) {
    const int64_t lo = M < N ? M : N, hi = M < N ? N : M;
    return 8 * lo > K && (hi >= MKL_AVX512_C_CUT_SIDE || N + 3 * M + 242 > K);
}

static int mkl_avx512_two_threads(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    if (K <= 2 * MKL_AVX512_KMAX || M * N * K < 196608) return AVX512_ONE_FORM;
    if (g->tb && !g->ta && M <= 3) return AVX512_ONE_FORM; /* MKL's dot kernel, whole */
    if (g->tb && !g->ta && M < 16 && mkl_avx512_aliased(g)) return AVX512_ONE_FORM; /* rows 1 KiB apart: whole */
    if (mkl_avx512_c_cut(M, N, K)) return AVX512_C_CUT;
    const int narrow = (M < N ? M : N) <= MKL_AVX512_NARROW && (M < N ? N : M) >= MKL_AVX512_C_CUT_SIDE;
    return narrow ? AVX512_UNMODELLED : AVX512_K_CUT;
}

static void mkl_avx512_k_cut(const sgemm_t *g) {
    sgemm_t part = *g;
    part.wide_part = 1;
    mkl_k_halves(&part, mkl_avx512_sgemm);
}

/* MKL's gemv 'N' (one row times B row-major, or one column of A stored transposed: R outputs, each a
 * chain down K) on its Intel paths on 2 threads: K cut at ceil(K/2) from K = 256 for R up to 1,001,
 * except R = 41 to 69 below K = 1,000 (a driver rule: the same on the SSE4.2, AVX2 and AVX-512 paths,
 * bisected on an Intel Xeon: K = 255 whole, 256 cut; 999 whole, 1,000 cut in the band; 1,001 outputs
 * cut, 1,002 whole); each part the path's one-thread form from its own k and from 0, then
 * c = beta*C + (part 0 + part 1) (with beta = 1, C + part 0 first misses 8 of 8). Elsewhere the form
 * runs whole (a cut of the outputs at a multiple of 16 changes no bit of it). Modelled on the AVX2 and
 * AVX-512 paths (not inside flash attention's OpenMP region, avx2_kernel set: whole there, as measured
 * on sdpa's one-row last q blocks); on the SSE4.2 path the first outputs of a cut product take sums not
 * found (its axpy form's alignment peel?): harness/impl/linalg.py refuses them (mkl_gemv_n_k_cut there). */
static int64_t mkl_gemv_n_outputs(const sgemm_t *g) {
    if (g->M == 1 && !g->tb && g->N >= 2) return g->N;
    if (g->N == 1 && g->ta && g->M >= 2) return g->M;
    return 0;
}

static int mkl_gemv_n_k_cut(const sgemm_t *g) {
    const int64_t R = mkl_gemv_n_outputs(g), K = g->K;
    if (!(g->avx2 || g->avx512) || g->threads != 2 || g->batched || g->part || g->wide_part || g->avx2_kernel) return 0;
    if (R == 0 || K < 256 || R > 1001) return 0;
    return !(R >= 41 && R <= 69 && K < 1000);
}

static void mkl_sgemm(const sgemm_t *g);

static void mkl_gemv_n_halves(const sgemm_t *g) {
    const int64_t kc = (g->K + 1) / 2, M = g->M, N = g->N;
    sgemm_t s0 = *g, s1 = *g;
    s0.threads = s1.threads = 1;
    s0.K = kc;
    s1.K = g->K - kc;
    s1.A = g->A + kc * g->sa1;
    s1.B = g->B + kc * g->sb0;
    s1.a_off = (g->a_off + kc * g->sa1) % 4;
    s1.b_off = (g->b_off + kc * g->sb0) % 4;
    s0.beta = s1.beta = 0.0f;
    float *t = malloc(sizeof(float) * 2 * M * N);
    if (!t) abort();
    s0.C = t;
    s1.C = t + M * N;
    s0.ldc = s1.ldc = N;
    s0.c_off = s1.c_off = 0; /* a malloc'd buffer: 16-byte aligned */
    mkl_sgemm(&s0);
    mkl_sgemm(&s1);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float *c = g->C + i * g->ldc + j;
            const float sum = t[i * N + j] + t[M * N + i * N + j];
            *c = g->beta != 0.0f ? g->beta * *c + sum : sum;
        }
    free(t);
}

static void mkl_sgemm(const sgemm_t *g) {
    const int64_t M = g->M, N = g->N, K = g->K;
    if (M <= 0 || N <= 0) return;
    if (mkl_gemv_n_k_cut(g)) {
        mkl_gemv_n_halves(g);
        return;
    }
    if (g->avx512 && mkl_avx512_modelled(g)) {
        mkl_avx512_sgemm(g);
        return;
    }
    if (g->avx512 && g->threads == 2 && !g->batched && !g->part && M >= 2 && N >= 2) {
        const int form = mkl_avx512_two_threads(g);
        if (form == AVX512_K_CUT) {
            mkl_avx512_k_cut(g);
            return;
        }
        if (form == AVX512_C_CUT) { /* every element the wide form whole */
            sgemm_t s = *g;
            s.wide_part = 1;
            mkl_avx512_sgemm(&s);
            return;
        }
    }
    if (g->avx512 && mkl_avx512_gemv_any(g)) return;
    if (g->avx2 && mkl_avx2_modelled(g)) {
        mkl_avx2_run(g);
        return;
    }
    if (g->avx2 && K > 0 && mkl_avx2_gemv_dot(g)) {
        mkl_avx2_dot(g);
        return;
    }
    if (g->avx2 && K > 0 && mkl_avx2_gemv_axpy(g)) {
        mkl_avx2_gemv(g);
        return;
    }
    if (g->sse42 && mkl_sse42_modelled(g)) {
        mkl_sse42_run(g);
        return;
    }
    if (g->cbwr) {
        mkl_cbwr_sgemm(g);
        return;
    }
    /* rank-1 update, c + (alpha*a)*b; on the generic path also with B transposed (M, N > 1; measured
     * with alpha 0.3 and 1.7 through sgemm_: not the main or dot kernel's rounding of alpha; and
     * through torch.mm and torch.addmm: the product's -0 kept from beta 0, C's -0 plus a -0 product
     * kept, alpha 0.3 on A's element, not the main kernel's c = 0 + t), and a single column
     * (BLAS m = 1) is MKL's gemv instead (its alpha scales the sum ('T') or the vector's element
     * ('N'), below), as on the Intel SSE4.2 path in a plain call (measured there with alpha 0.3: 400
     * random products of K = 1, M 2 to 79, every layout, beta 0 and 1) */
    const int generic = !g->avx2 && !g->sse42 && !g->batched && g->cpublas;
    const int rank1_t = !g->avx2 && !g->sse42 && !g->avx512 && !g->batched && M > 1 && N > 1;
    const int gemv_column = N == 1 && (generic || (g->sse42 && !g->batched));
    if (K == 1 && (!g->tb || rank1_t) && !gemv_column) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) mkl_axpy(g, i, j, 0);
        return;
    }
    if (K > 0 && (M < 12 || N < 12)) { /* gemv: one thread at any thread count */
        /* a 1 x 1 product on the generic path: gemv 'T' with A's row as the matrix row, or 'N' when A
         * is transposed (measured: every transpose pair, strided operands, 1 to 120 products) */
        const int one = M == 1 && N == 1 && generic;
        if (N == 1 && (M > 1 || one) && !g->ta && !g->batched) {
            mkl_gemv_rows_run(g, M, g->A, g->sa0, g->a_off, g->B, g->sb0, g->b_off, g->ldc);
            return;
        }
        if (M == 1 && g->tb && !(g->batched && (g->ta || g->part)) && !one) {
            mkl_gemv_rows_run(g, N, g->B, g->sb1, g->b_off, g->A, g->sa1, g->a_off, 1);
            return;
        }
        if (N == 1 && g->ta && !g->batched) {
            mkl_gemv_n(g);
            return;
        }
        /* the same gemv 'N' seen from the other side (one row, B row-major: cpublas::gemm's n = 1 with
         * A not transposed) with a strided vector: no element peeled, as mkl_gemv_n (measured through
         * sgemm_: 170 random products, m 2 to 100, K 1 to 600, ldb 2 to 5, 1 and 2 threads) */
        if (M == 1 && !g->tb && generic && g->sa1 != 1) {
            for (int64_t j = 0; j < N; j++) mkl_axpy(g, 0, j, 0);
            return;
        }
    }
    if (g->threads < 2 || g->batched || mkl_unsplit(M, N, K))
        mkl_serial(g);
    else
        mkl_threaded(g);
}

/* ------------------------------------------------------------------------------ batched gemm
 * MKL's batched gemm (cblas_sgemm_batch, one group of nb >= 2 items, as at::bmm calls it:
 * mkl_blas_sgemm_batch -> gemm_batch_internal32), read from its code and traced with gdb (the
 * per-task mkl_blas_xsgemm calls), T = MKL's thread count:
 *   every item with M == 1, A not transposed and K > 0 (all items of the group): MKL's gemv per
 *     item (mkl_blas_xsgemv), whole (mkl_sgemm as a batch item);
 *   T == 1, or nb >= T: items whole, split between threads (mkl_sgemm as a batch item);
 *   otherwise (2 <= nb < T, so T >= 3): items with M == N == K > 31*T each run as a plain threaded
 *     sgemm (mkl_sgemm not batched: MKL's thread grid); any other item is cut along its longer
 *     side (N when N > M, else M) into parts, each a batch item of its own (mkl_blas_xsgemm):
 *       per = ceil(nb*L / T) (L the side's length); per = 32 if per < 32, else halved while above
 *       the cap (1920 for N, 256 for M); c = min(L, per); parts = ceil(L / c) if c > 63, else
 *       floor(L / c); parts of w = roundup(ceil(L / parts), 16), the last taking the rest (one
 *       part: the item whole; a part starting past L is empty).
 * No bit depends on which thread runs which task (a static split of the nb*parts tasks). */
#define MKL_BATCH_CAP_M 256
#define MKL_BATCH_CAP_N 1920

/* How MKL's batched gemm of nb items on `threads` threads cuts an M x N item (K deep, A handed
 * over transposed or not): 0 = whole, as a batch item; -1 = whole, as a plain (threaded) sgemm;
 * else the part width w > 0, along N when *cols, else along M. */
static int64_t mkl_batch_split(int64_t nb, int64_t threads, int64_t M, int64_t N, int64_t K, int ta, int *cols) {
    *cols = 0;
    if (nb < 2 || threads < 3 || nb >= threads || M <= 0 || N <= 0) return 0;
    if (M == 1 && !ta && K != 0) return 0; /* the batched gemv path */
    if (M == N && N == K && N > 31 * threads) return -1;
    *cols = N > M;
    const int64_t L = *cols ? N : M, cap = *cols ? MKL_BATCH_CAP_N : MKL_BATCH_CAP_M;
    int64_t per = divup(nb * L, threads);
    if (per <= 31)
        per = 32;
    else
        while (per > cap) per >>= 1;
    const int64_t c = L < per ? L : per;
    const int64_t parts = c > 63 ? divup(L, c) : L / c;
    if (parts <= 1) return 0;
    return divup(divup(L, parts), 16) * 16;
}

/* One item of MKL's batched gemm of nb items (g->batched set, g->threads MKL's thread count). */
static void mkl_sgemm_batch_item(const sgemm_t *g, int64_t nb) {
    int cols;
    const int64_t w = mkl_batch_split(nb, g->threads, g->M, g->N, g->K, g->ta, &cols);
    if (w == 0) {
        mkl_sgemm(g);
        return;
    }
    if (w < 0) {
        sgemm_t s = *g;
        s.batched = 0;
        mkl_sgemm(&s);
        return;
    }
    const int64_t L = cols ? g->N : g->M;
    for (int64_t s0 = 0; s0 < L; s0 += w) {
        const int64_t s1 = s0 + w < L ? s0 + w : L;
        sgemm_t s = cols ? mkl_sub(g, 0, g->M, s0, s1) : mkl_sub(g, s0, s1, 0, g->N);
        s.part = 1;
        s.item_m = g->M;
        s.item_n = g->N;
        mkl_sgemm(&s);
    }
}

#endif
