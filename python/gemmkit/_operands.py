"""numpy arrays and torch tensors as gemmkit operands: pointer, dtype, layout, ld, batch stride.

A 2-D operand is addressed as it is when one of its two strides is one element (row- or
column-major with that leading dimension); a 3-D operand when its last two dimensions are,
with its first stride as the batch stride (0 for a batch of one: broadcast). Anything else
(negative strides, no unit stride, a stride that is not a whole number of elements, a
broadcast view with a zero inner stride) is copied into a contiguous buffer first: the
library cannot address it.
"""

import ctypes

from . import _lib
from ._errors import DTYPE_POSITIONS, argument_error

try:
    import numpy as np

    _NDARRAY = np.ndarray
except ImportError:  # torch alone (the GPU machine may have no numpy): tensors only
    np = None
    _NDARRAY = type("NoNumpy", (), {})

BF16 = None
if np is not None:
    try:
        import ml_dtypes as _ml_dtypes

        BF16 = np.dtype(_ml_dtypes.bfloat16)
    except ImportError:  # bf16 numpy arrays need ml_dtypes
        pass

try:  # torch is optional: CPU tensors and CUDA tensors when importable
    import torch as _torch
except ImportError:
    _torch = None

NUMPY_DTYPES = {}
if np is not None:
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
    if isinstance(t, str) and t in CODES and t != "default":
        return t
    if np is None:
        return TORCH_DTYPES.get(t)
    if isinstance(t, str):
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


# The data pointer of a numpy array: read from the array object itself (PyArrayObject's
# `data` follows PyObject_HEAD, a layout numpy's C ABI has kept since 1.0), checked here
# against __array_interface__ (which builds a dict: about 0.9 us a call, against 0.1 us).
_from_address = ctypes.c_void_p.from_address
_DATA_OFFSET = 2 * ctypes.sizeof(ctypes.c_void_p)


def _data_slow(x):
    return x.__array_interface__["data"][0]


def _data_fast(x):
    return _from_address(id(x) + _DATA_OFFSET).value


def _probe():
    if np is None:
        return _data_slow
    base = np.zeros((5, 7))
    for x in (base, base[1:, 2:], base.T[3:], np.zeros(3, np.int8)[1:]):
        if _data_fast(x) != _data_slow(x):
            return _data_slow
    return _data_fast


data_pointer = _probe()
_FAST = data_pointer is _data_fast


def copy(x):
    """The one place an input is copied (row-major, contiguous): the tests watch it."""
    return x.contiguous() if is_tensor(x) else np.ascontiguousarray(x)


def _dtype_error(x, name):
    hint = " (bf16 numpy arrays need ml_dtypes)" if "bfloat16" in str(x.dtype) else ""
    return argument_error(name, "dtype %s is not one gemmkit takes%s" % (x.dtype, hint),
                          DTYPE_POSITIONS.get(name))


def _describe(shape, strides, name):
    """(rows, cols, batch, layout, ld, batch stride) from a shape and element strides
    (None for strides that are not whole elements); layout None when not addressable."""
    nd = len(shape)
    if nd == 2:
        rows, cols = shape
        batch = None
    elif nd == 3:
        batch, rows, cols = shape
    else:
        raise argument_error(name, "expected a 2-D or 3-D operand, got %d-D %s" % (nd, shape))
    if 0 in shape:  # nothing is addressed (numpy's strides of empty arrays are arbitrary)
        return rows, cols, batch, ROW, max(1, cols), rows * max(1, cols)
    if strides is None:
        return rows, cols, batch, None, 0, 0
    lay = layout_of(rows, cols, strides[-2], strides[-1])
    sb = 0
    if nd == 3 and batch > 1:
        sb = strides[0]
        if sb < 0:
            lay = None
    if lay is None:
        return rows, cols, batch, None, 0, 0
    return rows, cols, batch, lay[0], lay[1], sb


def operand(x, name, output=False):
    """One operand as the C ABI sees it, a tuple
        (ptr, dtype, layout, ld, batch_stride, batch, rows, cols, keep, device, code)
    (dtype: gemmkit's name, code: its enum gemmkit_dtype; batch: None for 2-D; keep: the
    object `ptr` points into, a copy when the original could not be addressed; device: the
    torch CUDA device, None for host memory). Copies only what cannot be addressed; an output
    is never copied (None instead)."""
    if type(x) is _NDARRAY:
        dt = NUMPY_DTYPES.get(x.dtype)
        if dt is None:
            raise _dtype_error(x, name)
        shape = x.shape
        if len(shape) == 2:  # the common case, inline: a matrix with a unit stride
            rows, cols = shape
            s0, s1 = x.strides
            item = x.itemsize
            if rows > 1 and cols > 1 and s0 > 0 and s1 > 0 and not (s0 % item or s1 % item):
                if s1 == item and s0 >= cols * item:
                    ptr = _from_address(id(x) + _DATA_OFFSET).value if _FAST else _data_slow(x)
                    return (ptr, dt, ROW, s0 // item, 0, None, rows, cols, x, None, CODES[dt])
                if s0 == item and s1 >= rows * item:
                    ptr = _from_address(id(x) + _DATA_OFFSET).value if _FAST else _data_slow(x)
                    return (ptr, dt, COL, s1 // item, 0, None, rows, cols, x, None, CODES[dt])
        return _general(x, name, output, dt, None)
    if isinstance(x, _NDARRAY):  # a subclass
        dt = NUMPY_DTYPES.get(x.dtype)
        if dt is None:
            raise _dtype_error(x, name)
        return _general(x, name, output, dt, None)
    if is_tensor(x):
        dt = TORCH_DTYPES.get(x.dtype)
        if dt is None:
            raise _dtype_error(x, name)
        if x.is_cuda:
            device = x.device
        elif x.is_cpu:
            device = None  # host memory
        else:
            raise argument_error(name, "is on %s: gemmkit takes host memory and CUDA devices"
                                 % x.device)
        shape = x.shape
        if len(shape) == 2:  # the common case, inline (strides are in elements already)
            rows, cols = shape
            s0, s1 = x.stride()
            if rows > 1 and cols > 1 and s0 > 0 and s1 > 0:
                if s1 == 1 and s0 >= cols:
                    return (x.data_ptr(), dt, ROW, s0, 0, None, rows, cols, x, device, CODES[dt])
                if s0 == 1 and s1 >= rows:
                    return (x.data_ptr(), dt, COL, s1, 0, None, rows, cols, x, device, CODES[dt])
        return _general(x, name, output, dt, device)
    raise argument_error(name, "expected a numpy array or a torch tensor, got %s"
                         % type(x).__name__)


def _strides(x):
    """Element strides, or None when one is not a whole number of elements."""
    if is_tensor(x):
        return x.stride()
    item = x.itemsize
    st = x.strides
    for s in st:
        if s % item:
            return None
    return [s // item for s in st]


def _general(x, name, output, dt, device):
    rows, cols, batch, lay, ld, sb = _describe(tuple(x.shape), _strides(x), name)
    if lay is None:
        if output:
            return None
        x = copy(x)
        rows, cols, batch, lay, ld, sb = _describe(tuple(x.shape), _strides(x), name)
    ptr = x.data_ptr() if is_tensor(x) else data_pointer(x)
    return (ptr, dt, lay, ld, sb, batch, rows, cols, x, device, CODES[dt])


def empty(like, shape, dtype_name_, device):
    """A new row-major output of gemmkit dtype `dtype_name_`, numpy or torch as `like`."""
    if is_tensor(like):
        t = TORCH_OF.get(dtype_name_)
        if t is None:
            raise argument_error("out_dtype", "torch has no dtype for %s" % dtype_name_)
        return _torch.empty(shape, dtype=t, device=device)
    t = NUMPY_OF.get(dtype_name_)
    if np is None:
        raise argument_error("out", "numpy is not installed: give torch tensors")
    if t is None:
        hint = " (bf16 needs ml_dtypes)" if dtype_name_ == "bf16" else ""
        raise argument_error("out_dtype", "numpy has no dtype for %s%s" % (dtype_name_, hint))
    return np.empty(shape, dtype=t)
