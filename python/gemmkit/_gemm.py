"""gemmkit.gemm and gemmkit.matmul over the C ABI (gemmkit_gemm).

The hot path is written for the per-call overhead (docs/PERF.md, Python): operands are plain
tuples (see _operands.operand), the problem is packed by one struct.pack, and the status struct
is reused per thread.
"""

import ctypes

from . import _lib
from ._errors import argument_error, from_status
from ._operands import _torch, dtype_name, empty, is_tensor, operand

_BACKENDS = _lib.BACKEND_CODES
_CPU, _CUDA = _BACKENDS["cpu"], _BACKENDS["cuda"]
_CODES = _lib.DTYPE_CODES
_FLOAT = ("f64", "f32", "f16", "bf16", "e4m3", "e5m2")
_OUTPUTS = _FLOAT + ("i32",)  # core::is_output_dtype
_PACK = _lib.PROBLEM.pack
_ABI, _TRANS, _NO_TRANS = _lib.ABI_VERSION, _lib.TRANS, _lib.NO_TRANS
_call = _lib.gemm
_status = _lib.status


def _default_out_dtype(ta, tb):
    """The output dtype numpy / torch give for A @ B, in gemmkit's terms (i32 for int8)."""
    if ta == "i8" and tb == "i8":
        return "i32"
    if ta == tb:
        return ta
    if "f64" in (ta, tb):
        return "f64"
    return "f32"


def _device(ops, names):
    """All operands in host memory (None), or all on one CUDA device (that torch device)."""
    dev = first = None
    for op, name in zip(ops, names):
        if op is None:
            continue
        d = op[9]
        if first is None:
            dev, first = d, name
        elif d != dev:
            raise argument_error(
                name,
                "is on %s but %s is on %s: operands must share one device"
                % (d or "the host", first, dev or "the host"),
            )
    return dev


def _batch(ops, names):
    """The batch count: every 3-D operand's first extent (1 broadcasts), or None when no
    operand is 3-D."""
    batch = None
    for op, name in zip(ops, names):
        if op is None or op[5] is None:
            continue
        b = op[5]
        if batch is None or batch == 1:
            batch = b
        elif b != 1 and b != batch:
            raise argument_error(name, "batch of %d does not broadcast with a batch of %d"
                                 % (b, batch))
    return batch


def gemm(
    a,
    b,
    c=None,
    *,
    alpha=1.0,
    beta=0.0,
    trans_a=False,
    trans_b=False,
    out=None,
    out_dtype=None,
    backend="auto",
    kernel=None,
    compute=None,
    workspace=None,
    batch_invariant=False,
):
    """D = alpha * op(a) @ op(b) + beta * c, returned (written into `out` when given).

    a, b, c, out: numpy arrays or torch tensors, 2-D or 3-D (a batch); a 2-D operand, or a
    3-D one with a batch of one, is broadcast over the batch (batch stride 0). op(x) is x, or
    its transpose with trans_x=True. Strides are taken as they are when one of the last two is
    one element; otherwise the operand is copied first (an `out` that cannot be addressed gets
    the result copied into it after the call). c is read only when beta != 0; `out=c` updates
    c in place. out_dtype: the dtype of a new output (default: c's, else what `a @ b` gives,
    int32 for int8). backend: "auto", "cpu" or "cuda"; kernel: a registered kernel's name.
    compute: the accumulate type ("f32", "f64", "i32"; default from the inputs). workspace: a
    buffer (array or tensor) the kernel may use (see the C API's workspace_size).
    batch_invariant: each row of the result gets the same bits whatever the number of rows
    of op(a) is (the plan of 4096 rows, data-parallel; Options::batch_invariant).
    Raises GemmError (GemmArgumentError, a ValueError, for illegal arguments) before
    anything runs; `out` is then untouched.
    """
    # An operand: (ptr, dtype, layout, ld, batch_stride, batch, rows, cols, keep, device, code).
    A = operand(a, "a")
    B = operand(b, "b")
    C = operand(c, "c") if c is not None else None
    m, k = (A[7], A[6]) if trans_a else (A[6], A[7])
    kb, n = (B[7], B[6]) if trans_b else (B[6], B[7])
    if k != kb:
        raise argument_error(
            "b",
            "op(a) is %d x %d and op(b) is %d x %d: the inner dimensions differ" % (m, k, kb, n),
        )
    if C is not None and (C[6], C[7]) != (m, n):
        raise argument_error("c", "is %d x %d, the result is %d x %d" % (C[6], C[7], m, n))
    if A[5] is None and B[5] is None and (C is None or C[5] is None):
        batch = None  # no batch: the common case without the loop
    else:
        batch = _batch((A, B, C), ("a", "b", "c"))
    if A[9] is None and B[9] is None and (C is None or C[9] is None):
        dev = None  # host memory
    else:
        dev = _device((A, B, C), ("a", "b", "c"))
    shape = (m, n) if batch is None else (batch, m, n)

    # The output: the caller's (checked, never copied before the call) or a new one.
    direct = True
    if out is not None:
        if not hasattr(out, "shape") or tuple(out.shape) != shape:
            raise argument_error(
                "out", "has shape %s, the result is %s" % (getattr(out, "shape", "?"), shape)
            )
        if not is_tensor(out) and not out.flags.writeable:
            raise argument_error("out", "is read-only")
        D = operand(out, "out", output=True)  # raises for a dtype gemmkit does not know
        td = D[1] if D is not None else dtype_name(out.dtype)
        if td not in _OUTPUTS:
            raise argument_error("out", "dtype %s is not one gemmkit writes" % out.dtype, 25)
        if out_dtype is not None and dtype_name(out_dtype) != td:
            raise argument_error("out_dtype", "%s differs from out's dtype %s" % (out_dtype, td))
        if D is None:  # not addressable: compute into a new array, copy into `out` after
            direct = False
            D = operand(empty(out, shape, td, out.device if is_tensor(out) else None), "out")
        if dev is not None or D[9] is not None:
            _device((A, B, C, D), ("a", "b", "c", "out"))
        result = out
    else:
        if out_dtype is not None:
            td = dtype_name(out_dtype)
            if td not in _OUTPUTS:
                raise argument_error("out_dtype", "%r is not a dtype gemmkit writes" % (out_dtype,))
        else:
            td = C[1] if C is not None else _default_out_dtype(A[1], B[1])
        result = empty(a, shape, td, dev)
        D = operand(result, "out")

    be = _BACKENDS.get(backend) if isinstance(backend, str) else None
    if be is None:
        raise argument_error("backend", "%r is not 'auto', 'cpu' or 'cuda'" % (backend,))
    stream = 0
    if dev is None:
        if be == _CUDA:
            raise argument_error(
                "backend", "the CUDA backend needs CUDA tensors; the operands are in host memory"
            )
        be = _CPU
    else:
        if be == _CPU:
            raise argument_error(
                "backend", "the CPU backend needs host memory; the operands are on %s" % dev
            )
        be = _CUDA
        stream = _torch.cuda.current_stream(dev).cuda_stream

    if compute is not None:
        cn = dtype_name(compute)
        if cn is None:
            raise argument_error("compute", "%r is not a dtype" % (compute,))
        comp = _CODES[cn]
    elif D[1] == "f64" and A[1] in _FLOAT:
        comp = _CODES["f64"]  # an f64 result accumulates in f64
    else:
        comp = 0  # the library's default for the inputs
    name = None
    if kernel is not None:
        if not isinstance(kernel, str):
            raise argument_error("kernel", "expected a kernel's name, got %r" % (kernel,))
        name = ctypes.create_string_buffer(kernel.encode())
    ws, ws_bytes = 0, 0
    if workspace is not None:
        ws, ws_bytes = operand(workspace.reshape(1, -1), "workspace")[0], workspace.nbytes
    cm = C if C is not None else D  # C's description when there is no C: D's
    p = _PACK(_ABI, _TRANS if trans_a else _NO_TRANS, _TRANS if trans_b else _NO_TRANS, comp,
              m, n, k, 1 if batch is None else batch,
              A[10], A[2], A[3], A[4], B[10], B[2], B[3], B[4],
              cm[10], cm[2], cm[3], cm[4], D[10], D[2], D[3], D[4],
              be, 0, 0, 1, ctypes.addressof(name) if name is not None else 0, stream, ws,
              ws_bytes, 0, 1 if batch_invariant else 0)  # schedule: the planner's
    try:  # numpy and torch scalars too; c_double takes only float and int
        alpha, beta = float(alpha), float(beta)
    except (TypeError, ValueError):
        bad = "alpha" if not isinstance(alpha, float) else "beta"
        raise argument_error(bad, "is not a real number: %r" % (alpha if bad == "alpha" else beta,))
    st = _status()
    cp = C[0] if C is not None else None
    if dev is not None and dev.index is not None and dev.index != _torch.cuda.current_device():
        with _torch.cuda.device(dev):
            rc = _call(p, A[0], B[0], cp, D[0], alpha, beta, st)
    else:
        rc = _call(p, A[0], B[0], cp, D[0], alpha, beta, st)
    if rc != 0:
        raise from_status(st)
    if not direct:
        if is_tensor(out):
            out.copy_(D[8])
        else:
            out[...] = D[8]
    return result


def _promote_1d(x, name, first):
    """numpy's matmul rule for a 1-D operand: (k,) -> (1, k) for a, (k, 1) for b."""
    shape = tuple(x.shape)
    if len(shape) != 1:
        return x, False
    if is_tensor(x):
        return (x.unsqueeze(0) if first else x.unsqueeze(1)), True
    return (x[None, :] if first else x[:, None]), True


def matmul(a, b, *, out=None, backend="auto", kernel=None, batch_invariant=False):
    """a @ b (numpy's and torch's matmul) for 1-D, 2-D and 3-D operands; a 2-D operand is
    broadcast over the batch of the other (batch stride 0). The result has the dtype a @ b
    has (int32 for int8 inputs, f32 for mixed half/float inputs). batch_invariant: as gemm's."""
    if not (hasattr(a, "shape") and hasattr(b, "shape")):
        raise argument_error("a" if not hasattr(a, "shape") else "b",
                             "expected a numpy array or a torch tensor")
    a2, va = _promote_1d(a, "a", True)
    b2, vb = _promote_1d(b, "b", False)
    if va or vb:
        r = gemm(a2, b2, backend=backend, kernel=kernel, batch_invariant=batch_invariant)
        if va:
            r = r[..., 0, :]
        if vb:
            r = r[..., 0]
        if out is not None:
            out[...] = r
            return out
        return r
    return gemm(a, b, out=out, backend=backend, kernel=kernel, batch_invariant=batch_invariant)
