"""The library's tolerance rules (src/bench/testbed.hpp) against numpy's matmul in f64:
  exact  for integer inputs with an i32 output;
  gauge  |d - ref| <= u_out*|ref| + (8 + sqrt(K)) * u_acc * gauge,
         gauge = |alpha| * |op(A)| @ |op(B)| + |beta| * |C|   (netlib DMMCH's idea),
with ref and gauge in f64 from the inputs as stored (already rounded to their dtype)."""

import math

import numpy as np

UNIT_ROUNDOFF = {"f64": 2.0**-53, "f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}


def f64(x):
    if hasattr(x, "detach"):  # a torch tensor
        return x.detach().to("cpu").double().numpy()
    return np.asarray(x).astype(np.float64)


def op(x, trans):
    return np.swapaxes(x, -1, -2) if trans else x


def reference(a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False):
    """(ref, gauge, K) in f64."""
    A, B = op(f64(a), trans_a), op(f64(b), trans_b)
    ref = alpha * np.matmul(A, B)
    gauge = abs(alpha) * np.matmul(np.abs(A), np.abs(B))
    if beta != 0.0 and c is not None:
        C = f64(c)
        ref = ref + beta * C
        gauge = gauge + abs(beta) * np.abs(C)
    return ref, gauge, A.shape[-1]


def check(got, a, b, c=None, alpha=1.0, beta=0.0, trans_a=False, trans_b=False,
          out_dtype="f32", compute="f32"):
    """Asserts that `got` meets the library's bound; returns max(err / bound)."""
    ref, gauge, k = reference(a, b, c, alpha, beta, trans_a, trans_b)
    d = f64(got)
    assert d.shape == ref.shape, (d.shape, ref.shape)
    assert not np.isnan(d).any() or np.isnan(ref).any(), "NaN in the result"
    if out_dtype == "i32":
        np.testing.assert_array_equal(d, ref)
        return 0.0
    bound = UNIT_ROUNDOFF[out_dtype] * np.abs(ref) + (8 + math.sqrt(k)) * UNIT_ROUNDOFF[
        compute] * gauge
    err = np.abs(d - ref)
    bad = err > bound
    assert not bad.any(), "%d of %d over the bound; first at %s: got %r want %r (bound %r)" % (
        bad.sum(), bad.size, np.argwhere(bad)[0], d[bad][0], ref[bad][0], bound[bad][0])
    return float((err / np.where(bound > 0, bound, 1)).max()) if err.size else 0.0
