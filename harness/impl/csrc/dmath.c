/* dmath.h's functions over arrays, beside the host C library's, for tests/test_dmath.py: the
 * comparison with glibc (double bits and the float32 results of each call site) and the
 * double-double values before rounding. No kernel calls this library; it is the one place the
 * host's exp, log, log1p, sin and cos are called, on purpose. */
#include "dmath.h"

enum { FN_EXP = 0, FN_LOG = 1, FN_LOG1P = 2, FN_SIN = 3, FN_COS = 4 };

/* The impl's function fn at x (dmath.h). */
static double own(int fn, double x) {
    double s, c;
    switch (fn) {
    case FN_EXP: return dm_exp(x);
    case FN_LOG: return dm_log(x);
    case FN_LOG1P: return dm_log1p(x);
    default: dm_sincos(x, &s, &c); return fn == FN_SIN ? s : c;
    }
}

/* The host C library's function fn at x. */
static double host(int fn, double x) {
    switch (fn) {
    case FN_EXP: return exp(x);
    case FN_LOG: return log(x);
    case FN_LOG1P: return log1p(x);
    case FN_SIN: return sin(x);
    default: return cos(x);
    }
}

/* out[i] = the impl's fn(x[i]). */
void dmath_own(int32_t fn, const double *x, double *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = own(fn, x[i]);
}

/* out[i] = the host's fn(x[i]). */
void dmath_host(int32_t fn, const double *x, double *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = host(fn, x[i]);
}

/* The double-double value before rounding, hi[i] + lo[i], for finite results in the normal
 * range: exp as hi * 2^scale and lo * 2^scale (exact there); log and log1p from dm_log_dd;
 * sin and cos the kernels at the reduced argument with the quadrant's sign. */
void dmath_own_dd(int32_t fn, const double *x, double *hi, double *lo, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        dd_t v;
        if (fn == FN_EXP) {
            int scale;
            v = dm_exp_dd(x[i], &scale);
            const int s1 = scale / 2, s2 = scale - s1;
            v = (dd_t){v.hi * dm_pow2(s1) * dm_pow2(s2), v.lo * dm_pow2(s1) * dm_pow2(s2)};
        } else if (fn == FN_LOG) {
            v = dm_log_dd((dd_t){x[i], 0.0});
        } else if (fn == FN_LOG1P) {
            v = dm_log_dd(dd_two_sum(1.0, x[i]));
        } else {
            int k;
            const dd_t r = dm_reduce_pio2(x[i], &k);
            const int q = (k + (fn == FN_COS)) & 3; /* cos x = sin(x + pi/2) */
            v = (q & 1) ? dm_cos_kernel(r) : dm_sin_kernel(r);
            if (q & 2) v = (dd_t){-v.hi, -v.lo};
        }
        hi[i] = v.hi, lo[i] = v.lo;
    }
}

/* Over the float bit patterns first, first + stride, ... <= last, x = (double)float: counts[0] +=
 * the impl's and the host's fn(x) differ as doubles, counts[1] += they differ as float32 bits
 * ((float)fn(x), as the call sites round). Returns the number of inputs. */
int64_t dmath_sweep_f32(int32_t fn, uint32_t first, uint32_t last, uint32_t stride, int64_t *counts) {
    int64_t n = 0;
    for (uint64_t b = first; b <= last; b += stride, n++) {
        float xf;
        const uint32_t b32 = (uint32_t)b;
        memcpy(&xf, &b32, sizeof xf);
        const double a = own(fn, (double)xf), h = host(fn, (double)xf);
        const float af = (float)a, hf = (float)h;
        counts[0] += dm_d2u(a) != dm_d2u(h);
        counts[1] += memcmp(&af, &hf, sizeof af) != 0;
    }
    return n;
}

/* normal_distribution<double>'s Box-Muller (rng.c's normal_double) at n pairs of uniforms, the
 * impl's functions against the host's: r = sqrt(-2 log1p(-u2)), theta = 2 pi u1, r*cos(theta)
 * and r*sin(theta), then out = v*std + mean (two roundings) and fma(v, std, mean), cast to float,
 * for each (mean[m], std[m]), m < nm. counts[0..2]: double-level differences of log1p, sin, cos;
 * counts[3]: float32 outputs that differ (of 4 * nm per pair). */
void dmath_sweep_normal(const double *u1, const double *u2, int64_t n, const double *mean, const double *std,
                        int64_t nm, int64_t *counts) {
    const double two_pi = 2.0 * 3.141592653589793238462643383279502;
    for (int64_t i = 0; i < n; i++) {
        const double la = dm_log1p(-u2[i]), lh = log1p(-u2[i]);
        const double theta = two_pi * u1[i];
        double sa, ca;
        dm_sincos(theta, &sa, &ca);
        const double sh = sin(theta), ch = cos(theta);
        counts[0] += dm_d2u(la) != dm_d2u(lh);
        counts[1] += dm_d2u(sa) != dm_d2u(sh);
        counts[2] += dm_d2u(ca) != dm_d2u(ch);
        const double ra = sqrt(-2.0 * la), rh = sqrt(-2.0 * lh);
        const double va[2] = {ra * ca, ra * sa}, vh[2] = {rh * ch, rh * sh};
        for (int64_t m = 0; m < nm; m++)
            for (int h = 0; h < 2; h++) {
                const float p[2] = {(float)(va[h] * std[m] + mean[m]), (float)fma(va[h], std[m], mean[m])};
                const float q[2] = {(float)(vh[h] * std[m] + mean[m]), (float)fma(vh[h], std[m], mean[m])};
                counts[3] += (memcmp(&p[0], &q[0], sizeof(float)) != 0) + (memcmp(&p[1], &q[1], sizeof(float)) != 0);
            }
    }
}

/* The constant tables of dmath.h, for the test that recomputes them: table t (0: 2^(j/64),
 * 1: 1/n! for exp, 2: ln(1 + j/64), 3: 1/(2i+1), 4: sin's, 5: cos's Taylor coefficients) into
 * hi[], lo[]; scalars (6): 64/ln2, DM_L1..3, DM_LN2_1..3, 2/pi, DM_PIO2_1..4 into hi[]. Returns
 * the count. */
int32_t dmath_table(int32_t t, double *hi, double *lo) {
    const dd_t *tab[6] = {dm_exp2_64, dm_exp_poly, dm_log_c, dm_atanh_poly, dm_sin_poly, dm_cos_poly};
    const int32_t len[6] = {64, 11, 49, 8, 14, 15};
    if (t == 6) {
        const double s[12] = {DM_INV_L, DM_L1, DM_L2, DM_L3, DM_LN2_1, DM_LN2_2,
                              DM_LN2_3, DM_TWO_OVER_PI, DM_PIO2_1, DM_PIO2_2, DM_PIO2_3, DM_PIO2_4};
        for (int i = 0; i < 12; i++) hi[i] = s[i], lo[i] = 0.0;
        return 12;
    }
    for (int32_t i = 0; i < len[t]; i++) hi[i] = tab[t][i].hi, lo[i] = tab[t][i].lo;
    return len[t];
}

/* dmath.h's glibc_sincos_a64 of x[i] into s[i], c[i]; returns how many were outside its domain (NaNs there).
 * perturb (for the tests that must see a perturbed port fail): 0 none, 1 the low bit of the table's hi word
 * of sin(64/128) flipped, 2 do_sin's table product cs*s rounded apart from its sum. */
int64_t dmath_glibc_sincos_a64(const double *x, double *s, double *c, int64_t n, int32_t perturb) {
    uint64_t tab[110][4];
    memcpy(tab, glibc_sincostab, sizeof tab);
    if (perturb == 1) tab[64][0] ^= 1u;
    int64_t outside = 0;
    for (int64_t i = 0; i < n; i++)
        outside += glibc_sincos_a64_k(x[i], &s[i], &c[i], (const uint64_t(*)[4])tab, perturb != 2) != 0;
    return outside;
}
