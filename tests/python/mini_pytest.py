"""The few pieces of pytest that test_torch_cuda.py uses, for a machine whose Python has torch
but no pytest (and nothing to download it from): run the file directly,
    python3 tests/python/test_torch_cuda.py
and it runs its tests with this runner, printing pytest's closing line."""

import contextlib
import itertools
import sys
import traceback


class Skipped(Exception):
    pass


def importorskip(name):
    try:
        return __import__(name)
    except ImportError as e:
        skip("could not import %r: %s" % (name, e), allow_module_level=True)


def skip(reason, allow_module_level=False):
    if allow_module_level:  # (only ever at the top of the file here): the whole file skips
        print("SKIPPED: %s\n0 passed, 0 failed, 1 skipped" % reason)
        sys.exit(0)
    raise Skipped(reason)


class _Raises:
    value = None


@contextlib.contextmanager
def raises(exc):
    r = _Raises()
    try:
        yield r
    except exc as e:
        r.value = e
        return
    raise AssertionError("DID NOT RAISE %s" % exc)


class mark:
    @staticmethod
    def parametrize(names, values):
        def deco(f):
            f.__dict__.setdefault("params", []).insert(0, ([n.strip() for n in names.split(",")],
                                                           values))
            return f
        return deco

    @staticmethod
    def skipif(cond, reason=""):
        def deco(f):
            if cond:
                f.skip_reason = reason
            return f
        return deco


def main(namespace):
    """Runs every test_* function of a module namespace, each parameter combination once."""
    passed = failed = skipped = 0
    for name, f in list(namespace.items()):
        if not (name.startswith("test_") and callable(f)):
            continue
        groups = getattr(f, "params", [])
        for combo in itertools.product(*[vals for _, vals in groups]):
            kw = {}
            for (names, _), v in zip(groups, combo):
                kw.update(zip(names, v if len(names) > 1 else (v,)))
            label = "%s[%s]" % (name, "-".join(str(v) for v in kw.values())) if kw else name
            try:
                if getattr(f, "skip_reason", None):
                    raise Skipped(f.skip_reason)
                f(**kw)
                passed += 1
            except Skipped as e:
                skipped += 1
                print("SKIPPED %s: %s" % (label, e))
            except Exception:
                failed += 1
                print("FAILED %s" % label)
                traceback.print_exc()
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0
