"""The API as a contract: ``python -m framework contract lock|check``.

:func:`lock` reads a ready application's routes into a plain, diff-friendly dict (written as
JSON with sorted keys): per ``"METHOD /url"``, every input part (``params``,
``querystring``, ``headers``, ``body`` by media type) and every response schema by status
and media type, each normalized as the engines get it and with every ``$ref`` resolved
inline (through the one resolver, :class:`framework.schemas.store.RefIndex`), plus the
route's security requirements::

    {"contract": 1, "notes": [...], "routes": {"GET /items/:id": {
        "request": {"params": {...}, "querystring": {...}, "headers": {...},
                    "body": {"application/json": {...}}},
        "responses": {"200": {"application/json": {...}}},
        "security": [{"bearerAuth": []}]}}}

:func:`check` compares two contracts and returns every difference as a :class:`Change`,
classified by the rules of oasdiff (its rule ids, ``request-property-became-required``,
``response-required-property-removed``...), ``breaking`` when oasdiff's ``breaking`` command
reports it (its ``ERR`` and ``WARN`` levels). Each change names the route and a JSON pointer
into that route's entry of the contract.

Auth is read from the OpenAPI document when the application registers
``framework.plugins.openapi`` (the operation's ``security``, or the document's); otherwise
only a route's own ``schema["security"]`` is recorded, and the contract's ``notes`` say so.
"""
# The application is read through ContractApp (a Protocol): the devtools sit below the
# application and never import it.
from __future__ import annotations

import copy
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol

from ..http.media_types import declared_essence
from ..lifecycle.inputs import BODY_SCHEMA_METHODS, is_content_map
from ..lifecycle.responses import is_response_content_map
from ..schemas.keywords import ANNOTATION_KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES
from ..schemas.store import RefIndex, base_inside, escape_token, is_array, is_object, normalize_input_schema

if TYPE_CHECKING:
    from ..route import Route

__all__ = ["Change", "lock", "check", "dumps", "load", "render", "RULES", "OWN_RULES", "CONTRACT_VERSION"]

#: The version of the contract file's layout (``"contract"`` in the file).
CONTRACT_VERSION = 1
INPUT_PARTS = ("params", "querystring", "headers", "body")
#: Dropped from the contract: they document, they do not constrain (``default``,
#: ``readOnly``, ``writeOnly`` and ``deprecated`` are kept: rules read them).
_DROPPED = (frozenset(ANNOTATION_KEYWORDS) - {"default", "readOnly", "writeOnly", "deprecated"}) | {
    "$id", "$schema", "definitions", "$defs", "$comment", "nullable"}
_MAX_REF_HOPS = 64


class ContractApp(Protocol):
    """What :func:`lock` reads of an application (``Framework`` is one): its routes once
    ready, and whether it registers the OpenAPI plugin (``app.openapi()``) for auth."""

    def ready(self) -> object: ...

    def routes(self, include_descendants: bool = True) -> "list[Route[Any]]": ...

    def has_decorator(self, name: str) -> bool: ...


@dataclass(frozen=True)
class Change:
    """One difference between two contracts.

    ``rule`` is oasdiff's rule id for it (``request-property-became-required``...; a few
    differences oasdiff has no rule for get an id in the same style, listed in the guide),
    ``level`` its severity (``"error"``, ``"warning"`` or ``"info"``, oasdiff's
    ``ERR``/``WARN``/``INFO``), ``route`` ``"METHOD /url"``, ``pointer`` a JSON pointer
    into that route's entry of the contract, ``message`` a sentence for people."""

    rule: str
    level: str
    route: str
    pointer: str
    message: str

    @property
    def breaking(self) -> bool:
        """Breaking for clients: ``error`` or ``warning`` (what ``oasdiff breaking`` reports)."""
        return self.level != "info"

    def __str__(self) -> str:
        where = f"{self.route} at {self.pointer}" if self.pointer else self.route
        return f"{self.level.upper():7} {self.rule}: {where}: {self.message}"


# --------------------------------------------------------------------------- lock

def _pointer(*tokens: Any) -> str:
    return "".join("/" + escape_token(token) for token in tokens)


class _Inliner:
    """A schema with every ``$ref`` replaced by its target, resolved by the framework's one
    resolver; a reference back into a schema being inlined becomes ``{"$recursive": ref}``."""

    def __init__(self, shared: Mapping[str, Any]) -> None:
        self.shared = shared

    def inline(self, schema: Any) -> Any:
        index = RefIndex(schema, self.shared)
        return self._node(schema, "", index, ())

    def _node(self, node: Any, outer: str, index: RefIndex, stack: tuple[int, ...]) -> Any:
        if not is_object(node):
            return copy.deepcopy(node)
        hops = 0
        while is_object(node) and isinstance(node.get("$ref"), str):
            ref = str(node["$ref"])
            target, outer = index.resolve(ref, base_inside(node, outer))
            hops += 1
            if id(target) in stack or hops > _MAX_REF_HOPS:   # back into itself: a marker, not a loop
                return {"$recursive": ref}
            node = target
        if not is_object(node):
            return copy.deepcopy(node)
        stack = (*stack, id(node))
        base = base_inside(node, outer)
        result: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED:
                continue
            if key in SCHEMA_SINGLES and (is_object(value) or isinstance(value, bool)):
                result[key] = self._node(value, base, index, stack)
            elif key in SCHEMA_MAPS and is_object(value):
                result[key] = {name: self._node(sub, base, index, stack) for name, sub in value.items()}
            elif key in SCHEMA_LISTS and is_array(value):
                result[key] = [self._node(sub, base, index, stack) for sub in value]
            else:
                result[key] = copy.deepcopy(value)
        return _normalized(result, node)


def _normalized(schema: dict[str, Any], original: Mapping[str, Any]) -> dict[str, Any]:
    """``type`` as a sorted list when several (``nullable: true`` adds ``"null"``),
    ``required`` sorted: one meaning, one spelling."""
    types: Any = schema.get("type")
    if original.get("nullable") is True and types is not None:
        listed: list[Any] = [types] if isinstance(types, str) else list(types)
        types = [*listed, "null"]
    if is_array(types):
        unique = sorted(set(types))
        schema["type"] = unique[0] if len(unique) == 1 else unique
    elif types is not None:
        schema["type"] = types
    required: Any = schema.get("required")
    if is_array(required):
        schema["required"] = sorted(set(required))
    return schema


def _openapi_path(url: str) -> str:
    """``/items/:id`` -> ``/items/{id}`` (a trailing ``*`` is ``{*}``), as the OpenAPI plugin writes paths."""
    segments = url.split("/")
    return "/".join("{" + segment[1:] + "}" if segment.startswith(":") and len(segment) > 1
                    else "{*}" if segment == "*" and index == len(segments) - 1 else segment
                    for index, segment in enumerate(segments))


def _route_security(route: "Route[Any]", document: Mapping[str, Any] | None) -> list[Any] | None:
    """The route's security requirements (``[]``: none), or ``None`` when unknown."""
    if document is not None:
        path = _openapi_path(route.url)
        paths = document.get("paths", {})
        for candidate in (path, path.rstrip("/") or "/"):
            operation: Any = paths.get(candidate, {}).get(route.method.lower())
            if is_object(operation):
                security: list[Any] = copy.deepcopy(operation.get("security", document.get("security", [])))
                return security
    declared: Any = route.schema.get("security")
    return copy.deepcopy(declared) if is_array(declared) else None


def _route_entry(route: "Route[Any]", document: Mapping[str, Any] | None) -> dict[str, Any]:
    inliner = _Inliner(route.context.get_schemas())
    schema = route.schema
    request: dict[str, Any] = {}
    for part in INPUT_PARTS:
        raw = schema.get(part)  # (a "query" alias became "querystring" at declaration: route.py)
        if raw is None or (part == "body" and route.method not in BODY_SCHEMA_METHODS):
            continue
        if part == "body":
            if is_content_map(raw):
                # By essence, as input validation keys them (a charset parameter is not a new media type).
                request["body"] = {declared_essence(media_type):
                                   inliner.inline(normalize_input_schema(entry["schema"], "body"))
                                   for media_type, entry in raw["content"].items()}
            else:
                consumes = schema.get("consumes") or ["application/json"]
                consumes = [consumes] if isinstance(consumes, str) else consumes
                body = inliner.inline(normalize_input_schema(raw, "body"))
                request["body"] = {media_type: body for media_type in consumes}
        else:
            request[part] = inliner.inline(normalize_input_schema(raw, part))
    responses: dict[str, Any] = {}
    declared: dict[Any, Any] = schema.get("response") or {}
    for key, entry in declared.items():
        status = str(key).lower().replace("xx", "XX")
        if is_response_content_map(entry):
            # A typed stream's items (itemSchema) as OpenAPI 3.2 reads a sequential media
            # type's schema: an array of them.
            responses[status] = {declared_essence(media_type):
                                 inliner.inline(item["schema"] if "schema" in item else
                                                {"type": "array", "items": item["itemSchema"]})
                                 for media_type, item in entry["content"].items()}
        elif entry is None:
            responses[status] = {}
        else:
            produces = schema.get("produces") or ["application/json"]
            produces = [produces] if isinstance(produces, str) else produces
            inlined = inliner.inline(entry)
            responses[status] = {media_type: inlined for media_type in produces}
    found: dict[str, Any] = {"request": request, "responses": responses}
    security = _route_security(route, document)
    if security is not None:
        found["security"] = security
    if schema.get("deprecated") is True:
        found["deprecated"] = True
    return found


def lock(app: ContractApp) -> dict[str, Any]:
    """The contract of ``app`` (readied first): a JSON-ready dict, see the module's text."""
    app.ready()
    notes: list[str] = []
    document: Mapping[str, Any] | None = None
    if app.has_decorator("openapi"):
        document = getattr(app, "openapi")()
    else:
        notes.append("auth: framework.plugins.openapi is not registered, so only the security a "
                     "route declares in its schema is recorded")
    routes: dict[str, Any] = {}
    seen: set[tuple[str, int, str]] = set()
    for route in app.routes():
        # "/items/" beside "/items" (a prefixed "/" route) is one declaration: kept once.
        key = (route.method, id(route.options), route.url.rstrip("/"))
        if key in seen:
            continue
        seen.add(key)
        routes[f"{route.method} {route.url}"] = _route_entry(route, document)
    return {"contract": CONTRACT_VERSION, "notes": notes, "routes": routes}


def dumps(contract: Mapping[str, Any]) -> str:
    """The contract's file text: JSON, keys sorted, indented, one trailing newline."""
    return json.dumps(contract, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load(path: str) -> dict[str, Any]:
    """A contract file read back. A missing file raises ``FileNotFoundError``; a file
    that is not a contract raises ``ValueError`` saying why."""
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    try:
        contract: Any = json.loads(text)
    except ValueError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    if not is_object(contract) or contract.get("contract") != CONTRACT_VERSION \
            or not is_object(contract.get("routes")):
        raise ValueError(f"{path} is not a contract file of version {CONTRACT_VERSION} "
                         "(write one with: python -m framework contract lock module:app)")
    routes: dict[str, Any] = contract["routes"]
    for key, entry in routes.items():
        if not (is_object(entry) and is_object(entry.get("request")) and is_object(entry.get("responses"))
                and all(is_object(value) for value in entry["responses"].values())
                and (entry.get("security") is None or is_array(entry["security"]))):
            raise ValueError(f"{path}: the entry of {key!r} is not a route's contract "
                             "(request and responses objects, security a list)")
    return contract


def render(changes: Iterable[Change]) -> str:
    """The text ``contract check`` prints: one line per change, then a count."""
    changes = list(changes)
    lines = [str(change) for change in changes]
    breaking = sum(change.breaking for change in changes)
    lines.append(f"{len(changes)} change(s), {breaking} breaking" if changes else "no changes")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- check

def check(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every difference from contract ``old`` to contract ``new``, classified (see
    :class:`Change`), in route order."""
    return _Comparison().routes(old.get("routes", {}), new.get("routes", {}))


def command(args: Any, load_app: Callable[[str], Any]) -> int:
    """``python -m framework contract lock|check``: the exit status."""
    if args.action == "lock":
        app = load_app(args.app)
        try:
            text = dumps(lock(app))
        finally:
            app.close()
        if args.output == "-":
            sys.stdout.write(text)
            return 0
        try:
            with open(args.output, "w", encoding="utf-8") as output:
                output.write(text)
        except OSError as error:
            print(f"error: cannot write {args.output}: {error.strerror}", file=sys.stderr)
            return 2
        return 0
    try:
        old = load(args.against)
    except FileNotFoundError:
        print(f"error: no contract file {args.against!r}: write one with "
              f"python -m framework contract lock {args.app} --output {args.against}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    app = load_app(args.app)
    try:
        current = lock(app)
    finally:
        app.close()
    changes = check(old, current)
    sys.stdout.write(render(changes))
    return 1 if any(change.breaking for change in changes) else 0


#: Every rule :func:`check` applies and its level: oasdiff's rule ids and levels (its
#: checker's rule table as of v1.11), but for the ids in :data:`OWN_RULES`. The security
#: rules' level depends on what is left: a first requirement on a route, an added scope and
#: a removed alternative are errors; another alternative and the last one removed are info.
RULES: dict[str, str] = {
    # routes
    "endpoint-added": "info",
    "api-removed-without-deprecation": "error",
    "api-removed-with-deprecation": "info",
    "api-path-removed-without-deprecation": "error",
    "api-path-removed-with-deprecation": "info",
    # auth ("api-security-added" is an error when the route had no requirement: see the guide)
    "api-security-added": "info",
    "api-security-removed": "error",
    "api-security-scope-added": "error",
    "api-security-scope-removed": "info",
    # parameters (path, query string, headers)
    "new-required-request-parameter": "error",
    "new-optional-request-parameter": "info",
    "request-parameter-removed": "warning",
    "request-parameter-became-required": "error",
    "request-parameter-became-optional": "info",
    "request-parameter-type-changed": "error",
    "request-parameter-type-generalized": "info",
    "request-parameter-became-enum": "error",
    "request-parameter-enum-value-removed": "error",
    "request-parameter-enum-value-added": "info",
    "request-parameter-max-length-decreased": "error",
    "request-parameter-max-length-increased": "info",
    "request-parameter-max-length-set": "warning",
    "request-parameter-min-length-increased": "error",
    "request-parameter-min-length-decreased": "info",
    "request-parameter-max-decreased": "error",
    "request-parameter-max-increased": "info",
    "request-parameter-max-set": "warning",
    "request-parameter-min-increased": "error",
    "request-parameter-min-decreased": "info",
    "request-parameter-min-set": "warning",
    "request-parameter-max-items-decreased": "error",
    "request-parameter-max-items-increased": "info",
    "request-parameter-min-items-increased": "error",
    "request-parameter-min-items-decreased": "info",
    "request-parameter-min-items-set": "warning",
    "request-parameter-pattern-added": "warning",
    "request-parameter-pattern-changed": "warning",
    "request-parameter-pattern-removed": "info",
    "request-parameter-default-value-added": "error",
    "request-parameter-default-value-changed": "error",
    "request-parameter-default-value-removed": "error",
    # request body
    "request-body-added-required": "error",
    "request-body-removed": "info",
    "request-body-media-type-added": "info",
    "request-body-media-type-removed": "error",
    "request-body-type-changed": "error",
    "request-body-type-generalized": "info",
    "request-body-became-not-nullable": "error",
    "request-body-became-nullable": "info",
    "request-body-became-enum": "error",
    "request-body-max-length-decreased": "error",
    "request-body-max-length-increased": "info",
    "request-body-max-length-set": "warning",
    "request-body-min-length-increased": "error",
    "request-body-min-length-decreased": "info",
    "request-body-max-decreased": "error",
    "request-body-max-increased": "info",
    "request-body-max-set": "warning",
    "request-body-min-increased": "error",
    "request-body-min-decreased": "info",
    "request-body-min-set": "warning",
    "request-body-min-items-increased": "error",
    "request-body-min-items-set": "warning",
    "request-body-one-of-added": "info",
    "request-body-one-of-removed": "error",
    "request-body-any-of-added": "info",
    "request-body-any-of-removed": "error",
    "request-body-all-of-added": "error",
    "request-body-all-of-removed": "warning",
    "request-body-default-value-added": "info",
    "request-body-default-value-changed": "info",
    "request-body-default-value-removed": "info",
    # request properties
    "new-required-request-property": "error",
    "new-required-request-property-with-default": "info",
    "new-optional-request-property": "info",
    "request-property-removed": "warning",
    "request-property-became-required": "error",
    "request-property-became-required-with-default": "info",
    "request-property-became-optional": "info",
    "request-property-type-changed": "error",
    "request-property-type-generalized": "info",
    "request-property-became-not-nullable": "error",
    "request-property-became-nullable": "info",
    "request-property-became-enum": "error",
    "request-property-enum-value-removed": "error",
    "request-property-enum-value-added": "info",
    "request-property-max-length-decreased": "error",
    "request-property-max-length-increased": "info",
    "request-property-max-length-set": "warning",
    "request-property-min-length-increased": "error",
    "request-property-min-length-decreased": "info",
    "request-property-max-decreased": "error",
    "request-property-max-increased": "info",
    "request-property-max-set": "warning",
    "request-property-min-increased": "error",
    "request-property-min-decreased": "info",
    "request-property-min-set": "warning",
    "request-property-min-items-increased": "error",
    "request-property-min-items-set": "warning",
    "request-property-min-items-decreased": "info",
    "request-property-max-items-decreased": "error",
    "request-property-max-items-increased": "info",
    "request-property-max-items-set": "warning",
    "request-property-pattern-added": "warning",
    "request-property-pattern-changed": "warning",
    "request-property-pattern-removed": "info",
    "request-property-one-of-added": "info",
    "request-property-one-of-removed": "error",
    "request-property-any-of-added": "info",
    "request-property-any-of-removed": "error",
    "request-property-all-of-added": "error",
    "request-property-all-of-removed": "warning",
    "request-property-default-value-added": "info",
    "request-property-default-value-changed": "info",
    "request-property-default-value-removed": "info",
    # responses
    "response-success-status-removed": "error",
    "response-success-status-added": "info",
    "response-non-success-status-removed": "info",
    "response-non-success-status-added": "info",
    "response-media-type-removed": "error",
    "response-media-type-added": "info",
    "response-required-property-removed": "error",
    "response-optional-property-removed": "warning",
    "response-required-property-added": "info",
    "response-optional-property-added": "info",
    "response-property-became-optional": "error",
    "response-property-became-required": "info",
    "response-body-type-changed": "error",
    "response-property-type-changed": "error",
    "response-body-became-nullable": "error",
    "response-property-became-nullable": "error",
    "response-property-became-not-nullable": "info",
    "response-property-enum-value-added": "warning",
    "response-property-enum-value-removed": "info",
    "response-property-became-enum": "info",
    "response-body-max-length-increased": "error",
    "response-property-max-length-increased": "error",
    "response-body-max-length-unset": "error",
    "response-property-max-length-unset": "error",
    "response-property-max-length-decreased": "info",
    "response-body-min-length-decreased": "error",
    "response-property-min-length-decreased": "error",
    "response-property-min-length-increased": "info",
    "response-body-max-increased": "error",
    "response-property-max-increased": "error",
    "response-property-max-decreased": "info",
    "response-body-min-decreased": "error",
    "response-property-min-decreased": "error",
    "response-property-min-increased": "info",
    "response-body-min-items-decreased": "error",
    "response-property-min-items-decreased": "error",
    "response-body-min-items-unset": "error",
    "response-property-min-items-unset": "error",
    "response-property-min-items-increased": "info",
    "response-property-max-items-increased": "error",
    "response-property-max-items-decreased": "info",
    "response-property-pattern-added": "info",
    "response-property-pattern-changed": "info",
    "response-property-pattern-removed": "info",
    "response-body-one-of-added": "error",
    "response-body-one-of-removed": "info",
    "response-property-one-of-added": "error",
    "response-property-one-of-removed": "info",
    "response-body-any-of-added": "info",
    "response-body-any-of-removed": "info",
    "response-property-any-of-added": "info",
    "response-property-any-of-removed": "info",
    "response-body-all-of-added": "info",
    "response-body-all-of-removed": "info",
    "response-property-all-of-added": "info",
    "response-property-all-of-removed": "info",
    "response-body-default-value-added": "info",
    "response-body-default-value-changed": "info",
    "response-body-default-value-removed": "info",
    "response-property-default-value-added": "info",
    "response-property-default-value-changed": "info",
    "response-property-default-value-removed": "info",
    # what no rule covers
    "schema-keyword-changed": "warning",
    "schema-annotation-changed": "info",
}

#: The ids of :data:`RULES` oasdiff does not have (the same style, for the differences its
#: checker does not classify; levels by the same reasoning: narrowing what a client may send
#: or widening what it may receive breaks it).
OWN_RULES = frozenset((
    "request-body-removed", "request-property-min-items-decreased", "request-property-max-items-decreased",
    "request-property-max-items-increased", "request-property-max-items-set",
    "response-property-became-not-nullable", "response-property-became-enum", "response-property-max-length-decreased",
    "response-property-min-length-increased", "response-property-max-decreased", "response-property-min-increased",
    "response-property-min-items-increased", "response-property-max-items-increased",
    "response-property-max-items-decreased", "schema-keyword-changed", "schema-annotation-changed"))

#: ``(keyword, rule name, "lower" or "upper" bound)``; ``minLength`` and ``minItems`` absent are 0.
_BOUNDS = (("maxLength", "max-length", "upper"), ("minLength", "min-length", "lower"),
           ("maximum", "max", "upper"), ("minimum", "min", "lower"),
           ("maxItems", "max-items", "upper"), ("minItems", "min-items", "lower"))
_HANDLED = frozenset(("type", "format", "enum", "const", "pattern", "default", "properties", "required", "items",
                      "oneOf", "anyOf", "allOf", *(keyword for keyword, _, _ in _BOUNDS)))
_COMBINERS = (("oneOf", "one-of"), ("anyOf", "any-of"), ("allOf", "all-of"))
_SUCCESS = ("2",)
_UNCLASSIFIED = "schema-keyword-changed"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _types(schema: Mapping[str, Any]) -> set[str] | None:
    """The schema's types (``None``: any), ``integer`` within ``number`` left as written."""
    types = schema.get("type")
    if types is None:
        return None
    return {types} if isinstance(types, str) else set(types)


def _fmt(value: Any) -> str:
    return "absent" if value is None else _canonical(value)


def _route_path(key: str) -> str:
    return key.partition(" ")[2]


def _normalized_route(key: str) -> str:
    """``GET /items/:id`` -> ``GET /items/:``: a renamed path parameter is the same route."""
    method, _, url = key.partition(" ")
    return method + " " + "/".join(":" if segment.startswith(":") else segment for segment in url.split("/"))


def _renamed_parameters(entry: Mapping[str, Any], old_key: str, new_key: str) -> Mapping[str, Any]:
    """``entry`` (of ``old_key``) with its path parameters named as in ``new_key``, by position."""
    old_names = [segment[1:] for segment in old_key.split("/") if segment.startswith(":")]
    new_names = [segment[1:] for segment in new_key.split("/") if segment.startswith(":")]
    names: dict[str, str] = dict(zip(old_names, new_names))
    params: Any = entry.get("request", {}).get("params")
    if not is_object(params) or not is_object(params.get("properties")):
        return entry
    renamed = copy.deepcopy(dict(entry))
    properties: dict[str, Any] = params["properties"]
    required: list[Any] = params.get("required") or []
    renamed["request"]["params"]["properties"] = {names.get(name, name): sub for name, sub in properties.items()}
    if "required" in params:
        renamed["request"]["params"]["required"] = sorted(str(names.get(name, name)) for name in required)
    return renamed


class _Comparison:
    """One :func:`check`: walks both contracts route by route, emitting :class:`Change` s."""

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.route = ""

    def emit(self, rule: str, pointer: str, message: str, level: str | None = None) -> None:
        self.changes.append(Change(rule, level or RULES[rule], self.route, pointer, message))

    @staticmethod
    def rule(prefix: str, suffix: str) -> str:
        """``prefix-suffix`` when it is a rule; else the property form of a body or
        parameter rule (oasdiff has ``request-property-pattern-added``, not
        ``request-body-pattern-added``); else ``schema-keyword-changed``."""
        for candidate in (prefix, prefix.replace("-body", "-property"), prefix.replace("-parameter", "-property")):
            if f"{candidate}-{suffix}" in RULES:
                return f"{candidate}-{suffix}"
        return _UNCLASSIFIED

    # ------------------------------------------------------------------ routes
    def routes(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
        renamed = {_normalized_route(key): key for key in new if key not in old}
        matched: set[str] = set()
        new_paths = {_route_path(key) for key in new}
        for key in sorted(old):
            self.route = key
            other = key if key in new else renamed.get(_normalized_route(key))
            if other is not None:
                matched.add(other)
                if other != key:
                    self.route = f"{key} -> {other}"
                    self.compare_route(_renamed_parameters(old[key], key, other), new[other])
                else:
                    self.compare_route(old[key], new[other])
            elif old[key].get("deprecated"):
                self.emit("api-removed-with-deprecation", "", "removed (it was deprecated)")
            elif _route_path(key) not in new_paths:
                self.emit("api-path-removed-without-deprecation", "", "removed, and no method of its path is left")
            else:
                self.emit("api-removed-without-deprecation", "", "removed")
        for key in sorted(new):
            if key not in old and key not in matched:
                self.route = key
                self.emit("endpoint-added", "", "added")
        return self.changes

    def compare_route(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        if old.get("security") is not None and new.get("security") is not None:
            self.security(old["security"], new["security"])
        old_request, new_request = old.get("request", {}), new.get("request", {})
        for part in ("params", "querystring", "headers"):
            self.parameters(part, old_request.get(part), new_request.get(part))
        self.body(old_request.get("body"), new_request.get("body"))
        self.responses(old.get("responses", {}), new.get("responses", {}))

    # ------------------------------------------------------------------ auth
    def security(self, old: list[Any], new: list[Any]) -> None:
        """Requirements are alternatives (any one satisfied lets a request in), each a set
        of schemes with their scopes; the issue's rule for a route's first requirement,
        oasdiff v1.30's for scopes and removed alternatives."""
        def by_schemes(requirements: list[Any]) -> dict[frozenset[str], dict[str, Any]]:
            return {frozenset(requirement): requirement for requirement in requirements if is_object(requirement)}

        before, after = by_schemes(old), by_schemes(new)
        for schemes, requirement in after.items():
            names = ", ".join(sorted(schemes)) or "none"
            if schemes not in before:
                # A route that asked for nothing now asks for credentials: a client without
                # them gets 401. Another alternative beside existing ones is oasdiff's info.
                level = "error" if not any(before) else "info"
                self.emit("api-security-added", "/security", f"security requirement {names} added", level)
                continue
            for scheme in sorted(schemes):
                old_scopes, new_scopes = set(before[schemes][scheme] or ()), set(requirement[scheme] or ())
                for scope in sorted(new_scopes - old_scopes):
                    self.emit("api-security-scope-added", "/security", f"scope {scope!r} of {scheme} added")
                for scope in sorted(old_scopes - new_scopes):
                    self.emit("api-security-scope-removed", "/security", f"scope {scope!r} of {scheme} removed")
        for schemes in before:
            if schemes not in after:
                names = ", ".join(sorted(schemes)) or "none"
                level = "error" if any(after) else "info"
                self.emit("api-security-removed", "/security", f"security requirement {names} removed", level)

    # ------------------------------------------------------------------ request
    def parameters(self, part: str, old: Any, new: Any) -> None:
        if old is None and new is None:
            return
        pointer = _pointer("request", part)
        old_schema: Any = old if old is not None else {"type": "object", "properties": {}}
        new_schema: Any = new if new is not None else {"type": "object", "properties": {}}
        if not (is_object(old_schema) and is_object(new_schema)
                and is_object(old_schema.get("properties")) and is_object(new_schema.get("properties"))):
            self.schema(old_schema, new_schema, pointer, "request", "request-parameter", "request-parameter")
            return
        old_required: set[str] = set(old_schema.get("required") or [])
        new_required: set[str] = set(new_schema.get("required") or [])
        old_properties: dict[str, Any] = old_schema["properties"]
        new_properties: dict[str, Any] = new_schema["properties"]
        where = {"params": "path", "querystring": "query", "headers": "header"}[part]
        for name in sorted(set(old_properties) | set(new_properties)):
            here = pointer + _pointer("properties", name)
            if name not in old_properties:
                if part == "params":  # the URL had the parameter: a string until now
                    self.schema({"type": "string"}, new_properties[name], here, "request", "request-parameter",
                                "request-parameter")
                elif name in new_required:
                    self.emit("new-required-request-parameter", here, f"new required {where} parameter {name!r}")
                else:
                    self.emit("new-optional-request-parameter", here, f"new optional {where} parameter {name!r}")
                continue
            if name not in new_properties:
                if part == "params":
                    self.schema(old_properties[name], {"type": "string"}, here, "request", "request-parameter",
                                "request-parameter")
                else:
                    self.emit("request-parameter-removed", here, f"{where} parameter {name!r} removed")
                continue
            if name in new_required and name not in old_required:
                self.emit("request-parameter-became-required", here, f"{where} parameter {name!r} became required")
            elif name in old_required and name not in new_required:
                self.emit("request-parameter-became-optional", here, f"{where} parameter {name!r} became optional")
            self.schema(old_properties[name], new_properties[name], here, "request", "request-parameter",
                        "request-parameter")
        rest_old = {key: value for key, value in old_schema.items() if key not in ("properties", "required")}
        rest_new = {key: value for key, value in new_schema.items() if key not in ("properties", "required")}
        self.schema(rest_old, rest_new, pointer, "request", "request-parameter", "request-parameter")

    def body(self, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> None:
        pointer = _pointer("request", "body")
        if old is None and new is None:
            return
        if old is None:
            self.emit("request-body-added-required", pointer, "a (required) request body was added")
            return
        if new is None:
            self.emit("request-body-removed", pointer, "the request body was removed")
            return
        for media_type in sorted(set(old) | set(new)):
            here = pointer + _pointer(media_type)
            if media_type not in new:
                self.emit("request-body-media-type-removed", here, f"media type {media_type} no longer accepted")
            elif media_type not in old:
                self.emit("request-body-media-type-added", here, f"media type {media_type} now accepted")
            else:
                self.schema(old[media_type], new[media_type], here, "request", "request-body", "request-property")

    # ------------------------------------------------------------------ responses
    def responses(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
        for status in sorted(set(old) | set(new)):
            here = _pointer("responses", status)
            kind = "success" if status.startswith(_SUCCESS) else "non-success"
            if status not in new:
                self.emit(f"response-{kind}-status-removed", here, f"status {status} removed")
                continue
            if status not in old:
                self.emit(f"response-{kind}-status-added", here, f"status {status} added")
                continue
            for media_type in sorted(set(old[status]) | set(new[status])):
                inner = here + _pointer(media_type)
                if media_type not in new[status]:
                    self.emit("response-media-type-removed", inner, f"media type {media_type} of {status} removed")
                elif media_type not in old[status]:
                    self.emit("response-media-type-added", inner, f"media type {media_type} of {status} added")
                else:
                    self.schema(old[status][media_type], new[status][media_type], inner, "response",
                                "response-body", "response-property")

    # ------------------------------------------------------------------ schemas
    def schema(self, old: Any, new: Any, pointer: str, direction: str, prefix: str, nested: str) -> None:
        """Compare two schemas where a client sends (``direction="request"``) or receives
        them; ``prefix`` names this node's rules, ``nested`` those of its properties."""
        if not is_object(old) or not is_object(new) or "$recursive" in old or "$recursive" in new:
            if old != new:
                self.emit("schema-keyword-changed", pointer, f"schema changed from {_fmt(old)} to {_fmt(new)}")
            return
        self.types(old, new, pointer, direction, prefix)
        for keyword, name, bound in _BOUNDS:
            self.bound(old.get(keyword), new.get(keyword), keyword, name, bound, pointer, direction, prefix)
        self.pattern(old.get("pattern"), new.get("pattern"), pointer, direction, prefix)
        self.enum(old, new, pointer, direction, prefix)
        if _canonical(old.get("default")) != _canonical(new.get("default")):
            action = "added" if "default" not in old else "removed" if "default" not in new else "changed"
            self.emit(self.rule(prefix, f"default-value-{action}"), pointer + "/default",
                      f"default {action}: {_fmt(old.get('default'))} -> {_fmt(new.get('default'))}")
        self.properties(old, new, pointer, direction, nested)
        if old.get("items") is not None or new.get("items") is not None:
            self.schema(old.get("items", {}), new.get("items", {}), pointer + "/items", direction, nested, nested)
        for keyword, name in _COMBINERS:
            self.combiner(old.get(keyword) or [], new.get(keyword) or [], keyword, name, pointer, direction, prefix,
                          nested)
        for keyword in sorted((set(old) | set(new)) - _HANDLED):
            if _canonical(old.get(keyword)) != _canonical(new.get(keyword)):
                rule = "schema-annotation-changed" if keyword in ("readOnly", "writeOnly", "deprecated") \
                    else "schema-keyword-changed"
                self.emit(rule, pointer + _pointer(keyword),
                          f"{keyword} changed from {_fmt(old.get(keyword))} to {_fmt(new.get(keyword))}")

    def types(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, direction: str,
              prefix: str) -> None:
        old_types, new_types = _types(old), _types(new)
        if old_types is not None and new_types is not None and ("null" in old_types) != ("null" in new_types):
            became = "nullable" if "null" in new_types else "not-nullable"
            self.emit(self.rule(prefix, f"became-{became}"), pointer + "/type", f"became {became.replace('-', ' ')}")
            old_types, new_types = old_types - {"null"}, new_types - {"null"}
        format_changed = old.get("format") != new.get("format")
        if old_types == new_types and not format_changed:
            return
        message = f"type/format changed from {_fmt(old.get('type'))}/{_fmt(old.get('format'))} " \
                  f"to {_fmt(new.get('type'))}/{_fmt(new.get('format'))}"
        wider = (new_types is None or (old_types is not None and (
            old_types <= new_types or (old_types <= {"integer", "number"} and "number" in new_types))))
        if direction == "request" and wider and new.get("format") in (None, old.get("format")):
            self.emit(self.rule(prefix, "type-generalized"), pointer + "/type", message)
        else:
            self.emit(self.rule(prefix, "type-changed"), pointer + "/type", message)

    def bound(self, old: Any, new: Any, keyword: str, name: str, bound: str, pointer: str, direction: str,
              prefix: str) -> None:
        if keyword in ("minLength", "minItems"):  # 0 written or left out: the same bound
            old, new = (None if old == 0 else old), (None if new == 0 else new)
        if old == new:
            return
        here = pointer + "/" + keyword
        lower = bound == "lower"
        narrowing = "increased" if lower else "decreased"
        widening = "decreased" if lower else "increased"
        was = f" (was {_fmt(old)})"
        if direction == "request":
            if old is None and self.rule(prefix, f"{name}-set") != _UNCLASSIFIED:
                self.emit(self.rule(prefix, f"{name}-set"), here, f"{keyword} set to {new}")
            elif new is None:
                self.emit(self.rule(prefix, f"{name}-{widening}"), here, f"{keyword} unset{was}")
            else:
                # No "-set" rule (minLength): absent is no bound, so setting one narrows.
                narrower = old is None or (new > old if lower else new < old)
                action = narrowing if narrower else widening
                self.emit(self.rule(prefix, f"{name}-{action}"), here, f"{keyword} {action} to {new}{was}")
            return
        # A response: clients rely on the old bound; a wider one (or none) breaks them.
        if new is None:
            unset = self.rule(prefix, f"{name}-unset")
            rule = unset if unset != _UNCLASSIFIED else self.rule(prefix, f"{name}-{widening}")
            self.emit(rule, here, f"{keyword} unset{was}")
            return
        wider = old is not None and (new < old if lower else new > old)
        action = widening if wider else narrowing
        self.emit(self.rule(prefix, f"{name}-{action}"), here, f"{keyword} {action} to {new}{was}")

    def pattern(self, old: Any, new: Any, pointer: str, direction: str, prefix: str) -> None:
        if old == new:
            return
        action = "added" if old is None else "removed" if new is None else "changed"
        self.emit(self.rule(prefix, f"pattern-{action}"), pointer + "/pattern",
                  f"pattern {action}: {_fmt(old)} -> {_fmt(new)}")

    def enum(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, direction: str,
             prefix: str) -> None:
        def values(schema: Mapping[str, Any]) -> dict[str, Any] | None:
            if "const" in schema:
                return {_canonical(schema["const"]): schema["const"]}
            if isinstance(schema.get("enum"), list):
                return {_canonical(value): value for value in schema["enum"]}
            return None

        before, after = values(old), values(new)
        if before == after:
            return
        here = pointer + ("/const" if "const" in new or "const" in old else "/enum")
        if before is None:
            self.emit(self.rule(prefix, "became-enum"), here, f"became an enum: {sorted(after or ())}")
            return
        if after is None:
            rule = self.rule(prefix, "enum-value-added")
            self.emit(rule, here, "the enum was removed: any value of the type is now allowed")
            return
        for key in sorted(set(before) - set(after)):
            self.emit(self.rule(prefix, "enum-value-removed"), here, f"enum value {key} removed")
        for key in sorted(set(after) - set(before)):
            self.emit(self.rule(prefix, "enum-value-added"), here, f"enum value {key} added")

    def properties(self, old: Mapping[str, Any], new: Mapping[str, Any], pointer: str, direction: str,
                   nested: str) -> None:
        old_properties: Mapping[str, Any] = old.get("properties") or {}
        new_properties: Mapping[str, Any] = new.get("properties") or {}
        old_required: set[str] = set(old.get("required") or [])
        new_required: set[str] = set(new.get("required") or [])
        for name in sorted(set(old_properties) | set(new_properties) | old_required | new_required):
            here = pointer + _pointer("properties", name)
            required_before, required_after = name in old_required, name in new_required
            new_property = new_properties.get(name)
            has_default = isinstance(new_property, dict) and "default" in new_property
            if name not in old_properties and name in new_properties:
                if direction == "request":
                    rule = ("new-required-request-property-with-default" if has_default else
                            "new-required-request-property") if required_after else "new-optional-request-property"
                else:
                    rule = "response-required-property-added" if required_after else "response-optional-property-added"
                self.emit(rule, here, f"property {name!r} added" + (" (required)" if required_after else ""))
                continue
            if name in old_properties and name not in new_properties:
                if direction == "request":
                    rule = "request-property-removed"
                else:
                    rule = "response-required-property-removed" if required_before else \
                        "response-optional-property-removed"
                self.emit(rule, here, f"property {name!r} removed")
                continue
            if required_after and not required_before:
                if direction == "request":
                    rule = "request-property-became-required-with-default" if has_default else \
                        "request-property-became-required"
                else:
                    rule = "response-property-became-required"
                self.emit(rule, here, f"property {name!r} became required")
            elif required_before and not required_after:
                rule = "request-property-became-optional" if direction == "request" else \
                    "response-property-became-optional"
                self.emit(rule, here, f"property {name!r} became optional")
            if name in old_properties and name in new_properties:
                self.schema(old_properties[name], new_properties[name], here, direction, nested, nested)

    def combiner(self, old: list[Any], new: list[Any], keyword: str, name: str, pointer: str, direction: str,
                 prefix: str, nested: str) -> None:
        if len(old) == len(new):
            for index, (before, after) in enumerate(zip(old, new)):
                self.schema(before, after, pointer + _pointer(keyword, index), direction, prefix, nested)
            return
        before = {_canonical(schema) for schema in old}
        after = {_canonical(schema) for schema in new}
        for index, schema in enumerate(new):
            if _canonical(schema) not in before:
                self.emit(self.rule(prefix, f"{name}-added"), pointer + _pointer(keyword, index),
                          f"{keyword} branch added")
        for index, schema in enumerate(old):
            if _canonical(schema) not in after:
                self.emit(self.rule(prefix, f"{name}-removed"), pointer + _pointer(keyword, index),
                          f"{keyword} branch removed")
