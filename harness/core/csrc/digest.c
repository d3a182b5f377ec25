/* The fingerprint of a tensor's raw bytes that traces and nanoGPT fixtures record (harness/core/digest.py):
 * a 256-bit digest and, for float32 data, a float64 sum, in one pass over the memory. Not a PyTorch
 * kernel: this project's own formats ("mix256-v1" and "mix256-v2", made as fingerprint.h and
 * fingerprint_v2.h say), written to run near memory speed where SHA-256 and NumPy's sum took two
 * passes at about 1.2 GB/s together. This file
 * is a ctypes library (fingerprints: many buffers in one call) and the Python module
 * harness.core._digest (fingerprint: one buffer). */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* first, as Python asks: this library is also the module harness.core._digest */

#include <math.h>
#include <stdint.h>

#include "fingerprint.h"
#include "fingerprint_v2.h"

typedef void (*fingerprint_fn)(const uint8_t *, int64_t, uint8_t *, double *);

/* fingerprint() (version 1) or fingerprint2() (version 2) by its format's number */
static fingerprint_fn by_version(int version) { return version == 2 ? fingerprint2 : fingerprint; }

/* n buffers' fingerprints of one version in one call: buffer i is nbytes[i] bytes at address ptrs[i];
 * its digest goes to digests[32 i ..], and where float32[i] is non-zero its float64 sum to sums[i]
 * (else NaN). */
void fingerprints(int version, int64_t n, const uint64_t *ptrs, const int64_t *nbytes, const uint8_t *float32,
                  uint8_t *digests, double *sums) {
    const fingerprint_fn fn = by_version(version);
    for (int64_t i = 0; i < n; i++) {
        sums[i] = NAN;
        fn((const uint8_t *)(uintptr_t)ptrs[i], nbytes[i], digests + 32 * i, float32[i] ? sums + i : NULL);
    }
}

/* fingerprint() as a Python function, harness.core._digest.fingerprint(address, nbytes, float32[,
 * version]) -> (digest bytes, float64 sum or NaN), version 1 unless given: the tracer's per-op path,
 * where a ctypes call's own cost (about 3 us: argument conversion, result buffers) was most of a small
 * tensor's fingerprint. The caller vouches for the nbytes bytes at address, as with the ctypes entry
 * points. */
static PyObject *py_fingerprint(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "fingerprint(address, nbytes, float32[, version]) takes 3 or 4 arguments");
        return NULL;
    }
    const long version = nargs == 4 ? PyLong_AsLong(args[3]) : 1;
    if (PyErr_Occurred()) return NULL;
    if (version != 1 && version != 2) {
        PyErr_SetString(PyExc_ValueError, "version must be 1 (mix256-v1) or 2 (mix256-v2)");
        return NULL;
    }
    const fingerprint_fn fn = by_version((int)version);
    const unsigned long long address = PyLong_AsUnsignedLongLong(args[0]);
    if (PyErr_Occurred()) return NULL;
    const long long n = PyLong_AsLongLong(args[1]);
    if (PyErr_Occurred()) return NULL;
    const int float32 = PyObject_IsTrue(args[2]);
    if (float32 < 0) return NULL;
    if (n < 0 || (float32 && n % 4 != 0)) {
        PyErr_SetString(PyExc_ValueError, "nbytes must be >= 0, and whole float32s with float32");
        return NULL;
    }
    uint8_t digest[32];
    double sum = NAN;
    const uint8_t *p = (const uint8_t *)(uintptr_t)address;
    if (n >= (1 << 20)) { /* long enough to let other Python threads run meanwhile */
        Py_BEGIN_ALLOW_THREADS fn(p, n, digest, float32 ? &sum : NULL);
        Py_END_ALLOW_THREADS
    } else {
        fn(p, n, digest, float32 ? &sum : NULL);
    }
    return Py_BuildValue("(y#d)", (const char *)digest, (Py_ssize_t)32, sum);
}

static PyMethodDef digest_methods[] = {
    {"fingerprint", (PyCFunction)(void (*)(void))py_fingerprint, METH_FASTCALL,
     "fingerprint(address, nbytes, float32[, version]) -> (digest, sum): mix256-v1 (or -v2) of the bytes at "
     "address"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef digest_module = {PyModuleDef_HEAD_INIT, "_digest", NULL, -1, digest_methods,
                                           NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__digest(void) { return PyModule_Create(&digest_module); }
