"""gemmkit.gemm / gemmkit.matmul on torch CUDA tensors, against torch.matmul in f32 with the
library's tolerance rules. Skipped without torch, without a CUDA device, or with a libgemmkit
built without the CUDA backend. Run on the GPU machine (see README.md, Python), with pytest or,
where the Python has none, as a script (tests/python/mini_pytest.py runs it)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
if __name__ == "__main__":  # run as a script (where Python has no pytest): the small runner
    sys.path.insert(0, HERE)
    import mini_pytest as pytest
else:
    import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

import math  # noqa: E402

import gemmkit  # noqa: E402

if not gemmkit.kernels("cuda.*"):
    pytest.skip("libgemmkit was built without the CUDA backend (%s)" % gemmkit.library_path,
                allow_module_level=True)

SEED = 14
print("seed", SEED, "library", gemmkit.library_path)
U = {torch.float32: 2.0**-24, torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
DEV = torch.device("cuda", torch.cuda.current_device())


def rand(shape, dtype, gen):
    return (torch.rand(shape, generator=gen, device=DEV) * 2 - 1).to(dtype)


def op(x, t):
    return x.transpose(-1, -2) if t else x


def check(d, a, b, c=None, alpha=1.0, beta=0.0, ta=False, tb=False):
    """|d - ref| <= u_out*|ref| + (8 + sqrt(K)) * 2^-24 * gauge, ref = torch.matmul in f32
    (the testbed's rule; the f32 reference's own error is inside the bound's f32 term)."""
    A, B = op(a, ta).float(), op(b, tb).float()
    ref = alpha * torch.matmul(A, B)
    gauge = abs(alpha) * torch.matmul(A.abs(), B.abs())
    if c is not None and beta != 0:
        ref = ref + beta * c.float()
        gauge = gauge + abs(beta) * c.float().abs()
    k = A.shape[-1]
    bound = U[d.dtype] * ref.abs() + 2 * (8 + math.sqrt(k)) * U[torch.float32] * gauge
    err = (d.float() - ref).abs()
    assert d.device == a.device and d.shape == ref.shape
    assert torch.isfinite(d).all()
    bad = err > bound
    assert not bad.any(), "%d elements over the bound, max err/bound %.3g" % (
        int(bad.sum()), float((err / bound.clamp_min(1e-30)).max()))


@pytest.mark.parametrize("dt", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("out_dt", [torch.float32, None])
@pytest.mark.parametrize("m,n,k", [(1, 1, 8), (64, 48, 40), (129, 257, 136), (512, 384, 1024)])
def test_layouts_transposes_dtypes(dt, out_dt, m, n, k):
    g = torch.Generator(device=DEV).manual_seed(SEED + m + n + k)
    for ta in (False, True):
        for tb in (False, True):
            a = rand((k, m) if ta else (m, k), dt, g)
            b = rand((n, k) if tb else (k, n), dt, g)
            d = gemmkit.gemm(a, b, trans_a=ta, trans_b=tb, out_dtype=out_dt)
            assert d.dtype == (out_dt or dt)
            check(d, a, b, ta=ta, tb=tb)
            # the same through transposed views (column-major operands, no copy)
            d = gemmkit.matmul(op(a, ta), op(b, tb))
            check(d, op(a, ta), op(b, tb))


def test_alpha_beta_strided_and_in_place():
    g = torch.Generator(device=DEV).manual_seed(SEED)
    big = rand((300, 400), torch.float16, g)
    a = big[10:210, 7:135]  # 200 x 128, ld 400
    b = rand((128, 96), torch.float16, g)
    c = rand((200, 96), torch.float32, g)
    d = gemmkit.gemm(a, b, c, alpha=0.5, beta=2.0)
    check(d, a, b, c, 0.5, 2.0)
    c0 = c.clone()
    r = gemmkit.gemm(a, b, c, alpha=0.5, beta=2.0, out=c)
    assert r is c
    check(c, a, b, c0, 0.5, 2.0)
    outbuf = torch.full((256, 128), 7.0, device=DEV)
    out = outbuf[3:203, 5:101]
    gemmkit.gemm(a, b, out=out)
    check(out, a, b)
    mask = torch.ones_like(outbuf, dtype=torch.bool)
    mask[3:203, 5:101] = False
    assert (outbuf[mask] == 7.0).all()


def test_batched_and_broadcast():
    g = torch.Generator(device=DEV).manual_seed(SEED)
    a3, b3 = rand((6, 96, 64), torch.bfloat16, g), rand((6, 64, 80), torch.bfloat16, g)
    a2, b2 = rand((96, 64), torch.bfloat16, g), rand((64, 80), torch.bfloat16, g)
    for a, b in ((a3, b3), (a3, b2), (a2, b3), (a3[:1], b3)):
        d = gemmkit.matmul(a, b)
        assert d.shape == torch.matmul(a, b).shape
        check(d, a, b)
    d = gemmkit.gemm(a3, b3.transpose(1, 2), trans_b=True, out_dtype=torch.float32)
    check(d, a3, b3)


def test_current_stream_and_no_synchronization():
    """The call goes on torch's current stream and does not wait for it: with the stream held
    busy by a sleep kernel, the call returns before the sleep ends, and the result is right
    once the stream is synchronized."""
    g = torch.Generator(device=DEV).manual_seed(SEED)
    a, b = rand((256, 256), torch.float16, g), rand((256, 256), torch.float16, g)
    gemmkit.matmul(a, b)  # warm up (planner, module load)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    import time

    with torch.cuda.stream(s):
        t0 = time.perf_counter()
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(1_000_000_000)  # 1e9 clock cycles: about 0.5 s
        d = gemmkit.matmul(a, b)
        t_call = time.perf_counter() - t0
    s.synchronize()
    t_all = time.perf_counter() - t0
    check(d, a, b)
    if hasattr(torch.cuda, "_sleep"):
        assert t_call < 0.5 * t_all, (t_call, t_all)


def test_errors_before_any_launch():
    g = torch.Generator(device=DEV).manual_seed(SEED)
    a, b = rand((64, 32), torch.float16, g), rand((32, 48), torch.float16, g)
    out = torch.full((64, 48), 3.0, device=DEV)
    ref = out.clone()
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, b.cpu(), out=out)  # operands on two devices
    assert e.value.arg == "b"
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, b, out=out, backend="cpu")
    assert e.value.arg == "backend" and e.value.position == 28
    with pytest.raises(gemmkit.GemmArgumentError) as e:
        gemmkit.gemm(a, b.t(), out=out)
    assert e.value.arg == "b" and e.value.position == 9
    out_i = torch.full((64, 48), 3, dtype=torch.int32, device=DEV)
    with pytest.raises(gemmkit.GemmError) as e:  # int8 on the GPU: no CUDA kernel
        gemmkit.gemm((a * 100).to(torch.int8), (b * 100).to(torch.int8), out=out_i)
    assert e.value.code == "NotSupported" and not isinstance(e.value, ValueError)
    torch.cuda.synchronize()
    assert torch.equal(out, ref)
    assert torch.equal(out_i, torch.full_like(out_i, 3))


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_f32_and_f64_on_the_gpu(dt):
    """SGEMM / DGEMM on the device (src/cuda/simt), odd sizes, a transposed B; against
    torch.matmul in f64 with the gauge bound of the output's precision."""
    g = torch.Generator(device=DEV).manual_seed(SEED)
    a, b = rand((300, 129), dt, g), rand((77, 129), dt, g)
    d = gemmkit.gemm(a, b, trans_b=True)
    assert d.dtype == dt and d.device == a.device
    A, B = a.double(), b.double().t()
    ref, gauge = torch.matmul(A, B), torch.matmul(A.abs(), B.abs())
    u = 2.0**-24 if dt == torch.float32 else 2.0**-53
    bound = u * ref.abs() + 2 * (8 + math.sqrt(129)) * u * gauge
    assert ((d.double() - ref).abs() <= bound).all()


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="one CUDA device")
def test_second_device():
    dev1 = torch.device("cuda", 1)
    g = torch.Generator(device=dev1).manual_seed(SEED)
    a = (torch.rand((64, 32), generator=g, device=dev1) - 0.5).half()
    b = (torch.rand((32, 40), generator=g, device=dev1) - 0.5).half()
    d = gemmkit.matmul(a, b)
    assert d.device == dev1
    check(d, a, b)


if __name__ == "__main__":
    sys.exit(pytest.main(globals()))
