/* Smoke kernel: proves the build and the profile struct reach C intact. */
#include "common.h"

/* out[i] = fmaf(a[i], b[i], c[i]) if the profile fuses, else a[i]*b[i]+c[i]; returns threads. */
int32_t parity_selftest(profile_t p, const float *a, const float *b, const float *c, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = vfmadd(&p, a[i], b[i], c[i]);
    return p.threads;
}
