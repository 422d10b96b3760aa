"""Unpickling that runs no code and whose memory and time stay bounded by the size of the file.

``pickle.load`` runs code embedded in a file (``__reduce__``), and even without code a small
pickle can describe far more data than it holds: nested lists that share one another (a 250 KB
file expanding to 10^12 floats), calls such as ``bytes(10**13)``, array headers declaring
petabytes, dictionary keys whose hashing takes hours. Two documented mechanisms of the standard
library keep that out:

1. **Before anything is built**, :func:`pickletools.genops` reads the opcodes (without running
   them) and :class:`_Scan` follows the stack and memo they describe:

   * opcodes that construct arbitrary objects (``NEWOBJ``, ``INST``, ``OBJ``), the extension
     registry, persistent ids and out-of-band buffers are refused, and so is any global outside
     the allow-list;
   * every container gets its *expanded size* — how many objects it stands for when shared
     references are followed — and its nesting depth; above ``max_elements`` or
     :data:`~pipeline.limits.MAX_PICKLE_DEPTH` the file is refused, and a container may not grow
     after it became an item of another one (which would hide its growth);
   * dictionary keys and set elements must be strings or bytes, whose hashing is linear in their
     length and randomised (no hash-collision or nested-tuple hashing blow-up);
   * the state given to a NumPy object array must list exactly as many items as its shape
     declares (NumPy's ``__setstate__`` does not check, and reads past the list).

2. **Then** :class:`pickle.Unpickler` loads the file, its :meth:`~RestrictedUnpickler.find_class`
   resolving each allowed global to a stand-in that checks its arguments before it runs. Bytes,
   arrays and scalars built from the file may together hold at most as many bytes as the stream
   (plus 1 MiB), and no read may ask for more bytes than the stream has left.

The allow-list is what pickling the protocols' files needs with the pinned NumPy (1.x and 2.x
module names): ``numpy.ndarray`` and its reconstruction functions, ``numpy.dtype``, NumPy scalars,
and for pickle protocols 0-3 ``set``, ``complex``, ``slice``, ``bytes``,
``collections.OrderedDict`` and ``_codecs.encode`` (protocol 2 stores bytes as latin-1 text).
The NumPy functions are taken from NumPy's own ``__reduce_ex__`` results, so no private NumPy
module is imported.
"""

from __future__ import annotations

import codecs
import collections
import io
import math
import pickle
import pickletools
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..errors import DataError
from ..limits import DEFAULT_PROTOCOL_MAX_ELEMENTS, MAX_PICKLE_DEPTH

BYTE_SLACK = 2 ** 20    # headroom for the small objects of a tiny stream

# NumPy's reconstruction functions, as NumPy itself names them in the pickles it writes
_RECONSTRUCT = np.empty(0).__reduce__()[0]
_FROMBUFFER = np.empty(1).__reduce_ex__(5)[0]     # protocol 5: a contiguous array from its buffer
_SCALAR = np.float64(0).__reduce__()[0]


class _NdarrayToken:
    """What ``numpy.ndarray`` resolves to: an argument of ``_reconstruct`` that cannot be called
    (calling the real class would allocate any declared shape)."""


_NDARRAY = _NdarrayToken()

#: (module, name) of every allowed global -> name of the RestrictedUnpickler method standing in
#: for it (None: the ndarray token). Protocols 0-2 spell the builtins ``__builtin__``.
ALLOWED_GLOBALS = {
    **{(module, name): f"_make_{name}" for module in ("builtins", "__builtin__")
       for name in ("set", "complex", "slice", "bytes")},
    ("collections", "OrderedDict"): "_make_ordered_dict",
    ("_codecs", "encode"): "_make_latin1",
    ("numpy", "ndarray"): None,
    ("numpy", "dtype"): "_make_dtype",
    **{(f"{package}.{module}", name): stand_in for package in ("numpy.core", "numpy._core")
       for module, name, stand_in in (("multiarray", "_reconstruct", "_make_array"),
                                      ("multiarray", "scalar", "_make_scalar"),
                                      ("numeric", "_frombuffer", "_make_array_from_buffer"))},
}
_CONTAINER_CALLS = {"_make_set": "set", "_make_ordered_dict": "dict"}  # what a REDUCE of them builds
_ARRAY_CALLS = {"_make_array"}  # arrays whose state BUILD sets

_CORRUPT = (EOFError, ValueError, TypeError, AttributeError, LookupError, OverflowError,
            MemoryError, RecursionError, struct.error)


def _refuse(message: str):
    raise pickle.UnpicklingError(message)


def _allowed_global(module: str, name: str) -> str | None:
    """The stand-in of an allowed global; any other global is refused."""
    if (module, name) in ALLOWED_GLOBALS:
        return ALLOWED_GLOBALS[(module, name)]
    if module.split(".")[0] == "torch":
        _refuse(f"refusing torch object {module}.{name}: save numpy arrays instead")
    _refuse(f"refusing to load global {module}.{name}: only numpy arrays, dtypes, scalars, "
            "dicts, lists, tuples, numbers and strings are allowed")


class _BoundedReader:
    """A read-only view of ``handle`` that refuses reads beyond the ``remaining`` bytes."""

    def __init__(self, handle: BinaryIO, remaining: int):
        self.handle, self.remaining = handle, remaining

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = self.remaining
        if size > self.remaining:
            _refuse(f"the pickle asks for {size:,} bytes but only {self.remaining:,} remain "
                    "(truncated or hostile file)")
        data = self.handle.read(size)
        self.remaining -= len(data)
        return data

    def readline(self, size: int = -1) -> bytes:
        line = self.handle.readline(self.remaining)
        self.remaining -= len(line)
        return line


def _count(shape) -> int:
    """Element count of a declared shape (a non-negative int or a tuple of them)."""
    dims = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        _refuse(f"invalid array shape {shape!r:.80}")
    return math.prod(dims)


# ---- 1. the scan: what the opcodes would build, before anything is built ---------------------

_TEXT_OPCODES = {"STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "SHORT_BINUNICODE",
                 "BINUNICODE", "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8"}
_INT_OPCODES = {"INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4"}
_LEAF_OPCODES = {"NONE", "NEWTRUE", "NEWFALSE", "FLOAT", "BINFLOAT", "BYTEARRAY8"}
_EMPTY_CONTAINERS = {"EMPTY_LIST": "list", "EMPTY_DICT": "dict", "EMPTY_SET": "set",
                     "EMPTY_TUPLE": "tuple"}
_MARK_CONTAINERS = {"LIST": "list", "TUPLE": "tuple", "DICT": "dict", "FROZENSET": "frozenset"}
_SMALL_TUPLES = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}
_ADDERS = {"APPEND": ("list", False), "APPENDS": ("list", True), "SETITEM": ("dict", False),
           "SETITEMS": ("dict", True), "ADDITEMS": ("set", True)}
_MEMO_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_MEMO_GETS = {"GET", "BINGET", "LONG_BINGET"}
_NO_STACK_EFFECT = {"PROTO", "FRAME", "STOP"}
_REFUSED = {
    **dict.fromkeys(("NEWOBJ", "NEWOBJ_EX", "INST", "OBJ"),
                    "refusing object-construction opcode (only plain containers, numbers, "
                    "strings and numpy arrays may be pickled)"),
    **dict.fromkeys(("EXT1", "EXT2", "EXT4"), "refusing extension-registry opcode"),
    **dict.fromkeys(("PERSID", "BINPERSID"), "refusing persistent id in pickle (torch archive?)"),
    **dict.fromkeys(("NEXT_BUFFER", "READONLY_BUFFER"), "refusing out-of-band buffer"),
}
_SHORT_TEXT = 256  # text values kept by the scan (global names); longer ones only by length
#: opcode name -> the _Scan method that follows it (any other opcode is refused)
_HANDLERS = {
    **dict.fromkeys(_TEXT_OPCODES, "_push_text"), **dict.fromkeys(_INT_OPCODES, "_push_int"),
    **dict.fromkeys(_LEAF_OPCODES, "_push_leaf"), **dict.fromkeys(_EMPTY_CONTAINERS, "_push_empty"),
    **dict.fromkeys(_MARK_CONTAINERS, "_build_from_mark"), **dict.fromkeys(_SMALL_TUPLES, "_push_small_tuple"),
    **dict.fromkeys(_ADDERS, "_add"), **dict.fromkeys(_MEMO_PUTS | {"MEMOIZE"}, "_memo_put"),
    **dict.fromkeys(_MEMO_GETS, "_memo_get"), **dict.fromkeys(("GLOBAL", "STACK_GLOBAL"), "_global"),
    **dict.fromkeys(_NO_STACK_EFFECT, "_no_stack_effect"),
    "MARK": "_mark", "POP": "_pop_one", "POP_MARK": "_pop_to_mark", "DUP": "_dup",
    "REDUCE": "_reduce", "BUILD": "_build",
}


@dataclass(eq=False, slots=True)
class _Item:
    """What one stack entry stands for: its kind, expanded size and depth, and for the few
    values the checks read (ints, short texts, globals, tuple items) the value itself."""

    kind: str                 # "text", "int", "leaf", "global", "array", "dtype" or a container type
    size: int = 1
    depth: int = 0
    value: object = None      # int value, short text, or the stand-in of a global
    items: list | None = None  # a tuple's items (an array's state is read from them)
    length: int = 0           # number of items of a container, or of bytes of a text
    held: bool = False        # became an item of another container: may not grow any more
    built: bool = False       # an array whose state was set


_MARK = object()


class _Scan:
    """Follow the opcodes of a pickle on a symbolic stack (see the module docstring, part 1)."""

    def __init__(self, max_elements: int):
        self.max_elements = max_elements
        self.copied = 0        # objects copied by container calls (set([...]), ...)
        self.array_bytes = 0   # data bytes given to arrays by BUILD
        self.stack: list = []
        self.memo: dict = {}

    def run(self, reader: _BoundedReader) -> None:
        handlers = {name: getattr(self, method) for name, method in _HANDLERS.items()}
        for opcode, arg, _ in pickletools.genops(reader):
            handler = handlers.get(opcode.name)
            if handler is None:
                _refuse(_REFUSED.get(opcode.name, f"unsupported opcode {opcode.name}"))
            handler(opcode.name, arg)

    def _push_text(self, name: str, arg) -> None:
        self.stack.append(_Item("text", value=arg if len(arg) <= _SHORT_TEXT else None, length=len(arg)))

    def _push_int(self, name: str, arg) -> None:
        self.stack.append(_Item("int", value=arg))

    def _push_leaf(self, name: str, arg) -> None:
        self.stack.append(_Item("leaf", length=len(arg) if name == "BYTEARRAY8" else 0))

    def _push_empty(self, name: str, arg) -> None:
        self.stack.append(self._container(_EMPTY_CONTAINERS[name], []))

    def _push_small_tuple(self, name: str, arg) -> None:
        self.stack.append(self._container("tuple", self._pop(_SMALL_TUPLES[name])))

    def _mark(self, name: str, arg) -> None:
        self.stack.append(_MARK)

    def _pop_one(self, name: str, arg) -> None:
        self._pop(1, marks=True)

    def _pop_to_mark(self, name: str, arg) -> None:
        self._pop_mark()

    def _dup(self, name: str, arg) -> None:
        self.stack.append(self._top())

    def _memo_put(self, name: str, arg) -> None:
        self.memo[len(self.memo) if name == "MEMOIZE" else arg] = self._top()

    def _memo_get(self, name: str, arg) -> None:
        if arg not in self.memo:
            _refuse(f"memo key {arg!r:.20} not found")
        self.stack.append(self.memo[arg])

    def _global(self, name: str, arg) -> None:
        if name == "GLOBAL":
            module, _, attribute = arg.partition(" ")
        else:
            module, attribute = (item.value for item in self._pop(2))
            if not (isinstance(module, str) and isinstance(attribute, str)):
                _refuse("STACK_GLOBAL needs two short strings")
        self.stack.append(_Item("global", value=_allowed_global(module, attribute)))

    def _no_stack_effect(self, name: str, arg) -> None:
        pass

    # ---- stack -------------------------------------------------------------------------------

    def _top(self) -> _Item:
        if not self.stack or self.stack[-1] is _MARK:
            _refuse("corrupt pickle: the stack is empty")
        return self.stack[-1]

    def _pop(self, n: int, marks: bool = False) -> list:
        items = self.stack[len(self.stack) - n:] if n <= len(self.stack) else None
        if items is None or (not marks and any(item is _MARK for item in items)):
            _refuse("corrupt pickle: the stack holds too few items")
        del self.stack[len(self.stack) - n:]
        return items

    def _pop_mark(self) -> list:
        for position in range(len(self.stack) - 1, -1, -1):
            if self.stack[position] is _MARK:
                items = self.stack[position + 1:]
                del self.stack[position:]
                return items
        _refuse("corrupt pickle: no mark on the stack")

    # ---- containers ----------------------------------------------------------------------------

    def _container(self, kind: str, items: list) -> _Item:
        container = _Item(kind, depth=1)
        if kind == "tuple":
            container.items = items
        self._grow(container, items)
        return container

    def _build_from_mark(self, name: str, arg) -> None:
        kind = _MARK_CONTAINERS[name]
        items = self._pop_mark()
        if kind == "dict":
            self._check_keys(items[0::2])
        elif kind == "frozenset":
            self._check_keys(items)
        self.stack.append(self._container(kind, items))

    def _add(self, name: str, arg) -> None:
        kind, from_mark = _ADDERS[name]
        items = self._pop_mark() if from_mark else self._pop(2 if kind == "dict" else 1)
        target = self._top()
        if target.kind != kind:
            _refuse(f"cannot add items to {target.kind}")
        self._check_keys(items[0::2] if kind == "dict" else items if kind == "set" else [])
        self._grow(target, items)

    def _grow(self, container: _Item, items: list) -> None:
        if container.held:
            _refuse("a container changes after it became part of another one "
                    "(a shared-reference blow-up)")
        container.length += len(items)
        for item in items:
            container.size += item.size
            container.depth = max(container.depth, item.depth + 1)
            item.held = True
        if container.size > self.max_elements:
            _refuse(f"a container expands to more than {self.max_elements:,} objects through "
                    "shared references (raise --max-elements if the file is genuine)")
        if container.depth > MAX_PICKLE_DEPTH:
            _refuse(f"containers nest deeper than {MAX_PICKLE_DEPTH} levels")

    @staticmethod
    def _check_keys(keys: list) -> None:
        if not all(key.kind == "text" for key in keys):
            _refuse("dictionary keys and set elements must be strings")

    # ---- calls and state ---------------------------------------------------------------------

    def _reduce(self, name: str, arg) -> None:
        func, args = self._pop(2)
        if func.kind != "global" or func.value is None:
            _refuse(f"refusing to call {func.kind}")
        if args.kind != "tuple":
            _refuse("call arguments must be a tuple")
        if func.value in _CONTAINER_CALLS:
            result = self._container(_CONTAINER_CALLS[func.value], args.items[:1])
            self.copied += result.size
            if self.copied > self.max_elements:
                _refuse(f"calls in the pickle copy more than {self.max_elements:,} objects")
        elif func.value in _ARRAY_CALLS:
            result = _Item("array")
        elif func.value == "_make_dtype":
            result = _Item("dtype")
        elif func.value in ("_make_bytes", "_make_latin1"):  # bytes: may be a key or array data
            result = _Item("text", length=sum(arg.length for arg in args.items[:1]))
        else:
            result = _Item("leaf")
        self.stack.append(result)

    def _build(self, name: str, arg) -> None:
        (state,) = self._pop(1)
        target = self._top()
        if target.kind == "dtype" and state.kind == "tuple":
            return
        if target.kind != "array":
            _refuse(f"refusing to set the state of {target.kind}")
        if target.built:
            _refuse("an array's state is set twice")
        target.built = True
        if state.kind != "tuple" or len(state.items) not in (4, 5):
            _refuse("invalid numpy array state")
        shape, data = state.items[-4], state.items[-1]
        if data.kind == "text":
            self.array_bytes += data.length
        elif data.kind == "list":
            dims = tuple(dim.value for dim in shape.items) if shape.kind == "tuple" else shape.value
            count = _count(dims)
            if data.length != count:
                _refuse(f"object array declares {count:,} items but holds {data.length:,}")
            self._grow(target, [data])
        else:
            _refuse("invalid numpy array state: its data is neither bytes nor a list")


# ---- 2. the load: pickle.Unpickler with an allow-list of checked globals -----------------------

class RestrictedUnpickler(pickle.Unpickler):
    """Unpickle only allow-listed, size-checked objects (see the module docstring).

    Parameters
    ----------
    handle : binary file
        Seekable, positioned at the start of the pickle (it is read twice: scanned, then loaded).
    stream_bytes : int
        Bytes left in ``handle``: no read may exceed them, and bytes built from the pickle may
        total at most ``stream_bytes`` + 1 MiB.
    max_elements : int
        Largest expanded size of any container.
    """

    def __init__(self, handle: BinaryIO, stream_bytes: int,
                 max_elements: int = DEFAULT_PROTOCOL_MAX_ELEMENTS):
        self.handle, self.start, self.stream_bytes = handle, handle.tell(), stream_bytes
        self.reader = _BoundedReader(handle, stream_bytes)
        super().__init__(self.reader)
        self.max_elements = max_elements
        self.bytes_left = stream_bytes + BYTE_SLACK

    def load(self):
        scan = _Scan(self.max_elements)
        scan.run(self.reader)
        self._spend_bytes(scan.array_bytes)
        self.handle.seek(self.start)
        self.reader.remaining = self.stream_bytes
        return super().load()

    def find_class(self, module: str, name: str):
        stand_in = _allowed_global(module, name)
        return _NDARRAY if stand_in is None else getattr(self, stand_in)

    def persistent_load(self, pid):
        _refuse("refusing persistent id in pickle (torch archive?)")

    def _spend_bytes(self, count: int) -> None:
        self.bytes_left -= count
        if self.bytes_left < 0:
            _refuse("the pickle builds more bytes than the file holds "
                    "(a shared-reference or declared-size blow-up)")

    # ---- stand-ins of the allowed globals: check the arguments, then build -------------------

    @staticmethod
    def _make_set(*args):
        if len(args) > 1 or (args and not isinstance(args[0], (list, tuple, set, frozenset))):
            _refuse("set() needs a list of strings")
        if args and not all(isinstance(key, (str, bytes)) for key in args[0]):
            _refuse("dictionary keys and set elements must be strings")
        return set(*args)

    @staticmethod
    def _make_ordered_dict(*args):
        if args:  # protocol 2+ writes OrderedDict() and then sets its items
            _refuse("collections.OrderedDict() accepts no arguments here")
        return collections.OrderedDict()

    @staticmethod
    def _make_complex(*args):
        if len(args) > 2 or not all(type(arg) in (bool, int, float) for arg in args):
            _refuse("complex() accepts only numbers here")
        return complex(*args)

    @staticmethod
    def _make_slice(*args):
        if len(args) > 3 or not all(arg is None or type(arg) is int for arg in args):
            _refuse("slice() accepts only integers and None")
        return slice(*args)

    def _make_bytes(self, *args):
        if len(args) > 1 or (args and type(args[0]) not in (bytes, bytearray)):
            _refuse("bytes() accepts only a bytes value here")
        self._spend_bytes(len(args[0]) if args else 0)
        return bytes(*args)

    def _make_latin1(self, *args):
        if len(args) != 2 or type(args[0]) is not str or args[1] not in ("latin1", "latin-1"):
            _refuse("_codecs.encode is allowed only as encode(text, 'latin1')")
        self._spend_bytes(len(args[0]))
        return codecs.encode(args[0], "latin-1")

    @staticmethod
    def _make_dtype(*args):
        # the copy flag must be set: a canonical dtype such as float64 is shared process-wide,
        # and BUILD would otherwise change it
        if (len(args) != 3 or type(args[0]) is not str or len(args[0]) > 64
                or type(args[1]) is not bool or args[2] is not True):
            _refuse("numpy.dtype() accepts (type string, align flag, True) only")
        return np.dtype(*args)

    def _make_array(self, *args):
        if len(args) != 3 or args[0] is not _NDARRAY or type(args[2]) not in (bytes, str):
            _refuse("numpy _reconstruct accepts (numpy.ndarray, shape, typecode)")
        self._spend_bytes(_count(args[1]) * np.dtype(args[2]).itemsize)
        return _RECONSTRUCT(np.ndarray, args[1], args[2])

    def _make_scalar(self, *args):
        if (len(args) != 2 or not isinstance(args[0], np.dtype) or args[0].hasobject
                or type(args[1]) is not bytes or len(args[1]) != args[0].itemsize):
            _refuse("numpy scalar() accepts a dtype and exactly its bytes")
        self._spend_bytes(len(args[1]))
        return _SCALAR(*args)

    @staticmethod
    def _make_array_from_buffer(*args):
        if not 4 <= len(args) <= 5:
            _refuse("numpy _frombuffer accepts (buffer, dtype, shape, order[, axes])")
        buffer, dtype, shape = args[:3]
        if (not isinstance(buffer, (bytes, bytearray)) or not isinstance(dtype, np.dtype)
                or dtype.hasobject or _count(shape) * dtype.itemsize != len(buffer)):
            _refuse("numpy _frombuffer: buffer size does not match the declared shape and dtype")
        return _FROMBUFFER(*args)


def restricted_load(handle: BinaryIO, file: str | Path = "<stream>", *,
                    stream_bytes: int, max_elements: int = DEFAULT_PROTOCOL_MAX_ELEMENTS):
    """Unpickle the next ``stream_bytes`` bytes of ``handle`` with :class:`RestrictedUnpickler`.

    Every refusal and every sign of a corrupt stream becomes a one-line :class:`DataError`.
    """
    try:
        return RestrictedUnpickler(handle, stream_bytes, max_elements).load()
    except pickle.UnpicklingError as exc:
        raise DataError(f"unsafe or unreadable pickle: {exc}", file=file) from exc
    except _CORRUPT as exc:
        raise DataError(f"corrupt pickle ({type(exc).__name__}: {str(exc):.200})",
                        file=file) from exc


def restricted_loads(data: bytes, file: str | Path = "<bytes>", *,
                     max_elements: int = DEFAULT_PROTOCOL_MAX_ELEMENTS):
    """Unpickle ``data`` with :class:`RestrictedUnpickler`; refusals become :class:`DataError`."""
    return restricted_load(io.BytesIO(data), file, stream_bytes=len(data),
                           max_elements=max_elements)
