"""OpenAPI 3.1 from the route schemas, and an interactive documentation page (@fastify/swagger
and @fastify/swagger-ui in one plugin).

``openapi`` is wrapped with ``plugin(...)``: it documents the routes of the context that
registers it and of that context's descendants (registered on the root: every route), and
adds ``instance.openapi()`` there::

    from framework import Framework
    from framework.plugins.openapi import openapi

    app = Framework()
    app.register(openapi, info={"title": "Items", "version": "1.0.0"},
                 servers=[{"url": "http://127.0.0.1:3000"}])

    @app.get("/items/:id", schema={
        "summary": "One item", "tags": ["items"],
        "params": {"id": {"type": "integer"}},
        "response": {200: {"type": "object", "properties": {"id": {"type": "integer"}}}},
    })
    def get_item(request, reply):
        return {"id": request.params["id"]}

    app.ready()
    document = app.openapi()   # a dict; also GET /documentation/json
    assert "/items/{id}" in document["paths"]

``GET /documentation/json`` answers the document, ``GET /documentation/openapi.yaml`` the
same as YAML (with PyYAML) and ``GET /documentation`` Swagger UI 5 (served from the
``swagger-ui-bundle-v2`` package, ``pip install 'framework[openapi]'``, under
``/documentation/static/``: no CDN, it works offline). ``python -m framework openapi
module:app [--yaml]`` prints the document.

Options:

``info``
    The document's ``info`` (default ``{"title": "API", "version": "0.1.0"}``).
``servers``, ``tags``, ``external_docs``, ``security``
    Copied to the document (``security``: the requirement of every operation that does not
    set its own).
``components``
    Merged into ``components`` (e.g. your own ``securitySchemes``).
``route_prefix``
    Where the page and the document are served (``"/documentation"``, under the
    registering context's prefix); ``None``: not served (``instance.openapi()`` only).
``ui``
    ``True`` (default): serve Swagger UI at ``route_prefix``. Without the
    ``swagger-ui-bundle-v2`` package the page says how to install it.
``error_responses``
    ``True`` (default): a route that validates inputs documents the ``400`` it answers, a
    route bearer_auth or auth guards the ``401`` (and the ``403`` when it requires scopes),
    with the framework's error body
    (``components/schemas/FrameworkError``), unless the route declares that status (or its
    class) itself; so are the answers a route's own hooks declare in an ``openapi_responses``
    attribute (the ``429`` of a route ``framework.plugins.rate_limit`` limits, the ``304``
    and ``412`` of ``framework.plugins.etag``). In an
    application made with ``Framework(errors="problem+json")``, these are
    ``application/problem+json`` with the RFC 9457 body (``components/schemas/Problem``).
``remove_additional``
    ``True`` (default, as the validator's ``remove_additional`` default): the validator
    drops the properties ``additionalProperties: false`` forbids instead of refusing the
    request, so the document leaves ``additionalProperties: false`` out (responses only
    ever carry declared properties anyway). ``False`` (a validator that refuses them):
    kept.
``openapi_version``
    ``"3.1.0"`` (default) or ``"3.2.0"``: the document's ``openapi``. It decides how a
    typed stream's ``itemSchema`` is written (see below).
``transform``
    ``transform(operation, route) -> operation``: rewrite each operation (a dict) before it
    enters the document; ``route`` has ``method``, ``url``, ``schema``, ``options`` and
    ``context``.

What becomes of a route (one operation per method and path):

- ``params``: one path parameter per ``:name`` of the URL (``{name}`` in the path); a
  trailing wildcard ``*`` is the parameter ``{*}`` (the rest of the path, ``/`` included).
  An optional last parameter (``/items/:id?``) gives two paths, ``/items/{id}`` and
  ``/items`` (OpenAPI has no optional path parameter), so an ``operation_id`` on such a
  route is a duplicate.
- ``querystring`` and ``headers`` (the short form too): one query or header parameter per
  property, ``required`` from the schema's ``required`` (header names lower-cased, as they
  are validated). A schema without ``properties`` is one free-form ``style: form`` object.
- ``body`` (``POST``, ``PUT``, ``PATCH``): ``requestBody`` under ``application/json`` (or
  the media types of ``consumes``), or the media types of a ``content`` map; required.
- ``response``: ``responses`` by exact status, class (``2xx`` becomes ``2XX``) or
  ``default``; a ``content`` map keeps its media types; ``produces`` lists the media types
  of a plain schema (default ``application/json``); an ``itemSchema`` (a typed stream:
  JSON Lines, NDJSON, JSON text sequences, server-sent events) is the media type's
  ``itemSchema`` in a 3.2 document, and in a 3.1 document the registered extension
  ``x-oai-itemSchema`` beside a ``schema`` of an array of the items (how OpenAPI 3.2
  reads a ``schema`` of a sequential media type); server-sent events' item is the event
  (``event``, ``id``, ``retry``, and ``data``: JSON text of the route's item schema, as
  ``contentSchema``); the entry's ``description`` is the
  response's (default: the status's reason phrase). A route without response schemas
  documents ``default``. The media types registered with ``add_response_serializer``
  where the route is declared are added (without a schema) to its 2xx and ``default``
  responses; a ``strict_accept`` route documents its 406.
- Documentation keys of ``schema``: ``summary``, ``description``, ``tags``,
  ``operation_id`` (checked unique: a duplicate fails ``ready()`` with
  :class:`OpenAPIError`), ``deprecated``, ``security``, ``external_docs``, ``hide``
  (the route is left out), ``consumes`` and ``produces``.
- Without them: the ``operationId`` is :func:`default_operation_id`'s (the handler's name
  after the context's prefix, or the method and the path), the ``tags`` the name of the
  plugin that declared the route (none for the application's own routes), the ``summary``
  and ``description`` the first line and the rest of the handler's docstring.
- The Python models of typed routes (TypedDict, dataclass, msgspec, pydantic) are
  ``components/schemas`` named after their class (``module.Class`` when another model took
  the name) and referred to by ``$ref``, nested ones too.
- A ``mount()``ed application is one path item ``<prefix>/{path}`` without operations,
  whose description says a mounted WSGI application answers there.
- A route that ``framework.plugins.bearer_auth`` guards (its context and descendants, or a route with
  its ``verify_bearer_auth`` hook) requires ``bearerAuth`` (an HTTP bearer scheme in
  ``components/securitySchemes``); a route ``framework.plugins.auth`` guards requires its schemes
  (``http`` bearer, with ``bearerFormat: JWT`` for a JWT; ``apiKey`` in a header, query or
  cookie; ``http`` basic; each under its scheme's ``name``), one of them or each of them
  (``any_of``/``all_of``), with its scopes; other routes carry no requirement.

Not documented: the ``HEAD`` routes ``ready()`` adds for ``GET`` routes (a ``HEAD`` route
you declare is), the not-found routes, methods OpenAPI has no field for (``PROPFIND``,
``SEARCH``...), the ``/`` twin of a prefixed route ``/`` (``/items`` is documented,
``/items/`` not), and this plugin's own routes.

Schemas are the ones the validators and serializers compile: input schemas go through
:func:`framework.schemas.store.normalize_input_schema` as ``framework.lifecycle.inputs`` does, and then
draft 7 becomes OpenAPI 3.1's JSON Schema: shared schemas (``add_schema``) become
``components/schemas`` (their ``$id`` as the name, characters OpenAPI refuses replaced by
``_``) and every ``$ref`` form (``#name``, ``#/definitions/x``, ``id#``,
``id#/definitions/x``, ``id#/properties/x``, ``id#name``) is rewritten to point there; an
inline schema with local references becomes a component of its own
(``<method>_<path>.<part>``); ``definitions`` become ``$defs``, ``nullable: true`` a type
list, tuple ``items`` ``prefixItems``, ``dependencies`` ``dependentRequired`` /
``dependentSchemas``; ``$merge``/``$patch`` (``framework.plugins.merge_patch``) are expanded and
``errorMessage`` (``framework.plugins.error_messages``) removed.

The document is built once, at ``ready()`` (an ``on_ready`` hook), and its JSON kept:
``GET /documentation/json`` sends those bytes and builds nothing.
"""
from __future__ import annotations

import copy
import dataclasses
import html
import inspect
import json
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import Any, Callable, TypeGuard, TypeVar, overload
from urllib.parse import unquote, urljoin, urlsplit

import typing_extensions

from framework import Context, Reply, Request, plugin
from framework.errors import TypeSchemaError, UnresolvableRefError
from framework.route import Route
from framework.schemas.typeschema import schema_of
from framework.schemas.keywords import DATA_KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES
from framework.schemas.store import (JSONData, RefIndex, base_inside, escape_token, is_object, iter_subschemas,
                               normalize_input_schema, to_pointer)

__all__ = ["openapi", "OpenAPIError", "build_document", "to_openapi_schema", "default_operation_id"]

OPENAPI_VERSION = "3.1.0"
#: Route methods with an operation field in a path item.
OPENAPI_METHODS = ("GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE")
BODY_METHODS = frozenset(("POST", "PUT", "PATCH"))
SECURITY_SCHEME = "bearerAuth"
ERROR_SCHEMA = "FrameworkError"
_ERROR_BODY = {
    "type": "object",
    "properties": {
        "statusCode": {"type": "integer"},
        "code": {"type": "string"},
        "error": {"type": "string"},
        "message": {"type": "string"},
    },
}
PROBLEM_SCHEMA = "Problem"
#: RFC 9457's members, the framework's ``code``, and a validation failure's ``errors``.
_PROBLEM_BODY = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "format": "uri-reference"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string", "format": "uri-reference"},
        "code": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "object", "properties": {
            "pointer": {"type": "string"}, "detail": {"type": "string"}}}},
    },
}
_DOC_KEYS = ("summary", "description", "tags", "deprecated", "security")
_OPTIONS = ("info", "servers", "tags", "external_docs", "security", "components", "route_prefix", "ui",
            "error_responses", "transform", "remove_additional",
            "openapi_version")
#: The ``openapi`` a document may name (``openapi_version``).
OPENAPI_VERSIONS = ("3.1.0", "3.2.0")
_IGNORED = ("prefix",)
_COMPONENT_NAME = re.compile(r"[^A-Za-z0-9._-]")

#: A JSON value's own type, kept through a function (an object stays an object).
_JsonT = TypeVar("_JsonT", bound=JSONData)


class OpenAPIError(ValueError):
    """Options or routes the document cannot be built from (fails ``ready()``)."""


# --------------------------------------------------------------------------- schemas

def _has_merge_patch(schema: JSONData) -> bool:
    return any("$merge" in node or "$patch" in node for node in _all_dicts(schema))


def _all_dicts(node: JSONData) -> Iterator[dict[str, Any]]:
    stack: list[JSONData] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _expanded(schema: JSONData, shared: Mapping[str, Any]) -> JSONData:
    """``$merge``/``$patch`` resolved as ``framework.plugins.merge_patch`` resolves them for the validator."""
    if not _has_merge_patch(schema):
        return schema
    from framework.plugins.merge_patch import expand
    return expand(schema, shared)


def _pointer_tokens(fragment: str) -> list[str]:
    return [unquote(t).replace("~1", "/").replace("~0", "~") for t in fragment.split("/")[1:]]


def _converted_tokens(tokens: list[str], document: JSONData) -> list[str]:
    """A pointer's tokens into a draft 7 schema, as tokens into its converted form."""
    out: list[str] = []
    node: JSONData = document
    name_position = False
    for token in tokens:
        mapping: dict[str, Any] | None = node if isinstance(node, dict) else None
        keyword = not name_position and mapping is not None
        if keyword and token == "definitions":
            out.append("$defs")
        elif keyword and token == "dependencies":
            out.append("dependentSchemas")  # only schema-valued dependencies can be pointed at
        elif keyword and token == "items" and mapping is not None and isinstance(mapping.get("items"), list):
            out.append("prefixItems")
        else:
            out.append(token)
        name_position = keyword and token in SCHEMA_MAPS
        if mapping is not None:
            node = mapping.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            node = None
    return out


def _anchor_tokens(document: JSONData, anchor: str) -> list[str] | None:
    """The pointer tokens of the subschema whose ``$id`` is ``anchor`` (``#name``)."""
    stack: list[tuple[JSONData, list[str]]] = [(document, [])]
    value: JSONData
    while stack:
        node, tokens = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("$id") == anchor:
            return tokens
        for key in SCHEMA_MAPS:
            value = node.get(key)
            if isinstance(value, dict):
                stack.extend((sub, [*tokens, key, name]) for name, sub in value.items())
        for key in SCHEMA_LISTS:
            value = node.get(key)
            if isinstance(value, list):
                stack.extend((sub, [*tokens, key, str(i)]) for i, sub in enumerate(value))
        for key in SCHEMA_SINGLES:
            value = node.get(key)
            if isinstance(value, dict):
                stack.append((value, [*tokens, key]))
    return None


@overload
def to_openapi_schema(schema: dict[str, Any], ref: Callable[[str], str] | None = None,
                      closed: bool = True) -> dict[str, Any]: ...
@overload
def to_openapi_schema(schema: _JsonT, ref: Callable[[str], str] | None = None, closed: bool = True) -> _JsonT: ...


def to_openapi_schema(schema: JSONData, ref: Callable[[str], str] | None = None, closed: bool = True) -> JSONData:
    """A draft 7 schema as OpenAPI 3.1 (JSON Schema 2020-12) writes it (a new value).

    ``definitions`` become ``$defs``, ``nullable: true`` adds ``"null"`` to ``type``, tuple
    ``items`` become ``prefixItems`` (and ``additionalItems`` ``items``), ``dependencies``
    ``dependentRequired``/``dependentSchemas``; ``$id`` and ``errorMessage`` are dropped and
    each ``$ref`` goes through ``ref`` (unchanged without it). ``closed=False`` drops
    ``additionalProperties: false`` (for a validator that removes undeclared properties
    rather than refusing them).

    >>> to_openapi_schema({"type": "string", "nullable": True, "errorMessage": "no"})
    {'type': ['string', 'null']}
    >>> to_openapi_schema({"definitions": {"a": {"type": "integer"}}, "$ref": "#/definitions/a"})
    {'$defs': {'a': {'type': 'integer'}}, '$ref': '#/definitions/a'}
    """
    if isinstance(schema, list):
        return [to_openapi_schema(item, ref, closed) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    tuple_items = isinstance(schema.get("items"), list)
    value: JSONData
    for key, value in schema.items():
        if key in ("$id", "errorMessage", "nullable", "$schema"):
            continue
        if key in DATA_KEYWORDS:
            out[key] = copy.deepcopy(value)
        elif key == "$ref" and isinstance(value, str):
            out[key] = ref(value) if ref else value
        elif key in SCHEMA_MAPS and isinstance(value, dict):
            converted: dict[str, JSONData] = {name: to_openapi_schema(sub, ref, closed) for name, sub in value.items()}
            if key == "definitions":
                out["$defs"] = {**out.get("$defs", {}), **converted}
            elif key == "dependencies":
                required = {k: v for k, v in converted.items() if isinstance(v, list)}
                schemas = {k: v for k, v in converted.items() if not isinstance(v, list)}
                if required:
                    out["dependentRequired"] = required
                if schemas:
                    out["dependentSchemas"] = schemas
            else:
                out[key] = {**out.get(key, {}), **converted} if key == "$defs" else converted
        elif key == "items" and tuple_items:
            out["prefixItems"] = to_openapi_schema(value, ref, closed)
        elif key == "additionalItems" and tuple_items:
            out["items"] = to_openapi_schema(value, ref, closed)
        elif key == "additionalItems":
            continue  # ignored by draft 7 without tuple items
        elif key in SCHEMA_LISTS or key in SCHEMA_SINGLES:
            if key == "additionalProperties" and value is False and not closed:
                continue
            out[key] = to_openapi_schema(value, ref, closed)
        else:
            out[key] = copy.deepcopy(value)
    if schema.get("nullable") is True:
        kind: JSONData = out.get("type")
        if isinstance(kind, str) and kind != "null":
            out["type"] = [kind, "null"]
        elif isinstance(kind, list) and "null" not in kind:
            out["type"] = [*kind, "null"]
        elif kind is None:
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
            elif "enum" not in out:
                out = {"anyOf": [out, {"type": "null"}]} if out else {}
    return out


class _Components:
    """``components/schemas``: the shared schemas by identity, and hoisted inline schemas."""

    def __init__(self, closed: bool = True) -> None:
        self.closed = closed
        self.schemas: dict[str, Any] = {}
        self.by_identity: dict[int, str] = {}
        self.pending: list[tuple[str, Any, Mapping[str, Any]]] = []
        #: Component names wanted for some shared ids (a Python model's: its class name).
        self.preferred: dict[str, list[str]] = {}
        self.models = _Models()

    def _name(self, wanted: str) -> str:
        base = _COMPONENT_NAME.sub("_", wanted.rstrip("#")) or "schema"
        name, n = base, 2
        while name in self.schemas:
            name, n = f"{base}_{n}", n + 1
        return name

    def shared(self, schema: JSONData, schema_id: str, shared: Mapping[str, Any]) -> str:
        """The component name of a shared schema (as a context sees it), added on first use."""
        key = id(schema)
        if key not in self.by_identity:
            wanted = self.preferred.get(schema_id, [schema_id])
            name = next((candidate for candidate in wanted if candidate not in self.schemas), None) \
                or self._name(wanted[-1])
            self.by_identity[key] = name
            self.schemas[name] = None  # reserved; converted below (it may reference itself)
            self.schemas[name] = self.convert(_expanded(schema, shared), name, shared)
        return self.by_identity[key]

    def hoist(self, schema: JSONData, wanted: str, shared: Mapping[str, Any]) -> str:
        name = self._name(wanted)
        self.schemas[name] = None
        self.schemas[name] = self.convert(schema, name, shared)
        return name

    def convert(self, schema: JSONData, name: str | None, shared: Mapping[str, Any]) -> JSONData:
        """``schema`` (a document of its own, stored as component ``name`` when given) converted,
        its references pointed at components."""
        def ref(value: str) -> str:
            return self.reference(value, schema, name, shared)
        return to_openapi_schema(schema, ref, self.closed)

    def reference(self, ref: str, document: JSONData, name: str | None, shared: Mapping[str, Any]) -> str:
        location, _, fragment = ref.partition("#")
        target_doc: JSONData
        if location:
            base: JSONData = document.get("$id", "") if isinstance(document, dict) else ""
            base = "" if not isinstance(base, str) or base.startswith("#") else base
            target_id = next((c for c in dict.fromkeys((urljoin(base, location) if base else location, location))
                              if c in shared), None)
            if target_id is None:
                raise OpenAPIError(f"can't resolve reference {ref}")
            target_doc = shared[target_id]
            component = self.shared(target_doc, target_id, shared)
        else:
            if name is None:
                raise OpenAPIError(f"local reference {ref} outside a component")  # hoisted before
            target_doc, component = document, name
        if not fragment:
            tokens: list[str] = []
        elif fragment.startswith("/"):
            tokens = _converted_tokens(_pointer_tokens(fragment), target_doc)
        else:
            found = _anchor_tokens(target_doc, "#" + fragment)
            if found is None:
                raise OpenAPIError(f"can't resolve reference {ref}")
            tokens = _converted_tokens(found, target_doc)
        return "#/components/schemas/" + escape_token(component) + to_pointer(tokens)


def _ref_of(node: JSONData) -> str | None:
    """The ``$ref`` of a schema node, when it has one (a string)."""
    ref: JSONData = node.get("$ref") if isinstance(node, dict) else None
    return ref if isinstance(ref, str) else None


def _has_local_ref(schema: JSONData) -> bool:
    return any(isinstance(node.get("$ref"), str) and node["$ref"].startswith("#") for node in iter_subschemas(schema))


# --------------------------------------------------------------------------- Python models

#: The prefix of the internal ids under which typed routes' models join the shared schemas.
_MODEL_ID = "python-model:"


def _is_model(tp: object) -> bool:
    """A TypedDict, a dataclass, a msgspec ``Struct`` or a pydantic model (a named type)."""
    return isinstance(tp, type) and (typing_extensions.is_typeddict(tp) or dataclasses.is_dataclass(tp)
                                     or hasattr(tp, "__struct_fields__")
                                     or callable(getattr(tp, "model_json_schema", None)))


def _field_types(tp: type) -> list[object]:
    """The annotations of a model's fields (where its nested models are)."""
    fields: object = getattr(tp, "model_fields", None)  # pydantic
    if isinstance(fields, dict):
        return [getattr(field, "annotation", None) for field in fields.values()]
    try:
        hints = typing_extensions.get_type_hints(tp, include_extras=True)
    except (NameError, TypeError):
        return []
    struct_fields: object = getattr(tp, "__struct_fields__", None)  # msgspec
    if isinstance(struct_fields, tuple):
        return [hints[name] for name in struct_fields if name in hints]
    return list(hints.values())


def _top_definition(schema: JSONData) -> str | None:
    """``X`` when ``schema`` is ``{"$ref": "#/definitions/X", "definitions": {"X": ...}}`` (a
    msgspec export: the model itself is one of its definitions)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("definitions"), dict):
        return None
    ref = _ref_of(schema)
    name = ref[len("#/definitions/"):] if ref is not None and ref.startswith("#/definitions/") else None
    return name if name is not None and name in schema["definitions"] else None


def _model_body(schema: JSONData) -> JSONData:
    """A model's schema without its definitions: as another export holds it among its own."""
    top = _top_definition(schema)
    if top is not None:
        assert isinstance(schema, dict)
        body: JSONData = schema["definitions"][top]
        return body
    return {key: value for key, value in schema.items() if key != "definitions"} if isinstance(schema, dict) else schema


def _rewrite_refs(node: JSONData, refs: Mapping[str, str]) -> JSONData:
    if isinstance(node, dict):
        return {key: (value if key in DATA_KEYWORDS else
                      refs.get(value, value) if key == "$ref" and isinstance(value, str) else _rewrite_refs(value, refs))
                for key, value in node.items()}
    if isinstance(node, list):
        return [_rewrite_refs(item, refs) for item in node]
    return node


def _replace_models(node: JSONData, targets: list[tuple[JSONData, str]], top: bool) -> JSONData:
    """``node`` with each subschema equal to a model's schema replaced by a ``$ref`` to it
    (not ``node`` itself when ``top``: a model's own document)."""
    if isinstance(node, dict):
        if not top:
            for schema, ref in targets:
                if node == schema:
                    return {"$ref": ref}
        return {key: (value if key in DATA_KEYWORDS else _replace_models(value, targets, False))
                for key, value in node.items()}
    if isinstance(node, list):
        return [_replace_models(item, targets, False) for item in node]
    return node


class _Models:
    """The Python models typed routes were declared with: each is a shared schema of its own
    (an internal id), so that the document names it once under ``components/schemas`` (its
    class name; ``module.Class`` when another model took the name) and refers to it."""

    def __init__(self) -> None:
        self.ids: dict[type, str] = {}
        self.documents: dict[str, JSONData] = {}
        self.schemas: dict[str, JSONData] = {}
        self.names: dict[str, list[str]] = {}

    def ids_in(self, tp: object) -> list[str]:
        """The ids of the models ``tp`` is or contains (registered on first sight)."""
        found: list[str] = []
        seen: set[object] = set()
        stack: list[object] = [tp]
        while stack:
            item = stack.pop()
            try:
                if item in seen:
                    continue
                seen.add(item)
            except TypeError:  # an unhashable annotation argument
                continue
            if _is_model(item):
                assert isinstance(item, type)
                model_id = self._register(item)
                if model_id is not None:
                    found.append(model_id)
                stack.extend(_field_types(item))
            else:
                stack.extend(typing_extensions.get_args(item))
        return found

    def _register(self, model: type) -> str | None:
        if model in self.ids:
            return self.ids[model]
        try:
            schema = schema_of(model)
        except TypeSchemaError:  # a field no route's schema holds (a ClassVar, say): nothing to name
            return None
        model_id = f"{_MODEL_ID}{len(self.ids)}"
        self.ids[model] = model_id
        self.schemas[model_id] = schema
        self.names[model_id] = [_COMPONENT_NAME.sub("_", model.__name__),
                                _COMPONENT_NAME.sub("_", f"{model.__module__}.{model.__qualname__}")]
        self.documents[model_id] = schema  # placeholder while its fields' models register
        nested = [i for field in _field_types(model) for i in self.ids_in(field) if i != model_id]
        document = _replace_models(schema, self.targets(nested), True)
        self.documents[model_id] = self._own_definitions(model_id, document, nested)
        return model_id

    def _own_definitions(self, model_id: str, document: JSONData, nested: list[str]) -> JSONData:
        """A msgspec or pydantic export keeps its nested models (and, for msgspec, itself)
        under its own ``definitions``: the entry that is the model becomes the component's
        top, and the entries that are other models references to their components."""
        if not isinstance(document, dict) or not isinstance(document.get("definitions"), dict):
            return document
        definitions: dict[str, JSONData] = document["definitions"]
        top_name = _top_definition(document)
        refs: dict[str, str] = {top_name: model_id + "#"} if top_name is not None else {}
        for name, entry in definitions.items():
            replaced = _ref_of(entry)
            if name not in refs and replaced is not None and replaced.startswith(_MODEL_ID) and isinstance(entry, dict) \
                    and len(entry) == 1:
                refs[name] = replaced  # an entry _replace_models made a reference already
                continue
            match = next((i for i in nested if name not in refs and entry == _model_body(self.schemas[i])), None)
            if match is not None:
                refs[name] = match + "#"
        if not refs:
            return document
        own: JSONData = definitions[top_name] if top_name is not None else None
        top: dict[str, Any] = dict(own) if isinstance(own, dict) else \
            {k: v for k, v in document.items() if k != "definitions"}
        rest = {name: entry for name, entry in definitions.items() if name not in refs}
        if rest:
            top["definitions"] = rest
        return _rewrite_refs(top, {"#/definitions/" + escape_token(name): ref for name, ref in refs.items()})

    def targets(self, ids: Iterable[str]) -> list[tuple[JSONData, str]]:
        """What :func:`_replace_models` replaces: the models' schemas, by reference."""
        return [(self.schemas[i], i + "#") for i in dict.fromkeys(ids)]


# --------------------------------------------------------------------------- operations

def _openapi_path(url: str) -> tuple[str, list[str]]:
    """``/items/:id`` -> ``/items/{id}``; the names of the path parameters, in order."""
    names: list[str] = []
    segments = url.split("/")
    for index, segment in enumerate(segments):
        if segment.startswith(":") and len(segment) > 1:
            names.append(segment[1:])
            segments[index] = "{" + segment[1:] + "}"
        elif segment == "*" and index == len(segments) - 1:
            names.append("*")
            segments[index] = "{*}"
    return "/".join(segments), names


def _is_content_map(schema: JSONData) -> TypeGuard[dict[str, Any]]:
    if not isinstance(schema, dict):
        return False
    content: JSONData = schema.get("content")
    return isinstance(content, dict) and bool(content) and all(
        isinstance(entry, dict) and "schema" in entry for entry in content.values())


def _is_item_content_map(schema: JSONData) -> TypeGuard[dict[str, Any]]:
    """A response ``content`` map: each entry gives a ``schema``, an ``itemSchema`` (a typed
    stream), or both."""
    if not isinstance(schema, dict):
        return False
    content: JSONData = schema.get("content")
    return isinstance(content, dict) and bool(content) and all(
        isinstance(entry, dict) and ("schema" in entry or "itemSchema" in entry) for entry in content.values())


def _reason(status: str) -> str:
    if status == "default":
        return "Default Response"
    if status.endswith("XX"):
        return {"1": "Informational", "2": "Success", "3": "Redirection", "4": "Client Error",
                "5": "Server Error"}.get(status[0], "Response")
    try:
        return HTTPStatus(int(status)).phrase
    except ValueError:
        return "Response"


def _media_types(value: JSONData | tuple[Any, ...], what: str, route: Route) -> list[str]:
    if value is None:
        return ["application/json"]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise OpenAPIError(f"{route.method} {route.url}: {what} must be a media type or a list of them")
    return list(value)


class _OperationBuilder:
    """One route's operation: its schemas normalized as the engines get them, then converted."""

    def __init__(self, route: Route, components: _Components, options: Mapping[str, Any]) -> None:
        self.route = route
        self.schema = route.schema
        self.components = components
        self.options = options
        self.shared: Mapping[str, Any] = route.context.get_schemas()
        types: Mapping[str, tuple[Any, str]] = route.options.get("types") or {}
        model_ids = [model_id for tp, _origin in types.values() for model_id in components.models.ids_in(tp)]
        self.model_targets = components.models.targets(model_ids)
        if model_ids:
            models = components.models
            self.shared = {**self.shared, **{model_id: models.documents[model_id] for model_id in models.documents}}
            components.preferred.update(models.names)
        path, self.path_names = _openapi_path(route.url)
        self.path = path
        slug = re.sub(r"[^A-Za-z0-9]+", "_", route.url).strip("_") or "root"
        self.slug = f"{route.method.lower()}_{slug}"

    # A part's schema as the document writes it.
    def _document_schema(self, schema: JSONData, part: str) -> JSONData:
        schema = _expanded(schema, self.shared)
        if self.model_targets:
            schema = _replace_models(schema, self.model_targets, False)
        if _has_local_ref(schema):
            return {"$ref": "#/components/schemas/" + self.components.hoist(schema, f"{self.slug}.{part}", self.shared)}
        return self.components.convert(schema, None, self.shared)

    def _properties(self, normalized: JSONData, part: str) -> tuple[dict[str, Any], list[str]] | None:
        """The properties of an input schema (through a top-level ``$ref``), converted."""
        schema: JSONData = _expanded(normalized, self.shared)
        document: JSONData = schema
        hops = 0
        ref = _ref_of(schema)
        while ref is not None and hops < 16:
            try:
                schema, document = _resolve(ref, document, self.shared)
            except UnresolvableRefError as error:
                raise OpenAPIError(f"{self.route.method} {self.route.url}: {error}") from error
            hops += 1
            ref = _ref_of(schema)
        if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
            return None
        if document is not normalized and isinstance(document, dict) and isinstance(document.get("$id"), str) \
                and not document["$id"].startswith("#"):
            doc_name: str | None = self.components.shared(document, document["$id"], self.shared)
        elif _has_local_ref(document):
            doc_name = self.components.hoist(document, f"{self.slug}.{part}", self.shared)
        else:
            doc_name = None

        def convert(sub: JSONData) -> JSONData:
            return to_openapi_schema(sub, lambda ref: self.components.reference(ref, document, doc_name, self.shared),
                                     self.components.closed)

        properties = {name: convert(sub) for name, sub in schema["properties"].items()}
        listed: Iterable[object] = schema.get("required", [])
        required = [r for r in listed if isinstance(r, str)]
        return properties, required

    def parameters(self) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = []
        params = self.schema.get("params")
        found = self._properties(normalize_input_schema(params, "params"), "params") if params is not None else None
        properties = found[0] if found else {}
        for name in self.path_names:
            parameter: dict[str, Any] = {"name": name, "in": "path", "required": True,
                                         "schema": properties.get(name, {"type": "string"})}
            if name == "*":
                parameter.setdefault("description", "the rest of the path (it may contain '/')")
            parameters.append(_lift_description(parameter))
        for part, where in (("querystring", "query"), ("headers", "header")):
            raw = self.schema.get(part)
            if raw is None:
                continue
            normalized = normalize_input_schema(raw, part)
            found = self._properties(normalized, part)
            if found is None:
                parameters.append({"name": part, "in": where, "schema": self._document_schema(normalized, part),
                                   **({"style": "form", "explode": True} if where == "query" else {})})
                continue
            properties, required = found
            for name, sub in properties.items():
                parameter = {"name": name, "in": where, "schema": sub}
                if name in required:
                    parameter["required"] = True
                parameters.append(_lift_description(parameter))
        return parameters

    def request_body(self) -> dict[str, Any] | None:
        body = self.schema.get("body")
        if body is None or self.route.method not in BODY_METHODS:
            return None
        if _is_content_map(body):
            content = {media_type: {"schema": self._document_schema(normalize_input_schema(entry["schema"], "body"),
                                                                     "body")}
                       for media_type, entry in body["content"].items()}
        else:
            schema = self._document_schema(normalize_input_schema(body, "body"), "body")
            content = {media_type: {"schema": schema}
                       for media_type in _media_types(self.schema.get("consumes"), "consumes", self.route)}
        request_body: dict[str, Any] = {"required": True, "content": content}
        if is_object(body) and isinstance(body.get("description"), str):
            request_body["description"] = body["description"]
        return request_body

    def responses(self, validates: bool, guarded: bool, scoped: bool = False) -> dict[str, Any]:
        responses: dict[str, Any] = {}
        declared: dict[Any, Any] = self.schema.get("response") or {}
        entry: JSONData
        for key, entry in declared.items():
            status = str(key).lower()
            status = status.replace("xx", "XX")
            if _is_item_content_map(entry):
                content = {media_type: self._media_type_object(media_type, item, status)
                           for media_type, item in entry["content"].items()}
            elif entry is None:
                content = {}
            else:
                schema = self._document_schema(entry, f"response{status}")
                content = {media_type: {"schema": schema}
                           for media_type in _media_types(self.schema.get("produces"), "produces", self.route)}
            description = entry.get("description") if isinstance(entry, dict) else None
            response: dict[str, Any] = {"description": description if isinstance(description, str) else _reason(status)}
            if content and not (status in ("204", "304") or status.startswith("1")):
                response["content"] = content
            responses[status] = response
        if not responses:
            responses["default"] = {"description": _reason("default")}
        _add_negotiated_media_types(responses, self.route)
        if self.options.get("error_responses", True):
            problems = self.route.context.error_format == "problem+json"
            media_type, name = ("application/problem+json", PROBLEM_SCHEMA) if problems else \
                ("application/json", ERROR_SCHEMA)
            strict = bool(self.route.options.get("strict_accept"))  # a 406 for an Accept it cannot meet
            for status, applies in (("400", validates), ("401", guarded), ("403", scoped), ("406", strict)):
                if applies and status not in responses and f"{status[0]}XX" not in responses:
                    responses[status] = {"description": _reason(status), "content": {media_type: {
                        "schema": {"$ref": f"#/components/schemas/{name}"}}}}
            for status, response in _hook_responses(self.route).items():
                if status not in responses and f"{status[0]}XX" not in responses:
                    responses[status] = _as_problem(copy.deepcopy(response)) if problems else copy.deepcopy(response)
        return responses

    def _media_type_object(self, media_type: str, item: dict[str, Any], status: str) -> dict[str, Any]:
        """A response content entry with an ``itemSchema`` (a typed stream), as the
        document's version writes it: 3.2's ``itemSchema``, or 3.1's fallback."""
        found: dict[str, Any] = {}
        if "schema" in item:
            found["schema"] = self._document_schema(item["schema"], f"response{status}")
        if "itemSchema" not in item:
            return found
        item_schema = self._document_schema(item["itemSchema"], f"response{status}.item")
        if media_type.split(";")[0].strip().lower() == "text/event-stream":
            # The item of an event stream is the event; the route's schema is its data's.
            item_schema = {"type": "object", "properties": {
                "event": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer", "minimum": 0},
                "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": item_schema}}}
        if self.options.get("openapi_version", OPENAPI_VERSION).startswith("3.2"):
            found["itemSchema"] = item_schema
        else:
            found.setdefault("schema", {"type": "array", "items": item_schema})
            found["x-oai-itemSchema"] = item_schema
        return found

    def operation(self, guarded: bool, security: list[dict[str, list[str]]] | None = None) -> dict[str, Any]:
        schema = self.schema
        operation: dict[str, Any] = {}
        for key in _DOC_KEYS:
            if key in schema:
                operation[key] = copy.deepcopy(schema[key])
        if "operation_id" in schema:
            operation["operationId"] = schema["operation_id"]
        if "external_docs" in schema:
            operation["externalDocs"] = copy.deepcopy(schema["external_docs"])
        if "tags" not in schema and self.route.plugin != "root":
            operation["tags"] = [self.route.plugin]  # the plugin that declared the route
        summary, description = _docstring(self.route.options.get("handler"))
        if summary and "summary" not in schema:
            operation["summary"] = summary
        if description and "description" not in schema:
            operation["description"] = description
        parameters = self.parameters()
        if parameters:
            operation["parameters"] = parameters
        request_body = self.request_body()
        if request_body is not None:
            operation["requestBody"] = request_body
        validates = any(schema.get(part) is not None for part in ("params", "querystring", "headers")) or \
            request_body is not None
        # Scopes are required: valid credentials without them are a 403 (RFC 6750 insufficient_scope).
        scoped = any(scopes for requirement in security or () for scopes in requirement.values())
        operation["responses"] = self.responses(validates, guarded or bool(security), scoped)
        if "security" not in operation and security:  # framework.plugins.auth's, and bearer_auth's with it
            operation["security"] = [{**requirement, **({SECURITY_SCHEME: []} if guarded else {})}
                                     for requirement in security]
        elif "security" not in operation and guarded:
            operation["security"] = [{SECURITY_SCHEME: []}]
        return operation


def _docstring(handler: object) -> tuple[str, str]:
    """A handler function's docstring as ``(summary, description)``: its first line, the
    rest (a callable object's class docstring says nothing of the route: not used)."""
    if not (inspect.isfunction(handler) or inspect.ismethod(handler)):
        return "", ""
    doc = inspect.getdoc(handler) or ""
    first, _, rest = doc.partition("\n")
    return first.strip(), rest.strip()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text.replace("*", "rest")).strip("_")


def default_operation_id(route: Route, shared_handler: bool = False) -> str:
    """The ``operationId`` of a route that does not set ``operation_id``: the handler's name,
    after the declaring context's prefix (``items_get_item`` for ``get_item`` under
    ``/items``); for a handler without a name of its own (a lambda, a callable object) or one
    serving several operations (``shared_handler``), the method and the path
    (``get_items_id`` for ``GET /items/:id``)."""
    name = getattr(route.options.get("handler"), "__name__", "")
    if isinstance(name, str) and name.isidentifier() and not shared_handler and inspect.isroutine(
            route.options.get("handler")):
        prefix = _slug(route.context.prefix)
        return f"{prefix}_{name}" if prefix else name
    return f"{route.method.lower()}_{_slug(route.url) or 'root'}"


def _mount_path_item(route: Route) -> tuple[str, dict[str, Any]]:
    """A ``mount()``ed application's one path item: ``<prefix>/{path}``, no operations (its
    routes are its own), a description saying so."""
    prefix = route.url[:-2] if route.url.endswith("/*") else route.url
    handler = route.options.get("handler")
    name = getattr(handler, "__name__", "mount(application)")
    item: dict[str, Any] = {
        "summary": f"Mounted WSGI application {name}",
        "description": (f"Every method and path below {prefix} (and {prefix} itself) is answered by a "
                        f"mounted WSGI application ({name}, instance.mount), not described by this "
                        "document."),
        "parameters": [{"name": "path", "in": "path", "required": True, "schema": {"type": "string"},
                        "description": "the rest of the path, given to the mounted application (it may contain '/')"}],
    }
    return _openapi_path(prefix)[0] + "/{path}", item


def _lift_description(parameter: dict[str, Any]) -> dict[str, Any]:
    schema: JSONData = parameter.get("schema")
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        parameter.setdefault("description", schema["description"])
    return parameter


def _add_negotiated_media_types(responses: dict[str, Any], route: Route) -> None:
    """The media types the route's context registered with ``add_response_serializer``,
    as content (without a schema: a function makes them) of its success responses."""
    registered = route.context.scope().response_serializers
    if not registered:
        return
    for status, response in responses.items():
        if status == "default" or (status.startswith("2") and status != "204"):
            content = response.setdefault("content", {"application/json": {}})
            for media_type in registered:
                content.setdefault(media_type, {})


def _as_problem(response: dict[str, Any]) -> dict[str, Any]:
    """A hook's response documented with the framework's error body, as the problem document it is
    in an application made with ``errors="problem+json"``."""
    error_content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"}}}
    if response.get("content") == error_content:
        response["content"] = {"application/problem+json": {"schema": {"$ref": f"#/components/schemas/{PROBLEM_SCHEMA}"}}}
    return response


def _hook_responses(route: Route) -> dict[str, Any]:
    """The answers a route's own request hooks say they may send: a hook with an
    ``openapi_responses`` attribute (status -> OpenAPI response object), such as the check
    ``framework.plugins.rate_limit`` puts on each route it limits (its ``429``), or the
    ``on_send`` hook of ``framework.plugins.etag`` (its ``304``)."""
    found: dict[str, Any] = {}
    for name in ("on_request", "pre_parsing", "pre_validation", "pre_handler", "on_send"):
        for hook in route.own_hooks(name):
            found.update(getattr(hook, "openapi_responses", None) or {})
    return found


def _guarded(route: Route) -> bool:
    """Whether ``framework.plugins.bearer_auth`` guards the route (asked through its public decorator)."""
    context = route.context
    if not context.has_decorator("bearer_auth_guard"):
        return False
    return bool(context.bearer_auth_guard.guards(route))


def _auth_security(route: Route) -> tuple[list[dict[str, list[str]]], dict[str, dict[str, Any]]]:
    """The ``security`` of a route ``framework.plugins.auth`` guards, and the schemes it names
    (asked through its public ``auth_guard`` decorator)."""
    context = route.context
    if not context.has_decorator("auth_guard"):
        return [], {}
    return context.auth_guard.security(route), context.auth_guard.security_schemes(route)


def _resolve(ref: str, document: JSONData, shared: Mapping[str, Any]) -> tuple[JSONData, JSONData]:
    """``(target, the document holding it)`` for ``ref`` met at the top of ``document``,
    through the framework's one resolver."""
    index = RefIndex(document, shared)
    target, outer = index.resolve(ref, base_inside(document, ""))
    owner = index.resources.get(base_inside(target, outer))
    return target, owner[0] if owner is not None else document


def build_document(context: Context, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``context``'s routes and its descendants' (after ``ready()``
    has loaded every plugin). ``options`` as the plugin's."""
    options = dict(options or {})
    components = _Components(closed=not options.get("remove_additional", True))
    paths: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, int, str]] = set()
    operation_ids: dict[str, str] = {}
    any_guarded = False
    security_schemes: dict[str, dict[str, Any]] = {}  # framework.plugins.auth's, by name
    uses_errors = uses_problems = False
    transform = options.get("transform")
    documented: list[Route] = []
    mounts: dict[str, dict[str, Any]] = {}
    for route in context.routes():
        if route.method not in OPENAPI_METHODS or route.schema.get("hide"):
            continue
        if route.options.get("mount"):
            path, item = _mount_path_item(route)
            mounts.setdefault(path, item)
            continue
        # "/items/" beside "/items": one declaration, documented once; "/items/:id?" is two
        # paths ("/items/{id}" and "/items"): a path parameter is always required in OpenAPI.
        key = (route.method, id(route.options), route.url.rstrip("/"))
        if key in seen:
            continue
        seen.add(key)
        documented.append(route)
    handler_uses: dict[int, int] = {}
    for route in documented:
        handler_uses[id(route.options.get("handler"))] = handler_uses.get(id(route.options.get("handler")), 0) + 1
    for route in documented:
        builder = _OperationBuilder(route, components, options)
        guarded = _guarded(route)
        security, schemes = _auth_security(route)
        for name, scheme in schemes.items():
            if security_schemes.setdefault(name, scheme) != scheme:
                raise OpenAPIError(f"two different security schemes are named {name!r}: give one of them name=")
        operation = builder.operation(guarded, security)
        operation.setdefault("operationId", default_operation_id(route, handler_uses[id(route.options.get("handler"))] > 1))
        if transform is not None:
            transformed: JSONData = transform(operation, route)
            if not isinstance(transformed, dict):
                raise OpenAPIError(f"transform must return the operation (a dict), got {type(transformed).__name__}")
            operation = transformed
        operation_id = operation.get("operationId")
        if operation_id is not None:
            where = f"{route.method} {route.url}"
            if operation_id in operation_ids:
                raise OpenAPIError(f"duplicate operation_id {operation_id!r}: {operation_ids[operation_id]} and {where} "
                                   "(give one of them its own schema 'operation_id')")
            operation_ids[operation_id] = where
        any_guarded = any_guarded or any(SECURITY_SCHEME in requirement for requirement in operation.get("security", []))
        responses = json.dumps(operation.get("responses"))
        uses_errors = uses_errors or f"#/components/schemas/{ERROR_SCHEMA}" in responses
        uses_problems = uses_problems or f"#/components/schemas/{PROBLEM_SCHEMA}" in responses
        paths.setdefault(builder.path, {})[route.method.lower()] = operation
    document: dict[str, Any] = {"openapi": options.get("openapi_version", OPENAPI_VERSION),
                                "info": copy.deepcopy(options.get("info") or {"title": "API", "version": "0.1.0"})}
    if options.get("servers"):
        document["servers"] = copy.deepcopy(options["servers"])
    if options.get("security"):
        document["security"] = copy.deepcopy(options["security"])
    if options.get("tags"):
        document["tags"] = copy.deepcopy(options["tags"])
    if options.get("external_docs"):
        document["externalDocs"] = copy.deepcopy(options["external_docs"])
    for path, item in mounts.items():
        paths.setdefault(path, item)
    document["paths"] = paths
    # Every shared schema visible to the documented contexts is a component, used or not.
    for each in context.walk():
        for schema_id, schema in each.get_schemas().items():
            components.shared(schema, schema_id, each.get_schemas())
    all_components: dict[str, Any] = copy.deepcopy(dict(options.get("components") or {}))
    schemas = {**components.schemas, **all_components.get("schemas", {})}
    if uses_errors:
        schemas.setdefault(ERROR_SCHEMA, copy.deepcopy(_ERROR_BODY))
    if uses_problems:
        schemas.setdefault(PROBLEM_SCHEMA, copy.deepcopy(_PROBLEM_BODY))
    if schemas:
        all_components["schemas"] = schemas
    if any_guarded:
        all_components.setdefault("securitySchemes", {}).setdefault(
            SECURITY_SCHEME, {"type": "http", "scheme": "bearer"})
    for name, scheme in security_schemes.items():
        all_components.setdefault("securitySchemes", {}).setdefault(name, copy.deepcopy(scheme))
    if all_components:
        document["components"] = all_components
    return document


# --------------------------------------------------------------------------- the page

def _yaml() -> Any:
    """PyYAML (``pip install 'framework[openapi]'``), or ``None`` without it."""
    try:
        import yaml
    except ImportError:
        return None
    return yaml


def _swagger_ui_files() -> Path | None:
    try:
        from swagger_ui_bundle import swagger_ui_path  # pyright: ignore[reportMissingTypeStubs]  # no types shipped
    except ImportError:
        return None
    path = Path(str(swagger_ui_path))
    return path if (path / "swagger-ui-bundle.js").is_file() else None


#: The assets the page loads (served from memory, read once).
_ASSETS = {"swagger-ui.css": "text/css; charset=utf-8",
           "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
           "favicon-32x32.png": "image/png"}

#: The page's own script: a file, not inline, so the page's policy can forbid inline scripts.
#: It reads the document's URL from the page (where the mount puts it).
_INIT_JS = b"""window.ui = SwaggerUIBundle({
  url: document.getElementById("swagger-ui").dataset.url,
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  docExpansion: "list",
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
});
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="{static}/swagger-ui.css">
<link rel="icon" type="image/png" href="{static}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui" data-url="{json_url}"></div>
<script src="{static}/swagger-ui-bundle.js"></script>
<script src="{static}/init.js"></script>
</body>
</html>
"""

#: What the page may load: its own scripts and styles (Swagger UI sets inline styles and
#: draws icons from data: URIs), requests to its own origin ("Try it out"), nothing framed.
_PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data:; connect-src 'self'{servers}; object-src 'none'; base-uri 'none'; "
                "form-action 'self'; frame-ancestors 'self'")

#: A mount point the page may name in its links: path segments of URL-safe characters
#: (the value comes from the WSGI server or middleware, through ``SCRIPT_NAME``).
_MOUNT_PATH = re.compile(r"(?:/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*")


def mount_path(request: Request) -> str:
    """Where the application is mounted (``SCRIPT_NAME``, e.g. by werkzeug's
    ``DispatcherMiddleware``), or ``""`` at the root or when the value is not a plain path."""
    script_name: object = request.environ.get("SCRIPT_NAME", "")
    if isinstance(script_name, str) and _MOUNT_PATH.fullmatch(script_name):
        return script_name.rstrip("/")
    return ""


_MISSING_UI = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><p>Swagger UI is not installed: <code>pip install 'framework[openapi]'</code>
(the <code>swagger-ui-bundle-v2</code> package). The document is at
<a href="{json_url}">{json_url}</a>.</p></body></html>
"""


class _Documentation:
    """The document built once (at ``ready()``) and kept as JSON bytes."""

    def __init__(self, instance: Context, options: dict[str, Any]) -> None:
        self.instance = instance
        self.options = options
        self.body: bytes | None = None
        self.yaml_body: bytes | None = None  # with PyYAML only
        self.builds = 0
        self._lock = threading.Lock()

    def build(self) -> None:
        with self._lock:
            if self.body is None:
                document = build_document(self.instance, self.options)
                self.body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                self.builds += 1

    def _yaml_bytes(self) -> bytes:
        """The document as YAML, made on the first request for it (PyYAML's pure-Python
        dumper takes tens of milliseconds: not every worker's boot should pay for it), then kept."""
        if self.body is None:
            self.build()
        with self._lock:
            if self.yaml_body is None:
                assert self.body is not None
                yaml = _yaml()
                dumper = getattr(yaml, "CSafeDumper", None) or yaml.SafeDumper  # libyaml's when PyYAML has it
                self.yaml_body = yaml.dump(json.loads(self.body), Dumper=dumper, sort_keys=False,
                                           allow_unicode=True).encode("utf-8")
            return self.yaml_body

    def send_yaml(self, request: Request, reply: Reply) -> Reply:
        body = self._yaml_bytes()
        mounted = mount_path(request)
        if mounted and not self.options.get("servers"):
            # As send_json does; a JSON string is a YAML scalar, and the key goes first.
            body = b"servers:\n- url: " + json.dumps(mounted).encode("utf-8") + b"\n" + body
        return reply.header("x-content-type-options", "nosniff").type("application/yaml").send(body)

    def document(self) -> dict[str, Any]:
        """``instance.openapi()``: the document (a new dict each call)."""
        if self.body is None:
            self.instance.ready()
            self.build()
        assert self.body is not None
        document: dict[str, Any] = json.loads(self.body)
        return document

    def send_json(self, request: Request, reply: Reply) -> Reply:
        if self.body is None:  # lazy apps, or a request from an on_ready hook
            self.build()
        assert self.body is not None
        body = self.body
        mounted = mount_path(request)
        if mounted and not self.options.get("servers"):
            # Mounted below a prefix: the operations' paths are relative to it ("Try it out"
            # and generated clients must call the prefix), so the document names it.
            servers = json.dumps([{"url": mounted}], separators=(",", ":")).encode("utf-8")
            body = b'{"servers":' + servers + b"," + body[1:]
        return reply.header("x-content-type-options", "nosniff").type("application/json; charset=utf-8").send(body)


def _check_options(opts: Mapping[str, Any]) -> dict[str, Any]:
    options = dict(opts or {})
    unknown = sorted(set(options) - set(_OPTIONS) - set(_IGNORED))
    if unknown:
        raise OpenAPIError(f"openapi: unknown option(s) {', '.join(unknown)}; known: {', '.join(_OPTIONS)}")
    info: JSONData = options.get("info")
    if info is not None and (not isinstance(info, dict) or not isinstance(info.get("title"), str)
                             or not isinstance(info.get("version"), str)):
        raise OpenAPIError("openapi: info must be a dict with a 'title' and a 'version' (strings)")
    servers: JSONData = options.get("servers")
    if servers is not None and (not isinstance(servers, list) or
                                not all(is_object(s) and isinstance(s.get("url"), str) for s in servers)):
        raise OpenAPIError("openapi: servers must be a list of {'url': ...} dicts")
    if options.get("openapi_version", OPENAPI_VERSION) not in OPENAPI_VERSIONS:
        raise OpenAPIError(f"openapi: openapi_version must be one of {', '.join(OPENAPI_VERSIONS)}")
    transform = options.get("transform")
    if transform is not None and not callable(transform):
        raise OpenAPIError("openapi: transform must be a function (operation, route) -> operation")
    route_prefix: JSONData = options.get("route_prefix", "/documentation")
    if route_prefix is not None and (not isinstance(route_prefix, str) or not route_prefix.startswith("/")):
        raise OpenAPIError("openapi: route_prefix must be a path starting with '/', or None")
    options["route_prefix"] = route_prefix.rstrip("/") if route_prefix else route_prefix
    return options


def _openapi(instance: Context, opts: Mapping[str, Any]) -> None:
    options = _check_options(opts)
    documentation = _Documentation(instance, options)
    instance.decorate("openapi", documentation.document)
    instance.add_hook("on_ready", documentation.build)
    route_prefix = options["route_prefix"]
    if not route_prefix:
        return
    internal = {"schema": {"hide": True}}  # the plugin's own routes are not operations
    base = instance.prefix + route_prefix
    info: dict[str, Any] = options.get("info") or {}
    title = html.escape(str(info.get("title", "API")))
    instance.get(route_prefix + "/json", dict(internal), documentation.send_json)
    if _yaml() is not None:
        instance.get(route_prefix + "/openapi.yaml", dict(internal), documentation.send_yaml)
    files = _swagger_ui_files() if options.get("ui", True) else None
    if files is None:
        if not options.get("ui", True):
            return
        template = _MISSING_UI
        instance.log.warning("openapi: swagger-ui-bundle-v2 is not installed; %s explains how to install it", base)
    else:
        template = _PAGE
        assets = {name: ((files / name).read_bytes(), content_type) for name, content_type in _ASSETS.items()}
        assets["init.js"] = (_INIT_JS, "application/javascript; charset=utf-8")

        def static(request: Request, reply: Reply) -> Reply:
            found = assets.get(request.params["file"])
            if found is None:
                return reply.call_not_found()
            body, content_type = found
            return (reply.header("cache-control", "public, max-age=86400").header("x-content-type-options", "nosniff")
                    .type(content_type).send(body))

        instance.get(route_prefix + "/static/:file", dict(internal), static)
    origins = sorted({_origin(server["url"]) for server in options.get("servers") or ()} - {""})
    policy = _PAGE_POLICY.format(servers="".join(" " + origin for origin in origins))

    def page_handler(request: Request, reply: Reply) -> Reply:
        # The links carry the mount point, so the page works below a DispatcherMiddleware prefix.
        where = html.escape(mount_path(request) + base)
        page = template.format(title=title, static=where + "/static", json_url=where + "/json")
        return (reply.header("x-content-type-options", "nosniff").header("content-security-policy", policy)
                .type("text/html; charset=utf-8").send(page.encode("utf-8")))

    instance.get(route_prefix, dict(internal), page_handler)


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of an absolute server URL (its "Try it out" requests go
    there), or ``""`` for a relative one."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""


_openapi.__doc__ = __doc__
#: The plugin: ``register(openapi, info={...})``. Runs in the registering context.
openapi = plugin(_openapi, name="openapi")
