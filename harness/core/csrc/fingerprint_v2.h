/* mix256-v2: the digest and float32 sum that traces record (harness/core/digest.py), shared by digest.c,
 * tracer.c and the dispatcher hook (harness/trace/csrc/hook.cpp). mix256-v1 (fingerprint.h) makes every
 * lane one chain of multiplies over the whole tensor, about 5 cycles a 32-byte stripe whatever the
 * memory gives; this format keeps no chain longer than one addition a stripe, and cuts the bytes into
 * segments that threads can take apart.
 *
 * Segments: the n bytes are cut into segments of FP2_SEGMENT (256 KiB) bytes, the last one shorter
 * (no segment for no bytes). A segment's digest is four 64-bit words and its sum one float64, each
 * made from the segment's bytes alone.
 *
 * A segment: eight 64-bit lanes, lane q starting at KEY[q + 8]. KEY[0..15] are the first 16 outputs
 * of splitmix64 seeded with 0x243F6A8885A308D3. Each 64-byte stripe (its eight little-endian 64-bit
 * words w[0..7]; i the stripe's index in the segment) gives every lane q, all mod 2^64:
 *     k = w[q] ^ KEY[(i + q) % 16];   acc[q] += (k mod 2^32) * (k >> 32) + w[q ^ 1]
 * and after every 16th stripe (i % 16 == 15) every lane is scrambled:
 *     acc[q] = (acc[q] ^ (acc[q] >> 47) ^ KEY[q]) * 0x9E3779B1
 * The segment's last n % 64 bytes go, zero-padded, through one more stripe (no scramble after it).
 * Its digest word j (0..3) is finalise(acc[j] ^ rotl(acc[j + 4], 32)), finalise as in mix256-v1.
 * A changed word w[q] moves lane q ^ 1 by exactly its difference (mod 2^64), which the later
 * additions and the scrambles (bijections) keep; digest word j mixes lanes j and j + 4, never both
 * of a pair q, q ^ 1, by a bijection of either. So two inputs of one length that differ in a single
 * 64-bit word give different segment digests, and the chain over segments (a bijection of each
 * segment's words) different digests.
 *
 * Sum (float32 only): sixteen float64 partial sums, element e of the segment into s[e % 16], each in
 * index order; the segment's sum is ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), likewise for
 * s8..s15, and those two added.
 *
 * The whole: four lanes H = {P1 + P2, P2, 0, -P1}; each segment in order gives H[j] =
 * rotl(H[j] + d[j] * P2, 31) * P1 for its digest words d; then H[j] ^= n * P3, finalise, and the four
 * words are the digest, word 0 first, each little-endian. The sum is 0.0 plus each segment's sum in
 * order, one addition at a time.
 *
 * The stripe loop has a portable build and, on x86-64 CPUs with AVX2 (asked at run time), one with the
 * lanes as two vectors: both give every byte alike (tests/test_digest.py checks them against a Python
 * rendering of this description). Taken piecewise (fp2_init, fp2_update, fp2_final) or segment by
 * segment on several threads (fp2_segment, fp2_absorb), the digest and sum are those of one call
 * over all the bytes. */
#ifndef PARITY_FINGERPRINT_V2_H
#define PARITY_FINGERPRINT_V2_H

#include <stdint.h>
#include <string.h>

#include "fingerprint.h" /* P1, P2, P3, rotl64, load64, finalise, fp_buffer */

#define FP2_SEGMENT ((int64_t)1 << 18)
#define FP2_SCRAMBLE 0x9E3779B1ull

/* KEY[0..15], then KEY[0..6] again: lane q of stripe i reads entry (i % 16) + q */
static const uint64_t FP2_KEY[23] = {
    0x2CB0F69F4ABEA221ull, 0x9417034723148989ull, 0xDD555950609DFE03ull, 0xDBAFB150DEB12800ull,
    0x7E789B2E6C442CB6ull, 0xF41E5636C7E4F8C4ull, 0x0959D150F8FBA7E4ull, 0xA97316F13CDB9EEAull,
    0x74CD8258F9520068ull, 0x55C74A62E116868Bull, 0xD2F4C799A2023CBDull, 0xDF98CB79A37B51B9ull,
    0x396F5885524F3905ull, 0xAF1D56386CA3B276ull, 0xA9FFBE6B5104E85Aull, 0x6BD0C51B9FD533B3ull,
    0x2CB0F69F4ABEA221ull, 0x9417034723148989ull, 0xDD555950609DFE03ull, 0xDBAFB150DEB12800ull,
    0x7E789B2E6C442CB6ull, 0xF41E5636C7E4F8C4ull, 0x0959D150F8FBA7E4ull,
};

/* One segment in the making: its lanes, partial sums and whole stripes so far. */
typedef struct {
    uint64_t acc[8];
    double s[16];
    int64_t stripes;
} fp2_seg;

static inline void fp2_seg_init(fp2_seg *g) {
    memcpy(g->acc, FP2_KEY + 8, sizeof g->acc);
    memset(g->s, 0, sizeof g->s);
    g->stripes = 0;
}

static inline void fp2_scramble(uint64_t acc[8]) {
    for (int q = 0; q < 8; q++) acc[q] = (acc[q] ^ (acc[q] >> 47) ^ FP2_KEY[q]) * FP2_SCRAMBLE;
}

/* stripe x, the segment's stripe number i, into acc */
static inline void fp2_stripe(uint64_t acc[8], const uint8_t *x, int64_t i) {
    uint64_t w[8];
    for (int q = 0; q < 8; q++) w[q] = load64(x + 8 * q);
    const uint64_t *key = FP2_KEY + (i & 15);
    for (int q = 0; q < 8; q++) {
        const uint64_t k = w[q] ^ key[q];
        acc[q] += (k & 0xFFFFFFFFull) * (k >> 32) + w[q ^ 1];
    }
}

/* count whole stripes at p into g, and with_sum their floats into g->s (portable) */
static void fp2_stripes_plain(fp2_seg *g, const uint8_t *p, int64_t count, int with_sum) {
    for (int64_t t = 0; t < count; t++) {
        const uint8_t *x = p + 64 * t;
        if (with_sum)
            for (int j = 0; j < 16; j++) {
                float v;
                memcpy(&v, x + 4 * j, sizeof v);
                g->s[j] += (double)v;
            }
        fp2_stripe(g->acc, x, g->stripes);
        if ((g->stripes++ & 15) == 15) fp2_scramble(g->acc);
    }
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(PARITY_FP_NO_AVX)
#define PARITY_FP2_AVX2 1
#include <immintrin.h>

/* the scramble of four lanes: x * 0x9E3779B1 mod 2^64 as low and high 32-bit halves' products */
__attribute__((target("avx2"))) static inline __m256i fp2_scramble_avx2(__m256i a, __m256i key) {
    const __m256i x = _mm256_xor_si256(_mm256_xor_si256(a, _mm256_srli_epi64(a, 47)), key);
    const __m256i c = _mm256_set1_epi64x((long long)FP2_SCRAMBLE);
    const __m256i lo = _mm256_mul_epu32(x, c), hi = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), c);
    return _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32));
}

/* four lanes' step for the words at x: acc + lo(k) * hi(k) + (the neighbours' words, swapped in pairs) */
__attribute__((target("avx2"))) static inline __m256i fp2_lanes_avx2(__m256i acc, const uint8_t *x,
                                                                     const uint64_t *key) {
    const __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)x);
    const __m256i k = _mm256_xor_si256(w, _mm256_loadu_si256((const __m256i *)(const void *)key));
    const __m256i prod = _mm256_mul_epu32(k, _mm256_srli_epi64(k, 32));
    return _mm256_add_epi64(acc, _mm256_add_epi64(prod, _mm256_shuffle_epi32(w, 0x4E)));
}

/* fp2_stripes_plain with lanes 0-3 and 4-7 as two vectors and the sums as four */
__attribute__((target("avx2"))) static void fp2_stripes_avx2(fp2_seg *g, const uint8_t *p, int64_t count,
                                                             int with_sum) {
    __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)g->acc);
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(g->acc + 4));
    const __m256i k0 = _mm256_loadu_si256((const __m256i *)(const void *)FP2_KEY);
    const __m256i k1 = _mm256_loadu_si256((const __m256i *)(const void *)(FP2_KEY + 4));
    __m256d s0 = _mm256_loadu_pd(g->s), s1 = _mm256_loadu_pd(g->s + 4);
    __m256d s2 = _mm256_loadu_pd(g->s + 8), s3 = _mm256_loadu_pd(g->s + 12);
    int64_t i = g->stripes;
    for (int64_t t = 0; t < count; t++, i++) {
        const uint8_t *x = p + 64 * t;
        const uint64_t *key = FP2_KEY + (i & 15);
        a0 = fp2_lanes_avx2(a0, x, key);
        a1 = fp2_lanes_avx2(a1, x + 32, key + 4);
        if (with_sum) {
            const float *f = (const float *)(const void *)x;
            s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm_loadu_ps(f)));
            s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm_loadu_ps(f + 4)));
            s2 = _mm256_add_pd(s2, _mm256_cvtps_pd(_mm_loadu_ps(f + 8)));
            s3 = _mm256_add_pd(s3, _mm256_cvtps_pd(_mm_loadu_ps(f + 12)));
        }
        if ((i & 15) == 15) {
            a0 = fp2_scramble_avx2(a0, k0);
            a1 = fp2_scramble_avx2(a1, k1);
        }
    }
    _mm256_storeu_si256((__m256i *)(void *)g->acc, a0);
    _mm256_storeu_si256((__m256i *)(void *)(g->acc + 4), a1);
    _mm256_storeu_pd(g->s, s0);
    _mm256_storeu_pd(g->s + 4, s1);
    _mm256_storeu_pd(g->s + 8, s2);
    _mm256_storeu_pd(g->s + 12, s3);
    g->stripes = i;
}

static int fp2_have_avx2(void) {
    static int known = -1; /* a benign race: every thread finds the same answer */
    if (known < 0) known = __builtin_cpu_supports("avx2") ? 1 : 0;
    return known;
}
#endif

/* whole stripes into g, by the fastest build this CPU runs */
static inline void fp2_stripes(fp2_seg *g, const uint8_t *p, int64_t count, int with_sum) {
#ifdef PARITY_FP2_AVX2
    if (fp2_have_avx2()) {
        if (with_sum)
            fp2_stripes_avx2(g, p, count, 1);
        else
            fp2_stripes_avx2(g, p, count, 0);
        return;
    }
#endif
    fp2_stripes_plain(g, p, count, with_sum);
}

/* the segment's digest words and sum, its last tail_n (< 64) bytes at tail */
static void fp2_seg_close(fp2_seg *g, const uint8_t *tail, int tail_n, int with_sum, uint64_t d[4], double *sum) {
    if (tail_n > 0) {
        uint8_t x[64];
        memset(x, 0, sizeof x);
        memcpy(x, tail, (size_t)tail_n);
        fp2_stripe(g->acc, x, g->stripes);
        if (with_sum)
            for (int j = 0; j < tail_n / 4; j++) {
                float v;
                memcpy(&v, x + 4 * j, sizeof v);
                g->s[j] += (double)v;
            }
    }
    for (int j = 0; j < 4; j++) d[j] = finalise(g->acc[j] ^ rotl64(g->acc[j + 4], 32));
    const double *s = g->s;
    *sum = (((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))) +
           (((s[8] + s[9]) + (s[10] + s[11])) + ((s[12] + s[13]) + (s[14] + s[15])));
}

/* one segment (n <= FP2_SEGMENT bytes at p): its digest words and sum (0.0 without with_sum) */
static void fp2_segment(const uint8_t *p, int64_t n, int with_sum, uint64_t d[4], double *sum) {
    fp2_seg g;
    fp2_seg_init(&g);
    const int64_t stripes = n / 64;
    fp2_stripes(&g, p, stripes, with_sum);
    fp2_seg_close(&g, p + 64 * stripes, (int)(n - 64 * stripes), with_sum, d, sum);
}

/* A fingerprint taken piecewise: the whole's lanes and sum, the segment in the making, bytes so far,
 * a partial stripe. */
typedef struct {
    uint64_t h[4];
    double total;
    int64_t n;
    fp2_seg seg;
    int64_t seg_n; /* bytes of whole stripes in seg */
    uint8_t part[64];
    int fill; /* bytes in part */
    int with_sum;
} fp2_state;

static inline void fp2_init(fp2_state *st, int with_sum) {
    const uint64_t start[4] = {P1 + P2, P2, 0, (uint64_t)0 - P1};
    memcpy(st->h, start, sizeof start);
    st->total = 0.0;
    st->n = 0;
    fp2_seg_init(&st->seg);
    st->seg_n = 0;
    st->fill = 0;
    st->with_sum = with_sum;
}

/* the next segment's digest words and sum, in order (the bytes counted by the caller) */
static inline void fp2_absorb(fp2_state *st, const uint64_t d[4], double sum) {
    for (int j = 0; j < 4; j++) st->h[j] = rotl64(st->h[j] + d[j] * P2, 31) * P1;
    st->total += sum;
}

static void fp2_close_segment(fp2_state *st, const uint8_t *tail, int tail_n) {
    uint64_t d[4];
    double sum;
    fp2_seg_close(&st->seg, tail, tail_n, st->with_sum, d, &sum);
    fp2_absorb(st, d, sum);
    fp2_seg_init(&st->seg);
    st->seg_n = 0;
}

/* the next n bytes at p (with a sum: whole float32s) */
static void fp2_update(fp2_state *st, const uint8_t *p, int64_t n) {
    st->n += n;
    while (n > 0) {
        if (st->fill > 0 || n < 64) { /* through the partial stripe */
            const int64_t take = fp_buffer(st->part, &st->fill, 64, p, n);
            p += take;
            n -= take;
            if (st->fill < 64) return;
            fp2_stripes(&st->seg, st->part, 1, st->with_sum);
            st->fill = 0;
            st->seg_n += 64;
        } else {
            const int64_t room = (FP2_SEGMENT - st->seg_n) / 64, whole = n / 64;
            const int64_t count = whole < room ? whole : room;
            fp2_stripes(&st->seg, p, count, st->with_sum);
            st->seg_n += 64 * count;
            p += 64 * count;
            n -= 64 * count;
        }
        if (st->seg_n == FP2_SEGMENT) fp2_close_segment(st, NULL, 0);
    }
}

/* the digest (32 bytes) and, with a sum, the sum into *sum */
static void fp2_final(fp2_state *st, uint8_t *digest, double *sum) {
    if (st->seg_n > 0 || st->fill > 0) fp2_close_segment(st, st->part, st->fill);
    for (int j = 0; j < 4; j++) {
        const uint64_t h = finalise(st->h[j] ^ ((uint64_t)st->n * P3));
        for (int b = 0; b < 8; b++) digest[8 * j + b] = (uint8_t)(h >> (8 * b));
    }
    if (st->with_sum && sum != NULL) *sum = st->total;
}

/* digest (32 bytes) of p[0..n); with sum != NULL also the float64 sum of the n / 4 float32s there */
static void fingerprint2(const uint8_t *p, int64_t n, uint8_t *digest, double *sum) {
    fp2_state st;
    fp2_init(&st, sum != NULL);
    for (int64_t at = 0; at < n; at += FP2_SEGMENT) {
        uint64_t d[4];
        double s;
        const int64_t len = n - at < FP2_SEGMENT ? n - at : FP2_SEGMENT;
        fp2_segment(p + at, len, sum != NULL, d, &s);
        fp2_absorb(&st, d, s);
    }
    st.n = n;
    fp2_final(&st, digest, sum);
}

#endif
