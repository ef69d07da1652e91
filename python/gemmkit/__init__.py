"""gemmkit from Python: D = alpha * op(A) @ op(B) + beta * C on numpy arrays and torch tensors.

A binding over the C ABI (include/gemmkit/gemmkit.h) through ctypes: no compiled extension,
so one libgemmkit serves every Python version. The library is found through GEMMKIT_LIBRARY,
next to this package, or in the source tree's build/ (see _lib.py).

    import numpy as np, gemmkit
    a = np.random.rand(300, 200).astype(np.float32)
    b = np.random.rand(200, 100).astype(np.float32)
    d = gemmkit.matmul(a, b)                       # a @ b
    d = gemmkit.gemm(a, b.T.copy(), trans_b=True)  # op(B) = B^T, the same
    gemmkit.ledger(4096, 4096, 4096, "f16", machine="h200")["bound"]
"""

from ._errors import GemmArgumentError, GemmError
from ._gemm import gemm, matmul
from ._lib import path as library_path
from ._model import explain, kernels, ledger

__all__ = [
    "GemmError",
    "GemmArgumentError",
    "gemm",
    "matmul",
    "ledger",
    "explain",
    "kernels",
    "library_path",
]
__version__ = "0.1.0"
