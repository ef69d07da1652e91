"""gemmkit.gemm / gemmkit.matmul on numpy arrays (the CPU backend) against numpy in f64 with
the library's tolerance rules: every layout and transpose, strided views, batches with
broadcasting, BLAS semantics, errors before any launch with the output untouched."""

import itertools

import pytest

np = pytest.importorskip("numpy")  # the GPU machine may have torch alone

import gemmkit  # noqa: E402
from oracle import check  # noqa: E402

SEED = 14
print("seed", SEED)

NP = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i8": np.int8, "i32": np.int32}
COMPUTE = {"f64": "f64", "f32": "f32", "f16": "f32", "i32": "i32"}


def rand(rng, shape, dt, order="C"):
    if dt == "i8":
        x = rng.integers(-8, 9, size=shape).astype(np.int8)
    else:
        x = rng.uniform(-1, 1, size=shape).astype(NP[dt])
    return np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)


def stored(rng, rows, cols, dt, order, trans):
    """An operand whose op() is rows x cols, stored in `order`, transposed when `trans`."""
    return rand(rng, (cols, rows) if trans else (rows, cols), dt, order)


# ---- every layout, transpose, alpha/beta on a small grid ----

SHAPES = [(0, 3, 2), (3, 0, 2), (2, 3, 0), (1, 1, 1), (2, 3, 5), (5, 9, 3), (9, 5, 9),
          (37, 29, 41)]


@pytest.mark.parametrize("dt,out", [("f64", "f64"), ("f32", "f32"), ("f16", "f32"),
                                    ("f16", "f16"), ("i8", "i32")])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_layouts_and_transposes(dt, out, m, n, k):
    rng = np.random.default_rng(SEED + m * 100 + n * 10 + k)
    for oa, ob, oc, ta, tb in itertools.product("CF", "CF", "CF", (False, True), (False, True)):
        a = stored(rng, m, k, dt, oa, ta)
        b = stored(rng, k, n, dt, ob, tb)
        c = rand(rng, (m, n), out, oc)
        for alpha, beta in ((1.0, 0.0), (0.7, 1.3)) if dt != "i8" else ((1, 0), (2, 1)):
            d = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta, trans_a=ta, trans_b=tb)
            assert d.dtype == NP[out] and d.shape == (m, n)
            check(d, a, b, c, alpha, beta, ta, tb, out, COMPUTE[out])


@pytest.mark.parametrize("dt", ["f64", "f32", "f16"])
def test_matmul_matches_numpy(dt):
    rng = np.random.default_rng(SEED)
    a, b = rand(rng, (64, 48), dt), rand(rng, (48, 33), dt)
    d = gemmkit.matmul(a, b)
    assert d.dtype == (a @ b).dtype
    check(d, a, b, out_dtype=dt, compute=COMPUTE[dt])


@pytest.fixture
def no_copies(monkeypatch):
    """Fails a test that makes gemmkit copy an operand."""
    import gemmkit._operands as ops

    def refuse(x):
        raise AssertionError("an operand was copied: shape %s strides %s" % (x.shape, x.strides))

    monkeypatch.setattr(ops, "copy", refuse)


def test_views_taken_as_they_are(no_copies):
    """Transposed views and sliced (padded-ld) views need no copy: the result is written
    through them and the padding around an output view is untouched."""
    rng = np.random.default_rng(SEED)
    big_a = rand(rng, (40, 50), "f32")
    big_b = rand(rng, (60, 30), "f32")
    a = big_a[3:23, 5:36]  # 20 x 31, row-major, ld 50
    b = big_b[:31, 2:19].T.T  # 31 x 17, ld 30
    bt = big_b[:17, :31].T  # 31 x 17 column-major view, ld 31
    for bb in (b, bt, a[:17].T):
        if bb.shape != (31, 17):
            continue
        d = gemmkit.matmul(a, bb)
        check(d, a, bb)
    big_out = np.full((30, 40), 7.0, np.float32)
    out = big_out[2:22, 3:20]  # 20 x 17 inside a padded buffer
    before = big_out.copy()
    gemmkit.gemm(a, b, out=out)
    check(out, a, b)
    mask = np.ones_like(big_out, bool)
    mask[2:22, 3:20] = False
    np.testing.assert_array_equal(big_out[mask], before[mask])
    # a column-major output view (transpose of a row-major buffer)
    out_t = np.zeros((17, 20), np.float32).T
    gemmkit.gemm(a, b, out=out_t)
    check(out_t, a, b)
    # every other row: ld = 2 * cols, still addressable
    a2 = big_a[::2, :31]
    check(gemmkit.matmul(a2, b), a2, b)


def test_views_without_a_unit_stride_are_copied():
    """Negative strides, a step in both dimensions, a zero stride: copied first (documented);
    an output with no unit stride gets the result copied into it."""
    rng = np.random.default_rng(SEED)
    big = rand(rng, (40, 60), "f64")
    a = big[::2, ::3][:10, :12]  # no unit stride
    b = big[::-1, :7][:12]  # negative row stride
    z = np.broadcast_to(rand(rng, (1, 7), "f64"), (12, 7))  # zero row stride
    for bb in (b, z):
        check(gemmkit.matmul(a, bb), a, bb, out_dtype="f64", compute="f64")
    out_big = np.zeros((20, 14))
    out = out_big[::2, ::2]  # 10 x 7, no unit stride
    r = gemmkit.gemm(a, b, out=out)
    assert r is out
    check(out, a, b, out_dtype="f64", compute="f64")
    assert (out_big[1::2] == 0).all() and (out_big[:, 1::2] == 0).all()


def test_in_place_update_of_c():
    rng = np.random.default_rng(SEED)
    a, b = rand(rng, (13, 11), "f32"), rand(rng, (11, 9), "f32")
    c = rand(rng, (13, 9), "f32")
    c0 = c.copy()
    r = gemmkit.gemm(a, b, c, alpha=0.5, beta=2.0, out=c)
    assert r is c
    check(c, a, b, c0, 0.5, 2.0)


# ---- batches ----


@pytest.mark.parametrize("dt", ["f64", "f32"])
def test_batched_and_broadcast(dt, no_copies):
    rng = np.random.default_rng(SEED)
    comp = COMPUTE[dt]
    a3, b3 = rand(rng, (4, 7, 5), dt), rand(rng, (4, 5, 6), dt)
    a2, b2 = rand(rng, (7, 5), dt), rand(rng, (5, 6), dt)
    for a, b in ((a3, b3), (a3, b2), (a2, b3), (a3[:1], b3), (a3, b3[:1])):
        d = gemmkit.matmul(a, b)
        assert d.shape == np.matmul(a, b).shape
        check(d, a, b, out_dtype=dt, compute=comp)
    # transposed batches (column-major inner matrices), a strided batch, trans flags
    at = np.swapaxes(rand(rng, (4, 5, 7), dt), 1, 2)
    bs = rand(rng, (8, 5, 6), dt)[::2]
    check(gemmkit.matmul(at, bs), at, bs, out_dtype=dt, compute=comp)
    d = gemmkit.gemm(a3, b3.transpose(0, 2, 1).copy(), trans_b=True)
    check(d, a3, b3, out_dtype=dt, compute=comp)
    # C broadcast over the batch, beta != 0
    c2 = rand(rng, (7, 6), dt)
    d = gemmkit.gemm(a3, b2, c2, beta=0.5)
    check(d, a3, b2, c2, 1.0, 0.5, out_dtype=dt, compute=comp)
    # batch 0
    d = gemmkit.matmul(rand(rng, (0, 7, 5), dt), b2)
    assert d.shape == (0, 7, 6)


def test_matmul_vectors():
    rng = np.random.default_rng(SEED)
    a, b, v = rand(rng, (6, 5), "f64"), rand(rng, (5, 4), "f64"), rand(rng, (5,), "f64")
    np.testing.assert_allclose(gemmkit.matmul(a, v), a @ v, rtol=1e-12)
    w = rand(rng, (6,), "f64")
    np.testing.assert_allclose(gemmkit.matmul(w, a), w @ a, rtol=1e-12)
    np.testing.assert_allclose(gemmkit.matmul(v, v), v @ v, rtol=1e-12)
    assert gemmkit.matmul(v, b).shape == (4,)


# ---- BLAS semantics ----


def test_blas_semantics():
    rng = np.random.default_rng(SEED)
    a, b = rand(rng, (8, 6), "f64"), rand(rng, (6, 5), "f64")
    c = np.full((8, 5), np.nan)
    d = gemmkit.gemm(a, b, c, beta=0.0)  # beta == 0 never reads C
    assert np.isfinite(d).all()
    an = a.copy()
    an[2, 3] = np.nan
    c = rand(rng, (8, 5), "f64")
    d = gemmkit.gemm(an, b, c, alpha=0.0, beta=2.0)  # alpha == 0 never reads A or B
    np.testing.assert_array_equal(d, 2.0 * c)
    d = gemmkit.gemm(an, b)  # NaN in a row of A: NaN in exactly that row
    assert np.isnan(d[2]).all() and np.isfinite(np.delete(d, 2, 0)).all()
    c0 = c.copy()
    gemmkit.gemm(an, b, c, alpha=0.0, beta=1.0, out=c)  # C untouched
    np.testing.assert_array_equal(c, c0)
    d = gemmkit.gemm(a[:, :0], b[:0], c, beta=1.5)  # K == 0 gives beta * C
    np.testing.assert_array_equal(d, 1.5 * c)


# ---- errors: raised before anything runs, output untouched ----


def expect_error(fn, arg, position, code="InvalidValue", out=None):
    before = None if out is None else out.copy()
    with pytest.raises(gemmkit.GemmError) as e:
        fn()
    err = e.value
    assert err.arg == arg and err.position == position and err.code == code, (
        err.arg, err.position, err.code, str(err))
    assert isinstance(err, ValueError) == (code == "InvalidValue")
    if out is not None:
        np.testing.assert_array_equal(out, before)
    return err


def test_errors_name_the_argument_and_leave_out_untouched():
    rng = np.random.default_rng(SEED)
    a, b = rand(rng, (8, 6), "f32"), rand(rng, (6, 5), "f32")
    out = np.full((8, 5), 3.0, np.float32)
    g = gemmkit.gemm
    expect_error(lambda: g(a, b.T, out=out), "b", 9, out=out)  # inner dimensions differ
    expect_error(lambda: g(a.astype(np.complex64), b, out=out), "a", 22, out=out)  # dtype
    expect_error(lambda: g(a, b.astype(np.uint8), out=out), "b", 23, out=out)
    expect_error(lambda: g(a[None, None], b, out=out), "a", 7, out=out)  # 4-D
    expect_error(lambda: g(a, [[1.0]], out=out), "b", 9, out=out)  # not an array
    expect_error(lambda: g(a, b, out=out[:, :4]), "out", 14, out=out)  # shape
    expect_error(lambda: g(a, b, out=out, out_dtype=np.float64), "out_dtype", 25, out=out)
    expect_error(lambda: g(a, b, out=out.astype(np.int8)), "out", 25)  # dtype of out
    ro = out.copy()
    ro.flags.writeable = False
    expect_error(lambda: g(a, b, out=ro), "out", 14)
    expect_error(lambda: g(a, b, out=out, backend="cuda"), "backend", 28, out=out)
    expect_error(lambda: g(a, b, out=out, backend="tpu"), "backend", 28, out=out)
    expect_error(lambda: g(a, b, out=out, alpha="x"), "alpha", 6, out=out)
    expect_error(lambda: g(a, b, out=out, beta=1j), "beta", 11, out=out)
    check(g(a, b, alpha=np.float32(0.5)), a, b, alpha=0.5)  # numpy scalars are fine
    c_bad = rand(rng, (8, 4), "f32")
    expect_error(lambda: g(a, b, c_bad, beta=1.0, out=out), "c", 12, out=out)
    a3, b3 = rand(rng, (3, 8, 6), "f32"), rand(rng, (2, 6, 5), "f32")
    expect_error(lambda: gemmkit.matmul(a3, b3), "b", 9)  # batches do not broadcast
    # errors the library finds: its argument name and netlib position
    expect_error(lambda: g(a, b, beta=1.0, out=out), "C", 12, out=out)  # beta != 0, no C
    expect_error(lambda: g(a, b, out=out, kernel="no.such.kernel"), "kernel", 29, out=out)
    big = np.zeros((8, 6), np.float32)
    expect_error(lambda: g(big, rand(rng, (6, 6), "f32"), out=big), "D", 14)  # D overlaps A
    # not an argument error: a legal problem this kernel does not implement
    gemv = gemmkit.kernels("cpu.gemv_portable")[0]["name"]
    e = expect_error(lambda: g(a, b, out=out, kernel=gemv), "", 0, "NotSupported", out=out)
    assert "gemv" in str(e)


def test_error_messages_carry_file_and_line():
    a = np.zeros((2, 2), np.float32)
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, a, beta=1.0)
    assert "validate.cpp:" in str(e.value)


# ---- bf16 through ml_dtypes, when installed ----


def test_bf16_numpy():
    ml = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(SEED)
    a = rng.uniform(-1, 1, (20, 12)).astype(ml.bfloat16)
    b = rng.uniform(-1, 1, (12, 9)).astype(ml.bfloat16)
    d = gemmkit.gemm(a, b, out_dtype=np.float32)
    check(d, a, b, out_dtype="f32", compute="f32")
    d = gemmkit.matmul(a, b)
    assert d.dtype == ml.bfloat16
    check(d, a, b, out_dtype="bf16", compute="f32")


# ---- torch tensors on the CPU, when torch is importable ----


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(SEED)
    a = torch.rand(17, 9, generator=g, dtype=torch.float32) - 0.5
    b = torch.rand(13, 9, generator=g, dtype=torch.float32) - 0.5
    d = gemmkit.matmul(a, b.t())  # a transposed view: column-major, no copy
    assert isinstance(d, torch.Tensor) and d.dtype == torch.float32
    check(d, a, b.t())
    d = gemmkit.gemm(a, b, trans_b=True, out_dtype=torch.float64)
    check(d, a, b, trans_b=True, out_dtype="f64", compute="f64")
    a3 = torch.rand(3, 17, 9, generator=g, dtype=torch.float64)
    check(gemmkit.matmul(a3, b.t().double()), a3, b.t(), out_dtype="f64", compute="f64")


def test_torch_cpu_dtypes_views_batches_errors():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(SEED)

    def r(*shape, dtype=torch.float32):
        return (torch.rand(*shape, generator=g) * 2 - 1).to(dtype)

    for dt, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        a, b = r(12, 7, dtype=dt), r(7, 5, dtype=dt)
        d = gemmkit.matmul(a, b)
        assert d.dtype == dt
        check(d, a, b, out_dtype=name)
        d = gemmkit.gemm(a, b, out_dtype=torch.float32)
        check(d, a, b)
    i8 = torch.randint(-8, 9, (9, 6), generator=g, dtype=torch.int8)
    d = gemmkit.matmul(i8, i8.t())
    assert d.dtype == torch.int32
    check(d, i8, i8.t(), out_dtype="i32", compute="i32")
    big = r(20, 30)
    a = big[2:14, 3:10]  # padded ld: no copy
    b = big[:, ::3][:7, :5]  # no unit stride: copied
    check(gemmkit.matmul(a, b), a, b)
    a3, b2 = r(4, 12, 7), r(7, 5)
    check(gemmkit.matmul(a3, b2), a3, b2)
    check(gemmkit.matmul(a3.transpose(1, 2).contiguous().transpose(1, 2), b2), a3, b2)
    out = torch.full((12, 5), 3.0)
    before = out.clone()
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, b.t(), out=out)
    assert e.value.arg == "b" and torch.equal(out, before)
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, b, out=out, backend="cuda")
    assert e.value.arg == "backend" and torch.equal(out, before)
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a.to(torch.complex64), b, out=out)
    assert e.value.position == 22 and torch.equal(out, before)
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, b.to("meta"), out=out)  # neither host memory nor a CUDA device
    assert e.value.arg == "b" and torch.equal(out, before)
    outv = torch.zeros(24, 10)[::2, ::2]  # an output with no unit stride: result copied in
    gemmkit.gemm(a, b, out=outv)
    check(outv, a, b)


# ---- the model ----


def test_ledger_explain_kernels():
    j = gemmkit.ledger(4096, 4096, 4096, "f16", machine="h200", tile="128x128x32", stages=3,
                       count_reads=True, variant=True)
    for key in ("machine", "problem", "flops", "min_bytes", "bytes", "arithmetic_intensity",
                "bound", "t_floor_s", "tile", "prediction", "read_counts", "variant"):
        assert key in j, key
    assert j["flops"] == 2.0 * 4096**3 and j["machine"] == "h200"
    assert j["problem"]["dtype_a"] == "f16"
    e = gemmkit.explain(64, 64, 64, "f32")
    assert e["kernel"].startswith("cpu.") and e["reasons"]
    assert e["status"] == "Success"
    ks = gemmkit.kernels()
    assert any(k["name"] == "cpu.reference" and k["role"] == "reference" for k in ks)
    assert all(k["name"].startswith("cpu.ladder") for k in gemmkit.kernels("cpu.ladder.*"))
    with pytest.raises(gemmkit.GemmArgumentError) as err:
        gemmkit.ledger(8, 8, 8, machine="no-such-machine")
    assert err.value.arg == "machine"
    with pytest.raises(gemmkit.GemmArgumentError) as err:
        gemmkit.ledger(-1, 8, 8)
    assert err.value.arg == "m" and err.value.position == 3
    with pytest.raises(gemmkit.GemmArgumentError) as err:
        gemmkit.explain(8, 8, 8, kernel="no.such.kernel")
    assert err.value.position == 29


def test_ledger_is_the_commands_json():
    """The same object as `gemmkit ledger --json` (both come from src/dispatch/model_json)."""
    import json
    import os
    import subprocess

    exe = os.path.join(os.path.dirname(gemmkit.library_path), "gemmkit")
    if not os.path.exists(exe):
        pytest.skip("no gemmkit command next to the library")
    args = ["--m", "1000", "--n", "512", "--k", "256", "--dtype", "bf16", "--machine", "h100-sxm",
            "--tile", "128x128x64", "--variant", "--json"]
    cli = json.loads(subprocess.run([exe, "ledger"] + args, check=True, capture_output=True,
                                    text=True).stdout)
    py = gemmkit.ledger(1000, 512, 256, "bf16", machine="h100-sxm", tile="128x128x64",
                        variant=True)
    assert py == cli
    cli = json.loads(subprocess.run([exe, "explain", "--m", "33", "--n", "64", "--k", "9",
                                     "--json"], check=True, capture_output=True,
                                    text=True).stdout)
    assert gemmkit.explain(33, 64, 9) == cli


# ---- batch invariance: a row's bits do not depend on how many rows come with it ----


@pytest.mark.parametrize("dt", ["f32", "f64"])
def test_batch_invariant_rows(dt):
    rng = np.random.default_rng(SEED)
    x = rand(rng, (300, 200), dt)
    w = rand(rng, (200, 96), dt)
    full = gemmkit.gemm(x, w, backend="cpu", batch_invariant=True)
    for m in (1, 7, 64):
        part = gemmkit.gemm(x[:m], w, backend="cpu", batch_invariant=True)
        assert part.tobytes() == full[:m].tobytes(), m
    one = gemmkit.matmul(x[0], w, backend="cpu", batch_invariant=True)
    assert one.tobytes() == full[0].tobytes()
