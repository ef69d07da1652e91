"""Finding and loading libgemmkit, and the C ABI's structs (include/gemmkit/gemmkit.h).

ctypes only: no compiled extension, so one libgemmkit serves every Python version.
"""

import ctypes
import os
import struct
import threading

ABI_VERSION = 3

ROW_MAJOR, COL_MAJOR = 101, 102
NO_TRANS, TRANS = 111, 112

# enum gemmkit_dtype
DTYPE_CODES = {
    "default": 0,
    "f64": 1,
    "f32": 2,
    "f16": 3,
    "bf16": 4,
    "e4m3": 5,
    "e5m2": 6,
    "i8": 7,
    "i4": 8,
    "i32": 9,
    "e8m0": 10,
    "e2m1": 11,
}
BACKEND_CODES = {"auto": 0, "cpu": 1, "cuda": 2, "gpu": 2}

# gemmkit::StatusCode
STATUS_NAMES = [
    "Success",
    "InvalidValue",
    "NotSupported",
    "MisalignedOperand",
    "WorkspaceTooSmall",
    "ArchMismatch",
    "ExecutionFailed",
]


# struct gemmkit_problem, packed in one call (struct.pack: far cheaper than a ctypes Structure
# filled field by field). Field order and C types, with no padding on LP64:
#   int32 abi_version, trans_a, trans_b, compute; int64 m, n, k, batch;
#   4 x gemmkit_matrix {int32 dtype, layout; int64 ld, batch_stride} (a, b, c, d);
#   int32 backend, threads, split_k, allow_fallback;
#   const char* kernel; void* stream; void* workspace; size_t workspace_bytes;
#   int32 schedule, batch_invariant.
PROBLEM = struct.Struct("=4i4q" + "2i2q" * 4 + "4i" + "4Q" + "2i")
assert PROBLEM.size == 200 and ctypes.sizeof(ctypes.c_void_p) == 8, "gemmkit needs LP64"


def pack_problem(m, n, k, batch=1, trans_a=False, trans_b=False, compute=0, a=(), b=(), c=(),
                 d=(), backend=0, threads=0, split_k=0, allow_fallback=1, kernel=0, stream=0,
                 workspace=0, workspace_bytes=0, schedule=0, batch_invariant=0):
    """The bytes of a gemmkit_problem; a..d are (dtype code, layout, ld, batch_stride); kernel,
    stream and workspace are addresses (ints)."""
    return PROBLEM.pack(ABI_VERSION, TRANS if trans_a else NO_TRANS,
                        TRANS if trans_b else NO_TRANS, compute, m, n, k, batch, *a, *b, *c, *d,
                        backend, threads, split_k, allow_fallback, kernel or 0, stream or 0,
                        workspace or 0, workspace_bytes, schedule, 1 if batch_invariant else 0)


class Status(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int32),
        ("arg", ctypes.c_int32),
        ("position", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("arg_name", ctypes.c_char_p),
        ("message", ctypes.c_char_p),
    ]


def _candidates():
    env = os.environ.get("GEMMKIT_LIBRARY")
    if env:
        yield env  # an explicit choice: no fallback when it does not load
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libgemmkit.so", "libgemmkit.so.0"):
        yield os.path.join(here, name)  # installed next to the package
    root = os.path.dirname(os.path.dirname(here))  # python/gemmkit -> the source tree
    for build in ("build", "build-device"):
        yield os.path.join(root, build, "libgemmkit.so")
    yield "libgemmkit.so.0"  # the system loader (an installed gemmkit)


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "gemmkit: cannot load libgemmkit; build it (bash scripts/build.sh) or set "
        "GEMMKIT_LIBRARY to its path. Tried: " + "; ".join(tried)
    )


lib, path = _load()

_P = ctypes.c_char_p  # the packed gemmkit_problem (read only by the library)
_S = ctypes.POINTER(Status)
_str_out = ctypes.POINTER(ctypes.c_char_p)


def _fn(name, restype, argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = argtypes
    return f


abi_version = _fn("gemmkit_abi_version", ctypes.c_int, [])
if abi_version() != ABI_VERSION:
    raise ImportError(
        "gemmkit: %s has C ABI version %d, this package speaks %d"
        % (path, abi_version(), ABI_VERSION)
    )

gemm = _fn(
    "gemmkit_gemm",
    ctypes.c_int,
    [
        _P,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_double,
        ctypes.c_double,
        _S,
    ],
)
can_implement = _fn("gemmkit_can_implement", ctypes.c_int, [_P, _S])
workspace_size = _fn(
    "gemmkit_workspace_size", ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_size_t), _S]
)
ledger_json = _fn(
    "gemmkit_ledger_json",
    ctypes.c_int,
    [_P, ctypes.c_double, ctypes.c_char_p, _str_out, _S],
)
explain_json = _fn("gemmkit_explain_json", ctypes.c_int, [_P, ctypes.c_double, _str_out, _S])
kernels_json = _fn("gemmkit_kernels_json", ctypes.c_int, [ctypes.c_char_p, _str_out, _S])


_local = threading.local()


def status():
    """This thread's gemmkit_status, reused from call to call."""
    try:
        return _local.status
    except AttributeError:
        _local.status = Status()
        return _local.status
