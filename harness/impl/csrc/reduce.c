/* Reductions of torch 2.13.0 on CPU, float32, bit for bit: sum, mean, var, std, vector_norm (forward
 * and the reductions of their backwards), and the norms of clip_grad_norm_.
 *
 * Inputs are C-contiguous. Element strides throughout (ATen uses bytes: "stride == sizeof(float)"
 * reads "stride == 1" here). */
#include "common.h"

#include <stdlib.h>

#define MAXD 16

/* ----------------------------------------------------------------------------------------------
 * The TensorIterator of a reduction (TensorIterator.cpp reorder_dimensions / coalesce_dimensions,
 * for a contiguous input): dims innermost first, the reduced dims moved in front of the kept ones
 * (each group keeping its inner-to-outer order), size-1 dims dropped, neighbours merged where
 * both the input and the output strides allow it. */
typedef struct {
    int ndim;
    int nred; /* dims [0, nred) are reduced (output stride 0) */
    int64_t shape[MAXD];
    int64_t in_st[MAXD];
    int64_t out_st[MAXD];
} red_iter_t;

/* Elements of the kept dims (the output); *numel gets all of x's. */
static int64_t kept_numel(int32_t ndim, const int64_t *shape, const int32_t *reduce, int64_t *numel) {
    int64_t kept = 1, all = 1;
    for (int d = 0; d < ndim; d++) {
        all *= shape[d];
        if (!reduce[d]) kept *= shape[d];
    }
    *numel = all;
    return kept;
}

/* A reduction over no elements: every output is `empty` (var/std's NaN, a norm's 0); returns 1 then. */
static int empty_reduction(float *out, int64_t out_numel, int64_t numel, float empty) {
    if (numel != 0) return 0;
    for (int64_t i = 0; i < out_numel; i++) out[i] = empty;
    return 1;
}

static int64_t iter_numel(const red_iter_t *it) {
    int64_t n = 1;
    for (int d = 0; d < it->ndim; d++) n *= it->shape[d];
    return n;
}

/* x: shape[ndim], contiguous (stride NULL) or of any positive element strides stride[ndim] (a permuted
 * view, a view with gaps: neighbours merge only where no gap lies between them); reduce[d] != 0 for
 * reduced dims; out: the kept dims, contiguous. */
static void iter_build(red_iter_t *it, int ndim, const int64_t *shape, const int64_t *stride, const int32_t *reduce) {
    int64_t in_st[MAXD], out_st[MAXD], s = 1, o = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        in_st[d] = stride ? stride[d] : s;
        s *= shape[d];
        out_st[d] = reduce[d] ? 0 : o;
        if (!reduce[d]) o *= shape[d];
    }
    int order[MAXD], n_order = 0;
    for (int pass = 0; pass < 2; pass++) /* reduced dims first, then kept ones */
        for (int d = ndim - 1; d >= 0; d--)
            if (shape[d] > 1 && (pass == 0) == (reduce[d] != 0)) order[n_order++] = d;
    /* reorder_dimensions compares the output's strides first: the kept dims keep the (contiguous) output's
     * order; the reduced ones (output stride 0) fall to the input's, smaller strides inner (a stable sort) */
    for (int i = 1; i < n_order && stride; i++)
        for (int j = i; j > 0 && reduce[order[j]] && reduce[order[j - 1]] && in_st[order[j]] < in_st[order[j - 1]]; j--) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    it->ndim = 0;
    for (int i = 0; i < n_order; i++) {
        const int d = order[i];
        it->shape[it->ndim] = shape[d];
        it->in_st[it->ndim] = in_st[d];
        it->out_st[it->ndim] = out_st[d];
        it->ndim++;
    }
    int n = 0; /* coalesce */
    for (int d = 1; d < it->ndim; d++) {
        if (it->in_st[n] * it->shape[n] == it->in_st[d] && it->out_st[n] * it->shape[n] == it->out_st[d]) {
            it->shape[n] *= it->shape[d];
        } else {
            n++;
            it->shape[n] = it->shape[d];
            it->in_st[n] = it->in_st[d];
            it->out_st[n] = it->out_st[d];
        }
    }
    it->ndim = it->ndim ? n + 1 : 0;
    if (it->ndim == 0) { /* a single element: one dim of size 1 */
        it->ndim = 1;
        it->shape[0] = 1;
        it->in_st[0] = 0;
        it->out_st[0] = 0;
    }
    it->nred = 0;
    while (it->nred < it->ndim && it->out_st[it->nred] == 0) it->nred++;
}

/* The 2-d inner loop a reduction kernel hands TensorIterator: st = {out0, in0, out1, in1}. */
typedef void (*loop2d_t)(const profile_t *p, float *out, const float *in, const int64_t st[4], int64_t size0,
                         int64_t size1);

/* TensorIteratorBase::serial_for_each over linear range [begin, end): DimCounter's 2-d steps. */
static void serial_for_each(const profile_t *p, const red_iter_t *it, float *out, const float *in, int64_t begin,
                            int64_t end, loop2d_t loop) {
    if (begin >= end) return;
    if (it->ndim <= 1) {
        int64_t st[4] = {it->out_st[0], it->in_st[0], 0, 0};
        loop(p, out + begin * it->out_st[0], in + begin * it->in_st[0], st, end - begin, 1);
        return;
    }
    int64_t v[MAXD], x = begin, offset = begin;
    for (int d = 0; d < it->ndim; d++) {
        v[d] = x % it->shape[d];
        x /= it->shape[d];
    }
    int64_t st[4] = {it->out_st[0], it->in_st[0], it->out_st[1], it->in_st[1]};
    while (offset < end) {
        int64_t oo = 0, io = 0;
        for (int d = 0; d < it->ndim; d++) {
            oo += v[d] * it->out_st[d];
            io += v[d] * it->in_st[d];
        }
        int64_t step0 = it->shape[0] - v[0] < end - offset ? it->shape[0] - v[0] : end - offset, step1 = 1;
        if (step0 == it->shape[0]) {
            step1 = (end - offset) / it->shape[0];
            if (it->shape[1] - v[1] < step1) step1 = it->shape[1] - v[1];
        }
        loop(p, out + oo, in + io, st, step0, step1);
        offset += step0 * step1;
        int i = 0;
        int64_t overflow = step0;
        if (step1 != 1) {
            i = 1;
            overflow = step1;
        }
        for (; i < it->ndim && overflow > 0; i++) {
            int64_t val = v[i] + overflow;
            overflow = val >= it->shape[i];
            v[i] = overflow ? val - it->shape[i] : val;
        }
    }
}

/* TensorIteratorBase::parallel_reduce (TensorIteratorReduce.cpp), its threads run one after the other.
 * out must hold the identity (0). Serial below GRAIN_SIZE elements or with one thread; a single
 * output: two_pass_reduction (thread t reduces its parallel_for chunk into buffer[t], then the
 * buffer of at::get_num_threads() entries is reduced by the same loop); otherwise
 * parallel_dim_reduction (the outermost kept dim of size >= threads is split by parallel_for with
 * grain 1, chunk bounds rounded down to 32 columns when that dim is contiguous in the input). */
static void parallel_reduce(const profile_t *p, const red_iter_t *it, float *out, const float *in, int64_t out_numel,
                            loop2d_t loop) {
    int64_t numel = iter_numel(it), threads = p->threads < 1 ? 1 : p->threads;
    if (numel < GRAIN_SIZE || threads == 1) {
        serial_for_each(p, it, out, in, 0, numel, loop);
    } else if (out_numel == 1) {
        float *buffer = calloc((size_t)threads, sizeof(float));
        for (int64_t t = 0; t < threads; t++) {
            int64_t b, e;
            if (parallel_chunk(0, numel, GRAIN_SIZE, threads, t, &b, &e))
                serial_for_each(p, it, buffer + t, in, b, e, loop);
        }
        red_iter_t fin = {1, 1, {threads}, {1}, {0}};
        serial_for_each(p, &fin, out, buffer, 0, threads, loop);
        free(buffer);
    } else {
        int dim = it->ndim - 1;
        for (int d = it->ndim - 1; d >= it->nred; d--) {
            if (it->shape[d] >= threads) {
                dim = d;
                break;
            }
            if (it->shape[d] > it->shape[dim]) dim = d;
        }
        int64_t cols = it->shape[dim];
        for (int64_t t = 0; t < threads; t++) {
            int64_t b, e;
            if (!parallel_chunk(0, cols, 1, threads, t, &b, &e)) continue;
            if (it->in_st[dim] == 1) { /* 128 bytes of float columns */
                b -= b % 32;
                if (e != cols) e -= e % 32;
            }
            if (b == e) continue;
            red_iter_t sub = *it;
            sub.shape[dim] = e - b;
            serial_for_each(p, &sub, out + b * it->out_st[dim], in + b * it->in_st[dim], 0, iter_numel(&sub), loop);
        }
    }
}

/* ----------------------------------------------------------------------------------------------
 * sum: SumKernel.cpp cascade_sum (REGISTER_DISPATCH: Vectorized<float> of p->lanes lanes, also on
 * AVX-512). Only additions, so no FMA question; the default build's 8-lane emulated vector gives
 * the same order as AVX2. */

static int64_t ceil_log2(int64_t x) {
    if (x <= 2) return 1;
    return 64 - __builtin_clzll((unsigned long long)(x - 1));
}

/* aarch64's NaN where two meet in an FADD is its first operand's (add_nans). vectorized_inner_sum's
 * adds (a contiguous reduced run: the blocks, levels and partials accumulator first, the vector's lanes
 * added onto the scalar tail's sum lane first) were measured so on emulated
 * N1, V2 and V1; the outer and strided loops' FADDs take their operands in the order GCC's register
 * allocation left them, block by block (DEFAULT: `fadd v2.4s, v0.4s, v19.4s` beside `fadd v0.4s,
 * v17.4s, v4.4s` in one combine), not read: an add there where the pick depends on the order (two NaNs
 * of other payloads, or a quiet one beside a signalling one's quieted pattern) sets nan_pick_unread, as
 * one adding a row's sum onto an output another row's NaN reached (measured: the row's sum first there). */
typedef float (*add_t)(const profile_t *p, float a, float b);
static _Thread_local int nan_pick_unread; /* per calling thread: a sum and its check run in one */

static float add_nans_unread(const profile_t *p, float a, float b) {
    const float r = add_nans(p, a, b);
    if (r != r && is_arm(p) && a != a && b != b) {
        const float other = arm_process_nans(b, a);
        if (memcmp(&r, &other, sizeof r) != 0) nan_pick_unread = 1;
    }
    return r;
}

/* 1 where this thread's last sum_forward_strided met such an add under an aarch64 profile. */
int32_t sum_nan_pick_unread(void) { return nan_pick_unread; }

/* multi_row_sum: nrows running sums of items of W lanes, item (i, k) at in + i*row_stride +
 * k*col_stride; a 4-level cascade: level 0 takes 2^lp items per row-step block, each full block
 * is pushed up (level j += level j-1) until i is not a multiple of the next level's span;
 * the rest goes into level 0; levels are added into level 0 in order 1, 2, 3. */
static void multi_row_sum(const profile_t *p, add_t add, const float *in, int64_t row_stride, int64_t col_stride,
                          int64_t size, int nrows, int W, float *ret) {
    float acc[4][4 * 16];
    const int n = nrows * W;
    memset(acc, 0, sizeof(acc));
    int64_t lp = ceil_log2(size) / 4;
    if (lp < 4) lp = 4;
    const int64_t step = (int64_t)1 << lp, mask = step - 1;
    int64_t i = 0;
    while (i + step <= size) {
        for (int64_t j = 0; j < step; j++, i++)
            for (int k = 0; k < nrows; k++) {
                const float *src = in + i * row_stride + k * col_stride;
                for (int l = 0; l < W; l++) acc[0][k * W + l] = add(p, acc[0][k * W + l], src[l]);
            }
        for (int j = 1; j < 4; j++) {
            for (int kl = 0; kl < n; kl++) {
                acc[j][kl] = add(p, acc[j][kl], acc[j - 1][kl]);
                acc[j - 1][kl] = 0.0f;
            }
            if ((i & (mask << (j * lp))) != 0) break;
        }
    }
    for (; i < size; i++)
        for (int k = 0; k < nrows; k++) {
            const float *src = in + i * row_stride + k * col_stride;
            for (int l = 0; l < W; l++) acc[0][k * W + l] = add(p, acc[0][k * W + l], src[l]);
        }
    for (int j = 1; j < 4; j++)
        for (int kl = 0; kl < n; kl++) acc[0][kl] = add(p, acc[0][kl], acc[j][kl]);
    memcpy(ret, acc[0], (size_t)n * sizeof(float));
}

/* row_sum: the row as (-1, 4) items -> 4 cascaded partial sums, the leftover items into partial
 * 0, then partial 0 += partials 1, 2, 3. */
static void row_sum(const profile_t *p, add_t add, const float *in, int64_t stride, int64_t size, int W, float *ret) {
    float part[4 * 16];
    const int64_t size_ilp = size / 4;
    multi_row_sum(p, add, in, stride * 4, stride, size_ilp, 4, W, part);
    for (int64_t i = size_ilp * 4; i < size; i++)
        for (int l = 0; l < W; l++) part[l] = add(p, part[l], in[i * stride + l]);
    for (int k = 1; k < 4; k++)
        for (int l = 0; l < W; l++) part[l] = add(p, part[l], part[k * W + l]);
    memcpy(ret, part, (size_t)W * sizeof(float));
}

/* cascade_sum's loop: out[j] += sum over dim 0 (the reduced one after the swap). */
static void sum_loop2d(const profile_t *p, float *out, const float *in, const int64_t st[4], int64_t size0,
                       int64_t size1) {
    int64_t in_s[2] = {st[1], st[3]}, out_s[2] = {st[0], st[2]};
    const int L = p->lanes;
    float v[16];
    if (out_s[0] != 0 && out_s[1] == 0) { /* move the reduction to dim 0 */
        int64_t t = in_s[0];
        in_s[0] = in_s[1];
        in_s[1] = t;
        t = out_s[0];
        out_s[0] = out_s[1];
        out_s[1] = t;
        t = size0;
        size0 = size1;
        size1 = t;
    }
    if (out_s[0] != 0 && out_s[1] != 0) { /* not a reduction: out += in */
        for (int64_t j = 0; j < size1; j++)
            for (int64_t i = 0; i < size0; i++) {
                float *o = out + i * out_s[0] + j * out_s[1];
                *o = add_nans_unread(p, *o, in[i * in_s[0] + j * in_s[1]]);
            }
        return;
    }
    const int64_t os = out_s[1];
    if (in_s[0] == 1 && size0 >= L) { /* vectorized_inner_sum */
        const int64_t nvec = size0 / L;
        for (int64_t j = 0; j < size1; j++) {
            const float *row = in + j * in_s[1];
            row_sum(p, add_nans, row, L, nvec, L, v);
            float acc = 0.0f;
            for (int64_t k = nvec * L; k < size0; k++) acc = add_nans(p, acc, row[k]);
            for (int l = 0; l < L; l++) acc = add_nans(p, v[l], acc); /* aarch64: the lane first */
            out[j * os] = add_nans_unread(p, out[j * os], acc);
        }
    } else if (in_s[1] == 1 && size1 >= L) { /* vectorized_outer_sum */
        float sums[4 * 16];
        int64_t j = 0;
        for (; j + 4 * L <= size1; j += 4 * L) {
            multi_row_sum(p, add_nans_unread, in + j, in_s[0], L, size0, 4, L, sums);
            for (int kl = 0; kl < 4 * L; kl++) out[(j + kl) * os] = add_nans_unread(p, out[(j + kl) * os], sums[kl]);
        }
        for (; j + L <= size1; j += L) {
            row_sum(p, add_nans_unread, in + j, in_s[0], size0, L, v);
            for (int l = 0; l < L; l++) out[(j + l) * os] = add_nans_unread(p, out[(j + l) * os], v[l]);
        }
        for (; j < size1; j++) {
            row_sum(p, add_nans_unread, in + j, in_s[0], size0, 1, v);
            out[j * os] = add_nans_unread(p, out[j * os], v[0]);
        }
    } else if (in_s[0] < in_s[1]) { /* scalar_inner_sum */
        for (int64_t j = 0; j < size1; j++) {
            row_sum(p, add_nans_unread, in + j * in_s[1], in_s[0], size0, 1, v);
            out[j * os] = add_nans_unread(p, out[j * os], v[0]);
        }
    } else { /* scalar_outer_sum */
        float sums[4];
        int64_t j = 0;
        for (; j + 3 < size1; j += 4) {
            multi_row_sum(p, add_nans_unread, in + j * in_s[1], in_s[0], in_s[1], size0, 4, 1, sums);
            for (int k = 0; k < 4; k++) out[(j + k) * os] = add_nans_unread(p, out[(j + k) * os], sums[k]);
        }
        for (; j < size1; j++) {
            row_sum(p, add_nans_unread, in + j * in_s[1], in_s[0], size0, 1, v);
            out[j * os] = add_nans_unread(p, out[j * os], v[0]);
        }
    }
}

/* sum: x[shape] of element strides stride[ndim] (NULL: contiguous; else falling, iter_build) ->
 * out[kept dims]; torch.sum(x, dims) (ReduceOps.cpp sum_out -> sum_stub): out filled with 0, then
 * parallel_reduce of cascade_sum's loop. A view with gaps is read as torch reads it: each 2-d loop
 * cascade_sum is handed spans no gap splits, and adds its sums into out. */
void sum_forward_strided(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape,
                         const int64_t *stride, const int32_t *reduce) {
    red_iter_t it;
    int64_t numel, out_numel = kept_numel(ndim, shape, reduce, &numel);
    memset(out, 0, (size_t)out_numel * sizeof(float));
    nan_pick_unread = 0;
    if (numel == 0) return;
    iter_build(&it, ndim, shape, stride, reduce);
    parallel_reduce(&p, &it, out, x, out_numel, sum_loop2d);
}

/* sum_forward_strided of a contiguous x. */
void sum_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    sum_forward_strided(p, x, out, ndim, shape, NULL, reduce);
}

/* mean: ReduceOps.cpp mean_out on CPU: sum_out(...).div_(prod of reduced sizes): a true division
 * by the count as a float. */
void mean_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    int64_t out_numel = 1, count = 1;
    for (int d = 0; d < ndim; d++) {
        if (reduce[d]) count *= shape[d];
        else out_numel *= shape[d];
    }
    sum_forward(p, x, out, ndim, shape, reduce);
    const float n = (float)count;
    for (int64_t i = 0; i < out_numel; i++) out[i] = out[i] / n;
}

/* ----------------------------------------------------------------------------------------------
 * Per-output sequential reductions (Reduce.h binary_kernel_reduce): every output folds its
 * reduced elements one by one in the iterator's order (reduced dims inner first = memory order
 * for a contiguous input). Outputs never split their own reduction between threads here: a
 * parallel foreach_reduced_elt gives each thread whole outputs, and binary_kernel_reduce only
 * chunks one output's elements when that output is the only one -- the full reductions below
 * take other kernels (std_var_all_cpu, the last-dim norm). */
typedef struct {
    double mean, m2; /* Welford */
    int64_t n;
    float acc; /* NormTwoOps */
} fold_t;

typedef void (*fold_step_t)(const profile_t *p, fold_t *a, float x);
typedef float (*fold_project_t)(const fold_t *a, double correction);

static void per_output_fold(const profile_t *p, const red_iter_t *it, const float *x, float *out, fold_step_t step,
                            fold_project_t project, double correction) {
    int64_t red_numel = 1, kept_numel = 1;
    for (int d = 0; d < it->ndim; d++) {
        if (d < it->nred) red_numel *= it->shape[d];
        else kept_numel *= it->shape[d];
    }
    for (int64_t o = 0; o < kept_numel; o++) {
        int64_t rest = o, in_off = 0, out_off = 0;
        for (int d = it->nred; d < it->ndim; d++) {
            int64_t v = rest % it->shape[d];
            rest /= it->shape[d];
            in_off += v * it->in_st[d];
            out_off += v * it->out_st[d];
        }
        fold_t a = {0.0, 0.0, 0, 0.0f};
        for (int64_t r = 0; r < red_numel; r++) {
            int64_t rr = r, off = in_off;
            for (int d = 0; d < it->nred; d++) {
                off += (rr % it->shape[d]) * it->in_st[d];
                rr /= it->shape[d];
            }
            step(p, &a, x[off]);
        }
        out[out_off] = project(&a, correction);
    }
}

/* ----------------------------------------------------------------------------------------------
 * var (ReduceOps.cpp std_var_out, correction 1). */

/* WelfordOps<float, double, int64_t> (SharedReduceOps.h) reduce, in double: n += 1;
 * delta = x - mean; mean += delta / n; m2 += delta * (x - mean) -- the last one contracted to an
 * FMA in the vectorised (AVX2/AVX-512) builds of ReduceOpsKernel.cpp (p->contract). */
static void welford_step(const profile_t *p, fold_t *a, float x) {
    a->n += 1;
    const double xd = (double)x, nf = (double)a->n;
    const double delta = xd - a->mean;
    a->mean = a->mean + delta / nf;
    const double delta2 = xd - a->mean;
    a->m2 = p->contract ? fma(delta, delta2, a->m2) : a->m2 + delta * delta2;
}

/* project: var = m2 / (n - correction) (0 divisor when n <= correction), rounded to float. */
static float welford_project(const fold_t *a, double correction) {
    const double nf = (double)a->n;
    const double divisor = nf > correction ? nf - correction : 0.0;
    return (float)(a->m2 / divisor);
}

/* project with take_sqrt (std): sqrt(m2 / (n - correction)) in double, then rounded to float. */
static float welford_project_sqrt(const fold_t *a, double correction) {
    const double nf = (double)a->n;
    const double divisor = nf > correction ? nf - correction : 0.0;
    return (float)sqrt(a->m2 / divisor);
}

/* std_var_all_cpu (single output): mean = the float mean() as a double; at::parallel_reduce over
 * GRAIN_SIZE chunks of sum (double(x) - mean)^2 in double (ReduceOps.cpp is built without FMA);
 * chunk sums added in thread order onto 0; var = sum / (numel - correction), its sqrt in double for
 * std (take_sqrt), rounded to float. */
static float var_all(const profile_t *p, const float *x, int64_t numel, double correction, int take_sqrt) {
    float meanf;
    const int64_t shape[1] = {numel};
    const int32_t red[1] = {1};
    mean_forward(*p, x, &meanf, 1, shape, red);
    const double mean = (double)meanf;
    int64_t threads = parallel_threads(0, numel, GRAIN_SIZE, p->threads);
    double total = 0.0;
    for (int64_t t = 0; t < threads; t++) {
        int64_t b = 0, e = numel;
        if (threads > 1 && !parallel_chunk(0, numel, GRAIN_SIZE, threads, t, &b, &e)) continue;
        double local = 0.0;
        for (int64_t i = b; i < e; i++) {
            const double dx = (double)x[i] - mean;
            local += dx * dx;
        }
        total += 0.0 + local;
    }
    const double var = total / (numel - correction > 0.0 ? numel - correction : 0.0);
    return (float)(take_sqrt ? sqrt(var) : var);
}

/* var (take_sqrt 0) or std (take_sqrt 1): x[shape] -> out[kept dims] with a correction (ATen's
 * `correction`, 1 unbiased, 0 the population's: the divisor n - correction, 0 where n <= correction, so a
 * zero m2 gives 0/0: the platform's default NaN, arm_default_nans). */
void std_var_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape,
                     const int32_t *reduce, double correction, int32_t take_sqrt) {
    red_iter_t it;
    int64_t numel, out_numel = kept_numel(ndim, shape, reduce, &numel);
    if (empty_reduction(out, out_numel, numel, NAN)) return;
    if (out_numel == 1) {
        out[0] = var_all(&p, x, numel, correction, take_sqrt);
        arm_default_nans(&p, out, 1);
        return;
    }
    iter_build(&it, ndim, shape, NULL, reduce);
    per_output_fold(&p, &it, x, out, welford_step, take_sqrt ? welford_project_sqrt : welford_project, correction);
    arm_default_nans(&p, out, out_numel);
}

/* var: x.var(dims), correction 1. */
void var_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    std_var_forward(p, x, out, ndim, shape, reduce, 1.0, 0);
}

/* std: x.std(dims), correction 1: std_var_out's take_sqrt, the sqrt of var's double before rounding. */
void std_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    std_var_forward(p, x, out, ndim, shape, reduce, 1.0, 1);
}

/* ----------------------------------------------------------------------------------------------
 * vector_norm, ord 2 (ReduceOpsKernel.cpp norm_kernel_tensor_iterator_impl). */

/* The last-dim path (one reduced dim, contiguous; a full reduction coalesces to it), one row of n:
 * lane accumulators acc[l] = acc[l] + x*x over whole vectors of p->lanes (REGISTER_DISPATCH: 8
 * lanes also on AVX-512; the Vectorized operators are not contracted), then
 * acc[0] + acc[1] + ... + acc[L-1] left to right, then the t < L tail elements, s += x*x in
 * order. GCC vectorises that tail loop as an in-order reduction: its first 4-element block
 * (when t >= 4) squares with a separate rounding; the remaining scalar iterations are contracted
 * to fmaf in the vectorised builds (p->contract). Measured: exact for every tail length 0..7.
 * aarch64: in objects whose Vectorized<float> is the 4-lane NEON type (the DEFAULT and SVE128
 * builds), GCC's vmulq_f32/vaddq_f32 are vector-extension operators, so acc + x*x is contracted to
 * fmla in the vector body; the SVE256 build's svmul/svadd body is not contracted. The tail: the
 * DEFAULT (NEON-only) build contracts it to fmadd throughout; the SVE builds (SVE128 and SVE256)
 * vectorise it as an in-order SVE reduction (fmul, fadda), every square rounded before its
 * addition. Measured on emulated Neoverse N1, V2 and V1 for every row length 1..40 and 63..1000.
 * Then sqrtf. */
static float norm2_row(const profile_t *p, const float *x, int64_t n) {
    const int L = p->lanes;
    const int neon = p->aten == ATEN_NEON || (p->aten == ATEN_SVE && L == 4);
    float acc[16] = {0};
    int64_t d = 0;
    if (neon)
        for (; d < n - n % L; d += L)
            for (int l = 0; l < L; l++) acc[l] = nan3(p, fmaf(x[d + l], x[d + l], acc[l]), x[d + l], x[d + l], acc[l]);
    else
        for (; d < n - n % L; d += L)
            for (int l = 0; l < L; l++) acc[l] = add_nans(p, acc[l], nan2(p, x[d + l] * x[d + l], x[d + l], x[d + l]));
    float s = add_nans(p, acc[1], acc[0]); /* every aarch64 object: `fadd s0, s0, s1`, lane 1 first */
    for (int l = 2; l < L; l++) s = add_nans(p, s, acc[l]);
    const int64_t blocked = p->aten == ATEN_SVE ? n : p->aten == ATEN_NEON ? d : d + (n - d) / 4 * 4;
    for (; d < blocked; d++) s = add_nans(p, s, nan2(p, x[d] * x[d], x[d], x[d]));
    for (; d < n; d++) s = sfmadd_nans(p, x[d], x[d], s);
    return sqrtf(s);
}

/* NormTwoOps (SharedReduceOps.h): acc + x*x in float, sqrt. Measured: not contracted on x86 (dim 0
 * of 23x2000 on avx2); contracted to fmadd on aarch64 (every build: emulated N1, V2, V1, dim 0). */
static void norm2_step(const profile_t *p, fold_t *a, float x) {
    a->acc = is_arm(p) ? nan3(p, fmaf(x, x, a->acc), x, x, a->acc) : a->acc + x * x;
}
static float norm2_project(const fold_t *a, double correction) {
    (void)correction;
    return sqrtf(a->acc);
}

/* vector_norm: x[shape] -> out[kept dims], torch.linalg.vector_norm(x, 2, dims). */
void vector_norm_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape,
                         const int32_t *reduce) {
    red_iter_t it;
    int64_t numel, out_numel = kept_numel(ndim, shape, reduce, &numel);
    if (empty_reduction(out, out_numel, numel, 0.0f)) return;
    iter_build(&it, ndim, shape, NULL, reduce);
    if (it.nred == 1 && it.in_st[0] == 1) { /* is_reduce_lastdim: binary_kernel_reduce_lastdim */
        for (int64_t o = 0; o < out_numel; o++) {
            int64_t rest = o, in_off = 0, out_off = 0;
            for (int d = 1; d < it.ndim; d++) {
                int64_t v = rest % it.shape[d];
                rest /= it.shape[d];
                in_off += v * it.in_st[d];
                out_off += v * it.out_st[d];
            }
            out[out_off] = norm2_row(&p, x + in_off, it.shape[0]);
        }
        return;
    }
    per_output_fold(&p, &it, x, out, norm2_step, norm2_project, 0.0);
}

/* ----------------------------------------------------------------------------------------------
 * vector_norm, ord 1 (norm_kernel_tensor_iterator_impl: the vectorised last-dim path is ord 2's
 * only, so every 1-norm reaches norm_kernel_cpu_impl's binary_kernel_reduce with NormOneOps). */

/* NormOneOps (SharedReduceOps.h): acc + std::abs(x) in float (fabsf: a NaN's sign cleared), no
 * projection; no multiply, so nothing to contract on any build. */
static void norm1_step(const profile_t *p, fold_t *a, float x) {
    a->acc = add_nans(p, a->acc, fabsf(x));
}
static float norm1_project(const fold_t *a, double correction) {
    (void)correction;
    return a->acc;
}

/* vector_norm1: x[shape] (C-contiguous) -> out[kept dims], torch.linalg.vector_norm(x, 1, dims).
 * Several outputs: foreach_reduced_elt runs each output's chain serially (in order over the reduced
 * dims; its parallel split is over outputs only). One output: binary_kernel_reduce's own split, where
 * the output has at least GRAIN_SIZE elements and there are several threads: parallel_for's chunks
 * (one per thread), each summed from 0, then the threads' sums added onto 0 in thread order; the
 * elements in memory order. */
void vector_norm1_forward(profile_t p, const float *x, float *out, int32_t ndim, const int64_t *shape,
                          const int32_t *reduce) {
    red_iter_t it;
    int64_t numel, out_numel = kept_numel(ndim, shape, reduce, &numel);
    if (empty_reduction(out, out_numel, numel, 0.0f)) return;
    if (out_numel == 1) {
        const int64_t threads = parallel_threads(0, numel, GRAIN_SIZE, p.threads);
        float total = 0.0f;
        for (int64_t t = 0; t < threads; t++) {
            int64_t b = 0, e = numel;
            if (threads > 1 && !parallel_chunk(0, numel, GRAIN_SIZE, threads, t, &b, &e)) continue;
            float local = 0.0f;
            for (int64_t i = b; i < e; i++) local = add_nans(&p, local, fabsf(x[i]));
            total = add_nans(&p, total, local);
        }
        out[0] = total;
        return;
    }
    iter_build(&it, ndim, shape, NULL, reduce);
    per_output_fold(&p, &it, x, out, norm1_step, norm1_project, 0.0);
}

/* ----------------------------------------------------------------------------------------------
 * Backwards (FunctionsManual.cpp), elementwise over x with the reduced operands broadcast back
 * (their reduced dims of stride 0): each a single float rounding per operation, so equal on
 * every profile. */

/* Walks x[shape] in memory order, tracking the offset of its output element. */
typedef struct {
    int ndim;
    int64_t shape[MAXD], out_st[MAXD], idx[MAXD], o;
} bcast_t;

static int64_t bcast_init(bcast_t *b, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    int64_t s = 1, numel = 1;
    b->ndim = ndim;
    b->o = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        b->shape[d] = shape[d];
        b->idx[d] = 0;
        b->out_st[d] = reduce[d] ? 0 : s;
        if (!reduce[d]) s *= shape[d];
        numel *= shape[d];
    }
    return numel;
}

static inline void bcast_next(bcast_t *b) {
    for (int d = b->ndim - 1; d >= 0; d--) {
        b->o += b->out_st[d];
        if (++b->idx[d] < b->shape[d]) return;
        b->o -= b->out_st[d] * b->shape[d];
        b->idx[d] = 0;
    }
}

static int64_t reduced_count(int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    int64_t count = 1;
    for (int d = 0; d < ndim; d++)
        if (reduce[d]) count *= shape[d];
    return count;
}

/* sum_backward: g[kept dims] -> grad_x[shape] = g expanded. */
void sum_backward(profile_t p, const float *g, float *grad_x, int32_t ndim, const int64_t *shape,
                  const int32_t *reduce) {
    (void)p;
    bcast_t b;
    const int64_t numel = bcast_init(&b, ndim, shape, reduce);
    for (int64_t i = 0; i < numel; i++, bcast_next(&b)) grad_x[i] = g[b.o];
}

/* mean_backward: grad_x = g expanded / count (true division by the count as a float). */
void mean_backward(profile_t p, const float *g, float *grad_x, int32_t ndim, const int64_t *shape,
                   const int32_t *reduce) {
    (void)p;
    bcast_t b;
    const int64_t numel = bcast_init(&b, ndim, shape, reduce);
    const float n = (float)reduced_count(ndim, shape, reduce);
    for (int64_t i = 0; i < numel; i++, bcast_next(&b)) grad_x[i] = g[b.o] / n;
}

/* var_backward (correction 1): x[shape], g and mean[kept dims] (mean = x.mean(dims) as mean_forward)
 * -> grad_x = (c * g) * (x - mean), c = float(2.0 / (count - 1)) computed in double (a Python
 * float scalar times a tensor). A full reduction of <= 1 element: g * (x == mean ? nan : inf). */
void var_backward(profile_t p, const float *x, const float *g, const float *mean, float *grad_x, int32_t ndim,
                  const int64_t *shape, const int32_t *reduce, int32_t full) {
    bcast_t b;
    const int64_t numel = bcast_init(&b, ndim, shape, reduce), count = reduced_count(ndim, shape, reduce);
    if (full && count <= 1) {
        for (int64_t i = 0; i < numel; i++) grad_x[i] = g[0] * (x[i] == mean[0] ? NAN : INFINITY);
        return;
    }
    const float c = (float)(2.0 / (double)(count - 1));
    for (int64_t i = 0; i < numel; i++, bcast_next(&b)) grad_x[i] = (c * g[b.o]) * (x[i] - mean[b.o]);
    arm_default_nans(&p, grad_x, numel); /* count 1: c = inf, inf * 0 */
}

/* vector_norm backward (norm_backward, p = 2): x[shape], g and norm[kept dims]
 * -> grad_x = g * ((x / norm) with 0 where norm == 0). */
void vector_norm_backward(profile_t p, const float *x, const float *g, const float *norm, float *grad_x,
                          int32_t ndim, const int64_t *shape, const int32_t *reduce) {
    (void)p;
    bcast_t b;
    const int64_t numel = bcast_init(&b, ndim, shape, reduce);
    for (int64_t i = 0; i < numel; i++, bcast_next(&b)) {
        const float q = norm[b.o] == 0.0f ? 0.0f : x[i] / norm[b.o];
        grad_x[i] = g[b.o] * q;
    }
}
