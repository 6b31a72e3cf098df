"""``framework.testing.fuzz(app, examples=...)``: contract testing from the routes' schemas.

For every route of the application (the automatic ``HEAD`` routes and ``mount`` routes
excepted), Hypothesis draws requests from the route's compiled schemas (the normalized
``params``, ``querystring``, ``headers`` and ``body`` schemas, ``$ref`` resolved through
the shared schemas visible to the route) and sends them through ``app.inject``:

* valid requests (half the draws): every part valid. Valid means valid for the route's
  own validators (the ones its validation step runs: the app's engine with the app's
  validator options, or the route's own compiler), on the parts as the route will see
  them (path parameters and query values as text, every header sent, the JSON body); a
  draw they refuse is discarded. The answer must not be a 5xx, nor a validation error
  (``FST_ERR_VALIDATION``, whoever raised it: a hook refusing valid input breaks the
  contract too); a 2xx body must validate against the route's response schema for that
  status (an exact key, else the class key such as ``2xx``, else ``default``; checked
  with ``jsonschema``). Any other 4xx is the handler's choice (a 404, a 409) and passes;
* invalid requests: one part made invalid (a required property missing, a value of a type
  no coercion turns into the declared one, a number out of range, a string out of its
  length or enum, an array too long...), the others valid; the answer must be a 400 whose
  message starts with the part's name (``validation_context``: ``params``, ``body``,
  ``querystring``, ``headers``).

A route none of whose valid draws reached its handler fails ("no valid draw reached the
handler"): either nothing drawn was valid (a constraint the strategies cannot meet, a
format only the application knows), or something before the handler (a hook, a guard)
answered every one. To know, ``fuzz`` wraps the route's compiled handler while it runs
that route: each request it sends carries a list in its environ, which the wrapper marks
when the handler is called; any other request passes through, and the handler is put
back afterwards. The answer alone could not tell (a hook may answer anything a handler may).

Strategies are written here for the subset of JSON Schema route schemas use: ``type``
(one or a list), ``properties``/``required``, ``enum``, ``const``, ``minimum``/
``maximum`` (and exclusive), ``minLength``/``maxLength``, ``pattern`` (drawn with
``hypothesis.strategies.from_regex``: schemas are application code), ``format`` (every
format of ``framework.validation.formats``: ``framework.testing.fuzz_formats``), ``items``/
``minItems``/``maxItems``, ``anyOf``/``oneOf`` (one branch), ``$ref``. A subschema with
other combinators is drawn from loosely (the route's validators then keep what is valid),
and never made invalid (the check could not know the answer).

Each route failing is reported with its minimal (shrunk) example; ``fuzz`` raises
:class:`FuzzFailure` listing them, or returns a :class:`FuzzReport` when all pass. The
report counts, per route, the valid draws, those that reached the handler and the
invalid draws (:class:`RouteCounts`).
"""
from __future__ import annotations

import importlib
import json
import re
import string
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Collection, Generator, Mapping, Protocol, TypeGuard, Union
from urllib.parse import quote

from ..http import encoding
from .fuzz_formats import INTEGER_FORMATS, format_strategy
from .injection import build_environ
from ..lifecycle.inputs import BODY_SCHEMA_METHODS, InputValidation, Validate, is_content_map
from ..http.media_types import parse_media_type, parse_query_string
from ..lifecycle.request import headers_from_environ
from ..lifecycle.responses import is_response_content_map
from ..schemas.store import Schema, is_array, is_object, normalize_input_schema

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from ..http.injected import InjectResponse
    from ..lifecycle.compiled_route import CompiledRoute
    from ..route import Route
    from ..state import AppState

#: ``fuzz(routes=...)``: ``routes(route) -> bool``, or a collection of ``"METHOD /url"`` labels.
RouteFilter = Union[Callable[["Route"], bool], Collection[str]]
#: What a drawn request is: the invalid part (``None``: all valid) and each part's value.
Drawn = tuple[Union[str, None], dict[str, Any]]

PARTS = ("params", "body", "querystring", "headers")
#: The keywords the fuzzer cannot draw an invalid value for with certainty (its own choice,
#: not a kind of keyword, so not in the keyword table).
_UNSURE = ("allOf", "not", "if", "then", "else", "dependencies", "patternProperties", "propertyNames",
           "contains", "uniqueItems", "multipleOf", "format", "additionalItems", "minProperties",
           "maxProperties", "$ref", "nullable")
_SAFE_TEXT = string.ascii_letters + string.digits + "-_"
_MAX_INT = 2 ** 31


@dataclass
class RouteFailure:
    """A route that broke its contract: ``message`` holds the minimal example."""

    method: str
    url: str
    message: str

    def __str__(self) -> str:
        return f"{self.method} {self.url}: {self.message}"


class FuzzFailure(AssertionError):
    """``framework.testing.fuzz`` found routes that break their contract: ``failures``
    lists them (``method``, ``url``, ``message`` with the minimal example)."""

    def __init__(self, failures: list[RouteFailure]) -> None:
        self.failures = failures
        super().__init__("\n\n".join(str(failure) for failure in failures))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.failures,))


@dataclass
class RouteCounts:
    """The requests ``fuzz`` sent one route (shrinking included): ``valid`` draws (valid
    for the route's own validators), how many of them ``reached`` its handler, and
    ``invalid`` draws (one part invalid)."""

    valid: int = 0
    reached: int = 0
    invalid: int = 0


@dataclass
class FuzzReport:
    """What ``fuzz`` checked: ``routes`` (``"GET /items/:id"``...), ``failures``, and
    ``counts``: each route's :class:`RouteCounts` by its ``"METHOD /url"`` label."""

    # (``lambda: []``: pyright reads ``default_factory=list`` as list[Unknown].)
    routes: list[str] = field(default_factory=lambda: [])
    failures: list[RouteFailure] = field(default_factory=lambda: [])
    counts: dict[str, RouteCounts] = field(default_factory=lambda: {})


# $ref: inlined through the shared schemas visible to the route.
def _pointer(document: Any, pointer: str) -> Any:
    for token in filter(None, pointer.split("/")):
        token = token.replace("~1", "/").replace("~0", "~")
        document = document[int(token)] if is_array(document) else document[token]
    return document


def inline_refs(schema: Any, shared: Mapping[str, Any], root: Any = None, depth: int = 0) -> Any:
    """``schema`` with every ``$ref`` replaced by what it points to (shared ``$id``s, JSON
    pointers); a recursion past 8 levels becomes ``{}`` (anything)."""
    if root is None:
        root = schema
    if depth > 8:
        return {}
    if is_array(schema):
        return [inline_refs(item, shared, root, depth) for item in schema]
    if not is_object(schema):
        return schema
    if isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        name, _, pointer = ref.partition("#")
        if name:
            document = shared.get(name) or shared.get(name.rstrip("/")) or next(
                (value for key, value in shared.items() if key.rstrip("#") == name), None)
            if document is None:
                raise ValueError(f"cannot resolve $ref {ref!r}")
        else:
            document = root
        target = _pointer(document, pointer)
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        resolved = inline_refs(target, shared, document, depth + 1)
        return {**resolved, **{k: v for k, v in rest.items() if k not in ("description",)}} if rest else resolved
    return {key: (inline_refs(value, shared, root, depth) if key not in ("enum", "const", "default", "examples")
                  else value) for key, value in schema.items()}


def _types(schema: Schema) -> list[str]:
    kind = schema.get("type")
    if kind is None:
        if "properties" in schema or "required" in schema:
            return ["object"]
        if "items" in schema:
            return ["array"]
        return []
    return [kind] if isinstance(kind, str) else list(kind)


class FuzzedApp(Protocol):
    """What ``fuzz`` uses of the application (``Framework`` is one): every declared route
    with its compiled form, and ``inject``. Typed structurally so that the testing tools
    sit below the application and never import it."""

    _state: "AppState"

    def ready(self) -> object: ...

    def routes(self, include_descendants: bool = True) -> "list[Route]": ...

    def _compiled(self, route: "Route") -> "CompiledRoute": ...

    def inject(self, method: str = "GET", url: str = "/", headers: Mapping[str, str] | None = None,
               query: Mapping[str, Any] | None = None, json: Any = None, body: bytes | str | None = None,
               **environ_overrides: Any) -> "InjectResponse": ...


# Valid values. (Hypothesis is imported where it is used: this module imports without it.)
def valid(schema: Any, text: bool) -> SearchStrategy[Any]:
    """A strategy of values valid for ``schema`` (``text``: a value of a query string,
    path or header, drawn as it will be written: only scalars and arrays of scalars)."""
    from hypothesis import strategies as st
    if schema is True or not is_object(schema) or not schema:
        return st.text(_SAFE_TEXT, min_size=1, max_size=8) if text else _json_values()
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            base = {k: v for k, v in schema.items() if k != key}
            return st.one_of([valid({**base, **branch}, text) for branch in schema[key]
                              if is_object(branch)])
    kinds = _types(schema) or (["string"] if text else ["string", "integer", "boolean"])
    return st.one_of([_valid_of(kind, schema, text) for kind in kinds])


def _json_values() -> SearchStrategy[Any]:
    from hypothesis import strategies as st
    scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8)
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(_SAFE_TEXT, max_size=5), inner, max_size=3), max_leaves=5)


def _valid_of(kind: str, schema: Schema, text: bool) -> SearchStrategy[Any]:
    from hypothesis import strategies as st
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        named = schema.get("format")
        bounds = INTEGER_FORMATS.get(named) if isinstance(named, str) else None
        if bounds is not None:  # int32, int64: an integer within them, whatever the type says
            kind = "integer"
        if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], (int, float)):
            low = schema["exclusiveMinimum"] + (1 if kind == "integer" else 1e-6)
        if "exclusiveMaximum" in schema and isinstance(schema["exclusiveMaximum"], (int, float)):
            high = schema["exclusiveMaximum"] - (1 if kind == "integer" else 1e-6)
        if kind == "integer":
            low = -_MAX_INT if low is None else int(-(-low // 1))
            high = _MAX_INT if high is None else int(high // 1)
            if bounds is not None:
                low, high = max(low, bounds[0]), min(high, bounds[1])
            return st.integers(low, high)
        return st.floats(low if low is not None else -1e9, high if high is not None else 1e9,
                         allow_nan=False, allow_infinity=False).map(lambda value: value + 0.0)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "string":
        # A pattern first (a format it also names then filters the draws: _RouteCase.holds),
        # else the format's own strategy.
        pattern = schema.get("pattern")
        # fullmatch: a string matching the whole pattern also matches it unanchored.
        strategy = (st.from_regex(pattern, fullmatch=True) if isinstance(pattern, str)
                    else format_strategy(schema.get("format")))
        if strategy is not None:
            shortest: int = schema.get("minLength", 0)
            longest: int | None = schema.get("maxLength")
            return strategy.filter(lambda s: len(s) >= shortest and (longest is None or len(s) <= longest)
                                   and (not text or (s.isprintable() and s.isascii())))
        alphabet = _SAFE_TEXT if text else st.characters(codec="utf-8")
        low = schema.get("minLength", 0)
        return st.text(alphabet, min_size=low, max_size=max(low, min(schema.get("maxLength", low + 20), low + 20)))
    if kind == "array":
        items = schema.get("items", {})
        item = valid(items if is_object(items) else {}, text)
        low = schema.get("minItems", 0)
        return st.lists(item, min_size=low, max_size=max(low, min(schema.get("maxItems", 3), 3)))
    if kind == "object":
        if text:
            return st.just({})
        properties: Schema = schema.get("properties") or {}
        required = [name for name in schema.get("required", ()) if name in properties]
        optional = [name for name in properties if name not in required]
        missing = [name for name in schema.get("required", ()) if name not in properties]
        return st.fixed_dictionaries(
            {**{name: valid(properties[name], False) for name in required},
             **{name: st.text(_SAFE_TEXT, max_size=5) for name in missing}},
            optional={name: valid(properties[name], False) for name in optional})
    # hypothesis types nothing() with typing.Never, which Python 3.10's typing (the configured target) lacks.
    return st.nothing()  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]


# Invalid values (for any coercion the validator may do).
def _sure(schema: Any) -> TypeGuard[Schema]:
    return isinstance(schema, dict) and not any(key in schema for key in _UNSURE + ("anyOf", "oneOf"))


def _with_value(name: str) -> Callable[[tuple[Any, Any]], dict[str, Any]]:
    """``(object, value)`` -> the object with ``name`` set to the value."""
    return lambda pair: {**pair[0], name: pair[1]}


def _without_drawn_key(pair: tuple[Any, Any]) -> dict[str, Any]:
    """``(object, name)`` -> the object without that property."""
    return {k: v for k, v in pair[0].items() if k != pair[1]}


def invalid(schema: Any, text: bool) -> SearchStrategy[Any] | None:
    """A strategy of values no coercion makes valid for ``schema``, or ``None`` when none is known."""
    from hypothesis import strategies as st
    if not _sure(schema) or not schema:
        return None
    options: list[SearchStrategy[Any]] = []
    letters = st.text(string.ascii_letters, min_size=3, max_size=6).map(lambda s: "zz" + s)
    if "enum" in schema or "const" in schema:
        allowed = schema.get("enum", [schema.get("const")])
        if all(isinstance(value, str) for value in allowed):
            options.append(letters.filter(lambda s: s not in allowed))
        return st.one_of(options) if options else None
    kinds = _types(schema)
    if len(kinds) != 1:
        return None
    kind = kinds[0]
    if kind in ("integer", "number", "boolean"):
        options.append(letters)  # no number or boolean reads "zzabc"
    if kind in ("integer", "number"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if isinstance(low, (int, float)):
            minimum: float = low

            def below(d: int) -> float:
                return (minimum + d) if kind == "integer" else minimum - 1.5
            options.append(st.integers(-1000, -1).map(below))
        if isinstance(high, (int, float)):
            maximum: float = high

            def above(d: int) -> float:
                return (maximum + d) if kind == "integer" else maximum + 1.5
            options.append(st.integers(1, 1000).map(above))
        if kind == "integer":
            options.append(st.integers(-100, 100).map(lambda n: n + 0.5).filter(
                lambda x: (low is None or x >= low) and (high is None or x <= high)))
    if kind == "string":
        low, high = schema.get("minLength"), schema.get("maxLength")
        alphabet = _SAFE_TEXT
        if isinstance(low, int) and low > 0:
            options.append(st.text(alphabet, max_size=low - 1))
        if isinstance(high, int):
            options.append(st.text(alphabet, min_size=high + 1, max_size=high + 5))
        if not text:
            options.append(st.just({"not": "a string"}))
    if kind == "object" and not text:
        options.append(letters)
        properties: Schema = schema.get("properties") or {}
        defaults = {name for name, sub in properties.items() if is_object(sub) and "default" in sub}
        required = [name for name in schema.get("required", ()) if name not in defaults]
        base = valid(schema, False)
        if required:
            options.append(st.tuples(base, st.sampled_from(required)).map(_without_drawn_key))
        for name, sub in properties.items():
            bad = invalid(sub, False)
            if bad is not None:
                options.append(st.tuples(base, bad).map(_with_value(name)))
    if kind == "array" and not text:
        options.append(st.just({"not": "an array"}))
        high = schema.get("maxItems")
        item = schema.get("items", {})
        if isinstance(high, int) and is_object(item):
            options.append(st.lists(valid(item, False), min_size=high + 1, max_size=high + 3))
        bad = invalid(item, False) if is_object(item) else None
        if bad is not None:
            options.append(st.lists(bad, min_size=1, max_size=2))
    return st.one_of(options) if options else None


def _invalid_part(schema: Schema, text: bool) -> SearchStrategy[Any] | None:
    """An invalid value of a whole part: an object schema (params, query, headers) made
    invalid at one property, or a body schema made invalid anywhere."""
    from hypothesis import strategies as st
    if not text:
        return invalid(schema, False)
    if not _sure(schema):
        return None
    properties: Schema = schema.get("properties") or {}
    defaults = {name for name, sub in properties.items() if is_object(sub) and "default" in sub}
    required = [name for name in schema.get("required", ()) if name not in defaults]
    base = _text_object(schema)
    options: list[SearchStrategy[Any]] = []
    if required:
        options.append(st.tuples(base, st.sampled_from(required)).map(_without_drawn_key))
    for name, sub in properties.items():
        bad = invalid(sub, True) if is_object(sub) and _types(sub) != ["array"] else None
        if bad is not None:
            options.append(st.tuples(base, bad).map(_with_value(name)))
    return st.one_of(options) if options else None


def _text_object(schema: Schema) -> SearchStrategy[dict[Any, Any]]:
    """Valid values of params, a query string or headers: an object of scalars (and arrays of scalars)."""
    from hypothesis import strategies as st
    properties: Schema = schema.get("properties") or {}
    required = [name for name in schema.get("required", ()) if name in properties]
    missing = [name for name in schema.get("required", ()) if name not in properties]
    return st.fixed_dictionaries(
        {**{name: valid(properties[name], True) for name in required},
         **{name: st.text(_SAFE_TEXT, min_size=1, max_size=5) for name in missing}},
        optional={name: valid(properties[name], True) for name in properties if name not in required})


def _as_text(value: Any) -> Any:
    """A drawn value as a query string, path or header writes it: a str (a list of them for an array)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if is_array(value):
        return [_as_text(item) for item in value]
    return str(value)


# The route's request and its checks.
class _RouteCase:
    def __init__(self, route: "Route", compiled: "CompiledRoute") -> None:
        self.route = route
        self.validators = _part_validators(compiled)
        self.counts = RouteCounts()
        #: The answers to valid draws that did not reach the handler, by status (and one example).
        self.unreached: Counter[int] = Counter()
        self.unreached_example = ""
        shared = route.context.get_schemas()
        schema = route.schema
        self.parts: dict[str, Schema] = {}
        for part in PARTS:
            raw = schema.get(part)
            if raw is None or (part == "body" and route.method not in BODY_SCHEMA_METHODS):
                continue
            if part == "body" and is_content_map(raw):
                entry = next((item for media_type, item in raw["content"].items() if "json" in media_type), None)
                if entry is None:
                    continue
                raw = entry["schema"]
            self.parts[part] = inline_refs(normalize_input_schema(raw, part), shared)
        self.param_names: list[str] = re.findall(r":(\w+)", route.url)
        self.wildcard = "*" in route.url
        self.constrained = "(" in route.url
        responses: dict[str | int, Any] = schema.get("response") or {}
        self.responses = {str(key).lower(): inline_refs(value, shared) for key, value in responses.items()}

    def valid_strategy(self, part: str) -> SearchStrategy[Any]:
        if part == "params":
            schema = self.parts.get("params", {"type": "object"})
            declared: Schema = schema.get("properties") or {}
            properties = dict(declared)
            for name in self.param_names:
                properties.setdefault(name, {"type": "string", "minLength": 1})
            return _text_object({**schema, "properties": properties, "required": self.param_names})
        if part == "body":
            return valid(self.parts["body"], False)
        return _text_object(self.parts[part])

    def invalid_strategy(self, part: str) -> SearchStrategy[Any] | None:
        if part not in self.parts or (part == "params" and self.constrained):
            return None
        if part == "params":
            schema = self.parts["params"]
            if set(schema.get("properties") or {}) - set(self.param_names):
                return None
            strategy = _invalid_part({**schema, "required": []}, True)  # a path always has its params
            return strategy.filter(lambda params: set(self.param_names) <= set(params)) if strategy is not None else None
        return _invalid_part(self.parts[part], part != "body")

    def strategy(self) -> SearchStrategy[Drawn]:
        """Requests to send: every part valid (half the draws), or one part invalid and the others valid."""
        from hypothesis import strategies as st
        parts = [part for part in PARTS if part in self.parts or part == "params"]
        valid_case = st.fixed_dictionaries({part: self.valid_strategy(part) for part in parts}).map(_drawn(None))
        invalid_cases: list[SearchStrategy[Drawn]] = []
        for bad_part in parts:
            bad = self.invalid_strategy(bad_part)
            if bad is not None:
                invalid_cases.append(st.fixed_dictionaries(
                    {part: (bad if part == bad_part else self.valid_strategy(part)) for part in parts}).map(
                    _drawn(bad_part)))
        return st.one_of(valid_case, st.one_of(invalid_cases)) if invalid_cases else valid_case

    def request(self, values: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """The drawn values as ``inject`` arguments: the path, query string, headers and JSON body."""
        url = self.route.url
        params = self.path_params(values)
        for name in self.param_names:
            url = re.sub(r":" + name + r"(\([^)]*\))?", quote(params[name], safe=""), url, count=1)
        if self.wildcard:
            url = url.replace("*", quote(params["*"], safe="/"))
        querystring: dict[str, Any] = values.get("querystring") or {}
        query = {name: _as_text(value) for name, value in querystring.items()}
        drawn_headers: dict[str, Any] = values.get("headers") or {}
        request_headers = dict(headers)
        request_headers.update({name: _as_text(value) for name, value in drawn_headers.items()
                                if not isinstance(value, list)})
        return {"method": self.route.method, "url": url, "headers": request_headers, "query": query or None,
                "json": values.get("body")}

    def path_params(self, values: dict[str, Any]) -> dict[str, Any]:
        """The path parameters as the router gives them to the route: text."""
        params: dict[str, Any] = values.get("params") or {}
        found = {name: _as_text(params.get(name, "x")) for name in self.param_names}
        if self.wildcard:
            found["*"] = str(params.get("*", "x"))
        return found

    def holds(self, invalid_part: str | None, values: dict[str, Any], request: dict[str, Any]) -> bool:
        """Whether the drawn request is what it claims (every part valid, or ``invalid_part``
        alone invalid), by the route's own validators on the parts as the route will see
        them: the text of the path, the parsed query string, every header sent, the JSON body."""
        environ = build_environ(**request)
        seen = {"params": self.path_params(values), "querystring": parse_query_string(environ["QUERY_STRING"]),
                "headers": headers_from_environ(environ),
                "body": None if request["json"] is None else encoding.loads(json.dumps(request["json"]).encode())}
        # (An invalid part the route does not validate could not be refused: no such draw.)
        return (invalid_part is None or invalid_part in self.validators) and all(
            _accepts(validate, seen[part]) != (part == invalid_part) for part, validate in self.validators.items())

    def count(self, invalid_part: str | None, reached: bool, response: InjectResponse) -> None:
        """Count one draw sent (``reached``: its handler ran)."""
        if invalid_part is not None:
            self.counts.invalid += 1
            return
        self.counts.valid += 1
        if reached:
            self.counts.reached += 1
        else:
            self.unreached[response.status_code] += 1
            self.unreached_example = self.unreached_example or response.text[:200]

    def unreached_reason(self) -> str:
        """Why no valid draw reached the handler."""
        if not self.counts.valid:
            return ("no valid draw reached the handler: no request drawn from the route's schemas was valid for "
                    "its validators (a format fuzz has no strategy for, a pattern and a format together...?)")
        answers = ", ".join(f"{status} ({times} times)" for status, times in sorted(self.unreached.items()))
        return (f"no valid draw reached the handler: each of its {self.counts.valid} valid draws was answered "
                f"before it (answered {answers}): {self.unreached_example}")

    def response_schema(self, status: int) -> Any:
        for key in (str(status), f"{status // 100}xx", "default"):
            if key in self.responses:
                entry = self.responses[key]
                if is_response_content_map(entry):
                    entry = next((item["schema"] for media_type, item in entry["content"].items()
                                  if "json" in media_type and "schema" in item), None)
                return entry
        return None

    def check(self, invalid_part: str | None, values: dict[str, Any], response: InjectResponse) -> None:
        """Raise ``AssertionError`` when ``response`` breaks the route's contract for the drawn request."""
        import jsonschema
        where = f"{self.route.method} {self.route.url} with {json.dumps(values, default=repr)}"
        status = response.status_code
        if status >= 500:
            raise AssertionError(f"{where}: answered {status}: {response.text[:500]}")
        if invalid_part is None and _field(response, "code") == "FST_ERR_VALIDATION":
            raise AssertionError(f"{where}: valid for the route's schemas but answered {status} FST_ERR_VALIDATION: "
                                 f"{response.text[:500]}")
        if invalid_part is not None:
            if status != 400:
                raise AssertionError(f"{where}: {invalid_part} is invalid but the answer is {status}, not 400: "
                                     f"{response.text[:500]}")
            message = _field(response, "message")
            if not message.startswith(invalid_part):
                raise AssertionError(f"{where}: {invalid_part} is invalid but the 400 names another part: "
                                     f"{message!r}")
            return
        if 200 <= status < 300 and response.body and self.route.method != "HEAD":
            schema = self.response_schema(status)
            media_type = parse_media_type(response.headers.get("content-type", ""))
            if schema is None or media_type is None or not media_type.is_json:  # (not a typed stream's lines)
                return
            body = response.json()
            errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(body),  # pyright: ignore[reportUnknownMemberType]  # types-jsonschema: an unannotated overload
                            key=str)
            if errors:
                raise AssertionError(f"{where}: the {status} reply does not match its response schema: "
                                     f"{errors[0].message} (at /{'/'.join(map(str, errors[0].absolute_path))}); "
                                     f"body {response.text[:500]}")


def _drawn(invalid_part: str | None) -> Callable[[dict[str, Any]], Drawn]:
    """Drawn part values -> ``(invalid_part, values)``."""
    return lambda values: (invalid_part, values)


def _field(response: InjectResponse, name: str) -> str:
    """A field of a JSON error answer (``message``, ``code``); ``""`` when it has none
    (and the whole text for a message that is not JSON)."""
    try:
        payload = response.json()
    except ValueError:
        return response.text if name == "message" else ""
    return str(payload.get(name, "")) if is_object(payload) else ""


def _accepts(validate: Validate, value: Any) -> bool:
    # Any exception is a refusal, as the route's validation step takes it.
    try:
        validate(value)
    except Exception:
        return False
    return True


def _part_validators(compiled: "CompiledRoute") -> dict[str, Validate]:
    """The validators the route itself runs, by part: those of its validation step (the
    app's engine and options, or the route's own compiler), the body's for JSON."""
    validation = next((owner for owner in (getattr(step, "__self__", None) for step in compiled.steps)
                       if isinstance(owner, InputValidation)), None)
    validators: dict[str, Validate] = {}
    for part in validation.parts if validation is not None else ():
        validate = part.validate if part.by_media_type is None else part.by_media_type.get("application/json")
        if validate is not None:
            validators[part.part] = validate
    return validators


#: The environ key of the list a request's handler marks when it runs (see ``_counting_handler``).
_REACHED = "framework.testing.fuzzer.reached"


@contextmanager
def _counting_handler(compiled: "CompiledRoute") -> Generator[None, None, None]:
    """While ``fuzz`` runs a route, its handler marks the requests ``fuzz`` sent that reached
    it (it appends to the list at ``environ[_REACHED]``); any other request passes through
    untouched, and the handler is put back afterwards."""
    handler = compiled.handler

    def counted(request: Any, reply: Any) -> Any:
        reached = request.environ.get(_REACHED)
        if reached is not None:
            reached.append(True)
        return handler(request, reply)

    compiled.handler = counted
    try:
        yield
    finally:
        compiled.handler = handler


def _run_route(case: _RouteCase, app: "FuzzedApp", examples: int, headers: dict[str, str],
               seed: int | None) -> str | None:
    """Run one route's property; its first failure (Hypothesis's minimal example), or ``None``."""
    import hypothesis
    from hypothesis.errors import Unsatisfiable

    @hypothesis.settings(max_examples=examples, deadline=None, database=None, derandomize=seed is None,
                         # HealthCheckMeta.__iter__ (untyped) yields the non-deprecated HealthChecks.
                         suppress_health_check=list(hypothesis.HealthCheck),  # pyright: ignore[reportArgumentType]
                         print_blob=False,
                         report_multiple_bugs=False)
    @hypothesis.given(drawn=case.strategy())
    def check(drawn: Drawn) -> None:
        invalid_part, values = drawn
        request = case.request(values, headers)
        hypothesis.assume(case.holds(invalid_part, values, request))
        reached: list[bool] = []
        marked: dict[str, Any] = {_REACHED: reached}  # an environ key the counting handler reads
        response = app.inject(**request, **marked)
        case.count(invalid_part, bool(reached), response)
        case.check(invalid_part, values, response)

    if seed is not None:
        check = hypothesis.seed(seed)(check)
    try:
        check()
    except Unsatisfiable:
        return None
    except AssertionError as error:
        return str(error).split("\n")[0]
    except Exception as error:  # the app raised out of inject, or a strategy could not draw
        return f"{type(error).__name__}: {error}"
    return None


def fuzz(app: "FuzzedApp", examples: int = 100, *, headers: dict[str, str] | None = None,
         routes: RouteFilter | None = None, raise_on_failure: bool = True, seed: int | None = None) -> FuzzReport:
    """Check every route's contract with ``examples`` drawn requests (see the module).

    ``headers`` go with every request (an ``Authorization`` header, say); ``routes``
    keeps only the routes it accepts (``routes(route) -> bool``, or a collection of
    ``"METHOD /url"`` strings); ``seed`` makes the draw reproducible. Raises
    :class:`FuzzFailure` naming each failing route with its minimal example (or, with
    ``raise_on_failure=False``, returns them in the report).
    """
    try:  # the functions above import it where they use it
        importlib.import_module("hypothesis")
        importlib.import_module("hypothesis.strategies")
    except ImportError as error:  # pragma: no cover - hypothesis is in the test extra
        raise ImportError("framework.testing.fuzz needs hypothesis (pip install hypothesis jsonschema)") from error
    app.ready()
    report = FuzzReport()
    for route in app._state.routes:  # pyright: ignore[reportPrivateUsage]  # every route, as declared
        if route.options.get("mount") or (route.method == "HEAD" and route not in app.routes()):
            continue
        label = f"{route.method} {route.url}"
        if routes is not None and not (routes(route) if callable(routes) else label in routes):
            continue
        report.routes.append(label)
        compiled = route.compiled or app._compiled(route)  # pyright: ignore[reportPrivateUsage]  # lazy=True
        case = _RouteCase(route, compiled)
        with _counting_handler(compiled):
            failure = _run_route(case, app, examples, headers or {}, seed)
        report.counts[label] = case.counts
        if failure is None and not case.counts.reached:
            failure = case.unreached_reason()
        if failure is not None:
            report.failures.append(RouteFailure(route.method, route.url, failure))
    if report.failures and raise_on_failure:
        raise FuzzFailure(report.failures)
    return report


__all__ = ["FuzzFailure", "FuzzReport", "FuzzedApp", "RouteCounts", "RouteFailure", "fuzz", "inline_refs"]
