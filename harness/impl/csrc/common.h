/* Shared by every impl kernel: the kernel profile and ATen's work split between threads.
 *
 * Compiled with -ffp-contract=off: a*b+c is always two roundings; every fused
 * multiply-add PyTorch performs is written as fmaf() (see docs/impl/kernels.md). */
#ifndef PARITY_COMMON_H
#define PARITY_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* One platform's arithmetic (harness/impl/profiles.py builds it). */
typedef struct {
    int32_t aten;       /* kernels' build: 0 x86 default (scalar), 1 avx2, 2 avx512, 3 aarch64 NEON, 4 SVE */
    int32_t lanes;      /* Vectorized<float>::size() of REGISTER_DISPATCH kernels: 8 on x86, 4 NEON/SVE128 */
    int32_t lanes_wide; /* lanes of ALSO_REGISTER_AVX512_DISPATCH kernels: 16 on avx512, else lanes */
    int32_t vec_fma;    /* Vectorized::fmadd is fused (avx2/avx512) rather than a*b+c (default) */
    int32_t contract;   /* the compiler contracted scalar a*b+c into FMAs in vectorised objects */
    int32_t threads;    /* at::get_num_threads() */
    int32_t blas;       /* the BLAS reproduced: BLAS_* (0 MKL's generic path) */
    int32_t torch;      /* the torch release reproduced, major*10000 + minor*100 + patch: 21201, 21300, 21401 */
    int32_t rsqrt;      /* the CPU's RSQRTPS estimate (MKL VML's sqrt refines it): RSQRT_* */
} profile_t;

#define ATEN_DEFAULT 0
#define ATEN_AVX2 1
#define ATEN_AVX512 2
#define ATEN_NEON 3
#define ATEN_SVE 4
#define BLAS_NVPL 1
#define BLAS_MKL_CBWR 2 /* MKL with MKL_CBWR=COMPATIBLE: its vendor-independent kernels */
#define BLAS_MKL_AVX2 3 /* MKL's Intel AVX2 path (mklavx2) */
#define BLAS_MKL_SSE42 4 /* MKL's Intel SSE4.2 path (mklsse42) */
#define BLAS_MKL_AVX512 5 /* MKL's Intel AVX-512 path (mklavx512) */
#define TORCH_2_13 21300 /* torch 2.13.0 */
#define RSQRT_AMD 0   /* the AMD EPYC's estimate, measured (csrc/rsqrt_tables.h amd_rsqrt_mant) */
#define RSQRT_EXACT 1 /* QEMU's: 1/sqrt(x), each of the two operations rounded to nearest */
#define RSQRT_INTEL 2 /* an Intel Xeon's estimate, measured (csrc/rsqrt_tables.h intel_rsqrt_mant) */

/* a*b+c as the profile's vector code computes it. */
static inline float vfmadd(const profile_t *p, float a, float b, float c) {
    return p->vec_fma ? fmaf(a, b, c) : a * b + c;
}

/* a*b+c, fused or rounded twice as the caller says. */
static inline float madd(int fused, float a, float b, float c) { return fused ? fmaf(a, b, c) : c + a * b; }

/* a*b+c in scalar code of a vectorised object: contracted or not. */
static inline float sfmadd(const profile_t *p, float a, float b, float c) {
    return p->contract ? fmaf(a, b, c) : a * b + c;
}

/* How the compiler treated a*b+c written with Vectorized operators in the object a kernel runs from:
 *   OBJ_X86_DEFAULT  x86 default build: never fused.
 *   OBJ_X86_FMA      x86 AVX2/AVX-512 builds (-mfma): GCC contracted some vector a*b+c (measured per
 *                    kernel) and scalar code.
 *   OBJ_NEON         aarch64 DEFAULT and SVE128 builds, whose Vectorized<float> is the 4-lane NEON
 *                    type: vmulq_f32/vaddq_f32 are GCC vector-extension operators, contracted to
 *                    fmla/fmadd like scalar code.
 *   OBJ_SVE          aarch64 SVE256 build (8-lane svfloat32_t): svmul/svadd intrinsics are never
 *                    contracted; scalar code is. */
enum { OBJ_X86_DEFAULT, OBJ_X86_FMA, OBJ_NEON, OBJ_SVE };

static inline int obj_kind(const profile_t *p) {
    if (p->aten == ATEN_NEON || (p->aten == ATEN_SVE && p->lanes == 4)) return OBJ_NEON;
    if (p->aten == ATEN_SVE) return OBJ_SVE;
    return p->contract ? OBJ_X86_FMA : OBJ_X86_DEFAULT;
}

/* Whether GCC contracted a*b+c written with Vectorized operators in the object the kernel runs from:
 * on x86 in the AVX2/AVX-512 objects (profile.contract, measured); on aarch64 in the NEON-typed objects
 * (DEFAULT, SVE128: vmulq_f32 and vaddq_f32 are vector-extension operators), not in the SVE256 object
 * (svmul/svadd intrinsics), whose scalar code is still contracted. Measured on emulated Neoverse N1, V2,
 * V1 (addcmul's vector lambda, grid_sampler_2d). */
static inline int vec_contracted(const profile_t *p) {
    if (p->aten == ATEN_SVE && p->lanes > 4) return 0;
    return p->contract;
}

/* a*b+c written with Vectorized operators: fused where vec_contracted. */
static inline float vcmadd(const profile_t *p, float a, float b, float c) {
    return vec_contracted(p) ? fmaf(a, b, c) : a * b + c;
}

/* The aarch64 builds (torch's Linux arm64 wheel). */
static inline int is_arm(const profile_t *p) { return p->aten == ATEN_NEON || p->aten == ATEN_SVE; }
/* ATen's AVX2 or AVX-512 build (x86's vectorized objects; not the default one) */
static inline int is_avx(const profile_t *p) { return p->aten == ATEN_AVX2 || p->aten == ATEN_AVX512; }

static inline float qnan_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static inline int is_snan(float a) {
    uint32_t u;
    memcpy(&u, &a, 4);
    return a != a && !(u & 0x00400000u);
}

static inline float quieted(float a) {
    uint32_t u;
    memcpy(&u, &a, 4);
    return qnan_bits(u | 0x00400000u);
}

/* aarch64's FPProcessNaNs of a, b (one of them NaN), a the instruction's first operand: the first
 * signalling NaN quieted, else the first quiet NaN. */
static inline float arm_process_nans(float a, float b) {
    if (is_snan(a)) return quieted(a);
    if (is_snan(b)) return quieted(b);
    return a != a ? a : b;
}

/* The NaN r = op(a, b) gives, a the instruction's first operand: on aarch64 (FPCR.DN off,
 * FPProcessNaNs) the first signalling NaN operand quieted, else the first quiet NaN, else (an invalid
 * operation: inf - inf, inf/inf, 0*inf) the default NaN +qNaN 0x7fc00000; on x86 (SSE/AVX) the first
 * NaN operand quieted, else the default NaN 0xffc00000 (as this host computed r). r wherever it is not
 * a NaN. */
static inline float nan2(const profile_t *p, float r, float a, float b) {
    if (r == r) return r;
    if (!is_arm(p)) return a != a ? quieted(a) : b != b ? quieted(b) : r;
    return a != a || b != b ? arm_process_nans(a, b) : qnan_bits(0x7fc00000u);
}

/* a + b of an FADD (ADDSS) whose first operand is a: its NaN as nan2 names it. */
static inline float add_nans(const profile_t *p, float a, float b) { return nan2(p, a + b, a, b); }

/* maximum_kernel / minimum_kernel (BinaryOpsKernel.cpp) on x86, one element: vec, a vector lane
 * (vec::maximum / vec::minimum: the AVX2 and AVX-512 objects' max_ps(a, b) / min_ps(a, b), b where
 * a == b, the unordered lanes OR-ed with all ones, so a NaN operand gives 0xffffffff; the default
 * object's arrays a > b ? a : b / a < b ? a : b, then a NaN a kept, both as they are), else the scalar
 * lambda (a NaN operand gives quiet_NaN() 0x7fc00000, else std::max / std::min: a where a == b). */
static inline float aten_maximum(const profile_t *p, int vec, float a, float b) {
    if (vec) {
        if (is_avx(p)) return (a != a || b != b) ? qnan_bits(0xffffffffu) : (a > b ? a : b);
        return a != a ? a : (a > b ? a : b);
    }
    if (a != a || b != b) return qnan_bits(0x7fc00000u);
    return a < b ? b : a;
}

static inline float aten_minimum(const profile_t *p, int vec, float a, float b) {
    if (vec) {
        if (is_avx(p)) return (a != a || b != b) ? qnan_bits(0xffffffffu) : (a < b ? a : b);
        return a != a ? a : (a < b ? a : b);
    }
    if (a != a || b != b) return qnan_bits(0x7fc00000u);
    return b < a ? b : a;
}

/* aarch64's FMAX (vmaxq_f32, svmax_f32_x) and FMIN (vminq_f32, svmin_f32_x) of a, b in that order:
 * NaNs as nan2, -0 below +0. */
static inline float fmax_arm(const profile_t *p, float a, float b) {
    if (a != a || b != b) return nan2(p, a + b, a, b);
    if (a == 0.0f && b == 0.0f) return signbit(a) ? b : a;
    return a > b ? a : b;
}

static inline float fmin_arm(const profile_t *p, float a, float b) {
    if (a != a || b != b) return nan2(p, a + b, a, b);
    if (a == 0.0f && b == 0.0f) return signbit(a) ? a : b;
    return a < b ? a : b;
}

/* As nan2 for fma(a, b, c) = c + a*b (FMLA/FMADD, FPProcessNaNs3 in the order c, a, b): a quiet
 * NaN addend with 0 * inf is the default NaN. */
static inline float nan3(const profile_t *p, float r, float a, float b, float c) {
    if (r == r || !is_arm(p)) return r;
    if (is_snan(c)) return quieted(c);
    if (is_snan(a)) return quieted(a);
    if (is_snan(b)) return quieted(b);
    if (c != c && !((isinf(a) && b == 0.0f) || (a == 0.0f && isinf(b)))) return c;
    if (c != c) return qnan_bits(0x7fc00000u);
    if (a != a) return a;
    if (b != b) return b;
    return qnan_bits(0x7fc00000u);
}

/* a*b + c contracted or not as sfmadd, NaNs as the profile's CPU gives them (nan3). */
static inline float sfmadd_nans(const profile_t *p, float a, float b, float c) {
    return nan3(p, sfmadd(p, a, b, c), a, b, c);
}

/* An invalid operation (0/0, inf*0) gives the CPU's default NaN: 0xffc00000 on this x86 host,
 * +qNaN 0x7fc00000 on aarch64 (FPCR.DN off; a NaN operand propagates on both). On arm64 profiles
 * the host's default NaN in out[0..n) becomes aarch64's (an input NaN of exactly 0xffc00000 would
 * be rewritten too: not reproduced). */
static inline void arm_default_nans(const profile_t *p, float *out, int64_t n) {
    if (p->aten != ATEN_NEON && p->aten != ATEN_SVE) return;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &out[i], 4);
        if (u == 0xffc00000u) {
            u = 0x7fc00000u;
            memcpy(&out[i], &u, 4);
        }
    }
}

static inline int64_t divup(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* at::parallel_for (OpenMP backend): how many threads take part, and thread tid's range.
 * num = min(threads, divup(n, grain)) when grain > 0; chunk = divup(n, num);
 * thread tid gets [begin + tid*chunk, min(end, begin + (tid+1)*chunk)). */
static inline int64_t parallel_threads(int64_t begin, int64_t end, int64_t grain, int64_t threads) {
    int64_t n = end - begin;
    if (n <= 0) return 0;
    if (threads < 1) threads = 1;
    if (grain > 0 && divup(n, grain) < threads) threads = divup(n, grain);
    if (n <= grain || threads == 1) return 1;
    return threads;
}

static inline int parallel_chunk(int64_t begin, int64_t end, int64_t grain, int64_t threads, int64_t tid,
                                 int64_t *b, int64_t *e) {
    int64_t num = parallel_threads(begin, end, grain, threads);
    int64_t chunk = num > 0 ? divup(end - begin, num) : 0;
    *b = begin + tid * chunk;
    *e = *b + chunk < end ? *b + chunk : end;
    return tid < num && *b < end;
}

#define GRAIN_SIZE 32768 /* at::internal::GRAIN_SIZE */

#endif
