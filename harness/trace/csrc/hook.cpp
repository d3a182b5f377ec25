/* The dispatcher hook of `parity trace` (harness/trace/recorder.py): not a PyTorch kernel, but a boxed
 * fallback on the dispatch key Fake, the key just below Python's, so that it sees exactly the ops a
 * TorchDispatchMode sees (after autograd and the composite decompositions, before the backend
 * kernels), without making Python objects of every op's arguments. Built against the installed torch
 * by harness/trace/native.py, loaded as the Python module harness.trace._hook.
 *
 * Per op it does what record.py's Tracer.dispatch and csrc/tracer.c's Cache.op do through the mode,
 * to the same records:
 *   1. the op's spec (record.py's _Schema, asked once per op) and its origin (origin() below, which
 *      is Tracer.origin, with tracer.c's site() for the call site);
 *   2. the arguments split as torch splits them for __torch_dispatch__ (parseIValuesToPyArgsKwargs:
 *      positional up to the trailing run of defaults, keyword-only ones unless default) into tensors
 *      (tensor lists by element, "name[j]") and plain values, converted as torch converts them;
 *   3. each input's fingerprint before the op (from the cache where valid), the op (redispatched below
 *      this key, with this key excluded so that the ops it runs inside are not seen), each output's;
 *   4. the record kept in C++ until take() makes it a tracefile.py OpRecord.
 * Ops whose index is in the capture set hand their tensors to Python before and after the op.
 *
 * The fingerprint cache follows tracer.c's: a fingerprint by content key ((data_ptr, numel, dtype)
 * when contiguous, else (data_ptr, dtype, shape, stride)), valid while the tensor it was taken from
 * lives with an unchanged version counter; here the tensor is held by a weak pointer and dead
 * tensors' entries are swept when the cache has doubled. float32 data is fingerprinted with
 * fingerprint_v2.h here (non-contiguous data in its C order, as record.py's .contiguous() lays it out,
 * a block at a time through a small buffer: stream_strided; a long contiguous tensor's segments on
 * ATen's threads: fingerprint_split); other dtypes by record.py's _fingerprint. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/autograd/functions/accumulate_grad.h>
#include <torch/csrc/autograd/node.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/csrc/utils/tensor_memoryformats.h>
#include <ATen/SequenceNumber.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fingerprint_v2.h"

namespace {

constexpr c10::DispatchKey kKey = c10::DispatchKey::Fake;
/* the block of a non-contiguous tensor copied at a time to be fingerprinted: in L3, and rows enough
 * (16 or more for the 768 x 50304 transposed embedding) that a transposed copy reads whole cache lines */
constexpr int64_t kScratchBytes = 4 << 20;
/* an op's tensors are fingerprinted on several threads from this many bytes in all */
constexpr int64_t kParallelBytes = 4 << 20;
/* one contiguous tensor's segments are shared among ATen's threads from this many bytes (4 segments) */
constexpr int64_t kSplitBytes = 1 << 20;

/* A Python error as the C++ exception the dispatcher passes up (torch turns it into RuntimeError). */
[[noreturn]] void raise_python_error(const char *what) {
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
    std::string text = std::string("parity trace: ") + what;
    if (value != nullptr) {
        PyObject *s = PyObject_Str(value);
        const char *u = s ? PyUnicode_AsUTF8(s) : nullptr;
        if (u != nullptr) text += std::string(": ") + u;
        Py_XDECREF(s);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    PyErr_Clear();
    TORCH_CHECK(false, text);
}

/* An owned reference. */
struct Ref {
    PyObject *p = nullptr;
    Ref() = default;
    explicit Ref(PyObject *o) : p(o) {}
    Ref(const Ref &) = delete;
    Ref &operator=(const Ref &) = delete;
    Ref(Ref &&o) noexcept : p(o.p) { o.p = nullptr; }
    Ref &operator=(Ref &&o) noexcept {
        if (this != &o) {
            Py_XDECREF(p);
            p = o.p;
            o.p = nullptr;
        }
        return *this;
    }
    ~Ref() { Py_XDECREF(p); }
    PyObject *get() const { return p; }
    PyObject *release() {
        PyObject *o = p;
        p = nullptr;
        return o;
    }
};

Ref checked(PyObject *o, const char *what) {
    if (o == nullptr) raise_python_error(what);
    return Ref(o);
}

/* Whether argument i holds its schema's default (which __torch_dispatch__ is not given). */
bool is_default(const c10::FunctionSchema &schema, c10::ArrayRef<c10::IValue> args, size_t i) {
    const auto &d = schema.arguments()[i].default_value();
    return d.has_value() && *d == args[i];
}

/* What record.py's _Schema.spec says of one op, per argument index. */
struct Spec {
    const c10::FunctionSchema *schema = nullptr;
    Ref name;                   /* "aten.addmm.default" */
    std::vector<Ref> arg_names; /* the schema's argument names */
    std::vector<bool> tensor_list, overwrites, written;
    Ref scratch; /* frozenset of output names that are scratch memory */
    bool allocates = false, view = false, random = false;
};

/* A fingerprint: (digest, sum), or none (memory nothing has written, or not a CPU strided tensor). */
struct Print {
    bool has = false;
    uint8_t digest[32];
    double sum = 0.0;
};

/* A fingerprint cache entry. */
struct Entry {
    int64_t version = 0;
    Print value;
    std::optional<c10::weak_intrusive_ptr<c10::TensorImpl>> owner; /* the tensor it was taken from */
};

struct Key {
    uintptr_t ptr;
    int64_t numel;
    int8_t dtype;
    std::vector<int64_t> geometry; /* sizes, -1, strides: empty when contiguous */
    bool operator==(const Key &o) const {
        return ptr == o.ptr && numel == o.numel && dtype == o.dtype && geometry == o.geometry;
    }
};

struct KeyHash {
    size_t operator()(const Key &k) const {
        uint64_t h = (uint64_t)k.ptr * P1 ^ (uint64_t)k.numel * P2 ^ (uint64_t)k.dtype;
        for (int64_t g : k.geometry) h = rotl64(h ^ (uint64_t)g * P3, 27) * P1;
        return (size_t)h;
    }
};

/* The op that last wrote a storage. */
struct Writer {
    int32_t op;
    c10::weak_intrusive_ptr<c10::StorageImpl> storage;
};

/* A tensor as recorded; its name is made when the record is taken: argument `arg` ("name", or
 * "name[elem]" in a tensor list), or output `out` ("out" where the op returns one tensor). */
struct TRef {
    int32_t arg = -1, elem = -1, out = -1;
    int32_t src = -1; /* an input: the op that last wrote its storage (-1: none in the trace) */
    bool single = false;
    Print print;
    c10::ScalarType dtype;
    c10::SmallVector<int64_t, 5> shape;
};

/* One op's record, kept in C++ until taken: no Python object per op meanwhile, so a long trace
 * neither triggers the garbage collector nor lengthens its passes. */
struct Rec {
    Spec *spec;
    Ref module, site, phase, step;
    /* (name, value) of the other arguments, as Python objects at once: copies of IValue lists kept
     * until the trace is read sat between the tensors' blocks of the C heap and grew it (a
     * shakespeare-char step's to 4.7 GB against 2.5, with half a million more page faults) */
    std::vector<Ref> plain;
    std::vector<TRef> in, out;
    Ref gen_ref; /* the generator state's raw ref (random ops) */
};

/* The state of the trace being recorded (one per process at a time). */
struct Session {
    Ref tracer;        /* record.py's Tracer: _module_stack, _optimizer, step */
    Ref site;          /* tracer.c's site(depth, internal, skip, sites) and its three caches */
    Ref internal, skip, sites;
    Ref spec_for;      /* (name, overload) -> (display name, spec, random) */
    Ref fallback;      /* tensor -> (digest, sum): dtypes other than float32 */
    Ref generator_ref; /* generator or None -> the generator state's raw ref */
    Ref dtype_names;   /* torch.dtype -> "float32" */
    Ref empty;         /* (digest of b"", 0.0) */
    Ref capture;       /* frozenset of op indices kept in full */
    Ref capture_before, capture_after;
    Ref out_one, optimizer;     /* "out", "optimizer" */
    std::vector<Ref> out_names; /* "out0", "out1", ... made as needed */
    std::unordered_map<const void *, std::unique_ptr<Spec>> specs;
    std::unordered_map<Key, Entry, KeyHash> cache;
    size_t sweep_at = 4096;
    std::unordered_map<const c10::TensorImpl *, Ref> param_names;
    Ref dtype_by_scalar[64];
    std::unordered_map<uint64_t, std::pair<Ref, Ref>> node_origin; /* sequence number: (module, site) */
    Ref backward, forward, other, unknown, empty_str, accumulate; /* "backward", ..., "?", "", "parameter" */
    Ref no_src = Ref(PyLong_FromLong(-1));                        /* an input no traced op wrote */
    Ref s_module_stack, s_optimizer, s_step;                      /* attribute names */
    /* per storage (its StorageImpl, which every view of it shares): the op that last wrote it, and
     * the storage held weakly, so that one freed is not taken for another made at its address */
    std::unordered_map<const c10::StorageImpl *, Writer> writer;
    size_t writer_sweep_at = 4096;
    at::Tensor scratch;       /* stream_strided's buffer (kScratchBytes), made when first needed */
    std::vector<Rec> records; /* not yet taken */
    Py_ssize_t count = 0;     /* ops recorded */
};

Session *g_session = nullptr;
bool g_was_included = false;
std::unique_ptr<torch::Library> g_library;

PyObject *out_name(Session &s, size_t i) {
    while (s.out_names.size() <= i)
        s.out_names.emplace_back(checked(PyUnicode_FromFormat("out%zu", s.out_names.size()), "name"));
    return s.out_names[i].get();
}

PyObject *dtype_name(Session &s, c10::ScalarType st) {
    const int i = static_cast<int>(st);
    TORCH_CHECK(i >= 0 && i < 64, "parity trace: unknown dtype");
    if (s.dtype_by_scalar[i].get() == nullptr) {
        PyObject *dtype = reinterpret_cast<PyObject *>(torch::getTHPDtype(st)); /* borrowed */
        PyObject *name = PyDict_GetItemWithError(s.dtype_names.get(), dtype);
        if (name == nullptr) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, dtype);
            raise_python_error("dtype name");
        }
        s.dtype_by_scalar[i] = Ref(Py_NewRef(name));
    }
    return s.dtype_by_scalar[i].get();
}

bool strided_cpu(const at::Tensor &t) { return t.is_cpu() && t.layout() == c10::kStrided; }

/* The storage t views (nullptr where it has none to name): what ties an op's input to the op that
 * wrote it, through views and in-place writes. */
const c10::StorageImpl *storage_of(const at::Tensor &t) {
    if (!strided_cpu(t) || !t.has_storage()) return nullptr;
    return t.storage().unsafeGetStorageImpl();
}

/* The op that last wrote the storage t views, or -1 (none traced, or that storage has died). */
int32_t writer_of(Session &s, const at::Tensor &t) {
    const c10::StorageImpl *st = storage_of(t);
    if (st == nullptr) return -1;
    auto w = s.writer.find(st);
    if (w == s.writer.end()) return -1;
    if (w->second.storage.expired()) {
        s.writer.erase(w);
        return -1;
    }
    return w->second.op;
}

/* Op `index` is now the last writer of the storage t views. */
void wrote(Session &s, const at::Tensor &t, int32_t index) {
    const c10::StorageImpl *st = storage_of(t);
    if (st == nullptr) return;
    s.writer.insert_or_assign(st, Writer{index, t.storage().getWeakStorageImpl()});
    if (s.writer.size() >= s.writer_sweep_at) {
        for (auto it = s.writer.begin(); it != s.writer.end();) {
            if (it->second.storage.expired()) it = s.writer.erase(it);
            else ++it;
        }
        s.writer_sweep_at = std::max<size_t>(4096, 2 * s.writer.size());
    }
}

/* t's version counter (+ bump) into *out; false where it has none (inference tensors). */
bool version_of(const at::Tensor &t, int64_t bump, int64_t *out) {
    const auto &vc = t.unsafeGetTensorImpl()->version_counter();
    if (!vc.enabled()) return false;
    *out = (int64_t)vc.current_version() + bump;
    return true;
}

Key content_key(const at::Tensor &t, bool *contiguous) {
    *contiguous = t.is_contiguous();
    Key k{reinterpret_cast<uintptr_t>(t.data_ptr()), 0, static_cast<int8_t>(t.scalar_type()), {}};
    if (*contiguous) k.numel = t.numel();
    else {
        k.numel = -1;
        for (int64_t d : t.sizes()) k.geometry.push_back(d);
        k.geometry.push_back(-1);
        for (int64_t d : t.strides()) k.geometry.push_back(d);
    }
    return k;
}

/* The cached fingerprint valid for t, or nullptr: tracer.c's lookup. */
const Print *lookup(Session &s, const at::Tensor &t, const Key &key) {
    auto it = s.cache.find(key);
    if (it == s.cache.end() || !it->second.owner) return nullptr;
    Entry &e = it->second;
    auto owner = e.owner->lock();
    if (!owner) return nullptr;
    const auto &ovc = owner->version_counter();
    if (!ovc.enabled()) return nullptr;
    const int64_t theirs = (int64_t)ovc.current_version();
    if (owner.get() == t.unsafeGetTensorImpl()) return theirs == e.version ? &e.value : nullptr;
    int64_t mine = 0;
    if (!version_of(t, 0, &mine) || theirs != e.version || mine != e.version) return nullptr;
    if (!owner->has_storage() || reinterpret_cast<uintptr_t>(owner->data()) != key.ptr) return nullptr;
    return &e.value;
}

void sweep(Session &s) {
    for (auto it = s.cache.begin(); it != s.cache.end();) {
        if (it->second.owner->expired()) it = s.cache.erase(it);
        else ++it;
    }
    s.sweep_at = std::max<size_t>(4096, 2 * s.cache.size());
}

/* cache[key] = (t's version + bump, value) held by t: tracer.c's put. */
void put(Session &s, const at::Tensor &t, Key key, const Print &value, int64_t bump) {
    int64_t version;
    if (!version_of(t, bump, &version)) return;
    Entry &e = s.cache[std::move(key)];
    e.version = version;
    e.value = value;
    if (!e.owner || e.owner->_unsafe_get_target() != t.unsafeGetTensorImpl() || e.owner->expired())
        e.owner.emplace(t.getIntrusivePtr());
    if (s.cache.size() >= s.sweep_at) sweep(s);
}

Print from_python(PyObject *pair) {
    Print p;
    const char *bytes;
    Py_ssize_t n;
    double sum;
    if (!PyArg_ParseTuple(pair, "y#d", &bytes, &n, &sum) || n != 32) raise_python_error("a fingerprint");
    p.has = true;
    std::memcpy(p.digest, bytes, 32);
    p.sum = sum;
    return p;
}

/* Rows [i0, i0 + rows) of a transposed matrix of 4-byte elements (the view's sizes (R, C), strides
 * (1, ld): its row i is column i of the matrix at base) into dst in C order (rows x C), 8 x 8
 * elements at a time through a tile in registers or L1: each tile reads 8 of the matrix's rows 32
 * bytes each and writes 8 of dst's rows 32 bytes each, and the matrix's rows kAhead on are asked for
 * before they are read. ATen's copy_ reads one element of each row in turn instead (a page walk and
 * a cache miss each in a wide matrix; dst's rows a power of two apart share a cache set). Bytes
 * only, no arithmetic. Timed by benchmarks/transposed_digest.py (docs/trace.md, Cost). */
void transposed_rows(const uint32_t *base, int64_t ld, int64_t i0, int64_t rows, int64_t C, uint32_t *dst) {
    constexpr int64_t kAhead = 32;
    uint32_t tile[8][8];
    for (int64_t j0 = 0; j0 < C; j0 += 8) {
        const int64_t jn = std::min<int64_t>(8, C - j0);
        for (int64_t a = 0; a < jn && j0 + kAhead + a < C; a++) {
            const uint32_t *ahead = base + (j0 + kAhead + a) * ld + i0;
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + rows - 1);
        }
        for (int64_t k0 = 0; k0 < rows; k0 += 8) {
            const int64_t kn = std::min<int64_t>(8, rows - k0);
            const uint32_t *src = base + j0 * ld + i0 + k0;
            uint32_t *out = dst + k0 * C + j0;
            if (jn == 8 && kn == 8) { /* whole tiles: fixed trip counts, unrolled */
                for (int a = 0; a < 8; a++)
                    for (int b = 0; b < 8; b++) tile[b][a] = src[a * ld + b];
                for (int b = 0; b < 8; b++)
                    for (int a = 0; a < 8; a++) out[b * C + a] = tile[b][a];
                continue;
            }
            for (int64_t a = 0; a < jn; a++)
                for (int64_t b = 0; b < kn; b++) out[b * C + a] = src[a * ld + b];
        }
    }
}

/* The C-order bytes of non-contiguous t into st, a block of whole rows (along dim 0) at a time copied
 * into the session's scratch buffer: the bytes t.contiguous() would hold, without making a tensor of
 * t's size (fresh pages from the kernel, each zeroed, for every large transposed operand). A tensor
 * whose last two dims are a transposed matrix of 4-byte elements (w.t(), k.transpose(-2, -1)) is
 * copied by transposed_rows, matrix by matrix; any other by ATen's copy_. */
void stream_strided(Session &s, fp2_state &st, const at::Tensor &t) {
    const int64_t nbytes = (int64_t)t.nbytes();
    if (nbytes == 0) return;
    if (t.is_contiguous()) {
        fp2_update(&st, static_cast<const uint8_t *>(t.const_data_ptr()), nbytes);
        return;
    }
    if (!s.scratch.defined()) s.scratch = at::empty({kScratchBytes}, at::TensorOptions().dtype(at::kByte));
    if (t.dim() >= 2 && t.element_size() == 4 && t.stride(-2) == 1 && t.size(-1) * 4 <= kScratchBytes) {
        if (t.dim() > 2) {
            for (int64_t i = 0; i < t.size(0); i++) stream_strided(s, st, t.select(0, i));
            return;
        }
        const int64_t R = t.size(0), C = t.size(1), fit = kScratchBytes / (C * 4);
        const int64_t block = fit >= 8 ? fit & ~int64_t(7) : fit; /* whole tiles where 8 rows fit */
        const auto *base = static_cast<const uint32_t *>(t.const_data_ptr());
        auto *dst = static_cast<uint32_t *>(s.scratch.data_ptr());
        for (int64_t i0 = 0; i0 < R; i0 += block) {
            const int64_t rows = std::min(block, R - i0);
            transposed_rows(base, t.stride(1), i0, rows, C, dst);
            fp2_update(&st, reinterpret_cast<const uint8_t *>(dst), rows * C * 4);
        }
        return;
    }
    const int64_t rows = t.dim() ? t.size(0) : 1, row_bytes = nbytes / rows;
    if (t.dim() > 1 && row_bytes > kScratchBytes) { /* rows too long for the buffer: each row alone */
        for (int64_t i = 0; i < rows; i++) stream_strided(s, st, t.select(0, i));
        return;
    }
    const int64_t block = t.dim() ? std::max<int64_t>(1, kScratchBytes / row_bytes) : 1;
    for (int64_t i = 0; i < rows; i += block) {
        const at::Tensor part = t.dim() ? t.narrow(0, i, std::min(block, rows - i)) : t;
        const int64_t part_bytes = (int64_t)part.nbytes();
        at::Tensor into = s.scratch.narrow(0, 0, part_bytes).view(part.scalar_type()).view(part.sizes());
        into.copy_(part);
        fp2_update(&st, static_cast<const uint8_t *>(into.const_data_ptr()), part_bytes);
    }
}

/* fingerprint2 of the n bytes of float32 data at p into out, the segments shared among ATen's intra-op
 * threads where there are kSplitBytes or more and this is not one of their tasks already
 * (fingerprint_many's): the same digest and sum as one thread's, each segment being made alone. */
void fingerprint_split(const uint8_t *p, int64_t n, Print &out) {
    if (n < kSplitBytes || at::get_num_threads() < 2 || at::in_parallel_region()) {
        fingerprint2(p, n, out.digest, &out.sum);
        return;
    }
    const int64_t segments = (n + FP2_SEGMENT - 1) / FP2_SEGMENT;
    std::vector<uint64_t> words(4 * segments);
    std::vector<double> sums(segments);
    at::parallel_for(0, segments, 1, [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; k++)
            fp2_segment(p + k * FP2_SEGMENT, std::min(FP2_SEGMENT, n - k * FP2_SEGMENT), 1, &words[4 * k], &sums[k]);
    });
    fp2_state st;
    fp2_init(&st, 1);
    for (int64_t k = 0; k < segments; k++) fp2_absorb(&st, &words[4 * k], sums[k]);
    st.n = n;
    fp2_final(&st, out.digest, &out.sum);
}

/* (digest, sum) of t: float32 here, other dtypes by record.py's _fingerprint. */
Print fingerprint_tensor(Session &s, const at::Tensor &t, bool contiguous) {
    const int64_t n = (int64_t)t.nbytes();
    if (n == 0) return from_python(s.empty.get());
    if (t.scalar_type() != at::kFloat) {
        Ref py = checked(THPVariable_Wrap(t), "wrap");
        Ref pair = checked(PyObject_CallOneArg(s.fallback.get(), py.get()), "fingerprint");
        return from_python(pair.get());
    }
    Print p;
    p.has = true;
    if (contiguous) {
        fingerprint_split(static_cast<const uint8_t *>(t.const_data_ptr()), n, p);
        return p;
    }
    fp2_state st;
    fp2_init(&st, 1);
    stream_strided(s, st, t);
    fp2_final(&st, p.digest, &p.sum);
    return p;
}

constexpr int FLAG_BLANK = 1, FLAG_OUTPUT = 2, FLAG_BUMP = 4;

/* t by dtype and shape only into r (a view, or unwritten memory) */
void shape_one(TRef &r, const at::Tensor &t) {
    r.dtype = t.scalar_type();
    r.shape.assign(t.sizes().begin(), t.sizes().end());
}

/* tracer.c's ref_one: t's fingerprint by flags (FLAG_*) into r; ready, where given, is t's
 * fingerprint taken already (fingerprint_many). */
void ref_one(Session &s, TRef &r, const at::Tensor &t, int flags, const Print *ready = nullptr) {
    shape_one(r, t);
    if (!strided_cpu(t)) return;
    bool contiguous;
    Key key = content_key(t, &contiguous);
    const int64_t bump = (flags & FLAG_BUMP) ? 1 : 0;
    if (flags & FLAG_BLANK) {
        put(s, t, std::move(key), Print{}, bump);
        return;
    }
    const Print *hit = (flags & FLAG_OUTPUT) ? nullptr : lookup(s, t, key);
    if (hit != nullptr) r.print = *hit;
    else {
        r.print = ready != nullptr ? *ready : fingerprint_tensor(s, t, contiguous);
        put(s, t, std::move(key), r.print, bump);
    }
}

bool is_blank(Session &s, const at::Tensor &t) {
    if (!strided_cpu(t)) return false;
    bool contiguous;
    const Key key = content_key(t, &contiguous);
    const Print *hit = lookup(s, t, key);
    return hit != nullptr && !hit->has;
}

Spec &spec_of(Session &s, const c10::OperatorHandle &op) {
    const void *id = &op.schema();
    auto it = s.specs.find(id);
    if (it != s.specs.end()) return *it->second;
    const auto &schema = op.schema();
    Ref answer = checked(
        PyObject_CallFunction(s.spec_for.get(), "ss", schema.name().c_str(), schema.overload_name().c_str()),
        "the op's schema");
    PyObject *name, *spec_t;
    int random;
    if (!PyArg_ParseTuple(answer.get(), "OO!p", &name, &PyTuple_Type, &spec_t, &random) ||
        PyTuple_GET_SIZE(spec_t) != 7)
        raise_python_error("the op's spec");
    auto spec = std::make_unique<Spec>();
    spec->schema = &schema;
    spec->name = Ref(Py_NewRef(name));
    PyObject *arg_names = PyTuple_GET_ITEM(spec_t, 0), *tensor_lists = PyTuple_GET_ITEM(spec_t, 1);
    PyObject *overwrites = PyTuple_GET_ITEM(spec_t, 2), *written = PyTuple_GET_ITEM(spec_t, 3);
    spec->scratch = Ref(Py_NewRef(PyTuple_GET_ITEM(spec_t, 4)));
    spec->allocates = PyObject_IsTrue(PyTuple_GET_ITEM(spec_t, 5)) == 1;
    spec->view = PyObject_IsTrue(PyTuple_GET_ITEM(spec_t, 6)) == 1;
    spec->random = random != 0;
    const Py_ssize_t n = PyTuple_GET_SIZE(arg_names);
    TORCH_CHECK((size_t)n == schema.arguments().size(), "parity trace: the spec's arguments are not the schema's");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(arg_names, i);
        Ref pos = checked(PyLong_FromSsize_t(i), "spec");
        const int listed = PySet_Contains(tensor_lists, pos.get()), over = PySet_Contains(overwrites, a),
                  wr = PySet_Contains(written, a);
        if (listed < 0 || over < 0 || wr < 0) raise_python_error("the op's spec");
        spec->arg_names.emplace_back(Py_NewRef(a));
        spec->tensor_list.push_back(listed == 1);
        spec->overwrites.push_back(over == 1);
        spec->written.push_back(wr == 1);
    }
    return *s.specs.emplace(id, std::move(spec)).first->second;
}

/* An argument that is not a tensor as torch hands it to __torch_dispatch__ (the conversion of
 * parseIValuesToPyArgsKwargs in torch/csrc/autograd/python_variable.cpp). */
Ref to_python(const c10::Argument &arg, const c10::IValue &v) {
    auto match = [&](c10::TypeKind kind) {
        const auto &t = arg.real_type();
        if (t->kind() == kind) return true;
        if (auto opt = t->cast<c10::OptionalType>()) return opt->getElementType()->kind() == kind;
        return false;
    };
    if (v.isNone()) return Ref(Py_NewRef(Py_None));
    if (match(c10::ScalarTypeType::Kind))
        return Ref(Py_NewRef(reinterpret_cast<PyObject *>(torch::getTHPDtype(static_cast<c10::ScalarType>(v.toInt())))));
    if (match(c10::LayoutType::Kind))
        return Ref(Py_NewRef(reinterpret_cast<PyObject *>(torch::getTHPLayout(static_cast<c10::Layout>(v.toInt())))));
    if (match(c10::MemoryFormatType::Kind))
        return Ref(Py_NewRef(torch::utils::getTHPMemoryFormat(static_cast<c10::MemoryFormat>(v.toInt()))));
    return checked(torch::jit::toPyObject(v).release().ptr(), "an argument");
}

/* A tensor argument as __torch_dispatch__ sees a tensor: a Python number given for a Tensor stays
 * a number there (torch::jit::toPyObject). */
bool real_tensor(const c10::IValue &v) {
    return v.isTensor() && !v.toTensor().unsafeGetTensorImpl()->is_wrapped_number();
}

/* The arguments __torch_dispatch__ would get: positions [0, positional) and the keyword-only ones at
 * [kwarg_start, n) that are not their default. */
void split_positions(const c10::FunctionSchema &schema, c10::ArrayRef<c10::IValue> args, size_t *positional,
                     size_t *kwarg_start) {
    size_t k = args.size();
    while (k > 0 && schema.arguments()[k - 1].kwarg_only()) k--;
    size_t p = k;
    while (p > 0 && is_default(schema, args, p - 1)) p--;
    *positional = p;
    *kwarg_start = k;
}

struct Named {
    at::Tensor tensor;
    int32_t arg, elem;
};

/* whether tensors hold kParallelBytes or more of contiguous float32 data: fingerprint_many's threads
 * are then worth their start (small models' ops never ask the cache twice) */
bool parallel_worth(const std::vector<Named> &tensors) {
    if (at::get_num_threads() < 2) return false;
    int64_t total = 0;
    for (const Named &n : tensors)
        if (strided_cpu(n.tensor) && n.tensor.scalar_type() == at::kFloat && n.tensor.is_contiguous())
            total += (int64_t)n.tensor.nbytes();
    return total >= kParallelBytes;
}

/* The fingerprints of an op's contiguous float32 inputs or outputs (those with want[j]) into
 * prints[j], on ATen's intra-op threads when there are several (a foreach op's lists: the
 * optimizer's and gradient clipping's, a tensor per parameter), largest first, each taken whole by
 * one thread. Other tensors are left to ref_one. */
void fingerprint_many(const std::vector<Named> &outs, const std::vector<bool> &want, std::vector<Print> &prints,
                      std::vector<bool> &ready) {
    std::vector<size_t> jobs;
    int64_t total = 0;
    for (size_t j = 0; j < outs.size(); j++) {
        const at::Tensor &t = outs[j].tensor;
        if (!want[j] || !strided_cpu(t) || t.scalar_type() != at::kFloat || !t.is_contiguous() || t.nbytes() == 0)
            continue;
        jobs.push_back(j);
        total += (int64_t)t.nbytes();
    }
    if (jobs.size() < 2 || total < kParallelBytes || at::get_num_threads() < 2) return;
    std::sort(jobs.begin(), jobs.end(),
              [&](size_t a, size_t b) { return outs[a].tensor.nbytes() > outs[b].tensor.nbytes(); });
    std::atomic<size_t> next{0};
    at::parallel_for(0, at::get_num_threads(), 1, [&](int64_t, int64_t) {
        for (size_t k = next++; k < jobs.size(); k = next++) {
            const at::Tensor &t = outs[jobs[k]].tensor;
            Print &p = prints[jobs[k]];
            p.has = true;
            fingerprint2(static_cast<const uint8_t *>(t.const_data_ptr()), (int64_t)t.nbytes(), p.digest, &p.sum);
        }
    });
    for (size_t j : jobs) ready[j] = true;
}

/* The op run by the kernels below this key. */
void redispatch_below(const c10::OperatorHandle &op, c10::DispatchKeySet ks, torch::jit::Stack *stack) {
    op.redispatchBoxed(ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, kKey), stack);
}

/* GIL released for the op itself, taken back after (also when it throws). */
struct Unlocked {
    PyThreadState *state;
    Unlocked() : state(PyEval_SaveThread()) {}
    ~Unlocked() { PyEval_RestoreThread(state); }
};

/* The name of a tensor recorded (new reference): an input's argument ("name", "name[elem]" in a tensor
 * list), an output's position ("out" where the op returns one tensor, else "out0", "out1", ...). */
PyObject *ref_name(Session &s, const Spec &spec, const TRef &r) {
    if (r.arg < 0) return Py_NewRef(r.single ? s.out_one.get() : out_name(s, (size_t)r.out));
    PyObject *name = spec.arg_names[r.arg].get();
    if (r.elem < 0) return Py_NewRef(name);
    return checked(PyUnicode_FromFormat("%U[%d]", name, r.elem), "name").release();
}

/* (name, (digest, sum) or None, dtype name, shape): the tuple record.py's records hold. */
PyObject *ref_tuple(Session &s, const TRef &r, PyObject *name) {
    Ref n(name);
    Ref value = r.print.has ? checked(Py_BuildValue("(y#d)", reinterpret_cast<const char *>(r.print.digest),
                                                    (Py_ssize_t)32, r.print.sum),
                                      "fingerprint")
                            : Ref(Py_NewRef(Py_None));
    Ref shape = checked(PyTuple_New((Py_ssize_t)r.shape.size()), "shape");
    for (size_t d = 0; d < r.shape.size(); d++)
        PyTuple_SET_ITEM(shape.get(), (Py_ssize_t)d, checked(PyLong_FromLongLong(r.shape[d]), "shape").release());
    return checked(PyTuple_Pack(4, n.get(), value.get(), dtype_name(s, r.dtype), shape.get()), "ref").release();
}

/* ((name, value), ...) of the arguments that are not tensors */
Ref plain_tuple(const Rec &r) {
    Ref plain = checked(PyTuple_New((Py_ssize_t)r.plain.size()), "plain");
    for (size_t i = 0; i < r.plain.size(); i++) PyTuple_SET_ITEM(plain.get(), (Py_ssize_t)i, Py_NewRef(r.plain[i].get()));
    return plain;
}

/* The tensors' tuples as record.py's records hold them (refs_in with a random op's generator state
 * last, or refs_out): what capture_before and capture_after are given. */
Ref refs_tuple(Session &s, const Spec &spec, const std::vector<TRef> &refs, PyObject *gen_ref) {
    Ref out = checked(PyTuple_New((Py_ssize_t)refs.size() + (gen_ref ? 1 : 0)), "refs");
    for (size_t i = 0; i < refs.size(); i++)
        PyTuple_SET_ITEM(out.get(), (Py_ssize_t)i, ref_tuple(s, refs[i], ref_name(s, spec, refs[i])));
    if (gen_ref) PyTuple_SET_ITEM(out.get(), (Py_ssize_t)refs.size(), Py_NewRef(gen_ref));
    return out;
}

/* ((name, tensor), ...) of the tensors an op read or wrote, for capture_before and capture_after */
Ref named_tensors(Session &s, const Spec &spec, const std::vector<Named> &tensors, const std::vector<TRef> &refs) {
    Ref named = checked(PyTuple_New((Py_ssize_t)tensors.size()), "capture");
    for (size_t i = 0; i < tensors.size(); i++) {
        Ref t = checked(THPVariable_Wrap(tensors[i].tensor), "wrap");
        Ref name(ref_name(s, spec, refs[i]));
        PyTuple_SET_ITEM(named.get(), (Py_ssize_t)i, checked(PyTuple_Pack(2, name.get(), t.get()), "capture").release());
    }
    return named;
}

void capture_inputs(Session &s, const Spec &spec, c10::ArrayRef<c10::IValue> args, size_t positional,
                    size_t kwarg_start, const std::vector<Named> &tensors, const Rec &rec, Py_ssize_t index) {
    const auto &schema = *spec.schema;
    Ref py_args = checked(PyTuple_New((Py_ssize_t)positional), "capture");
    Ref py_kwargs = checked(PyDict_New(), "capture");
    for (size_t i = 0; i < args.size(); i++) {
        if (i >= positional && (i < kwarg_start || is_default(schema, args, i))) continue;
        Ref value = real_tensor(args[i]) ? checked(THPVariable_Wrap(args[i].toTensor()), "wrap")
                                         : to_python(schema.arguments()[i], args[i]);
        if (i < positional) PyTuple_SET_ITEM(py_args.get(), (Py_ssize_t)i, value.release());
        else if (PyDict_SetItem(py_kwargs.get(), spec.arg_names[i].get(), value.get()) < 0)
            raise_python_error("capture");
    }
    Ref named = named_tensors(s, spec, tensors, rec.in);
    Ref refs_in = refs_tuple(s, spec, rec.in, rec.gen_ref.get());
    checked(PyObject_CallFunction(s.capture_before.get(), "nssOOOO", index, schema.name().c_str(),
                                  schema.overload_name().c_str(), py_args.get(), py_kwargs.get(), named.get(),
                                  refs_in.get()),
            "capture");
}

/* record.py's Tracer.origin: phase, module path, call site and step of the op being dispatched. A
 * backward op takes the module and site of the forward op that made its autograd node (by sequence
 * number), AccumulateGrad's the parameter it accumulates into; a forward op the innermost module
 * being called and the first frame outside torch and this package (tracer.c's site, from the op's
 * caller: no frame of this recorder is between). */
void origin(Session &s, Rec &rec) {
    rec.step = checked(PyObject_GetAttr(s.tracer.get(), s.s_step.get()), "step");
    auto node = torch::autograd::get_current_node();
    if (node) {
        rec.phase = Ref(Py_NewRef(s.backward.get()));
        if (auto *accumulate = dynamic_cast<torch::autograd::AccumulateGrad *>(node.get())) {
            const auto &variable = accumulate->variable;
            auto it = s.param_names.find(variable.unsafeGetTensorImpl());
            PyObject *param = it == s.param_names.end() ? s.accumulate.get() : it->second.get();
            rec.module = checked(PyUnicode_FromFormat("AccumulateGrad(%U)", param), "module");
            rec.site = Ref(Py_NewRef(s.unknown.get()));
            return;
        }
        auto it = s.node_origin.find(node->sequence_nr());
        rec.module = Ref(Py_NewRef(it == s.node_origin.end() ? s.unknown.get() : it->second.first.get()));
        rec.site = Ref(Py_NewRef(it == s.node_origin.end() ? s.unknown.get() : it->second.second.get()));
        return;
    }
    PyObject *site_args[] = {Ref(PyLong_FromLong(0)).release(), s.internal.get(), s.skip.get(), s.sites.get()};
    rec.site = Ref(PyObject_Vectorcall(s.site.get(), site_args, 4, nullptr));
    Py_DECREF(site_args[0]);
    if (rec.site.get() == nullptr) raise_python_error("the call site");
    Ref optimizer = checked(PyObject_GetAttr(s.tracer.get(), s.s_optimizer.get()), "optimizer");
    const int in_step = PyObject_IsTrue(optimizer.get());
    if (in_step < 0) raise_python_error("optimizer");
    if (in_step) {
        rec.phase = Ref(Py_NewRef(s.optimizer.get()));
        rec.module = std::move(optimizer);
        return;
    }
    Ref stack = checked(PyObject_GetAttr(s.tracer.get(), s.s_module_stack.get()), "module stack");
    const Py_ssize_t depth = PyList_Check(stack.get()) ? PyList_GET_SIZE(stack.get()) : 0;
    rec.module = Ref(Py_NewRef(depth ? PyList_GET_ITEM(stack.get(), depth - 1) : s.empty_str.get()));
    /* the autograd node of this op, if it made one, has the last sequence number drawn */
    s.node_origin.emplace(at::sequence_number::peek() - 1,
                          std::make_pair(Ref(Py_NewRef(rec.module.get())), Ref(Py_NewRef(rec.site.get()))));
    rec.phase = Ref(Py_NewRef(depth ? s.forward.get() : s.other.get()));
}

void record_op(Session &s, const c10::OperatorHandle &op, c10::DispatchKeySet ks, torch::jit::Stack *stack) {
    const auto &schema = op.schema();
    Spec &spec = spec_of(s, op);
    const Py_ssize_t index = s.count;
    Rec rec;
    rec.spec = &spec;
    origin(s, rec);
    const size_t n_args = schema.arguments().size();
    auto args = torch::jit::last(*stack, n_args);
    size_t positional, kwarg_start;
    split_positions(schema, args, &positional, &kwarg_start);

    std::vector<Named> tensors;
    const c10::IValue *generator = nullptr;
    auto classify = [&](size_t i, bool as_list) {
        const c10::IValue &v = args[i];
        if (v.isNone()) return;
        if (real_tensor(v)) {
            if (v.toTensor().defined()) tensors.push_back({v.toTensor(), (int32_t)i, -1});
            return;
        }
        if (v.isGenerator() && generator == nullptr) generator = &v;
        if (as_list && v.isList()) {
            int32_t j = 0;
            const size_t before = tensors.size();
            for (const c10::IValue &e : v.toListRef()) {
                if (e.isTensor() && e.toTensor().defined()) tensors.push_back({e.toTensor(), (int32_t)i, j});
                j++;
            }
            if (tensors.size() > before) return;
        }
        Ref value = to_python(schema.arguments()[i], v);
        if (value.get() == Py_None) return; /* an undefined tensor, as None */
        if (PyList_CheckExact(value.get())) value = checked(PyList_AsTuple(value.get()), "plain");
        rec.plain.push_back(checked(PyTuple_Pack(2, spec.arg_names[i].get(), value.get()), "plain"));
    };
    for (size_t i = 0; i < positional; i++) classify(i, spec.tensor_list[i]);
    for (size_t i = kwarg_start; i < n_args; i++)
        if (!is_default(schema, args, i)) classify(i, false);
    if (spec.random) {
        Ref gen = generator ? checked(THPGenerator_Wrap(generator->toGenerator()), "generator") : Ref(Py_NewRef(Py_None));
        rec.gen_ref = checked(PyObject_CallOneArg(s.generator_ref.get(), gen.get()), "the generator's state");
    }

    bool blank = false;
    rec.in.resize(tensors.size());
    std::vector<bool> want_in(tensors.size(), false), ready_in(tensors.size(), false);
    std::vector<Print> prints_in(tensors.size());
    if (!spec.view && tensors.size() > 1 && parallel_worth(tensors)) { /* those the cache lacks, at once */
        for (size_t i = 0; i < tensors.size(); i++) {
            const at::Tensor &t = tensors[i].tensor;
            if (spec.overwrites[tensors[i].arg] || !strided_cpu(t)) continue;
            bool contiguous;
            want_in[i] = lookup(s, t, content_key(t, &contiguous)) == nullptr;
        }
        fingerprint_many(tensors, want_in, prints_in, ready_in);
    }
    /* the inputs it reads before those it overwrites: an input that views the very bytes an
     * overwritten one holds (x[1:] += y, whose setitem runs copy_(x[1:], x[1:])) is read first,
     * not taken for the blank the overwritten one leaves in the cache */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < tensors.size(); i++) {
            const Named &t = tensors[i];
            const bool over = !spec.view && spec.overwrites[t.arg];
            if (over != (pass == 1)) continue;
            TRef &r = rec.in[i];
            r.arg = t.arg;
            r.elem = t.elem;
            r.src = writer_of(s, t.tensor);
            if (spec.view) {
                blank |= is_blank(s, t.tensor);
                shape_one(r, t.tensor);
            } else ref_one(s, r, t.tensor, over ? FLAG_BLANK : 0, ready_in[i] ? &prints_in[i] : nullptr);
        }
    /* a view holds no bits of its own, and handing its output to Python would tie that TensorImpl to a plain
     * Tensor object: nn.Parameter's _make_subclass of the detach it makes then fails, so views are not captured */
    const bool capturing = !spec.view && PySet_GET_SIZE(s.capture.get()) &&
                           PySet_Contains(s.capture.get(), Ref(PyLong_FromSsize_t(index)).get()) == 1;
    if (capturing) capture_inputs(s, spec, args, positional, kwarg_start, tensors, rec, index);

    {
        Unlocked unlocked;
        redispatch_below(op, ks, stack);
    }

    /* the outputs, named by position: "out", or "out0", "out1", ... */
    const size_t n_ret = schema.returns().size();
    auto rets = torch::jit::last(*stack, n_ret);
    std::vector<Named> outs;
    auto add_out = [&](const c10::IValue &v, int32_t j) {
        if (v.isTensor() && v.toTensor().defined()) outs.push_back({v.toTensor(), -1, j});
    };
    if (n_ret == 1 && rets[0].isList()) {
        int32_t j = 0;
        for (const c10::IValue &e : rets[0].toListRef()) add_out(e, j++);
    } else if (n_ret == 1) add_out(rets[0], -1);
    else
        for (size_t j = 0; j < n_ret; j++) add_out(rets[j], (int32_t)j);
    rec.out.resize(outs.size());
    std::vector<int> out_flags(outs.size(), 0);
    std::vector<bool> want(outs.size(), false), ready(outs.size(), false);
    for (size_t j = 0; j < outs.size(); j++) {
        const at::Tensor &t = outs[j].tensor;
        TRef &r = rec.out[j];
        r.single = outs[j].elem < 0;
        r.out = outs[j].elem;
        if (spec.view) continue;
        int flags = FLAG_OUTPUT | (spec.allocates ? FLAG_BLANK : 0);
        const int scratch = PySet_Contains(spec.scratch.get(), Ref(ref_name(s, spec, r)).get());
        if (scratch < 0) raise_python_error("spec");
        if (scratch) flags |= FLAG_BLANK;
        for (const Named &in : tensors)
            if (in.tensor.unsafeGetTensorImpl() == t.unsafeGetTensorImpl() && spec.written[in.arg]) flags |= FLAG_BUMP;
        out_flags[j] = flags;
        want[j] = !(flags & FLAG_BLANK);
    }
    std::vector<Print> prints(outs.size());
    if (!spec.view && outs.size() > 1 && parallel_worth(outs)) fingerprint_many(outs, want, prints, ready);
    for (size_t j = 0; j < outs.size(); j++) {
        const at::Tensor &t = outs[j].tensor;
        TRef &r = rec.out[j];
        if (spec.view) {
            shape_one(r, t);
            if (blank) {
                TRef unused;
                ref_one(s, unused, t, FLAG_BLANK);
            }
            continue;
        }
        ref_one(s, r, t, out_flags[j], ready[j] ? &prints[j] : nullptr);
    }
    for (const Named &in : tensors) { /* written in place and not returned: read anew next time (tracer.c) */
        if (!spec.written[in.arg] || !strided_cpu(in.tensor)) continue;
        bool returned = false;
        for (const Named &o : outs) returned |= o.tensor.unsafeGetTensorImpl() == in.tensor.unsafeGetTensorImpl();
        bool contiguous;
        if (!returned) s.cache.erase(content_key(in.tensor, &contiguous));
    }
    if (!spec.view) { /* this op is now the last writer of what it returned or wrote in place */
        for (const Named &o : outs) wrote(s, o.tensor, (int32_t)index);
        for (const Named &in : tensors)
            if (spec.written[in.arg]) wrote(s, in.tensor, (int32_t)index);
    }
    if (capturing) {
        Ref named = named_tensors(s, spec, outs, rec.out);
        Ref refs_out = refs_tuple(s, spec, rec.out, nullptr);
        checked(PyObject_CallFunction(s.capture_after.get(), "nOO", index, named.get(), refs_out.get()), "capture");
    }
    if (PyUnicode_Check(rec.phase.get()) && PyUnicode_Compare(rec.phase.get(), s.optimizer.get()) == 0) {
        for (const Named &in : tensors) {
            auto it = s.param_names.find(in.tensor.unsafeGetTensorImpl());
            if (it == s.param_names.end()) continue;
            rec.module = checked(PyUnicode_FromFormat("%U(%U)", rec.module.get(), it->second.get()), "module");
            break;
        }
    }
    s.records.push_back(std::move(rec));
    s.count++;
}

void hook(const c10::OperatorHandle &op, c10::DispatchKeySet ks, torch::jit::Stack *stack) {
    /* nothing the op runs inside, nor this bookkeeping, comes back here */
    c10::impl::ExcludeDispatchKeyGuard inside(kKey);
    /* where torch keeps an op from Python's key, a dispatch mode would not see it either */
    if (g_session == nullptr || c10::impl::tls_is_dispatch_key_excluded(c10::DispatchKey::Python)) {
        redispatch_below(op, ks, stack);
        return;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    try {
        record_op(*g_session, op, ks, stack);
    } catch (...) {
        PyGILState_Release(gil);
        throw;
    }
    PyGILState_Release(gil);
}

/* install() -> None: the fallback registered (once); a RuntimeError says why it cannot be. */
PyObject *install(PyObject *, PyObject *) {
    if (g_library) Py_RETURN_NONE;
    try {
        auto &dispatcher = c10::Dispatcher::singleton();
        std::string users;
        int found = 0;
        for (const auto &name : dispatcher.getAllOpNames()) {
            auto op = dispatcher.findOp(name);
            if (op && op->hasKernelForDispatchKey(kKey) && found++ < 3) users += (users.empty() ? "" : ", ") + toString(name);
        }
        if (found) {
            PyErr_Format(PyExc_RuntimeError, "%d ops have their own kernels for the dispatch key Fake (%s)", found,
                         users.c_str());
            return nullptr;
        }
        auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "_", kKey, __FILE__, __LINE__);
        lib->fallback(torch::CppFunction::makeFromBoxedFunction<&hook>());
        g_library = std::move(lib);
    } catch (const std::exception &e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    }
    Py_RETURN_NONE;
}

void clear_session() {
    if (g_session == nullptr) return;
    c10::impl::tls_set_dispatch_key_included(kKey, g_was_included);
    delete g_session;
    g_session = nullptr;
}

/* start(tracer, site, internal, skip, sites, spec_for, fallback, generator_ref, dtype_names, empty,
 * capture, capture_before, capture_after): this thread's ops are recorded from now on (take() gives
 * them). */
PyObject *start(PyObject *, PyObject *args) {
    if (!g_library) {
        PyErr_SetString(PyExc_RuntimeError, "install() first");
        return nullptr;
    }
    if (g_session != nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "a trace is being recorded already");
        return nullptr;
    }
    PyObject *o[13];
    if (!PyArg_ParseTuple(args, "OOO!O!O!OOOO!OO!OO", &o[0], &o[1], &PyDict_Type, &o[2], &PyTuple_Type, &o[3],
                          &PyDict_Type, &o[4], &o[5], &o[6], &o[7], &PyDict_Type, &o[8], &o[9], &PyFrozenSet_Type,
                          &o[10], &o[11], &o[12]))
        return nullptr;
    auto s = std::make_unique<Session>();
    Ref *slots[] = {&s->tracer,   &s->site,          &s->internal,    &s->skip,  &s->sites,
                    &s->spec_for, &s->fallback,      &s->generator_ref, &s->dtype_names, &s->empty,
                    &s->capture,  &s->capture_before, &s->capture_after};
    for (int i = 0; i < 13; i++) *slots[i] = Ref(Py_NewRef(o[i]));
    struct {
        Ref *slot;
        const char *text;
    } names[] = {{&s->out_one, "out"},         {&s->optimizer, "optimizer"}, {&s->backward, "backward"},
                 {&s->forward, "forward"},     {&s->other, "other"},         {&s->unknown, "?"},
                 {&s->empty_str, ""},          {&s->accumulate, "parameter"}, {&s->s_module_stack, "_module_stack"},
                 {&s->s_optimizer, "_optimizer"}, {&s->s_step, "step"}};
    for (auto &n : names)
        if ((*n.slot = Ref(PyUnicode_InternFromString(n.text))).get() == nullptr) return nullptr;
    g_was_included = c10::impl::tls_is_dispatch_key_included(kKey);
    g_session = s.release();
    c10::impl::tls_set_dispatch_key_included(kKey, true);
    Py_RETURN_NONE;
}

/* TensorRef(name, digest, dtype, shape, sum, fingerprinted, src) of formats/trace.py, a NamedTuple:
 * made as its tuple type makes instances, without its Python __new__. */
PyObject *tensor_ref(Session &s, PyTypeObject *type, PyObject *zeros, const TRef &r, PyObject *name) {
    Ref n(name);
    Ref shape = checked(PyTuple_New((Py_ssize_t)r.shape.size()), "shape");
    for (size_t d = 0; d < r.shape.size(); d++)
        PyTuple_SET_ITEM(shape.get(), (Py_ssize_t)d, checked(PyLong_FromLongLong(r.shape[d]), "shape").release());
    Ref digest = r.print.has ? checked(PyBytes_FromStringAndSize(reinterpret_cast<const char *>(r.print.digest), 32),
                                       "digest")
                             : Ref(Py_NewRef(zeros));
    Ref sum = checked(PyFloat_FromDouble(r.print.has ? r.print.sum : NAN), "sum");
    Ref src = checked(PyLong_FromLong(r.src), "src");
    Ref t = checked(type->tp_alloc(type, 7), "TensorRef");
    PyObject *items[7] = {n.release(),   digest.release(), Py_NewRef(dtype_name(s, r.dtype)), shape.release(),
                          sum.release(), Py_NewRef(r.print.has ? Py_True : Py_False), src.release()};
    for (int i = 0; i < 7; i++) PyTuple_SET_ITEM(t.get(), i, items[i]);
    return t.release();
}

/* take(OpRecord, TensorRef, args_text, named, first) -> [OpRecord, ...]: the ops recorded since the
 * last take, numbered from first, as tracefile.py's records (what record.py's Tracer.ops makes of
 * the dispatch mode's tuples); args_text and named as tracer.c's. */
PyObject *take(PyObject *, PyObject *args) {
    PyObject *op_record, *args_text, *named;
    PyTypeObject *ref_type;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "OO!OO!n", &op_record, &PyType_Type, &ref_type, &args_text, &PyTuple_Type, &named,
                          &first))
        return nullptr;
    if (!PyType_IsSubtype(ref_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "take: TensorRef must be a tuple type");
        return nullptr;
    }
    if (g_session == nullptr) return PyList_New(0);
    Session &s = *g_session;
    try {
        Ref zeros = checked(PyBytes_FromStringAndSize(nullptr, 32), "digest");
        std::memset(PyBytes_AS_STRING(zeros.get()), 0, 32);
        Ref out = checked(PyList_New((Py_ssize_t)s.records.size()), "records");
        for (size_t i = 0; i < s.records.size(); i++) {
            const Rec &r = s.records[i];
            const Spec &spec = *r.spec;
            Ref plain = plain_tuple(r);
            PyObject *text_args[] = {plain.get(), named};
            Ref text = checked(PyObject_Vectorcall(args_text, text_args, 2, nullptr), "args");
            Ref ins = checked(PyList_New(0), "inputs"), outs = checked(PyList_New(0), "outputs");
            for (const TRef &t : r.in)
                if (PyList_Append(ins.get(), Ref(tensor_ref(s, ref_type, zeros.get(), t, ref_name(s, spec, t))).get()) < 0)
                    raise_python_error("inputs");
            if (r.gen_ref.get()) { /* (name, (digest, nan), "uint8", shape): no op wrote it */
                PyObject *g = r.gen_ref.get();
                Ref t = checked(ref_type->tp_alloc(ref_type, 7), "TensorRef");
                PyObject *items[7] = {PyTuple_GET_ITEM(g, 0), PyTuple_GET_ITEM(PyTuple_GET_ITEM(g, 1), 0),
                                      PyTuple_GET_ITEM(g, 2), PyTuple_GET_ITEM(g, 3),
                                      PyTuple_GET_ITEM(PyTuple_GET_ITEM(g, 1), 1), Py_True, s.no_src.get()};
                for (int k = 0; k < 7; k++) PyTuple_SET_ITEM(t.get(), k, Py_NewRef(items[k]));
                if (PyList_Append(ins.get(), t.get()) < 0) raise_python_error("inputs");
            }
            for (const TRef &t : r.out)
                if (PyList_Append(outs.get(), Ref(tensor_ref(s, ref_type, zeros.get(), t, ref_name(s, spec, t))).get()) < 0)
                    raise_python_error("outputs");
            Ref index = checked(PyLong_FromSsize_t(first + (Py_ssize_t)i), "index");
            PyObject *fields[] = {index.get(), spec.name.get(), r.module.get(), r.site.get(), r.phase.get(),
                                  r.step.get(), text.get(), ins.get(), outs.get()};
            PyList_SET_ITEM(out.get(), (Py_ssize_t)i,
                            checked(PyObject_Vectorcall(op_record, fields, 9, nullptr), "OpRecord").release());
        }
        s.records.clear();
        return out.release();
    } catch (const std::exception &e) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    }
}

PyObject *stop(PyObject *, PyObject *) {
    clear_session();
    Py_RETURN_NONE;
}

/* name_param(tensor, name): the name an optimizer op's module path gives this parameter (first one kept). */
PyObject *name_param(PyObject *, PyObject *args) {
    PyObject *t, *name;
    if (!PyArg_ParseTuple(args, "OU", &t, &name)) return nullptr;
    if (g_session == nullptr) Py_RETURN_NONE;
    if (!THPVariable_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "name_param(tensor, name)");
        return nullptr;
    }
    const c10::TensorImpl *impl = THPVariable_Unpack(t).unsafeGetTensorImpl();
    if (g_session->param_names.find(impl) == g_session->param_names.end())
        g_session->param_names.emplace(impl, Ref(Py_NewRef(name)));
    Py_RETURN_NONE;
}

/* forget_origins() -> None: the forward ops' origins dropped (an optimizer step begins) */
PyObject *forget_origins(PyObject *, PyObject *) {
    if (g_session != nullptr) g_session->node_origin.clear();
    Py_RETURN_NONE;
}

/* origins() -> the number of forward ops' origins held */
PyObject *origins(PyObject *, PyObject *) { return PyLong_FromSize_t(g_session ? g_session->node_origin.size() : 0); }

/* entries() -> the number of fingerprints cached for tensors that live */
PyObject *entries(PyObject *, PyObject *) {
    if (g_session == nullptr) return PyLong_FromLong(0);
    sweep(*g_session);
    return PyLong_FromSize_t(g_session->cache.size());
}

PyMethodDef functions[] = {
    {"install", install, METH_NOARGS, "install() -> None: register the fallback (RuntimeError: why not)"},
    {"start", start, METH_VARARGS, "start(tracer, site, internal, skip, sites, spec_for, fallback, generator_ref, "
                                   "dtype_names, empty, capture, capture_before, capture_after)"},
    {"take", take, METH_VARARGS, "take(OpRecord, TensorRef, args_text, named, first) -> the ops since the last take"},
    {"stop", stop, METH_NOARGS, "stop() -> None (records not taken are dropped)"},
    {"name_param", name_param, METH_VARARGS, "name_param(tensor, name) -> None"},
    {"forget_origins", forget_origins, METH_NOARGS, "forget_origins() -> None: the forward ops' origins dropped"},
    {"origins", origins, METH_NOARGS, "origins() -> the number of forward ops' origins held"},
    {"entries", entries, METH_NOARGS, "entries() -> the number of fingerprints cached"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_hook", nullptr, -1, functions, nullptr, nullptr, nullptr, nullptr};

} // namespace

PyMODINIT_FUNC PyInit__hook(void) { return PyModule_Create(&module_def); }
