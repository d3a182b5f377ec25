/* mix256-v1: the one-pass digest and float32 sum of harness/core/digest.py, shared by digest.c (the
 * library and Python module harness.core._digest), tracer.c (the tracer's bookkeeping) and the
 * dispatcher hook (harness/trace/csrc/hook.cpp). A header, not a library: each includes its own copy.
 *
 * Digest: four 64-bit lanes, each starting from its own constant. Every 32-byte stripe gives lane q
 * its q-th little-endian 64-bit word w: acc = rotl(acc + w * P2, 31) * P1. For a fixed stripe each
 * step is a bijection of acc (odd multipliers, rotation), so two inputs of the same length that
 * differ in one word leave that lane's state, and so the digest, different. The last n % 32 bytes
 * go, zero-padded, through one more stripe; then every lane takes the length (acc ^= n * P3) and a
 * bijective finaliser (xor-shift-multiply), and the four lanes are the digest, lane 0 first, each
 * little-endian.
 *
 * Sum (float32 only): float64 partial sums by element index mod 8, each in index order, then
 * ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)). Deterministic on every machine; not NumPy's
 * pairwise order, so sums are compared only with sums of the same algorithm.
 *
 * The loop over whole stripes has two builds with the same arithmetic: a portable one and, on x86-64
 * CPUs with AVX (asked at run time), one whose eight partial sums are two 4-wide float64 vectors
 * (element j of a stripe into lane j % 4 of vector j / 4: each partial sum is still its own
 * sequence of float64 additions in index order, so the bits are the same), the lanes left scalar
 * (AVX2's 64-bit lanes have no 64-bit multiply: emulated, slower). About 1.5 times as fast where the
 * data is in cache (15 against 9.5 GB/s). Both give every byte of the digest and sum alike
 * (tests/test_digest.py checks them against a Python rendering of this description).
 *
 * A fingerprint can also be taken piecewise (fp_init, fp_update with consecutive pieces of the
 * bytes, fp_final): the same digest and sum as one call over their concatenation. */
#ifndef PARITY_FINGERPRINT_H
#define PARITY_FINGERPRINT_H

#include <stdint.h>
#include <string.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t load64(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

static inline uint64_t finalise(uint64_t h) {
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

static inline void stripe(uint64_t acc[4], const uint8_t *p) {
    for (int q = 0; q < 4; q++) acc[q] = rotl64(acc[q] + load64(p + 8 * q) * P2, 31) * P1;
}

/* The state of a fingerprint taken piecewise: lanes, partial sums, bytes so far, a partial stripe. */
typedef struct {
    uint64_t acc[4];
    double s[8];
    int64_t n;
    uint8_t part[32];
    int fill;     /* bytes in part */
    int with_sum; /* float32 data: its sum is taken too */
} fp_state;

/* stripes whole 32-byte stripes at p into acc, and with s != NULL their floats into s (portable) */
static void fp_stripes_plain(uint64_t acc[4], double *s, const uint8_t *p, int64_t stripes) {
    if (s == NULL)
        for (int64_t i = 0; i < stripes; i++) stripe(acc, p + 32 * i);
    else
        for (int64_t i = 0; i < stripes; i++) {
            const uint8_t *x = p + 32 * i;
            for (int j = 0; j < 8; j++) {
                float v;
                memcpy(&v, x + 4 * j, sizeof v);
                s[j] += (double)v;
            }
            stripe(acc, x);
        }
}

/* PARITY_FP_NO_AVX: a build for a CPU without AVX (an emulated one) leaves the AVX loop out, so
 * that its code holds no VEX instruction at all, not only none it runs */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(PARITY_FP_NO_AVX)
#define PARITY_FP_AVX 1
#include <immintrin.h>

/* fp_stripes_plain with the partial sums as two vectors: s[0..3] and s[4..7] */
__attribute__((target("avx"))) static void fp_stripes_avx(uint64_t acc[4], double *s, const uint8_t *p,
                                                           int64_t stripes) {
    uint64_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    if (s == NULL)
        for (int64_t i = 0; i < stripes; i++) {
            const uint8_t *x = p + 32 * i;
            a0 = rotl64(a0 + load64(x) * P2, 31) * P1;
            a1 = rotl64(a1 + load64(x + 8) * P2, 31) * P1;
            a2 = rotl64(a2 + load64(x + 16) * P2, 31) * P1;
            a3 = rotl64(a3 + load64(x + 24) * P2, 31) * P1;
        }
    else {
        __m256d lo = _mm256_loadu_pd(s), hi = _mm256_loadu_pd(s + 4);
        for (int64_t i = 0; i < stripes; i++) {
            const uint8_t *x = p + 32 * i;
            lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm_loadu_ps((const float *)(const void *)x)));
            hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm_loadu_ps((const float *)(const void *)(x + 16))));
            a0 = rotl64(a0 + load64(x) * P2, 31) * P1;
            a1 = rotl64(a1 + load64(x + 8) * P2, 31) * P1;
            a2 = rotl64(a2 + load64(x + 16) * P2, 31) * P1;
            a3 = rotl64(a3 + load64(x + 24) * P2, 31) * P1;
        }
        _mm256_storeu_pd(s, lo);
        _mm256_storeu_pd(s + 4, hi);
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

static int fp_have_avx(void) {
    static int known = -1; /* a benign race: every thread finds the same answer */
    if (known < 0) known = __builtin_cpu_supports("avx") ? 1 : 0;
    return known;
}
#endif

/* whole stripes, by the fastest build this CPU runs */
static inline void fp_stripes(uint64_t acc[4], double *s, const uint8_t *p, int64_t stripes) {
#ifdef PARITY_FP_AVX
    if (fp_have_avx()) {
        fp_stripes_avx(acc, s, p, stripes);
        return;
    }
#endif
    fp_stripes_plain(acc, s, p, stripes);
}

static inline void fp_init(fp_state *st, int with_sum) {
    const uint64_t start[4] = {P1 + P2, P2, 0, (uint64_t)0 - P1};
    memcpy(st->acc, start, sizeof start);
    memset(st->s, 0, sizeof st->s);
    st->n = 0;
    st->fill = 0;
    st->with_sum = with_sum;
}

/* as many of the n bytes at p as the partial stripe part (*fill of stripe bytes held) takes: their count */
static inline int64_t fp_buffer(uint8_t *part, int *fill, int stripe, const uint8_t *p, int64_t n) {
    const int64_t take = n < stripe - *fill ? n : stripe - *fill;
    memcpy(part + *fill, p, (size_t)take);
    *fill += (int)take;
    return take;
}

/* the next n bytes at p (with a sum: whole float32s) */
static void fp_update(fp_state *st, const uint8_t *p, int64_t n) {
    double *s = st->with_sum ? st->s : NULL;
    st->n += n;
    if (st->fill > 0) { /* complete the partial stripe first */
        const int64_t take = fp_buffer(st->part, &st->fill, 32, p, n);
        p += take;
        n -= take;
        if (st->fill < 32) return;
        fp_stripes(st->acc, s, st->part, 1);
        st->fill = 0;
    }
    const int64_t stripes = n / 32;
    fp_stripes(st->acc, s, p, stripes);
    st->fill = (int)(n - 32 * stripes);
    memcpy(st->part, p + 32 * stripes, (size_t)st->fill);
}

/* the digest (32 bytes) and, with a sum, the sum into *sum */
static void fp_final(fp_state *st, uint8_t *digest, double *sum) {
    double *s = st->s;
    if (st->fill > 0) {
        memset(st->part + st->fill, 0, (size_t)(32 - st->fill));
        stripe(st->acc, st->part);
        if (st->with_sum)
            for (int j = 0; j < st->fill / 4; j++) {
                float v;
                memcpy(&v, st->part + 4 * j, sizeof v);
                s[j] += (double)v;
            }
    }
    for (int q = 0; q < 4; q++) {
        const uint64_t h = finalise(st->acc[q] ^ ((uint64_t)st->n * P3));
        for (int b = 0; b < 8; b++) digest[8 * q + b] = (uint8_t)(h >> (8 * b));
    }
    if (st->with_sum && sum != NULL) *sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* digest (32 bytes) of p[0..n); with sum != NULL also the float64 sum of the n / 4 float32s there
 * (n a multiple of 4), in the same pass: a stripe is 8 of them, element j of a stripe into s[j]. */
static void fingerprint(const uint8_t *p, int64_t n, uint8_t *digest, double *sum) {
    fp_state st;
    fp_init(&st, sum != NULL);
    fp_update(&st, p, n);
    fp_final(&st, digest, sum);
}

#endif
