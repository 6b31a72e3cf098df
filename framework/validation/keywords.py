"""The keywords this engine knows: draft 7's, plus those Ajv 8 knows by default.

``KNOWN_KEYWORDS`` is what Ajv's strict mode (``strict: true``) accepts without
``addKeyword``: the draft-07 vocabulary (validation, applicators, annotations, core),
``nullable`` (OpenAPI; Ajv 8 handles it natively) and ``$comment``. Keywords added with
``engine.add_keyword`` are known too. With ``custom_options={"strict": True}`` any other
key of a schema object the validator compiles fails ``ready()`` naming its schema path;
without it (Fastify's default) unknown keywords are ignored. The serializer may use the
same table for response schemas.
"""
from __future__ import annotations

from collections.abc import Iterable

from ..schemas import JSONValue

#: Every keyword known without a plugin.
KNOWN_KEYWORDS: frozenset[str] = frozenset((
    # core
    "$id", "$schema", "$ref", "$comment", "definitions",
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
    # annotations
    "title", "description", "default", "examples", "readOnly", "writeOnly",
))


def unknown_keywords(schema: JSONValue, extra: Iterable[str] = ()) -> list[str]:
    """The keys of one schema object that are neither known nor in ``extra`` (schema order)."""
    if not isinstance(schema, dict):
        return []
    extra = frozenset(extra)
    return [key for key in schema if key not in KNOWN_KEYWORDS and key not in extra]
