"""A restricted unpickler whose memory and time stay bounded by the size of the file.

``pickle.load`` runs code embedded in a file (``__reduce__``), and even without code a small
pickle can describe far more data than it holds: nested lists that share one another (a 250 KB
file expanding to 10^12 floats), calls such as ``bytes(10**13)``, array headers declaring
petabytes. :class:`RestrictedUnpickler` is the standard library's pure-Python unpickler
(``pickle._Unpickler``, the reference implementation of the C one) with every opcode that
resolves a global, calls it, builds a container or sets an object's state replaced by a checked
version:

* globals resolve only from an allow-list (builtin containers, numbers, strings and bytes, NumPy
  arrays, dtypes and scalars, ``collections.OrderedDict``, ``_codecs.encode`` for latin-1), and
  each call checks its arguments before running;
* every container records its *expanded size* — how many objects it stands for when shared
  references are followed — and its nesting depth. A container whose expanded size exceeds
  ``max_elements`` or that nests deeper than :data:`MAX_DEPTH` is refused the moment it is built;
  a container may not grow after it became an item of another one (which would hide its growth);
* dictionary keys and set elements must be strings or bytes, whose hashing is linear in their
  length and randomised (no hash-collision or nested-tuple hashing blow-up);
* bytes, arrays and scalars made by calls may together hold at most as many bytes as the stream
  (plus 1 MiB), and no read may ask for more bytes than the stream has left.
"""

from __future__ import annotations

import _codecs
import _compat_pickle
import collections
import io
import math
import pickle
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy._core import multiarray as _multiarray
from numpy._core import numeric as _numeric

from ..errors import DataError
from .load_limits import DEFAULT_MAX_ELEMENTS

MAX_DEPTH = 64          # result files nest about 4 deep (dict -> list -> dict -> array)
BYTE_SLACK = 2 ** 20    # headroom for the small objects of a tiny stream
KEY_TYPES = (str, bytes)

_BUILTINS = (dict, list, tuple, set, int, float, complex, str, bytes, bool, slice)
_ALLOWED = {("builtins", cls.__name__): cls for cls in _BUILTINS}
_ALLOWED.update({
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("collections", "OrderedDict"): collections.OrderedDict,
    # protocol 2 stores bytes as _codecs.encode(text, "latin1"): a pure string conversion
    ("_codecs", "encode"): _codecs.encode,
})
for _package in ("numpy.core", "numpy._core"):  # files written by NumPy 1.x and 2.x
    _ALLOWED[(f"{_package}.multiarray", "_reconstruct")] = _multiarray._reconstruct
    _ALLOWED[(f"{_package}.multiarray", "scalar")] = _multiarray.scalar
    # pickle protocol 5 (pickle.dump's default) rebuilds contiguous arrays from a raw buffer
    _ALLOWED[(f"{_package}.numeric", "_frombuffer")] = _numeric._frombuffer

_CORRUPT = (EOFError, ValueError, TypeError, AttributeError, LookupError, OverflowError,
            MemoryError, RecursionError, struct.error)


def _refuse(message: str):
    raise pickle.UnpicklingError(message)


@dataclass
class _Node:
    """Bookkeeping of one container: expanded size, depth, and whether another one holds it."""

    container: object  # kept alive so that its id() cannot be reused while loading
    size: int = 1
    depth: int = 1
    held: bool = False


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

    def readline(self) -> bytes:
        line = self.handle.readline(self.remaining)
        self.remaining -= len(line)
        return line


def _count(shape) -> int:
    """Element count of a declared shape (a non-negative int or a tuple of them)."""
    dims = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
        _refuse(f"invalid array shape {shape!r:.80}")
    return math.prod(dims)


class RestrictedUnpickler(pickle._Unpickler):
    """Unpickle only allow-listed, size-checked objects (see the module docstring).

    Parameters
    ----------
    handle : binary file
        Positioned at the start of the pickle.
    stream_bytes : int
        Bytes left in ``handle``: no read may exceed them, and bytes built by calls may total at
        most ``stream_bytes`` + 1 MiB.
    max_elements : int
        Largest expanded size of any container.
    """

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, handle: BinaryIO, stream_bytes: int,
                 max_elements: int = DEFAULT_MAX_ELEMENTS):
        self.reader = _BoundedReader(handle, stream_bytes)
        super().__init__(self.reader)
        self.max_elements = max_elements
        self.bytes_left = stream_bytes + BYTE_SLACK
        self.elements_left = max_elements
        self.nodes: dict[int, _Node] = {}

    # ---- globals ---------------------------------------------------------------------------

    def find_class(self, module: str, name: str):
        if self.proto < 3:  # protocols 0-2 spell builtins the Python 2 way (__builtin__.set)
            module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            pass
        if module.split(".")[0] == "torch":
            _refuse(f"refusing torch object {module}.{name}: save numpy arrays instead")
        _refuse(f"refusing to load global {module}.{name}: only numpy arrays, dtypes, scalars, "
                "dicts, lists, tuples, numbers and strings are allowed")

    def persistent_load(self, pid):
        _refuse("refusing persistent id in pickle (torch archive?)")

    # ---- accounting ------------------------------------------------------------------------

    def _measure(self, item) -> tuple[int, int]:
        node = self.nodes.get(id(item))
        return (node.size, node.depth) if node is not None else (1, 0)

    def _track(self, container, items=()):
        """Register a new ``container`` that holds ``items``; return it."""
        node = self.nodes[id(container)] = _Node(container)
        self._grow(node, items)
        return container

    def _grow(self, node: _Node, items) -> None:
        if node.held:
            _refuse("a container changes after it became part of another one "
                    "(a shared-reference blow-up)")
        for item in items:
            size, depth = self._measure(item)
            node.size += size
            node.depth = max(node.depth, depth + 1)
            child = self.nodes.get(id(item))
            if child is not None:
                child.held = True
        if node.size > self.max_elements:
            _refuse(f"a container expands to more than {self.max_elements:,} objects through "
                    "shared references (raise --max-elements if the file is genuine)")
        if node.depth > MAX_DEPTH:
            _refuse(f"containers nest deeper than {MAX_DEPTH} levels")

    def _add(self, target, items, kind: type) -> None:
        node = self.nodes.get(id(target))
        if node is None or not isinstance(target, kind):
            _refuse(f"cannot add items to {type(target).__name__}")
        self._grow(node, items)

    def _spend_bytes(self, count: int) -> None:
        self.bytes_left -= count
        if self.bytes_left < 0:
            _refuse("the pickle builds more bytes than the file holds "
                    "(a shared-reference or declared-size blow-up)")

    def _spend_elements(self, count: int) -> None:
        self.elements_left -= count
        if self.elements_left < 0:
            _refuse(f"calls in the pickle copy more than {self.max_elements:,} objects")

    @staticmethod
    def _check_keys(keys) -> None:
        if not all(isinstance(key, KEY_TYPES) for key in keys):
            _refuse("dictionary keys and set elements must be strings")

    # ---- container opcodes -----------------------------------------------------------------

    def load_empty_list(self):
        self.append(self._track([]))

    def load_empty_dictionary(self):
        self.append(self._track({}))

    def load_empty_set(self):
        self.append(self._track(set()))

    def load_empty_tuple(self):
        self.append(self._track(()))

    def load_list(self):
        items = self.pop_mark()
        self.append(self._track(items, items))

    def load_tuple(self):
        items = self.pop_mark()
        self.append(self._track(tuple(items), items))

    def _load_small_tuple(self, size: int):
        items = self.stack[-size:]
        self.stack[-size:] = [self._track(tuple(items), items)]

    def load_tuple1(self):
        self._load_small_tuple(1)

    def load_tuple2(self):
        self._load_small_tuple(2)

    def load_tuple3(self):
        self._load_small_tuple(3)

    def load_dict(self):
        items = self.pop_mark()
        self._check_keys(items[0::2])
        self.append(self._track(dict(zip(items[0::2], items[1::2])), items))

    def load_frozenset(self):
        items = self.pop_mark()
        self._check_keys(items)
        self.append(self._track(frozenset(items), items))

    def load_append(self):
        value = self.stack.pop()
        self._add(self.stack[-1], (value,), list)
        self.stack[-1].append(value)

    def load_appends(self):
        items = self.pop_mark()
        self._add(self.stack[-1], items, list)
        self.stack[-1].extend(items)

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._setitems([key, value])

    def load_setitems(self):
        self._setitems(self.pop_mark())

    def _setitems(self, items: list) -> None:
        target = self.stack[-1]
        self._check_keys(items[0::2])
        self._add(target, items, dict)
        target.update(zip(items[0::2], items[1::2]))

    def load_additems(self):
        items = self.pop_mark()
        self._check_keys(items)
        self._add(self.stack[-1], items, set)
        self.stack[-1].update(items)

    # ---- calls and state -------------------------------------------------------------------

    def load_reduce(self):
        args = self.stack.pop()
        self.stack[-1] = self._call(self.stack[-1], args)

    def load_build(self):
        state = self.stack.pop()
        target = self.stack[-1]
        if type(target) is np.ndarray:
            self._build_array(target, state)
        elif isinstance(target, np.dtype) and isinstance(state, tuple):
            target.__setstate__(state)
        else:
            _refuse(f"refusing to set the state of {type(target).__name__}")

    def _refuse_opcode(self):
        _refuse("refusing object-construction opcode (only plain containers, numbers, strings "
                "and numpy arrays may be pickled)")

    load_newobj = load_newobj_ex = load_inst = load_obj = _refuse_opcode

    def _refuse_extension(self):
        _refuse("refusing extension-registry opcode")

    load_ext1 = load_ext2 = load_ext4 = _refuse_extension

    def load_bytearray8(self):
        size, = struct.unpack("<Q", self.read(8))
        available = self._bytes_available()
        if size > available:
            _refuse(f"a byte array declares {size:,} bytes but only {available:,} remain "
                    "(truncated or hostile file)")
        buffer = bytearray(size)
        self.readinto(buffer)
        self.append(buffer)

    def _bytes_available(self) -> int:
        """Bytes the next read can return: the rest of the current frame, else of the stream."""
        frame = self._unframer.current_frame
        if frame is not None:
            with frame.getbuffer() as view:
                left = view.nbytes - frame.tell()
            if left:
                return left
        return self.reader.remaining

    def _call(self, func, args):
        if not isinstance(args, tuple):
            _refuse("call arguments must be a tuple")
        for allowed, method in self._CALLS:
            if func is allowed:
                return method(self, func, args)
        _refuse(f"refusing to call {type(func).__name__} {getattr(func, '__name__', '?')}")

    def _call_container(self, kind, args):
        if args == ():
            return self._track(kind())
        source, = args
        accepted = (dict,) if issubclass(kind, dict) else (list, tuple, set, frozenset, dict)
        if not isinstance(source, accepted):
            _refuse(f"{kind.__name__}() needs a container, found {type(source).__name__}")
        if kind in (set, dict, collections.OrderedDict):
            self._check_keys(source)
        copy = kind(source)
        self._spend_elements(len(copy))
        parts = [part for pair in copy.items() for part in pair] if isinstance(copy, dict) else copy
        return self._track(copy, parts)

    def _call_number(self, kind, args):
        if len(args) > (2 if kind is complex else 1) or not all(
                type(arg) in (bool, int, float) for arg in args):
            _refuse(f"{kind.__name__}() accepts only numbers here")
        return kind(*args)

    def _call_text(self, kind, args):
        accepted = (str,) if kind is str else (bytes, bytearray)
        if len(args) > 1 or (args and type(args[0]) not in accepted):
            _refuse(f"{kind.__name__}() accepts only a {kind.__name__} value here")
        if args and kind is bytes:
            self._spend_bytes(len(args[0]))
        return kind(*args)

    def _call_slice(self, kind, args):
        if len(args) > 3 or not all(arg is None or type(arg) is int for arg in args):
            _refuse("slice() accepts only integers and None")
        return slice(*args)

    def _call_latin1(self, func, args):
        if len(args) != 2 or type(args[0]) is not str or args[1] not in ("latin1", "latin-1"):
            _refuse("_codecs.encode is allowed only as encode(text, 'latin1')")
        self._spend_bytes(len(args[0]))
        return args[0].encode("latin-1")

    def _call_dtype(self, func, args):
        # the copy flag must be set: a canonical dtype such as float64 is shared process-wide,
        # and BUILD would otherwise change it
        if (len(args) != 3 or type(args[0]) is not str or len(args[0]) > 64
                or type(args[1]) is not bool or args[2] is not True):
            _refuse("numpy.dtype() accepts (type string, align flag, True) only")
        return np.dtype(*args)

    def _call_reconstruct(self, func, args):
        if len(args) != 3 or args[0] is not np.ndarray or type(args[2]) not in (bytes, str):
            _refuse("numpy _reconstruct accepts (numpy.ndarray, shape, typecode)")
        self._spend_bytes(_count(args[1]) * np.dtype(args[2]).itemsize)
        return func(*args)

    def _call_scalar(self, func, args):
        if (len(args) != 2 or not isinstance(args[0], np.dtype) or args[0].hasobject
                or type(args[1]) is not bytes or len(args[1]) != args[0].itemsize):
            _refuse("numpy scalar() accepts a dtype and exactly its bytes")
        self._spend_bytes(len(args[1]))
        return func(*args)

    def _call_frombuffer(self, func, args):
        if not 4 <= len(args) <= 5:
            _refuse("numpy _frombuffer accepts (buffer, dtype, shape, order[, axes])")
        buffer, dtype, shape = args[:3]
        if (not isinstance(buffer, (bytes, bytearray)) or not isinstance(dtype, np.dtype)
                or dtype.hasobject or _count(shape) * dtype.itemsize != len(buffer)):
            _refuse("numpy _frombuffer: buffer size does not match the declared shape and dtype")
        return func(*args)

    def _build_array(self, array: np.ndarray, state) -> None:
        """Check a pickled array state against its data before ``ndarray.__setstate__``."""
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            _refuse("invalid numpy array state")
        if id(array) in self.nodes:
            _refuse("an array's state is set twice")
        shape, dtype, _, data = state[-4:]
        count = _count(shape)
        if not isinstance(dtype, np.dtype):
            _refuse("invalid numpy array state: no dtype")
        if dtype.hasobject:
            if not isinstance(data, list) or len(data) != count:
                _refuse(f"object array declares {count:,} items but holds "
                        f"{len(data) if isinstance(data, list) else 'none'}")
            self._track(array, [data])
        elif not isinstance(data, (bytes, bytearray)) or len(data) != count * dtype.itemsize:
            _refuse(f"array declares {count * dtype.itemsize:,} bytes of data but holds "
                    f"{len(data) if isinstance(data, (bytes, bytearray)) else 'none'}")
        else:
            self._spend_bytes(len(data))
            self._track(array)
        array.__setstate__(state)


RestrictedUnpickler._CALLS = (
    *((kind, RestrictedUnpickler._call_container)
      for kind in (list, tuple, set, dict, collections.OrderedDict)),
    *((kind, RestrictedUnpickler._call_number) for kind in (int, float, bool, complex)),
    (str, RestrictedUnpickler._call_text), (bytes, RestrictedUnpickler._call_text),
    (slice, RestrictedUnpickler._call_slice), (_codecs.encode, RestrictedUnpickler._call_latin1),
    (np.dtype, RestrictedUnpickler._call_dtype),
    (_multiarray._reconstruct, RestrictedUnpickler._call_reconstruct),
    (_multiarray.scalar, RestrictedUnpickler._call_scalar),
    (_numeric._frombuffer, RestrictedUnpickler._call_frombuffer),
)
for _opcode, _name in (
        (pickle.EMPTY_LIST, "load_empty_list"), (pickle.EMPTY_DICT, "load_empty_dictionary"),
        (pickle.EMPTY_SET, "load_empty_set"), (pickle.EMPTY_TUPLE, "load_empty_tuple"),
        (pickle.LIST, "load_list"), (pickle.TUPLE, "load_tuple"), (pickle.TUPLE1, "load_tuple1"),
        (pickle.TUPLE2, "load_tuple2"), (pickle.TUPLE3, "load_tuple3"), (pickle.DICT, "load_dict"),
        (pickle.FROZENSET, "load_frozenset"), (pickle.APPEND, "load_append"),
        (pickle.APPENDS, "load_appends"), (pickle.SETITEM, "load_setitem"),
        (pickle.SETITEMS, "load_setitems"), (pickle.ADDITEMS, "load_additems"),
        (pickle.REDUCE, "load_reduce"), (pickle.BUILD, "load_build"),
        (pickle.NEWOBJ, "load_newobj"), (pickle.NEWOBJ_EX, "load_newobj_ex"),
        (pickle.INST, "load_inst"), (pickle.OBJ, "load_obj"), (pickle.EXT1, "load_ext1"),
        (pickle.EXT2, "load_ext2"), (pickle.EXT4, "load_ext4"),
        (pickle.BYTEARRAY8, "load_bytearray8")):
    RestrictedUnpickler.dispatch[_opcode[0]] = getattr(RestrictedUnpickler, _name)
del _opcode, _name


def restricted_load(handle: BinaryIO, file: str | Path = "<stream>", *,
                    stream_bytes: int, max_elements: int = DEFAULT_MAX_ELEMENTS):
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
                     max_elements: int = DEFAULT_MAX_ELEMENTS):
    """Unpickle ``data`` with :class:`RestrictedUnpickler`; refusals become :class:`DataError`."""
    return restricted_load(io.BytesIO(data), file, stream_bytes=len(data),
                           max_elements=max_elements)
