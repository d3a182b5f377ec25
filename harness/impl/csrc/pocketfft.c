/* ATen's CPU FFT on the Linux arm64 wheel: _fft_c2c_mkl, _fft_r2c_mkl and _fft_c2r_mkl's pocketfft branch
 * (native/mkl/SpectralOps.cpp; the wheel has no MKL) run pocketfft::c2c, r2c and c2r (pocketfft_hdronly.h,
 * the cpp branch, compiled by GCC for aarch64, which contracts a product into the sum or difference that
 * uses it). Reproduced here: the complex plan cfftp and the real plan rfftp of lengths whose factors are 2,
 * 3 and 5 (pocketfft.py refuses the rest: pass7, pass11, passg, radfg/radbg and Bluestein's fftblue).
 *
 * Shapes: B rows, each contiguous: c2c n complex values (interleaved re, im) transformed in place; r2c n
 * reals to n/2+1 complex values; c2r n/2+1 complex values to n reals; float32 or float64 (pocketfft copies
 * each row in, runs the plan, copies it out: copies change no bits).
 *
 * Order of operations (pocketfft_kernels.h, per function):
 *   cfftp factors: 8 while n % 8 == 0, then 4 while n % 4 == 0, then one 2 (swapped to the front of the
 *     list), then odd divisors 3, 5, ... ascending; passes in that order with l1 the product of the factors
 *     before, ido = n / (l1 * factor); then every value times fct where fct != 1 (ATen's 1, 1/N or
 *     1/sqrt(N) in the transform's precision).
 *   rfftp factors: 4 while n % 4 == 0, one 2 (to the front), odd divisors; forward the radf passes last
 *     factor first, backward the radb passes first factor first; then fct * value where fct != 1.
 *   GCC's contraction, read in the disassembly and measured: a product whose every use is a sum or a
 *     difference is fused into each use; of two products added, the first is fused; of a difference of
 *     two products of variables (the twiddle products, MULPM), scalar code fuses the first (fnmsub), the
 *     NEON-lane code (4 float32 or 2 float64 rows at once: pocketfft's vector instantiation, which takes
 *     the whole groups of rows first) the second (fmls); a product by a constant is a sum with the
 *     constant negated (the first fused), but for pass5's second pair in backward scalar code (the second
 *     fused). The float64 scalar instantiation (rows past the last pair) vectorised its complex values:
 *     pass2's, pass3's and pass4's twiddle differences take the lane order, pass8's the scalar one.
 *     radf5 and radb5 (float32): radf5's differences by a constant fuse the first product in lane code
 *     too; the scalar copy's i = 0 loops over k, vectorised by GCC (radf5 where l1 > 16, radb5 where
 *     l1 > 8: 4 k at a time, the rest one by one), take the lane order in their difference by constants.
 *   twiddles (sincos_2pibyn, comp_twiddle): in double (float32 ones rounded from it). ang is 0.25*pi/n in
 *     long double (the aarch64 ABI's IEEE quad), rounded to double (the caller passes it, computed exactly:
 *     not every host's C has a binary128 type); v1[i] = calc(i), v2[j] =
 *     calc(j * (mask + 1)) with calc's octant reduction to cos and sin of x*ang: one glibc sincos call in the
 *     wheel (sincos@plt, disassembled), aarch64 glibc 2.36's bits from dmath.h's glibc_sincos_a64 (the host's
 *     C library is never called; x*ang lies in [0, pi/4], inside the port's domain); entry idx
 *     (2*idx <= n) = v1[idx & mask] * v2[idx >> shift] as fma(x1.r, x2.r, -(x1.i*x2.i)),
 *     fma(x1.r, x2.i, x1.i*x2.r) (the disassembly's fnmsub and fmadd), the conjugate of entry n - idx above.
 *     cfftp factor k's twiddle (j, i) is entry j * l1 * i; rfftp's the same entry's real and imaginary parts.
 */
#include <stdlib.h>

#include "dmath.h"

/* sincos_2pibyn's two tables of cos and sin of 2pi*x/n in double. */
typedef struct {
    size_t n, mask, shift;
    double *v1, *v2;
} pf_sincos;

static void pf_calc(size_t x, size_t n, double ang, double *re, double *im) {
    double s, c; /* glibc's sincos of the octant-reduced angle, in [0, pi/4]: inside glibc_sincos_a64's domain */
    x <<= 3;
    if (x < 4 * n) {
        if (x < 2 * n) {
            if (x < n) glibc_sincos_a64((double)x * ang, &s, &c), *re = c, *im = s;
            else glibc_sincos_a64((double)(2 * n - x) * ang, &s, &c), *re = s, *im = c;
        } else {
            x -= 2 * n;
            if (x < n) glibc_sincos_a64((double)x * ang, &s, &c), *re = -s, *im = c;
            else glibc_sincos_a64((double)(2 * n - x) * ang, &s, &c), *re = -c, *im = s;
        }
    } else {
        x = 8 * n - x;
        if (x < 2 * n) {
            if (x < n) glibc_sincos_a64((double)x * ang, &s, &c), *re = c, *im = -s;
            else glibc_sincos_a64((double)(2 * n - x) * ang, &s, &c), *re = s, *im = -c;
        } else {
            x -= 2 * n;
            if (x < n) glibc_sincos_a64((double)x * ang, &s, &c), *re = -s, *im = -c;
            else glibc_sincos_a64((double)(2 * n - x) * ang, &s, &c), *re = -c, *im = -s;
        }
    }
}

/* ang: 0.25*pi/n as sincos_2pibyn computes it (in the caller's exact arithmetic, harness/impl/pocketfft.py). */
static int pf_sincos_make(pf_sincos *s, size_t n, double ang) {
    size_t nval = (n + 2) / 2, shift = 1;
    while (((size_t)1 << shift) * ((size_t)1 << shift) < nval) ++shift;
    size_t mask = ((size_t)1 << shift) - 1, n2 = (nval + mask) / (mask + 1);
    s->n = n, s->mask = mask, s->shift = shift;
    s->v1 = malloc(2 * (mask + 1) * sizeof(double));
    s->v2 = malloc(2 * n2 * sizeof(double));
    if (!s->v1 || !s->v2) {
        free(s->v1);
        free(s->v2);
        return -1;
    }
    s->v1[0] = 1, s->v1[1] = 0, s->v2[0] = 1, s->v2[1] = 0;
    for (size_t i = 1; i <= mask; ++i) pf_calc(i, n, ang, &s->v1[2 * i], &s->v1[2 * i + 1]);
    for (size_t i = 1; i < n2; ++i) pf_calc(i * (mask + 1), n, ang, &s->v2[2 * i], &s->v2[2 * i + 1]);
    return 0;
}

static void pf_sincos_free(pf_sincos *s) {
    free(s->v1);
    free(s->v2);
}

/* Entry idx: the product of its two table entries (the fused order above), in double. */
static void pf_sincos_at(const pf_sincos *s, size_t idx, double *re, double *im) {
    int upper = 2 * idx > s->n;
    if (upper) idx = s->n - idx;
    const double *x1 = s->v1 + 2 * (idx & s->mask), *x2 = s->v2 + 2 * (idx >> s->shift);
    *re = fma(x1[0], x2[0], -(x1[1] * x2[1]));
    *im = fma(x1[0], x2[1], x1[1] * x2[0]);
    if (upper) *im = -*im; /* negated after the rounding to the transform's precision: exact either way */
}

#define REAL float
#define FMA fmaf
#define PF(name) name##_f
#define SCALAR 0
#include "pocketfft_kernels.h"
#undef REAL
#undef FMA
#undef PF
#undef SCALAR

#define REAL double
#define FMA fma
#define PF(name) name##_d
#define SCALAR 2
#include "pocketfft_kernels.h"
#undef REAL
#undef FMA
#undef PF
#undef SCALAR
