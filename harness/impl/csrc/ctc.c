/* The connectionist temporal classification loss of torch 2.13.0's CPU kernel, float32 (LossCTC.cpp,
 * x86_64): ctc_loss_cpu_template (the forward: the negative log-likelihood and log_alpha) and
 * ctc_loss_backward_cpu_template (the gradient by log_probs).
 *
 * LossCTC.cpp sits outside native/cpu: it is compiled once, with the baseline flags, and no ATen
 * capability reaches it. Its arithmetic is scalar float with the C library's expf and logf
 * (std::exp, std::log of a float; glibc's FMA builds, which glibc's ifunc picks on an FMA CPU:
 * vmath.h glibc_expf, glibc_logf), nothing for the compiler to contract (no product feeds a sum). The
 * batch is split between threads by at::parallel_for, each batch element computed whole by one
 * thread and written to its own places: the thread count changes no bit.
 *
 * Order of operations, per batch element b (T' = its input length, L its target length, l'(s) the
 * extended target: the blank at even s, target[s/2] at odd s):
 *   forward: log_alpha[0][*] = -inf (the whole first row, every b); T' = 0: nll = -(L == 0 ? 0 : -inf)
 *     (so -0 or +inf), nothing else written. Else alpha[0][0] = lp[0][blank], alpha[0][1] =
 *     lp[0][l'(1)] (L > 0); for t = 1..T'-1, s = 0..2L: la1 = alpha[t-1][s]; la2 = alpha[t-1][s-1]
 *     (s > 0, else -inf); la3 = alpha[t-1][s-2] (s > 1 and l'(s-2) != l'(s), else -inf); m their
 *     maximum by `>` in that order (la1 first), 0 where it is -inf; alpha[t][s] =
 *     ((logf((expf(la1-m) + expf(la2-m)) + expf(la3-m)) + m) + lp[t][l'(s)]. nll = -alpha[T'-1][0]
 *     for L = 0; else l1 = alpha[T'-1][2L], l2 = alpha[T'-1][2L-1], m = std::max(l1, l2) (l1 < l2 ?
 *     l2 : l1), 0 where -inf, nll = -(logf(expf(l1-m) + expf(l2-m)) + m). The rest of log_alpha is
 *     at::empty's memory, never written (the impl leaves NaN there).
 *   backward: zero_infinity and nll == +inf: the element's gradient all +0 (fill_stub). Else, T' > 0:
 *     beta[T'-1][*] = -inf; beta[T'-1][2L] = lp[T'-1][blank], grad[T'-1][blank] = alpha + beta there;
 *     L > 0: beta[T'-1][2L-1] = lp[T'-1][l'(2L-1)], grad[T'-1][l'(2L-1)] = alpha + beta there (an
 *     assignment: a target equal to the blank overwrites the blank's). For t = T'-2..0, s = 2L..0
 *     (descending): beta[t][s] as alpha's with lb1 = beta[t+1][s], lb2 = beta[t+1][s+1] (s < 2L),
 *     lb3 = beta[t+1][s+2] (s < 2L-1 and l'(s+2) != l'(s)); then ab = alpha[t][s] + beta[t][s] and
 *     grad[t][l'(s)] = ab where it is -inf, else m = std::max(grad, ab), grad = logf(expf(grad-m) +
 *     expf(ab-m)) + m. Then for t < T', every class c: grad = (expf(lp) - expf((grad + nll) - lp)) *
 *     grad_out[b]; the rows t >= T' +0. grad starts -inf everywhere (full_like).
 *
 * Where two NaNs meet, SSE's addss / mulss keep the first source's (the destination's), quieted; GCC
 * compiled some of the kernel's sums with their operands swapped (read from libtorch_cpu.so 2.13.0's
 * code of both templates, int64 and int32 targets alike), which ctc_add / ctc_mul write out:
 *   forward   the step's sum (e2 + e1) + e3, with ei = expf(lai - m); then (log + m) + lp; the loss's
 *             e2 + e1 (e1 of l1), then log + m;
 *   backward  the last row's grad = beta + alpha; the step's (e2 + e1) + e3 as the forward's, then
 *             (m + log) + lp; ab = beta + alpha; the log-add m + log(expf(ab - m) + expf(grad - m));
 *             the gradient ((nll + grad) - lp), (expf(lp) - expf(that)) * grad_out.
 * Subtractions keep the source's order. std::max is maxss with the same NaN rule (the first argument
 * where either is NaN). expf passes a NaN on (x + x, quieted); glibc's logf of a NaN (__math_invalidf)
 * gives (x - x) / (x - x), the NaN quieted (vmath.h's glibc_logf, which serves finite arguments, gives
 * +qNaN: ctc_logf passes NaNs on itself). -inf - -inf, +inf - +inf and +inf + -inf are x86's default NaN.
 *
 * Shapes (every array C-contiguous): lp (T, B, C); tg the targets, flat int64, element s/2 of b's at
 * tg[off[b] + stride * (s/2)]; il, tl (B,) the input and target lengths (checked by the caller:
 * 0 <= il <= T, targets in [0, C)); S = 2 * max(tl) + 1; nll (B,); la (B, T, S); grad_out (B,);
 * grad (T, B, C); beta (T, S) scratch. */
#include "vmath.h"

static inline float ctc_quiet(float x) { return vm_u2f(vm_f2u(x) | 0x00400000u); }
static inline float ctc_logf(float x) { return isnan(x) ? ctc_quiet(x) : glibc_logf(x); }

/* a + b and a * b as SSE's addss / mulss give them with a the first source (the destination): where both
 * are NaN, a's, quieted. The kernel's compiled operand order is not the source's in places (listed above). */
static inline float ctc_add(float a, float b) { return isnan(a) ? ctc_quiet(a) : a + b; }
static inline float ctc_mul(float a, float b) { return isnan(a) ? ctc_quiet(a) : a * b; }

static inline int64_t ctc_prime(const int64_t *tg, int64_t off, int64_t stride, int64_t s, int64_t blank) {
    return (s % 2 == 0) ? blank : tg[off + stride * (s / 2)];
}

/* log((e^(x2-m) + e^(x1-m)) + e^(x3-m)), the compiled order of a recursion step's sum (libtorch_cpu.so's
 * forward and backward alike: the second exponential the first addend). */
static inline float ctc_logsum(float x1, float x2, float x3, float m) {
    return ctc_logf(ctc_add(ctc_add(glibc_expf(x2 - m), glibc_expf(x1 - m)), glibc_expf(x3 - m)));
}

static void ctc_alpha(const float *lp, const int64_t *tg, int64_t off, int64_t stride, int64_t B, int64_t C,
                      int64_t S, int64_t blank, int64_t il, int64_t L, float *la, float *nll) {
    const float neginf = -INFINITY;
    if (il == 0) {
        *nll = -(L == 0 ? 0.0f : neginf);
        return;
    }
    la[0] = lp[blank];
    if (L > 0) la[1] = lp[ctc_prime(tg, off, stride, 1, blank)];
    for (int64_t t = 1; t < il; t++) {
        const float *prev = la + (t - 1) * S;
        const float *row = lp + t * B * C;
        for (int64_t s = 0; s < 2 * L + 1; s++) {
            int64_t cur = ctc_prime(tg, off, stride, s, blank);
            float la1 = prev[s], lamax = la1, la2, la3;
            if (s > 0) {
                la2 = prev[s - 1];
                if (la2 > lamax) lamax = la2;
            } else {
                la2 = neginf;
            }
            if (s > 1 && ctc_prime(tg, off, stride, s - 2, blank) != cur) {
                la3 = prev[s - 2];
                if (la3 > lamax) lamax = la3;
            } else {
                la3 = neginf;
            }
            if (lamax == neginf) lamax = 0.0f;
            la[t * S + s] = ctc_add(ctc_add(ctc_logsum(la1, la2, la3, lamax), lamax), row[cur]);
        }
    }
    if (L == 0) {
        *nll = -la[(il - 1) * S];
    } else {
        float l1 = la[(il - 1) * S + 2 * L], l2 = la[(il - 1) * S + 2 * L - 1];
        float m = (l1 < l2) ? l2 : l1;
        m = (m == neginf) ? 0.0f : m;
        *nll = -ctc_add(ctc_logf(ctc_add(glibc_expf(l2 - m), glibc_expf(l1 - m))), m);
    }
}

void ctc_loss_forward(const float *lp, const int64_t *tg, const int64_t *off, int64_t stride, const int64_t *il,
                      const int64_t *tl, int64_t T, int64_t B, int64_t C, int64_t S, int64_t blank, float *nll,
                      float *la) {
    for (int64_t b = 0; b < B; b++) {
        for (int64_t s = 0; s < S; s++) la[b * T * S + s] = -INFINITY;
        ctc_alpha(lp + b * C, tg, off[b], stride, B, C, S, blank, il[b], tl[b], la + b * T * S, nll + b);
    }
}

void ctc_loss_backward(const float *grad_out, const float *lp, const int64_t *tg, const int64_t *off, int64_t stride,
                       const int64_t *il, const int64_t *tl, const float *nll_in, const float *la_all, int64_t T,
                       int64_t B, int64_t C, int64_t S, int64_t blank, int32_t zero_infinity, float *grad,
                       float *lb) {
    const float neginf = -INFINITY;
    for (int64_t i = 0; i < T * B * C; i++) grad[i] = neginf;
    for (int64_t b = 0; b < B; b++) {
        const float nll = nll_in[b];
        const float *lpb = lp + b * C, *la = la_all + b * T * S;
        float *g = grad + b * C;
        const int64_t n = il[b], L = tl[b], o = off[b];
        if (zero_infinity && nll == INFINITY) {
            for (int64_t t = 0; t < T; t++)
                for (int64_t c = 0; c < C; c++) g[t * B * C + c] = 0.0f;
            continue;
        }
        if (n > 0) {
            for (int64_t s = 0; s < S; s++) lb[(n - 1) * S + s] = neginf;
            lb[(n - 1) * S + 2 * L] = lpb[(n - 1) * B * C + blank];
            g[(n - 1) * B * C + blank] = ctc_add(lb[(n - 1) * S + 2 * L], la[(n - 1) * S + 2 * L]);
            if (L > 0) {
                int64_t cur = ctc_prime(tg, o, stride, 2 * L - 1, blank);
                lb[(n - 1) * S + 2 * L - 1] = lpb[(n - 1) * B * C + cur];
                g[(n - 1) * B * C + cur] = ctc_add(lb[(n - 1) * S + 2 * L - 1], la[(n - 1) * S + 2 * L - 1]);
            }
        }
        for (int64_t t = n - 2; t >= 0; t--) {
            const float *next = lb + (t + 1) * S;
            for (int64_t s = 2 * L; s >= 0; s--) {
                int64_t cur = ctc_prime(tg, o, stride, s, blank);
                float lb1 = next[s], lbmax = lb1, lb2, lb3;
                if (s < 2 * L) {
                    lb2 = next[s + 1];
                    if (lb2 > lbmax) lbmax = lb2;
                } else {
                    lb2 = neginf;
                }
                if (s < 2 * L - 1 && ctc_prime(tg, o, stride, s + 2, blank) != cur) {
                    lb3 = next[s + 2];
                    if (lb3 > lbmax) lbmax = lb3;
                } else {
                    lb3 = neginf;
                }
                if (lbmax == neginf) lbmax = 0.0f;
                lb[t * S + s] = ctc_add(ctc_add(lbmax, ctc_logsum(lb1, lb2, lb3, lbmax)), lpb[t * B * C + cur]);
                float ab = ctc_add(lb[t * S + s], la[t * S + s]);
                float *lcab = g + t * B * C + cur;
                if (*lcab == neginf) {
                    *lcab = ab;
                } else {
                    float m = (*lcab < ab) ? ab : *lcab;
                    *lcab = ctc_add(m, ctc_logf(ctc_add(glibc_expf(ab - m), glibc_expf(*lcab - m))));
                }
            }
        }
        const float gr = grad_out[b];
        for (int64_t t = 0; t < n; t++)
            for (int64_t c = 0; c < C; c++) {
                float *res = g + t * B * C + c;
                float x = lpb[t * B * C + c];
                *res = ctc_mul(glibc_expf(x) - glibc_expf(ctc_add(nll, *res) - x), gr);
            }
        for (int64_t t = n; t < T; t++)
            for (int64_t c = 0; c < C; c++) g[t * B * C + c] = 0.0f;
    }
}
