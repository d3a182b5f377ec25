/* Unary ops of torch 2.13.0 on CPU, float32, forward and backward: exp, log, tanh, rsqrt,
 * gelu (erf, through oneDNN) and gelu (tanh, through ATen's GeluKernel).
 *
 * Every tensor is contiguous and flat: x, out, grad, grad_x are (n,).
 * ATen's elementwise loops (cpu/Loops.h vectorized_loop) run, per thread chunk of
 * TensorIterator::for_each, a body of two Vectorized<float> per iteration through the vector
 * lambda and the rest (< 2 vectors) through the scalar lambda; run_unary/run_binary reproduce
 * that split, computing the chunks serially. */
#include "vmath.h"

typedef float (*unary_fn)(const profile_t *p, float x);
typedef float (*binary_fn)(const profile_t *p, float a, float b);

/* The loop helpers are always inlined: vec/scal become direct calls the compiler inlines, so
 * each kernel's loop is branch-free straight-line code that auto-vectorizes. */
#define VM_INLINE static inline __attribute__((always_inline))

/* One chunk of cpu/Loops.h vectorized_loop: blocks of 2*lanes through vec, the tail through scal. */
VM_INLINE void loop_chunk(const profile_t *p, int64_t lanes, unary_fn vec, unary_fn scal, const float *x, float *y,
                       int64_t b, int64_t e) {
    int64_t i = b;
    int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes);
    for (; i < body; i++) y[i] = vec(p, x[i]);
    for (; i < e; i++) y[i] = scal(p, x[i]);
}

VM_INLINE void loop_chunk2(const profile_t *p, int64_t lanes, binary_fn vec, binary_fn scal, const float *a,
                        const float *c, float *y, int64_t b, int64_t e) {
    int64_t i = b;
    int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes);
    for (; i < body; i++) y[i] = vec(p, a[i], c[i]);
    for (; i < e; i++) y[i] = scal(p, a[i], c[i]);
}

/* TensorIterator::for_each(loop, grain): serial when n < grain or one thread, else
 * at::parallel_for(0, n, grain) chunks (common.h), each chunk its own vectorized_loop. */
static int64_t for_each_threads(const profile_t *p, int64_t n, int64_t grain) {
    if (n < grain || p->threads == 1) return 1;
    return parallel_threads(0, n, grain, p->threads);
}

VM_INLINE void run_unary(const profile_t *p, int64_t lanes, int64_t grain, unary_fn vec, unary_fn scal,
                      const float *x, float *y, int64_t n) {
    int64_t nt = for_each_threads(p, n, grain);
    for (int64_t tid = 0; tid < nt; tid++) {
        int64_t b = 0, e = n;
        if (nt > 1 && !parallel_chunk(0, n, grain, nt, tid, &b, &e)) continue;
        loop_chunk(p, lanes, vec, scal, x, y, b, e);
    }
}

VM_INLINE void run_binary(const profile_t *p, int64_t lanes, int64_t grain, binary_fn vec, binary_fn scal,
                       const float *a, const float *c, float *y, int64_t n) {
    int64_t nt = for_each_threads(p, n, grain);
    for (int64_t tid = 0; tid < nt; tid++) {
        int64_t b = 0, e = n;
        if (nt > 1 && !parallel_chunk(0, n, grain, nt, tid, &b, &e)) continue;
        loop_chunk2(p, lanes, vec, scal, a, c, y, b, e);
    }
}

/* ------------------------------------------------------------------ exp, log, tanh (MKL VML | SLEEF) */

/* x86: torch.exp/log/tanh forward run MKL VML (vsExp/vsLn/vsTanh, VML_HA) under every capability
 * (aten vml.h IMPLEMENT_VML_MKL, UnaryOpsKernel IMPLEMENT_FLOAT_KERNEL): elementwise, so neither
 * the profile nor the thread split changes bits. The rare inputs VML hands to its scalar
 * fallback are redone in a second pass that rereads x: out must not overlap x.
 * aarch64 (no MKL): vml.h IMPLEMENT_VML, i.e. vec::map over Vectorized<float>, the partial last
 * vector loaded, computed and stored as a vector too, so every element takes the vector lane:
 * SLEEF Sleef_expf4_u10 / logf4_u10 / tanhf4_u10 (advsimd; SVE128 runs the NEON Vectorized) and
 * Sleef_expfx_u10sve / logfx_u10sve on SVE256 -- one algorithm, the same bits as the x86 FMA
 * builds (sleef_*_u10). SVE256's Vectorized<float>::tanh is ATen's own (aten_sve_tanhf). */
void exp_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (p.aten >= ATEN_NEON) {
        for (int64_t i = 0; i < n; i++) out[i] = sleef_expf_u10(x[i]);
        return;
    }
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_expf_main(x[i]); /* branch-free, vectorized */
    for (int64_t i = 0; i < n; i++)
        if (mkl_vml_expf_rare(x[i])) out[i] = mkl_vml_expf(x[i]);
}

/* vsLn: the branch-free main path over all elements, then the rare positive subnormals. */
void log_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (p.aten >= ATEN_NEON) {
        for (int64_t i = 0; i < n; i++) out[i] = sleef_logf_u10(x[i]);
        return;
    }
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_logf_normal(x[i]);
    for (int64_t i = 0; i < n; i++)
        if (mkl_vml_logf_subnormal(x[i])) out[i] = mkl_vml_logf(x[i]);
}

void tanh_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (p.aten == ATEN_SVE && p.lanes == 8) for (int64_t i = 0; i < n; i++) out[i] = aten_sve_tanhf(x[i]);
    else if (p.aten >= ATEN_NEON) for (int64_t i = 0; i < n; i++) out[i] = sleef_tanhf_u10(x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_tanhf(x[i]);
}

/* exp backward (derivatives.yaml: grad * result): the mul kernel, one rounding. */
void exp_backward(profile_t p, const float *grad, const float *out, float *grad_x, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) grad_x[i] = grad[i] * out[i];
}

/* log backward (grad.div(self)): the div kernel, one rounding. */
void log_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) grad_x[i] = grad[i] / x[i];
}

/* tanh backward: BinaryOpsKernel tanh_backward_kernel, a * (1 - b*b) with a = grad, b = result.
 * GCC contracted 1 - b*b into one FMA in the AVX2/AVX-512 and aarch64 objects (the NEON
 * Vectorized operators are GCC vector arithmetic, so the vector body is contracted too); the
 * default x86 objects round b*b first. SVE256's Vectorized operators are ACLE intrinsics
 * (svmul_x, svsub_x), which GCC does not contract: its vector body rounds b*b, its scalar tail
 * is contracted. */
static float tanh_bwd_lane(const profile_t *p, float a, float b) {
    return a * (p->contract ? fmaf(-b, b, 1.0f) : 1.0f - b * b);
}

static float tanh_bwd_lane_unfused(const profile_t *p, float a, float b) {
    (void)p;
    return a * (1.0f - b * b);
}

void tanh_backward(profile_t p, const float *grad, const float *out, float *grad_x, int64_t n) {
    if (p.aten == ATEN_SVE && p.lanes == 8)
        run_binary(&p, p.lanes, GRAIN_SIZE, tanh_bwd_lane_unfused, tanh_bwd_lane, grad, out, grad_x, n);
    else run_binary(&p, p.lanes, GRAIN_SIZE, tanh_bwd_lane, tanh_bwd_lane, grad, out, grad_x, n);
}

/* ------------------------------------------------------------------ rsqrt */

/* rsqrt_kernel: 1 / sqrt(x) in vector body (Vectorized::rsqrt = div(1, sqrt)) and scalar tail. */
void rsqrt_forward(profile_t p, const float *x, float *out, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) out[i] = 1.0f / sqrtf(x[i]);
}

/* rsqrt backward (derivatives.yaml: -0.5 * grad * result.pow(3)): t = grad * -0.5 (mul by a
 * scalar), c = (r*r)*r (pow_tensor_scalar with exponent 3), grad_x = t * c. */
void rsqrt_backward(profile_t p, const float *grad, const float *out, float *grad_x, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) {
        float r = out[i];
        grad_x[i] = (grad[i] * -0.5f) * ((r * r) * r);
    }
}

/* ------------------------------------------------------------------ gelu (erf): oneDNN */

/* F.gelu(x) (approximate='none') on contiguous float32 runs oneDNN's eltwise gelu_erf
 * (aten Activation.cpp use_mkldnn). Its JIT kernel (jit_uni_eltwise_injector) on SSE4.1/AVX2
 * uses Abramowitz-Stegun 7.1.26 with its own exp; uni_vfmadd* are FMAs on AVX2 and up and
 * multiply-then-add below (the baseline profile pins ONEDNN_MAX_CPU_ISA=SSE41). On AVX-512 the
 * forward switches to a piecewise minimax polynomial (dnnl_gelu_fwd_minimax); the backward does not. */
static inline float dnnl_fma(int fma, float a, float b, float c) {
    return fma ? fmaf(a, b, c) : a * b + c;
}

/* oneDNN exp_compute_vector_fwd: n = floor(x*log2e + 0.5), r = x - n*ln2, degree-5 polynomial,
 * times 2^(n-1) times 2; inputs below ln(FLT_MIN) give 0. */
static inline float dnnl_expf(int fma, float x) {
    const float ln_flt_min = vm_u2f(0xc2aeac50), ln_flt_max = vm_u2f(0x42b17218);
    const float ln2 = vm_u2f(0x3f317218), log2e = vm_u2f(0x3fb8aa3b);
    int under = x < ln_flt_min;
    x = vm_self(x < ln_flt_max, x, ln_flt_max); /* vminps/vmaxps: a NaN x gives the bound */
    x = vm_self(x > ln_flt_min, x, ln_flt_min);
    float v = x * log2e + 0.5f, fx = rintf(v);
    fx = vm_self(fx > v, fx - 1.0f, fx); /* floorf(v), exactly (GCC vectorizes rintf, not floorf) */
    float r = fma ? fmaf(-fx, ln2, x) : x - fx * ln2;
    int32_t n = (int32_t)(fx - 1.0f);
    float scale = vm_u2f(((uint32_t)(n + 127) << 23) & ~-(uint32_t)under);
    float y = vm_u2f(0x3c07cfce);
    y = dnnl_fma(fma, y, r, vm_u2f(0x3d2b9d0d));
    y = dnnl_fma(fma, y, r, vm_u2f(0x3e2aad40));
    y = dnnl_fma(fma, y, r, vm_u2f(0x3efffee3));
    y = dnnl_fma(fma, y, r, vm_u2f(0x3f7ffffb));
    y = dnnl_fma(fma, y, r, 1.0f);
    return (y * scale) * 2.0f;
}

/* aarch64 with SVE (V1, V2): oneDNN v3.12's "jit:sve" eltwise, exp_compute_vector_fwd<sve>: x clamped to [ln FLT_MIN, ln FLT_MAX], t = x*log2e, f = floor(t),
 * u = (t - f) + 1 in [1, 2); 2^(top 6 fraction bits of u / 64) by FEXPA (on bits(u) >> 17), scaled by
 * 2^f (FSCALE); d = u minus its top 17 bits, exact; result 2^(..) * fma(fma(c2, d, c1), d, 1). */
static inline float dnnl_sve_expf(float x) {
    x = fminf(x, vm_u2f(0x42b17218));
    x = fmaxf(x, vm_u2f(0xc2aeac50));
    float t = x * vm_u2f(0x3fb8aa3b);
    float f = floorf(t);
    float u = (t - f) + 1.0f;
    float scale = ldexpf(sve_fexpa(vm_u2f(vm_f2u(u) >> 17)), (int)f);
    float d = u - vm_u2f(vm_f2u(u) & ~((1u << 17) - 1));
    float q = fmaf(vm_u2f(0x3e772df2), d, vm_u2f(0x3f31721c));
    q = fmaf(q, d, 1.0f);
    return scale * q;
}

#define DNNL_AS_P vm_u2f(0x3ea7ba05)         /* 0.3275911 */
#define DNNL_INV_SQRT2 vm_u2f(0x3f3504f3)    /* 1/sqrt(2) */
#define DNNL_INV_SQRTPI vm_u2f(0x3f106eba)   /* 1/sqrt(pi) */

/* erf(x) = sign(x) * (1 - r(t) t exp(-x^2)), t = 1/(1 + p|x|): q = -exp(-x^2) * t first. */
static inline float dnnl_erf_tail(int fma, float x, float q_neg) {
    float t = 1.0f / dnnl_fma(fma, DNNL_AS_P, fabsf(x), 1.0f);
    float q = q_neg * t;
    float r = vm_u2f(0x3f87dc22);
    r = dnnl_fma(fma, r, t, vm_u2f(0xbfba00e3));
    r = dnnl_fma(fma, r, t, vm_u2f(0x3fb5f0e3));
    r = dnnl_fma(fma, r, t, vm_u2f(0xbe91a98e));
    r = dnnl_fma(fma, r, t, vm_u2f(0x3e827906));
    float erf = dnnl_fma(fma, q, r, 1.0f);
    return vm_xorsign(erf, x);
}

/* AVX-512 (oneDNN avx512_core) forward: gelu_erf_minimax_approx_compute_vector_fwd, piecewise
 * degree-5 minimax polynomials of erf(s/sqrt2) in |s|, indexed by |s|'s bits. Coefficients from
 * oneDNN v3.12's table (degree-major, 32 slots each). Written from the source, not measured. */
static const uint32_t dnnl_gelu_minimax[6][32] = {
    {0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229, 0x37b8a3bb,
     0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b, 0x3c515ed3, 0xbb503236,
     0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced, 0x3f470d99, 0x3f7abb28, 0x3f800000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f, 0x3f4c2d40,
     0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07, 0x3f3b980f, 0x3f48dff3,
     0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e, 0x3e6c8684, 0x3c98f936, 0x00000000,
     0x3f800000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb, 0x3af9b960,
     0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660, 0x3e0f27ab, 0x3d94004b,
     0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8, 0xbdc4f8a8, 0xbbde6422, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0, 0xbe0e400a,
     0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f, 0xbe96cbca, 0xbe8044aa,
     0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91, 0x3ca46568, 0x3aa1e00a, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527, 0x3c221712,
     0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910, 0x3dd53f69, 0x3db7dcef,
     0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab, 0xbb097a32, 0xb8ebf380, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
    {0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623, 0x3c4c824b,
     0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366, 0xbc492c9e, 0xbc2a7aa6,
     0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792, 0x38b84375, 0x3689bb5a, 0x00000000,
     0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000},
};

static inline float dnnl_gelu_fwd_minimax(float s) {
    float a = fabsf(s);
    int32_t idx = (int32_t)(vm_f2u(a) + 0xc21fffffu) >> 21;
    idx = idx < 1 ? 1 : idx > 24 ? 24 : idx;
    uint32_t far = -(uint32_t)(vm_u2f(0x40b15cee) < a);
    idx = (int32_t)(((uint32_t)idx & ~far) | (23u & far));
    float pol = vm_u2f(dnnl_gelu_minimax[5][idx]);
    pol = fmaf(pol, a, vm_u2f(dnnl_gelu_minimax[4][idx]));
    pol = fmaf(pol, a, vm_u2f(dnnl_gelu_minimax[3][idx]));
    pol = fmaf(pol, a, vm_u2f(dnnl_gelu_minimax[2][idx]));
    pol = fmaf(pol, a, vm_u2f(dnnl_gelu_minimax[1][idx]));
    pol = fmaf(pol, a, vm_u2f(dnnl_gelu_minimax[0][idx]));
    pol = vm_xorsign(pol, s);
    return (s * (pol + 1.0f)) * 0.5f;
}

/* gelu_erf_compute_vector_fwd: S = s/2, gelu = erf*S + S. sve: oneDNN's jit:sve (below 512-bit
 * vectors), the same formula with FMAs and its FEXPA exp. */
static inline __attribute__((always_inline)) float dnnl_gelu_fwd_k(int fma, int sve, float s) {
    float x = s * DNNL_INV_SQRT2;
    float e = sve ? dnnl_sve_expf(-(x * x)) : dnnl_expf(fma, -(x * x));
    float erf = dnnl_erf_tail(fma, x, -e);
    float half_s = s * 0.5f;
    return dnnl_fma(fma, erf, half_s, half_s);
}

static inline float dnnl_gelu_fwd(int fma, float s) { return dnnl_gelu_fwd_k(fma, 0, s); }

/* gelu_erf_compute_vector_bwd: (R/sqrt(pi)) * exp(-R^2) + 0.5 + 0.5*erf(R), R = s/sqrt(2);
 * sve: the last step fused, fma(erf, 0.5, T + 0.5). */
static inline __attribute__((always_inline)) float dnnl_gelu_bwd_k(int fma, int sve, float s) {
    float x = s * DNNL_INV_SQRT2;
    float q = sve ? dnnl_sve_expf(-(x * x)) : dnnl_expf(fma, -(x * x));
    float t = (x * DNNL_INV_SQRTPI) * q;
    float erf = dnnl_erf_tail(fma, x, -q);
    return sve ? fmaf(erf, 0.5f, t + 0.5f) : (t + 0.5f) + erf * 0.5f;
}

static inline float dnnl_gelu_bwd(int fma, float s) { return dnnl_gelu_bwd_k(fma, 0, s); }

/* A one-element tensor skips oneDNN (use_mkldnn wants numel > 1) and takes ATen's GeluKernel,
 * whose lone element goes through the scalar lambda: x * 0.5 * (1 + std::erf(x * M_SQRT1_2)). */
#define GELU_ALPHA ((float)0.70710678118654752440)
#define GELU_ERF_BETA ((float)(1.12837916709551257390 * 0.70710678118654752440 * 0.5))

static float aten_gelu_scalar(float x) { return (x * 0.5f) * (1.0f + glibc_erff(x * GELU_ALPHA)); }

/* GeluBackwardKernelImpl scalar lambda: dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x/sqrt2)),
 * pdf = kBeta * exp(x*x*-0.5); GCC fused cdf's multiply into the sum in AVX2/AVX-512 objects. */
static float aten_gelu_bwd_scalar(const profile_t *p, float dy, float x) {
    float pdf = GELU_ERF_BETA * glibc_expf((x * x) * -0.5f);
    return dy * sfmadd(p, 0.5f, 1.0f + glibc_erff(x * GELU_ALPHA), x * pdf);
}

/* Tensor shapes: x, out (n,). */
void gelu_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (n == 1) {
        out[0] = aten_gelu_scalar(x[0]);
        return;
    }
    /* one loop per ISA (literal fma flag): each inlines to branch-free, vectorizable code */
    if (p.aten == ATEN_SVE) for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd_k(1, 1, x[i]);
    else if (p.aten == 2) for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd_minimax(x[i]);
    else if (p.aten) for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd(1, x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd(0, x[i]);
}

/* eltwise backward: diff_src = derivative(src) * diff_dst. Shapes: grad, x, grad_x (n,). */
void gelu_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n) {
    if (n == 1) {
        grad_x[0] = aten_gelu_bwd_scalar(&p, grad[0], x[0]);
        return;
    }
    if (p.aten == ATEN_SVE) for (int64_t i = 0; i < n; i++) grad_x[i] = dnnl_gelu_bwd_k(1, 1, x[i]) * grad[i];
    else if (p.aten) for (int64_t i = 0; i < n; i++) grad_x[i] = dnnl_gelu_bwd(1, x[i]) * grad[i];
    else for (int64_t i = 0; i < n; i++) grad_x[i] = dnnl_gelu_bwd(0, x[i]) * grad[i];
}

/* ------------------------------------------------------------------ gelu (tanh): ATen GeluKernel */

/* float(M_SQRT2 * M_2_SQRTPI * 0.5), the product taken in double as in ATen */
#define GELU_BETA ((float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5))
#define GELU_KAPPA 0.044715f

/* inner = kBeta * (x + kKappa * x^3): contracted (c) to fma(kKappa, x^3, x) in AVX2/AVX-512 objects.
 * The lanes take the contraction as a plain int so that each kernel loop, instantiated with a
 * literal, is branch-free (GCC keeps `c ? fmaf(..) : ..` on a loaded flag as a branch). */
VM_INLINE float gelu_tanh_inner(int c, float x) {
    float x_cube = (x * x) * x;
    return GELU_BETA * (c ? fmaf(GELU_KAPPA, x_cube, x) : GELU_KAPPA * x_cube + x);
}

/* Activation.cpp GeluKernelImpl (Gelu.h vectorized/scalar_gelu_approximated_with_tanh):
 * 0.5 * x * (1 + tanh(inner)), ((0.5*x) * (1 + t)); vector lane with Vectorized tanh (SLEEF on
 * avx2/avx512), scalar tail with std::tanh (glibc). */
VM_INLINE float gelu_tanh_fwd_sleef(int c, float x) {
    return (0.5f * x) * (1.0f + sleef_tanhf_u10(gelu_tanh_inner(c, x)));
}

static float gelu_tanh_fwd_vec(const profile_t *p, float x) { return gelu_tanh_fwd_sleef(p->contract, x); }
static float gelu_tanh_fwd_vec_fused(const profile_t *p, float x) { (void)p; return gelu_tanh_fwd_sleef(1, x); }

/* std::tanh: glibc's tanhf, aarch64's with its contracted expm1f. */
static inline float libm_tanhf(const profile_t *p, float x) {
    return p->aten >= ATEN_NEON ? glibc_tanhf_a64(x) : glibc_tanhf(x);
}

static float gelu_tanh_fwd_scalar(const profile_t *p, float x) {
    return (0.5f * x) * (1.0f + libm_tanhf(p, gelu_tanh_inner(p->contract, x)));
}

/* GeluBackwardKernelImpl (tanh): dy * (0.5*(1+t) + (0.5*x) * (1 - t*t) * kBeta*(1 + 3*kKappa*x^2)). */
VM_INLINE float gelu_tanh_bwd_common(int c, float dy, float x, float t) {
    float x_sq = x * x;
    float left = 0.5f * x;
    float right = 1.0f + t;
    float left_derivative = 0.5f * right;
    float tanh_derivative = c ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    float inner_derivative = GELU_BETA * (c ? fmaf(3.0f * GELU_KAPPA, x_sq, 1.0f) : 3.0f * GELU_KAPPA * x_sq + 1.0f);
    float right_derivative = (left * tanh_derivative) * inner_derivative;
    return dy * (left_derivative + right_derivative);
}

VM_INLINE float gelu_tanh_bwd_sleef(int c, float dy, float x) {
    return gelu_tanh_bwd_common(c, dy, x, sleef_tanhf_u10(gelu_tanh_inner(c, x)));
}

static float gelu_tanh_bwd_vec(const profile_t *p, float dy, float x) { return gelu_tanh_bwd_sleef(p->contract, dy, x); }
static float gelu_tanh_bwd_vec_fused(const profile_t *p, float dy, float x) {
    (void)p;
    return gelu_tanh_bwd_sleef(1, dy, x);
}

/* SVE256's vector lane: ATen's own Vectorized tanh (aten_sve_tanhf) and ACLE operators GCC does
 * not contract. */
static float gelu_tanh_bwd_vec_sve256(const profile_t *p, float dy, float x) {
    (void)p;
    return gelu_tanh_bwd_common(0, dy, x, aten_sve_tanhf(gelu_tanh_inner(0, x)));
}

static float gelu_tanh_bwd_scalar(const profile_t *p, float dy, float x) {
    return gelu_tanh_bwd_common(p->contract, dy, x, libm_tanhf(p, gelu_tanh_inner(p->contract, x)));
}

/* GeluKernelImpl's grain: numel / threads above 16384 elements, else GRAIN_SIZE. */
static int64_t gelu_grain(const profile_t *p, int64_t n) { return n > 16384 ? n / p->threads : GRAIN_SIZE; }

/* aarch64 without SVE (N1): F.gelu(approximate='tanh') is oneDNN v3.12's eltwise gelu_tanh, JIT for
 * asimd (verbose: "eltwise,jit:asimd"); its backward stays ATen's. jit_uni_eltwise_injector_t<asimd>:
 * exp_compute_vector_fwd (Arm optimized-routines' expf): n = round-half-away(x/ln2), r = x + n*(-ln2_hi)
 * + n*(-ln2_lo) (two fmla), p = c1 + c0 r, q = c3 + c2 r, q += p r^2, poly = c4 r + q r^2 (fused),
 * result fma(poly, 2^n, 2^n); |n| > 126 (a whole vector, the same bits per lane) takes 2^n as
 * s1*s2: r0 = fma(poly, s2, s2) * s1, or s1*s1 for |n| > 192. */
static inline float dnnl_asimd_expf(float x) {
    float z = x * vm_u2f(0x3fb8aa3b);
    float n = roundf(z);
    int32_t ni = (int32_t)fmaxf(fminf(n, 1e9f), -1e9f);
    uint32_t e = (uint32_t)ni << 23;
    float r = fmaf(n, vm_u2f(0xbf317200), x);
    r = fmaf(n, vm_u2f(0xb5bfbe8e), r);
    float p = fmaf(vm_u2f(0x3c072010), r, vm_u2f(0x3d2b9f17));
    float q = fmaf(vm_u2f(0x3e2aaf33), r, vm_u2f(0x3efffedb));
    float r2 = r * r;
    q = fmaf(p, r2, q);
    float poly = fmaf(q, r2, vm_u2f(0x3f7ffff6) * r);
    if (fabsf(n) <= 126.0f) {
        float scale = vm_u2f(e + 0x3f800000u);
        return fmaf(poly, scale, scale);
    }
    uint32_t b = n <= 0.0f ? 0x82000000u : 0u;
    float s2 = vm_u2f(e - b), s1 = vm_u2f(b + 0x7f000000u);
    if (fabsf(n) > 192.0f) return s1 * s1;
    return fmaf(poly, s2, s2) * s1;
}

/* tanh_compute_vector_fwd<asimd>: |g| <= 0x3d4ccccd (0.05): g * fma(-1/3, g*g, 1); else
 * 1 - 2/(1 + exp(2g)). */
static inline float dnnl_asimd_tanhf(float g) {
    if (fabsf(g) <= vm_u2f(0x3d4ccccd)) return g * fmaf(vm_u2f(0xbeaaaaab), g * g, 1.0f);
    return 1.0f - 2.0f / (dnnl_asimd_expf(g + g) + 1.0f);
}

/* gelu_tanh_compute_vector_fwd<asimd>: G = fma(0.044715, x*x, 1) * (x * sqrt(2/pi)),
 * out = fma(tanh(G), x, x) * 0.5. */
static inline float dnnl_asimd_gelu_tanh_fwd(float x) {
    float g = fmaf(vm_u2f(0x3d372713), x * x, 1.0f) * (x * vm_u2f(0x3f4c422a));
    return fmaf(dnnl_asimd_tanhf(g), x, x) * 0.5f;
}

/* aarch64 with SVE (V1, V2): oneDNN v3.12's "jit:sve" eltwise (vector-length agnostic); its exp is
 * dnnl_sve_expf (gelu, erf section). */
/* tanh_compute_vector_fwd<sve> below 512-bit vectors: |g| < 0x3d4ccccd (an integer compare of the
 * bits, strict): g * fma(g*g, -1/3, 1); else 1 - 2/(exp(2g) + 1). */
static inline float dnnl_sve_tanhf(float g) {
    if ((vm_f2u(g) & 0x7fffffffu) < 0x3d4ccccdu) return fmaf(g * g, vm_u2f(0xbeaaaaab), 1.0f) * g;
    return 1.0f - 2.0f / (dnnl_sve_expf(g + g) + 1.0f);
}

/* gelu_tanh_compute_vector_fwd<sve>: G = fma(x*x, 0.044715, 1) * (x * sqrt(2/pi)),
 * out = fma(tanh(G), x, x) * 0.5. */
static inline float dnnl_sve_gelu_tanh_fwd(float x) {
    float g = fmaf(x * x, vm_u2f(0x3d372713), 1.0f) * (x * vm_u2f(0x3f4c422a));
    return fmaf(dnnl_sve_tanhf(g), x, x) * 0.5f;
}

/* Tensor shapes: x, out (n,). Vector lanes: SLEEF tanh on avx2/avx512; the default capability's
 * emulated Vectorized calls std::tanh per lane, i.e. the scalar lambda's arithmetic. */
void gelu_tanh_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (p.aten == ATEN_NEON && n > 1) { /* one element: ATen (use_mkldnn wants numel > 1) */
        for (int64_t i = 0; i < n; i++) out[i] = dnnl_asimd_gelu_tanh_fwd(x[i]);
        return;
    }
    if (p.aten == ATEN_SVE && n > 1) {
        for (int64_t i = 0; i < n; i++) out[i] = dnnl_sve_gelu_tanh_fwd(x[i]);
        return;
    }
    if (p.aten && p.contract) run_unary(&p, p.lanes_wide, gelu_grain(&p, n), gelu_tanh_fwd_vec_fused, gelu_tanh_fwd_scalar, x, out, n);
    else if (p.aten) run_unary(&p, p.lanes_wide, gelu_grain(&p, n), gelu_tanh_fwd_vec, gelu_tanh_fwd_scalar, x, out, n);
    else run_unary(&p, p.lanes_wide, gelu_grain(&p, n), gelu_tanh_fwd_scalar, gelu_tanh_fwd_scalar, x, out, n);
}

/* Tensor shapes: grad, x, grad_x (n,). GeluBackwardKernelImpl uses the default grain. */
void gelu_tanh_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n) {
    if (p.aten == ATEN_SVE && p.lanes == 8) {
        run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec_sve256, gelu_tanh_bwd_scalar, grad, x, grad_x, n);
        return;
    }
    if (p.aten && p.contract) run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec_fused, gelu_tanh_bwd_scalar, grad, x, grad_x, n);
    else if (p.aten) run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec, gelu_tanh_bwd_scalar, grad, x, grad_x, n);
    else run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_scalar, gelu_tanh_bwd_scalar, grad, x, grad_x, n);
}
