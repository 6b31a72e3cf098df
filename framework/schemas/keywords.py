"""The keyword table: every JSON Schema keyword known without a plugin, and what it is.

One row per keyword: the JSON type it applies to (``"any"``; ``"core"`` for the
document's structure; ``"annotation"`` for what asserts nothing) and what its value is
(one subschema, a map of them, an array of them, JSON data, or a plain value the
keyword reads). Every other keyword set of the framework is derived from these rows
below, one decision per question: which keywords are known (strict mode), which hold
subschemas (every schema walker: ``$ref`` indexing, strict mode, ``$merge``/``$patch``,
the OpenAPI export), which hold data that is never a schema, which group of a validator
or serializer a keyword belongs to. Both engines, the schema plugins and the OpenAPI
export read them; nothing else lists keywords.

The vocabulary is draft-07's (validation, applicators, annotations, core), what Ajv 8
adds (``$defs``, ``deprecated``, ``nullable``), and the annotations OpenAPI documents
use (``example``, ``discriminator``, ``xml``, ``externalDocs``); any ``x-...``
extension is known too. A validator plugin adds its own with ``engine.add_keyword``
(``errorMessage``, ``$merge``/``$patch``): they are known only where the plugin is used.

Strict mode (``custom_options={"strict": ...}``, Ajv 8's default and so ours) decides what
an unknown keyword does: ``True`` fails ``ready()`` with ``strict mode: unknown keyword
"requried" at body#/ (did you mean "required"?)``, ``"log"`` logs that message as a
warning (logger ``framework.validation``) and compiles on, ``False`` ignores it.

This module imports nothing of the framework but its errors and name matching: the
schema helpers (:mod:`framework.schemas`) and both engines read it.
"""
from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from typing import Any, Literal, TypeAlias, Union

from typing_extensions import TypeGuard

from ..errors import SchemaCompileError
from ..names import closest_name

#: The JSON type a keyword applies to; ``core``: the document's structure (``$id``,
#: ``$ref``, definitions); ``annotation``: asserts nothing.
Applies: TypeAlias = Literal["core", "annotation", "any", "number", "string", "array", "object"]
#: What a keyword's value is: one subschema, a map of names to subschemas, an array of
#: subschemas, one subschema or an array of them (``items``), JSON data that is never a
#: schema (``enum``, ``default``), or a plain value the keyword reads (a limit, a name list).
Holds: TypeAlias = Literal["schema", "schema map", "schema array", "schema or array", "data", "value"]

#: keyword -> (what it applies to, what its value is).
KEYWORD_TABLE: dict[str, tuple[Applies, Holds]] = {
    # core
    "$id": ("core", "value"),
    "$schema": ("core", "value"),
    "$ref": ("core", "value"),
    "definitions": ("core", "schema map"),
    "$defs": ("core", "schema map"),
    # any type
    "type": ("any", "value"),
    "nullable": ("any", "value"),
    "enum": ("any", "data"),
    "const": ("any", "data"),
    "not": ("any", "schema"),
    "anyOf": ("any", "schema array"),
    "oneOf": ("any", "schema array"),
    "allOf": ("any", "schema array"),
    "if": ("any", "schema"),
    "then": ("any", "schema"),
    "else": ("any", "schema"),
    # numbers (in Ajv 8's order of evaluation: the validator checks them so)
    "maximum": ("number", "value"),
    "minimum": ("number", "value"),
    "exclusiveMaximum": ("number", "value"),
    "exclusiveMinimum": ("number", "value"),
    "multipleOf": ("number", "value"),
    # strings (``format`` names number formats too: ajv-formats' ``int32``, ``double``)
    "maxLength": ("string", "value"),
    "minLength": ("string", "value"),
    "pattern": ("string", "value"),
    "format": ("string", "value"),
    # arrays
    "items": ("array", "schema or array"),
    "additionalItems": ("array", "schema"),
    "maxItems": ("array", "value"),
    "minItems": ("array", "value"),
    "uniqueItems": ("array", "value"),
    "contains": ("array", "schema"),
    # objects
    "maxProperties": ("object", "value"),
    "minProperties": ("object", "value"),
    "required": ("object", "value"),
    "properties": ("object", "schema map"),
    "patternProperties": ("object", "schema map"),
    "additionalProperties": ("object", "schema"),
    "dependencies": ("object", "schema map"),  # a dependency is a schema or a list of names
    "propertyNames": ("object", "schema"),
    # annotations: draft 7's, Ajv's metadata vocabulary (``contentMediaType`` and
    # ``contentEncoding`` assert nothing in Ajv 8), OpenAPI's
    "$comment": ("annotation", "value"),
    "title": ("annotation", "value"),
    "description": ("annotation", "value"),
    "default": ("annotation", "data"),
    "examples": ("annotation", "data"),
    "readOnly": ("annotation", "value"),
    "writeOnly": ("annotation", "value"),
    "deprecated": ("annotation", "value"),
    "contentMediaType": ("annotation", "value"),
    "contentEncoding": ("annotation", "value"),
    "example": ("annotation", "data"),
    "discriminator": ("annotation", "value"),
    "xml": ("annotation", "value"),
    "externalDocs": ("annotation", "value"),
}


def _keywords(applies: Iterable[str] = (), holds: Iterable[str] = ()) -> tuple[str, ...]:
    """The keywords whose row matches ``applies`` (any, when empty) and ``holds`` (any, when
    empty), in the table's order: a walk over them visits a schema the same way every run
    (a ``frozenset`` of strings iterates in an order that changes with the hash seed)."""
    applies, holds = frozenset(applies), frozenset(holds)
    return tuple(keyword for keyword, (where, value) in KEYWORD_TABLE.items()
                 if (not applies or where in applies) and (not holds or value in holds))


#: Every keyword known without a plugin.
KNOWN_KEYWORDS: frozenset[str] = frozenset(KEYWORD_TABLE)
#: Keywords whose value is one subschema (``items`` too, when it is not an array).
SCHEMA_SINGLES = _keywords(holds=("schema", "schema or array"))
#: Keywords whose value is an array of subschemas (``items`` too, when it is one).
SCHEMA_LISTS = _keywords(holds=("schema array", "schema or array"))
#: Keywords whose value maps names to subschemas (a token after them is a name, not a keyword).
SCHEMA_MAPS = _keywords(holds=("schema map",))


def is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether a JSON value (or a schema) is an object: for checkers, a ``dict[str, Any]``."""
    return isinstance(value, dict)


def is_array(value: object) -> TypeGuard[list[Any]]:
    """Whether a JSON value is an array: for checkers, a ``list[Any]``."""
    return isinstance(value, list)


#: Where each keyword holding subschemas sorts among them: ``(group, index)`` in
#: SCHEMA_MAPS (group 0), SCHEMA_LISTS (1) and SCHEMA_SINGLES (2) (``items``: in two).
_SUBSCHEMA_RANKS: dict[str, list[tuple[int, int]]] = {}
for _group, _keys in enumerate((SCHEMA_MAPS, SCHEMA_LISTS, SCHEMA_SINGLES)):
    for _index, _key in enumerate(_keys):
        _SUBSCHEMA_RANKS.setdefault(_key, []).append((_group, _index))


def subschemas(node: dict[str, Any]) -> list[Any]:
    """The subschemas directly below the schema object ``node`` (the values of its schema
    maps, the items of its schema arrays, its single subschemas: only objects), in that
    order and each group in the table's order, whatever order ``node``'s keys are in.
    Reads ``node``'s own keys: most schema objects hold no subschema keyword at all."""
    found: list[tuple[tuple[int, int], list[Any]]] = []
    for key in node:
        ranks = _SUBSCHEMA_RANKS.get(key)
        if ranks is None:
            continue
        value: object = node[key]
        for rank in ranks:
            if rank[0] == 0:
                if is_object(value):
                    found.append((rank, [sub for sub in value.values() if isinstance(sub, dict)]))
            elif rank[0] == 1:
                if is_array(value):
                    found.append((rank, [sub for sub in value if isinstance(sub, dict)]))
            elif is_object(value):
                found.append((rank, [value]))
    if not found:
        return []
    if len(found) == 1:
        return found[0][1]
    found.sort(key=lambda entry: entry[0])
    return [sub for _, group in found for sub in group]


#: Keywords whose value is data, never a schema (nothing inside it is a ``$ref``).
DATA_KEYWORDS = _keywords(holds=("data",))
#: Keywords that assert nothing.
ANNOTATION_KEYWORDS = _keywords(applies=("annotation",))
#: The document's structure: ``$id``, ``$schema``, ``$ref``, ``definitions``, ``$defs``.
CORE_KEYWORDS = _keywords(applies=("core",))
#: ``definitions`` and ``$defs``: where a document keeps its named subschemas.
DEFINITION_KEYWORDS = _keywords(applies=("core",), holds=("schema map",))
#: The keywords that apply to values of one JSON type, by type (``number``, ``string``, ``array``, ``object``).
TYPE_KEYWORDS: dict[str, tuple[str, ...]] = {
    kind: _keywords(applies=(kind,)) for kind in ("number", "string", "array", "object")}
#: The applicators that run subschemas on the value itself (not on its items or properties).
IN_PLACE_APPLICATORS = _keywords(applies=("any",), holds=("schema", "schema array"))

#: OpenAPI's extensions: ``x-internal``, ``x-go-type``...
EXTENSION_PREFIX = "x-"


# --------------------------------------------------------------------------- strict mode

#: ``custom_options["strict"]``: refuse (``True``), warn (``"log"``) or ignore (``False``).
StrictMode: TypeAlias = Union[bool, Literal["log"]]
STRICT_MODES: tuple[StrictMode, ...] = (True, False, "log")

# Strict mode is the validator's option: its warnings go where the validator's do.
_log = logging.getLogger("framework.validation")


def _is_schema_object(value: object) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def unknown_keywords(schema: Any, extra: Iterable[str] = ()) -> list[str]:
    """The keys of one schema object that are neither known nor in ``extra`` (schema order)."""
    if not _is_schema_object(schema):
        return []
    extra = frozenset(extra)
    return [key for key in schema
            if key not in KNOWN_KEYWORDS and key not in extra and not key.startswith(EXTENSION_PREFIX)]


def location(document: str, schema_path: str) -> str:
    """Where a schema object is: ``body#/properties/a``; the root as ``body#/``.

    ``document`` names the schema (``body``, ``response 200``; empty for an anonymous one);
    ``schema_path`` is a URI fragment (``#/properties/a``), or a shared schema's
    ``id#/...``, which names its document itself.
    """
    where = document + schema_path if schema_path.startswith("#") else schema_path
    return where + "/" if where.endswith("#") else where


def check_keywords(schema: Any, where: str, strict: StrictMode, extra: Collection[str] = ()) -> None:
    """Strict mode for one schema object at ``where`` (:func:`location`): raise
    :class:`~framework.errors.SchemaCompileError` at its first unknown keyword
    (``strict=True``), log each one (``"log"``), or nothing (``False``)."""
    if not strict:
        return
    for keyword in unknown_keywords(schema, extra):
        meant = closest_name(keyword, KNOWN_KEYWORDS.union(extra))
        message = f'strict mode: unknown keyword "{keyword}" at {where}' + (
            f' (did you mean "{meant}"?)' if meant else "")
        if strict != "log":
            raise SchemaCompileError(message)
        _log.warning(message)
