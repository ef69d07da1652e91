"""gemmkit from Python, end to end: a GEMM on numpy arrays (transposed views and a batch taken
as they are), an error, the model, and a small benchmark against numpy.matmul (and
torch.matmul on CUDA tensors when torch and a GPU are there) printing the ratio.

    python3 python/examples/matmul.py [--sizes 64,256,512] [--dtype f32] [--reps 20]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

import gemmkit  # noqa: E402


def best_s(f, reps):
    f()  # warm up: planner, first-touch of the output
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts)


def tour():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 200), dtype=np.float32)
    b = rng.standard_normal((100, 200), dtype=np.float32)
    d = gemmkit.matmul(a, b.T)  # b.T: a column-major view, no copy
    print("matmul(a, b.T): max |d - a @ b.T| = %.2e" % np.abs(d - a @ b.T).max())
    c = np.ones((300, 100), np.float32)
    gemmkit.gemm(a, b, c, alpha=2.0, beta=0.5, trans_b=True, out=c)  # in place, BLAS style
    batch = rng.standard_normal((8, 300, 200), dtype=np.float32)
    print("batched matmul (8, 300, 200) @ (200, 100) ->", gemmkit.matmul(batch, b.T).shape)
    try:
        gemmkit.matmul(a, b)
    except gemmkit.GemmError as e:  # a ValueError too: an argument error
        print("error: arg=%r position=%d: %s" % (e.arg, e.position, e))
    led = gemmkit.ledger(4096, 4096, 4096, "bf16", machine="h200")
    print("ledger 4096^3 bf16 on h200: %s-bound, floor %.3f ms, %s"
          % (led["bound"], led["t_floor_s"] * 1e3, led["prediction"]["tile"]))
    ex = gemmkit.explain(16, 4096, 4096, "f32")
    print("explain 16x4096x4096 f32: %s (%s)" % (ex["kernel"], ex["variant"]))


def bench_numpy(sizes, dtype, reps):
    np_dt = {"f32": np.float32, "f64": np.float64}[dtype]
    rng = np.random.default_rng(1)
    print("\n%-6s %-16s %12s %12s %10s %8s" % ("dtype", "m x n x k", "gemmkit ms", "numpy ms",
                                              "GFLOP/s", "ratio"))
    for s in sizes:
        a = rng.standard_normal((s, s)).astype(np_dt)
        b = rng.standard_normal((s, s)).astype(np_dt)
        out = np.empty((s, s), np_dt)
        tg = best_s(lambda: gemmkit.gemm(a, b, out=out), reps)
        tn = best_s(lambda: np.matmul(a, b, out=out), reps)
        print("%-6s %-16s %12.3f %12.3f %10.1f %7.2fx" % (dtype, "%d^3" % s, tg * 1e3, tn * 1e3,
                                                          2.0 * s**3 / tg / 1e9, tn / tg))
    print("ratio = numpy.matmul time / gemmkit time (> 1: gemmkit faster); numpy's BLAS: %s"
          % _numpy_blas())


def _numpy_blas():
    try:
        cfg = np.show_config(mode="dicts")  # numpy >= 1.26
        return cfg["Build Dependencies"]["blas"]["name"]
    except Exception:
        return "see numpy.show_config()"


def bench_torch_cuda(sizes, reps):
    try:
        import torch
    except ImportError:
        return
    if not torch.cuda.is_available() or not gemmkit.kernels("cuda.*"):
        return
    print("\n%-6s %-16s %12s %12s %10s %8s" % ("dtype", "m x n x k", "gemmkit ms", "torch ms",
                                              "TFLOP/s", "ratio"))
    for s in sizes:
        a = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(s, s, device="cuda", dtype=torch.bfloat16)

        def timed(f):
            f()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
            start.record()
            for _ in range(reps):
                f()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / reps / 1e3

        tg = timed(lambda: gemmkit.gemm(a, b, out=out))
        tt = timed(lambda: torch.matmul(a, b, out=out))
        print("%-6s %-16s %12.3f %12.3f %10.1f %7.2fx" % ("bf16", "%d^3" % s, tg * 1e3, tt * 1e3,
                                                          2.0 * s**3 / tg / 1e12, tt / tg))
    print("ratio = torch.matmul time / gemmkit time (> 1: gemmkit faster)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="64,256,512")
    ap.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print("gemmkit", gemmkit.__version__, "library", gemmkit.library_path)
    tour()
    bench_numpy(sizes, args.dtype, args.reps)
    bench_torch_cuda([max(s, 1024) for s in sizes], args.reps)


if __name__ == "__main__":
    main()
