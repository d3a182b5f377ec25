/* mix256-v1: the one-pass digest and float32 sum of harness/core/digest.py, shared by digest.c (the
 * library and Python module harness.impl._digest) and tracer.c (the tracer's bookkeeping). A
 * header, not a library: each includes its own copy.
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
 * pairwise order, so sums are compared only with sums of the same algorithm. */
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

/* digest (32 bytes) of p[0..n); with sum != NULL also the float64 sum of the n / 4 float32s there
 * (n a multiple of 4), in the same pass: a stripe is 8 of them, element j of a stripe into s[j]. */
static void fingerprint(const uint8_t *p, int64_t n, uint8_t *digest, double *sum) {
    uint64_t acc[4] = {P1 + P2, P2, 0, (uint64_t)0 - P1};
    double s[8] = {0};
    const int64_t whole = n - n % 32;
    if (sum == NULL)
        for (int64_t i = 0; i < whole; i += 32) stripe(acc, p + i);
    else
        for (int64_t i = 0; i < whole; i += 32) {
            const float *x = (const float *)(const void *)(p + i); /* the caller's float32 data */
            for (int j = 0; j < 8; j++) s[j] += (double)x[j];
            stripe(acc, p + i);
        }
    if (n > whole) {
        uint8_t last[32] = {0};
        memcpy(last, p + whole, (size_t)(n - whole));
        stripe(acc, last);
        if (sum != NULL)
            for (int64_t j = 0; j < (n - whole) / 4; j++) {
                float v;
                memcpy(&v, last + 4 * j, sizeof v);
                s[j] += (double)v;
            }
    }
    for (int q = 0; q < 4; q++) {
        const uint64_t h = finalise(acc[q] ^ ((uint64_t)n * P3));
        for (int b = 0; b < 8; b++) digest[8 * q + b] = (uint8_t)(h >> (8 * b));
    }
    if (sum != NULL) *sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

#endif
