"""Run-time helpers of generated serializers: coercions, plain values, the final encode.

Generated code takes the fast path inline (``v if type(v) is str else _to_str(v)``) and
calls these only when a value is not already of the declared type, so they may be
thorough rather than quick. Every helper returns a *shaped* value: a tree of exact
``dict``/``list``/``str``/``int``/``float``/``bool``/``None`` that any JSON encoder
writes without a ``default`` hook, with finite floats only.

Coercions follow fast-json-stringify v5 (fastify-behaviours 2.5), in Python terms:

========== ============================================================================
type       value -> output
========== ============================================================================
string     ``None`` -> ``""``; ``True`` -> ``"true"``; numbers, ``Decimal``, ``UUID`` ->
           ``str()``; datetime, date, time -> ISO; ``Enum`` -> its value; bytes -> UTF-8
           text; anything else -> :class:`SerializationError` (never a ``repr``)
integer    floats truncate (``1.7`` -> ``1``); ``None`` -> ``0``; bools -> ``0``/``1``;
           numeric strings parse; non-finite or non-numeric -> :class:`SerializationError`
number     ``None`` -> ``0``; ``+-inf``/``nan`` -> ``null``; numeric strings parse;
           ``"world"`` -> ``The value "world" cannot be converted to a number.``
boolean    truthiness
========== ============================================================================
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import math
import numbers
import re
import uuid
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, Callable, Union

import orjson

from ..errors import SerializationError
from ..schemas.store import escape_token
from ..undefined import UNDEFINED

# Type checking: these helpers take values of any type. ``isinstance`` narrows such a
# value to a generic class whose type arguments it cannot know (``Mapping[?, ?]``),
# which pyright's strict mode reports; a ``cast`` would add a call on the per-request
# path, so those lines carry ``# pyright: ignore[...]``, marked "type arguments unknown".

INF = math.inf
NINF = -math.inf
DATETIME_TYPES = (_dt.datetime, _dt.date, _dt.time)
#: A shaped value: exact JSON types only.
_Shaped = Union[dict[str, Any], list[Any], str, int, float, bool, None]

__all__ = ["SerializationError", "at", "item_error", "to_str", "to_int", "to_num", "to_bool", "plain", "as_mapping",
           "as_list", "key_str", "fmt_date_time", "fmt_date", "fmt_time", "required_error",
           "mismatch_error", "matcher"]


def required_error(quoted_name: str) -> SerializationError:
    """``"name" is required!`` (``quoted_name`` is the JSON text of the property name)."""
    return SerializationError(f"{quoted_name} is required!")


def mismatch_error(path: str) -> SerializationError:
    """``The value of '<path>' does not match schema definition.``: a value the schema at
    ``path`` cannot shape (not a mapping for an object, not a sequence for an array...)."""
    return SerializationError(f"The value of '{path}' does not match schema definition.")


def at(error: SerializationError, segment: str | int) -> SerializationError:
    """``error`` raised inside the value at ``segment`` (a property name or an item's index)
    of the one being shaped: generated code calls this as the error leaves each level, so
    its ``pointer`` ends up the JSON pointer of the offending value."""
    error.pointer = f"/{escape_token(str(segment))}{error.pointer}"
    return error


def item_error(error: SerializationError, items: list[Any], shape: Callable[[Any], Any],
               start: int = 0) -> SerializationError:
    """``error`` raised while shaping ``items[start:]`` in one comprehension (which cannot
    tell which item failed), located: the items are shaped again one by one, only now that
    the reply has failed, and the first that fails gives its index to the pointer."""
    for index in range(start, len(items)):
        try:
            shape(items[index])
        except SerializationError:
            return at(error, index)
    return error


def _describe(value: Any) -> str:
    # fast-json-stringify interpolates JS's String(value); Python's str() is the analogue.
    # (The message goes to the log only: the client gets the fixed 500.)
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide the real error
        return object.__repr__(value)


# A JSON number literal, optionally surrounded by blanks: what JS's Number() accepts in
# practice from an API's data. Python's float() also takes "1_000", "inf" and "nan".
# Both are unambiguous ("\d+(?:\.\d*)?", not "\d+\.?\d*"), so they never backtrack.
_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*\Z")
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*\Z")
#: int() of a decimal string is quadratic and refuses over 4300 digits: only short ones use it.
_EXACT_DIGITS = 15
_MAX_SAFE = 2 ** 53


def _number_from_text(text: str) -> int | float | None:
    if len(text) <= _EXACT_DIGITS and _INT_TEXT.match(text):
        return int(text)
    if _NUMBER_TEXT.match(text):
        # JS's Number(): a double (float() is linear); huge values overflow to Infinity.
        number = float(text)
        if _INT_TEXT.match(text) and abs(number) < _MAX_SAFE:
            return int(number)
        return number
    return None


def to_str(value: Any) -> str:
    """Coerce ``value`` for a ``string`` schema (the inline fast path took exact ``str``):
    what JSON can say as a string (see the table above). Anything else (an arbitrary
    object, a set) is a :class:`SerializationError`: its ``str()`` would be a ``repr``,
    a memory address."""
    if isinstance(value, str):
        if isinstance(value, enum.Enum):
            return to_str(value.value)
        return str.__str__(value)
    if value is None or value is UNDEFINED:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, enum.Enum):  # before int: an IntEnum is its value, not its name
        return to_str(value.value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value)
    if isinstance(value, DATETIME_TYPES):
        return value.isoformat()
    if isinstance(value, (Decimal, uuid.UUID, numbers.Integral)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")  # pyright: ignore[reportUnknownArgumentType]  # type arguments unknown
        except UnicodeDecodeError:
            raise SerializationError("The value cannot be converted to a string: it is not UTF-8.") from None
    raise SerializationError(f"The value of type {type(value).__name__} cannot be converted to a string: "
                             "only str, numbers, booleans, dates and times, UUID, Decimal and Enum values can.")


def to_int(value: Any) -> int:
    """Coerce ``value`` for an ``integer`` schema: floats truncate, as ``Math.trunc`` does."""
    if isinstance(value, int):  # bool and IntEnum included: both are ints
        return int(value)
    if value is None or value is UNDEFINED:
        return 0
    if isinstance(value, str):
        number = _number_from_text(value)
        if number is not None and not (isinstance(number, float) and not math.isfinite(number)):
            return int(number)
    elif isinstance(value, (float, Decimal)) or _is_real(value):
        try:
            return math.trunc(value)  # type: ignore[no-any-return]  # a numbers.Real's __trunc__: typed Any
        except (ValueError, OverflowError, TypeError):
            pass
    raise SerializationError(f'The value "{_describe(value)}" cannot be converted to an integer.')


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real)


def to_num(value: Any) -> int | float | None:
    """Coerce ``value`` for a ``number`` schema; non-finite numbers become ``None`` (``null``)."""
    if isinstance(value, float):
        return float(value) if NINF < value < INF else None
    if isinstance(value, int):
        return int(value)
    if value is None or value is UNDEFINED:
        return 0
    if isinstance(value, str):
        number = _number_from_text(value)
        if number is not None:
            return number if NINF < number < INF else None
    elif isinstance(value, Decimal):
        if value.is_finite():
            return int(value) if value == value.to_integral_value() else float(value)
        return None
    elif _is_real(value):
        number = float(value)
        return number if NINF < number < INF else None
    raise SerializationError(f'The value "{_describe(value)}" cannot be converted to a number.')


def to_bool(value: Any) -> bool:
    """Coerce ``value`` for a ``boolean`` schema: its truthiness (``UNDEFINED`` is false)."""
    return bool(value)


def key_str(key: Any) -> str:
    """A non-``str`` dict key as ``json.dumps`` writes it (``True`` -> ``"true"``, ``1`` -> ``"1"``)."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is True or key is False:
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        return repr(key) if NINF < key < INF else ("NaN" if key != key else ("Infinity" if key > 0 else "-Infinity"))
    if isinstance(key, enum.Enum):
        return key_str(key.value)
    return to_str(key)  # what JSON can say as a string, else a SerializationError


def as_mapping(value: Any, path: str) -> Mapping[Any, Any]:
    """The mapping an ``object`` schema reads: a Mapping, a dataclass, a msgspec ``Struct``,
    a pydantic model or a named tuple (their fields, read as attributes: nested instances
    are shaped by their own schemas)."""
    if isinstance(value, Mapping):
        return value  # pyright: ignore[reportUnknownVariableType]  # type arguments unknown
    kind: type = type(value)  # pyright: ignore[reportUnknownVariableType]  # type() of Any
    names = _FIELD_NAMES.get(kind) or _field_names(kind)
    if names is not None:
        return {name: getattr(value, name) for name in names}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):  # pyright: ignore[reportUnknownArgumentType]
        # A named tuple, duck-typed (a tuple with ``_asdict``): the checkers cannot see the
        # method (this "type: ignore" covers pyright's errors on the line too).
        return value._asdict()  # type: ignore[no-any-return]
    raise mismatch_error(path)


#: Field names by class (classes are application code: the table holds one entry per
#: model class ever answered).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...] | None:
    """The fields of a dataclass, msgspec ``Struct`` or pydantic model class, else ``None``."""
    names: tuple[str, ...] | None = None
    struct_fields: object = getattr(kind, "__struct_fields__", None)  # msgspec
    model_fields: object = getattr(kind, "model_fields", None)  # pydantic 2
    if dataclasses.is_dataclass(kind):
        names = tuple(field.name for field in dataclasses.fields(kind))
    elif isinstance(struct_fields, tuple):
        names = tuple(str(name) for name in struct_fields)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    elif isinstance(model_fields, dict):
        names = tuple(str(name) for name in model_fields)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if names is not None:
        _FIELD_NAMES[kind] = names
    return names


def as_list(value: Any, path: str) -> list[Any]:
    """The sequence an ``array`` schema reads: any iterable but a string, bytes or mapping."""
    if value is None or value is UNDEFINED:
        return []
    if isinstance(value, (list, tuple, set, frozenset)) or (
            isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Mapping))):
        return list(value)  # pyright: ignore[reportUnknownArgumentType]  # type arguments unknown
    raise mismatch_error(path)


def plain(value: Any) -> Any:
    """The JSON value of ``value`` for an untyped schema: ``UNDEFINED`` dict entries dropped.

    Lists hold ``UNDEFINED`` as ``None`` (``JSON.stringify`` writes ``null`` there);
    non-finite floats become ``None``; dates and times become ISO strings.
    """
    kind = type(value)  # pyright: ignore[reportUnknownVariableType]  # type arguments unknown
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if NINF < value < INF else None
    if kind is dict or isinstance(value, Mapping):
        return {key if type(key) is str else key_str(key): plain(item)  # pyright: ignore[reportUnknownArgumentType]
                for key, item in value.items() if item is not UNDEFINED}  # pyright: ignore[reportUnknownVariableType]
    if kind is list or isinstance(value, (tuple, set, frozenset)):
        return [None if item is UNDEFINED else plain(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    if value is UNDEFINED:
        return None
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return to_num(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return to_num(value)
    if isinstance(value, (bytes, bytearray, memoryview, uuid.UUID)):
        return to_str(value)
    model: type = type(value)  # pyright: ignore[reportUnknownVariableType]  # type() of Any
    if not isinstance(value, type) and (_FIELD_NAMES.get(model) or _field_names(model)):
        return plain(as_mapping(value, "#"))  # a dataclass, msgspec Struct or pydantic model
    raise SerializationError(f"The value of type {type(value).__name__} is not JSON serializable.")


def _format(value: Any, kind: str, to_text: Callable[[Any], str]) -> str:
    if isinstance(value, str):
        return str.__str__(value)
    if value is None or value is UNDEFINED:
        return ""
    try:
        return to_text(value)
    except (AttributeError, TypeError):
        raise SerializationError(f'The value "{_describe(value)}" cannot be converted to a {kind}.') from None


def fmt_date_time(value: Any) -> str:
    """``format: date-time``: a datetime (or date) as ISO 8601; strings pass through."""
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    return _format(value, "date-time", _reject)


def fmt_date(value: Any) -> str:
    """``format: date``: the date part of a datetime or a date, ISO 8601."""
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    return _format(value, "date", _reject)


def fmt_time(value: Any) -> str:
    """``format: time``: the time part of a datetime or a time as ``HH:MM:SS``.

    fast-json-stringify 5 writes ``toISOString().slice(11, 19)``: no fraction of a second
    and no offset. Strings pass through.
    """
    if isinstance(value, (_dt.datetime, _dt.time)):
        return f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    return _format(value, "time", _reject)


def matcher(validate: Callable[[Any], Any]) -> Callable[[Any], bool]:
    """``check(value) -> bool``: does ``value`` pass ``validate`` (an ``if`` schema's validator)?

    The validator sees the value's JSON form (:func:`plain`: datetimes as ISO strings,
    dataclasses as dicts, ``UNDEFINED`` entries left out), a copy, so nothing it does can
    change the reply. fast-json-stringify chooses ``then``/``else`` the same way, with Ajv.
    """
    from ..errors import SchemaValidationFailure

    def check(value: Any) -> bool:
        try:
            data = plain(value)
        except SerializationError:
            data = value
        try:
            validate(data)
        except SchemaValidationFailure:
            return False
        return True
    return check


def _reject(value: Any) -> str:
    raise TypeError


# The final encode. The shaped tree holds only exact JSON types, so the encoder needs no
# hook. orjson refuses integers beyond 64 bits and lone surrogates; the stdlib then writes
# the tree, escaping a lone surrogate as \udXXX so the text still round-trips.
_json_dumps = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode


orjson_dumps: Callable[[Any], bytes] = orjson.dumps


def encode_fallback(shaped: _Shaped) -> bytes:
    """The stdlib's encoding of a shaped tree, for what orjson refused."""
    try:
        return _json_dumps(shaped).encode()
    except ValueError:  # a non-finite float that orjson would have written as null
        return _json_dumps(_finite(shaped)).encode()


def _finite(value: _Shaped) -> _Shaped:
    if type(value) is float:
        return value if NINF < value < INF else None
    if type(value) is dict:
        return {key: _finite(item) for key, item in value.items()}
    if type(value) is list:
        return [_finite(item) for item in value]
    return value
