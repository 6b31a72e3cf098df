"""A route's input validation: the validators of its four parts, compiled at ``ready()``,
and the lifecycle step that runs them.

Parts validate in the order params, body, querystring, headers, stopping at the first
failing part; the value a validator returns (coerced, defaults filled) replaces the
part on the request. The body is validated for the JSON media types only, or by the
entry of its media type in a ``content`` map. A body of another media type skips a JSON
body schema only when the application added that media type's parser itself: one the
built-in parsers took (``text/plain``) is refused (415), never handed on unvalidated.
A body without a media type, sent or not, is validated too: see :func:`without_media_type`.

A body is refused (400, ``body is nested too deeply``) past ``max_body_depth`` levels of
arrays and objects before anything recurses over it, on the routes where something
does: a body schema that can recurse (a ``$ref`` cycle: a recursive dataclass, msgspec
or pydantic type too) or that compares items deeply (``uniqueItems``). One pass over
the parsed body, on those routes only; elsewhere validation and building go no deeper
than the schema (a value under ``Any`` is handed on as it is) and the JSON parser's own
bound (1024 levels) is the limit.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from typing_extensions import TypeGuard

from ..http.media_types import declared_essence, parse_media_type
from ..errors import (InputBuildError, InvalidMediaTypeError, SchemaValidationBuildError, SchemaValidationFailure,
                     TypeSchemaError, UnresolvableRefError, ValidationError, format_errors, nesting_records)
from ..schemas.keywords import is_array, subschemas
from ..schemas.store import RefIndex, base_inside, escape_token, is_object, normalize_input_schema
from ..validation import Invalid

if TYPE_CHECKING:
    from .content_types import ContentTypeParsers
    from .reply import Reply
    from .request import Request


class DeclaredRoute(Protocol):
    """What compiling a route's schemas reads of the declared route (``framework.route.Route``
    is one: it sits above the lifecycle, which is given it at ``ready()``)."""

    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def schema(self) -> dict[str, Any]: ...

#: ``(schema key, request attribute)`` in the order parts validate.
INPUT_PARTS = (("params", "params"), ("body", "body"), ("querystring", "query"), ("headers", "headers"))
#: Methods whose body a schema may validate.
BODY_SCHEMA_METHODS = frozenset(("POST", "PUT", "PATCH"))

Formatter = Callable[[list[dict[str, Any]], str], Exception]
#: ``validate(data)``: the part's value (coerced, defaults filled), or raises.
Validate = Callable[[Any], Any]
#: The default engine's generated function: ``root(data, path, errors)``, which records
#: failures in ``errors`` (and may raise ``Invalid`` after recording one).
Root = Callable[[Any, str, "list[dict[str, Any]]"], Any]
#: One part as :class:`InputValidation` runs it: ``(part, attribute, validate, root, by_media_type,
#: without_media_type)``.
_Run = tuple[str, str, Validate, "Root | None", "dict[str, Validate] | None", "tuple[str, Callable[[], Any]] | None"]
#: What a present but empty body of these media types parses to (any other: ``None``).
_EMPTY_BODIES: dict[str, Callable[[], Any]] = {
    "application/x-www-form-urlencoded": dict, "multipart/form-data": dict, "text/plain": str}


def without_media_type(essences: list[str]) -> tuple[str, Callable[[], Any]]:
    """How a route whose body schema is a ``content`` map (of ``essences``, in declaration
    order) validates a body without a ``Content-Type``: by its first JSON entry, else its
    first entry; and, when no body was sent at all, as a present but empty body of that
    media type (``{}`` for a form, ``""`` for text, else ``None``, which a JSON schema
    refuses as "body should be object", as a plain body schema does). A missing body never
    skips validation, so a form schema's ``required`` fields hold."""
    essence = next((e for e in essences if parse_media_type(e).is_json), essences[0])  # type: ignore[union-attr]
    return essence, _EMPTY_BODIES.get(essence, _none)


def _none() -> None:
    return None


def default_schema_error_formatter(errors: list[dict[str, Any]], data_var: str) -> Exception:
    """A :class:`ValidationError` whose message is :func:`format_errors`' (``body/tags/1 should be string``)."""
    return ValidationError(format_errors(errors, data_var), errors, data_var)


class PartValidator:
    """One part's validator: the default engine's generated function called directly
    (``root(data, path, errors)``), or any other ``validate(data)``."""

    __slots__ = ("part", "attribute", "validate", "root", "by_media_type", "without_media_type")

    def __init__(self, part: str, attribute: str, validate: Validate | None,
                 by_media_type: dict[str, Validate] | None = None) -> None:
        self.part = part
        self.attribute = attribute
        self.validate = validate
        self.root: Root | None = getattr(validate, "root", None)
        self.by_media_type = by_media_type
        self.without_media_type = without_media_type(list(by_media_type)) if by_media_type else None


def _chosen_by_media_type(data: Any) -> Any:
    """The part-wide validator of a body with a ``content`` map: never called, the media
    type's own validator is (see :meth:`InputValidation.__call__`)."""
    raise AssertionError("a content map's body is validated by its media type's validator")


class InputValidation:
    """The lifecycle step that validates a route's inputs."""

    __slots__ = ("parts", "runs", "formatter", "attach", "refused_media_types", "max_body_depth", "as_parsed")

    def __init__(self, parts: tuple[PartValidator, ...], formatter: Formatter, attach: bool,
                 refused_media_types: frozenset[str] = frozenset(), max_body_depth: int | None = None,
                 as_parsed: bool = False) -> None:
        self.parts = parts
        #: Nothing runs before this step: the params, query and headers it validates are
        #: as the router and the environ gave them (its validators are compiled for that).
        self.as_parsed = as_parsed
        #: Set when something recurses over the body (see the module's docstring).
        self.max_body_depth = max_body_depth
        #: Media types a built-in parser reads that the body schema does not cover: a 415.
        self.refused_media_types = refused_media_types
        # The same, unpacked once: this runs on every request.
        self.runs: tuple[_Run, ...] = tuple(
            (p.part, p.attribute, p.validate if p.validate is not None else _chosen_by_media_type, p.root,
             p.by_media_type, p.without_media_type) for p in parts)
        self.formatter = formatter
        self.attach = attach

    def __call__(self, request: "Request", reply: "Reply") -> None:
        validate: Validate | None  # a content map's entry for the body's media type may be missing
        for part, attribute, validate, root, by_media_type, without in self.runs:
            if part == "body":
                # Whatever parser read the body: it is built or validated below, or both.
                if self.max_body_depth is not None and nested_deeper_than(request.body, self.max_body_depth):
                    error = self.error(nesting_records(self.max_body_depth), part)
                    if self.attach:
                        request.validation_error = error
                        return
                    raise error
                media_type = request.media_type
                if by_media_type is not None:
                    if media_type is None and without is not None:
                        essence, empty = without
                        if request.body is None:  # no body was sent: validated as an empty one
                            request.body = empty()
                        validate = by_media_type[essence]
                    else:
                        validate = by_media_type.get(media_type.essence) if media_type else None
                    if validate is None:
                        if media_type is not None and media_type.essence in self.refused_media_types:
                            raise InvalidMediaTypeError(request.environ.get("CONTENT_TYPE"))
                        continue
                    root = getattr(validate, "root", None)
                elif media_type is not None and not media_type.is_json:
                    if media_type.essence in self.refused_media_types:
                        raise InvalidMediaTypeError(request.environ.get("CONTENT_TYPE"))
                    continue  # a parser the application added took it (seed 4.4 note 4)
            if root is not None:  # the default engine's generated function, called as its wrapper would
                errors: list[dict[str, Any]] = []
                try:
                    value = root(getattr(request, attribute), "", errors)
                except Invalid:
                    pass
                if not errors:  # Invalid is raised only once an error is recorded: value is set
                    setattr(request, attribute, value)  # pyright: ignore[reportPossiblyUnboundVariable]
                    continue
                error = self.error(errors, part)
            else:
                try:
                    setattr(request, attribute, validate(getattr(request, attribute)))
                    continue
                except SchemaValidationFailure as failure:
                    error = self.error(failure.errors, part)
                except Exception as raised:
                    error = _as_validation_error(raised, part)
            if self.attach:
                request.validation_error = error
                return
            raise error

    def error(self, errors: list[dict[str, Any]], part: str) -> Exception:
        """The error answering ``errors`` (records) found in ``part``, as this route formats it."""
        error: Exception = self.formatter(errors, part)
        if not isinstance(error, BaseException):  # an untyped custom formatter may return a message
            error = ValidationError(str(error), errors, part)
        return _as_validation_error(error, part, errors)

    def __repr__(self) -> str:
        return f"<validate {', '.join(part.part for part in self.parts)}>"


def compile_input_validation(route: DeclaredRoute, compile_default: Callable[..., Validate],
                             compiler: Callable[..., Any] | None, formatter: Formatter | None,
                             shared: dict[str, Any], parsers: "ContentTypeParsers | None" = None,
                             max_body_depth: int = 128, as_parsed: bool = False) -> InputValidation | None:
    """The validation step of ``route`` (``None`` when it validates nothing).

    ``compile_default(schema, shared=, http_part=, as_parsed=)`` is the app's engine;
    ``compiler`` a ``set_validator_compiler`` function that replaces it; ``parsers`` the
    route's ``ContentTypeParsers`` (which media types only built-in parsers read);
    ``max_body_depth`` the levels a body may nest where something recurses over it;
    ``as_parsed`` that no step runs before this one (see ``ValidatorEngine.compile``).
    """
    schema = route.schema
    parts: list[PartValidator] = []
    for part, attribute in INPUT_PARTS:
        part_schema = schema.get(part)
        if part_schema is None or (part == "body" and route.method not in BODY_SCHEMA_METHODS):
            continue

        def build(raw: Any) -> Validate:
            normalized = normalize_input_schema(raw, part)
            try:
                if compiler is None:
                    return compile_default(normalized, shared=shared, http_part=part,
                                           as_parsed=as_parsed and part != "body")
                return adapt_custom_validator(compiler(schema=normalized, method=route.method, url=route.url,
                                                       http_part=part))
            except Exception as error:
                raise SchemaValidationBuildError(route.method, f"{route.url}, schema.{part}", error) from error

        if part == "body" and is_content_map(part_schema):
            by_media_type: dict[str, Validate] = {}
            for media_type, entry in part_schema["content"].items():
                try:
                    essence = declared_essence(media_type)
                except ValueError as error:
                    raise SchemaValidationBuildError(route.method, f"{route.url}, schema.body", error) from None
                custom = parsers.content_validator(essence) if parsers is not None else None
                by_media_type[essence] = build(entry["schema"]) if custom is None else custom(entry["schema"], build)
            parts.append(PartValidator(part, attribute, None, by_media_type))
        else:
            parts.append(PartValidator(part, attribute, build(part_schema)))
    if not parts:
        return None
    refused: frozenset[str] = frozenset()
    body = next((p for p in parts if p.part == "body"), None)
    if body is not None and parsers is not None:
        covered = body.by_media_type or {}
        refused = frozenset(essence for essence in parsers.by_essence
                            if parsers.needs_content_schema(essence) and essence not in covered
                            # (essences parsed when their parser was added: they parse)
                            and not parse_media_type(essence).is_json)  # type: ignore[union-attr]
    depth_checked = body is not None and any(
        recurses_with_data(body_schema, shared) for body_schema in _body_schemas(schema["body"]))
    return InputValidation(tuple(parts), formatter or default_schema_error_formatter,
                           bool(route.options.get("attach_validation")), refused,
                           max_body_depth if depth_checked else None, as_parsed)


def _body_schemas(schema: Any) -> list[Any]:
    """A body's schemas: one, or one per media type of a ``content`` map."""
    if is_content_map(schema):
        return [entry["schema"] for entry in schema["content"].values()]
    return [schema]


def recurses_with_data(schema: Any, shared: dict[str, Any]) -> bool:
    """Whether validating (and building) against ``schema`` can recurse as deep as the
    data: a ``$ref`` that leads back to a schema it is inside of (a ``$ref`` cycle,
    through shared schemas too), or ``uniqueItems`` (items compared in depth). A
    reference that does not resolve counts (an engine of the application's own may
    still take it)."""
    if not _mentions_ref_or_unique(schema):  # most schemas: a plain scan, half the walk's cost
        return False
    top = _refs_below(schema, "")
    if top is not None and not top:  # no $ref to follow: no index to build
        return False
    try:
        index = RefIndex(schema, shared)
    except UnresolvableRefError:
        return True
    # Depth-first over the schemas that $ref enters: one still open when met again is a cycle.
    open_targets: set[int] = set()
    done: set[int] = set()

    def enters_cycle(node: Any, outer: str) -> bool:
        open_targets.add(id(node))
        refs = _refs_below(node, outer)
        if refs is None:
            return True
        for ref, base in refs:
            try:
                target, target_outer = index.resolve(ref, base)
            except UnresolvableRefError:
                return True
            if id(target) in open_targets or (id(target) not in done and enters_cycle(target, target_outer)):
                return True
        open_targets.discard(id(node))
        done.add(id(node))
        return False

    return enters_cycle(schema, "")


def _mentions_ref_or_unique(schema: Any) -> bool:
    """Whether an object anywhere in ``schema`` (a subschema or not: an ``enum`` member too)
    has a ``$ref`` or ``uniqueItems`` member. When none has, no subschema has."""
    stack: list[Any] = [schema]
    while stack:
        value = stack.pop()
        if is_object(value):
            if "$ref" in value or "uniqueItems" in value:
                return True
            stack.extend(value.values())
        elif is_array(value):
            stack.extend(value)
    return False


def _refs_below(node: Any, outer: str) -> list[tuple[str, str]] | None:
    """Every ``(ref, base)`` of ``node`` and its subschemas, each with the base URI it is
    resolved against (not following the references themselves); ``None`` at a
    ``uniqueItems``."""
    refs: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(node, outer)]
    while stack:
        node, outer = stack.pop()
        if not is_object(node):
            continue
        if node.get("uniqueItems") is True:
            return None
        ref = node.get("$ref")
        if isinstance(ref, str):
            refs.append((ref, outer))
        base = base_inside(node, outer)
        stack.extend((sub, base) for sub in subschemas(node))
    return refs


_CONTAINERS = (dict, list)


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels (``{}`` is one
    level, ``{"a": []}`` two), found level by level without recursing."""
    level: list[Any] = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for node in level:
            items: Any = node.values() if is_object(node) else node
            for item in items:
                if isinstance(item, _CONTAINERS):
                    below.append(item)
        level = below
    return False


def is_content_map(schema: object) -> TypeGuard[dict[str, Any]]:
    """``{"content": {media_type: {"schema": ...}}}``: a schema per media type."""
    if not is_object(schema):
        return False
    content = schema.get("content")
    return is_object(content) and bool(content) and all(
        is_object(entry) and "schema" in entry for entry in content.values())


def _as_validation_error(error: Exception, part: str,
                         errors: list[dict[str, Any]] | None = None) -> Exception:
    """Give any error a validation failure raised the attributes Fastify gives it."""
    # (Attributes set on whatever exception it is, by design: hence the attr-defined ignores.)
    if not isinstance(getattr(error, "status_code", None), int):
        error.status_code = 400  # type: ignore[attr-defined]
    if not getattr(error, "code", None):
        error.code = "FST_ERR_VALIDATION"  # type: ignore[attr-defined]
    if errors is not None or getattr(error, "validation", None) is None:
        error.validation = errors if errors is not None else [  # type: ignore[attr-defined]
            {"keyword": "exception", "instance_path": "", "schema_path": "", "params": {},
             "message": str(error)}]
    if not getattr(error, "validation_context", None):
        error.validation_context = part  # type: ignore[attr-defined]
    return error


def adapt_custom_validator(validate: Callable[[Any], Any]) -> Validate:
    """Turn a custom validator's result forms into ours: return the value or raise.

    Honoured: ``{"value": v}`` (v replaces the part) / ``{"error": e}``; ``True``/``False``
    with the errors on ``validate.errors``; and raising (a validation failure).
    """
    if not callable(validate):
        raise TypeError("a validator compiler must return a function")

    def run(data: Any) -> Any:
        # The forms honoured (an untyped validator may return anything else: the data stands).
        result: bool | dict[str, Any] | None = validate(data)
        if result is True or result is None:
            return data
        if result is False:
            raise SchemaValidationFailure(_records(getattr(validate, "errors", None)))
        if isinstance(result, dict) and result.keys() <= {"value", "error"} and result:
            error = result.get("error")
            if error:
                if isinstance(error, BaseException):
                    raise error
                raise SchemaValidationFailure(_records(error))
            return result.get("value", data)
        return data

    return run


def _records(errors: list[dict[str, Any] | str] | str | None) -> list[dict[str, Any]]:
    """A custom validator's errors (records or messages, or one message) as error records."""
    if isinstance(errors, list):
        return [e if isinstance(e, dict) else _record(str(e)) for e in errors]
    return [_record(str(errors) if errors else "should be valid")]


def _record(message: str) -> dict[str, Any]:
    return {"keyword": "error", "instance_path": "", "schema_path": "", "params": {}, "message": message}


class InputBuilding:
    """The lifecycle step that turns validated inputs into the values their Python types
    name (a dataclass, msgspec or pydantic instance, a ``datetime``...): only for routes
    declared with such types (``framework.typeschema.builder_of``)."""

    __slots__ = ("builds", "validation")

    def __init__(self, builds: tuple[tuple[str, str, Callable[[Any], Any]], ...],
                 validation: InputValidation) -> None:
        self.builds = builds
        #: The route's validation step: a value its type cannot hold fails as validation does.
        self.validation = validation

    def __call__(self, request: "Request", reply: "Reply") -> None:
        if request.validation_error is not None:
            return  # attach_validation: the handler sees the data that failed
        for part, attribute, build in self.builds:
            value = getattr(request, attribute)
            if value is not None:
                try:
                    setattr(request, attribute, build(value))
                except InputBuildError as refused:
                    error = self.validation.error([_build_record(refused)], part)
                    if self.validation.attach:
                        request.validation_error = error
                        return
                    raise error from None

    def __repr__(self) -> str:
        return f"<build {', '.join(attribute for _, attribute, _ in self.builds)}>"


def _build_record(refused: InputBuildError) -> dict[str, Any]:
    pointer = "".join(f"/{escape_token(key)}" for key in refused.path)
    return {"keyword": "type", "instance_path": pointer, "schema_path": "", "params": {},
            "message": refused.message}


def compile_input_building(route: DeclaredRoute, validation: InputValidation | None) -> InputBuilding | None:
    """The building step of ``route`` (``None`` when its inputs need none, or nothing is
    validated: only validated data is built)."""
    from ..schemas.typeschema import builder_of
    if validation is None:
        return None
    types: dict[str, tuple[Any, str]] = route.options.get("types") or {}
    builds: list[tuple[str, str, Callable[[Any], Any]]] = []
    for part, attribute in INPUT_PARTS:
        if part in types and not (part == "body" and route.method not in BODY_SCHEMA_METHODS):
            try:
                build = builder_of(types[part][0])
            except TypeSchemaError as error:
                raise TypeSchemaError(f"Route {route.method}:{route.url}, {part}: {error}") from None
            if build is not None:
                builds.append((part, attribute, build))
    return InputBuilding(tuple(builds), validation) if builds else None
