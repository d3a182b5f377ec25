/* ATen's CPU FFT on the x86 wheel: _fft_c2c_mkl, _fft_r2c_mkl and _fft_c2r_mkl (native/mkl/SpectralOps.cpp)
 * hand every 1-D transform to one MKL DFTI descriptor, which on an AMD CPU runs DFTI's generic code path
 * (the "def" kernels: SSE, no FMA). Reproduced here for the lengths measured bit for bit (fft.py refuses
 * the rest): N = 8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 144, 168, 192, 336, 480, 720 and 128 to 1024 (powers
 * of two), complex, real forward and real backward (the real ones of 8 to 64 as fft.py says, per DFTI's path), and ct_odd's order
 * at the further lengths fft.py names (28 to 700: multiples of 4 with an odd prime 3, 5 or 7).
 *
 * Shapes: B transforms (rows), each contiguous. Complex data is interleaved (re, im) float32 pairs.
 *   c2c   in (B, N) complex  -> out (B, N) complex, forward (sign -1) or backward (sign +1)
 *   r2c   in (B, N) real     -> out (B, N/2+1) complex (the onesided half)
 *   c2r   in (B, N/2+1) complex -> out (B, N) real (the imaginary parts of bins 0 and N/2 are not read)
 *
 * Order of operations, as measured (docs/impl/kernels.md "### fft"):
 *   N = 12 complex: a prime-factor (Good-Thomas) transform, no twiddles: input n = (4*n1 + 3*n2) mod 12;
 *     first the four 3-point DFTs over n1 (dft3), then the three 4-point DFTs over n2 (dft4); output bin
 *     (4*k1 + 9*k2) mod 12.
 *     dft3(a0, a1, a2): t = a1 + a2, u = a1 - a2, X0 = a0 + t, m = a0 - 0.5*t, v = sin(2pi/3)*u,
 *       X1 = m -+ i*v, X2 = m +- i*v (forward, backward).
 *     dft4(a0..a3): s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = a1 - a3,
 *       X0 = s02 + s13, X2 = s02 - s13, X1 = d02 -+ i*d13, X3 = d02 +- i*d13.
 *   N = 24 complex: Cooley-Tukey 3 x 8 (ct_odd below: two 8-point kernels, twiddles, 3-point DFTs).
 *   N = 12 real: forward, the complex transform with the imaginary parts absent (rdft12_fwd); backward,
 *     the real parts of the complex backward transform of the Hermitian row (bin 12-k = conj(bin k)).
 *   N = 24 real forward: z[j] = x[2j] + i*x[2j+1], Z = the 12-point complex forward transform, then per bin
 *     k = 1..11 (w = cos + i*sin of -2pi*k/24, cos(pi/2) taken as 0):
 *       B = Z[k] - conj(Z[12-k]), V = ((1 + w.im)/2, w.re/2),
 *       X[k].re = Z[12-k].re + (B.re*V.re + B.im*V.im), X[k].im = -Z[12-k].im + (B.im*V.re - B.re*V.im),
 *     X[0] = Z[0].re + Z[0].im, X[12] = Z[0].re - Z[0].im (imaginary parts +0).
 *   N = 24 real backward: Z[0] = (X[0].re + X[12].re, X[0].re - X[12].re), and per k = 1..11
 *       A = X[k] + conj(X[12-k]), B = X[k] - conj(X[12-k]),
 *       Z[k].re = A.re + (w.im*B.re - w.re*B.im), Z[k].im = A.im + (w.im*B.im + w.re*B.re),
 *     then the 12-point complex backward transform: x[2j] = z[j].re, x[2j+1] = z[j].im.
 *   N = 8 complex: radix 2, decimation in time, eighth turns as one sum times sqrt(1/2) (radix2_8_sum, DFTI's
 *     8-point FFT kernel's odd eighths: fft8_eighth).
 *   N = 16 complex: radix 4 x 4, decimation in time, plain complex twiddle products (radix4_16).
 *   N = 32 complex: Cooley-Tukey 8 x 4 (ct32); N = 64 complex: Cooley-Tukey 4 x 16 (ct64: DFTI's radix-4 FFT,
 *     R16_RADIX4); N = 16 complex: DFTI's 16-point FFT kernel (radix4_16, R16_FFT16).
 *   N = 48, 96, 192 complex: Cooley-Tukey 3 x 16, 3 x (4 x 8) and 3 x (4 x 16) in ct_odd's order (DFTI's
 *     PrimeFact plans: Prime16 or Prime8, Fact4, Fact3, as gdb shows); real: the N/2-point complex transform
 *     (ct_odd, 96 as PrimeFact's Prime8, Fact4, Fact3 for 192) of the even/odd pairs with the 24-point kernel's recombination passes, turns
 *     of 2pi*k/N (row_split), on every path.
 *   N = 20, 40, 80 complex: Cooley-Tukey 5 x 4, 5 x 8, 5 x 16 (ct_odd) with a 5-point DFT last; real: the
 *     N/2-point complex transform (pfa10, ct_odd) with the recombination passes (row_split).
 *   N = 144, 168, 336, 720: Cooley-Tukey with the largest odd prime outermost (ct_odd: 3 x 48, 7 x 24,
 *     7 x 48, 5 x (3 x 48)), the 7-point DFT dft7; real as above (row_split). N = 480 real: the 240-point
 *     transform ct_odd 5 x (3 x 16) with the recombination passes (row_split), as measured; complex: DFTI's
 *     PrimeFact plan 5 x (4 x (3 x 8)) (ct_plan). The Fact passes of ct_odd and ct_plan multiply every bin of
 *     residues 1 and up by their table (fact_twiddle), ct_odd's 16-point DFTs are DFTI's Prime16 (R16_PRIME16:
 *     its table products on every bin of residues 1 to 3), the 8-point DFTs DFTI's Prime8 (prime8: its pair
 *     block; radix2_8: its single block), the 5- and 7-point DFTs form their odd terms with the sines of
 *     -2pi*k/p, the recombinations pair bin k with m - k: the signs of zeros as DFTI gives them there (fft.py
 *     says where the other kernels' are not modelled).
 *   N = 128, 256, 512, 1024 complex: DFTI's radix-4 FFT (radix4_fft: decimation in time, a 4-point pass, radix-4
 *     passes, radix-8 passes: 4 x 4 x 8, 4 x 8 x 8, 4 x 4 x 4 x 8, 4 x 4 x 8 x 8, the table's products, radix8_r4's
 *     eighth turn rounded up); real: its N/2-point transform (64: ct64's) with the recombination passes (row_split),
 *     on every path.
 *   N = 8, 16 real: the complex kernel of the row with +0 imaginary parts, or of the Hermitian row
 *     (pow2_row); the eighth turns as sums or products per DFTI's path.
 *   N = 32, 64 real: the N/2-point complex transform of the even/odd pairs with the 24-point kernel's
 *     recombination passes (recombine_fwd after it, recombine_bwd before it; rdft_pow2_fwd); the
 *     forward one of 64 on DFTI's threaded path: ct64 of the row with +0 imaginary parts.
 *   Scaling (a normalisation: DFTI's forward or backward scale s): on one thread, or one transform, the
 *     real 12-point kernels fold s into their 3-point DFTs (a0*s and t*s first, v = u*(float)(sin(2pi/3)*s));
 *     every other case (the complex kernels, the real ones of N other than 12, and the real 12-point kernels when
 *     DFTI splits two or more transforms between threads or takes strided rows) multiplies each output by
 *     s after the transform. A scale other than 1/N (ATen's 1/sqrt(N)) is always multiplied after, and the
 *     real kernels then run as on DFTI's threaded path over contiguous rows (threaded_rows), on any thread
 *     count (fft.py decides). Transforms over several dims are 1-D passes of these kernels (fft.py). */
#include <math.h>
#include <stdint.h>

#include "dmath.h"

typedef struct {
    float r, i;
} cpx;

#define FFT_PI 0x1.921fb54442d18p+1     /* pi in double */
#define SIN_2PI_3 0x1.bb67ae8584cabp-1 /* sin(2pi/3) in double: the folded scale's constant is its product */

/* cos and sin of 2pi*k/24, k = 0..11, as float32 (cos(pi/2) exactly 0, as DFTI's tables hold it). */
static const float COS24[12] = {
    0x1p+0f, 0x1.ee8dd4p-1f, 0x1.bb67aep-1f, 0x1.6a09e6p-1f, 0x1p-1f, 0x1.0907dcp-2f,
    0.0f, -0x1.0907dcp-2f, -0x1p-1f, -0x1.6a09e6p-1f, -0x1.bb67aep-1f, -0x1.ee8dd4p-1f,
};
static const float SIN24[12] = {
    0.0f, 0x1.0907dcp-2f, 0x1p-1f, 0x1.6a09e6p-1f, 0x1.bb67aep-1f, 0x1.ee8dd4p-1f,
    0x1p+0f, 0x1.ee8dd4p-1f, 0x1.bb67aep-1f, 0x1.6a09e6p-1f, 0x1p-1f, 0x1.0907dcp-2f,
};

static inline cpx cadd(cpx a, cpx b) { return (cpx){a.r + b.r, a.i + b.i}; }
static inline cpx csub(cpx a, cpx b) { return (cpx){a.r - b.r, a.i - b.i}; }
static inline cpx cscale(cpx a, float k) { return (cpx){a.r * k, a.i * k}; }
/* m + (sign * i) * v: sign -1 adds -i*v = (v.im, -v.re), sign +1 adds i*v = (-v.im, v.re). */
static inline cpx cadd_rot(cpx m, cpx v, int sign) {
    return sign < 0 ? (cpx){m.r + v.i, m.i - v.r} : (cpx){m.r - v.i, m.i + v.r};
}

/* 3-point DFT (sign -1 forward, +1 backward); scaled: DFTI's kernel with the scale s folded in. */
static void dft3(const cpx a0, const cpx a1, const cpx a2, int sign, int scaled, float s, cpx out[3]) {
    const cpx t = cadd(a1, a2), u = csub(a1, a2);
    cpx m, v;
    if (scaled) {
        const cpx a0s = cscale(a0, s), ts = cscale(t, s);
        out[0] = cadd(a0s, ts);
        m = csub(a0s, cscale(ts, 0.5f));
        v = cscale(u, (float)(SIN_2PI_3 * (double)s));
    } else {
        out[0] = cadd(a0, t);
        m = csub(a0, cscale(t, 0.5f));
        v = cscale(u, (float)SIN_2PI_3);
    }
    out[1] = cadd_rot(m, v, sign);
    out[2] = cadd_rot(m, v, -sign);
}

/* 4-point DFT (sign -1 forward, +1 backward). */
static void dft4(const cpx a[4], int sign, cpx out[4]) {
    const cpx s02 = cadd(a[0], a[2]), d02 = csub(a[0], a[2]);
    const cpx s13 = cadd(a[1], a[3]), d13 = csub(a[1], a[3]);
    out[0] = cadd(s02, s13);
    out[2] = csub(s02, s13);
    out[1] = cadd_rot(d02, d13, sign);
    out[3] = cadd_rot(d02, d13, -sign);
}

/* The 12-point real forward kernel: the prime-factor transform above with the imaginary parts of the
 * input absent (terms with them dropped, which decides the signs of zero results). Per column only the
 * 3-point DFT's bins 0 (real) and 1 are formed (bin 2 is conj(bin 1)): Y0 = a0 + t, Y1 = (m, -v); the
 * 4-point DFT of the Y0 gives X0, X6 (s02 +- s13, imaginary +0) and X3 = (d02, d13); that of the Y1 gives
 * X4 = s02 + s13, X1 = (d02.re + d13.im, d02.im - d13.re), and as conjugates of bins 10 and 7
 * X2 = (s02.re - s13.re, s13.im - s02.im), X5 = (d02.re - d13.im, -(d02.im + d13.re)). */
static void rdft12_fwd(const float *x, int scaled, float s, float *out) {
    float y0[4];
    cpx y1[4];
    const float c = scaled ? (float)(SIN_2PI_3 * (double)s) : (float)SIN_2PI_3;
    for (int n2 = 0; n2 < 4; n2++) {
        const float a0 = x[(3 * n2) % 12], a1 = x[(4 + 3 * n2) % 12], a2 = x[(8 + 3 * n2) % 12];
        const float t = a1 + a2, u = a1 - a2;
        float m;
        if (scaled) {
            const float a0s = a0 * s, ts = t * s;
            y0[n2] = a0s + ts;
            m = a0s - ts * 0.5f;
        } else {
            y0[n2] = a0 + t;
            m = a0 - t * 0.5f;
        }
        y1[n2] = (cpx){m, -(u * c)};
    }
    {
        const float s02 = y0[0] + y0[2], d02 = y0[0] - y0[2], s13 = y0[1] + y0[3], d13 = y0[1] - y0[3];
        out[0] = s02 + s13, out[1] = 0.0f;
        out[12] = s02 - s13, out[13] = 0.0f;
        out[6] = d02, out[7] = d13;
    }
    const cpx s02 = cadd(y1[0], y1[2]), d02 = csub(y1[0], y1[2]), s13 = cadd(y1[1], y1[3]), d13 = csub(y1[1], y1[3]);
    out[8] = s02.r + s13.r, out[9] = s02.i + s13.i;
    out[2] = d02.r + d13.i, out[3] = d02.i - d13.r;
    out[4] = s02.r - s13.r, out[5] = s13.i - s02.i;
    out[10] = d02.r - d13.i, out[11] = -(d02.i + d13.r);
}

/* The 12-point complex transform of x (prime-factor 3 x 4, the 3-point DFTs first). */
static void pfa12(const cpx x[12], int sign, int scaled, float s, cpx out[12]) {
    cpx y[3][4];
    for (int n2 = 0; n2 < 4; n2++) {
        cpx o[3];
        dft3(x[(3 * n2) % 12], x[(4 + 3 * n2) % 12], x[(8 + 3 * n2) % 12], sign, scaled, s, o);
        for (int k1 = 0; k1 < 3; k1++) y[k1][n2] = o[k1];
    }
    for (int k1 = 0; k1 < 3; k1++) {
        cpx o[4];
        dft4(y[k1], sign, o);
        for (int k2 = 0; k2 < 4; k2++) out[(4 * k1 + 9 * k2) % 12] = o[k2];
    }
}

#define H8 0x1.6a09e6p-1f /* float32 sqrt(1/2) */

/* v times a table's (c, t) = (cos, -sin): forward (v.re*c - v.im*t, v.re*t + v.im*c), backward
 * (v.re*c + v.im*t, v.im*c - v.re*t), as DFTI's Fact and Prime16 passes multiply. */
static inline cpx table_product(cpx v, float c, float t, int sign) {
    return sign < 0 ? (cpx){v.r * c - v.i * t, v.r * t + v.i * c} : (cpx){v.r * c + v.i * t, v.i * c - v.r * t};
}

/* DFTI's `Prime8` (ownscDft{Fwd,Inv}_Prime8_32fc, read from its machine code; sign -1 forward, +1 backward).
 * A call runs its transforms two at a time (the pair block: prime8) and, where their count is odd, the last
 * one alone (the single block: radix2_8): 480's plan (src, 20, dst, 3, 20, perm) and the 24-, 40-point and
 * ct_odd kernels take the single block for the last residue of their 3- or 5-point pass. Both blocks give
 * the same finite values; their zero signs differ (where zeros meet: which operand is subtracted from
 * which, and the products by the table's 1 and 0).
 * The pair block: s_m = x_m + x_{m+4} (m = 0..3), d0 = x0 - x4, d1 = x1 - x5, and n2 = x6 - x2, n3 = x7 - x3
 * (the odd differences taken the other way); a = s0 + s2, b = s0 - s2, c = s1 + s3, v = s3 - s1; X0, X4 =
 * a +- c, X2, X6 = b +- i*v; t = d1*h + n3*h, u = n3*h - d1*h (h = sqrt(1/2)), e = n2 + u, f = u - n2,
 * X1, X7 = (d0 + t) +- i*e, X3, X5 = (d0 - t) +- i*f (forward; backward the other way round), each
 * m + i*w formed as cadd_rot does (m.re - w.im, m.im + w.re). */
static void prime8(const cpx x[8], int sign, cpx out[8]) {
    const cpx s0 = cadd(x[0], x[4]), s1 = cadd(x[1], x[5]), s2 = cadd(x[2], x[6]), s3 = cadd(x[3], x[7]);
    const cpx d0 = csub(x[0], x[4]), d1 = csub(x[1], x[5]), n2 = csub(x[6], x[2]), n3 = csub(x[7], x[3]);
    const cpx a = cadd(s0, s2), b = csub(s0, s2), c = cadd(s1, s3), v = csub(s3, s1);
    const cpx p = cscale(d1, H8), q = cscale(n3, H8);
    const cpx t = cadd(p, q), u = csub(q, p);
    const cpx e = cadd(n2, u), f = csub(u, n2);
    const cpx p1 = cadd(d0, t), p3 = csub(d0, t);
    out[0] = cadd(a, c);
    out[4] = csub(a, c);
    out[2] = cadd_rot(b, v, -sign);
    out[6] = cadd_rot(b, v, sign);
    out[1] = cadd_rot(p1, e, -sign);
    out[7] = cadd_rot(p1, e, sign);
    out[3] = cadd_rot(p3, f, -sign);
    out[5] = cadd_rot(p3, f, sign);
}

/* Prime8's single block (see prime8): s_m = x_m + x_{m+4}, d_m = x_m - x_{m+4} (m = 0..3); E = (s0 + s2,
 * d0 + (sign*i)*d2, s0 - s2, d0 - (sign*i)*d2), O the same of s1, s3, d1, d3; bin k of O (k = 0..3, k = 0
 * and 2 too) times its table's (c, t) = (1, +0), (h, -h), (+0, -1), (-h, -h) as table_product multiplies;
 * X[k] = E[k] + O'[k], X[k+4] = E[k] - O'[k]: a radix-2 DFT with its eighths as products. */
static void radix2_8(const cpx x[8], int sign, cpx out[8]) {
    static const float C[4] = {1.0f, H8, 0.0f, -H8}, T[4] = {0.0f, -H8, -1.0f, -H8};
    cpx s[4], d[4];
    for (int m = 0; m < 4; m++) s[m] = cadd(x[m], x[m + 4]), d[m] = csub(x[m], x[m + 4]);
    const cpx e[4] = {cadd(s[0], s[2]), cadd_rot(d[0], d[2], sign), csub(s[0], s[2]), cadd_rot(d[0], d[2], -sign)};
    const cpx o[4] = {cadd(s[1], s[3]), cadd_rot(d[1], d[3], sign), csub(s[1], s[3]), cadd_rot(d[1], d[3], -sign)};
    for (int k = 0; k < 4; k++) {
        const cpx w = table_product(o[k], C[k], T[k], sign);
        out[k] = cadd(e[k], w), out[k + 4] = csub(e[k], w);
    }
}

/* cos(2pi*e/64) as float32 from double, e = 0..16 (cos(pi/2) exactly 0, as DFTI's tables hold it). */
static const float COS64[17] = {
    0x1p+0f,         0x1.fd88dap-1f, 0x1.f6297cp-1f, 0x1.e9f416p-1f, 0x1.d906bcp-1f, 0x1.c38b30p-1f,
    0x1.a9b662p-1f,  0x1.8bc806p-1f, 0x1.6a09e6p-1f, 0x1.44cf32p-1f, 0x1.1c73b4p-1f, 0x1.e2b5d4p-2f,
    0x1.87de2ap-2f,  0x1.294062p-2f, 0x1.8f8b84p-3f, 0x1.917a6cp-4f, 0.0f,
};

/* cos(2pi*e/48) as float32 from double, e = 0..12 (cos(pi/2) exactly 0). */
static const float COS48[13] = {
    0x1p+0f,        0x1.fb9eaap-1f, 0x1.ee8dd4p-1f, 0x1.d906bcp-1f, 0x1.bb67aep-1f, 0x1.963268p-1f, 0x1.6a09e6p-1f,
    0x1.37af94p-1f, 0x1p-1f,        0x1.87de2ap-2f, 0x1.0907dcp-2f, 0x1.0b515p-3f,  0.0f,
};

/* cos and sin of 2pi*e/(4*quarter) for any e, by quadrant from a table of the first quarter turn
 * (table[r] = cos(2pi*r/(4*quarter)), r = 0..quarter; sin(t) = cos(pi/2 - t)). */
static void cs_quarter(int e, int quarter, const float *table, float *c, float *s) {
    e %= 4 * quarter;
    if (e < 0) e += 4 * quarter;
    const int q = e / quarter, r = e % quarter;
    const float a = table[r], b = table[quarter - r]; /* cos and sin of the turn r */
    const float cv[4] = {a, -b, -a, b}, sv[4] = {b, a, -b, -a};
    *c = cv[q], *s = sv[q];
}

/* cos(2pi*e/96) as float32 from double, e = 0..24 (cos(pi/2) exactly 0). */
static const float COS96[25] = {
    0x1p+0f,        0x1.fee75ep-1f, 0x1.fb9eaap-1f, 0x1.f6297cp-1f, 0x1.ee8dd4p-1f, 0x1.e4d406p-1f, 0x1.d906bcp-1f,
    0x1.cb32e8p-1f, 0x1.bb67aep-1f, 0x1.a9b662p-1f, 0x1.963268p-1f, 0x1.80f126p-1f, 0x1.6a09e6p-1f, 0x1.5195c6p-1f,
    0x1.37af94p-1f, 0x1.1c73b4p-1f, 0x1p-1f,        0x1.c4e754p-2f, 0x1.87de2ap-2f, 0x1.49276ep-2f, 0x1.0907dcp-2f,
    0x1.8f8b84p-3f, 0x1.0b515p-3f,  0x1.0be426p-4f, 0.0f,
};

/* cos(2pi*e/192) as float32 from double, e = 0..48 (cos(pi/2) exactly 0). */
static const float COS192[49] = {
    0x1p+0f, 0x1.ffb9d2p-1f, 0x1.fee75ep-1f, 0x1.fd88dap-1f, 0x1.fb9eaap-1f, 0x1.f92950p-1f, 0x1.f6297cp-1f,
    0x1.f2a000p-1f, 0x1.ee8dd4p-1f, 0x1.e9f416p-1f, 0x1.e4d406p-1f, 0x1.df2f10p-1f, 0x1.d906bcp-1f, 0x1.d25cbep-1f,
    0x1.cb32e8p-1f, 0x1.c38b30p-1f, 0x1.bb67aep-1f, 0x1.b2caa0p-1f, 0x1.a9b662p-1f, 0x1.a02d70p-1f, 0x1.963268p-1f,
    0x1.8bc806p-1f, 0x1.80f126p-1f, 0x1.75b0bep-1f, 0x1.6a09e6p-1f, 0x1.5dffd0p-1f, 0x1.5195c6p-1f, 0x1.44cf32p-1f,
    0x1.37af94p-1f, 0x1.2a3a84p-1f, 0x1.1c73b4p-1f, 0x1.0e5ee8p-1f, 0x1p-1f, 0x1.e2b5d4p-2f, 0x1.c4e754p-2f,
    0x1.a69cacp-2f, 0x1.87de2ap-2f, 0x1.68b43cp-2f, 0x1.49276ep-2f, 0x1.294062p-2f, 0x1.0907dcp-2f, 0x1.d10d5cp-3f,
    0x1.8f8b84p-3f, 0x1.4d9c24p-3f, 0x1.0b5150p-3f, 0x1.917a6cp-4f, 0x1.0be426p-4f, 0x1.0c08e4p-5f, 0.0f,
};

/* cos(2pi*e/80) as float32 from double, e = 0..20 (cos(pi/2) exactly 0). */
static const float COS80[21] = {
    0x1p+0f,        0x1.fe6bf2p-1f, 0x1.f9b24ap-1f, 0x1.f1da78p-1f, 0x1.e6f0e2p-1f, 0x1.d906bcp-1f, 0x1.c83202p-1f,
    0x1.b48d40p-1f, 0x1.9e377ap-1f, 0x1.8553eep-1f, 0x1.6a09e6p-1f, 0x1.4c8474p-1f, 0x1.2cf230p-1f, 0x1.0b84eep-1f,
    0x1.d0e2e2p-2f, 0x1.87de2ap-2f, 0x1.3c6ef4p-2f, 0x1.de189ap-3f, 0x1.4060b6p-3f, 0x1.415e54p-4f, 0.0f,
};

/* cos and sin of 2pi*e/64, of 2pi*e/48, of 2pi*e/96 and of 2pi*e/192. */
static void cs64(int e, float *c, float *s) { cs_quarter(e, 16, COS64, c, s); }
static void cs48(int e, float *c, float *s) { cs_quarter(e, 12, COS48, c, s); }
static void cs96(int e, float *c, float *s) { cs_quarter(e, 24, COS96, c, s); }
static void cs192(int e, float *c, float *s) { cs_quarter(e, 48, COS192, c, s); }
/* cos and sin of 2pi*e/20, of 2pi*e/40 and of 2pi*e/80. */
static void cs20(int e, float *c, float *s) { cs_quarter(4 * e, 20, COS80, c, s); }
static void cs40(int e, float *c, float *s) { cs_quarter(2 * e, 20, COS80, c, s); }
static void cs80(int e, float *c, float *s) { cs_quarter(e, 20, COS80, c, s); }

/* cos and sin of 2pi*e/32 (the same doubles as 2pi*2e/64). */
static void cs32(int e, float *c, float *s) { cs64(2 * e, c, s); }

/* v times e^(sign*2pi*i*e/N), N = 4*quarter (e >= 0): exact for the quarter turns (-+i, -1, +-i), else
 * the plain product (v.re*w.re - v.im*w.im, v.re*w.im + v.im*w.re), w float32 from double cos and sin. */
static inline cpx twiddle_n(cpx v, int e, int quarter, const float *table, int sign) {
    e %= 4 * quarter;
    if (e == 0) return v;
    if (e == 2 * quarter) return (cpx){-v.r, -v.i};
    if (e == quarter || e == 3 * quarter) {
        const int s = e == quarter ? sign : -sign;
        return s < 0 ? (cpx){v.i, -v.r} : (cpx){-v.i, v.r};
    }
    float wr, wi;
    cs_quarter(e, quarter, table, &wr, &wi);
    wi = sign * wi;
    return (cpx){v.r * wr - v.i * wi, v.r * wi + v.i * wr};
}

/* twiddle_n in 64ths. */
static inline cpx twiddle64(cpx v, int e, int sign) { return twiddle_n(v, e, 16, COS64, sign); }

/* v turned by an odd eighth, e^(sign*2pi*i*q/8) for q = 1 or 3, as one sum or difference times
 * h = sqrt(1/2) per component: forward q = 1 ((re + im)h, (im - re)h), q = 3 ((im - re)h, -(re + im)h);
 * backward q = 1 ((re - im)h, (re + im)h), q = 3 (-(re + im)h, (re - im)h). */
static inline cpx eighth_sum(cpx v, int q, int sign) {
    if (sign < 0)
        return q == 1 ? (cpx){(v.r + v.i) * H8, (v.i - v.r) * H8} : (cpx){(v.i - v.r) * H8, -(v.r + v.i) * H8};
    return q == 1 ? (cpx){(v.r - v.i) * H8, (v.r + v.i) * H8} : (cpx){-(v.r + v.i) * H8, (v.r - v.i) * H8};
}

/* The odd eighths of DFTI's 8-point FFT kernel (ipps_cFFT{fwd,inv}_8_32fc, read from its machine code): q = 1 as
 * eighth_sum, q = 3 as its q = 1 form times -h: forward ((re - im)*-h, (re + im)*-h), backward
 * ((re + im)*-h, (im - re)*-h) (where re = im, eighth_sum's (im - re)*h gives +0, this -0). */
static inline cpx fft8_eighth(cpx v, int q, int sign) {
    if (q == 1) return eighth_sum(v, 1, sign);
    return sign < 0 ? (cpx){(v.r - v.i) * -H8, (v.r + v.i) * -H8} : (cpx){(v.r + v.i) * -H8, (v.i - v.r) * -H8};
}

/* DFTI's standalone 8-point kernels: radix 2, decimation in time: E, O the 4-point DFTs of the even and
 * odd elements, X[k] = E[k] + t[k], X[k+4] = E[k] - t[k] with t = O turned by e^(sign*2pi*i*k/8): the odd
 * eighths by eighth_sum (the real kernels) or fft8_eighth (fft8: the complex one, DFTI's 8-point FFT kernel),
 * t2 = -+i*O2 exactly. (radix2_8 above is the same with the eighths as products.) */
static void radix2_8_sum(const cpx x[8], int sign, int fft8, cpx out[8]) {
    const cpx ev[4] = {x[0], x[2], x[4], x[6]}, od[4] = {x[1], x[3], x[5], x[7]};
    cpx e[4], o[4], t[4];
    dft4(ev, sign, e);
    dft4(od, sign, o);
    t[0] = o[0];
    t[1] = eighth_sum(o[1], 1, sign);
    t[2] = sign < 0 ? (cpx){o[2].i, -o[2].r} : (cpx){-o[2].i, o[2].r};
    t[3] = fft8 ? fft8_eighth(o[3], 3, sign) : eighth_sum(o[3], 3, sign);
    for (int k = 0; k < 4; k++) out[k] = cadd(e[k], t[k]), out[k + 4] = csub(e[k], t[k]);
}

static void cs_n(int e, int n, float *c, float *s);
static int ct_odd(const cpx *x, int n, int sign, cpx *out);
static inline cpx fact_twiddle(cpx v, int r, int e, int n, int sign);

/* How radix4_16 multiplies bin k2 of residue r by e^(sign*2pi*i*r*k2/16). */
enum radix16_twiddles {
    /* twiddle64: skipped where r*k2 = 0, exact quarter turns, else plain products; the odd eighths (r*k2 = 2,
     * 6) plain products with +-sqrt(1/2) (the complex kernel, and the real forward one on DFTI's threaded
     * path) */
    R16_PLAIN,
    /* the same, but the odd eighths by eighth_sum (the real kernels off the threaded path) */
    R16_EIGHTH_SUM,
    /* DFTI's Prime16 kernel (ownscDft{Fwd,Inv}_Prime16_32fc, read from its machine code: four 4-point DFTs
     * in SSE lanes, the products, four more; called directly, 6,000 zero-heavy transforms per direction give
     * its bits): every bin of residues r = 1..3 (r*k2 = 0 and the quarter turn too) multiplied by the
     * table's (c, t) = (cos, -sin) of 2pi*r*k2/16 as table_product does, float32 from double, every zero in
     * the table +0 (the Fact passes' zero sines are -0). The products by 1 and 0 change no finite value,
     * only the signs of zeros. */
    R16_PRIME16,
    /* DFTI's radix-4 FFT (owns_cRadix4{Fwd,Inv}Norm_32fc, the complex kernel of 64: gdb shows it called alone):
     * every bin of residues r = 1..3 (r*k2 = 0 and the quarter turn too) multiplied by the table's w as the
     * Fact passes multiply (fact_twiddle: +0 where the cosine is zero, the sine's zero taken as -0 in the
     * table's (cos, -sin)), here and in its last stage */
    R16_RADIX4,
    /* DFTI's 16-point FFT kernel (ipps_cFFT{fwd,inv}_16_32fc, read from its machine code: straight-line SSE, the
     * first 4-point DFTs as dft4 forms them, the products, four more): bin k2 of residue 1 (k2 = 0 too) and bins
     * 1 to 3 of residues 2 and 3 multiplied by its constants (fft_pass_twiddle); residue 0 and bin 0 of
     * residues 2 and 3 not */
    R16_FFT16,
};

/* A product of DFTI's 16- and 32-point FFT kernels (n = 16, 32): (v.re*c + v.im*b0, v.im*c + v.re*b1) with c = cos,
 * (b0, b1) = (s, -s) forward and (-s, s) backward, s = sin of 2pi*e/n, float32 from double; their constants hold +0
 * for the quarter turn's cosine and, for e = 0, b0 = b1 = +0 forward, -0 backward (so the turn by 1 is no
 * conjugate pair). */
static inline cpx fft_twiddle(cpx v, int e, int n, int sign) {
    float c, s, b0, b1;
    cs_n(e, n, &c, &s);
    c = c == 0.0f ? 0.0f : c;
    if (e == 0) b0 = b1 = sign < 0 ? 0.0f : -0.0f;
    else b0 = sign < 0 ? s : -s, b1 = -b0;
    return (cpx){v.r * c + v.i * b0, v.i * c + v.r * b1};
}

/* Bin k2 of residue r in those kernels' second stage: residue 1's bins from 0, the other residues' from 1,
 * multiplied (fft_twiddle, e = r*k2); residue 0 and bin 0 of the others left as they are. */
static inline cpx fft_pass_twiddle(cpx v, int r, int k2, int n, int sign) {
    return r == 0 || (r >= 2 && k2 == 0) ? v : fft_twiddle(v, r * k2, n, sign);
}

static inline cpx radix16_twiddle(cpx v, int r, int k2, int how, int sign) {
    if (how == R16_PRIME16) {
        if (r == 0) return v;
        float c, s;
        cs_n(r * k2, 16, &c, &s);
        return table_product(v, c == 0.0f ? 0.0f : c, s == 0.0f ? 0.0f : -s, sign);
    }
    if (how == R16_RADIX4) return fact_twiddle(v, r, r * k2, 16, sign);
    if (how == R16_FFT16) return fft_pass_twiddle(v, r, k2, 16, sign);
    const int e = 4 * r * k2; /* in 64ths */
    return how == R16_EIGHTH_SUM && (e == 8 || e == 24) ? eighth_sum(v, e / 8, sign) : twiddle64(v, e, sign);
}

/* DFTI's 16-point kernels: radix 4 x 4, decimation in time: the 4-point DFTs of x[4m + r] (r = 0..3),
 * bin k2 of residue r times e^(sign*2pi*i*r*k2/16) as ``how`` says (radix16_twiddle), then the 4-point DFTs
 * over r: X[k2 + 4*k1]. */
static void radix4_16(const cpx x[16], int sign, int how, cpx out[16]) {
    cpx y[4][4];
    for (int r = 0; r < 4; r++) {
        const cpx in[4] = {x[r], x[4 + r], x[8 + r], x[12 + r]};
        dft4(in, sign, y[r]);
    }
    for (int k2 = 0; k2 < 4; k2++) {
        cpx t[4], o[4];
        for (int r = 0; r < 4; r++) t[r] = radix16_twiddle(y[r][k2], r, k2, how, sign);
        dft4(t, sign, o);
        for (int k1 = 0; k1 < 4; k1++) out[k2 + 4 * k1] = o[k1];
    }
}

/* DFTI's 32-point FFT kernel (ipps_cFFT{fwd,inv}_32_32fc: fft/ifft of 32, and inside rfft and irfft of 64):
 * Cooley-Tukey 8 x 4, decimation in time: the 4-point DFTs of x[8m + r] (r = 0..7), bin k2 of residue r times
 * e^(sign*2pi*i*r*k2/32) as its 16-point sibling multiplies (fft_pass_twiddle: residue 1's bin 0 too, the
 * other residues' bins 1 to 3; zero-heavy rows: 3,200 per direction exact, 29 and 138 other with twiddle64's
 * skipped, exact and plain turns), then DFTI's Prime8 over r: X[k2 + 4*k1]. */
static void ct32(const cpx x[32], int sign, cpx out[32]) {
    cpx y[8][4];
    for (int r = 0; r < 8; r++) {
        const cpx in[4] = {x[r], x[8 + r], x[16 + r], x[24 + r]};
        dft4(in, sign, y[r]);
    }
    for (int k2 = 0; k2 < 4; k2++) {
        cpx t[8], o[8];
        for (int r = 0; r < 8; r++) t[r] = fft_pass_twiddle(y[r][k2], r, k2, 32, sign);
        prime8(t, sign, o);
        for (int k1 = 0; k1 < 8; k1++) out[k2 + 4 * k1] = o[k1];
    }
}

/* DFTI's 64-point complex kernels: Cooley-Tukey 4 x 16, decimation in time: the 16-point DFTs of x[4m + r]
 * (radix4_16; r = 0..3), bin k2 of residue r times e^(sign*2pi*i*r*k2/64), then the 4-point DFTs over r:
 * X[k2 + 16*k1]. how: R16_PLAIN (twiddle64's skipped, exact and plain products, both stages: 64 inside the real
 * forward kernel on DFTI's threaded path), R16_RADIX4 (fact_twiddle's table products on every bin
 * of residues 1 to 3, both stages: the standalone complex kernel, whose zero signs that gives: 3,200 zero-heavy
 * rows per direction exact, 289 and 293 of 3,000 with R16_PLAIN's), or R16_PRIME16 (DFTI's Prime16, then its
 * Fact4 pass's fact_twiddle: 64 inside ct_odd, e.g. 192's PrimeFact plan). */
static void ct64(const cpx x[64], int sign, int how, cpx out[64]) {
    cpx y[4][16];
    for (int r = 0; r < 4; r++) {
        cpx in[16];
        for (int m = 0; m < 16; m++) in[m] = x[4 * m + r];
        radix4_16(in, sign, how, y[r]);
    }
    for (int k2 = 0; k2 < 16; k2++) {
        cpx t[4], o[4];
        for (int r = 0; r < 4; r++)
            t[r] = how != R16_PLAIN ? fact_twiddle(y[r][k2], r, r * k2, 64, sign) : twiddle64(y[r][k2], r * k2, sign);
        dft4(t, sign, o);
        for (int k1 = 0; k1 < 4; k1++) out[k2 + 16 * k1] = o[k1];
    }
}

/* cos and sin of 2pi*k/24 from the tables (k = 0..11). */
static void cs24(int k, float *c, float *s) { *c = COS24[k], *s = SIN24[k]; }


/* cos and sin of 2pi*k/n from a table function, or (cs NULL) from cs_n. */
static void cs_at(void (*cs)(int, float *, float *), int k, int n, float *c, float *s) {
    if (cs) cs(k, c, s);
    else cs_n(k, n, c, s);
}

/* The real forward kernels' recombination (ownsrDftFwdRecombine_32f, N = 2m), from Z, the m-point complex
 * forward transform of z[j] = x[2j] + i*x[2j+1]. X[0] = Z[0].re + Z[0].im, X[m] = Z[0].re - Z[0].im (imaginary
 * parts +0). Then bins k = 1, 2, ... and their mirrors m-k in one pass (k up to m/2; for m = 0 mod 4 the
 * mirror's store of k = m/2 last), with (p, q) = (c/2, (1 + -s)/2), c, s = cos and sin of 2pi*k/N:
 * B = (Z[k].re - Z[m-k].re, Z[k].im + Z[m-k].im), U = (p*B.im + q*B.re, -p*B.re + q*B.im),
 * X[k] = (Z[m-k].re + U.re, -Z[m-k].im + U.im), X[m-k] = (Z[k].re - U.re, -Z[k].im + U.im);
 * for m = 2 mod 4, X[m/2] = conj(Z[m/2]). The mirror's zero signs come from bin k's U. */
static void recombine_fwd(const cpx *y, int m, void (*cs)(int, float *, float *), float *dst) {
    dst[0] = y[0].r + y[0].i, dst[1] = 0.0f;
    dst[2 * m] = y[0].r - y[0].i, dst[2 * m + 1] = 0.0f;
    const int last = m % 4 == 2 ? m / 2 - 1 : m / 2;
    for (int k = 1; k <= last; k++) {
        const cpx zk = y[k], zn = y[m - k];
        float c, s;
        cs_at(cs, k, 2 * m, &c, &s);
        const float q = (1.0f + -s) * 0.5f, p = c * 0.5f;
        const float br = zk.r - zn.r, bi = zk.i + zn.i;
        const float ur = p * bi + q * br, ui = -(p * br) + q * bi;
        dst[2 * k] = zn.r + ur, dst[2 * k + 1] = -zn.i + ui;
        dst[2 * (m - k)] = zk.r - ur, dst[2 * (m - k) + 1] = -zk.i + ui;
    }
    if (m % 4 == 2) dst[m] = y[m / 2].r, dst[m + 1] = -y[m / 2].i;
}

/* The real backward kernels' recombination (ownsrDftInvRecombine_32f, N = 2m) of the onesided row X into z,
 * whose m-point complex backward transform gives x[2j] = z[j].re, x[2j+1] = z[j].im:
 * z[0] = (X[0].re + X[m].re, X[0].re - X[m].re); then bins k = 1, 2, ... and their mirrors m-k in one pass
 * (k up to m/2; for m = 0 mod 4 the mirror's store of k = m/2 last), with (c, t) = (cos, -sin) of 2pi*k/N
 * as its table holds them (the quarter turn's cosine +0: read from 480's table, dumped with gdb):
 * A = (X[k].re + X[m-k].re, X[k].im - X[m-k].im), B = (X[k].re - X[m-k].re, X[k].im + X[m-k].im),
 * T = (t*B.re - c*B.im, t*B.im + c*B.re), z[k] = A + T, z[m-k] = (A.re - T.re, -A.im + T.im);
 * for m = 2 mod 4, z[m/2] = (2*X[m/2].re, -2*X[m/2].im). */
static void recombine_bwd(const float *row, int m, void (*cs)(int, float *, float *), cpx *z) {
    z[0] = (cpx){row[0] + row[2 * m], row[0] - row[2 * m]};
    const int last = m % 4 == 2 ? m / 2 - 1 : m / 2;
    for (int k = 1; k <= last; k++) {
        const cpx xk = {row[2 * k], row[2 * k + 1]}, xn = {row[2 * (m - k)], row[2 * (m - k) + 1]};
        float c, s;
        cs_at(cs, k, 2 * m, &c, &s);
        const float t = -s;
        c = c == 0.0f ? 0.0f : c;
        const float ar = xk.r + xn.r, ai = xk.i - xn.i, br = xk.r - xn.r, bi = xk.i + xn.i;
        const float tr = t * br - c * bi, ti = t * bi + c * br;
        z[k] = (cpx){ar + tr, ai + ti};
        z[m - k] = (cpx){ar - tr, -ai + ti};
    }
    if (m % 4 == 2) z[m / 2] = (cpx){2.0f * row[m], -2.0f * row[m + 1]};
}

/* DFTI's 32-point DFT inside its 96-, 160- and 224-point kernels (not its 32-point kernel ct32): Cooley-Tukey
 * 4 x 8, decimation in time: prime8 of x[4m + r] (r = 0..3), bin k1 of residue r times e^(sign*2pi*i*r*k1/32)
 * (fact_twiddle: the table's products on every bin of residues 1 to 3, as the Fact4 pass; with twiddle64's
 * skipped and exact ones, fft of 224 on 3,000 zero-heavy rows gave 143 other zero signs, with these none),
 * then the 4-point DFTs over r: X[k1 + 8*k2]. */
static void ct32_4x8(const cpx x[32], int sign, cpx out[32]) {
    cpx y[4][8];
    for (int r = 0; r < 4; r++) {
        cpx in[8];
        for (int m = 0; m < 8; m++) in[m] = x[4 * m + r];
        prime8(in, sign, y[r]);
    }
    for (int k1 = 0; k1 < 8; k1++) {
        cpx t[4], o[4];
        for (int r = 0; r < 4; r++) t[r] = fact_twiddle(y[r][k1], r, r * k1, 32, sign);
        dft4(t, sign, o);
        for (int k2 = 0; k2 < 4; k2++) out[k1 + 8 * k2] = o[k2];
    }
}

/* A transform of one row (length n) for row_split: x in, out (n complex). */
typedef void (*transform_fn)(const cpx *x, int n, int sign, cpx *out);

/* One row of the complex and real kernels built on an N/2-point complex transform: c2c full(n); r2c the
 * N/2-point complex transform half of the even/odd pairs z[j] = x[2j] + i*x[2j+1], then recombine_fwd;
 * c2r recombine_bwd, then the N/2-point backward transform half (the 24-point real kernels' passes with
 * the turns cs of 2pi*k/N), on every path. */
static void row_split(int kind, int n, const float *row, float *dst, int sign, transform_fn full, transform_fn half,
                      void (*cs)(int, float *, float *)) {
    cpx x[1024], y[1024];
    const int h = n / 2;
    if (kind == 0) {
        for (int j = 0; j < n; j++) x[j] = (cpx){row[2 * j], row[2 * j + 1]};
        full(x, n, sign, y);
        for (int j = 0; j < n; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
        return;
    }
    if (kind == 1) {
        for (int j = 0; j < h; j++) x[j] = (cpx){row[2 * j], row[2 * j + 1]};
        half(x, h, -1, y);
        recombine_fwd(y, h, cs, dst);
        return;
    }
    recombine_bwd(row, h, cs, x);
    half(x, h, 1, y);
    for (int j = 0; j < h; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
}

/* N = 48, 96, 192 (ct_odd: 3 x 16, 3 x (4 x 8), 3 x (4 x 16)) and their halves 24, 48 and 96 (ct_odd: 3 x 8,
 * 3 x 16, 3 x (4 x 8): the real kernels of 192 run 96's PrimeFact plan, Prime8, Fact4, Fact3, as gdb shows). */
static void full3(const cpx *x, int n, int sign, cpx *out) {
    (void)ct_odd(x, n, sign, out);
}

/* DFTI's 5-point DFT (sign -1 forward, +1 backward), as measured at N = 5 (1,000 of 1,000 rows):
 * t1 = a1 + a4, t2 = a2 + a3, t3 = a1 - a4, t4 = a2 - a3, X0 = a0 + (t1 + t2),
 * m1 = a0 + (t1*C1 + t2*C2), m2 = a0 + (t1*C2 + t2*C1), w1 = t3*-S1 + t4*-S2, w2 = t3*-S2 + t4*S1,
 * X1, X4 = m1 +- i*w1, X2, X3 = m2 +- i*w2 (forward; backward the other way), C_k, S_k the float32 cosine
 * and sine of 2pi*k/5: the sines of -2pi*k/5, as DFTI's Fact5 pass multiplies, which decide the signs of
 * zero w (zero-heavy rows of fft and ifft of 240: 7,000 of 7,000 exact each way, 3 and 2 differ with
 * v1 = t3*S1 + t4*S2 and X1 = m1 -+ i*v1; 1,139 and 1,141 of 1,200 with v2 = t3*S2 - t4*S1 too). */
static void dft5(const cpx a[5], int sign, cpx out[5]) {
    const float c1 = 0x1.3c6ef4p-2f, c2 = -0x1.9e377ap-1f, s1 = 0x1.e6f0e2p-1f, s2 = 0x1.2cf23p-1f;
    const cpx t1 = cadd(a[1], a[4]), t2 = cadd(a[2], a[3]), t3 = csub(a[1], a[4]), t4 = csub(a[2], a[3]);
    out[0] = cadd(a[0], cadd(t1, t2));
    const cpx m1 = cadd(a[0], cadd(cscale(t1, c1), cscale(t2, c2)));
    const cpx m2 = cadd(a[0], cadd(cscale(t1, c2), cscale(t2, c1)));
    const cpx w1 = cadd(cscale(t3, -s1), cscale(t4, -s2)), w2 = cadd(cscale(t3, -s2), cscale(t4, s1));
    out[1] = cadd_rot(m1, w1, -sign);
    out[4] = cadd_rot(m1, w1, sign);
    out[2] = cadd_rot(m2, w2, -sign);
    out[3] = cadd_rot(m2, w2, sign);
}

/* The 10-point complex transform inside DFTI's real 20-point kernels: prime-factor (Good-Thomas) 5 x 2, no
 * twiddles: input n = (2*n1 + 5*n2) mod 10; the two 5-point DFTs over n1 first (dft5), then the 2-point
 * DFTs (a0 + a1, a0 - a1) over n2; output bin (6*k1 + 5*k2) mod 10. */
static void pfa10(const cpx x[10], int sign, cpx out[10]) {
    cpx y[2][5];
    for (int n2 = 0; n2 < 2; n2++) {
        cpx in[5];
        for (int n1 = 0; n1 < 5; n1++) in[n1] = x[(2 * n1 + 5 * n2) % 10];
        dft5(in, sign, y[n2]);
    }
    for (int k1 = 0; k1 < 5; k1++) {
        out[(6 * k1) % 10] = cadd(y[0][k1], y[1][k1]);
        out[(6 * k1 + 5) % 10] = csub(y[0][k1], y[1][k1]);
    }
}

/* N = 20, 40, 80 (ct_odd: 5 x 4, 5 x 8, 5 x 16; 20 is DFTI's PrimeFact plan Prime4, Fact5, as gdb shows, its
 * Prime4 the 4-point DFT as dft4 forms it, read from its machine code); their halves 10 (pfa10), 20 and 40. */
static void full5(const cpx *x, int n, int sign, cpx *out) { (void)ct_odd(x, n, sign, out); }
static void half5(const cpx *x, int h, int sign, cpx *out) {
    if (h == 10) pfa10(x, sign, out);
    else full5(x, h, sign, out);
}

/* DFTI's 7-point DFT (sign -1 forward, +1 backward), as measured at N = 7 (1,000 of 1,000 rows):
 * t_j = a_j + a_{7-j}, u_j = a_j - a_{7-j} (j = 1..3), X0 = a0 + ((t1 + t2) + t3), and for k = 1..3
 * m = a0 + ((t1*C_k + t2*C_2k) + t3*C_3k), w = (u1*S_k + u2*S_2k) + u3*S_3k, X_k, X_{7-k} = m +- i*w
 * (forward; backward the other way), C_k, S_k the float32 cosine and sine of -2pi*k/7: the sines of the
 * forward turn, as dft5 takes them, which decide the signs of zero w (zero-heavy rows of fft and ifft of
 * 112: with the sines of +2pi*k/7 and X_k = m -+ i*v, 24 and 19 of 3,000 differ; with these, none). */
static void dft7(const cpx a[7], int sign, cpx out[7]) {
    cpx t[4], u[4];
    for (int j = 1; j <= 3; j++) t[j] = cadd(a[j], a[7 - j]), u[j] = csub(a[j], a[7 - j]);
    out[0] = cadd(a[0], cadd(cadd(t[1], t[2]), t[3]));
    for (int k = 1; k <= 3; k++) {
        float c[4], sn[4];
        for (int j = 1; j <= 3; j++) {
            double sd, cd; /* dmath.h's correctly rounded sin and cos: never the host's libm */
            dm_sincos(2.0 * FFT_PI * ((j * k) % 7) / 7, &sd, &cd);
            c[j] = (float)cd, sn[j] = -(float)sd;
        }
        const cpx m = cadd(a[0], cadd(cadd(cscale(t[1], c[1]), cscale(t[2], c[2])), cscale(t[3], c[3])));
        const cpx w = cadd(cadd(cscale(u[1], sn[1]), cscale(u[2], sn[2])), cscale(u[3], sn[3]));
        out[k] = cadd_rot(m, w, -sign);
        out[7 - k] = cadd_rot(m, w, sign);
    }
}

/* cos x by dmath.h (correctly rounded, as glibc's: the host's libm is never called). */
static double dm_cos_of(double x) {
    double s, c;
    dm_sincos(x, &s, &c);
    return c;
}

/* cos and sin of 2pi*e/n (n a multiple of 4) as float32 from double, by quadrant from the first quarter
 * turn (cos(pi/2) exactly 0), as the tables above hold them. */
static void cs_n(int e, int n, float *c, float *s) {
    const int q4 = n / 4;
    e %= n;
    if (e < 0) e += n;
    const int q = e / q4, r = e % q4;
    const float a = r == 0 ? 1.0f : (float)dm_cos_of(2.0 * FFT_PI * r / n);
    const float b = r == 0 ? 0.0f : (float)dm_cos_of(2.0 * FFT_PI * (q4 - r) / n);
    const float cv[4] = {a, -b, -a, b}, sv[4] = {b, a, -b, -a};
    *c = cv[q], *s = sv[q];
}

/* Residue r's bin times e^(sign*2pi*i*e/n) in DFTI's Fact passes (read from ownscDft{Fwd,Inv}_Fact3/4/5_32fc
 * and their tables): every residue but 0 is multiplied, on every bin (k1 = 0 and the quarter turns too), by
 * the table's (c, t) = (cos, -sin) of 2pi*e/n, float32 from double, +0 where the cosine is zero and -0 where
 * the sine is: forward (v.re*c - v.im*t, v.re*t + v.im*c), backward (v.re*c + v.im*t, v.im*c - v.re*t).
 * The products by 1 and 0 change no finite value, only the signs of zeros. */
static inline cpx fact_twiddle(cpx v, int r, int e, int n, int sign) {
    if (r == 0) return v;
    float c, s;
    cs_n(e, n, &c, &s);
    return table_product(v, c == 0.0f ? 0.0f : c, s == 0.0f ? -0.0f : -s, sign);
}

/* DFTI's complex kernels of N = p*m with an odd prime p (7, then 5, then 3: the largest first) and m
 * modelled: Cooley-Tukey p x m, decimation in time: the m-point DFTs of x[p*j + r] (m a power of two: 4 dft4
 * (DFTI's Prime4), 8 prime8 for r < p-1 and radix2_8 for r = p-1, 16 radix4_16's Prime16, 32 ct32_4x8, 64 ct64
 * as Fact4 over Prime16 (192's plan, as gdb shows its calls); else this kernel again), bin k1 of residue r times
 * e^(sign*2pi*i*r*k1/N) (fact_twiddle: the table's products, every bin of r >= 1), then the p-point DFTs over r:
 * X[k1 + m*k2]. Measured for 144 (3 x 48), 168 (7 x 24), 336 (7 x 48), 720 (5 x 144; DFTI's plan Prime16, Fact3,
 * Fact3, Fact5), 320 and 448 (5 and 7 x (4 x 16): Prime16, Fact4, Fact5 or Fact7), 20 (5 x 4: Prime4, Fact5);
 * DFTI's 24-, 40-, 48- and 80-point kernels (3 x 8, 5 x 8, 3 x 16, 5 x 16) give its zero signs (zero-heavy rows:
 * with ct24's, ct5m's and a 3 x m kernel's skipped twiddles, exact quarter turns and plain 16-point twiddles, 207
 * to 390 of 3,000 differ per length and direction; with these, none). Returns -1 for a length it does not cover. */
static int ct_odd(const cpx *x, int n, int sign, cpx *out) {
    const int p = n % 7 == 0 ? 7 : n % 5 == 0 ? 5 : n % 3 == 0 ? 3 : 0, m = p ? n / p : 0;
    if (!p || n > 720 || n % 4) return -1;
    cpx y[720], in[240], o[7], t[7];
    for (int r = 0; r < p; r++) {
        cpx *yr = y + r * m;
        for (int j = 0; j < m; j++) in[j] = x[p * j + r];
        if (m == 4) dft4(in, sign, yr);
        else if (m == 8 && r < p - 1) prime8(in, sign, yr);
        else if (m == 8) radix2_8(in, sign, yr);
        else if (m == 16) radix4_16(in, sign, R16_PRIME16, yr);
        else if (m == 32) ct32_4x8(in, sign, yr);
        else if (m == 64) ct64(in, sign, R16_PRIME16, yr);
        else if (ct_odd(in, m, sign, yr) != 0) return -1;
    }
    for (int k1 = 0; k1 < m; k1++) {
        for (int r = 0; r < p; r++) {
            t[r] = fact_twiddle(y[r * m + k1], r, (r * k1) % n, n, sign);
        }
        if (p == 3) dft3(t[0], t[1], t[2], sign, 0, 1.0f, o);
        else if (p == 5) dft5(t, sign, o);
        else dft7(t, sign, o);
        for (int k2 = 0; k2 < p; k2++) out[k1 + m * k2] = o[k2];
    }
    return 0;
}

/* DFTI's complex kernel of N = 480 (its PrimeFact plan, as gdb shows the calls: Prime8 over all 60 residues,
 * then Fact3 (m = 8), Fact4 (m = 24), Fact5 (m = 96)): Cooley-Tukey 5 x (4 x (3 x 8)), decimation in time,
 * every stage in ct_odd's order: the m-point DFTs of x[p*j + r] (innermost the 8-point DFTs of x[60*j + r]:
 * prime8, but radix2_8 with products for the last residue of the 3-point pass, last = 1, as at 24), bin
 * k1 of residue r times e^(sign*2pi*i*r*k1/n) (fact_twiddle), then the p-point DFT over r (dft3, dft4,
 * dft5): X[k1 + m*k2]. plan: the factors outermost first, 8 last. */
static void ct_plan(const cpx *x, int n, const int *plan, int sign, int last, cpx *out) {
    const int p = plan[0], m = n / p;
    if (p == 8 && n == 8) {
        if (last) radix2_8(x, sign, out);
        else prime8(x, sign, out);
        return;
    }
    cpx y[480], in[96], o[7], t[7];
    for (int r = 0; r < p; r++) {
        for (int j = 0; j < m; j++) in[j] = x[p * j + r];
        ct_plan(in, m, plan + 1, sign, r == p - 1, y + r * m);
    }
    for (int k1 = 0; k1 < m; k1++) {
        for (int r = 0; r < p; r++) {
            t[r] = fact_twiddle(y[r * m + k1], r, (r * k1) % n, n, sign);
        }
        if (p == 3) dft3(t[0], t[1], t[2], sign, 0, 1.0f, o);
        else if (p == 4) dft4(t, sign, o);
        else dft5(t, sign, o);
        for (int k2 = 0; k2 < p; k2++) out[k1 + m * k2] = o[k2];
    }
}

static const int PLAN480[4] = {5, 4, 3, 8};
static void full480(const cpx *x, int n, int sign, cpx *out) { (void)n, ct_plan(x, 480, PLAN480, sign, 0, out); }

/* ct_odd as a row_split transform (the lengths fft_mkl_def passes are covered). */
static void full_odd(const cpx *x, int n, int sign, cpx *out) { (void)ct_odd(x, n, sign, out); }

/* The real forward kernels of N = 2m = 32 and 64 off DFTI's threaded path: z[j] = x[2j] + i*x[2j+1], Z the
 * m-point complex forward transform (DFTI's 16- and 32-point FFT kernels: radix4_16 with R16_FFT16, ct32), then
 * recombine_fwd (ownsrDftFwdRecombine's order is owns_cRealRecombine_32f's, read from its machine code). */
static void rdft_pow2_fwd(const float *row, int m, float *dst) {
    cpx z[32], y[32];
    for (int j = 0; j < m; j++) z[j] = (cpx){row[2 * j], row[2 * j + 1]};
    if (m == 16) radix4_16(z, -1, R16_FFT16, y);
    else ct32(z, -1, y);
    recombine_fwd(y, m, m == 16 ? cs32 : cs64, dst);
}

/* DFTI's radix-8 butterfly inside its radix-4 FFT (owns_cRadix4{Fwd,Inv}Norm_32fc, read from its machine code:
 * SSE lanes of four transforms, real and imaginary parts apart), of the twiddled T0..T7 (sign -1 forward, +1
 * backward): s04 = T0 + T4, d04 = T0 - T4, and so s26, d26, s15, d15, s37, d37; X0, X4 = (s04 + s26) +- (s15 + s37);
 * X2, X6 = (s04 - s26) -+ i*(s15 - s37) (forward; backward the other way, as cadd_rot); P, Q = d04 -+ i*d26,
 * D1, D3 = d15 -+ i*d37; the odd eighths as products first, then their sum: A = D1.re*h, B = D1.im*h (h its
 * COS_1_8, 0x1.6a09e8p-1: sqrt(1/2) rounded up, one ulp above H8, as its table holds it), U = (A + B, B - A) forward, (A - B, A + B) backward; Dp = D3.re*-h, Ep = D3.im*-h, V = (Dp - Ep,
 * Ep + Dp) forward, (Dp + Ep, Ep - Dp) backward; X1, X5 = P +- U, X3, X7 = Q +- V. */
static void radix8_r4(const cpx t[8], int sign, cpx out[8]) {
    const float h = 0x1.6a09e8p-1f;
    const cpx s04 = cadd(t[0], t[4]), d04 = csub(t[0], t[4]), s26 = cadd(t[2], t[6]), d26 = csub(t[2], t[6]);
    const cpx s15 = cadd(t[1], t[5]), d15 = csub(t[1], t[5]), s37 = cadd(t[3], t[7]), d37 = csub(t[3], t[7]);
    const cpx a = cadd(s04, s26), b = cadd(s15, s37), c = csub(s04, s26), e = csub(s15, s37);
    out[0] = cadd(a, b);
    out[4] = csub(a, b);
    out[2] = cadd_rot(c, e, sign);
    out[6] = cadd_rot(c, e, -sign);
    const cpx p = cadd_rot(d04, d26, sign), q = cadd_rot(d04, d26, -sign);
    const cpx d1 = cadd_rot(d15, d37, sign), d3 = cadd_rot(d15, d37, -sign);
    const float a1 = d1.r * h, b1 = d1.i * h, dp = d3.r * -h, ep = d3.i * -h;
    const cpx u = sign < 0 ? (cpx){a1 + b1, b1 - a1} : (cpx){a1 - b1, a1 + b1};
    const cpx v = sign < 0 ? (cpx){dp - ep, ep + dp} : (cpx){dp + ep, ep - dp};
    out[1] = cadd(p, u);
    out[5] = csub(p, u);
    out[3] = cadd(q, v);
    out[7] = csub(q, v);
}

/* The stages of DFTI's radix-4 FFT per length, first (innermost) to last, as its machine code branches on N: a
 * 4-point pass without twiddles, radix-4 passes, then radix-8 passes where log2(N) calls for them, the last one of 4
 * or 8 points. */
static int radix4_plan(int n, int plan[6]) {
    switch (n) {
    case 64: plan[0] = 4, plan[1] = 4, plan[2] = 4; return 3;
    case 128: plan[0] = 4, plan[1] = 4, plan[2] = 8; return 3;
    case 256: plan[0] = 4, plan[1] = 8, plan[2] = 8; return 3;
    case 512: plan[0] = 4, plan[1] = 4, plan[2] = 4, plan[3] = 8; return 4;
    case 1024: plan[0] = 4, plan[1] = 4, plan[2] = 8, plan[3] = 8; return 4;
    default: return 0;
    }
}

/* DFTI's radix-4 FFT (owns_cRadix4{Fwd,Inv}Norm_32fc: fft/ifft of 64 to 1024, and the halves of rfft/irfft of 128
 * to 1024): Cooley-Tukey decimation in time over the plan's stages (radix4_plan): the last stage's p-point DFTs
 * over residues r of the (n/p)-point transforms of x[p*j + r] (the earlier stages, likewise), bin k of residue r
 * times e^(sign*2pi*i*r*k/n) as the Fact passes multiply (fact_twiddle: the table's products on every bin of
 * residues 1 and up), then dft4 or radix8_r4 over r: X[k + (n/p)*q]. */
static void radix4_fft(const cpx *x, int n, const int *plan, int stages, int sign, cpx *out) {
    const int p = plan[stages - 1], m = n / p;
    if (stages == 1) {
        if (p == 4) dft4(x, sign, out);
        else radix8_r4(x, sign, out);
        return;
    }
    cpx y[1024], in[256], t[8], o[8];
    for (int r = 0; r < p; r++) {
        for (int j = 0; j < m; j++) in[j] = x[p * j + r];
        radix4_fft(in, m, plan, stages - 1, sign, y + r * m);
    }
    for (int k = 0; k < m; k++) {
        for (int r = 0; r < p; r++) t[r] = fact_twiddle(y[r * m + k], r, r * k, n, sign);
        if (p == 4) dft4(t, sign, o);
        else radix8_r4(t, sign, o);
        for (int q = 0; q < p; q++) out[k + m * q] = o[q];
    }
}

/* radix4_fft as a row_split transform (N = 64 to 1024, powers of two). */
static void full_r4(const cpx *x, int n, int sign, cpx *out) {
    int plan[6];
    radix4_fft(x, n, plan, radix4_plan(n, plan), sign, out);
}

static void scale_after(float *v, int64_t count, float s) {
    for (int64_t j = 0; j < count; j++) v[j] = v[j] * s;
}

/* The power-of-two kernels (N = 8, 16, 32, 64: c2c, r2c, c2r) of one row. threaded_rows: DFTI's threaded
 * path over contiguous rows (2+ threads, 2+ rows), where the real forward kernels of 8 and 16 take the
 * odd eighths as products, and that of 64 is the complex 64-point kernel of the row with +0 imaginary
 * parts (fft.py refuses c2r, and r2c of 32, there). */
static void pow2_row(int kind, int n, const float *row, float *dst, int sign, int threaded_rows) {
    cpx x[64], y[64];
    if (n == 64 && kind == 1 && threaded_rows) { /* the complex kernel of the row with +0 imaginary parts */
        for (int j = 0; j < n; j++) x[j] = (cpx){row[j], 0.0f};
        ct64(x, -1, R16_PLAIN, y);
        for (int k = 0; k <= n / 2; k++) dst[2 * k] = y[k].r, dst[2 * k + 1] = y[k].i;
        return;
    }
    if (n >= 32) {
        const int m = n / 2;
        if (kind == 1) {
            rdft_pow2_fwd(row, m, dst);
        } else if (kind == 2) { /* the backward recombination, then the m-point complex backward transform */
            recombine_bwd(row, m, m == 16 ? cs32 : cs64, x);
            if (m == 16) radix4_16(x, 1, R16_FFT16, y);
            else ct32(x, 1, y);
            for (int j = 0; j < m; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
        } else {
            for (int j = 0; j < n; j++) x[j] = (cpx){row[2 * j], row[2 * j + 1]};
            if (n == 32) ct32(x, sign, y);
            else ct64(x, sign, R16_RADIX4, y);
            for (int j = 0; j < n; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
        }
        return;
    }
    if (kind == 0) {
        for (int j = 0; j < n; j++) x[j] = (cpx){row[2 * j], row[2 * j + 1]};
    } else if (kind == 1) { /* the real row as complex with +0 imaginary parts */
        for (int j = 0; j < n; j++) x[j] = (cpx){row[j], 0.0f};
        sign = -1;
    } else { /* the Hermitian row; the imaginary parts of bins 0 and N/2 are not read */
        x[0] = (cpx){row[0], 0.0f};
        x[n / 2] = (cpx){row[n], 0.0f};
        for (int k = 1; k < n / 2; k++) {
            x[k] = (cpx){row[2 * k], row[2 * k + 1]};
            x[n - k] = (cpx){row[2 * k], -row[2 * k + 1]};
        }
        sign = 1;
    }
    const int sum = kind != 0 && !threaded_rows; /* the real kernels off the threaded path */
    if (n == 8) {
        if (kind == 0 || sum) radix2_8_sum(x, sign, kind == 0, y);
        else radix2_8(x, sign, y);
    } else {
        radix4_16(x, sign, kind == 0 ? R16_FFT16 : sum ? R16_EIGHTH_SUM : R16_PLAIN, y);
    }
    if (kind == 0) {
        for (int j = 0; j < n; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
    } else if (kind == 1) {
        for (int k = 0; k <= n / 2; k++) dst[2 * k] = y[k].r, dst[2 * k + 1] = y[k].i;
    } else {
        for (int j = 0; j < n; j++) dst[j] = y[j].r;
    }
}

/* kind: 0 c2c, 1 r2c, 2 c2r; n: 8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 192, 480, 128 to 1024 (powers of two) or
 * ct_odd's (fft.py's LENGTHS);
 * sign: c2c's -1 forward, +1 backward; scale: DFTI's scale (1 for none); folded: the real 12-point
 * kernels' scaled variant (1/N only); threaded_rows: DFTI's threaded path over contiguous rows, or a
 * 1/sqrt(N) scale (pow2_row). 0, or -1 for an unmodelled (kind, n). */
int fft_mkl_def(int kind, int n, int64_t batch, const float *in, float *out, int sign, float scale, int folded,
                int threaded_rows) {
    const int scaled = scale != 1.0f;
    const int fold = scaled && folded && n == 12 && kind != 0;
    /* ct_odd's lengths (and 480's plan): a multiple of 4 up to 720 with an odd prime 3, 5 or 7 whose
     * factors ct_odd covers; the real kernels also need the half's (fft.py names those measured) */
    const int odd = n != 12 && n != 24 && n != 20 && n != 40 && n != 48 && n != 80 && n != 96 && n != 192 &&
                    n % 4 == 0 && n <= 720 && (n % 3 == 0 || n % 5 == 0 || n % 7 == 0) &&
                    (kind == 0 || ((n / 2) % 4 == 0 && ((n / 2) % 3 == 0 || (n / 2) % 5 == 0 || (n / 2) % 7 == 0)));
    const int r4 = n == 128 || n == 256 || n == 512 || n == 1024;
    if (n == 8 || n == 16 || n == 20 || n == 32 || n == 40 || n == 48 || n == 64 || n == 80 || n == 96 || n == 192 ||
        odd || r4) {
        const int64_t half = n / 2 + 1;
        const int64_t in_len = kind == 0 ? 2 * n : kind == 1 ? n : 2 * half;
        const int64_t out_len = kind == 0 ? 2 * n : kind == 1 ? 2 * half : n;
        for (int64_t b = 0; b < batch; b++) {
            if (n == 48 || n == 96 || n == 192)
                row_split(kind, n, in + b * in_len, out + b * out_len, sign, full3, full3,
                          n == 48 ? cs48 : n == 96 ? cs96 : cs192);
            else if (n == 20 || n == 40 || n == 80)
                row_split(kind, n, in + b * in_len, out + b * out_len, sign, full5, half5,
                          n == 20 ? cs20 : n == 40 ? cs40 : cs80);
            else if (r4)
                row_split(kind, n, in + b * in_len, out + b * out_len, sign, full_r4, full_r4, NULL);
            else if (odd)
                row_split(kind, n, in + b * in_len, out + b * out_len, sign, n == 480 ? full480 : full_odd, full_odd,
                          NULL);
            else pow2_row(kind, n, in + b * in_len, out + b * out_len, sign, threaded_rows);
            if (scaled) scale_after(out + b * out_len, out_len, scale);
        }
        return 0;
    }
    if (n != 12 && n != 24) return -1;
    const int half = n / 2 + 1;
    for (int64_t b = 0; b < batch; b++) {
        cpx x[24], y[24];
        if (kind == 0) {
            const float *row = in + b * 2 * n;
            float *dst = out + b * 2 * n;
            for (int j = 0; j < n; j++) x[j] = (cpx){row[2 * j], row[2 * j + 1]};
            if (n == 12) pfa12(x, sign, 0, 1.0f, y);
            else (void)ct_odd(x, 24, sign, y);
            for (int j = 0; j < n; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
            if (scaled) scale_after(dst, 2 * n, scale);
        } else if (kind == 1) {
            const float *row = in + b * n;
            float *dst = out + b * 2 * half;
            if (n == 12) {
                rdft12_fwd(row, fold, scale, dst);
            } else {
                for (int j = 0; j < 12; j++) x[j] = (cpx){row[2 * j], row[2 * j + 1]};
                pfa12(x, -1, 0, 1.0f, y);
                recombine_fwd(y, 12, cs24, dst);
            }
            if (scaled && !fold) scale_after(dst, 2 * half, scale);
        } else {
            const float *row = in + b * 2 * half;
            float *dst = out + b * n;
            if (n == 12) {
                x[0] = (cpx){row[0], 0.0f};
                x[6] = (cpx){row[12], 0.0f};
                for (int k = 1; k < 6; k++) {
                    x[k] = (cpx){row[2 * k], row[2 * k + 1]};
                    x[12 - k] = (cpx){row[2 * k], -row[2 * k + 1]};
                }
                pfa12(x, 1, fold, scale, y);
                for (int j = 0; j < 12; j++) dst[j] = y[j].r;
            } else {
                recombine_bwd(row, 12, cs24, x);
                pfa12(x, 1, 0, 1.0f, y);
                for (int j = 0; j < 12; j++) dst[2 * j] = y[j].r, dst[2 * j + 1] = y[j].i;
            }
            if (scaled && !fold) scale_after(dst, n, scale);
        }
    }
    return 0;
}
