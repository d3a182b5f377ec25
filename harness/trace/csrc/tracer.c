/* The per-op bookkeeping of `parity trace` (harness/trace/recorder.py), as the Python module
 * harness.trace._tracer: not a PyTorch kernel. In Python it cost about as much as the ops themselves
 * on a small model; here it reads the tensors' attributes through the Python C API (no torch
 * headers) and fingerprints float32 data with fingerprint_v2.h directly.
 *
 * Cache.op records one op: its arguments split into tensors and other values, each input's
 * fingerprint (from the cache where valid) before the op runs, the op, each output's after it.
 * Tracer.dispatch calls it for every op and adds the op's origin; site() finds the call site.
 * Cache.entries() counts the fingerprints cached.
 *
 * Cache holds fingerprints by content key, valid while a tensor with those bytes lives on with an
 * unchanged version counter (ATen bumps it on every in-place write); None marks memory nothing has
 * written. The content key of a contiguous tensor is (data_ptr, numel, dtype), else (data_ptr,
 * dtype, shape, stride). An entry goes when the tensor it was taken from dies: a weak reference to
 * it, one per key and reused while it is the same tensor, whose callback finds the key by the
 * reference's address. The entries themselves are plain tuples of numbers and bytes, which the
 * garbage collector stops tracking, so a long trace does not make its full collections longer. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "fingerprint_v2.h"

#define FLAG_BLANK 1  /* memory nothing has written: record None */
#define FLAG_OUTPUT 2 /* an op's result: fingerprint anew, never from the cache */
#define FLAG_BUMP 4   /* the op wrote the tensor in place: valid after ATen's version bump */
#define OUT_NAMES 16  /* output names made once */

typedef struct {
    PyObject_HEAD PyObject *entries; /* key -> (version, value or None) */
    PyObject *refs;                  /* key -> weak reference to the tensor the entry was taken from */
    PyObject *owners;                /* id(weak reference) -> key */
    PyObject *forget;                /* the weak references' callback: this cache's forget */
    PyObject *blank_keys;            /* keys last put with None (a superset) */
    PyObject *dtype_names;           /* torch.dtype -> "float32", ... */
    PyObject *float32, *strided;     /* torch.float32, torch.strided */
    PyObject *fallback;              /* Python: (digest, sum) of a tensor this file does not digest */
    PyObject *empty;                 /* (digest of b"", 0.0): a tensor of no bytes */
    PyObject *miss;                  /* a unique object: no valid fingerprint cached */
    PyObject *tensor_type;           /* torch.Tensor */
    PyObject *out_names;             /* ("out0", "out1", ...): outputs of an op that returns several */
} Cache;

static PyObject *s_dtype, *s_shape, *s_is_cpu, *s_layout, *s_is_contiguous, *s_data_ptr, *s_numel, *s_nbytes,
    *s_version, *s_stride, *s_out;

/* every object a Cache holds, for the collector's traversal and for clearing alike */
#define CACHE_MEMBERS(X)                                                                                     \
    X(entries) X(refs) X(owners) X(forget) X(blank_keys) X(dtype_names) X(float32) X(strided) X(fallback) \
        X(empty) X(miss) X(tensor_type) X(out_names)

static int cache_traverse(Cache *self, visitproc visit, void *arg) {
#define VISIT_MEMBER(m) Py_VISIT(self->m);
    CACHE_MEMBERS(VISIT_MEMBER)
#undef VISIT_MEMBER
    return 0;
}

static int cache_clear(Cache *self) {
#define CLEAR_MEMBER(m) Py_CLEAR(self->m);
    CACHE_MEMBERS(CLEAR_MEMBER)
#undef CLEAR_MEMBER
    return 0;
}

static void cache_dealloc(Cache *self) {
    PyObject_GC_UnTrack(self);
    cache_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef forget_def; /* the weak references' callback, below */

/* Cache(dtype_names, float32, strided, fallback, empty, tensor_type) */
static int cache_init(Cache *self, PyObject *args, PyObject *kwds) {
    PyObject *names, *f32, *strided, *fallback, *empty, *tensor_type;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Cache takes positional arguments only");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "O!OOOOO", &PyDict_Type, &names, &f32, &strided, &fallback, &empty, &tensor_type))
        return -1;
    cache_clear(self);
    self->entries = PyDict_New();
    self->refs = PyDict_New();
    self->owners = PyDict_New();
    self->forget = PyCFunction_New(&forget_def, (PyObject *)self);
    self->blank_keys = PySet_New(NULL);
    self->miss = PyBaseObject_Type.tp_alloc(&PyBaseObject_Type, 0);
    if (!self->entries || !self->refs || !self->owners || !self->forget || !self->blank_keys || !self->miss) return -1;
    Py_INCREF(names), self->dtype_names = names;
    Py_INCREF(f32), self->float32 = f32;
    Py_INCREF(strided), self->strided = strided;
    Py_INCREF(fallback), self->fallback = fallback;
    Py_INCREF(empty), self->empty = empty;
    Py_INCREF(tensor_type), self->tensor_type = tensor_type;
    self->out_names = PyTuple_New(OUT_NAMES);
    if (self->out_names == NULL) return -1;
    for (Py_ssize_t i = 0; i < OUT_NAMES; i++) {
        PyObject *name = PyUnicode_FromFormat("out%zd", i);
        if (name == NULL) return -1;
        PyTuple_SET_ITEM(self->out_names, i, name);
    }
    return 0;
}

/* t.<name>() */
static PyObject *call0(PyObject *t, PyObject *name) { return PyObject_CallMethodNoArgs(t, name); }

/* t._version (+ bump) into *out: 1 done, 0 the tensor has no version counter (inference tensors:
 * RuntimeError, cleared), -1 another error. */
static int version_of(PyObject *t, long long bump, long long *out) {
    PyObject *v = PyObject_GetAttr(t, s_version);
    if (v == NULL) {
        if (PyErr_ExceptionMatches(PyExc_RuntimeError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    *out = PyLong_AsLongLong(v) + bump;
    Py_DECREF(v);
    return PyErr_Occurred() ? -1 : 1;
}

/* The weak references' callback: the tensor of entry owners[id(ref)] died; drop the entry unless a
 * later put gave its key another tensor. */
static PyObject *forget(PyObject *op, PyObject *ref) {
    Cache *self = (Cache *)op;
    if (self->owners == NULL) Py_RETURN_NONE;
    PyObject *id = PyLong_FromVoidPtr(ref);
    if (id == NULL) return NULL;
    PyObject *key = PyDict_GetItemWithError(self->owners, id); /* borrowed */
    if (key == NULL) {
        Py_DECREF(id);
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    Py_INCREF(key);
    int ok = PyDict_DelItem(self->owners, id);
    Py_DECREF(id);
    if (ok == 0 && PyDict_GetItemWithError(self->refs, key) == ref) {
        ok = PyDict_DelItem(self->refs, key);
        if (ok == 0) ok = PyDict_DelItem(self->entries, key);
        if (ok == 0) ok = PySet_Discard(self->blank_keys, key) < 0 ? -1 : 0;
    }
    Py_DECREF(key);
    if (ok < 0 || PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef forget_def = {"forget", (PyCFunction)forget, METH_O, NULL};

/* The live tensor `ref` refers to (new reference), Py_None (new reference) where it died, NULL on error. */
static PyObject *referent(PyObject *ref) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *obj;
    if (PyWeakref_GetRef(ref, &obj) < 0) return NULL;
    return obj != NULL ? obj : Py_NewRef(Py_None);
#else
    PyObject *obj = PyWeakref_GetObject(ref); /* borrowed */
    return obj == NULL ? NULL : Py_NewRef(obj);
#endif
}

/* The fingerprint cached for key and valid for t (new reference; None: not written), else cache->miss
 * (new reference), or NULL on error. */
static PyObject *lookup(Cache *self, PyObject *t, PyObject *key) {
    PyObject *entry = PyDict_GetItemWithError(self->entries, key); /* borrowed */
    PyObject *ref = entry ? PyDict_GetItemWithError(self->refs, key) : NULL;
    if (ref == NULL) {
        if (PyErr_Occurred()) return NULL;
        return Py_NewRef(self->miss);
    }
    PyObject *owner = referent(ref);
    if (owner == NULL) return NULL;
    if (owner == Py_None) {
        Py_DECREF(owner);
        return Py_NewRef(self->miss);
    }
    long long recorded = PyLong_AsLongLong(PyTuple_GET_ITEM(entry, 0)), mine = 0, theirs = 0;
    int valid = 0, ok = version_of(owner, 0, &theirs);
    if (ok == 1 && owner == t) { /* the very tensor: its data pointer is the key's */
        Py_DECREF(owner);
        return Py_NewRef(theirs == recorded ? PyTuple_GET_ITEM(entry, 1) : self->miss);
    }
    if (ok == 1) ok = version_of(t, 0, &mine);
    if (ok == 1 && theirs == recorded && mine == recorded) {
        PyObject *p = call0(owner, s_data_ptr);
        if (p == NULL) ok = -1;
        else {
            valid = PyObject_RichCompareBool(p, PyTuple_GET_ITEM(key, 0), Py_EQ);
            Py_DECREF(p);
            if (valid < 0) ok = -1;
        }
    }
    Py_DECREF(owner);
    if (ok < 0) return NULL;
    return Py_NewRef(ok == 1 && valid ? PyTuple_GET_ITEM(entry, 1) : self->miss);
}

/* entries[key] = (t._version + bump, value), refs[key] a weak reference to t; 0 or -1 on error. */
static int put(Cache *self, PyObject *t, PyObject *key, PyObject *value, long long bump) {
    long long version;
    int ok = version_of(t, bump, &version);
    if (ok <= 0) return ok;
    PyObject *old = PyDict_GetItemWithError(self->refs, key); /* borrowed */
    if (old == NULL && PyErr_Occurred()) return -1;
    PyObject *same = old ? referent(old) : NULL;
    if (old && same == NULL) return -1;
    Py_XDECREF(same); /* only its identity is compared */
    if (same != t) {  /* a new tensor for this key: a weak reference of its own */
        if (old != NULL) {
            PyObject *id = PyLong_FromVoidPtr(old);
            if (id == NULL || PyDict_DelItem(self->owners, id) < 0) {
                Py_XDECREF(id);
                return -1;
            }
            Py_DECREF(id);
        }
        PyObject *ref = PyWeakref_NewRef(t, self->forget);
        if (ref == NULL) return -1;
        PyObject *id = PyLong_FromVoidPtr(ref);
        ok = id ? PyDict_SetItem(self->owners, id, key) : -1;
        Py_XDECREF(id);
        if (ok == 0) ok = PyDict_SetItem(self->refs, key, ref);
        Py_DECREF(ref);
        if (ok < 0) return -1;
    }
    PyObject *v = PyLong_FromLongLong(version);
    PyObject *entry = v ? PyTuple_Pack(2, v, value) : NULL;
    Py_XDECREF(v);
    if (entry == NULL) return -1;
    ok = PyDict_SetItem(self->entries, key, entry);
    Py_DECREF(entry);
    if (ok < 0) return -1;
    return value == Py_None ? PySet_Add(self->blank_keys, key) : (PySet_Discard(self->blank_keys, key) < 0 ? -1 : 0);
}

/* (dtype name, shape tuple) of t into *name, *shape (new references); 0 or -1. */
static int describe(Cache *self, PyObject *t, PyObject **dtype, PyObject **name, PyObject **shape) {
    *dtype = PyObject_GetAttr(t, s_dtype);
    if (*dtype == NULL) return -1;
    *name = PyDict_GetItemWithError(self->dtype_names, *dtype);
    if (*name == NULL) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, *dtype);
        Py_CLEAR(*dtype);
        return -1;
    }
    Py_INCREF(*name);
    PyObject *size = PyObject_GetAttr(t, s_shape);
    *shape = size ? PySequence_Tuple(size) : NULL;
    Py_XDECREF(size);
    if (*shape == NULL) {
        Py_CLEAR(*dtype);
        Py_CLEAR(*name);
        return -1;
    }
    return 0;
}

/* Whether t is a CPU tensor of the strided layout (1), not (0), or -1. */
static int strided_cpu(Cache *self, PyObject *t) {
    PyObject *cpu = PyObject_GetAttr(t, s_is_cpu);
    if (cpu == NULL) return -1;
    int on_cpu = PyObject_IsTrue(cpu);
    Py_DECREF(cpu);
    if (on_cpu <= 0) return on_cpu;
    PyObject *layout = PyObject_GetAttr(t, s_layout);
    if (layout == NULL) return -1;
    int strided = layout == self->strided;
    Py_DECREF(layout);
    return strided;
}

/* The content key of t (new reference), with its data pointer (new reference) and contiguity. */
static PyObject *content_key(PyObject *t, PyObject *dtype, PyObject **ptr, int *contiguous) {
    PyObject *c = call0(t, s_is_contiguous);
    if (c == NULL) return NULL;
    *contiguous = PyObject_IsTrue(c);
    Py_DECREF(c);
    if (*contiguous < 0) return NULL;
    *ptr = call0(t, s_data_ptr);
    if (*ptr == NULL) return NULL;
    PyObject *key = NULL;
    if (*contiguous) {
        PyObject *numel = call0(t, s_numel);
        if (numel != NULL) key = PyTuple_Pack(3, *ptr, numel, dtype);
        Py_XDECREF(numel);
    } else {
        PyObject *size = PyObject_GetAttr(t, s_shape);
        PyObject *stride = size ? call0(t, s_stride) : NULL;
        if (stride != NULL) key = PyTuple_Pack(4, *ptr, dtype, size, stride);
        Py_XDECREF(size);
        Py_XDECREF(stride);
    }
    if (key == NULL) Py_CLEAR(*ptr);
    return key;
}

/* (digest, sum) of t (new reference): float32 contiguous data here, the rest by the fallback. */
static PyObject *fingerprint_tensor(Cache *self, PyObject *t, PyObject *dtype, PyObject *ptr, int contiguous) {
    PyObject *nb = PyObject_GetAttr(t, s_nbytes);
    if (nb == NULL) return NULL;
    long long n = PyLong_AsLongLong(nb);
    Py_DECREF(nb);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n == 0) return Py_NewRef(self->empty);
    if (!contiguous || dtype != self->float32) return PyObject_CallOneArg(self->fallback, t);
    unsigned long long address = PyLong_AsUnsignedLongLong(ptr);
    if (PyErr_Occurred()) return NULL;
    uint8_t digest[32];
    double sum;
    fingerprint2((const uint8_t *)(uintptr_t)address, n, digest, &sum);
    return Py_BuildValue("(y#d)", (const char *)digest, (Py_ssize_t)32, sum);
}

/* (name, (digest, sum) or None, dtype name, shape) of input or output t, by flags (FLAG_*). */
static PyObject *ref_one(Cache *self, PyObject *name, PyObject *t, long flags) {
    PyObject *dtype, *dname, *shape, *ptr = NULL, *key = NULL, *value = NULL, *result = NULL;
    if (describe(self, t, &dtype, &dname, &shape) < 0) return NULL;
    int plain = strided_cpu(self, t), contiguous = 0;
    if (plain < 0) goto done;
    if (!plain) {
        value = Py_NewRef(Py_None);
        goto build;
    }
    key = content_key(t, dtype, &ptr, &contiguous);
    if (key == NULL) goto done;
    const long long bump = (flags & FLAG_BUMP) ? 1 : 0;
    if (flags & FLAG_BLANK) {
        if (put(self, t, key, Py_None, bump) < 0) goto done;
        value = Py_NewRef(Py_None);
        goto build;
    }
    if (!(flags & FLAG_OUTPUT)) {
        value = lookup(self, t, key);
        if (value == NULL) goto done;
        if (value != self->miss) goto build;
        Py_CLEAR(value);
    }
    value = fingerprint_tensor(self, t, dtype, ptr, contiguous);
    if (value == NULL || put(self, t, key, value, bump) < 0) goto done;
build:
    result = PyTuple_Pack(4, name, value, dname, shape);
done:
    Py_XDECREF(value);
    Py_XDECREF(key);
    Py_XDECREF(ptr);
    Py_DECREF(dtype);
    Py_DECREF(dname);
    Py_DECREF(shape);
    return result;
}

/* The content key of t into *key (new reference) where t is a CPU tensor of the strided layout: 1,
 * else 0 (no key), or -1. */
static int key_of(Cache *self, PyObject *t, PyObject **key) {
    int plain = strided_cpu(self, t), contiguous;
    if (plain <= 0) return plain;
    PyObject *dtype = PyObject_GetAttr(t, s_dtype), *ptr = NULL;
    if (dtype == NULL) return -1;
    *key = content_key(t, dtype, &ptr, &contiguous);
    Py_DECREF(dtype);
    Py_XDECREF(ptr);
    return *key == NULL ? -1 : 1;
}

/* Drop the entry for t's bytes (the op wrote them in place but does not return t): 0 or -1. Its
 * version counter cannot tell: under a dispatch mode ATen does not bump it for the in-place foreach
 * ops (torch 2.13), so clip_grad_norm_'s _foreach_mul_ left the gradients' old fingerprints valid. */
static int forget_written(Cache *self, PyObject *t) {
    PyObject *key = NULL;
    int found = key_of(self, t, &key);
    if (found <= 0) return found;
    PyObject *ref = PyDict_GetItemWithError(self->refs, key); /* borrowed */
    int ok = ref == NULL && PyErr_Occurred() ? -1 : 0;
    if (ref != NULL) {
        PyObject *id = PyLong_FromVoidPtr(ref);
        ok = id == NULL ? -1 : PyDict_DelItem(self->owners, id);
        Py_XDECREF(id);
        if (ok == 0) ok = PyDict_DelItem(self->refs, key);
        if (ok == 0) ok = PyDict_DelItem(self->entries, key);
        if (ok == 0) ok = PySet_Discard(self->blank_keys, key) < 0 ? -1 : 0;
    }
    Py_DECREF(key);
    return ok;
}

/* Whether the argument a tensor was named after ("self" of "self[2]") is in `written`: 1, 0, -1. */
static int written_arg(PyObject *written, PyObject *name) {
    Py_ssize_t bracket = PyUnicode_FindChar(name, '[', 0, PyUnicode_GET_LENGTH(name), 1);
    if (bracket == -2) return -1;
    if (bracket < 0) return PySet_Contains(written, name);
    PyObject *base = PyUnicode_Substring(name, 0, bracket);
    int found = base ? PySet_Contains(written, base) : -1;
    Py_XDECREF(base);
    return found;
}

/* Whether t holds memory nothing has written since it was allocated: 1, 0, or -1. */
static int is_blank(Cache *self, PyObject *t) {
    if (PySet_GET_SIZE(self->blank_keys) == 0) return 0;
    PyObject *key = NULL;
    int found = key_of(self, t, &key);
    if (found <= 0) return found;
    PyObject *value = lookup(self, t, key);
    Py_DECREF(key);
    if (value == NULL) return -1;
    int blank = value == Py_None;
    Py_DECREF(value);
    return blank;
}

/* (name, None, dtype name, shape): a tensor by shape and dtype only (a view, or unwritten memory). */
static PyObject *shape_one(Cache *self, PyObject *name, PyObject *t) {
    PyObject *dtype, *dname, *shape;
    if (describe(self, t, &dtype, &dname, &shape) < 0) return NULL;
    PyObject *result = PyTuple_Pack(4, name, Py_None, dname, shape);
    Py_DECREF(dtype);
    Py_DECREF(dname);
    Py_DECREF(shape);
    return result;
}

/* Append (name, t) to names and tensors, (name, value) to plain (a list as a tuple) for one argument;
 * a list at a tensor-list position that holds tensors gives each as "name[j]". 0 or -1. */
static int classify(Cache *self, PyObject *name, PyObject *value, int tensor_list, PyObject *tensors, PyObject *plain) {
    if (value == Py_None) return 0;
    int is_tensor = PyObject_IsInstance(value, self->tensor_type);
    if (is_tensor < 0) return -1;
    if (is_tensor) {
        PyObject *pair = PyTuple_Pack(2, name, value);
        int ok = pair ? PyList_Append(tensors, pair) : -1;
        Py_XDECREF(pair);
        return ok;
    }
    if (tensor_list && (PyList_Check(value) || PyTuple_Check(value))) {
        PyObject *seq = PySequence_Fast(value, "a tensor list");
        if (seq == NULL) return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), found = 0;
        for (Py_ssize_t j = 0; j < n && found >= 0; j++) {
            PyObject *v = PySequence_Fast_GET_ITEM(seq, j);
            int t = v == Py_None ? 0 : PyObject_IsInstance(v, self->tensor_type);
            if (t < 0) found = -1;
            else if (t) {
                PyObject *item = PyUnicode_FromFormat("%U[%zd]", name, j);
                PyObject *pair = item ? PyTuple_Pack(2, item, v) : NULL;
                found = pair && PyList_Append(tensors, pair) == 0 ? found + 1 : -1;
                Py_XDECREF(item);
                Py_XDECREF(pair);
            }
        }
        Py_DECREF(seq);
        if (found != 0) return found < 0 ? -1 : 0;
    }
    PyObject *kept = PyList_CheckExact(value) ? PyList_AsTuple(value) : Py_NewRef(value);
    PyObject *pair = kept ? PyTuple_Pack(2, name, kept) : NULL;
    Py_XDECREF(kept);
    int ok = pair ? PyList_Append(plain, pair) : -1;
    Py_XDECREF(pair);
    return ok;
}

/* op(call, args, kwargs, spec[, before]) -> (result, tensors, plain, refs_in, refs_out[, outs]): record.py's
 * Tracer.dispatch for one op, but for its origin. spec = (arg_names, tensor_lists, overwrites, written,
 * scratch, allocates, view), as _Schema.spec holds them. tensors: ((name, tensor), ...) of the inputs;
 * plain: ((name, value), ...) of the other arguments that are not None; outs: ((name, tensor), ...) of
 * the outputs. before(tensors, refs_in), where given, runs just before the op (to copy its inputs). */
static PyObject *cache_op(Cache *self, PyObject *const *argv, Py_ssize_t nargs) {
    if (nargs < 4 || nargs > 5 || !PyTuple_Check(argv[1]) || !PyDict_Check(argv[2]) || !PyTuple_Check(argv[3]) ||
        PyTuple_GET_SIZE(argv[3]) != 7) {
        PyErr_SetString(PyExc_TypeError, "op(call, args: tuple, kwargs: dict, spec: 7-tuple[, before])");
        return NULL;
    }
    PyObject *call = argv[0], *args = argv[1], *kwargs = argv[2], *spec = argv[3];
    PyObject *before = nargs == 5 && argv[4] != Py_None ? argv[4] : NULL, *named = NULL;
    PyObject *arg_names = PyTuple_GET_ITEM(spec, 0), *tensor_lists = PyTuple_GET_ITEM(spec, 1);
    PyObject *overwrites = PyTuple_GET_ITEM(spec, 2), *written = PyTuple_GET_ITEM(spec, 3);
    PyObject *scratch = PyTuple_GET_ITEM(spec, 4);
    const int allocates = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 5)), view = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 6));
    PyObject *tensors = PyList_New(0), *plain = PyList_New(0), *refs_in = NULL, *refs_out = NULL, *result = NULL;
    PyObject *outs = NULL, *out = NULL;
    if (tensors == NULL || plain == NULL) goto done;
    const Py_ssize_t n_args = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n_args; i++) {
        PyObject *name = i < PyTuple_GET_SIZE(arg_names) ? PyTuple_GET_ITEM(arg_names, i) : NULL;
        if (name == NULL) {
            PyErr_SetString(PyExc_ValueError, "more arguments than the schema names");
            goto done;
        }
        PyObject *pos = PyLong_FromSsize_t(i);
        int listed = pos ? PySet_Contains(tensor_lists, pos) : -1;
        Py_XDECREF(pos);
        if (listed < 0 || classify(self, name, PyTuple_GET_ITEM(args, i), listed, tensors, plain) < 0) goto done;
    }
    Py_ssize_t at = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs, &at, &key, &value))
        if (classify(self, key, value, 0, tensors, plain) < 0) goto done;
    const Py_ssize_t n_in = PyList_GET_SIZE(tensors);
    int blank = 0;
    refs_in = PyTuple_New(n_in);
    if (refs_in == NULL) goto done;
    /* the inputs it reads before those it overwrites: an input that views the very bytes an
     * overwritten one holds (x[1:] += y, whose setitem runs copy_(x[1:], x[1:])) is read first,
     * not taken for the blank the overwritten one leaves in the cache */
    for (int pass = 0; pass < 2; pass++)
        for (Py_ssize_t i = 0; i < n_in; i++) {
            PyObject *pair = PyList_GET_ITEM(tensors, i), *name = PyTuple_GET_ITEM(pair, 0), *t = PyTuple_GET_ITEM(pair, 1);
            int over = view ? 0 : PySet_Contains(overwrites, name);
            if (over < 0) goto done;
            if (over != pass) continue;
            PyObject *r;
            if (view) {
                int b = is_blank(self, t);
                if (b < 0) goto done;
                blank |= b;
                r = shape_one(self, name, t);
            } else r = ref_one(self, name, t, over ? FLAG_BLANK : 0);
            if (r == NULL) goto done;
            PyTuple_SET_ITEM(refs_in, i, r);
        }
    if (before != NULL) {
        PyObject *tensors_t = PyList_AsTuple(tensors);
        PyObject *r = tensors_t ? PyObject_CallFunctionObjArgs(before, tensors_t, refs_in, NULL) : NULL;
        Py_XDECREF(tensors_t);
        if (r == NULL) goto done;
        Py_DECREF(r);
        if ((named = PyList_New(0)) == NULL) goto done;
    }
    out = PyObject_Call(call, args, PyDict_GET_SIZE(kwargs) ? kwargs : NULL);
    if (out == NULL) goto done;
    /* the outputs, named by position: "out", or "out0", "out1", ... (an output that is not a tensor
     * keeps its number) */
    int one = PyObject_IsInstance(out, self->tensor_type);
    if (one < 0) goto done;
    const int several = !one && (PyList_Check(out) || PyTuple_Check(out));
    outs = several ? PySequence_Fast(out, "outputs") : NULL;
    if (several && outs == NULL) goto done;
    const Py_ssize_t n_out = one ? 1 : several ? PySequence_Fast_GET_SIZE(outs) : 0;
    PyObject *collected = PyList_New(0);
    if (collected == NULL) goto done;
    for (Py_ssize_t i = 0; i < n_out; i++) {
        PyObject *t = one ? out : PySequence_Fast_GET_ITEM(outs, i);
        if (!one) {
            int is_t = PyObject_IsInstance(t, self->tensor_type);
            if (is_t < 0) goto drop_collected;
            if (!is_t) continue;
        }
        PyObject *name = one ? Py_NewRef(s_out)
                             : i < OUT_NAMES ? Py_NewRef(PyTuple_GET_ITEM(self->out_names, i))
                                             : PyUnicode_FromFormat("out%zd", i);
        if (name == NULL) goto drop_collected;
        PyObject *r;
        if (view) {
            r = shape_one(self, name, t);
            if (r != NULL && blank) {
                PyObject *b = ref_one(self, name, t, FLAG_BLANK);
                if (b == NULL) Py_CLEAR(r);
                Py_XDECREF(b);
            }
        } else {
            long flags = FLAG_OUTPUT | (allocates ? FLAG_BLANK : 0);
            int s = PySet_Contains(scratch, name);
            if (s < 0) flags = -1;
            else if (s) flags |= FLAG_BLANK;
            for (Py_ssize_t j = 0; flags >= 0 && j < n_in; j++) { /* written in place by the op */
                PyObject *pair = PyList_GET_ITEM(tensors, j);
                if (PyTuple_GET_ITEM(pair, 1) != t) continue;
                int w = PySet_Contains(written, PyTuple_GET_ITEM(pair, 0));
                if (w < 0) flags = -1;
                else if (w) flags |= FLAG_BUMP;
            }
            r = flags < 0 ? NULL : ref_one(self, name, t, flags);
        }
        if (r != NULL && named != NULL) {
            PyObject *pair = PyTuple_Pack(2, name, t);
            if (pair == NULL || PyList_Append(named, pair) < 0) Py_CLEAR(r);
            Py_XDECREF(pair);
        }
        Py_DECREF(name);
        if (r == NULL || PyList_Append(collected, r) < 0) {
            Py_XDECREF(r);
            goto drop_collected;
        }
        Py_DECREF(r);
    }
    for (Py_ssize_t j = 0; j < n_in; j++) { /* written in place and not returned: read anew next time */
        PyObject *pair = PyList_GET_ITEM(tensors, j), *t = PyTuple_GET_ITEM(pair, 1);
        int w = written_arg(written, PyTuple_GET_ITEM(pair, 0)), returned = 0;
        for (Py_ssize_t i = 0; w == 1 && !returned && i < n_out; i++)
            returned = (one ? out : PySequence_Fast_GET_ITEM(outs, i)) == t;
        if (w < 0 || (w == 1 && !returned && forget_written(self, t) < 0)) goto drop_collected;
    }
    refs_out = PyList_AsTuple(collected);
    Py_DECREF(collected);
    if (refs_out == NULL) goto done;
    PyObject *tensors_t = PyList_AsTuple(tensors), *plain_t = PyList_AsTuple(plain);
    PyObject *outs_t = named ? PyList_AsTuple(named) : NULL;
    if (tensors_t && plain_t && (named == NULL || outs_t))
        result = named ? PyTuple_Pack(6, out, tensors_t, plain_t, refs_in, refs_out, outs_t)
                       : PyTuple_Pack(5, out, tensors_t, plain_t, refs_in, refs_out);
    Py_XDECREF(tensors_t);
    Py_XDECREF(plain_t);
    Py_XDECREF(outs_t);
    goto done; /* result set: the cleanup is the failures' */
drop_collected:
    Py_DECREF(collected);
done:
    Py_XDECREF(named);
    Py_XDECREF(outs);
    Py_XDECREF(out);
    Py_XDECREF(refs_in);
    Py_XDECREF(refs_out);
    Py_XDECREF(tensors);
    Py_XDECREF(plain);
    return result;
}

static PyObject *cache_len(Cache *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromSsize_t(PyDict_GET_SIZE(self->entries));
}

static PyMethodDef cache_methods[] = {
    {"op", (PyCFunction)(void (*)(void))cache_op, METH_FASTCALL,
     "op(call, args, kwargs, spec) -> (result, tensors, plain, refs_in, refs_out)"},
    {"entries", (PyCFunction)cache_len, METH_NOARGS, "entries() -> the number of fingerprints cached"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CacheType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "harness.trace._tracer.Cache",
    .tp_basicsize = sizeof(Cache),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Fingerprints by content key while their tensors live unchanged (harness/trace/recorder.py)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)cache_init,
    .tp_dealloc = (destructor)cache_dealloc,
    .tp_traverse = (traverseproc)cache_traverse,
    .tp_clear = (inquiry)cache_clear,
    .tp_methods = cache_methods,
};

/* site(depth, internal, skip, sites) -> "file:line" of the first frame, from `depth` frames above the
 * caller's, whose code is not internal (its file starts with one of the `skip` prefixes or "<"),
 * else "?". internal (code -> bool) and sites ((code, instruction) ->
 * text) are the caller's caches; the instruction is the frame's last one (its line where Python
 * does not say, before 3.11). */
static PyObject *site(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 || !PyDict_Check(args[1]) || !PyTuple_Check(args[2]) || !PyDict_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "site(depth, internal: dict, skip: tuple, sites: dict)");
        return NULL;
    }
    long depth = PyLong_AsLong(args[0]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    PyObject *internal = args[1], *skip = args[2], *sites = args[3], *result = NULL;
    PyFrameObject *frame = PyEval_GetFrame(); /* borrowed */
    Py_XINCREF(frame);
    for (; frame != NULL && depth > 0; depth--) {
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    while (frame != NULL && result == NULL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        PyObject *inside = PyDict_GetItemWithError(internal, (PyObject *)code); /* borrowed */
        int ok = inside != NULL || !PyErr_Occurred();
        if (ok && inside == NULL) {
            PyObject *name = code->co_filename;
            Py_ssize_t skipped = PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) > 0 &&
                                 PyUnicode_READ_CHAR(name, 0) == '<'; /* "<string>", "<stdin>" */
            for (Py_ssize_t i = 0; !skipped && i < PyTuple_GET_SIZE(skip); i++)
                skipped = PyUnicode_Tailmatch(name, PyTuple_GET_ITEM(skip, i), 0, PY_SSIZE_T_MAX, -1);
            inside = skipped < 0 ? NULL : skipped ? Py_True : Py_False;
            ok = inside != NULL && PyDict_SetItem(internal, (PyObject *)code, inside) == 0;
        }
        if (ok && inside == Py_False) { /* the user's frame: its text, made once per call site */
#if PY_VERSION_HEX >= 0x030B0000
            PyObject *at = PyLong_FromLong(PyFrame_GetLasti(frame));
#else
            PyObject *at = PyLong_FromLong(PyFrame_GetLineNumber(frame));
#endif
            PyObject *key = at ? PyTuple_Pack(2, (PyObject *)code, at) : NULL;
            Py_XDECREF(at);
            PyObject *text = key ? PyDict_GetItemWithError(sites, key) : NULL;
            if (text != NULL) result = Py_NewRef(text);
            else if (key != NULL && !PyErr_Occurred()) {
                text = PyUnicode_FromFormat("%U:%d", code->co_filename, PyFrame_GetLineNumber(frame));
                if (text != NULL && PyDict_SetItem(sites, key, text) == 0) result = text;
                else Py_XDECREF(text);
            }
            Py_XDECREF(key);
            ok = result != NULL;
        }
        PyFrameObject *back = ok && result == NULL ? PyFrame_GetBack(frame) : NULL;
        Py_DECREF(code);
        Py_DECREF(frame);
        frame = back;
        if (!ok) return NULL;
    }
    Py_XDECREF(frame);
    return result != NULL ? result : PyUnicode_FromString("?");
}

/* The text of one argument value, appended to parts: repr of a number (a complex one too), bool or string, lists and
 * tuples as "[a, b]", str() of the torch types in `named` (dtype, device, layout, memory_format),
 * else the type's name. */
static int text_of(PyObject *value, PyObject *named, PyObject *parts) {
    PyObject *text = NULL;
    if (PyBool_Check(value) || PyLong_Check(value) || PyFloat_Check(value) || PyComplex_Check(value) ||
        PyUnicode_Check(value))
        text = PyObject_Repr(value);
    else if (PyList_Check(value) || PyTuple_Check(value)) {
        PyObject *inner = PyList_New(0), *seq = PySequence_Fast(value, "a list");
        int ok = inner && seq ? 0 : -1;
        for (Py_ssize_t i = 0; ok == 0 && i < PySequence_Fast_GET_SIZE(seq); i++)
            ok = text_of(PySequence_Fast_GET_ITEM(seq, i), named, inner);
        PyObject *sep = ok == 0 ? PyUnicode_FromString(", ") : NULL;
        PyObject *joined = sep ? PyUnicode_Join(sep, inner) : NULL;
        text = joined ? PyUnicode_FromFormat("[%U]", joined) : NULL;
        Py_XDECREF(joined);
        Py_XDECREF(sep);
        Py_XDECREF(seq);
        Py_XDECREF(inner);
    } else {
        int torch_type = PyObject_IsInstance(value, named);
        if (torch_type < 0) return -1;
        text = torch_type ? PyObject_Str(value) : PyObject_GetAttrString((PyObject *)Py_TYPE(value), "__name__");
    }
    int ok = text ? PyList_Append(parts, text) : -1;
    Py_XDECREF(text);
    return ok;
}

/* args_text(plain, named) -> "name=text, ...": an op's arguments that are not tensors, as a trace
 * records them; plain is ((name, value), ...), named the types shown by str(). */
static PyObject *args_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyTuple_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "args_text(plain: tuple, named: tuple of types)");
        return NULL;
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(args[0]);
    if (n == 0) return PyUnicode_FromString("");
    PyObject *parts = PyList_New(0), *one = PyList_New(0), *result = NULL;
    for (Py_ssize_t i = 0; parts && one && i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(args[0], i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "args_text: plain holds (name, value) pairs");
            goto done;
        }
        if (PyList_SetSlice(one, 0, PY_SSIZE_T_MAX, NULL) < 0 || text_of(PyTuple_GET_ITEM(pair, 1), args[1], one) < 0)
            goto done;
        PyObject *item = PyUnicode_FromFormat("%S=%U", PyTuple_GET_ITEM(pair, 0), PyList_GET_ITEM(one, 0));
        int ok = item ? PyList_Append(parts, item) : -1;
        Py_XDECREF(item);
        if (ok < 0) goto done;
    }
    if (parts && one) {
        PyObject *sep = PyUnicode_FromString(", ");
        result = sep ? PyUnicode_Join(sep, parts) : NULL;
        Py_XDECREF(sep);
    }
done:
    Py_XDECREF(parts);
    Py_XDECREF(one);
    return result;
}

static PyMethodDef tracer_functions[] = {
    {"site", (PyCFunction)(void (*)(void))site, METH_FASTCALL, "site(depth, internal, skip, sites) -> 'file:line'"},
    {"args_text", (PyCFunction)(void (*)(void))args_text, METH_FASTCALL, "args_text(plain, named) -> 'a=1, b=[2, 3]'"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef tracer_module = {PyModuleDef_HEAD_INIT, "_tracer", NULL, -1, tracer_functions,
                                           NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__tracer(void) {
    struct {
        PyObject **slot;
        const char *text;
    } names[] = {{&s_dtype, "dtype"},     {&s_shape, "shape"},       {&s_is_cpu, "is_cpu"},
                 {&s_layout, "layout"},   {&s_is_contiguous, "is_contiguous"}, {&s_data_ptr, "data_ptr"},
                 {&s_numel, "numel"},     {&s_nbytes, "nbytes"},     {&s_version, "_version"},
                 {&s_stride, "stride"},   {&s_out, "out"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i].slot = PyUnicode_InternFromString(names[i].text)) == NULL) return NULL;
    if (PyType_Ready(&CacheType) < 0) return NULL;
    PyObject *m = PyModule_Create(&tracer_module);
    if (m == NULL) return NULL;
    Py_INCREF(&CacheType);
    if (PyModule_AddObject(m, "Cache", (PyObject *)&CacheType) < 0) {
        Py_DECREF(&CacheType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
