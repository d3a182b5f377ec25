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
 * On the Linux arm64 profiles (torch 2.13.0's aarch64 wheel, measured under QEMU on Neoverse N1, V2
 * and V1 at 1, 2 and 4 threads: tests/test_impl_arm64_optim.py) the same loops run with 4 lanes (the
 * NEON-typed DEFAULT and SVE128 objects) or 8 (SVE256), GCC's contractions per object (obj_kind) and
 * aarch64's NaNs: every operation goes through f_add/f_sub/f_mul/f_div/f_fma (nan2, nan3), which give
 * the default NaN +qNaN of an invalid operation and the NaN operand aarch64 keeps, in the operand order
 * each object was measured to use. Because 16 floats are whole vectors of 4 or 8 lanes, the fused
 * kernels' bits do not depend on the thread count there (nor on x86, but for NaNs).
 *
 * Shapes: every array is (n,) contiguous float32; max_exp_avg_sq and momentum_buf may be NULL when
 * unused. */
#include "elementwise.h"

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

/* One rounded operation as the profile's CPU gives it, NaNs included (nan2, nan3): the
 * optimizers' steps see NaN and infinite gradients. */
static inline float f_add(const profile_t *p, float a, float b) { return nan2(p, a + b, a, b); }
static inline float f_sub(const profile_t *p, float a, float b) { return nan2(p, a - b, a, b); }
static inline float f_mul(const profile_t *p, float a, float b) { return nan2(p, a * b, a, b); }
static inline float f_div(const profile_t *p, float a, float b) { return nan2(p, a / b, a, b); }
static inline float f_fma(const profile_t *p, float a, float b, float c) { return nan3(p, fmaf(a, b, c), a, b, c); }

/* a*b + c fused (f_fma) or as two roundings. */
static inline float f_madd(const profile_t *p, int fused, float a, float b, float c) {
    return fused ? f_fma(p, a, b, c) : f_add(p, f_mul(p, a, b), c);
}

/* lerp_kernel_scalar_weight (LerpKernel.cpp, Lerp.h): weight < 0.5 -> start + w * (end - start),
 * else end - (end - start) * (1 - w). The Vectorized lambda is fmadd(coeff, end - start, base)
 * (coeff w or w - 1, base start or end): fused on avx2/avx512 and aarch64, a*b+c on default; GCC
 * contracts the scalar lambda the same way in the AVX2 object and on aarch64. A NaN diff in the scalar
 * end - diff*(1 - w) comes out negated (fmsub) on N1 and V1 but not from the SVE128 object (V2), which
 * computes end + diff*(w - 1): one element of the recording tells them apart. lerp_kernel_tensor_weight's
 * scalar lambda (`tensor`) on aarch64 is one fmsub end - (1 - w)*diff on every core with 1 - w the negated
 * operand: a NaN w comes out sign-flipped, a NaN diff as it is (measured on emulated N1, V2, V1). */
static inline float lerp_one(const profile_t *p, int vec, float start, float end, float w, int tensor) {
    float diff = f_sub(p, end, start);
    int fused = vec ? p->vec_fma : p->contract;
    if (fabsf(w) < 0.5f) return f_madd(p, fused, w, diff, start);
    if (vec) return f_madd(p, fused, w - 1.0f, diff, end);
    if (tensor && is_arm(p)) /* end - (1 - w)*diff: fmsub negating 1 - w, a NaN w's sign flipped */
        return f_fma(p, -f_sub(p, 1.0f, w), diff, end);
    /* end - diff*(1 - w): two roundings (x86 default), or fused with a NaN diff negated (fmsub), but as
     * end + diff*(w - 1) (the NaN kept) in the SVE128 object */
    if (!fused) return f_sub(p, end, f_mul(p, diff, 1.0f - w));
    if (p->aten == ATEN_SVE && p->lanes == 4) return f_fma(p, diff, w - 1.0f, end);
    return f_fma(p, -diff, 1.0f - w, end);
}

#include "rsqrt_tables.h"

/* rsqrtps(x) for a normal float x as the profile's CPU computes it: the AMD or the Intel table, or,
 * under QEMU (the recordings of MKL's Intel paths made under emulation), QEMU's exact estimate: sqrt
 * rounded to float, then 1 / that rounded to float. */
static inline float rsqrtps(const profile_t *p, float x) { return vm_rsqrtps(p->rsqrt, x); }

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

/* vmdSqrt's rare-path table (_vmldSqrtHATab): for p the exponent's parity and i the top 8 mantissa bits,
 * 1/sqrt((1 + i/256) * 2^p) rounded to 11 significant bits (all 512 words measured equal to the rule), filled
 * as the library loads. */
static double vml_sqrt_d_tab[2][256];

__attribute__((constructor)) static void vml_sqrt_d_tab_fill(void) {
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 256; i++) {
            const double r = 1.0 / sqrt((1.0 + i / 256.0) * (p ? 2.0 : 1.0));
            int e;
            frexp(r, &e);
            vml_sqrt_d_tab[p][i] = ldexp(nearbyint(ldexp(r, 11 - e)), e - 11);
        }
}

/* vmdSqrt's rare path (vdsqrt_cout_rare of mkl_vml_kernel_dSqrt_EXHAynn): an infinity or NaN x + x (+inf kept,
 * a NaN quieted), -inf and every x < 0 the positive default NaN 0x7ff8000000000000, +-0 itself; otherwise
 * (subnormals first scaled by 2^200) m in [1, 2) scaled by the exponent's parity, y0 from the table, three
 * coupled Goldschmidt steps on g ~ sqrt(m) and h ~ 0.5/sqrt(m), g split by Dekker (2^27 + 1) and
 * ((m - hi*hi) - 2*hi*lo - lo*lo) * h + g, times 2^floor(e/2). All SSE2, no fused step. */
static inline double vml_sqrt_d_rare(double x, int fused) {
    uint64_t u = dm_d2u(x);
    if ((u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
        return u == 0xfff0000000000000ull ? dm_u2d(0x7ff8000000000000ull) : x + x;
    if (x == 0.0) return x;
    if (u >> 63) return dm_u2d(0x7ff8000000000000ull);
    const int sub = (u & 0x7ff0000000000000ull) == 0;
    if (sub) u = dm_d2u(x * 0x1p200);
    const int32_t e = (int32_t)((u >> 52) & 0x7ff) - 1023;
    const int32_t half = (e >> 1) + 1023 - (sub ? 100 : 0);
    const int par = e & 1;
    const double scale = dm_u2d((uint64_t)(half & 0x7ff) << 52);
    const double m = dm_u2d((u & 0x800fffffffffffffull) | 0x3ff0000000000000ull) * (par ? 2.0 : 1.0);
    const double y0 = vml_sqrt_d_tab[par][(u >> 44) & 0xff];
    double h = y0 * 0.5, g = y0 * m;
    for (int k = 0; k < 3; k++) {
        const double r = fused ? fma(-g, h, 0.5) : 0.5 - g * h;
        const double h2 = fused ? fma(r, h, h) : r * h + h;
        g = fused ? fma(r, g, g) : r * g + g;
        h = h2;
    }
    const double t = g * 134217729.0;
    const double hi = t - (t - g), lo = g - hi;
    if (fused) return fma(fma(-lo, lo, fma(hi * lo, -2.0, fma(-hi, hi, m))), h, g) * scale;
    double d = m - hi * hi;
    d -= (hi * lo) + (hi * lo);
    d -= lo * lo;
    return (d * h + g) * scale;
}

/* torch.sqrt of a float64 on x86: MKL VML's vmdSqrt (VML_HA) on MKL's generic path
 * (mkl_vml_kernel_dSqrt_EXHAynn, read from libtorch_cpu.so 2.13.0's machine code; SSE2, no fused step,
 * every lane on its own, the 16-element body and the 2-element tail alike). x below 2^-1022 (zeros,
 * subnormals), at or past 2^1022, negative, infinite or NaN takes the rare path (vml_sqrt_d_rare). Else
 * with e x's unbiased exponent, f = 1.m (x's top 23 mantissa bits) times 2^(e mod 2), r = rsqrtps(f) (the
 * CPU's estimate), y = r * 2^-floor(e/2) (both formed from x's bits by integer steps), x = xh + xl (xh: x's top 26
 * mantissa bits), h = (1 - xh*y*y) - xl*y*y, p = (((c4*h + c3)*h + c2)*h + c1)*h, and
 * xh*y + (xl*y + (p*y)*x). MKL's Intel AVX2 path (dSqrt_L9HAynn, read from the same library: the same
 * constants and rare path, every multiply-add fused): h = fma(-x, y*y, 1), the polynomial by fmas in h,
 * fma(x, y, x*(y*(h*P))); its rare path's steps fused as fma(-g, h, 0.5), fma(r, h, h), fma(r, g, g) and
 * fma(fma(-lo, lo, fma(hi*lo, -2, fma(-hi, hi, m))), h, g). */
static inline double vml_sqrt_d(const profile_t *p, double x) {
    const uint64_t u = dm_d2u(x);
    const int fused = p->blas == BLAS_MKL_AVX2;
    if ((int32_t)((uint32_t)(u >> 32) + 0x7ff00000u) > (int32_t)0xffbfffffu) return vml_sqrt_d_rare(x, fused);
    const uint64_t a = ~u & 0x0010000000000000ull;
    const uint32_t fb = (uint32_t)((((u & 0x001fffffe0000000ull) | (a + 0x07f0000000000000ull)) >> 29) & 0xffffffffu);
    float f;
    memcpy(&f, &fb, 4);
    const double r = (double)rsqrtps(p, f);
    const double y = dm_u2d(((a - (u & 0x7ff0000000000000ull)) + 0xbfd0000000000000ull) >> 1) * r;
    const double y2 = y * y;
    if (fused) {
        const double h = fma(-x, y2, 1.0);
        double q = fma(h, dm_u2d(0x3fd1800032338cbbull), dm_u2d(0x3fd40000b13001d9ull));
        q = fma(h, q, dm_u2d(0x3fd80000000000f6ull));
        q = fma(h, q, dm_u2d(0x3fdffffffffffe71ull));
        return fma(x, y, x * (y * (h * q)));
    }
    const double xh = dm_u2d(u & 0xfffffffff8000000ull), xl = x - xh;
    const double h = (1.0 - xh * y2) - xl * y2;
    double q = h * dm_u2d(0x3fd1800032338cbbull) + dm_u2d(0x3fd40000b13001d9ull);
    q = q * h + dm_u2d(0x3fd80000000000f6ull);
    q = q * h + dm_u2d(0x3fdffffffffffe71ull);
    q = ((q * h) * y) * x;
    return xh * y + (xl * y + q);
}

/* torch.sqrt of a float: MKL VML's on x86 (vml_sqrt); on aarch64 (NVPL, no MKL) IEEE, vsqrtq_f32 /
 * svsqrt in the vector body and fsqrt in the tail alike. */
static inline float torch_sqrt(const profile_t *p, float x) {
    return p->blas == BLAS_NVPL ? sqrtf(x) : vml_sqrt(p, x);
}

/* Whether the element runs in the vector body of the SVE256 object (svfloat32_t intrinsics): there a
 * Vectorized operator is the intrinsic itself, never contracted and never rewritten (g * -1 stays a
 * multiply, keeping a NaN's sign; a + b keeps its operand order). */
static inline int sve_body(const profile_t *p, int vec) { return vec && obj_kind(p) == OBJ_SVE; }

/* addcmul_cpu_kernel (PointwiseOpsKernel.cpp): self + (value * t1) * t2 with vt1 = value * t1,
 * contracted to fma(vt1, t2, self) where the object contracts (vec_contracted in the vector body). */
static inline float addcmul_one(const profile_t *p, int vec, float self, float vt1, float t2) {
    if (vec ? vec_contracted(p) : p->contract) return f_fma(p, vt1, t2, self);
    return sve_body(p, vec) ? f_add(p, self, f_mul(p, vt1, t2)) : f_add(p, f_mul(p, vt1, t2), self);
}

/* addcdiv_cpu_kernel: self + (value * t1) / t2. Which NaN the add keeps when both are NaN (measured on
 * aarch64): the quotient's where GCC compiled the NEON-typed code (N1, V2), self's in the SVE256
 * vector body (sve_body). */
static inline float addcdiv_one(const profile_t *p, int vec, float self, float value, float t1, float t2) {
    const float q = f_div(p, f_mul(p, value, t1), t2);
    return sve_body(p, vec) ? f_add(p, self, q) : f_add(p, q, self);
}

/* maximum_kernel (BinaryOpsKernel.cpp), a NaN-propagating max: common.h aten_maximum; aarch64's
 * Vectorized maximum is FMAX (fmax_arm). */
static inline float maximum_one(const profile_t *p, int vec, float a, float b) {
    if (vec && is_arm(p)) return fmax_arm(p, a, b);
    return aten_maximum(p, vec, a, b);
}

/* self + alpha * other of add_kernel (ufunc/add.h): vec::fmadd(other, alpha, self) in the vector
 * lambda, contracted by the compiler in the scalar one. */
static inline float add_alpha(const profile_t *p, int vec, float self, float other, float alpha) {
    return vec ? f_madd(p, p->vec_fma, other, alpha, self) : f_madd(p, p->contract, alpha, other, self);
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
    if (s->decay == 1) pv = f_mul(p, pv, s->decay_factor);
    float mv = lerp_one(p, vec, *m, g, s->lerp_weight, 0);
    float vv = f_mul(p, *v, s->beta2);
    float sg = f_mul(p, s->sq_value, g);
    vv = addcmul_one(p, vec, vv, sg, g);
    float r = vv;
    if (s->amsgrad) r = *mx = maximum_one(p, vec, *mx, vv);
    float denom = f_add(p, f_div(p, nan2(p, torch_sqrt(p, r), r, r), s->bc2_sqrt), s->eps);
    pv = addcdiv_one(p, vec, pv, s->neg_step, mv, denom);
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
 *   g = g * -1 (vector) / -g (scalar)           (maximize; GCC's negation, a NaN's sign flipped, but
 *                                               for V1's SVE256 body's multiply, which keeps it)
 *   g += param * wd                             (ADAM_MODE::ORIGINAL; contracted: fma(param, wd, g))
 *   param = param * (1 - lr*wd)                 (ADAM_MODE::ADAMW)
 *   m = fmadd(coeff, g - m, base)               coeff, base = w, m if |w| < 0.5 else w - 1, g (vector;
 *                                               the scalar tail's m + w*(g - m) / g - (g - m)*(1 - w)
 *                                               contracted the same way)
 *   v = v * beta2 + (c2 * g) * g                contracted (measured against torch): the x86 vector
 *                                               body to fma(c2*g, g, v*beta2), the scalar tail (two
 *                                               statements there) and aarch64's NEON-typed body
 *                                               (N1, V2) to fma(v, beta2, (c2*g)*g); V1's SVE256
 *                                               body not at all
 *   mx = maximum(mx, v) (vector) / std::max     (amsgrad)
 *   d = sqrt(v or mx) / bc2_sqrt + eps          IEEE sqrt (sqrtps / std::sqrt), no MKL
 *   param = param + (-ss * m) / d */
static inline void fused_adam_one(const profile_t *p, const adam_scalars_t *s, int vec, float *param, float *gp,
                                  float *m, float *v, float *mx) {
    float pv = *param, g = *gp;
    int fuse = vec ? vec_contracted(p) : p->contract;
    if (s->maximize) g = sve_body(p, vec) ? f_mul(p, g, -1.0f) : -g;
    if (s->decay == 2) g = fuse ? f_fma(p, pv, s->weight_decay, g) : f_add(p, g, f_mul(p, pv, s->weight_decay));
    if (s->decay == 1) pv = f_mul(p, pv, s->decay_factor);
    float mv = lerp_one(p, vec, *m, g, s->lerp_weight, 0);
    float sg = f_mul(p, s->sq_value, g), vb = f_mul(p, *v, s->beta2), vv;
    if (!fuse)
        vv = f_add(p, vb, f_mul(p, sg, g));
    else
        vv = vec && obj_kind(p) == OBJ_X86_FMA ? f_fma(p, sg, g, vb) : f_fma(p, *v, s->beta2, f_mul(p, sg, g));
    float r = vv;
    if (s->amsgrad) {
        if (vec)
            r = maximum_one(p, 1, *mx, vv);
        else
            r = *mx < vv ? vv : *mx;
        *mx = r;
    }
    float denom = f_add(p, f_div(p, nan2(p, sqrtf(r), r, r), s->bc2_sqrt), s->eps);
    *param = f_add(p, pv, f_div(p, f_mul(p, s->neg_step, mv), denom));
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
        float b = s->first ? g : add_alpha(p, vec, f_mul(p, *buf, s->momentum), g, s->keep);
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
 *   param += g * -lr
 * V1's SVE256 body (no contraction) still fuses the weight decay, the buffer and nesterov's term (ATen's
 * explicit fmadd: vec_fma), not the update of param; aarch64's scalar tail computes param - g*lr
 * (fmsub: a NaN g negated). */
static inline void fused_sgd_one(const profile_t *p, const sgd_scalars_t *s, int vec, float *param, float *gp,
                                 float *buf) {
    int fuse = vec ? vec_contracted(p) : p->contract, fmadd = vec ? p->vec_fma : p->contract;
    float pv = *param, g = *gp;
    if (s->maximize) g = sve_body(p, vec) ? f_mul(p, g, -1.0f) : -g;
    if (s->decay) g = fmadd ? f_fma(p, pv, s->weight_decay, g) : f_add(p, g, f_mul(p, pv, s->weight_decay));
    if (s->momentum_on) {
        float b = g;
        if (!s->first && !fmadd)
            b = f_add(p, f_mul(p, *buf, s->momentum), f_mul(p, g, s->keep));
        else if (!s->first)
            b = vec ? f_fma(p, g, s->keep, f_mul(p, *buf, s->momentum)) : f_fma(p, *buf, s->momentum, f_mul(p, g, s->keep));
        *buf = b;
        g = s->nesterov ? (fmadd ? f_fma(p, b, s->momentum, g) : f_add(p, g, f_mul(p, b, s->momentum))) : b;
    }
    *param = fuse && !vec && is_arm(p) ? f_fma(p, -g, -s->neg_lr, pv)
           : fuse                       ? f_fma(p, g, s->neg_lr, pv) : f_add(p, pv, f_mul(p, g, s->neg_lr));
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
        return lerp_one(p, vec, a, b, w, 0);
    case EW_ADDCMUL: {
        return addcmul_one(p, vec, a, f_mul(p, w, b), c);
    }
    case EW_ADDCDIV:
        return addcdiv_one(p, vec, a, w, b, c);
    case EW_MAXIMUM:
        return maximum_one(p, vec, a, b);
    case EW_ADD:
        return add_alpha(p, vec, a, b, w);
    default:
        return nan2(p, torch_sqrt(p, a), a, a);
    }
}

void elementwise_forward(profile_t p, int32_t op, const float *a, const float *b, const float *c, float w, float *out,
                         int64_t n) {
#define ONE(i, vec) out[i] = ew_one(&p, op, vec, a[i], b ? b[i] : 0.0f, c ? c[i] : 0.0f, w)
    TI_LOOP(p, n, ONE);
#undef ONE
}

/* lerp (a Scalar weight w, or a Tensor weight c), addcmul and addcdiv (value w) of float32 operands of any
 * layout, laid out in TensorIterator's loop order (harness/trace/loops.py): lerp_kernel_scalar_weight /
 * lerp_kernel_tensor_weight (LerpKernel.cpp) and addcmul_cpu_kernel / addcdiv_cpu_kernel
 * (PointwiseOpsKernel.cpp), each one ew_one per element, cpu_kernel_vec with the default grain; their
 * stubs are REGISTER_DISPATCH only, so avx512 runs the avx2 object: p.lanes. elementwise.h run_segments
 * cuts the runs of `row` elements and the threads' chunks and calls the element's vector or scalar form
 * in order, element by element, so pw_ctx keeps the element's index. Shapes: a, b, c, out (n,); c NULL
 * where the op has no third operand (lerp by a Scalar). */
typedef struct {
    profile_t p; /* first: run_segments passes &ctx.p */
    int32_t op;
    const float *a, *b, *c;
    float w;
    int64_t i;
} pw_ctx;

EW_INLINE float pw_one(const profile_t *p, int vec) {
    pw_ctx *x = (pw_ctx *)p;
    const int64_t i = x->i++;
    const float c = x->c ? x->c[i] : 0.0f;
    if (x->op == EW_LERP) return lerp_one(p, vec, x->a[i], x->b[i], x->c ? c : x->w, x->c != NULL);
    return ew_one(p, x->op, vec, x->a[i], x->b[i], c, x->w);
}

static float pw_vec(const profile_t *p, float a, float b) {
    (void)a, (void)b;
    return pw_one(p, 1);
}

static float pw_scalar(const profile_t *p, float a, float b) {
    (void)a, (void)b;
    return pw_one(p, 0);
}

void pointwise_forward(profile_t p, int32_t op, const float *a, const float *b, const float *c, float w, float *out,
                       int64_t n, int64_t row) {
    pw_ctx x = {p, op, a, b, c, w, 0};
    run_segments(&x.p, p.lanes, GRAIN_SIZE, NULL, NULL, pw_vec, pw_scalar, a, b, out, n, row);
}

/* torch.sqrt(x) of a float tensor (torch_sqrt: MKL VML's on x86); element-wise, no thread dependence.
 * x, out: (n,) */
void sqrt_forward(profile_t p, const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = torch_sqrt(&p, x[i]);
}

/* FSQRT (vsqrtq_f64 and fsqrt on aarch64): IEEE, a negative's NaN aarch64's default +qNaN, a NaN quieted. */
static inline double fsqrt_a64(double x) { return x < 0.0 ? dm_u2d(0x7ff8000000000000ull) : sqrt(x); }

/* torch.sqrt(x) of a float64 tensor: MKL VML's vmdSqrt (vml_sqrt_d) on x86, FSQRT on aarch64; element-wise, no
 * thread dependence. x, out: (n,) */
void sqrt_f64_forward(profile_t p, const double *x, double *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = p.blas == BLAS_NVPL ? fsqrt_a64(x[i]) : vml_sqrt_d(&p, x[i]);
}
