"""The validator's English error messages, Ajv 8's wording ("should" where Ajv says "must").

One table, :data:`ENGLISH` (keyword -> ``fn(keyword, params) -> message``), read by the
code generator for every static message and by ``framework.plugins.i18n`` as its ``en`` table
(its other languages use the helpers here too). :func:`js_text` writes a value the way
JavaScript prints it inside a message.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..schemas.store import JSONValue
from .runtime import js_string

__all__ = ["ENGLISH", "DEFAULT_COMPARISON", "Formatter", "Params", "english", "js_text", "count",
           "comparison", "deps", "limit", "plural"]

Params = Mapping[str, Any]
Formatter = Callable[[str, Params], str]

#: The comparison a record without ``comparison`` in its params implies.
DEFAULT_COMPARISON = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}


def js_text(value: JSONValue | tuple[JSONValue, ...]) -> str:
    """A value as JavaScript prints it in a message (``5.0`` -> ``5``, ``True`` -> ``true``)."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return ",".join(js_text(v) for v in value)
    if isinstance(value, (bool, int, float)):
        return js_string(value)
    return str(value)


def count(value: Any) -> int | float:
    """``value`` if it is a number (not a bool), else 0."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def comparison(keyword: str, params: Params) -> str:
    """The comparison of a limit record (``">="`` for ``minimum`` unless ``params`` says otherwise)."""
    return str(params.get("comparison") or DEFAULT_COMPARISON[keyword])


def deps(params: Params) -> tuple[str, int]:
    """``(names, count)`` of a ``dependencies`` record's ``deps`` (a list, or names joined by ``", "``)."""
    deps: JSONValue | tuple[JSONValue, ...] = params["deps"]
    if isinstance(deps, (list, tuple)):
        deps_count = len(deps)
        deps = ", ".join(str(d) for d in deps)
    else:
        deps_count = params.get("depsCount", len(str(deps).split(", ")))
    return str(deps), int(deps_count)


def plural(n: Any, singular: str, many: str, *, french: bool = False) -> str:
    """``singular`` or ``many`` after the number ``n`` (French: singular below 2)."""
    n = count(n)
    if french:
        return singular if -2 < n < 2 else many
    return singular if n == 1 else many


def limit(params: Params) -> str:
    """A record's ``limit`` as JavaScript prints it."""
    return js_text(params["limit"])


ENGLISH: dict[str, Formatter] = {
    "type": lambda k, p: f"should be {js_text(p['type'])}",
    "required": lambda k, p: f"should have required property '{p['missingProperty']}'",
    "additionalProperties": lambda k, p: "should NOT have additional properties",
    "enum": lambda k, p: "should be equal to one of the allowed values",
    "const": lambda k, p: "should be equal to constant",
    "minLength": lambda k, p: f"should NOT have fewer than {limit(p)} characters",
    "maxLength": lambda k, p: f"should NOT have more than {limit(p)} characters",
    "minItems": lambda k, p: f"should NOT have fewer than {limit(p)} items",
    "maxItems": lambda k, p: f"should NOT have more than {limit(p)} items",
    "additionalItems": lambda k, p: f"should NOT have more than {limit(p)} items",
    "minProperties": lambda k, p: f"should NOT have fewer than {limit(p)} properties",
    "maxProperties": lambda k, p: f"should NOT have more than {limit(p)} properties",
    "minimum": lambda k, p: f"should be {comparison(k, p)} {limit(p)}",
    "multipleOf": lambda k, p: f"should be multiple of {js_text(p['multipleOf'])}",
    "pattern": lambda k, p: f'should match pattern "{p["pattern"]}"',
    "format": lambda k, p: f'should match format "{p["format"]}"',
    "uniqueItems": lambda k, p: (f"should NOT have duplicate items "
                                 f"(items ## {js_text(p['j'])} and {js_text(p['i'])} are identical)"),
    "contains": lambda k, p: f"should contain at least {js_text(p.get('minContains', 1))} valid item(s)",
    "dependencies": lambda k, p: "should have {} {} when property {} is present".format(
        plural(deps(p)[1], "property", "properties"), deps(p)[0], p["property"]),
    "propertyNames": lambda k, p: "property name should be valid",
    "anyOf": lambda k, p: "should match a schema in anyOf",
    "oneOf": lambda k, p: "should match exactly one schema in oneOf",
    "not": lambda k, p: "should NOT be valid",
    "if": lambda k, p: f'should match "{p["failingKeyword"]}" schema',
    "false schema": lambda k, p: "boolean schema is false",
    "*": lambda k, p: f'should pass "{k}" keyword validation',
}

for _keyword in ("maximum", "exclusiveMinimum", "exclusiveMaximum"):
    ENGLISH[_keyword] = ENGLISH["minimum"]
del _keyword


def english(keyword: str, params: Params) -> str:
    """The English message of an error record (a user keyword gets the generic one)."""
    return ENGLISH.get(keyword, ENGLISH["*"])(keyword, params)
