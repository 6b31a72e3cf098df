"""Shared schemas: the per-context store, input-schema normalisation, and ``$ref`` resolution.

Shared schemas are the one thing the validator and the serializer have in common, so
both engines resolve ``$ref`` through :func:`resolve_ref` here. Resolution never touches
the network: a reference that is not in the schema itself or in the shared store is an
error (:class:`UnresolvableRefError`), reported at ``ready()``.

Supported forms (seed 2.5): ``#name`` (an ``$id: '#name'`` in the current document),
``#/definitions/x`` (a JSON pointer), ``id#`` (a shared schema), ``id#/definitions/x`` and
``id#/properties/x`` (a pointer into it), ``id#name`` (an ``$id: '#name'`` inside it).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Iterator
from urllib.parse import unquote, urljoin

from .errors import SchemaAlreadyPresentError, SchemaMissingIdError

Schema = dict[str, Any]

#: Keywords whose values are maps of subschemas, lists of subschemas, or one subschema.
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependencies")
_SCHEMA_LISTS = ("items", "allOf", "anyOf", "oneOf")
_SCHEMA_SINGLES = ("items", "additionalItems", "additionalProperties", "contains",
                   "propertyNames", "not", "if", "then", "else")


class UnresolvableRefError(LookupError):
    """A ``$ref`` names nothing in its document or the shared store."""

    def __init__(self, ref: str) -> None:
        super().__init__(f"can't resolve reference {ref}")
        self.ref = ref


class SchemaStore:
    """The shared schemas of one context; a child store sees its ancestors' schemas."""

    __slots__ = ("parent", "own")

    def __init__(self, parent: "SchemaStore | None" = None) -> None:
        self.parent = parent
        self.own: dict[str, Schema] = {}

    def add(self, schema: Schema) -> None:
        schema_id = schema.get("$id") if isinstance(schema, dict) else None
        if not schema_id:
            raise SchemaMissingIdError()
        if self.get(schema_id) is not None:
            raise SchemaAlreadyPresentError(schema_id)
        self.own[schema_id] = copy.deepcopy(schema)

    def get(self, schema_id: str) -> Schema | None:
        store: SchemaStore | None = self
        while store is not None:
            if schema_id in store.own:
                return store.own[schema_id]
            store = store.parent
        return None

    def all(self) -> dict[str, Schema]:
        """Every schema visible here, ancestors' first."""
        chain = []
        store: SchemaStore | None = self
        while store is not None:
            chain.append(store.own)
            store = store.parent
        visible: dict[str, Schema] = {}
        for own in reversed(chain):
            visible.update(own)
        return visible


def iter_subschemas(schema: Any) -> Iterator[Schema]:
    """Yield ``schema`` and every subschema below it (depth first)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node
        for key in _SCHEMA_MAPS:
            value = node.get(key)
            if isinstance(value, dict):
                stack.extend(v for v in value.values() if isinstance(v, dict))
        for key in _SCHEMA_LISTS:
            value = node.get(key)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, dict))
        for key in _SCHEMA_SINGLES:
            value = node.get(key)
            if isinstance(value, dict):
                stack.append(value)


def _find_anchor(document: Schema, anchor: str) -> Schema | None:
    for node in iter_subschemas(document):
        if node.get("$id") == anchor:
            return node
    return None


def _follow_pointer(document: Any, pointer: str, ref: str) -> Any:
    node = document
    for token in pointer.split("/")[1:]:
        token = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise UnresolvableRefError(ref)
    return node


def _find_document(location: str, base: str, root: Schema,
                   shared: Mapping[str, Schema]) -> Schema | None:
    for candidate in dict.fromkeys((urljoin(base, location) if base else location, location)):
        if candidate in shared:
            return shared[candidate]
        if candidate == base:
            return root
        # An $id deeper in the current document or in a shared one (e.g. "item.json").
        for document in (root, *shared.values()):
            for node in iter_subschemas(document):
                node_id = node.get("$id")
                if isinstance(node_id, str) and not node_id.startswith("#") and node_id in (candidate, location):
                    return node
    return None


def resolve_ref(ref: str, root: Schema, shared: Mapping[str, Schema]) -> tuple[Any, Schema]:
    """Resolve ``ref`` met inside ``root``; return ``(target, target's document)``.

    The second element is the document that ``$ref`` inside the target resolve against
    (``root`` for local references, the shared schema for ``id#...``).
    """
    location, _, fragment = ref.partition("#")
    base = root.get("$id", "") if isinstance(root, dict) else ""
    if isinstance(base, str) and base.startswith("#"):
        base = ""
    if location:
        document = _find_document(location, base, root, shared)
        if document is None:
            raise UnresolvableRefError(ref)
    else:
        document = root
    if not fragment:
        return document, document
    if fragment.startswith("/"):
        return _follow_pointer(document, fragment, ref), document
    target = _find_anchor(document, "#" + fragment)
    if target is None:
        raise UnresolvableRefError(ref)
    return target, document


def check_refs(schema: Any, shared: Mapping[str, Schema]) -> None:
    """Raise :class:`UnresolvableRefError` for the first ``$ref`` that resolves to nothing.

    References inside shared schemas reached from ``schema`` are checked too.
    """
    seen: set[int] = set()
    pending: list[tuple[Any, Schema]] = [(schema, schema)]
    while pending:
        node, document = pending.pop()
        for sub in iter_subschemas(node):
            ref = sub.get("$ref")
            if isinstance(ref, str):
                target, target_doc = resolve_ref(ref, document, shared)
                if id(target) not in seen:
                    seen.add(id(target))
                    pending.append((target, target_doc))


_NOT_SHORTHAND = ("type", "properties", "$ref", "oneOf", "allOf", "anyOf", "$merge", "$patch")


def normalize_input_schema(schema: Schema, http_part: str) -> Schema:
    """A route's input schema as the engines get it (a deep copy; the user's is untouched).

    The short form (parameters listed at the top level) becomes
    ``{"type": "object", "properties": ...}``; a headers schema gets its ``properties``
    names and ``required`` entries lower-cased, since request header names are.
    """
    schema = copy.deepcopy(schema)
    if isinstance(schema, dict) and not any(key in schema for key in _NOT_SHORTHAND):
        schema = {"type": "object", "properties": schema}
    if http_part == "headers" and isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            schema["properties"] = {str(name).lower(): sub for name, sub in properties.items()}
        required = schema.get("required")
        if isinstance(required, list):
            schema["required"] = [str(name).lower() for name in required]
    return schema
