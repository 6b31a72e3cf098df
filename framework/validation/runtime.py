"""Helpers the generated validators call at run time.

Everything here is reached from generated code through its global namespace, so a
generated function never embeds schema text: schema values live in a constants table
and these helpers interpret them. The hot path of a valid document calls none of them
except where a keyword needs a loop that Python's C code cannot do (``uniqueItems``).
"""
from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, TypeAlias

# Invalid is raised by generated code (its global _Invalid); input validation catches it around
# ``validator.root``. Import it from framework.errors or framework.validation.
from ..errors import Invalid
from ..schemas.store import JSONValue, json_copy as json_copy, json_equal


#: Marks "coercion failed" and "property absent" (``None`` is a valid JSON value).
NO = object()


#: An error record (Ajv's shape): ``keyword``, ``instance_path``, ``schema_path``,
#: ``params``, ``message``.
ErrorRecord: TypeAlias = dict[str, Any]
#: An error spec is a constant of the generated code:
#: (keyword, schema_path, static params, static message, instance-path suffix); the suffix
#: is appended to the ``path`` the generated code passes (the path of its function's data).
ErrorSpec: TypeAlias = tuple[str, str, dict[str, Any], str, str]
#: A ``type`` coercion plan, a constant of the generated code: (types, array_mode, spec).
CoercionPlan: TypeAlias = tuple[tuple[str, ...], bool, ErrorSpec]


def record(spec: ErrorSpec, path: str) -> ErrorRecord:
    """The error record of a static ``spec`` for the data at ``path``."""
    keyword, schema_path, params, message, suffix = spec
    return {"keyword": keyword, "instance_path": path + suffix, "schema_path": schema_path,
            "params": dict(params), "message": message}


def fail(errors: list[ErrorRecord], spec: ErrorSpec, path: str) -> None:
    """Record a static error and stop."""
    errors.append(record(spec, path))
    raise Invalid


def add(errors: list[ErrorRecord], spec: ErrorSpec, path: str) -> None:
    """Record a static error and go on (``all_errors=True``)."""
    errors.append(record(spec, path))


def make(spec: ErrorSpec, path: str, params: dict[str, Any], message: str | None = None) -> ErrorRecord:
    """The error record of ``spec`` with run-time ``params`` (and ``message``, if not the static one)."""
    keyword, schema_path, static_params, static_message, suffix = spec
    merged = dict(static_params)
    merged.update(params)
    return {"keyword": keyword, "instance_path": path + suffix, "schema_path": schema_path,
            "params": merged, "message": static_message if message is None else message}


def fail_d(errors: list[ErrorRecord], spec: ErrorSpec, path: str, params: dict[str, Any],
           message: str | None = None) -> None:
    """Record an error with run-time params and stop."""
    errors.append(make(spec, path, params, message))
    raise Invalid


def add_d(errors: list[ErrorRecord], spec: ErrorSpec, path: str, params: dict[str, Any],
          message: str | None = None) -> None:
    """Record an error with run-time params and go on (``all_errors=True``)."""
    errors.append(make(spec, path, params, message))


# --------------------------------------------------------------------------- JS numbers

# JavaScript's StrWhiteSpaceChar: WhiteSpace and LineTerminator.
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
            "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
# Unambiguous (each character can be matched only one way), so these never backtrack:
# "[0-9]+\.?[0-9]*" could split a run of digits n ways and took quadratic time on "1...1x".
_JS_DECIMAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\Z")
_JS_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
#: Digit strings up to this length are exact in a double (< 2**53): int() of them is cheap.
_EXACT_DIGITS = 15
_JS_RADIX = re.compile(r"0(?:[xX](?P<x>[0-9a-fA-F]+)|[oO](?P<o>[0-7]+)|[bB](?P<b>[01]+))\Z")
_MAX_SAFE = 2 ** 53


def js_number(text: str) -> Any:
    """JavaScript ``Number(text)``; ``NO`` where JS gives ``NaN``.

    Whitespace around the number is ignored, ``""`` gives 0, ``0x``/``0o``/``0b`` prefixes
    and ``Infinity`` are accepted. Plain integer literals become exact Python ints; other
    integral results become ints below 2**53, the rest floats.
    """
    text = text.strip(_JS_SPACE)
    if not text:
        return 0
    # Request data reaches here: Python's int() of a decimal string is quadratic (and refuses
    # more than 4300 digits), so only short digit strings go through it; longer ones are
    # parsed as JavaScript does, to a double (float() is linear), and overflow to Infinity.
    if len(text) <= _EXACT_DIGITS and _JS_INTEGER.match(text):
        return int(text)
    if _JS_DECIMAL.match(text):
        value = float(text.replace("Infinity", "inf"))
        if value.is_integer() and abs(value) < _MAX_SAFE:
            return int(value)
        return value
    radix = _JS_RADIX.match(text)
    if radix:
        # Power-of-two bases convert in linear time; like JS, the result is a double.
        if radix.group("x"):
            return _js_double(int(radix.group("x"), 16))
        if radix.group("o"):
            return _js_double(int(radix.group("o"), 8))
        return _js_double(int(radix.group("b"), 2))
    return NO


def _js_double(value: int) -> int | float:
    # Number("0x...") is a double: exact ints below 2**53, else the nearest float (or Infinity).
    if value < _MAX_SAFE:
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf


def js_string(value: Any) -> str:
    """JavaScript ``String(value)`` for a number or boolean."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            exponent_value = int(exponent)
            if -7 < exponent_value < 21:
                return format(Decimal(text), "f")
            mantissa = mantissa[:-2] if mantissa.endswith(".0") else mantissa
            return f"{mantissa}e{'+' if exponent_value > 0 else '-'}{abs(exponent_value)}"
        return text
    return str(value)


def is_integer_value(value: Any) -> bool:
    """The slow half of the generated integer check (``type(v) is int`` is the fast one)."""
    return type(value) is float and value.is_integer()


def is_number(value: Any) -> bool:
    """A JSON number: an int or a finite float, never a bool (Ajv ``strictNumbers``)."""
    # (pyright: type() of an Any is type[Unknown]; mypy: kind is float makes value a float)
    kind = type(value)  # pyright: ignore[reportUnknownVariableType]
    if kind is int:
        return True
    if kind is float:
        return value - value == 0.0  # type: ignore[no-any-return]
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_integer(value: Any) -> bool:
    """A JSON integer: an int, or a float with no fractional part (1.0), never a bool."""
    # (pyright: type() of an Any is type[Unknown]; mypy: kind is float makes value a float)
    kind = type(value)  # pyright: ignore[reportUnknownVariableType]
    if kind is int:
        return True
    if kind is float:
        return value.is_integer()  # type: ignore[no-any-return]
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def json_type(value: Any) -> str:
    """The JSON type of ``value`` as Ajv names it (``"integer"`` for ``1`` and ``1.0``), or ``"unknown"``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if is_integer(value):
        return "integer"
    if is_number(value):
        return "number"
    return "unknown"


def matches_type(value: Any, json_types: tuple[str, ...]) -> bool:
    """Whether ``value`` has one of ``json_types`` (an integer is a number too)."""
    kind = json_type(value)
    return kind in json_types or (kind == "integer" and "number" in json_types)


# --------------------------------------------------------------------------- coercion

def _coerce_to(value: Any, target: str, array_mode: bool) -> Any:
    """One rule of Ajv's coercion table (ajv-compat.md 1.1); ``NO`` when it does not apply."""
    kind = json_type(value)
    if target == "string":
        if kind in ("number", "integer", "boolean"):
            return js_string(value)
        if value is None:
            return ""
    elif target in ("number", "integer"):
        if kind == "string":
            if value == "":
                return NO
            number = js_number(value)
            if number is NO:
                return NO
            if target == "integer" and not (isinstance(number, int) or math.isinf(number)
                                            or number.is_integer()):
                return NO
            if target == "integer" and isinstance(number, float) and number.is_integer():
                return int(number)
            return number
        if kind == "boolean":
            return 1 if value else 0
        if value is None:
            return 0
    elif target == "boolean":
        if value == "true" and kind == "string":
            return True
        if value == "false" and kind == "string":
            return False
        if kind in ("number", "integer") and value in (0, 1):
            return value == 1
        if value is None:
            return False
    elif target == "null":
        if (kind == "string" and value == "") or (kind in ("number", "integer") and value == 0) \
                or value is False:
            return None
    elif target == "array" and array_mode:
        if kind in ("string", "number", "integer", "boolean", "null"):
            return [value]
    return NO


def coerce(value: JSONValue, json_types: tuple[str, ...], array_mode: bool) -> Any:
    """Coerce ``value`` (which matches none of ``json_types``) or return ``NO``.

    Ajv's order (ajv-compat.md 1.1): in ``"array"`` mode a one-element array is first
    unwrapped; then each listed type's rule is tried in the order written.
    """
    # The common case (a path or query integer): short ASCII digit strings are exactly JS
    # Number(); longer ones go through js_number (int() of a long string is quadratic).
    if type(value) is str and (json_types[0] == "integer" or json_types[0] == "number") \
            and len(value) <= _EXACT_DIGITS and value.isdigit() and value.isascii():
        return int(value)
    if array_mode and type(value) is list and len(value) == 1:
        # Ajv unwraps a one-item array only into a scalar: [{}] is never an object, [[1]]
        # never an array (ajv-compat.md 1.1; its coercion tests: "[{}] to object fails").
        value = value[0]
        if isinstance(value, (dict, list)):
            return NO
        if matches_type(value, json_types):
            return value
    elif isinstance(value, (dict, list)):
        return NO
    for target in json_types:
        if target == "object" or (target == "array" and not array_mode):
            continue
        result = _coerce_to(value, target, array_mode)
        if result is not NO:
            return result
    return NO


def coerce_or_fail(value: Any, plan: CoercionPlan, errors: list[ErrorRecord], path: str) -> Any:
    """The coerced value, or record the ``type`` error and stop. ``plan``: (types, array_mode, spec)."""
    result = coerce(value, plan[0], plan[1])
    if result is NO:
        fail(errors, plan[2], path)
    return result


def coerce_or_add(value: Any, plan: CoercionPlan, errors: list[ErrorRecord], path: str) -> Any:
    """The coerced value, or record the ``type`` error and return ``value`` unchanged."""
    result = coerce(value, plan[0], plan[1])
    if result is NO:
        add(errors, plan[2], path)
        return value
    return result


def required(errors: list[ErrorRecord], spec: ErrorSpec, path: str, data: dict[str, Any], names: list[str],
             stop: bool) -> None:
    """Record the missing properties in schema order (only the first one when ``stop``)."""
    for name in names:
        if name not in data:
            errors.append(make(spec, path, {"missingProperty": name},
                               f"should have required property '{name}'"))
            if stop:
                raise Invalid


# --------------------------------------------------------------------------- equality

def in_enum(value: Any, allowed: list[Any]) -> bool:
    """Whether ``value`` is JSON-equal to one of ``allowed`` (``enum``)."""
    for item in allowed:
        if json_equal(value, item):
            return True
    return False


def _unique_key(value: JSONValue) -> object:
    if isinstance(value, bool):
        return (bool, value)
    if isinstance(value, dict):
        return (dict, frozenset((k, _unique_key(v)) for k, v in value.items()))
    if isinstance(value, list):
        return (list, tuple(_unique_key(v) for v in value))
    return value


def duplicate(data: list[Any], scalar_types: tuple[str, ...] | None) -> tuple[int, int] | None:
    """``(i, j)`` of the duplicate Ajv reports for ``uniqueItems``, or ``None``.

    Ajv scans differently when ``items`` has scalar types (i = lower index, j = higher)
    than in general (i = higher index, j = nearest earlier duplicate); see ajv-compat 1.4.
    """
    try:
        if len({_unique_key(v) for v in data}) == len(data):
            return None
    except TypeError:  # an unhashable non-JSON value: fall back to the scan
        pass
    if scalar_types is not None:
        indices: dict[object, int] = {}
        for i in range(len(data) - 1, -1, -1):
            item = data[i]
            if not matches_type(item, scalar_types):
                continue
            key = _unique_key(item)
            if key in indices:
                return i, indices[key]
            indices[key] = i
        return None
    for i in range(len(data) - 1, -1, -1):
        for j in range(i - 1, -1, -1):
            if json_equal(data[i], data[j]):
                return i, j
    return None


def multiple_of(value: Any, divisor: Any) -> bool:
    """Exact decimal ``multipleOf`` (19.01 is a multiple of 0.01, as the JSON text says)."""
    if type(value) is int and type(divisor) is int:
        return value % divisor == 0
    try:
        quotient = Fraction(Decimal(repr(value))) / Fraction(Decimal(repr(divisor)))
    except (InvalidOperation, ArithmeticError, ValueError, OverflowError):
        return False
    return quotient.denominator == 1
