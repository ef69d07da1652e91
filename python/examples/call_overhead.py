"""The per-call overhead of gemmkit's Python binding over its C++ call, on the CPU: one small
GEMM (n x n x n f32, row-major) called many times, best of R runs of N calls each, the C++
program (call_overhead.cpp, built here with g++ when it is not given) and the Python loops in
alternation so that both see the same machine. Two clocks: wall time, and the calling
thread's CPU time (on a shared, loaded machine the wall time of both sides stretches with
the share of a core the process gets; the thread's CPU time much less).

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
    """{name: (wall ns, thread CPU ns)} of the C++ program's loops."""
    r = subprocess.run([exe, str(n), str(calls)], check=True, capture_output=True, text=True)
    return {line.split()[0]: (float(line.split()[1]), float(line.split()[2]))
            for line in r.stdout.splitlines() if "_ns " in line}


def py_ns(f, calls):
    """(wall ns, thread CPU ns) per call of a Python loop."""
    for _ in range(200):
        f()
    c = time.thread_time()
    t = time.perf_counter()
    for _ in range(calls):
        f()
    t = time.perf_counter() - t
    c = time.thread_time() - c
    return t / calls * 1e9, c / calls * 1e9


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
    try:  # torch tensors on the CPU, when torch is there
        import torch

        ta, tb, tout = (torch.from_numpy(x) for x in (a, b, out))
        loops["gemmkit.gemm on torch CPU tensors"] = lambda: gemmkit.gemm(ta, tb, out=tout)
        loops["torch.matmul(a, b, out=out)"] = lambda: torch.matmul(ta, tb, out=tout)
    except ImportError:
        pass
    inf = (float("inf"), float("inf"))
    best = {k: inf for k in ["C++ gemmkit::gemm", "C gemmkit_gemm"] + list(loops)}

    def keep(k, v):
        best[k] = (min(best[k][0], v[0]), min(best[k][1], v[1]))

    for _ in range(args.runs):
        cpp = cpp_ns(exe, n, args.calls)
        keep("C++ gemmkit::gemm", cpp["cpp_gemm_ns"])
        keep("C gemmkit_gemm", cpp["c_abi_gemm_ns"])
        for k, f in loops.items():
            keep(k, py_ns(f, args.calls))
    assert (out == n).all()
    base = best["C++ gemmkit::gemm"]
    print("%d x %d x %d f32, best of %d runs of %d calls; load average %s; library %s"
          % (n, n, n, args.runs, args.calls, " ".join("%.1f" % x for x in os.getloadavg()),
             gemmkit.library_path))
    print("%-36s %10s %10s %12s %12s" % ("ns per call", "wall", "thread CPU", "wall - C++",
                                         "CPU - C++"))
    for k, (w, c) in best.items():
        print("%-36s %10.0f %10.0f %+12.0f %+12.0f" % (k, w, c, w - base[0], c - base[1]))

if __name__ == "__main__":
    main()
