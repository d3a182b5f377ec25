/* The matrix products of torch 2.13.0's Linux aarch64 wheel, float32, bit for bit: NVPL sgemm
 * (BLAS_INFO=nvpl, reached through at::native::cpublas::gemm) and oneDNN's matmul on the Arm
 * Compute Library (gemm:acl, the route addmm_impl_cpu_ takes on aarch64 for x @ W.T products).
 * Both libraries are closed to us or too large to read: the orders below were measured on the
 * real wheel under QEMU (tools/emulate_arm64.py; Neoverse N1, V1 and V2 give the same bits, 1 and
 * 2 threads alike, except for which ACL kernel family a product gets) by fitting per-element models to random products of 40 shapes (every layout,
 * M, N or K of 1, odd sizes, K up to 8193), the gemv 'N' kernel read with gdb; see docs/impl/kernels.md.
 *
 * In torch's row-major terms, as csrc/mkl_sgemm.h's sgemm_t (its a_off/b_off/c_off, threads and
 * batched are not used here: no bit depends on them):
 *   C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C.
 *
 * NVPL (nvpl_sgemm):
 *   M == 1, B stored transposed (column-major; torch's BLAS call is a gemv 'T'): the dot form: four
 *     lanes over k (lane q sums k = q, q+4, ... of the full groups of four, each a fused chain from
 *     0), the lanes added in pairs ((l0 + l1) + (l2 + l3)), then the k % 4 tail fused into that sum
 *     in k order; c = alpha * s + beta * C.
 *   M == 1, B row-major (gemv 'N'): nvpl_gemv_n below (8-column panels).
 *   otherwise (gemm): K is cut into blocks of 640
 *     (the last one taking what is left); each block one fused chain from 0 over its k in increasing
 *     order; c = beta * C, then c = c + alpha * t block by block (beta = 0: c starts as the first
 *     block's alpha * t). alpha is verified for powers of two only (flash attention's scale with
 *     head size 64): other values round differently (not modelled).
 * A product with N == 1 (a column-vector result: torch's gemv on A, or an sgemm with BLAS's m == 1,
 * as flash attention's with head size 1 makes) takes the same forms as its transpose: callers run
 * it through nvpl_sgemm_torch, which hands nvpl_sgemm the M == 1 problem C^T = B^T @ A^T; with a
 * strided vector or output (and M >= 2) NVPL runs other forms (nvpl_gemv_strided).
 *
 * oneDNN / ACL (acl_sgemm): ACL's arm_gemm runs one of two kernel families, picked per product by
 * its cycle estimates (harness/impl/linalg.py _acl_kc chooses; the caller passes acl_kc):
 *   acl_kc == 0, the hybrid kernels (a64_ffhybrid_fp32_mla_6x16; on SVE also sve_ffhybrid_fp32_mla_6x4VL):
 *     each element one fused chain over all of K in increasing order, starting from beta * C (torch
 *     copies the bias into C and asks for the sum post-op: the chain starts at the bias). Their K
 *     blocks (512 above K = 768) reload C into the accumulators, so the chain runs on unbroken
 *     (measured to K = 8193).
 *   acl_kc > 0, the interleaved kernels (a64_ffinterleaved_fp32_mla_8x12; on SVE also
 *     sve_ffinterleaved_fp32_mla_8x3VL): K cut into ceil(K / acl_kc) blocks of kb = ceil(K / blocks)
 *     (the last one taking the rest); each block one fused chain from 0 in k order into a buffer,
 *     then merged into C: c = beta * C + t0 (beta = 0: c = t0), then c = c + t for each later block
 *     (one rounding per merge). acl_kc is the kernel's K block limit, (32 KiB / 2) / (4 bytes *
 *     max(out_width, 8)): 341 for the 8x12 kernel, 170 for 8x3VL with 256-bit vectors.
 * alpha other than 1 unverified. Which products take ACL is torch's choice (linalg.py _blas).
 */
#ifndef PARITY_NVPL_SGEMM_H
#define PARITY_NVPL_SGEMM_H

#include "mkl_sgemm.h"

#define NVPL_KC 640 /* NVPL's k block: blocks of 640, each summed from 0, added to C in turn */
/* NVPL's whole register tiles, in torch's row-major terms: 12 rows of C by 8 columns (BLAS's 8 x 12
 * of column-major C). A whole tile adds a block's sum into C fused, c = fma(alpha, t, c); the rows
 * and columns left over from whole tiles take c + alpha * t (rounded product, then the sum). */
#define NVPL_TILE_M 12
#define NVPL_TILE_N 8

/* Row-major copy of B[k0..k1, 0..N) (any strides) into bt[(k - k0) * N + j]; a strided B in
 * groups of 8 rows, column by column (a transposed B reads 8 neighbours at a time). */
static void arm_pack_b(const sgemm_t *g, int64_t k0, int64_t k1, float *bt) {
    const int64_t N = g->N, sb0 = g->sb0, sb1 = g->sb1;
    int64_t k = k0;
    if (sb1 != 1)
        for (; k + 8 <= k1; k += 8)
            for (int64_t j = 0; j < N; j++)
                for (int64_t q = 0; q < 8; q++) bt[(k - k0 + q) * N + j] = g->B[(k + q) * sb0 + j * sb1];
    for (; k < k1; k++) {
        const float *b = g->B + k * sb0;
        float *d = bt + (k - k0) * N;
        if (sb1 == 1)
            memcpy(d, b, sizeof(float) * (size_t)N);
        else
            for (int64_t j = 0; j < N; j++) d[j] = b[j * sb1];
    }
}

/* Rows of A taken together by arm_chain (speed only). */
#define ARM_ROWS 2

/* t[r][j] = fmaf(a[r, k], bt[k][j], t[r][j]) for k in [0, kb) in increasing order, for nr rows of A
 * (row r at a + r * sa0) and t (row r at t + r * N): one fused chain per element, nothing else.
 * Pairs of rows and four k at a time share each pass over j (the chain steps nested in k order,
 * so each element's chain is the same), then the rows and k left one at a time. */
static void arm_chain(int64_t N, int64_t kb, int64_t nr, const float *a, int64_t sa0, int64_t sa1, const float *restrict bt,
                      float *restrict t) {
    const int64_t k4 = kb - kb % 4;
    int64_t r = 0;
    for (; r + ARM_ROWS <= nr; r += ARM_ROWS) {
        const float *a0 = a + r * sa0, *a1 = a0 + sa0;
        float *restrict t0 = t + r * N, *restrict t1 = t0 + N;
        for (int64_t k = 0; k < k4; k += 4) {
            const float x0 = a0[k * sa1], x1 = a0[(k + 1) * sa1], x2 = a0[(k + 2) * sa1], x3 = a0[(k + 3) * sa1];
            const float y0 = a1[k * sa1], y1 = a1[(k + 1) * sa1], y2 = a1[(k + 2) * sa1], y3 = a1[(k + 3) * sa1];
            const float *restrict b0 = bt + k * N, *restrict b1 = b0 + N, *restrict b2 = b1 + N, *restrict b3 = b2 + N;
#pragma GCC unroll 4
            for (int64_t j = 0; j < N; j++) {
                t0[j] = fmaf(x3, b3[j], fmaf(x2, b2[j], fmaf(x1, b1[j], fmaf(x0, b0[j], t0[j]))));
                t1[j] = fmaf(y3, b3[j], fmaf(y2, b2[j], fmaf(y1, b1[j], fmaf(y0, b0[j], t1[j]))));
            }
        }
        for (int64_t k = k4; k < kb; k++) {
            const float x = a0[k * sa1], y = a1[k * sa1];
            const float *restrict b = bt + k * N;
            for (int64_t j = 0; j < N; j++) {
                t0[j] = fmaf(x, b[j], t0[j]);
                t1[j] = fmaf(y, b[j], t1[j]);
            }
        }
    }
    for (; r < nr; r++)
        for (int64_t k = 0; k < kb; k++) {
            const float ak = a[r * sa0 + k * sa1];
            const float *restrict b = bt + k * N;
            float *restrict tr = t + r * N;
            for (int64_t j = 0; j < N; j++) tr[j] = fmaf(ak, b[j], tr[j]);
        }
}

typedef struct {
    const sgemm_t *g;
    int64_t m0, m1;
    int acl;
    int64_t acl_kc;
} arm_rows_job_t;

/* ACL's interleaved K block for a limit kc (GemmInterleaved's get_k_block_size): as many blocks as
 * the limit needs, K shared out evenly between them, rounded up. */
static int64_t acl_k_block(int64_t K, int64_t kc) {
    const int64_t blocks = divup(K, kc);
    return divup(K, blocks);
}

/* Rows [m0, m1) of C by the NVPL gemm form (acl = 0), ACL's hybrid chain (acl = 1, acl_kc = 0) or
 * ACL's interleaved form (acl = 1, K blocks for the limit acl_kc); see the comment at the top.
 * Rows go ARM_ROWS at a time through arm_chain (each element still its own chain). */
static void arm_rows(const sgemm_t *g, int64_t m0, int64_t m1, int acl, int64_t acl_kc) {
    const int64_t N = g->N, K = g->K;
    const int64_t kc = !acl ? NVPL_KC : acl_kc > 0 ? acl_k_block(K, acl_kc) : (K > 0 ? K : 1);
    const int64_t kmax = K < kc ? K : kc;
    float *bt = malloc(sizeof(float) * (size_t)((kmax > 0 ? kmax : 1) * N));
    float *tt = malloc(sizeof(float) * (size_t)(ARM_ROWS * N));
    for (int64_t k0 = 0; k0 < K; k0 += kc) {
        const int64_t kb = K - k0 < kc ? K - k0 : kc;
        arm_pack_b(g, k0, k0 + kb, bt);
        for (int64_t i0 = m0; i0 < m1; i0 += ARM_ROWS) {
            const int64_t nr = m1 - i0 < ARM_ROWS ? m1 - i0 : ARM_ROWS;
            const int hybrid = acl && acl_kc <= 0;
            for (int64_t r = 0; r < nr; r++) {
                const float *c = g->C + (i0 + r) * g->ldc;
                float *t = tt + r * N;
                if (hybrid) /* hybrid: one chain from beta * C */
                    for (int64_t j = 0; j < N; j++) t[j] = g->beta == 0.0f ? 0.0f : g->beta * c[j];
                else
                    for (int64_t j = 0; j < N; j++) t[j] = 0.0f;
            }
            arm_chain(N, kb, nr, g->A + i0 * g->sa0 + k0 * g->sa1, g->sa0, g->sa1, bt, tt);
            for (int64_t r = 0; r < nr; r++) {
                const int64_t i = i0 + r;
                float *c = g->C + i * g->ldc;
                const float *t = tt + r * N;
                /* v = alpha * t (t itself for alpha = 1); the tests hoisted out of the loops */
                const float alpha = g->alpha, beta = g->beta;
                const int one = alpha == 1.0f;
                if (hybrid || (k0 == 0 && beta == 0.0f)) { /* hybrid, or the first block with beta = 0: c = v */
                    if (one)
                        memcpy(c, t, sizeof(float) * (size_t)N);
                    else
                        for (int64_t j = 0; j < N; j++) c[j] = alpha * t[j];
                    continue;
                }
                if (acl) { /* interleaved: this block's chain from 0, merged into C (one rounding) */
                    if (k0 > 0)
                        for (int64_t j = 0; j < N; j++) c[j] = c[j] + (one ? t[j] : alpha * t[j]);
                    else
                        for (int64_t j = 0; j < N; j++) c[j] = beta * c[j] + (one ? t[j] : alpha * t[j]);
                    continue;
                }
                const int full_rows = i < g->M / NVPL_TILE_M * NVPL_TILE_M;
                const int64_t nfull = full_rows ? N / NVPL_TILE_N * NVPL_TILE_N : 0;
                for (int64_t j = 0; j < nfull; j++) c[j] = fmaf(alpha, t[j], c[j]);
                for (int64_t j = nfull; j < N; j++) c[j] = c[j] + (one ? t[j] : alpha * t[j]);
            }
        }
    }
    free(tt);
    free(bt);
}

static void *arm_rows_job(void *arg) {
    const arm_rows_job_t *j = arg;
    arm_rows(j->g, j->m0, j->m1, j->acl, j->acl_kc);
    return NULL;
}

/* The gemm form (or an ACL form, acl_kc as acl_sgemm's) on every element, rows split between
 * g->workers pthreads (speed only). */
static void arm_main(const sgemm_t *g, int acl, int64_t acl_kc) {
    const int64_t M = g->M, N = g->N, K = g->K, ldc = g->ldc;
    float *C = g->C;
    if (g->beta != 0.0f && g->beta != 1.0f && !acl)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) C[i * ldc + j] = g->beta * C[i * ldc + j];
    if (K <= 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++)
                C[i * ldc + j] = g->beta == 0.0f ? 0.0f : (acl ? g->beta * C[i * ldc + j] : C[i * ldc + j]);
        return;
    }
    int64_t nt = g->workers < 1 ? 1 : g->workers;
    nt = nt < M ? nt : M;
    nt = nt < MKL_MAX_WORKERS ? nt : MKL_MAX_WORKERS;
    if (nt <= 1 || M * N * K < MKL_MIN_SPLIT) {
        arm_rows(g, 0, M, acl, acl_kc);
        return;
    }
    arm_rows_job_t jobs[MKL_MAX_WORKERS];
    const int64_t per = divup(M, nt);
    for (int64_t t = 0; t < nt; t++)
        jobs[t] = (arm_rows_job_t){g, t * per < M ? t * per : M, (t + 1) * per < M ? (t + 1) * per : M, acl, acl_kc};
    mkl_run_jobs(arm_rows_job, jobs, sizeof jobs[0], nt);
}

/* NVPL's dot form for row 0 of C (M == 1, B column-major): element j is
 * s = ((l0 + l1) + (l2 + l3)) with lane q = fused chain over k = q, q+4, ... < K - K % 4, then the
 * tail k fused into s in order; c = alpha * s + beta * C. */
static void nvpl_dot_form(const sgemm_t *g) {
    const int64_t K = g->K, full = K - K % 4;
    for (int64_t j = 0; j < g->N; j++) {
        const float *b = g->B + j * g->sb1;
        float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int64_t k = 0; k < full; k += 4)
            for (int q = 0; q < 4; q++) l[q] = fmaf(g->A[(k + q) * g->sa1], b[(k + q) * g->sb0], l[q]);
        float s = (l[0] + l[1]) + (l[2] + l[3]);
        for (int64_t k = full; k < K; k++) s = fmaf(g->A[k * g->sa1], b[k * g->sb0], s);
        float *c = g->C + j;
        const float v = g->alpha == 1.0f ? s : g->alpha * s;
        *c = g->beta == 0.0f ? v : v + g->beta * *c;
    }
}

/* NVPL's gemv 'N' for row 0 of C (M == 1, B row-major: y[j] = sum_k x[k] * B[k,j]); read with a
 * debugger from its 8-column panel kernel, then checked on random products: y = beta * C (0 for
 * beta = 0); x's elements are scaled by alpha (rounded); K is taken in panels of 8 columns from
 * k = 0; in a panel, the outputs j below 4*floor(N/4) (when N >= 4) take
 *   t = x1*b1 (rounded); t = fma(x0, b0, t); t = t + y; t = fma(xk, bk, t) for k = 2..7; y = t
 * (k relative to the panel), the other outputs one fused chain from y over the panel's 8 columns;
 * the K mod 8 columns left are then added as fused steps y = fma(xk, bk, y) in k order. */
static void nvpl_gemv_n(const sgemm_t *g) {
    const int64_t K = g->K, N = g->N, full = K - K % 8, nv = N >= 4 ? N / 4 * 4 : 0;
    float *y = g->C;
    float *x = malloc(sizeof(float) * (size_t)(K > 0 ? K : 1));
    for (int64_t k = 0; k < K; k++) x[k] = g->alpha == 1.0f ? g->A[k * g->sa1] : g->alpha * g->A[k * g->sa1];
    for (int64_t j = 0; j < N; j++) y[j] = g->beta == 0.0f ? 0.0f : g->beta * y[j];
#define NVPL_B(k, j) g->B[(k) * g->sb0 + (j) * g->sb1]
    for (int64_t k0 = 0; k0 < full; k0 += 8) {
        for (int64_t j = 0; j < nv; j++) {
            float t = x[k0 + 1] * NVPL_B(k0 + 1, j);
            t = fmaf(x[k0], NVPL_B(k0, j), t);
            t = t + y[j];
            for (int64_t k = k0 + 2; k < k0 + 8; k++) t = fmaf(x[k], NVPL_B(k, j), t);
            y[j] = t;
        }
        for (int64_t j = nv; j < N; j++)
            for (int64_t k = k0; k < k0 + 8; k++) y[j] = fmaf(x[k], NVPL_B(k, j), y[j]);
    }
    for (int64_t k = full; k < K; k++)
        for (int64_t j = 0; j < N; j++) y[j] = fmaf(x[k], NVPL_B(k, j), y[j]);
#undef NVPL_B
    free(x);
}

static void nvpl_sgemm(const sgemm_t *g) {
    if (g->M <= 0 || g->N <= 0) return;
    if (g->M == 1 && g->tb && g->K > 0) {
        nvpl_dot_form(g);
        return;
    }
    if (g->M == 1 && !g->tb && g->K > 0) {
        nvpl_gemv_n(g);
        return;
    }
    arm_main(g, 0, 0);
}

/* nvpl_sgemm on the product as torch's BLAS call makes it: one with N == 1 (one column of C; BLAS's
 * m == 1) is run as the transposed problem C^T[1,M] = B^T @ A^T (C's column, ldc apart, as a row),
 * so that it reaches the M == 1 forms (measured: at::mm into a column, and flash attention's
 * products with head size 1 on N1, V1 and V2, whose PV and grad_q products are BLAS m = 1). */
static int nvpl_gemv_strided(const sgemm_t *g);

static void nvpl_sgemm_torch(const sgemm_t *g) {
    if (g->N != 1 || g->M <= 0) {
        nvpl_sgemm(g);
        return;
    }
    if (nvpl_gemv_strided(g)) return;
    sgemm_t t = *g;
    t.M = 1, t.N = g->M;
    t.A = g->B, t.sa0 = g->sb1, t.sa1 = g->sb0;
    t.B = g->A, t.sb0 = g->sa1, t.sb1 = g->sa0;
    t.ta = !g->tb, t.tb = !g->ta;
    float *col = malloc(sizeof(float) * (size_t)g->M);
    for (int64_t i = 0; i < g->M; i++) col[i] = g->C[i * g->ldc];
    t.C = col, t.ldc = g->M;
    nvpl_sgemm(&t);
    for (int64_t i = 0; i < g->M; i++) g->C[i * g->ldc] = col[i];
    free(col);
}

/* NVPL's gemv with a strided vector or output (incx = B's row stride or incy = ldc not 1: flash
 * attention's head-size-1 products with several heads), N == 1 and M >= 2, element i of the column:
 *   A row-major (gemv 'T'): a strided vector: one fused chain from 0 in k order; only the output
 *     strided: the dot form's lanes (nvpl_dot_form); then c = fmaf(alpha, s, beta * C);
 *   A transposed (gemv 'N'): one unfused chain from 0 in k order, then c = beta * C + alpha * s.
 * Measured on N1 (random data with spread exponents, 160 products, M 2 to 40, K 1 to 100, strides 1
 * to 3, alpha 1 and 0.3: every output; a single output (M == 1) takes other forms, not modelled).
 * Returns 0 (nothing done) outside those shapes. */
static int nvpl_gemv_strided(const sgemm_t *g) {
    const int64_t M = g->M, K = g->K, incx = g->sb0;
    if (g->N != 1 || M < 2 || K <= 0 || (incx == 1 && g->ldc == 1)) return 0;
    for (int64_t i = 0; i < M; i++) {
        const float *a = g->A + i * g->sa0, *x = g->B;
        float s = 0.0f, *c = g->C + i * g->ldc;
        if (g->ta) {
            for (int64_t k = 0; k < K; k++) s = s + a[k * g->sa1] * x[k * incx];
            const float v = g->alpha * s;
            *c = g->beta == 0.0f ? v : g->beta * *c + v;
            continue;
        }
        if (incx != 1) {
            for (int64_t k = 0; k < K; k++) s = fmaf(a[k * g->sa1], x[k * incx], s);
        } else {
            const int64_t full = K - K % 4;
            float l[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int64_t k = 0; k < full; k += 4)
                for (int q = 0; q < 4; q++) l[q] = fmaf(a[(k + q) * g->sa1], x[k + q], l[q]);
            s = (l[0] + l[1]) + (l[2] + l[3]);
            for (int64_t k = full; k < K; k++) s = fmaf(a[k * g->sa1], x[k], s);
        }
        *c = fmaf(g->alpha, s, g->beta == 0.0f ? 0.0f : g->beta * *c);
    }
    return 1;
}

/* acl_kc: 0 for ACL's hybrid kernels, else the interleaved kernel's K block limit (see the top). */
static void acl_sgemm(const sgemm_t *g, int64_t acl_kc) {
    if (g->M <= 0 || g->N <= 0) return;
    arm_main(g, 1, acl_kc);
}

#endif
