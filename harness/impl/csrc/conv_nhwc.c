/* Channels-last (NHWC) convolution backward helpers for harness/impl/conv_nhwc_backward.py.
 * Arrays are logical NCHW float32 (the layout oneDNN reads does not change the arithmetic). */
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Depthwise grad_weight (and grad_bias) of one thread: per channel ch in [c0, c1) and tap (i, j)
 * one chain from 0 over the pixels pix[3 * p] = (image, oh, ow) in order, fused (fmaf) or each
 * product rounded and added (``fused`` 0: SSE4.1), the padding's taps skipped; the bias a chain of
 * additions over the same pixels. gw (C, KH, KW), gb (C). */
void nhwc_dw_weights(int64_t n, int64_t c, int64_t ih, int64_t iw, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                     int64_t sh, int64_t sw, int64_t ph, int64_t pw, const float *dy, const float *x,
                     const int64_t *pix, int64_t npix, int64_t c0, int64_t c1, float *gw, float *gb, int32_t fused) {
    (void)n;
    for (int64_t ch = c0; ch < c1; ch++) {
        for (int64_t i = 0; i < kh; i++)
            for (int64_t j = 0; j < kw; j++) {
                float acc = 0.0f;
                for (int64_t p = 0; p < npix; p++) {
                    int64_t b = pix[3 * p], r = pix[3 * p + 1], q = pix[3 * p + 2];
                    int64_t yy = r * sh - ph + i, xx = q * sw - pw + j;
                    if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) continue;
                    float d = dy[((b * c + ch) * oh + r) * ow + q], v = x[((b * c + ch) * ih + yy) * iw + xx];
                    acc = fused ? fmaf(d, v, acc) : acc + d * v;
                }
                gw[(ch * kh + i) * kw + j] = acc;
            }
        if (gb) {
            float acc = 0.0f;
            for (int64_t p = 0; p < npix; p++) {
                int64_t b = pix[3 * p], r = pix[3 * p + 1], q = pix[3 * p + 2];
                acc = acc + dy[((b * c + ch) * oh + r) * ow + q];
            }
            gb[ch] = acc;
        }
    }
}

/* x86's NaN rules as oneDNN's avx512_core brgemm kernel meets them: a NaN operand passes on quieted
 * (sign and payload kept), an invalid operation (inf * 0, inf - inf) gives the default NaN 0xffc00000. */
static inline float x86_quiet(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    u |= 0x00400000u;
    memcpy(&v, &u, 4);
    return v;
}

static inline float x86_default_nan(void) {
    uint32_t u = 0xffc00000u;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

/* vfmadd231ps acc += a * b: a NaN of the product's operands (a, then b) before the accumulator's. */
static inline float x86_fma(float a, float b, float acc) {
    if (isnan(a)) return x86_quiet(a);
    if (isnan(b)) return x86_quiet(b);
    if (isnan(acc)) return x86_quiet(acc);
    float r = fmaf(a, b, acc);
    return isnan(r) ? x86_default_nan() : r;
}

/* vaddps first, second: the first operand's NaN before the second's. */
static inline float x86_add(float first, float second) {
    if (isnan(first)) return x86_quiet(first);
    if (isnan(second)) return x86_quiet(second);
    float r = first + second;
    return isnan(r) ? x86_default_nan() : r;
}

/* brg_conv_bwd:avx512_core's grad_input (stride 1) per element from terms (o, i, j) as csrc/conv.c's
 * conv_bwd_data_terms takes them ((-1, 0, 0) closes a brgemm call: each call's fused chain from 0 over
 * dy[o] * w[o, k, i, j], its sum added to C after: chain first, C second, as the kernel's store adds
 * them), with x86's NaN rules (x86_fma, x86_add). The first call's sum is C itself. */
void nhwc_bwd_data_terms(int64_t n, int64_t ic, int64_t ih, int64_t iw, int64_t oc, int64_t kh, int64_t kw, int64_t oh,
                         int64_t ow, int64_t ph, int64_t pw, const float *dy, const float *w, float *dx,
                         const int64_t *terms, int64_t nterms) {
    for (int64_t b = 0; b < n; b++)
        for (int64_t k = 0; k < ic; k++)
            for (int64_t yy = 0; yy < ih; yy++)
                for (int64_t xx = 0; xx < iw; xx++) {
                    float acc = 0.0f, total = 0.0f;
                    int started = 0;
                    for (int64_t t = 0; t < nterms; t++) {
                        int64_t o = terms[3 * t], i = terms[3 * t + 1], j = terms[3 * t + 2];
                        if (o < 0) {
                            total = started ? x86_add(acc, total) : acc;
                            started = 1;
                            acc = 0.0f;
                            continue;
                        }
                        int64_t rr = yy + ph - i, cc = xx + pw - j;
                        if (rr < 0 || rr >= oh || cc < 0 || cc >= ow) continue;
                        acc = x86_fma(dy[((b * oc + o) * oh + rr) * ow + cc], w[((o * ic + k) * kh + i) * kw + j], acc);
                    }
                    dx[((b * ic + k) * ih + yy) * iw + xx] = started ? x86_add(acc, total) : acc;
                }
}
