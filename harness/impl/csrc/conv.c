/* 2-D convolution (harness/impl/conv.py): one multiply-add chain per output element, in the order
 * the kernel torch runs takes its terms.
 *
 * Shapes (NCHW, contiguous): x (N, IC, IH, IW), w (OC, IC, KH, KW), y (N, OC, OH, OW); stride
 * (SH, SW), padding (PH, PW), one group, no dilation (conv_fwd_terms_dilated: taps DH, DW apart). A
 * tap that falls in the padding is skipped (the JIT kernels never load it; adding fma(0, w, acc)
 * would give the same bits anyway, except for infinities and NaNs in w).
 *
 * fused: 1 every term is fmaf(a, b, acc) (AVX2/AVX-512 vfmadd231ps), 0 acc + a*b with two
 * roundings (SSE4.1 mulps, addps). */
#include "common.h"


/* Forward, oneDNN's direct kernels (jit:{sse41,avx2,avx512_core}, jit_1x1): per output element a
 * chain from the bias (bias_first, NULL: 0) over input-channel blocks of icb channels, within a
 * block over (kh, kw) row by row, within a tap over the block's channels in order; without
 * bias_first the bias is added once at the end. */
void conv_fwd_direct(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw, int64_t oh,
                     int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *x, const float *w,
                     const float *bias, float *y, int64_t icb, int32_t fused, int32_t bias_first) {
    if (icb < 1) icb = ic;
    for (int64_t b = 0; b < n; b++)
        for (int64_t o = 0; o < oc; o++)
            for (int64_t r = 0; r < oh; r++)
                for (int64_t c = 0; c < ow; c++) {
                    float acc = (bias && bias_first) ? bias[o] : 0.0f;
                    for (int64_t c0 = 0; c0 < ic; c0 += icb) {
                        int64_t c1 = c0 + icb < ic ? c0 + icb : ic;
                        for (int64_t i = 0; i < kh; i++) {
                            int64_t yy = r * sh - ph + i;
                            if (yy < 0 || yy >= ih) continue;
                            for (int64_t j = 0; j < kw; j++) {
                                int64_t xx = c * sw - pw + j;
                                if (xx < 0 || xx >= iw) continue;
                                for (int64_t k = c0; k < c1; k++)
                                    acc = madd(fused, x[((b * ic + k) * ih + yy) * iw + xx],
                                               w[((o * ic + k) * kh + i) * kw + j], acc);
                            }
                        }
                    }
                    if (bias && !bias_first) acc += bias[o];
                    y[((b * oc + o) * oh + r) * ow + c] = acc;
                }
}

/* Backward data, oneDNN's direct and brgemm kernels: per input element a chain from 0 over
 * output-channel blocks of ocb channels, within a block over the taps that reach it, within a tap
 * over the block's channels in order. taps: bit 0 kh from the last, bit 1 kw from the last, bit 2
 * the kw loop outside the kh loop. parts: 1 each block's chain from 0, added to the blocks before. */
void conv_bwd_data_direct(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                          int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *dy,
                          const float *w, float *dx, int64_t ocb, int32_t fused, int32_t taps, int32_t parts) {
    if (ocb < 1) ocb = oc;
    int64_t outer = (taps & 4) ? kw : kh, inner = (taps & 4) ? kh : kw;
    for (int64_t b = 0; b < n; b++)
        for (int64_t k = 0; k < ic; k++)
            for (int64_t yy = 0; yy < ih; yy++)
                for (int64_t xx = 0; xx < iw; xx++) {
                    float acc = 0.0f, total = 0.0f;
                    for (int64_t o0 = 0; o0 < oc; o0 += ocb) {
                        int64_t o1 = o0 + ocb < oc ? o0 + ocb : oc;
                        if (parts) acc = 0.0f;
                        for (int64_t u = 0; u < outer; u++)
                            for (int64_t v = 0; v < inner; v++) {
                                int64_t i = (taps & 4) ? v : u, j = (taps & 4) ? u : v;
                                if (taps & 1) i = kh - 1 - i;
                                if (taps & 2) j = kw - 1 - j;
                                int64_t rr = yy + ph - i, cc = xx + pw - j;
                                if (rr < 0 || rr % sh || rr / sh >= oh || cc < 0 || cc % sw || cc / sw >= ow) continue;
                                for (int64_t o = o0; o < o1; o++)
                                    acc = madd(fused, dy[((b * oc + o) * oh + rr / sh) * ow + cc / sw],
                                               w[((o * ic + k) * kh + i) * kw + j], acc);
                            }
                        if (parts) total = o0 ? total + acc : acc;
                    }
                    dx[((b * ic + k) * ih + yy) * iw + xx] = parts ? total : acc;
                }
}

/* Backward weights: per weight element, the (image, output pixel) pairs, numbered
 * b * OH * OW + r * OW + c, cut into parts (part[p] the first pair of part p, parts + 1 entries, the
 * last N * OH * OW), one per thread of oneDNN's reducer, and into runs (run[q] the first pair of run
 * q, sorted, every part's first pair among them): each run one chain from 0 over its pairs in order,
 * added to its part's sum (the first run's chain is the sum); the parts' sums then added in order
 * from the first. fused: fmaf, else a rounded product added. order (NULL: r * OW + c in order): the
 * image's output pixels in the order the kernel takes them, order[i] the i-th pixel's r * OW + c. */
void conv_bwd_weights_runs_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                   int64_t dh, int64_t dil_w, const float *dy, const float *x, float *dw,
                                   const int64_t *part, int64_t parts, const int64_t *run, int64_t runs, int32_t fused,
                                   const int64_t *order);

void conv_bwd_weights_runs(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                           int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *dy,
                           const float *x, float *dw, const int64_t *part, int64_t parts, const int64_t *run,
                           int64_t runs, int32_t fused, const int64_t *order) {
    conv_bwd_weights_runs_dilated(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, 1, 1, dy, x, dw, part, parts, run,
                                  runs, fused, order);
}

/* conv_bwd_weights_runs with the taps dh rows and dil_w columns apart (dilation): tap (i, j) of output
 * (r, c) reads input (r * sh - ph + i * dh, c * sw - pw + j * dil_w). */
void conv_bwd_weights_runs_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                   int64_t dh, int64_t dil_w, const float *dy, const float *x, float *dw,
                                   const int64_t *part, int64_t parts, const int64_t *run, int64_t runs, int32_t fused,
                                   const int64_t *order) {
    (void)n;
    int64_t ohw = oh * ow;
    for (int64_t o = 0; o < oc; o++)
        for (int64_t k = 0; k < ic; k++)
            for (int64_t i = 0; i < kh; i++)
                for (int64_t j = 0; j < kw; j++) {
                    float total = 0.0f;
                    int64_t next = 0; /* the next run start to reach */
                    for (int64_t p = 0; p < parts; p++) {
                        float acc = 0.0f, sum = 0.0f;
                        int started = 0;
                        for (int64_t q = part[p]; q < part[p + 1]; q++) {
                            while (next < runs && run[next] < q) next++;
                            if (next < runs && run[next] == q && q > part[p]) { /* a run ends, the next begins */
                                sum = started ? sum + acc : acc;
                                started = 1;
                                acc = 0.0f;
                            }
                            int64_t b = q / ohw, pix = order ? order[q % ohw] : q % ohw, r = pix / ow, c = pix % ow;
                            int64_t yy = r * sh - ph + i * dh, xx = c * sw - pw + j * dil_w;
                            if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) continue;
                            acc = madd(fused, dy[((b * oc + o) * oh + r) * ow + c], x[((b * ic + k) * ih + yy) * iw + xx],
                                       acc);
                        }
                        sum = started ? sum + acc : acc;
                        total = p ? total + sum : sum;
                    }
                    dw[((o * ic + k) * kh + i) * kw + j] = total;
                }
}

void conv_fwd_terms_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                            int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                            int64_t dw, const float *x, const float *w, const float *bias, float *y,
                            const int64_t *terms, int64_t nterms, int32_t fused, int32_t bias_first);

/* Forward with the terms' order given: per output element a chain over terms[t] = (input channel,
 * kh, kw) in order, the padding's taps skipped; a term (-1, 0, 0) ends a part: its chain added to
 * the total (the first part's chain is the total), the next part's chain from 0. bias_first: 1 the
 * first chain starts from the bias, 2 the bias is added to the first part's chain, 0 the bias is
 * added to the total at the end. */
void conv_fwd_terms(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw, int64_t oh,
                    int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *x, const float *w,
                    const float *bias, float *y, const int64_t *terms, int64_t nterms, int32_t fused,
                    int32_t bias_first) {
    conv_fwd_terms_dilated(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, 1, 1, x, w, bias, y, terms, nterms, fused,
                           bias_first);
}

/* conv_fwd_terms with the taps dh rows and dw columns apart (dilation; oneDNN's dilate_h + 1): tap (i, j)
 * of output (r, c) reads input (r * sh - ph + i * dh, c * sw - pw + j * dw), skipped outside the input
 * as the direct kernels' padding logic and im2col's zeros (never loaded) do. */
void conv_fwd_terms_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                            int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                            int64_t dw, const float *x, const float *w, const float *bias, float *y,
                            const int64_t *terms, int64_t nterms, int32_t fused, int32_t bias_first) {
    for (int64_t b = 0; b < n; b++)
        for (int64_t o = 0; o < oc; o++)
            for (int64_t r = 0; r < oh; r++)
                for (int64_t c = 0; c < ow; c++) {
                    float acc = (bias && bias_first == 1) ? bias[o] : 0.0f, total = 0.0f;
                    int started = 0;
                    for (int64_t t = 0; t < nterms; t++) {
                        int64_t k = terms[3 * t], i = terms[3 * t + 1], j = terms[3 * t + 2];
                        if (k < 0) { /* a part ends: its chain added to the total, the next from 0 */
                            if (bias && bias_first == 2 && !started) acc += bias[o];
                            total = started ? total + acc : acc;
                            started = 1;
                            acc = 0.0f;
                            continue;
                        }
                        int64_t yy = r * sh - ph + i * dh, xx = c * sw - pw + j * dw;
                        if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) continue;
                        acc = madd(fused, x[((b * ic + k) * ih + yy) * iw + xx], w[((o * ic + k) * kh + i) * kw + j], acc);
                    }
                    if (bias && bias_first == 2 && !started) acc += bias[o];
                    if (started) acc = total + acc;
                    if (bias && !bias_first) acc += bias[o];
                    y[((b * oc + o) * oh + r) * ow + c] = acc;
                }
}

/* x86's NaN rules as oneDNN's avx512_core brgemm kernels meet them, whatever the host: a NaN operand
 * passes on quieted (sign and payload kept), an invalid operation (inf * 0, inf - inf) gives the default
 * NaN 0xffc00000. x86_fma is vfmadd231ps acc += a * b (a NaN of the product's operands, a then b, before
 * the accumulator's), x86_add vaddps first, second (the first operand's NaN before the second's). */
static inline float x86_fma(float a, float b, float acc) {
    if (isnan(a)) return quieted(a);
    if (isnan(b)) return quieted(b);
    if (isnan(acc)) return quieted(acc);
    const float r = fmaf(a, b, acc);
    return isnan(r) ? qnan_bits(0xffc00000u) : r;
}

static inline float x86_add(float first, float second) {
    if (isnan(first)) return quieted(first);
    if (isnan(second)) return quieted(second);
    const float r = first + second;
    return isnan(r) ? qnan_bits(0xffc00000u) : r;
}

/* Backward data with the terms' order given: per input element a chain from 0 over terms[t] =
 * (output channel, kh, kw) in order, the taps that do not reach it skipped (the taps dh rows and dw
 * columns apart: tap (i, j) reaches input (yy, xx) from output ((yy + ph - i * dh) / sh,
 * (xx + pw - j * dw) / sw) where that divides); a term (-1, 0, 0) ends a part: its chain added to the
 * total (the first part's chain is the total), the next from 0. x86_nans: every step by x86's NaN rules
 * (fused; each part's chain the first operand of its addition to the total, as brg_conv_bwd's store
 * adds them), else madd(fused) and total + chain. */
static void bwd_data_terms(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                           int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                           int64_t dw, const float *dy, const float *w, float *dx, const int64_t *terms, int64_t nterms,
                           int32_t fused, int x86_nans) {
    for (int64_t b = 0; b < n; b++)
        for (int64_t k = 0; k < ic; k++)
            for (int64_t yy = 0; yy < ih; yy++)
                for (int64_t xx = 0; xx < iw; xx++) {
                    float acc = 0.0f, total = 0.0f;
                    int started = 0;
                    for (int64_t t = 0; t < nterms; t++) {
                        int64_t o = terms[3 * t], i = terms[3 * t + 1], j = terms[3 * t + 2];
                        if (o < 0) {
                            total = !started ? acc : x86_nans ? x86_add(acc, total) : total + acc;
                            started = 1;
                            acc = 0.0f;
                            continue;
                        }
                        int64_t rr = yy + ph - i * dh, cc = xx + pw - j * dw;
                        if (rr < 0 || rr % sh || rr / sh >= oh || cc < 0 || cc % sw || cc / sw >= ow) continue;
                        const float g = dy[((b * oc + o) * oh + rr / sh) * ow + cc / sw];
                        const float v = w[((o * ic + k) * kh + i) * kw + j];
                        acc = x86_nans ? x86_fma(g, v, acc) : madd(fused, g, v, acc);
                    }
                    const float sum = !started ? acc : x86_nans ? x86_add(acc, total) : total + acc;
                    dx[((b * ic + k) * ih + yy) * iw + xx] = sum;
                }
}

void conv_bwd_data_terms(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                         int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *dy,
                         const float *w, float *dx, const int64_t *terms, int64_t nterms, int32_t fused) {
    bwd_data_terms(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, 1, 1, dy, w, dx, terms, nterms, fused, 0);
}

/* conv_bwd_data_terms with the taps dh rows and dw columns apart (dilation). */
void conv_bwd_data_terms_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                                 int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                 int64_t dw, const float *dy, const float *w, float *dx, const int64_t *terms,
                                 int64_t nterms, int32_t fused) {
    bwd_data_terms(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, dy, w, dx, terms, nterms, fused, 0);
}

/* conv_bwd_data_terms fused with x86's NaN rules, whatever the host: brg_conv_bwd:avx512_core's grad_input
 * (harness/impl/conv_nhwc_backward.py), each brgemm call a part, its sum added to C after it. */
void conv_bwd_data_terms_x86(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                             int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *dy,
                             const float *w, float *dx, const int64_t *terms, int64_t nterms) {
    bwd_data_terms(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, 1, 1, dy, w, dx, terms, nterms, 1, 1);
}

/* oneDNN's SSE4.1 gemv_t (jit_sse41_gemv_t_f32_kern): y + x . a over m terms, unfused. The first
 * 8 * (m / 8) terms in 4 lanes (term t in lane t % 4, in order, each lane from +0), the lanes summed
 * by two haddps ((l0 + l1) + (l2 + l3)) and added to y; then a block of 4, of 2 and of 1 term where
 * m's remainder has that bit, each summed the same way from its own lanes (+0 plus the product; the
 * unused lanes +0) and added to y in that order. A part with no terms leaves y alone. */
static float sse41_gemv_t(const float *x, const float *a, int64_t m, float y) {
    int64_t main = m / 8 * 8, pos = 0;
    if (main) {
        float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (; pos < main; pos++) lane[pos % 4] += x[pos] * a[pos];
        y += (lane[0] + lane[1]) + (lane[2] + lane[3]);
    }
    for (int64_t ux = 4; ux > 0; ux >>= 1)
        if ((m - main) & ux) {
            float lane[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int64_t l = 0; l < ux; l++) lane[l] = 0.0f + x[pos + l] * a[pos + l];
            y += (lane[0] + lane[1]) + (lane[2] + lane[3]);
            pos += ux;
        }
    return y;
}

/* Backward weights, oneDNN's gemm:jit where its sgemm has a dimension of 1 (one output channel, or
 * IC * KH * KW = 1): per weight element, per part of the images (part[p] the first image of part
 * p, parts + 1 entries), per image and per block of os_block output pixels (oh, ow in order) one
 * sse41_gemv_t of the block's im2col column (0 in the padding) against grad_output, onto the sum
 * so far (the part's first block onto 0); the parts' sums added in order. col: os_block floats of
 * scratch for a block's column. */
void conv_bwd_weights_gemv_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                   int64_t dh, int64_t dil_w, const float *dy, const float *x, float *dw,
                                   const int64_t *part, int64_t parts, int64_t os_block, float *col);

void conv_bwd_weights_gemv(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                           int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *dy,
                           const float *x, float *dw, const int64_t *part, int64_t parts, int64_t os_block,
                           float *col) {
    conv_bwd_weights_gemv_dilated(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, 1, 1, dy, x, dw, part, parts,
                                  os_block, col);
}

/* conv_bwd_weights_gemv with the taps dh rows and dil_w columns apart (dilation; im2col's). */
void conv_bwd_weights_gemv_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                                   int64_t dh, int64_t dil_w, const float *dy, const float *x, float *dw,
                                   const int64_t *part, int64_t parts, int64_t os_block, float *col) {
    (void)n;
    int64_t ohw = oh * ow;
    for (int64_t o = 0; o < oc; o++)
        for (int64_t k = 0; k < ic; k++)
            for (int64_t i = 0; i < kh; i++)
                for (int64_t j = 0; j < kw; j++) {
                    float total = 0.0f;
                    for (int64_t p = 0; p < parts; p++) {
                        float y = 0.0f;
                        for (int64_t b = part[p]; b < part[p + 1]; b++)
                            for (int64_t s0 = 0; s0 < ohw; s0 += os_block) {
                                int64_t len = s0 + os_block < ohw ? os_block : ohw - s0;
                                for (int64_t q = 0; q < len; q++) {
                                    int64_t r = (s0 + q) / ow, c = (s0 + q) % ow;
                                    int64_t yy = r * sh - ph + i * dh, xx = c * sw - pw + j * dil_w;
                                    int inside = yy >= 0 && yy < ih && xx >= 0 && xx < iw;
                                    col[q] = inside ? x[((b * ic + k) * ih + yy) * iw + xx] : 0.0f;
                                }
                                y = sse41_gemv_t(col, dy + (b * oc + o) * ohw + s0, len, y);
                            }
                        total = p ? total + y : y;
                    }
                    dw[((o * ic + k) * kh + i) * kw + j] = total;
                }
}

/* Forward, oneDNN's gemm:jit where a piece of its sgemm has one pixel (m = 1: the gemm driver's
 * jump_to_gemv runs gemv 'T' over the weights, jit_sse41_gemv_t_f32_kern): piece[5 p .. 5 p + 4] =
 * (image, pixel, -, first oc, end oc). Per output channel y starts at 0; per block of icb input
 * channels in order, the pixel's im2col column of the block (channel, kh, kw; 0 in the padding)
 * against the weights' contiguous row of the block, one sse41_gemv_t onto y, in chunks of kblk terms
 * (the driver's copies of a strided x; 0: whole); the bias added last. col: icb * KH * KW floats. */
void conv_fwd_gemv_t_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                             int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                             int64_t dw, const float *x, const float *w, const float *bias, float *y,
                             const int64_t *piece, int64_t pieces, int64_t icb, int64_t kblk, float *col);

void conv_fwd_gemv_t(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw, int64_t oh,
                     int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *x, const float *w,
                     const float *bias, float *y, const int64_t *piece, int64_t pieces, int64_t icb, int64_t kblk,
                     float *col) {
    conv_fwd_gemv_t_dilated(n, ic, ih, iw, oc, kh, kw, oh, ow, sh, sw, ph, pw, 1, 1, x, w, bias, y, piece, pieces, icb,
                            kblk, col);
}

/* conv_fwd_gemv_t with the taps dh rows and dw columns apart (dilation; im2col's). */
void conv_fwd_gemv_t_dilated(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw,
                             int64_t oh, int64_t ow, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                             int64_t dw, const float *x, const float *w, const float *bias, float *y,
                             const int64_t *piece, int64_t pieces, int64_t icb, int64_t kblk, float *col) {
    (void)n;
    for (int64_t p = 0; p < pieces; p++) {
        int64_t b = piece[5 * p], s = piece[5 * p + 1], r = s / ow, c = s % ow;
        for (int64_t o = piece[5 * p + 3]; o < piece[5 * p + 4]; o++) {
            float acc = 0.0f;
            for (int64_t c0 = 0; c0 < ic; c0 += icb) {
                int64_t c1 = c0 + icb < ic ? c0 + icb : ic, len = (c1 - c0) * kh * kw, q = 0;
                for (int64_t k = c0; k < c1; k++)
                    for (int64_t i = 0; i < kh; i++)
                        for (int64_t j = 0; j < kw; j++, q++) {
                            int64_t yy = r * sh - ph + i * dh, xx = c * sw - pw + j * dw;
                            int inside = yy >= 0 && yy < ih && xx >= 0 && xx < iw;
                            col[q] = inside ? x[((b * ic + k) * ih + yy) * iw + xx] : 0.0f;
                        }
                const float *wr = w + (o * ic + c0) * kh * kw;
                int64_t chunk = kblk > 0 ? kblk : len;
                for (int64_t t0 = 0; t0 < len; t0 += chunk)
                    acc = sse41_gemv_t(col + t0, wr + t0, t0 + chunk < len ? chunk : len - t0, acc);
            }
            if (bias) acc += bias[o];
            y[((b * oc + o) * oh + r) * ow + c] = acc;
        }
    }
}

/* oneDNN's reference sgemm (ref_gemm<float>, ref_gemm_f32.cpp) on one thread, the gemm of its
 * gemm:ref convolutions on aarch64: column-major C (m x n, ldc) = op(A) op(B) + beta C, alpha 1,
 * beta 0 or 1. K in blocks of BK (96 where B is transposed, else 256), then M in blocks of 4032,
 * N in blocks of BN (96 where A is transposed, else 48). In a block, the elements of its first
 * rnd_dn(mb, 16) rows and rnd_dn(nb, 6) columns (kernel_mxn) take one chain from 0 over the K
 * block, added to C (beta 0 on the first block: the chain is C); every other element (the tail
 * loops) continues its chain from C itself (from 0 on the first block where beta is 0).
 * fused: kernel_mxn's terms fmaf(a, b, acc) (its vectorised loop, contracted by GCC), else a
 * rounded product added. The tails' terms are fused too, except, where tail_vf > 0, the first
 * tail_vf * floor(kb / tail_vf) terms of each K block: GCC vectorises that loop (tail_vf lanes of
 * rounded products, added one by one in order) where both operands are contiguous in K. */
void onednn_ref_sgemm(int32_t transa, int32_t transb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                      const float *b, int64_t ldb, float beta, float *c, int64_t ldc, int32_t fused, int64_t tail_vf) {
    const int64_t bm = 4032, bn = transa ? 96 : 48, bk = transb ? 96 : 256;
    for (int64_t k0 = 0; k0 < k; k0 += bk) {
        int64_t kb = k - k0 < bk ? k - k0 : bk;
        int first = k0 == 0 && beta == 0.0f;
        int64_t vec = k0 + (tail_vf > 0 ? kb / tail_vf * tail_vf : 0); /* the tails' unfused terms end here */
        for (int64_t m0 = 0; m0 < m; m0 += bm) {
            int64_t mb = m - m0 < bm ? m - m0 : bm, mu = mb / 16 * 16;
            for (int64_t n0 = 0; n0 < n; n0 += bn) {
                int64_t nb = n - n0 < bn ? n - n0 : bn, nu = nb / 6 * 6;
                for (int64_t j = n0; j < n0 + nb; j++)
                    for (int64_t i = m0; i < m0 + mb; i++) {
                        int main_part = i - m0 < mu && j - n0 < nu;
                        float *out = &c[i + j * ldc];
                        float acc = (main_part || first) ? 0.0f : *out;
                        for (int64_t p = k0; p < k0 + kb; p++) {
                            float av = transa ? a[p + i * lda] : a[i + p * lda];
                            float bv = transb ? b[j + p * ldb] : b[p + j * ldb];
                            acc = madd(main_part || p >= vec ? fused : 0, av, bv, acc);
                        }
                        *out = (main_part && !first) ? acc + *out : acc;
                    }
            }
        }
    }
}

/* oneDNN v3.12's x86 sgemm at AVX2 and AVX512_CORE (gemm:jit's sgemms; harness/impl/onednn_sgemm.py
 * drives the blocking and threading): one kernel call on a block of the product,
 *   C[i*sci + j*scj] = (beta ? C : 0) + sum_p A[i*sai + p*sak] * B[p*sbk + j*sbj],
 * A (m, k), B (k, n), C (m, n); the sum is formed per element as its kernel forms it, then added to
 * C (one rounding) where beta is 1.
 * kind DNNL_KERN_CHAIN: jit_avx2_kernel_sgemm_kern (the copy-based sgemm at AVX2 and AVX512_CORE)
 *   and jit_avx512_common_gemm_f32's nocopy kernel: one fused chain from 0 over p in order.
 * kind DNNL_KERN_AVX2_NOCOPY: jit_avx_gemm_f32's nocopy kernel at AVX2, by register tile: rows in
 *   tiles of 16 (after the last whole 16, a tile of 16 where more than 8 rows remain, else of 8),
 *   columns in tiles of 6 (the last n % 6 one tile). A 16-row tile 4 to 6 columns wide: one fused
 *   chain. Otherwise two accumulators, the even p and the odd p below the last even-count of terms
 *   (k rounded down to even), each a chain from 0, added (even + odd), then the last term where k is
 *   odd; fused (vfmadd231ps) in tiles 3 to 6 columns wide, unfused (vmulps, vaddps) 1 or 2 wide.
 * kind DNNL_KERN_SSE41: jit_sse41_kernel_sgemm_kern (the copy-based sgemm at SSE4.1): one chain from 0
 *   over p in order, each term multiplied, rounded and added (mulps, addps). */
enum { DNNL_KERN_CHAIN = 0, DNNL_KERN_AVX2_NOCOPY = 1, DNNL_KERN_SSE41 = 2 };
void dnnl_sgemm_block(int32_t kind, int64_t m, int64_t n, int64_t k, const float *a, int64_t sai, int64_t sak,
                      const float *b, int64_t sbk, int64_t sbj, float *c, int64_t sci, int64_t scj, int32_t beta) {
    const int64_t m16 = m / 16 * 16, n6 = n / 6 * 6;
    const int64_t rows_tail = m - m16, k_even = k / 2 * 2;
    for (int64_t j = 0; j < n; j++) {
        const int64_t un = j < n6 ? 6 : n - n6;
        for (int64_t i = 0; i < m; i++) {
            const int64_t um = (i < m16 || rows_tail > 8) ? 16 : 8;
            const float *ai = a + i * sai, *bj = b + j * sbj;
            float acc;
            if (kind == DNNL_KERN_SSE41) {
                acc = 0.0f;
                for (int64_t p = 0; p < k; p++) acc = madd(0, ai[p * sak], bj[p * sbk], acc);
            } else if (kind == DNNL_KERN_CHAIN || (um == 16 && un >= 4)) {
                acc = 0.0f;
                for (int64_t p = 0; p < k; p++) acc = fmaf(ai[p * sak], bj[p * sbk], acc);
            } else {
                const int fused = un >= 3;
                float even = 0.0f, odd = 0.0f;
                for (int64_t p = 0; p < k_even; p += 2) {
                    even = madd(fused, ai[p * sak], bj[p * sbk], even);
                    odd = madd(fused, ai[(p + 1) * sak], bj[(p + 1) * sbk], odd);
                }
                acc = even + odd;
                if (k & 1) acc = madd(fused, ai[k_even * sak], bj[k_even * sbk], acc);
            }
            float *out = c + i * sci + j * scj;
            *out = beta ? *out + acc : acc;
        }
    }
}

/* jit_avx512_core_gemm_smalln_tn_f32 (AVX512_CORE, op(A) = A^T, op(B) = B, 1 < n < 16): C (m, n)
 * = (beta ? C : 0) + A^T B with A[p + i*lda] (k, m), B[p + j*ldb] (k, n), C[i + j*ldc]. The columns
 * in groups of 2 or 3 (its partitions table, below); per group and block of 8 rows, per element 16
 * lanes, lane l a fused chain from 0 over p = 16q + l (q in order, the last block of k % 16 terms
 * masked), then reduced across lanes as its reduction_16x16 shuffles do (emulated on 16-float
 * vectors: vshuff32x4, vpermi2ps, vshufpd, vaddps), the result added to C. No bit depends on how its
 * threads split the rows. */
typedef struct {
    float v[16];
} zmm_t;

static zmm_t z_add(zmm_t a, zmm_t b) {
    zmm_t r;
    for (int e = 0; e < 16; e++) r.v[e] = a.v[e] + b.v[e];
    return r;
}

static zmm_t z_shuff32x4(zmm_t a, zmm_t b, int imm) { /* 128-bit lanes 0, 1 from a, 2, 3 from b */
    zmm_t r;
    for (int l = 0; l < 4; l++) {
        const zmm_t *src = l < 2 ? &a : &b;
        memcpy(&r.v[4 * l], &src->v[4 * ((imm >> (2 * l)) & 3)], 4 * sizeof(float));
    }
    return r;
}

static zmm_t z_permi2(const int *idx, zmm_t a, zmm_t b) {
    zmm_t r;
    for (int e = 0; e < 16; e++) r.v[e] = idx[e] < 16 ? a.v[idx[e]] : b.v[idx[e] - 16];
    return r;
}

static zmm_t z_shufpd(zmm_t a, zmm_t b, int imm) { /* 64-bit pairs: even from a, odd from b */
    zmm_t r;
    for (int q = 0; q < 8; q++) {
        const zmm_t *src = (q & 1) ? &b : &a;
        memcpy(&r.v[2 * q], &src->v[2 * ((q & ~1) + ((imm >> q) & 1))], 2 * sizeof(float));
    }
    return r;
}

static const int SMALLN_AB[16] = {0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27};
static const int SMALLN_BA[16] = {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31};
static const int SMALLN_AB1[16] = {0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30};
static const int SMALLN_BA1[16] = {1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31};

/* reduction_16x16's steps after the first: w[8] -> one vector (16 results) */
static zmm_t smalln_reduce(zmm_t *w) {
    for (int ii = 0; ii < 4; ii++)
        w[ii] = z_add(z_permi2(SMALLN_AB, w[ii], w[ii + 4]), z_permi2(SMALLN_BA, w[ii], w[ii + 4]));
    for (int ii = 0; ii < 2; ii++) w[ii] = z_add(z_shufpd(w[ii], w[ii + 2], 0x00), z_shufpd(w[ii], w[ii + 2], 0xff));
    return z_add(z_permi2(SMALLN_AB1, w[0], w[1]), z_permi2(SMALLN_BA1, w[0], w[1]));
}

static const int64_t SMALLN_PARTS[15][6] = {
    {0, 1, 1, 1, 1, 1},  {0, 2, 2, 2, 2, 2},  {0, 3, 3, 3, 3, 3},   {0, 2, 4, 4, 4, 4},    {0, 3, 5, 5, 5, 5},
    {0, 3, 6, 6, 6, 6},  {0, 2, 4, 7, 7, 7},  {0, 3, 6, 8, 8, 8},   {0, 3, 6, 9, 9, 9},    {0, 2, 4, 7, 10, 10},
    {0, 3, 6, 9, 11, 11}, {0, 3, 6, 9, 12, 12}, {0, 2, 4, 7, 10, 13}, {0, 3, 6, 9, 12, 14}, {0, 3, 6, 9, 12, 15}};

void dnnl_smalln_tn(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                    float *c, int64_t ldc, int32_t beta) {
    for (int ii = 1; ii < 6; ii++) {
        const int64_t j0 = SMALLN_PARTS[n - 1][ii - 1], nn = SMALLN_PARTS[n - 1][ii] - j0;
        if (nn == 0) break;
        for (int64_t r0 = 0; r0 < m; r0 += 8) {
            zmm_t acc[3][8];
            memset(acc, 0, sizeof acc);
            for (int64_t col = 0; col < nn; col++)
                for (int64_t r = 0; r < 8 && r0 + r < m; r++)
                    for (int64_t p = 0; p < k; p++)
                        acc[col][r].v[p & 15] = fmaf(a[p + (r0 + r) * lda], b[p + (j0 + col) * ldb], acc[col][r].v[p & 15]);
            zmm_t w[8], out[2];
            for (int r = 0; r < 8; r++) { /* [ A1 + A2 | B1 + B2 ]: column 0's row r, column 1's */
                w[r] = z_add(z_shuff32x4(acc[0][r], acc[1][r], 0x44), z_shuff32x4(acc[0][r], acc[1][r], 0xee));
            }
            out[0] = smalln_reduce(w);
            if (nn == 3) {
                for (int r = 0; r < 8; r++)
                    w[r] = z_add(z_shuff32x4(acc[2][r], acc[2][r], 0x44), z_shuff32x4(acc[2][r], acc[2][r], 0xee));
                out[1] = smalln_reduce(w);
            }
            for (int64_t col = 0; col < nn; col++)
                for (int64_t r = 0; r < 8 && r0 + r < m; r++) {
                    const float v = col < 2 ? out[0].v[8 * col + r] : out[1].v[r];
                    float *o = &c[r0 + r + (j0 + col) * ldc];
                    *o = beta ? v + *o : v;
                }
        }
    }
}

/* oneDNN's gemv kernels at SSE4.1, AVX2 and AVX512_CORE (gemv_driver.cpp; the sgemm's n = 1 or m = 1 cases),
 * one kernel call each (harness/impl/onednn_sgemm.py splits the threads' parts):
 * dnnl_gemv_n: jit_sse41_gemv_n_f32_kern: y (m) at y[i*incy], per element a chain over the n
 *   columns of A[i + p*lda] times x[p*incx] in order, from y where incy is 1, else (gemv_kernel_driver's
 *   ytmp, blocks of 512 rows) from 0, then added to y; fused in its AVX2 code (vfmadd231ps), its
 *   SSE4.1 code multiplies and adds (fused 0). */
void dnnl_gemv_n(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y,
                 int64_t incy, int32_t fused) {
    for (int64_t i = 0; i < m; i++) {
        float acc = incy == 1 ? y[i] : 0.0f;
        for (int64_t p = 0; p < n; p++) acc = madd(fused, a[i + p * lda], x[p * incx], acc);
        y[i * incy] = incy == 1 ? acc : y[i * incy] + acc;
    }
}

/* the 8 lanes of a ymm accumulator summed as vhaddps, vperm2f128 + vaddps, vhaddps do */
static float dnnl_hsum8(const float *l) { return ((l[0] + l[1]) + (l[4] + l[5])) + ((l[2] + l[3]) + (l[6] + l[7])); }

/* dnnl_gemv_t: jit_avx_gemv_t_f32_kern: y[j*incy] for j < n, the dot of A's column j (A[p + j*lda],
 * p < m) with x; where incx is not 1 gemv_kernel_driver hands the kernel blocks of 512 terms (x
 * copied), one call each. Per call and column: the terms below 16*floor(m'/16) in 8 lanes (lane l a
 * fused chain over p = l mod 8 in order), the lanes summed (dnnl_hsum8) and added to y; then the
 * remaining terms in pieces of 8, 4, 2, 1 (as the remainder's bits say), each piece's products
 * (fmaf from 0) summed alike and added to y. */
void dnnl_gemv_t(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y,
                 int64_t incy) {
    const int64_t blk = incx == 1 ? (m > 0 ? m : 1) : 512;
    for (int64_t j = 0; j < n; j++) {
        float *out = &y[j * incy];
        for (int64_t p0 = 0; p0 < m; p0 += blk) {
            const int64_t mb = m - p0 < blk ? m - p0 : blk, main = mb / 16 * 16;
            const float *aj = a + j * lda + p0, *xj = x + p0 * incx;
            if (main > 0) {
                float lane[8] = {0};
                for (int64_t p = 0; p < main; p++) lane[p & 7] = fmaf(xj[p * incx], aj[p], lane[p & 7]);
                *out = *out + dnnl_hsum8(lane);
            }
            int64_t p = main;
            for (int64_t piece = 8; piece > 0; piece >>= 1) {
                if (!((mb - main) & piece)) continue;
                float lane[8] = {0};
                for (int64_t e = 0; e < piece; e++, p++) lane[e] = fmaf(xj[p * incx], aj[p], 0.0f);
                *out = *out + dnnl_hsum8(lane);
            }
        }
    }
}

/* dnnl_gemv_t_sse41: jit_sse41_gemv_t_f32_kern as gemv_kernel_driver calls it: y[j*incy] for j < n,
 * the dot of A's column j (A[p + j*lda], p < m) with x, onto y. Where incx is 1 one kernel call over
 * all m terms; else the driver copies x in blocks of 512 terms (M_BLK, its xtmp), one call each, in
 * order. Each call and column is sse41_gemv_t: 4 lanes over the first 8 * floor(m' / 8) terms, then
 * pieces of 4, 2, 1, each part's lanes summed and added to y. */
void dnnl_gemv_t_sse41(int64_t m, int64_t n, const float *a, int64_t lda, const float *x, int64_t incx, float *y,
                       int64_t incy) {
    float xtmp[512];
    for (int64_t p0 = 0; p0 < m; p0 += incx == 1 ? m : 512) {
        const int64_t mb = incx == 1 ? m : (m - p0 < 512 ? m - p0 : 512);
        const float *xb = x + p0;
        if (incx != 1) {
            for (int64_t p = 0; p < mb; p++) xtmp[p] = x[(p0 + p) * incx];
            xb = xtmp;
        }
        for (int64_t j = 0; j < n; j++) y[j * incy] = sse41_gemv_t(xb, a + j * lda + p0, mb, y[j * incy]);
    }
}
