"""gemmkit.gemm and gemmkit.matmul over the C ABI (gemmkit_gemm)."""

from . import _lib
from ._errors import argument_error, from_status
from ._operands import _torch, dtype_name, empty, is_tensor, operand

_BACKENDS = _lib.BACKEND_CODES
_FLOAT = ("f64", "f32", "f16", "bf16", "e4m3", "e5m2")
_OUTPUTS = _FLOAT + ("i32",)  # core::is_output_dtype


def _default_out_dtype(ta, tb):
    """The output dtype numpy / torch give for A @ B, in gemmkit's terms (i32 for int8)."""
    if ta == "i8" and tb == "i8":
        return "i32"
    if ta == tb:
        return ta
    if "f64" in (ta, tb):
        return "f64"
    return "f32"


def _check_same_device(ops, names):
    """All operands in host memory, or all on one CUDA device. Returns that torch device (None
    for host memory)."""
    dev = None
    first = None
    for op, name in zip(ops, names):
        if op is None:
            continue
        d = op.device if op.device is not None and op.device.type == "cuda" else None
        if first is None:
            dev, first = d, name
        elif d != dev:
            raise argument_error(
                name,
                "is on %s but %s is on %s: operands must share one device"
                % (d or "the host", first, dev or "the host"),
            )
    return dev


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
):
    """D = alpha * op(a) @ op(b) + beta * c, returned (written into `out` when given).

    a, b, c, out: numpy arrays or torch tensors, 2-D or 3-D (a batch); a 2-D operand, or a
    3-D one with a batch of one, is broadcast over the batch (batch stride 0). op(x) is x, or
    its transpose with trans_x=True. Strides are taken as they are when one of the last two is
    one element; otherwise the operand is copied first (an `out` that cannot be addressed gets
    the result copied into it after the call). c is read only when beta != 0; `out=c` updates
    c in place. out_dtype: the dtype of a new output (default: c's, else what `a @ b` gives,
    int32 for int8). backend: "auto", "cpu" or "cuda"; kernel: a registered kernel's name.
    compute: the accumulate type ("f32", "f64", "i32"; default from the inputs).
    Raises GemmError (GemmArgumentError, a ValueError, for illegal arguments) before
    anything runs; `out` is then untouched.
    """
    A = operand(a, "a")
    B = operand(b, "b")
    C = operand(c, "c") if c is not None else None
    names = ("a", "b", "c")
    ops = (A, B, C)

    m, ka = (A.cols, A.rows) if trans_a else (A.rows, A.cols)
    kb, n = (B.cols, B.rows) if trans_b else (B.rows, B.cols)
    if ka != kb:
        raise argument_error(
            "b",
            "op(a) is %d x %d and op(b) is %d x %d: the inner dimensions differ" % (m, ka, kb, n),
        )
    # The batch: every 3-D operand's first extent, 1 broadcasting.
    batches = [op.batch for op in ops if op is not None and op.batch is not None]
    batched = bool(batches)
    batch = 1
    for name, op in zip(names, ops):
        if op is None or op.batch is None or op.batch == 1:
            continue
        if batch != 1 and op.batch != batch:
            raise argument_error(
                name, "batch of %d does not broadcast with a batch of %d" % (op.batch, batch)
            )
        batch = op.batch
    if 0 in batches:
        batch = 0
    if C is not None and (C.rows, C.cols) != (m, n):
        raise argument_error("c", "is %d x %d, the result is %d x %d" % (C.rows, C.cols, m, n))

    dev = _check_same_device(ops, names)
    shape = (batch, m, n) if batched else (m, n)

    # The output: the caller's (checked, never copied before the call) or a new one.
    if out is not None:
        if not hasattr(out, "shape") or tuple(out.shape) != shape:
            raise argument_error(
                "out", "has shape %s, the result is %s" % (getattr(out, "shape", "?"), shape)
            )
        if not is_tensor(out) and not out.flags.writeable:
            raise argument_error("out", "is read-only")
        td = dtype_name(out.dtype)
        if td not in _OUTPUTS:
            raise argument_error("out", "dtype %s is not one gemmkit writes" % out.dtype, 25)
        if out_dtype is not None and dtype_name(out_dtype) != td:
            raise argument_error("out_dtype", "%s differs from out's dtype %s" % (out_dtype, td))
        D = operand(out, "out", output=True)
        direct = D is not None
        if D is None:  # not addressable: compute into a new array, copy into `out` after
            D = operand(empty(out, shape, td, out.device if is_tensor(out) else None), "out")
        _check_same_device((A, B, C, D), ("a", "b", "c", "out"))
        result = out
    else:
        if out_dtype is not None:
            td = dtype_name(out_dtype)
            if td not in _OUTPUTS:
                raise argument_error("out_dtype", "%r is not a dtype gemmkit writes" % (out_dtype,))
        else:
            td = C.dtype if C is not None else _default_out_dtype(A.dtype, B.dtype)
        result = empty(a, shape, td, dev)
        D = operand(result, "out")
        direct = True

    if isinstance(backend, str) and backend in _BACKENDS:
        be = _BACKENDS[backend]
    else:
        raise argument_error("backend", "%r is not 'auto', 'cpu' or 'cuda'" % (backend,))
    stream = None
    if dev is None:
        if be == _BACKENDS["cuda"]:
            raise argument_error(
                "backend", "the CUDA backend needs CUDA tensors; the operands are in host memory"
            )
        be = _BACKENDS["cpu"]
    else:
        if be == _BACKENDS["cpu"]:
            raise argument_error("backend", "the CPU backend needs host memory; the operands are on %s" % dev)
        be = _BACKENDS["cuda"]
        stream = _torch.cuda.current_stream(dev).cuda_stream

    p = _lib.Problem()
    p.abi_version = _lib.ABI_VERSION
    p.trans_a = _lib.TRANS if trans_a else _lib.NO_TRANS
    p.trans_b = _lib.TRANS if trans_b else _lib.NO_TRANS
    if compute is not None:
        cn = dtype_name(compute)
        if cn is None:
            raise argument_error("compute", "%r is not a dtype" % (compute,))
        p.compute = _lib.DTYPE_CODES[cn]
    elif D.dtype == "f64" and A.dtype in _FLOAT:
        p.compute = _lib.DTYPE_CODES["f64"]  # an f64 result accumulates in f64
    p.m, p.n, p.k, p.batch = m, n, ka, batch
    A.matrix(p.a)
    B.matrix(p.b)
    if C is not None:
        C.matrix(p.c)
    else:
        D.matrix(p.c)
    D.matrix(p.d)
    p.backend = be
    p.allow_fallback = 1
    if kernel is not None:
        p.kernel = kernel.encode() if isinstance(kernel, str) else kernel
    p.stream = stream

    st = _lib.Status()
    if dev is not None and dev.index is not None and dev.index != _torch.cuda.current_device():
        with _torch.cuda.device(dev):
            rc = _lib.gemm(p, A.ptr, B.ptr, C.ptr if C else None, D.ptr, alpha, beta, st)
    else:
        rc = _lib.gemm(p, A.ptr, B.ptr, C.ptr if C else None, D.ptr, alpha, beta, st)
    if rc != 0:
        raise from_status(st)
    if not direct:
        if is_tensor(out):
            out.copy_(D.keep)
        else:
            out[...] = D.keep
    return result


def _promote_1d(x, name, first):
    """numpy's matmul rule for a 1-D operand: (k,) -> (1, k) for a, (k, 1) for b."""
    shape = tuple(x.shape)
    if len(shape) != 1:
        return x, False
    if is_tensor(x):
        return (x.unsqueeze(0) if first else x.unsqueeze(1)), True
    return (x[None, :] if first else x[:, None]), True


def matmul(a, b, *, out=None, backend="auto", kernel=None):
    """a @ b (numpy's and torch's matmul) for 1-D, 2-D and 3-D operands; a 2-D operand is
    broadcast over the batch of the other (batch stride 0). The result has the dtype a @ b
    has (int32 for int8 inputs, f32 for mixed half/float inputs)."""
    if not (hasattr(a, "shape") and hasattr(b, "shape")):
        raise argument_error("a" if not hasattr(a, "shape") else "b",
                             "expected a numpy array or a torch tensor")
    a2, va = _promote_1d(a, "a", True)
    b2, vb = _promote_1d(b, "b", False)
    if va or vb:
        r = gemm(a2, b2, backend=backend, kernel=kernel)
        if va:
            r = r[..., 0, :]
        if vb:
            r = r[..., 0]
        if out is not None:
            out[...] = r
            return out
        return r
    return gemm(a, b, out=out, backend=backend, kernel=kernel)
