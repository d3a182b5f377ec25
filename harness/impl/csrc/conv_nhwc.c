/* Channels-last (NHWC) convolution backward helpers for harness/impl/conv_nhwc_backward.py.
 * Arrays are logical NCHW float32 (the layout oneDNN reads does not change the arithmetic). */
#include <math.h>
#include <stdint.h>

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
