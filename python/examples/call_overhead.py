"""The per-call overhead of gemmkit's Python binding over its C++ call, on the CPU: one small
GEMM (n x n x n f32, row-major) called many times, best of R runs of N calls each, the C++
program (call_overhead.cpp, built here with g++ when it is not given) and the Python loops in
alternation so that both see the same machine.

    python3 python/examples/call_overhead.py [--n 8] [--calls 20000] [--runs 9] [--cpp BINARY]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import gemmkit  # noqa: E402
from gemmkit import _lib, _operands  # noqa: E402


def build_cpp(lib):
    out = os.path.join(tempfile.mkdtemp(), "call_overhead")
    libdir = os.path.dirname(os.path.realpath(lib))
    subprocess.run(["g++", "-O2", "-std=c++20", "-I", os.path.join(ROOT, "include"),
                    os.path.join(HERE, "call_overhead.cpp"), "-L", libdir, "-lgemmkit",
                    "-Wl,-rpath," + libdir, "-o", out], check=True)
    return out


def cpp_ns(exe, n, calls):
    r = subprocess.run([exe, str(n), str(calls)], check=True, capture_output=True, text=True)
    vals = dict(line.split()[:2] for line in r.stdout.splitlines() if "_ns " in line)
    return float(vals["cpp_gemm_ns"]), float(vals["c_abi_gemm_ns"])


def py_ns(f, calls):
    for _ in range(200):
        f()
    t = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t) / calls * 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--cpp", help="a built call_overhead binary")
    args = ap.parse_args()
    n = args.n
    exe = args.cpp or build_cpp(gemmkit.library_path)
    a = np.ones((n, n), np.float32)
    b = np.ones((n, n), np.float32)
    out = np.empty((n, n), np.float32)
    mat = (_lib.DTYPE_CODES["f32"], _lib.ROW_MAJOR, n, 0)
    packed = _lib.pack_problem(n, n, n, 1, False, False, 0, mat, mat, mat, mat,
                               backend=_lib.BACKEND_CODES["cpu"])
    st = _lib.status()
    pa, pb, pd = (_operands.data_pointer(x) for x in (a, b, out))
    loops = {
        "gemmkit.gemm(a, b, out=out)": lambda: gemmkit.gemm(a, b, out=out),
        "gemmkit.matmul(a, b)": lambda: gemmkit.matmul(a, b),
        "ctypes gemmkit_gemm, packed": lambda: _lib.gemm(packed, pa, pb, None, pd, 1.0, 0.0, st),
        "numpy.matmul(a, b)": lambda: np.matmul(a, b),
    }
    best = {k: float("inf") for k in list(loops) + ["C++ gemmkit::gemm", "C gemmkit_gemm"]}
    for _ in range(args.runs):
        cpp, cabi = cpp_ns(exe, n, args.calls)
        best["C++ gemmkit::gemm"] = min(best["C++ gemmkit::gemm"], cpp)
        best["C gemmkit_gemm"] = min(best["C gemmkit_gemm"], cabi)
        for k, f in loops.items():
            best[k] = min(best[k], py_ns(f, args.calls))
    assert (out == n).all()
    base = best["C++ gemmkit::gemm"]
    print("%d x %d x %d f32, best of %d runs of %d calls; library %s"
          % (n, n, n, args.runs, args.calls, gemmkit.library_path))
    for k, v in best.items():
        print("%-32s %8.0f ns/call   %+7.0f ns over C++" % (k, v, v - base))


if __name__ == "__main__":
    main()
