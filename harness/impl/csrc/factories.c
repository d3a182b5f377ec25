/* ATen's range factories, torch.arange and torch.linspace of float32 (RangeFactoriesKernel.cpp), on x86
 * and aarch64; torch.kaiser_window's kernel of float32 (UnaryOpsKernel.cpp), on x86 and aarch64.
 *
 * Shape legend: n the output's length (arange's ceil((end - start) / step), linspace's steps, the
 * kaiser window's length, one more where periodic).
 *
 * Both run REGISTER_DISPATCH kernels: the default object at default capability, the AVX2 object at avx2
 * and avx512 (profile.contract: GCC contracted its scalar a*b+c into FMAs); on aarch64 the NEON object
 * (N1's DEFAULT, V2's SVE128) or the SVE256 one (V1), GCC contracting both. at::parallel_for cuts
 * [0, n) into the threads' chunks (GRAIN_SIZE); each chunk counts idx from its own start. */
#include "common.h"
#include "vmath.h"

/* arange_kernel: accscalar_t is double for float, so start and step are doubles and every position is
 * computed in double, then rounded to float. cpu_serial_kernel_vec over a chunk [b, e) of the
 * contiguous output is the vectorized loop: two vectors of `lanes` at a time while 2 * lanes fit,
 * each Vectorized<float>::arange(start + step * idx, step): its base rounded to float first, lane j
 * base + j * step in double (the AVX2 object's lane 0 is base itself, the generic one's base + 0 * step:
 * a -0 base is +0 there); the rest of the chunk the scalar lambda, start + step * idx. In the AVX2
 * object both double a*b+c are contracted (no float result in 200,000 draws tells the two apart).
 * out: (n,) */
static inline double arange_madd(const profile_t *p, double a, double b, double c) {
    return p->contract ? fma(a, b, c) : c + a * b;
}

/* Lane j of aarch64's Vectorized<float>::arange(base, step), step the double accscalar_t: the NEON
 * object's (N1, V2) fmadd of (0, 1, 2, 3) and step converted to float onto base, one float FMA (lane 0
 * base + 0 * step: a -0 base is +0 for a positive step); the SVE256 object's (V1) base + j * step in
 * double, contracted by GCC, rounded to float. Measured on emulated N1, V1 and V2 (arm64_factories_cases). */
static inline float arange_lane_arm(const profile_t *p, float base, double step, int64_t j) {
    if (obj_kind(p) == OBJ_SVE) return (float)fma((double)j, step, (double)base);
    return fmaf((float)j, (float)step, base);
}

void arange_forward(profile_t p, double start, double step, float *out, int64_t n) {
    const int64_t lanes = p.lanes, threads = parallel_threads(0, n, GRAIN_SIZE, p.threads);
    for (int64_t tid = 0; tid < threads; tid++) {
        int64_t b, e, i;
        if (!parallel_chunk(0, n, GRAIN_SIZE, p.threads, tid, &b, &e)) continue;
        const int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes); /* whole pairs of vectors */
        for (i = b; i < body; i += lanes) {
            const float base = (float)arange_madd(&p, step, (double)i, start);
            if (is_arm(&p)) {
                for (int64_t j = 0; j < lanes; j++) out[i + j] = arange_lane_arm(&p, base, step, j);
                continue;
            }
            out[i] = p.aten ? base : (float)((double)base + 0.0 * step); /* AVX2's lane 0 is base itself */
            for (int64_t j = 1; j < lanes; j++) out[i + j] = (float)arange_madd(&p, (double)j, step, (double)base);
        }
        for (; i < e; i++) out[i] = (float)arange_madd(&p, step, (double)i, start);
    }
}

/* linspace_kernel: start and end rounded to float, step = (end - start) / (steps - 1) in float; a
 * serial kernel (no vector lambda): element idx is start + step * idx below steps / 2, else
 * end - step * (steps - idx - 1), idx converted to float; contracted in the AVX2 object (fmaf, and
 * fmaf(-step, k, end)) and in aarch64's objects, two roundings in the default one. steps == 1: start
 * (linspace_out's fill_). out: (n,) */
void linspace_forward(profile_t p, double start_d, double end_d, float *out, int64_t n) {
    const float start = (float)start_d, end = (float)end_d;
    if (n == 1) {
        out[0] = start;
        return;
    }
    const float step = (end - start) / (float)(n - 1);
    const int64_t halfway = n / 2;
    for (int64_t idx = 0; idx < n; idx++) {
        if (idx < halfway) {
            const float k = (float)idx;
            out[idx] = p.contract ? fmaf(step, k, start) : start + step * k;
        } else {
            const float k = (float)(n - idx - 1);
            out[idx] = p.contract ? fmaf(-step, k, end) : end - step * k;
        }
    }
}

/* ----------------------------------------------------------------------------- kaiser_window */

/* Cephes' Chebyshev coefficients of exp(-x) I0(x), on [0, 8] (A, in y = x/2 - 2) and on (8, inf) (B, in
 * y = 32/x - 2), rounded to float: Math.h's chebyshev_coefficients_i0e_A<float> / _B<float>. */
static const float kw_i0e_a[30] = {
    -0x1.45cb72p-58f, 0x1.33362ap-55f, -0x1.184eb8p-52f, 0x1.ee6d8ap-50f, -0x1.a5022cp-47f, 0x1.59b464p-44f,
    -0x1.1164c6p-41f, 0x1.9fe2fep-39f, -0x1.2fc958p-36f, 0x1.a98becp-34f, -0x1.1d4fe2p-31f, 0x1.6d903ap-29f,
    -0x1.beaf68p-27f, 0x1.03b76ap-24f, -0x1.1ec638p-22f, 0x1.2bf24ap-20f, -0x1.2866fcp-18f, 0x1.13f58cp-16f,
    -0x1.e2b266p-15f, 0x1.8b51b8p-13f, -0x1.2e2fd2p-11f, 0x1.adc758p-10f, -0x1.1b65e2p-8f,  0x1.59962p-7f,
    -0x1.84e9fp-6f,   0x1.93e8acp-5f,  -0x1.84b704p-4f,  0x1.5f7ac8p-3f,  -0x1.37febcp-2f,  0x1.5a84eap-1f,
};
static const float kw_i0e_b[25] = {
    -0x1.0adb76p-57f, -0x1.646da6p-58f, 0x1.9be182p-55f, 0x1.3f3ddp-55f,   -0x1.4600bap-52f,
    -0x1.8aee7ep-52f, 0x1.fee7dap-50f,  0x1.12a91ap-48f, -0x1.583fe8p-47f, -0x1.75d99cp-45f,
    0x1.156ffp-46f,   0x1.b1c8c6p-42f,  0x1.94348p-41f,  -0x1.f90430p-40f, -0x1.d0fd74p-37f,
    -0x1.1511dp-35f,  0x1.a24feap-37f,  0x1.0f9cccp-31f, 0x1.d2c64ap-29f,  0x1.856928p-26f,
    0x1.b8007ep-23f,  0x1.8412bcp-19f,  0x1.20fa38p-14f, 0x1.b998cap-9f,   0x1.9be62ap-1f,
};

/* Math.h chbevl in float: b0 = c[0], then b0 = y*b1 - b2 + c[i] with (b2, b1) = (b1, b0) each step,
 * 0.5 (b0 - b2); the AVX2 object fuses y*b1 - b2 (VFMSUB), the default one does not. */
static inline float kw_chbevl(int fused, float y, const float *c, int len) {
    float b0 = c[0], b1 = 0.0f, b2 = 0.0f;
    for (int i = 1; i < len; i++) {
        b2 = b1;
        b1 = b0;
        b0 = (fused ? fmaf(y, b1, -b2) : y * b1 - b2) + c[i];
    }
    return 0.5f * (b0 - b2);
}

/* Math.h calc_i0 in float: x = |v|; x <= 8: exp(x) * chbevl(x/2 - 2, A) (x * 0.5 - 2, fused in the AVX2
 * object); else exp(x) * chbevl(32/x - 2, B) / sqrt(x); std::exp glibc's expf. */
static inline float kw_i0(int fused, float v) {
    const float x = fabsf(v), e = glibc_expf(x);
    if (x <= 8.0f) return e * kw_chbevl(fused, fused ? fmaf(x, 0.5f, -2.0f) : x * 0.5f - 2.0f, kw_i0e_a, 30);
    return e * kw_chbevl(fused, 32.0f / x - 2.0f, kw_i0e_b, 25) / sqrtf(x);
}

/* kaiser_window_kernel (UnaryOpsKernel.cpp, REGISTER_DISPATCH: the AVX2 object at avx2 and avx512), a
 * cpu_kernel over arange(n) in float: t = (a - alpha) / alpha, pow(t, 2) as t*t (GCC), w = 1 - t*t
 * (fused in the AVX2 object: fmaf(-t, t, 1)), out = i0(beta * sqrt(|w|)) / i0(beta), both i0 computed
 * per element. alpha = (n - 1) / 2 and beta rounded to float. Element-wise: no thread dependence. Every
 * aarch64 build (DEFAULT, SVE128, SVE256) contracts as the AVX2 object; its expf is glibc_expf's algorithm.
 * out: (n,) */
void kaiser_window_forward(profile_t p, float *out, int64_t n, float alpha, float beta) {
    const int fused = p.contract || is_arm(&p);
    for (int64_t i = 0; i < n; i++) {
        const float t = ((float)i - alpha) / alpha;
        const float w = fused ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
        out[i] = kw_i0(fused, beta * sqrtf(fabsf(w))) / kw_i0(fused, beta);
    }
}
