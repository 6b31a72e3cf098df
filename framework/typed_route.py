"""A typed route's schemas: the Python types given in ``schema=`` or in the handler's
annotations (``def create(request: Request[ItemIn], reply) -> ItemOut``) turned into JSON
Schema once, at declaration (through :mod:`framework.schemas.typeschema`), and the types
kept for the typed inputs the lifecycle builds."""
from __future__ import annotations

import collections.abc
import inspect
import typing
from typing import Any

from typing_extensions import TypeGuard, TypeVar, get_args, get_origin

from .errors import TypeSchemaError
from .http.media_types import declared_essence
from .lifecycle.responses import SEQUENTIAL_MEDIA_TYPES
from .lifecycle.request import Request
from .schemas.keywords import ANNOTATION_KEYWORDS
from .schemas.store import is_object
from .schemas.typeschema import is_python_type, schema_of

#: ``Request``'s type arguments, in order, and the schema part each one declares.
REQUEST_TYPE_PARTS = ("body", "querystring", "params", "headers")
_INPUT_KEYS = {"body": "body", "querystring": "querystring", "query": "querystring", "params": "params",
               "headers": "headers"}


def apply_types(options: dict[str, Any]) -> None:
    """Turn a route's Python types into JSON Schema, once, at declaration.

    Types given in ``schema`` (``{"body": ItemIn, "response": {201: ItemOut}}``) are
    converted in place. Then the handler's annotations fill the parts ``schema`` leaves
    out: ``request: Request[Body, Query, Params, Headers]`` the four inputs, the return
    annotation the success response: ``200``, unless the schema declares another success
    status (a 2xx or ``2xx``; an entry with only a ``description`` gets the annotation's
    schema) or ``default``; ``-> Iterator[Item]`` (``Iterable``, ``Generator``) with
    ``produces`` naming sequential media types (``application/jsonl``...) declares
    ``200``'s ``itemSchema`` for each of them. An explicit ``schema`` entry always wins. What came
    from a type is recorded in ``options["types"]`` (shown by ``print_routes`` and used to
    build dataclass and other instances from the validated data).
    """
    declared: dict[str, Any] | None = options.get("schema")
    if declared is not None and not isinstance(declared, dict):
        return  # refused by check_route_options
    schema = dict(declared or {})
    types: dict[str, tuple[Any, str]] = {}

    def convert(value: Any, where: str) -> Any:
        try:
            return schema_of(value)
        except TypeSchemaError as error:
            raise TypeSchemaError(f"Route {options['method']}:{options['url']}, {where}: {error}") from None

    def convert_content(value: Any, where: str) -> Any:
        """A content map's entries (``{"content": {media type: {"schema": T}}}``) converted."""
        content: object = value.get("content") if is_object(value) else None
        if not is_object(content):
            return value
        converted: dict[str, Any] = {}
        for media_type, entry in content.items():
            for key in ("schema", "itemSchema"):
                if is_object(entry) and is_python_type(entry.get(key)):
                    entry = {**entry, key: convert(entry[key], f"{where}.content[{media_type!r}].{key}")}
            converted[media_type] = entry
        return {**value, "content": converted}

    for key, part in _INPUT_KEYS.items():
        if key in schema and is_python_type(schema[key]):
            types[part] = (schema[key], "schema")
            schema[key] = convert(schema[key], f"schema.{key}")
    if "body" in schema:
        schema["body"] = convert_content(schema["body"], "schema.body")
    response: dict[int | str, Any] | None = schema.get("response")
    if isinstance(response, dict):
        response = schema["response"] = dict(response)
        for status, value in response.items():
            if is_python_type(value):
                types[f"response.{status}"] = (value, "schema")
                response[status] = convert(value, f"schema.response.{status}")
            else:
                response[status] = convert_content(value, f"schema.response.{status}")

    request_types, return_type = handler_types(options.get("handler"))
    given = {_INPUT_KEYS[key] for key in schema if key in _INPUT_KEYS}
    for part, tp in zip(REQUEST_TYPE_PARTS, request_types):
        if tp is not None and part not in given:
            types[part] = (tp, "annotation")
            schema[part] = convert(tp, f"the handler's Request[...] ({part})")
    responses: dict[int | str, Any] = schema.get("response") or {}
    item_type = _streamed_item_type(return_type)
    produces = _sequential_produces(schema.get("produces")) if item_type is not None else None
    if item_type is not None and produces:
        # -> Iterator[Item] with produces="application/jsonl": the items' schema, for the
        # route's success status, unless the schema declares one.
        if not any(_is_success(status) or str(status) == "default" for status in responses):
            item_schema = convert(item_type, "the handler's return annotation")
            schema["response"] = {**responses, 200: {"content": {
                media_type: {"itemSchema": item_schema} for media_type in produces}}}
            types["response.200"] = (return_type, "annotation")
    elif return_type is not None:
        try:
            derived = schema_of(return_type)
        except TypeSchemaError:
            derived = None  # a Response, a generator, bytes...: the reply is not JSON of a schema
        if derived is not None and derived not in _SHAPELESS:
            # The success status the route declares (201, say) is the one the annotation
            # describes; 200 only when it declares none.
            success = [status for status in responses if _is_success(status)]
            if not success and not any(str(status) == "default" for status in responses):
                schema["response"] = {**responses, 200: derived}
                types["response.200"] = (return_type, "annotation")
            for status in success:
                if _documentation_only(responses[status]):  # {201: {"description": "Created"}}
                    schema["response"] = responses = {**responses, status: {**derived, **responses[status]}}
                    types[f"response.{status}"] = (return_type, "annotation")
    if types:
        options["types"] = types
    if types or (declared is not None and schema != declared):
        options["schema"] = schema


#: Return types that say nothing of the JSON's shape add no response schema (which would
#: only cost a serializer): ``-> dict[str, Any]``, ``-> list``, ``-> str``...
_SHAPELESS: tuple[dict[str, Any], ...] = (
    {}, {"type": "object"}, {"type": "object", "additionalProperties": True}, {"type": "array"},
    {"type": "string"}, {"type": "null"})


#: The return annotations of a handler that streams items: ``Iterator[Item]``...
_STREAMED = (collections.abc.Iterator, collections.abc.Iterable, collections.abc.Generator)


def _streamed_item_type(annotation: Any) -> Any:
    """``Item`` of a ``Iterator[Item]``, ``Iterable[Item]`` or ``Generator[Item, ...]``
    return annotation (``None`` for any other)."""
    if get_origin(annotation) not in _STREAMED:
        return None
    arguments = get_args(annotation)
    return arguments[0] if arguments else None


def _sequential_produces(produces: Any) -> list[str] | None:
    """The media types of a route's ``produces`` when every one is a sequential JSON type
    (``application/jsonl``...): the media types a ``-> Iterator[Item]`` handler streams."""
    listed: list[object] = [produces] if isinstance(produces, str) else \
        list(produces) if isinstance(produces, (list, tuple)) else []  # pyright: ignore[reportUnknownArgumentType]
    if not listed:
        return None
    found: list[str] = []
    for media_type in listed:
        if not isinstance(media_type, str):
            return None
        try:
            essence = declared_essence(media_type)
        except ValueError:
            return None
        if SEQUENTIAL_MEDIA_TYPES.get(essence) is None:
            return None
        found.append(media_type)
    return found


def _is_success(status: int | str) -> bool:
    """``200``-``299`` or ``2xx`` (any case), as a response key."""
    key = str(status).lower()
    return key == "2xx" or (len(key) == 3 and key.isdigit() and key[0] == "2")


def _documentation_only(entry: Any) -> bool:
    """A response entry that documents a status without a schema of its body (annotations only)."""
    return is_object(entry) and all(key in ANNOTATION_KEYWORDS for key in entry)


def handler_types(handler: Any) -> tuple[tuple[Any, ...], Any]:
    """The handler's ``Request[...]`` type arguments (``None`` for each one left untyped)
    and its return annotation (``None`` when it has none)."""
    untyped: tuple[Any, ...] = (None,) * len(REQUEST_TYPE_PARTS)
    if not callable(handler):
        return untyped, None
    target = inspect.unwrap(handler)
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = getattr(target, "__call__", target)
    annotations = getattr(target, "__annotations__", None)
    if not annotations:
        return untyped, None
    try:
        parameters = [p for p in inspect.signature(target).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return untyped, None
    first = parameters[0].name if parameters else None
    hints = _resolved_annotations(target, annotations, handler)
    return request_type_arguments(hints.get(first) if first else None), hints.get("return")


def _resolved_annotations(target: Any, annotations: dict[str, Any], handler: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as error:
        # Types defined inside a function cannot be found from a string annotation.
        if any(isinstance(value, str) and "[" in value for value in annotations.values()):
            name = getattr(handler, "__qualname__", None) or repr(handler)
            raise TypeSchemaError(f"The annotations of handler {name} cannot be resolved ({error}): define the "
                                  "types they name at module level") from None
        return {name: value for name, value in annotations.items() if not isinstance(value, str)}


def request_type_arguments(annotation: Any) -> tuple[Any, ...]:
    """``Request[A, B]`` (or a subclass of ``Request``, subscripted or not) -> ``(A, B, None,
    None)``: the type given for each of body, querystring, params and headers, ``None``
    where it is left to its default."""

    untyped: tuple[Any, ...] = (None,) * len(REQUEST_TYPE_PARTS)
    cls = get_origin(annotation) or annotation
    if not _is_request_class(cls):
        return untyped
    arguments = _bind(cls, get_args(annotation))
    while cls is not Request:
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin = get_origin(base)
            if _is_request_class(origin):
                arguments = _bind(origin, tuple(arguments.get(arg, arg) if isinstance(arg, TypeVar) else arg
                                                for arg in get_args(base)))
                cls = origin
                break
        else:
            cls = next(base for base in cls.__mro__[1:] if _is_request_class(base))
            arguments = {}
    return tuple(_typed(arguments.get(parameter), parameter) for parameter in getattr(Request, "__parameters__"))


def _is_request_class(value: Any) -> TypeGuard[type[Request[Any, Any, Any, Any]]]:
    """Whether ``value`` is ``Request`` or a subclass of it."""
    return isinstance(value, type) and issubclass(value, Request)


def _bind(cls: type, args: tuple[Any, ...]) -> dict[Any, Any]:
    """The class's type parameters bound to ``args``, in order (missing ones unbound)."""
    return dict(zip(getattr(cls, "__parameters__", ()), args))


def _typed(argument: Any, parameter: Any) -> Any:
    """``argument`` unless it leaves the part untyped: unbound, ``Any``, ``None`` (as in
    ``Request[None, Query]`` for a GET route) or the parameter's default."""
    if argument is None or argument is type(None) or argument is typing.Any or isinstance(argument, typing.TypeVar):
        return None
    if argument == getattr(parameter, "__default__", None):
        return None
    return argument
