"""numpy arrays and torch tensors as gemmkit operands: pointer, dtype, layout, ld, batch stride.

A 2-D operand is addressed as it is when one of its two strides is one element (row- or
column-major with that leading dimension); a 3-D operand when its last two dimensions are,
with its first stride as the batch stride (0 for a batch of one: broadcast). Anything else
(negative strides, no unit stride, a stride that is not a whole number of elements, a
broadcast view with a zero inner stride) is copied into a contiguous buffer first: the
library cannot address it.
"""

import numpy as np

from . import _lib
from ._errors import DTYPE_POSITIONS, argument_error

try:
    import ml_dtypes as _ml_dtypes

    BF16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # bf16 numpy arrays need ml_dtypes
    BF16 = None

try:  # torch is optional: CPU tensors and CUDA tensors when importable
    import torch as _torch
except ImportError:
    _torch = None

NUMPY_DTYPES = {
    np.dtype(np.float64): "f64",
    np.dtype(np.float32): "f32",
    np.dtype(np.float16): "f16",
    np.dtype(np.int8): "i8",
    np.dtype(np.int32): "i32",
}
if BF16 is not None:
    NUMPY_DTYPES[BF16] = "bf16"
NUMPY_OF = {v: k for k, v in NUMPY_DTYPES.items()}

TORCH_DTYPES = {}
TORCH_OF = {}
if _torch is not None:
    TORCH_DTYPES = {
        _torch.float64: "f64",
        _torch.float32: "f32",
        _torch.float16: "f16",
        _torch.bfloat16: "bf16",
        _torch.int8: "i8",
        _torch.int32: "i32",
    }
    for _name in ("float8_e4m3fn", "float8_e5m2"):
        if hasattr(_torch, _name):
            TORCH_DTYPES[getattr(_torch, _name)] = "e4m3" if "e4m3" in _name else "e5m2"
    TORCH_OF = {v: k for k, v in TORCH_DTYPES.items()}

CODES = _lib.DTYPE_CODES
ROW, COL = _lib.ROW_MAJOR, _lib.COL_MAJOR


def is_tensor(x):
    return _torch is not None and isinstance(x, _torch.Tensor)


def dtype_name(t):
    """gemmkit's name of a numpy dtype, a torch dtype or a gemmkit name; None if unknown."""
    if isinstance(t, str):
        if t in CODES and t != "default":
            return t
        try:
            t = np.dtype(t)
        except TypeError:
            return None
    if _torch is not None and isinstance(t, _torch.dtype):
        return TORCH_DTYPES.get(t)
    try:
        return NUMPY_DTYPES.get(np.dtype(t))
    except TypeError:
        return None


def layout_of(rows, cols, s0, s1):
    """(layout, ld) addressing a rows x cols matrix with element strides s0 (between rows) and
    s1 (between columns), or None when neither stride can be the unit one."""
    if rows == 0 or cols == 0:  # nothing is addressed: any packed description will do
        return ROW, max(1, cols)
    # The stride of a dimension of extent one never matters.
    if cols <= 1:
        s1 = 1
    if rows <= 1:
        s0 = 1
    if s1 == 1 and s0 >= max(1, cols):
        return ROW, s0
    if s0 == 1 and s1 >= max(1, rows):
        return COL, s1
    return None


class Operand:
    """One operand as the C ABI sees it. `keep` holds the object whose memory `ptr` points
    into (a copy when the original could not be addressed)."""

    __slots__ = ("ptr", "dtype", "layout", "ld", "stride", "batch", "rows", "cols", "keep",
                 "copied", "device")

    def matrix(self, m):
        m.dtype = CODES[self.dtype]
        m.layout = self.layout
        m.ld = self.ld
        m.batch_stride = self.stride


def _shape_strides(x, name):
    """(shape, element strides, kind, device) of an array or tensor; kind is "numpy" or
    "torch"."""
    if is_tensor(x):
        return tuple(x.shape), x.stride(), "torch", x.device
    if isinstance(x, np.ndarray):
        item = x.itemsize
        st = x.strides
        if any(s % item for s in st):
            return tuple(x.shape), None, "numpy", None
        return x.shape, tuple(s // item for s in st), "numpy", None
    raise argument_error(name, "expected a numpy array or a torch tensor, got %s" % type(x).__name__)


def copy(x):
    """The one place an input is copied (row-major, contiguous): the tests watch it."""
    return x.contiguous() if is_tensor(x) else np.ascontiguousarray(x)


def operand(x, name, output=False):
    """The Operand for a 2-D or 3-D array/tensor; copies only what cannot be addressed.
    Outputs are never copied here: the caller decides (see gemm's `out`)."""
    shape, strides, kind, device = _shape_strides(x, name)
    if kind == "torch":
        dt = TORCH_DTYPES.get(x.dtype)
    else:
        dt = NUMPY_DTYPES.get(x.dtype)
    if dt is None:
        hint = " (bf16 numpy arrays need ml_dtypes)" if "bfloat16" in str(x.dtype) else ""
        raise argument_error(
            name, "dtype %s is not one gemmkit takes%s" % (x.dtype, hint), DTYPE_POSITIONS.get(name)
        )
    nd = len(shape)
    if nd not in (2, 3):
        raise argument_error(name, "expected a 2-D or 3-D operand, got %d-D %s" % (nd, shape))
    rows, cols = shape[-2], shape[-1]
    lay = None
    bstride = 0
    if strides is not None:
        lay = layout_of(rows, cols, strides[-2], strides[-1])
        if nd == 3 and shape[0] > 1:
            bstride = strides[0]
            if bstride < 0:
                lay = None
    if 0 in shape:  # nothing is addressed (numpy's strides of empty arrays are arbitrary)
        lay, bstride = (ROW, max(1, cols)), rows * max(1, cols)
    copied = False
    if lay is None:
        if output:
            return None
        x = copy(x)
        copied = True
        shape, strides, kind, device = _shape_strides(x, name)
        lay = layout_of(rows, cols, strides[-2], strides[-1])
        bstride = strides[0] if nd == 3 and shape[0] > 1 else 0
    op = Operand()
    op.ptr = x.data_ptr() if kind == "torch" else x.__array_interface__["data"][0]
    op.dtype = dt
    op.layout, op.ld = lay
    op.stride = bstride
    op.batch = shape[0] if nd == 3 else None
    op.rows, op.cols = rows, cols
    op.keep = x
    op.copied = copied
    op.device = device
    return op


def empty(like, shape, dtype_name_, device):
    """A new row-major output of gemmkit dtype `dtype_name_`, numpy or torch as `like`."""
    if is_tensor(like):
        t = TORCH_OF.get(dtype_name_)
        if t is None:
            raise argument_error("out_dtype", "torch has no dtype for %s" % dtype_name_)
        return _torch.empty(shape, dtype=t, device=device)
    t = NUMPY_OF.get(dtype_name_)
    if t is None:
        hint = " (bf16 needs ml_dtypes)" if dtype_name_ == "bf16" else ""
        raise argument_error("out_dtype", "numpy has no dtype for %s%s" % (dtype_name_, hint))
    return np.empty(shape, dtype=t)
