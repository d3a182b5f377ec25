/* ATen's range factories, torch.arange and torch.linspace of float32 (RangeFactoriesKernel.cpp), on x86
 * and aarch64.
 *
 * Shape legend: n the output's length (arange's ceil((end - start) / step), linspace's steps).
 *
 * Both run REGISTER_DISPATCH kernels: the default object at default capability, the AVX2 object at avx2
 * and avx512 (profile.contract: GCC contracted its scalar a*b+c into FMAs); on aarch64 the NEON object
 * (N1's DEFAULT, V2's SVE128) or the SVE256 one (V1), GCC contracting both. at::parallel_for cuts
 * [0, n) into the threads' chunks (GRAIN_SIZE); each chunk counts idx from its own start. */
#include "common.h"

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
