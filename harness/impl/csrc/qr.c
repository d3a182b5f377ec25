/* QR factorisation: torch.linalg.qr of a float32 (M, N) matrix, M >= N, mode 'reduced', as MKL's LAPACK
 * runs it on its generic code path (an AMD CPU: the "def" SSE kernels, no FMA): sgeqrf, then sorgqr.
 *
 * Shapes: M rows, N columns, M >= N, N <= 32. Every matrix is column-major with leading dimension M
 * (ATen's copy for LAPACK) in a 64-byte aligned buffer (torch's allocator): the vector loops of MKL's
 * gemv start where a pointer reaches a 16-byte boundary, so the offsets of A and x from that buffer's
 * start (at, xt, in elements) decide where they start.
 *
 * sgeqrf takes one of three unblocked paths by shape (qr.py geqrf_path, measured):
 *   small   M <= 20: mkl_lapack_ps_def_sgeqrf_small, reference sgeqr2 with a sequential dot, its own norm
 *           update and a division by (alpha - beta);
 *   geqr2   21 <= N, M == N or 51 <= M <= 64: reference sgeqr2 (slarfg: the scaled sum of squares of the
 *           old snrm2; slarf: gemv('T') then the rank-1 update c + v*t);
 *   pfnr    otherwise: mkl_lapack_sgeqrf_pfnr, one gemv('T') per column giving |x|^2 and every trailing
 *           dot product at once; on 2 threads (21 <= N, M/2 > N, M > 50) its OpenMP branch splits the
 *           rows at ceil(M/2) and adds the two threads' partial products.
 * sorgqr runs sorg2r (reference order, with the same gemv and rank-1 update).
 * Compiled with -ffp-contract=off: every product and sum is rounded on its own, as MKL's SSE code does. */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define QR_REFUSED -1 /* a safety branch of MKL's (a zero, tiny, huge or non-finite norm) the model lacks */

/* Elements from offset `off` of a 64-byte aligned buffer to the next 16-byte boundary. */
static int peel_at(int64_t off) { return (int)((4 - off % 4) % 4); }

/* ((a0 + a2) + (a1 + a3)): the SSE accumulator's horizontal sum. */
static float hsum4(const float a[4]) { return (a[0] + a[2]) + (a[1] + a[3]); }

/* One column of the 4-column body: x[0]*a[0] alone, then x[1..m) and a[1..m): elements one by one up to
 * `peel`, 4 lanes (lane 0 starting from the sum so far), the lanes summed, the rest one by one. `vec` 0:
 * all one by one (too short, or the column does not meet the boundary). */
static float dot_col4(int64_t m, const float *x, const float *a, int peel, int vec) {
    float s = x[0] * a[0];
    if (m < 2) return s;
    const int64_t r = m - 1;
    const float *xx = x + 1, *aa = a + 1;
    int64_t i = 0;
    if (vec) {
        for (; i < peel; i++) s = s + xx[i] * aa[i];
        float acc[4] = {s, 0.f, 0.f, 0.f};
        const int64_t end = peel + ((r - peel) / 4) * 4;
        for (; i < end; i += 4)
            for (int l = 0; l < 4; l++) acc[l] = acc[l] + xx[i + l] * aa[i + l];
        s = hsum4(acc);
    }
    for (; i < r; i++) s = s + xx[i] * aa[i];
    return s;
}

/* Where the 8-element loops of the leftover columns start (x's peel), or -1 when they do not run. */
static int pair_peel(int64_t r, int64_t xt) {
    if (r < 8) return -1;
    const int p = peel_at(xt + 1);
    return p + 8 > r ? -1 : p;
}

/* Two leftover columns: a0's products in two 4-lane accumulators (lanes 0-3 and 4-7 of each 8), a1's in one. */
static void dot_pair(int64_t m, const float *x, int64_t xt, const float *a0, const float *a1, float *y) {
    float s0 = x[0] * a0[0], s1 = x[0] * a1[0];
    if (m >= 2) {
        const int64_t r = m - 1;
        const float *xx = x + 1, *b0 = a0 + 1, *b1 = a1 + 1;
        const int peel = pair_peel(r, xt);
        int64_t i = 0;
        if (peel >= 0) {
            for (; i < peel; i++) {
                s0 = s0 + xx[i] * b0[i];
                s1 = s1 + xx[i] * b1[i];
            }
            float p0[4] = {s0, 0.f, 0.f, 0.f}, q0[4] = {0.f, 0.f, 0.f, 0.f}, p1[4] = {s1, 0.f, 0.f, 0.f};
            const int64_t end = peel + ((r - peel) / 8) * 8;
            for (; i < end; i += 8) {
                for (int l = 0; l < 4; l++) {
                    p0[l] = p0[l] + xx[i + l] * b0[i + l];
                    p1[l] = p1[l] + xx[i + l] * b1[i + l];
                }
                for (int l = 0; l < 4; l++) {
                    q0[l] = q0[l] + xx[i + 4 + l] * b0[i + 4 + l];
                    p1[l] = p1[l] + xx[i + 4 + l] * b1[i + 4 + l];
                }
            }
            for (int l = 0; l < 4; l++) p0[l] = p0[l] + q0[l];
            s0 = hsum4(p0);
            s1 = hsum4(p1);
        }
        for (; i < r; i++) {
            s0 = s0 + xx[i] * b0[i];
            s1 = s1 + xx[i] * b1[i];
        }
    }
    y[0] = s0;
    y[1] = s1;
}

/* The last leftover column: two 4-lane accumulators (lanes 0-3 and 4-7 of each 8), products a*x. */
static float dot_last(int64_t m, const float *x, int64_t xt, const float *a) {
    float s = x[0] * a[0];
    if (m < 2) return s;
    const int64_t r = m - 1;
    const float *xx = x + 1, *b = a + 1;
    const int peel = pair_peel(r, xt);
    int64_t i = 0;
    if (peel >= 0) {
        for (; i < peel; i++) s = s + b[i] * xx[i];
        float p0[4] = {s, 0.f, 0.f, 0.f}, p1[4] = {0.f, 0.f, 0.f, 0.f};
        const int64_t end = peel + ((r - peel) / 8) * 8;
        for (; i < end; i += 8)
            for (int l = 0; l < 4; l++) {
                p0[l] = p0[l] + b[i + l] * xx[i + l];
                p1[l] = p1[l] + b[i + 4 + l] * xx[i + 4 + l];
            }
        for (int l = 0; l < 4; l++) p0[l] = p0[l] + p1[l];
        s = hsum4(p0);
    }
    for (; i < r; i++) s = s + b[i] * xx[i];
    return s;
}

/* mkl_blas_def_xsgemv('T', alpha 1, beta 0, unit strides): y[j] = A[:, j] . x for j < n, A (m, n) of
 * leading dimension lda at offset `at`, x at offset `xt`. Columns in groups of 4 (one accumulator each,
 * their common peel from the group's last column, &A[1, j+3]), then pairs, then one. */
static void gemv_t(int64_t m, int64_t n, const float *A, int64_t at, int64_t lda, const float *x, int64_t xt,
                   float *y) {
    const int64_t n4 = n & ~(int64_t)3;
    int64_t j = 0;
    for (; j < n4; j += 4) {
        int vec = 0, peel = 0;
        if (m >= 5) {
            peel = peel_at(at + (j + 3) * lda + 1);
            vec = peel + 4 <= m - 1;
        }
        for (int c = 0; c < 4; c++) y[j + c] = dot_col4(m, x, A + (j + c) * lda, peel, vec);
    }
    for (; j + 2 <= n; j += 2) dot_pair(m, x, xt, A + j * lda, A + (j + 1) * lda, y + j);
    if (j < n) y[j] = dot_last(m, x, xt, A + j * lda);
}

/* The small routine's dot product: one by one from 0. */
static float dot_seq(int64_t m, const float *x, const float *a) {
    float s = 0.f;
    for (int64_t i = 0; i < m; i++) s = s + x[i] * a[i];
    return s;
}

/* The old reference snrm2: scale and sum of squares in float (mkl_lapack_snrm20); `small`: the small
 * routine's update of ssq on a new maximum, (ssq*t)*t + 1 rather than ssq*(t*t) + 1. */
static float nrm2(int64_t n, const float *x, int small) {
    float scale = 0.f, ssq = 1.f;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] == 0.f) continue;
        const float a = fabsf(x[i]);
        if (scale < a) {
            const float t = scale / a;
            ssq = small ? (ssq * t) * t + 1.f : ssq * (t * t) + 1.f;
            scale = a;
        } else {
            const float t = a / scale;
            ssq = ssq + t * t;
        }
    }
    return scale * sqrtf(ssq);
}

/* slapy2: sqrt(x^2 + y^2) as max * sqrt(1 + (min/max)^2). */
static float lapy2(float x, float y) {
    const float xa = fabsf(x), ya = fabsf(y), w = fmaxf(xa, ya), z = fminf(xa, ya);
    if (z == 0.f) return w;
    const float t = z / w;
    return w * sqrtf(t * t + 1.f);
}

/* Whether a norm (or |x|^2) lies outside [2^-60, 2^60]: MKL's safety branches rescale or special-case
 * zero, tiny, huge and non-finite ones, which the model lacks (never met inside that range). */
static int unsafe(float v) { return !isfinite(v) || v < 0x1p-60f || v > 0x1p60f; }

/* slarfg on (alpha, x[0..n-1)): the reflector's tau, x scaled to v, alpha made beta. */
static int larfg(int64_t n, float *alpha, float *x, float *tau, int small) {
    *tau = 0.f;
    if (n <= 1) return 0;
    const float xn = nrm2(n - 1, x, small);
    if (unsafe(xn)) return QR_REFUSED;
    const float beta = -copysignf(lapy2(*alpha, xn), *alpha);
    *tau = (beta - *alpha) / beta;
    if (small) {
        const float d = *alpha - beta;
        for (int64_t i = 0; i < n - 1; i++) x[i] = x[i] / d;
    } else {
        const float sc = 1.f / (-(beta - *alpha));
        for (int64_t i = 0; i < n - 1; i++) x[i] = x[i] * sc;
    }
    *alpha = beta;
    return 0;
}

/* slarf from the left: C (m, n) -= tau * v (v^T C), as w = C^T v (gemv), then c + v*(-tau*w[j]). */
static void larf_left(int64_t m, int64_t n, const float *v, int64_t vt, float tau, float *C, int64_t ct, int64_t ldc,
                      float *w, int small) {
    if (tau == 0.f) return;
    if (small)
        for (int64_t j = 0; j < n; j++) w[j] = dot_seq(m, v, C + j * ldc);
    else
        gemv_t(m, n, C, ct, ldc, v, vt, w);
    for (int64_t j = 0; j < n; j++) {
        const float t = (-tau) * w[j];
        float *c = C + j * ldc;
        for (int64_t i = 0; i < m; i++) c[i] = c[i] + v[i] * t;
    }
}

/* sgeqr2 (small: the small routine's variant) on A (m, n), lda m, in place; tau (n). */
static int geqr2(int64_t m, int64_t n, float *A, float *tau, int small) {
    float *w = malloc(sizeof(float) * (size_t)(n + 1));
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        float *aii = A + i * m + i;
        rc = larfg(m - i, aii, aii + 1, &tau[i], small);
        if (rc == 0 && i < n - 1) {
            const float keep = *aii;
            *aii = 1.f;
            larf_left(m - i, n - i - 1, aii, i * m + i, tau[i], aii + m, (i + 1) * m + i, m, w, small);
            *aii = keep;
        }
    }
    free(w);
    return rc;
}

/* mkl_lapack_sgeqrf_pfnr on A (m, n), lda m, in place; tau (n). Per column i, with x = A[i+1:, i]:
 * w = A[i+1:, i:]^T x (w[0] = |x|^2; on 2 threads two gemvs over the rows before and from `split`,
 * added), beta = -sign(alpha) lapy2(|x|, alpha), tau = (alpha - beta)/(-beta), the trailing row
 * w[k] = ((w[k]*scale) + A[i, i+k]) * (-tau) with scale = 1/(alpha - beta), x *= scale, then each
 * trailing column c + v*w[k] (v = (1, x)). `split` 0: one thread. */
static int geqrf_pfnr(int64_t m, int64_t n, float *A, float *tau, int64_t split) {
    float *w = malloc(sizeof(float) * (size_t)(n + 1)), *w1 = malloc(sizeof(float) * (size_t)(n + 1));
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        const int64_t mm = m - i, nn = n - i;
        float *aii = A + i * m + i;
        tau[i] = 0.f;
        if (mm <= 1) continue;
        if (split == 0) {
            gemv_t(mm - 1, nn, aii + 1, i * m + i + 1, m, aii + 1, i * m + i + 1, w);
        } else {
            const int64_t r0 = i + 1, e0 = split, r1 = split > i + 1 ? split : i + 1;
            const int h0 = e0 > r0, h1 = m > r1;
            if (h0) gemv_t(e0 - r0, nn, A + i * m + r0, i * m + r0, m, A + i * m + r0, i * m + r0, w);
            if (h1) gemv_t(m - r1, nn, A + i * m + r1, i * m + r1, m, A + i * m + r1, i * m + r1, w1);
            for (int64_t j = 0; j < nn; j++) w[j] = h0 && h1 ? w[j] + w1[j] : h1 ? w1[j] : w[j];
        }
        const float alpha = *aii;
        if (unsafe(w[0])) {
            rc = QR_REFUSED;
            break;
        }
        const float ba = lapy2(sqrtf(w[0]), alpha), nb = alpha < 0.f ? -ba : ba;
        const float amb = alpha + nb, scale = 1.f / amb, t = amb / nb;
        tau[i] = t;
        *aii = 1.f;
        for (int64_t k = 1; k < nn; k++) w[k] = ((w[k] * scale) + aii[k * m]) * (-t);
        for (int64_t l = 1; l < mm; l++) aii[l] = aii[l] * scale;
        for (int64_t j = 1; j < nn; j++) {
            float *c = aii + j * m;
            for (int64_t l = 0; l < mm; l++) c[l] = c[l] + aii[l] * w[j];
        }
        *aii = -nb;
    }
    free(w);
    free(w1);
    return rc;
}

/* sorg2r: Q (m, n) from the n reflectors below A's diagonal, in place (lda m), last reflector first. */
static void org2r(int64_t m, int64_t n, float *A, const float *tau) {
    float *w = malloc(sizeof(float) * (size_t)(n + 1));
    for (int64_t i = n - 1; i >= 0; i--) {
        float *aii = A + i * m + i;
        if (i < n - 1) {
            *aii = 1.f;
            larf_left(m - i, n - i - 1, aii, i * m + i, tau[i], aii + m, (i + 1) * m + i, m, w, 0);
        }
        for (int64_t l = 1; l < m - i; l++) aii[l] = aii[l] * -tau[i];
        *aii = 1.f - tau[i];
        for (int64_t l = 0; l < i; l++) A[i * m + l] = 0.f;
    }
    free(w);
}

/* torch.linalg.qr(a, 'reduced'): a (M, N) column-major, lda M, overwritten by Q; r (N, N) column-major gets
 * R. path: 0 small, 1 geqr2, 2 pfnr; split: pfnr's 2-thread row split (0: one thread). 0, or QR_REFUSED. */
int qr_mkl_def(int64_t m, int64_t n, float *a, float *r, int path, int64_t split) {
    float *tau = calloc((size_t)n, sizeof(float));
    const int rc = path == 2 ? geqrf_pfnr(m, n, a, tau, split) : geqr2(m, n, a, tau, path == 0);
    if (rc == 0) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) r[j * n + i] = i <= j ? a[j * m + i] : 0.f;
        org2r(m, n, a, tau);
    }
    free(tau);
    return rc;
}
