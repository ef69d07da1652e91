"""The model from Python: gemmkit.ledger, gemmkit.explain, gemmkit.kernels.

The JSON comes from the library (src/dispatch/model_json.cpp), the same objects that
`gemmkit ledger --json`, `gemmkit explain --json` and `gemmkit kernels` describe.
"""

import ctypes
import json

from . import _lib
from ._errors import argument_error, from_status
from ._operands import dtype_name


def _name(t, arg):
    if t is None:
        return None
    n = dtype_name(t)
    if n is None:
        raise argument_error(arg, "%r is not a gemmkit dtype" % (t,))
    return n


def _layout(s, arg):
    if s in ("row", "r", "rowmajor"):
        return _lib.ROW_MAJOR
    if s in ("col", "c", "colmajor", "column"):
        return _lib.COL_MAJOR
    raise argument_error(arg, "layout must be 'row' or 'col', not %r" % (s,), 21)


def problem(m, n, k, dtype="f32", *, batch=1, dtype_a=None, dtype_b=None, dtype_c=None,
            dtype_d=None, compute=None, layout_a="col", layout_b="col", layout_c="col",
            trans_a=False, trans_b=False, lda=0, ldb=0, ldc=0, backend="auto", kernel=None):
    """A packed gemmkit_problem (and the kernel name's buffer to keep alive) with the command's
    defaults (cli/problem_options.cpp): C of the input dtype (i32 for integer inputs, bf16 for
    fp8), D of C's, packed lds and batch strides."""
    all_ = _name(dtype, "dtype")
    ta = _name(dtype_a, "dtype_a") or all_
    tb = _name(dtype_b, "dtype_b") or all_
    integer = ta in ("i8", "i4")
    tc = _name(dtype_c, "dtype_c")
    if tc is None:
        tc = "i32" if integer else ("f64" if ta == "f64" else all_)
        if tc in ("e4m3", "e5m2"):
            tc = "bf16"
    td = _name(dtype_d, "dtype_d") or tc
    lc = _layout(layout_c, "layout_c")
    ra, ca = (k, m) if trans_a else (m, k)
    rb, cb = (n, k) if trans_b else (k, n)
    mats = []
    for t, lay, ld, rows, cols in (
        (ta, _layout(layout_a, "layout_a"), lda, ra, ca),
        (tb, _layout(layout_b, "layout_b"), ldb, rb, cb),
        (tc, lc, ldc, m, n),
        (td, lc, ldc, m, n),
    ):
        # packed batches: one matrix after the other (ld = 0 is packed)
        packed_ld = ld or max(1, cols if lay == _lib.ROW_MAJOR else rows)
        mats.append((_lib.DTYPE_CODES[t], lay, ld,
                     packed_ld * (rows if lay == _lib.ROW_MAJOR else cols)))
    if backend not in _lib.BACKEND_CODES:
        raise argument_error("backend", "%r is not 'auto', 'cpu' or 'cuda'" % (backend,))
    name = ctypes.create_string_buffer(kernel.encode()) if kernel is not None else None
    p = _lib.pack_problem(m, n, k, batch, trans_a, trans_b,
                          _lib.DTYPE_CODES[_name(compute, "compute") or "default"], *mats,
                          backend=_lib.BACKEND_CODES[backend],
                          kernel=ctypes.addressof(name) if name is not None else 0)
    return p, name


def _decode(ptr):
    return json.loads(ptr.value.decode("utf-8"))


def ledger(m, n, k, dtype="f32", *, machine="h200", beta=0.0, tile=None, stages=0, threads=0,
           split_k=0, l0k=0, count_reads=False, ascend=False, variant=False, groups=None,
           **problem_kw):
    """The analytic model of one problem on one machine: the dict `gemmkit ledger --json`
    prints (machine: a builtin name, see `gemmkit ledger --list-machines`, or a .json file).
    Problem keywords as the command's flags: batch, dtype_a..dtype_d, compute, layout_a/b/c,
    trans_a/b, lda/ldb/ldc."""
    p, _keep = problem(m, n, k, dtype, **problem_kw)
    req = {"machine": machine, "stages": stages, "threads": threads, "split_k": split_k,
           "l0k": l0k, "count_reads": count_reads, "ascend": ascend, "variant": variant}
    if tile is not None:
        req["tile"] = tile
    if groups is not None:
        req["groups"] = [list(g) for g in groups]
    out = ctypes.c_char_p()
    st = _lib.Status()
    if _lib.ledger_json(p, beta, json.dumps(req).encode(), ctypes.byref(out), st) != 0:
        raise from_status(st)
    return _decode(out)


def explain(m, n, k, dtype="f32", *, beta=0.0, backend="auto", kernel=None, **problem_kw):
    """What the planner picks for a problem and why, with the ledger's figures: the dict
    `gemmkit explain --json` prints. Its "status" says when no kernel implements the problem
    (no exception for that); an illegal description or kernel name raises GemmArgumentError."""
    p, _keep = problem(m, n, k, dtype, backend=backend, kernel=kernel, **problem_kw)
    out = ctypes.c_char_p()
    st = _lib.Status()
    rc = _lib.explain_json(p, beta, ctypes.byref(out), st)
    if not out.value or (rc != 0 and _lib.STATUS_NAMES[st.code] == "InvalidValue"):
        raise from_status(st)
    return _decode(out)


def kernels(pattern="all"):
    """The registered kernels whose names match a glob ('*', '?'; "all"): a list of dicts
    {name, backend, role, config, note, priority, modes}."""
    out = ctypes.c_char_p()
    st = _lib.Status()
    if _lib.kernels_json(pattern.encode(), ctypes.byref(out), st) != 0:
        raise from_status(st)
    return _decode(out)
