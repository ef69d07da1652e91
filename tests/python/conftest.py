# pytest for the Python package: the package of this tree (python/), the library of this tree
# (build/libgemmkit.so, or GEMMKIT_LIBRARY).
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
