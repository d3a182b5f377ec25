/* torch.optim's Adam, AdamW and SGD steps on CPU, as the ATen kernels they launch.
 *
 * The for-loop path (torch/optim/adam.py _single_tensor_adam, sgd.py _single_tensor_sgd) and the
 * foreach path (_multi_tensor_adam, _multi_tensor_sgd) give the same bits on CPU: every _foreach_*
 * op there is ForeachOpsKernels.cpp's slow path, a loop calling the per-tensor op (t.lerp_,
 * t.mul_, t.addcmul_, at::sqrt, t.div_, t.add_, t.addcdiv_, at::maximum, at::neg) with the same
 * scalars. Each such op is a TensorIterator loop (cpu/Loops.h vectorized_loop): the numel is split
 * between threads by at::parallel_for (GRAIN_SIZE), every chunk runs blocks of 2 * lanes through
 * the Vectorized lambda and its remainder through the scalar lambda. All kernels of one step see
 * the same numel, so one element takes the same (vector or scalar) path in every kernel and the
 * kernels can be applied element by element in one pass.
 *
 * The fused path (_fused_adam_, _fused_adamw_, _fused_sgd_: cpu/FusedAdamKernel.cpp,
 * cpu/FusedSGDKernel.cpp) is one loop per parameter: the numel cut into 64-byte units (16 floats)
 * spread over all threads (at::parallel_for with grain 0), each chunk one Vectorized body of
 * 1 * lanes and a scalar tail, float arithmetic throughout (opmath of float is float) and IEEE sqrt.
 *
 * Shapes: every array is (n,) contiguous float32; max_exp_avg_sq and momentum_buf may be NULL when
 * unused. */
#include "common.h"

/* The scalars of one Adam step, each already cast to float as ATen casts the Python double. */
typedef struct {
    int32_t decay;      /* 0 none, 1 decoupled (AdamW: param *= decay_factor), 2 L2 (Adam: grad += wd*param) */
    int32_t amsgrad;    /* max_exp_avg_sq = maximum(max_exp_avg_sq, exp_avg_sq); its sqrt in the denominator */
    int32_t maximize;   /* grad negated first */
    float decay_factor; /* 1 - lr * weight_decay                (param.mul_) */
    float weight_decay; /* weight_decay                         (grad.add(param, alpha=wd)) */
    float lerp_weight;  /* 1 - beta1                            (exp_avg.lerp_) */
    float beta2;        /* beta2                                (exp_avg_sq.mul_) */
    float sq_value;     /* 1 - beta2                            (addcmul_ value) */
    float bc2_sqrt;     /* (1 - beta2 ** step) ** 0.5           (sqrt() / bc2_sqrt) */
    float eps;          /* eps                                  (.add_(eps)) */
    float neg_step;     /* -lr / (1 - beta1 ** step)            (addcdiv_ value) */
} adam_scalars_t;

/* The scalars of one SGD step (float casts of the Python doubles). */
typedef struct {
    int32_t decay;      /* weight_decay != 0 */
    int32_t momentum_on; /* momentum != 0 */
    int32_t first;      /* the momentum buffer is created this step (a copy of the gradient) */
    int32_t nesterov;
    int32_t maximize;
    float weight_decay;
    float momentum;
    float keep;         /* 1 - dampening */
    float neg_lr;       /* -lr */
} sgd_scalars_t;

/* lerp_kernel_scalar_weight (LerpKernel.cpp, Lerp.h): weight < 0.5 -> start + w * (end - start),
 * else end - (end - start) * (1 - w). The Vectorized lambda is fmadd(coeff, end - start, base)
 * (coeff w or w - 1, base start or end): fused on avx2/avx512, a*b+c on default; GCC contracts
 * the scalar lambda the same way in the AVX2 object. */
static inline float lerp_one(const profile_t *p, int vec, float start, float end, float w) {
    float diff = end - start;
    if (fabsf(w) < 0.5f)
        return vec ? vfmadd(p, w, diff, start) : sfmadd(p, w, diff, start);
    return vec ? vfmadd(p, w - 1.0f, diff, end) : sfmadd(p, -diff, 1.0f - w, end);
}

#include "rsqrt_tables.h"

/* rsqrtps(x) for a normal float x as a CPU whose estimate is table tab computes it (rsqrt_tables.h). */
static inline float table_rsqrtps(const uint16_t tab[2][4096], float x) {
    uint32_t b;
    memcpy(&b, &x, 4);
    int32_t e = (int32_t)(b >> 23);
    int32_t par = (e - 126) & 1;
    int32_t out_exp = 127 - par - (e - 126 - par) / 2;
    uint32_t r = ((uint32_t)out_exp << 23) | ((uint32_t)tab[par][(b >> 11) & 0xfffu] << 11);
    float y;
    memcpy(&y, &r, 4);
    return y;
}

/* rsqrtps(x) for a normal float x as the profile's CPU computes it: the AMD or the Intel table, or,
 * under QEMU (the recordings of MKL's Intel paths made under emulation), QEMU's exact estimate: sqrt
 * rounded to float, then 1 / that rounded to float. */
static inline float rsqrtps(const profile_t *p, float x) {
    if (p->rsqrt == RSQRT_EXACT) {
        float s = sqrtf(x);
        return 1.0f / s;
    }
    return table_rsqrtps(p->rsqrt == RSQRT_INTEL ? intel_rsqrt_mant : amd_rsqrt_mant, x);
}

/* VRSQRT14PS's 16-bit estimates (rsqrt_tables.h), its steps summed once as the library loads. */
static uint16_t intel_rsqrt14_mant[2][32768];

__attribute__((constructor)) static void intel_rsqrt14_sum(void) {
    for (int p = 0; p < 2; p++) {
        uint32_t v = intel_rsqrt14_first[p];
        for (int t = 0; t < 32768; t++) {
            v -= (intel_rsqrt14_steps[p][t / 16] >> (2 * (t % 16))) & 3u;
            intel_rsqrt14_mant[p][t] = (uint16_t)v;
        }
    }
}

/* vrsqrt14ps(x) for a finite x > 0 (subnormals too) as the Intel Xeon computes it: the table of the
 * exponent's parity and the top 15 mantissa bits, exact (2^-k) at x = 4^k. */
static inline float intel_rsqrt14(float x) {
    uint32_t b;
    memcpy(&b, &x, 4);
    int32_t e = (int32_t)(b >> 23);
    uint32_t m = b & 0x7fffffu;
    if (e == 0) { /* a subnormal, normalised */
        const int sh = __builtin_clz(m) - 8;
        m = (m << sh) & 0x7fffffu;
        e = 1 - sh;
    }
    const int32_t par = (e - 126) & 1, k = (e - 126 - par) / 2;
    const uint32_t r = par && m == 0 ? (uint32_t)(127 - k) << 23
                                     : ((uint32_t)(127 - par - k) << 23) | ((uint32_t)intel_rsqrt14_mant[par][m >> 8] << 7);
    float y;
    memcpy(&y, &r, 4);
    return y;
}

/* MKL VML's sqrt on its Intel AVX-512 path (mkl_vml_kernel_sSqrt_Z0HAynn, read from its code and
 * measured on the Xeon: 4,194,304 of 4,194,304 strided inputs of every class), for x not below 0:
 * r = vrsqrt14ps(x), h = 0.5*r, s = x*r, y = fma(fma(-s, s, x), h, s); below 2^-78 (r > 2^39) the
 * residual is formed scaled, fma(-s*2^39, s*2^39, x*2^78) times h*2^-78; +-0, +inf and NaN as IEEE
 * sqrt. */
static inline float vml_sqrt_z0(float x) {
    if (!(x > 0.0f) || isinf(x)) return sqrtf(x);
    const float r = intel_rsqrt14(x), h = r * 0.5f, s = x * r;
    if (r > 0x1p39f) {
        const float ss = s * 0x1p39f;
        return fmaf(fmaf(-ss, ss, x * 0x1p78f), h * 0x1p-78f, s);
    }
    return fmaf(fmaf(-s, s, x), h, s);
}

/* torch.sqrt of a float tensor on an MKL build goes through VML (vmsSqrt, VML_HA), whose kernel MKL
 * picks by CPU, never by the ATen capability or MKL_ENABLE_INSTRUCTIONS. From r = rsqrtps(x):
 *   generic path (mkl_vml_kernel_sSqrt_EXHAynn, AMD CPUs; MKL_CBWR=COMPATIBLE too) and Intel SSE4.2
 *   path (sSqrt_H8HAynn): one Newton-Raphson (Goldschmidt) pass and a correction, all separate
 *   multiplies and adds:
 *     s = x*r; h = r*0.5; e = 0.5 - s*h; s = s*e + s; h = h*e + h; y = (x - s*s)*h + s
 *   Intel AVX2 path (sSqrt_L9HAynn): the same steps, each multiply-add fused:
 *     s = x*r; h = r*0.5; e = fma(-s, h, 0.5); s = fma(s, e, s); h = fma(h, e, h); y = fma(fma(-s, s, x), h, s)
 * Zero, denormals, inf/nan and bits >= 0x7f7ff001 take MKL's rare path (IEEE sqrtf here, as measured);
 * negatives give +qNaN there (every path). */
static inline float vml_sqrt(const profile_t *p, float x) {
    if (x < 0.0f) { /* every kernel answers +qNaN for every x < 0 (the rare path's, Z0's fix-up) */
        const uint32_t qnan = 0x7fc00000u;
        memcpy(&x, &qnan, 4);
        return x;
    }
    if (p->blas == BLAS_MKL_AVX512) return vml_sqrt_z0(x);
    uint32_t bits;
    memcpy(&bits, &x, 4);
    if ((int32_t)(bits + 0x7f800000u) > (int32_t)0xfefff000u) return sqrtf(x);
    float r = rsqrtps(p, x);
    float s = x * r;
    float h = r * 0.5f;
    if (p->blas == BLAS_MKL_AVX2) {
        float e = fmaf(-s, h, 0.5f);
        s = fmaf(s, e, s);
        h = fmaf(h, e, h);
        return fmaf(fmaf(-s, s, x), h, s);
    }
    float e = 0.5f - s * h;
    s = s * e + s;
    h = h * e + h;
    return (x - s * s) * h + s;
}

/* torch.sqrt of a float: MKL VML's on x86 (vml_sqrt); on aarch64 (NVPL, no MKL) IEEE, vsqrtq_f32 /
 * svsqrt in the vector body and fsqrt in the tail alike. */
static inline float torch_sqrt(const profile_t *p, float x) {
    return p->blas == BLAS_NVPL ? sqrtf(x) : vml_sqrt(p, x);
}

static inline float qnan_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* maximum_kernel (BinaryOpsKernel.cpp), a NaN-propagating max. Vector lambda: x86 AVX2/AVX-512
 * max_ps OR-ed with the unordered mask (a NaN operand gives all bits set); the default build's
 * Vectorized maximum: a > b ? a : b, then a NaN a kept. Scalar lambda: quiet NaN for a NaN operand,
 * else std::max. */
static inline float maximum_one(const profile_t *p, int vec, float a, float b) {
    if (vec) {
        if (p->aten == 1 || p->aten == 2) return (a != a || b != b) ? qnan_bits(0xffffffffu) : (a > b ? a : b);
        return a != a ? a : (a > b ? a : b);
    }
    if (a != a || b != b) return qnan_bits(0x7fc00000u);
    return a < b ? b : a;
}

/* self + alpha * other of add_kernel (ufunc/add.h): vec::fmadd(other, alpha, self) in the vector
 * lambda, contracted by the compiler in the scalar one. */
static inline float add_alpha(const profile_t *p, int vec, float self, float other, float alpha) {
    return vec ? vfmadd(p, other, alpha, self) : sfmadd(p, alpha, other, self);
}

/* The gradient Adam and SGD use: -grad under maximize (at::neg, exact), then the L2 term. */
static inline float l2_grad(const profile_t *p, int vec, int decay, int maximize, float wd, float grad, float param) {
    float g = maximize ? -grad : grad;
    return decay ? add_alpha(p, vec, g, param, wd) : g;
}

/* One element of the step, in the order of _single_tensor_adam (the foreach path's ops are the same):
 *   grad = -grad                                (maximize)
 *   grad = grad.add(param, alpha=wd)            g = g + wd * param (fused, see add_alpha)   (Adam, L2)
 *   param.mul_(1 - lr*wd)                       p = p * decay_factor                        (AdamW)
 *   exp_avg.lerp_(grad, 1 - beta1)              m = lerp(m, g, w)
 *   exp_avg_sq.mul_(beta2)                      v = v * beta2
 *   .addcmul_(grad, grad, value=1 - beta2)      v = v + (value * g) * g   (fused: fma(value*g, g, v),
 *                                               in the vector body when vec_contracted)
 *   torch.maximum(max_v, v, out=max_v)          mx = maximum(mx, v)                         (amsgrad)
 *   denom = (exp_avg_sq.sqrt() / bc2_sqrt)      d = sqrt(v or mx) / bc2_sqrt: MKL VML's (vml_sqrt) on
 *                                               x86; IEEE on aarch64, whose wheel has no MKL:
 *                                               Vectorized sqrt is vsqrtq_f32 / svsqrt, and
 *                                               the scalar tail std::sqrt (fsqrt)
 *           .add_(eps)                          d = d + eps
 *   param.addcdiv_(exp_avg, denom, value=-ss)   p = p + (neg_step * m) / d */
static inline void adam_one(const profile_t *p, const adam_scalars_t *s, int vec, float *param, float grad,
                            float *m, float *v, float *mx) {
    float pv = *param;
    float g = l2_grad(p, vec, s->decay == 2, s->maximize, s->weight_decay, grad, pv);
    if (s->decay == 1) pv = pv * s->decay_factor;
    float mv = lerp_one(p, vec, *m, g, s->lerp_weight);
    float vv = *v * s->beta2;
    float sg = s->sq_value * g;
    vv = vec ? (vec_contracted(p) ? fmaf(sg, g, vv) : vv + sg * g) : sfmadd(p, sg, g, vv);
    float r = vv;
    if (s->amsgrad) r = *mx = maximum_one(p, vec, *mx, vv);
    float denom = torch_sqrt(p, r) / s->bc2_sqrt + s->eps;
    pv = pv + (s->neg_step * mv) / denom;
    *param = pv;
    *m = mv;
    *v = vv;
}

/* TensorIterator's cut of an element-wise kernel (cpu/Loops.h vectorized_loop under
 * at::parallel_for with GRAIN_SIZE): per thread chunk, blocks of 2 * lanes through the vector lambda,
 * the remainder through the scalar one; calls one(i, vec) for every element. */
#define TI_LOOP(p, n, one)                                                                         \
    do {                                                                                           \
        int64_t block_ = 2 * (int64_t)(p).lanes;                                                   \
        int64_t threads_ = parallel_threads(0, (n), GRAIN_SIZE, (p).threads);                      \
        for (int64_t tid_ = 0; tid_ < threads_; tid_++) {                                          \
            int64_t b_, e_;                                                                        \
            if (!parallel_chunk(0, (n), GRAIN_SIZE, (p).threads, tid_, &b_, &e_)) continue;        \
            int64_t vec_end_ = b_ + (e_ - b_) / block_ * block_;                                   \
            for (int64_t i = b_; i < e_; i++) one(i, i < vec_end_);                                \
        }                                                                                          \
    } while (0)

/* One Adam/AdamW step (for-loop or foreach path) of one parameter tensor, in place. */
void adam_step_forward(profile_t p, adam_scalars_t s, float *param, const float *grad, float *exp_avg,
                       float *exp_avg_sq, float *max_exp_avg_sq, int64_t n) {
#define ONE(i, vec) \
    adam_one(&p, &s, vec, param + i, grad[i], exp_avg + i, exp_avg_sq + i, s.amsgrad ? max_exp_avg_sq + i : NULL)
    TI_LOOP(p, n, ONE);
#undef ONE
}

/* One element of adam_math<float> (FusedAdamKernel.cpp), vector body (vec) or scalar tail:
 *   g = g * -1 (vector) / -g (scalar)           (maximize)
 *   g += param * wd                             (ADAM_MODE::ORIGINAL; contracted: fma(param, wd, g))
 *   param = param * (1 - lr*wd)                 (ADAM_MODE::ADAMW)
 *   m = fmadd(coeff, g - m, base)               coeff, base = w, m if |w| < 0.5 else w - 1, g (vector;
 *                                               the scalar tail's m + w*(g - m) / g - (g - m)*(1 - w)
 *                                               contracted the same way)
 *   v = v * beta2 + (c2 * g) * g                contracted (measured against torch): the vector body
 *                                               to fma(c2*g, g, v*beta2), the scalar tail (two
 *                                               statements there) to fma(v, beta2, (c2*g)*g)
 *   mx = maximum(mx, v) (vector) / std::max     (amsgrad)
 *   d = sqrt(v or mx) / bc2_sqrt + eps          IEEE sqrt (sqrtps / std::sqrt), no MKL
 *   param = param + (-ss * m) / d */
static inline void fused_adam_one(const profile_t *p, const adam_scalars_t *s, int vec, float *param, float *gp,
                                  float *m, float *v, float *mx) {
    float pv = *param, g = *gp;
    if (s->maximize) g = vec ? g * -1.0f : -g;
    if (s->decay == 2) g = (vec ? vec_contracted(p) : p->contract) ? fmaf(pv, s->weight_decay, g) : g + pv * s->weight_decay;
    if (s->decay == 1) pv = pv * s->decay_factor;
    float mv = lerp_one(p, vec, *m, g, s->lerp_weight);
    float sg = s->sq_value * g, vv;
    if (vec)
        vv = vec_contracted(p) ? fmaf(sg, g, *v * s->beta2) : *v * s->beta2 + sg * g;
    else
        vv = p->contract ? fmaf(*v, s->beta2, sg * g) : *v * s->beta2 + sg * g;
    float r = vv;
    if (s->amsgrad) {
        if (vec)
            r = maximum_one(p, 1, *mx, vv);
        else
            r = *mx < vv ? vv : *mx;
        *mx = r;
    }
    float denom = sqrtf(r) / s->bc2_sqrt + s->eps;
    *param = pv + (s->neg_step * mv) / denom;
    *m = mv;
    *v = vv;
}

/* The cut of a fused optimizer kernel: 64-byte units over all threads (grain 0), each chunk a
 * vector body of lanes and a scalar tail; calls one(i, vec) for every element. */
#define FUSED_UNIT 16
#define FUSED_LOOP(p, n, one)                                                                      \
    do {                                                                                           \
        int64_t units_ = divup((n), FUSED_UNIT), lanes_ = (p).lanes;                               \
        int64_t threads_ = parallel_threads(0, units_, 0, (p).threads);                            \
        for (int64_t tid_ = 0; tid_ < threads_; tid_++) {                                          \
            int64_t ub_, ue_;                                                                      \
            if (!parallel_chunk(0, units_, 0, (p).threads, tid_, &ub_, &ue_)) continue;            \
            int64_t b_ = ub_ * FUSED_UNIT, e_ = ue_ * FUSED_UNIT < (n) ? ue_ * FUSED_UNIT : (n);    \
            int64_t vec_end_ = b_ + (e_ - b_) / lanes_ * lanes_;                                   \
            for (int64_t i = b_; i < e_; i++) one(i, i < vec_end_);                                \
        }                                                                                          \
    } while (0)

/* _fused_adam_ / _fused_adamw_ of one float parameter, in place (grad is only read: no grad_scale). */
void fused_adam_forward(profile_t p, adam_scalars_t s, float *param, float *grad, float *exp_avg, float *exp_avg_sq,
                        float *max_exp_avg_sq, int64_t n) {
#define ONE(i, vec) \
    fused_adam_one(&p, &s, vec, param + i, grad + i, exp_avg + i, exp_avg_sq + i, s.amsgrad ? max_exp_avg_sq + i : NULL)
    FUSED_LOOP(p, n, ONE);
#undef ONE
}

/* One element of _single_tensor_sgd (the foreach path's ops are the same):
 *   g = -g (maximize); g = g.add(param, alpha=wd)              (add_alpha: fused where ATen fuses)
 *   buf = g.clone() (first step) / buf.mul_(momentum).add_(g, alpha=1 - dampening)
 *   g = g.add(buf, alpha=momentum) (nesterov) / g = buf
 *   param.add_(g, alpha=-lr) */
static inline void sgd_one(const profile_t *p, const sgd_scalars_t *s, int vec, float *param, float grad, float *buf) {
    float pv = *param;
    float g = l2_grad(p, vec, s->decay, s->maximize, s->weight_decay, grad, pv);
    if (s->momentum_on) {
        float b = s->first ? g : add_alpha(p, vec, *buf * s->momentum, g, s->keep);
        *buf = b;
        g = s->nesterov ? add_alpha(p, vec, g, b, s->momentum) : b;
    }
    *param = add_alpha(p, vec, pv, g, s->neg_lr);
}

/* One SGD step (for-loop or foreach path) of one parameter tensor, in place. */
void sgd_step_forward(profile_t p, sgd_scalars_t s, float *param, const float *grad, float *momentum_buf, int64_t n) {
#define ONE(i, vec) sgd_one(&p, &s, vec, param + i, grad[i], s.momentum_on ? momentum_buf + i : NULL)
    TI_LOOP(p, n, ONE);
#undef ONE
}

/* One element of sgd_math<float> (FusedSGDKernel.cpp), vector body or scalar tail, each contracted
 * by the compiler where the profile contracts:
 *   g = g * -1 / -g (maximize); g += param * wd                     (fma(param, wd, g))
 *   buf = g (first step) / buf * momentum + g * (1 - dampening)     (measured against torch: the
 *         vector body fuses the second product, fma(g, 1 - d, buf*m), the scalar tail the first,
 *         fma(buf, m, g*(1 - d)))
 *   g += buf * momentum (nesterov) / g = buf
 *   param += g * -lr */
static inline void fused_sgd_one(const profile_t *p, const sgd_scalars_t *s, int vec, float *param, float *gp,
                                 float *buf) {
    int fuse = vec ? vec_contracted(p) : p->contract;
    float pv = *param, g = *gp;
    if (s->maximize) g = vec ? g * -1.0f : -g;
    if (s->decay) g = fuse ? fmaf(pv, s->weight_decay, g) : g + pv * s->weight_decay;
    if (s->momentum_on) {
        float b = g;
        if (!s->first && !fuse)
            b = *buf * s->momentum + g * s->keep;
        else if (!s->first)
            b = vec ? fmaf(g, s->keep, *buf * s->momentum) : fmaf(*buf, s->momentum, g * s->keep);
        *buf = b;
        g = s->nesterov ? (fuse ? fmaf(b, s->momentum, g) : g + b * s->momentum) : b;
    }
    *param = fuse ? fmaf(g, s->neg_lr, pv) : pv + g * s->neg_lr;
}

/* _fused_sgd_ of one float parameter, in place. */
void fused_sgd_forward(profile_t p, sgd_scalars_t s, float *param, float *grad, float *momentum_buf, int64_t n) {
#define ONE(i, vec) fused_sgd_one(&p, &s, vec, param + i, grad + i, s.momentum_on ? momentum_buf + i : NULL)
    FUSED_LOOP(p, n, ONE);
#undef ONE
}

/* The per-tensor kernels of a CPU _foreach_* op's slow path (ForeachOpsKernels.cpp), one tensor:
 * out = op(a, b, c) under TensorIterator's cut (GRAIN_SIZE chunks, blocks of 2 * lanes, scalar
 * remainder). b and c may be NULL where the op has no such operand.
 *   EW_LERP     lerp_kernel_scalar_weight(a, b, w)            (lerp_one)
 *   EW_ADDCMUL  addcmul_cpu_kernel: a + (w * b) * c          (fused as _single_tensor_adam's)
 *   EW_ADDCDIV  addcdiv_cpu_kernel: a + (w * b) / c
 *   EW_MAXIMUM  maximum_kernel(a, b)                          (maximum_one)
 *   EW_ADD      add_kernel: a + w * b                         (add_alpha; w = 1 gives one rounding)
 *   EW_SQRT     sqrt_kernel: MKL VML (vml_sqrt) on x86, IEEE on aarch64 */
enum { EW_LERP, EW_ADDCMUL, EW_ADDCDIV, EW_MAXIMUM, EW_ADD, EW_SQRT };

static inline float ew_one(const profile_t *p, int op, int vec, float a, float b, float c, float w) {
    switch (op) {
    case EW_LERP:
        return lerp_one(p, vec, a, b, w);
    case EW_ADDCMUL: {
        float wb = w * b;
        return vec ? (vec_contracted(p) ? fmaf(wb, c, a) : a + wb * c) : sfmadd(p, wb, c, a);
    }
    case EW_ADDCDIV:
        return a + (w * b) / c;
    case EW_MAXIMUM:
        return maximum_one(p, vec, a, b);
    case EW_ADD:
        return add_alpha(p, vec, a, b, w);
    default:
        return torch_sqrt(p, a);
    }
}

void elementwise_forward(profile_t p, int32_t op, const float *a, const float *b, const float *c, float w, float *out,
                         int64_t n) {
#define ONE(i, vec) out[i] = ew_one(&p, op, vec, a[i], b ? b[i] : 0.0f, c ? c[i] : 0.0f, w)
    TI_LOOP(p, n, ONE);
#undef ONE
}

/* torch.sqrt(x) of a float tensor (torch_sqrt: MKL VML's on x86); element-wise, no thread dependence.
 * x, out: (n,) */
void sqrt_forward(profile_t p, const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = torch_sqrt(&p, x[i]);
}
