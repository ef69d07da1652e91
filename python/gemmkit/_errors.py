"""gemmkit's Status as Python exceptions."""

from . import _lib

# Positions (gemmkit::Arg, netlib's XERBLA numbering extended) of the Python arguments, for
# errors the package finds before it calls the library.
POSITIONS = {
    "trans_a": 1,
    "trans_b": 2,
    "m": 3,
    "n": 4,
    "k": 5,
    "alpha": 6,
    "a": 7,
    "b": 9,
    "beta": 11,
    "c": 12,
    "out": 14,
    "batch": 16,
    "layout": 21,
    "dtype_a": 22,
    "dtype_b": 23,
    "dtype_c": 24,
    "dtype_d": 25,
    "out_dtype": 25,
    "compute": 26,
    "workspace": 27,
    "backend": 28,
    "kernel": 29,
}
# The dtype position of each operand argument.
DTYPE_POSITIONS = {"a": 22, "b": 23, "c": 24, "out": 25}


class GemmError(Exception):
    """A gemmkit call failed. `code` is the library's status name ("InvalidValue",
    "NotSupported", ...), `arg` the argument's name ("" when the failure is not about one),
    `position` its 1-based position in netlib's numbering (0 for none)."""

    def __init__(self, message, *, code="InvalidValue", arg="", position=0):
        super().__init__(message)
        self.message = message
        self.code = code
        self.arg = arg
        self.position = position


class GemmArgumentError(GemmError, ValueError):
    """An illegal argument (status InvalidValue): also a ValueError."""


def argument_error(arg, message, position=None):
    """An argument error found by the package itself, before any library call."""
    if position is None:
        position = POSITIONS.get(arg, 0)
    where = "argument %d: %s" % (position, arg) if position else arg
    return GemmArgumentError(
        "InvalidValue (%s): %s" % (where, message), arg=arg, position=position
    )


def from_status(st):
    """The exception for a failed library call's gemmkit_status."""
    code = _lib.STATUS_NAMES[st.code] if 0 <= st.code < len(_lib.STATUS_NAMES) else "Unknown"
    message = (st.message or b"").decode("utf-8", "replace")
    arg = (st.arg_name or b"").decode("utf-8", "replace")
    cls = GemmArgumentError if code == "InvalidValue" else GemmError
    return cls(message, code=code, arg=arg, position=st.arg)
