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

/* One chunk of cpu/Loops.h vectorized_loop: blocks of 2*lanes through vec, the tail through scal. */
static void loop_chunk(const profile_t *p, int64_t lanes, unary_fn vec, unary_fn scal, const float *x, float *y,
                       int64_t b, int64_t e) {
    int64_t i = b;
    int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes);
    for (; i < body; i++) y[i] = vec(p, x[i]);
    for (; i < e; i++) y[i] = scal(p, x[i]);
}

static void loop_chunk2(const profile_t *p, int64_t lanes, binary_fn vec, binary_fn scal, const float *a,
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

static void run_unary(const profile_t *p, int64_t grain, unary_fn vec, unary_fn scal, const float *x, float *y,
                      int64_t n) {
    int64_t nt = for_each_threads(p, n, grain);
    for (int64_t tid = 0; tid < nt; tid++) {
        int64_t b = 0, e = n;
        if (nt > 1 && !parallel_chunk(0, n, grain, nt, tid, &b, &e)) continue;
        loop_chunk(p, p->lanes, vec, scal, x, y, b, e);
    }
}

static void run_binary(const profile_t *p, int64_t grain, binary_fn vec, binary_fn scal, const float *a,
                       const float *c, float *y, int64_t n) {
    int64_t nt = for_each_threads(p, n, grain);
    for (int64_t tid = 0; tid < nt; tid++) {
        int64_t b = 0, e = n;
        if (nt > 1 && !parallel_chunk(0, n, grain, nt, tid, &b, &e)) continue;
        loop_chunk2(p, p->lanes, vec, scal, a, c, y, b, e);
    }
}

/* ------------------------------------------------------------------ exp, log, tanh (MKL VML) */

/* torch.exp/log/tanh forward run MKL VML (vsExp/vsLn/vsTanh, VML_HA) under every capability
 * (aten vml.h IMPLEMENT_VML_MKL, UnaryOpsKernel IMPLEMENT_FLOAT_KERNEL): elementwise, so neither
 * the profile nor the thread split changes bits. */
void exp_forward(profile_t p, const float *x, float *out, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_expf(x[i]);
}

void log_forward(profile_t p, const float *x, float *out, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) out[i] = (float)log((double)x[i]);
}

void tanh_forward(profile_t p, const float *x, float *out, int64_t n) {
    (void)p;
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_tanhf(x[i]);
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
 * GCC contracted 1 - b*b into one FMA in the AVX2/AVX-512 objects (vector body and scalar
 * tail alike); the default objects round b*b first. */
static float tanh_bwd_lane(const profile_t *p, float a, float b) {
    return a * (p->contract ? fmaf(-b, b, 1.0f) : 1.0f - b * b);
}

void tanh_backward(profile_t p, const float *grad, const float *out, float *grad_x, int64_t n) {
    run_binary(&p, GRAIN_SIZE, tanh_bwd_lane, tanh_bwd_lane, grad, out, grad_x, n);
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
 * multiply-then-add below (the baseline profile pins ONEDNN_MAX_CPU_ISA=SSE41). */
static inline float dnnl_fma(const profile_t *p, float a, float b, float c) {
    return p->aten ? fmaf(a, b, c) : a * b + c;
}

/* oneDNN exp_compute_vector_fwd: n = floor(x*log2e + 0.5), r = x - n*ln2, degree-5 polynomial,
 * times 2^(n-1) times 2; inputs below ln(FLT_MIN) give 0. */
static float dnnl_expf(const profile_t *p, float x) {
    const float ln_flt_min = vm_u2f(0xc2aeac50), ln_flt_max = vm_u2f(0x42b17218);
    const float ln2 = vm_u2f(0x3f317218), log2e = vm_u2f(0x3fb8aa3b);
    int under = x < ln_flt_min;
    x = fminf(x, ln_flt_max);
    x = fmaxf(x, ln_flt_min);
    float fx = floorf(x * log2e + 0.5f);
    float r = p->aten ? fmaf(-fx, ln2, x) : x - fx * ln2;
    int32_t n = (int32_t)(fx - 1.0f);
    float scale = under ? 0.0f : vm_u2f((uint32_t)(n + 127) << 23);
    float y = vm_u2f(0x3c07cfce);
    y = dnnl_fma(p, y, r, vm_u2f(0x3d2b9d0d));
    y = dnnl_fma(p, y, r, vm_u2f(0x3e2aad40));
    y = dnnl_fma(p, y, r, vm_u2f(0x3efffee3));
    y = dnnl_fma(p, y, r, vm_u2f(0x3f7ffffb));
    y = dnnl_fma(p, y, r, 1.0f);
    return (y * scale) * 2.0f;
}

#define DNNL_AS_P vm_u2f(0x3ea7ba05)         /* 0.3275911 */
#define DNNL_INV_SQRT2 vm_u2f(0x3f3504f3)    /* 1/sqrt(2) */
#define DNNL_INV_SQRTPI vm_u2f(0x3f106eba)   /* 1/sqrt(pi) */

/* erf(x) = sign(x) * (1 - r(t) t exp(-x^2)), t = 1/(1 + p|x|): q = -exp(-x^2) * t first. */
static float dnnl_erf_tail(const profile_t *p, float x, float q_neg) {
    float t = 1.0f / dnnl_fma(p, DNNL_AS_P, fabsf(x), 1.0f);
    float q = q_neg * t;
    float r = vm_u2f(0x3f87dc22);
    r = dnnl_fma(p, r, t, vm_u2f(0xbfba00e3));
    r = dnnl_fma(p, r, t, vm_u2f(0x3fb5f0e3));
    r = dnnl_fma(p, r, t, vm_u2f(0xbe91a98e));
    r = dnnl_fma(p, r, t, vm_u2f(0x3e827906));
    float erf = dnnl_fma(p, q, r, 1.0f);
    return signbit(x) ? -erf : erf;
}

/* gelu_erf_compute_vector_fwd: S = s/2, gelu = erf*S + S. */
static float dnnl_gelu_fwd(const profile_t *p, float s) {
    float x = s * DNNL_INV_SQRT2;
    float erf = dnnl_erf_tail(p, x, -dnnl_expf(p, -(x * x)));
    float half_s = s * 0.5f;
    return dnnl_fma(p, erf, half_s, half_s);
}

/* gelu_erf_compute_vector_bwd: (R/sqrt(pi)) * exp(-R^2) + 0.5 + 0.5*erf(R), R = s/sqrt(2). */
static float dnnl_gelu_bwd(const profile_t *p, float s) {
    float x = s * DNNL_INV_SQRT2;
    float q = dnnl_expf(p, -(x * x));
    float t = (x * DNNL_INV_SQRTPI) * q;
    float erf = dnnl_erf_tail(p, x, -q);
    return (t + 0.5f) + erf * 0.5f;
}

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
    for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd(&p, x[i]);
}

/* eltwise backward: diff_src = derivative(src) * diff_dst. Shapes: grad, x, grad_x (n,). */
void gelu_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n) {
    if (n == 1) {
        grad_x[0] = aten_gelu_bwd_scalar(&p, grad[0], x[0]);
        return;
    }
    for (int64_t i = 0; i < n; i++) grad_x[i] = dnnl_gelu_bwd(&p, x[i]) * grad[i];
}

/* ------------------------------------------------------------------ gelu (tanh): ATen GeluKernel */

/* float(M_SQRT2 * M_2_SQRTPI * 0.5), the product taken in double as in ATen */
#define GELU_BETA ((float)(1.41421356237309504880 * 1.12837916709551257390 * 0.5))
#define GELU_KAPPA 0.044715f

/* inner = kBeta * (x + kKappa * x^3): contracted to fma(kKappa, x^3, x) in AVX2/AVX-512 objects. */
static inline float gelu_tanh_inner(const profile_t *p, float x) {
    float x_cube = (x * x) * x;
    return GELU_BETA * sfmadd(p, GELU_KAPPA, x_cube, x);
}

/* Activation.cpp GeluKernelImpl (Gelu.h vectorized/scalar_gelu_approximated_with_tanh):
 * 0.5 * x * (1 + tanh(inner)), ((0.5*x) * (1 + t)); vector lane with Vectorized tanh,
 * scalar tail with std::tanh. */
static float gelu_tanh_fwd_vec(const profile_t *p, float x) {
    return (0.5f * x) * (1.0f + vec_tanhf(p, gelu_tanh_inner(p, x)));
}

static float gelu_tanh_fwd_scalar(const profile_t *p, float x) {
    return (0.5f * x) * (1.0f + glibc_tanhf(gelu_tanh_inner(p, x)));
}

/* GeluBackwardKernelImpl (tanh): dy * (0.5*(1+t) + (0.5*x) * (1 - t*t) * kBeta*(1 + 3*kKappa*x^2)). */
static float gelu_tanh_bwd_common(const profile_t *p, float dy, float x, float t) {
    float x_sq = x * x;
    float left = 0.5f * x;
    float right = 1.0f + t;
    float left_derivative = 0.5f * right;
    float tanh_derivative = p->contract ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    float inner_derivative = GELU_BETA * sfmadd(p, 3.0f * GELU_KAPPA, x_sq, 1.0f);
    float right_derivative = (left * tanh_derivative) * inner_derivative;
    return dy * (left_derivative + right_derivative);
}

static float gelu_tanh_bwd_vec(const profile_t *p, float dy, float x) {
    return gelu_tanh_bwd_common(p, dy, x, vec_tanhf(p, gelu_tanh_inner(p, x)));
}

static float gelu_tanh_bwd_scalar(const profile_t *p, float dy, float x) {
    return gelu_tanh_bwd_common(p, dy, x, glibc_tanhf(gelu_tanh_inner(p, x)));
}

/* GeluKernelImpl's grain: numel / threads above 16384 elements, else GRAIN_SIZE. */
static int64_t gelu_grain(const profile_t *p, int64_t n) { return n > 16384 ? n / p->threads : GRAIN_SIZE; }

/* Tensor shapes: x, out (n,). */
void gelu_tanh_forward(profile_t p, const float *x, float *out, int64_t n) {
    run_unary(&p, gelu_grain(&p, n), gelu_tanh_fwd_vec, gelu_tanh_fwd_scalar, x, out, n);
}

/* Tensor shapes: grad, x, grad_x (n,). GeluBackwardKernelImpl uses the default grain. */
void gelu_tanh_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n) {
    run_binary(&p, GRAIN_SIZE, gelu_tanh_bwd_vec, gelu_tanh_bwd_scalar, grad, x, grad_x, n);
}
