"""ATen's add, sub, mul and div where an operand is not float32: integer and bool tensors, and float32
ones mixed with them or with a Python number of a higher kind; and remainder and fmod of integer
tensors (``integer_mod``: 294 random traced remainders on the Zen 5 at default, avx2 and avx512 on 1, 2
and 4 threads, 294 exact; 513 fmod and remainder by tensors and Python ints, 508 exact, 5 refused).

TensorIterator computes a binary op in the operands' common dtype (``torch.result_type``): the kind
(bool < integer < floating) and width of the tensors with dims, raised to a zero-dim tensor's dtype
where that is of a higher kind, and to the default dtype (float32 for a Python float, int64 for a Python
int) where only a Python number is of a higher kind. Each operand is cast to it (an integer to float32
with one rounding to nearest, a bool to 0 or 1), the op runs once per element in that dtype, and an
in-place op casts the result to its self's dtype (which the common dtype must fit: torch refuses the
rest before running). ``div`` without a rounding mode takes integer operands to float32 first
(``promote_integer_inputs_to_float``). So:

- an integer or bool result is exact two's-complement arithmetic (wrapping, as C++'s on the CPU);
  bool add is logical or, mul logical and; ``alpha`` multiplies the second operand first, in the same
  dtype;
- a float32 result is one IEEE rounding of the cast operands (harness.impl.nans.arith: a NaN met by a
  NaN of another payload refused), with ``alpha`` 1 only (other alphas fuse on AVX2), except add of a
  bool tensor times alpha: alpha times 0 or 1 is exact, so the fused and the plain sum round alike
  (PhiMoE's ``torch.add(0.3333, mask, alpha=0.6667)``; on the Zen 5, 720 random draws of a number or a
  float32 tensor with NaN, infinities, -0 and denormals, plus alpha times a mask, at default, avx2 and
  avx512 on 1, 2 and 4 threads: 708 exact, 0 other, 12 refused, two NaNs of other payloads meeting); a
  float64 one likewise, two NaNs meeting at one element refused;
- other result dtypes (float16, bfloat16, complex) are refused.
"""

from __future__ import annotations

import numpy as np

from harness.core.errors import ParityError
from harness.impl.nans import UFUNCS, arith

Operand = np.ndarray | bool | int | float

_KINDS = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_DEFAULTS = {0: np.dtype(bool), 1: np.dtype(np.int64), 2: np.dtype(np.float32), 3: np.dtype(np.complex64)}


def _kind(dtype: np.dtype) -> int:
    return _KINDS[dtype.kind]


def _number_dtype(value: bool | int | float) -> np.dtype:
    """A Python number's kind, as the default dtype of that kind."""
    if isinstance(value, (bool, np.bool_)):
        return _DEFAULTS[0]
    if isinstance(value, (int, np.integer)):
        return _DEFAULTS[1]
    if isinstance(value, (float, np.floating)):
        return _DEFAULTS[2]
    return _DEFAULTS[3]


def result_type(*operands: Operand) -> np.dtype:
    """``torch.result_type`` of tensors (NumPy arrays; 0-d ones stand for zero-dim tensors) and Python
    numbers: the tensors with dims first, then zero-dim tensors, then numbers, each class raising the
    result only where it is of a higher kind."""
    classes: list[list[np.dtype]] = [[], [], []]
    for x in operands:
        if isinstance(x, np.ndarray):
            classes[0 if x.ndim else 1].append(x.dtype)
        else:
            classes[2].append(_number_dtype(x))
    result: np.dtype | None = None
    for i, dtypes in enumerate(classes):
        if not dtypes:
            continue
        top = max(_kind(d) for d in dtypes)
        # numbers: the default dtype of the highest kind among them; tensors: the widest of that kind
        # (torch's own table: int32 with float32 is float32, where NumPy's is float64)
        best = _DEFAULTS[top] if i == 2 else np.result_type(*(d for d in dtypes if _kind(d) == top))
        if _kind(best) != top:  # uint64 with a signed type: a float in NumPy, no such promotion in torch
            raise ParityError(f"the impl has no promotion of {', '.join(map(str, dtypes))}")
        if result is None or _kind(best) > _kind(result):
            result = best
    assert result is not None
    return result


def binary_promoted(
    op: str,
    a: Operand,
    b: Operand,
    alpha: bool | int | float = 1,
    out_dtype: np.dtype | None = None,
    aarch64: bool = False,
) -> np.ndarray:
    """``a op b`` (``op`` add, sub, mul or div; ``alpha`` for add and sub) as ATen computes it in the
    common dtype (see the module); ``out_dtype`` an in-place op's self dtype, the result cast to it; a NaN
    made of no NaN the architecture's (``aarch64``: +qNaN)."""
    dtype = result_type(a, b) if op != "div" else result_type(a, b, 0.0)  # true division: at least float32
    if isinstance(alpha, float) and dtype.kind in "biu":
        raise ParityError(f"{op}: a floating alpha for a {dtype} result; torch refuses it")
    if out_dtype is not None and _kind(dtype) > _kind(np.dtype(out_dtype)):
        raise ParityError(f"{op}_: a {dtype} result cannot be written into {np.dtype(out_dtype)}; torch refuses it")
    x, y = np.asarray(a), np.asarray(b)
    # alpha times a bool is 0 or alpha, exact: fused or not, one rounding of the sum (PhiMoE's 0.3333 + 0.6667 * mask)
    scaled = dtype == np.float32 and op == "add" and y.dtype == np.bool_ and not isinstance(alpha, bool)
    if dtype.kind == "f" and alpha != 1 and not scaled:
        raise ParityError(f"the impl reproduces {op} with alpha 1 only (else a fused multiply-add on AVX2)")
    if dtype == np.float32:
        y = y.astype(np.float32) * np.float32(alpha) if scaled and alpha != 1 else y.astype(np.float32)
        out = arith(op, x.astype(np.float32), y, None, op, aarch64)
    elif dtype == np.float64:
        x, y = x.astype(np.float64), y.astype(np.float64)
        if (np.isnan(x) & np.isnan(y)).any():  # one NaN passes on quieted; of two, ATen's operand order
            raise ParityError(f"{op} of two float64 NaNs at one element: which payload ATen keeps is not modelled")
        with np.errstate(all="ignore"):
            out = np.asarray(UFUNCS[op](x, y, dtype=np.float64))
        if aarch64:  # the default NaN of an invalid operation: +qNaN
            out[np.isnan(out) & ~np.isnan(x) & ~np.isnan(y)] = np.uint64(0x7FF8000000000000).view(np.float64)
    elif dtype.kind == "b":
        if op not in ("add", "mul"):
            raise ParityError(f"{op} of bool tensors: torch refuses it")
        x, y = x.astype(bool), y.astype(bool) & bool(alpha)
        out = np.logical_or(x, y) if op == "add" else np.logical_and(x, y)
    elif dtype.kind in "iu":
        x, y = x.astype(dtype), y.astype(dtype)
        with np.errstate(over="ignore"):  # two's complement, as the CPU's integer instructions
            if op in ("add", "sub"):
                y = np.multiply(y, np.asarray(alpha).astype(dtype), dtype=dtype) if alpha != 1 else y
                out = np.add(x, y, dtype=dtype) if op == "add" else np.subtract(x, y, dtype=dtype)
            else:
                out = np.multiply(x, y, dtype=dtype)
    else:
        raise ParityError(f"the impl reproduces {op} with a float32, integer or bool result only, not {dtype}")
    return np.asarray(out).astype(out_dtype if out_dtype is not None else dtype)


def integer_mod(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``remainder`` or ``fmod`` of integer tensors (BinaryOpsKernel.cpp's integral ``remainder_kernel`` and
    ``fmod_kernel``): in the common dtype, ``r = a % b`` (C++'s, truncating: fmod's answer, NumPy's
    ``fmod``), and for remainder ``r += b`` where r is non-zero and of the other sign than b: the floored
    remainder, which NumPy's ``remainder`` gives exactly. The minimum divided by -1 gives 0 in both (measured
    at int8, int32 and int64; NumPy's answer too). Division by zero (torch raises) is refused."""
    dtype = result_type(a, b)
    if dtype.kind not in "iu":
        raise ParityError(f"{op} of integer tensors into {dtype}: not an integer result")
    x, y = np.broadcast_arrays(np.asarray(a).astype(dtype), np.asarray(b).astype(dtype))
    if (y == 0).any():
        raise ParityError(f"{op} by an integer zero: torch raises ZeroDivisionError")
    return (np.fmod if op == "fmod" else np.remainder)(x, y, dtype=dtype)
