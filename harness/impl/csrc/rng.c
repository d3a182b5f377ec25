/* torch's CPU generator (mt19937) and the RNG ops drawn from it: normal_ (randn), bernoulli_, dropout.
 *
 * Reproduces torch 2.13.0 on x86 (CPUGeneratorImpl.cpp, core/MT19937RNGEngine.h,
 * core/DistributionsHelper.h, native/cpu/DistributionTemplates.h, native/Dropout.cpp).
 * Every draw is serial: no result here depends on the thread count. */
#include "common.h"
#include "vmath.h"

#define MT_N 624
#define MT_M 397

/* at::CPUGeneratorImpl: the mt19937 engine plus the cached second Box-Muller sample of the
 * scalar normal sampler (normal_distribution<double>). The float cache is never used by the
 * float32 kernels reproduced here but is part of the state. */
typedef struct {
    uint32_t state[MT_N];
    int32_t left;
    uint32_t next;
    uint64_t seed;
    double next_double_normal;
    int32_t has_next_double_normal;
    float next_float_normal;
    int32_t has_next_float_normal;
} gen_t;

/* ----------------------------------------------------------------------------- the engine */

/* mt19937_engine::init_with_uint32 (also CPUGeneratorImpl::set_current_seed: resets the caches). */
void gen_seed(gen_t *g, uint64_t seed) {
    g->seed = seed;
    g->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t j = 1; j < MT_N; j++)
        g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + j;
    g->left = 1;
    g->next = 0;
    g->has_next_double_normal = 0;
    g->next_double_normal = 0.0;
    g->has_next_float_normal = 0;
    g->next_float_normal = 0.0f;
}

static inline uint32_t twist(uint32_t u, uint32_t v) {
    uint32_t mixed = (u & 0x80000000u) | (v & 0x7fffffffu);
    return (mixed >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
}

/* mt19937_engine::next_state: regenerate all 624 words. */
static void next_state(gen_t *g) {
    uint32_t *s = g->state;
    g->left = MT_N;
    g->next = 0;
    int k = 0;
    for (; k < MT_N - MT_M; k++) s[k] = s[k + MT_M] ^ twist(s[k], s[k + 1]);
    for (; k < MT_N - 1; k++) s[k] = s[k + MT_M - MT_N] ^ twist(s[k], s[k + 1]);
    s[MT_N - 1] = s[MT_M - 1] ^ twist(s[MT_N - 1], s[0]);
}

/* CPUGeneratorImpl::random: one tempered 32-bit word. */
uint32_t gen_random(gen_t *g) {
    if (--g->left == 0) next_state(g);
    uint32_t y = g->state[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* n words of gen_random in a row into out (the same words, the same state after): the state's words
 * up to the next regeneration taken and tempered as one run each, a loop GCC vectorizes. */
static void gen_words(gen_t *g, uint32_t *out, int64_t n) {
    while (n > 0) {
        if (g->left == 1) { /* gen_random's --left == 0: regenerate; its first word is not counted down */
            next_state(g);
            g->left++;
        }
        const int64_t m = g->left - 1 < n ? g->left - 1 : n;
        const uint32_t *s = g->state + g->next;
        for (int64_t i = 0; i < m; i++) {
            uint32_t y = s[i];
            y ^= y >> 11;
            y ^= (y << 7) & 0x9d2c5680u;
            y ^= (y << 15) & 0xefc60000u;
            y ^= y >> 18;
            out[i] = y;
        }
        g->next += (uint32_t)m;
        g->left -= (int32_t)m;
        out += m;
        n -= m;
    }
}

/* CPUGeneratorImpl::random64: two words, the first is the high half. */
uint64_t gen_random64(gen_t *g) {
    uint64_t hi = gen_random(g);
    uint64_t lo = gen_random(g);
    return (hi << 32) | lo;
}

/* uniform_real_distribution<float>(0, 1): 24 bits of one word, times 2^-24. */
static inline float uniform_float(gen_t *g) { return (float)(gen_random(g) & 0xffffffu) * 0x1p-24f; }

/* uniform_real_distribution<double>(0, 1) of random64's two words hi, lo: its low 53 bits, times 2^-53. */
static inline double u53(uint32_t hi, uint32_t lo) {
    return (double)(((uint64_t)hi << 32 | lo) & 0x1fffffffffffffull) * 0x1p-53;
}

/* uniform_real_distribution<double>(0, 1): u53 of random64's two words. */
static inline double uniform_double(gen_t *g) {
    const uint32_t hi = gen_random(g);
    return u53(hi, gen_random(g));
}

/* ----------------------------------------------------------------------------- normal_ */

/* normal_distribution<double>(mean, std)(gen): Box-Muller on two doubles, the sine half cached
 * in the generator. Order: u1 = uniform, u2 = uniform, r = sqrt(-2*log1p(-u2)), theta = 2*pi*u1,
 * cache r*sin(theta), return r*cos(theta)*std + mean -- that last multiply-add is fused in the
 * AVX2 object (GCC contracts it under -mfma), two roundings in the default object. torch calls
 * glibc's log1p and sincos; the impl dmath.h's dm_log1p and dm_sincos (correctly rounded; the
 * float32 samples equal glibc's, measured in tests/test_dmath.py). */
static double normal_double(gen_t *g, double mean, double std, int fused) {
    double ret;
    if (g->has_next_double_normal) {
        ret = g->next_double_normal;
        g->has_next_double_normal = 0;
    } else {
        double u1 = uniform_double(g);
        double u2 = uniform_double(g);
        double r = sqrt(-2.0 * dm_log1p(-u2));
        double theta = 2.0 * 3.141592653589793238462643383279502 * u1;
        double s, c;
        dm_sincos(theta, &s, &c);
        g->next_double_normal = r * s;
        g->has_next_double_normal = 1;
        ret = r * c;
    }
    return fused ? fma(ret, std, mean) : ret * std + mean;
}

/* NormalFill16<float> of the default object: 8 pairs (data[j], data[j+8]) of uniforms.
 * u1 = 1 - d[j]; radius = sqrtf(-2 * logf(u1)); theta = (float)(2pi (double) * u2); logf, cosf and sinf are
 * glibc 2.36's (the fixtures' host), reproduced portably in vmath.h (glibc_logf, glibc_cosf, glibc_sinf);
 * d[j] = fmaf(radius * cosf(theta), std, mean); d[j+8] = fmaf(radius * sinf(theta), std, mean). */
static void normal_fill16_default(float *d, float mean, float std) {
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j];
        float u2 = d[j + 8];
        float radius = sqrtf(-2.0f * glibc_logf(u1));
        float theta = (float)(2.0 * 3.141592653589793238462643383279502 * (double)u2);
        d[j] = fmaf(radius * glibc_cosf(theta), std, mean); /* glibc_cosf/glibc_sinf: glibc 2.36 bits on any OS */
        d[j + 8] = fmaf(radius * glibc_sinf(theta), std, mean);
    }
}

/* log256_ps of avx_mathfun.h (Cephes logf) as GCC compiled it into the AVX2 object: the
 * polynomial's mul+add pairs contracted into FMAs (vfmadd/vfnmadd), one lane. */
static float avx2_log(float x) {
    uint32_t invalid = x <= 0.0f ? 0xffffffffu : 0u;
    x = x > 0x1p-126f ? x : 0x1p-126f;
    float e = (float)((int32_t)(vm_f2u(x) >> 23) - 0x7f) + 1.0f;
    x = vm_u2f((vm_f2u(x) & ~0x7f800000u) | 0x3f000000u);
    int small = x < 0x1.6a09e6p-1f;
    float tmp = small ? x : 0.0f;
    e = e - (small ? 1.0f : 0.0f);
    x = x + -1.0f;
    x = x + tmp;
    float z = x * x;
    float y = fmaf(0x1.204376p-4f, x, -0x1.d7a37p-4f);
    y = fmaf(y, x, 0x1.de4a34p-4f);
    y = fmaf(y, x, -0x1.fcba9ep-4f);
    y = fmaf(y, x, 0x1.23d37ep-3f);
    y = fmaf(y, x, -0x1.555ca0p-3f);
    y = fmaf(y, x, 0x1.999d58p-3f);
    y = fmaf(y, x, -0x1.fffff8p-3f);
    y = fmaf(y, x, 0x1.555554p-2f);
    y = y * x;
    y = fmaf(y, z, e * -0x1.bd0106p-13f);
    y = fmaf(-z, 0.5f, y);
    x = x + y;
    x = fmaf(e, 0x1.63p-1f, x);
    return vm_u2f(vm_f2u(x) | invalid);
}

/* sincos256_ps of avx_mathfun.h (Cephes sinf/cosf) as compiled into the AVX2 object: the
 * three-part range reduction and both polynomials contracted into FMAs, one lane. */
static void avx2_sincos(float x, float *sin_out, float *cos_out) {
    uint32_t sign_sin = vm_f2u(x) & 0x80000000u;
    x = vm_u2f(vm_f2u(x) & 0x7fffffffu);
    int32_t j = (int32_t)(x * 0x1.45f306p+0f); /* cvttps: truncation */
    j = (j + 1) & ~1;
    float y = (float)j;
    uint32_t swap_sin = ((uint32_t)j & 4u) << 29;
    uint32_t poly = ((uint32_t)j & 2u) == 0 ? 0xffffffffu : 0u;
    sign_sin ^= swap_sin;
    x = fmaf(y, -0x1.92p-1f, x);
    x = fmaf(y, -0x1.fb4p-13f, x);
    x = fmaf(y, -0x1.4442d2p-25f, x);
    uint32_t sign_cos = (~(uint32_t)(j - 2) & 4u) << 29;
    float z = x * x;
    float half_z = z * 0.5f;
    float yc = fmaf(0x1.99eb9cp-16f, z, -0x1.6c0c34p-10f);
    yc = fmaf(yc, z, 0x1.55554ap-5f);
    yc = z * yc;
    yc = fmaf(z, yc, -half_z);
    yc = yc + 1.0f;
    float ys = fmaf(-0x1.9943f2p-13f, z, 0x1.11073cp-7f);
    ys = fmaf(ys, z, -0x1.555546p-3f);
    ys = z * ys;
    ys = fmaf(ys, x, x);
    float ysin2 = vm_u2f(vm_f2u(ys) & poly);
    float ysin1 = vm_u2f(vm_f2u(yc) & ~poly);
    float ys_rest = ys - ysin2;
    float yc_rest = yc - ysin1;
    float s = ysin2 + ysin1;
    float c = ys_rest + yc_rest;
    *sin_out = vm_u2f(vm_f2u(s) ^ sign_sin);
    *cos_out = vm_u2f(vm_f2u(c) ^ sign_cos);
}

/* NormalFill16<float> of the AVX2 object (also what AVX-512 CPUs run: normal_stub has no
 * AVX-512 kernel): u1 = 1 - d[0:8], u2 = d[8:16]; radius = sqrt(-2 * log256(u1));
 * theta = 2pi (float) * u2; sincos256; d = fmaf(radius * cos|sin, std, mean). */
static void normal_fill16_avx2(float *d, float mean, float std) {
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j];
        float u2 = d[j + 8];
        float radius = sqrtf(avx2_log(u1) * -2.0f);
        float theta = 0x1.921fb6p+2f * u2;
        float s, c;
        avx2_sincos(theta, &s, &c);
        d[j] = fmaf(radius * c, std, mean);
        d[j + 8] = fmaf(radius * s, std, mean);
    }
}

/* normal_kernel's serial branch (below 16 elements, or a tensor that is not contiguous: randn_like of
 * a transposed one): one normal_distribution<double> sample per element in TensorIterator's order (memory
 * order, for a dense layout), cast to float.
 * out: (n,) in that order */
void normal_serial_forward(profile_t p, gen_t *g, float *out, int64_t n, double mean, double std) {
    for (int64_t i = 0; i < n; i++) out[i] = (float)normal_double(g, mean, std, p.aten != ATEN_DEFAULT);
}

/* normal_kernel for a contiguous float tensor of n elements (torch.randn = normal_(0, 1)).
 * out: (n,)
 * n >= 16 -> normal_fill: n uniforms first, Box-Muller on each full block of 16, then, if n is
 *            not a multiple of 16, 16 fresh uniforms for the last 16 elements, transformed again.
 * n < 16  -> one normal_distribution<double> sample per element, cast to float.
 * aarch64 (NEON and SVE builds alike) has no vectorised fill: NormalFill16<float> is the scalar
 * one, its logf and sincosf glibc 2.36's generic code (aarch64 libm; the same bits as the x86_64
 * FMA variants reproduced in vmath.h), and GCC fused both the normal_distribution<double>
 * multiply-add and d = n*std + mean (fmadd), as in the AVX2 object. */
void normal_forward(profile_t p, gen_t *g, float *out, int64_t n, double mean, double std) {
    int avx2 = is_avx(&p);
    if (n < 16) {
        normal_serial_forward(p, g, out, n, mean, std);
        return;
    }
    float fmean = (float)mean, fstd = (float)std;
    void (*fill16)(float *, float, float) = avx2 ? normal_fill16_avx2 : normal_fill16_default;
    for (int64_t i = 0; i < n; i++) out[i] = uniform_float(g);
    for (int64_t i = 0; i < n - 15; i += 16) fill16(out + i, fmean, fstd);
    if (n % 16 != 0) {
        float *last = out + n - 16;
        for (int i = 0; i < 16; i++) last[i] = uniform_float(g);
        fill16(last, fmean, fstd);
    }
}

/* ----------------------------------------------------------------------------- bernoulli_, dropout */

#define RNG_CHUNK 2048 /* elements drawn per gen_words run: two words each */

/* out[i] = u_i < prob ? one : zero, u_i = u53 of words 2i (high half) and 2i + 1 (uniform_double's). */
static void bernoulli_fill(gen_t *g, float *out, int64_t n, double prob, float one, float zero) {
    uint32_t w[2 * RNG_CHUNK];
    for (int64_t i0 = 0; i0 < n; i0 += RNG_CHUNK) {
        const int64_t m = n - i0 < RNG_CHUNK ? n - i0 : RNG_CHUNK;
        gen_words(g, w, 2 * m);
        for (int64_t i = 0; i < m; i++) out[i0 + i] = u53(w[2 * i], w[2 * i + 1]) < prob ? one : zero;
    }
}

/* bernoulli_scalar_kernel (default path; 2.13 has no MKL VSL branch any more): serial over the
 * elements, one uniform double (random64) each, 1 where u < p.
 * out: (n,) */
void bernoulli_forward(gen_t *g, float *out, int64_t n, double prob) { bernoulli_fill(g, out, n, prob, 1.0f, 0.0f); }

/* _dropout<false> (Dropout.cpp), training, 0 < p < 1: noise = empty_like(x).bernoulli_(1 - p);
 * noise.div_(1 - p) (float division by (float)(1 - p)); out = x * noise.
 * x, out, noise: (n,) */
void dropout_forward(gen_t *g, const float *x, float *out, float *noise, int64_t n, double prob) {
    float keep = (float)(1.0 - prob);
    /* the mask's 1 / keep and 0 / keep, the two values the division gives, divided once */
    bernoulli_fill(g, noise, n, 1.0 - prob, 1.0f / keep, 0.0f / keep);
    for (int64_t i = 0; i < n; i++) out[i] = x[i] * noise[i];
}

/* mul backward: grad_x = grad_out * noise.
 * dout, noise, dx: (n,) */
void dropout_backward(const float *dout, const float *noise, float *dx, int64_t n) {
    for (int64_t i = 0; i < n; i++) dx[i] = dout[i] * noise[i];
}

/* ----------------------------------------------------------------------------- uniform_ */

/* uniform_kernel (float): serial, one word per element, u = 24 bits * 2^-24,
 * value = u * (to - from) + from in float (from/to cast to float first; the multiply-add fused in
 * the AVX2 object, two roundings in the default object); a value rounded up to `to` becomes `from`.
 * out: (n,) */
void uniform_forward(profile_t p, gen_t *g, float *out, int64_t n, double from, double to) {
    float lo = (float)from, hi = (float)to, range = hi - lo;
    for (int64_t i = 0; i < n; i++) {
        float u = uniform_float(g);
        float v = p.aten != ATEN_DEFAULT ? fmaf(u, range, lo) : u * range + lo;
        out[i] = v == hi ? lo : v;
    }
}

/* ----------------------------------------------------------------------------- exponential_ */

/* DistributionTemplates.h's default exponential_kernel (at::exponential_distribution<double>) into a
 * contiguous float32 tensor: serial, one random64() per element, u = its low 53 bits * 2^-53
 * (uniform_double), value = -1 / lambda * log1p(-u) in double (glibc's log1p; dm_log1p, correctly
 * rounded), then rounded to float. out: (n,) */
void exponential_forward(gen_t *g, float *out, int64_t n, double lambda) {
    const double scale = -1.0 / lambda;
    for (int64_t i = 0; i < n; i++) out[i] = (float)(scale * dm_log1p(-uniform_double(g)));
}

/* ----------------------------------------------------------------------------- random_(from, to) */

/* random_from_to_kernel for int64 (torch.randint(low, high, size)): serial, one word per element
 * (two, via random64, when range >= 2^32), value = word % range + low.
 * out: (n,) int64 */
void randint_forward(gen_t *g, int64_t *out, int64_t n, int64_t low, uint64_t range) {
    for (int64_t i = 0; i < n; i++) {
        uint64_t word = range >= (1ull << 32) ? gen_random64(g) : (uint64_t)gen_random(g);
        out[i] = (int64_t)(word % range + (uint64_t)low);
    }
}
