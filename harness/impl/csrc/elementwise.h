/* ATen's element-wise loops over flat float32 arrays, shared by the kernels of unary.c and nn.c.
 *
 * cpu_kernel_vec (cpu/Loops.h vectorized_loop) runs, per call of its inner loop, a body of two
 * Vectorized<float> per iteration through the vector lambda and the rest (< 2 vectors) through the
 * scalar lambda. TensorIterator calls the inner loop once per run of elements that are contiguous
 * in every operand: the whole tensor when all are contiguous, one row when an operand is a
 * row-strided view (a column chunk of a matrix, a slice of the last dim). at::parallel_for cuts the
 * flat range [0, n) into chunks above the grain size; each chunk's pieces of runs are inner loops of
 * their own. run_segments reproduces both cuts, computing the chunks serially.
 *
 * Shapes: a, b2, y (n,), in the operands' logical order, cut into runs of `run` elements. */
#ifndef PARITY_ELEMENTWISE_H
#define PARITY_ELEMENTWISE_H
#include "vmath.h"

typedef float (*unary_fn)(const profile_t *p, float x);
typedef float (*binary_fn)(const profile_t *p, float a, float b);

/* Always inlined: the lambdas become direct calls the compiler inlines, so each kernel's loop is
 * branch-free straight-line code that auto-vectorizes. */
#define EW_INLINE static inline __attribute__((always_inline))

/* One inner loop over [b, e): blocks of 2*lanes through vec, the rest through scal. With b2 set,
 * a second operand (binary kernels). */
EW_INLINE void inner_loop(const profile_t *p, int64_t lanes, unary_fn v1, unary_fn s1, binary_fn v2, binary_fn s2,
                          const float *a, const float *b2, float *y, int64_t b, int64_t e) {
    int64_t body = b + (e - b) / (2 * lanes) * (2 * lanes);
    if (b2) {
        for (int64_t i = b; i < body; i++) y[i] = v2(p, a[i], b2[i]);
        for (int64_t i = body; i < e; i++) y[i] = s2(p, a[i], b2[i]);
    } else {
        for (int64_t i = b; i < body; i++) y[i] = v1(p, a[i]);
        for (int64_t i = body; i < e; i++) y[i] = s1(p, a[i]);
    }
}

/* The inner loops of TensorIterator::for_each(loop, grain) over n elements in runs of `run` (0 or past n:
 * one run): at::parallel_for's chunks in thread order (serial below the grain or on one thread), each
 * chunk's intersection with a run one inner loop [b, e). Walked as
 *     for (loop_walk w = loop_walk_start(p, grain, n, run); loop_walk_next(&w, &b, &e);) ... */
typedef struct {
    int64_t n, run, grain, threads, tid, s, ce;
} loop_walk;

EW_INLINE loop_walk loop_walk_start(const profile_t *p, int64_t grain, int64_t n, int64_t run) {
    const loop_walk w = {n, run <= 0 || run > n ? n : run, grain, parallel_threads(0, n, grain, p->threads), -1, 0, 0};
    return w;
}

EW_INLINE int loop_walk_next(loop_walk *w, int64_t *b, int64_t *e) {
    while (w->s >= w->ce) { /* the next thread's chunk (an empty one skipped) */
        if (++w->tid >= w->threads) return 0;
        w->s = 0;
        w->ce = w->n;
        if (w->threads > 1 && !parallel_chunk(0, w->n, w->grain, w->threads, w->tid, &w->s, &w->ce)) w->s = w->ce;
    }
    const int64_t end = (w->s / w->run + 1) * w->run;
    *b = w->s;
    *e = end < w->ce ? end : w->ce;
    w->s = *e;
    return 1;
}

/* TensorIterator::for_each(loop, grain): each inner loop of the walk through inner_loop. */
EW_INLINE void run_segments(const profile_t *p, int64_t lanes, int64_t grain, unary_fn v1, unary_fn s1, binary_fn v2,
                            binary_fn s2, const float *a, const float *b2, float *y, int64_t n, int64_t run) {
    int64_t b, e;
    for (loop_walk w = loop_walk_start(p, grain, n, run); loop_walk_next(&w, &b, &e);)
        inner_loop(p, lanes, v1, s1, v2, s2, a, b2, y, b, e);
}

#endif
