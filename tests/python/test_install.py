"""`pip install ./python` offline (--no-build-isolation: Debian's setuptools, no download)
gives a package that carries the library and imports outside the tree."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_pip_install_offline(tmp_path):
    pytest.importorskip("numpy")
    # (asked in a child: importing setuptools into pytest's process trips its distutils shim)
    if subprocess.run([sys.executable, "-c", "import setuptools, pip"]).returncode != 0:
        pytest.skip("pip or setuptools is not installed for " + sys.executable)
    if not os.path.exists(os.path.join(ROOT, "build", "libgemmkit.so")) and not os.environ.get(
            "GEMMKIT_LIBRARY"):
        pytest.skip("no library to package")
    target = tmp_path / "site"
    build = tmp_path / "build"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
                    "--no-deps", "--target", str(target), "--cache-dir", str(tmp_path / "cache"),
                    os.path.join(ROOT, "python")], check=True, env=env, cwd=str(build.parent))
    env.pop("GEMMKIT_LIBRARY", None)
    env["PYTHONPATH"] = str(target)
    code = ("import numpy as np, gemmkit; a = np.arange(6.0).reshape(2, 3); "
            "assert (gemmkit.matmul(a, a.T) == a @ a.T).all(); print(gemmkit.library_path)")
    r = subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=str(tmp_path),
                       capture_output=True, text=True)
    assert r.stdout.strip().startswith(str(target))
