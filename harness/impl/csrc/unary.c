/* Unary ops of torch 2.13.0 on CPU, float32, forward and backward: exp, log, tanh, sin, cos, erf, erfinv, log2
 * and acos (forward), rsqrt, atanh, gelu (erf, through oneDNN; on aarch64 N1 its forward through Arm Compute Library;
 * ATen's GeluKernel for a non-contiguous self on x86: gelu_aten_*) and gelu (tanh: x86 ATen's GeluKernel; aarch64
 * forward oneDNN's JIT, backward ATen's); pow of a scalar exponent and of a tensor exponent (pow_tensor_forward);
 * logit where ATen's vectorized loop runs it (logit_forward); binary_cross_entropy's elements (bce_forward).
 *
 * Every tensor is flat in its logical order: x, out, grad, grad_x are (n,).
 * ATen's elementwise loops: elementwise.h run_segments (per thread chunk of
 * TensorIterator::for_each, a body of two Vectorized<float> per iteration through the vector
 * lambda and the rest through the scalar lambda; one flat run, or rows of `row` for silu). */
#include <stdlib.h>

#include "dmath.h"
#include "elementwise.h"

/* One flat run (row = n) or TensorIterator's rows of `row` elements (an operand whose rows are apart:
 * silu of Mamba's causal convolution cut to the sequence), elementwise.h run_segments. */
EW_INLINE void run_unary(const profile_t *p, int64_t lanes, int64_t grain, unary_fn vec, unary_fn scal,
                      const float *x, float *y, int64_t n, int64_t row) {
    run_segments(p, lanes, grain, vec, scal, NULL, NULL, x, NULL, y, n, row);
}

EW_INLINE void run_binary(const profile_t *p, int64_t lanes, int64_t grain, binary_fn vec, binary_fn scal,
                       const float *a, const float *c, float *y, int64_t n, int64_t row) {
    run_segments(p, lanes, grain, NULL, NULL, vec, scal, a, c, y, n, row);
}

/* Each element's place in the inner loops of run_segments (defined with log_sigmoid_backward). */
static void loop_places(const profile_t *p, float *place, int64_t n, int64_t row);

/* ------------------------------------------------------------------ exp, log, tanh (MKL VML | SLEEF) */

/* x86: torch.exp/log/tanh forward run MKL VML (vsExp/vsLn/vsTanh, VML_HA) under every capability
 * (aten vml.h IMPLEMENT_VML_MKL, UnaryOpsKernel IMPLEMENT_FLOAT_KERNEL): elementwise, so neither
 * the ATen level nor the thread split changes bits, but MKL's code path does: its Intel AVX2 path
 * (BLAS_MKL_AVX2) has an exp and a log of its own (vmath.h mkl_avx2_vml_*). The rare inputs VML
 * hands to its scalar fallback are redone in a second pass that rereads x: out must not overlap x.
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
    if (p.blas == BLAS_MKL_AVX512) { /* MKL's Intel AVX-512 path: its own kernel and fallback bound */
        for (int64_t i = 0; i < n; i++) out[i] = mkl_avx512_vml_expf_main(x[i]);
        return;
    }
    if (p.blas == BLAS_MKL_AVX2) /* MKL's Intel AVX2 path: its own kernel, the same fallback */
        for (int64_t i = 0; i < n; i++) out[i] = mkl_avx2_vml_expf_main(x[i]);
    else
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
    if (p.blas == BLAS_MKL_AVX512) { /* MKL's Intel AVX-512 path: its own kernel and fallback */
        for (int64_t i = 0; i < n; i++) out[i] = mkl_avx512_vml_logf(x[i]);
        return;
    }
    if (p.blas == BLAS_MKL_AVX2) /* MKL's Intel AVX2 path: its own kernel, the same fallback */
        for (int64_t i = 0; i < n; i++) out[i] = mkl_avx2_vml_logf_normal(x[i]);
    else
        for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_logf_normal(x[i]);
    for (int64_t i = 0; i < n; i++)
        if (mkl_vml_logf_subnormal(x[i])) out[i] = mkl_vml_logf(x[i]);
}

void tanh_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (p.aten == ATEN_SVE && p.lanes == 8) for (int64_t i = 0; i < n; i++) out[i] = aten_sve_tanhf(x[i]);
    else if (p.aten >= ATEN_NEON) for (int64_t i = 0; i < n; i++) out[i] = sleef_tanhf_u10(x[i]);
    else if (p.blas == BLAS_MKL_AVX512) for (int64_t i = 0; i < n; i++) out[i] = mkl_avx512_vml_tanhf(x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_tanhf(x[i]);
}

/* x86: torch.sin/cos forward run MKL VML (vsSin/vsCos, VML_HA) under every capability (aten vml.h
 * IMPLEMENT_VML_MKL, UnaryOpsKernel IMPLEMENT_FLOAT_KERNEL), elementwise: neither the ATen level nor the
 * thread split changes bits (measured), MKL's code path does: its Intel AVX2 path (BLAS_MKL_AVX2) fuses the
 * kernel's multiply-adds (vmath.h mkl_avx2_vml_sinf/cosf); the generic and Intel SSE4.2 paths run the same
 * unfused kernel (mkl_vml_sinf/cosf); past 10000 each kernel's large-argument branch (vmath.h
 * mkl_vml_sincosf_large, the AVX2 one fused). MKL's Intel AVX-512 path is refused by the caller
 * (harness/impl/unary.py).
 * aarch64 (no MKL): UnaryOpsKernel's IMPLEMENT_ITERATOR_LAMBDA (grain 2048) calls vml.h IMPLEMENT_VML's vec::map
 * of Vectorized<float>::sin/cos on each inner loop (a strided operand copied 2,048 elements at a time into a
 * buffer: the same vectors), vectors of p.lanes from the loop's start, the last partial one loaded zero-filled:
 * Sleef_sinf4_u10 / cosf4_u10 in the NEON-typed objects (4 lanes), Sleef_sinfx_u10sve / cosfx_u10sve in the
 * SVE256 one (8 lanes), the same arithmetic. A vector whose lanes all have |x| < 125 takes the Cody-Waite
 * branch (vmath.h sleef_sinf_u10 / sleef_cosf_u10), any other vector the Payne-Hanek branch on every lane
 * (sleef_sinf_u10_ph / sleef_cosf_u10_ph). Inner loops as elementwise.h run_segments cuts them (rows of `row`).
 * Their backwards are autograd's cos/sin and mul ops. */
#define VML_GRAIN 2048 /* UnaryOpsKernel's grain_size for its vml kernels */
/* One vector of vec::map: m lanes (the last partial vector of a run zero-filled in ATen: its lanes' results
 * unread). */
typedef void (*vml_vector_fn)(const profile_t *p, const float *x, float *out, int64_t m);

/* Tensor shapes: x, out (n,), runs of `row` elements (row <= 0: one run). vml.h's vec::map as
 * IMPLEMENT_ITERATOR_LAMBDA hands it each run: each thread's chunk of for_each (grain VML_GRAIN), each run of
 * `row` in it, vectors of `lanes` from the run's start, `vec` on each. */
static void vml_map(const profile_t *p, int64_t lanes, vml_vector_fn vec, const float *x, float *out, int64_t n,
                    int64_t row) {
    int64_t b, e;
    for (loop_walk w = loop_walk_start(p, VML_GRAIN, n, row); loop_walk_next(&w, &b, &e);)
        for (int64_t v = b; v < e; v += lanes) vec(p, x + v, out + v, e - v < lanes ? e - v : lanes);
}

/* One SLEEF sinf/cosf u10 vector: the Cody-Waite branch where every lane has |x| < 125, else Payne-Hanek. */
static int sleef_sincos_small(const float *x, int64_t m) {
    int small = 1;
    for (int64_t i = 0; i < m; i++) small &= fabsf(x[i]) < SLEEF_TRIGRANGEMAX2F;
    return small;
}
static void sleef_sin_vector(const profile_t *p, const float *x, float *out, int64_t m) {
    (void)p;
    const int small = sleef_sincos_small(x, m);
    for (int64_t i = 0; i < m; i++) out[i] = small ? sleef_sinf_u10(x[i]) : sleef_sinf_u10_ph(x[i]);
}
static void sleef_cos_vector(const profile_t *p, const float *x, float *out, int64_t m) {
    (void)p;
    const int small = sleef_sincos_small(x, m);
    for (int64_t i = 0; i < m; i++) out[i] = small ? sleef_cosf_u10(x[i]) : sleef_cosf_u10_ph(x[i]);
}

/* Tensor shapes: x, out (n,), rows of `row` (aarch64's vectors; MKL's sin/cos are elementwise). */
void sin_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    if (p.aten >= ATEN_NEON) vml_map(&p, p.lanes, sleef_sin_vector, x, out, n, row);
    else if (p.blas == BLAS_MKL_AVX2) for (int64_t i = 0; i < n; i++) out[i] = mkl_avx2_vml_sinf(x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_sinf(x[i]);
}

void cos_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    if (p.aten >= ATEN_NEON) vml_map(&p, p.lanes, sleef_cos_vector, x, out, n, row);
    else if (p.blas == BLAS_MKL_AVX2) for (int64_t i = 0; i < n; i++) out[i] = mkl_avx2_vml_cosf(x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_cosf(x[i]);
}

/* x86, float64: torch.sin/cos run MKL VML's vmdSin/vmdCos (VML_HA; vml.h IMPLEMENT_VML_MKL's double stubs) under every
 * capability, elementwise (dmath.h mkl_vml_sincos_d, MKL's generic path; the caller refuses the others).
 * Tensor shapes: x, out (n,). */
void sincos_f64_forward(const double *x, double *out, int64_t n, int32_t cosine) {
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_sincos_d(x[i], cosine);
}

/* aarch64, float64 (no MKL): vml.h's vec::map of Vectorized<double>::sin/cos over each run as sin_forward's
 * (IMPLEMENT_ITERATOR_LAMBDA, grain 2048, a strided run copied 1,024 doubles at a time: the same vectors), vectors
 * of p.lanes / 2 doubles (NEON and SVE128: 2, SVE256: 4) from the run's start, the last partial one zero-filled:
 * Sleef_sind2_u10 / cosd2_u10 (sindx/cosdx_u10sve), dmath.h sleef_sincos_d_u1, its first Cody-Waite branch where
 * every lane has |x| < 15, else its second. A vector with a lane of |x| >= 1e14, an infinity or a NaN (SLEEF's
 * Payne-Hanek branch, not ported) is left unwritten and its lanes counted: the return value (the caller refuses).
 * Tensor shapes: x, out (n,), runs of `row` elements. */
int64_t sincos_f64_a64_forward(profile_t p, const double *x, double *out, int64_t n, int64_t row, int32_t cosine) {
    const int64_t lanes = p.lanes / 2;
    int64_t b, e, refused = 0;
    for (loop_walk w = loop_walk_start(&p, VML_GRAIN, n, row); loop_walk_next(&w, &b, &e);)
        for (int64_t v = b; v < e; v += lanes) {
            const int64_t m = e - v < lanes ? e - v : lanes;
            int cw2 = 1, ported = 1;
            for (int64_t i = v; i < v + m; i++) {
                cw2 &= fabs(x[i]) < SLEEF_TRIGRANGEMAX2;
                ported &= fabs(x[i]) < SLEEF_TRIGRANGEMAX;
            }
            if (!ported) {
                refused += m;
                continue;
            }
            for (int64_t i = v; i < v + m; i++) out[i] = sleef_sincos_d_u1(x[i], cosine, cw2);
        }
    return refused;
}

/* x86: torch.erfinv forward runs MKL VML (vsErfInv, VML_HA) under every capability (aten vml.h
 * IMPLEMENT_VML_MKL, UnaryOpsKernel IMPLEMENT_FLOAT_KERNEL), elementwise (neither the ATen level nor the
 * thread split changes bits, measured; vmath.h mkl_vml_erfinvf, every input): MKL's generic path and its Intel
 * SSE4.2 path (the same kernel), its Intel AVX2 path (fused); MKL's AVX-512 path is refused by the caller; aarch64
 * runs ATen's calc_erfinv. The backward is autograd's exp, pow and mul. */
void erfinv_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (is_arm(&p)) { /* no MKL: ATen's scalar calc_erfinv on every element (vmath.h aten_calc_erfinvf_a64) */
        for (int64_t i = 0; i < n; i++) out[i] = aten_calc_erfinvf_a64(x[i]);
        return;
    }
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_erfinvf(x[i], p.blas == BLAS_MKL_AVX2);
}

/* x86: torch.erf forward runs MKL VML (vsErf, VML_HA) under every capability and thread count (aten vml.h,
 * UnaryOpsKernel IMPLEMENT_FLOAT_KERNEL), elementwise (vmath.h mkl_vml_erff, every input, no CPU estimate): MKL's
 * generic path and its Intel SSE4.2 path (the generic steps), its Intel AVX2 path (fused); MKL's AVX-512 path is
 * refused by the caller (harness/impl/unary.py). The backward is autograd's: grad * 2/sqrt(pi) * exp(-x*x).
 * aarch64 (no MKL): vml.h's verf is vec::map of Vectorized<float>::erf over each run ATen's loop hands
 * IMPLEMENT_ITERATOR_LAMBDA (a strided run copied into 2,048-element buffers, a multiple of the lanes), the
 * last partial vector loaded zero-padded, so every element is a lane. N1's and V2's objects (4-lane NEON,
 * disassembled): ATen's A&S polynomial whose exp_u20 hands the whole vector to Sleef_expf4_u10 where one lane
 * has |x*x| > 0x1.5d5e2ap+6 (vmath.h aten_neon_erff): the 4-lane groups start at each thread's chunk of
 * for_each (grain 2,048) and at each run (`row` elements) in it. V1's SVE256 object: Sleef_erffx_u10sve per
 * lane (vmath.h sleef_erff_u10). A NaN x: x quieted (NEON), x quieted with its sign flipped (SVE256). */
static float erf_arm_nan(const profile_t *p, float x) {
    return obj_kind(p) == OBJ_SVE ? quieted(vm_u2f(vm_f2u(x) ^ 0x80000000u)) : quieted(x);
}

/* One 4-lane vector of ATen's NEON erf: SLEEF's exp for every lane where one lane's x*x passes exp_u20's bound. */
static void erf_neon_vector(const profile_t *p, const float *x, float *out, int64_t m) {
    int sleef = 0;
    for (int64_t j = 0; j < m; j++) sleef |= x[j] * x[j] > ATEN_NEON_EXP_U20_BOUND;
    for (int64_t j = 0; j < m; j++) out[j] = x[j] != x[j] ? erf_arm_nan(p, x[j]) : aten_neon_erff(x[j], sleef);
}

/* Tensor shapes: x, out (n,), runs of `row` elements (aarch64 NEON objects only; n: one run). */
void erf_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    if (obj_kind(&p) == OBJ_NEON) vml_map(&p, 4, erf_neon_vector, x, out, n, row);
    else if (obj_kind(&p) == OBJ_SVE)
        for (int64_t i = 0; i < n; i++) out[i] = x[i] != x[i] ? erf_arm_nan(&p, x[i]) : sleef_erff_u10(x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_erff(x[i], p.blas == BLAS_MKL_AVX2);
}

/* x86: torch.log2/acos forward run MKL VML (vsLog2/vsAcos, VML_HA) under every capability and thread count
 * (aten vml.h, UnaryOpsKernel), elementwise (vmath.h mkl_vml_log2f/mkl_vml_acosf, every input): MKL's generic
 * path and its Intel SSE4.2 path (the generic steps), its Intel AVX2 path (fused), from the profile's RCPPS and
 * RSQRTPS estimates (AMD's, or QEMU's exact ones); an Intel CPU's own estimates and MKL's AVX-512 path are
 * refused by the caller (harness/impl/unary.py). Their backwards are autograd's ops (grad / (x * ln 2);
 * grad * -rsqrt(1 - x*x)).
 * aarch64 (no MKL): vec::map of Vectorized<float>::log2/acos, every element a lane (disassembled): SLEEF's
 * Sleef_log2f4_u10/acosf4_u10 (N1, V2) and Sleef_log2fx_u10sve/acosfx_u10sve (V1), lane by lane the same steps
 * (vmath.h sleef_log2f_u10, sleef_acosf_u10). acos of a NaN: the NaN with its sign cleared, quieted (FABS, then
 * FSUB keeps it); of |x| > 1: FSQRT's default NaN, +qNaN. */
void log2_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (is_arm(&p)) {
        for (int64_t i = 0; i < n; i++) out[i] = sleef_log2f_u10(x[i]);
        return;
    }
    const int exact = p.rsqrt == RSQRT_EXACT, fused = p.blas == BLAS_MKL_AVX2;
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_log2f(x[i], exact, fused);
}

void acos_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (is_arm(&p)) {
        for (int64_t i = 0; i < n; i++)
            out[i] = x[i] != x[i]           ? quieted(fabsf(x[i]))
                     : fabsf(x[i]) > 1.0f ? vm_u2f(0x7fc00000u)
                                          : sleef_acosf_u10(x[i]);
        return;
    }
    const int fused = p.blas == BLAS_MKL_AVX2;
    for (int64_t i = 0; i < n; i++) out[i] = mkl_vml_acosf(x[i], p.rsqrt, fused);
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
        run_binary(&p, p.lanes, GRAIN_SIZE, tanh_bwd_lane_unfused, tanh_bwd_lane, grad, out, grad_x, n, n);
    else run_binary(&p, p.lanes, GRAIN_SIZE, tanh_bwd_lane, tanh_bwd_lane, grad, out, grad_x, n, n);
}

/* tanh_backward_kernel where TensorIterator reads the output as one scalar per inner loop (Loops.h
 * vectorized_loop with S = 2: the output broadcast along the inner dim). The vector body's one_vec - b*b
 * is loop-invariant there, and the x86 objects compute it unfused, a * (1 - b*b) with b*b rounded (GCC
 * hoists it out of the loop before it would contract it); the scalar tail (basic_loop) is contracted as in
 * tanh_backward on the AVX2/AVX-512 objects. Measured on an AMD EPYC Zen 5 at avx2 and avx512: 17 of 39 and
 * 10 of 29 random such draws had other bits with contracted lanes, 0 with these. Rows of `row` elements, in
 * blocks of 2 vectors (tanh_backward_stub is also registered for AVX-512: 16 lanes there). Tensor shapes:
 * grad, out, grad_x (n,). */
static void tanh_backward_scalar_out(profile_t p, const float *grad, const float *out, float *grad_x, int64_t n,
                                     int64_t row) {
    run_binary(&p, p.lanes_wide, GRAIN_SIZE, tanh_bwd_lane_unfused, tanh_bwd_lane, grad, out, grad_x, n, row);
}

/* Whether grad's NaN wins where grad and 1 - b*b are both NaN, in the x86 avx2/avx512 objects (measured on a
 * Zen 5, NaNs of random payloads, both signs, quiet and signalling, every tail length after 0 to 2 steps;
 * the default object keeps b's everywhere): place as loop_places gives it, t the length of the element's
 * tail, L = lanes_wide. Neither operand read as a scalar: the second Vectorized of each body step (the
 * first and the tail keep b's). grad read as a scalar: the whole body, and in the tail its first element,
 * or its first L + 1 where it holds more than L. The output read as a scalar: nowhere. */
static int tanh_bwd_grad_nan(const profile_t *p, int32_t scalar, float place, int64_t t) {
    const int64_t lanes = p->lanes_wide, j = (int64_t)(-1.0f - place);
    if (scalar == 2) return 0;
    if (place >= 0.0f) return scalar == 1 || place >= (float)lanes;
    return scalar == 1 && (j == 0 || (t > lanes && j <= lanes));
}

/* tanh_backward_kernel over TensorIterator's loop: rows of `row` elements (1: the basic loop, b's NaN where
 * both are NaN, as the scalar lambda inlined there gives it), `scalar` the input read as a scalar (1 grad,
 * 2 the output, 0 none); x86. Tensor shapes: grad, out, grad_x (n,). */
void tanh_backward_rows(profile_t p, const float *grad, const float *out, float *grad_x, int64_t n, int64_t row,
                        int32_t scalar) {
    if (scalar == 2 && p.aten) tanh_backward_scalar_out(p, grad, out, grad_x, n, row);
    else run_binary(&p, p.lanes_wide, GRAIN_SIZE, tanh_bwd_lane, tanh_bwd_lane, grad, out, grad_x, n, row);
    if (!p.aten || is_arm(&p)) return;
    int64_t i = 0;
    while (i < n && !(isnan(grad[i]) && isnan(out[i]))) i++;
    if (i == n) return; /* no element where both are NaN */
    for (int64_t k = 0; k < n; k++) /* b's NaN where both are */
        if (isnan(grad[k]) && isnan(out[k])) grad_x[k] = quieted(out[k]);
    if (row == 1 && n > 1) return; /* the basic loop: b's NaN everywhere */
    float *place = malloc((size_t)n * sizeof(float));
    if (!place) return;
    loop_places(&p, place, n, row);
    int64_t t = 0;
    for (int64_t k = 0; k < n; k++) {
        if (place[k] == -1.0f)
            for (t = 1; k + t < n && place[k + t] == -1.0f - (float)t; t++) {}
        if (isnan(grad[k]) && isnan(out[k]) && tanh_bwd_grad_nan(&p, scalar, place[k], t)) grad_x[k] = quieted(grad[k]);
    }
    free(place);
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
EW_INLINE float dnnl_fma(int fma, float a, float b, float c) {
    return fma ? fmaf(a, b, c) : a * b + c;
}

/* oneDNN exp_compute_vector_fwd: n = floor(x*log2e + 0.5), r = x - n*ln2, degree-5 polynomial,
 * times 2^(n-1) times 2; inputs below ln(FLT_MIN) give 0. */
EW_INLINE float dnnl_expf(int fma, float x) {
    const float ln_flt_min = vm_u2f(0xc2aeac50), ln_flt_max = vm_u2f(0x42b17218);
    const float ln2 = vm_u2f(0x3f317218), log2e = vm_u2f(0x3fb8aa3b);
    int under = x < ln_flt_min;
    x = vm_self(x < ln_flt_max, x, ln_flt_max); /* vminps/vmaxps: a NaN x gives the bound */
    x = vm_self(x > ln_flt_min, x, ln_flt_min);
    float v = x * log2e + 0.5f, fx = vm_floorf(v);
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
    /* fminf(x, ln FLT_MAX) then fmaxf(x, ln FLT_MIN), branch-free with glibc's NaN results: a quiet NaN
     * gives the upper bound, a signalling one the lower (glibc's fminf returns it quieted, fmaxf drops it) */
    const uint32_t ax = vm_f2u(x) & 0x7fffffffu;
    const int snan = (ax > 0x7f800000u) & (ax < 0x7fc00000u);
    x = vm_self(x < vm_u2f(0x42b17218), x, vm_u2f(0x42b17218));
    x = vm_self(snan, vm_u2f(0xc2aeac50), x);
    x = vm_self(x > vm_u2f(0xc2aeac50), x, vm_u2f(0xc2aeac50));
    float t = x * vm_u2f(0x3fb8aa3b);
    float f = vm_floorf(t);
    float u = (t - f) + 1.0f;
    /* ldexpf(fexpa, f), fexpa in [1, 2), f in [-126, 128] after the clamp: one multiply by 2^f, which
     * is exact for f <= 127 (so rounded once, as ldexpf), f = 128 as 2^127 * 2 (an exact step, then
     * the overflow). Checked equal to ldexpf(floorf) on all 2^32 inputs. */
    const int32_t k = (int32_t)f, k1 = k > 127 ? 127 : k < -127 ? -127 : k;
    const float p2 = vm_u2f(k1 >= -126 ? (uint32_t)(k1 + 127) << 23 : 0x00400000u);
    float scale = (sve_fexpa(vm_u2f(vm_f2u(u) >> 17)) * p2) * vm_self(k > 127, 2.0f, 1.0f);
    float d = u - vm_u2f(vm_f2u(u) & ~((1u << 17) - 1));
    float q = fmaf(vm_u2f(0x3e772df2), d, vm_u2f(0x3f31721c));
    q = fmaf(q, d, 1.0f);
    return scale * q;
}

#define DNNL_AS_P vm_u2f(0x3ea7ba05)         /* 0.3275911 */
#define DNNL_INV_SQRT2 vm_u2f(0x3f3504f3)    /* 1/sqrt(2) */
#define DNNL_INV_SQRTPI vm_u2f(0x3f106eba)   /* 1/sqrt(pi) */

/* erf(x) = sign(x) * (1 - r(t) t exp(-x^2)), t = 1/(1 + p|x|): q = -exp(-x^2) * t first. */
EW_INLINE float dnnl_erf_tail(int fma, float x, float q_neg) {
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

/* aarch64 without SVE (N1): the forward is oneDNN's "acl" eltwise, Arm Compute Library v52.6's
 * NEON activation (cpu/kernels/activation/generic/neon/fp_impl.h GELU), 4 lanes along x:
 * x * ((1 + erf(x * 0.70710678118f)) * 0.5). Its vector erf reads a 513-entry table of
 * (erf(r), 2/sqrt(pi) exp(-r^2)) at r = i/128 (arm_compute::erf_f32_lut, the values as stored in
 * libarm_compute.so): r = |a| rounded to 1/128 (by adding 2^16), d = |a| - r,
 * erf = fma(scale, fma(-d*d, fma(1/3, d, r), d), erf(r)); 1 above |a| = 3.9375; a's sign.
 * Elements left over after the last full vector of a window take x * ((erff(x / 1.41421356237f) + 1) * 0.5)
 * with aarch64's libm erff. */
static const uint32_t acl_erf_lut[513][2] = {
    {0x00000000, 0x3f906ebb}, {0x3c106dfa, 0x3f906c79}, {0x3c906bb8, 0x3f9065b4}, {0x3cd89bf0, 0x3f905a6c},
    {0x3d1062b2, 0x3f904aa3}, {0x3d3472ea, 0x3f90365a}, {0x3d587d7f, 0x3f901d93}, {0x3d7c8154, 0x3f900050},
    {0x3d903ea4, 0x3f8fde94}, {0x3da2381f, 0x3f8fb862}, {0x3db42c8d, 0x3f8f8dbd}, {0x3dc61b5f, 0x3f8f5eab},
    {0x3dd80409, 0x3f8f2b2e}, {0x3de9e5fc, 0x3f8ef34c}, {0x3dfbc0ad, 0x3f8eb70a}, {0x3e06c9c8, 0x3f8e766e},
    {0x3e0faf0d, 0x3f8e317d}, {0x3e188fe1, 0x3f8de83e}, {0x3e216bfe, 0x3f8d9ab9}, {0x3e2a4321, 0x3f8d48f3},
    {0x3e331506, 0x3f8cf2f5}, {0x3e3be169, 0x3f8c98c6}, {0x3e44a808, 0x3f8c3a6f}, {0x3e4d68a1, 0x3f8bd7f8},
    {0x3e5622f2, 0x3f8b716c}, {0x3e5ed6b9, 0x3f8b06d2}, {0x3e6783b7, 0x3f8a9834}, {0x3e7029aa, 0x3f8a259e},
    {0x3e78c855, 0x3f89af18}, {0x3e80afbc, 0x3f8934af}, {0x3e84f76b, 0x3f88b66c}, {0x3e893b19, 0x3f88345d},
    {0x3e8d7aa7, 0x3f87ae8b}, {0x3e91b5f8, 0x3f872504}, {0x3e95ecee, 0x3f8697d3}, {0x3e9a1f6b, 0x3f860705},
    {0x3e9e4d54, 0x3f8572a8}, {0x3ea2768c, 0x3f84dac8}, {0x3ea69af8, 0x3f843f72}, {0x3eaaba7a, 0x3f83a0b6},
    {0x3eaed4fa, 0x3f82fe9f}, {0x3eb2ea5c, 0x3f82593e}, {0x3eb6fa85, 0x3f81b0a0}, {0x3ebb055d, 0x3f8104d3},
    {0x3ebf0aca, 0x3f8055e8}, {0x3ec30ab3, 0x3f7f47d8}, {0x3ec70501, 0x3f7ddddf}, {0x3ecaf99b, 0x3f7c6e05},
    {0x3ecee869, 0x3f7af867}, {0x3ed2d156, 0x3f797d26}, {0x3ed6b44b, 0x3f77fc62}, {0x3eda9132, 0x3f76763c},
    {0x3ede67f6, 0x3f74ead4}, {0x3ee23882, 0x3f735a4c}, {0x3ee602c2, 0x3f71c4c4}, {0x3ee9c6a2, 0x3f702a5f},
    {0x3eed840e, 0x3f6e8b3e}, {0x3ef13af5, 0x3f6ce783}, {0x3ef4eb45, 0x3f6b3f51}, {0x3ef894ea, 0x3f6992c9},
    {0x3efc37d5, 0x3f67e20f}, {0x3effd3f5, 0x3f662d45}, {0x3f01b49d, 0x3f64748e}, {0x3f037bca, 0x3f62b80d},
    {0x3f053f7b, 0x3f60f7e5}, {0x3f06ffa8, 0x3f5f3439}, {0x3f08bc4a, 0x3f5d6d2d}, {0x3f0a755a, 0x3f5ba2e3},
    {0x3f0c2ad3, 0x3f59d57e}, {0x3f0ddcae, 0x3f580523}, {0x3f0f8ae6, 0x3f5631f4}, {0x3f113574, 0x3f545c14},
    {0x3f12dc54, 0x3f5283a7}, {0x3f147f81, 0x3f50a8cf}, {0x3f161ef6, 0x3f4ecbb1}, {0x3f17baae, 0x3f4cec6d},
    {0x3f1952a6, 0x3f4b0b28}, {0x3f1ae6da, 0x3f492804}, {0x3f1c7745, 0x3f474323}, {0x3f1e03e5, 0x3f455ca8},
    {0x3f1f8cb7, 0x3f4374b5}, {0x3f2111b7, 0x3f418b6b}, {0x3f2292e4, 0x3f3fa0ee}, {0x3f24103a, 0x3f3db55e},
    {0x3f2589b9, 0x3f3bc8dc}, {0x3f26ff5d, 0x3f39db8a}, {0x3f287126, 0x3f37ed89}, {0x3f29df13, 0x3f35fef8},
    {0x3f2b4922, 0x3f340ff9}, {0x3f2caf53, 0x3f3220ab}, {0x3f2e11a4, 0x3f30312e}, {0x3f2f7017, 0x3f2e41a1},
    {0x3f30caab, 0x3f2c5223}, {0x3f322160, 0x3f2a62d3}, {0x3f337437, 0x3f2873cf}, {0x3f34c32f, 0x3f268534},
    {0x3f360e4c, 0x3f249721}, {0x3f37558c, 0x3f22a9b3}, {0x3f3898f3, 0x3f20bd06}, {0x3f39d881, 0x3f1ed137},
    {0x3f3b1438, 0x3f1ce661}, {0x3f3c4c1b, 0x3f1afca0}, {0x3f3d802c, 0x3f19140f}, {0x3f3eb06c, 0x3f172cc9},
    {0x3f3fdce0, 0x3f1546e7}, {0x3f410589, 0x3f136284}, {0x3f422a6b, 0x3f117fb9}, {0x3f434b89, 0x3f0f9e9e},
    {0x3f4468e7, 0x3f0dbf4c}, {0x3f458287, 0x3f0be1db}, {0x3f46986f, 0x3f0a0662}, {0x3f47aaa2, 0x3f082cf7},
    {0x3f48b925, 0x3f0655b1}, {0x3f49c3fb, 0x3f0480a6}, {0x3f4acb29, 0x3f02adeb}, {0x3f4bceb4, 0x3f00dd96},
    {0x3f4ccea1, 0x3efe1f73}, {0x3f4dcaf4, 0x3efa88d5}, {0x3f4ec3b4, 0x3ef6f777}, {0x3f4fb8e5, 0x3ef36b80},
    {0x3f50aa8d, 0x3eefe513}, {0x3f5198b1, 0x3eec6455}, {0x3f528358, 0x3ee8e968}, {0x3f536a86, 0x3ee5746d},
    {0x3f544e43, 0x3ee20584}, {0x3f552e93, 0x3ede9ccc}, {0x3f560b7e, 0x3edb3a64}, {0x3f56e50a, 0x3ed7de6a},
    {0x3f57bb3d, 0x3ed488f8}, {0x3f588e1e, 0x3ed13a2b}, {0x3f595db4, 0x3ecdf21c}, {0x3f5a2a05, 0x3ecab0e4},
    {0x3f5af318, 0x3ec7769b}, {0x3f5bb8f4, 0x3ec44359}, {0x3f5c7ba1, 0x3ec11733}, {0x3f5d3b25, 0x3ebdf23d},
    {0x3f5df788, 0x3ebad48d}, {0x3f5eb0d1, 0x3eb7be35}, {0x3f5f6707, 0x3eb4af46}, {0x3f601a32, 0x3eb1a7d3},
    {0x3f60ca59, 0x3eaea7ea}, {0x3f617784, 0x3eabaf9a}, {0x3f6221bb, 0x3ea8bef3}, {0x3f62c905, 0x3ea5d600},
    {0x3f636d69, 0x3ea2f4ce}, {0x3f640ef1, 0x3ea01b68}, {0x3f64ada3, 0x3e9d49d9}, {0x3f654987, 0x3e9a8029},
    {0x3f65e2a6, 0x3e97be62}, {0x3f667906, 0x3e95048b}, {0x3f670cb1, 0x3e9252aa}, {0x3f679dae, 0x3e8fa8c5},
    {0x3f682c06, 0x3e8d06e3}, {0x3f68b7bf, 0x3e8a6d05}, {0x3f6940e2, 0x3e87db31}, {0x3f69c778, 0x3e855168},
    {0x3f6a4b88, 0x3e82cfad}, {0x3f6acd1a, 0x3e805600}, {0x3f6b4c36, 0x3e7bc8c2}, {0x3f6bc8e5, 0x3e76f5a0},
    {0x3f6c432f, 0x3e723298}, {0x3f6cbb1b, 0x3e6d7fa5}, {0x3f6d30b1, 0x3e68dcc1}, {0x3f6da3fa, 0x3e6449e7},
    {0x3f6e14fe, 0x3e5fc70e}, {0x3f6e83c4, 0x3e5b542b}, {0x3f6ef055, 0x3e56f136}, {0x3f6f5ab8, 0x3e529e21},
    {0x3f6fc2f5, 0x3e4e5adf}, {0x3f702915, 0x3e4a2761}, {0x3f708d1f, 0x3e460399}, {0x3f70ef1b, 0x3e41ef75},
    {0x3f714f11, 0x3e3deae4}, {0x3f71ad09, 0x3e39f5d2}, {0x3f72090a, 0x3e36102b}, {0x3f72631c, 0x3e3239db},
    {0x3f72bb46, 0x3e2e72cb}, {0x3f731191, 0x3e2abae4}, {0x3f736604, 0x3e27120f}, {0x3f73b8a5, 0x3e237833},
    {0x3f74097e, 0x3e1fed36}, {0x3f745895, 0x3e1c70fd}, {0x3f74a5f2, 0x3e19036e}, {0x3f74f19b, 0x3e15a46d},
    {0x3f753b98, 0x3e1253dc}, {0x3f7583f1, 0x3e0f119f}, {0x3f75caac, 0x3e0bdd96}, {0x3f760fd1, 0x3e08b7a4},
    {0x3f765366, 0x3e059fa9}, {0x3f769573, 0x3e029586}, {0x3f76d5fe, 0x3dff3230}, {0x3f77150f, 0x3df95481},
    {0x3f7752ab, 0x3df391b9}, {0x3f778eda, 0x3dede995}, {0x3f77c9a2, 0x3de85bd0}, {0x3f78030a, 0x3de2e825},
    {0x3f783b18, 0x3ddd8e4c}, {0x3f7871d3, 0x3dd84dfe}, {0x3f78a741, 0x3dd326f3}, {0x3f78db68, 0x3dce18e3},
    {0x3f790e50, 0x3dc92385}, {0x3f793ffc, 0x3dc4468f}, {0x3f797075, 0x3dbf81b6}, {0x3f799fbf, 0x3dbad4b0},
    {0x3f79cde1, 0x3db63f32}, {0x3f79fae1, 0x3db1c0f1}, {0x3f7a26c4, 0x3dad59a1}, {0x3f7a518f, 0x3da908f6},
    {0x3f7a7b4a, 0x3da4cea4}, {0x3f7aa3f9, 0x3da0aa5e}, {0x3f7acba1, 0x3d9c9bd9}, {0x3f7af248, 0x3d98a2c7},
    {0x3f7b17f4, 0x3d94bedd}, {0x3f7b3ca9, 0x3d90efcd}, {0x3f7b606e, 0x3d8d354b}, {0x3f7b8346, 0x3d898f0a},
    {0x3f7ba537, 0x3d85fcbf}, {0x3f7bc646, 0x3d827e1d}, {0x3f7be677, 0x3d7e25af}, {0x3f7c05d1, 0x3d777546},
    {0x3f7c2456, 0x3d70ea68}, {0x3f7c420d, 0x3d6a847d}, {0x3f7c5ef9, 0x3d6442f0}, {0x3f7c7b1f, 0x3d5e252a},
    {0x3f7c9684, 0x3d582a98}, {0x3f7cb12b, 0x3d5252a5}, {0x3f7ccb1a, 0x3d4c9cbd}, {0x3f7ce454, 0x3d47084e},
    {0x3f7cfcdd, 0x3d4194c7}, {0x3f7d14ba, 0x3d3c4196}, {0x3f7d2bef, 0x3d370e2c}, {0x3f7d427f, 0x3d31f9fb},
    {0x3f7d586f, 0x3d2d0474}, {0x3f7d6dc2, 0x3d282d0c}, {0x3f7d827b, 0x3d237336}, {0x3f7d96a0, 0x3d1ed669},
    {0x3f7daa32, 0x3d1a561b}, {0x3f7dbd36, 0x3d15f1c6}, {0x3f7dcfb0, 0x3d11a8e1}, {0x3f7de1a2, 0x3d0d7ae9},
    {0x3f7df30f, 0x3d09675a}, {0x3f7e03fd, 0x3d056db0}, {0x3f7e146c, 0x3d018d6b}, {0x3f7e2461, 0x3cfb8c15},
    {0x3f7e33de, 0x3cf42e22}, {0x3f7e42e8, 0x3ced0003}, {0x3f7e517f, 0x3ce600c0}, {0x3f7e5fa9, 0x3cdf2f67},
    {0x3f7e6d66, 0x3cd88b05}, {0x3f7e7abb, 0x3cd212ad}, {0x3f7e87aa, 0x3ccbc574}, {0x3f7e9435, 0x3cc5a273},
    {0x3f7ea05f, 0x3cbfa8c4}, {0x3f7eac2b, 0x3cb9d786}, {0x3f7eb79a, 0x3cb42ddb}, {0x3f7ec2b1, 0x3caeaae6},
    {0x3f7ecd71, 0x3ca94dcf}, {0x3f7ed7dc, 0x3ca415c2}, {0x3f7ee1f4, 0x3c9f01ec}, {0x3f7eebbd, 0x3c9a117f},
    {0x3f7ef537, 0x3c9543ae}, {0x3f7efe66, 0x3c9097b1}, {0x3f7f074b, 0x3c8c0cc2}, {0x3f7f0fe8, 0x3c87a21f},
    {0x3f7f1840, 0x3c83570a}, {0x3f7f2053, 0x3c7e558a}, {0x3f7f2826, 0x3c763931}, {0x3f7f2fb8, 0x3c6e579b},
    {0x3f7f370c, 0x3c66af65}, {0x3f7f3e23, 0x3c5f3f2d}, {0x3f7f4500, 0x3c58059c}, {0x3f7f4ba4, 0x3c51015f},
    {0x3f7f5211, 0x3c4a3127}, {0x3f7f5848, 0x3c4393af}, {0x3f7f5e4b, 0x3c3d27b5}, {0x3f7f641b, 0x3c36ebff},
    {0x3f7f69ba, 0x3c30df57}, {0x3f7f6f29, 0x3c2b008e}, {0x3f7f746a, 0x3c254e7b}, {0x3f7f797f, 0x3c1fc7fa},
    {0x3f7f7e67, 0x3c1a6bee}, {0x3f7f8326, 0x3c15393d}, {0x3f7f87bb, 0x3c102ed6}, {0x3f7f8c29, 0x3c0b4bab},
    {0x3f7f9070, 0x3c068eb5}, {0x3f7f9492, 0x3c01f6f1}, {0x3f7f9890, 0x3bfb06c5}, {0x3f7f9c6b, 0x3bf26625},
    {0x3f7fa024, 0x3bea0a1d}, {0x3f7fa3bc, 0x3be1f0d3}, {0x3f7fa734, 0x3bda1876}, {0x3f7faa8d, 0x3bd27f42},
    {0x3f7fadc8, 0x3bcb237a}, {0x3f7fb0e6, 0x3bc4036c}, {0x3f7fb3e8, 0x3bbd1d6f}, {0x3f7fb6cf, 0x3bb66fe6},
    {0x3f7fb99c, 0x3baff93a}, {0x3f7fbc4f, 0x3ba9b7e1}, {0x3f7fbeea, 0x3ba3aa56}, {0x3f7fc16d, 0x3b9dcf20},
    {0x3f7fc3d9, 0x3b9824ce}, {0x3f7fc62e, 0x3b92a9f7}, {0x3f7fc86e, 0x3b8d5d3c}, {0x3f7fca99, 0x3b883d46},
    {0x3f7fccb0, 0x3b8348c6}, {0x3f7fceb4, 0x3b7cfce8}, {0x3f7fd0a5, 0x3b73ba24}, {0x3f7fd283, 0x3b6ac6d3},
    {0x3f7fd450, 0x3b622096}, {0x3f7fd60c, 0x3b59c51d}, {0x3f7fd7b7, 0x3b51b229}, {0x3f7fd953, 0x3b49e589},
    {0x3f7fdadf, 0x3b425d18}, {0x3f7fdc5c, 0x3b3b16c2}, {0x3f7fddcc, 0x3b341080}, {0x3f7fdf2d, 0x3b2d4858},
    {0x3f7fe081, 0x3b26bc5e}, {0x3f7fe1c8, 0x3b206ab2}, {0x3f7fe303, 0x3b1a5183}, {0x3f7fe431, 0x3b146f09},
    {0x3f7fe554, 0x3b0ec18b}, {0x3f7fe66c, 0x3b09475d}, {0x3f7fe77a, 0x3b03feda}, {0x3f7fe87d, 0x3afdccdc},
    {0x3f7fe975, 0x3af3f919}, {0x3f7fea65, 0x3aea7f6b}, {0x3f7feb4b, 0x3ae15ce8}, {0x3f7fec27, 0x3ad88eb8},
    {0x3f7fecfc, 0x3ad0121b}, {0x3f7fedc8, 0x3ac7e464}, {0x3f7fee8c, 0x3ac002f9}, {0x3f7fef48, 0x3ab86b52},
    {0x3f7feffd, 0x3ab11afe}, {0x3f7ff0aa, 0x3aaa0f9a}, {0x3f7ff151, 0x3aa346d7}, {0x3f7ff1f1, 0x3a9cbe77},
    {0x3f7ff28a, 0x3a96744c}, {0x3f7ff31e, 0x3a90663b}, {0x3f7ff3ab, 0x3a8a9237}, {0x3f7ff433, 0x3a84f643},
    {0x3f7ff4b5, 0x3a7f20e7}, {0x3f7ff532, 0x3a74bdd2}, {0x3f7ff5aa, 0x3a6abfa9}, {0x3f7ff61d, 0x3a6122eb},
    {0x3f7ff68b, 0x3a57e42f}, {0x3f7ff6f5, 0x3a4f002c}, {0x3f7ff75a, 0x3a4673af}, {0x3f7ff7bb, 0x3a3e3ba2},
    {0x3f7ff819, 0x3a365507}, {0x3f7ff872, 0x3a2ebcf5}, {0x3f7ff8c7, 0x3a2770a2}, {0x3f7ff919, 0x3a206d53},
    {0x3f7ff968, 0x3a19b066}, {0x3f7ff9b3, 0x3a133753}, {0x3f7ff9fb, 0x3a0cffa3}, {0x3f7ffa40, 0x3a0706f3},
    {0x3f7ffa82, 0x3a014af9}, {0x3f7ffac1, 0x39f792ea}, {0x3f7ffafe, 0x39ed0089}, {0x3f7ffb38, 0x39e2daa1},
    {0x3f7ffb6f, 0x39d91d2c}, {0x3f7ffba5, 0x39cfc449}, {0x3f7ffbd7, 0x39c6cc35}, {0x3f7ffc08, 0x39be314e},
    {0x3f7ffc36, 0x39b5f010}, {0x3f7ffc63, 0x39ae051b}, {0x3f7ffc8e, 0x39a66d2a}, {0x3f7ffcb6, 0x399f2511},
    {0x3f7ffcdd, 0x399829c8}, {0x3f7ffd02, 0x39917859}, {0x3f7ffd26, 0x398b0df3}, {0x3f7ffd48, 0x3984e7d1},
    {0x3f7ffd68, 0x397e06aa}, {0x3f7ffd87, 0x3972bbdb}, {0x3f7ffda5, 0x3967ea53}, {0x3f7ffdc1, 0x395d8d4c},
    {0x3f7ffddc, 0x3953a035}, {0x3f7ffdf6, 0x394a1ea7}, {0x3f7ffe0f, 0x3941045d}, {0x3f7ffe27, 0x39384d4a},
    {0x3f7ffe3d, 0x392ff56e}, {0x3f7ffe53, 0x3927f906}, {0x3f7ffe67, 0x3920545f}, {0x3f7ffe7b, 0x391903fb},
    {0x3f7ffe8d, 0x39120478}, {0x3f7ffe9f, 0x390b5282}, {0x3f7ffeb0, 0x3904eafc}, {0x3f7ffec0, 0x38fd95bc},
    {0x3f7ffed0, 0x38f1de81}, {0x3f7ffedf, 0x38e6aa98}, {0x3f7ffeed, 0x38dbf4a2}, {0x3f7ffefa, 0x38d1b778},
    {0x3f7fff07, 0x38c7ee0d}, {0x3f7fff13, 0x38be939b}, {0x3f7fff1f, 0x38b5a384}, {0x3f7fff2a, 0x38ad1953},
    {0x3f7fff34, 0x38a4f0bc}, {0x3f7fff3f, 0x389d25ac}, {0x3f7fff48, 0x3895b435}, {0x3f7fff51, 0x388e988a},
    {0x3f7fff5a, 0x3887cf10}, {0x3f7fff62, 0x3881542f}, {0x3f7fff6a, 0x38764943}, {0x3f7fff72, 0x386a7a5b},
    {0x3f7fff79, 0x385f3552}, {0x3f7fff80, 0x3854745a}, {0x3f7fff86, 0x384a31c4}, {0x3f7fff8c, 0x384067f9},
    {0x3f7fff92, 0x383711b7}, {0x3f7fff98, 0x382e2a0e}, {0x3f7fff9d, 0x3825ac0d}, {0x3f7fffa2, 0x381d9331},
    {0x3f7fffa7, 0x3815dadd}, {0x3f7fffab, 0x380e7efc}, {0x3f7fffb0, 0x38077b5d}, {0x3f7fffb4, 0x3800cc24},
    {0x3f7fffb8, 0x37f4dae6}, {0x3f7fffbc, 0x37e8b7b5}, {0x3f7fffbf, 0x37dd2766}, {0x3f7fffc2, 0x37d223c1},
    {0x3f7fffc6, 0x37c7a653}, {0x3f7fffc9, 0x37bda91a}, {0x3f7fffcc, 0x37b42612}, {0x3f7fffce, 0x37ab17dd},
    {0x3f7fffd1, 0x37a2791c}, {0x3f7fffd3, 0x379a44a7}, {0x3f7fffd6, 0x379275c7}, {0x3f7fffd8, 0x378b0789},
    {0x3f7fffda, 0x3783f5da}, {0x3f7fffdc, 0x377a786d}, {0x3f7fffde, 0x376dad83}, {0x3f7fffe0, 0x37618260},
    {0x3f7fffe2, 0x3755f022}, {0x3f7fffe3, 0x374aefed}, {0x3f7fffe5, 0x37407a03}, {0x3f7fffe6, 0x373688d1},
    {0x3f7fffe8, 0x372d1576}, {0x3f7fffe9, 0x37241a5d}, {0x3f7fffea, 0x371b9184}, {0x3f7fffeb, 0x371375c2},
    {0x3f7fffec, 0x370bc1f0}, {0x3f7fffee, 0x370470e7}, {0x3f7fffef, 0x36fafbda}, {0x3f7fffef, 0x36edc96e},
    {0x3f7ffff0, 0x36e14117}, {0x3f7ffff1, 0x36d55bf5}, {0x3f7ffff2, 0x36ca1096}, {0x3f7ffff3, 0x36bf58f6},
    {0x3f7ffff4, 0x36b52c7e}, {0x3f7ffff4, 0x36ab8607}, {0x3f7ffff5, 0x36a25cfa}, {0x3f7ffff5, 0x3699ad0b},
    {0x3f7ffff6, 0x36916f5a}, {0x3f7ffff7, 0x36899ec2}, {0x3f7ffff7, 0x3682353e}, {0x3f7ffff8, 0x36765d05},
    {0x3f7ffff8, 0x36690919}, {0x3f7ffff9, 0x365c67d8}, {0x3f7ffff9, 0x36506ef5}, {0x3f7ffff9, 0x3645178f},
    {0x3f7ffffa, 0x363a5758}, {0x3f7ffffa, 0x36302770}, {0x3f7ffffa, 0x362680f9}, {0x3f7ffffb, 0x361d5d13},
    {0x3f7ffffb, 0x3614b4df}, {0x3f7ffffb, 0x360c8336}, {0x3f7ffffc, 0x3604bf80}, {0x3f7ffffc, 0x35facc9b},
    {0x3f7ffffc, 0x35ece4f0}, {0x3f7ffffc, 0x35dfba3f}, {0x3f7ffffd, 0x35d3423a}, {0x3f7ffffd, 0x35c77971},
    {0x3f7ffffd, 0x35bc4eb7}, {0x3f7ffffd, 0x35b1c20a}, {0x3f7ffffd, 0x35a7c5ac}, {0x3f7ffffd, 0x359e562f},
    {0x3f7ffffe, 0x359565d3}, {0x3f7ffffe, 0x358cf499}, {0x3f7ffffe, 0x3584fba1}, {0x3f7ffffe, 0x357ae139},
    {0x3f7ffffe, 0x356c9959}, {0x3f7ffffe, 0x355f1fa1}, {0x3f7ffffe, 0x35526653}, {0x3f7ffffe, 0x354658d2},
    {0x3f7fffff, 0x353afdfd}, {0x3f7fffff, 0x35304135}, {0x3f7fffff, 0x35261b9d}, {0x3f7fffff, 0x351c8654},
    {0x3f7fffff, 0x35137a7b}, {0x3f7fffff, 0x350af133}, {0x3f7fffff, 0x3502e39e}, {0x3f7fffff, 0x34f695b6},
    {0x3f7fffff, 0x34e83259}, {0x3f7fffff, 0x34daaae3}, {0x3f7fffff, 0x34cde3d7}, {0x3f7fffff, 0x34c1cf76},
    {0x3f7fffff, 0x34b66dc2}, {0x3f7fffff, 0x34abb0fa}, {0x3f7fffff, 0x34a19920}, {0x3f7fffff, 0x34980ab6},
    {0x3f7fffff, 0x348f137b}, {0x3f7fffff, 0x348697f2}, {0x3f800000, 0x347d3036}, {0x3f800000, 0x346e27eb},
    {0x3f800000, 0x345fe00b}, {0x3f800000, 0x34528f8f}, {0x3f800000, 0x3445ff7c}, {0x3f800000, 0x343a1457},
    {0x3f800000, 0x342ee99c}, {0x3f800000, 0x342463cf}, {0x3f800000, 0x341a82ee}, {0x3f800000, 0x34112b7e},
    {0x3f800000, 0x34085d7f},
};

static inline float acl_erff_vec(float a) {
    float ax = fabsf(a);
    float shifted = ax + 65536.0f;
    uint32_t idx = vm_f2u(shifted) - vm_f2u(65536.0f);
    idx = idx < 512u ? idx : 512u;
    float r = shifted - 65536.0f;
    float d = ax - r;
    float d2 = d * d;
    float t = fmaf(vm_u2f(0x3eaaaaab), d, r);
    float u = fmaf(-d2, t, d);
    float e = fmaf(vm_u2f(acl_erf_lut[idx][1]), u, vm_u2f(acl_erf_lut[idx][0]));
    e = ax > 3.9375f ? 1.0f : e;
    return vm_u2f((vm_f2u(e) & 0x7fffffffu) | (vm_f2u(a) & 0x80000000u));
}

static inline float acl_gelu_vec(float x) { return ((1.0f + acl_erff_vec(x * 0.70710678118f)) * 0.5f) * x; }

static inline float acl_gelu_tail(float x) { return ((glibc_erff_a64(x / 1.41421356237f) + 1.0f) * 0.5f) * x; }

/* One ACL window [b, e): full vectors of 4 from b, then the left-over elements one by one. */
static void acl_gelu_window(const float *x, float *out, int64_t b, int64_t e) {
    int64_t i = b, body = b + (e - b) / 4 * 4;
    for (; i < body; i++) out[i] = acl_gelu_vec(x[i]);
    for (; i < e; i++) out[i] = acl_gelu_tail(x[i]);
}

/* ACL's OpenMP scheduler: the contiguous tensor squashed to one x dimension, split into
 * min(threads, ceil(n / 1529)) windows (1529: the activation kernel's minimum workload on
 * non-V1 CPUs), Window::split_window giving the first n % windows windows one element more. */
static void acl_gelu_forward(const profile_t *p, const float *x, float *out, int64_t n) {
    int64_t windows = divup(n, 1529);
    if (windows > p->threads) windows = p->threads;
    if (windows < 1) windows = 1;
    int64_t work = n / windows, rem = n % windows;
    for (int64_t t = 0; t < windows; t++) {
        int64_t b = t * work + (t < rem ? t : rem);
        acl_gelu_window(x, out, b, b + work + (t < rem));
    }
}

/* A one-element tensor skips oneDNN (use_mkldnn wants numel > 1) and takes ATen's GeluKernel,
 * whose lone element goes through the scalar lambda: x * 0.5 * (1 + std::erf(x * M_SQRT1_2)). */
#define GELU_ALPHA ((float)0.70710678118654752440)
#define GELU_ERF_BETA ((float)(1.12837916709551257390 * 0.70710678118654752440 * 0.5))

static float aten_gelu_scalar(const profile_t *p, float x) {
    float e = x * GELU_ALPHA;
    return (x * 0.5f) * (1.0f + (p->aten >= ATEN_NEON ? glibc_erff_a64(e) : glibc_erff(e)));
}

/* dy * s as the x86 objects multiply them: s's NaN kept where both are NaN (a NaN x, or an infinite one's
 * inf * 0, against a NaN dy: measured through torch's scalar lambda and vector lanes alike). */
static inline float gelu_times_dy(const profile_t *p, float dy, float s) {
    return p->aten < ATEN_NEON && s != s ? vm_u2f(vm_f2u(s) | 0x00400000u) : dy * s;
}

/* GeluBackwardKernelImpl scalar lambda: dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x/sqrt2)),
 * pdf = kBeta * exp(x*x*-0.5); GCC fused cdf's multiply into the sum in AVX2/AVX-512 objects. */
static float aten_gelu_bwd_scalar(const profile_t *p, float dy, float x) {
    float pdf = GELU_ERF_BETA * glibc_expf((x * x) * -0.5f);
    float e = x * GELU_ALPHA;
    return gelu_times_dy(p, dy, sfmadd(p, 0.5f, 1.0f + (p->aten >= ATEN_NEON ? glibc_erff_a64(e) : glibc_erff(e)), x * pdf));
}

/* Tensor shapes: x, out (n,). */
void gelu_forward(profile_t p, const float *x, float *out, int64_t n) {
    if (n == 1) {
        out[0] = aten_gelu_scalar(&p, x[0]);
        return;
    }
    /* one loop per ISA (literal fma flag): each inlines to branch-free, vectorizable code */
    if (p.aten == ATEN_NEON) acl_gelu_forward(&p, x, out, n);
    else if (p.aten == ATEN_SVE) for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd_k(1, 1, x[i]);
    else if (p.aten == ATEN_AVX512) for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd_minimax(x[i]);
    else if (p.aten) for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd(1, x[i]);
    else for (int64_t i = 0; i < n; i++) out[i] = dnnl_gelu_fwd(0, x[i]);
}

/* GeluKernelImpl's grain: numel / threads above 16384 elements, else GRAIN_SIZE. */
static int64_t gelu_grain(const profile_t *p, int64_t n) { return n > 16384 ? n / p->threads : GRAIN_SIZE; }

/* ATen's GeluKernelImpl / GeluBackwardKernelImpl for gelu (erf) where oneDNN does not take it (a self that
 * is not contiguous: Activation.cpp use_mkldnn), x86 only: cpu_kernel_vec (GeluKernel also registered for
 * AVX-512: lanes_wide), the forward with GeluKernelImpl's grain (numel / threads above 16,384 elements),
 * the backward with the default one. Vector lanes (Gelu.h vectorized_gelu and the backward's lambda):
 * (x * 0.5) * (1 + erf(x * M_SQRT1_2)) with Vectorized<float>::erf (vec_erff: ATen's polynomial on
 * avx2/avx512, glibc erff per lane at default); dy * (cdf + x * pdf), cdf = 0.5 * (1 + erf(x * M_SQRT1_2)),
 * pdf = kBeta * exp((x * x) * -0.5) (Vectorized exp: SLEEF expf_u10; glibc expf at default). Scalar
 * lambdas: aten_gelu_scalar, aten_gelu_bwd_scalar. */
static float aten_gelu_vec(const profile_t *p, float x) { return (x * 0.5f) * (1.0f + vec_erff(p, x * GELU_ALPHA)); }

static float aten_gelu_bwd_vec(const profile_t *p, float dy, float x) {
    const float cdf = 0.5f * (1.0f + vec_erff(p, x * GELU_ALPHA));
    const float pdf = GELU_ERF_BETA * vec_expf(p, (x * x) * -0.5f);
    return gelu_times_dy(p, dy, p->aten ? fmaf(x, pdf, cdf) : cdf + x * pdf);
}

/* Tensor shapes: x, out (n,), rows of `row` (1: the basic loop, the scalar lambda on every element). */
void gelu_aten_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    run_unary(&p, p.lanes_wide, gelu_grain(&p, n), aten_gelu_vec, aten_gelu_scalar, x, out, n, row);
}

/* Tensor shapes: grad, x, grad_x (n,), rows of `row`. */
void gelu_aten_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row) {
    run_binary(&p, p.lanes_wide, GRAIN_SIZE, aten_gelu_bwd_vec, aten_gelu_bwd_scalar, grad, x, grad_x, n, row);
}

/* N1's backward: oneDNN's "ref:any" eltwise (compute_eltwise_scalar_bwd, math_utils gelu_erf_bwd) as
 * GCC compiled it: v = s * 0x3f3504f3, (dd * 0.5) * fma(v * 2/sqrt(pi), expf(-(v*v)), erff(v) + 1),
 * with aarch64's libm erff and expf. */
static inline float dnnl_ref_gelu_bwd(float dd, float s) {
    float v = s * vm_u2f(0x3f3504f3);
    float r = fmaf(v * vm_u2f(0x3f906ebb), glibc_expf(-(v * v)), glibc_erff_a64(v) + 1.0f);
    return (dd * 0.5f) * r;
}

/* eltwise backward: diff_src = derivative(src) * diff_dst. Shapes: grad, x, grad_x (n,). */
void gelu_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n) {
    if (n == 1) {
        grad_x[0] = aten_gelu_bwd_scalar(&p, grad[0], x[0]);
        return;
    }
    if (p.aten == ATEN_NEON) for (int64_t i = 0; i < n; i++) grad_x[i] = dnnl_ref_gelu_bwd(grad[i], x[i]);
    else if (p.aten == ATEN_SVE) for (int64_t i = 0; i < n; i++) grad_x[i] = dnnl_gelu_bwd_k(1, 1, x[i]) * grad[i];
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
EW_INLINE float gelu_tanh_inner(int c, float x) {
    float x_cube = (x * x) * x;
    return GELU_BETA * (c ? fmaf(GELU_KAPPA, x_cube, x) : GELU_KAPPA * x_cube + x);
}

/* Activation.cpp GeluKernelImpl (Gelu.h vectorized/scalar_gelu_approximated_with_tanh):
 * 0.5 * x * (1 + tanh(inner)), ((0.5*x) * (1 + t)); vector lane with Vectorized tanh (SLEEF on
 * avx2/avx512), scalar tail with std::tanh (glibc). */
EW_INLINE float gelu_tanh_fwd_sleef(int c, float x) {
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
EW_INLINE float gelu_tanh_bwd_common(int c, float dy, float x, float t) {
    float x_sq = x * x;
    float left = 0.5f * x;
    float right = 1.0f + t;
    float left_derivative = 0.5f * right;
    float tanh_derivative = c ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    float inner_derivative = GELU_BETA * (c ? fmaf(3.0f * GELU_KAPPA, x_sq, 1.0f) : 3.0f * GELU_KAPPA * x_sq + 1.0f);
    float right_derivative = (left * tanh_derivative) * inner_derivative;
    return dy * (left_derivative + right_derivative);
}

EW_INLINE float gelu_tanh_bwd_sleef(int c, float dy, float x) {
    return gelu_tanh_bwd_common(c, dy, x, sleef_tanhf_u10(gelu_tanh_inner(c, x)));
}

/* x86 vector lanes of a NaN x: Sleef_tanhf8_u10 answers a NaN with all bits set (visnan ored in), and that
 * NaN, through 0.5 * (1 + t), is the one the AVX2 and AVX-512 objects' sum and product keep, whatever dy
 * (measured: every x86 lane of a NaN x gives 0xffffffff; the scalar tail keeps x's payload). */
static inline float gelu_tanh_bwd_x86_nan(const profile_t *p, float x, float r) {
    return p->aten < ATEN_NEON && x != x ? vm_u2f(0xffffffffu) : r;
}

static float gelu_tanh_bwd_vec(const profile_t *p, float dy, float x) {
    return gelu_tanh_bwd_x86_nan(p, x, gelu_tanh_bwd_sleef(p->contract, dy, x));
}
static float gelu_tanh_bwd_vec_fused(const profile_t *p, float dy, float x) {
    return gelu_tanh_bwd_x86_nan(p, x, gelu_tanh_bwd_sleef(1, dy, x));
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

/* aarch64 without SVE (N1): F.gelu(approximate='tanh') is oneDNN v3.12's eltwise gelu_tanh, JIT for
 * asimd (verbose: "eltwise,jit:asimd"); its backward stays ATen's. jit_uni_eltwise_injector_t<asimd>:
 * exp_compute_vector_fwd (Arm optimized-routines' expf): n = round-half-away(x/ln2), r = x + n*(-ln2_hi)
 * + n*(-ln2_lo) (two fmla), p = c1 + c0 r, q = c3 + c2 r, q += p r^2, poly = c4 r + q r^2 (fused),
 * result fma(poly, 2^n, 2^n). When any lane of the 4-lane vector has |n| > 126, the whole vector
 * takes 2^n as s1*s2 (special = 1): r0 = fma(poly, s2, s2) * s1, or s1*s1 for |n| > 192 -- the same
 * bits for its other lanes except where fma(poly, s2, s2) is subnormal (n = 1) or r0 is. */
/* n = roundf(x / ln2) (half away from zero), written with rintf and a select so that the loops
 * vectorise: equal to roundf on all 2^32 inputs. */
static inline float dnnl_asimd_exp_n(float x) {
    const float y = x * vm_u2f(0x3fb8aa3b), r = rintf(y);
    return fabsf(y - r) == 0.5f ? y + copysignf(0.5f, y) : r;
}

static inline float dnnl_asimd_expf(float x, int special) {
    float n = dnnl_asimd_exp_n(x);
    /* fmaxf(fminf(n, 1e9), -1e9) as selects (n is never a signalling NaN: a product made it; a
     * quiet NaN gives 1e9 as fminf does): equal to the libm form on all 2^32 inputs x */
    const float n_hi = n < 1e9f ? n : 1e9f;
    int32_t ni = (int32_t)(n_hi > -1e9f ? n_hi : -1e9f);
    uint32_t e = (uint32_t)ni << 23;
    float r = fmaf(n, vm_u2f(0xbf317200), x);
    r = fmaf(n, vm_u2f(0xb5bfbe8e), r);
    float p = fmaf(vm_u2f(0x3c072010), r, vm_u2f(0x3d2b9f17));
    float q = fmaf(vm_u2f(0x3e2aaf33), r, vm_u2f(0x3efffedb));
    float r2 = r * r;
    q = fmaf(p, r2, q);
    float poly = fmaf(q, r2, vm_u2f(0x3f7ffff6) * r);
    if (!special) {
        float scale = vm_u2f(e + 0x3f800000u);
        return fmaf(poly, scale, scale);
    }
    uint32_t b = n <= 0.0f ? 0x82000000u : 0u;
    float s2 = vm_u2f(e - b), s1 = vm_u2f(b + 0x7f000000u);
    if (fabsf(n) > 192.0f) return s1 * s1;
    return fmaf(poly, s2, s2) * s1;
}

/* tanh_compute_vector_fwd<asimd>: |g| <= 0x3d4ccccd (0.05): g * fma(-1/3, g*g, 1); else
 * 1 - 2/(1 + exp(2g)) (exp computed on every lane). */
static inline float dnnl_asimd_tanhf(float g, int special) {
    float t = 1.0f - 2.0f / (dnnl_asimd_expf(g + g, special) + 1.0f);
    return fabsf(g) <= vm_u2f(0x3d4ccccd) ? g * fmaf(vm_u2f(0xbeaaaaab), g * g, 1.0f) : t;
}

/* gelu_tanh_compute_vector_fwd<asimd>: G = fma(0.044715, x*x, 1) * (x * sqrt(2/pi)),
 * out = fma(tanh(G), x, x) * 0.5. */
static inline float dnnl_asimd_gelu_g(float x) { return fmaf(vm_u2f(0x3d372713), x * x, 1.0f) * (x * vm_u2f(0x3f4c422a)); }

static inline float dnnl_asimd_gelu_tanh_fwd(float x, int special) {
    return fmaf(dnnl_asimd_tanhf(dnnl_asimd_gelu_g(x), special), x, x) * 0.5f;
}

/* The kernel's vectors: 4 elements from each thread's start (balance211 over vectors, so starts
 * are multiples of 4 and the groups the same for any thread count); the last n % 4 elements go
 * one at a time (their register's other lanes assumed not to trigger the special path). */
static void dnnl_asimd_gelu_tanh_group(const float *x, float *out, int64_t b, int64_t e) {
    int special = 0;
    for (int64_t j = b; j < e; j++) {
        float g = dnnl_asimd_gelu_g(x[j]);
        special |= fabsf(dnnl_asimd_exp_n(g + g)) > 126.0f;
    }
    for (int64_t j = b; j < e; j++) out[j] = dnnl_asimd_gelu_tanh_fwd(x[j], special);
}

static void dnnl_asimd_gelu_tanh_forward(const float *x, float *out, int64_t n) {
    int64_t i = 0, body = n / 4 * 4;
    for (; i < body; i += 4) dnnl_asimd_gelu_tanh_group(x, out, i, i + 4);
    for (; i < n; i++) dnnl_asimd_gelu_tanh_group(x, out, i, i + 1);
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

/* aarch64 without SVE (N1) under torch 2.12.1: oneDNN v3.11's asimd JIT has no exp-based eltwise
 * (jit_uni_eltwise_injector is_supported(asimd, ...) lists relu, square, abs, ... only; v3.12 added
 * them), and ACL takes gelu_erf only, so gelu_tanh runs "ref:any": math_utils.hpp gelu_tanh_fwd,
 * element by element (no thread dependence), as GCC compiled it for aarch64: v = tanhf(c*s *
 * fma(f*s, s, 1)) with glibc's tanhf, out = (float)(0.5 * s * (1. + v)) in double. */
static inline float dnnl_ref_gelu_tanh_fwd(float s) {
    const float c = 0.79788458347320556640625f, f = 0.044715f;
    const float v = glibc_tanhf_a64(c * s * fmaf(f * s, s, 1.0f));
    return (float)(0.5 * (double)s * (1.0 + (double)v));
}

/* Tensor shapes: x, out (n,), rows of `row` on x86 (TensorIterator's runs of a view whose rows are apart;
 * 1: the basic loop, the scalar lambda on every element). Vector lanes: SLEEF tanh on avx2/avx512; the
 * default capability's emulated Vectorized calls std::tanh per lane, i.e. the scalar lambda's arithmetic. */
void gelu_tanh_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    if (p.aten == ATEN_NEON && n > 1 && p.torch < TORCH_2_13) { /* oneDNN v3.11: ref:any */
        for (int64_t i = 0; i < n; i++) out[i] = dnnl_ref_gelu_tanh_fwd(x[i]);
        return;
    }
    if (p.aten == ATEN_NEON && n > 1) { /* one element: ATen (use_mkldnn wants numel > 1) */
        dnnl_asimd_gelu_tanh_forward(x, out, n);
        return;
    }
    if (p.aten == ATEN_SVE && n > 1) {
        for (int64_t i = 0; i < n; i++) out[i] = dnnl_sve_gelu_tanh_fwd(x[i]);
        return;
    }
    if (p.aten && p.contract) run_unary(&p, p.lanes_wide, gelu_grain(&p, n), gelu_tanh_fwd_vec_fused, gelu_tanh_fwd_scalar, x, out, n, row);
    else if (p.aten) run_unary(&p, p.lanes_wide, gelu_grain(&p, n), gelu_tanh_fwd_vec, gelu_tanh_fwd_scalar, x, out, n, row);
    else run_unary(&p, p.lanes_wide, gelu_grain(&p, n), gelu_tanh_fwd_scalar, gelu_tanh_fwd_scalar, x, out, n, row);
}

/* The scalar tail of the avx2/avx512 objects where ATen's vectorized loop reads grad as a scalar
 * (Loops.h vectorized_loop with S = 1, its basic_loop over grad's stride 0): a NaN grad is the NaN that
 * comes out, over x's NaN and over the default NaN of x = +-inf (measured on a Zen 5; the body and
 * the default object keep their bits). */
static float gelu_tanh_bwd_scalar_grad_in(const profile_t *p, float dy, float x) {
    return isnan(dy) ? quieted(dy) : gelu_tanh_bwd_scalar(p, dy, x);
}

/* Tensor shapes: grad, x, grad_x (n,), rows of `row` (as the forward's). GeluBackwardKernelImpl uses the
 * default grain. scalar: the input ATen's vectorized loop reads as a scalar (1 grad, 2 x, 0 none). */
void gelu_tanh_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                        int32_t scalar) {
    if (p.aten == ATEN_SVE && p.lanes == 8) {
        run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec_sve256, gelu_tanh_bwd_scalar, grad, x, grad_x, n, row);
        return;
    }
    if (scalar == 1 && p.aten && !is_arm(&p) && p.contract)
        run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec_fused, gelu_tanh_bwd_scalar_grad_in, grad, x, grad_x, n, row);
    else if (scalar == 1 && p.aten && !is_arm(&p))
        run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec, gelu_tanh_bwd_scalar_grad_in, grad, x, grad_x, n, row);
    else if (p.aten && p.contract) run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec_fused, gelu_tanh_bwd_scalar, grad, x, grad_x, n, row);
    else if (p.aten) run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_vec, gelu_tanh_bwd_scalar, grad, x, grad_x, n, row);
    else run_binary(&p, p.lanes_wide, GRAIN_SIZE, gelu_tanh_bwd_scalar, gelu_tanh_bwd_scalar, grad, x, grad_x, n, row);
}


/* ------------------------------------------------------------------ silu */

/* A NaN operand's bits as an arithmetic operation passes them on: quieted. */
static inline float quiet_nan(float x) { return vm_u2f(vm_f2u(x) | 0x00400000u); }

/* silu_kernel (cpu/Activation.cpp, also registered for AVX-512: lanes_wide), cpu_kernel_vec:
 * vector lane x / (1 + exp(-x)) with Vectorized::exp (vec_expf: SLEEF expf_u10 on avx2/avx512 and
 * aarch64, std::exp per lane in the x86 default build), scalar tail the same with the C library's
 * expf; no multiply, so nothing to contract. A NaN x meets exp's NaN in the division and x's
 * payload wins (measured on every x86 capability). Tensor shapes: x, out (n,), rows of `row`. */
static float silu_fwd_vec(const profile_t *p, float x) {
    return isnan(x) ? quiet_nan(x) : x / (1.0f + vec_expf(p, -x));
}

static float silu_fwd_scalar(const profile_t *p, float x) {
    (void)p;
    return isnan(x) ? quiet_nan(x) : x / (1.0f + glibc_expf(-x));
}

void silu_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    run_unary(&p, p.lanes_wide, GRAIN_SIZE, silu_fwd_vec, silu_fwd_scalar, x, out, n, row);
}

/* ------------------------------------------------------------------ logit (ATen's vectorized loop) */

/* logit_kernel (cpu/UnaryOpsKernel.cpp, logit_stub also registered for AVX-512: lanes_wide) where it does
 * not take LogitMKLKernel (x86's MKL path of a contiguous TensorIterator, csrc's log_forward over the ratios:
 * harness/trace/impl_ops.py): cpu_kernel_vec with the default grain, on every layout on aarch64 (no MKL).
 * eps < 0 (None: -1) no clamp; else lo = eps, hi = 1 - eps in float.
 * Vector lane: vec::clamp(x, lo, hi) = minimum(hi, maximum(lo, x)) (x86: max_ps(lo, x) then min_ps(hi, m),
 * x where an operand is NaN; the default build's std::min(std::max(x, lo), hi), the same; aarch64: FMAX then
 * FMIN, a NaN operand comes out, so a NaN eps makes every lane NaN), then (x / (1 - x)).log(): SLEEF
 * Sleef_logf8_u10 (avx2), Sleef_logf16_u10 (AVX-512 object), Sleef_logf4_u10 / logfx_u10sve (aarch64),
 * all vmath.h sleef_logf_u10's bits, a NaN or negative ratio giving SLEEF's NaN 0x7fc00000 (avx2, aarch64)
 * or, in the AVX-512 object (vfixupimm), the ratio's bits with the exponent's and the quiet bit set (a NaN
 * quieted; -8388609, x = 1 + 2^-23, gives 0xffc00001; measured); the
 * x86 default build's emulated Vectorized std::log per lane (glibc logf).
 * Scalar tail: x < lo ? lo : (x > hi ? hi : x) (a NaN x or eps leaves x), x == 1 ? inf : log(x / (1 - x)),
 * glibc logf (the x86 FMA build's algorithm, aarch64's too): a NaN ratio quieted, a negative one the CPU's
 * default NaN (0/0). The ratio's NaN: x quieted, inf / -inf the CPU's default NaN (nan2).
 * Tensor shapes: x, out (n,), runs of `row` elements (TensorIterator's inner dim; 1: the basic loop). */
typedef struct {
    profile_t p;
    float lo, hi;
    int32_t clamp;
} logit_ctx;

static inline float logit_ratio(const profile_t *p, float x) {
    const float d = 1.0f - x;
    return nan2(p, x / d, x, d);
}

/* glibc logf with its NaN answers: a NaN quieted, a negative argument (-inf too) the default NaN. */
static inline float logit_glibc_log(const profile_t *p, float r) {
    if (r != r) return quieted(r);
    if (r < 0.0f) return qnan_bits(is_arm(p) ? 0x7fc00000u : 0xffc00000u);
    return glibc_logf(r);
}

/* vec::clamp(x, lo, hi): x86 max_ps(lo, x) (x where either is NaN or both are zero), then min_ps(hi, m);
 * aarch64 FMAX(lo, x), then FMIN(hi, m). */
static inline float logit_clamp_vec(const logit_ctx *c, float x) {
    if (is_arm(&c->p)) return fmin_arm(&c->p, c->hi, fmax_arm(&c->p, c->lo, x));
    const float m = c->lo > x ? c->lo : x;
    return c->hi < m ? c->hi : m;
}

static float logit_vec(const profile_t *p, float x) {
    const logit_ctx *c = (const logit_ctx *)p;
    if (c->clamp) x = logit_clamp_vec(c, x);
    const float r = logit_ratio(p, x);
    if (!p->aten) return logit_glibc_log(p, r); /* x86 default build: std::log per lane */
    if (r != r || r < 0.0f) {
        if (p->aten != ATEN_AVX512) return qnan_bits(0x7fc00000u);
        return qnan_bits(vm_f2u(r) | 0x7fc00000u); /* vfixupimm's QNaN(src): r's sign and payload bits */
    }
    return sleef_logf_u10(r);
}

static float logit_scalar(const profile_t *p, float x) {
    const logit_ctx *c = (const logit_ctx *)p;
    if (c->clamp) x = x < c->lo ? c->lo : (x > c->hi ? c->hi : x);
    return x == 1.0f ? INFINITY : logit_glibc_log(p, logit_ratio(p, x));
}

void logit_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, float eps) {
    logit_ctx c = {p, eps, 1.0f - eps, !(eps < 0.0f)};
    run_unary(&c.p, p.lanes_wide, GRAIN_SIZE, logit_vec, logit_scalar, x, out, n, row);
}

/* ------------------------------------------------------------------ log1p */

/* log1p_kernel (cpu/UnaryOpsKernel.cpp, also registered for AVX-512) through at::vml::vlog1p: at::vec::map
 * of Vectorized<float>::log1p over each contiguous run, the last partial vector loaded short and mapped
 * the same way, so every element takes the vector lane (vec_log1pf: SLEEF Sleef_log1pf8_u10 in the
 * avx2 object, Sleef_log1pf16_u10avx512f in the AVX-512 one, Sleef_log1pf4_u10 / log1pfx_u10sve on
 * aarch64, the same bits: the AVX-512 variant takes the exponent of (x + 1)/0.75 by vgetexp where the
 * others scale and take ilogb, equal for every normal x + 1, and x + 1 of a float is never subnormal;
 * std::log1p = glibc log1pf per lane in the x86 default build): no scalar tail, no
 * dependence on runs or threads (measured: a 19-element tensor's last 3 give SLEEF's NaN for x < -1,
 * not glibc's). A NaN x: glibc passes it on quieted, and so does the AVX-512 variant (measured on an
 * AVX-512 Zen 5); SLEEF's avx2 and aarch64 log1pf answer their own NaN 0x7fc00000 (as in softplus's
 * vector body): vec_log1pf_nan. Tensor shapes: x, out (n,). */
static inline float vec_log1pf_nan(const profile_t *p, float x) {
    return p->aten && p->aten != ATEN_AVX512 ? vm_u2f(0x7fc00000u) : quiet_nan(x);
}

void log1p_forward(profile_t p, const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = isnan(x[i]) ? vec_log1pf_nan(&p, x[i]) : vec_log1pf(&p, x[i]);
}

/* ------------------------------------------------------------------ binary_cross_entropy */

/* binary_cross_entropy (Loss.cpp binary_cross_entropy_out_cpu): cpu_kernel's scalar lambda, one element
 * at a time, in Loss.cpp's object, which is built once for x86-64 without FMA (not per capability: no
 * level reaches it, no contraction): (t - 1) * max(float(log1p(-x)), -100) - t * max(float(log(x)), -100),
 * left to right, std::max(a, b) being a < b ? b : a; std::log1p = glibc log1pf, std::log = glibc logf
 * (the ifunc's FMA build, on a CPU with FMA). ATen refuses an x or t outside [0, 1], NaN included,
 * before any element is written, so no NaN reaches it. `a64`: the aarch64 wheel's object (read: `fmul`
 * of (t - 1) and the clamped log1pf, then `fmsub t, b, that`: the second product fused into the
 * difference), over aarch64 glibc 2.36's contracted log1pf (glibc_log1pf_a64) and its logf (the x86 FMA
 * build's bits). Tensor shapes: x, t, out (n,). */
void bce_forward(const float *x, const float *t, float *out, int64_t n, int32_t a64) {
    for (int64_t i = 0; i < n; i++) {
        float l1p = a64 ? glibc_log1pf_a64(-x[i]) : glibc_log1pf(-x[i]), l = glibc_logf(x[i]);
        float a = l1p < -100.0f ? -100.0f : l1p, b = l < -100.0f ? -100.0f : l;
        out[i] = a64 ? fmaf(-t[i], b, (t[i] - 1.0f) * a) : (t[i] - 1.0f) * a - t[i] * b;
    }
}

/* ------------------------------------------------------------------ lgamma */

/* lgamma_kernel (cpu/UnaryOpsKernel.cpp, IMPLEMENT_FLOAT_KERNEL) through at::vml::vlgamma: as log1p,
 * at::vec::map of Vectorized<float>::lgamma over each contiguous run (a strided operand copied
 * into a buffer first), the last partial vector loaded short and mapped alike: every element is a
 * vector lane, no scalar tail, nothing depends on runs or threads (measured: single elements, 16,
 * 17, 19 and strided views give the bits of the whole tensor). The lane (vec_lgammaf): SLEEF
 * Sleef_lgammaf8_u10 in the avx2 object (sleef_lgammaf_u10; Sleef_lgammaf16_u10avx512f in the AVX-512
 * object, lgamma_stub being also registered for it, whose logk2f takes vgetexp/vgetmant: the same bits,
 * NaNs too, measured on a Zen 5 on every subnormal, [1, 2) and 2^23 random inputs), std::lgamma = glibc lgammaf in the x86
 * default build (glibc_lgammaf); on aarch64 SLEEF's Sleef_lgammaf4_u10 (advsimd: N1, V2) and
 * Sleef_lgammafx_u10sve (V1), the same bits. A NaN x gives x quieted on x86 (SLEEF's arithmetic
 * carries it through, glibc returns x*x) and on V1's SVE object, x quieted with its sign flipped in
 * the NEON objects (N1, V2; measured on 7 payloads, signalling ones and both signs).
 * Tensor shapes: x, out (n,). */
void lgamma_forward(profile_t p, const float *x, float *out, int64_t n) {
    const uint32_t nan_sign = obj_kind(&p) == OBJ_NEON ? 0x80000000u : 0u;
    for (int64_t i = 0; i < n; i++)
        out[i] = isnan(x[i]) ? vm_u2f(vm_f2u(quiet_nan(x[i])) ^ nan_sign) : vec_lgammaf(&p, x[i]);
}

/* ------------------------------------------------------------------ digamma */

/* The asymptotic series' coefficients (Bernoulli numbers B_2k / 2k, highest power first), as float
 * literals: 1/12, -691/32760, 5/660, -1/240, 1/252, -1/120, 1/12. */
static const float DIGAMMA_SERIES[7] = {
    8.33333333333333333333E-2f, -2.10927960927960927961E-2f, 7.57575757575757575758E-3f,
    -4.16666666666666666667E-3f, 3.96825396825396825397E-3f, -8.33333333333333333333E-3f,
    8.33333333333333333333E-2f,
};

/* ATen's calc_digamma(float) (native/Math.h), one element, in its order of operations:
 *   x == 0: -inf for +0, +inf for -0 (copysign(inf, -x)); x a negative integer (-inf included): the
 *   default quiet NaN; other x < 0: the reflection digamma(1 - x) - (float)(pi / tan(pi * r)), r the
 *   fractional part of x, in double; then, for x < 10, result -= 1/x and x += 1 until x >= 10 (float);
 *   x == 10: result + psi(10) (the float literal 2.25175258906672110764); else, for x < 1e17, z = 1/(x*x),
 *   p = Horner over DIGAMMA_SERIES in z from 0 (p*z + c: contracted to an FMA in the avx2 object, two
 *   roundings in the default one; measured), y = z*p (never fused with what follows), and the result
 *   ((result + logf(x)) - 0.5f/x) - y, logf glibc's (its ifunc's FMA build, the same in both objects).
 * tan(pi * r) is dm_sincos's sine over its cosine (glibc's double tan is not called; measured equal
 * after the rounding to float, see kernels.md). A NaN x returns x quieted (logf and the subtractions
 * carry its payload). */
static float aten_digammaf(const profile_t *p, float x) {
    if (x == 0.0f) return copysignf(INFINITY, -x);
    if (x < 0.0f) {
        if (x == truncf(x)) return vm_u2f(0x7fc00000u);
        double whole, s, c;
        const double r = modf((double)x, &whole);
        dm_sincos(0x1.921fb54442d18p+1 * r, &s, &c);
        const float pi_over_tan = (float)(0x1.921fb54442d18p+1 / (s / c));
        return aten_digammaf(p, 1.0f - x) - pi_over_tan;
    }
    float result = 0.0f;
    while (x < 10.0f) {
        result -= 1.0f / x;
        x += 1.0f;
    }
    if (x == 10.0f) return result + 2.25175258906672110764f;
    float y = 0.0f;
    if (x < 1.0e17f) {
        const float z = 1.0f / (x * x);
        float poly = 0.0f;
        for (int i = 0; i < 7; i++) poly = sfmadd(p, poly, z, DIGAMMA_SERIES[i]);
        y = z * poly;
    }
    return result + glibc_logf(x) - 0.5f / x - y;
}

/* digamma_kernel (cpu/UnaryOpsKernel.cpp, REGISTER_DISPATCH: avx512 runs the avx2 object): calc_digamma
 * per element, nothing across elements, so neither runs nor threads reach its bits; the ATen level does,
 * through the Horner step's contraction. Also autograd's lgamma backward (grad * digamma(x): this op, then mul).
 * Tensor shapes: x, out (n,). */
void digamma_forward(profile_t p, const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = isnan(x[i]) ? quiet_nan(x[i]) : aten_digammaf(&p, x[i]);
}

/* ------------------------------------------------------------------ expm1 */

/* expm1_kernel (cpu/UnaryOpsKernel.cpp, IMPLEMENT_FLOAT_KERNEL) through at::vml::vexpm1 (vml.h keeps
 * MKL's Expm1 off): as log1p, at::vec::map of Vectorized<float>::expm1 over each contiguous run (a
 * strided operand copied into a buffer first), the last partial vector loaded short and mapped
 * alike: every element is a vector lane, no scalar tail, nothing depends on runs or threads. The
 * lane (vec_expm1f): SLEEF Sleef_expm1f8_u10 in the avx2 object (sleef_expm1f_u10: expk2f(x) - 1
 * in double-float; Sleef_expm1f16_u10avx512f in the AVX-512 object, expm1_stub being also registered for
 * it, the same algorithm and bits, NaNs too: measured on a Zen 5), std::expm1 = glibc expm1f (fdlibm, float) in the x86 default build. A NaN x:
 * x quieted at both (SLEEF's selects and double-float sums carry it through, glibc returns x + x;
 * measured on every NaN pattern). Tensor shapes: x, out (n,). */
void expm1_forward(profile_t p, const float *x, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = isnan(x[i]) ? quiet_nan(x[i]) : vec_expm1f(&p, x[i]);
}

/* ------------------------------------------------------------------ atanh */

/* atanh_kernel (cpu/UnaryOpsKernel.cpp, also registered for AVX-512: lanes_wide), cpu_kernel_vec: the
 * vector lambda Vectorized<float>::atanh (vec_atanhf: SLEEF Sleef_atanhf8_u10 in the avx2 object,
 * Sleef_atanhf16_u10 in the AVX-512 one, std::atanh = glibc atanhf per lane in the x86 default build),
 * the scalar lambda std::atanh (glibc atanhf) in each inner loop's tail (fewer than two vectors) and on
 * every element of a strided run (the basic loop, row 1). aarch64: SLEEF's Sleef_atanhf4_u10 (NEON objects) and
 * Sleef_atanhfx_u10sve (SVE256) lanes, aarch64 glibc's atanhf in the tails. Tensor shapes: x, out (n,), rows of
 * `row`. */
static float atanh_vec(const profile_t *p, float x) { return vec_atanhf(p, x); }

static float atanh_scalar(const profile_t *p, float x) { return is_arm(p) ? glibc_atanhf_a64(x) : glibc_atanhf(x); }

void atanh_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row) {
    run_unary(&p, p.lanes_wide, GRAIN_SIZE, atanh_vec, atanh_scalar, x, out, n, row);
}

/* silu_backward_kernel: s = 1 / (1 + exp(-x)); grad_x = (dy * s) * (1 + x * (1 - s)), vector lane
 * with Vectorized::exp, scalar tail with expf. GCC contracts 1 + x*(1 - s) into one FMA (c) in the
 * avx2/avx512 objects and on aarch64, in the vector body (intrinsics that are GCC vector
 * arithmetic) as in the scalar tail; SVE256's ACLE operators are not contracted; the x86 default
 * object rounds x*(1 - s) first.
 * NaNs, where the order of two NaN operands decides the bits (measured on x86, body and tail alike):
 * a NaN x gives -x (its NaN flows through exp(-x) into s and wins every product); a NaN dy gives
 * dy, except where x = +inf makes 1 + x*(1 - s) the default NaN (inf * 0): the default object
 * returns that one (GCC ordered the product t * (dy*s)), the FMA objects dy. aarch64 is taken to
 * order as the FMA objects (not measured). Tensor shapes: grad, x, grad_x (n,), rows of `row`. */
EW_INLINE float silu_bwd_k(const profile_t *p, int c, float dy, float x, float e) {
    if (isnan(x)) return quiet_nan(-x);
    float s = 1.0f / (1.0f + e);
    float t = c ? fmaf(x, 1.0f - s, 1.0f) : 1.0f + x * (1.0f - s);
    if (isnan(dy)) return p->aten == ATEN_DEFAULT && isnan(t) ? t : quiet_nan(dy);
    return dy * s * t;
}

static float silu_bwd_vec(const profile_t *p, float dy, float x) {
    return silu_bwd_k(p, p->contract && !(p->aten == ATEN_SVE && p->lanes == 8), dy, x, vec_expf(p, -x));
}

static float silu_bwd_scalar(const profile_t *p, float dy, float x) {
    return silu_bwd_k(p, p->contract, dy, x, glibc_expf(-x));
}

/* Where ATen's vectorized loop reads an input as a scalar (Loops.h vectorized_loop(..., S); scalar: 1
 * grad, 2 x, 0 none), GCC's code for that loop keeps other NaNs where two meet (measured on a Zen 5;
 * x86 only): the default object's vector body with x read as a scalar gives a NaN x quieted with its
 * sign kept (not -x) in elements 4 to 7 of each step of 16 (the upper half of its first Vectorized,
 * two SSE registers of 4 lanes), -x elsewhere; the avx2/avx512 objects' scalar tail with grad read as
 * a scalar (basic_loop over grad's stride 0) a NaN grad, over x's NaN. */
static float silu_bwd_scalar_grad_in(const profile_t *p, float dy, float x) {
    return isnan(dy) ? quiet_nan(dy) : silu_bwd_scalar(p, dy, x);
}

void silu_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                   int32_t scalar) {
    if (scalar == 1 && p.aten && !is_arm(&p))
        run_binary(&p, p.lanes_wide, GRAIN_SIZE, silu_bwd_vec, silu_bwd_scalar_grad_in, grad, x, grad_x, n, row);
    else run_binary(&p, p.lanes_wide, GRAIN_SIZE, silu_bwd_vec, silu_bwd_scalar, grad, x, grad_x, n, row);
    if (scalar != 2 || p.aten != ATEN_DEFAULT) return;
    float *place = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!place) return;
    loop_places(&p, place, n, row);
    for (int64_t i = 0; i < n; i++)
        if (isnan(x[i]) && place[i] >= 4.0f && place[i] < 8.0f) grad_x[i] = quiet_nan(x[i]);
    free(place);
}

/* ------------------------------------------------------------------ softplus */

/* softplus_kernel / softplus_backward_kernel (cpu/Activation.cpp, also registered for AVX-512: lanes_wide,
 * 16 lanes and steps of 32 elements there), float32 through
 * cpu_kernel_vec with the default grain: beta and threshold as floats (Scalar::to<float>).
 * Forward, vector lane: Vec::blendv((a*beta).exp().log1p() / beta, a, (a*beta) > threshold), every
 * lane computing both sides (SLEEF Sleef_expf8_u10 then Sleef_log1pf8_u10 on avx2, their 16-lane
 * AVX-512 variants, the same bits but log1p's NaN, at avx512; the default
 * build's emulated Vectorized calls std::exp and std::log1p per lane); scalar tail
 * (a*beta) > threshold ? a : log1p(exp(a*beta)) / beta with glibc expf and log1pf (aarch64's
 * contracted log1pf, glibc_log1pf_a64, on arm64; the lanes are SLEEF's advsimd/SVE expf and log1pf,
 * the x86 FMA bits, on every aarch64 core). No product of the kernel's own feeds an add: nothing
 * to contract. Backward (a = grad, b = x): z = exp(b*beta),
 * (b*beta) > threshold ? a : (a*z) / (z + 1), the same split of exp.
 * The lambdas read beta and threshold from softplus_ctx, whose first member is the profile. */
typedef struct {
    profile_t p;
    float beta, threshold;
} softplus_ctx;

static inline const softplus_ctx *sp_ctx(const profile_t *p) { return (const softplus_ctx *)p; }

/* A NaN x: x*beta is x quieted; glibc's expf and log1pf pass it on (the default build's lanes and
 * every scalar tail give x quieted), while SLEEF's avx2 log1pf sends a NaN to xlogf_u1, which answers its
 * own NaN 0x7fc00000 (avx2 vector body: measured, whatever x's sign and payload); the AVX-512 body passes
 * x on quieted (measured), vec_log1pf_nan. */
static float softplus_fwd_vec(const profile_t *p, float x) {
    const softplus_ctx *c = sp_ctx(p);
    const float xb = x * c->beta;
    if (isnan(xb)) return vec_log1pf_nan(p, xb);
    const float y = vec_log1pf(p, vec_expf(p, xb)) / c->beta;
    return xb > c->threshold ? x : y;
}

static float softplus_fwd_scalar(const profile_t *p, float x) {
    const softplus_ctx *c = sp_ctx(p);
    const float xb = x * c->beta;
    if (isnan(xb)) return quiet_nan(xb);
    const float e = glibc_expf(xb);
    return xb > c->threshold ? x : (is_arm(p) ? glibc_log1pf_a64(e) : glibc_log1pf(e)) / c->beta;
}

/* Backward NaNs: z = exp(b*beta) is b quieted for a NaN b (SLEEF's expf and glibc's alike), and a
 * NaN operand of a*z passes through the division. Where grad and x are both NaN the product's operand
 * order decides (measured): the vector body (vmulps a, z; the default build's per-lane a*z too) and the
 * default build's scalar tail give a's NaN, the avx2 build's scalar tail z's (GCC commuted the product
 * there), `z_first`. */
EW_INLINE float softplus_bwd_k(const softplus_ctx *c, int z_first, float a, float b, float z) {
    const float bb = b * c->beta;
    if (bb > c->threshold) return a;
    if (isnan(a) && !(z_first && isnan(bb))) return quiet_nan(a);
    if (isnan(bb)) return quiet_nan(bb);
    return (a * z) / (z + 1.0f);
}

static float softplus_bwd_vec(const profile_t *p, float a, float b) {
    const softplus_ctx *c = sp_ctx(p);
    const float bb = b * c->beta;
    return softplus_bwd_k(c, 0, a, b, isnan(bb) ? bb : vec_expf(p, bb));
}

static float softplus_bwd_scalar(const profile_t *p, float a, float b) {
    const softplus_ctx *c = sp_ctx(p);
    return softplus_bwd_k(c, p->aten != ATEN_DEFAULT, a, b, glibc_expf(b * c->beta));
}

/* Tensor shapes: x, out (n,), rows of `row` (TensorIterator's runs). */
void softplus_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, float beta, float threshold) {
    softplus_ctx c = {p, beta, threshold};
    run_unary(&c.p, p.lanes_wide, GRAIN_SIZE, softplus_fwd_vec, softplus_fwd_scalar, x, out, n, row);
}

/* Where ATen's vectorized loop reads an input as a scalar (Loops.h vectorized_loop(..., S)), the
 * avx2/avx512 objects order the product otherwise (measured on a Zen 5): grad read as a scalar, the vector
 * body gives z's NaN (x's) and the scalar tail grad's; x read as a scalar, the scalar tail grad's. */
static float softplus_bwd_vec_z_first(const profile_t *p, float a, float b) {
    const softplus_ctx *c = sp_ctx(p);
    const float bb = b * c->beta;
    return softplus_bwd_k(c, 1, a, b, isnan(bb) ? bb : vec_expf(p, bb));
}

static float softplus_bwd_scalar_a_first(const profile_t *p, float a, float b) {
    const softplus_ctx *c = sp_ctx(p);
    return softplus_bwd_k(c, 0, a, b, glibc_expf(b * c->beta));
}

/* Tensor shapes: grad, x, grad_x (n,), rows of `row`. scalar: the input ATen's vectorized loop reads as a
 * scalar (1 grad, 2 x, 0 none). */
void softplus_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                       float beta, float threshold, int32_t scalar) {
    softplus_ctx c = {p, beta, threshold};
    const int x86 = p.aten && !is_arm(&p);
    if (x86 && scalar == 1)
        run_binary(&c.p, p.lanes_wide, GRAIN_SIZE, softplus_bwd_vec_z_first, softplus_bwd_scalar_a_first, grad, x, grad_x, n, row);
    else if (x86 && scalar == 2)
        run_binary(&c.p, p.lanes_wide, GRAIN_SIZE, softplus_bwd_vec, softplus_bwd_scalar_a_first, grad, x, grad_x, n, row);
    else run_binary(&c.p, p.lanes_wide, GRAIN_SIZE, softplus_bwd_vec, softplus_bwd_scalar, grad, x, grad_x, n, row);
}

/* ------------------------------------------------------------------ log_sigmoid */

/* log_sigmoid_cpu_kernel (cpu/Activation.cpp _vec_log_sigmoid, float32): at::parallel_for over the
 * flat contiguous input (grain 1), each chunk in whole Vectorized<float> and its last partial vector
 * loaded short and computed the same way, so every element is a vector lane and neither the chunks
 * nor the thread count reach the bits. Per lane, in this order:
 *   buffer = exp(-|x|)                  (abs and neg: sign-bit masks, exact)
 *   out    = minimum(x, 0) - log1p(buffer)
 * exp and log1p are Vectorized<float>'s: SLEEF Sleef_expf8_u10 and Sleef_log1pf8_u10 in the avx2
 * object, their 16-lane variants in the AVX-512 one (log_sigmoid_cpu_stub is also registered for it:
 * the same bits, NaNs too, measured), std::exp and std::log1p (glibc expf, log1pf) per lane in the x86 default build (vmath.h
 * vec_expf, vec_log1pf). The subtraction has no product to contract. A NaN x (measured at both):
 * buffer is x quieted with its sign bit set (exp of -|x| passes the NaN on); out is the avx2
 * object's minimum NaN mask 0xffffffff (_mm256_min_ps or'd with the unordered compare), x quieted in
 * the default build (its minimum returns the NaN operand) and in aarch64's NEON and SVE objects
 * (measured on emulated N1, V1, V2: FMIN passes the NaN on, quieted, and the subtraction keeps it).
 * aarch64's exp and log1p lanes are SLEEF's advsimd / SVE u10 ones (sleef_*_u10's bits).
 * Tensor shapes: x, out, buffer (n,). */
void log_sigmoid_forward(profile_t p, const float *x, float *out, float *buffer, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        const float a = x[i];
        if (isnan(a)) {
            buffer[i] = quiet_nan(vm_u2f(vm_f2u(a) | 0x80000000u));
            out[i] = p.aten && !is_arm(&p) ? vm_u2f(0xffffffffu) : quiet_nan(a);
            continue;
        }
        const float e = vec_expf(&p, -fabsf(a));
        buffer[i] = e;
        out[i] = (a < 0.0f ? a : 0.0f) - vec_log1pf(&p, e);
    }
}

/* log_sigmoid_backward_cpu_kernel (cpu/Activation.cpp), cpu_kernel_vec over (input a, buffer b,
 * grad c): (max_deriv - sign * (b / (1 + b))) * c with max_deriv = 1, sign = 1 where a < 0, else
 * max_deriv = 0, sign = -1; the vector body and the scalar tail alike. sign is +-1, so sign * q is
 * exact and a contraction of the subtraction (vfnmadd in the avx2 object) gives the same bits as
 * rounding twice. Only where a NaN q (from a NaN buffer) meets a NaN grad in the last product does
 * the place of the element in ATen's loop reach the bits (measured at default, avx2 and avx512, whose
 * AVX-512 object, log_sigmoid_backward_stub being also registered for it, runs steps of 2 x 16 lanes:
 * lanes_wide): the
 * avx2 object's body multiplies grad by r in the second Vectorized of each two-vector step (grad's
 * NaN wins there) and r by grad in the first one and in the scalar tail (r's NaN, q's quieted with
 * its sign kept, wins); the default object r by grad everywhere. An operand that sends ATen to its
 * basic loop (no unit stride: runs of 1 over more than one element, impl_nn.inner_run) gets the
 * scalar lambda as inlined there, which in the avx2 object multiplies grad by r on every element
 * (measured on 7 and 40 elements of stride 2; a single element is the vectorized loop's tail, r by
 * grad). The place is found by running
 * elementwise.h's loops (threads' chunks, runs of `row`) over a counter: ls_pos_vec numbers each
 * body element within its step, ls_pos_tail marks a tail element and restarts the count (an inner
 * loop without a tail has a body of whole steps, so the count restarts by itself; ls_pos_tail also numbers
 * each tail element within its tail).
 * aarch64 (measured on emulated N1, V1, V2, 1 and 2 threads): where q is NaN (a NaN buffer; an infinite
 * one gives inf/inf, the default NaN +qNaN) the NaN is chosen by aarch64's rule (the first signalling
 * operand quieted, else the first quiet one: arm_nan_pick) with operands in the order each object
 * multiplies them: N1's and V2's NEON-typed body grad * r, V1's SVE256 body r * grad; in the scalar
 * tail r is q with its sign flipped (GCC's fmsub for max_deriv - sign * q negates q) and comes first,
 * but V2's SVE128 object runs the first four elements of each tail as a 4-lane vector, grad first.
 * Where ATen's vectorized loop reads an input as a scalar (Loops.h vectorized_loop(..., S); scalar: 1 x,
 * 2 buffer, 3 grad, 0 none), the avx2/avx512 objects' scalar tail (basic_loop with that input's
 * stride 0) orders the product by the element's place in it (ls_tail_grad_first), and with grad read
 * as a scalar the body's two vectors multiply grad by r: grad's NaN wins there (measured on a Zen 5;
 * the default object keeps r by grad).
 * Tensor shapes: grad, x, buffer, grad_x (n,), rows of `row`. */
typedef struct {
    profile_t p;
    int64_t k, t;
} ls_ctx;

static float ls_pos_vec(const profile_t *p, float x) {
    ls_ctx *c = (ls_ctx *)p;
    (void)x;
    c->t = 0;
    return (float)(c->k++ % (2 * p->lanes_wide));
}

static float ls_pos_tail(const profile_t *p, float x) { /* -1 - the element's place in its tail */
    ls_ctx *c = (ls_ctx *)p;
    (void)x;
    c->k = 0;
    return -1.0f - (float)c->t++;
}

/* Each element's place in the inner loops of elementwise.h run_segments (lanes_wide, the default grain,
 * runs of `row`: the same threads' chunks) into place (n,): its index within its step of the body (>= 0),
 * or -1 - its index within the scalar tail of its own inner loop. */
static void loop_places(const profile_t *p, float *place, int64_t n, int64_t row) {
    const int64_t step = 2 * (int64_t)p->lanes_wide;
    int64_t b, e;
    for (loop_walk w = loop_walk_start(p, GRAIN_SIZE, n, row); loop_walk_next(&w, &b, &e);) {
        const int64_t body = b + (e - b) / step * step;
        for (int64_t i = b; i < e; i++) place[i] = i < body ? (float)((i - b) % step) : -1.0f - (float)(i - body);
    }
}

/* Whether grad's NaN wins over q's in element j of a scalar tail of t elements where ATen reads input
 * `scalar` (1 x, 2 buffer, 3 grad) as a scalar: GCC vectorized that basic_loop (stride 0 for the
 * scalar) in chunks that order the product either way (measured on a Zen 5, every t after 0, 1 and 2
 * steps). The avx2 object: grad's everywhere with grad read as a scalar, and in tails under 4; else
 * q's in the whole chunks of 4, after them grad's (buffer read as a scalar) or grad's and q's in turn
 * (x). The AVX-512 object: q's in tails under 8; else, with grad read as a scalar, grad's in the whole
 * chunks of 16, q's in a chunk of 8 after them, grad's in the rest; with x or the buffer, q's in the
 * whole chunks of 8, after them grad's and q's in turn (the buffer: grad's from the fifth on). */
static int ls_tail_grad_first(const profile_t *p, int32_t scalar, int64_t t, int64_t j) {
    if (p->aten == ATEN_AVX512) {
        if (t < 8) return 0;
        if (scalar == 3) return j < t / 16 * 16 || j >= t / 16 * 16 + t % 16 / 8 * 8;
        const int64_t m = t / 8 * 8;
        return j >= m && ((j - m) % 2 == 0 || (scalar == 2 && j - m >= 4));
    }
    if (scalar == 3 || t < 4) return 1;
    const int64_t m = t / 4 * 4;
    return j >= m && (scalar == 2 || (j - m) % 2 == 0);
}

/* The NaN an aarch64 arithmetic instruction (FPCR.DN off) gives for operands a, b in that order, one
 * of them NaN: the first signalling one quieted, else the first quiet one. */
static inline float arm_nan_pick(float a, float b) {
    const int sa = isnan(a) && !(vm_f2u(a) & 0x00400000u), sb = isnan(b) && !(vm_f2u(b) & 0x00400000u);
    if (sa || (!sb && isnan(a))) return quiet_nan(a);
    return quiet_nan(b);
}

void log_sigmoid_backward(profile_t p, const float *grad, const float *x, const float *buffer, float *grad_x,
                          int64_t n, int64_t row, int32_t scalar) {
    ls_ctx c = {p, 0, 0};
    const int basic = row == 1 && n > 1;
    run_unary(&c.p, p.lanes_wide, GRAIN_SIZE, ls_pos_vec, ls_pos_tail, grad, grad_x, n, row); /* grad_x: places */
    float *place = scalar && p.aten && !is_arm(&p) ? malloc((size_t)n * sizeof(float)) : NULL; /* each call's own */
    if (place) loop_places(&p, place, n, row);
    int64_t tail_len = 0;
    for (int64_t i = 0; i < n; i++) {
        if (place && place[i] == -1.0f) /* a tail's first element: its length */
            for (tail_len = 1; i + tail_len < n && place[i + tail_len] == -1.0f - (float)tail_len; tail_len++) {}
        const float b = buffer[i], g = grad[i];
        const float q = is_arm(&p) && isinf(b) ? vm_u2f(0x7fc00000u) : b / (1.0f + b); /* inf/inf: the default NaN */
        if (isnan(q) && is_arm(&p)) { /* harness.impl.unary refuses the places not modelled here */
            const int tail = grad_x[i] < 0.0f, sve256 = obj_kind(&p) == OBJ_SVE, sve128 = !sve256 && p.aten == ATEN_SVE;
            const float r = quiet_nan(tail ? vm_u2f(vm_f2u(q) ^ 0x80000000u) : q);
            const int grad_first = tail ? sve128 && -1.0f - grad_x[i] < (float)p.lanes : !sve256;
            grad_x[i] = grad_first ? arm_nan_pick(g, r) : arm_nan_pick(r, g);
            continue;
        }
        const int tail = grad_x[i] < 0.0f;
        const int grad_first = p.aten != ATEN_DEFAULT && (basic || (tail ? place && ls_tail_grad_first(&p, scalar, tail_len, (int64_t)(-1.0f - place[i]))
                                                              : scalar == 3 || grad_x[i] >= (float)p.lanes_wide));
        if (isnan(q)) {
            grad_x[i] = grad_first && isnan(g) ? quiet_nan(g) : quiet_nan(q);
            continue;
        }
        const float r = x[i] < 0.0f ? 1.0f - q : 0.0f + q;
        grad_x[i] = r * g;
    }
    free(place);
}

/* ------------------------------------------------------------------ leaky_relu */

/* leaky_relu_kernel and leaky_relu_backward_kernel (cpu/Activation.cpp, float32), cpu_kernel_vec with
 * negval = negative_slope rounded to float (Scalar::to<float>). Forward, per element, vector lambda
 * a * blendv(negval, 1, a > 0), scalar lambda a > 0 ? a : a * negval: one product, the same bits in
 * both (a > 0 is never a NaN, and a * 1 = a); a NaN a is not > 0 and the product passes it on
 * quieted. Backward, over (self a, grad b): vector lambda b * blendv(negval, 1, a > 0), scalar
 * lambda a > 0 ? b : b * negval: they differ only where a > 0 and b is a signalling NaN, which the
 * vector body's b * 1 quiets and the scalar tail (and the basic loop of a strided operand) passes
 * on as it is (measured at default and avx2). inf * 0 (negative_slope 0) gives the CPU's default
 * NaN: 0xffc00000 on x86, 0x7fc00000 on aarch64. A NaN negative_slope is refused in
 * harness.impl.unary. Tensor shapes: x, grad, out, grad_x (n,), rows of `row`. */
typedef struct {
    profile_t p;
    float negval;
} lrelu_ctx;

static inline float lrelu_mul(const profile_t *p, float b, float negval) {
    if (isnan(b)) return quiet_nan(b);
    if (isinf(b) && negval == 0.0f) return vm_u2f(is_arm(p) ? 0x7fc00000u : 0xffc00000u);
    return b * negval;
}

static float lrelu_fwd(const profile_t *p, float a) {
    return a > 0.0f ? a : lrelu_mul(p, a, ((const lrelu_ctx *)p)->negval);
}

static float lrelu_bwd_vec(const profile_t *p, float b, float a) {
    return a > 0.0f ? lrelu_mul(p, b, 1.0f) : lrelu_mul(p, b, ((const lrelu_ctx *)p)->negval);
}

static float lrelu_bwd_scalar(const profile_t *p, float b, float a) {
    return a > 0.0f ? b : lrelu_mul(p, b, ((const lrelu_ctx *)p)->negval);
}

void leaky_relu_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, float negval) {
    lrelu_ctx c = {p, negval};
    run_unary(&c.p, p.lanes, GRAIN_SIZE, lrelu_fwd, lrelu_fwd, x, out, n, row);
}

void leaky_relu_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                         float negval) {
    lrelu_ctx c = {p, negval};
    run_binary(&c.p, p.lanes, GRAIN_SIZE, lrelu_bwd_vec, lrelu_bwd_scalar, grad, x, grad_x, n, row);
}

/* ------------------------------------------------------------------ elu, selu, celu */

/* elu_kernel and elu_backward_kernel (cpu/Activation.cpp, float32; selu and celu are elu with their
 * scale and input_scale), cpu_kernel_vec over TensorIterator's runs with negcoef = alpha * scale,
 * poscoef = scale, negiptcoef = input_scale, each a Scalar::to<float> (negcoef the float product).
 * Forward (Elu.h): vector lane a >= 0 ? a * poscoef : expm1(a * negiptcoef) * negcoef, expm1 the
 * Vectorized one (vec_expm1f: SLEEF's in the AVX2 object, glibc's expm1f in the default one); scalar
 * lambda a < 0 ? std::expm1(a * negiptcoef) * negcoef : a * poscoef, glibc's expm1f at every level.
 * A NaN a takes the expm1 branch in the vector body and the other in the tail: the same quieted NaN.
 * Backward over (grad a, self-or-result b): vector lane b > 0 ? a * poscoef : else
 * a * negiptcoef * negcoef * exp(b * negiptcoef) (Vectorized exp: SLEEF's expf | glibc's), or with
 * is_result a * negiptcoef * (b + negcoef); scalar lambda b <= 0 ? (the same, std::exp = glibc's
 * expf) : a * poscoef. A NaN b so takes the negative branch in the vector body (a NaN result) and
 * a * poscoef in the tail. Products left to right; where both operands of a product are NaN x86's
 * mulps and mulss keep the first (elu_mul), but the compiled vector bodies commute some: where grad and
 * b are both NaN, the AVX2 and AVX-512 objects keep b's NaN with is_result (a * negiptcoef times
 * b + negcoef taken in the other order) and grad's without; the default object's array-of-floats
 * Vectorized keeps b's at lanes 8 and 10 of each 16 with is_result and 1 to 3 of each 8 without (its
 * vector calls are counted, elu_ctx.calls: each inner loop's body is whole blocks of 16). Measured on a
 * Zen 5 (elu_nan_order). aarch64 (NEON object on N1 and V2, SVE256 on V1): the same lambdas, the vector
 * lanes SLEEF's advsimd / SVE expm1f and expf (sleef_*_u10's bits), the tails aarch64 glibc's contracted
 * expm1f (glibc_expm1f_a64) and its expf (glibc_expf), every product FMUL's NaN (nan2: the first signalling
 * operand quieted, else the first quiet one) in the order written: with is_result grad's NaN before
 * b's in the vector body too, where the x86 FMA objects keep b's (measured on emulated N1, V2 and V1, 1, 2
 * and 4 threads: tests/arm64_activation_cases.py). Tensor shapes: x, grad,
 * out, grad_x (n,), rows of `row`. */
typedef struct {
    profile_t p;
    float negcoef, poscoef, negiptcoef;
    int is_result;
    int64_t calls; /* vector-body elements so far (the default object's NaN order is by lane) */
} elu_ctx;

/* x * y with the NaN the profile's CPU gives (common.h nan2; x86's mulss / mulps: the first NaN operand
 * quieted; aarch64's FMUL: the first signalling one quieted, else the first quiet one) */
static inline float elu_mul(const profile_t *p, float x, float y) { return nan2(p, x * y, x, y); }

static float elu_fwd_vec(const profile_t *p, float a) {
    const elu_ctx *c = (const elu_ctx *)p;
    if (a >= 0.0f) return a * c->poscoef;
    const float e = elu_mul(p, a, c->negiptcoef);
    return elu_mul(p, isnan(e) ? quiet_nan(e) : vec_expm1f(p, e), c->negcoef);
}

static float elu_fwd_scalar(const profile_t *p, float a) {
    const elu_ctx *c = (const elu_ctx *)p;
    if (!(a < 0.0f)) return elu_mul(p, a, c->poscoef);
    const float e = a * c->negiptcoef;
    return elu_mul(p, is_arm(p) ? glibc_expm1f_a64(e) : glibc_expm1f(e), c->negcoef);
}

/* the negative branch; swap: the last product keeps its right operand's NaN where both are NaN */
static inline float elu_bwd_neg(const elu_ctx *c, float a, float b, int vec, int swap) {
    const profile_t *p = &c->p;
    const float t = elu_mul(p, a, c->negiptcoef);
    float u, v;
    if (c->is_result) {
        u = t;
        v = b + c->negcoef;
    } else {
        const float e = elu_mul(p, b, c->negiptcoef);
        u = elu_mul(p, t, c->negcoef);
        v = isnan(e) ? quiet_nan(e) : vec ? vec_expf(p, e) : glibc_expf(e);
    }
    return swap ? elu_mul(p, v, u) : elu_mul(p, u, v);
}

static float elu_bwd_vec(const profile_t *p, float a, float b) {
    elu_ctx *c = (elu_ctx *)p;
    const int64_t lane = c->calls++ % 16;
    int swap = c->is_result && !is_arm(p);
    if (c->p.aten == ATEN_DEFAULT) swap = c->is_result ? lane == 8 || lane == 10 : lane % 8 >= 1 && lane % 8 <= 3;
    return b > 0.0f ? elu_mul(p, a, c->poscoef) : elu_bwd_neg(c, a, b, 1, swap);
}

static float elu_bwd_scalar(const profile_t *p, float a, float b) {
    const elu_ctx *c = (const elu_ctx *)p;
    return b <= 0.0f ? elu_bwd_neg(c, a, b, 0, 0) : elu_mul(p, a, c->poscoef);
}

void elu_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, int64_t lanes, float alpha,
                 float scale, float input_scale) {
    elu_ctx c = {p, alpha * scale, scale, input_scale, 0, 0};
    run_unary(&c.p, lanes, GRAIN_SIZE, elu_fwd_vec, elu_fwd_scalar, x, out, n, row);
}

void elu_backward(profile_t p, const float *grad, const float *b, float *grad_x, int64_t n, int64_t row,
                  int64_t lanes, float alpha, float scale, float input_scale, int32_t is_result) {
    elu_ctx c = {p, alpha * scale, scale, input_scale, is_result, 0};
    run_binary(&c.p, lanes, GRAIN_SIZE, elu_bwd_vec, elu_bwd_scalar, grad, b, grad_x, n, row);
}

/* ------------------------------------------------------------------ hardswish, hardsigmoid */

/* hardswish_kernel, hardsigmoid_kernel and their backward kernels (cpu/Activation.cpp, float32),
 * cpu_kernel_vec over TensorIterator's runs. Forward: vector lane x * minimum(maximum(x + 3, 0), 6) / 6
 * (hardsigmoid without the x *), left to right; scalar lambda the same with std::max and std::min.
 * A NaN x + 3 comes out of the AVX2 and AVX-512 objects' vec::maximum with every bit set (max_ps, then
 * the unordered lanes OR-ed with all ones), so a vector lane of hardsigmoid gives 0xffffffff, and one of
 * hardswish (x * m) 0xffffffff in the first vector of each block of two and x's quieted NaN in the
 * second (the compiled loop commutes the product in one of its two copies); std::max / std::min and
 * the default object's array maximum pass the quieted x + 3 on. Backward over (grad g, self x):
 * hardswish's vector lane x <= -3 ? 0 : x >= 3 ? g : g * (x / 3 + 0.5), where g and x / 3 + 0.5 are
 * both NaN x's NaN in the AVX2 and AVX-512 objects and g's in the default one; its scalar lambda
 * x <= -3 ? 0 : x < 3 ? g * (x / 3 + 0.5) : g, so a NaN x gives a NaN in the vector body and g in the
 * tail; hardsigmoid's both
 * -3 < x < 3 ? g * (1.0f / 6) : 0. hardsigmoid's kernels are REGISTER_DISPATCH ones (the AVX2 object's 8
 * lanes at avx512: a NaN at 49,096 of 49,109 elements took the vector body), hardswish's are also
 * registered for AVX-512 (16 lanes: 27 elements all take the tail), all measured on a Zen 5
 * (hard_nan_order). aarch64: vec::maximum / minimum are FMAX / FMIN, which pass x + 3's quieted NaN on, and
 * the products take FMUL's NaN (elu_mul), so a NaN x gives its quieted NaN in body and tail alike; where
 * g and x are both NaN the backward's vector lane keeps x / 3 + 0.5's in the NEON-typed objects (N1, V2:
 * the product commuted, as in x86's FMA objects) and g's in V1's SVE256 one (ACLE svmul in the order
 * written), g's in every tail (measured on emulated N1, V2, V1).
 * Tensor shapes: x, grad, out, grad_x (n,), rows of `row`. */
typedef struct {
    profile_t p;
    int64_t lanes;
    int64_t calls; /* vector-body elements so far: each inner loop's body is whole blocks of 2 vectors */
} hard_ctx;

static inline float hard_relu6(const profile_t *p, float x, int vec) {
    const float s = x + 3.0f;
    if (isnan(s)) return vec && p->aten && !is_arm(p) ? vm_u2f(0xffffffffu) : s;
    return fminf(fmaxf(s, 0.0f), 6.0f);
}

static float hardsigmoid_vec(const profile_t *p, float x) { return hard_relu6(p, x, 1) / 6.0f; }
static float hardsigmoid_scalar(const profile_t *p, float x) { return hard_relu6(p, x, 0) / 6.0f; }
static float hardswish_scalar(const profile_t *p, float x) { return elu_mul(p, x, hard_relu6(p, x, 0)) / 6.0f; }

static float hardswish_vec(const profile_t *p, float x) {
    hard_ctx *c = (hard_ctx *)p;
    const int first = c->calls++ % (2 * c->lanes) < c->lanes;
    const float m = hard_relu6(p, x, 1);
    return (first ? elu_mul(p, m, x) : elu_mul(p, x, m)) / 6.0f;
}

static float hardswish_bwd_vec(const profile_t *p, float g, float x) {
    if (x <= -3.0f) return 0.0f;
    if (x >= 3.0f) return g;
    const float t = x / 3.0f + 0.5f;
    return p->aten && obj_kind(p) != OBJ_SVE ? elu_mul(p, t, g) : elu_mul(p, g, t);
}

static float hardswish_bwd_scalar(const profile_t *p, float g, float x) {
    return x <= -3.0f ? 0.0f : x < 3.0f ? elu_mul(p, g, x / 3.0f + 0.5f) : g;
}

static float hardsigmoid_bwd(const profile_t *p, float g, float x) {
    return x > -3.0f && x < 3.0f ? elu_mul(p, g, 1.0f / 6.0f) : 0.0f;
}

void hardswish_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, int64_t lanes) {
    hard_ctx c = {p, lanes, 0};
    run_unary(&c.p, lanes, GRAIN_SIZE, hardswish_vec, hardswish_scalar, x, out, n, row);
}

void hardsigmoid_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, int64_t lanes) {
    run_unary(&p, lanes, GRAIN_SIZE, hardsigmoid_vec, hardsigmoid_scalar, x, out, n, row);
}

void hardswish_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                        int64_t lanes) {
    run_binary(&p, lanes, GRAIN_SIZE, hardswish_bwd_vec, hardswish_bwd_scalar, grad, x, grad_x, n, row);
}

/* ------------------------------------------------------------------ mish */

/* mish_kernel / mish_backward_kernel (cpu/Activation.cpp), float32 through cpu_kernel_vec with the
 * default grain; `lanes` the object's (16 where the stub is also registered for AVX-512).
 * Forward, vector lane x * x.exp().log1p().tanh() (vec_expf, vec_log1pf, vec_tanhf: SLEEF's u10 lanes
 * in the avx2/avx512 objects, glibc's per lane in the default one), scalar tail
 * x * std::tanh(std::log1p(std::exp(x))) with glibc's expf, log1pf, tanhf; one multiply, nothing to
 * contract. A NaN x gives x quieted (the default object, every tail, and the first Vectorized of each
 * step of the avx2/avx512 bodies) or SLEEF tanhf's all-ones NaN (the second Vectorized there: GCC
 * orders that product the other way; hard_ctx counts the body's calls).
 * Backward: s = 1 / (1 + exp(-x)), t = tanh(log1p(exp(x))), dy * (t + x * s * (1 - t*t)), the same
 * functions per place; in the FMA objects (avx2/avx512, vector body and scalar tail alike) GCC
 * contracts 1 - t*t to fnmadd(t, t, 1) and t + (x*s) * u to fma(x*s, u, t); the default object rounds
 * each step. NaNs (measured on a Zen 5): a NaN factor dy * (...) is the bracket's (x's, or the default
 * NaN of inf * 0 for x = +inf) over dy's; a NaN x gives, in the default object's vector lanes -x quieted
 * (the NaN of exp(-x) through s), but x quieted in the first 4 of every 8 where ATen's loop reads x as a
 * scalar (`scalar` 2: broadcast along the inner dim), in its tail x quieted; in the avx2/avx512 vector
 * lanes the all-ones NaN (SLEEF tanhf's), in their tail -x quieted, but a NaN dy quieted over any NaN
 * where ATen's loop reads dy as a scalar (`scalar` 1: mish_bwd_scalar_grad_in). Shapes: x, out (and grad, grad_x) (n,), rows of `row`. */
EW_INLINE float mish_fwd_k(float x, float t) { return isnan(x) ? quiet_nan(x) : x * t; }

/* aarch64 (N1, V2, V1): the vector lanes are SLEEF's advsimd/SVE expf and log1pf (sleef_*_u10's bits) and
 * Vectorized tanh (SLEEF's tanhf4_u10 in the NEON-typed objects, ATen's own aten_sve_tanhf in V1's SVE256
 * one), the scalar tails aarch64 glibc's expf, contracted log1pf and tanhf (glibc_*_a64). The backward's
 * 1 - t*t and t + (x*s)*u fused in the NEON-typed objects and every scalar tail (vec_contracted), two
 * roundings each in the SVE256 vector body. NaNs (measured on emulated N1, V2, V1): a NaN x gives SLEEF's
 * all-ones tanhf NaN in the NEON-typed vector lanes, which the backward's bracket keeps (fused: t the addend),
 * else x's passed on; an infinite x makes inf * 0's +qNaN (forward -inf * 0, backward x * s); the product
 * with dy is FMUL's (nan2, dy the first operand). */
EW_INLINE float mish_arm_tanh(const profile_t *p, int vec, float x) {
    if (!vec) return glibc_tanhf_a64(glibc_log1pf_a64(glibc_expf(x)));
    if (obj_kind(p) == OBJ_SVE) return aten_sve_tanhf(sleef_log1pf_u10(sleef_expf_u10(x)));
    if (isnan(x)) return vm_u2f(0xffffffffu); /* SLEEF's advsimd tanhf: a NaN lane all ones */
    return sleef_tanhf_u10(sleef_log1pf_u10(sleef_expf_u10(x)));
}

/* x * t, FMUL's NaN: x's (quieted) for a NaN x, +qNaN for -inf * 0. */
static float mish_fwd_arm(const profile_t *p, int vec, float x) {
    const float t = mish_arm_tanh(p, vec, x);
    return nan2(p, x * t, x, t);
}

static float mish_bwd_arm(const profile_t *p, int vec, float dy, float x) {
    const int c = vec ? vec_contracted(p) : 1;
    const float e = vec ? sleef_expf_u10(-x) : glibc_expf(-x);
    const float t = mish_arm_tanh(p, vec, x);
    const float s = 1.0f / (1.0f + e);
    const float u = c ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    const float xs = x * s;
    float inner = c ? nan3(p, fmaf(xs, u, t), xs, u, t) : nan2(p, t + nan2(p, xs * u, xs, u), t, xs * u);
    if (isnan(inner) && !isnan(x)) inner = qnan_bits(0x7fc00000u); /* an infinite x: inf * 0's +qNaN on */
    return nan2(p, dy * inner, dy, inner);
}

static float mish_fwd_vec(const profile_t *p, float x) {
    if (is_arm(p)) return mish_fwd_arm(p, 1, x);
    hard_ctx *c = (hard_ctx *)p;
    const int second = c->calls++ % (2 * c->lanes) >= c->lanes;
    if (isnan(x) && second && p->aten) return vm_u2f(0xffffffffu);
    return mish_fwd_k(x, vec_tanhf(p, vec_log1pf(p, vec_expf(p, x))));
}

static float mish_fwd_scalar(const profile_t *p, float x) {
    if (is_arm(p)) return mish_fwd_arm(p, 0, x);
    return mish_fwd_k(x, glibc_tanhf(glibc_log1pf(glibc_expf(x))));
}

void mish_forward(profile_t p, const float *x, float *out, int64_t n, int64_t row, int64_t lanes) {
    hard_ctx c = {p, lanes, 0};
    run_unary(&c.p, lanes, GRAIN_SIZE, mish_fwd_vec, mish_fwd_scalar, x, out, n, row);
}

/* dy * (t + x*s*(1 - t*t)), fused (c) as the FMA objects compile it; e = exp(-x), t the tanh term. */
EW_INLINE float mish_bwd_k(int c, float dy, float x, float e, float t) {
    const float s = 1.0f / (1.0f + e);
    const float u = c ? fmaf(-t, t, 1.0f) : 1.0f - t * t;
    const float inner = c ? fmaf(x * s, u, t) : t + x * s * u;
    return isnan(inner) ? inner : dy * inner;
}

static float mish_bwd_vec(const profile_t *p, float dy, float x) {
    if (is_arm(p)) return mish_bwd_arm(p, 1, dy, x);
    if (isnan(x)) return p->aten ? vm_u2f(0xffffffffu) : quiet_nan(-x);
    return mish_bwd_k(p->contract, dy, x, vec_expf(p, -x), vec_tanhf(p, vec_log1pf(p, vec_expf(p, x))));
}

static float mish_bwd_scalar(const profile_t *p, float dy, float x) {
    if (is_arm(p)) return mish_bwd_arm(p, 0, dy, x);
    if (isnan(x)) return p->aten ? quiet_nan(-x) : quiet_nan(x);
    return mish_bwd_k(p->contract, dy, x, glibc_expf(-x), glibc_tanhf(glibc_log1pf(glibc_expf(x))));
}

/* The avx2/avx512 objects' scalar tail where ATen's loop reads grad as a scalar: a NaN grad over the
 * bracket's NaN (x's, or the default NaN of x = +inf). */
static float mish_bwd_scalar_grad_in(const profile_t *p, float dy, float x) {
    return isnan(dy) ? quiet_nan(dy) : mish_bwd_scalar(p, dy, x);
}

void mish_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                   int64_t lanes, int32_t scalar) {
    const int grad_in = scalar == 1 && p.aten && !is_arm(&p);
    run_binary(&p, lanes, GRAIN_SIZE, mish_bwd_vec, grad_in ? mish_bwd_scalar_grad_in : mish_bwd_scalar, grad, x, grad_x,
               n, row);
    if (scalar != 2 || p.aten != ATEN_DEFAULT) return;
    float *place = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!place) return;
    loop_places(&p, place, n, row);
    for (int64_t i = 0; i < n; i++)
        if (isnan(x[i]) && place[i] >= 0.0f && (int64_t)place[i] % 8 < 4) grad_x[i] = quiet_nan(x[i]);
    free(place);
}

void hardsigmoid_backward(profile_t p, const float *grad, const float *x, float *grad_x, int64_t n, int64_t row,
                          int64_t lanes) {
    run_binary(&p, lanes, GRAIN_SIZE, hardsigmoid_bwd, hardsigmoid_bwd, grad, x, grad_x, n, row);
}

/* ------------------------------------------------------------------ minimum, maximum, clamp by tensors */

/* maximum_kernel, minimum_kernel (cpu/BinaryOpsKernel.cpp) and clamp_kernel_impl (cpu/
 * TensorCompareKernel.cpp), float32, cpu_kernel_vec over TensorIterator's runs: vector lanes and
 * scalar lambdas as common.h aten_maximum / aten_minimum (b where a == b in the vector body, a in the
 * tail: max(+0, -0) is -0 in one and +0 in the other; a NaN gives every bit set in the AVX2 and AVX-512
 * objects' lanes, the operand as it is in the default object's, 0x7fc00000 in the tails). clamp's scalar
 * lambda: a NaN min or max gives quiet_NaN(), else std::min(std::max(a, min), max), which passes a NaN a
 * on as it is; its vector lane minimum(maximum(a, min), max). aarch64: the vector lanes are FMAX / FMIN
 * (vmaxq_f32 / vminq_f32, svmax / svmin: common.h fmax_arm / fmin_arm, a NaN operand's NaN by aarch64's
 * rule, -0 below +0), the scalar lambdas as on x86 (measured on emulated N1, V2, V1, 1, 2 and 4 threads).
 * Tensor shapes: a, b, c (clamp's max), y (n,), rows of `row`. */
typedef struct {
    profile_t p;
    const float *hi; /* clamp's max, read at the element's index (calls: the loops run in index order) */
    int64_t calls;
} minmax_ctx;

static inline float vmax(const profile_t *p, float a, float b) {
    return is_arm(p) ? fmax_arm(p, a, b) : aten_maximum(p, 1, a, b);
}
static inline float vmin(const profile_t *p, float a, float b) {
    return is_arm(p) ? fmin_arm(p, a, b) : aten_minimum(p, 1, a, b);
}
static float maximum_vec(const profile_t *p, float a, float b) { return vmax(p, a, b); }
static float minimum_vec(const profile_t *p, float a, float b) { return vmin(p, a, b); }
static float maximum_scalar(const profile_t *p, float a, float b) { return aten_maximum(p, 0, a, b); }
static float minimum_scalar(const profile_t *p, float a, float b) { return aten_minimum(p, 0, a, b); }

static float clamp_vec(const profile_t *p, float a, float lo) {
    minmax_ctx *c = (minmax_ctx *)p;
    return vmin(p, vmax(p, a, lo), c->hi[c->calls++]);
}

static float clamp_scalar(const profile_t *p, float a, float lo) {
    minmax_ctx *c = (minmax_ctx *)p;
    const float hi = c->hi[c->calls++];
    if (isnan(lo) || isnan(hi)) return vm_u2f(0x7fc00000u);
    const float m = a < lo ? lo : a;
    return hi < m ? hi : m;
}

void maximum_forward(profile_t p, const float *a, const float *b, float *y, int64_t n, int64_t row, int64_t lanes) {
    run_binary(&p, lanes, GRAIN_SIZE, maximum_vec, maximum_scalar, a, b, y, n, row);
}

void minimum_forward(profile_t p, const float *a, const float *b, float *y, int64_t n, int64_t row, int64_t lanes) {
    run_binary(&p, lanes, GRAIN_SIZE, minimum_vec, minimum_scalar, a, b, y, n, row);
}

void clamp_forward(profile_t p, const float *a, const float *lo, const float *hi, float *y, int64_t n, int64_t row,
                   int64_t lanes) {
    minmax_ctx c = {p, hi, 0};
    run_binary(&c.p, lanes, GRAIN_SIZE, clamp_vec, clamp_scalar, a, lo, y, n, row);
}

/* ------------------------------------------------------------------ fmod, remainder */

/* fmod_kernel and remainder_kernel (cpu/BinaryOpsKernel.cpp), float32, cpu_kernel_vec over
 * TensorIterator's runs. Vector lane: Vectorized<float>::fmod (SLEEF's fmodf in the AVX2 object,
 * sleef_fmodf; std::fmod per lane in the default one); the scalar lambda std::fmod (glibc's fmodf,
 * exact). remainder keeps mod but where mod != 0 and (b < 0) != (mod < 0), there mod + b (a -0 mod
 * stays -0 in both). The NaN lanes SLEEF's steps leave (a NaN or infinite a, a NaN or zero b, a
 * quotient past float's range) are not modelled: counted (fmod_ctx.unproven) for the caller to refuse.
 * aarch64: the lanes SLEEF's advsimd / SVE fmodf (exact where not NaN; the same NaN lanes refused), the
 * tails aarch64 glibc 2.36's fmodf, whose NaN, infinite-a and zero-b answer is (a * b) / (a * b): FMUL's NaN
 * of a NaN operand, else the default NaN 0x7fc00000 (measured on emulated N1, V2, V1).
 * Tensor shapes: a, b, y (n,), rows of `row`. */
typedef struct {
    profile_t p;
    int64_t unproven;
} fmod_ctx;

/* std::fmod as torch's objects call it, NaN operands included: on x86 one NaN comes out quieted; of two,
 * the quieted one of the larger significand (the positive one where they are equal), as x87's rule
 * (measured through torch's tails, fmod_nan_tail); on aarch64 glibc's (a * b) / (a * b). */
static inline float std_fmodf(const profile_t *p, float a, float b) {
    if (is_arm(p) && (isnan(a) || isnan(b) || isinf(a) || b == 0.0f)) return nan2(p, (a * b) / (a * b), a, b);
    if (isnan(a) && isnan(b)) {
        const uint32_t qa = vm_f2u(a) | 0x00400000u, qb = vm_f2u(b) | 0x00400000u;
        const uint32_t ma = qa & 0x007fffffu, mb = qb & 0x007fffffu;
        return vm_u2f(ma > mb ? qa : mb > ma ? qb : (qa & 0x80000000u) ? qb : qa);
    }
    if (isnan(a) || isnan(b)) return quiet_nan(isnan(a) ? a : b);
    return fmodf(a, b);
}

static inline float fmod_lane(const profile_t *p, float a, float b) {
    if (!p->aten) return std_fmodf(p, a, b);
    const float mod = sleef_fmodf(a, b);
    if (isnan(a) || isnan(b) || isinf(a) || b == 0.0f || isnan(mod)) ((fmod_ctx *)p)->unproven++;
    return mod;
}

static inline float remainder_fix(float mod, float b) {
    return mod != 0.0f && (b < 0.0f) != (mod < 0.0f) ? mod + b : mod;
}

static float fmod_vec(const profile_t *p, float a, float b) { return fmod_lane(p, a, b); }
static float fmod_scalar(const profile_t *p, float a, float b) { return std_fmodf(p, a, b); }
static float remainder_vec(const profile_t *p, float a, float b) { return remainder_fix(fmod_lane(p, a, b), b); }
static float remainder_scalar(const profile_t *p, float a, float b) { return remainder_fix(std_fmodf(p, a, b), b); }

/* atan2_kernel (BinaryOpsKernel.cpp), cpu_kernel_vec: vector lane a.atan2(b) (vec_atan2f: SLEEF's
 * Sleef_atan2f8_u10 / atan2f16_u10 at avx2 / avx512, glibc's atan2f per lane at default; aarch64 SLEEF's
 * atan2f4_u10 / atan2fx_u10sve), scalar tail std::atan2(a, b), glibc's atan2f (aarch64's contracted
 * build there, glibc_atan2f_a64); `lanes` the object's. Shapes: a (y), b (x), y (n,), rows of `row`. */
static float atan2_vec(const profile_t *p, float a, float b) { return vec_atan2f(p, a, b); }
static float atan2_scalar(const profile_t *p, float a, float b) {
    return is_arm(p) ? glibc_atan2f_a64(a, b) : glibc_atan2f(a, b);
}

void atan2_forward(profile_t p, const float *a, const float *b, float *y, int64_t n, int64_t row, int64_t lanes) {
    run_binary(&p, lanes, GRAIN_SIZE, atan2_vec, atan2_scalar, a, b, y, n, row);
}

/* glibc_atan2f over (n,) pairs: the port checked against the C library. */
void glibc_atan2f_array(const float *a, const float *b, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = glibc_atan2f(a[i], b[i]);
}

/* returns how many vector lanes hold a NaN of SLEEF's steps (the result is not to be used then) */
int64_t fmod_forward(profile_t p, const float *a, const float *b, float *y, int64_t n, int64_t row, int64_t lanes) {
    fmod_ctx c = {p, 0};
    run_binary(&c.p, lanes, GRAIN_SIZE, fmod_vec, fmod_scalar, a, b, y, n, row);
    return c.unproven;
}

int64_t remainder_forward(profile_t p, const float *a, const float *b, float *y, int64_t n, int64_t row,
                          int64_t lanes) {
    fmod_ctx c = {p, 0};
    run_binary(&c.p, lanes, GRAIN_SIZE, remainder_vec, remainder_scalar, a, b, y, n, row);
    return c.unproven;
}

/* ------------------------------------------------------------------ LSTM cell: oneDNN */

/* oneDNN v3.12's x86 LSTM forward postgemm (jit_uni_lstm_cell_postgemm_fwd at SSE4.1, AVX2 and
 * AVX512_CORE; the ISA changes only whether uni_vfmadd* fuse: fma). Its eltwise injectors:
 * logistic_compute_vector_fwd: e = exp(-|x|) (dnnl_expf), y = e / (e + 1), 1 - y for x without
 * its sign bit set; tanh_compute_vector_fwd: on s = |x|, 32 intervals by the bits of s (index
 * ((bits(s) - 0x39800000) & 0xffc00000) >> 22), a degree-6 polynomial in s minus its top 10 bits
 * (Horner from degree 6, each step an FMA), s itself below 0x39ddb3d7, 1 from 0x41102cb3 (and for a
 * NaN), the sign of x put back. The table is the injector's tanh_pol_table, 32 entries per degree. */
static const uint32_t dnnl_tanh_pol[7][32] = {
    {/* degree 0 */
        0x00000000, 0x39bfffff, 0x39ffffff, 0x3a3ffffe, 0x3a7ffffb, 0x3abffff7, 0x3affffeb, 0x3b3fffdc,
        0x3b7fffab, 0x3bbfff70, 0x3bfffeab, 0x3c3ffdc0, 0x3c7ffaab, 0x3cbff701, 0x3cffeaad, 0x3d3fdc08,
        0x3d7faacd, 0x3dbf7081, 0x3dfeacc9, 0x3e3dc7fd, 0x3e7acbf5, 0x3eb77a9f, 0x3eec9a9f, 0x3f22991f,
        0x3f42f7d6, 0x3f67b7cc, 0x3f76ca83, 0x3f7ebbe9, 0x3f7fd40c, 0x3f7fff32, 0x3f7ffffc, 0x3f800000,
    },
    {/* degree 1 */
        0x3f800000, 0x3f800018, 0x3f7fffe8, 0x3f7fffda, 0x3f7fffdc, 0x3f7fffdc, 0x3f7fffac, 0x3f7fff70,
        0x3f7ffeec, 0x3f7ffdc0, 0x3f7ffbed, 0x3f7ff704, 0x3f7feff5, 0x3f7fdbca, 0x3f7fbfff, 0x3f7f7041,
        0x3f7f009b, 0x3f7dc36c, 0x3f7c0aa8, 0x3f7734b8, 0x3f70a4de, 0x3f5f1fd8, 0x3f495493, 0x3f18b9ec,
        0x3ed706cb, 0x3e390b06, 0x3d90b11f, 0x3c21a053, 0x3aaf7fdb, 0x37ccc1a3, 0x355c6733, 0x00000000,
    },
    {/* degree 2 */
        0x00000000, 0xbe4e0ff1, 0x3d25b1b1, 0x3d6b6dab, 0x3c9fb1d5, 0xbabff06f, 0x3c07b3f6, 0xbb3fc1bc,
        0x3a9f5921, 0xbbbf06f2, 0xbbb0f402, 0xbc47db9e, 0xbc73d5e7, 0xbca25bda, 0xbcfca780, 0xbd40e07c,
        0xbd7dab03, 0xbdbe4a0f, 0xbdfb14a5, 0xbe36cc8d, 0xbe6bd102, 0xbe9fe7c5, 0xbeba0f10, 0xbec206a8,
        0xbea3c388, 0xbe277d62, 0xbd8b7960, 0xbc209f49, 0xbaad44ca, 0xb7c6eeac, 0xb663aa41, 0x00000000,
    },
    {/* degree 3 */
        0x00000000, 0x45b3ae96, 0xc414eb20, 0xc450e02e, 0xc3152b4e, 0xbead2f56, 0xc2162e02, 0xbeb4bd5a,
        0xc11a59a4, 0xbed2f507, 0xc020d32c, 0x3dd0f506, 0xbf2a75e2, 0xbff950e3, 0xbed47334, 0xbe809b8c,
        0xbeb64532, 0xbe961a5b, 0xbe9b63ac, 0xbea0d4b2, 0xbe828a77, 0xbe378612, 0xbdc20908, 0x3d2d3957,
        0x3dd46e89, 0x3db3f629, 0x3d2c5e7b, 0x3bd20403, 0x3a59dfae, 0x3770af45, 0x372cc014, 0x00000000,
    },
    {/* degree 4 */
        0x00000000, 0xcc981a1b, 0x4a7edd3d, 0x4ab1007c, 0x48fedd9c, 0x41a557b5, 0x477ee32a, 0x422557f5,
        0x45ff3ce4, 0x42a55641, 0x446e0867, 0xc33dc19a, 0x42915214, 0x43af4fad, 0x4110fe88, 0xc1099b75,
        0x3fc8a8dc, 0xbfbeaef5, 0xbe365aad, 0x3f4d9652, 0x3ddfa08f, 0x3e34e9b8, 0x3e2d07a6, 0x3dc63567,
        0x3cdaeb78, 0xbcd17537, 0xbc92829c, 0xbb43ab99, 0xb9b471dd, 0xb6baad5a, 0xb78bafc7, 0x00000000,
    },
    {/* degree 5 */
        0x00000000, 0x52f688d5, 0xd0505c72, 0xd08f98e3, 0xce505cc9, 0xc7162b8a, 0xcc5061d6, 0xc7162bdf,
        0xca50b37f, 0xc7162a3a, 0xc8422086, 0x471a714e, 0xc5ece1f1, 0xc70e3d90, 0xc3eba94a, 0x43e0c424,
        0xc21f4552, 0x42217cc8, 0x405e7dc4, 0xc10dd401, 0x3e96b602, 0xbd1a6d2f, 0xbd393883, 0xbd674682,
        0xbd310016, 0xb961e269, 0x3ba32495, 0x3a7680d5, 0x38b3173c, 0x35a9deea, 0x375c3f2a, 0x00000000,
    },
    {/* degree 6 */
        0x00000000, 0xd8995ed1, 0x558285ea, 0x55b2cd69, 0x53028625, 0x4bc9991f, 0x5082898a, 0x4b4999b3,
        0x4e02c07c, 0x4ac99764, 0x4b72c822, 0xca40c0e1, 0x489413e4, 0x49b12224, 0x46134c4e, 0xc60c2d57,
        0x43c83910, 0xc3c872d1, 0xc186bc9e, 0x42325bc3, 0xbf2ffa4a, 0x3d9a203c, 0xbc545a43, 0xbae08fee,
        0x3c80225d, 0x3b1fd1df, 0xba36b9d1, 0xb91de544, 0xb71f100f, 0xb408e2ed, 0xb685fec8, 0x00000000,
    },
};

static inline float dnnl_tanhf(int fma, float x) {
    const uint32_t ux = vm_f2u(x), us = ux & 0x7fffffffu;
    const float s = vm_u2f(us), r = s - vm_u2f(us & 0xffc00000u);
    const uint32_t idx = ((us - 0x39800000u) & 0xffc00000u) >> 22 & 31u; /* lanes off the table: s taken below */
    float pol = vm_u2f(dnnl_tanh_pol[6][idx]);
    for (int deg = 5; deg >= 0; deg--) pol = dnnl_fma(fma, pol, r, vm_u2f(dnnl_tanh_pol[deg][idx]));
    float dst = 1.0f;
    if (vm_u2f(0x41102cb3) > s) dst = pol;
    if (vm_u2f(0x39ddb3d7) > s) dst = s;
    return vm_u2f(vm_f2u(dst) ^ (ux & 0x80000000u));
}

static inline float dnnl_logisticf(int fma, float x) {
    const uint32_t ux = vm_f2u(x);
    const float e = dnnl_expf(fma, vm_u2f(ux | 0x80000000u));
    const float y = e / (e + 1.0f);
    return (ux & 0x80000000u) ? y : 1.0f - y;
}

/* The postgemms' kinds: x86's JIT kernels without FMA (SSE4.1) or with (AVX2, AVX512_CORE), and
 * aarch64's ref postgemms (ref_postgemm_lstm.cpp, C++ compiled by GCC for aarch64, which contracts
 * a product feeding an add into an FMA), on glibc's expf and tanhf (aarch64 build). */
enum { LSTM_JIT_SSE41 = 0, LSTM_JIT_FMA = 1, LSTM_REF_A64 = 2 };

/* uni_vfnmadd231ps: a - b*c, fused from AVX2 up, multiplied (rounded) then subtracted at SSE4.1. */
static inline float dnnl_fnma(int fma, float a, float b, float c) { return fma ? fmaf(-b, c, a) : a - b * c; }

/* aarch64's logistic_fwd: 1 / (1 + expf(-x)) where -x < 88.72283172607421875, else 0. */
static inline float dnnl_ref_logisticf(float x) {
    const float in = -x;
    return in < 88.72283172607421875f ? 1.0f / (1.0f + glibc_expf(in)) : 0.0f;
}

static inline float lstm_sigmoid(int kind, float x) {
    return kind == LSTM_REF_A64 ? dnnl_ref_logisticf(x) : dnnl_logisticf(kind, x);
}

static inline float lstm_tanh(int kind, float x) { return kind == LSTM_REF_A64 ? glibc_tanhf_a64(x) : dnnl_tanhf(kind, x); }

/* One LSTM cell's forward postgemm over mb rows. Shapes: gates (mb, 4*dhc) the sgemms' sums in
 * oneDNN's gate order (i, f, c~, o), bias (4*dhc), c_prev (mb, dhc); out c (mb, dhc), h (mb, dhc)
 * and, where ws is not NULL, the activated gates (mb, 4*dhc) as the training workspace keeps them.
 * Per element: G = gate + bias; i, f, o = logistic(G), c~ = tanh(G); then
 *   x86 JIT (jit_uni_lstm_cell_postgemm_fwd): c = c_prev * f, then c += i * c~ (vfmadd231ps;
 *     multiplied and added at SSE4.1); h = tanh(c) * o;
 *   aarch64 ref: c = fma(f, c_prev, i * c~) (the first product fused); h = o * tanh(c). */
void dnnl_lstm_fwd_postgemm(int32_t kind, int64_t mb, int64_t dhc, const float *gates, const float *bias,
                            const float *c_prev, float *c, float *h, float *ws) {
    for (int64_t b = 0; b < mb; b++) {
        const float *g = gates + b * 4 * dhc;
        for (int64_t j = 0; j < dhc; j++) {
            const int64_t e = b * dhc + j;
            const float gi = lstm_sigmoid(kind, g[j] + bias[j]);
            const float gf = lstm_sigmoid(kind, g[dhc + j] + bias[dhc + j]);
            const float gc = lstm_tanh(kind, g[2 * dhc + j] + bias[2 * dhc + j]);
            const float go = lstm_sigmoid(kind, g[3 * dhc + j] + bias[3 * dhc + j]);
            const float cs = kind == LSTM_REF_A64 ? fmaf(gf, c_prev[e], gi * gc) : dnnl_fma(kind, gi, gc, c_prev[e] * gf);
            c[e] = cs;
            h[e] = kind == LSTM_REF_A64 ? go * lstm_tanh(kind, cs) : lstm_tanh(kind, cs) * go;
            if (ws) {
                float *w = ws + b * 4 * dhc;
                w[j] = gi, w[dhc + j] = gf, w[2 * dhc + j] = gc, w[3 * dhc + j] = go;
            }
        }
    }
}

/* One LSTM cell's backward postgemm over mb rows. Shapes: ws the forward's activated gates
 * (mb, 4*dhc) (i, f, c~, o), c_prev and c the cell's states before and after (mb, dhc), dh_layer and
 * dh_iter the h gradients from the output and from the next step, dc_next the c gradient from the
 * next step (mb, dhc); out dgates (mb, 4*dhc) and dc (mb, dhc). Per element, in each kernel's order:
 *   x86 JIT (jit_uni_lstm_cell_postgemm_bwd; each a - b*c one FMA from AVX2 up): t = tanh(c);
 *     dh = dh_layer + dh_iter; dC = dc_next + ((1 - t*t) * dh) * o; do = ((o - o*o) * dh) * t;
 *     di = ((i - i*i) * dC) * c~; df = ((f - f*f) * dC) * c_prev; dc~ = (1 - c~*c~) * (i * dC);
 *   aarch64 ref (one_m_square(x) = (1 - x) * (1 + x), x_m_square(x) = (1 - x) * x): t = tanh(c);
 *     dC = fma(one_m_square(t) * o, dh, dc_next); do = (t * dh) * x_m_square(o);
 *     df = (c_prev * dC) * x_m_square(f); di = (c~ * dC) * x_m_square(i);
 *     dc~ = (i * dC) * one_m_square(c~);
 *   both: dc = dC * f. */
void dnnl_lstm_bwd_postgemm(int32_t kind, int64_t mb, int64_t dhc, const float *ws, const float *c_prev, const float *c,
                            const float *dh_layer, const float *dh_iter, const float *dc_next, float *dgates,
                            float *dc) {
    for (int64_t b = 0; b < mb; b++) {
        const float *w = ws + b * 4 * dhc;
        float *dg = dgates + b * 4 * dhc;
        for (int64_t j = 0; j < dhc; j++) {
            const int64_t e = b * dhc + j;
            const float gi = w[j], gf = w[dhc + j], gc = w[2 * dhc + j], go = w[3 * dhc + j];
            const float t = lstm_tanh(kind, c[e]), dh = dh_layer[e] + dh_iter[e];
            float dC;
            if (kind == LSTM_REF_A64) {
                dC = fmaf(((1.0f - t) * (1.0f + t)) * go, dh, dc_next[e]);
                dg[3 * dhc + j] = (t * dh) * ((1.0f - go) * go);
                dg[dhc + j] = (c_prev[e] * dC) * ((1.0f - gf) * gf);
                dg[j] = (gc * dC) * ((1.0f - gi) * gi);
                dg[2 * dhc + j] = (gi * dC) * ((1.0f - gc) * (1.0f + gc));
            } else {
                dC = dc_next[e] + (dnnl_fnma(kind, 1.0f, t, t) * dh) * go;
                dg[3 * dhc + j] = (dnnl_fnma(kind, go, go, go) * dh) * t;
                dg[j] = (dnnl_fnma(kind, gi, gi, gi) * dC) * gc;
                dg[dhc + j] = (dnnl_fnma(kind, gf, gf, gf) * dC) * c_prev[e];
                dg[2 * dhc + j] = dnnl_fnma(kind, 1.0f, gc, gc) * (gi * dC);
            }
            dc[e] = dC * gf;
        }
    }
}

/* ------------------------------------------------------------------ pow (a scalar exponent) */

/* pow_tensor_scalar_optimized_kernel (cpu/PowKernel.cpp, pow_tensor_scalar_stub also registered for
 * AVX-512: lanes_wide), float32, an exponent none of its special
 * cases takes (not 2, 3, -2, nor 0.5, -0.5, -1 of pow_tensor_scalar_kernel): cpu_kernel_vec with the
 * default grain. Vector lane: Vectorized<float>::pow of the exponent cast to float, SLEEF
 * Sleef_powf8_u10 in the avx2 object (Sleef_powf16_u10avx512f in the AVX-512 one, whose logkf takes
 * vgetexp/vgetmant: the same bits, measured on every subnormal and on 2^22 random bit patterns;
 * aarch64: Sleef_powf4_u10 advsimd, Sleef_powfx_u10sve on SVE256,
 * the same bits), std::pow (glibc powf) per lane in the x86 default build. Scalar
 * tail: std::pow of the float and the exponent as a double, glibc's double pow rounded to float
 * (measured: an exponent of 0.3 gives other bits there than powf of 0.3f). That one is not computed
 * here: those elements are counted into *tail and marked 1.0f in `tail_mask` (0.0f for the vector
 * lanes; their out is powf's placeholder), and the caller rounds the exact power where it can prove
 * glibc's rounding (unary.py pow_tail). The exponent and the count ride in pow_ctx after the profile. */
typedef struct {
    profile_t p;
    float exponent;
    int64_t tail;
} pow_ctx;

static float pow_vec(const profile_t *p, float x) { return vec_powf(p, x, ((const pow_ctx *)p)->exponent); }

static float pow_scalar(const profile_t *p, float x) {
    pow_ctx *c = (pow_ctx *)p;
    c->tail++;
    return glibc_powf(x, c->exponent);
}

static float pow_mark_vec(const profile_t *p, float x) { return (void)p, (void)x, 0.0f; }
static float pow_mark_tail(const profile_t *p, float x) { return (void)p, (void)x, 1.0f; }

/* Tensor shapes: x, out, tail_mask (n,), rows of `row` (TensorIterator's runs); returns the scalar
 * tail's count (tail_mask written only where it is not 0). */
int64_t pow_scalar_forward(profile_t p, const float *x, float *out, float *tail_mask, int64_t n, int64_t row,
                           float exponent) {
    pow_ctx c = {p, exponent, 0};
    run_unary(&c.p, p.lanes_wide, GRAIN_SIZE, pow_vec, pow_scalar, x, out, n, row);
    if (c.tail) run_unary(&c.p, p.lanes_wide, GRAIN_SIZE, pow_mark_vec, pow_mark_tail, x, tail_mask, n, row);
    return c.tail;
}

/* pow_tensor_tensor_kernel (cpu/PowKernel.cpp, pow_tensor_tensor_stub also registered for AVX-512:
 * lanes_wide), float32: aten.pow.Tensor_Tensor, and aten.pow.Scalar of a base other than 1 (Pow.cpp
 * pow_Scalar_out wraps the number in a 0-dim tensor, which TensorIterator casts to float and
 * cpu_kernel_vec's vectorized_loop broadcasts into every vector: the caller passes it repeated).
 * cpu_kernel_vec with the default grain. Vector lane: Vectorized<float>::pow(exponent vector), SLEEF
 * Sleef_powf8_u10 in the avx2 object (Sleef_powf16_u10avx512f in the AVX-512 one), std::pow per lane
 * (glibc powf) in the x86 default build; aarch64: Sleef_powf4_u10 advsimd (N1, V2), Sleef_powfx_u10sve
 * (V1), the same bits, in blocks of 2 x 4 or 2 x 8 lanes. Scalar tail: std::pow(float, float), glibc powf
 * (aarch64's own build there, glibc_powf_a64): unlike pow.Tensor_Scalar's tail no double pow, so every
 * element is computed here.
 * Tensor shapes: base, exponent, out (n,), rows of `row` (TensorIterator's runs). */
static float pow_tt_vec(const profile_t *p, float b, float e) { return vec_powf(p, b, e); }
static float pow_tt_scalar(const profile_t *p, float b, float e) {
    return is_arm(p) ? glibc_powf_a64(b, e) : glibc_powf(b, e);
}

void pow_tensor_forward(profile_t p, const float *base, const float *exponent, float *out, int64_t n, int64_t row) {
    run_binary(&p, p.lanes_wide, GRAIN_SIZE, pow_tt_vec, pow_tt_scalar, base, exponent, out, n, row);
}

/* pow_tensor_tensor_kernel and pow_tensor_scalar_optimized_kernel's generic exponent (cpu/PowKernel.cpp, both
 * also registered for AVX-512), float64: aten.pow.Scalar of a number to a float64 exponent tensor (Pow.cpp
 * wraps the number in a 0-dim tensor, which cpu_kernel_vec's vectorized_loop broadcasts into every vector),
 * pow.Tensor_Tensor of float64 tensors and pow.Tensor_Scalar of a float64 tensor (the exponent broadcast
 * alike). Vector lanes, in blocks of 2 x Vectorized<double>::size() (8 at avx2, 16 at avx512: lanes_wide):
 * Vectorized<double>::pow, SLEEF Sleef_powd4_u10 / Sleef_powd8_u10 (dmath.h sleef_pow_d). Each run's
 * scalar tail, and every element of the x86 default build, std::pow(double, double): glibc's pow (x86-64's
 * FMA build, dmath.h glibc_pow_d); those elements are marked in `tail` (1) and counted in the return value.
 * Tensor shapes: base, exponent, out, tail (n,) in loop order, runs of `row` (TensorIterator's), chunks of
 * the grain. */
int64_t pow_f64_forward(profile_t p, const double *base, const double *exponent, double *out, uint8_t *tail,
                        int64_t n, int64_t row) {
    /* avx2, avx512, aarch64 NEON (N1, V2) and SVE256 (V1): blocks of 2 vectors; x86's default build none */
    const int64_t step = is_avx(&p) || is_arm(&p) ? (int64_t)p.lanes_wide : INT64_MAX;
    const int a64 = is_arm(&p);
    int64_t b, e, tails = 0;
    for (loop_walk w = loop_walk_start(&p, GRAIN_SIZE, n, row); loop_walk_next(&w, &b, &e);) {
        const int64_t body = step == INT64_MAX ? b : b + (e - b) / step * step;
        for (int64_t i = b; i < e; i++) {
            tail[i] = i >= body;
            out[i] = i < body ? sleef_pow_d(base[i], exponent[i]) : glibc_pow_dd(base[i], exponent[i], a64);
        }
        tails += e - body;
    }
    return tails;
}

/* std::pow(float, double) stored to a float (pow.Tensor_Scalar's scalar tail, cdist's finish) as x86-64's
 * glibc computes it: the float widened to double (an sNaN quieted, as cvtss2sd does), dmath.h glibc_pow_d,
 * the power rounded to float. Shapes: x, out (n,); y one double. */
void glibc_pow_f32(const float *x, double y, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = (float)glibc_pow_d((double)x[i], y);
}

/* glibc's double pow of each (x[i], y[i]): x86-64's build (a64 0) or aarch64's (1), dmath.h glibc_pow_dd.
 * Shapes: x, y, out (n,). */
void glibc_pow_f64(const double *x, const double *y, double *out, int64_t n, int32_t a64) {
    for (int64_t i = 0; i < n; i++) out[i] = glibc_pow_dd(x[i], y[i], a64);
}

/* cpu_kernel_vec over bfloat16 (pow_tensor_scalar_optimized_kernel, pow_tensor_tensor_kernel, rsqrt_kernel,
 * reciprocal_kernel): where each element is computed, 1 in a vector body (blocks of 2 x `lanes`:
 * Vectorized<BFloat16>::size() is twice Vectorized<float>'s), 0 in a run's scalar tail, over TensorIterator's
 * runs and at::parallel_for's chunks of the grain (elementwise.h loop_walk).
 * Tensor shapes: vec (n,) in loop order, runs of `row`. */
void vector_body_mask(profile_t p, int64_t lanes, uint8_t *vec, int64_t n, int64_t row) {
    int64_t b, e;
    for (loop_walk w = loop_walk_start(&p, GRAIN_SIZE, n, row); loop_walk_next(&w, &b, &e);) {
        const int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes);
        for (int64_t i = b; i < e; i++) vec[i] = i < body;
    }
}

/* powf of bfloat16 operands widened to float (Vectorized<BFloat16>::pow converts both to float and calls
 * Vectorized<float>::pow; the scalar std::pow(BFloat16, BFloat16) calls std::pow(float, float)): vec_powf where
 * `vec` is set, glibc powf elsewhere; the caller rounds to bfloat16.
 * Tensor shapes: base, exponent, vec, out (n,). */
void pow_lanes_f32(profile_t p, const float *base, const float *exponent, const uint8_t *vec, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        out[i] = vec[i] ? vec_powf(&p, base[i], exponent[i]) : glibc_powf(base[i], exponent[i]);
}
