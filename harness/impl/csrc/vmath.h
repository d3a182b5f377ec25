/* Vector and scalar math lanes exactly as torch 2.13.0's CPU kernels compute them (float32).
 *
 * Portable C (double and fmaf only): the same bits on any OS and compiler, given
 * -ffp-contract=off. Every function is `static inline`; include this header after common.h.
 *
 * Per-profile lanes (what one lane of ATen's Vectorized<float> computes):
 *   vec_expf(p, x)   Vectorized<float>::exp():  avx2/avx512 SLEEF Sleef_expf8_u10 / expf16_u10;
 *                    default capability (emulated Vectorized) std::exp = glibc expf.
 *   vec_logf(p, x)   Vectorized<float>::log():  SLEEF Sleef_logf8_u10 | glibc logf.
 *   vec_tanhf(p, x)  Vectorized<float>::tanh(): SLEEF Sleef_tanhf8_u10 | glibc tanhf.
 *   vec_erff(p, x)   Vectorized<float>::erf():  ATen's own polynomial (aten_erff_poly) | glibc erff.
 *   vec_log1pf(p, x), vec_lgammaf(p, x), vec_expm1f(p, x): SLEEF Sleef_log1pf8_u10 / lgammaf8_u10 /
 *                    expm1f8_u10 | glibc log1pf / lgammaf / expm1f.
 *   vec_powf(p, x, y) Vectorized<float>::pow(): SLEEF Sleef_powf8_u10 (aarch64 powf4 / powfx_sve) | glibc powf.
 *   vec_atanhf(p, x) Vectorized<float>::atanh(): SLEEF Sleef_atanhf8_u10 / atanhf16_u10 | glibc atanhf.
 *
 * Scalar C library (std::exp etc. of the default objects and of every scalar tail), glibc 2.36's
 * algorithms (x86_64, the FMA variants glibc selects on FMA machines for expf/logf):
 *   glibc_expf, glibc_logf, glibc_expm1f, glibc_tanhf, glibc_erff, glibc_sinf, glibc_cosf,
 *   glibc_log1pf, glibc_lgammaf, glibc_atanhf.
 *
 * SLEEF (FMA builds, ENABLE_FMA_SP), one lane:
 *   sleef_expf_u10, sleef_logf_u10, sleef_tanhf_u10, sleef_log1pf_u10, sleef_lgammaf_u10,
 *   sleef_expm1f_u10, sleef_atanhf_u10.
 * ATen's AVX2/AVX-512 Vectorized<float>::erf lane: aten_erff_poly (Abramowitz-Stegun 7.1.26
 * with FMAs and sleef_expf_u10).
 *
 * MKL VML (torch.exp/log/tanh/sin/cos/erf/erfinv/log2/acos forward, aten vml.h, every capability), reconstructed
 * from outputs: mkl_vml_expf, mkl_vml_logf, mkl_vml_tanhf (reconstructed algorithms), mkl_vml_sinf, mkl_vml_cosf,
 *   mkl_vml_erff, mkl_vml_erfinvf, mkl_vml_log2f, mkl_vml_acosf (read from its kernels; tables in
 *   vml_erf_table.h, vml_sincos_table.h), MKL's generic path;
 *   mkl_avx2_vml_expf_main, mkl_avx2_vml_logf_normal, mkl_avx2_vml_sinf, mkl_avx2_vml_cosf: its Intel
 *   AVX2 path's exp, log, sin and cos (erf, erfinv, log2, acos: their functions' `fused` argument).
 *
 * aarch64 (no MKL; SLEEF's advsimd/SVE u10 variants give the sleef_*_u10 bits above):
 *   glibc_erff_a64, glibc_tanhf_a64, glibc_log1pf_a64, glibc_atanhf_a64: aarch64 glibc 2.36's contracted
 *   builds (glibc_*_k(1, x)); glibc_sinf_a64, glibc_cosf_a64: its sinf/cosf (TOINT_INTRINSICS reduction).
 *   aten_calc_erfinvf_a64: ATen's scalar calc_erfinv as GCC builds it for aarch64 (torch.erfinv there).
 *   sve_fexpa, aten_sve_expf_u20, aten_sve_tanhf: SVE256 Vectorized<float>::tanh (ATen's own).
 */
#ifndef PARITY_VMATH_H
#define PARITY_VMATH_H

#include "common.h"
#include "dmath.h"
#include "rsqrt_tables.h"
#include "sleef_rempitab.h"
#include "vml_erf_table.h"
#include "vml_sincos_table.h"

/* ------------------------------------------------------------------ bit helpers */

static inline uint32_t vm_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float vm_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* c ? a : b as an integer-mask select (GCC keeps float ?: as branches; masks vectorize). */
static inline float vm_self(int c, float a, float b) {
    uint32_t m = -(uint32_t)(c != 0);
    return vm_u2f((vm_f2u(a) & m) | (vm_f2u(b) & ~m));
}

/* floorf(x), exactly: rintf and one select (GCC vectorizes rintf, not floorf). */
static inline float vm_floorf(float x) {
    const float r = rintf(x);
    return vm_self(r > x, r - 1.0f, r);
}

/* a with the sign bit of s flipped into it: signbit(s) ? -a : a (exact, branch-free). */
static inline float vm_xorsign(float a, float s) { return vm_u2f(vm_f2u(a) ^ (vm_f2u(s) & 0x80000000u)); }

/* ------------------------------------------------------------------ SLEEF (FMA), one lane */

/* 2^q as a float, for q in the normal exponent range (SLEEF vpow2i). */
static inline float sleef_pow2i(int32_t q) { return vm_u2f((uint32_t)(q + 0x7f) << 23); }

/* d * 2^e in two steps, as SLEEF's vldexp2 (no intermediate overflow for |e| < 256). */
static inline float sleef_ldexp2(float d, int32_t e) {
    return (d * sleef_pow2i(e >> 1)) * sleef_pow2i(e - (e >> 1));
}

/* Round to nearest even, then to int (cvtps2dq under the default rounding mode). */
static inline int32_t sleef_rint(float x) { return (int32_t)rintf(x); }

#define SLEEF_R_LN2F 1.442695040888963407359924681001892137426645954152985934135449406931f
#define SLEEF_L2UF 0.693145751953125f
#define SLEEF_L2LF 1.428606765330187045e-06f

/* SLEEF xexpf (Sleef_expf8_u10): Cody-Waite reduction by ln2, degree-6 polynomial, all FMAs. */
static inline float sleef_expf_u10(float d) {
    int32_t q = sleef_rint(d * SLEEF_R_LN2F);
    float s = fmaf((float)q, -SLEEF_L2UF, d);
    s = fmaf((float)q, -SLEEF_L2LF, s);
    float u = 0.000198527617612853646278381f;
    u = fmaf(u, s, 0.00139304355252534151077271f);
    u = fmaf(u, s, 0.00833336077630519866943359f);
    u = fmaf(u, s, 0.0416664853692054748535156f);
    u = fmaf(u, s, 0.166666671633720397949219f);
    u = fmaf(u, s, 0.5f);
    u = 1.0f + fmaf(s * s, u, s);
    u = sleef_ldexp2(u, q);
    /* d < -104: 0, d > 100: inf (integer-mask selects: branch-free, so loops vectorize) */
    uint32_t lo = -(uint32_t)(d < -104.0f), hi = -(uint32_t)(d > 100.0f);
    return vm_u2f((vm_f2u(u) & ~lo & ~hi) | (0x7f800000u & hi));
}

/* Double-float (hi, lo) arithmetic of SLEEF's df.h, FMA variants. */
typedef struct { float x, y; } vm_f2;

static inline vm_f2 vm_f2make(float x, float y) { vm_f2 r = {x, y}; return r; }

static inline vm_f2 df_add2_f2_f(vm_f2 x, float y) { /* any magnitudes */
    float s = x.x + y, v = s - x.x;
    float t = (x.x - (s - v)) + (y - v);
    return vm_f2make(s, t + x.y);
}
static inline vm_f2 df_add2_f_f(float x, float y) {
    float s = x + y, v = s - x;
    return vm_f2make(s, (x - (s - v)) + (y - v));
}
static inline vm_f2 df_add2_f_f_fast(float x, float y) { /* SLEEF dfadd_vf2_vf_vf: |x| >= |y| */
    float s = x + y;
    return vm_f2make(s, (x - s) + y);
}
static inline vm_f2 df_add2_f2_f2(vm_f2 x, vm_f2 y) {
    float s = x.x + y.x, v = s - x.x;
    float t = (x.x - (s - v)) + (y.x - v);
    return vm_f2make(s, t + (x.y + y.y));
}
static inline vm_f2 df_add_f2_f2(vm_f2 x, vm_f2 y) { /* |x| >= |y| */
    float s = x.x + y.x;
    return vm_f2make(s, (((x.x - s) + y.x) + x.y) + y.y);
}
static inline vm_f2 df_add_f_f2(float x, vm_f2 y) { /* |x| >= |y| */
    float s = x + y.x;
    return vm_f2make(s, ((x - s) + y.x) + y.y);
}
static inline vm_f2 df_add_f2_f(vm_f2 x, float y) { /* |x| >= |y| */
    float s = x.x + y;
    return vm_f2make(s, ((x.x - s) + y) + x.y);
}
static inline vm_f2 df_scale(vm_f2 d, float s) { return vm_f2make(d.x * s, d.y * s); }
static inline vm_f2 df_neg(vm_f2 x) { return vm_f2make(-x.x, -x.y); }
static inline vm_f2 df_mul_f_f(float x, float y) {
    float s = x * y;
    return vm_f2make(s, fmaf(x, y, -s));
}
static inline vm_f2 df_mul_f2_f(vm_f2 x, float y) {
    float s = x.x * y;
    return vm_f2make(s, fmaf(x.y, y, fmaf(x.x, y, -s)));
}
static inline vm_f2 df_mul_f2_f2(vm_f2 x, vm_f2 y) {
    float s = x.x * y.x;
    return vm_f2make(s, fmaf(x.x, y.y, fmaf(x.y, y.x, fmaf(x.x, y.x, -s))));
}
static inline vm_f2 df_squ(vm_f2 x) {
    float s = x.x * x.x;
    return vm_f2make(s, fmaf(x.x + x.x, x.y, fmaf(x.x, x.x, -s)));
}
static inline vm_f2 df_rec_f2(vm_f2 d) {
    float s = 1.0f / d.x;
    return vm_f2make(s, s * fmaf(-d.y, s, fmaf(-d.x, s, 1.0f)));
}
static inline vm_f2 df_div(vm_f2 n, vm_f2 d) {
    float t = 1.0f / d.x;
    float s = n.x * t;
    float u = fmaf(t, n.x, -s);
    float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
    return vm_f2make(s, fmaf(s, v, fmaf(n.y, t, u)));
}

/* SLEEF expk2f: exp of a double-float, result as a double-float (used by tanh). */
static inline __attribute__((always_inline)) vm_f2 sleef_expk2f(vm_f2 d) {
    float u = (d.x + d.y) * SLEEF_R_LN2F;
    int32_t q = sleef_rint(u);
    vm_f2 s = df_add2_f2_f(d, (float)q * -SLEEF_L2UF);
    s = df_add2_f2_f(s, (float)q * -SLEEF_L2LF);
    u = 0.1980960224e-3f;
    u = fmaf(u, s.x, 0.1394256484e-2f);
    u = fmaf(u, s.x, 0.8333456703e-2f);
    u = fmaf(u, s.x, 0.4166637361e-1f);
    vm_f2 t = df_add2_f2_f(df_mul_f2_f(s, u), 0.166666659414234244790680580464e+0f);
    t = df_add2_f2_f(df_mul_f2_f2(s, t), 0.5f);
    t = df_add2_f2_f2(s, df_mul_f2_f2(df_squ(s), t));
    t = df_add_f_f2(1.0f, t);
    uint32_t under = -(uint32_t)(d.x < -104.0f); /* result 0 below -104 (mask select) */
    t.x = vm_u2f(vm_f2u(sleef_ldexp2(t.x, q)) & ~under);
    t.y = vm_u2f(vm_f2u(sleef_ldexp2(t.y, q)) & ~under);
    return t;
}

/* SLEEF xtanhf (Sleef_tanhf8_u10): (e - 1/e) / (e + 1/e) in double-float, e = exp(|x|). */
static inline __attribute__((always_inline)) float sleef_tanhf_u10(float x) {
    float y = fabsf(x);
    vm_f2 d = sleef_expk2f(vm_f2make(y, 0.0f));
    vm_f2 e = df_rec_f2(d);
    d = df_div(df_add_f2_f2(d, df_neg(e)), df_add_f2_f2(d, e));
    y = d.x + d.y;
    /* |x| > 8.664339742 or y NaN: 1; then x's sign; NaN x: x (integer-mask selects) */
    uint32_t one = -(uint32_t)((fabsf(x) > 8.664339742f) | (y != y)), nan_x = -(uint32_t)(x != x);
    uint32_t mag = (vm_f2u(y) & ~one) | (0x3f800000u & one);
    uint32_t r = (mag & 0x7fffffffu) | (vm_f2u(x) & 0x80000000u);
    return vm_u2f((r & ~nan_x) | (vm_f2u(x) & nan_x));
}

/* SLEEF xexpm1f (Sleef_expm1f8_u10): expk2f(a) as a double-float, -1 added to it exactly
 * (dfadd2: any magnitudes), then hi + lo rounded once. Selects after it: a > 88.72283172607421875f
 * gives +inf, a < -16.635532333438687 gives -1, -0 gives -0 (all 2^32 floats measured against torch).
 * The selected lanes are answered first here, so expk2f only sees finite a in [-16.6, 88.8]
 * (where its q is an ordinary int). Not for NaN a (callers decide NaNs). */
static inline float sleef_expm1f_u10(float a) {
    if (a > 88.72283172607421875f) return INFINITY;
    if (a < -16.635532333438687426013570f) return -1.0f;
    if (a == 0.0f) return a; /* +-0: -0 selected; +0 is what the sum gives */
    vm_f2 d = df_add2_f2_f(sleef_expk2f(vm_f2make(a, 0.0f)), -1.0f);
    return d.x + d.y;
}

/* The tail SLEEF's xlogf_u1 and xlog1pf share: s = e*ln2 (double-float) plus 2 atanh(x) for
 * x = (m - 1)/(m + 1) (double-float), the series' odd terms past x in float; s.x + s.y. */
static inline float sleef_log_tail(vm_f2 s, vm_f2 x) {
    float x2 = x.x * x.x;
    float t = 0.3027294874e+0f;
    t = fmaf(t, x2, 0.3996108174e+0f);
    t = fmaf(t, x2, 0.6666694880e+0f);
    s = df_add_f2_f2(s, df_scale(x, 2.0f));
    s = df_add_f2_f(s, (x2 * x.x) * t);
    return s.x + s.y;
}

/* SLEEF xlogf_u1 (Sleef_logf8_u10), the AVX2 path (the AVX-512 one equals it on normal inputs):
 * m = x / 2^e in [0.75, 1.5), log = e*ln2 + 2 atanh((m-1)/(m+1)) in double-float. */
static inline float sleef_logf_u10(float d) {
    /* branch-free (mask selects, so the loops calling it vectorise) */
    const int o = d < 0x1p-126f;
    d = vm_self(o, d * (float)(INT64_C(1) << 32) * (float)(INT64_C(1) << 32), d);
    int32_t e = (int32_t)((vm_f2u(d * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
    float m = vm_u2f(vm_f2u(d) + (uint32_t)(-e) * (1u << 23));
    e -= 64 & -o;
    vm_f2 s = df_mul_f2_f(vm_f2make(0.69314718246459960938f, -1.904654323148236017e-09f), (float)e);
    vm_f2 x = df_div(df_add2_f_f(-1.0f, m), df_add2_f_f(1.0f, m));
    float r = sleef_log_tail(s, x);
    r = vm_self(d == INFINITY, INFINITY, r);
    r = vm_self(!(d >= 0), NAN, r); /* d < 0 or NaN */
    return vm_self(d == 0, -INFINITY, r);
}

/* SLEEF xlog1pf (Sleef_log1pf8_u10), the AVX2 path (not AVX-512's vgetexp/vgetmant one), SLEEF 3.8
 * and later: m = d*t + (t - 1) with t = 2^-e, e the exponent of (d + 1)/0.75, so (d + 1)/2^e = m + 1
 * in [0.75, 1.5); log1p = e*ln2 + 2 atanh(m / (2 + m)) in double-float. Above LOG1PF_BOUND (1e38)
 * xlogf_u1(d) = sleef_logf_u10 (SLEEF 3.6 and before answered +inf there; torch 2.13.0's build gives
 * the log: measured through softplus with threshold 100 on x in (87.5, 88.72]). d = -1: -inf;
 * d < -1: the NaN 0xffffffff; -0: -0. Not for NaN d (callers decide NaNs). */
static inline float sleef_log1pf_u10(float d) {
    float dp1 = d + 1.0f;
    const int o = dp1 < 0x1p-126f;
    dp1 = vm_self(o, dp1 * (float)(INT64_C(1) << 32) * (float)(INT64_C(1) << 32), dp1);
    int32_t e = (int32_t)((vm_f2u(dp1 * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
    float t = vm_u2f(0x3f800000u + (uint32_t)(-e) * (1u << 23));
    float m = fmaf(d, t, t - 1.0f);
    e -= 64 & -o;
    vm_f2 s = df_mul_f2_f(vm_f2make(0.69314718246459960938f, -1.904654323148236017e-09f), (float)e);
    vm_f2 x = df_div(vm_f2make(m, 0.0f), df_add2_f_f_fast(2.0f, m));
    float r = sleef_log_tail(s, x);
    r = vm_self(d <= 0x1.2ced32p+126f, r, sleef_logf_u10(d));
    r = vm_u2f(vm_f2u(r) | -(uint32_t)(-1.0f > d)); /* SLEEF ors all ones in: the NaN 0xffffffff */
    r = vm_self(d == -1.0f, -INFINITY, r);
    return vm_self(vm_f2u(d) == 0x80000000u, -0.0f, r);
}

/* SLEEF dfadd2_vf2_vf_vf2 (any magnitudes): x + y as a double-float. */
static inline vm_f2 df_add2_f_f2(float x, vm_f2 y) {
    float s = x + y.x, v = s - x;
    return vm_f2make(s, ((x - (s - v)) + (y.x - v)) + y.y);
}
/* SLEEF dfnormalize_vf2_vf2: s = x + y, (s, (x - s) + y). */
static inline vm_f2 df_normalize(vm_f2 t) {
    float s = t.x + t.y;
    return vm_f2make(s, (t.x - s) + t.y);
}
/* SLEEF dfabs_vf2_vf2: |hi|, lo with hi's sign flipped out of it. */
static inline vm_f2 df_abs(vm_f2 x) { return vm_f2make(fabsf(x.x), vm_xorsign(x.y, x.x)); }
/* SLEEF vcast_vf2_d: a double constant as (float)d, (float)(d - (float)d). */
#define VM_F2_D(d) vm_f2make((float)(d), (float)((d) - (double)(float)(d)))

/* cvttps2dq: truncation to int32, 0x80000000 for NaN and out of range. */
static inline int32_t sleef_truncate_i(float x) {
    return (x > -2147483904.0f && x < 2147483648.0f) ? (int32_t)x : INT32_MIN;
}

/* SLEEF logk2f: log of a double-float d as a double-float (the AVX2 path, vilogbk's exponent of
 * d.x * (1/0.75), not AVX-512's vgetexp): m = d / 2^e, x = (m - 1)/(m + 1) in double-float,
 * e ln2 + 2x + x^3 t(x^2) with t a cubic in x^2 (FMAs), each term added to e ln2 by dfadd. */
static inline vm_f2 sleef_logk2f(vm_f2 d) {
    float dd = d.x * (1.0f / 0.75f);
    const int o = dd < 5.421010862427522E-20f;
    dd = vm_self(o, 1.8446744073709552E19f * dd, dd);
    const int32_t e = (int32_t)((vm_f2u(dd) >> 23) & 0xff) - (o ? 64 + 0x7f : 0x7f);
    const float sc = vm_u2f((uint32_t)(-e + 0x7f) << 23);
    vm_f2 m = df_scale(d, sc);
    vm_f2 x = df_div(df_add2_f2_f(m, -1.0f), df_add2_f2_f(m, 1.0f));
    vm_f2 x2 = df_squ(x);
    float t = 0.2392828464508056640625f;
    t = fmaf(t, x2.x, 0.28518211841583251953125f);
    t = fmaf(t, x2.x, 0.400005877017974853515625f);
    t = fmaf(t, x2.x, 0.666666686534881591796875f);
    vm_f2 s = df_mul_f2_f(vm_f2make(0.69314718246459960938f, -1.904654323148236017e-09f), (float)e);
    s = df_add_f2_f2(s, df_scale(x, 2.0f));
    return df_add_f2_f2(s, df_mul_f2_f(df_mul_f2_f2(x2, x), t));
}

/* SLEEF sinpifk: sin(pi d) as a double-float. q = trunc(4d), an odd q moved one away from zero,
 * s = 4d - q; bit 1 of q picks the cos polynomial (1 + s^2 c(s^2)) or the sin one
 * (s (pi/4 + s^2 c(s^2))), bit 2 the sign. Inner terms float FMAs, outer ones double-float. */
static inline vm_f2 sleef_sinpifk(float d) {
    float u = d * 4.0f;
    int32_t q = sleef_truncate_i(u);
    q = (int32_t)(((uint32_t)q + (((uint32_t)q >> 31) ^ 1u)) & ~1u);
    int o = (q & 2) == 2;
    float s = u - (float)q, t = s;
    s = s * s;
    vm_f2 s2 = df_mul_f_f(t, t);
    u = o ? -0.2430611801e-7f : 0.3093842054e-6f;
    u = fmaf(u, s, o ? 0.3590577080e-5f : -0.3657307388e-4f);
    u = fmaf(u, s, o ? -0.3259917721e-3f : 0.2490393585e-2f);
    vm_f2 x = df_add2_f_f2(u * s, o ? vm_f2make((float)0.015854343771934509277, (float)4.4940051354032242811e-10)
                                    : vm_f2make((float)-0.080745510756969451904, (float)-1.3373665339076936258e-09));
    x = df_add2_f2_f2(df_mul_f2_f2(s2, x),
                      o ? vm_f2make((float)-0.30842512845993041992, (float)-9.0728339030733922277e-09)
                        : vm_f2make((float)0.78539818525314331055, (float)-2.1857338617566484855e-08));
    x = df_mul_f2_f2(x, o ? s2 : vm_f2make(t, 0.0f));
    x = o ? df_add2_f2_f(x, 1.0f) : x;
    if ((q & 4) == 4) x = df_neg(x);
    return x;
}

/* SLEEF xlgammaf_u1 (Sleef_lgammaf8_u10; SLEEF 3.6 to 3.9 alike) through gammafk, one lane. With
 * x = a (a >= 0.5), 1 - a (a < 0.5, reflection), 0 (|a| < 1e-30):
 *   x >= 2.3: x <= 7 shifts by 3 (clln = x(x+1)(x+2) normalized twice), t = 1/x, u of degree 8
 *     in t (Stirling's series); clc = (x - 0.5) log x - x + log(2 pi)/2, clld = u t + 1;
 *   else t = x - 1 (0.5 <= x <= 1.2) or x - 2, clc = t (c1 + t (c2 + t (c3 + t u))) with u a
 *     degree-8 polynomial, the last three steps in double-float;
 *   a < 0.5: clc = log(pi) - clc, clld = clld sinpi(a - 4096 trunc(a/4096)); |a| < 1e-30:
 *     clc = log(2^60), clld = a 2^60;
 * lgamma = clc + log|clln / clld| (double-float), then hi + lo. +-inf, integers a <= 0 (-0
 * included) and a NaN result of a finite a give +inf. NaN a: not here (callers decide NaNs). */
static inline float sleef_lgammaf_u10(float a) {
    const int otiny = fabsf(a) < 1e-30f, oref = a < 0.5f;
    vm_f2 x = otiny ? vm_f2make(0.0f, 0.0f) : oref ? df_add2_f_f(1.0f, -a) : vm_f2make(a, 0.0f);
    const int o0 = 0.5f <= x.x && x.x <= 1.2f, o2 = 2.3f <= x.x;
    vm_f2 y = df_normalize(df_mul_f2_f2(df_add2_f2_f(x, 1.0f), x));
    y = df_normalize(df_mul_f2_f2(df_add2_f2_f(x, 2.0f), y));
    const int o = o2 && x.x <= 7.0f;
    vm_f2 clln = o ? y : vm_f2make(1.0f, 0.0f);
    x = o ? df_add2_f2_f(x, 3.0f) : x;
    const float t = o2 ? 1.0f / x.x : df_normalize(df_add2_f2_f(x, o0 ? -1.0f : -2.0f)).x;
#define VM_LG_SEL(c2, c0, c) (o2 ? (float)(c2) : o0 ? (c0) : (c))
    float u = VM_LG_SEL(+0.000839498720672087279971000786, +0.9435157776e+0f, +0.1102489550e-3f);
    u = fmaf(u, t, VM_LG_SEL(-5.17179090826059219329394422e-05, +0.8670063615e+0f, +0.8160019934e-4f));
    u = fmaf(u, t, VM_LG_SEL(-0.000592166437353693882857342347, +0.4826702476e+0f, +0.1528468856e-3f));
    u = fmaf(u, t, VM_LG_SEL(+6.97281375836585777403743539e-05, -0.8855129778e-1f, -0.2355068718e-3f));
    u = fmaf(u, t, VM_LG_SEL(+0.000784039221720066627493314301, +0.1013825238e+0f, +0.4962242092e-3f));
    u = fmaf(u, t, VM_LG_SEL(-0.000229472093621399176949318732, -0.1493408978e+0f, -0.1193488017e-2f));
    u = fmaf(u, t, VM_LG_SEL(-0.002681327160493827160473958490, +0.1697509140e+0f, +0.2891599433e-2f));
    u = fmaf(u, t, VM_LG_SEL(+0.003472222222222222222175164840, -0.2072454542e+0f, -0.7385451812e-2f));
    u = fmaf(u, t, VM_LG_SEL(+0.083333333333333333335592087900, +0.2705872357e+0f, +0.2058077045e-1f));
#undef VM_LG_SEL
    y = df_mul_f2_f2(df_add2_f2_f(x, -0.5f), sleef_logk2f(x));
    y = df_add2_f2_f2(y, df_neg(x));
    y = df_add2_f2_f2(y, VM_F2_D(0.91893853320467278056)); /* log(2 pi) / 2 */
    vm_f2 z = df_add2_f2_f(df_mul_f_f(u, t), o0 ? -0.400686534596170958447352690395e+0f : -0.673523028297382446749257758235e-1f);
    z = df_add2_f2_f(df_mul_f2_f(z, t), o0 ? +0.822466960142643054450325495997e+0f : +0.322467033928981157743538726901e+0f);
    z = df_add2_f2_f(df_mul_f2_f(z, t), o0 ? -0.577215665946766039837398973297e+0f : +0.422784335087484338986941629852e+0f);
    z = df_mul_f2_f(z, t);
    vm_f2 clc = o2 ? y : z;
    vm_f2 clld = o2 ? df_add2_f2_f(df_mul_f_f(u, t), 1.0f) : vm_f2make(1.0f, 0.0f);
    y = clln;
    clc = otiny ? VM_F2_D(41.58883083359671856503) /* log(2^60) */
          : oref ? df_add2_f2_f2(VM_F2_D(1.1447298858494001639), df_neg(clc)) /* log(pi) */
                 : clc;
    clln = otiny ? vm_f2make(1.0f, 0.0f) : oref ? clln : clld;
    if (oref) {
        const float tr = a - 4096.0f * (float)sleef_truncate_i(a * (float)(1.0 / 4096));
        x = df_mul_f2_f2(clld, sleef_sinpifk(tr));
    }
    clld = otiny ? vm_f2make(a * ((float)(INT64_C(1) << 30) * (float)(INT64_C(1) << 30)), 0.0f) : oref ? x : y;
    /* xlgammaf_u1: clc + log|clln / clld| */
    vm_f2 r2 = df_add2_f2_f2(clc, sleef_logk2f(df_abs(df_div(clln, clld))));
    float r = r2.x + r2.y;
    const int isint_le0 = a <= 0.0f && truncf(a) == a;
    if (isinf(a) || isint_le0 || (!isinf(a) && isnan(r))) r = INFINITY;
    return r;
}

/* glibc 2.36 log1pf (sysdeps/ieee754/flt-32/s_log1pf.c, fdlibm in float; x86_64 has no FMA variant
 * of it): x = 2^k (1 + f) with a correction c for the rounding of 1 + x, then
 * log1p = k ln2_hi - ((hfsq - (s (hfsq + R) + (k ln2_lo + c))) - f), s = f/(2 + f).
 * The fused flag f picks aarch64's build (the same C compiled with GCC's default contraction,
 * disassembled from libm.so.6 of Debian's 2.36-9): R's Horner steps and hfsq + R (the last step
 * fused into hfsq), k ln2_lo + c, the final k ln2_hi - (...), and 1 - (2/3) f of the f-only branch;
 * hfsq = (0.5 f) f and x - x^2/2 (an exact halving) are as unfused. */
static inline __attribute__((always_inline)) float glibc_log1pf_k(int fused, float x) {
    const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f;
    const float Lp1 = 6.6666668653e-01f, Lp2 = 4.0000000596e-01f, Lp3 = 2.8571429849e-01f;
    const float Lp4 = 2.2222198546e-01f, Lp5 = 1.8183572590e-01f, Lp6 = 1.5313838422e-01f;
    const float Lp7 = 1.4798198640e-01f;
    float hfsq, f = 0.0f, c = 0.0f, s, z, R, u;
    int32_t k = 1, hx = (int32_t)vm_f2u(x), hu = 0, ax = hx & 0x7fffffff;
    if (hx < 0x3ed413d7) {
        if (ax >= 0x3f800000) {
            if (x == -1.0f) return -INFINITY;
            return (x - x) / (x - x);
        }
        if (ax < 0x31000000) {
            if (ax < 0x24800000) return x;
            return x - x * x * 0.5f;
        }
        if (hx > 0 || hx <= (int32_t)0xbe95f61f) { k = 0; f = x; hu = 1; }
    }
    if (hx >= 0x7f800000) return x + x;
    if (k != 0) {
        if (hx < 0x5a000000) {
            u = 1.0f + x;
            hu = (int32_t)vm_f2u(u);
            k = (hu >> 23) - 127;
            c = (k > 0) ? 1.0f - (u - x) : x - (u - 1.0f);
            c /= u;
        } else {
            u = x;
            hu = (int32_t)vm_f2u(u);
            k = (hu >> 23) - 127;
            c = 0;
        }
        hu &= 0x007fffff;
        if (hu < 0x3504f7) {
            u = vm_u2f((uint32_t)hu | 0x3f800000u);
        } else {
            k += 1;
            u = vm_u2f((uint32_t)hu | 0x3f000000u);
            hu = (0x00800000 - hu) >> 2;
        }
        f = u - 1.0f;
    }
    const float fk = (float)k;
    /* k ln2_lo + c, and k ln2_hi - d */
    const float klo = fused ? fmaf(fk, ln2_lo, c) : fk * ln2_lo + c;
#define LOG1PF_KHI_MINUS(d) (fused ? fmaf(fk, ln2_hi, -(d)) : fk * ln2_hi - (d))
    hfsq = 0.5f * f * f;
    if (hu == 0) {
        if (f == 0.0f) {
            if (k == 0) return 0.0f;
            return LOG1PF_KHI_MINUS(-klo);
        }
        R = hfsq * (fused ? fmaf(-f, 0.66666666666666666f, 1.0f) : 1.0f - 0.66666666666666666f * f);
        if (k == 0) return f - R;
        return LOG1PF_KHI_MINUS((R - klo) - f);
    }
    s = f / (2.0f + f);
    z = s * s;
    float hR; /* hfsq + R */
    if (fused) {
        float q = fmaf(z, Lp7, Lp6);
        q = fmaf(q, z, Lp5);
        q = fmaf(q, z, Lp4);
        q = fmaf(q, z, Lp3);
        q = fmaf(q, z, Lp2);
        q = fmaf(q, z, Lp1);
        hR = fmaf(q, z, hfsq);
    } else {
        R = z * (Lp1 + z * (Lp2 + z * (Lp3 + z * (Lp4 + z * (Lp5 + z * (Lp6 + z * Lp7))))));
        hR = hfsq + R;
    }
    if (k == 0) return f - (hfsq - s * hR);
    return LOG1PF_KHI_MINUS((hfsq - (s * hR + klo)) - f);
#undef LOG1PF_KHI_MINUS
}

static inline float glibc_log1pf(float x) { return glibc_log1pf_k(0, x); }
static inline float glibc_log1pf_a64(float x) { return glibc_log1pf_k(1, x); }

/* ------------------------------------------------------------------ aarch64 SVE256 Vectorized<float> */

/* SVE FEXPA, single precision: bits [5:0] of the operand pick the 23-bit fraction of 2^(i/64)
 * (the Arm ARM's coefficient table: the nearest 23-bit fraction of each power), bits [13:6] become
 * the exponent field; sign 0. */
static const uint32_t vm_fexpa_tab[64] = {
    0x000000, 0x0164d2, 0x02cd87, 0x043a29, 0x05aac3, 0x071f62, 0x08980f, 0x0a14d5,
    0x0b95c2, 0x0d1adf, 0x0ea43a, 0x1031dc, 0x11c3d3, 0x135a2b, 0x14f4f0, 0x16942d,
    0x1837f0, 0x19e046, 0x1b8d3a, 0x1d3eda, 0x1ef532, 0x20b051, 0x227043, 0x243516,
    0x25fed7, 0x27cd94, 0x29a15b, 0x2b7a3a, 0x2d583f, 0x2f3b79, 0x3123f6, 0x3311c4,
    0x3504f3, 0x36fd92, 0x38fbaf, 0x3aff5b, 0x3d08a4, 0x3f179a, 0x412c4d, 0x4346cd,
    0x45672a, 0x478d75, 0x49b9be, 0x4bec15, 0x4e248c, 0x506334, 0x52a81e, 0x54f35b,
    0x5744fd, 0x599d16, 0x5bfbb8, 0x5e60f5, 0x60ccdf, 0x633f89, 0x65b907, 0x68396a,
    0x6ac0c7, 0x6d4f30, 0x6fe4ba, 0x728177, 0x75257d, 0x77d0df, 0x7a83b3, 0x7d3e0c,
};

static inline float sve_fexpa(float z) {
    uint32_t u = vm_f2u(z);
    return vm_u2f((((u >> 6) & 0xffu) << 23) | vm_fexpa_tab[u & 63u]);
}

/* sve/vec_float.h exp_u20_fast_path (SVE256 Vectorized<float>::exp_u20 for |x| <= 0x1.5d5e2ap+6;
 * larger lanes send the whole vector to Sleef_expfx_u10sve): z = fma(1/ln2, x, shift),
 * n = z - shift, r = x - n*ln2_hi - n*ln2_lo (two fmls), scale = fexpa(z), r2 = r*r,
 * poly = fma(r2, 0.5, r), result fma(scale, poly, scale). */
static inline float aten_sve_expf_u20(float x) {
    const float shift = vm_u2f(0x48401fc0); /* 0x1.803f8p17 */
    float z = fmaf(vm_u2f(0x3fb8aa3b), x, shift);
    float n = z - shift;
    float r = fmaf(-n, vm_u2f(0x3f317200), x);
    r = fmaf(-n, vm_u2f(0x35bfbe8e), r);
    float scale = sve_fexpa(z);
    float r2 = r * r;
    float poly = fmaf(r2, 0.5f, r);
    return fmaf(scale, poly, scale);
}

/* SVE256 Vectorized<float>::tanh (ATen's own, not SLEEF): x clamped to [-10, 10] (fmax/fmin:
 * NaN stays NaN), e = exp_u20(2x) (never the SLEEF fallback: |2x| <= 20), (e - 1) / (e + 1). */
static inline float aten_sve_tanhf(float x) {
    float c = x != x ? x : x < -10.0f ? -10.0f : x > 10.0f ? 10.0f : x;
    float e = aten_sve_expf_u20(2.0f * c);
    return (e - 1.0f) / (e + 1.0f);
}

/* ------------------------------------------------------------------ ATen Vectorized<float>::erf */

/* vec256/vec512 Vectorized<float>::erf, one lane: t = 1/(fma(p,|x|,1)); Horner in t with FMAs;
 * erf = sign(x) * fma(-exp(-x*x) * t, r, 1). */
static inline float aten_erff_poly(float x) {
    float a = fabsf(x);
    float t = 1.0f / fmaf(0.3275911f, a, 1.0f);
    float r = fmaf(1.061405429f, t, -1.453152027f);
    r = fmaf(r, t, 1.421413741f);
    r = fmaf(r, t, -0.284496736f);
    r = fmaf(r, t, 0.254829592f);
    float e = -sleef_expf_u10(-(x * x));
    float y = fmaf(e * t, r, 1.0f);
    return signbit(x) ? -y : y;
}

/* ------------------------------------------------------------------ glibc 2.36 (x86_64) */

/* 2^(i/32) as doubles, minus i << 47 in the bit pattern (glibc's exp2f table layout). */
static const uint64_t vm_exp2f_tab[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};

/* glibc expf (FMA build): k = round(x*32/ln2), r = x*32/ln2 - k, 2^(k/32) from the table times
 * a cubic in r, all in double; the FMA build fuses the polynomial's three multiply-adds. */
static inline float glibc_expf(float x) {
    uint32_t abstop = (vm_f2u(x) >> 20) & 0x7ff;
    if (abstop >= ((vm_f2u(88.0f) >> 20) & 0x7ff)) {
        if (vm_f2u(x) == vm_f2u(-INFINITY)) return 0.0f;
        if (abstop >= ((vm_f2u(INFINITY) >> 20) & 0x7ff)) return x + x;
        if (x > 0x1.62e42ep6f) return INFINITY;
        if (x < -0x1.9fe368p6f) return 0.0f;
    }
    const double shift = 0x1.8p+52;
    double z = (0x1.71547652b82fep+0 * 32) * (double)x;
    double kd = z + shift;
    uint64_t ki = dm_d2u(kd);
    kd -= shift;
    double r = z - kd;
    uint64_t t = vm_exp2f_tab[ki % 32] + (ki << 47);
    double s = dm_u2d(t);
    double c0 = 0x1.c6af84b912394p-5 / 32 / 32 / 32, c1 = 0x1.ebfce50fac4f3p-3 / 32 / 32;
    double c2 = 0x1.62e42ff0c52d6p-1 / 32;
    double p = fma(c0, r, c1);
    double r2 = r * r;
    double y = fma(c2, r, 1.0);
    y = fma(p, r2, y);
    return (float)(y * s);
}

/* (1/c, log c) for 16 subintervals of [0x3f330000 as float, 2x that) (glibc's logf table). */
static const double vm_logf_tab[16][2] = {
    {0x1.661ec79f8f3bep+0, -0x1.57bf7808caadep-2}, {0x1.571ed4aaf883dp+0, -0x1.2bef0a7c06ddbp-2},
    {0x1.49539f0f010bp+0, -0x1.01eae7f513a67p-2},  {0x1.3c995b0b80385p+0, -0x1.b31d8a68224e9p-3},
    {0x1.30d190c8864a5p+0, -0x1.6574f0ac07758p-3}, {0x1.25e227b0b8eap+0, -0x1.1aa2bc79c81p-3},
    {0x1.1bb4a4a1a343fp+0, -0x1.a4e76ce8c0e5ep-4}, {0x1.12358f08ae5bap+0, -0x1.1973c5a611cccp-4},
    {0x1.0953f419900a7p+0, -0x1.252f438e10c1ep-5}, {0x1p+0, 0x0p+0},
    {0x1.e608cfd9a47acp-1, 0x1.aa5aa5df25984p-5},  {0x1.ca4b31f026aap-1, 0x1.c5e53aa362eb4p-4},
    {0x1.b2036576afce6p-1, 0x1.526e57720db08p-3},  {0x1.9c2d163a1aa2dp-1, 0x1.bc2860d22477p-3},
    {0x1.886e6037841edp-1, 0x1.1058bc8a07ee1p-2},  {0x1.767dcf5534862p-1, 0x1.4043057b6ee09p-2},
};

/* glibc logf (FMA build): x = 2^k z, r = z/c - 1 (fused), log = log c + k ln2 + cubic(r), double. */
static inline float glibc_logf(float x) {
    uint32_t ix = vm_f2u(x);
    if (ix == 0x3f800000) return 0.0f;
    if (ix - 0x00800000 >= 0x7f800000 - 0x00800000) {
        if (ix * 2 == 0) return -INFINITY;
        if (ix == 0x7f800000) return x;
        if ((ix & 0x80000000) || ix * 2 >= 0xff000000) return NAN;
        ix = vm_f2u(x * 0x1p23f);
        ix -= 23u << 23;
    }
    const uint32_t off = 0x3f330000;
    uint32_t tmp = ix - off;
    int i = (int)((tmp >> (23 - 4)) % 16);
    int k = (int32_t)tmp >> 23;
    uint32_t iz = ix - (tmp & 0xff800000u);
    double invc = vm_logf_tab[i][0], logc = vm_logf_tab[i][1];
    double z = (double)vm_u2f(iz);
    double r = fma(z, invc, -1.0);
    double y0 = logc + (double)k * 0x1.62e42fefa39efp-1;
    double r2 = r * r;
    double y = fma(0x1.5575b0be00b6ap-2, r, -0x1.ffffef20a4123p-2);
    y = fma(-0x1.00ea348b88334p-2, r2, y);
    y = fma(y, r2, y0 + r);
    return (float)y;
}

/* glibc expm1f (fdlibm, float arithmetic; x86_64: no FMA): reduction by ln2 in hi/lo, rational correction.
 * The fused flag f picks aarch64's build: glibc 2.36's aarch64 libm is the same fdlibm C compiled
 * with GCC's default contraction, which fused the polynomial's Horner steps, the ln2_hi
 * reduction (t*ln2_hi subtracted from x, not t*ln2_lo), 3 - r1*hfx, 6 - x*t, x*e - hxs,
 * x*(e - c) - c and the k = +-1 returns (disassembled from libm.so.6 of Debian's 2.36-9). */
static inline __attribute__((always_inline)) float glibc_expm1f_k(int f, float x) {
    const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f, invln2 = 1.4426950216e+00f;
    const float q1 = -3.3333335072e-02f, q2 = 1.5873016091e-03f, q3 = -7.9365076090e-05f;
    const float q4 = 4.0082177293e-06f, q5 = -2.0109921195e-07f;
    uint32_t hx = vm_f2u(x);
    int neg = (hx >> 31) != 0;
    hx &= 0x7fffffff;
    float hi, lo, c = 0.0f, t, e, y;
    int32_t k;
    if (hx >= 0x4195b844) { /* |x| >= 27 ln2 */
        if (hx >= 0x42b17218) {
            if (hx > 0x7f800000) return x + x;
            if (hx == 0x7f800000) return neg ? -1.0f : x;
            if (x > 8.8721679688e+01f) return INFINITY;
        }
        if (neg) return -1.0f;
    }
    if (hx > 0x3eb17218) { /* |x| > ln2/2 */
        if (hx < 0x3F851592) {
            if (!neg) { hi = x - ln2_hi; lo = ln2_lo; k = 1; }
            else { hi = x + ln2_hi; lo = -ln2_lo; k = -1; }
        } else {
            k = (int32_t)(invln2 * x + (neg ? -0.5f : 0.5f));
            t = (float)k;
            hi = f ? fmaf(-t, ln2_hi, x) : x - t * ln2_hi;
            lo = t * ln2_lo;
        }
        x = hi - lo;
        c = (hi - x) - lo;
    } else if (hx < 0x33000000) {
        return x;
    } else {
        k = 0;
    }
    float hfx = 0.5f * x;
    float hxs = x * hfx;
    float r1;
    if (f) {
        r1 = fmaf(hxs, q5, q4);
        r1 = fmaf(r1, hxs, q3);
        r1 = fmaf(r1, hxs, q2);
        r1 = fmaf(r1, hxs, q1);
        r1 = fmaf(r1, hxs, 1.0f);
        t = fmaf(-hfx, r1, 3.0f);
        e = hxs * ((r1 - t) / fmaf(-x, t, 6.0f));
    } else {
        r1 = 1.0f + hxs * (q1 + hxs * (q2 + hxs * (q3 + hxs * (q4 + hxs * q5))));
        t = 3.0f - r1 * hfx;
        e = hxs * ((r1 - t) / (6.0f - x * t));
    }
    if (k == 0) return x - (f ? fmaf(x, e, -hxs) : x * e - hxs);
    e = f ? fmaf(e - c, x, -c) : (x * (e - c) - c);
    e -= hxs;
    if (k == -1) return f ? fmaf(x - e, 0.5f, -0.5f) : 0.5f * (x - e) - 0.5f;
    if (k == 1) {
        if (x < -0.25f) return -2.0f * (e - (x + 0.5f));
        return f ? fmaf(x - e, 2.0f, 1.0f) : 1.0f + 2.0f * (x - e);
    }
    if (k <= -2 || k > 56) {
        y = 1.0f - (e - x);
        y = vm_u2f(vm_f2u(y) + ((uint32_t)k << 23));
        return y - 1.0f;
    }
    if (k < 23) {
        t = vm_u2f(0x3f800000 - (0x1000000 >> k));
        y = t - (e - x);
    } else {
        t = vm_u2f((uint32_t)(0x7f - k) << 23);
        y = x - (e + t);
        y += 1.0f;
    }
    return vm_u2f(vm_f2u(y) + ((uint32_t)k << 23));
}

static inline float glibc_expm1f(float x) { return glibc_expm1f_k(0, x); }
static inline float glibc_expm1f_a64(float x) { return glibc_expm1f_k(1, x); }

/* glibc tanhf (fdlibm): 1 - 2/(expm1(2|x|)+2) for |x| >= 1, -t/(t+2) with t = expm1(-2|x|) below. */
static inline __attribute__((always_inline)) float glibc_tanhf_k(int f, float x) {
    uint32_t jx = vm_f2u(x), ix = jx & 0x7fffffff;
    float z;
    if (ix >= 0x7f800000) return isnan(x) ? x : (jx >> 31 ? -1.0f : 1.0f);
    if (ix < 0x41b00000) { /* |x| < 22 */
        if (ix == 0) return x;
        if (ix < 0x24000000) return x * (1.0f + x);
        if (ix >= 0x3f800000) {
            float t = glibc_expm1f_k(f, 2.0f * fabsf(x));
            z = 1.0f - 2.0f / (t + 2.0f);
        } else {
            float t = glibc_expm1f_k(f, -2.0f * fabsf(x));
            z = -t / (t + 2.0f);
        }
    } else {
        z = 1.0f;
    }
    return (jx >> 31) ? -z : z;
}

/* glibc_tanhf_k(1, x): aarch64's tanhf (its own arithmetic is not contracted; its expm1f is). */
static inline float glibc_tanhf(float x) { return glibc_tanhf_k(0, x); }
static inline float glibc_tanhf_a64(float x) { return glibc_tanhf_k(1, x); }

/* glibc erff (fdlibm): rational approximations on [0,0.84375), [0.84375,1.25), then
 * erfc = exp(-z*z-0.5625) * exp((z-x)(z+x) + R/S) / x with z = x truncated to 12 mantissa bits. */
/* Horner step acc*s + c: fused in aarch64's libm (fused flag f), two roundings on x86_64. */
#define VM_HORNER(f, acc, s, c) ((f) ? fmaf((acc), (s), (c)) : (acc) * (s) + (c))

/* f = 1: aarch64's erff, the same C contracted by GCC: every Horner step, x + x*y, x + efx*x,
 * 16x + efx8*x, -z*z - 0.5625 and (z - a)*(z + a) + R/S fused (disassembled from libm.so.6). */
static inline __attribute__((always_inline)) float glibc_erff_k(int f, float x) {
    uint32_t hx = vm_f2u(x), ix = hx & 0x7fffffff;
    int neg = (hx >> 31) != 0;
    if (ix >= 0x7f800000) return isnan(x) ? x : (neg ? -1.0f : 1.0f);
    if (ix < 0x3f580000) { /* |x| < 0.84375 */
        const float efx = 1.2837916613e-01f;
        if (ix < 0x31800000) {
            if (ix < 0x04000000) return 0.0625f * VM_HORNER(f, x, 16.0f, (16.0f * efx) * x);
            return VM_HORNER(f, x, efx, x);
        }
        float z = x * x;
        float r = VM_HORNER(f, z, -2.3763017452e-05f, -5.7702702470e-03f);
        r = VM_HORNER(f, r, z, -2.8481749818e-02f);
        r = VM_HORNER(f, r, z, -3.2504209876e-01f);
        r = VM_HORNER(f, r, z, 1.2837916613e-01f);
        float q = VM_HORNER(f, z, -3.9602282413e-06f, 1.3249473704e-04f);
        q = VM_HORNER(f, q, z, 5.0813062117e-03f);
        q = VM_HORNER(f, q, z, 6.5022252500e-02f);
        q = VM_HORNER(f, q, z, 3.9791721106e-01f);
        q = VM_HORNER(f, q, z, 1.0f);
        return VM_HORNER(f, x, r / q, x);
    }
    if (ix < 0x3fa00000) { /* 0.84375 <= |x| < 1.25 */
        const float erx = 8.4506291151e-01f;
        float s = fabsf(x) - 1.0f;
        float p = VM_HORNER(f, s, -2.1663755178e-03f, 3.5478305072e-02f);
        p = VM_HORNER(f, p, s, -1.1089469492e-01f);
        p = VM_HORNER(f, p, s, 3.1834661961e-01f);
        p = VM_HORNER(f, p, s, -3.7220788002e-01f);
        p = VM_HORNER(f, p, s, 4.1485610604e-01f);
        p = VM_HORNER(f, p, s, -2.3621185683e-03f);
        float q = VM_HORNER(f, s, 1.1984500103e-02f, 1.3637083583e-02f);
        q = VM_HORNER(f, q, s, 1.2617121637e-01f);
        q = VM_HORNER(f, q, s, 7.1828655899e-02f);
        q = VM_HORNER(f, q, s, 5.4039794207e-01f);
        q = VM_HORNER(f, q, s, 1.0642088205e-01f);
        q = VM_HORNER(f, q, s, 1.0f);
        return neg ? -erx - p / q : erx + p / q;
    }
    if (ix >= 0x40c00000) return neg ? -1.0f : 1.0f; /* |x| >= 6 */
    float a = fabsf(x);
    float s = 1.0f / (a * a);
    float R, S;
    if (ix < 0x4036DB6E) { /* |x| < 1/0.35 */
        R = VM_HORNER(f, s, -9.8143291473e+00f, -8.1287437439e+01f);
        R = VM_HORNER(f, R, s, -1.8460508728e+02f);
        R = VM_HORNER(f, R, s, -1.6239666748e+02f);
        R = VM_HORNER(f, R, s, -6.2375331879e+01f);
        R = VM_HORNER(f, R, s, -1.0558626175e+01f);
        R = VM_HORNER(f, R, s, -6.9385856390e-01f);
        R = VM_HORNER(f, R, s, -9.8649440333e-03f);
        S = VM_HORNER(f, s, -6.0424413532e-02f, 6.5702495575e+00f);
        S = VM_HORNER(f, S, s, 1.0863500214e+02f);
        S = VM_HORNER(f, S, s, 4.2900814819e+02f);
        S = VM_HORNER(f, S, s, 6.4538726807e+02f);
        S = VM_HORNER(f, S, s, 4.3456588745e+02f);
        S = VM_HORNER(f, S, s, 1.3765776062e+02f);
        S = VM_HORNER(f, S, s, 1.9651271820e+01f);
        S = VM_HORNER(f, S, s, 1.0f);
    } else {
        R = VM_HORNER(f, s, -4.8351919556e+02f, -1.0250950928e+03f);
        R = VM_HORNER(f, R, s, -6.3756646729e+02f);
        R = VM_HORNER(f, R, s, -1.6063638306e+02f);
        R = VM_HORNER(f, R, s, -1.7757955551e+01f);
        R = VM_HORNER(f, R, s, -7.9928326607e-01f);
        R = VM_HORNER(f, R, s, -9.8649431020e-03f);
        S = VM_HORNER(f, s, -2.2440952301e+01f, 4.7452853394e+02f);
        S = VM_HORNER(f, S, s, 2.5530502930e+03f);
        S = VM_HORNER(f, S, s, 3.1998581543e+03f);
        S = VM_HORNER(f, S, s, 1.5367296143e+03f);
        S = VM_HORNER(f, S, s, 3.2579251099e+02f);
        S = VM_HORNER(f, S, s, 3.0338060379e+01f);
        S = VM_HORNER(f, S, s, 1.0f);
    }
    float z = vm_u2f(vm_f2u(a) & 0xfffff000u);
    float r = glibc_expf(VM_HORNER(f, -z, z, -0.5625f)) * glibc_expf(VM_HORNER(f, z - a, z + a, R / S));
    return neg ? r / a - 1.0f : 1.0f - r / a;
}

static inline float glibc_erff(float x) { return glibc_erff_k(0, x); }
static inline float glibc_erff_a64(float x) { return glibc_erff_k(1, x); }

/* glibc sinf/cosf (sysdeps/ieee754/flt-32/s_sinf.c, s_cosf.c, s_sincosf.h, s_sincosf_data.c; the
 * ARM optimized-routines code): all in double. |x| < pi/4: polynomial directly (sin returns x and
 * cos 1 for |x| < 2^-12). |x| < 120: n = round(x * 2/pi) (hpi_inv prescaled by 2^24, rounding by
 * ((int)r + 2^23) >> 24), r = x - n * pi/2. Larger: r from a 192-bit 4/pi table by integer
 * multiply. Quadrant n picks sin or cos polynomial (odd n swaps) and the sign; the 2nd table entry
 * holds the negated cos polynomial. sin: x3 = x*x2, s = x + x3*s1, x7 = x3*x2, s + x7*(s2 + x2*s3);
 * cos: x4 = x2*x2, c = (c0 + x2*c1) + x4*c2, x6 = x4*x2, c + x6*(c3 + x2*c4). FMA build (x86_64
 * s_sinf-fma.c, s_cosf-fma.c): every multiply-add above and x - n*pi/2 fused. Measured bit-equal to
 * glibc 2.36 on an FMA machine on every float in [0, 2pi), on [6, 1e30) and 10M random finite
 * floats (the unfused form differs near multiples of pi/2 for |x| > 2pi: 6 sin, 11 cos on [6,1e30)). */
typedef struct {
    double hpi_inv, hpi, c0, c1, c2, c3, c4, s1, s2, s3;
} vm_sincosf_t;
static const vm_sincosf_t vm_sincosf_tab[2] = {
    {0x1.45f306dc9c883p+23, 0x1.921fb54442d18p0, 0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5,
     -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16, -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
     -0x1.994eb3774cf24p-13},
    {0x1.45f306dc9c883p+23, 0x1.921fb54442d18p0, -0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5,
     0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16, -0x1.555545995a603p-3, 0x1.1107605230bc4p-7,
     -0x1.994eb3774cf24p-13},
};
/* 4/pi to 192 bits, 8 new bits per entry. */
static const uint32_t vm_inv_pio4[24] = {
    0xa2,       0xa2f9,     0xa2f983,   0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
    0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
    0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
};

/* sin polynomial (n even) or the (signed-table) cos polynomial (n odd) of the reduced x. */
static inline float glibc_sincosf_poly(double x, double x2, const vm_sincosf_t *p, int n) {
    if ((n & 1) == 0) {
        double x3 = x * x2;
        double s1 = fma(x2, p->s3, p->s2);
        double x7 = x3 * x2;
        double s = fma(x3, p->s1, x);
        return (float)fma(x7, s1, s);
    }
    double x4 = x2 * x2;
    double c2 = fma(x2, p->c4, p->c3);
    double c1 = fma(x2, p->c1, p->c0);
    double x6 = x4 * x2;
    double c = fma(x4, p->c2, c1);
    return (float)fma(x6, c2, c);
}

/* |x| >= 120: exact 2.62 fixed-point x * 4/pi mod 4 from a 32x96-bit multiply, quadrant in *np. */
static inline double glibc_sincosf_reduce_large(uint32_t xi, int *np) {
    const uint32_t *arr = &vm_inv_pio4[(xi >> 26) & 15];
    int shift = (xi >> 23) & 7;
    xi = ((xi & 0xffffff) | 0x800000) << shift;
    uint64_t res0 = (uint32_t)(xi * arr[0]);
    uint64_t res1 = (uint64_t)xi * arr[4];
    uint64_t res2 = (uint64_t)xi * arr[8];
    res0 = ((res2 >> 32) | (res0 << 32)) + res1;
    uint64_t n = (res0 + (1ULL << 61)) >> 62;
    res0 -= n << 62;
    *np = (int)n;
    return (double)(int64_t)res0 * 0x1.921fb54442d18p-62;
}

/* Shared body of glibc_sinf (want_cos 0) and glibc_cosf (want_cos 1); a64 picks aarch64's build, whose
 * math_private.h sets TOINT_INTRINSICS: for pi/4 <= |y| < 120 the quadrant is n = lround(y * 2/pi) (round
 * half away from zero, 2/pi unscaled) and the reduction x - round(r) * pi/2 one fused multiply-subtract,
 * where x86_64 takes the 2^24-scaled truncation ((int32_t)r + 0x800000) >> 24. */
static inline float glibc_sincosf_k(float y, int want_cos, int a64) {
    static const double sign[4] = {1.0, -1.0, -1.0, 1.0};
    uint32_t top = (vm_f2u(y) >> 20) & 0x7ff;
    double x = y;
    int n, q;
    if (top < ((vm_f2u(0x1.921fb6p-1f) >> 20) & 0x7ff)) { /* |y| < pi/4 (by top 12 bits) */
        if (top < ((vm_f2u(0x1p-12f) >> 20) & 0x7ff)) return want_cos ? 1.0f : y;
        return glibc_sincosf_poly(x, x * x, &vm_sincosf_tab[0], want_cos);
    }
    if (top < ((vm_f2u(120.0f) >> 20) & 0x7ff) && a64) {
        double r = x * 0x1.45f306dc9c883p-1;
        n = (int)round(r);
        x = fma(-round(r), vm_sincosf_tab[0].hpi, x);
        q = n;
    } else if (top < ((vm_f2u(120.0f) >> 20) & 0x7ff)) {
        double r = x * vm_sincosf_tab[0].hpi_inv;
        n = ((int32_t)r + 0x800000) >> 24;
        x = fma(-(double)n, vm_sincosf_tab[0].hpi, x);
        q = n;
    } else if (top < 0x7f8) {
        x = glibc_sincosf_reduce_large(vm_f2u(y), &n);
        q = n + (int)(vm_f2u(y) >> 31);
    } else {
        return (y - y) / (y - y); /* inf, nan */
    }
    const vm_sincosf_t *p = &vm_sincosf_tab[(q & 2) ? 1 : 0];
    return glibc_sincosf_poly(x * sign[q & 3], x * x, p, n ^ want_cos);
}

static inline float glibc_sincosf_one(float y, int want_cos) { return glibc_sincosf_k(y, want_cos, 0); }
static inline float glibc_sinf(float x) { return glibc_sincosf_one(x, 0); }
static inline float glibc_cosf(float x) { return glibc_sincosf_one(x, 1); }
static inline float glibc_sinf_a64(float x) { return glibc_sincosf_k(x, 0, 1); }
static inline float glibc_cosf_a64(float x) { return glibc_sincosf_k(x, 1, 1); }

/* glibc 2.36 lgammaf (sysdeps/ieee754/flt-32/e_lgammaf_r.c, fdlibm in float, and lgamma_negf.c for
 * -15 < x < -2; x86_64 has no FMA variant of either: every float operation rounded on its own). Its
 * logf is glibc_logf (the ifunc's FMA build), its sinf/cosf glibc_sinf/glibc_cosf (likewise), its
 * log1pf glibc_log1pf. The result only; signgam is not modelled. */

/* lgamma_negf.c: the zeros of lgamma in (-15, -2) as hi + lo, two per unit interval. */
static const float vm_lgamma_zeros[26][2] = {
    {-0x2.74ff94p+0f, 0x1.3fe0f2p-24f}, {-0x2.bf682p+0f, -0x1.437b2p-24f}, {-0x3.24c1b8p+0f, 0x6.c34cap-28f},
    {-0x3.f48e2cp+0f, 0x1.707a04p-24f}, {-0x4.0a13ap+0f, 0x1.e99aap-24f},  {-0x4.fdd5ep+0f, 0x1.64454p-24f},
    {-0x5.021a98p+0f, 0x2.03d248p-24f}, {-0x5.ffa4cp+0f, 0x2.9b82fcp-24f}, {-0x6.005ac8p+0f, -0x1.625f24p-24f},
    {-0x6.fff3p+0f, 0x2.251e44p-24f},   {-0x7.000dp+0f, 0x8.48078p-28f},   {-0x7.fffe6p+0f, 0x1.fa98c4p-28f},
    {-0x8.0001ap+0f, -0x1.459fcap-28f}, {-0x8.ffffdp+0f, -0x1.c425e8p-24f}, {-0x9.00003p+0f, 0x1.c44b82p-24f},
    {-0xap+0f, 0x4.9f942p-24f},         {-0xap+0f, -0x4.9f93b8p-24f},      {-0xbp+0f, 0x6.b9916p-28f},
    {-0xbp+0f, -0x6.b9915p-28f},        {-0xcp+0f, 0x8.f76c8p-32f},        {-0xcp+0f, -0x8.f76c7p-32f},
    {-0xdp+0f, 0xb.09231p-36f},         {-0xdp+0f, -0xb.09231p-36f},       {-0xep+0f, 0xc.9cba5p-40f},
    {-0xep+0f, -0xc.9cba5p-40f},        {-0xfp+0f, 0xd.73f9fp-44f},
};

/* lgamma_negf.c: polynomials in x - xm for (|gamma(x)| - 1)(x - n)/(x - x0) on the eighths of
 * [-3, -2], highest coefficient last (Horner from the end). */
static const float vm_lgamma_poly[51] = {
    -0x1.0b71c6p+0f, -0xc.73a1ep-4f,  -0x1.ec8462p-4f, -0xe.37b93p-4f,  -0x1.02ed36p-4f, -0xe.cbe26p-4f,
    -0xf.29309p-4f,  -0xc.a5cfep-4f,  0x3.9c93fcp-4f,  -0x1.02a2fp+0f,  0x9.896bep-4f,   -0x1.519704p+0f,
    -0xd.7d28dp-4f,  -0xe.6964cp-4f,  0xb.0d4f1p-4f,   -0x1.9240aep+0f, 0x1.dadabap+0f,  -0x3.1778c4p+0f,
    -0xb.74ea2p-4f,  -0x1.2a82cp+0f,  0x1.880234p+0f,  -0x3.320c4p+0f,  0x5.572a38p+0f,  -0x9.f92bap+0f,
    0x1.1c347ep+4f,  -0x3.d10108p-4f, 0x1.cd5584p+0f,  0x3.819c24p+0f,  0x6.84cbb8p+0f,  0xb.bf269p+0f,
    0x1.57fb12p+4f,  0x2.7b9854p+4f,  -0x6.b5d25p-4f,  0x1.28d604p+0f,  0x1.db6526p+0f,  0x2.e20b38p+0f,
    0x4.44c378p+0f,  0x6.62a08p+0f,   0x9.6db3ap+0f,   -0x8.a41b2p-4f,  0xc.da87fp-4f,   0x1.147312p+0f,
    0x1.7617dap+0f,  0x1.d6c13p+0f,   0x2.57a358p+0f,  -0xa.046d6p-4f,  0x9.70b89p-4f,   0xa.a89a6p-4f,
    0xd.2f2d8p-4f,   0xd.e32b4p-4f,   0xf.fb741p-4f,
};
static const int vm_lgamma_poly_deg[8] = {5, 5, 5, 6, 6, 6, 5, 5};
static const int vm_lgamma_poly_end[8] = {5, 11, 17, 24, 31, 38, 44, 50};

/* lgamma_negf.c lg_sinpi / lg_cospi: sin(pi x), cos(pi x) for -0.25 <= x <= 0.5 through sinf/cosf
 * of (float)M_PI * x or of (float)M_PI * (0.5 - x). */
static inline float glibc_lg_sinpi(float x) {
    return x <= 0.25f ? glibc_sinf((float)3.14159265358979323846 * x) : glibc_cosf((float)3.14159265358979323846 * (0.5f - x));
}
static inline float glibc_lg_cospi(float x) {
    return x <= 0.25f ? glibc_cosf((float)3.14159265358979323846 * x) : glibc_sinf((float)3.14159265358979323846 * (0.5f - x));
}

/* glibc __lgamma_negf, -15 < x < -2 (not an integer): i = floor(-2x) picks the half-integer
 * interval and its zero x0 = hi + lo, xdiff = (x - hi) - lo. On [-3, -2]: log1p(g * xdiff / (x - xn))
 * with g the interval's polynomial in x - xm. Else log(sinpi(x0) / sinpi(x)) (as a log of a ratio of
 * sines where |xn - x0| < |xn - x|/2, as log1p(2 s (c cot(pi |xn - x|) - s)), s, c = sinpi, cospi of
 * -+xdiff/2, otherwise) plus Stirling's log(gamma(1 - x0) / gamma(1 - x)): xdiff log1p((y0 - e + y0_eps)
 * / e) + (y - 0.5 + y_eps) log1p(xdiff / y), then three Bernoulli terms summed smallest first. */
static inline float glibc_lgamma_negf(float x) {
    int i = (int)floorf(-2.0f * x);
    if ((i & 1) == 0 && (float)i == -2.0f * x) return INFINITY;
    const float xn = (float)((i & 1) == 0 ? -i / 2 : (-i - 1) / 2);
    i -= 4;
    const float x0_hi = vm_lgamma_zeros[i][0], x0_lo = vm_lgamma_zeros[i][1];
    const float xdiff = x - x0_hi - x0_lo;
    if (i < 2) {
        const int j = (int)floorf(-8.0f * x) - 16;
        const float xm = (float)(-33 - 2 * j) * 0.0625f;
        const float x_adj = x - xm;
        const int end = vm_lgamma_poly_end[j];
        float g = vm_lgamma_poly[end];
        for (int k = 1; k <= vm_lgamma_poly_deg[j]; k++) g = g * x_adj + vm_lgamma_poly[end - k];
        return glibc_log1pf(g * xdiff / (x - xn));
    }
    const float x_idiff = fabsf(xn - x), x0_idiff = fabsf(xn - x0_hi - x0_lo);
    float log_sinpi_ratio;
    if (x0_idiff < x_idiff * 0.5f) {
        log_sinpi_ratio = glibc_logf(glibc_lg_sinpi(x0_idiff) / glibc_lg_sinpi(x_idiff));
    } else {
        const float x0diff2 = ((i & 1) == 0 ? xdiff : -xdiff) * 0.5f;
        const float sx0d2 = glibc_lg_sinpi(x0diff2), cx0d2 = glibc_lg_cospi(x0diff2);
        const float cot = glibc_lg_cospi(x_idiff) / glibc_lg_sinpi(x_idiff);
        log_sinpi_ratio = glibc_log1pf(2.0f * sx0d2 * (-sx0d2 + cx0d2 * cot));
    }
    const float e_hi = 0x2.b7e15p+0f, e_lo = 0x1.628aeep-24f;
    const float y0 = 1.0f - x0_hi;
    const float y0_eps = -x0_hi + (1.0f - y0) - x0_lo;
    const float y = 1.0f - x;
    const float y_eps = -x + (1.0f - y);
    const float log_gamma_high =
        xdiff * glibc_log1pf((y0 - e_hi - e_lo + y0_eps) / e_hi) + (y - 0.5f + y_eps) * glibc_log1pf(xdiff / y);
    const float coeff[3] = {0x1.555556p-4f, -0xb.60b61p-12f, 0x3.403404p-12f};
    const float y0r = 1.0f / y0, yr = 1.0f / y;
    const float y0r2 = y0r * y0r, yr2 = yr * yr;
    const float rdiff = -xdiff / (y * y0);
    float bterm[3], dlast = rdiff, elast = rdiff * yr * (yr + y0r);
    bterm[0] = dlast * coeff[0];
    for (int k = 1; k < 3; k++) {
        const float dnext = dlast * y0r2 + elast;
        const float enext = elast * yr2;
        bterm[k] = dnext * coeff[k];
        dlast = dnext;
        elast = enext;
    }
    float log_gamma_low = 0.0f;
    for (int k = 0; k < 3; k++) log_gamma_low += bterm[2 - k];
    return log_sinpi_ratio + (log_gamma_high + log_gamma_low);
}

/* e_lgammaf_r.c sin_pif: -sin(pi x) for x < 0 (|x| < 0.25: sinf(pi x) itself), by |x| mod 2 in
 * eighths; an integer x gives +-0. */
static inline float glibc_lgamma_sin_pif(float x) {
    const float pi = 3.1415927410e+00f;
    const uint32_t ix = vm_f2u(x) & 0x7fffffffu;
    if (ix < 0x3e800000u) return glibc_sinf(pi * x);
    float y = -x, z = floorf(y);
    int n;
    if (z != y) {
        y *= 0.5f;
        y = 2.0f * (y - floorf(y));
        n = (int)(y * 4.0f);
    } else {
        if (ix >= 0x4b800000u) {
            y = 0.0f;
            n = 0;
        } else {
            if (ix < 0x4b000000u) z = y + 8.3886080000e+06f;
            n = (int)(vm_f2u(z) & 1u);
            y = (float)n;
            n <<= 2;
        }
    }
    switch (n) {
    case 0: y = glibc_sinf(pi * y); break;
    case 1:
    case 2: y = glibc_cosf(pi * (0.5f - y)); break;
    case 3:
    case 4: y = glibc_sinf(pi * (1.0f - y)); break;
    case 5:
    case 6: y = -glibc_cosf(pi * (y - 1.5f)); break;
    default: y = glibc_sinf(pi * (y - 2.0f)); break;
    }
    return -y;
}

/* glibc 2.36 lgammaf. NaN, +-inf: x*x (x quieted, +inf); +-0: +inf; |x| < 2^-30: -log|x|. x < 0:
 * -x >= 2^23 (an integer): +inf; -15 < x < -2: glibc_lgamma_negf; else t = sin_pif(x) (0: +inf),
 * nadj = log(pi / |t x|), then lgamma(-x) below and nadj - that. x = 1, 2: 0. x < 2: three
 * polynomials about 1, 1.4616 (tc, the minimum) and 2, with -log(x) added below 0.9. x < 8:
 * 0.5 y + p(y)/q(y) at y = x - floor(x), plus log((y+2)(y+3)...(y+i-1)) as one log of the product
 * (rounded factor by factor). x < 2^26: (x - 0.5)(log x - 1) + w(1/x). Above: x (log x - 1). */
static inline float glibc_lgammaf(float x) {
    const float half = 0.5f, one = 1.0f, pi = 3.1415927410e+00f;
    const float a0 = 7.7215664089e-02f, a1 = 3.2246702909e-01f, a2 = 6.7352302372e-02f, a3 = 2.0580807701e-02f;
    const float a4 = 7.3855509982e-03f, a5 = 2.8905137442e-03f, a6 = 1.1927076848e-03f, a7 = 5.1006977446e-04f;
    const float a8 = 2.2086278477e-04f, a9 = 1.0801156895e-04f, a10 = 2.5214456400e-05f, a11 = 4.4864096708e-05f;
    const float tc = 1.4616321325e+00f, tf = -1.2148628384e-01f, tt = 6.6971006518e-09f;
    const float t0 = 4.8383611441e-01f, t1 = -1.4758771658e-01f, t2 = 6.4624942839e-02f, t3 = -3.2788541168e-02f;
    const float t4 = 1.7970675603e-02f, t5 = -1.0314224288e-02f, t6 = 6.1005386524e-03f, t7 = -3.6845202558e-03f;
    const float t8 = 2.2596477065e-03f, t9 = -1.4034647029e-03f, t10 = 8.8108185446e-04f, t11 = -5.3859531181e-04f;
    const float t12 = 3.1563205994e-04f, t13 = -3.1275415677e-04f, t14 = 3.3552918467e-04f;
    const float u0 = -7.7215664089e-02f, u1 = 6.3282704353e-01f, u2 = 1.4549225569e+00f, u3 = 9.7771751881e-01f;
    const float u4 = 2.2896373272e-01f, u5 = 1.3381091878e-02f;
    const float v1 = 2.4559779167e+00f, v2 = 2.1284897327e+00f, v3 = 7.6928514242e-01f, v4 = 1.0422264785e-01f;
    const float v5 = 3.2170924824e-03f;
    const float s0 = -7.7215664089e-02f, s1 = 2.1498242021e-01f, s2 = 3.2577878237e-01f, s3 = 1.4635047317e-01f;
    const float s4 = 2.6642270386e-02f, s5 = 1.8402845599e-03f, s6 = 3.1947532989e-05f;
    const float r1 = 1.3920053244e+00f, r2 = 7.2193557024e-01f, r3 = 1.7193385959e-01f, r4 = 1.8645919859e-02f;
    const float r5 = 7.7794247773e-04f, r6 = 7.3266842264e-06f;
    const float w0 = 4.1893854737e-01f, w1 = 8.3333335817e-02f, w2 = -2.7777778450e-03f, w3 = 7.9365057172e-04f;
    const float w4 = -5.9518753551e-04f, w5 = 8.3633989561e-04f, w6 = -1.6309292987e-03f;
    float t, y, z, nadj = 0.0f, p, p1, p2, p3, q, r, w;
    int i;
    const int32_t hx = (int32_t)vm_f2u(x), ix = hx & 0x7fffffff;
    if (ix >= 0x7f800000) return x * x;
    if (ix == 0) return INFINITY;
    if (ix < 0x30800000) return hx < 0 ? -glibc_logf(-x) : -glibc_logf(x);
    if (hx < 0) {
        if (ix >= 0x4b000000) return INFINITY;
        if (ix > 0x40000000 && ix < 0x41700000) return glibc_lgamma_negf(x);
        t = glibc_lgamma_sin_pif(x);
        if (t == 0.0f) return INFINITY;
        nadj = glibc_logf(pi / fabsf(t * x));
        x = -x;
    }
    if (ix == 0x3f800000 || ix == 0x40000000) {
        r = 0.0f;
    } else if (ix < 0x40000000) {
        if (ix <= 0x3f666666) {
            r = -glibc_logf(x);
            if (ix >= 0x3f3b4a20) { y = one - x; i = 0; }
            else if (ix >= 0x3e6d3308) { y = x - (tc - one); i = 1; }
            else { y = x; i = 2; }
        } else {
            r = 0.0f;
            if (ix >= 0x3fdda618) { y = 2.0f - x; i = 0; }
            else if (ix >= 0x3f9da620) { y = x - tc; i = 1; }
            else { y = x - one; i = 2; }
        }
        switch (i) {
        case 0:
            z = y * y;
            p1 = a0 + z * (a2 + z * (a4 + z * (a6 + z * (a8 + z * a10))));
            p2 = z * (a1 + z * (a3 + z * (a5 + z * (a7 + z * (a9 + z * a11)))));
            p = y * p1 + p2;
            r += (p - 0.5f * y);
            break;
        case 1:
            z = y * y;
            w = z * y;
            p1 = t0 + w * (t3 + w * (t6 + w * (t9 + w * t12)));
            p2 = t1 + w * (t4 + w * (t7 + w * (t10 + w * t13)));
            p3 = t2 + w * (t5 + w * (t8 + w * (t11 + w * t14)));
            p = z * p1 - (tt - w * (p2 + y * p3));
            r += (tf + p);
            break;
        default:
            p1 = y * (u0 + y * (u1 + y * (u2 + y * (u3 + y * (u4 + y * u5)))));
            p2 = one + y * (v1 + y * (v2 + y * (v3 + y * (v4 + y * v5))));
            r += (-0.5f * y + p1 / p2);
            break;
        }
    } else if (ix < 0x41000000) {
        i = (int)x;
        y = x - (float)i;
        p = y * (s0 + y * (s1 + y * (s2 + y * (s3 + y * (s4 + y * (s5 + y * s6))))));
        q = one + y * (r1 + y * (r2 + y * (r3 + y * (r4 + y * (r5 + y * r6)))));
        r = half * y + p / q;
        z = one;
        switch (i) { /* fall through from i down to 3 */
        case 7: z *= (y + 6.0f); /* fallthrough */
        case 6: z *= (y + 5.0f); /* fallthrough */
        case 5: z *= (y + 4.0f); /* fallthrough */
        case 4: z *= (y + 3.0f); /* fallthrough */
        case 3: z *= (y + 2.0f); r += glibc_logf(z); break;
        default: break;
        }
    } else if (ix < 0x4c800000) {
        t = glibc_logf(x);
        z = one / x;
        y = z * z;
        w = w0 + z * (w1 + y * (w2 + y * (w3 + y * (w4 + y * (w5 + y * w6)))));
        r = (x - half) * (t - one) + w;
    } else {
        r = x * (glibc_logf(x) - one);
    }
    if (hx < 0) r = nadj - r;
    return r;
}

/* ------------------------------------------------------------------ MKL VML (vsExp, VML_HA) */

/* 2^(j/128) as float hi + float lo (hi = nearest float, lo = nearest float to the rest). */
static const uint32_t vm_exp128_tab[128][2] = {
    {0x3f800000, 0x00000000}, {0x3f80b1ed, 0x331fb333}, {0x3f8164d2, 0xb1c43fd0}, {0x3f8218af, 0x3306e7f8},
    {0x3f82cd87, 0xb34ea7a9}, {0x3f838359, 0x331ddf6e}, {0x3f843a29, 0xb2f14c87}, {0x3f84f1f6, 0x332c6f38},
    {0x3f85aac3, 0x334f9891}, {0x3f866491, 0x3337247f}, {0x3f871f62, 0xb352c2e6}, {0x3f87db35, 0x337fed32},
    {0x3f88980f, 0xb37eda4b}, {0x3f8955ee, 0x30d86398}, {0x3f8a14d5, 0x336a92de}, {0x3f8ad4c6, 0x330a58e5},
    {0x3f8b95c2, 0xb260aba1}, {0x3f8c57ca, 0xb2ee6e43}, {0x3f8d1adf, 0x3336fcb7}, {0x3f8ddf04, 0x32808b9a},
    {0x3f8ea43a, 0xb3697465}, {0x3f8f6a81, 0x323f3647}, {0x3f9031dc, 0x330628cd}, {0x3f90fa4d, 0xb3682237},
    {0x3f91c3d3, 0x33675624}, {0x3f928e72, 0x337b2a64}, {0x3f935a2b, 0x32bc4f9c}, {0x3f9426ff, 0x31fab1c0},
    {0x3f94f4f0, 0xb32e0212}, {0x3f95c3ff, 0xb3725267}, {0x3f96942d, 0x32dc8061}, {0x3f97657d, 0x3313e2f5},
    {0x3f9837f0, 0x33231b71}, {0x3f990b88, 0xb26cc9f4}, {0x3f99e046, 0xb359be90}, {0x3f9ab62b, 0xb0dac01e},
    {0x3f9b8d3a, 0xb30c5563}, {0x3f9c6573, 0x33505d86}, {0x3f9d3eda, 0xb331a601}, {0x3f9e196e, 0x3244ea39},
    {0x3f9ef532, 0x33412342}, {0x3f9fd228, 0x32959003}, {0x3fa0b051, 0x31fb9715}, {0x3fa18faf, 0xb2d5eaed},
    {0x3fa27043, 0x30c3125a}, {0x3fa3520f, 0x3351d005}, {0x3fa43516, 0xb323ec33}, {0x3fa51958, 0xb37282c2},
    {0x3fa5fed7, 0xb32c9d5e}, {0x3fa6e595, 0xb2c0445e}, {0x3fa7cd94, 0xb3162d36}, {0x3fa8b6d5, 0x3233d990},
    {0x3fa9a15b, 0xb3162b08}, {0x3faa8d26, 0x3325d921}, {0x3fab7a3a, 0xb314ad82}, {0x3fac6897, 0xb3368380},
    {0x3fad583f, 0xb22deaf6}, {0x3fae4934, 0x3325946b}, {0x3faf3b79, 0xb3252deb}, {0x3fb02f0e, 0xb2d1247f},
    {0x3fb123f6, 0xb37c5aa8}, {0x3fb21a32, 0xb33333ce}, {0x3fb311c4, 0x32154889}, {0x3fb40aaf, 0xb33b3569},
    {0x3fb504f3, 0x32cfe77a}, {0x3fb60094, 0xb32f4254}, {0x3fb6fd92, 0xb266b974}, {0x3fb7fbf0, 0xb2d5cd70},
    {0x3fb8fbaf, 0x330ec5f7}, {0x3fb9fcd2, 0x330a5817}, {0x3fbaff5b, 0xb31bd983}, {0x3fbc034a, 0x337de5d4},
    {0x3fbd08a4, 0xb3414fe8}, {0x3fbe0f68, 0x31986099}, {0x3fbf179a, 0xb3130b1a}, {0x3fc0213b, 0xb33c1e5f},
    {0x3fc12c4d, 0xb2d6663e}, {0x3fc238d2, 0x32c478f6}, {0x3fc346cd, 0xb2976da2}, {0x3fc4563f, 0xb2ceb32d},
    {0x3fc5672a, 0x320aa837}, {0x3fc67991, 0xb314abb7}, {0x3fc78d75, 0xb2dd5119}, {0x3fc8a2d8, 0x33391ffc},
    {0x3fc9b9be, 0xb37323a2}, {0x3fcad226, 0x333c8521}, {0x3fcbec15, 0xb006c6c2}, {0x3fcd078c, 0xb3735f84},
    {0x3fce248c, 0x3228fc24}, {0x3fcf4319, 0xb2c39b9c}, {0x3fd06334, 0xb2944353}, {0x3fd184df, 0x3344a2d3},
    {0x3fd2a81e, 0xb35c1daa}, {0x3fd3ccf1, 0xb34cf4ca}, {0x3fd4f35b, 0xb3286024}, {0x3fd61b5e, 0xb0303219},
    {0x3fd744fd, 0xb2d4a58a}, {0x3fd87039, 0x3318db66}, {0x3fd99d16, 0xb2f61d41}, {0x3fdacb94, 0x335e5594},
    {0x3fdbfbb8, 0xb3504a1c}, {0x3fdd2d82, 0xb375ef9b}, {0x3fde60f5, 0xb37b43e3}, {0x3fdf9613, 0xb2851c3f},
    {0x3fe0ccdf, 0xb21eab59}, {0x3fe2055b, 0xac3e164c}, {0x3fe33f89, 0x33657d15}, {0x3fe47b6d, 0xb33f9185},
    {0x3fe5b907, 0xb2441be6}, {0x3fe6f85b, 0xb32a23c0}, {0x3fe8396a, 0x33207898}, {0x3fe97c38, 0x3300d89f},
    {0x3feac0c7, 0xb24116de}, {0x3fec0719, 0xb31367c7}, {0x3fed4f30, 0x3276cca1}, {0x3fee9910, 0xb34fe4ba},
    {0x3fefe4ba, 0xb348464a}, {0x3ff13231, 0xb330a5ed}, {0x3ff28177, 0x32f167ff}, {0x3ff3d290, 0xb2871670},
    {0x3ff5257d, 0x32292436}, {0x3ff67a41, 0x3358e67f}, {0x3ff7d0df, 0x336615a2}, {0x3ff9295a, 0xb3094457},
    {0x3ffa83b3, 0xb2923758}, {0x3ffbdfed, 0x3359cbe1}, {0x3ffd3e0c, 0x31cf486c}, {0x3ffe9e11, 0x3338f71f},
};

/* torch.exp forward: MKL VML vsExp (VML_HA), as measured on torch 2.13.0's MKL 2024.2 code path
 * "Intel(R) Architecture processors" (no FMA), reconstructed from its outputs (MKL is closed):
 * k = rint(float(x * 128/ln2)), r = (x - k*L_hi) - float(k*L_lo) with a 10-bit L_hi,
 * p = r + (r*r)*0.5, exp = 2^(k>>7) * (T_hi + (T_hi*p + T_lo)), T = 2^((k&127)/128); every step
 * a separately rounded float operation: mkl_vml_expf_main, branch-free. Measured bit-identical
 * for |x| <= 0x42aeac4f (87.3365, results in [2^-126, 2^126]). Beyond, VML calls its scalar
 * fallback, which is correctly rounded (every float of [-104, -87.3366] and [87.3366, 88.73]
 * measured): mkl_vml_expf. */
static inline float mkl_vml_expf_main(float x) {
    /* special cases by integer-mask selects at the end (branch-free, so loops vectorize);
     * xc keeps the table index and the scale in range for them */
    uint32_t nan = -(uint32_t)(x != x), over = -(uint32_t)(x > 0x1.62e430p+6f); /* above ln(FLT_MAX) */
    uint32_t under = -(uint32_t)(x < -0x1.9fe368p+6f);                            /* below ln(2^-150) */
    float xc = vm_u2f(vm_f2u(x) & ~(nan | over | under));
    const float inv_l = vm_u2f(0x4338aa3b), l_hi = vm_u2f(0x3bb18000), l_lo = vm_u2f(0xb5de8083);
    float kf = rintf(xc * inv_l);
    int32_t k = (int32_t)kf;
    float r = (xc - kf * l_hi) - kf * l_lo;
    float p = r + (r * r) * 0.5f;
    float t_hi = vm_u2f(vm_exp128_tab[k & 127][0]), t_lo = vm_u2f(vm_exp128_tab[k & 127][1]);
    float q = t_hi * p + t_lo;
    int32_t n = (k - (k & 127)) / 128;
    /* t_hi + q rounded once at the scale 2^n (the same as float(t_hi + q) * 2^n for normal results;
     * closest found for subnormal ones, where VML still differs in 0.05% of elements) */
    float y = (float)(((double)t_hi + (double)q) * dm_u2d((uint64_t)(n + 1023) << 52));
    uint32_t u = (vm_f2u(y) & ~(nan | over | under)) | (0x7f800000u & over);
    return vm_u2f(u | (vm_f2u(x + x) & nan));
}

/* Whether vsExp takes its scalar, correctly rounded fallback for x (|x| > 87.3365, not NaN). */
static inline int mkl_vml_expf_rare(float x) { return (vm_f2u(x) & 0x7fffffffu) - 0x42aeac50u < 0x7f800001u - 0x42aeac50u; }

/* vsExp: the main path, or the correctly rounded fallback as (float)exp((double)x) with dmath.h's exp. */
static inline float mkl_vml_expf(float x) { return mkl_vml_expf_rare(x) ? (float)dm_exp((double)x) : mkl_vml_expf_main(x); }

/* torch.log forward: MKL VML vsLn (VML_HA), the same code path, reconstructed from its outputs and
 * identified as Intel's SVML/libdevice "ln_s_ha" main path (x = 2^n * m, m in (2/3, 4/3] taken
 * from the bits with the break point 0x3f2aaaab, r = m - 1 exact, degree-9 polynomial) evaluated
 * without FMA: P = Horner(c8..c0) in r, p = (P*r)*r + r, log = n*ln2_hi + (n*ln2_lo + p), every
 * step a separately rounded float operation. Bit-identical on 8M random positive normal floats and
 * every float of [2/3, 4/3). Special inputs by mask selects (branch-free, vectorizable): +-0 -> -inf,
 * +inf -> +inf, NaN -> the quieted input, negative (incl. -inf) -> 0x7fc00000. Positive subnormals
 * take VML's scalar fallback, which is correctly rounded (every subnormal measured): not handled
 * here, see mkl_vml_logf. */
static const uint32_t vm_ln_poly[9] = {
    0xbf000000, 0x3eaaaa83, 0xbe7fff78, 0x3e4ce814, 0xbe2acee6, 0x3e0f6b8c, 0xbdf9889e, 0x3e0f335d, 0xbe0402c8,
};

/* vsLn's reduction, both paths: x = 2^n * (1 + r), 1 + r in (2/3, 4/3] taken from the bits
 * (break point 0x3f2aaaab), r exact. */
static inline float vm_ln_reduce(float x, float *r) {
    uint32_t ix = vm_f2u(x) - 0x3f2aaaabu;
    *r = vm_u2f((ix & 0x007fffffu) + 0x3f2aaaabu) - 1.0f;
    return (float)((int32_t)ix >> 23);
}

/* vsLn's special inputs, both paths, by mask selects over the main path's y: +-0 -> -inf,
 * +inf -> +inf, NaN -> the quieted input, negative (incl. -inf) -> 0x7fc00000. */
static inline float vm_ln_special(float x, float y) {
    uint32_t ux = vm_f2u(x), ax = ux & 0x7fffffffu;
    uint32_t nan = -(uint32_t)(ax > 0x7f800000u), zero = -(uint32_t)(ax == 0);
    uint32_t neg = -(uint32_t)(ux > 0x80000000u) & ~nan, pinf = -(uint32_t)(ux == 0x7f800000u);
    uint32_t special = nan | zero | neg | pinf;
    uint32_t out = (vm_f2u(y) & ~special) | ((ux | 0x00400000u) & nan) | (0xff800000u & zero);
    return vm_u2f(out | (0x7fc00000u & neg) | (0x7f800000u & pinf));
}

static inline float mkl_vml_logf_normal(float x) {
    float r, n = vm_ln_reduce(x, &r);
    float p = vm_u2f(vm_ln_poly[8]);
    for (int i = 7; i >= 0; i--) p = p * r + vm_u2f(vm_ln_poly[i]);
    p = (p * r) * r + r;
    return vm_ln_special(x, n * vm_u2f(0x3f317200) + (n * vm_u2f(0x35bfbe8e) + p));
}

/* Whether x is a positive subnormal (vsLn's scalar, correctly rounded fallback). */
static inline int mkl_vml_logf_subnormal(float x) { return vm_f2u(x) - 1u < 0x007fffffu; }

static inline float mkl_vml_logf(float x) {
    return mkl_vml_logf_subnormal(x) ? (float)dm_log((double)x) : mkl_vml_logf_normal(x); /* dmath.h's log */
}

/* MKL VML on MKL's "Intel(R) AVX2 enabled processors" path (GenuineIntel CPUs with AVX2 and FMA;
 * kernels mkl_vml_kernel_sExp_L9HAynn and mkl_vml_kernel_sLn_L9HAynn in libtorch_cpu), measured
 * under QEMU's Haswell-v4 with torch 2.13.0's MKL, which selects it there (its verbose banner
 * names it). vsTanh there gives the generic path's bits
 * (mkl_vml_tanhf, measured); vsExp and vsLn are kernels of their own, Intel's SVML "ha" AVX2
 * algorithms (the structure of their published l9 variants), every step an FMA where one fits.
 *
 * torch.exp forward, vsExp VML_HA: a quarter-octave reduction with a 4-entry table,
 *   s  = fma(x, 4/ln2, 0x1.8p23 + 508)          k = round(4x/ln2) in the low bits, biased by 4*127
 *   k  = s - (0x1.8p23 + 508)                  exact
 *   r  = fma(-k, L_hi, x), r = fma(-k, L_lo, r) L = ln2/4 = 0x3e317000 + 0x3705fdf4
 *   q  = fma(fma(c3, r, c2), r, c1)             c3, c2, c1 = 0x3d2abb12, 0x3e2abb12, 0x3effffff
 *   T  = T_hi[j] * 2^(k>>2), j = k & 3          2^(j/4) as a float (exact product: a power of 2)
 *   y  = fma(r + fma(r*r, q, T_lo[j]), T, T)    T_lo[j] = 2^(j/4)/T_hi[j] - 1, as a float
 * j and 2^(k>>2) come from the bits of s (its low 2 bits; the next 8 shifted into the exponent).
 * Main path for |x| <= 0x42aeac4f (87.3365); beyond (NaN and inf included) VML's scalar,
 * correctly rounded fallback, the generic path's (mkl_vml_expf). Branch-free for any x: the
 * fallback's elements are redone after it. Measured bit-identical, fallback included, on every
 * float of [2^-25, 89] and [-104, -2^-25], every 5th of |x| < 2^-25, every 61st bit pattern and
 * 26M random elements. */
static const uint32_t vm_exp4_hi[4] = {0x3f800000, 0x3f9837f0, 0x3fb504f3, 0x3fd744fd};
static const uint32_t vm_exp4_lo[4] = {0x00000000, 0x33092801, 0x329302ae, 0xb27ce182};

static inline float mkl_avx2_vml_expf_main(float x) {
    const float shift = vm_u2f(0x4b4001fcu);
    float s = fmaf(x, vm_u2f(0x40b8aa3bu), shift);
    float k = s - shift;
    float r = fmaf(-k, vm_u2f(0x3e317000u), x);
    r = fmaf(-k, vm_u2f(0x3705fdf4u), r);
    float q = fmaf(fmaf(vm_u2f(0x3d2abb12u), r, vm_u2f(0x3e2abb12u)), r, vm_u2f(0x3effffffu));
    uint32_t sb = vm_f2u(s), j = sb & 3u;
    float t = vm_u2f(vm_exp4_hi[j]) * vm_u2f((sb << 21) & 0x7f800000u);
    return fmaf(r + fmaf(r * r, q, vm_u2f(vm_exp4_lo[j])), t, t);
}

/* torch.exp forward on MKL's Intel AVX-512 path (mkl_vml_kernel_sExp_Z0HAynn, read from its code and
 * measured on an Intel Xeon: 2,244,220 of 2,244,220 main-path inputs of every 997th bit pattern):
 *   t = x*log2(e) + 1.5*2^18 rounded toward zero (its low 5 bits j, t - 1.5*2^18 = n, a multiple of
 *   1/32), r = fma(n, -ln2_hi, x), r = fma(n, ln2_lo, r), T = 2^(j/32) scaled by
 *   2^floor(n), q = fma(r*r, fma(r, c3, c2), vm_exp32_lo[j] + r), exp = fma(T, q, T); T is the generic
 *   table's 2^(4j/128) (vm_exp128_tab), its low parts this path's own.
 * |x| >= 0x42aeac4f (87.3365) and NaN take VML's correctly rounded fallback (mkl_vml_expf: all
 * 2,063,671 such inputs of the same stride; NaN quieted), one input earlier than the other paths. */
static const uint32_t vm_exp32_lo[32] = {
    0x00000000, 0xb34a3a0a, 0x3346cb6a, 0xb36ed17e, 0xb24e0611, 0xb3517dd9, 0x334b2482, 0xb31586de,
    0x33092801, 0xb2e6f467, 0x331b85f2, 0x3099b6f1, 0xb3051aa8, 0xb2e2a0da, 0xb2006c56, 0xb3365942,
    0x329302ae, 0x32c595dc, 0xb302e5a2, 0xb28e10a1, 0x31b3d0e5, 0xb31a472b, 0x31d1daf2, 0xb305bf64,
    0xb27ce182, 0xb2f26443, 0xb1b4b0da, 0xb1da8a8f, 0xb1d290be, 0xb2d5b899, 0x31b0a147, 0xb2156afc,
};

/* Whether the AVX-512 path's vsExp hands x to its fallback. */
static inline int mkl_avx512_vml_expf_rare(float x) { return (vm_f2u(x) & 0x7fffffffu) >= 0x42aeac4fu; }

static inline float mkl_avx512_vml_expf_main(float x) {
    if (mkl_avx512_vml_expf_rare(x)) return x != x ? x + x : (float)dm_exp((double)x);
    const float l2e = vm_u2f(0x3fb8aa3bu), shift = vm_u2f(0x48c00000u);
    float t = fmaf(x, l2e, shift); /* toward zero: one below where rounding to nearest went up (t > 0) */
    if (fmaf(x, l2e, shift - t) < 0.0f) t = vm_u2f(vm_f2u(t) - 1u);
    const float n = t - shift;
    float r = fmaf(n, -vm_u2f(0x3f317218u), x);
    r = fmaf(n, vm_u2f(0x3102e308u), r);
    const uint32_t j = vm_f2u(t) & 31u;
    const float q = fmaf(r * r, fmaf(r, vm_u2f(0x3e2aabf3u), vm_u2f(0x3f0000f6u)), vm_u2f(vm_exp32_lo[j]) + r);
    const float scale = ldexpf(vm_u2f(vm_exp128_tab[4 * j][0]), (int)floorf(n));
    return fmaf(scale, q, scale);
}

/* torch.log forward on MKL's Intel AVX-512 path (mkl_vml_kernel_sLn_Z0HAynn, read from its code and
 * measured on an Intel Xeon: 2,120,357 of 2,120,357 main-path inputs of every 997th bit pattern):
 *   rc = vrcp14ps(x) rounded to 5 mantissa bits (its integer bits + 2^17, masked), e its exponent,
 *   j its 5 bits; r = fma(x, rc, -1); t1 = fma(e, -ln2_hi, A[j]), t2 = fma(e, -ln2_lo, B[j]) (A, B:
 *   -ln(1 + j/32), hi and lo); p = fma(r*r, fma(r, fma(r, c3, c2), -0.5), t2); s = t1 + r,
 *   log = s + (p + (r - (s - t1))).
 * Where rc is not a positive normal (x <= 0, subnormal, above 2^126, inf, NaN) its fallback: +-0 -> -inf,
 * x < 0 -> 0x7fc00000, NaN quieted, else correctly rounded (all 2,187,534 such inputs of the stride).
 * The Xeon's VRCP14PS is a table of the top 16 mantissa bits (x = 1 exact, every exponent scaling),
 * so rc is a step function of x's mantissa: the first mantissa of each step and its rc for x in [1, 2)
 * (vm_rcp14_r5, from every mantissa measured). */
static const uint32_t vm_rcp14_r5[33][2] = {
    {0x000000, 0x3f800000}, {0x010300, 0x3f7c0000}, {0x031380, 0x3f780000}, {0x053500, 0x3f740000},
    {0x076880, 0x3f700000}, {0x09ae80, 0x3f6c0000}, {0x0c0800, 0x3f680000}, {0x0e7900, 0x3f640000},
    {0x10ff00, 0x3f600000}, {0x139b00, 0x3f5c0000}, {0x165000, 0x3f580000}, {0x192000, 0x3f540000},
    {0x1c0980, 0x3f500000}, {0x1f1280, 0x3f4c0000}, {0x223780, 0x3f480000}, {0x257f00, 0x3f440000},
    {0x28e980, 0x3f400000}, {0x2c7780, 0x3f3c0000}, {0x302c00, 0x3f380000}, {0x340b80, 0x3f340000},
    {0x381700, 0x3f300000}, {0x3c5280, 0x3f2c0000}, {0x40c200, 0x3f280000}, {0x456680, 0x3f240000},
    {0x4a4600, 0x3f200000}, {0x4f6580, 0x3f1c0000}, {0x54c880, 0x3f180000}, {0x5a7480, 0x3f140000},
    {0x607100, 0x3f100000}, {0x66c400, 0x3f0c0000}, {0x6d7400, 0x3f080000}, {0x748a80, 0x3f040000},
    {0x7c1280, 0x3f000000},
};
static const uint32_t vm_ln32_hi[32] = {
    0x00000000, 0xbcfc0000, 0xbd786000, 0xbdb78000, 0xbdf14000, 0xbe14a800, 0xbe2ff800, 0xbe4a9000,
    0xbe648000, 0xbe7dc800, 0xbe8b3c00, 0xbe974800, 0xbea30c00, 0xbeae8c00, 0xbeb9d000, 0xbec4d000,
    0xbecf9800, 0xbeda2800, 0xbee48000, 0xbeeea400, 0xbef89400, 0xbf012a00, 0xbf05f400, 0xbf0aa600,
    0xbf0f4200, 0xbf13ca00, 0xbf183e00, 0xbf1ca000, 0xbf20ec00, 0xbf252800, 0xbf295200, 0xbf2d6a00,
};
static const uint32_t vm_ln32_lo[32] = {
    0x00000000, 0xb726c39e, 0x37679ff7, 0xb7528ae5, 0x377891d5, 0xb725f040, 0xb6c1c29e, 0xb73539e9,
    0x35838656, 0xb6436af2, 0x370d5151, 0x36ea28f7, 0xb63c21c6, 0xb776fd60, 0x37202511, 0xb74e1b05,
    0xb70fb2fe, 0x36084337, 0x36038656, 0x36afd9f2, 0xb675faf0, 0xb7152d2f, 0x36d1bdad, 0xb5f4bd35,
    0xb77af382, 0xb770944e, 0xb7399a79, 0x3779654f, 0xb6fe8467, 0x367449f8, 0x3716cd22, 0xb4186b3e,
};

static inline float mkl_avx512_vml_logf(float x) {
    const uint32_t ux = vm_f2u(x);
    const int32_t ex = (int32_t)(ux >> 23) - 127; /* x = 2^ex * 1.m for a positive normal x */
    if (ux < 0x00800000u || ux > 0x7e800000u) /* rc not a positive normal (x above 2^126: rc subnormal) */
        return vm_ln_special(x, (float)dm_log((double)x));
    int i = 32;
    while (vm_rcp14_r5[i][0] > (ux & 0x7fffffu)) i--;
    const uint32_t urc = vm_rcp14_r5[i][1] - ((uint32_t)ex << 23);
    const float rc = vm_u2f(urc), e = (float)((int32_t)(urc >> 23) - 127);
    const uint32_t j = (urc >> 18) & 31u;
    const float r = fmaf(x, rc, -1.0f);
    const float t1 = fmaf(e, -vm_u2f(0x3f317200u), vm_u2f(vm_ln32_hi[j]));
    const float t2 = fmaf(e, -vm_u2f(0x35bfbe8eu), vm_u2f(vm_ln32_lo[j]));
    const float p = fmaf(r * r, fmaf(r, fmaf(r, vm_u2f(0xbe800810u), vm_u2f(0x3eaab11eu)), vm_u2f(0xbf000000u)), t2);
    const float s = t1 + r;
    return s + (p + (r - (s - t1)));
}

/* torch.log forward, vsLn VML_HA: the generic path's algorithm and constants (ln_s_ha, see
 * mkl_vml_logf_normal) with every multiply-add fused:
 *   P = Horner(c8..c0) in r by fma, p = fma(r*P, r, r), log = fma(n, ln2_hi, fma(n, ln2_lo, p)).
 * The same special inputs; positive subnormals take the same correctly rounded fallback
 * (mkl_vml_logf_subnormal, mkl_vml_logf). Measured bit-identical on every float of [2^-10, 2^10),
 * every subnormal, every 7th positive normal and every 61st bit pattern and 26M random elements. */
static inline float mkl_avx2_vml_logf_normal(float x) {
    float r, n = vm_ln_reduce(x, &r);
    float p = vm_u2f(vm_ln_poly[8]);
    for (int i = 7; i >= 0; i--) p = fmaf(p, r, vm_u2f(vm_ln_poly[i]));
    p = fmaf(r * p, r, r);
    return vm_ln_special(x, fmaf(n, vm_u2f(0x3f317200), fmaf(n, vm_u2f(0x35bfbe8e), p)));
}

/* torch.tanh forward on MKL's Intel AVX-512 path (mkl_vml_kernel_sTanh_Z0HAynn, read from its code and
 * measured on an Intel Xeon: 4,278,443 of 4,278,443 main-path inputs of every 997th bit pattern and
 * all 29,448 others): 32 intervals of |x| by its bits (exponent and top 2 mantissa bits, from 0x3d400000,
 * clamped), d = |x| - start[i], p = fma(d, .. fma(d, c0[i], c1[i]) .., c4[i]) by Horner,
 * q = fma(c5[i], d, fma(d, d*p, c6[i])), tanh = (q + tanh(start)[i]) with x's sign; where
 * (bits & 0x7fe00000) > 0x7f000000 (|x| >= 2^127 * 1.25, inf, NaN) +-1, the NaN quieted. */
enum { VM_TANH_START, VM_TANH_VALUE, VM_TANH_C6, VM_TANH_C5, VM_TANH_C4, VM_TANH_C3, VM_TANH_C2, VM_TANH_C1, VM_TANH_C0 };
static const uint32_t vm_tanh32[9][32] = {
    {  /* T0 */
        0x00000000, 0x3d700000, 0x3d900000, 0x3db00000, 0x3dd00000, 0x3df00000, 0x3e100000, 0x3e300000,
        0x3e500000, 0x3e700000, 0x3e900000, 0x3eb00000, 0x3ed00000, 0x3ef00000, 0x3f100000, 0x3f300000,
        0x3f500000, 0x3f700000, 0x3f900000, 0x3fb00000, 0x3fd00000, 0x3ff00000, 0x40100000, 0x40300000,
        0x40500000, 0x40700000, 0x40900000, 0x40b00000, 0x40d00000, 0x40f00000, 0x41100000, 0x00000000,
    },
    {  /* TA */
        0x00000000, 0x3d6fb9c9, 0x3d8fc35f, 0x3daf9169, 0x3dcf49ab, 0x3deee849, 0x3e0f0ee8, 0x3e2e4984,
        0x3e4d2f8e, 0x3e6bb32e, 0x3e8c51cd, 0x3ea96163, 0x3ec543f1, 0x3edfd735, 0x3f028438, 0x3f18abf0,
        0x3f2bc480, 0x3f3bec1c, 0x3f4f2e5b, 0x3f613c53, 0x3f6ce37d, 0x3f743c4f, 0x3f7a5feb, 0x3f7dea85,
        0x3f7f3b3d, 0x3f7fb78c, 0x3f7fefd4, 0x3f7ffdd0, 0x3f7fffb4, 0x3f7ffff6, 0x3f7fffff, 0x3f800000,
    },
    {  /* C6 */
        0x00000000, 0xb0a1501e, 0xb11d0b9e, 0xaf932f10, 0x30fa467c, 0x31249ef0, 0x312b9ae0, 0xb1dd8650,
        0xb044cc00, 0x31f9ba98, 0xb0ca4580, 0xb21e2644, 0xb234cc14, 0x32397534, 0xb2d0938e, 0xb1303240,
        0xb2ef278a, 0x32e33e9c, 0xb20b98c0, 0xb2d5b8c2, 0x32fe70b8, 0x32cec21a, 0x32c28572, 0xb2230d78,
        0xb2a2c238, 0xb2315220, 0xb2dddb64, 0xb2d020d0, 0x321fe128, 0xb2875bb0, 0x32fa6146, 0x00000000,
    },
    {  /* C5 */
        0x3f800000, 0x3f7f1f84, 0x3f7ebd11, 0x3f7e1e5f, 0x3f7d609f, 0x3f7c842d, 0x3f7b00e5, 0x3f789580,
        0x3f75b8ad, 0x3f726fd9, 0x3f6cc59b, 0x3f63fb92, 0x3f59ff97, 0x3f4f11d7, 0x3f3d7573, 0x3f24f360,
        0x3f0cbfe7, 0x3eec1a69, 0x3eb0a801, 0x3e6753a2, 0x3e132f1a, 0x3db7e7d3, 0x3d320845, 0x3c84d3d4,
        0x3bc477b7, 0x3b10d3da, 0x3a01601e, 0x388c1a3b, 0x3717b0da, 0x35a43bce, 0x338306c6, 0x00000000,
    },
    {  /* C4 */
        0xb0343c7b, 0xbd6ee69d, 0xbd8f0da7, 0xbdae477d, 0xbdcd2a1f, 0xbdeba80d, 0xbe0c443b, 0xbe293cf3,
        0xbe44f282, 0xbe5f3651, 0xbe81c7c0, 0xbe96d7ca, 0xbea7fb8e, 0xbeb50e9e, 0xbec12efe, 0xbec4be92,
        0xbebce070, 0xbead510e, 0xbe8ef7d6, 0xbe4b8704, 0xbe083237, 0xbdaf7449, 0xbd2e1ec4, 0xbc83bf06,
        0xbbc3e0b5, 0xbb10aadc, 0xba0157db, 0xb88c18f2, 0xb717b096, 0xb5a43bae, 0xb383012c, 0x00000000,
    },
    {  /* C3 */
        0xbeaaaaa5, 0xbeab0612, 0xbea7f01f, 0xbea4e120, 0xbea387b7, 0xbea15962, 0xbe9d57f7, 0xbe976b5a,
        0xbe90230d, 0xbe880dff, 0xbe7479b3, 0xbe4c3d88, 0xbe212482, 0xbdeb8cba, 0xbd5e78ad, 0x3c6b5e6e,
        0x3d839143, 0x3dc21ee1, 0x3de347af, 0x3dcbec96, 0x3d99ef2d, 0x3d542ea1, 0x3cdde701, 0x3c2cca67,
        0x3b81cb27, 0x3ac073a1, 0x39ac3032, 0x383a94d9, 0x36ca081d, 0x355abd4c, 0x332b3cb6, 0x00000000,
    },
    {  /* C2 */
        0xb76dd6b9, 0xbe1c276d, 0x3c1dcf2f, 0x3dc1a78d, 0x3d96f985, 0x3da2b61b, 0x3dc13397, 0x3dd2f670,
        0x3df48a0a, 0x3e06c5a8, 0x3e1a3aba, 0x3e27c405, 0x3e2e78d0, 0x3e2c3e44, 0x3e1d3097, 0x3df4a8f4,
        0x3da38508, 0x3d31416a, 0x3b562657, 0xbcaeeac9, 0xbcce9419, 0xbcaaeac4, 0xbc49e7d0, 0xbba71ddd,
        0xbb003b0e, 0xba3f9a05, 0xb92c08a7, 0xb7ba9232, 0xb64a0b0f, 0xb4dac169, 0xb2ab78ac, 0x00000000,
    },
    {  /* C1 */
        0x3e0910e9, 0x43761143, 0x4165ecdc, 0xc190f756, 0xc08c097d, 0xc02ba813, 0xbf7f6bda, 0x3f2b1dc0,
        0x3ece105d, 0x3f426a94, 0xbadb0dc4, 0x3da43b17, 0xbd51ab88, 0xbcaea23d, 0xbd3b6d8d, 0xbd6caaad,
        0xbd795bed, 0xbd5fddda, 0xbd038f3b, 0xbc1cad63, 0x3abb4766, 0x3b95f10b, 0x3b825873, 0x3afaea66,
        0x3a49f878, 0x39996bf3, 0x388f3e6c, 0x371bb0e3, 0x35a8a5e6, 0x34369b17, 0x322487b0, 0x00000000,
    },
    {  /* C0 */
        0xbc0e2f66, 0x460bda12, 0x43d638ef, 0xc3e11c3e, 0xc2baa4e9, 0xc249da2d, 0xc1859b82, 0x40dd5b57,
        0x40494640, 0x40c730a8, 0xbf0f160e, 0x3e30e76f, 0xbea81387, 0xbdb26a1c, 0xbd351e57, 0xbb4c01a0,
        0x3c1d7bfb, 0x3c722cd1, 0x3c973f1c, 0x3c33a31b, 0x3b862ef4, 0x3a27b3d0, 0xba3b5907, 0xba0efc22,
        0xb97f9f0f, 0xb8c8af50, 0xb7bdddfb, 0xb64f2950, 0xb4e085b1, 0xb3731dfa, 0xb15a1f04, 0x00000000,
    },
};

static inline float mkl_avx512_vml_tanhf(float x) {
    const uint32_t ux = vm_f2u(x);
    if ((int32_t)(ux & 0x7fe00000u) > 0x7f000000) return x != x ? x + x : (ux >> 31 ? -1.0f : 1.0f);
    int32_t t = (int32_t)(ux & 0x7fe00000u) - 0x3d400000;
    t = t < 0 ? 0 : (t > 0x03e00000 ? 0x03e00000 : t);
    const uint32_t i = (uint32_t)t >> 21;
    const float d = vm_u2f(ux & 0x7fffffffu) - vm_u2f(vm_tanh32[VM_TANH_START][i]);
    float p = fmaf(d, vm_u2f(vm_tanh32[VM_TANH_C0][i]), vm_u2f(vm_tanh32[VM_TANH_C1][i]));
    for (int c = VM_TANH_C2; c >= VM_TANH_C4; c--) p = fmaf(d, p, vm_u2f(vm_tanh32[c][i]));
    const float q = fmaf(vm_u2f(vm_tanh32[VM_TANH_C5][i]), d, fmaf(d, d * p, vm_u2f(vm_tanh32[VM_TANH_C6][i])));
    return vm_u2f(vm_f2u(q + vm_u2f(vm_tanh32[VM_TANH_VALUE][i])) | (ux & 0x80000000u));
}

/* torch.tanh forward: MKL VML vsTanh (VML_HA), the same code path, identified from its outputs as
 * Intel's SVML/libdevice "tanh_s_ha" large-table variant: |x| picks one of 27 degree-6 polynomials
 * in |x| (index from the exponent and the top 2 mantissa bits: [0, 1/8), then quarters of each
 * octave up to 8, [8, 10), and the constant 1 from 10 on), evaluated in double (Horner) and
 * rounded once to float; the sign of x is copied in. NaN -> x + x. Bit-identical on 18M floats of
 * [0, 11) (every 61st bit pattern) and the strided sweep of all bit patterns.
 * Coefficients A0..A6 as double bit patterns (the published table of that routine). */
static const uint64_t vm_tanh_poly[27][7] = {
    {0x0000000000000000, 0x3ff000000006a31d, 0xbe6defde92c4f79b, 0xbfd5553f7294f0dd, 0xbf276cbdcccdb701, 0x3fc16be24561fb19, 0xbf945bc4a4eaa3af},
    {0xbe68277761c5af2e, 0x3ff0000263167a05, 0xbf09ebcedd85b175, 0xbfd54b886e7a59b5, 0xbf71dfa6bc24a233, 0x3fc388afbdcfeabf, 0xbfa8ac02c389f5d2},
    {0xbe85d5db74f57d93, 0x3ff0000715d460db, 0xbf1fa2dac6f48388, 0xbfd5419c4f2d1e3b, 0xbf7dc3b257a22ba7, 0x3fc47c7d37008997, 0xbfacc0082a078926},
    {0xbe9de52836aa24bf, 0x3ff0001087517324, 0xbf2f8218014c6d29, 0xbfd533aee5add15c, 0xbf85d926ec078549, 0x3fc56ac1320650bd, 0xbfb00935cf576018},
    {0xbeb068e713261c1d, 0x3ff0001fd116a35c, 0xbf3aaa8332ff5da7, 0xbfd5230bfa2f4b5f, 0xbf8cfdab4b1d041c, 0x3fc63c5e1e5f0c1b, 0xbfb14a00ee874965},
    {0xbec1d1cc995b465a, 0x3ff0003bfc9f9fa7, 0xbf45f2405eb78312, 0xbfd50c881348f074, 0xbf92a43c07bd0a14, 0x3fc70d3f9edd46b3, 0xbfb25c93e2cfc5d2},
    {0xbebafc5951e455ad, 0x3ff000338e8a7c9c, 0xbf44528bd04b1b6e, 0xbfd50ef882b5f9c7, 0xbf926dce22844aad, 0x3fc70ad1cc96bdf2, 0xbfb260b5e6b89cc5},
    {0x3ef0299bb6893ea1, 0x3feffe36c6c2bc18, 0x3f52821fd07bd4f7, 0xbfd5733fef4add77, 0xbf7851e165d82e62, 0x3fc56af126a3ac3c, 0xbfb0f36d44ef195a},
    {0x3f16dd09f9855499, 0x3feff639e7791ebd, 0x3f7b407aee840846, 0xbfd684ff1ce3511c, 0x3f9710f011fe379d, 0x3fc21a8490a5c684, 0xbfacdef4d1b833aa},
    {0x3f3db7344eef7bc7, 0x3fefd39a63fedaca, 0x3f9ba8d02e96079e, 0xbfd9df55d986f340, 0x3fb9371787006e2d, 0x3fb523268bc2ab46, 0xbfa31f14f14414f5},
    {0x3f607abd04390fa6, 0x3fef5a2b730f703e, 0x3fb5fdfc22f53666, 0xbfe0f0808ff94c0b, 0x3fcfc9847a2ee0fe, 0xbf8b6a646a50f27b, 0xbf87ebdb8ed25e53},
    {0x3f75c710a4cbf450, 0x3fee81ec05b6bc39, 0x3fc6427314e0420e, 0xbfe5f44f553bd24a, 0x3fd9f55a79f4ac9e, 0xbfb902bca7fd83bf, 0x3f7d6ea114f55349},
    {0x3f83741830c6f615, 0x3fed95e102cfb52c, 0x3fd06e31aebd35b9, 0xbfea05ba935a3a1b, 0x3fe07eef35904669, 0xbfc2ff9ca95468a3, 0x3f915c6048511bbe},
    {0x3f84befae0bacf16, 0x3fed6efeefad09d3, 0x3fd1566fc1b92a45, 0xbfeab8e2b6d8965b, 0x3fe116f42a1b00fa, 0xbfc40e3ece1cab9e, 0x3f92e8c72958bf4b},
    {0xbf9540312f58c1cb, 0x3ff10ba9282c8ba6, 0xbf8fb70e4fd40a92, 0xbfe115cd7afd2c33, 0x3fd6c11ab555b5e0, 0xbfb9a1de489ae8d7, 0x3f867e656d038f4a},
    {0xbfb8feeadd186056, 0x3ff5f55365982f5b, 0xbfe0df5b13ea5818, 0xbfb4043fd932506b, 0x3fc03da439fdd281, 0xbfa3e221fe149ffb, 0x3f70e687eb4458ec},
    {0xbfc8b6a728d01448, 0x3ffb373a7ac80ce3, 0xbfeff9f50069a3ef, 0x3fd22ac674f9ed2e, 0xbf9e3ca89c9332f7, 0xbf668ca45be7a635, 0x3f456b344b630b12},
    {0xbfd2038af9eee89a, 0x3fff6f4f96a3d05a, 0xbff53dc66a0d78d3, 0x3fe0125d81d29a0e, 0xbfbc82a28d56b6d2, 0x3f8beaa70cc91126, 0xbf476efa96a8e6d1},
    {0xbfcc7a244440d3de, 0x3ffd4a0d48b2c5ba, 0xbff33648c9558418, 0x3fdc0e614d2355f7, 0xbfb7e39e1fef00bd, 0x3f865b82cb84163c, 0xbf41e092e6d27730},
    {0xbf7a6b44cc927e68, 0x3ff66260cf7f9ff0, 0xbfeae8d67c72682c, 0x3fd1cc4b5bc4e667, 0xbfab2e5679e4b2f9, 0x3f769ed855c422d5, 0xbf2ff119b2a5a628},
    {0x3fd047cb095c02b8, 0x3fee67ad71046e63, 0xbfe098e15b696662, 0x3fc3c808cf5eb31e, 0xbf9b0b0f1186b840, 0x3f640a72c61bafa7, 0xbf1917c7478db907},
    {0x3fe271672e80132a, 0x3fde6be7ccdc0d48, 0xbfccf84a51dadf7d, 0x3fade1fa24be6877, 0xbf81905f3c595840, 0x3f464384c98afbba, 0xbef7bbe3d7be9f42},
    {0x3feace37d3e55cd8, 0x3fc3e15729f5a9dd, 0xbfb009b0041af713, 0x3f8be0f5ff703e1c, 0xbf5b7e9264e296ad, 0x3f1d230586266c27, 0xbec9e518a45c6684},
    {0x3fee48f6f3b20545, 0x3fa6cc28994bc90f, 0xbf8fd284f3d7eb09, 0x3f67db44fd1b7665, 0xbf343e3a0589a1a1, 0x3ef26b760ed7403d, 0xbe9c10aa8d42975f},
    {0x3fef7e62d563a20c, 0x3f87bf0e50adee64, 0xbf6d2c2e8fb3321d, 0x3f433656b22f0998, 0xbf0c9908e7aa1cff, 0x3ec6cb651f92c3ca, 0xbe6e63cde066fb34},
    {0x3fefec312764aa67, 0x3f58b44a9f798b0e, 0xbf39c22d2e0b62a3, 0x3f0cba89167d11ca, 0xbed2113609b1cfe0, 0x3e884a862529b1b2, 0xbe2b4417d9a939c3},
    {0x3ff0000000000000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0},
};

static inline float mkl_vml_tanhf(float x) {
    uint32_t ux = vm_f2u(x), ax = ux & 0x7fffffffu;
    int32_t i = (int32_t)(ax & 0x7fe00000u) - 0x3de00000;
    i = i < 0 ? 0 : i > 0x03400000 ? 0x03400000 : i;
    int64_t k = (int64_t)(i >> 21); /* a 64-bit index: GCC emulates the double gathers only with one */
    double a = (double)vm_u2f(ax < 0x41200000u ? ax : 0x41200000u); /* 10 from there on: P = 1, no inf*0 */
    double p = dm_u2d(vm_tanh_poly[k][6]);
    for (int j = 5; j >= 0; j--) p = p * a + dm_u2d(vm_tanh_poly[k][j]);
    uint32_t nan = -(uint32_t)(ax > 0x7f800000u);
    uint32_t y = vm_f2u((float)p) | (ux & 0x80000000u);
    return vm_u2f((y & ~nan) | (vm_f2u(x + x) & nan));
}

/* torch.sin / torch.cos forward: MKL VML vsSin / vsCos (VML_HA), read from MKL's kernels in
 * libtorch_cpu.so (mkl_vml_kernel_sSin_/sCos_ EXHAynn: the generic path, "Intel(R) Architecture
 * processors", any AMD CPU; H8HAynn: the Intel SSE4.2 path; L9HAynn: the Intel AVX2 path), for
 * |x| <= 10000 (0x461c4000); one algorithm, the AVX2 kernel with every multiply-add fused:
 *   sin: a = |x|;  cos: a = float(|x| + PIO2)               PIO2 = 0x3fc90fdb (float pi/2)
 *   t  = a*InvPi + 1.5*2^23 (float; AVX2: one fma)          InvPi = 0x3ea2f983 (float 1/pi)
 *   N  = t - 1.5*2^23 (exact), h = N (sin), N - 0.5 (cos)   N = rint of a*InvPi, half to even
 *   r  = (|x| - h*P0) - h*P1                                 double, pi in two parts (AVX2: fma, fma)
 *        P0 = 0x400921fb54440000 (34 bits), P1 = 0x3d968c234c4c6629
 *   r2 = r*r, p = ((A9*r2 + A7)*r2 + A5)*r2 + A3 (AVX2: fma Horner), p = p*r2,
 *   y  = p*r + r (AVX2: fma)                                 double, degree 9 odd
 *   result float(y) with the sign bit xor t's low bit (N odd) and, for sin, x's sign.
 * The generic and SSE4.2 paths round a*InvPi to a float before adding the shifter: N is rintf of
 * float(a*InvPi), where the AVX2 path rounds the exact product once (other N next to k*pi and
 * (k + 1/2)*pi). Measured on every float of [-10000, 10000] on a Zen 5 (generic) and under QEMU's
 * Haswell-v4 (AVX2; SSE4.2 with MKL_ENABLE_INSTRUCTIONS=SSE4_2) on the ranges docs/impl/kernels.md
 * lists. Special inputs as measured: +-0 and subnormals give sin(x) = x and cos(x) = 1 from the polynomial itself;
 * +-inf -> 0xffc00000, NaN -> the input quieted (sign and payload kept), by mask selects.
 * Beyond 10000 each kernel takes its own large-argument branch, inline after the range check
 * (vssin_cout_rare handles only infinities and NaN): mkl_vml_sincosf_large below. */
static const uint64_t vm_sin_poly[4] = {
    0xbfc55554bc836587u, 0x3f8110ed3804ca96u, 0xbf29f6ffeea73463u, 0x3ec5dbdf0e4c7deeu, /* A3, A5, A7, A9 */
};

/* The fraction bits of 1/(2*pi), 0.28be60db 9391054a ... (224 bits): the kernel's 96-bit multiplier for a float of
 * biased exponent e is floor(2^(e-54) / (2*pi)) mod 2^96, these bits from bit e - 149 to bit e - 54 (bits at or
 * before the binary point 0; up to bit 200 for e = 254; _VAPI_COMMON_DATA_NAME holds the 256 windows, all equal to
 * these bits). */
static const uint32_t vm_inv2pi_bits[7] = {
    0x28be60dbu, 0x9391054au, 0x7f09d5f4u, 0x7d4d3770u, 0x36d8a566u, 0x4f10e410u, 0x7f9458eau,
};

/* Bits g .. g + 31 of 0.[vm_inv2pi_bits] preceded by 64 zero bits (g counts from the first of those). */
static inline uint32_t vm_inv2pi_word(int g) {
    int q = g >> 5, s = g & 31;
    uint32_t hi = q < 2 ? 0u : vm_inv2pi_bits[q - 2], lo = q + 1 < 2 ? 0u : vm_inv2pi_bits[q - 1];
    return s ? (hi << s) | (lo >> (32 - s)) : hi;
}

/* torch.sin / torch.cos of 10000 < |x| < inf: the inline large-argument branch of MKL's kernels, read from their
 * code (mkl_vml_kernel_sSin_/sCos_ EXHAynn, the generic path, SSE: its 4-lane tail loop and 16-lane body run the
 * same steps; H8HAynn, the Intel SSE4.2 path, the same float steps with PMULLD; L9HAynn, the Intel AVX2 path,
 * VPMULLD and fused float steps, `fused`). The integer steps give the same bits in all three (mod 2^32; where a
 * kernel multiplies by all of x or w0 only the low 16 bits of the sum survive), the float steps are each
 * rounded to float:
 *   Reduction (x = m * 2^(e-150), m the 24-bit mantissa, mh its top 8 bits, ml its low 16; w0:w1:w2 the
 *   96-bit multiplier above, lo/hi its 16-bit halves): the product m * W in 16-bit partial products, the
 *   lowest (lo(w2) * ml) and the low halves of lo(w2) * mh and hi(w2) * ml dropped, its bits 32..95 kept:
 *   R0 its bits 64..95 (the fraction of x / (2*pi) in turns), T2/T3 the bits below.
 *   f  = +-(1 + (R0 >> 9) * 2^-23) (x's sign), t = f + 1.5*2^15, d = f - (t - 1.5*2^15): j = t's low 8 bits
 *        (f rounded to 1/256 of a turn), d the rest; mid and lo: the next 23 and 18 bits, +-, as floats;
 *   s  = d + mid, e = ((d - s) + mid) + lo                   (s + e: the turns past j/256)
 *   generic, SSE4.2: sh = s with its low 12 bits cleared, sl = s - sh; with 2*pi = C1 - C2 (C1 = 0x40c91000,
 *        C2 = 0x3795777a) and TWOPI = 0x40c90fdb:
 *        u = (e*TWOPI - sl*C2) + (sl*C1 - sh*C2), r = sh*C1 + u, rl = (sh*C1 - r) + u   (radians)
 *   AVX2: r = s*TWOPI, rl = fma(TWOPI, e, fma(TWOPI_LO, s, fma(s, TWOPI, -r)))    TWOPI_LO = 0xb43bbd2e
 *   Evaluation (vml_sincos_table.h entry j, cos: entry j + 64; r2 = r*r; S5 = 0x3c08885c, S3 = 0xbe2aaaab,
 *   K4 = 0x3d2aaa7c):
 *   generic, SSE4.2: ps = ((r2*S5 + S3)*r2)*r, pc = ((r2*K4 - 0.5)*r2)*s1, a = c3*r + s1, h = c0*r + a,
 *        tl = ((a - h) + c0*r) + ((s1 - a) + c3*r), g = (c3 + c0) - s1*r,
 *        y = ((g*ps + tl) + (pc + (rl*g + s2))) + h
 *   AVX2: g = fma(-s1, r, c0 + c3), b = fma(s1, fma(r2, K4, -0.5)*r2, fma(g, rl, s2)), a = fma(c3, r, s1),
 *        h = fma(c0, r, a), tl = fma(r, c3, s1 - a) + fma(c0, r, a - h), ps = (fma(r2, S5, S3)*r2)*r,
 *        y = h + (fma(ps, g, tl) + b)
 *   the sign came with f. */
static inline float mkl_vml_sincosf_large(float x, int cosine, int fused) {
    const uint32_t ux = vm_f2u(x), sgn = ux & 0x80000000u;
    const int g = (int)((ux >> 23) & 0xffu) - 86; /* e >= 140 here */
    const uint32_t w0 = vm_inv2pi_word(g), w1 = vm_inv2pi_word(g + 32), w2 = vm_inv2pi_word(g + 64);
    const uint32_t mh = ((ux >> 16) & 0x7fu) | 0x80u, ml = ux & 0xffffu;
    const uint32_t p0 = (w0 & 0xffffu) * mh, p1 = (w1 >> 16) * mh, p2 = (w1 & 0xffffu) * mh;
    const uint32_t p3 = (w2 >> 16) * mh, p4 = (w2 & 0xffffu) * mh;
    const uint32_t q0 = (w0 >> 16) * ml, q1 = (w0 & 0xffffu) * ml, q2 = (w1 >> 16) * ml;
    const uint32_t q3 = (w1 & 0xffffu) * ml, q4 = (w2 >> 16) * ml;
    const uint32_t s0 = (q1 >> 16) + q0 + p0, s1 = (q2 >> 16) + p1, s3 = (q4 >> 16) + p3;
    const uint32_t s2 = (q2 & 0xffffu) + p2 + (q3 >> 16), t1 = (q1 & 0xffffu) + s1;
    const uint32_t t3 = (p4 >> 16) + (q3 & 0xffffu) + s3, t2 = (t3 >> 16) + s2, u1 = (t2 >> 16) + t1;
    const uint32_t r0 = (s0 << 16) + u1, r2w = (t2 << 16) | (t3 & 0xffffu);
    const float f = vm_u2f((r0 >> 9) | sgn | 0x3f800000u), t = f + 0x1.8p15f, d = f - (t + -0x1.8p15f);
    const float lo_one = vm_u2f(sgn | 0x28800000u), mid_one = vm_u2f(sgn | 0x34000000u);
    const float lo = vm_u2f(((r2w << 5) & 0x007fffe0u) | sgn | 0x28800000u) - lo_one;
    const float mid = vm_u2f(((t2 & 0xffffu) >> 2) | ((u1 << 14) & 0x007fc000u) | sgn | 0x34000000u) - mid_one;
    const float s = mid + d, e = ((d - s) + mid) + lo;
    const uint32_t *tab = vm_sincos_tab[(vm_f2u(t) + (cosine ? 64u : 0u)) & 0xffu];
    const float c0 = vm_u2f(tab[0]), s1f = vm_u2f(tab[1]), s2f = vm_u2f(tab[2]), c3 = vm_u2f(tab[3]);
    const float twopi = vm_u2f(0x40c90fdbu), ps5 = vm_u2f(0x3c08885cu), ps3 = vm_u2f(0xbe2aaaabu);
    const float k4 = vm_u2f(0x3d2aaa7cu);
    if (fused) {
        const float r = s * twopi, rl = fmaf(twopi, e, fmaf(vm_u2f(0xb43bbd2eu), s, fmaf(s, twopi, -r)));
        const float r2 = r * r, gg = fmaf(-s1f, r, c0 + c3);
        const float b = fmaf(s1f, fmaf(r2, k4, -0.5f) * r2, fmaf(gg, rl, s2f));
        const float a = fmaf(c3, r, s1f), h = fmaf(c0, r, a);
        const float tl = fmaf(r, c3, s1f - a) + fmaf(c0, r, a - h), ps = (fmaf(r2, ps5, ps3) * r2) * r;
        return h + (fmaf(ps, gg, tl) + b);
    }
    const float sh = vm_u2f(vm_f2u(s) & 0xfffff000u), sl = s - sh;
    const float c1 = vm_u2f(0x40c91000u), c2 = vm_u2f(0x3795777au), hi = sh * c1;
    const float u = (e * twopi - sl * c2) + (sl * c1 - sh * c2);
    const float r = hi + u, rl = (hi - r) + u, r2 = r * r;
    const float ps = ((r2 * ps5 + ps3) * r2) * r, pc = ((r2 * k4 + -0.5f) * r2) * s1f;
    const float c0r = c0 * r, c3r = c3 * r, a = c3r + s1f, h = c0r + a;
    const float tl = ((a - h) + c0r) + ((s1f - a) + c3r), gg = (c3 + c0) - s1f * r;
    return ((gg * ps + tl) + (pc + (rl * gg + s2f))) + h;
}

static inline float mkl_vml_sincosf(float x, int cosine, int fused) {
    const uint32_t ux = vm_f2u(x), ax = ux & 0x7fffffffu;
    const uint32_t nan = -(uint32_t)(ax > 0x7f800000u), inf = -(uint32_t)(ax == 0x7f800000u);
    const float axf = vm_u2f(ax & ~(nan | inf)); /* 0 for inf and NaN: the selects below give theirs */
    const float a = cosine ? axf + vm_u2f(0x3fc90fdbu) : axf, shift = 0x1.8p23f;
    const float t = fused ? fmaf(a, vm_u2f(0x3ea2f983u), shift) : a * vm_u2f(0x3ea2f983u) + shift;
    const float nf = t - shift;
    const double h = cosine ? (double)(nf - 0.5f) : (double)nf;
    const double p0 = dm_u2d(0x400921fb54440000u), p1 = dm_u2d(0x3d968c234c4c6629u);
    double r, r2, p, y;
    if (fused) {
        r = fma(-h, p1, fma(-h, p0, (double)axf));
        r2 = r * r;
        p = fma(fma(fma(dm_u2d(vm_sin_poly[3]), r2, dm_u2d(vm_sin_poly[2])), r2, dm_u2d(vm_sin_poly[1])), r2,
                dm_u2d(vm_sin_poly[0]));
        y = fma(r2 * p, r, r);
    } else {
        r = ((double)axf - h * p0) - h * p1;
        r2 = r * r;
        p = ((dm_u2d(vm_sin_poly[3]) * r2 + dm_u2d(vm_sin_poly[2])) * r2 + dm_u2d(vm_sin_poly[1])) * r2
            + dm_u2d(vm_sin_poly[0]);
        y = (p * r2) * r + r;
    }
    const uint32_t sign = (vm_f2u(t) << 31) ^ (cosine ? 0u : ux & 0x80000000u);
    const uint32_t bits = vm_f2u((float)y) ^ sign;
    if (ax > 0x461c4000u && ax < 0x7f800000u) return mkl_vml_sincosf_large(x, cosine, fused);
    return vm_u2f((bits & ~(nan | inf)) | ((ux | 0x00400000u) & nan) | (0xffc00000u & inf));
}

/* MKL's generic and Intel SSE4.2 paths (EXHAynn, H8HAynn) and its Intel AVX2 path (L9HAynn). */
static inline float mkl_vml_sinf(float x) { return mkl_vml_sincosf(x, 0, 0); }
static inline float mkl_vml_cosf(float x) { return mkl_vml_sincosf(x, 1, 0); }
static inline float mkl_avx2_vml_sinf(float x) { return mkl_vml_sincosf(x, 0, 1); }
static inline float mkl_avx2_vml_cosf(float x) { return mkl_vml_sincosf(x, 1, 1); }

/* torch.erf forward: MKL VML vsErf (VML_HA) on MKL's generic path, read from its kernel in libtorch_cpu.so
 * (mkl_vml_kernel_sErf_EXHAynn: SSE, float, no FMA; 4 lanes, a short tail filled with 0.75 and dropped,
 * so each element on its own). With a = |x| and the table vml_erf_table.h at s = k/256:
 *   a3 = min(a, 0x407b8000 = 3.9296875)          (minps: a NaN gives 3.9296875)
 *   t  = a3 + 2^15 (float), k = bits(t) - bits(2^15)    (a3 to the nearest 1/256, half to even)
 *   s  = t - 2^15 where a3 >= 0x3c600000 (3.5/256), else +0;   d = a3 - s
 *   h  = min(lo26(w0) as a float, a) * 2^120      (minps: a NaN a gives a)
 *   p  = (s*d * C1 + C2) * (s*d) + ((d' * d') * C3 + C4),  d' = d where a3 > 2^-48, else +0
 *   g  = w1 * d,  q = float(w0 >> 26 | 1.0f) * h - h
 *   erf = ((p*g + q) + g) * 2^-6 + h, its sign bit xor x's
 * C1 = 0x3f4093a6, C2 = 0xbf906ebc, C3 = 0xbec093b2, C4 = 0x3e0375d4 (2/sqrt(pi) - 1). Each step one float
 * rounding, in this order; subnormals as they are (MXCSR without FTZ/DAZ unless VML_FTZDAZ_ON). NaN: the
 * input quieted, sign and payload kept (every NaN operand the same |x|, the sign xored back); +-inf: +-1.
 * MKL's Intel SSE4.2 path (sErf_H8HAynn) computes the same. Its Intel AVX2 path (fused: sErf_L9HAynn, 8-lane
 * AVX2, the same constants and table) fuses the multiply-adds:
 *   p = fma(sd, fma(sd, C1, C2), fma(d'*d', C3, C4)),  q = fma(e, h, -h),  erf = fma(fma(p, g, q) + g, 2^-6, h)
 * (s*d, d'*d', g = w1*d and h rounded alone as above). */
static inline float mkl_vml_erff(float x, int fused) {
    const uint32_t ux = vm_f2u(x), ax = ux & 0x7fffffffu;
    const float a = vm_u2f(ax), amax = vm_u2f(0x407b8000u), shift = 0x1p15f;
    const float a3 = a < amax ? a : amax;
    const float t = a3 + shift;
    const float s = vm_u2f(vm_f2u(t + -shift) & -(uint32_t)(vm_u2f(0x3c600000u) <= a3));
    const float d = a3 - s, sd = s * d;
    const uint32_t *w = vm_erf_tab[vm_f2u(t) - 0x47000000u];
    const float lo = vm_u2f(w[0] & 0x03ffffffu), h = (lo < a ? lo : a) * 0x1p120f;
    const float dd = vm_u2f(vm_f2u(d) & -(uint32_t)(0x1p-48f < a3)), dd2 = dd * dd;
    const float g = vm_u2f(w[1]) * d, e = vm_u2f((w[0] >> 26) | 0x3f800000u);
    float r;
    if (fused) {
        const float p = fmaf(sd, fmaf(sd, vm_u2f(0x3f4093a6u), vm_u2f(0xbf906ebcu)),
                             fmaf(dd2, vm_u2f(0xbec093b2u), vm_u2f(0x3e0375d4u)));
        r = fmaf(fmaf(p, g, fmaf(e, h, -h)) + g, 0x1p-6f, h);
    } else {
        float p = (sd * vm_u2f(0x3f4093a6u) + vm_u2f(0xbf906ebcu)) * sd;
        p = p + (dd2 * vm_u2f(0xbec093b2u) + vm_u2f(0x3e0375d4u));
        const float q = e * h - h;
        r = ((p * g + q) + g) * 0x1p-6f + h;
    }
    return vm_u2f(vm_f2u(r) ^ (ux & 0x80000000u));
}

/* torch.erfinv forward: MKL VML vsErfInv (VML_HA) on MKL's generic path, read from its kernel in libtorch_cpu.so
 * (mkl_vml_kernel_sErfInv_EXHAynn: SSE, float, no FMA; 4 lanes, a short tail filled and dropped, so each
 * element on its own). erfinv(x) = x * S(w), w = 1 - |x|, S from the table vml_erf_table.h vm_erfinv_tab:
 *   w  = 1 - a (a = |x|), lo = (1 - w) - a             (1 - a = w + lo, both exact)
 *   T  = entry 1015 - (bits(w) >> 20)                   (w's exponent and top 3 mantissa bits)
 *   r0 = float(1.m) - 1.0625, 1.m = w's lower 20 mantissa bits under exponent 0 (exact, |r0| < 1/16)
 *   r  = r0 + lo * 2^-e(w)                              (lo in units of w's binade)
 *   p  = ((((T5 r + T4) r + T3) r + T2) r + T1) r;   rh = r0 with its low 12 bits cleared, rl = r - rh
 *   p  = (p + T0) + T7 rl;   Sh = ((rh T7 + p) + T6) low 12 bits cleared;   Sl = ((T6 - Sh) + rh T7) + p
 *   xh = x with its low 12 bits cleared, xl = x - xh;   erfinv = ((Sl x) + Sh xl) + xh Sh
 * each step one float rounding, in this order. Its scalar routine (vserfinv_cout_rare) takes |x| <= 2^-24 and
 * |x| >= 1: |x| < 2^-24 -> float(double(x) * sqrt(pi)/2) (+-0 kept), +-1 -> +-inf (+-1/0), |x| > 1 and +-inf
 * -> 0xffc00000 (0 * inf), NaN -> x + x (quieted); |x| = 2^-24 exactly keeps the vector lane's value, which
 * took entry 0 (the special lanes' index is masked to 0). MKL's Intel SSE4.2 path has no kernel of its own (MKL
 * has no H8 erfinv) and runs this one. Its Intel AVX2 path (fused: sErfInv_L9HAynn, 8-lane AVX2, the same
 * table, the same scalar routine and lanes) splits S otherwise, by fused multiply-adds and without truncation:
 *   r  = fma(lo, 2^-e(w), r0);   P = fma(r, fma(r, fma(r, fma(r, fma(r, T5, T4), T3), T2), T1), T0)
 *   Sh = fma(T7, r, T6), Sl = fma(T7, r, T6 - Sh);   erfinv = fma(x, Sh, x * (Sl + P)). */
static inline float mkl_vml_erfinvf(float x, int fused) {
    const uint32_t ux = vm_f2u(x), ax = ux & 0x7fffffffu;
    const float a = vm_u2f(ax), hi = vm_u2f(0xfffff000u);
    if (ax > 0x7f800000u) return x + x;
    if (ax > 0x3f800000u) return vm_u2f(0xffc00000u);
    if (ax == 0x3f800000u) return vm_u2f((ux & 0x80000000u) | 0x7f800000u);
    if (ax < 0x33800000u) return (float)((double)x * dm_u2d(0x3fec5bf891b4ef6bu));
    const float w = 1.0f - a, lo = (1.0f - w) - a;
    const uint32_t uw = vm_f2u(w);
    const uint32_t *T = vm_erfinv_tab[ax == 0x33800000u ? 0 : 1015 - (uw >> 20)];
    const float scale = vm_u2f(0x7f000000u - (uw & 0x3f800000u));
    const float r0 = vm_u2f((uw & 0x000fffffu) | 0x3f800000u) + vm_u2f(0xbf880000u);
    if (fused) {
        const float r = fmaf(lo, scale, r0), t7 = vm_u2f(T[7]), t6 = vm_u2f(T[6]);
        float p = fmaf(r, vm_u2f(T[5]), vm_u2f(T[4]));
        for (int i = 3; i >= 0; i--) p = fmaf(r, p, vm_u2f(T[i]));
        const float sh = fmaf(t7, r, t6), sl = fmaf(t7, r, t6 - sh);
        return fmaf(x, sh, x * (sl + p));
    }
    const float r = r0 + lo * scale;
    float p = vm_u2f(T[5]) * r + vm_u2f(T[4]);
    p = p * r + vm_u2f(T[3]);
    p = p * r + vm_u2f(T[2]);
    p = p * r + vm_u2f(T[1]);
    p = p * r;
    const float rh = vm_u2f(vm_f2u(r0) & vm_f2u(hi)), rl = r - rh, t7 = vm_u2f(T[7]), t6 = vm_u2f(T[6]);
    const float rht = rh * t7;
    p = (p + vm_u2f(T[0])) + t7 * rl;
    const float sh = vm_u2f(vm_f2u((rht + p) + t6) & 0xfffff000u);
    const float sl = ((t6 - sh) + rht) + p;
    const float xh = vm_u2f(ux & 0xfffff000u), xl = x - xh;
    return ((sl * x) + sh * xl) + xh * sh;
}

/* torch.erfinv on aarch64 (no MKL: aten vml.h's verfinv maps Vectorized<float>::erfinv, which maps ATen's
 * scalar calc_erfinv of native/Math.h over the lanes; every element alone, so no thread count or vector width
 * changes bits). calc_erfinv's float steps as GCC builds them for aarch64 (-ffp-contract=fast: every a*b + c a
 * fused multiply-add): |y| <= 0.7 a rational of z = y*y (Horner steps fused), x = y*num/dem; else
 * z = sqrt(-log((1 - |y|)/2)), a rational of z (fused), x = copysign(num, y)/dem; then two Newton steps
 * x - (erf(x) - y)/((2/sqrt(pi))*exp(-x*x)) with aarch64 glibc's erff (glibc_erff_a64), expf and logf. The
 * coefficients are calc_erfinv's (Pavlis's erfinv m-file). |y| > 1 gives quiet_NaN() 0x7fc00000, +-1 +-inf; a
 * NaN y comes out quieted (sign and payload kept: every NaN on its way is y's). */
static inline float aten_calc_erfinvf_a64(float y) {
    static const float a[4] = {0.886226899f, -1.645349621f, 0.914624893f, -0.140543331f};
    static const float b[4] = {-2.118377725f, 1.442710462f, -0.329097515f, 0.012229801f};
    static const float c[4] = {-1.970840454f, -1.624906493f, 3.429567803f, 1.641345311f};
    static const float d[2] = {3.543889200f, 1.637067800f};
    if (y != y) return vm_u2f(vm_f2u(y) | 0x00400000u);
    const float ya = fabsf(y);
    if (ya > 1.0f) return vm_u2f(0x7fc00000u);
    if (ya == 1.0f) return copysignf(INFINITY, y);
    float x, z, num, dem;
    if (ya <= 0.7f) {
        z = y * y;
        num = fmaf(fmaf(fmaf(a[3], z, a[2]), z, a[1]), z, a[0]);
        dem = fmaf(fmaf(fmaf(fmaf(b[3], z, b[2]), z, b[1]), z, b[0]), z, 1.0f);
        x = y * num / dem;
    } else {
        z = sqrtf(-glibc_logf((1.0f - ya) / 2.0f));
        num = fmaf(fmaf(fmaf(c[3], z, c[2]), z, c[1]), z, c[0]);
        dem = fmaf(fmaf(d[1], z, d[0]), z, 1.0f);
        x = copysignf(num, y) / dem;
    }
    const float k = 2.0f * 0.564189583547756286948f;  /* 2 * c10::frac_1_sqrt_pi<float>, folded in float */
    for (int i = 0; i < 2; i++) x = x - (glibc_erff_a64(x) - y) / (k * glibc_expf(-x * x));
    return x;
}

/* ------------------------------------------------------------ MKL VML log2, acos (the generic path) */

/* MKL's generic path ("Intel(R) Architecture processors": the kernels mkl_vml_kernel_sLog2_EXHAynn and
 * sAcos_EXHAynn, SSE, no FMA) starts from the CPU's RCPPS and RSQRTPS, whose estimates are the CPU's own
 * tables. acos truncates RSQRTPS (rsqrt_tables.h amd_rsqrt_mant, table_rsqrtps); log2 keeps of RCPPS only
 * k = rint(float(RCPPS(2^-7 * 1.f) * 1.4375)), an integer in [92, 184]. An AMD EPYC Zen 5's RCPPS, measured
 * over every mantissa, depends on the top 12 mantissa bits (bucket mantissa >> 11) alone, and k drops by one at
 * each bucket of vm_amd_rcpps_k_steps (ascending): vm_amd_rcpps_k. */
static const uint16_t vm_amd_rcpps_k_steps[92] = {
    12, 33, 56, 80, 103, 126, 150, 174, 199, 223, 248, 272, 299, 325, 351, 377,
    403, 431, 458, 486, 513, 543, 571, 600, 629, 659, 689, 720, 751, 783, 814, 847,
    879, 912, 946, 979, 1014, 1049, 1085, 1120, 1157, 1193, 1230, 1269, 1308, 1346, 1386, 1426,
    1467, 1507, 1550, 1592, 1636, 1679, 1724, 1769, 1816, 1861, 1909, 1959, 2007, 2057, 2107, 2159,
    2210, 2264, 2318, 2374, 2429, 2486, 2543, 2604, 2663, 2725, 2786, 2851, 2915, 2980, 3047, 3117,
    3187, 3256, 3330, 3404, 3479, 3555, 3634, 3714, 3796, 3879, 3965, 4052,
};

static inline float vm_amd_rcpps_k(uint32_t mant) {
    int32_t k = 184;
    for (int i = 0; i < 92; i++) k -= (int32_t)((mant >> 11) >= vm_amd_rcpps_k_steps[i]);
    return (float)k;
}

/* The same k from QEMU's RCPPS, which is exact (1/m rounded to nearest): rint(float(float(1/m) * 1.4375)). An
 * Intel CPU's RCPPS table is not measured. */
static inline float vm_exact_rcpps_k(uint32_t mant) {
    return rintf((1.0f / vm_u2f(mant | 0x3c000000u)) * 1.4375f);
}

/* RSQRTPS(x) for a normal float x as the CPU of estimate kind (RSQRT_* of common.h) computes it: the AMD or the
 * Intel table (rsqrt_tables.h), or QEMU's exact estimate (sqrt rounded to float, then 1 / that rounded). */
static inline float vm_rsqrtps(int32_t kind, float x) {
    if (kind == RSQRT_EXACT) return 1.0f / sqrtf(x);
    return table_rsqrtps(kind == RSQRT_INTEL ? intel_rsqrt_mant : amd_rsqrt_mant, x);
}

/* torch.log2 forward: MKL VML vsLog2 (VML_HA) on MKL's generic path, read from its code
 * (mkl_vml_kernel_sLog2_EXHAynn, 4-lane SSE, every step a separately rounded float operation):
 *   x = 2^(e-127) * M, m = 2^-7 * M (M = 1.f), k = vm_amd_rcpps_k (k*m ~ 1.4375, k = 92..184)
 *   m_hi = m with its low 8 bits cleared, m_lo = m - m_hi; r = (m_hi*k - 1.4375) + m_lo*k
 *   T_hi + T_lo = log2(184/k) - 127 (the table vm_log2_main), T = T_hi + e
 *   p = ((C3*r + C2)*r + C1)*r  (log2(1 + r/1.4375) = r + p); s = r + T
 *   log2 x = ((((T - s) + r) + T_lo) + p) + s
 * for every positive normal finite x. The others take its scalar routine (vslog2_cout_rare): +-0 -> -inf,
 * x < 0 (-inf included) -> 0x7fc00000, +inf -> +inf, NaN -> x quieted (x * x), and a positive subnormal
 * x, scaled by 2^27, through a 65-entry table (vm_log2_rare: A ~ 2^8/ln2/c, -log2 c, its low part; c from
 * m rounded to 1/64) and a degree-8 polynomial in the scaled t = A*m - 2^8/ln2 (A and m split in two):
 * mkl_vml_log2f_rare. Equal to torch on all 2^32 bit patterns (measured on a Zen 5). MKL's Intel AVX2 path
 * (mkl_vml_kernel_sLog2_L9HAynn, 8-lane AVX2, its own copy of the scalar routine) runs the same steps and tables with
 * r = fma(k, m, -1.4375) (one rounding, no split), p = fma(fma(C3, r, C2), r, C1) * r, and in the scalar routine
 * t_lo = fma(m_hi, A_lo, A*m_lo), the polynomial's multiply-adds fused and the sum
 * (e + t_hi) + fma(t_hi, p, t_lo + fma(p, t_lo, -log2 c low part)); its Intel SSE4.2 path has no kernel of its own
 * and runs the generic one. Under QEMU, whose RCPPS is exact, k comes from 1/m rounded (vm_exact_rcpps_k). */
static const uint32_t vm_log2_main[93][2] = { /* k = 92..184: T_hi, T_lo */
    {0xc2fc0000, 0x00000000}, {0xc2fc0800, 0x37ec18d1}, {0xc2fc0fe0, 0xb7b076fe}, {0xc2fc17b0, 0xb7f34d44},
    {0xc2fc1f70, 0x355ccb60}, {0xc2fc2718, 0x3689621a}, {0xc2fc2ea8, 0xb7bbe728}, {0xc2fc3628, 0xb7adf709},
    {0xc2fc3d98, 0x36cb5092}, {0xc2fc44f0, 0xb6c86327}, {0xc2fc4c38, 0x35b68f67}, {0xc2fc5370, 0x37d432e1},
    {0xc2fc5a90, 0x360e51d6}, {0xc2fc61a0, 0xb7234cff}, {0xc2fc68a0, 0xb756abbe}, {0xc2fc6f90, 0xb71fc2f6},
    {0xc2fc7670, 0xb61a9d07}, {0xc2fc7d40, 0x36db5cf5}, {0xc2fc8400, 0x377756b2}, {0xc2fc8ab0, 0x37a8b8a6},
    {0xc2fc9150, 0x37ac0e19}, {0xc2fc97e0, 0x37686a41}, {0xc2fc9e60, 0xb5fd2a77}, {0xc2fca4d0, 0xb7f0979a},
    {0xc2fcab38, 0xb6f8e7f0}, {0xc2fcb190, 0xb586fc11}, {0xc2fcb7d8, 0xb73d105b}, {0xc2fcbe18, 0x37b090b4},
    {0xc2fcc440, 0xb7e9b13f}, {0xc2fcca68, 0x37c4828d}, {0xc2fcd078, 0xb725534e}, {0xc2fcd680, 0xb6f2d37c},
    {0xc2fcdc80, 0x37f935cf}, {0xc2fce268, 0xb7bdc376}, {0xc2fce850, 0x3791d41d}, {0xc2fcee28, 0x37dbbd7a},
    {0xc2fcf3f0, 0x36201ac7}, {0xc2fcf9b0, 0x36bbdfa8}, {0xc2fcff60, 0xb7decd5f}, {0xc2fd0510, 0x37df8e14},
    {0xc2fd0aa8, 0xb7a0da0b}, {0xc2fd1040, 0x37955516}, {0xc2fd15c8, 0x376f670f}, {0xc2fd1b48, 0x37fc14c5},
    {0xc2fd20b8, 0x36442fa3}, {0xc2fd2620, 0xb6f2cf29}, {0xc2fd2b80, 0xb5d1cfdf}, {0xc2fd30d8, 0x379dfa99},
    {0xc2fd3620, 0xb7091303}, {0xc2fd3b60, 0xb7bd93fc}, {0xc2fd4098, 0xb7d5df20}, {0xc2fd45c8, 0xb795f62b},
    {0xc2fd4af0, 0xb546d45d}, {0xc2fd5010, 0x37d12e6a}, {0xc2fd5520, 0xb63e66b1}, {0xc2fd5a28, 0xb7c90426},
    {0xc2fd5f30, 0x37b5d5a4}, {0xc2fd6428, 0x373a6aff}, {0xc2fd6918, 0x3696dc9a}, {0xc2fd6e00, 0x3581c0a8},
    {0xc2fd72e0, 0xb4ad6a5f}, {0xc2fd77b8, 0xb45a03bb}, {0xc2fd7c88, 0x3509b65a}, {0xc2fd8150, 0x3589e351},
    {0xc2fd8610, 0x3515a79c}, {0xc2fd8ac8, 0xb5df5425}, {0xc2fd8f78, 0xb6d667c3}, {0xc2fd9420, 0xb770e5ba},
    {0xc2fd98c0, 0xb7dc9441}, {0xc2fd9d60, 0x37980ac0}, {0xc2fda1f0, 0xb681c27b}, {0xc2fda680, 0x37f43a8a},
    {0xc2fdab00, 0xb6be5f85}, {0xc2fdaf80, 0x375d1cb6}, {0xc2fdb3f8, 0x37c93d2d}, {0xc2fdb868, 0x37db1d98},
    {0xc2fdbcd0, 0x379ef11b}, {0xc2fdc130, 0x35f911ca}, {0xc2fdc588, 0xb7d811a6}, {0xc2fdc9e0, 0xb6677d2b},
    {0xc2fdce30, 0x36f053a0}, {0xc2fdd278, 0x36b8be27}, {0xc2fdd6b8, 0xb716adf4}, {0xc2fddaf8, 0x37cadee4},
    {0xc2fddf28, 0xb793bd0d}, {0xc2fde358, 0xb7574a57}, {0xc2fde780, 0xb7c14076}, {0xc2fdeba8, 0x374e3a0e},
    {0xc2fdefc0, 0xb7f6ce3d}, {0xc2fdf3d8, 0xb7df31af}, {0xc2fdf7f0, 0x37a9d4fb}, {0xc2fdfbf8, 0xb73f8d4a},
    {0xc2fe0000, 0x80000000},
};

static const uint32_t vm_log2_rare[65][3] = { /* i = 0..64: A, -log2 c, its low part */
    {0x43b8aa40, 0x00000000, 0x00000000}, {0x43b5c797, 0x3cba0000, 0x377ba188}, {0x43b31319, 0x3d358000, 0x3821c52f},
    {0x43b05e9a, 0x3d87c000, 0x37d31a33}, {0x43add846, 0x3db26000, 0x37626c06}, {0x43ab51f2, 0x3ddda000, 0x35817c93},
    {0x43a8cb9f, 0x3e04c000, 0xb66398d0}, {0x43a67375, 0x3e196800, 0x361f2349}, {0x43a41b4c, 0x3e2e6000, 0xb7358bf1},
    {0x43a1f14d, 0x3e41f800, 0x36c13371}, {0x439fb039, 0x3e56b000, 0xb68ee3fc}, {0x439d9d50, 0x3e6a0000, 0xb6aaf16d},
    {0x439b8a66, 0x3e7d9000, 0xb493e2d1}, {0x4399777d, 0x3e88b200, 0x35dcef23}, {0x43977ba9, 0x3e924e00, 0x3652b13d},
    {0x439596ea, 0x3e9b9a00, 0xb6fabe1f}, {0x4393b22b, 0x3ea50200, 0xb50d0b48}, {0x4391e481, 0x3eae1600, 0xb6fb4af6},
    {0x439016d7, 0x3eb74600, 0xb6ffdeef}, {0x438e6043, 0x3ec01a00, 0x36cf5cc8}, {0x438ca9af, 0x3ec90c00, 0x32124dd4},
    {0x438b0a30, 0x3ed19e00, 0x3692fe59}, {0x43896ab1, 0x3eda4a00, 0x36ea748c}, {0x4387e247, 0x3ee29400, 0x35710ee2},
    {0x438642c8, 0x3eeb7400, 0x362cea8d}, {0x4384d173, 0x3ef37000, 0xb6bb4eef}, {0x4383490a, 0x3efc0200, 0x362e8d0d},
    {0x4381d7b5, 0x3f021600, 0xb5ad1961}, {0x43807d76, 0x3f05f400, 0xb520a698}, {0x437e1843, 0x3f0a2000, 0xb6e00fcd},
    {0x437b63c4, 0x3f0e1400, 0xb6fc627b}, {0x4378dd70, 0x3f11ce00, 0xb60dbf88}, {0x437628f2, 0x3f15d700, 0x3640e84c},
    {0x4373a29e, 0x3f19a600, 0xb59cced4}, {0x43711c4a, 0x3f1d7f00, 0xb6405abc}, {0x436ec421, 0x3f211a00, 0x37214eb9},
    {0x436c6bf7, 0x3f24c000, 0xb6df6565}, {0x436a13ce, 0x3f286e00, 0xb6525f63}, {0x4367bba5, 0x3f2c2600, 0xb6faec18},
    {0x436591a6, 0x3f2f9c00, 0x3719ee59}, {0x4363397d, 0x3f336700, 0x35d3929b}, {0x43610f7e, 0x3f36f000, 0xb5f561c1},
    {0x435f13aa, 0x3f3a3500, 0xb586531d}, {0x435ce9ab, 0x3f3dce00, 0x371dcc96}, {0x435aedd7, 0x3f412400, 0xb70acad0},
    {0x4358c3d8, 0x3f44ce00, 0x37304eb4}, {0x4356f62f, 0x3f47e400, 0x3712644d}, {0x4354fa5a, 0x3f4b5100, 0x3608d068},
    {0x4352fe86, 0x3f4ec600, 0xb5d0ab43}, {0x435130dd, 0x3f51f200, 0xb705a9de}, {0x434f6333, 0x3f552400, 0x35acd72a},
    {0x434d9589, 0x3f585e00, 0xb6236cd4}, {0x434bc7e0, 0x3f5b9f00, 0xb6032e95}, {0x4349fa36, 0x3f5ee800, 0xb73119b5},
    {0x43485ab7, 0x3f61e200, 0x36111bbc}, {0x43468d0d, 0x3f653900, 0x3483c7a3}, {0x4344ed8e, 0x3f684100, 0x358b4a3b},
    {0x43434e0f, 0x3f6b5000, 0xb6ea3c0b}, {0x4341ae90, 0x3f6e6400, 0x370bf961}, {0x43403d3c, 0x3f712800, 0xb70ba8b0},
    {0x433e9dbd, 0x3f744900, 0x35c23715}, {0x433d2c68, 0x3f771800, 0xb715b634}, {0x433b8ce9, 0x3f7a4600, 0x35d2f47a},
    {0x433a1b95, 0x3f7d2000, 0x3657a488}, {0x4338aa40, 0x3f800000, 0x00000000},
};

static const uint32_t vm_log2_rare_poly[8] = {
    0x9c1d865eu, 0x2081cd9du, 0xa4da74dcu, 0x293d1988u, 0xadaa8223u, 0x3223fe93u, 0xb6b1720fu, 0xbf7f0000u,
};

static inline float mkl_vml_log2f_rare(float x, int fused) {
    uint32_t u = vm_f2u(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return u == 0xff800000u ? vm_u2f(0x7fc00000u) : x * x;
    if (x == 0.0f) return vm_u2f(0xff800000u);
    if (x < 0.0f) return vm_u2f(0x7fc00000u);
    int32_t e = 0;
    if ((u & 0x7f800000u) == 0) { /* subnormal: scaled by 2^27 */
        x = x * vm_u2f(0x4d000000u);
        e = -27;
    }
    u = vm_f2u(x);
    float ef = (float)(e + (int32_t)((u >> 23) & 0xffu) - 127);
    float m = vm_u2f((u & 0x807fffffu) | 0x3f800000u);
    const uint32_t *t = vm_log2_rare[vm_f2u(m + vm_u2f(0x48000040u)) & 0x7fu]; /* m + 131073: m*64 rounded */
    float a = vm_u2f(t[0]);
    ef = ef + vm_u2f(t[1]);
    float m_hi = (m + 8192.0f) + -8192.0f, m_lo = m - m_hi;
    float a_hi = vm_u2f(vm_f2u(a) & 0xffffe000u), a_lo = a - a_hi;
    float t_hi = a_hi * m_hi + vm_u2f(0xc3b8aa40u); /* exact */
    float t_lo = fused ? fmaf(m_hi, a_lo, a * m_lo) : a_lo * m_hi + m_lo * a;
    float tt = t_hi + t_lo, p = vm_u2f(vm_log2_rare_poly[0]);
    if (fused) {
        for (int i = 1; i < 8; i++) p = fmaf(tt, p, vm_u2f(vm_log2_rare_poly[i]));
        return (ef + t_hi) + fmaf(t_hi, p, t_lo + fmaf(p, t_lo, vm_u2f(t[2])));
    }
    for (int i = 1; i < 8; i++) p = p * tt + vm_u2f(vm_log2_rare_poly[i]);
    float lo = ((p * t_lo) + vm_u2f(t[2])) + t_lo;
    return (p * t_hi + lo) + (ef + t_hi);
}

static inline float mkl_vml_log2f_main(float x, int exact_rcp, int fused) {
    uint32_t u = vm_f2u(x), mant = u & 0x7fffffu;
    float kf = exact_rcp ? vm_exact_rcpps_k(mant) : vm_amd_rcpps_k(mant);
    const uint32_t *t = vm_log2_main[(int32_t)kf - 92];
    float m = vm_u2f(mant | 0x3c000000u), r, p;
    if (fused) {
        r = fmaf(kf, m, -1.4375f);
        p = fmaf(fmaf(vm_u2f(0x3e25c86au), r, vm_u2f(0xbeb2bb8cu)), r, vm_u2f(0x3b6cd7e0u)) * r;
    } else {
        float m_hi = vm_u2f(vm_f2u(m) & 0x3c7fff00u), m_lo = m - m_hi;
        r = (m_hi * kf + -1.4375f) + m_lo * kf;
        p = ((vm_u2f(0x3e25c86au) * r + vm_u2f(0xbeb2bb8cu)) * r + vm_u2f(0x3b6cd7e0u)) * r;
    }
    float th = vm_u2f(t[0]) + (float)(int32_t)(u >> 23);
    float s = r + th;
    return ((((th - s) + r) + vm_u2f(t[1])) + p) + s;
}

/* exact_rcp: QEMU's RCPPS (vm_exact_rcpps_k), else AMD's; fused: MKL's Intel AVX2 path (sLog2_L9HAynn: the same
 * steps, table and rare routine, r = fma(k, m, -1.4375) in one rounding and the polynomial's two multiply-adds
 * fused). */
static inline float mkl_vml_log2f(float x, int exact_rcp, int fused) {
    return vm_f2u(x) - 0x00800000u < 0x7f000000u ? mkl_vml_log2f_main(x, exact_rcp, fused)
                                                : mkl_vml_log2f_rare(x, fused);
}

/* torch.acos forward: MKL VML vsAcos (VML_HA) on MKL's generic path, read from its code
 * (mkl_vml_kernel_sAcos_EXHAynn, SSE, every step a separately rounded float operation), |x| <= 1:
 *   a = -|x|, h = a*0.5 + 0.5, z = min(a*a, h); big = (z == h) (|x| >= 1/2)
 *   Y = RSQRTPS(h) & 0xfffff000 (the CPU's estimate, vm_rsqrtps; 0 where h < 2^-32); S = 2h*Y ~ sqrt(2(1 - |x|)) in two parts,
 *     S_hi = (2h)_hi*Y, S_lo = (2h)_lo*Y ((2h)_hi: 2h & 0xffffe000), one Newton step:
 *     e = ((S_hi,hi*Y - 2) + Y*S_lo) + S_hi,lo*Y, corr = (e*D1 + D0) * ((S_hi + S_lo)*e) - S_lo
 *   P = ((((z*z)*(z*A1 + A0)) + (z*B1 + B0))*z + C)*z  (asin(sqrt z) = sqrt z * (1 + P))
 *   v = big ? S_hi : a, c = big ? corr : 0; hi, lo = pi/2 and its float remainder (|x| < 1/2), 0 (big,
 *     x > 0) or pi and its remainder (big, x < 0), lo with x's sign
 *   acos x = ((((v - c)*P + (lo - c)) + v) with x's sign) + hi.
 * |x| > 1 (+-inf included) -> 0xffc00000 and NaN -> x quieted (its scalar routine, x/x). Equal to torch on
 * all 2^32 bit patterns (measured on a Zen 5). MKL's Intel SSE4.2 path (sAcos_H8HAynn) computes the same; its Intel
 * AVX2 path (sAcos_L9HAynn, fused) keeps Y = RSQRTPS(h) whole, e = fma(S_hi, Y, -2) + Y*S_lo (S_hi not split),
 * corr = fma(fma(e, D1, D0), (S_hi + S_lo)*e, -S_lo), P = fma(fma(A1 z + A0 (fused), z*z, B1 z + B0 (fused)), z,
 * C)*z and acos x = ((fma(P, v - c, lo - c) + v) with x's sign) + hi. rsqrt: RSQRT_* (vm_rsqrtps). */
static inline float mkl_vml_acosf(float x, int32_t rsqrt, int fused) {
    uint32_t ux = vm_f2u(x), ax = ux & 0x7fffffffu, sgn = ux & 0x80000000u;
    if (ax > 0x3f800000u) return ax > 0x7f800000u ? x / x : vm_u2f(0xffc00000u);
    float a = vm_u2f(ux | 0x80000000u), h = a * 0.5f + 0.5f, z = a * a;
    int big = !(z < h);
    z = big ? h : z;
    float y = h >= vm_u2f(0x2f800000u) ? vm_rsqrtps(rsqrt, h) : 0.0f;
    if (!fused) y = vm_u2f(vm_f2u(y) & 0xfffff000u);
    float h2 = h + h, h2_hi = vm_u2f(vm_f2u(h2) & 0xffffe000u), h2_lo = h2 - h2_hi;
    float s_hi = h2_hi * y, s_lo = h2_lo * y, corr, p, w;
    int neg = big && !(z < x);
    float hi = neg ? vm_u2f(0x40490fdbu) : big ? 0.0f : vm_u2f(0x3fc90fdbu);
    uint32_t lo = neg ? 0xb3bbbd2eu : big ? 0u : 0xb33bbd2eu;
    float v = big ? s_hi : a;
    if (fused) {
        float e = fmaf(s_hi, y, -2.0f) + y * s_lo;
        corr = fmaf(fmaf(e, vm_u2f(0xbdc00004u), vm_u2f(0x3e800001u)), (s_hi + s_lo) * e, -s_lo);
        float p1 = fmaf(z, vm_u2f(0x3d2edc07u), vm_u2f(0x3cc32a6bu)), p2 = fmaf(z, vm_u2f(0x3d3a9ab4u), vm_u2f(0x3d997c12u));
        p = fmaf(fmaf(p1, z * z, p2), z, vm_u2f(0x3e2aaaffu)) * z;
        float c = big ? corr : 0.0f;
        w = fmaf(p, v - c, vm_u2f(lo ^ sgn) - c) + v;
    } else {
        float s_hh = vm_u2f(vm_f2u(s_hi) & 0xffffe000u), s_hl = s_hi - s_hh;
        float e = ((s_hh * y + -2.0f) + y * s_lo) + s_hl * y;
        corr = (e * vm_u2f(0xbdc00004u) + vm_u2f(0x3e800001u)) * ((s_hi + s_lo) * e) - s_lo;
        float p1 = z * vm_u2f(0x3d2edc07u) + vm_u2f(0x3cc32a6bu), p2 = z * vm_u2f(0x3d3a9ab4u) + vm_u2f(0x3d997c12u);
        p = ((((z * z) * p1) + p2) * z + vm_u2f(0x3e2aaaffu)) * z;
        float c = big ? corr : 0.0f;
        w = ((v - c) * p + (vm_u2f(lo ^ sgn) - c)) + v;
    }
    return vm_u2f(vm_f2u(w) ^ sgn) + hi;
}

/* ------------------------------------------------------------------ pow (SLEEF powf_u10, glibc powf) */

/* SLEEF logkf (the AVX2 path): log d, d > 0, as a double-float. A subnormal d is scaled by 2^64
 * first (64 taken off the exponent after); e = the exponent of d/0.75, m = d / 2^e (an integer add
 * to d's exponent field), x = (m - 1)/(m + 1) in double-float, log = e ln2 + 2x + x^3 (x^2 t + c),
 * t a quadratic in x^2 (FMAs), c a double-float constant. */
static inline vm_f2 sleef_logkf(float d) {
    const int o = d < 0x1p-126f;
    if (o) d *= 0x1p64f;
    int32_t e = (int32_t)((vm_f2u(d * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
    const float m = vm_u2f(vm_f2u(d) + ((uint32_t)(-e) << 23));
    if (o) e -= 64;
    const vm_f2 x = df_div(df_add2_f_f(-1.0f, m), df_add2_f_f(1.0f, m));
    const vm_f2 x2 = df_squ(x);
    float t = 0.240320354700088500976562f;
    t = fmaf(t, x2.x, 0.285112679004669189453125f);
    t = fmaf(t, x2.x, 0.400007992982864379882812f);
    const vm_f2 c = vm_f2make(0.66666662693023681640625f, 3.69183861259614332084311e-09f);
    vm_f2 s = df_mul_f2_f(vm_f2make(0.69314718246459960938f, -1.904654323148236017e-09f), (float)e);
    s = df_add_f2_f2(s, df_scale(x, 2.0f));
    return df_add_f2_f2(s, df_mul_f2_f2(df_mul_f2_f2(x2, x), df_add2_f2_f2(df_mul_f2_f(x2, t), c)));
}

/* SLEEF vldexp (ldexpk): x * 2^q with q split so no factor overflows: four equal powers 2^m
 * (m = 16 * floor(q / 64), its biased exponent clamped to [0, 255]), then 2^(q - 4m). */
static inline float sleef_ldexpk(float x, int32_t q) {
    int32_t m = q >> 31;
    m = (((m + q) >> 6) - m) << 4;
    q -= m << 2;
    m += 0x7f;
    m = m < 0 ? 0 : m > 0xff ? 0xff : m;
    const float u = vm_u2f((uint32_t)m << 23);
    x = x * u * u * u * u;
    return x * vm_u2f((uint32_t)(q + 0x7f) << 23);
}

/* SLEEF expkf: exp of a double-float d as a float. q = rint((d.x + d.y)/ln2), s = d - q ln2 (two
 * df adds of the plain products q*L2U, q*L2L), normalised; e^s = 1 + s + s^2 u(s), u a quartic in
 * s.x (FMAs), added in double-float; scaled by 2^q; 0 where d.x < -104. */
static inline float sleef_expkf(vm_f2 d) {
    const int32_t q = sleef_rint((d.x + d.y) * SLEEF_R_LN2F);
    vm_f2 s = df_add2_f2_f(d, (float)q * -SLEEF_L2UF);
    s = df_add2_f2_f(s, (float)q * -SLEEF_L2LF);
    s = df_normalize(s);
    float u = 0.00136324646882712841033936f;
    u = fmaf(u, s.x, 0.00836596917361021041870117f);
    u = fmaf(u, s.x, 0.0416710823774337768554688f);
    u = fmaf(u, s.x, 0.166665524244308471679688f);
    u = fmaf(u, s.x, 0.499999850988388061523438f);
    vm_f2 t = df_add_f2_f2(s, df_mul_f2_f(df_squ(s), u));
    t = df_add_f_f2(1.0f, t);
    const float r = sleef_ldexpk(t.x + t.y, q);
    return d.x < -104.0f ? 0.0f : r;
}

/* SLEEF xpowf (Sleef_powf8_u10): expkf(logkf(|x|) * y), the product a double-float times y; then,
 * in this order: a NaN result is +inf; times 1 (x > 0), -1 / 1 (x <= 0, y an odd / even integer) or
 * NaN 0x7fc00000 (y not an integer); y = +-inf: 0, 1 or inf by the sign of (|x| - 1) * sign(y);
 * x = +-inf or 0: 0 or inf by the sign of y (of -y for x = 0), signed as x for an odd integer y;
 * x or y NaN: the all-ones NaN (the lane's mask or'd in); y = 0 or x = 1: 1. */
static inline float sleef_powf_u10(float x, float y) {
    const float ay = fabsf(y), ty = truncf(y);
    const int yisint = ty == y || ay > 0x1p24f;
    const int32_t iy = ay < 0x1p31f ? (int32_t)ty : INT32_MIN; /* cvttps2dq's out-of-range answer */
    const int yisodd = (iy & 1) == 1 && yisint && ay < 0x1p24f;
    float r = sleef_expkf(df_mul_f2_f(sleef_logkf(fabsf(x)), y));
    if (isnan(r)) r = INFINITY;
    r *= x > 0.0f ? 1.0f : yisint ? (yisodd ? -1.0f : 1.0f) : vm_u2f(0x7fc00000u);
    const float efx = vm_xorsign(fabsf(x) - 1.0f, y);
    if (isinf(y)) r = efx < 0.0f ? 0.0f : efx == 0.0f ? 1.0f : INFINITY;
    if (isinf(x) || x == 0.0f)
        r = (yisodd ? vm_xorsign(1.0f, x) : 1.0f) * (((x == 0.0f ? -y : y) < 0.0f) ? 0.0f : INFINITY);
    if (isnan(x) || isnan(y)) r = vm_u2f(0xffffffffu);
    if (y == 0.0f || x == 1.0f) r = 1.0f;
    return r;
}

/* glibc powf's log2 table (x86_64 glibc 2.36, read from libm.so.6): (1/c, log2 c) for 16
 * subintervals of [0x3f330000 as float, 2x that), then the degree-5 polynomial of log1p(r)/ln2. */
static const double vm_powf_log2_tab[16][2] = {
    {0x1.661ec79f8f3bep+0, -0x1.efec65b963019p-2}, {0x1.571ed4aaf883dp+0, -0x1.b0b6832d4fca4p-2},
    {0x1.49539f0f010b0p+0, -0x1.7418b0a1fb77bp-2}, {0x1.3c995b0b80385p+0, -0x1.39de91a6dcf7bp-2},
    {0x1.30d190c8864a5p+0, -0x1.01d9bf3f2b631p-2}, {0x1.25e227b0b8ea0p+0, -0x1.97c1d1b3b7af0p-3},
    {0x1.1bb4a4a1a343fp+0, -0x1.2f9e393af3c9fp-3}, {0x1.12358f08ae5bap+0, -0x1.960cbbf788d5cp-4},
    {0x1.0953f419900a7p+0, -0x1.a6f9db6475fcep-5}, {0x1p+0, 0x0p+0},
    {0x1.e608cfd9a47acp-1, 0x1.338ca9f24f53dp-4},  {0x1.ca4b31f026aa0p-1, 0x1.476a9543891bap-3},
    {0x1.b2036576afce6p-1, 0x1.e840b4ac4e4d2p-3},  {0x1.9c2d163a1aa2dp-1, 0x1.40645f0c6651cp-2},
    {0x1.886e6037841edp-1, 0x1.88e9c2c1b9ff8p-2},  {0x1.767dcf5534862p-1, 0x1.ce0a44eb17bccp-2},
};
static const double vm_powf_log2_poly[5] = {
    0x1.27616c9496e0bp-2, -0x1.71969a075c67ap-2, 0x1.ec70a6ca7baddp-2, -0x1.7154748bef6c8p-1, 0x1.71547652ab82bp+0,
};

/* 0: y not an integer, 1: odd, 2: even (y's bits, as glibc's checkint). */
static inline int vm_checkint(uint32_t iy) {
    const int e = (int)(iy >> 23 & 0xff);
    if (e < 0x7f) return 0;
    if (e > 0x7f + 23) return 2;
    if (iy & ((1u << (0x7f + 23 - e)) - 1)) return 0;
    if (iy & (1u << (0x7f + 23 - e))) return 1;
    return 2;
}

/* x + y where x or y is NaN, as glibc's compiled `return x + y` answers it (x86 ADDSS with x the first
 * operand): x's NaN quieted where both are NaN (measured through torch.pow of NaN tensors), else the
 * NaN one quieted. Spelt out, as a compiler may swap the operands of a commutative +. */
static inline float vm_nan_sum(float x, float y) { return x != x ? vm_u2f(vm_f2u(x) | 0x00400000u) : x + y; }

/* x + y where x or y is NaN: aarch64's FADD (a64: common.h arm_process_nans), else vm_nan_sum. */
static inline float vm_powf_nan(int a64, float x, float y) { return a64 ? arm_process_nans(x, y) : vm_nan_sum(x, y); }

/* glibc powf (FMA build, as glibc_expf/glibc_logf): log2 x in double, x = 2^k z, r = z/c - 1
 * (fused), log2 c + k + a quintic in r evaluated in pairs (every multiply-add fused); y log2 x;
 * exp2 of that as glibc_expf's: k/32 + r, 2^(k/32) from the table times a cubic in r (fused), the
 * sign of a negative x's odd power folded into the table's exponent. Specials as glibc answers them.
 * a64: aarch64 glibc 2.36's powf (libm.so.6's __powf_finite, disassembled): TOINT_INTRINSICS, so its
 * log2 tables and thresholds are scaled by 32 (exactly: the same bits through the log2 and the cubic)
 * and k is FRINTA/FCVTAS of 32 y log2 x, ties away from zero where the shift above ties to even; a NaN
 * operand FADD's x + y (arm_process_nans), the invalid (x - x) / (x - x) aarch64's +qNaN. */
static inline float glibc_powf_k(int a64, float x, float y) {
    uint32_t ix = vm_f2u(x), iy = vm_f2u(y);
    uint64_t sign_bias = 0;
    if (ix - 0x00800000u >= 0x7f800000u - 0x00800000u || 2 * iy - 1 >= 2u * 0x7f800000u - 1) {
        if (2 * iy - 1 >= 2u * 0x7f800000u - 1) { /* y is 0, inf or NaN */
            if (2 * iy == 0) return (ix & 0x7fc00000u) == 0x7f800000u && (ix & 0x3fffff) ? vm_powf_nan(a64, x, y) : 1.0f;
            if (ix == 0x3f800000u) return (iy & 0x7fc00000u) == 0x7f800000u && (iy & 0x3fffff) ? vm_powf_nan(a64, x, y) : 1.0f;
            if (2 * ix > 2u * 0x7f800000u || 2 * iy > 2u * 0x7f800000u) return vm_powf_nan(a64, x, y);
            if (2 * ix == 2u * 0x3f800000u) return 1.0f;
            if ((2 * ix < 2u * 0x3f800000u) == !(iy & 0x80000000u)) return 0.0f;
            return y * y;
        }
        if (2 * ix - 1 >= 2u * 0x7f800000u - 1) { /* x is 0, inf or NaN */
            /* glibc's x * x; a NaN's as its bits say (x quieted): inlined, GCC folds fabsf(d) * fabsf(d) into
             * d * d, which keeps the sign fabsf had cleared */
            float x2 = (ix & 0x7fffffffu) > 0x7f800000u ? vm_u2f(ix | 0x00400000u) : x * x;
            if ((ix & 0x80000000u) && vm_checkint(iy) == 1) x2 = -x2;
            return (iy & 0x80000000u) ? 1.0f / x2 : x2;
        }
        if (ix & 0x80000000u) { /* finite x < 0 */
            const int yint = vm_checkint(iy);
            if (yint == 0) return a64 ? vm_u2f(0x7fc00000u) : (x - x) / (x - x);
            if (yint == 1) sign_bias = 0x800u << 5; /* lands on the sign bit of the scale below */
            ix &= 0x7fffffffu;
        }
        if (ix < 0x00800000u) { /* subnormal: normalised, its exponent taken off below */
            ix = vm_f2u(vm_u2f(ix) * 0x1p23f) & 0x7fffffffu;
            ix -= 23u << 23;
        }
    }
    const uint32_t tmp = ix - 0x3f330000u;
    const int i = (int)((tmp >> (23 - 4)) % 16);
    const uint32_t top = tmp & 0xff800000u;
    const int32_t k = (int32_t)top >> 23;
    const double z = (double)vm_u2f(ix - top);
    const double r = fma(z, vm_powf_log2_tab[i][0], -1.0);
    const double y0 = vm_powf_log2_tab[i][1] + (double)k;
    const double *A = vm_powf_log2_poly;
    const double r2 = r * r;
    double yl = fma(A[0], r, A[1]);
    const double pp = fma(A[2], r, A[3]);
    const double r4 = r2 * r2;
    double q = fma(A[4], r, y0);
    q = fma(pp, r2, q);
    yl = fma(yl, r4, q);
    const double ylogx = (double)y * yl;
    if (((dm_d2u(ylogx) >> 47) & 0xffff) >= (dm_d2u(126.0) >> 47)) {
        if (ylogx > 0x1.fffffffd1d571p+6) return sign_bias ? -INFINITY : INFINITY;
        if (ylogx <= -150.0) return sign_bias ? -0.0f : 0.0f;
    }
    double kd;
    uint64_t ki;
    if (a64) { /* FRINTA, FCVTAS of ylogx * 32 */
        const double kr = round(ylogx * 32.0);
        ki = (uint64_t)(int64_t)kr;
        kd = kr / 32.0;
    } else {
        const double shift = 0x1.8p+52 / 32;
        kd = ylogx + shift;
        ki = dm_d2u(kd);
        kd -= shift;
    }
    const double rr = ylogx - kd;
    uint64_t t = vm_exp2f_tab[ki % 32];
    t += (ki + sign_bias) << (52 - 5);
    const double s = dm_u2d(t);
    const double zz = fma(0x1.c6af84b912394p-5, rr, 0x1.ebfce50fac4f3p-3);
    const double rr2 = rr * rr;
    double yy = fma(0x1.62e42ff0c52d6p-1, rr, 1.0);
    yy = fma(zz, rr2, yy);
    return (float)(yy * s);
}

static inline float glibc_powf(float x, float y) { return glibc_powf_k(0, x, y); }
static inline float glibc_powf_a64(float x, float y) { return glibc_powf_k(1, x, y); }

/* SLEEF xfmodf (Sleef_fmodf8 of the AVX2 object: Vectorized<float>::fmod), one lane: |x| and |y| (both
 * scaled by 2^25 where |y| < FLT_MIN), q = toward0(r) * toward0(1/|y|) (1 where |y| <= r < 2|y|), truncated,
 * r -= q|y| in double-float and renormalised, at most 8 times, until r < |y|; (r.x + r.y) with the scale taken
 * off, 0 where it equals |y|, x's sign xored in; x where |x| < |y|, SLEEF's NaN where y is 0. The vector
 * loop stops once every lane is done: a finished lane's further steps subtract 0 and leave it as it is. */
static inline float sleef_toward0f(float x) { return x == 0.0f ? 0.0f : vm_u2f(vm_f2u(x) - 1); }
static inline float sleef_fmodf(float x, float y) {
    float nu = fabsf(x), de = fabsf(y), s = 1.0f;
    if (de < 0x1p-126f) { /* FLT_MIN */
        nu *= 0x1p25f;
        de *= 0x1p25f;
        s = 0x1p-25f;
    }
    const float rde = sleef_toward0f(1.0f / de);
    vm_f2 r = vm_f2make(nu, 0.0f);
    for (int i = 0; i < 8; i++) {
        const float q = (de + de > r.x && r.x >= de) ? 1.0f : sleef_toward0f(r.x) * rde;
        r = df_normalize(df_add2_f2_f2(r, df_mul_f_f(truncf(q), -de)));
        if (r.x < de) break;
    }
    float ret = (r.x + r.y) * s;
    if (r.x + r.y == de) ret = 0.0f;
    ret = vm_xorsign(ret, x);
    if (nu < de) ret = x;
    if (de == 0.0f) ret = vm_u2f(0x7fc00000u);
    return ret;
}

/* ------------------------------------------------------------------ atan2 */

/* glibc 2.36 atanf (sysdeps/ieee754/flt-32/s_atanf.c, fdlibm in float, no FMA variant on x86_64): |x|
 * reduced to t about 0, 0.5, 1, 1.5 or infinity (id), atan(t) = t - t*(s1 + s2) with s1, s2 the odd and
 * even halves of an 11-term series in z = t*t, w = z*z, then atanhi[id] - ((t*(s1 + s2) - atanlo[id]) - t). */
static const float vm_atanf_hi[4] = {4.6364760399e-01f, 7.8539812565e-01f, 9.8279368877e-01f, 1.5707962513e+00f};
static const float vm_atanf_lo[4] = {5.0121582440e-09f, 3.7748947079e-08f, 3.4473217170e-08f, 7.5497894159e-08f};
static const float vm_atanf_t[11] = {3.3333334327e-01f,  -2.0000000298e-01f, 1.4285714924e-01f, -1.1111110449e-01f,
                                     9.0908870101e-02f,  -7.6918758452e-02f, 6.6610731184e-02f, -5.8335702866e-02f,
                                     4.9768779427e-02f,  -3.6531571299e-02f, 1.6285819933e-02f};

/* f = 1: aarch64's atanf, the same C contracted by GCC (libm.so.6's atanf, disassembled): 2x - 1 and 1 + 1.5x
 * of the reductions and every Horner step fused, s1 + s2 one fused z*(...) + s2 (s2 = w*(...) rounded), then
 * x*(s1 + s2) rounded on its own before x - it and it - lo (FMUL, then FSUB: not fused). */
static inline float glibc_atanf_k(int f, float x) {
    const uint32_t hx = vm_f2u(x), ix = hx & 0x7fffffffu;
    int id;
    if (ix >= 0x4c000000u) { /* |x| >= 2^25 */
        if (ix > 0x7f800000u) return x + x;
        return (hx >> 31) ? -vm_atanf_hi[3] - vm_atanf_lo[3] : vm_atanf_hi[3] + vm_atanf_lo[3];
    }
    if (ix < 0x3ee00000u) { /* |x| < 0.4375 */
        if (ix < 0x31000000u) return x;
        id = -1;
    } else {
        x = fabsf(x);
        if (ix < 0x3f980000u) {
            if (ix < 0x3f300000u) id = 0, x = (f ? fmaf(2.0f, x, -1.0f) : 2.0f * x - 1.0f) / (2.0f + x);
            else id = 1, x = (x - 1.0f) / (x + 1.0f);
        } else if (ix < 0x401c0000u) id = 2, x = (x - 1.5f) / (f ? fmaf(1.5f, x, 1.0f) : 1.0f + 1.5f * x);
        else id = 3, x = -1.0f / x;
    }
    const float z = x * x, w = z * z;
    const float *a = vm_atanf_t;
#define MA(c, v) (f ? fmaf(w, (v), (c)) : (c) + w * (v))
    const float odd = MA(a[0], MA(a[2], MA(a[4], MA(a[6], f ? fmaf(w, a[10], a[8]) : a[8] + w * a[10]))));
    const float s2 = w * MA(a[1], MA(a[3], MA(a[5], f ? fmaf(w, a[9], a[7]) : a[7] + w * a[9])));
#undef MA
    const float xs = x * (f ? fmaf(z, odd, s2) : z * odd + s2); /* x * (s1 + s2) */
    if (id < 0) return x - xs;
    const float r = vm_atanf_hi[id] - ((xs - vm_atanf_lo[id]) - x);
    return (hx >> 31) ? -r : r;
}

static inline float glibc_atanf(float x) { return glibc_atanf_k(0, x); }

/* glibc 2.36 atan2f (sysdeps/ieee754/flt-32/e_atan2f.c, fdlibm): a NaN operand gives x + y (x's NaN where
 * both are, quieted: measured through torch's tails on a Zen 5); x = 1 atanf(y);
 * zeros and infinities by quadrant m = 2*sign(x) + sign(y) (pi and pi/2 rounded up by a tiny in float);
 * else z = atanf(|y/x|) (pi/2 + pi_lo/2 where |y/x| > 2^60, 0 where x < 0 and |y/x| < 2^-60) placed in its
 * quadrant: z, -z, pi - (z - pi_lo), (z - pi_lo) - pi. */
static inline float glibc_atan2f_k(int f, float y, float x) {
    const float tiny = 1.0e-30f, pi_o_4 = 7.8539818525e-01f, pi_o_2 = 1.5707963705e+00f, pi = 3.1415927410e+00f,
                pi_lo = -8.7422776573e-08f;
    const uint32_t hx = vm_f2u(x), hy = vm_f2u(y), ix = hx & 0x7fffffffu, iy = hy & 0x7fffffffu;
    if (ix > 0x7f800000u || iy > 0x7f800000u) { /* x + y: x's NaN where both are (measured), quieted */
        if (f && ix > 0x7f800000u && iy > 0x7f800000u && (hx & 0x00400000u) && !(hy & 0x00400000u))
            return vm_u2f(hy | 0x00400000u); /* aarch64's FADD: a signalling y before a quiet x */
        return vm_u2f((ix > 0x7f800000u ? hx : hy) | 0x00400000u);
    }
    if (hx == 0x3f800000u) return glibc_atanf_k(f, y);
    const int m = (int)((hy >> 31) | ((hx >> 30) & 2u));
    if (iy == 0) return m < 2 ? y : m == 2 ? pi + tiny : -pi - tiny;
    if (ix == 0) return (hy >> 31) ? -pi_o_2 - tiny : pi_o_2 + tiny;
    if (ix == 0x7f800000u) {
        if (iy == 0x7f800000u) {
            const float q[4] = {pi_o_4 + tiny, -pi_o_4 - tiny, 3.0f * pi_o_4 + tiny, -3.0f * pi_o_4 - tiny};
            return q[m];
        }
        const float q[4] = {0.0f, -0.0f, pi + tiny, -pi - tiny};
        return q[m];
    }
    if (iy == 0x7f800000u) return (hy >> 31) ? -pi_o_2 - tiny : pi_o_2 + tiny;
    const int32_t k = ((int32_t)iy - (int32_t)ix) >> 23;
    float z;
    if (k > 60) z = pi_o_2 + 0.5f * pi_lo;
    else if ((hx >> 31) && k < -60) z = 0.0f;
    else z = glibc_atanf_k(f, fabsf(y / x));
    switch (m) {
    case 0: return z;
    case 1: return vm_u2f(vm_f2u(z) ^ 0x80000000u);
    case 2: return pi - (z - pi_lo);
    default: return (z - pi_lo) - pi;
    }
}

static inline float glibc_atan2f(float y, float x) { return glibc_atan2f_k(0, y, x); }
/* aarch64 glibc 2.36's atan2f: its contracted atanf (glibc_atanf_k(1, .)), FADD's NaN. */
static inline float glibc_atan2f_a64(float y, float x) { return glibc_atan2f_k(1, y, x); }

/* SLEEF atan2kf_u1 (FMA build): q the quadrant count, s = (x < y ? -x / y : y / x) in double-float, t = s^2
 * normalized, an 8-term Horner series u in t.x (vmla: fused), then s * (1 + t * (-1/3 + u*t.x)) + q*pi/2. */
static inline vm_f2 sleef_atan2kf_u1(vm_f2 y, vm_f2 x) {
    int32_t q = x.x < 0.0f ? -2 : 0;
    if (x.x < 0.0f) x = vm_f2make(vm_u2f(vm_f2u(x.x) ^ 0x80000000u), vm_u2f(vm_f2u(x.y) ^ 0x80000000u));
    const int p = x.x < y.x;
    q += p;
    vm_f2 s = p ? df_neg(x) : y, t = p ? y : x;
    s = df_div(s, t);
    t = df_normalize(df_squ(s));
    float u = -0.00176397908944636583328247f;
    u = fmaf(u, t.x, 0.0107900900766253471374512f);
    u = fmaf(u, t.x, -0.0309564601629972457885742f);
    u = fmaf(u, t.x, 0.0577365085482597351074219f);
    u = fmaf(u, t.x, -0.0838950723409652709960938f);
    u = fmaf(u, t.x, 0.109463557600975036621094f);
    u = fmaf(u, t.x, -0.142626821994781494140625f);
    u = fmaf(u, t.x, 0.199983194470405578613281f);
    t = df_mul_f2_f2(t, df_add2_f_f_fast(-0.333332866430282592773438f, u * t.x));
    t = df_mul_f2_f2(s, df_add_f_f2(1.0f, t));
    return df_add_f2_f2(df_mul_f2_f(vm_f2make(1.5707963705062866211f, -4.3711388286737928865e-08f), (float)q), t);
}

/* SLEEF xatan2f_u1 (Sleef_atan2f8_u10, Sleef_atan2f16_u10): |x| below 2^-128 scaled with y by 2^24; r =
 * atan2kf_u1(|y|, x) with x's sign; x zero or infinite: pi/2 - (x infinite ? pi/2 with x's sign : 0); y
 * infinite: pi/2 - (x infinite ? pi/4 with x's sign : 0); y zero: pi where x's sign is set, else +0; r
 * with y's sign; a NaN operand: every bit set. */
static inline float sleef_atan2f_u10(float y, float x) {
    if (isnan(x) || isnan(y)) return vm_u2f(0xffffffffu);
    if (fabsf(x) < 2.9387372783541830947e-39f) x *= 16777216.0f, y *= 16777216.0f;
    const vm_f2 d = sleef_atan2kf_u1(vm_f2make(fabsf(y), 0.0f), vm_f2make(x, 0.0f));
    const float half_pi = 1.57079632679489661923f, quarter_pi = 0.78539816339744830962f;
    float r = vm_xorsign(d.x + d.y, x);
    if (isinf(x) || x == 0.0f) r = half_pi - (isinf(x) ? vm_xorsign(half_pi, x) : 0.0f);
    if (isinf(y)) r = half_pi - (isinf(x) ? vm_xorsign(quarter_pi, x) : 0.0f);
    if (y == 0.0f) r = signbit(x) ? 3.14159265358979323846f : 0.0f;
    return vm_xorsign(r, y);
}

/* ------------------------------------------------------------------ atanh */

/* glibc 2.36 atanhf (sysdeps/ieee754/flt-32/e_atanhf.c, fdlibm in float over glibc_log1pf; no FMA variant
 * on x86_64), with a = |x|: a < 2^-28 gives x; a < 0.5: 0.5 log1p(2a + 2a a / (1 - a)); a < 1:
 * 0.5 log1p(2a / (1 - a)); then x's sign. a = 1: x / 0, +-inf; a > 1 (inf included): (x - x) / (x - x),
 * x86's default NaN 0xffc00000; NaN x: x / 0, x quieted. f = 1: aarch64's build, the same C (nothing for GCC to
 * contract: the products feed divisions) over its contracted log1pf (glibc_log1pf_a64), aarch64's default NaN
 * 0x7fc00000 for a > 1. */
static inline __attribute__((always_inline)) float glibc_atanhf_k(int f, float x) {
    const float a = fabsf(x);
    float t;
    if (a < 0.5f) {
        if (a < 0x1p-28f) return x;
        t = a + a;
        t = t + t * a / (1.0f - a);
        t = 0.5f * (f ? glibc_log1pf_a64(t) : glibc_log1pf(t));
    } else if (a < 1.0f) {
        t = 0.5f * (f ? glibc_log1pf_a64((a + a) / (1.0f - a)) : glibc_log1pf((a + a) / (1.0f - a)));
    } else if (a == 1.0f) {
        return vm_u2f(vm_f2u(INFINITY) | (vm_f2u(x) & 0x80000000u));
    } else if (a > 1.0f) {
        return vm_u2f(f ? 0x7fc00000u : 0xffc00000u);
    } else {
        return vm_u2f(vm_f2u(x) | 0x00400000u);
    }
    return vm_u2f(vm_f2u(t) | (vm_f2u(x) & 0x80000000u));
}

static inline float glibc_atanhf(float x) { return glibc_atanhf_k(0, x); }
static inline float glibc_atanhf_a64(float x) { return glibc_atanhf_k(1, x); }

/* SLEEF xatanhf (Sleef_atanhf8_u10, Sleef_atanhf16_u10; FMA builds), with y = |x|: logk2f of
 * (1 + y) / (1 - y) in double-float (dfadd2 of 1 and +-y, dfdiv), hi + lo, times 0.5; y = 1: inf. Then
 * integer masks: y > 1, an infinite x or a NaN result set every bit, x's sign is xored in, and a NaN x
 * sets every bit again (0xffffffff; 0x7fffffff for x < -1 and -inf). */
static inline float sleef_atanhf_u10(float x) {
    const float y = fabsf(x);
    const vm_f2 d = sleef_logk2f(df_div(df_add2_f_f(1.0f, y), df_add2_f_f(1.0f, -y)));
    const float r = vm_self(y == 1.0f, INFINITY, (d.x + d.y) * 0.5f);
    uint32_t u = vm_f2u(r) | -(uint32_t)(y > 1.0f);
    u |= -(uint32_t)(isinf(x) || vm_u2f(u) != vm_u2f(u));
    u ^= vm_f2u(x) & 0x80000000u;
    return vm_u2f(u | -(uint32_t)(x != x));
}

/* SLEEF's xsinf_u1 / xcosf_u1 (sleefsimdsp.c, FMA builds: Sleef_sinf4_u10 / cosf4_u10 advsimd,
 * Sleef_sinfx_u10sve / cosfx_u10sve), the Cody-Waite branch a whole vector takes when every lane has
 * |x| < 125 (TRIGRANGEMAX2f): N = rint(x * 1/pi) in float (cos: the odd 2*rint(x/pi - 1/2) + 1 fused),
 * x - N*pi as a double-float with pi in three float parts (the first product fused), an odd polynomial
 * of the reduced argument's square in float then double-float, one fused double-float product, the sign
 * from N. A vector holding a lane of |x| >= 125, an infinity or a NaN runs Payne-Hanek (rempif) on every
 * lane instead: sleef_sinf_u10_ph / sleef_cosf_u10_ph below. */
static inline float sleef_df_mul_f(vm_f2 x, vm_f2 y) { /* SLEEF dfmul_vf_vf2_vf2: the product rounded once */
    return fmaf(x.x, y.x, fmaf(x.y, y.x, x.x * y.y));
}
static inline float sleef_sincos_poly(vm_f2 t) { /* t * (1 - t^2/6 + ...) of the reduced argument t */
    const vm_f2 s = df_squ(t);
    float u = 2.6083159809786593541503e-06f;
    u = fmaf(u, s.x, -0.0001981069071916863322258f);
    u = fmaf(u, s.x, 0.00833307858556509017944336f);
    const vm_f2 x = df_add_f_f2(1.0f, df_mul_f2_f2(df_add2_f_f_fast(-0.166666597127914428710938f, u * s.x), s));
    return sleef_df_mul_f(t, x);
}
#define SLEEF_PI_A2F 3.1414794921875f
#define SLEEF_PI_B2F 0.00011315941810607910156f
#define SLEEF_PI_C2F 1.9841872589410058936e-09f
#define SLEEF_TRIGRANGEMAX2F 125.0f
#define SLEEF_1_PI 0.318309886183790671537767526745028724
static inline float sleef_sinf_u10(float d) { /* |d| < SLEEF_TRIGRANGEMAX2F */
    const float u = rintf(d * (float)SLEEF_1_PI);
    const int32_t q = (int32_t)u;
    vm_f2 s = df_add2_f_f(fmaf(u, -SLEEF_PI_A2F, d), u * -SLEEF_PI_B2F);
    s = df_add_f2_f(s, u * -SLEEF_PI_C2F);
    const float r = vm_u2f(vm_f2u(sleef_sincos_poly(s)) ^ ((q & 1) ? 0x80000000u : 0u));
    return vm_f2u(d) == 0x80000000u ? d : r;
}
static inline float sleef_cosf_u10(float d) { /* |d| < SLEEF_TRIGRANGEMAX2F */
    const float dq = fmaf(rintf(fmaf(d, (float)SLEEF_1_PI, -0.5f)), 2.0f, 1.0f);
    const int32_t q = (int32_t)dq;
    vm_f2 s = df_add2_f_f(d, dq * (-SLEEF_PI_A2F * 0.5f));
    s = df_add2_f2_f(s, dq * (-SLEEF_PI_B2F * 0.5f));
    s = df_add2_f2_f(s, dq * (-SLEEF_PI_C2F * 0.5f));
    return vm_u2f(vm_f2u(sleef_sincos_poly(s)) ^ ((q & 2) ? 0u : 0x80000000u));
}

/* ------------------------------------------------------------------ aarch64 SLEEF log2f, acosf, erff */

/* SLEEF dfsub_vf2_vf2_vf2 (|x| >= |y|): x - y as a double-float. */
static inline vm_f2 df_sub_f2_f2(vm_f2 x, vm_f2 y) {
    const float s = x.x - y.x;
    return vm_f2make(s, (((x.x - s) - y.x) + x.y) - y.y);
}
/* SLEEF dfrec_vf2_vf (FMA): 1/d as a double-float. */
static inline vm_f2 df_rec_f(float d) {
    const float s = 1.0f / d;
    return vm_f2make(s, s * fmaf(-d, s, 1.0f));
}
/* SLEEF dfsqrt_vf2_vf (FMA): sqrt(d) as a double-float, one Newton step on the rounded root t. */
static inline vm_f2 df_sqrt_f(float d) {
    const float t = sqrtf(d);
    return df_scale(df_mul_f2_f2(df_add2_f_f2(d, df_mul_f_f(t, t)), df_rec_f(t)), 0.5f);
}

/* SLEEF xlog2f (sleefsimdsp.c, the u10 log2; SLEEF 3.6 to 3.9 alike: Sleef_log2f4_u10 advsimd on N1 and V2,
 * Sleef_log2fx_u10sve on V1, FMA builds), one lane: d below FLT_MIN scaled by 2^64, e the exponent of
 * d * (1/0.75) (vilogb2k), m = d / 2^e in [0.75, 1.5) by the exponent field; x = (m - 1)/(m + 1) in double-float
 * (dfdiv), t a fused quadratic in x.x^2, e + x * 2/ln2 (double-float constant) then + x^3 t, hi + lo. Selects
 * after it: +inf gives +inf; d < 0 and a NaN d SLEEF's NaN, +qNaN 0x7fc00000 (every payload); +-0 -inf. */
static inline float sleef_log2f_u10(float d) {
    const int o = d < 0x1p-126f;
    const float dd = o ? d * 0x1p64f : d;
    int32_t e = (int32_t)((vm_f2u(dd * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
    const float m = vm_u2f(vm_f2u(dd) + (uint32_t)(-e) * (1u << 23));
    if (o) e -= 64;
    const vm_f2 x = df_div(df_add2_f_f(-1.0f, m), df_add2_f_f(1.0f, m));
    const float x2 = x.x * x.x;
    float t = 0.4374550283e+0f;
    t = fmaf(t, x2, 0.5764790177e+0f);
    t = fmaf(t, x2, 0.9618012905120e+0f);
    vm_f2 s = df_add2_f_f2((float)e, df_mul_f2_f2(x, vm_f2make(2.8853900432586669922f, 3.2734474483568488616e-08f)));
    s = df_add2_f2_f(s, (x2 * x.x) * t);
    float r = s.x + s.y;
    if (dd == INFINITY) r = INFINITY;
    if (d < 0.0f || d != d) r = vm_u2f(0x7fc00000u);
    return d == 0.0f ? -INFINITY : r;
}

/* SLEEF xacosf_u1 (Sleef_acosf4_u10 advsimd on N1 and V2, Sleef_acosfx_u10sve on V1; FMA builds), one lane:
 * |d| < 0.5: x = |d|, x2 = d^2; else x2 = (1 - |d|)/2 and x = sqrt(x2) as a double-float (dfsqrt; 0 at |d| = 1);
 * u = x2 * x * (a fused quintic in x2); |d| < 0.5: pi/2 - (x + u) with d's sign (double-float); else 2 (x + u),
 * subtracted from pi for d < 0; hi + lo. Not for NaN or |d| > 1 (the caller's NaN rule: aarch64's default NaN
 * for |d| > 1, the NaN d itself otherwise). */
static inline float sleef_acosf_u10(float d) {
    const float a = fabsf(d);
    const int o = a < 0.5f;
    const float x2 = o ? d * d : (1.0f - a) * 0.5f;
    vm_f2 x = o ? vm_f2make(a, 0.0f) : a == 1.0f ? vm_f2make(0.0f, 0.0f) : df_sqrt_f(x2);
    float u = 0.4197454825e-1f;
    u = fmaf(u, x2, 0.2424046025e-1f);
    u = fmaf(u, x2, 0.4547423869e-1f);
    u = fmaf(u, x2, 0.7495029271e-1f);
    u = fmaf(u, x2, 0.1666677296e+0f);
    u = u * (x2 * x.x);
    const vm_f2 half_pi = vm_f2make(3.1415927410125732422f / 2, -8.7422776573475857731e-08f / 2);
    vm_f2 y = df_sub_f2_f2(half_pi, df_add2_f_f_fast(vm_xorsign(x.x, d), vm_xorsign(u, d)));
    x = df_add_f2_f(x, u);
    if (!o) y = df_scale(x, 2.0f);
    if (!o && d < 0.0f) y = df_sub_f2_f2(vm_f2make(3.1415927410125732422f, -8.7422776573475857731e-08f), y);
    return y.x + y.y;
}

/* SLEEF xerff_u1 (Sleef_erffx_u10sve: V1's erf; FMA build), one lane; its vector takes one branch when every
 * lane has |a| <= 2.5 and a second otherwise, whose lanes of |a| <= 2.5 compute the same steps, so each lane is
 * its own: x = |a|, t a fused degree-5 polynomial (Estrin, POLY6) of x with the |a| <= 2.5 or the outer
 * coefficients, then three double-float steps (poly4df), times x; |a| <= 2.5: 1/(1 + that)^16 (four dfsqu, dfrec),
 * else expkf of it; minus 1 (dfadd2), below 1e-4 the double-float -2/sqrt(pi) times x instead; -(hi + lo);
 * x >= 6 and infinities 1, +-0 0; a's sign. Not for NaN a (the caller's NaN rule). */
static inline float sleef_erff_u10(float a) {
    const float x = fabsf(a), x2 = x * x, x4 = x2 * x2;
    const int o25 = x <= 2.5f;
#define VM_ERF_C(c25, c) (o25 ? (c25) : (c))
    const float t = fmaf(x4, fmaf(x, VM_ERF_C(-0.4360447008e-6f, -0.1130012848e-6f), VM_ERF_C(+0.6867515367e-5f, +0.4115272986e-5f)),
                         fmaf(x2, fmaf(x, VM_ERF_C(-0.3045156700e-4f, -0.6928304356e-4f), VM_ERF_C(+0.9808536561e-4f, +0.7172692567e-3f)),
                              fmaf(x, VM_ERF_C(+0.2395523916e-3f, -0.5131045356e-2f), VM_ERF_C(+0.1459901541e-3f, +0.2708637156e-1f))));
#undef VM_ERF_C
    const vm_f2 c2 = o25 ? vm_f2make(0.0092883445322513580322f, -2.7863745897025330755e-11f)
                         : vm_f2make(-0.11064319312572479248f, 3.7050452777225283007e-09f);
    const vm_f2 c1 = o25 ? vm_f2make(0.042275499552488327026f, 1.3461399289988106057e-09f)
                         : vm_f2make(-0.63192230463027954102f, -2.0200432585073177859e-08f);
    const vm_f2 c0 = o25 ? vm_f2make(0.070523701608180999756f, -3.6616309318707365163e-09f)
                         : vm_f2make(-1.1296638250350952148f, 2.5515120196453259252e-08f);
    const vm_f2 p32 = df_add_f2_f2(c2, df_mul_f2_f(vm_f2make(t, 0.0f), x));
    const vm_f2 p10 = df_add_f2_f2(c0, df_mul_f2_f(c1, x));
    vm_f2 t2 = df_mul_f2_f(df_add_f2_f2(p10, df_mul_f2_f(p32, x * x)), x);
    if (o25) {
        vm_f2 s2 = df_add_f_f2(1.0f, t2);
        s2 = df_squ(df_squ(df_squ(df_squ(s2))));
        t2 = df_rec_f2(s2);
    } else {
        t2 = vm_f2make(x >= 6.0f ? 0.0f : sleef_expkf(t2), 0.0f); /* x >= 6 (infinities too): selected to 1 below */
    }
    t2 = df_add2_f2_f(t2, -1.0f);
    if (x < 1e-4f) t2 = df_mul_f2_f(vm_f2make(-1.1283792257308959961f, 5.8635383422197591097e-08f), x);
    float z = -(t2.x + t2.y);
    if (x >= 6.0f) z = 1.0f;
    if (a == 0.0f) z = 0.0f;
    return vm_xorsign(z, a);
}

/* aarch64 NEON Vectorized<float>::exp_u20 (vec128_float_neon.h vexpq_f32_u20) below its bound (|x| <=
 * 0x1.5d5e2ap+6; a lane above it sends the whole vector to Sleef_expf4_u10): n = round-half-away(x/ln2),
 * r = x - n ln2_hi - n ln2_lo (two fmls), scale = 2^n by the exponent field, poly = c4 r + (c3 + c2 r +
 * (c1 + c0 r) r^2) r^2 (fused), scale + poly scale (fused). */
static inline float aten_neon_expf_u20(float x) {
    const float n = roundf(x * 0x1.715476p+0f);
    float r = fmaf(-n, 0x1.62e4p-1f, x);
    r = fmaf(-n, 0x1.7f7d1cp-20f, r);
    const float scale = vm_u2f(((uint32_t)(int32_t)n << 23) + 0x3f800000u);
    const float r2 = r * r;
    const float p = fmaf(0x1.0e4020p-7f, r, 0x1.573e2ep-5f);
    const float q = fmaf(p, r2, fmaf(0x1.555e66p-3f, r, 0x1.fffdb6p-2f));
    const float poly = fmaf(q, r2, 0x1.ffffecp-1f * r);
    return fmaf(poly, scale, scale);
}
#define ATEN_NEON_EXP_U20_BOUND 0x1.5d5e2ap+6f

/* aarch64 NEON Vectorized<float>::erf (vec128_float_neon.h, N1's and V2's objects), one lane: A&S 7.1.26 as
 * the x86 objects' (t = 1/(1 + p|x|) fused, Horner in t fused), exp(-x*x) by exp_u20 or, where ``sleef`` (a lane
 * of the same 4-lane vector has |x*x| above the bound), Sleef_expf4_u10; erf = (1 + t (-exp) r fused) with x's
 * sign bit xored in. Not for NaN x (the caller's NaN rule: x quieted). */
static inline float aten_neon_erff(float x, int sleef) {
    const float a = fabsf(x);
    const float t = 1.0f / fmaf(0.3275911f, a, 1.0f);
    float r = fmaf(1.061405429f, t, -1.453152027f);
    r = fmaf(r, t, 1.421413741f);
    r = fmaf(r, t, -0.284496736f);
    r = fmaf(r, t, 0.254829592f);
    const float m = -(x * x);
    const float e = !sleef ? aten_neon_expf_u20(m) : m < -104.0f ? 0.0f : sleef_expf_u10(m);
    return vm_xorsign(fmaf(t * -e, r, 1.0f), x);
}

/* SLEEF's rempisubf (FULL_FP_ROUNDING, as the aarch64 objects run it): x less its nearest quarter, x - rint(4x)/4,
 * and in *q that quarter's count mod 4 with sign, rint(4x) - 4*rint(x) (fcvtzs of an exact integer). */
static inline float sleef_rempisubf(float x, int32_t *q) {
    const float y = rintf(x * 4.0f);
    *q = (int32_t)(y - rintf(x) * 4.0f);
    return x - y * 0.25f;
}
/* SLEEF's rempif (Payne-Hanek) of a finite a: a's ilogb less 25 picks a row of 1/(2*pi)'s digits
 * (sleef_rempitab.h; a scaled by 2^-64 by its exponent field past ilogb 90); a times the row's first two floats,
 * each exact product (double-float, fused low part) less its nearest quarter turn (the counts summed into *q),
 * normalized; plus a times the last two (one double-float product); normalized, times 2*pi as a double-float
 * (0x1.921fb6p+2, -0x1.777a5cp-23). |a| < 0.7 (after the scaling): (a, 0), *q unchanged. The reduced argument
 * lies in [-pi/4, pi/4], *q counts quarter turns. */
static inline vm_f2 sleef_rempif(float a, int32_t *q) {
    const int32_t ex = (int32_t)((vm_f2u(a) >> 23) & 0xff) - 0x7f - 25;
    if (ex > 90 - 25) a = vm_u2f(vm_f2u(a) - (64u << 23));
    const uint32_t *row = &sleef_rempitabsp_bits[4 * (ex < 0 ? 0 : ex)];
    int32_t q1, q2;
    vm_f2 x = df_mul_f_f(a, vm_u2f(row[0]));
    x.x = sleef_rempisubf(x.x, &q1);
    x = df_normalize(x);
    x = df_add2_f2_f2(x, df_mul_f_f(a, vm_u2f(row[1])));
    x.x = sleef_rempisubf(x.x, &q2);
    x = df_normalize(x);
    x = df_add2_f2_f2(x, df_mul_f2_f(vm_f2make(vm_u2f(row[2]), vm_u2f(row[3])), a));
    x = df_normalize(x);
    x = df_mul_f2_f2(x, vm_f2make(0x1.921fb6p+2f, -0x1.777a5cp-23f));
    *q = q1 + q2;
    return fabsf(a) < 0.7f ? vm_f2make(a, 0.0f) : x;
}
/* xsinf_u1 / xcosf_u1's Payne-Hanek branch, one lane (every lane of a vector holding |x| >= 125, an infinity
 * or a NaN): rempif's quarter count k and r in [-pi/4, pi/4]; sin: N = ((k & 3)*2 + (r > 0 ? 2 : 1)) >> 2 half
 * turns, odd k moves r by -pi/2 with r's sign (a double-float of two floats, added by dfadd2); cos: N = ((k & 3)*2
 * + (r > 0 ? 8 : 7)) >> 1, even k moves r by -pi/2 with the sign of (r > 0 ? 0 : -1); then normalized, the
 * polynomial of the Cody-Waite branch (sleef_sincos_poly), the sign from N (sin: odd N; cos: N & 2 clear),
 * sin's -0 kept. An infinity or a NaN sets every bit of the reduced argument's high part: every output bit set
 * (0xffffffff, measured under emulation on N1, V2 and V1 for NaNs of both signs, signalling ones, +-inf). */
static inline vm_f2 sleef_ph_turn(vm_f2 r, float sign) {
    return df_add2_f2_f2(r, vm_f2make(vm_xorsign(-0x1.921fb6p+0f, sign), vm_xorsign(0x1.777a5cp-25f, sign)));
}
static inline float sleef_sinf_u10_ph(float d) {
    if (!isfinite(d)) return vm_u2f(0xffffffffu);
    int32_t k;
    vm_f2 r = sleef_rempif(d, &k);
    const int32_t q = ((k & 3) * 2 + (r.x > 0.0f ? 2 : 1)) >> 2;
    if (k & 1) r = sleef_ph_turn(r, r.x);
    const float u = vm_u2f(vm_f2u(sleef_sincos_poly(df_normalize(r))) ^ ((q & 1) ? 0x80000000u : 0u));
    return vm_f2u(d) == 0x80000000u ? d : u;
}
static inline float sleef_cosf_u10_ph(float d) {
    if (!isfinite(d)) return vm_u2f(0xffffffffu);
    int32_t k;
    vm_f2 r = sleef_rempif(d, &k);
    const int32_t q = ((k & 3) * 2 + (r.x > 0.0f ? 8 : 7)) >> 1;
    if (!(k & 1)) r = sleef_ph_turn(r, r.x > 0.0f ? 0.0f : -1.0f);
    return vm_u2f(vm_f2u(sleef_sincos_poly(df_normalize(r))) ^ ((q & 2) ? 0u : 0x80000000u));
}

/* ------------------------------------------------------------------ per-profile Vectorized lanes */

static inline float vec_expf(const profile_t *p, float x) { return p->aten ? sleef_expf_u10(x) : glibc_expf(x); }
static inline float vec_logf(const profile_t *p, float x) { return p->aten ? sleef_logf_u10(x) : glibc_logf(x); }
static inline float vec_tanhf(const profile_t *p, float x) { return p->aten ? sleef_tanhf_u10(x) : glibc_tanhf(x); }
static inline float vec_erff(const profile_t *p, float x) { return p->aten ? aten_erff_poly(x) : glibc_erff(x); }
static inline float vec_log1pf(const profile_t *p, float x) { return p->aten ? sleef_log1pf_u10(x) : glibc_log1pf(x); }
static inline float vec_lgammaf(const profile_t *p, float x) { return p->aten ? sleef_lgammaf_u10(x) : glibc_lgammaf(x); }
static inline float vec_expm1f(const profile_t *p, float x) { return p->aten ? sleef_expm1f_u10(x) : glibc_expm1f(x); }
static inline float vec_powf(const profile_t *p, float x, float y) { return p->aten ? sleef_powf_u10(x, y) : glibc_powf(x, y); }
static inline float vec_atan2f(const profile_t *p, float y, float x) { return p->aten ? sleef_atan2f_u10(y, x) : glibc_atan2f(y, x); }
static inline float vec_atanhf(const profile_t *p, float x) { return p->aten ? sleef_atanhf_u10(x) : glibc_atanhf(x); }

#endif
