"""The schema keywords known without a plugin, and strict mode's check of the others.

``KNOWN_KEYWORDS`` is the one table of keywords both engines know: the draft-07
vocabulary (validation, applicators, annotations, core), what Ajv 8 adds (``$defs``,
``deprecated``, ``nullable``), and the annotations OpenAPI documents use (``example``,
``discriminator``, ``xml``, ``externalDocs``); any ``x-...`` extension is known too.
A validator plugin adds its own with ``engine.add_keyword`` (``errorMessage``,
``$merge``/``$patch``): they are known only where the plugin is used.

Strict mode (``custom_options={"strict": ...}``, Ajv 8's default and so ours) decides what
an unknown keyword does: ``True`` fails ``ready()`` with ``strict mode: unknown keyword
"requried" at body#/ (did you mean "required"?)``, ``"log"`` logs that message as a
warning (logger ``framework.validation``) and compiles on, ``False`` ignores it.
"""
from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from typing import Literal, TypeAlias, Union

from ..errors import SchemaCompileError
from ..names import closest_name
from .store import JSONValue

#: ``custom_options["strict"]``: refuse (``True``), warn (``"log"``) or ignore (``False``).
StrictMode: TypeAlias = Union[bool, Literal["log"]]
STRICT_MODES: tuple[StrictMode, ...] = (True, False, "log")

#: Every keyword known without a plugin.
KNOWN_KEYWORDS: frozenset[str] = frozenset((
    # core
    "$id", "$schema", "$ref", "$comment", "definitions", "$defs",
    # any type
    "type", "enum", "const", "not", "anyOf", "oneOf", "allOf", "if", "then", "else", "nullable",
    # numbers
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    # strings
    "maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding",
    # arrays
    "items", "additionalItems", "maxItems", "minItems", "uniqueItems", "contains",
    # objects
    "maxProperties", "minProperties", "required", "properties", "patternProperties",
    "additionalProperties", "dependencies", "propertyNames",
    # annotations (draft 7, Ajv's metadata vocabulary)
    "title", "description", "default", "examples", "readOnly", "writeOnly", "deprecated",
    # OpenAPI's annotations
    "example", "discriminator", "xml", "externalDocs",
))

#: OpenAPI's extensions: ``x-internal``, ``x-go-type``...
EXTENSION_PREFIX = "x-"

_log = logging.getLogger("framework.validation")


def unknown_keywords(schema: JSONValue, extra: Iterable[str] = ()) -> list[str]:
    """The keys of one schema object that are neither known nor in ``extra`` (schema order)."""
    if not isinstance(schema, dict):
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


def check_keywords(schema: JSONValue, where: str, strict: StrictMode, extra: Collection[str] = ()) -> None:
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
