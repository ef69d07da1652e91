"""Copies libgemmkit next to the package when it is built (see pyproject.toml): the tree's
build/libgemmkit.so, or the file $GEMMKIT_LIBRARY names. Without either, the installed package
looks for the library at import time (GEMMKIT_LIBRARY, then the system loader)."""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class build_py_with_library(build_py):
    def run(self):
        super().run()
        src = os.environ.get("GEMMKIT_LIBRARY") or os.path.join(
            HERE, "..", "build", "libgemmkit.so")
        if os.path.exists(src):
            dst = os.path.join(self.build_lib, "gemmkit", "libgemmkit.so")
            shutil.copyfile(os.path.realpath(src), dst)
            print("gemmkit: packaged %s" % os.path.realpath(src))
        else:
            print("gemmkit: no libgemmkit at %s; set GEMMKIT_LIBRARY at run time" % src)


setup(cmdclass={"build_py": build_py_with_library})
