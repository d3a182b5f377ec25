/* The impl's own double-precision exp, log, log1p and sincos: the C library of the host never
 * reaches an output.
 *
 * Where torch calls glibc's double functions (normal_distribution<double>'s log1p/sin/cos in
 * rng.c, flash attention's scalar-tail exp in attention.c, MKL VML's scalar fallbacks for exp
 * and log in vmath.h), the impl calls these. Each evaluates its result as a double-double
 * hi + lo (an unevaluated sum of two doubles, relative error below 2^-100 as measured, 2^-89 for
 * sin/cos in the worst case of their domain) and returns hi, which
 * is hi + lo rounded once to double: the correctly rounded result, except where the exact value
 * lies within that error of a rounding boundary (no such input is known among the inputs that
 * reach the call sites). glibc 2.36 (torch's host) is within a few tenths of an ulp over 0.5 and
 * not always correctly rounded, so these can differ from it in the last place of the double; the
 * call sites round to float, and tests/test_dmath.py measures on their inputs that the float32
 * results equal glibc's bit for bit (and counts the double-level differences).
 *
 * Portable by construction: double arithmetic only, every product error taken with an explicit
 * fma() (correctly rounded on every machine), compiled with -ffp-contract=off, no long double,
 * no x87, no table or constant from another library. The constants are exact rationals (1/n!,
 * 1/(2i+1)) or values of ln 2, 2^(j/64), ln(1 + j/64) and pi/2, each rounded to nearest with
 * Python's fractions.Fraction -> float (correctly rounded) from 90-digit decimal.Decimal values
 * (ln, powers) and a Machin series for pi; tests/test_dmath.py recomputes every one that way and
 * compares the bits.
 *
 * Functions (all static inline; include after common.h):
 *   dm_exp(x)       e^x
 *   dm_log(x)       ln x
 *   dm_log1p(x)     ln(1 + x)
 *   dm_sincos(x, &s, &c)  sin x, cos x for |x| <= 64 (NaN outside: the one call site stays in [0, 2pi))
 *   sleef_pow_d(x, y)     x^y as SLEEF's double pow computes it (not correctly rounded: its own steps, kept)
 *   mkl_vml_sincos_d(x, cosine)  MKL VML's vmdSin/vmdCos (HA) on MKL's generic path
 *   glibc_pow_d(x, y)     x^y as glibc's double pow computes it in x86-64's FMA build (its own steps, kept)
 *   glibc_sincos_a64(x, &s, &c)  glibc's double sincos as its aarch64 build computes it, for |x| < 2.426265
 *                         (not correctly rounded: its own steps and table, kept; -1 and NaNs outside) */
#ifndef PARITY_DMATH_H
#define PARITY_DMATH_H

#include "common.h"
#include "glibc_pow_table.h"
#include "glibc_sincos_table.h"
#include "vml_sincos_d_table.h"

/* ----------------------------------------------------------------------------- double-double */

/* hi + lo with |lo| <= ulp(hi)/2: the value hi + lo, exact arithmetic on pairs. */
typedef struct {
    double hi, lo;
} dd_t;

static inline uint64_t dm_d2u(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double dm_u2d(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 2^n for -1022 <= n <= 1023, from the bits. */
static inline double dm_pow2(int n) { return dm_u2d((uint64_t)(n + 1023) << 52); }

/* a + b exactly (Knuth's two-sum, no condition on a and b): s = fl(a + b), the error from
 * bb = s - a, (a - (s - bb)) + (b - bb). */
static inline dd_t dd_two_sum(double a, double b) {
    const double s = a + b, bb = s - a;
    return (dd_t){s, (a - (s - bb)) + (b - bb)};
}

/* a + b exactly for |a| >= |b| (or a == 0): s = fl(a + b), error b - (s - a). */
static inline dd_t dd_fast_two_sum(double a, double b) {
    const double s = a + b;
    return (dd_t){s, b - (s - a)};
}

/* a * b exactly: p = fl(a * b), error fma(a, b, -p). */
static inline dd_t dd_two_prod(double a, double b) {
    const double p = a * b;
    return (dd_t){p, fma(a, b, -p)};
}

/* x + y: highs two-summed, lows two-summed, folded in (the accurate double-double sum,
 * relative error about 2^-105 unless x + y cancels). */
static inline dd_t dd_add(dd_t x, dd_t y) {
    dd_t s = dd_two_sum(x.hi, y.hi);
    const dd_t t = dd_two_sum(x.lo, y.lo);
    s = dd_fast_two_sum(s.hi, s.lo + t.hi);
    return dd_fast_two_sum(s.hi, s.lo + t.lo);
}

/* x + b for a double b: two-sum of the highs, x.lo added to the error. */
static inline dd_t dd_add_d(dd_t x, double b) {
    const dd_t s = dd_two_sum(x.hi, b);
    return dd_fast_two_sum(s.hi, s.lo + x.lo);
}

/* x * y: the exact product of the highs, plus the cross terms hi*lo (the lo*lo term is below
 * 2^-106 relative and left out). */
static inline dd_t dd_mul(dd_t x, dd_t y) {
    const dd_t p = dd_two_prod(x.hi, y.hi);
    return dd_fast_two_sum(p.hi, p.lo + (x.hi * y.lo + x.lo * y.hi));
}

/* x * b for a double b. */
static inline dd_t dd_mul_d(dd_t x, double b) {
    const dd_t p = dd_two_prod(x.hi, b);
    return dd_fast_two_sum(p.hi, p.lo + x.lo * b);
}

/* x / y: three quotient digits q1 = x.hi/y.hi, then q2, q3 from the remainders r = x - q*y
 * (each q*y exact in double-double through dd_mul_d), summed. */
static inline dd_t dd_div(dd_t x, dd_t y) {
    const double q1 = x.hi / y.hi;
    dd_t r = dd_add(x, dd_mul_d(y, -q1));
    const double q2 = r.hi / y.hi;
    r = dd_add(r, dd_mul_d(y, -q2));
    const double q3 = r.hi / y.hi;
    return dd_add_d(dd_fast_two_sum(q1, q2), q3);
}

/* Horner in double-double: c[n-1]; then p = p*x + c[i] for i = n-2 down to 0. */
static inline dd_t dd_horner(const dd_t *c, int n, dd_t x) {
    dd_t p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = dd_add(dd_mul(p, x), c[i]);
    return p;
}

/* x rounded to the nearest integer (ties to even), as a double, for |x| < 2^51: adding and
 * subtracting 1.5 * 2^52 rounds away the fraction (no libm rint). */
static inline double dm_round_int(double x) { return (x + 0x1.8p52) - 0x1.8p52; }

/* ----------------------------------------------------------------------------- exp */

/* 2^(j/64), j = 0..63. */
static const dd_t dm_exp2_64[64] = {
    {0x1.0000000000000p+0, 0x0.0p+0}, {0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56},
    {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55}, {0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57},
    {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54}, {0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59},
    {0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54}, {0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54},
    {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55}, {0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55},
    {0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54}, {0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55},
    {0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54}, {0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55},
    {0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55}, {0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54},
    {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55}, {0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54},
    {0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54}, {0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56},
    {0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55}, {0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58},
    {0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59}, {0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56},
    {0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56}, {0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54},
    {0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55}, {0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54},
    {0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54}, {0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54},
    {0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54}, {0x1.6623882552225p+0, -0x1.bb60987591c34p-54},
    {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54}, {0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57},
    {0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55}, {0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54},
    {0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55}, {0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56},
    {0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54}, {0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54},
    {0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54}, {0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55},
    {0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57}, {0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54},
    {0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56}, {0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54},
    {0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54}, {0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54},
    {0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54}, {0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57},
    {0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56}, {0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55},
    {0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55}, {0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54},
    {0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56}, {0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54},
    {0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55}, {0x1.da9e603db3285p+0, 0x1.c2300696db532p-54},
    {0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54}, {0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55},
    {0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54}, {0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54},
    {0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54}, {0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55},
};

/* 1/n!, n = 2..12: e^r - 1 - r = r^2 * sum c[i] r^i. */
static const dd_t dm_exp_poly[11] = {
    {0x1.0000000000000p-1, 0x0.0p+0},
    {0x1.5555555555555p-3, 0x1.5555555555555p-57},
    {0x1.5555555555555p-5, 0x1.5555555555555p-59},
    {0x1.1111111111111p-7, 0x1.1111111111111p-63},
    {0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65},
    {0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73},
    {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76},
    {0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
    {0x1.27e4fb7789f5cp-22, 0x1.cbbc05b4fa99ap-76},
    {0x1.ae64567f544e4p-26, -0x1.c062e06d1f209p-80},
    {0x1.1eed8eff8d898p-29, -0x1.2aec959e14c06p-83},
};

/* 64/ln2 rounded; ln2/64 = DM_L1 + DM_L2 + DM_L3 with DM_L1 of 36 significant bits (so k*DM_L1 is
 * exact for |k| < 2^17) and the rest rounded to nearest in turn (142 bits in all). */
#define DM_INV_L 0x1.71547652b82fep+6
#define DM_L1 0x1.62e42fefa0000p-7
#define DM_L2 0x1.cf79abc9e3b3ap-46
#define DM_L3 -0x1.ff0342542fc33p-100

/* e^x as hi + lo times 2^*scale, for -746 < x < 710: k = round(x * 64/ln2), j = k mod 64,
 * *scale = (k - j)/64; r = x - k*ln2/64 in double-double (x - k*DM_L1 exact by Sterbenz,
 * k*DM_L2 exact through fma, k*DM_L3 rounded: |r| <= ln2/128 + 2^-60, error below 2^-125);
 * e^r - 1 = r + r^2 * P(r) with P the Taylor sum to r^10/12! (truncation below 2^-119);
 * result = T + T * (e^r - 1) with T = 2^(j/64). */
static inline dd_t dm_exp_dd(double x, int *scale) {
    const double kf = dm_round_int(x * DM_INV_L);
    const int k = (int)kf, j = k & 63;
    *scale = (k - j) / 64;
    const dd_t p2 = dd_two_prod(kf, DM_L2);
    dd_t r = dd_two_sum(x - kf * DM_L1, -p2.hi);
    r = dd_fast_two_sum(r.hi, r.lo + (-p2.lo - kf * DM_L3));
    const dd_t q = dd_horner(dm_exp_poly, 11, r);
    const dd_t em1 = dd_add(r, dd_mul(dd_mul(r, r), q));
    const dd_t t = dm_exp2_64[j];
    return dd_add(t, dd_mul(t, em1));
}

/* (hi + lo) * 2^n rounded once for a result below 2^-1022 (n <= -1022, hi in [0.5, 2)):
 * y = (hi + lo) * 2^(n + 1074) counts units of 2^-1074 (exact scaling, 0 <= y < 2^52); i, the
 * nearest integer to y.hi ((y.hi + 2^52) - 2^52, ties to even), moves by one where the remainder
 * y.hi - i (exact) plus y.lo passes a half; the result i * 2^-1074 is exact. */
static inline double dm_scale_subnormal(dd_t v, int n) {
    const double s = dm_pow2(n + 1074);
    const double yh = v.hi * s, yl = v.lo * s;
    double i = (yh + 0x1p52) - 0x1p52;
    const double f = (yh - i) + yl;
    if (f > 0.5 || (f == 0.5 && yl > 0.0)) i = i + 1.0;
    if (f < -0.5 || (f == -0.5 && yl < 0.0)) i = i - 1.0;
    return i * 0x1p-1074;
}

/* e^x, double: NaN -> x + x; above ln(DBL_MAX) -> +inf; below ln(2^-1075) -> +0; otherwise
 * dm_exp_dd's hi + lo rounded once at the result's scale (2^scale applied as two powers of two
 * so that scale = 1024 does not overflow the exponent field; subnormal results by
 * dm_scale_subnormal). */
static inline double dm_exp(double x) {
    if (x != x) return x + x;
    if (x > 0x1.62e42fefa39efp+9) return INFINITY;
    if (x < -0x1.74910d52d3052p+9) return 0.0;
    int scale;
    const dd_t v = dm_exp_dd(x, &scale);
    if (scale + (v.hi >= 1.0 ? 0 : -1) < -1022) return dm_scale_subnormal(v, scale);
    const int s1 = scale / 2, s2 = scale - s1;
    return (v.hi * dm_pow2(s1)) * dm_pow2(s2);
}

/* ----------------------------------------------------------------------------- log, log1p */

/* ln(1 + j/64), j = -16..32 (index j + 16). */
static const dd_t dm_log_c[49] = {
    {-0x1.269621134db92p-2, -0x1.e0efadd9db02bp-56}, {-0x1.1178e8227e47cp-2, 0x1.0e63a5f01c691p-57},
    {-0x1.f991c6cb3b379p-3, -0x1.f665066f980a2p-57}, {-0x1.d1037f2655e7bp-3, -0x1.60629242471a2p-57},
    {-0x1.a93ed3c8ad9e3p-3, -0x1.bcafa9de97203p-57}, {-0x1.823c16551a3c2p-3, 0x1.1232ce70be781p-57},
    {-0x1.5bf406b543db2p-3, 0x1.1f5b44c0df7e7p-61}, {-0x1.365fcb0159016p-3, -0x1.7d411a5b944adp-58},
    {-0x1.1178e8227e47cp-3, 0x1.0e63a5f01c691p-58}, {-0x1.da727638446a2p-4, -0x1.401fa71733019p-58},
    {-0x1.9335e5d594989p-4, 0x1.478a85704ccb7p-58}, {-0x1.4d3115d207eacp-4, -0x1.769f42c7842ccp-58},
    {-0x1.08598b59e3a07p-4, 0x1.dd7009902bf32p-58}, {-0x1.894aa149fb343p-5, -0x1.a8be97660a23dp-60},
    {-0x1.0415d89e74444p-5, -0x1.c05cf1d753622p-59}, {-0x1.0205658935847p-6, -0x1.27c8e8416e71fp-60},
    {0x0.0p+0, 0x0.0p+0}, {0x1.fc0a8b0fc03e4p-7, -0x1.83092c59642a1p-62},
    {0x1.f829b0e783300p-6, 0x1.33e3f04f1ef23p-60}, {0x1.77458f632dcfcp-5, 0x1.18d3ca87b9296p-59},
    {0x1.f0a30c01162a6p-5, 0x1.85f325c5bbacdp-59}, {0x1.341d7961bd1d1p-4, -0x1.b599f227becbbp-58},
    {0x1.6f0d28ae56b4cp-4, -0x1.906d99184b992p-58}, {0x1.a926d3a4ad563p-4, 0x1.942f48aa70ea9p-58},
    {0x1.e27076e2af2e6p-4, -0x1.61578001e0162p-60}, {0x1.0d77e7cd08e59p-3, 0x1.9a5dc5e9030acp-57},
    {0x1.29552f81ff523p-3, 0x1.301771c407dbfp-57}, {0x1.44d2b6ccb7d1ep-3, 0x1.9f4f6543e1f88p-57},
    {0x1.5ff3070a793d4p-3, -0x1.bc60efafc6f6ep-58}, {0x1.7ab890210d909p-3, 0x1.be36b2d6a0608p-59},
    {0x1.9525a9cf456b4p-3, 0x1.d904c1d4e2e26p-57}, {0x1.af3c94e80bff3p-3, -0x1.398cff3641985p-58},
    {0x1.c8ff7c79a9a22p-3, -0x1.4f689f8434012p-57}, {0x1.e27076e2af2e6p-3, -0x1.61578001e0162p-59},
    {0x1.fb9186d5e3e2bp-3, -0x1.caaae64f21acbp-57}, {0x1.0a324e27390e3p-2, 0x1.7dcfde8061c03p-56},
    {0x1.1675cababa60ep-2, 0x1.ce63eab883717p-61}, {0x1.22941fbcf7966p-2, -0x1.76f5eb09628afp-56},
    {0x1.2e8e2bae11d31p-2, -0x1.8f4cdb95ebdf9p-56}, {0x1.3a64c556945eap-2, -0x1.c68651945f97cp-57},
    {0x1.4618bc21c5ec2p-2, 0x1.f42decdeccf1dp-56}, {0x1.51aad872df82dp-2, 0x1.3927ac19f55e3p-59},
    {0x1.5d1bdbf5809cap-2, 0x1.4236383dc7fe1p-56}, {0x1.686c81e9b14afp-2, -0x1.ddea0f7f58e3dp-57},
    {0x1.739d7f6bbd007p-2, -0x1.8c76ceb014b04p-56}, {0x1.7eaf83b82afc3p-2, 0x1.92ce979ed2950p-56},
    {0x1.89a3386c1425bp-2, -0x1.29639dfbbf0fbp-56}, {0x1.947941c2116fbp-2, -0x1.16cc8bae0bbe4p-56},
    {0x1.9f323ecbf984cp-2, -0x1.a92e513217f5cp-59},
};

/* 1/(2i+1), i = 1..8: atanh(t)/t - 1 = t^2 * sum c[i] t^(2i). */
static const dd_t dm_atanh_poly[8] = {
    {0x1.5555555555555p-2, 0x1.5555555555555p-56}, {0x1.999999999999ap-3, -0x1.999999999999ap-57},
    {0x1.2492492492492p-3, 0x1.2492492492492p-57}, {0x1.c71c71c71c71cp-4, 0x1.c71c71c71c71cp-58},
    {0x1.745d1745d1746p-4, -0x1.745d1745d1746p-59}, {0x1.3b13b13b13b14p-4, -0x1.3b13b13b13b14p-58},
    {0x1.1111111111111p-4, 0x1.1111111111111p-60}, {0x1.e1e1e1e1e1e1ep-5, 0x1.e1e1e1e1e1e1ep-61},
};

/* ln2 = DM_LN2_1 + DM_LN2_2 + DM_LN2_3, DM_LN2_1 of 42 significant bits (e * DM_LN2_1 exact for
 * |e| < 2^11). */
#define DM_LN2_1 0x1.62e42fefa3800p-1
#define DM_LN2_2 0x1.ef35793c76730p-45
#define DM_LN2_3 0x1.f97b57a079a19p-103

/* ln(a) for a = a.hi + a.lo > 0, a.hi normal, in double-double: a = 2^e * m with m in
 * [0.75, 1.5) (from a.hi's bits; a.lo scaled with it); c = 1 + j/64 the nearest such to m
 * (|m - c| <= 1/128); t = (m - c) / (m + c) (m - c exact by Sterbenz, then a.lo added;
 * |t| < 2^-7.5); ln(m/c) = 2 atanh(t) = 2 (t + t^3 * P(t^2)), P to t^16/17 (truncation below
 * 2^-112 relative); ln a = e*ln2 + ln(c) + ln(m/c), the three summed in that order. */
static inline dd_t dm_log_dd(dd_t a) {
    const uint64_t u = dm_d2u(a.hi);
    int e = (int)((u >> 52) & 0x7ff) - 1023;
    double m = dm_u2d((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    if (m >= 1.5) m = m * 0.5, e = e + 1;
    const double ml = (a.lo * dm_pow2(-(e / 2))) * dm_pow2(-(e - e / 2)); /* two steps: e may be 1024 */
    const double jf = dm_round_int((m - 1.0) * 64.0);
    const double c = 1.0 + jf * 0x1p-6;
    const dd_t num = dd_two_sum(m - c, ml);
    const dd_t den = dd_add_d(dd_two_sum(m, c), ml);
    const dd_t t = dd_div(num, den);
    const dd_t t2 = dd_mul(t, t);
    const dd_t w = dd_add(t, dd_mul(dd_mul(t, t2), dd_horner(dm_atanh_poly, 8, t2)));
    const double ef = (double)e;
    const dd_t p2 = dd_two_prod(ef, DM_LN2_2);
    dd_t eln2 = dd_two_sum(ef * DM_LN2_1, p2.hi);
    eln2 = dd_fast_two_sum(eln2.hi, eln2.lo + (p2.lo + ef * DM_LN2_3));
    const dd_t lm = dd_add(dm_log_c[(int)jf + 16], (dd_t){2.0 * w.hi, 2.0 * w.lo});
    return dd_add(eln2, lm);
}

/* ln x, double: NaN -> x + x; x < 0 -> NaN; +-0 -> -inf; +inf -> +inf; a subnormal x scaled by
 * 2^54 first (ln x = ln(x * 2^54) - 54 ln2, summed in double-double); then dm_log_dd rounded. */
static inline double dm_log(double x) {
    if (x != x) return x + x;
    if (x < 0.0) return NAN;
    if (x == 0.0) return -INFINITY;
    if (x == INFINITY) return x;
    if (x < 0x1p-1022) {
        const dd_t l = dm_log_dd((dd_t){x * 0x1p54, 0.0});
        return dd_add(l, dd_mul_d((dd_t){DM_LN2_1, DM_LN2_2}, -54.0)).hi;
    }
    return dm_log_dd((dd_t){x, 0.0}).hi;
}

/* ln(1 + x), double: NaN -> x + x; x == -1 -> -inf; x < -1 -> NaN; +inf -> +inf;
 * |x| < 2^-60 -> x (the exact value x - x^2/2 + ... rounds to x there, and +-0 keep their sign);
 * otherwise 1 + x taken exactly as a two-sum and dm_log_dd of it rounded. */
static inline double dm_log1p(double x) {
    if (x != x) return x + x;
    if (x == -1.0) return -INFINITY;
    if (x < -1.0) return NAN;
    if (x == INFINITY) return x;
    if (x < 0x1p-60 && x > -0x1p-60) return x;
    return dm_log_dd(dd_two_sum(1.0, x)).hi;
}

/* ----------------------------------------------------------------------------- sin, cos */

/* (-1)^i / (2i+1)!, i = 1..14: sin(r)/r - 1 = u * sum c[i] u^i, u = r^2. */
static const dd_t dm_sin_poly[14] = {
    {-0x1.5555555555555p-3, -0x1.5555555555555p-57}, {0x1.1111111111111p-7, 0x1.1111111111111p-63},
    {-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73}, {0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
    {-0x1.ae64567f544e4p-26, 0x1.c062e06d1f209p-80}, {0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87},
    {-0x1.ae7f3e733b81fp-41, -0x1.1d8656b0ee8cbp-97}, {0x1.952c77030ad4ap-49, 0x1.ac981465ddc6cp-103},
    {-0x1.2f49b46814157p-57, -0x1.2650f61dbdcb4p-112}, {0x1.71b8ef6dcf572p-66, -0x1.d043ae40c4647p-120},
    {-0x1.761b41316381ap-75, 0x1.3423c7d91404fp-130}, {0x1.3f3ccdd165fa9p-84, -0x1.58ddadf344487p-139},
    {-0x1.d1ab1c2dccea3p-94, -0x1.054d0c78aea14p-149}, {0x1.259f98b4358adp-103, 0x1.eaf8c39dd9bc5p-157},
};

/* (-1)^i / (2i)!, i = 1..15: cos(r) - 1 = u * sum c[i] u^i, u = r^2. */
static const dd_t dm_cos_poly[15] = {
    {-0x1.0000000000000p-1, 0x0.0p+0}, {0x1.5555555555555p-5, 0x1.5555555555555p-59},
    {-0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65}, {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76},
    {-0x1.27e4fb7789f5cp-22, -0x1.cbbc05b4fa99ap-76}, {0x1.1eed8eff8d898p-29, -0x1.2aec959e14c06p-83},
    {-0x1.93974a8c07c9dp-37, -0x1.05d6f8a2efd1fp-92}, {0x1.ae7f3e733b81fp-45, 0x1.1d8656b0ee8cbp-101},
    {-0x1.6827863b97d97p-53, -0x1.eec01221a8b0bp-107}, {0x1.e542ba4020225p-62, 0x1.ea72b4afe3c2fp-120},
    {-0x1.0ce396db7f853p-70, 0x1.aebcdbd20331cp-124}, {0x1.f2cf01972f578p-80, -0x1.9ada5fcc1ab14p-135},
    {-0x1.88e85fc6a4e5ap-89, 0x1.71c37ebd16540p-143}, {0x1.0a18a2635085dp-98, 0x1.b9e2e28e1aa54p-153},
    {-0x1.3932c5047d60ep-108, -0x1.832b7b530a627p-162},
};

/* 2/pi rounded; pi/2 = DM_PIO2_1 + ... + DM_PIO2_4, each the nearest double to what is left
 * (212 bits; the rest is below 2^-217). */
#define DM_TWO_OVER_PI 0x1.45f306dc9c883p-1
#define DM_PIO2_1 0x1.921fb54442d18p+0
#define DM_PIO2_2 0x1.1a62633145c07p-54
#define DM_PIO2_3 -0x1.f1976b7ed8fbcp-110
#define DM_PIO2_4 0x1.4cf98e804177dp-164

/* r = x - k*pi/2 in double-double for |x| <= 64, k = round(x * 2/pi) (returned in *k):
 * k*DM_PIO2_i as exact products p_i + e_i (fma), x - p_1 exact (Sterbenz; x itself for k = 0),
 * then subtracted in decreasing size: p_2, e_1, p_3, e_2, e_3, k*DM_PIO2_4. No double in that
 * range is within 2^-61 of a nonzero multiple of pi/2 (closest near 29 pi/2, 2^-60.5; in [0, 2pi)
 * near pi/2, 2^-53.9; tests/test_dmath.py measures every k <= 41), and the sum's error is below
 * 2^-150, so r keeps more than 89 correct bits (more than 96 in [0, 2pi)). */
static inline dd_t dm_reduce_pio2(double x, int *k) {
    const double kf = dm_round_int(x * DM_TWO_OVER_PI);
    *k = (int)kf;
    const dd_t p1 = dd_two_prod(kf, DM_PIO2_1), p2 = dd_two_prod(kf, DM_PIO2_2), p3 = dd_two_prod(kf, DM_PIO2_3);
    dd_t r = {x - p1.hi, 0.0};
    r = dd_add_d(r, -p2.hi);
    r = dd_add_d(r, -p1.lo);
    r = dd_add_d(r, -p3.hi);
    r = dd_add_d(r, -p2.lo);
    r = dd_add_d(r, -p3.lo);
    return dd_add_d(r, -kf * DM_PIO2_4);
}

/* sin(r) for |r| <= pi/4 + 2^-40: r + r * u * S(u), u = r^2, S the Taylor sum to r^28/29!
 * (truncation below 2^-110 relative). */
static inline dd_t dm_sin_kernel(dd_t r) {
    const dd_t u = dd_mul(r, r);
    return dd_add(r, dd_mul(dd_mul(r, u), dd_horner(dm_sin_poly, 14, u)));
}

/* cos(r) for |r| <= pi/4 + 2^-40: 1 + u * C(u), u = r^2, C the Taylor sum to r^28/30!
 * (truncation below 2^-115). */
static inline dd_t dm_cos_kernel(dd_t r) {
    const dd_t u = dd_mul(r, r);
    return dd_add_d(dd_mul(u, dd_horner(dm_cos_poly, 15, u)), 1.0);
}

/* sin x and cos x, doubles, for |x| <= 64 (outside: NaN, as for infinities and NaN):
 * r = x - k*pi/2 (dm_reduce_pio2); by k mod 4, (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s)
 * with s, c the kernels at r, each rounded once. */
static inline void dm_sincos(double x, double *s, double *c) {
    if (!(x >= -64.0 && x <= 64.0)) {
        *s = NAN, *c = NAN;
        return;
    }
    int k;
    const dd_t r = dm_reduce_pio2(x, &k);
    const double sr = dm_sin_kernel(r).hi, cr = dm_cos_kernel(r).hi;
    switch (k & 3) {
    case 0: *s = sr, *c = cr; break;
    case 1: *s = cr, *c = -sr; break;
    case 2: *s = -sr, *c = -cr; break;
    default: *s = -cr, *c = sr; break;
    }
}

/* ----------------------------------------------------------------------------- SLEEF's double pow */

/* SLEEF 3.8's xpow (sleefsimddp.c), the FMA build torch links as Sleef_powd4_u10 (avx2) and
 * Sleef_powd8_u10avx512f, one lane: not correctly rounded (1.0 ULP documented), so every step is
 * kept as SLEEF orders it. Pairs (hi, lo) are SLEEF's double-double values; fma() stands for the
 * vfmadd instructions (vmla), -ffp-contract=off keeps every other product and sum rounded on its own.
 * The avx512f object's logk takes e from vgetexp and m from vgetmant ([0.75, 1.5)): for a finite
 * positive d the same e and m as the avx2 object's ilogb of d/0.75 and exponent subtraction, so one
 * port serves both (x = 0, inf, NaN are answered by the selects at the end). */

/* Estrin's scheme as SLEEF's POLY macros nest it, each step one fma. */
#define SP_MLA(x, y, z) fma((x), (y), (z))
#define SP_POLY2(x, c1, c0) SP_MLA(x, c1, c0)
#define SP_POLY4(x, x2, c3, c2, c1, c0) SP_MLA(x2, SP_MLA(x, c3, c2), SP_MLA(x, c1, c0))
#define SP_POLY8(x, x2, x4, c7, c6, c5, c4, c3, c2, c1, c0) \
    SP_MLA(x4, SP_POLY4(x, x2, c7, c6, c5, c4), SP_POLY4(x, x2, c3, c2, c1, c0))

/* ddadd2 of two doubles (two-sum, any magnitudes). */
static inline dd_t sp_add2_d_d(double x, double y) {
    const double s = x + y, v = s - x;
    return (dd_t){s, (x - (s - v)) + (y - v)};
}
/* ddadd2 of a pair and a double: the highs two-summed, x.lo added to the error. */
static inline dd_t sp_add2_dd_d(dd_t x, double y) {
    const double s = x.hi + y, v = s - x.hi;
    const double w = (x.hi - (s - v)) + (y - v);
    return (dd_t){s, w + x.lo};
}
/* ddadd (|x| >= |y|): s = x.hi + y.hi, ((x.hi - s) + y.hi) + x.lo + y.lo left to right. */
static inline dd_t sp_add_dd_dd(dd_t x, dd_t y) {
    const double s = x.hi + y.hi;
    return (dd_t){s, (((x.hi - s) + y.hi) + x.lo) + y.lo};
}
/* ddadd of a double and a pair (|x| >= |y|). */
static inline dd_t sp_add_d_dd(double x, dd_t y) {
    const double s = x + y.hi;
    return (dd_t){s, ((x - s) + y.hi) + y.lo};
}
static inline dd_t sp_normalize(dd_t t) {
    const double s = t.hi + t.lo;
    return (dd_t){s, (t.hi - s) + t.lo};
}
/* dddiv (FMA): t = 1/d.hi, s = n.hi*t, s + s*v + (n.lo*t + (n.hi*t - s)) with v = -d.lo*t + (1 - d.hi*t). */
static inline dd_t sp_div(dd_t n, dd_t d) {
    const double t = 1.0 / d.hi, s = n.hi * t;
    const double u = fma(t, n.hi, -s);
    const double v = fma(-d.lo, t, fma(-d.hi, t, 1.0));
    return (dd_t){s, fma(s, v, fma(n.lo, t, u))};
}
static inline dd_t sp_squ(dd_t x) {
    const double s = x.hi * x.hi;
    return (dd_t){s, fma(x.hi + x.hi, x.lo, fma(x.hi, x.hi, -s))};
}
static inline dd_t sp_mul_dd_dd(dd_t x, dd_t y) {
    const double s = x.hi * y.hi;
    return (dd_t){s, fma(x.hi, y.lo, fma(x.lo, y.hi, fma(x.hi, y.hi, -s)))};
}
static inline dd_t sp_mul_dd_d(dd_t x, double y) {
    const double s = x.hi * y;
    return (dd_t){s, fma(x.lo, y, fma(x.hi, y, -s))};
}
/* vpow2i: (q + 0x3ff) << 20 in a 32-bit lane, as the high word of the double (wrapping as the lanes do). */
static inline double sp_pow2i(int32_t q) {
    return dm_u2d((uint64_t)(((uint32_t)q + 0x3ffu) << 20) << 32);
}
/* _mm256_round_pd / roundsd to nearest even. */
static inline double sp_rint(double x) { return nearbyint(x); }

/* logk(d) for d = |x| > 0 finite: ln d as a pair (a subnormal d scaled by 2^64 first). */
static inline dd_t sp_logk(double d) {
    int32_t e;
    const int sub = d < 0x1p-1022;
    if (sub) d *= 0x1p64;
    e = (int32_t)((dm_d2u(d * (1.0 / 0.75)) >> 52) & 0x7ff) - 0x3ff;
    const double m = dm_u2d(dm_d2u(d) + ((uint64_t)(uint32_t)(-e) << 52)); /* vldexp3 */
    if (sub) e -= 64;
    dd_t x = sp_div(sp_add2_d_d(-1.0, m), sp_add2_d_d(1.0, m));
    const dd_t x2 = sp_squ(x);
    const double x4 = x2.hi * x2.hi, x8 = x4 * x4, x16 = x8 * x8;
    const double t = SP_MLA(x16, 0.116255524079935043668677,
                            SP_POLY8(x2.hi, x4, x8, 0.103239680901072952701192, 0.117754809412463995466069,
                                     0.13332981086846273921509, 0.153846227114512262845736,
                                     0.181818180850050775676507, 0.222222222230083560345903,
                                     0.285714285714249172087875, 0.400000000000000077715612));
    const dd_t c = {0.666666666666666629659233, 3.80554962542412056336616e-17};
    dd_t s = sp_mul_dd_d((dd_t){0.693147180559945286226764, 2.319046813846299558417771e-17}, (double)e);
    s = sp_add_dd_dd(s, (dd_t){x.hi * 2, x.lo * 2});
    x = sp_mul_dd_dd(x2, x);
    s = sp_add_dd_dd(s, sp_mul_dd_dd(x, c));
    x = sp_mul_dd_dd(x2, x);
    return sp_add_dd_dd(s, sp_mul_dd_d(x, t));
}

/* expk(d): e^(d.hi + d.lo), 0 below d.hi < -1000. */
static inline double sp_expk(dd_t d) {
    const double R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931;
    const double L2U = .69314718055966295651160180568695068359375;
    const double L2L = .28235290563031577122588448175013436025525412068e-12;
    double u = (d.hi + d.lo) * R_LN2;
    const double dq = sp_rint(u);
    /* _mm256_cvtpd_epi32: the integer indefinite 0x80000000 out of range */
    const int32_t q = (dq >= -2147483648.0 && dq < 2147483648.0) ? (int32_t)dq : INT32_MIN;
    dd_t s = sp_add2_dd_d(d, dq * -L2U);
    s = sp_add2_dd_d(s, dq * -L2L);
    s = sp_normalize(s);
    const double s2 = s.hi * s.hi, s4 = s2 * s2, s8 = s4 * s4;
    u = SP_MLA(s8, SP_POLY2(s.hi, 2.51069683420950419527139e-08, 2.76286166770270649116855e-07),
               SP_POLY8(s.hi, s2, s4, 2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
                        0.000198412698809069797676111, 0.0013888888939977128960529, 0.00833333333332371417601081,
                        0.0416666666665409524128449, 0.166666666666666740681535, 0.500000000000000999200722));
    dd_t t = sp_add_d_dd(1.0, s);
    t = sp_add_dd_dd(t, sp_mul_dd_d(sp_squ(s), u));
    u = t.hi + t.lo;
    u = (u * sp_pow2i(q >> 1)) * sp_pow2i(q - (q >> 1)); /* vldexp2 */
    return d.hi < -1000 ? 0.0 : u;
}

/* xpow(x, y): expk(logk(|x|) * y), its special cases in SLEEF's order of selects. */
static inline double sleef_pow_d(double x, double y) {
    const int yisint = sp_rint(y) == y;
    const int yisodd = yisint && sp_rint(y * 0.5) != y * 0.5;
    const dd_t d = sp_mul_dd_d(sp_logk(fabs(x)), y);
    double result = sp_expk(d);
    if (d.hi > 0x1.62e42fefa39efp+9) result = INFINITY;
    result *= x > 0 ? 1.0 : (!yisint ? NAN : (yisodd ? -1.0 : 1.0));
    const double efx = copysign(1.0, y) * (fabs(x) - 1.0); /* vmulsign: y's sign bit xored in */
    if (isinf(y)) result = efx < 0 ? 0.0 : (efx == 0 ? 1.0 : INFINITY);
    if (isinf(x) || x == 0)
        result = copysign((signbit(y) != 0) ^ (x == 0) ? 0.0 : INFINITY, yisodd ? x : 1.0);
    if (isnan(x) || isnan(y)) result = dm_u2d(~(uint64_t)0); /* all ones: the mask or'ed in */
    if (y == 0 || x == 1) result = 1.0;
    return result;
}

/* ----------------------------------------------------------------- MKL VML's double sin and cos */

/* SLEEF's double sin/cos u1 (Sleef_sind2_u10 / cosd2_u10 on aarch64's NEON, sindx/cosdx_u10sve on SVE: the
 * same arithmetic, every multiply-add one fma) as SLEEF 3.x's non-deterministic build computes a lane: the
 * vector takes its first Cody-Waite branch (pi in two parts, PI_A2 + PI_B2) where every lane has |x| < 15
 * (`cw2`), else its second (pi in four parts, the quotient split in dqh + dql) where every lane has
 * |x| < 1e14; the Payne-Hanek branch (rempi) past that, infinities and NaNs are not ported (the caller
 * refuses them). sin: q = rint(x/pi), s = x - q pi as a pair; cos: q = 2 rint(x/pi - 1/2) + 1,
 * s = x - q pi/2. Then t = s, s = s^2, u = a degree-6 polynomial in s.hi (Estrin) times s.hi plus 1/120,
 * x = 1 + (-1/6 + u s.hi) s, the value t x; its sign flipped where q is odd (sin) or q & 2 is 0 (cos);
 * sin of +-0 is x itself. */
#define SLEEF_PI_A 3.1415926218032836914
#define SLEEF_PI_B 3.1786509424591713469e-08
#define SLEEF_PI_C 1.2246467864107188502e-16
#define SLEEF_PI_D 1.2736634327021899816e-24
#define SLEEF_PI_A2 3.141592653589793116
#define SLEEF_PI_B2 1.2246467991473532072e-16
#define SLEEF_M_1_PI 0.318309886183790671537767526745028724
#define SLEEF_TRIGRANGEMAX2 15.0
#define SLEEF_TRIGRANGEMAX 1e14
#define SP_POLY6(x, x2, x4, c5, c4, c3, c2, c1, c0) SP_MLA(x4, SP_POLY2(x, c5, c4), SP_POLY4(x, x2, c3, c2, c1, c0))

/* ddadd (|x| >= |y|) of two doubles: s = x + y, (x - s) + y. */
static inline dd_t sp_add_d_d(double x, double y) {
    const double s = x + y;
    return (dd_t){s, (x - s) + y};
}
/* ddadd (|x.hi| >= |y|) of a pair and a double: s = x.hi + y, ((x.hi - s) + y) + x.lo. */
static inline dd_t sp_add_dd_d(dd_t x, double y) {
    const double s = x.hi + y;
    return (dd_t){s, ((x.hi - s) + y) + x.lo};
}

static inline double sleef_sincos_d_u1(double d, int cosine, int cw2) {
    dd_t s;
    int64_t ql;
    if (cw2 && !cosine) {
        const double dql = sp_rint(d * SLEEF_M_1_PI);
        ql = (int64_t)dql;
        s = sp_add_d_d(fma(dql, -SLEEF_PI_A2, d), dql * -SLEEF_PI_B2);
    } else if (cw2) {
        const double dql = fma(2.0, sp_rint(fma(d, SLEEF_M_1_PI, -0.5)), 1.0);
        ql = (int64_t)dql;
        s = sp_add2_d_d(d, dql * (-SLEEF_PI_A2 * 0.5));
        s = sp_add_dd_d(s, dql * (-SLEEF_PI_B2 * 0.5));
    } else {
        double dqh, dql, h = 1.0;
        if (!cosine) {
            dqh = trunc(d * (SLEEF_M_1_PI / (1 << 24))) * (1 << 24);
            dql = sp_rint(fma(d, SLEEF_M_1_PI, -dqh));
            ql = (int64_t)dql;
        } else {
            dqh = trunc(fma(d, SLEEF_M_1_PI / (1 << 23), -SLEEF_M_1_PI / (1 << 24)));
            ql = (int64_t)sp_rint(d * SLEEF_M_1_PI + fma(dqh, -(double)(1 << 23), -0.5));
            dqh *= (1 << 24);
            ql = ql + ql + 1;
            dql = (double)ql;
            h = 0.5;
        }
        const double u = fma(dqh, -SLEEF_PI_A * h, d);
        s = cosine ? sp_add2_d_d(u, dql * (-SLEEF_PI_A * h)) : sp_add_d_d(u, dql * (-SLEEF_PI_A * h));
        s = sp_add2_dd_d(s, dqh * (-SLEEF_PI_B * h));
        s = sp_add2_dd_d(s, dql * (-SLEEF_PI_B * h));
        s = sp_add2_dd_d(s, dqh * (-SLEEF_PI_C * h));
        s = sp_add2_dd_d(s, dql * (-SLEEF_PI_C * h));
        s = sp_add_dd_d(s, (dqh + dql) * (-SLEEF_PI_D * h));
    }
    const dd_t t = s;
    s = sp_squ(s);
    const double s2 = s.hi * s.hi, s4 = s2 * s2;
    double u = SP_POLY6(s.hi, s2, s4, 2.72052416138529567917983e-15, -7.6429259411395447190023e-13,
                        1.60589370117277896211623e-10, -2.5052106814843123359368e-08, 2.75573192104428224777379e-06,
                        -0.000198412698412046454654947);
    u = fma(u, s.hi, 0.00833333333333318056201922);
    const dd_t x = sp_add_d_dd(1.0, sp_mul_dd_dd(sp_add_d_d(-0.166666666666666657414808, u * s.hi), s));
    u = fma(t.hi, x.hi, fma(t.lo, x.hi, t.hi * x.lo)); /* ddmul_vd_vd2_vd2 */
    if (cosine ? (ql & 2) == 0 : (ql & 1) == 1) u = dm_u2d(dm_d2u(u) ^ 0x8000000000000000ull);
    return !cosine && d == 0.0 ? d : u;
}

/* vmdSin/vmdCos with VML_HA on MKL's generic path (mkl_vml_kernel_dSin_EXHAynn / dCos_EXHAynn, the same code as
 * their E2HAynn twins), read from libtorch_cpu.so 2.13.0's machine code: SSE2 pairs, no fused step, every lane on
 * its own (the 4-element body and the 2-element tail compute alike, -p and + -q where the other has - p, exact).
 * a = |x| for sin, x for cos; the angle a = 2*pi*(i/512 + turns), i from 0 to 511 (cos: i + 128 below).
 * |x| <= MKL_VML_SINCOS_D_MAX:
 *   k = (a * 256/pi + 1.5*2^52) - 1.5*2^52, i = k mod 512 from the shifted sum's low bits
 *   r1 = a - k*P1, r = r1 - k*P2, rl = ((r1 - r) - k*P2) - k*P3                       (pi/256 = P1 + P2 + P3)
 * past it (mkl_vml_sincos_d_large): the Payne-Hanek branch, the significand times a 192-bit window of 1/(2*pi)
 * in 32-bit partial products, the fraction of the turns in three doubles, i from the first by a 1.5*2^43 shifter,
 * the rest times 2*pi in parts (r, rl).
 * Then (mkl_vml_sincos_d_eval), with {d0, d1, s, t} = vm_sincos_d_tab[i], d = d1 + d0:
 *   s1 = s + r*d1, e1 = (s - s1) + r*d1; s2 = r*d0 + s1, e2 = (s1 - s2) + r*d0
 *   u = (((r2*S2 + S1) * r2) * r) * d + (e2 + e1)                                           (r2 = r*r)
 *   v = (((C1 - r2*C2) * r2 - 1/2) * r2) * s + u
 *   result = (((d - r*s) * rl + t) + v) + s2, sin's with x's sign bit xored in.
 * An infinity gives x * 0 (the default NaN 0xfff8000000000000), a NaN x * x (x quieted). */
#define MKL_VML_SINCOS_D_MAX 0x1.000000e4db24cp+16

static inline double mkl_vml_sincos_d_eval(double r, double rl, uint64_t i) {
    const uint64_t *e = vm_sincos_d_tab[i & 511u];
    const double d0 = dm_u2d(e[0]), d1 = dm_u2d(e[1]), s = dm_u2d(e[2]), t = dm_u2d(e[3]);
    const double d = d1 + d0;
    const double a1 = r * d1, s1 = s + a1, e1 = (s - s1) + a1;
    const double a2 = d0 * r, s2 = a2 + s1, e2 = (s1 - s2) + a2;
    const double r2 = r * r;
    const double u = (((r2 * 0x1.1110fabb3551cp-7 + -0x1.5555555554448p-3) * r2) * r) * d + (e2 + e1);
    const double v = (((0x1.5555555554ccfp-5 - r2 * 0x1.6c16ab163b2d7p-10) * r2 + -0.5) * r2) * s + u;
    return (((d - r * s) * rl + t) + v) + s2;
}

/* Bits g .. g + 63 of 1/(2*pi)'s fraction (bit 1 the first; bits before it 0), g >= -63. */
static inline uint64_t mkl_inv2pi_d_word(int g) {
    const int p = g - 1;
    if (p < 0) return vm_inv2pi_d_bits[0] >> -p;
    const int k = p >> 6, sh = p & 63;
    return sh ? (vm_inv2pi_d_bits[k] << sh) | (vm_inv2pi_d_bits[k + 1] >> (64 - sh)) : vm_inv2pi_d_bits[k];
}

/* The Payne-Hanek branch for a finite |x| past MKL_VML_SINCOS_D_MAX (u: x's bits; `sign`: the sign bit the turns
 * carry, x's for cos, 0 for sin): the table index i (cos adds 128) and r + rl, each step as the kernel's.
 * m = mh * 2^32 + ml (x's significand, mh its top 21 bits with the leading one), W = q0:q1:q2 the window for x's
 * biased exponent e (bits e - 1074 .. e - 883 of 1/(2*pi)); lo/hi the 32-bit halves, sums mod 2^64. */
static inline double mkl_vml_sincos_d_large(uint64_t u, uint64_t sign, uint64_t *i, double *rl) {
    const uint64_t L32 = 0xffffffffu;
    const int s = (int)((u >> 52) & 0x7ff) - 883;
    const uint64_t q0 = mkl_inv2pi_d_word(s - 191), q1 = mkl_inv2pi_d_word(s - 127), q2 = mkl_inv2pi_d_word(s - 63);
    const uint64_t mh = ((u >> 32) & 0xfffffu) | 0x100000u, ml = u & L32;
    uint64_t a5 = (q1 & L32) * ml;
    const uint64_t a10 = (a5 >> 32) + (q1 & L32) * mh;
    a5 = (a5 & L32) + (q2 >> 32) * mh + (((q2 >> 32) * ml) >> 32);
    const uint64_t a6 = (q0 & L32) * ml, p7 = (q1 >> 32) * ml;
    uint64_t a7 = (p7 & L32) + a10;
    uint64_t a4 = ((((q0 >> 32) * ml + mh * (q0 & L32)) << 32) + a6) & 0xffffffff00000000u;
    const uint64_t b10 = (a6 & L32) + (q1 >> 32) * mh + (p7 >> 32);
    const uint64_t a3 = ((mh * (q2 & L32)) >> 32) + a5;
    uint64_t b6 = (a3 >> 32) + a7;
    a7 = (b6 >> 32) + b10;
    b6 = (b6 << 32) | (a3 & 0xff000000u);
    a4 += a7;
    double f = dm_u2d((a4 >> 12) | 0x3ff0000000000000u | sign); /* +-(1 + the turns' first 52 bits) */
    const double shifted = f + 0x1.8p43;
    f -= shifted + -0x1.8p43;
    *i = dm_d2u(shifted);
    const double lo = dm_u2d(((a3 << 28) & 0xffffff0000000u) | sign | 0x3970000000000000u) -
                      dm_u2d(sign | 0x3970000000000000u);
    const double mid = dm_u2d((b6 >> 24) | ((a7 << 40) & 0xfff0000000000u) | sign | 0x3cb0000000000000u) -
                       dm_u2d(sign | 0x3cb0000000000000u);
    double th = mid + f;
    const double tl = ((f - th) + mid) + lo;
    const double hi = dm_u2d(dm_d2u(th) & 0xfffffffff8000000u);
    th -= hi; /* the turns hi + th + tl times 2*pi as A = 0x1.921fb54p+2 plus B, and rounded whole */
    const double ph = hi * 0x1.921fb54000000p+2;
    const double pl = (th * 0x1.10b4611a62633p-28 + tl * 0x1.921fb54442d18p+2) + (hi * 0x1.10b4611a62633p-28 +
                                                                                   th * 0x1.921fb54000000p+2);
    const double r = ph + pl;
    *rl = (ph - r) + pl;
    return r;
}

static inline double mkl_vml_sincos_d(double x, int cosine) {
    const uint64_t u = dm_d2u(x);
    if ((u & 0x7ff0000000000000u) == 0x7ff0000000000000u)
        return (u & 0x000fffffffffffffu) ? dm_u2d(u | 0x0008000000000000u) : dm_u2d(0xfff8000000000000u);
    const double a = cosine ? x : fabs(x);
    double r, rl;
    uint64_t i;
    if (fabs(x) <= MKL_VML_SINCOS_D_MAX) {
        const double shifted = a * 0x1.45f306dc9c883p+6 + 0x1.8p52;
        const double k = shifted + -0x1.8p52;
        const double r1 = a - k * 0x1.921fb54400000p-7;
        const double p2 = k * 0x1.0b4611a600000p-41;
        r = r1 - p2;
        rl = ((r1 - r) - p2) - k * 0x1.3198a2e037073p-76;
        i = dm_d2u(shifted);
    } else {
        r = mkl_vml_sincos_d_large(u, cosine ? u & 0x8000000000000000u : 0, &i, &rl);
    }
    const double result = mkl_vml_sincos_d_eval(r, rl, i + (cosine ? 128u : 0u));
    return cosine ? result : dm_u2d(dm_d2u(result) ^ (u & 0x8000000000000000u));
}

/* ------------------------------------------------------------------ glibc's double pow (x86-64) */

/* glibc 2.28 and later (sysdeps/ieee754/dbl-64/e_pow.c, one algorithm; its tables in glibc_pow_table.h).
 * x86-64's libm picks __pow_fma by ifunc where the CPU has FMA and AVX2 (else an FMA4 or an SSE2 build,
 * other bits: not reproduced); this is that build's code as GCC emitted it in glibc 2.36 (read from
 * libm.so.6's disassembly), every product GCC contracted spelt as fma() in the order of its operands:
 *   log(|x|) = hi + tail: x = 2^k z, z in [0x1.69555p-1, 0x1.69555p+0) from ix - 0x3fe6955500000000, c the
 *     center of z's 128th (table 1/c, log c in two parts): r = fma(z, 1/c, -1) (exact), t1 = fma(k, ln2hi,
 *     log c), t2 = t1 + r, lo1 = fma(k, ln2lo, logctail), lo2 = (t1 - t2) + r; ar = -0.5 r, ar2 = r ar,
 *     ar3 = r ar2, hi = t2 + ar2, lo3 = fma(ar, r, -ar2), lo4 = (t2 - hi) + ar2; the polynomial
 *     q = fma(ar2, fma(fma(r, A6, A5), ar2, fma(r, A4, A3)), fma(r, A2, A1)) joins the sum by an fma:
 *     lo = fma(ar3, q, ((lo1 + lo2) + lo3) + lo4); y = hi + lo, tail = (hi - y) + lo.
 *   y log|x| = ehi + elo: ehi = y * hi, elo = fma(y, tail, fma(hi, y, -ehi)).
 *   exp: kd = fma(ehi, 128/ln2, 1.5*2^52) (its bits are k), kd -= shifter; r = fma(kd, -ln2/128 lo,
 *     fma(kd, -ln2/128 hi, ehi)) + elo; tmp = fma(fma(r, C5, C4), r2 * r2, fma(fma(r, C3, C2), r2,
 *     r + T[k mod 128]'s tail)), r2 = r * r; scale from 2^(k/128)'s word plus (k + sign) << 45;
 *     the power fma(scale, tmp, scale). Where |ehi| is 512 or more (or rounds past), the scale is taken
 *     2^1009 lower (k > 0, fma then times 2^1009) or 2^1022 higher (k < 0: scale + scale * tmp not fused,
 *     below 1 rounded by glibc's one-sum step before times 2^-1022); |ehi| < 2^-54: 1 + ehi.
 * Special values as e_pow.c orders them; its x + y of a NaN is SSE's addsd (x's NaN quieted, else y's),
 * the invalid case (a negative x to a non-integer y) x86's default NaN, overflow and underflow +-inf and
 * +-0. */
#define GP_LOG(j) dm_u2d(glibc_pow_log_head[j])
#define GP_EXP(j) dm_u2d(glibc_exp_head[j])
#define GP_ONE 0x3ff0000000000000ull
#define GP_INF 0x7ff0000000000000ull
#define GP_SIGN_BIAS 0x40000ull /* 0x800 << 7: the sign carried into the scale's exponent */

static inline double gp_log(uint64_t ix, double *tail) {
    const uint64_t tmp = ix - 0x3fe6955500000000ull;
    const uint64_t *t = glibc_pow_log_tab[(tmp >> 45) & 127];
    const double kd = (double)((int64_t)tmp >> 52);
    const double z = dm_u2d(ix - (tmp & 0xfffull << 52));
    const double t1 = fma(kd, GP_LOG(0), dm_u2d(t[2])), lo1 = fma(kd, GP_LOG(1), dm_u2d(t[3]));
    const double r = fma(z, dm_u2d(t[0]), -1.0);
    const double ar = r * GP_LOG(2), ar2 = r * ar, ar3 = r * ar2;
    const double t2 = r + t1, lo2 = (t1 - t2) + r, lo3 = fma(ar, r, -ar2);
    const double hi = t2 + ar2, lo4 = (t2 - hi) + ar2;
    const double inner = fma(fma(r, GP_LOG(8), GP_LOG(7)), ar2, fma(r, GP_LOG(6), GP_LOG(5)));
    const double q = fma(ar2, inner, fma(r, GP_LOG(4), GP_LOG(3)));
    const double lo = fma(ar3, q, ((lo1 + lo2) + lo3) + lo4);
    const double y = hi + lo;
    *tail = (hi - y) + lo;
    return y;
}

/* The scale's exponent overflowed (k > 0) or underflows (k < 0): e_pow.c's specialcase. */
static inline double gp_exp_special(double tmp, uint64_t sbits, uint64_t ki) {
    if (!(ki & 0x80000000u)) {
        const double scale = dm_u2d(sbits - (1009ull << 52));
        return fma(scale, tmp, scale) * 0x1p1009;
    }
    sbits += 1022ull << 52;
    const double scale = dm_u2d(sbits), st = scale * tmp;
    double y = scale + st;
    if (fabs(y) < 1.0) {
        const double one = y < 0.0 ? -1.0 : 1.0, lo = (scale - y) + st, hi = one + y;
        y = (hi + (((one - hi) + y) + lo)) - one;
        if (y == 0.0) y = dm_u2d(sbits & 0x8000000000000000ull);
    }
    return y * 0x1p-1022;
}

/* a64: aarch64's build (TOINT_INTRINSICS): z = x * 128/ln2 rounded, k = round(z) ties away (FRINTA,
 * FCVTAS), where x86's shifter rounds the exact product to even. */
static inline double gp_exp(double x, double xtail, uint64_t sign_bias, int a64) {
    uint32_t abstop = (uint32_t)(dm_d2u(x) >> 52) & 0x7ff;
    if (abstop - 0x3c9u > 0x3eu) {
        if ((int32_t)(abstop - 0x3c9u) < 0) {
            const double one = 1.0 + x;
            return sign_bias ? -one : one;
        }
        if (abstop > 0x408) {
            const double r = dm_d2u(x) >> 63 ? 0.0 : INFINITY;
            return sign_bias ? -r : r;
        }
        abstop = 0;
    }
    double kd;
    uint64_t ki;
    if (a64) {
        kd = round(x * GP_EXP(0));
        ki = (uint64_t)(int64_t)kd;
    } else {
        const double shifted = fma(x, GP_EXP(0), GP_EXP(7));
        ki = dm_d2u(shifted);
        kd = shifted - GP_EXP(7);
    }
    const uint64_t idx = 2 * (ki & 127);
    const double r = xtail + fma(kd, GP_EXP(2), fma(kd, GP_EXP(1), x));
    const uint64_t sbits = glibc_exp_tab[idx + 1] + ((ki + sign_bias) << 45);
    const double r2 = r * r;
    const double low = fma(fma(r, GP_EXP(4), GP_EXP(3)), r2, r + dm_u2d(glibc_exp_tab[idx]));
    const double tmp = fma(fma(r, GP_EXP(6), GP_EXP(5)), r2 * r2, low);
    if (abstop == 0) return gp_exp_special(tmp, sbits, ki);
    const double scale = dm_u2d(sbits);
    return fma(scale, tmp, scale);
}

/* 0: not an integer, 1: odd, 2: even (iy finite, not 0). */
static inline int gp_checkint(uint64_t iy) {
    const int e = (int)(iy >> 52 & 0x7ff);
    if (e < 0x3ff) return 0;
    if (e > 0x3ff + 52) return 2;
    if (iy & ((1ull << (0x3ff + 52 - e)) - 1)) return 0;
    return iy & (1ull << (0x3ff + 52 - e)) ? 1 : 2;
}

static inline int gp_zeroinfnan(uint64_t i) { return 2 * i - 1 >= 2 * GP_INF - 1; }
static inline int gp_signalling(uint64_t i) { return 2 * (i ^ 0x0008000000000000ull) > 2 * 0x7ff8000000000000ull; }

/* x + y of two doubles of which one is a NaN: SSE's addsd, the first's NaN quieted, else the second's; a64:
 * aarch64's FADD (FPProcessNaNs), the first signalling one quieted, else the first quiet one. */
static inline double gp_nan_sum(double a, double b, int a64) {
    const uint64_t ia = dm_d2u(a), ib = dm_d2u(b);
    const int first = a64 ? (isnan(a) && gp_signalling(ia)) || (!(isnan(b) && gp_signalling(ib)) && isnan(a))
                          : isnan(a);
    return dm_u2d((first ? ia : ib) | 0x0008000000000000ull);
}

/* glibc_pow_d of x86-64's FMA build (a64 0) or aarch64's (a64 1, glibc 2.36's libm.so.6 read likewise: every
 * fma of the x86 build fused there too, in the same operands; gp_exp's k rounded from the rounded product,
 * ties away; FADD's NaN pick; the invalid case aarch64's default NaN +qNaN). */
static inline double glibc_pow_dd(double x, double y, int a64) {
    uint64_t ix = dm_d2u(x), sign_bias = 0;
    const uint64_t iy = dm_d2u(y);
    uint32_t topx = (uint32_t)(ix >> 52);
    const uint32_t topy = (uint32_t)(iy >> 52) & 0x7ff;
    if (topx - 1u >= 0x7feu || topy - 0x3beu >= 0x80u) {
        if (gp_zeroinfnan(iy)) {
            if (2 * iy == 0) return gp_signalling(ix) ? gp_nan_sum(x, y, a64) : 1.0;
            if (ix == GP_ONE) return gp_signalling(iy) ? gp_nan_sum(x, y, a64) : 1.0;
            if (2 * ix > 2 * GP_INF || 2 * iy > 2 * GP_INF) return gp_nan_sum(x, y, a64);
            if (2 * ix == 2 * GP_ONE) return 1.0;
            if ((2 * ix < 2 * GP_ONE) == !(iy >> 63)) return 0.0;
            return y * y;
        }
        if (gp_zeroinfnan(ix)) {
            double x2 = x * x;
            if (ix >> 63 && gp_checkint(iy) == 1) x2 = -x2;
            return iy >> 63 ? 1.0 / x2 : x2;
        }
        if (ix >> 63) {
            const int yint = gp_checkint(iy);
            if (yint == 0) return dm_u2d(a64 ? 0x7ff8000000000000ull : 0xfff8000000000000ull);
            if (yint == 1) sign_bias = GP_SIGN_BIAS;
            ix &= 0x7fffffffffffffffull;
            topx &= 0x7ff;
        }
        if (topy - 0x3beu >= 0x80u) {
            if (ix == GP_ONE) return 1.0;
            if (topy < 0x3be) return ix > GP_ONE ? 1.0 + y : 1.0 - y;
            return (ix > GP_ONE) == !(iy >> 63) ? INFINITY : 0.0;
        }
        if (topx == 0) ix = (dm_d2u(x * 0x1p52) & 0x7fffffffffffffffull) - (52ull << 52);
    }
    double tail;
    const double hi = gp_log(ix, &tail);
    const double ehi = y * hi;
    return gp_exp(ehi, fma(y, tail, fma(hi, y, -ehi)), sign_bias, a64);
}

static inline double glibc_pow_d(double x, double y) { return glibc_pow_dd(x, y, 0); }

/* ------------------------------------------------------------ glibc's double sin and cos (aarch64) */

/* glibc's double sincos (2.28 and later, sysdeps/ieee754/dbl-64 s_sincos.c over s_sin.c's do_sin and do_cos,
 * the IBM Accurate Mathematical Library's), as glibc 2.36's aarch64 libm.so.6 computes it: read from its
 * disassembly, GCC's contraction made explicit (fma). Only sincos (one call per angle in the aarch64 wheel's
 * pocketfft twiddles); glibc's sin and cos are functions of their own (sin: x below 2^-26, and past 0.855469
 * do_cos(hp0 - |x|, hp1)), not ported. Ported: |x| < 2.426265 (high word below 0x400368fd); larger |x|
 * (reduce_sincos, __branred), infinities and NaNs return -1 with NaNs (the callers refuse).
 *   |x| < 2^-27: sin x, cos 1.
 *   |x| < 0.855469: do_sin(x, 0), do_cos(x, 0).
 *   else: y = hp0 - |x|, a = y + hp1, da = (y - a) + hp1 (pi/2 - |x| as a pair); sin copysign(do_cos(a, da), x),
 *     cos do_sin(a, da).
 * do_sin(x, dx): |x| < 0.126: TAYLOR_SIN, a + ((P(xx) x - dx/2) xx + dx) with P = s1 + xx (s2 + ... xx s5)
 *   (each step one fma; (P x - dx/2) one fnmsub, its xx product fused into + dx). Else dx negated where
 *   x <= 0, u = 1.5*2^45 + |x| (|x| to the nearest k/128, k the low word), r = |x| - (u - 1.5*2^45), table
 *   entry k (sn, ssn, cs, ccs): s = r + fma(r*xx, sn3 + xx sn5, dx), c = fma(dx, r, xx (cs2 + xx (cs4 + xx
 *   cs6))) (xx = r*r, the polynomials fma steps), cor = fma(s, cs, fma(-c, sn, fma(s, ccs, ssn))), result
 *   copysign(cor + sn, x).
 * do_cos(x, dx): dx negated where x < 0, u and r as above, r += dx; s = fma(r*xx, sn3 + xx sn5, r), c as
 *   above without the dx term, cor = fma(-s, sn, fma(-c, cs, fma(-s, ssn, ccs))), result cor + cs.
 * The constants are glibc's own (usncs.h and s_sin.c, the doubles its decimals round to); the table is
 * glibc_sincos_table.h. tab is the table (a test library passes a perturbed copy), fuse 0 rounds do_sin's
 * cs*s apart from its sum (a perturbation for the tests: the kernels always pass 1). */
static const double GS_S1 = -0x1.5555555555555p-3, GS_S2 = 0x1.1111111110ecep-7, GS_S3 = -0x1.a01a019db08b8p-13,
                    GS_S4 = 0x1.71de27b9a7ed9p-19, GS_S5 = -0x1.addffc2fcdf59p-26;
static const double GS_SN3 = -0x1.5555555555515p-3, GS_SN5 = 0x1.11110e829872fp-7, GS_CS2 = 0.5,
                    GS_CS4 = -0x1.5555555555535p-5, GS_CS6 = 0x1.6c16bedd9e239p-10;
static const double GS_BIG = 0x1.8p45, GS_HP0 = 0x1.921fb54442d18p0, GS_HP1 = 0x1.1a62633145c07p-54;

static inline double gs_taylor_sin(double a, double da) {
    const double xx = a * a;
    const double p = fma(xx, fma(xx, fma(xx, fma(xx, GS_S5, GS_S4), GS_S3), GS_S2), GS_S1);
    return a + fma(xx, fma(a, p, -(0.5 * da)), da);
}

static inline double gs_do_sin(double x, double dx, const uint64_t (*tab)[4], int fuse) {
    if (fabs(x) < 0x1.020c49ba5e354p-3) return gs_taylor_sin(x, dx); /* 0.126 */
    if (x <= 0) dx = -dx;
    const double u = GS_BIG + fabs(x), r = fabs(x) - (u - GS_BIG);
    const uint64_t *e = tab[(uint32_t)dm_d2u(u)];
    const double sn = dm_u2d(e[0]), ssn = dm_u2d(e[1]), cs = dm_u2d(e[2]), ccs = dm_u2d(e[3]);
    const double xx = r * r;
    const double s = fma(r * xx, fma(xx, GS_SN5, GS_SN3), dx) + r;
    const double c = fma(dx, r, xx * fma(xx, fma(xx, GS_CS6, GS_CS4), GS_CS2));
    const double cor = fma(-c, sn, fma(s, ccs, ssn));
    return copysign((fuse ? fma(s, cs, cor) : s * cs + cor) + sn, x);
}

static inline double gs_do_cos(double x, double dx, const uint64_t (*tab)[4]) {
    if (x < 0) dx = -dx;
    const double u = GS_BIG + fabs(x), r = (fabs(x) - (u - GS_BIG)) + dx;
    const uint64_t *e = tab[(uint32_t)dm_d2u(u)];
    const double sn = dm_u2d(e[0]), ssn = dm_u2d(e[1]), cs = dm_u2d(e[2]), ccs = dm_u2d(e[3]);
    const double xx = r * r;
    const double s = fma(r * xx, fma(xx, GS_SN5, GS_SN3), r);
    const double c = xx * fma(xx, fma(xx, GS_CS6, GS_CS4), GS_CS2);
    return fma(-s, sn, fma(-c, cs, fma(-s, ssn, ccs))) + cs;
}

static inline int glibc_sincos_a64_k(double x, double *s, double *c, const uint64_t (*tab)[4], int fuse) {
    const uint32_t k = (uint32_t)(dm_d2u(x) >> 32) & 0x7fffffffu;
    if (k < 0x3e400000u) {
        *s = x, *c = 1.0;
    } else if (k < 0x3feb6000u) {
        *s = gs_do_sin(x, 0.0, tab, fuse), *c = gs_do_cos(x, 0.0, tab);
    } else if (k < 0x400368fdu) {
        const double y = GS_HP0 - fabs(x), a = y + GS_HP1, da = (y - a) + GS_HP1;
        *s = copysign(gs_do_cos(a, da, tab), x), *c = gs_do_sin(a, da, tab, fuse);
    } else {
        *s = NAN, *c = NAN;
        return -1;
    }
    return 0;
}

/* glibc's sincos(x) of aarch64 (above) for |x| < 2.426265: 0, or -1 with NaNs outside. */
static inline int glibc_sincos_a64(double x, double *s, double *c) {
    return glibc_sincos_a64_k(x, s, c, glibc_sincostab, 1);
}

#endif
