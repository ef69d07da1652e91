"""The C ABI's full description (gemmkit_problem, gemmkit_gemm, gemmkit_can_implement,
gemmkit_workspace_size, the status struct) called directly through ctypes: one test per illegal
field, the status naming it (netlib position, name, message with file:line), nothing written;
and many threads calling at once (each with its own status)."""

import ctypes
import threading

import pytest

np = pytest.importorskip("numpy")  # the GPU machine may have torch alone

import gemmkit  # noqa: E402
from gemmkit import _lib  # noqa: E402

F32 = _lib.DTYPE_CODES["f32"]
COL = _lib.COL_MAJOR


def problem(**kw):
    """A valid 4 x 3 x 5 f32 column-major problem, with fields replaced by `kw`."""
    f = dict(m=4, n=3, k=5, batch=1, trans_a=False, trans_b=False, compute=0,
             a=(F32, COL, 4, 0), b=(F32, COL, 5, 0), c=(F32, COL, 4, 0), d=(F32, COL, 4, 0),
             backend=_lib.BACKEND_CODES["cpu"])
    f.update(kw)
    return f


def pack(f):
    f = dict(f)
    return _lib.pack_problem(f.pop("m"), f.pop("n"), f.pop("k"), **f)


def call(f, beta=0.0, with_c=True):
    a = np.ones(40, np.float32)
    b = np.ones(40, np.float32)
    c = np.ones(40, np.float32)
    d = np.full(40, 7.0, np.float32)
    st = _lib.Status()
    rc = _lib.gemm(pack(f), a.ctypes.data, b.ctypes.data, c.ctypes.data if with_c else None,
                   d.ctypes.data, 1.0, beta, st)
    return rc, st, d


def test_valid_problem():
    rc, st, d = call(problem())
    assert rc == 0 and st.code == 0 and st.message == b""
    np.testing.assert_array_equal(d[:12], 5.0)
    np.testing.assert_array_equal(d[12:], 7.0)  # past D: untouched


def test_schedule():
    # The planner's choice, or a mode asked for: data-parallel runs; a mode outside the enum,
    # or split-K asked for with split_k = 1 (whole tiles), is refused with D untouched.
    for mode in (0, 1):
        rc, st, d = call(problem(schedule=mode))
        assert rc == 0 and st.code == 0, st.message
        np.testing.assert_array_equal(d[:12], 5.0)
    rc, st, d = call(problem(schedule=7))
    assert rc < 0 and st.code == 1 and b"schedule 7" in st.message
    np.testing.assert_array_equal(d, 7.0)
    rc, st, d = call(problem(schedule=2, split_k=1))
    assert rc < 0 and b"Options::schedule" in st.message, st.message
    np.testing.assert_array_equal(d, 7.0)


def test_batch_invariant():
    # The flag plans for the reference M among the M-invariant kernels: the problem runs; with
    # split_k = 2 or a split-K schedule it is refused naming both options, D untouched.
    rc, st, d = call(problem(batch_invariant=1))
    assert rc == 0 and st.code == 0, st.message
    np.testing.assert_array_equal(d[:12], 5.0)
    for bad in (dict(split_k=2), dict(schedule=3)):
        rc, st, d = call(problem(batch_invariant=1, **bad))
        assert rc < 0 and st.code == 1 and b"Options::batch_invariant" in st.message, st.message
        np.testing.assert_array_equal(d, 7.0)


@pytest.mark.parametrize("field,value,position,name", [
    ("trans_a", 7, 1, b"transa"),
    ("m", -1, 3, b"m"),
    ("n", -2, 4, b"n"),
    ("k", -3, 5, b"k"),
    ("a", (F32, COL, 3, 0), 8, b"lda"),
    ("b", (F32, COL, 4, 0), 10, b"ldb"),
    ("c", (F32, COL, 3, 0), 13, b"ldc"),
    ("d", (F32, COL, 3, 0), 15, b"ldd"),
    ("a", (F32, 99, 4, 0), 21, b"layout"),
    ("batch", -1, 16, b"batch"),
    ("a", (0, COL, 4, 0), 22, b"dtype_a"),
    ("b", (77, COL, 5, 0), 23, b"dtype_b"),
    ("c", (_lib.DTYPE_CODES["i8"], COL, 4, 0), 24, b"dtype_c"),
    ("compute", _lib.DTYPE_CODES["f16"], 26, b"compute"),
    ("backend", 9, 28, b"backend"),
])
def test_each_illegal_field(field, value, position, name):
    f = problem()
    f[field] = value
    if field == "trans_a":  # pack_problem takes a bool: write the raw code
        f["trans_a"] = False
        raw = bytearray(pack(f))
        raw[4:8] = (7).to_bytes(4, "little")
        st = _lib.Status()
        d = np.full(40, 7.0, np.float32)
        rc = _lib.gemm(bytes(raw), d.ctypes.data, d.ctypes.data, None, d.ctypes.data, 0.0, 0.0,
                       st)
    else:
        rc, st, d = call(f)
    assert rc == position and st.position == position and st.arg == position, (rc, st.message)
    assert st.code == 1 and st.arg_name == name
    assert b".cpp:" in st.message  # file:line of the check
    np.testing.assert_array_equal(d, 7.0)


def test_statuses_that_are_not_about_one_argument():
    f = problem()
    raw = bytearray(pack(f))
    raw[0:4] = (999).to_bytes(4, "little")  # abi_version
    st = _lib.Status()
    assert _lib.gemm(bytes(raw), None, None, None, None, 1.0, 0.0, st) == -2
    assert st.code == 2 and st.arg == 0 and b"abi_version 999" in st.message
    assert _lib.gemm(None, None, None, None, None, 1.0, 0.0, st) == -1
    assert st.code == 1 and b"null" in st.message
    # a status pointer may be null; the return value and gemmkit_last_error still tell
    assert _lib.gemm(pack(problem(m=-1)), None, None, None, None, 1.0, 0.0, None) == 3
    _lib.lib.gemmkit_last_error.restype = ctypes.c_char_p
    assert b"m = -1" in _lib.lib.gemmkit_last_error()


def test_pointers_and_quick_returns():
    rc, st, d = call(problem(), beta=1.0, with_c=False)  # beta != 0 and no C
    assert rc == 12 and st.arg_name == b"C"
    np.testing.assert_array_equal(d, 7.0)
    st = _lib.Status()
    assert _lib.gemm(pack(problem(m=0)), None, None, None, None, 1.0, 0.0, st) == 0  # M == 0


def test_can_implement_and_workspace_size():
    st = _lib.Status()
    assert _lib.can_implement(pack(problem()), st) == 0
    ws = ctypes.c_size_t(123)
    assert _lib.workspace_size(pack(problem()), ctypes.byref(ws), st) == 0 and ws.value == 0
    assert _lib.workspace_size(pack(problem(k=-1)), ctypes.byref(ws), st) == 5
    assert ws.value == 0
    cuda = _lib.can_implement(pack(problem(backend=_lib.BACKEND_CODES["cuda"])), st)
    if not gemmkit.kernels("cuda.*"):
        assert cuda == -2 and st.code == 2  # NotSupported: no CUDA device / backend


def test_threads_call_at_once():
    """Many threads, mixed shapes and dtypes, each checking its own result and errors (the
    status struct and the message are per thread)."""
    errors = []

    def work(t):
        try:
            rng = np.random.default_rng(100 + t)
            for i in range(30):
                m, n, k = (int(x) for x in rng.integers(1, 40, 3))
                dt = (np.float32, np.float64)[(t + i) % 2]
                a = rng.standard_normal((m, k)).astype(dt)
                b = rng.standard_normal((k, n)).astype(dt)
                d = gemmkit.matmul(a, b)
                np.testing.assert_allclose(d, a.astype(np.float64) @ b, rtol=1e-3, atol=1e-4)
                with pytest.raises(gemmkit.GemmArgumentError) as e:
                    gemmkit.gemm(a, b, beta=1.0)
                assert e.value.arg == "C" and "C is null" in str(e.value)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
