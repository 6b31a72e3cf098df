"""Build-time checks of a response schema: the draft-07 meta-schema, and Ajv's strict mode.

fast-json-stringify 5 validates each schema it builds (and each shared schema) against
the draft-07 meta-schema and refuses an invalid one; :func:`check_schema` does the same
with the meta-schema's validator its caller passes (it imports no validator) and names
the schema path of the first problem (``#/properties/a/type should be equal to one of
the allowed values``).

:func:`check_strict` is strict mode for response schemas (Ajv's default, and ours, from
``validator={"custom_options": {"strict": ...}}``): an unknown keyword (``requried``,
``minLenght``) or an unknown ``format`` is an error naming its path (``"log"``: a
warning). The known keywords are the keyword table's
(:data:`framework.schemas.keywords.KNOWN_KEYWORDS`) plus those a validator plugin added.
"""
from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any, Callable

from ..errors import SchemaCompileError, SchemaValidationFailure
from ..schemas.store import JSONData, Schema, escape_token, pointer_tokens, value_at
from ..schemas.keywords import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES, StrictMode, check_keywords, location

__all__ = ["check_schema", "check_strict", "KNOWN_FORMATS"]

#: ajv-formats' formats (full mode), which Fastify adds.
KNOWN_FORMATS = frozenset((
    "date", "time", "date-time", "iso-time", "iso-date-time", "duration", "uri", "uri-reference",
    "uri-template", "url", "email", "hostname", "ipv4", "ipv6", "regex", "uuid", "json-pointer",
    "json-pointer-uri-fragment", "relative-json-pointer", "byte", "int32", "int64", "float",
    "double", "password", "binary",
))

_log = logging.getLogger("framework.validation")


def check_schema(schema: Any, meta_validate: Callable[[Any], Any], name: str | None = None) -> None:
    """Raise :class:`SchemaCompileError` when ``schema`` is not a valid draft-07 schema.

    ``meta_validate``: the draft-07 meta-schema's validator (raising
    :class:`~framework.errors.SchemaValidationFailure`).

    The message names the schema path of the first error: ``schema is invalid:
    #/properties/a/type should be equal to one of the allowed values`` (``name``: a
    shared schema's ``$id``, quoted first, as fast-json-stringify does).
    """
    try:
        meta_validate(schema)
    except SchemaValidationFailure as failure:
        first = failure.errors[0] if failure.errors else {}
        pointer = str(first.get("instance_path", ""))
        prefix = f"{name!r} " if name else ""
        found = value_at(schema, pointer_tokens(pointer), _NOTHING)
        shown = "" if found is _NOTHING else f" (found {_short(found)})"
        raise SchemaCompileError(
            f"{prefix}schema is invalid: #{pointer} {first.get('message', '')}{shown}") from None
    except (TypeError, ValueError, RecursionError):
        # Python values the validator cannot read (a default that is a datetime): the
        # generator reports what it cannot use itself.
        return


_NOTHING = object()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _subschemas(node: JSONData, path: str) -> Iterator[tuple[Schema, str]]:
    if not isinstance(node, dict):
        return
    yield node, path
    value: JSONData
    for key in SCHEMA_MAPS:
        value = node.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from _subschemas(sub, f"{path}/{key}/{escape_token(name)}")
    for key in SCHEMA_LISTS:
        value = node.get(key)
        if isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _subschemas(sub, f"{path}/{key}/{index}")
    for key in SCHEMA_SINGLES:
        value = node.get(key)
        if not isinstance(value, list):  # (tuple ``items`` are walked above)
            yield from _subschemas(value, f"{path}/{key}")


def check_strict(schema: Any, keywords: Collection[str] = (), formats: Iterable[str] = (),
                 document: str = "", strict: StrictMode = True) -> None:
    """Strict mode: raise :class:`SchemaCompileError` at the first unknown keyword or format
    (``strict="log"``: log each one).

    ``keywords``/``formats``: the extra ones known (a validator plugin's, the serializer's);
    ``document`` names the schema in messages (``response 200``, a shared schema's ``$id``).
    """
    known_formats = KNOWN_FORMATS.union(formats)
    for node, path in _subschemas(schema, "#"):
        check_keywords(node, location(document, path), strict, keywords)
        fmt: JSONData = node.get("format")
        if isinstance(fmt, str) and fmt not in known_formats:
            message = f"strict mode: unknown format {fmt!r} at {location(document, path + '/format')}"
            if strict == "log":
                _log.warning(message)
            else:
                raise SchemaCompileError(message)


def check_shared(shared: Mapping[str, Any], reached: Iterable[str], strict: StrictMode,
                 keywords: Collection[str], formats: Iterable[str], meta_validate: Callable[[Any], Any]) -> None:
    """:func:`check_schema` (and :func:`check_strict`) for the shared schemas a schema reached."""
    for key in reached:
        if key in shared:
            check_schema(shared[key], meta_validate, key)
            if strict:
                check_strict(shared[key], keywords, formats, key, strict)
