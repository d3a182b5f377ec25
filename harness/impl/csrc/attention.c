/* Scaled dot-product attention of torch 2.13.0+cpu, float32, bit for bit.
 *
 * sdpa (dropout 0): ATen's CPU flash attention, aten/src/ATen/native/cpu/FlashAttentionKernel.cpp
 * (cpu_flash_attention / cpu_flash_attention_backward, registered with ALSO_REGISTER_AVX512_DISPATCH:
 * its Vectorized<float> has profile.lanes_wide lanes), as _scaled_dot_product_flash_attention_for_cpu
 * and its backward call it: causal or not, a float mask, any scale, grouped key/value heads. Every cpublas::gemm it makes is MKL sgemm,
 * reproduced by csrc/mkl_sgemm.h, or on Linux aarch64 NVPL's, csrc/nvpl_sgemm.h (blas_sgemm
 * below). sdpa with dropout takes the math path
 * (harness/impl/attention.py), whose matrix products are at::bmm's (harness/impl/linalg.py, csrc/gemm.c).
 *
 * Shapes: B batch, H query heads, Hk key/value heads (H a multiple of Hk: query head h reads key/value
 * head h / (H / Hk), grouped-query attention), L query length, S key/value length, D head size.
 * q, out, grad_out, grad_q are (B, H, L, D); k, v, grad_k, grad_v (B, Hk, S, D); lse (B, H, L); the
 * optional float mask (B, H, L, S), broadcast (stride 0) along any dimension. Every (.., D) operand
 * is a sdpa_view_t: torch's strides (D's is 1) and its address mod 16 bytes in torch's buffer.
 */
#include "nvpl_sgemm.h"
#include "vmath.h"

#define MAXL 16

/* SVE's exp_u20 fast path, one lane: vmath.h's aten_sve_expf_u20 (the unary ops' model of it). */
#define SVE_EXP_U20(x) aten_sve_expf_u20(x)

/* ----------------------------------------------------------------------------- MKL sgemm
 *
 * cpublas::gemm's BLAS call, column-major: C[i + j*ldc] = alpha * sum_l opA(i,l) * opB(l,j) + beta*C
 * (opA m x k, opB k x n), run by MKL's sgemm model (csrc/mkl_sgemm.h) as the row-major product
 * C^T (n x m) = opB^T @ opA^T. a_off, b_off, c_off: where A, B and C start in torch's buffers
 * (floats past a 16-byte boundary): MKL's small kernels peel by them.
 * threads: the threads MKL may use (1 when called inside the kernel's OpenMP region).
 * On Linux aarch64 (profile blas = BLAS_NVPL) the same call is NVPL's sgemm (csrc/nvpl_sgemm.h).
 * First, as cpublas::gemm does (CPUBlas.cpp normalize_last_dims), the leading dimensions of a
 * dimension of size 1 are set: n == 1: ldc = m; A 'N' with k == 1: lda = m, A 'T' with m == 1:
 * lda = k; B 'N' with n == 1: ldb = k, B 'T' with k == 1: ldb = n. No value depends on them, but MKL
 * picks its gemv kernel by them (a strided vector or output: csrc/mkl_sgemm.h mkl_gemv_rows). */
typedef struct {
    const float *p;
    int64_t ld, off;
} blas_operand_t;

static void blas_sgemm(const profile_t *p, char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha,
                       blas_operand_t A, blas_operand_t B, float beta, float *C, int64_t ldc, int64_t c_off,
                       int threads) {
    if (n == 1) ldc = m;
    if (ta == 'T' ? m == 1 : k == 1) A.ld = ta == 'T' ? k : m;
    if (tb == 'T' ? k == 1 : n == 1) B.ld = tb == 'T' ? n : k;
    const int a_t = tb == 'T', b_t = ta == 'T'; /* row-major left = opB^T, right = opA^T */
    const sgemm_t g = {
        .M = n, .N = m, .K = k, .alpha = alpha, .beta = beta,
        .A = B.p, .sa0 = a_t ? 1 : B.ld, .sa1 = a_t ? B.ld : 1,
        .B = A.p, .sb0 = b_t ? 1 : A.ld, .sb1 = b_t ? A.ld : 1,
        .C = C, .ldc = ldc, .ta = a_t, .tb = b_t, .threads = threads < 0 ? -threads : threads, .batched = 0,
        .a_off = B.off % 4, .b_off = A.off % 4, .c_off = c_off % 4, .cbwr = p->blas == BLAS_MKL_CBWR,
        .avx2 = p->blas == BLAS_MKL_AVX2, .avx2_kernel = threads < 0 ? AVX2_NARROW : 0,
        .sse42 = p->blas == BLAS_MKL_SSE42, .avx512 = p->blas == BLAS_MKL_AVX512, .cpublas = 1,
        .region_threads = threads == 1 && p->blas == BLAS_MKL_AVX512 && p->threads > 1 ? (int)p->threads : 0,
    };
    if (p->blas == BLAS_NVPL)
        nvpl_sgemm_torch(&g);
    else
        mkl_sgemm(&g);
}

/* ----------------------------------------------------------------------------- Vectorized lanes */

/* lanes added as the shuffle tree: lane i with i + L/2, then i + L/4, ... */
static float lanes_pairwise(float *acc, int L) {
    for (int h = L / 2; h >= 1; h /= 2)
        for (int q = 0; q < h; q++) acc[q] = acc[q] + acc[q + h];
    return acc[0];
}

/* vec_reduce_all(+) of an L-lane accumulator: AVX2/AVX-512 shuffle tree (lane i with i ^ L/2, ...,
 * i ^ 1), the default build folding lanes 1..L-1 into lane 0 in order. */
static float lane_tree(const profile_t *p, const float *acc, int L) {
    float v[MAXL];
    memcpy(v, acc, sizeof(float) * (size_t)L);
    if (!p->aten) {
        float s = v[0];
        for (int q = 1; q < L; q++) s = s + v[q];
        return s;
    }
    return lanes_pairwise(v, L);
}

/* NEON's Vectorized<float>::exp_u20 (vec128_float_neon.h, vexpq_f32_u20: Arm Optimized Routines'
 * advsimd expf), one lane, for vectors with no lane beyond |x| > 0x1.5d5e2ap+6 (exp_sum_row sends
 * those vectors to SLEEF's exp, as the kernel does). In its order:
 *   n = vrndaq(x * inv_ln2) (round half away from zero); r = fms(x, n, ln2_hi); r = fms(r, n, ln2_lo);
 *   scale = bits((int)n << 23 + 0x3f800000); r2 = r * r;
 *   p = fma(c1, r, c0); q = fma(c3, r, c2); q = fma(q, p, r2); p = c4 * r; poly = fma(p, q, r2);
 *   result = fma(scale, poly, scale). */
static float neon_expf_u20(float x) {
    const float n = roundf(x * 0x1.715476p+0f);
    float r = fmaf(-n, 0x1.62e4p-1f, x);
    r = fmaf(-n, 0x1.7f7d1cp-20f, r);
    const float scale = vm_u2f(((uint32_t)(int32_t)n << 23) + 0x3f800000u);
    const float r2 = r * r;
    const float p = fmaf(r, 0x1.0e4020p-7f, 0x1.573e2ep-5f);
    float q = fmaf(r, 0x1.555e66p-3f, 0x1.fffdb6p-2f);
    q = fmaf(p, r2, q);
    const float poly = fmaf(q, r2, 0x1.ffffecp-1f * r);
    return fmaf(poly, scale, scale);
}

/* Vectorized<float>::exp_u20 (vec256_float.h / vec512_float.h): a degree-5 polynomial after the
 * reduction x = n*ln2 + r, all FMAs; the default capability maps std::exp (glibc expf). aarch64:
 * NEON's is neon_expf_u20 above, SVE's exp_sum_row's vector form below. */
static float exp_u20(const profile_t *p, float x) {
    if (!p->aten) return glibc_expf(x);
    const float ln_min = vm_u2f(0xc2aeac50u), ln_max = vm_u2f(0x42b17218u);
    const float log2e = vm_u2f(0x3fb8aa3bu), ln2 = vm_u2f(0x3f317218u);
    const int below = x < ln_min;
    float s = x < ln_max ? x : ln_max; /* _mm256_min_ps(x, max) */
    s = s > ln_min ? s : ln_min;       /* _mm256_max_ps(s, min) */
    const float fx = floorf(fmaf(s, log2e, 0.5f));
    const float r = fmaf(-fx, ln2, s);
    float y = fmaf(r, 0.00828929059f, 0.0418978221f);
    y = fmaf(r, y, 0.166676521f);
    y = fmaf(r, y, 0.499991506f);
    y = fmaf(r, y, 0.999999701f);
    y = fmaf(r, y, 1.0f);
    const int32_t e = (int32_t)rintf(fx - 1.0f);
    const float pow2 = below ? 0.0f : vm_u2f((uint32_t)(e + 127) << 23);
    return (y * pow2) * 2.0f;
}

/* vec::map2_reduce_all(x*y, +) over n: first vector initialises the lanes, further full vectors
 * add x*y (product rounded, then added: GCC did not contract these in FlashAttentionKernel.cpp's
 * AVX2 object, nor in the aarch64 SVE256 one (V1), measured; the SVE128 one (V2) fuses them,
 * acc = fma(x, y, acc), measured, and so does the NEON one (N1): GCC's vmulq_f32/vaddq_f32 are plain
 * vector arithmetic that it contracts into fmla, measured (N1's sdpa backward is bit-exact only
 * so)); the partial last vector (zero-padded loads, Vec::set of its n - d lanes) adds into its
 * lanes as the full vectors do: fused where they are (N1 measured: its flash grad_q and grad_k for
 * head sizes 14, 34, 46, 91 and 129 are bit-exact only so), unfused on AVX2 and V1; n < L: lane 0
 * folds the products in order (vec_reduce_all's store and reload: never contracted). */
static float dot_reduce(const profile_t *p, const float *x, const float *y, int64_t n) {
    const int L = p->lanes_wide;
    if (n < L) {
        float s = x[0] * y[0];
        for (int64_t d = 1; d < n; d++) s = s + x[d] * y[d];
        return s;
    }
    float acc[MAXL];
    for (int q = 0; q < L; q++) acc[q] = x[q] * y[q];
    int64_t d = L;
    const int fused = (p->aten == ATEN_SVE && L == 4) || p->aten == ATEN_NEON; /* SVE128, NEON contracted (above) */
    for (; d + L <= n; d += L)
        for (int q = 0; q < L; q++) acc[q] = fused ? fmaf(x[d + q], y[d + q], acc[q]) : acc[q] + x[d + q] * y[d + q];
    for (int q = 0; d + q < n; q++) acc[q] = fused ? fmaf(x[d + q], y[d + q], acc[q]) : acc[q] + x[d + q] * y[d + q];
    return lane_tree(p, acc, L);
}

/* ----------------------------------------------------------------------------- flash attention */

/* One (B, heads, rows, D) operand as torch holds it: element (b, h, r, d) at
 * data[b*sb + h*sh + r*sr + d]; off: data[0]'s floats past a 16-byte boundary in torch's buffer. */
typedef struct {
    float *data;
    int64_t sb, sh, sr, off;
} sdpa_view_t;

/* The float attention mask, (B, H, L, S) with stride 0 along broadcast dimensions; data NULL: none. */
typedef struct {
    const float *data;
    int64_t sb, sh, sm, sn;
} sdpa_mask_t;

/* The forward's inputs: sizes (legend above), the scale (float(scale), or float(1/sqrt(D)) when
 * none is given), is_causal, q (B,H,L,D), k and v (B,Hk,S,D), the mask. */
typedef struct {
    int64_t B, H, Hk, L, S, D;
    float scale;
    int32_t causal;
    sdpa_view_t q, k, v;
    sdpa_mask_t mask;
} sdpa_t;

/* What the backward reads and writes beyond the forward's inputs: out and grad_out (B,H,L,D),
 * lse (B,H,L) contiguous, grad_q (B,H,L,D), grad_k and grad_v (B,Hk,S,D), zeroed by the caller. */
typedef struct {
    sdpa_view_t out, gout, gq, gk, gv;
    const float *lse;
} sdpa_grad_t;

static inline float *view_at(const sdpa_view_t *t, int64_t b, int64_t h, int64_t r) {
    return t->data + b * t->sb + h * t->sh + r * t->sr;
}

/* The BLAS operand of rows r.. of (b, h): its row stride and its offset in torch's buffer. */
static inline blas_operand_t view_operand(const sdpa_view_t *t, int64_t b, int64_t h, int64_t r) {
    return (blas_operand_t){view_at(t, b, h, r), t->sr, (t->off + b * t->sb + h * t->sh + r * t->sr) % 4};
}

static int64_t q_split_size(int64_t L) { return L >= 768 ? 256 : (L >= 192 ? 64 : 32); }
#define KV_SPLIT 512

/* The blocks of a flash call: qSplitSize and kvSplitSize capped by L and S. */
static void flash_splits(const sdpa_t *a, int64_t *qs, int64_t *kvs) {
    *qs = q_split_size(a->L) < a->L ? q_split_size(a->L) : a->L;
    *kvs = KV_SPLIT < a->S ? KV_SPLIT : a->S;
}

/* at::parallel_for(0, items, 1, ...) as the flash kernels run it: the OpenMP thread that runs item x
 * (items are cut into chunks of divup(items, threads)), and the threads MKL may use in a call made
 * by an item (1 inside the OpenMP region; all when parallel_for ran its one item inline). MKL's Intel
 * AVX2 path, from 2 threads, cuts a call made inside the region as one made outside (csrc/mkl_sgemm.h
 * mkl_avx2_run, the profile's thread count) but runs its narrow kernel in every part, except in a
 * product with A transposed (grad_k's and grad_v's), which keeps the kernel of the call outside; a
 * call it leaves whole takes the one-thread choice: returned as -threads, which blas_sgemm turns into
 * that (the committed mklavx2 t2 and t4 sdpa fixtures; the random sdpa and flash attention cases at 2
 * and 4 threads under Haswell-v4). MKL's AVX-512 path decides a call made inside the region as one on
 * the profile's threads too (where alpha goes, dot kernel or chain: csrc/mkl_sgemm.h
 * mkl_avx512_shared), run on the caller's thread: blas_sgemm passes region_threads (the Xeon's random
 * flash attention cases at 2 threads). */
static int64_t item_thread(int64_t items, int64_t threads, int64_t x) {
    const int64_t nt = parallel_threads(0, items, 1, threads);
    return x / divup(items, nt);
}

static int mkl_threads_in(const profile_t *p, int64_t items) {
    if (items == 1) return (int)p->threads;
    return p->blas == BLAS_MKL_AVX2 && p->threads >= 2 ? -(int)p->threads : 1;
}

/* _mul_reduce_max_fusion_kernel over a qk row: x *= scale, returns the max (order-free). */
static float scale_max_row(float *x, int64_t kv, float scale) {
    float mx = -INFINITY;
    for (int64_t c = 0; c < kv; c++) {
        x[c] = x[c] * scale;
        mx = x[c] > mx ? x[c] : mx;
    }
    return mx;
}

/* _exp_reduce_sum_fusion_kernel: x = exp_u20(x - max) over the full vectors (vector by vector:
 * SVE's exp_u20 decides per vector), summed in L lanes,
 * lane tree, then the scalar tail added in order. The tail's unqualified exp(float) there is C's
 * double exp (measured): x = (float)exp((double)(x - max)), glibc's in torch, dmath.h's dm_exp
 * here (correctly rounded; equal to glibc's as float32 on every float of [-104, 0], see
 * tests/test_dmath.py). Returns the sum. */
static float exp_sum_row(const profile_t *p, float *x, int64_t kv, float mx) {
    const int L = p->lanes_wide;
    const int64_t nv = kv - kv % L;
    float dx[KV_SPLIT]; /* x - max of the full vectors (kv <= KV_SPLIT) */
    for (int64_t c = 0; c < nv; c++) dx[c] = x[c] - mx;
    /* the fast form on every full vector first (one loop each, no per-lane branch), then the
     * vectors SVE's and NEON's exp_u20 send to SLEEF redone from dx */
    if (p->aten == ATEN_SVE)
        for (int64_t c = 0; c < nv; c++) x[c] = SVE_EXP_U20(dx[c]);
    else if (p->aten == ATEN_NEON)
        for (int64_t c = 0; c < nv; c++) x[c] = neon_expf_u20(dx[c]);
    else
        for (int64_t c = 0; c < nv; c++) x[c] = exp_u20(p, dx[c]);
    if (p->aten == ATEN_SVE || p->aten == ATEN_NEON)
        for (int64_t c0 = 0; c0 < nv; c0 += L) {
            /* SVE's and NEON's exp_u20 (sve/vec_float.h, vec128_float_neon.h): a fast form unless
             * a lane's |x| exceeds 0x1.5d5e2ap+6 (masked -inf lanes do), which sends the whole
             * vector to SLEEF's exp. SVE: ATen's FEXPA form; NEON: compared with vcagtq, where a
             * NaN lane compares false and stays on the fast form. */
            const float *dv = dx + c0;
            int slow = 0;
            if (p->aten == ATEN_SVE)
                for (int q = 0; q < L; q++) slow |= !(fabsf(dv[q]) <= 0x1.5d5e2ap+6f);
            else
                for (int q = 0; q < L; q++) slow |= fabsf(dv[q]) > 0x1.5d5e2ap+6f;
            if (slow)
                for (int q = 0; q < L; q++) x[c0 + q] = vec_expf(p, dv[q]);
        }
    float acc[MAXL] = {0};
    for (int64_t c0 = 0; c0 < nv; c0 += L)
        for (int q = 0; q < L; q++) acc[q] = acc[q] + x[c0 + q];
    float s = lane_tree(p, acc, L);
    for (int64_t c = nv; c < kv; c++) {
        x[c] = (float)dm_exp((double)(x[c] - mx));
        s = s + x[c];
    }
    return s;
}

/* _scale_attn_mask_fusion_kernel over a qk row: x = x * scale + mask[c] (mask[c * sn]; sn 0 for a
 * mask broadcast along S), its full vectors (lanes_wide) and scalar tail as the profile computes
 * them; the backward passes scale 1, where fused or not is the same sum. The vectors'
 * `a * vec_scale + b` is not contracted in the SVE256 object (V1: product rounded, then added, as
 * its dsum; measured: every masked flash case of the seed-3 random cases differs in out otherwise),
 * fused in the SVE128 (V2) and NEON (N1) ones (measured alike). */
static void scale_mask_row(const profile_t *p, float *x, const float *mask, int64_t sn, int64_t kv, float scale) {
    const int64_t nv = kv - kv % p->lanes_wide;
    const int unfused = p->aten == ATEN_SVE && p->lanes_wide == 8; /* V1 */
    for (int64_t c = 0; c < nv; c++) x[c] = unfused ? x[c] * scale + mask[c * sn] : vfmadd(p, x[c], scale, mask[c * sn]);
    for (int64_t c = nv; c < kv; c++) x[c] = sfmadd(p, x[c], scale, mask[c * sn]);
}

/* at::vec::reduce_all(maximum) over a row (order-free). */
static float max_row(const float *x, int64_t kv) {
    float mx = -INFINITY;
    for (int64_t c = 0; c < kv; c++) mx = x[c] > mx ? x[c] : mx;
    return mx;
}

/* The mask's row of query r of (b, h), from key n on. */
static inline const float *mask_row(const sdpa_mask_t *m, int64_t b, int64_t h, int64_t r, int64_t n) {
    return m->data + b * m->sb + h * m->sh + r * m->sm + n * m->sn;
}

/* Per thread, torch's buffer of the forward: qk (qs x kvs), qk_max, qk_sum (qs each), dst (qs x D);
 * the offsets (floats, mod 4) of thread tid's qk and dst in it. */
typedef struct {
    float *qk, *qmax, *qsum, *dst;
    int64_t qk_off, dst_off;
} flash_buf_t;

/* One q block (rows m.. of (b, h), qb of them) of cpu_flash_attention<float, float, qSplit, 512>:
 *   num_keys = is_causal ? min(m + qb, S) : S; for each kv block n < num_keys
 *   (kvBlock = min(kvSplit, S - n), not limited by num_keys):
 *     qk = k_blk @ q_blk^T (sgemm T,N: m=kvBlock n=qb k=D);
 *     causal, last kv block only: qk[r][c] = -inf for c > m+r-n;
 *     with a mask: qk = qk * scale + mask (scale_mask_row), row max; else qk *= scale, row max;
 *     new max = max(old, row max); a row whose max is -inf is zeroed, else
 *     qk = exp_u20(qk - max) with its sum (exp_sum_row); exp_tmp = std::exp(old max - new max);
 *     sum = tmp_sum + exp_tmp * old sum (contracted per profile); dst *= exp_tmp when n > 0;
 *     dst (+)= qk @ v_blk (sgemm N,N: m=D n=qb k=kvBlock, beta = n > 0);
 *   then max -inf -> 0, sum 0 -> 1; out = dst * (1/sum); lse = max + std::log(sum). */
static void flash_forward_block(const profile_t *p, const sdpa_t *a, int64_t b, int64_t h, int64_t m, int64_t qb,
                                int64_t kvs, const flash_buf_t *w, int thr, const sdpa_view_t *out, float *lse) {
    const int64_t S = a->S, D = a->D, hk = h / (a->H / a->Hk);
    const int64_t num_keys = a->causal ? (m + qb < S ? m + qb : S) : S;
    float *qk = w->qk, *qmax = w->qmax, *qsum = w->qsum, *dst = w->dst;
    for (int64_t r = 0; r < qb; r++) qmax[r] = -INFINITY, qsum[r] = 0.0f;
    for (int64_t n = 0; n < num_keys; n += kvs) {
        const int64_t kb = kvs < S - n ? kvs : S - n;
        blas_sgemm(p, 'T', 'N', kb, qb, D, 1.0f, view_operand(&a->k, b, hk, n), view_operand(&a->q, b, h, m), 0.0f,
                   qk, kb, w->qk_off, thr);
        if (a->causal && num_keys - n <= kvs)
            for (int64_t r = 0; r < qb; r++)
                for (int64_t c = m + r - n + 1 > 0 ? m + r - n + 1 : 0; c < kb; c++) qk[r * kb + c] = -INFINITY;
        for (int64_t r = 0; r < qb; r++) {
            float *row = qk + r * kb;
            float mx;
            if (a->mask.data) {
                scale_mask_row(p, row, mask_row(&a->mask, b, h, m + r, n), a->mask.sn, kb, a->scale);
                mx = max_row(row, kb);
            } else {
                mx = scale_max_row(row, kb, a->scale);
            }
            mx = qmax[r] > mx ? qmax[r] : mx;
            if (mx == -INFINITY) {
                for (int64_t c = 0; c < kb; c++) row[c] = 0.0f;
                continue;
            }
            const float tsum = exp_sum_row(p, row, kb, mx);
            const float et = glibc_expf(qmax[r] - mx);
            qsum[r] = sfmadd(p, et, qsum[r], tsum);
            qmax[r] = mx;
            if (n > 0)
                for (int64_t d = 0; d < D; d++) dst[r * D + d] = dst[r * D + d] * et;
        }
        const blas_operand_t qk_op = {qk, kb, w->qk_off};
        blas_sgemm(p, 'N', 'N', D, qb, kb, 1.0f, view_operand(&a->v, b, hk, n), qk_op, n > 0 ? 1.0f : 0.0f, dst, D,
                   w->dst_off, thr);
    }
    for (int64_t r = 0; r < qb; r++) {
        if (qmax[r] == -INFINITY) qmax[r] = 0.0f;
        if (qsum[r] == 0.0f) qsum[r] = 1.0f;
        const float rec = 1.0f / qsum[r];
        float *o = view_at(out, b, h, m + r);
        for (int64_t d = 0; d < D; d++) o[d] = dst[r * D + d] * rec;
        lse[(b * a->H + h) * a->L + m + r] = qmax[r] + glibc_logf(qsum[r]);
    }
}

/* cpu_flash_attention<float, float, qSplit, 512> (no packing for float): the at::parallel_for over
 * B*H*qSlices items (b, h, q block), each flash_forward_block with its OpenMP thread's buffer.
 * q (B,H,L,D), k/v (B,Hk,S,D) -> out (B,H,L,D), lse (B,H,L). Items are independent, so the thread
 * count reaches the bits only through the buffers' offsets and MKL's threads. */
void sdpa_flash_forward(profile_t p, const sdpa_t *a, const sdpa_view_t *out, float *lse) {
    int64_t qs, kvs;
    flash_splits(a, &qs, &kvs);
    const int64_t slices = divup(a->L, qs), items = a->B * a->H * slices;
    const int64_t per_thread = qs * kvs + 2 * qs + qs * a->D;
    const int thr = mkl_threads_in(&p, items);
    float *buf = malloc(sizeof(float) * (size_t)per_thread);
    flash_buf_t w = {buf, buf + qs * kvs, buf + qs * kvs + qs, buf + qs * kvs + 2 * qs, 0, 0};
    for (int64_t x = 0; x < items; x++) {
        const int64_t base = item_thread(items, p.threads, x) * per_thread;
        w.qk_off = base % 4;
        w.dst_off = (base + qs * kvs + 2 * qs) % 4;
        const int64_t b = x / (a->H * slices), h = x / slices % a->H, m = x % slices * qs;
        flash_forward_block(&p, a, b, h, m, qs < a->L - m ? qs : a->L - m, kvs, &w, thr, out, lse);
    }
    free(buf);
}

/* Per thread, torch's buffer of the backward: attn and grad_attn (qs x kvs each); thread tid's
 * offsets (floats, mod 4); dsum (qs, an allocation of its own). */
typedef struct {
    float *attn, *gattn, *dsum;
    int64_t attn_off, gattn_off;
} flash_grad_buf_t;

/* The backward of one (b, h) (query head h, key/value head h / (H/Hk)), cpu_flash_attention_backward:
 * for each q block m: dsum[r] = map2_reduce_all(grad_out*out) over D (dot_reduce);
 * num_keys as the forward's; for each kv block n < num_keys:
 *   attn = scale * k_blk @ q_blk^T (sgemm T,N alpha=scale); with a mask attn = attn * 1 + mask;
 *   attn = Vectorized exp(attn - lse[r]); causal, last kv block: attn[r][c] = 0 for c > m+r-n;
 *   grad_v_blk += attn^T @ grad_out_blk (sgemm N,T: m=D n=kvBlock k=qb, beta 1);
 *   grad_attn = v_blk @ grad_out_blk^T (sgemm T,N: m=kvBlock n=qb k=D);
 *   grad_attn = attn * (grad_attn - dsum[r]);
 *   grad_q_blk += scale * grad_attn @ k_blk (sgemm N,N: m=D n=qb k=kvBlock, beta 1);
 *   grad_k_blk += scale * grad_attn^T @ q_blk (sgemm N,T: m=D n=kvBlock k=qb, beta 1). */
static void flash_backward_head(const profile_t *p, const sdpa_t *a, const sdpa_grad_t *g, int64_t b, int64_t h,
                                int64_t qs, int64_t kvs, const flash_grad_buf_t *w, int thr) {
    const int64_t L = a->L, S = a->S, D = a->D, hk = h / (a->H / a->Hk);
    const float *lh = g->lse + (b * a->H + h) * L;
    float *attn = w->attn, *gattn = w->gattn, *dsum = w->dsum;
    for (int64_t m = 0; m < L; m += qs) {
        const int64_t qb = qs < L - m ? qs : L - m;
        for (int64_t r = 0; r < qb; r++) dsum[r] = dot_reduce(p, view_at(&g->gout, b, h, m + r), view_at(&g->out, b, h, m + r), D);
        const int64_t num_keys = a->causal ? (m + qb < S ? m + qb : S) : S;
        for (int64_t n = 0; n < num_keys; n += kvs) {
            const int64_t kb = kvs < S - n ? kvs : S - n;
            const blas_operand_t attn_op = {attn, kb, w->attn_off}, gattn_op = {gattn, kb, w->gattn_off};
            blas_sgemm(p, 'T', 'N', kb, qb, D, a->scale, view_operand(&a->k, b, hk, n), view_operand(&a->q, b, h, m),
                       0.0f, attn, kb, w->attn_off, thr);
            if (a->mask.data)
                for (int64_t r = 0; r < qb; r++)
                    scale_mask_row(p, attn + r * kb, mask_row(&a->mask, b, h, m + r, n), a->mask.sn, kb, 1.0f);
            for (int64_t r = 0; r < qb; r++)
                for (int64_t c = 0; c < kb; c++) attn[r * kb + c] = vec_expf(p, attn[r * kb + c] - lh[m + r]);
            if (a->causal && num_keys - n <= kvs)
                for (int64_t r = 0; r < qb; r++)
                    for (int64_t c = m + r - n + 1 > 0 ? m + r - n + 1 : 0; c < kb; c++) attn[r * kb + c] = 0.0f;
            const blas_operand_t gv = view_operand(&g->gv, b, hk, n), gk = view_operand(&g->gk, b, hk, n);
            const blas_operand_t gq = view_operand(&g->gq, b, h, m);
            blas_sgemm(p, 'N', 'T', D, kb, qb, 1.0f, view_operand(&g->gout, b, h, m), attn_op, 1.0f, (float *)gv.p,
                       gv.ld, gv.off, thr);
            blas_sgemm(p, 'T', 'N', kb, qb, D, 1.0f, view_operand(&a->v, b, hk, n), view_operand(&g->gout, b, h, m),
                       0.0f, gattn, kb, w->gattn_off, thr);
            for (int64_t r = 0; r < qb; r++)
                for (int64_t c = 0; c < kb; c++)
                    gattn[r * kb + c] = attn[r * kb + c] * (gattn[r * kb + c] - dsum[r]);
            blas_sgemm(p, 'N', 'N', D, qb, kb, a->scale, view_operand(&a->k, b, hk, n), gattn_op, 1.0f, (float *)gq.p,
                       gq.ld, gq.off, thr);
            blas_sgemm(p, 'N', 'T', D, kb, qb, a->scale, view_operand(&a->q, b, h, m), gattn_op, 1.0f, (float *)gk.p,
                       gk.ld, gk.off, thr);
        }
    }
}

/* cpu_flash_attention_backward<float, float, qSplit, 512>: the at::parallel_for over B*Hk items
 * (b, key/value head), each running flash_backward_head for its query heads in order (so grad_k and
 * grad_v of a key/value head accumulate them in that order) with its OpenMP thread's buffer. */
void sdpa_flash_backward(profile_t p, const sdpa_t *a, const sdpa_grad_t *g) {
    int64_t qs, kvs;
    flash_splits(a, &qs, &kvs);
    const int64_t items = a->B * a->Hk, group = a->H / a->Hk, per_thread = 2 * qs * kvs;
    const int thr = mkl_threads_in(&p, items);
    float *buf = malloc(sizeof(float) * (size_t)(per_thread + qs));
    flash_grad_buf_t w = {buf, buf + qs * kvs, buf + per_thread, 0, 0};
    for (int64_t x = 0; x < items; x++) {
        const int64_t base = item_thread(items, p.threads, x) * per_thread;
        w.attn_off = base % 4;
        w.gattn_off = (base + qs * kvs) % 4;
        for (int64_t j = 0; j < group; j++)
            flash_backward_head(&p, a, g, x / a->Hk, x % a->Hk * group + j, qs, kvs, &w, thr);
    }
    free(buf);
}
